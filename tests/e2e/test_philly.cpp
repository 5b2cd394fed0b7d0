// End to end on the real trace: the first 5,000 Philly jobs by submit time on the main
// scenario (32 × trn1.32xlarge, Volcano v1.12.1 defaults). Needs ../shared/data (or
// MLTWIN_DATA); without it the test FAILS, it does not skip.
//
//   (a) no node is ever over-allocated: the cluster state is checked after every event;
//       independently, the pods between Bound and Succeeded never exceed a node's capacity;
//   (b) every job ends Completed (or, larger than the cluster, waits Pending for ever, as
//       Volcano admits such a job: volcano#1295), and the run ends with no events left;
//   (c) a gang is bound in one scheduling cycle: all its pods' Bound events carry one time,
//       50 ms (the constant bind latency) after a whole second (the 1 s schedule period);
//   (d) 5,000 jobs, exactly the first 5,000 of the trace by submit time; delays >= 0;
//   (e) the CLI is deterministic: two processes with one seed write byte-identical SQLite
//       files, another seed changes the simulated facts; the CLI's chunked event loop gives
//       the same job times as stepping the simulator one event at a time.
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"

#if !defined(MLTWIN_SOURCE_DIR) || !defined(MLTWIN_CLI)
#error "MLTWIN_SOURCE_DIR and MLTWIN_CLI must be defined by the build"
#endif

extern char** environ;

namespace fs = std::filesystem;
using namespace mltwin;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::int64_t kMs = 1'000'000LL;
constexpr std::size_t kJobs = 5000;
constexpr int kNodes = 32;            // the scenario's node group
constexpr int kDevicesPerNode = 16;   // trn1.32xlarge
constexpr double kNodeCpu = 128, kNodeMemory = 512.0 * 1024 * 1024 * 1024, kNodeEfa = 8;

const std::string kScenario = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-philly.json";

double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The data folder, or a test failure saying how to provide it.
std::string data_dir_or_fail() {
  std::string dir;
  try {
    dir = io::resolve_data_dir("", std::string(MLTWIN_SOURCE_DIR) + "/scenarios");
  } catch (const std::exception& e) {
    FAIL("the Philly data folder is missing (this test needs ../shared/data beside the checkout, or MLTWIN_DATA): "
         << std::string(e.what()));
  }
  const std::string csv = dir + "/training/philly/philly.csv";
  REQUIRE_MESSAGE(fs::is_regular_file(csv), "the Philly trace is missing: " << csv);
  return dir;
}

// ---------------------------------------------------------------- an independent trace reader

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct TraceRow {
  std::int64_t t_s;
  double duration_s;
  int gpus;
  std::string cluster;
  std::int64_t line;
};

std::vector<TraceRow> read_trace(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<TraceRow> rows;
  std::string line;
  std::int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (n == 1 || line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
    REQUIRE_MESSAGE(f.size() == 5, "line " << n);
    int y, mo, d, h, mi, s;
    REQUIRE(std::sscanf(f[0].c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &s) == 6);
    const std::int64_t t = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                           mi * 60 + s;
    rows.push_back({t, std::stod(f[1]), std::stoi(f[2]), f[4], n});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) { return a.t_s < b.t_s; });
  return rows;
}

// ---------------------------------------------------------------- recorder and run

struct JobRec {
  models::JobSubmitted sub;
  std::vector<models::JobFinal> finals;
  std::vector<std::int64_t> created, bound;
  int running = 0, succeeded = 0;
};

class Recorder final : public models::TrainingRecorder {
 public:
  std::vector<JobRec> jobs;
  std::vector<std::string> errors;  // independent over-allocation findings
  std::size_t decisions = 0, phase_changes = 0, samples = 0;

  Recorder() {
    for (auto& n : node_) n.fill(0);
  }
  void job_submitted(const models::JobSubmitted& j) override {
    if (j.job != jobs.size()) errors.push_back("job ids are not dense in submission order at " + std::to_string(j.job));
    jobs.push_back({j, {}, {}, {}, 0, 0});
  }
  void job_final(const models::JobFinal& f) override { jobs.at(f.job).finals.push_back(f); }
  void pod_event(const models::PodEvent& e) override {
    JobRec& j = jobs.at(e.job);
    if (e.event == "Created") {
      j.created.push_back(e.t.ns());
    } else if (e.event == "Bound") {
      j.bound.push_back(e.t.ns());
      occupy(j, e, +1);
    } else if (e.event == "Running") {
      ++j.running;
    } else if (e.event == "Succeeded") {
      ++j.succeeded;
      occupy(j, e, -1);
    }
  }
  void decision(const models::Decision&) override { ++decisions; }
  void phase_change(const models::PhaseChange&) override { ++phase_changes; }
  void sample(const models::ClusterSample&) override { ++samples; }
  void checkpoint(core::Time) override {}
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}

 private:
  // What the pods between Bound and Succeeded hold on each node: devices, cpu, memory, EFA.
  void occupy(const JobRec& j, const models::PodEvent& e, int sign) {
    const std::string node(e.node);
    const auto dash = node.rfind('-');
    const int idx = dash == std::string::npos ? -1 : std::atoi(node.c_str() + dash + 1);
    if (idx < 0 || idx >= kNodes) {
      errors.push_back("unknown node '" + node + "'");
      return;
    }
    auto& n = node_[static_cast<std::size_t>(idx)];
    n[0] += sign * j.sub.neuron_devices_per_pod;
    n[1] += sign * j.sub.cpu_per_pod;
    n[2] += sign * j.sub.memory_gib_per_pod * 1024.0 * 1024 * 1024;
    n[3] += sign * j.sub.efa_per_pod;
    if (n[0] > kDevicesPerNode || n[1] > kNodeCpu + 1e-9 || n[2] > kNodeMemory * (1 + 1e-12) || n[3] > kNodeEfa)
      errors.push_back("node " + node + " over-allocated at t = " + std::to_string(e.t.ns()) + " ns (devices " +
                       std::to_string(n[0]) + ", cpu " + std::to_string(n[1]) + ")");
  }
  std::array<std::array<double, 4>, kNodes> node_;
};

struct JobTimes {
  std::string phase;
  std::int64_t inqueue, scheduled, start, end;
};

struct InProcessRun {
  std::vector<JobTimes> times;  // per job, for comparison with the CLI's database
  bool ok = false;
};

InProcessRun& in_process_run() {
  static InProcessRun result;
  return result;
}

std::int64_t ns_or_null(core::Time t) { return t == core::Time::max() ? -1 : t.ns(); }

}  // namespace

TEST_CASE("Philly, first 5,000 jobs: invariants after every event, gangs, final phases") {
  const std::string data = data_dir_or_fail();
  auto t0 = std::chrono::steady_clock::now();
  io::LoadOptions opts;
  opts.overrides = {{"workload", {{"philly", {{"max_jobs", kJobs}}}}}};
  const io::LoadedScenario sc = io::load_scenario(kScenario, opts);
  MESSAGE("load: " << secs_since(t0) << " s");
  const auto& specs = sc.training.jobs;

  // (d) exactly the first 5,000 jobs of the trace by submit time, t = 0 at the earliest.
  REQUIRE(specs.size() == kJobs);
  {
    const std::vector<TraceRow> rows = read_trace(data + "/training/philly/philly.csv");
    REQUIRE(rows.size() == 82247);
    for (std::size_t i = 0; i < kJobs; ++i) {
      CAPTURE(i);
      const TraceRow& r = rows[i];
      REQUIRE(specs[i].trace_row == r.line);
      REQUIRE(specs[i].submit.ns() == (r.t_s - rows[0].t_s) * kS);
      REQUIRE(specs[i].trace_gpus == r.gpus);
      REQUIRE(specs[i].queue == "vc-" + r.cluster);
      REQUIRE(std::llabs(specs[i].duration.count_ns() - std::llround(r.duration_s * 1e9)) <= 1);
    }
  }

  // Drive the model one event at a time.
  t0 = std::chrono::steady_clock::now();
  core::Simulator sim;
  core::RngStreams rng(sc.seed);
  Recorder rec;
  models::TrainingCluster cluster(sc.training, sim, rng, rec);
  cluster.start();
  std::uint64_t events = 0;
  std::string violation;
  core::Time violation_at;
  REQUIRE(cluster.state().check_invariants().empty());
  while (sim.step()) {
    ++events;
    if (std::string v = cluster.state().check_invariants(); !v.empty() && violation.empty()) {
      violation = v;
      violation_at = sim.now();
    }
  }
  const double run_s = secs_since(t0);
  cluster.finish(cluster.last_event());
  MESSAGE("simulated " << cluster.last_event().seconds() / 86400 << " days, " << events << " events, "
                       << cluster.stats().sessions << " sessions in " << run_s
                       << " s wall (with an invariant check after every event)");

  // (a) no node over-allocated, no aggregate drift, at any event.
  CHECK_MESSAGE(violation.empty(), "at t = " << violation_at.ns() << " ns: " << violation);
  REQUIRE(events > 0);
  CHECK_MESSAGE(rec.errors.empty(), (rec.errors.empty() ? std::string() : rec.errors.front()));

  // (b) the run ends with no events left and every job in a final phase.
  CHECK(sim.pending_count() == 0);
  CHECK(sim.next_time() == core::Time::max());
  REQUIRE(rec.jobs.size() == kJobs);
  CHECK(cluster.submitted() == kJobs);
  CHECK(cluster.ended() == kJobs);
  std::size_t completed = 0, never_placed = 0, same_instant = 0;
  InProcessRun& keep = in_process_run();
  keep.times.clear();
  for (std::size_t i = 0; i < kJobs; ++i) {
    CAPTURE(i);
    const JobRec& j = rec.jobs[i];
    const auto& spec = specs[i];
    REQUIRE(j.sub.name == spec.name);
    REQUIRE(j.finals.size() == 1);
    const models::JobFinal& f = j.finals[0];
    keep.times.push_back({f.phase, ns_or_null(f.inqueue), ns_or_null(f.scheduled), ns_or_null(f.start),
                          ns_or_null(f.end)});
    CHECK(cluster.outcomes()[i].phase == f.phase);
    if (f.phase == "Pending") {
      // Only a job larger than the whole cluster (more than 32 pods; no queue has a capability)
      // never runs: admitted, as Volcano admits it, and never placed.
      ++never_placed;
      CHECK(spec.nnodes > kNodes);
      CHECK(f.reason.rfind("can never be placed", 0) == 0);
      CHECK(j.bound.empty());
      continue;
    }
    REQUIRE_MESSAGE(f.phase == "Completed", "job " << spec.name << " ended " << f.phase << ": " << f.reason);
    ++completed;
    CHECK(spec.nnodes <= kNodes);
    CHECK(f.podgroup_phase == "Completed");

    // (c) one gang, one cycle: nnodes Bound events at one time, 50 ms after a whole second.
    REQUIRE(j.bound.size() == static_cast<std::size_t>(spec.nnodes));
    const std::int64_t b = j.bound.front();
    for (std::int64_t t : j.bound) CHECK(t == b);
    CHECK((b - 50 * kMs) % kS == 0);
    CHECK(f.scheduled.ns() == b);
    // Pods are created together when the PodGroup is admitted, at a session (a whole second).
    REQUIRE(j.created.size() == static_cast<std::size_t>(spec.nnodes));
    for (std::int64_t t : j.created) CHECK(t == f.inqueue.ns());
    CHECK(f.inqueue.ns() % kS == 0);
    CHECK(j.running == spec.nnodes);
    CHECK(j.succeeded == spec.nnodes);

    // (d) times in order: submit <= inqueue (at a later session) < bind decision; start is
    // the slowest pod's start-up (uniform 1-5 s) after the bind; training lasts the trace's
    // duration exactly.
    const std::int64_t submit = spec.submit.ns();
    CHECK(f.inqueue.ns() >= submit);
    if (f.inqueue.ns() == submit) ++same_instant;  // see the note after the loop
    CHECK(b - submit >= 0);  // queueing delay
    CHECK(b >= f.inqueue.ns() + kS + 50 * kMs);
    CHECK(f.start.ns() - b >= 1 * kS);
    CHECK(f.start.ns() - b <= 5 * kS);
    CHECK(f.end.ns() - f.start.ns() == spec.duration.count_ns());
  }
  CHECK(completed + never_placed == kJobs);
  MESSAGE(completed << " completed, " << never_placed << " never placed");
  // Philly submits are whole seconds, i.e. schedule-period boundaries: the cycle at a boundary
  // sees every change at or before it, so a job that fits is admitted at its own submit instant.
  MESSAGE(same_instant << " jobs admitted in the session at their own submit instant");
  for (std::size_t i = 0; i < kJobs; ++i)
    if (specs[i].nnodes > kNodes) CHECK(rec.jobs[i].finals[0].phase == "Pending");
  keep.ok = true;
}

// ---------------------------------------------------------------- the CLI, in other processes

namespace {

/// Starts `args` (argv[0] = the program) with stdout and stderr sent to `log`; returns the pid.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE_MESSAGE(rc == 0, "posix_spawn " << args[0] << ": " << std::strerror(rc));
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE_MESSAGE(WIFEXITED(status), "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  return WEXITSTATUS(status);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

using mltwin::test::TempDir;

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("open " + path + ": " + sqlite3_errmsg(db_));
  }
  ~Db() { sqlite3_close_v2(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  /// Rows of `sql`, each column as text ("NULL" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error("prepare '" + sql + "': " + sqlite3_errmsg(db_));
    std::vector<std::vector<std::string>> out;
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> r;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const unsigned char* t = sqlite3_column_text(s, c);
        r.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out.push_back(std::move(r));
    }
    sqlite3_finalize(s);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

TEST_CASE("Philly, first 5,000 jobs: the CLI writes byte-identical files for one seed") {
  (void)data_dir_or_fail();
  REQUIRE_MESSAGE(fs::is_regular_file(MLTWIN_CLI), "the mltwin binary is missing: " << MLTWIN_CLI);
  TempDir dir;
  const std::string a = dir.file("a.sqlite"), b = dir.file("b.sqlite"), c = dir.file("c.sqlite");
  auto args = [&](const std::string& out, const char* seed) {
    return std::vector<std::string>{MLTWIN_CLI, "run", kScenario, "--max-jobs", std::to_string(kJobs), "--seed", seed,
                                    "--out", out, "--no-progress"};
  };
  // Three processes at once: a and b with the scenario's seed (1), c with seed 2.
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pa = spawn(args(a, "1"), dir.file("a.log"));
  const pid_t pb = spawn(args(b, "1"), dir.file("b.log"));
  const pid_t pc = spawn(args(c, "2"), dir.file("c.log"));
  const int ra = wait_exit(pa), rb = wait_exit(pb), rc = wait_exit(pc);
  MESSAGE("three CLI runs in " << secs_since(t0) << " s wall");
  REQUIRE_MESSAGE(ra == 0, slurp(dir.file("a.log")));
  REQUIRE_MESSAGE(rb == 0, slurp(dir.file("b.log")));
  REQUIRE_MESSAGE(rc == 0, slurp(dir.file("c.log")));

  const std::string ba = slurp(a), bb = slurp(b), bc = slurp(c);
  REQUIRE(ba.size() > 100'000);
  // (Compared as bools: doctest would print 4 MB of binary on failure.)
  const bool same_ab = ba == bb, same_ac = ba == bc;
  CHECK_MESSAGE(same_ab, "same seed, different files: " << a << " (" << ba.size() << " bytes) vs " << b << " ("
                                                         << bb.size() << " bytes)");
  CHECK_FALSE(same_ac);

  Db da(a), dc(c);
  CHECK(da.rows("SELECT count(*) FROM jobs")[0][0] == std::to_string(kJobs));
  CHECK(da.rows("SELECT value FROM run_meta WHERE key = 'seed'")[0][0] == "1");
  CHECK(dc.rows("SELECT value FROM run_meta WHERE key = 'seed'")[0][0] == "2");
  // Another seed changes what happens (pod start-up draws, node tie-breaks), not only the
  // seed recorded in run_meta.
  const auto pods_a = da.rows("SELECT job, pod, event, node, t_ns FROM pods ORDER BY rowid");
  const auto pods_c = dc.rows("SELECT job, pod, event, node, t_ns FROM pods ORDER BY rowid");
  CHECK(!pods_a.empty());
  CHECK(pods_a != pods_c);

  // The CLI (chunked run_until loop, daily checkpoints) and the event-by-event run above agree
  // on every job's outcome.
  const InProcessRun& ip = in_process_run();
  if (!ip.ok) {
    MESSAGE("the in-process run did not complete; skipping the cross-check");
    return;
  }
  const auto jobs = da.rows(
      "SELECT phase, coalesce(inqueue_ns, -1), coalesce(scheduled_ns, -1), coalesce(start_ns, -1), "
      "coalesce(end_ns, -1) FROM jobs ORDER BY job");
  REQUIRE(jobs.size() == ip.times.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobTimes& t = ip.times[i];
    const std::vector<std::string> expect = {t.phase, std::to_string(t.inqueue), std::to_string(t.scheduled),
                                             std::to_string(t.start), std::to_string(t.end)};
    if (jobs[i] != expect && differing++ == 0)
      FAIL_CHECK("job " << i << ": CLI " << jobs[i][0] << " " << jobs[i][1] << " " << jobs[i][2] << " " << jobs[i][3]
                        << " " << jobs[i][4] << " vs in-process " << expect[0] << " " << expect[1] << " " << expect[2]
                        << " " << expect[3] << " " << expect[4]);
  }
  CHECK(differing == 0);
}
