// collective.cpp — ring order, CollectiveRun and JobTraffic (collective.hpp).
#include "mltwin/models/collective.hpp"

#include <stdexcept>
#include <utility>

namespace mltwin::models {

std::vector<std::uint32_t> ring_order(const Fabric& fabric, std::uint32_t node, int cores) {
  const InstanceType& it = fabric.instance_type(node);
  const int total = it.neuroncores();
  if (cores < 1 || cores > total)
    throw std::invalid_argument("ring_order: " + std::to_string(cores) + " ranks on node " + fabric.node(node).name +
                                ", which has " + std::to_string(total) + " NeuronCores");
  const auto [rows, cols] = fabric.torus_shape(node);
  const auto per_chip = static_cast<std::uint32_t>(it.neuroncores_per_chip);
  std::vector<std::uint32_t> order;
  order.reserve(static_cast<std::size_t>(total));
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t k = 0; k < cols; ++k) {
      const std::uint32_t chip = r * cols + (r % 2 == 0 ? k : cols - 1 - k);
      for (std::uint32_t j = 0; j < per_chip; ++j) order.push_back(chip * per_chip + j);
    }
  order.resize(static_cast<std::size_t>(cores));
  return order;
}

CollectiveRun::CollectiveRun(Fabric& fabric, std::vector<std::uint32_t> nodes, int cores_per_node,
                             std::vector<CollectivePhase> phases)
    : fabric_(fabric), nodes_(std::move(nodes)), phases_(std::move(phases)) {
  for (std::uint32_t n : nodes_) order_.push_back(ring_order(fabric_, n, cores_per_node));
  for (const auto& ph : phases_)
    for (const auto& t : ph.transfers)
      if (t.src_node < 0 || t.dst_node < 0 || static_cast<std::size_t>(t.src_node) >= nodes_.size() ||
          static_cast<std::size_t>(t.dst_node) >= nodes_.size() || t.src_core < 0 || t.dst_core < 0 ||
          t.src_core >= cores_per_node || t.dst_core >= cores_per_node)
        throw std::invalid_argument("CollectiveRun: phase " + ph.name + " has a transfer outside the job's " +
                                    std::to_string(nodes_.size()) + " nodes x " + std::to_string(cores_per_node) +
                                    " ranks");
}

void CollectiveRun::start(core::Simulator& sim) {
  begin_ = phase_begin_ = sim.now();
  phase_ = 0;
  step_ = 0;
  enter_phase(sim);
}

void CollectiveRun::enter_phase(core::Simulator& sim) {
  while (phase_ < phases_.size() && phases_[phase_].steps == 0) ++phase_;  // phases without a step
  if (phase_ == phases_.size()) {
    end_ = sim.now();
    done_ = true;
    return;
  }
  start_step(sim);
}

void CollectiveRun::start_step(core::Simulator& sim) {
  const CollectivePhase& ph = phases_[phase_];
  in_flight_ = ph.transfers.size();
  for (const Transfer& t : ph.transfers) {
    const auto sn = static_cast<std::size_t>(t.src_node), dn = static_cast<std::size_t>(t.dst_node);
    const Endpoint src{nodes_[sn], order_[sn][static_cast<std::size_t>(t.src_core)]};
    const Endpoint dst{nodes_[dn], order_[dn][static_cast<std::size_t>(t.dst_core)]};
    fabric_.transfer(src, dst, t.bytes, this);
  }
  if (in_flight_ == 0) on_flow_done(sim, fabric_.network(), core::FlowId{}, 0);
}

void CollectiveRun::on_flow_done(core::Simulator& sim, core::FlowNetwork&, core::FlowId, std::uint64_t) {
  if (in_flight_ > 0) --in_flight_;
  if (in_flight_ > 0) return;
  if (++step_ < phases_[phase_].steps) {
    start_step(sim);
    return;
  }
  times_.push_back({phases_[phase_].name, sim.now() - phase_begin_});
  phase_begin_ = sim.now();
  step_ = 0;
  ++phase_;
  enter_phase(sim);
}

JobTraffic::JobTraffic(Fabric& fabric, GrantListener& listener) : fabric_(fabric), listener_(listener) {}

void JobTraffic::add_job(std::uint32_t job, const std::vector<std::uint32_t>& nodes) {
  if (jobs_.size() <= job) jobs_.resize(static_cast<std::size_t>(job) + 1);
  Job& j = jobs_[job];
  if (!j.flows.empty()) throw std::logic_error("JobTraffic: job " + std::to_string(job) + " already has flows");
  if (nodes.size() < 2) return;
  // Routes first (a NoRouteError leaves nothing started), then the flows.
  // A hop between two pods on one node stays on that node (no EFA, no standing flow).
  std::vector<Route> routes;
  routes.reserve(nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const std::uint32_t a = nodes[k], b = nodes[(k + 1) % nodes.size()];
    if (a != b) routes.push_back(fabric_.route(Endpoint{a, 0}, Endpoint{b, 0}));
  }
  for (const Route& r : routes) j.links.insert(j.links.end(), r.links.begin(), r.links.end());
  for (Route& r : routes) j.flows.push_back(fabric_.network().start_standing(std::move(r.links), this, job));
}

void JobTraffic::remove_job(std::uint32_t job) {
  if (job >= jobs_.size()) return;
  Job& j = jobs_[job];
  const std::vector<core::FlowId> flows = std::move(j.flows);
  j.flows.clear();
  j.links.clear();
  for (core::FlowId f : flows) fabric_.network().cancel(f);
}

double JobTraffic::inter_gbps(std::uint32_t job) const {
  if (job >= jobs_.size() || jobs_[job].flows.empty()) return 0;
  double m = 0;
  bool first = true;
  for (core::FlowId f : jobs_[job].flows) {
    const double r = fabric_.network().rate_gbps(f);
    if (first || r < m) m = r;
    first = false;
  }
  return m;
}

void JobTraffic::on_rate_change(core::FlowNetwork&, core::FlowId, std::uint64_t payload) {
  listener_.grant_changed(static_cast<std::uint32_t>(payload));
}

}  // namespace mltwin::models
