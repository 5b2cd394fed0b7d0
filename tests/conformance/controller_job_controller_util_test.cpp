// Volcano v1.12.1 pkg/controllers/job/job_controller_util_test.go: pod names and templates,
// applyPolicies (which action a request gets), and the PodGroup's minResources from tasks
// ordered by priority.
#include "conformance.hpp"
#include "controller_harness.hpp"

namespace {

using namespace mltwin::conformance::controller;
constexpr const char* kFile = "job_controller_util_test.go";

constexpr const char* kCommands =
    "Commands (bus.volcano.sh Command, vcctl job suspend/resume/...) are not modelled: ";

}  // namespace

// ---- TestMakePodName, TestCreateJobPod (job_controller_util.go MakePodName, createJobPod) ----

NOT_APPLICABLE(kFile, "TestMakePodName", "Test MakePodName function",
               "names a task's second pod (index 1); mltwin's tasks have one pod each (TorchX: task trainer-<i>, replicas 1), "
               "whose name <job>-<task>-0 TestCreateJobPod's 'Test Create Job Pod' checks");

UPSTREAM_CASE("job_controller_util_test.go", "TestCreateJobPod", "Test Create Job Pod") {
  // createJobPod names pod `index` of a task <job>-<task>-<index> (helpers.PodNameFmt). Upstream:
  // job1, task1 (6 replicas), index 0 -> job1-task1-0. mltwin's job1 of 6 replicas has tasks
  // trainer-0..5 of one pod each: task trainer-0's pod is job1-trainer-0-0.
  JobCase c(6, "job1");
  c.parts->controller.create_pod(0, 0);
  CHECK(c.pod_names() == std::vector<std::string>{"job1-trainer-0-0"});
}

NOT_APPLICABLE(kFile, "TestCreateJobPod", "Test Create Job Pod with volumes",
               "Job volumes (spec.volumes, PersistentVolumeClaims mounted into the pods) are not modelled");
NOT_APPLICABLE(kFile, "TestCreateJobPod", "Test Create Job Pod with volumes added to controlled resources",
               "Job volumes (spec.volumes, PersistentVolumeClaims mounted into the pods) are not modelled");

// ---- TestApplyPolicies (job_controller_util.go:170-271 applyPolicies) ----
// mltwin's requests are pod and PodGroup events (PodEvicted, PodFailed, TaskCompleted, Unknown)
// matched against the task's and the Job's policies (JobLifecycle::action_for); none of these
// cases sends one of them.

NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies where Action is not empty",
               "a request that carries its action (job_controller_util.go:181-184) comes from a Command "
               "(job_controller_handler.go:426-431); Commands are not modelled");
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies where event is OutOfSync",
               "OutOfSync is an internal event (job_controller_util.go:187-189, 394-403) of Job add/update requests; mltwin has no "
               "Job update, and applies the request its own status writes raise (the state's status rule) in "
               "JobController::check_job_phase, never through the policies");
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies where event is PodRunning",
               "PodRunning is an internal event (job_controller_util.go:394-403) that never meets a policy; mltwin does not "
               "route a pod's Running report to the job controller's policies at all (PodLifecycle -> "
               "JobController::all_pods_running)");
NOT_APPLICABLE(kFile, "TestApplyPolicies",
               "Test Apply policies where job uid is inconsistent, ignore the existing policy action in the job and execute syncjob",
               "a request from a deleted Job's pod meeting a new Job of the same name (job_controller_util.go:193-197) needs Job "
               "deletion and re-creation, not modelled (a scenario's job names are unique, each Job lives once)");
UPSTREAM_CASE("job_controller_util_test.go", "TestApplyPolicies", "Test Apply policies where version is outdated") {
  // applyPolicies (job_controller_util.go:199-203): a request older than status.version runs
  // SyncJob. Upstream: a Job at version 0 with no policy, a request with JobVersion 1 (not
  // older) and no event: SyncJob, for want of a policy. mltwin's requests always have an event
  // (here the PodGroup's Unknown): with no policy, SyncJob too.
  JobCase c(6, "job1");
  c.pods(0, 6, PodPhase::Running).job_phase(VcPhase::Running).podgroup_phase(PodGroupPhase::Running);
  c.execute(JobAction::SyncJob, 1);
  CHECK(c.phase() == VcPhase::Running);
  CHECK(c.retries() == 0);
  CHECK(c.pods_in(TaskStatus::Running) == 6);
  // The rule the case names: the same Job at version 2 (two killJobs, job_controller_actions.go:
  // 108-110), with the policy Unknown -> RestartJob. A request with JobVersion 1 is outdated:
  // SyncJob, the policy does not apply; one with the Job's version 2 gets it.
  c.job_version(2);
  c.execute(JobAction::RestartJob, 1);
  CHECK(c.phase_after_execute() == "Running");
  CHECK(c.phase() == VcPhase::Running);
  CHECK(c.retries() == 0);
  CHECK(c.version() == 2);
  CHECK(c.pods_in(TaskStatus::Running) == 6);
  c.execute(JobAction::RestartJob, 2);
  CHECK(c.phase_after_execute() == "Restarting");
  CHECK(c.retries() == 1);
  CHECK(c.version() == 3);  // killJob bumps it
}

NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies where overriding job level policies and with exitcode",
               "exit-code policies (LifecyclePolicy.exitCode, job_controller_util.go:230-237) are not modelled: mltwin's pods "
               "fail with their node or with torchrun's timeout, with no container exit code; and the policy's event is "
               "CommandIssued (Commands are not modelled)");
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies where overriding job level policies and without exitcode",
               (std::string(kCommands) + "the request's CommandIssued event is internal (job_controller_util.go:187-189)").c_str());
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies with job level policies",
               (std::string(kCommands) + "the request's CommandIssued event is internal (job_controller_util.go:187-189)").c_str());
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies with job level policies [2]",
               (std::string(kCommands) + "the request's CommandIssued event is internal (job_controller_util.go:187-189)").c_str());
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies with job level policies, the event is PodPending with timeout",
               "PodPending events and delayed actions (policy timeout, job_controller_util.go:216-226, 248-257; "
               "job_controller.go AddDelayActionForJob) are not modelled (docs/volcano.md)");
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies with job level policies, the event is PodPending without timeout",
               "PodPending events and delayed actions (policy timeout, job_controller_util.go:216-226, 248-257; "
               "job_controller.go AddDelayActionForJob) are not modelled (docs/volcano.md)");
NOT_APPLICABLE(kFile, "TestApplyPolicies", "Test Apply policies with job level policies with exitcode",
               "exit-code policies (LifecyclePolicy.exitCode, job_controller_util.go:260-267) are not modelled: mltwin's pods "
               "fail with their node or with torchrun's timeout, with no container exit code");

// ---- TasksPriority, calcPGMinResources (job_controller_util.go:296-392, job_controller_actions.go:842-875) ----

NOT_APPLICABLE(kFile, "TestTasksPriority_Less", "",
               "orders a Job's tasks by their pods' PriorityClass for the PodGroup's minResources; mltwin's tasks of a Job are "
               "identical one-pod tasks of one priority");
NOT_APPLICABLE(kFile, "TestTasksPriority_Swap", "",
               "orders a Job's tasks by their pods' PriorityClass for the PodGroup's minResources; mltwin's tasks of a Job are "
               "identical one-pod tasks of one priority");
NOT_APPLICABLE(kFile, "TestTaskPriority_CalcPGMin", "",
               "needs tasks of several replicas with different requests, priorities and task minAvailable (master and worker, 2 "
               "replicas each); mltwin's Job is nnodes identical one-pod tasks with minAvailable nnodes, so its PodGroup's "
               "minResources is nnodes x the pod's requests (TrainingCluster::arrive)");
NOT_APPLICABLE(kFile, "TestCalcPGMinResources", "",
               "needs tasks of several replicas with different requests and task minAvailable (master and worker, 2 replicas "
               "each); mltwin's Job is nnodes identical one-pod tasks with minAvailable nnodes, so its PodGroup's minResources "
               "is nnodes x the pod's requests (TrainingCluster::arrive)");
