// Starvation of a large gang by a stream of small jobs, and Volcano's sla plugin as its remedy,
// on tests/scenarios/sla-starvation.json; plus the summary's starvation flag on hand-made
// cases. Every expected time is derived by hand in the comments from the scenario's figures,
// the Volcano v1.12.1 rules (enqueue/overcommit/proportion/gang/sla) and the model's tick rule
// (a change at time t is seen by the session at the next whole second at or after t).
//
// The scenario: 4 trn1.32xlarge (32 NeuronCores each, 128 in all); every pod takes a whole
// node (16 devices = 32 NeuronCores, 127.9 CPU, 8 EFA). s00..s19: 1 pod, 1000 s, submitted at
// 260 k s (k = 0..19). big: 4 pods, 30 min, priority 100, submitted at 100 s, annotation
// sla-waiting-time 10m (deadline 100 + 600 = 700 s). Bind latency 50 ms, pod start-up 2 s.
// A job bound by the session at T is Bound at T + 0.05 s (its "scheduled" time), Running at
// T + 2.05 s and ends at T + 2.05 s + its duration.
//
// The stream: s_k is admitted (or, without enqueue, made Inqueue) by the session at 260k and
// bound at 260k + 1, so it ends at 260k + 1003.05 s: the node of s_(k-4) is free 36.95 s before
// s_k arrives, and from 781 s on three or four small jobs always run until the last, s19, ends
// at 4940 + 1003.05 = 5943.05 s.
#include "scenario_run.hpp"
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/runner/explain.hpp"
#include "mltwin/runner/run.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::int64_t kMs = 1'000'000LL;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// "s00".."s19" (snprintf: GCC 12 warns falsely on "s0" + std::to_string(k) at -O3).
std::string small(int k) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "s%02d", k);
  return buf;
}

const json kDefaultTier2 = json::parse(R"([{"name": "overcommit"}, {"name": "drf"}, {"name": "predicates"},
                                           {"name": "proportion"}, {"name": "nodeorder"}])");
const json kGangTier = json::parse(R"([{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}])");

/// Volcano's tiers, as a "volcano" merge patch: `tier1` then the default second tier.
json tiers(std::vector<json> tier_plugins) {
  json t = json::array();
  for (auto& p : tier_plugins) t.push_back({{"plugins", p}});
  return t;
}
json with_sla_last(json plugins, const json& sla = {{"name", "sla"}}) {
  plugins.push_back(sla);
  return plugins;
}

struct Job {
  std::string name;
  std::int64_t submit = 0, inqueue = -1, scheduled = -1, start = -1, end = -1;
};
struct Decision {
  std::int64_t t;
  std::string code, plugin, reason;
};

/// `overrides` with its volcano section replaced by `volcano`.
json with_volcano(json overrides, const json& volcano) {
  overrides["volcano"] = volcano;
  return overrides;
}

/// One run of sla-starvation.json with `volcano` merged over its volcano section.
struct StarvationRun : test::ScenarioRun {
  std::map<std::string, Job> jobs;

  explicit StarvationRun(const json& volcano, json more = json::object())
      : ScenarioRun(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/sla-starvation.json", with_volcano(std::move(more), volcano)) {
    const auto t = query("SELECT name, submit_ns, inqueue_ns, scheduled_ns, start_ns, end_ns FROM jobs ORDER BY job");
    for (std::size_t i = 0; i < t.rows; ++i) {
      Job j;
      j.name = t.column("name").text_at(i);
      j.submit = *t.column("submit_ns").int_at(i);
      j.inqueue = t.column("inqueue_ns").int_at(i).value_or(-1);
      j.scheduled = t.column("scheduled_ns").int_at(i).value_or(-1);
      j.start = t.column("start_ns").int_at(i).value_or(-1);
      j.end = t.column("end_ns").int_at(i).value_or(-1);
      jobs[j.name] = j;
    }
    REQUIRE(jobs.size() == 21);
  }
  std::vector<Decision> decisions(const std::string& job) const {
    const auto t = query("SELECT d.t_ns, d.code, d.plugin, d.reason FROM decisions d JOIN jobs j ON j.job = d.job "
                         "WHERE j.name = '" + job + "' ORDER BY d.rowid");
    std::vector<Decision> v;
    for (std::size_t i = 0; i < t.rows; ++i)
      v.push_back({*t.column("t_ns").int_at(i), t.column("code").text_at(i), t.column("plugin").text_at(i),
                   t.column("reason").text_at(i)});
    return v;
  }
};

/// big bound by the session at `bind_s`: its times follow (30 min of training).
void check_big(const StarvationRun& r, std::int64_t bind_s) {
  const Job& big = r.jobs.at("big");
  CHECK(big.submit == 100 * kS);
  CHECK(big.scheduled == bind_s * kS + 50 * kMs);
  CHECK(big.start == bind_s * kS + 2050 * kMs);
  CHECK(big.end == bind_s * kS + 2050 * kMs + 1800 * kS);
}

/// The stream as derived above: s_k placed by the session at 260k + 1 for every k < `until_k`.
void check_stream_unhindered(const StarvationRun& r, int until_k) {
  for (int k = 0; k < until_k; ++k) {
    const std::string name = small(k);
    CAPTURE(name);
    CHECK(r.jobs.at(name).scheduled == (260 * k + 1) * kS + 50 * kMs);
  }
}

const char* kSlaEnqueue =
    "waited its sla-waiting-time (10m0s) since the PodGroup's creation: Inqueue whatever the plugins of later tiers vote";
const char* kSlaHold =
    "waited its sla-waiting-time (10m0s) since the PodGroup's creation: allocate holds the idle resources found for its "
    "pods (pipelined) while its gang is incomplete";

}  // namespace

TEST_CASE("sla-starvation, Volcano's default configuration: the stream holds big back until it ends, and the summary says so") {
  // enqueue: overcommit admits a PodGroup while used + Inqueue min resources + its own fit in
  // 1.2 x 128 = 153.6 NeuronCores. big needs 128, so it needs used + Inqueue <= 25.6: no small
  // job at all. A small job (32) needs used + Inqueue <= 121.6: at most three others, which is
  // always true when it arrives (the fourth node has been free for 36.95 s). big (priority 100)
  // is asked first at every session and rejected; the stream is never held back.
  StarvationRun r(json::object());
  check_stream_unhindered(r, 20);
  // After s19 ends (5943.05 s) the session at 5944 s admits big; the 5945 s session binds it.
  CHECK(r.jobs.at("big").inqueue == 5944 * kS);
  check_big(r, 5945);
  const auto d = r.decisions("big");
  REQUIRE(d.size() == 3);  // one verdict from 100 s to 5944 s, then admitted, then placed
  CHECK(d[0].t == 100 * kS);
  CHECK(d[0].plugin == "overcommit");
  CHECK(d[0].reason == "resource in cluster is overused");
  CHECK(d[1].t == 5944 * kS);
  CHECK(d[1].plugin == "enqueue");
  CHECK(d[2].t == 5945 * kS);
  CHECK(d[2].plugin == "allocate");

  // The flag: big waited 5945.05 - 100 = 5845.05 s > 1 x 1800 s, and s01..s19 (submitted after
  // 100 s, 32 < 128 NeuronCores, same queue) were all placed before it: 19 jobs. The small jobs
  // waited 1.05 s each: not flagged.
  const json& st = r.summary.at("starvation");
  CHECK(st.at("wait_factor") == 1.0);
  CHECK(st.at("jobs") == 1);
  REQUIRE(st.at("worst").size() == 1);
  CHECK(st.at("worst")[0].at("job") == "big");
  CHECK(st.at("worst")[0].at("waited_s").get<double>() == doctest::Approx(5845.05).epsilon(1e-12));
  CHECK(st.at("worst")[0].at("run_s") == 1800.0);
  CHECK(st.at("worst")[0].at("overtaken_by") == 19);
  CHECK(st.at("worst")[0].at("placed") == true);
  CHECK(st.at("remedy") == "sla plugin (sla-waiting-time)");
  CHECK_MESSAGE(contains(r.printed, "Starvation: 1 job(s) waited more than 1x their run time"), r.printed);
  CHECK_MESSAGE(contains(r.printed, "big (queue default) waited 97.4m for a 30.0m run; 19 later, smaller job(s) placed before it"),
                r.printed);
  CHECK_MESSAGE(contains(r.printed, "Remedy: the sla plugin"), r.printed);

  // The threshold is /output/starvation_wait_factor: 5845.05 s > 3.2 x 1800 = 5760 s, but not
  // > 3.3 x 1800 = 5940 s.
  CHECK(StarvationRun(json::object(), {{"output", {{"starvation_wait_factor", 3.2}}}}).summary.at("starvation").at("jobs") == 1);
  CHECK(StarvationRun(json::object(), {{"output", {{"starvation_wait_factor", 3.3}}}}).summary.at("starvation").at("jobs") == 0);
}

TEST_CASE("sla-starvation with sla in gang's tier (Volcano's documented placement): big is admitted at its deadline and placed when its nodes are free") {
  // At 700 s (the plugin's wake-up: big's deadline; nothing else happens then) sla's Permit in
  // tier 1 admits big before overcommit (tier 2) is asked. From then on overcommit counts big's
  // 128 NeuronCores as Inqueue: a small job needs used + 128 + 32 <= 153.6, never true, so
  // s03 (780 s) and every later one stay Pending. Running then: s00, s01, s02, which end at
  // 1003.05, 1263.05, 1523.05 s. allocate tries big at each of those sessions (its pods exist
  // since 700 s) and places part of it, but proportion's deserved share (the cluster, 128)
  // minus what runs refuses the rest, and gang discards the partial gang. At 1524 s all four
  // nodes are free: big is bound.
  const json volcano = {{"tiers", tiers({with_sla_last(kGangTier), kDefaultTier2})}};
  StarvationRun r(volcano);
  check_stream_unhindered(r, 3);
  CHECK(r.jobs.at("big").inqueue == 700 * kS);
  check_big(r, 1524);
  const auto d = r.decisions("big");
  REQUIRE(d.size() == 4);
  CHECK((d[0].t == 100 * kS && d[0].plugin == "overcommit"));
  CHECK(d[1].t == 700 * kS);
  CHECK(d[1].code == "Success");
  CHECK(d[1].plugin == "sla");
  CHECK(d[1].reason == kSlaEnqueue);
  CHECK((d[2].t == 701 * kS && d[2].code == "Unschedulable" && d[2].plugin == "proportion"));
  CHECK((d[3].t == 1524 * kS && d[3].plugin == "allocate"));
  // big ends at 1524 + 2.05 + 1800 = 3326.05 s; the session at 3327 s admits the four oldest
  // small jobs (first come first served: equal priority, no waiting time of their own): s03
  // (780 s), s04, s05, s06 -> bound at 3328 s.
  for (const char* s : {"s03", "s04", "s05", "s06"}) {
    CAPTURE(s);
    CHECK(r.jobs.at(s).inqueue == 3327 * kS);
    CHECK(r.jobs.at(s).scheduled == 3328 * kS + 50 * kMs);
  }
  // No flag: big waited 1424.05 s < 1800 s; s03 waited 2548.05 s > 1000 s, but no later,
  // smaller job was placed before it (s04.. are as large, and placed with or after it).
  CHECK(r.summary.at("starvation").at("jobs") == 0);
  CHECK_FALSE(contains(r.printed, "Starvation:"));

  const std::string why = runner::explain_job(r.db, "big");
  CHECK_MESSAGE(contains(why, std::string("admitted at 00:11:40 by sla: ") + kSlaEnqueue), why);
  CHECK_MESSAGE(contains(why, "Unschedulable by overcommit"), why);
}

TEST_CASE("sla-starvation with a global sla-waiting-time: in gang's tier it lets the stream through too; before gang's it protects big") {
  // sla-waiting-time 10m for every job (big's annotation says the same). Every job now has a
  // deadline: s_k at 260k + 600 s, big at 700 s.
  const json sla_global = {{"name", "sla"}, {"arguments", {{"sla-waiting-time", "10m"}}}};
  SUBCASE("in gang's tier: every small job past its own deadline is admitted over overcommit and takes a node big cannot use") {
    // big is admitted at 700 s as above, and from then on overcommit refuses every small job,
    // until that job's own deadline, when sla admits it too: s03 at 1380 s. allocate takes big
    // first, cannot complete its gang (s02 still runs), discards it (gang), and places s03 on
    // a free node at 1381 s. So for every k >= 3: Inqueue at 260k + 600, bound at 260k + 601
    // (the node of s_(k-4) has been free since 260(k-4) + 601 + 1002.05 = 260k + 563.05), ends
    // at 260k + 1603.05: the stream is only delayed by 600 s, and still never leaves the four
    // nodes free. s19 ends at 6543.05 s: big is bound at 6544 s, 599 s later than without sla
    // (Volcano issue #3095 describes this for a global waiting time).
    StarvationRun r(json{{"tiers", tiers({with_sla_last(kGangTier, sla_global), kDefaultTier2})}});
    check_stream_unhindered(r, 3);
    CHECK(r.jobs.at("big").inqueue == 700 * kS);
    check_big(r, 6544);
    for (int k = 3; k < 20; ++k) {
      const std::string name = small(k);
      CAPTURE(name);
      CHECK(r.jobs.at(name).inqueue == (260 * k + 600) * kS);
      CHECK(r.jobs.at(name).scheduled == (260 * k + 601) * kS + 50 * kMs);
    }
    const auto d = r.decisions("s03");
    REQUIRE(d.size() == 3);
    CHECK((d[0].t == 780 * kS && d[0].plugin == "overcommit"));
    CHECK((d[1].t == 1380 * kS && d[1].plugin == "sla" && d[1].reason == kSlaEnqueue));
    CHECK((d[2].t == 1381 * kS && d[2].plugin == "allocate"));
    // big waited 6444.05 s, overtaken by s01..s19; the small jobs waited 601.05 s < 1000 s.
    CHECK(r.summary.at("starvation").at("jobs") == 1);
    CHECK(r.summary.at("starvation").at("worst")[0].at("overtaken_by") == 19);
  }
  SUBCASE("in a tier of its own before gang's: big holds the nodes it finds, and the small jobs wait behind it") {
    // Order: sla's deadlines first (s00 600 < big 700 < s01 860 < ...). big is admitted at
    // 700 s, and allocate keeps what it places (sla's Permit decides in tier 0): at 1380 s s03
    // is admitted by sla, but big already holds the three free nodes and the queue is at its
    // deserved share (32 running + 96 held = 128): s03 waits. At 1524 s the fourth node is
    // free: big is bound. The small jobs, Inqueue from their deadlines on, follow when big ends
    // (3326.05 s): s03..s06, the earliest deadlines, at 3327 s.
    StarvationRun r(json{{"tiers", tiers({json::array({sla_global}), kGangTier, kDefaultTier2})}});
    check_stream_unhindered(r, 3);
    CHECK(r.jobs.at("big").inqueue == 700 * kS);
    check_big(r, 1524);
    CHECK(r.jobs.at("s03").inqueue == 1380 * kS);
    for (const char* s : {"s03", "s04", "s05", "s06"}) {
      CAPTURE(s);
      CHECK(r.jobs.at(s).scheduled == 3327 * kS + 50 * kMs);
    }
    CHECK(r.summary.at("starvation").at("jobs") == 0);
  }
}

TEST_CASE("sla-starvation without the enqueue action: skip and continue in allocate, and sla's tier decides whether it helps") {
  // Without enqueue every PodGroup turns Inqueue at its first session and gets its pods. At
  // each session allocate takes big first (priority 100): it places part of the gang, the rest
  // is refused (no node, or proportion's deserved share), gang votes Reject on JobPipelined and
  // the partial gang is discarded — then the small job behind it takes the free node. big gets
  // all four nodes only once the stream is over: s19 ends at 5943.05 s, big is bound at 5944 s.
  SUBCASE("Volcano's default tiers") {
    StarvationRun r(json{{"actions", json::array({"allocate", "backfill"})}});
    check_stream_unhindered(r, 20);
    check_big(r, 5944);
    CHECK(r.summary.at("starvation").at("jobs") == 1);
    CHECK(r.summary.at("starvation").at("worst")[0].at("job") == "big");
  }
  SUBCASE("sla in gang's tier: gang's Reject comes first, sla's Permit never counts (Volcano v1.12.1 as it is)") {
    StarvationRun r(json{{"actions", json::array({"allocate", "backfill"})}, {"tiers", tiers({with_sla_last(kGangTier), kDefaultTier2})}});
    check_stream_unhindered(r, 20);
    check_big(r, 5944);
    CHECK(r.summary.at("starvation").at("jobs") == 1);
    for (const auto& d : r.decisions("big")) CHECK(d.plugin != "sla");
  }
  SUBCASE("sla in a tier of its own before gang's (the remedy): big holds what it finds from its deadline on") {
    // At 700 s (wake-up) big places its first pod on the free node and sla's Permit, decided in
    // tier 0, keeps that in the session; s03 (Inqueue at 780 s) then finds the queue at its
    // deserved share (96 running + 32 held = 128) and waits. Each freed node joins big's hold
    // until all four are free when s02 ends: bound at 1524 s, as with enqueue and sla above.
    StarvationRun r(json{{"actions", json::array({"allocate", "backfill"})}, {"tiers", tiers({json::array({json{{"name", "sla"}}}), kGangTier, kDefaultTier2})}});
    check_stream_unhindered(r, 3);
    check_big(r, 1524);
    // big ends at 3326.05 s; s03..s06 (the four oldest) are placed by the 3327 s session.
    for (const char* s : {"s03", "s04", "s05", "s06"}) {
      CAPTURE(s);
      CHECK(r.jobs.at(s).scheduled == 3327 * kS + 50 * kMs);
    }
    const auto d = r.decisions("big");
    REQUIRE(d.size() == 3);
    CHECK((d[0].t == 101 * kS && d[0].code == "Unschedulable" && d[0].plugin == "proportion"));
    CHECK((d[1].t == 700 * kS && d[1].code == "Unschedulable" && d[1].plugin == "sla" && d[1].reason == kSlaHold));
    CHECK((d[2].t == 1524 * kS && d[2].plugin == "allocate"));
    CHECK(r.summary.at("starvation").at("jobs") == 0);
    const std::string why = runner::explain_job(r.db, "big");
    CHECK_MESSAGE(contains(why, std::string("Unschedulable by sla: ") + kSlaHold), why);
    CHECK_MESSAGE(contains(why, "rule: the sla plugin (pkg/scheduler/plugins/sla)"), why);
    CHECK_MESSAGE(contains(why, "placed at 00:25:24"), why);
  }
}

TEST_CASE("sla-starvation: a bad sla-waiting-time is an error naming the file and JSON path") {
  const std::string path = std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/sla-starvation.json";
  auto error = [&](const json& overrides) {
    runner::RunOptions o;
    o.out = ":memory:";
    o.overrides = overrides;
    try {
      (void)runner::Run::open(path, o);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  json bad_arg = {{"volcano", {{"tiers", tiers({with_sla_last(kGangTier, {{"name", "sla"}, {"arguments", {{"sla-waiting-time", "1d"}}}}),
                                                  kDefaultTier2})}}}};
  CHECK(error(bad_arg) == path + ": /volcano/tiers/0/plugins/3/arguments/sla-waiting-time: time: unknown unit \"d\" in duration "
                                 "\"1d\" (expected a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h) (pkg/scheduler/plugins/sla/sla.go:35 JobWaitingTime)");
  // The job's annotation: a JSON merge patch replaces the jobs list, so give the whole list back.
  std::ifstream in(path);
  json doc = json::parse(in);
  json jobs = doc["workload"]["jobs"];
  jobs[1]["sla_waiting_time"] = "10";
  CHECK(error({{"workload", {{"jobs", jobs}}}}) ==
        path + ": /workload/jobs/1/sla_waiting_time: time: missing unit in duration \"10\" (a Go duration such as \"1h30m\"; "
               "units ns, us, ms, s, m, h)");
  jobs[1]["sla_waiting_time"] = "-10m";
  CHECK(contains(error({{"workload", {{"jobs", jobs}}}}), "/workload/jobs/1/sla_waiting_time: \"-10m\" is not positive"));
}

// ---------------------------------------------------------------- the flag on hand-made cases

TEST_CASE("starvation flag: waits longer than the factor x run time, overtaken by a later, smaller job of the same queue") {
  const std::int64_t end = 10'000 * kS;
  auto rec = [](const char* name, const char* queue, std::int64_t submit_s, std::int64_t placed_s, std::int64_t run_s,
                double size) {
    return io::WaitRecord{name, queue, submit_s * kS, placed_s < 0 ? INT64_MAX : placed_s * kS, run_s * kS, size};
  };
  SUBCASE("first come first served: long waits, no flag") {
    // Each job placed in submission order: nothing is ever placed before an earlier waiting job.
    const auto s = io::find_starvation({rec("a", "q", 0, 5000, 100, 128), rec("b", "q", 10, 6000, 100, 32),
                                        rec("c", "q", 20, 7000, 100, 32)},
                                       1.0, end);
    CHECK(s.jobs == 0);
  }
  SUBCASE("overtaken by later, smaller jobs") {
    // a (128) waits 5000 s > 100 s; b and c (32, submitted later) are placed before it: 2.
    // d (128, later) placed before a too, but is not smaller: not counted.
    const auto s = io::find_starvation({rec("a", "q", 0, 5000, 100, 128), rec("b", "q", 10, 20, 100, 32),
                                        rec("c", "q", 30, 40, 100, 32), rec("d", "q", 50, 60, 100, 128)},
                                       1.0, end);
    REQUIRE(s.jobs == 1);
    CHECK(s.worst[0].name == "a");
    CHECK(s.worst[0].overtaken_by == 2);
    CHECK(s.worst[0].waited_s == 5000.0);
    CHECK(s.worst[0].placed);
  }
  SUBCASE("what does not count: earlier jobs, equal submission times, other queues, placed at the same instant") {
    // b (smaller) was submitted before a; c at the same instant as a; e in another queue; f is
    // later and smaller but placed at a's instant (not before it).
    const auto s = io::find_starvation({rec("b", "q", 0, 20, 100, 32), rec("a", "q", 5, 5000, 100, 128),
                                        rec("c", "q", 5, 30, 100, 32), rec("e", "other", 10, 40, 100, 32),
                                        rec("f", "q", 10, 5000, 100, 32)},
                                       1.0, end);
    CHECK(s.jobs == 0);
  }
  SUBCASE("the factor is a strict bound; a job never placed waits until the end of the run") {
    // a waits exactly 2 x 100 s: not flagged at factor 2, flagged at 1.99.
    const std::vector<io::WaitRecord> v = {rec("a", "q", 0, 200, 100, 128), rec("b", "q", 10, 20, 100, 32)};
    CHECK(io::find_starvation(v, 2.0, end).jobs == 0);
    CHECK(io::find_starvation(v, 1.99, end).jobs == 1);
    // never placed: waited end - submit = 10000 s; b placed before "never" counts.
    const auto s = io::find_starvation({rec("a", "q", 0, -1, 100, 128), rec("b", "q", 10, 20, 100, 32)}, 1.0, end);
    REQUIRE(s.jobs == 1);
    CHECK_FALSE(s.worst[0].placed);
    CHECK(s.worst[0].waited_s == 10000.0);
  }
  SUBCASE("the five longest waits are kept, longest first") {
    std::vector<io::WaitRecord> v;
    for (int i = 0; i < 7; ++i) {
      const std::string name = "big" + std::to_string(i);
      v.push_back(io::WaitRecord{name, "q", 0, (1000 + 100 * i) * kS, 10 * kS, 128});
    }
    v.push_back(rec("small", "q", 1, 2, 10, 32));
    const auto s = io::find_starvation(v, 1.0, end);
    CHECK(s.jobs == 7);
    REQUIRE(s.worst.size() == 5);
    CHECK(s.worst[0].name == "big6");
    CHECK(s.worst[4].name == "big2");
  }
}

TEST_CASE("starvation flag: a long wait that no later job overtook is not flagged (tiny-gang)") {
  // tiny-gang: a and b (4 nodes, 1 h) at 0 s, c (2 nodes, 30 min) at 600 s. b waits for a:
  // placed at 3605.05 s, longer than its 3600 s run; c, later and smaller, is placed only at
  // 7209.05 s, after b. First come first served: no flag.
  const test::ScenarioRun r(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  const auto t = r.query("SELECT name, queueing_s, duration_s FROM job_times JOIN jobs USING (job) WHERE name = 'b'");
  REQUIRE(t.rows == 1);
  CHECK(*t.column("queueing_s").real_at(0) == doctest::Approx(3605.05).epsilon(1e-12));
  CHECK(*t.column("queueing_s").real_at(0) > *t.column("duration_s").real_at(0));
  CHECK(r.summary.at("starvation").at("jobs") == 0);
}

// ---------------------------------------------------------------- queue shares (proportion)

TEST_CASE("queue share flag: a queue whose share under contention is below its smallest job, and the weight that fixes it") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // 128 NeuronCores; a (weight 3) and b (weight 1) have jobs, idle (weight 100) has none and
  // takes no part: b's share = 128 x 1 / 4 = 32; a's = 96.
  std::vector<io::QueueRecord> queues = {{"a", 3}, {"b", 1}, {"idle", 100}};
  const std::vector<io::JobSizeRecord> jobs = {{"a", 32, 10}, {"a", 96, 20}, {"b", 64, 100}, {"b", 96, 300}, {"b", 64, nan}};
  auto f = io::find_short_queues(queues, jobs, 128);
  REQUIRE(f.size() == 1);
  CHECK(f[0].queue == "b");
  CHECK(f[0].weight == 1);
  CHECK(f[0].total_weight == 4);
  CHECK(f[0].share_neuroncores == 32.0);
  CHECK(f[0].smallest_neuroncores == 64.0);
  CHECK(f[0].largest_neuroncores == 96.0);
  CHECK(f[0].jobs == 3);
  CHECK(f[0].mean_queueing_s == 200.0);  // (100 + 300) / 2; the third never placed
  // 128 w / (3 + w) >= 64 <=> w >= 3; >= 96 <=> w >= 9 (128 x 9 / 12 = 96).
  CHECK(f[0].weight_for_smallest == 3);
  CHECK(f[0].weight_for_largest == 9);
  // A guarantee of 64 raises b's share to its smallest job: no flag.
  queues[1].guarantee_neuroncores = 64;
  CHECK(io::find_short_queues(queues, jobs, 128).empty());
  // A capability of 80 caps what weight can give: 64 within reach (w 3), 96 not (0).
  queues[1].guarantee_neuroncores = 0;
  queues[1].capability_neuroncores = 80;
  f = io::find_short_queues(queues, jobs, 128);
  REQUIRE(f.size() == 1);
  CHECK(f[0].weight_for_smallest == 3);
  CHECK(f[0].weight_for_largest == 0);
  // Alone with jobs, a queue deserves the whole cluster.
  CHECK(io::find_short_queues({{"b", 1}}, {{"b", 128, 1}}, 128).empty());
}

TEST_CASE("queue share flag in a run's summary (tiny-gang with a second, heavier queue)") {
  // tiny-gang's job a moved to a queue "busy" of weight 3: default keeps b (128 NeuronCores) and
  // c (64), both above its share 128 x 1 / 4 = 32. Weight 3 would give c its 64; nothing short of
  // the whole cluster gives b its 128. busy's share, 96, is below a's 128 too.
  const std::string path = std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json";
  std::ifstream in(path);
  json doc = json::parse(in);
  json jobs = doc["workload"]["jobs"];
  jobs[0]["queue"] = "busy";
  const test::ScenarioRun r(path, {{"queues", json::array({json{{"name", "default"}, {"weight", 1}}, json{{"name", "busy"}, {"weight", 3}}})},
                                   {"workload", {{"jobs", jobs}}}});
  const json q = r.summary.at("short_queues");
  REQUIRE(q.size() == 2);
  CHECK(q[0].at("queue") == "busy");
  CHECK(q[0].at("share_neuroncores") == 96.0);
  CHECK(q[0].at("jobs") == 1);
  CHECK(q[0].at("weight_for_smallest") == 0);
  CHECK(q[1].at("queue") == "default");
  CHECK(q[1].at("share_neuroncores") == 32.0);
  CHECK(q[1].at("total_neuroncores") == 128.0);
  CHECK(q[1].at("jobs") == 2);
  CHECK(q[1].at("weight_for_smallest") == 3);
  CHECK(q[1].at("weight_for_largest") == 0);
  CHECK_MESSAGE(contains(r.printed, "Queue share (proportion): queue default (weight 1 of 4 among the queues with jobs) deserves "
                                    "32.0 of the cluster's 128 NeuronCores"),
                r.printed);
  CHECK_MESSAGE(contains(r.printed, "Remedy: weight >= 3 (its smallest job); no weight is enough for its largest (128 NeuronCores)"),
                r.printed);
}
