// preempt action — Volcano v1.12.1 pkg/scheduler/actions/preempt/preempt.go.
//
// Preemptors are the starving jobs (Session::job_starving) among those whose PodGroup is not
// Pending and that pass JobValid, each with its Pending tasks in task order.
// 1. Between jobs, within a queue: take the queue's starving jobs in job order; for each, one
//    Statement; while the job still starves and has tasks, its next task tries to preempt
//    Bound/Running, preemptable tasks of *other* jobs of the same queue (preempt() below). The
//    statement commits if the job is then pipelined (JobPipelined), else it is discarded — the
//    evictions are undone and nothing reaches the cluster. A job whose last attempt placed its
//    task goes back into the queue's order.
// 2. Within a job: for every starving job, its Pending tasks again, each trying to preempt
//    tasks of its own job; each attempt's statement commits whatever it did (as Volcano's does,
//    even without a placement), and the job stops at its first task that could not be placed.
//    As in Volcano, this second phase sits inside the loop over queues, so it runs once per
//    queue that has jobs (a round that would repeat the previous one exactly is skipped), and
//    it refills the job's task queue that step 1 pops from: for the queues after the first,
//    step 1 starts after the tasks this round popped.
// preempt(task): over the nodes that pass PredicateForPreemptAction, best node score first,
// the plugins' Preemptable answer (tiered intersection) is the victim set on that node; it must
// pass ValidateVictims; victims are evicted in BuildVictimsPriorityQueue order (lowest first)
// until the preemptor's queue is Allocatable for it and it fits the node's future-idle
// resources; then the preemptor is pipelined there (it binds in a later cycle, once the
// victims are gone) and the search stops. Otherwise the evictions stay in the statement and
// the next node is tried.
//
// Where Volcano's order comes from a Go map (the queues, the starving jobs of phase 2, the
// tasks on a node, nodes of equal score), mltwin draws the queues' order from the session's
// tie-break stream (it decides which tasks step 1 sees) and fixes the others: jobs in job
// order, tasks on a node by task id, equal-score nodes by node id. Not modelled: a preemptor
// with preemptionPolicy Never, scheduling-gated pods, PrePredicate (no built-in plugin here has
// one), the predicate error cache (it only saves work).
#include <algorithm>
#include <span>

#include "victims.hpp"

namespace mltwin::policy::detail {
namespace {

/// Each queue's preemptees between jobs: its jobs' Bound or Running, preemptable tasks, in no
/// particular order (preempt() sorts each node's). Within a session no task becomes Bound or
/// Running except by undoing a change of this session (a discarded eviction), so the tasks that
/// can be victims later in the action are among those of its start. The lists are kept from one
/// session to the next: only the tasks in ClusterState::placement_log() since the last update
/// are looked at again (a task's preemptable flag and its job's queue change only through
/// update_task and update_job, which log it).
class QueuePreemptees {
 public:
  /// Brings the lists up to the state's present.
  void update(const ClusterState& st) {
    const std::uint64_t end = st.placement_log_base() + st.placement_log().size();
    if (!(lineage_ == st.lineage()) || read_ < st.placement_log_base() || lists_.size() != st.queues().size()) {
      rebuild(st);
    } else {
      const auto& log = st.placement_log();
      for (std::size_t i = read_ - st.placement_log_base(); i < log.size(); ++i) look_again(st, log[i]);
    }
    read_ = end;
  }
  /// Queue q's preemptees.
  std::span<const TaskId> of(QueueId q) const { return lists_[q]; }

 private:
  static constexpr std::uint32_t kOut = UINT32_MAX;
  /// A task of a job outside the session (its PodGroup gone) is none: preempt.go's filters look
  /// the task's job up in ssn.Jobs and return false when it is not found.
  static bool preemptee(const ClusterState& st, const TaskInfo& t) {
    return t.node != kNone && preemptable_status(t.status) && t.preemptable && t.job < st.jobs().size() &&
           st.job(t.job).live;
  }
  void rebuild(const ClusterState& st) {
    lineage_ = st.lineage();
    for (auto& v : lists_) v.clear();  // keeps their storage
    lists_.resize(st.queues().size());
    slot_.assign(st.tasks().size(), kOut);
    queue_of_.resize(st.tasks().size());
    for_each_task_on_a_node(
        st, [](const JobInfo& job) { return job.count(TaskStatus::Bound) + job.count(TaskStatus::Running) == 0; },
        preemptable_status,
        [&](const JobInfo& job, const TaskInfo& task) {
          if (task.preemptable) insert(task.id, job.queue);
        });
  }
  void look_again(const ClusterState& st, TaskId t) {
    const bool in = t < st.tasks().size() && preemptee(st, st.task(t));
    const QueueId q = in ? st.job(st.task(t).job).queue : kNone;
    if (t < slot_.size() && slot_[t] != kOut) {
      if (in && queue_of_[t] == q) return;
      erase(t);
    }
    if (in) insert(t, q);
  }
  void insert(TaskId t, QueueId q) {
    if (t >= slot_.size()) {
      slot_.resize(t + 1, kOut);
      queue_of_.resize(t + 1);
    }
    slot_[t] = static_cast<std::uint32_t>(lists_[q].size());
    queue_of_[t] = q;
    lists_[q].push_back(t);
  }
  void erase(TaskId t) {  // swap with the last
    std::vector<TaskId>& v = lists_[queue_of_[t]];
    const TaskId last = v.back();
    v[slot_[t]] = last;
    slot_[last] = slot_[t];
    v.pop_back();
    slot_[t] = kOut;
  }
  std::vector<std::vector<TaskId>> lists_;  // per queue
  std::vector<std::uint32_t> slot_;         // task id -> its index in its queue's list, or kOut
  std::vector<QueueId> queue_of_;           // task id -> the queue whose list holds it
  StateVersion lineage_;                    // the state read (default: none)
  std::uint64_t read_ = 0;                  // placement log entries read
};

class Preempt final : public Action {
 public:
  /// within_job_after_queues: the remedy for volcano#5140 (argument mltwin.withinJobAfterQueues).
  explicit Preempt(bool within_job_after_queues) : within_job_after_queues_(within_job_after_queues) {}
  std::string_view name() const override { return "preempt"; }

  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    preemptees_.update(st);
    starving_.collect(ssn);
    starving_.share(ssn, for_reclaim_);  // reclaim, if next, starts from the same jobs
    if (starving_.jobs().empty()) return;
    std::vector<QueueId>& queue_ids = queue_ids_;  // queues with a non-pending, valid job
    queue_ids.assign(starving_.queues().begin(), starving_.queues().end());
    std::vector<JobId>& under_request = under_request_;
    under_request.assign(starving_.jobs().begin(), starving_.jobs().end());
    sort_checked(queue_ids, QueueLess{&ssn});
    // Volcano ranges over `queues`, a Go map (preempt.go:63, 100-103): a random order at every
    // session. Which queue comes first matters, as the within-job round of each queue refills the
    // task queues the later queues' between-jobs passes pop from (step 2 above). mltwin draws the
    // order from the session's tie-break stream (Fisher-Yates over the queue order), so a seed
    // reproduces it and other seeds give Volcano's other orders.
    // The remedy (argument mltwin.withinJobAfterQueues, volcano PR #4613): queues in queue
    // order, and the within-job round once, after every queue's between-jobs pass.
    if (!within_job_after_queues_)
      for (std::size_t i = queue_ids.size(); i > 1; --i) std::swap(queue_ids[i - 1], queue_ids[ssn.rng()() % i]);
    sort_checked(under_request, JobLess{&ssn});
    within_round_start_ = kNoRound;
    spec_memo_ = ssn.task_answers_depend_only_on_spec();
    failed_.clear();
    for (std::size_t qi = 0; qi < queue_ids.size(); ++qi) {
      const QueueId q = queue_ids[qi];
      // Preemption between jobs within the queue.
      JobPQ& preemptors = starving_.of_queue(q);
      while (!preemptors.empty()) {
        const JobId jid = preemptors.pop();
        const JobInfo& job = st.job(jid);
        TaskPQ& tasks = starving_.tasks_of(jid);
        Statement stmt(ssn);
        bool assigned = false;
        while (ssn.job_starving(job) && !tasks.empty()) {
          const TaskId preemptor = tasks.pop();
          if (known_to_fail(ssn, Scope::BetweenJobs, q, preemptor)) {
            assigned = false;
            continue;
          }
          const std::uint64_t before = ssn.task_events();
          // The queue's preemptees, less the job's own tasks.
          assigned = preempt(ssn, stmt, preemptor, preemptees_.of(q), [&](const TaskInfo& t) { return t.job != jid; });
          if (!assigned && ssn.task_events() == before) remember_failure(ssn, Scope::BetweenJobs, q, preemptor);
        }
        if (ssn.job_pipelined(job)) {
          stmt.commit();
        } else {
          stmt.discard();
          continue;
        }
        if (assigned) preemptors.push(jid);
      }
      // Preemption between tasks within a job. Volcano (preempt.go:168-212) refills each
      // starving job's preemptorTasks queue here with its Pending tasks — the very queue the
      // between-jobs pass of a later queue pops from — and pops until a task is not placed: a
      // later queue's between-jobs pass then starts after the tasks this round popped (a job's
      // first Pending task is never a between-jobs preemptor unless its queue comes first;
      // docs/volcano.md, "Faithful to a fault: preempt's shared task queue").
      // This round is a function of the state only: if no task moved since the previous round
      // started (that round and the queue's between-jobs pass did nothing), it would refill
      // every job's queue with the same Pending tasks and pop as many as that round did, trying
      // nothing. It is skipped: each job's queue is already as that round left it, but for the
      // jobs of this queue, which its between-jobs pass popped from and which nothing reads
      // again this session (a job's queue is read by its own queue's between-jobs pass, and by
      // the within-job rounds, which refill it first).
      if (within_job_after_queues_ && qi + 1 < queue_ids.size()) continue;
      if (within_round_start_ != kNoRound && ssn.task_events() == within_round_start_) continue;
      within_round_start_ = ssn.task_events();
      for (const JobId jid : under_request) {
        TaskPQ& tasks = starving_.tasks_of(jid);
        pending_tasks_into(ssn, jid, PendingTasks::All, tasks);
        while (!tasks.empty()) {
          const TaskId preemptor = tasks.pop();
          const QueueId jq = st.job(jid).queue;
          if (known_to_fail(ssn, Scope::WithinJob, jq, preemptor)) break;
          const std::uint64_t before = ssn.task_events();
          Statement stmt(ssn);
          const bool assigned =
              preempt(ssn, stmt, preemptor, st.job(jid).tasks, [&](const TaskInfo& t) { return t.job == jid; });
          stmt.commit();
          if (!assigned && ssn.task_events() == before) remember_failure(ssn, Scope::WithinJob, jq, preemptor);
          if (!assigned) break;
        }
      }
    }
  }

 private:
  /// `scope`: every task the filter can accept is in it (the queue's or the job's tasks).
  template <class Filter>
  bool preempt(Session& ssn, Statement& stmt, TaskId pid, std::span<const TaskId> scope, Filter&& filter) {
    ClusterState& st = ssn.state();
    const TaskInfo& preemptor = st.task(pid);
    // taskEligibleToPreempt (preempt.go:233-235, 338-344): preemptionPolicy Never preempts nothing.
    if (preemptor.preempt_never) return false;
    const QueueInfo& queue = st.queue(st.job(preemptor.job).queue);
    auto eligible = [&](const TaskInfo& task, NodeId nid) {
      if (task.node != nid || !preemptable_status(task.status)) return false;
      if (preemptor.best_effort && !task.best_effort) return false;  // BestEffort never preempts others
      return task.preemptable && filter(task);
    };
    // The plugins choose victims out of the preemptees only (session.hpp), so on a node where
    // the future-idle resources plus *all* its preemptees cannot hold the preemptor,
    // ValidateVictims fails whatever the victims: the walk below would pass over that node
    // without any effect. Such nodes are left out before their predicate, score and victim
    // calls. With no preemptee anywhere (common: the job's own tasks are all Pending, or no
    // other job of the queue runs), a node is kept only where the preemptor fits as it is, and
    // nothing happens at all unless its queue is Allocatable for it.
    //
    // The preemptees on each node come from one pass over the scope (every task the filter can
    // accept is in it), each node's in creation and UID order (OnNodeOrder) where Volcano's node.Tasks would give them to
    // the plugins here (Volcano ranges over node.Tasks, a map); a node without any has an empty list.
    for (NodeId n : touched_) by_node_[n].clear();
    touched_.clear();
    by_node_.resize(st.nodes().size());
    for (TaskId t : scope) {
      const TaskInfo& task = st.task(t);
      if (task.node == kNone || !eligible(task, task.node)) continue;
      if (by_node_[task.node].empty()) touched_.push_back(task.node);
      by_node_[task.node].push_back(t);
    }
    const bool any_preemptee = !touched_.empty();
    if (!any_preemptee && !ssn.allocatable(queue, preemptor)) return false;
    for (NodeId n : touched_) std::sort(by_node_[n].begin(), by_node_[n].end(), OnNodeOrder{&st});
    // PredicateNodes, PrioritizeNodes, SortNodes: best score first. When a batch score is
    // normalised over the candidate set (nodeorder's TaintToleration with PreferNoSchedule
    // taints in the cluster), the nodes left out above still pass through the predicates and
    // the scoring, as in Volcano, and are dropped after it.
    const bool whole_set = ssn.batch_scores_depend_on_set();
    cands_.clear();
    has_room_.clear();
    for (const NodeInfo& n : st.nodes()) {
      bool has_room;
      if (by_node_[n.id].empty()) {
        has_room = preemptor.resreq.less_equal(st.future_idle(n.id));
      } else {
        room_ = st.future_idle(n.id);
        for (TaskId t : by_node_[n.id]) room_.add(st.task(t).resreq);
        has_room = preemptor.resreq.less_equal(room_);
      }
      if (!has_room && !whole_set) continue;
      if (!preempt_predicate_passes(ssn, preemptor, n)) continue;
      cands_.push_back(n.id);
      has_room_.push_back(has_room ? 1 : 0);
    }
    // Until the first eviction every node's victims are what preemptable() answers now, and a
    // node evicts only if they pass ValidateVictims: if they pass on no candidate, the walk
    // below evicts nothing and places nothing, in whatever order it goes. The scores are then
    // not needed.
    bool any_suffices = false;
    for (std::size_t i = 0; i < cands_.size() && !any_suffices; ++i)
      if (has_room_[i])
        any_suffices = victims_suffice(st, preemptor, st.node(cands_[i]), ssn.preemptable(preemptor, by_node_[cands_[i]]));
    if (!any_suffices) return false;
    if (ssn.has_node_order()) ssn.prioritize_nodes(preemptor, cands_, scores_);
    else scores_.assign(cands_.size(), 0.0);
    std::vector<std::pair<double, NodeId>> nodes;
    for (std::size_t i = 0; i < cands_.size(); ++i)
      if (has_room_[i]) nodes.emplace_back(scores_[i], cands_[i]);
    // Scores are finite (Session::prioritize_nodes checks), so this is a strict weak order.
    merge_sort(nodes, [](const auto& a, const auto& b) { return a.first > b.first; });

    for (const auto& scored : nodes) {
      const NodeId nid = scored.second;  // a plain variable: clang 14 cannot capture a structured binding
      const NodeInfo& node = st.node(nid);
      // Statuses move as victims are evicted on earlier nodes, but only on those nodes: this
      // node's list is as the pass above found it.
      VictimChoice choice;
      std::vector<TaskId> victims = ssn.preemptable(preemptor, by_node_[nid], &choice);
      if (!victims_suffice(st, preemptor, node, victims)) continue;
      VictimPQ queue_of_victims(VictimLess{&ssn});
      queue_of_victims.assign(std::move(victims));
      auto fits = [&] { return ssn.allocatable(queue, preemptor) && preemptor.resreq.less_equal(st.future_idle(nid)); };
      // preempt.go:281-310: `preempted` sums the victims' requests on this node; evictionOccurred
      // when the sum is not empty (it makes the preemptor's pod nominated to the node).
      bool eviction_occurred = false;
      while (!queue_of_victims.empty()) {
        if (fits()) break;
        const TaskId victim = queue_of_victims.pop();
        eviction_occurred = eviction_occurred || !st.task(victim).resreq.is_empty();
        stmt.evict(victim, "preempt", pid, choice);
      }
      if (fits()) {
        stmt.pipeline(pid, nid, eviction_occurred);
        return true;
      }
    }
    return false;
  }

  /// Failed attempts (FailedAttempts) apply between jobs to a preemptor whose job holds no Bound
  /// or Running task, so that the "other jobs" filter leaves the queue's preemptees whole; within
  /// a job that holds none there is no preemptee at all, and the same holds.
  enum class Scope : std::uint8_t { BetweenJobs, WithinJob };
  bool memo_applies(const ClusterState& st, const TaskInfo& t) const {
    if (!spec_memo_) return false;
    const JobInfo& j = st.job(t.job);
    return j.count(TaskStatus::Bound) == 0 && j.count(TaskStatus::Running) == 0;
  }
  bool known_to_fail(const Session& ssn, Scope scope, QueueId q, TaskId pid) const {
    return memo_applies(ssn.state(), ssn.state().task(pid)) &&
           failed_.known(ssn, static_cast<std::uint8_t>(scope), q, pid);
  }
  void remember_failure(const Session& ssn, Scope scope, QueueId q, TaskId pid) {
    if (memo_applies(ssn.state(), ssn.state().task(pid))) failed_.remember(ssn, static_cast<std::uint8_t>(scope), q, pid);
  }

  // Scratch kept from one session to the next (its storage, never its content).
  std::vector<QueueId> queue_ids_;
  std::vector<JobId> under_request_;
  StarvingJobs starving_;
  StarvingJobs for_reclaim_;  // a copy of starving_ as collected (StarvingJobs::share)
  const bool within_job_after_queues_;
  QueuePreemptees preemptees_;
  std::vector<std::vector<TaskId>> by_node_;  // preempt(): the eligible preemptees per node
  std::vector<NodeId> touched_;               // the nodes whose by_node_ list is not empty
  std::vector<NodeId> cands_;
  std::vector<std::uint8_t> has_room_;
  Resource room_;  // a node's future-idle resources plus its preemptees' requests
  std::vector<double> scores_;
  static constexpr std::uint64_t kNoRound = UINT64_MAX;
  std::uint64_t within_round_start_ = kNoRound;
  bool spec_memo_ = false;
  FailedAttempts failed_;
};
}  // namespace
std::unique_ptr<Action> make_preempt(const Arguments& args) {
  return std::make_unique<Preempt>(args.get_bool("mltwin.withinJobAfterQueues", false));
}
}  // namespace mltwin::policy::detail
