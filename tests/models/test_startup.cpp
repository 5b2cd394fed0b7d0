// Start-up phases, the Neuron compile cache, node failures and the cluster autoscaler on
// hand-checkable scenarios (tests/scenarios/{startup-cache,node-failure,autoscaler-trap}.json).
// Every expected time below is derived by hand from the scenario's figures and the rules in
// models/startup.hpp, models/src/training_nodes.cpp and the Volcano cycle alignment (a change at
// time t wakes the scheduler cycle at t; pods created by the enqueue action during a cycle are
// bound by the next one, 1 s later), never copied from a run.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/startup.hpp"
#include "mltwin/models/training.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using core::Time;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::int64_t kMs = 1'000'000LL;

std::string scenario_path(const std::string& name) { return std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + name; }

struct PodEv {
  std::uint32_t job;
  std::string event, node;
  std::int64_t t;
};
struct NodeEv {
  std::int64_t t;
  std::string node, group, event, reason;
};

class Recorder final : public models::TrainingRecorder {
 public:
  std::vector<models::JobFinal> finals;
  std::vector<PodEv> pods;
  std::vector<NodeEv> nodes;
  void job_submitted(const models::JobSubmitted&) override {}
  void job_final(const models::JobFinal& j) override { finals.push_back(j); }
  void pod_event(const models::PodEvent& e) override { pods.push_back({e.job, std::string(e.event), std::string(e.node), e.t.ns()}); }
  void decision(const models::Decision&) override {}
  void phase_change(const models::PhaseChange&) override {}
  void sample(const models::ClusterSample&) override {}
  void node_event(const models::NodeEvent& e) override {
    nodes.push_back({e.t.ns(), std::string(e.node), std::string(e.group), std::string(e.event), std::string(e.reason)});
  }
  void checkpoint(Time) override {}
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}
  const models::JobFinal& final_of(std::uint32_t job) const {
    const models::JobFinal* f = nullptr;
    int n = 0;
    for (const auto& x : finals)
      if (x.job == job) {
        f = &x;
        ++n;
      }
    REQUIRE_MESSAGE(n == 1, "job " << job << " has " << n << " final records");
    return *f;
  }
  std::vector<PodEv> pods_of(std::uint32_t job, const std::string& event) const {
    std::vector<PodEv> v;
    for (const auto& p : pods)
      if (p.job == job && p.event == event) v.push_back(p);
    return v;
  }
};

struct Run {
  io::LoadedScenario sc;
  core::Simulator sim;
  std::unique_ptr<core::RngStreams> rng;
  Recorder rec;
  std::unique_ptr<models::TrainingCluster> cluster;
  std::string invariant_violation;
  explicit Run(const std::string& path, const io::LoadOptions& opts = {}) : sc(io::load_scenario(path, opts)) {
    rng = std::make_unique<core::RngStreams>(sc.seed);
    cluster = std::make_unique<models::TrainingCluster>(sc.training, sim, *rng, rec);
    cluster->start();
    while (sim.step())
      if (invariant_violation.empty()) invariant_violation = cluster->state().check_invariants();
    cluster->finish(cluster->last_event());
  }
};

io::LoadOptions patch(nlohmann::json p) {
  io::LoadOptions o;
  o.overrides = std::move(p);
  return o;
}

// The node events, in order: (time, node, event) each.
template <class Rec>
void check_node_events(const Rec& rec, const std::vector<std::tuple<std::int64_t, std::string, std::string>>& want) {
  REQUIRE(rec.nodes.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(rec.nodes[i].t == std::get<0>(want[i]));
    CHECK(rec.nodes[i].node == std::get<1>(want[i]));
    CHECK(rec.nodes[i].event == std::get<2>(want[i]));
  }
}

}  // namespace

// ============================================================ start-up phases and compile cache

TEST_CASE("startup-cache: image pulled once per node; compile cache hit, and miss after a change of data-parallel degree") {
  // Figures (tests/scenarios/startup-cache.json): 1 trn1.32xlarge; bind 50 ms; pod start-up 2 s;
  // image 12.5 GB at 1 Gb/s = 12.5e9 / 125e6 B/s = 100 s; rendezvous 5 s; bert-large JIT 40 min
  // = 2400 s (neuron_parallel_compile 13 min = 780 s); cache load 30 s; dataset 6 GB over
  // 1.2 TiB × 500 MB/s/TiB = 600e6 B/s: 10 s. Jobs train 600 s each, one whole node each.
  // a (DP 1 × 32 = 32), submit 0: admitted at 0, bound 1.05 s; pull 100 s from 1.05 s: Running
  // 1.05 + 2 + 100 = 103.05 s; rendezvous to 108.05; cache miss: compile 2400 s (stored at
  // 2508.05 s); dataset 10 s: training 2518.05 s; end 3118.05 s.
  // b (DP 32), submit 4000 s: bound 4001.05; the node holds the image: Running 4003.05; 4008.05
  // hit (2508.05 <= 4008.05): 30 s; read 10 s: training 4048.05; end 4648.05 s.
  // c (nnodes 1 × nproc_per_node 16: DP 16), submit 5000 s: bound 5001.05, Running 5003.05;
  // key (…, 16) not cached: miss, 2400 s; training 5003.05 + 5 + 2400 + 10 = 7418.05; end 8018.05.
  SUBCASE("JIT") {
    Run r(scenario_path("startup-cache.json"));
    REQUIRE(r.invariant_violation.empty());
    const auto& a = r.rec.final_of(0);
    CHECK(a.phase == "Completed");
    CHECK(r.rec.pods_of(0, "Running").at(0).t == 103050 * kMs);
    CHECK(a.start.ns() == 103050 * kMs);
    CHECK(a.training_start.ns() == 2518050 * kMs);
    CHECK(a.end.ns() == 3118050 * kMs);
    CHECK(a.startup_modelled);
    CHECK(a.image_pull_s == doctest::Approx(100.0).epsilon(1e-12));
    CHECK(a.rendezvous_s == doctest::Approx(5.0).epsilon(1e-12));
    CHECK(a.compile_s == doctest::Approx(2400.0).epsilon(1e-12));
    CHECK(a.dataset_read_s == doctest::Approx(10.0).epsilon(1e-12));
    CHECK(a.compile_cache == "miss");
    const auto& b = r.rec.final_of(1);
    CHECK(r.rec.pods_of(1, "Running").at(0).t == 4003050 * kMs);  // no pull: cached on the node
    CHECK(b.image_pull_s == 0);
    CHECK(b.compile_cache == "hit");
    CHECK(b.compile_s == doctest::Approx(30.0).epsilon(1e-12));
    CHECK(b.training_start.ns() == 4048050 * kMs);
    CHECK(b.end.ns() == 4648050 * kMs);
    const auto& c = r.rec.final_of(2);
    CHECK(c.compile_cache == "miss");
    CHECK(c.compile_s == doctest::Approx(2400.0).epsilon(1e-12));
    CHECK(c.training_start.ns() == 7418050 * kMs);
    CHECK(c.end.ns() == 8018050 * kMs);
    const auto& st = r.cluster->stats();
    CHECK(st.compile_hits == 1);
    CHECK(st.compile_misses == 2);
    // Start-up job-seconds: a 2415, b 45, c 2415 = 4875; training 3 × 600 = 1800.
    CHECK(st.startup_s == doctest::Approx(4875.0).epsilon(1e-9));
    CHECK(st.training_s == doctest::Approx(1800.0).epsilon(1e-9));
    const io::RunSummary s = io::summarize("t", 7, r.sc.training, *r.cluster, r.cluster->last_event().seconds());
    CHECK(s.startup_share == doctest::Approx(4875.0 / 6675.0).epsilon(1e-12));
  }
  SUBCASE("neuron_parallel_compile: the miss costs 13 min instead of 40") {
    Run r(scenario_path("startup-cache.json"), patch({{"startup", {{"neuron", {{"mode", "neuron_parallel_compile"}}}}}}));
    // a: 108.05 + 780 + 10 = 898.05 s training start.
    CHECK(r.rec.final_of(0).training_start.ns() == 898050 * kMs);
    CHECK(r.rec.final_of(0).compile_s == doctest::Approx(780.0).epsilon(1e-12));
    CHECK(r.rec.final_of(1).compile_cache == "hit");
  }
  SUBCASE("no compile cache URL: every start compiles") {
    Run r(scenario_path("startup-cache.json"), patch({{"startup", {{"neuron", {{"compile_cache_url", ""}}}}}}));
    CHECK(r.rec.final_of(1).compile_cache == "miss");
    CHECK(r.rec.final_of(1).compile_s == doctest::Approx(2400.0).epsilon(1e-12));
  }
  SUBCASE("other compiler flags: a different cache entry") {
    nlohmann::json jobs = io::load_scenario(scenario_path("startup-cache.json")).json["workload"]["jobs"];
    jobs[1]["compiler_flags"] = "--model-type=transformer -O1";
    Run r(scenario_path("startup-cache.json"), patch({{"workload", {{"jobs", jobs}}}}));
    CHECK(r.rec.final_of(1).compile_cache == "miss");
  }
}

TEST_CASE("startup-cache: a second job of the same key waits for the compilation in flight, then loads it") {
  // Two nodes; a and b (both DP 32) submitted at 0 land on one node each: bound 1.05, Running
  // 103.05 (each node pulls), rendezvous to 108.05. Task-id order: a looks the key up first
  // (miss, ready at 2508.05); b finds it in flight: waits 2400 s and loads 30 s: its compile
  // time is 2430 s, training 108.05 + 2430 + 10 = 2548.05 s (a: 2518.05 s).
  nlohmann::json jobs = io::load_scenario(scenario_path("startup-cache.json")).json["workload"]["jobs"];
  jobs[1]["submit"] = "0s";
  jobs.erase(2);
  Run r(scenario_path("startup-cache.json"),
        patch({{"workload", {{"jobs", jobs}}}, {"cluster", {{"node_groups", {{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"},
                                                                               {"desired_capacity", 2}}}}}}}));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.final_of(0).compile_cache == "miss");
  CHECK(r.rec.final_of(0).training_start.ns() == 2518050 * kMs);
  CHECK(r.rec.final_of(1).compile_cache == "wait");
  CHECK(r.rec.final_of(1).compile_s == doctest::Approx(2430.0).epsilon(1e-12));
  CHECK(r.rec.final_of(1).training_start.ns() == 2548050 * kMs);
}

TEST_CASE("StartupModel: image cache per node and compile-cache keys") {
  models::StartupSpec sp;
  sp.image_bytes = 1e9;
  sp.pull_bytes_per_s = 1e8;  // 10 s
  sp.models = {{"m", core::Duration::s(100), core::Duration::s(40), 0, "test"}};
  sp.cache_url = "/fsx/cache";
  sp.cache_load = core::Duration::s(3);
  sp.fsx_bytes_per_s = 2e8;
  models::StartupModel m(sp);
  const Time t0 = Time::zero();
  CHECK(m.image_pull(0, t0) == core::Duration::s(10));
  CHECK(m.image_pull(0, t0 + core::Duration::s(4)) == core::Duration::s(6));  // joins the pull in flight
  CHECK(m.image_pull(0, t0 + core::Duration::s(20)) == core::Duration::ns(0));
  CHECK(m.image_pull(1, t0 + core::Duration::s(20)) == core::Duration::s(10));  // another node pulls
  m.forget_node(0);
  CHECK(m.image_pull(0, t0 + core::Duration::s(30)) == core::Duration::s(10));  // a replacement starts empty
  auto c = m.compile(0, "m", "-O1", 64, t0);
  CHECK(c.outcome == models::CompileOutcome::Miss);
  CHECK(c.time == core::Duration::s(100));
  CHECK(m.compile(1, "m", "-O1", 32, t0 + core::Duration::s(200)).outcome == models::CompileOutcome::Miss);  // DP 32 != 64
  CHECK(m.compile(2, "m", "-O1", 64, t0 + core::Duration::s(200)).outcome == models::CompileOutcome::Hit);
  // Job 3 starts a compile at 300 s and is killed at 350 s: nothing is stored.
  CHECK(m.compile(3, "m", "-O2", 64, t0 + core::Duration::s(300)).outcome == models::CompileOutcome::Miss);
  m.abort_compiles(3, t0 + core::Duration::s(350));
  CHECK(m.compile(4, "m", "-O2", 64, t0 + core::Duration::s(360)).outcome == models::CompileOutcome::Miss);
  CHECK(m.dataset_read(1e9) == core::Duration::s(5));
  CHECK_THROWS_AS(m.compile(5, "nope", "", 1, t0), std::invalid_argument);
}

// ============================================================ node failure

TEST_CASE("node-failure: the failed node's job restarts and loses exactly its training since the last checkpoint") {
  // As startup-cache's job a, but 1 h: training from 2518.05 s (miss). trn1-0 fails at 3000 s:
  // its containers die with it, so training stops there: trained 3000 - 2518.05 = 481.95 s;
  // checkpoints every 300 s of training: kept 300 s, lost 181.95 s. Kubernetes 1.32 defaults:
  // the instance is terminated at once (billing stops, trn1-1 launched); trn1-0 is NotReady at
  // 3050 s (grace period 50 s), and its Node object is deleted then; PodGC's passes (20 s grid)
  // see it missing at 3060 s and delete its pod 40 s later, at 3100 s: patched Failed, then
  // deleted. PodFailed -> RestartJob (retry 1 of 3): killJob
  // finds no pod left (terminating 0) and deletes the PodGroup; the echo's syncJob creates a new
  // one, Pending, and makes the Job Pending at once (restartingUpdateStatus: 1 - 0 >= 1), but
  // creates no pod until the PodGroup is admitted (job_controller_actions.go:346-356). The
  // replacement node trn1-1 is Ready at 3000 + 300 = 3300 s; the 3300 s session admits the
  // PodGroup (enqueue: nothing Ready to hold it before) and the job controller creates the pod;
  // the 3301 s session binds it. Bound 3301.05; trn1-1 is new: pull 100 s: Running 3403.05;
  // rendezvous to 3408.05; the graphs are cached: 30 s; read 10 s: training resumes at 3448.05
  // with 3600 - 300 = 3300 s left: end 6748.05 s.
  Run r(scenario_path("node-failure.json"));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 1);
  CHECK(a.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  CHECK(r.cluster->stats().lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  CHECK(a.compile_cache == "miss,hit");
  CHECK(a.image_pull_s == doctest::Approx(200.0).epsilon(1e-12));  // both nodes pulled
  CHECK(a.training_start.ns() == 2518050 * kMs);                   // the first start
  CHECK(a.end.ns() == 6748050 * kMs);
  const auto failed = r.rec.pods_of(0, "Failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].node == "trn1-0");
  CHECK(failed[0].t == 3100 * kS);
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3100 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3301050 * kMs);
  CHECK(r.rec.pods_of(0, "Bound").at(1).node == "trn1-1");
  const std::vector<std::tuple<std::int64_t, std::string, std::string>> want = {
      {3000 * kS, "trn1-0", "Failed"},   {3000 * kS, "trn1-0", "Terminated"}, {3000 * kS, "trn1-1", "Launching"},
      {3050 * kS, "trn1-0", "NotReady"}, {3050 * kS, "trn1-0", "Deleted"},    {3300 * kS, "trn1-1", "Ready"}};
  check_node_events(r.rec, want);
  CHECK(r.cluster->stats().node_failures == 1);
  CHECK(r.cluster->stats().pods_garbage_collected == 1);
  CHECK(r.cluster->stats().taint_evictions == 0);
  // Node-seconds in service: trn1-0 0..3000 s, trn1-1 from its launch at 3000 s to the run's
  // end — the scheduler cycle that the job's end at 6748.05 s wakes, at the next whole second,
  // 6749 s: 3000 + 3749 = 6749.
  const auto& ng = r.cluster->stats().node_group_seconds;
  REQUIRE(ng.size() == 1);
  CHECK(ng[0] == doctest::Approx(6749.0).epsilon(1e-12));
}

TEST_CASE("node-failure, the instance lingering: the taint manager evicts the pod after 50 + 300 s, PodGC deletes it once the Node goes") {
  // node-failure.json with the Auto Scaling group terminating the failed instance 10 min after
  // the failure and its replacement Ready 15 min after it. trn1-0 fails at 3000 s (training
  // stops: 181.95 s lost, as above); NotReady at 3050 s; the pod's 300 s toleration of
  // node.kubernetes.io/unreachable:NoExecute (DefaultTolerationSeconds) runs out at 3350 s: the
  // taint manager deletes it — PodEvicted -> RestartJob (retry 1) — but no kubelet confirms it:
  // it stays Terminating. 3600 s: the instance is terminated (trn1-1 launched), the NotReady
  // node's Node object deleted; PodGC sees it missing at 3620 s and removes the pod at 3660 s.
  // trn1-1 is Ready at 3000 + 900 = 3900 s: the 3900 s session admits the new PodGroup (no Ready
  // node before), the 3901 s one binds its pod: Bound 3901.05, pull 100 s + start-up 2 s:
  // Running 4003.05, rendezvous 5 s, cached graphs 30 s, read 10 s: training from 4048.05 with
  // 3300 s left: end 7348.05 s.
  Run r(scenario_path("node-failure.json"),
        patch({{"faults", {{"instance_terminated_after", "10m"}, {"replacement_time", "15m"}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 1);
  CHECK(a.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  CHECK(a.end.ns() == 7348050 * kMs);
  REQUIRE(r.rec.pods_of(0, "TaintEvicted").size() == 1);
  CHECK(r.rec.pods_of(0, "TaintEvicted")[0].t == 3350 * kS);
  CHECK(r.rec.pods_of(0, "Failed").empty());
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3660 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3901050 * kMs);
  const std::vector<std::tuple<std::int64_t, std::string, std::string>> want = {
      {3000 * kS, "trn1-0", "Failed"},     {3050 * kS, "trn1-0", "NotReady"}, {3600 * kS, "trn1-0", "Terminated"},
      {3600 * kS, "trn1-1", "Launching"},  {3600 * kS, "trn1-0", "Deleted"},  {3900 * kS, "trn1-1", "Ready"}};
  check_node_events(r.rec, want);
  CHECK(r.cluster->stats().taint_evictions == 1);
  CHECK(r.cluster->stats().pods_garbage_collected == 1);
  // One pod: deleted by the taint manager, then removed by PodGC — counted once.
  std::ostringstream os;
  io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds()));
  CHECK(os.str().find("the failed nodes' pods: 1 deleted by the taint manager (unreachable past their toleration; 1 of them "
                      "then removed by PodGC once their Node was deleted), 0 deleted by PodGC alone") != std::string::npos);
  // Billing: trn1-0 until its termination at 3600 s, trn1-1 from its launch then to the run's
  // end, the cycle after the job's end: 7349 s.
  REQUIRE(r.cluster->stats().node_group_seconds.size() == 1);
  CHECK(r.cluster->stats().node_group_seconds[0] == doctest::Approx(7349.0).epsilon(1e-12));
}

TEST_CASE("node-failure, the instance lingering: the pod's own 60 s unreachable toleration decides its taint eviction") {
  // As the case above, but job a tolerates node.kubernetes.io/unreachable:NoExecute for 60 s.
  // The DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds/
  // admission.go) adds its 300 s toleration only to a pod with none for that key and effect, so
  // a's own is the one matching the taint; the taint manager (pkg/controller/tainteviction/
  // taint_eviction.go, getMinTolerationTime) deletes the pod at NotReady 3050 s + 60 s = 3110 s
  // rather than 3350 s. PodEvicted -> RestartJob (retry 1); the pod stays Terminating until
  // PodGC removes it at 3660 s (Node deleted at 3600 s, seen missing at 3620 s, 40 s
  // quarantine). The restart waits for a Ready node either way: trn1-1 Ready at 3900 s, the
  // 3900 s session admits the new PodGroup, the 3901 s one binds the pod (3901.05 s), end
  // 7348.05 s as above.
  const nlohmann::json tol = nlohmann::json::array(
      {{{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 60}}});
  nlohmann::json jobs = io::load_scenario(scenario_path("node-failure.json")).json["workload"]["jobs"];
  jobs[0]["tolerations"] = tol;
  Run r(scenario_path("node-failure.json"),
        patch({{"faults", {{"instance_terminated_after", "10m"}, {"replacement_time", "900s"}}}, {"workload", {{"jobs", jobs}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 1);
  CHECK(a.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  REQUIRE(r.rec.pods_of(0, "TaintEvicted").size() == 1);
  CHECK(r.rec.pods_of(0, "TaintEvicted")[0].t == 3110 * kS);
  CHECK(r.rec.pods_of(0, "Failed").empty());
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3660 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3901050 * kMs);
  CHECK(a.end.ns() == 7348050 * kMs);
  CHECK(r.cluster->stats().taint_evictions == 1);
  CHECK(r.cluster->stats().pods_garbage_collected == 1);
}

TEST_CASE("node-failure, the instance lingering: a toleration without tolerationSeconds keeps the pod until PodGC") {
  // Job a tolerates node.kubernetes.io/unreachable:NoExecute with no tolerationSeconds: no
  // default is added (admission.go: it has one for that key and effect) and getMinTolerationTime
  // is -1, for ever: the taint manager never deletes it. The pod stays Running on the NotReady
  // node until the Node object goes with the instance at 3600 s; PodGC sees it missing at
  // 3620 s and at 3660 s patches it Failed and deletes it (gc_controller.go gcOrphaned):
  // PodFailed -> RestartJob (retry 1). trn1-1 is Ready at 3900 s: admitted then, bound
  // 3901.05 s, end 7348.05 s as above.
  nlohmann::json jobs = io::load_scenario(scenario_path("node-failure.json")).json["workload"]["jobs"];
  jobs[0]["tolerations"] = nlohmann::json::array({{{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"effect", "NoExecute"}}});
  Run r(scenario_path("node-failure.json"),
        patch({{"faults", {{"instance_terminated_after", "10m"}, {"replacement_time", "900s"}}}, {"workload", {{"jobs", jobs}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 1);
  CHECK(r.rec.pods_of(0, "TaintEvicted").empty());
  REQUIRE(r.rec.pods_of(0, "Failed").size() == 1);
  CHECK(r.rec.pods_of(0, "Failed")[0].t == 3660 * kS);
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3660 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3901050 * kMs);
  CHECK(a.end.ns() == 7348050 * kMs);
  CHECK(r.cluster->stats().taint_evictions == 0);
  CHECK(r.cluster->stats().pods_garbage_collected == 1);
}

TEST_CASE("node-failure, the instance lingering: the first toleration matching the taint decides, not the shortest") {
  // Job a's tolerations: {operator Exists} (no key, no effect: every taint, no tolerationSeconds),
  // then {node.kubernetes.io/unreachable, Exists, NoExecute, 60 s}. DefaultTolerationSeconds adds
  // nothing (the first has no key and no effect). The taint manager's GetMatchingTolerations
  // (pkg/apis/core/v1/helper) takes, for each taint, the first toleration that tolerates it —
  // here {Exists}, without tolerationSeconds: for ever. So no taint eviction at 3050 + 60 s; the
  // pod stays until PodGC (Node deleted with the instance at 3600 s, seen missing at 3620 s,
  // patched Failed and deleted at 3660 s), as without any tolerationSeconds.
  nlohmann::json jobs = io::load_scenario(scenario_path("node-failure.json")).json["workload"]["jobs"];
  jobs[0]["tolerations"] = nlohmann::json::array(
      {{{"operator", "Exists"}},
       {{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 60}}});
  Run r(scenario_path("node-failure.json"),
        patch({{"faults", {{"instance_terminated_after", "10m"}, {"replacement_time", "900s"}}}, {"workload", {{"jobs", jobs}}}}));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.pods_of(0, "TaintEvicted").empty());
  REQUIRE(r.rec.pods_of(0, "Failed").size() == 1);
  CHECK(r.rec.pods_of(0, "Failed")[0].t == 3660 * kS);
  CHECK(r.cluster->stats().taint_evictions == 0);
}

TEST_CASE("node-failure, the Node deleted before the toleration runs out: the taint manager still deletes the pod PodGC has not removed") {
  // The instance is terminated 320 s after the failure (3320 s), when the NotReady node's Node
  // object is deleted (the replacement Ready 900 s after the failure). The taint manager's work for the pod (NotReady 3050 s + the default
  // 300 s = 3350 s) is per pod: the Node's deletion does not cancel it (taint_eviction.go
  // handleNodeUpdate only forgets the node's taints). PodGC's first pass after 3320 s is
  // 3340 s, its deletion 40 s later, 3380 s: after 3350 s. So at 3350 s the pod is deleted
  // (TaintEvicted: Terminating, PodEvicted), and at 3380 s PodGC deletes it (Deleted; no Failed:
  // it was Terminating already).
  Run r(scenario_path("node-failure.json"), patch({{"faults", {{"instance_terminated_after", "320s"}, {"replacement_time", "900s"}}}}));
  REQUIRE(r.invariant_violation.empty());
  REQUIRE(r.rec.pods_of(0, "TaintEvicted").size() == 1);
  CHECK(r.rec.pods_of(0, "TaintEvicted")[0].t == 3350 * kS);
  CHECK(r.rec.pods_of(0, "Failed").empty());
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3380 * kS);
  CHECK(r.cluster->stats().taint_evictions == 1);
  CHECK(r.cluster->stats().pods_garbage_collected_after_taint_eviction == 1);
  CHECK(r.rec.final_of(0).phase == "Completed");
}

TEST_CASE("node-failure on a node group tainted NoExecute: the pod's deletion scheduled at its bind stands when the node goes NotReady") {
  // node-failure.json with its node group tainted dedicated=train:NoExecute and job a tolerating
  // it for 3600 s; the instance lingers 10 min, the replacement is Ready 900 s after the
  // failure. a is bound at 1 s (Bound 1.05 s): the taint manager schedules its deletion at
  // 1 + 3600 = 3601 s (processPodOnNode at the pod's update). trn1-0 fails at 3000 s, NotReady
  // at 3050 s: processPodOnNode again, with the taints dedicated and unreachable; the first
  // matching tolerations are a's own (3600 s) and DefaultTolerationSeconds' (300 s): least
  // 300 s, but a deletion is scheduled already, begun at 1 s, and 1 + 300 is before 3050 + 300:
  // it returns, leaving the deletion at 3601 s (not 3350 s). 3600 s: the instance is terminated
  // and the Node deleted; 3601 s: the taint manager deletes the pod (TaintEvicted; no kubelet:
  // Terminating) -> PodEvicted -> RestartJob (retry 1); PodGC removes it at 3660 s (seen
  // missing at 3620 s). The restart as in the tests above: trn1-1 Ready at 3900 s, bound at
  // 3901 s (its deletion then due at 7501 s), training from 4048.05 s for the 3300 s left
  // (lost since the checkpoint: 181.95 s): Completed at 7348.05 s, before it. The pending
  // deletion goes with the job: billing runs to the cycle after its end, 7349 s.
  const io::LoadedScenario base = io::load_scenario(scenario_path("node-failure.json"));
  nlohmann::json groups = base.json["cluster"]["node_groups"];
  groups[0]["taints"] = nlohmann::json::array({{{"key", "dedicated"}, {"value", "train"}, {"effect", "NoExecute"}}});
  nlohmann::json jobs = base.json["workload"]["jobs"];
  jobs[0]["tolerations"] = nlohmann::json::array(
      {{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "train"}, {"effect", "NoExecute"}, {"tolerationSeconds", 3600}}});
  Run r(scenario_path("node-failure.json"),
        patch({{"cluster", {{"node_groups", groups}}},
               {"faults", {{"instance_terminated_after", "10m"}, {"replacement_time", "900s"}}},
               {"workload", {{"jobs", jobs}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(r.rec.pods_of(0, "Bound").at(0).t == 1050 * kMs);
  REQUIRE(r.rec.pods_of(0, "TaintEvicted").size() == 1);
  CHECK(r.rec.pods_of(0, "TaintEvicted")[0].t == 3601 * kS);
  CHECK(r.rec.pods_of(0, "Failed").empty());
  REQUIRE(r.rec.pods_of(0, "Deleted").size() == 1);
  CHECK(r.rec.pods_of(0, "Deleted")[0].t == 3660 * kS);
  CHECK(r.rec.pods_of(0, "Bound").at(1).t == 3901050 * kMs);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 1);
  CHECK(a.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  CHECK(a.end.ns() == 7348050 * kMs);
  CHECK(r.cluster->stats().taint_evictions == 1);  // a failed node's pod
  CHECK(r.cluster->stats().node_taint_evictions == 0);
  CHECK(r.cluster->stats().node_group_seconds.at(0) == doctest::Approx(7349.0).epsilon(1e-12));
}

TEST_CASE("node-failure: the grace period follows /cluster/kubernetes_version; bad versions and timings are refused") {
  // Kubernetes 1.31: --node-monitor-grace-period 40 s (50 s from 1.32, kubernetes#126287).
  Run r(scenario_path("node-failure.json"), patch({{"cluster", {{"kubernetes_version", "1.31"}}}}));
  REQUIRE(r.invariant_violation.empty());
  bool seen = false;
  for (const auto& e : r.rec.nodes)
    if (e.event == "NotReady") {
      CHECK(e.t == 3040 * kS);
      seen = true;
    }
  CHECK(seen);
  for (const char* bad : {"1.032", "2.30", "1.", "v1.32", "v1.30.2"})
    CHECK_THROWS_WITH_AS(io::load_scenario(scenario_path("node-failure.json"), patch({{"cluster", {{"kubernetes_version", bad}}}})),
                         doctest::Contains("/cluster/kubernetes_version"), io::ScenarioError);
  // The expected form is named, not the schema pattern's "Failed to match regex".
  CHECK_THROWS_WITH_AS(io::load_scenario(scenario_path("node-failure.json"), patch({{"cluster", {{"kubernetes_version", "v1.30.2"}}}})),
                       doctest::Contains("/cluster/kubernetes_version: expected \"1.<minor>\" (e.g. \"1.32\""), io::ScenarioError);
  CHECK_THROWS_WITH_AS(io::load_scenario(scenario_path("node-failure.json"), patch({{"faults", {{"instance_terminated_after", "10m"}}}})),
                       doctest::Contains("/faults/replacement_time"), io::ScenarioError);
}

TEST_CASE("node-failure with TorchX's default max_retries 0: SyncJob recreates the one-pod job's pod, no retry counted") {
  // No PodFailed policy: SyncJob. The pod is gone with its node and the PodGroup is still
  // Running (no killJob, so not deleted), so syncJob creates it anew at 3000 s and the 3300 s
  // session binds it: 1 s sooner than the RestartJob path above, whose new PodGroup had to be
  // admitted first (end 6747.05 s rather than 6748.05 s); the same 181.95 s lost, retryCount 0
  // and nothing for a surviving peer to wait on (one pod).
  Run r(scenario_path("node-failure.json"), patch({{"workload", {{"torchx", {{"max_retries", 0}}}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& a = r.rec.final_of(0);
  CHECK(a.phase == "Completed");
  CHECK(a.restarts == 0);
  CHECK(a.lost_training_s == doctest::Approx(181.95).epsilon(1e-9));
  CHECK(a.end.ns() == 6747050 * kMs);
  CHECK(r.cluster->stats().restarts == 0);
  CHECK(r.cluster->stats().resumed_in_place == 0);
}

TEST_CASE("node-failure: scenario errors") {
  CHECK_THROWS_WITH_AS(
      io::load_scenario(scenario_path("node-failure.json"),
                        patch({{"faults", {{"scheduled", {{{"node", "trn1-7"}, {"at", "1s"}}}}}}})),
      doctest::Contains("/faults/scheduled/0/node"), io::ScenarioError);
}

TEST_CASE("node failures at a rate: exponential times to failure while busy, deterministic per seed") {
  // 1 failure per node-hour while busy and job a busy for over an hour: how many failures
  // strike is random, so what is asserted is what must hold for any draw: the run completes,
  // the invariants hold, every restart is a node failure, and one seed gives one run.
  auto opts = patch({{"faults", {{"scheduled", nlohmann::json::array()}, {"node_failure_rate_per_node_hour", 1.0}}},
                     {"workload", {{"torchx", {{"max_retries", 100}}}}}});
  Run r1(scenario_path("node-failure.json"), opts);
  Run r2(scenario_path("node-failure.json"), opts);
  REQUIRE(r1.invariant_violation.empty());
  CHECK(r1.rec.final_of(0).phase == "Completed");
  CHECK(static_cast<std::uint64_t>(r1.rec.final_of(0).restarts) == r1.cluster->stats().node_failures);
  CHECK(r1.rec.final_of(0).end == r2.rec.final_of(0).end);
  CHECK(r1.rec.final_of(0).restarts == r2.rec.final_of(0).restarts);
}

// ============================================================ cluster autoscaler

TEST_CASE("autoscaler-trap: a PodGroup kept Pending by enqueue creates no pod, so the autoscaler never scales out") {
  // Node group min 1, max 3, desired 1; job j: 2 whole-node pods. Submission: with max_size 3
  // the group could hold 3 pods, so the job is not rejected. enqueue: overcommit idle = 1 node ×
  // 1.2 - 0 < 2 nodes of minResources: rejected; the PodGroup stays Pending, no pod is created,
  // the autoscaler sees no Pending pod: nothing launches and the run ends at once.
  Run r(scenario_path("autoscaler-trap.json"));
  REQUIRE(r.invariant_violation.empty());
  const auto& j = r.rec.final_of(0);
  CHECK(j.phase == "Pending");
  CHECK(j.reason.find("overcommit") != std::string::npos);
  CHECK(r.rec.pods.empty());
  CHECK(r.rec.nodes.empty());
  CHECK(r.cluster->stats().nodes_launched == 0);
  // Flagged as the trap, with its remedy — not as a queue-share problem: the group can grow to
  // max_size 3 x 32 = 96 NeuronCores, above the job's 64, so its queue deserves enough.
  CHECK(r.cluster->stats().autoscaler_trapped == 1);
  CHECK(r.cluster->stats().autoscaler_trap_example == "j");
  CHECK(j.reason.find("the autoscaler trap: no pod exists") != std::string::npos);
  std::ostringstream os;
  io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds()));
  CHECK_MESSAGE(os.str().find("Autoscaler trap: 1 job(s) never got a pod (e.g. j)") != std::string::npos, os.str());
  CHECK_MESSAGE(os.str().find("Remedy: leave enqueue out of volcano.actions") != std::string::npos, os.str());
  CHECK_MESSAGE(os.str().find("Queue share") == std::string::npos, os.str());
}

TEST_CASE("autoscaler-trap avoided: without the enqueue action the pods exist and the autoscaler adds a node") {
  // actions [allocate, backfill]: allocate moves the Pending PodGroup to Inqueue at 0 and its 2
  // pods are created; the gang does not fit one node. Scan at 10 s (scan interval 10 s): pod 0
  // fits trn1-0's idle resources (the autoscaler knows no gang) and is dropped; pod 1 needs a new
  // node: 1 launch (headroom 2), trn1-1 Ready at 10 + 300 = 310 s. The 310 s session binds both:
  // Bound 310.05, Running 312.05, Succeeded 912.05. Both nodes are empty from 912.05 s; the
  // delay after the 10 s scale-up ended at 610 s; unneeded for 600 s at 1512.05: the first scan
  // after that (1520 s) removes trn1-0 (node order) and keeps trn1-1 (min_size 1).
  Run r(scenario_path("autoscaler-trap.json"), patch({{"volcano", {{"actions", {"allocate", "backfill"}}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& j = r.rec.final_of(0);
  CHECK(j.phase == "Completed");
  CHECK(j.scheduled.ns() == 310050 * kMs);
  CHECK(j.start.ns() == 312050 * kMs);
  CHECK(j.end.ns() == 912050 * kMs);
  REQUIRE(r.rec.nodes.size() == 3);
  CHECK(r.rec.nodes[0].t == 10 * kS);
  CHECK(r.rec.nodes[0].node == "trn1-1");
  CHECK(r.rec.nodes[0].event == "Launching");
  CHECK(r.rec.nodes[1].t == 310 * kS);
  CHECK(r.rec.nodes[1].event == "Ready");
  CHECK(r.rec.nodes[2].t == 1520 * kS);
  CHECK(r.rec.nodes[2].node == "trn1-0");
  CHECK(r.rec.nodes[2].event == "Removed");
  const auto& st = r.cluster->stats();
  CHECK(st.nodes_launched == 1);
  CHECK(st.nodes_removed == 1);
  CHECK(st.autoscaler_trapped == 0);
  CHECK(st.churn_nodes == 0);  // trn1-1 held both pods
  CHECK_FALSE(st.churn_cut);
}

TEST_CASE("autoscaler: a job larger than max_size can never be placed; its churn is cut after one cycle; min/max are checked") {
  nlohmann::json jobs = io::load_scenario(scenario_path("autoscaler-trap.json")).json["workload"]["jobs"];
  jobs[0]["nnodes"] = 4;  // max_size 3
  {
    // With enqueue: 4 whole-node pods > overcommit's 1.2 x 1 node: the PodGroup stays Pending, no
    // pod exists, the autoscaler sees nothing to do; the job waits for ever.
    Run r(scenario_path("autoscaler-trap.json"), patch({{"workload", {{"jobs", jobs}}}}));
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).phase == "Pending");
    CHECK(r.rec.final_of(0).reason.rfind("can never be placed: the cluster can hold at most 3 of this job's 4 pods", 0) == 0);
    CHECK(r.cluster->stats().never_placeable == 1);
    CHECK(r.rec.nodes.empty());
  }
  // Without enqueue (actions allocate, backfill) the PodGroup goes Inqueue at 0 and its 4 pods
  // exist: the churn (cluster-autoscaler knows no gang). Scan at 10 s: pod 0 fits trn1-0's idle
  // resources; pods 1-3 need nodes, the group's headroom is 3 - 1 = 2: trn1-1 and trn1-2 launch,
  // Ready at 310 s; the gang of 4 never fits 3 nodes. Scale-down: trn1-0, empty since 0, waits
  // out the delay after the 10 s scale-up (600 s): removed by the 610 s scan (610 - 10 is not
  // < 600). From then on only the never-placeable job is left and the autoscaler scales up no
  // more (else: a scale-up at 620 s, and so on for ever). trn1-1 and trn1-2, empty since 310 s,
  // are unneeded at 910 s: the 910 s scan removes trn1-1 and keeps trn1-2 (min_size 1).
  Run r(scenario_path("autoscaler-trap.json"),
        patch({{"workload", {{"jobs", jobs}}}, {"volcano", {{"actions", {"allocate", "backfill"}}}}}));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.final_of(0).phase == "Pending");
  CHECK(r.rec.final_of(0).podgroup_phase == "Inqueue");
  CHECK(r.rec.pods_of(0, "Created").size() == 4);
  CHECK(r.rec.pods_of(0, "Bound").empty());
  const std::vector<std::tuple<std::int64_t, std::string, std::string>> want = {
      {10 * kS, "trn1-1", "Launching"}, {10 * kS, "trn1-2", "Launching"}, {310 * kS, "trn1-1", "Ready"},
      {310 * kS, "trn1-2", "Ready"},    {610 * kS, "trn1-0", "Removed"},  {910 * kS, "trn1-1", "Removed"}};
  check_node_events(r.rec, want);
  CHECK(r.cluster->stats().nodes_launched == 2);
  CHECK(r.cluster->stats().nodes_removed == 2);
  // The churn, flagged with its cost: trn1-1 and trn1-2 never held a pod; trn1-1 from its
  // launch at 10 s to its removal at 910 s, trn1-2 from 10 s to the run's end; trn1.32xlarge
  // On-Demand $21.50 an hour (the catalog's AWS price).
  const double end_s = r.cluster->last_event().seconds();
  const auto& st = r.cluster->stats();
  CHECK(st.churn_nodes == 2);
  CHECK(st.churn_node_seconds == doctest::Approx(900.0 + (end_s - 10.0)).epsilon(1e-12));
  CHECK(st.churn_usd == doctest::Approx((900.0 + end_s - 10.0) / 3600.0 * 21.5).epsilon(1e-12));
  // The cut (the 620 s scan launched nothing) is said: the cost is a lower bound.
  CHECK(st.churn_cut);
  std::ostringstream os;
  io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, end_s));
  CHECK_MESSAGE(os.str().find("Autoscaler churn: 2 node(s) launched for Pending pods never held one") != std::string::npos, os.str());
  CHECK_MESSAGE(os.str().find("refuse them at submission (/cluster/admission/refuse_unplaceable)") != std::string::npos, os.str());
  CHECK_MESSAGE(os.str().find("a real cluster autoscaler repeats it for as long as those pods wait, so this cost is a lower bound") !=
                    std::string::npos,
                os.str());
  nlohmann::json groups = io::load_scenario(scenario_path("autoscaler-trap.json")).json["cluster"]["node_groups"];
  groups[0]["max_size"] = 0;
  CHECK_THROWS_WITH_AS(io::load_scenario(scenario_path("autoscaler-trap.json"), patch({{"cluster", {{"node_groups", groups}}}})),
                       doctest::Contains("/cluster/node_groups/0"), io::ScenarioError);
}

TEST_CASE("autoscaler and taints: it scales out the node group whose template node the pods tolerate") {
  // Two groups under the autoscaler: 'neuron' (1 node, max 3) tainted aws.amazon.com/neuron=
  // true:NoSchedule, listed first, and 'plain' (0 nodes, max 2). Job j: 2 whole-node pods that do
  // not tolerate the taint; actions [allocate, backfill] so the pods exist at 0.
  // Submission: neuron-0 is excluded by its taint, 'plain' may add 2 nodes: not rejected.
  // Scan at 10 s: neuron-0 has room but its taint keeps both pods off it (filter-out-schedulable
  // runs the predicates); scale-up skips 'neuron' (its template node is tainted) and launches
  // plain-0 and plain-1, Ready at 310 s; the 310 s session binds: Bound 310.05, Running 312.05,
  // Succeeded 912.05. Both plain nodes are empty from 912.05 s; unneeded for 600 s at 1512.05:
  // the 1520 s scan removes them (min 0); neuron-0 stays (min 1).
  nlohmann::json groups = nlohmann::json::array();
  groups.push_back({{"name", "neuron"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}, {"min_size", 1},
                    {"max_size", 3}, {"availability_zone", "us-east-1a"},
                    {"taints", {{{"key", "aws.amazon.com/neuron"}, {"value", "true"}, {"effect", "NoSchedule"}}}}});
  groups.push_back({{"name", "plain"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 0}, {"min_size", 0},
                    {"max_size", 2}, {"availability_zone", "us-east-1a"}});
  Run r(scenario_path("autoscaler-trap.json"),
        patch({{"cluster", {{"node_groups", groups}}}, {"volcano", {{"actions", {"allocate", "backfill"}}}}}));
  REQUIRE(r.invariant_violation.empty());
  const auto& j = r.rec.final_of(0);
  CHECK(j.phase == "Completed");
  CHECK(j.scheduled.ns() == 310050 * kMs);
  CHECK(j.end.ns() == 912050 * kMs);
  for (const auto& p : r.rec.pods_of(0, "Bound")) CHECK(p.node.rfind("plain-", 0) == 0);
  REQUIRE(r.rec.nodes.size() == 6);
  for (int i = 0; i < 2; ++i) {
    CHECK(r.rec.nodes[i].t == 10 * kS);
    CHECK(r.rec.nodes[i].group == "plain");
    CHECK(r.rec.nodes[i].event == "Launching");
    CHECK(r.rec.nodes[2 + i].t == 310 * kS);
    CHECK(r.rec.nodes[2 + i].event == "Ready");
    CHECK(r.rec.nodes[4 + i].t == 1520 * kS);
    CHECK(r.rec.nodes[4 + i].group == "plain");
    CHECK(r.rec.nodes[4 + i].event == "Removed");
  }
  CHECK(r.cluster->stats().nodes_launched == 2);
  // The same job tolerating the taint fits neuron-0 for one pod and the autoscaler adds the
  // other in 'neuron', the first group that can take it: no 'plain' node at all.
  nlohmann::json jobs = io::load_scenario(scenario_path("autoscaler-trap.json")).json["workload"]["jobs"];
  jobs[0]["tolerations"] = {{{"key", "aws.amazon.com/neuron"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  Run t(scenario_path("autoscaler-trap.json"), patch({{"cluster", {{"node_groups", groups}}},
                                                      {"volcano", {{"actions", {"allocate", "backfill"}}}},
                                                      {"workload", {{"jobs", jobs}}}}));
  REQUIRE(t.invariant_violation.empty());
  CHECK(t.rec.final_of(0).phase == "Completed");
  REQUIRE_FALSE(t.rec.nodes.empty());
  CHECK(t.rec.nodes[0].node == "neuron-1");
  for (const auto& e : t.rec.nodes) CHECK(e.group == "neuron");
}

// ============================================================ node failures: the corner cases
// (found by a review; each asserts what must hold whatever the random draws)

namespace {
nlohmann::json whole_node_job(const std::string& name, int nnodes, const std::string& submit, const std::string& duration) {
  return {{"name", name},     {"queue", "a"},         {"submit", submit}, {"nnodes", nnodes},
          {"nproc_per_node", 32}, {"pod", "aws_trn1_32xlarge"}, {"duration", duration}};
}
}  // namespace

TEST_CASE("node failure: a pod that died with its node's instance keeps its job from training until it is gone") {
  // 2 nodes, a 2-pod job whose pods start after uniform 1-200 s; trn1-0 fails at 60 s and its
  // instance lingers for an hour (terminated 3660 s: Node deleted then, PodGC 40-60 s later).
  // Whatever the draws, a worker died at 60 s or never started: the job cannot train before
  // PodGC removes that pod and SyncJob / RestartJob replaces it, so it cannot end before 3660 s
  // plus its 5 min. (Before the fix, the API's Running pod counted: trained on a dead node and
  // Completed at 398 s.)
  for (std::uint64_t seed : {7u, 8u, 9u}) {
    CAPTURE(seed);
    nlohmann::json groups = nlohmann::json::array({{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 2},
                                                     {"availability_zone", "us-east-1a"}}});
    Run r(scenario_path("node-failure.json"),
          patch({{"seed", seed},
                 {"cluster", {{"node_groups", groups}}},
                 {"lifecycle", {{"pod_startup", {{"constant", nullptr}, {"uniform", {"1s", "200s"}}, {"source", "test"}}}}},
                 {"faults", {{"scheduled", {{{"node", "trn1-0"}, {"at", "60s"}}}}, {"replacement_time", "3600s"},
                             {"instance_terminated_after", "3600s"}}},
                 {"workload", {{"jobs", nlohmann::json::array({whole_node_job("a", 2, "0s", "5m")})}}}}));
    REQUIRE(r.invariant_violation.empty());
    const auto& a = r.rec.final_of(0);
    CHECK(a.phase == "Completed");
    CHECK(a.end.ns() > (3660 + 300) * kS);
    CHECK(r.cluster->stats().resumed_in_place == 0);
  }
}

TEST_CASE("node failure: a failed node whose instance lingers stands for its replacement when a job's placeability is judged") {
  // 2 nodes; a (1 pod, 20 min) runs on one, trn1-0 fails at 60 s, its instance lingers 15 min;
  // c (2 pods) arrives at 200 s: with the replacement it can be placed, so it is not flagged as
  // never placeable (and with refuse_unplaceable it would not be refused); it completes.
  nlohmann::json groups = nlohmann::json::array({{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 2},
                                                   {"availability_zone", "us-east-1a"}}});
  Run r(scenario_path("node-failure.json"),
        patch({{"cluster", {{"node_groups", groups}, {"admission", {{"refuse_unplaceable", true}}}}},
               {"faults", {{"scheduled", {{{"node", "trn1-0"}, {"at", "60s"}}}}, {"replacement_time", "900s"},
                           {"instance_terminated_after", "900s"}}},
               {"workload", {{"jobs", nlohmann::json::array({whole_node_job("a", 1, "0s", "20m"), whole_node_job("c", 2, "200s", "20m")})}}}}));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.final_of(1).phase == "Completed");
  CHECK(r.cluster->never_placeable().empty());
  CHECK(r.cluster->stats().refused == 0);
}

TEST_CASE("node failure during a Spot interruption notice: the instance is still terminated at the end of the notice") {
  // A Spot node noticed at 3000 s (two minutes) fails at 3119 s with instance_terminated_after
  // 600 s: EC2 terminates it at 3120 s all the same (billing stops, node event Terminated).
  const io::LoadedScenario base = io::load_scenario(scenario_path("node-failure.json"));
  nlohmann::json groups = base.json["cluster"]["node_groups"];
  groups[0]["capacity_type"] = "SPOT";
  Run r(scenario_path("node-failure.json"),
        patch({{"cluster", {{"node_groups", groups}, {"spot_price_history", "spot-price-history.json"}}},
               {"faults", {{"scheduled", {{{"node", "trn1-0"}, {"at", "3119s"}}}},
                           {"spot_interruptions", {{{"node", "trn1-0"}, {"at", "3000s"}}}},
                           {"replacement_time", "900s"},
                           {"instance_terminated_after", "600s"}}}}));
  REQUIRE(r.invariant_violation.empty());
  bool terminated = false;
  for (const auto& e : r.rec.nodes)
    if (e.node == "trn1-0" && e.event == "Terminated") {
      CHECK(e.t == 3120 * kS);
      terminated = true;
    }
  CHECK(terminated);
}

TEST_CASE("autoscaler churn ends even while a placeable job waits for ever beside a never-placeable one") {
  // min 2, max 4, no enqueue action; a (2 pods, no retries, 60 s peer timeout) loses trn1-0 at
  // 1000 s and is left with a Failed survivor (SyncJob never recreates it): it never ends. b (5
  // pods) can never be placed. The autoscaler launches for b's Pending pods; once such a node is
  // removed without ever holding a pod, it launches no more for the same Pending pods: the run
  // ends. (Before the fix it churned for ever: 8,497 nodes in 30 days.)
  const io::LoadedScenario base = io::load_scenario(scenario_path("autoscaler-trap.json"));
  nlohmann::json groups = base.json["cluster"]["node_groups"];
  groups[0]["desired_capacity"] = 2;
  groups[0]["min_size"] = 2;
  groups[0]["max_size"] = 4;
  nlohmann::json jobs = base.json["workload"]["jobs"];
  nlohmann::json a = jobs[0], b = jobs[0];
  a["name"] = "a";
  a["nnodes"] = 2;
  a["duration"] = "10h";
  b["name"] = "b";
  b["nnodes"] = 5;
  b["submit"] = "10s";
  b["duration"] = "10h";
  Run r(scenario_path("autoscaler-trap.json"),
        patch({{"cluster", {{"node_groups", groups}}},
               {"volcano", {{"actions", {"allocate", "backfill"}}}},
               {"workload", {{"jobs", nlohmann::json::array({a, b})}, {"torchx", {{"max_retries", 0}, {"peer_failure_timeout", "60s"}, {"source", "test"}}}}},
               {"faults", {{"scheduled", {{{"node", "trn1-0"}, {"at", "1000s"}}}}, {"replacement_time", "600s"}, {"source", "test"}}}}));
  REQUIRE(r.invariant_violation.empty());
  CHECK(r.rec.final_of(1).phase == "Pending");
  CHECK(r.cluster->never_placeable().size() == 1);
  CHECK(r.cluster->last_event().seconds() < 86400.0);
  CHECK(r.cluster->stats().churn_nodes >= 1);
  CHECK(r.cluster->stats().churn_nodes < 20);
}
