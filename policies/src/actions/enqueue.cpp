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
// When all job-order plugins promise their answer is static for pending jobs without pods
// (Session::add_job_order_fn), even the linear re-check is skipped. Votes go through
// Session::job_enqueueable_memo, which skips a plugin only where its monotonicity promise
// already determines its answer.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Enqueue final : public Action {
 public:
  std::string_view name() const override { return "enqueue"; }
  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    auto job_less = [&ssn, &st](const Entry& a, const Entry& b) { return ssn.job_order(st.job(a.job), st.job(b.job)); };
    auto queue_less = [&ssn, &st](QueueId a, QueueId b) { return ssn.queue_order(st.queue(a), st.queue(b)); };
    const std::size_t nq = st.queues().size();
    order_.resize(nq);
    if (listed_.size() < st.jobs().size()) listed_.resize(st.jobs().size(), 0);
    // Follow the Pending set through the state's log: drop jobs that left, gather those that came.
    std::vector<std::vector<Entry>> fresh(nq);
    bool departures = false;
    const auto& log = st.pending_log();
    for (; log_pos_ < log.size(); ++log_pos_) {
      const auto [j, entered] = log[log_pos_];
      if (entered) {
        if (listed_[j] == 0) {
          const JobInfo& job = st.job(j);
          fresh[job.queue].push_back({j, job.has_min_resources, job.min_resources});
        }
        listed_[j] = 1;
      } else if (listed_[j]) {
        listed_[j] = 0;
        departures = true;
      }
    }
    if (departures)
      for (auto& v : order_)
        std::erase_if(v, [&](const Entry& e) { return listed_[e.job] == 0; });
    for (std::size_t q = 0; q < nq; ++q)
      std::erase_if(fresh[q], [&](const Entry& e) { return listed_[e.job] == 0; });  // came and went
    // When every job order promises to be static for pending jobs without pods, last cycle's
    // order still holds; otherwise check it pair by pair.
    const bool trust = st.pending_jobs_with_pods() == 0 && ssn.job_order_static_while_pending();
    for (std::size_t q = 0; q < nq; ++q) {
      auto& v = order_[q];
      for (std::size_t i = 1; !trust && i < v.size(); ++i)
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
    ssn.reset_enqueue_memo();
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
      const Entry& e = order_[q][next[q]++];
      const Verdict verdict = e.has_min ? ssn.job_enqueueable_memo(e.job, q, e.min) : Verdict{};
      if (verdict.ok()) {
        const JobInfo& j = st.job(e.job);
        ssn.job_enqueued(j);
        ssn.set_phase(e.job, PodGroupPhase::Inqueue);
        ++ssn.stats().enqueued;
        ssn.set_job_reason(e.job, Verdict{Code::Success, "enqueue", "Inqueue"});
      } else {
        ssn.set_job_reason(e.job, verdict);
      }
    }
  }

 private:
  struct Entry {
    JobId job;
    bool has_min;
    Resource min;  // PodGroup spec.minResources: fixed for the job's life
  };
  std::vector<std::vector<Entry>> order_;  // per queue: pending jobs in job order
  std::vector<std::uint8_t> listed_;       // job id -> in order_
  std::size_t log_pos_ = 0;                // read position in ClusterState::pending_log()
};
}  // namespace
std::unique_ptr<Action> make_enqueue(const Arguments&) { return std::make_unique<Enqueue>(); }
}  // namespace mltwin::policy::detail
