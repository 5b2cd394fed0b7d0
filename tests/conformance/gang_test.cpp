// Volcano v1.12.1 pkg/scheduler/plugins/gang/gang.go has no test of its own upstream: these cases
// are written from its source, rule by rule, each expectation derived by hand from the lines cited
// (gang.go, and the api/job_info.go counts it reads), including the per-task minimums of
// PodGroup spec.minTaskMember (CheckTaskValid, CheckTaskReady, CheckTaskPipelined).

#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

/// gang with every extension point it registers.
PluginOption gang() {
  return plugin("gang", {Ext::JobOrder, Ext::JobReady, Ext::JobPipelined, Ext::JobStarving, Ext::Preemptable,
                         Ext::Reclaimable});
}

NodeBuilder node(std::string name, std::string_view cpu) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory("16Gi").pods(110);
  return n;
}

/// A pod of 1 cpu and 1Gi named `name`.
Pod pod(std::string name) {
  Pod p;
  p.name(std::move(name)).cpu("1").memory("1Gi");
  return p;
}
/// A pod that requests nothing: BestEffort (api/job_info.go BestEffort, Resreq empty).
Pod best_effort(std::string name) {
  Pod p;
  p.name(std::move(name));
  return p;
}

JobBuilder job(std::string name, int min_available) {
  JobBuilder j(std::move(name), "q");
  j.min_available(min_available).no_min_resources().phase(PodGroupPhase::Running);
  return j;
}

}  // namespace

// ---------------------------------------------------------------- validJobFn

SOURCE_CASE("plugins/gang/gang.go",
            "validJobFn :69-77: fewer valid tasks than minAvailable is invalid (reason NotEnoughTasks, message with both "
            "counts); ValidTaskNum (api/job_info.go:1016-1028) counts Bound, Binding, Running, Allocated, Succeeded, "
            "Pipelined and Pending, not Failed, Releasing or Unknown") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  // 2 valid (Running, Pending) of 5 pods.
  w.job(job("short", 3)
            .pod(pod("short-0").on("n1"))
            .pod(pod("short-1"))
            .pod(pod("short-2").status(TaskStatus::Failed))
            .pod(pod("short-3").on("n1", TaskStatus::Releasing))
            .pod(pod("short-4").status(TaskStatus::Unknown)));
  // 7 valid: every status ValidTaskNum counts, once.
  for (const auto& [name, min] : {std::pair{"seven", 7}, std::pair{"seven-of-eight", 8}}) {
    const std::string n = name;
    w.job(job(n, min)
              .pod(pod(n + "-0").on("n1", TaskStatus::Bound))
              .pod(pod(n + "-1").on("n1", TaskStatus::Binding))
              .pod(pod(n + "-2").on("n1"))
              .pod(pod(n + "-3").on("n1", TaskStatus::Allocated))
              .pod(pod(n + "-4").on("n1", TaskStatus::Succeeded))
              .pod(pod(n + "-5").on("n1", TaskStatus::Pipelined))
              .pod(pod(n + "-6")));
  }
  SessionOn s(w, {Tier{{gang()}}});
  const ValidateResult shortv = s->job_valid(w["short"]);
  CHECK_FALSE(shortv.pass);
  CHECK(shortv.reason == "NotEnoughTasks");  // v1beta1.NotEnoughPodsReason
  CHECK(shortv.message == "Not enough valid tasks for gang-scheduling, valid: 2, min: 3");
  CHECK(s->job_valid(w["seven"]).pass);  // validJobFn returns nil (:78)
  const ValidateResult eight = s->job_valid(w["seven-of-eight"]);
  CHECK_FALSE(eight.pass);
  CHECK(eight.reason == "NotEnoughTasks");
  CHECK(eight.message == "Not enough valid tasks for gang-scheduling, valid: 7, min: 8");
}

SOURCE_CASE("plugins/gang/gang.go",
            "validJobFn :81 has no enable switch: session_plugins.go:404-418 JobValid asks every plugin that registered one") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  w.job(job("short", 2).pod(pod("short-0")));
  SessionOn s(w, {Tier{{plugin("gang", {})}}});
  const ValidateResult r = s->job_valid(w["short"]);
  CHECK_FALSE(r.pass);
  CHECK(r.message == "Not enough valid tasks for gang-scheduling, valid: 1, min: 2");
}

// ---------------------------------------------------------------- preemptableFn / reclaimable

SOURCE_CASE("plugins/gang/gang.go",
            "preemptableFn :83-105 (Preemptable and Reclaimable, :108-109): a job's preemptees are victims, in list order, "
            "only while its count, starting at ReadyTaskNum (api/job_info.go:787-796) and falling by one per victim, "
            "exceeds minAvailable") {
  World w;
  w.queue(QueueBuilder("q"));
  for (const char* n : {"n1", "n2", "n3", "n4"}) w.node(node(n, "16"));
  // e: 4 ready, min 2 -> two victims. t: 2 ready, min 2 -> none. s: 1 Succeeded + 2 Running =
  // 3 ready, min 2 -> one victim. r: 1 Running + 1 Releasing (not ready) = 1 ready, min 1 -> none.
  w.job(job("e", 2).pod(pod("e-0").on("n1")).pod(pod("e-1").on("n2")).pod(pod("e-2").on("n3")).pod(pod("e-3").on("n4")));
  w.job(job("t", 2).pod(pod("t-0").on("n1")).pod(pod("t-1").on("n2")));
  w.job(job("s", 2).pod(pod("s-0").on("n1", TaskStatus::Succeeded)).pod(pod("s-1").on("n2")).pod(pod("s-2").on("n3")));
  w.job(job("r", 1).pod(pod("r-0").on("n1")).pod(pod("r-1").on("n2", TaskStatus::Releasing)));
  w.job(job("p", 1).phase(PodGroupPhase::Inqueue).pod(pod("p-0")));
  SessionOn s(w, {Tier{{gang()}}});
  auto ids = [&](std::initializer_list<const char*> names) {
    std::vector<TaskId> v;
    for (const char* n : names) v.push_back(w.tasks.at(n));
    return v;
  };
  const TaskInfo& preemptor = w.state.task(w.tasks.at("p-0"));
  const std::vector<TaskId> mixed = ids({"e-0", "t-0", "e-1", "s-1", "r-0", "e-2", "t-1", "s-2", "e-3"});
  const std::vector<TaskId> want = ids({"e-0", "e-1", "s-1"});
  CHECK(s->preemptable(preemptor, mixed) == want);
  CHECK(s->reclaimable(preemptor, mixed) == want);
  // Only jobs at their minimum: no victim.
  CHECK(s->preemptable(preemptor, ids({"t-0", "t-1", "r-0"})).empty());
  CHECK(s->reclaimable(preemptor, ids({"t-0", "t-1", "r-0"})).empty());
  // The preemptor plays no part (:83-105 never reads it): a task of e asks the same.
  CHECK(s->preemptable(w.state.task(w.tasks.at("e-3")), mixed) == want);
}

namespace {
/// preempt with [priority, gang] (the preempt tests' plugins): "low" (priority 1, minAvailable
/// `low_min`) runs 3 pods of 4 cpu on n1..n3 of 4 cpu each; "high" (priority 100) waits with
/// `high_pods` pods of 4 cpu and minAvailable `high_pods`.
Outcome preempt_for_high(int low_min, int high_pods) {
  World w;
  w.queue(QueueBuilder("q"));
  JobBuilder low("low", "q");
  low.min_available(low_min).no_min_resources().priority(1).phase(PodGroupPhase::Running);
  JobBuilder high("high", "q");
  high.min_available(high_pods).no_min_resources().priority(100).phase(PodGroupPhase::Inqueue);
  for (int i = 0; i < 3; ++i) {
    const std::string index = std::to_string(i), n = std::string("n") + index;
    w.node(NodeBuilder(n).cpu("4").memory("16Gi").pods(110));
    low.pod(Pod().name(std::string("low-") + index).cpu("4").memory("1Gi").priority(1).on(n));
  }
  for (int i = 0; i < high_pods; ++i)
    high.pod(Pod().name(std::string("high-") + std::to_string(i)).cpu("4").memory("1Gi").priority(100));
  w.job(low);
  w.job(high);
  return run_session(w, {"preempt"},
                     {Tier{{plugin("priority", {Ext::JobOrder, Ext::TaskOrder, Ext::Preemptable, Ext::JobStarving}),
                            gang()}}});
}
}  // namespace

SOURCE_CASE("plugins/gang/gang.go",
            "preemptableFn :93 in preempt: a lower-priority job above its minAvailable gives up one pod (3 ready > 2), "
            "and no more") {
  const Outcome o = preempt_for_high(/*low_min=*/2, /*high_pods=*/1);
  REQUIRE(o.evicted.size() == 1);
  CHECK(o.evicted[0].rfind("low-", 0) == 0);
  check_pipelined(o, {{"high", {"n0", "n1", "n2"}}});
}

SOURCE_CASE("plugins/gang/gang.go",
            "preemptableFn :93 in preempt: after one victim the lower-priority job is at its minAvailable (Releasing is "
            "not ready, api/job_info.go:787-796), so a 2-pod gang gets one pipelined pod only; gang's JobPipelined "
            "rejects it (:145-151) and preempt.go:157-161 discards the eviction") {
  const Outcome o = preempt_for_high(/*low_min=*/2, /*high_pods=*/2);
  check_evicted(o, {});
  CHECK(o.pipelined.count("high") == 0);
}

SOURCE_CASE("plugins/gang/gang.go", "preemptableFn :93 in preempt: a job exactly at its minAvailable gives up nothing") {
  const Outcome o = preempt_for_high(/*low_min=*/3, /*high_pods=*/1);
  check_evicted(o, {});
  CHECK(o.pipelined.count("high") == 0);
}

// ---------------------------------------------------------------- jobOrderFn, JobReady, JobPipelined, JobStarving

SOURCE_CASE("plugins/gang/gang.go",
            "jobOrderFn :111-134: a job not ready goes before a ready one; two ready or two unready jobs tie (0), and "
            "session_plugins.go:546-552 falls back to creation time, then UID") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  w.job(job("ready", 1).created(0).pod(pod("ready-0").on("n1")));
  w.job(job("ready-later", 1).created(3).pod(pod("ready-later-0").on("n1")));
  // IsReady counts a pending BestEffort pod (api/job_info.go:1030-1032).
  w.job(job("ready-best-effort", 2).created(4).pod(pod("rbe-0").on("n1")).pod(best_effort("rbe-1")));
  w.job(job("unready-early", 1).created(5).phase(PodGroupPhase::Inqueue).pod(pod("ue-0")));
  w.job(job("unready", 2).created(10).pod(pod("u-0").on("n1")).pod(pod("u-1")));
  SessionOn s(w, {Tier{{plugin("gang", {Ext::JobOrder})}}});
  // Unready first, whatever the creation times.
  CHECK(s->job_order(w["unready"], w["ready"]));
  CHECK_FALSE(s->job_order(w["ready"], w["unready"]));
  CHECK(s->job_order(w["unready"], w["ready-best-effort"]));
  CHECK_FALSE(s->job_order(w["ready-best-effort"], w["unready"]));
  // Ties: creation time decides.
  CHECK(s->job_order(w["unready-early"], w["unready"]));
  CHECK_FALSE(s->job_order(w["unready"], w["unready-early"]));
  CHECK(s->job_order(w["ready"], w["ready-later"]));
  CHECK(s->job_order(w["ready-later"], w["ready-best-effort"]));
}

SOURCE_CASE("plugins/gang/gang.go",
            "JobReady :137-143: IsReady (api/job_info.go:1030-1032) = ReadyTaskNum (Bound, Binding, Running, Allocated, "
            "Succeeded) + pending BestEffort pods >= minAvailable; Pipelined, Releasing, Failed do not count") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  w.job(job("bound-binding", 2).pod(pod("bb-0").on("n1", TaskStatus::Bound)).pod(pod("bb-1").on("n1", TaskStatus::Binding)));
  w.job(job("running-succeeded", 2).pod(pod("rs-0").on("n1")).pod(pod("rs-1").on("n1", TaskStatus::Succeeded)));
  w.job(job("allocated", 2).pod(pod("al-0").on("n1")).pod(pod("al-1").on("n1", TaskStatus::Allocated)));
  w.job(job("best-effort", 2).pod(pod("be-0").on("n1")).pod(best_effort("be-1")));
  w.job(job("pipelined", 2).pod(pod("pi-0").on("n1")).pod(pod("pi-1").on("n1", TaskStatus::Pipelined)));
  w.job(job("releasing", 2).pod(pod("re-0").on("n1")).pod(pod("re-1").on("n1", TaskStatus::Releasing)));
  w.job(job("failed", 2).pod(pod("fa-0").on("n1")).pod(pod("fa-1").status(TaskStatus::Failed)));
  w.job(job("pending", 2).pod(pod("pe-0").on("n1")).pod(pod("pe-1")));
  SessionOn s(w, {Tier{{plugin("gang", {Ext::JobReady})}}});
  for (const char* j : {"bound-binding", "running-succeeded", "allocated", "best-effort"}) {
    INFO(j);
    CHECK(s->job_ready(w[j]));
  }
  for (const char* j : {"pipelined", "releasing", "failed", "pending"}) {
    INFO(j);
    CHECK_FALSE(s->job_ready(w[j]));
  }
  // With the switch off, session_plugins.go:323-341 asks no one: ready.
  World w2;
  w2.queue(QueueBuilder("q"));
  w2.job(job("pending", 2).phase(PodGroupPhase::Inqueue).pod(pod("pe-0")).pod(pod("pe-1")));
  SessionOn s2(w2, {Tier{{plugin("gang", {})}}});
  CHECK(s2->job_ready(w2["pending"]));
}

SOURCE_CASE("plugins/gang/gang.go",
            "pipelinedFn :145-152: Permit when IsPipelined (api/job_info.go:1034-1036: WaitingTaskNum + ReadyTaskNum + "
            "pending BestEffort >= minAvailable), else Reject, which fails JobPipelined (session_plugins.go:357-360)") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  w.job(job("two-pipelined", 3).pod(pod("tp-0").on("n1")).pod(pod("tp-1").on("n1", TaskStatus::Pipelined))
            .pod(pod("tp-2").on("n1", TaskStatus::Pipelined)));
  w.job(job("best-effort", 3).pod(pod("be-0").on("n1")).pod(pod("be-1").on("n1", TaskStatus::Pipelined))
            .pod(best_effort("be-2")));
  w.job(job("one-pending", 3).pod(pod("op-0").on("n1")).pod(pod("op-1").on("n1", TaskStatus::Pipelined)).pod(pod("op-2")));
  w.job(job("releasing", 2).pod(pod("rl-0").on("n1")).pod(pod("rl-1").on("n1", TaskStatus::Releasing)));
  SessionOn s(w, {Tier{{plugin("gang", {Ext::JobPipelined})}}});
  CHECK(s->job_pipelined(w["two-pipelined"]));
  CHECK(s->job_pipelined(w["best-effort"]));
  CHECK_FALSE(s->job_pipelined(w["one-pending"]));
  CHECK_FALSE(s->job_pipelined(w["releasing"]));
  const Verdict v = s->job_pipelined_vote(w["one-pending"]);
  CHECK(v.code == Code::Unschedulable);
  CHECK(v.plugin == "gang");
}

SOURCE_CASE("plugins/gang/gang.go",
            "jobStarvingFn :154-159: IsStarving (api/job_info.go:1038-1040) = WaitingTaskNum + ReadyTaskNum < "
            "minAvailable; a pending BestEffort pod does not count here, unlike IsReady") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  w.job(job("pending", 2).pod(pod("pe-0").on("n1")).pod(pod("pe-1")));
  w.job(job("pipelined", 2).pod(pod("pi-0").on("n1")).pod(pod("pi-1").on("n1", TaskStatus::Pipelined)));
  w.job(job("best-effort", 2).pod(pod("be-0").on("n1")).pod(best_effort("be-1")));
  w.job(job("full", 2).pod(pod("fu-0").on("n1")).pod(pod("fu-1").on("n1", TaskStatus::Bound)));
  w.job(job("releasing", 2).pod(pod("rl-0").on("n1")).pod(pod("rl-1").on("n1", TaskStatus::Releasing)));
  SessionOn s(w, {Tier{{plugin("gang", {Ext::JobStarving, Ext::JobReady})}}});
  CHECK(s->job_starving(w["pending"]));
  CHECK_FALSE(s->job_starving(w["pipelined"]));
  CHECK(s->job_starving(w["best-effort"]));
  CHECK(s->job_ready(w["best-effort"]));
  CHECK_FALSE(s->job_starving(w["full"]));
  CHECK(s->job_starving(w["releasing"]));
}

// ---------------------------------------------------------------- OnSessionClose
//
// The cases check the condition's "x/y tasks in gang unschedulable" alone. What follows it
// differs: Volcano appends job.FitError() (gang.go:184-185, api/job_info.go:704-745: "pod group
// is not ready, <count> <status>..., <n> minAvailable; Pending: <count> <reason>... . Origin
// reason is <task>: <its fit errors>"), mltwin the first task's fit errors alone. gang's
// PodGroupScheduled condition for a ready job (:206-220) is not modelled: jobStatus does not
// read it.

SOURCE_CASE("plugins/gang/gang.go",
            "OnSessionClose :170-205: a job with tasks that is not ready gets the Unschedulable condition "
            "\"x/y tasks in gang unschedulable\", x = minAvailable - ReadyTaskNum (no task tried: :171-183 counts no "
            "pending one), y = its pod count; with a Running pod jobStatus then makes it Unknown (session.go:361-363)") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "2"));
  // min 2 of 3 pods: g-0 runs, g-1 and g-2 ask for 4 cpu each and fit nowhere.
  w.job(job("g", 2).pod(pod("g-0").on("n1")).pod(pod("g-1").cpu("4")).pod(pod("g-2").cpu("4")));
  const Outcome c = run_session(w, {"allocate"}, {Tier{{gang(), plugin("predicates", {Ext::Predicate})}}});
  REQUIRE(c.reasons.count("g") == 1);
  INFO(c.reasons.at("g"));
  CHECK(c.reasons.at("g").rfind("gang: 1/3 tasks in gang unschedulable", 0) == 0);
  CHECK(c.phases.at("g") == PodGroupPhase::Unknown);
}

SOURCE_CASE("plugins/gang/gang.go",
            "OnSessionClose :171-183: a pending task whose last transaction was Allocated counts as schedulable — "
            "allocate's discarded statement leaves it so (statement.go:385-391 GenerateLastTxContext before unallocate); "
            "a 3-pod gang of which 2 fit is 1/3 unschedulable") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "1"));
  w.node(node("n2", "1"));
  w.job(job("g", 3).phase(PodGroupPhase::Inqueue).pod(pod("g-0")).pod(pod("g-1")).pod(pod("g-2")));
  // allocate.go:383-423: g-0 and g-1 are allocated, g-2 fits no node; not ready, not pipelined
  // (2 < 3): the statement is discarded and both keep LastTransaction.Status Allocated.
  const Outcome c = run_session(w, {"allocate"}, {Tier{{gang(), plugin("predicates", {Ext::Predicate})}}});
  REQUIRE(c.reasons.count("g") == 1);
  INFO(c.reasons.at("g"));
  CHECK(c.reasons.at("g").rfind("gang: 1/3 tasks in gang unschedulable", 0) == 0);
  CHECK(c.phases.at("g") == PodGroupPhase::Inqueue);
}

SOURCE_CASE("plugins/gang/gang.go",
            "OnSessionClose :170-183 on a job allocate left pipelined (allocate.go:418-423 keeps its statement): its "
            "Allocated tasks are ready when the plugins close, its Pipelined one is not; a 3-pod gang with 2 allocated "
            "and 1 pipelined is 1/3 unschedulable") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "1"));
  w.node(node("n2", "1"));
  w.node(node("n3", "1"));
  // n3's only core is being released: g-2 can only be pipelined there.
  w.job(job("leaving", 1).pod(pod("leaving-0").on("n3", TaskStatus::Releasing)));
  w.job(job("g", 3).phase(PodGroupPhase::Inqueue).pod(pod("g-0")).pod(pod("g-1")).pod(pod("g-2")));
  // g-0 and g-1 Allocated on n1 and n2, g-2 Pipelined on n3: not ready (2 < 3), pipelined
  // (1 + 2 >= 3): the statement stays, uncommitted, until the session closes.
  const Outcome c = run_session(w, {"allocate"}, {Tier{{gang(), plugin("predicates", {Ext::Predicate})}}});
  REQUIRE(c.reasons.count("g") == 1);
  INFO(c.reasons.at("g"));
  CHECK(c.reasons.at("g").rfind("gang: 1/3 tasks in gang unschedulable", 0) == 0);
  CHECK(c.phases.at("g") == PodGroupPhase::Inqueue);
}

SOURCE_CASE("plugins/gang/gang.go",
            "OnSessionClose :166-169 skips a job without tasks; a ready job gets no Unschedulable condition (:206-220 "
            "writes PodGroupScheduled, which jobStatus does not read) and stays Running") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "4"));
  w.job(JobBuilder("no-pods", "q").min_available(1).no_min_resources());  // Pending, pods not created yet
  w.job(job("ready", 1).pod(pod("ready-0").on("n1")).pod(pod("ready-1").cpu("8")));
  // No action: only the close acts.
  const Outcome c = run_session(w, {}, {Tier{{gang(), plugin("predicates", {Ext::Predicate})}}});
  CHECK(c.reasons.count("no-pods") == 0);
  CHECK(c.phases.at("no-pods") == PodGroupPhase::Pending);
  CHECK(c.reasons.count("ready") == 0);
  CHECK(c.phases.at("ready") == PodGroupPhase::Running);
}

// ---------------------------------------------------------------- the per-task gang (minTaskMember)

namespace {
/// A pod of `role` (annotation volcano.sh/task-spec).
Pod role_pod(std::string name, std::string role) {
  Pod p = pod(std::move(name));
  p.role(std::move(role));
  return p;
}
}  // namespace

SOURCE_CASE("plugins/gang/gang.go",
            "validJobFn :61-67: a role with fewer valid pods (api/job_info.go:910-940 CheckTaskValid: allocated "
            "statuses, Succeeded, Pipelined, Pending) than its minTaskMember makes the job invalid, reason "
            "NotEnoughPodsOfTask, before the job-level count is looked at; a role named with 0 or not named needs none") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  // ps 2 of 1, worker 1 valid of 2 (worker-1 Failed): 3 valid >= minAvailable 3, yet invalid.
  w.job(job("short-worker", 3).min_task_member("ps", 1).min_task_member("worker", 2)
            .pod(role_pod("sw-ps-0", "ps").on("n1"))
            .pod(role_pod("sw-ps-1", "ps"))
            .pod(role_pod("sw-worker-0", "worker"))
            .pod(role_pod("sw-worker-1", "worker").status(TaskStatus::Failed)));
  // Every role at its minimum, counting Pipelined and Succeeded; "chief" is named with 0 and has
  // no pod; "eval" has pods but no entry.
  w.job(job("whole", 3).min_task_member("ps", 1).min_task_member("worker", 2).min_task_member("chief", 0)
            .pod(role_pod("wh-ps-0", "ps").on("n1", TaskStatus::Succeeded))
            .pod(role_pod("wh-worker-0", "worker").on("n1", TaskStatus::Pipelined))
            .pod(role_pod("wh-worker-1", "worker"))
            .pod(role_pod("wh-eval-0", "eval").status(TaskStatus::Failed)));
  // A role named in minTaskMember with no pod at all (`!ok` at :933).
  w.job(job("missing-role", 1).min_task_member("ps", 1).pod(role_pod("mr-worker-0", "worker")));
  SessionOn s(w, {Tier{{gang()}}});
  const ValidateResult sw = s->job_valid(w["short-worker"]);
  CHECK_FALSE(sw.pass);
  CHECK(sw.reason == "NotEnoughPodsOfTask");  // v1beta1.NotEnoughPodsOfTaskReason
  CHECK(sw.message == "Not enough valid pods of each task for gang-scheduling");
  CHECK(s->job_valid(w["whole"]).pass);
  CHECK(s->job_valid(w["missing-role"]).reason == "NotEnoughPodsOfTask");
}

SOURCE_CASE("plugins/gang/gang.go",
            "JobReady :139 and pipelinedFn :147 ask CheckTaskReady / CheckTaskPipelined as well as IsReady / "
            "IsPipelined: every role must hold its minTaskMember (api/job_info.go:943-988: allocated statuses, "
            "Succeeded and pending BestEffort pods; Pipelined ones too for pipelined)") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  // minAvailable 2 is met by two ps pods, but worker holds none of its 1.
  w.job(job("ps-only", 2).min_task_member("ps", 1).min_task_member("worker", 1)
            .pod(role_pod("po-ps-0", "ps").on("n1")).pod(role_pod("po-ps-1", "ps").on("n1"))
            .pod(role_pod("po-worker-0", "worker")));
  // worker's pod is Pipelined: pipelined, not ready.
  w.job(job("worker-pipelined", 2).min_task_member("ps", 1).min_task_member("worker", 1)
            .pod(role_pod("wp-ps-0", "ps").on("n1")).pod(role_pod("wp-ps-1", "ps").on("n1"))
            .pod(role_pod("wp-worker-0", "worker").on("n1", TaskStatus::Pipelined)));
  // worker's pod is BestEffort and Pending: it counts as occupied (:888-894), so ready.
  w.job(job("worker-best-effort", 2).min_task_member("ps", 1).min_task_member("worker", 1)
            .pod(role_pod("wb-ps-0", "ps").on("n1")).pod(role_pod("wb-ps-1", "ps").on("n1"))
            .pod(best_effort("wb-worker-0").role("worker")));
  SessionOn s(w, {Tier{{plugin("gang", {Ext::JobReady, Ext::JobPipelined})}}});
  CHECK(w["ps-only"].is_ready());  // the job-level count alone would say ready
  CHECK_FALSE(s->job_ready(w["ps-only"]));
  CHECK_FALSE(s->job_pipelined(w["ps-only"]));
  CHECK_FALSE(s->job_ready(w["worker-pipelined"]));
  CHECK(s->job_pipelined(w["worker-pipelined"]));
  CHECK(s->job_ready(w["worker-best-effort"]));
}

SOURCE_CASE("plugins/gang/gang.go",
            "the per-task checks are skipped when minAvailable is below the sum of minTaskMember (api/job_info.go:912-915, "
            ":944-946, :959-961): only minAvailable counts then") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(node("n1", "16"));
  // minTaskMember sums to 3 > minAvailable 2: worker holding 0 of 2 does not matter.
  w.job(job("elastic", 2).min_task_member("ps", 1).min_task_member("worker", 2)
            .pod(role_pod("el-ps-0", "ps").on("n1")).pod(role_pod("el-ps-1", "ps").on("n1"))
            .pod(role_pod("el-worker-0", "worker").status(TaskStatus::Failed)));
  SessionOn s(w, {Tier{{gang()}}});
  CHECK(s->job_valid(w["elastic"]).pass);
  CHECK(s->job_ready(w["elastic"]));
  CHECK(s->job_pipelined(w["elastic"]));
}
