// The job history CSV (workload.history; mltwin/io/job_history.hpp, docs/scenarios.md "A job
// history from a CSV"): a hand-written file read exactly, every bad row refused with
// FILE:LINE: column C, the scenario's checks (queues, priority classes, the model for jobs
// without end_time), and a tiny scenario run end to end. The rows are invented; expected
// values are worked out by hand in the comments.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <vector>
#include <optional>
#include <tuple>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/core/rng.hpp"
#include "mltwin/io/job_history.hpp"
#include "mltwin/io/scenario.hpp"
#include "scenario_run.hpp"
#include "temp_dir.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
// 2026-01-01T00:00:00Z in s since the Unix epoch: 56 years 1970..2025 = 20,454 days
// (14 leap years: 1972..2024) -> 20,454 x 86,400 = 1,767,225,600.
constexpr std::int64_t k2026 = 1'767'225'600LL;

std::string write(const test::TempDir& d, const std::string& name, const std::string& text) {
  const std::string p = d.file(name);
  std::ofstream out(p, std::ios::binary);
  out << text;
  REQUIRE(out.good());
  return p;
}

const std::string kHeader = "name,namespace,queue,priority_class,submit_time,start_time,end_time,status,tasks,min_available\n";

/// `s` with every `from` written as `to` (built anew: GCC 12's -Wrestrict misreads an in-place
/// std::string::replace loop here).
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) out.append(s, at, hit - at).append(to);
  return out.append(s, at, std::string::npos);
}

/// The message read_job_history throws for `csv`, its file's path written as F.
std::string error_of(const std::string& csv) {
  test::TempDir d;
  const std::string p = write(d, "h.csv", csv);
  try {
    (void)io::read_job_history(p);
  } catch (const io::ScenarioError& e) {
    return replace_all(e.what(), p, "F");
  }
  FAIL("no error for: " << csv);
  return {};
}

/// The shipped example with its history file replaced by `csv` (and `patch` merged over it).
json scenario_with(const test::TempDir& d, const std::string& csv, const json& patch = json::object()) {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-history-csv.json");
  REQUIRE(in.good());
  json sc = json::parse(in);
  sc.erase("$schema");
  sc["workload"]["history"]["file"] = write(d, "h.csv", csv);
  sc.merge_patch(patch);
  return sc;
}

std::string write_scenario(const test::TempDir& d, const json& sc) {
  return write(d, "s.json", sc.dump(2));
}

/// The run time of job `name` (scenario jobs are in submit order, not the file's).
std::int64_t run_of(const io::LoadedScenario& sc, const std::string& name) {
  for (const auto& j : sc.training.jobs)
    if (j.name == name) return j.duration.count_ns();
  FAIL("no job " << name);
  return -1;
}

std::string load_error(const test::TempDir& d, const json& sc) {
  const std::string p = write_scenario(d, sc);
  try {
    (void)io::load_scenario(p);
  } catch (const io::ScenarioError& e) {
    return replace_all(replace_all(e.what(), d.file("h.csv"), "F"), p, "S");
  }
  FAIL("the scenario loaded");
  return {};
}

}  // namespace

TEST_CASE("RFC 3339 times: Z, offsets, fractions, lower case and a space; anything else refused") {
  std::string why;
  CHECK(io::parse_rfc3339("2026-01-01T00:00:00Z", why) == k2026 * kS);
  // 01:10:00 at +01:00 is 00:10:00 UTC: 600 s after midnight.
  CHECK(io::parse_rfc3339("2026-01-01T01:10:00+01:00", why) == (k2026 + 600) * kS);
  // 23:50:00 at -00:30 is 00:20:00 UTC on Jan 1: 1,200 s.
  CHECK(io::parse_rfc3339("2025-12-31T23:50:00-00:30", why) == (k2026 + 1200) * kS);
  CHECK(io::parse_rfc3339("2026-01-01t00:00:00.25z", why) == k2026 * kS + 250'000'000);
  CHECK(io::parse_rfc3339("2026-01-01 00:00:00.000000001Z", why) == k2026 * kS + 1);
  // 2024 is a leap year: Feb 29 exists (2024-03-01 is 60 days after 2024-01-01).
  CHECK(io::parse_rfc3339("2024-02-29T00:00:00Z", why).has_value());
  CHECK_FALSE(io::parse_rfc3339("1969-12-31T23:59:59Z", why).has_value());
  CHECK(why == "year 1969 is outside 1970-2261 (times are held in nanoseconds since 1970)");
  CHECK_FALSE(io::parse_rfc3339("9999-12-31T23:59:59Z", why).has_value());
  // 1970-01-01T00:30:00+01:00 is 23:30 UTC the day before: -1,800 s.
  CHECK(io::parse_rfc3339("1970-01-01T00:30:00+01:00", why) == -1800 * kS);
  for (const char* bad : {"2026-01-01T00:00:00", "2026-1-01T00:00:00Z", "2026-01-01T00:00Z", "2026-02-30T00:00:00Z",
                          "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00.Z",
                          "2026-01-01T00:00:00.0000000001Z", "2026-01-01T00:00:00+0100", "2026-01-01T00:00:00Z ", "yesterday", ""}) {
    CAPTURE(bad);
    why.clear();
    CHECK_FALSE(io::parse_rfc3339(bad, why).has_value());
    CHECK(why.find("RFC 3339") != std::string::npos);
    CHECK(why.find("year") == std::string::npos);
  }
}

TEST_CASE("a hand-written history is read exactly") {
  test::TempDir d;
  // Line 1 the header, rows on lines 2..4. Row b (line 3) is the earliest: 01:00+01:00 is
  // 00:00Z, so t0 = 2026-01-01T00:00:00Z; a is 600 s later, c 1,800 s.
  const std::string p = write(d, "h.csv",
                              kHeader +
                                  "a,ns1,q1,high,2026-01-01T00:10:00Z,2026-01-01T00:11:00Z,2026-01-01T01:11:00.5Z,Completed,"
                                  "\"worker:4:cpu=8,memory=32Gi,aws.amazon.com/neuroncore=32\",\n"
                                  "b,,,,2026-01-01T01:00:00+01:00,,,Pending,\"launcher:1:cpu=1;worker:3/2:cpu=1\",2\n"
                                  " c , ns1 ,q1,,2026-01-01t00:30:00z,2026-01-01 00:40:00Z,,Running,w:1:cpu=500m,\n\n");
  const io::JobHistory h = io::read_job_history(p);
  REQUIRE(h.jobs.size() == 3);
  CHECK(h.t0_ns == k2026 * kS);
  const io::HistoryJob& a = h.jobs[0];
  CHECK(a.line == 2);
  CHECK(a.name == "a");
  CHECK(a.ns == "ns1");
  CHECK(a.queue == "q1");
  CHECK(a.priority_class == "high");
  CHECK(a.status == "Completed");
  CHECK(a.submit_ns - h.t0_ns == 600 * kS);
  CHECK(*a.start_ns - a.submit_ns == 60 * kS);
  // 00:11:00 -> 01:11:00.5: 3,600.5 s.
  CHECK(a.run_ns() == 3600 * kS + 500'000'000);
  CHECK(a.min_available == 0);  // empty: the tasks' minAvailable summed (Volcano's default)
  REQUIRE(a.tasks.size() == 1);
  CHECK(a.tasks[0].name == "worker");
  CHECK(a.tasks[0].replicas == 4);
  CHECK_FALSE(a.tasks[0].min_available.has_value());
  CHECK(a.tasks[0].requests == json({{"cpu", "8"}, {"memory", "32Gi"}, {"aws.amazon.com/neuroncore", "32"}}));
  const io::HistoryJob& b = h.jobs[1];
  CHECK(b.line == 3);
  CHECK(b.ns == "default");     // empty namespace: Kubernetes' default
  CHECK(b.queue == "default");  // empty queue: Volcano's default
  CHECK(b.priority_class.empty());
  CHECK(b.submit_ns == h.t0_ns);
  CHECK_FALSE(b.start_ns.has_value());
  CHECK_FALSE(b.run_ns().has_value());
  CHECK(b.min_available == 2);
  REQUIRE(b.tasks.size() == 2);
  CHECK(b.tasks[1].name == "worker");
  CHECK(b.tasks[1].replicas == 3);
  CHECK(b.tasks[1].min_available == 2);
  const io::HistoryJob& c = h.jobs[2];
  CHECK(c.line == 4);
  CHECK(c.name == "c");  // blanks around a field are trimmed
  CHECK(c.ns == "ns1");
  CHECK(c.submit_ns - h.t0_ns == 1800 * kS);
  CHECK(*c.start_ns - c.submit_ns == 600 * kS);
  CHECK_FALSE(c.end_ns.has_value());
  CHECK(c.tasks[0].requests == json({{"cpu", "500m"}}));
}

TEST_CASE("columns in any order; the optional ones may be left out; a BOM and CRLF are read") {
  test::TempDir d;
  const std::string p = write(d, "h.csv",
                              "\xEF\xBB\xBFstatus,tasks,end_time,start_time,submit_time,queue,namespace,name\r\n"
                              "Completed,w:1:cpu=1,2026-01-01T00:02:00Z,2026-01-01T00:01:00Z,2026-01-01T00:00:00Z,q,ns,x\r\n");
  const io::JobHistory h = io::read_job_history(p);
  REQUIRE(h.jobs.size() == 1);
  CHECK(h.jobs[0].name == "x");
  CHECK(h.jobs[0].run_ns() == 60 * kS);
}

TEST_CASE("every bad row is refused with FILE:LINE: column C: what is wrong") {
  const std::string ok_tasks = "\"w:2:cpu=8,memory=32Gi\"";
  auto row = [&](const std::string& submit, const std::string& start, const std::string& end, const std::string& status,
                 const std::string& tasks = "", const std::string& min = "") {
    return kHeader + "ok,ns,q,,2026-01-01T00:00:00Z,2026-01-01T00:00:01Z,2026-01-01T00:00:02Z,Completed,w:1:cpu=1,\n" + "j,ns,q,," +
           submit + "," + start + "," + end + "," + status + "," + (tasks.empty() ? ok_tasks : tasks) + "," + min + "\n";
  };
  const std::string T0 = "2026-01-01T00:00:00Z", T1 = "2026-01-01T01:00:00Z", T2 = "2026-01-01T02:00:00Z";
  // Bad times.
  CHECK(error_of(row("2026-01-01 00:10:00", T1, T2, "Completed")) ==
        "F:3: column submit_time: '2026-01-01 00:10:00': no UTC offset (Z or +hh:mm) after the time, or something after it; "
        "expected an RFC 3339 date-time such as 2026-01-01T00:10:00Z or 2026-01-01T01:10:00.5+01:00");
  CHECK(error_of(row("01/01/2026 00:10", T1, T2, "Completed")) ==
        "F:3: column submit_time: '01/01/2026 00:10': expected an RFC 3339 date-time such as 2026-01-01T00:10:00Z or "
        "2026-01-01T01:10:00.5+01:00");
  CHECK(error_of(row(T0, "2026-02-30T00:00:00Z", T2, "Completed")).rfind("F:3: column start_time: '2026-02-30T00:00:00Z': not a valid date", 0) == 0);
  CHECK(error_of(row(T0, T1, "2026-01-01T02:00:00", "Completed")).rfind("F:3: column end_time: '2026-01-01T02:00:00': no UTC offset", 0) == 0);
  CHECK(error_of(row("", T1, T2, "Completed")) == "F:3: column submit_time: empty: every job has a submit time (RFC 3339)");
  // Order of the times.
  CHECK(error_of(row(T0, T2, T1, "Completed")) ==
        "F:3: column end_time: '2026-01-01T01:00:00Z' is before the job's start_time '2026-01-01T02:00:00Z'");
  CHECK(error_of(row(T1, T0, T2, "Completed")) ==
        "F:3: column start_time: '2026-01-01T00:00:00Z' is before the job's submit_time '2026-01-01T01:00:00Z'");
  // Status, and the times it implies.
  CHECK(error_of(row(T0, T1, T2, "Succeeded")) ==
        "F:3: column status: 'Succeeded' is not a job status read here (Completed, Failed, Running, Pending: Volcano Job phases)");
  CHECK(error_of(row(T0, T1, T2, "completed")).find("did you mean 'Completed'") != std::string::npos);
  CHECK(error_of(row(T0, T1, "", "Completed")) == "F:3: column end_time: empty, but a Completed job has ended");
  CHECK(error_of(row(T0, "", "", "Running")) == "F:3: column start_time: empty, but a Running job has started");
  CHECK(error_of(row(T0, T1, T2, "Running")) == "F:3: column end_time: given, but a Running job has not ended (leave it empty)");
  CHECK(error_of(row(T0, T1, "", "Pending")) == "F:3: column start_time: given, but a Pending job has not started (leave it empty)");
  // Tasks: quantities (the API server's parser), the shape, minAvailable (Volcano's webhook).
  CHECK(error_of(row(T0, T1, T2, "Completed", "\"w:2:cpu=8x,memory=32Gi\"")).rfind("F:3: column tasks: task 'w': cpu: ", 0) == 0);
  CHECK(error_of(row(T0, T1, T2, "Completed", "\"w:2:cpu=-1\"")).rfind("F:3: column tasks: task 'w': cpu: ", 0) == 0);
  CHECK(error_of(row(T0, T1, T2, "Completed", "w:0:cpu=1")) == "F:3: column tasks: task 'w': replicas '0' is not an integer from 1 to 1000000");
  CHECK(error_of(row(T0, T1, T2, "Completed", "w:2")).rfind("F:3: column tasks: 'w:2' has 2 ':'-separated part(s), not 3", 0) == 0);
  CHECK(error_of(row(T0, T1, T2, "Completed", "w:2/3:cpu=1")) ==
        "F:3: column tasks: 'minAvailable' is greater than 'replicas' in task: w (Volcano's job admission webhook)");
  CHECK(error_of(row(T0, T1, T2, "Completed", "w:1:cpu=1;w:1:cpu=1")) == "F:3: column tasks: task name 'w' appears twice");
  CHECK(error_of(row(T0, T1, T2, "Completed", "", "3")) ==
        "F:3: column min_available: 3 is above the job's 2 pods: job 'minAvailable' should not be greater than total replicas "
        "in tasks; (Volcano's job admission webhook)");
  CHECK(error_of(row(T0, T1, T2, "Completed", "", "two")) == "F:3: column min_available: 'two' is not an integer");
  // Names: unique within a namespace (and across them: mltwin's jobs have no namespace).
  CHECK(error_of(kHeader + "a,ns,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\na,ns,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\n") ==
        "F:3: column name: job 'a' in namespace 'ns' appears twice (also line 2); a namespace holds one Job of a name: give a "
        "resubmission a name of its own (e.g. a suffix)");
  CHECK(error_of(kHeader + "a,ns,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\na,ns2,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\n")
            .rfind("F:3: column name: job 'a' is also in namespace 'ns' (line 2)", 0) == 0);
  CHECK(error_of(kHeader + "Bad_Name,ns,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\n").rfind("F:2: column name: Job name ", 0) == 0);
  // The header.
  CHECK(error_of("name,namespace,queue,submit_time,start_time,end_time,status\nx,ns,q,2026-01-01T00:00:00Z,,,Pending\n") ==
        "F:1: column tasks: missing from the header (required: name, namespace, queue, submit_time, start_time, end_time, status, "
        "tasks; optional: priority_class, min_available)");
  CHECK(error_of(kHeader.substr(0, kHeader.size() - 1) + ",owner\n").rfind("F:1: column owner: not a column of a job history", 0) == 0);
  CHECK(error_of("") == "F:1: the job history is empty (expected a header row, then one row per job)");
  CHECK(error_of(kHeader) == "F:2: the job history has a header but no job");
  // A row with a column too few: the CSV parser's own message, naming the file and line.
  CHECK(error_of(kHeader + "a,ns,q,,2026-01-01T00:00:00Z\n") == "F:2: the row has fewer fields than the header has columns");
  CHECK(error_of(kHeader + "a,ns,q,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,memory=1Gi,\n") ==
        "F:2: the row has more fields than the header has columns (a field holding ',' or ';' is written in double quotes)");
  CHECK(error_of(kHeader + "a,ns,q,,2026-01-01T00:00:00Z,,,Pending,\"w:1:cpu=1,\n") == "F:2: a double-quoted field is not closed on its line");
}

TEST_CASE("a history scenario: submit offsets, run times, queues, priority classes and the unfinished model") {
  test::TempDir d;
  // t0 = 00:00:00Z. a: submit 0, ran 01:00:05 - 00:00:05 = 3,600 s. b: submit 600 s, Running:
  // the fixed model's 30 min. c: submit 1,200 s, Pending: the same.
  const std::string csv = kHeader +
                          "a,team-a,team-a,training-high,2026-01-01T00:00:00Z,2026-01-01T00:00:05Z,2026-01-01T01:00:05Z,Completed,"
                          "\"worker:1:cpu=8,memory=32Gi\",\n"
                          "b,team-b,team-b,,2026-01-01T00:10:00Z,2026-01-01T00:10:05Z,,Running,\"worker:2:cpu=8,memory=32Gi\",\n"
                          "c,team-b,team-b,,2026-01-01T00:20:00Z,,,Pending,\"worker:1:cpu=8,memory=32Gi\",\n";
  const json fixed = {{"workload", {{"history", {{"unfinished_duration", {{"model", "fixed"}, {"duration", "30m"}, {"source", "test"}}}}}}}};
  const io::LoadedScenario sc = io::load_scenario(write_scenario(d, scenario_with(d, csv, fixed)));
  REQUIRE(sc.training.jobs.size() == 3);
  const auto& a = sc.training.jobs[0];
  CHECK(a.name == "a");
  CHECK(a.submit.ns() == 0);
  CHECK(a.duration.count_ns() == 3600 * kS);
  CHECK(a.priority == 1000);  // training-high
  CHECK(a.nnodes == 1);
  CHECK(a.cpu_per_pod == 8);
  CHECK(sc.training.jobs[1].submit.ns() == 600 * kS);
  CHECK(sc.training.jobs[1].duration.count_ns() == 1800 * kS);
  CHECK(sc.training.jobs[1].nnodes == 2);
  CHECK(sc.training.jobs[1].priority == 100);  // no class: the globalDefault training-low
  CHECK(sc.training.jobs[2].duration.count_ns() == 1800 * kS);
  REQUIRE(sc.history.has_value());
  CHECK(sc.history->jobs == 3);
  CHECK(sc.history->unfinished == 2);
  CHECK(sc.history->running == 1);
  CHECK(sc.history->pending == 1);
  CHECK(sc.history->model == "fixed");
  CHECK(sc.history->unfinished_s == 1800);
  REQUIRE(sc.inputs.size() >= 2);
  CHECK(sc.inputs.back().role == "job_history");

  // median_finished: the finished run times 3,600 s (a) and 7,200 s (e). c (Pending): their
  // median, the mean 5,400 s. b (Running) had run by the file's latest time, e's end 02:00:00,
  // 02:00:00 - 00:10:05 = 6,595 s: of the run times only 7,200 s is longer, so b runs 7,200 s.
  const std::string two_done = csv + "e,team-a,team-a,,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,2026-01-01T02:00:00Z,Failed,w:1:cpu=1,\n";
  const json median = {{"workload", {{"history", {{"unfinished_duration", {{"model", "median_finished"}, {"source", "test"}}}}}}}};
  const io::LoadedScenario m = io::load_scenario(write_scenario(d, scenario_with(d, two_done, median)));
  CHECK(run_of(m, "b") == 7200 * kS);
  CHECK(run_of(m, "c") == 5400 * kS);
  CHECK(m.history->unfinished_s == 6300);  // (7,200 + 5,400) / 2
  CHECK(m.history->unfinished_min_s == 5400);
  CHECK(m.history->unfinished_max_s == 7200);
  CHECK(m.history->from_jobs == 2);
  CHECK(m.history->conditional == 1);
  CHECK(m.history->fallback == 0);
  CHECK(m.history->now == "2026-01-01T02:00:00Z");
  CHECK(m.history->describe().find("2 without end_time (1 Running, 1 Pending) ran 5400 s to 7200 s (mean 6300 s), the unfinished_duration "
                                   "model 'median_finished' (medians of 2 finished job(s); 1 Running conditional on their time run by "
                                   "2026-01-01T02:00:00Z, 0 of them past every finished run time: twice their time run)") != std::string::npos);
  // A Running job that has run longer than every finished one (f: 00:00:00 to the latest time,
  // g's submit 03:00:00, 10,800 s > 7,200 s): the fallback, twice its time run, 21,600 s.
  const std::string past = two_done + "f,team-a,team-a,,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,,Running,w:1:cpu=1,\n"
                                      "g,team-a,team-a,,2026-01-01T03:00:00Z,,,Pending,w:1:cpu=1,\n";
  const io::LoadedScenario fb = io::load_scenario(write_scenario(d, scenario_with(d, past, median)));
  CHECK(run_of(fb, "f") == 21600 * kS);
  // b now has run 03:00:00 - 00:10:05 = 10,195 s, past 7,200 s too: 20,390 s.
  CHECK(run_of(fb, "b") == 20390 * kS);
  CHECK(run_of(fb, "g") == 5400 * kS);
  CHECK(fb.history->conditional == 2);
  CHECK(fb.history->fallback == 2);

  // No model for the unfinished jobs: refused at the first one's row.
  json none = scenario_with(d, csv);
  none["workload"]["history"].erase("unfinished_duration");
  CHECK(load_error(d, none) ==
        "F:3: column end_time: job 'b' is Running (no end_time), and 2 job(s) in all: say how long such jobs run with "
        "/workload/history/unfinished_duration in S ({\"model\": \"fixed\", \"duration\": \"2h\"}, {\"model\": \"median_finished\"} or "
        "{\"model\": \"history_distribution\"})");
  // A queue or a PriorityClass the scenario does not define.
  const std::string one = kHeader + "a,ns,team-c,,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\n";
  CHECK(load_error(d, scenario_with(d, one, fixed)) ==
        "F:2: column queue: queue 'team-c' is not defined in S (/queues or /queues_from; the leaf queues a job can name: team-a, team-b)");
  const std::string pc = kHeader + "a,ns,team-a,urgent,2026-01-01T00:00:00Z,,,Pending,w:1:cpu=1,\n";
  CHECK(load_error(d, scenario_with(d, pc, fixed))
            .rfind("F:2: column priority_class: PriorityClass 'urgent' is not defined in S (/priority_classes: ", 0) == 0);
  // A queue with children takes no job (Volcano's webhook).
  const json tree = {{"queues", {{{"name", "team-a"}, {"weight", 2}}, {{"name", "team-b"}, {"weight", 1}},
                                 {{"name", "team-a-dev"}, {"weight", 1}, {"parent", "team-a"}}}}};
  json with_tree = scenario_with(d, csv, fixed);
  with_tree.merge_patch(tree);
  CHECK(load_error(d, with_tree) == "F:2: column queue: queue 'team-a': can only submit job to leaf queue, queue `team-a` has 1 child "
                                    "queues (Volcano's job admission webhook)");
  // The model's own keys.
  const json no_duration = {{"workload", {{"history", {{"unfinished_duration", {{"model", "fixed"}, {"source", "test"}}}}}}}};
  CHECK(load_error(d, scenario_with(d, csv, no_duration)) ==
        "S: /workload/history/unfinished_duration/duration: the fixed model needs a duration (e.g. \"2h\")");
  const json median_with_duration = {
      {"workload", {{"history", {{"unfinished_duration", {{"model", "median_finished"}, {"duration", "1h"}, {"source", "test"}}}}}}}};
  CHECK(load_error(d, scenario_with(d, csv, median_with_duration)) ==
        "S: /workload/history/unfinished_duration/duration: the median_finished model takes no duration (it is computed)");
  const std::string none_finished = kHeader + "b,team-b,team-b,,2026-01-01T00:10:00Z,2026-01-01T00:10:05Z,,Running,w:1:cpu=1,\n";
  CHECK(load_error(d, scenario_with(d, none_finished, median)) ==
        "S: /workload/history/unfinished_duration/model: median_finished: 'F' has no Completed or Failed job to take the run times of; "
        "give the fixed model");
  // Tasks of different pod shapes are not modelled: the job is skipped (below); a history of
  // nothing else is refused.
  const std::string shapes = kHeader + "a,ns,team-a,,2026-01-01T00:00:00Z,,,Pending,\"l:1:cpu=1;w:2:cpu=2\",\n";
  CHECK(load_error(d, scenario_with(d, shapes, fixed)) == "F:2: column tasks: every job of 'F' is skipped (not modelled): nothing to replay");
  // A check the job loader makes later still names the row (the Job's own name rules).
  const std::string big = kHeader + "a,ns,team-a,,2026-01-01T00:00:00Z,,,Pending,\"w:1:cpu=1,example.com/fpga=1\",\n";
  CHECK(load_error(d, scenario_with(d, big, fixed)).rfind("F:2: Job 'a' (namespace ns): ", 0) == 0);
}

TEST_CASE("a history scenario runs end to end: each job runs its end_time - start_time, the unfinished the model's") {
  test::TempDir d;
  const std::string csv = "name,namespace,queue,submit_time,start_time,end_time,status,tasks\n"
                          "j1,team-a,team-a,2026-01-01T00:00:00Z,2026-01-01T00:00:05Z,2026-01-01T01:00:05Z,Completed,\"worker:1:cpu=8,memory=32Gi\"\n"
                          "j2,team-b,team-b,2026-01-01T00:10:00Z,2026-01-01T00:10:05Z,,Running,\"worker:2:cpu=8,memory=32Gi\"\n";
  const json fixed = {{"workload", {{"history", {{"unfinished_duration", {{"model", "fixed"}, {"duration", "30m"}, {"source", "test"}}}}}}}};
  const test::ScenarioRun r(write_scenario(d, scenario_with(d, csv, fixed)));
  CHECK(r.summary.at("phases").at("Completed") == 2);
  // Each pod Succeeds its task's duration after it is Running (a Job of independent pods).
  CHECK(r.job_ns("j1", "submit_ns") == 0);
  CHECK(r.job_ns("j1", "end_ns") - r.job_ns("j1", "start_ns") == 3600 * kS);
  CHECK(r.job_ns("j2", "submit_ns") == 600 * kS);
  CHECK(r.job_ns("j2", "end_ns") - r.job_ns("j2", "start_ns") == 1800 * kS);
  const json& h = r.summary.at("job_history");
  CHECK(h.at("jobs") == 2);
  CHECK(h.at("unfinished") == 1);
  CHECK(h.at("running") == 1);
  CHECK(h.at("unfinished_model") == "fixed");
  CHECK(h.at("unfinished_s") == 1800.0);
  CHECK(r.printed.find("; 1 without end_time (1 Running, 0 Pending) ran 1800 s, the unfinished_duration model 'fixed'") !=
        std::string::npos);
}

TEST_CASE("the shipped example, scenarios/eks-history-csv.json, loads: 10 jobs, 3 of them on the median of 7 finished") {
  const io::LoadedScenario sc = io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-history-csv.json");
  CHECK(sc.training.jobs.size() == 10);
  REQUIRE(sc.history.has_value());
  CHECK(sc.history->unfinished == 3);
  // Finished run times (s): 1800, 2311.5, 2508, 12600, 22288, 23280, 27000 -> median 12,600:
  // mixtral-ft-8's (Pending). The latest time in the file is its submit, 22:30:00Z: by then
  // llama-sft-0103 (Running since 22:11:00Z) had run 1,140 s, shorter than every finished run:
  // the median of all seven, 12,600 s; bert-pretrain-b (since 15:00:50Z) 26,950 s, which only
  // 27,000 s exceeds: 27,000 s. Mean (12,600 + 12,600 + 27,000) / 3 = 17,400 s.
  CHECK(sc.history->unfinished_s == 17400);
  CHECK(sc.history->unfinished_min_s == 12600);
  CHECK(sc.history->unfinished_max_s == 27000);
  CHECK(sc.history->from_jobs == 7);
  CHECK(sc.history->conditional == 2);
  CHECK(sc.history->fallback == 0);
  for (const auto& j : sc.training.jobs) {
    if (j.name == "bert-pretrain-b") CHECK(j.duration.count_ns() == 27000 * kS);
    if (j.name == "llama-sft-0103" || j.name == "mixtral-ft-8") CHECK(j.duration.count_ns() == 12600 * kS);
  }
  // llama-sft-0102's submit 10:15+01:00 is 09:15Z, 4,500 s after the first (08:00Z).
  for (const auto& j : sc.training.jobs)
    if (j.name == "llama-sft-0102") CHECK(j.submit.ns() == 4500 * kS);
}

namespace {

/// `kubectl get vcjob -A -o yaml` for three Jobs, in the shape the API server returns them
/// (batch.volcano.sh/v1alpha1 Job: the manifest with the admission webhook's defaults, plus
/// metadata the server sets and the status the job controller writes; JobStatus and
/// JobCondition as config/crd/volcano/bases/batch.volcano.sh_jobs.yaml of Volcano v1.12.1
/// define them). Invented jobs:
///   train-a: created 00:00:00, Pending 00:00:00, Running 00:02:00, Completed 01:02:00;
///   train-b: created 00:30:00, Running 00:31:00 (still running);
///   aborted-c: created 00:40:00, Pending, then Aborted 00:50:00 without running: left out.
///   eval-d: created 00:45:00, Pending.
constexpr const char* kVcjobs = R"(apiVersion: v1
items:
- apiVersion: batch.volcano.sh/v1alpha1
  kind: Job
  metadata:
    creationTimestamp: "2026-01-01T00:00:00Z"
    generation: 1
    name: train-a
    namespace: team-a
    resourceVersion: "4242"
    uid: 0b1c4e5a-8a4e-4d8f-9f3e-4d1f6a0c2b11
  spec:
    maxRetry: 3
    minAvailable: 2
    queue: default
    schedulerName: volcano
    tasks:
    - name: worker
      replicas: 2
      template:
        metadata: {}
        spec:
          tolerations:
          - key: aws.amazon.com/neuron
            operator: Exists
            effect: NoSchedule
          containers:
          - image: public.ecr.aws/neuron/pytorch-training-neuronx:2.1.2
            name: main
            resources:
              requests:
                aws.amazon.com/neuroncore: "32"
                cpu: "120"
                memory: 480Gi
          restartPolicy: OnFailure
  status:
    conditions:
    - lastTransitionTime: "2026-01-01T00:00:00Z"
      status: Pending
    - lastTransitionTime: "2026-01-01T00:02:00Z"
      status: Running
    - lastTransitionTime: "2026-01-01T01:02:00Z"
      status: Completed
    minAvailable: 2
    retryCount: 0
    state:
      lastTransitionTime: "2026-01-01T01:02:00Z"
      phase: Completed
    succeeded: 2
    version: 2
- apiVersion: batch.volcano.sh/v1alpha1
  kind: Job
  metadata:
    creationTimestamp: "2026-01-01T00:30:00Z"
    name: train-b
    namespace: team-a
  spec:
    minAvailable: 1
    queue: default
    schedulerName: volcano
    tasks:
    - name: worker
      replicas: 1
      template:
        spec:
          containers:
          - name: main
            resources:
              requests:
                cpu: "8"
  status:
    conditions:
    - lastTransitionTime: "2026-01-01T00:31:00Z"
      status: Running
    running: 1
    state:
      lastTransitionTime: "2026-01-01T00:31:00Z"
      phase: Running
- apiVersion: batch.volcano.sh/v1alpha1
  kind: Job
  metadata:
    creationTimestamp: "2026-01-01T00:40:00Z"
    name: aborted-c
    namespace: team-b
  spec:
    minAvailable: 1
    queue: default
    tasks:
    - name: worker
      replicas: 1
      template:
        spec:
          containers:
          - name: main
            resources:
              requests:
                cpu: "8"
  status:
    conditions:
    - lastTransitionTime: "2026-01-01T00:40:00Z"
      status: Pending
    - lastTransitionTime: "2026-01-01T00:50:00Z"
      status: Aborted
    state:
      lastTransitionTime: "2026-01-01T00:50:00Z"
      phase: Aborted
- apiVersion: batch.volcano.sh/v1alpha1
  kind: Job
  metadata:
    creationTimestamp: "2026-01-01T00:45:00Z"
    name: eval-d
    namespace: team-b
  spec:
    queue: default
    tasks:
    - name: eval
      replicas: 3
      minAvailable: 2
      template:
        spec:
          containers:
          - name: main
            resources:
              requests:
                cpu: "4"
  status:
    state:
      phase: Pending
kind: List
metadata:
  resourceVersion: ""
)";

}  // namespace

TEST_CASE("a job history from kubectl: `kubectl get vcjob -A -o yaml` read as rows, times from the conditions") {
  test::TempDir d;
  const std::string p = write(d, "vcjobs.yaml", kVcjobs);
  const io::JobHistory h = io::read_job_history(p);
  REQUIRE(h.jobs.size() == 3);
  CHECK(h.ended_unrun == 1);  // aborted-c
  CHECK(h.t0_ns == k2026 * kS);
  const io::HistoryJob& a = h.jobs[0];
  CHECK(a.name == "train-a");
  CHECK(a.ns == "team-a");
  CHECK(a.from_kubectl);
  CHECK(a.status == "Completed");
  CHECK(a.submit_ns == k2026 * kS);
  CHECK(*a.start_ns == (k2026 + 120) * kS);   // the Running condition
  CHECK(*a.end_ns == (k2026 + 3720) * kS);    // the Completed condition, 01:02:00
  CHECK(*a.run_ns() == 3600 * kS);
  CHECK(a.min_available == 2);
  REQUIRE(a.tasks.size() == 1);
  CHECK(a.tasks[0].replicas == 2);
  CHECK(a.tasks[0].requests == json{{"aws.amazon.com/neuroncore", "32"}, {"cpu", "120"}, {"memory", "480Gi"}});
  // The pod template's toleration is the job's own (a history-wide one would not replace it).
  CHECK(a.constraints.at("tolerations") == json::array({{{"key", "aws.amazon.com/neuron"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}));
  CHECK_FALSE(h.jobs[1].constraints.contains("tolerations"));
  const io::HistoryJob& b = h.jobs[1];
  CHECK(b.status == "Running");
  CHECK(*b.start_ns == (k2026 + 1860) * kS);
  CHECK_FALSE(b.end_ns);
  const io::HistoryJob& e = h.jobs[2];
  CHECK(e.name == "eval-d");
  CHECK(e.status == "Pending");
  CHECK_FALSE(e.start_ns);
  CHECK(e.submit_ns == (k2026 + 2700) * kS);
  CHECK(e.min_available == 2);  // the webhook's default: the tasks' minAvailable summed
  CHECK(e.where("queue").find(p + ":") == 0);
  CHECK(e.where("queue").find("(Job team-b/eval-d, spec.queue)") != std::string::npos);

  SUBCASE("the same list as kubectl's JSON reads the same") {
    // JSON is YAML: the List written as -o json would be; here the YAML's first job as JSON.
    const std::string pj = write(d, "vcjobs.json", R"({"apiVersion": "v1", "kind": "List", "items": [
      {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
       "metadata": {"name": "train-a", "namespace": "team-a", "creationTimestamp": "2026-01-01T00:00:00Z"},
       "spec": {"minAvailable": 2, "queue": "default", "tasks": [{"name": "worker", "replicas": 2,
         "template": {"spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": "120"}}}]}}}]},
       "status": {"conditions": [{"status": "Running", "lastTransitionTime": "2026-01-01T00:02:00Z"},
                                 {"status": "Completed", "lastTransitionTime": "2026-01-01T01:02:00Z"}],
                  "state": {"phase": "Completed", "lastTransitionTime": "2026-01-01T01:02:00Z"}}}]})");
    const io::JobHistory hj = io::read_job_history(pj);
    REQUIRE(hj.jobs.size() == 1);
    CHECK(*hj.jobs[0].run_ns() == 3600 * kS);
  }
}

TEST_CASE("a job history from kubectl: what it cannot replay is refused at the Job's place") {
  test::TempDir d;
  auto error_of_yaml = [&](const std::string& text) {
    const std::string p = write(d, "bad.yaml", text);
    try {
      (void)io::read_job_history(p);
    } catch (const io::ScenarioError& e) {
      return std::string(e.what());
    }
    FAIL("no error for: " << text);
    return std::string();
  };
  const std::string job = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: j
  namespace: ns
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  tasks:
  - name: w
    replicas: 1
    template:
      spec:
        containers:
        - name: main
          resources:
            requests:
              cpu: "1"
)";
  // A manifest to submit: no status.
  CHECK(error_of_yaml(job).find("has no status.state.phase") != std::string::npos);
  // No creationTimestamp.
  std::string no_ts = job;
  no_ts.erase(no_ts.find("  creationTimestamp"), std::string("  creationTimestamp: \"2026-01-01T00:00:00Z\"\n").size());
  CHECK(error_of_yaml(no_ts + "status:\n  state:\n    phase: Pending\n").find("has no metadata.creationTimestamp") != std::string::npos);
  // A phase Volcano does not have, at its line and column (`    phase: Done` is line 20).
  const std::string bad_phase = error_of_yaml(job + "status:\n  state:\n    phase: Done\n");
  CHECK_MESSAGE(bad_phase.find("bad.yaml:20:12: status.state.phase:") != std::string::npos, bad_phase);
  CHECK(bad_phase.find("'Done' is not a Volcano Job phase") != std::string::npos);
  // A bad time, named with its field.
  CHECK(error_of_yaml(job + "status:\n  conditions:\n  - status: Running\n    lastTransitionTime: yesterday\n  state:\n    phase: Running\n")
            .find("status.conditions[].lastTransitionTime 'yesterday'") != std::string::npos);
  // Completed without saying when.
  CHECK(error_of_yaml(job + "status:\n  conditions:\n  - status: Running\n    lastTransitionTime: \"2026-01-01T00:01:00Z\"\n  state:\n    phase: Completed\n")
            .find("is Completed but says not when") != std::string::npos);
  // Another kind in the list.
  CHECK(error_of_yaml("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\nspec:\n  weight: 1\n")
            .find("a Queue in a job history") != std::string::npos);
}

TEST_CASE("a history scenario from kubectl's Volcano Jobs runs: the queue check names the Job's spec.queue") {
  test::TempDir d;
  write(d, "vcjobs.yaml", kVcjobs);
  json sc = scenario_with(d, "name,namespace,queue,submit_time,start_time,end_time,status,tasks\n"
                             "x,ns,default,2026-01-01T00:00:00Z,,,Pending,worker:1:cpu=1\n");
  sc["workload"]["history"]["file"] = "vcjobs.yaml";
  sc["queues"] = json::array({{{"name", "default"}, {"weight", 1}}});
  sc.erase("priority_classes");
  const std::string sp = write(d, "s.json", sc.dump());
  const io::LoadedScenario ls = io::load_scenario(sp);
  REQUIRE(ls.history);
  CHECK(ls.history->jobs == 3);
  CHECK(ls.history->ended_unrun == 1);
  CHECK(ls.history->describe().find("(and 1 Job(s) that ended without running, left out)") != std::string::npos);
  // A queue the scenario lacks: the Job's place and field.
  std::string text = kVcjobs;
  text.replace(text.find("queue: default"), 14, "queue: research");
  write(d, "vcjobs.yaml", text);
  try {
    (void)io::load_scenario(sp);
    FAIL("no error");
  } catch (const io::ScenarioError& e) {
    const std::string m = e.what();
    CHECK_MESSAGE(m.find("(Job team-a/train-a, spec.queue): queue 'research' is not defined") != std::string::npos, m);
  }
}

namespace {

/// One series of a Prometheus query_range answer (the HTTP API's "matrix" result: metric labels,
/// then [unix time, "value"] samples), for a kube-state-metrics pod series whose value is `value`.
json series(const std::string& name, const json& labels, const std::string& value) {
  json m = labels;
  m["__name__"] = name;
  return {{"metric", m}, {"values", json::array({json::array({1767229500, value}), json::array({1767229800, value})})}};
}

/// Three pods as kube-state-metrics exports them (docs/metrics/workload/pod-metrics.md: times as
/// unix seconds; requests in cores, bytes and units; an extended resource's name sanitized to a
/// label value; Volcano's pod labels allowed through --metric-labels-allowlist):
///   ml/train-worker-0, -1 (Volcano Job "train", task worker, queue research): created 00:00:00
///   and 00:00:01, started 00:02:00 and 00:03:00, completed 01:03:00 (2026-01-01, UTC);
///   ml/eval-worker-0 (Job "eval"): created 00:15:00, started 00:16:00, not completed;
///   kube-system/coredns-1: no Volcano label.
json prometheus_export() {
  const double t0 = static_cast<double>(k2026);
  json result = json::array();
  auto pod = [&](const std::string& ns, const std::string& name, const std::string& job, double created, std::optional<double> start,
                 std::optional<double> done) {
    const json id = {{"namespace", ns}, {"pod", name}, {"uid", name + "-uid"}};
    auto num = [](double v) { char b[32]; std::snprintf(b, sizeof b, "%.0f", v); return std::string(b); };
    result.push_back(series("kube_pod_created", id, num(created)));
    if (start) result.push_back(series("kube_pod_start_time", id, num(*start)));
    if (done) result.push_back(series("kube_pod_completion_time", id, num(*done)));
    json labels = id;
    if (!job.empty()) {
      labels["label_volcano_sh_job_name"] = job;
      labels["label_volcano_sh_task_spec"] = "worker";
      labels["label_volcano_sh_queue_name"] = "research";
    }
    result.push_back(series("kube_pod_labels", labels, "1"));
    for (const auto& [res, unit, v] : {std::tuple<const char*, const char*, const char*>{"cpu", "core", "8"},
                                       {"memory", "byte", "34359738368"}, {"aws_amazon_com_neuroncore", "integer", "32"}}) {
      json r = id;
      r["container"] = "main";
      r["resource"] = res;
      r["unit"] = unit;
      result.push_back(series("kube_pod_container_resource_requests", r, v));
    }
  };
  pod("ml", "train-worker-0", "train", t0, t0 + 120, t0 + 3780);
  pod("ml", "train-worker-1", "train", t0 + 1, t0 + 180, t0 + 3780);
  pod("ml", "eval-worker-0", "eval", t0 + 900, t0 + 960, std::nullopt);
  pod("kube-system", "coredns-1", "", t0 - 86400, t0 - 86000, std::nullopt);
  return {{"status", "success"}, {"data", {{"resultType", "matrix"}, {"result", result}}}};
}

}  // namespace

TEST_CASE("a job history from Prometheus: kube-state-metrics' pod series grouped into Volcano Jobs") {
  test::TempDir d;
  const std::string p = write(d, "ksm.json", prometheus_export().dump());
  const io::JobHistory h = io::read_job_history(p);
  REQUIRE(h.jobs.size() == 2);
  CHECK(h.pods_not_volcano == 1);  // coredns
  CHECK(h.t0_ns == k2026 * kS);
  const io::HistoryJob& t = h.jobs[0];  // by submit time
  CHECK(t.name == "train");
  CHECK(t.ns == "ml");
  CHECK(t.queue == "research");
  CHECK(t.from_prometheus);
  CHECK(t.submit_ns == k2026 * kS);              // the first pod's creation
  CHECK(*t.start_ns == (k2026 + 180) * kS);      // the last pod's start: the gang runs from then
  CHECK(*t.end_ns == (k2026 + 3780) * kS);
  CHECK(*t.run_ns() == 3600 * kS);
  CHECK(t.status == "Completed");
  REQUIRE(t.tasks.size() == 1);
  CHECK(t.tasks[0].name == "worker");
  CHECK(t.tasks[0].replicas == 2);
  CHECK(t.tasks[0].requests == json{{"aws.amazon.com/neuroncore", "32"}, {"cpu", "8000m"}, {"memory", "34359738368"}});
  const io::HistoryJob& e = h.jobs[1];
  CHECK(e.name == "eval");
  CHECK(e.status == "Running");
  CHECK(e.submit_ns == (k2026 + 900) * kS);
  CHECK(*e.start_ns == (k2026 + 960) * kS);
  CHECK_FALSE(e.end_ns);
  CHECK(e.where("queue").find("(Job ml/eval, label volcano.sh/queue-name)") != std::string::npos);
  // The export saw the cluster until its last sample, 1767229800 = 2026-01-01T01:10:00Z (series()),
  // later than any time a pod recorded (train's completion, 01:03:00): eval ran at least until then.
  CHECK(h.recorded_until_ns == std::optional<std::int64_t>((k2026 + 4200) * kS));
  CHECK(io::latest_time(h) == (k2026 + 4200) * kS);

  SUBCASE("scraped without honor_labels: the series' own labels are exported_*") {
    // Prometheus renames a series label that clashes with a target label (scrape_config
    // honor_labels: false, the default): kube-state-metrics' namespace and pod become
    // exported_namespace and exported_pod, namespace and pod then naming kube-state-metrics.
    json x = prometheus_export();
    for (auto& s : x["data"]["result"]) {
      json& m = s["metric"];
      m["exported_namespace"] = m["namespace"];
      m["exported_pod"] = m["pod"];
      m["namespace"] = "monitoring";
      m["pod"] = "kube-state-metrics-6d4b8c5f7-x2x9q";
    }
    const io::JobHistory hx = io::read_job_history(write(d, "exported.json", x.dump()));
    REQUIRE(hx.jobs.size() == 2);
    CHECK(hx.jobs[0].ns == "ml");
    CHECK(hx.jobs[0].tasks[0].replicas == 2);
    CHECK(*hx.jobs[0].run_ns() == 3600 * kS);
  }
  SUBCASE("what it cannot read is refused with the JSON path") {
    auto error_of_json = [&](const json& doc) {
      const std::string bad = write(d, "bad.json", doc.dump());
      try {
        (void)io::read_job_history(bad);
      } catch (const io::ScenarioError& x) {
        return std::string(x.what());
      }
      FAIL("no error");
      return std::string();
    };
    json failed = prometheus_export();
    failed["status"] = "error";
    failed["error"] = "query timed out";
    CHECK(error_of_json(failed).find("/status: the query did not succeed (\"error\"): query timed out") != std::string::npos);
    json unknown = prometheus_export();
    for (auto& s : unknown["data"]["result"])
      if (s["metric"].value("resource", "") == "aws_amazon_com_neuroncore") s["metric"]["resource"] = "example_com_widget";
    CHECK(error_of_json(unknown).find("/metric/resource: 'example_com_widget' is not a resource name") != std::string::npos);
    json bad_value = prometheus_export();
    bad_value["data"]["result"][0]["values"][1][1] = "soon";
    CHECK(error_of_json(bad_value).find("/data/result/0/values: 'soon' is not a finite number") != std::string::npos);
    json no_labels = prometheus_export();
    json kept = json::array();
    for (auto& s : no_labels["data"]["result"])
      if (s["metric"]["__name__"] != "kube_pod_labels") kept.push_back(s);
    no_labels["data"]["result"] = kept;
    CHECK(error_of_json(no_labels).find("no kube_pod_labels series") != std::string::npos);
  }
}

TEST_CASE("conditional_median: the median of the finished run times longer than the time run, worked by hand") {
  const std::vector<std::int64_t> runs = {10 * kS, 20 * kS, 30 * kS, 40 * kS, 50 * kS};
  // Not started: all five, the middle one.
  CHECK(io::conditional_median(runs, std::nullopt).ns == 30 * kS);
  CHECK(io::conditional_median(runs, std::nullopt).from == 5);
  // Run 15 s: 20, 30, 40, 50 -> (30 + 40) / 2 = 35 s.
  CHECK(io::conditional_median(runs, 15 * kS).ns == 35 * kS);
  CHECK(io::conditional_median(runs, 15 * kS).from == 4);
  // Run exactly 20 s: longer than 20 s are 30, 40, 50 -> 40 s.
  CHECK(io::conditional_median(runs, 20 * kS).ns == 40 * kS);
  // Run 0 s: every run time is longer -> 30 s.
  CHECK(io::conditional_median(runs, 0).ns == 30 * kS);
  // Run 45 s: only 50 s.
  CHECK(io::conditional_median(runs, 45 * kS).ns == 50 * kS);
  // Run 50 s: none longer -> the fallback, twice the time run.
  const io::ModelRunTime f = io::conditional_median(runs, 50 * kS);
  CHECK(f.fallback);
  CHECK(f.from == 0);
  CHECK(f.ns == 100 * kS);
  // The mean of the two middle ones rounds down to 1 ns: 1 ns and 2 ns -> 1 ns.
  CHECK(io::conditional_median({1, 2}, std::nullopt).ns == 1);
}

TEST_CASE("conditional_draw: one of the finished run times longer than the time run, at its empirical frequency") {
  const std::vector<std::int64_t> runs = {10 * kS, 20 * kS, 20 * kS, 40 * kS};
  core::RngStreams streams(7);
  core::Engine& rng = streams.stream(io::kHistoryRunTimeStream);
  // Not started: 10 s, 20 s, 40 s with probabilities 1/4, 2/4 (20 s is two jobs), 1/4.
  constexpr int kN = 40'000;
  std::map<std::int64_t, int> seen;
  for (int i = 0; i < kN; ++i) {
    const io::ModelRunTime r = io::conditional_draw(runs, std::nullopt, rng);
    CHECK_FALSE(r.fallback);
    ++seen[r.ns];
  }
  REQUIRE(seen.size() == 3);  // every draw is one of the three run times, and each is drawn
  // Pearson's chi-square against the empirical probabilities: with 2 degrees of freedom its
  // 99.9th percentile is -2 ln(0.001) = 13.82 (the chi-square(2) survival function is
  // exp(-x/2)): a sampler that is right fails this one seed's check with probability 0.001.
  const std::map<std::int64_t, double> p = {{10 * kS, 0.25}, {20 * kS, 0.5}, {40 * kS, 0.25}};
  double chi2 = 0;
  for (const auto& [v, prob] : p) {
    const double e = prob * kN, o = seen[v];
    chi2 += (o - e) * (o - e) / e;
  }
  CHECK_MESSAGE(chi2 < 13.82, "chi-square " << chi2);
  // Run 15 s: only 20 s (2/3) and 40 s (1/3); every draw longer than 15 s. One degree of
  // freedom: its 99.9th percentile is 10.83 (3.29^2, the normal's two-sided 0.1 %).
  int twenty = 0;
  for (int i = 0; i < kN; ++i) {
    const std::int64_t v = io::conditional_draw(runs, 15 * kS, rng).ns;
    CHECK(v > 15 * kS);
    CHECK((v == 20 * kS || v == 40 * kS));
    twenty += v == 20 * kS;
  }
  const double e20 = kN * 2.0 / 3, e40 = kN / 3.0;
  const double chi1 = (twenty - e20) * (twenty - e20) / e20 + (kN - twenty - e40) * (kN - twenty - e40) / e40;
  CHECK_MESSAGE(chi1 < 10.83, "chi-square " << chi1);
  // The same seed draws the same sequence; another seed another.
  core::RngStreams a(11), b(11), c(12);
  std::vector<std::int64_t> da, db, dc;
  for (int i = 0; i < 50; ++i) {
    da.push_back(io::conditional_draw(runs, std::nullopt, a.stream(io::kHistoryRunTimeStream)).ns);
    db.push_back(io::conditional_draw(runs, std::nullopt, b.stream(io::kHistoryRunTimeStream)).ns);
    dc.push_back(io::conditional_draw(runs, std::nullopt, c.stream(io::kHistoryRunTimeStream)).ns);
  }
  CHECK(da == db);
  CHECK(da != dc);  // equal with probability (3/8)^50 at most
  // Past every run time: the fallback, no draw.
  const io::ModelRunTime f = io::conditional_draw(runs, 40 * kS, rng);
  CHECK(f.fallback);
  CHECK(f.ns == 80 * kS);
}

TEST_CASE("a history scenario with the history_distribution model: draws by the run seed, conditional for Running jobs") {
  test::TempDir d;
  // Finished: a 3,600 s, e 7,200 s. b Running has run 6,595 s by 02:00:00 (as above): only
  // 7,200 s is longer, so every seed gives it 7,200 s. c Pending: 3,600 s or 7,200 s.
  const std::string csv = kHeader +
                          "a,team-a,team-a,,2026-01-01T00:00:00Z,2026-01-01T00:00:05Z,2026-01-01T01:00:05Z,Completed,w:1:cpu=1,\n"
                          "b,team-b,team-b,,2026-01-01T00:10:00Z,2026-01-01T00:10:05Z,,Running,w:1:cpu=1,\n"
                          "c,team-b,team-b,,2026-01-01T00:20:00Z,,,Pending,w:1:cpu=1,\n"
                          "e,team-a,team-a,,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,2026-01-01T02:00:00Z,Failed,w:1:cpu=1,\n";
  const json dist = {{"workload", {{"history", {{"unfinished_duration", {{"model", "history_distribution"}, {"source", "test"}}}}}}}};
  const std::string p = write_scenario(d, scenario_with(d, csv, dist));
  std::set<std::int64_t> c_runs;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    io::LoadOptions o;
    o.seed = seed;
    const io::LoadedScenario sc = io::load_scenario(p, o);
    CHECK(run_of(sc, "b") == 7200 * kS);
    const std::int64_t c = run_of(sc, "c");
    CHECK((c == 3600 * kS || c == 7200 * kS));
    c_runs.insert(c);
    CHECK(sc.history->model == "history_distribution");
    CHECK(sc.history->seed == seed);
    CHECK(sc.history->conditional == 1);
    CHECK(run_of(io::load_scenario(p, o), "c") == c);  // the same seed, the same draw
  }
  CHECK(c_runs.size() == 2);  // 30 seeds all alike: probability 2 x 2^-30
  // No seed given: the scenario's.
  const io::LoadedScenario own = io::load_scenario(p);
  CHECK(own.history->seed == own.seed);
  // A run records the stream and says what the seed changes.
  const test::ScenarioRun r(p);
  CHECK(r.summary.at("job_history").at("unfinished_model") == "history_distribution");
  CHECK(r.summary.at("job_history").at("seed") == own.seed);
  CHECK(r.printed.find("drawn with seed " + std::to_string(own.seed) + ", stream history.run_time, from 2 finished job(s)") !=
        std::string::npos);
}

TEST_CASE("a history job the twin cannot model is skipped, counted with its reason, and a warning (--strict: an error)") {
  test::TempDir d;
  const std::string csv = kHeader +
                          "a,ns,team-a,,2026-01-01T00:00:00Z,,,Pending,\"l:1:cpu=1;w:2:cpu=2\",\n"
                          "b,ns,team-a,,2026-01-01T00:10:00Z,2026-01-01T00:10:00Z,2026-01-01T01:10:00Z,Completed,w:1:cpu=1,\n";
  const json fixed = {{"workload", {{"history", {{"unfinished_duration", {{"model", "fixed"}, {"duration", "30m"}, {"source", "test"}}}}}}}};
  const std::string p = write_scenario(d, scenario_with(d, csv, fixed));
  const io::LoadedScenario sc = io::load_scenario(p);
  REQUIRE(sc.training.jobs.size() == 1);
  CHECK(sc.training.jobs[0].name == "b");
  CHECK(sc.history->jobs == 2);
  CHECK(sc.history->skipped == 1);
  CHECK(sc.history->unfinished == 0);  // a, the only one without end_time, is skipped
  const std::string why = "tasks of different pod shapes (mltwin gives every pod of a job the same requests)";
  CHECK(sc.history->skipped_reasons == std::map<std::string, std::size_t>{{why, 1}});
  REQUIRE(sc.warnings.size() == 1);
  CHECK(replace_all(replace_all(sc.warnings[0], d.file("h.csv"), "F"), p, "S") ==
        "F:2: column tasks: Job 'a' (namespace ns) is skipped: " + why + " (read as S: /workload/history)");
  CHECK(sc.history->describe().find("2 job(s); 1 skipped, not modelled (1 with " + why + ")") != std::string::npos);
  io::LoadOptions strict;
  strict.strict = true;
  try {
    (void)io::load_scenario(p, strict);
    FAIL("--strict loaded it");
  } catch (const io::ScenarioError& e) {
    CHECK(replace_all(replace_all(e.what(), d.file("h.csv"), "F"), p, "S") ==
          "F:2: column tasks: Job 'a' (namespace ns) is skipped: " + why + " (read as S: /workload/history) (--strict: warnings are errors)");
  }
}

TEST_CASE("a job history on its own: recognised by its header, described for mltwin validate") {
  const std::string shipped = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/history/jobs.csv";
  CHECK(io::looks_like_job_history(shipped));
  CHECK_FALSE(io::looks_like_job_history(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-history-csv.json"));
  CHECK_FALSE(io::looks_like_job_history(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/kubectl/pods.json"));
  const std::string text = io::describe_history("jobs.csv", io::read_job_history(shipped));
  // 10 rows: 6 Completed + 1 Failed, 2 Running, 1 Pending; the median of the 7 run times is
  // 12,600 s (see the shipped example's test above), the shortest 1,800 s, the longest 27,000 s;
  // the latest time is mixtral-ft-8's submit, 22:30:00Z.
  CHECK(text.rfind("jobs.csv: a job history of 10 job(s): 7 finished (Completed, Failed), 2 Running, 1 Pending; 0 the twin would skip\n", 0) == 0);
  CHECK(text.find("submitted from 2026-01-05T08:00:00Z; latest time recorded 2026-01-05T22:30:00Z") != std::string::npos);
  CHECK(text.find("finished run times: median 12600 s, from 1800 s to 27000 s") != std::string::npos);
  // A kubectl list of Volcano Jobs is one too.
  test::TempDir d;
  CHECK(io::looks_like_job_history(write(d, "v.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: batch.volcano.sh/v1alpha1\n  kind: Job\n")));
}

TEST_CASE("a kubectl Job whose tasks' pod templates have different constraints is read, marked not modelled, and skipped") {
  test::TempDir d;
  // Two tasks of the same requests; only task w's template has a nodeSelector.
  const std::string yaml = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: j
  namespace: ns
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  tasks:
  - name: w
    replicas: 1
    template:
      spec:
        nodeSelector:
          disk: ssd
        containers:
        - name: main
          resources:
            requests:
              cpu: "1"
  - name: v
    replicas: 1
    template:
      spec:
        containers:
        - name: main
          resources:
            requests:
              cpu: "1"
status:
  state:
    phase: Pending
)";
  const std::string p = write(d, "vcjobs.yaml", yaml);
  CHECK(io::looks_like_job_history(p));
  const io::JobHistory h = io::read_job_history(p);
  REQUIRE(h.jobs.size() == 1);
  CHECK(h.jobs[0].unmodelled == "tasks with different nodeSelector, node affinity or tolerations (mltwin gives every pod of a job one set)");
  CHECK(io::describe_history("v.yaml", h).find("1 the twin would skip (1 with tasks with different nodeSelector") != std::string::npos);
}
