// anonymize.cpp — the cluster's own names replaced in a loaded training scenario
// (mltwin/io/anonymize.hpp).
#include "mltwin/io/anonymize.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/k8s/text.hpp"

namespace mltwin::io {

namespace {

using json = nlohmann::json;
using Names = std::map<std::string, std::string>;

constexpr const char* kFormat = "mltwin-name-map/1";
constexpr const char* kNodePrefix = "node-";
constexpr const char* kJobPrefix = "job-";
constexpr const char* kQueuePrefix = "queue-";

/// `prefix` + k for the k-th of `real` in sorted order (1-based), zero-padded to the width of
/// the largest k: "node-01" < "node-02" < ... < "node-12", as the real names sort.
Names order_preserving(const std::set<std::string>& real, const std::string& prefix) {
  Names out;
  const std::size_t width = std::to_string(real.size()).size();
  std::size_t k = 0;
  for (const std::string& name : real) {
    std::string n = std::to_string(++k);
    out.emplace(name, prefix + std::string(width - n.size(), '0') + n);
  }
  return out;
}

const std::string& renamed(const Names& m, const std::string& s) {
  auto it = m.find(s);
  return it == m.end() ? s : it->second;
}

/// Every occurrence of each key of `m` in `s` replaced by its value, longest keys first (so a
/// path is replaced before a shorter path inside it).
std::string replace_all(std::string s, const Names& m) {
  std::vector<const std::pair<const std::string, std::string>*> by_length;
  for (const auto& kv : m)
    if (!kv.first.empty()) by_length.push_back(&kv);
  std::stable_sort(by_length.begin(), by_length.end(), [](auto* a, auto* b) { return a->first.size() > b->first.size(); });
  for (const auto* kv : by_length)
    for (std::size_t at = s.find(kv->first); at != std::string::npos; at = s.find(kv->first, at + kv->second.size()))
      s.replace(at, kv->first.size(), kv->second);
  return s;
}

void rename_values(std::vector<std::string>& values, const Names& nodes) {
  for (std::string& v : values) v = renamed(nodes, v);
}

void rename_affinity(policy::NodeAffinity& a, const Names& nodes) {
  auto term = [&](policy::NodeSelectorTerm& t) {
    for (auto& r : t.match_expressions) rename_values(r.values, nodes);
    for (auto& r : t.match_fields) rename_values(r.values, nodes);
  };
  for (auto& t : a.required) term(t);
  for (auto& p : a.preferred) term(p.preference);
}

void rename_labels(std::vector<std::pair<std::string, std::string>>& labels, const Names& nodes) {
  for (auto& [key, value] : labels) value = renamed(nodes, value);
}

/// The document with each string that is a real name or a file as written replaced.
void rename_document(json& j, const Names& exact) {
  if (j.is_string()) {
    j = renamed(exact, j.get_ref<const std::string&>());
  } else if (j.is_array() || j.is_object()) {
    for (auto& v : j) rename_document(v, exact);
  }
}

}  // namespace

json NameMap::to_json() const {
  return {{"format", kFormat},
          {"about", "the real names of an anonymized run (mltwin run --anonymize): keep this file apart from the database"},
          {"scenario", {{scenario_file, "scenario.json"}}},
          {"nodes", nodes},
          {"jobs", jobs},
          {"queues", queues},
          {"files", files}};
}

NameMap NameMap::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path + ": cannot read the name map");
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ScenarioError(path + ": not JSON (a name map is the .names.json file `mltwin run --anonymize` writes)");
  if (!j.is_object() || j.value("format", json()) != kFormat)
    throw ScenarioError(path + ": /format: expected \"" + std::string(kFormat) + "\" (a name map written by mltwin run --anonymize)");
  NameMap m;
  for (const auto& [key, into] : {std::pair<const char*, Names*>{"nodes", &m.nodes}, {"jobs", &m.jobs}, {"queues", &m.queues}, {"files", &m.files}}) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_object()) throw ScenarioError(path + ": /" + key + ": expected an object of real name -> alias");
    for (const auto& [real, alias] : it->items()) {
      if (!alias.is_string()) throw ScenarioError(path + ": /" + key + "/" + k8s::pointer_token_of(real) + ": expected a string (the alias)");
      into->emplace(real, alias.get<std::string>());
    }
  }
  if (const auto it = j.find("scenario"); it != j.end() && it->is_object() && it->size() == 1) m.scenario_file = it->begin().key();
  return m;
}

NameMap anonymize(LoadedScenario& s) {
  models::TrainingScenario& sc = s.training;
  NameMap m;
  m.scenario_file = std::filesystem::path(s.path).filename().string();

  std::set<std::string> nodes, jobs, queues;
  for (const auto& g : sc.node_groups)
    if (g.observed) nodes.insert(g.observed->name);
  for (const auto& j : sc.jobs) jobs.insert(j.name);
  for (const auto& q : sc.queues)
    if (q.name != "root") queues.insert(q.name);  // Volcano's root queue is the hierarchy's, no one's
  m.nodes = order_preserving(nodes, kNodePrefix);
  m.jobs = order_preserving(jobs, kJobPrefix);
  m.queues = order_preserving(queues, kQueuePrefix);
  for (const auto& g : sc.node_groups)
    if (!g.observed && !m.nodes.empty() && (g.name == "node" || g.name.starts_with(kNodePrefix)))
      throw ScenarioError(s.path + ": /cluster/node_groups: node group '" + g.name + "' names its nodes " + g.name +
                          "-0, ...: --anonymize names the Nodes read from kubectl node-1, node-2, ...; give the group another name");
  // Input files: <role>-<k><ext>, one alias per file as written (a file may serve two roles).
  std::map<std::string, int> per_role;
  for (auto& in : s.inputs) {
    if (!m.files.count(in.as_written)) {
      const std::string ext = std::filesystem::path(in.as_written).extension().string();
      m.files.emplace(in.as_written, in.role + "-" + std::to_string(++per_role[in.role]) + ext);
    }
  }

  // The model.
  for (auto& g : sc.node_groups) {
    rename_labels(g.labels, m.nodes);
    for (auto& src : g.spot_price_source) src = replace_all(src, m.files);
    for (auto& src : g.on_demand_price_source) src = replace_all(src, m.files);
    if (!g.observed) continue;
    g.name = renamed(m.nodes, g.name);
    g.observed->name = renamed(m.nodes, g.observed->name);
    rename_labels(g.observed->labels, m.nodes);
    g.observed->source = replace_all(g.observed->source, m.files);
  }
  for (auto& ds : sc.daemonsets) {
    rename_labels(ds.node_selector, m.nodes);
    rename_affinity(ds.node_affinity, m.nodes);
    // The DaemonSet pods_from builds for the pods of other schedulers on a node (named after the
    // node, its source listing the pods' namespace/name): the pods' names go.
    if (ds.name.starts_with("pods-on-")) {
      const std::string node = renamed(m.nodes, ds.name.substr(8));
      ds.name = "pods-on-" + node;
      ds.source = "kubectl (/cluster/pods_from): pods of other schedulers on " + node;
    }
    ds.source = replace_all(ds.source, m.files);
  }
  for (auto& q : sc.queues) {
    q.name = renamed(m.queues, q.name);
    q.parent = renamed(m.queues, q.parent);
  }
  for (auto& j : sc.jobs) {
    j.name = renamed(m.jobs, j.name);
    j.queue = renamed(m.queues, j.queue);
    rename_labels(j.node_selector, m.nodes);
    rename_affinity(j.node_affinity, m.nodes);
    if (j.initial) {
      auto run = std::make_shared<models::InitialRun>(*j.initial);
      rename_values(run->nodes, m.nodes);
      j.initial = std::move(run);
    }
  }
  if (sc.faults) {
    for (auto& f : sc.faults->scheduled) f.node = renamed(m.nodes, f.node);
    for (auto& f : sc.faults->spot_interruptions) f.node = renamed(m.nodes, f.node);
  }

  // What is reported of the run: the document, the warnings, the summaries' file names.
  Names exact = m.files;
  exact.insert(m.nodes.begin(), m.nodes.end());
  exact.insert(m.jobs.begin(), m.jobs.end());
  exact.insert(m.queues.begin(), m.queues.end());
  if (s.json.is_object()) s.json.erase("description");
  rename_document(s.json, exact);
  Names in_text = m.files;
  in_text.insert(m.nodes.begin(), m.nodes.end());
  for (const Names* quoted : {&m.jobs, &m.queues})
    for (const auto& [real, alias] : *quoted) in_text.emplace("'" + real + "'", "'" + alias + "'");
  for (auto& w : s.warnings) w = replace_all(w, in_text);
  for (auto& in : s.inputs) in.as_written = m.files.at(in.as_written);
  if (s.history) s.history->file = renamed(m.files, s.history->file);
  if (s.pods_from) s.pods_from->history = renamed(m.files, s.pods_from->history);
  return m;
}

}  // namespace mltwin::io
