#include "mltwin/policy/scheduler_cache.hpp"

#include <stdexcept>

namespace mltwin::policy {

TaskStatus task_status_of(PodPhase phase, bool has_node, bool being_deleted) {
  // pkg/scheduler/api/helpers.go getTaskStatus (v1.12.1).
  switch (phase) {
    case PodPhase::Running:
      return being_deleted ? TaskStatus::Releasing : TaskStatus::Running;
    case PodPhase::Pending:
      if (being_deleted) return TaskStatus::Releasing;
      return has_node ? TaskStatus::Bound : TaskStatus::Pending;
    case PodPhase::Succeeded:
      return TaskStatus::Succeeded;
    case PodPhase::Failed:
      return TaskStatus::Failed;
    case PodPhase::Unknown:
      break;
  }
  return TaskStatus::Unknown;
}

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

std::uint64_t uid_order_key(std::string_view uid) {
  // Lower-case hex of fixed length orders as its value does, so the first 16 digits of an
  // RFC 4122 UID (8-4-4-...) are an order-preserving 64-bit prefix of it.
  bool rfc4122 = uid.size() == 36;
  for (std::size_t i = 0; rfc4122 && i < uid.size(); ++i)
    rfc4122 = (i == 8 || i == 13 || i == 18 || i == 23) ? uid[i] == '-' : hex_digit(uid[i]) >= 0;
  std::uint64_t key = 0;
  if (rfc4122) {
    int digits = 0;
    for (std::size_t i = 0; digits < 16; ++i) {
      if (uid[i] == '-') continue;
      key = key << 4 | static_cast<std::uint64_t>(hex_digit(uid[i]));
      ++digits;
    }
    return key;
  }
  for (std::size_t i = 0; i < 8; ++i)
    key = key << 8 | (i < uid.size() ? static_cast<std::uint8_t>(uid[i]) : 0u);
  return key;
}

namespace {
const std::string kNoUid;

bool same_spec(const TaskInfo& a, const TaskInfo& b) {
  return a.name == b.name && a.index == b.index && a.resreq == b.resreq && a.priority == b.priority &&
         a.creation == b.creation && a.uid == b.uid && a.node_selector == b.node_selector &&
         a.node_affinity == b.node_affinity && a.tolerations == b.tolerations && a.system_critical == b.system_critical &&
         a.preemptable == b.preemptable && a.preempt_never == b.preempt_never && a.role == b.role &&
         a.nominated_node == b.nominated_node;
}

bool same_spec(const JobInfo& a, const JobInfo& b) {
  return a.name == b.name && a.queue == b.queue && a.min_available == b.min_available && a.priority == b.priority &&
         a.creation == b.creation && a.uid == b.uid && a.phase == b.phase && a.sla_waiting_time == b.sla_waiting_time &&
         a.has_min_resources == b.has_min_resources && a.min_resources == b.min_resources &&
         a.min_task_member == b.min_task_member;
}

void set_at(std::vector<std::string>& v, std::uint32_t i, const std::string& s) {
  if (v.size() <= i) v.resize(i + 1);
  v[i] = s;
}

template <class Map>
void depend(Map& deps, const std::string& on, const std::string& uid) {
  if (!on.empty()) deps[on].insert(uid);
}
template <class Map>
void undepend(Map& deps, const std::string& on, const std::string& uid) {
  const auto it = deps.find(on);
  if (it == deps.end()) return;
  it->second.erase(uid);
  if (it->second.empty()) deps.erase(it);
}
// The uids that depend on `on`, copied: re-placing them may change the set.
template <class Map>
std::vector<std::string> dependents(const Map& deps, const std::string& on) {
  const auto it = deps.find(on);
  if (it == deps.end()) return {};
  return {it->second.begin(), it->second.end()};
}
}  // namespace

void SchedulerCache::check_key(const char* kind, const std::string& uid, const std::string& name) {
  if (uid.empty()) throw std::invalid_argument(std::string(kind) + " '" + name + "' has no metadata.uid");
  if (name.empty()) throw std::invalid_argument(std::string(kind) + " with uid " + uid + " has no name");
}

template <class Map, class NameOf>
typename Map::iterator SchedulerCache::claim(Map& records, const Index& by_name, const char* kind, const std::string& uid,
                                             const std::string& name, NameOf name_of,
                                             void (SchedulerCache::*remove)(std::string_view)) {
  check_key(kind, uid, name);
  if (const auto it = records.find(uid); it != records.end() && name_of(it->second) != name) (this->*remove)(uid);
  if (const auto other = by_name.find(name); other != by_name.end() && other->second != uid)
    (this->*remove)(std::string(other->second));
  return records.find(uid);
}

// ---- queues ----

void SchedulerCache::resolve_queue_parents() {
  for (auto& [uid, rec] : queues_) {
    QueueId parent = kNone;
    if (!rec.obj.parent.empty()) parent = find_queue_by_name(rec.obj.parent);
    if (state_.queue(rec.id).parent == parent) continue;
    QueueInfo q = state_.queue(rec.id);
    q.parent = parent;
    state_.update_queue(rec.id, q);
  }
}

void SchedulerCache::apply_queue(QueueObject q) {
  const auto it = claim(queues_, queue_by_name_, "queue", q.uid, q.spec.name,
                        [](const QueueRec& r) -> const std::string& { return r.obj.spec.name; }, &SchedulerCache::delete_queue);
  QueueInfo spec = q.spec;
  if (spec.uid == 0) spec.uid = uid_order_key(q.uid);
  spec.parent = kNone;  // resolve_queue_parents
  if (it == queues_.end()) {
    QueueRec rec{std::move(q), state_.add_queue(spec)};
    const std::string uid = rec.obj.uid, name = rec.obj.spec.name;
    queue_by_name_[name] = uid;
    queues_.emplace(uid, std::move(rec));
    resolve_queue_parents();
    for (const std::string& pg : dependents(podgroups_of_queue_, name)) place_podgroup(podgroups_.find(pg)->second);
    return;
  }
  QueueRec& rec = it->second;
  spec.parent = state_.queue(rec.id).parent;
  state_.update_queue(rec.id, spec);
  rec.obj = std::move(q);
  resolve_queue_parents();
}

void SchedulerCache::delete_queue(std::string_view uid) {
  const auto it = queues_.find(uid);
  if (it == queues_.end()) return;
  const std::string name = it->second.obj.spec.name;
  const QueueId id = it->second.id;
  queue_by_name_.erase(name);
  queues_.erase(it);
  // Its PodGroups leave the state (Volcano: "The Queue of Job does not exist, ignore it").
  for (const std::string& pg : dependents(podgroups_of_queue_, name)) place_podgroup(podgroups_.find(pg)->second);
  state_.remove_queue(id);
  resolve_queue_parents();
}

// ---- nodes ----

void SchedulerCache::apply_node(NodeObject n) {
  const auto it = claim(nodes_, node_by_name_, "node", n.uid, n.spec.name,
                        [](const NodeRec& r) -> const std::string& { return r.obj.spec.name; }, &SchedulerCache::delete_node);
  if (it == nodes_.end()) {
    const NodeId id = state_.add_node(n.spec);
    const std::string uid = n.uid, name = n.spec.name;
    node_by_name_[name] = uid;
    nodes_.emplace(uid, NodeRec{std::move(n), id});
    replace_pods_on_node(name);
    return;
  }
  // The pods of other schedulers on the node stay counted in daemonset_used (place_pod).
  NodeInfo spec = n.spec;
  for (const std::string& p : dependents(pods_on_node_, n.spec.name))
    if (const PodRec& r = pods_.find(p)->second; r.where == Where::OtherPod) spec.daemonset_used.add(r.other_request);
  state_.update_node(it->second.id, spec);
  it->second.obj = std::move(n);
}

void SchedulerCache::delete_node(std::string_view uid) {
  const auto it = nodes_.find(uid);
  if (it == nodes_.end()) return;
  const std::string name = it->second.obj.spec.name;
  const NodeId id = it->second.id;
  node_by_name_.erase(name);
  nodes_.erase(it);
  replace_pods_on_node(name);  // they leave the node first (their tasks, or their usage)
  // A task the scheduler bound to it whose bind the informer has not reported yet: the bind
  // cannot succeed now; the task goes back to Pending (as a refused bind does).
  for (auto& [pod, r] : pods_)
    if (r.where == Where::Task && on_node_status(state_.task(r.task).status) && state_.task(r.task).node == id)
      state_.set_task_status(r.task, TaskStatus::Pending);
  state_.remove_node(id);
}

void SchedulerCache::replace_pods_on_node(const std::string& node) {
  for (const std::string& p : dependents(pods_on_node_, node)) place_pod(pods_.find(p)->second);
}

// ---- PodGroups ----

void SchedulerCache::apply_podgroup(PodGroupObject pg) {
  auto it = claim(podgroups_, podgroup_by_name_, "PodGroup", pg.uid, pg.name,
                  [](const PodGroupRec& r) -> const std::string& { return r.obj.name; }, &SchedulerCache::delete_podgroup);
  if (it == podgroups_.end()) {
    const std::string uid = pg.uid;
    podgroup_by_name_[pg.name] = uid;
    depend(podgroups_of_queue_, pg.queue, uid);
    PodGroupRec rec;
    rec.obj = std::move(pg);
    it = podgroups_.emplace(uid, std::move(rec)).first;
  } else {
    if (it->second.obj.queue != pg.queue) {
      undepend(podgroups_of_queue_, it->second.obj.queue, pg.uid);
      depend(podgroups_of_queue_, pg.queue, pg.uid);
    }
    it->second.obj = std::move(pg);
  }
  place_podgroup(it->second);
}

void SchedulerCache::place_podgroup(PodGroupRec& r) {
  const QueueId q = find_queue_by_name(r.obj.queue);
  if (q == kNone) {
    if (r.job == kNone) return;
    const JobId old = r.job;
    r.job = kNone;
    replace_pods_of_group(r.obj.name);  // its pods leave the job first
    job_uid_[old].clear();
    state_.remove_job(old);
    return;
  }
  JobInfo spec = r.obj.spec;
  spec.queue = q;
  if (spec.uid == 0) spec.uid = uid_order_key(r.obj.uid);
  if (spec.name.empty()) spec.name = r.obj.name;
  if (r.job != kNone) {
    if (!same_spec(state_.job(r.job), spec)) state_.update_job(r.job, spec);
    return;
  }
  r.job = state_.add_job(std::move(spec));
  set_at(job_uid_, r.job, r.obj.uid);
  replace_pods_of_group(r.obj.name);
}

void SchedulerCache::delete_podgroup(std::string_view uid) {
  const auto it = podgroups_.find(uid);
  if (it == podgroups_.end()) return;
  const std::string name = it->second.obj.name;
  const JobId old = it->second.job;
  undepend(podgroups_of_queue_, it->second.obj.queue, it->second.obj.uid);
  podgroup_by_name_.erase(name);
  podgroups_.erase(it);
  if (old == kNone) return;
  replace_pods_of_group(name);
  job_uid_[old].clear();
  state_.remove_job(old);
}

void SchedulerCache::replace_pods_of_group(const std::string& group) {
  for (const std::string& p : dependents(pods_of_group_, group)) place_pod(pods_.find(p)->second);
}

// ---- pods ----

void SchedulerCache::apply_pod(PodObject p) {
  auto it = claim(pods_, pod_by_name_, "pod", p.uid, p.name,
                  [](const PodRec& r) -> const std::string& { return r.obj.name; }, &SchedulerCache::delete_pod);
  if (p.spec.uid == 0) p.spec.uid = uid_order_key(p.uid);
  if (it == pods_.end()) {
    const std::string uid = p.uid;
    pod_by_name_[p.name] = uid;
    depend(pods_of_group_, p.podgroup, uid);
    depend(pods_on_node_, p.node, uid);
    PodRec rec;
    rec.obj = std::move(p);
    it = pods_.emplace(uid, std::move(rec)).first;
    place_pod(it->second);
    return;
  }
  PodRec& r = it->second;
  // event_handlers.go updatePod: "ignore the update event if pod is allocated in cache but not
  // present in NodeName" — the scheduler's bind has not reached the API server's copy yet.
  if (r.where == Where::Task && allocated_status(state_.task(r.task).status) && p.node.empty()) return;
  if (r.obj.podgroup != p.podgroup) {
    undepend(pods_of_group_, r.obj.podgroup, p.uid);
    depend(pods_of_group_, p.podgroup, p.uid);
  }
  if (r.obj.node != p.node) {
    undepend(pods_on_node_, r.obj.node, p.uid);
    depend(pods_on_node_, p.node, p.uid);
  }
  r.obj = std::move(p);
  place_pod(r);
}

void SchedulerCache::delete_pod(std::string_view uid) {
  const auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  PodRec& r = it->second;
  unplace_pod(r);
  undepend(pods_of_group_, r.obj.podgroup, r.obj.uid);
  undepend(pods_on_node_, r.obj.node, r.obj.uid);
  pod_by_name_.erase(r.obj.name);
  pods_.erase(it);
}

void SchedulerCache::place_pod(PodRec& r) {
  const PodObject& o = r.obj;
  TaskStatus status = o.status;
  bool holds = on_node_status(status);
  // A status that holds a node without one (a Pending pod being deleted: Releasing) holds nothing.
  if (holds && o.node.empty()) {
    status = TaskStatus::Unknown;
    holds = false;
  }
  const NodeId node = o.node.empty() ? kNone : find_node_by_name(o.node);
  const JobId job = o.podgroup.empty() ? kNone : find_podgroup_by_name(o.podgroup);
  Where want = Where::Nowhere;
  if (job != kNone && (!holds || node != kNone)) want = Where::Task;
  else if (holds && node != kNone) want = Where::OtherPod;

  if (want == Where::Task && r.where == Where::Task && state_.task(r.task).job == job) {
    const TaskInfo& cur = state_.task(r.task);
    if (!same_spec(cur, o.spec)) state_.update_task(r.task, o.spec);
    if (cur.status != status || (holds && cur.node != node)) state_.set_task_status(r.task, status, holds ? node : kNone);
    return;
  }
  const bool releasing = status == TaskStatus::Releasing;
  if (want == Where::OtherPod && r.where == Where::OtherPod && r.other_node == node && r.other_request == o.spec.resreq &&
      r.other_releasing == releasing)
    return;
  unplace_pod(r);
  if (want == Where::Task) {
    r.task = state_.add_task(job, o.spec);
    set_at(task_uid_, r.task, o.uid);
    if (status != TaskStatus::Pending) state_.set_task_status(r.task, status, holds ? node : kNone);
  } else if (want == Where::OtherPod) {
    state_.change_other_pod_usage(node, o.spec.resreq, true, releasing);
    r.other_node = node;
    r.other_request = o.spec.resreq;
    r.other_releasing = releasing;
  }
  r.where = want;
}

void SchedulerCache::unplace_pod(PodRec& r) {
  if (r.where == Where::Task) {
    state_.remove_task(r.task);
    task_uid_[r.task].clear();
  } else if (r.where == Where::OtherPod) {
    state_.change_other_pod_usage(r.other_node, r.other_request, false, r.other_releasing);
  }
  r.where = Where::Nowhere;
  r.task = kNone;
  r.other_node = kNone;
  r.other_request = Resource{};
  r.other_releasing = false;
}

// ---- lookups ----

namespace {
template <class Map, class F>
std::uint32_t lookup(const Map& m, std::string_view key, F id_of) {
  const auto it = m.find(key);
  return it == m.end() ? kNone : id_of(it->second);
}
}  // namespace

TaskId SchedulerCache::find_pod(std::string_view uid) const {
  return lookup(pods_, uid, [](const PodRec& r) { return r.where == Where::Task ? r.task : kNone; });
}
TaskId SchedulerCache::find_pod_by_name(std::string_view name) const {
  const auto it = pod_by_name_.find(name);
  return it == pod_by_name_.end() ? kNone : find_pod(it->second);
}
JobId SchedulerCache::find_podgroup(std::string_view uid) const {
  return lookup(podgroups_, uid, [](const PodGroupRec& r) { return r.job; });
}
JobId SchedulerCache::find_podgroup_by_name(std::string_view name) const {
  const auto it = podgroup_by_name_.find(name);
  return it == podgroup_by_name_.end() ? kNone : find_podgroup(it->second);
}
NodeId SchedulerCache::find_node(std::string_view uid) const {
  return lookup(nodes_, uid, [](const NodeRec& r) { return r.id; });
}
NodeId SchedulerCache::find_node_by_name(std::string_view name) const {
  const auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? kNone : find_node(it->second);
}
QueueId SchedulerCache::find_queue(std::string_view uid) const {
  return lookup(queues_, uid, [](const QueueRec& r) { return r.id; });
}
QueueId SchedulerCache::find_queue_by_name(std::string_view name) const {
  const auto it = queue_by_name_.find(name);
  return it == queue_by_name_.end() ? kNone : find_queue(it->second);
}
const std::string& SchedulerCache::pod_uid(TaskId t) const { return t < task_uid_.size() ? task_uid_[t] : kNoUid; }
const std::string& SchedulerCache::podgroup_uid(JobId j) const { return j < job_uid_.size() ? job_uid_[j] : kNoUid; }

}  // namespace mltwin::policy
