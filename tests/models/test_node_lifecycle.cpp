// The nodes of a training cluster over their lifetime (models/node_lifecycle.hpp), alone: a
// ClusterState, a recorder and a NodeHost that log what they are told, and the node-failure
// scenario (tests/scenarios/node-failure.json: one trn1.32xlarge, trn1-0, fails at 3000 s; the
// replacement takes faults.replacement_time, 300 s). Times are the scenario's, by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/node_lifecycle.hpp"

using namespace mltwin;
using core::Time;

namespace {

std::string scenario_path(const std::string& name) { return std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + name; }

struct Log final : models::TrainingRecorder, models::NodeHost {
  core::Simulator& sim;
  std::vector<std::string> lines;
  explicit Log(core::Simulator& s) : sim(s) {}
  std::string at() const { return std::to_string(sim.now().ns() / 1'000'000'000) + "s "; }
  // models::TrainingRecorder: the node rows only.
  void job_submitted(const models::JobSubmitted&) override {}
  void job_final(const models::JobFinal&) override {}
  void pod_event(const models::PodEvent&) override {}
  void decision(const models::Decision&) override {}
  void phase_change(const models::PhaseChange&) override {}
  void sample(const models::ClusterSample&) override {}
  void step_period(const models::StepPeriod&) override {}
  void checkpoint(Time) override {}
  void node_event(const models::NodeEvent& e) override { lines.push_back(at() + "event " + std::string(e.node) + " " + std::string(e.event)); }
  void node_launched(const models::NodeLaunched& n) override {
    lines.push_back(at() + "launched " + std::string(n.node) + " " + std::string(n.instance_type) + " " + std::string(n.capacity_type));
  }
  void node_ended(const models::NodeEnded& n) override { lines.push_back(at() + "ended " + std::string(n.node)); }
  // models::NodeHost
  void pods_lost_with_node(policy::NodeId n) override { lines.push_back(at() + "pods lost on node " + std::to_string(n)); }
  void drain_pod(policy::TaskId t, core::Duration) override { lines.push_back(at() + "drain " + std::to_string(t)); }
  void node_left(policy::NodeId n) override { lines.push_back(at() + "left " + std::to_string(n)); }
  void node_unreachable(policy::NodeId n) override { lines.push_back(at() + "unreachable " + std::to_string(n)); }
  void taint_evict_pods(policy::NodeId n, core::Duration) override { lines.push_back(at() + "taint-evict on node " + std::to_string(n)); }
  void pods_garbage_collected(policy::NodeId n) override { lines.push_back(at() + "PodGC on node " + std::to_string(n)); }
  void wake_scheduler() override { lines.push_back(at() + "wake"); }
  double neuroncores_of(const policy::Resource&) const override { return 0; }
  void before_event() override {}
};

}  // namespace

TEST_CASE("node lifecycle alone: a scheduled failure's Kubernetes timeline, a replacement Ready 300 s later") {
  const io::LoadedScenario sc = io::load_scenario(scenario_path("node-failure.json"));
  core::Simulator sim;
  core::RngStreams rng(1);
  policy::ClusterState state;
  models::TrainingStats stats;
  Log log(sim);
  models::NodeLifecycle nodes(sc.training, sim, rng, state, log, stats, log);
  REQUIRE(nodes.dynamic());
  REQUIRE(state.nodes().size() == 1);
  CHECK(state.node(0).name == "trn1-0");
  CHECK(log.lines.empty());  // rows only once the run starts
  nodes.start();
  // trn1-0 fails at 3000 s (Kubernetes 1.32 defaults, docs/startup-and-faults.md): its kubelet
  // goes silent (unreachable); the instance is terminated at once (instance_terminated_after 0):
  // billing ends, the Auto Scaling group launches trn1-1 in its slot, Ready at 3000 + 300 s.
  // NotReady after the 50 s grace period (3050 s); its instance gone, the Node object is deleted
  // then too. PodGC: the first pass on the 20 s grid after 3050 s is 3060 s, its pods go at the
  // pass 40 s later, 3100 s. The taint manager's 300 s never run out.
  sim.run();
  const std::vector<std::string> want = {
      "0s launched trn1-0 trn1.32xlarge ON_DEMAND",
      "3000s event trn1-0 Failed",
      "3000s unreachable 0",
      "3000s ended trn1-0",
      "3000s event trn1-0 Terminated",
      "3000s left 0",
      "3000s launched trn1-1 trn1.32xlarge ON_DEMAND",
      "3000s event trn1-1 Launching",
      "3050s event trn1-0 NotReady",
      "3050s wake",
      "3050s event trn1-0 Deleted",
      "3100s PodGC on node 0",
      "3100s wake",
      "3300s event trn1-1 Ready",
      "3300s wake",
  };
  CHECK(log.lines == want);
  CHECK(stats.node_failures == 1);
  CHECK(stats.nodes_launched == 1);
  REQUIRE(state.nodes().size() == 2);
  CHECK(state.node(1).ready);
  CHECK_FALSE(state.node(0).ready);
  CHECK(nodes.rec(1).fabric_slot == nodes.rec(0).fabric_slot);  // in the failed instance's place on the network
  // Node-seconds: trn1-0 from 0 to 3000 s, trn1-1 from 3000 s (launch requested) to the end.
  nodes.close_books(Time::zero() + core::Duration::s(4000));
  REQUIRE(stats.node_group_seconds.size() == 1);
  CHECK(stats.node_group_seconds[0] == doctest::Approx(3000.0 + 1000.0));
}
