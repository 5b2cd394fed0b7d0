// Internal: the built-in plugins and actions, and helpers they share.
#pragma once
#include <algorithm>
#include <map>
#include <vector>
#include <memory>
#include <string>

#include "mltwin/policy/session.hpp"

namespace mltwin::policy::detail {

void register_builtins(std::map<std::string, PluginFactory>& plugins,
                       std::map<std::string, ActionFactory>& actions);

std::unique_ptr<Plugin> make_priority(const Arguments&);
std::unique_ptr<Plugin> make_gang(const Arguments&);
std::unique_ptr<Plugin> make_conformance(const Arguments&);
std::unique_ptr<Plugin> make_drf(const Arguments&);
std::unique_ptr<Plugin> make_proportion(const Arguments&);
std::unique_ptr<Plugin> make_capacity(const Arguments&);
std::unique_ptr<Plugin> make_predicates(const Arguments&);
std::unique_ptr<Plugin> make_nodeorder(const Arguments&);
std::unique_ptr<Plugin> make_overcommit(const Arguments&);
std::unique_ptr<Plugin> make_binpack(const Arguments&);
std::unique_ptr<Plugin> make_sla(const Arguments&);
std::unique_ptr<Action> make_enqueue(const Arguments&);
std::unique_ptr<Action> make_allocate(const Arguments&);
std::unique_ptr<Action> make_backfill(const Arguments&);
std::unique_ptr<Action> make_preempt(const Arguments&);
std::unique_ptr<Action> make_reclaim(const Arguments&);

/// Volcano's util.PriorityQueue over a less-than function, as a binary heap; pops in the
/// comparator's order. All comparators used with it are strict total orders (they end in a
/// UID tiebreak), so the pop sequence does not depend on insertion order.
template <class T, class Less>
class PriorityQueue {
 public:
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}
  void push(T x) {
    v_.push_back(std::move(x));
    std::push_heap(v_.begin(), v_.end(), greater());
  }
  /// Add many, then heapify once (O(n)).
  void assign(std::vector<T> xs) {
    v_ = std::move(xs);
    std::make_heap(v_.begin(), v_.end(), greater());
  }
  T pop() {
    std::pop_heap(v_.begin(), v_.end(), greater());
    T x = std::move(v_.back());
    v_.pop_back();
    return x;
  }
  /// Empty it and take a new comparator, keeping the storage (for scratch queues reused from
  /// one session to the next).
  void reset(Less less) {
    less_ = std::move(less);
    v_.clear();
  }
  /// Add many without ordering them, then heapify() once.
  void push_unordered(T x) { v_.push_back(std::move(x)); }
  void heapify() { std::make_heap(v_.begin(), v_.end(), greater()); }
  const T& top() const { return v_.front(); }
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }

 private:
  auto greater() const {
    return [this](const T& a, const T& b) { return less_(b, a); };
  }
  Less less_;
  std::vector<T> v_;
};

/// The session's orders as comparators for PriorityQueue (true: the left one goes first).
struct JobLess {
  const Session* ssn;
  bool operator()(JobId a, JobId b) const { return ssn->job_order(ssn->state().job(a), ssn->state().job(b)); }
};
struct QueueLess {
  const Session* ssn;
  bool operator()(QueueId a, QueueId b) const { return ssn->queue_order(ssn->state().queue(a), ssn->state().queue(b)); }
};
struct TaskLess {
  const Session* ssn;
  bool operator()(TaskId a, TaskId b) const { return ssn->task_order(ssn->state().task(a), ssn->state().task(b)); }
};
using QueuePQ = PriorityQueue<QueueId, QueueLess>;
using JobPQ = PriorityQueue<JobId, JobLess>;
using TaskPQ = PriorityQueue<TaskId, TaskLess>;

/// What allocate and backfill start from (Volcano builds it in both): the active jobs that
/// `keep` selects, grouped by queue — a priority queue of the queues that have some, and per
/// queue (indexed by queue id) a priority queue of its jobs; the other queues' are empty.
struct QueueJobOrder {
  QueuePQ queues;
  std::vector<JobPQ> jobs;

  template <class Keep>
  QueueJobOrder(const Session& ssn, Keep&& keep)
      : queues(QueueLess{&ssn}), jobs(ssn.state().queues().size(), JobPQ(JobLess{&ssn})) {
    const ClusterState& st = ssn.state();
    std::vector<std::vector<JobId>> per_queue(jobs.size());
    std::vector<QueueId> with_jobs;
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (!keep(j)) continue;
      if (per_queue[j.queue].empty()) with_jobs.push_back(j.queue);
      per_queue[j.queue].push_back(jid);
    }
    queues.assign(std::move(with_jobs));
    for (std::size_t q = 0; q < jobs.size(); ++q)
      if (!per_queue[q].empty()) jobs[q].assign(std::move(per_queue[q]));
  }
};

/// A job's Pending tasks, BestEffort ones (backfill) or the others (allocate), in task order.
inline TaskPQ pending_tasks(const Session& ssn, JobId jid, bool best_effort) {
  const ClusterState& st = ssn.state();
  std::vector<TaskId> v;
  for (TaskId t : st.job(jid).tasks) {
    const TaskInfo& tt = st.task(t);
    if (tt.status == TaskStatus::Pending && tt.best_effort == best_effort) v.push_back(t);
  }
  TaskPQ pq(TaskLess{&ssn});
  pq.assign(std::move(v));
  return pq;
}

}  // namespace mltwin::policy::detail
