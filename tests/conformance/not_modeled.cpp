// Upstream test files whose every case needs a Volcano feature mltwin does not model. Rows of
// files mltwin ports in part are declared next to their ported cases.
#include "conformance.hpp"

namespace {

constexpr const char* kHyperNodes =
    "HyperNodes (topology.volcano.sh HyperNode) and network-topology-aware scheduling are not modelled: "
    "mltwin models the EFA fabric in the twin, not in the scheduler";
constexpr const char* kNuma = "NUMA-aware scheduling (the numa-aware plugin, Numatopology, the CPU manager) is not modelled";

}  // namespace

NOT_APPLICABLE("plugins/network-topology-aware/network_topology_aware_test.go", "", "", kHyperNodes);
NOT_APPLICABLE("plugins/numaaware/policy/policy_best_effort_test.go", "", "", kNuma);
NOT_APPLICABLE("plugins/numaaware/policy/policy_none_test.go", "", "", kNuma);
NOT_APPLICABLE("plugins/numaaware/policy/policy_restricted_test.go", "", "", kNuma);
NOT_APPLICABLE("plugins/numaaware/policy/policy_single_numa_node_test.go", "", "", kNuma);
NOT_APPLICABLE("plugins/numaaware/provider/cpumanager/cpu_mng_test.go", "", "", kNuma);
NOT_APPLICABLE("plugins/tdm/tdm_test.go", "", "", "the tdm plugin (time-division multiplexing of revocable nodes) is not modelled");
NOT_APPLICABLE("plugins/usage/usage_test.go", "", "", "the usage plugin (node load from a metrics source) is not modelled");
NOT_APPLICABLE("plugins/cdp/cdp_test.go", "", "", "the cdp plugin (cool-down protection of elastic pods) is not modelled");
NOT_APPLICABLE("plugins/nodegroup/nodegroup_test.go", "", "", "the nodegroup plugin (queue affinity to node groups) is not modelled");
NOT_APPLICABLE("plugins/pdb/pdb_test.go", "", "", "the pdb plugin (PodDisruptionBudgets) is not modelled");
NOT_APPLICABLE("plugins/resourcequota/resourcequota_test.go", "", "", "the resourcequota plugin (namespace ResourceQuotas) is not modelled");
NOT_APPLICABLE("plugins/task-topology/topology_test.go", "", "", "the task-topology plugin (task affinity annotations) is not modelled");
NOT_APPLICABLE("plugins/drf/hdrf_test.go", "", "", "hierarchical DRF (drf enableHierarchy) is not modelled; mltwin refuses the option");
NOT_APPLICABLE("plugins/predicates/helper_test.go", "", "", "volume binding (PersistentVolumeClaims) is not modelled");
NOT_APPLICABLE("plugins/predicates/proportional_test.go", "", "", "the proportional predicate (predicate.ProportionalEnable) is not modelled");
NOT_APPLICABLE("plugins/util/k8s/snapshot_test.go", "", "",
               "an internal of Volcano's adapter to kube-scheduler's framework (the k8s Snapshot lister); mltwin's predicates read the ClusterState");
NOT_APPLICABLE("plugins/util/nodelock/nodelock_test.go", "", "", "node locking for device sharing (deviceshare) is not modelled");
NOT_APPLICABLE("actions/shuffle/shuffle_test.go", "", "", "the shuffle action (descheduling by eviction policies) is not modelled");
