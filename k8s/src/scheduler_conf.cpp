// The volcano-scheduler configuration, read as Volcano reads it (mltwin/k8s/scheduler_conf.hpp).
#include "mltwin/k8s/scheduler_conf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "mltwin/k8s/yaml.hpp"

namespace mltwin::k8s {

using nlohmann::json;

std::string arg_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  // Exactly as written: an integer above 2^63 - 1 was read into a long long (18446744073709551615
  // became "-1"), and a double printed with six digits (0.1234567 became "0.123457"). fmt's
  // shortest round-trip form keeps the short ones as they were ("2" for 2.0).
  if (v.is_number_integer()) return v.dump();
  return fmt::format("{}", v.get<double>());
}

policy::SchedulerConfig scheduler_config_of(const json& v) {
  policy::SchedulerConfig cfg = policy::volcano_default_config();
  if (v.contains("actions")) cfg.actions = v["actions"].get<std::vector<std::string>>();
  if (v.contains("tiers")) {
    cfg.tiers.clear();
    for (const auto& t : v["tiers"]) {
      policy::Tier tier;
      for (const auto& p : t["plugins"]) {
        policy::PluginOption opt;
        opt.name = p["name"];
        if (p.contains("arguments"))
          for (auto a = p["arguments"].begin(); a != p["arguments"].end(); ++a) opt.arguments.set(a.key(), arg_text(a.value()));
        for (std::size_t e = 0; e < static_cast<std::size_t>(policy::Ext::kCount); ++e) {
          const char* key = policy::ext_key(static_cast<policy::Ext>(e));
          if (p.contains(key)) opt.enabled[e] = p[key].get<bool>();
        }
        tier.plugins.push_back(opt);
      }
      cfg.tiers.push_back(tier);
    }
  }
  if (v.contains("configurations"))
    for (const auto& c : v["configurations"]) {
      policy::Arguments args;
      if (c.contains("arguments"))
        for (auto a = c["arguments"].begin(); a != c["arguments"].end(); ++a) args.set(a.key(), arg_text(a.value()));
      cfg.action_arguments[c["name"]] = args;
    }
  return cfg;
}

namespace {

using namespace yaml;  // the typed layer (mltwin/k8s/yaml.hpp)

// ---- volcano-scheduler.conf ---------------------------------------------------------------

/// The scheduler configuration document (pkg/scheduler/conf/scheduler_conf.go, v1.12.1) ->
/// the scenario's "volcano" keys; `marks` gets the place of each name a validate() error can
/// name ("actions[i]", "tiers[t].plugins[p].name").
json scheduler_conf_json(const Y& doc, std::map<std::string, YamlPlace>& marks) {
  const M top(doc, {"actions", "tiers", "configurations"}, {"metrics"});
  json out = json::object();
  if (const Y* a = top.get("actions")) {
    // UnmarshalSchedulerConf: strings.Split(actions, ","), each strings.TrimSpace'd.
    const std::string text = a->str();
    json list = json::array();
    std::string part;
    std::stringstream ss(text);
    while (std::getline(ss, part, ',')) {
      const auto b = part.find_first_not_of(" \t\n\r");
      const auto e = part.find_last_not_of(" \t\n\r");
      const std::string name = b == std::string::npos ? std::string() : part.substr(b, e - b + 1);
      marks["actions[" + std::to_string(list.size()) + "]"] = a->at();
      list.push_back(name);
    }
    if (list.empty()) a->fail("expected a comma-separated list of actions, such as \"enqueue, allocate, backfill\"");
    out["actions"] = list;
  }
  if (const Y* t = top.get("tiers")) {
    json tiers = json::array();
    for (const Y& tier : t->list()) {
      const M tm(tier, {"plugins"});
      json plugins = json::array();
      for (const Y& p : tm.req("plugins").list()) {
        // PluginOption: name, arguments and the per-extension-point switches under their yaml tags.
        std::vector<const char*> known = {"name", "arguments"};
        for (std::size_t e = 0; e < static_cast<std::size_t>(policy::Ext::kCount); ++e)
          known.push_back(policy::ext_key(static_cast<policy::Ext>(e)));
        const M pm(p, {}, {"EnabledClusterOrder", "enabledHyperNodeOrder"}, true);
        for (const auto& [k, v] : pm.entries)
          if (std::find_if(known.begin(), known.end(), [&k = k](const char* kk) { return k == kk; }) == known.end()) {
            std::string msg = "unknown key '" + k + "' (Volcano v1.12.1 ignores it, so it changes nothing; mltwin reads ";
            for (std::size_t i = 0; i < known.size(); ++i) msg += std::string(i ? ", " : "") + known[i];
            fail_at(pm.key_at(k, v), msg + ")");
          }
        json opt = json::object();
        const Y& name = pm.req("name");
        opt["name"] = name.str();
        marks[tier.path + ".plugins[" + std::to_string(plugins.size()) + "].name"] = name.at();
        if (const Y* args = pm.get("arguments")) {
          json a = json::object();
          const std::string at = tier.path + ".plugins[" + std::to_string(plugins.size()) + "].arguments";
          marks[at] = args->at();
          for (const auto& [k, v] : M(*args, {}, {}, true).entries) {
            a[k] = v.scalar_text();
            marks[at + "." + k] = v.at();  // where a plugin's refusal of this argument points
          }
          opt["arguments"] = a;
        }
        for (const auto& [k, v] : pm.entries)
          if (k != "name" && k != "arguments") opt[k] = v.boolean();
        plugins.push_back(opt);
      }
      tiers.push_back({{"plugins", plugins}});
    }
    out["tiers"] = tiers;
  }
  if (const Y* c = top.get("configurations")) {
    json confs = json::array();
    for (const Y& conf : c->list()) {
      const M cm(conf, {"name", "arguments"});
      json entry = {{"name", cm.req("name").str()}};
      if (const Y* args = cm.get("arguments")) {
        json a = json::object();
        for (const auto& [k, v] : M(*args, {}, {}, true).entries) a[k] = v.scalar_text();
        entry["arguments"] = a;
      }
      confs.push_back(entry);
    }
    out["configurations"] = confs;
  }
  // Volcano reads the file as it is: a file without tiers runs no plugins, one without
  // actions does nothing (the default configuration applies only when there is no file).
  if (!out.contains("tiers")) out["tiers"] = json::array();
  if (!out.contains("actions")) doc.fail("missing required key 'actions' (without actions the scheduler does nothing)");
  return out;
}

struct SchedulerConfRead {
  json doc;
  std::map<std::string, YamlPlace> marks;
};

SchedulerConfRead read_scheduler_conf(const std::string& text, const std::string& file) {
  Src src(file);
  const Y doc{&src, single_document(src, text, "the volcano-scheduler ConfigMap or its volcano-scheduler.conf"), ""};
  SchedulerConfRead out;
  if (!doc.node.IsMap() || !doc.node["kind"]) {  // the bare volcano-scheduler.conf
    out.doc = scheduler_conf_json(doc, out.marks);
    return out;
  }
  const auto [api, kind] = type_of(doc);
  if (kind != "ConfigMap" || api != "v1")
    doc.child("kind", doc.node["kind"])
        .fail("expected a ConfigMap (apiVersion v1) holding volcano-scheduler.conf, got " + kind + " (apiVersion " + api + ")");
  const M top(doc, {"apiVersion", "kind", "metadata", "data"});
  // The chart mounts the ConfigMap's `volcano-scheduler.conf` key as the scheduler's
  // --scheduler-conf file (installer/helm/chart/volcano/templates/scheduler.yaml); other keys
  // are other files, which the scheduler does not read.
  const M data(top.req("data"), {}, {}, true);
  const Y* conf = data.get("volcano-scheduler.conf");
  if (!conf) data.y.fail("missing the key 'volcano-scheduler.conf' (the file the Volcano chart passes to --scheduler-conf)");
  const std::string embedded = conf->str();
  // A block scalar (`|`) keeps the embedded lines as they are, shifted by the indentation:
  // errors inside point at the file's own line and column. Otherwise (a quoted string) they
  // point at the string.
  Src inner(file);
  const YAML::Mark m = conf->node.Mark();
  const std::size_t pos = m.pos >= 0 ? static_cast<std::size_t>(m.pos) : std::string::npos;
  if (pos < text.size() && text[pos] == '|') {
    std::size_t line_start = text.find('\n', pos);
    inner.line0 = m.line + 1;
    // Blank lines before the first content line count as embedded lines too; the indentation
    // is that of the first line that is not blank.
    for (std::size_t p = line_start; p != std::string::npos && p + 1 < text.size(); p = text.find('\n', p + 1)) {
      std::size_t q = p + 1;
      while (q < text.size() && text[q] == ' ') ++q;
      if (q < text.size() && text[q] != '\n' && text[q] != '\r') {
        inner.col0 = static_cast<int>(q - (p + 1));
        break;
      }
    }
  } else {
    inner.outer = m;
  }
  std::vector<YAML::Node> idocs = load_all(inner, embedded);
  YAML::Node root = idocs.empty() ? YAML::Node() : idocs[0];
  const Y idoc{&inner, root, ""};
  if (idocs.size() > 1) idoc.fail("volcano-scheduler.conf holds more than one YAML document");
  out.doc = scheduler_conf_json(idoc, out.marks);
  // The marks refer to `inner`, whose offsets are already applied.
  return out;
}

}  // namespace

json conf_json_of_text(const std::string& text, const std::string& file, std::vector<std::string>* warnings) {
  SchedulerConfRead r = read_scheduler_conf(text, file);
  // Unknown plugins and actions: the error the scenario's JSON gives, at the name's place.
  const policy::SchedulerConfig cfg = scheduler_config_of(r.doc);
  if (warnings)
    for (const policy::ArgIssue& i : cfg.check_arguments()) {
      if (i.severity != policy::ArgIssue::Severity::Warning) continue;
      const auto it = r.marks.find(i.where);
      warnings->push_back((it == r.marks.end() ? file : it->second.file + ":" + std::to_string(it->second.line) + ":" +
                                                           std::to_string(it->second.column)) +
                          ": " + i.where + ": " + i.message);
    }
  if (std::string err = cfg.validate(); !err.empty()) {
    const auto colon = err.find(": ");
    const std::string key = colon == std::string::npos ? std::string() : err.substr(0, colon);
    const auto it = r.marks.find(key);
    if (it == r.marks.end()) throw InputError(file + ": " + err);
    YamlPlace p = it->second;
    p.path = key.rfind("actions[", 0) == 0 ? "actions" : key;
    fail_at(p, err.substr(colon + 2));
  }
  return r.doc;
}

json volcano_scheduler_config_json(const std::string& file, std::vector<std::string>* warnings) {
  return conf_json_of_text(read_text(file), file, warnings);
}

policy::SchedulerConfig read_volcano_scheduler_config(const std::string& file, std::vector<std::string>* warnings) {
  return scheduler_config_of(volcano_scheduler_config_json(file, warnings));
}

policy::SchedulerConfig parse_volcano_scheduler_config(const std::string& text, const std::string& name,
                                                       std::vector<std::string>* warnings) {
  return scheduler_config_of(conf_json_of_text(text, name, warnings));
}

std::string write_volcano_scheduler_conf(const policy::SchedulerConfig& cfg) {
  // The shape of the chart's volcano-scheduler.conf (installer/helm/chart/volcano/config/):
  // actions as one comma-separated string, tiers of plugins with their arguments and the
  // enable* switches that differ from their defaults, then configurations.
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::string actions;
  for (const auto& a : cfg.actions) actions += (actions.empty() ? "" : ", ") + a;
  out << YAML::Key << "actions" << YAML::Value << YAML::DoubleQuoted << actions;
  out << YAML::Key << "tiers" << YAML::Value << YAML::BeginSeq;
  for (const policy::Tier& t : cfg.tiers) {
    out << YAML::BeginMap << YAML::Key << "plugins" << YAML::Value << YAML::BeginSeq;
    for (const policy::PluginOption& p : t.plugins) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name;
      for (std::size_t e = 0; e < p.enabled.size(); ++e)
        if (p.enabled[e]) out << YAML::Key << policy::ext_key(static_cast<policy::Ext>(e)) << YAML::Value << *p.enabled[e];
      if (!p.arguments.all().empty()) {
        out << YAML::Key << "arguments" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : p.arguments.all()) out << YAML::Key << k << YAML::Value << v;
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!cfg.action_arguments.empty()) {
    out << YAML::Key << "configurations" << YAML::Value << YAML::BeginSeq;
    for (const auto& [action, args] : cfg.action_arguments) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << action;
      if (!args.all().empty()) {
        out << YAML::Key << "arguments" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : args.all()) out << YAML::Key << k << YAML::Value << v;
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace mltwin::k8s
