// scenario_migrate.cpp — migrate_scenario_file (mltwin/io/catalog.hpp): a version-1 scenario
// rewritten as version 2, editing its text (so that the user's layout and comments-free JSON
// stay as written), with a note for each change.
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mltwin/io/catalog.hpp"
#include "moved_policy_keys.hpp"
#include "scenario_common.hpp"

namespace mltwin::io {

using nlohmann::json;
using nlohmann::ordered_json;
using detail::fail;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

// ---------------------------------------------------------------------------------------------
// migrate: version 1 -> version 2, editing the text.

namespace {

// A member of a JSON object in the text: `"key": value`, [key_begin, value_end).
struct Member {
  std::string key;
  std::size_t key_begin = 0, value_begin = 0, value_end = 0;
};

std::size_t skip_ws(const std::string& t, std::size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

std::size_t skip_string(const std::string& t, std::size_t i) {  // t[i] == '"'
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') ++i;
    else if (t[i] == '"') return i + 1;
  }
  return t.size();
}

std::size_t skip_value(const std::string& t, std::size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    for (; i < t.size(); ++i) {
      if (t[i] == '"') {
        i = skip_string(t, i) - 1;
      } else if (t[i] == '{' || t[i] == '[') {
        ++depth;
      } else if (t[i] == '}' || t[i] == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return t.size();
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\n' && t[i] != '\r' && t[i] != '\t') ++i;
  return i;
}

// The members of the object whose '{' is at `open` (the text is valid JSON).
std::vector<Member> members_of(const std::string& t, std::size_t open) {
  std::vector<Member> out;
  std::size_t i = skip_ws(t, open + 1);
  while (i < t.size() && t[i] == '"') {
    Member m;
    m.key_begin = i;
    const std::size_t key_end = skip_string(t, i);
    m.key = json::parse(t.substr(i, key_end - i)).get<std::string>();
    i = skip_ws(t, key_end);
    i = skip_ws(t, i + 1);  // ':'
    m.value_begin = i;
    m.value_end = skip_value(t, i);
    out.push_back(m);
    i = skip_ws(t, m.value_end);
    if (i < t.size() && t[i] == ',') i = skip_ws(t, i + 1);
  }
  return out;
}

// `text` of an object whose '{' is at `open`, rebuilt from `parts` (each a member's text, in
// order): the text before the first member and after the last is kept, members are separated
// as the first two were (",\n  " in an indented file).
std::string rebuild_object(const std::string& t, std::size_t open, const std::vector<Member>& ms, const std::vector<std::string>& parts) {
  const std::size_t end = skip_value(t, open);
  std::string head, tail, sep;
  if (ms.empty()) {
    head = "{";
    tail = t.substr(open + 1, end - open - 1);
    sep = ", ";
  } else {
    head = t.substr(open, ms.front().key_begin - open);
    tail = t.substr(ms.back().value_end, end - ms.back().value_end);
    sep = ms.size() > 1 ? t.substr(ms[0].value_end, ms[1].key_begin - ms[0].value_end) : "," + head.substr(1);
  }
  std::string out = head;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? sep : "") + parts[i];
  return out + tail;
}

// The indentation of a member line: the spaces after the last newline of `sep`.
std::string indent_of(const std::string& sep) {
  const auto nl = sep.rfind('\n');
  return nl == std::string::npos ? std::string() : sep.substr(nl + 1);
}

// `value` as JSON indented by 2, each line after the first prefixed with `indent`.
std::string dump_at(const ordered_json& value, const std::string& indent) {
  const std::string d = value.dump(2);
  std::string out;
  for (char c : d) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

double number_at(const std::string& file, const std::string& at, const json& row, const char* key) {
  if (!row.contains(key) || !row[key].is_number())
    fail(file, at + "/" + key, "a version-1 row needs a number here to be migrated");
  return row[key].get<double>();
}

std::string string_at(const std::string& file, const std::string& at, const json& row, const char* key) {
  if (!row.contains(key) || !row[key].is_string()) fail(file, at + "/" + key, "a version-1 row needs a string here to be migrated");
  return row[key].get<std::string>();
}

double quantity_at(const std::string& file, const std::string& at, const json& row, const char* key) {
  if (!row.contains(key)) fail(file, at + "/" + key, "a version-1 row needs a size here to be migrated");
  try {
    return parse_quantity(row[key]);
  } catch (const std::exception& e) {
    fail(file, at + "/" + key, e.what());
  }
}

// The version-2 row of a shipped type, as ordered JSON (the catalog's key order).
ordered_json row_json(const models::InstanceType& t) {
  ordered_json r;
  r["name"] = t.name;
  r["vcpu"] = t.vcpu;
  r["memory_gib"] = t.memory_gib;
  if (!t.accelerator.empty()) {
    ordered_json a;
    a["kind"] = t.trainium_chips > 0 ? "aws-neuron" : "nvidia-gpu";
    a["name"] = t.accelerator;
    a["devices"] = t.trainium_chips > 0 ? t.trainium_chips : t.nvidia_gpus;
    if (t.trainium_chips > 0) a["cores_per_device"] = t.neuroncores_per_chip;
    if (t.physical_neuroncores_per_chip > 0) a["physical_cores_per_device"] = t.physical_neuroncores_per_chip;
    a["memory_gib"] = t.device_memory_gib;
    r["accelerator"] = a;
  }
  r["extended_resources"] = ordered_json::object();
  for (const auto& [n, c] : t.extended_resources) r["extended_resources"][n] = c;
  if (t.efa_interfaces > 0) r["efa_interfaces"] = t.efa_interfaces;
  r["network_gbps"] = t.network_gbps;
  if (t.network_baseline_gbps > 0) r["network_baseline_gbps"] = t.network_baseline_gbps;
  if (t.instance_storage_gb > 0) r["instance_storage_gb"] = t.instance_storage_gb;
  if (t.max_pods > 0) r["max_pods"] = t.max_pods;
  if (t.has_on_demand_price) {
    r["on_demand_usd_per_hour"] = t.on_demand_usd_per_hour;
    r["price_region"] = t.region_of_price;
  }
  r["source"] = t.source;
  if (!t.assumptions.empty()) r["assumptions"] = t.assumptions;
  return r;
}

std::string fmt_num(double v) { return json(v).dump(); }

/// An inference scenario of mltwin 0.2 whose serving policy settings sit where they were
/// (endpoint.routing, endpoint.autoscaling.target_tracking, server.idle_from_batch_end): the
/// same document with them in its `policies` block (docs/inference.md, "Policies"), or nullopt
/// when it has none of them. Key order is kept; the text is re-indented.
std::optional<std::string> move_policy_keys(const std::string& text, std::vector<std::string>& notes) {
  ordered_json doc = ordered_json::parse(text);
  ordered_json policies = doc.contains("policies") && doc["policies"].is_object() ? doc["policies"] : ordered_json::object();
  auto obj = [&](const char* k) -> ordered_json* {
    return doc.contains(k) && doc[k].is_object() ? &doc[k] : nullptr;
  };
  bool moved = false;
  for (const detail::MovedPolicyKey& m : detail::kMovedPolicyKeys) {
    ordered_json* parent = obj(m.parent);
    if (!parent || !parent->contains(m.key)) continue;
    const ordered_json& old = (*parent)[m.key];
    // The object whose keys become arguments (and whose "source" the choice keeps), if any.
    const ordered_json* from = nullptr;
    if (m.arguments == detail::MovedPolicyKey::Arguments::ObjectKeys && old.is_object()) from = &old;
    if (m.arguments == detail::MovedPolicyKey::Arguments::TargetTracking && old.is_object() &&
        old.contains("target_tracking") && old["target_tracking"].is_object())
      from = &old["target_tracking"];
    if (m.arguments != detail::MovedPolicyKey::Arguments::Value && !old.is_object()) continue;  // the loader says what is wrong
    ordered_json choice = {{"name", m.policy}}, args = ordered_json::object();
    if (m.arguments == detail::MovedPolicyKey::Arguments::Value) args[m.key] = old;
    if (from)
      for (const auto& [k, v] : from->items())
        if (k != "source") args[k] = v;
    if (!args.empty() || m.arguments == detail::MovedPolicyKey::Arguments::TargetTracking) choice["arguments"] = args;
    if (from && from->contains("source")) choice["source"] = (*from)["source"];
    policies[m.site] = choice;
    parent->erase(m.key);
    notes.push_back(std::string("/") + m.parent + "/" + m.key + " -> /policies/" + m.site + " (" + m.policy + ", " +
                    detail::arguments_text(m) + ")");
    moved = true;
  }
  if (!moved) return std::nullopt;
  // The policies block right after the endpoint.
  ordered_json out = ordered_json::object();
  for (const auto& [k, v] : doc.items()) {
    if (k == "policies") continue;
    out[k] = v;
    if (k == "endpoint") out["policies"] = policies;
  }
  if (!out.contains("policies")) out["policies"] = policies;
  return out.dump(2) + "\n";
}

}  // namespace

std::string migrate_scenario(const std::string& text, const std::string& path, const models::Catalog& shipped,
                             std::vector<std::string>& notes) {
  const json doc = detail::parse_json_text(text, path);
  if (!doc.is_object()) fail(path, "/", "expected a JSON object (a scenario)");
  if (doc.contains("schema_version") && doc["schema_version"] == kScenarioSchemaVersion && doc.contains("kind") &&
      doc["kind"] == "inference")
    if (std::optional<std::string> moved = move_policy_keys(text, notes)) return *moved;
  // Version 1 wrote no schema_version; one that says 1 is migrated too (its value replaced).
  const bool says_version_1 = doc.contains("schema_version") && doc["schema_version"] == 1;
  if (doc.contains("schema_version") && !says_version_1) {
    const std::string v = detail::printable(doc["schema_version"].dump());
    if (doc["schema_version"] == kScenarioSchemaVersion)
      fail(path, "/schema_version",
           "already at schema_version " + v + ", the version this mltwin reads; nothing to change (validate or run it as it is)");
    fail(path, "/schema_version",
         "schema_version " + v + " is not a version this mltwin knows: it reads " + std::to_string(kScenarioSchemaVersion) +
             ", and migrates version 1 (no schema_version) to it");
  }
  const bool inference = doc.contains("kind") && doc["kind"] == "inference";
  const std::string endpoint_type =
      inference && doc.contains("endpoint") && doc["endpoint"].contains("instance_type") && doc["endpoint"]["instance_type"].is_string()
          ? doc["endpoint"]["instance_type"].get<std::string>()
          : std::string();

  ordered_json kept = ordered_json::array();
  std::optional<ordered_json> volume;  // /endpoint/ml_storage_volume
  const json rows = doc.contains("catalog") && doc["catalog"].is_object() && doc["catalog"].contains("instance_types")
                        ? doc["catalog"]["instance_types"]
                        : json::array();
  if (!rows.is_array()) fail(path, "/catalog/instance_types", "expected an array of version-1 rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    const std::string at = "/catalog/instance_types/" + std::to_string(i);
    if (!r.is_object()) fail(path, at, "expected a version-1 row (an object)");
    const std::string name = string_at(path, at, r, "name");
    const std::string src = string_at(path, at, r, "source");
    const models::InstanceType* s = shipped.find(name);
    std::vector<std::string> diffs;
    auto differs = [&](const std::string& what, double mine, std::optional<double> theirs) {
      if (!theirs || mine != *theirs) diffs.push_back(what + " " + fmt_num(mine) + (theirs ? " (shipped " + fmt_num(*theirs) + ")" : ""));
    };
    auto shipped_or = [&](auto f) -> std::optional<double> {
      if (s == nullptr) return std::nullopt;
      return static_cast<double>(f(*s));
    };
    ordered_json row = s != nullptr ? row_json(*s) : ordered_json::object();
    const std::string region = r.contains("price_region") && r["price_region"].is_string() ? r["price_region"].get<std::string>()
                               : s != nullptr && !s->region_of_price.empty()               ? s->region_of_price
                                                                                           : std::string("unspecified");
    if (!inference) {
      const double chips = number_at(path, at, r, "trainium_chips"), cores = number_at(path, at, r, "neuroncores_per_chip");
      const double devmem = number_at(path, at, r, "device_memory_gib"), vcpu = number_at(path, at, r, "vcpu");
      const double mem = number_at(path, at, r, "memory_gib"), efa = number_at(path, at, r, "efa_interfaces");
      const double net = number_at(path, at, r, "network_gbps"), price = number_at(path, at, r, "on_demand_usd_per_hour");
      differs("trainium_chips", chips, shipped_or([](const auto& t) { return t.trainium_chips; }));
      if (chips > 0) differs("neuroncores_per_chip", cores, shipped_or([](const auto& t) { return t.neuroncores_per_chip; }));
      differs("device_memory_gib", devmem, shipped_or([](const auto& t) { return t.device_memory_gib; }));
      differs("vcpu", vcpu, shipped_or([](const auto& t) { return t.vcpu; }));
      differs("memory_gib", mem, shipped_or([](const auto& t) { return t.memory_gib; }));
      differs("efa_interfaces", efa, shipped_or([](const auto& t) { return t.efa_interfaces; }));
      differs("network_gbps", net, shipped_or([](const auto& t) { return t.network_gbps; }));
      differs("on_demand_usd_per_hour", price,
              s != nullptr && s->has_on_demand_price ? std::optional<double>(s->on_demand_usd_per_hour) : std::nullopt);
      if (r.contains("max_pods")) differs("max_pods", number_at(path, at, r, "max_pods"), shipped_or([](const auto& t) { return t.max_pods; }));
      if (s != nullptr && region != s->region_of_price) diffs.push_back("price_region " + region + " (shipped " + s->region_of_price + ")");
      if (diffs.empty()) {
        notes.push_back(at + " (" + name + "): equal to the shipped row; dropped");
        continue;
      }
      // A row of the catalog form with every figure the version-1 row gave.
      row["name"] = name;
      row["vcpu"] = static_cast<int>(vcpu);
      row["memory_gib"] = mem;
      if (chips > 0) {
        ordered_json a = row.contains("accelerator") ? row["accelerator"] : ordered_json::object();
        a["kind"] = "aws-neuron";
        if (!a.contains("name")) a["name"] = "Neuron device";
        a["devices"] = static_cast<int>(chips);
        a["cores_per_device"] = static_cast<int>(cores);
        if (a.contains("physical_cores_per_device") && a["physical_cores_per_device"].get<int>() < static_cast<int>(cores))
          a.erase("physical_cores_per_device");
        a["memory_gib"] = devmem;
        row["accelerator"] = a;
      } else if (row.contains("accelerator") && row["accelerator"]["kind"] == "aws-neuron") {
        row.erase("accelerator");
      }
      ordered_json ext = row.contains("extended_resources") ? row["extended_resources"] : ordered_json::object();
      for (const char* n : {"aws.amazon.com/neuron", "aws.amazon.com/neurondevice", "aws.amazon.com/neuroncore", "vpc.amazonaws.com/efa"}) ext.erase(n);
      if (chips > 0) {
        ext["aws.amazon.com/neuron"] = static_cast<int>(chips);
        ext["aws.amazon.com/neurondevice"] = static_cast<int>(chips);
        ext["aws.amazon.com/neuroncore"] = static_cast<int>(chips * cores);
      }
      if (efa > 0) ext["vpc.amazonaws.com/efa"] = static_cast<int>(efa);
      ordered_json sorted = ordered_json::object();
      std::vector<std::string> names;
      for (auto it = ext.begin(); it != ext.end(); ++it) names.push_back(it.key());
      std::sort(names.begin(), names.end());
      for (const auto& n : names) sorted[n] = ext[n];
      row["extended_resources"] = sorted;
      if (efa > 0) row["efa_interfaces"] = static_cast<int>(efa);
      else row.erase("efa_interfaces");
      if (!row.contains("network_gbps") || row["network_gbps"].get<double>() != net) row.erase("network_baseline_gbps");
      row["network_gbps"] = net;
      if (r.contains("max_pods")) row["max_pods"] = r["max_pods"];
      row["on_demand_usd_per_hour"] = price;
      row["price_region"] = region;
    } else {
      const double vcpu = number_at(path, at, r, "vcpu"), price = number_at(path, at, r, "usd_per_hour");
      const double mem = quantity_at(path, at, r, "memory"), disk = quantity_at(path, at, r, "disk");
      differs("vcpu", vcpu, shipped_or([](const auto& t) { return t.vcpu; }));
      differs("memory bytes", std::round(mem), shipped_or([](const auto& t) { return t.memory_bytes(); }));
      differs("usd_per_hour", price, s != nullptr && s->has_on_demand_price ? std::optional<double>(s->on_demand_usd_per_hour) : std::nullopt);
      if (s != nullptr && region != s->region_of_price) diffs.push_back("price_region " + region + " (shipped " + s->region_of_price + ")");
      const bool store = s != nullptr && s->instance_storage_gb > 0;
      if (store) differs("disk bytes (the instance store)", std::round(disk), static_cast<double>(s->instance_storage_bytes()));
      if (!store && name == endpoint_type) {
        volume = ordered_json::object();
        (*volume)["size"] = r["disk"];
        (*volume)["source"] = "the version-1 catalog row's disk (" + src + ")";
      }
      if (diffs.empty()) {
        notes.push_back(at + " (" + name + "): equal to the shipped row; dropped" +
                        (!store && name == endpoint_type ? "; its disk became /endpoint/ml_storage_volume" : ""));
        continue;
      }
      row["name"] = name;
      row["vcpu"] = static_cast<int>(vcpu);
      row["memory_gib"] = mem / kGiB;
      if (!row.contains("extended_resources")) row["extended_resources"] = ordered_json::object();
      if (!row.contains("network_gbps")) row["network_gbps"] = 0;
      if (store) row["instance_storage_gb"] = disk / 1e9;
      row["on_demand_usd_per_hour"] = price;
      row["price_region"] = region;
    }
    row["source"] = src;
    std::string assumed = s != nullptr ? "migrated from a version-1 row, in place of the shipped row; the figures the version-1 form had no "
                                         "field for are the shipped row's"
                                       : "migrated from a version-1 row: the figures the version-1 form had no field for are absent";
    if (s == nullptr && inference) assumed += " (network_gbps 0: not given)";
    row["assumptions"] = assumed;
    // Key order of the catalog form.
    ordered_json ordered;
    for (const char* k : {"name", "vcpu", "memory_gib", "accelerator", "extended_resources", "efa_interfaces", "network_gbps",
                          "network_baseline_gbps", "instance_storage_gb", "max_pods", "on_demand_usd_per_hour", "price_region", "spot",
                          "source", "assumptions"})
      if (row.contains(k)) ordered[k] = row[k];
    kept.push_back(ordered);
    std::string list;
    for (std::size_t k = 0; k < diffs.size(); ++k) list += (k > 0 ? ", " : "") + diffs[k];
    notes.push_back(at + " (" + name + "): kept as a row of the catalog form" + (s != nullptr ? ", in place of the shipped row" : "") +
                    ": " + list);
  }

  // The new text: the top-level object rebuilt member by member.
  const std::size_t open = skip_ws(text, 0);
  const std::vector<Member> top = members_of(text, open);
  const std::string indent = top.size() > 1 ? indent_of(text.substr(top[0].value_end, top[1].key_begin - top[0].value_end)) : "  ";
  std::vector<std::string> parts;
  bool version_done = false;
  auto add_version = [&] {
    parts.push_back("\"schema_version\": " + std::to_string(kScenarioSchemaVersion));
    version_done = true;
  };
  const bool has_schema_key = std::any_of(top.begin(), top.end(), [](const Member& m) { return m.key == "$schema"; });
  if (says_version_1) version_done = true;  // replaced where it is
  if (!has_schema_key && !version_done) add_version();
  for (const Member& m : top) {
    std::string part = text.substr(m.key_begin, m.value_end - m.key_begin);
    if (m.key == "schema_version") {
      part = text.substr(m.key_begin, m.value_begin - m.key_begin) + std::to_string(kScenarioSchemaVersion);
    } else if (m.key == "catalog") {
      if (kept.empty()) continue;
      ordered_json cat;
      cat["instance_types"] = kept;
      part = "\"catalog\": " + dump_at(cat, indent);
    } else if (m.key == "endpoint" && volume && text[m.value_begin] == '{') {
      const std::vector<Member> em = members_of(text, m.value_begin);
      const std::string inner = em.size() > 1 ? indent_of(text.substr(em[0].value_end, em[1].key_begin - em[0].value_end)) : indent + "  ";
      std::vector<std::string> eparts;
      bool placed = false;
      for (const Member& e : em) {
        eparts.push_back(text.substr(e.key_begin, e.value_end - e.key_begin));
        if (e.key == "memory_reserved") {
          eparts.push_back("\"ml_storage_volume\": " + dump_at(*volume, inner));
          placed = true;
        }
      }
      if (!placed) eparts.push_back("\"ml_storage_volume\": " + dump_at(*volume, inner));
      part = text.substr(m.key_begin, m.value_begin - m.key_begin) + rebuild_object(text, m.value_begin, em, eparts);
    }
    parts.push_back(part);
    if (m.key == "$schema" && !version_done) add_version();
  }
  std::string out = text.substr(0, open) + rebuild_object(text, open, top, parts) + text.substr(skip_value(text, open));

  // The result parses, says its version, and its rows are of the catalog form; the rest of the
  // scenario is as it was (checked when it is loaded).
  const json check = detail::parse_json_text(out, path + " (migrated)");
  detail::check_schema_version(path + " (migrated)", check);
  if (check.contains("catalog")) catalog_rows(path + " (migrated)", "/catalog/instance_types", check["catalog"]["instance_types"]);
  if (inference)
    if (std::optional<std::string> moved = move_policy_keys(out, notes)) return *moved;
  return out;
}

std::string migrate_scenario_file(const std::string& path, const std::string& catalog_path, std::vector<std::string>& notes) {
  const std::string text = detail::read_input_file(path, "scenario file", kMaxScenarioFileBytes);
  return migrate_scenario(text, path, read_catalog(find_catalog(catalog_path)), notes);
}

}  // namespace mltwin::io
