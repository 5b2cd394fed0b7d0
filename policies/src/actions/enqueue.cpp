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
//
// Once a memo decides a job before any plugin is called (Session::enqueue_memo_decides), the
// rejection runs no plugin code and changes nothing: then the action does not look the job up
// at all, does not re-compare the queue order (nothing it reads moved), and records the
// verdict only if the job does not already show it (the Scheduler's last reported condition,
// ConditionLedger::reported, mirrored in the job's entry). Jobs are grouped in classes of equal
// minResources, so that question is answered once per class, queue and memo size. On a backlog
// of thousands of jobs held back by overcommit, a cycle then costs a scan of small entries
// instead of a vote, a reason and a diff per job — and not even that: consecutive entries of
// the same class that show the same verdict form a run, whose start is kept as a bit per entry
// (refreshed from the first entry that moved when jobs come or go, and at the two entries
// around a job whose shown verdict changed), and a run the memo decides and whose jobs all
// show that verdict is passed over in one step.
#include <array>
#include <bit>
#include <cstring>
#include <unordered_map>

#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Enqueue final : public Action {
 public:
  std::string_view name() const override { return "enqueue"; }
  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    const EntryLess job_less{&ssn};
    const QueueLess queue_less{&ssn};
    const std::size_t nq = st.queues().size();
    order_.resize(nq);
    run_start_.resize(nq);
    if (listed_.size() < st.jobs().size()) listed_.resize(st.jobs().size(), 0), listed_in_.resize(st.jobs().size(), 0);
    // Follow the Pending set through the state's log: drop jobs that left, gather those that came.
    std::vector<std::vector<Entry>> fresh(nq);
    bool departures = false;
    const auto& log = st.pending_log();
    // (A cycle that a fault stopped midway leaves this half updated: Scheduler::run_once then
    // builds its actions afresh, and a new Enqueue starts from the set.)
    if (log_pos_ < st.pending_log_base()) {
      // Or entries were trimmed before this action read them (another scheduler on the state, or
      // a caller's release_removed()): ids may since have been reused. Start again from the set.
      for (auto& v : order_) v.clear();
      for (auto& bits : run_start_) bits.clear();
      std::fill(listed_.begin(), listed_.end(), kAbsent);
      for (JobId j : st.pending_jobs()) {
        const JobInfo& job = st.job(j);
        fresh[job.queue].push_back({j, job.has_min_resources ? class_of(job.min_resources) : kNoMin,
                                    reported(ssn.ledger(), j)});
        listed_[j] = kListed;
        listed_in_[j] = job.queue;
      }
      log_pos_ = st.pending_log_base() + log.size();
    }
    std::vector<JobId> renewed;
    departed_.clear();
    for (; log_pos_ < st.pending_log_base() + log.size(); ++log_pos_) {
      const auto [j, change] = log[log_pos_ - st.pending_log_base()];
      if (change == ClusterState::PendingChange::Renewed) {
        // An entry made in an earlier cycle holds the old queue and class: it goes, and a new one
        // is made below if the job is still Pending. (A fresh entry is made from the job as it is
        // now and needs nothing.)
        if (listed_[j] == kListed || listed_[j] == kLeft) {
          listed_[j] = kRenew;
          renewed.push_back(j);
          departed_.push_back(j);
          departures = true;
        }
        continue;
      }
      if (listed_[j] == kRenew) continue;  // settled below from the job's phase
      if (change == ClusterState::PendingChange::Entered) {
        if (listed_[j] == kLeft) {
          listed_[j] = kListed;  // left and came back since the last cycle: its entry is still there
        } else if (listed_[j] == kAbsent) {
          const JobInfo& job = st.job(j);
          fresh[job.queue].push_back({j, job.has_min_resources ? class_of(job.min_resources) : kNoMin,
                                      reported(ssn.ledger(), j)});
          listed_[j] = kListed;
          listed_in_[j] = job.queue;
        }
      } else if (listed_[j] == kListed) {
        listed_[j] = kLeft;
        departures = true;
        departed_.push_back(j);
      }
    }
    if (pos_.size() < listed_.size()) pos_.resize(listed_.size(), 0);
    // Per queue, the first entry that moved (positions and run starts are refreshed from there):
    // jobs come mostly at the end of a queue's order, so that refresh is short.
    constexpr std::size_t kUnmoved = SIZE_MAX;
    std::vector<std::size_t> moved_from(nq, kUnmoved);
    if (departures) {
      // Only the queues a job left are touched, from the first such job's entry (found by its
      // position; a job that came and left since the last cycle has no entry in order_ yet).
      for (JobId j : departed_) {
        if (!leaving(j)) continue;  // came back
        const QueueId q = listed_in_[j];
        const std::size_t p = pos_[j];
        if (p < order_[q].size() && order_[q][p].job == j) moved_from[q] = std::min(moved_from[q], p);
      }
      for (std::size_t q = 0; q < nq; ++q) {
        if (moved_from[q] == kUnmoved) continue;
        auto& v = order_[q];
        v.erase(std::remove_if(v.begin() + static_cast<std::ptrdiff_t>(moved_from[q]), v.end(),
                               [&](const Entry& e) { return gone(e.job); }),
                v.end());
      }
    }
    for (std::size_t q = 0; q < nq; ++q) std::erase_if(fresh[q], [&](const Entry& e) { return gone(e.job); });  // came and went
    for (JobId j : renewed) {
      if (listed_[j] == kRenew) listed_[j] = kAbsent;  // its old entry was not found: none to erase
      const JobInfo& job = st.job(j);
      if (listed_[j] != kAbsent || !job.live || !job.is_pending()) continue;
      fresh[job.queue].push_back({j, job.has_min_resources ? class_of(job.min_resources) : kNoMin, reported(ssn.ledger(), j)});
      listed_[j] = kListed;
      listed_in_[j] = job.queue;
    }
    // When every job order promises to be static for pending jobs without pods, last cycle's
    // order still holds — if it too was made while no Pending job had pods (a job that since
    // lost its pods may order differently now); otherwise check it pair by pair.
    const bool trust = st.pending_jobs_with_pods() == 0 && ordered_without_pods_ && ssn.job_order_static_while_pending();
    ordered_without_pods_ = st.pending_jobs_with_pods() == 0;
    for (std::size_t q = 0; q < nq; ++q) {
      auto& v = order_[q];
      for (std::size_t i = 1; !trust && i < v.size(); ++i)
        if (!job_less(v[i - 1], v[i])) {
          sort_checked(v, job_less);
          moved_from[q] = 0;
          break;
        }
      if (!fresh[q].empty()) {
        sort_checked(fresh[q], job_less);
        const std::size_t mid = v.size();
        v.insert(v.end(), fresh[q].begin(), fresh[q].end());
        moved_from[q] = std::min(moved_from[q], merge_tail_checked(v, mid, job_less));
      }
      if (moved_from[q] != kUnmoved) {
        for (std::size_t i = moved_from[q]; i < v.size(); ++i) pos_[v[i].job] = static_cast<std::uint32_t>(i);
        rebuild_runs(q, moved_from[q]);
      }
    }
    sync_shown(ssn);
    // With no reason set yet in this session (enqueue runs first), a job shows a verdict exactly
    // when its mirrored key matches.
    const bool no_reasons_yet = ssn.job_reasons().empty();
    // Every queue that has jobs takes part (Volcano pushes the queue of every job).
    std::vector<QueueId> queue_list;
    for (const auto& q : st.queues())
      if (st.queue_job_count(q.id) > 0) queue_list.push_back(q.id);
    QueuePQ queues(queue_less);
    queues.assign(std::move(queue_list));
    ssn.reset_enqueue_memo();
    ++epoch_;  // class verdicts of earlier sessions are void
    std::size_t memo_size = 0;
    std::vector<std::size_t> next(nq, 0);
    QueueId q = kNone;
    bool moved = true;  // whether anything may have changed since the queue order was last compared
    for (;;) {
      // The queue goes back into the order after each job. If it still sorts before the best of
      // the others, popping the heap would hand it straight back: one comparison decides that,
      // and none is needed if nothing changed since the last one.
      bool pop = q == kNone;
      if (!pop && moved && !queues.empty()) pop = !queue_less(q, queues.top());
      moved = false;
      if (pop) {
        if (q != kNone) queues.push(q);
        if (queues.empty()) break;
        q = queues.pop();
        ++epoch_;  // memos may be per queue
      }
      const std::vector<Entry>& v = order_[q];
      std::size_t& i = next[q];
      // The run of jobs the memo decides: no plugin runs and nothing changes, so neither the queue
      // order nor a class verdict can move while it lasts.
      if (ssn.enqueue_memo_size() != memo_size) {
        memo_size = ssn.enqueue_memo_size();
        ++epoch_;
      }
      // Entries come in runs of equal (class, shown): a run whose class the memo decides and
      // whose jobs all show that verdict already is passed over in one step.
      while (i < v.size() && v[i].cls != kNoMin) {
        const Entry& e = v[i];
        ClassVerdict& cv = class_verdict_[e.cls];
        if (cv.epoch != epoch_) {
          cv.epoch = epoch_;
          cv.decided = ssn.enqueue_memo_decides(q, class_min_[e.cls], cv.verdict);
          if (cv.decided) cv.key = ssn.condition_key(cv.verdict);
        }
        if (!cv.decided) break;
        const std::size_t end = run_end(q, i);
        if (e.shown == cv.key && no_reasons_yet) {
          i = end;
          continue;
        }
        for (; i < end; ++i)
          if (v[i].shown != cv.key || (!no_reasons_yet && ssn.job_reason(v[i].job) != nullptr))
            ssn.set_job_reason(v[i].job, cv.verdict);
      }
      if (i >= v.size()) {  // drop the queue: nothing pending
        q = kNone;
        continue;
      }
      const Entry e = v[i++];
      moved = true;
      const Verdict verdict = e.cls != kNoMin ? ssn.job_enqueueable_memo(e.job, q, class_min_[e.cls]) : Verdict{};
      if (verdict.ok()) {
        const JobInfo& j = st.job(e.job);
        ssn.job_enqueued(j);
        ssn.set_phase(e.job, PodGroupPhase::Inqueue);
        ++ssn.stats().enqueued;
        // A Permit that one plugin's vote decided (e.g. sla past its waiting time) is shown as
        // that plugin's; otherwise the job simply fit.
        ssn.set_job_reason(e.job, verdict.plugin.empty() ? Verdict{Code::Success, "enqueue", "Inqueue"} : verdict);
      } else {
        ssn.set_job_reason(e.job, verdict);
      }
    }
  }

 private:
  static constexpr std::uint32_t kNoMin = UINT32_MAX;
  struct Entry {
    JobId job;
    std::uint32_t cls;   // class of the PodGroup's spec.minResources (fixed for the job's life), or kNoMin
    std::uint64_t shown; // mirror of the ledger's reported key for the job (kept beside the order for the scan)
  };
  /// Job order over entries, for sort_checked / merge_tail_checked.
  struct EntryLess {
    const Session* ssn;
    bool operator()(const Entry& a, const Entry& b) const {
      return ssn->job_order(ssn->state().job(a.job), ssn->state().job(b.job));
    }
    [[noreturn]] void violated(const Entry& first, const Entry& second) const {
      ssn->job_order_violated(ssn->state().job(first.job), ssn->state().job(second.job));
    }
  };
  static std::uint64_t reported(const ConditionLedger& l, JobId j) { return j < l.reported.size() ? l.reported[j] : 0; }
  /// Brings every entry's `shown` up to the ledger: the jobs the latest report changed, or all
  /// entries if reports were missed or the ledger is another one.
  void sync_shown(const Session& ssn) {
    const ConditionLedger& l = ssn.ledger();
    if (&l == ledger_seen_ && l.reports == reports_seen_ + 1) {
      for (JobId j : l.changed)
        if (j < listed_.size() && listed_[j] == kListed) {
          const QueueId q = ssn.state().job(j).queue;
          order_[q][pos_[j]].shown = l.reported[j];
          touch_run(q, pos_[j]);
        }
    } else if (&l != ledger_seen_ || l.reports != reports_seen_) {
      for (std::size_t q = 0; q < order_.size(); ++q) {
        for (Entry& e : order_[q]) e.shown = reported(l, e.job);
        rebuild_runs(q);
      }
    }
    ledger_seen_ = &l;
    reports_seen_ = l.reports;
  }
  /// Runs of entries: bit i of run_start_[q] is set when entry i of order_[q] starts a run of
  /// equal (class, shown), i.e. i = 0 or entry i differs from entry i - 1. A change to entry i
  /// can only move the run starts at i and i + 1.
  static bool same_run(const Entry& a, const Entry& b) { return a.cls == b.cls && a.shown == b.shown; }
  void set_run_bit(QueueId q, std::size_t i) {
    const std::vector<Entry>& v = order_[q];
    const bool start = i == 0 || !same_run(v[i - 1], v[i]);
    std::uint64_t& w = run_start_[q][i >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (i & 63);
    w = start ? (w | bit) : (w & ~bit);
  }
  /// Recomputes the run starts of entries [from, end) (those before are unchanged).
  void rebuild_runs(QueueId q, std::size_t from = 0) {
    const std::vector<Entry>& v = order_[q];
    std::vector<std::uint64_t>& bits = run_start_[q];
    bits.resize((v.size() + 63) / 64);
    if (from >= v.size()) return;
    bits[from >> 6] &= (std::uint64_t{1} << (from & 63)) - 1;  // keep the bits below `from`
    std::fill(bits.begin() + static_cast<std::ptrdiff_t>((from >> 6) + 1), bits.end(), 0);
    for (std::size_t i = from; i < v.size(); ++i)
      bits[i >> 6] |= static_cast<std::uint64_t>(i == 0 || !same_run(v[i - 1], v[i])) << (i & 63);
  }
  void touch_run(QueueId q, std::size_t i) {
    set_run_bit(q, i);
    if (i + 1 < order_[q].size()) set_run_bit(q, i + 1);
  }
  /// The index after the run that holds entry i (the next run start, or the queue's size).
  std::size_t run_end(QueueId q, std::size_t i) const {
    const std::vector<std::uint64_t>& bits = run_start_[q];
    const std::size_t n = order_[q].size();
    std::size_t w = (i + 1) >> 6;
    if (w >= bits.size()) return n;
    std::uint64_t word = bits[w] & (~std::uint64_t{0} << ((i + 1) & 63));
    while (word == 0) {
      if (++w >= bits.size()) return n;
      word = bits[w];
    }
    return std::min(n, (w << 6) + static_cast<std::size_t>(std::countr_zero(word)));
  }
  std::vector<std::vector<std::uint64_t>> run_start_;  // per queue: the run starts of order_[q], as bits
  using Bits = std::vector<std::uint64_t>;
  /// The class of a minResources vector (the same names, equal bit patterns), created on first
  /// sight.
  std::uint32_t class_of(const Resource& min) {
    Bits& b = bits_scratch_;
    b.clear();
    min.for_each([&](ResourceName name, double v) {
      std::uint64_t x;
      std::memcpy(&x, &v, sizeof x);
      b.push_back(name.id());
      b.push_back(x);
    });
    auto it = class_ids_.find(b);
    const bool added = it == class_ids_.end();
    if (added) it = class_ids_.emplace(b, static_cast<std::uint32_t>(class_min_.size())).first;
    if (added) {
      class_min_.push_back(min);
      class_verdict_.emplace_back();
    }
    return it->second;
  }
  struct BitsHash {
    std::size_t operator()(const Bits& b) const {
      std::uint64_t h = 0xcbf29ce484222325ull;
      for (std::uint64_t x : b) h = (h ^ x) * 0x100000001b3ull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  /// A class's memo verdict, valid while epoch_ has not moved (same session, queue, memo size).
  struct ClassVerdict {
    std::uint64_t epoch = 0;
    bool decided = false;
    Verdict verdict;
    std::uint64_t key = 0;
  };
  std::unordered_map<Bits, std::uint32_t, BitsHash> class_ids_;
  Bits bits_scratch_;
  std::vector<Resource> class_min_;
  std::vector<ClassVerdict> class_verdict_;
  std::uint64_t epoch_ = 0;
  std::vector<std::vector<Entry>> order_;  // per queue: pending jobs in job order
  /// listed_[job]: kAbsent (not in order_), kListed, kLeft (left the Pending set; its entry is
  /// erased at the next cycle unless it comes back first).
  /// kRenew: its entry is to be replaced (ClusterState::PendingChange::Renewed).
  static constexpr std::uint8_t kAbsent = 0, kListed = 1, kLeft = 2, kRenew = 3;
  bool leaving(JobId j) const { return listed_[j] == kLeft || listed_[j] == kRenew; }
  bool gone(JobId j) {
    if (listed_[j] != kLeft && listed_[j] != kRenew) return false;
    listed_[j] = kAbsent;
    return true;
  }
  std::vector<std::uint8_t> listed_;
  std::vector<std::uint32_t> pos_;         // job id -> index in order_[its queue], while listed
  std::vector<QueueId> listed_in_;         // job id -> the queue whose order_ (or fresh list) holds its entry
  std::vector<JobId> departed_;            // this cycle: jobs whose entries went kLeft or kRenew
  const ConditionLedger* ledger_seen_ = nullptr;
  std::uint64_t reports_seen_ = 0;
  std::uint64_t log_pos_ = 0;              // the next pending-log entry to read (ClusterState::pending_log_base())
  bool ordered_without_pods_ = true;       // order_ was last put in order while no Pending job had pods
};
}  // namespace
std::unique_ptr<Action> make_enqueue(const Arguments&) { return std::make_unique<Enqueue>(); }
}  // namespace mltwin::policy::detail
