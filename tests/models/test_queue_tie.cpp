// Cross-queue starvation decided by queue-order ties (Volcano v1.12.1
// pkg/scheduler/framework/session_plugins.go QueueOrderFn: the plugins' queue orders — here the
// capacity plugin's, pkg/scheduler/plugins/capacity/capacity.go: spec.priority, then share —
// and when every one answers 0 the Queue's CreationTimestamp, then its UID), its flag in the
// summary and in explain, and its remedy (spec.priority), on tests/scenarios/queue-tie.json.
// Every expected time is derived by hand in the comments from the scenario's figures and the
// model's tick rule (a change at time t is seen by the session at the next whole second at or
// after t).
//
// The scenario: 2 trn1.32xlarge; every pod takes a whole node (127.9 CPU, 523264M, 16 devices,
// 8 EFA); four 2-node gangs (minAvailable 2) of 1 h: a1 (queue a) at 0 s, b1 (queue b) at
// 10 s, a2 and a3 (queue a) at 20 s and 30 s. Bind latency 50 ms, pod start-up 2 s. Actions
// allocate and backfill: without enqueue a job's PodGroup goes Inqueue at its first session and
// its pods are created when that session closes. capacity: a and b deserve 1 node each, no
// capability (each may allocate up to the cluster), equal spec.priority (0). No reclaim.
// Shares (capacity: allocated / deserved): a queue holding a gang has share 2, one holding
// nothing 0. The Queues are created together at t = 0 (creation 0 each), so the fallback is the
// UID — in Volcano's scheduler a queue's UID is its name (pkg/scheduler/api/queue_info.go
// NewQueueInfo: UID: QueueID(queue.Name)), compared as a Go string: "a" before "b", whatever
// the order of the list or the queues' metadata.uid.
#include "scenario_run.hpp"
#include <doctest/doctest.h>

#include <boost/random/mersenne_twister.hpp>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/runner/explain.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::int64_t kMs = 1'000'000LL;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Its jobs' scheduled_ns: the gang placed (its second pod bound).
const std::string kScenario = std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/queue-tie.json";

json queue(const std::string& name, int priority = 0) {
  json q = {{"name", name},
            {"deserved", {{"cpu", "128000m"}, {"memory", "512Gi"}, {"aws.amazon.com/neurondevice", 16}, {"vpc.amazonaws.com/efa", 8}}}};
  if (priority != 0) q["priority"] = priority;
  return q;
}

}  // namespace

namespace {
/// The scenario with queue a renamed `name` (its jobs a1, a2, a3 follow), listed first.
json rename_queue_a(const std::string& name) {
  std::ifstream in(kScenario);
  json sc = json::parse(in);
  for (json& j : sc.at("workload").at("jobs"))
    if (j.at("queue") == "a") j["queue"] = name;
  return json{{"queues", json::array({queue(name), queue("b")})}, {"workload", sc.at("workload")}};
}
}  // namespace

TEST_CASE("queue-tie: the premise, seed 7 would give the queue listed second the lower metadata.uid") {
  // The first two draws of the "apiserver.uid" stream (core/rng.hpp: mt19937_64 seeded with
  // stream_seed(seed, name)) are the uid stand-ins of the first and the second queue of the
  // list. With the queues listed b, a (below) b gets the lower one — which decides nothing:
  // the names do.
  boost::random::mt19937_64 uid(core::stream_seed(7, "apiserver.uid"));
  const std::uint64_t first = uid(), second = uid();
  CHECK(first < second);
}

TEST_CASE("queue-tie: queue a wins every tie, b1 waits for a2 and a3 and is flagged") {
  // 0 s: a1 Inqueue, pods created; 1 s: a1 placed (bound 1.05 s), Running 3.05 s, Succeeded
  // 3603.05 s. 10 s, 20 s, 30 s: b1, a2, a3 Inqueue, pods created; at 11, 21, 31 s nothing fits.
  // 3604 s: a and b hold nothing, share 0 each: capacity answers 0, the fallback compares the
  // creation times (equal), then the UIDs, the names: a first. a2 placed, bound
  // 3604.05 s; b's turn comes with a's share at 2 and b1 fits nowhere. a2 Running 3606.05 s,
  // Succeeded 7206.05 s. 7207 s: the same tie, a3 placed (bound 7207.05 s), Succeeded
  // 10809.05 s. 10810 s: b1 alone, bound 10810.05 s, Running 10812.05 s, Succeeded 14412.05 s.
  test::ScenarioRun r(kScenario);
  CHECK(r.job_ns("a1", "scheduled_ns") == 1050 * kMs);
  CHECK(r.job_ns("a2", "scheduled_ns") == 3604050 * kMs);
  CHECK(r.job_ns("a3", "scheduled_ns") == 7207050 * kMs);
  CHECK(r.job_ns("b1", "scheduled_ns") == 10810050 * kMs);
  CHECK(r.job_ns("b1", "end_ns") == 14412050 * kMs);
  // b1 waited 10810.05 - 10 = 10800.05 s > 1 x its 3600 s run, while a2 (submitted 20 s,
  // placed 3604.05 s) and a3 (30 s, 7207.05 s) of queue a were placed before it. a2 waited
  // 3584.05 s (< 3600 s); a3 waited 7177.05 s but no job of another queue submitted after it.
  const json& x = r.summary.at("cross_queue_starvation");
  CHECK(x.at("jobs") == 1);
  REQUIRE(x.at("worst").size() == 1);
  const json& w = x.at("worst")[0];
  CHECK(w.at("job") == "b1");
  CHECK(w.at("queue") == "b");
  CHECK(w.at("waited_s").get<double>() == doctest::Approx(10800.05).epsilon(1e-12));
  CHECK(w.at("run_s").get<double>() == 3600.0);
  CHECK(w.at("overtaken_by") == 2);
  CHECK(w.at("overtaken_by_queue") == json{{"a", 2}});
  // The ties measured: the sessions at 3604 s and 7207 s, decided by UID (creation times equal).
  CHECK(w.at("tie_sessions") == 2);
  CHECK(w.at("tie_winner") == "a");
  CHECK(w.at("tie_by_uid") == true);
  CHECK(x.at("tie_jobs") == 1);
  CHECK(x.at("tie_sessions") == 2);
  // Within queue a, first come first served: no same-queue starvation.
  CHECK(r.summary.at("starvation").at("jobs") == 0);
  CHECK_MESSAGE(contains(r.printed, "Cross-queue starvation: 1 job(s) waited more than 1x their run time"), r.printed);
  CHECK(contains(r.printed, "b1 (queue b) waited 3.0h for a 60.0m run; 2 later job(s) of other queues placed before it (2 of "
                            "queue a); in 2 session(s) another queue's job went first on a queue-order tie (the first: queue a)"));
  CHECK(contains(r.printed, "equal creation times"));
  CHECK(contains(r.printed, "Remedy: a higher spec.priority for queue b than for queue a"));
  const std::string why = runner::explain_job(r.db, "b1");
  CHECK_MESSAGE(contains(why, "Cross-queue starvation: it waited 3h00m00s (3.0x its 1h00m00s run)"), why);
  CHECK(contains(why, "2 of queue a (the first at"));
  CHECK_FALSE(contains(runner::explain_job(r.db, "a2"), "Cross-queue starvation"));
}

TEST_CASE("queue-tie with the queues listed the other way: the names still decide, a wins every tie") {
  // b is listed first and gets the lower metadata.uid stand-in (the premise above); Volcano
  // compares the queues' names (QueueInfo.UID), so the timeline is the one above.
  test::ScenarioRun r(kScenario, json{{"queues", json::array({queue("b"), queue("a")})}});
  CHECK(r.job_ns("a2", "scheduled_ns") == 3604050 * kMs);
  CHECK(r.job_ns("a3", "scheduled_ns") == 7207050 * kMs);
  CHECK(r.job_ns("b1", "scheduled_ns") == 10810050 * kMs);
  CHECK(r.summary.at("cross_queue_starvation").at("jobs") == 1);
}

TEST_CASE("queue-tie with queue a renamed c: b's name sorts first, b wins the tie, b1 no longer waits") {
  // c is listed first and gets the lower metadata.uid, but "b" < "c". 3604 s: the tie goes to
  // b: b1 placed (bound 3604.05 s). 7207 s: only c asks: a2 (created before a3) placed, bound
  // 7207.05 s; 10810 s: a3, bound 10810.05 s. Now a2 waits 7187.05 s and a3 10780.05 s — but
  // no job of another queue submitted after them was placed before them (b1 came at 10 s):
  // no flag.
  test::ScenarioRun r(kScenario, rename_queue_a("c"));
  CHECK(r.job_ns("b1", "scheduled_ns") == 3604050 * kMs);
  CHECK(r.job_ns("a2", "scheduled_ns") == 7207050 * kMs);
  CHECK(r.job_ns("a3", "scheduled_ns") == 10810050 * kMs);
  CHECK(r.summary.at("cross_queue_starvation").at("jobs") == 0);
  CHECK_FALSE(contains(r.printed, "Cross-queue starvation"));
}

TEST_CASE("queue-tie remedy: spec.priority 1 for queue b, b1 goes first at the first free cluster") {
  // The printed remedy. capacity's queue order compares spec.priority before share, so at
  // 3604 s b goes first without a tie: the same timeline as with queue a renamed c.
  test::ScenarioRun r(kScenario, json{{"queues", json::array({queue("a"), queue("b", 1)})}});
  CHECK(r.job_ns("b1", "scheduled_ns") == 3604050 * kMs);
  CHECK(r.job_ns("a2", "scheduled_ns") == 7207050 * kMs);
  CHECK(r.job_ns("a3", "scheduled_ns") == 10810050 * kMs);
  CHECK(r.summary.at("cross_queue_starvation").at("jobs") == 0);
  CHECK_FALSE(contains(r.printed, "Cross-queue starvation"));
  CHECK_FALSE(contains(runner::explain_job(r.db, "b1"), "Cross-queue starvation"));
}

// ---------------------------------------------------------------- the flag on hand-made cases

TEST_CASE("cross-queue starvation flag: later jobs of other queues placed first") {
  const std::int64_t end = 10'000 * kS;
  // Each record lost one queue-order tie (the flag's condition) unless a case says otherwise.
  auto rec = [](const char* name, const char* queue, std::int64_t submit_s, std::int64_t placed_s, std::int64_t run_s) {
    return io::WaitRecord{name, queue, submit_s * kS, placed_s < 0 ? INT64_MAX : placed_s * kS, run_s * kS, 32, 1, "x", false};
  };
  SUBCASE("what counts: later jobs of other queues placed strictly before; per queue, most first") {
    // a (queue q) waits 5000 s > 100 s. Counted: x1, x2 (queue x), y1 (queue y). Not counted:
    // s1 (same queue), e1 (submitted before a), t1 (same instant as a), z1 (placed at a's
    // instant), n1 (never placed).
    const auto s = io::find_cross_queue_starvation(
        {rec("e1", "x", 0, 20, 100), rec("a", "q", 5, 5000, 100), rec("t1", "x", 5, 30, 100), rec("s1", "q", 10, 40, 100),
         rec("x1", "x", 10, 50, 100), rec("x2", "x", 20, 60, 100), rec("y1", "y", 30, 70, 100), rec("z1", "z", 40, 5000, 100),
         rec("n1", "n", 50, -1, 1'000'000)},
        1.0, end);
    REQUIRE(s.jobs == 1);
    REQUIRE(s.worst.size() == 1);
    CHECK(s.worst[0].name == "a");
    CHECK(s.worst[0].overtaken_by == 3);
    CHECK(s.worst[0].by_queue == std::vector<std::pair<std::string, std::size_t>>{{"x", 2}, {"y", 1}});
    CHECK(s.worst[0].waited_s == 4995.0);
    CHECK(s.tie_jobs == 1);
  }
  SUBCASE("a job that lost no queue-order tie is not flagged, however long it waited") {
    std::vector<io::WaitRecord> v = {rec("a", "q", 0, 5000, 100), rec("b", "x", 10, 20, 100)};
    v[0].tie_sessions = 0;
    CHECK(io::find_cross_queue_starvation(v, 1.0, end).jobs == 0);
  }
  SUBCASE("the factor is a strict bound; a job never placed waits until the end; ties are carried") {
    // a waits exactly 2 x 100 s: not flagged at factor 2, flagged at 1.99.
    const std::vector<io::WaitRecord> v = {rec("a", "q", 0, 200, 100), rec("b", "x", 10, 20, 100)};
    CHECK(io::find_cross_queue_starvation(v, 2.0, end).jobs == 0);
    CHECK(io::find_cross_queue_starvation(v, 1.99, end).jobs == 1);
    std::vector<io::WaitRecord> w = {rec("a", "q", 0, -1, 100), rec("b", "x", 10, 20, 100)};
    w[0].tie_sessions = 3;
    w[0].tie_winner = "x";
    w[0].tie_by_uid = true;
    const auto s = io::find_cross_queue_starvation(w, 1.0, end);
    REQUIRE(s.jobs == 1);
    CHECK_FALSE(s.worst[0].placed);
    CHECK(s.worst[0].waited_s == 10000.0);
    CHECK(s.tie_jobs == 1);
    CHECK(s.tie_sessions == 3);
    CHECK(s.worst[0].tie_winner == "x");
    CHECK(s.worst[0].tie_by_uid);
  }
}
