// sla plugin — Volcano v1.12.1 pkg/scheduler/plugins/sla/sla.go (design:
// docs/design/sla-plugin.md), rule by rule:
//
// - Waiting time of a job (readJobWaitingTime): its PodGroup's annotation
//   `volcano.sh/sla-waiting-time`, else `sla-waiting-time` (api/job_info.go extractWaitingTime,
//   read into JobInfo::sla_waiting_time by the world), else the plugin's global argument
//   `sla-waiting-time`, else none. Values are Go durations (time.ParseDuration, go_duration.hpp).
// - JobOrderFn: a job with a waiting time goes before one without; two jobs with one go in
//   order of creation + waiting time (the earlier deadline first); otherwise 0 (no opinion).
//   Fixed at submission, so static for pending jobs.
// - JobEnqueueableFn and JobPipelinedFn (one function, permitableFn): Permit once the job has
//   waited its waiting time since the PodGroup's creation (time.Since(CreationTimestamp) >= it),
//   otherwise Abstain; a job without one: Abstain. sla never rejects.
//   Time is the session's simulated now (ClusterState::now), never a clock.
//
// What its votes do depends on its tier, as in Volcano (framework/session_plugins.go): a
// Permit decides only if no plugin of its own or an earlier tier rejects. At enqueue this lets a
// job past its waiting time into Inqueue over overcommit's and proportion's rejections when sla
// sits in a tier before them (Volcano's default tiers put those in the second tier). At allocate,
// gang votes Reject on JobPipelined for every job whose gang is not complete (gang.go
// pipelinedFn), so with sla in gang's tier or after it — the placement of the design document
// and of Volcano's CI configuration — the Permit never counts and a job past its waiting time
// reserves nothing. In a tier of its own before gang's, the Permit decides: allocate keeps the
// idle resources it found for the job's pods in the session (the statement is neither committed
// nor discarded), so smaller jobs later in the cycle cannot take them (docs/volcano.md,
// tests/models/test_sla.cpp).
//
// Differences from Volcano, on purpose: an argument other than `sla-waiting-time`, a value Go
// cannot parse, a non-string value or one <= 0 is an error here (Volcano logs it and runs
// without a global waiting time). The PodGroup's creation time is the job's submission time to
// the nanosecond (Kubernetes stores creationTimestamp to the second).
//
// Cycles: the scheduler skips cycles in which nothing changed, so the plugin asks for a wake-up
// at the earliest deadline still to come among the jobs that wait (Session::request_wakeup).
#include <map>
#include <stdexcept>
#include <utility>

#include "../builtins.hpp"
#include "mltwin/policy/go_duration.hpp"

namespace mltwin::policy::detail {
namespace {
constexpr const char* kJobWaitingTime = "sla-waiting-time";

class Sla final : public Plugin {
 public:
  explicit Sla(const Arguments& a) {
    for (const auto& [key, value] : a.all()) {
      if (key != kJobWaitingTime) continue;  // Volcano ignores it too; check_arguments warns
      std::int64_t ns = 0;
      try {
        ns = parse_go_duration(value);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("argument 'sla-waiting-time': " + std::string(e.what()) +
                                    " (expected a Go duration string such as \"1h30m\"; units ns, us, ms, s, m, h)");
      }
      if (ns <= 0)
        throw std::invalid_argument("argument 'sla-waiting-time': " + value +
                                    " is not positive (Volcano ignores it, leaving no global waiting time; remove it instead)");
      global_ = ns;
    }
  }
  std::string_view name() const override { return "sla"; }

  void on_session_open(Session& ssn) override {
    const ClusterState& st = ssn.state();
    const TimeNs now = ssn.now();
    // readJobWaitingTime: the job's own, else the global one; 0: none.
    const TimeNs global = global_;
    auto jwt = [global](const JobInfo& j) { return j.sla_waiting_time > 0 ? j.sla_waiting_time : global; };
    // creation + waiting time; a waiting time beyond the representable range never comes.
    auto deadline = [jwt](const JobInfo& j) {
      const TimeNs w = jwt(j);
      return j.creation > INT64_MAX - w ? INT64_MAX : j.creation + w;
    };
    ssn.add_job_order_fn(
        [jwt, deadline](const JobInfo& l, const JobInfo& r) {
          const bool lw = jwt(l) > 0, rw = jwt(r) > 0;
          if (!lw) return rw ? 1 : 0;
          if (!rw) return -1;
          const TimeNs ld = deadline(l), rd = deadline(r);
          if (ld < rd) return -1;
          if (ld > rd) return 1;
          return 0;
        },
        /*static_while_pending=*/true);
    // permitableFn, registered for both votes (with the reason shown when the Permit decides).
    auto permitable = [this, now, jwt, deadline](bool enqueue) {
      return [this, now, jwt, deadline, enqueue](const JobInfo& j, std::string_view& reason) {
        const TimeNs w = jwt(j);
        if (w <= 0) return kAbstain;
        if (now < deadline(j)) return kAbstain;  // time.Since(creation) < jwt
        reason = text(w, enqueue);
        return kPermit;
      };
    };
    ssn.add_job_enqueueable_fn(permitable(true));
    ssn.add_job_pipelined_fn(permitable(false));

    // Wake the scheduler when the next waiting job reaches its deadline: Pending PodGroups
    // (enqueue) and jobs with pods still to place (allocate's pipelining).
    TimeNs next = INT64_MAX;
    auto consider = [&](const JobInfo& j) {
      if (jwt(j) <= 0) return;
      const TimeNs d = deadline(j);
      if (d > now && d < next) next = d;
    };
    for (JobId jid : st.pending_jobs()) consider(st.job(jid));
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (j.count(TaskStatus::Pending) > j.pending_best_effort_num) consider(j);
    }
    if (next != INT64_MAX) ssn.request_wakeup(next);
  }

 private:
  /// The reason shown when sla's Permit decides, one text per waiting time and vote (owned by
  /// the plugin, which lives as long as the session).
  std::string_view text(TimeNs w, bool enqueue) {
    auto [it, added] = texts_.try_emplace(std::make_pair(w, enqueue));
    if (added)
      it->second = "waited its sla-waiting-time (" + format_go_duration(w) + ") since the PodGroup's creation: " +
                   (enqueue ? std::string("Inqueue whatever the plugins of later tiers vote")
                            : std::string("allocate holds the idle resources found for its pods (pipelined) while "
                                          "its gang is incomplete"));
    return it->second;
  }
  TimeNs global_ = 0;
  std::map<std::pair<TimeNs, bool>, std::string> texts_;
};
}  // namespace
std::vector<ArgSpec> sla_arguments() {
  return {ArgSpec::of(kJobWaitingTime, ArgType::Duration, "", "pkg/scheduler/plugins/sla/sla.go:35 JobWaitingTime")};
}

std::unique_ptr<Plugin> make_sla(const Arguments& a) { return std::make_unique<Sla>(a); }
}  // namespace mltwin::policy::detail
