// A pod's spec.preemptionPolicy Never (Kubernetes copies its PriorityClass's) in Volcano v1.12.1's
// preempt and reclaim actions, where the upstream cases do not reach the rule (reclaim_test.go's
// case has no starving job): the same world with and without the policy.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// 4 cores, all held by q2; q1's job "g" (minMember 1, starving) asks for 1: proportion gives
/// q1 its request (1) and q2 the rest (3), so q2 is over its deserved share and reclaimable.
Outcome reclaim_for(bool never) {
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1));
  w.node(NodeBuilder("n1").cpu("2").memory("8Gi").pods(10));
  w.node(NodeBuilder("n2").cpu("2").memory("8Gi").pods(10));
  Pod p = Pod().name("g-0").cpu("1").memory("1Gi");
  if (never) p.preemption_policy_never();
  w.job(JobBuilder("g", "q1").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue).pod(p));
  w.job(JobBuilder("other", "q2").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(Pod().name("other-0").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("other-1").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("other-2").cpu("1").memory("1Gi").on("n2"))
            .pod(Pod().name("other-3").cpu("1").memory("1Gi").on("n2")));
  const Tier t{{plugin("gang", {Ext::JobStarving, Ext::Reclaimable}), plugin("predicates", {Ext::Predicate}),
                plugin("proportion", {Ext::QueueOrder, Ext::Reclaimable, Ext::Overused})}};
  return run_session(w, {"reclaim"}, {t});
}

}  // namespace

SOURCE_CASE("actions/reclaim/reclaim.go", "a task with preemptionPolicy Never reclaims nothing; without it one pod of the overused queue goes (:117-124)") {
  CHECK(reclaim_for(false).evicted.size() == 1);
  const Outcome o = reclaim_for(true);
  check_evicted(o, {});
  check_binds(o, {});
}
