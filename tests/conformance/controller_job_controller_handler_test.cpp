// Volcano v1.12.1 pkg/controllers/job/job_controller_handler_test.go: the controller's informer
// handlers, which keep its Job and pod cache (pkg/controllers/cache) and queue requests.
//
// mltwin's job controller keeps no cache of its own and no work queue: it reads the cluster
// state the scheduler reads, and handles a pod or PodGroup event at the instant it happens
// (JobController::raise). The handlers' rules that shape what the controller does are modelled
// where they act: a deleted pod raises PodEvicted (job_controller_handler.go:317-389), a Failed
// pod PodFailed (:268-276; both PodLifecycle), a PodGroup turning Unknown raises JobUnknown
// (:467-478) and one turning Inqueue gets its pods (SchedulerDriver::podgroup_phase_changed).
#include "conformance.hpp"

namespace {

constexpr const char* kFile = "job_controller_handler_test.go";

}  // namespace

NOT_APPLICABLE(kFile, "TestAddCommandFunc", "",
               "Commands (bus.volcano.sh Command, vcctl job suspend/resume/...) and the controller's command queue are not modelled");
NOT_APPLICABLE(kFile, "TestJobAddFunc", "",
               "asserts the controller's Job cache and work queue after addJob; mltwin has neither (a Job is submitted with its "
               "PodGroup by TrainingCluster::arrive, and the controller reads the shared cluster state)");
NOT_APPLICABLE(kFile, "TestUpdateJobFunc", "",
               "Job updates through the API server (spec changes, status writes seen by the informer) are not modelled; the "
               "controller's Job cache they update does not exist in mltwin");
NOT_APPLICABLE(kFile, "TestAddPodFunc", "",
               "asserts the controller's pod cache by task (jobcache AddPod); mltwin's controller reads the pods of the shared "
               "cluster state");
NOT_APPLICABLE(kFile, "TestUpdatePodFunc", "",
               "asserts the pod phase kept in the controller's pod cache (jobcache UpdatePod); mltwin's controller reads the pods "
               "of the shared cluster state");
NOT_APPLICABLE(kFile, "TestDeletePodFunc", "",
               "asserts the controller's pod cache by task (jobcache DeletePod); mltwin's controller reads the pods of the shared "
               "cluster state");
NOT_APPLICABLE(kFile, "TestUpdatePodGroupFunc", "",
               "asserts that a PodGroup phase change (Pending -> Running) puts one request in the controller's work queue, which "
               "mltwin does not have. That request runs SyncJob: mltwin creates the missing pods when the PodGroup turns Inqueue "
               "(SchedulerDriver::podgroup_phase_changed) and applies the state's status rule whenever the Job's pods change "
               "(JobController::check_job_phase)");
