// mltwin/models/training/training_progress.hpp — a job's training once every pod runs: how long
// an attempt lasts, what a restart loses, and (derived durations) its step time as the fabric's
// sharing changes.
//
// Duration model "trace": an attempt trains for the job's traced duration less the progress
// kept by the last checkpoint. "derived": steps x the step time of the placement the attempt
// got (step_model.hpp), in periods of constant step time (a step_periods row each); with fabric
// contention the job's all-reduce joins the EFA fabric (FabricTraffic) and every change in the
// sharing re-times the jobs whose grant changed. A checkpoint every checkpoint_interval keeps
// progress across restarts.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

#include "mltwin/core/event.hpp"
#include "mltwin/models/fabric_traffic.hpp"
#include "mltwin/models/training/training_state.hpp"

namespace mltwin::models {

class JobController;

class TrainingProgress {
 public:
  /// Throws std::invalid_argument for a derived duration model without a step model or steps,
  /// or contention without a fabric or with the autoscaler. All arguments must outlive it.
  TrainingProgress(TrainingState& state, JobController& controller);
  ~TrainingProgress();

  /// Job `idx`'s attempt starts training now (its gang ran and started up). Throws
  /// std::runtime_error if, with fabric contention, its pods' nodes cannot form an EFA ring.
  void start(std::size_t idx);
  /// Job `idx`'s attempt stops now (a pod lost): the end is cancelled, the progress since the
  /// last checkpoint lost. Returns the training lost, s (0 if it was not training).
  double stop(std::size_t idx);
  /// The run ends at `end` with job `idx` still training (derived: its steps so far count).
  void close_attempt_at_end(std::size_t idx, core::Time end);
  /// Books the running jobs' link traffic up to `at` and writes link_usage rows when due.
  void record_link_usage(core::Time at);

 private:
  Duration training_time(std::size_t idx);
  Placement placement_of(std::size_t idx) const;  // its nodes x NeuronCores per pod
  LinkGrant grant_of(std::size_t idx) const;
  void close_period(std::size_t idx, core::Time at);  // books the steps from the period's start to `at`
  void end_step_period(std::size_t idx, core::Time at, std::string_view why);
  void retime(std::size_t idx);  // new grant -> new step time -> new end event
  void settle_traffic();         // retimes the jobs whose grant may have changed
  void job_end(std::size_t idx);
  void before() { s_.note_event(); }

  TrainingState& s_;
  JobController& controller_;
  std::unique_ptr<FabricTraffic> fabric_traffic_;  // derived durations with contention
  core::Event<&TrainingProgress::job_end, &TrainingProgress::before> job_end_event_{this};
};

}  // namespace mltwin::models
