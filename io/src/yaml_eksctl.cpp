// yaml_eksctl.cpp — read_eksctl_config: an eksctl ClusterConfig's node groups (yaml_config.hpp),
// through the typed YAML layer (yaml_typed.hpp).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "mltwin/io/yaml_config.hpp"
#include "scenario_common.hpp"
#include "yaml_typed.hpp"

namespace mltwin::io {

using nlohmann::json;
using namespace yaml;

namespace {

// NodeGroup.InstancesDistribution (types.go), checked as validation.go
// validateInstancesDistribution does; `one` and `several` are the group's instanceType(s).
void read_instances_distribution(const Y& dist, const Y* one, const Y* several, EksctlNodeGroup& ng) {
  if (ng.managed) dist.fail("instancesDistribution is a nodeGroups field; a managed node group takes instanceTypes and spot");
  // validateInstancesDistribution: instanceType "mixed" or unset.
  if (one && one->str() != "mixed") one->fail("instanceType should be \"mixed\" or unset when using the instances distribution feature");
  if (several) several->fail("instanceTypes is a managedNodeGroups field; list the types under instancesDistribution.instanceTypes");
  const M dm(dist, {"instanceTypes", "maxPrice", "onDemandBaseCapacity", "onDemandPercentageAboveBaseCapacity", "spotInstancePools",
                     "spotAllocationStrategy", "capacityRebalance"});
  EksctlInstancesDistribution d;
  const Y* dts = dm.get("instanceTypes");
  if (!dts || dts->list().empty()) dist.fail("at least two instance types have to be specified for mixed nodegroups (instanceTypes)");
  for (const Y& t : dts->list()) {
    ng.instance_types.push_back(t.str());
    ng.instance_types_at.push_back(t.at());
  }
  std::set<std::string> unique(ng.instance_types.begin(), ng.instance_types.end());
  if (unique.size() > 20) dts->fail("mixed nodegroups should have between 1 and 20 different instance types");
  if (unique.size() != ng.instance_types.size()) dts->fail("an instance type is listed twice");
  if (const Y* v = dm.get("onDemandBaseCapacity")) {
    if (v->integer() < 0) v->fail("onDemandBaseCapacity should be 0 or more");
    d.on_demand_base_capacity = v->int32(0);
  }
  if (const Y* v = dm.get("onDemandPercentageAboveBaseCapacity")) {
    if (v->integer() < 0 || v->integer() > 100) v->fail("percentageAboveBase should be between 0 and 100");
    d.on_demand_percentage_above_base_capacity = v->int32(0);
  }
  if (const Y* v = dm.get("spotInstancePools")) {
    if (v->integer() < 1 || v->integer() > 20) v->fail("spotInstancePools should be between 1 and 20");
    d.spot_instance_pools = v->int32(1);
  }
  if (const Y* v = dm.get("spotAllocationStrategy")) {
    const std::string st = v->str();
    // eksctl accepts EC2's SpotAllocationStrategy values; "diversified" is EC2 Fleet's, not
    // one EC2 Auto Scaling's InstancesDistribution takes.
    if (st != "lowest-price" && st != "capacity-optimized" && st != "capacity-optimized-prioritized" && st != "price-capacity-optimized")
      v->fail("spotAllocationStrategy should be one of: lowest-price, capacity-optimized, capacity-optimized-prioritized, "
              "price-capacity-optimized (EC2 Auto Scaling's; got \"" + st + "\")");
    if (d.spot_instance_pools && st != "lowest-price")
      dm.get("spotInstancePools")->fail("spotInstancePools cannot be specified when also specifying spotAllocationStrategy: " + st);
    d.spot_allocation_strategy = st;
  }
  if (const Y* v = dm.get("maxPrice")) {
    double price = 0;
    if (!v->node.IsScalar() || (plain_type(v->node) != Plain::Int && plain_type(v->node) != Plain::Float) ||
        !go_parse_float(v->node.Scalar(), price) || !(price > 0))
      v->fail("expected a price in USD per hour above 0, got " + shown(v->node));
    d.max_price = price;
    d.max_price_at = v->at();
  }
  if (const Y* v = dm.get("capacityRebalance")) d.capacity_rebalance = v->boolean();
  ng.distribution = d;
}

// Instance types and purchase options (types.go ManagedNodeGroup.InstanceTypes and Spot;
// NodeGroup.InstancesDistribution), checked as validation.go does.
void read_instance_types(const Y& g, const M& gm, EksctlNodeGroup& ng) {
  const Y* one = gm.get("instanceType");
  const Y* several = gm.get("instanceTypes");
  const Y* dist = gm.get("instancesDistribution");
  if (const Y* sp = gm.get("spot")) {
    if (!ng.managed)
      sp->fail("spot is a managedNodeGroups field; a nodeGroups entry gets Spot instances from instancesDistribution (eksctl User Guide, \"Spot instances\")");
    ng.spot = sp->boolean();
  }
  if (dist) {
    read_instances_distribution(*dist, one, several, ng);
  } else if (one && several) {
    several->fail("only one of instanceType or instanceTypes can be specified");
  } else if (one) {
    ng.instance_types = {one->str()};
    ng.instance_types_at = {one->at()};
  } else if (several) {
    if (!ng.managed && several->list().size() != 1)
      several->fail("a nodeGroups entry of several instance types takes them under instancesDistribution.instanceTypes");
    for (const Y& t : several->list()) {
      ng.instance_types.push_back(t.str());
      ng.instance_types_at.push_back(t.at());
    }
    if (ng.instance_types.empty()) several->fail("expected at least one instance type");
    std::set<std::string> unique(ng.instance_types.begin(), ng.instance_types.end());
    if (unique.size() != ng.instance_types.size()) several->fail("an instance type is listed twice");
    if (unique.size() > 20) several->fail("expected at most 20 instance types");
  } else {
    g.fail(ng.managed ? "missing required key 'instanceType' or 'instanceTypes' (mltwin does not assume eksctl's default m5.large)"
                      : "missing required key 'instanceType' or 'instancesDistribution' (mltwin does not assume eksctl's default m5.large)");
  }
}

// desiredCapacity, minSize, maxSize with eksctl's defaults and checks; the group's name fits
// the node names its largest size gives.
void read_sizes(const M& gm, EksctlNodeGroup& ng) {
  std::optional<int> desired, mn, mx;
  if (const Y* v = gm.get("desiredCapacity")) desired = v->int32(0);
  if (const Y* v = gm.get("minSize")) mn = v->int32(0);
  if (const Y* v = gm.get("maxSize")) mx = v->int32(0);
  // eksctl's defaults and checks (pkg/apis/eksctl.io/v1alpha5/validation.go).
  if (!mn) mn = desired ? *desired : 2;
  else if (desired && *desired < *mn) gm.get("desiredCapacity")->fail("desiredCapacity " + std::to_string(*desired) + " is below minSize " + std::to_string(*mn));
  if (!mx) {
    mx = desired ? *desired : *mn;
    if (*mx == 0) mx = 1;
  } else if (desired && *desired > *mx) {
    gm.get("desiredCapacity")->fail("desiredCapacity " + std::to_string(*desired) + " is above maxSize " + std::to_string(*mx));
  } else if (*mx < *mn) {
    gm.get("maxSize")->fail("maxSize " + std::to_string(*mx) + " is below minSize " + std::to_string(*mn));
  }
  if (!desired) desired = mn;
  // The scenario schema's bound on a node group (desired_capacity, min_size, max_size).
  for (const char* k : {"desiredCapacity", "minSize", "maxSize"})
    if (const Y* v = gm.get(k); v && v->int32(0) > 1000000)
      v->fail("expected at most 1000000 nodes in a node group, got " + v->node.Scalar());
  ng.desired_capacity = *desired;
  ng.min_size = *mn;
  ng.max_size = *mx;
  if (std::string p = detail::node_group_name_problem(ng.name, std::max(*desired, *mx) - 1); !p.empty()) gm.req("name").fail(p);
}

void refuse_allocatable_keys(const M& gm) {
  // Keys that would change a node's allocatable, which mltwin takes from the catalog row
  // (max_pods) and the scenario's kubelet_reserved: refused rather than silently ignored.
  if (const Y* mp = gm.get_ignored("maxPodsPerNode"))
    mp->fail("maxPodsPerNode is not modelled: a node's pods capacity is its catalog row's max_pods (amazon-eks-ami "
             "eni-max-pods.txt); to change it, give the row with max_pods under the scenario's /catalog/instance_types "
             "and remove maxPodsPerNode here");
  if (const Y* kc = gm.get_ignored("kubeletExtraConfig")) {
    if (kc->node.IsMap())
      for (const char* k : {"maxPods", "kubeReserved", "systemReserved", "evictionHard"})
        if (kc->node[k])
          kc->child(k, kc->node[k]).fail(std::string(k) + " in kubeletExtraConfig is not modelled: give " +
                                          (std::string(k) == "maxPods" ? "the catalog row's max_pods under /catalog/instance_types"
                                                                       : "the scenario's cluster.kubelet_reserved") +
                                          " instead, and remove it here");
  }
}

void read_taints(const Y* t, EksctlNodeGroup& ng) {
  // A list of {key, value, effect}, or — unmanaged nodeGroups only (taintsWrapper; a
  // managed group's taints are []NodeGroupTaint) — the map "key: value:effect" or
  // "key: :effect", split at ':' as eksctl's taints.Parse does. Each checked as
  // taints.Validate does (a qualified key, a label value, a known effect).
  std::vector<std::pair<EksctlTaint, Y>> read;
  if (t->node.IsMap()) {
    if (ng.managed)
      t->fail("a managed node group's taints are a list of {key, value, effect} (the map form is for nodeGroups)");
    const M tm(*t, {}, {}, true);
    for (const auto& [k, v] : tm.entries) {
      const std::string ve = v.str();
      std::vector<std::string> parts;
      std::stringstream ss(ve);
      std::string part;
      while (std::getline(ss, part, ':')) parts.push_back(part);
      if (!ve.empty() && ve.back() == ':') parts.push_back("");
      EksctlTaint taint{k, "", ""};
      if (parts.size() == 1) taint.effect = parts[0];
      else if (parts.size() == 2) taint = {k, parts[0], parts[1]};
      read.push_back({taint, v});
    }
  } else {
    for (const Y& x : t->list()) {
      const M tm(x, {"key", "value", "effect"});
      read.push_back({{tm.req("key").str(), tm.get("value") ? tm.get("value")->str() : "", tm.req("effect").str()}, x});
    }
  }
  for (const auto& [taint, at] : read) {
    const json o = {{"key", taint.key}, {"value", taint.value}, {"effect", taint.effect}};
    if (auto problem = detail::taint_problem(o)) {
      if (at.node.IsMap()) descend(at, problem->field).fail(problem->message);
      at.fail("taint '" + taint.key + "': " + problem->field + ": " + problem->message);
    }
    for (const auto& other : ng.taints)
      if (other.key == taint.key && other.effect == taint.effect)
        at.fail("taint '" + taint.key + "' with effect " + taint.effect + " appears twice (taints are unique by key and effect)");
    ng.taints.push_back(taint);
  }
}

// One entry of nodeGroups or managedNodeGroups; `names` holds the names seen so far.
EksctlNodeGroup read_node_group(const Y& g, bool managed, std::set<std::string>& names) {
  // NodeGroupBase / ScalingConfig keys (types.go). Everything else about a node (AMI, volumes,
  // networking, IAM, SSH, tags, placement, ...) is accepted and ignored; a key eksctl does not
  // define is an error, as in eksctl (a key of the other kind of group is ignored here and
  // refused by eksctl's own validation).
  const M gm(g, {"name", "instanceType", "instanceTypes", "desiredCapacity", "minSize", "maxSize", "availabilityZones",
                 "efaEnabled", "labels", "taints", "instancesDistribution", "spot", "volumeSize"},
             {// NodeGroupBase
              "amiFamily", "subnets", "instancePrefix", "instanceName", "ssh", "privateNetworking", "tags", "iam", "ami",
              "securityGroups", "maxPodsPerNode", "asgSuspendProcesses", "ebsOptimized", "volumeType", "volumeName",
              "volumeEncrypted", "volumeKmsKeyID", "volumeIOPS", "volumeThroughput", "additionalVolumes",
              "preBootstrapCommands", "overrideBootstrapCommand", "propagateASGTags", "disableIMDSv1", "disablePodIMDS",
              "placement", "instanceSelector", "bottlerocket", "enableDetailedMonitoring", "capacityReservation",
              "instanceMarketOptions", "outpostARN",
              // NodeGroup
              "asgMetricsCollection", "cpuCredits", "classicLoadBalancerNames", "targetGroupARNs", "updateConfig",
              "clusterDNS", "kubeletExtraConfig", "containerRuntime", "maxInstanceLifetime", "localZones", "enclaveEnabled",
              // ManagedNodeGroup
              "launchTemplate", "releaseVersion", "nodeRepairConfig"});
  EksctlNodeGroup ng;
  ng.at = g.at();
  ng.managed = managed;
  ng.name = gm.req("name").str();
  if (!names.insert(ng.name).second) gm.req("name").fail("node group '" + ng.name + "' appears twice");
  read_instance_types(g, gm, ng);
  read_sizes(gm, ng);
  if (const Y* z = gm.get("availabilityZones"))
    for (const Y& a : z->list()) ng.availability_zones.push_back(a.str());
  if (const Y* e = gm.get("efaEnabled")) ng.efa_enabled = e->boolean();
  refuse_allocatable_keys(gm);
  // volumeSize, GiB (eksctl types.go NodeGroupBase.VolumeSize): the root volume, which the
  // kubelet advertises as the node's ephemeral-storage capacity.
  if (const Y* v = gm.get("volumeSize")) {
    ng.volume_size_gib = v->int32(1);
    if (ng.volume_size_gib > 65536) v->fail("expected at most 65536 GiB (an EBS volume's largest), got " + v->node.Scalar());
  }
  if (const Y* l = gm.get("labels")) ng.labels = string_map(*l);
  if (const Y* t = gm.get("taints")) read_taints(t, ng);
  return ng;
}

}  // namespace

EksctlClusterConfig read_eksctl_config(const std::string& file) {
  const std::string text = read_text(file);
  Src src(file);
  const Y doc{&src, single_document(src, text, "an eksctl ClusterConfig"), ""};
  const auto [api, kind] = type_of(doc);
  if (kind != "ClusterConfig")
    doc.child("kind", doc.node["kind"]).fail("expected ClusterConfig (apiVersion eksctl.io/v1alpha5), got \"" + kind + "\"");
  if (api != "eksctl.io/v1alpha5")
    doc.child("apiVersion", doc.node["apiVersion"]).fail("expected eksctl.io/v1alpha5, got \"" + api + "\"");
  // eksctl decodes a config file strictly (pkg/eks/api.go:222 ParseConfig: yaml.UnmarshalStrict,
  // eksctl v0.230.0), so a misspelt key is an error there and here. The field lists are the json
  // names of pkg/apis/eksctl.io/v1alpha5/types.go at v0.230.0: ClusterConfig (:1004),
  // ClusterMeta (:700), NodeGroupBase (:1888) with ScalingConfig (:1841), NodeGroup (:1501),
  // ManagedNodeGroup (:2103). Of the cluster mltwin reads
  // its node groups; the rest (vpc, iam, addons, cloudWatch, ...) changes nothing it models.
  const M top(doc, {"apiVersion", "kind", "metadata", "nodeGroups", "managedNodeGroups"},
              {"upgradePolicy", "kubernetesNetworkConfig", "autoModeConfig", "remoteNetworkConfig", "iam", "iamIdentityMappings",
               "identityProviders", "accessConfig", "vpc", "addons", "addonsConfig", "privateCluster", "fargateProfiles",
               "availabilityZones", "localZones", "cloudWatch", "secretsEncryption", "gitops", "karpenter", "outpost",
               "controlPlaneScalingConfig", "zonalShiftConfig", "kubeAPIServerConfig", "kubeSchedulerConfig",
               "kubeControllerManagerConfig", "capabilities"});
  EksctlClusterConfig cc;
  {
    const M meta(top.req("metadata"), {"name", "region", "version"}, {"forceUpdateVersion", "rollbackConfig", "tags", "annotations"});
    cc.name = meta.req("name").str();
    if (const Y* r = meta.get("region")) cc.region = r->str();
    // The cluster's Kubernetes version sets version-dependent defaults (the node monitor grace
    // period); "1.<minor>" as eksctl writes it (pkg/apis/eksctl.io/v1alpha5 ClusterMeta.Version).
    if (const Y* v = meta.get("version")) {
      cc.version = v->str();
      if (!detail::kubernetes_minor_of(cc.version))
        v->fail("expected a Kubernetes version \"1.<minor>\" (e.g. \"1.32\"), got '" + cc.version + "'");
    }
  }
  std::set<std::string> names;
  for (const char* section : {"nodeGroups", "managedNodeGroups"}) {
    const Y* s = top.get(section);
    if (!s) continue;
    for (const Y& g : s->list()) cc.node_groups.push_back(read_node_group(g, std::string(section) == "managedNodeGroups", names));
  }
  if (cc.node_groups.empty()) doc.fail("the ClusterConfig has no nodeGroups or managedNodeGroups");
  return cc;
}

}  // namespace mltwin::io
