// Internal: the built-in plugins and actions, and helpers they share.
#pragma once
#include <algorithm>
#include <map>
#include <vector>
#include <memory>
#include <string>

#include "mltwin/policy/registry.hpp"
#include "mltwin/policy/session.hpp"
#include "ordering.hpp"

namespace mltwin::policy::detail {

/// The built-in plugins (with the arguments each reads) and actions, as registry entries.
void register_builtins(std::map<std::string, Registry<Plugin>::Entry>& plugins,
                       std::map<std::string, Registry<Action>::Entry>& actions);

/// The arguments each built-in plugin reads (Volcano v1.12.1; the others read none).
std::vector<ArgSpec> nodeorder_arguments();
std::vector<ArgSpec> predicates_arguments();
std::vector<ArgSpec> binpack_arguments();
std::vector<ArgSpec> overcommit_arguments();
std::vector<ArgSpec> sla_arguments();

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

/// The session's orders as comparators for PriorityQueue and sort_checked (true: the left one
/// goes first); violated(first, second) raises the session's error naming the plugin at fault.
struct JobLess {
  const Session* ssn;
  bool operator()(JobId a, JobId b) const { return ssn->job_order(ssn->state().job(a), ssn->state().job(b)); }
  [[noreturn]] void violated(JobId first, JobId second) const {
    ssn->job_order_violated(ssn->state().job(first), ssn->state().job(second));
  }
};
struct QueueLess {
  const Session* ssn;
  bool operator()(QueueId a, QueueId b) const {
    return ssn->queue_order_noting_ties(ssn->state().queue(a), ssn->state().queue(b));
  }
  [[noreturn]] void violated(QueueId first, QueueId second) const {
    ssn->queue_order_violated(ssn->state().queue(first), ssn->state().queue(second));
  }
};
struct TaskLess {
  const Session* ssn;
  bool operator()(TaskId a, TaskId b) const { return ssn->task_order(ssn->state().task(a), ssn->state().task(b)); }
  [[noreturn]] void violated(TaskId first, TaskId second) const {
    ssn->task_order_violated(ssn->state().task(first), ssn->state().task(second));
  }
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
