// mltwin/policy/objects.hpp — what the scheduler sees: tasks (pods), jobs (PodGroups), nodes,
// queues. Plain data, after Volcano v1.12.1 pkg/scheduler/api/{job_info,node_info,queue_info}.go.
#pragma once
#include <array>
#include <cstdint>
#include <string>
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
const char* to_string(TaskStatus s);

/// Volcano AllocatedStatus: Bound, Binding, Running, Allocated hold resources on a node.
constexpr bool allocated_status(TaskStatus s) {
  return s == TaskStatus::Bound || s == TaskStatus::Binding || s == TaskStatus::Running ||
         s == TaskStatus::Allocated;
}

/// PodGroup phases (scheduling.volcano.sh/v1beta1).
enum class PodGroupPhase : std::uint8_t { Pending, Inqueue, Running, Unknown, Completed };
const char* to_string(PodGroupPhase p);

enum class QueueState : std::uint8_t { Open, Closed };

/// A pod of a job (Volcano TaskInfo).
struct TaskInfo {
  TaskId id = kNone;
  JobId job = kNone;
  std::string name;       ///< pod name, e.g. "job-17-trainer-0"
  int index = 0;          ///< pod index under its Volcano task (default task order)
  Resource resreq;        ///< requested resources (mltwin units, see resource.hpp)
  TaskStatus status = TaskStatus::Pending;
  NodeId node = kNone;    ///< node the task is allocated/pipelined/bound to
  std::int32_t priority = 0;
  bool best_effort = false;  ///< requests nothing (Volcano BestEffort): only backfill places it
  TimeNs creation = 0;
  std::uint64_t uid = 0;  ///< Kubernetes UID stand-in, the last tiebreak in orders
  /// spec.nodeSelector: the node must carry every (key, value) label (predicates plugin).
  std::vector<std::pair<std::string, std::string>> node_selector;
  /// PriorityClass system-cluster-critical / system-node-critical, or namespace kube-system:
  /// never a victim (conformance plugin).
  bool system_critical = false;
  /// Annotation (else label) volcano.sh/preemptable; Volcano reads true when neither is set
  /// (pkg/scheduler/api/pod_info.go GetPodPreemptable). preempt and reclaim skip a task with false.
  bool preemptable = true;
};

/// One Volcano job with its PodGroup (Volcano JobInfo).
struct JobInfo {
  JobId id = kNone;
  std::string name;
  QueueId queue = kNone;
  std::int32_t min_available = 1;  ///< PodGroup minMember
  std::int32_t priority = 0;       ///< from the PriorityClass
  TimeNs creation = 0;
  std::uint64_t uid = 0;
  PodGroupPhase phase = PodGroupPhase::Pending;
  /// The PodGroup's sla waiting time, ns (annotation `volcano.sh/sla-waiting-time`, else
  /// `sla-waiting-time`, copied from the Volcano Job's: Volcano JobInfo.WaitingTime, read by
  /// the sla plugin); 0: none (Volcano leaves a value <= 0 unset).
  TimeNs sla_waiting_time = 0;
  bool has_min_resources = true;   ///< PodGroup spec.minResources set (Volcano controller sets it)
  Resource min_resources;          ///< sum of the first minAvailable tasks' requests
  std::vector<TaskId> tasks;       ///< pods created so far (none before the PodGroup is Inqueue)

  // Maintained by ClusterState: never edit directly.
  std::array<std::int32_t, kTaskStatusCount> status_count{};
  Resource allocated;              ///< sum of resreq of tasks in allocated_status
  Resource pending_request;        ///< sum of resreq of tasks in Pending
  Resource pipelined;              ///< sum of resreq of tasks in Pipelined (in-session only)
  bool live = true;                ///< false once removed from the cluster

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
  std::int32_t pending_best_effort_num = 0;  ///< maintained by ClusterState
  /// Volcano IsReady / IsPipelined / IsStarving.
  bool is_ready() const { return ready_task_num() + pending_best_effort_num >= min_available; }
  bool is_pipelined() const {
    return waiting_task_num() + ready_task_num() + pending_best_effort_num >= min_available;
  }
  bool is_starving() const { return waiting_task_num() + ready_task_num() < min_available; }
  bool is_pending() const { return phase == PodGroupPhase::Pending; }
};

/// A Kubernetes node (Volcano NodeInfo). idle + used = allocatable while nothing is pipelined.
struct NodeInfo {
  NodeId id = kNone;
  std::string name;
  std::string instance_type;
  std::vector<std::pair<std::string, std::string>> labels;  ///< sorted by key
  bool unschedulable = false;  ///< spec.unschedulable (cordoned)
  bool ready = true;
  Resource allocatable;
  Resource capacity;
  // Maintained by ClusterState.
  Resource idle, used, releasing, pipelined;
  std::int32_t task_count = 0;

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
struct QueueInfo {
  QueueId id = kNone;
  std::string name;
  std::int32_t weight = 1;
  Resource capability = Resource::infinite();  ///< +inf where the queue sets no limit
  Resource guarantee;                          ///< spec.guarantee.resource (zero if unset)
  QueueState state = QueueState::Open;
  std::int32_t priority = 0;
  bool reclaimable = true;
  TimeNs creation = 0;
  std::uint64_t uid = 0;
};

}  // namespace mltwin::policy
