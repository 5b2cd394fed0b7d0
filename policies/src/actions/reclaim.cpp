// reclaim action — Volcano v1.12.1 pkg/scheduler/actions/reclaim/reclaim.go.
//
// A starving job takes resources back from *other* queues. Queues with a non-pending, valid job
// go into a priority queue (queue order); each starving job into its queue's job order, with its
// Pending tasks in task order. Repeatedly: pop the first queue; skip it if Overused; pop its
// next starving job and, if it still starves, its next task; the queue must be Preemptive for
// that task (proportion: Allocatable within deserved). Then over the nodes in node order that
// pass PredicateForPreemptAction, the reclaimees on a node are its Running, preemptable tasks of
// jobs in other queues whose Queue is reclaimable (spec.reclaimable, default true); the
// plugins' Reclaimable answer (tiered intersection) must pass ValidateVictims; victims are
// evicted in BuildVictimsPriorityQueue order until what was evicted covers the task's request
// (the node's idle resources are not counted here, as in Volcano); if it does, the task is
// pipelined on the node and the search stops. A job whose task was placed goes back into its
// queue's order; the queue always goes back (unless overused or out of starving jobs).
//
// Unlike preempt, reclaim evicts and pipelines directly on the session (ssn.Evict,
// ssn.Pipeline), not through a Statement: an eviction reaches the cluster at once, whether or
// not the task is then placed. Not modelled: preemptionPolicy Never, scheduling gates,
// PrePredicate. Tasks on a node are taken in creation and UID order (OnNodeOrder) where Volcano
// ranges over a map.
//
// Work saved, same decisions: a node's reclaimees depend only on the preemptor's queue, so while
// no task moves (Session::task_events() unchanged) they, the room they would make and — when
// every Reclaimable plugin promised VictimDependence::NotOnPreemptor (gang, conformance and
// proportion do) — the plugins' victims among them are computed once per (node, queue) and
// reused for the queue's next preemptors; a node whose victims are empty is then passed over by
// all of them without its predicates (with nothing to evict nothing is reclaimed, whatever the
// predicates say). On the Philly preempt+reclaim scenario 17 million Reclaimable calls per run
// found enough victims 16 times: each starving task asked every node again although nothing
// had moved. The lists of reclaimees themselves are kept across sessions, updated from the
// tasks ClusterState::placement_log() names (build_candidates). When, moreover, the predicates read only the preemptor's spec
// (Session::task_answers_depend_only_on_spec), a preemptor's whole walk is a function of its
// queue and spec: one that placed nothing and moved nothing is remembered (FailedAttempts),
// and the queue's later preemptors of the same spec skip the walk. The starving jobs are
// preempt's, when it ran just before and moved nothing (StarvingJobs::take).
#include <algorithm>

#include "victims.hpp"

namespace mltwin::policy::detail {
namespace {

class Reclaim final : public Action {
 public:
  std::string_view name() const override { return "reclaim"; }

  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    // Per-session queues in members that keep their storage between sessions.
    QueuePQ& queues = queues_;
    queues.reset(QueueLess{&ssn});
    if (!starving_.take(ssn)) starving_.collect(ssn);  // preempt's, if it ran and moved nothing
    for (QueueId q : starving_.queues()) queues.push(q);  // (the queue order notes its ties)
    if (starving_.jobs().empty()) return;  // nothing starves: every pass below would find no job
    cand_version_ = kStale;
    const bool reuse_victims = !ssn.reclaimable_depends_on_preemptor();
    // A preemptor's walk below is then a function of its queue and spec (FailedAttempts).
    const bool spec_memo = reuse_victims && ssn.task_answers_depend_only_on_spec();
    failed_.clear();
    memo_.resize(st.queues().size());
    for (QueueMemo& qm : memo_) qm.version = kStale;
    const Resource nothing{};

    while (!queues.empty()) {
      const QueueId q = queues.pop();
      const QueueInfo& queue = st.queue(q);
      if (ssn.overused(queue)) continue;
      JobPQ& jobs = starving_.of_queue(q);
      if (jobs.empty()) continue;
      const JobId jid = jobs.pop();
      TaskPQ& pending = starving_.tasks_of(jid);
      if (pending.empty() || !ssn.job_starving(st.job(jid))) continue;
      const TaskId tid = pending.pop();
      const TaskInfo& task = st.task(tid);
      if (task.preempt_never) {
        // reclaim.go:117-124: not eligible; the job and the queue go back, the task is spent.
        jobs.push(jid);
        queues.push(q);
        continue;
      }
      if (!ssn.preemptive(queue, task)) continue;
      // A preemptor of the same queue and spec walked the nodes since the last task moved and
      // placed nothing: this one would do the same (the job is not pushed back, as below).
      if (spec_memo && failed_.known(ssn, 0, q, tid)) {
        queues.push(q);
        continue;
      }
      const std::uint64_t before = ssn.task_events();
      // With nothing to evict, reclaimed stays empty and covers only a task that requests nothing.
      const bool needs_victims = !task.resreq.less_equal(nothing);

      bool assigned = false;
      QueueMemo& qm = refresh(ssn, q);
      // Volcano's ssn.NodeList order; the nodes without reclaimees for q are not in the list.
      for (std::size_t i = 0; i < qm.count;) {
        const NodeId nid = qm.nodes[i].node;
        Entry& m = qm.nodes[i].shared ? shared_[nid] : qm.nodes[i].own;
        ++i;
        if (m.useless && needs_victims) continue;
        const NodeInfo& node = st.node(nid);
        // Victims come out of the reclaimees (session.hpp): if even all of them cannot make room,
        // ValidateVictims fails whatever the plugins answer; skip the node without asking them.
        if (!task.resreq.less_equal(m.room)) continue;
        if (reuse_victims) {
          // The plugins' answer is the same for every preemptor of q while nothing moves: ask
          // once, and pass over a node where it is empty — nothing can be evicted there, so
          // nothing is reclaimed — before its predicates, which cannot change that outcome.
          if (!m.asked) {
            m.victims = ssn.reclaimable(task, m.reclaimees, &m.choice);
            m.asked = true;
          }
          if (m.victims.empty() && needs_victims) {
            m.useless = true;
            continue;
          }
          if (!preempt_predicate_passes(ssn, task, node)) continue;
        } else {
          if (!preempt_predicate_passes(ssn, task, node)) continue;
          m.victims = ssn.reclaimable(task, m.reclaimees, &m.choice);
        }
        if (!victims_suffice(st, task, node, m.victims)) continue;
        VictimPQ order(VictimLess{&ssn, q});
        order.assign(std::vector<TaskId>(m.victims));
        Resource reclaimed;
        while (!order.empty()) {
          // ssn.Evict: straight to the cluster.
          const TaskId victim = order.pop();
          Statement now(ssn);
          now.evict(victim, "reclaim", tid, m.choice);
          now.commit();
          reclaimed.add(st.task(victim).resreq);
          if (task.resreq.less_equal(reclaimed)) break;
        }
        if (task.resreq.less_equal(reclaimed)) {
          // ssn.Pipeline: in the session only, undone when it closes.
          Statement pipe(ssn);
          pipe.pipeline(tid, nid);
          ssn.keep_until_close(std::move(pipe));
          assigned = true;
          break;
        }
        // The evictions moved tasks: every node's reclaimees, room and victims are recomputed
        // as of now, and the walk goes on after this node.
        if (qm.version != ssn.task_events()) {
          refresh(ssn, q);
          i = 0;
          while (i < qm.count && qm.nodes[i].node <= nid) ++i;
        }
      }
      if (assigned) jobs.push(jid);
      else if (spec_memo && ssn.task_events() == before) failed_.remember(ssn, 0, q, tid);
      queues.push(q);
    }
  }

 private:
  /// A node's reclaimees for a queue's preemptors, the room they would make, and the plugins'
  /// victims among them once asked, as of the version of the memo that holds it.
  struct Entry {
    Resource room;  // the node's future-idle resources + every reclaimee's request
    std::vector<TaskId> reclaimees, victims;
    std::vector<Resource> requests;  // a queue's own entry: its reclaimees' requests, in order
    VictimChoice choice;  // the tier that chose `victims` (Eviction)
    bool asked = false;
    bool useless = false;  // asked, and no victim: passed over by every preemptor using it
  };
  /// One queue's node: its own entry if some reclaim candidate on the node is of the queue
  /// (they are not its reclaimees), else the node's shared entry, whose reclaimees are all the
  /// node's candidates — the same list for every such queue, and so (NotOnPreemptor) the same
  /// victims.
  struct NodeMemo {
    NodeId node = kNone;
    bool shared = false;
    Entry own;
  };
  /// One queue's nodes that have reclaimees for it, in node order, while task_events() == version;
  /// the lists (not the rooms or victims) while the candidates' lists_epoch_ == lists_epoch.
  struct QueueMemo {
    std::uint64_t version = kStale;
    std::uint64_t lists_epoch = kStale;
    std::vector<NodeMemo> nodes;  // the first `count` entries are in use
    std::size_t count = 0;
  };
  static constexpr std::uint64_t kStale = UINT64_MAX;

  /// Every node's reclaim candidates as of now — Running, preemptable tasks of jobs in reclaimable
  /// queues, in creation and UID order (OnNodeOrder; Volcano ranges over node.Tasks, a map) — in
  /// shared_[n].reclaimees, with their queues and requests summed. The lists are kept from one
  /// session to the next: only the tasks in ClusterState::placement_log() since the last build
  /// are looked at again (a task's preemptable flag, request and job queue change only through
  /// update_task and update_job, which log it), and a node's sums are redone when its list
  /// changed; a change of some queue's reclaimable flag rebuilds everything. The rooms and the
  /// plugins' answers are always recomputed.
  void build_candidates(const Session& ssn) {
    const ClusterState& st = ssn.state();
    cand_version_ = ssn.task_events();
    bool same = lineage_ == st.lineage() && read_ >= st.placement_log_base() && shared_.size() == st.nodes().size() &&
                reclaimable_.size() == st.queues().size();
    for (std::size_t q = 0; same && q < st.queues().size(); ++q) same = reclaimable_[q] == st.queues()[q].reclaimable;
    if (!same) {
      rebuild_candidates(st);
    } else {
      // The logged tasks come out of the lists, then those that are candidates now go back in
      // their places: the order a list keeps is that of its unchanged tasks.
      const auto& log = st.placement_log();
      const std::size_t from = read_ - st.placement_log_base();
      for (std::size_t i = from; i < log.size(); ++i) take_out(log[i]);
      for (std::size_t i = from; i < log.size(); ++i) put_back(st, log[i]);
      for (NodeId n : dirty_) {
        sum_node(st, n);
        is_dirty_[n] = 0;
      }
      if (!dirty_.empty()) ++lists_epoch_;
      dirty_.clear();
    }
    read_ = st.placement_log_base() + st.placement_log().size();
    for (const NodeInfo& node : st.nodes()) {
      Entry& e = shared_[node.id];
      e.victims.clear();
      e.asked = e.useless = false;
      e.room = st.future_idle(node.id);  // assigned, then added to: keeps the scalars' storage
      e.room.add(requests_on_[node.id]);
    }
  }
  bool candidate(const ClusterState& st, const TaskInfo& t) const {
    if (t.node == kNone || t.status != TaskStatus::Running || !t.preemptable || t.job >= st.jobs().size()) return false;
    const JobInfo& job = st.job(t.job);
    return job.live && reclaimable_[job.queue];
  }
  void rebuild_candidates(const ClusterState& st) {
    lineage_ = st.lineage();
    reclaimable_.resize(st.queues().size());
    for (std::size_t q = 0; q < st.queues().size(); ++q) reclaimable_[q] = st.queues()[q].reclaimable;
    shared_.resize(st.nodes().size());
    queues_on_.resize(st.nodes().size());
    requests_on_.resize(st.nodes().size());
    reclaimee_queues_.resize(st.nodes().size());
    is_dirty_.assign(st.nodes().size(), 0);
    dirty_.clear();
    cand_node_.assign(st.tasks().size(), kNone);
    for (Entry& e : shared_) e.reclaimees.clear();
    for_each_task_on_a_node(
        st, [&](const JobInfo& job) { return !reclaimable_[job.queue] || job.count(TaskStatus::Running) == 0; },
        [](TaskStatus s) { return s == TaskStatus::Running; },
        [&](const JobInfo&, const TaskInfo& task) {
          if (!task.preemptable) return;
          shared_[task.node].reclaimees.push_back(task.id);
          cand_node_[task.id] = task.node;
        });
    for (const NodeInfo& node : st.nodes()) {
      std::vector<TaskId>& list = shared_[node.id].reclaimees;
      std::sort(list.begin(), list.end(), OnNodeOrder{&st});
      sum_node(st, node.id);
    }
    ++lists_epoch_;
  }
  /// Task t out of its node's list, if in one.
  void take_out(TaskId t) {
    if (t >= cand_node_.size() || cand_node_[t] == kNone) return;
    const NodeId was = cand_node_[t];
    std::vector<TaskId>& list = shared_[was].reclaimees;
    list.erase(std::find(list.begin(), list.end(), t));
    cand_node_[t] = kNone;
    mark_dirty(was);
  }
  /// Task t into its node's list, in order, if it is a candidate now and not there yet.
  void put_back(const ClusterState& st, TaskId t) {
    if (t >= st.tasks().size() || !candidate(st, st.task(t))) return;
    if (t < cand_node_.size() && cand_node_[t] != kNone) return;  // logged twice
    const NodeId n = st.task(t).node;
    std::vector<TaskId>& list = shared_[n].reclaimees;
    list.insert(std::lower_bound(list.begin(), list.end(), t, OnNodeOrder{&st}), t);
    if (t >= cand_node_.size()) cand_node_.resize(t + 1, kNone);
    cand_node_[t] = n;
    mark_dirty(n);
  }
  void mark_dirty(NodeId n) {
    if (is_dirty_[n]) return;
    is_dirty_[n] = 1;
    dirty_.push_back(n);
  }
  /// Node n's candidates' requests summed in list order, their queues, and the distinct queues.
  void sum_node(const ClusterState& st, NodeId n) {
    requests_on_[n] = Resource{};
    reclaimee_queues_[n].clear();
    queues_on_[n].clear();
    for (TaskId t : shared_[n].reclaimees) {
      const TaskInfo& task = st.task(t);
      const QueueId q = st.job(task.job).queue;
      requests_on_[n].add(task.resreq);
      reclaimee_queues_[n].push_back(q);
      auto& qs = queues_on_[n];
      if (std::find(qs.begin(), qs.end(), q) == qs.end()) qs.push_back(q);
    }
  }

  /// The memo of queue q as of now: its rooms and victims recomputed if a task moved since they
  /// were, its node list and reclaimees rebuilt only if the candidate lists were (lists_epoch_).
  /// Entries keep their vectors' capacity from one build to the next.
  QueueMemo& refresh(Session& ssn, QueueId q) {
    QueueMemo& qm = memo_[q];
    if (qm.version == ssn.task_events()) return qm;
    if (cand_version_ != ssn.task_events()) build_candidates(ssn);
    const ClusterState& st = ssn.state();
    qm.version = ssn.task_events();
    if (qm.lists_epoch != lists_epoch_) {
      qm.lists_epoch = lists_epoch_;
      std::size_t used = 0;
      for (const NodeInfo& node : st.nodes()) {
        const Entry& all = shared_[node.id];
        if (all.reclaimees.empty()) continue;
        const auto& qs = queues_on_[node.id];
        const bool own_queue = std::find(qs.begin(), qs.end(), q) != qs.end();
        if (used == qm.nodes.size()) qm.nodes.emplace_back();
        NodeMemo& m = qm.nodes[used];
        m.node = node.id;
        m.shared = !own_queue;
        if (own_queue) {
          Entry& e = m.own;
          e.reclaimees.clear();
          e.requests.clear();
          const std::vector<QueueId>& queue_of = reclaimee_queues_[node.id];
          for (std::size_t k = 0; k < all.reclaimees.size(); ++k) {
            if (queue_of[k] == q) continue;
            e.reclaimees.push_back(all.reclaimees[k]);
            e.requests.push_back(st.task(all.reclaimees[k]).resreq);
          }
          if (e.reclaimees.empty()) continue;
        }
        ++used;
      }
      qm.count = used;  // the entries past it keep their storage for the next build
    }
    for (std::size_t i = 0; i < qm.count; ++i) {
      NodeMemo& m = qm.nodes[i];
      if (m.shared) continue;  // build_candidates reset the shared entry
      Entry& e = m.own;
      e.victims.clear();
      e.asked = e.useless = false;
      e.room = st.future_idle(m.node);
      for (const Resource& r : e.requests) e.room.add(r);
    }
    return qm;
  }

  // Scratch kept from one session to the next (its storage, never its content).
  QueuePQ queues_{QueueLess{nullptr}};
  StarvingJobs starving_;
  std::vector<Entry> shared_;  // per node, as of cand_version_
  std::vector<std::vector<QueueId>> queues_on_;  // per node: the queues of its candidates
  std::vector<Resource> requests_on_;             // per node: its candidates' requests, summed
  std::vector<std::vector<QueueId>> reclaimee_queues_;  // per node: each candidate's queue
  std::vector<std::uint8_t> reclaimable_;         // the queues' reclaimable flags the lists were built for
  std::vector<NodeId> cand_node_;                 // task id -> the node whose list holds it, or kNone
  std::vector<std::uint8_t> is_dirty_;            // per node: its list changed in this build
  std::vector<NodeId> dirty_;                     // those nodes
  StateVersion lineage_;                          // the state the lists are of (default: none)
  std::uint64_t read_ = 0;                        // placement log entries read
  std::uint64_t cand_version_ = kStale;
  std::uint64_t lists_epoch_ = 0;  // counts the builds of the candidate lists (never kStale)
  std::vector<QueueMemo> memo_;
  FailedAttempts failed_;
};
}  // namespace
std::unique_ptr<Action> make_reclaim(const Arguments&) { return std::make_unique<Reclaim>(); }
}  // namespace mltwin::policy::detail
