// mltwin/models/training.hpp — an EKS cluster of Trn1 nodes whose Volcano scheduler
// gang-schedules TorchX DDP jobs, as a discrete-event model.
//
// The model drives the real policy library (mltwin::policy::Scheduler, Volcano v1.12.1) through
// the policy Backend interface; it is the "world" around the scheduler:
//
//   submit ──► Volcano Job + PodGroup (Pending) ──enqueue──► Inqueue: the Volcano job controller
//   creates one pod per TorchX replica ──allocate (gang)──► bind ──bind latency──► Bound
//   ──pod start-up──► Running; when the last pod runs, torchrun's rendezvous completes and the
//   job trains for its traced duration ──► pods Succeeded, job Completed.
//
// Evictions (preempt, reclaim) and node failures: the evicted pod is Releasing for its
// termination grace period, then gone; a failed node's pods are gone at once. The Volcano job
// controller (training/job_controller.hpp) applies the job's lifecycle policies (JobLifecycle;
// TorchX's with max_retries > 0: PodEvicted/PodFailed -> RestartJob, pkg/controllers/job/
// state/running.go): RestartJob kills every other pod and counts a retry, RestartTask only the
// task's pod, AbortJob / TerminateJob / CompleteJob end the job, no policy means SyncJob. The
// job's training since its last checkpoint (or since its start) is lost; the survivors of a
// lost pod wait for it (torchrun) until peer_failure_timeout, then Fail; the missing pods are
// created anew once the PodGroup is admitted and, placed again, the job trains for what
// remains. When the retry count reaches maxRetry the job is Failed (state/restarting.go).
//
// The scheduler runs a cycle every schedule period (1 s by default) aligned to t = 0, but only
// when something changed (policy::Scheduler skips the rest), and the model schedules no tick
// at all while nothing is pending — a quiet week costs nothing. The cycle at boundary t sees
// every change made at or before t (whatever order same-time events were scheduled in).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/catalog.hpp"
#include "mltwin/models/fabric_params.hpp"
#include "mltwin/models/recorder.hpp"
#include "mltwin/models/startup.hpp"
#include "mltwin/models/step_model.hpp"
#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/scheduler.hpp"

namespace mltwin::models {

class SessionObserver;

using core::Duration;

/// A latency drawn per use: constant, uniform [min, max], or exponential with a mean.
struct LatencySpec {
  enum class Kind { Constant, Uniform, Exponential } kind = Kind::Constant;
  Duration a;  ///< value (constant), min (uniform) or mean (exponential)
  Duration b;  ///< max (uniform)
  std::string source;  ///< where the figure comes from
  Duration draw(core::Engine& rng) const;
};

/// A node's purchase option: EKS managed node groups' capacityType (the value of the node label
/// eks.amazonaws.com/capacityType, EKS User Guide "Managed node group capacity types").
enum class CapacityType : std::uint8_t { OnDemand, Spot };
/// "ON_DEMAND" or "SPOT".
const char* to_string(CapacityType c);

/// How EC2 Auto Scaling spreads Spot capacity over a group's instance types
/// (InstancesDistribution.SpotAllocationStrategy; EC2 Auto Scaling User Guide, "Allocation
/// strategies"). The Spot capacity pools' depth, which the capacity strategies follow, cannot be
/// observed from outside AWS: mltwin assumes every listed pool equally deep, so the three
/// capacity strategies spread Spot nodes round-robin over the listed types in list order;
/// lowest-price spreads them evenly ("evenly allocates your instances across the number of Spot
/// pools that you specify") over the spot_instance_pools cheapest types.
enum class SpotAllocationStrategy : std::uint8_t { LowestPrice, CapacityOptimized, CapacityOptimizedPrioritized, PriceCapacityOptimized };
/// "lowest-price", "capacity-optimized", "capacity-optimized-prioritized", "price-capacity-optimized".
const char* to_string(SpotAllocationStrategy s);

/// An Auto Scaling group's On-Demand / Spot split (MixedInstancesPolicy.InstancesDistribution).
/// The defaults are EC2 Auto Scaling's (API_InstancesDistribution: OnDemandBaseCapacity 0,
/// OnDemandPercentageAboveBaseCapacity 100, SpotAllocationStrategy lowest-price,
/// SpotInstancePools 2), which eksctl leaves in place when its instancesDistribution omits them.
/// On-Demand capacity is always `prioritized` (the first type of the list; mltwin does not model
/// a type running short of capacity, so every On-Demand node is of the first type).
struct InstancesDistribution {
  int on_demand_base_capacity = 0;           ///< nodes
  int on_demand_percentage_above_base = 100; ///< 0..100
  SpotAllocationStrategy spot_allocation_strategy = SpotAllocationStrategy::LowestPrice;
  int spot_instance_pools = 2;               ///< lowest-price only: the N cheapest types
};

/// A node of the user's own cluster, read from its Node object (the scenario's
/// /cluster/nodes_from: `kubectl get nodes -o json`): what the object says is the node, not the
/// catalog. The group that holds it (NodeGroupSpec::observed) is that one node, named after it.
struct ObservedNode {
  std::string name;  ///< metadata.name, e.g. ip-10-42-3-10.us-west-2.compute.internal
  /// metadata.labels, sorted by key, as the object gives them (the well-known instance-type,
  /// zone and hostname labels included): node_labels returns them unchanged.
  std::vector<std::pair<std::string, std::string>> labels;
  /// status.capacity and status.allocatable (mltwin units), as the kubelet reported them: no
  /// kubelet reservation is applied (allocatable is already capacity less it).
  policy::Resource capacity, allocatable;
  bool unschedulable = false;  ///< spec.unschedulable (cordoned)
  bool ready = true;           ///< the Ready condition is True
  /// The instance type (NodeGroupSpec::instance_types[0]) has a catalog row: without one the
  /// node still loads, but has no price (0 USD/h, node_price_source says why), no EFA and no
  /// NeuronLink topology (the loader refuses /fabric and /step_model).
  bool in_catalog = true;
  std::string source;  ///< where it was read: "nodes.json: /items/0"
};

struct NodeGroupSpec {
  std::string name;           ///< eksctl nodeGroups[].name
  /// Set: the group is one node of the user's cluster (count 1, one instance type, On-Demand,
  /// no autoscaling), whose first node is named observed->name (a replacement after a failure
  /// <name>-1, ...) and carries the object's labels, taints, resources and cordon.
  std::optional<ObservedNode> observed;
  /// The instance types the group launches (the launch template overrides, in priority order),
  /// each in the catalog; at least one. Which node gets which: node_launch().
  std::vector<std::string> instance_types;
  /// The On-Demand / Spot split. An EKS managed node group is all On-Demand (the default: 100 %
  /// On-Demand) or all Spot (capacity_type SPOT: 0 %, price-capacity-optimized).
  InstancesDistribution distribution;
  /// The group is an eksctl nodeGroups entry with instancesDistribution (a self-managed Auto
  /// Scaling group with a MixedInstancesPolicy): EKS sets no eks.amazonaws.com/capacityType
  /// label on its nodes. false: an EKS managed node group, whose nodes carry it.
  bool mixed_instances_policy = false;
  /// EC2 Auto Scaling Capacity Rebalancing: the replacement of an interrupted Spot node is
  /// launched at its interruption notice rather than at its termination. EKS managed node
  /// groups enable it on Spot groups; eksctl's instancesDistribution.capacityRebalance (default
  /// false) sets it for nodeGroups.
  bool capacity_rebalance = false;
  /// The Spot price of each instance_types entry, USD/h, and where it comes from; empty when no
  /// node of the group can be Spot. The loader fills them (catalog row "spot", or the scenario's
  /// spot price history) and refuses a Spot node without one. The source goes into the results
  /// (nodes.price_source): it names files as the scenario writes them, or by file name, never by
  /// the folder they were found in.
  std::vector<double> spot_usd_per_hour;
  std::vector<std::string> spot_price_source;
  /// Where each instance_types entry's on-demand price comes from, for the results: its catalog
  /// row by file name and JSON pointer with the price's region ("aws-instance-types.json:
  /// /instance_types/5 on_demand_usd_per_hour, us-east-1"); the row's own `source` cites it.
  /// Empty (a group not built by the loader): the type's name stands for its row.
  std::vector<std::string> on_demand_price_source;
  int count = 0;              ///< desiredCapacity
  /// eksctl minSize / maxSize; -1 (both): the cluster autoscaler leaves this group alone.
  int min_size = -1, max_size = -1;
  std::string availability_zone;
  std::vector<std::pair<std::string, std::string>> labels;
  /// The nodes' spec.taints (eksctl taints; e.g. aws.amazon.com/neuron=true:NoSchedule).
  std::vector<policy::Taint> taints;
  /// What the kubelet keeps from pods (kube-reserved + system-reserved + the hard eviction
  /// threshold, mltwin units): a node's allocatable is its instance type's capacity less this.
  policy::Resource kubelet_reserved;
  /// The same per instance_types entry, when the group has several (the EKS AMI's reservation
  /// depends on the type); empty: kubelet_reserved for every type.
  std::vector<policy::Resource> kubelet_reserved_by_type;
  /// Node capacity the instance type's catalog row does not give, added to it on every node of
  /// the group: `ephemeral-storage` (the kubelet advertises its root filesystem: the node's root
  /// volume, eksctl volumeSize) and `hugepages-*` (huge pages the node's OS reserves). Empty: the
  /// nodes advertise neither, and a pod requesting them fits no node.
  policy::Resource extra_capacity;
};

/// A DaemonSet: one pod on every node whose labels match its nodeSelector and required node
/// affinity and whose NoSchedule / NoExecute taints it tolerates (the DaemonSet controller's
/// predicates, kubernetes pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod).
/// Its requests hold part of the node's allocatable for the node's life.
struct DaemonSetSpec {
  std::string name;
  policy::Resource requests;  ///< the pod's requests (mltwin units)
  std::vector<std::pair<std::string, std::string>> node_selector;
  policy::NodeAffinity node_affinity;
  std::vector<policy::Toleration> tolerations;
  std::string source;
};

/// What the group's Auto Scaling group launches into capacity slot `slot` (0-based): an index
/// into instance_types and a purchase option. Slots 0..N-1 hold the group at desired capacity
/// N, so the split of any N is the Auto Scaling group's: On-Demand count
/// od(N) = min(N, base) + ceil(max(0, N - base) x percentage / 100) ("rounds up to the next
/// integer in favor of On-Demand Instances", EC2 Auto Scaling User Guide, "Controlling the
/// proportion of On-Demand instances"); slot k is On-Demand when od(k + 1) > od(k). An
/// On-Demand slot takes the first type (prioritized); the s-th Spot slot takes pool s modulo the
/// pools of the strategy (SpotAllocationStrategy). Nodes at t = 0 fill slots 0..count-1, a
/// replacement takes the slot of the node it replaces, a scale-up the lowest free slot.
/// Deterministic: no random draw. Throws std::invalid_argument for a group without types, or a
/// lowest-price group without a Spot price per type.
struct NodeLaunch {
  std::size_t type = 0;  ///< index into NodeGroupSpec::instance_types
  CapacityType capacity = CapacityType::OnDemand;
};
NodeLaunch node_launch(const NodeGroupSpec& g, std::int64_t slot);
/// Whether some slot of `g` is Spot (percentage above base < 100).
bool launches_spot(const NodeGroupSpec& g);
/// The instance types a Spot node of `g` may be, as indexes in instance_types (lowest-price:
/// the spot_instance_pools cheapest by spot_usd_per_hour, ties in list order, which needs
/// every type's price; otherwise every type).
std::vector<std::size_t> spot_pools(const NodeGroupSpec& g);
/// A node's price, USD/h: the catalog's on-demand price of its type, or the group's Spot price.
double node_usd_per_hour(const Catalog& catalog, const NodeGroupSpec& g, NodeLaunch l);
/// Where node_usd_per_hour's price comes from: an On-Demand node's, the group's
/// on_demand_price_source of its type (its catalog row, whose `source` cites the price); a Spot
/// node's, the group's spot_price_source of its type (the catalog row's "spot" entry, or the
/// scenario's Spot price history). Throws std::invalid_argument where node_usd_per_hour does.
std::string node_price_source(const Catalog& catalog, const NodeGroupSpec& g, NodeLaunch l);

/// The labels a node of group `g` launched as `l` carries, sorted: the group's own, plus
/// node.kubernetes.io/instance-type, eks.amazonaws.com/nodegroup, eks.amazonaws.com/capacityType
/// (ON_DEMAND or SPOT; not on a mixed_instances_policy group, whose nodes EKS does not manage)
/// and (with a zone) topology.kubernetes.io/zone, as EKS sets them. Scheduling and the loader's
/// zone check use it; each node also carries kubernetes.io/hostname, its own name.
std::vector<std::pair<std::string, std::string>> node_labels(const NodeGroupSpec& g, NodeLaunch l);
/// The labels of the node the Kubernetes cluster-autoscaler builds as the group's template: its
/// first instance type (cluster-autoscaler cloudprovider/aws/aws_manager.go buildInstanceType:
/// "always use first instance" of a MixedInstancesPolicy) in slot 0's purchase option.
std::vector<std::pair<std::string, std::string>> template_labels(const NodeGroupSpec& g);

/// A job that waited through sessions in which a job of another queue was placed while the two
/// queues' order was decided by Volcano's QueueOrderFn fallback (every plugin's queue order
/// answered 0 — proportion: equal spec.priority and equal share — so the Queue created first, or
/// on equal CreationTimestamps the lower UID — the queue's name, api/queue_info.go NewQueueInfo —
/// went first: framework/session_plugins.go :595-601, v1.12.1; policy::Session::QueueTie).
/// Recorded by the scheduler driver after each session.
struct QueueTieLoss {
  std::size_t sessions = 0;        ///< such sessions
  std::string winner;              ///< the queue that won the first of them
  bool by_uid = false;             ///< that tie was decided by UID, the names (equal creation times)
};

struct QueueSpec {
  std::string name;
  int weight = 1;
  std::optional<policy::Resource> capability;  ///< spec.capability with the resources it names; nullopt: none
  policy::Resource guarantee;
  int priority = 0;
  bool open = true;
  bool reclaimable = true;  ///< Volcano Queue spec.reclaimable (default true)
  /// spec.deserved (capacity plugin), with the resources it names (policy::QueueInfo::deserved).
  policy::Resource deserved;
  /// spec.parent (capacity plugin with enableHierarchy); empty: a child of "root".
  std::string parent;
};

// ---- Volcano Job lifecycle policies (batch.volcano.sh/v1alpha1 LifecyclePolicy, v1.12.1) ----

/// The events of a LifecyclePolicy that can happen in mltwin (volcano.sh/apis bus/v1alpha1
/// events.go). PodEvicted: a pod is being deleted (the job controller's deletePod handler raises
/// it for every deletion, pkg/controllers/job/job_controller_handler.go); PodFailed: a pod's
/// phase became Failed (its node failed, or its torchrun exited with an error); TaskCompleted:
/// every pod of a task Succeeded; Any: "*"; Unknown: the scheduler set the PodGroup's phase to
/// Unknown (a gang with a running pod that it found unschedulable, framework/session.go
/// jobStatus), which the controller's updatePodGroup handler turns into a request of the job, for
/// no task (job_controller_handler.go:466-476).
enum class JobEvent : std::uint8_t { PodEvicted, PodFailed, TaskCompleted, Any, Unknown };
const char* to_string(JobEvent e);
/// The actions a policy may name (the admission webhook's policyActionMap,
/// pkg/webhooks/admission/jobs/validate/util.go), and SyncJob, the controller's action when no
/// policy matches (job_controller_util.go applyPolicies).
enum class JobAction : std::uint8_t { SyncJob, RestartJob, RestartTask, RestartPod, AbortJob, TerminateJob, CompleteJob, ResumeJob };
const char* to_string(JobAction a);

/// One LifecyclePolicy: the events it reacts to (a bitmask of 1 << JobEvent) and its action.
struct LifecyclePolicy {
  std::uint8_t events = 0;
  JobAction action = JobAction::SyncJob;
  bool matches(JobEvent e) const {
    return (events & (1u << static_cast<unsigned>(e))) || (events & (1u << static_cast<unsigned>(JobEvent::Any)));
  }
};

/// The Volcano task of a training job's replica i: "trainer-<i>" (TorchX writes one task per
/// replica, torchx/schedulers/kubernetes_scheduler.py app_to_resource, v0.7.0). It names the
/// pod ("<job>-trainer-<i>-0"), its volcano.sh/task-spec annotation and its minTaskMember entry.
std::string trainer_task_name(int replica);

/// What the Volcano job controller does with a job's pod events: the Job's maxRetry, its
/// job-level policies and each task's own. mltwin's job has one pod per task (TorchX writes
/// one task per replica, torchx/schedulers/kubernetes_scheduler.py app_to_resource, v0.7.0),
/// so the task of pod i is "trainer-i" and every task carries `task_policies`.
struct JobLifecycle {
  /// spec.maxRetry: the controller fails the job once status.retryCount reaches it
  /// (state/restarting.go). The admission webhook turns 0 into 3 (mutate_job.go DefaultMaxRetry).
  int max_retry = 3;
  std::vector<LifecyclePolicy> policies;       ///< spec.policies
  std::vector<LifecyclePolicy> task_policies;  ///< spec.tasks[*].policies (the same on every task)
  /// applyPolicies (pkg/controllers/job/job_controller_util.go:170-262): the first task policy
  /// naming the event (or "*"), else the first job policy, else SyncJob. Unknown comes with no
  /// task name, so only the job's policies apply to it (:206 "if len(req.TaskName) != 0").
  /// `task`: the request's task's own policies, used instead of task_policies (a job of
  /// independent pods whose tasks differ).
  JobAction action_for(JobEvent e, bool* from_task = nullptr, const std::vector<LifecyclePolicy>* task = nullptr) const;
};

/// The Volcano Job TorchX writes for dist.ddp with Role.max_retries r (kubernetes_scheduler.py
/// app_to_resource, v0.7.0): maxRetry r and, when r > 0 (retry policy APPLICATION, the default),
/// PodEvicted -> RestartJob and PodFailed -> RestartJob on every task; r = 0 writes no policy
/// and maxRetry 0, which the webhook makes 3.
JobLifecycle torchx_lifecycle(int max_retries);

/// A job already running when the run starts (the scenario's /initial_state): its training
/// started `elapsed` before t0 and has `remaining` to go (duration - elapsed unless given); its
/// pods run on `nodes`, one node name per pod in pod order (the loader resolves a first-fit
/// placement into names, so the model only binds).
struct InitialRun {
  Duration elapsed;
  Duration remaining;
  std::vector<std::string> nodes;
};

/// One Volcano task of a job of independent pods (TrainingJobSpec::tasks): `replicas` pods
/// named "<job>-<name>-<k>", each Succeeding `duration` after it is Running.
struct JobTaskSpec {
  std::string name;              ///< spec.tasks[*].name
  int replicas = 1;              ///< spec.tasks[*].replicas, >= 1
  Duration duration;             ///< a pod's run time, from Running to Succeeded, >= 0
  /// spec.tasks[*].minAvailable, 0..replicas; -1: not given (the webhook's default: replicas,
  /// mutate_job.go mutateSpec). The PodGroup's minTaskMember entry and running.go's per-task
  /// Succeeded rule.
  int min_available = -1;
  int min_member() const { return min_available >= 0 ? min_available : replicas; }
  /// The task's own spec.tasks[*].policies; null: the job's task_policies (JobLifecycle).
  std::shared_ptr<const std::vector<LifecyclePolicy>> policies;
};

/// One training job. Without `tasks`: a TorchX dist.ddp job, nnodes pods (one per node,
/// minAvailable = nnodes) of nproc_per_node processes each, training together under torchrun
/// once every pod runs. With `tasks`: a Volcano Job of independent pods (no torchrun): each pod
/// runs its task's duration from when it is Running; nnodes is the tasks' replicas.
struct TrainingJobSpec {
  std::string name;
  std::string queue;
  core::Time submit;
  int nnodes = 1;
  int nproc_per_node = 1;
  int neuron_devices_per_pod = 0;
  double cpu_per_pod = 0;         ///< cores
  double memory_bytes_per_pod = 0;
  int efa_per_pod = 0;
  /// The name the pods request their Neuron devices under (Kubernetes and Volcano count the
  /// three names independently, policy/resource.hpp): aws.amazon.com/neurondevice (TorchX's),
  /// aws.amazon.com/neuron, or aws.amazon.com/neuroncore (then devices × NeuronCores per device).
  policy::ResourceName neuron_resource = policy::rn::kNeuronDevice;
  /// Further requests of each pod (nvidia.com/gpu, ephemeral-storage, hugepages-*, any extended
  /// resource), as policy::Resource stores them (milli-units).
  std::vector<policy::ScalarResources::Entry> other_requests;
  Duration duration;              ///< training time once every pod runs
  int priority = 0;
  std::int64_t trace_row = 0;
  int trace_gpus = 0;
  /// Neuron model graph and compiler flags (NEURON_CC_FLAGS) the job compiles; empty: the
  /// startup block's defaults. Only read when the scenario has a startup block.
  std::string model, compiler_flags;
  /// The pods' spec.nodeSelector, sorted by key: a node must carry every (key, value) label
  /// (Volcano's predicates plugin). E.g. topology.kubernetes.io/zone pins a job to one
  /// availability zone, which EFA jobs need (EFA traffic does not cross zones).
  std::vector<std::pair<std::string, std::string>> node_selector;
  /// The pods' spec.affinity.nodeAffinity and spec.tolerations.
  policy::NodeAffinity node_affinity;
  std::vector<policy::Toleration> tolerations;
  /// The PriorityClass the job names (its value is `priority`); empty: none named.
  std::string priority_class;
  /// The pods' spec.preemptionPolicy is Never (their PriorityClass's, which Kubernetes' Priority
  /// admission copies): they may not preempt (policy::TaskInfo::preempt_never).
  bool preempt_never = false;
  /// The Volcano Job's (hence its PodGroup's) annotation sla-waiting-time, read by the sla
  /// plugin (policy::JobInfo::sla_waiting_time); zero: none.
  Duration sla_waiting_time = Duration::ns(0);
  /// The job's own lifecycle policies (a Volcano Job manifest's, or /workload/jobs' policies,
  /// task_policies, max_retry); null: the scenario's TorchX default
  /// (torchx_lifecycle(TrainingScenario::max_retries)).
  std::shared_ptr<const JobLifecycle> lifecycle;
  /// Running at t0 (/initial_state/running); null: submitted at `submit`. Such a job has
  /// submit 0 and comes before the others (the loader orders it so).
  std::shared_ptr<const InitialRun> initial;
  /// Admitted at t0 (/initial_state/admitted): its PodGroup is Inqueue and its pods created
  /// (none bound) when it is submitted at 0s, as kubectl shows a PodGroup the enqueue action
  /// admitted before the run; the first session's allocate may place it. false: it starts Pending.
  bool admitted = false;
  /// The Volcano tasks of a job of independent pods, in pod order (replica index i is the i-th
  /// pod across the tasks); empty: a torchrun gang (TorchX's one task "trainer-<i>" per pod).
  std::vector<JobTaskSpec> tasks;
  /// spec.minAvailable (the PodGroup's minMember); 0: not given — the webhook's default, the
  /// tasks' minAvailable summed (mutate_job.go patchDefaultMinAvailable), which is every pod of
  /// a torchrun gang (TorchX writes replicas). Below nnodes only for a job of independent pods
  /// (the loader refuses elastic torchrun).
  int min_available = 0;
  /// The job's pods run independently (it lists tasks), not as one torchrun gang.
  bool independent_pods() const { return !tasks.empty(); }
  /// spec.minAvailable as the controller and scheduler use it (pods).
  int min_member() const {
    return min_available > 0 ? min_available : task_min_total();
  }
  /// TotalTaskMinAvailable (pkg/controllers/job/state/util.go): the tasks' minAvailable summed
  /// (a torchrun gang: one task of one pod per replica).
  int task_min_total() const {
    if (tasks.empty()) return nnodes;
    int sum = 0;
    for (const JobTaskSpec& t : tasks) sum += t.min_member();
    return sum;
  }
  /// The index in `tasks` of replica i's task (independent pods only).
  std::size_t task_of_replica(int i) const {
    std::size_t k = 0;
    for (int first = 0; k + 1 < tasks.size() && i >= first + tasks[k].replicas; ++k) first += tasks[k].replicas;
    return k;
  }
  /// Optimizer steps to train (DurationModel::Derived; 0 otherwise). The loader sets it from
  /// `duration` and the reference step time (StepModelSpec) unless the scenario gives it.
  std::int64_t steps = 0;
};

/// A pod's requests (its Kubernetes ResourceList) as the policy library counts them: cpu,
/// memory, the Neuron devices under `neuron_resource` (NeuronCores when that is
/// aws.amazon.com/neuroncore: devices × `neuroncores_per_device`), EFA interfaces and the other
/// requests. A task's Resreq adds one `pods` (policy::task_resreq).
policy::Resource pod_requests(const TrainingJobSpec& j, int neuroncores_per_device);

/// A node's capacity as the kubelet and the device plugins report it: cpu, memory, `pods` (the
/// catalog's max_pods, else the kubelet's default 110), the Neuron device plugin's three names
/// (aws.amazon.com/neuron and aws.amazon.com/neurondevice: devices; aws.amazon.com/neuroncore:
/// NeuronCores) and vpc.amazonaws.com/efa.
policy::Resource node_capacity(const InstanceType& it);

/// The NeuronCores a request (or a node's used) holds: aws.amazon.com/neuroncore, plus the
/// devices of aws.amazon.com/neuron and aws.amazon.com/neurondevice × NeuronCores per device.
/// Of a node's allocatable (which advertises all three names) use the neuroncore count alone.
inline double neuroncores_in(const policy::Resource& r, int neuroncores_per_device) {
  return (r.scalars.get(policy::rn::kNeuronCore) +
          (r.scalars.get(policy::rn::kNeuron) + r.scalars.get(policy::rn::kNeuronDevice)) * neuroncores_per_device) / 1000.0;
}

/// What a node of a group offers pods: its instance type's capacity, its allocatable (capacity
/// less the group's kubelet_reserved) and the requests of the DaemonSet pods it runs.
struct NodeResources {
  policy::Resource capacity, allocatable, daemonsets;
  /// What the pods Volcano schedules can use on the empty node.
  policy::Resource pod_room() const { return allocatable - daemonsets; }
};
struct TrainingScenario;
/// The resources of a node of group `g` launched as `l` named `node_name` (a DaemonSet may select
/// nodes by name); its instance type must be in the scenario's catalog (std::invalid_argument).
/// Without `l`: the cluster-autoscaler's template node (the first type, slot 0).
NodeResources node_resources(const TrainingScenario& sc, const NodeGroupSpec& g, std::optional<NodeLaunch> l = std::nullopt,
                             std::string_view node_name = {});

/// A pod of `j` as the scheduler's predicates see its placement constraints (nodeSelector, node
/// affinity, tolerations); no resources.
policy::TaskInfo pod_constraints(const TrainingJobSpec& j);

/// How long a job trains once every pod runs.
enum class DurationModel {
  Trace,    ///< its traced duration
  Derived,  ///< steps × the step time of the placement it got (step_model.hpp), per attempt
};

/// The step model of a scenario (/step_model): a model profile and the fabric figures, each
/// with its source.
struct StepModelSpec {
  ModelProfile profile;
  double neuronlink_gbps_per_link = 0;  ///< one NeuronLink hop, Gb/s (device bandwidth / links)
  double efa_gbps_per_node = 0;         ///< the nodes' EFA bandwidth, Gb/s (catalog network_gbps)
  core::Duration intra_alpha, inter_alpha;  ///< per ring step
  std::string source;
  /// The figures come from the scenario's /fabric and running jobs share it: each job's
  /// inter-node bandwidth is what the fabric grants it among the other jobs' all-reduce
  /// traffic (collective.hpp, JobTraffic), re-evaluated whenever a job starts or stops
  /// training. false: every job gets the nominal bandwidth (/step_model/fabric).
  bool contention = false;
  /// The whole bandwidth of every link, as granted with no other traffic.
  LinkGrant nominal() const { return {neuronlink_gbps_per_link, efa_gbps_per_node, intra_alpha, inter_alpha}; }
};

class NodeLifecycle;
struct TrainingState;       // training/training_state.hpp
struct TrainingComponents;  // training/components.hpp

struct TrainingScenario {
  Catalog catalog;
  std::vector<NodeGroupSpec> node_groups;
  /// DaemonSets running on the nodes (device plugins, CNI, kube-proxy); none by default.
  std::vector<DaemonSetSpec> daemonsets;
  std::vector<QueueSpec> queues;
  policy::SchedulerConfig scheduler = policy::volcano_default_config();
  LatencySpec bind_latency;   ///< scheduler decision -> pod Bound
  LatencySpec pod_startup;    ///< Bound -> container Running
  /// Deleted pod (evicted, or killed by the job controller) -> gone, its resources free: the
  /// pod's terminationGracePeriodSeconds, 30 s unless the PodSpec sets it (Kubernetes API,
  /// core/v1 PodSpec.terminationGracePeriodSeconds).
  /// The chance that the API server refuses a binding (lifecycle.bind_failure_probability,
  /// RNG stream "api.bind_failure"); 0: every bind succeeds. A refused bind leaves the pod
  /// unbound; the scheduler places it again at a later cycle (policy::Backend::bind).
  double bind_failure_probability = 0;
  LatencySpec termination_grace{LatencySpec::Kind::Constant, Duration::s(30), Duration::s(30),
                                "Kubernetes PodSpec.terminationGracePeriodSeconds default, 30 s"};
  /// TorchX Role.max_retries of the dist.ddp component (torchx/components/dist.py, default 0):
  /// the lifecycle of every job that gives none of its own (torchx_lifecycle). With 0 there is
  /// no policy and an evicted pod takes Volcano's default SyncJob path
  /// (training/job_controller.hpp).
  int max_retries = 0;
  /// How long the surviving workers of a torchrun gang take to fail once a peer pod is lost
  /// (deleted or failed) and the job controller leaves them running (SyncJob, RestartTask):
  /// their collective waits for the dead peer until the process group's timeout, then torchrun
  /// (max_restarts 0, TorchX's dist.ddp) exits with an error and the pod is Failed. Default:
  /// PyTorch's default_pg_timeout, 30 min (torch/distributed/constants.py), the timeout of
  /// init_process_group for backends other than NCCL.
  Duration peer_failure_timeout = Duration::s(1800);
  /// Training progress between two checkpoints; zero: the job does not checkpoint, and a
  /// restart loses everything since its (re)start.
  Duration checkpoint_interval = Duration::ns(0);
  Duration metrics_interval = Duration::s(300);
  /// The summary's starvation flag (io/report.hpp): a wait longer than this many times the
  /// job's run time, while a later, smaller job of its queue was placed first. An analysis
  /// threshold of ours, not a Volcano figure (/output/starvation_wait_factor, default 1).
  double starvation_wait_factor = 1.0;
  DurationModel duration_model = DurationModel::Trace;
  std::optional<StepModelSpec> step_model;  ///< set when duration_model is Derived
  std::vector<TrainingJobSpec> jobs;  ///< sorted by submit time
  /// The EFA / NeuronLink network (scenario "fabric"); unset: no network is modelled.
  std::optional<FabricParams> fabric;
  /// Start-up phases (image pull, rendezvous, Neuron compilation, dataset read); absent: the
  /// job trains as soon as its last pod runs (models/startup.hpp).
  std::optional<StartupSpec> startup;
  /// Refuse at submission a job that can never be placed on this cluster (/cluster/admission/
  /// refuse_unplaceable): what a validating admission policy of the user's own would do.
  /// Volcano does not: its webhook refuses only a Job whose queue is missing, not Open, the
  /// root or not a leaf (pkg/webhooks/admission/jobs/validate/admit_job.go:225-250), so by
  /// default such a job is admitted, may go Inqueue (enqueue asks only for budget) and waits
  /// for ever, holding its queue's and the overcommit plugin's enqueue budget (volcano#1295).
  bool refuse_unplaceable = false;
  /// The cluster's Kubernetes minor version (1.<minor>; /cluster/kubernetes_version, eksctl's
  /// metadata.version): version-dependent defaults follow it (FaultSpec). Default 1.32, the
  /// release mltwin's Kubernetes behaviour is pinned to.
  int kubernetes_minor = 32;
  /// Node failures; absent: nodes never fail.
  std::optional<FaultSpec> faults;
  /// Cluster autoscaler for node groups with min_size/max_size; absent: fixed node groups.
  std::optional<AutoscalerSpec> autoscaler;
};

/// Job `j` sends its collectives over EFA: it requests vpc.amazonaws.com/efa, or it shares the
/// scenario's fabric (DurationModel::Derived with contention). Such a job placed across
/// availability zones cannot run (PodLifecycle::training_begins).
bool uses_efa(const TrainingScenario& sc, const TrainingJobSpec& j);

/// Per-job outcome, for summaries.
struct JobOutcome {
  std::string queue;
  /// Volcano Job phase at the end (Completed, Running, Pending, Failed, Aborted, Terminated),
  /// or Refused: the Job was never created, an admission webhook refused it.
  std::string phase;
  core::Time submit, scheduled = core::Time::max(), start = core::Time::max(), end = core::Time::max();
  int nnodes = 1;
  int neuron_devices = 0;
  /// Times the reclaim action evicted a pod of this job (each restarted or failed the job:
  /// RestartJob kills every pod): the summary's reclaim-churn flag counts jobs with 2 or more.
  int reclaim_evictions = 0;
  /// Where its time on the nodes went, s (per-job breakdown, also in the database): start-up
  /// (first bind of an attempt -> training starts), lost work (training thrown away by
  /// restarts), and, with DurationModel::Derived, the kept training split into computing
  /// (micro-steps + step overhead), communicating (all-reduce) and synchronisation (straggler
  /// wait). An attempt still training at the end of the run counts with its steps so far.
  double startup_s = 0, lost_s = 0, compute_s = 0, communication_s = 0, sync_s = 0;
  /// The Neuron compilation (or compile-cache load) part of startup_s, s (startup block only).
  double compile_s = 0;
};

struct TrainingStats {
  std::uint64_t sessions = 0;        ///< scheduler sessions opened
  std::uint64_t cycles_elapsed = 0;  ///< schedule period boundaries in [0, end] (0, T, 2T, ...)
  std::uint64_t binds = 0;
  std::uint64_t statements_discarded = 0;
  /// Jobs an admission webhook refused (never created): Volcano's for a missing, closed, root
  /// or non-leaf queue; /cluster/admission/refuse_unplaceable for one that could never be placed.
  std::uint64_t refused = 0;
  /// Jobs admitted that can never be placed on this cluster (TrainingCluster's check at
  /// submission): they wait for ever, holding enqueue budget once Inqueue (volcano#1295).
  std::uint64_t never_placeable = 0;
  std::uint64_t evictions = 0;       ///< pods the scheduler evicted (preempt, reclaim)
  /// Priority inversions: evictions for a pod of a job of lower priority than the victim's
  /// (PodGroup priorities), counted by what chose the victim — "preempt: tier 2 (drf)" — and
  /// the first one, described (its decision row's text).
  std::map<std::string, std::uint64_t> priority_inversions;
  std::string priority_inversion_example;
  std::uint64_t bind_failures = 0;   ///< binds the API server refused (lifecycle.bind_failure_probability)
  std::uint64_t drained = 0;         ///< pods evicted by a node drain (Spot interruption notices)
  std::uint64_t restarts = 0;        ///< RestartJob / RestartTask / RestartPod actions that restarted a job or task
  std::uint64_t failed = 0;          ///< jobs Failed: retries exhausted (maxRetry), or every pod Failed (SyncJob)
  std::uint64_t aborted = 0;         ///< jobs Aborted (AbortJob)
  std::uint64_t terminated = 0;      ///< jobs Terminated (TerminateJob)
  std::uint64_t completed_early = 0; ///< jobs Completed by CompleteJob before their training ended
  std::uint64_t resumed_in_place = 0;  ///< torchrun gangs that re-formed with a replacement pod (no Volcano restart)
  std::uint64_t stuck = 0;           ///< jobs left with Failed pods that Volcano never recreates (SyncJob), at the end
  double lost_training_s = 0;        ///< training progress thrown away by restarts, job-seconds
  double lost_neuroncore_s = 0;      ///< the same, times the job's NeuronCores
  /// For each whole-job restart (killJob deletes the PodGroup, the controller creates a new one):
  /// seconds from the new PodGroup's creation to its admission (Inqueue), in order of admission.
  std::vector<double> readmission_wait_s;
  double neuroncores_total = 0;
  std::uint64_t node_failures = 0;   ///< nodes that failed
  /// Pods of failed nodes deleted by the taint manager (unreachable past their toleration), and
  /// removed by PodGC (their Node object deleted). A pod the taint manager deleted stays
  /// Terminating until PodGC removes it: it counts in both, and in
  /// pods_garbage_collected_after_taint_eviction as well.
  std::uint64_t taint_evictions = 0, pods_garbage_collected = 0, pods_garbage_collected_after_taint_eviction = 0;
  /// Pods of nodes still up deleted by the taint manager because their tolerationSeconds of a
  /// NoExecute taint of their node group ran out, counted from their bind
  /// (PodLifecycle::watch_taints): the job controller saw PodEvicted for each.
  std::uint64_t node_taint_evictions = 0;
  /// Attempts whose pods ran in two or more availability zones while the job uses EFA: its
  /// collectives could not connect and its pods Failed at training start.
  std::uint64_t efa_cross_zone_failures = 0;
  /// Autoscaler churn (filled by finish()): nodes a scale-up launched that never held a pod,
  /// their node-seconds up to their removal or the end, and their cost at the node's price.
  std::uint64_t churn_nodes = 0;
  double churn_node_seconds = 0, churn_usd = 0;
  /// mltwin stopped a churn cycle (scale-ups for Pending pods whose node was removed unused)
  /// that the cluster autoscaler would repeat for as long as those pods wait: the churn's cost
  /// is then a lower bound.
  bool churn_cut = false;
  /// The autoscaler trap (filled by finish()): jobs whose PodGroup enqueue never admitted (so no
  /// pod was created and the autoscaler, which reacts to Pending pods, never scaled out) while
  /// the node groups could have grown to hold them; the first such job's name.
  std::uint64_t autoscaler_trapped = 0;
  std::string autoscaler_trap_example;
  std::uint64_t nodes_launched = 0;  ///< nodes added after t = 0 (replacements and scale-ups)
  std::uint64_t nodes_removed = 0;   ///< nodes the autoscaler removed
  std::uint64_t spot_interruptions = 0;  ///< Spot nodes given an interruption notice (then terminated)
  /// Nodes whose pods came to hold two of the three Neuron resource names at once (counted once
  /// per node): Kubernetes and Volcano count aws.amazon.com/neuron, .../neurondevice and
  /// .../neuroncore independently, so such a node can be promised the same Neuron device twice
  /// (policy::neuron_names_mixed). The first such node and its names, for the summary.
  std::uint64_t neuron_name_mixes = 0;
  std::string neuron_name_mix_example;
  /// Node-seconds in service per node group (launch requested -> removed, failed or the end),
  /// filled by finish(); only when faults or the autoscaler change the node set.
  std::vector<double> node_group_seconds;
  /// The same per node group and pool, [group][type x 2 + capacity] (type: index into the
  /// group's instance_types; capacity 0 On-Demand, 1 Spot): what each node is priced at.
  std::vector<std::vector<double>> node_pool_seconds;
  /// Job-seconds spent in start-up phases (rendezvous start -> training start, every attempt)
  /// and in image pulls (longest pod of each attempt), over all jobs; with a startup block.
  double startup_s = 0, image_pull_s = 0;
  /// Job-seconds of training, kept or lost (every attempt, until the end of the run).
  double training_s = 0;
  std::uint64_t compile_hits = 0, compile_misses = 0, compile_waits = 0;
  std::uint64_t retimes = 0;  ///< step times changed by fabric contention (jobs re-timed mid-attempt)
  /// NeuronCore-seconds held by allocated pods, per day since t = 0.
  std::vector<double> allocated_core_seconds_per_day;
};

/// The training cluster: an EKS cluster under Volcano, as one component per process of the
/// real system around the shared state (training/training_state.hpp lists them). This class is
/// the API server's side — job submission and admission, the jobs running at t = 0, the metrics
/// samples — and wires the components together.
class TrainingCluster final {
 public:
  /// Throws std::invalid_argument for a scenario the loader would have refused.
  TrainingCluster(const TrainingScenario& scenario, core::Simulator& sim, core::RngStreams& rng,
                  TrainingRecorder& recorder);
  ~TrainingCluster();

  /// Records the nodes at t = 0 and schedules the first arrival and sample.
  void start();
  /// Closes the books at `end` (no earlier than the last event): jobs still running or waiting
  /// get their final rows (`unfinished_note` added to a waiting job's reason).
  void finish(core::Time end, const std::string& unfinished_note = "");

  const std::vector<JobOutcome>& outcomes() const;
  policy::Scheduler& scheduler();
  const policy::Scheduler& scheduler() const;
  /// Shows the scheduler's sessions to `o` (mltwin/models/training/scheduler_driver.hpp
  /// SessionObserver; nullptr: none). `o` must outlive the cluster or be unset first.
  void set_session_observer(SessionObserver* o);
  const TrainingStats& stats() const;
  const policy::ClusterState& state() const;
  /// Jobs submitted so far, ended so far, and in the scenario.
  std::size_t submitted() const;
  std::size_t ended() const;
  std::size_t total_jobs() const { return scenario_.jobs.size(); }
  /// The time of the last event of any of the cluster's components.
  core::Time last_event() const;
  /// The jobs admitted that can never be placed, by scenario index, with why.
  const std::map<std::size_t, std::string>& never_placeable() const;
  /// Jobs that lost queue-order ties to another queue's placed job, by scenario index.
  const std::map<std::size_t, QueueTieLoss>& queue_tie_losses() const;

 private:
  struct NodeHostAdapter;
  void arrive(std::size_t idx);
  void place_initial(std::size_t idx);
  std::string infeasible_reason(const TrainingJobSpec& j, const policy::Resource& pod) const;
  std::string admission_refusal(const TrainingJobSpec& j) const;
  void sample();
  void note_event();

  const TrainingScenario& scenario_;
  std::unique_ptr<TrainingState> s_;
  std::unique_ptr<NodeHostAdapter> node_host_;
  std::unique_ptr<NodeLifecycle> nodes_;  // the nodes: at t = 0, failures, Spot, the autoscaler
  std::unique_ptr<TrainingComponents> parts_;  // the scheduler driver, job controller, pods, training
  bool finished_ = false;
  core::Event<&TrainingCluster::arrive, &TrainingCluster::note_event> arrival_event_{this};
  core::Event<&TrainingCluster::sample> sample_event_{this};
};

}  // namespace mltwin::models
