// PodLifecycle: see mltwin/models/training/pod_lifecycle.hpp.
#include "mltwin/models/training/pod_lifecycle.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mltwin/models/node_lifecycle.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "mltwin/models/training/job_controller.hpp"
#include "mltwin/models/training/scheduler_driver.hpp"
#include "mltwin/models/training/training_progress.hpp"

namespace mltwin::models {

using policy::JobId;
using policy::NodeId;
using policy::TaskId;
using policy::TaskStatus;

PodLifecycle::PodLifecycle(TrainingState& state, core::RngStreams& rng, SchedulerDriver& driver, JobController& controller,
                           TrainingProgress& progress)
    : s_(state), driver_(driver), controller_(controller), progress_(progress), startup_rng_(rng.stream("pod.startup_latency")) {
  if (s_.sc.startup) startup_ = std::make_unique<StartupModel>(*s_.sc.startup);
  s_.startup_modelled = startup_ != nullptr;
}

PodLifecycle::~PodLifecycle() = default;

void PodLifecycle::pod_bound(TaskId t) {
  if (s_.state.task(t).status != TaskStatus::Binding) return;  // killed or evicted meanwhile
  driver_.kubelet_status(t, TaskStatus::Bound);
  const policy::TaskInfo& task = s_.state.task(t);
  const std::size_t idx = s_.job_of_policy[task.job];
  JobRun& run = s_.runs[idx];
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Bound", s_.state.node(task.node).name, s_.sim.now()});
  // The job is placed once minAvailable pods are (every pod for a torchrun gang; with
  // minAvailable 0, its first pod).
  if (++run.bound == std::max(1, s_.sc.jobs[idx].min_member()) && run.scheduled == core::Time::max()) {
    run.scheduled = s_.sim.now();  // the first placement (a restarted job keeps it)
    s_.outcomes[idx].scheduled = run.scheduled;
  }
  Duration pull = Duration::ns(0);
  if (startup_) {  // the kubelet pulls the image (or waits for the node's pull) before the container runs
    JobStartup& js = s_.jstart[idx];
    pull = startup_->image_pull(task.node, s_.sim.now());
    if (run.bound == 1) js.pull_max = pull;
    else js.pull_max = std::max(js.pull_max, pull);
  }
  s_.sim.schedule_in(s_.sc.pod_startup.draw(startup_rng_) + pull, &pod_running_event_, t);
}

bool PodLifecycle::unreachable(NodeId n) const { return s_.nodes != nullptr && s_.nodes->unreachable(n); }

void PodLifecycle::pod_running(TaskId t) {
  if (s_.state.task(t).status != TaskStatus::Bound) return;  // killed or evicted meanwhile
  if (unreachable(s_.state.task(t).node)) return;           // its node's kubelet is gone: never starts
  driver_.kubelet_status(t, TaskStatus::Running);
  const policy::TaskInfo& task = s_.state.task(t);
  const std::size_t idx = s_.job_of_policy[task.job];
  JobRun& run = s_.runs[idx];
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Running", s_.state.node(task.node).name, s_.sim.now()});
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  if (j.independent_pods()) {
    // No torchrun: the pod's container runs its task's duration from now, whatever its job's
    // other pods do (no rendezvous, compilation or dataset start-up: those are torchrun's).
    ++run.running;
    if (run.start == core::Time::max()) run.start = s_.sim.now();  // the job's first pod Running
    if (run.attempt_placed != core::Time::max()) {  // from its first bind to its first pod Running
      s_.outcomes[idx].startup_s += (s_.sim.now() - run.attempt_placed).seconds();
      run.attempt_placed = core::Time::max();
    }
    s_.outcomes[idx].start = run.start;
    s_.outcomes[idx].phase = "Running";
    const Duration d = j.tasks[j.task_of_replica(s_.replica_of_task[t])].duration;
    s_.sim.schedule_in(d, &pod_done_event_, decltype(pod_done_event_)::payload(t, s_.serial_of_task[t]));
    controller_.check_job_phase(idx);  // state/pending.go: Running once Running + Succeeded + Failed >= minAvailable
    return;
  }
  if (++run.running == j.nnodes) {
    // A pod the API still shows Running may have died with its node's instance: Volcano counts
    // it (the Job is Running), but torchrun's rendezvous cannot complete without it, so the job
    // waits for PodGC and SyncJob.
    for (TaskId u : s_.state.job(task.job).tasks)
      if (s_.state.task(u).status == TaskStatus::Running && unreachable(s_.state.task(u).node)) {
        if (run.vc == VcPhase::Pending) run.vc = VcPhase::Running;  // state/pending.go
        return;
      }
    controller_.all_pods_running(idx);
    if (startup_) begin_startup(idx);  // rendezvous, compilation, dataset read, then training
    else training_begins(idx);
  }
}

void PodLifecycle::begin_startup(std::size_t idx) {
  // The last worker joined: torchrun's rendezvous, then the Neuron graphs (compiled, or loaded
  // from the compile cache), then the dataset from FSx for Lustre (models/startup.hpp).
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  const StartupSpec& sp = *s_.sc.startup;
  JobStartup& js = s_.jstart[idx];
  const std::string& model = j.model.empty() ? sp.default_model : j.model;
  const std::string& flags = j.compiler_flags.empty() ? sp.default_flags : j.compiler_flags;
  const Duration rdzv = sp.rendezvous;
  const StartupModel::Compile c =
      startup_->compile(static_cast<std::uint32_t>(idx), model, flags, j.nnodes * j.nproc_per_node, s_.sim.now() + rdzv);
  const NeuronModelSpec* m = sp.find_model(model);
  const Duration read = startup_->dataset_read(m ? m->dataset_bytes : 0);
  js.image_pull_s += js.pull_max.seconds();
  js.rendezvous_s += rdzv.seconds();
  s_.outcomes[idx].compile_s += c.time.seconds();
  js.dataset_read_s += read.seconds();
  if (!js.compile_cache.empty()) js.compile_cache += ",";
  js.compile_cache += to_string(c.outcome);
  if (c.outcome == CompileOutcome::Hit) ++s_.stats.compile_hits;
  else if (c.outcome == CompileOutcome::Miss) ++s_.stats.compile_misses;
  else ++s_.stats.compile_waits;
  s_.stats.image_pull_s += js.pull_max.seconds();
  js.startup_begin = s_.sim.now();
  js.in_startup = true;
  js.done_event = s_.sim.schedule_in(rdzv + c.time + read, &startup_done_event_, idx);
  JobOutcome& out = s_.outcomes[idx];
  if (s_.runs[idx].start == core::Time::max()) s_.runs[idx].start = s_.sim.now();  // the first start
  out.start = s_.runs[idx].start;
  out.phase = "Running";
}

void PodLifecycle::training_begins(std::size_t idx) {
  JobStartup& js = s_.jstart[idx];
  if (js.in_startup) {
    js.in_startup = false;
    s_.stats.startup_s += (s_.sim.now() - js.startup_begin).seconds();
  }
  if (js.training_start == core::Time::max()) js.training_start = s_.sim.now();
  if (const std::string zones = efa_zones_split(idx); !zones.empty()) {
    // EFA's OS-bypass traffic cannot leave its subnet, and a subnet lies in one availability
    // zone (AWS EC2 User Guide, "Elastic Fabric Adapter", EFA limitations): the job's
    // collectives cannot connect and its workers exit with an error at their first one.
    ++s_.stats.efa_cross_zone_failures;
    controller_.collectives_failed(idx, "its pods run in availability zones " + zones +
                                            " and EFA traffic cannot cross zones: its collectives cannot connect");
    return;
  }
  progress_.start(idx);
}

std::string PodLifecycle::efa_zones_split(std::size_t idx) const {
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  if (s_.nodes == nullptr || j.nnodes < 2 || !uses_efa(s_.sc, j)) return {};
  std::set<std::string> zones;
  for (TaskId t : s_.state.job(s_.runs[idx].pj).tasks)
    if (s_.state.task(t).status == TaskStatus::Running)
      zones.insert(s_.sc.node_groups[s_.nodes->rec(s_.state.task(t).node).group].availability_zone);
  if (zones.size() < 2) return {};
  std::string list;
  for (const auto& z : zones) list += (list.empty() ? "" : ", ") + (z.empty() ? std::string("(no zone)") : z);
  return list;
}

void PodLifecycle::abort_startup(std::size_t idx) {
  JobStartup& js = s_.jstart[idx];
  if (!js.in_startup) return;
  s_.sim.cancel(js.done_event);
  js.in_startup = false;
  if (startup_) startup_->abort_compiles(static_cast<std::uint32_t>(idx), s_.sim.now());
}

void PodLifecycle::delete_pod(std::size_t idx, TaskId t) {
  const policy::TaskInfo& task = s_.state.task(t);
  const TaskStatus st = task.status;
  if (st == TaskStatus::Releasing) return;  // being deleted already
  const auto u = static_cast<std::uint32_t>(idx);
  if (!policy::on_node_status(st)) {
    // Not on a node (Pending, or its containers have ended): the API server deletes it at once.
    s_.rec.pod_event({u, s_.replica_of_task[t], "Deleted", "", s_.sim.now()});
    s_.state.remove_task(t);
    return;
  }
  if (st == TaskStatus::Pipelined) {  // only nominated to a node
    s_.rec.pod_event({u, s_.replica_of_task[t], "Deleted", "", s_.sim.now()});
    s_.state.set_task_status(t, TaskStatus::Pending);
    s_.state.remove_task(t);
    return;
  }
  s_.rec.pod_event({u, s_.replica_of_task[t], "Killed", s_.state.node(task.node).name, s_.sim.now()});
  s_.state.set_task_status(t, TaskStatus::Releasing);
  gone_after(s_.termination_grace(), t);
}

void PodLifecycle::drain_pod(TaskId t, Duration longest_grace) {
  // A node drain evicts the pod through the Eviction API: the pod is deleted (Releasing for its
  // termination grace period, cut short at `longest_grace`) and the job controller sees
  // PodEvicted, as for the scheduler's evictions.
  const policy::TaskInfo& task = s_.state.task(t);
  if (task.status == TaskStatus::Releasing) return;  // being deleted already
  if (task.status == TaskStatus::Pipelined) {        // only nominated to the node: back to Pending
    s_.state.set_task_status(t, TaskStatus::Pending);
    return;
  }
  const std::size_t idx = s_.job_of_policy[task.job];
  const std::string node_name = s_.state.node(task.node).name;
  ++s_.stats.drained;
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Drained", node_name, s_.sim.now()});
  s_.state.set_task_status(t, TaskStatus::Releasing);
  gone_after(std::min(s_.termination_grace(), longest_grace), t);
  controller_.raise(idx, JobEvent::PodEvicted, s_.replica_of_task[t], controller_.version_of(t),
                    "pod " + task.name + " evicted (drain of node " + node_name + " at its Spot interruption notice)");
}

void PodLifecycle::pod_gone(TaskId t) {
  // The termination grace period has passed: the pod is gone and its resources are free.
  const policy::TaskInfo& task = s_.state.task(t);
  if (task.status != TaskStatus::Releasing) return;  // gone already, with its failed node
  // No kubelet confirms the deletion on a failed node: the pod stays Terminating until PodGC.
  if (unreachable(task.node)) return;
  const std::size_t idx = s_.job_of_policy[task.job];
  const NodeId node = task.node;
  s_.account_allocation(-s_.neuroncores_of(task.resreq));
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Deleted", s_.state.node(task.node).name, s_.sim.now()});
  s_.state.remove_task(t);
  s_.node_occupancy_changed(node);
  driver_.ensure_tick();
  controller_.check_job_phase(idx);  // the job controller's status rule; a missing pod may be recreated
}

void PodLifecycle::pod_done(std::uint32_t t, std::uint32_t serial) {
  if (t >= s_.serial_of_task.size() || s_.serial_of_task[t] != serial) return;  // that pod is gone
  const policy::TaskInfo& task = s_.state.task(t);
  if (task.status != TaskStatus::Running) return;  // being deleted, or failed
  if (unreachable(task.node)) return;               // died with its node's instance
  const std::size_t idx = s_.job_of_policy[task.job];
  const NodeId node = task.node;
  JobRun& run = s_.runs[idx];
  s_.account_allocation(-s_.neuroncores_of(task.resreq));
  s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Succeeded", s_.state.node(node).name, s_.sim.now()});
  s_.state.set_task_status(t, TaskStatus::Succeeded);  // holds nothing on its node now
  s_.node_occupancy_changed(node);
  --run.running;
  --run.bound;
  driver_.ensure_tick();
  controller_.pod_succeeded(idx, t);
}

std::vector<TaskId> PodLifecycle::tasks_on(NodeId n, bool terminal_too) const {
  std::vector<TaskId> on;
  auto here = [&](TaskId t) {
    const policy::TaskInfo& task = s_.state.task(t);
    return task.node == n && (policy::on_node_status(task.status) ||
                              (terminal_too && (task.status == TaskStatus::Failed || task.status == TaskStatus::Succeeded)));
  };
  for (const auto* list : {&s_.state.pending_jobs(), &s_.state.active_jobs()})
    for (JobId j : *list)
      for (TaskId t : s_.state.job(j).tasks)
        if (here(t)) on.push_back(t);
  for (const JobRun& run : s_.runs)  // a killed job without PodGroup: its pods being deleted
    if (!run.ended && run.pj != policy::kNone && s_.state.job(run.pj).podgroup_unset)
      for (TaskId t : s_.state.job(run.pj).tasks)
        if (here(t)) on.push_back(t);
  std::sort(on.begin(), on.end());  // task id order: independent of the lists' order
  on.erase(std::unique(on.begin(), on.end()), on.end());
  return on;
}

void PodLifecycle::pods_failed_on_node(NodeId n) {
  // The Spot node was terminated: its pods are gone with it (their containers died; nothing is left to
  // terminate). The Volcano job controller sees PodFailed and applies the job's policy
  // (TorchX max_retries > 0: PodFailed -> RestartJob), as for an eviction.
  const std::vector<TaskId> on = tasks_on(n);
  const std::string node_name = s_.state.node(n).name;
  for (TaskId t : on) {
    const policy::TaskInfo& task = s_.state.task(t);
    const std::size_t idx = s_.job_of_policy[task.job];
    if (task.status == TaskStatus::Pipelined) {  // only nominated to the node: back to Pending
      s_.state.set_task_status(t, TaskStatus::Pending);
      continue;
    }
    const bool releasing = task.status == TaskStatus::Releasing;
    s_.account_allocation(-s_.neuroncores_of(task.resreq));
    s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "Failed", node_name, s_.sim.now()});
    const std::string pod_name = task.name;
    const int replica = s_.replica_of_task[t];
    const std::int32_t version = controller_.version_of(t);
    s_.state.remove_task(t);
    if (releasing) {  // being deleted already: its deletion completes with the node
      controller_.check_job_phase(idx);
      continue;
    }
    controller_.raise(idx, JobEvent::PodFailed, replica, version, "pod " + pod_name + " failed (node " + node_name + " failed)");
  }
}

}  // namespace mltwin::models

namespace mltwin::models {

void PodLifecycle::node_unreachable(NodeId n) {
  // The instance died with the pods' containers. The API still shows them (Running, Bound), so
  // nothing is raised to the job controller; torchrun's workers elsewhere lose their peer.
  std::vector<std::size_t> jobs;
  for (TaskId t : tasks_on(n)) {
    const TaskStatus st = s_.state.task(t).status;
    if (st == TaskStatus::Releasing || st == TaskStatus::Pipelined) continue;
    jobs.push_back(s_.job_of_policy[s_.state.task(t).job]);
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (std::size_t idx : jobs)
    if (!s_.runs[idx].ended) controller_.peer_lost(idx);
}

namespace {

const policy::Taint kUnreachableNoExecute{"node.kubernetes.io/unreachable", "", policy::TaintEffect::NoExecute};

// How long the taint manager lets a pod with `tolerations` stay on a node newly tainted
// node.kubernetes.io/unreachable:NoExecute; nullopt: for ever.
// - The DefaultTolerationSeconds admission plugin
//   (plugin/pkg/admission/defaulttolerationseconds/admission.go) adds {unreachable, Exists,
//   NoExecute, --default-unreachable-toleration-seconds} only to a pod none of whose
//   tolerations has that key (or no key) and effect NoExecute (or no effect): it looks at key
//   and effect alone, not at operator or value.
// - The taint manager (pkg/controller/tainteviction/taint_eviction.go processPodOnNode): a pod
//   with no toleration matching the taint is deleted at once (v1helper.GetMatchingTolerations);
//   otherwise at the taint's time + getMinTolerationTime of the matching tolerations: the least
//   tolerationSeconds, 0 if one is <= 0, for ever if none has tolerationSeconds.
// A tolerationSeconds beyond 100 years counts as for ever (no run is that long; it keeps the
// nanosecond clock from overflowing). Only the unreachable taint is considered: a node group's
// own NoExecute taints are fixed, and a running pod's tolerationSeconds for them is not modelled.
std::optional<Duration> unreachable_toleration(const std::vector<policy::Toleration>& tolerations, Duration default_toleration) {
  bool admitted_own = false;
  for (const auto& tol : tolerations)
    if ((tol.key == kUnreachableNoExecute.key || tol.key.empty()) &&
        (tol.any_effect || tol.effect == policy::TaintEffect::NoExecute))
      admitted_own = true;
  if (!admitted_own) return default_toleration;
  bool matched = false;
  std::optional<std::int64_t> least;
  for (const auto& tol : tolerations) {
    if (!tol.tolerates(kUnreachableNoExecute)) continue;
    matched = true;
    if (tol.toleration_seconds) least = least ? std::min(*least, *tol.toleration_seconds) : *tol.toleration_seconds;
  }
  if (!matched) return Duration::ns(0);
  if (!least) return std::nullopt;
  constexpr std::int64_t kForEver = 100LL * 365 * 86400;
  if (*least >= kForEver) return std::nullopt;
  return Duration::s(std::max<std::int64_t>(*least, 0));
}

}  // namespace

std::vector<Duration> PodLifecycle::taint_eviction_delays(NodeId n, Duration default_toleration) const {
  std::vector<Duration> out;
  for (TaskId t : tasks_on(n)) {
    const policy::TaskInfo& task = s_.state.task(t);
    if (task.status == TaskStatus::Releasing) continue;  // being deleted already
    if (auto d = unreachable_toleration(task.tolerations, default_toleration)) out.push_back(*d);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void PodLifecycle::taint_evict_pods(NodeId n, Duration tainted_for) {
  // kube-controller-manager's taint eviction: a pod whose toleration of
  // node.kubernetes.io/unreachable:NoExecute has run out (its own tolerationSeconds, or the
  // 300 s the DefaultTolerationSeconds admission plugin gives a pod without its own; see
  // unreachable_toleration) is deleted. No kubelet confirms it: the pod stays Terminating
  // (Releasing, holding its resources on a node no session sees) until PodGC. Volcano's
  // updatePod hands a pod with a deletionTimestamp to deletePod: PodEvicted
  // (job_controller_handler.go).
  const Duration default_toleration = s_.sc.faults ? s_.sc.faults->unreachable_toleration : Duration::s(300);
  const std::string node_name = s_.state.node(n).name;
  for (TaskId t : tasks_on(n)) {
    const policy::TaskInfo& task = s_.state.task(t);
    if (task.status == TaskStatus::Releasing) continue;  // being deleted already
    const std::optional<Duration> toleration = unreachable_toleration(task.tolerations, default_toleration);
    if (!toleration || *toleration > tainted_for) continue;
    if (task.status == TaskStatus::Pipelined) {
      s_.state.set_task_status(t, TaskStatus::Pending);
      continue;
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", toleration->seconds());
    const std::size_t idx = s_.job_of_policy[task.job];
    ++s_.stats.taint_evictions;
    taint_evicted_.insert(t);
    s_.rec.pod_event({static_cast<std::uint32_t>(idx), s_.replica_of_task[t], "TaintEvicted", node_name, s_.sim.now()});
    s_.state.set_task_status(t, TaskStatus::Releasing);
    controller_.raise(idx, JobEvent::PodEvicted, s_.replica_of_task[t], controller_.version_of(t),
                      "pod " + task.name + " evicted by the taint manager: node " + node_name +
                          " unreachable (node.kubernetes.io/unreachable:NoExecute) past its " + secs + " s toleration");
  }
}

void PodLifecycle::pods_garbage_collected(NodeId n) {
  // PodGC's gcOrphaned (pkg/controller/podgc/gc_controller.go, markFailedAndDeletePodWithCondition):
  // a pod that is not Succeeded or Failed is patched Failed (DisruptionTarget DeletionByPodGC,
  // "PodGC: node no longer exists"), then force-deleted. Volcano's job controller sees the patch
  // as PodFailed — or, for a pod already Terminating, as PodEvicted — and the deletion as
  // PodEvicted; SyncJob then recreates the missing pod (a deleted pod is not a Failed one).
  const std::string node_name = s_.state.node(n).name;
  for (TaskId t : tasks_on(n, /*terminal_too=*/true)) {
    const policy::TaskInfo& task = s_.state.task(t);
    const std::size_t idx = s_.job_of_policy[task.job];
    if (task.status == TaskStatus::Pipelined) {  // only nominated to the node: back to Pending
      s_.state.set_task_status(t, TaskStatus::Pending);
      continue;
    }
    if (task.status == TaskStatus::Failed || task.status == TaskStatus::Succeeded) {
      // Terminal already (holding nothing): PodGC only deletes it — PodEvicted, and SyncJob
      // recreates a deleted pod where it never recreates a Failed one.
      const auto u = static_cast<std::uint32_t>(idx);
      const int replica = s_.replica_of_task[t];
      const std::int32_t version = controller_.version_of(t);
      const std::string pod_name = task.name;
      ++s_.stats.pods_garbage_collected;
      s_.rec.pod_event({u, replica, "Deleted", node_name, s_.sim.now()});
      s_.state.remove_task(t);
      controller_.raise(idx, JobEvent::PodEvicted, replica, version, "pod " + pod_name + " deleted by PodGC");
      continue;
    }
    const bool terminating = task.status == TaskStatus::Releasing;
    const auto u = static_cast<std::uint32_t>(idx);
    const int replica = s_.replica_of_task[t];
    const std::int32_t version = controller_.version_of(t);
    const std::string pod_name = task.name;
    ++s_.stats.pods_garbage_collected;
    if (taint_evicted_.erase(t) > 0) ++s_.stats.pods_garbage_collected_after_taint_eviction;
    s_.account_allocation(-s_.neuroncores_of(task.resreq));
    if (!terminating) {
      s_.rec.pod_event({u, replica, "Failed", node_name, s_.sim.now()});
      controller_.raise(idx, JobEvent::PodFailed, replica, version,
                        "pod " + pod_name + " failed: PodGC: node " + node_name + " no longer exists");
    } else {
      controller_.raise(idx, JobEvent::PodEvicted, replica, version,
                        "pod " + pod_name + " (Terminating) patched Failed by PodGC: node " + node_name + " no longer exists");
    }
    s_.rec.pod_event({u, replica, "Deleted", node_name, s_.sim.now()});
    s_.state.remove_task(t);
    controller_.raise(idx, JobEvent::PodEvicted, replica, version, "pod " + pod_name + " deleted by PodGC");
    if (terminating) controller_.check_job_phase(idx);  // its deletion completes
  }
  driver_.ensure_tick();
}

}  // namespace mltwin::models
