// Actions as declarative cases: nodes, queues, jobs and the configuration in; binds, pipelined
// tasks, phases and reasons out. Expectations follow from the rules by hand.
#include <doctest/doctest.h>

#include <thread>
#include <utility>
#include <vector>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
Pod full_node() { return Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8); }

World four_nodes() {
  World w;
  w.queue(QueueBuilder("default"));
  for (int i = 0; i < 4; ++i) w.node(NodeBuilder(std::string("n") + std::to_string(i)).trn1_32xlarge());
  return w;
}
}  // namespace

TEST_CASE("two 4-node gangs submitted together on 4 nodes: exactly one runs, the other binds nothing") {
  SUBCASE("both already Inqueue: allocate is all-or-nothing") {
    World w = four_nodes();
    const JobId a = w.job(JobBuilder("a", "default").pods(4, full_node()).inqueue().created(0));
    const JobId b = w.job(JobBuilder("b", "default").pods(4, full_node()).inqueue().created(0));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 42);
    settle(w, be, s);
    CHECK(be.binds_of(a) + be.binds_of(b) == 4);
    CHECK((be.binds_of(a) == 0 || be.binds_of(b) == 0));
    // Every node holds exactly one pod of the winner.
    for (const auto& n : w.state.nodes()) CHECK(n.task_count == 1);
    CHECK(w.state.check_invariants().empty());
  }
  SUBCASE("both Pending: enqueue admits one (overcommit 1.2 x 4 nodes < 8 nodes)") {
    World w = four_nodes();
    const JobId a = w.job(JobBuilder("a", "default").pods(4, full_node()).created(0));
    const JobId b = w.job(JobBuilder("b", "default").pods(4, full_node()).created(1));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 42);
    settle(w, be, s);
    CHECK(be.binds_of(a) == 4);  // created first
    CHECK(be.binds_of(b) == 0);
    CHECK(w.state.job(a).phase == PodGroupPhase::Running);
    CHECK(w.state.job(b).phase == PodGroupPhase::Pending);
    CHECK(s.job_condition(b).plugin == "overcommit");
  }
}

TEST_CASE("a gang that fits only partly binds nothing and leaves the free node idle") {
  World w = four_nodes();
  const JobId a = w.job(JobBuilder("a", "default").pods(3, full_node()).inqueue().created(0));
  const JobId b = w.job(JobBuilder("b", "default").pods(4, full_node()).inqueue().created(1));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  CHECK(be.binds_of(a) == 3);
  CHECK(be.binds_of(b) == 0);
  int idle_nodes = 0;
  for (const auto& n : w.state.nodes()) idle_nodes += n.task_count == 0;
  CHECK(idle_nodes == 1);
  // The queue deserves the whole cluster (its request, 7 nodes, exceeds 4); with a's 3 pods and
  // b's first, b's second pod would take the queue past 4 nodes of NeuronCores: proportion's
  // Allocatable check (which allocate consults before any node) refuses it.
  const Status& why = s.job_condition(b);
  CHECK(why.plugin == "proportion");
  CHECK(why.reason.find("within its deserved share") != std::string::npos);
}

TEST_CASE("a queue with a capability of 32 Neuron devices and three 16-device jobs: 2 run, 1 pending") {
  World w;
  w.queue(QueueBuilder("capped").capability(Pod().neuron_devices(32)));
  for (int i = 0; i < 4; ++i) w.node(NodeBuilder(std::string("n") + std::to_string(i)).trn1_32xlarge());
  std::vector<JobId> jobs;
  for (int i = 0; i < 3; ++i)
    jobs.push_back(w.job(JobBuilder(std::string("j") + std::to_string(i), "capped").pods(1, Pod().neuron_devices(16)).created(i)));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 3);
  settle(w, be, s);
  CHECK(be.binds_of(jobs[0]) == 1);
  CHECK(be.binds_of(jobs[1]) == 1);
  CHECK(be.binds_of(jobs[2]) == 0);
  CHECK(w.state.job(jobs[2]).phase == PodGroupPhase::Pending);
  CHECK(s.job_condition(jobs[2]).plugin == "proportion");
  CHECK(s.job_condition(jobs[2]).reason.find("queue resource quota insufficient") == 0);
}

TEST_CASE("a discarded statement restores the state exactly") {
  World w = four_nodes();
  w.job(JobBuilder("running", "default").pods(2, Pod().cpu(10).memory_gib(10).neuron_devices(4)).running_on({"n0", "n1"}));
  const JobId j = w.job(JobBuilder("new", "default").pods(3, Pod().cpu(8).memory_gib(32).neuron_devices(2)).inqueue());
  const ClusterState before = w.state;
  RecordingBackend be;
  std::mt19937_64 rng(1);
  const SchedulerConfig cfg = volcano_default_config();
  Session ssn(w.state, be, cfg, rng, 1);
  ssn.open();
  {
    Statement st(ssn);
    const auto& tasks = w.state.job(j).tasks;
    st.allocate(tasks[0], w.nodes["n2"]);
    st.pipeline(tasks[1], w.nodes["n0"]);
    st.evict(w["running"].tasks[1], "preempt");
    CHECK(w.state.task(tasks[0]).status == TaskStatus::Allocated);
    CHECK(w.state.node(w.nodes["n0"]).pipelined.get(rn::kNeuronDevice) == 2000);
    CHECK(w.state.node(w.nodes["n1"]).releasing.get(rn::kNeuronDevice) == 4000);
    st.discard();
  }
  ssn.close();
  REQUIRE(w.state.nodes().size() == before.nodes().size());
  // The same amounts of every resource. A resource a node or job held none of before may now be
  // present at 0, as in Volcano's maps after Add then Sub.
  auto same = [](const Resource& a, const Resource& b) {
    bool ok = a.milli_cpu == b.milli_cpu && a.memory == b.memory;
    for (const auto& e : a.scalars) ok = ok && e.value == b.get(e.name);
    for (const auto& e : b.scalars) ok = ok && e.value == a.get(e.name);
    return ok;
  };
  for (std::size_t i = 0; i < before.nodes().size(); ++i) {
    const NodeInfo &x = before.nodes()[i], &y = w.state.nodes()[i];
    CHECK(same(x.idle, y.idle));
    CHECK(same(x.used, y.used));
    CHECK(same(x.pipelined, y.pipelined));
    CHECK(same(x.releasing, y.releasing));
    CHECK(x.task_count == y.task_count);
  }
  for (std::size_t i = 0; i < before.tasks().size(); ++i) {
    CHECK(before.tasks()[i].status == w.state.tasks()[i].status);
    CHECK(before.tasks()[i].node == w.state.tasks()[i].node);
  }
  for (std::size_t i = 0; i < before.jobs().size(); ++i) {
    CHECK(before.jobs()[i].status_count == w.state.jobs()[i].status_count);
    CHECK(same(before.jobs()[i].allocated, w.state.jobs()[i].allocated));
    CHECK(same(before.jobs()[i].pipelined, w.state.jobs()[i].pipelined));
    CHECK(before.jobs()[i].phase == w.state.jobs()[i].phase);
  }
  CHECK(be.binds.empty());
  CHECK(be.evictions.empty());
  CHECK(w.state.check_invariants().empty());
}

TEST_CASE("pipelined: a gang that fits only on releasing resources binds nothing and is undone at close") {
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId old = w.job(JobBuilder("old", "default").pods(1, full_node()).running_on({"n0"}));
  // The old pod is being deleted: its resources are releasing.
  w.state.set_task_status(w.state.job(old).tasks[0], TaskStatus::Releasing);
  const JobId j = w.job(JobBuilder("next", "default").pods(1, full_node()).inqueue());
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  be.world = &w;
  s.run_once(w.state, be);
  CHECK(s.stats().totals.pipelined == 1);
  CHECK(be.binds_of(j) == 0);
  // After the session the pipelined reservation is gone, as in Volcano's next snapshot.
  CHECK(w.state.task(w.state.job(j).tasks[0]).status == TaskStatus::Pending);
  CHECK(w.state.node(0).pipelined.is_empty());
}

TEST_CASE("higher-priority job is placed first when only one fits") {
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId lo = w.job(JobBuilder("lo", "default").pods(1, full_node()).inqueue().created(0).priority(1));
  const JobId hi = w.job(JobBuilder("hi", "default").pods(1, full_node()).inqueue().created(9).priority(100));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  CHECK(be.binds_of(hi) == 1);
  CHECK(be.binds_of(lo) == 0);
}

TEST_CASE("backfill places BestEffort pods even on a full cluster; allocate does not") {
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  w.job(JobBuilder("full", "default").pods(1, full_node()).running_on({"n0"}));
  const JobId be_job = w.job(JobBuilder("besteffort", "default").pods(2, Pod()).inqueue());
  RecordingBackend be;
  SUBCASE("default actions") {
    Scheduler s(volcano_default_config(), 1);
    settle(w, be, s);
    CHECK(be.binds_of(be_job) == 2);
  }
  SUBCASE("without backfill") {
    auto cfg = volcano_default_config();
    cfg.actions = {"enqueue", "allocate"};
    Scheduler s(cfg, 1);
    settle(w, be, s);
    CHECK(be.binds_of(be_job) == 0);
  }
}

TEST_CASE("backfill unpipelines a pipelined BestEffort pod and places it; close leaves the bind") {
  // Volcano backfill.go:143-158: pickUpPendingTasks takes the Pipelined BestEffort tasks too,
  // through Statement.UnPipeline.
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j = w.job(JobBuilder("besteffort", "default").pods(1, Pod()).inqueue());
  const TaskId t = w.state.job(j).tasks[0];
  SchedulerConfig cfg = volcano_default_config();
  cfg.actions = {"backfill"};
  RecordingBackend be;
  std::mt19937_64 rng{7};
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  {
    Statement stmt(s);
    stmt.pipeline(t, 0);
    s.keep_until_close(std::move(stmt));  // as allocate keeps a pipelined job's statement
  }
  s.run_actions();
  CHECK(be.binds_of(j) == 1);
  s.close();
  CHECK(w.state.task(t).status == TaskStatus::Binding);
  CHECK(w.state.node(0).pipelined.is_empty());
  CHECK(w.state.check_invariants().empty());
}

TEST_CASE("cycles with nothing changed are skipped") {
  World w = four_nodes();
  w.job(JobBuilder("a", "default").pods(2, full_node()).created(0));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  const int sessions = settle(w, be, s);
  // Session 1 enqueues (phase change; the controller creates pods), session 2 binds and, at
  // close, marks the PodGroup Running; session 3 changes nothing, so the state is clean.
  CHECK(sessions == 3);
  // Each PodGroup transition is reported exactly once: Pending -> Inqueue -> Running.
  REQUIRE(be.phases.size() == 2);
  CHECK(std::get<1>(be.phases[0]) == PodGroupPhase::Pending);
  CHECK(std::get<2>(be.phases[0]) == PodGroupPhase::Inqueue);
  CHECK(std::get<1>(be.phases[1]) == PodGroupPhase::Inqueue);
  CHECK(std::get<2>(be.phases[1]) == PodGroupPhase::Running);
  CHECK_FALSE(s.needs_cycle(w.state));
  CHECK_FALSE(s.run_once(w.state, be));
  CHECK(s.stats().cycles_skipped == 1);
}

TEST_CASE("the same seed places pods identically; placements spread over equal nodes") {
  auto run = [](std::uint64_t seed) {
    World w;
    w.queue(QueueBuilder("default"));
    for (int i = 0; i < 8; ++i) w.node(NodeBuilder(std::string("n") + std::to_string(i)).trn1_32xlarge());
    for (int i = 0; i < 8; ++i) w.job(JobBuilder(std::string("j") + std::to_string(i), "default").pods(1, Pod().cpu(8).memory_gib(32).neuron_devices(1)).inqueue().created(i));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), seed);
    settle(w, be, s);
    std::vector<NodeId> where;
    for (const auto& b : be.binds) where.push_back(b.node);
    return where;
  };
  const auto a = run(5), b = run(5);
  CHECK(a == b);
  // least-requested steers each pod to an empty node: 8 pods on 8 distinct nodes.
  std::vector<NodeId> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::unique(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("scheduler configuration errors name the path") {
  auto cfg = volcano_default_config();
  cfg.tiers[1].plugins[2].name = "binpackk";
  CHECK_THROWS_WITH_AS(Scheduler(cfg, 1), doctest::Contains("tiers[1].plugins[2].name: unknown plugin 'binpackk'"),
                       std::invalid_argument);
  cfg = volcano_default_config();
  cfg.tiers[1].plugins[0].arguments.set("overcommit-factor", "lots");
  CHECK_THROWS_WITH_AS(Scheduler(cfg, 1), doctest::Contains("overcommit-factor"), std::invalid_argument);
}

TEST_CASE("enqueue: a job held back reports its reason once, and again only when it changes") {
  // One trn1.32xlarge (32 NeuronCores): overcommit admits while Inqueue min resources fit in
  // 1.2 x 32 = 38.4 cores. "a" (32 cores) is admitted; b, c, d (32 each) are held back — b by
  // a vote, c and d by overcommit's memo (their minResources dominate b's) without a plugin call.
  // "e" (2 cores) is not dominated, so it is voted on: overcommit permits (32 + 2 <= 38.4), but
  // proportion rejects it (the queue's real capability is the cluster, 32 cores, and a holds 32).
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const Pod whole = Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8);
  const JobId a = w.job(JobBuilder("a", "default").pods(1, whole).created(0));
  const JobId b = w.job(JobBuilder("b", "default").pods(1, whole).created(1));
  const JobId c = w.job(JobBuilder("c", "default").pods(1, whole).created(2));
  const JobId d = w.job(JobBuilder("d", "default").pods(1, whole).created(3));
  const JobId e = w.job(JobBuilder("e", "default").pods(1, Pod().cpu(1).memory_gib(4).neuron_devices(1)).created(4));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  auto reports = [&](JobId j) {
    std::vector<std::string> r;
    for (const auto& [id, st] : be.conditions)
      if (id == j) r.push_back(st.plugin + ": " + st.reason);
    return r;
  };
  const std::string held = "overcommit: resource in cluster is overused";
  CHECK(w.state.job(a).phase == PodGroupPhase::Running);
  CHECK(w.state.job(e).phase == PodGroupPhase::Pending);
  CHECK(s.job_condition(e).plugin == "proportion");
  for (JobId j : {b, c, d}) {
    CHECK(w.state.job(j).phase == PodGroupPhase::Pending);
    CHECK(reports(j) == std::vector<std::string>{held});
    CHECK(s.job_condition(j).plugin == "overcommit");
  }
  // Later arrivals open sessions in which b, c and d are decided again, with the same result:
  // nothing new is reported for them.
  for (int i = 0; i < 3; ++i)
    w.job(JobBuilder(std::string("late") + std::to_string(i), "default").pods(1, whole).created(10 + i));
  settle(w, be, s);
  for (JobId j : {b, c, d}) CHECK(reports(j) == std::vector<std::string>{held});
  CHECK(reports(e).size() == 1);
  // a finishes: its pod leaves the node, the job leaves. b is admitted and reports it; c and d
  // still wait and report nothing new.
  w.state.set_task_status(w.state.job(a).tasks[0], TaskStatus::Succeeded);
  w.state.remove_job(a);
  settle(w, be, s);
  CHECK(w.state.job(b).phase != PodGroupPhase::Pending);
  CHECK(reports(b).size() >= 2);
  CHECK(reports(b)[1] == "enqueue: Inqueue");
  for (JobId j : {c, d}) CHECK(reports(j) == std::vector<std::string>{held});
  CHECK(reports(e).size() == 1);  // proportion still rejects it, with the same text
  CHECK(w.state.check_invariants().empty());
}

namespace {
/// An action that, in one chosen session, gives one job a reason of its own (after enqueue).
struct OverrideOnce final : Action {
  static inline JobId job = kNone;
  static inline int in_session = 0;
  std::string_view name() const override { return "test-override-once"; }
  void execute(Session& ssn) override {
    if (static_cast<int>(ssn.uid()) == in_session) ssn.set_job_reason(job, Verdict{Code::Unschedulable, "test", "overridden"});
  }
};
}  // namespace

TEST_CASE("enqueue: a held-back job whose reason another action replaced shows enqueue's again") {
  // The enqueue action skips recording a verdict a job already shows; what a job shows may have
  // been changed by someone else in between, and then the verdict must be recorded again.
  register_action("test-override-once", [](const Arguments&) { return std::make_unique<OverrideOnce>(); });
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const Pod whole = Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8);
  w.job(JobBuilder("a", "default").pods(1, whole).created(0));
  w.job(JobBuilder("b", "default").pods(1, whole).created(1));
  const JobId c = w.job(JobBuilder("c", "default").pods(1, whole).created(2));
  OverrideOnce::job = c;
  OverrideOnce::in_session = 2;  // session 1 enqueues a and holds b, c back; session 2 binds a
  auto cfg = volcano_default_config();
  cfg.actions.push_back("test-override-once");
  RecordingBackend be;
  Scheduler s(cfg, 1);
  const int sessions = settle(w, be, s);
  REQUIRE(sessions >= 3);
  std::vector<std::string> got;
  for (const auto& [id, st] : be.conditions)
    if (id == c) got.push_back(st.plugin + ": " + st.reason);
  const std::string held = "overcommit: resource in cluster is overused";
  CHECK(got == std::vector<std::string>{held, "test: overridden", held});
  CHECK(s.job_condition(c).plugin == "overcommit");
}

TEST_CASE("a bind the API server refuses: the pod is Pending again after the session, the next cycle binds it, the gang runs") {
  // Volcano v1.12.1 cache.go Bind: a failed bind marks the pod unschedulable ("failed to bind to
  // node N: why") and resyncs it, so the next snapshot has it Pending; the session that decided
  // it is unaware (its PodGroup phase counts the pod as allocated).
  struct RefuseOnce : RecordingBackend {
    std::string victim;
    int refused = 0;
    CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
      if (t.name == victim && refused == 0) {
        ++refused;
        return CallResult::failure("etcdserver: request timed out");
      }
      return RecordingBackend::bind(t, n);
    }
  };
  World w = four_nodes();
  const JobId a = w.job(JobBuilder("a", "default").pods(4, full_node()).inqueue().created(0));
  RefuseOnce be;
  be.victim = w.state.task(w.state.job(a).tasks[2]).name;
  be.world = &w;
  Scheduler s(volcano_default_config(), 5);
  cycle(w, be, s);
  CHECK(be.refused == 1);
  CHECK(be.binds_of(a) == 3);  // the refused bind is not recorded as one
  const TaskInfo& refused = w.state.task(w.state.job(a).tasks[2]);
  CHECK(refused.status == TaskStatus::Pending);
  CHECK(refused.node == kNone);
  CHECK(w.state.job(a).phase == PodGroupPhase::Running);  // decided before the failure was known
  CHECK(s.job_condition(a).plugin == "bind");
  CHECK(s.job_condition(a).reason.find("failed to bind to node n") == 0);
  CHECK(s.job_condition(a).reason.find(": etcdserver: request timed out") != std::string::npos);
  CHECK(s.stats().totals.bind_failures == 1);
  CHECK(w.state.check_invariants().empty());
  settle(w, be, s);
  CHECK(be.binds_of(a) == 4);
  for (const auto& n : w.state.nodes()) CHECK(n.task_count == 1);
  CHECK(s.job_condition(a).code == Code::Success);
}

TEST_CASE("two schedulers on two threads, each with its own state, decide as one thread alone does") {
  // docs/stability.md: several schedulers may run in one process, each on its own thread (the
  // registry, the name table and the version counter are thread-safe; the rest is per state).
  auto world = [] {
    World w = four_nodes();
    for (int j = 0; j < 6; ++j)
      w.job(JobBuilder(std::string("j") + std::to_string(j), "default").pods(1 + j % 3, Pod().cpu(10).memory_gib(40).neuron_devices(4)).created(j));
    return w;
  };
  auto run = [&](std::vector<std::pair<TaskId, NodeId>>& out) {
    World w = world();
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 11);
    for (int i = 0; i < 200; ++i) {  // many cycles, so that the threads overlap
      cycle(w, be, s);
    }
    for (const auto& b : be.binds) out.emplace_back(b.task, b.node);
  };
  std::vector<std::pair<TaskId, NodeId>> alone, t1, t2;
  run(alone);
  std::thread a([&] { run(t1); });
  std::thread b([&] { run(t2); });
  a.join();
  b.join();
  CHECK(!alone.empty());
  CHECK(t1 == alone);
  CHECK(t2 == alone);
}
