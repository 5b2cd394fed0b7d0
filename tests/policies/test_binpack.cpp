// binpack (Volcano v1.12.1 pkg/scheduler/plugins/binpack/binpack.go): scores computed by hand
// from BinPackingScore, and the placement it changes.
#include <doctest/doctest.h>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
SchedulerConfig binpack_only(const Arguments& args = {}) { return one_tier({"binpack"}, args); }
using Open = OpenSession;
}  // namespace

TEST_CASE("binpack: scores by hand, Neuron devices only when configured") {
  World w;
  w.queue(QueueBuilder("q"));
  // trn1.32xlarge: 128 CPU, 512 GiB, 16 devices = 32 NeuronCores, 8 EFA.
  const NodeId half = w.node(NodeBuilder("half").trn1_32xlarge());
  w.job(JobBuilder("occupant", "q").pods(1, Pod().cpu(64).memory_gib(0).neuron_devices(8)).running_on({"half"}));
  TaskInfo t;
  t.resreq = Pod().cpu(32).memory_gib(0).neuron_devices(4).resource();

  SUBCASE("defaults: cpu and memory weight 1; memory not requested, devices not configured") {
    Open s(w, binpack_only());
    // cpu: (32 + 64) / 128 = 0.75, weight 1; weight sum 1 -> 0.75 x 100 x 1 = 75.
    CHECK(s->node_score(t, w.state.node(half)) == doctest::Approx(75.0));
  }
  SUBCASE("NeuronCores configured with weight 2, binpack.weight 10") {
    Arguments a;
    a.set("binpack.weight", "10");
    a.set("binpack.resources", "aws.amazon.com/neuroncore");
    a.set("binpack.resources.aws.amazon.com/neuroncore", "2");
    Open s(w, binpack_only(a));
    // cpu 0.75 x 1; NeuronCores (8 + 16) / 32 = 0.75 x 2 = 1.5; (0.75 + 1.5) / 3 x 100 x 10 = 750.
    CHECK(s->node_score(t, w.state.node(half)) == doctest::Approx(750.0));
  }
  SUBCASE("a resource that does not fit zeroes the score") {
    TaskInfo big;
    big.resreq = Pod().cpu(65).memory_gib(0).resource();  // 65 + 64 > 128
    Open s(w, binpack_only());
    CHECK(s->node_score(big, w.state.node(half)) == 0.0);
  }
  SUBCASE("binpack.weight 0 registers no node order") {
    Arguments a;
    a.set("binpack.weight", "0");
    Open s(w, binpack_only(a));
    CHECK_FALSE(s->has_node_order());
  }
}

TEST_CASE("binpack: the pod goes to the fuller node (leastrequested would pick the empty one)") {
  auto place = [](const std::string& order_plugin) {
    World w;
    w.queue(QueueBuilder("q"));
    w.node(NodeBuilder("empty").trn1_32xlarge());
    w.node(NodeBuilder("busy").trn1_32xlarge());
    w.job(JobBuilder("occupant", "q").pods(1, Pod().cpu(64).memory_gib(256).neuron_devices(8)).running_on({"busy"}));
    w.job(JobBuilder("new", "q").pods(1, Pod().cpu(16).memory_gib(64).neuron_devices(4)).inqueue());
    SchedulerConfig c = volcano_default_config();
    for (auto& tier : c.tiers)
      for (auto& p : tier.plugins)
        if (p.name == "nodeorder" && order_plugin == "binpack") p.name = "binpack";
    RecordingBackend be;
    Scheduler s(c, 1);
    s.run_once(w.state, be);
    const JobId j = w["new"].id;
    for (const auto& b : be.binds)
      if (b.job == j) return w.state.node(b.node).name;
    return std::string("unbound");
  };
  CHECK(place("nodeorder") == "empty");
  CHECK(place("binpack") == "busy");
}
