// Volcano v1.12.1 pkg/scheduler/plugins/binpack/binpack_test.go TestNode, ported: binpack's
// node score of every task on every node, within upstream's eps 1e-8.
#include <cmath>

#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;
constexpr double kEps = 1e-8;  // binpack_test.go eps

/// TestNode's cluster: p1 and p2 are Pending pods with a node name (Bound, helpers.go
/// getTaskStatus), p3 asks for 2 nvidia.com/gpu, p4 for 3 example.com/foo.
void build(World& w) {
  w.queue(QueueBuilder("c1").weight(1));
  w.node(NodeBuilder("n1").cpu("2").memory("4Gi").pods(10));
  w.node(NodeBuilder("n2").cpu("4").memory("16Gi").pods(10).resource("nvidia.com/gpu", 4));
  w.node(NodeBuilder("n3").cpu("2").memory("4Gi").pods(10).resource("example.com/foo", 16));
  w.job(JobBuilder("pg1", "c1").min_available(0).no_min_resources().phase(PodGroupPhase::Pending)
            .pod(Pod().name("c1/p1").cpu("1").memory("1Gi").on("n1", TaskStatus::Bound))
            .pod(Pod().name("c1/p2").cpu("1.5").memory("0Gi").on("n3", TaskStatus::Bound))
            .pod(Pod().name("c1/p3").cpu("2").memory("10Gi").resource("nvidia.com/gpu", 2))
            .pod(Pod().name("c1/p4").cpu("3").memory("4Gi").resource("example.com/foo", 3)));
}

void check_scores(World& w, const Arguments& a, const std::map<std::string, std::map<std::string, double>>& want) {
  SessionOn s(w, {Tier{{plugin("binpack", {Ext::NodeOrder}, a)}}});
  for (const TaskInfo& t : w.state.tasks()) {
    for (const NodeInfo& n : w.state.nodes()) {
      const double got = s->node_score(t, n);
      const double expect = want.at(t.name).at(n.name);
      INFO(t.name << " on " << n.name << ": want " << expect << ", got " << got);
      CHECK(std::fabs(got - expect) <= kEps);
    }
  }
}

}  // namespace

UPSTREAM_CASE("plugins/binpack/binpack_test.go", "TestNode", "single job") {
  World w;
  build(w);
  check_scores(w,
               args({{"binpack.weight", "10"}, {"binpack.cpu", "2"}, {"binpack.memory", "3"},
                     {"binpack.resources", "nvidia.com/gpu, example.com/foo"},
                     {"binpack.resources.nvidia.com/gpu", "7"}, {"binpack.resources.example.com/foo", "8"}}),
               {{"c1/p1", {{"n1", 700}, {"n2", 137.5}, {"n3", 0}}},
                {"c1/p2", {{"n1", 0}, {"n2", 375}, {"n3", 0}}},
                {"c1/p3", {{"n1", 0}, {"n2", 531.25}, {"n3", 0}}},
                {"c1/p4", {{"n1", 0}, {"n2", 173.076923076}, {"n3", 0}}}});
}

UPSTREAM_CASE("plugins/binpack/binpack_test.go", "TestNode", "single job [2]") {
  World w;
  build(w);
  check_scores(w,
               args({{"binpack.weight", "1"}, {"binpack.cpu", "1"}, {"binpack.memory", "1"},
                     {"binpack.resources", "nvidia.com/gpu"}, {"binpack.resources.nvidia.com/gpu", "23"}}),
               {{"c1/p1", {{"n1", 75}, {"n2", 15.625}, {"n3", 0}}},
                {"c1/p2", {{"n1", 0}, {"n2", 37.5}, {"n3", 0}}},
                {"c1/p3", {{"n1", 0}, {"n2", 50.5}, {"n3", 0}}},
                {"c1/p4", {{"n1", 0}, {"n2", 50}, {"n3", 0}}}});
}
