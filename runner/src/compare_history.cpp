// compare_history.cpp — runner::compare_history (see compare_history.hpp). Reads the history
// CSV with io::read_job_history and only the jobs table and run_meta of the database.
#include "mltwin/runner/compare_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/statistics/univariate_statistics.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "mltwin/io/anonymize.hpp"
#include "mltwin/io/job_history.hpp"
#include "mltwin/store/sqlite_store.hpp"

namespace mltwin::runner {

namespace detail {

double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto rank = static_cast<std::size_t>(std::ceil(p * n));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const auto na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  // Walk the pooled values in order; after every value x (all its copies in both samples),
  // F_a(x) = i / na and F_b(x) = j / nb.
  while (i < a.size() || j < b.size()) {
    const double x = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

}  // namespace detail

namespace {

constexpr double kNsPerS = 1e9;

WaitStats stats_of(std::vector<double> v) {
  WaitStats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.p50 = boost::math::statistics::median(v.begin(), v.end());
  s.p90 = detail::nearest_rank(v, 0.90);
  s.p99 = detail::nearest_rank(v, 0.99);
  s.max = v.back();
  return s;
}

/// "2h03m04s"-style duration of `s` seconds (sign kept), or "12.5 s" under a minute.
std::string dur(double s) {
  const char* sign = s < 0 ? "-" : "";
  double a = std::fabs(s);
  if (a < 60) return fmt::format("{}{:.3g} s", sign, a);
  auto total = static_cast<std::int64_t>(std::llround(a));
  const std::int64_t d = total / 86400, h = (total % 86400) / 3600, m = (total % 3600) / 60, sec = total % 60;
  if (d > 0) return fmt::format("{}{}d {:02}h{:02}m", sign, d, h, m);
  if (h > 0) return fmt::format("{}{}h{:02}m{:02}s", sign, h, m, sec);
  return fmt::format("{}{}m{:02}s", sign, m, sec);
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json wait_json(const WaitStats& w) {
  return {{"n", w.n}, {"mean_s", w.mean}, {"p50_s", w.p50}, {"p90_s", w.p90}, {"p99_s", w.p99}, {"max_s", w.max}};
}

}  // namespace

HistoryComparison compare_history(const std::string& history, const std::string& database, const std::string& name_map) {
  const io::JobHistory hist = io::read_job_history(history);
  const store::ResultTable kind = store::query_file(database, "SELECT value FROM run_meta WHERE key = 'run_kind'");
  if (kind.rows == 1 && kind.columns.at(0).text_at(0) != "training")
    throw std::runtime_error("results database '" + database + "' is an inference run's; compare needs a training run of the history");
  // The run must be of this history when it was of one: its inputs hold each file's SHA-256.
  const store::ResultTable inputs = store::query_file(database, "SELECT path, sha256 FROM inputs WHERE role = 'job_history'");
  const std::string digest = store::hash_input_file("job_history", history).sha256;
  bool same = false;
  for (std::size_t r = 0; r < inputs.rows; ++r) same = same || inputs.columns.at(1).text_at(r) == digest;
  if (inputs.rows > 0 && !same)
    throw std::invalid_argument("the run " + database + " replayed another job history (" + inputs.columns.at(0).text_at(0) + ", SHA-256 " +
                                inputs.columns.at(1).text_at(0).substr(0, 12) + "...) than " + history + " (SHA-256 " + digest.substr(0, 12) +
                                "...): compare a run with the history it replayed");
  // An anonymized run names its jobs job-1, ...: its name map says which is which.
  const store::ResultTable anon = store::query_file(database, "SELECT value FROM run_meta WHERE key = 'anonymized'");
  std::map<std::string, std::string> alias_of;  // real name -> alias
  if (anon.rows == 1) {
    if (name_map.empty())
      throw std::invalid_argument("the run " + database + " was anonymized (mltwin run --anonymize): its jobs are job-1, job-2, ...; give its name map "
                                  "(--name-map, the .names.json file written beside the database) to match them with the history's");
    const std::string want = nlohmann::json::parse(anon.columns.at(0).text_at(0)).value("name_map_sha256", "");
    const std::string got = store::hash_input_file("name_map", name_map).sha256;
    if (got != want)
      throw std::invalid_argument("name map " + name_map + " (SHA-256 " + got.substr(0, 12) + "...) is not the one the run " + database +
                                  " wrote (SHA-256 " + want.substr(0, 12) + "..., run_meta 'anonymized')");
    alias_of = io::NameMap::read(name_map).jobs;
  } else if (!name_map.empty()) {
    throw std::invalid_argument("name map " + name_map + ": the run " + database + " was not anonymized (run_meta has no 'anonymized'): its jobs have their real names");
  }
  const store::ResultTable jobs = store::query_file(database, "SELECT name, submit_ns, start_ns FROM jobs");
  struct Twin {
    double submit_s;
    std::optional<double> start_s;
  };
  std::map<std::string, Twin, std::less<>> twin;
  for (std::size_t r = 0; r < jobs.rows; ++r) {
    const auto start = jobs.columns.at(2).int_at(r);
    twin[jobs.columns.at(0).text_at(r)] = {static_cast<double>(jobs.columns.at(1).int_at(r).value_or(0)) / kNsPerS,
                                           start ? std::optional<double>(static_cast<double>(*start) / kNsPerS) : std::nullopt};
  }

  HistoryComparison c;
  c.run_of_this_history = same;
  c.history = history;
  c.database = database;
  std::vector<double> errors, abs_errors, actual_wait, predicted_wait;
  for (const io::HistoryJob& h : hist.jobs) {
    ComparedJob j;
    j.name = h.name;
    j.submit_s = static_cast<double>(h.submit_ns - hist.t0_ns) / kNsPerS;
    if (h.start_ns) j.actual_start_s = static_cast<double>(*h.start_ns - hist.t0_ns) / kNsPerS;
    const auto alias = alias_of.find(h.name);
    if (auto it = twin.find(alias == alias_of.end() ? h.name : alias->second); it != twin.end()) {
      j.in_run = true;
      j.predicted_start_s = it->second.start_s;
    }
    if (!j.in_run) ++c.not_in_run;
    else if (j.actual_start_s && !j.predicted_start_s) ++c.started_only_in_history;
    else if (!j.actual_start_s && j.predicted_start_s) ++c.started_only_in_twin;
    if (const auto e = j.error_s()) {
      ++c.compared;
      errors.push_back(*e);
      abs_errors.push_back(std::fabs(*e));
      actual_wait.push_back(*j.actual_start_s - j.submit_s);
      predicted_wait.push_back(*j.predicted_start_s - j.submit_s);
    }
    c.jobs.push_back(std::move(j));
  }
  if (c.compared == 0)
    throw std::invalid_argument(fmt::format(
        "nothing to compare: of the {} jobs of {}, none started both in the history (a start_time) and in the run {} "
        "(jobs.start_ns); {} are not in the run at all (is it a run of this history, workload.history?)",
        hist.jobs.size(), history, database, c.not_in_run));
  c.mdae_s = boost::math::statistics::median(abs_errors.begin(), abs_errors.end());
  c.bias_s = std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
  c.ks_wait = detail::ks_distance(actual_wait, predicted_wait);
  c.actual_wait = stats_of(actual_wait);
  c.predicted_wait = stats_of(predicted_wait);
  return c;
}

nlohmann::json HistoryComparison::to_json() const {
  nlohmann::json js = nlohmann::json::array();
  for (const ComparedJob& j : jobs)
    js.push_back({{"name", j.name}, {"submit_s", j.submit_s}, {"in_run", j.in_run}, {"actual_start_s", opt(j.actual_start_s)},
                  {"predicted_start_s", opt(j.predicted_start_s)}, {"error_s", opt(j.error_s())}});
  return {{"history", history},
          {"database", database},
          {"jobs_in_history", jobs.size()},
          {"compared", compared},
          {"run_of_this_history", run_of_this_history},
          {"not_in_run", not_in_run},
          {"started_only_in_history", started_only_in_history},
          {"started_only_in_twin", started_only_in_twin},
          {"start_error", {{"median_absolute_s", mdae_s}, {"mean_s", bias_s}}},
          {"queueing_wait", {{"actual", wait_json(actual_wait)}, {"predicted", wait_json(predicted_wait)}, {"ks_distance", ks_wait}}},
          {"jobs", js}};
}

std::string HistoryComparison::report(std::size_t worst) const {
  std::string out = fmt::format("{} ({} jobs) against {}:\n", history, jobs.size(), database);
  if (!run_of_this_history)
    out += "  note: the run's inputs hold no job history: it replayed something else (inline jobs, pods_from); jobs are matched by name\n";
  out += fmt::format("  compared: {} jobs that started in the history (start_time) and in the twin (jobs.start_ns)\n", compared);
  const std::size_t never = static_cast<std::size_t>(std::count_if(jobs.begin(), jobs.end(), [](const ComparedJob& j) {
    return j.in_run && !j.actual_start_s && !j.predicted_start_s;
  }));
  out += fmt::format("  not compared: {} not in the run, {} started in the history only, {} in the twin only, {} in neither\n",
                     not_in_run, started_only_in_history, started_only_in_twin, never);
  out += "Start time, predicted - actual:\n";
  out += fmt::format("  median absolute error  {} ({:.1f} s)\n", dur(mdae_s), mdae_s);
  out += fmt::format("  mean error (bias)      {} ({:+.1f} s; positive: the twin starts jobs later)\n", dur(bias_s), bias_s);
  out += "Queueing wait, start - submit:\n";
  out += fmt::format("  {:<10}{:>14}{:>14}\n", "", "actual", "predicted");
  auto row = [&](const char* what, double a, double p) { out += fmt::format("  {:<10}{:>14}{:>14}\n", what, dur(a), dur(p)); };
  row("mean", actual_wait.mean, predicted_wait.mean);
  row("p50", actual_wait.p50, predicted_wait.p50);
  row("p90", actual_wait.p90, predicted_wait.p90);
  row("p99", actual_wait.p99, predicted_wait.p99);
  row("max", actual_wait.max, predicted_wait.max);
  out += fmt::format("  KS distance of the two distributions: {:.3f} (0: the same, 1: disjoint)\n", ks_wait);
  std::vector<const ComparedJob*> by_error;
  for (const ComparedJob& j : jobs)
    if (j.error_s()) by_error.push_back(&j);
  std::stable_sort(by_error.begin(), by_error.end(),
                   [](const ComparedJob* a, const ComparedJob* b) { return std::fabs(*a->error_s()) > std::fabs(*b->error_s()); });
  if (by_error.size() > worst) by_error.resize(worst);
  out += fmt::format("The {} largest errors (times since the history's first submit_time):\n", by_error.size());
  out += fmt::format("  {:<28}{:>14}{:>16}{:>18}{:>14}\n", "job", "submit", "actual start", "predicted start", "error");
  for (const ComparedJob* j : by_error)
    out += fmt::format("  {:<28}{:>14}{:>16}{:>18}{:>14}\n", j->name, dur(j->submit_s), dur(*j->actual_start_s),
                       dur(*j->predicted_start_s), dur(*j->error_s()));
  return out;
}

}  // namespace mltwin::runner
