// allocate action — Volcano v1.12.1 pkg/scheduler/actions/allocate/allocate.go (the
// non-topology path).
//
// 1. Jobs whose PodGroup is Inqueue or later and valid (JobValid) go into per-queue job orders.
// 2. Repeatedly take the first queue in queue order; skip it for the rest of the action if
//    overused; take its first job; build the job's pending (non-BestEffort) tasks in task
//    order, once per action.
// 3. For each task: the queue must be Allocatable for it; nodes pass if the task fits the
//    node's future-idle resources (checked here, "Insufficient <first short resource>") and every plugin
//    predicate; with no node, record the fit errors and — when minAvailable equals the task
//    count, as for TorchX jobs — stop trying this job. Candidates split in two gradients: nodes
//    whose idle resources fit, then nodes that fit only once releasing resources are freed; in
//    the first non-empty gradient the best-scored node wins, ties broken uniformly at random
//    (Volcano util.SelectBestNodeAndScore uses rand.Intn). Allocate on idle, else pipeline.
//    A pod nominated to a node by an earlier preempt (TaskInfo::nominated_node) is allocated
//    there first when it fits the node's idle resources and passes its predicates.
//    Stop early once the job is ready if tasks remain (elastic jobs).
// 4. A ready job's statement commits (binds); a not-ready job's statement is discarded unless
//    the job is pipelined (JobPipelined votes), in which case its allocations and reservations
//    stay in the session until it closes: later jobs of the cycle cannot take those resources.
//    A job with tasks left goes back into its queue's order; the queue goes back after every
//    job, so its order reflects the new allocation.
#include <array>
#include <deque>
#include <span>
#include <unordered_map>

#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
// Volcano allocate.go predicate(): InitResreq.LessEqualWithResourcesName(FutureIdle,
// Zero) lists every insufficient resource (api/resource_info.go: cpu, memory, then the
// scalar resources), but api/unschedule_info.go WrapInsufficientResourceReason reports
// only the first: "Insufficient " + resources[0]. So each node contributes one reason.
// Go ranges over the scalar-resource map in random order, so when two scalars fall short (and
// cpu and memory fit) Volcano names either; mltwin names the one with the lower name id
// (the well-known names in the order of resource.hpp's rn::, then others as first seen).
const std::string& insufficient_reason(ResourceName name) {
  static thread_local std::vector<std::string> reasons;
  if (reasons.size() <= name.id()) reasons.resize(name.id() + 1u);
  std::string& r = reasons[name.id()];
  if (r.empty()) r = "Insufficient " + std::string(name.str());
  return r;
}

class Allocate final : public Action {
 public:
  std::string_view name() const override { return "allocate"; }

  void execute(Session& ssn) override {
    ClusterState& st = ssn.state();
    short_memos_.clear();  // versions count within one state
    if (cannot_take_.size() > 4096) cannot_take_.clear();  // views of it died with their sessions
    const bool enqueue_enabled = [&] {
      for (const auto& a : ssn.config().actions)
        if (a == "enqueue") return true;
      return false;
    }();
    if (!enqueue_enabled) {
      // Without the enqueue action, Pending PodGroups go straight to Inqueue.
      const auto pending = st.pending_jobs();
      for (JobId j : pending) ssn.set_phase(j, PodGroupPhase::Inqueue);
    }
    QueueJobOrder& order = order_;
    // A job with no pending (non-BestEffort) pod would be popped and put aside without any
    // effect on the queue or the cluster; leaving it out changes no decision.
    order.build(ssn, [&st](JobId j) { return st.has_pending_tasks(j); }, [&ssn](const JobInfo& j) {
      if (j.phase == PodGroupPhase::Pending) return false;
      if (ValidateResult vr = ssn.job_valid(j); !vr.pass) {
        if (!j.tasks.empty()) ssn.set_job_reason(j.id, Status::unschedulable("gang", vr.message));
        return false;
      }
      return true;
    });
    QueuePQ& queues = order.queues;
    // pendingTasks: built the first time a job is popped (BestEffort ones are backfill's), kept
    // for the rest of the action, in slots whose storage is kept from one session to the next
    // (a deque: references to a slot stay valid as others are added).
    if (slot_of_.size() < st.jobs().size()) slot_of_.resize(st.jobs().size(), 0);
    for (JobId j : slotted_) slot_of_[j] = 0;
    slotted_.clear();
    auto tasks_of = [&](JobId jid) -> TaskPQ& {
      if (slot_of_[jid] != 0) return task_slots_[slot_of_[jid] - 1];
      if (slotted_.size() == task_slots_.size()) task_slots_.emplace_back(TaskLess{&ssn});
      TaskPQ& pq = task_slots_[slotted_.size()];
      pending_tasks_into(ssn, jid, PendingTasks::NotBestEffort, pq);
      slotted_.push_back(jid);
      slot_of_[jid] = static_cast<std::uint32_t>(slotted_.size());
      return pq;
    };

    while (!queues.empty()) {
      const QueueId q = queues.pop();
      JobPQ& jobs = order.jobs[q];
      std::string_view by;
      if (ssn.overused(st.queue(q), &by)) {
        note_overused(ssn, st, jobs, q, by);
        continue;
      }
      if (jobs.empty()) continue;
      // The first job is taken and, if tasks remain, goes back: it stays at the top while it
      // is handled and is then moved down as far as its new place (replace_top), the same
      // order as popping and pushing it again.
      const JobId jid = jobs.top();
      TaskPQ& tasks = tasks_of(jid);
      if (tasks.empty()) {
        jobs.pop();
        queues.push(q);
        continue;
      }
      allocate_job(ssn, st, jid, q, tasks);
      if (!tasks.empty()) jobs.replace_top(jid);
      else jobs.pop();
      queues.push(q);
    }
  }

 private:
  static void note_overused(Session& ssn, const ClusterState& st, JobPQ& jobs, QueueId q, std::string_view by) {
    // Every job still waiting in this queue is held back by the queue's share.
    std::string_view why;
    while (!jobs.empty()) {
      const JobId jid = jobs.pop();
      const JobInfo& j = st.job(jid);
      if (j.count(TaskStatus::Pending) > 0 && !j.is_ready()) {
        if (why.empty()) why = ssn.keep("queue '" + st.queue(q).name + "' is overused (allocated >= deserved)");
        ssn.set_job_reason(jid, Verdict{Code::Unschedulable, by, why});
      }
    }
  }

  /// "queue 'q' cannot take task 't' within its deserved share": the text is fixed per task, so
  /// it is written once and kept (the cache is dropped between sessions once it grows large;
  /// the views handed out live until the end of the session that got them).
  std::string_view cannot_take(const ClusterState& st, QueueId q, const TaskInfo& task) {
    auto [it, added] = cannot_take_.try_emplace(task.id);
    // An id may name another task by now (IdReuse::AfterCycle): the text is kept with the uid it
    // was written for.
    if (added || it->second.uid != task.uid || it->second.queue != q) {
      it->second.text = "queue '" + st.queue(q).name + "' cannot take task '" + task.name + "' within its deserved share";
      it->second.uid = task.uid;
      it->second.queue = q;
    }
    return it->second.text;
  }

  void allocate_job(Session& ssn, ClusterState& st, JobId jid, QueueId q, TaskPQ& tasks) {
    const JobInfo& job = st.job(jid);
    Statement stmt(ssn);
    const auto& nodes = st.nodes();
    while (!tasks.empty()) {
      const TaskId tid = tasks.pop();
      const TaskInfo& task = st.task(tid);
      std::string_view by;
      if (!ssn.allocatable(st.queue(q), task, &by)) {
        ssn.set_job_reason(jid, Verdict{Code::Unschedulable, by, cannot_take(st, q, task)});
        continue;
      }
      // A task of the same role found no node in this session: skip (allocate.go:370-374).
      if (ssn.task_has_fit_errors(task)) continue;
      // A pod an earlier session's preempt nominated to a node (status.nominatedNodeName) tries
      // that node alone first, when its idle resources fit and the predicates pass: the only
      // candidate, so it is allocated there without scoring (allocate.go:391-397, then
      // prioritizeNodes' single-node case :529-530). Otherwise every node, as below.
      if (!task.nominated_node.empty()) {
        const NodeId nn = st.find_node(task.nominated_node);
        if (nn != kNone && st.node(nn).ready && task.resreq.less_equal(st.node(nn).idle) && ssn.predicate(task, st.node(nn)).ok()) {
          stmt.allocate(tid, nn);
          if (ssn.job_ready(job) && !tasks.empty()) break;
          continue;
        }
      }
      // Predicate: resource fit against future-idle (here), then the plugins. Nodes short of a
      // resource are counted per dimension and entered in the fit errors once, at the end.
      idle_fit_.clear();
      future_fit_.clear();
      FitErrors* fe = nullptr;
      auto open_fit_errors = [&] {
        if (fe) return;
        fe = &ssn.fit_errors(tid);
        fe->nodes = static_cast<int>(nodes.size());
        fe->count.clear();
      };
      short_of_.clear();
      bool failed = false;
      // Every node fell short of an earlier task's request and no node has changed since: a task
      // with the same request falls short on the same nodes of the same resources (the fit
      // reads nothing else), and no predicate ran for either. A few requests are remembered
      // (jobs of different sizes take turns in the queues).
      const std::uint64_t version = st.node_resources_version();
      if (!short_memos_.empty() && short_memos_.front().version != version) short_memos_.clear();
      const ShortMemo* memo = nullptr;
      for (const ShortMemo& m : short_memos_)
        if (m.request == task.resreq) memo = &m;
      const bool repeat = memo != nullptr;
      if (repeat) {
        short_of_ = memo->short_of;
        failed = !nodes.empty();
      }
      for (const NodeInfo& n : repeat ? std::span<const NodeInfo>{} : std::span<const NodeInfo>(nodes)) {
        if (const auto bad = task.resreq.first_insufficient_of_sum(n.idle, n.releasing, n.pipelined)) {
          auto it = std::find_if(short_of_.begin(), short_of_.end(), [&](const auto& p) { return p.first == *bad; });
          if (it == short_of_.end()) short_of_.emplace_back(*bad, 1);
          else ++it->second;
          failed = true;
          continue;
        }
        if (const Status s = ssn.predicate(task, n); !s.ok()) {
          open_fit_errors();
          fe->add(s.reason);
          failed = true;
          continue;
        }
        if (task.resreq.less_equal(n.idle)) idle_fit_.push_back(n.id);
        else future_fit_.push_back(n.id);
      }
      if (!repeat && idle_fit_.empty() && future_fit_.empty() && fe == nullptr && short_memos_.size() < kShortMemos)  // all short
        short_memos_.push_back(ShortMemo{version, task.resreq, short_of_});
      // Volcano keeps a task's fit errors only when no node passed (job.NodesFitErrors).
      if (failed) {
        if (idle_fit_.empty() && future_fit_.empty()) {
          open_fit_errors();
          std::sort(short_of_.begin(), short_of_.end());
          for (const auto& [name, count] : short_of_) fe->add(insufficient_reason(name), count);
        } else {
          ssn.clear_fit_errors(tid);
        }
      }
      if (idle_fit_.empty() && future_fit_.empty()) {
        ssn.add_fit_failed_role(task);  // job.NodesFitErrors[task.UID] (allocate.go:411)
        if (need_continue_allocating(job, ssn.fit_failed_roles(jid))) continue;
        break;
      }
      const NodeId best = choose(ssn, task, idle_fit_.empty() ? future_fit_ : idle_fit_);
      const NodeInfo& bn = st.node(best);
      if (task.resreq.less_equal(bn.idle)) stmt.allocate(tid, best);
      else if (task.resreq.less_equal(bn.future_idle())) stmt.pipeline(tid, best);
      if (ssn.job_ready(job) && !tasks.empty()) break;
    }
    if (ssn.job_ready(job)) {
      stmt.commit();
      ssn.set_job_reason(jid, Verdict{Code::Success, "allocate", "Scheduled"});
      return;
    }
    const Verdict pipelined = ssn.job_pipelined_vote(job);
    if (!pipelined.ok()) {
      stmt.discard();
      return;
    }
    // A pipelined job keeps what it was given until the session closes. When one plugin's
    // Permit decided that (sla past the job's waiting time) and the job holds something, the
    // job waits for that reason (holding nothing, gang's fit errors say more).
    if (!pipelined.plugin.empty() && !stmt.empty())
      ssn.set_job_reason(jid, Verdict{Code::Unschedulable, pipelined.plugin, pipelined.reason});
    ssn.keep_until_close(std::move(stmt));
  }

  /// Volcano JobInfo.NeedContinueAllocating (api/job_info.go:834-880) after a task found no
  /// node: whether the job's other pending tasks may still make the gang. No, when every task
  /// is needed (minAvailable = task count). When minAvailable is below the sum of minTaskMember,
  /// yes while the ready tasks plus the pending ones of roles that have not failed reach
  /// minAvailable. Otherwise, no when a failed role holds fewer than its minTaskMember.
  static bool need_continue_allocating(const JobInfo& job, const std::vector<std::uint32_t>* failed) {
    if (job.min_available == job.task_num()) return false;
    auto has_failed = [&](std::uint32_t r) { return failed && std::find(failed->begin(), failed->end(), r) != failed->end(); };
    if (job.min_available < job.task_min_available_total) {
      std::int32_t left = 0;
      for (std::uint32_t r = 0; r < job.roles.size(); ++r)
        if (!has_failed(r)) left += job.roles[r].count(TaskStatus::Pending);
      return job.ready_task_num() + left >= job.min_available;
    }
    if (failed)
      for (std::uint32_t r : *failed)
        if (const JobRole& role = job.roles[r]; role.min_member != 0 && role.occupied() < role.min_member) return false;
    return true;
  }

  NodeId choose(Session& ssn, const TaskInfo& task, const std::vector<NodeId>& cands) {
    if (cands.size() == 1) return cands[0];
    // util.PrioritizeNodes over this gradient's nodes (batch scores are normalised within it).
    ssn.prioritize_nodes(task, cands, scores_);
    best_.clear();
    double best_score = -1.0;  // util.SelectBestNodeAndScore starts at -1
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const double s = scores_[i];
      if (s > best_score) {
        best_score = s;
        best_.clear();
      }
      if (s == best_score) best_.push_back(cands[i]);
    }
    if (best_.empty()) return cands[0];
    if (best_.size() == 1) return best_[0];
    return best_[ssn.rng()() % best_.size()];
  }

  /// A resource-fit scan in which every node fell short (this session's state only); all those
  /// kept are of one node_resources_version, the first request's scan first.
  struct ShortMemo {
    std::uint64_t version = 0;  // ClusterState::node_resources_version
    Resource request;
    std::vector<std::pair<ResourceName, int>> short_of;
  };
  static constexpr std::size_t kShortMemos = 16;
  std::vector<ShortMemo> short_memos_;
  QueueJobOrder order_;                // rebuilt every session, its storage kept
  std::deque<TaskPQ> task_slots_;      // [0, slotted_.size()): this session's pending tasks per popped job
  std::vector<JobId> slotted_;         // the jobs given a slot this session, in slot order
  std::vector<std::uint32_t> slot_of_; // job id -> 1 + its slot this session; 0: none
  std::vector<NodeId> idle_fit_, future_fit_, best_;
  std::vector<std::pair<ResourceName, int>> short_of_;  // nodes short of each resource, this task
  std::vector<double> scores_;
  struct CannotTake {
    std::uint64_t uid = 0;
    QueueId queue = kNone;
    std::string text;
  };
  std::unordered_map<TaskId, CannotTake> cannot_take_;
};
}  // namespace
std::unique_ptr<Action> make_allocate(const Arguments&) { return std::make_unique<Allocate>(); }
}  // namespace mltwin::policy::detail
