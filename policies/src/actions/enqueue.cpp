// enqueue action — Volcano v1.12.1 pkg/scheduler/actions/enqueue/enqueue.go.
// Queues in queue order; from each, the next Pending PodGroup in job order; it moves to Inqueue
// if it has no minResources or the plugins' JobEnqueueable vote permits; the queue goes back
// into the order after every job, until no queue has a pending job left. A rejected job stays
// Pending (the Volcano job controller creates its pods only once it is Inqueue).
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Enqueue final : public Action {
 public:
  std::string_view name() const override { return "enqueue"; }
  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    auto job_less = [&ssn, &st](JobId a, JobId b) { return ssn.job_order(st.job(a), st.job(b)); };
    auto queue_less = [&ssn, &st](QueueId a, QueueId b) { return ssn.queue_order(st.queue(a), st.queue(b)); };
    using JobPQ = PriorityQueue<JobId, decltype(job_less)>;
    std::vector<std::vector<JobId>> pending(st.queues().size());
    std::vector<bool> queue_seen(st.queues().size(), false);
    std::vector<QueueId> queue_list;
    // Every queue that has jobs takes part (Volcano pushes the queue of every job).
    for (const auto& q : st.queues())
      if (st.queue_job_count(q.id) > 0) queue_list.push_back(q.id);
    for (JobId j : st.pending_jobs()) pending[st.job(j).queue].push_back(j);
    PriorityQueue<QueueId, decltype(queue_less)> queues(queue_less);
    queues.assign(std::move(queue_list));
    std::vector<std::unique_ptr<JobPQ>> jobs(st.queues().size());
    for (std::size_t q = 0; q < pending.size(); ++q) {
      if (pending[q].empty()) continue;
      jobs[q] = std::make_unique<JobPQ>(job_less);
      jobs[q]->assign(std::move(pending[q]));
    }
    while (!queues.empty()) {
      const QueueId q = queues.pop();
      if (!jobs[q] || jobs[q]->empty()) continue;  // drop the queue: nothing pending
      const JobId jid = jobs[q]->pop();
      const JobInfo& j = st.job(jid);
      Status verdict = j.has_min_resources ? ssn.job_enqueueable(j) : Status::success();
      if (verdict.ok()) {
        ssn.job_enqueued(j);
        ssn.set_phase(jid, PodGroupPhase::Inqueue);
        ++ssn.stats().enqueued;
        ssn.set_job_reason(jid, Status{Code::Success, "enqueue", "Inqueue"});
      } else {
        ssn.set_job_reason(jid, std::move(verdict));
      }
      queues.push(q);
    }
  }
};
}  // namespace
std::unique_ptr<Action> make_enqueue(const Arguments&) { return std::make_unique<Enqueue>(); }
}  // namespace mltwin::policy::detail
