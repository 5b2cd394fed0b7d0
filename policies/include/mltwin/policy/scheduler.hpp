// mltwin/policy/scheduler.hpp — the volcano-scheduler loop, one cycle at a time.
//
// Volcano runs runOnce every schedulePeriod (1 s). A trace replay spans months, so the
// Scheduler skips a cycle when nothing changed since the last session that itself changed
// nothing: the session would see the same state and decide the same (the only state a skipped
// session could advance is the node-tiebreak random stream, and only for allocations it would
// then discard). Time-dependent plugins ask for a wake-up through Session::request_wakeup.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <random>
#include <stdexcept>
#include <vector>

#include "mltwin/policy/backend.hpp"
#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/session.hpp"

namespace mltwin::policy {

struct MLTWIN_POLICY_EXPORT SchedulerStats {
  std::uint64_t sessions = 0;          ///< sessions opened (cycles that ran)
  std::uint64_t cycles_skipped = 0;    ///< run_once calls that found nothing changed
  SessionStats totals;                 ///< summed over sessions
};

/// A session decided differently from the same session run without the plugins' promises
/// (Scheduler::set_check_promises): some promise does not hold. what() gives the session, the
/// first decision that differs both ways, and the promises in force.
class MLTWIN_POLICY_EXPORT PromiseBroken : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

class MLTWIN_POLICY_EXPORT Scheduler {
 public:
  /// Validates `cfg` (unknown plugin or action names, bad period) and throws
  /// std::invalid_argument with the config path of the problem. `tiebreak_seed` seeds the
  /// stream that breaks node-score ties.
  Scheduler(SchedulerConfig cfg, std::uint64_t tiebreak_seed);

  /// True if a cycle at state.now() would open a session (something changed, or a plugin's
  /// wake-up time has come).
  bool needs_cycle(const ClusterState& state) const;
  /// One cycle (Volcano runOnce). Returns true if a session ran. Reports binds, evictions,
  /// PodGroup phase changes and changed job conditions to `backend`.
  ///
  /// Errors: what a session throws passes through — PluginError (a plugin's order is not a
  /// strict weak order, or a plugin's callback failed), or whatever a plugin's callback or the
  /// backend throws. The session is then abandoned (Session::abandon): the state holds what the
  /// backend was told (binds and evictions it received stay; pipelined tasks and refused binds
  /// are Pending again; PodGroup phases it has not heard are put back). In check mode,
  /// PromiseBroken (or what the shadow session throws) comes after the real session closed: its
  /// decisions stand, the job conditions are not reported. After any exception the actions are
  /// built afresh, as a volcano-scheduler restarted after a panic, and the next run_once runs a
  /// full session.
  bool run_once(ClusterState& state, Backend& backend);
  /// Check mode: every session also runs on a copy of the state with the plugins' promises
  /// ignored (Session::ignore_promises) and fresh action objects (no state kept between cycles),
  /// so that no shortcut is taken; its binds, evictions, PodGroup phase changes and job
  /// conditions must equal the real session's, else run_once throws PromiseBroken (before the
  /// conditions are reported). Much slower: the state is copied for every session (3,000 Philly
  /// jobs: 7 s instead of 0.4 s). Off by default; on when the library is built with the CMake
  /// option MLTWIN_CHECK_PROMISES.
  void set_check_promises(bool on) { check_promises_ = on; }
  bool check_promises() const { return check_promises_; }
  /// The node-score tie-break stream's state as text (std::mt19937_64's operator<<: libstdc++
  /// writes the 312 state words and its position): with set_tiebreak_state, a Scheduler
  /// elsewhere — mltwin-scheduler on a twin's snapshot — breaks the next session's ties as this
  /// one would.
  std::string tiebreak_state() const;
  /// Restores a state tiebreak_state() gave. Throws std::invalid_argument if `text` does not read
  /// as one.
  void set_tiebreak_state(const std::string& text);
  /// Earliest wake-up requested by a time-dependent plugin, INT64_MAX if none.
  TimeNs next_wakeup() const { return wakeup_; }
  const SchedulerStats& stats() const { return stats_; }
  /// The pairs of queues the last run_once's session ordered by the QueueOrderFn fallback
  /// (Session::queue_ties); empty when no session ran.
  const std::vector<Session::QueueTie>& last_queue_ties() const { return queue_ties_; }
  const SchedulerConfig& config() const { return cfg_; }
  /// The last reported condition of a job (ok if none).
  const Status& job_condition(JobId j) const;

 private:
  SchedulerConfig cfg_;
  /// After a cycle threw: new action objects (nothing kept between cycles), the next cycle runs.
  void start_afresh();
  std::unique_ptr<Action> build_action(std::size_t i) const;  // cfg_.actions[i] with its arguments
  std::vector<std::unique_ptr<Action>> actions_;  // created once, as Volcano does
  std::mt19937_64 rng_;
  SchedulerStats stats_;
  std::uint64_t clean_generation_ = UINT64_MAX;  // generation after a session that changed nothing
  TimeNs wakeup_ = INT64_MAX;
  std::vector<Status> conditions_;
  std::vector<Session::QueueTie> queue_ties_;
  ConditionLedger ledger_;  // lent to sessions (Session::use_ledger)
  bool check_promises_;  // default: on when the library is built with MLTWIN_CHECK_PROMISES
};

}  // namespace mltwin::policy
