// mltwin/policy/config.hpp — the volcano-scheduler configuration: actions, tiers of plugins,
// plugin arguments under Volcano's own keys (pkg/scheduler/conf/scheduler_conf.go, v1.12.1).
#pragma once

#include "mltwin/policy/export.hpp"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mltwin::policy {

/// Volcano's per-extension-point switches of a plugin (conf.PluginOption). Unset means enabled,
/// except `hierarchy` (drf's hierarchical mode), which is off unless set.
enum class Ext : std::uint8_t {
  JobOrder, Hierarchy, JobReady, JobPipelined, TaskOrder, Preemptable, Reclaimable, Preemptive,
  QueueOrder, Predicate, BestNode, NodeOrder, TargetJob, ReservedNodes, JobEnqueued, Victim,
  JobStarving, Overused, Allocatable, kCount
};
/// The YAML key of a switch, spelled as Volcano spells it ("enableJobOrder", "enabledVictim").
MLTWIN_POLICY_EXPORT const char* ext_key(Ext e);

/// Plugin arguments (Volcano framework.Arguments): values kept as the text the user wrote.
class MLTWIN_POLICY_EXPORT Arguments {
 public:
  void set(std::string key, std::string value) { m_[std::move(key)] = std::move(value); }
  bool has(const std::string& key) const { return m_.count(key) != 0; }
  /// Parsed value, or `def` when absent. Throws std::invalid_argument naming the key and value
  /// when present but not a number.
  double get_double(const std::string& key, double def) const;
  int get_int(const std::string& key, int def) const;
  bool get_bool(const std::string& key, bool def) const;
  const std::map<std::string, std::string>& all() const { return m_; }

 private:
  std::map<std::string, std::string> m_;
};

struct MLTWIN_POLICY_EXPORT PluginOption {
  std::string name;
  std::array<std::optional<bool>, static_cast<std::size_t>(Ext::kCount)> enabled{};
  Arguments arguments;
  bool is_enabled(Ext e) const {
    const auto& v = enabled[static_cast<std::size_t>(e)];
    if (e == Ext::Hierarchy) return v.value_or(false);
    return v.value_or(true);
  }
};

struct MLTWIN_POLICY_EXPORT Tier {
  std::vector<PluginOption> plugins;
};

struct MLTWIN_POLICY_EXPORT SchedulerConfig {
  std::vector<std::string> actions;  ///< in execution order
  std::vector<Tier> tiers;
  /// Per-action arguments (Volcano `configurations`), keyed by action name.
  std::map<std::string, Arguments> action_arguments;
  /// schedulePeriod; Volcano's default is 1 s (cmd/scheduler/app/options/options.go).
  std::int64_t schedule_period_ns = 1'000'000'000;
  /// Checks that every action and plugin name is registered and that every plugin accepts its
  /// arguments; returns the first problem as "tiers[1].plugins[3].name: unknown plugin 'foo'
  /// (known: ...)" or "tiers[0].plugins[3].arguments.sla-waiting-time: time: unknown unit ..."
  /// (an argument error without a key: "...arguments: why"), or an empty string.
  std::string validate() const;
};

/// Volcano's default configuration (pkg/scheduler/util.go DefaultSchedulerConf, v1.12.1):
/// actions "enqueue, allocate, backfill"; tiers [priority, gang, conformance] and
/// [overcommit, drf, predicates, proportion, nodeorder].
MLTWIN_POLICY_EXPORT SchedulerConfig volcano_default_config();

}  // namespace mltwin::policy
