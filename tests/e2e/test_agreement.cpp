// The agreement test: the twin's state at a scheduling session's opening, written as kubectl
// JSON (k8s::write_list, what `mltwin run --snapshot-at` and mltwin.Run.snapshot() write) and
// read back as mltwin-scheduler reads a file (k8s::read_json, then one cycle of a fresh
// Scheduler: scheduler::run_once, the function `mltwin-scheduler --once` calls), decides what
// the twin's own session decided: the same binds (pod -> node, in order), evictions (in
// order) and PodGroup phase changes.
//
// Sessions are sampled from the first Philly jobs under Volcano's default configuration
// (eks-trn1-philly.json) and under preempt + reclaim on 8 nodes
// (tests/scenarios/promise-check-preempt-reclaim.json, where pods are evicted and jobs restart). Needs the Philly trace (../shared/data or
// MLTWIN_DATA). Also one session through the executable itself: `mltwin run --snapshot-at`
// writes the file, `mltwin-scheduler --once --snapshot FILE --output json` decides on it.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/models/training/scheduler_driver.hpp"
#include "mltwin/runner/run.hpp"
#include "mltwin/scheduler/once.hpp"

#if !defined(MLTWIN_SOURCE_DIR) || !defined(MLTWIN_CLI) || !defined(MLTWIN_SCHEDULER_CLI)
#error "MLTWIN_SOURCE_DIR, MLTWIN_CLI and MLTWIN_SCHEDULER_CLI must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kSource = MLTWIN_SOURCE_DIR;

/// What a session decided, as text lines in the order decided.
struct Said {
  std::vector<std::string> binds, evictions, phases;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "    " + x + "\n";
  return s.empty() ? "    (none)\n" : s;
}

/// Finds the sessions in which the twin evicts (numbered from 0 in the order they run).
class Evictions final : public models::SessionObserver {
 public:
  std::set<int> sessions;
  bool opening(const policy::ClusterState&, const policy::Scheduler&) override {
    ++n_;
    return true;
  }
  void bound(const policy::TaskInfo&, const policy::NodeInfo&) override {}
  void evicted(const policy::TaskInfo&, const policy::Eviction&, const policy::TaskInfo*) override { sessions.insert(n_ - 1); }
  void phase_changed(const policy::JobInfo&, policy::PodGroupPhase, policy::PodGroupPhase) override {}
  void closed(const policy::ClusterState&) override {}

 private:
  int n_ = 0;
};

/// Watches every `every`-th session and the sessions in `also` (the run is deterministic:
/// a second run of the same seed has the same sessions): writes its snapshot as it opens, and
/// once the twin has decided, decides again from the snapshot's text.
class Agreement final : public models::SessionObserver {
 public:
  explicit Agreement(int every, std::set<int> also = {}) : every_(every), also_(std::move(also)) {}
  int sessions = 0, compared = 0, with_decisions = 0, with_evictions = 0, binds = 0, evictions = 0, phases = 0;
  std::vector<std::string> disagreements;

  bool opening(const policy::ClusterState& state, const policy::Scheduler& scheduler) override {
    const int n = sessions++;
    if (n % every_ != 0 && !also_.count(n)) return false;
    k8s::WriteOptions o;
    o.tiebreak_state = scheduler.tiebreak_state();
    o.config = scheduler.config();  // read back from the snapshot, as mltwin-scheduler does without --scheduler-conf
    list_ = k8s::write_list(state, o);
    twin_ = {};
    at_ = state.now();
    return true;
  }
  void bound(const policy::TaskInfo& t, const policy::NodeInfo& n) override { twin_.binds.push_back("default/" + t.name + " -> " + n.name); }
  void evicted(const policy::TaskInfo& t, const policy::Eviction&, const policy::TaskInfo*) override { twin_.evictions.push_back("default/" + t.name); }
  void phase_changed(const policy::JobInfo& j, policy::PodGroupPhase from, policy::PodGroupPhase to) override {
    twin_.phases.push_back("default/" + j.name + ": " + policy::to_string(from) + " -> " + policy::to_string(to));
  }
  void closed(const policy::ClusterState&) override {
    k8s::Snapshot snap;
    k8s::read_json(list_.dump(), "snapshot.json", snap);
    const scheduler::Decisions d = scheduler::run_once(snap, scheduler::OnceOptions{});
    if (d.config_source.rfind("the snapshot's", 0) != 0) disagreements.push_back("the configuration ran: " + d.config_source);
    Said cli;
    for (const auto& b : d.binds) cli.binds.push_back(b.pod + " -> " + b.node);
    for (const auto& e : d.evictions) cli.evictions.push_back(e.pod);
    for (const auto& p : d.phases) cli.phases.push_back(p.podgroup + ": " + p.from + " -> " + p.to);
    ++compared;
    with_evictions += !twin_.evictions.empty();
    with_decisions += !twin_.binds.empty() || !twin_.evictions.empty() || !twin_.phases.empty();
    binds += static_cast<int>(twin_.binds.size());
    evictions += static_cast<int>(twin_.evictions.size());
    phases += static_cast<int>(twin_.phases.size());
    // Phase changes are reported as the session closes, job by job in no particular order
    // (Volcano's closeSession walks ssn.Jobs, a Go map): compared as sets.
    std::sort(cli.phases.begin(), cli.phases.end());
    std::sort(twin_.phases.begin(), twin_.phases.end());
    if (cli.binds != twin_.binds || cli.evictions != twin_.evictions || cli.phases != twin_.phases) {
      if (const char* dir = std::getenv("MLTWIN_AGREEMENT_DUMP"))  // keep the snapshot to look into
        std::ofstream(std::string(dir) + "/disagreement-" + std::to_string(at_) + ".json") << list_.dump(2);
      disagreements.push_back("session at t = " + std::to_string(at_) + " ns:\n  twin binds:\n" + join(twin_.binds) +
                              "  snapshot binds:\n" + join(cli.binds) + "  twin evictions:\n" + join(twin_.evictions) +
                              "  snapshot evictions:\n" + join(cli.evictions) + "  twin phases:\n" + join(twin_.phases) +
                              "  snapshot phases:\n" + join(cli.phases));
    }
  }

 private:
  int every_;
  std::set<int> also_;
  json list_;
  policy::TimeNs at_ = 0;
  Said twin_;
};

/// Runs `scenario` on its first `jobs` Philly jobs with `obs` watching, to the end.
void run_watched(const std::string& scenario, std::size_t jobs, models::SessionObserver& obs) {
  runner::RunOptions o;
  o.out = ":memory:";
  o.max_jobs = jobs;
  o.session_observer = &obs;
  auto run = runner::Run::open(kSource + "/" + scenario, o);
  while (!run->done()) run->run_until(run->next_time() + run->progress_chunk());
  run->finish(store::EndReason::Completed);
}

int run_command(const std::string& cmd, std::string& out) {
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  out.clear();
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("agreement: Volcano's default configuration, sessions of the first 1,500 Philly jobs") {
  Agreement a(25);
  run_watched("scenarios/eks-trn1-philly.json", 1500, a);
  MESSAGE("default: " << a.sessions << " sessions, " << a.compared << " compared (" << a.with_decisions << " deciding something: "
                      << a.binds << " binds, " << a.evictions << " evictions, " << a.phases << " phase changes)");
  CHECK(a.compared >= 200);
  CHECK(a.binds > 0);
  CHECK(a.phases > 0);
  for (const auto& d : a.disagreements) FAIL_CHECK(d);
}

TEST_CASE("agreement: preempt and reclaim, sessions of the first 3,000 Philly jobs on 8 nodes") {
  // tests/scenarios/promise-check-preempt-reclaim.json: the preempt+reclaim scenario on 8 of
  // its 32 nodes, so that the slice's queues contend and reclaim evicts. A first run finds the
  // sessions that evict; the second (the same seed, so the same sessions) compares those and
  // every 25th.
  Evictions first;
  run_watched("tests/scenarios/promise-check-preempt-reclaim.json", 3000, first);
  Agreement a(25, first.sessions);
  run_watched("tests/scenarios/promise-check-preempt-reclaim.json", 3000, a);
  MESSAGE("preempt+reclaim: " << a.sessions << " sessions, " << a.compared << " compared (" << a.with_decisions
                              << " deciding something, " << a.with_evictions << " evicting: " << a.binds << " binds, " << a.evictions
                              << " evictions, " << a.phases << " phase changes)");
  CHECK(a.compared >= 200);
  CHECK(a.binds > 0);
  CHECK(a.with_evictions == static_cast<int>(first.sessions.size()));
  CHECK(a.evictions >= 10);
  for (const auto& d : a.disagreements) FAIL_CHECK(d);
}

TEST_CASE("the executables: mltwin run --snapshot-at writes the session, mltwin-scheduler --once repeats it") {
  // The first session of the preempt+reclaim slice that evicts (at 2,128,784 s: reclaim evicts
  // two pods; the in-process test above finds such sessions). The twin writes the snapshot, with
  // its configuration, and what the session decided; the scheduler, given only the file, must
  // decide the same.
  const fs::path dir = fs::temp_directory_path() / ("mltwin-agreement-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "run.sqlite").string();
  std::string out;
  REQUIRE(run_command(std::string(MLTWIN_CLI) + " run " + kSource + "/tests/scenarios/promise-check-preempt-reclaim.json --max-jobs 3000" +
                          " --no-progress --out " + db + " --snapshot-at 2128784s --snapshot-at 1000d 2>&1",
                      out) == 0);
  INFO(out);
  const std::string snap = (dir / "run.snapshot-2128784s.json").string();
  REQUIRE(fs::exists(snap));
  CHECK(out.find("snapshot: " + snap) != std::string::npos);
  CHECK(out.find("warning: --snapshot-at 1000d: no scheduling session ran at or after it") != std::string::npos);
  CHECK(!fs::exists(dir / "run.snapshot-1000d.json"));
  const json twin = json::parse(std::ifstream(dir / "run.snapshot-2128784s.decisions.json"));
  REQUIRE(run_command(std::string(MLTWIN_SCHEDULER_CLI) + " --once --snapshot " + snap + " --output json", out) == 0);
  const json d = json::parse(out);
  CHECK(d["schema"] == 1);
  CHECK(d["configuration"].get<std::string>().rfind("the snapshot's", 0) == 0);
  CHECK(d["now"] == twin["now"]);
  CHECK(d["now"] == "2000-01-25T15:19:44Z");  // 2,128,784 s after the twin's time 0 (k8s::kTwinEpoch, 2000-01-01T00:00:00Z)
  CHECK(d["counts"]["nodes"] == 8);
  CHECK(twin["evictions"].size() == 2);
  CHECK(d["binds"] == twin["binds"]);
  CHECK(d["evictions"] == twin["evictions"]);
  auto sorted = [](json a) {
    std::sort(a.begin(), a.end());
    return a;
  };
  CHECK(sorted(d["podgroup_phases"]) == sorted(twin["podgroup_phases"]));
  // An inference run has nothing to snapshot: refused before it starts.
  REQUIRE(run_command(std::string(MLTWIN_CLI) + " run " + kSource + "/scenarios/mme-djl-blog-top-n.json --no-progress --out " +
                          (dir / "i.sqlite").string() + " --snapshot-at 1m 2>&1",
                      out) == 2);
  CHECK(out.find("--snapshot-at: an inference run has no Kubernetes scheduling state") != std::string::npos);
  fs::remove_all(dir);
}
