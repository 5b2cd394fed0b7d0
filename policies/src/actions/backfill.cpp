// backfill action — Volcano v1.12.1 pkg/scheduler/actions/backfill/backfill.go.
// Places BestEffort pods (pods that request nothing) of non-Pending, valid jobs, Pending ones
// and those an earlier action pipelined (unpipelined first), in queue / job / task order: plugin predicates only (nothing to fit), then the best-scored node (ties at
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
    // pickUpPendingTasks: the BestEffort tasks of non-Pending, valid jobs that an earlier action
    // of the session pipelined (preempt, reclaim) are unpipelined and picked with the Pending
    // ones (backfill.go:143-158).
    // Every Pipelined task is in one of the session's kept statements: walk those, not every job.
    for (TaskId t : ssn.pipelined_tasks()) {
      const TaskInfo& task = st.task(t);
      if (!task.best_effort || task.status != TaskStatus::Pipelined) continue;
      const JobInfo& j = st.job(task.job);
      if (j.phase == PodGroupPhase::Pending || !ssn.job_valid(j).pass) continue;
      ssn.unpipeline(t);
    }
    QueueJobOrder& pick = pick_;
    pick.build(ssn, [&ssn](const JobInfo& j) {
      return j.pending_best_effort_num > 0 && j.phase != PodGroupPhase::Pending && ssn.job_valid(j).pass;
    });
    if (pick.queues.empty()) return;
    std::vector<TaskId> order;
    TaskPQ tasks(TaskLess{&ssn});
    while (!pick.queues.empty()) {
      JobPQ& jobs = pick.jobs[pick.queues.pop()];
      while (!jobs.empty())
        for (pending_tasks_into(ssn, jobs.pop(), PendingTasks::BestEffort, tasks); !tasks.empty();) order.push_back(tasks.pop());
    }
    std::vector<NodeId> fit, best;
    std::vector<double> scores;
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
      if (fit.empty()) {
        ssn.add_fit_failed_role(task);  // job.NodesFitErrors (backfill.go:76-80)
        continue;
      }
      if (fe) ssn.clear_fit_errors(tid);
      NodeId node = fit[0];
      if (fit.size() > 1) {
        ssn.prioritize_nodes(task, fit, scores);  // util.PrioritizeNodes over the predicate nodes
        best.clear();
        double best_score = -1.0;
        for (std::size_t i = 0; i < fit.size(); ++i) {
          const double sc = scores[i];
          if (sc > best_score) {
            best_score = sc;
            best.clear();
          }
          if (sc == best_score) best.push_back(fit[i]);
        }
        node = best.size() == 1 ? best[0] : best[ssn.rng()() % best.size()];
      }
      Statement stmt(ssn);
      stmt.allocate(tid, node);
      if (ssn.job_ready(st.job(task.job))) stmt.commit();
      else ssn.keep_until_close(std::move(stmt));
    }
  }

 private:
  QueueJobOrder pick_;  // rebuilt every session, its storage kept
};
}  // namespace
std::unique_ptr<Action> make_backfill(const Arguments&) { return std::make_unique<Backfill>(); }
}  // namespace mltwin::policy::detail
