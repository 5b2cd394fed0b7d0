// job_controller.cpp — the Volcano job controller of TrainingCluster (Volcano v1.12.1): what
// happens to a job whose pod is evicted or fails, by the job's lifecycle policies.
//
// Volcano's job controller turns every pod event into a request (pkg/controllers/job/
// job_controller_handler.go: a pod being deleted raises PodEvicted, a pod whose phase becomes
// Failed raises PodFailed, a task whose pods all Succeeded raises TaskCompleted), picks an
// action for it (job_controller_util.go applyPolicies: the task's policies first, then the
// job's, else SyncJob) and lets the state of the Job execute it (pkg/controllers/job/state/
// *.go). mltwin reproduces the states and actions below; each function cites its file.
//
// What mltwin does not replay one by one: the echo requests of the controller's own deletions
// (killJob bumps status.version, so they are outdated and run SyncJob; killTarget does not, so
// they run the task's action again in Restarting, where it only re-evaluates the status) and
// the status updates each sync writes. Their net effect is check_job_phase() below, which
// applies the state's status rule whenever a pod of the job changes.
//
// torchrun (TorchX dist.ddp: `torchrun --rdzv_backend c10d --rdzv_endpoint $rank0:29500
// --nnodes n`, no --max_restarts, so 0; torchx/components/dist.py v0.7.0): the n pods' workers
// form one process group. When a pod is lost (deleted or failed), the survivors' all-reduce
// waits for the lost peer: training stops at once and the progress since the last checkpoint
// is lost; the survivors hold their nodes. Two things can end the wait:
//  - the gang forms again: a replacement pod (SyncJob or RestartTask recreates the missing pod
//    once the PodGroup is admitted) joins the c10d rendezvous; the survivors' agents see a node
//    waiting and restart their workers ("membership changes do not count as retries",
//    torch/distributed/elastic/agent/server/api.py _invoke_run), and the job trains again from
//    its checkpoint once every pod runs, without a Volcano restart;
//  - or the process group's timeout (TrainingScenario::peer_failure_timeout) expires first:
//    the survivors' workers raise, torchrun has no restart left and exits with an error, the
//    pods are Failed (restartPolicy Never, kubernetes_scheduler.py role_to_pod) and the job
//    controller sees PodFailed.
// TaskCompleted is never raised: a job's pods all succeed at the same instant (job_end), when
// the Job is Completed, and state/finished.go ignores every action then.
// Not modelled: the c10d store lives in rank 0's pod, so the survivors of a rank-0 loss fail
// as soon as their agents next reach the store rather than at the timeout.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "mltwin/models/collective.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/core/flow_network.hpp"
#include "mltwin/models/fabric_traffic.hpp"
#include "training_internal.hpp"

namespace mltwin::models {

using policy::PodGroupPhase;
using policy::TaskId;
using policy::TaskStatus;

const char* to_string(JobEvent e) {
  switch (e) {
    case JobEvent::PodEvicted: return "PodEvicted";
    case JobEvent::PodFailed: return "PodFailed";
    case JobEvent::TaskCompleted: return "TaskCompleted";
    case JobEvent::Any: return "*";
  }
  return "?";
}

const char* to_string(JobAction a) {
  switch (a) {
    case JobAction::SyncJob: return "SyncJob";
    case JobAction::RestartJob: return "RestartJob";
    case JobAction::RestartTask: return "RestartTask";
    case JobAction::RestartPod: return "RestartPod";
    case JobAction::AbortJob: return "AbortJob";
    case JobAction::TerminateJob: return "TerminateJob";
    case JobAction::CompleteJob: return "CompleteJob";
    case JobAction::ResumeJob: return "ResumeJob";
  }
  return "?";
}

const char* to_string(VcPhase p) {
  switch (p) {
    case VcPhase::Pending: return "Pending";
    case VcPhase::Running: return "Running";
    case VcPhase::Restarting: return "Restarting";
    case VcPhase::Aborting: return "Aborting";
    case VcPhase::Aborted: return "Aborted";
    case VcPhase::Terminating: return "Terminating";
    case VcPhase::Terminated: return "Terminated";
    case VcPhase::Completing: return "Completing";
    case VcPhase::Completed: return "Completed";
    case VcPhase::Failed: return "Failed";
  }
  return "?";
}

JobAction JobLifecycle::action_for(JobEvent e, bool* from_task) const {
  // applyPolicies (job_controller_util.go): the task's policies first ("Overwrite Job level
  // policies"), each matching the event or "*", then the job's; no match: SyncJob.
  for (const auto& p : task_policies)
    if (p.matches(e)) {
      if (from_task) *from_task = true;
      return p.action;
    }
  for (const auto& p : policies)
    if (p.matches(e)) {
      if (from_task) *from_task = false;
      return p.action;
    }
  return JobAction::SyncJob;
}

JobLifecycle torchx_lifecycle(int max_retries) {
  JobLifecycle l;
  if (max_retries > 0) {
    // RETRY_POLICIES[RetryPolicy.APPLICATION] on every task; job maxRetry = min over roles.
    l.max_retry = max_retries;
    l.task_policies = {{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::PodEvicted)), JobAction::RestartJob},
                       {static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::PodFailed)), JobAction::RestartJob}};
  }
  // max_retries 0: no policy; maxRetry 0 becomes the webhook's DefaultMaxRetry 3.
  return l;
}

const JobLifecycle& TrainingCluster::lifecycle_of(std::size_t idx) const {
  const auto& l = scenario_.jobs[idx].lifecycle;
  return l ? *l : torchx_default_;
}

void TrainingCluster::recount(std::size_t idx) {
  JobRun& run = runs_[idx];
  run.bound = run.running = 0;
  for (TaskId t : state_.job(run.pj).tasks) {
    const TaskStatus s = state_.task(t).status;
    if (s == TaskStatus::Running) ++run.running;
    if (s == TaskStatus::Running || s == TaskStatus::Bound) ++run.bound;
  }
}

void TrainingCluster::set_job_phase(std::size_t idx, VcPhase phase) { runs_[idx].vc = phase; }

double TrainingCluster::stop_training(std::size_t idx) {
  // The attempt in progress stops: a start-up phase is abandoned (a compilation in flight never
  // reaches the cache), training since the last checkpoint (or since the start) is lost.
  JobRun& run = runs_[idx];
  const TrainingJobSpec& spec = scenario_.jobs[idx];
  JobStartup& js = jstart_[idx];
  if (js.in_startup) {
    sim_.cancel(js.done_event);
    js.in_startup = false;
    if (startup_) startup_->abort_compiles(static_cast<std::uint32_t>(idx), sim_.now());
  }
  double lost_s = 0;
  if (run.attempt_start != core::Time::max()) {
    sim_.cancel(run.end_event);
    stats_.training_s += (sim_.now() - run.attempt_start).seconds();
    const std::int64_t c = scenario_.checkpoint_interval.count_ns();
    if (scenario_.duration_model == DurationModel::Derived) {
      // Progress in whole steps; a checkpoint every max(1, c / step time) steps of this
      // attempt. The kept steps' share of the attempt's time and split is credited, the rest
      // is lost (with one step time all along: elapsed - kept steps x step time).
      end_step_period(idx, sim_.now(), "restarted");
      const Duration elapsed = sim_.now() - run.attempt_start;
      const std::int64_t t = run.step.total().count_ns();
      const std::int64_t done = run.steps_saved + static_cast<std::int64_t>(std::floor(run.att_steps));
      const std::int64_t every = std::max<std::int64_t>(1, t > 0 ? c / t : 1);
      const std::int64_t kept = c > 0 ? std::max(run.steps_saved, done / every * every) : 0;
      const double k = static_cast<double>(std::max<std::int64_t>(0, kept - run.steps_saved));
      const double frac = run.att_steps > 0 ? std::min(1.0, k / run.att_steps) : 0.0;
      JobOutcome& o = outcomes_[idx];
      o.compute_s += frac * run.att_compute_s;
      o.communication_s += frac * run.att_comm_s;
      o.sync_s += frac * run.att_sync_s;
      lost_s = elapsed.seconds() * (1.0 - frac);
      run.steps_saved = kept;
      run.period_start = core::Time::max();
    } else {
      const Duration total = run.saved + (sim_.now() - run.attempt_start);
      const Duration kept = c > 0 ? Duration::ns(total.count_ns() / c * c) : Duration::ns(0);
      lost_s = (total - kept).seconds();
      run.saved = kept;
    }
    run.attempt_start = core::Time::max();
    if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) {
      fabric_traffic_->remove_job(static_cast<std::uint32_t>(idx));  // the others may speed up
      settle_traffic();
    }
  }
  outcomes_[idx].lost_s += lost_s;
  if (run.attempt_placed != core::Time::max()) outcomes_[idx].startup_s += (sim_.now() - run.attempt_placed).seconds();
  run.attempt_placed = core::Time::max();
  stats_.lost_training_s += lost_s;
  stats_.lost_neuroncore_s += lost_s * neuroncores_of(pod_resreq(idx)) * spec.nnodes;
  return lost_s;
}

void TrainingCluster::gang_broken(std::size_t idx) {
  // A pod of the job was lost (see the file comment): training stops; the survivors, if any,
  // wait for their peer until the process group's timeout.
  JobRun& run = runs_[idx];
  run.last_lost_s += stop_training(idx);
  recount(idx);
  if (run.bound > 0) {
    run.gang_broken = true;
    if (!run.peer_timer) {
      run.peer_timer = true;
      run.peer_event = sim_.schedule_in(scenario_.peer_failure_timeout, &peer_timeout_event_, idx);
    }
  } else {
    cancel_peer_timer(idx);
  }
}

void TrainingCluster::cancel_peer_timer(std::size_t idx) {
  JobRun& run = runs_[idx];
  run.gang_broken = false;
  if (!run.peer_timer) return;
  sim_.cancel(run.peer_event);
  run.peer_timer = false;
}

void TrainingCluster::peer_timeout(std::size_t idx) {
  // The survivors' process group timed out: torchrun exits with an error, their pods Fail.
  JobRun& run = runs_[idx];
  run.peer_timer = false;
  if (run.ended) return;
  std::vector<TaskId> survivors;
  for (TaskId t : state_.job(run.pj).tasks) {
    const TaskStatus s = state_.task(t).status;
    if (s == TaskStatus::Running || s == TaskStatus::Bound) survivors.push_back(t);
  }
  std::sort(survivors.begin(), survivors.end());
  for (TaskId t : survivors) {
    const policy::TaskInfo& task = state_.task(t);
    const policy::NodeId node = task.node;
    account_allocation(-neuroncores_of(task.resreq));
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Failed", state_.node(node).name, sim_.now()});
    state_.set_task_status(t, TaskStatus::Failed);
    node_occupancy_changed(node);
    char secs[64];
    std::snprintf(secs, sizeof secs, "%.0f", scenario_.peer_failure_timeout.seconds());
    run.events.push_back({JobEvent::PodFailed, replica_of_task_[t],
                          "pod " + task.name + " failed (torchrun: its process group timed out after " + secs +
                              " s waiting for a lost peer)"});
  }
  run.gang_broken = false;
  recount(idx);
  job_controller(idx);
}

void TrainingCluster::delete_pod(std::size_t idx, TaskId t) {
  const policy::TaskInfo& task = state_.task(t);
  const TaskStatus s = task.status;
  if (s == TaskStatus::Releasing) return;  // being deleted already
  if (!policy::on_node_status(s)) {
    // Not on a node (Pending, or its containers have ended): the API server deletes it at once.
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Deleted", "", sim_.now()});
    state_.remove_task(t);
    return;
  }
  if (s == TaskStatus::Pipelined) {  // only nominated to a node
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Deleted", "", sim_.now()});
    state_.set_task_status(t, TaskStatus::Pending);
    state_.remove_task(t);
    return;
  }
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Killed", state_.node(task.node).name, sim_.now()});
  state_.set_task_status(t, TaskStatus::Releasing);
  const Duration grace = grace_rng_ ? scenario_.termination_grace.draw(*grace_rng_) : scenario_.termination_grace.a;
  sim_.schedule_in(grace, &pod_gone_event_, t);
}

int TrainingCluster::kill_pods(std::size_t idx, bool soft, int only_replica) {
  // killPods (pkg/controllers/job/job_controller_actions.go): every pod of the job (KillJob) or
  // of the target task (KillTarget) is deleted, except, with PodRetainPhaseSoft, the Succeeded
  // and Failed ones; pods being deleted already are left alone.
  JobRun& run = runs_[idx];
  const auto tasks = state_.job(run.pj).tasks;  // copy: pods leave the list
  bool lost_on_node = false;
  int deleted = 0;
  for (TaskId t : tasks) {
    if (only_replica >= 0 && replica_of_task_[t] != only_replica) continue;
    const TaskStatus s = state_.task(t).status;
    if (s == TaskStatus::Releasing) continue;  // being deleted already
    if (soft && (s == TaskStatus::Succeeded || s == TaskStatus::Failed)) continue;
    if (s == TaskStatus::Running || s == TaskStatus::Bound || s == TaskStatus::Binding) lost_on_node = true;
    delete_pod(idx, t);
    ++deleted;
  }
  if (lost_on_node) run.last_lost_s += stop_training(idx);
  recount(idx);
  if (run.bound == 0) cancel_peer_timer(idx);  // no survivor left to time out
  return deleted;
}

void TrainingCluster::job_controller(std::size_t idx) {
  JobRun& run = runs_[idx];
  run.controller_pending = false;
  const std::vector<JobRun::PendingEvent> events = std::move(run.events);
  run.events.clear();
  for (const auto& e : events) {
    if (run.ended) break;
    controller_event(idx, e.event, e.replica, e.what);
  }
  ensure_tick();
}

void TrainingCluster::controller_event(std::size_t idx, JobEvent e, int replica, const std::string& what) {
  JobRun& run = runs_[idx];
  const JobLifecycle& lc = lifecycle_of(idx);
  // A pod lost while the gang held together breaks torchrun's process group.
  if (e == JobEvent::PodEvicted || e == JobEvent::PodFailed) gang_broken(idx);
  bool from_task = false;
  const JobAction a = lc.action_for(e, &from_task);
  const VcPhase before = run.vc;
  const bool last_retry = run.retries >= lc.max_retry - 1;  // killPods: the last retry keeps Failed pods
  const double lost_before = run.last_lost_s;
  int killed = 0;
  switch (before) {
    case VcPhase::Pending:
    case VcPhase::Running:
      // state/pending.go, state/running.go
      switch (a) {
        case JobAction::RestartJob:
          killed += kill_pods(idx, last_retry, -1);
          ++run.retries;
          set_job_phase(idx, VcPhase::Restarting);
          break;
        case JobAction::RestartTask:
        case JobAction::RestartPod:  // one pod per task: the task's pod
          killed += kill_pods(idx, false, replica);
          ++run.retries;
          set_job_phase(idx, VcPhase::Restarting);
          break;
        case JobAction::AbortJob:
          killed += kill_pods(idx, true, -1);
          set_job_phase(idx, VcPhase::Aborting);
          break;
        case JobAction::TerminateJob:
          killed += kill_pods(idx, true, -1);
          set_job_phase(idx, VcPhase::Terminating);
          break;
        case JobAction::CompleteJob:
          killed += kill_pods(idx, true, -1);
          set_job_phase(idx, VcPhase::Completing);
          break;
        default:  // SyncJob (and ResumeJob, which these states do not handle): the status rule
          break;
      }
      break;
    case VcPhase::Restarting:
      // state/restarting.go: SyncJob syncs, RestartTask/RestartPod kill their target, anything
      // else kills the job; retryCount does not move.
      if (a == JobAction::RestartTask || a == JobAction::RestartPod) killed += kill_pods(idx, false, replica);
      else if (a != JobAction::SyncJob) killed += kill_pods(idx, last_retry, -1);
      break;
    case VcPhase::Aborting:
    case VcPhase::Aborted:
      // state/aborting.go, state/aborted.go: ResumeJob restarts the job, anything else kills it.
      killed += kill_pods(idx, true, -1);
      if (a == JobAction::ResumeJob) {
        ++run.retries;
        set_job_phase(idx, VcPhase::Restarting);
      }
      break;
    default:  // Terminating, Completing, and the finished phases: KillJob(PodRetainPhaseSoft)
      killed += kill_pods(idx, true, -1);
      break;
  }
  // state/restarting.go restartingUpdateStatus, on the next request (the echo of this one's
  // deletions, at the same instant): retryCount >= maxRetry -> Failed.
  if (run.vc == VcPhase::Restarting && run.retries >= lc.max_retry) {
    set_job_phase(idx, VcPhase::Failed);
    killed += kill_pods(idx, true, -1);  // state/finished.go: KillJob(PodRetainPhaseSoft)
  }
  // A request that changes nothing for a job already being torn down or restarted (a second
  // pod of it evicted in the same cycle, say) leaves no row: the first one told the story.
  const bool settled = before != VcPhase::Pending && before != VcPhase::Running;
  if (settled && run.vc == before && killed == 0 && run.last_lost_s == lost_before && run.last_lost_s == 0) {
    check_job_phase(idx);
    return;
  }
  // The decision row (explain): what happened, the policy, the retry count, the work lost.
  char lost[64];
  std::snprintf(lost, sizeof lost, "%.1f", run.last_lost_s);
  std::string text = what + "; " + to_string(e) + " -> " + to_string(a);
  const bool restart = a == JobAction::RestartJob || a == JobAction::RestartTask || a == JobAction::RestartPod ||
                       (a == JobAction::ResumeJob && (before == VcPhase::Aborting || before == VcPhase::Aborted));
  if (restart && (before == VcPhase::Pending || before == VcPhase::Running || a == JobAction::ResumeJob))
    text += ", retry " + std::to_string(run.retries) + " of maxRetry " + std::to_string(lc.max_retry) +
            (run.vc == VcPhase::Failed ? " (retries exhausted: Failed)" : "");
  if (run.last_lost_s > 0 || restart)
    text += std::string("; lost ") + lost + " s of training" +
            (scenario_.checkpoint_interval.count_ns() > 0 ? " since the last checkpoint" : "");
  if (a == JobAction::SyncJob)
    text += " (no policy names this event: Volcano's default action; the Job stays " + std::string(to_string(run.vc)) + ")";
  else
    text += from_task ? " (the task's policy)" : " (the job's policy)";
  text += " [Volcano Job " + std::string(to_string(before)) + " -> " + to_string(run.vc) + "]";
  run.last_lost_s = 0;
  if (a != JobAction::SyncJob || run.last_event < 0) {
    run.last_event = static_cast<std::int8_t>(e);
    run.last_action = a;
  }
  rec_.decision({static_cast<std::uint32_t>(idx), sim_.now(), to_string(run.vc), "job-controller", text});
  check_job_phase(idx);
}

void TrainingCluster::check_job_phase(std::size_t idx) {
  // The status rules of the job's state, applied whenever its pods change (see the top).
  JobRun& run = runs_[idx];
  if (run.ended) return;
  const TrainingJobSpec& spec = scenario_.jobs[idx];
  const JobLifecycle& lc = lifecycle_of(idx);
  int waiting = 0, running = 0, releasing = 0, succeeded = 0, failed = 0;
  for (TaskId t : state_.job(run.pj).tasks) {
    switch (state_.task(t).status) {
      case TaskStatus::Running: ++running; break;
      case TaskStatus::Releasing: ++releasing; break;
      case TaskStatus::Succeeded: ++succeeded; break;
      case TaskStatus::Failed: ++failed; break;
      default: ++waiting; break;  // Pending, Pipelined, Allocated, Binding, Bound: pod phase Pending
    }
  }
  const int present = waiting + running + releasing + succeeded + failed;
  const int alive = waiting + running;
  const std::string via = std::string(run.last_event >= 0 ? to_string(static_cast<JobEvent>(run.last_event)) : "?") + " -> " +
                          to_string(run.last_action);
  switch (run.vc) {
    case VcPhase::Restarting:
      // restartingUpdateStatus: total - terminating >= minAvailable -> Pending (minAvailable is
      // the job's pod count here), once the killed pods are gone.
      if (releasing == 0) {
        ++stats_.restarts;
        set_job_phase(idx, VcPhase::Pending);
        outcomes_[idx].phase = "Pending";
      }
      break;
    case VcPhase::Aborting:
      // state/aborting.go: Aborted once no pod is pending, running or terminating.
      if (alive == 0 && releasing == 0) {
        set_job_phase(idx, VcPhase::Aborted);
        end_job(idx, "Aborted", via + ": the job's pods were deleted and nothing restarts it");
      }
      break;
    case VcPhase::Terminating:
      if (alive == 0 && releasing == 0) {
        set_job_phase(idx, VcPhase::Terminated);
        end_job(idx, "Terminated", via + ": the job's pods were deleted and nothing restarts it");
      }
      break;
    case VcPhase::Completing:
      if (alive == 0 && releasing == 0) {
        set_job_phase(idx, VcPhase::Completed);
        end_job(idx, "Completed", via + ": Completed before its training ended");
      }
      break;
    case VcPhase::Failed:
      if (alive == 0 && releasing == 0)
        end_job(idx, "Failed", via + ": retries exhausted (maxRetry " + std::to_string(lc.max_retry) + ")");
      break;
    case VcPhase::Running:
      // running.go SyncJob: every pod Succeeded or Failed with fewer than minAvailable
      // Succeeded -> Failed; more pods pending than replicas - minAvailable (0) -> Pending.
      if (present == spec.nnodes && succeeded + failed == spec.nnodes && succeeded < spec.nnodes) {
        set_job_phase(idx, VcPhase::Failed);
        end_job(idx, "Failed", "every pod ended and only " + std::to_string(succeeded) + " of " + std::to_string(spec.nnodes) +
                                   " Succeeded (Volcano's SyncJob status rule)");
        return;
      }
      if (waiting > 0 || present < spec.nnodes) set_job_phase(idx, VcPhase::Pending);
      break;
    case VcPhase::Pending:
      if (running + succeeded + failed >= spec.nnodes) set_job_phase(idx, VcPhase::Running);
      break;
    default:
      break;
  }
  if (run.ended) return;
  // Failed pods left in a Pending or Running Job: SyncJob never recreates them (finish() says so).
  run.stuck = failed > 0 && (run.vc == VcPhase::Pending || run.vc == VcPhase::Running);
  ensure_pods(idx);
}

void TrainingCluster::ensure_pods(std::size_t idx) {
  // syncJob (job_controller_actions.go) creates the missing pods of a Pending or Running Job
  // once its PodGroup is admitted (phase not Pending); a Failed pod is not missing.
  JobRun& run = runs_[idx];
  if (run.ended || (run.vc != VcPhase::Pending && run.vc != VcPhase::Running)) return;
  if (state_.job(run.pj).phase == PodGroupPhase::Pending) return;
  const TrainingJobSpec& j = scenario_.jobs[idx];
  std::vector<char> present(static_cast<std::size_t>(j.nnodes), 0);
  for (TaskId t : state_.job(run.pj).tasks) present[static_cast<std::size_t>(replica_of_task_[t])] = 1;
  bool created = false;
  for (int i = 0; i < j.nnodes; ++i)
    if (!present[static_cast<std::size_t>(i)]) {
      create_pod(idx, i);
      created = true;
    }
  if (created) {
    if (run.vc == VcPhase::Running) set_job_phase(idx, VcPhase::Pending);
    ensure_tick();
  }
}

void TrainingCluster::end_job(std::size_t idx, const std::string& phase, const std::string& reason) {
  JobRun& run = runs_[idx];
  if (run.peer_timer) {
    sim_.cancel(run.peer_event);
    run.peer_timer = false;
  }
  const auto tasks = state_.job(run.pj).tasks;  // the retained Succeeded and Failed pods
  for (TaskId t : tasks) state_.remove_task(t);
  run.end = sim_.now();
  run.ended = true;
  ++ended_;
  outcomes_[idx].end = run.end;
  outcomes_[idx].phase = phase;
  if (phase == "Failed") ++stats_.failed;
  else if (phase == "Aborted") ++stats_.aborted;
  else if (phase == "Terminated") ++stats_.terminated;
  else if (phase == "Completed") ++stats_.completed_early;
  write_final(idx, phase, reason);
  state_.remove_job(run.pj);
  ensure_tick();
}

}  // namespace mltwin::models
