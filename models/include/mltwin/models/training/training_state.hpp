// mltwin/models/training/training_state.hpp — what the components of the training cluster
// share: the Volcano cluster state, the per-job books, the counters, the clock and the recorder.
//
// The training cluster (training.hpp) is a set of components, one per process of the real
// system, around this state:
//
//   TrainingCluster  (training.hpp)            the API server's side: job submission and
//                                              admission, the jobs at t = 0, metrics samples
//   SchedulerDriver  (scheduler_driver.hpp)    volcano-scheduler: the schedule period, its
//                                              sessions, and the policy::Backend they call
//   JobController    (job_controller.hpp)      the Volcano job controller: pods of a Job,
//                                              lifecycle policies, restarts, torchrun's gang
//   PodLifecycle     (pod_lifecycle.hpp)       the kubelet: bind -> image pull -> Running,
//                                              start-up (rendezvous, compile cache), deletion
//   TrainingProgress (training_progress.hpp)   the training itself: attempts, step times,
//                                              checkpoints, fabric contention, completion
//   NodeLifecycle    (node_lifecycle.hpp)      the nodes: failures, Spot, the autoscaler
//   FabricTraffic    (fabric_traffic.hpp)      the all-reduce traffic on the EFA fabric
//
// Each component owns its events (no other schedules them) and its books: a JobRun's Volcano
// phase, retries and pending events are the JobController's, its attempt and step fields
// TrainingProgress's, a JobStartup PodLifecycle's, the scheduler's ticks the SchedulerDriver's.
// Fields the real processes share are written where each process touches them, as marked on
// the field: the pods bound and running (counted by the kubelet's reports, recounted by the
// job controller after a kill), the attempt's first bind (set by the bind, cleared when the
// attempt trains or stops). TrainingCluster sets up every book of a job running at t = 0.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training.hpp"

namespace mltwin::models {

/// Volcano Job phases (batch.volcano.sh/v1alpha1 JobPhase), the job controller's state
/// (pkg/controllers/job/state/factory.go NewState).
enum class VcPhase : std::uint8_t { Pending, Running, Restarting, Aborting, Aborted, Terminating, Terminated, Completing, Completed, Failed };
const char* to_string(VcPhase p);

/// One job's books.
struct JobRun {
  policy::JobId pj = policy::kNone;
  int bound = 0, running = 0;                    ///< PodLifecycle counts; JobController::recount after a kill
  core::Time inqueue = core::Time::max();
  core::Time scheduled = core::Time::max();
  core::Time start = core::Time::max();
  core::Time end = core::Time::max();
  core::Time attempt_start = core::Time::max();  ///< training start of the current attempt
  core::EventId end_event;                       ///< TrainingProgress's job-end event of the current attempt
  Duration saved = Duration::ns(0);              ///< progress kept by the last checkpoint
  int retries = 0;                               ///< Volcano Job status.retryCount
  /// Volcano Job status.version: killJob bumps it (job_controller_actions.go:108-110); a
  /// request carrying an older version is outdated and runs SyncJob (job_controller_util.go:199-203).
  std::int32_t version = 0;
  /// The Job's status counts (status.pending, running, terminating, succeeded, failed) as they
  /// were last written: by a syncJob of an admitted PodGroup, which counts the pods after
  /// creating the missing ones (job_controller_actions.go:386-500), or by killJob/killTarget,
  /// which counts only the pods it deleted, as terminating (:93-180). While the PodGroup is not
  /// admitted, syncJob leaves them as they are (:359-383) and the state's status rule reads these.
  /// When the Job's current PodGroup was created by a restart (recreate_podgroup); max when it
  /// was not, or once it is admitted (TrainingStats::readmission_wait_s).
  core::Time readmit_from = core::Time::max();
  struct StatusCounts {
    std::int32_t pending = 0, running = 0, terminating = 0, succeeded = 0, failed = 0;
  } status;
  VcPhase vc = VcPhase::Pending;                 ///< Volcano Job status.state.phase
  /// A pod event waiting for the job controller (raised during a scheduling cycle or a node
  /// failure, handled at the same instant once it is over), in order.
  struct PendingEvent {
    JobEvent event;
    int replica;
    std::int32_t version;  ///< the request's JobVersion: the pod's, 0 for a PodGroup's
    std::string what;
  };
  std::vector<PendingEvent> events;
  bool controller_pending = false;
  /// torchrun: the job lost a pod while others stayed on their nodes; the survivors' process
  /// group times out at peer_event unless the gang forms again first (job_controller.hpp).
  bool gang_broken = false;
  bool peer_timer = false;
  core::EventId peer_event;
  double last_lost_s = 0;                        ///< training lost since the last decision row
  std::int8_t last_event = -1;                   ///< the event (a JobEvent, -1: none) and action behind the Job's phase
  JobAction last_action = JobAction::SyncJob;
  bool stuck = false;                            ///< SyncJob left Failed pods that are never recreated
  // Per-job breakdown (JobOutcome), and the step model's state (DurationModel::Derived).
  core::Time attempt_placed = core::Time::max();  ///< first bind of the current attempt (SchedulerDriver; cleared by TrainingProgress or JobController)
  StepTime step;                                  ///< step time of the current attempt's placement
  std::int64_t steps_saved = 0;                   ///< steps kept by the last checkpoint
  // The current attempt in periods of constant step time (derived): steps done and their
  // split before period_start, and the bytes one inter-node hop carries per step.
  core::Time period_start = core::Time::max();
  double att_steps = 0, att_compute_s = 0, att_comm_s = 0, att_sync_s = 0;
  double hop_bytes_per_step = 0;
  // The current period of constant step time (a step_periods row): since when, the steps done
  // before it, the EFA grant it has, and which attempt (training start) it belongs to.
  core::Time step_since = core::Time::max();
  double step_since_steps = 0;
  double efa_gbps = 0;
  int attempt = -1;
  bool ended = false;
  std::string last_phase = "Pending";
};

/// One job's start-up books (PodLifecycle).
struct JobStartup {
  Duration pull_max = Duration::ns(0);  ///< longest image pull of this attempt's pods
  core::EventId done_event;             ///< the start-up-done event of the current attempt
  bool in_startup = false;              ///< between the last pod Running and training start
  double image_pull_s = 0, rendezvous_s = 0, dataset_read_s = 0;  ///< s; compile time: JobOutcome::compile_s
  std::string compile_cache;
  core::Time training_start = core::Time::max();
  core::Time startup_begin = core::Time::max();
};

class NodeLifecycle;

struct TrainingState {
  /// Opens the streams "apiserver.uid" and, for a random termination grace period,
  /// "pod.termination_grace". The scenario, simulator and recorder must outlive the state.
  TrainingState(const TrainingScenario& scenario, core::Simulator& simulator, TrainingRecorder& recorder, core::RngStreams& rng);

  const TrainingScenario& sc;
  core::Simulator& sim;
  TrainingRecorder& rec;
  core::Engine& uid_rng;                  ///< "apiserver.uid": every object's UID
  core::Engine* grace_rng = nullptr;      ///< only for a random termination grace period
  policy::ClusterState state;             ///< the cluster as volcano-scheduler sees it
  /// Set once the nodes exist. Null only for components tested on a hand-built cluster: static
  /// nodes, and then no cluster autoscaler and no fabric contention.
  NodeLifecycle* nodes = nullptr;
  bool startup_modelled = false;          ///< the scenario has a start-up block
  int cores_per_device = 2;               ///< NeuronCores per Neuron device of the first node group's type
  JobLifecycle torchx_default;            ///< torchx_lifecycle(sc.max_retries)
  std::vector<JobRun> runs;               ///< by scenario job index
  std::vector<JobStartup> jstart;         ///< by scenario job index
  std::vector<JobOutcome> outcomes;       ///< by scenario job index
  std::vector<std::size_t> job_of_policy; ///< policy JobId -> scenario index
  /// policy JobId -> its queue (a job's queue never changes here), so that a walk over every
  /// live job by queue (SchedulerDriver::note_queue_ties) need not open each JobInfo.
  std::vector<policy::QueueId> queue_of_policy;
  std::vector<int> replica_of_task;       ///< policy TaskId -> replica index
  std::vector<std::int32_t> version_of_task;  ///< policy TaskId -> the pod's job version (annotation volcano.sh/job-version)
  /// policy TaskId -> the pod's creation serial (task ids are reused: an event for a pod, such
  /// as its end, carries the serial and is void for a later pod of the same id).
  std::vector<std::uint32_t> serial_of_task;
  std::uint32_t next_serial = 0;
  mutable TrainingStats stats;
  std::size_t next_arrival = 0;           ///< jobs submitted so far
  std::size_t ended = 0;                  ///< jobs ended
  /// Jobs admitted that can never be placed, by scenario index, with why (the finish reason).
  std::map<std::size_t, std::string> never_placeable;
  /// Jobs that lost queue-order ties (QueueTieLoss), by scenario index.
  std::map<std::size_t, QueueTieLoss> queue_tie_losses;
  /// What the nodes offer one pod shape: TrainingCluster::infeasible_reason's walk over every
  /// node, before the cluster autoscaler's headroom. Kept per shape (the pod's request, bit for
  /// bit, and its nodeSelector, affinity and tolerations) only while the fleet cannot change (no
  /// faults, no autoscaler: NodeLifecycle::dynamic() false), where it is the same for every
  /// arrival; without it each arrival walks every node (O(jobs x nodes) on a large fleet).
  struct NodeWalk {
    std::vector<std::uint64_t> request;  ///< (resource name id, value bits) per requested resource
    policy::TaskInfo constraints;        ///< node_selector, node_affinity, tolerations
    std::int64_t fit = 0;                ///< pods of this shape the nodes hold at once
    std::vector<char> usable, seen;      ///< per node group: a node accepts the pods; a node was seen
    std::vector<std::string> why;        ///< per node group: the first filter reason of a node
    std::string room_note;               ///< allocatable or DaemonSets leave pods less than capacity
    std::vector<std::pair<policy::ResourceName, int>> short_of;  ///< usable nodes short of each resource
  };
  std::vector<NodeWalk> node_walks;
  /// Some jobs can never be placed, every other job has ended and none is left to submit:
  /// nothing more can happen to the jobs, so the cluster autoscaler stops scanning (its scale-ups
  /// for pods that can never run, and the removals of the nodes they leave empty, would keep the
  /// run going for ever).
  bool settled() const {
    if (never_placeable.empty() || next_arrival != sc.jobs.size()) return false;
    std::size_t open = 0;
    for (const auto& [idx, why] : never_placeable) open += runs[idx].ended ? 0 : 1;
    return open > 0 && ended + open >= sc.jobs.size();
  }
  core::Time last_event = core::Time::zero();

  /// Notes the time of a component's event (every component's events call it first).
  void note_event() { last_event = sim.now(); }
  double neuroncores_of(const policy::Resource& r) const { return neuroncores_in(r, cores_per_device); }
  /// One pod's requests for job `idx`, as the scheduler counts them.
  policy::Resource pod_resreq(std::size_t idx) const;
  /// The lifecycle policies of job `idx`: its own, else TorchX's default.
  const JobLifecycle& lifecycle_of(std::size_t idx) const {
    const auto& l = sc.jobs[idx].lifecycle;
    return l ? *l : torchx_default;
  }
  /// A pod's termination grace period (drawn when it is random).
  Duration termination_grace() { return grace_rng ? sc.termination_grace.draw(*grace_rng) : sc.termination_grace.a; }
  /// Allocated NeuronCores change by `delta_cores` now: integrates the allocation over time,
  /// split at day boundaries (TrainingStats::allocated_core_seconds_per_day).
  void account_allocation(double delta_cores);
  /// The pods on node `n` changed (the cluster autoscaler's books, if the nodes are dynamic).
  void node_occupancy_changed(policy::NodeId n);
  /// The job's final row (JobFinal).
  void write_final(std::size_t idx, const std::string& phase, const std::string& reason);
  /// NeuronCores allocated now.
  double allocated_cores() const { return alloc_cores_; }

 private:
  double alloc_cores_ = 0;
  core::Time alloc_since_ = core::Time::zero();
};

}  // namespace mltwin::models
