// Volcano v1.12.1 pkg/scheduler/actions/allocate/allocate_test.go, ported.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;
constexpr const char* kFile = "actions/allocate/allocate_test.go";

/// allocate_test.go TestAllocate's tiers: gang, drf, proportion, predicates, nodeorder.
std::vector<Tier> test_allocate_tiers() {
  return {Tier{{plugin("gang", {Ext::JobOrder, Ext::JobReady, Ext::JobPipelined, Ext::JobStarving}),
                plugin("drf", {Ext::Preemptable, Ext::JobOrder}),
                plugin("proportion", {Ext::QueueOrder, Ext::Reclaimable, Ext::Allocatable}),
                plugin("predicates", {Ext::Predicate}), plugin("nodeorder", {Ext::NodeOrder})}}};
}

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods 10), labels).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(10);
  return n;
}

/// util.BuildPod(ns, name, "", Pending, BuildResourceList(cpu, memory), ...): named "ns/name",
/// the key upstream's fake binder records.
Pod pod(const std::string& ns, const std::string& name, std::string_view cpu, std::string_view memory) {
  Pod p;
  p.name(ns + "/" + name).cpu(cpu).memory(memory);
  return p;
}

}  // namespace

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate", "prepredicate failed: node selector does not match") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.node(node("n1", "2", "4Gi").label("nodeRole", "worker"));
  w.job(JobBuilder("pg1", "c1").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p1", "1", "1G").node_selector("nodeRole", "master"))
            .pod(pod("c1", "p2", "1", "1G").node_selector("nodeRole", "worker")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {{"c1/p2", "n1"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate",
              "prepredicate failed and tasks are not used up, continue on until min member meet") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.node(node("n1", "1", "2Gi").label("nodeRole", "master"));
  w.node(node("n2", "1", "2Gi").label("nodeRole", "worker"));
  w.job(JobBuilder("pg1", "c1").min_available(2).min_task_member("master", 1).min_task_member("worker", 1)
            .no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p0", "1", "1G").role("master").node_selector("nodeRole", "master"))
            .pod(pod("c1", "p1", "1", "1G").role("master").node_selector("nodeRole", "master"))
            .pod(pod("c1", "p2", "1", "1G").role("worker").node_selector("nodeRole", "worker"))
            .pod(pod("c1", "p3", "1", "1G").role("worker").node_selector("nodeRole", "worker")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {{"c1/p0", "n1"}, {"c1/p2", "n2"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate",
              "master's min member can not be allocated, break from allocating") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.node(node("n1", "1", "2Gi").label("nodeRole", "master"));
  w.node(node("n2", "2", "2Gi").label("nodeRole", "worker"));
  w.job(JobBuilder("pg1", "c1").min_available(2).min_task_member("master", 2).min_task_member("worker", 0)
            .no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p0", "1", "1G").role("master").node_selector("nodeRole", "master"))
            .pod(pod("c1", "p1", "1", "1G").role("master").node_selector("nodeRole", "master"))
            .pod(pod("c1", "p2", "1", "1G").role("worker").node_selector("nodeRole", "worker"))
            .pod(pod("c1", "p3", "1", "1G").role("worker").node_selector("nodeRole", "worker")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate", "one Job with two Pods on one node") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.node(node("n1", "2", "4Gi"));
  w.job(JobBuilder("pg1", "c1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p1", "1", "1G"))
            .pod(pod("c1", "p2", "1", "1G")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {{"c1/p1", "n1"}, {"c1/p2", "n1"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate", "two Jobs on one node") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.queue(QueueBuilder("c2").weight(1));
  w.node(node("n1", "2", "4G"));
  w.job(JobBuilder("pg1", "c1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "pg1-p-1", "1", "1G"))
            .pod(pod("c1", "pg1-p-2", "1", "1G")));
  w.job(JobBuilder("pg2", "c2").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c2", "pg2-p-1", "1", "1G"))
            .pod(pod("c2", "pg2-p-2", "1", "1G")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {{"c2/pg2-p-1", "n1"}, {"c1/pg1-p-1", "n1"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestAllocate", "high priority queue should not block others") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.queue(QueueBuilder("c2").weight(1));
  w.node(node("n1", "2", "4G"));
  w.job(JobBuilder("pg1", "c1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p1", "3", "1G")));
  w.job(JobBuilder("pg2", "c2").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("c1", "p2", "1", "1G")));
  const Outcome o = run_session(w, {"allocate"}, test_allocate_tiers());
  check_binds(o, {{"c1/p2", "n1"}});
}

NOT_APPLICABLE(kFile, "TestAllocateWithNetWorkTopologies", "",
               "HyperNodes and network-topology-aware scheduling (PodGroup spec.networkTopology) are not modelled");
NOT_APPLICABLE(kFile, "TestNodeLevelScoreWithNetWorkTopologies", "",
               "HyperNodes and network-topology-aware scheduling (PodGroup spec.networkTopology) are not modelled");
NOT_APPLICABLE(kFile, "TestAllocateWithPVC", "", "volume binding (PersistentVolumeClaims, StorageClasses) is not modelled");
NOT_APPLICABLE(kFile, "TestAllocateWithDRA", "", "dynamic resource allocation (ResourceClaims, DeviceClasses) is not modelled");

namespace {

/// TestFareShareAllocate's tiers: drf, proportion (allocatable off), predicates, nodeorder.
std::vector<Tier> fair_share_tiers() {
  return {Tier{{plugin("drf", {Ext::Preemptable, Ext::JobOrder}),
                plugin("proportion", {Ext::QueueOrder, Ext::Reclaimable}),
                plugin("predicates", {Ext::Predicate}), plugin("nodeorder", {Ext::NodeOrder})}}};
}

}  // namespace

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestFareShareAllocate",
              "queue with low DRF share value has high priority, should allocate first") {
  World w;
  w.queue(QueueBuilder("q-1").weight(1));
  w.queue(QueueBuilder("q-2").weight(1));
  w.node(node("node-1", "5", "5G"));
  w.job(JobBuilder("pg-small-1", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(pod("ns-1", "pod-small-1", "1", "1G").on("node-1")));
  w.job(JobBuilder("pg-large-1", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-large-1", "2", "2G")));
  w.job(JobBuilder("pg-large-2", "q-2").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-large-2", "3", "2G")));
  const Outcome o = run_session(w, {"allocate"}, fair_share_tiers());
  check_binds(o, {{"ns-1/pod-large-2", "node-1"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestFareShareAllocate",
              "queue’s DRF share value will be updated and its priority will change before it is put back into the priority queue") {
  World w;
  w.queue(QueueBuilder("q-1").weight(1));
  w.queue(QueueBuilder("q-2").weight(1));
  w.node(node("node-1", "5", "5G"));
  w.job(JobBuilder("pg-small-1", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(pod("ns-1", "pod-small-1", "1", "1G").on("node-1")));
  w.job(JobBuilder("pg-large-1", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-large-1", "2", "2G")));
  w.job(JobBuilder("pg-small-2", "q-2").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-small-2", "1", "1G")));
  w.job(JobBuilder("pg-large-2", "q-2").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-large-2", "2", "2G")));
  const Outcome o = run_session(w, {"allocate"}, fair_share_tiers());
  check_binds(o, {{"ns-1/pod-large-1", "node-1"}, {"ns-1/pod-large-2", "node-1"}});
}

UPSTREAM_CASE("actions/allocate/allocate_test.go", "TestFareShareAllocate",
              "queue’s one jobs has no pending tasks, should be put back to queues for next job") {
  World w;
  w.queue(QueueBuilder("q-1").weight(1));
  w.node(node("node-1", "5", "5G"));
  w.job(JobBuilder("pg-1", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(pod("ns-1", "pod-1", "1", "1G").on("node-1")));
  w.job(JobBuilder("pg-2", "q-1").min_available(0).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns-1", "pod-2", "2", "2G")));
  const Outcome o = run_session(w, {"allocate"}, fair_share_tiers());
  check_binds(o, {{"ns-1/pod-2", "node-1"}});
}

// ---------------------------------------------------------------- the per-task gang in allocate
// Written from allocate.go (allocateResourcesForTasks) and api/job_info.go at v1.12.1: the role
// cache (TaskHasFitErrors) and NeedContinueAllocating's two rules.

namespace {
/// Runs allocate once on `w` with TestAllocate's tiers.
Outcome allocate_once(World& w) { return run_session(w, {"allocate"}, test_allocate_tiers()); }

/// pg1 in queue c1 (Inqueue, no minResources), minAvailable `min`, with `pods`.
JobBuilder pg1(int min, std::initializer_list<Pod> pods) {
  JobBuilder j("pg1", "c1");
  j.min_available(min).no_min_resources().phase(PodGroupPhase::Inqueue);
  for (const Pod& p : pods) j.pod(p);
  return j;
}
}  // namespace

SOURCE_CASE("actions/allocate/allocate.go",
            "TaskHasFitErrors :370-374 and NeedContinueAllocating rule 1 (api/job_info.go:860-868): once a role found "
            "no node its other pods are skipped without a try; with minAvailable below the sum of minTaskMember the job "
            "goes on while its ready pods plus the pending pods of roles that have not failed reach minAvailable") {
  World w;
  w.queue(QueueBuilder("c1").weight(1));
  w.node(node("n1", "2", "4Gi"));
  // minTaskMember a 2 + b 2 = 4 > minAvailable 2. a's pods want a label no node has: a-0 fails,
  // then 0 ready + 2 pending of b >= 2, go on; a-1 is skipped; b-0 and b-1 make the gang.
  w.job(pg1(2, {pod("c1", "a-0", "1", "1G").role("a").node_selector("zone", "none"),
                pod("c1", "a-1", "1", "1G").role("a").node_selector("zone", "none"),
                pod("c1", "b-0", "1", "1G").role("b"), pod("c1", "b-1", "1", "1G").role("b")})
            .min_task_member("a", 2).min_task_member("b", 2));
  const Outcome r = allocate_once(w);
  CHECK(r.binds == std::map<std::string, std::string>{{"c1/b-0", "n1"}, {"c1/b-1", "n1"}});
  CHECK(r.fit_errors == std::set<std::string>{"c1/a-0"});  // a-1 never tried

  // The same with minAvailable 3 (still below 4): 0 ready + 2 pending of b < 3, stop at a-0.
  World w3;
  w3.queue(QueueBuilder("c1").weight(1));
  w3.node(node("n1", "2", "4Gi"));
  w3.job(pg1(3, {pod("c1", "a-0", "1", "1G").role("a").node_selector("zone", "none"),
                 pod("c1", "a-1", "1", "1G").role("a").node_selector("zone", "none"),
                 pod("c1", "b-0", "1", "1G").role("b"), pod("c1", "b-1", "1", "1G").role("b")})
             .min_task_member("a", 2).min_task_member("b", 2));
  const Outcome r3 = allocate_once(w3);
  CHECK(r3.binds.empty());
  CHECK(r3.fit_errors == std::set<std::string>{"c1/a-0"});
}

SOURCE_CASE("actions/allocate/allocate.go",
            "NeedContinueAllocating rule 2 (api/job_info.go:870-884): with minAvailable at least the sum of "
            "minTaskMember, a failed role that already holds its minimum lets the job go on to be ready; one below it "
            "stops the turn (:408-416 break), and the job cannot be ready (CheckTaskReady) whatever else it holds") {
  for (const int a_min : {1, 2}) {
    CAPTURE(a_min);
    World w;
    w.queue(QueueBuilder("c1").weight(1));
    w.node(node("n1", "3", "4Gi"));
    // a-0 fits, a-1 wants a label no node has, b-0 and b-1 fit.
    w.job(pg1(3, {pod("c1", "a-0", "1", "1G").role("a"), pod("c1", "a-1", "1", "1G").role("a").node_selector("zone", "none"),
                  pod("c1", "b-0", "1", "1G").role("b"), pod("c1", "b-1", "1", "1G").role("b")})
              .min_task_member("a", a_min).min_task_member("b", 3 - a_min));
    Outcome r = allocate_once(w);
    CHECK(r.fit_errors == std::set<std::string>{"c1/a-1"});
    INFO(r.reasons["pg1"]);
    if (a_min == 1) {  // a holds 1 of 1: go on; 3 allocated, every role at its minimum: ready
      CHECK(r.binds == std::map<std::string, std::string>{{"c1/a-0", "n1"}, {"c1/b-0", "n1"}, {"c1/b-1", "n1"}});
    } else {
      // a holds 1 of 2: stop at a-1. The job goes back to its queue with b-0 and b-1 left
      // (allocate.go:199-203), which a second turn allocates: 3 allocated >= minAvailable 3, but
      // a holds 1 of its 2 (CheckTaskReady), so the job is not ready and nothing binds.
      CHECK(r.binds.empty());
      CHECK(r.reasons["pg1"].rfind("gang: 0/4 tasks in gang unschedulable", 0) == 0);  // a-0, b-0, b-1 last Allocated
    }
  }
}
