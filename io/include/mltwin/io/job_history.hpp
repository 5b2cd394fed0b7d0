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
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  std::int64_t line = 0;                 ///< the row's line in the file (1 = the header)
  std::int64_t submit_ns = 0;            ///< since the Unix epoch (UTC), ns
  std::optional<std::int64_t> start_ns;  ///< since the Unix epoch (UTC), ns
  std::optional<std::int64_t> end_ns;    ///< since the Unix epoch (UTC), ns
  int min_available = 0;                 ///< spec.minAvailable; 0: absent (the tasks' summed)
  std::vector<HistoryTask> tasks;
  /// The run time, end - start in ns, for a job that ended (Completed, Failed); else nullopt.
  std::optional<std::int64_t> run_ns() const {
    if (start_ns && end_ns) return *end_ns - *start_ns;
    return std::nullopt;
  }
};

struct JobHistory {
  std::vector<HistoryJob> jobs;  ///< in file order
  std::int64_t t0_ns = 0;        ///< the earliest submit_time (ns since the epoch): t = 0
};

/// Parses an RFC 3339 date-time (section 5.6: YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm);
/// 't', 'z' and, as the RFC's note allows, a space for 'T' accepted) to ns since the Unix epoch,
/// via Howard Hinnant's date library. Returns nullopt and sets `why` if it is not one.
std::optional<std::int64_t> parse_rfc3339(const std::string& text, std::string& why);

/// Reads and checks the file (the header, every row; names unique within a namespace).
/// Throws ScenarioError "FILE:LINE: column C: ...". Queues and priority classes are checked
/// against the scenario by its loader.
JobHistory read_job_history(const std::string& path);

}  // namespace mltwin::io
