// mltwin/models/recorder.hpp — what a training run reports, fact by fact.
//
// The SQLite store (store/) is the default implementation; tests use an in-memory one. All times
// are simulated times (mltwin::core::Time, integer ns since the run's start); no wall-clock
// value is ever recorded, so two runs with one seed produce identical records. The string_views
// in PodEvent, Decision and PhaseChange are valid only during the call: copy what you keep.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/core/time.hpp"

namespace mltwin::models {

using core::Time;

/// A job as submitted (one TorchX dist.ddp job = one Volcano Job with one PodGroup).
struct JobSubmitted {
  std::uint32_t job = 0;         ///< dense id, 0..n-1 in submission order
  std::string name;              ///< e.g. "philly-000123"
  std::string queue;
  Time submit;
  int nnodes = 1;                ///< pods (TorchX replicas), = PodGroup minAvailable
  int nproc_per_node = 1;        ///< torchrun processes per pod (one per NeuronCore)
  int neuron_devices_per_pod = 0;
  double cpu_per_pod = 0;        ///< cores
  double memory_gib_per_pod = 0; ///< GiB
  int efa_per_pod = 0;
  double duration_s = 0;         ///< run time once every pod is up, s (from the trace)
  std::int64_t trace_row = 0;    ///< 1-based CSV line in the trace file (header = line 1)
  int trace_gpus = 0;            ///< GPUs the trace job asked for
  std::int64_t steps = 0;        ///< optimizer steps (duration_model derived; 0: trace mode)
  /// The resource name the pods request their Neuron devices under (aws.amazon.com/neurondevice,
  /// .../neuron or .../neuroncore); empty when they request none.
  std::string neuron_resource;
  /// The pods' other requests (nvidia.com/gpu, ephemeral-storage, hugepages-*, any extended
  /// resource) as a JSON object of Kubernetes quantities ({"nvidia.com/gpu":"4"}); empty: none.
  std::string other_requests;
};

/// The final record of a job, written once when it ends (or at the end of the run).
struct JobFinal {
  std::uint32_t job = 0;
  std::string phase;             ///< Volcano Job phase (Completed, Pending, Running, Failed, ...), or Refused
  std::string podgroup_phase;    ///< last PodGroup phase: Pending, Inqueue, Running, Completed
  Time inqueue = Time::max();    ///< PodGroup became Inqueue (Time::max(): never)
  Time scheduled = Time::max();  ///< last pod bound (the gang is placed)
  Time start = Time::max();      ///< last pod Running: torchrun rendezvous completes, training starts
  Time end = Time::max();        ///< all pods Succeeded
  std::string nodes;             ///< node names, comma-separated, in pod order
  std::string reason;            ///< why it was rejected or is still pending
  /// RestartJob actions that restarted the job (evicted or failed pods), and the training
  /// progress they threw away, s (since the last checkpoint; whole steps with the derived model).
  int restarts = 0;
  double lost_training_s = 0;
  /// Time from an attempt's first bind to its training start, summed over attempts, s: pod
  /// start-up (image pull included) and, with a startup block, rendezvous, compilation and the
  /// dataset read. Attempts killed before training count up to the kill.
  double startup_s = 0;
  /// Start-up breakdown, summed over the job's attempts; only with a startup block
  /// (startup_modelled false: the columns are NULL).
  bool startup_modelled = false;
  double image_pull_s = 0;       ///< longest image pull among the attempt's pods, s
  double rendezvous_s = 0;       ///< torchrun rendezvous, s
  double compile_s = 0;          ///< Neuron compilation or compile-cache load, s
  double dataset_read_s = 0;     ///< dataset read from FSx for Lustre, s
  std::string compile_cache;     ///< per attempt that reached compilation: hit, miss or wait, comma-separated
  Time training_start = Time::max();  ///< first time training started (after the start-up phases)
  /// Kept training split into computing, communicating and synchronisation, s, only when
  /// `derived` (duration_model derived), with the step time of the last attempt's placement,
  /// s (0 if it never trained).
  bool derived = false;
  double compute_s = 0, communication_s = 0, sync_s = 0, step_s = 0;
};

struct PodEvent {
  std::uint32_t job = 0;
  int pod = 0;                   ///< replica index
  std::string_view event;        ///< Created, Bound, Running, Succeeded
  std::string_view node;         ///< empty for Created
  Time t;
};

/// A change in why a job waits (recorded only when it changes).
struct Decision {
  std::uint32_t job = 0;
  Time t;
  std::string_view code;         ///< Success, Unschedulable, ...
  std::string_view plugin;       ///< deciding plugin or action
  std::string_view reason;
};

/// A PodGroup phase transition.
struct PhaseChange {
  std::uint32_t job = 0;
  Time t;
  std::string_view from, to;
};

/// One sample of the cluster, every metrics interval.
struct ClusterSample {
  Time t;
  double neuroncores_allocated = 0;  ///< NeuronCores held by pods (allocated statuses)
  double neuroncores_total = 0;
  int jobs_pending = 0;              ///< PodGroup Pending (waiting to enter Inqueue)
  int jobs_inqueue = 0;              ///< Inqueue, not yet running
  int jobs_running = 0;
  int pods_running = 0;
};

/// A node's life event (only nodes that fail, launch or are removed after t = 0 have any).
struct NodeEvent {
  Time t;
  std::string_view node;         ///< node name, e.g. "trn1-2"
  std::string_view group;        ///< node group (eksctl nodeGroups[].name)
  std::string_view event;        ///< Launching, Ready, Failed, Removed
  std::string_view reason;
};

/// A node of the cluster, as it is launched: one per node that ever exists in the run (the
/// `nodes` table). The nodes of the node groups at t = 0 are reported when the model starts
/// (TrainingCluster::start), with t = 0; a replacement or scale-up node when its launch is
/// requested (its `Launching` node event). The price is the one the run's cost applies to the
/// node (models::node_usd_per_hour), with where it comes from (models::node_price_source).
struct NodeLaunched {
  Time t;                        ///< launch requested (billing starts); 0 for the nodes at t = 0
  std::string_view node;         ///< node name, e.g. "trn1-2"
  std::string_view group;        ///< node group (eksctl nodeGroups[].name)
  std::string_view instance_type;
  std::string_view capacity_type;  ///< "ON_DEMAND" or "SPOT" (models::to_string(CapacityType))
  std::string_view zone;         ///< the group's availability zone; empty: the scenario gives none
  double usd_per_hour = 0;       ///< the node's price, USD per hour
  std::string_view price_source; ///< where that price comes from
};

/// A node left the cluster (failed, Spot-interrupted, or removed by the autoscaler): the end of
/// its NodeLaunched record. A node still present at the end of the run gets none.
struct NodeEnded {
  Time t;
  std::string_view node;
};

/// Traffic a fabric link carried over one metrics interval (duration model derived with a
/// fabric): the jobs' all-reduce bytes at the steps they progressed, not the standing flows.
struct LinkUsage {
  Time start, end;         ///< the interval (a metrics interval; the last one ends with the run)
  std::string_view link;   ///< core::FlowNetwork link name, e.g. "trn1-0/efa-tx"
  double bytes = 0;        ///< bytes carried in [start, end)
  double utilisation = 0;  ///< bytes x 8 / (capacity Gb/s x 1e9 x (end - start) s)
};

/// One period of constant step time of a training attempt (duration model derived): the
/// job's all-reduce ring as it ran over the fabric. A period ends when the bandwidth the fabric
/// grants the job changes (another job's ring starts or stops on a link it shares), when the
/// attempt ends, or when the run ends.
struct StepPeriod {
  std::uint32_t job = 0;
  int attempt = 0;               ///< 0 for the first attempt, +1 per restart
  Time start, end;               ///< the period, simulated ns
  int nodes = 1;                 ///< nodes of the ring (1: no inter-node all-reduce)
  double efa_gbps = 0;           ///< EFA bandwidth granted per ring hop, Gb/s (0 when nodes = 1)
  double step_s = 0;             ///< step time in this period, s
  double communication_s = 0;    ///< of which the all-reduce (NeuronLink + EFA), s per step
  double steps = 0;              ///< optimizer steps progressed in the period (fractional)
  std::string_view end_reason;   ///< retimed, completed, restarted, run ended
};

class TrainingRecorder {
 public:
  virtual ~TrainingRecorder() = default;
  virtual void job_submitted(const JobSubmitted& j) = 0;
  virtual void job_final(const JobFinal& j) = 0;
  virtual void pod_event(const PodEvent& e) = 0;
  virtual void decision(const Decision& d) = 0;
  virtual void phase_change(const PhaseChange& p) = 0;
  virtual void sample(const ClusterSample& s) = 0;
  /// Node failures, launches and removals; a recorder that does not keep them may ignore them.
  virtual void node_event(const NodeEvent&) {}
  /// Link traffic per metrics interval; a recorder may ignore it.
  virtual void link_usage(const LinkUsage&) {}
  /// Periods of constant step time (derived durations). Pure virtual, unlike the two above: a
  /// forwarding recorder that forgot it would silently drop the rows.
  virtual void step_period(const StepPeriod& p) = 0;
  /// Every node's launch and, when it leaves the cluster before the run ends, its end. Pure
  /// virtual for the same reason.
  virtual void node_launched(const NodeLaunched& n) = 0;
  virtual void node_ended(const NodeEnded& n) = 0;
  /// A point where a consistent prefix of the run is recorded (the store commits here).
  virtual void checkpoint(Time now) = 0;
};

}  // namespace mltwin::models
