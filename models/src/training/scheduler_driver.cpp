// SchedulerDriver: see mltwin/models/training/scheduler_driver.hpp.
#include "mltwin/models/training/scheduler_driver.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "mltwin/models/node_lifecycle.hpp"
#include "mltwin/models/training/job_controller.hpp"
#include "mltwin/models/training/pod_lifecycle.hpp"

namespace mltwin::models {

using policy::TaskId;
using policy::TaskStatus;

SchedulerDriver::SchedulerDriver(TrainingState& state, core::RngStreams& rng, PodLifecycle& pods, JobController& controller)
    : s_(state), pods_(pods), controller_(controller),
      scheduler_(std::make_unique<policy::Scheduler>(state.sc.scheduler, rng.stream("volcano.node_tiebreak")())),
      bind_rng_(rng.stream("pod.bind_latency")) {
  for (const auto& a : s_.sc.scheduler.actions) status_wakes_scheduler_ = status_wakes_scheduler_ || a == "preempt" || a == "reclaim";
  if (s_.sc.bind_failure_probability > 0) bind_failure_rng_ = &rng.stream("api.bind_failure");
}

void SchedulerDriver::ensure_tick() {
  // The scheduler cycle at boundary t sees every change made at or before t: a change at t
  // wakes the cycle at t itself (the tick yields to other events at t, see tick()), a change
  // between boundaries the next one. Changes made by a cycle's own session wake the next.
  if (s_.sc.autoscaler) s_.nodes->ensure_scan();  // the autoscaler looks at every change
  if (in_tick_) return;
  const std::int64_t p = s_.sc.scheduler.schedule_period_ns;
  const std::int64_t now = s_.sim.now().ns();
  std::int64_t t = (now + p - 1) / p * p;
  if (t == last_tick_ns_) t += p;  // that boundary's cycle already ran
  if (tick_pending_) {
    // The pending tick may lie ahead at a plugin's wake-up (sla's next deadline): a change now
    // needs the cycle at t. (tick() re-arms the wake-up if it is still to come.)
    if (tick_at_.ns() > t) {
      tick_at_ = core::Time::from_ns(t);
      s_.sim.reschedule(tick_id_, tick_at_);
    }
    return;
  }
  tick_at_ = core::Time::from_ns(t);
  tick_id_ = s_.sim.schedule(tick_at_, &tick_event_, 0);
  tick_pending_ = true;
}

void SchedulerDriver::tick() {
  // Let every other event at this instant happen first, whatever order it was scheduled in.
  if (s_.sim.next_time() == s_.sim.now()) {
    tick_id_ = s_.sim.schedule(s_.sim.now(), &tick_event_, 0);
    return;
  }
  tick_pending_ = false;
  in_tick_ = true;
  last_tick_ns_ = s_.sim.now().ns();
  s_.state.set_now(s_.sim.now().ns());
  // A session runs exactly when needs_cycle says so (Scheduler::run_once).
  watched_ = observer_ && scheduler_->needs_cycle(s_.state) && observer_->opening(s_.state, *scheduler_);
  scheduler_->run_once(s_.state, *this);
  note_queue_ties();
  if (watched_) observer_->closed(s_.state);
  watched_ = false;
  in_tick_ = false;
  const std::int64_t p = s_.sc.scheduler.schedule_period_ns;
  if (scheduler_->needs_cycle(s_.state)) {
    tick_at_ = s_.sim.now() + core::Duration::ns(p);
    tick_id_ = s_.sim.schedule(tick_at_, &tick_event_, 0);
    tick_pending_ = true;
  } else if (scheduler_->next_wakeup() != INT64_MAX) {
    const std::int64_t w = std::max(scheduler_->next_wakeup(), s_.sim.now().ns() + 1);
    tick_at_ = core::Time::from_ns((w + p - 1) / p * p);
    tick_id_ = s_.sim.schedule(tick_at_, &tick_event_, 0);
    tick_pending_ = true;
  }
}

void SchedulerDriver::note_queue_ties() {
  // A job of queue w was placed in this session, whose queue order put w before l by the
  // QueueOrderFn fallback (Session::QueueTie): every job of l still waiting after it lost that
  // tie (to the first such w). Only sessions with both a tie and a placement look at the jobs,
  // once.
  const auto& ties = scheduler_->last_queue_ties();
  bool any = false;
  if (!ties.empty() && !placed_queues_.empty()) {
    tie_of_loser_.assign(s_.state.queues().size(), nullptr);
    for (const policy::Session::QueueTie& t : ties)
      if (t.second < tie_of_loser_.size() && !tie_of_loser_[t.second] &&
          std::find(placed_queues_.begin(), placed_queues_.end(), t.first) != placed_queues_.end())
        tie_of_loser_[t.second] = &t, any = true;
  }
  placed_queues_.clear();
  if (!any) return;
  // The walk reads each job's queue from the compact queue_of_policy and keeps a pointer to
  // each loser's entry (std::map entries stay put): on a fleet of many tied queues (the scale
  // benchmark's k copies of one trace) most sessions with a placement come here, and opening
  // every waiting JobInfo and finding its map entry cost a quarter of the run at k = 5.
  const auto& queue_of = s_.queue_of_policy;
  if (tie_loss_of_job_.size() < queue_of.size()) tie_loss_of_job_.resize(queue_of.size(), nullptr);
  const auto lost = [&](policy::JobId jid, const policy::Session::QueueTie& t) {
    QueueTieLoss*& loss = tie_loss_of_job_[jid];
    if (!loss) {
      loss = &s_.queue_tie_losses[s_.job_of_policy[jid]];
      loss->winner = s_.state.queue(t.first).name;
      loss->by_uid = t.by_uid;
    }
    ++loss->sessions;
  };
  const auto tie_of = [&](policy::JobId jid) -> const policy::Session::QueueTie* {
    const policy::QueueId q = queue_of[jid];
    return q < tie_of_loser_.size() ? tie_of_loser_[q] : nullptr;
  };
  // A job is waiting when its PodGroup is Pending (every job of pending_jobs(): that list is
  // exactly the Pending PodGroups) or when it is not ready and has pending pods.
  for (const policy::JobId jid : s_.state.pending_jobs())
    if (const auto* t = tie_of(jid)) lost(jid, *t);
  for (const policy::JobId jid : s_.state.active_jobs())
    if (const auto* t = tie_of(jid)) {
      const policy::JobInfo& j = s_.state.job(jid);
      if (!j.is_ready() && j.count(TaskStatus::Pending) > 0) lost(jid, *t);
    }
}

void SchedulerDriver::kubelet_status(TaskId t, TaskStatus status) {
  if (status_wakes_scheduler_) {
    s_.state.set_task_status(t, status, s_.state.task(t).node);
    ensure_tick();
  } else {
    s_.state.set_task_status_within_allocated(t, status);
  }
}

policy::CallResult SchedulerDriver::bind(const policy::TaskInfo& task, const policy::NodeInfo& node) {
  if (watched_) observer_->bound(task, node);
  if (s_.sc.bind_failure_probability > 0 && bind_failure_rng_ &&
      std::uniform_real_distribution<double>(0.0, 1.0)(*bind_failure_rng_) < s_.sc.bind_failure_probability) {
    // The API server refuses the binding (lifecycle.bind_failure_probability): the pod stays
    // unbound; the scheduler returns it to Pending when its session closes.
    const std::size_t idx = s_.job_of_policy[task.job];
    ++s_.stats.bind_failures;
    s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[task.id], "BindFailed", node.name, s_.sim.now()});
    return policy::CallResult::failure("simulated API server error (lifecycle.bind_failure_probability)");
  }
  s_.account_allocation(s_.neuroncores_of(task.resreq));
  flag_neuron_names(node);
  s_.node_occupancy_changed(node.id);
  JobRun& run = s_.runs[s_.job_of_policy[task.job]];
  if (run.attempt_placed == core::Time::max()) {
    run.attempt_placed = s_.sim.now();
    placed_queues_.push_back(s_.state.job(task.job).queue);
  }
  ++s_.stats.binds;
  pods_.bound_after(s_.sc.bind_latency.draw(bind_rng_), task.id);
  return policy::CallResult::success();
}

std::string SchedulerDriver::eviction_text(const policy::TaskInfo& victim, const policy::Eviction& e) {
  // "pod P evicted (preempt)" as before, then whom for and what chose it: the preemptor's job
  // and both PodGroup priorities (what the priority plugin compares, priority.go
  // preemptableFn), and the tier whose plugins chose the victim (Session.Preemptable /
  // Reclaimable: the first tier that leaves a non-empty set).
  std::string text = "pod " + victim.name + " evicted (" + std::string(e.reason) + ")";
  if (e.preemptor == policy::kNone) return text;
  const policy::TaskInfo& p = s_.state.task(e.preemptor);
  const int mine = s_.state.job(victim.job).priority, theirs = s_.state.job(p.job).priority;
  const bool inversion = theirs < mine;
  text += " for pod " + p.name + " of job " + s_.sc.jobs[s_.job_of_policy[p.job]].name + ", priority " +
          std::to_string(theirs) + " (this job's: " + std::to_string(mine) + (inversion ? ", a priority inversion)" : ")");
  const std::string chosen = e.tier < 0 ? std::string() : "tier " + std::to_string(e.tier + 1) + " (" + std::string(e.plugins) + ")";
  if (!chosen.empty()) text += "; victims chosen by " + chosen;
  if (inversion) {
    ++s_.stats.priority_inversions[std::string(e.reason) + (chosen.empty() ? "" : ": " + chosen)];
    if (s_.stats.priority_inversion_example.empty()) s_.stats.priority_inversion_example = text;
  }
  return text;
}

policy::CallResult SchedulerDriver::evict(const policy::TaskInfo& task, const policy::Eviction& e) {
  const std::string_view reason = e.reason;
  if (watched_) observer_->evicted(task, e, e.preemptor == policy::kNone ? nullptr : &s_.state.task(e.preemptor));
  // Called while the scheduler commits (the task is Releasing in the state already). The pod
  // is being deleted: it holds its resources for the termination grace period. The job
  // controller reacts to the PodEvicted event after the scheduling cycle.
  const std::size_t idx = s_.job_of_policy[task.job];
  ++s_.stats.evictions;
  const int replica = s_.replica_of_task[task.id];
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), replica, "Evicted", s_.state.node(task.node).name, s_.sim.now()});
  pods_.gone_after(s_.termination_grace(), task.id);
  if (controller_.raise(idx, JobEvent::PodEvicted, replica, controller_.version_of(task.id), eviction_text(task, e)) &&
      reason == "reclaim")
    ++s_.outcomes[idx].reclaim_evictions;
  return policy::CallResult::success();
}

void SchedulerDriver::podgroup_phase_changed(const policy::JobInfo& job, policy::PodGroupPhase from, policy::PodGroupPhase to) {
  if (watched_) observer_->phase_changed(job, from, to);
  const std::size_t idx = s_.job_of_policy[job.id];
  JobRun& run = s_.runs[idx];
  s_.rec.phase_change({static_cast<std::uint32_t>(idx), s_.sim.now(), policy::to_string(from), policy::to_string(to)});
  run.last_phase = policy::to_string(to);
  if (to == policy::PodGroupPhase::Inqueue) {
    if (run.inqueue == core::Time::max()) run.inqueue = s_.sim.now();
    if (run.readmit_from != core::Time::max()) {
      s_.stats.readmission_wait_s.push_back((s_.sim.now() - run.readmit_from).seconds());
      run.readmit_from = core::Time::max();
    }
  }
  if (to == policy::PodGroupPhase::Unknown) {
    // job_controller_handler.go:466-476 updatePodGroup: phase Unknown -> JobUnknownEvent.
    // The request carries no JobVersion (0): outdated once a killJob has bumped the Job's.
    controller_.raise(idx, JobEvent::Unknown, -1, 0,
                      "PodGroup Unknown: a pod runs but the scheduler found the gang unschedulable");
  } else {
    // Any other change of the PodGroup's phase is a request for its Job without an event
    // (job_controller_handler.go:467-479 updatePodGroup), hence SyncJob: syncJob creates the
    // missing pods of an admitted PodGroup (one Inqueue, or one the scheduler set Running or
    // Completed in the session that admitted it: a PodGroup of minMember 0 is Completed with
    // nothing allocated, session.go jobStatus), and a Restarting Job counts its pods still
    // terminating again (restartingUpdateStatus).
    if (run.vc == VcPhase::Restarting) controller_.check_job_phase(idx);
    else controller_.ensure_pods(idx);
  }
}

void SchedulerDriver::job_condition(const policy::JobInfo& job, const policy::Status& s) {
  const std::size_t idx = s_.job_of_policy[job.id];
  s_.rec.decision({static_cast<std::uint32_t>(idx), s_.sim.now(), policy::to_string(s.code), s.plugin, s.reason});
}

void SchedulerDriver::flag_neuron_names(const policy::NodeInfo& node) {
  // What the node's pods hold (node.used, the binding pod included) names two of the three
  // Neuron resources: faithful to Kubernetes and Volcano, which count them independently, the
  // run goes on; the summary says so with the remedy (docs/resources.md).
  if (neuron_mixed_.size() <= node.id) neuron_mixed_.resize(node.id + 1, 0);
  if (neuron_mixed_[node.id] || !policy::neuron_names_mixed(node.used)) return;
  neuron_mixed_[node.id] = 1;
  std::string names;
  for (policy::ResourceName n : {policy::rn::kNeuron, policy::rn::kNeuronDevice, policy::rn::kNeuronCore})
    if (node.used.scalars.get(n) > 0) names += (names.empty() ? "" : " and ") + std::string(n.str());
  if (++s_.stats.neuron_name_mixes == 1) s_.stats.neuron_name_mix_example = node.name + ": " + names;
  const std::string group = s_.nodes ? s_.sc.node_groups[s_.nodes->rec(node.id).group].name : std::string();
  s_.rec.node_event({s_.sim.now(), node.name, group, "NeuronNamesMixed",
                     "pods on the node request " + names + ", which Kubernetes counts independently"});
}

}  // namespace mltwin::models
