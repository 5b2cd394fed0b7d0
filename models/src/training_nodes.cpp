// training_nodes.cpp — TrainingCluster's nodes: the node groups at t = 0, node failures and
// their replacement, and the Kubernetes cluster-autoscaler (docs/startup-and-faults.md).
//
// Cluster autoscaler (kubernetes/autoscaler, cluster-autoscaler; FAQ "How does scale-up work?"
// and "How does scale-down work?"), as modelled:
// - Every --scan-interval (10 s) aligned to t = 0, when something changed since the last scan
//   (or a scale-down countdown runs), it lists the pods that are Pending (created, not bound).
// - It drops the pods that would fit on existing or upcoming nodes (filter-out-schedulable: it
//   knows nothing of gangs, so one pod of a gang that fits an idle node is not counted), then
//   bin-packs the rest (first fit, largest NeuronCore request first) onto new nodes of the first
//   node group (scenario order) that can hold them, up to its max_size. The nodes are Ready
//   launch_time later.
// - A node without pods for --scale-down-unneeded-time (10 min) is removed, never below
//   min_size, and not within --scale-down-delay-after-add (10 min) of a scale-up. Nodes with
//   pods are never removed here (a training pod cannot move).
// It looks only at pods: a Volcano PodGroup that the enqueue action keeps Pending has none, so
// the autoscaler never adds nodes for it (volcano-sh/volcano#3910, #1775) — the trap the
// scenario avoids by leaving the enqueue action out of the scheduler configuration (then
// Volcano's allocate action moves Pending PodGroups to Inqueue itself, their pods are created
// and the autoscaler sees them).
#include <algorithm>
#include <cstdio>
#include <boost/random/exponential_distribution.hpp>
#include <stdexcept>

#include "mltwin/models/training.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "training_internal.hpp"

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
  const std::string& type = g.instance_types.at(launch.type);
  const InstanceType* it = sc.catalog.find(type);
  if (!it) throw std::invalid_argument("node group '" + g.name + "': instance type '" + type + "' is not in the catalog");
  NodeResources r;
  r.capacity = node_capacity(*it);
  if (!g.extra_capacity.scalars.empty()) r.capacity.add(g.extra_capacity);
  r.allocatable = r.capacity - (g.kubelet_reserved_by_type.empty() ? g.kubelet_reserved : g.kubelet_reserved_by_type.at(launch.type));
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

void TrainingCluster::flag_neuron_names(const policy::NodeInfo& node) {
  // What the node's pods hold (node.used, the binding pod included) names two of the three
  // Neuron resources: faithful to Kubernetes and Volcano, which count them independently, the
  // run goes on; the summary says so with the remedy (docs/resources.md).
  if (neuron_mixed_.size() <= node.id) neuron_mixed_.resize(node.id + 1, 0);
  if (neuron_mixed_[node.id] || !policy::neuron_names_mixed(node.used)) return;
  neuron_mixed_[node.id] = 1;
  std::string names;
  for (policy::ResourceName n : {policy::rn::kNeuron, policy::rn::kNeuronDevice, policy::rn::kNeuronCore})
    if (node.used.scalars.get(n) > 0) names += (names.empty() ? "" : " and ") + std::string(n.str());
  if (++stats_.neuron_name_mixes == 1) stats_.neuron_name_mix_example = node.name + ": " + names;
  rec_.node_event({sim_.now(), node.name, scenario_.node_groups[node_recs_[node.id].group].name,
                   "NeuronNamesMixed", "pods on the node request " + names + ", which Kubernetes counts independently"});
}

policy::Resource TrainingCluster::pod_resreq(std::size_t idx) const {
  return policy::task_resreq(pod_requests(scenario_.jobs[idx], cores_per_device_));
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
  const InstanceType* it = catalog.find(g.instance_types.at(l.type));
  if (!it) throw std::invalid_argument("node group '" + g.name + "': instance type '" + g.instance_types.at(l.type) + "' is not in the catalog");
  if (l.type < g.on_demand_price_source.size()) return g.on_demand_price_source[l.type];
  return "catalog row '" + it->name + "' on_demand_usd_per_hour, " + it->region_of_price;
}

std::vector<std::pair<std::string, std::string>> node_labels(const NodeGroupSpec& g, NodeLaunch launch) {
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

void TrainingCluster::init_nodes(core::RngStreams& rng) {
  const TrainingScenario& sc = scenario_;
  dynamic_nodes_ = sc.faults.has_value() || sc.autoscaler.has_value();
  group_next_index_.assign(sc.node_groups.size(), 0);
  for (std::size_t g = 0; g < sc.node_groups.size(); ++g) {
    const NodeGroupSpec& ng = sc.node_groups[g];
    for (const std::string& type : ng.instance_types)
      if (!sc.catalog.find(type))
        throw std::invalid_argument("node group '" + ng.name + "': instance type '" + type + "' is not in the catalog");
    for (int i = 0; i < ng.count; ++i) {
      const NodeId id = add_group_node(g, true, i);
      node_recs_[id].fabric_slot = static_cast<std::uint32_t>(id);  // fabric_nodes_of's order
    }
  }
  if (!sc.faults) return;
  if (sc.faults->failure_rate_per_node_hour > 0) failure_rng_ = &rng.stream("node.failure");
  if (sc.faults->spot_interruption_rate_per_node_hour > 0) spot_rng_ = &rng.stream("spot.interruption");
  for (const NodeFailureAt& f : sc.faults->scheduled) {
    const NodeId id = state_.find_node(f.node);
    if (id == policy::kNone)
      throw std::invalid_argument("faults: scheduled failure of node '" + f.node + "', which is not in the cluster at t = 0");
    sim_.schedule(core::Time::zero() + f.at, &node_failure_event_, id);
  }
  for (const NodeFailureAt& f : sc.faults->spot_interruptions) {
    const NodeId id = state_.find_node(f.node);
    if (id == policy::kNone || node_recs_[id].launch.capacity != CapacityType::Spot)
      throw std::invalid_argument("faults: Spot interruption of node '" + f.node + "', which is not a Spot node at t = 0");
    sim_.schedule(core::Time::zero() + f.at, &spot_notice_event_, id);
  }
}

NodeId TrainingCluster::add_group_node(std::size_t group, bool ready, std::int64_t slot) {
  const NodeGroupSpec& g = scenario_.node_groups[group];
  if (slot < 0) {
    // A scale-up: the lowest slot no live node holds, so that the group at N nodes keeps the
    // Auto Scaling group's On-Demand / Spot split of N (node_launch).
    std::vector<char> held;
    for (const NodeRec& r : node_recs_)
      if (r.group == group && r.removed == core::Time::max()) {
        if (held.size() <= static_cast<std::size_t>(r.slot)) held.resize(static_cast<std::size_t>(r.slot) + 1, 0);
        held[static_cast<std::size_t>(r.slot)] = 1;
      }
    slot = 0;
    while (static_cast<std::size_t>(slot) < held.size() && held[static_cast<std::size_t>(slot)]) ++slot;
  }
  const NodeLaunch launch = node_launch(g, slot);
  policy::NodeInfo n;
  n.name = g.name + "-" + std::to_string(group_next_index_[group]++);
  n.instance_type = g.instance_types[launch.type];
  const NodeResources res = node_resources(scenario_, g, launch, n.name);
  n.capacity = res.capacity;
  n.allocatable = res.allocatable;
  n.daemonset_used = res.daemonsets;
  n.taints = g.taints;
  n.ready = ready;
  n.labels = node_labels(g, launch);
  // The kubelet's well-known kubernetes.io/hostname label (the node's name here).
  n.labels.emplace_back("kubernetes.io/hostname", n.name);
  std::sort(n.labels.begin(), n.labels.end());
  const NodeId id = state_.add_node(n);
  if (node_recs_.size() <= id) node_recs_.resize(id + 1);
  NodeRec& r = node_recs_[id];
  r.group = group;
  r.added = sim_.now();
  r.empty_since = sim_.now();
  r.launching = !ready;
  r.slot = slot;
  r.launch = launch;
  if (started_) record_node_launch(id);
  return id;
}

void TrainingCluster::record_node_launch(NodeId n) {
  const NodeRec& r = node_recs_[n];
  const NodeGroupSpec& g = scenario_.node_groups[r.group];
  // The price the run's cost applies to the node (io::summarize: node_usd_per_hour over
  // [added, removed or the end]).
  rec_.node_launched({r.added, state_.node(n).name, g.name, g.instance_types.at(r.launch.type), to_string(r.launch.capacity),
                      g.availability_zone, node_usd_per_hour(scenario_.catalog, g, r.launch),
                      node_price_source(scenario_.catalog, g, r.launch)});
}

void TrainingCluster::node_failure(NodeId n) {
  if (node_recs_[n].removed != core::Time::max() || node_recs_[n].launching) return;  // gone, or not up yet
  node_recs_[n].failure_pending = false;
  ++stats_.node_failures;
  node_lost(n, "Failed", "node failure");
}

void TrainingCluster::node_lost(NodeId n, const std::string& event, const std::string& reason) {
  NodeRec& r = node_recs_[n];
  r.removed = sim_.now();
  rec_.node_ended({r.removed, state_.node(n).name});
  if (r.spot_pending) {
    sim_.cancel(r.spot_event);
    r.spot_pending = false;
  }
  const std::string name = state_.node(n).name;
  rec_.node_event({sim_.now(), name, scenario_.node_groups[r.group].name, event, reason});
  pods_failed_on_node(n);
  state_.set_node_ready(n, false);
  if (startup_) startup_->forget_node(n);
  if (!node_recs_[n].replaced) launch_replacement(n);
  ensure_tick();
}

void TrainingCluster::launch_replacement(NodeId n) {
  // The Auto Scaling group replaces the instance: a new node in the same capacity slot (the same
  // instance type and purchase option), with an empty image cache.
  node_recs_[n].replaced = true;
  const std::size_t group = node_recs_[n].group;
  const NodeId rep = add_group_node(group, false, node_recs_[n].slot);
  node_recs_[rep].fabric_slot = node_recs_[n].fabric_slot;  // in the old instance's place on the network
  ++stats_.nodes_launched;
  rec_.node_event({sim_.now(), state_.node(rep).name, scenario_.node_groups[group].name, "Launching", "replaces " + state_.node(n).name});
  sim_.schedule_in(scenario_.faults->replacement_time, &node_ready_event_, rep);
}

void TrainingCluster::spot_notice(NodeId n) {
  // EC2 User Guide, "Spot Instance interruption notices": a two-minute warning before EC2
  // interrupts the instance. EKS managed node groups (and aws-node-termination-handler on
  // self-managed ones, --enable-spot-interruption-draining) cordon the node and drain it: every
  // pod is evicted with its own terminationGracePeriodSeconds (NTH --pod-termination-grace-period
  // default -1: the pod's), which the termination at the end of the notice cuts short.
  NodeRec& r = node_recs_[n];
  if (r.removed != core::Time::max() || r.launching || r.noticed) return;  // gone, not up yet, or noticed already
  if (r.spot_pending) {
    sim_.cancel(r.spot_event);  // a no-op when it is the event firing now
    r.spot_pending = false;
  }
  r.noticed = true;
  ++stats_.spot_interruptions;
  const Duration notice = scenario_.faults->spot_notice;
  const std::string name = state_.node(n).name;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", notice.seconds());
  rec_.node_event({sim_.now(), name, scenario_.node_groups[r.group].name, "SpotInterruptionNotice",
                   std::string("Spot interruption notice: cordoned and drained, terminated in ") + secs + " s"});
  state_.set_node_unschedulable(n, true);
  std::vector<TaskId> on;
  for (const auto* list : {&state_.pending_jobs(), &state_.active_jobs()})
    for (policy::JobId j : *list)
      for (TaskId t : state_.job(j).tasks)
        if (state_.task(t).node == n && policy::on_node_status(state_.task(t).status)) on.push_back(t);
  std::sort(on.begin(), on.end());  // task id order: independent of the lists' order
  for (TaskId t : on) drain_pod(t, notice);
  // Capacity Rebalancing (EKS managed Spot node groups; eksctl capacityRebalance): the Auto
  // Scaling group launches the replacement now rather than at the termination.
  if (scenario_.node_groups[r.group].capacity_rebalance) launch_replacement(n);
  sim_.schedule_in(notice, &spot_termination_event_, n);
  ensure_tick();
}

void TrainingCluster::spot_termination(NodeId n) {
  NodeRec& r = node_recs_[n];
  if (r.removed != core::Time::max()) return;  // failed during its notice
  if (r.failure_pending) {
    sim_.cancel(r.failure_event);
    r.failure_pending = false;
  }
  node_lost(n, "SpotInterrupted", "Spot instance terminated at the end of its interruption notice");
}

void TrainingCluster::node_ready(NodeId n) {
  NodeRec& r = node_recs_[n];
  r.launching = false;
  r.empty_since = sim_.now();
  state_.set_node_ready(n, true);
  rec_.node_event({sim_.now(), state_.node(n).name, scenario_.node_groups[r.group].name, "Ready", ""});
  ensure_tick();
}

void TrainingCluster::node_occupancy_changed(NodeId n) {
  NodeRec& r = node_recs_[n];
  if (r.removed != core::Time::max()) return;
  const bool busy = state_.node(n).task_count > 0;
  if (!busy) {
    r.empty_since = sim_.now();
    if (r.failure_pending) {
      sim_.cancel(r.failure_event);
      r.failure_pending = false;
    }
    if (r.spot_pending) {
      sim_.cancel(r.spot_event);
      r.spot_pending = false;
    }
    return;
  }
  // A busy Spot node is interrupted at the scenario's rate, the same way (its own stream).
  if (spot_rng_ != nullptr && !r.spot_pending && !r.noticed && r.launch.capacity == CapacityType::Spot) {
    boost::random::exponential_distribution<double> d(scenario_.faults->spot_interruption_rate_per_node_hour / 3600.0);
    const double s = d(*spot_rng_);
    if (s <= 5e9) {
      r.spot_event = sim_.schedule_in(core::Duration::from_seconds(s), &spot_notice_event_, n);
      r.spot_pending = true;
    }
  }
  // A busy node fails at the scenario's rate; memoryless, so a new draw each time it becomes
  // busy gives exponential times to failure over its busy time.
  if (failure_rng_ == nullptr || r.failure_pending) return;
  boost::random::exponential_distribution<double> d(scenario_.faults->failure_rate_per_node_hour / 3600.0);
  const double s = d(*failure_rng_);
  // A failure beyond about 158 years comes after any run (its times are at most 10 years), and
  // past 292 years it would not even be a Time: a node that never fails (a tiny rate).
  if (s > 5e9) return;
  r.failure_event = sim_.schedule_in(core::Duration::from_seconds(s), &node_failure_event_, n);
  r.failure_pending = true;
}

void TrainingCluster::ensure_scan() {
  if (scan_pending_) return;
  const std::int64_t p = scenario_.autoscaler->scan_interval.count_ns();
  const std::int64_t t = (sim_.now().ns() / p + 1) * p;  // the next loop after this change
  sim_.schedule(core::Time::from_ns(t), &scan_event_, 0);
  scan_pending_ = true;
}

std::int64_t TrainingCluster::autoscaler_headroom_fit(const Resource& pod, const policy::TaskInfo& constraints) const {
  if (!scenario_.autoscaler) return 0;
  std::int64_t fit = 0;
  for (std::size_t g = 0; g < scenario_.node_groups.size(); ++g) {
    const NodeGroupSpec& ng = scenario_.node_groups[g];
    if (ng.max_size < 0) continue;
    // The autoscaler only adds nodes of a group whose template node the pod's predicates accept.
    if (!policy::static_misfit(constraints, template_labels(ng), {}, ng.taints).empty()) continue;
    int live = 0;
    for (std::size_t n = 0; n < node_recs_.size(); ++n)
      if (node_recs_[n].group == g && node_recs_[n].removed == core::Time::max()) ++live;
    const Resource t = node_resources(scenario_, ng).pod_room();
    std::int64_t per = INT64_MAX;
    pod.for_each([&](policy::ResourceName name, double want) {
      if (want > 0) per = std::min<std::int64_t>(per, static_cast<std::int64_t>(t.get(name) / want));
    });
    if (per == INT64_MAX) per = 1;
    fit += per * std::max(0, ng.max_size - live);
  }
  return fit;
}

void TrainingCluster::autoscaler_scan() {
  scan_pending_ = false;
  const AutoscalerSpec& as = *scenario_.autoscaler;
  const core::Time now = sim_.now();
  const std::size_t groups = scenario_.node_groups.size();
  std::vector<int> live(groups, 0);
  for (const NodeRec& r : node_recs_)
    if (r.removed == core::Time::max()) ++live[r.group];

  // ---- scale-up: Pending pods that no existing or upcoming node can take.
  std::vector<TaskId> pending;
  for (const auto* list : {&state_.pending_jobs(), &state_.active_jobs()})
    for (policy::JobId j : *list)
      for (TaskId t : state_.job(j).tasks)
        if (state_.task(t).status == TaskStatus::Pending) pending.push_back(t);
  std::sort(pending.begin(), pending.end());
  if (!pending.empty()) {
    // A pod counts as schedulable on a node its resources fit and whose labels and taints its
    // nodeSelector, node affinity and tolerations accept (the scheduler's predicates, which
    // filter-out-schedulable runs).
    std::vector<std::pair<NodeId, Resource>> free;
    for (const auto& n : state_.nodes()) {
      const NodeRec& r = node_recs_[n.id];
      if (r.removed != core::Time::max()) continue;
      free.emplace_back(n.id, r.launching ? n.pod_room() : n.idle);
    }
    std::vector<TaskId> unsched;
    for (TaskId t : pending) {
      const policy::TaskInfo& task = state_.task(t);
      const Resource& req = task.resreq;
      auto it = std::find_if(free.begin(), free.end(), [&](const std::pair<NodeId, Resource>& f) {
        if (!req.less_equal(f.second)) return false;
        const policy::NodeInfo& n = state_.node(f.first);
        return policy::static_misfit(task, n.labels, n.name, n.taints).empty();
      });
      if (it != free.end()) it->second.sub(req);
      else unsched.push_back(t);
    }
    // Largest NeuronCore request first (then task id): first-fit decreasing.
    std::stable_sort(unsched.begin(), unsched.end(), [&](TaskId a, TaskId b) {
      return neuroncores_of(state_.task(a).resreq) > neuroncores_of(state_.task(b).resreq);
    });
    for (std::size_t g = 0; g < groups && !unsched.empty(); ++g) {
      const NodeGroupSpec& ng = scenario_.node_groups[g];
      if (ng.max_size < 0) continue;
      const Resource tmpl = node_resources(scenario_, ng).pod_room();
      const auto tmpl_labels = template_labels(ng);
      const int headroom = std::max(0, ng.max_size - live[g]);
      std::vector<Resource> fresh;
      std::vector<TaskId> rest;
      for (TaskId t : unsched) {
        const Resource& req = state_.task(t).resreq;
        // The group's template node must take the pod: its resources and its labels and taints.
        if (!req.less_equal(tmpl) || !policy::static_misfit(state_.task(t), tmpl_labels, {}, ng.taints).empty()) {
          rest.push_back(t);
          continue;
        }
        auto it = std::find_if(fresh.begin(), fresh.end(), [&](const Resource& f) { return req.less_equal(f); });
        if (it != fresh.end()) {
          it->sub(req);
        } else if (static_cast<int>(fresh.size()) < headroom) {
          fresh.push_back(tmpl);
          fresh.back().sub(req);
        } else {
          rest.push_back(t);
        }
      }
      unsched.swap(rest);
      for (std::size_t k = 0; k < fresh.size(); ++k) {
        const NodeId id = add_group_node(g, false);
        ++live[g];
        ++stats_.nodes_launched;
        rec_.node_event({now, state_.node(id).name, ng.name, "Launching",
                         "scale-up: pending pods fit no existing node (desired " + std::to_string(live[g]) + ")"});
        sim_.schedule_in(as.launch_time, &node_ready_event_, id);
      }
      if (!fresh.empty()) {
        last_scale_up_ = now;
        scaled_up_ = true;
      }
    }
  }

  // ---- scale-down: nodes without pods for scale_down_unneeded_time.
  bool countdown = false, changed = false;
  const bool cooling = scaled_up_ && now - last_scale_up_ < as.scale_down_delay_after_add;
  for (const auto& n : state_.nodes()) {
    NodeRec& r = node_recs_[n.id];
    const NodeGroupSpec& ng = scenario_.node_groups[r.group];
    if (ng.min_size < 0 || r.removed != core::Time::max() || r.launching || n.task_count > 0) continue;
    if (live[r.group] <= ng.min_size) continue;
    if (cooling || now - r.empty_since < as.scale_down_unneeded_time) {
      countdown = true;
      continue;
    }
    r.removed = now;
    rec_.node_ended({now, n.name});
    changed = true;
    --live[r.group];
    ++stats_.nodes_removed;
    state_.set_node_ready(n.id, false);
    if (startup_) startup_->forget_node(n.id);
    rec_.node_event({now, n.name, ng.name, "Removed",
                     "scale-down: no pods for " + std::to_string(as.scale_down_unneeded_time.count_ns() / 1'000'000'000) +
                         " s (desired " + std::to_string(live[r.group]) + ")"});
  }
  // Scan again only while a countdown runs; any other change schedules a scan (ensure_tick).
  if (changed) ensure_tick();
  else if (countdown) ensure_scan();
}

void TrainingCluster::close_node_books(core::Time end) {
  stats_.node_group_seconds.assign(scenario_.node_groups.size(), 0.0);
  stats_.node_pool_seconds.assign(scenario_.node_groups.size(), {});
  for (std::size_t g = 0; g < scenario_.node_groups.size(); ++g)
    stats_.node_pool_seconds[g].assign(2 * scenario_.node_groups[g].instance_types.size(), 0.0);
  for (const NodeRec& r : node_recs_) {
    const core::Time until = std::min(r.removed, end);
    if (until <= r.added) continue;
    stats_.node_group_seconds[r.group] += (until - r.added).seconds();
    stats_.node_pool_seconds[r.group][2 * r.launch.type + (r.launch.capacity == CapacityType::Spot ? 1 : 0)] += (until - r.added).seconds();
  }
}

}  // namespace mltwin::models
