#include "mltwin/policy/scheduler.hpp"

#include <stdexcept>

namespace mltwin::policy {

Scheduler::Scheduler(SchedulerConfig cfg, std::uint64_t tiebreak_seed) : cfg_(std::move(cfg)), rng_(tiebreak_seed) {
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
    auto it = cfg_.action_arguments.find(cfg_.actions[i]);
    try {
      actions_.push_back(make_action(cfg_.actions[i], it == cfg_.action_arguments.end() ? Arguments{} : it->second));
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

bool Scheduler::run_once(ClusterState& state, Backend& backend) {
  if (!needs_cycle(state)) {
    ++stats_.cycles_skipped;
    return false;
  }
  const std::uint64_t before = state.generation();
  std::vector<Action*> actions;
  for (auto& a : actions_) actions.push_back(a.get());
  Session ssn(state, backend, cfg_, rng_, stats_.sessions + 1, std::move(actions));
  ssn.use_ledger(&ledger_);
  ssn.run();
  ++stats_.sessions;
  const SessionStats& s = ssn.stats();
  stats_.totals.binds += s.binds;
  stats_.totals.pipelined += s.pipelined;
  stats_.totals.evictions += s.evictions;
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
    reported[jid] = key;
    ledger_.changed.push_back(jid);
    conditions_[jid] = Status{st.code, std::string(st.plugin), std::string(st.reason)};
    backend.job_condition(state.job(jid), conditions_[jid]);
  }
  // Clean only if the session changed nothing (then the next session would decide the same).
  clean_generation_ = (!ssn.changed() && state.generation() == before) ? state.generation() : UINT64_MAX;
  return true;
}

}  // namespace mltwin::policy
