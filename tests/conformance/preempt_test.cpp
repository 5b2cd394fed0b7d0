// Volcano v1.12.1 pkg/scheduler/actions/preempt/preempt_test.go, ported.
//
// Every case runs the preempt action alone; uthelper CheckAll then checks the binds (none is
// expected in any case) and the evictions.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// The PriorityClasses the test registers: high-priority 100000, low-priority 10. A PodGroup
/// without a class gets the cache's default priority, 0 (no global default class).
constexpr int kHighPrio = 100000;
constexpr int kLowPrio = 10;

/// TestPreempt's tiers: conformance, gang, priority, proportion with the listed switches.
std::vector<Tier> test_preempt_tiers() {
  return {Tier{{plugin("conformance", {Ext::Preemptable}),
                plugin("gang", {Ext::Preemptable, Ext::JobPipelined, Ext::JobStarving}),
                plugin("priority", {Ext::TaskOrder, Ext::JobOrder, Ext::Preemptable, Ext::JobPipelined, Ext::JobStarving}),
                plugin("proportion", {Ext::Overused, Ext::Allocatable, Ext::QueueOrder})}}};
}

/// util.BuildNode(name, BuildResourceList(cpu, memory, pods n), {}).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory, int pods) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory).pods(pods);
  return n;
}

/// util.BuildPod(ns, name, ...) with BuildResourceList(cpu, memory), named "ns/name" (the key
/// upstream's fake evictor records). No spec.priority: Volcano's NewTaskInfo gives the task
/// priority 1 (api/job_info.go:193).
Pod pod(const std::string& ns, const std::string& name, std::string_view cpu, std::string_view memory) {
  Pod p;
  p.name(ns + "/" + name).cpu(cpu).memory(memory).priority(1);
  return p;
}

/// A pod with v1.ResourceList{} (BestEffort: it requests nothing but its `pods` slot).
Pod best_effort_pod(const std::string& ns, const std::string& name) {
  Pod p;
  p.name(ns + "/" + name).priority(1);
  return p;
}

/// util.BuildPodGroup(WithPrio)(name, ns, queue, minMember, minTaskMember, Inqueue, class): no
/// minResources; each case adds its minTaskMember (role "": upstream's pods name no task-spec).
JobBuilder podgroup(std::string name, std::string queue, int min_member, int priority = 0) {
  JobBuilder j(std::move(name), std::move(queue));
  j.min_available(min_member).no_min_resources().phase(PodGroupPhase::Inqueue).priority(priority);
  return j;
}

}  // namespace

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "do not preempt if there are enough idle resources") {
  // minTaskMember {"": 3} = minMember: its task-level gang checks count the same pods as the
  // job-level ones (every pod has the empty role).
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(node("n1", "10", "10G", 10));
  w.job(podgroup("pg1", "q1", 3).min_task_member("", 3)
            .pod(pod("c1", "preemptee1", "1", "1G").on("n1"))
            .pod(pod("c1", "preemptee2", "1", "1G").on("n1"))
            .pod(pod("c1", "preemptor1", "1", "1G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "do not preempt if job is pipelined") {
  // minTaskMember {"": 2} sums above minMember 1: Volcano skips the task-level checks.
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(node("n1", "3", "3G", 10));
  w.job(podgroup("pg1", "q1", 1).min_task_member("", 2)
            .pod(pod("c1", "preemptee1", "1", "1G").on("n1"))
            .pod(pod("c1", "preemptee2", "1", "1G").on("n1")));
  w.job(podgroup("pg2", "q1", 1).min_task_member("", 2)
            .pod(pod("c1", "preemptee3", "1", "1G").on("n1"))
            .pod(pod("c1", "preemptor2", "1", "1G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "preempt one task of different job to fit both jobs on one node") {
  // minTaskMember {"": 2} sums above minMember 1: Volcano skips the task-level checks.
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(node("n1", "2", "2G", 10));
  w.job(podgroup("pg1", "q1", 1, kLowPrio).min_task_member("", 2)
            .pod(pod("c1", "preemptee1", "1", "1G").on("n1").preemptable(true))
            .pod(pod("c1", "preemptee2", "1", "1G").on("n1").preemptable(false)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 2)
            .pod(pod("c1", "preemptor1", "1", "1G"))
            .pod(pod("c1", "preemptor2", "1", "1G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee1"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "preempt enough tasks to fit large task of different job") {
  // pg1's minTaskMember {"": 3} sums above its minMember 1 (skipped); pg2's {"": 1} counts its
  // one pod, as minMember 1 does.
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(node("n1", "6", "6G", 10));
  w.job(podgroup("pg1", "q1", 1, kLowPrio).min_task_member("", 3)
            .pod(pod("c1", "preemptee1", "1", "1G").on("n1").preemptable(true))
            .pod(pod("c1", "preemptee2", "1", "1G").on("n1").preemptable(true))
            .pod(pod("c1", "preemptee3", "1", "1G").on("n1").preemptable(false)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(pod("c1", "preemptor1", "5", "5G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee2", "c1/preemptee1"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "preempt low priority job in same queue") {
  // pg2's minTaskMember {"": 1} counts its one pod, as minMember 1 does.
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("4").memory("4G")));
  w.node(node("n1", "12", "12G", 10));
  w.job(podgroup("pg1", "q1", 0, kLowPrio).pod(pod("c1", "preemptee1", "3", "3G").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(pod("c1", "preemptor1", "3", "3G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee1"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt",
              "preempt low priority job in same queue: allocatable and has enough resource, don't preempt") {
  // pg2's minTaskMember {"": 1} counts its one pod, as minMember 1 does.
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("6").memory("6G")));
  w.node(node("n1", "12", "12G", 10));
  w.job(podgroup("pg1", "q1", 1, kLowPrio).pod(pod("c1", "preemptee1", "3", "3G").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(pod("c1", "preemptor1", "3", "3G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "preempt low priority job in same queue [2]") {
  // pg2's minTaskMember {"": 1} counts its one pod, as minMember 1 does.
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("3").memory("3G")));
  w.node(node("n1", "12", "12G", 10));
  w.job(podgroup("pg1", "q1", 1, kLowPrio)
            .pod(pod("c1", "preemptee1", "1", "1G").on("n1").preemptable(false))
            .pod(pod("c1", "preemptee2", "1", "1G").on("n1").preemptable(true))
            .pod(pod("c1", "preemptee3", "1", "1G").on("n1").preemptable(true).priority(kHighPrio)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(pod("c1", "preemptor1", "1", "1G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee2"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt",
              "unBestEffort high-priority pod preempt BestEffort low-priority pod in same queue") {
  // The node has room for one pod: the BestEffort preemptee holds it.
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("6").memory("6G")));
  w.node(node("n1", "12", "12G", 1));
  w.job(podgroup("pg1", "q1", 0, kLowPrio).pod(best_effort_pod("c1", "preemptee1").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(pod("c1", "preemptor1", "3", "3G")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee1"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt",
              "BestEffort high-priority pod preempt BestEffort low-priority pod in same queue") {
  World w;
  w.queue(QueueBuilder("q1").weight(1).capability(Pod().cpu("6").memory("6G")));
  w.node(node("n1", "12", "12G", 1));
  w.job(podgroup("pg1", "q1", 0, kLowPrio).pod(best_effort_pod("c1", "preemptee1").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).min_task_member("", 1).pod(best_effort_pod("c1", "preemptor1")));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {"c1/preemptee1"});
}

UPSTREAM_CASE("actions/preempt/preempt_test.go", "TestPreempt", "can not preempt resources when task preemption policy is never") {
  // Without preemptionPolicy Never, preemptor1 (high-priority PodGroup) would evict preemptee1:
  // the case checks taskEligibleToPreempt (preempt.go:338-344).
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(node("n1", "1", "1Gi", 1));
  w.job(podgroup("pg1", "q1", 0, kLowPrio).pod(pod("c1", "preemptee1", "1", "1G").on("n1").preemptable(true)));
  w.job(podgroup("pg2", "q1", 1, kHighPrio).pod(pod("c1", "preemptor1", "1", "1G").preemption_policy_never()));
  const Outcome o = run_session(w, {"preempt"}, test_preempt_tiers());
  check_binds(o, {});
  check_evicted(o, {});
}
