// nodeorder plugin — Volcano v1.12.1 pkg/scheduler/plugins/nodeorder/nodeorder.go, which scores
// nodes with Kubernetes' scoring plugins and sums them with weights (arguments
// leastrequested.weight = 1, balancedresource.weight = 1, mostrequested.weight = 0 by default).
//
// - NodeResourcesLeastAllocated, resources cpu and memory with weight 50 each (as nodeorder.go
//   configures it): per resource (allocatable - requested) * 100 / allocatable in integers,
//   then the weighted mean in integers (k8s noderesources/least_allocated.go).
// - NodeResourcesMostAllocated (weight 0 by default): requested * 100 / allocatable.
// - NodeResourcesBalancedAllocation over cpu and memory (nvidia.com/gpu is in Volcano's list but
//   absent on Trainium nodes, so skipped as Kubernetes skips zero-allocatable resources):
//   (1 - std of the requested/allocatable fractions) * 100; for two resources std = |f1-f2|/2
//   (k8s noderesources/balanced_allocation.go).
// "requested" includes the pod being scored. The other default scorers (taint toleration,
// image locality, node affinity, pod affinity, topology spread) give every node of a uniform
// Trn1 node group the same score, so they cannot change the choice and are left out for now.
#include <cmath>
#include <cstdint>

#include "../builtins.hpp"

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
        balanced_w_(a.get_int("balancedresource.weight", 1)) {}
  std::string_view name() const override { return "nodeorder"; }
  void on_session_open(Session& ssn) override {
    ssn.add_node_order_fn([this](const TaskInfo& t, const NodeInfo& n) {
      const std::int64_t cpu_req = static_cast<std::int64_t>(n.used[Dim::Cpu] + t.resreq[Dim::Cpu]);
      const std::int64_t mem_req = static_cast<std::int64_t>(n.used[Dim::Memory] + t.resreq[Dim::Memory]);
      const std::int64_t cpu_cap = static_cast<std::int64_t>(n.allocatable[Dim::Cpu]);
      const std::int64_t mem_cap = static_cast<std::int64_t>(n.allocatable[Dim::Memory]);
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
        double f[2];
        int k = 0;
        if (cpu_cap > 0) f[k++] = std::fmin(1.0, static_cast<double>(cpu_req) / static_cast<double>(cpu_cap));
        if (mem_cap > 0) f[k++] = std::fmin(1.0, static_cast<double>(mem_req) / static_cast<double>(mem_cap));
        const double sd = k == 2 ? std::fabs((f[0] - f[1]) / 2) : 0.0;
        score += static_cast<double>(static_cast<std::int64_t>((1 - sd) * kMaxNodeScore)) * balanced_w_;
      }
      return score;
    });
  }

 private:
  int least_w_, most_w_, balanced_w_;
};
}  // namespace
std::unique_ptr<Plugin> make_nodeorder(const Arguments& a) { return std::make_unique<NodeOrder>(a); }
}  // namespace mltwin::policy::detail
