// training_internal.hpp — per-job books of TrainingCluster shared by training.cpp and
// job_controller.cpp (private to the models library).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training.hpp"

namespace mltwin::models {

/// Volcano Job phases (batch.volcano.sh/v1alpha1 JobPhase), the job controller's state
/// (pkg/controllers/job/state/factory.go NewState).
enum class VcPhase : std::uint8_t { Pending, Running, Restarting, Aborting, Aborted, Terminating, Terminated, Completing, Completed, Failed };
const char* to_string(VcPhase p);


struct TrainingCluster::JobRun {
  policy::JobId pj = policy::kNone;
  int bound = 0, running = 0;
  core::Time inqueue = core::Time::max();
  core::Time scheduled = core::Time::max();
  core::Time start = core::Time::max();
  core::Time end = core::Time::max();
  core::Time attempt_start = core::Time::max();  // training start of the current attempt
  core::EventId end_event;                       // job_end_event_ of the current attempt
  Duration saved = Duration::ns(0);              // progress kept by the last checkpoint
  int retries = 0;                               // Volcano Job status.retryCount
  VcPhase vc = VcPhase::Pending;                 // Volcano Job status.state.phase
  // Pod events waiting for the job controller (raised during a scheduling cycle or a node
  // failure, handled at the same instant once it is over), in order.
  struct PendingEvent {
    JobEvent event;
    int replica;
    std::string what;
  };
  std::vector<PendingEvent> events;
  bool controller_pending = false;
  // torchrun: the job lost a pod while others stayed on their nodes; the survivors' process
  // group times out at peer_event unless the gang forms again first (job_controller.cpp).
  bool gang_broken = false;
  bool peer_timer = false;
  core::EventId peer_event;
  double last_lost_s = 0;                        // training lost since the last decision row
  std::int8_t last_event = -1;                   // the event (a JobEvent, -1: none) and action behind the Job's phase
  JobAction last_action = JobAction::SyncJob;
  bool stuck = false;                            // SyncJob left Failed pods that are never recreated
  // Per-job breakdown (JobOutcome), and the step model's state (DurationModel::Derived).
  core::Time attempt_placed = core::Time::max();  // first bind of the current attempt
  StepTime step;                                  // step time of the current attempt's placement
  std::int64_t steps_saved = 0;                   // steps kept by the last checkpoint
  // The current attempt in periods of constant step time (derived): steps done and their
  // split before period_start, and the bytes one inter-node hop carries per step.
  core::Time period_start = core::Time::max();
  double att_steps = 0, att_compute_s = 0, att_comm_s = 0, att_sync_s = 0;
  double hop_bytes_per_step = 0;
  // The current period of constant step time (a step_periods row): since when, the steps done
  // before it, the EFA grant it has, and which attempt (training start) it belongs to.
  core::Time step_since = core::Time::max();
  double step_since_steps = 0;
  double efa_gbps = 0;
  int attempt = -1;
  bool ended = false;
  std::string last_phase = "Pending";
};

struct TrainingCluster::JobStartup {
  Duration pull_max = Duration::ns(0);  // longest image pull of this attempt's pods
  core::EventId done_event;             // startup_done_event_ of the current attempt
  bool in_startup = false;              // between the last pod Running and training start
  bool killed = false;                  // the job controller has killed this attempt's pods
  std::string restart_event = "PodEvicted";
  double image_pull_s = 0, rendezvous_s = 0, dataset_read_s = 0;  // compile time: JobOutcome::compile_s
  std::string compile_cache;
  core::Time training_start = core::Time::max();
  core::Time startup_begin = core::Time::max();
};

}  // namespace mltwin::models
