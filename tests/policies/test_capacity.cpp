// The capacity plugin (Volcano v1.12.1 pkg/scheduler/plugins/capacity/capacity.go) in scheduler
// cycles: queues' hand-set deserved shares decide who may reclaim and who is reclaimed, the
// hierarchy (enableHierarchy) decides the victims' order and is checked at every session.
// Every expectation is derived by hand in the comments from the rules in capacity.cpp, the
// reclaim action (actions/reclaim.cpp) and session.hpp's tier rules.
//
// Shared numbers: a trn1.32xlarge node has 128 cpu, 512 GiB, 32 NeuronCores, 8 EFA. A "full"
// pod asks 100 cpu, 400 GiB, 32 NeuronCores, 8 EFA (one per node); a "half" pod 60 cpu,
// 250 GiB, 16 NeuronCores, 4 EFA (two per node). `node(n)` is n nodes' worth of every resource,
// the deserved shares below name all four (an unnamed cpu or memory would count as 0).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
Pod full_node() { return Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8); }
Pod half_node() { return Pod().cpu(60).memory_gib(250).neuron_devices(8).efa(4); }
Pod nodes(double n) { return Pod().cpu(128 * n).memory_gib(512 * n).neuron_devices(16 * n).efa(8 * n); }

/// Volcano's default tiers with capacity in proportion's place (no overcommit), and the actions
/// enqueue, allocate, reclaim, backfill; `hierarchy` sets capacity's enableHierarchy.
SchedulerConfig capacity_config(bool hierarchy, const char* share_plugin = "capacity") {
  SchedulerConfig cfg;
  cfg.actions = {"enqueue", "allocate", "reclaim", "backfill"};
  Tier t1, t2;
  for (const char* n : {"priority", "gang", "conformance"}) t1.plugins.push_back(PluginOption{n, {}, {}});
  for (const char* n : {"drf", "predicates", share_plugin, "nodeorder"}) t2.plugins.push_back(PluginOption{n, {}, {}});
  if (hierarchy) t2.plugins[2].enabled[static_cast<std::size_t>(Ext::Hierarchy)] = true;
  cfg.tiers = {t1, t2};
  return cfg;
}

std::vector<std::string> evicted(const World& w, const RecordingBackend& be) {
  std::vector<std::string> v;
  for (const auto& [t, why] : be.evictions) v.push_back(w.state.task(t).name + " " + why);
  return v;
}

/// 4 nodes; queue a runs a 3-pod gang on n0-n2, queue b's 2-pod gang is Inqueue (pods Pending).
struct ThreeOfFour {
  World w;
  ThreeOfFour(Pod a_deserved, Pod b_deserved) {
    w.queue(QueueBuilder("a").deserved(a_deserved));
    w.queue(QueueBuilder("b").deserved(b_deserved));
    for (const char* n : {"n0", "n1", "n2", "n3"}) w.node(NodeBuilder(n).trn1_32xlarge());
    w.job(JobBuilder("a-big", "a").pods(3, full_node()).created(0).running_on({"n0", "n1", "n2"}));
    w.job(JobBuilder("b-job", "b").pods(2, full_node()).created(5).inqueue());
  }
};
}  // namespace

TEST_CASE("capacity: the deserved shares decide whether and how far a queue is reclaimed") {
  SUBCASE("a deserves 1 node, b 3: b reclaims two of a's three pods") {
    // allocate: queue order by share = max over resources of allocated / deserved: b 0 first,
    // a 3 (96 of 32 NeuronCores). b-job-0 is Allocatable (within b's realCapability, the
    // cluster) and fits only n3; b-job-1 fits nowhere: the gang is not ready, discarded.
    // reclaim: b first; b-job starves; b-job-0: Preemptive (0 + 1 pod within b's 3 nodes);
    // n0: reclaimees {a-big-0}; tier 1: gang offers none (a-big has 3 ready = minAvailable),
    // the tier ends; tier 2: capacity: a's allocated (3 pods) is not within its deserved
    // (1 node) -> {a-big-0}: evicted, b-job-0 pipelined on n0. b again (share 1/3 against a's
    // 2): b-job-1: Preemptive (1 + 1 pods within 3 nodes); n0 has no Running reclaimee left;
    // n1: a's 2 pods still exceed 1 node -> {a-big-1}: evicted, b-job-1 pipelined on n1. b-job
    // no longer starves; a has no starving job: done. a keeps a-big-2 = its deserved node.
    ThreeOfFour g(nodes(1), nodes(3));
    RecordingBackend be;
    Scheduler s(capacity_config(false), 1);
    cycle(g.w, be, s);
    CHECK(evicted(g.w, be) == std::vector<std::string>{"a-big-0 reclaim", "a-big-1 reclaim"});
    CHECK(s.stats().totals.pipelined == 2);
    CHECK(be.binds.empty());
  }
  SUBCASE("the same cluster under proportion (weights 1:1): one pod is reclaimed") {
    // proportion water-fills 4 nodes over a (asks 3) and b (asks 2): 2 nodes each. b-job-0:
    // a's 3 pods exceed 2 -> {a-big-0} evicted, pipelined on n0; b-job-1: b would hold 2 =
    // its deserved (Allocatable); n1, n2: a now holds 2 = deserved, no victim; n3: no
    // reclaimee. One eviction.
    ThreeOfFour g(nodes(1), nodes(3));
    RecordingBackend be;
    Scheduler s(capacity_config(false, "proportion"), 1);
    cycle(g.w, be, s);
    CHECK(evicted(g.w, be) == std::vector<std::string>{"a-big-0 reclaim"});
  }
  SUBCASE("a deserves 3 nodes, b 1: a is within its share, nothing is reclaimed") {
    // b-job-0 is Preemptive (0 + 1 pod within b's 1 node) but a's 3 pods are within its
    // 3 nodes (allocated.LessEqual(deserved)): no victim on n0-n2, n3 has no reclaimee.
    ThreeOfFour g(nodes(3), nodes(1));
    RecordingBackend be;
    Scheduler s(capacity_config(false), 1);
    settle(g.w, be, s);
    CHECK(be.evictions.empty());
    CHECK(be.binds.empty());
  }
  SUBCASE("deserved naming only NeuronCores: cpu and memory count as 0, so b may never reclaim") {
    // Preemptive compares every dimension the task requests with deserved; cpu and memory are
    // always in Volcano's Resource (0 when not named): 0 + 100 cpu > 0 -> not Preemptive.
    ThreeOfFour g(Pod().neuron_devices(16), Pod().neuron_devices(48));
    RecordingBackend be;
    Scheduler s(capacity_config(false), 1);
    settle(g.w, be, s);
    CHECK(be.evictions.empty());
  }
}

namespace {
/// root -> a -> {a1, a2}; root -> b. Two nodes; a2 runs a 2-pod half-node gang (one pod per
/// node), so does b; a1's 1-pod job is Inqueue. Deserved: a 1 node, a1 and a2 half a node
/// each, b half a node (root: 2 nodes >= a + b; a: 1 node >= a1 + a2).
struct Tree {
  World w;
  explicit Tree(Pod a_deserved = nodes(1)) {
    w.queue(QueueBuilder("a").deserved(a_deserved));
    w.queue(QueueBuilder("a1").parent("a").deserved(nodes(0.5)));
    w.queue(QueueBuilder("a2").parent("a").deserved(nodes(0.5)));
    w.queue(QueueBuilder("b").deserved(nodes(0.5)));
    w.node(NodeBuilder("n0").trn1_32xlarge());
    w.node(NodeBuilder("n1").trn1_32xlarge());
    w.job(JobBuilder("a2-run", "a2").pods(2, half_node()).created(0).running_on({"n0", "n1"}));
    w.job(JobBuilder("b-run", "b").pods(2, half_node()).created(1).running_on({"n0", "n1"}));
    w.job(JobBuilder("a1-job", "a1").pods(1, half_node()).created(5).inqueue());
  }
};
}  // namespace

TEST_CASE("capacity with enableHierarchy: victims come first from the reclaimer's nearest queues") {
  // a2 and b each hold one node's worth (2 half pods), twice their half-node deserved; the
  // nodes are full (a1-job-0 fits nowhere). reclaim: a1-job-0 is Preemptive (0 + half within
  // a1's half node). n0: reclaimees {a2-run-0, b-run-0}; tier 1: gang offers none (both gangs
  // exactly ready); tier 2: capacity offers both (each queue above its deserved, guarantee 0).
  // Evicted in BuildVictimsPriorityQueue order until a half pod is reclaimed:
  SUBCASE("hierarchy: the sibling a2 (common ancestor a, level 1) before b (level 0)") {
    Tree g;
    RecordingBackend be;
    Scheduler s(capacity_config(true), 1);
    cycle(g.w, be, s);
    CHECK(evicted(g.w, be) == std::vector<std::string>{"a2-run-0 reclaim"});
    CHECK(s.stats().totals.pipelined == 1);
  }
  SUBCASE("flat (no enableHierarchy): no victim queue order, the reverse queue order decides") {
    // a2 and b have equal shares (2); queue order falls back to creation, then UID: a2 (added
    // first) goes first, so b's pod is evicted first.
    Tree g;
    RecordingBackend be;
    Scheduler s(capacity_config(false), 1);
    cycle(g.w, be, s);
    CHECK(evicted(g.w, be) == std::vector<std::string>{"b-run-0 reclaim"});
  }
}

TEST_CASE("capacity with enableHierarchy: the tree is checked every session; a broken one schedules nothing") {
  // One free node; a1's job (1 half pod) is Pending (no pods yet).
  auto world = [](Pod a_deserved) {
    auto w = std::make_unique<World>();
    w->queue(QueueBuilder("a").deserved(a_deserved));
    w->queue(QueueBuilder("a1").parent("a").deserved(nodes(0.5)));
    w->queue(QueueBuilder("a2").parent("a").deserved(nodes(0.5)));
    w->node(NodeBuilder("n0").trn1_32xlarge());
    w->job(JobBuilder("j", "a1").pods(1, half_node()).created(0));
    return w;
  };
  SUBCASE("a deserves 1 node = a1 + a2: admitted, bound") {
    // enqueue: capacity: minResources + 0 within a1's, a's and root's realCapability (the
    // node) -> Inqueue; allocate binds j-0 on n0 (within a1, a, root).
    auto w = world(nodes(1));
    RecordingBackend be;
    Scheduler s(capacity_config(true), 1);
    settle(*w, be, s);
    CHECK(be.binds_of(w->jobs.at("j")) == 1);
  }
  SUBCASE("a deserves half a node < a1 + a2: the session is not ready, j is never admitted") {
    // checkHierarchicalQueue(a): deserved 0.5 node < a1 + a2 = 1 node -> error: capacity
    // rejects every job at enqueue (and refuses allocation and reclaim).
    auto w = world(nodes(0.5));
    RecordingBackend be;
    Scheduler s(capacity_config(true), 1);
    settle(*w, be, s);
    CHECK(be.binds.empty());
    CHECK((*w)["j"].phase == PodGroupPhase::Pending);
  }
  SUBCASE("a names no EFA in its capability while a1 does: a's capability is the lesser, not ready") {
    // capacity.go LessPartly(parent, child, Zero): the child's vpc.amazonaws.com/efa is missing
    // from the parent's capability.
    auto w = std::make_unique<World>();
    w->queue(QueueBuilder("a").deserved(nodes(1)).capability(Pod().cpu(128).memory_gib(512)));
    w->queue(QueueBuilder("a1").parent("a").deserved(nodes(0.5)).capability(Pod().efa(8)));
    w->node(NodeBuilder("n0").trn1_32xlarge());
    w->job(JobBuilder("j", "a1").pods(1, half_node()).created(0));
    RecordingBackend be;
    Scheduler s(capacity_config(true), 1);
    settle(*w, be, s);
    CHECK(be.binds.empty());
  }
}

TEST_CASE("capacity: enqueue and allocate stop at the queue's realCapability, not at its deserved") {
  // One queue, deserved 1 node, capability 2 nodes, 4 free nodes. j3 (3 pods): minResources
  // 3 nodes > capability 2 -> rejected at enqueue ("queue resource quota insufficient"). j2
  // (2 pods, 2 nodes <= 2): admitted and bound on two nodes, past its deserved 1 node
  // (deserved only matters to reclaim).
  World w;
  w.queue(QueueBuilder("q").deserved(nodes(1)).capability(Pod().cpu(256).memory_gib(1024).neuron_devices(32).efa(16)));
  for (const char* n : {"n0", "n1", "n2", "n3"}) w.node(NodeBuilder(n).trn1_32xlarge());
  const JobId j3 = w.job(JobBuilder("j3", "q").pods(3, full_node()).created(0));
  const JobId j2 = w.job(JobBuilder("j2", "q").pods(2, full_node()).created(1));
  RecordingBackend be;
  Scheduler s(capacity_config(false), 1);
  settle(w, be, s);
  CHECK(be.binds_of(j2) == 2);
  CHECK(be.binds_of(j3) == 0);
  CHECK(w["j3"].phase == PodGroupPhase::Pending);
}

TEST_CASE("capacity and proportion in one tier: both run, as in Volcano (which does not refuse the pair)") {
  // a deserves 1 node under capacity; proportion water-fills 4 nodes over a (asks 3) and b
  // (asks 2): 2 nodes each. Preemptive and Allocatable: both must agree; victims: the tier's
  // plugins' lists intersected. b-job-0: Preemptive for both (1 pod within 3 nodes, within 2);
  // n0: capacity {a-big-0} (3 pods > 1 node) ∩ proportion {a-big-0} (3 > 2) -> evicted,
  // pipelined. b-job-1: Preemptive for both (2 pods within 3 nodes, within 2); n1: capacity
  // {a-big-1} (2 > 1) ∩ proportion {} (2 <= 2) = {}: the tier ends with no victim; n2 the same;
  // n3 has no reclaimee. One eviction, where capacity alone makes two.
  ThreeOfFour g(nodes(1), nodes(3));
  SchedulerConfig cfg = capacity_config(false);
  cfg.tiers[1].plugins.insert(cfg.tiers[1].plugins.begin() + 3, PluginOption{"proportion", {}, {}});
  CHECK(cfg.validate().empty());
  RecordingBackend be;
  Scheduler s(cfg, 1);
  cycle(g.w, be, s);
  CHECK(evicted(g.w, be) == std::vector<std::string>{"a-big-0 reclaim"});
}
