// mltwin/io/philly.hpp — the Microsoft Philly trace (Jeon et al., USENIX ATC'19; the
// petuum/adaptdl osdi21-artifact excerpt, 82,247 jobs) as TorchX DDP jobs on Trainium.
//
// Columns: timestamp (submit, "YYYY-MM-DD HH:MM:SS", UTC; rows are not sorted), duration (s),
// num_gpus, gpu_time, cluster (virtual-cluster hash). Jobs are sorted by submit time (ties
// keep file order) and time starts at the earliest submit (t = 0).
//
// Mapping (every figure from the scenario's `mapping`):
//   devices = num_gpus × neuron_devices_per_gpu
//   devices <= devices_per_node: one pod with that many devices; cpu and memory =
//     pod_per_device × devices; no EFA (the job stays inside one node)
//   devices >  devices_per_node: nnodes = ceil(devices / devices_per_node) pods with
//     devices / nnodes devices each (24 -> 2 × 12; a count that does not split evenly is an
//     error naming the line); a pod with a whole node's devices requests pod_whole_node, a
//     partial one pod_per_device × devices plus pod_whole_node's EFA interfaces
//   nproc_per_node = devices per pod × NeuronCores per device × processes_per_neuroncore
//   queue = queue_prefix + cluster
#pragma once
#include <string>
#include <vector>

#include "mltwin/models/training.hpp"

namespace mltwin::io {

struct PhillyMapping {
  double neuron_devices_per_gpu = 1;
  int devices_per_node = 16;
  int neuroncores_per_device = 2;
  int processes_per_neuroncore = 1;
  double per_device_cpu = 0, per_device_memory_bytes = 0;
  double whole_cpu = 0, whole_memory_bytes = 0;
  int whole_efa = 0;
  std::string queue_prefix = "vc-";
  int priority = 0;
  std::size_t max_jobs = 0;  ///< 0 = all
};

/// Reads the trace and maps it. Throws ScenarioError ("file:line: column: what") on bad rows.
std::vector<models::TrainingJobSpec> read_philly(const std::string& path, const PhillyMapping& m);

}  // namespace mltwin::io
