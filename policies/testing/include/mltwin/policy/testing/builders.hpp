// mltwin/policy/testing/builders.hpp — fluent builders and a recording backend for unit-testing
// policies offline, in the style of Kubernetes' pkg/scheduler/testing/wrappers.go:
//
//   World w;
//   w.queue(QueueBuilder("default").weight(1));
//   w.node(NodeBuilder("n0").trn1_32xlarge());
//   w.job(JobBuilder("j1", "default").pods(4, Pod().neuron_devices(16)).inqueue());
//   RecordingBackend be;
//   Scheduler s(volcano_default_config(), 1);
//   s.run_once(w.state, be);
//   CHECK(be.binds_of(w.jobs.at("j1")) == 4);
//
// Header-only; depends on the policy library alone.
#pragma once
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/policy/backend.hpp"
#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/quantity.hpp"

namespace mltwin::policy::testing {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// A pod's requests (a Kubernetes ResourceList), in Kubernetes units. The task built from it
/// requests one `pods` more (policy::task_resreq, as Volcano's pod_info.go).
class Pod {
 public:
  Pod& cpu(double cores) { r_.milli_cpu = cores * 1000; return *this; }
  Pod& memory_gib(double g) { r_.memory = g * kGiB; return *this; }
  /// cpu as a Kubernetes quantity ("500m", "2"): its MilliValue, as Volcano's NewResource reads it.
  Pod& cpu(std::string_view quantity) { r_.milli_cpu = static_cast<double>(parse_quantity(quantity).milli_value()); return *this; }
  /// memory as a Kubernetes quantity ("1G" is 10^9 bytes, "1Gi" 2^30): its Value, in bytes.
  Pod& memory(std::string_view quantity) { r_.memory = static_cast<double>(parse_quantity(quantity).value()); return *this; }
  /// n Neuron devices under `aws.amazon.com/neurondevice` (the name TorchX requests).
  Pod& neuron_devices(double n) { return resource(rn::kNeuronDevice, n); }
  /// n NeuronCores (`aws.amazon.com/neuroncore`).
  Pod& neuron_cores(double n) { return resource(rn::kNeuronCore, n); }
  Pod& efa(double n) { return resource(rn::kEfa, n); }
  Pod& gpus(double n) { return resource(rn::kNvidiaGpu, n); }
  /// Any scalar resource, in Kubernetes units (stored in milli-units; `pods` as a count).
  Pod& resource(ResourceName name, double k8s_units) { r_.scalars.set(name, name == rn::kPods ? k8s_units : k8s_units * 1000); return *this; }
  Pod& resource(std::string_view name, double k8s_units) { return resource(ResourceName::intern(name), k8s_units); }
  Pod& node_selector(std::string k, std::string v) { sel_.emplace_back(std::move(k), std::move(v)); return *this; }
  Pod& priority(int p) { prio_ = p; return *this; }
  Pod& toleration(Toleration t) { tol_.push_back(std::move(t)); return *this; }
  Pod& affinity(NodeAffinity a) { aff_ = std::move(a); return *this; }
  /// The pod's name (default: "<job>-<index>").
  Pod& name(std::string n) { name_ = std::move(n); return *this; }
  /// Already placed on `node` with status `s` (Running by default; Bound, Binding, Releasing or
  /// Succeeded/Failed as Volcano's cache reads a pod, pkg/scheduler/api/helpers.go getTaskStatus).
  Pod& on(std::string node, TaskStatus s = TaskStatus::Running) { node_ = std::move(node); status_ = s; return *this; }
  /// A status without a node (Pending by default; Succeeded, Failed, Unknown).
  Pod& status(TaskStatus s) { status_ = s; return *this; }
  /// volcano.sh/preemptable (Volcano reads true when unset).
  Pod& preemptable(bool p) { preemptable_ = p; return *this; }
  /// The UID that breaks ties in Volcano's orders (default: the order pods are added).
  Pod& uid(std::uint64_t u) { uid_ = u; return *this; }
  /// spec.preemptionPolicy Never: the pod may not preempt others (TaskInfo::preempt_never).
  Pod& preemption_policy_never() { never_ = true; return *this; }
  /// Annotation volcano.sh/task-spec: the Volcano task (role) of the pod (TaskInfo::role).
  Pod& role(std::string r) { role_ = std::move(r); return *this; }
  const Resource& resource() const { return r_; }
  const auto& selector() const { return sel_; }
  const std::vector<Toleration>& tolerations() const { return tol_; }
  const NodeAffinity& node_affinity() const { return aff_; }
  int prio() const { return prio_; }
  const std::string& pod_name() const { return name_; }
  const std::string& node() const { return node_; }
  TaskStatus task_status() const { return status_; }
  bool is_preemptable() const { return preemptable_; }
  std::uint64_t pod_uid() const { return uid_; }
  bool never_preempts() const { return never_; }
  const std::string& task_role() const { return role_; }

 private:
  std::string name_, node_, role_;
  TaskStatus status_ = TaskStatus::Pending;
  bool preemptable_ = true, never_ = false;
  std::uint64_t uid_ = 0;
  Resource r_;
  std::vector<std::pair<std::string, std::string>> sel_;
  std::vector<Toleration> tol_;
  NodeAffinity aff_;
  int prio_ = 0;
};

class NodeBuilder {
 public:
  /// A node with the kubelet's default maxPods, 110 (KubeletConfiguration maxPods).
  explicit NodeBuilder(std::string name) { n_.name = std::move(name); pods(110); }
  NodeBuilder& cpu(double cores) { n_.allocatable.milli_cpu = cores * 1000; return *this; }
  NodeBuilder& memory_gib(double g) { n_.allocatable.memory = g * kGiB; return *this; }
  /// cpu as a Kubernetes quantity ("500m", "2"): its MilliValue.
  NodeBuilder& cpu(std::string_view quantity) { n_.allocatable.milli_cpu = static_cast<double>(parse_quantity(quantity).milli_value()); return *this; }
  /// memory as a Kubernetes quantity ("4Gi", "4G"): its Value, in bytes.
  NodeBuilder& memory(std::string_view quantity) { n_.allocatable.memory = static_cast<double>(parse_quantity(quantity).value()); return *this; }
  /// The allocatable `pods` (also max_task_num, as Volcano's NewResource).
  NodeBuilder& pods(int n) { n_.allocatable.scalars.set(rn::kPods, n); n_.allocatable.max_task_num = n; return *this; }
  /// n Neuron devices as the Neuron device plugin advertises them: `aws.amazon.com/neuron` and
  /// `aws.amazon.com/neurondevice` n each, `aws.amazon.com/neuroncore` n × cores_per_device.
  NodeBuilder& neuron_devices(double n, double cores_per_device = 2) {
    resource(rn::kNeuron, n).resource(rn::kNeuronDevice, n);
    return resource(rn::kNeuronCore, n * cores_per_device);
  }
  NodeBuilder& efa(double n) { return resource(rn::kEfa, n); }
  NodeBuilder& gpus(double n) { return resource(rn::kNvidiaGpu, n); }
  /// Any scalar resource, in Kubernetes units.
  NodeBuilder& resource(ResourceName name, double k8s_units) { n_.allocatable.scalars.set(name, k8s_units * 1000); return *this; }
  NodeBuilder& resource(std::string_view name, double k8s_units) { return resource(ResourceName::intern(name), k8s_units); }
  NodeBuilder& label(std::string k, std::string v) { n_.labels.emplace_back(std::move(k), std::move(v)); return *this; }
  NodeBuilder& unschedulable() { n_.unschedulable = true; return *this; }
  NodeBuilder& taint(Taint t) { n_.taints.push_back(std::move(t)); return *this; }
  /// Requests of the DaemonSet pods on the node (held from the start, objects.hpp).
  NodeBuilder& daemonset_used(const Pod& r) { n_.daemonset_used = task_resreq(r.resource()); return *this; }
  /// trn1.32xlarge: 128 vCPU, 512 GiB, 16 Trainium devices (32 NeuronCores), 8 EFA, maxPods
  /// 247 (amazon-eks-ami eni-max-pods.txt).
  NodeBuilder& trn1_32xlarge() {
    n_.instance_type = "trn1.32xlarge";
    return cpu(128).memory_gib(512).neuron_devices(16).efa(8).pods(247);
  }
  NodeInfo build() const {
    NodeInfo n = n_;
    n.capacity = n.allocatable;
    return n;
  }

 private:
  NodeInfo n_;
};

class QueueBuilder {
 public:
  explicit QueueBuilder(std::string name) { q_.name = std::move(name); }
  QueueBuilder& weight(int w) { q_.weight = w; return *this; }
  /// spec.capability: the resources the Pod names.
  QueueBuilder& capability(const Pod& r) { q_.capability = r.resource(); return *this; }
  QueueBuilder& guarantee(const Pod& r) { q_.guarantee = r.resource(); return *this; }
  /// spec.deserved (capacity plugin): the resources the Pod names.
  QueueBuilder& deserved(const Pod& r) { q_.deserved = r.resource(); return *this; }
  /// spec.parent (capacity plugin with enableHierarchy), by name: the queue must be added first.
  QueueBuilder& parent(std::string name) { parent_ = std::move(name); return *this; }
  const std::string& parent_name() const { return parent_; }
  QueueBuilder& closed() { q_.state = QueueState::Closed; return *this; }
  QueueBuilder& priority(int p) { q_.priority = p; return *this; }
  /// spec.reclaimable (Volcano's default: true).
  QueueBuilder& reclaimable(bool r) { q_.reclaimable = r; return *this; }
  QueueInfo build() const { return q_; }

 private:
  std::string parent_;

 private:
  QueueInfo q_;
};

class JobBuilder {
 public:
  JobBuilder(std::string name, std::string queue) : name_(std::move(name)), queue_(std::move(queue)) {}
  /// n pods with the same request; minAvailable defaults to the pod count (TorchX).
  JobBuilder& pods(int n, const Pod& p) {
    for (int i = 0; i < n; ++i) pods_.push_back(p);
    return *this;
  }
  /// One pod, with its own name, request, node and status (Pod::on, Pod::status).
  JobBuilder& pod(const Pod& p) { pods_.push_back(p); return *this; }
  /// The PodGroup's status.phase as given, with its pods created at once, whatever the phase
  /// (as a test of Volcano's own builds them; default: Pending without pods, see inqueue()).
  JobBuilder& phase(PodGroupPhase p) { phase_ = p; has_phase_ = true; return *this; }
  /// spec.minResources: the resources the Pod names (default: the first minAvailable pods').
  JobBuilder& min_resources(const Pod& r) { min_res_ = r.resource(); min_res_set_ = true; has_min_res_ = true; return *this; }
  /// No spec.minResources (Volcano reads an empty request).
  JobBuilder& no_min_resources() { has_min_res_ = false; return *this; }
  /// The UID that breaks ties in Volcano's job orders (default: the order jobs are added).
  JobBuilder& uid(std::uint64_t u) { uid_ = u; return *this; }
  JobBuilder& min_available(int m) { min_ = m; return *this; }
  /// spec.minTaskMember[role] = n (JobInfo::min_task_member; default: none).
  JobBuilder& min_task_member(std::string role, int n) { min_task_.emplace_back(std::move(role), n); return *this; }
  JobBuilder& priority(int p) { prio_ = p; return *this; }
  JobBuilder& created(TimeNs t) { created_ = t; return *this; }
  /// Start in Inqueue with pods created (as if enqueue had run); default Pending without pods.
  JobBuilder& inqueue() { inqueue_ = true; return *this; }
  /// Pods already running on the named nodes (one name per pod, in order).
  JobBuilder& running_on(std::vector<std::string> nodes) { running_on_ = std::move(nodes); inqueue_ = true; return *this; }

  std::string name_, queue_;
  std::vector<Pod> pods_;
  int min_ = -1, prio_ = 0;
  TimeNs created_ = 0;
  bool inqueue_ = false;
  PodGroupPhase phase_ = PodGroupPhase::Pending;
  bool has_phase_ = false, has_min_res_ = true, min_res_set_ = false;
  Resource min_res_;
  std::uint64_t uid_ = 0;
  std::vector<std::string> running_on_;
  std::vector<std::pair<std::string, std::int32_t>> min_task_;
};

/// A cluster state built from builders, with name lookups.
struct World {
  ClusterState state;
  std::map<std::string, QueueId> queues;
  std::map<std::string, NodeId> nodes;
  std::map<std::string, JobId> jobs;
  std::map<std::string, TaskId> tasks;  ///< by pod name (the last pod of a name wins)
  std::uint64_t next_uid = 1;

  QueueId queue(const QueueBuilder& b) {
    QueueInfo q = b.build();
    q.uid = next_uid++;
    if (!b.parent_name().empty()) q.parent = queues.at(b.parent_name());
    const QueueId id = state.add_queue(q);
    queues[state.queue(id).name] = id;
    return id;
  }
  NodeId node(const NodeBuilder& b) {
    const NodeId id = state.add_node(b.build());
    nodes[state.node(id).name] = id;
    return id;
  }
  JobId job(const JobBuilder& b) {
    auto qi = queues.find(b.queue_);
    if (qi == queues.end()) throw std::invalid_argument("JobBuilder: unknown queue " + b.queue_);
    JobInfo j;
    j.name = b.name_;
    j.queue = qi->second;
    j.min_available = b.min_ >= 0 ? b.min_ : static_cast<int>(b.pods_.size());
    j.min_task_member = b.min_task_;
    j.priority = b.prio_;
    j.creation = b.created_;
    j.uid = b.uid_ != 0 ? b.uid_ : next_uid++;
    j.has_min_resources = b.has_min_res_;
    if (b.min_res_set_) {
      j.min_resources = b.min_res_;
    } else if (b.has_min_res_) {
      for (int i = 0; i < j.min_available && i < static_cast<int>(b.pods_.size()); ++i)
        j.min_resources.add(task_resreq(b.pods_[static_cast<std::size_t>(i)].resource()));
    }
    const JobId id = state.add_job(j);
    jobs[b.name_] = id;
    if (b.has_phase_) {
      state.set_podgroup_phase(id, b.phase_);
      create_pods(b, id);
    } else if (b.inqueue_) {
      state.set_podgroup_phase(id, PodGroupPhase::Inqueue);
      create_pods(b, id);
    } else {
      pending_pods_[id] = b.pods_;
    }
    for (std::size_t i = 0; i < b.running_on_.size(); ++i) {
      const TaskId t = state.job(id).tasks.at(i);
      state.set_task_status(t, TaskStatus::Running, nodes.at(b.running_on_[i]));
    }
    if (!b.running_on_.empty()) state.set_podgroup_phase(id, PodGroupPhase::Running);
    return id;
  }
  /// What the Volcano job controller does when a PodGroup turns Inqueue: create its pods.
  void create_pending_pods(JobId id) {
    auto it = pending_pods_.find(id);
    if (it == pending_pods_.end()) return;
    JobBuilder b("", "");
    b.pods_ = it->second;
    create_pods(b, id);
    pending_pods_.erase(it);
  }
  const JobInfo& operator[](const std::string& job) const { return state.job(jobs.at(job)); }

 private:
  void create_pods(const JobBuilder& b, JobId id) {
    int i = 0;
    for (const Pod& p : b.pods_) {
      TaskInfo t;
      t.name = p.pod_name().empty() ? state.job(id).name + "-" + std::to_string(i) : p.pod_name();
      t.index = pod_index_under_task(t.name);
      t.resreq = task_resreq(p.resource());
      t.node_selector = p.selector();
      t.tolerations = p.tolerations();
      t.node_affinity = p.node_affinity();
      t.priority = p.prio();
      t.creation = state.job(id).creation;
      t.uid = p.pod_uid() != 0 ? p.pod_uid() : next_uid++;
      t.preemptable = p.is_preemptable();
      t.preempt_never = p.never_preempts();
      t.role = p.task_role();
      const TaskId tid = state.add_task(id, t);
      tasks[t.name] = tid;
      if (!p.node().empty()) {
        auto n = nodes.find(p.node());
        if (n == nodes.end()) throw std::invalid_argument("Pod " + t.name + ": unknown node " + p.node());
        state.set_task_status(tid, p.task_status(), n->second);
      } else if (p.task_status() != TaskStatus::Pending) {
        state.set_task_status(tid, p.task_status());
      }
      ++i;
    }
  }
  std::map<JobId, std::vector<Pod>> pending_pods_;
};

/// Records what the scheduler asked the world to do.
class RecordingBackend : public Backend {
 public:
  struct Bind { TaskId task; JobId job; NodeId node; };
  std::vector<Bind> binds;
  std::vector<std::pair<TaskId, std::string>> evictions;  ///< victim, reason
  /// Each eviction's preemptor, tier and plugins (Eviction), in the order of `evictions`.
  struct Why { TaskId preemptor; int tier; std::string plugins; };
  std::vector<Why> eviction_causes;
  std::vector<std::tuple<JobId, PodGroupPhase, PodGroupPhase>> phases;
  std::vector<std::pair<JobId, Status>> conditions;
  World* world = nullptr;  ///< if set, Inqueue creates the job's pods (the Volcano controller)

  CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
    binds.push_back({t.id, t.job, n.id});
    return CallResult::success();
  }
  CallResult evict(const TaskInfo& t, const Eviction& e) override {
    evictions.emplace_back(t.id, std::string(e.reason));
    eviction_causes.push_back({e.preemptor, e.tier, std::string(e.plugins)});
    return CallResult::success();
  }
  void podgroup_phase_changed(const JobInfo& j, PodGroupPhase from, PodGroupPhase to) override {
    phases.emplace_back(j.id, from, to);
    if (world && to == PodGroupPhase::Inqueue) world->create_pending_pods(j.id);
  }
  void job_condition(const JobInfo& j, const Status& s) override { conditions.emplace_back(j.id, s); }
  /// Pods nominated to a node at session close (status.nominatedNodeName), in call order.
  std::vector<std::pair<TaskId, NodeId>> nominations;
  void task_nominated(const TaskInfo& t, const NodeInfo& n) override { nominations.emplace_back(t.id, n.id); }

  int binds_of(JobId j) const {
    int n = 0;
    for (const auto& b : binds) n += b.job == j;
    return n;
  }
};

}  // namespace mltwin::policy::testing
