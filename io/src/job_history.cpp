// job_history.cpp — a job history CSV (mltwin/io/job_history.hpp) and its expansion into a
// training scenario's /workload/jobs (workload.history; docs/scenarios.md, "A job history from
// a CSV").
#include "mltwin/io/job_history.hpp"

// csv.h (Fast C++ CSV Parser) trips GCC 12's -Wstringop-truncation in its error helper.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <date/date.h>

#include <boost/random/uniform_int_distribution.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "mltwin/io/scenario.hpp"
#include "mltwin/k8s/input.hpp"
#include "mltwin/k8s/manifests.hpp"
#include "mltwin/k8s/resources.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/k8s/validation.hpp"
#include "history_prometheus.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"

namespace mltwin::io {

namespace {

constexpr const char* kStatuses[] = {"Completed", "Failed", "Running", "Pending"};

bool digits(const std::string& s, std::size_t from, std::size_t n) {
  if (from + n > s.size()) return false;
  for (std::size_t i = from; i < from + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

[[noreturn]] void row_fail(const std::string& path, std::int64_t line, const std::string& column, const std::string& what) {
  throw ScenarioError(path + ":" + std::to_string(line) + ": column " + column + ": " + what);
}

/// A decimal integer in [lo, hi]; nullopt if the text is not one.
std::optional<long long> integer_of(const std::string& s, long long lo, long long hi) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (std::size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return std::nullopt;
  const long long v = std::stoll(s);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// The tasks column: NAME:REPLICAS[/MIN_AVAILABLE]:REQUESTS;...
std::vector<HistoryTask> tasks_of(const std::string& path, std::int64_t line, const std::string& text) {
  const std::string col = "tasks";
  const std::string form = " (expected NAME:REPLICAS[/MIN_AVAILABLE]:RESOURCE=QUANTITY,..., several separated by ';', e.g. "
                           "worker:4:cpu=8,memory=32Gi,aws.amazon.com/neuroncore=32)";
  if (trim(text).empty()) row_fail(path, line, col, "empty: a job has at least one task" + form);
  std::vector<HistoryTask> tasks;
  std::set<std::string> names;
  for (const std::string& raw : split(text, ';')) {
    const std::string t = trim(raw);
    if (t.empty()) row_fail(path, line, col, "an empty task between ';'" + form);
    const std::vector<std::string> parts = split(t, ':');
    if (parts.size() != 3)
      row_fail(path, line, col, "'" + detail::printable(t) + "' has " + std::to_string(parts.size()) + " ':'-separated part(s), not 3" + form);
    HistoryTask task;
    task.name = trim(parts[0]);
    if (std::string p = k8s::object_name_problem(task.name, "task"); !p.empty()) row_fail(path, line, col, p);
    if (!names.insert(task.name).second) row_fail(path, line, col, "task name '" + task.name + "' appears twice");
    const std::string count = trim(parts[1]);
    const std::size_t slash = count.find('/');
    const auto replicas = integer_of(count.substr(0, slash), 1, 1'000'000);
    if (!replicas)
      row_fail(path, line, col, "task '" + task.name + "': replicas '" + detail::printable(count.substr(0, slash)) +
                                    "' is not an integer from 1 to 1000000");
    task.replicas = static_cast<int>(*replicas);
    if (slash != std::string::npos) {
      const auto m = integer_of(count.substr(slash + 1), -1'000'000, 1'000'000);
      if (!m)
        row_fail(path, line, col, "task '" + task.name + "': minAvailable '" + detail::printable(count.substr(slash + 1)) +
                                      "' is not an integer");
      // Volcano's validating webhook (admit_job.go validateJobCreate), its messages.
      if (*m < 0) row_fail(path, line, col, "'minAvailable' < 0 in task: " + task.name + " (Volcano's job admission webhook)");
      if (*m > task.replicas)
        row_fail(path, line, col, "'minAvailable' is greater than 'replicas' in task: " + task.name + " (Volcano's job admission webhook)");
      task.min_available = static_cast<int>(*m);
    }
    task.requests = nlohmann::json::object();
    const std::string reqs = trim(parts[2]);
    if (reqs.empty()) row_fail(path, line, col, "task '" + task.name + "' requests nothing" + form);
    for (const std::string& r : split(reqs, ',')) {
      const std::string kv = trim(r);
      const std::size_t eq = kv.find('=');
      if (eq == std::string::npos)
        row_fail(path, line, col, "task '" + task.name + "': '" + detail::printable(kv) + "' is not RESOURCE=QUANTITY" + form);
      const std::string name = trim(kv.substr(0, eq)), qty = trim(kv.substr(eq + 1));
      if (task.requests.contains(name)) row_fail(path, line, col, "task '" + task.name + "' requests '" + detail::printable(name) + "' twice");
      task.requests[name] = qty;
    }
    // The quantities and names as the API server reads a pod's resources.requests.
    policy::Resource parsed;
    if (auto p = k8s::resource_list_problem(task.requests, parsed))
      row_fail(path, line, col, "task '" + task.name + "': " + detail::printable(p->field) + ": " + p->message);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339(const std::string& text, std::string& why) {
  // The shape first (RFC 3339 section 5.6 date-time), so that the date library's more lenient
  // parse (one-digit months, no offset) is not taken for it; then the calendar and the offset.
  std::string s = text;
  const char* expected = "expected an RFC 3339 date-time such as 2026-01-01T00:10:00Z or 2026-01-01T01:10:00.5+01:00";
  if (s.size() < 19 || !digits(s, 0, 4) || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' || !digits(s, 8, 2) ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2) || s[13] != ':' || !digits(s, 14, 2) || s[16] != ':' ||
      !digits(s, 17, 2)) {
    why = expected;
    return std::nullopt;
  }
  // Times are held in int64 nanoseconds since 1970 (up to 2262-04-11), and so are differences
  // between two of them: years 1970 to 2261 keep both in range.
  if (const int year = std::stoi(s.substr(0, 4)); year < 1970 || year > 2261) {
    why = "year " + s.substr(0, 4) + " is outside 1970-2261 (times are held in nanoseconds since 1970)";
    return std::nullopt;
  }
  s[10] = 'T';
  std::size_t i = 19;
  if (s[i] == '.') {
    const std::size_t f = ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == f || i - f > 9) {
      why = std::string(i == f ? "a '.' with no digits after it" : "more than 9 fractional digits (nanoseconds)") + "; " + expected;
      return std::nullopt;
    }
  }
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z') && i + 1 == s.size()) {
    s.replace(i, 1, "+00:00");
  } else if (!(i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && digits(s, i + 1, 2) && s[i + 3] == ':' && digits(s, i + 4, 2))) {
    why = "no UTC offset (Z or +hh:mm) after the time, or something after it; " + std::string(expected);
    return std::nullopt;
  }
  if (std::stoi(s.substr(i + 1, 2)) > 23 || std::stoi(s.substr(i + 4, 2)) > 59) {
    why = "the UTC offset is out of range; " + std::string(expected);
    return std::nullopt;
  }
  std::istringstream in(s);
  date::sys_time<std::chrono::nanoseconds> tp;
  in >> date::parse("%Y-%m-%dT%H:%M:%S%Ez", tp);
  if (in.fail() || in.peek() != std::char_traits<char>::eof()) {
    why = "not a valid date and time (month 01-12, a day of that month, hour 00-23, minute and second 00-59); " + std::string(expected);
    return std::nullopt;
  }
  return tp.time_since_epoch().count();
}

namespace {
std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f s", s);
  return b;
}
std::string reasons_text(const std::map<std::string, std::size_t>& reasons) {
  std::string s;
  for (const auto& [why, n] : reasons) s += (s.empty() ? "" : "; ") + std::to_string(n) + " with " + why;
  return s;
}
}  // namespace

std::string JobHistoryUse::describe() const {
  std::string s = "Job history: " + file + ", " + std::to_string(jobs) + " job(s)";
  if (ended_unrun > 0) s += " (and " + std::to_string(ended_unrun) + " Job(s) that ended without running, left out)";
  if (pods_not_volcano > 0) s += " (and " + std::to_string(pods_not_volcano) + " pod(s) of no Volcano Job, left out)";
  if (skipped > 0) s += "; " + std::to_string(skipped) + " skipped, not modelled (" + reasons_text(skipped_reasons) + ")";
  if (unfinished == 0) return s + ", each running its end_time - start_time";
  s += "; " + std::to_string(unfinished) + " without end_time (" + std::to_string(running) + " Running, " + std::to_string(pending) +
       " Pending) ran ";
  s += unfinished_min_s == unfinished_max_s ? seconds_text(unfinished_s)
                                            : seconds_text(unfinished_min_s) + " to " + seconds_text(unfinished_max_s) + " (mean " +
                                                  seconds_text(unfinished_s) + ")";
  s += ", the unfinished_duration model '" + model + "'";
  if (model == "median_finished" || model == "history_distribution") {
    s += model == "median_finished" ? " (medians of " : " (drawn with seed " + std::to_string(seed) + ", stream " + kHistoryRunTimeStream + ", from ";
    s += std::to_string(from_jobs) + " finished job(s)";
    if (running > 0)
      s += "; " + std::to_string(conditional) + " Running conditional on their time run by " + now + ", " + std::to_string(fallback) +
           " of them past every finished run time: twice their time run";
    s += ")";
  }
  return s + "; the others their end_time - start_time";
}

std::vector<std::int64_t> finished_run_times(const JobHistory& h) {
  std::vector<std::int64_t> runs;
  for (const auto& j : h.jobs)
    if (j.run_ns()) runs.push_back(*j.run_ns());
  std::sort(runs.begin(), runs.end());
  return runs;
}

std::int64_t latest_time(const JobHistory& h) {
  std::int64_t t = h.t0_ns;
  for (const auto& j : h.jobs) t = std::max({t, j.submit_ns, j.start_ns.value_or(t), j.end_ns.value_or(t)});
  return std::max(t, h.recorded_until_ns.value_or(t));
}

namespace {
/// The candidates of a job that has run `elapsed`: [first, sorted.end()), the run times > elapsed.
std::size_t first_longer(const std::vector<std::int64_t>& sorted, std::optional<std::int64_t> elapsed) {
  if (!elapsed) return 0;
  return static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), *elapsed) - sorted.begin());
}
}  // namespace

ModelRunTime conditional_median(const std::vector<std::int64_t>& sorted, std::optional<std::int64_t> elapsed) {
  ModelRunTime r;
  const std::size_t b = first_longer(sorted, elapsed);
  r.from = sorted.size() - b;
  if (r.from == 0) {
    r.fallback = true;
    r.ns = 2 * elapsed.value_or(0);
    return r;
  }
  const std::size_t n = r.from, m = b + n / 2;
  // The middle run time, or the mean of the two middle ones (rounded down to 1 ns).
  r.ns = n % 2 ? sorted[m] : sorted[m - 1] + (sorted[m] - sorted[m - 1]) / 2;
  return r;
}

ModelRunTime conditional_draw(const std::vector<std::int64_t>& sorted, std::optional<std::int64_t> elapsed, core::Engine& rng) {
  ModelRunTime r;
  const std::size_t b = first_longer(sorted, elapsed);
  r.from = sorted.size() - b;
  if (r.from == 0) {
    r.fallback = true;
    r.ns = 2 * elapsed.value_or(0);
    return r;
  }
  boost::random::uniform_int_distribution<std::size_t> pick(b, sorted.size() - 1);
  r.ns = sorted[pick(rng)];
  return r;
}

std::string describe_history(const std::string& path, const JobHistory& h) {
  std::size_t finished = 0, running = 0, pending = 0;
  std::map<std::string, std::size_t> skipped;
  std::vector<std::string> skipped_at;
  for (const auto& j : h.jobs) {
    (j.run_ns() ? finished : j.status == "Running" ? running : pending) += 1;
    if (!j.unmodelled.empty()) {
      ++skipped[j.unmodelled];
      skipped_at.push_back(j.at + ": Job '" + j.name + "' (namespace " + j.ns + "): skipped: " + j.unmodelled);
    }
  }
  std::string s = path + ": a job history of " + std::to_string(h.jobs.size()) + " job(s): " + std::to_string(finished) +
                  " finished (Completed, Failed), " + std::to_string(running) + " Running, " + std::to_string(pending) + " Pending";
  if (h.ended_unrun > 0) s += "; " + std::to_string(h.ended_unrun) + " Job(s) that ended without running, left out";
  if (h.pods_not_volcano > 0) s += "; " + std::to_string(h.pods_not_volcano) + " pod(s) of no Volcano Job, left out";
  s += "; " + std::to_string(skipped_at.size()) + " the twin would skip" + (skipped.empty() ? "" : " (" + reasons_text(skipped) + ")") + "\n";
  for (const auto& line : skipped_at) s += "  " + line + "\n";
  const std::vector<std::int64_t> runs = finished_run_times(h);
  s += "  submitted from " + k8s::format_rfc3339(h.t0_ns) + "; latest time recorded " + k8s::format_rfc3339(latest_time(h)) + "\n";
  if (!runs.empty())
    s += "  finished run times: median " + seconds_text(static_cast<double>(conditional_median(runs, std::nullopt).ns) / 1e9) + ", from " +
         seconds_text(static_cast<double>(runs.front()) / 1e9) + " to " + seconds_text(static_cast<double>(runs.back()) / 1e9) + "\n";
  else
    s += "  no finished job: the duration models median_finished and history_distribution cannot use it\n";
  s += "  queues and PriorityClasses are checked against a scenario (workload.history): mltwin validate SCENARIO\n";
  return s;
}


std::string HistoryJob::where(const std::string& column) const {
  if (from_prometheus) {
    static const std::map<std::string, std::string> series = {
        {"queue", "label volcano.sh/queue-name"}, {"priority_class", "kube_pod_info's priority_class"},
        {"submit_time", "kube_pod_created"}, {"start_time", "kube_pod_start_time"}, {"end_time", "kube_pod_completion_time"},
        {"tasks", "kube_pod_container_resource_requests"}, {"name", "label volcano.sh/job-name"}};
    const auto it = series.find(column);
    return at + " (Job " + ns + "/" + name + ", " + (it == series.end() ? column : it->second) + ")";
  }
  if (!from_kubectl) return at + ": column " + column;
  static const std::map<std::string, std::string> field = {
      {"name", "metadata.name"}, {"namespace", "metadata.namespace"}, {"queue", "spec.queue"},
      {"priority_class", "spec.priorityClassName"}, {"submit_time", "metadata.creationTimestamp"},
      {"start_time", "status.conditions (Running)"}, {"end_time", "status.state"}, {"status", "status.state.phase"},
      {"tasks", "spec.tasks"}, {"min_available", "spec.minAvailable"}};
  const auto it = field.find(column);
  return at + " (Job " + ns + "/" + name + ", " + (it == field.end() ? column : it->second) + ")";
}

namespace {

/// What holds across the jobs, whichever file they came from: names unique across namespaces
/// (mltwin's jobs have none), t0 = the earliest submit, every submit within a scenario's span.
void check_history(const std::string& path, JobHistory& out) {
  std::map<std::string, const HistoryJob*> by_name;
  for (const HistoryJob& j : out.jobs)
    if (auto [it, fresh] = by_name.emplace(j.name, &j); !fresh)
      throw ScenarioError(j.where("name") + ": job '" + j.name + "' (namespace " + j.ns + ") is also at " + it->second->at +
                          " (namespace " + it->second->ns + "); job names must differ across namespaces too: mltwin's jobs have no namespace");
  const auto first = std::min_element(out.jobs.begin(), out.jobs.end(), [](const auto& a, const auto& b) { return a.submit_ns < b.submit_ns; });
  out.t0_ns = first->submit_ns;
  // mltwin's job of independent pods gives every pod the job's requests: a Job whose tasks ask
  // for different pod shapes is not modelled (workload.history skips it and says so).
  for (auto& j : out.jobs)
    for (std::size_t k = 1; k < j.tasks.size() && j.unmodelled.empty(); ++k)
      if (j.tasks[k].requests != j.tasks[0].requests)
        j.unmodelled = "tasks of different pod shapes (mltwin gives every pod of a job the same requests)";
  for (const auto& j : out.jobs)
    if (j.submit_ns - out.t0_ns > kMaxScenarioTime.count_ns())
      throw ScenarioError(j.where("submit_time") + ": the job is submitted " + std::to_string((j.submit_ns - out.t0_ns) / 1'000'000'000) +
                          " s after the first (" + first->at + "), beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
  (void)path;
}

/// Whether the file is a kubectl List (JSON or YAML) rather than a CSV: its first text.
bool looks_like_kubectl(const std::string& data) {
  std::size_t i = 0;
  for (;;) {  // skip blank lines and YAML comments
    i = data.find_first_not_of(" \t\r\n", i);
    if (i == std::string::npos) return false;
    if (data[i] != '#') break;
    i = data.find('\n', i);
    if (i == std::string::npos) return false;
  }
  if (data[i] == '{' || data[i] == '[') return true;
  for (const char* k : {"apiVersion:", "kind:", "items:", "metadata:", "---"})
    if (data.compare(i, std::strlen(k), k) == 0) return true;
  return false;
}

/// A kubectl List of Volcano Jobs as history rows (job_history.hpp says how each is read).
void read_kubectl_history(const std::string& path, JobHistory& out) {
  k8s::Manifests m;
  try {
    m = k8s::read_manifests(path);
  } catch (const k8s::InputError& e) {
    throw ScenarioError(e.what());
  }
  auto fail = [](const k8s::YamlPlace& at, const std::string& what) -> void { throw ScenarioError(at.str() + ": " + what); };
  if (!m.queues.empty()) fail(m.queues[0].at, "a Queue in a job history, which holds Volcano Jobs (kubectl get vcjob -A -o yaml)");
  if (!m.podgroups.empty()) fail(m.podgroups[0].at, "a PodGroup in a job history, which holds Volcano Jobs (kubectl get vcjob -A -o yaml)");
  if (!m.priority_classes.empty())
    fail(m.priority_classes[0].at, "a PriorityClass in a job history, which holds Volcano Jobs (kubectl get vcjob -A -o yaml)");
  if (m.jobs.empty()) throw ScenarioError(path + ": holds no Volcano Job (expected what `kubectl get vcjob -A -o yaml` prints)");
  for (const k8s::VolcanoJobManifest& v : m.jobs) {
    HistoryJob j;
    j.from_kubectl = true;
    j.line = v.at.line;
    j.at = v.at.str();
    j.name = v.name;
    j.ns = v.namespace_.empty() ? "default" : v.namespace_;
    j.queue = v.queue;
    j.priority_class = v.priority_class_name;
    j.min_available = v.min_available;
    std::string why;
    auto time_of = [&](const std::string& text, const k8s::YamlPlace& at, const char* what) {
      const auto t = parse_rfc3339(text, why);
      if (!t) fail(at, std::string(what) + " '" + detail::printable(text) + "': " + why);
      return *t;
    };
    if (v.creation_timestamp.empty())
      fail(v.creation_at, "Job " + j.ns + "/" + j.name + " has no metadata.creationTimestamp: a job history needs when each Job was "
                          "created (kubectl get vcjob -o yaml prints it; a manifest to submit has none)");
    j.submit_ns = time_of(v.creation_timestamp, v.creation_at, "metadata.creationTimestamp");
    if (v.phase.empty())
      fail(v.phase_at, "Job " + j.ns + "/" + j.name + " has no status.state.phase: a job history needs what became of each Job "
                       "(kubectl get vcjob -o yaml prints it; a manifest to submit has none)");
    static const std::set<std::string> ended = {"Completed", "Failed", "Aborted", "Terminated"};
    static const std::set<std::string> running = {"Running", "Restarting", "Completing", "Aborting", "Terminating"};
    if (!ended.count(v.phase) && !running.count(v.phase) && v.phase != "Pending")
      fail(v.phase_at, "'" + detail::printable(v.phase) +
                           "' is not a Volcano Job phase (Pending, Running, Restarting, Completing, Completed, Aborting, Aborted, "
                           "Terminating, Terminated, Failed)");
    for (const auto& c : v.conditions)
      if (c.status == "Running" && !c.last_transition_time.empty()) {
        j.start_ns = time_of(c.last_transition_time, c.at, "status.conditions[].lastTransitionTime");
        break;
      }
    if (!j.start_ns && v.phase == "Running" && !v.phase_time.empty())
      j.start_ns = time_of(v.phase_time, v.phase_at, "status.state.lastTransitionTime");
    if (ended.count(v.phase)) {
      if (!j.start_ns) {  // ended before it ever ran: no node was used
        ++out.ended_unrun;
        continue;
      }
      for (auto c = v.conditions.rbegin(); c != v.conditions.rend() && !j.end_ns; ++c)
        if (c->status == v.phase && !c->last_transition_time.empty())
          j.end_ns = time_of(c->last_transition_time, c->at, "status.conditions[].lastTransitionTime");
      if (!j.end_ns && !v.phase_time.empty()) j.end_ns = time_of(v.phase_time, v.phase_at, "status.state.lastTransitionTime");
      if (!j.end_ns)
        fail(v.phase_at, "Job " + j.ns + "/" + j.name + " is " + v.phase + " but says not when (no lastTransitionTime in "
                         "status.state or a " + v.phase + " condition)");
      j.status = v.phase == "Completed" ? "Completed" : "Failed";
    } else {
      j.status = j.start_ns ? "Running" : "Pending";  // a Restarting Job that never ran is still Pending here
    }
    if (j.start_ns && *j.start_ns < j.submit_ns)
      fail(v.at, "Job " + j.ns + "/" + j.name + " started (" + std::to_string((j.submit_ns - *j.start_ns) / 1'000'000'000) +
                     " s) before its creationTimestamp");
    if (j.end_ns && *j.end_ns < *j.start_ns) fail(v.phase_at, "Job " + j.ns + "/" + j.name + " ended before it started");
    if (j.run_ns() && *j.run_ns() > kMaxScenarioTime.count_ns())
      fail(v.phase_at, std::string("the job ran longer than the longest time a scenario may give, ") + kMaxScenarioTimeText);
    // The pod template's constraints (the first task's; the others must match, as for
    // workload.manifests: mltwin gives every pod of a job one set).
    if (!v.tasks.empty()) {
      const k8s::PodShape& pod = v.tasks.front().pod;
      if (!pod.node_selector.empty()) {
        nlohmann::json ns = nlohmann::json::object();
        for (const auto& [k, val] : pod.node_selector) ns[k] = val;
        j.constraints["node_selector"] = ns;
      }
      auto tolerations = [](const k8s::PodShape& p) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& x : p.tolerations) a.push_back(k8s::yaml::toleration_json(x));
        return a;
      };
      if (!pod.tolerations.empty()) j.constraints["tolerations"] = tolerations(pod);
      if (!pod.node_affinity.is_null()) j.constraints["node_affinity"] = pod.node_affinity;
      for (const k8s::VolcanoTask& t : v.tasks)
        if (j.unmodelled.empty() && (t.pod.node_selector != pod.node_selector || t.pod.node_affinity != pod.node_affinity ||
                                     tolerations(t.pod) != tolerations(pod)))
          j.unmodelled = "tasks with different nodeSelector, node affinity or tolerations (mltwin gives every pod of a job one set)";
    }
    for (const k8s::VolcanoTask& t : v.tasks) {
      HistoryTask task;
      task.name = t.name;
      task.replicas = t.replicas;
      task.min_available = t.min_available;
      task.requests = nlohmann::json::object();
      for (const auto& [name, qty] : t.pod.requests) task.requests[name] = qty;
      j.tasks.push_back(std::move(task));
    }
    out.jobs.push_back(std::move(j));
  }
  if (out.jobs.empty())
    throw ScenarioError(path + ": every Job in it ended without running (" + std::to_string(out.ended_unrun) + "): nothing to replay");
}

}  // namespace

JobHistory read_job_history(const std::string& path) {
  if (!std::ifstream(path, std::ios::binary)) throw ScenarioError(path + ": cannot open the job history");
  std::string data = detail::read_input_file(path, "job history", kMaxTraceFileBytes);
  JobHistory out;
  if (detail::looks_like_prometheus(data)) {
    detail::read_prometheus_history(path, data, out);
    check_history(path, out);
    return out;
  }
  if (looks_like_kubectl(data)) {
    read_kubectl_history(path, out);
    check_history(path, out);
    return out;
  }
  // A UTF-8 byte order mark (spreadsheet exports write one) is not part of the first column's name.
  if (data.rfind("\xEF\xBB\xBF", 0) == 0) data.erase(0, 3);
  // Blank lines at the end are not rows; end the last row with one newline.
  while (!data.empty() && (data.back() == '\n' || data.back() == '\r' || data.back() == ' ' || data.back() == '\t')) data.pop_back();
  if (data.empty()) throw ScenarioError(path + ":1: the job history is empty (expected a header row, then one row per job)");
  data.push_back('\n');
  std::map<std::pair<std::string, std::string>, std::int64_t> seen;  // (namespace, name) -> line
  std::map<std::string, std::pair<std::string, std::int64_t>> by_name;  // name -> (namespace, line)
  try {
    ::io::CSVReader<10, ::io::trim_chars<' ', '\t'>, ::io::double_quote_escape<',', '"'>> in(path, data.data(), data.data() + data.size());
    try {
      in.read_header(::io::ignore_missing_column, "name", "namespace", "queue", "priority_class", "submit_time", "start_time",
                     "end_time", "status", "tasks", "min_available");
    } catch (const ::io::error::extra_column_in_header& e) {
      throw ScenarioError(path + ":1: column " + detail::printable(e.column_name) +
                          ": not a column of a job history (columns: name, namespace, queue, priority_class, submit_time, "
                          "start_time, end_time, status, tasks, min_available)" +
                          detail::did_you_mean(e.column_name, {"name", "namespace", "queue", "priority_class", "submit_time", "start_time",
                                                               "end_time", "status", "tasks", "min_available"}));
    } catch (const ::io::error::duplicated_column_in_header& e) {
      throw ScenarioError(path + ":1: column " + detail::printable(e.column_name) + ": appears twice in the header");
    }
    for (const char* c : {"name", "namespace", "queue", "submit_time", "start_time", "end_time", "status", "tasks"})
      if (!in.has_column(c))
        throw ScenarioError(path + ":1: column " + c + ": missing from the header (required: name, namespace, queue, submit_time, " +
                            "start_time, end_time, status, tasks; optional: priority_class, min_available)");
    std::string name, ns, queue, pclass, submit, start, end, status, tasks, min_avail;
    for (;;) {
      name.clear(), ns.clear(), queue.clear(), pclass.clear(), submit.clear(), start.clear(), end.clear(), status.clear(), tasks.clear(),
          min_avail.clear();
      if (!in.read_row(name, ns, queue, pclass, submit, start, end, status, tasks, min_avail)) break;
      const std::int64_t line = in.get_file_line();
      HistoryJob j;
      j.line = line;
      j.at = path + ":" + std::to_string(line);
      // Text columns: no control characters (they would garble messages and results).
      for (const auto& [col, v] : {std::pair<const char*, std::string*>{"name", &name}, {"namespace", &ns}, {"queue", &queue},
                                   {"priority_class", &pclass}, {"status", &status}, {"tasks", &tasks}})
        if (std::string p = detail::control_character_problem(*v); !p.empty()) row_fail(path, line, col, p);
      if (name.empty()) row_fail(path, line, "name", "empty: every job has a name");
      if (std::string p = k8s::object_name_problem(name, "Job"); !p.empty()) row_fail(path, line, "name", p);
      j.name = name;
      j.ns = ns.empty() ? "default" : ns;
      if (std::string p = k8s::dns1123_label_problem(j.ns); !p.empty())
        row_fail(path, line, "namespace", "namespace " + p + " (a Kubernetes namespace is a DNS-1123 label)");
      j.queue = queue.empty() ? "default" : queue;
      j.priority_class = pclass;
      // Times.
      std::string why;
      if (submit.empty()) row_fail(path, line, "submit_time", "empty: every job has a submit time (RFC 3339)");
      const auto sub = parse_rfc3339(submit, why);
      if (!sub) row_fail(path, line, "submit_time", "'" + detail::printable(submit) + "': " + why);
      j.submit_ns = *sub;
      if (!start.empty()) {
        j.start_ns = parse_rfc3339(start, why);
        if (!j.start_ns) row_fail(path, line, "start_time", "'" + detail::printable(start) + "': " + why);
      }
      if (!end.empty()) {
        j.end_ns = parse_rfc3339(end, why);
        if (!j.end_ns) row_fail(path, line, "end_time", "'" + detail::printable(end) + "': " + why);
      }
      // The phase, and the times it implies.
      if (std::find(std::begin(kStatuses), std::end(kStatuses), status) == std::end(kStatuses))
        row_fail(path, line, "status",
                 "'" + detail::printable(status) + "' is not a job status read here (Completed, Failed, Running, Pending: Volcano Job phases)" +
                     detail::did_you_mean(status, {"Completed", "Failed", "Running", "Pending"}));
      j.status = status;
      const bool ended = status == "Completed" || status == "Failed", ran = ended || status == "Running";
      if (ran && !j.start_ns) row_fail(path, line, "start_time", "empty, but a " + status + " job has started");
      if (!ran && j.start_ns) row_fail(path, line, "start_time", "given, but a Pending job has not started (leave it empty)");
      if (ended && !j.end_ns) row_fail(path, line, "end_time", "empty, but a " + status + " job has ended");
      if (!ended && j.end_ns) row_fail(path, line, "end_time", "given, but a " + status + " job has not ended (leave it empty)");
      if (j.start_ns && *j.start_ns < j.submit_ns)
        row_fail(path, line, "start_time", "'" + start + "' is before the job's submit_time '" + submit + "'");
      if (j.end_ns && *j.end_ns < *j.start_ns) row_fail(path, line, "end_time", "'" + end + "' is before the job's start_time '" + start + "'");
      if (j.run_ns() && *j.run_ns() > kMaxScenarioTime.count_ns())
        row_fail(path, line, "end_time", std::string("the job ran longer than the longest time a scenario may give, ") + kMaxScenarioTimeText);
      // Tasks and minAvailable.
      j.tasks = tasks_of(path, line, tasks);
      long long replicas = 0;
      for (const auto& t : j.tasks) replicas += t.replicas;
      if (replicas > 1'000'000) row_fail(path, line, "tasks", std::to_string(replicas) + " pods; a job may have at most 1000000");
      if (!min_avail.empty()) {
        const auto m = integer_of(min_avail, -1'000'000, 1'000'000);
        if (!m) row_fail(path, line, "min_available", "'" + detail::printable(min_avail) + "' is not an integer");
        if (*m < 0) row_fail(path, line, "min_available", "job 'minAvailable' must be >= 0. (Volcano's job admission webhook)");
        if (*m > replicas)
          row_fail(path, line, "min_available",
                   std::to_string(*m) + " is above the job's " + std::to_string(replicas) +
                       " pods: job 'minAvailable' should not be greater than total replicas in tasks; (Volcano's job admission webhook)");
        j.min_available = static_cast<int>(*m);
      }
      // A Job is namespace/name in Kubernetes; mltwin's jobs have no namespace, so a name is
      // unique across namespaces too (as for workload.manifests).
      if (auto [it, fresh] = seen.emplace(std::make_pair(j.ns, j.name), line); !fresh)
        row_fail(path, line, "name", "job '" + j.name + "' in namespace '" + j.ns + "' appears twice (also line " + std::to_string(it->second) +
                                         "); a namespace holds one Job of a name: give a resubmission a name of its own (e.g. a suffix)");
      if (auto [it, fresh] = by_name.emplace(j.name, std::make_pair(j.ns, line)); !fresh)
        row_fail(path, line, "name", "job '" + j.name + "' is also in namespace '" + it->second.first + "' (line " +
                                         std::to_string(it->second.second) +
                                         "); job names must differ across namespaces too: mltwin's jobs have no namespace");
      out.jobs.push_back(std::move(j));
    }
  } catch (const ::io::error::too_few_columns& e) {
    throw ScenarioError(path + ":" + std::to_string(e.file_line) + ": the row has fewer fields than the header has columns");
  } catch (const ::io::error::too_many_columns& e) {
    throw ScenarioError(path + ":" + std::to_string(e.file_line) +
                        ": the row has more fields than the header has columns (a field holding ',' or ';' is written in double quotes)");
  } catch (const ::io::error::escaped_string_not_closed& e) {
    throw ScenarioError(path + ":" + std::to_string(e.file_line) + ": a double-quoted field is not closed on its line");
  } catch (const ::io::error::base& e) {
    throw ScenarioError(path + ": job history: " + e.what());
  }
  if (out.jobs.empty()) throw ScenarioError(path + ":2: the job history has a header but no job");
  check_history(path, out);
  return out;
}

bool looks_like_job_history(const std::string& path) {
  // Only a regular file is looked into: a FIFO or a device would block or never end (the
  // scenario reader then refuses it with its own message).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (detail::looks_like_prometheus(head)) return true;
  if (looks_like_kubectl(head)) {
    // Volcano Jobs, not a scenario, nor a pods_from / nodes_from export (whose pods name their
    // Volcano Job in ownerReferences).
    static const std::regex other_kind(R"re(("kind"\s*:\s*"(Pod|PodGroup|Node)")|((^|\n)\s*-?\s*kind:\s*"?(Pod|PodGroup|Node)"?\s*(\r?\n|$)))re");
    return head.find("batch.volcano.sh/") != std::string::npos && head.find("schema_version") == std::string::npos &&
           !std::regex_search(head, other_kind);
  }
  std::string first = head.substr(0, head.find('\n'));
  if (first.rfind("\xEF\xBB\xBF", 0) == 0) first.erase(0, 3);
  return first.find("submit_time") != std::string::npos && first.find("tasks") != std::string::npos;
}

}  // namespace mltwin::io

namespace mltwin::io::detail {

using nlohmann::json;

void expand_job_history(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                        std::vector<InputFileRef>& inputs, YamlOrigins::Places& origins, std::optional<JobHistoryUse>& use,
                        std::uint64_t seed, std::vector<std::string>& warnings) {
  json& w = doc["workload"];
  if (!w.contains("history")) return;
  const json& h = w["history"];
  const std::string as_written = h["file"];
  const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
  require_input(path, "/workload/history/file", as_written, file);
  const JobHistory hist = read_job_history(file);
  inputs.push_back({"job_history", file, as_written});

  // What the scenario defines: queues (with queues_from's, expanded before) and PriorityClasses.
  const DefinedNames defined = defined_names(doc);
  const std::set<std::string>& queues = defined.queues;
  const std::set<std::string>& classes = defined.classes;
  const std::vector<models::QueueSpec>& tree = defined.tree;
  auto list = &DefinedNames::list;

  // The run time of the jobs that have not ended (Running, Pending): the scenario's model.
  // Jobs the twin cannot model are skipped (a warning each: --strict refuses them).
  JobHistoryUse u;
  u.file = as_written;
  u.jobs = hist.jobs.size();
  u.ended_unrun = hist.ended_unrun;
  u.pods_not_volcano = hist.pods_not_volcano;
  const HistoryJob* first_unfinished = nullptr;
  for (const auto& j : hist.jobs) {
    if (!j.unmodelled.empty()) {
      ++u.skipped;
      ++u.skipped_reasons[j.unmodelled];
      warnings.push_back(j.where("tasks") + ": Job '" + j.name + "' (namespace " + j.ns + ") is skipped: " + j.unmodelled +
                         " (read as " + path + ": /workload/history)");
      continue;
    }
    if (!j.run_ns()) {
      ++u.unfinished;
      (j.status == "Running" ? u.running : u.pending) += 1;
      if (!first_unfinished) first_unfinished = &j;
    }
  }
  if (u.skipped == hist.jobs.size())
    throw ScenarioError(hist.jobs.front().where("tasks") + ": every job of '" + as_written + "' is skipped (not modelled): nothing to replay");
  std::int64_t fixed_ns = 0;
  std::vector<std::int64_t> runs;  // the finished run times, sorted (the skipped jobs' included)
  std::optional<core::RngStreams> draws;
  const std::int64_t now = latest_time(hist);
  if (first_unfinished) {
    if (!h.contains("unfinished_duration"))
      throw ScenarioError(first_unfinished->where("end_time") + ": job '" + first_unfinished->name +
                          "' is " + first_unfinished->status + " (no end_time), and " + std::to_string(u.unfinished) +
                          " job(s) in all: say how long such jobs run with /workload/history/unfinished_duration in " + path +
                          " ({\"model\": \"fixed\", \"duration\": \"2h\"}, {\"model\": \"median_finished\"} or "
                          "{\"model\": \"history_distribution\"})");
    const json& m = h["unfinished_duration"];
    u.model = m["model"].get<std::string>();
    if (u.model == "fixed") {
      if (!m.contains("duration"))
        fail(path, "/workload/history/unfinished_duration/duration", "the fixed model needs a duration (e.g. \"2h\")");
      fixed_ns = duration_of(path, "/workload/history/unfinished_duration/duration", m["duration"]).count_ns();
      if (fixed_ns < 0) fail(path, "/workload/history/unfinished_duration/duration", "expected a duration >= 0");
    } else {  // median_finished, history_distribution (the schema allows no other)
      if (m.contains("duration"))
        fail(path, "/workload/history/unfinished_duration/duration", "the " + u.model + " model takes no duration (it is computed)");
      runs = finished_run_times(hist);
      if (runs.empty())
        fail(path, "/workload/history/unfinished_duration/model",
             u.model + ": '" + as_written + "' has no Completed or Failed job to take the run times of; give the fixed model");
      u.from_jobs = runs.size();
      u.now = k8s::format_rfc3339(now);
      if (u.model == "history_distribution") {
        draws.emplace(seed);
        u.seed = seed;
      }
    }
  }

  json jobs = json::array();
  double sum_s = 0;
  bool first_run = true;
  for (const auto& j : hist.jobs) {
    if (!j.unmodelled.empty()) continue;
    const std::string at = j.at;
    if (!queues.count(j.queue))
      throw ScenarioError(j.where("queue") + ": queue '" + j.queue + "' is not defined in " + path + " (/queues or /queues_from; the leaf queues a job can name: " +
                          list(defined.leaves) + ")");
    if (std::string why = leaf_queue_problem(tree, j.queue); !why.empty())
      throw ScenarioError(j.where("queue") + ": queue '" + j.queue + "': " + why + " (Volcano's job admission webhook)");
    if (!j.priority_class.empty() && !classes.count(j.priority_class))
      throw ScenarioError(j.where("priority_class") + ": PriorityClass '" + j.priority_class + "' is not defined in " + path +
                          " (/priority_classes: " + list(classes) + ")");
    std::int64_t run = 0;
    if (j.run_ns()) {
      run = *j.run_ns();
    } else {
      if (u.model == "fixed") {
        run = fixed_ns;
      } else {
        // A Running job had run (the file's latest time - its start) when the history was
        // exported: its whole run time is conditional on that (a Pending job's is not).
        std::optional<std::int64_t> elapsed;
        if (j.start_ns) elapsed = now - *j.start_ns;
        const ModelRunTime r = draws ? conditional_draw(runs, elapsed, draws->stream(kHistoryRunTimeStream)) : conditional_median(runs, elapsed);
        run = r.ns;
        if (elapsed) ++u.conditional;
        if (r.fallback) ++u.fallback;
      }
      const double s = static_cast<double>(run) / 1e9;
      sum_s += s;
      u.unfinished_min_s = first_run ? s : std::min(u.unfinished_min_s, s);
      u.unfinished_max_s = first_run ? s : std::max(u.unfinished_max_s, s);
      first_run = false;
    }
    if (run > kMaxScenarioTime.count_ns())
      throw ScenarioError(j.where("end_time") + ": the " + u.model + " model gives job '" + j.name + "' a run time beyond the longest time "
                          "a scenario may give, " + kMaxScenarioTimeText);
    json o = {{"name", j.name}, {"queue", j.queue}, {"submit", std::to_string(j.submit_ns - hist.t0_ns) + "ns"}, {"pod", j.tasks[0].requests}};
    json tasks = json::array();
    for (const auto& t : j.tasks) {
      json tj = {{"name", t.name}, {"replicas", t.replicas}, {"duration", std::to_string(run) + "ns"}};
      if (t.min_available) tj["min_available"] = *t.min_available;
      tasks.push_back(std::move(tj));
    }
    o["tasks"] = std::move(tasks);
    if (j.min_available > 0) o["min_available"] = j.min_available;
    if (!j.priority_class.empty()) o["priority_class"] = j.priority_class;
    // The Job's own constraints (a kubectl list's pod template), else the history-wide ones.
    for (const char* k : {"node_selector", "node_affinity", "tolerations"})
      if (j.constraints.contains(k)) o[k] = j.constraints[k];
      else if (h.contains(k)) o[k] = h[k];
    jobs.push_back(std::move(o));
    origins["/workload/jobs"].push_back(at + ": Job '" + j.name + "' (namespace " + j.ns + ")");
  }
  w["jobs"] = std::move(jobs);
  w.erase("history");
  if (u.unfinished > 0) u.unfinished_s = sum_s / static_cast<double>(u.unfinished);
  use = std::move(u);
}

}  // namespace mltwin::io::detail
