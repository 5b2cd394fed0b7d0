// mltwin/k8s/scheduler_conf.hpp — the volcano-scheduler configuration as its users keep it (YAML):
// what `mltwin-scheduler --scheduler-conf` and a scenario's volcano.scheduler_config read.
// Errors throw InputError naming the file, line and column (1-based) and the YAML path, e.g.
//   volcano-scheduler.yaml:9:13: tiers[1].plugins[2].name: unknown plugin 'foo' (known: ...)
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/k8s/input.hpp"
#include "mltwin/policy/config.hpp"

namespace mltwin::k8s {

/// Reads the scheduler configuration: a ConfigMap (apiVersion v1) whose data key
/// `volcano-scheduler.conf` holds it — installer/helm/chart/volcano/templates/scheduler.yaml,
/// v1.12.1 — or the bare volcano-scheduler.conf file itself
/// (installer/helm/chart/volcano/config/volcano-scheduler.conf). Keys as Volcano's
/// pkg/scheduler/conf/scheduler_conf.go: `actions` (one comma-separated string, split and
/// trimmed as pkg/scheduler/util.go UnmarshalSchedulerConf does), `tiers[].plugins[]` with
/// `name`, `arguments` and the enable* switches, `configurations[]` (`name`, `arguments`).
/// `metrics`, `EnabledClusterOrder` and `enabledHyperNodeOrder` are read and ignored. Unknown
/// plugins and actions are errors (as in a scenario's JSON). The schedule period stays
/// Volcano's default (it is a command-line flag, not part of the file).
/// `warnings`, when given, gets what volcano_scheduler_config_json gives it.
policy::SchedulerConfig read_volcano_scheduler_config(const std::string& file, std::vector<std::string>* warnings = nullptr);

/// The same as the scenario's "volcano" keys: {"actions": [...], "tiers": [...],
/// "configurations": [...]} (only the keys the file sets). Errors as above.
/// `warnings`, when given, gets one line per SchedulerConfig::check_arguments() warning, at its
/// YAML place ("file:line:column: tiers[1].plugins[4].arguments.key: message").
nlohmann::json volcano_scheduler_config_json(const std::string& file, std::vector<std::string>* warnings = nullptr);

/// read_volcano_scheduler_config of `text` already read; `name` stands for the file in errors
/// and warnings (e.g. "snap.json (data.volcano-scheduler.conf of mltwin-system/mltwin-snapshot)").
policy::SchedulerConfig parse_volcano_scheduler_config(const std::string& text, const std::string& name,
                                                       std::vector<std::string>* warnings = nullptr);

/// A configuration as the volcano-scheduler.conf that reads back to it (the chart's shape:
/// `actions` one comma-separated string, `tiers[].plugins[]` with name, the enable* switches
/// set explicitly and the arguments as written, `configurations[]`). The schedule period is a
/// command-line flag, not part of the file.
std::string write_volcano_scheduler_conf(const policy::SchedulerConfig& cfg);

/// The scheduler configuration of the JSON form above (a scenario's "volcano" keys, already
/// checked against the scenario schema): Volcano's default for a key not given.
policy::SchedulerConfig scheduler_config_of(const nlohmann::json& volcano);

/// A plugin or action argument as text (Volcano keeps arguments as the YAML value).
std::string arg_text(const nlohmann::json& v);

}  // namespace mltwin::k8s
