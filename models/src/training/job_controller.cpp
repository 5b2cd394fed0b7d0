// JobController (mltwin/models/training/job_controller.hpp) — the Volcano job controller of the
// training cluster (Volcano v1.12.1): what happens to a job whose pod is evicted or fails, by
// the job's lifecycle policies.
//
// Volcano's job controller turns every pod event into a request (pkg/controllers/job/
// job_controller_handler.go: a pod being deleted raises PodEvicted, a pod whose phase becomes
// Failed raises PodFailed, a task whose pods all Succeeded raises TaskCompleted), picks an
// action for it (job_controller_util.go applyPolicies: the task's policies first, then the
// job's, else SyncJob) and lets the state of the Job execute it (pkg/controllers/job/state/
// *.go). mltwin reproduces the states and actions below; each function cites its file.
//
// What mltwin does not replay one by one: the echo requests of the controller's own deletions
// and status writes (killJob bumps status.version, so they are outdated and run SyncJob;
// killTarget does not, so they run the task's action again in Restarting, where it only
// re-evaluates the status) and the status updates each sync writes. Their net effect is
// check_job_phase() below, which applies the state's status rule whenever a pod of the job
// changes or its PodGroup is admitted.
//
// The PodGroup across a kill (job_controller_actions.go): killJob deletes it (:212-225) after
// bumping status.version (:108-110); Volcano's scheduler cache then keeps the job's pods but no
// PodGroup, and its snapshot leaves such a job out (pkg/scheduler/cache/cache.go:1407-1414),
// while the pods being deleted still hold their nodes. The echo of the kill (the Job's phase
// change, job_controller_handler.go:102-114; its pods' deletions, :228-230) comes at once: in
// a Restarting Job its syncJob creates a new PodGroup (initOnJobUpdate -> createOrUpdatePodGroup,
// :317-320, 724-778): no status (Pending to the scheduler, api/job_info.go IsPending), a new UID
// and creationTimestamp, which becomes the job's (api/job_info.go:399-404 SetPodGroup). So here:
// kill_pods takes the job out of the scheduler's view (ClusterState::unset_podgroup) and, when
// the request leaves the Job Restarting, recreate_podgroup gives it a new PodGroup at the same
// instant — Pending, created now, a new UID from TrainingState::uid_rng. The job passes enqueue
// again. Until it is admitted, syncJob creates no pod and does not recount the status
// (:346-383: no syncTask), so the Job stays Restarting unless killJob's terminating count was 0;
// once admitted, every sync recreates the pods whose predecessors are gone and the Job goes
// Pending when none is terminating (state/restarting.go). Aborting, Terminating, Completing and
// Failed Jobs get no PodGroup back: their killed pods drain out of the scheduler's view.
// A request older than status.version is outdated and runs SyncJob (job_controller_util.go:
// 199-203): pod requests carry the pod's job version (createJobPod's annotation), the
// PodGroup's Unknown carries 0 (job_controller_handler.go:467-478).
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
// For a torchrun gang TaskCompleted is never raised: its pods all succeed at the same instant
// (job_end), when the Job is Completed, and state/finished.go ignores every action then.
//
// A job of independent pods (TrainingJobSpec::tasks: no torchrun) has no gang to break: each
// pod runs its task's duration from Running and Succeeds (PodLifecycle::pod_done); a task whose
// pods all Succeeded raises TaskCompleted (job_controller_handler.go:279-283) and its policies
// apply (TaskCompleted -> CompleteJob: the launcher's end completes the job, KillJob deleting
// the other pods). RestartTask kills every pod of the request's task, RestartPod its pod
// (KillTarget, job_controller_actions.go). The status rules read spec.minAvailable and the
// tasks' minAvailable (state/pending.go, running.go, restarting.go). Unknown is raised when
// the scheduler sets the PodGroup phase Unknown (SchedulerDriver::podgroup_phase_changed).
// Not modelled: the c10d store lives in rank 0's pod, so the survivors of a rank-0 loss fail
// as soon as their agents next reach the store rather than at the timeout.
#include "mltwin/models/training/job_controller.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/models/training/pod_lifecycle.hpp"
#include "mltwin/models/training/scheduler_driver.hpp"
#include "mltwin/models/training/training_progress.hpp"

namespace mltwin::models {

using policy::PodGroupPhase;
using policy::TaskId;
using policy::TaskStatus;

const char* to_string(JobEvent e) {
  switch (e) {
    case JobEvent::PodEvicted: return "PodEvicted";
    case JobEvent::PodFailed: return "PodFailed";
    case JobEvent::TaskCompleted: return "TaskCompleted";
    case JobEvent::Unknown: return "Unknown";
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

JobAction JobLifecycle::action_for(JobEvent e, bool* from_task, const std::vector<LifecyclePolicy>* task) const {
  // applyPolicies (job_controller_util.go): the task's policies first ("Overwrite Job level
  // policies"), each matching the event or "*", then the job's; no match: SyncJob.
  for (const auto& p : task ? *task : task_policies)
    if (e != JobEvent::Unknown && p.matches(e)) {
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

bool JobController::raise(std::size_t idx, JobEvent e, int replica, std::int32_t version, std::string what) {
  JobRun& run = s_.runs[idx];
  run.events.push_back({e, replica, version, std::move(what)});
  if (run.controller_pending) return false;
  run.controller_pending = true;
  s_.sim.schedule(s_.sim.now(), &job_controller_event_, idx);
  return true;
}

void JobController::create_pod(std::size_t idx, int i) {
  // The Volcano job controller creates the pods once the PodGroup is Inqueue: one per TorchX
  // replica, each its own Volcano task "trainer-<i>" with replicas 1.
  JobRun& run = s_.runs[idx];
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  policy::TaskInfo t;
  if (j.independent_pods()) {
    // A Volcano task of several replicas: pod "<job>-<task>-<k>" (jobhelpers.MakePodName), its
    // task-spec the task's name.
    const std::size_t k = j.task_of_replica(i);
    int first = 0;
    for (std::size_t m = 0; m < k; ++m) first += j.tasks[m].replicas;
    t.name = j.name + "-" + j.tasks[k].name + "-" + std::to_string(i - first);
    t.index = i - first;
    t.role = j.tasks[k].name;
  } else {
    t.name = j.name + "-" + trainer_task_name(i) + "-0";  // no role: see TrainingCluster::arrive
    t.index = 0;
  }
  t.resreq = s_.pod_resreq(idx);
  t.priority = j.priority;
  t.creation = s_.sim.now().ns();
  t.uid = s_.uid_rng();
  t.node_selector = j.node_selector;
  t.node_affinity = j.node_affinity;
  t.tolerations = j.tolerations;
  // Conformance never evicts a critical pod (Kubernetes' system PriorityClasses).
  t.system_critical = j.priority_class == "system-cluster-critical" || j.priority_class == "system-node-critical";
  t.preempt_never = j.preempt_never;
  const TaskId id = s_.state.add_task(run.pj, t);
  if (s_.replica_of_task.size() <= id) s_.replica_of_task.resize(id + 1, 0);
  s_.replica_of_task[id] = i;
  if (s_.version_of_task.size() <= id) s_.version_of_task.resize(id + 1, 0);
  s_.version_of_task[id] = run.version;  // createJobPod: annotation volcano.sh/job-version
  if (s_.serial_of_task.size() <= id) s_.serial_of_task.resize(id + 1, 0);
  s_.serial_of_task[id] = ++s_.next_serial;
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), i, "Created", "", s_.sim.now()});
}

void JobController::all_pods_running(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  if (run.vc == VcPhase::Pending) run.vc = VcPhase::Running;  // state/pending.go: Running pods >= minAvailable
  if (!run.gang_broken) return;
  // torchrun: the survivors of a lost pod see the replacement join the rendezvous and restart
  // their workers; the job trains again from its checkpoint.
  cancel_peer_timer(idx);
  ++s_.stats.resumed_in_place;
  s_.rec.decision({static_cast<std::uint32_t>(idx), s_.sim.now(), "Running", "torchrun",
                   "the replacement pod joined the surviving workers' rendezvous: torchrun restarted the worker group "
                   "(a membership change, not a retry) and the job resumes from its last checkpoint"});
}

void JobController::pod_succeeded(std::size_t idx, TaskId t) {
  // updatePod (job_controller_handler.go:279-283): a pod turned Succeeded raises TaskCompleted
  // when its task's Succeeded pods reach the task's replicas (cache.go TaskCompleted).
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  const int replica = s_.replica_of_task[t];
  const JobTaskSpec& task = j.tasks[j.task_of_replica(replica)];
  int done = 0;
  for (TaskId u : s_.state.job(s_.runs[idx].pj).tasks)
    if (s_.state.task(u).status == TaskStatus::Succeeded && s_.state.task(u).role == task.name) ++done;
  if (done >= task.replicas)
    raise(idx, JobEvent::TaskCompleted, replica, version_of(t),
          "task " + task.name + " completed (its " + std::to_string(task.replicas) + " pod(s) Succeeded)");
  else
    check_job_phase(idx);
}

void JobController::training_completed(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  const auto tasks = s_.state.job(run.pj).tasks;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const policy::TaskInfo& task = s_.state.task(tasks[i]);
    const std::string node = s_.state.node(task.node).name;
    s_.account_allocation(-s_.neuroncores_of(task.resreq));
    s_.state.set_task_status(tasks[i], TaskStatus::Succeeded);
    s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[tasks[i]], "Succeeded", node, s_.sim.now()});
  }
  for (TaskId t : tasks) s_.node_occupancy_changed(s_.state.task(t).node);
  for (TaskId t : tasks) pods_.cancel_taint_timer(t);  // its pods leave the twin's books
  run.end = s_.sim.now();
  run.ended = true;
  ++s_.ended;
  s_.outcomes[idx].end = run.end;
  s_.outcomes[idx].phase = "Completed";
  run.vc = VcPhase::Completed;
  s_.rec.phase_change({static_cast<std::uint32_t>(idx), s_.sim.now(), run.last_phase, "Completed"});
  run.last_phase = "Completed";
  s_.write_final(idx, "Completed", "");
  s_.state.remove_job(run.pj);
  driver_.ensure_tick();
}

void JobController::recount(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  run.bound = run.running = 0;
  for (TaskId t : s_.state.job(run.pj).tasks) {
    const TaskStatus s = s_.state.task(t).status;
    if (s == TaskStatus::Running) ++run.running;
    if (s == TaskStatus::Running || s == TaskStatus::Bound) ++run.bound;
  }
}

double JobController::stop_training(std::size_t idx) {
  // The attempt in progress stops: a start-up phase is abandoned (a compilation in flight never
  // reaches the cache), training since the last checkpoint (or since the start) is lost.
  JobRun& run = s_.runs[idx];
  const TrainingJobSpec& spec = s_.sc.jobs[idx];
  if (spec.independent_pods()) return 0;  // no attempt: each pod runs on its own
  pods_.abort_startup(idx);
  const double lost_s = progress_.stop(idx);
  s_.outcomes[idx].lost_s += lost_s;
  if (run.attempt_placed != core::Time::max()) s_.outcomes[idx].startup_s += (s_.sim.now() - run.attempt_placed).seconds();
  run.attempt_placed = core::Time::max();
  s_.stats.lost_training_s += lost_s;
  s_.stats.lost_neuroncore_s += lost_s * s_.neuroncores_of(s_.pod_resreq(idx)) * spec.nnodes;
  return lost_s;
}

void JobController::gang_broken(std::size_t idx) {
  // A pod of the job was lost (see the file comment): training stops; the survivors, if any,
  // wait for their peer until the process group's timeout.
  JobRun& run = s_.runs[idx];
  run.last_lost_s += stop_training(idx);
  recount(idx);
  if (run.bound > 0) {
    run.gang_broken = true;
    if (!run.peer_timer) {
      run.peer_timer = true;
      run.peer_event = s_.sim.schedule_in(s_.sc.peer_failure_timeout, &peer_timeout_event_, idx);
    }
  } else {
    cancel_peer_timer(idx);
  }
}

void JobController::cancel_peer_timer(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  run.gang_broken = false;
  if (!run.peer_timer) return;
  s_.sim.cancel(run.peer_event);
  run.peer_timer = false;
}

void JobController::peer_timeout(std::size_t idx) {
  // The survivors' process group timed out: torchrun exits with an error, their pods Fail.
  JobRun& run = s_.runs[idx];
  run.peer_timer = false;
  if (run.ended) return;
  std::vector<TaskId> survivors;
  for (TaskId t : s_.state.job(run.pj).tasks) {
    const TaskStatus s = s_.state.task(t).status;
    // A pod on a failed node has no kubelet to report it Failed: it waits for PodGC.
    if ((s == TaskStatus::Running || s == TaskStatus::Bound) && !pods_.unreachable(s_.state.task(t).node)) survivors.push_back(t);
  }
  char secs[64];
  std::snprintf(secs, sizeof secs, "%.0f", s_.sc.peer_failure_timeout.seconds());
  fail_pods(idx, std::move(survivors), std::string("torchrun: its process group timed out after ") + secs + " s waiting for a lost peer");
  run.gang_broken = false;
  recount(idx);
  job_controller(idx);
}

void JobController::fail_pods(std::size_t idx, std::vector<TaskId> pods, const std::string& why) {
  // torchrun exits with an error: each pod is Failed (restartPolicy Never), holding nothing; the
  // job controller sees PodFailed for each, in task id order.
  JobRun& run = s_.runs[idx];
  std::sort(pods.begin(), pods.end());
  for (TaskId t : pods) {
    const policy::TaskInfo& task = s_.state.task(t);
    const policy::NodeId node = task.node;
    s_.account_allocation(-s_.neuroncores_of(task.resreq));
    s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Failed", s_.state.node(node).name, s_.sim.now()});
    s_.state.set_task_status(t, TaskStatus::Failed);
    s_.node_occupancy_changed(node);
    run.events.push_back({JobEvent::PodFailed, s_.replica_of_task[t], s_.version_of_task[t], "pod " + task.name + " failed (" + why + ")"});
  }
}

void JobController::collectives_failed(std::size_t idx, const std::string& why) {
  JobRun& run = s_.runs[idx];
  run.last_lost_s += stop_training(idx);
  s_.rec.decision({static_cast<std::uint32_t>(idx), s_.sim.now(), "Failed", "torchrun", why});
  std::vector<TaskId> running;
  for (TaskId t : s_.state.job(run.pj).tasks)
    if (s_.state.task(t).status == TaskStatus::Running) running.push_back(t);
  fail_pods(idx, std::move(running), why);
  recount(idx);
  job_controller(idx);
}

int JobController::kill_pods(std::size_t idx, bool soft, int only_replica, bool whole_task) {
  // killPods (pkg/controllers/job/job_controller_actions.go:90-227): every pod of the job
  // (KillJob) or of the target task (KillTarget) is deleted, except, with PodRetainPhaseSoft,
  // the Succeeded and Failed ones; pods being deleted already are left alone. status.terminating
  // counts the pods being deleted, these and those before (:117-121, :148-152). KillJob also
  // bumps status.version (:108-110), making every request of the pods it had outdated, and
  // deletes the PodGroup (:212-225): the job leaves the scheduler's view while its killed pods
  // still hold their nodes (ClusterState::unset_podgroup). The next sync of a Restarting Job
  // creates a new one (controller_event).
  JobRun& run = s_.runs[idx];
  const auto tasks = s_.state.job(run.pj).tasks;  // copy: pods leave the list
  bool lost_on_node = false;
  int deleted = 0, terminating = 0;
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  const std::size_t target_task = whole_task ? j.task_of_replica(only_replica) : 0;
  for (TaskId t : tasks) {
    if (only_replica >= 0 && !(whole_task ? j.task_of_replica(s_.replica_of_task[t]) == target_task
                                          : s_.replica_of_task[t] == only_replica))
      continue;
    const TaskStatus s = s_.state.task(t).status;
    if (s == TaskStatus::Releasing) {  // being deleted already
      ++terminating;
      continue;
    }
    if (soft && (s == TaskStatus::Succeeded || s == TaskStatus::Failed)) continue;
    if (s == TaskStatus::Running || s == TaskStatus::Bound || s == TaskStatus::Binding) lost_on_node = true;
    pods_.delete_pod(idx, t);
    ++deleted;
    ++terminating;
  }
  run.status = JobRun::StatusCounts{};
  run.status.terminating = terminating;
  if (only_replica < 0) {
    ++run.version;
    s_.state.unset_podgroup(run.pj);
    driver_.ensure_tick();
  }
  if (lost_on_node) run.last_lost_s += stop_training(idx);
  recount(idx);
  if (run.bound == 0) cancel_peer_timer(idx);  // no survivor left to time out
  return deleted;
}

void JobController::recreate_podgroup(std::size_t idx) {
  // syncJob of a Restarting Job without PodGroup (the echo of its killJob: the Job's phase
  // change and its pods' deletions are requests at once, job_controller_handler.go:102-114,
  // 228-230): initOnJobUpdate -> createOrUpdatePodGroup creates a new PodGroup
  // (job_controller_actions.go:317-320, 724-778): phase Pending, a new UID and creation
  // timestamp, which the scheduler takes for the job's (api/job_info.go:399-404 SetPodGroup):
  // the job passes enqueue again, ordered as created now. Volcano's cache gives the new
  // PodGroup the job's pods still being deleted.
  JobRun& run = s_.runs[idx];
  const policy::JobInfo& old = s_.state.job(run.pj);
  if (!old.podgroup_unset) return;
  policy::JobInfo pg;
  pg.name = old.name;
  pg.queue = old.queue;
  pg.min_available = old.min_available;
  pg.min_task_member = old.min_task_member;
  pg.priority = old.priority;
  pg.sla_waiting_time = old.sla_waiting_time;
  pg.has_min_resources = old.has_min_resources;
  pg.min_resources = old.min_resources;
  pg.creation = s_.sim.now().ns();
  pg.uid = s_.uid_rng();
  pg.phase = PodGroupPhase::Pending;
  s_.state.set_podgroup(run.pj, pg);
  run.readmit_from = s_.sim.now();
  if (run.last_phase != "Pending")
    s_.rec.phase_change({static_cast<std::uint32_t>(idx), s_.sim.now(), run.last_phase, "Pending"});
  run.last_phase = "Pending";
  driver_.ensure_tick();
}

void JobController::job_controller(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  run.controller_pending = false;
  const std::vector<JobRun::PendingEvent> events = std::move(run.events);
  run.events.clear();
  for (const auto& e : events) {
    if (run.ended) break;
    controller_event(idx, e.event, e.replica, e.version, e.what);
  }
  driver_.ensure_tick();
}

void JobController::controller_event(std::size_t idx, JobEvent e, int replica, std::int32_t version, const std::string& what) {
  JobRun& run = s_.runs[idx];
  const JobLifecycle& lc = s_.lifecycle_of(idx);
  // A pod lost while the gang held together breaks torchrun's process group.
  if (e == JobEvent::PodEvicted || e == JobEvent::PodFailed) {
    if (s_.sc.jobs[idx].independent_pods()) recount(idx);
    else gang_broken(idx);
  }
  // KillTarget's target: a task of several pods (independent pods) for RestartTask.
  const bool whole_task = s_.sc.jobs[idx].independent_pods();
  bool from_task = false;
  // applyPolicies (job_controller_util.go:199-203): a request older than the Job's version (it
  // came from a pod of before the last killJob, or from the PodGroup, whose requests carry
  // version 0) is outdated: SyncJob, whatever the policies say.
  const bool outdated = version < run.version;
  const TrainingJobSpec& spec = s_.sc.jobs[idx];
  const std::vector<LifecyclePolicy>* task_policies = nullptr;  // the request's task's own
  if (spec.independent_pods() && replica >= 0) task_policies = spec.tasks[spec.task_of_replica(replica)].policies.get();
  const JobAction a = outdated ? JobAction::SyncJob : lc.action_for(e, &from_task, task_policies);
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
        case JobAction::RestartPod:  // a torchrun gang: one pod per task, the task's pod
          // A request for no task (Unknown) has an empty target: killTarget kills nothing
          // (job_controller_actions.go:101-106), the state still moves (state/running.go).
          if (replica >= 0) killed += kill_pods(idx, false, replica, whole_task && a == JobAction::RestartTask);
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
      if (a == JobAction::RestartTask || a == JobAction::RestartPod) {
        if (replica >= 0) killed += kill_pods(idx, false, replica, whole_task && a == JobAction::RestartTask);
      }
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
  // The same echo, in a Restarting Job that killJob left without PodGroup, creates a new one.
  if (run.vc == VcPhase::Restarting) recreate_podgroup(idx);
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
            (s_.sc.checkpoint_interval.count_ns() > 0 ? " since the last checkpoint" : "");
  if (outdated)
    text += " (an outdated request: job version " + std::to_string(version) + ", the Job's is " + std::to_string(run.version) +
            " since its last kill, so SyncJob whatever the policies say; the Job stays " + std::string(to_string(run.vc)) + ")";
  else if (a == JobAction::SyncJob)
    text += " (no policy names this event: Volcano's default action; the Job stays " + std::string(to_string(run.vc)) + ")";
  else
    text += from_task ? " (the task's policy)" : " (the job's policy)";
  text += " [Volcano Job " + std::string(to_string(before)) + " -> " + to_string(run.vc) + "]";
  run.last_lost_s = 0;
  if (a != JobAction::SyncJob || run.last_event < 0) {
    run.last_event = static_cast<std::int8_t>(e);
    run.last_action = a;
  }
  s_.rec.decision({static_cast<std::uint32_t>(idx), s_.sim.now(), to_string(run.vc), "job-controller", text});
  check_job_phase(idx);
}

JobRun::StatusCounts JobController::pod_counts(std::size_t idx) const {
  // The pods by phase, as syncJob and killJob classify them (classifyAndAddUpPodBaseOnPhase):
  // a pod being deleted is terminating; Pending, Pipelined, Allocated, Binding, Bound are pod
  // phase Pending. A pod that does not exist is not counted.
  JobRun::StatusCounts c;
  for (TaskId t : s_.state.job(s_.runs[idx].pj).tasks) {
    switch (s_.state.task(t).status) {
      case TaskStatus::Running: ++c.running; break;
      case TaskStatus::Releasing: ++c.terminating; break;
      case TaskStatus::Succeeded: ++c.succeeded; break;
      case TaskStatus::Failed: ++c.failed; break;
      default: ++c.pending; break;
    }
  }
  return c;
}

void JobController::check_job_phase(std::size_t idx) {
  // The status rules of the job's state, applied whenever its pods change (see the top).
  JobRun& run = s_.runs[idx];
  if (run.ended) return;
  const TrainingJobSpec& spec = s_.sc.jobs[idx];
  const JobLifecycle& lc = s_.lifecycle_of(idx);
  const JobRun::StatusCounts pods = pod_counts(idx);
  const int waiting = pods.pending, running = pods.running, releasing = pods.terminating, succeeded = pods.succeeded,
            failed = pods.failed;
  const int present = waiting + running + releasing + succeeded + failed;
  const int alive = waiting + running;
  const std::string via = std::string(run.last_event >= 0 ? to_string(static_cast<JobEvent>(run.last_event)) : "?") + " -> " +
                          to_string(run.last_action);
  switch (run.vc) {
    case VcPhase::Restarting: {
      // restartingUpdateStatus: total - terminating >= minAvailable -> Pending (for a torchrun
      // gang minAvailable is the job's pod count: no pod terminating). syncJob counts the pods still terminating only once the new
      // PodGroup is admitted (not Pending: syncTask, job_controller_actions.go:346-356), after
      // creating the missing pods (a pod's name is free once it is gone); before, it passes the
      // status as killJob wrote it (:359-383), whose terminating counts the pods it killed.
      if (podgroup_admitted(idx)) {
        ensure_pods(idx);
        if (run.ended) return;
        run.status = pods;
        run.status.pending += spec.nnodes - present;  // the pods ensure_pods created
      }
      if (spec.nnodes - run.status.terminating >= spec.min_member()) {
        ++s_.stats.restarts;
        set_job_phase(idx, VcPhase::Pending);
        s_.outcomes[idx].phase = "Pending";
      }
      break;
    }
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
        ++s_.stats.completed_early;
        end_job(idx, "Completed", via + (spec.independent_pods() ? ": Completed; its pods still running were deleted"
                                                                   : ": Completed before its training ended"));
      }
      break;
    case VcPhase::Failed:
      if (alive == 0 && releasing == 0)
        end_job(idx, "Failed", via + ": retries exhausted (maxRetry " + std::to_string(lc.max_retry) + ")");
      break;
    case VcPhase::Running: {
      // running.go:78-108 SyncJob (minSuccess is refused by the loader): once every pod
      // Succeeded or Failed, Failed if spec.minAvailable >= the tasks' minAvailable summed and
      // some task has fewer Succeeded pods than its minAvailable (the webhook's default:
      // replicas; a torchrun gang's task is one pod), else Completed when Succeeded >=
      // minAvailable, else Failed; more pods pending than replicas - minAvailable -> Pending.
      // (A torchrun gang's pods succeed together when its training ends, where
      // training_completed() makes it Completed at once.) The counts are the pods' once the
      // PodGroup is admitted (syncJob creates the missing ones, Pending), else the status last
      // written.
      const JobRun::StatusCounts& c = sync_status(idx, pods, present);
      if (c.succeeded + c.failed == spec.nnodes) {
        std::string short_task;  // a task with fewer Succeeded pods than its minAvailable
        if (spec.min_member() >= spec.task_min_total()) {
          if (spec.independent_pods()) {
            for (const JobTaskSpec& task : spec.tasks) {
              int ok = 0;
              for (TaskId t : s_.state.job(run.pj).tasks)
                ok += s_.state.task(t).role == task.name && s_.state.task(t).status == TaskStatus::Succeeded;
              if (ok < task.min_member()) {
                short_task = "task " + task.name + ": " + std::to_string(ok) + " pod(s) Succeeded, below its minAvailable " +
                             std::to_string(task.min_member());
                break;
              }
            }
          } else if (c.succeeded < spec.nnodes) {
            short_task = "a trainer task's pod did not Succeed";
          }
        }
        if (!short_task.empty() || c.succeeded < spec.min_member()) {
          set_job_phase(idx, VcPhase::Failed);
          const std::string why = !spec.independent_pods() ? std::string()
                                  : short_task.empty()       ? ", below minAvailable " + std::to_string(spec.min_member())
                                                             : " (" + short_task + ")";
          end_job(idx, "Failed", "every pod ended and only " + std::to_string(c.succeeded) + " of " + std::to_string(spec.nnodes) +
                                     " Succeeded" + why + " (Volcano's SyncJob status rule)");
        } else {
          set_job_phase(idx, VcPhase::Completed);
          end_job(idx, "Completed", c.succeeded == spec.nnodes ? "every pod Succeeded (Volcano's SyncJob status rule)"
                                                               : std::to_string(c.succeeded) + " of " + std::to_string(spec.nnodes) +
                                                                     " pods Succeeded, at least minAvailable " +
                                                                     std::to_string(spec.min_member()) + " (Volcano's SyncJob status rule)");
        }
        return;
      }
      if (c.pending > spec.nnodes - spec.min_member()) set_job_phase(idx, VcPhase::Pending);
      break;
    }
    case VcPhase::Pending: {
      // pending.go SyncJob: Running + Succeeded + Failed >= minAvailable -> Running.
      const JobRun::StatusCounts& c = sync_status(idx, pods, present);
      if (c.running + c.succeeded + c.failed >= spec.min_member()) set_job_phase(idx, VcPhase::Running);
      break;
    }
    default:
      break;
  }
  if (run.ended) return;
  // Failed pods left in a Pending or Running Job: SyncJob never recreates them (finish() says so).
  run.stuck = failed > 0 && (run.vc == VcPhase::Pending || run.vc == VcPhase::Running);
  ensure_pods(idx);
}

bool JobController::podgroup_admitted(std::size_t idx) const {
  // syncJob's syncTask (job_controller_actions.go:346-356): the PodGroup exists and its phase is
  // set and not Pending.
  const policy::JobInfo& pg = s_.state.job(s_.runs[idx].pj);
  return pg.live && pg.phase != PodGroupPhase::Pending;
}

const JobRun::StatusCounts& JobController::sync_status(std::size_t idx, const JobRun::StatusCounts& pods, int present) {
  JobRun& run = s_.runs[idx];
  if (podgroup_admitted(idx)) {
    run.status = pods;
    run.status.pending += s_.sc.jobs[idx].nnodes - present;  // the missing pods syncJob creates
  }
  return run.status;
}

void JobController::ensure_pods(std::size_t idx) {
  // syncJob (job_controller_actions.go) creates the missing pods of a Pending or Running Job
  // once its PodGroup is admitted (phase not Pending); a Failed pod is not missing.
  JobRun& run = s_.runs[idx];
  if (run.ended || (run.vc != VcPhase::Pending && run.vc != VcPhase::Running && run.vc != VcPhase::Restarting)) return;
  if (!s_.state.job(run.pj).live || s_.state.job(run.pj).phase == PodGroupPhase::Pending) return;
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  std::vector<char> present(static_cast<std::size_t>(j.nnodes), 0);
  for (TaskId t : s_.state.job(run.pj).tasks) present[static_cast<std::size_t>(s_.replica_of_task[t])] = 1;
  bool created = false;
  for (int i = 0; i < j.nnodes; ++i)
    if (!present[static_cast<std::size_t>(i)]) {
      create_pod(idx, i);
      created = true;
    }
  if (created) {
    if (run.vc == VcPhase::Running) set_job_phase(idx, VcPhase::Pending);
    driver_.ensure_tick();
  }
}

void JobController::end_job(std::size_t idx, const std::string& phase, const std::string& reason) {
  JobRun& run = s_.runs[idx];
  if (run.peer_timer) {
    s_.sim.cancel(run.peer_event);
    run.peer_timer = false;
  }
  const auto tasks = s_.state.job(run.pj).tasks;  // the retained Succeeded and Failed pods
  for (TaskId t : tasks) pods_.remove_pod(t);
  run.end = s_.sim.now();
  run.ended = true;
  ++s_.ended;
  s_.outcomes[idx].end = run.end;
  s_.outcomes[idx].phase = phase;
  if (phase == "Failed") ++s_.stats.failed;
  else if (phase == "Aborted") ++s_.stats.aborted;
  else if (phase == "Terminated") ++s_.stats.terminated;
  s_.write_final(idx, phase, reason);
  s_.state.remove_job(run.pj);
  driver_.ensure_tick();
}

}  // namespace mltwin::models
