// predicates plugin — Volcano v1.12.1 pkg/scheduler/plugins/predicates/predicates.go, which runs
// the Kubernetes filter plugins. Modelled here: NodeUnschedulable (cordoned nodes), node
// readiness, and nodeSelector (NodeAffinity's required labels), with the Kubernetes messages.
// Taints/tolerations and node affinity expressions come with the Kubernetes-constraints issue.
// Resource fit is not a predicate: the allocate action checks it, as Volcano does.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Predicates final : public Plugin {
 public:
  std::string_view name() const override { return "predicates"; }
  void on_session_open(Session& ssn) override {
    ssn.add_predicate_fn([](const TaskInfo& t, const NodeInfo& n) {
      if (n.unschedulable) return Status::unresolvable("predicates", "node(s) were unschedulable");
      if (!n.ready) return Status::unresolvable("predicates", "node(s) were not ready");
      for (const auto& [k, v] : t.node_selector) {
        const std::string* have = n.label(k);
        if (!have || *have != v)
          return Status::unresolvable("predicates", "node(s) didn't match Pod's node affinity/selector");
      }
      return Status::success();
    });
  }
};
}  // namespace
std::unique_ptr<Plugin> make_predicates(const Arguments&) { return std::make_unique<Predicates>(); }
}  // namespace mltwin::policy::detail
