// predicates plugin — Volcano v1.12.1 pkg/scheduler/plugins/predicates/predicates.go, which runs
// the Kubernetes v1.32 filter plugins in this order (predicateByStablefilter), stopping at the
// first UnschedulableAndUnresolvable status:
//   1. NodeUnschedulable (nodeunschedulable/node_unschedulable.go): a cordoned node, unless the
//      pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule.
//   2. NodeAffinity (nodeaffinity/node_affinity.go), argument predicate.NodeAffinityEnable
//      (default true): the pod's nodeSelector and its required node affinity.
//   3. TaintToleration (tainttoleration/taint_toleration.go), argument
//      predicate.TaintTolerationEnable (default true): every NoSchedule / NoExecute taint of the
//      node must be tolerated; the message names the first one that is not.
// Before these, the node's pod count (predicates.go:495-504): a node holding as many pods as
// its allocatable `pods` (MaxTaskNum) makes the status Unschedulable, "node(s) pod number
// exceeded" — not Unresolvable, so preempt and reclaim still consider the node; the filters
// above still run, and an Unresolvable one wins (mltwin's Status has one reason: Volcano's
// FitError would list both). It matters where nothing else counts pods: BestEffort pods, which
// backfill places without a resource check, and nodes at their pod limit with Releasing pods.
// Volcano counts the pods of its k8s NodeInfo (framework/util.go GenerateNodeMapAndSlice: every
// task on the node at session open, Releasing ones included, and other schedulers' pods), kept
// current by the plugin's event handlers (predicates.go:249-330: a pod allocated or pipelined
// is added, one evicted, unallocated or unpipelined is removed, an undone eviction put back):
// here NodeInfo::task_count plus the other pods (daemonset_used's `pods`) less the tasks
// evicted on the node in this session.
// Node readiness is checked too: Volcano leaves nodes that are not Ready out of its snapshot
// (cache.go Snapshot), so no plugin ever sees them. The rules themselves live in
// node_constraints.hpp. Resource fit is not a predicate: the allocate action checks it, as
// Volcano does. Not modelled: NodePorts, InterPodAffinity, volume and DRA filters, pod
// topology spread (no pod here has ports, pod affinity, volumes or spread constraints).
#include "../builtins.hpp"
#include "mltwin/policy/node_constraints.hpp"

namespace mltwin::policy::detail {
namespace {
class Predicates final : public Plugin {
 public:
  explicit Predicates(const Arguments& a)
      : node_affinity_(a.get_bool("predicate.NodeAffinityEnable", true)),
        taint_toleration_(a.get_bool("predicate.TaintTolerationEnable", true)) {}
  std::string_view name() const override { return "predicates"; }
  void on_session_open(Session& ssn) override {
    evicted_on_.assign(ssn.state().nodes().size(), 0);
    // The event handlers (AllocateFunc / DeallocateFunc): of the pod moves, only evictions and
    // undone evictions leave task_count behind Volcano's count. A deallocated task is Releasing
    // only when evicted; an allocated one is neither Allocated nor Pipelined only when its
    // eviction is undone (Statement::undo, a failed evict at commit).
    ssn.add_event_handler(
        [this](const TaskInfo& t) {
          if (t.status != TaskStatus::Allocated && t.status != TaskStatus::Pipelined) --evicted_on_[t.node];
        },
        [this](const TaskInfo& t) {
          if (t.status == TaskStatus::Releasing) ++evicted_on_[t.node];
        });
    ssn.add_predicate_fn([this](const TaskInfo& t, const NodeInfo& n) {
      const int pods = n.task_count + static_cast<int>(n.daemonset_used.scalars.get(rn::kPods)) - evicted_on_[n.id];
      const bool too_many_pods = n.allocatable.max_task_num <= pods;
      if (n.unschedulable && !tolerated(t.tolerations, kUnschedulableTaint))
        return Status::unresolvable("predicates", "node(s) were unschedulable");
      if (!n.ready) return Status::unresolvable("predicates", "node(s) were not ready");
      if (node_affinity_ && !required_affinity_matches(t.node_selector, t.node_affinity, n.labels, n.name))
        return Status::unresolvable("predicates", std::string(kNodeAffinityMismatch));
      if (taint_toleration_)
        if (const Taint* bad = first_untolerated_taint(n.taints, t.tolerations))
          return Status::unresolvable("predicates", untolerated_taint_reason(*bad));
      if (too_many_pods) return Status::unschedulable("predicates", "node(s) pod number exceeded");
      return Status::success();
    }, TaskDependence::Spec);  // of the task, tolerations, nodeSelector and node affinity only
  }

 private:
  // v1.TaintNodeUnschedulable with the effect the NodeUnschedulable filter checks.
  inline static const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", TaintEffect::NoSchedule};
  bool node_affinity_, taint_toleration_;
  std::vector<int> evicted_on_;  // per node: its tasks evicted in this session (and not put back)
};
}  // namespace
std::vector<ArgSpec> predicates_arguments() {
  // enablePredicate (pkg/scheduler/plugins/predicates/predicates.go:144-215, v1.12.1): each
  // switch read with Arguments.GetBool, defaults as there; setUpVolumeBindingArgs (helper.go).
  const std::string f = "pkg/scheduler/plugins/predicates/predicates.go:";
  const std::string h = "pkg/scheduler/plugins/predicates/helper.go:";
  return {
      ArgSpec::of("predicate.NodeAffinityEnable", ArgType::Bool, "true", f + "59 NodeAffinityEnable"),
      ArgSpec::of("predicate.TaintTolerationEnable", ArgType::Bool, "true", f + "65 TaintTolerationEnable"),
      // Filters for what no pod here has (host ports, pod affinity, volumes, topology spread,
      // resource claims): they pass every node in Volcano too, on or off. CacheEnable caches
      // predicate results and changes no decision.
      ArgSpec::of("predicate.NodePortsEnable", ArgType::Bool, "true", f + "62 NodePortsEnable"),
      ArgSpec::of("predicate.PodAffinityEnable", ArgType::Bool, "true", f + "68 PodAffinityEnable"),
      ArgSpec::of("predicate.NodeVolumeLimitsEnable", ArgType::Bool, "true", f + "71 NodeVolumeLimitsEnable"),
      ArgSpec::of("predicate.VolumeZoneEnable", ArgType::Bool, "true", f + "74 VolumeZoneEnable"),
      ArgSpec::of("predicate.PodTopologySpreadEnable", ArgType::Bool, "true", f + "77 PodTopologySpreadEnable"),
      ArgSpec::of("predicate.VolumeBindingEnable", ArgType::Bool, "true", f + "80 VolumeBindingEnable"),
      ArgSpec::of("predicate.DynamicResourceAllocationEnable", ArgType::Bool, "false", f + "83 DynamicResourceAllocationEnable"),
      ArgSpec::of("predicate.CacheEnable", ArgType::Bool, "false", f + "86 CachePredicate"),
      ArgSpec::of("volumebinding.weight", ArgType::Int, "", h + "30 volumeBindingWeightKey"),
      ArgSpec::of("volumebinding.bindTimeoutSeconds", ArgType::Int, "600", h + "28 volumeBindingTimeoutSecondsKey"),
      ArgSpec::of("volumebinding.shape", ArgType::Text, "", h + "29 volumeBindingShapeKey"),
      // The proportional predicate (idle cpu and memory kept per idle GPU) is not modelled.
      ArgSpec::of("predicate.ProportionalEnable", ArgType::Bool, "false", f + "89 ProportionalPredicate").unmodelled("the proportional predicate"),
      ArgSpec::of("predicate.resources", ArgType::Text, "", f + "91 ProportionalResource").unmodelled("the proportional predicate"),
      ArgSpec::of("predicate.resources.", ArgType::Float, "", f + "93 ProportionalResourcesPrefix").as_prefix().unmodelled("the proportional predicate"),
  };
}

std::unique_ptr<Plugin> make_predicates(const Arguments& a) { return std::make_unique<Predicates>(a); }
}  // namespace mltwin::policy::detail
