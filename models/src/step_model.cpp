#include "mltwin/models/step_model.hpp"

#include <cmath>
#include <stdexcept>

namespace mltwin::models {

namespace {

using core::Duration;

// Bytes at `gbps` (1e9 bit/s), rounded to the nearest integer nanosecond.
Duration transfer(double bytes, double gbps) {
  // bytes * 8 bit / (gbps * 1e9 bit/s) s = bytes * 8 / gbps ns
  return Duration::ns(std::llround(bytes * 8.0 / gbps));
}

void check(const ModelProfile& p, const Placement& pl, const LinkGrant& g) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument("step model, profile '" + p.name + "': " + what);
  };
  if (pl.nodes < 1) bad("placement needs nodes >= 1, got " + std::to_string(pl.nodes));
  if (pl.cores_per_node < 1) bad("placement needs cores_per_node >= 1, got " + std::to_string(pl.cores_per_node));
  if (!(p.parameters >= 0) || !(p.gradient_bytes_per_parameter >= 0)) bad("parameters and gradient bytes must be >= 0");
  if (p.microsteps_per_step < 1) bad("microsteps_per_step must be >= 1");
  if (p.compute_per_microstep < Duration::ns(0) || p.step_overhead < Duration::ns(0) ||
      p.straggler_sigma < Duration::ns(0))
    bad("compute_per_microstep, step_overhead and straggler_sigma must be >= 0");
  if (g.intra_alpha < Duration::ns(0) || g.inter_alpha < Duration::ns(0)) bad("latencies must be >= 0");
  if (pl.cores_per_node > 1 && !(g.intra_gbps > 0))
    bad("an intra-node phase needs NeuronLink bandwidth > 0 Gb/s, got " + std::to_string(g.intra_gbps));
  if (pl.nodes > 1 && !(g.inter_gbps > 0))
    bad("an inter-node phase needs EFA bandwidth > 0 Gb/s, got " + std::to_string(g.inter_gbps));
}

}  // namespace

double straggler_factor(int nodes) {
  return nodes > 1 ? std::sqrt(2.0 * std::log(static_cast<double>(nodes))) : 0.0;
}

StepTime step_time(const ModelProfile& p, const Placement& pl, const LinkGrant& g) {
  check(p, pl, g);
  StepTime st;
  const std::int64_t a = p.microsteps_per_step;
  st.microsteps = p.microsteps_per_step;
  st.compute = Duration::ns(a * p.compute_per_microstep.count_ns());
  st.overhead = p.step_overhead;
  const double sync_ns = static_cast<double>(p.straggler_sigma.count_ns()) * straggler_factor(pl.nodes);
  st.sync = Duration::ns(a * std::llround(sync_ns));
  const double s = p.gradient_bytes();
  const int cores = pl.cores_per_node, nodes = pl.nodes;
  if (cores > 1) {
    // One step: every core sends S/P bytes over one NeuronLink hop.
    const Duration step = g.intra_alpha + transfer(s / cores, g.intra_gbps);
    st.reduce_scatter = Duration::ns((cores - 1) * step.count_ns());
    st.all_gather = st.reduce_scatter;
  }
  if (nodes > 1) {
    // One step: the P cores of a node each send S/(P·N) bytes, sharing the node's EFA
    // bandwidth: S/N bytes at inter_gbps.
    const Duration step = g.inter_alpha + transfer(s / nodes, g.inter_gbps);
    st.inter_ring = Duration::ns(2LL * (nodes - 1) * step.count_ns());
  }
  return st;
}

std::vector<CollectivePhase> allreduce_transfers(const ModelProfile& p, const Placement& pl, const LinkGrant& g) {
  check(p, pl, g);
  std::vector<CollectivePhase> out;
  const double s = p.gradient_bytes();
  const int cores = pl.cores_per_node, nodes = pl.nodes;
  auto intra = [&](const char* name) {
    CollectivePhase ph;
    ph.name = name;
    ph.inter_node = false;
    ph.steps = cores - 1;
    ph.alpha = g.intra_alpha;
    ph.transfers.reserve(static_cast<std::size_t>(nodes) * cores);
    for (int n = 0; n < nodes; ++n)
      for (int c = 0; c < cores; ++c) ph.transfers.push_back({n, c, n, (c + 1) % cores, s / cores});
    return ph;
  };
  if (cores > 1) out.push_back(intra("reduce_scatter"));
  if (nodes > 1) {
    CollectivePhase ph;
    ph.name = "inter_node_ring";
    ph.inter_node = true;
    ph.steps = 2 * (nodes - 1);
    ph.alpha = g.inter_alpha;
    ph.transfers.reserve(static_cast<std::size_t>(nodes) * cores);
    for (int n = 0; n < nodes; ++n)
      for (int c = 0; c < cores; ++c) ph.transfers.push_back({n, c, (n + 1) % nodes, c, s / (static_cast<double>(cores) * nodes)});
    out.push_back(std::move(ph));
  }
  if (cores > 1) out.push_back(intra("all_gather"));
  return out;
}

}  // namespace mltwin::models
