// Max-min fair sharing (core/flow_network.hpp) against hand-solved cases, an independent
// reference (dense water-filling with Eigen, written here from the definition), and itself
// (incremental == from scratch, determinism). Every expected time below is worked out by hand
// in the comments: rates in Gb/s, 1 Gb/s = 0.125 byte/ns, completion = ceil(bytes / rate) ns.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/core/flow_network.hpp"

using namespace mltwin;
using core::Duration;
using core::Simulator;
using core::Time;
using core::FlowId;
using core::FlowNetwork;
using core::LinkId;

namespace {

// Records every completion as (ns, payload), in callback order.
struct Log : core::FlowOwner {
  std::vector<std::pair<std::int64_t, std::uint64_t>> done;
  void on_flow_done(Simulator& sim, core::FlowNetwork&, core::FlowId, std::uint64_t payload) override {
    done.emplace_back(sim.now().ns(), payload);
  }
};

// Runs `fn(sim)` as a discrete event at time t.
template <class Fn>
struct At : core::EventHandler {
  Fn fn;
  explicit At(Fn f) : fn(std::move(f)) {}
  void on_event(Simulator& sim, std::uint64_t) override { fn(sim); }
};
template <class Fn>
At<Fn> at(Fn f) { return At<Fn>(std::move(f)); }

}  // namespace

TEST_CASE("two flows on one link share it equally; the survivor speeds up when one leaves") {
  // One 100 Gb/s link = 12.5 B/ns. A: 1e9 bytes, B: 5e8 bytes, both from t = 0.
  //   0 .. B done: 50 Gb/s each = 6.25 B/ns; B done at 5e8 / 6.25 = 8e7 ns (80 ms).
  //   A then has 1e9 - 6.25 * 8e7 = 5e8 bytes left, alone at 12.5 B/ns: 4e7 ns more -> 1.2e8 ns.
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(100.0, "L");
  Log log;
  const core::FlowId a = net.start({l}, 1e9, &log, 1);
  const core::FlowId b = net.start({l}, 5e8, &log, 2);
  CHECK(net.rate_gbps(a) == 50.0);
  CHECK(net.rate_gbps(b) == 50.0);
  CHECK(net.link_load_gbps(l) == 100.0);
  CHECK(net.completion_time(b) == Time::from_ns(80'000'000));
  sim.run_until(Time::from_ns(40'000'000));
  CHECK(net.remaining_bytes(a) == doctest::Approx(1e9 - 6.25 * 4e7));
  CHECK(net.link_bytes(l) == doctest::Approx(12.5 * 4e7));
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{80'000'000, 2}, {120'000'000, 1}});
  CHECK_FALSE(net.alive(a));
  CHECK(net.flow_count() == 0);
  CHECK(net.link_bytes(l) == doctest::Approx(1.5e9));  // everything both flows carried
  CHECK(net.link_load_gbps(l) == 0.0);
}

TEST_CASE("a flow crossing two bottlenecks (hand-solved progressive filling)") {
  // L1 = 10 Gb/s, L2 = 30 Gb/s. X crosses L1 and L2; Y uses L1; Z1, Z2 use L2.
  // Filling: L1's share 10/2 = 5 < L2's 30/3 = 10, so L1 fills first: X = Y = 5 Gb/s
  // (0.625 B/ns). L2 has 30 - 5 = 25 left for Z1, Z2: 12.5 Gb/s each (1.5625 B/ns).
  // Bytes: X 6.25e7, Y 3.125e7, Z1 = Z2 = 2e8.
  //   t = 5e7: Y done (3.125e7 / 0.625). X has 6.25e7 - 0.625*5e7 = 3.125e7 left; each Z
  //            has 2e8 - 1.5625*5e7 = 1.21875e8 left. Now L1 share 10/1, L2 share 30/3: a tie
  //            at 10 Gb/s (1.25 B/ns) for X, Z1, Z2.
  //   t = 5e7 + 3.125e7/1.25 = 7.5e7: X done. Each Z has 1.21875e8 - 1.25*2.5e7 = 9.0625e7
  //            left, now at 15 Gb/s (1.875 B/ns): 9.0625e7 / 1.875 = 48,333,333.3 ns, rounded
  //            up to 48,333,334 -> both done at 123,333,334 ns, Z1 first (started first).
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l1 = net.add_link(10.0, "L1");
  const core::LinkId l2 = net.add_link(30.0, "L2");
  Log log;
  const core::FlowId x = net.start({l1, l2}, 6.25e7, &log, 'X');
  const core::FlowId y = net.start({l1}, 3.125e7, &log, 'Y');
  const core::FlowId z1 = net.start({l2}, 2e8, &log, 1);
  const core::FlowId z2 = net.start({l2}, 2e8, &log, 2);
  CHECK(net.rate_gbps(x) == 5.0);
  CHECK(net.rate_gbps(y) == 5.0);
  CHECK(net.rate_gbps(z1) == 12.5);
  CHECK(net.rate_gbps(z2) == 12.5);
  sim.run_until(Time::from_ns(60'000'000));
  CHECK(net.rate_gbps(x) == 10.0);
  CHECK(net.rate_gbps(z1) == 10.0);
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{
                        {50'000'000, 'Y'}, {75'000'000, 'X'}, {123'333'334, 1}, {123'333'334, 2}});
}

TEST_CASE("flows leaving one by one: the survivors speed up at each departure") {
  // Three flows on one 80 Gb/s link (10 B/ns), 1e8, 2e8 and 3e8 bytes.
  //   0 .. : 10/3 B/ns each; the 1e8 flow ends at 1e8 / (10/3) = 3e7 ns.
  //   then the others have 2e8 - 1e8 = 1e8 and 3e8 - 1e8 = 2e8 left at 5 B/ns: the 2e8 flow
  //   ends 2e7 later, at 5e7 ns; the last has 1e8 left, alone at 10 B/ns: 1e7 -> 6e7 ns.
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(80.0);
  Log log;
  net.start({l}, 3e8, &log, 3);
  net.start({l}, 1e8, &log, 1);
  net.start({l}, 2e8, &log, 2);
  sim.run();
  REQUIRE(log.done.size() == 3);
  CHECK(log.done[0] == std::make_pair<std::int64_t, std::uint64_t>(30'000'000, 1));
  // 1e8 / (10/3) is 3e7 up to rounding; ceil may add at most 1 ns at each step.
  CHECK(log.done[1].second == 2);
  CHECK(std::abs(log.done[1].first - 50'000'000) <= 2);
  CHECK(log.done[2].second == 3);
  CHECK(std::abs(log.done[2].first - 60'000'000) <= 3);
}

TEST_CASE("cancel: the cancelled flow is never reported, the other speeds up") {
  // 100 Gb/s link; A and B 1e9 bytes each, 6.25 B/ns each. B cancelled at 4e7 ns: A has
  // 1e9 - 2.5e8 = 7.5e8 left at 12.5 B/ns: 6e7 more -> done at 1e8 ns.
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(100.0);
  Log log;
  net.start({l}, 1e9, &log, 1);
  const core::FlowId b = net.start({l}, 1e9, &log, 2);
  auto ev = at([&](Simulator&) { CHECK(net.cancel(b)); });
  sim.schedule(Time::from_ns(40'000'000), &ev);
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{100'000'000, 1}});
  CHECK_FALSE(net.cancel(b));  // stale handle
  CHECK(net.stats().flows_cancelled == 1);

  // Cancelled during its latency phase: it never joins, the other keeps the link alone
  // (12.5 B/ns: 1e9 bytes -> 8e7 ns).
  Simulator sim2;
  core::FlowNetwork net2(sim2);
  const core::LinkId l2 = net2.add_link(100.0);
  Log log2;
  net2.start({l2}, 1e9, &log2, 1);
  const core::FlowId late = net2.start({l2}, 1e9, &log2, 2, Duration::ns(1'000));
  CHECK(net2.flow_count() == 2);
  CHECK(net2.cancel(late));
  CHECK(net2.flow_count() == 1);
  sim2.run();
  CHECK(log2.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{80'000'000, 1}});
  CHECK(sim2.stats().events_fired == 0);  // the activation event was cancelled too
}

TEST_CASE("latency: the flow joins the sharing after it; an empty route completes at once") {
  // 100 Gb/s, A 1.25e9 bytes from 0 (alone: 12.5 B/ns until B joins). B 1.25e9 bytes,
  // started at 0 with 2e7 ns latency: it joins at 2e7, when A has 1.25e9 - 2.5e8 = 1e9 left.
  // Both at 6.25 B/ns: A ends at 2e7 + 1e9/6.25 = 1.8e8; B has 1.25e9 - 1e9 = 2.5e8 left,
  // alone at 12.5 B/ns: 2e7 more -> 2e8.
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(100.0);
  Log log;
  net.start({l}, 1.25e9, &log, 1);
  const core::FlowId b = net.start({l}, 1.25e9, &log, 2, Duration::ns(20'000'000));
  CHECK(net.rate_gbps(b) == 0.0);
  CHECK(net.completion_time(b) == Time::max());
  const core::FlowId c = net.start({}, 1e12, &log, 3, Duration::ns(5));  // no link limits it
  CHECK(net.alive(c));
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{
                        {5, 3}, {180'000'000, 1}, {200'000'000, 2}});
}

TEST_CASE("rounding: completion rounds up to the next ns, and a residue never strands a flow") {
  Simulator sim;
  core::FlowNetwork net(sim);
  const core::LinkId l = net.add_link(100.0);  // 12.5 B/ns
  Log log;
  net.start({l}, 1.0, &log, 1);      // 0.08 ns of transfer -> 1 ns
  net.start({l}, 1e-9, &log, 2);     // far below a byte: still 1 ns, not 0 and not never
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{1, 1}, {1, 2}});

  // A flow due at t = 100 ns (1250 bytes at 12.5 B/ns) while an event at the same ns starts
  // another on its link: discrete events fire first, so the new flow briefly shares with it,
  // but the due flow still completes at 100 (its bytes are done), and the new one, 1250
  // bytes, then has the link alone: done at 200.
  Simulator sim2;
  core::FlowNetwork net2(sim2);
  const core::LinkId l2 = net2.add_link(100.0);
  Log log2;
  net2.start({l2}, 1250.0, &log2, 1);
  auto ev = at([&](Simulator&) { net2.start({l2}, 1250.0, &log2, 2); });
  sim2.schedule(Time::from_ns(100), &ev);
  sim2.run();
  CHECK(log2.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{100, 1}, {200, 2}});
}

TEST_CASE("bad arguments are refused with a message") {
  Simulator sim;
  core::FlowNetwork net(sim);
  Log log;
  CHECK_THROWS_AS(net.add_link(0.0), std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(std::nan("")), std::invalid_argument);
  const core::LinkId l = net.add_link(1.0);
  CHECK_THROWS_AS(net.start({l}, 0.0, &log), std::invalid_argument);
  CHECK_THROWS_AS(net.start({l}, 1.0, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(net.start({l, l}, 1.0, &log), std::invalid_argument);
  CHECK_THROWS_AS(net.start({7}, 1.0, &log), std::invalid_argument);
  CHECK_THROWS_AS(net.start({l}, 1.0, &log, 0, Duration::ns(-1)), std::invalid_argument);
  CHECK_THROWS_AS(net.rate_gbps(core::FlowId{}), std::invalid_argument);
}

// ---- independent reference and property tests ----------------------------------------------

namespace {

// Max-min fair rates by the textbook water-filling, on a dense incidence matrix (Eigen):
// repeat { for each link with unfixed flows: share = (capacity - fixed load) / unfixed count;
// the smallest share fixes every unfixed flow on its link(s) }. Written from the definition,
// independently of flow_network.cpp (no heap, no components, recomputed from scratch).
Eigen::VectorXd reference_rates(const Eigen::MatrixXd& A, const Eigen::VectorXd& cap) {
  const Eigen::Index nl = A.rows(), nf = A.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(nf);
  Eigen::VectorXd unfixed = Eigen::VectorXd::Ones(nf);
  for (;;) {
    const Eigen::VectorXd fixed_load = A * (x.array() * (1.0 - unfixed.array())).matrix();
    const Eigen::VectorXd count = A * unfixed;
    double best = std::numeric_limits<double>::infinity();
    for (Eigen::Index l = 0; l < nl; ++l)
      if (count(l) > 0) best = std::min(best, (cap(l) - fixed_load(l)) / count(l));
    if (!std::isfinite(best)) break;
    for (Eigen::Index l = 0; l < nl; ++l) {
      if (count(l) == 0 || (cap(l) - fixed_load(l)) / count(l) > best * (1 + 1e-12)) continue;
      for (Eigen::Index f = 0; f < nf; ++f)
        if (A(l, f) > 0 && unfixed(f) > 0) {
          x(f) = best;
          unfixed(f) = 0;
        }
    }
  }
  return x;
}

struct RandomCase {
  std::vector<double> caps;                  // Gb/s
  std::vector<std::vector<core::LinkId>> routes;   // per flow
  std::vector<double> bytes;
  std::vector<std::int64_t> start_ns;
  std::vector<std::int64_t> cancel_ns;       // -1: never
};

RandomCase make_case(std::uint32_t seed, int links, int flows) {
  boost::random::mt19937 rng(seed);
  boost::random::uniform_real_distribution<double> cap(1.0, 400.0), bytes(1e5, 1e8);
  boost::random::uniform_int_distribution<int> len(1, 4), link(0, links - 1), start(0, 2'000'000), coin(0, 9);
  RandomCase c;
  for (int l = 0; l < links; ++l) c.caps.push_back(cap(rng));
  for (int f = 0; f < flows; ++f) {
    std::vector<core::LinkId> r;
    const int n = len(rng);
    while (static_cast<int>(r.size()) < n) {
      const auto l = static_cast<core::LinkId>(link(rng));
      if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
    }
    c.routes.push_back(r);
    c.bytes.push_back(bytes(rng));
    c.start_ns.push_back(start(rng));
    c.cancel_ns.push_back(coin(rng) == 0 ? c.start_ns.back() + start(rng) / 4 : -1);
  }
  return c;
}

// Drives a RandomCase on a core::FlowNetwork through kernel events; at each checkpoint compares the
// live rates with the reference and with a full recomputation.
struct Driver : core::FlowOwner, core::EventHandler {
  const RandomCase& c;
  Simulator sim;
  core::FlowNetwork net{sim};
  std::vector<core::FlowId> ids;
  std::vector<std::pair<std::int64_t, std::uint64_t>> done;
  int checks = 0;
  bool check_reference = true;

  explicit Driver(const RandomCase& rc) : c(rc), ids(rc.routes.size()) {
    for (double g : c.caps) net.add_link(g);
    for (std::size_t f = 0; f < c.routes.size(); ++f) {
      sim.schedule(Time::from_ns(c.start_ns[f]), this, f);
      if (c.cancel_ns[f] >= 0) sim.schedule(Time::from_ns(c.cancel_ns[f]), this, (1ull << 32) | f);
    }
    for (std::int64_t t = 100'000; t < 6'000'000; t += 250'000) sim.schedule(Time::from_ns(t), this, 2ull << 32);
  }
  void on_flow_done(Simulator& s, core::FlowNetwork&, core::FlowId, std::uint64_t payload) override {
    done.emplace_back(s.now().ns(), payload);
  }
  void on_event(Simulator&, std::uint64_t p) override {
    const std::uint64_t kind = p >> 32, f = p & 0xffffffffu;
    if (kind == 0) ids[f] = net.start(c.routes[f], c.bytes[f], this, f);
    else if (kind == 1) net.cancel(ids[f]);
    else checkpoint();
  }
  void checkpoint() {
    std::vector<std::size_t> live;
    for (std::size_t f = 0; f < ids.size(); ++f)
      if (ids[f].valid() && net.alive(ids[f])) live.push_back(f);
    std::vector<double> before;
    for (std::size_t f : live) before.push_back(net.rate_gbps(ids[f]));
    // Incremental == from scratch, bit for bit; and nothing to re-time.
    const std::uint64_t retimed = net.stats().flows_retimed;
    net.recompute_all();
    CHECK(net.stats().flows_retimed == retimed);
    for (std::size_t i = 0; i < live.size(); ++i) CHECK(net.rate_gbps(ids[live[i]]) == before[i]);
    // Feasible: no link over capacity.
    for (core::LinkId l = 0; l < c.caps.size(); ++l) CHECK(net.link_load_gbps(l) <= c.caps[l] * (1 + 1e-12));
    if (check_reference && !live.empty()) {
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(c.caps.size()), static_cast<Eigen::Index>(live.size()));
      Eigen::VectorXd cap(static_cast<Eigen::Index>(c.caps.size()));
      for (std::size_t l = 0; l < c.caps.size(); ++l) cap(static_cast<Eigen::Index>(l)) = c.caps[l];
      for (std::size_t i = 0; i < live.size(); ++i)
        for (core::LinkId l : c.routes[live[i]]) A(l, static_cast<Eigen::Index>(i)) = 1;
      const Eigen::VectorXd ref = reference_rates(A, cap);
      for (std::size_t i = 0; i < live.size(); ++i)
        CHECK(before[i] == doctest::Approx(ref(static_cast<Eigen::Index>(i))).epsilon(1e-9));
    }
    ++checks;
  }
};

}  // namespace

TEST_CASE("property: incremental == from scratch == reference water-filling, several seeds") {
  for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    CAPTURE(seed);
    const RandomCase c = make_case(seed, 25, 150);
    Driver d(c);
    d.sim.run();
    CHECK(d.checks == 24);
    // Every flow either completed once or was cancelled before completing.
    std::size_t cancelled = d.net.stats().flows_cancelled;
    CHECK(d.done.size() + cancelled == c.routes.size());
    CHECK(d.net.flow_count() == 0);
  }
}

TEST_CASE("determinism: the same flows give the same completions, ns for ns, in the same order") {
  const RandomCase c = make_case(42, 40, 400);
  Driver a(c), b(c);
  a.check_reference = b.check_reference = false;
  a.sim.run();
  b.sim.run();
  CHECK(a.done.size() > 300);
  CHECK(a.done == b.done);
}

TEST_CASE("a route longer than the inline capacity (10 links) is limited by its narrowest link") {
  // Links of 10, 20, ..., 100 Gb/s; one flow over all ten: 10 Gb/s = 1.25 B/ns, 1.25e6 bytes
  // -> 1e6 ns. A second flow on the 10 Gb/s link alone halves it from t = 0: both 5 Gb/s,
  // 0.625 B/ns; the second (6.25e5 bytes) ends at 1e6 ns, the long one has 6.25e5 left at
  // 1.25 B/ns: 5e5 more -> 1.5e6 ns.
  Simulator sim;
  core::FlowNetwork net(sim);
  std::vector<core::LinkId> route;
  for (int i = 1; i <= 10; ++i) route.push_back(net.add_link(10.0 * i));
  Log log;
  const core::FlowId a = net.start(route, 1.25e6, &log, 1);
  CHECK(net.rate_gbps(a) == 10.0);
  net.start({route[0]}, 6.25e5, &log, 2);
  CHECK(net.rate_gbps(a) == 5.0);
  sim.run();
  CHECK(log.done == std::vector<std::pair<std::int64_t, std::uint64_t>>{{1'000'000, 2}, {1'500'000, 1}});
}
