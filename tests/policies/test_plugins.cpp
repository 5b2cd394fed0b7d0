// Built-in plugins on fake snapshots: each expectation is computed by hand from the rule the
// plugin reproduces (the Volcano / Kubernetes source file is named in the plugin).
#include <doctest/doctest.h>

#include "mltwin/policy/proportion.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
SchedulerConfig only(std::vector<std::string> names) { return one_tier(names); }
using Open = OpenSession;
}  // namespace

TEST_CASE("priority: higher priority first, for jobs and tasks") {
  World w;
  w.queue(QueueBuilder("q"));
  w.job(JobBuilder("low", "q").pods(1, Pod().cpu(1)).priority(1).created(0));
  w.job(JobBuilder("high", "q").pods(1, Pod().cpu(1)).priority(10).created(5));
  Open s(w, only({"priority"}));
  CHECK(s->job_order(w["high"], w["low"]));
  CHECK_FALSE(s->job_order(w["low"], w["high"]));
  TaskInfo a, b;
  a.priority = 3;
  b.priority = 2;
  CHECK(s->task_order(a, b));
}

TEST_CASE("gang: valid with minAvailable valid tasks; ready only at minAvailable allocated") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  w.node(NodeBuilder("n1").trn1_32xlarge());
  const JobId j = w.job(JobBuilder("g", "q").pods(2, Pod().neuron_devices(16)).inqueue());
  Open s(w, only({"gang"}));
  CHECK(s->job_valid(w["g"]).pass);
  CHECK_FALSE(s->job_ready(w["g"]));
  Statement st(*s.s);
  st.allocate(w.state.job(j).tasks[0], w.nodes["n0"]);
  CHECK_FALSE(s->job_ready(w["g"]));  // 1 of 2
  st.allocate(w.state.job(j).tasks[1], w.nodes["n1"]);
  CHECK(s->job_ready(w["g"]));        // 2 of 2
  st.discard();
  CHECK_FALSE(s->job_ready(w["g"]));
}

TEST_CASE("gang: a job with fewer pods than minAvailable is invalid") {
  World w;
  w.queue(QueueBuilder("q"));
  w.job(JobBuilder("short", "q").pods(2, Pod().cpu(1)).min_available(3).inqueue());
  Open s(w, only({"gang"}));
  const ValidateResult r = s->job_valid(w["short"]);
  CHECK_FALSE(r.pass);
  CHECK(r.message == "Not enough valid tasks for gang-scheduling, valid: 2, min: 3");
}

TEST_CASE("drf: lower dominant share first") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n0").cpu(100).memory_gib(100));
  // "big" holds 10 cores of 100 (share 0.1) and 40 GiB of 100 (0.4): dominant share 0.4.
  w.job(JobBuilder("big", "q").pods(1, Pod().cpu(10).memory_gib(40)).running_on({"n0"}).created(0));
  // "small" holds 30 cores (0.3) and 1 GiB (0.01): dominant share 0.3 -> goes first.
  w.job(JobBuilder("small", "q").pods(1, Pod().cpu(30).memory_gib(1)).running_on({"n0"}).created(1));
  Open s(w, only({"drf"}));
  CHECK(s->job_order(w["small"], w["big"]));
  CHECK_FALSE(s->job_order(w["big"], w["small"]));
}

TEST_CASE("nodeorder: least-requested and balanced scores computed by hand") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId empty = w.node(NodeBuilder("empty").trn1_32xlarge());
  const NodeId busy = w.node(NodeBuilder("busy").trn1_32xlarge());
  w.job(JobBuilder("occupant", "q").pods(1, Pod().cpu(64).memory_gib(128)).running_on({"busy"}));
  Open s(w, only({"nodeorder"}));
  TaskInfo t;
  t.resreq = Pod().cpu(8).memory_gib(32).resource();
  // empty: cpu (128-8)/128*100 = 93.75 -> 93, memory (512-32)/512*100 = 93.75 -> 93;
  //        least = (93*50 + 93*50)/100 = 93; balanced: both fractions 0.0625 -> 100.
  CHECK(s->node_score(t, w.state.node(empty)) == 193.0);
  // busy: cpu 72/128 -> (56*100)/128 = 43.75 -> 43; memory 160/512 -> 352*100/512 = 68.75 -> 68;
  //       least = (43*50 + 68*50)/100 = 55; balanced: |0.5625-0.3125|/2 = 0.125 -> 87.
  CHECK(s->node_score(t, w.state.node(busy)) == 142.0);
}

TEST_CASE("predicates: cordoned nodes and node selectors, with Kubernetes' messages") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId cordoned = w.node(NodeBuilder("c").trn1_32xlarge().unschedulable());
  const NodeId east = w.node(NodeBuilder("e").trn1_32xlarge().label("topology.kubernetes.io/zone", "us-east-1a"));
  Open s(w, only({"predicates"}));
  TaskInfo t;
  CHECK(s->predicate(t, w.state.node(cordoned)).reason == "node(s) were unschedulable");
  CHECK(s->predicate(t, w.state.node(east)).ok());
  t.node_selector = {{"topology.kubernetes.io/zone", "us-east-1b"}};
  const Status st = s->predicate(t, w.state.node(east));
  CHECK(st.code == Code::UnschedulableAndUnresolvable);
  CHECK(st.plugin == "predicates");
  CHECK(st.reason == "node(s) didn't match Pod's node affinity/selector");
}

TEST_CASE("overcommit: inqueue plus the job within total x 1.2 minus used") {
  World w;
  w.queue(QueueBuilder("q"));
  for (int i = 0; i < 2; ++i) w.node(NodeBuilder("n" + std::to_string(i)).trn1_32xlarge());
  // 2 nodes = 32 devices; x 1.2 = 38.4 devices of room for Inqueue PodGroups.
  w.job(JobBuilder("in", "q").pods(2, Pod().neuron_devices(16)).inqueue());  // 32 inqueue
  w.job(JobBuilder("six", "q").pods(1, Pod().neuron_devices(6)));             // 32+6 = 38 <= 38.4
  w.job(JobBuilder("seven", "q").pods(1, Pod().neuron_devices(7)));           // 39 > 38.4
  Open s(w, only({"overcommit"}));
  CHECK(s->job_enqueueable(w["six"]).ok());
  const Verdict no = s->job_enqueueable(w["seven"]);
  CHECK_FALSE(no.ok());
  CHECK(no.plugin == "overcommit");
  CHECK(no.reason == "resource in cluster is overused");
  // After "six" is enqueued (JobEnqueued adds it), even 1 device no longer fits: 38+1 > 38.4.
  s->job_enqueued(w["six"]);
  w.job(JobBuilder("one", "q").pods(1, Pod().neuron_devices(1)));
  CHECK_FALSE(s->job_enqueueable(w["one"]).ok());
}

TEST_CASE("overcommit-factor argument; values below 1.0 fall back to 1.2") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  w.job(JobBuilder("eighteen", "q").pods(1, Pod().neuron_devices(18)));  // 18 > 16, <= 19.2
  SUBCASE("factor 1.0 rejects") {
    auto cfg = only({"overcommit"});
    cfg.tiers[0].plugins[0].arguments.set("overcommit-factor", "1.0");
    Open s(w, cfg);
    CHECK_FALSE(s->job_enqueueable(w["eighteen"]).ok());
  }
  SUBCASE("factor 0.5 is replaced by the default 1.2, which permits") {
    auto cfg = only({"overcommit"});
    cfg.tiers[0].plugins[0].arguments.set("overcommit-factor", "0.5");
    Open s(w, cfg);
    CHECK(s->job_enqueueable(w["eighteen"]).ok());
  }
}

TEST_CASE("proportion: deserved by water-filling, against a hand calculation") {
  // 100 NeuronCores; weights 1, 2, 1; requests 10, 80, 50 cores.
  // Round 1 (total weight 4): q1 +25 -> capped at its request 10 (met); q2 +50 -> 50; q3 +25.
  //   remaining = 100 - (10 + 50 + 25) = 15.
  // Round 2 (total weight 3): q2 + 15*2/3 = 10 -> 60; q3 + 5 -> 30; remaining 0 -> stop.
  const Resource total = Resource{}.with(rn::kNeuronCore, 100);
  std::vector<QueueAttr> a(3);
  const int weights[] = {1, 2, 1};
  const double requests[] = {10, 80, 50};
  for (int i = 0; i < 3; ++i) {
    a[i].present = true;
    a[i].weight = weights[i];
    a[i].request = Resource{}.with(rn::kNeuronCore, requests[i]);
    a[i].real_capability = total;
  }
  proportion_water_fill(total, a);
  CHECK(a[0].deserved.get(rn::kNeuronCore) == doctest::Approx(10000));
  CHECK(a[1].deserved.get(rn::kNeuronCore) == doctest::Approx(60000));
  CHECK(a[2].deserved.get(rn::kNeuronCore) == doctest::Approx(30000));
}

TEST_CASE("proportion: capability caps deserved and the rest flows to the others") {
  // 64 cores, equal weights, both ask for 64; q1 capped at 16 by capability.
  // Round 1: each +32 -> q1 min(32, 16) = 16 (deserved stops moving next round), q2 32;
  //   remaining = 64 - 48 = 16. Round 2: q1 +8 -> capped 16 (unchanged: met), q2 +8 -> 40;
  //   remaining = 16 - 8 = 8. Round 3: only q2 (weight 1): +8 -> 48; remaining 0.
  const Resource total = Resource{}.with(rn::kNeuronCore, 64);
  std::vector<QueueAttr> a(2);
  for (auto& x : a) {
    x.present = true;
    x.weight = 1;
    x.request = Resource{}.with(rn::kNeuronCore, 64);
    x.real_capability = total;
  }
  a[0].real_capability = Resource{}.with(rn::kNeuronCore, 16);
  proportion_water_fill(total, a);
  CHECK(a[0].deserved.get(rn::kNeuronCore) == doctest::Approx(16000));
  CHECK(a[1].deserved.get(rn::kNeuronCore) == doctest::Approx(48000));
}

TEST_CASE("proportion: each session's deserved and shares are its own state's, whatever came before") {
  // The plugin remembers its last water-filling (what it read and what it found) across
  // sessions. Three states on 2 trn1.32xlarge (32 devices), queues a and b of equal weight:
  // - one: a runs a 16-device pod, b waits with one. Requests 16 and 16: deserved 16 each
  //   (each capped at its request), a is overused (allocated 16 >= deserved 16), b is not;
  //   shares a 16/16 = 1, b 0: b goes first.
  // - two: a runs one and waits with another, b has no job (so takes no part): a alone
  //   (weight 1 of 1) deserves its request 32, the whole cluster; allocated 16 < 32: a is not
  //   overused.
  // - three: the mirror of one (b runs, a waits): the same requests as one, another allocation:
  //   a not overused, b overused; shares a 0, b 1: a goes first.
  auto world = [](bool a_runs, bool a_waits_twice, bool b_has_job) {
    auto w = std::make_unique<World>();
    w->queue(QueueBuilder("a"));
    w->queue(QueueBuilder("b"));
    w->node(NodeBuilder("n0").trn1_32xlarge());
    w->node(NodeBuilder("n1").trn1_32xlarge());
    if (a_runs) w->job(JobBuilder("a-run", "a").pods(1, Pod().neuron_devices(16)).running_on({"n0"}));
    else w->job(JobBuilder("a-wait", "a").pods(1, Pod().neuron_devices(16)).inqueue());
    if (a_waits_twice) w->job(JobBuilder("a-wait-2", "a").pods(1, Pod().neuron_devices(16)).inqueue());
    if (b_has_job) {
      if (a_runs) w->job(JobBuilder("b-wait", "b").pods(1, Pod().neuron_devices(16)).inqueue());
      else w->job(JobBuilder("b-run", "b").pods(1, Pod().neuron_devices(16)).running_on({"n1"}));
    }
    return w;
  };
  const auto one = world(true, false, true), two = world(true, true, false), three = world(false, false, true);
  auto a = [](World& w) -> const QueueInfo& { return w.state.queue(w.queues["a"]); };
  auto b = [](World& w) -> const QueueInfo& { return w.state.queue(w.queues["b"]); };
  for (int round = 0; round < 2; ++round) {
    {
      Open s(*one, only({"proportion"}));
      CHECK(s->overused(a(*one)));
      CHECK_FALSE(s->overused(b(*one)));
      CHECK(s->queue_order(b(*one), a(*one)));
    }
    {
      Open s(*two, only({"proportion"}));
      CHECK_FALSE(s->overused(a(*two)));
    }
    {
      Open s(*three, only({"proportion"}));
      CHECK_FALSE(s->overused(a(*three)));
      CHECK(s->overused(b(*three)));
      CHECK(s->queue_order(a(*three), b(*three)));
    }
    {
      // Right after `three`, whose requests are the same: the memo's deserved, one's allocation.
      Open s(*one, only({"proportion"}));
      CHECK(s->overused(a(*one)));
      CHECK(s->queue_order(b(*one), a(*one)));
    }
  }
}

TEST_CASE("proportion: overused when allocated reaches deserved; enqueue against capability") {
  World w;
  w.queue(QueueBuilder("a"));
  w.queue(QueueBuilder("capped").capability(Pod().neuron_devices(32)));
  for (int i = 0; i < 4; ++i) w.node(NodeBuilder("n" + std::to_string(i)).trn1_32xlarge());
  // Queue "a" runs one 16-device pod and asks for nothing more: deserved = request = 16 devices.
  w.job(JobBuilder("runner", "a").pods(1, Pod().neuron_devices(16)).running_on({"n0"}));
  w.job(JobBuilder("c1", "capped").pods(1, Pod().neuron_devices(16)));
  w.job(JobBuilder("c2", "capped").pods(1, Pod().neuron_devices(16)));
  w.job(JobBuilder("c3", "capped").pods(1, Pod().neuron_devices(16)));
  Open s(w, only({"proportion"}));
  CHECK(s->overused(w.state.queue(w.queues["a"])));
  // Capability 32 devices: two 16-device jobs enqueue, the third does not.
  CHECK(s->job_enqueueable(w["c1"]).ok());
  CHECK(s->job_enqueueable(w["c2"]).ok());
  const Verdict third = s->job_enqueueable(w["c3"]);
  CHECK_FALSE(third.ok());
  CHECK(third.plugin == "proportion");
}
