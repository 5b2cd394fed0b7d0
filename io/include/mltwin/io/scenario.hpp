// mltwin/io/scenario.hpp — reading a scenario file into a models::TrainingScenario.
//
// A scenario is JSON validated against scenarios/schema/scenario.schema.json (draft-07, every
// object closed: unknown keys are errors), of format version 2 ("schema_version": 2; a
// version-1 scenario is refused with the command that rewrites it, mltwin/io/catalog.hpp). Its
// node groups name instance types of the catalog that ships with mltwin, over which the
// scenario's /catalog/instance_types add or replace rows. Errors never crash or half-load: they throw
// ScenarioError, whose message names the file and the JSON path or CSV line and says what was
// expected, e.g.
//   scenarios/x.json: /queues/2/weight: Value is below minimum (expected an integer >= 1)
//   ../shared/data/training/philly/philly.csv:1045: num_gpus: expected an integer, got 'x'
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "mltwin/k8s/input.hpp"
#include "mltwin/k8s/manifests.hpp"
#include "mltwin/k8s/resources.hpp"
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/models/training.hpp"
#include "mltwin/policy/quantity.hpp"

namespace mltwin::io {

using ScenarioError = k8s::InputError;

/// Limits on what an input may hold (docs/limits.md). A scenario file, an eksctl config, a
/// scheduler ConfigMap or a manifest file may have at most kMaxScenarioFileBytes; a trace file
/// (CSV) at most kMaxTraceFileBytes. Inputs must be regular files.
inline constexpr std::uintmax_t kMaxScenarioFileBytes = k8s::kMaxConfigFileBytes;  // 64 MiB
inline constexpr std::uintmax_t kMaxTraceFileBytes = k8s::kMaxDataFileBytes;        // 4 GiB
/// Every time and duration a scenario or trace gives (submit times, durations, intervals,
/// waiting times, a trace's span) is at most this far from zero: 10 years of 365 days. Sums of
/// a few of them stay far inside the int64 nanosecond range (292 years); core::Time arithmetic
/// throws std::overflow_error rather than wrap if a run ever gets there.
inline constexpr core::Duration kMaxScenarioTime = core::Duration::ns(k8s::kMaxManifestDurationNs);
inline constexpr const char* kMaxScenarioTimeText = k8s::kMaxManifestDurationText;

/// The most nodes a training scenario's cluster may have (desired_capacity, or max_size with an
/// autoscaler, summed over its node groups): 200 times Kubernetes' documented 5,000-node limit.
/// Runs well below it may still be refused for their size (mltwin/io/run_estimate.hpp).
inline constexpr std::int64_t kMaxNodes = 1'000'000;
/// /initial_state places running jobs on clusters of at most this many nodes at t0.
inline constexpr std::int64_t kMaxInitialStateNodes = 100'000;
/// The most Neuron devices (or EFA interfaces) one pod may request.
inline constexpr int kMaxDevicesPerPod = 1024;


struct InputFileRef {
  std::string role;        ///< e.g. "philly_trace"
  std::string path;        ///< as resolved: the file that was opened
  std::string as_written;  ///< as written in the scenario, e.g. "${MLTWIN_DATA}/training/philly/philly.csv":
                           ///< the same wherever the run starts and wherever the data folder is
};

/// A workload read from a job history CSV (workload.history, mltwin/io/job_history.hpp): what
/// the run summary reports of it.
struct JobHistoryUse {
  std::string file;            ///< as the scenario wrote it
  std::size_t jobs = 0;        ///< rows (jobs) read, the skipped ones included
  std::size_t unfinished = 0;  ///< jobs replayed without end_time (Running + Pending): the model's run time
  std::size_t running = 0, pending = 0;
  /// unfinished_duration's model: "fixed", "median_finished" or "history_distribution"; empty
  /// if no job needed one.
  std::string model;
  double unfinished_s = 0;      ///< the mean run time it gave them, s
  double unfinished_min_s = 0;  ///< the shortest, s
  double unfinished_max_s = 0;  ///< the longest, s
  std::size_t from_jobs = 0;   ///< median_finished, history_distribution: the finished jobs read
  /// median_finished, history_distribution: Running jobs whose run time was conditional on the
  /// time they had run by `now` (the file's latest time), and of those the ones that had run
  /// longer than every finished job (twice their time run: the fallback rule).
  std::size_t conditional = 0, fallback = 0;
  std::string now;             ///< the time Running jobs' time run is measured to, RFC 3339
  std::uint64_t seed = 0;      ///< history_distribution: the run seed its draws used
  std::size_t skipped = 0;     ///< jobs the twin cannot model, left out (warnings)
  std::map<std::string, std::size_t> skipped_reasons;  ///< reason -> jobs
  std::size_t ended_unrun = 0; ///< a kubectl list's Jobs that ended without running: left out
  std::size_t pods_not_volcano = 0;  ///< a Prometheus export's pods of no Volcano Job: left out
  /// One line for the run summary, e.g. "Job history: h.csv, 12 jobs; 3 without end_time (2
  /// Running, 1 Pending) ran the fixed model's 2.0h (/workload/history/unfinished_duration)".
  std::string describe() const;
};

/// A cluster's pods and PodGroups read from kubectl (cluster.pods_from, docs/scenarios.md "Pods
/// and PodGroups from kubectl"): what the run summary reports of them.
struct PodsFromUse {
  std::size_t files = 0;
  std::string now;         ///< the export's time, RFC 3339
  std::string now_source;  ///< "/cluster/pods_from/now" or the newest timestamp read
  std::size_t running_jobs = 0;  ///< PodGroups placed at t0 (initial_state)
  std::size_t pending_jobs = 0;  ///< PodGroups submitted at 0s
  std::size_t admitted_jobs = 0; ///< of those, PodGroups already admitted: Inqueue at t0 (initial_state.admitted)
  std::size_t other_pods = 0;    ///< other schedulers' pods whose requests stay on their node
  std::size_t held_nodes = 0;    ///< the nodes they are on
  std::size_t ignored_finished = 0, ignored_deleting = 0;
  /// PodGroups whose pods have several shapes, not modelled (a warning each): a running one's
  /// pods hold their requests on their nodes, a pending one is left out.
  std::size_t unmodelled = 0;
  /// PodGroups without pods whose constraints came from their Volcano Job in the files.
  std::size_t constraints_from_job = 0;
  /// The duration model: "annotation", "fixed", "median_finished" or "history_distribution".
  std::string model;
  std::string key;    ///< annotation: its key
  std::string fixed;  ///< fixed: the duration as written; median_finished: the unconditional median, "N s"
  std::string history;        ///< median_finished, history_distribution: the job history, as written
  std::size_t from_jobs = 0;  ///< median_finished, history_distribution: its finished jobs
  /// median_finished, history_distribution: running jobs whose remaining time was conditional
  /// on the time they had run by now, and of those the ones past every finished run time.
  std::size_t conditional = 0, fallback = 0;
  std::uint64_t seed = 0;     ///< history_distribution: the run seed its draws used
  /// One line for the run summary and `mltwin validate`.
  std::string describe() const;
};

struct LoadedScenario {
  std::string path;            ///< the scenario file, as given
  nlohmann::json json;         ///< the document after overrides
  std::string name;
  std::uint64_t seed = 1;
  models::TrainingScenario training;
  std::vector<InputFileRef> inputs;  ///< data files read (hashed into the run metadata)
  std::string data_dir;        ///< what ${MLTWIN_DATA} expanded to (empty if unused)
  std::string catalog_path;    ///< the instance catalog file read (mltwin/io/catalog.hpp)
  /// What Volcano would accept and ignore, one line each with its place ("file:line:col: ..."
  /// or "scenario.json: /volcano/tiers/1/plugins/4/arguments/key: ..."): plugin arguments no
  /// plugin reads, arguments whose subject mltwin does not model. LoadOptions::strict makes
  /// the first an error.
  std::vector<std::string> warnings;
  /// Set when the workload came from a job history CSV (workload.history).
  std::optional<JobHistoryUse> history;
  /// Set when the cluster's pods came from kubectl (cluster.pods_from).
  std::optional<PodsFromUse> pods_from;
};

struct LoadOptions {
  /// JSON merge patch (RFC 7386) applied before validation, e.g. {"workload":{"philly":{"max_jobs":5000}}}.
  nlohmann::json overrides;
  /// Overrides $MLTWIN_DATA when non-empty.
  std::string data_dir;
  /// The instance catalog to read instead of the shipped one (--catalog); empty: $MLTWIN_CATALOG,
  /// else the shipped catalog (mltwin/io/catalog.hpp, find_catalog).
  std::string catalog_path;
  /// The scenario document itself, when it does not come from a file (e.g. a dict built in
  /// Python): the loaders then read no file, `path` names the scenario in error messages, and
  /// its folder anchors relative data paths and the search for shared/data.
  const nlohmann::json* document = nullptr;
  /// The run seed, when it is not the scenario's (`--seed`, a replication's): the seed of the
  /// draws a scenario makes while loading (the history_distribution duration model, RNG stream
  /// "history.run_time"). Unset: the scenario's `seed`.
  std::optional<std::uint64_t> seed;
  /// Warnings (LoadedScenario::warnings) are errors: the first is thrown as a ScenarioError.
  bool strict = false;
  /// Inference scenarios: serving policies chosen by the caller, an object {site: choice} (sites
  /// autoscaling, memory_cache, disk_cache, routing, instance_scaling; a choice as in the
  /// scenario's `policies` block: {"name": ..., "arguments": {...}}); each replaces the
  /// scenario's /policies/<site> whole, after `overrides`.
  nlohmann::json serving_policies;
};

/// Reads, patches, validates and builds a scenario (and reads its trace). Throws ScenarioError.
LoadedScenario load_scenario(const std::string& path, const LoadOptions& opts = {});

/// A quantity's text and value from a scenario's JSON value, exactly as the API server reads
/// it: the codec's rules (mltwin/k8s/resources.hpp).
using k8s::quantity_of;
using k8s::quantity_text;

/// A quantity as a plain number in the base unit (mltwin/k8s/resources.hpp).
using k8s::parse_quantity;

/// Resolves the data folder: `explicit_dir`, else $MLTWIN_DATA, else the first `shared/data`
/// folder found walking up from `start_dir`. Throws ScenarioError if none exists.
std::string resolve_data_dir(const std::string& explicit_dir, const std::string& start_dir);

}  // namespace mltwin::io
