// Internal: what the preempt and reclaim actions share — Volcano v1.12.1's node filter for
// preemption (framework/session.go PredicateForPreemptAction and
// GetUnschedulableAndUnresolvableNodesForTask), the victims' order
// (framework/session_plugins.go BuildVictimsPriorityQueue), util.ValidateVictims
// (util/scheduler_helper.go), and an index of the tasks on each node (Volcano's node.Tasks).
#pragma once
#include <vector>

#include "../builtins.hpp"

namespace mltwin::policy::detail {

/// Volcano api.PreemptableStatus (api/helpers.go): only Bound and Running tasks are victims.
constexpr bool preemptable_status(TaskStatus s) { return s == TaskStatus::Bound || s == TaskStatus::Running; }

/// PredicateForPreemptAction: every plugin predicate is run and a node passes unless some
/// status is UnschedulableAndUnresolvable, Error, Wait or Skip (a plain Unschedulable — "may
/// fit once something leaves" — passes; resources are not a predicate here, ValidateVictims
/// checks them). The nodes allocate found UnschedulableAndUnresolvable for this task are
/// exactly the ones this filter rejects again, so GetUnschedulableAndUnresolvableNodesForTask
/// needs no separate record.
inline bool preempt_predicate_passes(Session& ssn, const TaskInfo& task, const NodeInfo& n) {
  const Status s = ssn.predicate(task, n);
  return s.ok() || s.code == Code::Unschedulable;
}

/// BuildVictimsPriorityQueue's order, as a less-than (true: `a` is evicted before `b`): tasks of
/// one job in reverse task order; tasks of jobs in different queues by VictimQueueOrderFn, which
/// falls back to the reverse queue order (only capacity, with enableHierarchy, registers a
/// victim queue order; it needs the preemptor's queue, which reclaim passes); otherwise jobs in
/// reverse job order.
struct VictimLess {
  const Session* ssn;
  QueueId preemptor_queue = kNone;
  bool operator()(TaskId a, TaskId b) const {
    const ClusterState& st = ssn->state();
    const TaskInfo& ta = st.task(a);
    const TaskInfo& tb = st.task(b);
    if (ta.job == tb.job) return !ssn->task_order(ta, tb);
    const JobInfo& ja = st.job(ta.job);
    const JobInfo& jb = st.job(tb.job);
    if (ja.queue != jb.queue) {
      if (preemptor_queue != kNone)
        return ssn->victim_queue_order(st.queue(ja.queue), st.queue(jb.queue), st.queue(preemptor_queue));
      return !ssn->queue_order(st.queue(ja.queue), st.queue(jb.queue));
    }
    return !ssn->job_order(ja, jb);
  }
};
using VictimPQ = PriorityQueue<TaskId, VictimLess>;

/// util.ValidateVictims: the node's future-idle resources plus the victims' requests must cover
/// the preemptor's request (an empty victim list may pass: the node may already have room).
inline bool victims_suffice(const ClusterState& st, const TaskInfo& preemptor, const NodeInfo& node,
                            const std::vector<TaskId>& victims) {
  Resource future = node.future_idle();
  for (TaskId v : victims) future.add(st.task(v).resreq);
  return preemptor.resreq.less_equal(future);
}

/// The tasks that hold resources on each node (Volcano NodeInfo.Tasks), built once per action
/// from the live jobs, each node's list in task id order, into `by` (its lists keep their
/// storage from one session to the next). Statuses are read at use: a task evicted meanwhile is
/// Releasing and no longer passes the actions' status filters, and tasks pipelined during the
/// action are never victims (PreemptableStatus), so the index stays valid.
inline void tasks_by_node(const ClusterState& st, std::vector<std::vector<TaskId>>& by) {
  if (by.size() > st.nodes().size()) by.resize(st.nodes().size());
  for (auto& v : by) v.clear();
  by.resize(st.nodes().size());
  // Pending PodGroups have pods only in rare cases (e.g. a job whose pods are being deleted
  // after an eviction); the state counts them, so the long list of Pending PodGroups is walked
  // only when one has pods.
  for (const auto* list : {&st.pending_jobs(), &st.active_jobs()}) {
    if (list == &st.pending_jobs() && st.pending_jobs_with_pods() == 0) continue;
    for (JobId j : *list)
      for (TaskId t : st.job(j).tasks) {
        const TaskInfo& task = st.task(t);
        if (task.node != kNone && on_node_status(task.status)) by[task.node].push_back(t);
      }
  }
  for (auto& v : by) std::sort(v.begin(), v.end());
}

}  // namespace mltwin::policy::detail
