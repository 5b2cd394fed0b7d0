// Volcano v1.12.1 pkg/scheduler/plugins/predicates/predicates_test.go, ported.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;
constexpr const char* kFile = "plugins/predicates/predicates_test.go";

}  // namespace

NOT_APPLICABLE(kFile, "TestEventHandler", "pod-deallocate",
               "inter-pod anti-affinity (spec.affinity.podAntiAffinity, the InterPodAffinity filter and the predicates "
               "plugin's allocate/deallocate event handlers that keep it current) is not modelled: the case checks that "
               "pg1's discarded allocation no longer repels worker-3");
NOT_APPLICABLE(kFile, "TestPodAntiAffinity", "pod-anti-affinity",
               "inter-pod anti-affinity (spec.affinity.podAntiAffinity, pod labels, the InterPodAffinity filter) is not "
               "modelled: the case checks that worker-3 preempts nothing on a node whose worker-1 it repels (predicates.go:592-598 "
               "makes any InterPodAffinity failure UnschedulableAndUnresolvable, so preempt skips the node)");

UPSTREAM_CASE("plugins/predicates/predicates_test.go", "TestNodeNum", "pod-predicate") {
  // Three pods without requests (BestEffort: backfill places them) on a node that allows two
  // pods. PriorityClasses p1 = 1, p2 = 2; BuildPod gives no spec.priority, so each task has
  // priority 1 (api/job_info.go:193).
  World w;
  w.queue(QueueBuilder("q1").weight(0));
  w.node(NodeBuilder("node1").cpu("4").memory("4k").pods(2).label("selector", "worker"));
  w.job(JobBuilder("pg1", "q1").min_available(2).no_min_resources().phase(PodGroupPhase::Inqueue).priority(2)
            .pod(Pod().name("ns1/worker-1").priority(1).node_selector("selector", "worker"))
            .pod(Pod().name("ns1/worker-2").priority(1)));
  w.job(JobBuilder("pg2", "q1").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue).priority(1)
            .pod(Pod().name("ns1/worker-3").priority(1)));
  const Outcome o = run_session(w, {"allocate", "backfill"}, {Tier{{plugin("predicates", {Ext::Predicate})}}});
  check_binds(o, {{"ns1/worker-1", "node1"}, {"ns1/worker-2", "node1"}});
}
