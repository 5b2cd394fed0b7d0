// Node groups of several instance types, On-Demand and Spot (models::node_launch), Spot
// prices (the catalog's, or the user's describe-spot-price-history file) and the Spot
// interruption fault model. Every expected value is derived by hand from the rules cited in
// models/training.hpp and models/src/training_nodes.cpp (EC2 Auto Scaling's On-Demand split,
// rounded up in favour of On-Demand; prioritized On-Demand; the Spot strategies' pools) and the
// figures of tests/scenarios/{tiny-gang,node-failure,spot-price-history}.json, never copied from
// a run. The prices in spot-price-history.json are test figures, not AWS's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;
using models::CapacityType;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::int64_t kMs = 1'000'000LL;

std::string scenario_path(const std::string& name) { return std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + name; }

struct PodEv {
  std::uint32_t job;
  std::string event, node;
  std::int64_t t;
};
struct NodeEv {
  std::int64_t t;
  std::string node, event;
};

class Recorder final : public models::TrainingRecorder {
 public:
  std::vector<models::JobFinal> finals;
  std::vector<PodEv> pods;
  std::vector<NodeEv> nodes;
  void job_submitted(const models::JobSubmitted&) override {}
  void job_final(const models::JobFinal& j) override { finals.push_back(j); }
  void pod_event(const models::PodEvent& e) override { pods.push_back({e.job, std::string(e.event), std::string(e.node), e.t.ns()}); }
  void decision(const models::Decision&) override {}
  void phase_change(const models::PhaseChange&) override {}
  void sample(const models::ClusterSample&) override {}
  void node_event(const models::NodeEvent& e) override { nodes.push_back({e.t.ns(), std::string(e.node), std::string(e.event)}); }
  void checkpoint(core::Time) override {}
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}
  std::vector<PodEv> pods_of(std::uint32_t job, const std::string& event) const {
    std::vector<PodEv> v;
    for (const auto& p : pods)
      if (p.job == job && p.event == event) v.push_back(p);
    return v;
  }
};

struct Run {
  io::LoadedScenario sc;
  core::Simulator sim;
  std::unique_ptr<core::RngStreams> rng;
  Recorder rec;
  std::unique_ptr<models::TrainingCluster> cluster;
  std::string invariant_violation;
  Run(const std::string& path, json overrides, bool run = true) : sc(load(path, std::move(overrides))) {
    rng = std::make_unique<core::RngStreams>(sc.seed);
    cluster = std::make_unique<models::TrainingCluster>(sc.training, sim, *rng, rec);
    if (!run) return;
    cluster->start();
    while (sim.step())
      if (invariant_violation.empty()) invariant_violation = cluster->state().check_invariants();
    cluster->finish(cluster->last_event());
  }
  static io::LoadedScenario load(const std::string& path, json overrides) {
    io::LoadOptions o;
    o.overrides = std::move(overrides);
    return io::load_scenario(path, o);
  }
  const policy::NodeInfo& node(const std::string& name) const { return cluster->state().node(cluster->state().find_node(name)); }
  std::string label(const std::string& node_name, const std::string& key) const {
    for (const auto& [k, v] : node(node_name).labels)
      if (k == key) return v;
    return "(none)";
  }
};

models::NodeGroupSpec group(std::vector<std::string> types) {
  models::NodeGroupSpec g;
  g.name.assign(1, 'g');  // (a one-character string literal assignment trips GCC 12's -Wrestrict)
  g.instance_types = std::move(types);
  return g;
}

int on_demand_of_first(const models::NodeGroupSpec& g, int n) {
  int od = 0;
  for (int k = 0; k < n; ++k) od += models::node_launch(g, k).capacity == CapacityType::OnDemand;
  return od;
}

// The cluster of tiny-gang.json (4 trn1.32xlarge in us-east-1a) plus a CPU group.
json with_cpu_group(json cpu) {
  json trn = {{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 4}, {"availability_zone", "us-east-1a"}};
  cpu["name"] = "cpu";
  cpu["availability_zone"] = "us-east-1a";
  return {{"cluster", {{"node_groups", json::array({trn, cpu})}, {"spot_price_history", "spot-price-history.json"}}}};
}

std::string load_error(const std::string& path, json overrides) {
  try {
    Run::load(path, std::move(overrides));
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

// ============================================================ which node is which

TEST_CASE("node_launch: EC2 Auto Scaling's On-Demand split, rounded up in favour of On-Demand") {
  models::NodeGroupSpec g = group({"a", "b"});
  // The EC2 Auto Scaling User Guide's table "Scaling behavior": base 10, 50 % above base: at 10,
  // 20, 30, 40 instances 10, 15, 20, 25 On-Demand.
  g.distribution.on_demand_base_capacity = 10;
  g.distribution.on_demand_percentage_above_base = 50;
  g.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::CapacityOptimized;
  CHECK(on_demand_of_first(g, 10) == 10);
  CHECK(on_demand_of_first(g, 20) == 15);
  CHECK(on_demand_of_first(g, 30) == 20);
  CHECK(on_demand_of_first(g, 40) == 25);
  // Its example 3 (base 0, 60 %): 6, 12, 18, 24 On-Demand of 10, 20, 30, 40.
  g.distribution = {};
  g.distribution.on_demand_percentage_above_base = 60;
  g.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::CapacityOptimized;
  CHECK(on_demand_of_first(g, 10) == 6);
  CHECK(on_demand_of_first(g, 40) == 24);
  // Rounding up: 50 % of 3 is 1.5 -> 2 On-Demand; of 1, 0.5 -> 1.
  g.distribution.on_demand_percentage_above_base = 50;
  CHECK(on_demand_of_first(g, 1) == 1);
  CHECK(on_demand_of_first(g, 3) == 2);
  // Slot by slot (base 0, 50 %): od(1) = 1, od(2) = 1, od(3) = 2, od(4) = 2: OD, Spot, OD, Spot;
  // On-Demand prioritized (type 0), Spot round-robin over both types (capacity-optimized).
  CHECK(models::node_launch(g, 0).capacity == CapacityType::OnDemand);
  CHECK(models::node_launch(g, 1).capacity == CapacityType::Spot);
  CHECK(models::node_launch(g, 1).type == 0);
  CHECK(models::node_launch(g, 2).capacity == CapacityType::OnDemand);
  CHECK(models::node_launch(g, 2).type == 0);
  CHECK(models::node_launch(g, 3).capacity == CapacityType::Spot);
  CHECK(models::node_launch(g, 3).type == 1);
}

TEST_CASE("node_launch: an EKS managed group is all On-Demand of its first type, or all Spot") {
  models::NodeGroupSpec g = group({"a", "b", "c"});
  for (int k = 0; k < 5; ++k) {
    CHECK(models::node_launch(g, k).capacity == CapacityType::OnDemand);
    CHECK(models::node_launch(g, k).type == 0);  // prioritized; no capacity shortage modelled
  }
  CHECK_FALSE(models::launches_spot(g));
  g.distribution.on_demand_percentage_above_base = 0;
  g.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::PriceCapacityOptimized;
  CHECK(models::launches_spot(g));
  const std::size_t want[] = {0, 1, 2, 0, 1};  // equal pools assumed: round-robin in list order
  for (int k = 0; k < 5; ++k) {
    CHECK(models::node_launch(g, k).capacity == CapacityType::Spot);
    CHECK(models::node_launch(g, k).type == want[k]);
  }
  // lowest-price over the 2 cheapest pools: b (1.0) and c (2.0), a (3.0) is left out.
  g.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::LowestPrice;
  g.distribution.spot_instance_pools = 2;
  g.spot_usd_per_hour = {3.0, 1.0, 2.0};
  CHECK(models::spot_pools(g) == std::vector<std::size_t>{1, 2});
  CHECK(models::node_launch(g, 0).type == 1);
  CHECK(models::node_launch(g, 1).type == 2);
  CHECK(models::node_launch(g, 2).type == 1);
  g.spot_usd_per_hour.clear();
  CHECK_THROWS_AS(models::node_launch(g, 0), std::invalid_argument);  // lowest-price needs every price
}

TEST_CASE("a self-managed mixed group: types, labels and prices of its nodes, and the run's cost") {
  // cpu: m5.xlarge, m6i.xlarge, c5.xlarge; base 1, 50 % above base, lowest-price over 2 pools.
  // od(N) = min(N, 1) + ceil((N - 1) / 2): od(1..6) = 1, 2, 2, 3, 3, 4, so slots 0..5 are
  // OD, OD, Spot, OD, Spot, OD. Spot prices in us-east-1a (fixture): m5.xlarge 0.07,
  // m6i.xlarge 0.05, c5.xlarge 0.06: the 2 cheapest pools are m6i.xlarge then c5.xlarge.
  // So cpu-0, -1, -3, -5 are m5.xlarge On-Demand ($0.192/h), cpu-2 m6i.xlarge Spot ($0.05/h),
  // cpu-4 c5.xlarge Spot ($0.06/h).
  const json cpu = {{"instance_types", {"m5.xlarge", "m6i.xlarge", "c5.xlarge"}},
                    {"desired_capacity", 6},
                    {"instances_distribution",
                     {{"on_demand_base_capacity", 1}, {"on_demand_percentage_above_base_capacity", 50}, {"spot_instance_pools", 2}}}};
  Run r(scenario_path("tiny-gang.json"), with_cpu_group(cpu), false);
  const char* types[] = {"m5.xlarge", "m5.xlarge", "m6i.xlarge", "m5.xlarge", "c5.xlarge", "m5.xlarge"};
  for (int i = 0; i < 6; ++i) {
    const std::string name = "cpu-" + std::to_string(i);
    CHECK(r.node(name).instance_type == types[i]);
    CHECK(r.label(name, "node.kubernetes.io/instance-type") == types[i]);
    // A self-managed group: EKS puts no capacity type label on its nodes.
    CHECK(r.label(name, "eks.amazonaws.com/capacityType") == "(none)");
  }
  CHECK(r.node("cpu-4").allocatable.milli_cpu == 4000);  // c5.xlarge: 4 vCPU, 8 GiB
  CHECK(r.node("cpu-4").allocatable.memory == doctest::Approx(8.0 * 1024 * 1024 * 1024));
  CHECK(r.label("trn1-0", "eks.amazonaws.com/capacityType") == "ON_DEMAND");  // a managed On-Demand group
  const auto& g = r.sc.training.node_groups[1];
  REQUIRE(g.spot_usd_per_hour.size() == 3);
  CHECK(g.spot_usd_per_hour[1] == 0.05);
  // The cost of one hour with no job: 4 x 21.50 + 4 x 0.192 + 0.05 + 0.06 = 86.878 USD.
  r.cluster->start();
  while (r.sim.step()) {
  }
  r.cluster->finish(r.cluster->last_event());
  const io::RunSummary s = io::summarize("t", 7, r.sc.training, *r.cluster, 3600.0);
  CHECK(s.cost_usd == doctest::Approx(86.878).epsilon(1e-12));
  CHECK(s.spot);
  // The history file is an input of the run.
  CHECK(std::any_of(r.sc.inputs.begin(), r.sc.inputs.end(), [](const io::InputFileRef& in) {
    return in.role == "spot_price_history" && in.as_written == "spot-price-history.json";
  }));
}

TEST_CASE("a managed Spot group: price-capacity-optimized round-robin, capacityType SPOT, the zone's newest price") {
  // trn1.32xlarge in us-east-1a: newest Linux/UNIX price 8.6 (2026-07-01 10:00; the older 9.0
  // and the Windows 1.0 do not count). Without a zone: the mean of each zone's newest, 1a 8.6
  // and 1b 7.0: 7.8.
  json o = {{"cluster",
             {{"spot_price_history", "spot-price-history.json"},
              {"node_groups", json::array({{{"name", "trn1"},
                                            {"instance_type", "trn1.32xlarge"},
                                            {"capacity_type", "SPOT"},
                                            {"desired_capacity", 4},
                                            {"availability_zone", "us-east-1a"}}})}}}};
  Run r(scenario_path("tiny-gang.json"), o, false);
  CHECK(r.label("trn1-3", "eks.amazonaws.com/capacityType") == "SPOT");
  CHECK(r.sc.training.node_groups[0].spot_usd_per_hour == std::vector<double>{8.6});
  CHECK(r.sc.training.node_groups[0].capacity_rebalance);
  o["cluster"]["node_groups"][0].erase("availability_zone");
  Run r2(scenario_path("tiny-gang.json"), o, false);
  CHECK(r2.sc.training.node_groups[0].spot_usd_per_hour[0] == doctest::Approx(7.8).epsilon(1e-15));
}

TEST_CASE("Spot groups: load errors name the file, the JSON path, the type and the ways to give a price") {
  const std::string p = scenario_path("tiny-gang.json");
  json o = with_cpu_group({{"instance_types", {"m5.xlarge", "m5.large"}}, {"desired_capacity", 2}, {"capacity_type", "SPOT"}});
  // m5.large has no price in the fixture, nor in the shipped catalog.
  std::string msg = load_error(p, o);
  CHECK_MESSAGE(msg.find("tiny-gang.json: /cluster/node_groups/1/instance_types/1: node group 'cpu' launches Spot nodes of 'm5.large'") !=
                    std::string::npos,
                msg);
  CHECK_MESSAGE(msg.find("\"spot\"") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("/cluster/spot_price_history") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("a scenario row replaces the shipped row whole: copy it from ") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("aws-instance-types.json") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("no Linux/UNIX price for it in us-east-1a") != std::string::npos, msg);
  // Both instance_type and instance_types.
  o = with_cpu_group({{"instance_type", "m5.xlarge"}, {"instance_types", {"m5.xlarge"}}, {"desired_capacity", 1}});
  CHECK(load_error(p, o).find("/cluster/node_groups/1: give the group's instance_type, or its instance_types") != std::string::npos);
  // spot_instance_pools with a capacity strategy (eksctl's validation refuses it too).
  o = with_cpu_group({{"instance_types", {"m5.xlarge"}}, {"desired_capacity", 1}, {"instances_distribution", {{"spot_allocation_strategy", "capacity-optimized"}, {"spot_instance_pools", 2}, {"on_demand_percentage_above_base_capacity", 0}}}});
  CHECK(load_error(p, o).find("/cluster/node_groups/1/instances_distribution/spot_instance_pools") != std::string::npos);
  // capacity_type with instances_distribution.
  o = with_cpu_group({{"instance_types", {"m5.xlarge"}}, {"desired_capacity", 1}, {"capacity_type", "SPOT"}, {"instances_distribution", json::object()}});
  CHECK(load_error(p, o).find("/cluster/node_groups/1/instances_distribution: capacity_type is an EKS managed node group's") != std::string::npos);
  // A maximum price below the Spot price: m6i.xlarge 0.05 > 0.04.
  o = with_cpu_group({{"instance_types", {"m6i.xlarge"}}, {"desired_capacity", 1}, {"instances_distribution", {{"on_demand_percentage_above_base_capacity", 0}, {"spot_max_price", 0.04}}}});
  CHECK(load_error(p, o).find("/cluster/node_groups/1/instances_distribution/spot_max_price: the Spot price of 'm6i.xlarge' (0.05 USD/h) is above") !=
        std::string::npos);
  // A malformed history entry names the history file and the entry's path.
  o = with_cpu_group({{"instance_types", {"m6i.xlarge"}}, {"desired_capacity", 1}});
  o["cluster"]["spot_price_history"] = "node-failure.json";
  CHECK(load_error(p, o).find("node-failure.json: expected the output of `aws ec2 describe-spot-price-history --output json`") != std::string::npos);
}

// ============================================================ Spot interruptions

namespace {
// node-failure.json with its node a Spot node (price from the fixture, us-east-1a: 8.6) and a
// Spot interruption notice at 3000 s instead of the failure.
json spot_node_failure(json faults) {
  json f = {{"scheduled", json::array()}, {"replacement_time", "300s"}, {"source", "test"}};
  f.merge_patch(faults);
  return {{"cluster",
           {{"spot_price_history", "spot-price-history.json"},
            {"node_groups", json::array({{{"name", "trn1"},
                                          {"instance_type", "trn1.32xlarge"},
                                          {"capacity_type", "SPOT"},
                                          {"desired_capacity", 1},
                                          {"availability_zone", "us-east-1a"}}})}}},
          {"faults", f}};
}
}  // namespace

TEST_CASE("spot interruption: notice, drain within the notice, termination at +120 s, replacement from the notice") {
  // node-failure.json: job a trains from 2518.05 s (checkpoint every 300 s of training).
  // Notice at 3000 s: trn1-0 is cordoned and drained: a's pod is evicted ("Drained") with its
  // grace period, 30 s (the default, below the 120 s notice): gone at 3030 s. PodEvicted ->
  // RestartJob: training since the checkpoint at 300 s is lost: 3000 - 2518.05 - 300 = 181.95 s.
  // The group is a managed Spot group (Capacity Rebalancing): its replacement trn1-1 launches at
  // the notice, Ready 300 s later at 3300 s. trn1-0 is terminated at 3000 + 120 = 3120 s.
  // The restarted PodGroup: once the pod is gone (3030 s) overcommit sees the cordoned trn1-0's
  // allocatable (it stays in the snapshot) free, so enqueue admits it at the 3030 s cycle and its
  // pod is created; predicates refuse the cordoned trn1-0, so it binds at the cycle that
  // trn1-1's Ready wakes, 3300 s: Bound 3300.05 s. Then 2 s start-up + 100 s image pull (a new
  // node) = Running 3402.05; rendezvous 5 s, compile-cache hit 30 s, dataset 10 s: training at
  // 3447.05 s; 3600 - 300 = 3300 s left: end 6747.05 s.
  Run r(scenario_path("node-failure.json"), spot_node_failure({{"spot_interruptions", {{{"node", "trn1-0"}, {"at", "3000s"}}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto drained = r.rec.pods_of(0, "Drained");
  REQUIRE(drained.size() == 1);
  CHECK(drained[0].t == 3000 * kS);
  CHECK(drained[0].node == "trn1-0");
  const auto deleted = r.rec.pods_of(0, "Deleted");
  REQUIRE_FALSE(deleted.empty());
  CHECK(deleted[0].t == 3030 * kS);
  CHECK(r.rec.pods_of(0, "Failed").empty());  // nothing was left on the node to lose
  REQUIRE(r.rec.nodes.size() == 4);
  CHECK(r.rec.nodes[0].event == "SpotInterruptionNotice");
  CHECK(r.rec.nodes[0].t == 3000 * kS);
  CHECK(r.rec.nodes[1].event == "Launching");
  CHECK(r.rec.nodes[1].node == "trn1-1");
  CHECK(r.rec.nodes[1].t == 3000 * kS);
  CHECK(r.rec.nodes[2].event == "SpotInterrupted");
  CHECK(r.rec.nodes[2].node == "trn1-0");
  CHECK(r.rec.nodes[2].t == 3120 * kS);
  CHECK(r.rec.nodes[3].event == "Ready");
  CHECK(r.rec.nodes[3].t == 3300 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3300050 * kMs);
  CHECK(r.rec.pods_of(0, "Bound").at(1).node == "trn1-1");
  const auto& st = r.cluster->stats();
  CHECK(st.spot_interruptions == 1);
  CHECK(st.node_failures == 0);
  CHECK(st.nodes_launched == 1);
  CHECK(st.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  REQUIRE(r.rec.finals.size() == 1);
  CHECK(r.rec.finals[0].phase == "Completed");
  CHECK(r.rec.finals[0].restarts == 1);
  CHECK(r.rec.finals[0].end.ns() == 6747050 * kMs);
  // Node-seconds, Spot: trn1-0 0..3120 s, trn1-1 3000 s to the run's end, the cycle after
  // 6747.05 s: 6748 s. 3120 + 3748 = 6868 s at 8.6 USD/h: 16.406888... USD.
  REQUIRE(st.node_pool_seconds.size() == 1);
  CHECK(st.node_pool_seconds[0][1] == doctest::Approx(6868.0).epsilon(1e-12));
  CHECK(st.node_pool_seconds[0][0] == 0.0);
  const io::RunSummary s = io::summarize("t", 7, r.sc.training, *r.cluster, r.cluster->last_event().seconds());
  CHECK(s.cost_usd == doctest::Approx(6868.0 * 8.6 / 3600.0).epsilon(1e-12));
  CHECK(s.spot_interruptions == 1);
  // The drained pod is counted apart from the scheduler's evictions (none here).
  CHECK(st.drained == 1);
  CHECK(st.evictions == 0);
  CHECK(s.drained == 1);
  std::ostringstream text;
  io::print_summary(text, s);
  CHECK(text.str().find("Evictions: 0 pods by the scheduler (preempt, reclaim), 1 drained at Spot interruption notices;") != std::string::npos);
}

TEST_CASE("spot interruption without Capacity Rebalancing: the replacement launches at the termination") {
  // A self-managed group, all Spot (0 % On-Demand), capacityRebalance false (eksctl's default):
  // notice 3000 s, termination 3120 s, replacement launched then, Ready 3420 s. A 60 s notice
  // (spot_notice) moves the termination to 3060 s and cuts a 90 s grace period to 60 s.
  json o = spot_node_failure({{"spot_interruptions", {{{"node", "trn1-0"}, {"at", "3000s"}}}}});
  o["cluster"]["node_groups"][0].erase("capacity_type");
  o["cluster"]["node_groups"][0]["instances_distribution"] = {{"on_demand_percentage_above_base_capacity", 0}};
  {
    Run r(scenario_path("node-failure.json"), o);
    REQUIRE(r.invariant_violation.empty());
    REQUIRE(r.rec.nodes.size() == 4);
    CHECK(r.rec.nodes[1].event == "SpotInterrupted");
    CHECK(r.rec.nodes[1].t == 3120 * kS);
    CHECK(r.rec.nodes[2].event == "Launching");
    CHECK(r.rec.nodes[2].t == 3120 * kS);
    CHECK(r.rec.nodes[3].t == 3420 * kS);
  }
  o["faults"]["spot_notice"] = "60s";
  o["lifecycle"] = {{"termination_grace_period", {{"constant", "90s"}, {"source", "test"}}},
                    {"bind_latency", {{"constant", "50ms"}, {"source", "test"}}},
                    {"pod_startup", {{"constant", "2s"}, {"source", "test"}}}};
  Run r(scenario_path("node-failure.json"), o);
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.nodes[1].t == 3060 * kS);
  CHECK(r.rec.pods_of(0, "Deleted").at(0).t == 3060 * kS);
}

TEST_CASE("spot interruptions at a rate: only Spot nodes, deterministic per seed; errors") {
  auto opts = spot_node_failure({{"spot_interruption_rate_per_node_hour", 1.0}});
  opts["workload"] = {{"torchx", {{"max_retries", 100}}}};
  Run r1(scenario_path("node-failure.json"), opts);
  Run r2(scenario_path("node-failure.json"), opts);
  REQUIRE(r1.invariant_violation.empty());
  CHECK(r1.rec.finals.at(0).phase == "Completed");
  // Every restart is an interruption (a drained pod restarts the job once).
  CHECK(static_cast<std::uint64_t>(r1.rec.finals.at(0).restarts) == r1.cluster->stats().spot_interruptions);
  CHECK(r1.rec.finals.at(0).end == r2.rec.finals.at(0).end);
  CHECK(r1.cluster->stats().spot_interruptions == r2.cluster->stats().spot_interruptions);
  // The same rate on an On-Demand cluster is an error, as is a notice for an On-Demand node.
  const std::string p = scenario_path("node-failure.json");
  CHECK(load_error(p, {{"faults", {{"spot_interruption_rate_per_node_hour", 1.0}}}}).find("/faults/spot_interruption_rate_per_node_hour: no node group launches Spot nodes") !=
        std::string::npos);
  json o = spot_node_failure({{"spot_interruptions", {{{"node", "trn1-0"}, {"at", "1s"}}}}});
  o["cluster"]["node_groups"][0].erase("capacity_type");
  CHECK(load_error(p, o).find("/faults/spot_interruptions") != std::string::npos);
}

// ============================================================ Neuron names mixed on a node
// (Not Spot: this file's Run and Recorder serve it too.) The Neuron device plugin advertises
// aws.amazon.com/neuron and aws.amazon.com/neurondevice, 16 each on a trn1.32xlarge, and
// Kubernetes counts them independently: on one node, a pod asking for 8 of one and a pod asking
// for 8 of the other both fit — 16 devices promised, with 16 on the node, yet each name still
// has 8 free. mltwin schedules as upstream and flags the node once.

namespace {
json two_pods_on_one_node(const std::string& second_name) {
  auto job = [](const std::string& name, const std::string& resource) {
    return json{{"name", name}, {"queue", "default"}, {"submit", "0s"}, {"nnodes", 1}, {"duration", "1h"},
                {"pod", {{"cpu", "8"}, {"memory", "32Gi"}, {resource, 8}}}};
  };
  return {{"cluster", {{"node_groups", json::array({{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"},
                                                      {"desired_capacity", 1}, {"availability_zone", "us-east-1a"}}})}}},
          {"workload", {{"jobs", json::array({job("x", "aws.amazon.com/neuron"), job("y", second_name)})}}}};
}
}  // namespace

TEST_CASE("pods requesting different Neuron names on one node: both placed, the node flagged once") {
  Run r(scenario_path("tiny-gang.json"), two_pods_on_one_node("aws.amazon.com/neurondevice"));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.pods_of(0, "Bound").size() == 1);
  CHECK(r.rec.pods_of(1, "Bound").size() == 1);
  const auto& st = r.cluster->stats();
  CHECK(st.neuron_name_mixes == 1);
  CHECK(st.neuron_name_mix_example == "trn1-0: aws.amazon.com/neuron and aws.amazon.com/neurondevice");
  int flagged = 0;
  for (const auto& e : r.rec.nodes) flagged += e.event == "NeuronNamesMixed" && e.node == "trn1-0";
  CHECK(flagged == 1);
  const io::RunSummary s = io::summarize("t", 7, r.sc.training, *r.cluster, r.cluster->last_event().seconds());
  CHECK(s.neuron_name_mixes == 1);
}

TEST_CASE("pods requesting the same Neuron name on one node: nothing flagged") {
  Run r(scenario_path("tiny-gang.json"), two_pods_on_one_node("aws.amazon.com/neuron"));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.pods_of(1, "Bound").size() == 1);
  CHECK(r.cluster->stats().neuron_name_mixes == 0);
  for (const auto& e : r.rec.nodes) CHECK(e.event != "NeuronNamesMixed");
}

// ============================================================ capacity beyond the catalog row
// ephemeral-storage (the root volume) and hugepages-* are not in an instance type's row: a node
// group gives them. A pod asking for 10Gi of ephemeral-storage fits a node of 100Gi, and fits no
// node of a group that gives none (it can never be placed, naming the resource).

namespace {
json ephemeral_job(const json& capacity) {
  json g = {{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 2}, {"availability_zone", "us-east-1a"}};
  if (!capacity.is_null()) g["capacity"] = capacity;
  return {{"cluster", {{"node_groups", json::array({g})}}},
          {"workload", {{"jobs", json::array({{{"name", "x"}, {"queue", "default"}, {"submit", "0s"}, {"nnodes", 2}, {"duration", "1h"},
                                               {"pod", {{"cpu", "8"}, {"memory", "32Gi"}, {"ephemeral-storage", "10Gi"}}}}})}}}};
}
}  // namespace

TEST_CASE("ephemeral-storage: a node group's capacity gives it; without it the pod fits no node") {
  Run with(scenario_path("tiny-gang.json"), ephemeral_job({{"ephemeral-storage", "100Gi"}}));
  REQUIRE(with.invariant_violation.empty());
  CHECK(with.rec.pods_of(0, "Bound").size() == 2);
  CHECK(with.node("trn1-0").allocatable.get(policy::rn::kEphemeralStorage) == 100.0 * (1ull << 30) * 1000);
  Run without(scenario_path("tiny-gang.json"), ephemeral_job(nullptr));
  REQUIRE(without.rec.finals.size() == 1);
  // Admitted all the same (Volcano's webhook checks only the queue), it waits for ever.
  CHECK(without.rec.finals[0].phase == "Pending");
  CHECK(without.rec.finals[0].reason.rfind("can never be placed: ", 0) == 0);
  CHECK(without.rec.finals[0].reason.find("ephemeral-storage 10Gi") != std::string::npos);
  CHECK(without.rec.finals[0].reason.find("too little ephemeral-storage on 2 node(s)") != std::string::npos);
  // cpu, memory and extended resources come from the catalog row only.
  CHECK(load_error(scenario_path("tiny-gang.json"), ephemeral_job({{"nvidia.com/gpu", 1}})).find(
            "/cluster/node_groups/0/capacity: 'nvidia.com/gpu': a node group's capacity adds only ephemeral-storage and hugepages-*") !=
        std::string::npos);
  CHECK(load_error(scenario_path("tiny-gang.json"), ephemeral_job({{"cpu", "1"}})).find(
            "/cluster/node_groups/0/capacity: cpu and memory come from the instance type's catalog row") != std::string::npos);
}
