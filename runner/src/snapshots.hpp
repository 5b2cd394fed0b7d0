// runner/src/snapshots.hpp — the twin's state as kubectl JSON: Run::snapshot() now, and
// RunOptions::snapshot_at at the first session at or after each time (a SessionObserver).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/training.hpp"
#include "mltwin/models/training/scheduler_driver.hpp"

namespace mltwin::runner::detail {

/// The cluster's state as a kubectl List (mltwin/k8s/snapshot.hpp write_list) for a session at
/// `now`, with the scheduler's tie-break state; the twin's time 0 is k8s::kTwinEpoch (2000-01-01T00:00:00Z). With the
/// scenario, its jobs' PriorityClasses are written under their own names (each class a job names,
/// with that job's priority and preemptionPolicy).
nlohmann::json snapshot_of(const policy::ClusterState& state, const policy::Scheduler& scheduler, core::Time now,
                           const models::TrainingScenario* scenario = nullptr);
/// The twin's object names as the snapshot writes them: pods and PodGroups in namespace default.
std::string snapshot_name(const std::string& name);

/// Writes `doc` to `path` whole or not at all (a temporary file beside it, renamed over it).
/// Throws std::runtime_error naming the file.
void write_json_file(const std::string& path, const nlohmann::json& doc);

/// Writes a snapshot at the first session at or after each time, and beside it what the
/// twin's session decided (`...snapshot-<label>.decisions.json`, in mltwin-scheduler's JSON
/// shape: binds, evictions, podgroup_phases).
class SnapshotWriter final : public models::SessionObserver {
 public:
  SnapshotWriter(std::vector<std::pair<core::Time, std::string>> at, std::string prefix,
                 std::function<void(const std::string&, core::Time)> on_written, const models::TrainingScenario* scenario = nullptr);
  bool opening(const policy::ClusterState& state, const policy::Scheduler& scheduler) override;
  void bound(const policy::TaskInfo& t, const policy::NodeInfo& n) override;
  void evicted(const policy::TaskInfo& t, const policy::Eviction& e, const policy::TaskInfo* preemptor) override;
  void phase_changed(const policy::JobInfo& j, policy::PodGroupPhase from, policy::PodGroupPhase to) override;
  void closed(const policy::ClusterState&) override;
  /// The labels of the times no session reached (the run ended before).
  std::vector<std::string> missed() const;

 private:
  std::vector<std::pair<core::Time, std::string>> at_;  // sorted by time
  std::size_t next_ = 0;
  std::string prefix_;
  std::function<void(const std::string&, core::Time)> on_written_;
  const models::TrainingScenario* scenario_ = nullptr;  // outlives the writer (TrainingWorld)
  std::vector<std::string> decisions_files_;  // of the session being watched
  nlohmann::json decisions_;
};

/// Shows each session to two observers (RunOptions::snapshot_at and session_observer).
class ObserverPair final : public models::SessionObserver {
 public:
  ObserverPair(models::SessionObserver& a, models::SessionObserver& b) : a_(a), b_(b) {}
  bool opening(const policy::ClusterState& state, const policy::Scheduler& scheduler) override {
    wa_ = a_.opening(state, scheduler);
    wb_ = b_.opening(state, scheduler);
    return wa_ || wb_;
  }
  void bound(const policy::TaskInfo& t, const policy::NodeInfo& n) override {
    if (wa_) a_.bound(t, n);
    if (wb_) b_.bound(t, n);
  }
  void evicted(const policy::TaskInfo& t, const policy::Eviction& e, const policy::TaskInfo* p) override {
    if (wa_) a_.evicted(t, e, p);
    if (wb_) b_.evicted(t, e, p);
  }
  void phase_changed(const policy::JobInfo& j, policy::PodGroupPhase f, policy::PodGroupPhase t) override {
    if (wa_) a_.phase_changed(j, f, t);
    if (wb_) b_.phase_changed(j, f, t);
  }
  void closed(const policy::ClusterState& s) override {
    if (wa_) a_.closed(s);
    if (wb_) b_.closed(s);
  }

 private:
  models::SessionObserver& a_;
  models::SessionObserver& b_;
  bool wa_ = false, wb_ = false;
};

}  // namespace mltwin::runner::detail
