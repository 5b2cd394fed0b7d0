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
/// An action keeps one as a member and rebuilds it every session (build), so that its heaps
/// keep their storage from one session to the next.
struct QueueJobOrder {
  QueuePQ queues{QueueLess{nullptr}};
  std::vector<JobPQ> jobs;

  /// Empties every heap, takes this session's orders, and fills them: `keep` is asked about
  /// each active job in the state's order, and each heap is built once, from its elements in
  /// that order (so the heaps are the same as when built from fresh vectors).
  template <class Keep>
  void build(const Session& ssn, Keep&& keep) {
    build(ssn, [](JobId) { return true; }, keep);
  }
  /// The same, passing over the jobs `pass` (a JobId -> bool) rejects without asking `keep`
  /// (a test on what the state keeps per job id, cheaper than opening the JobInfo).
  template <class Pass, class Keep>
  void build(const Session& ssn, Pass&& pass, Keep&& keep) {
    const ClusterState& st = ssn.state();
    const std::size_t nq = st.queues().size();
    queues.reset(QueueLess{&ssn});
    if (jobs.size() > nq) jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(nq), jobs.end());
    for (JobPQ& pq : jobs) pq.reset(JobLess{&ssn});
    jobs.resize(nq, JobPQ(JobLess{&ssn}));
    for (JobId jid : st.active_jobs()) {
      if (!pass(jid)) continue;
      const JobInfo& j = st.job(jid);
      if (!keep(j)) continue;
      if (jobs[j.queue].empty()) queues.push_unordered(j.queue);
      jobs[j.queue].push_unordered(jid);
    }
    queues.heapify();
    for (JobPQ& pq : jobs)
      if (!pq.empty()) pq.heapify();
  }
};

/// Which of a job's Pending tasks pending_tasks_into takes.
enum class PendingTasks : std::uint8_t {
  NotBestEffort,  ///< allocate's (BestEffort pods are backfill's)
  BestEffort,     ///< backfill's
  All,            ///< preempt's and reclaim's: Volcano's TaskStatusIndex[Pending], BestEffort ones included
};

/// A job's Pending tasks of the kind `which`, in task order, into `pq` (emptied first, keeping
/// its storage).
inline void pending_tasks_into(const Session& ssn, JobId jid, PendingTasks which, TaskPQ& pq) {
  const ClusterState& st = ssn.state();
  pq.reset(TaskLess{&ssn});
  for (TaskId t : st.job(jid).tasks) {
    const TaskInfo& tt = st.task(t);
    if (tt.status == TaskStatus::Pending &&
        (which == PendingTasks::All || tt.best_effort == (which == PendingTasks::BestEffort)))
      pq.push_unordered(t);
  }
  pq.heapify();
}

}  // namespace mltwin::policy::detail
