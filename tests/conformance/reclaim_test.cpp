// Volcano v1.12.1 pkg/scheduler/actions/reclaim/reclaim_test.go, ported.
//
// TestReclaim's tier names five plugins, but each case registers only some of them
// (TestCommonStruct.Plugins): framework.OpenSession skips a plugin it has no builder for, so a
// case's tier here holds just the plugins it registers, with the shared switches. uthelper
// CheckAll always checks the binds too: none are expected (reclaim pipelines, it does not bind).
// A PodGroup's priorityClassName becomes the job's priority when the case defines that
// PriorityClass, else the cache's default priority, 0 (cache.go Snapshot).
#include <set>

#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// TestReclaim's tier, restricted to the plugins in `registered`.
std::vector<Tier> reclaim_tiers(const std::set<std::string>& registered) {
  const std::vector<PluginOption> all = {
      plugin("conformance", {Ext::Reclaimable}),
      plugin("gang", {Ext::Reclaimable, Ext::JobStarving}),
      plugin("proportion", {Ext::Reclaimable, Ext::QueueOrder, Ext::Preemptive}),
      plugin("capacity", {Ext::Reclaimable, Ext::QueueOrder, Ext::Preemptive}),
      plugin("priority", {Ext::JobOrder, Ext::TaskOrder}),
  };
  Tier t;
  for (const PluginOption& p : all)
    if (registered.count(p.name)) t.plugins.push_back(p);
  return {t};
}

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods), {}).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory, int pods) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(pods);
  return n;
}

/// util.BuildPod("c1", name, ...) with BuildResourceList("1", "1G"): named "c1/name".
Pod pod(const std::string& name) {
  Pod p;
  p.name("c1/" + name).cpu("1").memory("1G");
  return p;
}

/// util.BuildPodGroupWithPrio(name, "c1", queue, minMember, nil, phase, class): no minResources;
/// `priority` is the value of the class (see the file comment).
JobBuilder podgroup(const std::string& name, std::string queue, int min_member, PodGroupPhase phase, int priority) {
  JobBuilder j("c1/" + name, std::move(queue));
  j.min_available(min_member).no_min_resources().phase(phase).priority(priority);
  return j;
}

/// The first case's cluster (also the last two's): pg1 in q1 runs preemptee1..3 on n1 (only
/// preemptee2 preemptable), pg2 in q2 waits with preemptor1.
void three_preemptees(World& w, PodGroupPhase pg1_phase) {
  w.node(node("n1", "3", "3Gi", 10));
  w.job(podgroup("pg1", "q1", 1, pg1_phase, 0)
            .pod(pod("preemptee1").on("n1").preemptable(false))
            .pod(pod("preemptee2").on("n1").preemptable(true))
            .pod(pod("preemptee3").on("n1").preemptable(false)));
  w.job(podgroup("pg2", "q2", 1, PodGroupPhase::Inqueue, 0).pod(pod("preemptor1")));
}

}  // namespace

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim", "Two Queue with one Queue overusing resource, should reclaim") {
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1));
  three_preemptees(w, PodGroupPhase::Inqueue);
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "proportion"}));
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee2"});
}

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim", "sort reclaimees when reclaiming from overusing queue") {
  // PriorityClasses low-priority 100, mid-priority 500, high-priority 1000.
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1));
  w.queue(QueueBuilder("q3").weight(1));
  w.node(node("n1", "4", "4Gi", 10));
  w.job(podgroup("pg1", "q1", 1, PodGroupPhase::Inqueue, 500)
            .pod(pod("preemptee1-1").on("n1").preemptable(true))
            .pod(pod("preemptee1-2").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q2", 1, PodGroupPhase::Inqueue, 100)
            .pod(pod("preemptee2-1").on("n1").preemptable(true))
            .pod(pod("preemptee2-2").on("n1").preemptable(false)));
  w.job(podgroup("pg3", "q3", 1, PodGroupPhase::Inqueue, 1000).pod(pod("preemptor1")));
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "priority", "proportion"}));
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee2-1"});
}

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim",
              "sort reclaimees when reclaiming from overusing queues with different queue priority") {
  // No PriorityClass is defined: every job has the default priority.
  World w;
  w.queue(QueueBuilder("q1").weight(1).priority(5));
  w.queue(QueueBuilder("q2").weight(1).priority(10));
  w.queue(QueueBuilder("q3").weight(1).priority(1));
  w.node(node("n1", "4", "4Gi", 10));
  w.job(podgroup("pg1", "q1", 1, PodGroupPhase::Inqueue, 0)
            .pod(pod("preemptee1-1").on("n1").preemptable(true))
            .pod(pod("preemptee1-2").on("n1").preemptable(false)));
  w.job(podgroup("pg2", "q2", 1, PodGroupPhase::Inqueue, 0)
            .pod(pod("preemptee2-1").on("n1").preemptable(true))
            .pod(pod("preemptee2-2").on("n1").preemptable(false)));
  w.job(podgroup("pg3", "q3", 1, PodGroupPhase::Inqueue, 0).pod(pod("preemptor1")));
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "proportion"}));
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee1-1"});
}

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim", "can not reclaim resources when task preemption policy is never") {
  // preemptor1 has preemptionPolicy Never (reclaim.go:117-124). At v1.12.1 the outcome does not
  // hang on it: both PodGroups have minMember 0, so pg2 is not starving (gang's JobStarving:
  // JobInfo.IsStarving, 0 < 0 is false) and reclaim.go never takes its task.
  World w;
  w.queue(QueueBuilder("q1").weight(5));
  w.queue(QueueBuilder("q2").weight(10));
  w.node(node("n1", "1", "1Gi", 1));
  w.job(podgroup("pg1", "q1", 0, PodGroupPhase::Inqueue, 100).pod(pod("preemptee1").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q2", 0, PodGroupPhase::Inqueue, 1000).pod(pod("preemptor1").preemption_policy_never()));
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "proportion"}));
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim", "can not reclaim resources when queue is not open(proportion plugin)") {
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1).closed());
  three_preemptees(w, PodGroupPhase::Running);
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "proportion"}));
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("actions/reclaim/reclaim_test.go", "TestReclaim", "can not reclaim resources when queue is not open(capacity plugin)") {
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1).closed());
  three_preemptees(w, PodGroupPhase::Running);
  const Outcome o = run_session(w, {"reclaim"}, reclaim_tiers({"conformance", "gang", "capacity"}));
  check_binds(o, {});
  check_evicted(o, {});
}
