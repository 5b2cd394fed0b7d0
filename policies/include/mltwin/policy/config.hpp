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
  /// The text as written, or `def` when absent.
  std::string get_string(const std::string& key, const std::string& def) const {
    const auto it = m_.find(key);
    return it == m_.end() ? def : it->second;
  }
  const std::map<std::string, std::string>& all() const { return m_; }

 private:
  std::map<std::string, std::string> m_;
};

/// The type of a plugin argument's value as the plugin reads it: Volcano framework.Arguments
/// GetInt, GetFloat64 (an integer is accepted too), GetBool; a Go duration string
/// (time.ParseDuration); any text.
enum class ArgType : std::uint8_t { Int, Float, Bool, Duration, Text };
/// "integer", "number", "boolean", "Go duration", "text".
MLTWIN_POLICY_EXPORT const char* to_string(ArgType t);
/// Why `value` (as written) is not of type `t` ("expected an integer, got 'ten'"), or "".
MLTWIN_POLICY_EXPORT std::string arg_type_problem(ArgType t, const std::string& value);
/// What a typed source (a scenario's JSON, a Python dict) holds for an argument before it
/// becomes text.
enum class ValueKind : std::uint8_t { Bool, Int, Float, String, Other };
/// "expected an integer" (etc.) if a value of `kind` may not be given for an argument of type
/// `t`, else "": a declared number or boolean is given as one, not as its text, and a duration
/// or text as a string. One rule for the scenario loader and the Python module.
MLTWIN_POLICY_EXPORT std::string arg_kind_problem(ArgType t, ValueKind kind);

/// One argument a plugin reads, as it declares it (register_plugin): the key, its type, its
/// default, and the upstream file that reads it.
struct MLTWIN_POLICY_EXPORT ArgSpec {
  /// As written in the configuration ("mostrequested.weight"); with `prefix`, every key that
  /// starts with it ("binpack.resources." matches "binpack.resources.nvidia.com/gpu").
  std::string key;
  ArgType type = ArgType::Text;
  std::string default_value;  ///< as text; "" when absent means off or none
  std::string source;         ///< the upstream file (and constant) that reads it, for docs and messages
  /// False: Volcano reads it, but what it weights or switches is not modelled here, so it
  /// changes nothing in mltwin (a warning says so).
  bool modelled = true;
  bool prefix = false;
  /// For an argument that is not modelled: what is missing ("pod affinity").
  std::string not_modelled;

  /// An argument the plugin reads: of(key, type, default as text ("" for none), source).
  static ArgSpec of(std::string key, ArgType type, std::string default_value, std::string source) {
    ArgSpec s;
    s.key = std::move(key);
    s.type = type;
    s.default_value = std::move(default_value);
    s.source = std::move(source);
    return s;
  }
  /// Makes `key` a prefix: the spec covers every key that starts with it.
  ArgSpec& as_prefix() {
    prefix = true;
    return *this;
  }
  /// Marks the argument as read by Volcano but not modelled: `what` is what is missing.
  ArgSpec& unmodelled(std::string what) {
    modelled = false;
    not_modelled = std::move(what);
    return *this;
  }
};

/// A problem with a plugin's arguments (SchedulerConfig::check_arguments).
struct MLTWIN_POLICY_EXPORT ArgIssue {
  /// Warning: Volcano would run and ignore it (an unknown key, a key whose subject mltwin does
  /// not model). Error: the plugin cannot read the value (a wrong type, a value it refuses).
  enum class Severity : std::uint8_t { Warning, Error };
  Severity severity = Severity::Warning;
  /// "tiers[1].plugins[4].arguments.mostrequested.wieght" (the key verbatim after "arguments.").
  std::string where;
  std::string message;
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
  /// Every plugin's arguments against what the plugin declares (register_plugin with specs):
  /// an unknown key is a Warning naming the known keys and the nearest one (Volcano ignores
  /// keys no plugin reads); a key Volcano reads whose subject mltwin does not model is a
  /// Warning; a value of the wrong type is an Error. Plugins registered without specs are not
  /// checked here. In configuration order.
  std::vector<ArgIssue> check_arguments() const;
};

/// Volcano's default configuration (pkg/scheduler/util.go DefaultSchedulerConf, v1.12.1):
/// actions "enqueue, allocate, backfill"; tiers [priority, gang, conformance] and
/// [overcommit, drf, predicates, proportion, nodeorder].
MLTWIN_POLICY_EXPORT SchedulerConfig volcano_default_config();

}  // namespace mltwin::policy
