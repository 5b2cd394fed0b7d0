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
// PrePredicate. Tasks on a node are taken in task id order where Volcano ranges over a map.
//
// Work saved, same decisions: a node's reclaimees depend only on the preemptor's queue, so while
// no task moves (Session::task_events() unchanged) they, the room they would make and — when
// every Reclaimable plugin promised VictimDependence::NotOnPreemptor (gang, conformance and
// proportion do) — the plugins' victims among them are computed once per (node, queue) and
// reused for the queue's next preemptors. On the Philly preempt+reclaim scenario 17 million
// Reclaimable calls per run found enough victims 16 times: each starving task asked every node
// again although nothing had moved.
#include <unordered_map>

#include "victims.hpp"

namespace mltwin::policy::detail {
namespace {

class Reclaim final : public Action {
 public:
  std::string_view name() const override { return "reclaim"; }

  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    QueuePQ queues(QueueLess{&ssn});
    std::vector<std::uint8_t> has_queue(st.queues().size(), 0);
    std::vector<JobPQ> starving(st.queues().size(), JobPQ(JobLess{&ssn}));
    std::unordered_map<JobId, TaskPQ> preemptor_tasks;
    bool any = false;
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (j.is_pending()) continue;
      if (!ssn.job_valid(j).pass) continue;
      if (!has_queue[j.queue]) {
        has_queue[j.queue] = 1;
        queues.push(j.queue);
      }
      if (ssn.job_starving(j)) {
        starving[j.queue].push(jid);
        std::vector<TaskId> pending;
        for (TaskId t : j.tasks)
          if (st.task(t).status == TaskStatus::Pending) pending.push_back(t);
        TaskPQ pq(TaskLess{&ssn});
        pq.assign(std::move(pending));
        preemptor_tasks.emplace(jid, std::move(pq));
        any = true;
      }
    }
    if (!any) return;  // nothing starves: every pass below would find no job
    on_node_ = tasks_by_node(st);
    const bool reuse_victims = !ssn.reclaimable_depends_on_preemptor();
    memo_.assign(st.nodes().size() * st.queues().size(), Memo{});

    while (!queues.empty()) {
      const QueueId q = queues.pop();
      const QueueInfo& queue = st.queue(q);
      if (ssn.overused(queue)) continue;
      JobPQ& jobs = starving[q];
      if (jobs.empty()) continue;
      const JobId jid = jobs.pop();
      auto tit = preemptor_tasks.find(jid);
      if (tit == preemptor_tasks.end() || tit->second.empty() || !ssn.job_starving(st.job(jid))) continue;
      const TaskId tid = tit->second.pop();
      const TaskInfo& task = st.task(tid);
      if (!ssn.preemptive(queue, task)) continue;

      bool assigned = false;
      for (const NodeInfo& node : st.nodes()) {  // Volcano's ssn.NodeList order
        const NodeId nid = node.id;
        Memo& m = memo_[nid * st.queues().size() + q];
        if (m.version != ssn.task_events()) {  // the node's reclaimees for queue q, as of now
          m = Memo{};
          m.version = ssn.task_events();
          m.room = node.future_idle();
          for (TaskId t : on_node_[nid]) {
            const TaskInfo& other = st.task(t);
            if (other.node != nid || other.status != TaskStatus::Running || !other.preemptable) continue;
            const QueueId oq = st.job(other.job).queue;
            if (oq == q || !st.queue(oq).reclaimable) continue;
            m.reclaimees.push_back(t);
            m.room.add(other.resreq);
          }
        }
        if (m.reclaimees.empty()) continue;
        // Victims come out of the reclaimees (session.hpp): if even all of them cannot make room,
        // ValidateVictims fails whatever the plugins answer; skip the node without asking them.
        if (!task.resreq.less_equal(m.room)) continue;
        if (!preempt_predicate_passes(ssn, task, node)) continue;
        if (!reuse_victims || !m.asked) {
          m.victims = ssn.reclaimable(task, m.reclaimees);
          m.asked = true;
        }
        if (!victims_suffice(st, task, node, m.victims)) continue;
        std::vector<TaskId> victims = m.victims;
        VictimPQ order(VictimLess{&ssn, q});
        order.assign(std::move(victims));
        Resource reclaimed;
        while (!order.empty()) {
          // ssn.Evict: straight to the cluster.
          const TaskId victim = order.pop();
          Statement now(ssn);
          now.evict(victim, "reclaim");
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
      }
      if (assigned) jobs.push(jid);
      queues.push(q);
    }
  }

 private:
  /// One node's reclaimees for one queue's preemptors while task_events() == version, and the
  /// plugins' victims among them once asked.
  struct Memo {
    std::uint64_t version = UINT64_MAX;
    Resource room;  // the node's future-idle resources + every reclaimee's request
    std::vector<TaskId> reclaimees, victims;
    bool asked = false;
  };
  std::vector<std::vector<TaskId>> on_node_;
  std::vector<Memo> memo_;
};
}  // namespace
std::unique_ptr<Action> make_reclaim(const Arguments&) { return std::make_unique<Reclaim>(); }
}  // namespace mltwin::policy::detail
