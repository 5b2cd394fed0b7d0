// Which tier decides a preemption in Volcano v1.12.1 under its default tiers, settled from the
// source (no upstream test covers it): a low-priority job and a gang of higher priority in the
// same queue, actions "allocate, backfill, preempt" (the default without enqueue, plus preempt).
//
// The question (volcano#2612 says a low-priority job must not take a pod from a high-priority
// one in the same queue) is answered by how Session.Preemptable combines the tiers
// (framework/session_plugins.go:213-260):
// - :216-234: plugins of a tier are asked in order; a plugin that answers (abstain != 0) with an
//   empty list sets victims to nil and ends the tier (`break` leaves the plugin loop only);
// - :253-256: the tier decides only `if victims != nil`; otherwise the next tier is asked.
// So an empty answer in tier 1 is not a veto. With the low job as preemptor:
// - tier 1 [priority, gang, conformance]: priority's preemptableFn (plugins/priority/priority.go:
//   86-113) keeps a preemptee of another job only if its job's priority is lower than the
//   preemptor's (:92-99); the high job's pods are all refused, the list is empty, the tier ends
//   (gang's occupied > minAvailable check, plugins/gang/gang.go:93, is not even asked; it would
//   refuse too: 10 ready = minAvailable 10, and an empty list ends the tier the same way).
// - tier 2 [overcommit, drf, predicates, proportion, nodeorder]: drf alone registers a
//   preemptableFn (plugins/drf/drf.go:214-245; overcommit, predicates, proportion and nodeorder
//   register none); it keeps a preemptee when the preemptor's share with the task added is below
//   (or within 1e-6 of) the preemptee job's share without it (:222-236): 8/80 = 0.1 < 72/80 = 0.9.
//   The high job's pod is a victim.
// preempt.go then does the rest (:102-166): the low job is starving (gang IsStarving, priority
// ready+waiting < tasks; tier 1 decides, session_plugins.go:377-401); preempt's filter keeps
// Running pods of other jobs of the same queue (:132-150); nothing in preempt.go compares job
// priorities. proportion's Allocatable is false while the queue holds its whole deserved 80 cpu
// (plugins/proportion/proportion.go:301-316), so the victim is evicted (:283-306), the queue's
// allocated drops to 72 through the DeallocateFunc (:380-390), and the preemptor pipelines onto the
// releasing node (:318-330). gang votes Permit for the low job's JobPipelined (waiting 1 >=
// minAvailable 1, gang.go:145-152, api/job_info.go:1034-1036), so the statement commits (:157-158)
// and the eviction is sent. At close, the high job has 9 ready tasks < 10: gang marks it
// Unschedulable (gang.go:170-205) and with Running tasks jobStatus makes it Unknown
// (framework/session.go:361-363).
//
// So Volcano v1.12.1 does evict the high-priority pod: what the issue saw (three evictions until
// the high job's maxRetry made it Failed, the job controller's policy) is Volcano's behaviour
// under these tiers, and mltwin reproduces it. volcano#2612's expectation holds only if the
// tier-2 victims are cut off: drf's Preemptable off (second case), or priority moved next to drf.
#include <algorithm>

#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// Volcano's default tiers (pkg/scheduler/util.go:33-45 DefaultSchedulerConf), every extension
/// point on as plugins.ApplyPluginConfDefaults leaves it.
std::vector<Tier> default_tiers() { return volcano_default_config().tiers; }

/// Ten nodes of 8 cpu / 32Gi; "high" (priority 100, minAvailable 10) holds all of them with one
/// pod each; "low" (priority 1, minAvailable 1) waits with one pod of a node's size. Without
/// enqueue, an earlier session's allocate made low's PodGroup Inqueue (allocate.go:88-98) and
/// the job controller then created its pod.
World high_gang_and_low_job() {
  World w;
  w.queue(QueueBuilder("default").weight(1));
  JobBuilder high("high", "default");
  high.min_available(10).priority(100).phase(PodGroupPhase::Running);
  for (int i = 0; i < 10; ++i) {
    // (std::string + std::string: GCC 12 warns, wrongly, of overlap in "literal" + rvalue.)
    const std::string index = std::to_string(i), n = std::string("n") + index;
    w.node(NodeBuilder(n).cpu("8").memory("32Gi").pods(110));
    high.pod(Pod().name(std::string("high-") + index).cpu("8").memory("32Gi").priority(100).on(n));
  }
  w.job(high);
  w.job(JobBuilder("low", "default").min_available(1).priority(1).phase(PodGroupPhase::Inqueue)
            .pod(Pod().name("low-0").cpu("8").memory("32Gi").priority(1)));
  return w;
}

}  // namespace

SOURCE_CASE("framework/session_plugins.go",
            "Preemptable :231-234,253-256 under the default tiers + preempt: tier 1's empty answer (priority.go:92-96) "
            "is no veto, drf's tier (drf.go:222-236) evicts a pod of a higher-priority gang in the same queue") {
  World w = high_gang_and_low_job();
  const Outcome o = run_session(w, {"allocate", "backfill", "preempt"}, default_tiers());
  check_binds(o, {});
  REQUIRE(o.evicted.size() == 1);
  const std::string victim = o.evicted[0];
  CHECK(victim.rfind("high-", 0) == 0);
  // The preemptor waits on the node the victim releases (preempt.go:318-330).
  const std::string node = std::string("n") + victim.substr(5);
  check_pipelined(o, {{"low", {node}}});
  check_phases(o, {{"high", PodGroupPhase::Unknown}, {"low", PodGroupPhase::Inqueue}});
}

SOURCE_CASE("framework/session_plugins.go",
            "Preemptable :213-260: the victims of the high job's pod for the low job's task come from tier 2 (drf) alone") {
  World w = high_gang_and_low_job();
  SessionOn s(w, default_tiers());
  const TaskInfo& preemptor = w.state.task(w.tasks.at("low-0"));
  const TaskId on_n3[] = {w.tasks.at("high-3")};
  CHECK(s->preemptable(preemptor, on_n3) == std::vector<TaskId>{w.tasks.at("high-3")});
  // Tier 1 alone answers no victim: priority refuses (priority.go:93), so does gang (10 ready,
  // minAvailable 10: gang.go:93).
  World w1 = high_gang_and_low_job();
  SessionOn s1(w1, {default_tiers()[0]});
  const TaskId on_n3_w1[] = {w1.tasks.at("high-3")};
  CHECK(s1->preemptable(w1.state.task(w1.tasks.at("low-0")), on_n3_w1).empty());
}

SOURCE_CASE("actions/preempt/preempt.go",
            "with drf's Preemptable off, no tier names a victim (session_plugins.go:259 returns nil): nothing is evicted, "
            "util.ValidateVictims refuses every node (:274-277)") {
  World w = high_gang_and_low_job();
  std::vector<Tier> tiers = default_tiers();
  for (PluginOption& p : tiers[1].plugins)
    if (p.name == "drf") p.enabled[static_cast<std::size_t>(Ext::Preemptable)] = false;
  const Outcome o = run_session(w, {"allocate", "backfill", "preempt"}, tiers);
  check_binds(o, {});
  check_evicted(o, {});
  CHECK(o.pipelined.count("low") == 0);
  check_phases(o, {{"high", PodGroupPhase::Running}, {"low", PodGroupPhase::Inqueue}});
}
