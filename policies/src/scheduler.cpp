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
  ssn.use_reason_index(&reason_index_);
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
  // Report conditions that changed.
  if (conditions_.size() < state.jobs().size()) conditions_.resize(state.jobs().size());
  if (condition_key_.size() < state.jobs().size()) condition_key_.resize(state.jobs().size(), 0);
  // Thousands of waiting jobs get a verdict every cycle, mostly the same few texts: intern each
  // distinct text once per session (by the address the session's views point at), then compare
  // small integer keys per job instead of strings.
  std::vector<std::pair<std::string_view, std::uint32_t>> seen;
  auto intern = [&](std::string_view v) -> std::uint32_t {
    for (const auto& [sv, id] : seen)
      if (sv.data() == v.data() && sv.size() == v.size()) return id;
    auto [it, inserted] = text_ids_.emplace(std::string(v), static_cast<std::uint32_t>(text_ids_.size() + 1));
    seen.emplace_back(v, it->second);
    return it->second;
  };
  const char* last_plugin = nullptr;
  const char* last_reason = nullptr;
  std::size_t last_plugin_len = 0, last_reason_len = 0;
  std::uint32_t plugin_id = 0, reason_id = 0;
  for (const auto& [jid, st] : ssn.job_reasons()) {
    if (st.plugin.data() != last_plugin || st.plugin.size() != last_plugin_len) {
      plugin_id = intern(st.plugin);
      last_plugin = st.plugin.data();
      last_plugin_len = st.plugin.size();
    }
    if (st.reason.data() != last_reason || st.reason.size() != last_reason_len) {
      reason_id = intern(st.reason);
      last_reason = st.reason.data();
      last_reason_len = st.reason.size();
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(st.code) << 56) |
                              (static_cast<std::uint64_t>(plugin_id) << 32) | reason_id;
    if (condition_key_[jid] == key) continue;
    condition_key_[jid] = key;
    conditions_[jid] = Status{st.code, std::string(st.plugin), std::string(st.reason)};
    backend.job_condition(state.job(jid), conditions_[jid]);
  }
  // Clean only if the session changed nothing (then the next session would decide the same).
  clean_generation_ = (!ssn.changed() && state.generation() == before) ? state.generation() : UINT64_MAX;
  return true;
}

}  // namespace mltwin::policy
