// The twin's state as kubectl JSON (runner/src/snapshots.hpp).
#include "snapshots.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "mltwin/k8s/snapshot.hpp"
#include "output_files.hpp"

namespace mltwin::runner::detail {

nlohmann::json snapshot_of(const policy::ClusterState& state, const policy::Scheduler& scheduler, core::Time now,
                           const models::TrainingScenario* scenario) {
  k8s::WriteOptions o;
  o.epoch = k8s::kTwinEpoch;
  o.now = now.ns();
  o.config = scheduler.config();
  o.tiebreak_state = scheduler.tiebreak_state();
  if (scenario) {
    // The classes the jobs name, each with the value the loader gave its jobs (TrainingJobSpec::
    // priority is the class's value) and its preemptionPolicy, in the order first named.
    std::map<std::string, std::size_t> index;
    for (const models::TrainingJobSpec& j : scenario->jobs) {
      if (j.priority_class.empty()) continue;
      o.job_priority_class.emplace(j.name, j.priority_class);
      if (index.emplace(j.priority_class, o.priority_classes.size()).second)
        o.priority_classes.push_back({j.priority_class, j.priority, false, j.preempt_never});
    }
  }
  return k8s::write_list(state, o);
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  WholeFile file(path, "snapshot");
  file.write(doc.dump(4) + "\n");
  file.commit();
}

SnapshotWriter::SnapshotWriter(std::vector<std::pair<core::Time, std::string>> at, std::string prefix,
                               std::function<void(const std::string&, core::Time)> on_written, const models::TrainingScenario* scenario)
    : at_(std::move(at)), prefix_(std::move(prefix)), on_written_(std::move(on_written)), scenario_(scenario) {
  std::stable_sort(at_.begin(), at_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::string snapshot_name(const std::string& name) { return k8s::WriteOptions{}.ns + "/" + name; }

bool SnapshotWriter::opening(const policy::ClusterState& state, const policy::Scheduler& scheduler) {
  const core::Time now = core::Time::from_ns(state.now());
  if (next_ >= at_.size() || at_[next_].first > now) return false;
  const nlohmann::json doc = snapshot_of(state, scheduler, now, scenario_);
  decisions_files_.clear();
  for (; next_ < at_.size() && at_[next_].first <= now; ++next_) {
    const std::string file = prefix_ + "snapshot-" + at_[next_].second + ".json";
    write_json_file(file, doc);
    decisions_files_.push_back(prefix_ + "snapshot-" + at_[next_].second + ".decisions.json");
    if (on_written_) on_written_(file, now);
  }
  decisions_ = {{"schema", 1},
                {"now", k8s::format_rfc3339(k8s::kTwinEpoch + state.now())},
                {"binds", nlohmann::json::array()},
                {"evictions", nlohmann::json::array()},
                {"podgroup_phases", nlohmann::json::array()}};
  return true;
}

void SnapshotWriter::bound(const policy::TaskInfo& t, const policy::NodeInfo& n) {
  decisions_["binds"].push_back({{"pod", snapshot_name(t.name)}, {"node", n.name}});
}

void SnapshotWriter::evicted(const policy::TaskInfo& t, const policy::Eviction& e, const policy::TaskInfo* preemptor) {
  // As mltwin-scheduler --output json writes an eviction (apps/scheduler/src/once.cpp).
  decisions_["evictions"].push_back({{"pod", snapshot_name(t.name)},
                                     {"reason", std::string(e.reason)},
                                     {"preemptor", preemptor ? snapshot_name(preemptor->name) : std::string()},
                                     {"tier", e.tier + 1},
                                     {"plugins", std::string(e.plugins)}});
}

void SnapshotWriter::phase_changed(const policy::JobInfo& j, policy::PodGroupPhase from, policy::PodGroupPhase to) {
  decisions_["podgroup_phases"].push_back({{"podgroup", snapshot_name(j.name)}, {"from", policy::to_string(from)}, {"to", policy::to_string(to)}});
}

void SnapshotWriter::closed(const policy::ClusterState&) {
  for (const std::string& f : decisions_files_) write_json_file(f, decisions_);
  decisions_files_.clear();
}

std::vector<std::string> SnapshotWriter::missed() const {
  std::vector<std::string> out;
  for (std::size_t i = next_; i < at_.size(); ++i) out.push_back(at_[i].second);
  return out;
}

}  // namespace mltwin::runner::detail
