// fabric_traffic.cpp — the training jobs' all-reduce traffic on the fabric (fabric_traffic.hpp).
#include "mltwin/models/fabric_traffic.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace mltwin::models {

FabricTraffic::FabricTraffic(const TrainingScenario& sc, core::Simulator& sim, TrainingRecorder& rec) : rec_(rec) {
  if (!sc.fabric) throw std::invalid_argument("fabric traffic needs the scenario's fabric (/fabric)");
  net_ = std::make_unique<core::FlowNetwork>(sim);
  fabric_ = std::make_unique<Fabric>(sc.catalog, fabric_nodes_of(sc.node_groups), *sc.fabric, *net_);
  traffic_ = std::make_unique<JobTraffic>(*fabric_, static_cast<GrantListener&>(*this));
  is_changed_.assign(sc.jobs.size(), 0);
  link_bytes_.assign(net_->link_count(), 0.0);
}

FabricTraffic::~FabricTraffic() = default;

void FabricTraffic::add_job(std::uint32_t job, const std::vector<std::uint32_t>& nodes) { traffic_->add_job(job, nodes); }

void FabricTraffic::remove_job(std::uint32_t job) { traffic_->remove_job(job); }

void FabricTraffic::carried(std::uint32_t job, double bytes) {
  for (core::LinkId l : traffic_->links(job)) link_bytes_[l] += bytes;
}

void FabricTraffic::grant_changed(std::uint32_t job) {
  if (is_changed_[job]) return;
  is_changed_[job] = 1;
  changed_.push_back(job);
}

std::vector<std::uint32_t> FabricTraffic::take_changed() {
  std::sort(changed_.begin(), changed_.end());
  std::vector<std::uint32_t> jobs = std::move(changed_);
  changed_.clear();
  for (std::uint32_t j : jobs) is_changed_[j] = 0;
  return jobs;
}

void FabricTraffic::record_usage(core::Time at) {
  const core::Time since = since_;
  const double interval_s = (at - since).seconds();
  since_ = at;
  if (interval_s <= 0) return;
  for (core::LinkId l = 0; l < link_bytes_.size(); ++l) {
    if (link_bytes_[l] <= 0) continue;
    const double u = link_bytes_[l] * 8.0 / (net_->link_capacity_gbps(l) * 1e9 * interval_s);
    rec_.link_usage({since, at, net_->link_name(l), link_bytes_[l], u});
    link_bytes_[l] = 0;
  }
}

}  // namespace mltwin::models
