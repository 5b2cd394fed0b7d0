// mltwin/runner/compare_history.hpp — how well the twin predicted what happened (issue 23,
// item 3; docs/compare.md): a cluster's job history (the CSV of docs/scenarios.md, "A job
// history from a CSV") against the results database of a run of that history
// (`workload.history`), job by job and as distributions.
//
// Definitions (docs/compare.md gives them with an example):
//   - times are seconds since the history's t0, its earliest submit_time (the run's t = 0);
//   - a job is compared when the history says it started (a start_time) and the twin started it
//     (jobs.start_ns: its last pod Running the first time), matched by name;
//   - start error e = predicted start - actual start (s); positive: the twin started it later;
//   - median absolute error (MdAE) = the median of |e| over the compared jobs;
//   - bias = the mean of e;
//   - queueing wait = start - submit (s), actual (the history's) and predicted (the twin's);
//   - KS distance = the two-sample Kolmogorov-Smirnov statistic of the waits: the largest
//     difference between the two empirical distribution functions, sup_x |F_actual(x) -
//     F_predicted(x)|, from 0 (the same distribution) to 1;
//   - quantiles: the empirical quantile at p of n sorted values is the value of rank ceil(p n)
//     (the nearest-rank method; the median is Boost.Math's, the mean of the middle two for even n).
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mltwin::runner {

/// One job of the history, and what the twin did with it.
struct ComparedJob {
  std::string name;
  double submit_s = 0;                   ///< since t0, s
  std::optional<double> actual_start_s;  ///< since t0, s; nullopt: never started in the history
  std::optional<double> predicted_start_s;  ///< since t0, s; nullopt: the twin never started it
  bool in_run = false;                   ///< the run has a job of this name
  /// predicted - actual start, s, when both started (to the ns both times are whole in).
  std::optional<double> error_s() const {
    if (actual_start_s && predicted_start_s) return std::round((*predicted_start_s - *actual_start_s) * 1e9) / 1e9;
    return std::nullopt;
  }
};

/// Quantiles of a sample of waits, s.
struct WaitStats {
  std::size_t n = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct HistoryComparison {
  std::string history, database;
  std::vector<ComparedJob> jobs;      ///< in the history's order
  std::size_t compared = 0;           ///< jobs with an actual and a predicted start
  /// Whether the run's inputs name this very history (role job_history, the same SHA-256);
  /// false: its inputs hold no job history (a run of inline jobs or of pods_from, say).
  bool run_of_this_history = false;
  std::size_t not_in_run = 0;         ///< history jobs the run does not have (e.g. cut by --max-jobs)
  std::size_t started_only_in_history = 0;  ///< started in the history, not (by its end) in the twin
  std::size_t started_only_in_twin = 0;     ///< never started in the history, started in the twin
  double mdae_s = 0;                  ///< median absolute start error, s
  double bias_s = 0;                  ///< mean start error, s
  double ks_wait = 0;                 ///< two-sample KS distance of the waits, [0, 1]
  WaitStats actual_wait, predicted_wait;
  /// The whole comparison as JSON (the figures above, and every job).
  nlohmann::json to_json() const;
  /// A report for a person: the definitions' figures, then the jobs with the largest errors.
  std::string report(std::size_t worst = 10) const;
};

/// Compares the job history at `history` (any form io::read_job_history reads) with the
/// training run's database at `database`. Throws io::ScenarioError for a bad history
/// (FILE:LINE: column C: ...), std::runtime_error if the database cannot be read or is not a
/// training run's, and std::invalid_argument if the run replayed another history (its inputs
/// hold a job_history of another SHA-256) or no job is in both with a start in each (nothing to
/// compare: the message says why).
/// An anonymized run (run_meta 'anonymized', mltwin run --anonymize) is compared through its
/// name map `name_map` (io::NameMap: the history's real job names to the run's aliases; the
/// report names the real jobs): std::invalid_argument without it, or with a map other than the
/// run's (its SHA-256 differs from the one run_meta records); io::ScenarioError for a file that
/// is not a name map. A run that was not anonymized refuses a map (std::invalid_argument).
HistoryComparison compare_history(const std::string& history, const std::string& database, const std::string& name_map = {});

namespace detail {
/// The two-sample Kolmogorov-Smirnov statistic sup_x |F_a(x) - F_b(x)| of two non-empty samples.
double ks_distance(std::vector<double> a, std::vector<double> b);
/// Nearest-rank quantile of a sorted non-empty sample: the value of rank ceil(p n), p in (0, 1].
double nearest_rank(const std::vector<double>& sorted, double p);
}  // namespace detail

}  // namespace mltwin::runner
