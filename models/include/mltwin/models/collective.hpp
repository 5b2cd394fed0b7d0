// mltwin/models/collective.hpp — a data-parallel job's collectives on the Fabric: the ring
// order of NeuronCores inside an instance, one optimizer step's all-reduce run transfer by
// transfer as flows (CollectiveRun), and the standing traffic of running jobs that makes jobs
// share EFA bandwidth (JobTraffic).
//
// Ring order. The hierarchical all-reduce (step_model.hpp) runs a ring over a node's P local
// ranks. The Neuron runtime builds its rings on the physical topology (aws-neuron-sdk
// neuron-runtime/explore/intranode-collective-comm.rst: rings over the 2D torus of
// trn1.32xlarge); we place the ring on a Hamiltonian cycle of the torus — chips in
// boustrophedon order (row 0 left to right, row 1 right to left, ...), the NeuronCores of a
// chip next to each other — so that on a torus with an even number of rows (trn1.32xlarge:
// 4 x 4) every ring hop crosses at most one NeuronLink and no two hops cross the same one:
// each hop gets a whole link, which is what the closed form of step_model.hpp assumes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/core/time.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/models/step_model.hpp"

namespace mltwin::models {

/// The NeuronCores of `node` in intra-node ring order: local rank r runs on core
/// ring_order(...)[r]. `cores` (1 .. the node's NeuronCores) ranks take the first cores of
/// the order. Throws std::invalid_argument for cores out of range, std::out_of_range for a
/// node that does not exist.
std::vector<std::uint32_t> ring_order(const Fabric& fabric, std::uint32_t node, int cores);

/// One optimizer step's all-reduce (allreduce_transfers) of a job on fabric nodes, run as
/// flows: phase by phase, step by step, every transfer of a step started at once (each pays
/// its route's latency, then shares bandwidth max-min fairly with all other flows on the
/// network), the next step when the last transfer of this one completes. The phases' alpha is
/// not added: the fabric's route latency plays that part, so build the phases with a
/// LinkGrant whose alphas are the fabric's NeuronLink and EFA latencies. Transfer (node n,
/// rank c) maps to (nodes[n], ring_order(nodes[n], P)[c]).
/// The run must outlive its flows (it is their core::FlowOwner).
class CollectiveRun final : public core::FlowOwner {
 public:
  struct PhaseTime {
    std::string name;
    core::Duration time;  ///< first transfer started -> last step's last transfer done
  };
  /// Throws std::invalid_argument if a transfer names a node index outside `nodes`.
  CollectiveRun(Fabric& fabric, std::vector<std::uint32_t> nodes, int cores_per_node,
                std::vector<CollectivePhase> phases);
  /// Starts the first step at sim.now(). Throws NoRouteError if two nodes cannot talk.
  void start(core::Simulator& sim);
  bool done() const { return done_; }
  /// start() -> the last transfer of the last phase done (valid once done()).
  core::Duration elapsed() const { return end_ - begin_; }
  const std::vector<PhaseTime>& phase_times() const { return times_; }

  void on_flow_done(core::Simulator& sim, core::FlowNetwork& net, core::FlowId flow, std::uint64_t payload) override;

 private:
  void enter_phase(core::Simulator& sim);  // the next phase with steps, or done
  void start_step(core::Simulator& sim);
  Fabric& fabric_;
  std::vector<std::uint32_t> nodes_;
  std::vector<std::vector<std::uint32_t>> order_;  // per job node: ring order of its cores
  std::vector<CollectivePhase> phases_;
  std::vector<PhaseTime> times_;
  std::size_t phase_ = 0;
  int step_ = 0;
  std::size_t in_flight_ = 0;
  core::Time begin_, phase_begin_, end_;
  bool done_ = false;
};

/// The standing all-reduce traffic of running training jobs: while a job trains, each hop of
/// its inter-node ring (node k -> node k+1 of its nodes, and the last back to the first)
/// holds one standing flow (core::FlowNetwork::start_standing) on the EFA route between them. The
/// flow stands for the job's P per-rank rings across that hop together, so two jobs crossing
/// a link share it equally. The bandwidth a job gets for its inter-node phase is the smallest
/// rate among its hops (a ring step ends with its slowest hop). Modelling choice, stated: the
/// flows stand for as long as the job trains, as if every job were in its all-reduce all the
/// time, so the sharing is the worst case of contention (an upper bound on the slowdown);
/// alone on its links, a job gets the whole NIC bandwidth and its step time is the closed form.
/// A hop between two pods on one node has no standing flow (it stays on the node); a job
/// whose pods are all on one node has none and keeps its nominal bandwidth. The caller is told through
/// GrantListener::grant_changed(job) when a job's grant may have changed (from inside
/// core::FlowNetwork updates: read, do not start or cancel flows there).
class GrantListener {
 public:
  virtual ~GrantListener() = default;
  virtual void grant_changed(std::uint32_t job) = 0;
};

class JobTraffic final : public core::FlowOwner {
 public:
  JobTraffic(Fabric& fabric, GrantListener& listener);
  /// Starts job `job`'s standing flows over `nodes` (fabric node indices, the job's order).
  /// Throws NoRouteError if two consecutive nodes cannot reach each other, and
  /// std::logic_error if the job already has flows.
  void add_job(std::uint32_t job, const std::vector<std::uint32_t>& nodes);
  /// Cancels the job's flows (no-op if it has none).
  void remove_job(std::uint32_t job);
  bool has_job(std::uint32_t job) const { return job < jobs_.size() && !jobs_[job].flows.empty(); }
  /// The smallest rate among the job's hop flows, Gb/s; 0 if it has none.
  double inter_gbps(std::uint32_t job) const;
  /// The links of the job's hop routes (one entry per hop and link; used to book bytes).
  const std::vector<core::LinkId>& links(std::uint32_t job) const { return jobs_.at(job).links; }

  void on_flow_done(core::Simulator&, core::FlowNetwork&, core::FlowId, std::uint64_t) override {}
  void on_rate_change(core::FlowNetwork& net, core::FlowId flow, std::uint64_t payload) override;

 private:
  struct Job {
    std::vector<core::FlowId> flows;
    std::vector<core::LinkId> links;
  };
  Fabric& fabric_;
  GrantListener& listener_;
  std::vector<Job> jobs_;
};

}  // namespace mltwin::models
