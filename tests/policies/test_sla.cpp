// The sla plugin (Volcano v1.12.1 pkg/scheduler/plugins/sla/sla.go) and Go's duration syntax
// it reads. Expected values follow from the Go and Volcano rules stated in each case, by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
constexpr std::int64_t kS = 1'000'000'000;

// A plugin that rejects every job at enqueue (stands for overcommit in a later tier).
struct RejectAll final : Plugin {
  std::string_view name() const override { return "t_sla_reject"; }
  void on_session_open(Session& s) override {
    s.add_job_enqueueable_fn([](const JobInfo&, std::string_view& reason) {
      reason = "no room";
      return kReject;
    });
  }
};

PluginOption option(const std::string& name, const std::string& sla_waiting_time = "") {
  PluginOption o{name, {}, {}};
  if (!sla_waiting_time.empty()) o.arguments.set("sla-waiting-time", sla_waiting_time);
  return o;
}

SchedulerConfig config(std::vector<std::vector<PluginOption>> tiers, std::vector<std::string> actions = {}) {
  SchedulerConfig c;
  c.actions = std::move(actions);
  for (auto& t : tiers) c.tiers.push_back(Tier{std::move(t)});
  return c;
}

std::string parse_error(const std::string& text) {
  try {
    (void)parse_go_duration(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}
}  // namespace

TEST_CASE("Go durations: time.ParseDuration's syntax, values and messages") {
  // Values: 1h = 3600 s; fractions are scaled by the unit (1.5h = 5400 s, .5s = 500 ms).
  CHECK(parse_go_duration("0") == 0);
  CHECK(parse_go_duration("-0") == 0);
  CHECK(parse_go_duration("30s") == 30 * kS);
  CHECK(parse_go_duration("10m") == 600 * kS);
  CHECK(parse_go_duration("1.5h") == 5400 * kS);
  CHECK(parse_go_duration(".5s") == kS / 2);
  CHECK(parse_go_duration("5.s") == 5 * kS);
  CHECK(parse_go_duration("+5s") == 5 * kS);
  CHECK(parse_go_duration("-2s") == -2 * kS);
  CHECK(parse_go_duration("300ms") == 300'000'000);
  CHECK(parse_go_duration("7ns") == 7);
  // The example in sla.go's comment: 1 h 2 min 3 s 4 ms 5 µs 6 ns, with each micro spelling.
  const std::int64_t example = 3723 * kS + 4'000'000 + 5'000 + 6;
  CHECK(parse_go_duration("1h2m3s4ms5us6ns") == example);
  CHECK(parse_go_duration("1h2m3s4ms5\xC2\xB5s6ns") == example);  // U+00B5
  CHECK(parse_go_duration("1h2m3s4ms5\xCE\xBCs6ns") == example);  // U+03BC
  // Limits: 2^63 - 1 ns is the largest; -2^63 is allowed; beyond is an overflow.
  CHECK(parse_go_duration("9223372036854775807ns") == INT64_MAX);
  CHECK(parse_go_duration("-9223372036854775808ns") == INT64_MIN);
  CHECK(parse_go_duration("2562047h47m16.854775807s") == INT64_MAX);
  // A fraction longer than 2^63 stops gaining precision instead of failing.
  CHECK(parse_go_duration("1.00000000000000000000000001s") == kS);

  // Errors, worded as Go words them.
  CHECK(parse_error("") == "time: invalid duration \"\"");
  CHECK(parse_error("abc") == "time: invalid duration \"abc\"");
  CHECK(parse_error("3600") == "time: missing unit in duration \"3600\"");
  CHECK(parse_error("1d") == "time: unknown unit \"d\" in duration \"1d\"");
  CHECK(parse_error("1 h") == "time: unknown unit \" h\" in duration \"1 h\"");
  CHECK(parse_error("1..5s") == "time: missing unit in duration \"1..5s\"");
  CHECK(parse_error(".s") == "time: invalid duration \".s\"");
  CHECK(parse_error("-") == "time: invalid duration \"-\"");
  CHECK(parse_error("9223372036854775808ns") == "time: invalid duration \"9223372036854775808ns\"");
  CHECK(parse_error("5\xC2\xB5x") == "time: unknown unit \"\\xc2\\xb5x\" in duration \"5\\xc2\\xb5x\"");
}

TEST_CASE("Go durations: Duration.String()") {
  CHECK(format_go_duration(0) == "0s");
  CHECK(format_go_duration(42) == "42ns");
  CHECK(format_go_duration(1500) == "1.5\xC2\xB5s");
  CHECK(format_go_duration(250'000'000) == "250ms");
  CHECK(format_go_duration(35 * kS) == "35s");
  CHECK(format_go_duration(60 * kS) == "1m0s");
  CHECK(format_go_duration(600 * kS) == "10m0s");
  CHECK(format_go_duration(5400 * kS) == "1h30m0s");
  CHECK(format_go_duration(1'234'567'890) == "1.23456789s");
  CHECK(format_go_duration(-2 * kS) == "-2s");
  CHECK(format_go_duration(3723 * kS + 4'000'000 + 5'000 + 6) == "1h2m3.004005006s");
  CHECK(format_go_duration(INT64_MIN) == "-2562047h47m16.854775808s");
}

TEST_CASE("sla: bad values are errors that name the argument; an unknown key is a warning") {
  auto err = [](const Arguments& a) {
    SchedulerConfig c;
    c.tiers.push_back(Tier{{PluginOption{"sla", {}, a}}});
    return c.validate();
  };
  Arguments unknown;
  unknown.set("sla-waiting-tme", "1h");
  // Volcano reads only sla-waiting-time (sla.go:90) and ignores other keys: a warning, not an error.
  CHECK(err(unknown).empty());
  {
    SchedulerConfig c;
    c.tiers.push_back(Tier{{PluginOption{"sla", {}, unknown}}});
    const auto issues = c.check_arguments();
    REQUIRE(issues.size() == 1);
    CHECK(issues[0].severity == ArgIssue::Severity::Warning);
    CHECK(issues[0].where == "tiers[0].plugins[0].arguments.sla-waiting-tme");
    CHECK(issues[0].message == "plugin 'sla' reads no argument 'sla-waiting-tme': Volcano ignores it; did you mean 'sla-waiting-time'? (it reads sla-waiting-time)");
  }
  Arguments days;
  days.set("sla-waiting-time", "1d");
  CHECK(err(days) == "tiers[0].plugins[0].arguments.sla-waiting-time: time: unknown unit \"d\" in duration \"1d\" "
                     "(expected a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h) (pkg/scheduler/plugins/sla/sla.go:35 JobWaitingTime)");
  Arguments number;  // a YAML or JSON number arrives as its text; Go's parser wants a unit
  number.set("sla-waiting-time", "3600");
  CHECK(err(number).find("time: missing unit in duration \"3600\"") != std::string::npos);
  for (const char* bad : {"0", "0s", "-5m"}) {
    Arguments a;
    a.set("sla-waiting-time", bad);
    CHECK_MESSAGE(err(a).find("is not positive") != std::string::npos, bad);
  }
  Arguments ok;
  ok.set("sla-waiting-time", "1h2m3s4ms5us6ns");
  CHECK(err(ok).empty());
  CHECK(err(Arguments{}).empty());
}

TEST_CASE("sla: job order by deadline (creation + waiting time), jobs with one first") {
  // Volcano's sla_test.go "sla normal placement": job1 has no annotation (global 3m), job2 one
  // of 1h, both created at 0: job1's deadline (3 min) comes first. "none placement": without a
  // global value job1 has none and goes after job2.
  World w;
  w.queue(QueueBuilder("q"));
  const JobId j1 = w.job(JobBuilder("job1", "q").pods(3, Pod().cpu(1)).created(0));
  const JobId j2 = w.job(JobBuilder("job2", "q").pods(2, Pod().cpu(1)).created(0));
  w.state.job(j2).sla_waiting_time = 3600 * kS;
  {
    OpenSession s(w, config({{option("sla", "3m")}}));
    CHECK(s->job_order(w.state.job(j1), w.state.job(j2)));
    CHECK_FALSE(s->job_order(w.state.job(j2), w.state.job(j1)));
  }
  {
    OpenSession s(w, config({{option("sla")}}));
    CHECK_FALSE(s->job_order(w.state.job(j1), w.state.job(j2)));
    CHECK(s->job_order(w.state.job(j2), w.state.job(j1)));
  }
  {
    // Equal deadlines: sla has no opinion; creation time, then UID decide — the PodGroup's
    // namespace/name (event_handlers.go getJobID): "job1" < "job2".
    w.state.job(j1).sla_waiting_time = 3600 * kS;
    OpenSession s(w, config({{option("sla")}}));
    CHECK(s->job_order(w.state.job(j1), w.state.job(j2)));
  }
}

TEST_CASE("sla: enqueue Permit from the job's deadline on, over a later tier's Reject; a wake-up at the next deadline") {
  register_plugin("t_sla_reject", [](const Arguments&) { return std::make_unique<RejectAll>(); });
  World w;
  w.queue(QueueBuilder("q"));
  // Created at 100 s with the global 10m: deadline 700 s. "annotated" has its own 5m: 400 s.
  // "none" has no waiting time once the plugin has no global one.
  const JobId a = w.job(JobBuilder("a", "q").pods(1, Pod().cpu(1)).created(100 * kS));
  const JobId annotated = w.job(JobBuilder("annotated", "q").pods(1, Pod().cpu(1)).created(100 * kS));
  w.state.job(annotated).sla_waiting_time = 300 * kS;
  const auto cfg = config({{option("sla", "10m")}, {option("t_sla_reject")}});
  struct At {
    std::int64_t now_s;
    bool a_ok, annotated_ok;
    std::int64_t wakeup_s;  // the earliest deadline after now; -1: none
  };
  // time.Since(creation) < waiting time -> Abstain (then the Reject of tier 2 decides);
  // from the deadline on (>=) -> Permit, which decides in tier 1.
  for (const At& c : {At{399, false, false, 400}, At{400, false, true, 700}, At{699, false, true, 700},
                      At{700, true, true, -1}}) {
    CAPTURE(c.now_s);
    w.state.set_now(c.now_s * kS);
    OpenSession s(w, cfg);
    const Verdict va = s->job_enqueueable(w.state.job(a));
    const Verdict vn = s->job_enqueueable(w.state.job(annotated));
    CHECK(va.ok() == c.a_ok);
    CHECK(vn.ok() == c.annotated_ok);
    CHECK(va.plugin == (c.a_ok ? "sla" : "t_sla_reject"));
    if (c.annotated_ok)
      CHECK(vn.reason == "waited its sla-waiting-time (5m0s) since the PodGroup's creation: Inqueue whatever the plugins "
                         "of later tiers vote");
    CHECK(s->wakeup() == (c.wakeup_s < 0 ? INT64_MAX : c.wakeup_s * kS));
  }
  // In the same tier as the rejecting plugin, the Reject wins whatever sla says.
  w.state.set_now(1000 * kS);
  OpenSession same(w, config({{option("sla", "10m"), option("t_sla_reject")}}));
  CHECK_FALSE(same->job_enqueueable(w.state.job(a)).ok());
}

namespace {
// Two trn1.32xlarge nodes. "small-0" runs on n0. "big" (2 whole-node pods, priority 10,
// created at 0, waiting time 10m) and "small-1" (1 whole-node pod, created at 50 s) are Inqueue
// with their pods, with no enqueue action: n1 is the only idle node.
struct SkipAndContinue {
  World w;
  JobId big, small1;
  SkipAndContinue() {
    w.queue(QueueBuilder("q"));
    w.node(NodeBuilder("n0").trn1_32xlarge());
    w.node(NodeBuilder("n1").trn1_32xlarge());
    const Pod whole = Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8);
    w.job(JobBuilder("small-0", "q").pods(1, whole).running_on({"n0"}).created(0));
    big = w.job(JobBuilder("big", "q").pods(2, whole).priority(10).inqueue().created(0));
    w.state.job(big).sla_waiting_time = 600 * kS;
    small1 = w.job(JobBuilder("small-1", "q").pods(1, whole).inqueue().created(50 * kS));
  }
};
const PluginOption kPriority{"priority", {}, {}}, kGang{"gang", {}, {}}, kConformance{"conformance", {}, {}},
    kPredicates{"predicates", {}, {}}, kNodeorder{"nodeorder", {}, {}};
}  // namespace

TEST_CASE("sla: its effect on allocate depends on its tier, as in Volcano") {
  // allocate: big goes first (priority 10). Its first pod fits n1, the second fits nowhere:
  // not ready. JobPipelined votes decide whether the statement is discarded (n1 free again for
  // small-1, which binds: skip and continue) or kept until the session closes (n1 held: small-1
  // finds no node). gang votes Reject for an incomplete gang (gang.go pipelinedFn), so sla's
  // Permit counts only from a tier before gang's. At t = 600 s big has waited its 10 minutes.
  struct Case {
    const char* name;
    std::vector<std::vector<PluginOption>> tiers;
    std::int64_t now_s;
    int small1_binds;
    const char* big_plugin;  // who says why big waits
  };
  const PluginOption sla{"sla", {}, {}};
  const Case cases[] = {
      {"no sla: big is skipped, small-1 takes n1", {{kPriority, kGang, kConformance}, {kPredicates, kNodeorder}}, 600, 1, "gang"},
      {"sla in gang's tier (the documented placement): gang's Reject voids the hold",
       {{kPriority, kGang, kConformance, sla}, {kPredicates, kNodeorder}}, 600, 1, "gang"},
      {"sla in a tier before gang's, before the deadline: abstains, gang's Reject decides",
       {{sla}, {kPriority, kGang, kConformance}, {kPredicates, kNodeorder}}, 599, 1, "gang"},
      {"sla in a tier before gang's, past the deadline: big holds n1, small-1 waits",
       {{sla}, {kPriority, kGang, kConformance}, {kPredicates, kNodeorder}}, 600, 0, "sla"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      SkipAndContinue f;
      f.w.state.set_now(c.now_s * kS);
      RecordingBackend be;
      be.world = &f.w;
      Scheduler s(config(c.tiers, {"allocate"}), 3);
      s.run_once(f.w.state, be);
      CHECK(be.binds_of(f.big) == 0);
      CHECK(be.binds_of(f.small1) == c.small1_binds);
      CHECK(s.job_condition(f.big).plugin == c.big_plugin);
      if (std::string(c.big_plugin) == "sla")
        CHECK(s.job_condition(f.big).reason ==
              "waited its sla-waiting-time (10m0s) since the PodGroup's creation: allocate holds the idle resources found "
              "for its pods (pipelined) while its gang is incomplete");
      // The hold lasts one session: nothing stays reserved in the state afterwards.
      CHECK(f.w.state.node(f.w.nodes.at("n1")).pipelined.is_empty());
      CHECK(f.w.state.check_invariants().empty());
    }
  }
}
