// Internal: what the preempt and reclaim actions share — Volcano v1.12.1's node filter for
// preemption (framework/session.go PredicateForPreemptAction and
// GetUnschedulableAndUnresolvableNodesForTask), the victims' order
// (framework/session_plugins.go BuildVictimsPriorityQueue), util.ValidateVictims
// (util/scheduler_helper.go), and the starving jobs both actions start from.
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
  /// `first` is evicted before `second` in the heap, yet the order now says the reverse: the
  /// order at fault is the one that compared them (reversed, as above).
  [[noreturn]] void violated(TaskId first, TaskId second) const {
    const ClusterState& st = ssn->state();
    const TaskInfo& ta = st.task(first);
    const TaskInfo& tb = st.task(second);
    if (ta.job == tb.job) ssn->task_order_violated(tb, ta);
    const JobInfo& ja = st.job(ta.job);
    const JobInfo& jb = st.job(tb.job);
    if (ja.queue != jb.queue) {
      if (preemptor_queue != kNone)
        ssn->victim_queue_order_violated(st.queue(ja.queue), st.queue(jb.queue), st.queue(preemptor_queue));
      ssn->queue_order_violated(st.queue(jb.queue), st.queue(ja.queue));
    }
    ssn->job_order_violated(jb, ja);
  }
};
using VictimPQ = PriorityQueue<TaskId, VictimLess>;

/// util.ValidateVictims: the node's future-idle resources plus the victims' requests must cover
/// the preemptor's request (an empty victim list may pass: the node may already have room).
inline bool victims_suffice(const ClusterState& st, const TaskInfo& preemptor, const NodeInfo& node,
                            const std::vector<TaskId>& victims) {
  Resource future = st.future_idle(node.id);
  for (TaskId v : victims) future.add(st.task(v).resreq);
  return preemptor.resreq.less_equal(future);
}

/// Calls fn(job, task) for every task of a live job whose status passes `placed` and that sits
/// on a node, jobs in the state's list order (Pending PodGroups first, walked only when one has
/// pods — rare: a job whose pods are being deleted — then the active ones). `skip(job)` may pass
/// over a whole job before its tasks are read.
template <class Skip, class Placed, class Fn>
void for_each_task_on_a_node(const ClusterState& st, Skip&& skip, Placed&& placed, Fn&& fn) {
  for (const auto* list : {&st.pending_jobs(), &st.active_jobs()}) {
    if (list == &st.pending_jobs() && st.pending_jobs_with_pods() == 0) continue;
    for (JobId j : *list) {
      const JobInfo& job = st.job(j);
      if (skip(job)) continue;
      for (TaskId t : job.tasks) {
        const TaskInfo& task = st.task(t);
        if (task.node != kNone && placed(task.status)) fn(job, task);
      }
    }
  }
}

/// The order in which preempt and reclaim take the tasks on one node, where Volcano ranges over
/// node.Tasks, a Go map (no order at all): the pods' creation time, then UID — what the
/// objects carry, so that a state read from a snapshot (whose task ids are its own) takes them
/// as the twin does. The task id decides only between pods created at the same instant with
/// the same UID key.
struct OnNodeOrder {
  const ClusterState* st;
  bool operator()(TaskId a, TaskId b) const {
    const TaskInfo& x = st->task(a);
    const TaskInfo& y = st->task(b);
    if (x.creation != y.creation) return x.creation < y.creation;
    if (x.uid != y.uid) return x.uid < y.uid;
    return a < b;
  }
};

/// What preempt and reclaim start from (preempt.go and reclaim.go build it the same way): the
/// queues that have a non-pending job passing JobValid, and the starving jobs among those —
/// per queue in job order, each with its Pending tasks in task order. Kept in an action's
/// member, so that its containers keep their storage from one session to the next.
class StarvingJobs {
 public:
  /// Walks the active jobs. `on_queue(q)` is called once for each queue when its first
  /// non-pending, valid job is seen. JobValid is asked only where its answer matters — for a
  /// starving job, and for a job of a queue that has no valid job yet — and JobStarving before
  /// it: both are pure.
  template <class OnQueue>
  void collect(const Session& ssn, OnQueue&& on_queue) {
    const ClusterState& st = ssn.state();
    const std::size_t nq = st.queues().size();
    has_queue_.assign(nq, 0);
    if (by_queue_.size() > nq) by_queue_.resize(nq, JobPQ(JobLess{&ssn}));
    for (JobPQ& pq : by_queue_) pq.reset(JobLess{&ssn});
    by_queue_.resize(nq, JobPQ(JobLess{&ssn}));
    jobs_.clear();
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (j.is_pending()) continue;
      const bool starving = ssn.job_starving(j);
      if (!starving && has_queue_[j.queue]) continue;
      if (!ssn.job_valid(j).pass) continue;
      if (!has_queue_[j.queue]) {
        has_queue_[j.queue] = 1;
        on_queue(j.queue);
      }
      if (!starving) continue;
      by_queue_[j.queue].push(jid);
      if (slot_of_.size() <= jid) slot_of_.resize(st.jobs().size());
      slot_of_[jid] = static_cast<std::uint32_t>(jobs_.size());
      if (jobs_.size() == tasks_.size()) tasks_.emplace_back(TaskLess{&ssn});
      pending_tasks_into(ssn, jid, PendingTasks::All, tasks_[jobs_.size()]);
      jobs_.push_back(jid);
    }
  }
  /// The starving jobs, in the order of the active jobs.
  const std::vector<JobId>& jobs() const { return jobs_; }
  /// Queue q's starving jobs in job order (the action pops and pushes them).
  JobPQ& of_queue(QueueId q) { return by_queue_[q]; }
  /// A starving job's Pending tasks not yet tried (the action pops them).
  TaskPQ& tasks_of(JobId j) { return tasks_[slot_of_[j]]; }

 private:
  std::vector<std::uint8_t> has_queue_;
  std::vector<JobPQ> by_queue_;
  std::vector<JobId> jobs_;
  std::vector<TaskPQ> tasks_;          // [0, jobs_.size()): per starving job, by slot
  std::vector<std::uint32_t> slot_of_; // job id -> its slot, valid for this session's starving jobs
};

}  // namespace mltwin::policy::detail
