// mltwin/k8s/manifests.hpp — Kubernetes and Volcano manifests as their users write them (YAML):
// Volcano Queues, Jobs and PodGroups, PriorityClasses, each checked as the API server and
// Volcano's admission webhooks check it. The scenario loader (io/) turns them into a scenario's
// entries (mltwin/io/yaml_config.hpp, to_training_job and to_queue_spec).
//
// Errors throw InputError naming the file, line and column (1-based) and the YAML path of the
// offending value, e.g.
//   jobs/trainer.yaml:14:9: spec.tasks[0].replicas: expected an integer, got "two"
// A key mltwin does not know is an error, except the keys listed as ignored (they change
// nothing that mltwin models; docs/scenarios.md, "Reading real configuration (YAML)", lists them).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/k8s/input.hpp"
#include "mltwin/k8s/yaml_place.hpp"

namespace mltwin::k8s {

/// The longest waiting time a manifest may give (volcano.sh/sla-waiting-time), ns: 10 years,
/// far inside int64 ns (io::kMaxScenarioTime is this bound).
inline constexpr std::int64_t kMaxManifestDurationNs = 10LL * 365 * 86'400 * 1'000'000'000;
inline constexpr const char* kMaxManifestDurationText = "10 years (315360000 s)";

/// scheduling.volcano.sh/v1beta1 Queue (config/crd/volcano/bases/scheduling.volcano.sh_queues.yaml).
struct QueueManifest {
  std::string name;
  int weight = 1;                         ///< spec.weight (the admission webhook's default 1)
  std::optional<ResourceList> capability; ///< spec.capability
  ResourceList guarantee;                 ///< spec.guarantee.resource
  int priority = 0;                       ///< spec.priority
  bool reclaimable = true;                ///< spec.reclaimable (default true)
  std::optional<ResourceList> deserved;   ///< spec.deserved (capacity plugin)
  std::string parent;                     ///< spec.parent (capacity plugin's hierarchy)
  YamlPlace parent_at;                    ///< where spec.parent is written (else the document)
  std::string state = "Open";             ///< status.state when the manifest carries it
  YamlPlace at;                           ///< the document
};

/// scheduling.volcano.sh/v1beta1 PodGroup (scheduling.volcano.sh_podgroups.yaml).
struct PodGroupManifest {
  std::string name;
  std::string queue = "default";
  int min_member = 0;
  /// spec.minTaskMember: the least pods of each Volcano task (role), in the manifest's order
  /// (policy::JobInfo::min_task_member).
  std::vector<std::pair<std::string, int>> min_task_member;
  ResourceList min_resources;
  std::string priority_class_name;
  YamlPlace at;
};

/// scheduling.k8s.io/v1 PriorityClass.
struct PriorityClassManifest {
  std::string name;
  int value = 0;
  bool global_default = false;
  bool preempt_never = false;  ///< preemptionPolicy: Never (else PreemptLowerPriority, the default)
  YamlPlace at;
  /// One of Kubernetes' built-in classes as the API server creates them (system-cluster-critical
  /// 2000000000, system-node-critical 2000001000, not globalDefault), as `kubectl get
  /// priorityclasses -o json` lists them beside the user's: read, and left to the built-in ones.
  bool system = false;
};

/// A Volcano lifecycle policy (batch.volcano.sh/v1alpha1 LifecyclePolicy), checked as the
/// admission webhook checks it. `exitCode` and `timeout` are refused (not modelled).
struct JobPolicy {
  std::vector<std::string> events;  ///< `event` or `events`
  std::string action;               ///< RestartJob, RestartTask, RestartPod, AbortJob, TerminateJob, CompleteJob, ResumeJob
};

/// core/v1 Toleration as written (checked as Kubernetes validates it, mltwin/k8s/validation.hpp).
struct Toleration {
  std::string key, op, value, effect;
  std::optional<long long> toleration_seconds;
};

/// One pod template, reduced to what scheduling sees.
struct PodShape {
  /// Requests per pod: the containers' requests summed, a resource with a limit and no request
  /// requesting its limit (Kubernetes copies the limit into the request).
  ResourceList requests;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  /// spec.affinity.nodeAffinity in its Kubernetes shape (checked); null when absent.
  nlohmann::json node_affinity;
  std::string priority_class_name;
  /// torchrun's --nproc_per_node, when a container's command or args run torchrun.
  std::optional<int> nproc_per_node;
};

struct VolcanoTask {
  std::string name;
  int replicas = 0;
  std::optional<int> min_available;
  int max_retry = 0;
  std::vector<JobPolicy> policies;
  PodShape pod;
  YamlPlace at;
};

/// batch.volcano.sh/v1alpha1 Job (config/crd/volcano/bases/batch.volcano.sh_jobs.yaml), with the
/// defaults of Volcano's admission webhook applied (pkg/webhooks/admission/jobs/mutate/
/// mutate_job.go, v1.12.1): queue "default", maxRetry 3 when 0, minAvailable the sum of the
/// tasks' minAvailable (a task without one counting its replicas) when 0; and its minAvailable
/// checks (validate/admit_job.go validateJobCreate: none negative, a task's at most its
/// replicas, the job's at most the replicas summed), refused with the webhook's message.
struct VolcanoJobManifest {
  std::string name;
  std::string namespace_;
  std::string queue;
  int min_available = 0;
  int max_retry = 0;
  std::string priority_class_name;
  /// metadata.annotations volcano.sh/sla-waiting-time, else sla-waiting-time, as written (a Go
  /// duration, checked > 0); empty: none.
  std::string sla_waiting_time;
  std::vector<JobPolicy> policies;
  std::vector<VolcanoTask> tasks;
  YamlPlace at;
  YamlPlace queue_at;         ///< spec.queue (the document when defaulted)
  YamlPlace min_available_at; ///< spec.minAvailable (the document when defaulted)
  // What `kubectl get vcjob -o yaml` adds to a Job that exists (read for a job history,
  // io::read_job_history; a manifest to submit has none of it).
  std::string creation_timestamp;  ///< metadata.creationTimestamp as written; "" when absent
  YamlPlace creation_at;           ///< its place (the document when absent)
  /// status.state.phase (batch.volcano.sh/v1alpha1 JobPhase: Pending, Running, Restarting,
  /// Completing, Completed, Aborting, Aborted, Terminating, Terminated, Failed); "" without status.
  std::string phase;
  std::string phase_time;          ///< status.state.lastTransitionTime as written; "" when absent
  YamlPlace phase_at;              ///< status.state.phase (else status.state, else the document)
  /// status.conditions: a JobCondition for every phase the job controller moved the Job to
  /// (pkg/controllers/job/job_controller_actions.go, newCondition), in order.
  struct Condition {
    std::string status;                ///< the JobPhase entered
    std::string last_transition_time;  ///< as written; "" when absent
    YamlPlace at;
  };
  std::vector<Condition> conditions;
  int pods() const;           ///< sum of replicas
  /// The action taken for PodEvicted: a task's own policies first, then the job's (Volcano's
  /// job controller, pkg/controllers/job/job_controller_util.go applyPolicies); empty: none.
  std::string action_on_evicted(const VolcanoTask& t) const;
};

/// Every document of a multi-document YAML file (`---`), also the items of a kind: List.
struct Manifests {
  std::vector<QueueManifest> queues;
  std::vector<VolcanoJobManifest> jobs;
  std::vector<PodGroupManifest> podgroups;
  std::vector<PriorityClassManifest> priority_classes;
};
/// Reads Queue, Job, PodGroup and PriorityClass documents; any other kind or apiVersion is an
/// error naming the ones read.
Manifests read_manifests(const std::string& file);

namespace yaml {
/// A manifest's toleration in its Kubernetes shape.
nlohmann::json toleration_json(const Toleration& t);
}  // namespace yaml

}  // namespace mltwin::k8s
