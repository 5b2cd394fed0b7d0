#include "mltwin/policy/cluster_state.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mltwin::policy {


QueueId ClusterState::add_queue(QueueInfo q) {
  q.id = static_cast<QueueId>(queues_.size());
  queues_.push_back(std::move(q));
  queue_jobs_.push_back(0);
  ++generation_;
  return queues_.back().id;
}

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
  const auto [slot, fresh] = node_index_.emplace(n.name, static_cast<NodeId>(nodes_.size()));
  if (!fresh) throw std::invalid_argument("duplicate node name '" + n.name + "'");
  n.id = static_cast<NodeId>(nodes_.size());
  // The DaemonSets' pods hold their requests from the start (objects.hpp, daemonset_used).
  n.idle = n.allocatable - n.daemonset_used;
  n.used = n.daemonset_used;
  n.releasing = n.pipelined = Resource{};
  for (const Taint& t : n.taints)
    if (t.effect == TaintEffect::PreferNoSchedule) prefer_no_schedule_taints_ = true;
  n.task_count = 0;
  nodes_.push_back(std::move(n));
  future_idle_.push_back(nodes_.back().future_idle());
  if (nodes_.back().ready) total_change(nodes_.back().allocatable, true, true);
  ++generation_;
  ++node_resources_version_;
  return nodes_.back().id;
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

void ClusterState::list_insert(JobId j) {
  const bool pending = jobs_[j].phase == PodGroupPhase::Pending;
  if (pending) {
    pending_log_.emplace_back(j, true);
    if (!jobs_[j].tasks.empty()) ++pending_with_pods_;
  }
  auto& l = lists_[pending ? 0 : 1];
  list_pos_[j] = static_cast<std::uint32_t>(l.size());
  l.push_back(j);
}

void ClusterState::list_erase(JobId j) {
  const bool pending = jobs_[j].phase == PodGroupPhase::Pending;
  if (pending) {
    pending_log_.emplace_back(j, false);
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
  j.id = static_cast<JobId>(jobs_.size());
  j.tasks.clear();
  j.status_count = {};
  j.allocated = j.pending_request = j.pipelined = Resource{};
  j.pending_best_effort_num = 0;
  j.live = true;
  jobs_.push_back(std::move(j));
  list_pos_.push_back(0);
  list_insert(jobs_.back().id);
  ++queue_jobs_[jobs_.back().queue];
  job_sums_.touch(jobs_.back().id);
  ++generation_;
  return jobs_.back().id;
}

TaskId ClusterState::add_task(JobId jid, TaskInfo t) {
  JobInfo& j = jobs_[jid];
  t.id = static_cast<TaskId>(tasks_.size());
  t.job = jid;
  t.status = TaskStatus::Pending;
  t.node = kNone;
  t.best_effort = t.resreq.is_empty();
  tasks_.push_back(std::move(t));
  const TaskInfo& tt = tasks_.back();
  if (j.live && j.phase == PodGroupPhase::Pending && j.tasks.empty()) ++pending_with_pods_;
  j.tasks.push_back(tt.id);
  ++j.status_count[static_cast<std::size_t>(TaskStatus::Pending)];
  j.pending_request.add(tt.resreq);
  if (tt.best_effort) ++j.pending_best_effort_num;
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
  if (old == TaskStatus::Bound || old == TaskStatus::Running || status == TaskStatus::Bound || status == TaskStatus::Running)
    ++bound_or_running_version_;
  if (on_node_status(old) && t.node != kNone) node_remove_task(nodes_[t.node], t);
  // Job counters (Volcano JobInfo.UpdateTaskStatus = deleteTaskIndex + addTaskIndex).
  --j.status_count[static_cast<std::size_t>(old)];
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
  if (allocated_status(status)) j.allocated.add(t.resreq);
  if (status == TaskStatus::Pipelined) j.pipelined.add(t.resreq);
  if (status == TaskStatus::Pending) {
    j.pending_request.add(t.resreq);
    if (t.best_effort) ++j.pending_best_effort_num;
  }
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
  t.node = kNone;
  j.tasks.erase(it);
  if (j.live && j.phase == PodGroupPhase::Pending && j.tasks.empty()) --pending_with_pods_;
  ++generation_;
}

void ClusterState::remove_job(JobId jid) {
  JobInfo& j = jobs_[jid];
  if (!j.live) return;
  for (TaskId t : j.tasks)
    if (on_node_status(tasks_[t].status))
      throw std::logic_error("remove_job('" + j.name + "'): task '" + tasks_[t].name +
                             "' still holds resources on a node");
  list_erase(jid);
  --queue_jobs_[j.queue];
  job_sums_.touch(jid);
  j.live = false;
  ++generation_;
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
    if (drifted(alloc, j.allocated)) return "job '" + j.name + "': allocated aggregate drifted";
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
