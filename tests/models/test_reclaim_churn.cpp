// Reclaim that evicts a job again and again (Volcano v1.12.1 actions/reclaim/reclaim.go with
// the capacity plugin, pkg/scheduler/plugins/capacity/capacity.go), its flag in the summary and
// in explain, and its remedies: deserved shares in whole gangs, or a queue that is not
// reclaimable; on tests/scenarios/reclaim-churn.json and reclaim-churn-whole-gangs.json. Every
// expected time is derived by hand in the comments from the scenarios' figures and the model's
// tick rule (a change at time t is seen by the session at the next whole second at or after t).
//
// The scenario: 3 trn1.32xlarge; every pod takes a whole node (127.9 CPU, 523264M, 16 devices,
// 8 EFA). a1 (queue a) and b1 (queue b): 2 pods each (minAvailable 2), 1 h of training,
// submitted at 0 s and 1000 s. Bind latency 50 ms, pod start-up 2 s, termination grace 30 s;
// TorchX max_retries 3 (PodEvicted -> RestartJob, maxRetry 3), a checkpoint every 5 min.
// Actions enqueue, allocate, reclaim, backfill; overcommit-factor 2.0 (so that a job may enter
// Inqueue while the other runs). capacity: a and b deserve 1.5 nodes each (192 CPU, 768 Gi,
// 24 devices, 12 EFA); no capability, so each may allocate up to the cluster.
#include "scenario_run.hpp"
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

/// tests/scenarios/<scenario> with `overrides`, to its end.
struct ChurnRun : test::ScenarioRun {
  explicit ChurnRun(const std::string& scenario, const json& overrides = {})
      : ScenarioRun(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + scenario, overrides) {}
  /// "t_s event" of pod 0 of `job`, in order (t in ms when not whole seconds).
  std::vector<std::string> pod0(const std::string& job) const {
    const auto t = query("SELECT p.t_ns, p.event FROM pods p JOIN jobs j ON j.job = p.job WHERE j.name = '" + job +
                         "' AND p.pod = 0 ORDER BY p.rowid");
    std::vector<std::string> v;
    for (std::size_t i = 0; i < t.rows; ++i) {
      const std::int64_t ns = *t.column("t_ns").int_at(i);
      std::ostringstream s;
      if (ns % kS == 0) s << ns / kS; else s << ns / kMs << "ms";
      s << " " << t.column("event").text_at(i);
      v.push_back(s.str());
    }
    return v;
  }
  std::string final_phase(const std::string& job) const {
    return query("SELECT phase FROM jobs WHERE name = '" + job + "'").column("phase").text_at(0);
  }
};

}  // namespace

TEST_CASE("reclaim-churn: reclaim takes a1's gang for b1 three times; a1 fails, b1 runs after") {
  // 0 s: a1 admitted (overcommit 2 of 6 nodes; capacity: a's realCapability is the cluster),
  // pods created; session 1: bound 1.05 s, Running 3.05 s, training.
  // 1000 s: b1 admitted (2 used + 2 <= 6), pods created.
  // 1001 s: allocate: b first (share 0; a's = 64 / 48 NeuronCores = 1.33): b1-0 takes the free
  // node, b1-1 fits nowhere: discarded. reclaim: b1-0 is Preemptive (1 pod within b's
  // 1.5 nodes); the free node has no reclaimee; the next node holds a1-0: gang offers no victim
  // (a1 has 2 ready = minAvailable), capacity does (a's 2 pods exceed 1.5 nodes, guarantee 0):
  // a1-0 evicted, b1-0 pipelined there; b1-1 is not Preemptive (2 pods > 1.5 nodes).
  // RestartJob, retry 1 of 3: trained 1001 - 3.05 = 997.95 s, last checkpoint at 900 s: 97.95 s
  // lost; a1-1 killed; both pods gone at 1031 s.
  // 1002 s: a1 Pending again, re-admitted; b1 only pipelined on the releasing nodes (not bound).
  // 1031 s: a1's pods gone and created again; allocate: a and b both have share 0, the queue
  // order falls back to creation, then UID: a first; a1 takes two nodes (capacity lets a queue
  // allocate up to its realCapability, the cluster), bound 1031.05 s, Running 1033.05 s; b1-1
  // fits nowhere again.
  // 1034 s (a1's pods Running wake the scheduler): reclaim as at 1001 s: a1 evicted, retry 2
  // (0.95 s trained, no checkpoint yet: 0.95 s lost); gone at 1064 s, bound again 1064.05 s,
  // Running 1066.05 s; 1067 s: evicted a third time, retry 3 of 3: Failed once its pods are gone
  // at 1097 s (0.95 s lost). 1097 s: b1 bound (1097.05 s), Running 1099.05 s, ends 4699.05 s.
  // Each RestartJob's killJob deleted a1's PodGroup and its echo created a new one (Pending,
  // re-admitted at 1002 s and 1035 s), with a new UID from the same stream as the pods': the
  // pods created at 1064 s (equal priority and creation) get other UIDs than before that rule,
  // and reclaim's UID tie-break now takes a1-0 (evicted) rather than a1-1 at 1067 s.
  ChurnRun r("reclaim-churn.json");
  CHECK(r.pod0("a1") == std::vector<std::string>{"0 Created", "1050ms Bound", "3050ms Running", "1001 Evicted",
                                                 "1031 Deleted", "1031 Created", "1031050ms Bound", "1033050ms Running",
                                                 "1034 Evicted", "1064 Deleted", "1064 Created", "1064050ms Bound",
                                                 "1066050ms Running", "1067 Evicted", "1097 Deleted"});
  CHECK(r.pod0("b1") == std::vector<std::string>{"1000 Created", "1097050ms Bound", "1099050ms Running", "4699050ms Succeeded"});
  CHECK(r.final_phase("a1") == "Failed");
  CHECK(r.job_ns("a1", "end_ns") == 1097 * kS);
  CHECK(r.job_ns("b1", "end_ns") == 4699050 * kMs);
  // The flag: a1 evicted by reclaim 3 times (the last one failed it).
  const json& c = r.summary.at("reclaim_churn");
  CHECK(c.at("jobs") == 1);
  CHECK(c.at("evictions") == 3);
  CHECK(c.at("queues") == json::array({"a"}));
  REQUIRE(c.at("worst").size() == 1);
  CHECK(c.at("worst")[0].at("job") == "a1");
  CHECK(c.at("worst")[0].at("evictions") == 3);
  CHECK(c.at("worst")[0].at("phase") == "Failed");
  CHECK(c.at("worst")[0].at("lost_training_s").get<double>() == doctest::Approx(97.95 + 0.95 + 0.95).epsilon(1e-9));
  // Restarts re-queued: the PodGroups created at 1001 s and 1034 s were admitted at the next
  // cycle, 1 s later each; the third eviction failed the job (no new PodGroup).
  const json& rs = r.summary.at("lifecycle").at("readmission_s");
  CHECK(rs.at("n") == 2);
  CHECK(rs.at("p50").get<double>() == 1.0);
  CHECK(rs.at("max").get<double>() == 1.0);
  CHECK(r.printed.find("Restarts re-queued: 2 whole-job restart(s) waited a median 1.0s (p95 1.0s, max 1.0s)") != std::string::npos);
  CHECK(contains(r.printed, "Reclaim churn: 1 job(s) of queue(s) a were evicted by reclaim more than once (3 evictions"));
  CHECK(contains(r.printed, "a1 (queue a) evicted 3 times"));
  // The queue-share flag reads proportion's water-filling: not computed under capacity.
  CHECK(r.summary.at("short_queues").empty());
  const std::string why = runner::explain_job(r.db, "a1");
  CHECK_MESSAGE(contains(why, "Reclaim churn: the reclaim action evicted this job 3 times"), why);
  CHECK_FALSE(contains(runner::explain_job(r.db, "b1"), "Reclaim churn"));
}

TEST_CASE("reclaim-churn remedies: no eviction, b1 waits for a1") {
  // a1 trains undisturbed: bound 1.05 s, Running 3.05 s, Succeeded 3603.05 s; b1 is placed by
  // the session at 3604 s: bound 3604.05 s, Running 3606.05 s, ends 7206.05 s.
  auto check = [](const ChurnRun& r) {
    CHECK(r.pod0("a1") == std::vector<std::string>{"0 Created", "1050ms Bound", "3050ms Running", "3603050ms Succeeded"});
    CHECK(r.pod0("b1") == std::vector<std::string>{"1000 Created", "3604050ms Bound", "3606050ms Running", "7206050ms Succeeded"});
    CHECK(r.summary.at("reclaim_churn").at("jobs") == 0);
    CHECK_FALSE(contains(r.printed, "Reclaim churn"));
  };
  SUBCASE("deserved in whole gangs: a 2 nodes, b 1 node") {
    // 1001 s: b1-0 is Preemptive (1 pod within b's 1 node: 127.9 <= 128 CPU, 523264M <= 512 Gi,
    // 32 <= 32 NeuronCores, 8 <= 8 EFA), but a's 2 pods are within its 2 nodes: no victim.
    ChurnRun r("reclaim-churn-whole-gangs.json");
    check(r);
  }
  SUBCASE("queue a not reclaimable") {
    // reclaim finds no reclaimee on a's nodes (spec.reclaimable false), b1 never evicts.
    json q = json::array();
    q.push_back({{"name", "a"}, {"reclaimable", false},
                 {"deserved", {{"cpu", "192000m"}, {"memory", "768Gi"}, {"aws.amazon.com/neurondevice", 24}, {"vpc.amazonaws.com/efa", 12}}}});
    q.push_back({{"name", "b"},
                 {"deserved", {{"cpu", "192000m"}, {"memory", "768Gi"}, {"aws.amazon.com/neurondevice", 24}, {"vpc.amazonaws.com/efa", 12}}}});
    ChurnRun r("reclaim-churn.json", {{"queues", q}});
    check(r);
  }
}

TEST_CASE("reclaim-churn under proportion (weights 1:1): one eviction, then both gangs wait forever") {
  // proportion in capacity's place. 1001 s: b asks 2 nodes, a holds 2: each deserves 1.5 nodes
  // (3 nodes water-filled 1:1, capped by the requests); reclaim evicts a1-0 as under capacity
  // (b1-0 Preemptive = Allocatable within 1.5 nodes; a's 2 pods exceed it). 1031 s: a1's pods
  // are gone and created again; both queues ask 2 nodes, deserve 1.5: each gang's second pod is
  // not Allocatable ("cannot take task ... within its deserved share"), nothing runs, nothing
  // changes: the run ends at 1031 s with both jobs Pending, and the queue share flag names both
  // queues (1.5 nodes = 48 NeuronCores < 64).
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/reclaim-churn.json");
  json v = json::parse(in).at("volcano");
  for (auto& p : v["tiers"][1]["plugins"])
    if (p["name"] == "capacity") p["name"] = "proportion";
  json q = json::array({{{"name", "a"}}, {{"name", "b"}}});
  ChurnRun r("reclaim-churn.json", {{"volcano", v}, {"queues", q}});
  CHECK(r.pod0("a1") == std::vector<std::string>{"0 Created", "1050ms Bound", "3050ms Running", "1001 Evicted", "1031 Deleted",
                                                 "1031 Created"});
  CHECK(r.pod0("b1") == std::vector<std::string>{"1000 Created"});
  CHECK(r.final_phase("a1") == "Pending");
  CHECK(r.final_phase("b1") == "Pending");
  CHECK(r.summary.at("reclaim_churn").at("jobs") == 0);
  REQUIRE(r.summary.at("short_queues").size() == 2);
  CHECK(r.summary.at("short_queues")[0].at("share_neuroncores").get<double>() == doctest::Approx(48));
}

TEST_CASE("reclaim-churn under proportion with weights 2:1 (the queue-setup remedy): no eviction, no stall") {
  // As above with a weighing 2 and b 1. 1000 s: water-filling 3 nodes 2:1 gives a 2 nodes (its
  // request: met) and b 1 node, nothing left. b1 is admitted (2 nodes within the cluster) and its
  // pods created. reclaim: b1's first pod is Preemptive (0 + 1 node <= 1 node), but a holds
  // exactly its deserved 2 nodes, so proportion offers no victim: no eviction. allocate: the free
  // third node could take one pod within b's share, the second would pass it: the gang waits.
  // a1 ends at 3603.05 s (1 h from 3.05 s); a has no job left, b deserves its request: the
  // 3604 s session binds b1 (3604.05 s), Running 2 s later, done at 7206.05 s. The queue-share
  // flag still names b (1 node = 32 NeuronCores < 64): its gang runs only while a leaves room.
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/reclaim-churn.json");
  json v = json::parse(in).at("volcano");
  for (auto& p : v["tiers"][1]["plugins"])
    if (p["name"] == "capacity") p["name"] = "proportion";
  json q = json::array({{{"name", "a"}, {"weight", 2}}, {{"name", "b"}, {"weight", 1}}});
  ChurnRun r("reclaim-churn.json", {{"volcano", v}, {"queues", q}});
  CHECK(r.pod0("a1") == std::vector<std::string>{"0 Created", "1050ms Bound", "3050ms Running", "3603050ms Succeeded"});
  CHECK(r.pod0("b1") == std::vector<std::string>{"1000 Created", "3604050ms Bound", "3606050ms Running", "7206050ms Succeeded"});
  CHECK(r.final_phase("a1") == "Completed");
  CHECK(r.final_phase("b1") == "Completed");
  CHECK(r.summary.at("reclaim_churn").at("jobs") == 0);
  REQUIRE(r.summary.at("short_queues").size() == 1);
  CHECK(r.summary.at("short_queues")[0].at("queue") == "b");
  CHECK(r.summary.at("short_queues")[0].at("share_neuroncores").get<double>() == doctest::Approx(32));
}

TEST_CASE("reclaim-churn in a queue tree (enableHierarchy from the scenario): no churn, b1 is not even admitted; a broken tree runs nothing") {
  // root -> org -> {a, b}, a and b as before (1.5 nodes each), org deserving the cluster. With
  // enableHierarchy on the capacity entry, admission checks the leaf and then each ancestor:
  // minResources + allocated + inqueue - elastic within realCapability. At 1000 s b1's leaf
  // check passes (2 nodes <= 3) but org's does not: org holds a1's 2 nodes, 2 + 2 > 3 (root's
  // would fail alike: root's realCapability is the cluster). So b1 stays Pending, has no pod,
  // and reclaim has no starving job to act for: no eviction. a1 ends at 3603.05 s; 3604 s: b1
  // admitted, pods created; 3605 s: bound 3605.05 s, Running 3607.05 s, ends 7207.05 s.
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/reclaim-churn.json");
  const json doc = json::parse(in);
  json v = doc.at("volcano");
  for (auto& p : v["tiers"][1]["plugins"])
    if (p["name"] == "capacity") p["enableHierarchy"] = true;
  auto tree = [&](double org_nodes) {
    json q = doc.at("queues");
    for (auto& x : q) x["parent"] = "org";
    const double n = org_nodes;
    q.push_back({{"name", "org"},
                 {"deserved", {{"cpu", std::to_string(static_cast<int>(128 * n)) }, {"memory", std::to_string(static_cast<int>(512 * n)) + "Gi"},
                               {"aws.amazon.com/neurondevice", static_cast<int>(16 * n)}, {"vpc.amazonaws.com/efa", static_cast<int>(8 * n)}}}});
    return q;
  };
  SUBCASE("org deserves the cluster (3 nodes = a + b)") {
    ChurnRun r("reclaim-churn.json", {{"volcano", v}, {"queues", tree(3)}});
    CHECK(r.pod0("a1") == std::vector<std::string>{"0 Created", "1050ms Bound", "3050ms Running", "3603050ms Succeeded"});
    CHECK(r.pod0("b1") == std::vector<std::string>{"3604 Created", "3605050ms Bound", "3607050ms Running", "7207050ms Succeeded"});
    CHECK(r.summary.at("reclaim_churn").at("jobs") == 0);
    const std::string why = runner::explain_job(r.db, "b1");
    CHECK_MESSAGE(contains(why, "capacity: queue resource quota insufficient: queue 'org' realCapability"), why);
  }
  SUBCASE("org deserves 2 nodes < a + b (3): every session fails the tree check, nothing is admitted") {
    // checkHierarchicalQueue(org): 2 nodes < 1.5 + 1.5 -> not ready: capacity rejects every
    // job at enqueue; both stay Pending, no pod is ever created; the run ends with the last
    // arrival's session (1000 s).
    ChurnRun r("reclaim-churn.json", {{"volcano", v}, {"queues", tree(2)}});
    CHECK(r.pod0("a1").empty());
    CHECK(r.pod0("b1").empty());
    CHECK(r.final_phase("a1") == "Pending");
    CHECK(r.final_phase("b1") == "Pending");
    const std::string why = runner::explain_job(r.db, "a1");
    CHECK_MESSAGE(contains(why, "capacity: the queue hierarchy failed its check"), why);
  }
}

// ---- Priority inversion (tests/scenarios/priority-inversion.json) ----
// 4 trn1.32xlarge, one queue, every pod a whole node. high: priority 1000, 4 pods, 2 h, at 0 s;
// low: priority 10, 1 pod, 1 h, at 600 s. Tiers: [priority, gang, conformance], [overcommit
// (factor 2), drf, predicates, nodeorder]; actions enqueue, allocate, preempt, backfill.

TEST_CASE("priority inversion: drf's tier evicts a priority-1000 pod for a priority-10 one; the summary and explain say so") {
  // 600 s: low enters Inqueue (overcommit: 4 nodes used + 1 <= 2 x 4), its pod is created.
  // 601 s: allocate finds no node. preempt, low-trainer-0-0: on every node the preemptee is one
  // of high's pods. Tier 1: priority's victims are pods of jobs of lower priority than 10: none
  // (1000), so the tier ends without victims (framework/session_plugins.go Preemptable). Tier 2:
  // drf's victims are pods whose job's share without them is at least low's with its pod: high
  // 3/4 >= low 1/4 — a victim. The first node (trn1-0 holds high's replica 1 after the
  // nodeorder tie-break; any replica would do) loses it; low is pipelined: one eviction.
  ChurnRun r("priority-inversion.json");
  const auto rows = r.query("SELECT d.t_ns, d.reason FROM decisions d JOIN jobs j ON j.job = d.job WHERE j.name = "
                            "'high' AND d.reason LIKE '%evicted (preempt)%' ORDER BY d.rowid");
  REQUIRE(rows.rows == 1);
  CHECK(*rows.column("t_ns").int_at(0) == 601 * kS);
  const std::string why = rows.column("reason").text_at(0);
  CHECK(contains(why, "evicted (preempt) for pod low-trainer-0-0 of job low, priority 10 (this job's: 1000, a priority inversion)"));
  CHECK(contains(why, "victims chosen by tier 2 (drf)"));
  CHECK(r.summary["priority_inversions"]["by"] == json{{"preempt: tier 2 (drf)", 1}});
  CHECK(contains(r.printed, "Priority inversion: 1 pod(s) evicted for a pod of a lower-priority job (1 by preempt: tier 2 (drf))"));
  CHECK(contains(r.printed, "enablePreemptable: false"));
  CHECK(contains(runner::explain_job(r.db, "high"), "a priority inversion"));
}

TEST_CASE("priority inversion, the printed remedy applied: drf's enablePreemptable false; low waits for high, nothing is evicted") {
  // Tier 2 no longer votes in preempt, so no tier chooses a victim. high: bound 1.05 s, Running
  // 3.05 s, trains 2 h, Succeeded at 7203.05 s; the session at the next whole second, 7204 s,
  // places low (Inqueue since 600 s): Bound 7204.05 s, Running 7206.05 s.
  json v = json::parse(std::ifstream(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/priority-inversion.json"))["volcano"];
  for (auto& p : v["tiers"][1]["plugins"])
    if (p["name"] == "drf") p["enablePreemptable"] = false;
  ChurnRun r("priority-inversion.json", {{"volcano", v}});
  CHECK(r.summary["lifecycle"]["evictions"] == 0);
  CHECK(r.summary["priority_inversions"]["by"].empty());
  CHECK_FALSE(contains(r.printed, "Priority inversion"));
  CHECK(r.pod0("low") == std::vector<std::string>{"600 Created", "7204050ms Bound", "7206050ms Running", "10806050ms Succeeded"});
  CHECK(r.final_phase("high") == "Completed");
  CHECK(r.job_ns("high", "end_ns") == 7203 * kS + 50 * kMs);
}

// ---- explain: repeated identical periods merged (runner::detail::repeating_run) ----

TEST_CASE("explain merges a job's periods that alternate among a few verdicts, and only those") {
  using runner::detail::repeating_run;
  const std::vector<std::string> abab{"A", "B", "A", "B", "A", "B", "C"};
  // Periods 0-5 alternate A/B and give way to another wait; period 6 is the last (never merged).
  CHECK(repeating_run(abab, {true, true, true, true, true, true, false}, 0) == 6);
  // The same from period 1: B A B A B — 5 periods, both verdicts repeated.
  CHECK(repeating_run(abab, {true, true, true, true, true, true, false}, 1) == 6);
  // Period 3 ends in a placement (not mergeable): 0-2 is only 3 periods, too short.
  CHECK(repeating_run(abab, {true, true, true, false, true, true, false}, 0) == 0);
  // Four distinct verdicts: the run stops at the fourth (D); C, B and A then occur once each and
  // are trimmed — nothing repeats, nothing is merged.
  CHECK(repeating_run({"A", "B", "C", "D", "A", "B"}, std::vector<bool>(6, true), 0) == 0);
  // A B A B C D: stops at D (a fourth verdict); C occurs once and is trimmed: A B A B is merged.
  CHECK(repeating_run({"A", "B", "A", "B", "C", "D"}, std::vector<bool>(6, true), 0) == 4);
}

TEST_CASE("explain: proportion's enqueue refusal is a capability limit, explained as capability, not as weight") {
  // priority-inversion.json with proportion added to tier 2: one queue, no capability and no
  // guarantee, so its real capability is the whole cluster (proportion.go: total less the others'
  // guarantees, none). From 600 s high holds all 4 nodes, so low's minResources (1 node) + the
  // queue's allocated (4) exceed it: enqueue refuses low (JobEnqueueableFn, "queue resource quota
  // insufficient") until high Succeeds at 7203.05 s; the session at 7204 s admits it.
  json v = json::parse(std::ifstream(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/priority-inversion.json"))["volcano"];
  v["tiers"][1]["plugins"].push_back({{"name", "proportion"}});
  ChurnRun r("priority-inversion.json", {{"volcano", v}});
  const std::string out = runner::explain_job(r.db, "low");
  CHECK_MESSAGE(contains(out, "00:10:00 .. 02:00:04 (1h50m04s): Unschedulable by proportion: queue resource quota insufficient"), out);
  CHECK_MESSAGE(contains(out, "fit the queue's real capability"), out);
  CHECK_MESSAGE(contains(out, "a larger weight does not help"), out);
  CHECK_MESSAGE(!contains(out, "a larger weight (or guarantee) for its queue"), out);
}

TEST_CASE("explain: a job refused at submission never had a PodGroup, and says why it never ran") {
  // tiny-gang.json with its queue Closed: Volcano's webhook refuses every Job (admit_job.go
  // 225-250), so no PodGroup, pod or session ever saw job a.
  json queues = json::parse(std::ifstream(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json"))["queues"];
  queues[0]["state"] = "Closed";
  ChurnRun r("tiny-gang.json", {{"queues", queues}});
  const std::string out = runner::explain_job(r.db, "a");
  CHECK_MESSAGE(contains(out, "submitted: the Job's creation was refused (no PodGroup, no pods)"), out);
  CHECK_MESSAGE(contains(out, "Why it never ran: it was refused at submission"), out);
  CHECK_MESSAGE(!contains(out, "PodGroup Pending"), out);
  CHECK_MESSAGE(!contains(out, "Why it waited"), out);
}
