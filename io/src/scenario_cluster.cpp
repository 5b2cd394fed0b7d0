// scenario_cluster.cpp — /cluster of a training scenario: node groups (instance types,
// On-Demand and Spot, sizes, labels, taints, capacity), each node's allocatable (kubelet
// reservation), the nodes of the user's own cluster (/cluster/nodes_from, kubectl Node
// objects), the DaemonSets, the user's Spot price history (training_load.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/io/scenario.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "k8s_objects.hpp"
#include "training_load.hpp"

namespace mltwin::io::detail {
namespace {

using nlohmann::json;

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

}  // namespace

// The Spot price history and /cluster/node_groups: each group's instance types, purchase
// options, sizes, labels, taints and extra capacity; the cluster's NeuronCores per device.
void TrainingLoad::read_node_groups() {
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
  // Node groups (none when the cluster is only /cluster/nodes_from).
  static const json kNoGroups = json::array();
  const json& groups = doc["cluster"].contains("node_groups") ? doc["cluster"]["node_groups"] : kNoGroups;
  cores_per_device = 0;  // NeuronCores per device: the first Neuron group's, 2 without one
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
}

// Allocatable: each group's instance type less its kubelet reservation (its own, else the
// cluster's); DaemonSets then hold part of it on the nodes they run on.
void TrainingLoad::read_allocatable() {
  if (!doc["cluster"].contains("node_groups")) {
    if (doc["cluster"].contains("kubelet_reserved"))
      fail(path, "/cluster/kubelet_reserved",
           "applies to /cluster/node_groups, and the cluster has none: the nodes of /cluster/nodes_from have their allocatable "
           "from their Node objects (status.allocatable, the kubelet's reservation already taken)");
    return;
  }
  const json& groups = doc["cluster"]["node_groups"];
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
}

// /cluster/nodes_from: the nodes of the user's own cluster, from what `kubectl get nodes -o json`
// (or -o yaml) prints, read by the snapshot reader of mltwin-scheduler (k8s::read_file: a List or
// single objects, each field as the Kubernetes API reference defines core/v1 Node). Each Node is
// one node of the twin, a node group of its own (models::ObservedNode) after /cluster/node_groups.
void TrainingLoad::read_nodes_from() {
  const json& c = doc["cluster"];
  if (!c.contains("nodes_from")) return;
  // Node groups may be added to the user's nodes (a group to try, an autoscaled one); a group
  // that is one of the user's own EKS node groups would count its nodes twice.
  std::map<std::string, std::size_t> group_index;  // /cluster/node_groups name -> index
  for (std::size_t g = 0; g < sc.node_groups.size(); ++g) group_index[sc.node_groups[g].name] = g;
  std::map<std::string, std::string> seen;  // node name -> where it was read
  std::vector<std::string> unpriced;        // "name (type)" of the nodes without a price
  std::vector<std::string> spot;            // the nodes EKS labels as Spot
  std::string unknown_at;                   // where the first node of a type not in the catalog is
  std::int64_t total_nodes = 0;
  for (const auto& g : sc.node_groups) total_nodes += std::max(g.count, g.max_size);
  const json& files = c["nodes_from"];
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = "/cluster/nodes_from/" + std::to_string(i);
    const std::string as_written = files[i];
    const std::string file = detail::resolve_input_path(as_written, path, opts.data_dir, out.data_dir);
    detail::require_input(path, where, as_written, file);
    // The file's Nodes. A kubectl export of several kinds (kubectl get
    // nodes,pods,podgroups,queues,priorityclasses -A -o json, or what mltwin run --snapshot-at
    // writes) may be listed here and under the keys that read its other kinds
    // (/cluster/pods_from, /queues_from): they are not read here.
    k8s::Snapshot snap;
    try {
      k8s::read_file(file, snap);
    } catch (const k8s::InputError& e) {
      throw ScenarioError(std::string(e.what()) + " (read as " + path + ": " + where + ")");
    }
    if (snap.nodes.empty())
      fail(path, where,
           "'" + as_written + "' holds no Node (expected what `kubectl get nodes -o json` prints" +
               (snap.pods.empty() && snap.podgroups.empty() ? std::string() : "; its Pods and PodGroups are read by /cluster/pods_from") +
               (snap.queues.empty() ? std::string() : "; its Queues by /queues_from") + ")");
    for (policy::NodeObject& n : snap.nodes) {
      policy::NodeInfo& info = n.spec;
      const std::string origin = snap.origin.at("Node " + info.name);
      if (auto [it, fresh] = seen.emplace(info.name, origin); !fresh)
        throw ScenarioError(origin + ": a second Node named '" + info.name + "' (the first: " + it->second + ")");
      if (info.instance_type.empty())
        throw ScenarioError(origin + "/metadata/labels: Node '" + info.name +
                            "' has no instance type label (node.kubernetes.io/instance-type, or the deprecated "
                            "beta.kubernetes.io/instance-type), which EKS sets on every node");
      // Resources as the object gives them: allocatable "defaults to Capacity" (core/v1
      // NodeStatus, Kubernetes API reference).
      if (info.allocatable == policy::Resource{}) info.allocatable = info.capacity;
      if (info.allocatable == policy::Resource{})
        throw ScenarioError(origin + "/status: Node '" + info.name + "' has no status.allocatable nor status.capacity");
      models::NodeGroupSpec ng;
      ng.name = info.name;
      ng.instance_types = {info.instance_type};
      ng.count = 1;
      ng.taints = info.taints;
      // The well-known zone label (k8s.io/api/core/v1 well_known_labels.go LabelTopologyZone,
      // else the deprecated LabelFailureDomainBetaZone).
      if (const std::string* z = info.label("topology.kubernetes.io/zone")) ng.availability_zone = *z;
      else if (const std::string* b = info.label("failure-domain.beta.kubernetes.io/zone")) ng.availability_zone = *b;
      models::ObservedNode o;
      o.name = info.name;
      o.labels = info.labels;
      o.capacity = info.capacity;
      o.allocatable = info.allocatable;
      o.unschedulable = info.unschedulable;
      o.ready = info.ready;
      o.source = origin;
      // The catalog gives the price (and EFA, NeuronLink topology) only.
      const models::InstanceType* it = cat.catalog.find(info.instance_type);
      o.in_catalog = it != nullptr;
      if (it != nullptr && it->has_on_demand_price) {
        ng.on_demand_price_source.push_back(cat.row_where_recorded(it->name) + " on_demand_usd_per_hour, " + it->region_of_price);
      } else {
        ng.on_demand_price_source.push_back(it == nullptr ? "none: instance type '" + info.instance_type + "' is not in the catalog"
                                                          : "none: the catalog row of '" + info.instance_type + "' has no on-demand price");
        unpriced.push_back(info.name + " (" + info.instance_type + ")");
      }
      // EKS User Guide, "Managed node group capacity types": a Spot node carries
      // eks.amazonaws.com/capacityType SPOT. Its Spot price is not in the object.
      if (const std::string* ct = info.label("eks.amazonaws.com/capacityType"); ct && *ct == "SPOT") spot.push_back(info.name);
      if (it == nullptr && unknown_at.empty()) unknown_at = origin + " (" + info.name + ", " + info.instance_type + ")";
      // NeuronCores per device, as for node groups (read_node_groups): one per cluster.
      if (it != nullptr && it->trainium_chips > 0) {
        if (cores_per_device == 0) cores_per_device = it->neuroncores_per_chip;
        if (it->neuroncores_per_chip != cores_per_device)
          throw ScenarioError(origin + ": Node '" + info.name + "' (" + it->name + ", " + std::to_string(it->neuroncores_per_chip) +
                              " NeuronCores per device): the cluster's Neuron nodes mix NeuronCores-per-device counts (" +
                              std::to_string(cores_per_device) + " and " + std::to_string(it->neuroncores_per_chip) + "); one cluster must use one");
      }
      ng.observed = std::move(o);
      // Names: a node of a node group is <group>-<index>; one read here must not be taken for
      // one of them, nor be a node of a group given in /cluster/node_groups.
      for (const auto& g : sc.node_groups) {
        if (g.observed) continue;
        const bool generated = info.name.size() > g.name.size() + 1 && info.name.compare(0, g.name.size() + 1, g.name + "-") == 0 &&
                               info.name.find_first_not_of("0123456789", g.name.size() + 1) == std::string::npos;
        if (generated || info.name == g.name)
          fail(path, "/cluster/node_groups/" + std::to_string(group_index[g.name]) + "/name",
               "node group '" + g.name + "' would name its nodes <name>-<index>, and Node '" + info.name + "' of " + origin +
                   " has that name: rename the group");
      }
      if (const std::string* eks_group = info.label("eks.amazonaws.com/nodegroup"); eks_group && group_index.count(*eks_group))
        fail(path, "/cluster/node_groups/" + std::to_string(group_index[*eks_group]) + "/name",
             "node group '" + *eks_group + "' is also the EKS node group of Node '" + info.name + "' (" + origin +
                 ", label eks.amazonaws.com/nodegroup): its nodes would be counted twice; give the group's nodes in nodes_from, "
                 "or the group in node_groups, not both");
      if (++total_nodes > kMaxNodes)
        fail(path, where, "the cluster holds more than " + std::to_string(kMaxNodes) + " nodes; mltwin models clusters of at most " +
                              std::to_string(kMaxNodes) + " nodes (docs/limits.md)");
      sc.node_groups.push_back(std::move(ng));
    }
    out.inputs.push_back({"cluster_nodes", file, as_written});
  }
  // Without a catalog row the twin knows no EFA interface and no NeuronLink torus of the node.
  if (!unknown_at.empty())
    for (const char* key : {"fabric", "step_model"})
      if (doc.contains(key))
        fail(path, std::string("/") + key,
             "needs each node's EFA interfaces and NeuronLink topology from the catalog, and the Node " + unknown_at +
                 " is of an instance type it does not have: add its row under /catalog/instance_types");
  if (!spot.empty()) {
    std::string list;
    for (std::size_t k = 0; k < spot.size() && k < 5; ++k) list += (k ? ", " : "") + spot[k];
    if (spot.size() > 5) list += ", ... (" + std::to_string(spot.size()) + " nodes)";
    out.warnings.push_back(path + ": /cluster/nodes_from: node(s) " + list +
                           " are Spot (label eks.amazonaws.com/capacityType SPOT): the twin runs them as On-Demand nodes, at "
                           "the on-demand price and never interrupted (Spot nodes of nodes_from are not modelled yet)");
    if (opts.strict) throw ScenarioError(out.warnings.back() + " (--strict: warnings are errors)");
  }
  if (!unpriced.empty()) {
    std::string list;
    for (std::size_t k = 0; k < unpriced.size() && k < 5; ++k) list += (k ? ", " : "") + unpriced[k];
    if (unpriced.size() > 5) list += ", ... (" + std::to_string(unpriced.size()) + " nodes)";
    out.warnings.push_back(path + ": /cluster/nodes_from: no on-demand price for node(s) " + list +
                           ": they cost 0 USD/h in the run's cost (give the instance type's row with on_demand_usd_per_hour "
                           "and price_region under /catalog/instance_types)");
    if (opts.strict) throw ScenarioError(out.warnings.back() + " (--strict: warnings are errors)");
  }
}

// /cluster/daemonsets: their pods' requests on the nodes they select, which must fit.
void TrainingLoad::read_daemonsets() {
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
}

void TrainingLoad::read_cluster() {
  read_node_groups();
  read_allocatable();
  read_nodes_from();
  if (cores_per_device == 0) cores_per_device = 2;  // the first Neuron node's, 2 without one
  read_daemonsets();
}

}  // namespace mltwin::io::detail
