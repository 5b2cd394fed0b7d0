// mltwin/io/run_estimate.hpp — how much memory and disk a run of a loaded scenario will take,
// estimated before the model is built, and the limits beyond which the CLI refuses to start it
// without --force (docs/limits.md).
//
// The estimate is a sum of per-object costs measured on this code (docs/limits.md gives each
// measurement): a base, the scenario document, and per node, job, pod and metrics sample
// (training) or per instance, instance × model, model, Locust user, request record and metrics
// period (inference), and SQLite's page cache. It aims at the right order of magnitude (the
// measured runs' memory comes within 15 %, their databases within 50 %, mostly above),
// which is what telling a run that fits from one that cannot needs: the cases it exists
// for (10^7 instances, 10^9 Locust users, a metrics interval of 1 ns) are thousands of times over.
#pragma once
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/scenario.hpp"

namespace mltwin::io {

struct RunEstimate {
  double memory_bytes = 0;    ///< peak resident memory of the process
  double database_bytes = 0;  ///< the results database when the run ends
  double span_s = 0;          ///< the simulated time the estimate covers (the run's end or --until)
  // What it is made of. Training:
  double nodes = 0;           ///< nodes ever in the cluster (max_size with an autoscaler, plus scheduled failures' replacements)
  double jobs = 0, pods = 0;  ///< pods: the jobs' replicas, summed
  double metric_samples = 0;  ///< cluster_metrics rows (span / metrics_interval)
  // Inference:
  double instances = 0;       ///< the most instances at once (max_instances with autoscaling)
  double models = 0, users = 0;
  double requests = 0;        ///< requests the traffic sends within the span
  double metric_periods = 0;  ///< endpoint_metrics rows (span / metrics_period)
  /// The terms, largest first: "40,000 nodes x 1 KB = 40 MB; ..." for memory and the database.
  std::string memory_terms, database_terms;
};

/// The limits a run must stay within to start without --force. Defaults: memory, the machine's
/// physical memory (sysconf); the others documented in docs/limits.md, each well above real
/// fleets (a cluster of 5,000 nodes, 150,000 pods, an endpoint of 10^5 models run unrefused).
struct RunLimits {
  double memory_bytes = 0;                 ///< physical memory of this machine
  double database_bytes = 16e9;
  double nodes = 50'000;
  double pods = 10'000'000;                ///< over the whole run
  double instances = 100'000;
  double models = 1'000'000;
  double users = 1'000'000;
  double requests = 1e10;
  double metric_rows = 1e8;                ///< metrics samples or periods: each is an event
  /// The defaults, memory from sysconf(_SC_PHYS_PAGES) x sysconf(_SC_PAGE_SIZE).
  static RunLimits for_this_machine();
};

/// The estimate of a run of `sc` that stops at `until` (Time::max(): when the workload ends).
RunEstimate estimate_run(const LoadedScenario& sc, core::Time until = core::Time::max());
RunEstimate estimate_run(const LoadedInferenceScenario& sc, core::Time until = core::Time::max());

/// Each limit the estimate exceeds, as a sentence ("about 480 GB of memory, more than this
/// machine's 23.4 GB of physical memory"); empty when the run may start.
std::vector<std::string> over_limits(const RunEstimate& e, const RunLimits& l);

/// One line: "about 251 MB of memory and a 82 MB database (82,247 jobs, 82,300 pods, 32 nodes,
/// 37,240 metrics samples over 129.2 d)".
std::string describe(const RunEstimate& e);

/// "16.2 GB", "952 MB", "4 KB" (powers of 1000, 3 significant digits).
std::string human_bytes(double bytes);

}  // namespace mltwin::io
