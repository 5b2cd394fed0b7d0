// mltwin/policy/backend.hpp — the only door from the policies to the world.
//
// A Statement's commit and a Session's close call these; the simulator implements them with
// simulated latencies, a production component with Kubernetes API calls. No clocks, threads,
// clients or I/O inside policies: time arrives in the ClusterState.
#pragma once

#include "mltwin/policy/export.hpp"
#include <string>
#include <string_view>
#include <utility>

#include "mltwin/policy/objects.hpp"
#include "mltwin/policy/status.hpp"

namespace mltwin::policy {

/// The world's answer to a bind or an eviction: done, or refused with the reason (the API
/// server's error text, e.g. "pods \"p\" is forbidden: ...").
struct MLTWIN_POLICY_EXPORT CallResult {
  bool ok = true;
  std::string error;
  static CallResult success() { return {}; }
  static CallResult failure(std::string why) { return {false, std::move(why)}; }
};

/// A scheduler eviction (the preempt and reclaim actions) and what the session knew when it chose
/// the victim. Volcano records only `reason` (Statement.Evict(task, reason) -> the pod's "Evict"
/// event, pkg/scheduler/framework/statement.go, v1.12.1); `preemptor` and the tier are mltwin's
/// additions, for diagnostics such as a priority inversion (a lower-priority job's pod evicting
/// a higher-priority one's because a tier without the priority plugin chose the victim).
struct MLTWIN_POLICY_EXPORT Eviction {
  std::string_view reason;   ///< "preempt" or "reclaim", as Volcano records it
  TaskId preemptor = kNone;  ///< the pending task the room is made for; kNone: not known
  /// The scheduler configuration's tier (0-based, in `tiers` order) whose plugins chose the
  /// victim (Session.Preemptable / Reclaimable: the first tier whose plugins leave a non-empty
  /// set); -1: not known.
  int tier = -1;
  /// The plugins of that tier that voted (did not abstain), comma-separated in configuration
  /// order, e.g. "drf" or "priority, gang, conformance".
  std::string_view plugins;
};

class MLTWIN_POLICY_EXPORT Backend {
 public:
  virtual ~Backend() = default;
  /// The scheduler decided to bind `task` to `node` (the task is now Binding in the state).
  /// A failure is handled as Volcano's cache does (pkg/scheduler/cache/cache.go:873-906 Bind,
  /// v1.12.1: taskUnschedulable with "failed to bind to node N: why", then resyncTask,
  /// cache.go:1061): the session goes on as if bound,
  /// and when it closes the task is Pending again, off the node, for the next cycle to place;
  /// the job's condition says why (plugin "bind").
  virtual CallResult bind(const TaskInfo& task, const NodeInfo& node) = 0;
  /// The scheduler evicts `task` (now Releasing in the state); `eviction.reason` as Volcano
  /// records it, with the preemptor and the tier that chose the victim (Eviction). The views
  /// live until the call returns. A failure un-evicts the task at once
  /// (pkg/scheduler/framework/statement.go:105-114 evict -> unevict :116, v1.12.1): it keeps
  /// its status and node.
  virtual CallResult evict(const TaskInfo& task, const Eviction& eviction) = 0;
  /// The job's PodGroup phase changed at session close (Volcano jobStatus / UpdatePodGroup),
  /// e.g. Pending -> Inqueue: the Volcano job controller now creates the job's pods.
  virtual void podgroup_phase_changed(const JobInfo& job, PodGroupPhase from, PodGroupPhase to) = 0;
  /// Why the job is not (fully) scheduled, reported when it changes. `status.plugin` names the
  /// deciding plugin or action; an ok status means the job no longer waits.
  virtual void job_condition(const JobInfo& job, const Status& status) = 0;
  /// At session close, the pending `task` is nominated to `node`: the pod's
  /// status.nominatedNodeName becomes the node's name (TaskInfo::nominated_node, already set in
  /// the state when this is called). Volcano writes it with the pod's PodScheduled condition
  /// (pkg/scheduler/cache/cache.go:986-1000 taskUnschedulable, v1.12.1) for a task that preempt
  /// pipelined onto the node after evicting for it. A later session's allocate tries that node
  /// first. Called only when the nomination changes. Does nothing by default.
  virtual void task_nominated(const TaskInfo& task, const NodeInfo& node) {
    (void)task;
    (void)node;
  }
};

}  // namespace mltwin::policy
