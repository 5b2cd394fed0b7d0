#include "mltwin/policy/version.hpp"
#include "mltwin/io/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "k8s_objects.hpp"
#include "mltwin/io/philly.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"
#include "scenario_schema.hpp"  // generated: kScenarioSchema

namespace mltwin::io {

namespace fs = std::filesystem;
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
constexpr double kMiB = 1024.0 * 1024.0;

/// A kubelet reservation (schema: definitions/kubelet_reserved) for a node of type `it`, in
/// mltwin units: kube-reserved + system-reserved + the hard eviction threshold on memory
/// (Kubernetes "Reserve Compute Resources for System Daemons": allocatable = capacity -
/// kube-reserved - system-reserved - eviction-threshold). Formula eks-ami: kube-reserved from
/// models::eks_ami_kube_reserved and evictionHard memory.available 100Mi, the defaults of the
/// EKS AMI's kubelet configuration (amazon-eks-ami nodeadm/internal/kubelet/config.go
/// defaultKubeletSubConfig); a key the scenario gives replaces its part of the formula.
policy::Resource kubelet_reserved_of(const std::string& path, const std::string& where, const json& kr,
                                     const models::InstanceType& it, const std::string& it_where, int /*cores_per_device*/) {
  // it_where: where the type's catalog row is ("<catalog file>: /instance_types/N" or "/catalog/instance_types/N").
  double cpu_milli = 0, mem = 0, evict = 0;
  if (kr.contains("formula")) {
    if (it.max_pods <= 0)
      detail::fail(path, where + "/formula",
                   "formula eks-ami needs the kubelet's maxPods of " + it.name + ", which its catalog row (" + it_where +
                       ") does not give: give the row with max_pods under /catalog/instance_types (amazon-eks-ami eni-max-pods.txt)");
    const models::KubeReserved k = models::eks_ami_kube_reserved(it.vcpu, it.max_pods);
    cpu_milli = static_cast<double>(k.cpu_millicores);
    mem = static_cast<double>(k.memory_mib) * kMiB;
    evict = 100 * kMiB;
  }
  if (kr.contains("kube_reserved")) {
    const json& k = kr["kube_reserved"];
    const policy::Resource r = detail::resources_of(path, where + "/kube_reserved", k);
    if (k.contains("cpu")) cpu_milli = r.milli_cpu;
    if (k.contains("memory")) mem = r.memory;
  }
  if (kr.contains("eviction_hard") && kr["eviction_hard"].contains("memory.available")) {
    // A quantity, or a percentage of the node's memory (kubelet eviction thresholds take both).
    const json& q = kr["eviction_hard"]["memory.available"];
    const std::string at = where + "/eviction_hard/memory.available";
    try {
      if (q.is_string() && !q.get<std::string>().empty() && q.get<std::string>().back() == '%') {
        const std::string num = q.get<std::string>().substr(0, q.get<std::string>().size() - 1);
        std::size_t used = 0;
        const double pct = std::stod(num, &used);
        if (used != num.size() || pct < 0 || pct > 100) throw std::invalid_argument("expected a percentage from 0% to 100%");
        evict = it.memory_gib * kGiB * pct / 100.0;
      } else {
        evict = parse_quantity(q);
      }
    } catch (const std::exception& e) {
      detail::fail(path, at, std::string(e.what()) + " (expected a quantity such as 100Mi, or a percentage such as 5%)");
    }
  }
  policy::Resource out;
  out.milli_cpu = cpu_milli;
  out.memory = mem + evict;
  if (kr.contains("system_reserved"))
    out.add(detail::resources_of(path, where + "/system_reserved", kr["system_reserved"]));
  return out;
}

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

models::SpotAllocationStrategy spot_strategy_of(const std::string& s) {
  if (s == "lowest-price") return models::SpotAllocationStrategy::LowestPrice;
  if (s == "capacity-optimized") return models::SpotAllocationStrategy::CapacityOptimized;
  if (s == "capacity-optimized-prioritized") return models::SpotAllocationStrategy::CapacityOptimizedPrioritized;
  return models::SpotAllocationStrategy::PriceCapacityOptimized;  // the schema allows these four
}

// The newest Linux/UNIX Spot price of each (instance type, zone) in an `aws ec2
// describe-spot-price-history --output json` file: {"SpotPriceHistory": [{"AvailabilityZone",
// "InstanceType", "ProductDescription", "SpotPrice" (a string, USD/h), "Timestamp"}]}.
// EKS nodes run Linux: "Linux/UNIX" and "Linux/UNIX (Amazon VPC)" (the same price under EC2's
// two platform names) count, other products (Windows, SUSE, Red Hat) are skipped.
struct SpotQuote {
  double usd_per_hour = 0;
  std::string timestamp;  // UTC, "YYYY-MM-DDTHH:MM:SS[.fff]"
};
struct SpotHistory {
  std::string file;
  std::string as_written;  // the path as the scenario writes it: what the nodes' price source records
  std::map<std::pair<std::string, std::string>, SpotQuote> newest;  // (type, zone) -> quote
};
SpotHistory read_spot_price_history(const std::string& file) {
  SpotHistory h;
  h.file = file;
  const json doc = detail::read_json_file(file);
  if (!doc.is_object() || !doc.contains("SpotPriceHistory") || !doc["SpotPriceHistory"].is_array())
    throw ScenarioError(file + ": expected the output of `aws ec2 describe-spot-price-history --output json`: an object with a SpotPriceHistory array");
  const json& list = doc["SpotPriceHistory"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "/SpotPriceHistory/" + std::to_string(i);
    const json& e = list[i];
    if (!e.is_object()) fail(file, at, "expected an object");
    auto text = [&](const char* key) {
      if (!e.contains(key) || !e[key].is_string()) fail(file, at + "/" + key, "expected a string");
      return e[key].get<std::string>();
    };
    const std::string product = text("ProductDescription");
    const std::string type = text("InstanceType"), zone = text("AvailabilityZone"), price_text = text("SpotPrice");
    std::string ts = text("Timestamp");
    // ISO 8601 in UTC, as the AWS CLI prints it ("2024-05-01T12:00:00+00:00" or "...Z").
    const bool utc = ts.size() > 19 && (ts.back() == 'Z' || (ts.size() > 6 && ts.compare(ts.size() - 6, 6, "+00:00") == 0));
    const bool shape = ts.size() >= 19 && ts[4] == '-' && ts[7] == '-' && ts[10] == 'T' && ts[13] == ':' && ts[16] == ':';
    if (!utc || !shape) fail(file, at + "/Timestamp", "expected a UTC time as the AWS CLI prints it (2024-05-01T12:00:00+00:00), got '" + detail::printable(ts) + "'");
    ts.erase(ts.back() == 'Z' ? ts.size() - 1 : ts.size() - 6);
    if (product != "Linux/UNIX" && product != "Linux/UNIX (Amazon VPC)") continue;
    double usd = 0;
    try {
      std::size_t used = 0;
      usd = std::stod(price_text, &used);
      if (used != price_text.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      fail(file, at + "/SpotPrice", "expected a price in USD per hour as a decimal string (\"0.4567\"), got '" + detail::printable(price_text) + "'");
    }
    if (!(usd > 0) || !std::isfinite(usd) || usd > 1e6) fail(file, at + "/SpotPrice", "expected a price above 0 and at most 1000000 USD/h");
    SpotQuote& q = h.newest[{type, zone}];
    if (ts > q.timestamp) q = {usd, ts};  // the newest; at equal times the first listed (the CLI lists newest first)
  }
  return h;
}

// instance_type / instance_types, capacity_type, the Spot allocation and instances_distribution
// of the node group at `where`, and each Spot type's price (docs/catalog.md, "Several instance
// types, Spot").
void read_group_capacity(const std::string& path, const std::string& where, const json& g, const detail::ScenarioCatalog& cat,
                         const SpotHistory* history, models::NodeGroupSpec& ng) {
  if (g.contains("instance_type") == g.contains("instance_types"))
    fail(path, where, "give the group's instance_type, or its instance_types (several: the Auto Scaling group's launch template overrides, in priority order), not both and not neither");
  if (g.contains("instance_type")) ng.instance_types = {g["instance_type"].get<std::string>()};
  else ng.instance_types = g["instance_types"].get<std::vector<std::string>>();
  const std::string types_at = g.contains("instance_type") ? where + "/instance_type" : where + "/instance_types";
  for (std::size_t k = 0; k < ng.instance_types.size(); ++k) {
    const std::string at = g.contains("instance_type") ? types_at : types_at + "/" + std::to_string(k);
    cat.require(path, at, ng.instance_types[k]);
    if (std::string p = cat.use_problem(ng.instance_types[k], detail::ScenarioCatalog::Use::EksNodeGroup); !p.empty()) fail(path, at, p);
    // The run's cost prices On-Demand nodes at the catalog's on-demand price.
    cat.require_price(path, at, ng.instance_types[k]);
    ng.on_demand_price_source.push_back(cat.row_where_recorded(ng.instance_types[k]) + " on_demand_usd_per_hour, " +
                                        cat.catalog.find(ng.instance_types[k])->region_of_price);
    for (std::size_t m = 0; m < k; ++m)
      if (ng.instance_types[m] == ng.instance_types[k]) fail(path, at, "'" + ng.instance_types[k] + "' is listed twice");
  }
  const bool spot_type = g.value("capacity_type", std::string("ON_DEMAND")) == "SPOT";
  for (const char* k : {"spot_allocation_strategy", "spot_instance_pools"})
    if (g.contains(k) && !spot_type)
      fail(path, where + "/" + k, "applies to a Spot managed node group (capacity_type SPOT); an On-Demand group launches its first instance type (prioritized)");
  if (spot_type) {
    if (g.contains("instances_distribution"))
      fail(path, where + "/instances_distribution",
           "capacity_type is an EKS managed node group's; instances_distribution a self-managed group's MixedInstancesPolicy (eksctl nodeGroups): give one");
    // EKS User Guide, "Managed node group capacity types": a Spot managed node group's Auto
    // Scaling group is all Spot, allocated price-capacity-optimized (clusters on Kubernetes 1.28
    // and later; capacity-optimized before), with Capacity Rebalancing enabled.
    ng.distribution.on_demand_percentage_above_base = 0;
    ng.distribution.spot_allocation_strategy = spot_strategy_of(g.value("spot_allocation_strategy", std::string("price-capacity-optimized")));
    ng.capacity_rebalance = true;
    if (g.contains("spot_instance_pools")) {
      if (ng.distribution.spot_allocation_strategy != models::SpotAllocationStrategy::LowestPrice)
        fail(path, where + "/spot_instance_pools", "applies to spot_allocation_strategy lowest-price only (as eksctl's validation says)");
      ng.distribution.spot_instance_pools = g["spot_instance_pools"];
    }
  }
  double max_price = 0;
  std::string max_price_at;
  if (g.contains("instances_distribution")) {
    // EC2 Auto Scaling InstancesDistribution, as eksctl's nodeGroups instancesDistribution writes
    // it (pkg/cfn/builder/nodegroup.go); the defaults are Auto Scaling's.
    const json& d = g["instances_distribution"];
    const std::string dat = where + "/instances_distribution";
    ng.mixed_instances_policy = true;
    ng.distribution.on_demand_base_capacity = d.value("on_demand_base_capacity", 0);
    ng.distribution.on_demand_percentage_above_base = d.value("on_demand_percentage_above_base_capacity", 100);
    ng.distribution.spot_allocation_strategy = spot_strategy_of(d.value("spot_allocation_strategy", std::string("lowest-price")));
    if (d.contains("spot_instance_pools")) {
      if (ng.distribution.spot_allocation_strategy != models::SpotAllocationStrategy::LowestPrice)
        fail(path, dat + "/spot_instance_pools", "applies to spot_allocation_strategy lowest-price only (eksctl validation.go: spotInstancePools cannot be specified with the capacity-optimized strategies)");
      ng.distribution.spot_instance_pools = d["spot_instance_pools"];
    }
    ng.capacity_rebalance = d.value("capacity_rebalance", false);
    if (d.contains("spot_max_price")) {
      max_price = d["spot_max_price"];
      max_price_at = dat + "/spot_max_price";
    }
  }
  if (!models::launches_spot(ng)) return;
  // Every type may launch as Spot (capacity strategies spread over all of them; lowest-price
  // ranks all of them by price): each needs its Spot price.
  for (std::size_t k = 0; k < ng.instance_types.size(); ++k) {
    const std::string& type = ng.instance_types[k];
    const std::string at = g.contains("instance_type") ? types_at : types_at + "/" + std::to_string(k);
    double usd = 0;
    std::string source;
    if (history != nullptr) {
      // In the group's zone; without one, the mean of each zone's newest price (an Auto Scaling
      // group balances its instances evenly across its zones, EC2 Auto Scaling User Guide,
      // "Allocation strategies").
      int zones = 0;
      std::string list;
      for (const auto& [key, q] : history->newest)
        if (key.first == type && (ng.availability_zone.empty() || key.second == ng.availability_zone)) {
          usd += q.usd_per_hour;
          ++zones;
          list += (list.empty() ? "" : ", ") + key.second + " " + q.timestamp;
        }
      if (zones > 0) {
        usd /= zones;
        // Recorded in the results (nodes.price_source): the file as the scenario names it, as
        // `inputs` does, never the folder it was found in.
        source = history->as_written + ": newest Linux/UNIX SpotPrice" + (zones > 1 ? " (mean over zones: " : " (") + list + ")";
      }
    }
    if (source.empty()) {
      const models::InstanceType* it = cat.catalog.find(type);
      if (it->spot) {
        usd = it->spot->usd_per_hour;
        source = cat.row_where_recorded(type) + " spot: " + it->spot->region + " " + it->spot->date + ", " + it->spot->source;
      }
    }
    if (source.empty())
      fail(path, at,
           "node group '" + ng.name + "' launches Spot nodes of '" + type + "', which has no Spot price: give the row a \"spot\": "
           "{usd_per_hour, region, date, source} under /catalog/instance_types (a scenario row replaces the shipped row "
           "whole: copy it from " + cat.row_where(type) + " and add \"spot\"), or the output of `aws ec2 describe-spot-price-history "
           "--output json` as /cluster/spot_price_history" +
               (history ? " (" + history->file + " has no Linux/UNIX price for it" +
                              (ng.availability_zone.empty() ? std::string() : " in " + ng.availability_zone) + ")"
                        : std::string()));
    if (!max_price_at.empty() && usd > max_price)
      fail(path, max_price_at,
           "the Spot price of '" + type + "' (" + detail::go_json_float(usd) + " USD/h) is above the maximum price (" + detail::go_json_float(max_price) +
               "): the Auto Scaling group would launch no Spot instance of it");
    ng.spot_usd_per_hour.push_back(usd);
    ng.spot_price_source.push_back(source);
  }
}

// The startup, faults and cluster.autoscaler blocks (models/startup.hpp).
void read_startup_and_faults(const std::string& path, const json& doc, models::TrainingScenario& sc) {
  auto positive = [&](const std::string& where, const json& v) {
    const core::Duration d = duration_of(path, where, v);
    if (d < core::Duration::ns(0)) fail(path, where, "expected a duration >= 0");
    return d;
  };
  auto bytes_of = [&](const std::string& where, const json& v) {
    try {
      return parse_quantity(v);
    } catch (const std::invalid_argument& e) {
      fail(path, where, e.what());
    }
  };
  if (doc.contains("startup")) {
    const json& st = doc["startup"];
    models::StartupSpec sp;
    const json& im = st["image"];
    sp.image = im.value("name", std::string());
    sp.image_bytes = bytes_of("/startup/image/bytes", im["bytes"]);
    sp.pull_bytes_per_s = im.contains("pull_gbps") ? im["pull_gbps"].get<double>() * 1e9 / 8 : im["pull_bytes_per_s"].get<double>();
    sp.image_source = im["source"];
    if (sp.image_bytes / sp.pull_bytes_per_s > kMaxScenarioTime.seconds())
      fail(path, "/startup/image", "pulling " + std::to_string(sp.image_bytes) + " bytes would take " + std::to_string(sp.image_bytes / sp.pull_bytes_per_s) +
                                       " s, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
    sp.rendezvous = positive("/startup/rendezvous/duration", st["rendezvous"]["duration"]);
    sp.rendezvous_source = st["rendezvous"]["source"];
    const json& ne = st["neuron"];
    sp.mode = ne["mode"] == "jit" ? models::CompileMode::Jit : models::CompileMode::ParallelCompile;
    for (std::size_t i = 0; i < ne["models"].size(); ++i) {
      const json& m = ne["models"][i];
      const std::string where = "/startup/neuron/models/" + std::to_string(i);
      models::NeuronModelSpec ms;
      ms.name = m["name"];
      if (sp.find_model(ms.name)) fail(path, where + "/name", "duplicate model '" + ms.name + "'");
      ms.jit_compile = positive(where + "/jit_compile", m["jit_compile"]);
      ms.parallel_compile = positive(where + "/parallel_compile", m["parallel_compile"]);
      if (m.contains("dataset_bytes")) ms.dataset_bytes = bytes_of(where + "/dataset_bytes", m["dataset_bytes"]);
      ms.source = m["source"];
      sp.models.push_back(ms);
    }
    sp.default_model = ne["default_model"];
    if (!sp.find_model(sp.default_model))
      fail(path, "/startup/neuron/default_model", "'" + sp.default_model + "' is not in /startup/neuron/models");
    sp.default_flags = ne.value("default_flags", std::string());
    sp.cache_url = ne.value("compile_cache_url", std::string());
    sp.cache_load = positive("/startup/neuron/cache_load_time", ne["cache_load_time"]);
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
  if (doc.contains("faults")) {
    const json& f = doc["faults"];
    models::FaultSpec fs;
    fs.failure_rate_per_node_hour = f.value("node_failure_rate_per_node_hour", 0.0);
    fs.replacement_time = positive("/faults/replacement_time", f["replacement_time"]);
    fs.source = f["source"];
    // <node group>-<index> with index < desired_capacity (no set of every name: clusters are large).
    auto node_at_t0 = [&](const std::string& node) {
      for (const auto& g : sc.node_groups) {
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
        models::NodeFailureAt at{e["node"], positive(where + "/at", e["at"])};
        if (!node_at_t0(at.node)) fail(path, where + "/node", "no node '" + at.node + "' at t = 0 (nodes are named <node group>-<index>)");
        fs.scheduled.push_back(at);
      }
    // Spot interruptions (docs/startup-and-faults.md): notices at a rate, or at given times.
    fs.spot_interruption_rate_per_node_hour = f.value("spot_interruption_rate_per_node_hour", 0.0);
    if (f.contains("spot_notice")) fs.spot_notice = positive("/faults/spot_notice", f["spot_notice"]);
    if (f.contains("spot_interruptions"))
      for (std::size_t i = 0; i < f["spot_interruptions"].size(); ++i) {
        const json& e = f["spot_interruptions"][i];
        const std::string where = "/faults/spot_interruptions/" + std::to_string(i);
        models::NodeFailureAt at{e["node"], positive(where + "/at", e["at"])};
        if (!node_at_t0(at.node)) fail(path, where + "/node", "no node '" + at.node + "' at t = 0 (nodes are named <node group>-<index>)");
        for (const auto& g : sc.node_groups)
          if (at.node.compare(0, g.name.size() + 1, g.name + "-") == 0 && at.node.size() > g.name.size() + 1 &&
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
  if (doc["cluster"].contains("autoscaler")) {
    const json& a = doc["cluster"]["autoscaler"];
    models::AutoscalerSpec as;
    if (a.contains("scan_interval")) as.scan_interval = positive("/cluster/autoscaler/scan_interval", a["scan_interval"]);
    if (as.scan_interval <= core::Duration::ns(0)) fail(path, "/cluster/autoscaler/scan_interval", "expected a positive interval");
    if (a.contains("scale_down_unneeded_time"))
      as.scale_down_unneeded_time = positive("/cluster/autoscaler/scale_down_unneeded_time", a["scale_down_unneeded_time"]);
    if (a.contains("scale_down_delay_after_add"))
      as.scale_down_delay_after_add = positive("/cluster/autoscaler/scale_down_delay_after_add", a["scale_down_delay_after_add"]);
    as.launch_time = positive("/cluster/autoscaler/launch_time", a["launch_time"]);
    as.source = a["source"];
    sc.autoscaler = as;
  }
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
void read_initial_state(const std::string& path, const json& is, models::TrainingScenario& sc, int cores_per_device) {
  if (sc.duration_model == models::DurationModel::Derived)
    fail(path, "/initial_state", "jobs running at t0 with duration_model 'derived' are not modelled yet");
  struct Node {
    std::string name;
    std::size_t group;
    policy::Resource room;
    std::vector<std::pair<std::string, std::string>> labels;
  };
  std::int64_t count = 0;
  for (const auto& g : sc.node_groups) count += g.count;
  if (count > kMaxInitialStateNodes)
    fail(path, "/initial_state", "places jobs on clusters of at most " + std::to_string(kMaxInitialStateNodes) + " nodes; this one has " +
                                     std::to_string(count) + " at t0 (docs/limits.md)");
  std::vector<Node> nodes;
  for (std::size_t g = 0; g < sc.node_groups.size(); ++g)
    for (int i = 0; i < sc.node_groups[g].count; ++i) {
      Node n;
      n.name = sc.node_groups[g].name + "-" + std::to_string(i);
      n.group = g;
      const models::NodeLaunch launch = models::node_launch(sc.node_groups[g], i);
      n.room = models::node_resources(sc, sc.node_groups[g], launch, n.name).pod_room();
      n.labels = models::node_labels(sc.node_groups[g], launch);
      n.labels.emplace_back("kubernetes.io/hostname", n.name);
      std::sort(n.labels.begin(), n.labels.end());
      nodes.push_back(std::move(n));
    }
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
  auto place = [&](std::size_t i, Node& n, const std::string& at) {
    const models::TrainingJobSpec& j = sc.jobs[order[i]];
    const std::string misfit = policy::static_misfit(models::pod_constraints(j), n.labels, n.name, sc.node_groups[n.group].taints);
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
      auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == want; });
      if (it == nodes.end()) fail(path, at, "no node '" + want + "' at t0 (nodes are <node group>-<index>: " + known + ")");
      place(i, *it, at);
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].contains("nodes")) continue;
    for (int k = 0; k < sc.jobs[order[i]].nnodes; ++k) {
      bool placed = false;
      for (Node& n : nodes)
        if ((placed = place(i, n, ""))) break;
      if (!placed)
        fail(path, "/initial_state/running/" + std::to_string(i), "no node at t0 has room for pod " + std::to_string(k) + " of job '" +
                                                                       sc.jobs[order[i]].name + "' {" + pods[i].to_string() + "}");
    }
  }
  // Running jobs first, in list order; the others keep theirs.
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

}  // namespace

std::string quantity_text(const json& q) {
  if (q.is_string()) return q.get<std::string>();
  if (q.is_number_integer()) return q.dump();  // signed or unsigned: its decimal digits
  if (q.is_number_float()) {
    const double v = q.get<double>();
    if (!std::isfinite(v)) throw std::invalid_argument("quantity must be a finite number");
    return detail::go_json_float(v);
  }
  throw std::invalid_argument("quantity must be a number or a string");
}

policy::Quantity quantity_of(const json& q) { return policy::parse_quantity(policy::go_trim_space(quantity_text(q))); }

double parse_quantity(const json& q) {
  const policy::Quantity x = quantity_of(q);
  if (x.sign() < 0) throw std::invalid_argument("'" + quantity_text(q) + "': quantity must be >= 0");
  (void)x.value();  // beyond int64: a QuantityError naming the amount
  return x.to_double();
}

std::string resolve_data_dir(const std::string& explicit_dir, const std::string& start_dir) {
  auto check = [](const std::string& d, const std::string& how) {
    if (!fs::is_directory(d)) throw ScenarioError(how + " names '" + d + "', which is not a folder");
    return d;
  };
  if (!explicit_dir.empty()) return check(explicit_dir, "--data");
  if (const char* env = std::getenv("MLTWIN_DATA"); env && *env) return check(env, "MLTWIN_DATA");
  for (fs::path p = fs::absolute(start_dir); ; p = p.parent_path()) {
    const fs::path cand = p / "shared" / "data";
    if (fs::is_directory(cand)) return cand.lexically_normal().string();
    if (p == p.root_path() || p.empty()) break;
  }
  throw ScenarioError("the scenario reads ${MLTWIN_DATA}, which is not set, and no shared/data folder was found above '" +
                      start_dir + "'; set MLTWIN_DATA (or --data) to the shared data folder (the one holding training/ and inference/)");
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
  // Errors about node groups read from an eksctl ClusterConfig, or jobs read from manifests,
  // name the YAML object.
  const detail::YamlOrigins origins(std::move(places));

  // The user's Spot price history (aws ec2 describe-spot-price-history), an input of the run.
  std::optional<SpotHistory> spot_history;
  if (doc["cluster"].contains("spot_price_history")) {
    const std::string as_written = doc["cluster"]["spot_price_history"];
    const std::string file = detail::resolve_input_path(as_written, path, opts.data_dir, out.data_dir);
    detail::require_input(path, "/cluster/spot_price_history", as_written, file);
    spot_history = read_spot_price_history(file);
    spot_history->as_written = as_written;
    out.inputs.push_back({"spot_price_history", file, as_written});
  }
  // Node groups.
  const auto& groups = doc["cluster"]["node_groups"];
  int cores_per_device = 0;
  std::set<std::string> group_names;
  std::int64_t total_nodes = 0;  // the most nodes the cluster can have: desired_capacity, or max_size with an autoscaler
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const json& g = groups[i];
    const std::string where = "/cluster/node_groups/" + std::to_string(i);
    models::NodeGroupSpec ng;
    ng.name = g["name"];
    if (!group_names.insert(ng.name).second) fail(path, where + "/name", "duplicate node group '" + ng.name + "'");
    ng.availability_zone = g.value("availability_zone", "");
    read_group_capacity(path, where, g, cat, spot_history ? &*spot_history : nullptr, ng);
    // Jobs that request aws.amazon.com/neuroncore count devices × NeuronCores per device: the
    // Neuron groups of one cluster must agree on it (groups without Neuron devices do not count).
    for (std::size_t k = 0; k < ng.instance_types.size(); ++k) {
      const models::InstanceType* it = sc.catalog.find(ng.instance_types[k]);
      if (it->trainium_chips == 0) continue;
      if (cores_per_device == 0) cores_per_device = it->neuroncores_per_chip;
      if (it->neuroncores_per_chip != cores_per_device)
        fail(path, g.contains("instance_type") ? where + "/instance_type" : where + "/instance_types/" + std::to_string(k),
             "Neuron node groups mix NeuronCores-per-device counts (" + std::to_string(cores_per_device) + " and " +
                 std::to_string(it->neuroncores_per_chip) + "); one cluster must use one");
    }
    ng.count = g["desired_capacity"];
    if (g.contains("min_size") != g.contains("max_size"))
      fail(path, where, "min_size and max_size go together (eksctl minSize/maxSize)");
    if (g.contains("min_size")) {
      ng.min_size = g["min_size"];
      ng.max_size = g["max_size"];
      if (!(ng.min_size <= ng.count && ng.count <= ng.max_size))
        fail(path, where, "expected min_size <= desired_capacity <= max_size, got " + std::to_string(ng.min_size) + ", " +
                              std::to_string(ng.count) + ", " + std::to_string(ng.max_size));
      if (!doc["cluster"].contains("autoscaler"))
        fail(path, where + "/min_size", "min_size/max_size need a cluster autoscaler: add /cluster/autoscaler");
    }
    if (g.contains("labels"))
      for (auto it2 = g["labels"].begin(); it2 != g["labels"].end(); ++it2) {
        if (std::string p = detail::qualified_name_problem(it2.key()); !p.empty()) fail(path, where + "/labels", "label key '" + it2.key() + "': " + p);
        if (std::string p = detail::label_value_problem(it2.value().get<std::string>()); !p.empty())
          fail(path, where + "/labels/" + detail::pointer_token_of(it2.key()), p);
        ng.labels.emplace_back(it2.key(), it2.value());
      }
    if (g.contains("taints")) ng.taints = detail::taints_of(path, where + "/taints", g["taints"]);
    if (g.contains("capacity")) {
      // Only what a catalog row cannot say: the rest of a node's capacity is its instance type's.
      ng.extra_capacity = detail::resources_of(path, where + "/capacity", g["capacity"]);
      for (const auto& e : ng.extra_capacity.scalars)
        if (e.name != policy::rn::kEphemeralStorage && !e.name.str().starts_with("hugepages-"))
          fail(path, where + "/capacity",
               "'" + std::string(e.name.str()) + "': a node group's capacity adds only ephemeral-storage and hugepages-*; "
               "other resources come from the instance type's catalog row (/catalog/instance_types)");
      if (ng.extra_capacity.milli_cpu != 0 || ng.extra_capacity.memory != 0)
        fail(path, where + "/capacity", "cpu and memory come from the instance type's catalog row (/catalog/instance_types)");
    }
    if (std::string p = detail::label_value_problem(ng.availability_zone); !p.empty())
      fail(path, where + "/availability_zone", "zone " + p + " (the value of the label topology.kubernetes.io/zone)");
    const int most = std::max(ng.count, ng.max_size);
    if (std::string p = detail::node_group_name_problem(ng.name, most - 1); !p.empty()) fail(path, where + "/name", p);
    total_nodes += most;
    if (total_nodes > kMaxNodes)
      fail(path, where + "/desired_capacity",
           "the node groups so far hold up to " + std::to_string(total_nodes) + " nodes; mltwin models clusters of at most " +
               std::to_string(kMaxNodes) + " nodes (docs/limits.md)");
    sc.node_groups.push_back(ng);
  }
  if (cores_per_device == 0) cores_per_device = 2;
  // Allocatable: each group's instance type less its kubelet reservation (its own, else the
  // cluster's); DaemonSets then hold part of it on the nodes they run on.
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string where = "/cluster/node_groups/" + std::to_string(i);
    const json& g = groups[i];
    const bool own = g.contains("kubelet_reserved");
    if (!own && !doc["cluster"].contains("kubelet_reserved")) continue;
    models::NodeGroupSpec& ng = sc.node_groups[i];
    // Per instance type: the EKS AMI's formula depends on the type's vCPUs and maxPods.
    for (std::size_t k = 0; k < ng.instance_types.size(); ++k) {
      const models::InstanceType& it = *sc.catalog.find(ng.instance_types[k]);
      const policy::Resource reserved =
          kubelet_reserved_of(path, own ? where + "/kubelet_reserved" : std::string("/cluster/kubelet_reserved"),
                              own ? g["kubelet_reserved"] : doc["cluster"]["kubelet_reserved"], it, cat.row_where(it.name), cores_per_device);
      const policy::Resource capacity = models::node_capacity(it);
      if (!reserved.less_equal(capacity))
        fail(path, own ? where + "/kubelet_reserved" : std::string("/cluster/kubelet_reserved"),
             "reserves {" + reserved.to_string() + "}, more than a " + it.name + " has {" + capacity.to_string() + "}");
      if (k == 0) ng.kubelet_reserved = reserved;
      if (ng.instance_types.size() > 1) ng.kubelet_reserved_by_type.push_back(reserved);
    }
  }
  if (doc["cluster"].contains("daemonsets")) {
    const json& list = doc["cluster"]["daemonsets"];
    std::set<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& d = list[i];
      const std::string where = "/cluster/daemonsets/" + std::to_string(i);
      models::DaemonSetSpec ds;
      ds.name = d["name"];
      if (!names.insert(ds.name).second) fail(path, where + "/name", "duplicate DaemonSet '" + ds.name + "'");
      if (std::string p = detail::object_name_problem(ds.name, "DaemonSet"); !p.empty()) fail(path, where + "/name", p);
      ds.requests = detail::resources_of(path, where + "/requests", d["requests"]);
      if (d.contains("node_selector")) {
        for (auto it = d["node_selector"].begin(); it != d["node_selector"].end(); ++it)
          ds.node_selector.emplace_back(it.key(), it.value().get<std::string>());
        std::sort(ds.node_selector.begin(), ds.node_selector.end());
      }
      if (d.contains("node_affinity")) ds.node_affinity = detail::node_affinity_of(path, where + "/node_affinity", d["node_affinity"]);
      if (d.contains("tolerations")) ds.tolerations = detail::tolerations_of(path, where + "/tolerations", d["tolerations"]);
      ds.source = d["source"];
      sc.daemonsets.push_back(std::move(ds));
    }
    // A DaemonSet pod that does not fit its node would stay Pending and hold nothing; mltwin
    // refuses the scenario instead of running a cluster that differs from the one meant.
    for (std::size_t i = 0; i < sc.node_groups.size(); ++i) {
      for (std::size_t k = 0; k < sc.node_groups[i].instance_types.size(); ++k)
        for (const models::CapacityType c : {models::CapacityType::OnDemand, models::CapacityType::Spot}) {
          const models::NodeResources r = models::node_resources(sc, sc.node_groups[i], models::NodeLaunch{k, c});
          if (!r.daemonsets.less_equal(r.allocatable))
            fail(path, "/cluster/daemonsets",
                 "the DaemonSets on node group '" + sc.node_groups[i].name + "' request {" + r.daemonsets.to_string() +
                     "}, more than its " + (sc.node_groups[i].instance_types.size() > 1 ? sc.node_groups[i].instance_types[k] + " " : std::string()) +
                     "nodes' allocatable {" + r.allocatable.to_string() + "}");
        }
    }
  }
  // The network (optional; its figures and sources: docs/fabric.md).
  if (doc.contains("fabric")) sc.fabric = fabric_of(path, doc["fabric"], cat, sc.node_groups);
  // Scheduler configuration, under Volcano's own keys.
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
  // Queues.
  std::set<std::string> queue_names;
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
  // PriorityClasses (those of the manifests were merged into /priority_classes above).
  detail::PriorityClasses classes;
  if (doc.contains("priority_classes")) classes.add_json(path, doc["priority_classes"]);
  // Lifecycle latencies (defaults stated in the schema docs; scenarios should set and cite them).
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
  // Workload.
  const json& w = doc["workload"];
  if (w.contains("torchx")) {
    const json& t = w["torchx"];
    sc.max_retries = t.value("max_retries", 0);
    if (t.contains("peer_failure_timeout")) {
      sc.peer_failure_timeout = duration_of(path, "/workload/torchx/peer_failure_timeout", t["peer_failure_timeout"]);
      if (sc.peer_failure_timeout <= core::Duration::ns(0)) fail(path, "/workload/torchx/peer_failure_timeout", "expected a positive duration");
    }
    if (t.contains("checkpoint_interval")) {
      sc.checkpoint_interval = duration_of(path, "/workload/torchx/checkpoint_interval", t["checkpoint_interval"]);
      if (sc.checkpoint_interval < core::Duration::ns(0)) fail(path, "/workload/torchx/checkpoint_interval", "expected a duration >= 0");
    }
  }
  if (w.contains("philly")) {
    const json& p = w["philly"];
    // ${MLTWIN_DATA}/... is in the data folder, a relative path beside the scenario.
    const std::string trace_as_written = p["trace"];
    const std::string trace = detail::resolve_input_path(trace_as_written, path, opts.data_dir, out.data_dir);
    detail::require_input(path, "/workload/philly/trace", trace_as_written, trace);
    const json& m = p["mapping"];
    PhillyMapping pm;
    pm.neuron_devices_per_gpu = m["neuron_devices_per_gpu"];
    pm.devices_per_node = m["devices_per_node"];
    pm.neuroncores_per_device = cores_per_device;
    pm.processes_per_neuroncore = m.value("processes_per_neuroncore", 1);
    const policy::Resource per = resources_of(path, "/workload/philly/mapping/pod_per_device", m["pod_per_device"]);
    const policy::Resource whole = resources_of(path, "/workload/philly/mapping/pod_whole_node", m["pod_whole_node"]);
    pm.per_device_cpu = per.milli_cpu / 1000.0;
    pm.per_device_memory_bytes = per.memory;
    pm.whole_cpu = whole.milli_cpu / 1000.0;
    pm.whole_memory_bytes = whole.memory;
    pm.whole_efa = static_cast<int>(std::lround(whole.scalars.get(policy::rn::kEfa) / 1000.0));
    pm.queue_prefix = p.value("queue_prefix", std::string("vc-"));
    pm.priority = p.value("priority", 0);
    pm.max_jobs = p.value("max_jobs", std::size_t{0});
    sc.jobs = read_philly(trace, pm);
    const std::string model = p.value("model", std::string()), flags = p.value("compiler_flags", std::string());
    std::vector<std::pair<std::string, std::string>> selector;
    if (p.contains("node_selector"))
      for (auto it = p["node_selector"].begin(); it != p["node_selector"].end(); ++it)
        selector.emplace_back(it.key(), it.value().get<std::string>());
    std::sort(selector.begin(), selector.end());
    const policy::NodeAffinity affinity =
        p.contains("node_affinity") ? detail::node_affinity_of(path, "/workload/philly/node_affinity", p["node_affinity"]) : policy::NodeAffinity{};
    const std::vector<policy::Toleration> tolerations =
        p.contains("tolerations") ? detail::tolerations_of(path, "/workload/philly/tolerations", p["tolerations"]) : std::vector<policy::Toleration>{};
    std::string pclass;
    if (p.contains("priority_class")) {
      if (p.contains("priority")) fail(path, "/workload/philly/priority_class", "give priority or priority_class (its PriorityClass's value), not both");
      pclass = p["priority_class"].get<std::string>();
      if (!classes.has(pclass))
        fail(path, "/workload/philly/priority_class", "PriorityClass '" + pclass + "' is not defined (known: " + classes.names() + ")");
    }
    for (auto& j : sc.jobs) {
      j.model = model;
      j.compiler_flags = flags;
      j.node_selector = selector;
      j.node_affinity = affinity;
      j.tolerations = tolerations;
      j.priority_class = pclass;
      j.priority = classes.resolve(j, p.contains("priority"));
    }
    out.inputs.push_back({"philly_trace", trace, trace_as_written});
  } else {
    const auto& jobs = w["jobs"];
    std::map<std::string, std::size_t> job_index;  // name -> first index
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const json& j = jobs[i];
      const std::string where = "/workload/jobs/" + std::to_string(i);
      models::TrainingJobSpec js = detail::job_of(path, where, j, i, cores_per_device);
      if (const auto [it, fresh] = job_index.emplace(js.name, i); !fresh)
        fail(path, where + "/name", "duplicate job '" + js.name + "' (also /workload/jobs/" + std::to_string(it->second) +
                                        "): job names identify jobs in the results and in explain");
      if (!js.priority_class.empty() && !classes.has(js.priority_class))
        fail(path, where + "/priority_class", "PriorityClass '" + js.priority_class + "' is not defined (known: " + classes.names() + ")");
      js.priority = classes.resolve(js, j.contains("priority"));
      js.model = j.value("model", std::string());
      js.compiler_flags = j.value("compiler_flags", std::string());
      if (!queue_names.count(js.queue)) fail(path, where + "/queue", "queue '" + js.queue + "' is not defined in /queues");
      sc.jobs.push_back(js);
    }
    std::stable_sort(sc.jobs.begin(), sc.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; });
  }
  read_startup_and_faults(path, doc, sc);
  // The step model, and derived durations (docs/step-model.md).
  if (doc.contains("step_model")) sc.step_model = step_model_of(path, doc["step_model"], sc);
  if (w.value("duration_model", std::string("trace")) == "derived") {
    if (!sc.step_model) fail(path, "/workload/duration_model", "'derived' needs a /step_model block (profile and fabric)");
    sc.duration_model = models::DurationModel::Derived;
    const models::LinkGrant nominal = sc.step_model->nominal();
    const auto& explicit_jobs = w.contains("jobs") ? w["jobs"] : json::array();
    for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
      models::TrainingJobSpec& j = sc.jobs[i];
      // Explicit jobs may give their steps; trace_row is their index in /workload/jobs.
      if (w.contains("jobs")) {
        const json& ej = explicit_jobs[static_cast<std::size_t>(j.trace_row)];
        if (ej.contains("steps")) j.steps = ej["steps"].get<std::int64_t>();
      }
      if (j.steps > 0) continue;
      // Steps = traced duration / step time at the job's own placement with no contention.
      const models::Placement pl{j.nnodes, j.neuron_devices_per_pod * cores_per_device};
      if (pl.cores_per_node < 1)
        fail(path, "/workload/duration_model", "job " + j.name + " requests no Neuron device: it has no step time");
      const std::int64_t t = models::step_time(sc.step_model->profile, pl, nominal).total().count_ns();
      if (t <= 0) fail(path, "/step_model/profile", "the step time is zero");
      j.steps = std::max<std::int64_t>(1, (j.duration.count_ns() + t / 2) / t);
    }
    if (sc.step_model->contention && sc.autoscaler)
      fail(path, "/cluster/autoscaler",
           "jobs sharing the /fabric (duration_model derived) with a cluster autoscaler is not modelled yet: drop one, "
           "or the /fabric block (then give /step_model/fabric)");
  }
{
    // EFA traffic does not cross availability zones (docs/fabric.md): a multi-node job that
    // uses EFA (requests vpc.amazonaws.com/efa, or shares the /fabric) must be kept in one zone
    // by its nodeSelector or node affinity when the cluster spans several, whatever the duration
    // model. The node groups its pods may use — by the labels their nodes carry (the group's
    // own, the instance type, the EKS node group, the zone) and their taints — must all lie in
    // one zone.
    std::set<std::string> all_zones;
    for (const auto& g : sc.node_groups) all_zones.insert(g.availability_zone);
    if (all_zones.size() > 1)
      for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
        const models::TrainingJobSpec& j = sc.jobs[i];
        const bool efa = j.efa_per_pod > 0 || (sc.step_model && sc.step_model->contention &&
                                               sc.duration_model == models::DurationModel::Derived);
        if (j.nnodes < 2 || !efa) continue;
        std::set<std::string> zones;
        const policy::TaskInfo cons = models::pod_constraints(j);
        const policy::Resource pod = policy::task_resreq(models::pod_requests(j, cores_per_device));
        // A group counts where one of its nodes could take the pod: its labels and taints admit
        // it and its empty node has room for the pod's requests (a CPU system group in another
        // zone does not split a Trainium gang).
        auto may_hold = [&](const models::NodeGroupSpec& g, models::NodeLaunch l) {
          return policy::static_misfit(cons, models::node_labels(g, l), {}, g.taints).empty() &&
                 pod.less_equal(models::node_resources(sc, g, l).pod_room(), policy::DimensionDefault::Zero);
        };
        for (const auto& g : sc.node_groups)
          if (std::any_of(g.instance_types.begin(), g.instance_types.end(), [&](const std::string& type) {
                const std::size_t k = static_cast<std::size_t>(&type - g.instance_types.data());
                return may_hold(g, {k, models::CapacityType::OnDemand}) || may_hold(g, {k, models::CapacityType::Spot});
              }))
            zones.insert(g.availability_zone.empty() ? std::string("(no zone)") : g.availability_zone);
        if (zones.size() > 1) {
          std::string list;
          for (const auto& z : zones) list += (list.empty() ? "" : ", ") + z;
          const std::string where = w.contains("jobs")      ? "/workload/jobs/" + std::to_string(j.trace_row)
                                    : w.contains("philly") ? std::string("/workload/philly/node_selector")
                                                           : std::string("/workload/manifests");
          fail(path, where,
               "job " + j.name + " (" + std::to_string(j.nnodes) + " nodes) may be placed across availability zones (" + list +
                   ") and EFA traffic does not cross zones: give it a node_selector (nodeSelector) or a required "
                   "node_affinity on topology.kubernetes.io/zone of one zone");
        }
      }
  }
  {
    // A resource name only exists where a device plugin or the node group advertises it: a pod
    // requesting an extended resource no node group offers would stay Pending for ever, which is
    // almost always a misspelling (nvidia.com/gpus). Kubernetes' and the device plugins' own
    // names (policy::rn) and hugepages-* are left to the run, which rejects the job naming it.
    std::set<std::string> offered;
    for (const auto& g : sc.node_groups)
      for (std::size_t k = 0; k < g.instance_types.size(); ++k)
        for (const auto ct : {models::CapacityType::OnDemand, models::CapacityType::Spot})
          models::node_resources(sc, g, models::NodeLaunch{k, ct}).allocatable.for_each([&](policy::ResourceName n, double amount) {
            if (amount > 0) offered.insert(std::string(n.str()));
          });
    std::set<std::uint16_t> checked;
    for (const auto& j : sc.jobs)
      models::pod_requests(j, cores_per_device).for_each([&](policy::ResourceName n, double amount) {
        if (amount <= 0 || n.id() < policy::rn::kWellKnown || !checked.insert(n.id()).second) return;
        const std::string name(n.str());
        if (offered.count(name) || name.rfind("hugepages-", 0) == 0) return;
        std::vector<std::string> candidates(offered.begin(), offered.end());
        for (std::uint16_t id = 0; id < policy::rn::kWellKnown; ++id) candidates.emplace_back(policy::ResourceName(id).str());
        std::string list;
        for (const auto& o : offered) list += (list.empty() ? "" : ", ") + o;
        const std::string where = w.contains("jobs")      ? "/workload/jobs/" + std::to_string(j.trace_row)
                                  : w.contains("philly") ? std::string("/workload/philly/mapping")
                                                         : std::string("/workload/manifests");
        fail(path, where,
             "job " + j.name + " requests '" + name + "', which no node group offers (they offer " + list + ")" +
                 detail::did_you_mean(name, candidates) +
                 "; an extended resource exists where a node group gives it (its catalog row's extended_resources, or "
                 "/cluster/node_groups/N/capacity)");
      });
  }
  if (doc.contains("initial_state")) read_initial_state(path, doc["initial_state"], sc, cores_per_device);
  // Every job's queue must exist.
  for (const auto& j : sc.jobs)
    if (!queue_names.count(j.queue)) {
      throw ScenarioError(path + ": /queues: the workload submits to queue '" + j.queue + "' (job " + j.name +
                          (j.trace_row > 0 ? ", trace line " + std::to_string(j.trace_row) : std::string()) +
                          "), which the scenario does not define");
    } else if (std::string why = detail::leaf_queue_problem(sc.queues, j.queue); !why.empty()) {
      throw ScenarioError(path + ": /queues: job " + j.name + " submits to queue '" + j.queue + "': " + why +
                          " (Volcano's job admission webhook)");
    }
  return out;
}

}  // namespace mltwin::io
