// Internal: what the preempt and reclaim actions share — Volcano v1.12.1's node filter for
// preemption (framework/session.go PredicateForPreemptAction and
// GetUnschedulableAndUnresolvableNodesForTask), the victims' order
// (framework/session_plugins.go BuildVictimsPriorityQueue), util.ValidateVictims
// (util/scheduler_helper.go).
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

}  // namespace mltwin::policy::detail
