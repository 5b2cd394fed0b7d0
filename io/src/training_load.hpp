// training_load.hpp — the readers of a training scenario's sections (internal to io/).
//
// load_scenario (scenario.cpp) checks the document against the schema, expands the files it
// refers to, and then hands a TrainingLoad to one reader per section, in this order:
//   read_cluster           /cluster: node groups, allocatable, nodes_from, DaemonSets, the Spot price history
//                          (scenario_cluster.cpp)
//   (scenario.cpp)         /fabric, /volcano (the scheduler), /queues, /priority_classes,
//                          /lifecycle and /output
//   read_workload          /workload: torchx, a Philly trace or explicit jobs (scenario_workload.cpp)
//   (scenario.cpp)         /startup, /faults, /cluster/autoscaler
//   (scenario.cpp)         /step_model
//   read_duration_model    /workload/duration_model "derived"
//   check_zones, check_extended_resources, (initial_state), check_job_queues: what only the
//                          whole scenario can tell.
// Each reader reports bad input with fail(path, JSON pointer, why) (scenario_common.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "mltwin/io/scenario.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"

namespace mltwin::io::detail {

/// What the section readers of one training scenario share.
struct TrainingLoad {
  TrainingLoad(const std::string& p, nlohmann::json& d, const LoadOptions& o, LoadedScenario& lo, models::TrainingScenario& s,
               const ScenarioCatalog& c)
      : path(p), doc(d), opts(o), out(lo), sc(s), cat(c) {}
  const std::string& path;     ///< the scenario file: errors name it
  nlohmann::json& doc;         ///< after overrides and the expansion of referenced files
  const LoadOptions& opts;
  LoadedScenario& out;
  models::TrainingScenario& sc;
  const ScenarioCatalog& cat;
  /// NeuronCores per Neuron device of the cluster's Neuron node groups (set by read_cluster;
  /// 2 when it has none).
  int cores_per_device = 2;
  std::set<std::string> queue_names;  ///< the queues of /queues
  PriorityClasses classes;            ///< /priority_classes (with the manifests')

  // The section readers, members so that they read and fill the fields above by name.
  /// /cluster: read_node_groups, read_allocatable, read_daemonsets (scenario_cluster.cpp).
  void read_cluster();
  void read_node_groups();
  void read_allocatable();
  /// /cluster/nodes_from: kubectl Node objects, each a node group of its own (ObservedNode).
  void read_nodes_from();
  void read_daemonsets();
  /// /volcano, given whether it came from the scheduler ConfigMap; /queues; /lifecycle and
  /// /output (scenario.cpp).
  void read_scheduler(bool config_from_yaml);
  void read_queues();
  void read_lifecycle_and_output();
  /// /workload (scenario_workload.cpp).
  void read_workload();
  /// /workload/philly/copies: `copies` copies of the trace's queues and jobs (copy 0 the trace's
  /// own, copy i named -c<i>), for fleets `copies` times the trace's (bench/scale_bench.py).
  void replicate_philly(int copies);
  /// A TorchX named resource ("aws_trn1_32xlarge") as the pod requests TorchX writes for it, from
  /// the catalog's row; a ScenarioError at `where` for another name or a type not in the catalog.
  nlohmann::json torchx_named_resource(const std::string& file, const std::string& where, const std::string& name) const;
  /// /workload/duration_model "derived": each job's steps from the step model (read before).
  void read_duration_model();
  /// A multi-node job that uses EFA must be kept in one availability zone.
  void check_zones() const;
  /// A pod's extended resource must be offered by some node group.
  void check_extended_resources() const;
  /// Every job's queue exists and is a leaf.
  void check_job_queues() const;
};

}  // namespace mltwin::io::detail
