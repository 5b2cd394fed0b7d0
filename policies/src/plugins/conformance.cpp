// conformance plugin — Volcano v1.12.1 pkg/scheduler/plugins/conformance/conformance.go.
// Critical pods (system-cluster-critical, system-node-critical, kube-system) are never victims.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Conformance final : public Plugin {
 public:
  std::string_view name() const override { return "conformance"; }
  void on_session_open(Session& ssn) override {
    const ClusterState* st = &ssn.state();
    auto fn = [st](const TaskInfo&, std::span<const TaskId> evictees, std::vector<TaskId>& victims) {
      for (TaskId t : evictees)
        if (!st->task(t).system_critical) victims.push_back(t);
      return kPermit;
    };
    // Whoever asks: the evictees' own priority class and namespace decide.
    ssn.add_preemptable_fn(fn, VictimDependence::NotOnPreemptor);
    ssn.add_reclaimable_fn(fn, VictimDependence::NotOnPreemptor);
  }
};
}  // namespace
std::unique_ptr<Plugin> make_conformance(const Arguments&) { return std::make_unique<Conformance>(); }
}  // namespace mltwin::policy::detail
