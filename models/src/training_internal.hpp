// training_internal.hpp — per-node and per-job books of TrainingCluster shared by training.cpp
// and training_nodes.cpp (private to the models library).
#pragma once
#include <cstdint>
#include <string>

#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training.hpp"

namespace mltwin::models {

struct TrainingCluster::NodeRec {
  std::size_t group = 0;                       // index in scenario.node_groups
  core::Time added = core::Time::zero();       // launch requested (billing starts)
  core::Time removed = core::Time::max();      // failed or removed by the autoscaler
  core::Time empty_since = core::Time::zero(); // no pod on it since (autoscaler)
  core::EventId failure_event;                 // pending random failure, while busy
  bool failure_pending = false;
  bool launching = false;                      // scale-up or replacement not yet Ready
  std::uint32_t fabric_slot = UINT32_MAX;      // its node in the Fabric (a replacement takes the failed node's)
};

struct TrainingCluster::JobStartup {
  Duration pull_max = Duration::ns(0);  // longest image pull of this attempt's pods
  core::EventId done_event;             // kStartupDone of the current attempt
  bool in_startup = false;              // between the last pod Running and training start
  bool killed = false;                  // the job controller has killed this attempt's pods
  std::string restart_event = "PodEvicted";
  double image_pull_s = 0, rendezvous_s = 0, dataset_read_s = 0;  // compile time: JobOutcome::compile_s
  std::string compile_cache;
  core::Time training_start = core::Time::max();
  core::Time startup_begin = core::Time::max();
};

}  // namespace mltwin::models
