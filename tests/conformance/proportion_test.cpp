// Volcano v1.12.1 pkg/scheduler/plugins/proportion/proportion_test.go, ported.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;
constexpr const char* kFile = "plugins/proportion/proportion_test.go";

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods 10), ...).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(10);
  return n;
}

/// util.BuildPod(ns, name, ...): named "ns/name", the key upstream's fake binder records.
Pod pod(const std::string& ns, const std::string& name, std::string_view cpu, std::string_view memory) {
  Pod p;
  p.name(ns + "/" + name).cpu(cpu).memory(memory);
  return p;
}

/// api.BuildResourceList(cpu, memory) as a Pod's requests (for capabilities and minResources).
Pod res(std::string_view cpu, std::string_view memory) { return Pod().cpu(cpu).memory(memory); }

}  // namespace

NOT_APPLICABLE(kFile, "TestProportion", "",
               "asserts only the Prometheus gauges volcano_queue_allocated_milli_cpu / _memory_bytes "
               "(pkg/scheduler/metrics), scraped over HTTP from :8081 between sessions while PodGroups are "
               "deleted (proportion_test.go:214-281); mltwin exports no scheduler metrics. The cases' expected "
               "binds are never checked, and the test returns after its first case, so realcapability-test "
               "never runs");

namespace {

/// TestEnqueueAndAllocable's world: nodes n1, n2 (2 cpu, 2G, 10 pods); queues q1 (cap 2, 2G),
/// q2 (cap 3, 3G); pg1 (q1) Running pod1 1c2G on n1, pg2 (q2) Running pod2 2c1G on n2; each
/// PodGroup with minMember 1 and minResources its pod's request. `pending` adds the Pending
/// PodGroups (with their Pending pods) the case lists: 3 (1c0G, q1), 4 (0c1G, q2), 5 (1c1G, q1).
World enqueue_and_allocable_world(std::initializer_list<int> pending) {
  World w;
  w.node(node("n1", "2", "2G"));
  w.node(node("n2", "2", "2G"));
  w.queue(QueueBuilder("q1").weight(1).capability(res("2", "2G")));
  w.queue(QueueBuilder("q2").weight(1).capability(res("3", "3G")));
  w.job(JobBuilder("pg1", "q1").min_available(1).min_resources(res("1", "2G")).phase(PodGroupPhase::Running)
            .pod(pod("ns1", "pod1", "1", "2G").on("n1")));
  w.job(JobBuilder("pg2", "q2").min_available(1).min_resources(res("2", "1G")).phase(PodGroupPhase::Running)
            .pod(pod("ns1", "pod2", "2", "1G").on("n2")));
  for (int i : pending) {
    const char* cpu = i == 4 ? "0" : "1";
    const char* mem = i == 3 ? "0G" : "1G";
    const std::string n = std::to_string(i);
    w.job(JobBuilder("pg" + n, i == 4 ? "q2" : "q1").min_available(1).min_resources(res(cpu, mem))
              .phase(PodGroupPhase::Pending)
              .pod(pod("ns1", "pod" + n, cpu, mem)));
  }
  return w;
}

/// The proportion plugin alone with allocatable, overused and jobEnqueued as given.
std::vector<Tier> proportion_tier(bool allocatable, bool overused, bool job_enqueued) {
  std::vector<Ext> on;
  if (allocatable) on.push_back(Ext::Allocatable);
  if (overused) on.push_back(Ext::Overused);
  if (job_enqueued) on.push_back(Ext::JobEnqueued);
  return {Tier{{plugin("proportion", on)}}};
}

}  // namespace

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestEnqueueAndAllocable",
              "case0: memory exceed derserved, job only request cpu can be enqueued and allocated") {
  World w = enqueue_and_allocable_world({3});
  const Outcome o = run_session(w, {"enqueue", "allocate"}, proportion_tier(true, true, true));
  check_binds(o, {{"ns1/pod3", "n1"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestEnqueueAndAllocable",
              "case1: cpu exceed derserved, job only request memory can be enqueued and allocated") {
  World w = enqueue_and_allocable_world({4});
  const Outcome o = run_session(w, {"enqueue", "allocate"}, proportion_tier(true, true, true));
  check_binds(o, {{"ns1/pod4", "n2"}});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestEnqueueAndAllocable", "case2: exceed capacity, can not enqueue") {
  World w = enqueue_and_allocable_world({5});
  const Outcome o = run_session(w, {"enqueue", "allocate"}, proportion_tier(false, false, true));
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestEnqueueAndAllocable", "case3: exceed deserved, can not allocate") {
  World w = enqueue_and_allocable_world({5});
  const Outcome o = run_session(w, {"enqueue", "allocate"}, proportion_tier(true, false, false));
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestEnqueueAndAllocable", "case4: queue with  non-open state, can not enqueue") {
  World w;
  w.node(node("n1", "2", "2G"));
  w.node(node("n2", "2", "2G"));
  w.queue(QueueBuilder("q3").weight(1).capability(res("3", "3G")).closed());
  w.job(JobBuilder("pg6", "q3").min_available(1).min_resources(res("1", "1G")).phase(PodGroupPhase::Pending)
            .pod(pod("ns1", "pod6", "1", "1G")));
  const Outcome o = run_session(w, {"enqueue", "allocate"}, proportion_tier(false, false, true));
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("plugins/proportion/proportion_test.go", "TestAllocate",
              "case0: Pods are assigned according to the order of Queue Priority in which PGs are placed") {
  // BuildQueueWithPriorityAndResourcesQuantity(name, priority, deserved nil, capability): weight 1.
  World w;
  w.node(node("n1", "2", "4Gi"));
  w.node(node("n2", "2", "4Gi"));
  w.queue(QueueBuilder("q1").weight(1).priority(5).capability(res("2", "4Gi")));
  w.queue(QueueBuilder("q2").weight(1).priority(1).capability(res("2", "4Gi")));
  w.queue(QueueBuilder("q3").weight(1).priority(10).capability(res("2", "4Gi")));
  w.job(JobBuilder("pg1", "q1").min_available(1).no_min_resources().phase(PodGroupPhase::Running)
            .pod(pod("ns1", "p1", "2", "4Gi").on("n1")));
  w.job(JobBuilder("pg2", "q2").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns1", "p2", "2", "4Gi")));
  w.job(JobBuilder("pg3", "q3").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(pod("ns1", "p3", "2", "4Gi")));
  const Outcome o = run_session(w, {"allocate", "reclaim"}, {Tier{{plugin("proportion", {Ext::QueueOrder})}}});
  check_binds(o, {{"ns1/p3", "n2"}});
  check_evicted(o, {});
}
