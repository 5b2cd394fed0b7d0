#include "mltwin/policy/config.hpp"

#include <algorithm>
#include <stdexcept>

#include "mltwin/policy/session.hpp"

namespace mltwin::policy {

const char* ext_key(Ext e) {
  // Spelled as the yaml tags of conf.PluginOption (pkg/scheduler/conf/scheduler_conf.go).
  static const char* keys[] = {
      "enableJobOrder",   "enableHierarchy",   "enableJobReady",     "enableJobPipelined",
      "enableTaskOrder",  "enablePreemptable", "enableReclaimable",  "enablePreemptive",
      "enableQueueOrder", "enablePredicate",   "enableBestNode",     "enableNodeOrder",
      "enableTargetJob",  "enableReservedNodes", "enableJobEnqueued", "enabledVictim",
      "enableJobStarving", "enabledOverused",  "enabledAllocatable"};
  return keys[static_cast<int>(e)];
}

double Arguments::get_double(const std::string& key, double def) const {
  auto it = m_.find(key);
  if (it == m_.end()) return def;
  try {
    std::size_t pos = 0;
    double v = std::stod(it->second, &pos);
    if (pos != it->second.size()) throw std::invalid_argument("trailing text");
    return v;
  } catch (const std::exception&) {
    throw std::invalid_argument("argument '" + key + "': expected a number, got '" + it->second + "'");
  }
}

int Arguments::get_int(const std::string& key, int def) const {
  auto it = m_.find(key);
  if (it == m_.end()) return def;
  try {
    std::size_t pos = 0;
    int v = std::stoi(it->second, &pos);
    if (pos != it->second.size()) throw std::invalid_argument("trailing text");
    return v;
  } catch (const std::exception&) {
    throw std::invalid_argument("argument '" + key + "': expected an integer, got '" + it->second + "'");
  }
}

bool Arguments::get_bool(const std::string& key, bool def) const {
  auto it = m_.find(key);
  if (it == m_.end()) return def;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  throw std::invalid_argument("argument '" + key + "': expected true or false, got '" + it->second + "'");
}

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

std::string SchedulerConfig::validate() const {
  for (std::size_t i = 0; i < actions.size(); ++i)
    if (!action_registered(actions[i]))
      return "actions[" + std::to_string(i) + "]: unknown action '" + actions[i] +
             "' (known: " + join(registered_actions()) + ")";
  for (std::size_t t = 0; t < tiers.size(); ++t)
    for (std::size_t p = 0; p < tiers[t].plugins.size(); ++p)
      if (!plugin_registered(tiers[t].plugins[p].name))
        return "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(p) +
               "].name: unknown plugin '" + tiers[t].plugins[p].name +
               "' (known: " + join(registered_plugins()) + ")";
  // Plugin arguments: each plugin is built once with its own (as every session will build it);
  // a plugin refuses a bad argument by throwing std::invalid_argument("argument 'key': why").
  for (std::size_t t = 0; t < tiers.size(); ++t)
    for (std::size_t p = 0; p < tiers[t].plugins.size(); ++p) {
      const auto& opt = tiers[t].plugins[p];
      try {
        (void)make_plugin(opt.name, opt.arguments);
      } catch (const std::invalid_argument& e) {
        std::string where = "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(p) + "].arguments";
        std::string why = e.what();
        // "argument 'key': why" -> "...arguments.key: why"
        if (why.rfind("argument '", 0) == 0) {
          const auto close = why.find("': ");
          if (close != std::string::npos) {
            where += "." + why.substr(10, close - 10);
            why = why.substr(close + 3);
          }
        }
        return where + ": " + why;
      } catch (const std::exception& e) {
        return "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(p) + "] (" + opt.name + "): " + e.what();
      }
    }
  if (schedule_period_ns <= 0) return "schedulePeriod: must be positive";
  return {};
}

SchedulerConfig volcano_default_config() {
  SchedulerConfig c;
  c.actions = {"enqueue", "allocate", "backfill"};
  Tier t1, t2;
  for (const char* n : {"priority", "gang", "conformance"}) t1.plugins.push_back(PluginOption{n, {}, {}});
  for (const char* n : {"overcommit", "drf", "predicates", "proportion", "nodeorder"})
    t2.plugins.push_back(PluginOption{n, {}, {}});
  c.tiers = {t1, t2};
  return c;
}

}  // namespace mltwin::policy
