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

/// Failed attempts of preempt and reclaim, remembered while no task moves. An attempt (one
/// preemptor's walk over the nodes) is a function of the state and of what the plugins read of
/// the preemptor; when they read only its spec (Session::task_answers_depend_only_on_spec,
/// and for reclaim victims that do not depend on the preemptor at all), two preemptors of the
/// same spec and scope make the same attempt. One that failed without moving any task is
/// remembered with its scope (the action's own key: the queue, and for preempt which pass);
/// a later preemptor of the same spec and scope fails the same way, and is not walked. The
/// caller decides when an attempt qualifies. (The node scores play no part in a failure.)
class FailedAttempts {
 public:
  /// Forget everything (at the start of an action's execute).
  void clear() {
    failed_.clear();
    version_ = kNone64;
  }
  /// True if a preemptor of pid's spec failed with this scope since the last task moved.
  bool known(const Session& ssn, std::uint8_t scope, QueueId q, TaskId pid) const {
    if (version_ != ssn.task_events()) return false;
    const ClusterState& st = ssn.state();
    for (const Failure& f : failed_)
      if (f.scope == scope && f.queue == q && same_spec(st, st.task(f.task), st.task(pid))) return true;
    return false;
  }
  /// pid's attempt failed and moved no task (ssn.task_events() as before it).
  void remember(const Session& ssn, std::uint8_t scope, QueueId q, TaskId pid) {
    if (version_ != ssn.task_events()) {
      failed_.clear();
      version_ = ssn.task_events();
    }
    failed_.push_back({scope, q, pid});
  }
  /// Everything TaskDependence::Spec lets a plugin read of a task and its job is equal.
  static bool same_spec(const ClusterState& st, const TaskInfo& a, const TaskInfo& b) {
    if (a.resreq != b.resreq || a.best_effort != b.best_effort || a.priority != b.priority ||
        a.preempt_never != b.preempt_never)
      return false;
    if (a.job != b.job) {  // tasks of one job (the usual case: a gang's next pod) share the job's part
      const JobInfo& ja = st.job(a.job);
      const JobInfo& jb = st.job(b.job);
      if (ja.queue != jb.queue || ja.priority != jb.priority) return false;
      if (!same_allocation(ja, jb)) return false;
    }
    return a.node_selector == b.node_selector && a.node_affinity == b.node_affinity && a.tolerations == b.tolerations;
  }

 private:
  /// ja.allocated + ja.pipelined == jb.allocated + jb.pipelined, without the sums when nothing is
  /// pipelined (adding a Resource without cpu, memory or scalars changes nothing).
  static bool same_allocation(const JobInfo& ja, const JobInfo& jb) {
    auto nothing = [](const Resource& r) { return r.milli_cpu == 0 && r.memory == 0 && r.scalars.empty(); };
    if (nothing(ja.pipelined) && nothing(jb.pipelined)) return ja.allocated == jb.allocated;
    return ja.allocated + ja.pipelined == jb.allocated + jb.pipelined;
  }
  static constexpr std::uint64_t kNone64 = UINT64_MAX;
  struct Failure {
    std::uint8_t scope;
    QueueId queue;
    TaskId task;
  };
  std::vector<Failure> failed_;  // while ssn.task_events() == version_
  std::uint64_t version_ = kNone64;
};

/// What preempt and reclaim start from (preempt.go and reclaim.go build it the same way): the
/// queues that have a non-pending, valid job, and the starving jobs among those — per queue in
/// job order, each with its Pending tasks in task order. Kept in an action's member, so that
/// its containers keep their storage from one session to the next.
class StarvingJobs {
 public:
  /// Walks the active jobs. JobValid is asked only where its answer matters — for a starving
  /// job, and for a job of a queue that has no valid job yet — and JobStarving before it: both
  /// are pure.
  void collect(const Session& ssn) {
    const ClusterState& st = ssn.state();
    const std::size_t nq = st.queues().size();
    has_queue_.assign(nq, 0);
    queues_.clear();
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
        queues_.push_back(j.queue);
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
  /// Leaves a copy of what collect() just found for a later action of the session (take()),
  /// in `store`, which the caller keeps so that its storage lasts from one session to the next.
  /// Not while the session ignores promises (Session::promises_ignored): the shadow session of
  /// --check-promises walks again, and so checks that the walk is a function of the state.
  void share(Session& ssn, StarvingJobs& store) const {
    if (ssn.promises_ignored()) return;
    store.copy_from(*this);
    ssn.shared<Shared>() = {&store, ssn.task_events(), ssn.state().generation()};
  }
  /// Takes the copy an earlier action of the session left (share()) if no task moved since
  /// (Session::task_events() and ClusterState::generation() as when it was left): collect()
  /// would find the same jobs and queues, in the same order — JobStarving, JobValid and the
  /// job and task orders are functions of the session's state. False if there is none.
  bool take(Session& ssn) {
    const Shared& left = ssn.shared<Shared>();
    if (!left.jobs || left.task_events != ssn.task_events() || left.generation != ssn.state().generation())
      return false;
    copy_from(*left.jobs);
    return true;
  }
  /// The queues with a non-pending, valid job, in the order of the active jobs.
  const std::vector<QueueId>& queues() const { return queues_; }
  /// The starving jobs, in the order of the active jobs.
  const std::vector<JobId>& jobs() const { return jobs_; }
  /// Queue q's starving jobs in job order (the action pops and pushes them).
  JobPQ& of_queue(QueueId q) { return by_queue_[q]; }
  /// A starving job's Pending tasks not yet tried (the action pops them).
  TaskPQ& tasks_of(JobId j) { return tasks_[slot_of_[j]]; }

 private:
  struct Shared {
    const StarvingJobs* jobs = nullptr;
    std::uint64_t task_events = 0, generation = 0;
  };
  /// What collect() left in `o`, copied into this one's storage (slot_of_ is set for the
  /// starving jobs only: it spans every job id).
  void copy_from(const StarvingJobs& o) {
    queues_ = o.queues_;
    by_queue_.resize(o.by_queue_.size(), JobPQ(JobLess{nullptr}));
    for (std::size_t q = 0; q < o.by_queue_.size(); ++q) by_queue_[q] = o.by_queue_[q];
    jobs_ = o.jobs_;
    if (tasks_.size() < jobs_.size()) tasks_.resize(jobs_.size(), TaskPQ(TaskLess{nullptr}));
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      tasks_[i] = o.tasks_[i];
      if (slot_of_.size() <= jobs_[i]) slot_of_.resize(o.slot_of_.size());
      slot_of_[jobs_[i]] = static_cast<std::uint32_t>(i);
    }
  }
  std::vector<std::uint8_t> has_queue_;
  std::vector<QueueId> queues_;
  std::vector<JobPQ> by_queue_;
  std::vector<JobId> jobs_;
  std::vector<TaskPQ> tasks_;          // [0, jobs_.size()): per starving job, by slot
  std::vector<std::uint32_t> slot_of_; // job id -> its slot, valid for this session's starving jobs
};

}  // namespace mltwin::policy::detail
