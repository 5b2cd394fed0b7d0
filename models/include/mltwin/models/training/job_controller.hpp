// mltwin/models/training/job_controller.hpp — the Volcano job controller (v1.12.1): a Job's
// pods, and what happens to a Job whose pod is evicted or fails, by its lifecycle policies;
// torchrun's process group waiting for a lost peer.
//
// See models/src/training/job_controller.cpp's header for the rules and the upstream files they
// follow.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/training/training_state.hpp"

namespace mltwin::models {

class SchedulerDriver;
class PodLifecycle;
class TrainingProgress;

class JobController {
 public:
  /// All arguments must outlive the component.
  JobController(TrainingState& state, SchedulerDriver& driver, PodLifecycle& pods, TrainingProgress& progress)
      : s_(state), driver_(driver), pods_(pods), progress_(progress) {}

  /// A request for job `idx` (`what`: the decision row's text), handled at this instant once
  /// the current scheduling cycle or node failure is over. `version`: the request's JobVersion,
  /// the pod's job version for a pod event (version_of()), 0 for the PodGroup's Unknown
  /// (job_controller_handler.go:466-478 sets none). True if it is the first waiting.
  bool raise(std::size_t idx, JobEvent e, int replica, std::int32_t version, std::string what);
  /// The job version pod `t` was created with (createJobPod's annotation volcano.sh/job-version).
  std::int32_t version_of(policy::TaskId t) const { return s_.version_of_task[t]; }
  /// Creates replica `i`'s pod of job `idx` (Volcano task "trainer-<i>", replicas 1).
  void create_pod(std::size_t idx, int i);
  /// syncJob: the missing pods of an admitted (Inqueue or later) Pending, Running or
  /// Restarting Job.
  void ensure_pods(std::size_t idx);
  /// The status rules of the job's state, applied whenever its pods change.
  void check_job_phase(std::size_t idx);
  /// Job idx's pods by phase as syncJob counts them (a pod that does not exist is not counted).
  JobRun::StatusCounts pod_counts(std::size_t idx) const;
  /// Every pod of job `idx` runs (the kubelet reported the last): a Pending Job is Running
  /// (state/pending.go: Running pods >= minAvailable); after a lost pod, torchrun's survivors
  /// restarted their worker group with the replacement (no Volcano restart).
  void all_pods_running(std::size_t idx);
  /// Job `idx`'s training ended (TrainingProgress): torchrun's workers exit 0, every pod
  /// Succeeded (restartPolicy Never) and the Job is Completed.
  void training_completed(std::size_t idx);
  /// Pod `t` of job `idx` (a job of independent pods) Succeeded (PodLifecycle::pod_done): the
  /// job controller's updatePod handler raises TaskCompleted when every pod of its task has
  /// Succeeded (job_controller_handler.go:279-283, cache.go TaskCompleted), else the Job's
  /// status rule runs (a sync).
  void pod_succeeded(std::size_t idx, policy::TaskId t);
  /// A pod of job `idx` died with its node's instance while the API still shows it: training
  /// stops (progress since the last checkpoint is lost) and the other workers wait for the lost
  /// peer until workload.torchx.peer_failure_timeout (torchrun's process group).
  void peer_lost(std::size_t idx) { gang_broken(idx); }
  /// Job `idx`'s workers cannot form their collectives (`why`): torchrun exits with an error,
  /// every running pod is Failed (restartPolicy Never) and the job controller sees PodFailed.
  void collectives_failed(std::size_t idx, const std::string& why);

 private:
  void job_controller(std::size_t idx);
  void controller_event(std::size_t idx, JobEvent e, int replica, std::int32_t version, const std::string& what);
  /// killPods: every pod of the job (only_replica < 0), or KillTarget's: the pod of replica
  /// `only_replica`, or with `whole_task` every pod of its task. Returns the pods deleted.
  int kill_pods(std::size_t idx, bool soft, int only_replica, bool whole_task = false);
  void end_job(std::size_t idx, const std::string& phase, const std::string& reason);
  void set_job_phase(std::size_t idx, VcPhase phase) { s_.runs[idx].vc = phase; }
  void recreate_podgroup(std::size_t idx);
  void recount(std::size_t idx);
  bool podgroup_admitted(std::size_t idx) const;
  /// The status counts a status rule reads: the pods' (the missing ones as Pending) written as
  /// the Job's status when the PodGroup is admitted, else the status last written.
  const JobRun::StatusCounts& sync_status(std::size_t idx, const JobRun::StatusCounts& pods, int present);
  double stop_training(std::size_t idx);
  void gang_broken(std::size_t idx);
  void cancel_peer_timer(std::size_t idx);
  void peer_timeout(std::size_t idx);
  /// Marks `pods` of job `idx` Failed (their workers exited with an error: `why`), queuing a
  /// PodFailed for each; the caller runs the job controller.
  void fail_pods(std::size_t idx, std::vector<policy::TaskId> pods, const std::string& why);
  void before() { s_.note_event(); }

  TrainingState& s_;
  SchedulerDriver& driver_;
  PodLifecycle& pods_;
  TrainingProgress& progress_;

  template <auto Fn>
  using Ev = core::Event<Fn, &JobController::before>;
  Ev<&JobController::job_controller> job_controller_event_{this};
  Ev<&JobController::peer_timeout> peer_timeout_event_{this};
};

}  // namespace mltwin::models
