#include "mltwin/policy/config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/registry.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/spelling.hpp"

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

const char* to_string(ArgType t) {
  switch (t) {
    case ArgType::Int: return "integer";
    case ArgType::Float: return "number";
    case ArgType::Bool: return "boolean";
    case ArgType::Duration: return "Go duration";
    case ArgType::Text: return "text";
  }
  return "?";
}

std::string arg_kind_problem(ArgType t, ValueKind kind) {
  switch (t) {
    case ArgType::Int: return kind == ValueKind::Int ? "" : "expected an integer";
    case ArgType::Float: return kind == ValueKind::Int || kind == ValueKind::Float ? "" : "expected a number";
    case ArgType::Bool: return kind == ValueKind::Bool ? "" : "expected true or false";
    case ArgType::Duration: return kind == ValueKind::String ? "" : "expected a duration as a string such as \"300s\"";
    case ArgType::Text: return kind == ValueKind::String ? "" : "expected a string";
  }
  return "expected a value";
}

std::string arg_type_problem(ArgType t, const std::string& value) {
  const std::string got = "got '" + value + "'";
  switch (t) {
    case ArgType::Int: {
      // Volcano's GetInt wants a YAML integer (a Go int: 64 bits).
      std::size_t i = (!value.empty() && (value[0] == '-' || value[0] == '+')) ? 1 : 0;
      bool digits = i < value.size();
      for (std::size_t k = i; k < value.size(); ++k) digits = digits && value[k] >= '0' && value[k] <= '9';
      if (!digits) return "expected an integer, " + got;
      errno = 0;
      (void)std::strtoll(value.c_str(), nullptr, 10);
      if (errno == ERANGE) return "expected a 64-bit integer, " + got;
      return {};
    }
    case ArgType::Float: {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE || v != v) return "expected a number, " + got;
      return {};
    }
    case ArgType::Bool:
      return value == "true" || value == "false" ? std::string() : "expected true or false, " + got;
    case ArgType::Duration:
      try {
        (void)parse_go_duration(value);
        return {};
      } catch (const std::invalid_argument& e) {
        return std::string(e.what()) + " (expected a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h)";
      }
    case ArgType::Text:
      return {};
  }
  return {};
}

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const ArgSpec* spec_of(const std::vector<ArgSpec>& specs, const std::string& key) {
  for (const auto& s : specs)
    if (s.prefix ? key.size() > s.key.size() && key.compare(0, s.key.size(), s.key) == 0 : key == s.key) return &s;
  return nullptr;
}
}  // namespace

std::vector<ArgIssue> check_argument_keys(const std::string& owner, const std::vector<ArgSpec>& specs, const Arguments& args,
                                          const std::string& at, const UnknownKeyRule& unknown) {
  std::vector<ArgIssue> out;
  for (const auto& [key, value] : args.all()) {
    const ArgSpec* s = spec_of(specs, key);
    if (s == nullptr) {
      std::vector<std::string> known, keys;
      for (const auto& k : specs) {
        known.push_back(k.prefix ? k.key + "<name>" : k.key);
        keys.push_back(k.key);
      }
      std::string msg = owner + " reads no argument '" + key + "'" + unknown.consequence + did_you_mean(key, keys);
      msg += known.empty() ? " (it reads no arguments)" : " (it reads " + join(known) + ")";
      out.push_back({unknown.severity, at + key, msg});
      continue;
    }
    if (std::string why = arg_type_problem(s->type, value); !why.empty()) {
      out.push_back({ArgIssue::Severity::Error, at + key, why + " (" + s->source + ")"});
      continue;
    }
    if (!s->modelled)
      out.push_back({ArgIssue::Severity::Warning, at + key,
                     "Volcano reads it (" + s->source + "), but mltwin does not model " + s->not_modelled +
                         ": the run ignores it, so its decisions may differ from Volcano's"});
  }
  return out;
}

std::vector<ArgIssue> SchedulerConfig::check_arguments() const {
  std::vector<ArgIssue> out;
  const UnknownKeyRule ignored{ArgIssue::Severity::Warning, ": Volcano ignores it"};
  for (std::size_t t = 0; t < tiers.size(); ++t)
    for (std::size_t p = 0; p < tiers[t].plugins.size(); ++p) {
      const PluginOption& opt = tiers[t].plugins[p];
      const std::optional<std::vector<ArgSpec>> specs = plugin_arguments(opt.name);
      if (!specs) continue;
      const std::string at = "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(p) + "].arguments.";
      for (ArgIssue& i : check_argument_keys("plugin '" + opt.name + "'", *specs, opt.arguments, at, ignored))
        out.push_back(std::move(i));
    }
  return out;
}

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
  // Declared arguments of the wrong type.
  for (const ArgIssue& i : check_arguments())
    if (i.severity == ArgIssue::Severity::Error) return i.where + ": " + i.message;
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
