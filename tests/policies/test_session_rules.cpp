// The tier-combination rules of Volcano's session_plugins.go, exercised with small plugins
// registered for the test: votes, orders, victims.
#include <doctest/doctest.h>

#include <functional>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
// A plugin that registers whatever the test gives it.
struct Probe final : Plugin {
  std::string n;
  std::function<void(Session&)> open;
  std::string_view name() const override { return n; }
  void on_session_open(Session& s) override { open(s); }
};

void probe(const std::string& name, std::function<void(Session&)> open) {
  register_plugin(name, [name, open](const Arguments&) {
    auto p = std::make_unique<Probe>();
    p->n = name;
    p->open = open;
    return p;
  });
}

void vote_plugin(const std::string& name, int vote) {
  probe(name, [vote, name](Session& s) {
    s.add_job_enqueueable_fn([vote, msg = name + " says no"](const JobInfo&, std::string_view& reason) {
      reason = msg;
      return vote;
    });
  });
}

SchedulerConfig tiers(std::vector<std::vector<std::string>> t) {
  SchedulerConfig c;
  for (auto& names : t) {
    Tier tier;
    for (auto& n : names) tier.plugins.push_back(PluginOption{n, {}, {}});
    c.tiers.push_back(tier);
  }
  return c;
}

struct Fixture {
  World w;
  RecordingBackend be;
  std::mt19937_64 rng{1};
  Fixture() {
    w.queue(QueueBuilder("q"));
    w.node(NodeBuilder("n0").trn1_32xlarge());
    w.job(JobBuilder("a", "q").pods(1, Pod().neuron_devices(1)).created(1));
    w.job(JobBuilder("b", "q").pods(1, Pod().neuron_devices(1)).created(2));
  }
};
}  // namespace

TEST_CASE("enqueueable votes: any reject fails; a tier with a permit decides; no decision permits") {
  vote_plugin("t_permit", kPermit);
  vote_plugin("t_reject", kReject);
  vote_plugin("t_abstain", kAbstain);
  vote_plugin("t_permit2", kPermit);
  struct Case {
    const char* name;
    std::vector<std::vector<std::string>> tiers;
    bool ok;
    const char* by;
  };
  const Case cases[] = {
      {"all abstain", {{"t_abstain"}, {"t_abstain"}}, true, ""},
      // A Permit that one plugin alone gave in the deciding tier is credited to it (with its reason).
      {"permit in tier 1 hides a reject in tier 2", {{"t_permit"}, {"t_reject"}}, true, "t_permit"},
      {"two permits in the deciding tier: no single plugin decided", {{"t_permit", "t_permit2"}, {"t_reject"}}, true, ""},
      {"reject in the same tier as a permit fails", {{"t_permit", "t_reject"}}, false, "t_reject"},
      {"abstaining tier passes to a rejecting one", {{"t_abstain"}, {"t_reject", "t_permit"}}, false, "t_reject"},
  };
  for (const auto& c : cases) {
    SUBCASE(c.name) {
      Fixture f;
      auto cfg = tiers(c.tiers);
      Session s(f.w.state, f.be, cfg, f.rng, 1);
      s.open();
      const Verdict st = s.job_enqueueable(f.w["a"]);
      CHECK(st.ok() == c.ok);
      CHECK(st.plugin == c.by);
      s.close();
    }
  }
}

TEST_CASE("orders: the first plugin with a non-zero answer decides; then creation time, then UID") {
  probe("t_order_zero", [](Session& s) { s.add_job_order_fn([](const JobInfo&, const JobInfo&) { return 0; }); });
  probe("t_order_by_name_desc", [](Session& s) {
    s.add_job_order_fn([](const JobInfo& l, const JobInfo& r) { return l.name == r.name ? 0 : (l.name > r.name ? -1 : 1); });
  });
  Fixture f;
  {
    auto cfg = tiers({{"t_order_zero"}});
    Session s(f.w.state, f.be, cfg, f.rng, 1);
    s.open();
    CHECK(s.job_order(f.w["a"], f.w["b"]));  // falls back to creation: a (t=1) before b (t=2)
    CHECK_FALSE(s.job_order(f.w["b"], f.w["a"]));
    s.close();
  }
  {
    auto cfg = tiers({{"t_order_zero"}, {"t_order_by_name_desc"}});
    Session s(f.w.state, f.be, cfg, f.rng, 1);
    s.open();
    CHECK(s.job_order(f.w["b"], f.w["a"]));  // the second tier decides: "b" > "a" goes first
    s.close();
  }
}

TEST_CASE("job and queue order on equal creation times: Volcano's UIDs, the names, not metadata.uid") {
  // framework/session_plugins.go (v1.12.1) JobOrderFn :546-552 and QueueOrderFn :595-601 fall
  // back to CreationTimestamp, then `lv.UID < rv.UID`, a Go string comparison. A job's UID is
  // its PodGroup's "namespace/name" (cache/event_handlers.go getJobID: fmt.Sprintf("%s/%s",
  // pg.Namespace, pg.Name)), a queue's its name (api/queue_info.go NewQueueInfo: UID:
  // QueueID(queue.Name)). So "ns/job-10" goes before "ns/job-9" ('1' < '9', bytewise) and
  // "q-10" before "q-9", whatever their metadata.uid, here in the other order.
  probe("t_order_zero_both", [](Session& s) {
    s.add_job_order_fn([](const JobInfo&, const JobInfo&) { return 0; });
    s.add_queue_order_fn([](const QueueInfo&, const QueueInfo&) { return 0; });
  });
  World w;
  const QueueId q9 = w.queue(QueueBuilder("q-9"));
  const QueueId q10 = w.queue(QueueBuilder("q-10"));
  w.state.queue(q9).uid = 1, w.state.queue(q10).uid = 2;
  w.state.queue(q9).creation = w.state.queue(q10).creation = 5;
  w.job(JobBuilder("ns/job-9", "q-9").pods(1, Pod().cpu(1)).created(7));
  w.job(JobBuilder("ns/job-10", "q-10").pods(1, Pod().cpu(1)).created(7));
  w.state.job(w.jobs.at("ns/job-9")).uid = 1;
  w.state.job(w.jobs.at("ns/job-10")).uid = 2;
  RecordingBackend be;
  std::mt19937_64 rng{1};
  auto cfg = tiers({{"t_order_zero_both"}});
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  const JobInfo& j9 = w["ns/job-9"];
  const JobInfo& j10 = w["ns/job-10"];
  CHECK(s.job_order(j10, j9));
  CHECK_FALSE(s.job_order(j9, j10));
  CHECK_FALSE(s.job_order(j9, j9));
  CHECK(s.queue_order(w.state.queue(q10), w.state.queue(q9)));
  CHECK_FALSE(s.queue_order(w.state.queue(q9), w.state.queue(q10)));
  // Creation time still comes first.
  w.state.queue(q9).creation = 4;
  CHECK(s.queue_order(w.state.queue(q9), w.state.queue(q10)));
  // Equal names (objects built without one): the uid stand-in keeps the order total.
  JobInfo x = j9, y = j9;
  x.uid = 3, y.uid = 4;
  CHECK(s.job_order(x, y));
  CHECK_FALSE(s.job_order(y, x));
  s.close();
}

TEST_CASE("a disabled extension point is not consulted") {
  Fixture f;
  auto cfg = tiers({{"t_reject"}});
  cfg.tiers[0].plugins[0].enabled[static_cast<std::size_t>(Ext::JobEnqueued)] = false;
  Session s(f.w.state, f.be, cfg, f.rng, 1);
  s.open();
  CHECK(s.job_enqueueable(f.w["a"]).ok());
  s.close();
}

TEST_CASE("victims: intersected within a tier, the first tier with victims decides") {
  auto victims = [](const std::string& name, std::vector<TaskId> v, int vote = kPermit) {
    probe(name, [v, vote](Session& s) {
      s.add_preemptable_fn([v, vote](const TaskInfo&, std::span<const TaskId>, std::vector<TaskId>& out) {
        out = v;
        return vote;
      });
    });
  };
  victims("t_v123", {1, 2, 3});
  victims("t_v234", {2, 3, 4});
  victims("t_v9", {9});
  victims("t_vnone", {});
  victims("t_vabstain", {7}, kAbstain);
  Fixture f;
  const TaskInfo preemptor;
  const std::vector<TaskId> all = {1, 2, 3, 4, 9};
  struct Case {
    const char* name;
    std::vector<std::vector<std::string>> tiers;
    std::vector<TaskId> want;
  };
  const Case cases[] = {
      {"intersection", {{"t_v123", "t_v234"}}, {2, 3}},
      {"abstainers are skipped", {{"t_vabstain", "t_v123"}}, {1, 2, 3}},
      {"an empty answer ends the tier; the next tier decides", {{"t_vnone", "t_v123"}, {"t_v9"}}, {9}},
      {"first tier with victims wins", {{"t_v234"}, {"t_v9"}}, {2, 3, 4}},
      // Go's empty slice is nil: an empty intersection lets the next plugin start over.
      {"empty intersection restarts (Volcano quirk)", {{"t_v9", "t_v123", "t_v234"}}, {2, 3, 4}},
  };
  for (const auto& c : cases) {
    SUBCASE(c.name) {
      auto cfg = tiers(c.tiers);
      Session s(f.w.state, f.be, cfg, f.rng, 1);
      s.open();
      CHECK(s.preemptable(preemptor, all) == c.want);
      s.close();
    }
  }
}

TEST_CASE("queue order ties: the pairs the QueueOrderFn fallback ordered are noted, decisions unchanged") {
  // Volcano v1.12.1 framework/session_plugins.go QueueOrderFn: plugins first (proportion:
  // spec.priority, then share), else CreationTimestamp, then UID. One node, two queues of equal
  // weight holding nothing (share 0 each), a job of one 8-device pod in each (within each
  // queue's deserved half of the node's 16 devices): both are placed, the winner's first; the
  // tie is noted once (after the winner's placement its share is the higher).
  auto world = [](TimeNs a_created, std::uint64_t a_uid, TimeNs b_created, std::uint64_t b_uid, int b_priority) {
    World w;
    const QueueId a = w.queue(QueueBuilder("a"));
    const QueueId b = w.queue(QueueBuilder("b").priority(b_priority));
    w.state.queue(a).creation = a_created, w.state.queue(a).uid = a_uid;
    w.state.queue(b).creation = b_created, w.state.queue(b).uid = b_uid;
    w.node(NodeBuilder("n0").trn1_32xlarge());
    w.job(JobBuilder("ja", "a").pods(1, Pod().neuron_devices(8)).inqueue().created(0));
    w.job(JobBuilder("jb", "b").pods(1, Pod().neuron_devices(8)).inqueue().created(0));
    return w;
  };
  SchedulerConfig cfg = volcano_default_config();
  SUBCASE("creation times differ: the Queue created first wins") {
    World w = world(/*a*/ 5, 1, /*b*/ 2, 9, 0);
    RecordingBackend be;
    Scheduler s(cfg, 1);
    s.run_once(w.state, be);
    REQUIRE(be.binds.size() == 2);
    CHECK(be.binds[0].job == w.jobs.at("jb"));
    REQUIRE(s.last_queue_ties().size() == 1);
    CHECK(w.state.queue(s.last_queue_ties()[0].first).name == "b");
    CHECK(w.state.queue(s.last_queue_ties()[0].second).name == "a");
    CHECK_FALSE(s.last_queue_ties()[0].by_uid);
  }
  SUBCASE("equal creation times: the lower UID wins — a queue's UID is its name (queue_info.go NewQueueInfo)") {
    World w = world(0, 7, 0, 3, 0);  // metadata.uid stand-ins in the other order: they do not decide
    RecordingBackend be;
    Scheduler s(cfg, 1);
    s.run_once(w.state, be);
    REQUIRE(be.binds.size() == 2);
    CHECK(be.binds[0].job == w.jobs.at("ja"));
    REQUIRE(s.last_queue_ties().size() == 1);
    CHECK(w.state.queue(s.last_queue_ties()[0].first).name == "a");
    CHECK(s.last_queue_ties()[0].by_uid);
  }
  SUBCASE("a higher spec.priority decides: no tie") {
    World w = world(0, 3, 0, 7, 1);
    RecordingBackend be;
    Scheduler s(cfg, 1);
    s.run_once(w.state, be);
    REQUIRE(be.binds.size() == 2);
    CHECK(be.binds[0].job == w.jobs.at("jb"));
    CHECK(s.last_queue_ties().empty());
  }
}

TEST_CASE("Session::shared: one value-initialised object per type, kept for the session") {
  Fixture f;
  struct Counter {
    int n;
  };
  struct Other {
    std::vector<int> v;
  };
  Session s(f.w.state, f.be, tiers({}), f.rng, 1);
  CHECK(s.shared<Counter>().n == 0);  // value-initialised
  s.shared<Counter>().n = 7;
  CHECK(s.shared<Counter>().n == 7);  // the same object on the next call
  CHECK(&s.shared<Counter>() == &s.shared<Counter>());
  CHECK(s.shared<Other>().v.empty());  // another type, another object
  s.shared<Other>().v.push_back(1);
  CHECK(s.shared<Counter>().n == 7);
  Session next(f.w.state, f.be, tiers({}), f.rng, 2);
  CHECK(next.shared<Counter>().n == 0);  // a new session starts without it
}
