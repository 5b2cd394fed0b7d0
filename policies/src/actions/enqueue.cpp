// enqueue action — Volcano v1.12.1 pkg/scheduler/actions/enqueue/enqueue.go.
// Queues in queue order; from each, the next Pending PodGroup in job order; it moves to Inqueue
// if it has no minResources or the plugins' JobEnqueueable vote permits; the queue goes back
// into the order after every job, until no queue has a pending job left. A rejected job stays
// Pending (the Volcano job controller creates its pods only once it is Inqueue).
//
// Speed without changing a decision: Volcano rebuilds a priority queue of every pending job
// each cycle. Here the action (which, as in Volcano, lives as long as the scheduler) keeps each
// queue's pending jobs in job order from one cycle to the next, re-checks that order with this
// session's JobOrderFn in one linear pass (re-sorting if any pair is out of order), and merges
// in the jobs that arrived since. Job order is a strict total order (it ends in creation time
// and UID), so walking the sorted list visits jobs exactly as popping Volcano's heap would.
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
    const std::size_t nq = st.queues().size();
    order_.resize(nq);
    if (cached_.size() < st.jobs().size()) cached_.resize(st.jobs().size(), 0);
    // Drop jobs that left Pending (enqueued last cycle) or the cluster.
    for (auto& v : order_)
      std::erase_if(v, [&](JobId j) {
        const JobInfo& job = st.job(j);
        const bool keep = job.live && job.phase == PodGroupPhase::Pending;
        if (!keep) cached_[j] = 0;
        return !keep;
      });
    std::vector<std::vector<JobId>> fresh(nq);
    for (JobId j : st.pending_jobs())
      if (!cached_[j]) {
        cached_[j] = 1;
        fresh[st.job(j).queue].push_back(j);
      }
    for (std::size_t q = 0; q < nq; ++q) {
      auto& v = order_[q];
      for (std::size_t i = 1; i < v.size(); ++i)
        if (!job_less(v[i - 1], v[i])) {
          std::sort(v.begin(), v.end(), job_less);
          break;
        }
      if (!fresh[q].empty()) {
        std::sort(fresh[q].begin(), fresh[q].end(), job_less);
        const auto mid = static_cast<std::ptrdiff_t>(v.size());
        v.insert(v.end(), fresh[q].begin(), fresh[q].end());
        std::inplace_merge(v.begin(), v.begin() + mid, v.end(), job_less);
      }
    }
    // Every queue that has jobs takes part (Volcano pushes the queue of every job).
    std::vector<QueueId> queue_list;
    for (const auto& q : st.queues())
      if (st.queue_job_count(q.id) > 0) queue_list.push_back(q.id);
    PriorityQueue<QueueId, decltype(queue_less)> queues(queue_less);
    queues.assign(std::move(queue_list));
    std::vector<std::size_t> next(nq, 0);
    QueueId q = kNone;
    for (;;) {
      // The queue goes back into the order after each job. If it still sorts before the best of
      // the others, popping the heap would hand it straight back: one comparison decides that.
      if (q == kNone || (!queues.empty() && !queue_less(q, queues.top()))) {
        if (q != kNone) queues.push(q);
        if (queues.empty()) break;
        q = queues.pop();
      }
      if (next[q] >= order_[q].size()) {  // drop the queue: nothing pending
        q = kNone;
        continue;
      }
      const JobId jid = order_[q][next[q]++];
      const JobInfo& j = st.job(jid);
      const Verdict verdict = j.has_min_resources ? ssn.job_enqueueable(j) : Verdict{};
      if (verdict.ok()) {
        ssn.job_enqueued(j);
        ssn.set_phase(jid, PodGroupPhase::Inqueue);
        ++ssn.stats().enqueued;
        ssn.set_job_reason(jid, Verdict{Code::Success, "enqueue", "Inqueue"});
      } else {
        ssn.set_job_reason(jid, verdict);
      }
    }
  }

 private:
  std::vector<std::vector<JobId>> order_;  // per queue: pending jobs in job order
  std::vector<std::uint8_t> cached_;       // job id -> listed in order_
};
}  // namespace
std::unique_ptr<Action> make_enqueue(const Arguments&) { return std::make_unique<Enqueue>(); }
}  // namespace mltwin::policy::detail
