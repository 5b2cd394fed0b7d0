// Volcano v1.12.1 pkg/scheduler/plugins/priority/priority_test.go, ported.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// The PriorityClasses the test registers: low-priority 100, high-priority 1000.
constexpr int kLowPrio = 100;
constexpr int kHighPrio = 1000;

/// The priority plugin alone. pluginEnableEvict also enables Reclaimable, for which the
/// priority plugin registers nothing; pluginDisableEvict sets Preemptable and Reclaimable false.
std::vector<Tier> priority_tiers(bool enable_evict) {
  std::vector<Ext> on{Ext::TaskOrder, Ext::JobOrder, Ext::JobStarving};
  if (enable_evict) {
    on.push_back(Ext::Preemptable);
    on.push_back(Ext::Reclaimable);
  }
  return {Tier{{plugin("priority", on)}}};
}

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods 10), {}).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(10);
  return n;
}

/// util.BuildPod(ns, name, ...) named "ns/name"; without spec.priority the task's priority is 1
/// (api/job_info.go:193).
Pod pod(const std::string& ns, const std::string& name, std::string_view cpu, std::string_view memory) {
  Pod p;
  p.name(ns + "/" + name).cpu(cpu).memory(memory).priority(1);
  return p;
}

/// util.BuildPodGroupWithPrio(name, ns, "q1", 1, {}, Inqueue, class), named by its job ID
/// "ns/name" (the key of ExpectPipeLined); no minResources.
JobBuilder podgroup(const std::string& ns, const std::string& name, int priority) {
  JobBuilder j(ns + "/" + name, "q1");
  j.min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue).priority(priority);
  return j;
}

}  // namespace

UPSTREAM_CASE("plugins/priority/priority_test.go", "TestPreempt", "enable preempt low priority: enablePreemptable:true") {
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("6").memory("6G")));
  w.node(node("node1", "6", "6G"));
  w.node(node("node2", "2", "2G"));
  w.job(podgroup("ns1", "pg1", kLowPrio)
            .pod(pod("ns1", "preemptee1", "3", "3G").on("node1").preemptable(true))
            .pod(pod("ns1", "preemptee2", "3", "3G").on("node1").preemptable(true).priority(1000)));
  w.job(podgroup("ns2", "pg2", kHighPrio).pod(pod("ns2", "preemptor1", "3", "3G")));
  const Outcome o = run_session(w, {"allocate", "preempt"}, priority_tiers(true));
  check_binds(o, {});
  check_evicted(o, {"ns1/preemptee1"});
  check_pipelined(o, {{"ns2/pg2", {"node1"}}});
}

UPSTREAM_CASE("plugins/priority/priority_test.go", "TestPreempt", "disable preempt low priority: enablePreemptable:false") {
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("6").memory("6G")));
  w.node(node("node1", "3", "3G"));
  w.node(node("node2", "3", "3G"));
  w.job(podgroup("ns1", "pg1", kLowPrio)
            .pod(pod("ns1", "preemptee1", "3", "3G").on("node1").preemptable(true))
            .pod(pod("ns1", "preemptee2", "3", "3G").on("node2").preemptable(false)));
  w.job(podgroup("ns2", "pg2", kHighPrio).pod(pod("ns2", "preemptor1", "3", "3G")));
  const Outcome o = run_session(w, {"allocate", "preempt"}, priority_tiers(false));
  check_binds(o, {});
  check_evicted(o, {});
}
