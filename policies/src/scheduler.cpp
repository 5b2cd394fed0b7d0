#include "mltwin/policy/scheduler.hpp"

#include <sstream>

#include <functional>

#include <map>
#include <optional>
#include <stdexcept>

namespace mltwin::policy {

namespace {

/// What a session decided, in order: the backend calls that change the world.
struct DecisionLog final : Backend {
  Backend* forward = nullptr;  // the real backend (nullptr: record only)
  /// Check mode's shadow session: the real session's log, whose answers a bind or eviction the
  /// real session also made gets (so that a refused bind is refused in both), else success.
  const DecisionLog* replay = nullptr;
  std::vector<std::string> decisions;
  std::vector<CallResult> results;  // per decision: the answer it got (success for a phase change)
  CallResult answer(std::string decision, const std::function<CallResult()>& call) {
    CallResult r = CallResult::success();
    const std::size_t i = decisions.size();
    if (forward) r = call();
    else if (replay && i < replay->decisions.size() && replay->decisions[i] == decision) r = replay->results[i];
    decisions.push_back(std::move(decision));
    results.push_back(r);
    return r;
  }
  CallResult bind(const TaskInfo& task, const NodeInfo& node) override {
    return answer("bind pod " + task.name + " to node " + node.name, [&] { return forward->bind(task, node); });
  }
  CallResult evict(const TaskInfo& task, const Eviction& e) override {
    return answer("evict pod " + task.name + " (" + std::string(e.reason) + ")", [&] { return forward->evict(task, e); });
  }
  void podgroup_phase_changed(const JobInfo& job, PodGroupPhase from, PodGroupPhase to) override {
    decisions.push_back("PodGroup " + job.name + ": " + to_string(from) + " -> " + to_string(to));
    results.push_back(CallResult::success());
    if (forward) forward->podgroup_phase_changed(job, from, to);
  }
  void job_condition(const JobInfo& job, const Status& status) override {
    if (forward) forward->job_condition(job, status);
  }
};

std::string condition_text(const std::string& job, int code, std::string_view plugin, std::string_view reason) {
  return "job " + job + ": code " + std::to_string(code) + " by '" + std::string(plugin) + "': " + std::string(reason);
}

/// Each job's last reason of a session, as text ("job j: code 1 by 'gang': ...").
std::map<JobId, std::string> reasons_of(const Session& ssn, const ClusterState& st) {
  std::map<JobId, std::string> out;
  for (const auto& [jid, v] : ssn.job_reasons()) out[jid] = condition_text(st.job(jid).name, static_cast<int>(v.code), v.plugin, v.reason);
  return out;
}

}  // namespace

Scheduler::Scheduler(SchedulerConfig cfg, std::uint64_t tiebreak_seed) : cfg_(std::move(cfg)), rng_(tiebreak_seed) {
#ifdef MLTWIN_CHECK_PROMISES
  check_promises_ = true;
#else
  check_promises_ = false;
#endif
  if (std::string err = cfg_.validate(); !err.empty()) throw std::invalid_argument("scheduler configuration: " + err);
  // Plugin arguments are checked by building each plugin once.
  for (std::size_t t = 0; t < cfg_.tiers.size(); ++t)
    for (std::size_t p = 0; p < cfg_.tiers[t].plugins.size(); ++p) {
      const auto& opt = cfg_.tiers[t].plugins[p];
      try {
        (void)make_plugin(opt.name, opt.arguments);
      } catch (const std::exception& e) {
        throw std::invalid_argument("scheduler configuration: tiers[" + std::to_string(t) + "].plugins[" +
                                    std::to_string(p) + "] (" + opt.name + "): " + e.what());
      }
    }
  for (std::size_t i = 0; i < cfg_.actions.size(); ++i) {
    try {
      actions_.push_back(build_action(i));
    } catch (const std::exception& e) {
      throw std::invalid_argument("scheduler configuration: actions[" + std::to_string(i) + "] (" + cfg_.actions[i] +
                                  "): " + e.what());
    }
  }
}

bool Scheduler::needs_cycle(const ClusterState& state) const {
  return state.generation() != clean_generation_ || state.now() >= wakeup_;
}

const Status& Scheduler::job_condition(JobId j) const {
  static const Status kOk;
  return j < conditions_.size() ? conditions_[j] : kOk;
}

std::string Scheduler::tiebreak_state() const {
  std::ostringstream out;
  out << rng_;
  return out.str();
}

void Scheduler::set_tiebreak_state(const std::string& text) {
  std::istringstream in(text);
  std::mt19937_64 r;
  in >> r;
  char extra = 0;
  if (in.fail() || (in >> extra)) throw std::invalid_argument("not a tie-break state (what Scheduler::tiebreak_state() writes: std::mt19937_64's state words)");
  rng_ = r;
}

std::unique_ptr<Action> Scheduler::build_action(std::size_t i) const {
  const auto it = cfg_.action_arguments.find(cfg_.actions[i]);
  return make_action(cfg_.actions[i], it == cfg_.action_arguments.end() ? Arguments{} : it->second);
}

void Scheduler::start_afresh() {
  // A session stopped midway leaves what an action keeps between cycles (enqueue's ordered
  // Pending set and its place in the state's log, allocate's memo) half updated: build the
  // actions again, as a restarted volcano-scheduler would, and run the next cycle whatever changed.
  for (std::size_t i = 0; i < cfg_.actions.size(); ++i) actions_[i] = build_action(i);
  clean_generation_ = UINT64_MAX;
}

bool Scheduler::run_once(ClusterState& state, Backend& backend) {
  queue_ties_.clear();
  if (!needs_cycle(state)) {
    ++stats_.cycles_skipped;
    return false;
  }
  const std::uint64_t before = state.generation();
  std::vector<Action*> actions;
  for (auto& a : actions_) actions.push_back(a.get());
  // Check mode: the same session without promises, on copies (taken now) of what it may change;
  // it runs after the real session so that its binds and evictions get the answers the real
  // backend gave (a refused bind is refused in both).
  std::optional<ClusterState> copy;
  std::optional<std::mt19937_64> shadow_rng;
  std::optional<ConditionLedger> shadow_ledger;
  if (check_promises_) {
    copy.emplace(state);
    shadow_rng.emplace(rng_);
    shadow_ledger.emplace(ledger_);
  }
  // The pending log's entries up to here are read by enqueue in this session, the placement
  // log's by preempt and reclaim (both trimmed after it).
  const std::uint64_t log_read_by_session = state.pending_log_base() + state.pending_log().size();
  const std::uint64_t placements_read_by_session = state.placement_log_base() + state.placement_log().size();
  DecisionLog log;
  log.forward = &backend;
  // Whatever this cycle throws, the next starts with new actions; made before the session, so
  // that the session (which points at the actions) is gone first.
  struct AfreshOnThrow {
    Scheduler& s;
    const int unwinding = std::uncaught_exceptions();
    ~AfreshOnThrow() {
      if (std::uncaught_exceptions() > unwinding) s.start_afresh();
    }
  } afresh_on_throw{*this};
  Session ssn(state, check_promises_ ? static_cast<Backend&>(log) : backend, cfg_, rng_, stats_.sessions + 1, std::move(actions));
  ssn.use_ledger(&ledger_);
  try {
    ssn.run();
  } catch (...) {
    ssn.abandon();
    throw;
  }
  std::optional<DecisionLog> shadow_log;
  std::map<JobId, std::string> shadow_reasons;
  if (check_promises_) {
    shadow_log.emplace();
    shadow_log->replay = &log;
    Session shadow(*copy, *shadow_log, cfg_, *shadow_rng, stats_.sessions + 1);  // fresh actions: no state from earlier cycles
    shadow.use_ledger(&*shadow_ledger);
    shadow.ignore_promises();
    shadow.run();
    shadow_reasons = reasons_of(shadow, *copy);
  }
  if (check_promises_) {
    const std::vector<std::string>& a = log.decisions;
    const std::vector<std::string>& b = shadow_log->decisions;
    std::string problem;
    for (std::size_t i = 0; i < std::max(a.size(), b.size()) && problem.empty(); ++i)
      if (i >= a.size() || i >= b.size() || a[i] != b[i])
        problem = "decision #" + std::to_string(i + 1) + ": with the promises: " + (i < a.size() ? a[i] : "(none)") +
                  "; without them: " + (i < b.size() ? b[i] : "(none)");
    if (problem.empty()) {
      // The conditions the jobs show after the session: the session's reason, else the one
      // reported before (an action may leave a job whose verdict it knows unchanged unsaid).
      const auto reasons = reasons_of(ssn, state);
      auto shown = [&](JobId jid, const std::map<JobId, std::string>& said) {
        if (auto it = said.find(jid); it != said.end()) return it->second;
        const Status& c = job_condition(jid);
        return condition_text(state.job(jid).name, static_cast<int>(c.code), c.plugin, c.reason);
      };
      std::vector<JobId> jobs;
      for (const auto& [jid, text] : reasons) jobs.push_back(jid);
      for (const auto& [jid, text] : shadow_reasons) jobs.push_back(jid);
      for (JobId jid : jobs) {
        const std::string with = shown(jid, reasons), without = shown(jid, shadow_reasons);
        if (with != without) {
          problem = "the condition of a job: with the promises: " + with + "; without them: " + without;
          break;
        }
      }
    }
    if (!problem.empty()) {
      std::string promises;
      for (const auto& p : ssn.promises()) promises += (promises.empty() ? "" : "; ") + p;
      throw PromiseBroken("promise check: session " + std::to_string(stats_.sessions + 1) + " at t = " +
                          std::to_string(state.now()) + " ns decided differently without the plugins' promises (" +
                          problem + "). Promises in force: " + (promises.empty() ? "none" : promises) +
                          " — or an action's state kept between cycles is stale");
    }
  }
  ++stats_.sessions;
  queue_ties_ = ssn.queue_ties();
  const SessionStats& s = ssn.stats();
  stats_.totals.binds += s.binds;
  stats_.totals.pipelined += s.pipelined;
  stats_.totals.evictions += s.evictions;
  stats_.totals.bind_failures += s.bind_failures;
  stats_.totals.eviction_failures += s.eviction_failures;
  stats_.totals.enqueued += s.enqueued;
  stats_.totals.predicate_calls += s.predicate_calls;
  stats_.totals.statements_discarded += s.statements_discarded;
  wakeup_ = ssn.wakeup();
  // Report conditions that changed. Thousands of waiting jobs may get a verdict in a session,
  // mostly the same few texts: the session interns each distinct text once (by the address its
  // views point at), so the diff compares small integer keys per job instead of strings.
  if (conditions_.size() < state.jobs().size()) conditions_.resize(state.jobs().size());
  std::vector<std::uint64_t>& reported = ledger_.reported;
  if (reported.size() < state.jobs().size()) reported.resize(state.jobs().size(), 0);
  ++ledger_.reports;
  ledger_.changed.clear();
  for (const auto& [jid, st] : ssn.job_reasons()) {
    const std::uint64_t key = ssn.condition_key(st);
    if (reported[jid] == key) continue;
    conditions_[jid] = Status{st.code, std::string(st.plugin), std::string(st.reason)};
    backend.job_condition(state.job(jid), conditions_[jid]);
    reported[jid] = key;  // after the call: a report that threw is made again
    ledger_.changed.push_back(jid);
  }
  // Clean only if the session changed nothing (then the next session would decide the same).
  clean_generation_ = (!ssn.changed() && state.generation() == before) ? state.generation() : UINT64_MAX;
  // Every action has now seen the removals of this cycle: their ids may be reused, and what
  // this scheduler reported for a removed job must not stick to the next job with its id.
  state.trim_pending_log(log_read_by_session);
  state.trim_placement_log(placements_read_by_session);
  for (JobId jid : state.release_removed().jobs) {
    if (jid < conditions_.size()) conditions_[jid] = Status{};
    if (jid < reported.size() && reported[jid] != 0) {
      reported[jid] = 0;
      ledger_.changed.push_back(jid);
    }
  }
  ledger_.compact_texts();
  return true;
}

}  // namespace mltwin::policy
