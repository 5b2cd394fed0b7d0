// mltwin/io/job_history.hpp — a cluster's job history as a CSV file (issue 23, item 2(b);
// docs/scenarios.md, "A job history from a CSV"): one row per Volcano Job, read as the
// workload of a training scenario (`workload.history`).
//
// A header row names the columns, in any order (names are case-sensitive, surrounding blanks
// ignored). Columns:
//   name            required; the Job's metadata.name (a DNS-1123 subdomain, <= 63 characters)
//   namespace       required; its metadata.namespace (empty cell: "default")
//   queue           required; spec.queue (empty cell: "default", as Volcano's webhook sets it)
//   priority_class  optional; spec.priorityClassName (empty: none)
//   submit_time     required; RFC 3339 date-time (creationTimestamp)
//   start_time      required column; RFC 3339, empty while the job never ran (Pending)
//   end_time        required column; RFC 3339, empty while the job has not ended (Running, Pending)
//   status          required; the Volcano Job phase: Completed, Failed, Running or Pending
//   tasks           required; NAME:REPLICAS[/MIN_AVAILABLE]:REQUESTS, several separated by ';',
//                   REQUESTS = RESOURCE=QUANTITY separated by ',' (Kubernetes quantities), e.g.
//                   "worker:4:cpu=8,memory=32Gi,aws.amazon.com/neuroncore=32" (quoted in the
//                   CSV: it holds commas)
//   min_available   optional; spec.minAvailable (empty: the tasks' minAvailable summed)
// Any other column is an error naming it. Fields may be double-quoted ("" inside for a quote).
//
// Times are read as nanoseconds since the Unix epoch (UTC); submit times become offsets from
// the earliest submit_time in the file (t = 0). Every problem is a ScenarioError
// "FILE:LINE: column C: what is wrong".
//
// The same history from the cluster itself: what `kubectl get vcjob -A -o yaml` (or -o json)
// prints, a List of Volcano Jobs (batch.volcano.sh/v1alpha1) with their metadata and status,
// read by k8s::read_manifests. Each Job is a row: name, namespace, spec.queue,
// spec.priorityClassName, spec.tasks (each task's pod requests) and spec.minAvailable as its
// manifest gives them (webhook defaults applied); submit_time = metadata.creationTimestamp;
// start_time = the lastTransitionTime of its first Running condition (status.conditions: the
// job controller appends one for every phase it enters, job_controller_actions.go
// newCondition, Volcano v1.12.1); end_time = that of the condition of its final phase (else
// status.state.lastTransitionTime); status from status.state.phase: Completed; Failed, Aborted,
// Terminated -> Failed; Running, Restarting, Completing, Aborting, Terminating -> Running;
// Pending -> Pending. A Job that ended without ever running (Aborted while Pending) used no
// node: it is left out and counted (JobHistory::ended_unrun). Problems name the file, line,
// column and JSON path of the Job.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mltwin/core/rng.hpp"

namespace mltwin::io {

/// One task of a history row.
struct HistoryTask {
  std::string name;
  int replicas = 0;                  ///< pods, >= 1
  std::optional<int> min_available;  ///< the task's minAvailable (absent: replicas, Volcano's default)
  nlohmann::json requests;           ///< one pod's requests: {resource name: quantity text}
};

/// One row: a Volcano Job of the history.
struct HistoryJob {
  std::string name, ns, queue, priority_class;
  std::string status;                    ///< Completed, Failed, Running or Pending
  std::int64_t line = 0;                 ///< the row's line in the file (1 = the header); a Job's first line
  /// Where the job is written: "FILE:LINE" for a CSV row, "FILE:LINE:COLUMN: items[N]" for a
  /// Job of a kubectl list.
  std::string at;
  bool from_kubectl = false;             ///< a Job of a kubectl list, not a CSV row
  bool from_prometheus = false;          ///< a Job gathered from a Prometheus export's pod series
  /// The place of one of its values for an error message: "FILE:LINE: column C" for a CSV row;
  /// for a Job, its place and the field that holds C (e.g. "spec.queue").
  std::string where(const std::string& column) const;
  std::int64_t submit_ns = 0;            ///< since the Unix epoch (UTC), ns
  std::optional<std::int64_t> start_ns;  ///< since the Unix epoch (UTC), ns
  std::optional<std::int64_t> end_ns;    ///< since the Unix epoch (UTC), ns
  int min_available = 0;                 ///< spec.minAvailable; 0: absent (the tasks' summed)
  std::vector<HistoryTask> tasks;
  /// The Job's own pod constraints, in the scenario's job shape (`node_selector`,
  /// `node_affinity`, `tolerations`): a Volcano Job's pod template's (kubectl lists); empty
  /// for CSV rows and Prometheus exports, which `workload.history`'s own keys then give.
  nlohmann::json constraints = nlohmann::json::object();
  /// Why the twin cannot model this Job (empty: it can), e.g. tasks of different pod shapes:
  /// workload.history skips it, counts it with this reason in the summary and warns (an error
  /// with --strict); its run time, if it ended, still counts among the finished run times.
  std::string unmodelled;
  /// The run time, end - start in ns, for a job that ended (Completed, Failed); else nullopt.
  std::optional<std::int64_t> run_ns() const {
    if (start_ns && end_ns) return *end_ns - *start_ns;
    return std::nullopt;
  }
};

struct JobHistory {
  std::vector<HistoryJob> jobs;  ///< in file order
  std::int64_t t0_ns = 0;        ///< the earliest submit_time (ns since the epoch): t = 0
  std::size_t ended_unrun = 0;   ///< kubectl lists: Jobs that ended without running, left out
  std::size_t pods_not_volcano = 0;  ///< Prometheus exports: pods without Volcano's job label, left out
  /// Prometheus exports: the latest sample's time (ns since the epoch): the series were
  /// scraped until then, later than any time a pod recorded while Running ones ran on.
  std::optional<std::int64_t> recorded_until_ns;
};

/// The finished run times of a history (end - start of its Completed and Failed jobs, ns),
/// sorted ascending: what the duration models median_finished and history_distribution read.
std::vector<std::int64_t> finished_run_times(const JobHistory& h);

/// The latest time a history records (any submit_time, start_time or end_time, or a Prometheus
/// export's latest sample, ns since the epoch): the export was made at or after it, so a Running
/// job has run at least this less its start_time (workload.history's time run).
std::int64_t latest_time(const JobHistory& h);

/// A run time given by a duration model to one job, and how it was found.
struct ModelRunTime {
  std::int64_t ns = 0;    ///< the whole run time (>= elapsed), ns
  std::size_t from = 0;   ///< the finished run times it came from (those longer than elapsed)
  bool fallback = false;  ///< no finished job ran longer than elapsed: twice the elapsed time
};

/// The median_finished model (docs/scenarios.md, "Duration models"): the run time of a job
/// that has already run `elapsed` ns (nullopt: not started, every finished run time counts) is
/// the median of the finished run times longer than `elapsed` (`sorted`: ascending; the middle
/// one, or the mean of the two middle ones rounded down to 1 ns) — the median of the empirical
/// distribution conditional on the job still running at `elapsed`. When no finished job ran
/// longer (the sample says nothing past its maximum), the rule of thumb that a job is as likely
/// to be less than half done as more (Gott's delta-t argument, Nature 363:315, 1993: median
/// remaining = time already run) gives 2 * elapsed, flagged `fallback`. `sorted` is not empty.
ModelRunTime conditional_median(const std::vector<std::int64_t>& sorted, std::optional<std::int64_t> elapsed);

/// The history_distribution model: one draw, uniform over the finished run times longer than
/// `elapsed` (all when nullopt), i.e. from the empirical distribution conditional on still
/// running at `elapsed` (each of the n candidates with probability 1/n; ties count once each),
/// using boost::random::uniform_int_distribution on `rng` (the run's stream
/// "history.run_time", core/rng.hpp). The same fallback as conditional_median, with no draw.
ModelRunTime conditional_draw(const std::vector<std::int64_t>& sorted, std::optional<std::int64_t> elapsed, core::Engine& rng);

/// The RNG stream the history_distribution model draws from (core::RngStreams).
inline constexpr const char* kHistoryRunTimeStream = "history.run_time";

/// Whether the file at `path` is a job history rather than a scenario: a CSV whose first line
/// names the columns submit_time and tasks, a Prometheus query_range answer, or a kubectl list
/// of Volcano Jobs (batch.volcano.sh) without schema_version and without a Pod, PodGroup or Node
/// object (in its first 64 KiB). For `mltwin validate FILE`.
bool looks_like_job_history(const std::string& path);

/// What `mltwin validate HISTORY` prints of a history read on its own: jobs, finished (Completed,
/// Failed), Running, Pending, the jobs the twin would skip with their reasons, the finished run
/// times' median and range. Queues and PriorityClasses need a scenario: not checked.
std::string describe_history(const std::string& path, const JobHistory& h);

/// Parses an RFC 3339 date-time (section 5.6: YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm);
/// 't', 'z' and, as the RFC's note allows, a space for 'T' accepted) to ns since the Unix epoch,
/// via Howard Hinnant's date library. Returns nullopt and sets `why` if it is not one.
std::optional<std::int64_t> parse_rfc3339(const std::string& text, std::string& why);

/// Reads and checks the file (the header, every row; names unique within a namespace): a CSV,
/// or a kubectl List of Volcano Jobs (a file whose first text is '{', '[', `apiVersion:`,
/// `kind:`, `items:` or `---`). Throws ScenarioError "FILE:LINE: column C: ..." (a kubectl
/// list: "FILE:LINE:COLUMN: PATH: ..."). Queues and priority classes are checked against the
/// scenario by its loader.
JobHistory read_job_history(const std::string& path);

}  // namespace mltwin::io
