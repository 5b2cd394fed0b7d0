// TrainingCluster (mltwin/models/training.hpp): the API server's side of the training cluster
// — job submission and admission, the jobs running at t = 0, the metrics samples — and the
// wiring of its components (mltwin/models/training/).
#include "mltwin/models/training.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "mltwin/models/node_lifecycle.hpp"
#include "mltwin/models/training/components.hpp"
#include "mltwin/policy/node_constraints.hpp"

namespace mltwin::models {

using policy::JobId;
using policy::NodeId;
using policy::PodGroupPhase;
using policy::Resource;
using policy::TaskId;
using policy::TaskStatus;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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


// What the node lifecycle (node_lifecycle.hpp) asks of the rest of the cluster.
struct TrainingCluster::NodeHostAdapter final : NodeHost {
  explicit NodeHostAdapter(TrainingCluster& cluster) : c(cluster) {}
  TrainingCluster& c;
  void pods_lost_with_node(NodeId n) override { c.parts_->pods.pods_failed_on_node(n); }
  void node_unreachable(NodeId n) override { c.parts_->pods.node_unreachable(n); }
  std::vector<core::Duration> taint_eviction_delays(NodeId n, core::Duration /*default_toleration: the scenario's, read there*/) override {
    return c.parts_->pods.taint_eviction_delays(n);
  }
  void taint_evict_pods(NodeId n, core::Duration tainted_for) override { c.parts_->pods.taint_evict_pods(n, tainted_for); }
  void pods_garbage_collected(NodeId n) override { c.parts_->pods.pods_garbage_collected(n); }
  void drain_pod(TaskId t, Duration longest_grace) override { c.parts_->pods.drain_pod(t, longest_grace); }
  void node_left(NodeId n) override { c.parts_->pods.node_left(n); }
  void wake_scheduler() override { c.parts_->driver.ensure_tick(); }
  double neuroncores_of(const Resource& r) const override { return c.s_->neuroncores_of(r); }
  void before_event() override { c.s_->note_event(); }
  bool settled() const override { return c.s_->settled(); }
};

TrainingCluster::TrainingCluster(const TrainingScenario& sc, core::Simulator& sim, core::RngStreams& rng,
                                 TrainingRecorder& recorder)
    : scenario_(sc), s_(std::make_unique<TrainingState>(sc, sim, recorder, rng)) {
  TrainingState& s = *s_;
  if (!sc.node_groups.empty())
    if (const InstanceType* it = sc.catalog.find(sc.node_groups.front().instance_types.at(0)); it && it->neuroncores_per_chip > 0)
      s.cores_per_device = it->neuroncores_per_chip;
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
    qi.uid = s.uid_rng();
    s.state.add_queue(qi);
  }
  // spec.parent, by name ("root", or none: the root queue; the loader checked the tree).
  for (std::size_t i = 0; i < sc.queues.size(); ++i) {
    const std::string& parent = sc.queues[i].parent;
    if (parent.empty() || (parent == "root" && !std::any_of(sc.queues.begin(), sc.queues.end(),
                                                             [](const QueueSpec& q) { return q.name == "root"; })))
      continue;
    bool found = false;
    for (const auto& q : s.state.queues())
      if (q.name == parent) {
        s.state.queue(static_cast<policy::QueueId>(i)).parent = q.id;
        found = true;
      }
    if (!found) throw std::invalid_argument("queue " + sc.queues[i].name + ": unknown parent queue '" + parent + "'");
  }
  node_host_ = std::make_unique<NodeHostAdapter>(*this);
  nodes_ = std::make_unique<NodeLifecycle>(sc, sim, rng, s.state, s.rec, s.stats, *node_host_);  // the nodes at t = 0
  s.nodes = nodes_.get();
  s.torchx_default = torchx_lifecycle(sc.max_retries);
  s.runs.resize(sc.jobs.size());
  s.outcomes.resize(sc.jobs.size());
  s.jstart.resize(sc.jobs.size());
  parts_ = std::make_unique<TrainingComponents>(s, rng);
  s.stats.neuroncores_total = s.state.total_allocatable().scalars.get(policy::rn::kNeuronCore) / 1000.0;
}

TrainingCluster::~TrainingCluster() = default;

void TrainingCluster::note_event() { s_->note_event(); }

const std::vector<JobOutcome>& TrainingCluster::outcomes() const { return s_->outcomes; }
policy::Scheduler& TrainingCluster::scheduler() { return parts_->driver.scheduler(); }
const policy::Scheduler& TrainingCluster::scheduler() const { return parts_->driver.scheduler(); }
void TrainingCluster::set_session_observer(SessionObserver* o) { parts_->driver.set_session_observer(o); }
const policy::ClusterState& TrainingCluster::state() const { return s_->state; }
std::size_t TrainingCluster::submitted() const { return s_->next_arrival; }
std::size_t TrainingCluster::ended() const { return s_->ended; }
core::Time TrainingCluster::last_event() const { return s_->last_event; }
const std::map<std::size_t, std::string>& TrainingCluster::never_placeable() const { return s_->never_placeable; }
const std::map<std::size_t, QueueTieLoss>& TrainingCluster::queue_tie_losses() const { return s_->queue_tie_losses; }

void TrainingCluster::start() {
  // The nodes at t = 0 were built with the model, before its recorder may take records (the
  // runner's store exists only once the model has named its RNG streams): recorded now.
  nodes_->start();
  if (!scenario_.jobs.empty()) s_->sim.schedule(scenario_.jobs[0].submit, &arrival_event_, 0);
  s_->sim.schedule(s_->sim.now(), &sample_event_, 0);
}

namespace {
// TrainingCluster::infeasible_reason's walk over every node for one pod shape.
TrainingState::NodeWalk node_walk(const TrainingScenario& scenario_, const policy::ClusterState& state, const NodeLifecycle* nodes_,
                                  const TrainingJobSpec& j, const policy::Resource& pod, const policy::TaskInfo& cons) {
  const std::size_t groups = scenario_.node_groups.size();
  TrainingState::NodeWalk w;
  w.usable.assign(groups, 0);
  w.seen.assign(groups, 0);
  w.why.resize(groups);
  for (const auto& n : state.nodes()) {
    if (nodes_->dynamic() && nodes_->rec(n.id).removed != core::Time::max()) continue;  // terminated or removed
    const std::size_t g = nodes_->rec(n.id).group;
    // A failed node whose instance is not yet terminated stands for its replacement, which
    // the Auto Scaling group will launch unless it has already (then the replacement counts).
    const bool failed = nodes_->unreachable(n.id);
    if (failed && nodes_->rec(n.id).replaced) continue;
    const NodeGroupSpec& ng = scenario_.node_groups[g];
    const NodeResources tmpl = failed ? node_resources(scenario_, ng, nodes_->rec(n.id).launch, n.name) : NodeResources{};
    w.seen[g] = 1;
    std::string misfit = failed ? policy::static_misfit(cons, template_labels(ng), {}, ng.taints)
                                : policy::static_misfit(cons, n.labels, n.name, n.taints);
    if (!misfit.empty()) {
      if (w.why[g].empty()) w.why[g] = std::move(misfit);
      continue;
    }
    w.usable[g] = 1;
    const Resource room = failed ? tmpl.pod_room() : n.pod_room();
    if (room != n.capacity && w.room_note.empty())
      w.room_note = "; a " + n.instance_type + " node leaves pods {" + room.to_string() + "} (capacity {" + n.capacity.to_string() +
                    "} less the kubelet's reservation and the DaemonSets' pods)";
    std::int64_t per = INT64_MAX;
    pod.for_each([&](policy::ResourceName name, double want) {
      if (want <= 0) return;
      const double have = room.get(name);
      per = std::min<std::int64_t>(per, static_cast<std::int64_t>(std::floor(have / want)));
      if (have < want) {
        auto it = std::find_if(w.short_of.begin(), w.short_of.end(), [&](const auto& e) { return e.first == name; });
        if (it == w.short_of.end()) w.short_of.emplace_back(name, 1);
        else ++it->second;
      }
    });
    if (per == INT64_MAX) per = j.nnodes;  // requests nothing: fits anywhere
    w.fit += per;
  }
  return w;
}
}  // namespace

std::string TrainingCluster::infeasible_reason(const TrainingJobSpec& j, const Resource& pod) const {
  // How many of this job's pods could the empty cluster hold at once, on the nodes whose labels
  // and taints its pods accept (the predicates plugin's NodeAffinity and TaintToleration
  // filters)? A node group none of whose nodes (or, with no node, whose template node) accepts
  // them is named with the filter's reason.
  const policy::TaskInfo cons = pod_constraints(j);
  std::vector<std::uint64_t> request;
  bool requests_something = false;
  pod.for_each([&](policy::ResourceName name, double want) {
    std::uint64_t bits;
    std::memcpy(&bits, &want, sizeof bits);
    request.push_back(name.id());
    request.push_back(bits);
    requests_something |= want > 0;
  });
  // The walk is the same for every pod of one shape while the fleet cannot change; a pod that
  // requests nothing fits anywhere, as many as the job has pods (not a property of the shape).
  const bool keep = !nodes_->dynamic() && requests_something;
  const TrainingState::NodeWalk* kept = nullptr;
  if (keep)
    for (const auto& w : s_->node_walks)
      if (w.request == request && w.constraints.node_selector == cons.node_selector &&
          w.constraints.node_affinity == cons.node_affinity && w.constraints.tolerations == cons.tolerations)
        kept = &w;
  TrainingState::NodeWalk fresh;
  if (!kept) fresh = node_walk(scenario_, s_->state, nodes_.get(), j, pod, cons);
  const TrainingState::NodeWalk& walk = kept ? *kept : fresh;
  // What the group pass below changes, copied (the kept walk stays as it was).
  std::int64_t fit = walk.fit;
  std::vector<char> usable = walk.usable;
  const std::vector<char> seen = walk.seen;
  std::vector<std::string> why = walk.why;
  const std::string room_note = walk.room_note;
  std::vector<std::pair<policy::ResourceName, int>> short_of = walk.short_of;
  if (keep && !kept && s_->node_walks.size() < 256) {  // a bound: shapes are few in practice
    fresh.request = std::move(request);
    fresh.constraints = cons;
    s_->node_walks.push_back(std::move(fresh));
  }
  const std::size_t groups = scenario_.node_groups.size();
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
  // The pods that must fit at once: a torchrun gang's every pod; a job of independent pods
  // only its minAvailable (its other pods run as room frees), and at least one.
  const int need = j.independent_pods() ? std::max(1, j.min_member()) : j.nnodes;
  if (fit < need)
    return "the cluster can hold at most " + std::to_string(fit) + " of this job's " + std::to_string(j.nnodes) + " pods at once" +
           (need < j.nnodes ? " (its minAvailable is " + std::to_string(need) + ")" : std::string()) + also + room_note;
  // A queue capability below the job's minimum resources can never admit it.
  for (const auto& q : s_->state.queues())
    if (q.name == j.queue) {
      if (!q.capability) continue;  // no spec.capability: no limit
      Resource minres = pod;
      minres.multi(need);
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

std::string TrainingCluster::admission_refusal(const TrainingJobSpec& j) const {
  // Volcano's validating webhook for Jobs (pkg/webhooks/admission/jobs/validate/admit_job.go:
  // 225-250 at v1.12.1), in its words: the queue must exist, be Open, not be the root queue and
  // have no child queues.
  const policy::QueueInfo* queue = nullptr;
  for (const auto& q : s_->state.queues())
    if (q.name == j.queue) queue = &q;
  if (!queue) return "admission webhook (validate job): unable to find job queue: queue.scheduling.volcano.sh \"" + j.queue + "\" not found";
  if (queue->state != policy::QueueState::Open)
    return "admission webhook (validate job): can only submit job to queue with state `Open`, queue `" + queue->name + "` status is `Closed`";
  if (queue->name == "root") return "admission webhook (validate job): can not submit job to root queue";
  std::size_t children = 0;
  for (const auto& q : s_->state.queues()) children += q.parent == queue->id && q.id != queue->id;
  if (children > 0)
    return "admission webhook (validate job): can only submit job to leaf queue, queue `" + queue->name + "` has " +
           std::to_string(children) + " child queues";
  return {};
}

void TrainingCluster::arrive(std::size_t idx) {
  const TrainingJobSpec& j = scenario_.jobs[idx];
  s_->next_arrival = idx + 1;
  if (s_->next_arrival < scenario_.jobs.size())
    s_->sim.schedule(scenario_.jobs[s_->next_arrival].submit, &arrival_event_, s_->next_arrival);
  JobRun& run = s_->runs[idx];
  const policy::Resource pod = s_->pod_resreq(idx);
  JobOutcome& out = s_->outcomes[idx];
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
  s_->rec.job_submitted({static_cast<std::uint32_t>(idx), j.name, j.queue, submit, j.nnodes, j.nproc_per_node,
                      j.neuron_devices_per_pod, j.cpu_per_pod, j.memory_bytes_per_pod / kGiB, j.efa_per_pod,
                      j.duration.seconds(), j.trace_row, j.trace_gpus, j.steps,
                      j.neuron_devices_per_pod > 0 ? std::string(j.neuron_resource.str()) : std::string(), std::move(other)});
  policy::QueueId qid = policy::kNone;
  for (const auto& q : s_->state.queues())
    if (q.name == j.queue) qid = q.id;
  // What the admission webhooks say to the Job's creation: Volcano's (its queue) and, when the
  // scenario asks for it, the user's own policy refusing a job that can never be placed.
  std::string refused = admission_refusal(j);
  const std::string never = j.initial ? std::string()  // it runs: the loader checked its placement
                                      : infeasible_reason(j, pod);
  if (refused.empty() && !never.empty() && scenario_.refuse_unplaceable)
    refused = "refused by the cluster's admission policy (/cluster/admission/refuse_unplaceable): it can never be placed: " + never;
  if (!refused.empty()) {
    // The Job was never created: kubectl (or TorchX) got the webhook's error back.
    run.ended = true;
    ++s_->ended;
    ++s_->stats.refused;
    out.phase = "Refused";
    s_->write_final(idx, "Refused", refused);
    return;
  }
  if (!never.empty()) {
    // Volcano admits it (volcano#1295): enqueue asks only for budget, so it may go Inqueue, its
    // pods are created and fail the predicates at every session, and it waits for ever, holding
    // enqueue budget (its queue's, the overcommit plugin's). Said at the end (finish).
    s_->never_placeable.emplace(idx, never);
    ++s_->stats.never_placeable;
  }
  policy::JobInfo pj;
  pj.name = j.name;
  pj.queue = qid;
  // spec.minAvailable (TorchX: replicas) becomes the PodGroup's minMember
  // (job_controller_actions.go createOrUpdatePodGroup).
  pj.min_available = j.min_member();
  // minTaskMember is left empty. Volcano's controller would write {trainer-<i>: 1} for each
  // replica (job_controller_actions.go:733-740) and the pods' task-spec would be trainer-<i>;
  // with one pod per role and minAvailable = every pod, each per-task rule follows from the
  // job-level one (a ready gang holds every pod, hence every role's one), the role cache never
  // skips a pod (no two pods share a role) and allocate stops at the first failure either way
  // (minAvailable = task count). Leaving them out decides the same and saves 20 MiB and 2% of
  // the full Philly run.
  pj.priority = j.priority;
  pj.creation = submit.ns();
  pj.sla_waiting_time = j.sla_waiting_time.count_ns();
  pj.uid = s_->uid_rng();
  // calcPGMinResources (job_controller_actions.go): the requests of the first minAvailable pods
  // (by task priority; every pod of a job requests the same here).
  pj.min_resources = pod;
  pj.min_resources.multi(j.min_member());
  // A job of independent pods: minTaskMember {task: its minAvailable, else replicas}
  // (createOrUpdatePodGroup), its pods carrying their task's name (volcano.sh/task-spec).
  for (const JobTaskSpec& t : j.tasks) pj.min_task_member.emplace_back(t.name, t.min_member());
  run.pj = s_->state.add_job(pj);
  if (s_->job_of_policy.size() <= run.pj) s_->job_of_policy.resize(run.pj + 1), s_->queue_of_policy.resize(run.pj + 1);
  s_->job_of_policy[run.pj] = idx;
  s_->queue_of_policy[run.pj] = qid;
  out.phase = "Pending";
  if (j.initial) place_initial(idx);
  if (j.admitted) {
    // Admitted before t0 (/initial_state/admitted): the PodGroup Inqueue, and the job
    // controller's syncJob has created its pods (as after the enqueue action's verdict,
    // SchedulerDriver::podgroup_phase_changed).
    s_->state.set_podgroup_phase(run.pj, PodGroupPhase::Inqueue);
    s_->rec.phase_change({static_cast<std::uint32_t>(idx), s_->sim.now(), "Pending", "Inqueue"});
    run.last_phase = "Inqueue";
    run.inqueue = s_->sim.now();
    parts_->controller.ensure_pods(idx);
  }
  parts_->driver.ensure_tick();
}

bool uses_efa(const TrainingScenario& sc, const TrainingJobSpec& j) {
  return j.efa_per_pod > 0 || (sc.step_model && sc.step_model->contention && sc.duration_model == DurationModel::Derived);
}

std::string trainer_task_name(int replica) { return "trainer-" + std::to_string(replica); }

void TrainingCluster::place_initial(std::size_t idx) {
  // A job running at t0 (/initial_state): its PodGroup was admitted and its gang placed before
  // the run began, so at t0 (before the first scheduling cycle) its PodGroup is Running and its
  // pods Running on the nodes the scenario names; its training resumes for what remains (no
  // bind latency, pod start-up or start-up phases: they happened before t0). From then on it is
  // a job like the others: allocated in its queue's share, a victim for preempt and reclaim.
  const TrainingJobSpec& j = scenario_.jobs[idx];
  const InitialRun& init = *j.initial;
  JobRun& run = s_->runs[idx];
  const core::Time started = core::Time::zero() - init.elapsed;
  const auto u = static_cast<std::uint32_t>(idx);
  s_->state.set_podgroup_phase(run.pj, PodGroupPhase::Inqueue);
  s_->rec.phase_change({u, s_->sim.now(), "Pending", "Inqueue"});
  s_->state.set_podgroup_phase(run.pj, PodGroupPhase::Running);
  s_->rec.phase_change({u, s_->sim.now(), "Inqueue", "Running"});
  run.last_phase = "Running";
  run.inqueue = started;
  for (int i = 0; i < j.nnodes; ++i) parts_->controller.create_pod(idx, i);
  const auto tasks = s_->state.job(run.pj).tasks;
  for (TaskId t : tasks) {
    const std::string& want = init.nodes.at(static_cast<std::size_t>(s_->replica_of_task[t]));
    NodeId node = policy::kNone;
    for (const auto& n : s_->state.nodes())
      if (n.name == want) node = n.id;
    if (node == policy::kNone) throw std::invalid_argument("job " + j.name + " runs at t0 on node '" + want + "', which does not exist");
    if (!s_->state.task(t).resreq.less_equal(s_->state.node(node).idle))
      throw std::invalid_argument("job " + j.name + " runs at t0 on node '" + want + "', which has no room for its pod");
    s_->state.set_task_status(t, TaskStatus::Running, node);
    s_->account_allocation(s_->neuroncores_of(s_->state.task(t).resreq));
    s_->node_occupancy_changed(node);
    s_->rec.pod_event({u, s_->replica_of_task[t], "Bound", want, s_->sim.now()});
    s_->rec.pod_event({u, s_->replica_of_task[t], "Running", want, s_->sim.now()});
    parts_->pods.watch_taints(t);  // the taint manager, starting at t0, sees it on its node
  }
  run.bound = run.running = j.nnodes;
  run.scheduled = started;
  s_->outcomes[idx].scheduled = started;
  run.start = started;
  run.vc = VcPhase::Running;
  s_->jstart[idx].training_start = started;
  run.saved = j.duration - init.remaining;  // the progress at t0: training_time() is what remains
  parts_->pods.training_begins(idx);
}

void TrainingCluster::sample() {
  // Nothing else pending: the run ended before this sample's time; record nothing past the end.
  if (s_->sim.pending_count() == 0 && s_->sim.now() > s_->last_event) return;
  parts_->progress.record_link_usage(s_->sim.now());
  ClusterSample s;
  s.t = s_->sim.now();
  s.neuroncores_total = s_->stats.neuroncores_total;
  s.neuroncores_allocated = s_->allocated_cores();
  s.jobs_pending = static_cast<int>(s_->state.pending_jobs().size());
  for (JobId j : s_->state.active_jobs()) {
    const policy::JobInfo& job = s_->state.job(j);
    const JobRun& jr = s_->runs[s_->job_of_policy[j]];
    if (jr.attempt_start != core::Time::max() || (scenario_.jobs[s_->job_of_policy[j]].independent_pods() && jr.running > 0))
      ++s.jobs_running;
    else ++s.jobs_inqueue;
    s.pods_running += job.count(TaskStatus::Running);
  }
  s_->rec.sample(s);
  // Keep sampling only while something else can still happen: the run ends when no events
  // remain, even if jobs are still waiting (they are reported with their reasons).
  if (s_->sim.pending_count() > 0) s_->sim.schedule_in(scenario_.metrics_interval, &sample_event_, 0);
}

void TrainingCluster::finish(core::Time end, const std::string& note) {
  if (finished_) return;
  finished_ = true;
  s_->account_allocation(0);
  parts_->progress.record_link_usage(end);  // the traffic of the last, partial metrics interval
  for (std::size_t idx = 0; idx < s_->runs.size(); ++idx) {
    JobRun& run = s_->runs[idx];
    if (run.ended) continue;
    if (idx >= s_->next_arrival) continue;  // never submitted (the run stopped before)
    parts_->progress.close_attempt_at_end(idx, end);
    std::string phase = run.attempt_start != core::Time::max() || s_->jstart[idx].in_startup ||
                                (scenario_.jobs[idx].independent_pods() && run.running > 0)
                            ? "Running"
                            : "Pending";
    std::string reason;
    if (phase == "Pending") {
      const policy::Status& s = parts_->driver.scheduler().job_condition(run.pj);
      reason = s.plugin.empty() ? std::string("not yet considered by the scheduler") : s.plugin + ": " + s.reason;
      if (auto it = s_->never_placeable.find(idx); it != s_->never_placeable.end())
        reason = "can never be placed: " + it->second + "; Volcano admits such a job and it waits for ever" +
                 (run.last_phase == "Inqueue" ? ", Inqueue, holding its queue's and the overcommit plugin's enqueue budget (volcano#1295)"
                                              : std::string()) +
                 " (remedy: delete it, or refuse such jobs at submission: /cluster/admission/refuse_unplaceable); the scheduler's last word: " +
                 reason;
    }
    if (!note.empty() && phase == "Pending") reason += " (" + note + ")";
    if (run.stuck) {
      // Volcano's default SyncJob left Failed pods behind: the job can never run again.
      ++s_->stats.stuck;
      int failed = 0;
      for (TaskId t : s_->state.job(run.pj).tasks) failed += s_->state.task(t).status == TaskStatus::Failed;
      reason += (reason.empty() ? "" : "; ") + std::string("stuck: ") + std::to_string(failed) +
                " of its pods Failed and Volcano's SyncJob never recreates a Failed pod (no PodFailed policy), so its gang "
                "can never be complete again: a policy such as PodFailed -> RestartJob (TorchX max_retries >= 1) restarts it";
    }
    if (phase == "Pending" && scenario_.autoscaler && run.inqueue == core::Time::max() && s_->state.job(run.pj).tasks.empty() &&
        !s_->never_placeable.count(idx) && parts_->driver.scheduler().job_condition(run.pj).plugin == "overcommit") {
      // The autoscaler trap (docs/startup-and-faults.md): enqueue kept the PodGroup Pending,
      // so no pod exists and the cluster autoscaler, which reacts to Pending pods, never scaled
      // out, though the node groups could grow to hold the job (it is not never-placeable).
      if (++s_->stats.autoscaler_trapped == 1) s_->stats.autoscaler_trap_example = scenario_.jobs[idx].name;
      reason += "; the autoscaler trap: no pod exists while enqueue keeps the PodGroup Pending, so the cluster autoscaler "
                "never scales out for it (remedy: leave enqueue out of volcano.actions)";
    }
    s_->outcomes[idx].phase = phase;  // the summary counts what the jobs table says
    s_->write_final(idx, phase, reason);
  }
  // The schedule period's boundaries in [0, end]: 0, T, 2T, ... (the first session runs at 0).
  s_->stats.cycles_elapsed = static_cast<std::uint64_t>(end.ns() / scenario_.scheduler.schedule_period_ns) + 1;
  if (nodes_->dynamic()) nodes_->close_books(end);
  s_->rec.checkpoint(end);
}

const TrainingStats& TrainingCluster::stats() const {
  s_->stats.sessions = parts_->driver.scheduler().stats().sessions;
  s_->stats.statements_discarded = parts_->driver.scheduler().stats().totals.statements_discarded;
  return s_->stats;
}

}  // namespace mltwin::models
