// priority plugin — Volcano v1.12.1 pkg/scheduler/plugins/priority/priority.go.
// Task order and job order by priority (higher first); a task may preempt only lower-priority
// jobs' tasks (or lower-priority tasks of its own job); a job starves while fewer than all its
// tasks are ready or pipelined.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Priority final : public Plugin {
 public:
  std::string_view name() const override { return "priority"; }
  void on_session_open(Session& ssn) override {
    ssn.add_task_order_fn([](const TaskInfo& l, const TaskInfo& r) {
      if (l.priority == r.priority) return 0;
      return l.priority > r.priority ? -1 : 1;
    });
    // Priority is fixed at submission: static for pending jobs.
    ssn.add_job_order_fn(
        [](const JobInfo& l, const JobInfo& r) {
          if (l.priority > r.priority) return -1;
          if (l.priority < r.priority) return 1;
          return 0;
        },
        /*static_while_pending=*/true);
    const ClusterState* st = &ssn.state();
    ssn.add_preemptable_fn([st](const TaskInfo& preemptor, std::span<const TaskId> preemptees,
                                std::vector<TaskId>& victims) {
      const JobInfo& pj = st->job(preemptor.job);
      for (TaskId t : preemptees) {
        const TaskInfo& tt = st->task(t);
        const JobInfo& tj = st->job(tt.job);
        if (tj.id != pj.id) {
          if (tj.priority < pj.priority) victims.push_back(t);
        } else if (tt.priority < preemptor.priority) {
          victims.push_back(t);
        }
      }
      return kPermit;
    }, VictimDependence::OnPreemptorSpec);  // the preemptor's and its job's priority
    ssn.add_job_starving_fn([](const JobInfo& j) {
      return j.ready_task_num() + j.waiting_task_num() < j.task_num();
    });
  }
};
}  // namespace
std::unique_ptr<Plugin> make_priority(const Arguments&) { return std::make_unique<Priority>(); }
}  // namespace mltwin::policy::detail
