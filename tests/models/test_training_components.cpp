// The training cluster's components (models/training/) wired on a hand-built cluster — one
// node, one queue, one two-pod job, no TrainingCluster and no node lifecycle — to check the
// Volcano job controller's rules (v1.12.1 pkg/controllers/job/state/*.go) and torchrun's gang
// as timelines derived by hand:
//   the job is submitted at 0 s; the session at 0 s admits it (Inqueue) and the job controller
//   creates its pods; the session at 1 s binds them; Bound at 1.05 s (bind latency 50 ms),
//   Running at 3.05 s (pod start-up 2 s): training starts at 3.05 s for 1,000 s.
//   At 100 s a node drain evicts pod 0 (termination grace 30 s: gone at 130 s), so 96.95 s of
//   training are lost (no checkpoint).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training/components.hpp"
#include "one_job_cluster.hpp"

using namespace mltwin;
using namespace mltwin::models;
using core::Duration;
using core::Time;

namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;

struct Rows final : TrainingRecorder {
  std::vector<std::string> decisions;
  std::vector<std::string> phases;  ///< "from->to@<ms>"
  std::vector<JobFinal> finals;
  void job_submitted(const JobSubmitted&) override {}
  void job_final(const JobFinal& j) override { finals.push_back(j); }
  void pod_event(const PodEvent&) override {}
  void decision(const Decision& d) override { decisions.emplace_back(d.reason); }
  void phase_change(const PhaseChange& p) override {
    phases.push_back(std::string(p.from) + "->" + std::string(p.to) + "@" + std::to_string(p.t.ns() / kMs));
  }
  void sample(const ClusterSample&) override {}
  void step_period(const StepPeriod&) override {}
  void node_launched(const NodeLaunched&) override {}
  void node_ended(const NodeEnded&) override {}
  void checkpoint(Time) override {}
};


/// One 8-core node (110 pods), queue "default", a two-pod job (1 core a pod, 1,000 s of training) with
/// the given lifecycle policies, and the four components around the state.
struct Cluster : test::OneJobCluster<Rows> {
  explicit Cluster(std::vector<LifecyclePolicy> policies, std::vector<LifecyclePolicy> task_policies = {})
      : OneJobCluster(options(std::move(policies), std::move(task_policies))) {
    parts->driver.ensure_tick();
  }
  static test::OneJobOptions options(std::vector<LifecyclePolicy> policies, std::vector<LifecyclePolicy> task_policies) {
    auto lc = std::make_shared<JobLifecycle>();
    lc->policies = std::move(policies);
    lc->task_policies = std::move(task_policies);
    test::OneJobOptions o;
    o.lifecycle = lc;
    return o;
  }
  /// At `t`, a node drain evicts replica `replica`'s pod (grace not cut short).
  void drain_at(Time t, int replica) {
    sim.run_until(t);
    for (policy::TaskId id : s->state.job(s->runs[0].pj).tasks)
      if (s->replica_of_task[id] == replica) {
        parts->pods.drain_pod(id, Duration::s(600));
        return;
      }
    FAIL("no pod of replica " << replica);
  }
};

LifecyclePolicy on_evicted(JobAction a) {
  return LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::PodEvicted)), a};
}

bool has(const std::vector<std::string>& rows, const std::string& text) {
  for (const auto& r : rows)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("job controller: no policy (SyncJob) recreates the evicted pod and torchrun's gang re-forms in place") {
  Cluster c({});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // SyncJob: the evicted pod is gone at 130 s; the Job goes Pending and gets the pod back; the
  // session at 130 s binds it (Bound 130.05 s, Running 132.05 s); the survivors' rendezvous
  // takes it and training restarts from scratch: it ends at 1,132.05 s.
  const JobOutcome& o = c.s->outcomes[0];
  CHECK(o.phase == "Completed");
  CHECK(o.start.ns() == 3 * kS + 50 * kMs);
  CHECK(o.end.ns() == 1132 * kS + 50 * kMs);
  CHECK(o.lost_s == doctest::Approx(96.95));
  CHECK(c.s->stats.resumed_in_place == 1);
  CHECK(c.s->stats.restarts == 0);
  CHECK(c.s->runs[0].retries == 0);
  CHECK(has(c.rows.decisions, "PodEvicted -> SyncJob"));
  CHECK(has(c.rows.decisions, "torchrun restarted the worker group"));
}

TEST_CASE("job controller: PodEvicted -> AbortJob kills the other pod; the Job is Aborted once both are gone") {
  Cluster c({on_evicted(JobAction::AbortJob)});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // state/running.go AbortJob: KillJob(PodRetainPhaseSoft) -> Aborting; pod 1 is killed at
  // 100 s with its 30 s grace; state/aborting.go: Aborted when nothing is left, at 130 s.
  const JobOutcome& o = c.s->outcomes[0];
  CHECK(o.phase == "Aborted");
  CHECK(o.end.ns() == 130 * kS);
  CHECK(o.lost_s == doctest::Approx(96.95));
  CHECK(c.s->stats.aborted == 1);
  CHECK(c.s->runs[0].vc == VcPhase::Aborted);
  CHECK(has(c.rows.decisions, "PodEvicted -> AbortJob; lost "));
  CHECK(has(c.rows.decisions, "(the job's policy) [Volcano Job Running -> Aborting]"));
  REQUIRE(c.rows.finals.size() == 1);
  CHECK(c.rows.finals[0].phase == "Aborted");
}

TEST_CASE("job controller: PodEvicted -> CompleteJob ends the Job Completed before its training did") {
  Cluster c({on_evicted(JobAction::CompleteJob)});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // state/running.go CompleteJob: KillJob(PodRetainPhaseSoft) -> Completing; Completed at 130 s.
  const JobOutcome& o = c.s->outcomes[0];
  CHECK(o.phase == "Completed");
  CHECK(o.end.ns() == 130 * kS);
  CHECK(c.s->stats.completed_early == 1);
  CHECK(has(c.rows.decisions, "[Volcano Job Running -> Completing]"));
}

// The PodGroup phase Unknown (framework/session.go:361-363, v1.12.1): the session after the
// drain at 100 s finds pod 1 Running and the gang not ready (gang.go OnSessionClose marks it
// Unschedulable), so the phase goes Running -> Unknown; the job controller turns that into a
// request for the job, for no task (job_controller_handler.go:466-476).
TEST_CASE("job controller: PodGroup Unknown with no policy naming it is SyncJob; allocate serves the Unknown gang") {
  Cluster c({});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // Pod 0 is gone at 130 s; SyncJob recreates it and the session at 130 s binds it: allocate
  // serves an Unknown PodGroup (it skips Pending ones only), and jobStatus makes it Running.
  CHECK(c.rows.phases == std::vector<std::string>{"Pending->Inqueue@0", "Inqueue->Running@1000", "Running->Unknown@100000",
                                                  "Unknown->Running@130000", "Running->Completed@1132050"});
  CHECK(has(c.rows.decisions, "Unknown -> SyncJob (no policy names this event"));
  CHECK(c.s->outcomes[0].end.ns() == 1132 * kS + 50 * kMs);
}

TEST_CASE("job controller: Unknown -> RestartJob, the job's policy, restarts the gang") {
  Cluster c({LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Unknown)), JobAction::RestartJob}});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // state/running.go RestartJob: KillJob(PodRetainPhaseNone), retryCount 1 -> Restarting.
  CHECK(c.s->runs[0].retries == 1);
  CHECK(c.s->stats.restarts == 1);
  CHECK(has(c.rows.decisions, "Unknown -> RestartJob, retry 1 of maxRetry 3"));
  CHECK(has(c.rows.decisions, "(the job's policy) [Volcano Job Running -> Restarting]"));
}

TEST_CASE("job controller: a task's policy naming Unknown does not apply (the request names no task)") {
  Cluster c({}, {LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Unknown)), JobAction::RestartJob}});
  c.drain_at(Time::from_ns(100 * kS), 0);
  c.sim.run();
  // job_controller_util.go:206: task policies only for a request with a task name.
  CHECK(c.s->runs[0].retries == 0);
  CHECK(has(c.rows.decisions, "Unknown -> SyncJob"));
  CHECK(c.s->outcomes[0].end.ns() == 1132 * kS + 50 * kMs);
}

TEST_CASE("JobLifecycle::action_for: Unknown skips the tasks' policies, '*' of the job's matches it") {
  JobLifecycle lc;
  lc.task_policies = {LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Any)), JobAction::AbortJob}};
  bool from_task = true;
  CHECK(lc.action_for(JobEvent::Unknown, &from_task) == JobAction::SyncJob);
  CHECK(lc.action_for(JobEvent::PodFailed, &from_task) == JobAction::AbortJob);
  CHECK(from_task);
  lc.policies = {LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Any)), JobAction::TerminateJob}};
  CHECK(lc.action_for(JobEvent::Unknown, &from_task) == JobAction::TerminateJob);
  CHECK_FALSE(from_task);
}

TEST_CASE("job controller: the pods it creates carry the job's preemptionPolicy Never") {
  Cluster c({});
  c.sc.jobs[0].preempt_never = true;  // read by create_pod when the PodGroup is admitted at 0 s
  c.sim.run_until(Time::from_ns(1 * kS));
  const auto& tasks = c.s->state.job(c.s->runs[0].pj).tasks;
  REQUIRE(tasks.size() == 2);
  for (policy::TaskId t : tasks) CHECK(c.s->state.task(t).preempt_never);
}

// killJob deletes the PodGroup (job_controller_actions.go:212-225); the next sync of a
// Restarting Job creates a new one (initOnJobUpdate -> createOrUpdatePodGroup, :317-320,
// 724-778) with no status (Pending, api/job_info.go IsPending), a new UID and creation time,
// which the scheduler takes for the job's (api/job_info.go:399-404). That sync is the echo of
// the kill, at the same instant here.
TEST_CASE("job controller: RestartJob deletes the PodGroup; the new one is Pending, created at the restart, admitted again") {
  Cluster c({on_evicted(JobAction::RestartJob)});
  const policy::JobId pj = c.s->runs[0].pj;
  const std::uint64_t first_uid = c.s->state.job(pj).uid;
  c.drain_at(Time::from_ns(100 * kS), 0);
  // 100 s: PodEvicted -> RestartJob: killJob deletes pod 1 (pod 0 is being deleted already:
  // terminating 2), bumps the version to 1 and deletes the PodGroup; retry 1, Restarting. The
  // echo's syncJob creates the new PodGroup (Running -> Pending row at 100 s) and, with it
  // Pending, neither creates pods nor recounts the status: the Job stays Restarting. The
  // session at 100 s (after the request) admits it: enqueue, Pending -> Inqueue at 100 s. Its
  // syncJob finds both pods still terminating (gone at 130 s): nothing to create yet.
  c.sim.run_until(Time::from_ns(120 * kS));
  {
    const policy::JobInfo& j = c.s->state.job(pj);
    CHECK(j.live);
    CHECK(j.creation == 100 * kS);
    CHECK(j.uid != first_uid);
    CHECK(j.phase == policy::PodGroupPhase::Inqueue);
    CHECK(j.count(policy::TaskStatus::Releasing) == 2);
    CHECK(j.tasks.size() == 2);
    CHECK(c.s->runs[0].vc == VcPhase::Restarting);
    CHECK(c.s->runs[0].version == 1);
    CHECK(c.s->runs[0].retries == 1);
  }
  c.sim.run();
  // 130 s: both pods gone; each one's deletion is a sync (outdated: SyncJob) of an admitted
  // PodGroup that creates its replacement, and the last finds none terminating: Pending. The
  // session at 130 s binds both (Inqueue -> Running), Running at 132.05 s, training from
  // scratch (no checkpoint): end 1,132.05 s.
  CHECK(c.rows.phases == std::vector<std::string>{"Pending->Inqueue@0", "Inqueue->Running@1000", "Running->Pending@100000",
                                                  "Pending->Inqueue@100000", "Inqueue->Running@130000",
                                                  "Running->Completed@1132050"});
  CHECK(c.s->outcomes[0].phase == "Completed");
  CHECK(c.s->outcomes[0].end.ns() == 1132 * kS + 50 * kMs);
  CHECK(c.s->stats.restarts == 1);
  CHECK(has(c.rows.decisions, "PodEvicted -> RestartJob, retry 1 of maxRetry 3"));
}

TEST_CASE("job controller: after AbortJob the job is out of the scheduler's view while its killed pods hold the node") {
  Cluster c({on_evicted(JobAction::AbortJob)});
  const policy::JobId pj = c.s->runs[0].pj;
  c.drain_at(Time::from_ns(100 * kS), 0);
  // 100 s: AbortJob's killJob deletes pod 1 and the PodGroup; an Aborting Job gets none back
  // (aborting.go: every request kills again). Volcano's cache keeps the pods, not the job, in
  // its snapshot (cache.go:1407-1414): no session sees the job, so its phase never moves again
  // (no jobStatus, no enqueue), while both pods hold their 1 core each until 130 s.
  c.sim.run_until(Time::from_ns(120 * kS));
  CHECK_FALSE(c.s->state.job(pj).live);
  CHECK(c.s->state.job(pj).podgroup_unset);
  CHECK(c.s->state.live_job_count() == 0);
  CHECK(c.s->state.node(0).releasing.milli_cpu == doctest::Approx(2000));
  c.sim.run();
  CHECK(c.rows.phases == std::vector<std::string>{"Pending->Inqueue@0", "Inqueue->Running@1000"});
  CHECK(c.s->outcomes[0].phase == "Aborted");
  CHECK(c.s->outcomes[0].end.ns() == 130 * kS);
  CHECK(c.s->state.node(0).releasing.milli_cpu == doctest::Approx(0));
}

// applyPolicies (job_controller_util.go:199-203): a request older than the Job's
// status.version runs SyncJob. The PodGroup's Unknown request carries none (0,
// job_controller_handler.go:467-478), so once a killJob has bumped the version (to 1) the
// job's Unknown policy no longer applies; pods carry the version they were created with.
TEST_CASE("job controller: after a killJob the PodGroup's Unknown request is outdated: SyncJob, not the job's policy") {
  Cluster c({LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Unknown)), JobAction::RestartJob}});
  c.drain_at(Time::from_ns(100 * kS), 0);
  // 100 s: PodEvicted -> SyncJob (no policy names it; training stops: 96.95 s lost). The session
  // at 100 s finds pod 1 Running and the gang not ready: Unknown; its request (version 0, the
  // Job's 0) meets Unknown -> RestartJob: killJob kills pod 1, version 1, retry 1; a new PodGroup
  // (Unknown -> Pending at 100 s), admitted by the session at 101 s. Both pods are gone at 130 s
  // and recreated (version 1); the session at 130 s binds them; Running 132.05 s: training
  // again from scratch.
  c.drain_at(Time::from_ns(300 * kS), 0);
  // 300 s: pod 0 (version 1) evicted: PodEvicted -> SyncJob (167.95 s lost). The session at
  // 300 s: Unknown again; its request carries version 0 < 1: outdated, SyncJob — no restart.
  // Pod 0 is gone at 330 s; syncJob recreates it (the PodGroup is Unknown, not Pending), the
  // session at 330 s binds it, Running 332.05 s: torchrun's survivor takes it into its
  // rendezvous and training resumes in place, from scratch: end 1,332.05 s.
  c.sim.run();
  CHECK(c.rows.phases == std::vector<std::string>{"Pending->Inqueue@0", "Inqueue->Running@1000", "Running->Unknown@100000",
                                                  "Unknown->Pending@100000", "Pending->Inqueue@101000",
                                                  "Inqueue->Running@130000", "Running->Unknown@300000",
                                                  "Unknown->Running@330000", "Running->Completed@1332050"});
  CHECK(has(c.rows.decisions, "Unknown -> RestartJob, retry 1 of maxRetry 3"));
  CHECK(has(c.rows.decisions, "Unknown -> SyncJob (an outdated request: job version 0, the Job's is 1"));
  CHECK(c.s->runs[0].retries == 1);
  CHECK(c.s->runs[0].version == 1);
  CHECK(c.s->stats.restarts == 1);
  CHECK(c.s->stats.resumed_in_place == 1);
  CHECK(c.s->outcomes[0].lost_s == doctest::Approx(96.95 + 167.95));
  CHECK(c.s->outcomes[0].end.ns() == 1332 * kS + 50 * kMs);
}
