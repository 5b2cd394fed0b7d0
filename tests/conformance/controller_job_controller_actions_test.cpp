// Volcano v1.12.1 pkg/controllers/job/job_controller_actions_test.go: killJob, syncJob, the
// Job's PVCs and PodGroup, pod deletion, and the PodGroup's Kubernetes Events.
#include "conformance.hpp"
#include "controller_harness.hpp"

namespace {

using namespace mltwin::conformance::controller;
constexpr const char* kFile = "job_controller_actions_test.go";

}  // namespace

NOT_APPLICABLE(kFile, "TestKillJobFunc", "",
               "asserts only that killJob's pluginOnJobDelete removed the svc plugin's Service and the ssh plugin's Secret "
               "(job_controller_actions.go:190-194); the job plugins (svc, ssh, env) are not modelled");

UPSTREAM_CASE("job_controller_actions_test.go", "TestSyncJobFunc", "SyncJob success Case") {
  // A Pending Job of 6 replicas whose PodGroup is Inqueue and two of whose pods run: syncJob
  // creates the 4 missing pods (job_controller_actions.go:404-483): 6 pods in all. Upstream's 6
  // replicas are one task's; mltwin's are 6 one-pod tasks, trainer-0..5.
  JobCase c(6, "job1");
  c.podgroup_phase(PodGroupPhase::Inqueue).pods(0, 2, PodPhase::Running);
  c.parts->controller.ensure_pods(0);  // syncJob
  CHECK(c.pod_names().size() == 6);
}

NOT_APPLICABLE(kFile, "TestSyncJobFunc", "SyncJob with dependsOn job can't find the dependent task",
               "task dependsOn (a task's pods created once another task's run, job_controller_actions.go:446-459) is not "
               "modelled: TorchX writes no dependsOn");
NOT_APPLICABLE(kFile, "TestCreateJobIOIfNotExistFunc", "",
               "Job volumes and their PersistentVolumeClaims (createJobIOIfNotExist) are not modelled");
NOT_APPLICABLE(kFile, "TestCreatePVCFunc", "", "Job volumes and their PersistentVolumeClaims (createPVC) are not modelled");
NOT_APPLICABLE(kFile, "TestCreatePodGroupIfNotExistFunc", "",
               "the controller's creation of the PodGroup named <job>-<uid> (createOrUpdatePodGroup) is not modelled: mltwin "
               "submits a Job with its PodGroup (TrainingCluster::arrive)");
NOT_APPLICABLE(kFile, "TestUpdatePodGroupIfJobUpdateFunc", "",
               "updating a Job's spec (here its priorityClassName) and the PodGroup after it is not modelled");

UPSTREAM_CASE("job_controller_actions_test.go", "TestDeleteJobPod", "DeleteJobPod success case") {
  // deleteJobPod deletes the pod through the API server. Upstream's fake clientset removes it
  // at once; mltwin's pod on a node is deleted gracefully: Terminating for its grace period
  // (30 s), then gone, and the other pod stays.
  JobCase c(2, "job1");
  c.pods(0, 2, PodPhase::Running);
  c.parts->pods.delete_pod(0, c.task_of(0));
  CHECK(c.pods_in(TaskStatus::Releasing) == 1);
  REQUIRE(c.sim.step());  // the termination grace period ends
  CHECK(c.sim.now().ns() == 30'000'000'000);
  CHECK(c.pod_names() == std::vector<std::string>{"job1-trainer-1-0"});
}

NOT_APPLICABLE(kFile, "TestRecordPodGroupEvent", "",
               "asserts the Kubernetes Event (Warning PodGroupPending) syncJob records from the PodGroup's conditions "
               "(recordPodGroupEvent); mltwin records no Kubernetes Events (the scheduler's reasons are decision rows)");
