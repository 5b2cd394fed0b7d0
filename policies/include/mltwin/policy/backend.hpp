// mltwin/policy/backend.hpp — the only door from the policies to the world.
//
// A Statement's commit and a Session's close call these; the simulator implements them with
// simulated latencies, a production component with Kubernetes API calls. No clocks, threads,
// clients or I/O inside policies: time arrives in the ClusterState.
#pragma once

#include "mltwin/policy/export.hpp"
#include <string_view>

#include "mltwin/policy/objects.hpp"
#include "mltwin/policy/status.hpp"

namespace mltwin::policy {

class MLTWIN_POLICY_EXPORT Backend {
 public:
  virtual ~Backend() = default;
  /// The scheduler decided to bind `task` to `node` (the task is now Binding in the state).
  virtual void bind(const TaskInfo& task, const NodeInfo& node) = 0;
  /// The scheduler evicts `task` (now Releasing in the state); `reason` as Volcano records it.
  virtual void evict(const TaskInfo& task, std::string_view reason) = 0;
  /// The job's PodGroup phase changed at session close (Volcano jobStatus / UpdatePodGroup),
  /// e.g. Pending -> Inqueue: the Volcano job controller now creates the job's pods.
  virtual void podgroup_phase_changed(const JobInfo& job, PodGroupPhase from, PodGroupPhase to) = 0;
  /// Why the job is not (fully) scheduled, reported when it changes. `status.plugin` names the
  /// deciding plugin or action; an ok status means the job no longer waits.
  virtual void job_condition(const JobInfo& job, const Status& status) = 0;
};

}  // namespace mltwin::policy
