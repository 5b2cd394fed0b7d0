// nodeorder plugin — Volcano v1.12.1 pkg/scheduler/plugins/nodeorder/nodeorder.go, which scores
// nodes with Kubernetes v1.32's scoring plugins and sums them with weights, read from the
// plugin's arguments (calculateWeight; defaults in brackets): leastrequested.weight [1],
// mostrequested.weight [0], balancedresource.weight [1], nodeaffinity.weight [2],
// tainttoleration.weight [3]. A weight of 0 turns its scorer off.
//
// Per node (the NodeOrderFn):
// - NodeResourcesLeastAllocated, resources cpu and memory with weight 50 each (as nodeorder.go
//   configures it): per resource (allocatable - requested) * 100 / allocatable in integers,
//   then the weighted mean in integers (k8s noderesources/least_allocated.go).
// - NodeResourcesMostAllocated, cpu and memory with weight 1 each: requested * 100 /
//   allocatable, capped at 100 (noderesources/most_allocated.go).
// - NodeResourcesBalancedAllocation over cpu, memory and nvidia.com/gpu (nodeorder.go:192-200):
//   (1 - std of the requested/allocatable fractions) * 100; for two resources std = |f1-f2|/2,
//   for three the population standard deviation (k8s noderesources/balanced_allocation.go). The
//   GPU fraction counts only for a pod that requests GPUs on a node that has them
//   (resource_allocation.go skips an extended resource the pod does not request, and a resource
//   the node does not have): on Trainium nodes it never does.
//   "requested" is every pod on the node (DaemonSet pods included, and the pods pipelined there
//   in this session) plus the pod being scored.
// - NodeAffinity (nodeaffinity/node_affinity.go Score): the sum of the weights of the pod's
//   preferred node-affinity terms the node matches, times the weight. nodeorder.go adds this raw
//   sum without the plugin's NormalizeScore ("TODO: should we normalize the score"), so a
//   matched term of weight 100 adds 200 at the default weight; mltwin does the same.
// Over the candidate nodes at once (the BatchNodeOrderFn, normalised as Kubernetes does,
// plugins/util/nodescore CalculatePluginScore):
// - TaintToleration (tainttoleration/taint_toleration.go): per node the number of its
//   PreferNoSchedule taints that the pod's tolerations (those with an empty or PreferNoSchedule
//   effect) do not tolerate; then DefaultNormalizeScore(100, reverse): 100 - 100 * count /
//   max count over the candidates (100 for every node when no candidate has such a taint),
//   times the weight.
// Left out: ImageLocality (every node pulls from the same ECR image; scored 0 when the image is
// absent and mltwin keeps no image list per node), InterPodAffinity (no pod here has pod
// affinity terms) and PodTopologySpread (Kubernetes' default spreading constraints select the
// pods of a Service or ReplicaSet; mltwin does not model the Service Volcano's svc plugin
// creates, so this scorer is not reproduced).
#include <cmath>
#include <algorithm>
#include <cstdint>

#include "../builtins.hpp"
#include "mltwin/policy/node_constraints.hpp"

namespace mltwin::policy::detail {
namespace {
constexpr std::int64_t kMaxNodeScore = 100;

std::int64_t least_requested(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ((capacity - requested) * kMaxNodeScore) / capacity;
}
std::int64_t most_requested(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) return kMaxNodeScore;  // k8s caps at the maximum
  return (requested * kMaxNodeScore) / capacity;
}

class NodeOrder final : public Plugin {
 public:
  explicit NodeOrder(const Arguments& a)
      : least_w_(a.get_int("leastrequested.weight", 1)),
        most_w_(a.get_int("mostrequested.weight", 0)),
        balanced_w_(a.get_int("balancedresource.weight", 1)),
        affinity_w_(a.get_int("nodeaffinity.weight", 2)),
        taint_w_(a.get_int("tainttoleration.weight", 3)) {}
  std::string_view name() const override { return "nodeorder"; }
  void on_session_open(Session& ssn) override {
    // Pipelined pods reach the NodeMap only through the predicates plugin's handler.
    bool with_predicates = false;
    for (const auto& tier : ssn.config().tiers)
      for (const auto& p : tier.plugins) with_predicates = with_predicates || p.name == "predicates";
    const double pl = with_predicates ? 1.0 : 0.0;
    ssn.add_node_order_fn([this, pl](const TaskInfo& t, const NodeInfo& n) {
      // The pods of the session's NodeMap (framework/util.go GenerateNodeMapAndSlice), which the
      // predicates plugin's AllocateFunc (plugins/predicates/predicates.go) adds each allocated
      // *or pipelined* pod to: used plus pipelined (Volcano's NodeInfo.Used leaves pipelined out),
      // when the predicates plugin is configured (every shipped configuration).
      const std::int64_t cpu_req = static_cast<std::int64_t>(n.used.milli_cpu + pl * n.pipelined.milli_cpu + t.resreq.milli_cpu);
      const std::int64_t mem_req = static_cast<std::int64_t>(n.used.memory + pl * n.pipelined.memory + t.resreq.memory);
      const std::int64_t cpu_cap = static_cast<std::int64_t>(n.allocatable.milli_cpu);
      const std::int64_t mem_cap = static_cast<std::int64_t>(n.allocatable.memory);
      double score = 0;
      if (least_w_ != 0) {
        const std::int64_t s = (least_requested(cpu_req, cpu_cap) * 50 + least_requested(mem_req, mem_cap) * 50) / 100;
        score += static_cast<double>(s) * least_w_;
      }
      if (most_w_ != 0) {
        const std::int64_t s = (most_requested(cpu_req, cpu_cap) + most_requested(mem_req, mem_cap)) / 2;
        score += static_cast<double>(s) * most_w_;
      }
      if (balanced_w_ != 0) {
        double f[3];
        int k = 0;
        if (cpu_cap > 0) f[k++] = std::fmin(1.0, static_cast<double>(cpu_req) / static_cast<double>(cpu_cap));
        if (mem_cap > 0) f[k++] = std::fmin(1.0, static_cast<double>(mem_req) / static_cast<double>(mem_cap));
        const double gpu_req = t.resreq.scalars.get(rn::kNvidiaGpu);
        const double gpu_cap = n.allocatable.scalars.get(rn::kNvidiaGpu);
        if (gpu_req > 0 && gpu_cap > 0) f[k++] = std::fmin(1.0, (n.used.scalars.get(rn::kNvidiaGpu) + pl * n.pipelined.scalars.get(rn::kNvidiaGpu) + gpu_req) / gpu_cap);
        double sd = 0.0;
        if (k == 2) {
          sd = std::fabs((f[0] - f[1]) / 2);
        } else if (k == 3) {
          const double mean = (f[0] + f[1] + f[2]) / 3;
          double sum = 0;
          for (int i = 0; i < 3; ++i) sum = sum + (f[i] - mean) * (f[i] - mean);
          sd = std::sqrt(sum / 3);
        }
        score += static_cast<double>(static_cast<std::int64_t>((1 - sd) * kMaxNodeScore)) * balanced_w_;
      }
      if (affinity_w_ != 0 && !t.node_affinity.preferred.empty())
        score += static_cast<double>(preferred_affinity_score(t.node_affinity, n.labels, n.name)) * affinity_w_;
      return score;
    });
    if (taint_w_ == 0) return;
    // Without a PreferNoSchedule taint anywhere, every count is 0 and every node scores 100: a
    // node's score is then the same whatever the candidate set.
    const bool any = ssn.state().has_prefer_no_schedule_taints();
    const ClusterState& st = ssn.state();
    ssn.add_batch_node_order_fn(
        [this, any, &st](const TaskInfo& t, std::span<const NodeId> nodes, std::span<double> scores) {
          if (!any) {
            for (double& s : scores) s += static_cast<double>(kMaxNodeScore * taint_w_);
            return;
          }
          counts_.resize(nodes.size());
          std::int64_t max_count = 0;
          for (std::size_t i = 0; i < nodes.size(); ++i) {
            counts_[i] = intolerable_prefer_no_schedule(st.node(nodes[i]).taints, t.tolerations);
            max_count = std::max(max_count, counts_[i]);
          }
          // helper.DefaultNormalizeScore(MaxNodeScore, reverse = true, scores).
          for (std::size_t i = 0; i < nodes.size(); ++i) {
            const std::int64_t s = max_count == 0 ? kMaxNodeScore : kMaxNodeScore - kMaxNodeScore * counts_[i] / max_count;
            scores[i] += static_cast<double>(s * taint_w_);
          }
        },
        any);
  }

 private:
  int least_w_, most_w_, balanced_w_, affinity_w_, taint_w_;
  std::vector<std::int64_t> counts_;
};
}  // namespace
std::unique_ptr<Plugin> make_nodeorder(const Arguments& a) { return std::make_unique<NodeOrder>(a); }

std::vector<ArgSpec> nodeorder_arguments() {
  // calculateWeight (pkg/scheduler/plugins/nodeorder/nodeorder.go:116-151, v1.12.1): each key
  // read with Arguments.GetInt, defaults as there.
  const std::string f = "pkg/scheduler/plugins/nodeorder/nodeorder.go:";
  return {
      ArgSpec::of("leastrequested.weight", ArgType::Int, "1", f + "51 LeastRequestedWeight"),
      ArgSpec::of("mostrequested.weight", ArgType::Int, "0", f + "55 MostRequestedWeight"),
      ArgSpec::of("balancedresource.weight", ArgType::Int, "1", f + "53 BalancedResourceWeight"),
      ArgSpec::of("nodeaffinity.weight", ArgType::Int, "2", f + "47 NodeAffinityWeight"),
      ArgSpec::of("tainttoleration.weight", ArgType::Int, "3", f + "57 TaintTolerationWeight"),
      // Scores of what no pod here has (pod affinity, topology spread constraints): zero on
      // every node in Volcano too, whatever the weight.
      ArgSpec::of("podaffinity.weight", ArgType::Int, "2", f + "49 PodAffinityWeight"),
      ArgSpec::of("podtopologyspread.weight", ArgType::Int, "2", f + "61 PodTopologySpreadWeight"),
      ArgSpec::of("imagelocality.weight", ArgType::Int, "1", f + "59 ImageLocalityWeight").unmodelled("the ImageLocality score (which nodes hold a pod's images)"),
  };
}
}  // namespace mltwin::policy::detail
