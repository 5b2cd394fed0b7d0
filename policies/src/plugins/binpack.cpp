// binpack plugin — Volcano v1.12.1 pkg/scheduler/plugins/binpack/binpack.go: a node-order score
// that prefers the node the pod fills most (best fit), to keep scarce resources unfragmented.
//
// Arguments (Volcano's keys; every weight an integer, default 1, a negative one replaced by 1):
//   binpack.weight     multiplies the whole score (0: the plugin registers no node order);
//   binpack.cpu, binpack.memory;
//   binpack.resources  comma-separated extra resources, each weighted by
//                      binpack.resources.<name>. Only listed extended resources count — so the
//                      Neuron devices count only when configured, as in Volcano. Here
//                      "aws.amazon.com/neuroncore" and "aws.amazon.com/neurondevice" both name
//                      the NeuronCore dimension (a device is 2 cores: the ratio is the same),
//                      "vpc.amazonaws.com/efa" the EFA dimension; other names match nothing on
//                      a Trn1 node (Volcano skips them the same way: no allocatable).
// Score (BinPackingScore): over the resources the pod requests (request > 0) that have a
// weight: sum of weight x (used + request) / allocatable, divided by the sum of those weights,
// times MaxNodeScore (100) x binpack.weight; 0 if the pod does not fit on one of them
// (ResourceBinPackingScore's "not enough"). A resource with allocatable 0 or weight 0 adds 0 to
// the score but its weight still counts in the sum, as in Volcano. Resources are summed in the
// fixed order cpu, memory, NeuronCore, EFA (Volcano iterates a Go map for the extended ones;
// the order only affects the last bit of a float sum).
#include <array>
#include <sstream>
#include <stdexcept>

#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {

constexpr double kMaxNodeScore = 100;  // k8s framework.MaxNodeScore

int weight_arg(const Arguments& a, const std::string& key) {
  const int w = a.get_int(key, 1);
  return w < 0 ? 1 : w;
}

class Binpack final : public Plugin {
 public:
  explicit Binpack(const Arguments& a) : weight_(a.get_int("binpack.weight", 1)) {
    // binpack.resources: a comma-separated list of resource names, each weighted by
    // binpack.resources.<name> (default 1, negative read as 1); then cpu and memory.
    const auto& all = a.all();
    if (auto it = all.find("binpack.resources"); it != all.end()) {
      std::stringstream ss(it->second);
      std::string name;
      while (std::getline(ss, name, ',')) {
        const auto b = name.find_first_not_of(" \t"), e = name.find_last_not_of(" \t");
        if (b == std::string::npos) continue;
        name = name.substr(b, e - b + 1);
        set_weight(ResourceName::intern(name), weight_arg(a, "binpack.resources." + name));
      }
    }
    set_weight(rn::kCpu, weight_arg(a, "binpack.cpu"));
    set_weight(rn::kMemory, weight_arg(a, "binpack.memory"));
  }
  std::string_view name() const override { return "binpack"; }
  void on_session_open(Session& ssn) override {
    if (weight_ == 0) return;  // "binpack weight is zero, skip node order function"
    ssn.add_node_order_fn([this](const TaskInfo& t, const NodeInfo& n) { return score(t, n); });
  }

  /// BinPackingScore: over requested.ResourceNames() with a weight.
  double score(const TaskInfo& t, const NodeInfo& n) const {
    double score = 0;
    int weight_sum = 0;
    bool fits = true;
    t.resreq.for_each([&](ResourceName name, double request) {
      if (!fits || request < kMinResource) return;  // ResourceNames(); request == 0 skipped too
      const int w = weight_of(name);
      if (w < 0) return;  // not in BinPackingResources
      const double capacity = n.allocatable.get(name), used = n.used.get(name);
      if (capacity != 0 && w != 0) {
        const double used_finally = request + used;
        if (used_finally > capacity) {
          fits = false;
          return;
        }
        score += used_finally * w / capacity;
      }
      weight_sum += w;
    });
    if (!fits) return 0;
    if (weight_sum > 0) score /= weight_sum;
    return score * kMaxNodeScore * weight_;
  }

 private:
  void set_weight(ResourceName name, int w) {
    for (auto& [n, x] : w_)
      if (n == name) {
        x = w;
        return;
      }
    w_.emplace_back(name, w);
  }
  int weight_of(ResourceName name) const {
    for (const auto& [n, x] : w_)
      if (n == name) return x;
    return -1;
  }
  int weight_;
  std::vector<std::pair<ResourceName, int>> w_;  // BinPackingResources
};

}  // namespace

std::vector<ArgSpec> binpack_arguments() {
  // calculateWeight (pkg/scheduler/plugins/binpack/binpack.go:94-150, v1.12.1), GetInt each.
  const std::string f = "pkg/scheduler/plugins/binpack/binpack.go:";
  return {
      ArgSpec::of("binpack.weight", ArgType::Int, "1", f + "38 BinpackWeight"),
      ArgSpec::of("binpack.cpu", ArgType::Int, "1", f + "40 BinpackCPU"),
      ArgSpec::of("binpack.memory", ArgType::Int, "1", f + "42 BinpackMemory"),
      ArgSpec::of("binpack.resources", ArgType::Text, "", f + "45 BinpackResources"),
      ArgSpec::of("binpack.resources.", ArgType::Int, "1", f + "47 BinpackResourcesPrefix").as_prefix(),
  };
}

std::unique_ptr<Plugin> make_binpack(const Arguments& a) { return std::make_unique<Binpack>(a); }

}  // namespace mltwin::policy::detail
