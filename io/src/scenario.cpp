// scenario.cpp — load_scenario: a training scenario, checked against its schema, its files
// expanded, then read section by section (training_load.hpp lists the readers and where they
// live); here the readers of /volcano, /queues, /lifecycle, /output, /fabric, /startup,
// /faults, /cluster/autoscaler, /step_model and /initial_state.
#include "mltwin/policy/version.hpp"
#include "mltwin/io/scenario.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "k8s_objects.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "scenario_common.hpp"
#include "training_load.hpp"
#include "scenario_yaml.hpp"
#include "scenario_schema.hpp"  // generated: kScenarioSchema

namespace mltwin::io {

using nlohmann::json;

namespace {

/// A SchedulerConfig::validate() location in the tiers as a JSON pointer under /volcano:
/// "tiers[1].plugins[0].name" -> "/tiers/1/plugins/0/name",
/// "tiers[0].plugins[3].arguments.binpack.weight" -> "/tiers/0/plugins/3/arguments/binpack.weight"
/// (the key verbatim, '~' and '/' escaped as RFC 6901 says); "" if it is none of these.
std::string config_pointer(const std::string& key) {
  auto index = [&](std::size_t& i, std::string& out) {  // "[N]" at i -> "/N"
    if (i >= key.size() || key[i] != '[') return false;
    const auto close = key.find(']', i);
    if (close == std::string::npos || close == i + 1) return false;
    for (std::size_t k = i + 1; k < close; ++k)
      if (key[k] < '0' || key[k] > '9') return false;
    out += "/" + key.substr(i + 1, close - i - 1);
    i = close + 1;
    return true;
  };
  if (key.rfind("tiers", 0) != 0) return {};
  std::size_t i = 5;
  std::string out = "/tiers";
  if (!index(i, out) || key.compare(i, 9, ".plugins[") != 0) return {};
  i += 8;
  out += "/plugins";
  if (!index(i, out)) return {};
  if (key.compare(i, std::string::npos, ".name") == 0) return out + "/name";
  if (key.compare(i, 10, ".arguments") != 0) return {};
  out += "/arguments";
  i += 10;
  if (i == key.size()) return out;
  if (key[i] != '.') return {};
  out += "/";
  for (std::size_t k = i + 1; k < key.size(); ++k)
    out += key[k] == '~' ? std::string("~0") : key[k] == '/' ? std::string("~1") : std::string(1, key[k]);
  return out;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

using detail::duration_of;
using detail::fail;
using detail::latency_of;
using detail::resources_of;

// The training scenario schema, compiled once.
const detail::SchemaValidator& validator() {
  static const detail::SchemaValidator v(kScenarioSchema);
  return v;
}

// The "fabric" object -> FabricParams, checked against the catalog and the node groups: every
// NeuronLink entry names a catalog type and a torus holding its chips, once; every multi-chip
// type a node group uses has an entry.
models::FabricParams fabric_of(const std::string& path, const json& f, const detail::ScenarioCatalog& cat,
                               const std::vector<models::NodeGroupSpec>& groups) {
  const models::Catalog& catalog = cat.catalog;
  models::FabricParams p;
  p.efa.gbps_per_interface = f["efa"]["gbps_per_interface"];
  p.efa.latency = duration_of(path, "/fabric/efa/latency", f["efa"]["latency"]);
  if (p.efa.latency < core::Duration::ns(0)) fail(path, "/fabric/efa/latency", "expected a duration >= 0");
  p.efa.source = f["efa"]["source"];
  const json& nl = f["neuronlink"];
  for (std::size_t i = 0; i < nl.size(); ++i) {
    const std::string where = "/fabric/neuronlink/" + std::to_string(i);
    models::NeuronLinkSpec n;
    n.instance_type = nl[i]["instance_type"];
    const models::InstanceType* it = &cat.require(path, where + "/instance_type", n.instance_type);
    if (p.neuronlink_for(n.instance_type) != nullptr)
      fail(path, where + "/instance_type", "a second entry for '" + n.instance_type + "'");
    n.torus_rows = nl[i]["torus"][0];
    n.torus_cols = nl[i]["torus"][1];
    if (n.torus_rows * n.torus_cols != it->trainium_chips)
      fail(path, where + "/torus",
           "a " + std::to_string(n.torus_rows) + " x " + std::to_string(n.torus_cols) + " torus does not hold the " +
               std::to_string(it->trainium_chips) + " Trainium chips of " + n.instance_type);
    n.gbps_per_link = nl[i]["gbps_per_link"];
    n.latency = duration_of(path, where + "/latency", nl[i]["latency"]);
    if (n.latency < core::Duration::ns(0)) fail(path, where + "/latency", "expected a duration >= 0");
    n.source = nl[i]["source"];
    p.neuronlink.push_back(n);
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const std::string& type : groups[g].instance_types) {
      const models::InstanceType* it = catalog.find(type);
      if (it != nullptr && it->trainium_chips > 1 && p.neuronlink_for(it->name) == nullptr)
        fail(path, "/fabric/neuronlink",
             "no entry for instance type '" + it->name + "' (" + std::to_string(it->trainium_chips) +
                 " Trainium chips), used by /cluster/node_groups/" + std::to_string(g));
    }
  if (f.contains("leaf_spine")) {
    const json& ls = f["leaf_spine"];
    p.leaf_spine = models::LeafSpineSpec{ls["nodes_per_leaf"], ls["oversubscription"], ls["source"]};
  }
  return p;
}

// A duration >= 0 at `where`.
core::Duration nonnegative_duration(const std::string& path, const std::string& where, const json& v) {
  const core::Duration d = duration_of(path, where, v);
  if (d < core::Duration::ns(0)) fail(path, where, "expected a duration >= 0");
  return d;
}

// A byte count (a Kubernetes quantity) at `where`.
double bytes_at(const std::string& path, const std::string& where, const json& v) {
  try {
    return parse_quantity(v);
  } catch (const std::invalid_argument& e) {
    fail(path, where, e.what());
  }
}

// /startup (models/startup.hpp): the image pull, rendezvous, Neuron compilation and its cache,
// the dataset read from FSx. Jobs naming a Neuron model need it.
void read_startup(const std::string& path, const json& doc, models::TrainingScenario& sc) {
  if (doc.contains("startup")) {
    const json& st = doc["startup"];
    models::StartupSpec sp;
    const json& im = st["image"];
    sp.image = im.value("name", std::string());
    sp.image_bytes = bytes_at(path, "/startup/image/bytes", im["bytes"]);
    sp.pull_bytes_per_s = im.contains("pull_gbps") ? im["pull_gbps"].get<double>() * 1e9 / 8 : im["pull_bytes_per_s"].get<double>();
    sp.image_source = im["source"];
    if (sp.image_bytes / sp.pull_bytes_per_s > kMaxScenarioTime.seconds())
      fail(path, "/startup/image", "pulling " + std::to_string(sp.image_bytes) + " bytes would take " + std::to_string(sp.image_bytes / sp.pull_bytes_per_s) +
                                       " s, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
    sp.rendezvous = nonnegative_duration(path, "/startup/rendezvous/duration", st["rendezvous"]["duration"]);
    sp.rendezvous_source = st["rendezvous"]["source"];
    const json& ne = st["neuron"];
    sp.mode = ne["mode"] == "jit" ? models::CompileMode::Jit : models::CompileMode::ParallelCompile;
    for (std::size_t i = 0; i < ne["models"].size(); ++i) {
      const json& m = ne["models"][i];
      const std::string where = "/startup/neuron/models/" + std::to_string(i);
      models::NeuronModelSpec ms;
      ms.name = m["name"];
      if (sp.find_model(ms.name)) fail(path, where + "/name", "duplicate model '" + ms.name + "'");
      ms.jit_compile = nonnegative_duration(path, where + "/jit_compile", m["jit_compile"]);
      ms.parallel_compile = nonnegative_duration(path, where + "/parallel_compile", m["parallel_compile"]);
      if (m.contains("dataset_bytes")) ms.dataset_bytes = bytes_at(path, where + "/dataset_bytes", m["dataset_bytes"]);
      ms.source = m["source"];
      sp.models.push_back(ms);
    }
    sp.default_model = ne["default_model"];
    if (!sp.find_model(sp.default_model))
      fail(path, "/startup/neuron/default_model", "'" + sp.default_model + "' is not in /startup/neuron/models");
    sp.default_flags = ne.value("default_flags", std::string());
    sp.cache_url = ne.value("compile_cache_url", std::string());
    sp.cache_load = nonnegative_duration(path, "/startup/neuron/cache_load_time", ne["cache_load_time"]);
    sp.compile_source = ne["source"];
    const json& fx = st["fsx"];
    sp.fsx_bytes_per_s = fx["storage_tib"].get<double>() * fx["per_unit_throughput_mbps_per_tib"].get<double>() * 1e6;
    sp.fsx_source = fx["source"];
    for (std::size_t i = 0; i < sp.models.size(); ++i)
      if (sp.models[i].dataset_bytes / sp.fsx_bytes_per_s > kMaxScenarioTime.seconds())
        fail(path, "/startup/neuron/models/" + std::to_string(i) + "/dataset_bytes",
             "reading it from FSx would take " + std::to_string(sp.models[i].dataset_bytes / sp.fsx_bytes_per_s) +
                 " s, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
    for (std::size_t i = 0; i < sc.jobs.size(); ++i)
      if (!sc.jobs[i].model.empty() && !sp.find_model(sc.jobs[i].model))
        fail(path, doc["workload"].contains("jobs") ? "/workload/jobs/" + std::to_string(sc.jobs[i].trace_row) + "/model" : "/workload/philly/model",
             "model '" + sc.jobs[i].model + "' is not in /startup/neuron/models");
    sc.startup = sp;
  } else {
    for (std::size_t i = 0; i < sc.jobs.size(); ++i)
      if (!sc.jobs[i].model.empty())
        fail(path, "/startup", "jobs name Neuron models, but the scenario has no startup block to compile them");
  }
}

// /cluster/kubernetes_version: "1.<minor>", as eksctl's metadata.version and `kubectl version`
// write it (the default, 1.32, is the release mltwin's Kubernetes behaviour is pinned to).
void read_kubernetes_version(const std::string& path, const json& doc, models::TrainingScenario& sc) {
  if (!doc["cluster"].contains("kubernetes_version")) return;
  const json& v = doc["cluster"]["kubernetes_version"];
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  const auto bad = [&]() {
    fail(path, "/cluster/kubernetes_version", "expected \"1.<minor>\" (e.g. \"1.32\", as eksctl's metadata.version), got " + v.dump());
  };
  const std::optional<int> minor = v.is_string() ? detail::kubernetes_minor_of(text) : std::nullopt;
  if (!minor) bad();
  sc.kubernetes_minor = *minor;
}

// Whether the cluster has nodes of /cluster/nodes_from (named as their Node objects).
bool any_observed(const models::TrainingScenario& sc) {
  return std::any_of(sc.node_groups.begin(), sc.node_groups.end(), [](const models::NodeGroupSpec& g) { return g.observed.has_value(); });
}

// /faults: node failures (at a rate, or at given times) and Spot interruptions.
void read_faults(const std::string& path, const json& doc, models::TrainingScenario& sc) {
  if (!doc.contains("faults")) return;
  const json& f = doc["faults"];
  models::FaultSpec fs;
  // kube-controller-manager's --node-monitor-grace-period: 40 s up to 1.31, 50 s from 1.32
  // (kubernetes#126287), after the cluster's version unless given.
  fs.node_monitor_grace_period = core::Duration::s(sc.kubernetes_minor >= 32 ? 50 : 40);
  if (f.contains("node_monitor_grace_period"))
    fs.node_monitor_grace_period = nonnegative_duration(path, "/faults/node_monitor_grace_period", f["node_monitor_grace_period"]);
  if (f.contains("unreachable_toleration"))
    fs.unreachable_toleration = nonnegative_duration(path, "/faults/unreachable_toleration", f["unreachable_toleration"]);
  if (f.contains("instance_terminated_after"))
    fs.instance_terminated_after = nonnegative_duration(path, "/faults/instance_terminated_after", f["instance_terminated_after"]);
  fs.failure_rate_per_node_hour = f.value("node_failure_rate_per_node_hour", 0.0);
  fs.replacement_time = nonnegative_duration(path, "/faults/replacement_time", f["replacement_time"]);
  if (fs.replacement_time < fs.instance_terminated_after)
    fail(path, "/faults/replacement_time",
         "the replacement is Ready replacement_time after the failure, and the Auto Scaling group launches it when it "
         "terminates the failed instance (instance_terminated_after): replacement_time must be at least that");
  fs.source = f["source"];
  // <node group>-<index> with index < desired_capacity (no set of every name: clusters are large).
  auto node_at_t0 = [&](const std::string& node) {
    for (const auto& g : sc.node_groups) {
      if (g.observed) {  // a node of /cluster/nodes_from, by its own name
        if (node == g.observed->name) return true;
        continue;
      }
      if (node.size() <= g.name.size() + 1 || node.compare(0, g.name.size(), g.name) != 0 || node[g.name.size()] != '-') continue;
      const std::string idx = node.substr(g.name.size() + 1);
      if (idx.size() > 9 || (idx.size() > 1 && idx[0] == '0') || idx.find_first_not_of("0123456789") != std::string::npos) continue;
      if (std::stoi(idx) < g.count) return true;
    }
    return false;
  };
  if (f.contains("scheduled"))
    for (std::size_t i = 0; i < f["scheduled"].size(); ++i) {
      const json& e = f["scheduled"][i];
      const std::string where = "/faults/scheduled/" + std::to_string(i);
      models::NodeFailureAt at{e["node"], nonnegative_duration(path, where + "/at", e["at"])};
      if (!node_at_t0(at.node)) fail(path, where + "/node", "no node '" + at.node + "' at t = 0 (nodes are named <node group>-<index>" +
                                          (any_observed(sc) ? std::string(", or as their Node objects in /cluster/nodes_from)") : std::string(")")));
      fs.scheduled.push_back(at);
    }
  // Spot interruptions (docs/startup-and-faults.md): notices at a rate, or at given times.
  fs.spot_interruption_rate_per_node_hour = f.value("spot_interruption_rate_per_node_hour", 0.0);
  if (f.contains("spot_notice")) fs.spot_notice = nonnegative_duration(path, "/faults/spot_notice", f["spot_notice"]);
  if (f.contains("spot_interruptions"))
    for (std::size_t i = 0; i < f["spot_interruptions"].size(); ++i) {
      const json& e = f["spot_interruptions"][i];
      const std::string where = "/faults/spot_interruptions/" + std::to_string(i);
      models::NodeFailureAt at{e["node"], nonnegative_duration(path, where + "/at", e["at"])};
      if (!node_at_t0(at.node)) fail(path, where + "/node", "no node '" + at.node + "' at t = 0 (nodes are named <node group>-<index>" +
                                          (any_observed(sc) ? std::string(", or as their Node objects in /cluster/nodes_from)") : std::string(")")));
      for (const auto& g : sc.node_groups)
        if (!g.observed && at.node.compare(0, g.name.size() + 1, g.name + "-") == 0 && at.node.size() > g.name.size() + 1 &&
            at.node.find_first_not_of("0123456789", g.name.size() + 1) == std::string::npos &&
            models::node_launch(g, std::stoll(at.node.substr(g.name.size() + 1))).capacity != models::CapacityType::Spot)
          fail(path, where + "/node", "node '" + at.node + "' is On-Demand: only Spot nodes are interrupted (node group '" + g.name +
                                          "' launches it as its capacity_type / instances_distribution says)");
      fs.spot_interruptions.push_back(at);
    }
  bool any_spot = false;
  for (const auto& g : sc.node_groups) any_spot = any_spot || models::launches_spot(g);
  if (!any_spot && (fs.spot_interruption_rate_per_node_hour > 0 || !fs.spot_interruptions.empty()))
    fail(path, f.contains("spot_interruptions") ? "/faults/spot_interruptions" : "/faults/spot_interruption_rate_per_node_hour",
         "no node group launches Spot nodes (capacity_type SPOT, or instances_distribution below 100 % On-Demand)");
  sc.faults = fs;
}

// /cluster/autoscaler: the Kubernetes cluster autoscaler's scan, scale-down and launch times.
void read_autoscaler(const std::string& path, const json& doc, models::TrainingScenario& sc) {
  // /cluster/admission: the user's own admission policy (Volcano's webhook is always there).
  if (doc["cluster"].contains("admission"))
    sc.refuse_unplaceable = doc["cluster"]["admission"].value("refuse_unplaceable", false);
  if (!doc["cluster"].contains("autoscaler")) return;
  const json& a = doc["cluster"]["autoscaler"];
  models::AutoscalerSpec as;
  if (a.contains("scan_interval")) as.scan_interval = nonnegative_duration(path, "/cluster/autoscaler/scan_interval", a["scan_interval"]);
  if (as.scan_interval <= core::Duration::ns(0)) fail(path, "/cluster/autoscaler/scan_interval", "expected a positive interval");
  if (a.contains("scale_down_unneeded_time"))
    as.scale_down_unneeded_time = nonnegative_duration(path, "/cluster/autoscaler/scale_down_unneeded_time", a["scale_down_unneeded_time"]);
  if (a.contains("scale_down_delay_after_add"))
    as.scale_down_delay_after_add = nonnegative_duration(path, "/cluster/autoscaler/scale_down_delay_after_add", a["scale_down_delay_after_add"]);
  as.launch_time = nonnegative_duration(path, "/cluster/autoscaler/launch_time", a["launch_time"]);
  as.source = a["source"];
  sc.autoscaler = as;
}

models::StepModelSpec step_model_of(const std::string& path, const json& s, const models::TrainingScenario& sc) {
  models::StepModelSpec m;
  const json& p = s["profile"];
  models::ModelProfile& mp = m.profile;
  mp.name = p["name"];
  mp.parameters = p["parameters"];
  mp.gradient_bytes_per_parameter = p["gradient_bytes_per_parameter"];
  mp.sequence_length = p.value("sequence_length", 0);
  mp.micro_batch = p["micro_batch"];
  mp.microsteps_per_step = p["microsteps_per_step"];
  auto nonneg = [&](const char* key) {
    const core::Duration d = duration_of(path, std::string("/step_model/profile/") + key, p[key]);
    if (d < core::Duration::ns(0)) fail(path, std::string("/step_model/profile/") + key, "expected a duration >= 0");
    return d;
  };
  mp.compute_per_microstep = nonneg("compute_per_microstep");
  mp.step_overhead = nonneg("step_overhead");
  mp.straggler_sigma = nonneg("straggler_sigma");
  mp.source = p["source"];
  // The network figures: from the scenario's /fabric (then the jobs share it: contention),
  // or, without one, from /step_model/fabric (nominal bandwidth for every job).
  if (sc.fabric) {
    if (s.contains("fabric"))
      fail(path, "/step_model/fabric",
           "the scenario has a /fabric: the step model takes its NeuronLink and EFA figures from there; give them once");
    if (sc.node_groups.empty()) fail(path, "/cluster/node_groups", "the step model needs a node group");
    const std::string& type = sc.node_groups[0].instance_types.at(0);
    for (std::size_t i = 0; i < sc.node_groups.size(); ++i)
      if (sc.node_groups[i].instance_types != std::vector<std::string>{type})
        fail(path, "/cluster/node_groups/" + std::to_string(i),
             "the step model takes one instance type: every node group must use one, '" + type + "'");
    const models::InstanceType* it = sc.catalog.find(type);
    const models::NeuronLinkSpec* nl = sc.fabric->neuronlink_for(type);
    m.neuronlink_gbps_per_link = nl ? nl->gbps_per_link : 0.0;
    m.intra_alpha = nl ? nl->latency : core::Duration::ns(0);
    m.efa_gbps_per_node = it->efa_interfaces * sc.fabric->efa.gbps_per_interface;
    m.inter_alpha = sc.fabric->efa.latency;
    m.source = "/fabric: " + (nl ? nl->source + "; " : std::string()) + sc.fabric->efa.source;
    m.contention = true;
    return m;
  }
  if (!s.contains("fabric"))
    fail(path, "/step_model", "the step model needs the network's figures: a /fabric block, or /step_model/fabric");
  const json& f = s["fabric"];
  // GiB/s per device over its links, in Gb/s (1e9 bit/s) per link.
  m.neuronlink_gbps_per_link = f["neuronlink_gib_per_s_per_device"].get<double>() * kGiB * 8.0 / 1e9 /
                               f["neuronlink_links_per_device"].get<double>();
  auto lat = [&](const char* key) {
    const core::Duration d = duration_of(path, std::string("/step_model/fabric/") + key, f[key]);
    if (d < core::Duration::ns(0)) fail(path, std::string("/step_model/fabric/") + key, "expected a duration >= 0");
    return d;
  };
  m.intra_alpha = lat("intra_alpha");
  m.inter_alpha = lat("inter_alpha");
  m.source = f["source"];
  // The nodes' EFA bandwidth: their instance type's network_gbps (one cluster, one type of node
  // for the step model).
  if (sc.node_groups.empty()) fail(path, "/cluster/node_groups", "the step model needs a node group");
  for (std::size_t i = 0; i < sc.node_groups.size(); ++i)
    if (sc.node_groups[i].instance_types != std::vector<std::string>{sc.node_groups[0].instance_types.at(0)})
      fail(path, "/cluster/node_groups/" + std::to_string(i),
           "the step model takes one EFA bandwidth: every node group must use one instance type, '" + sc.node_groups[0].instance_types.at(0) + "'");
  m.efa_gbps_per_node = sc.catalog.find(sc.node_groups[0].instance_types.at(0))->network_gbps;
  return m;
}

// /initial_state: the jobs already running at t0. Each names a workload job (submitted at
// 0s), when its training started (<= 0 s), optionally what remains of it and the nodes its pods
// run on; jobs without nodes are placed first-fit (nodes in the order the cluster lists them:
// node groups in order, then index) after every named placement, in list order, ignoring
// queue order. The nodes at t0 are each node group's desired_capacity nodes, Ready, named
// <group>-<index>. Running jobs move to the front of sc.jobs in list order.
// A node at t = 0 as /initial_state places pods on it: its name, group, room left, labels.
struct InitialNode {
  std::string name;
  std::size_t group;
  policy::Resource room;
  std::vector<std::pair<std::string, std::string>> labels;
  bool cordoned = false;  ///< spec.unschedulable, or not Ready (a node of /cluster/nodes_from)
};

// Every node of the cluster at t = 0 (<node group>-<index>), with its room for pods.
std::vector<InitialNode> nodes_at_t0(const std::string& path, const models::TrainingScenario& sc) {
  std::int64_t count = 0;
  for (const auto& g : sc.node_groups) count += g.count;
  if (count > kMaxInitialStateNodes)
    fail(path, "/initial_state", "places jobs on clusters of at most " + std::to_string(kMaxInitialStateNodes) + " nodes; this one has " +
                                     std::to_string(count) + " at t0 (docs/limits.md)");
  std::vector<InitialNode> nodes;
  for (std::size_t g = 0; g < sc.node_groups.size(); ++g)
    for (int i = 0; i < sc.node_groups[g].count; ++i) {
      InitialNode n;
      const auto& observed = sc.node_groups[g].observed;
      n.name = observed ? observed->name : sc.node_groups[g].name + "-" + std::to_string(i);
      n.group = g;
      n.cordoned = observed && (observed->unschedulable || !observed->ready);
      const models::NodeLaunch launch = models::node_launch(sc.node_groups[g], i);
      n.room = models::node_resources(sc, sc.node_groups[g], launch, n.name).pod_room();
      n.labels = models::node_labels(sc.node_groups[g], launch);
      // As NodeLifecycle::add_group_node: the Node object's own hostname label, else the name.
      if (std::none_of(n.labels.begin(), n.labels.end(), [](const auto& kv) { return kv.first == "kubernetes.io/hostname"; }))
        n.labels.emplace_back("kubernetes.io/hostname", n.name);
      std::sort(n.labels.begin(), n.labels.end());
      nodes.push_back(std::move(n));
    }
  return nodes;
}

// The jobs running at t = 0 first, in the order /initial_state lists them, each with its run;
// the others keep their order.
void running_jobs_first(models::TrainingScenario& sc, const std::vector<std::size_t>& order,
                        const std::vector<std::shared_ptr<models::InitialRun>>& runs) {
  std::vector<models::TrainingJobSpec> jobs;
  jobs.reserve(sc.jobs.size());
  std::vector<char> taken(sc.jobs.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    taken[order[i]] = 1;
    jobs.push_back(sc.jobs[order[i]]);
    jobs.back().initial = runs[i];
  }
  for (std::size_t k = 0; k < sc.jobs.size(); ++k)
    if (!taken[k]) jobs.push_back(std::move(sc.jobs[k]));
  sc.jobs = std::move(jobs);
}

// /initial_state/admitted: jobs submitted at 0s whose PodGroup is Inqueue at t0, its pods
// created (TrainingJobSpec::admitted). Read before the running jobs, which it may not name.
void read_admitted(const std::string& path, const json& is, models::TrainingScenario& sc) {
  if (!is.contains("admitted")) return;
  const json& list = is["admitted"];
  std::set<std::string> running;
  if (is.contains("running"))
    for (const auto& e : is["running"]) running.insert(e["job"].get<std::string>());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "/initial_state/admitted/" + std::to_string(i) + "/job";
    const std::string name = list[i]["job"].get<std::string>();
    auto it = std::find_if(sc.jobs.begin(), sc.jobs.end(), [&](const models::TrainingJobSpec& j) { return j.name == name; });
    if (it == sc.jobs.end()) fail(path, where, "no workload job is named '" + name + "'");
    if (it->admitted) fail(path, where, "job '" + name + "' is listed twice");
    if (running.count(name)) fail(path, where, "job '" + name + "' is also running at t0 (/initial_state/running): its PodGroup is Running, not Inqueue");
    if (it->submit != core::Time::zero())
      fail(path, where, "job '" + name + "' is submitted at " + std::to_string(it->submit.ns() / 1'000'000'000) +
                            " s; a job admitted at t0 has submit 0s (its submission lies before the run)");
    it->admitted = true;
  }
}

void read_initial_state(const std::string& path, const json& is, models::TrainingScenario& sc, int cores_per_device) {
  read_admitted(path, is, sc);
  if (!is.contains("running") || is["running"].empty()) return;
  if (sc.duration_model == models::DurationModel::Derived)
    fail(path, "/initial_state", "jobs running at t0 with duration_model 'derived' are not modelled yet");
  std::vector<InitialNode> nodes = nodes_at_t0(path, sc);
  std::string known;
  for (std::size_t k = 0; k < nodes.size() && k < 8; ++k) known += (k ? ", " : "") + nodes[k].name;
  if (nodes.size() > 8) known += ", ...";
  const json& list = is["running"];
  std::vector<std::size_t> order;                       // job index per entry
  std::vector<std::shared_ptr<models::InitialRun>> runs;  // per entry
  std::vector<policy::Resource> pods;                   // per entry: one pod's requests
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    const std::string where = "/initial_state/running/" + std::to_string(i);
    const std::string name = e["job"].get<std::string>();
    std::size_t idx = sc.jobs.size();
    for (std::size_t k = 0; k < sc.jobs.size(); ++k)
      if (sc.jobs[k].name == name) {
        idx = k;
        break;
      }
    if (idx == sc.jobs.size()) fail(path, where + "/job", "no workload job is named '" + name + "'");
    if (!seen.insert(name).second) fail(path, where + "/job", "job '" + name + "' is listed twice");
    const models::TrainingJobSpec& j = sc.jobs[idx];
    if (j.independent_pods())
      fail(path, where + "/job", "job '" + name + "' has tasks (independent pods); a job running at t0 is a torchrun gang "
                                 "(independent pods at t0 are not modelled)");
    if (j.submit != core::Time::zero())
      fail(path, where + "/job", "job '" + name + "' is submitted at " + std::to_string(j.submit.ns() / 1'000'000'000) +
                                     " s; a job running at t0 has submit 0s (its submission lies before the run)");
    const core::Duration started = duration_of(path, where + "/started", e["started"]);
    if (started > core::Duration::ns(0))
      fail(path, where + "/started", "is in the future: a running job started at or before t0 (\"-600s\": 10 minutes before)");
    auto r = std::make_shared<models::InitialRun>();
    r->elapsed = core::Duration::ns(0) - started;
    if (e.contains("remaining")) {
      r->remaining = duration_of(path, where + "/remaining", e["remaining"]);
      if (r->remaining <= core::Duration::ns(0) || r->remaining > j.duration)
        fail(path, where + "/remaining", "expected a duration above 0 and at most the job's duration");
    } else {
      r->remaining = j.duration - r->elapsed;
      if (r->remaining <= core::Duration::ns(0))
        fail(path, where + "/started", "job '" + name + "' started " + std::to_string(r->elapsed.count_ns() / 1'000'000'000) +
                                           " s before t0 and trains for " + std::to_string(j.duration.count_ns() / 1'000'000'000) +
                                           " s: it has finished (give remaining if it runs longer than its duration)");
    }
    if (e.contains("nodes") && static_cast<int>(e["nodes"].size()) != j.nnodes)
      fail(path, where + "/nodes", std::to_string(e["nodes"].size()) + " node(s) for the job's " + std::to_string(j.nnodes) + " pod(s)");
    order.push_back(idx);
    runs.push_back(r);
    // The pod's requests as the model counts them (NeuronCores per device of the catalog).
    pods.push_back(policy::task_resreq(models::pod_requests(j, cores_per_device)));
  }
  auto place = [&](std::size_t i, InitialNode& n, const std::string& at) {
    const models::TrainingJobSpec& j = sc.jobs[order[i]];
    // A pod named on a cordoned node was placed before the cordon: the taint `kubectl cordon`
    // adds (node.kubernetes.io/unschedulable:NoSchedule) keeps new pods off and evicts none
    // (Kubernetes "Taints and Tolerations": NoSchedule), so it does not exclude a named pod.
    std::vector<policy::Taint> taints = sc.node_groups[n.group].taints;
    if (!at.empty())
      std::erase_if(taints, [](const policy::Taint& t) {
        return t.key == "node.kubernetes.io/unschedulable" && t.effect == policy::TaintEffect::NoSchedule;
      });
    const std::string misfit = policy::static_misfit(models::pod_constraints(j), n.labels, n.name, taints);
    if (!misfit.empty()) {
      if (at.empty()) return false;
      fail(path, at, "job '" + j.name + "' cannot run on node " + n.name + ": " + misfit);
    }
    if (!pods[i].less_equal(n.room)) {
      if (at.empty()) return false;
      fail(path, at, "node " + n.name + " has {" + n.room.to_string() + "} left at t0 (its allocatable less the DaemonSets and the pods "
                     "placed before), too little for a pod of job '" + j.name + "' {" + pods[i].to_string() + "}");
    }
    n.room = n.room - pods[i];
    runs[i]->nodes.push_back(n.name);
    return true;
  };
  // The named placements first, then first fit.
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].contains("nodes")) continue;
    for (std::size_t k = 0; k < list[i]["nodes"].size(); ++k) {
      const std::string want = list[i]["nodes"][k].get<std::string>();
      const std::string at = "/initial_state/running/" + std::to_string(i) + "/nodes/" + std::to_string(k);
      auto it = std::find_if(nodes.begin(), nodes.end(), [&](const InitialNode& n) { return n.name == want; });
      if (it == nodes.end())
        fail(path, at, "no node '" + want + "' at t0 (" +
                           (any_observed(sc) ? std::string("the cluster's nodes: ") : std::string("nodes are <node group>-<index>: ")) + known + ")");
      place(i, *it, at);
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].contains("nodes")) continue;
    for (int k = 0; k < sc.jobs[order[i]].nnodes; ++k) {
      bool placed = false;
      for (InitialNode& n : nodes)  // a cordoned node takes no new pod; a named placement may still be on it
        if (!n.cordoned && (placed = place(i, n, ""))) break;
      if (!placed)
        fail(path, "/initial_state/running/" + std::to_string(i), "no node at t0 has room for pod " + std::to_string(k) + " of job '" +
                                                                       sc.jobs[order[i]].name + "' {" + pods[i].to_string() + "}");
    }
  }
  running_jobs_first(sc, order, runs);
}

}  // namespace

// /volcano: the scheduler configuration, under Volcano's own keys. Plugin arguments Volcano
// would ignore are warnings (a ConfigMap's were reported at their YAML lines already).
void detail::TrainingLoad::read_scheduler(bool config_from_yaml) {
  const json& v = doc["volcano"];
  if (v.contains("schedule_period")) {
    sc.scheduler.schedule_period_ns = duration_of(path, "/volcano/schedule_period", v["schedule_period"]).count_ns();
    if (sc.scheduler.schedule_period_ns <= 0) fail(path, "/volcano/schedule_period", "expected a positive period");
  }
  {
    const std::int64_t period = sc.scheduler.schedule_period_ns;
    sc.scheduler = detail::scheduler_config_of(v);
    sc.scheduler.schedule_period_ns = period;
  }
  if (std::string err = sc.scheduler.validate(); !err.empty()) {
    std::string where = "/volcano";
    if (const auto colon = err.find(": "); colon != std::string::npos) {
      if (std::string ptr = config_pointer(err.substr(0, colon)); !ptr.empty()) {
        where += ptr;
        err = err.substr(colon + 2);
      }
    }
    fail(path, where, err);
  }
  // Plugin arguments Volcano would ignore (unknown keys, subjects mltwin does not model): the
  // ConfigMap's were reported at their YAML lines above.
  if (!config_from_yaml)
    for (const policy::ArgIssue& i : sc.scheduler.check_arguments())
      if (i.severity == policy::ArgIssue::Severity::Warning) {
        const std::string ptr = config_pointer(i.where);
        out.warnings.push_back(path + ": /volcano" + (ptr.empty() ? std::string() : ptr) + ": " + i.message);
      }
  if (opts.strict && !out.warnings.empty())
    throw ScenarioError(out.warnings.front() + " (--strict: warnings are errors)");
}

// /queues: Volcano Queues, a tree under root.
void detail::TrainingLoad::read_queues() {
  const auto& queues = doc["queues"];
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const json& q = queues[i];
    const std::string where = "/queues/" + std::to_string(i);
    models::QueueSpec qs = detail::queue_of(path, where, q);
    if (!queue_names.insert(qs.name).second) fail(path, where + "/name", "duplicate queue '" + qs.name + "'");
    if (std::string p = detail::object_name_problem(qs.name, "Queue"); !p.empty()) fail(path, where + "/name", p);
    sc.queues.push_back(qs);
  }
  {
    std::size_t at = 0;
    if (std::string why = detail::queue_tree_problem(sc.queues, at); !why.empty())
      fail(path, "/queues/" + std::to_string(at) + (why.rfind("the root", 0) == 0 ? "/name" : "/parent"), why);
  }
}

// /lifecycle and /output: latencies (defaults stated in the schema docs; scenarios should set
// and cite them), the metrics interval, the starvation criterion.
void detail::TrainingLoad::read_lifecycle_and_output() {
  sc.bind_latency = {models::LatencySpec::Kind::Constant, core::Duration::ns(0), {}, "default: none"};
  sc.pod_startup = {models::LatencySpec::Kind::Constant, core::Duration::ns(0), {}, "default: none"};
  if (doc.contains("lifecycle")) {
    const json& l = doc["lifecycle"];
    if (l.contains("bind_latency")) sc.bind_latency = latency_of(path, "/lifecycle/bind_latency", l["bind_latency"]);
    if (l.contains("pod_startup")) sc.pod_startup = latency_of(path, "/lifecycle/pod_startup", l["pod_startup"]);
    if (l.contains("termination_grace_period"))
      sc.termination_grace = latency_of(path, "/lifecycle/termination_grace_period", l["termination_grace_period"]);
    if (l.contains("bind_failure_probability")) sc.bind_failure_probability = l["bind_failure_probability"].get<double>();
  }
  if (doc.contains("output") && doc["output"].contains("metrics_interval")) {
    sc.metrics_interval = duration_of(path, "/output/metrics_interval", doc["output"]["metrics_interval"]);
    if (sc.metrics_interval <= core::Duration::ns(0)) fail(path, "/output/metrics_interval", "expected a positive interval");
  }
  if (doc.contains("output") && doc["output"].contains("starvation_wait_factor"))
    sc.starvation_wait_factor = doc["output"]["starvation_wait_factor"].get<double>();
}

LoadedScenario load_scenario(const std::string& path, const LoadOptions& opts) {
  LoadedScenario out;
  out.path = path;
  json doc = opts.document != nullptr ? *opts.document : detail::read_json_file(path);
  if (!opts.overrides.is_null()) doc.merge_patch(opts.overrides);
  // Names and texts reach terminals and file names: no control characters anywhere.
  detail::check_printable(path, doc);
  // Version 1 (no /schema_version) is refused with the command that rewrites it.
  detail::check_schema_version(path, doc);
  // A wrong type names the type(s) the schema expects there, e.g.
  // `/cluster/node_groups/0/desired_capacity: expected integer, got string "4"`.
  // /cluster/kubernetes_version before the schema: its pattern's "Failed to match regex" would
  // not say which form is expected ("v1.30.2" -> expected "1.<minor>").
  if (doc.is_object() && doc.contains("cluster") && doc["cluster"].is_object() && doc["cluster"].contains("kubernetes_version")) {
    models::TrainingScenario version_only;
    read_kubernetes_version(path, doc, version_only);
  }
  // Where the nodes come from, before the schema (whose anyOf / not name no key): node groups
  // (written, or an eksctl ClusterConfig's) and the user's own Node objects, which may be added
  // to either.
  if (doc.is_object() && doc.contains("cluster") && doc["cluster"].is_object()) {
    const json& c = doc["cluster"];
    if (c.contains("node_groups") && c.contains("eksctl"))
      fail(path, "/cluster", "expected exactly one of 'node_groups', 'eksctl', found 2 (nodes_from may be given with either)");
    if (!c.contains("node_groups") && !c.contains("eksctl") && !c.contains("nodes_from"))
      fail(path, "/cluster", "expected one of 'node_groups', 'eksctl', 'nodes_from' (kubectl Node objects), found none");
  }
  // A cluster whose jobs all come from its pods (/cluster/pods_from) needs no other workload.
  if (doc.is_object() && doc.contains("cluster") && doc["cluster"].is_object() && doc["cluster"].contains("pods_from") &&
      doc.contains("workload") && doc["workload"].is_object() && !doc["workload"].contains("philly") && !doc["workload"].contains("jobs") &&
      !doc["workload"].contains("manifests") && !doc["workload"].contains("history"))
    doc["workload"]["jobs"] = json::array();
  validator().validate(path, doc);
  out.json = doc;
  out.name = detail::scenario_name_of(path, doc);
  out.seed = detail::seed_of(path, doc);
  models::TrainingScenario& sc = out.training;

  if (doc["volcano"]["release"].get<std::string>() != policy::kVolcanoRelease)
    fail(path, "/volcano/release", "mltwin reproduces Volcano " + std::string(policy::kVolcanoRelease) + ", not '" +
                                       doc["volcano"]["release"].get<std::string>() + "'");
  // Instance types: the shipped catalog and the scenario's own rows over it.
  const detail::ScenarioCatalog cat = detail::scenario_catalog(path, doc, opts.catalog_path, out.inputs);
  out.catalog_path = cat.shipped_path;
  sc.catalog = cat.catalog;
  // Files the scenario references (scheduler ConfigMap, eksctl config, manifests) become the
  // entries they stand for; out.json keeps the scenario as written.
  detail::YamlOrigins::Places places;
  const bool config_from_yaml = doc.contains("volcano") && doc["volcano"].contains("scheduler_config");
  detail::expand_config_files(path, doc, opts.data_dir, out.data_dir, out.inputs, cat, places, out.warnings);
  const std::uint64_t draw_seed = opts.seed.value_or(out.seed);
  if (doc["cluster"].contains("pods_from") && doc["workload"].contains("history"))
    // A history replays the past from its first submit_time; pods_from starts from the cluster as
    // it is now: together, yesterday's jobs would run after now, beside (and twice with) today's.
    fail(path, "/cluster/pods_from",
         "cannot be given with /workload/history: the history replays what happened from its first submit_time, pods_from starts from "
         "the cluster now; make one scenario of each (README, step 6: replay the history and compare, then ask the what-if from now "
         "with pods_from; a history may still give pods_from's run times: duration model median_finished or history_distribution)");
  detail::expand_job_history(path, doc, opts.data_dir, out.data_dir, out.inputs, places, out.history, draw_seed, out.warnings);
  detail::expand_pods_from(path, doc, opts.data_dir, out.data_dir, out.inputs, places, out.pods_from, draw_seed, out.warnings);
  // Errors about node groups read from an eksctl ClusterConfig, or jobs read from manifests,
  // name the YAML object.
  const detail::YamlOrigins origins(std::move(places));

  detail::TrainingLoad ld(path, doc, opts, out, sc, cat);
  ld.read_cluster();
  // The network (optional; its figures and sources: docs/fabric.md).
  if (doc.contains("fabric")) sc.fabric = fabric_of(path, doc["fabric"], cat, sc.node_groups);
  ld.read_scheduler(config_from_yaml);
  ld.read_queues();
  // PriorityClasses (those of the manifests were merged into /priority_classes above).
  if (doc.contains("priority_classes")) ld.classes.add_json(path, doc["priority_classes"]);
  ld.read_lifecycle_and_output();
  ld.read_workload();
  read_startup(path, doc, sc);
  read_kubernetes_version(path, doc, sc);
  read_faults(path, doc, sc);
  read_autoscaler(path, doc, sc);
  // The step model (docs/step-model.md), and durations derived from it.
  if (doc.contains("step_model")) sc.step_model = step_model_of(path, doc["step_model"], sc);
  ld.read_duration_model();
  ld.check_zones();
  ld.check_extended_resources();
  if (doc.contains("initial_state")) read_initial_state(path, doc["initial_state"], sc, ld.cores_per_device);
  ld.check_job_queues();
  return out;
}

}  // namespace mltwin::io
