// The fabric benchmark's peer: the same flows (bench/fabric_common.hpp) on SimGrid's own
// max-min solver (Debian libsimgrid-dev 3.32, s4u API: hosts, links, routes, comms).
//
//   fabric_simgrid [nodes=1000] [rings=10] [completions=20000] [mode=flat|spine|scattered] [seed=1] [--cfg=...]
//
// Platform: one full zone; per host a transmit and a receive link of 800 Gb/s (1e11 B/s,
// the NIC bundle); mode spine adds a 4:1 up and down link per 32 hosts; each used (src, dst)
// pair gets the route mltwin's Fabric gives (scattered: spine links, jobs on scattered nodes) (tx [, up, down], rx). The network model is CM02
// (pure max-min, no bandwidth/latency correction factors: mltwin's rule), latency 0,
// crosstraffic off (no reverse ACK flows), TCP-gamma 0 (no window bound).
// One actor per flow on its source host: sendto(src, dst, bytes) in a loop, the next size when
// one ends, as mltwin's driver restarts a ring hop. Per-event cost: SimGrid runs its solver
// when simulated time advances, not inside a start, so only the wall time between successive
// completions (one end + one restart + the solver + the kernel) can be timed; the actors
// record a wall timestamp after each sendto returns.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fabric_common.hpp"

namespace sg4 = simgrid::s4u;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<fabric_bench::RingFlow> g_flows;
std::vector<sg4::Host*> g_hosts;
std::uint64_t g_target = 0, g_done = 0;
std::vector<double> g_wall;  // ns since the run's start, at each completion
double g_sim_sum = 0, g_end_clock = 0;
Clock::time_point g_t0;

void flow_actor(std::uint64_t f) {
  const auto& rf = g_flows[f];
  for (std::uint64_t k = 0; g_done < g_target; ++k) {
    sg4::Comm::sendto(g_hosts[rf.src], g_hosts[rf.dst], fabric_bench::transfer_bytes(f, k));
    if (g_done >= g_target) break;
    ++g_done;
    g_sim_sum += sg4::Engine::get_clock();
    g_wall.push_back(std::chrono::duration<double, std::nano>(Clock::now() - g_t0).count());
    if (g_done == g_target) {
      g_end_clock = sg4::Engine::get_clock();
      sg4::Actor::kill_all();  // the others are still sending: stop here
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);  // consumes --cfg=... and --log=...
  const std::uint32_t nodes = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 1000;
  const std::uint32_t rings = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 10;
  g_target = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 20000;
  const std::string mode = argc > 4 ? argv[4] : "flat";
  const std::uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1;
  e.set_config("network/model:CM02");
  e.set_config("network/crosstraffic:0");
  e.set_config("network/TCP-gamma:0");
  e.set_config("contexts/stack-size:64");

  auto* zone = sg4::create_full_zone("fabric");
  std::vector<sg4::Link*> tx(nodes), rx(nodes), up, down;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    g_hosts.push_back(zone->create_host(std::string("n") + std::to_string(i), 1e9));
    tx[i] = zone->create_link(std::string("tx") + std::to_string(i), 800e9 / 8)->set_latency(0)->seal();
    rx[i] = zone->create_link(std::string("rx") + std::to_string(i), 800e9 / 8)->set_latency(0)->seal();
  }
  const std::uint32_t per_leaf = 32;
  if (mode != "flat")
    for (std::uint32_t l = 0; l * per_leaf < nodes; ++l) {
      const std::uint32_t members = std::min(per_leaf, nodes - l * per_leaf);
      const double bw = members * 800e9 / 8 / 4.0;
      up.push_back(zone->create_link(std::string("up") + std::to_string(l), bw)->set_latency(0)->seal());
      down.push_back(zone->create_link(std::string("down") + std::to_string(l), bw)->set_latency(0)->seal());
    }
  g_flows = fabric_bench::ring_flows(nodes, rings, seed, mode == "scattered");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& f : g_flows) pairs.emplace_back(f.src, f.dst);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (const auto& [s, d] : pairs) {
    std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(tx[s])};
    if (mode != "flat" && s / per_leaf != d / per_leaf) {
      route.emplace_back(up[s / per_leaf]);
      route.emplace_back(down[d / per_leaf]);
    }
    route.emplace_back(rx[d]);
    zone->add_route(g_hosts[s]->get_netpoint(), g_hosts[d]->get_netpoint(), nullptr, nullptr, route, false);
  }
  zone->seal();
  for (std::uint64_t f = 0; f < g_flows.size(); ++f)
    sg4::Actor::create(std::string("flow") + std::to_string(f), g_hosts[g_flows[f].src], flow_actor, f);
  g_wall.reserve(g_target);
  g_t0 = Clock::now();
  e.run();
  const double total_s = std::chrono::duration<double>(Clock::now() - g_t0).count();

  // Gaps between successive completions; the first one includes every start and the first solve.
  std::vector<double> gaps;
  for (std::size_t i = 1; i < g_wall.size(); ++i) gaps.push_back(g_wall[i] - g_wall[i - 1]);
  const double first_ms = g_wall.empty() ? 0 : g_wall[0] / 1e6;
  std::sort(gaps.begin(), gaps.end());
  double sum = 0;
  for (double x : gaps) sum += x;
  std::printf("impl=simgrid mode=%s nodes=%u flows=%zu completions=%llu wall=%.3f s sim_end=%.6f s "
              "sum_of_completion_times=%.6f s\n",
              mode.c_str(), nodes, g_flows.size(), static_cast<unsigned long long>(g_done), total_s,
              g_end_clock, g_sim_sum);
  std::printf("  all %zu starts + first solve, to the first completion: %.1f ms\n", g_flows.size(), first_ms);
  if (!gaps.empty())
    std::printf("  %-30s n=%-7zu mean %9.1f us   p99 %9.1f us   max %9.1f us\n", "event = end + restart", gaps.size(),
                sum / static_cast<double>(gaps.size()) / 1e3,
                gaps[std::min(gaps.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(gaps.size())))] / 1e3,
                gaps.back() / 1e3);
  return 0;
}
