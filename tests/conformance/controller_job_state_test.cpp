// Volcano v1.12.1 pkg/controllers/job/job_state_test.go: each state of the job controller
// (state/*.go) executes an action on a Job given by its status phase, retryCount and pods.
//
// Upstream runs the state's Execute on a fake controller whose cache has no PodGroup, so
// syncJob applies the state's status rule to the Job's status counts and creates no pod
// (job_controller_actions.go:346-385, syncTask false); killJob deletes every pod not retained
// and counts it Terminating (:101-150). Here the Job is mltwin's (controller_harness.hpp): its
// PodGroup is Pending (not admitted: SyncJob creates no pod either), its pods those the case
// lists, in their phases. A case asserts what upstream asserts: the phase the Execute left
// (phase_after_execute), or, where upstream's assertion is the phase after its status rule
// ran, the Job's phase; and, where the case names terminating pods, that the pods were deleted.
#include <algorithm>

#include "conformance.hpp"
#include "controller_harness.hpp"

namespace {

using namespace mltwin::conformance::controller;
constexpr const char* kFile = "job_state_test.go";

}  // namespace

// ---- TestAbortedState_Execute (state/aborted.go) ----

NOT_APPLICABLE(kFile, "TestAbortedState_Execute", "AbortedState-ResumeAction case",
               "ResumeJob reaches an Aborted Job only from a Command (vcctl job resume; job_controller_handler.go:402-418): "
               "every pod event after killJob is outdated and runs SyncJob (job_controller_util.go:200), and killJob deletes the "
               "PodGroup (job_controller_actions.go:212-225). mltwin models no Command and ends the Job at Aborted "
               "(JobController::check_job_phase -> end_job); a request for it changes nothing, as the AnyOtherAction case checks");

UPSTREAM_CASE("job_state_test.go", "TestAbortedState_Execute", "AbortedState-AnyOtherAction case") {
  // Aborted, no pod; RestartJob: aborted.go KillJob(PodRetainPhaseSoft) with no status change.
  // Upstream asserts no error only; the Job stays Aborted.
  JobCase c(2);
  c.job_phase(VcPhase::Aborting);
  c.execute(JobAction::AbortJob);  // Aborting with nothing alive: Aborted (aborting.go)
  REQUIRE(c.phase() == VcPhase::Aborted);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Aborted");
  CHECK(c.phase() == VcPhase::Aborted);
  CHECK(c.retries() == 0);
}

// ---- TestAbortingState_Execute (state/aborting.go) ----

UPSTREAM_CASE("job_state_test.go", "TestAbortingState_Execute", "AbortedState-ResumeAction case") {
  // Aborting, no pod; ResumeJob: KillJob(PodRetainPhaseSoft), Restarting and retryCount + 1.
  JobCase c(2);
  c.job_phase(VcPhase::Aborting);
  c.execute(JobAction::ResumeJob);
  CHECK(c.phase_after_execute() == "Restarting");
  CHECK(c.retries() != 0);
}

UPSTREAM_CASE("job_state_test.go", "TestAbortingState_Execute", "AbortedState-AnyOtherAction case with pods count equal to 0") {
  // Nothing pending, running or terminating: aborting.go's status function makes it Aborted
  // (mltwin's controller applies it with the status rules, JobController::check_job_phase).
  JobCase c(2);
  c.job_phase(VcPhase::Aborting);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase() == VcPhase::Aborted);
}

UPSTREAM_CASE("job_state_test.go", "TestAbortingState_Execute", "AbortedState-AnyOtherAction case with Pods count not equal to 0") {
  // One Pending pod: killJob deletes it (Terminating 1), so the Job stays Aborting. (A pod on
  // no node is deleted at once: its deletion's request, SyncJob, then finds nothing alive and
  // makes the Job Aborted, at the same instant.)
  JobCase c(1);
  c.job_phase(VcPhase::Aborting).pod(0, PodPhase::Pending);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Aborting");
  CHECK(c.rows.pod_events == std::vector<std::string>{"Created 0", "Deleted 0"});
}

// ---- TestCompletingState_Execute (state/completing.go) ----

UPSTREAM_CASE("job_state_test.go", "TestCompletingState_Execute", "CompletingState- With pod count not equal to zero") {
  // Two Running pods: KillJob(PodRetainPhaseSoft) deletes them; Terminating 2 keeps Completing.
  JobCase c(2);
  c.job_phase(VcPhase::Completing).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::ResumeJob);
  CHECK(c.phase_after_execute() == "Completing");
  CHECK(c.phase() == VcPhase::Completing);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestCompletingState_Execute", "CompletingState- With pod count equal to zero") {
  JobCase c(2);
  c.job_phase(VcPhase::Completing);
  c.execute(JobAction::ResumeJob);
  CHECK(c.phase() == VcPhase::Completed);
}

// ---- TestFinishedState_Execute (state/finished.go) ----

UPSTREAM_CASE("job_state_test.go", "TestFinishedState_Execute", "FinishedState Test Case") {
  // A Completed Job; ResumeJob: finished.go KillJob(PodRetainPhaseSoft) with no status change.
  // Upstream asserts no error only; the Job stays Completed. mltwin's Job is Completed when its
  // training ends (every pod Succeeded).
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running);
  c.parts->controller.training_completed(0);
  REQUIRE(c.phase() == VcPhase::Completed);
  c.execute(JobAction::ResumeJob);
  CHECK(c.phase_after_execute() == "Completed");
  CHECK(c.phase() == VcPhase::Completed);
  CHECK(c.retries() == 0);
}

// ---- TestPendingState_Execute (state/pending.go) ----

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- RestartJobAction case With terminating pod count equal to zero") {
  JobCase c(2);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Restarting");  // "always jump to restarting firstly"
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- RestartJobAction case With terminating pod count not equal to zero") {
  JobCase c(2);
  c.pods(0, 2, PodPhase::Running);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Restarting");
  CHECK(c.phase() == VcPhase::Restarting);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- AbortJobAction case With terminating pod count equal to zero") {
  JobCase c(2);
  c.execute(JobAction::AbortJob);
  CHECK(c.phase_after_execute() == "Aborting");  // "always jump to aborting firstly"
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- AbortJobAction case With terminating pod count not equal to zero") {
  JobCase c(2);
  c.pods(0, 2, PodPhase::Running);
  c.execute(JobAction::AbortJob);
  CHECK(c.phase_after_execute() == "Aborting");
  CHECK(c.phase() == VcPhase::Aborting);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- TerminateJobAction case With terminating pod count not equal to zero") {
  JobCase c(2);
  c.pods(0, 2, PodPhase::Running);
  c.execute(JobAction::TerminateJob);
  CHECK(c.phase_after_execute() == "Terminating");
  CHECK(c.phase() == VcPhase::Terminating);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- CompleteJobAction case With terminating pod count equal to zero") {
  JobCase c(2);
  c.execute(JobAction::CompleteJob);
  CHECK(c.phase_after_execute() == "Completing");
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- CompleteJobAction case With terminating pod count not equal to zero") {
  JobCase c(2);
  c.pods(0, 2, PodPhase::Running);
  c.execute(JobAction::CompleteJob);
  CHECK(c.phase_after_execute() == "Completing");
  CHECK(c.phase() == VcPhase::Completing);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

// EnqueueAction comes only with a Command (nothing else sends it at v1.12.1) and pending.go
// runs it in its default branch, SyncJob with the status rule minAvailable <= running +
// succeeded + failed -> Running. mltwin has no Command; its SyncJob runs that branch.
UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- EnqueueAction case With Min Available equal to running pods") {
  JobCase c(3);  // minAvailable 3
  c.pods(0, 3, PodPhase::Running);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Running);
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- EnqueueAction case With Min Available not equal to running pods") {
  // minAvailable 3, two Running pods (the third Pending): upstream asserts nothing when
  // minAvailable > running + succeeded + failed; the rule leaves the Job Pending.
  JobCase c(3);
  c.pods(0, 2, PodPhase::Running).pod(2, PodPhase::Pending);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Pending);
}

UPSTREAM_CASE("job_state_test.go", "TestPendingState_Execute", "PendingState- Default case With Min Available equal to running pods") {
  // minAvailable 3, two Running pods (the third Pending): 3 > 2, still Pending.
  JobCase c(3);
  c.pods(0, 2, PodPhase::Running).pod(2, PodPhase::Pending);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Pending);
}

// ---- TestRestartingState_Execute (state/restarting.go) ----

UPSTREAM_CASE("job_state_test.go", "TestRestartingState_Execute", "RestartingState- RetryCount is equal to or greater than MaxRetry") {
  // maxRetry 3, retryCount 3; RestartJob: KillJob(PodRetainPhaseNone, restartingUpdateStatus):
  // retryCount >= maxRetry -> Failed.
  JobCase c(2);
  c.max_retry(3).job_phase(VcPhase::Restarting, 3);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase() == VcPhase::Failed);
}

UPSTREAM_CASE("job_state_test.go", "TestRestartingState_Execute", "RestartingState- RetryCount is less than MaxRetry") {
  // maxRetry 3, retryCount 1, two one-pod tasks, nothing terminating: total - terminating >=
  // minAvailable -> Pending.
  JobCase c(2);
  c.max_retry(3).job_phase(VcPhase::Restarting, 1);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase() == VcPhase::Pending);
}

// ---- TestRunningState_Execute (state/running.go) ----

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- RestartJobAction case and Terminating Pods not equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Restarting");  // "always jump to restarting firstly"
  CHECK(c.phase() == VcPhase::Restarting);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- RestartJobAction case and Terminating Pods equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running);
  c.execute(JobAction::RestartJob);
  CHECK(c.phase_after_execute() == "Restarting");
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- AbortAction case and Terminating Pods equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running);
  c.execute(JobAction::AbortJob);
  CHECK(c.phase_after_execute() == "Aborting");
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- AbortAction case and Terminating Pods not equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::AbortJob);
  CHECK(c.phase_after_execute() == "Aborting");
  CHECK(c.phase() == VcPhase::Aborting);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- TerminateJobAction case and Terminating Pods equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running);
  c.execute(JobAction::TerminateJob);
  CHECK(c.phase_after_execute() == "Terminating");
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- TerminateJobAction case and Terminating Pods not equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::TerminateJob);
  CHECK(c.phase_after_execute() == "Terminating");
  CHECK(c.phase() == VcPhase::Terminating);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- CompleteJobAction case and Terminating Pods equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running);
  c.execute(JobAction::CompleteJob);
  CHECK(c.phase_after_execute() == "Completing");
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- CompleteJobAction case and Terminating Pods not equal to 0") {
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::CompleteJob);
  CHECK(c.phase_after_execute() == "Completing");
  CHECK(c.phase() == VcPhase::Completing);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- Default case and Total is equal to failed+succeeded") {
  // One task of 2 replicas, both pods Succeeded: succeeded + failed == replicas and succeeded
  // >= minAvailable -> Completed (running.go:82-105). mltwin: two one-pod tasks.
  JobCase c(2);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Succeeded);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Completed);
}

// Upstream's Job status says Succeeded 1 (the one pod it lists) and no PodGroup exists: syncJob
// creates no pod and applies running.go's rule to the status as written (job_controller_actions.go
// :346-383): 1 + 0 != 2 replicas, 0 Pending. The missing pod counts nowhere: the Job stays Running.
UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- Default case and Total is not equal to failed+succeeded") {
  JobCase c(2);
  c.job_phase(VcPhase::Running).pod(0, PodPhase::Succeeded);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Running);
  CHECK(c.pod_names().size() == 1);  // nor is it created
}

// Upstream's Job has 5 replicas and minAvailable 3; mltwin's gang has minAvailable = its pods
// (5). Both cases' rule pending > replicas - minAvailable holds either way (5 > 2 and 5 > 0;
// 3 > 2 and 3 > 0).
UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- Default case and running back to pending When pending equal to total") {
  JobCase c(5);
  c.job_phase(VcPhase::Running).pods(0, 5, PodPhase::Pending);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Pending);
}

UPSTREAM_CASE("job_state_test.go", "TestRunningState_Execute", "RunningState- Default case and running back to pending When pods status pending>(total-minAvailable)") {
  JobCase c(5);
  c.job_phase(VcPhase::Running).pods(0, 2, PodPhase::Running).pods(2, 5, PodPhase::Pending);
  c.execute(JobAction::SyncJob);
  CHECK(c.phase() == VcPhase::Pending);
}

NOT_APPLICABLE(kFile, "TestRunningState_Execute", "RunningState- Default case and keep running When pods status pending<=(total-minAvailable)",
               "needs a Job whose minAvailable (3) is below its replicas (5), so that 2 Pending pods keep it Running; mltwin's "
               "jobs are TorchX gangs with minAvailable = their pod count, where any Pending pod makes a Running Job Pending "
               "(the two cases above)");

// ---- TestTerminatingState_Execute (state/terminating.go) ----

UPSTREAM_CASE("job_state_test.go", "TestTerminatingState_Execute", "TerminatingState- With pod count not equal to zero") {
  JobCase c(2);
  c.job_phase(VcPhase::Terminating).pods(0, 2, PodPhase::Running);
  c.execute(JobAction::TerminateJob);
  CHECK(c.phase() == VcPhase::Terminating);
  CHECK(c.pods_in(TaskStatus::Releasing) == 2);
}

UPSTREAM_CASE("job_state_test.go", "TestTerminatingState_Execute", "TerminatingState- With pod count not equal to zero [2]") {
  // No pod: Terminated.
  JobCase c(2);
  c.job_phase(VcPhase::Terminating);
  c.execute(JobAction::TerminateJob);
  CHECK(c.phase() == VcPhase::Terminated);
}

// ---- RestartTask / RestartPod: no upstream case; written from the state files ----
//
// Not reachable here, so not tested: running.go:65-68 (a Job scaled to zero replicas keeps its
// phase: mltwin refuses a job without pods), :70-75 and :95-97 (spec.minSuccess: not read), and
// :79-92 (a task whose Succeeded pods fall short of its own minAvailable: a task here has one pod
// and minAvailable 1, so "every pod ended" with one not Succeeded gives Failed, which the job-level
// rule :98-104 reaches too, as the ported cases above check).

SOURCE_CASE("state/pending.go",
            ":37-42 and running.go:41-46: RestartTask and RestartPod KillTarget the request's task (one pod per task "
            "here): that pod is deleted, the others stay, retryCount goes up by one, the Job becomes Restarting, and the "
            "PodGroup stays (killTarget bumps no version and deletes no PodGroup, job_controller_actions.go:101-106)") {
  for (const VcPhase from : {VcPhase::Pending, VcPhase::Running}) {
    for (const JobAction a : {JobAction::RestartTask, JobAction::RestartPod}) {
      CAPTURE(to_string(from));
      CAPTURE(to_string(a));
      JobCase c(3);
      c.job_phase(from, 1).pods(0, 3, from == VcPhase::Running ? PodPhase::Running : PodPhase::Pending);
      const std::int32_t v = c.version();
      c.execute(a, std::nullopt, /*replica=*/1);
      CHECK(c.phase_after_execute() == "Restarting");
      CHECK(c.retries() == 2);
      CHECK(c.version() == v);
      CHECK(c.has_podgroup());
      // Replica 1's pod is being deleted (a Running pod holds its node for its grace period) or
      // gone (a Pending one); replicas 0 and 2 are untouched.
      const auto names = c.pod_names();
      CHECK(std::count(names.begin(), names.end(), "job1-trainer-0-0") == 1);
      CHECK(std::count(names.begin(), names.end(), "job1-trainer-2-0") == 1);
      CHECK(c.pods_in(from == VcPhase::Running ? TaskStatus::Running : TaskStatus::Pending) == 2);
    }
  }
}

SOURCE_CASE("state/restarting.go",
            ":56-60: in Restarting, RestartTask KillTargets its task without counting a retry, and any action but SyncJob "
            "(here AbortJob) KillJobs: every pod deleted, the PodGroup deleted; the phase stays Restarting") {
  {
    JobCase c(3);
    c.job_phase(VcPhase::Restarting, 1).pods(0, 3, PodPhase::Running);
    c.execute(JobAction::RestartTask, std::nullopt, /*replica=*/0);
    CHECK(c.phase_after_execute() == "Restarting");
    CHECK(c.retries() == 1);
    CHECK(c.has_podgroup());
    CHECK(c.pods_in(TaskStatus::Running) == 2);
    CHECK(c.pods_in(TaskStatus::Releasing) == 1);
  }
  {
    JobCase c(3);
    c.job_phase(VcPhase::Restarting, 1).pods(0, 3, PodPhase::Running);
    c.execute(JobAction::AbortJob);
    CHECK(c.phase_after_execute() == "Restarting");
    CHECK(c.retries() == 1);
    CHECK(c.pods_in(TaskStatus::Running) == 0);
    CHECK(c.pods_in(TaskStatus::Releasing) == 3);
  }
}
