// mltwin/policy/objects.hpp — what the scheduler sees: tasks (pods), jobs (PodGroups), nodes,
// queues. Plain data, after Volcano v1.12.1 pkg/scheduler/api/{job_info,node_info,queue_info}.go.
#pragma once

#include "mltwin/policy/export.hpp"
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mltwin/policy/resource.hpp"

namespace mltwin::policy {

/// Simulated (or wall) time in integer nanoseconds since the run's epoch. Policies never read a
/// clock: time arrives in the snapshot.
using TimeNs = std::int64_t;

using TaskId = std::uint32_t;
using JobId = std::uint32_t;
using NodeId = std::uint32_t;
using QueueId = std::uint32_t;
inline constexpr std::uint32_t kNone = UINT32_MAX;

/// Volcano TaskStatus (api/types.go).
enum class TaskStatus : std::uint8_t {
  Pending, Allocated, Pipelined, Binding, Bound, Running, Releasing, Succeeded, Failed, Unknown
};
inline constexpr std::size_t kTaskStatusCount = 10;
MLTWIN_POLICY_EXPORT const char* to_string(TaskStatus s);

/// Volcano AllocatedStatus: Bound, Binding, Running, Allocated hold resources on a node.
constexpr bool allocated_status(TaskStatus s) {
  return s == TaskStatus::Bound || s == TaskStatus::Binding || s == TaskStatus::Running ||
         s == TaskStatus::Allocated;
}

/// PodGroup phases (scheduling.volcano.sh/v1beta1).
enum class PodGroupPhase : std::uint8_t { Pending, Inqueue, Running, Unknown, Completed };
MLTWIN_POLICY_EXPORT const char* to_string(PodGroupPhase p);

enum class QueueState : std::uint8_t { Open, Closed };

/// Taint effects (k8s.io/api/core/v1 TaintEffect).
enum class TaintEffect : std::uint8_t { NoSchedule, PreferNoSchedule, NoExecute };
MLTWIN_POLICY_EXPORT const char* to_string(TaintEffect e);

/// A node taint (core/v1 Taint): key, value (may be empty), effect. A node group's taints are
/// fixed for the node's life; the one NoExecute taint a running node gains is the node
/// lifecycle controller's node.kubernetes.io/unreachable when a failed node goes NotReady, and
/// the taint manager's eviction is modelled for it alone (NodeLifecycle, PodLifecycle). At
/// scheduling time NoExecute repels like NoSchedule.
struct MLTWIN_POLICY_EXPORT Taint {
  std::string key, value;
  TaintEffect effect = TaintEffect::NoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
};

/// A pod toleration (core/v1 Toleration). An empty key with operator Exists tolerates every
/// taint; no effect tolerates every effect. tolerationSeconds bounds how long a pod stays on a
/// node that gains a NoExecute taint it tolerates (the taint manager,
/// pkg/controller/tainteviction/taint_eviction.go); none: for ever. mltwin uses it for
/// node.kubernetes.io/unreachable (no_execute_toleration).
struct MLTWIN_POLICY_EXPORT Toleration {
  enum class Op : std::uint8_t { Equal, Exists };
  std::string key;
  Op op = Op::Equal;
  std::string value;
  bool any_effect = true;  ///< effect empty: every effect
  TaintEffect effect = TaintEffect::NoSchedule;
  std::optional<std::int64_t> toleration_seconds;  ///< tolerationSeconds (NoExecute only)
  /// k8s.io/api/core/v1 toleration.go ToleratesTaint.
  bool tolerates(const Taint& t) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

/// core/v1 NodeSelectorRequirement, on node labels (matchExpressions) or on the node's name
/// (matchFields with key metadata.name, operators In/NotIn and one value).
struct MLTWIN_POLICY_EXPORT NodeSelectorRequirement {
  enum class Op : std::uint8_t { In, NotIn, Exists, DoesNotExist, Gt, Lt };
  std::string key;
  Op op = Op::In;
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};
MLTWIN_POLICY_EXPORT const char* to_string(NodeSelectorRequirement::Op op);

/// core/v1 NodeSelectorTerm: its requirements are ANDed; a term with none matches no node.
struct MLTWIN_POLICY_EXPORT NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;  ///< on labels
  std::vector<NodeSelectorRequirement> match_fields;       ///< on metadata.name
  bool empty() const { return match_expressions.empty() && match_fields.empty(); }
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

/// core/v1 PreferredSchedulingTerm: weight 1..100.
struct MLTWIN_POLICY_EXPORT PreferredSchedulingTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

/// core/v1 NodeAffinity. `required` holds requiredDuringSchedulingIgnoredDuringExecution's
/// nodeSelectorTerms (ORed), meaningful only when has_required; `preferred` holds
/// preferredDuringSchedulingIgnoredDuringExecution.
struct MLTWIN_POLICY_EXPORT NodeAffinity {
  bool has_required = false;
  std::vector<NodeSelectorTerm> required;
  std::vector<PreferredSchedulingTerm> preferred;
  bool empty() const { return !has_required && preferred.empty(); }
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

/// A pod of a job (Volcano TaskInfo).
struct MLTWIN_POLICY_EXPORT TaskInfo {
  TaskId id = kNone;
  JobId job = kNone;
  std::string name;       ///< pod name, e.g. "job-17-trainer-0"
  int index = 0;          ///< pod index under its Volcano task (default task order): pod_index_under_task
  Resource resreq;        ///< requested resources (mltwin units, see resource.hpp)
  TaskStatus status = TaskStatus::Pending;
  NodeId node = kNone;    ///< node the task is allocated/pipelined/bound to
  std::int32_t priority = 0;
  bool best_effort = false;  ///< requests nothing (Volcano BestEffort): only backfill places it
  TimeNs creation = 0;
  /// Kubernetes UID stand-in (Volcano's TaskInfo.UID is the pod's metadata.uid:
  /// api/job_info.go NewTaskInfo): the last tiebreak of the task order (helpers.CompareTask).
  std::uint64_t uid = 0;
  /// spec.nodeSelector: the node must carry every (key, value) label (predicates plugin).
  std::vector<std::pair<std::string, std::string>> node_selector;
  /// spec.affinity.nodeAffinity (predicates filter on its required terms, nodeorder scores
  /// its preferred ones).
  NodeAffinity node_affinity;
  /// spec.tolerations (predicates: NoSchedule / NoExecute taints must be tolerated; nodeorder
  /// counts untolerated PreferNoSchedule taints).
  std::vector<Toleration> tolerations;
  /// PriorityClass system-cluster-critical / system-node-critical, or namespace kube-system:
  /// never a victim (conformance plugin).
  bool system_critical = false;
  /// Annotation (else label) volcano.sh/preemptable; Volcano reads true when neither is set
  /// (pkg/scheduler/api/pod_info.go GetPodPreemptable). preempt and reclaim skip a task with false.
  bool preemptable = true;
  /// spec.preemptionPolicy Never (Kubernetes' Priority admission copies its PriorityClass's):
  /// the task may not preempt, so the preempt action tries no victims for it
  /// (actions/preempt/preempt.go:338-344) and reclaim passes it over (reclaim/reclaim.go:117-124).
  bool preempt_never = false;
  /// Annotation (else label) volcano.sh/task-spec: the Volcano task the pod belongs to (Volcano
  /// TaskInfo.TaskRole, api/job_info.go:156-169 getTaskRole; the job controller sets both on
  /// every pod it creates), "" for none.
  /// It ties the pod to its PodGroup's spec.minTaskMember entry, and allocate skips a pod whose
  /// role already failed to fit in this session (allocate.go:370-374 TaskHasFitErrors).
  std::string role;
  /// Maintained by ClusterState: the index of `role` in its job's JobInfo::roles, kNone while
  /// the job counts no roles.
  std::uint32_t role_index = kNone;
  /// status.nominatedNodeName: the node an earlier session's preempt pipelined the pod onto
  /// after evicting for it, by name; "" for none. Volcano writes it when a session closes
  /// (pkg/scheduler/cache/cache.go:1483-1532 RecordJobStatusEvent -> taskUnschedulable :986-1000,
  /// from api/job_info.go TaskSchedulingReason: a task whose transaction is Pipelined with
  /// EvictionOccurred, v1.12.1), never clears it, and allocate tries that node before all others
  /// (actions/allocate/allocate.go:391-397). The Session sets it at close (Backend::task_nominated).
  std::string nominated_node;
};

/// Volcano helpers.GetPodIndexUnderTask (pkg/controllers/job/helpers/helpers.go): the last
/// '-'-separated part of a pod name of three or more parts, as a number — the index the job
/// controller gives the pods of a task ("job-trainer-3" is 3); 0 when there is none. Upstream's
/// CompareTask orders two pods by creation and UID when either has no index; mltwin's task
/// order compares the indexes first always (a strict weak order, which std::sort needs), so
/// it differs only for one job's pods mixing indexed and unindexed names.
inline int pod_index_under_task(std::string_view name) {
  std::size_t dashes = 0;
  for (char c : name) dashes += c == '-';
  const std::size_t last = name.rfind('-');
  if (dashes < 2 || last + 1 >= name.size()) return 0;
  int v = 0;
  for (std::size_t i = last + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || v > 100'000'000) return 0;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

/// One Volcano task (role) of a job as the gang rules count it: the job's pods whose
/// volcano.sh/task-spec is `name`, and the PodGroup's spec.minTaskMember for it. Maintained by
/// ClusterState; never edit directly.
struct MLTWIN_POLICY_EXPORT JobRole {
  std::string name;
  std::int32_t min_member = 0;  ///< spec.minTaskMember[name]; 0 when the PodGroup names none
  std::array<std::int32_t, kTaskStatusCount> status_count{};
  std::int32_t pending_best_effort_num = 0;
  std::int32_t count(TaskStatus s) const { return status_count[static_cast<std::size_t>(s)]; }
  /// The role's pods that hold or finished their place: the allocated statuses, Succeeded, and
  /// Pending pods that request nothing (api/job_info.go:880-900 getJobAllocatedRoles, the count
  /// CheckTaskReady compares).
  std::int32_t occupied() const {
    return count(TaskStatus::Bound) + count(TaskStatus::Binding) + count(TaskStatus::Running) +
           count(TaskStatus::Allocated) + count(TaskStatus::Succeeded) + pending_best_effort_num;
  }
  /// occupied() plus Pipelined pods (job_info.go:957-988 CheckTaskPipelined).
  std::int32_t occupied_or_pipelined() const { return occupied() + count(TaskStatus::Pipelined); }
  /// Pods that may still run: the allocated statuses, Succeeded, Pipelined and Pending
  /// (job_info.go:910-940 CheckTaskValid).
  std::int32_t valid() const {
    return count(TaskStatus::Bound) + count(TaskStatus::Binding) + count(TaskStatus::Running) +
           count(TaskStatus::Allocated) + count(TaskStatus::Succeeded) + count(TaskStatus::Pipelined) +
           count(TaskStatus::Pending);
  }
};

/// One Volcano job with its PodGroup (Volcano JobInfo).
struct MLTWIN_POLICY_EXPORT JobInfo {
  JobId id = kNone;
  /// Volcano's JobID and JobInfo.UID: the PodGroup's "namespace/name" (cache/event_handlers.go
  /// getJobID). The job order's last tiebreak compares it as a string on equal creation times
  /// (framework/session_plugins.go JobOrderFn), as does Session::job_order. The twin gives the
  /// Job's name (its PodGroups share one namespace, so the order is the same).
  std::string name;
  QueueId queue = kNone;
  std::int32_t min_available = 1;  ///< PodGroup minMember
  std::int32_t priority = 0;       ///< from the PriorityClass
  TimeNs creation = 0;
  /// The PodGroup's metadata.uid stand-in. Volcano orders no job by it; Session::job_order
  /// compares it only between jobs of equal creation time and equal name.
  std::uint64_t uid = 0;
  PodGroupPhase phase = PodGroupPhase::Pending;
  /// The PodGroup's sla waiting time, ns (annotation `volcano.sh/sla-waiting-time`, else
  /// `sla-waiting-time`, copied from the Volcano Job's: Volcano JobInfo.WaitingTime, read by
  /// the sla plugin); 0: none (Volcano leaves a value <= 0 unset).
  TimeNs sla_waiting_time = 0;
  bool has_min_resources = true;   ///< PodGroup spec.minResources set (Volcano controller sets it)
  Resource min_resources;          ///< sum of the first minAvailable tasks' requests
  /// PodGroup spec.minTaskMember: the least number of pods of each Volcano task (role) the gang
  /// needs (the job controller writes each task's minAvailable, else its replicas:
  /// pkg/controllers/job/job_controller_actions.go:733-740). Empty: none (the gang counts only
  /// min_available). Names must be distinct and counts >= 0 (ClusterState::add_job throws).
  std::vector<std::pair<std::string, std::int32_t>> min_task_member;
  std::vector<TaskId> tasks;       ///< pods created so far (none before the PodGroup is Inqueue)

  // Maintained by ClusterState: never edit directly.
  std::array<std::int32_t, kTaskStatusCount> status_count{};
  /// Pending tasks that request nothing (BestEffort); beside status_count, as is_ready() reads
  /// both.
  std::int32_t pending_best_effort_num = 0;
  Resource allocated;              ///< sum of resreq of tasks in allocated_status
  Resource pending_request;        ///< sum of resreq of tasks in Pending
  Resource pipelined;              ///< sum of resreq of tasks in Pipelined (in-session only)
  bool live = true;                ///< false once removed from the cluster, or while its PodGroup is unset
  /// Its PodGroup was deleted (ClusterState::unset_podgroup) and not yet created again: the job
  /// is out of every session (live = false) while its pods being deleted still hold their nodes.
  bool podgroup_unset = false;
  /// The roles named by min_task_member or by a task, in the order first seen
  /// (TaskInfo::role_index points here). Empty, and not counted, while neither the PodGroup's
  /// minTaskMember nor any pod names a role (no per-task rule applies then).
  std::vector<JobRole> roles;
  /// Volcano TaskMinAvailableTotal: the sum of min_task_member's counts.
  std::int32_t task_min_available_total = 0;
  /// Roles whose count is below their min_member, for CheckTaskValid, CheckTaskReady and
  /// CheckTaskPipelined (kept so that each check costs O(1)).
  std::int32_t roles_short_valid = 0, roles_short_ready = 0, roles_short_pipelined = 0;

  std::int32_t count(TaskStatus s) const { return status_count[static_cast<std::size_t>(s)]; }
  /// Volcano util.CalculateAllocatedTaskNum: allocated statuses plus completed ones.
  std::int32_t allocated_task_num() const {
    return count(TaskStatus::Bound) + count(TaskStatus::Binding) + count(TaskStatus::Running) +
           count(TaskStatus::Allocated) + count(TaskStatus::Succeeded) + count(TaskStatus::Failed);
  }
  std::int32_t task_num() const { return static_cast<std::int32_t>(tasks.size()); }
  /// Volcano ReadyTaskNum: Bound + Binding + Running + Allocated + Succeeded.
  std::int32_t ready_task_num() const {
    return count(TaskStatus::Bound) + count(TaskStatus::Binding) + count(TaskStatus::Running) +
           count(TaskStatus::Allocated) + count(TaskStatus::Succeeded);
  }
  /// Volcano WaitingTaskNum: Pipelined.
  std::int32_t waiting_task_num() const { return count(TaskStatus::Pipelined); }
  /// Volcano ValidTaskNum: allocated statuses + Succeeded + Pipelined + Pending.
  std::int32_t valid_task_num() const {
    return ready_task_num() + count(TaskStatus::Pipelined) + count(TaskStatus::Pending);
  }
  /// Volcano IsReady / IsPipelined / IsStarving.
  bool is_ready() const { return ready_task_num() + pending_best_effort_num >= min_available; }
  bool is_pipelined() const {
    return waiting_task_num() + ready_task_num() + pending_best_effort_num >= min_available;
  }
  bool is_starving() const { return waiting_task_num() + ready_task_num() < min_available; }
  bool is_pending() const { return phase == PodGroupPhase::Pending; }
  /// The per-task gang (api/job_info.go at v1.12.1): each check passes when min_available is
  /// below task_min_available_total ("skip this check"), else when every role with a
  /// min_member has that many pods valid (CheckTaskValid, :910), occupied (CheckTaskReady,
  /// :943) or occupied or pipelined (CheckTaskPipelined, :958).
  bool check_task_valid() const { return min_available < task_min_available_total || roles_short_valid == 0; }
  bool check_task_ready() const { return min_available < task_min_available_total || roles_short_ready == 0; }
  bool check_task_pipelined() const {
    return min_available < task_min_available_total || roles_short_pipelined == 0;
  }
};

/// A Kubernetes node (Volcano NodeInfo). idle + used = allocatable while nothing is pipelined.
struct MLTWIN_POLICY_EXPORT NodeInfo {
  NodeId id = kNone;
  std::string name;
  std::string instance_type;
  std::vector<std::pair<std::string, std::string>> labels;  ///< sorted by key
  bool unschedulable = false;  ///< spec.unschedulable (cordoned)
  bool ready = true;
  /// spec.taints, in the node's order (the first untolerated one is the one reported).
  std::vector<Taint> taints;
  /// status.allocatable: capacity less the kubelet's reservations (kube-reserved,
  /// system-reserved, the hard eviction threshold).
  Resource allocatable;
  Resource capacity;
  /// Requests of the pods on the node that Volcano does not schedule: the DaemonSets' pods
  /// (device plugins, CNI, kube-proxy). They hold part of allocatable from the node's start:
  /// ClusterState counts them in used (Volcano's cache adds every pod bound to a node,
  /// whatever its scheduler), so idle = allocatable - daemonset_used at first.
  Resource daemonset_used;
  // Maintained by ClusterState.
  Resource idle, used, releasing, pipelined;
  std::int32_t task_count = 0;

  /// What the pods Volcano schedules can use on the empty node: allocatable - daemonset_used.
  Resource pod_room() const { return allocatable - daemonset_used; }
  /// Volcano FutureIdle = Idle + Releasing - Pipelined.
  Resource future_idle() const { return idle + releasing - pipelined; }
  /// Value of a label, or nullptr.
  const std::string* label(std::string_view key) const {
    for (const auto& [k, val] : labels)
      if (k == key) return &val;
    return nullptr;
  }
};

/// A Volcano Queue.
struct MLTWIN_POLICY_EXPORT QueueInfo {
  QueueId id = kNone;
  std::string name;
  std::int32_t weight = 1;
  /// spec.capability; nullopt when it names nothing (Volcano: capability nil, no limit).
  std::optional<Resource> capability;
  Resource guarantee;  ///< spec.guarantee.resource (empty if unset)
  /// spec.deserved (read by the capacity plugin only), with exactly the resources it names:
  /// Volcano's comparisons treat a resource it lacks as 0 or unlimited by call
  /// (api/resource_info.go DimensionDefaultValue).
  Resource deserved;
  /// spec.parent (capacity plugin with enableHierarchy): the parent queue, kNone for the root
  /// queue "root" that Volcano's scheduler cache creates (cache.go newDefaultAndRootQueue).
  QueueId parent = kNone;
  QueueState state = QueueState::Open;
  std::int32_t priority = 0;
  bool reclaimable = true;
  TimeNs creation = 0;
  /// The Queue's metadata.uid stand-in. Volcano's QueueInfo.UID is the queue's name
  /// (api/queue_info.go NewQueueInfo), which the queue order's fallback compares
  /// (session_plugins.go QueueOrderFn); Session::queue_order compares this only between queues
  /// of equal creation time and equal name.
  std::uint64_t uid = 0;
};

}  // namespace mltwin::policy
