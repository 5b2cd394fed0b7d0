#include "mltwin/models/training.hpp"
#include "mltwin/policy/node_constraints.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "mltwin/models/collective.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/core/flow_network.hpp"
#include "mltwin/models/fabric_traffic.hpp"
#include "mltwin/models/node_lifecycle.hpp"
#include "training_internal.hpp"

namespace mltwin::models {

using policy::JobId;
using policy::NodeId;
using policy::PodGroupPhase;
using policy::Resource;
using policy::TaskId;
using policy::TaskStatus;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::int64_t kDayNs = 86'400LL * 1'000'000'000LL;
}  // namespace

Duration LatencySpec::draw(core::Engine& rng) const {
  switch (kind) {
    case Kind::Constant:
      return a;
    case Kind::Uniform: {
      // Integer nanoseconds, uniform on [min, max]: portable across standard libraries.
      boost::random::uniform_int_distribution<std::int64_t> d(a.count_ns(), b.count_ns());
      return Duration::ns(d(rng));
    }
    case Kind::Exponential: {
      boost::random::exponential_distribution<double> d(1.0 / a.seconds());
      return Duration::from_seconds(d(rng));
    }
  }
  return a;
}


TrainingCluster::TrainingCluster(const TrainingScenario& sc, core::Simulator& sim, core::RngStreams& rng,
                                 TrainingRecorder& recorder)
    : scenario_(sc),
      sim_(sim),
      rec_(recorder),
      uid_rng_(rng.stream("apiserver.uid")),
      bind_rng_(rng.stream("pod.bind_latency")),
      startup_rng_(rng.stream("pod.startup_latency")) {
  if (!sc.node_groups.empty())
    if (const InstanceType* it = sc.catalog.find(sc.node_groups.front().instance_types.at(0)); it && it->neuroncores_per_chip > 0)
      cores_per_device_ = it->neuroncores_per_chip;
  for (const auto& q : sc.queues) {
    policy::QueueInfo qi;
    qi.name = q.name;
    qi.weight = q.weight;
    if (q.capability) qi.capability = *q.capability;
    qi.guarantee = q.guarantee;
    qi.priority = q.priority;
    qi.state = q.open ? policy::QueueState::Open : policy::QueueState::Closed;
    qi.reclaimable = q.reclaimable;
    qi.deserved = q.deserved;
    qi.uid = uid_rng_();
    state_.add_queue(qi);
  }
  // spec.parent, by name ("root", or none: the root queue; the loader checked the tree).
  for (std::size_t i = 0; i < sc.queues.size(); ++i) {
    const std::string& parent = sc.queues[i].parent;
    if (parent.empty() || (parent == "root" && !std::any_of(sc.queues.begin(), sc.queues.end(),
                                                             [](const QueueSpec& q) { return q.name == "root"; })))
      continue;
    bool found = false;
    for (const auto& q : state_.queues())
      if (q.name == parent) {
        state_.queue(static_cast<policy::QueueId>(i)).parent = q.id;
        found = true;
      }
    if (!found) throw std::invalid_argument("queue " + sc.queues[i].name + ": unknown parent queue '" + parent + "'");
  }
  node_host_ = std::make_unique<NodeHostAdapter>(*this);
  nodes_ = std::make_unique<NodeLifecycle>(sc, sim_, rng, state_, rec_, stats_, *node_host_);  // the nodes at t = 0
  scheduler_ = std::make_unique<policy::Scheduler>(sc.scheduler, rng.stream("volcano.node_tiebreak")());
  for (const auto& a : sc.scheduler.actions) status_wakes_scheduler_ = status_wakes_scheduler_ || a == "preempt" || a == "reclaim";
  if (sc.termination_grace.kind != LatencySpec::Kind::Constant) grace_rng_ = &rng.stream("pod.termination_grace");
  if (sc.bind_failure_probability > 0) bind_failure_rng_ = &rng.stream("api.bind_failure");
  if (sc.duration_model == DurationModel::Derived) {
    if (!sc.step_model) throw std::invalid_argument("duration model 'derived' needs a step model (/step_model)");
    for (const auto& j : sc.jobs)
      if (j.steps < 1) throw std::invalid_argument("job " + j.name + ": duration model 'derived' needs steps >= 1");
  }
  torchx_default_ = torchx_lifecycle(sc.max_retries);
  runs_.resize(sc.jobs.size());
  outcomes_.resize(sc.jobs.size());
  jstart_.resize(sc.jobs.size());
  if (sc.startup) startup_ = std::make_unique<StartupModel>(*sc.startup);
  if (sc.duration_model == DurationModel::Derived && sc.step_model->contention) {
    if (!sc.fabric) throw std::invalid_argument("step model contention needs the scenario's fabric (/fabric)");
    if (sc.autoscaler) throw std::invalid_argument("fabric contention with a cluster autoscaler is not modelled yet");
    fabric_traffic_ = std::make_unique<FabricTraffic>(sc, sim_, rec_);
  }
  stats_.neuroncores_total = state_.total_allocatable().scalars.get(policy::rn::kNeuronCore) / 1000.0;
}

TrainingCluster::~TrainingCluster() = default;

// What the node lifecycle (node_lifecycle.hpp) asks of the rest of the cluster.
struct TrainingCluster::NodeHostAdapter final : NodeHost {
  explicit NodeHostAdapter(TrainingCluster& cluster) : c(cluster) {}
  TrainingCluster& c;
  void pods_lost_with_node(NodeId n) override { c.pods_failed_on_node(n); }
  void drain_pod(TaskId t, Duration longest_grace) override { c.drain_pod(t, longest_grace); }
  void node_left(NodeId n) override {
    if (c.startup_) c.startup_->forget_node(n);
  }
  void wake_scheduler() override { c.ensure_tick(); }
  double neuroncores_of(const Resource& r) const override { return c.neuroncores_of(r); }
  void before_event() override { c.note_event(); }
};

void TrainingCluster::node_occupancy_changed(NodeId n) {
  if (nodes_->dynamic()) nodes_->occupancy_changed(n);
}

void TrainingCluster::start() {
  // The nodes at t = 0 were built with the model, before its recorder may take records (the
  // runner's store exists only once the model has named its RNG streams): recorded now.
  nodes_->start();
  if (!scenario_.jobs.empty()) sim_.schedule(scenario_.jobs[0].submit, &arrival_event_, 0);
  sim_.schedule(sim_.now(), &sample_event_, 0);
}

std::string TrainingCluster::infeasible_reason(const TrainingJobSpec& j, const Resource& pod) const {
  // How many of this job's pods could the empty cluster hold at once, on the nodes whose labels
  // and taints its pods accept (the predicates plugin's NodeAffinity and TaintToleration
  // filters)? A node group none of whose nodes (or, with no node, whose template node) accepts
  // them is named with the filter's reason.
  const policy::TaskInfo cons = pod_constraints(j);
  const std::size_t groups = scenario_.node_groups.size();
  std::vector<char> usable(groups, 0), seen(groups, 0);
  std::vector<std::string> why(groups);
  std::string room_note;  // when allocatable or DaemonSets leave pods less than the capacity
  std::int64_t fit = 0;
  std::vector<std::pair<policy::ResourceName, int>> short_of;  // usable nodes short of each requested resource
  for (const auto& n : state_.nodes()) {
    if (nodes_->dynamic() && nodes_->rec(n.id).removed != core::Time::max()) continue;  // failed or removed
    const std::size_t g = nodes_->rec(n.id).group;
    seen[g] = 1;
    std::string misfit = policy::static_misfit(cons, n.labels, n.name, n.taints);
    if (!misfit.empty()) {
      if (why[g].empty()) why[g] = std::move(misfit);
      continue;
    }
    usable[g] = 1;
    const Resource room = n.pod_room();
    if (room != n.capacity && room_note.empty())
      room_note = "; a " + n.instance_type + " node leaves pods {" + room.to_string() + "} (capacity {" + n.capacity.to_string() +
                  "} less the kubelet's reservation and the DaemonSets' pods)";
    std::int64_t per = INT64_MAX;
    pod.for_each([&](policy::ResourceName name, double want) {
      if (want <= 0) return;
      const double have = room.get(name);
      per = std::min<std::int64_t>(per, static_cast<std::int64_t>(std::floor(have / want)));
      if (have < want) {
        auto it = std::find_if(short_of.begin(), short_of.end(), [&](const auto& e) { return e.first == name; });
        if (it == short_of.end()) short_of.emplace_back(name, 1);
        else ++it->second;
      }
    });
    if (per == INT64_MAX) per = j.nnodes;  // requests nothing: fits anywhere
    fit += per;
  }
  fit += nodes_->headroom_fit(pod, cons);  // nodes the cluster autoscaler may still add
  std::string excluded;  // "group: reason; ..."
  std::size_t usable_groups = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    const NodeGroupSpec& ng = scenario_.node_groups[g];
    if (!seen[g]) {
      std::string misfit = policy::static_misfit(cons, template_labels(ng), {}, ng.taints);
      if (misfit.empty()) usable[g] = 1;
      else why[g] = std::move(misfit);
    }
    if (usable[g]) ++usable_groups;
    else excluded += (excluded.empty() ? "" : "; ") + ng.name + ": " + why[g];
  }
  if (usable_groups == 0) return "no node group can take its pods (nodeSelector, node affinity, tolerations): " + excluded;
  const std::string also = excluded.empty() ? std::string() : " (node groups its pods cannot use: " + excluded + ")";
  if (fit == 0) {
    std::sort(short_of.begin(), short_of.end());
    std::string shortfall;
    for (const auto& [name, count] : short_of)
      shortfall += (shortfall.empty() ? "" : ", ") + std::string(name.str()) + " on " + std::to_string(count) + " node(s)";
    return "no node can hold one pod of this job (requests {" + pod.to_string() + "}" +
           (shortfall.empty() ? std::string() : "; too little " + shortfall) + ")" + also + room_note;
  }
  if (fit < j.nnodes)
    return "the cluster can hold at most " + std::to_string(fit) + " of this job's " + std::to_string(j.nnodes) +
           " pods at once" + also + room_note;
  // A queue capability below the job's minimum resources can never admit it.
  for (const auto& q : state_.queues())
    if (q.name == j.queue) {
      if (!q.capability) continue;  // no spec.capability: no limit
      Resource minres = pod;
      minres.multi(j.nnodes);
      // A resource the capability does not name is unlimited (Volcano: Infinity default); cpu
      // or memory <= 0 too (math.MaxFloat64).
      bool over = false;
      minres.for_each([&](policy::ResourceName name, double want) {
        const double* cap = name == policy::rn::kCpu      ? &q.capability->milli_cpu
                            : name == policy::rn::kMemory ? &q.capability->memory
                                                          : q.capability->scalars.find(name);
        if (want > 0 && cap && !((name == policy::rn::kCpu || name == policy::rn::kMemory) && *cap <= 0) && want > *cap)
          over = true;
      });
      if (over) {
        // The capability as the Queue gives it: cpu or memory <= 0 and unnamed resources are
        // unlimited.
        std::string cap;
        auto item = [&](std::string_view name, double v) {
          char num[64];
          std::snprintf(num, sizeof num, "%.6g", v);
          cap += (cap.empty() ? "" : ", ") + std::string(name) + " " + num;
        };
        if (q.capability->milli_cpu > 0) item("cpu", q.capability->milli_cpu / 1000.0);
        if (q.capability->memory > 0) item("memory (bytes)", q.capability->memory);
        for (const auto& e : q.capability->scalars)
          item(e.name.str(), e.name == policy::rn::kPods ? e.value : e.value / 1000.0);
        return "the job's minimum resources {" + minres.to_string() + "} exceed queue '" + q.name + "' capability {" + cap +
               "; anything else unlimited}";
      }
    }
  return {};
}

void TrainingCluster::arrive(std::size_t idx) {
  const TrainingJobSpec& j = scenario_.jobs[idx];
  next_arrival_ = idx + 1;
  if (next_arrival_ < scenario_.jobs.size())
    sim_.schedule(scenario_.jobs[next_arrival_].submit, &arrival_event_, next_arrival_);
  JobRun& run = runs_[idx];
  const policy::Resource pod = pod_resreq(idx);
  JobOutcome& out = outcomes_[idx];
  out.queue = j.queue;
  out.submit = j.submit;
  out.nnodes = j.nnodes;
  out.neuron_devices = j.neuron_devices_per_pod * j.nnodes;
  // A job running at t0 was submitted before the run began; what is known is when it started.
  const core::Time submit = j.initial ? core::Time::zero() - j.initial->elapsed : j.submit;
  out.submit = submit;
  std::string other;
  for (const auto& e : j.other_requests) {
    // Kubernetes quantities from the milli-units policy::Resource keeps: whole units as an
    // integer ("4", bytes for ephemeral-storage), else millis ("500m").
    const auto milli = static_cast<std::int64_t>(e.value);
    other += (other.empty() ? "{\"" : ",\"") + std::string(e.name.str()) + "\":\"" +
             (milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m") + "\"";
  }
  if (!other.empty()) other += "}";
  rec_.job_submitted({static_cast<std::uint32_t>(idx), j.name, j.queue, submit, j.nnodes, j.nproc_per_node,
                      j.neuron_devices_per_pod, j.cpu_per_pod, j.memory_bytes_per_pod / kGiB, j.efa_per_pod,
                      j.duration.seconds(), j.trace_row, j.trace_gpus, j.steps,
                      j.neuron_devices_per_pod > 0 ? std::string(j.neuron_resource.str()) : std::string(), std::move(other)});
  policy::QueueId qid = policy::kNone;
  for (const auto& q : state_.queues())
    if (q.name == j.queue) qid = q.id;
  std::string why = qid == policy::kNone ? "queue '" + j.queue + "' does not exist"
                    : j.initial           ? std::string()  // it runs: the loader checked its placement
                                          : infeasible_reason(j, pod);
  if (!why.empty()) {
    // Refused at submission, as an admission check would: it could never run here.
    run.ended = true;
    ++ended_;
    ++stats_.rejected;
    out.phase = "Rejected";
    write_final(idx, "Rejected", why);
    return;
  }
  policy::JobInfo pj;
  pj.name = j.name;
  pj.queue = qid;
  pj.min_available = j.nnodes;  // TorchX: minAvailable = replicas
  pj.priority = j.priority;
  pj.creation = submit.ns();
  pj.sla_waiting_time = j.sla_waiting_time.count_ns();
  pj.uid = uid_rng_();
  pj.min_resources = pod;
  pj.min_resources.multi(j.nnodes);
  run.pj = state_.add_job(pj);
  if (job_of_policy_.size() <= run.pj) job_of_policy_.resize(run.pj + 1);
  job_of_policy_[run.pj] = idx;
  out.phase = "Pending";
  if (j.initial) place_initial(idx);
  ensure_tick();
}

void TrainingCluster::place_initial(std::size_t idx) {
  // A job running at t0 (/initial_state): its PodGroup was admitted and its gang placed before
  // the run began, so at t0 (before the first scheduling cycle) its PodGroup is Running and its
  // pods Running on the nodes the scenario names; its training resumes for what remains (no
  // bind latency, pod start-up or start-up phases: they happened before t0). From then on it is
  // a job like the others: allocated in its queue's share, a victim for preempt and reclaim.
  const TrainingJobSpec& j = scenario_.jobs[idx];
  const InitialRun& init = *j.initial;
  JobRun& run = runs_[idx];
  const core::Time started = core::Time::zero() - init.elapsed;
  const auto u = static_cast<std::uint32_t>(idx);
  state_.set_podgroup_phase(run.pj, PodGroupPhase::Inqueue);
  rec_.phase_change({u, sim_.now(), "Pending", "Inqueue"});
  state_.set_podgroup_phase(run.pj, PodGroupPhase::Running);
  rec_.phase_change({u, sim_.now(), "Inqueue", "Running"});
  run.last_phase = "Running";
  run.inqueue = started;
  for (int i = 0; i < j.nnodes; ++i) create_pod(idx, i);
  const auto tasks = state_.job(run.pj).tasks;
  for (TaskId t : tasks) {
    const std::string& want = init.nodes.at(static_cast<std::size_t>(replica_of_task_[t]));
    NodeId node = policy::kNone;
    for (const auto& n : state_.nodes())
      if (n.name == want) node = n.id;
    if (node == policy::kNone) throw std::invalid_argument("job " + j.name + " runs at t0 on node '" + want + "', which does not exist");
    if (!state_.task(t).resreq.less_equal(state_.node(node).idle))
      throw std::invalid_argument("job " + j.name + " runs at t0 on node '" + want + "', which has no room for its pod");
    state_.set_task_status(t, TaskStatus::Running, node);
    account_allocation(neuroncores_of(state_.task(t).resreq));
    node_occupancy_changed(node);
    rec_.pod_event({u, replica_of_task_[t], "Bound", want, sim_.now()});
    rec_.pod_event({u, replica_of_task_[t], "Running", want, sim_.now()});
  }
  run.bound = run.running = j.nnodes;
  run.scheduled = started;
  outcomes_[idx].scheduled = started;
  run.start = started;
  run.vc = VcPhase::Running;
  jstart_[idx].training_start = started;
  run.saved = j.duration - init.remaining;  // the progress at t0: training_time() is what remains
  start_training(idx);
}

void TrainingCluster::ensure_tick() {
  // The scheduler cycle at boundary t sees every change made at or before t: a change at t
  // wakes the cycle at t itself (the tick yields to other events at t, see tick()), a change
  // between boundaries the next one. Changes made by a cycle's own session wake the next.
  if (scenario_.autoscaler) nodes_->ensure_scan();  // the autoscaler looks at every change
  if (in_tick_) return;
  const std::int64_t p = scenario_.scheduler.schedule_period_ns;
  const std::int64_t now = sim_.now().ns();
  std::int64_t t = (now + p - 1) / p * p;
  if (t == last_tick_ns_) t += p;  // that boundary's cycle already ran
  if (tick_pending_) {
    // The pending tick may lie ahead at a plugin's wake-up (sla's next deadline): a change now
    // needs the cycle at t. (tick() re-arms the wake-up if it is still to come.)
    if (tick_at_.ns() > t) {
      tick_at_ = core::Time::from_ns(t);
      sim_.reschedule(tick_id_, tick_at_);
    }
    return;
  }
  tick_at_ = core::Time::from_ns(t);
  tick_id_ = sim_.schedule(tick_at_, &tick_event_, 0);
  tick_pending_ = true;
}

void TrainingCluster::tick() {
  // Let every other event at this instant happen first, whatever order it was scheduled in.
  if (sim_.next_time() == sim_.now()) {
    tick_id_ = sim_.schedule(sim_.now(), &tick_event_, 0);
    return;
  }
  tick_pending_ = false;
  in_tick_ = true;
  last_tick_ns_ = sim_.now().ns();
  state_.set_now(sim_.now().ns());
  scheduler_->run_once(state_, *this);
  in_tick_ = false;
  const std::int64_t p = scenario_.scheduler.schedule_period_ns;
  if (scheduler_->needs_cycle(state_)) {
    tick_at_ = sim_.now() + core::Duration::ns(p);
    tick_id_ = sim_.schedule(tick_at_, &tick_event_, 0);
    tick_pending_ = true;
  } else if (scheduler_->next_wakeup() != INT64_MAX) {
    const std::int64_t w = std::max(scheduler_->next_wakeup(), sim_.now().ns() + 1);
    tick_at_ = core::Time::from_ns((w + p - 1) / p * p);
    tick_id_ = sim_.schedule(tick_at_, &tick_event_, 0);
    tick_pending_ = true;
  }
}

void TrainingCluster::account_allocation(double delta_cores) {
  // Integrate allocated NeuronCores over time, split at day boundaries.
  core::Time t = alloc_since_;
  const core::Time now = sim_.now();
  auto& days = stats_.allocated_core_seconds_per_day;
  while (t < now) {
    const std::int64_t day = t.ns() / kDayNs;
    const core::Time day_end = core::Time::from_ns((day + 1) * kDayNs);
    const core::Time seg_end = std::min(now, day_end);
    if (days.size() <= static_cast<std::size_t>(day)) days.resize(static_cast<std::size_t>(day) + 1, 0.0);
    days[static_cast<std::size_t>(day)] += alloc_cores_ * (seg_end - t).seconds();
    t = seg_end;
  }
  alloc_since_ = now;
  alloc_cores_ += delta_cores;
}

policy::CallResult TrainingCluster::bind(const policy::TaskInfo& task, const policy::NodeInfo& node) {
  if (scenario_.bind_failure_probability > 0 && bind_failure_rng_ &&
      std::uniform_real_distribution<double>(0.0, 1.0)(*bind_failure_rng_) < scenario_.bind_failure_probability) {
    // The API server refuses the binding (lifecycle.bind_failure_probability): the pod stays
    // unbound; the scheduler returns it to Pending when its session closes.
    const std::size_t idx = job_of_policy_[task.job];
    ++stats_.bind_failures;
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[task.id], "BindFailed", node.name, sim_.now()});
    return policy::CallResult::failure("simulated API server error (lifecycle.bind_failure_probability)");
  }
  account_allocation(neuroncores_of(task.resreq));
  flag_neuron_names(node);
  node_occupancy_changed(node.id);
  JobRun& run = runs_[job_of_policy_[task.job]];
  if (run.attempt_placed == core::Time::max()) run.attempt_placed = sim_.now();
  ++stats_.binds;
  sim_.schedule_in(scenario_.bind_latency.draw(bind_rng_), &pod_bound_event_, task.id);
  return policy::CallResult::success();
}

policy::CallResult TrainingCluster::evict(const policy::TaskInfo& task, std::string_view reason) {
  // Called while the scheduler commits (the task is Releasing in the state already). The pod
  // is being deleted: it holds its resources for the termination grace period. The job
  // controller reacts to the PodEvicted event after the scheduling cycle (job_controller.cpp).
  const std::size_t idx = job_of_policy_[task.job];
  JobRun& run = runs_[idx];
  ++stats_.evictions;
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[task.id], "Evicted", state_.node(task.node).name, sim_.now()});
  const Duration grace = grace_rng_ ? scenario_.termination_grace.draw(*grace_rng_) : scenario_.termination_grace.a;
  sim_.schedule_in(grace, &pod_gone_event_, task.id);
  run.events.push_back({JobEvent::PodEvicted, replica_of_task_[task.id], "pod " + task.name + " evicted (" + std::string(reason) + ")"});
  if (!run.controller_pending) {
    run.controller_pending = true;
    if (reason == "reclaim") ++outcomes_[idx].reclaim_evictions;
    sim_.schedule(sim_.now(), &job_controller_event_, idx);
  }
  return policy::CallResult::success();
}

void TrainingCluster::drain_pod(TaskId t, Duration longest_grace) {
  // A node drain evicts the pod through the Eviction API: the pod is deleted (Releasing for its
  // termination grace period, cut short at `longest_grace`) and the job controller sees
  // PodEvicted, as for the scheduler's evictions (evict above).
  const policy::TaskInfo& task = state_.task(t);
  if (task.status == TaskStatus::Releasing) return;  // being deleted already
  if (task.status == TaskStatus::Pipelined) {        // only nominated to the node: back to Pending
    state_.set_task_status(t, TaskStatus::Pending);
    return;
  }
  const std::size_t idx = job_of_policy_[task.job];
  JobRun& run = runs_[idx];
  const std::string node_name = state_.node(task.node).name;
  ++stats_.drained;
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Drained", node_name, sim_.now()});
  state_.set_task_status(t, TaskStatus::Releasing);
  const Duration grace = grace_rng_ ? scenario_.termination_grace.draw(*grace_rng_) : scenario_.termination_grace.a;
  sim_.schedule_in(std::min(grace, longest_grace), &pod_gone_event_, t);
  run.events.push_back({JobEvent::PodEvicted, replica_of_task_[t],
                        "pod " + task.name + " evicted (drain of node " + node_name + " at its Spot interruption notice)"});
  if (!run.controller_pending) {
    run.controller_pending = true;
    sim_.schedule(sim_.now(), &job_controller_event_, idx);
  }
}

void TrainingCluster::pod_gone(TaskId t) {
  // The termination grace period has passed: the pod is gone and its resources are free.
  const policy::TaskInfo& task = state_.task(t);
  if (task.status != TaskStatus::Releasing) return;  // gone already, with its failed node
  const std::size_t idx = job_of_policy_[task.job];
  const NodeId node = task.node;
  account_allocation(-neuroncores_of(task.resreq));
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Deleted", state_.node(task.node).name, sim_.now()});
  state_.remove_task(t);
  node_occupancy_changed(node);
  ensure_tick();
  check_job_phase(idx);  // the job controller's status rule; a missing pod may be recreated
}

void TrainingCluster::pods_failed_on_node(NodeId n) {
  // The node failed: its pods are gone with it (their containers died; nothing is left to
  // terminate). The Volcano job controller sees PodFailed and applies the job's policy
  // (TorchX max_retries > 0: PodFailed -> RestartJob), as for an eviction (job_controller.cpp).
  std::vector<TaskId> on;
  for (const auto* list : {&state_.pending_jobs(), &state_.active_jobs()})
    for (JobId j : *list)
      for (TaskId t : state_.job(j).tasks)
        if (state_.task(t).node == n && policy::on_node_status(state_.task(t).status)) on.push_back(t);
  std::sort(on.begin(), on.end());  // task id order: independent of the lists' order
  const std::string node_name = state_.node(n).name;
  for (TaskId t : on) {
    const policy::TaskInfo& task = state_.task(t);
    const std::size_t idx = job_of_policy_[task.job];
    JobRun& run = runs_[idx];
    if (task.status == TaskStatus::Pipelined) {  // only nominated to the node: back to Pending
      state_.set_task_status(t, TaskStatus::Pending);
      continue;
    }
    const bool releasing = task.status == TaskStatus::Releasing;
    account_allocation(-neuroncores_of(task.resreq));
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Failed", node_name, sim_.now()});
    const std::string pod_name = task.name;
    const int replica = replica_of_task_[t];
    state_.remove_task(t);
    if (releasing) {  // being deleted already: its deletion completes with the node
      check_job_phase(idx);
      continue;
    }
    run.events.push_back({JobEvent::PodFailed, replica, "pod " + pod_name + " failed (node " + node_name + " failed)"});
    if (!run.controller_pending) {
      run.controller_pending = true;
      sim_.schedule(sim_.now(), &job_controller_event_, idx);
    }
  }
}


void TrainingCluster::podgroup_phase_changed(const policy::JobInfo& job, PodGroupPhase from, PodGroupPhase to) {
  const std::size_t idx = job_of_policy_[job.id];
  JobRun& run = runs_[idx];
  rec_.phase_change({static_cast<std::uint32_t>(idx), sim_.now(), policy::to_string(from), policy::to_string(to)});
  run.last_phase = policy::to_string(to);
  if (to == PodGroupPhase::Inqueue) {
    if (run.inqueue == core::Time::max()) run.inqueue = sim_.now();
    ensure_pods(idx);  // syncJob creates the missing pods of an admitted PodGroup
  }
}

void TrainingCluster::create_pod(std::size_t idx, int i) {
  // The Volcano job controller creates the pods once the PodGroup is Inqueue: one per TorchX
  // replica, each its own Volcano task "trainer-<i>" with replicas 1.
  JobRun& run = runs_[idx];
  const TrainingJobSpec& j = scenario_.jobs[idx];
  policy::TaskInfo t;
  t.name = j.name + "-trainer-" + std::to_string(i) + "-0";
  t.index = 0;
  t.resreq = pod_resreq(idx);
  t.priority = j.priority;
  t.creation = sim_.now().ns();
  t.uid = uid_rng_();
  t.node_selector = j.node_selector;
  t.node_affinity = j.node_affinity;
  t.tolerations = j.tolerations;
  // Conformance never evicts a critical pod (Kubernetes' system PriorityClasses).
  t.system_critical = j.priority_class == "system-cluster-critical" || j.priority_class == "system-node-critical";
  const TaskId id = state_.add_task(run.pj, t);
  if (replica_of_task_.size() <= id) replica_of_task_.resize(id + 1, 0);
  replica_of_task_[id] = i;
  rec_.pod_event({static_cast<std::uint32_t>(idx), i, "Created", "", sim_.now()});
}

void TrainingCluster::job_condition(const policy::JobInfo& job, const policy::Status& s) {
  const std::size_t idx = job_of_policy_[job.id];
  rec_.decision({static_cast<std::uint32_t>(idx), sim_.now(), policy::to_string(s.code), s.plugin, s.reason});
}

void TrainingCluster::pod_bound(TaskId t) {
  if (state_.task(t).status != TaskStatus::Binding) return;  // killed or evicted meanwhile
  kubelet_status(t, TaskStatus::Bound);
  const policy::TaskInfo& task = state_.task(t);
  const std::size_t idx = job_of_policy_[task.job];
  JobRun& run = runs_[idx];
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Bound", state_.node(task.node).name, sim_.now()});
  if (++run.bound == scenario_.jobs[idx].nnodes && run.scheduled == core::Time::max()) {
    run.scheduled = sim_.now();  // the first placement (a restarted job keeps it)
    outcomes_[idx].scheduled = run.scheduled;
  }
  Duration pull = Duration::ns(0);
  if (startup_) {  // the kubelet pulls the image (or waits for the node's pull) before the container runs
    pull = startup_->image_pull(task.node, sim_.now());
    if (run.bound == 1) jstart_[idx].pull_max = pull;
    else jstart_[idx].pull_max = std::max(jstart_[idx].pull_max, pull);
  }
  sim_.schedule_in(scenario_.pod_startup.draw(startup_rng_) + pull, &pod_running_event_, t);
}

void TrainingCluster::kubelet_status(TaskId t, TaskStatus status) {
  // Binding -> Bound -> Running changes nothing allocate, enqueue or backfill read, so by default
  // it does not wake the scheduler. preempt and reclaim do read it: their victims are Bound or
  // Running pods (preempt, api.PreemptableStatus) and Running pods (reclaim.go: "Ignore non
  // running task"), so with either action configured the change counts and the next cycle runs,
  // as Volcano's every cycle would see the pod's new status.
  if (status_wakes_scheduler_) {
    state_.set_task_status(t, status, state_.task(t).node);
    ensure_tick();
  } else {
    state_.set_task_status_within_allocated(t, status);
  }
}

void TrainingCluster::pod_running(TaskId t) {
  if (state_.task(t).status != TaskStatus::Bound) return;  // killed or evicted meanwhile
  kubelet_status(t, TaskStatus::Running);
  const policy::TaskInfo& task = state_.task(t);
  const std::size_t idx = job_of_policy_[task.job];
  JobRun& run = runs_[idx];
  rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[t], "Running", state_.node(task.node).name, sim_.now()});
  if (++run.running == scenario_.jobs[idx].nnodes) {
    if (run.vc == VcPhase::Pending) run.vc = VcPhase::Running;  // state/pending.go: Running pods >= minAvailable
    if (run.gang_broken) {
      // torchrun: the survivors of a lost pod see the replacement join the rendezvous and
      // restart their workers; the job trains again from its checkpoint (job_controller.cpp).
      cancel_peer_timer(idx);
      ++stats_.resumed_in_place;
      rec_.decision({static_cast<std::uint32_t>(idx), sim_.now(), "Running", "torchrun",
                     "the replacement pod joined the surviving workers' rendezvous: torchrun restarted the worker group "
                     "(a membership change, not a retry) and the job resumes from its last checkpoint"});
    }
    if (startup_) begin_startup(idx);  // rendezvous, compilation, dataset read, then training
    else start_training(idx);
  }
}

void TrainingCluster::begin_startup(std::size_t idx) {
  // The last worker joined: torchrun's rendezvous, then the Neuron graphs (compiled, or loaded
  // from the compile cache), then the dataset from FSx for Lustre (models/startup.hpp).
  const TrainingJobSpec& j = scenario_.jobs[idx];
  const StartupSpec& sp = *scenario_.startup;
  JobStartup& js = jstart_[idx];
  const std::string& model = j.model.empty() ? sp.default_model : j.model;
  const std::string& flags = j.compiler_flags.empty() ? sp.default_flags : j.compiler_flags;
  const Duration rdzv = sp.rendezvous;
  const StartupModel::Compile c =
      startup_->compile(static_cast<std::uint32_t>(idx), model, flags, j.nnodes * j.nproc_per_node, sim_.now() + rdzv);
  const NeuronModelSpec* m = sp.find_model(model);
  const Duration read = startup_->dataset_read(m ? m->dataset_bytes : 0);
  js.image_pull_s += js.pull_max.seconds();
  js.rendezvous_s += rdzv.seconds();
  outcomes_[idx].compile_s += c.time.seconds();
  js.dataset_read_s += read.seconds();
  if (!js.compile_cache.empty()) js.compile_cache += ",";
  js.compile_cache += to_string(c.outcome);
  if (c.outcome == CompileOutcome::Hit) ++stats_.compile_hits;
  else if (c.outcome == CompileOutcome::Miss) ++stats_.compile_misses;
  else ++stats_.compile_waits;
  stats_.image_pull_s += js.pull_max.seconds();
  js.startup_begin = sim_.now();
  js.in_startup = true;
  js.done_event = sim_.schedule_in(rdzv + c.time + read, &startup_done_event_, idx);
  JobOutcome& out = outcomes_[idx];
  if (runs_[idx].start == core::Time::max()) runs_[idx].start = sim_.now();  // the first start
  out.start = runs_[idx].start;
  out.phase = "Running";
}

void TrainingCluster::start_training(std::size_t idx) {
  JobRun& run = runs_[idx];
  JobStartup& js = jstart_[idx];
  if (js.in_startup) {
    js.in_startup = false;
    stats_.startup_s += (sim_.now() - js.startup_begin).seconds();
  }
  if (js.training_start == core::Time::max()) js.training_start = sim_.now();
  {
    // torchrun's rendezvous completes when the last worker joins: training starts now (a
    // restarted job resumes from its last checkpoint and trains for what remains).
    run.attempt_start = sim_.now();
    if (run.start == core::Time::max()) run.start = sim_.now();  // the first start
    outcomes_[idx].start = run.start;
    outcomes_[idx].phase = "Running";
    if (run.attempt_placed != core::Time::max()) outcomes_[idx].startup_s += (sim_.now() - run.attempt_placed).seconds();
    run.attempt_placed = core::Time::max();
    if (fabric_traffic_) {
      // The job's all-reduce joins the fabric (a ring over its pods' nodes in replica order);
      // the jobs it shares links with slow down, and it gets its share.
      std::vector<std::pair<int, std::uint32_t>> by_replica;
      for (TaskId t : state_.job(run.pj).tasks)
        by_replica.emplace_back(replica_of_task_[t], nodes_->rec(state_.task(t).node).fabric_slot);
      std::sort(by_replica.begin(), by_replica.end());
      std::vector<std::uint32_t> nodes;
      for (const auto& [r, n] : by_replica) nodes.push_back(n);
      try {
        fabric_traffic_->add_job(static_cast<std::uint32_t>(idx), nodes);
      } catch (const NoRouteError& e) {  // the loader keeps multi-zone jobs in one zone
        throw std::runtime_error("job " + scenario_.jobs[idx].name + ": its pods cannot form an EFA ring: " + e.what());
      }
    }
    run.end_event = sim_.schedule_in(training_time(idx), &job_end_event_, idx);
    if (fabric_traffic_) settle_traffic();
  }
}

Duration TrainingCluster::training_time(std::size_t idx) {
  JobRun& run = runs_[idx];
  const TrainingJobSpec& j = scenario_.jobs[idx];
  if (scenario_.duration_model != DurationModel::Derived) return j.duration - run.saved;
  // Derived: the steps still to do at the step time of the placement this attempt got, with
  // the bandwidth the fabric grants now (retime() changes it when the sharing changes).
  const LinkGrant g = grant_of(idx);
  run.step = step_time(scenario_.step_model->profile, placement_of(idx), g);
  run.period_start = sim_.now();
  run.att_steps = run.att_compute_s = run.att_comm_s = run.att_sync_s = 0;
  run.step_since = sim_.now();
  run.step_since_steps = 0;
  run.efa_gbps = g.inter_gbps;
  ++run.attempt;
  // Each of the 2(N-1) inter-node ring steps moves S/N bytes over every hop.
  run.hop_bytes_per_step = j.nnodes > 1 ? 2.0 * (j.nnodes - 1) * scenario_.step_model->profile.gradient_bytes() / j.nnodes : 0.0;
  return Duration::ns((j.steps - run.steps_saved) * run.step.total().count_ns());
}

Placement TrainingCluster::placement_of(std::size_t idx) const {
  return {scenario_.jobs[idx].nnodes, static_cast<int>(std::lround(neuroncores_of(pod_resreq(idx))))};
}

LinkGrant TrainingCluster::grant_of(std::size_t idx) const {
  LinkGrant g = scenario_.step_model->nominal();
  if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx)))
    g.inter_gbps = fabric_traffic_->inter_gbps(static_cast<std::uint32_t>(idx));
  return g;
}

void TrainingCluster::close_period(std::size_t idx, core::Time at) {
  JobRun& run = runs_[idx];
  if (run.period_start == core::Time::max() || at <= run.period_start) return;
  const std::int64_t t = run.step.total().count_ns();
  const std::int64_t dt = (at - run.period_start).count_ns();
  run.period_start = at;
  if (dt <= 0 || t <= 0) return;
  const double n = static_cast<double>(dt) / static_cast<double>(t);
  run.att_steps += n;
  run.att_compute_s += n * run.step.computing().seconds();
  run.att_comm_s += n * run.step.communication().seconds();
  run.att_sync_s += n * run.step.sync.seconds();
  if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx)))
    fabric_traffic_->carried(static_cast<std::uint32_t>(idx), n * run.hop_bytes_per_step);
}

void TrainingCluster::retime(std::size_t idx) {
  JobRun& run = runs_[idx];
  if (run.ended || run.attempt_start == core::Time::max()) return;
  const TrainingJobSpec& j = scenario_.jobs[idx];
  const LinkGrant g = grant_of(idx);
  const StepTime next = step_time(scenario_.step_model->profile, placement_of(idx), g);
  if (next.total() == run.step.total()) return;
  end_step_period(idx, sim_.now(), "retimed");  // the steps so far at the old step time
  run.step = next;
  run.step_since = sim_.now();
  run.step_since_steps = run.att_steps;
  run.efa_gbps = g.inter_gbps;
  const double left = std::max(0.0, static_cast<double>(j.steps - run.steps_saved) - run.att_steps);
  const auto ns = static_cast<std::int64_t>(std::ceil(left * static_cast<double>(next.total().count_ns())));
  sim_.cancel(run.end_event);
  run.end_event = sim_.schedule_in(Duration::ns(ns), &job_end_event_, idx);
  ++stats_.retimes;
}

void TrainingCluster::end_step_period(std::size_t idx, core::Time at, std::string_view why) {
  JobRun& run = runs_[idx];
  if (run.step_since == core::Time::max()) return;
  close_period(idx, at);
  StepPeriod p;
  p.job = static_cast<std::uint32_t>(idx);
  p.attempt = run.attempt;
  p.start = run.step_since;
  p.end = at;
  p.nodes = scenario_.jobs[idx].nnodes;
  p.efa_gbps = p.nodes > 1 ? run.efa_gbps : 0.0;
  p.step_s = run.step.total().seconds();
  p.communication_s = run.step.communication().seconds();
  p.steps = run.att_steps - run.step_since_steps;
  p.end_reason = why;
  rec_.step_period(p);
  run.step_since = core::Time::max();
}

void TrainingCluster::settle_traffic() {
  for (std::uint32_t j : fabric_traffic_->take_changed()) retime(j);  // in job order
}

void TrainingCluster::record_link_usage(core::Time at) {
  if (!fabric_traffic_ || !fabric_traffic_->usage_due(at)) return;
  // The running jobs' steps up to `at` are booked first (their bytes on their links).
  for (JobId j : state_.active_jobs()) {
    const std::size_t idx = job_of_policy_[j];
    if (fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) close_period(idx, at);
  }
  fabric_traffic_->record_usage(at);
}

void TrainingCluster::job_end(std::size_t idx) {
  JobRun& run = runs_[idx];
  if (scenario_.duration_model == DurationModel::Derived) {
    // The whole attempt is kept: its steps' split, period by period.
    end_step_period(idx, sim_.now(), "completed");
    JobOutcome& o = outcomes_[idx];
    o.compute_s += run.att_compute_s;
    o.communication_s += run.att_comm_s;
    o.sync_s += run.att_sync_s;
    run.period_start = core::Time::max();
    if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) {
      fabric_traffic_->remove_job(static_cast<std::uint32_t>(idx));
      run.ended = true;  // not retimed by the settling below
      settle_traffic();
    }
  }
  const auto tasks = state_.job(run.pj).tasks;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const policy::TaskInfo& task = state_.task(tasks[i]);
    const std::string node = state_.node(task.node).name;
    account_allocation(-neuroncores_of(task.resreq));
    state_.set_task_status(tasks[i], TaskStatus::Succeeded);
    rec_.pod_event({static_cast<std::uint32_t>(idx), replica_of_task_[tasks[i]], "Succeeded", node, sim_.now()});
  }
  if (nodes_->dynamic())
    for (TaskId t : tasks) nodes_->occupancy_changed(state_.task(t).node);
  stats_.training_s += (sim_.now() - run.attempt_start).seconds();
  run.end = sim_.now();
  run.ended = true;
  ++ended_;
  outcomes_[idx].end = run.end;
  outcomes_[idx].phase = "Completed";
  run.vc = VcPhase::Completed;
  rec_.phase_change({static_cast<std::uint32_t>(idx), sim_.now(), run.last_phase, "Completed"});
  run.last_phase = "Completed";
  write_final(idx, "Completed", "");
  state_.remove_job(run.pj);
  ensure_tick();
}

void TrainingCluster::write_final(std::size_t idx, const std::string& phase, const std::string& reason) {
  const JobRun& run = runs_[idx];
  JobFinal f;
  f.job = static_cast<std::uint32_t>(idx);
  f.phase = phase;
  f.podgroup_phase = run.last_phase;
  f.inqueue = run.inqueue;
  f.scheduled = run.scheduled;
  f.start = run.start;
  f.end = run.end;
  if (run.pj != policy::kNone) {
    for (TaskId t : state_.job(run.pj).tasks) {
      const policy::TaskInfo& task = state_.task(t);
      if (task.node == policy::kNone) continue;
      if (!f.nodes.empty()) f.nodes += ",";
      f.nodes += state_.node(task.node).name;
    }
  }
  f.reason = reason;
  const JobStartup& js = jstart_[idx];
  const JobOutcome& o = outcomes_[idx];
  f.restarts = run.retries;
  f.lost_training_s = o.lost_s;
  f.startup_s = o.startup_s;
  if (startup_) {
    f.startup_modelled = true;
    f.image_pull_s = js.image_pull_s;
    f.rendezvous_s = js.rendezvous_s;
    f.compile_s = o.compile_s;
    f.dataset_read_s = js.dataset_read_s;
    f.compile_cache = js.compile_cache;
    f.training_start = js.training_start;
  }
  f.derived = scenario_.duration_model == DurationModel::Derived;
  f.compute_s = o.compute_s;
  f.communication_s = o.communication_s;
  f.sync_s = o.sync_s;
  f.step_s = run.step.total().seconds();
  rec_.job_final(f);
}

void TrainingCluster::sample() {
  // Nothing else pending: the run ended before this sample's time; record nothing past the end.
  if (sim_.pending_count() == 0 && sim_.now() > last_event_) return;
  record_link_usage(sim_.now());
  ClusterSample s;
  s.t = sim_.now();
  s.neuroncores_total = stats_.neuroncores_total;
  s.neuroncores_allocated = alloc_cores_;
  s.jobs_pending = static_cast<int>(state_.pending_jobs().size());
  for (JobId j : state_.active_jobs()) {
    const policy::JobInfo& job = state_.job(j);
    if (runs_[job_of_policy_[j]].attempt_start != core::Time::max()) ++s.jobs_running;
    else ++s.jobs_inqueue;
    s.pods_running += job.count(TaskStatus::Running);
  }
  rec_.sample(s);
  // Keep sampling only while something else can still happen: the run ends when no events
  // remain, even if jobs are still waiting (they are reported with their reasons).
  if (sim_.pending_count() > 0) sim_.schedule_in(scenario_.metrics_interval, &sample_event_, 0);
}

void TrainingCluster::finish(core::Time end, const std::string& note) {
  if (finished_) return;
  finished_ = true;
  account_allocation(0);
  record_link_usage(end);  // the traffic of the last, partial metrics interval
  for (std::size_t idx = 0; idx < runs_.size(); ++idx) {
    JobRun& run = runs_[idx];
    if (run.ended) continue;
    if (idx >= next_arrival_) continue;  // never submitted (the run stopped before)
    if (run.attempt_start != core::Time::max() && end > run.attempt_start) stats_.training_s += (end - run.attempt_start).seconds();
    if (run.attempt_start != core::Time::max() && scenario_.duration_model == DurationModel::Derived) {
      // Still training: the attempt's steps so far count (nothing is lost yet).
      end_step_period(idx, end, "run ended");
      JobOutcome& o = outcomes_[idx];
      o.compute_s += run.att_compute_s;
      o.communication_s += run.att_comm_s;
      o.sync_s += run.att_sync_s;
    }
    std::string phase = run.attempt_start != core::Time::max() || jstart_[idx].in_startup ? "Running" : "Pending";
    std::string reason;
    if (phase == "Pending") {
      const policy::Status& s = scheduler_->job_condition(run.pj);
      reason = s.plugin.empty() ? std::string("not yet considered by the scheduler") : s.plugin + ": " + s.reason;
    }
    if (!note.empty() && phase == "Pending") reason += " (" + note + ")";
    if (run.stuck) {
      // Volcano's default SyncJob left Failed pods behind: the job can never run again.
      ++stats_.stuck;
      int failed = 0;
      for (TaskId t : state_.job(run.pj).tasks) failed += state_.task(t).status == TaskStatus::Failed;
      reason += (reason.empty() ? "" : "; ") + std::string("stuck: ") + std::to_string(failed) +
                " of its pods Failed and Volcano's SyncJob never recreates a Failed pod (no PodFailed policy), so its gang "
                "can never be complete again: a policy such as PodFailed -> RestartJob (TorchX max_retries >= 1) restarts it";
    }
    outcomes_[idx].phase = phase;  // the summary counts what the jobs table says
    write_final(idx, phase, reason);
  }
  stats_.cycles_elapsed = static_cast<std::uint64_t>(end.ns() / scenario_.scheduler.schedule_period_ns);
  if (nodes_->dynamic()) nodes_->close_books(end);
  rec_.checkpoint(end);
}

const TrainingStats& TrainingCluster::stats() const {
  stats_.sessions = scheduler_->stats().sessions;
  stats_.statements_discarded = scheduler_->stats().totals.statements_discarded;
  return stats_;
}

}  // namespace mltwin::models
