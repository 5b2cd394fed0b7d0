// backfill action — Volcano v1.12.1 pkg/scheduler/actions/backfill/backfill.go.
// Places BestEffort pods (pods that request nothing) of non-Pending, valid jobs, in queue /
// job / task order: plugin predicates only (nothing to fit), then the best-scored node (ties at
// random). Like Session.Allocate, the pod binds once its job is ready; otherwise the allocation
// lives until the session closes.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Backfill final : public Action {
 public:
  std::string_view name() const override { return "backfill"; }
  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    auto job_less = [&ssn, &st](JobId a, JobId b) { return ssn.job_order(st.job(a), st.job(b)); };
    auto queue_less = [&ssn, &st](QueueId a, QueueId b) { return ssn.queue_order(st.queue(a), st.queue(b)); };
    auto task_less = [&ssn, &st](TaskId a, TaskId b) { return ssn.task_order(st.task(a), st.task(b)); };
    // pickUpPendingTasks
    std::vector<std::vector<JobId>> per_queue(st.queues().size());
    std::vector<QueueId> queue_list;
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (j.pending_best_effort_num == 0 || j.phase == PodGroupPhase::Pending) continue;
      if (!ssn.job_valid(j).pass) continue;
      if (per_queue[j.queue].empty()) queue_list.push_back(j.queue);
      per_queue[j.queue].push_back(jid);
    }
    if (queue_list.empty()) return;
    std::vector<TaskId> order;
    PriorityQueue<QueueId, decltype(queue_less)> queues(queue_less);
    queues.assign(std::move(queue_list));
    while (!queues.empty()) {
      const QueueId q = queues.pop();
      PriorityQueue<JobId, decltype(job_less)> jobs(job_less);
      jobs.assign(std::move(per_queue[q]));
      while (!jobs.empty()) {
        const JobId jid = jobs.pop();
        PriorityQueue<TaskId, decltype(task_less)> tasks(task_less);
        std::vector<TaskId> v;
        for (TaskId t : st.job(jid).tasks)
          if (st.task(t).status == TaskStatus::Pending && st.task(t).best_effort) v.push_back(t);
        tasks.assign(std::move(v));
        while (!tasks.empty()) order.push_back(tasks.pop());
      }
    }
    std::vector<NodeId> fit, best;
    for (TaskId tid : order) {
      const TaskInfo& task = st.task(tid);
      fit.clear();
      FitErrors* fe = nullptr;
      for (const NodeInfo& n : st.nodes()) {
        Status s = ssn.predicate(task, n);
        if (s.ok()) {
          fit.push_back(n.id);
        } else {
          if (!fe) {
            fe = &ssn.fit_errors(tid);
            fe->nodes = static_cast<int>(st.nodes().size());
          }
          fe->add(s.reason);
        }
      }
      if (fit.empty()) continue;
      if (fe) ssn.clear_fit_errors(tid);
      NodeId node = fit[0];
      if (fit.size() > 1) {
        best.clear();
        double best_score = -1.0;
        for (NodeId n : fit) {
          const double sc = ssn.node_score(task, st.node(n));
          if (sc > best_score) {
            best_score = sc;
            best.clear();
          }
          if (sc == best_score) best.push_back(n);
        }
        node = best.size() == 1 ? best[0] : best[ssn.rng()() % best.size()];
      }
      Statement stmt(ssn);
      stmt.allocate(tid, node);
      if (ssn.job_ready(st.job(task.job))) stmt.commit();
      else ssn.keep_until_close(std::move(stmt));
    }
  }
};
}  // namespace
std::unique_ptr<Action> make_backfill(const Arguments&) { return std::make_unique<Backfill>(); }
}  // namespace mltwin::policy::detail
