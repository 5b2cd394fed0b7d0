// The PodGroup phase a session leaves (Volcano v1.12.1 pkg/scheduler/framework/session.go:348-389
// jobStatus), branch by branch, and what each action does with a PodGroup in phase Unknown.
// Upstream has no table test of jobStatus; each case cites the lines it follows.
#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

Tier gang_and_predicates() {
  return Tier{{plugin("gang", {Ext::JobOrder, Ext::JobReady, Ext::JobPipelined, Ext::JobStarving, Ext::Preemptable,
                               Ext::Reclaimable}),
               plugin("predicates", {Ext::Predicate})}};
}

/// A two-pod gang (minMember 2) in phase `phase`: g-0 Running on n1, g-1 Pending asking for
/// `cpu_of_second` cores. n1 has 2 cores.
World running_gang_missing_a_pod(PodGroupPhase phase, const char* cpu_of_second) {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n1").cpu("2").memory("8Gi").pods(10));
  w.job(JobBuilder("g", "q").min_available(2).no_min_resources().phase(phase)
            .pod(Pod().name("g-0").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("g-1").cpu(cpu_of_second).memory("1Gi")));
  return w;
}

}  // namespace

SOURCE_CASE("framework/session.go", "jobStatus :361-363: a Running task and gang's Unschedulable condition of this session give Unknown") {
  // g-1 (2 cores) does not fit beside g-0: the gang stays unready, gang.go:170-205 stamps the
  // condition with the session, and the Running g-0 makes the phase Unknown.
  World w = running_gang_missing_a_pod(PodGroupPhase::Running, "2");
  const Outcome o = run_session(w, {"allocate"}, {gang_and_predicates()});
  check_binds(o, {});
  check_phases(o, {{"g", PodGroupPhase::Unknown}});
}

SOURCE_CASE("framework/session.go", "jobStatus :379-380: without gang nothing marks the PodGroup, and a Running gang short of minMember goes Pending") {
  World w = running_gang_missing_a_pod(PodGroupPhase::Running, "2");
  const Outcome o = run_session(w, {"allocate"}, {Tier{{plugin("predicates", {Ext::Predicate})}}});
  check_phases(o, {{"g", PodGroupPhase::Pending}});
}

SOURCE_CASE("framework/session.go", "jobStatus :379: an Inqueue gang short of minMember with no Running task keeps Inqueue") {
  // g-0 Bound (not Running): gang marks the job (ready 1 < 2) but no task runs, so not Unknown;
  // allocated 1 < 2 and the phase is Inqueue: unchanged.
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n1").cpu("2").memory("8Gi").pods(10));
  w.job(JobBuilder("g", "q").min_available(2).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(Pod().name("g-0").cpu("1").memory("1Gi").on("n1", TaskStatus::Bound))
            .pod(Pod().name("g-1").cpu("2").memory("1Gi")));
  const Outcome o = run_session(w, {"allocate"}, {gang_and_predicates()});
  check_phases(o, {{"g", PodGroupPhase::Inqueue}});
}

SOURCE_CASE("framework/session.go", "jobStatus :372-378: allocated >= minMember is Running, Completed once every allocated task Succeeded or Failed") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n1").cpu("4").memory("8Gi").pods(10));
  w.job(JobBuilder("busy", "q").min_available(2).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(Pod().name("busy-0").cpu("1").on("n1"))
            .pod(Pod().name("busy-1").cpu("1").on("n1", TaskStatus::Succeeded)));
  w.job(JobBuilder("done", "q").min_available(2).no_min_resources().phase(PodGroupPhase::Running)
            .pod(Pod().name("done-0").cpu("1").on("n1", TaskStatus::Succeeded))
            .pod(Pod().name("done-1").cpu("1").on("n1", TaskStatus::Failed)));
  const Outcome o = run_session(w, {"allocate"}, {gang_and_predicates()});
  check_phases(o, {{"busy", PodGroupPhase::Running}, {"done", PodGroupPhase::Completed}});
}

SOURCE_CASE("actions/enqueue/enqueue.go", "an Unknown PodGroup is not enqueued: only Pending (or empty) ones are (enqueue.go:70, api/job_info.go:1043-1047 IsPending)") {
  // Without gang, jobStatus would keep an Inqueue phase (:379) but turns Unknown into Pending.
  World w = running_gang_missing_a_pod(PodGroupPhase::Unknown, "1");
  const Outcome o = run_session(w, {"enqueue"}, {Tier{{plugin("predicates", {Ext::Predicate})}}});
  check_binds(o, {});
  check_phases(o, {{"g", PodGroupPhase::Pending}});
}

SOURCE_CASE("actions/allocate/allocate.go", "allocate serves an Unknown PodGroup (it skips Pending ones, allocate.go:89); jobStatus makes it Running") {
  World w = running_gang_missing_a_pod(PodGroupPhase::Unknown, "1");
  const Outcome o = run_session(w, {"allocate"}, {gang_and_predicates()});
  check_binds(o, {{"g-1", "n1"}});
  check_phases(o, {{"g", PodGroupPhase::Running}});
}

SOURCE_CASE("actions/backfill/backfill.go", "backfill places a BestEffort pod of an Unknown PodGroup (it skips Pending ones, backfill.go:114)") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n1").cpu("2").memory("8Gi").pods(10));
  w.job(JobBuilder("g", "q").min_available(2).no_min_resources().phase(PodGroupPhase::Unknown)
            .pod(Pod().name("g-0").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("g-1")));  // requests nothing: BestEffort
  const Outcome o = run_session(w, {"backfill"}, {gang_and_predicates()});
  check_binds(o, {{"g-1", "n1"}});
}

SOURCE_CASE("actions/preempt/preempt.go", "preempt serves an Unknown PodGroup: its Pending pod evicts a lower-priority pod (it skips Pending ones, preempt.go:66)") {
  // n1 holds the gang's running pod, n2 a priority-1 pod of a job with minMember 0 (gang lets
  // it go: occupied 1 > 0). The gang (priority 100) is starving: its g-1 pipelines onto n2.
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("n1").cpu("1").memory("4Gi").pods(10));
  w.node(NodeBuilder("n2").cpu("1").memory("4Gi").pods(10));
  w.job(JobBuilder("g", "q").min_available(2).no_min_resources().priority(100).phase(PodGroupPhase::Unknown)
            .pod(Pod().name("g-0").cpu("1").memory("1Gi").priority(100).on("n1"))
            .pod(Pod().name("g-1").cpu("1").memory("1Gi").priority(100)));
  w.job(JobBuilder("low", "q").min_available(0).no_min_resources().priority(1).phase(PodGroupPhase::Running)
            .pod(Pod().name("low-0").cpu("1").memory("1Gi").priority(1).on("n2")));
  Tier t = gang_and_predicates();
  t.plugins.insert(t.plugins.begin(), plugin("priority", {Ext::JobOrder, Ext::TaskOrder, Ext::Preemptable}));
  const Outcome o = run_session(w, {"preempt"}, {t});
  check_evicted(o, {"low-0"});
  check_pipelined(o, {{"g", {"n2"}}});
}

SOURCE_CASE("actions/reclaim/reclaim.go", "reclaim serves an Unknown PodGroup: its Pending pod reclaims from an overused queue (it skips Pending ones, reclaim.go:54)") {
  // 4 cores; q1 and q2 deserve 2 each (proportion, equal weights); q2 holds 3: overused. The
  // Unknown gang of q1 asks for 1 more core: one pod of q2 is evicted.
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.queue(QueueBuilder("q2").weight(1));
  w.node(NodeBuilder("n1").cpu("2").memory("8Gi").pods(10));
  w.node(NodeBuilder("n2").cpu("2").memory("8Gi").pods(10));
  w.job(JobBuilder("g", "q1").min_available(2).no_min_resources().phase(PodGroupPhase::Unknown)
            .pod(Pod().name("g-0").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("g-1").cpu("1").memory("1Gi")));
  w.job(JobBuilder("other", "q2").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(Pod().name("other-0").cpu("1").memory("1Gi").on("n1"))
            .pod(Pod().name("other-1").cpu("1").memory("1Gi").on("n2"))
            .pod(Pod().name("other-2").cpu("1").memory("1Gi").on("n2")));
  Tier t = gang_and_predicates();
  t.plugins.push_back(plugin("proportion", {Ext::QueueOrder, Ext::Reclaimable, Ext::Overused}));
  const Outcome o = run_session(w, {"reclaim"}, {t});
  REQUIRE(o.evicted.size() == 1);
  CHECK(o.evicted[0].rfind("other-", 0) == 0);
}
