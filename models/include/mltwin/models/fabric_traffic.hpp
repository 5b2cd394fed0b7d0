// mltwin/models/fabric_traffic.hpp — the training jobs' all-reduce traffic on the cluster's
// fabric (docs/fabric.md, "Jobs sharing the fabric"): a component of the training model, held
// by TrainingProgress (training/training_progress.hpp) when the duration model is derived with
// contention.
//
// It owns the network (core::FlowNetwork, max-min sharing), the fabric's topology (Fabric) and
// the jobs' standing ring flows (JobTraffic). TrainingProgress adds a job's ring when it starts
// training and removes it when the attempt ends; the jobs whose EFA grant may have changed
// since are collected and handed back in job order (take_changed), for TrainingProgress to
// re-time them. The bytes each ring hop carries as a job progresses are booked per link (carried) and
// recorded as `link_usage` rows per metrics interval (record_usage).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "mltwin/core/flow_network.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/collective.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/models/recorder.hpp"
#include "mltwin/models/training.hpp"

namespace mltwin::models {

class FabricTraffic final : private GrantListener {
 public:
  /// The network and topology of `sc.fabric` on `sim`; link_usage rows go to `rec`. Throws
  /// std::invalid_argument if the scenario has no fabric.
  FabricTraffic(const TrainingScenario& sc, core::Simulator& sim, TrainingRecorder& rec);
  ~FabricTraffic() override;
  FabricTraffic(const FabricTraffic&) = delete;
  FabricTraffic& operator=(const FabricTraffic&) = delete;

  /// Job `job`'s ring over `nodes` (fabric node indices, in replica order) joins the sharing.
  /// Throws NoRouteError if two consecutive nodes cannot reach each other.
  void add_job(std::uint32_t job, const std::vector<std::uint32_t>& nodes);
  /// Job `job`'s ring leaves (no-op if it has none).
  void remove_job(std::uint32_t job);
  bool has_job(std::uint32_t job) const { return traffic_->has_job(job); }
  /// The EFA bandwidth the job's ring gets now, Gb/s (its slowest hop).
  double inter_gbps(std::uint32_t job) const { return traffic_->inter_gbps(job); }
  /// `bytes` crossed every link of the job's ring hops (part of its steps, as it progressed).
  void carried(std::uint32_t job, double bytes);
  /// The jobs whose grant may have changed since the last call, in job order (the same run
  /// whatever order the network reported them in); then forgotten.
  std::vector<std::uint32_t> take_changed();
  /// Whether [last record, at) is a non-empty interval still to record.
  bool usage_due(core::Time at) const { return at > since_; }
  /// Records the bytes booked since the last record as link_usage rows for [last record, at)
  /// (links that carried nothing have no row) and starts a new interval.
  void record_usage(core::Time at);

 private:
  void grant_changed(std::uint32_t job) override;

  TrainingRecorder& rec_;
  std::unique_ptr<core::FlowNetwork> net_;
  std::unique_ptr<Fabric> fabric_;
  std::unique_ptr<JobTraffic> traffic_;
  std::vector<std::uint32_t> changed_;  // jobs whose grant may have changed
  std::vector<char> is_changed_;        // per job: in changed_
  std::vector<double> link_bytes_;      // per link, since since_
  core::Time since_ = core::Time::zero();
};

}  // namespace mltwin::models
