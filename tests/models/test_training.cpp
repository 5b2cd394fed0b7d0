// The training model end to end on hand-checkable scenarios (tests/scenarios/*.json): every
// expected time, phase and decision below is derived by hand from the rules stated in the
// comments (scenario figures, Volcano v1.12.1 enqueue/overcommit/gang rules, the model's tick
// alignment), never copied from a run.
#include <doctest/doctest.h>

#include <boost/random/mersenne_twister.hpp>
#include <algorithm>
#include <tuple>
#include <cmath>
#include <fstream>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using core::Time;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;   // ns per second
constexpr std::int64_t kMs = 1'000'000LL;      // ns per millisecond
// A refused job's reason with /cluster/admission/refuse_unplaceable, before why it can never run.
const std::string kRefusedUnplaceable =
    "refused by the cluster's admission policy (/cluster/admission/refuse_unplaceable): it can never be placed: ";

std::string scenario_path(const std::string& name) { return std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + name; }

// ---------------------------------------------------------------- an in-memory recorder

struct Pod {
  std::uint32_t job;
  int pod;
  std::string event, node;
  std::int64_t t;
};
struct Dec {
  std::uint32_t job;
  std::int64_t t;
  std::string code, plugin, reason;
};
struct Phase {
  std::uint32_t job;
  std::int64_t t;
  std::string from, to;
};

class MemRecorder final : public models::TrainingRecorder {
 public:
  std::vector<models::JobSubmitted> submitted;
  std::vector<models::JobFinal> finals;
  std::vector<Pod> pods;
  std::vector<Dec> decisions;
  std::vector<Phase> phases;
  std::vector<models::ClusterSample> samples;
  std::vector<std::int64_t> checkpoints;

  void job_submitted(const models::JobSubmitted& j) override { submitted.push_back(j); }
  void job_final(const models::JobFinal& j) override { finals.push_back(j); }
  void pod_event(const models::PodEvent& e) override {
    pods.push_back({e.job, e.pod, std::string(e.event), std::string(e.node), e.t.ns()});
  }
  void decision(const models::Decision& d) override {
    decisions.push_back({d.job, d.t.ns(), std::string(d.code), std::string(d.plugin), std::string(d.reason)});
  }
  void phase_change(const models::PhaseChange& p) override {
    phases.push_back({p.job, p.t.ns(), std::string(p.from), std::string(p.to)});
  }
  void sample(const models::ClusterSample& s) override { samples.push_back(s); }
  void checkpoint(Time now) override { checkpoints.push_back(now.ns()); }
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}

  // Exactly one final record per job; returns it.
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
  std::vector<Pod> pods_of(std::uint32_t job, const std::string& event) const {
    std::vector<Pod> v;
    for (const auto& p : pods)
      if (p.job == job && p.event == event) v.push_back(p);
    return v;
  }
  std::vector<Dec> decisions_of(std::uint32_t job) const {
    std::vector<Dec> v;
    for (const auto& d : decisions)
      if (d.job == job) v.push_back(d);
    return v;
  }
  std::vector<Phase> phases_of(std::uint32_t job) const {
    std::vector<Phase> v;
    for (const auto& p : phases)
      if (p.job == job) v.push_back(p);
    return v;
  }
};

// ---------------------------------------------------------------- running a scenario

struct Run {
  io::LoadedScenario sc;
  core::Simulator sim;
  std::unique_ptr<core::RngStreams> rng;
  MemRecorder rec;
  std::unique_ptr<models::TrainingCluster> cluster;
  std::string invariant_violation;

  explicit Run(const std::string& path, const io::LoadOptions& opts = {}) : sc(io::load_scenario(path, opts)) {
    rng = std::make_unique<core::RngStreams>(sc.seed);
    cluster = std::make_unique<models::TrainingCluster>(sc.training, sim, *rng, rec);
    cluster->start();
    // Step event by event, checking the cluster state after each one.
    while (sim.step())
      if (invariant_violation.empty()) invariant_violation = cluster->state().check_invariants();
    cluster->finish(cluster->last_event());
  }
};

// The documented stream seed (core/rng.hpp), re-implemented here from its description.
std::uint64_t fnv1a64(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}
std::uint64_t splitmix64_first(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Checks the lifecycle of a job that is admitted at the session at `inqueue_s` (an integer
// second), placed at the next session, with the test scenarios' constant 50 ms bind latency
// and 2 s pod start-up, and that trains for `train_s`:
//   pods Created at inqueue; Bound at inqueue + 1 s + 50 ms; Running 2 s later; the job starts
//   when the last pod runs (all at once here) and ends train_s later.
void check_lifecycle(const MemRecorder& rec, std::uint32_t job, int nnodes, std::int64_t inqueue_s, std::int64_t train_s,
                     const std::vector<std::string>& cluster_nodes) {
  CAPTURE(job);
  const std::int64_t inqueue = inqueue_s * kS;
  const std::int64_t scheduled = inqueue + kS + 50 * kMs;
  const std::int64_t start = scheduled + 2 * kS;
  const std::int64_t end = start + train_s * kS;

  const auto& f = rec.final_of(job);
  CHECK(f.phase == "Completed");
  CHECK(f.podgroup_phase == "Completed");
  CHECK(f.inqueue.ns() == inqueue);
  CHECK(f.scheduled.ns() == scheduled);
  CHECK(f.start.ns() == start);
  CHECK(f.end.ns() == end);
  CHECK(f.reason.empty());

  // Pods: created in replica order at admission, each bound to its own node, running and
  // succeeding on that node.
  const auto created = rec.pods_of(job, "Created");
  REQUIRE(created.size() == static_cast<std::size_t>(nnodes));
  for (int i = 0; i < nnodes; ++i) {
    CHECK(created[i].pod == i);
    CHECK(created[i].t == inqueue);
    CHECK(created[i].node.empty());
  }
  std::map<int, std::string> node_of;
  std::set<std::string> distinct;
  for (const auto& p : rec.pods_of(job, "Bound")) {
    CHECK(p.t == scheduled);
    CHECK_MESSAGE(std::find(cluster_nodes.begin(), cluster_nodes.end(), p.node) != cluster_nodes.end(), p.node);
    CHECK(node_of.emplace(p.pod, p.node).second);  // each pod bound once
    distinct.insert(p.node);
  }
  CHECK(node_of.size() == static_cast<std::size_t>(nnodes));
  CHECK(distinct.size() == static_cast<std::size_t>(nnodes));  // one whole-node pod per node
  const auto running = rec.pods_of(job, "Running");
  const auto succeeded = rec.pods_of(job, "Succeeded");
  CHECK(running.size() == static_cast<std::size_t>(nnodes));
  CHECK(succeeded.size() == static_cast<std::size_t>(nnodes));
  for (const auto& p : running) {
    CHECK(p.t == start);
    CHECK(p.node == node_of[p.pod]);
  }
  for (const auto& p : succeeded) {
    CHECK(p.t == end);
    CHECK(p.node == node_of[p.pod]);
  }
  std::string nodes;
  for (int i = 0; i < nnodes; ++i) nodes += (i ? "," : "") + node_of[i];
  CHECK(f.nodes == nodes);

  // PodGroup phases: Pending -> Inqueue (admission), Inqueue -> Running (the allocate session,
  // which binds minAvailable pods), Running -> Completed (the pods succeed); each once.
  const auto ph = rec.phases_of(job);
  REQUIRE(ph.size() == 3);
  CHECK(ph[0].from == "Pending");
  CHECK(ph[0].to == "Inqueue");
  CHECK(ph[0].t == inqueue);
  CHECK(ph[1].from == "Inqueue");
  CHECK(ph[1].to == "Running");
  CHECK(ph[1].t == inqueue + kS);
  CHECK(ph[2].from == "Running");
  CHECK(ph[2].to == "Completed");
  CHECK(ph[2].t == end);
}

void check_decision(const Dec& d, std::int64_t t, const char* code, const char* plugin, const char* reason) {
  CHECK(d.t == t);
  CHECK(d.code == code);
  CHECK(d.plugin == plugin);
  CHECK(d.reason == reason);
}

// The Job was never created: an admission webhook refused it at submission.
void check_refused(const MemRecorder& rec, std::uint32_t job) {
  CAPTURE(job);
  const auto& f = rec.final_of(job);
  CHECK(f.phase == "Refused");
  CHECK(f.podgroup_phase == "Pending");
  CHECK(f.inqueue == Time::max());
  CHECK(f.scheduled == Time::max());
  CHECK(f.start == Time::max());
  CHECK(f.end == Time::max());
  CHECK(f.nodes.empty());
  CHECK(rec.decisions_of(job).empty());  // never reached the scheduler
  CHECK(rec.phases_of(job).empty());
  for (const auto& p : rec.pods)
    CHECK_MESSAGE(p.job != job, "a refused job has a pod event: " << p.event);
}

// Admitted, never placed: still Pending at the end, its reason saying it can never be placed,
// its PodGroup Inqueue (its pods created, never bound) or Pending (enqueue found no budget).
void check_never_placed(const MemRecorder& rec, std::uint32_t job, bool inqueue) {
  CAPTURE(job);
  const auto& f = rec.final_of(job);
  CHECK(f.phase == "Pending");
  CHECK(f.reason.rfind("can never be placed: ", 0) == 0);
  CHECK(f.podgroup_phase == (inqueue ? "Inqueue" : "Pending"));
  CHECK((f.inqueue != Time::max()) == inqueue);
  CHECK(f.scheduled == Time::max());
  CHECK(f.start == Time::max());
  CHECK(f.end == Time::max());
  CHECK(f.nodes.empty());
  for (const auto& p : rec.pods) {
    if (p.job != job) continue;
    CHECK_MESSAGE(inqueue, "a job never admitted has a pod event: " << p.event);
    CHECK_MESSAGE(p.event == "Created", "a job never placed has a pod event: " << p.event);
  }
}

}  // namespace

// ================================================================== tiny-gang

TEST_CASE("tiny-gang: the timeline derived by hand") {
  // Scenario: 4 × trn1.32xlarge (each 128 vCPU, 512 GiB, 16 devices = 32 NeuronCores, 8 EFA).
  // Every pod asks for a whole node (127.9 cpu, 523264M = 487.3 GiB, 16 devices, 8 EFA).
  // a, b: 4 pods, 1 h, submitted at 0; c: 2 pods, 30 min, submitted at 600 s. Seed 7.
  // Bind latency 50 ms, pod start-up 2 s (constants). Schedule period 1 s, aligned to t = 0:
  // a change at time t schedules the next session at the next whole second strictly after t.
  Run r(scenario_path("tiny-gang.json"));
  REQUIRE(r.invariant_violation.empty());
  const MemRecorder& rec = r.rec;
  const std::vector<std::string> nodes = {"trn1-0", "trn1-1", "trn1-2", "trn1-3"};

  // a and b have equal priority, no allocation (equal DRF share) and equal creation time, so
  // Volcano's job order falls through to the UID. UIDs are drawn from stream "apiserver.uid":
  // first the queue's, then a's, then b's (submission order). Recompute them from the
  // documented seed derivation and check that a sorts first (it is the premise of this
  // timeline; a different seed may reverse it).
  const std::uint64_t uid_seed = splitmix64_first(r.sc.seed ^ fnv1a64("apiserver.uid"));
  REQUIRE(uid_seed == core::stream_seed(r.sc.seed, "apiserver.uid"));
  boost::random::mt19937_64 uids(uid_seed);
  (void)uids();  // the queue "default"
  const std::uint64_t uid_a = uids(), uid_b = uids();
  REQUIRE_MESSAGE(uid_a < uid_b, "with seed 7 a must precede b in job order");

  REQUIRE(rec.submitted.size() == 3);
  CHECK(rec.submitted[0].name == "a");
  CHECK(rec.submitted[1].name == "b");
  CHECK(rec.submitted[2].name == "c");
  CHECK(rec.submitted[2].submit.ns() == 600 * kS);
  CHECK(rec.submitted[0].neuron_devices_per_pod == 16);
  CHECK(rec.submitted[0].nproc_per_node == 32);  // 16 devices × 2 NeuronCores
  CHECK(rec.submitted[0].efa_per_pod == 8);
  CHECK(rec.submitted[0].cpu_per_pod == doctest::Approx(127.9).epsilon(1e-12));
  CHECK(rec.submitted[0].memory_gib_per_pod == doctest::Approx(523264e6 / 1073741824.0).epsilon(1e-12));

  // The cycle at a period boundary t sees every change made at or before t (the model's rule).
  // a: submitted at 0 s, so the session at 0 s admits it: overcommit: 4 × 32 = 128 NeuronCores
  // <= 1.2 × 128 = 153.6 (64 <= 76.8 devices; cpu 511.6 <= 614.4; memory 2.09e12 <= 2.64e12
  // bytes; EFA 32 <= 38.4). Pods are created then; the 1 s session binds the gang: Bound
  // 1.05 s, Running 3.05 s, training 1 h: Succeeded at 3603.05 s.
  check_lifecycle(rec, 0, 4, 0, 3600, nodes);
  // b: at 0 s, after a, overcommit sees 128 + 128 = 256 > 153.6 (128 > 76.8 devices) and
  // rejects it. It is admitted at the first session after a ends (3603.05 s -> 3604 s):
  // nothing is used or in queue then.
  check_lifecycle(rec, 1, 4, 3604, 3600, nodes);
  // c arrives at 600 s, a boundary, so the 600 s session sees it: a holds 128 NeuronCores, so
  // overcommit's idle is 153.6 - 128 = 25.6 < 64 (a is fully allocated: nothing of it counts as
  // in queue). At 3604 s b takes 128 in queue: 128 + 64 = 192 > 153.6, still rejected; b ends
  // at 3607.05 + 3600 = 7207.05 s, so c is admitted at 7208 s, bound 7209.05 s, runs
  // 7211.05 s, ends 30 min later.
  check_lifecycle(rec, 2, 2, 7208, 1800, nodes);

  // Decisions are recorded when a job's verdict changes; b and c are re-evaluated in several
  // sessions with the same verdict, which must not be repeated.
  const char* overused = "resource in cluster is overused";
  {
    const auto d = rec.decisions_of(0);
    REQUIRE(d.size() == 2);
    check_decision(d[0], 0 * kS, "Success", "enqueue", "Inqueue");
    check_decision(d[1], 1 * kS, "Success", "allocate", "Scheduled");
  }
  {
    const auto d = rec.decisions_of(1);
    REQUIRE(d.size() == 3);
    check_decision(d[0], 0 * kS, "Unschedulable", "overcommit", overused);
    check_decision(d[1], 3604 * kS, "Success", "enqueue", "Inqueue");
    check_decision(d[2], 3605 * kS, "Success", "allocate", "Scheduled");
  }
  {
    const auto d = rec.decisions_of(2);
    REQUIRE(d.size() == 3);
    check_decision(d[0], 600 * kS, "Unschedulable", "overcommit", overused);
    check_decision(d[1], 7208 * kS, "Success", "enqueue", "Inqueue");
    check_decision(d[2], 7209 * kS, "Success", "allocate", "Scheduled");
  }
  CHECK(rec.decisions.size() == 8);
  CHECK(rec.phases.size() == 9);
  CHECK(rec.pods.size() == 4 * 4 + 4 * 4 + 2 * 4);

  // The model's books. Sessions run only after a change: 0 s (enqueue a), 1 s (bind a), 2 s
  // (nothing left to do: clean); 600 s (c arrived; changes nothing); 3604, 3605, 3606 (b);
  // 7208, 7209, 7210 (c); 9012 s (c's job removed at 9011.05 s). That is 11 sessions; the last
  // event of the run is the 9012 s session.
  const auto& st = r.cluster->stats();
  CHECK(st.sessions == 11);
  CHECK(st.binds == 10);
  CHECK(st.refused == 0);
  CHECK(st.neuroncores_total == 128);
  CHECK(r.cluster->last_event().ns() == 9012 * kS);
  CHECK(st.cycles_elapsed == 9013);  // the boundaries 0 s, 1 s, ..., 9012 s
  CHECK(r.cluster->ended() == 3);
  for (const auto& o : r.cluster->outcomes()) CHECK(o.phase == "Completed");
  REQUIRE(rec.checkpoints.size() == 1);
  CHECK(rec.checkpoints[0] == 9012 * kS);

  // Allocated NeuronCore-seconds, integrated exactly: 128 cores from the bind decision (1 s)
  // to a's end (3603.05 s), 128 from 3605 s to 7207.05 s, 64 from 7209 s to 9011.05 s.
  REQUIRE(st.allocated_core_seconds_per_day.size() == 1);
  const double expected = 128 * 3602.05 + 128 * 3602.05 + 64 * 1802.05;
  CHECK(st.allocated_core_seconds_per_day[0] == doctest::Approx(expected).epsilon(1e-12));

  // Metrics every 5 min from t = 0.
  std::map<std::int64_t, models::ClusterSample> at;
  for (const auto& s : rec.samples) {
    CHECK(s.t.ns() % (300 * kS) == 0);
    CHECK(at.emplace(s.t.ns(), s).second);
    CHECK(s.neuroncores_total == 128);
  }
  REQUIRE(at.count(0));
  auto sample = [&](std::int64_t t_s, double alloc, int pending, int inqueue, int running, int pods_running) {
    CAPTURE(t_s);
    REQUIRE(at.count(t_s * kS));
    const auto& s = at[t_s * kS];
    CHECK(s.neuroncores_allocated == alloc);
    CHECK(s.jobs_pending == pending);
    CHECK(s.jobs_inqueue == inqueue);
    CHECK(s.jobs_running == running);
    CHECK(s.pods_running == pods_running);
  };
  sample(300, 128, 1, 0, 1, 4);   // a runs, b waits
  sample(3600, 128, 2, 0, 1, 4);  // a runs until 3604.05 s; b and c wait
  sample(3900, 128, 1, 0, 1, 4);  // b runs, c waits
  sample(7500, 64, 0, 0, 1, 2);   // c runs
}

TEST_CASE("tiny-gang: a second run with the same seed records the same facts") {
  Run r1(scenario_path("tiny-gang.json"));
  Run r2(scenario_path("tiny-gang.json"));
  REQUIRE(r1.rec.pods.size() == r2.rec.pods.size());
  for (std::size_t i = 0; i < r1.rec.pods.size(); ++i) {
    CHECK(r1.rec.pods[i].node == r2.rec.pods[i].node);
    CHECK(r1.rec.pods[i].t == r2.rec.pods[i].t);
    CHECK(r1.rec.pods[i].event == r2.rec.pods[i].event);
  }
}

// ================================================================== jobs that can never be placed

TEST_CASE("a job larger than the cluster is admitted and waits for ever, its reason naming the pod count") {
  // 'huge' needs 5 whole-node pods; each trn1.32xlarge holds one such pod (cpu 128/127.9,
  // memory 512 GiB / 487.3 GiB, 32/32 NeuronCores, 8/8 EFA all floor to 1), so 4 nodes hold 4.
  // Volcano's webhook checks only the queue (admit_job.go:225-250): the Job is created. enqueue
  // at 0: overcommit's idle = 1.2 x 4 nodes = 4.8 nodes' worth, and 5 whole-node pods exceed it
  // (cpu 5 x 127.9 = 639.5 > 1.2 x 4 x 128 = 614.4): its PodGroup stays Pending, no pod exists.
  // 'ok' (4 pods, submitted at the same instant) fits the 4.8 and runs as a did in tiny-gang.
  Run r(scenario_path("reject-oversize.json"));
  REQUIRE(r.invariant_violation.empty());
  const MemRecorder& rec = r.rec;
  REQUIRE(rec.submitted.size() == 2);
  REQUIRE(rec.submitted[0].name == "huge");
  REQUIRE(rec.submitted[1].name == "ok");
  check_never_placed(rec, 0, /*inqueue=*/false);
  const std::string& why = rec.final_of(0).reason;
  CHECK(why.rfind("can never be placed: the cluster can hold at most 4 of this job's 5 pods at once; ", 0) == 0);
  CHECK(why.find("(remedy: delete it, or refuse such jobs at submission: /cluster/admission/refuse_unplaceable)") != std::string::npos);
  // The scheduler's own words last: the overcommit plugin's (overcommit.go).
  CHECK(why.substr(why.size() - std::string("overcommit: resource in cluster is overused").size()) ==
        "overcommit: resource in cluster is overused");
  CHECK(r.cluster->outcomes()[0].phase == "Pending");
  CHECK(r.cluster->stats().never_placeable == 1);
  CHECK(r.cluster->stats().refused == 0);
  CHECK(r.cluster->never_placeable().size() == 1);

  check_lifecycle(rec, 1, 4, 0, 3600, {"trn1-0", "trn1-1", "trn1-2", "trn1-3"});
  const auto d = rec.decisions_of(1);
  REQUIRE(d.size() == 2);
  check_decision(d[0], 0 * kS, "Success", "enqueue", "Inqueue");
  check_decision(d[1], 1 * kS, "Success", "allocate", "Scheduled");
  CHECK(r.cluster->ended() == 1);

  // The remedy as an option: the user's own admission policy refuses it at submission (t = 0:
  // its final record comes before anything else happens); 'ok' runs the same.
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"cluster", {{"admission", {{"refuse_unplaceable", true}}}}}};
  Run refused(scenario_path("reject-oversize.json"), o);
  REQUIRE(refused.invariant_violation.empty());
  check_refused(refused.rec, 0);
  CHECK(refused.rec.final_of(0).reason ==
        "refused by the cluster's admission policy (/cluster/admission/refuse_unplaceable): it can never be placed: "
        "the cluster can hold at most 4 of this job's 5 pods at once");
  CHECK(refused.rec.finals.front().job == 0);
  CHECK(refused.cluster->stats().refused == 1);
  CHECK(refused.cluster->stats().never_placeable == 0);
  check_lifecycle(refused.rec, 1, 4, 0, 3600, {"trn1-0", "trn1-1", "trn1-2", "trn1-3"});
  CHECK(refused.cluster->ended() == 2);
}

TEST_CASE("volcano#1295: a job that can never be placed goes Inqueue and its enqueue budget keeps a job that fits Pending") {
  // reject-oversize's 4 nodes; 'ghost' (4 whole-node pods) selects zone us-east-1c, where no
  // node is, and 'ok' now asks for 1 pod. enqueue at 0, in submission order: ghost's minimum
  // resources (4 pods: cpu 511.6) fit overcommit's idle 1.2 x 4 x 128 = 614.4: Inqueue, its
  // pods are created and fail the predicates at every session. ok: inqueue 511.6 + 127.9 =
  // 639.5 > 614.4: overused, at every session, for ever, on an empty cluster.
  nlohmann::json jobs = io::load_scenario(scenario_path("reject-oversize.json")).json["workload"]["jobs"];
  jobs[0]["name"] = "ghost";
  jobs[0]["nnodes"] = 4;
  jobs[0]["node_selector"] = {{"topology.kubernetes.io/zone", "us-east-1c"}};
  jobs[1]["nnodes"] = 1;
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"workload", {{"jobs", jobs}}}};
  Run r(scenario_path("reject-oversize.json"), o);
  REQUIRE(r.invariant_violation.empty());
  check_never_placed(r.rec, 0, /*inqueue=*/true);
  CHECK(r.rec.final_of(0).reason.find("Inqueue, holding its queue's and the overcommit plugin's enqueue budget (volcano#1295)") !=
        std::string::npos);
  CHECK(r.rec.pods_of(0, "Created").size() == 4);
  const auto& ok = r.rec.final_of(1);
  CHECK(ok.phase == "Pending");
  CHECK(ok.podgroup_phase == "Pending");
  CHECK(ok.reason == "overcommit: resource in cluster is overused");
  CHECK(r.rec.pods_of(1, "Created").empty());
  CHECK(r.cluster->ended() == 0);

  // With the remedy, ghost is refused and ok runs at once: admitted at 0, bound at the 1 s
  // session.
  o.overrides["cluster"] = {{"admission", {{"refuse_unplaceable", true}}}};
  Run fixed(scenario_path("reject-oversize.json"), o);
  REQUIRE(fixed.invariant_violation.empty());
  check_refused(fixed.rec, 0);
  check_lifecycle(fixed.rec, 1, 1, 0, 3600, {"trn1-0", "trn1-1", "trn1-2", "trn1-3"});
}

TEST_CASE("Volcano's admission webhook refuses a Job whose queue is Closed; the loader, one whose queue is not a leaf") {
  // pkg/webhooks/admission/jobs/validate/admit_job.go:225-250 at v1.12.1, its messages.
  nlohmann::json queues = io::load_scenario(scenario_path("tiny-gang.json")).json["queues"];
  REQUIRE(queues.size() == 1);
  const std::string q = queues[0]["name"];
  auto refusal = [&](nlohmann::json overrides) {
    io::LoadOptions o;
    o.overrides = std::move(overrides);
    Run r(scenario_path("tiny-gang.json"), o);
    REQUIRE(r.invariant_violation.empty());
    check_refused(r.rec, 0);
    return r.rec.final_of(0).reason;
  };
  nlohmann::json closed = queues;
  closed[0]["state"] = "Closed";
  CHECK(refusal({{"queues", closed}}) == "admission webhook (validate job): can only submit job to queue with state `Open`, queue `" +
                                             q + "` status is `Closed`");
  // A missing or non-leaf queue is the scenario's own mistake: the loader says so, in the
  // webhook's words, naming the JSON path.
  nlohmann::json tree = queues;
  tree.push_back({{"name", "child"}, {"weight", 1}, {"parent", q}});
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"queues", tree}};
  const std::string leaf = "/queues: job a submits to queue '" + q + "': can only submit job to leaf queue, queue `" + q + "` has 1 child queues";
  CHECK_THROWS_WITH_AS(io::load_scenario(scenario_path("tiny-gang.json"), o), doctest::Contains(leaf.c_str()), io::ScenarioError);
}

TEST_CASE("an EFA job split across availability zones fails at training start: its collectives cannot connect") {
  // tiny-gang's pods (16 devices and 8 EFA interfaces: one per node) on two one-node groups in
  // us-east-1a and us-east-1b; job 'x' of 2 pods can only be split. Kubernetes accepts it (the
  // loader warns). Admitted at 0, bound by the 1 s session (1.05 s), Running after the 2 s
  // start-up (3.05 s): training would begin, but EFA's OS-bypass traffic cannot leave its
  // subnet, one per zone (AWS EC2 User Guide, EFA limitations): torchrun's workers exit with an
  // error, both pods Failed at 3.05 s. TorchX's default max_retries 0: no policy, SyncJob, and
  // with every pod ended and fewer than minAvailable Succeeded the Job is Failed.
  nlohmann::json groups = nlohmann::json::array();
  groups.push_back({{"name", "a"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}, {"availability_zone", "us-east-1a"}});
  groups.push_back({{"name", "b"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}, {"availability_zone", "us-east-1b"}});
  nlohmann::json jobs = io::load_scenario(scenario_path("tiny-gang.json")).json["workload"]["jobs"];
  nlohmann::json x = jobs[2];
  x["name"] = "x";
  x["submit"] = "0s";
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"cluster", {{"node_groups", groups}}}, {"workload", {{"jobs", nlohmann::json::array({x})}}}};
  Run r(scenario_path("tiny-gang.json"), o);
  REQUIRE(r.invariant_violation.empty());
  REQUIRE(r.sc.warnings.size() == 1);
  const auto failed = r.rec.pods_of(0, "Failed");
  REQUIRE(failed.size() == 2);
  for (const auto& p : failed) CHECK(p.t == 3050 * kMs);
  std::vector<Dec> torchrun;
  for (const Dec& d : r.rec.decisions_of(0))
    if (d.plugin == "torchrun") torchrun.push_back(d);
  REQUIRE(torchrun.size() == 1);
  CHECK(torchrun[0].t == 3050 * kMs);
  CHECK(torchrun[0].code == "Failed");
  CHECK(torchrun[0].reason == "its pods run in availability zones us-east-1a, us-east-1b and EFA traffic cannot cross zones: its "
                              "collectives cannot connect");
  CHECK(r.rec.final_of(0).phase == "Failed");
  CHECK(r.cluster->stats().efa_cross_zone_failures == 1);
  // The summary says so, once: one attempt (the job's only one) failed.
  const io::RunSummary sum = io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds());
  CHECK(sum.efa_cross_zone_failures == 1);
  std::ostringstream os;
  io::print_summary(os, sum);
  CHECK(os.str().find("EFA across availability zones: 1 job attempt(s) failed at training start because their pods were split "
                      "across availability zones") != std::string::npos);
  CHECK(os.str().find("topology.kubernetes.io/zone") != std::string::npos);
}

TEST_CASE("queue deadlock: each queue deserves less than its smallest gang; the printed remedy, applied, unlocks it") {
  // tests/scenarios/queue-deadlock.json: 4 nodes = 128 NeuronCores, queues a and b of weight 1;
  // a1 (a) and b1 (b): 3 whole-node pods = 96 NeuronCores each, both admitted at 0 (overcommit
  // factor 2). proportion: both queues ask for 96, so each deserves 128 x 1/2 = 64 < 96 and
  // allocate refuses both gangs at every session: nothing runs, ever. The weight that gives a
  // queue its 96 with the other at 1: 128 w / (w + 1) >= 96, w >= 3.
  auto summary = [](Run& r) {
    std::ostringstream os;
    io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds()));
    return os.str();
  };
  Run locked(scenario_path("queue-deadlock.json"));
  REQUIRE(locked.invariant_violation.empty());
  CHECK(locked.rec.final_of(0).phase == "Pending");
  CHECK(locked.rec.final_of(1).phase == "Pending");
  const std::string text = summary(locked);
  CHECK_MESSAGE(text.find("Deadlock: queues a, b each deserve less than their smallest job (above), so proportion refuses every "
                          "gang and nothing runs: the run ended with 2 job(s) waiting on an idle cluster. Remedy: raise one "
                          "queue's weight — queue a to 3 —") != std::string::npos,
                text);

  // The remedy applied: a at weight 3 deserves 128 x 3/4 = 96, its gang: admitted at 0, bound by
  // the 1 s session (1.05 s), Running at 3.05 s (2 s start-up), 1 h: ends 3603.05 s. Then queue
  // a asks for nothing and b deserves all 128: the next session (3604 s) binds b1 (3604.05 s),
  // Running 3606.05 s, ends 7206.05 s.
  nlohmann::json queues = io::load_scenario(scenario_path("queue-deadlock.json")).json["queues"];
  queues[0]["weight"] = 3;
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"queues", queues}};
  Run fixed(scenario_path("queue-deadlock.json"), o);
  REQUIRE(fixed.invariant_violation.empty());
  CHECK(fixed.rec.final_of(0).phase == "Completed");
  CHECK(fixed.rec.final_of(0).scheduled.ns() == 1050 * kMs);
  CHECK(fixed.rec.final_of(0).end.ns() == 3603050 * kMs);
  CHECK(fixed.rec.final_of(1).phase == "Completed");
  CHECK(fixed.rec.final_of(1).scheduled.ns() == 3604050 * kMs);
  CHECK(fixed.rec.final_of(1).end.ns() == 7206050 * kMs);
  CHECK(summary(fixed).find("Deadlock") == std::string::npos);

  // Both raised to 3 (what two per-queue remedies would say): 64 each again, locked again.
  queues[1]["weight"] = 3;
  o.overrides = nlohmann::json{{"queues", queues}};
  Run both(scenario_path("queue-deadlock.json"), o);
  CHECK(both.rec.final_of(0).phase == "Pending");
  CHECK(summary(both).find("Deadlock: queues a, b") != std::string::npos);
}

TEST_CASE("a job above its queue's capability is admitted and waits for ever, naming the capability") {
  // Queue 'small' is capped at 16 Neuron devices = 32 NeuronCores (other dimensions unbounded).
  // 'over-cap' asks for 2 whole-node pods: minimum resources cpu 2 × 127.9 = 255.8,
  // memory 2 × 523264e6 B = 974.655 GiB, 64 NeuronCores, 16 EFA; 64 > 32. enqueue: proportion
  // refuses it (its minimum above the queue's capability), so its PodGroup stays Pending.
  // 'at-cap' asks for exactly the capability (one pod of 16 devices) and must run: submitted
  // at 10 s, admitted at the 11 s session, bound 12.05 s, running 14.05 s, 1 h of training.
  Run r(scenario_path("reject-capability.json"));
  REQUIRE(r.invariant_violation.empty());
  const MemRecorder& rec = r.rec;
  REQUIRE(rec.submitted.size() == 2);
  REQUIRE(rec.submitted[0].name == "over-cap");
  REQUIRE(rec.submitted[1].name == "at-cap");
  check_never_placed(rec, 0, /*inqueue=*/false);
  const std::string& why = rec.final_of(0).reason;
  // 2 pods of 16 Neuron devices (aws.amazon.com/neurondevice, as TorchX requests them) and one
  // `pods` each; the capability names the devices only, the rest is unbounded.
  CHECK(why.rfind("can never be placed: the job's minimum resources {cpu 255.8, memory 974.655Gi, pods 2, aws.amazon.com/neurondevice 32, "
                  "vpc.amazonaws.com/efa 16} exceed queue 'small' capability {aws.amazon.com/neurondevice 16; "
                  "anything else unlimited}; ", 0) == 0);
  CHECK(why.find("the scheduler's last word: proportion: queue resource quota insufficient") != std::string::npos);
  CHECK(r.cluster->stats().never_placeable == 1);

  check_lifecycle(rec, 1, 1, 10, 3600, {"trn1-0", "trn1-1", "trn1-2", "trn1-3"});
  const auto d = rec.decisions_of(1);
  REQUIRE(d.size() == 2);
  check_decision(d[0], 10 * kS, "Success", "enqueue", "Inqueue");
  check_decision(d[1], 11 * kS, "Success", "allocate", "Scheduled");
}

TEST_CASE("no metrics sample is recorded after the run's end") {
  // tiny-gang ends at 9012 s (the last session). The 9000 s sample still sees c's end pending
  // (9011.05 s) and schedules one more at 9300 s, which must not be recorded: nothing runs
  // then, and cluster_metrics must not hold a row past the end of the run.
  Run r(scenario_path("tiny-gang.json"));
  REQUIRE(!r.rec.samples.empty());
  const std::int64_t end = r.cluster->last_event().ns();
  REQUIRE(end == 9012 * kS);
  for (const auto& s : r.rec.samples) CHECK_MESSAGE(s.t.ns() <= end, "sample at " << s.t.ns() / kS << " s");
}

// ================================================================== same-instant arrivals

TEST_CASE("a session sees a job submitted at its instant, whatever else is scheduled") {
  // y (one whole-node pod) is submitted at 2 s to an otherwise idle 4-node cluster. The cycle
  // at boundary t sees every change at or before t, so y is admitted at 2 s both beside x
  // (whose sessions run at 0, 1 and 2 s) and alone. (Before the rule, event-insertion order
  // decided: 2 s with x, 3 s alone.)
  Run with_x(scenario_path("same-instant.json"));
  io::LoadOptions alone;
  alone.overrides = {{"workload", {{"jobs", nlohmann::json::array({with_x.sc.json.at("workload").at("jobs").at(1)})}}}};
  Run y_alone(scenario_path("same-instant.json"), alone);
  REQUIRE(with_x.rec.submitted.size() == 2);
  REQUIRE(with_x.rec.submitted[1].name == "y");
  REQUIRE(y_alone.rec.submitted.size() == 1);
  REQUIRE(y_alone.rec.submitted[0].name == "y");
  const auto in_with_x = with_x.rec.final_of(1).inqueue.ns();
  const auto in_alone = y_alone.rec.final_of(0).inqueue.ns();
  CHECK_MESSAGE(in_with_x == in_alone, "y admitted at " << in_with_x / kS << " s with x, " << in_alone / kS
                                                         << " s alone");
  CHECK(in_alone == 2 * kS);
}

TEST_CASE("same-instant: x and y timelines") {
  Run with_x(scenario_path("same-instant.json"));
  REQUIRE(with_x.rec.submitted.size() == 2);
  check_lifecycle(with_x.rec, 0, 1, 0, 3600, {"trn1-0", "trn1-1", "trn1-2", "trn1-3"});
  // y: admitted at 2 s (see above), bound at the session after that.
  const auto& f = with_x.rec.final_of(1);
  CHECK(f.phase == "Completed");
  CHECK(f.inqueue.ns() == 2 * kS);
  CHECK(f.scheduled.ns() == f.inqueue.ns() + kS + 50 * kMs);
}

// ================================================================== summary helpers

TEST_CASE("quantile: Hyndman & Fan type 7") {
  // h = (n - 1) q; result = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
  std::vector<double> v = {4, 1, 3, 2};          // sorted in place
  CHECK(io::quantile(v, 0.5) == 2.5);            // h = 1.5
  CHECK(v == std::vector<double>{1, 2, 3, 4});
  CHECK(io::quantile(v, 0.95) == doctest::Approx(3.85).epsilon(1e-12));  // h = 2.85
  CHECK(io::quantile(v, 0.99) == doctest::Approx(3.97).epsilon(1e-12));  // h = 2.97
  CHECK(io::quantile(v, 0.0) == 1);
  CHECK(io::quantile(v, 1.0) == 4);
  CHECK(io::quantile(v, 0.25) == doctest::Approx(1.75).epsilon(1e-12));  // h = 0.75
  std::vector<double> tens = {100, 90, 80, 70, 60, 50, 40, 30, 20, 10};
  CHECK(io::quantile(tens, 0.95) == doctest::Approx(95.5).epsilon(1e-12));  // h = 8.55: 90 + 0.55 × 10
  CHECK(io::quantile(tens, 0.5) == doctest::Approx(55).epsilon(1e-12));     // h = 4.5
  std::vector<double> one = {7};
  CHECK(io::quantile(one, 0.99) == 7);
  std::vector<double> none;
  CHECK(std::isnan(io::quantile(none, 0.5)));
}

TEST_CASE("Distribution::of") {
  const auto d = io::Distribution::of({4, 1, 3, 2});
  CHECK(d.n == 4);
  CHECK(d.mean == 2.5);
  CHECK(d.p50 == 2.5);
  CHECK(d.p95 == doctest::Approx(3.85).epsilon(1e-12));
  CHECK(d.p99 == doctest::Approx(3.97).epsilon(1e-12));
  CHECK(d.max == 4);
  const auto e = io::Distribution::of({});
  CHECK(e.n == 0);
  CHECK(e.mean == 0);
  CHECK(e.max == 0);
  const auto s = io::Distribution::of({0, 0, 0, 10});  // skewed: mean 2.5, p50 0, p95 8.5
  CHECK(s.mean == 2.5);
  CHECK(s.p50 == 0);
  CHECK(s.p95 == doctest::Approx(8.5).epsilon(1e-12));
  CHECK(s.max == 10);
}

// ================================================================== eviction and RestartJob

namespace {
io::LoadOptions torchx_override(nlohmann::json torchx) {
  io::LoadOptions o;
  o.overrides = {{"workload", {{"torchx", std::move(torchx)}}}};
  return o;
}
std::vector<std::string> events_of(const MemRecorder& rec, std::uint32_t job) {
  std::vector<std::string> v;
  for (const auto& p : rec.pods)
    if (p.job == job) v.push_back(std::to_string(p.t) + " " + p.event);
  return v;
}
}  // namespace

TEST_CASE("evict-restart: reclaim evicts lo once; RestartJob kills its other pod and lo loses its work since the last checkpoint") {
  // 2 × trn1.32xlarge; queues a and b, weight 1; whole-node pods; bind 50 ms, start-up 2 s,
  // grace 30 s; overcommit-factor 2.0 (so that hi may enter Inqueue on a full cluster);
  // TorchX max_retries 3 (PodEvicted -> RestartJob, maxRetry 3), checkpoint every 5 min.
  // lo (queue a, 2 pods, 1 h): admitted at 0, bound 1.05 s, running 3.05 s: trains from 3.05 s.
  // hi (queue b, 1 pod, 10 min) at 1000 s: overcommit idle 2×2 - 2 = 2 nodes >= 1; proportion:
  // b's real capability is the cluster: Inqueue at 1000 s, pod created.
  // Session 1001 s: allocate finds no room (0.1 cpu idle per node); a is Overused (deserved 1
  // node by water-filling, holds 2). preempt: no victim in b. reclaim: b (share 0) first, hi
  // starves, Preemptive; trn1-0: reclaimee = lo's pod there; tier 1: gang (2 ready = min) gives
  // none, the tier ends; tier 2: proportion: a's 2 nodes exceed its 1 deserved -> that pod.
  // Evicted at 1001 s (grace until 1031 s), hi pipelined; then a and b each hold their
  // deserved node: Overused, done. The job controller (same instant): RestartJob, retry 1 of 3;
  // lo trained 1001 - 3.05 = 997.95 s, its last checkpoint at 900 s: 97.95 s lost; lo's other
  // pod is killed (gone at 1031 s). 1002 s: overcommit rejects lo's PodGroup (Pending again:
  // 2 nodes releasing + hi's 1 node in queue > 4 - 2) — hi is pipelined on releasing resources.
  // 1031 s: lo's pods are gone; the session admits lo (nothing used: 1 + 2 <= 4) and binds hi
  // (1031.05 Bound, 1033.05 Running, ends 1633.05 s); lo's pods are created at 1031 s. 1032 s:
  // a deserves 1 node while hi runs, so lo (2 pods) cannot be placed; reclaim finds no Running
  // victim (hi is Bound) and b holds only its deserved node anyway. 1634 s (hi gone): lo binds
  // both nodes, 1634.05 Bound, 1636.05 Running, trains the remaining 3600 - 900 = 2700 s:
  // Succeeded at 4336.05 s.
  SUBCASE("checkpoint every 5 min") {
    Run r(scenario_path("evict-restart.json"));
    REQUIRE(r.invariant_violation.empty());
    const MemRecorder& rec = r.rec;
    REQUIRE(rec.submitted.size() == 2);
    const std::int64_t ms = kMs;
    CHECK(events_of(rec, 0) == std::vector<std::string>{
                                   "0 Created", "0 Created", std::to_string(1050 * ms) + " Bound", std::to_string(1050 * ms) + " Bound",
                                   std::to_string(3050 * ms) + " Running", std::to_string(3050 * ms) + " Running",
                                   std::to_string(1001 * kS) + " Evicted", std::to_string(1001 * kS) + " Killed",
                                   std::to_string(1031 * kS) + " Deleted", std::to_string(1031 * kS) + " Deleted",
                                   std::to_string(1031 * kS) + " Created", std::to_string(1031 * kS) + " Created",
                                   std::to_string(1634050 * ms) + " Bound", std::to_string(1634050 * ms) + " Bound",
                                   std::to_string(1636050 * ms) + " Running", std::to_string(1636050 * ms) + " Running",
                                   std::to_string(4336050 * ms) + " Succeeded", std::to_string(4336050 * ms) + " Succeeded"});
    // The evicted pod is the one on trn1-0 (reclaim walks the nodes in order); the killed one
    // the other.
    CHECK(rec.pods_of(0, "Evicted").at(0).node == "trn1-0");
    CHECK(rec.pods_of(0, "Killed").at(0).node == "trn1-1");
    const auto lo_dec = rec.decisions_of(0);
    const auto restart = std::find_if(lo_dec.begin(), lo_dec.end(), [](const Dec& d) { return d.code == "Restarting"; });
    REQUIRE(restart != lo_dec.end());
    CHECK(restart->t == 1001 * kS);
    CHECK(restart->plugin == "job-controller");
    CHECK(restart->reason.find("evicted (reclaim) for pod hi-trainer-0-0 of job hi, priority 0 (this job's: 0); victims chosen by tier 2 (proportion); PodEvicted -> RestartJob, retry 1 of maxRetry 3; lost 9") != std::string::npos);
    const auto& st = r.cluster->stats();
    CHECK(st.evictions == 1);
    CHECK(st.restarts == 1);
    CHECK(st.failed == 0);
    CHECK(st.lost_training_s == doctest::Approx(97.95).epsilon(1e-9));
    CHECK(st.lost_neuroncore_s == doctest::Approx(97.95 * 64).epsilon(1e-9));
    const auto& lo = rec.final_of(0);
    CHECK(lo.phase == "Completed");
    CHECK(lo.scheduled.ns() == 1050 * ms);  // the first placement
    CHECK(lo.start.ns() == 3050 * ms);      // the first start
    CHECK(lo.end.ns() == 4336050 * ms);
    const auto& hi = rec.final_of(1);
    CHECK(hi.phase == "Completed");
    CHECK(hi.inqueue.ns() == 1000 * kS);
    CHECK(hi.scheduled.ns() == 1031050 * ms);
    CHECK(hi.end.ns() == 1633050 * ms);
  }
  SUBCASE("no checkpoint: the whole run since its start is lost") {
    Run r(scenario_path("evict-restart.json"), torchx_override({{"max_retries", 3}, {"checkpoint_interval", 0}}));
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.cluster->stats().lost_training_s == doctest::Approx(997.95).epsilon(1e-9));
    // Placed again at 1634 s, running 1636.05 s, the full hour again.
    CHECK(r.rec.final_of(0).end.ns() == 5236050 * kMs);
  }
  SUBCASE("maxRetry 1: the first eviction exhausts the retries, lo is Failed once its pods are gone") {
    Run r(scenario_path("evict-restart.json"), torchx_override({{"max_retries", 1}}));
    REQUIRE(r.invariant_violation.empty());
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Failed");
    CHECK(lo.end.ns() == 1031 * kS);
    CHECK(r.rec.pods_of(0, "Created").size() == 2);  // never re-created
    CHECK(r.cluster->stats().failed == 1);
    CHECK(r.cluster->stats().restarts == 0);
    CHECK(r.rec.final_of(1).end.ns() == 1633050 * kMs);
  }
  SUBCASE("TorchX's default max_retries 0: no policy, Volcano's SyncJob; the survivor waits and the gang forms again") {
    // No policy names PodEvicted: SyncJob (applyPolicies' default). 1001 s: pod 0 is being
    // deleted; lo's training stops (97.95 s since the 900 s checkpoint lost, as above); pod 1
    // keeps running (its all-reduce waits for rank 0; its process group would time out at
    // 1001 + 1800 = 2801 s, PyTorch's default 30 min); nothing is killed, retryCount stays 0.
    // 1031 s: pod 0 is gone; the PodGroup is Pending (the 1001 s session saw 1 of 2 pods
    // allocated), so syncJob creates nothing yet; the 1031 s session admits it (overcommit:
    // used 1 node (pod 1) + hi's 1 Inqueue + lo's 2 <= 2 x 2) and pod 0 is created anew. It waits
    // for a node as lo's two pods did above (hi holds trn1-0 until 1633.05 s; a deserves one node
    // meanwhile): bound at 1634 s, Bound 1634.05, Running 1636.05 < 2801 s: torchrun's agents
    // see it join, restart the workers (a membership change, not a retry) and lo trains its
    // remaining 2700 s: Succeeded at 4336.05 s, as with RestartJob, while pod 1 held trn1-1
    // idle from 1001 s on.
    Run r(scenario_path("evict-restart.json"), torchx_override({{"max_retries", 0}}));
    REQUIRE(r.invariant_violation.empty());
    const std::int64_t ms = kMs;
    CHECK(events_of(r.rec, 0) == std::vector<std::string>{
                                     "0 Created", "0 Created", std::to_string(1050 * ms) + " Bound", std::to_string(1050 * ms) + " Bound",
                                     std::to_string(3050 * ms) + " Running", std::to_string(3050 * ms) + " Running",
                                     std::to_string(1001 * kS) + " Evicted", std::to_string(1031 * kS) + " Deleted",
                                     std::to_string(1031 * kS) + " Created", std::to_string(1634050 * ms) + " Bound",
                                     std::to_string(1636050 * ms) + " Running", std::to_string(4336050 * ms) + " Succeeded",
                                     std::to_string(4336050 * ms) + " Succeeded"});
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Completed");
    CHECK(lo.restarts == 0);
    CHECK(lo.lost_training_s == doctest::Approx(97.95).epsilon(1e-9));
    const auto& st = r.cluster->stats();
    CHECK(st.restarts == 0);
    CHECK(st.resumed_in_place == 1);
    CHECK(st.stuck == 0);
    const auto d = r.rec.decisions_of(0);
    const auto sync = std::find_if(d.begin(), d.end(), [](const Dec& x) { return x.plugin == "job-controller"; });
    REQUIRE(sync != d.end());
    CHECK(sync->t == 1001 * kS);
    CHECK(sync->reason.find("PodEvicted -> SyncJob") != std::string::npos);
    CHECK(sync->reason.find("no policy names this event") != std::string::npos);
    const auto resumed = std::find_if(d.begin(), d.end(), [](const Dec& x) { return x.plugin == "torchrun"; });
    REQUIRE(resumed != d.end());
    CHECK(resumed->t == 1636050 * ms);
  }
  SUBCASE("max_retries 0 with a 300 s process-group timeout: the survivor Fails first and the job is stuck") {
    // As above until 1031 s; at 1001 + 300 = 1301 s pod 1's torchrun times out: Failed
    // (PodFailed, no policy: SyncJob). The Failed pod is never recreated, so the gang (2) can
    // never be complete: pod 0 waits forever (gang: 1 valid task of 2); hi ends at 1633.05 s
    // and the run with it. lo ends the run Pending, flagged stuck.
    Run r(scenario_path("evict-restart.json"), torchx_override({{"max_retries", 0}, {"peer_failure_timeout", "300s"}}));
    REQUIRE(r.invariant_violation.empty());
    const auto failed = r.rec.pods_of(0, "Failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].t == 1301 * kS);
    CHECK(failed[0].node == "trn1-1");
    CHECK(r.rec.pods_of(0, "Created").size() == 3);  // two at 0 s, pod 0 again at 1031 s
    CHECK(r.rec.pods_of(0, "Succeeded").empty());
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Pending");
    CHECK(lo.reason.find("stuck: 1 of its pods Failed and Volcano's SyncJob never recreates a Failed pod") != std::string::npos);
    CHECK(r.cluster->stats().stuck == 1);
    CHECK(r.rec.final_of(1).end.ns() == 1633050 * kMs);
    const io::RunSummary sum = io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds());
    std::ostringstream os;
    io::print_summary(os, sum);
    CHECK(os.str().find("Stuck: 1 job(s) hold Failed pods that Volcano's default SyncJob never recreates") != std::string::npos);
    // The summary counts lo in the phase its jobs row says (it holds no node): Pending, as hi
    // Completed; no job Running.
    const std::map<std::string, std::size_t> phases(sum.phases.begin(), sum.phases.end());
    CHECK(phases == std::map<std::string, std::size_t>{{"Completed", 1}, {"Pending", 1}});
  }
}

// ================================================================== job lifecycle policies

namespace {

nlohmann::json job_policies_doc() {
  std::ifstream in(scenario_path("job-policies.json"));
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("job-policies: lo's own lifecycle policies (RestartTask, AbortJob, CompleteJob, maxRetry) on evict-restart's timeline") {
  // tests/scenarios/job-policies.json: evict-restart's cluster and jobs (see its derivation
  // above: lo trains from 3.05 s; reclaim evicts lo's pod 0 on trn1-0 at 1001 s for hi, which is
  // bound at 1031 s when the pod is gone and ends at 1633.05 s; lo's training since the 900 s
  // checkpoint, 97.95 s, is lost). lo's own lifecycle: maxRetry 3; job-level PodEvicted ->
  // AbortJob; task-level PodEvicted, PodFailed -> RestartTask, which wins (applyPolicies reads
  // the task's policies first). TorchX max_retries 0 for hi; process groups time out after 300 s.
  const std::int64_t ms = kMs;
  SUBCASE("RestartTask (the task's policy beats the job's AbortJob); the survivor times out and its task restarts too") {
    // 1001 s: PodEvicted (pod 0) -> RestartTask: kill the task's pod (being deleted already),
    // retryCount 1, Restarting. Pod 1 survives; its process group times out at 1301 s.
    // 1031 s: pod 0 gone: no pod terminating -> Pending (restartingUpdateStatus); the 1031 s
    // session admits the PodGroup (used 1 node + hi's 1 Inqueue + lo's 2 <= 4) and pod 0 is
    // created. 1301 s: pod 1 Failed -> PodFailed -> RestartTask (from Pending: retryCount 2,
    // Restarting): the Failed pod is deleted at once, nothing terminates -> Pending, and the
    // admitted PodGroup gets pod 1 anew. 1634 s (hi gone, a deserves both nodes): both bound,
    // Running 1636.05 s, 3600 - 900 = 2700 s left: Succeeded at 4336.05 s.
    const nlohmann::json doc = job_policies_doc();
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(events_of(r.rec, 0) == std::vector<std::string>{
                                     "0 Created", "0 Created", std::to_string(1050 * ms) + " Bound", std::to_string(1050 * ms) + " Bound",
                                     std::to_string(3050 * ms) + " Running", std::to_string(3050 * ms) + " Running",
                                     std::to_string(1001 * kS) + " Evicted", std::to_string(1031 * kS) + " Deleted",
                                     std::to_string(1031 * kS) + " Created", std::to_string(1301 * kS) + " Failed",
                                     std::to_string(1301 * kS) + " Deleted", std::to_string(1301 * kS) + " Created",
                                     std::to_string(1634050 * ms) + " Bound", std::to_string(1634050 * ms) + " Bound",
                                     std::to_string(1636050 * ms) + " Running", std::to_string(1636050 * ms) + " Running",
                                     std::to_string(4336050 * ms) + " Succeeded", std::to_string(4336050 * ms) + " Succeeded"});
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Completed");
    CHECK(lo.restarts == 2);
    CHECK(lo.lost_training_s == doctest::Approx(97.95).epsilon(1e-9));
    std::vector<Dec> ctl;
    for (const auto& d : r.rec.decisions_of(0))
      if (d.plugin == "job-controller") ctl.push_back(d);
    REQUIRE(ctl.size() == 2);
    CHECK(ctl[0].t == 1001 * kS);
    CHECK(ctl[0].code == "Restarting");
    CHECK(ctl[0].reason.find("evicted (reclaim) for pod hi-trainer-0-0 of job hi, priority 0 (this job's: 0); victims chosen by tier 2 (proportion); PodEvicted -> RestartTask, retry 1 of maxRetry 3; lost 9") != std::string::npos);
    CHECK(ctl[0].reason.find("(the task's policy)") != std::string::npos);
    CHECK(ctl[1].t == 1301 * kS);
    CHECK(ctl[1].code == "Restarting");
    CHECK(ctl[1].reason.find("timed out after 300 s waiting for a lost peer); PodFailed -> RestartTask, retry 2 of maxRetry 3") !=
          std::string::npos);
    const auto& st = r.cluster->stats();
    CHECK(st.restarts == 2);
    CHECK(st.failed == 0);
    CHECK(st.resumed_in_place == 0);
    CHECK(r.rec.final_of(1).end.ns() == 1633050 * ms);
  }
  SUBCASE("the survivor outlives the wait (process-group timeout 1 h): torchrun re-forms the gang, one retry") {
    // As above until 1031 s; pod 1's wait would end at 1001 + 3600 s. Pod 0 (created 1031 s)
    // is bound at 1634 s, Running 1636.05 s: the gang forms again; 2700 s left: 4336.05 s.
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["torchx"]["peer_failure_timeout"] = "1h";
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(events_of(r.rec, 0) == std::vector<std::string>{
                                     "0 Created", "0 Created", std::to_string(1050 * ms) + " Bound", std::to_string(1050 * ms) + " Bound",
                                     std::to_string(3050 * ms) + " Running", std::to_string(3050 * ms) + " Running",
                                     std::to_string(1001 * kS) + " Evicted", std::to_string(1031 * kS) + " Deleted",
                                     std::to_string(1031 * kS) + " Created", std::to_string(1634050 * ms) + " Bound",
                                     std::to_string(1636050 * ms) + " Running", std::to_string(4336050 * ms) + " Succeeded",
                                     std::to_string(4336050 * ms) + " Succeeded"});
    CHECK(r.rec.final_of(0).restarts == 1);
    CHECK(r.cluster->stats().resumed_in_place == 1);
  }
  SUBCASE("the task's policy names PodEvicted only: the survivor's PodFailed takes SyncJob and lo is stuck") {
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["jobs"][0]["task_policies"] = nlohmann::json::parse(R"([{"event": "PodEvicted", "action": "RestartTask"}])");
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.pods_of(0, "Failed").at(0).t == 1301 * kS);
    CHECK(r.rec.pods_of(0, "Created").size() == 3);
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Pending");
    CHECK(lo.restarts == 1);
    CHECK(lo.reason.find("stuck") != std::string::npos);
    CHECK(r.cluster->stats().stuck == 1);
  }
  SUBCASE("AbortJob (the job's policy, no task policy): lo is Aborted once its pods are gone, nothing restarts") {
    // 1001 s: PodEvicted -> AbortJob: KillJob(PodRetainPhaseSoft) deletes pod 1 (Running) too;
    // Aborting. 1031 s: both pods gone -> Aborted; lo ends, never re-created.
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["jobs"][0].erase("task_policies");
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(events_of(r.rec, 0) == std::vector<std::string>{
                                     "0 Created", "0 Created", std::to_string(1050 * ms) + " Bound", std::to_string(1050 * ms) + " Bound",
                                     std::to_string(3050 * ms) + " Running", std::to_string(3050 * ms) + " Running",
                                     std::to_string(1001 * kS) + " Evicted", std::to_string(1001 * kS) + " Killed",
                                     std::to_string(1031 * kS) + " Deleted", std::to_string(1031 * kS) + " Deleted"});
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Aborted");
    CHECK(lo.end.ns() == 1031 * kS);
    CHECK(lo.restarts == 0);
    CHECK(lo.lost_training_s == doctest::Approx(97.95).epsilon(1e-9));
    CHECK(lo.reason == "PodEvicted -> AbortJob: the job's pods were deleted and nothing restarts it");
    const auto& st = r.cluster->stats();
    CHECK(st.aborted == 1);
    CHECK(st.restarts == 0);
    std::ostringstream os;
    io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds()));
    CHECK(os.str().find("Job policies: 1 Aborted (AbortJob), 0 Terminated (TerminateJob), 0 Completed early (CompleteJob)") !=
          std::string::npos);
    // lo (queue a) Aborted, hi (queue b) Completed: each queue's line adds up to its jobs.
    CHECK_MESSAGE(os.str().find("\n a: 1 submitted, 0 completed, 0 running, 0 pending, 1 failed, aborted or terminated\n") !=
                      std::string::npos,
                  os.str());
    CHECK_MESSAGE(os.str().find("\n b: 1 submitted, 1 completed, 0 running, 0 pending\n") != std::string::npos, os.str());
    CHECK(r.rec.final_of(1).end.ns() == 1633050 * ms);  // hi as before
  }
  SUBCASE("CompleteJob: lo is Completed (early) once its pods are gone") {
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["jobs"][0].erase("task_policies");
    doc["workload"]["jobs"][0]["policies"][0]["action"] = "CompleteJob";
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).phase == "Completed");
    CHECK(r.rec.final_of(0).end.ns() == 1031 * kS);
    CHECK(r.cluster->stats().completed_early == 1);
  }
  SUBCASE("maxRetry 1 (the job's own, where TorchX's default would be 3): the first RestartTask exhausts it: Failed") {
    // 1001 s: RestartTask, retryCount 1 >= maxRetry 1 -> Failed (restartingUpdateStatus), whose
    // KillJob(PodRetainPhaseSoft) deletes the surviving pod 1; both gone at 1031 s.
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["jobs"][0]["max_retry"] = 1;
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("job-policies.json"), o);
    REQUIRE(r.invariant_violation.empty());
    const auto& lo = r.rec.final_of(0);
    CHECK(lo.phase == "Failed");
    CHECK(lo.end.ns() == 1031 * kS);
    CHECK(lo.restarts == 1);
    CHECK(lo.reason == "PodEvicted -> RestartTask: retries exhausted (maxRetry 1)");
    CHECK(r.rec.pods_of(0, "Killed").at(0).node == "trn1-1");
    CHECK(r.rec.pods_of(0, "Created").size() == 2);
    CHECK(r.cluster->stats().failed == 1);
    CHECK(r.cluster->stats().restarts == 0);
  }
}

TEST_CASE("job-policies: the webhook's checks on a policy list, with the JSON path") {
  auto error_of = [](const nlohmann::json& policies, const char* key) {
    nlohmann::json doc = job_policies_doc();
    doc["workload"]["jobs"][0][key] = policies;
    io::LoadOptions o;
    o.document = &doc;
    try {
      io::load_scenario(scenario_path("job-policies.json"), o);
    } catch (const io::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string p = scenario_path("job-policies.json");
  CHECK(error_of(nlohmann::json::parse(R"([{"event": "PodEvicted", "action": "RestartJob"}, {"events": ["PodFailed", "PodEvicted"], "action": "AbortJob"}])"),
                 "policies") == p + ": /workload/jobs/0/policies/1/events/1: event 'PodEvicted' appears in two policies (Volcano's webhook refuses a duplicate event)");
  CHECK(error_of(nlohmann::json::parse(R"([{"event": "*", "action": "RestartJob"}, {"event": "PodFailed", "action": "AbortJob"}])"),
                 "task_policies")
            .find(p + ": /workload/jobs/0/task_policies: a policy on \"*\" cannot stand beside policies on other events") == 0);
  CHECK(error_of(nlohmann::json::parse(R"([{"action": "RestartJob"}])"), "policies") ==
        p + ": /workload/jobs/0/policies/0: a policy needs an event or events (Volcano's webhook: either event and exitCode should be specified)");
  CHECK(error_of(nlohmann::json::parse(R"([{"event": "PodEvicted", "action": "Reboot"}])"), "policies").find("/workload/jobs/0/policies/0/action") !=
        std::string::npos);
  CHECK(error_of(nlohmann::json::parse(R"([{"event": "PodPending", "action": "AbortJob"}])"), "policies").find("/workload/jobs/0/policies/0/event") !=
        std::string::npos);
}

// ================================================================== Kubernetes constraints

TEST_CASE("taints, tolerations and node affinity: who runs where, who can never be placed, and why") {
  // tests/scenarios/k8s-constraints.json: node group 'neuron' (neuron-0, neuron-1, us-east-1a)
  // tainted aws.amazon.com/neuron=true:NoSchedule, node group 'plain' (plain-0, us-east-1b).
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    io::LoadOptions o;
    o.overrides = nlohmann::json{{"seed", seed}};
    Run r(scenario_path("k8s-constraints.json"), o);
    REQUIRE(r.invariant_violation.empty());
    const MemRecorder& rec = r.rec;
    REQUIRE(rec.submitted.size() == 5);
    // 'tolerant' (2 whole-node pods) tolerates the taint and requires us-east-1a: only the two
    // neuron nodes are left, one pod each; admitted at 0, trains 1 h.
    check_lifecycle(rec, 0, 2, 0, 3600, {"neuron-0", "neuron-1"});
    // 'plain-1' (no toleration): only plain-0; 10 min.
    check_lifecycle(rec, 1, 1, 0, 600, {"plain-0"});
    // 'untolerated-2': 2 pods, no toleration: plain-0 holds one of them; the neuron group is
    // excluded by its taint, with the TaintToleration filter's message.
    check_refused(rec, 2);
    CHECK(rec.final_of(2).reason ==
          kRefusedUnplaceable + "the cluster can hold at most 1 of this job's 2 pods at once (node groups its pods cannot use: neuron: "
          "node(s) had untolerated taint {aws.amazon.com/neuron: true})");
    // 'wrong-zone' selects us-east-1c: no node group has a node there (the NodeAffinity filter's
    // message for both; the affinity check comes before the taint check, as in Volcano).
    check_refused(rec, 3);
    CHECK(rec.final_of(3).reason ==
          kRefusedUnplaceable + "no node group can take its pods (nodeSelector, node affinity, tolerations): neuron: node(s) didn't match "
          "Pod's node affinity/selector; plain: node(s) didn't match Pod's node affinity/selector");
    // 'prefers-b' (tolerates the taint, prefers us-east-1b with weight 50) arrives at 2 h with
    // all three nodes free and equal on every other score: nodeorder adds 50 x 2 to plain-0, so
    // it goes there whatever the seed (the node tie-break stream never decides).
    check_lifecycle(rec, 4, 1, 7200, 600, {"plain-0"});
    CHECK(r.cluster->stats().refused == 2);
    // Nodes carry the well-known labels a node affinity can name.
    const policy::NodeInfo& n1 = r.cluster->state().node(1);
    CHECK(n1.name == "neuron-1");
    CHECK(*n1.label("kubernetes.io/hostname") == "neuron-1");
    CHECK(*n1.label("node.kubernetes.io/instance-type") == "trn1.32xlarge");
    CHECK(*n1.label("topology.kubernetes.io/zone") == "us-east-1a");
    CHECK(*n1.label("eks.amazonaws.com/nodegroup") == "neuron");
  }
}

TEST_CASE("allocatable: the EKS AMI's kubelet reservation and the DaemonSets' pods leave a TorchX whole-node pod no room") {
  // tests/scenarios/allocatable.json: 2 x trn1.32xlarge (128 vCPU, 512 GiB, maxPods 247).
  // kube-reserved (EKS AMI): cpu 60 + 10 + 10 + (128000 - 4000) x 25 / 10000 = 390m; memory
  // 11 x 247 + 255 = 2972 MiB; evictionHard memory.available 100 MiB. allocatable: cpu 127610m,
  // memory 524288 - 3072 = 521216 MiB. DaemonSets: aws-node 50m, kube-proxy 100m, the EFA device
  // plugin 10m and 20 MiB, the Neuron device plugin nothing: 160m and 20 MiB on every node.
  Run r(scenario_path("allocatable.json"));
  REQUIRE(r.invariant_violation.empty());
  constexpr double kMiB = 1024.0 * 1024.0;
  const policy::NodeInfo& n0 = r.cluster->state().node(0);
  CHECK(n0.capacity.milli_cpu == 128000.0);
  CHECK(n0.allocatable.milli_cpu == 127610.0);
  CHECK(n0.allocatable.memory == 521216.0 * kMiB);
  // The Neuron device plugin's three names, counted independently; maxPods 247.
  CHECK(n0.allocatable.get(policy::rn::kNeuron) == 16000.0);
  CHECK(n0.allocatable.get(policy::rn::kNeuronDevice) == 16000.0);
  CHECK(n0.allocatable.get(policy::rn::kNeuronCore) == 32000.0);
  CHECK(n0.allocatable.get(policy::rn::kPods) == 247.0);
  CHECK(n0.allocatable.max_task_num == 247);
  CHECK(n0.daemonset_used.milli_cpu == 160.0);
  CHECK(n0.daemonset_used.memory == 20.0 * kMiB);
  // At the end every pod is gone: what is used is the DaemonSets' share.
  // (pods that left leave their resources present at 0, as Volcano's maps do)
  CHECK(n0.used.equal(n0.daemonset_used));
  CHECK(n0.daemonset_used.equal(n0.used));
  // 'torchx-whole' asks 127900m: above 127610 - 160 = 127450m on both nodes.
  const MemRecorder& rec = r.rec;
  check_refused(rec, 0);
  CHECK(rec.final_of(0).reason ==
        kRefusedUnplaceable + "no node can hold one pod of this job (requests {cpu 127.9, memory 487.328Gi, pods 1, aws.amazon.com/neurondevice 16, "
        "vpc.amazonaws.com/efa 8}; too little cpu on 2 node(s)); a trn1.32xlarge node leaves pods {cpu 127.45, memory 508.98Gi, pods 243, "
        "aws.amazon.com/neuron 16, aws.amazon.com/neurondevice 16, aws.amazon.com/neuroncore 32, vpc.amazonaws.com/efa 8} "
        "(capacity {cpu 128, memory 512Gi, pods 247, aws.amazon.com/neuron 16, aws.amazon.com/neurondevice 16, "
        "aws.amazon.com/neuroncore 32, vpc.amazonaws.com/efa 8} less the kubelet's reservation and the DaemonSets' pods)");
  // 'fits' asks 127000m per pod, 2 pods: runs at once.
  check_lifecycle(rec, 1, 2, 0, 3600, {"trn1-0", "trn1-1"});
}

TEST_CASE("EKS AMI kube-reserved by hand, and which DaemonSets a node group runs") {
  // getCPUMillicoresToReserve: 1 vCPU 60m; 2: 70m; 4: 80m; 8: 80 + 4000 x 25 / 10000 = 90m;
  // 128: 80 + 124000 x 25 / 10000 = 390m. Memory 11 x maxPods + 255 MiB.
  CHECK(models::eks_ami_kube_reserved(1, 4).cpu_millicores == 60);
  CHECK(models::eks_ami_kube_reserved(2, 4).cpu_millicores == 70);
  CHECK(models::eks_ami_kube_reserved(4, 4).cpu_millicores == 80);
  CHECK(models::eks_ami_kube_reserved(8, 58).cpu_millicores == 90);
  CHECK(models::eks_ami_kube_reserved(8, 58).memory_mib == 11 * 58 + 255);
  CHECK(models::eks_ami_kube_reserved(128, 247).cpu_millicores == 390);
  CHECK(models::eks_ami_kube_reserved(128, 247).memory_mib == 2972);

  models::TrainingScenario sc;
  models::InstanceType it;
  it.name = "trn1.32xlarge";
  it.vcpu = 128;
  it.memory_gib = 512;
  it.trainium_chips = 16;
  it.neuroncores_per_chip = 2;
  it.efa_interfaces = 8;
  sc.catalog.types.push_back(it);
  models::NodeGroupSpec tainted;
  tainted.name = "neuron";
  tainted.instance_types = {"trn1.32xlarge"};
  tainted.taints = {{"aws.amazon.com/neuron", "true", policy::TaintEffect::NoSchedule}};
  tainted.kubelet_reserved = policy::Resource::make(0.39, 0);
  models::NodeGroupSpec plain = tainted;
  plain.name = "plain";
  plain.taints.clear();
  auto ds = [](std::string name, double cpu) {
    models::DaemonSetSpec d;
    d.name = std::move(name);
    d.requests = policy::Resource::make(cpu, 0);
    return d;
  };
  sc.daemonsets.push_back(ds("everywhere", 0.1));        // no toleration: not on tainted nodes
  models::DaemonSetSpec tol = ds("tolerates", 0.01);     // tolerates every taint
  policy::Toleration all;
  all.op = policy::Toleration::Op::Exists;
  tol.tolerations = {all};
  sc.daemonsets.push_back(tol);
  models::DaemonSetSpec picky = ds("plain-only", 0.001);  // nodeSelector on the EKS node group label
  picky.node_selector = {{"eks.amazonaws.com/nodegroup", "plain"}};
  sc.daemonsets.push_back(picky);
  const models::NodeResources rt = models::node_resources(sc, tainted);
  const models::NodeResources rp = models::node_resources(sc, plain);
  CHECK(rt.capacity.milli_cpu == 128000.0);
  CHECK(rt.allocatable.milli_cpu == doctest::Approx(127610.0));
  CHECK(rt.daemonsets.milli_cpu == doctest::Approx(10.0));        // "tolerates" only
  CHECK(rt.daemonsets.get(policy::rn::kPods) == 1);                // one DaemonSet pod
  CHECK(rp.daemonsets.milli_cpu == doctest::Approx(111.0));       // all three
  CHECK(rp.daemonsets.get(policy::rn::kPods) == 3);
  CHECK(rp.pod_room().milli_cpu == doctest::Approx(127610.0 - 111.0));
}

// ================================================================== starting from a live state

namespace {

nlohmann::json initial_state_doc() {
  std::ifstream in(scenario_path("initial-state.json"));
  return nlohmann::json::parse(in);
}

std::string initial_state_error(const nlohmann::json& doc) {
  io::LoadOptions o;
  o.document = &doc;
  try {
    io::load_scenario(scenario_path("initial-state.json"), o);
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("initial-state: a job running since 600 s before t0 is allocated in its queue, reclaimed from, and resumes") {
  // tests/scenarios/initial-state.json: evict-restart's cluster (2 x trn1.32xlarge, queues a and
  // b of weight 1, whole-node pods, bind 50 ms, start-up 2 s, grace 30 s, overcommit 2.0,
  // TorchX max_retries 3, checkpoint every 5 min). warm (queue a, 2 pods, 1 h) started training
  // 600 s before t0 on trn1-0 and trn1-1: at t0 its PodGroup is Running and its pods Running on
  // those nodes, 3600 - 600 = 3000 s to go. hi (queue b, 1 pod, 10 min) is submitted at t0.
  // Session 0 s: overcommit admits hi (used 2 nodes + 1 <= 2 x 2); its pod is created.
  // Session 1 s: no room; reclaim: queue a holds 2 nodes where it deserves 1 (proportion sees
  // warm allocated) -> warm's pod on trn1-0 is evicted, hi pipelined. RestartJob (retry 1 of 3):
  // warm trained 600 + 1 = 601 s, its last checkpoint at 600 s: 1 s lost; its pod on trn1-1 is
  // killed. 31 s: both pods gone; the session admits warm (used 0 + hi's 1 + 2 <= 4) and binds
  // hi: Bound 31.05, Running 33.05, ends 633.05 s. Queue a deserves one node while hi runs, so
  // warm's gang is bound at 634 s: Bound 634.05, Running 636.05, 3000 s left: 3636.05 s.
  const std::int64_t ms = kMs;
  auto check_reclaimed = [&](const Run& r) {
    REQUIRE(r.invariant_violation.empty());
    CHECK(events_of(r.rec, 0) == std::vector<std::string>{
                                     "0 Created", "0 Created", "0 Bound", "0 Running", "0 Bound", "0 Running",
                                     std::to_string(1 * kS) + " Evicted", std::to_string(1 * kS) + " Killed",
                                     std::to_string(31 * kS) + " Deleted", std::to_string(31 * kS) + " Deleted",
                                     std::to_string(31 * kS) + " Created", std::to_string(31 * kS) + " Created",
                                     std::to_string(634050 * ms) + " Bound", std::to_string(634050 * ms) + " Bound",
                                     std::to_string(636050 * ms) + " Running", std::to_string(636050 * ms) + " Running",
                                     std::to_string(3636050 * ms) + " Succeeded", std::to_string(3636050 * ms) + " Succeeded"});
    CHECK(r.rec.pods_of(0, "Bound").at(0).node == "trn1-0");
    CHECK(r.rec.pods_of(0, "Bound").at(1).node == "trn1-1");
    CHECK(r.rec.pods_of(0, "Evicted").at(0).node == "trn1-0");
    const auto& warm = r.rec.final_of(0);
    CHECK(warm.phase == "Completed");
    CHECK(warm.start.ns() == -600 * kS);      // when its training started
    CHECK(warm.scheduled.ns() == -600 * kS);  // what is known of its placement
    CHECK(warm.end.ns() == 3636050 * ms);
    CHECK(warm.restarts == 1);
    CHECK(warm.lost_training_s == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(r.rec.submitted.at(0).submit.ns() == -600 * kS);
    const auto& hi = r.rec.final_of(1);
    CHECK(hi.inqueue.ns() == 0);
    CHECK(hi.scheduled.ns() == 31050 * ms);
    CHECK(hi.end.ns() == 633050 * ms);
    CHECK(r.cluster->stats().evictions == 1);
  };
  SUBCASE("its nodes named") {
    Run r(scenario_path("initial-state.json"));
    check_reclaimed(r);
  }
  SUBCASE("placed first-fit at t0 (no nodes given): trn1-0, trn1-1, the same run") {
    nlohmann::json doc = initial_state_doc();
    doc["initial_state"]["running"][0].erase("nodes");
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("initial-state.json"), o);
    check_reclaimed(r);
  }
  SUBCASE("alone: it finishes at t0 + 3000 s") {
    nlohmann::json doc = initial_state_doc();
    doc["workload"]["jobs"].erase(1);
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("initial-state.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).end.ns() == 3000 * kS);
    CHECK(r.rec.final_of(0).restarts == 0);
  }
  SUBCASE("given what remains (20 min): it finishes at t0 + 1200 s") {
    nlohmann::json doc = initial_state_doc();
    doc["workload"]["jobs"].erase(1);
    doc["initial_state"]["running"][0]["remaining"] = "20m";
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("initial-state.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).end.ns() == 1200 * kS);
  }
  SUBCASE("a pending gang of the same queue waits for it (no reclaim within a queue, equal priority: no preemption)") {
    // gang (queue a, 2 pods, 10 min) at t0: overcommit would admit it (used 2 nodes + 2 <= 2 x 2),
    // but proportion's enqueue check does not: queue a's allocated (warm's 2 nodes, which it
    // sees) + its 2 exceed the queue's real capability, the cluster's 2 nodes. warm ends at
    // 3000 s; the 3000 s session admits gang and creates its pods, the 3001 s session binds
    // them: Bound 3001.05, Running 3003.05, ends 3603.05 s.
    nlohmann::json doc = initial_state_doc();
    doc["workload"]["jobs"][1]["name"] = "gang";
    doc["workload"]["jobs"][1]["queue"] = "a";
    doc["workload"]["jobs"][1]["nnodes"] = 2;
    io::LoadOptions o;
    o.document = &doc;
    Run r(scenario_path("initial-state.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).end.ns() == 3000 * kS);
    const auto& gang = r.rec.final_of(1);
    CHECK(gang.inqueue.ns() == 3000 * kS);
    CHECK(gang.scheduled.ns() == 3001050 * ms);
    CHECK(gang.end.ns() == 3603050 * ms);
    const auto d = r.rec.decisions_of(1);
    REQUIRE_FALSE(d.empty());
    CHECK(d[0].t == 0);
    CHECK(d[0].plugin == "proportion");
    CHECK(r.cluster->stats().evictions == 0);
  }
}

TEST_CASE("initial-state: bad input names the JSON path") {
  const std::string p = scenario_path("initial-state.json");
  nlohmann::json doc = initial_state_doc();
  SUBCASE("an unknown node") {
    doc["initial_state"]["running"][0]["nodes"][1] = "trn1-7";
    CHECK(initial_state_error(doc) == p + ": /initial_state/running/0/nodes/1: no node 'trn1-7' at t0 (nodes are <node group>-<index>: trn1-0, trn1-1)");
  }
  SUBCASE("a node over its capacity") {
    doc["workload"]["jobs"][1]["submit"] = "0s";
    doc["initial_state"]["running"].push_back({{"job", "hi"}, {"started", "-60s"}, {"nodes", {"trn1-1"}}});
    CHECK(initial_state_error(doc).find(p + ": /initial_state/running/1/nodes/0: node trn1-1 has {") == 0);
  }
  SUBCASE("no room for a first-fit job") {
    doc["initial_state"]["running"].push_back({{"job", "hi"}, {"started", "-60s"}});
    CHECK(initial_state_error(doc).find(p + ": /initial_state/running/1: no node at t0 has room for pod 0 of job 'hi'") == 0);
  }
  SUBCASE("a start in the future") {
    doc["initial_state"]["running"][0]["started"] = "10s";
    CHECK(initial_state_error(doc).find(p + ": /initial_state/running/0/started: is in the future") == 0);
  }
  SUBCASE("a job that has finished already") {
    doc["initial_state"]["running"][0]["started"] = "-2h";
    CHECK(initial_state_error(doc).find(p + ": /initial_state/running/0/started: job 'warm' started 7200 s before t0 and trains for 3600 s") == 0);
  }
  SUBCASE("a job that is not in the workload, or submitted later") {
    doc["initial_state"]["running"][0]["job"] = "cold";
    CHECK(initial_state_error(doc) == p + ": /initial_state/running/0/job: no workload job is named 'cold'");
    doc["initial_state"]["running"][0]["job"] = "hi";
    doc["initial_state"]["running"][0]["nodes"] = {"trn1-0"};
    doc["workload"]["jobs"][1]["submit"] = "5s";
    CHECK(initial_state_error(doc).find(p + ": /initial_state/running/0/job: job 'hi' is submitted at 5 s") == 0);
  }
  SUBCASE("as many nodes as pods") {
    doc["initial_state"]["running"][0]["nodes"] = {"trn1-0"};
    CHECK(initial_state_error(doc) == p + ": /initial_state/running/0/nodes: 1 node(s) for the job's 2 pod(s)");
  }
}

TEST_CASE("a mixed fleet: each job's pods land only where their resources exist (scenarios/eks-mixed-fleet.json)") {
  // A CPU system group (m5.xlarge: no extended resource), a GPU group (p4d.24xlarge: 8
  // nvidia.com/gpu) and a Trainium group (trn1.32xlarge: 16 aws.amazon.com/neurondevice), all
  // from the shipped catalog. A pod requesting Neuron devices fits only a trn1 node, one
  // requesting GPUs only a p4d node. The gpu and trn1 groups are tainted NoSchedule
  // (nvidia.com/gpu, aws.amazon.com/neuron) and only the accelerator jobs tolerate the taints,
  // so a CPU-only pod fits only a system node (m5.xlarge: 4 vCPU, room for two 2-core pods).
  Run r(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-mixed-fleet.json");
  REQUIRE(r.invariant_violation.empty());
  const MemRecorder& rec = r.rec;
  REQUIRE(rec.submitted.size() == 11);
  int trn = 0, gpu = 0, cpu = 0;
  for (const Pod& p : rec.pods) {
    if (p.node.empty()) continue;
    const std::string& job = rec.submitted[p.job].name;
    CAPTURE(job);
    CAPTURE(p.node);
    if (job.rfind("trn-", 0) == 0) {
      CHECK(p.node.rfind("trn1-", 0) == 0);
      ++trn;
    } else if (job.rfind("gpu-", 0) == 0) {
      CHECK(p.node.rfind("gpu-", 0) == 0);
      ++gpu;
    } else {
      CHECK(p.node.rfind("system-", 0) == 0);
      ++cpu;
    }
  }
  CHECK(trn > 0);
  CHECK(gpu > 0);
  CHECK(cpu > 0);
  for (std::size_t j = 0; j < rec.submitted.size(); ++j) CHECK(rec.final_of(j).phase == "Completed");
}

TEST_CASE("bind failures (lifecycle.bind_failure_probability): refused pods are placed again and every gang still starts") {
  // tiny-gang.json: jobs a, b (4 pods) and c (2 pods). With half of all binds refused, each
  // refused pod is Pending again after its session and bound at a later one; a gang runs only
  // once all its pods are bound, so every job still completes, with as many Bound pods as it
  // has pods and one BindFailed event per refusal.
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    io::LoadOptions o;
    o.overrides = {{"seed", seed}, {"lifecycle", {{"bind_failure_probability", 0.5}}}};
    Run r(scenario_path("tiny-gang.json"), o);
    REQUIRE(r.invariant_violation.empty());
    const auto& st = r.cluster->stats();
    CHECK(st.bind_failures > 0);
    std::size_t failed_events = 0;
    for (std::uint32_t j = 0; j < r.rec.submitted.size(); ++j) {
      CHECK(r.rec.final_of(j).phase == "Completed");
      CHECK(static_cast<int>(r.rec.pods_of(j, "Bound").size()) == r.rec.submitted[j].nnodes);
      failed_events += r.rec.pods_of(j, "BindFailed").size();
    }
    CHECK(failed_events == st.bind_failures);
    CHECK(st.binds == 10);  // 4 + 4 + 2 pods bound once each
  }
  // Without the key, no stream is drawn and nothing fails.
  Run plain(scenario_path("tiny-gang.json"));
  CHECK(plain.cluster->stats().bind_failures == 0);
}

// ---- jobs of independent pods (TrainingJobSpec::tasks), spec.minAvailable below the pods ----

namespace {

nlohmann::json job_tasks_doc() {
  std::ifstream in(scenario_path("job-tasks.json"));
  return nlohmann::json::parse(in);
}

/// "t_ns replica event" for each of job `job`'s pod events, in order of time, then of replica
/// (the order of a session's binds among pods of equal index and creation follows their UIDs).
std::vector<std::string> pod_rows(const MemRecorder& rec, std::uint32_t job) {
  std::vector<std::tuple<std::int64_t, int, std::size_t, std::string>> rows;
  for (const auto& p : rec.pods)
    if (p.job == job) rows.emplace_back(p.t, p.pod, rows.size(), std::string(p.event));
  std::sort(rows.begin(), rows.end());
  std::vector<std::string> v;
  for (const auto& [t, pod, seq, event] : rows) v.push_back(std::to_string(t) + " " + std::to_string(pod) + " " + event);
  return v;
}

}  // namespace

TEST_CASE("job-tasks: a launcher task's end completes the job (TaskCompleted -> CompleteJob) and kills the workers") {
  // tests/scenarios/job-tasks.json: 4 trn1.32xlarge, schedule period 1 s, bind 50 ms, pod
  // start-up 2 s, the default grace period 30 s. Job mpi: task master (1 pod, 10 min, its own
  // policy TaskCompleted -> CompleteJob) and task worker (3 pods, 30 min), each pod a whole
  // node, minAvailable 4 (the tasks' replicas). 0 s: Inqueue, 4 pods created; the 1 s session
  // binds all four (bound 1.05 s), Running at 3.05 s. Master Succeeds at 3.05 + 600 =
  // 603.05 s: task master completed -> CompleteJob: KillJob(PodRetainPhaseSoft) deletes the
  // three workers (Killed at 603.05 s), gone at 633.05 s, when the Completing Job is Completed.
  Run r(scenario_path("job-tasks.json"));
  REQUIRE(r.invariant_violation.empty());
  const std::string b = std::to_string(1050 * kMs), run = std::to_string(3050 * kMs), done = std::to_string(603050 * kMs),
                    gone = std::to_string(633050 * kMs);
  CHECK(pod_rows(r.rec, 0) == std::vector<std::string>{
                                  "0 0 Created", "0 1 Created", "0 2 Created", "0 3 Created",
                                  b + " 0 Bound", b + " 1 Bound", b + " 2 Bound", b + " 3 Bound",
                                  run + " 0 Running", run + " 1 Running", run + " 2 Running", run + " 3 Running",
                                  done + " 0 Succeeded", done + " 1 Killed", done + " 2 Killed", done + " 3 Killed",
                                  gone + " 1 Deleted", gone + " 2 Deleted", gone + " 3 Deleted"});
  const auto& f = r.rec.final_of(0);
  CHECK(f.phase == "Completed");
  CHECK(f.end.ns() == 633050 * kMs);
  CHECK(f.start.ns() == 3050 * kMs);
  CHECK(f.scheduled.ns() == 1050 * kMs);
  CHECK_MESSAGE(f.reason.find("TaskCompleted -> CompleteJob") != std::string::npos, f.reason);
  std::vector<Dec> ctl;
  for (const auto& d : r.rec.decisions_of(0))
    if (d.plugin == "job-controller") ctl.push_back(d);
  REQUIRE(ctl.size() == 1);
  CHECK(ctl[0].t == 603050 * kMs);
  CHECK(ctl[0].code == "Completing");
  CHECK_MESSAGE(ctl[0].reason.find("task master completed") != std::string::npos, ctl[0].reason);
  CHECK_MESSAGE(ctl[0].reason.find("(the task's policy)") != std::string::npos, ctl[0].reason);

  SUBCASE("without the policy the job is Completed when its last worker Succeeds") {
    // The master's TaskCompleted runs SyncJob (no policy); the workers Succeed at 3.05 + 1800 =
    // 1803.05 s: every pod Succeeded -> Completed (running.go SyncJob).
    nlohmann::json doc = job_tasks_doc();
    doc["workload"]["jobs"][0]["tasks"][0].erase("policies");
    io::LoadOptions o;
    o.document = &doc;
    Run r2(scenario_path("job-tasks.json"), o);
    REQUIRE(r2.invariant_violation.empty());
    const std::string end = std::to_string(1803050 * kMs);
    const auto rows = pod_rows(r2.rec, 0);
    REQUIRE(rows.size() == 16);
    CHECK(rows[12] == done + " 0 Succeeded");
    CHECK(rows[13] == end + " 1 Succeeded");
    CHECK(rows[15] == end + " 3 Succeeded");
    const auto& f2 = r2.rec.final_of(0);
    CHECK(f2.phase == "Completed");
    CHECK(f2.end.ns() == 1803050 * kMs);
    CHECK_MESSAGE(f2.reason.find("every pod Succeeded") != std::string::npos, f2.reason);
  }

  SUBCASE("TaskCompleted -> CompleteJob on the last task to end: nothing left to kill, Completed at its end") {
    // TaskCompleted -> CompleteJob on the worker task instead, none on master; worker
    // minAvailable 3 of 3. Master Succeeds at 603.05 s (SyncJob); the workers at 1803.05 s:
    // task worker completed -> CompleteJob: nothing left alive to kill -> Completed at 1803.05 s.
    nlohmann::json doc = job_tasks_doc();
    auto& t = doc["workload"]["jobs"][0]["tasks"];
    t[1]["policies"] = t[0]["policies"];
    t[0].erase("policies");
    t[1]["min_available"] = 3;
    io::LoadOptions o;
    o.document = &doc;
    Run r3(scenario_path("job-tasks.json"), o);
    REQUIRE(r3.invariant_violation.empty());
    const auto& f3 = r3.rec.final_of(0);
    CHECK(f3.phase == "Completed");
    CHECK(f3.end.ns() == 1803050 * kMs);
  }
}

TEST_CASE("job-tasks: minAvailable 2 of 4 pods on room for 2 starts two pods, the others as room frees") {
  // job-tasks.json with 2 nodes and one job w: task worker, 4 whole-node pods of 1 h,
  // min_available 2. PodGroup minMember 2, minResources two pods': enqueue admits it at 0 s
  // (the 2 nodes are idle), its 4 pods are created; the 1 s session's gang is ready with 2
  // allocated pods: 2 bound (1.05 s), Running 3.05 s (pending.go: Running 2 >= minAvailable 2:
  // the Job is Running); the other 2 stay Pending (running.go: pending 2 is not above replicas 4
  // - minAvailable 2). The first two Succeed at 3603.05 s; the next session (3604 s) places the
  // other two (the job is ready: 2 Succeeded >= minAvailable), bound 3604.05 s, Running
  // 3606.05 s, Succeeded 7206.05 s: every pod Succeeded -> Completed at 7206.05 s.
  nlohmann::json doc = job_tasks_doc();
  doc["cluster"]["node_groups"][0]["desired_capacity"] = 2;
  auto& j = doc["workload"]["jobs"][0];
  j["name"] = "w";
  j["min_available"] = 2;
  j["tasks"] = nlohmann::json::array({{{"name", "worker"}, {"replicas", 4}, {"duration", "1h"}}});
  io::LoadOptions o;
  o.document = &doc;
  Run r(scenario_path("job-tasks.json"), o);
  REQUIRE(r.invariant_violation.empty());
  auto at = [](std::int64_t ms) { return std::to_string(ms * kMs); };
  CHECK(pod_rows(r.rec, 0) == std::vector<std::string>{
                                  "0 0 Created", "0 1 Created", "0 2 Created", "0 3 Created",
                                  at(1050) + " 0 Bound", at(1050) + " 1 Bound",
                                  at(3050) + " 0 Running", at(3050) + " 1 Running",
                                  at(3603050) + " 0 Succeeded", at(3603050) + " 1 Succeeded",
                                  at(3604050) + " 2 Bound", at(3604050) + " 3 Bound",
                                  at(3606050) + " 2 Running", at(3606050) + " 3 Running",
                                  at(7206050) + " 2 Succeeded", at(7206050) + " 3 Succeeded"});
  const auto& f = r.rec.final_of(0);
  CHECK(f.phase == "Completed");
  CHECK(f.scheduled.ns() == 1050 * kMs);
  CHECK(f.start.ns() == 3050 * kMs);
  CHECK(f.end.ns() == 7206050 * kMs);
  // Not "never placeable" (it ran): room for 2 pods at once is its minAvailable.
  CHECK(r.cluster->never_placeable().empty());
}

TEST_CASE("job-tasks: minAvailable 0 (the job's and its task's) runs its pods as room allows") {
  // The job of the test above with spec.minAvailable 0 and the task's minAvailable 0: the
  // webhook's default sums the tasks' 0 (mutate_job.go patchDefaultMinAvailable), so the
  // PodGroup has minMember 0 and empty minResources. The 0 s session's enqueue admits it and
  // its jobStatus (framework/session.go) finds allocated 0 >= minMember 0 with Succeeded 0 ==
  // allocated: Completed. That phase change is a request for the Job
  // (job_controller_handler.go updatePodGroup: any phase change), so SyncJob creates the 4
  // pods at 0 s (the PodGroup is not Pending). The 1 s session places the two that fit (gang:
  // ready with any count), bound 1.05 s (the job's placement: its first pod), Running 3.05 s,
  // Succeeded 3603.05 s; the 3604 s session places the other two, Succeeded 7206.05 s: every
  // pod Succeeded, 4 >= minAvailable 0 and the task's 4 >= 0 (running.go): Completed. The
  // timeline is the one of minAvailable 2.
  nlohmann::json doc = job_tasks_doc();
  doc["cluster"]["node_groups"][0]["desired_capacity"] = 2;
  auto& j = doc["workload"]["jobs"][0];
  j["name"] = "w";
  j["min_available"] = 0;
  j["tasks"] = nlohmann::json::array({{{"name", "worker"}, {"replicas", 4}, {"duration", "1h"}, {"min_available", 0}}});
  io::LoadOptions o;
  o.document = &doc;
  Run r(scenario_path("job-tasks.json"), o);
  REQUIRE(r.invariant_violation.empty());
  auto at = [](std::int64_t ms) { return std::to_string(ms * kMs); };
  CHECK(pod_rows(r.rec, 0) == std::vector<std::string>{
                                  "0 0 Created", "0 1 Created", "0 2 Created", "0 3 Created",
                                  at(1050) + " 0 Bound", at(1050) + " 1 Bound",
                                  at(3050) + " 0 Running", at(3050) + " 1 Running",
                                  at(3603050) + " 0 Succeeded", at(3603050) + " 1 Succeeded",
                                  at(3604050) + " 2 Bound", at(3604050) + " 3 Bound",
                                  at(3606050) + " 2 Running", at(3606050) + " 3 Running",
                                  at(7206050) + " 2 Succeeded", at(7206050) + " 3 Succeeded"});
  const auto& f = r.rec.final_of(0);
  CHECK(f.phase == "Completed");
  CHECK(f.scheduled.ns() == 1050 * kMs);
  CHECK(f.end.ns() == 7206050 * kMs);
  // Not "never placeable": the cluster holds 2 of its pods at once, and it needs 1 at least
  // (minAvailable 2 in the test above: 2).
  CHECK(r.cluster->never_placeable().empty());
}

// ---- a node group's NoExecute taint tolerated for tolerationSeconds (the taint manager) ----

namespace {

/// job-tasks.json on one node tainted dedicated=train:NoExecute (its node group's taint).
nlohmann::json tainted_node_doc() {
  nlohmann::json doc = job_tasks_doc();
  auto& g = doc["cluster"]["node_groups"][0];
  g["desired_capacity"] = 1;
  g["taints"] = nlohmann::json::array({{{"key", "dedicated"}, {"value", "train"}, {"effect", "NoExecute"}}});
  return doc;
}

nlohmann::json train_toleration(const nlohmann::json& seconds) {
  nlohmann::json t = {{"key", "dedicated"}, {"operator", "Equal"}, {"value", "train"}, {"effect", "NoExecute"}};
  if (!seconds.is_null()) t["tolerationSeconds"] = seconds;
  return nlohmann::json::array({t});
}

}  // namespace

TEST_CASE("node-group taint: a pod tolerating its NoExecute taint for 600 s is deleted 600 s after its bind (PodEvicted -> AbortJob)") {
  // tests/scenarios/job-tasks.json reduced to one trn1.32xlarge whose node group is tainted
  // dedicated=train:NoExecute; job w: one task of one whole-node pod of 1 h, tolerating the taint
  // for 600 s; the job's policy PodEvicted -> AbortJob. 0 s: Inqueue, pod created; the 1 s
  // session binds it (TaintToleration: tolerated). The taint manager sees its spec.nodeName at
  // the bind (taint_eviction.go PodUpdated -> handlePodUpdate -> processPodOnNode, now = 1 s):
  // the node's NoExecute taints are [dedicated=train]; the first toleration matching it is the
  // pod's (the DefaultTolerationSeconds ones, not-ready and unreachable, match other keys):
  // getMinTolerationTime 600 s: deletion at 1 + 600 = 601 s. Bound 1.05 s, Running 3.05 s. At
  // 601 s the pod is deleted (TaintEvicted, Terminating): Volcano's updatePod -> deletePod ->
  // PodEvicted -> AbortJob: KillJob(PodRetainPhaseSoft), Aborting; the kubelet stops the pod
  // in its 30 s grace period: gone at 631 s, when the Job is Aborted.
  nlohmann::json doc = tainted_node_doc();
  auto& j = doc["workload"]["jobs"][0];
  j["name"] = "w";
  j["tasks"] = nlohmann::json::array({{{"name", "worker"}, {"replicas", 1}, {"duration", "1h"}}});
  j["tolerations"] = train_toleration(600);
  j["policies"] = nlohmann::json::array({{{"event", "PodEvicted"}, {"action", "AbortJob"}}});
  io::LoadOptions o;
  o.document = &doc;

  SUBCASE("600 s") {
    Run r(scenario_path("job-tasks.json"), o);
    REQUIRE(r.invariant_violation.empty());
    auto at = [](std::int64_t ms) { return std::to_string(ms * kMs); };
    CHECK(pod_rows(r.rec, 0) == std::vector<std::string>{"0 0 Created", at(1050) + " 0 Bound", at(3050) + " 0 Running",
                                                         at(601000) + " 0 TaintEvicted", at(631000) + " 0 Deleted"});
    const auto& f = r.rec.final_of(0);
    CHECK(f.phase == "Aborted");
    CHECK(f.end.ns() == 631000 * kMs);
    bool said = false;
    for (const auto& d : r.rec.decisions_of(0))
      if (d.plugin == "job-controller" && d.t == 601000 * kMs)
        said = d.reason.find("pod w-worker-0 evicted by the taint manager: node trn1-0's dedicated=train:NoExecute tolerated for "
                             "600 s (tolerationSeconds) since the pod was bound there") != std::string::npos &&
               d.reason.find("PodEvicted -> AbortJob") != std::string::npos;
    CHECK(said);
    CHECK(r.cluster->stats().node_taint_evictions == 1);
    CHECK(r.cluster->stats().taint_evictions == 0);  // that count is the failed nodes' pods
    std::ostringstream os;
    io::print_summary(os, io::summarize(r.sc.name, r.sc.seed, r.sc.training, *r.cluster, r.cluster->last_event().seconds()));
    CHECK_MESSAGE(os.str().find("Taint evictions: 1 pod(s) deleted by the taint manager when their tolerationSeconds of their "
                                "node group's NoExecute taint ran out") != std::string::npos,
                  os.str());
  }
  SUBCASE("a toleration without tolerationSeconds: never deleted") {
    // getMinTolerationTime -1: for ever. The pod Succeeds at 3.05 + 3600 = 3603.05 s: Completed.
    j["tolerations"] = train_toleration(nullptr);
    Run r(scenario_path("job-tasks.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).phase == "Completed");
    CHECK(r.rec.final_of(0).end.ns() == 3603050 * kMs);
    CHECK(r.cluster->stats().node_taint_evictions == 0);
  }
  SUBCASE("tolerationSeconds 0: deleted at its bind") {
    // getMinTolerationTime: a tolerationSeconds <= 0 is 0: deletion at the bind, 1 s (a pod
    // still Binding, its kubelet not yet told); gone after the grace period, 31 s: Aborted.
    j["tolerations"] = train_toleration(0);
    Run r(scenario_path("job-tasks.json"), o);
    REQUIRE(r.invariant_violation.empty());
    auto at = [](std::int64_t ms) { return std::to_string(ms * kMs); };
    CHECK(pod_rows(r.rec, 0) == std::vector<std::string>{"0 0 Created", at(1000) + " 0 TaintEvicted", at(31000) + " 0 Deleted"});
    CHECK(r.rec.final_of(0).phase == "Aborted");
  }
  SUBCASE("no toleration: never placed") {
    // The TaintToleration filter (predicates) keeps the pod off the only node: it waits for ever.
    j.erase("tolerations");
    Run r(scenario_path("job-tasks.json"), o);
    REQUIRE(r.invariant_violation.empty());
    CHECK(r.rec.final_of(0).phase == "Pending");
    CHECK(r.rec.pods_of(0, "Bound").empty());
    REQUIRE(r.cluster->never_placeable().count(0) == 1);
    CHECK_MESSAGE(r.cluster->never_placeable().at(0).find("untolerated taint") != std::string::npos, r.cluster->never_placeable().at(0));
  }
}

TEST_CASE("never placeable: jobs of one pod shape with different tolerations get each their own reason") {
  // The tainted node of the tests above (dedicated=train:NoExecute), a static fleet: job b
  // tolerates the taint for ever; a and c, submitted after it with the same pod, do not. (b
  // goes first: a job that can never be placed still holds its queue's enqueue budget,
  // volcano#1295, and would keep b Pending.) The node walk behind the reason is kept per pod
  // shape and constraints (TrainingState::node_walks): a must not get b's walk (it would be
  // placeable), and c gets a's reason word for word.
  nlohmann::json doc = tainted_node_doc();
  const nlohmann::json pod = doc["workload"]["jobs"][0]["pod"];
  auto job = [&](const char* name, const char* submit) {
    return nlohmann::json{{"name", name}, {"queue", "default"}, {"submit", submit}, {"pod", pod}, {"nnodes", 1}, {"duration", "1h"}};
  };
  doc["workload"]["jobs"] = nlohmann::json::array({job("b", "0s"), job("a", "10s"), job("c", "20s")});
  doc["workload"]["jobs"][0]["tolerations"] = train_toleration(nullptr);
  io::LoadOptions o;
  o.document = &doc;
  Run r(scenario_path("job-tasks.json"), o);
  REQUIRE(r.invariant_violation.empty());
  const auto& never = r.cluster->never_placeable();
  CHECK(never.count(0) == 0);
  REQUIRE(never.count(1) == 1);
  REQUIRE(never.count(2) == 1);
  CHECK_MESSAGE(never.at(1).find("untolerated taint") != std::string::npos, never.at(1));
  CHECK(never.at(2) == never.at(1));
  CHECK(r.rec.final_of(0).phase == "Completed");
}

TEST_CASE("node-group taint: a torchrun gang tolerating it for 600 s is evicted 600 s after each bind until maxRetry (PodEvicted -> RestartJob)") {
  // The tainted node of the test above; job t: a torchrun gang of one whole-node pod training
  // 1 h, tolerating the taint for 600 s, TorchX's PodEvicted -> RestartJob with maxRetry 2.
  // Each attempt's pod is deleted by the taint manager 600 s after the bind that placed it
  // (bind 50 ms before Bound): the first PodEvicted -> RestartJob, retry 1 (restarting.go: 1 <
  // maxRetry 2: Pending again); the second, retry 2 >= maxRetry: Failed once the pod is gone,
  // 30 s (the grace period) after it was deleted. Training (1 h) never completes.
  nlohmann::json doc = tainted_node_doc();
  doc["workload"]["jobs"][0] = {{"name", "t"},
                                {"queue", "default"},
                                {"submit", "0s"},
                                {"pod", doc["workload"]["jobs"][0]["pod"]},
                                {"nnodes", 1},
                                {"duration", "1h"},
                                {"tolerations", train_toleration(600)},
                                {"max_retry", 2},
                                {"task_policies", nlohmann::json::array({{{"event", "PodEvicted"}, {"action", "RestartJob"}}})}};
  io::LoadOptions o;
  o.document = &doc;
  Run r(scenario_path("job-tasks.json"), o);
  REQUIRE(r.invariant_violation.empty());
  const auto bound = r.rec.pods_of(0, "Bound");
  const auto evicted = r.rec.pods_of(0, "TaintEvicted");
  REQUIRE(bound.size() == 2);
  REQUIRE(evicted.size() == 2);
  CHECK(bound[0].t == 1050 * kMs);
  for (std::size_t i = 0; i < 2; ++i) CHECK(evicted[i].t == bound[i].t - 50 * kMs + 600 * kS);
  const auto& f = r.rec.final_of(0);
  CHECK(f.phase == "Failed");
  CHECK(f.end.ns() == evicted[1].t + 30 * kS);
  CHECK(r.cluster->stats().node_taint_evictions == 2);
}
