// The fabric topology (models/fabric.hpp): the NeuronLink torus against its closed-form
// distances, routes as paths of the Boost graph, availability zones as a hard boundary, and
// leaf/spine oversubscription with completion times worked out by hand.
#include <doctest/doctest.h>

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/models/training.hpp"
#include "fabric_fixture.hpp"

using namespace mltwin;
using core::Duration;
using core::Simulator;
using core::Time;
using models::Endpoint;
using models::Fabric;
using core::FlowId;
using core::FlowNetwork;
using core::LinkId;
using models::Medium;
using test::nodes;
using test::test_catalog;
using test::test_params;

namespace {


struct Log : core::FlowOwner {
  std::vector<std::pair<std::int64_t, std::uint64_t>> done;
  void on_flow_done(Simulator& sim, core::FlowNetwork&, core::FlowId, std::uint64_t payload) override {
    done.emplace_back(sim.now().ns(), payload);
  }
};

// For every edge of the graph that carries a link: (source, target) vertices.
std::map<core::LinkId, std::pair<Fabric::Vertex, Fabric::Vertex>> link_edges(const Fabric& f) {
  std::map<core::LinkId, std::pair<Fabric::Vertex, Fabric::Vertex>> m;
  const auto& g = f.graph();
  for (auto [it, end] = boost::edges(g); it != end; ++it)
    if (g[*it].link != Fabric::kUnconstrained) m[g[*it].link] = {boost::source(*it, g), boost::target(*it, g)};
  return m;
}

}  // namespace

TEST_CASE("NeuronLink: a 4 x 4 torus per trn1.32xlarge; routes are shortest torus paths") {
  Simulator sim;
  core::FlowNetwork net(sim);
  const Fabric f(test_catalog(), nodes(2, "az1"), test_params(), net);
  const auto& g = f.graph();
  // Vertices: per node 32 cores + 16 chips + 1 NIC; one switch for the zone.
  CHECK(boost::num_vertices(g) == 2 * (32 + 16 + 1) + 1);
  // Links: per node 16 chips x 4 neighbours (directed) + NIC tx/rx = 66.
  CHECK(net.link_count() == 2 * 66);
  // Chip (r, c) = 4r + c; its NeuronLinks go to (r, c+-1), (r+-1, c) mod 4.
  CHECK(f.neuronlink(0, 5, 6) != f.neuronlink(0, 6, 5));
  CHECK_NOTHROW(f.neuronlink(0, 0, 3));   // wrap-around in the row
  CHECK_NOTHROW(f.neuronlink(0, 0, 12));  // wrap-around in the column
  CHECK_THROWS_AS(f.neuronlink(0, 0, 5), std::out_of_range);  // diagonal: no link
  const auto edges = link_edges(f);
  for (std::uint32_t a = 0; a < 16; ++a)
    for (std::uint32_t b = 0; b < 16; ++b) {
      CAPTURE(a);
      CAPTURE(b);
      // Core 2a sits on chip a; core 2b + 1 on chip b.
      const models::Route r = f.route(Endpoint{1, 2 * a}, Endpoint{1, 2 * b + 1});
      // Hop count = torus distance: min(|dr|, 4 - |dr|) + min(|dc|, 4 - |dc|).
      const int dr = std::abs(int(a / 4) - int(b / 4)), dc = std::abs(int(a % 4) - int(b % 4));
      const std::size_t hops = static_cast<std::size_t>(std::min(dr, 4 - dr) + std::min(dc, 4 - dc));
      CHECK(r.links.size() == hops);
      CHECK(r.medium == (a == b ? Medium::Local : Medium::NeuronLink));
      CHECK(r.latency == (a == b ? Duration::ns(0) : Duration::us(1)));
      // The links form a path of the graph from chip a to chip b of node 1.
      Fabric::Vertex v = f.chip_vertex(1, a);
      for (core::LinkId l : r.links) {
        REQUIRE(edges.count(l) == 1);
        CHECK(edges.at(l).first == v);
        v = edges.at(l).second;
      }
      CHECK(v == f.chip_vertex(1, b));
    }
}

TEST_CASE("EFA: a route between two nodes is NIC tx -> NIC rx, latency once; it is a graph path") {
  Simulator sim;
  core::FlowNetwork net(sim);
  const Fabric f(test_catalog(), nodes(3, "az1"), test_params(), net);
  const models::Route r = f.route(Endpoint{0, 7}, Endpoint{2, 30});
  CHECK(r.medium == Medium::Efa);
  CHECK(r.links == std::vector<core::LinkId>{f.nic_tx(0), f.nic_rx(2)});
  CHECK(r.latency == Duration::us(10));
  CHECK(net.link_capacity_gbps(f.nic_tx(0)) == 800.0);  // 8 interfaces x 100 Gb/s
  const auto edges = link_edges(f);
  CHECK(edges.at(r.links[0]).first == f.nic_vertex(0));
  CHECK(edges.at(r.links[0]).second == edges.at(r.links[1]).first);  // the zone's switch
  CHECK(edges.at(r.links[1]).second == f.nic_vertex(2));
  CHECK_THROWS_AS(f.route(Endpoint{3, 0}, Endpoint{0, 0}), std::out_of_range);
  CHECK_THROWS_AS(f.route(Endpoint{0, 32}, Endpoint{1, 0}), std::out_of_range);
}

TEST_CASE("availability zones: no EFA route across them, and the API says why") {
  Simulator sim;
  core::FlowNetwork net(sim);
  auto ns = nodes(2, "us-east-1a", "trn1.32xlarge", "a");
  for (auto& n : nodes(2, "us-east-1b", "trn1.32xlarge", "b")) ns.push_back(n);
  ns.push_back({"tiny", "small", "us-east-1a"});
  const Fabric f(test_catalog(), ns, test_params(), net);
  CHECK(f.reachable(0, 1));
  CHECK(f.reachable(2, 3));
  CHECK(f.reachable(0, 0));
  CHECK_FALSE(f.reachable(1, 2));
  const std::string why = f.why_unreachable(1, 2);
  CHECK(why.find("a1 (us-east-1a)") != std::string::npos);
  CHECK(why.find("b0 (us-east-1b)") != std::string::npos);
  CHECK(why.find("different availability zones") != std::string::npos);
  std::string reason;
  CHECK_FALSE(f.try_route(Endpoint{1, 0}, Endpoint{2, 0}, &reason).has_value());
  CHECK(reason == why);
  CHECK_THROWS_AS(f.route(Endpoint{1, 0}, Endpoint{2, 0}), models::NoRouteError);
  Log log;
  CHECK_THROWS_AS(const_cast<Fabric&>(f).transfer(Endpoint{1, 0}, Endpoint{2, 0}, 1e6, &log), models::NoRouteError);
  CHECK(net.flow_count() == 0);
  // No edge of the graph joins the zones: from a0's NIC, b0's NIC is unreachable.
  std::vector<int> seen(boost::num_vertices(f.graph()), 0);
  std::vector<Fabric::Vertex> stack{f.nic_vertex(0)};
  while (!stack.empty()) {
    const Fabric::Vertex v = stack.back();
    stack.pop_back();
    if (seen[v]++) continue;
    for (auto [it, end] = boost::out_edges(v, f.graph()); it != end; ++it) stack.push_back(boost::target(*it, f.graph()));
  }
  CHECK(seen[f.nic_vertex(1)] > 0);
  CHECK(seen[f.nic_vertex(2)] == 0);
  // An instance without EFA interfaces reaches nobody else, even in its own zone.
  CHECK_FALSE(f.reachable(0, 4));
  CHECK(f.why_unreachable(0, 4).find("tiny (small) has no EFA interface") != std::string::npos);
  CHECK(f.route(Endpoint{4, 0}, Endpoint{4, 1}).medium == Medium::Local);  // its own cores
}

TEST_CASE("leaf/spine oversubscription halves cross-leaf bandwidth (hand-solved times)") {
  // 4 nodes, 2 per leaf, NIC bundles 800 Gb/s (8 x 100). Oversubscription 2: each leaf's
  // uplink and downlink carry (2 x 800) / 2 = 800 Gb/s.
  // Cross-leaf: n0 -> n2 and n1 -> n3 both climb leaf 0's uplink: 400 Gb/s each
  // (50 B/ns). 5e9 bytes: 1e8 ns, plus 10 us latency -> done at 100,010,000 ns.
  // Same leaf, concurrently: n0 -> n1 shares n0's tx (800) with n0 -> n2 (which is held at
  // 400 by the uplink), so it gets the other 400 Gb/s: 5e9 bytes -> also 100,010,000 ns.
  // Without the spine (non-blocking): n0's tx has two flows: 400 each (same), n1 -> n3 alone
  // at 800 Gb/s = 100 B/ns: 5e7 + 1e4 = 50,010,000 ns.
  for (const bool spine : {true, false}) {
    CAPTURE(spine);
    Simulator sim;
    core::FlowNetwork net(sim);
    models::FabricParams p = test_params();
    if (spine) p.leaf_spine = models::LeafSpineSpec{2, 2.0, "test"};
    Fabric f(test_catalog(), nodes(4, "az1"), p, net);
    if (spine) {
      REQUIRE(f.leaf_count() == 2);
      CHECK(f.leaf_of(1) == 0);
      CHECK(f.leaf_of(2) == 1);
      CHECK(net.link_capacity_gbps(f.leaf_uplink(0)) == 800.0);
      CHECK(f.route(Endpoint{0, 0}, Endpoint{2, 0}).links ==
            std::vector<core::LinkId>{f.nic_tx(0), f.leaf_uplink(0), f.leaf_downlink(1), f.nic_rx(2)});
      CHECK(f.route(Endpoint{0, 0}, Endpoint{1, 0}).links == std::vector<core::LinkId>{f.nic_tx(0), f.nic_rx(1)});
    } else {
      CHECK(f.leaf_of(1) == -1);
    }
    Log log;
    f.transfer(Endpoint{0, 0}, Endpoint{2, 0}, 5e9, &log, 2);
    f.transfer(Endpoint{1, 0}, Endpoint{3, 0}, 5e9, &log, 3);
    f.transfer(Endpoint{0, 1}, Endpoint{1, 1}, 5e9, &log, 1);
    sim.run();
    if (spine) {
      CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{
                            {100'010'000, 2}, {100'010'000, 3}, {100'010'000, 1}});
    } else {
      CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{
                            {50'010'000, 3}, {100'010'000, 2}, {100'010'000, 1}});
    }
  }
}

TEST_CASE("fabric parameters are checked") {
  Simulator sim;
  core::FlowNetwork net(sim);
  models::FabricParams p = test_params();
  p.neuronlink[0].torus_rows = 3;  // 3 x 4 != 16 chips
  CHECK_THROWS_WITH_AS(Fabric(test_catalog(), nodes(1, ""), p, net),
                       doctest::Contains("torus does not hold the type's 16 Trainium chips"), std::invalid_argument);
  p = test_params();
  p.neuronlink.clear();
  CHECK_THROWS_WITH_AS(Fabric(test_catalog(), nodes(1, ""), p, net), doctest::Contains("no NeuronLink entry"),
                       std::invalid_argument);
  CHECK_NOTHROW(Fabric(test_catalog(), nodes(1, "", "small"), p, net));  // one chip: no NeuronLink needed
  p = test_params();
  p.leaf_spine = models::LeafSpineSpec{2, 0.5, "x"};
  CHECK_THROWS_AS(Fabric(test_catalog(), nodes(1, ""), p, net), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Fabric(test_catalog(), nodes(1, "", "trn9"), test_params(), net),
                       doctest::Contains("'trn9' is not in the catalog"), std::invalid_argument);
}

TEST_CASE("fabric_nodes_of names nodes as the training model does") {
  std::vector<models::NodeGroupSpec> groups(2);
  groups[0].name = "g";
  groups[0].instance_types = {"trn1.32xlarge"};
  groups[0].count = 2;
  groups[0].availability_zone = "z1";
  groups[1].name = "h";
  groups[1].instance_types = {"small"};
  groups[1].count = 1;
  const auto ns = models::fabric_nodes_of(groups);
  REQUIRE(ns.size() == 3);
  CHECK(ns[1].name == "g-1");
  CHECK(ns[1].availability_zone == "z1");
  CHECK(ns[2].name == "h-0");
  CHECK(ns[2].instance_type == "small");
}
