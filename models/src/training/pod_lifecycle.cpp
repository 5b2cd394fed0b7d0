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
    remove_pod(t);
    return;
  }
  if (st == TaskStatus::Pipelined) {  // only nominated to a node
    s_.rec.pod_event({u, s_.replica_of_task[t], "Deleted", "", s_.sim.now()});
    s_.state.set_task_status(t, TaskStatus::Pending);
    remove_pod(t);
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
  remove_pod(t);
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
    remove_pod(t);
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

// What the taint manager does with a pod on a node with NoExecute taints: delete it now, after
// a delay, or never.
struct TaintVerdict {
  enum class Kind : std::uint8_t { Never, After, Now } kind = Kind::Never;
  Duration after = Duration::ns(0);  ///< Kind::After: the least tolerationSeconds (>= 0)
};

// The pod's tolerations as the API server stores them: the DefaultTolerationSeconds admission
// plugin (plugin/pkg/admission/defaulttolerationseconds/admission.go) appends
// {node.kubernetes.io/not-ready, Exists, NoExecute, --default-not-ready-toleration-seconds 300}
// unless one of the pod's tolerations has that key (or no key) and effect NoExecute (or no
// effect) — it looks at key and effect alone, not at operator or value — and the same for
// node.kubernetes.io/unreachable (--default-unreachable-toleration-seconds:
// faults.unreachable_toleration).
std::vector<policy::Toleration> admitted_tolerations(const std::vector<policy::Toleration>& own, Duration unreachable_default) {
  std::vector<policy::Toleration> out = own;
  const std::pair<const char*, Duration> defaults[] = {{"node.kubernetes.io/not-ready", Duration::s(300)},
                                                       {"node.kubernetes.io/unreachable", unreachable_default}};
  for (const auto& [key, seconds] : defaults) {
    const bool has = std::any_of(own.begin(), own.end(), [&, key = key](const policy::Toleration& t) {
      return (t.key == key || t.key.empty()) && (t.any_effect || t.effect == policy::TaintEffect::NoExecute);
    });
    if (has) continue;
    policy::Toleration t;
    t.key = key;
    t.op = policy::Toleration::Op::Exists;
    t.any_effect = false;
    t.effect = policy::TaintEffect::NoExecute;
    t.toleration_seconds = seconds.count_ns() / 1'000'000'000;
    out.push_back(t);
  }
  return out;
}

// The taint manager's rule (pkg/controller/tainteviction/taint_eviction.go processPodOnNode,
// Kubernetes v1.32) for a pod with `tolerations` (as admitted_tolerations gives them) on a node
// with the NoExecute taints `taints`: GetMatchingTolerations (pkg/apis/core/v1/helper) takes,
// for each taint, the *first* of the pod's tolerations that tolerates it; if a taint has none,
// the pod is deleted now. getMinTolerationTime then takes the least tolerationSeconds of those
// tolerations: 0 if one is <= 0, for ever if none has tolerationSeconds. A tolerationSeconds
// beyond 100 years counts as for ever (no run is that long; it keeps the nanosecond clock from
// overflowing).
TaintVerdict taint_verdict(const std::vector<policy::Toleration>& tolerations, const std::vector<policy::Taint>& taints) {
  if (taints.empty()) return {};
  std::optional<std::int64_t> least;
  for (const policy::Taint& taint : taints) {
    auto it = std::find_if(tolerations.begin(), tolerations.end(), [&](const policy::Toleration& t) { return t.tolerates(taint); });
    if (it == tolerations.end()) return {TaintVerdict::Kind::Now};
    if (it->toleration_seconds) least = least ? std::min(*least, *it->toleration_seconds) : *it->toleration_seconds;
  }
  constexpr std::int64_t kForEver = 100LL * 365 * 86400;
  if (!least || *least >= kForEver) return {};
  return {TaintVerdict::Kind::After, Duration::s(std::max<std::int64_t>(*least, 0))};
}

std::vector<policy::Taint> no_execute_taints(const policy::NodeInfo& n) {
  std::vector<policy::Taint> out;
  for (const policy::Taint& t : n.taints)
    if (t.effect == policy::TaintEffect::NoExecute) out.push_back(t);
  return out;
}

std::string taints_text(const std::vector<policy::Taint>& taints) {
  std::string out;
  for (const policy::Taint& t : taints) out += (out.empty() ? "" : ", ") + t.key + (t.value.empty() ? "" : "=" + t.value) + ":NoExecute";
  return out;
}

std::string seconds_text(Duration d) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", d.seconds());
  return secs;
}

}  // namespace

Duration PodLifecycle::default_unreachable_toleration() const {
  return s_.sc.faults ? s_.sc.faults->unreachable_toleration : Duration::s(300);
}

void PodLifecycle::bound_after(Duration latency, TaskId t) {
  s_.sim.schedule_in(latency, &pod_bound_event_, t);
  watch_taints(t);
}

void PodLifecycle::watch_taints(TaskId t) {
  // The pod now has its spec.nodeName: the taint manager's pod informer (PodUpdated) queues it,
  // and handlePodUpdate runs processPodOnNode with the node's NoExecute taints and now. A node
  // group's taints are on its nodes from the start, so the clock starts at the bind (for a pod
  // on its node at t0, at t0: the taint manager's queue is in memory, and on its start it
  // processes every node, NodeUpdated(nil, node), with now). The scheduler placed the pod only
  // where it tolerates every NoExecute taint (TaintToleration); a toleration without
  // tolerationSeconds keeps it for ever.
  const policy::TaskInfo& task = s_.state.task(t);
  const std::vector<policy::Taint> taints = no_execute_taints(s_.state.node(task.node));
  const TaintVerdict v = taint_verdict(admitted_tolerations(task.tolerations, default_unreachable_toleration()), taints);
  if (v.kind == TaintVerdict::Kind::Never) return;
  const std::string why = v.kind == TaintVerdict::Kind::Now
                              ? "it does not tolerate node " + s_.state.node(task.node).name + "'s " + taints_text(taints)
                              : "node " + s_.state.node(task.node).name + "'s " + taints_text(taints) + " tolerated for " +
                                    seconds_text(v.after) + " s (tolerationSeconds) since the pod was bound there";
  cancel_taint_timer(t);
  taint_timers_[t] = {s_.serial_of_task[t], why,
                      s_.sim.schedule_in(v.after, &taint_expired_event_, decltype(taint_expired_event_)::payload(t, s_.serial_of_task[t]))};
}

void PodLifecycle::cancel_taint_timer(TaskId t) {
  auto it = taint_timers_.find(t);
  if (it == taint_timers_.end()) return;
  s_.sim.cancel(it->second.event);  // a no-op when it is the event firing now
  taint_timers_.erase(it);
}

void PodLifecycle::remove_pod(TaskId t) {
  cancel_taint_timer(t);
  s_.state.remove_task(t);
}

void PodLifecycle::taint_expired(std::uint32_t t, std::uint32_t serial) {
  // The taint manager's worker fires (deletePodHandler): it marks the pod DisruptionTarget
  // (DeletionByTaintManager) and deletes it. A pod deleted meanwhile had its work cancelled
  // (handlePodUpdate: NotFound); a pod of the same name created since is another pod.
  auto it = taint_timers_.find(t);
  if (it == taint_timers_.end() || it->second.serial != serial) return;
  const std::string why = std::move(it->second.why);
  taint_timers_.erase(it);
  if (t >= s_.serial_of_task.size() || s_.serial_of_task[t] != serial) return;
  const policy::TaskInfo& task = s_.state.task(t);
  if (s_.runs[s_.job_of_policy[task.job]].ended) return;  // the Job is finished: nothing follows
  taint_delete(t, why);
}

void PodLifecycle::taint_delete(TaskId t, const std::string& why) {
  const policy::TaskInfo& task = s_.state.task(t);
  const TaskStatus st = task.status;
  // Only a pod bound to its node (in the API: spec.nodeName set) and not being deleted.
  if (st != TaskStatus::Binding && st != TaskStatus::Bound && st != TaskStatus::Running && st != TaskStatus::Succeeded &&
      st != TaskStatus::Failed)
    return;
  const std::size_t idx = s_.job_of_policy[task.job];
  const auto u = static_cast<std::uint32_t>(idx);
  const int replica = s_.replica_of_task[t];
  const std::int32_t version = controller_.version_of(t);
  const NodeId node = task.node;
  const std::string node_name = s_.state.node(node).name, pod_name = task.name;
  const std::string text = "pod " + pod_name + " evicted by the taint manager: " + why;
  if (unreachable(node)) ++s_.stats.taint_evictions;  // a failed node's pod (TrainingStats)
  else ++s_.stats.node_taint_evictions;
  s_.rec.pod_event({u, replica, "TaintEvicted", node_name, s_.sim.now()});
  if (st == TaskStatus::Succeeded || st == TaskStatus::Failed) {
    if (unreachable(node)) {  // no kubelet confirms it: Terminating until PodGC deletes it
      taint_evicted_.insert(t);
      controller_.raise(idx, JobEvent::PodEvicted, replica, version, text);
      return;
    }
    // Its containers have ended: the kubelet confirms the deletion at once. Volcano's deletePod
    // raises PodEvicted for it too, and SyncJob recreates a deleted pod.
    s_.rec.pod_event({u, replica, "Deleted", node_name, s_.sim.now()});
    remove_pod(t);
    s_.node_occupancy_changed(node);
    controller_.raise(idx, JobEvent::PodEvicted, replica, version, text);
    return;
  }
  s_.state.set_task_status(t, TaskStatus::Releasing);
  // The kubelet stops it within its termination grace period; on a failed node no kubelet
  // confirms the deletion: the pod stays Terminating, holding its place, until PodGC.
  if (unreachable(node)) taint_evicted_.insert(t);
  else gone_after(s_.termination_grace(), t);
  // Volcano's updatePod hands a pod with a deletionTimestamp to deletePod: PodEvicted
  // (job_controller_handler.go).
  controller_.raise(idx, JobEvent::PodEvicted, replica, version, text);
}

std::optional<Duration> PodLifecycle::not_ready_delay(TaskId t) const {
  // processPodOnNode at the NotReady node's update (handleNodeUpdate: its NoExecute taints now
  // include node.kubernetes.io/unreachable, now = the taint's time). Not every taint tolerated:
  // deleted now, its scheduled deletion cancelled. Otherwise a pod with a deletion already
  // scheduled (a node group's taint tolerated for tolerationSeconds, watch_taints) keeps it: that
  // work began earlier, so startTime + the least tolerationSeconds is before now + the same and
  // processPodOnNode returns. Else the least tolerationSeconds from now, or never.
  const policy::TaskInfo& task = s_.state.task(t);
  const TaintVerdict v = taint_verdict(admitted_tolerations(task.tolerations, default_unreachable_toleration()),
                                       no_execute_taints(s_.state.node(task.node)));
  if (v.kind == TaintVerdict::Kind::Now) return Duration::ns(0);
  auto it = taint_timers_.find(t);
  if (it != taint_timers_.end() && it->second.serial == s_.serial_of_task[t]) return std::nullopt;  // its own work fires
  if (v.kind == TaintVerdict::Kind::Never) return std::nullopt;
  return v.after;
}

std::vector<Duration> PodLifecycle::taint_eviction_delays(NodeId n) const {
  std::vector<Duration> out;
  for (TaskId t : tasks_on(n)) {
    if (s_.state.task(t).status == TaskStatus::Releasing) continue;  // being deleted already
    if (auto d = not_ready_delay(t)) out.push_back(*d);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void PodLifecycle::taint_evict_pods(NodeId n, Duration tainted_for) {
  // kube-controller-manager's taint eviction on a node NotReady (not_ready_delay): a pod whose
  // toleration of node.kubernetes.io/unreachable:NoExecute (and of the node's other NoExecute
  // taints) has run out — its own tolerationSeconds, or the 300 s the DefaultTolerationSeconds
  // admission plugin gives a pod without its own — is deleted. No kubelet confirms it: the pod
  // stays Terminating (Releasing, holding its resources on a node no session sees) until PodGC.
  const std::string node_name = s_.state.node(n).name;
  for (TaskId t : tasks_on(n)) {
    const policy::TaskInfo& task = s_.state.task(t);
    if (task.status == TaskStatus::Releasing) continue;  // being deleted already
    const std::optional<Duration> toleration = not_ready_delay(t);
    if (!toleration || *toleration > tainted_for) continue;
    if (task.status == TaskStatus::Pipelined) {
      s_.state.set_task_status(t, TaskStatus::Pending);
      continue;
    }
    cancel_taint_timer(t);  // deleted now
    taint_delete(t, "node " + node_name + " unreachable (node.kubernetes.io/unreachable:NoExecute) past its " +
                        seconds_text(*toleration) + " s toleration");
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
      if (taint_evicted_.erase(t) > 0) ++s_.stats.pods_garbage_collected_after_taint_eviction;
      s_.rec.pod_event({u, replica, "Deleted", node_name, s_.sim.now()});
      remove_pod(t);
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
    remove_pod(t);
    controller_.raise(idx, JobEvent::PodEvicted, replica, version, "pod " + pod_name + " deleted by PodGC");
    if (terminating) controller_.check_job_phase(idx);  // its deletion completes
  }
  driver_.ensure_tick();
}

}  // namespace mltwin::models
