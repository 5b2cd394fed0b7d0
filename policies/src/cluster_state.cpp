#include "mltwin/policy/cluster_state.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace mltwin::policy {


namespace {
// The free ids (IdReuse::AfterCycle) form a min-heap: the smallest is reused first, so that
// ids stay dense. take_free returns kNone if none is free.
std::uint32_t take_free(std::vector<std::uint32_t>& free) {
  if (free.empty()) return kNone;
  std::pop_heap(free.begin(), free.end(), std::greater<>{});
  const std::uint32_t id = free.back();
  free.pop_back();
  return id;
}
void give_free(std::vector<std::uint32_t>& free, const std::vector<std::uint32_t>& ids) {
  for (std::uint32_t id : ids) {
    free.push_back(id);
    std::push_heap(free.begin(), free.end(), std::greater<>{});
  }
}

// ---- the per-task gang's counts (JobInfo::roles) ----
// A role counts towards roles_short_* while its pods fall short of its min_member.
void count_short(JobInfo& j, const JobRole& r, int sign) {
  if (r.min_member == 0) return;
  j.roles_short_valid += sign * (r.valid() < r.min_member);
  j.roles_short_ready += sign * (r.occupied() < r.min_member);
  j.roles_short_pipelined += sign * (r.occupied_or_pipelined() < r.min_member);
}

std::uint32_t role_slot(JobInfo& j, const std::string& name) {
  for (std::size_t i = 0; i < j.roles.size(); ++i)
    if (j.roles[i].name == name) return static_cast<std::uint32_t>(i);
  j.roles.push_back(JobRole{name});  // min_member 0: never short
  return static_cast<std::uint32_t>(j.roles.size() - 1);
}

/// Throws std::invalid_argument for a repeated role or a negative count in spec.minTaskMember.
void check_min_task_member(const JobInfo& j) {
  for (std::size_t i = 0; i < j.min_task_member.size(); ++i) {
    const auto& [name, n] = j.min_task_member[i];
    if (n < 0)
      throw std::invalid_argument("job '" + j.name + "': minTaskMember['" + name + "'] is " + std::to_string(n) +
                                  ", below 0");
    for (std::size_t k = 0; k < i; ++k)
      if (j.min_task_member[k].first == name)
        throw std::invalid_argument("job '" + j.name + "': minTaskMember names role '" + name + "' twice");
  }
}

/// Starts counting j's pods by role, from its tasks as they are: a job is counted so once its
/// PodGroup names minTaskMember or one of its pods names a role (JobInfo::roles stays empty
/// otherwise, and costs nothing).
void track_roles(JobInfo& j, ChunkedVector<TaskInfo>& tasks) {
  for (TaskId id : j.tasks) {
    TaskInfo& t = tasks[id];
    t.role_index = role_slot(j, t.role);
    JobRole& r = j.roles[t.role_index];
    ++r.status_count[static_cast<std::size_t>(t.status)];
    if (t.status == TaskStatus::Pending && t.best_effort) ++r.pending_best_effort_num;
  }
}

/// Gives every role its min_member from j.min_task_member (0 for the others) and recounts the
/// total and the short roles (api/job_info.go:517-524 ParseMinMemberInfo).
void apply_min_task_member(JobInfo& j, ChunkedVector<TaskInfo>& tasks) {
  if (j.roles.empty() && j.min_task_member.empty()) return;
  if (j.roles.empty()) track_roles(j, tasks);
  for (JobRole& r : j.roles) r.min_member = 0;
  j.task_min_available_total = 0;
  for (const auto& [name, n] : j.min_task_member) {
    j.roles[role_slot(j, name)].min_member = n;
    j.task_min_available_total += n;
  }
  j.roles_short_valid = j.roles_short_ready = j.roles_short_pipelined = 0;
  for (const JobRole& r : j.roles) count_short(j, r, +1);
}

// Moves one task of role r between statuses in the role's counts.
void role_leave(JobInfo& j, std::uint32_t role, TaskStatus s, bool best_effort) {
  if (j.roles.empty()) return;
  JobRole& r = j.roles[role];
  count_short(j, r, -1);
  --r.status_count[static_cast<std::size_t>(s)];
  if (s == TaskStatus::Pending && best_effort) --r.pending_best_effort_num;
  count_short(j, r, +1);
}
void role_enter(JobInfo& j, std::uint32_t role, TaskStatus s, bool best_effort) {
  if (j.roles.empty()) return;
  JobRole& r = j.roles[role];
  count_short(j, r, -1);
  ++r.status_count[static_cast<std::size_t>(s)];
  if (s == TaskStatus::Pending && best_effort) ++r.pending_best_effort_num;
  count_short(j, r, +1);
}
}  // namespace

QueueId ClusterState::add_queue(QueueInfo q) {
  const QueueId reused = take_free(free_.queues);
  q.id = reused == kNone ? static_cast<QueueId>(queues_.size()) : reused;
  if (reused == kNone) {
    queues_.push_back(std::move(q));
    queue_jobs_.push_back(0);
  } else {
    queues_[reused] = std::move(q);
  }
  ++generation_;
  return reused == kNone ? static_cast<QueueId>(queues_.size() - 1) : reused;
}

bool ClusterState::node_live(NodeId id) const { return id < nodes_.size() && find_node(nodes_[id].name) == id; }

NodeId ClusterState::find_node(const std::string& name) const {
  const auto it = node_index_.find(name);
  return it == node_index_.end() ? kNone : it->second;
}

namespace {
// A whole number a double holds exactly (int64 sums of them are checked for overflow).
bool whole(double v) { return v == std::floor(v) && std::fabs(v) < 0x1p53; }
}  // namespace

void ClusterState::total_change(const Resource& r, bool add, bool last_node) {
  if (totals_exact_) {
    // Exact int64 sums per resource (cpu and memory under their name ids) while every
    // allocatable is a whole number: the total is then the exact sum rounded once, whatever
    // the order of the changes.
    bool ok = true;
    auto next = total_exact_;
    r.for_each([&](ResourceName name, double v) {
      if (!ok) return;
      if (!whole(v)) {
        ok = false;
        return;
      }
      auto it = std::lower_bound(next.begin(), next.end(), name.id(), [](const auto& e, std::uint16_t id) { return e.first < id; });
      if (it == next.end() || it->first != name.id()) it = next.insert(it, {name.id(), 0});
      const auto x = static_cast<std::int64_t>(v);
      ok = !(add ? __builtin_add_overflow(it->second, x, &it->second) : __builtin_sub_overflow(it->second, x, &it->second));
    });
    if (ok) {
      // A scalar no ready node carries any more leaves the total, as in a rebuild.
      if (!add)
        for (const auto& e : r.scalars)
          for (auto it = next.begin(); it != next.end(); ++it)
            if (it->first == e.name.id() && e.value != 0 && it->second == 0) {
              next.erase(it);
              break;
            }
      total_exact_ = std::move(next);
      total_allocatable_ = Resource{};
      for (const auto& [id, v] : total_exact_) {
        const ResourceName name(id);
        if (name == rn::kCpu) total_allocatable_.milli_cpu = static_cast<double>(v);
        else if (name == rn::kMemory) total_allocatable_.memory = static_cast<double>(v);
        else total_allocatable_.scalars.set(name, static_cast<double>(v));
      }
      return;
    }
    totals_exact_ = false;  // from now on: the sum in id order, as Volcano adds them
    total_rebuild();
    return;
  }
  // The node with the highest id joins the Ready ones: adding it last is the sum in id order.
  if (add && last_node) total_allocatable_.add(r);
  else total_rebuild();
}

void ClusterState::total_rebuild() {
  total_allocatable_ = Resource{};
  for (const auto& o : nodes_)
    if (o.ready) total_allocatable_.add(o.allocatable);
}

NodeId ClusterState::add_node(NodeInfo n) {
  if (node_index_.count(n.name)) throw std::invalid_argument("duplicate node name '" + n.name + "'");
  const NodeId reused = take_free(free_.nodes);
  n.id = reused == kNone ? static_cast<NodeId>(nodes_.size()) : reused;
  node_index_.emplace(n.name, n.id);
  // The DaemonSets' pods hold their requests from the start (objects.hpp, daemonset_used).
  n.idle = n.allocatable - n.daemonset_used;
  n.used = n.daemonset_used;
  n.releasing = n.pipelined = Resource{};
  for (const Taint& t : n.taints)
    if (t.effect == TaintEffect::PreferNoSchedule) prefer_no_schedule_taints_ = true;
  n.task_count = 0;
  const NodeId id = n.id;
  if (reused == kNone) {
    nodes_.push_back(std::move(n));
    future_idle_.push_back(nodes_.back().future_idle());
  } else {
    nodes_[id] = std::move(n);
    future_idle_[id] = nodes_[id].future_idle();
  }
  if (nodes_[id].ready) total_change(nodes_[id].allocatable, true, id + 1 == nodes_.size());
  ++generation_;
  ++node_resources_version_;
  return id;
}

void ClusterState::set_node_ready(NodeId id, bool ready) {
  if (id >= nodes_.size()) throw std::out_of_range("set_node_ready: no node " + std::to_string(id));
  NodeInfo& n = nodes_[id];
  if (n.ready == ready) return;
  if (!ready && n.task_count > 0)
    throw std::logic_error("set_node_ready: node '" + n.name + "' still holds " + std::to_string(n.task_count) +
                           " task(s); remove them first");
  n.ready = ready;
  total_change(n.allocatable, ready, id + 1 == nodes_.size());
  ++generation_;
}

void ClusterState::set_node_unschedulable(NodeId id, bool unschedulable) {
  if (id >= nodes_.size()) throw std::out_of_range("set_node_unschedulable: no node " + std::to_string(id));
  if (nodes_[id].unschedulable == unschedulable) return;
  nodes_[id].unschedulable = unschedulable;
  ++generation_;
}

void ClusterState::refresh_job_flags(const JobInfo& j) {
  std::uint8_t f = 0;
  if (j.count(TaskStatus::Pending) > j.pending_best_effort_num) f |= kHasPendingTasks;
  if (!j.tasks.empty() && !j.is_ready()) f |= kNotReadyWithTasks;
  job_flags_[j.id] = f;
}

void ClusterState::list_insert(JobId j) {
  const bool pending = jobs_[j].phase == PodGroupPhase::Pending;
  if (pending) {
    pending_log_.emplace_back(j, PendingChange::Entered);
    if (!jobs_[j].tasks.empty()) ++pending_with_pods_;
  }
  auto& l = lists_[pending ? 0 : 1];
  list_pos_[j] = static_cast<std::uint32_t>(l.size());
  l.push_back(j);
}

void ClusterState::list_erase(JobId j) {
  const bool pending = jobs_[j].phase == PodGroupPhase::Pending;
  if (pending) {
    pending_log_.emplace_back(j, PendingChange::Left);
    if (!jobs_[j].tasks.empty()) --pending_with_pods_;
  }
  auto& l = lists_[pending ? 0 : 1];
  const std::uint32_t pos = list_pos_[j];
  const JobId last = l.back();
  l[pos] = last;
  list_pos_[last] = pos;
  l.pop_back();
}

JobId ClusterState::add_job(JobInfo j) {
  if (j.queue >= queues_.size())
    throw std::invalid_argument("job '" + j.name + "' names queue " + std::to_string(j.queue) +
                                " which does not exist");
  check_min_task_member(j);
  const JobId reused = take_free(free_.jobs);
  j.id = reused == kNone ? static_cast<JobId>(jobs_.size()) : reused;
  j.tasks.clear();
  j.roles.clear();
  j.task_min_available_total = j.roles_short_valid = j.roles_short_ready = j.roles_short_pipelined = 0;
  apply_min_task_member(j, tasks_);
  j.status_count = {};
  j.allocated = j.pending_request = j.pipelined = Resource{};
  j.pending_best_effort_num = 0;
  j.live = true;
  j.podgroup_unset = false;
  const JobId id = j.id;
  if (reused == kNone) {
    jobs_.push_back(std::move(j));
    list_pos_.push_back(0);
    job_flags_.push_back(0);
  } else {
    jobs_[id] = std::move(j);
  }
  list_insert(id);
  refresh_job_flags(jobs_[id]);
  ++queue_jobs_[jobs_[id].queue];
  job_sums_.touch(id);
  ++generation_;
  return id;
}

TaskId ClusterState::add_task(JobId jid, TaskInfo t) {
  JobInfo& j = jobs_[jid];
  const TaskId reused = take_free(free_.tasks);
  t.id = reused == kNone ? static_cast<TaskId>(tasks_.size()) : reused;
  t.job = jid;
  t.status = TaskStatus::Pending;
  t.node = kNone;
  t.best_effort = t.resreq.is_empty();
  t.role_index = kNone;
  if (!t.role.empty() && j.roles.empty()) track_roles(j, tasks_);
  if (!j.roles.empty()) {
    t.role_index = role_slot(j, t.role);
    role_enter(j, t.role_index, TaskStatus::Pending, t.best_effort);
  }
  const TaskId id = t.id;
  if (reused == kNone) tasks_.push_back(std::move(t));
  else tasks_[id] = std::move(t);
  const TaskInfo& tt = tasks_[id];
  if (j.live && j.phase == PodGroupPhase::Pending && j.tasks.empty()) ++pending_with_pods_;
  j.tasks.push_back(tt.id);
  ++j.status_count[static_cast<std::size_t>(TaskStatus::Pending)];
  j.pending_request.add(tt.resreq);
  if (tt.best_effort) ++j.pending_best_effort_num;
  refresh_job_flags(j);
  job_sums_.touch(jid);
  ++generation_;
  return tt.id;
}

void ClusterState::node_add_task(NodeInfo& n, const TaskInfo& t) {
  ++node_resources_version_;
  // Volcano NodeInfo.AddTask (api/node_info.go).
  switch (t.status) {
    case TaskStatus::Releasing:
      n.idle.sub(t.resreq);
      n.releasing.add(t.resreq);
      n.used.add(t.resreq);
      break;
    case TaskStatus::Pipelined:
      n.pipelined.add(t.resreq);
      break;
    default:
      n.idle.sub(t.resreq);
      n.used.add(t.resreq);
      break;
  }
  ++n.task_count;
  future_idle_[n.id] = n.future_idle();
}

void ClusterState::node_remove_task(NodeInfo& n, const TaskInfo& t) {
  ++node_resources_version_;
  // Volcano NodeInfo.RemoveTask.
  switch (t.status) {
    case TaskStatus::Releasing:
      n.releasing.sub(t.resreq);
      n.idle.add(t.resreq);
      n.used.sub(t.resreq);
      break;
    case TaskStatus::Pipelined:
      n.pipelined.sub(t.resreq);
      break;
    default:
      n.idle.add(t.resreq);
      n.used.sub(t.resreq);
      break;
  }
  --n.task_count;
  future_idle_[n.id] = n.future_idle();
}

void ClusterState::apply_task_status_quiet(TaskId tid, TaskStatus status, NodeId node) {
  TaskInfo& t = tasks_[tid];
  JobInfo& j = jobs_[t.job];
  const TaskStatus old = t.status;
  job_sums_.touch(t.job);
  // The version counts of this state (StateVersion pairs them with its lineage).
  if (old == TaskStatus::Running || status == TaskStatus::Running) ++running_version_;
  if (old == TaskStatus::Bound || old == TaskStatus::Running || status == TaskStatus::Bound || status == TaskStatus::Running) {
    ++bound_or_running_version_;
    log_placement(tid);
  }
  if (on_node_status(old) && t.node != kNone) node_remove_task(nodes_[t.node], t);
  // Job counters (Volcano JobInfo.UpdateTaskStatus = deleteTaskIndex + addTaskIndex).
  --j.status_count[static_cast<std::size_t>(old)];
  role_leave(j, t.role_index, old, t.best_effort);
  if (allocated_status(old)) j.allocated.sub(t.resreq);
  if (old == TaskStatus::Pipelined) j.pipelined.sub(t.resreq);
  if (old == TaskStatus::Pending) {
    j.pending_request.sub(t.resreq);
    if (t.best_effort) --j.pending_best_effort_num;
  }
  t.status = status;
  if (on_node_status(status)) {
    if (node == kNone) node = t.node;
    if (node == kNone || node >= nodes_.size())
      throw std::logic_error("task '" + t.name + "' moved to " + to_string(status) + " without a node");
    t.node = node;
    node_add_task(nodes_[node], t);
  } else if (status == TaskStatus::Pending) {
    t.node = kNone;
  }
  ++j.status_count[static_cast<std::size_t>(status)];
  role_enter(j, t.role_index, status, t.best_effort);
  if (allocated_status(status)) j.allocated.add(t.resreq);
  if (status == TaskStatus::Pipelined) j.pipelined.add(t.resreq);
  if (status == TaskStatus::Pending) {
    j.pending_request.add(t.resreq);
    if (t.best_effort) ++j.pending_best_effort_num;
  }
  refresh_job_flags(j);
}

void ClusterState::set_task_status(TaskId t, TaskStatus status, NodeId node) {
  apply_task_status_quiet(t, status, node);
  ++generation_;
}

void ClusterState::set_task_status_within_allocated(TaskId t, TaskStatus status) {
  const TaskStatus old = tasks_[t].status;
  if (!allocated_status(old) || !allocated_status(status))
    throw std::logic_error(std::string("set_task_status_within_allocated: ") + to_string(old) + " -> " +
                           to_string(status) + " leaves the allocated statuses");
  apply_task_status_quiet(t, status, tasks_[t].node);
}

void ClusterState::set_podgroup_phase(JobId jid, PodGroupPhase p) {
  JobInfo& j = jobs_[jid];
  if (j.phase == p) return;
  job_sums_.touch(jid);
  const bool was_pending = j.phase == PodGroupPhase::Pending;
  const bool is_pending = p == PodGroupPhase::Pending;
  if (j.live && was_pending != is_pending) {
    list_erase(jid);
    j.phase = p;
    list_insert(jid);
  } else {
    j.phase = p;
  }
  ++generation_;
}

void ClusterState::remove_task(TaskId tid) {
  TaskInfo& t = tasks_[tid];
  JobInfo& j = jobs_[t.job];
  auto it = std::find(j.tasks.begin(), j.tasks.end(), tid);
  if (it == j.tasks.end()) throw std::logic_error("remove_task: task '" + t.name + "' is not in its job");
  // Leave the node and the job's counters as a move to Unknown would, then drop the task.
  apply_task_status_quiet(tid, TaskStatus::Unknown, kNone);
  --j.status_count[static_cast<std::size_t>(TaskStatus::Unknown)];
  role_leave(j, t.role_index, TaskStatus::Unknown, t.best_effort);
  t.node = kNone;
  j.tasks.erase(it);
  refresh_job_flags(j);
  if (j.live && j.phase == PodGroupPhase::Pending && j.tasks.empty()) --pending_with_pods_;
  if (reuse_ == IdReuse::AfterCycle) removed_.tasks.push_back(tid);
  ++generation_;
}

void ClusterState::unset_podgroup(JobId jid) {
  JobInfo& j = jobs_[jid];
  if (!j.live) return;
  list_erase(jid);
  --queue_jobs_[j.queue];
  job_sums_.touch(jid);
  j.live = false;
  j.podgroup_unset = true;
  log_placement_of_job(j);
  ++generation_;
}

void ClusterState::set_podgroup(JobId jid, const JobInfo& spec) {
  if (jid >= jobs_.size() || !jobs_[jid].podgroup_unset)
    throw std::logic_error("set_podgroup: job " + std::to_string(jid) + " has no unset PodGroup");
  if (spec.queue >= queues_.size())
    throw std::invalid_argument("set_podgroup: job '" + spec.name + "' names queue " + std::to_string(spec.queue) +
                                " which does not exist");
  check_min_task_member(spec);
  JobInfo& j = jobs_[jid];
  j.name = spec.name;
  j.queue = spec.queue;
  j.min_available = spec.min_available;
  j.min_task_member = spec.min_task_member;
  apply_min_task_member(j, tasks_);
  j.priority = spec.priority;
  j.creation = spec.creation;
  j.uid = spec.uid;
  j.phase = spec.phase;
  j.sla_waiting_time = spec.sla_waiting_time;
  j.has_min_resources = spec.has_min_resources;
  j.min_resources = spec.min_resources;
  j.podgroup_unset = false;
  j.live = true;
  refresh_job_flags(j);
  pending_log_.emplace_back(jid, PendingChange::Renewed);  // a new PodGroup: any kept entry is stale
  log_placement_of_job(j);
  list_insert(jid);
  ++queue_jobs_[j.queue];
  job_sums_.touch(jid);
  ++generation_;
}

void ClusterState::remove_job(JobId jid) {
  JobInfo& j = jobs_[jid];
  if (!j.live && !j.podgroup_unset) return;
  if (reuse_ == IdReuse::AfterCycle && !j.tasks.empty())
    throw std::logic_error("remove_job('" + j.name + "'): it still has " + std::to_string(j.tasks.size()) +
                           " task(s); remove them first (its id is to be reused)");
  for (TaskId t : j.tasks)
    if (on_node_status(tasks_[t].status))
      throw std::logic_error("remove_job('" + j.name + "'): task '" + tasks_[t].name +
                             "' still holds resources on a node");
  if (j.live) {  // a job whose PodGroup is unset is out of the lists already
    list_erase(jid);
    --queue_jobs_[j.queue];
    job_sums_.touch(jid);
  }
  j.live = false;
  j.podgroup_unset = false;
  if (reuse_ == IdReuse::AfterCycle) removed_.jobs.push_back(jid);
  ++generation_;
}

void ClusterState::update_node(NodeId id, const NodeInfo& spec) {
  if (!node_live(id)) throw std::out_of_range("update_node: no node " + std::to_string(id));
  NodeInfo& n = nodes_[id];
  if (spec.name != n.name)
    throw std::invalid_argument("update_node: node '" + n.name + "' cannot be renamed to '" + spec.name + "' (the name is its key)");
  // Volcano NodeInfo.SetNode: the spec is replaced and idle recomputed from what the tasks use.
  const Resource tasks_used = n.used - n.daemonset_used;
  if (n.ready) total_change(n.allocatable, false, id + 1 == nodes_.size());
  n.instance_type = spec.instance_type;
  n.labels = spec.labels;
  n.unschedulable = spec.unschedulable;
  n.ready = spec.ready;
  n.taints = spec.taints;
  n.allocatable = spec.allocatable;
  n.capacity = spec.capacity;
  n.daemonset_used = spec.daemonset_used;
  n.used = tasks_used + n.daemonset_used;
  n.idle = n.allocatable - n.used;
  for (const Taint& t : n.taints)
    if (t.effect == TaintEffect::PreferNoSchedule) prefer_no_schedule_taints_ = true;
  if (n.ready) total_change(n.allocatable, true, id + 1 == nodes_.size());
  future_idle_[id] = n.future_idle();
  ++node_resources_version_;
  ++generation_;
}

void ClusterState::remove_node(NodeId id) {
  if (!node_live(id)) throw std::out_of_range("remove_node: no node " + std::to_string(id));
  NodeInfo& n = nodes_[id];
  if (n.task_count > 0)
    throw std::logic_error("remove_node: node '" + n.name + "' still holds " + std::to_string(n.task_count) +
                           " task(s); remove them first");
  if (n.ready) total_change(n.allocatable, false, id + 1 == nodes_.size());
  node_index_.erase(n.name);
  NodeInfo gone;
  gone.id = id;
  gone.ready = false;
  gone.unschedulable = true;
  n = std::move(gone);
  future_idle_[id] = n.future_idle();
  if (reuse_ == IdReuse::AfterCycle) removed_.nodes.push_back(id);
  ++node_resources_version_;
  ++generation_;
}

void ClusterState::change_other_pod_usage(NodeId id, const Resource& request, bool add, bool releasing) {
  if (!node_live(id))
    throw std::out_of_range("change_other_pod_usage: no node " + std::to_string(id));
  NodeInfo& n = nodes_[id];
  if (add) {
    n.daemonset_used.add(request);
    n.used.add(request);
    n.idle.sub(request);
    if (releasing) n.releasing.add(request);
  } else {
    n.daemonset_used.sub(request);
    n.used.sub(request);
    n.idle.add(request);
    if (releasing) n.releasing.sub(request);
  }
  future_idle_[id] = n.future_idle();
  ++node_resources_version_;
  ++generation_;
}

void ClusterState::update_job(JobId jid, const JobInfo& spec) {
  if (jid >= jobs_.size() || !jobs_[jid].live) throw std::out_of_range("update_job: no live job " + std::to_string(jid));
  if (spec.queue >= queues_.size())
    throw std::invalid_argument("update_job: job '" + spec.name + "' names queue " + std::to_string(spec.queue) +
                                " which does not exist");
  check_min_task_member(spec);
  JobInfo& j = jobs_[jid];
  job_sums_.touch(jid);
  // Whatever its phase: a reader may still hold the job's entry from when it was Pending (it left
  // and may come back before the reader looks again), made with the old queue and minResources.
  if (spec.queue != j.queue || spec.has_min_resources != j.has_min_resources || !(spec.min_resources == j.min_resources))
    pending_log_.emplace_back(jid, PendingChange::Renewed);
  if (spec.queue != j.queue) {
    --queue_jobs_[j.queue];
    ++queue_jobs_[spec.queue];
    // The actions keep per-queue lists of running tasks while the same tasks run: a job that
    // moves queue makes them stale.
    ++running_version_;
    ++bound_or_running_version_;
    log_placement_of_job(j);
  }
  j.name = spec.name;
  j.queue = spec.queue;
  j.min_available = spec.min_available;
  if (spec.min_task_member != j.min_task_member) {
    j.min_task_member = spec.min_task_member;
    apply_min_task_member(j, tasks_);
  }
  j.priority = spec.priority;
  j.creation = spec.creation;
  j.uid = spec.uid;
  j.sla_waiting_time = spec.sla_waiting_time;
  j.has_min_resources = spec.has_min_resources;
  j.min_resources = spec.min_resources;
  refresh_job_flags(j);
  ++generation_;
  set_podgroup_phase(jid, spec.phase);
}

void ClusterState::update_task(TaskId tid, const TaskInfo& spec) {
  if (tid >= tasks_.size()) throw std::out_of_range("update_task: no task " + std::to_string(tid));
  TaskInfo& t = tasks_[tid];
  const TaskStatus status = t.status;
  const NodeId node = t.node;
  const bool request_changed = !(spec.resreq == t.resreq);
  const bool role_changed = spec.role != t.role;
  // Off its node and out of its job's and role's sums under the old request and role, back in
  // under the new ones.
  if (request_changed || role_changed) apply_task_status_quiet(tid, TaskStatus::Unknown, kNone);
  if (role_changed) {
    JobInfo& j = jobs_[t.job];
    role_leave(j, t.role_index, TaskStatus::Unknown, t.best_effort);
    t.role = spec.role;
    if (!j.roles.empty()) {
      t.role_index = role_slot(j, t.role);
      role_enter(j, t.role_index, TaskStatus::Unknown, t.best_effort);
    } else if (!t.role.empty()) {
      track_roles(j, tasks_);
    }
  }
  t.name = spec.name;
  t.nominated_node = spec.nominated_node;
  t.index = spec.index;
  t.resreq = spec.resreq;
  t.priority = spec.priority;
  t.creation = spec.creation;
  t.uid = spec.uid;
  t.node_selector = spec.node_selector;
  t.node_affinity = spec.node_affinity;
  t.tolerations = spec.tolerations;
  t.system_critical = spec.system_critical;
  t.preemptable = spec.preemptable;
  t.preempt_never = spec.preempt_never;
  if (request_changed || role_changed) {
    // best_effort follows the request; the Pending count it feeds is rebuilt by the move back.
    t.best_effort = t.resreq.is_empty();
    apply_task_status_quiet(tid, status, node);
  }
  // A victim list kept while the same tasks run holds the task's preemptable flag and request.
  ++running_version_;
  ++bound_or_running_version_;
  log_placement(tid);
  job_sums_.touch(t.job);
  ++generation_;
}

void ClusterState::update_queue(QueueId q, const QueueInfo& spec) {
  if (q >= queues_.size()) throw std::out_of_range("update_queue: no queue " + std::to_string(q));
  QueueInfo next = spec;
  next.id = q;
  queues_[q] = std::move(next);
  ++generation_;
}

void ClusterState::remove_queue(QueueId q) {
  if (q >= queues_.size()) throw std::out_of_range("remove_queue: no queue " + std::to_string(q));
  if (queue_jobs_[q] > 0)
    throw std::logic_error("remove_queue: queue '" + queues_[q].name + "' still has " + std::to_string(queue_jobs_[q]) +
                           " job(s)");
  QueueInfo gone;
  gone.id = q;
  gone.weight = 0;
  gone.state = QueueState::Closed;
  gone.reclaimable = false;
  queues_[q] = std::move(gone);
  if (reuse_ == IdReuse::AfterCycle) removed_.queues.push_back(q);
  ++generation_;
}

void ClusterState::log_placement(TaskId t) {
  if (placement_log_.size() >= (std::size_t{1} << 20)) {  // nobody trims: readers start again
    placement_log_base_ += placement_log_.size();
    placement_log_.clear();
  }
  placement_log_.push_back(t);
}

void ClusterState::log_placement_of_job(const JobInfo& j) {
  for (TaskId t : j.tasks) log_placement(t);
}

void ClusterState::trim_placement_log(std::uint64_t up_to) {
  if (up_to <= placement_log_base_) return;
  const std::uint64_t n = std::min<std::uint64_t>(up_to - placement_log_base_, placement_log_.size());
  placement_log_.erase(placement_log_.begin(), placement_log_.begin() + static_cast<std::ptrdiff_t>(n));
  placement_log_base_ += n;
}

void ClusterState::trim_pending_log(std::uint64_t up_to) {
  if (up_to <= pending_log_base_) return;
  const std::uint64_t n = std::min<std::uint64_t>(up_to - pending_log_base_, pending_log_.size());
  pending_log_.erase(pending_log_.begin(), pending_log_.begin() + static_cast<std::ptrdiff_t>(n));
  pending_log_base_ += n;
}

ReleasedIds ClusterState::release_removed() {
  ReleasedIds out = std::move(removed_);
  removed_ = {};
  give_free(free_.jobs, out.jobs);
  give_free(free_.tasks, out.tasks);
  give_free(free_.nodes, out.nodes);
  give_free(free_.queues, out.queues);
  // A freed task's record keeps nothing alive (its strings and vectors).
  for (TaskId t : out.tasks) {
    TaskInfo blank;
    blank.id = t;
    blank.status = TaskStatus::Unknown;
    tasks_[t] = std::move(blank);
  }
  for (JobId j : out.jobs) {
    JobInfo blank;
    blank.id = j;
    blank.live = false;
    jobs_[j] = std::move(blank);
    refresh_job_flags(jobs_[j]);
  }
  return out;
}

Resource ClusterState::total_used() const {
  Resource r;
  for (const auto& n : nodes_)
    if (n.ready) r.add(n.used);
  return r;
}

std::string ClusterState::check_invariants() const {
  std::vector<Resource> used(nodes_.size()), pipelined(nodes_.size()), releasing(nodes_.size());
  for (const auto& n : nodes_) used[n.id] = n.daemonset_used;
  for (const auto& t : tasks_) {
    if (!on_node_status(t.status)) continue;
    if (t.node == kNone) return "task '" + t.name + "' is " + to_string(t.status) + " without a node";
    if (t.status == TaskStatus::Pipelined) {
      pipelined[t.node].add(t.resreq);
    } else {
      used[t.node].add(t.resreq);
      if (t.status == TaskStatus::Releasing) releasing[t.node].add(t.resreq);
    }
  }
  // Aggregates are sums of the same whole numbers: compared per resource with a tolerance.
  auto drifted = [](const Resource& a, const Resource& b) {
    bool bad = false;
    auto cmp = [&](double x, double y) { bad = bad || std::fabs(x - y) > 1e-6 * (1 + std::fabs(x)); };
    cmp(a.milli_cpu, b.milli_cpu);
    cmp(a.memory, b.memory);
    for (const auto& e : a.scalars) cmp(e.value, b.scalars.get(e.name));
    for (const auto& e : b.scalars) cmp(e.value, a.scalars.get(e.name));
    return bad;
  };
  for (const auto& n : nodes_) {
    if (drifted(used[n.id], n.used)) return "node '" + n.name + "': used aggregate drifted from its tasks";
    if (drifted(n.idle + n.used, n.allocatable)) return "node '" + n.name + "': idle + used != allocatable";
    if (!(future_idle_[n.id] == n.future_idle())) return "node '" + n.name + "': kept FutureIdle differs from idle + releasing - pipelined";
    if (!n.used.less_equal(n.allocatable))
      return "node '" + n.name + "' is over-allocated: used {" + n.used.to_string() +
             "} > allocatable {" + n.allocatable.to_string() + "}";
  }
  Resource total;
  for (const auto& n : nodes_)
    if (n.ready) total.add(n.allocatable);
  if (drifted(total, total_allocatable_)) return "total allocatable drifted from the ready nodes' sum";
  for (const auto& j : jobs_) {
    Resource alloc;
    std::array<std::int32_t, kTaskStatusCount> cnt{};
    for (TaskId t : j.tasks) {
      ++cnt[static_cast<std::size_t>(tasks_[t].status)];
      if (allocated_status(tasks_[t].status)) alloc.add(tasks_[t].resreq);
    }
    if (cnt != j.status_count) return "job '" + j.name + "': task status counts drifted";
    if (has_pending_tasks(j.id) != (j.count(TaskStatus::Pending) > j.pending_best_effort_num) ||
        not_ready_with_tasks(j.id) != (!j.tasks.empty() && !j.is_ready()))
      return "job '" + j.name + "': kept flags (has_pending_tasks, not_ready_with_tasks) drifted";
    if (drifted(alloc, j.allocated)) return "job '" + j.name + "': allocated aggregate drifted";
    if (j.roles.empty()) {
      if (!j.min_task_member.empty()) return "job '" + j.name + "': minTaskMember is set but its roles are not counted";
      for (TaskId t : j.tasks)
        if (!tasks_[t].role.empty() || tasks_[t].role_index != kNone)
          return "job '" + j.name + "': task '" + tasks_[t].name + "' has a role its job does not count";
      continue;
    }
    std::vector<JobRole> roles(j.roles.size());
    for (TaskId t : j.tasks) {
      const TaskInfo& task = tasks_[t];
      if (task.role_index >= j.roles.size() || j.roles[task.role_index].name != task.role)
        return "job '" + j.name + "': task '" + task.name + "' points to another role than its own";
      JobRole& r = roles[task.role_index];
      ++r.status_count[static_cast<std::size_t>(task.status)];
      if (task.status == TaskStatus::Pending && task.best_effort) ++r.pending_best_effort_num;
    }
    JobInfo shorts;
    for (std::size_t i = 0; i < roles.size(); ++i) {
      if (roles[i].status_count != j.roles[i].status_count ||
          roles[i].pending_best_effort_num != j.roles[i].pending_best_effort_num)
        return "job '" + j.name + "': role '" + j.roles[i].name + "' counts drifted";
      roles[i].min_member = j.roles[i].min_member;
      count_short(shorts, roles[i], +1);
    }
    if (shorts.roles_short_valid != j.roles_short_valid || shorts.roles_short_ready != j.roles_short_ready ||
        shorts.roles_short_pipelined != j.roles_short_pipelined)
      return "job '" + j.name + "': the count of roles short of their minTaskMember drifted";
  }
  if (const QueueJobSums* kept = queue_job_sums()) {
    const auto scratch = QueueJobSums::from_scratch(*this);
    Resource inqueue_all;
    for (std::size_t q = 0; q < queues_.size(); ++q) {
      const QueueJobSums::Sums& k = kept->queue(static_cast<QueueId>(q));
      const QueueJobSums::Sums& f = scratch[q];
      if (!(k.allocated == f.allocated && k.request == f.request && k.inqueue == f.inqueue && k.elastic == f.elastic))
        return "queue '" + queues_[q].name + "': the kept job sums differ from the jobs' (allocated {" +
               k.allocated.to_string() + "} vs {" + f.allocated.to_string() + "})";
      inqueue_all.add(f.inqueue);
    }
    if (!(kept->inqueue_all() == inqueue_all)) return "the kept inqueue sum over all queues differs from the jobs'";
  }
  return {};
}

}  // namespace mltwin::policy
