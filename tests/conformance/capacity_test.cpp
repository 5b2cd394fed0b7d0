// Volcano v1.12.1 pkg/scheduler/plugins/capacity/capacity_test.go, ported.
//
// uthelper CheckAll always checks the binds and the evictions: an expectation a case leaves
// unset is "none", so every case here checks both. Jobs are named by their upstream job IDs
// ("ns1/pg6"), the keys of ExpectPipeLined and ExpectStatus.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods), labels).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory, int pods) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(pods);
  return n;
}

/// util.BuildPod(ns, name, ...) with BuildResourceList(cpu, memory): named "ns/name", the key
/// upstream's fake binder and evictor record. An empty quantity is left out, as BuildResourceList
/// does.
Pod pod(const std::string& ns, const std::string& name, std::string_view cpu, std::string_view memory) {
  Pod p;
  p.name(ns + "/" + name);
  if (!cpu.empty()) p.cpu(cpu);
  if (!memory.empty()) p.memory(memory);
  return p;
}

/// api.BuildResourceList(cpu, memory) as a resource list for queues and minResources.
Pod res(std::string_view cpu, std::string_view memory) { return pod("", "", cpu, memory); }

/// util.BuildPodGroup(name, ns, queue, minMember, nil, phase): no minResources.
JobBuilder podgroup(const std::string& ns, const std::string& name, std::string queue, int min_member,
                    PodGroupPhase phase) {
  JobBuilder j(ns + "/" + name, std::move(queue));
  j.min_available(min_member).no_min_resources().phase(phase);
  return j;
}

/// util.BuildQueueWithResourcesQuantity(name, deserved, capability): weight 1; nil lists unset.
QueueBuilder queue(std::string name, const Pod* deserved, const Pod* capability) {
  QueueBuilder q(std::move(name));
  q.weight(1);
  if (deserved) q.deserved(*deserved);
  if (capability) q.capability(*capability);
  return q;
}

/// Test_capacityPlugin_OnSessionOpenWithoutHierarchy's tiers.
std::vector<Tier> flat_tiers() {
  return {Tier{{plugin("capacity", {Ext::Allocatable, Ext::Preemptive, Ext::Reclaimable, Ext::QueueOrder}),
                plugin("predicates", {Ext::Predicate}), plugin("gang", {Ext::JobStarving})}}};
}
const std::vector<std::string> kFlatActions = {"allocate", "reclaim"};

/// The nodes n1 (label selector=worker) and n2 of Test_capacityPlugin_OnSessionOpenWithoutHierarchy.
void flat_n1(World& w) { w.node(node("n1", "2", "4Gi", 10).label("selector", "worker")); }
void flat_n2(World& w) { w.node(node("n2", "2", "4Gi", 10)); }

}  // namespace

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case0: Pod allocatable when queue has not exceed capability") {
  World w;
  const Pod cap = res("2", "2Gi");
  w.queue(queue("q1", nullptr, &cap));
  flat_n1(w);
  flat_n2(w);
  w.job(podgroup("ns1", "pg1", "q1", 1, PodGroupPhase::Running).pod(pod("ns1", "p1", "1", "1Gi").on("n1")));
  w.job(podgroup("ns1", "pg2", "q1", 1, PodGroupPhase::Inqueue)
            .pod(pod("ns1", "p2", "1", "1Gi").node_selector("selector", "worker")));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {{"ns1/p2", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case1: Pod not allocatable when queue exceed queue capability") {
  World w;
  const Pod cap = res("1.5", "1.5Gi");
  w.queue(queue("q2", nullptr, &cap));
  flat_n1(w);
  flat_n2(w);
  w.job(podgroup("ns1", "pg3", "q2", 1, PodGroupPhase::Running).pod(pod("ns1", "p3", "1", "1Gi").on("n1")));
  w.job(podgroup("ns1", "pg4", "q2", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p4", "1", "1Gi")));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case2: Can reclaim from other queues when allocated < deserved") {
  World w;
  const Pod deserved = res("2", "4Gi");
  w.queue(queue("q3", &deserved, nullptr));
  w.queue(queue("q4", &deserved, nullptr));
  flat_n1(w);
  flat_n2(w);
  w.job(podgroup("ns1", "pg5", "q3", 1, PodGroupPhase::Running)
            .pod(pod("ns1", "p5", "2", "4Gi").on("n1").preemptable(false))
            .pod(pod("ns1", "p6", "2", "4Gi").on("n2")));
  w.job(podgroup("ns1", "pg6", "q4", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p7", "2", "4Gi")));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {});
  check_evicted(o, {"ns1/p6"});
  check_pipelined(o, {{"ns1/pg6", {"n2"}}});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case3: CPU & Memory are overused, scalar resource is not overused, but candidate pod has not request CPU & Memory, reclaim should happen") {
  World w;
  const Pod deserved = res("2", "4Gi").resource("nvidia.com/A100", 10);
  w.queue(queue("q5", &deserved, nullptr));
  w.queue(queue("q6", &deserved, nullptr));
  w.node(node("n3", "2", "4Gi", 10).resource(ResourceName::intern("nvidia.com/A100"), 10).label("selector", "worker"));
  w.node(node("n4", "2", "4Gi", 10).resource(ResourceName::intern("nvidia.com/A100"), 10));
  w.job(podgroup("ns1", "pg7", "q5", 1, PodGroupPhase::Running)
            .pod(pod("ns1", "p8", "0", "0Gi").resource("nvidia.com/A100", 10).on("n3").preemptable(false))
            .pod(pod("ns1", "p9", "0", "0Gi").resource("nvidia.com/A100", 10).on("n4")));
  w.job(podgroup("ns1", "pg8", "q6", 1, PodGroupPhase::Running)
            .pod(pod("ns1", "p10", "2", "4Gi").on("n3"))
            .pod(pod("ns1", "p11", "2", "4Gi").on("n4")));
  w.job(podgroup("ns1", "pg9", "q6", 1, PodGroupPhase::Inqueue)
            .pod(pod("ns1", "p12", "0", "0Gi").resource("nvidia.com/A100", 10)));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {});
  check_evicted(o, {"ns1/p9"});
  check_pipelined(o, {{"ns1/pg9", {"n4"}}});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case4: Pods are assigned according to the order of Queue Priority in which PGs are placed") {
  World w;
  const Pod cap = res("2", "4Gi");
  w.queue(queue("q7", nullptr, &cap).priority(5));
  w.queue(queue("q8", nullptr, &cap).priority(1));
  w.queue(queue("q9", nullptr, &cap).priority(10));
  w.node(node("n5", "2", "4Gi", 10));
  w.node(node("n6", "2", "4Gi", 10));
  w.job(podgroup("ns1", "pg10", "q7", 1, PodGroupPhase::Running).pod(pod("ns1", "p13", "2", "4Gi").on("n5")));
  w.job(podgroup("ns1", "pg11", "q8", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p14", "2", "4Gi")));
  w.job(podgroup("ns1", "pg12", "q9", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p15", "2", "4Gi")));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {{"ns1/p15", "n6"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithoutHierarchy",
              "case5: Can not reclaim from other queues when allocated + req > deserved") {
  World w;
  const Pod deserved10 = res("2", "2Gi"), cap10 = res("4", "4Gi");
  const Pod deserved11 = res("0", "0Gi"), cap11 = res("2", "2Gi");
  w.queue(queue("q10", &deserved10, &cap10));
  w.queue(queue("q11", &deserved11, &cap11));
  flat_n1(w);
  w.job(podgroup("ns1", "pg16", "q10", 1, PodGroupPhase::Running).pod(pod("ns1", "p16", "1", "3Gi").on("n1")));
  w.job(podgroup("ns1", "pg17", "q10", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p17", "1", "1Gi")));
  w.job(podgroup("ns1", "pg18", "q11", 1, PodGroupPhase::Running).pod(pod("ns1", "p18", "1", "1Gi").on("n1")));
  const Outcome o = run_session(w, kFlatActions, flat_tiers());
  check_binds(o, {});
  check_evicted(o, {});
  check_pipelined(o, {});  // ExpectPipeLined: {} (nothing to check)
}

namespace {

/// TestEnqueueAndAllocatable's tiers: capacity alone (no predicates, no gang).
std::vector<Tier> enqueue_tiers() {
  return {Tier{{plugin("capacity", {Ext::Allocatable, Ext::Preemptive, Ext::Overused, Ext::JobEnqueued})}}};
}
const std::vector<std::string> kEnqueueActions = {"enqueue", "allocate"};

/// TestEnqueueAndAllocatable's nodes, queues q1 and q2, and running PodGroups pg1 (pod1 on n1,
/// 1 cpu 3G, in q1) and pg2 (pod2 on n2, 3 cpu 1G, in q2), each with minResources its pod's
/// request.
void enqueue_world(World& w) {
  w.node(node("n1", "3", "3G", 10));
  w.node(node("n2", "3", "3G", 10));
  const Pod q1 = res("2", "2G"), q2_deserved = res("2", "2G"), q2_cap = res("3", "3G");
  w.queue(queue("q1", &q1, &q1));
  w.queue(queue("q2", &q2_deserved, &q2_cap));
  w.job(podgroup("ns1", "pg1", "q1", 1, PodGroupPhase::Running)
            .min_resources(res("1", "3G"))
            .pod(pod("ns1", "pod1", "1", "3G").on("n1")));
  w.job(podgroup("ns1", "pg2", "q2", 1, PodGroupPhase::Running)
            .min_resources(res("3", "1G"))
            .pod(pod("ns1", "pod2", "3", "1G").on("n2")));
}

}  // namespace

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "TestEnqueueAndAllocatable",
              "case0: memory exceed derserved, job only request cpu can be enqueued and allocated") {
  World w;
  enqueue_world(w);
  w.job(podgroup("ns1", "pg3", "q1", 1, PodGroupPhase::Pending)
            .min_resources(res("1", "0G"))
            .pod(pod("ns1", "pod3", "1", "0G")));
  const Outcome o = run_session(w, kEnqueueActions, enqueue_tiers());
  check_binds(o, {{"ns1/pod3", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "TestEnqueueAndAllocatable",
              "case1: cpu exceed derserved, job only request memory can be enqueued and allocated") {
  World w;
  enqueue_world(w);
  w.job(podgroup("ns1", "pg4", "q2", 1, PodGroupPhase::Pending)
            .min_resources(res("0", "1G"))
            .pod(pod("ns1", "pod4", "0", "1G")));
  const Outcome o = run_session(w, kEnqueueActions, enqueue_tiers());
  check_binds(o, {{"ns1/pod4", "n2"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "TestEnqueueAndAllocatable", "case2: exceed capacity, can not enqueue") {
  World w;
  enqueue_world(w);
  w.job(podgroup("ns1", "pg5", "q1", 1, PodGroupPhase::Pending)
            .min_resources(res("1", "1G"))
            .pod(pod("ns1", "pod5", "1", "1G")));
  const Outcome o = run_session(w, kEnqueueActions, enqueue_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "TestEnqueueAndAllocatable",
              "case4: queue with non-open state, can not enqueue") {
  // Only pod6, pg6 and the closed queue q3 (util.BuildQueueWithState: capability 3 cpu 3G, no
  // deserved) are in this case, with the nodes n1 and n2.
  World w;
  w.node(node("n1", "3", "3G", 10));
  w.node(node("n2", "3", "3G", 10));
  const Pod cap = res("3", "3G");
  w.queue(queue("q3", nullptr, &cap).closed());
  w.job(podgroup("ns1", "pg6", "q3", 1, PodGroupPhase::Pending)
            .min_resources(res("1", "1G"))
            .pod(pod("ns1", "pod6", "1", "1G")));
  const Outcome o = run_session(w, kEnqueueActions, enqueue_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

namespace {

/// Test_capacityPlugin_OnSessionOpenWithHierarchy's tiers: capacity with EnabledHierarchy.
std::vector<Tier> hierarchy_tiers() {
  return {Tier{{plugin("capacity", {Ext::Allocatable, Ext::Preemptive, Ext::Reclaimable, Ext::QueueOrder,
                                    Ext::Hierarchy, Ext::JobEnqueued}),
                plugin("predicates", {Ext::Predicate}), plugin("gang", {Ext::JobStarving})}}};
}
const std::vector<std::string> kHierarchyActions = {"enqueue", "reclaim", "allocate"};

/// buildQueueWithParents(name, parent, deserved, capability); the queue "root" has no parent.
QueueBuilder hqueue(std::string name, std::string parent, const Pod* deserved, const Pod* capability) {
  QueueBuilder q = queue(std::move(name), deserved, capability);
  if (!parent.empty()) q.parent(std::move(parent));
  return q;
}

/// api.BuildResourceList(cpu, memory, pods).
Pod res_pods(std::string_view cpu, std::string_view memory, int pods) {
  return res(cpu, memory).resource("pods", pods);
}

/// The hierarchy's node n1: 8 cpu, 8Gi, 11 pods.
void hier_n1(World& w) { w.node(node("n1", "8", "8Gi", 11)); }

/// root, q1 and q2 (capability 4 cpu 4Gi) under root, q11 (1 cpu 1Gi) and q12 (3 cpu 3Gi) under q1.
void tree_q1(World& w) {
  const Pod c4 = res("4", "4Gi"), c1 = res("1", "1Gi"), c3 = res("3", "3Gi");
  w.queue(hqueue("root", "", nullptr, nullptr));
  w.queue(hqueue("q1", "root", nullptr, &c4));
  w.queue(hqueue("q2", "root", nullptr, &c4));
  w.queue(hqueue("q11", "q1", nullptr, &c1));
  w.queue(hqueue("q12", "q1", nullptr, &c3));
}

/// queue3 .. queue33 of the upstream test, by name.
void add_q3_family(World& w, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n == "root") {
      w.queue(hqueue("root", "", nullptr, nullptr));
    } else if (n == "q3") {
      const Pod d = res_pods("4", "4Gi", 10), c = res_pods("4", "4Gi", 10);
      w.queue(hqueue("q3", "root", &d, &c));
    } else if (n == "q4") {
      const Pod d = res_pods("2", "2Gi", 1), c = res_pods("4", "4Gi", 4);
      w.queue(hqueue("q4", "root", &d, &c));
    } else if (n == "q31" || n == "q32") {
      const Pod d = res_pods("2", "2Gi", 2), c = res_pods("4", "4Gi", 4);
      w.queue(hqueue(n, "q3", &d, &c));
    } else if (n == "q33") {
      const Pod d = res_pods("0", "0Gi", 2), c = res_pods("4", "4Gi", 4);
      w.queue(hqueue("q33", "q3", &d, &c));
    }
  }
}

}  // namespace

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case0: Pod allocatable when queue is leaf queue") {
  World w;
  tree_q1(w);
  hier_n1(w);
  w.job(podgroup("ns1", "pg1", "q11", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p1", "1", "1Gi")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {{"ns1/p1", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case1: Pod not allocatable when queue is not leaf queue") {
  World w;
  tree_q1(w);
  hier_n1(w);
  w.job(podgroup("ns1", "pg2", "q1", 1, PodGroupPhase::Pending).pod(pod("ns1", "p2", "1", "1Gi")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case2: Pod allocatable when queue has not exceed capability") {
  World w;
  add_q3_family(w, {"root", "q3", "q4", "q31", "q32"});
  hier_n1(w);
  w.job(podgroup("ns1", "pg3", "q31", 2, PodGroupPhase::Inqueue)
            .pod(pod("ns1", "p3", "2", "2Gi"))
            .pod(pod("ns1", "p4", "2", "2Gi")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {{"ns1/p3", "n1"}, {"ns1/p4", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case3: Can reclaim from other queues when allocated < deserved") {
  World w;
  add_q3_family(w, {"root", "q3", "q31", "q32", "q4"});
  hier_n1(w);
  w.job(podgroup("ns1", "pg4", "q4", 1, PodGroupPhase::Running).pod(pod("ns1", "p5", "4", "4Gi").on("n1")));
  w.job(podgroup("ns1", "pg5", "q31", 1, PodGroupPhase::Running)
            .pod(pod("ns1", "p6", "2", "2Gi").on("n1").preemptable(false))
            .pod(pod("ns1", "p7", "2", "2Gi").on("n1")));
  w.job(podgroup("ns1", "pg6", "q32", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p8", "2", "2Gi")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {});
  check_evicted(o, {"ns1/p7"});
  check_pipelined(o, {{"ns1/pg6", {"n1"}}});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case4: Pod is not allocatable when ancestor queue's real capability not enough") {
  World w;
  add_q3_family(w, {"root", "q3", "q31", "q32", "q33"});
  hier_n1(w);
  w.job(podgroup("ns1", "pg5", "q31", 1, PodGroupPhase::Running)
            .pod(pod("ns1", "p6", "2", "2Gi").on("n1").preemptable(false)));
  w.job(podgroup("ns1", "pg7", "q32", 1, PodGroupPhase::Running).pod(pod("ns1", "p9", "2", "2Gi").on("n1")));
  w.job(podgroup("ns1", "pg8", "q33", 1, PodGroupPhase::Inqueue).pod(pod("ns1", "p10", "3", "3Gi")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case5: If the capability cpu or memory is not specified, the value should be inherited from parent queue") {
  World w;
  const Pod c5 = res("", "4Gi"), c51 = res("", "2Gi");
  w.queue(hqueue("root", "", nullptr, nullptr));
  w.queue(hqueue("q5", "root", nullptr, &c5));
  w.queue(hqueue("q51", "q5", nullptr, &c51));
  hier_n1(w);
  w.job(podgroup("ns1", "pg9", "q51", 1, PodGroupPhase::Running).pod(pod("ns1", "p11", "1", "")));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {{"ns1/p11", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case6: podgroup can't be enqueued when any ancestor queue's capability is not enough") {
  // Two PodGroups without pods (util.BuildPodGroupWithMinResources: minResources 2 cpu 4Gi).
  World w;
  const Pod c6 = res("2", "4Gi");
  w.queue(hqueue("root", "", nullptr, nullptr));
  w.queue(hqueue("q6", "root", nullptr, &c6));
  w.queue(hqueue("q61", "q6", nullptr, nullptr));
  w.queue(hqueue("q62", "q6", nullptr, nullptr));
  hier_n1(w);
  w.job(JobBuilder("ns1/pg10", "q61").min_available(1).min_resources(res("2", "4Gi")).phase(PodGroupPhase::Pending));
  w.job(JobBuilder("ns1/pg11", "q62").min_available(1).min_resources(res("2", "4Gi")).phase(PodGroupPhase::Pending));
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {});
  check_evicted(o, {});
  check_phases(o, {{"ns1/pg10", PodGroupPhase::Inqueue}, {"ns1/pg11", PodGroupPhase::Pending}});
}

UPSTREAM_CASE("plugins/capacity/capacity_test.go", "Test_capacityPlugin_OnSessionOpenWithHierarchy",
              "case7: the sum of sub queue 71 and 72's guarantee exceeds the capacity of queue7, but should not panic") {
  // Queues only: the session opens and the actions run without a job.
  World w;
  const Pod c = res("6", "4Gi"), g = res("4", "3Gi");
  w.queue(hqueue("root", "", nullptr, nullptr));
  w.queue(hqueue("q7", "root", nullptr, &c));
  w.queue(hqueue("q71", "q7", nullptr, &c).guarantee(g));
  w.queue(hqueue("q72", "q7", nullptr, &c).guarantee(g));
  hier_n1(w);
  const Outcome o = run_session(w, kHierarchyActions, hierarchy_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}
