// mltwin/models/training/components.hpp — the training cluster's components around one
// TrainingState, wired to each other (training_state.hpp lists what each models).
#pragma once
#include "mltwin/core/rng.hpp"
#include "mltwin/models/training/job_controller.hpp"
#include "mltwin/models/training/pod_lifecycle.hpp"
#include "mltwin/models/training/scheduler_driver.hpp"
#include "mltwin/models/training/training_progress.hpp"
#include "mltwin/models/training/training_state.hpp"

namespace mltwin::models {

/// Members of one object, so each component may name one built after it (it only keeps the
/// reference). Throws what TrainingProgress's constructor throws. `state` and `rng` must
/// outlive it.
struct TrainingComponents {
  TrainingComponents(TrainingState& state, core::RngStreams& rng)
      : progress(state, controller), pods(state, rng, driver, controller, progress), controller(state, driver, pods, progress),
        driver(state, rng, pods, controller) {}
  TrainingProgress progress;
  PodLifecycle pods;
  JobController controller;
  SchedulerDriver driver;
};

}  // namespace mltwin::models
