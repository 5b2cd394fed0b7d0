// training_nodes.cpp — what a training cluster's nodes are: capacity and allocatable (the EKS
// AMI's kubelet reservation, DaemonSets), the Auto Scaling group's instance type and purchase
// option per capacity slot, prices, labels; a pod's requests.
// The nodes' lifetime (failures, Spot interruptions, the cluster autoscaler): node_lifecycle.cpp.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "mltwin/models/training.hpp"
#include "mltwin/policy/node_constraints.hpp"

namespace mltwin::models {

using policy::NodeId;
using policy::Resource;
using policy::TaskId;
using policy::TaskStatus;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// The kubelet's maxPods when the catalog gives none: KubeletConfiguration's default, 110
/// (k8s.io/kubelet/config/v1beta1 types.go, MaxPods).
constexpr int kKubeletDefaultMaxPods = 110;

}  // namespace

Resource node_capacity(const InstanceType& it) {
  Resource r = Resource::make(it.vcpu, it.memory_gib * kGiB);
  const int pods = it.max_pods > 0 ? it.max_pods : kKubeletDefaultMaxPods;
  r.with(policy::rn::kPods, pods);  // and max_task_num, as NewResource
  // What the device plugins advertise, as the catalog row gives it (io checks it against the
  // accelerator); a row without the list advertises what its accelerator and EFA imply.
  if (!it.extended_resources.empty()) {
    for (const auto& [name, count] : it.extended_resources)
      r.with(policy::ResourceName::intern(name), static_cast<double>(count));
    return r;
  }
  if (it.trainium_chips > 0) {
    r.with(policy::rn::kNeuron, it.trainium_chips).with(policy::rn::kNeuronDevice, it.trainium_chips);
    r.with(policy::rn::kNeuronCore, it.neuroncores());
  }
  if (it.nvidia_gpus > 0) r.with(policy::rn::kNvidiaGpu, it.nvidia_gpus);
  if (it.efa_interfaces > 0) r.with(policy::rn::kEfa, it.efa_interfaces);
  return r;
}

namespace {

// getResourceToReserveInRange (amazon-eks-ami nodeadm/internal/kubelet/config.go): the part of
// `total` within [start, end), times `per_10000` / 10000, in integers.
std::int64_t reserve_in_range(std::int64_t total, std::int64_t start, std::int64_t end, std::int64_t per_10000) {
  if (total <= start) return 0;
  return (std::min(total, end) - start) * per_10000 / 10000;
}
}  // namespace

KubeReserved eks_ami_kube_reserved(int vcpu, int max_pods) {
  // getCPUMillicoresToReserve: ranges 0-1, 1-2, 2-4, 4+ cores at 600, 100, 50, 25 per 10,000.
  const std::int64_t total = static_cast<std::int64_t>(vcpu) * 1000;
  const std::int64_t ranges[] = {0, 1000, 2000, 4000, total};
  const std::int64_t per_10000[] = {600, 100, 50, 25};
  KubeReserved r;
  for (int i = 0; i < 4; ++i) r.cpu_millicores += reserve_in_range(total, ranges[i], ranges[i + 1], per_10000[i]);
  // getMemoryMebibytesToReserve.
  r.memory_mib = 11 * static_cast<std::int64_t>(max_pods) + 255;
  return r;
}

NodeResources node_resources(const TrainingScenario& sc, const NodeGroupSpec& g, std::optional<NodeLaunch> l, std::string_view node_name) {
  const NodeLaunch launch = l.value_or(node_launch(g, 0));
  NodeResources r;
  if (g.observed) {
    // A node of the user's cluster: its Node object's status, as the kubelet reported it.
    r.capacity = g.observed->capacity;
    r.allocatable = g.observed->allocatable;
  } else {
    const std::string& type = g.instance_types.at(launch.type);
    const InstanceType* it = sc.catalog.find(type);
    if (!it) throw std::invalid_argument("node group '" + g.name + "': instance type '" + type + "' is not in the catalog");
    r.capacity = node_capacity(*it);
    if (!g.extra_capacity.scalars.empty()) r.capacity.add(g.extra_capacity);
    r.allocatable = r.capacity - (g.kubelet_reserved_by_type.empty() ? g.kubelet_reserved : g.kubelet_reserved_by_type.at(launch.type));
  }
  const auto labels = l ? node_labels(g, launch) : template_labels(g);
  for (const DaemonSetSpec& ds : sc.daemonsets) {
    // NodeShouldRunDaemonPod -> predicates(): the NodeAffinity filter (nodeSelector and required
    // affinity) and the TaintToleration filter (NoSchedule / NoExecute taints); the
    // tolerations the controller adds by itself (node.kubernetes.io/not-ready, unreachable,
    // disk-pressure, memory-pressure, pid-pressure, unschedulable, network-unavailable) concern
    // taints mltwin's nodes never carry.
    policy::TaskInfo pod;
    pod.node_selector = ds.node_selector;
    pod.node_affinity = ds.node_affinity;
    pod.tolerations = ds.tolerations;
    if (policy::static_misfit(pod, labels, node_name, g.taints).empty()) r.daemonsets.add(policy::task_resreq(ds.requests));
  }
  return r;
}

policy::Resource pod_requests(const TrainingJobSpec& j, int neuroncores_per_device) {
  policy::Resource r = policy::Resource::make(j.cpu_per_pod, j.memory_bytes_per_pod);
  if (j.neuron_devices_per_pod > 0)
    r.with(j.neuron_resource, j.neuron_resource == policy::rn::kNeuronCore
                                  ? static_cast<double>(j.neuron_devices_per_pod) * neuroncores_per_device
                                  : static_cast<double>(j.neuron_devices_per_pod));
  if (j.efa_per_pod > 0) r.with(policy::rn::kEfa, j.efa_per_pod);
  for (const auto& e : j.other_requests) r.add_scalar(e.name, e.value);
  return r;
}

policy::TaskInfo pod_constraints(const TrainingJobSpec& j) {
  policy::TaskInfo t;
  t.node_selector = j.node_selector;
  t.node_affinity = j.node_affinity;
  t.tolerations = j.tolerations;
  return t;
}

const char* to_string(CapacityType c) { return c == CapacityType::Spot ? "SPOT" : "ON_DEMAND"; }

const char* to_string(SpotAllocationStrategy s) {
  switch (s) {
    case SpotAllocationStrategy::LowestPrice: return "lowest-price";
    case SpotAllocationStrategy::CapacityOptimized: return "capacity-optimized";
    case SpotAllocationStrategy::CapacityOptimizedPrioritized: return "capacity-optimized-prioritized";
    case SpotAllocationStrategy::PriceCapacityOptimized: return "price-capacity-optimized";
  }
  return "?";
}

namespace {
// The On-Demand nodes of an Auto Scaling group at desired capacity n: the base first, then the
// percentage of the rest rounded up in favour of On-Demand (EC2 Auto Scaling User Guide,
// "Controlling the proportion of On-Demand instances").
std::int64_t on_demand_count(const InstancesDistribution& d, std::int64_t n) {
  const std::int64_t base = std::min<std::int64_t>(n, d.on_demand_base_capacity);
  const std::int64_t above = n - base;
  return base + (above * d.on_demand_percentage_above_base + 99) / 100;
}
}  // namespace

bool launches_spot(const NodeGroupSpec& g) { return g.distribution.on_demand_percentage_above_base < 100; }

std::vector<std::size_t> spot_pools(const NodeGroupSpec& g) {
  std::vector<std::size_t> pools(g.instance_types.size());
  for (std::size_t i = 0; i < pools.size(); ++i) pools[i] = i;
  if (g.distribution.spot_allocation_strategy != SpotAllocationStrategy::LowestPrice) return pools;
  if (g.spot_usd_per_hour.size() != g.instance_types.size())
    throw std::invalid_argument("node group '" + g.name + "': lowest-price Spot allocation needs a Spot price for every instance type");
  std::stable_sort(pools.begin(), pools.end(), [&](std::size_t a, std::size_t b) { return g.spot_usd_per_hour[a] < g.spot_usd_per_hour[b]; });
  pools.resize(std::min<std::size_t>(pools.size(), static_cast<std::size_t>(std::max(1, g.distribution.spot_instance_pools))));
  return pools;
}

NodeLaunch node_launch(const NodeGroupSpec& g, std::int64_t slot) {
  if (g.instance_types.empty()) throw std::invalid_argument("node group '" + g.name + "' has no instance type");
  const InstancesDistribution& d = g.distribution;
  if (on_demand_count(d, slot + 1) > on_demand_count(d, slot)) return {0, CapacityType::OnDemand};  // prioritized
  const std::int64_t spot_before = slot - on_demand_count(d, slot);
  const std::vector<std::size_t> pools = spot_pools(g);
  return {pools[static_cast<std::size_t>(spot_before) % pools.size()], CapacityType::Spot};
}

double node_usd_per_hour(const Catalog& catalog, const NodeGroupSpec& g, NodeLaunch l) {
  if (l.capacity == CapacityType::Spot) {
    if (l.type >= g.spot_usd_per_hour.size())
      throw std::invalid_argument("node group '" + g.name + "': no Spot price for '" + g.instance_types.at(l.type) + "'");
    return g.spot_usd_per_hour[l.type];
  }
  const InstanceType* it = catalog.find(g.instance_types.at(l.type));
  return it ? it->on_demand_usd_per_hour : 0.0;
}

std::string node_price_source(const Catalog& catalog, const NodeGroupSpec& g, NodeLaunch l) {
  if (l.capacity == CapacityType::Spot) {
    if (l.type >= g.spot_price_source.size())
      throw std::invalid_argument("node group '" + g.name + "': no Spot price for '" + g.instance_types.at(l.type) + "'");
    return g.spot_price_source[l.type];
  }
  // A node of the user's cluster whose type has no catalog row: the loader says why it has no price.
  if (g.observed && l.type < g.on_demand_price_source.size()) return g.on_demand_price_source[l.type];
  const InstanceType* it = catalog.find(g.instance_types.at(l.type));
  if (!it) throw std::invalid_argument("node group '" + g.name + "': instance type '" + g.instance_types.at(l.type) + "' is not in the catalog");
  if (l.type < g.on_demand_price_source.size()) return g.on_demand_price_source[l.type];
  return "catalog row '" + it->name + "' on_demand_usd_per_hour, " + it->region_of_price;
}

std::vector<std::pair<std::string, std::string>> node_labels(const NodeGroupSpec& g, NodeLaunch launch) {
  if (g.observed) return g.observed->labels;  // the Node object's, the well-known ones included
  std::vector<std::pair<std::string, std::string>> l = g.labels;
  l.emplace_back("node.kubernetes.io/instance-type", g.instance_types.at(launch.type));
  l.emplace_back("eks.amazonaws.com/nodegroup", g.name);
  // EKS User Guide, "Managed node group capacity types": EKS labels every node of a managed
  // node group with its capacity type.
  if (!g.mixed_instances_policy) l.emplace_back("eks.amazonaws.com/capacityType", to_string(launch.capacity));
  if (!g.availability_zone.empty()) l.emplace_back("topology.kubernetes.io/zone", g.availability_zone);
  std::sort(l.begin(), l.end());
  return l;
}

std::vector<std::pair<std::string, std::string>> template_labels(const NodeGroupSpec& g) {
  return node_labels(g, {0, node_launch(g, 0).capacity});
}

}  // namespace mltwin::models
