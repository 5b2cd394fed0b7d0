// tests/conformance/controller_harness.hpp — the job controller's cases of the conformance suite
// (upstream_controller_cases.tsv): one Volcano Job of mltwin's training model, put by hand in the
// state an upstream case starts from, and the training cluster's components around it.
//
// Upstream's job controller tests build an apis.JobInfo (the Job's status phase, retryCount,
// and its pods by task) and call a state's Execute(action), syncJob or killJob on a fake
// controller. Here the Job is mltwin's: `replicas` pods, one per Volcano task "trainer-<i>"
// (TorchX), minAvailable = replicas, the webhook's maxRetry 3 (mutate_job.go DefaultMaxRetry;
// upstream's test Jobs skip the webhook and carry 0), one queue and one node roomy enough for
// every pod. Pods are put in the phase the case gives (a Pending pod is on no node, Running on
// the node, Terminating is being deleted, Succeeded and Failed have ended), and the Job's stored
// status counts are those pods' (upstream's cases write both).
//
// execute(a) runs an action the way mltwin's job controller gets one: a request for the Job
// and no task (JobEvent::Unknown, as updatePodGroup raises it) meets the Job's policy
// `Unknown -> a` (none for SyncJob, applyPolicies' default), and the Job's state executes it
// (JobController, state/*.go). The controller also applies at once what upstream's next request
// would (the echo of its own status update or pod deletions, job_controller.cpp's header):
// phase_after_execute() is the phase the state's Execute left, which the controller writes in
// its decision row, and phase() the Job's phase once that is done.
#pragma once
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training/components.hpp"
#include "one_job_cluster.hpp"

namespace mltwin::conformance::controller {

using namespace mltwin::models;
using policy::PodGroupPhase;
using policy::TaskId;
using policy::TaskStatus;

/// A pod's phase as upstream's buildPod gives it (Terminating: a deletionTimestamp).
enum class PodPhase { Pending, Running, Succeeded, Failed, Terminating };

/// What the components tell the recorder: the job controller's decision rows, pod events.
struct Rows final : TrainingRecorder {
  struct Row {
    std::string code, plugin, reason;
  };
  std::vector<Row> decisions;
  std::vector<std::string> pod_events;  ///< "<event> <replica>"
  std::vector<JobFinal> finals;
  void job_submitted(const JobSubmitted&) override {}
  void job_final(const JobFinal& j) override { finals.push_back(j); }
  void pod_event(const PodEvent& e) override { pod_events.push_back(std::string(e.event) + " " + std::to_string(e.pod)); }
  void decision(const Decision& d) override { decisions.push_back({std::string(d.code), std::string(d.plugin), std::string(d.reason)}); }
  void phase_change(const PhaseChange&) override {}
  void sample(const ClusterSample&) override {}
  void step_period(const StepPeriod&) override {}
  void node_launched(const NodeLaunched&) override {}
  void node_ended(const NodeEnded&) override {}
  void checkpoint(core::Time) override {}
};

/// One Volcano Job of `replicas` one-pod tasks (no pod created yet, PodGroup Pending, Job
/// Pending) and the components around it, on a node roomy enough for every pod; nothing is
/// scheduled until a case acts.
class JobCase : public test::OneJobCluster<Rows> {
 public:
  explicit JobCase(int replicas, std::string name = "job1")
      : JobCase(std::make_shared<JobLifecycle>(), replicas, std::move(name)) {}

  /// The Job's spec.maxRetry.
  JobCase& max_retry(int m) {
    lifecycle_->max_retry = m;
    return *this;
  }
  /// The Job's status: phase and retryCount.
  JobCase& job_phase(VcPhase p, int retries = 0) {
    run().vc = p;
    run().retries = retries;
    return *this;
  }
  JobCase& podgroup_phase(PodGroupPhase p) {
    s->state.set_podgroup_phase(run().pj, p);
    return *this;
  }
  /// Creates replica `replica`'s pod (task "trainer-<replica>") in phase `p`.
  JobCase& pod(int replica, PodPhase p) {
    parts->controller.create_pod(0, replica);
    const TaskId t = s->state.job(run().pj).tasks.back();
    switch (p) {
      case PodPhase::Pending: break;
      case PodPhase::Running: s->state.set_task_status(t, TaskStatus::Running, node_); break;
      case PodPhase::Terminating:
        s->state.set_task_status(t, TaskStatus::Running, node_);
        s->state.set_task_status(t, TaskStatus::Releasing, node_);
        break;
      case PodPhase::Succeeded:
      case PodPhase::Failed:
        s->state.set_task_status(t, TaskStatus::Running, node_);
        s->state.set_task_status(t, p == PodPhase::Succeeded ? TaskStatus::Succeeded : TaskStatus::Failed);
        break;
    }
    // Upstream's cases give the Job's status counts of the pods they list.
    run().status = parts->controller.pod_counts(0);
    return *this;
  }
  /// Pods of replicas [from, to) in phase `p`.
  JobCase& pods(int from, int to, PodPhase p) {
    for (int i = from; i < to; ++i) pod(i, p);
    return *this;
  }

  /// The Job's status.version (killJob bumps it).
  JobCase& job_version(std::int32_t v) {
    run().version = v;
    return *this;
  }
  std::int32_t version() const { return s->runs[0].version; }

  /// The Job's state executes `a` (see the file comment), and the controller applies what the
  /// requests that follow at the same instant would. The request carries `request_version`
  /// (default: the Job's own, so that applyPolicies passes it to the policies as upstream's
  /// Execute calls get their action).
  /// `replica` >= 0 makes it a request of that replica's pod (the action's target: its task).
  void execute(JobAction a, std::optional<std::int32_t> request_version = std::nullopt, int replica = -1) {
    lifecycle_->policies.clear();
    if (a != JobAction::SyncJob)
      lifecycle_->policies.push_back(LifecyclePolicy{static_cast<std::uint8_t>(1u << static_cast<unsigned>(JobEvent::Unknown)), a});
    const std::size_t rows_before = rows.decisions.size();
    before_ = run().vc;
    parts->controller.raise(0, JobEvent::Unknown, replica, request_version.value_or(run().version),
                            "conformance: a request for the Job");
    REQUIRE(sim.step());  // the job controller's request, at this instant
    after_.reset();
    for (std::size_t i = rows_before; i < rows.decisions.size(); ++i)
      if (rows.decisions[i].plugin == "job-controller") after_ = rows.decisions[i].code;
  }
  /// The phase the state's Execute left (its decision row; none: the phase did not change).
  std::string phase_after_execute() const { return after_ ? *after_ : to_string(before_); }
  /// The Job's phase now.
  VcPhase phase() const { return s->runs[0].vc; }
  int retries() const { return s->runs[0].retries; }
  /// The Job's PodGroup exists (killJob deletes it; killTarget does not).
  bool has_podgroup() const { return !s->state.job(s->runs[0].pj).podgroup_unset; }
  bool ended() const { return s->runs[0].ended; }
  /// The Job's pods now, by status (a pod gone is not counted).
  int pods_in(TaskStatus st) const {
    if (ended()) return 0;
    int n = 0;
    for (TaskId t : s->state.job(s->runs[0].pj).tasks)
      if (s->state.task(t).status == st) ++n;
    return n;
  }
  /// The Job's pods now (none once the Job ended).
  std::vector<std::string> pod_names() const {
    std::vector<std::string> out;
    if (ended()) return out;
    for (TaskId t : s->state.job(s->runs[0].pj).tasks) out.push_back(s->state.task(t).name);
    return out;
  }
  /// Replica `replica`'s pod.
  TaskId task_of(int replica) const {
    for (TaskId t : s->state.job(s->runs[0].pj).tasks)
      if (s->replica_of_task[t] == replica) return t;
    FAIL("no pod of replica " << replica);
    return policy::kNone;
  }

 private:
  JobCase(std::shared_ptr<JobLifecycle> lc, int replicas, std::string name)
      : OneJobCluster(options(lc, replicas, std::move(name))), lifecycle_(std::move(lc)) {}
  static test::OneJobOptions options(const std::shared_ptr<JobLifecycle>& lc, int replicas, std::string name) {
    test::OneJobOptions o;
    o.name = std::move(name);
    o.replicas = replicas;
    o.lifecycle = lc;  // maxRetry 3, no policy; execute() writes the policy it needs
    o.node_cpu = 64;
    o.node_memory_gib = 256;
    return o;
  }
  JobRun& run() { return s->runs[0]; }
  std::shared_ptr<JobLifecycle> lifecycle_;
  policy::NodeId node_ = 0;  // node-0
  VcPhase before_ = VcPhase::Pending;
  std::optional<std::string> after_;
};

}  // namespace mltwin::conformance::controller
