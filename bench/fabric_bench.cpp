// Fabric benchmark: how long mltwin's max-min solver takes to handle a flow's start and end
// on a 1,000-node trn1.32xlarge fabric carrying 10,000 concurrent flows (issue 5 target: at
// most 10 ms each). Workload: bench/fabric_common.hpp (ring-neighbour transfers of many jobs).
//
//   build/bench/fabric_bench [nodes=1000] [rings=10] [completions=20000] [mode=flat|spine|scattered] [seed=1]
//
// mode flat: the non-blocking fabric (NIC bundles only): a ring hop i -> i+1 shares links only
// with the other rings' hops i -> i+1, so a start or end touches a component of R flows.
// spine: leaves of 32 nodes, 4:1 oversubscribed, jobs on contiguous nodes (few hops cross a
// leaf). scattered: the same leaves, jobs on randomly scattered nodes, so most hops cross
// leaves, the uplinks join nearly every flow into one component of ~10,000 flows, and every
// start or end recomputes all of them (the solver's worst case).
// Phase 1 starts every flow at t = 0 and times each start() (wall clock, steady_clock).
// Phase 2 runs the kernel: at each completion the owner starts the ring hop's next transfer;
// "end" = wall time from the kernel step's start to the owner's callback (detaching the
// flow, recomputing its component(s), re-timing), "start" = the replacement's start(),
// "event" = end + start (the quantity the SimGrid peer can be timed on).
// The figures are the scenario's (scenarios/eks-trn1-philly.json "fabric": 100 Gb/s per EFA
// interface x 8); latency 0 so that start() includes the solve (a latency would defer it to
// an activation event).
// GCC 12 at -O3 reports a false -Wrestrict inside std::string when main() inlines string
// building (GCC bug 105329); nothing here copies overlapping memory.
#pragma GCC diagnostic ignored "-Wrestrict"
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>

#include "fabric_common.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/core/flow_network.hpp"

using namespace mltwin;
using Clock = std::chrono::steady_clock;

namespace {

double ns_since(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

// This thread's CPU time, ns: on a shared machine the wall clock also counts the time other
// processes held the core; CPU time counts only ours (clock_gettime costs ~0.1-1 us).
double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct Summary {
  double mean_us, p99_us, max_us;
  std::size_t n;
};

Summary summarize(std::vector<double> v) {
  if (v.empty()) return {0, 0, 0, 0};
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  const std::size_t i99 = static_cast<std::size_t>(0.99 * static_cast<double>(v.size()));
  return {sum / static_cast<double>(v.size()) / 1e3, v[std::min(i99, v.size() - 1)] / 1e3, v.back() / 1e3, v.size()};
}

void print(const char* what, const Summary& s) {
  std::printf("  %-30s n=%-7zu mean %9.1f us   p99 %9.1f us   max %9.1f us\n", what, s.n, s.mean_us, s.p99_us, s.max_us);
}

struct Driver : core::FlowOwner {
  models::Fabric* fabric = nullptr;
  const std::vector<fabric_bench::RingFlow>* flows = nullptr;
  std::vector<std::uint64_t> round;  // transfers done per flow
  std::vector<double> start_ns, end_ns, event_ns, start_cpu, end_cpu;
  Clock::time_point step_begin;
  double step_begin_cpu = 0;
  bool timing_ends = false;
  std::uint64_t completions = 0;
  double sim_s_sum = 0;  // sum of completion times (s): compared with the peer

  core::FlowId start_flow(std::uint64_t f) {
    const auto& rf = (*flows)[f];
    const double bytes = static_cast<double>(fabric_bench::transfer_bytes(f, round[f]));
    // Core 2 * ring on both ends: the route is the NIC bundles' (EFA), whatever the core.
    return fabric->transfer(models::Endpoint{rf.src, 2 * (rf.ring % 16)}, models::Endpoint{rf.dst, 2 * (rf.ring % 16)},
                            bytes, this, f);
  }
  void on_flow_done(core::Simulator& sim, core::FlowNetwork&, core::FlowId, std::uint64_t f) override {
    const double end = ns_since(step_begin);
    const double end_c = cpu_ns() - step_begin_cpu;
    ++completions;
    sim_s_sum += sim.now().seconds();
    ++round[f];
    const double c0 = cpu_ns();
    const auto t0 = Clock::now();
    start_flow(f);
    const double st = ns_since(t0);
    const double st_c = cpu_ns() - c0;
    if (timing_ends) {
      end_cpu.push_back(end_c);
      start_cpu.push_back(st_c);
      end_ns.push_back(end);
      start_ns.push_back(st);
      event_ns.push_back(end + st);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint32_t nodes = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 1000;
  const std::uint32_t rings = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 10;
  const std::uint64_t target = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 20000;
  const std::string mode = argc > 4 ? argv[4] : "flat";
  const std::uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1;
  if (mode != "flat" && mode != "spine" && mode != "scattered") {
    std::fprintf(stderr, "mode must be flat, spine or scattered\n");
    return 2;
  }

  models::Catalog cat;
  models::InstanceType t;
  t.name = "trn1.32xlarge";
  t.trainium_chips = 16;
  t.neuroncores_per_chip = 2;
  t.efa_interfaces = 8;
  t.network_gbps = 800;
  cat.types.push_back(t);
  models::FabricParams p;
  p.efa = {100.0, core::Duration::ns(0), "scenario figure; latency 0 in the benchmark"};
  p.neuronlink.push_back({"trn1.32xlarge", 4, 4, 824.633720832, core::Duration::ns(0), "scenario figure"});
  if (mode != "flat") p.leaf_spine = models::LeafSpineSpec{32, 4.0, "benchmark"};
  std::vector<models::FabricNode> fnodes;
  for (std::uint32_t i = 0; i < nodes; ++i) fnodes.push_back({std::string("n") + std::to_string(i), "trn1.32xlarge", "az1"});

  core::Simulator sim;
  core::FlowNetwork net(sim);
  const auto tb = Clock::now();
  models::Fabric fabric(cat, fnodes, p, net);
  const double build_ms = ns_since(tb) / 1e6;
  const std::vector<fabric_bench::RingFlow> flows = fabric_bench::ring_flows(nodes, rings, seed, mode == "scattered");

  Driver d;
  d.fabric = &fabric;
  d.flows = &flows;
  d.round.assign(flows.size(), 0);
  std::vector<double> initial, initial_cpu;
  initial.reserve(flows.size());
  initial_cpu.reserve(flows.size());
  const auto t1 = Clock::now();
  for (std::uint64_t f = 0; f < flows.size(); ++f) {
    const double c0 = cpu_ns();
    const auto t0 = Clock::now();
    d.start_flow(f);
    initial.push_back(ns_since(t0));
    initial_cpu.push_back(cpu_ns() - c0);
  }
  const double phase1_s = ns_since(t1) / 1e9;
  const std::uint64_t rec0 = net.stats().recomputations, fr0 = net.stats().flows_recomputed;

  d.timing_ends = true;
  const auto t2 = Clock::now();
  while (d.completions < target) {
    d.step_begin_cpu = cpu_ns();
    d.step_begin = Clock::now();
    if (!sim.step()) break;
  }
  const double phase2_s = ns_since(t2) / 1e9;
  const auto& st = net.stats();
  std::printf("impl=mltwin mode=%s nodes=%u flows=%zu links=%zu build_ms=%.1f\n", mode.c_str(), nodes, flows.size(),
              net.link_count(), build_ms);
  std::printf("  phase 1: %zu starts from empty in %.3f s; phase 2: %llu completions in %.3f s wall, sim end %.6f s, "
              "sum of completion times %.6f s\n",
              flows.size(), phase1_s, static_cast<unsigned long long>(d.completions), phase2_s, sim.now().seconds(),
              d.sim_s_sum);
  const double comp = st.recomputations > rec0
                          ? static_cast<double>(st.flows_recomputed - fr0) / static_cast<double>(st.recomputations - rec0)
                          : 0;
  std::printf("  flows recomputed per update (phase 2): %.1f; re-timed in all: %llu\n", comp,
              static_cast<unsigned long long>(st.flows_retimed));
  std::printf(" wall clock:\n");
  print("start (phase 1, growing)", summarize(initial));
  print("start (phase 2, all live)", summarize(d.start_ns));
  print("end (phase 2)", summarize(d.end_ns));
  print("event = end + restart", summarize(d.event_ns));
  std::printf(" thread CPU time:\n");
  print("start (phase 1, growing)", summarize(initial_cpu));
  print("start (phase 2, all live)", summarize(d.start_cpu));
  print("end (phase 2)", summarize(d.end_cpu));
  return 0;
}
