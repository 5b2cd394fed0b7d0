// Collectives on the fabric (models/collective.hpp): the intra-node ring on the NeuronLink
// torus, one optimizer step's all-reduce run as flows against the closed form of
// step_model.hpp and a hand calculation (2 and 4 nodes), standing flows, and the EFA sharing
// of two jobs behind an oversubscribed leaf (worked out by hand).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/models/collective.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/models/step_model.hpp"
#include "fabric_fixture.hpp"

using namespace mltwin;
using core::Duration;
using core::Simulator;
using models::Fabric;
using core::FlowId;
using core::FlowNetwork;

namespace {

// The test fabric (fabric_fixture.hpp): EFA 100 Gb/s per interface (800 Gb/s per node), 10 us;
// NeuronLink 4 x 4 torus, 800 Gb/s per link, 1 us; n trn1.32xlarge in one zone.
models::Catalog catalog() { return test::test_catalog(); }
models::FabricParams params() { return test::test_params(); }
std::vector<models::FabricNode> nodes(int n) { return test::nodes(n, "az1"); }

// BERT-large's gradients in BF16: 340e6 x 2 = 680e6 bytes (the figures of step_model.hpp's
// profile; compute figures do not matter here).
models::ModelProfile bert() {
  models::ModelProfile p;
  p.name = "bert-large";
  p.parameters = 340e6;
  p.gradient_bytes_per_parameter = 2;
  p.micro_batch = 16;
  p.microsteps_per_step = 1;
  return p;
}

}  // namespace

TEST_CASE("ring order: the 32 NeuronCores of a 4 x 4 torus, each hop on its chip or over one NeuronLink no other hop uses") {
  Simulator sim;
  core::FlowNetwork net(sim);
  Fabric f(catalog(), nodes(1), params(), net);
  const std::vector<std::uint32_t> order = models::ring_order(f, 0, 32);
  REQUIRE(order.size() == 32);
  CHECK(std::set<std::uint32_t>(order.begin(), order.end()).size() == 32);
  // Boustrophedon: chips 0 1 2 3, 7 6 5 4, 8 9 10 11, 15 14 13 12 (cores 2c, 2c+1 each).
  const std::uint32_t chips[16] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};
  for (std::size_t r = 0; r < 32; ++r) CHECK(order[r] == chips[r / 2] * 2 + r % 2);
  std::set<core::LinkId> used;
  int crossing = 0;
  for (std::size_t r = 0; r < 32; ++r) {
    const std::uint32_t a = order[r] / 2, b = order[(r + 1) % 32] / 2;
    if (a == b) continue;
    ++crossing;
    const core::LinkId l = f.neuronlink(0, a, b);  // throws if a and b are not neighbours
    CHECK(used.insert(l).second);
  }
  CHECK(crossing == 16);
  CHECK(models::ring_order(f, 0, 4) == std::vector<std::uint32_t>{0, 1, 2, 3});
  CHECK_THROWS_AS(models::ring_order(f, 0, 33), std::invalid_argument);
  CHECK_THROWS_AS(models::ring_order(f, 0, 0), std::invalid_argument);
}

TEST_CASE("the same job on 2 and 4 nodes: the all-reduce run as fabric flows equals the closed form and the hand value") {
  // By hand, S = 680e6 bytes, P = 32, 800 Gb/s = 100 bytes/ns on a NeuronLink and per NIC:
  //   reduce-scatter and all-gather: 31 steps of 1 us + (S/32 = 21.25e6 B) / 100 B/ns
  //     = 1,000 + 212,500 = 213,500 ns each step, 6,618,500 ns a phase;
  //   inter-node ring: 2(N-1) steps of 10 us + S / (N x 100 B/ns):
  //     N = 2: 2 x (10,000 + 3,400,000) = 6,820,000 ns; N = 4: 6 x (10,000 + 1,700,000) = 10,260,000 ns.
  const std::int64_t intra = 6'618'500;
  const std::int64_t inter[2] = {6'820'000, 10'260'000};
  const int node_counts[2] = {2, 4};
  for (int k = 0; k < 2; ++k) {
    const int n = node_counts[k];
    CAPTURE(n);
    Simulator sim;
    core::FlowNetwork net(sim);
    Fabric f(catalog(), nodes(n), params(), net);
    const models::Placement pl{n, 32};
    const models::LinkGrant g{800.0, 800.0, Duration::us(1), Duration::us(10)};
    const models::StepTime closed = models::step_time(bert(), pl, g);
    CHECK(closed.reduce_scatter.count_ns() == intra);
    CHECK(closed.all_gather.count_ns() == intra);
    CHECK(closed.inter_ring.count_ns() == inter[k]);
    std::vector<std::uint32_t> ids;
    for (int i = 0; i < n; ++i) ids.push_back(static_cast<std::uint32_t>(i));
    models::CollectiveRun run(f, ids, 32, models::allreduce_transfers(bert(), pl, g));
    run.start(sim);
    sim.run();
    REQUIRE(run.done());
    REQUIRE(run.phase_times().size() == 3);
    // Integer-ns rounding: the flows end at ceil(bytes / rate), the closed form rounds each
    // step to the nearest ns; at most 1 ns per step apart.
    const std::int64_t steps[3] = {31, 2 * (n - 1), 31};
    const std::int64_t want[3] = {intra, inter[k], intra};
    for (int p = 0; p < 3; ++p) {
      CAPTURE(run.phase_times()[static_cast<std::size_t>(p)].name);
      CHECK(std::llabs(run.phase_times()[static_cast<std::size_t>(p)].time.count_ns() - want[p]) <= steps[p]);
    }
    CHECK(std::llabs(run.elapsed().count_ns() - closed.communication().count_ns()) <= 62 + 2 * (n - 1));
    CHECK(net.flow_count() == 0);
  }
}

namespace {
struct RateLog : core::FlowOwner {
  std::vector<std::pair<std::int64_t, double>> changes;  // (ns, Gb/s)
  std::vector<std::int64_t> done;
  Simulator* sim = nullptr;
  void on_flow_done(Simulator& s, core::FlowNetwork&, core::FlowId, std::uint64_t) override { done.push_back(s.now().ns()); }
  void on_rate_change(core::FlowNetwork& net, core::FlowId f, std::uint64_t) override {
    changes.emplace_back(sim->now().ns(), net.rate_gbps(f));
  }
};
}  // namespace

TEST_CASE("a standing flow takes its share until cancelled, never completes, and reports each new rate") {
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(100.0);  // 12.5 bytes/ns
  RateLog log;
  log.sim = &sim;
  const core::FlowId standing = net.start_standing({l}, &log, 7);
  CHECK(net.rate_gbps(standing) == 100.0);
  // A finite flow of 1e6 bytes at 1 us: both get 50 Gb/s = 6.25 B/ns, so it ends at
  // 1,000 + 1e6 / 6.25 = 161,000 ns; then the standing flow has the link again.
  net.start({l}, 1e6, &log, 0, Duration::us(1));
  sim.run();
  REQUIRE(log.done.size() == 1);
  CHECK(log.done[0] == 161'000);
  REQUIRE(log.changes.size() == 3);
  CHECK(log.changes[0] == std::make_pair(std::int64_t{0}, 100.0));
  CHECK(log.changes[1] == std::make_pair(std::int64_t{1'000}, 50.0));
  CHECK(log.changes[2] == std::make_pair(std::int64_t{161'000}, 100.0));
  CHECK(net.alive(standing));
  CHECK(net.completion_time(standing) == core::Time::max());
  CHECK(net.cancel(standing));
  CHECK(net.flow_count() == 0);
  CHECK_THROWS_AS(net.start_standing({}, &log), std::invalid_argument);
}

namespace {
struct Changed final : models::GrantListener {
  std::vector<std::uint32_t> jobs;
  void grant_changed(std::uint32_t job) override { jobs.push_back(job); }
};
}  // namespace

TEST_CASE("two jobs behind an oversubscribed leaf share its uplink: each gets half, and all of it back when alone") {
  // Leaves of 2 nodes, oversubscription 2: a leaf's uplink carries 2 x 800 / 2 = 800 Gb/s.
  // Job 0 on n0 (leaf 0) and n2 (leaf 1), job 1 on n1 (leaf 0) and n3 (leaf 1): the hops
  // n0 -> n2 and n1 -> n3 both climb leaf 0's uplink, n2 -> n0 and n3 -> n1 leaf 1's: 400 Gb/s
  // each. Alone, a job's hops cross only its own NICs and a leaf link: 800 Gb/s.
  Simulator sim;
  core::FlowNetwork net(sim);
  models::FabricParams p = params();
  p.leaf_spine = models::LeafSpineSpec{2, 2.0, "test"};
  Fabric f(catalog(), nodes(4), p, net);
  Changed ch;
  models::JobTraffic traffic(f, ch);
  traffic.add_job(0, {0, 2});
  CHECK(traffic.inter_gbps(0) == doctest::Approx(800.0));
  ch.jobs.clear();
  traffic.add_job(1, {1, 3});
  CHECK(traffic.inter_gbps(0) == doctest::Approx(400.0));
  CHECK(traffic.inter_gbps(1) == doctest::Approx(400.0));
  CHECK(std::set<std::uint32_t>(ch.jobs.begin(), ch.jobs.end()) == std::set<std::uint32_t>{0, 1});
  ch.jobs.clear();
  traffic.remove_job(1);
  CHECK(traffic.inter_gbps(0) == doctest::Approx(800.0));
  CHECK(traffic.inter_gbps(1) == 0.0);
  CHECK(std::set<std::uint32_t>(ch.jobs.begin(), ch.jobs.end()) == std::set<std::uint32_t>{0});
  // One node: no inter-node ring, no flow.
  traffic.add_job(2, {3});
  CHECK_FALSE(traffic.has_job(2));
  CHECK(traffic.links(0).size() == 8);  // two hops of tx, leaf up, leaf down, rx
}
