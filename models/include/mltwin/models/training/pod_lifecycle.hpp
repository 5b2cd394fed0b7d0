// mltwin/models/training/pod_lifecycle.hpp — the kubelet's part of a training pod's life: from
// bound to Running, the job's start-up once its last pod runs, and a pod's end (graceful
// deletion, drain, its node's failure).
//
//   bind ──bind_latency──► Bound ──image pull (startup.hpp) + pod_startup──► Running
//   last pod Running ──► rendezvous + Neuron compilation (or the compile cache) + dataset read
//                        (with a start-up block) ──► training (TrainingProgress)
//   delete ──termination grace──► gone (resources free); node failure: Failed at once
//   bound on a node with a NoExecute taint tolerated for tolerationSeconds ──that long──►
//   deleted by the taint manager (PodEvicted)
//
// Pod events that matter to the Volcano job controller (PodEvicted, PodFailed) are raised to it
// (JobController::raise); a pod gone makes it re-check the Job's status.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/startup.hpp"
#include "mltwin/models/training/training_state.hpp"

namespace mltwin::models {

class SchedulerDriver;
class JobController;
class TrainingProgress;

class PodLifecycle {
 public:
  /// Start-ups draw "pod.startup_latency". All arguments must outlive the component.
  PodLifecycle(TrainingState& state, core::RngStreams& rng, SchedulerDriver& driver, JobController& controller,
               TrainingProgress& progress);
  ~PodLifecycle();

  /// The API server bound pod `t` now: the kubelet hears of it after `latency`, the taint
  /// manager at once (watch_taints).
  void bound_after(Duration latency, policy::TaskId t);
  /// The taint manager sees pod `t` on its node now (bound now, or on its node when the run
  /// starts): with the node's NoExecute taints tolerated for tolerationSeconds, it deletes the
  /// pod that long from now (pkg/controller/tainteviction/taint_eviction.go handlePodUpdate,
  /// processPodOnNode); the job controller sees PodEvicted.
  void watch_taints(policy::TaskId t);
  /// Pod `t` is deleted for good (removed from the cluster state): the taint manager cancels
  /// its scheduled deletion (handlePodUpdate: NotFound). Then removes it (ClusterState::remove_task).
  void remove_pod(policy::TaskId t);
  /// Cancels pod `t`'s scheduled taint deletion, if any (its job has ended: its pods are gone
  /// from the twin's books).
  void cancel_taint_timer(policy::TaskId t);
  /// Pod `t` is being deleted (Releasing): it is gone after `grace`.
  void gone_after(Duration grace, policy::TaskId t) { s_.sim.schedule_in(grace, &pod_gone_event_, t); }
  /// The job controller deletes pod `t` of job `idx`: at once if it is not on a node, else
  /// Killed and gone after its termination grace period.
  void delete_pod(std::size_t idx, policy::TaskId t);
  /// A node drain (Spot interruption notice) evicts pod `t` through the Eviction API, its grace
  /// period cut short at `longest_grace`; the job controller sees PodEvicted.
  void drain_pod(policy::TaskId t, Duration longest_grace);
  /// Spot node `n` was terminated: its pods are Failed with it; the job controller sees PodFailed.
  void pods_failed_on_node(policy::NodeId n);
  /// Node `n`'s instance failed (NodeHost::node_unreachable): the jobs with a pod there stop
  /// training and their other workers wait for the lost peer (JobController::peer_lost).
  void node_unreachable(policy::NodeId n);
  /// When the taint manager would delete each pod of node `n` after it is tainted
  /// node.kubernetes.io/unreachable:NoExecute (NodeHost::taint_eviction_delays): the distinct
  /// delays, in increasing order (not_ready_delay).
  std::vector<Duration> taint_eviction_delays(policy::NodeId n) const;
  /// The taint manager deletes node `n`'s pods whose toleration ran out by `tainted_for` after
  /// the taint (NodeHost::taint_evict_pods): each is Terminating (Releasing) until PodGC
  /// removes it; the job controller sees PodEvicted.
  void taint_evict_pods(policy::NodeId n, Duration tainted_for);
  /// PodGC deletes the pods of deleted node `n` (NodeHost::pods_garbage_collected): a pod not
  /// yet Terminating is patched Failed (the job controller sees PodFailed), then each is deleted
  /// (PodEvicted; twice for a Terminating one: its patch and its deletion both reach
  /// Volcano's deletePod).
  void pods_garbage_collected(policy::NodeId n);
  /// The pods on node `n`, in task id order (also a killed job's, whose PodGroup is gone).
  /// With `terminal_too`, its Failed and Succeeded pods as well.
  std::vector<policy::TaskId> tasks_on(policy::NodeId n, bool terminal_too = false) const;
  /// The kubelet of `n` is gone (a failed node): nothing there starts or finishes deleting.
  bool unreachable(policy::NodeId n) const;
  /// The zones of job `idx`'s running pods, listed, when it uses EFA across more than one
  /// (uses_efa); empty otherwise.
  std::string efa_zones_split(std::size_t idx) const;
  /// Node `n` left the cluster: its image cache goes with it.
  void node_left(policy::NodeId n) {
    if (startup_) startup_->forget_node(n);
  }
  /// Training of job `idx` begins now (its start-up done, or with none): closes the start-up's
  /// books and hands the job to TrainingProgress (which throws std::runtime_error if, with
  /// fabric contention, the job's nodes cannot form an EFA ring).
  void training_begins(std::size_t idx);
  /// The job's attempt stopped: a start-up in progress is abandoned (a compilation in flight
  /// never reaches the cache).
  void abort_startup(std::size_t idx);

 private:
  void pod_bound(policy::TaskId t);
  void pod_running(policy::TaskId t);
  void pod_gone(policy::TaskId t);
  /// A pod of a job of independent pods ran its task's duration: its container exits 0 and the
  /// kubelet reports it Succeeded (restartPolicy Never). `serial`: the pod's creation serial.
  void pod_done(std::uint32_t t, std::uint32_t serial);
  /// The taint manager's deletion of pod `t` (creation serial `serial`) scheduled by
  /// watch_taints is due.
  void taint_expired(std::uint32_t t, std::uint32_t serial);
  /// The taint manager deletes pod `t`: Terminating (Releasing) for its grace period, or until
  /// PodGC on a node without kubelet; a pod whose containers ended is deleted at once. The job
  /// controller sees PodEvicted (`why`).
  void taint_delete(policy::TaskId t, const std::string& why);
  /// How long after its node went NotReady the taint manager deletes pod `t` (processPodOnNode
  /// with the node's NoExecute taints, node.kubernetes.io/unreachable among them); nullopt:
  /// never, or at the deletion watch_taints scheduled already.
  std::optional<Duration> not_ready_delay(policy::TaskId t) const;
  /// DefaultTolerationSeconds' --default-unreachable-toleration-seconds
  /// (faults.unreachable_toleration, 300 s).
  Duration default_unreachable_toleration() const;
  void begin_startup(std::size_t idx);
  void before() { s_.note_event(); }

  TrainingState& s_;
  SchedulerDriver& driver_;
  JobController& controller_;
  TrainingProgress& progress_;
  core::Engine& startup_rng_;
  std::unique_ptr<StartupModel> startup_;  // with a start-up block
  std::set<policy::TaskId> taint_evicted_;  // deleted by the taint manager, not yet removed by PodGC
  /// The taint manager's scheduled deletions (its taintEvictionQueue), by pod: the pod's
  /// creation serial, and what the pod tolerated for how long (for the PodEvicted text).
  struct TaintTimer {
    std::uint32_t serial = 0;
    std::string why;
    core::EventId event;
  };
  std::map<policy::TaskId, TaintTimer> taint_timers_;

  template <auto Fn>
  using Ev = core::Event<Fn, &PodLifecycle::before>;
  Ev<&PodLifecycle::pod_bound> pod_bound_event_{this};
  Ev<&PodLifecycle::pod_running> pod_running_event_{this};
  Ev<&PodLifecycle::pod_gone> pod_gone_event_{this};
  Ev<&PodLifecycle::pod_done> pod_done_event_{this};
  Ev<&PodLifecycle::taint_expired> taint_expired_event_{this};
  Ev<&PodLifecycle::training_begins> startup_done_event_{this};
};

}  // namespace mltwin::models
