// mltwin/models/training/scheduler_driver.hpp — volcano-scheduler in the training cluster: when
// its sessions run, and what they do to the cluster (the policy::Backend).
//
// volcano-scheduler runs a session every schedule period (scheduler.go runOnce, period from
// the scheduler config). mltwin runs the session of a period only when something changed since
// the last (a cycle with nothing new decides nothing new), but always at a period boundary and
// after every other event at that instant, so each session sees exactly what Volcano's cycle at
// that boundary would. The session calls back through policy::Backend:
//   * bind: the API server binds the pod (or refuses: lifecycle.bind_failure_probability); the
//     kubelet hears of it after bind_latency (PodLifecycle);
//   * evict: the pod is deleted with its termination grace period, and the job controller sees
//     PodEvicted after the cycle (JobController);
//   * a PodGroup's phase change and a job's condition are recorded; an Inqueue PodGroup gets its
//     pods (the job controller's syncJob).
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/training/training_state.hpp"
#include "mltwin/policy/scheduler.hpp"

namespace mltwin::models {

class PodLifecycle;
class JobController;

/// Watches the scheduler's sessions from outside the model (the runner's --snapshot-at, the
/// agreement test): the state as a session opens, and what the session decides. Observing
/// changes nothing in the run.
class SessionObserver {
 public:
  virtual ~SessionObserver() = default;
  /// A session is about to open on `state` (its time already set); `scheduler` is as it will
  /// run the session (its tie-break stream included). Return true to hear its decisions.
  virtual bool opening(const policy::ClusterState& state, const policy::Scheduler& scheduler) = 0;
  virtual void bound(const policy::TaskInfo& task, const policy::NodeInfo& node) = 0;
  /// `preemptor`: the task of eviction.preemptor, nullptr if none.
  virtual void evicted(const policy::TaskInfo& task, const policy::Eviction& eviction, const policy::TaskInfo* preemptor) = 0;
  virtual void phase_changed(const policy::JobInfo& job, policy::PodGroupPhase from, policy::PodGroupPhase to) = 0;
  /// The watched session has closed.
  virtual void closed(const policy::ClusterState& state) = 0;
};

class SchedulerDriver final : public policy::Backend {
 public:
  /// Builds the scheduler from sc.scheduler (its node tie-break seed from the stream
  /// "volcano.node_tiebreak"); binds draw "pod.bind_latency" and, with a bind failure
  /// probability, "api.bind_failure". All arguments must outlive the component.
  SchedulerDriver(TrainingState& state, core::RngStreams& rng, PodLifecycle& pods, JobController& controller);

  policy::Scheduler& scheduler() { return *scheduler_; }
  const policy::Scheduler& scheduler() const { return *scheduler_; }
  /// Something the scheduler reads changed now: the session at the next period boundary (this
  /// one if it has not run) will run. Also wakes the cluster autoscaler's scan.
  void ensure_tick();
  /// The kubelet reports a pod Bound or Running. Binding -> Bound -> Running changes nothing
  /// allocate, enqueue or backfill read, so by default it does not wake the scheduler; preempt
  /// and reclaim do read it (their victims are Bound or Running pods: preempt
  /// api.PreemptableStatus; reclaim.go "Ignore non running task"), so with either configured
  /// the change wakes the next cycle.
  void kubelet_status(policy::TaskId t, policy::TaskStatus status);
  /// Sessions are shown to `o` (nullptr: none), which must outlive its use.
  void set_session_observer(SessionObserver* o) { observer_ = o; }

  // policy::Backend
  policy::CallResult bind(const policy::TaskInfo& task, const policy::NodeInfo& node) override;
  policy::CallResult evict(const policy::TaskInfo& task, const policy::Eviction& eviction) override;
  /// The eviction's decision-row text (the PodEvicted request's): the victim, the preemptor's
  /// pod and job, both PodGroup priorities, the tier that chose it; counts a priority inversion.
  std::string eviction_text(const policy::TaskInfo& victim, const policy::Eviction& e);
  void podgroup_phase_changed(const policy::JobInfo& job, policy::PodGroupPhase from, policy::PodGroupPhase to) override;
  void job_condition(const policy::JobInfo& job, const policy::Status& status) override;

 private:
  void tick();
  void note_queue_ties();
  void flag_neuron_names(const policy::NodeInfo& node);
  void before() { s_.note_event(); }

  TrainingState& s_;
  PodLifecycle& pods_;
  JobController& controller_;
  std::unique_ptr<policy::Scheduler> scheduler_;
  core::Engine& bind_rng_;
  core::Engine* bind_failure_rng_ = nullptr;  // only with a bind failure probability
  bool status_wakes_scheduler_ = false;       // preempt or reclaim configured
  SessionObserver* observer_ = nullptr;
  bool watched_ = false;                      // the session running now is shown to observer_
  std::vector<policy::QueueId> placed_queues_;  // the queues of the jobs the running session placed
  std::vector<const policy::Session::QueueTie*> tie_of_loser_;  // note_queue_ties: per queue id, the tie it lost
  std::vector<QueueTieLoss*> tie_loss_of_job_;  // note_queue_ties: per policy JobId, its entry in queue_tie_losses (once it has one)
  std::vector<std::uint8_t> neuron_mixed_;    // per node id: its pods have mixed Neuron names (flagged once)
  bool tick_pending_ = false;
  bool in_tick_ = false;
  std::int64_t last_tick_ns_ = -1;
  core::Time tick_at_ = core::Time::max();
  core::EventId tick_id_;
  core::Event<&SchedulerDriver::tick, &SchedulerDriver::before> tick_event_{this};
};

}  // namespace mltwin::models
