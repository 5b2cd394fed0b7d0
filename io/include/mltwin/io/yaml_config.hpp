// mltwin/io/yaml_config.hpp — the cluster's real configuration, read as its users keep it
// (YAML, yaml-cpp): the volcano-scheduler ConfigMap, Volcano Queue / Job / PodGroup manifests,
// Kubernetes PriorityClasses, an eksctl ClusterConfig, and the Volcano Job that TorchX writes
// for dist.ddp. Each reader keeps the keys under the names of the project that defines them
// and says where each shape comes from.
//
// Errors throw ScenarioError (the CLI exits 2) naming the file, line and column (1-based) and
// the YAML path of the offending value, e.g.
//   jobs/trainer.yaml:14:9: spec.tasks[0].replicas: expected an integer, got "two"
//   volcano-scheduler.yaml:9:13: tiers[1].plugins[2].name: unknown plugin 'foo' (known: ...)
//   cluster.yaml:3:7: kind: expected ClusterConfig (apiVersion eksctl.io/v1alpha5), got "Cluster"
// A key mltwin does not know is an error, except the keys listed as ignored (they change
// nothing that mltwin models; docs/scenarios.md, "Reading real configuration (YAML)", lists them).
//
// A scenario references these files (LoadedScenario::inputs records and hashes each): see
// `volcano.scheduler_config`, `cluster.eksctl`, `queues_from` and `workload.manifests` in
// scenarios/schema/scenario.schema.json. They are translated into the scenario's own JSON
// entries (node_groups, volcano tiers, queues, workload.jobs), so every rule of the JSON
// loader applies to them as well.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/io/scenario.hpp"  // ScenarioError
#include "mltwin/k8s/manifests.hpp"
#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/k8s/yaml_place.hpp"
#include "mltwin/models/training.hpp"
#include "mltwin/policy/config.hpp"

namespace mltwin::io {

/// Where a value was read, and a resource list as written (mltwin/k8s/yaml_place.hpp).
using k8s::ResourceList;
using k8s::YamlPlace;

// ---- volcano-scheduler configuration: the codec's reader (mltwin/k8s/scheduler_conf.hpp) ----
using k8s::read_volcano_scheduler_config;
using k8s::volcano_scheduler_config_json;

// ---- Kubernetes / Volcano manifests: the codec's reader (mltwin/k8s/manifests.hpp) ----
using k8s::JobPolicy;
using k8s::Manifests;
using k8s::PodGroupManifest;
using k8s::PodShape;
using k8s::PriorityClassManifest;
using k8s::QueueManifest;
using k8s::read_manifests;
using k8s::Toleration;
using k8s::VolcanoJobManifest;
using k8s::VolcanoTask;

// ---- eksctl --------------------------------------------------------------------------------

struct EksctlTaint {
  std::string key, value, effect;
};

/// eksctl.io/v1alpha5 nodeGroups[] / managedNodeGroups[] (eksctl pkg/apis/eksctl.io/v1alpha5/types.go),
/// taints in the list form {key, value, effect} (both kinds) or, for nodeGroups, the map form
/// key: "value:effect" (taintsWrapper, pkg/utils/taints/taints.go), checked as eksctl does,
/// sizes defaulted and checked as eksctl does (validation.go ValidateManagedNodeGroup, and
/// pkg/cfn/builder/nodegroup.go for unmanaged groups: minSize from desiredCapacity, else 2;
/// desiredCapacity from minSize; maxSize from desiredCapacity).
/// eksctl nodeGroups[].instancesDistribution (types.go NodeGroupInstancesDistribution): an Auto
/// Scaling MixedInstancesPolicy. Unset fields stay unset (eksctl passes only what is given;
/// EC2 Auto Scaling's defaults apply).
struct EksctlInstancesDistribution {
  std::optional<int> on_demand_base_capacity, on_demand_percentage_above_base_capacity, spot_instance_pools;
  std::string spot_allocation_strategy;  ///< empty: unset
  std::optional<double> max_price;       ///< USD/h
  YamlPlace max_price_at;
  bool capacity_rebalance = false;
};

struct EksctlNodeGroup {
  std::string name;
  bool managed = false;
  /// instanceType, or managedNodeGroups instanceTypes, or instancesDistribution.instanceTypes.
  std::vector<std::string> instance_types;
  bool spot = false;  ///< managedNodeGroups spot: true (capacityType SPOT)
  std::optional<EksctlInstancesDistribution> distribution;  ///< nodeGroups instancesDistribution
  int desired_capacity = 0;
  int min_size = 0;
  int max_size = 0;
  std::vector<std::string> availability_zones;
  bool efa_enabled = false;
  /// volumeSize (GiB): the root volume, which the kubelet advertises as the node's
  /// ephemeral-storage; 0: not given (then the nodes advertise none).
  int volume_size_gib = 0;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<EksctlTaint> taints;
  YamlPlace at;
  std::vector<YamlPlace> instance_types_at;
};

struct EksctlClusterConfig {
  std::string name;
  std::string region;
  std::string version;  ///< metadata.version, the Kubernetes version ("1.32"); empty: not given
  std::vector<EksctlNodeGroup> node_groups;  ///< nodeGroups, then managedNodeGroups
};
EksctlClusterConfig read_eksctl_config(const std::string& file);

// ---- into the model ------------------------------------------------------------------------

/// Through the scenario loader's own queue builder (a Queue is the JSON /queues entry it maps to).
models::QueueSpec to_queue_spec(const QueueManifest& q, int neuroncores_per_device);
/// name, the instance types (and spot: true), desiredCapacity, the zone when there is exactly
/// one, labels. Spot prices and an instancesDistribution are the scenario loader's (through the
/// JSON node group); this gives neither.
models::NodeGroupSpec to_node_group_spec(const EksctlNodeGroup& g);

/// A Volcano Job as the scenario's /workload/jobs entry it maps to (the JSON has the same
/// meaning): nnodes = its pods, the per-pod requests, nproc_per_node from torchrun when given,
/// the pods' nodeSelector, node affinity and tolerations, the PriorityClass it (else its pods)
/// names as priority_class (the scenario loader gives the job that class's value, else the
/// globalDefault class's, else 0), and the training `submit` and `duration`, which no
/// manifest says, and its lifecycle: max_retry (maxRetry), policies (the job's), task_policies
/// (the tasks', which must be the same on every task), each {events, action}, without the
/// events mltwin never raises (TaskFailed, JobUpdated; PodPending). Errors
/// (ScenarioError at the manifest's place) for what mltwin's
/// TrainingJobSpec cannot hold: tasks whose pods request different resources or are placed
/// differently (nodeSelector, affinity, tolerations), a priorityClassName that is not among
/// `classes` (nor a system class). `duration`: a duration (the Job is a torchrun gang: its tasks'
/// policies must agree and minAvailable below the pods — elastic torchrun — is refused), or an
/// object of a duration per task name (the Job is one of independent pods, /workload/jobs/*/tasks;
/// every task needs one; `duration_where` names the object in messages).
nlohmann::json volcano_job_json(const VolcanoJobManifest& job, const std::vector<PriorityClassManifest>& classes,
                                const nlohmann::json& submit, const nlohmann::json& duration,
                                const std::string& duration_where = "the manifest entry's duration");
/// volcano_job_json built into a models::TrainingJobSpec by the scenario loader's job builder,
/// its priority resolved from `classes` as the scenario loader does.
models::TrainingJobSpec to_training_job(const VolcanoJobManifest& job,
                                        const std::vector<PriorityClassManifest>& classes,
                                        core::Duration submit, core::Duration duration, int neuroncores_per_device);


}  // namespace mltwin::io
