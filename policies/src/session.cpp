// Session, combination rules and Statement — Volcano v1.12.1
// pkg/scheduler/framework/{framework.go,session.go,session_plugins.go,statement.go}.
#include "mltwin/policy/session.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mltwin::policy {

Session::Session(ClusterState& state, Backend& backend, const SchedulerConfig& cfg,
                 std::mt19937_64& rng, std::uint64_t uid, std::vector<Action*> actions)
    : state_(state), backend_(backend), cfg_(cfg), rng_(rng), uid_(uid), actions_(std::move(actions)) {}

Session::~Session() = default;

void Session::add_event_handler(TaskEventFn on_allocate, TaskEventFn on_deallocate) {
  if (on_allocate) on_allocate_.push_back(std::move(on_allocate));
  if (on_deallocate) on_deallocate_.push_back(std::move(on_deallocate));
}

void Session::open() {
  // OpenSession: plugins are built and opened tier by tier (framework.go).
  for (std::size_t t = 0; t < cfg_.tiers.size(); ++t) {
    for (const auto& opt : cfg_.tiers[t].plugins) {
      plugins_.push_back(make_plugin(opt.name, opt.arguments));
      opening_ = &opt;
      opening_tier_ = static_cast<int>(t);
      plugins_.back()->on_session_open(*this);
    }
  }
  opening_ = nullptr;
}

void Session::run_actions() {
  if (actions_.empty()) {
    static const Arguments kNoArgs;
    for (const auto& name : cfg_.actions) {
      const auto it = cfg_.action_arguments.find(name);
      own_actions_.push_back(make_action(name, it == cfg_.action_arguments.end() ? kNoArgs : it->second));
      actions_.push_back(own_actions_.back().get());
    }
  }
  for (Action* a : actions_) a->execute(*this);
}

void Session::nominate_at_close() {
  // cache.go:1483-1532 RecordJobStatusEvent (v1.12.1), for every job at close: each Allocated,
  // Pending or Pipelined task's TaskSchedulingReason (api/job_info.go:750-785) reads its
  // LastTransaction, else its current context; Pipelined with EvictionOccurred gives the
  // nominated node, which taskUnschedulable writes when it differs (cache.go:986-1000).
  if (last_tx_nominates_.empty() && pipelined_evicting_.empty()) return;
  std::vector<TaskId> cands;
  for (const auto& [t, n] : last_tx_nominates_) cands.push_back(t);
  for (const auto& [t, n] : pipelined_evicting_)
    if (!last_tx_nominates_.count(t)) cands.push_back(t);
  std::sort(cands.begin(), cands.end());  // the backend hears them in task order
  for (TaskId t : cands) {
    TaskInfo& task = state_.task(t);
    if (task.status != TaskStatus::Allocated && task.status != TaskStatus::Pending && task.status != TaskStatus::Pipelined)
      continue;
    NodeId node = kNone;
    if (const auto it = last_tx_nominates_.find(t); it != last_tx_nominates_.end()) node = it->second;
    else if (task.status == TaskStatus::Pipelined) node = pipelined_evicting_[t];
    if (node == kNone || state_.node(node).name.empty() || task.nominated_node == state_.node(node).name) continue;
    task.nominated_node = state_.node(node).name;
    backend_.task_nominated(task, state_.node(node));
  }
  last_tx_nominates_.clear();
  pipelined_evicting_.clear();
}

void Session::close() {
  // Pods nominated to a node by this session's preempt, read before the kept statements are
  // undone (Volcano reads the session's tasks as they are at close).
  nominate_at_close();
  // Uncommitted work is thrown away with the session copy in Volcano; here it is undone. A task
  // a kept statement allocated is still Allocated when Volcano's plugins close: noted as such.
  for (const auto& kept : kept_)
    for (const Statement::Op& op : kept->ops_)
      if (op.kind == Statement::OpKind::Allocate) last_tx_allocated_.insert(op.task);
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) (*it)->undo();
  kept_.clear();
  for (auto& p : plugins_) p->on_session_close(*this);
  // CloseSession -> jobStatus (framework/session.go:348-389, v1.12.1) for every job with pods.
  // Jobs whose PodGroup is Pending have no pods and keep their phase.
  // Gang marks only jobs that are not ready: the (rare) Running ones among them are looked up.
  bool sorted = false;
  auto marked = [&](JobId jid) {
    if (!sorted) std::sort(unschedulable_.begin(), unschedulable_.end()), sorted = true;
    return std::binary_search(unschedulable_.begin(), unschedulable_.end(), jid);
  };
  const auto active = state_.active_jobs();  // copy: phases may move jobs between lists
  for (JobId jid : active) {
    const JobInfo& j = state_.job(jid);
    const std::int32_t allocated = j.allocated_task_num();
    PodGroupPhase phase = j.phase;
    if (j.count(TaskStatus::Running) != 0 && !j.is_ready() && marked(jid)) {
      // :361-363: running tasks, and marked Unschedulable in this session -> Unknown.
      phase = PodGroupPhase::Unknown;
    } else if (allocated >= j.min_available) {
      phase = PodGroupPhase::Running;
      if (j.count(TaskStatus::Succeeded) + j.count(TaskStatus::Failed) == allocated)
        phase = PodGroupPhase::Completed;
    } else if (j.phase != PodGroupPhase::Inqueue) {
      phase = PodGroupPhase::Pending;
    }
    if (phase != j.phase) set_phase(jid, phase);
  }
  for (; phases_told_ < phase_changes_.size(); ++phases_told_) {
    const auto& [jid, before] = phase_changes_[phases_told_];
    const JobInfo& j = state_.job(jid);
    if (j.phase != before) backend_.podgroup_phase_changed(j, before, j.phase);
  }
  // Binds the backend refused: Volcano learns of them in its bind worker, after the session
  // (cache.go:873-906 Bind: taskUnschedulable, resyncTask, v1.12.1), and the next snapshot has
  // the pod Pending.
  for (const FailedBind& f : failed_binds_) {
    if (state_.task(f.task).status != TaskStatus::Binding) continue;
    state_.set_task_status(f.task, TaskStatus::Pending);
    set_job_reason(state_.task(f.task).job, Status::unschedulable("bind", f.why));
    changed_ = true;
  }
  if (!failed_binds_.empty()) state_.bump_generation();
}

void Session::abandon() {
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) (*it)->undo(false);
  kept_.clear();
  for (const FailedBind& f : failed_binds_)
    if (state_.task(f.task).status == TaskStatus::Binding) state_.apply_task_status_quiet(f.task, TaskStatus::Pending, kNone);
  failed_binds_.clear();
  // Phases the backend has not heard go back; a job with pods bound, though, goes back no further
  // than Inqueue (it was placed as Inqueue; close moves on only the jobs past Pending).
  for (std::size_t i = phase_changes_.size(); i-- > phases_told_;) {
    const auto& [jid, before] = phase_changes_[i];
    const bool placed = state_.job(jid).allocated_task_num() != 0;
    state_.set_podgroup_phase(jid, placed && before == PodGroupPhase::Pending ? PodGroupPhase::Inqueue : before);
  }
  phase_changes_.clear();
  phases_told_ = 0;
  phase_seen_.clear();
  last_tx_allocated_.clear();
  last_tx_nominates_.clear();
  pipelined_evicting_.clear();
  state_.bump_generation();
}

// ---------------------------------------------------------------- combination rules

namespace {
// The fallback of session_plugins.go JobOrderFn / QueueOrderFn (v1.12.1 :546-552, :595-601):
// creation time, then `lv.UID < rv.UID`, a Go string comparison (bytewise, as std::string's).
// A job's UID there is its PodGroup's "namespace/name" (cache/event_handlers.go getJobID), a
// queue's its name (api/queue_info.go NewQueueInfo: UID: QueueID(queue.Name)): JobInfo::name
// and QueueInfo::name. The names are compared only on equal creation times; `uid` decides only
// between equal names (objects built without one), so that the order stays total.
template <class Info>
bool fallback_first(const Info& l, const Info& r) {
  if (l.creation != r.creation) return l.creation < r.creation;
  if (const int c = l.name.compare(r.name); c != 0) return c < 0;
  return l.uid < r.uid;
}
}  // namespace

bool Session::job_order(const JobInfo& l, const JobInfo& r) const {
  for (const auto& e : job_order_)
    if (int c = e.fn(l, r); c != 0) return c < 0;
  return fallback_first(l, r);
}

bool Session::queue_order(const QueueInfo& l, const QueueInfo& r) const {
  for (const auto& e : queue_order_)
    if (int c = e.fn(l, r); c != 0) return c < 0;
  return fallback_first(l, r);
}

bool Session::queue_order_noting_ties(const QueueInfo& l, const QueueInfo& r) const {
  for (const auto& e : queue_order_)
    if (int c = e.fn(l, r); c != 0) return c < 0;
  const bool by_uid = l.creation == r.creation;
  const bool l_first = fallback_first(l, r);
  if (l.id != r.id) {
    const std::size_t n = state_.queues().size();
    if (queue_tie_seen_.size() != n * n) queue_tie_seen_.assign(n * n, 0);
    const QueueId w = l_first ? l.id : r.id, s = l_first ? r.id : l.id;
    if (w < n && s < n && !queue_tie_seen_[w * n + s]) {
      queue_tie_seen_[w * n + s] = 1;
      queue_ties_.push_back({w, s, by_uid});
    }
  }
  return l_first;
}

bool Session::victim_queue_order(const QueueInfo& l, const QueueInfo& r, const QueueInfo& p) const {
  // session_plugins.go VictimQueueOrderFn.
  for (const auto& e : victim_queue_order_)
    if (int c = e.fn(l, r, p); c != 0) return c < 0;
  return !queue_order(l, r);
}

bool Session::task_order(const TaskInfo& l, const TaskInfo& r) const {
  for (const auto& e : task_order_)
    if (int c = e.fn(l, r); c != 0) return c < 0;
  // helpers.CompareTask (pkg/controllers/job/helpers/helpers.go): pod index, then creation, UID.
  if (l.index != r.index) return l.index < r.index;
  if (l.creation != r.creation) return l.creation < r.creation;
  return l.uid < r.uid;
}

// ---------------------------------------------------------------- order faults

namespace {
int sign(int c) { return (c > 0) - (c < 0); }

/// The diagnosis behind Session::*_order_violated: `first` was placed before `second`, yet the
/// combined order now puts `second` first. `fns` are the order's entries, `call(fn, x, y)` asks
/// one, `describe(x)` names an object, `what` names the callback.
template <class Entries, class Obj, class Call, class Describe>
[[noreturn]] void order_violated(const char* what, const Entries& fns, const Obj& first, const Obj& second, Call call,
                                 Describe describe) {
  const std::string a = describe(first), b = describe(second);
  const std::string not_swo = std::string("its ") + what + " is not a strict weak order: ";
  // A plugin that answers this pair inconsistently. Asked three times, so that one answering at
  // random is caught even when one round happens to look consistent.
  for (int round = 0; round < 3; ++round) {
    for (const auto& e : fns) {
      const int ab = call(e.fn, first, second), ba = call(e.fn, second, first);
      if (sign(ab) != -sign(ba))
        throw PluginError(e.plugin, what,
                          "plugin '" + e.plugin + "': " + not_swo + "it answered " + std::to_string(ab) + " for (" + a +
                              ", " + b + ") and " + std::to_string(ba) + " for (" + b + ", " + a +
                              ") (a consistent order answers with opposite signs, or 0 both ways)");
      if (const int aa = call(e.fn, first, first); aa != 0)
        throw PluginError(e.plugin, what,
                          "plugin '" + e.plugin + "': " + not_swo + "it answered " + std::to_string(aa) + " for (" + a +
                              ", " + a + ") (nothing goes before itself: 0 expected)");
    }
  }
  for (const auto& e : fns)
    if (call(e.fn, second, first) != 0)
      throw PluginError(e.plugin, what,
                        "plugin '" + e.plugin + "': " + not_swo + a + " was placed before " + b +
                            " by comparisons with other elements, but its answer now puts " + b +
                            " first (the order is not transitive, or its answers changed during one sort)");
  std::string names;
  for (const auto& e : fns) names += (names.empty() ? "'" : ", '") + e.plugin + "'";
  throw PluginError("", what,
                    std::string("the ") + what + "s of plugins " + (names.empty() ? "(none)" : names) +
                        " together are not a strict weak order: " + a + " was placed before " + b +
                        " by comparisons with other elements, but their answers now put " + b + " first");
}

template <class Obj>
int ask2(const std::function<int(const Obj&, const Obj&)>& f, const Obj& x, const Obj& y) {
  return f(x, y);
}
}  // namespace

void Session::job_order_violated(const JobInfo& first, const JobInfo& second) const {
  order_violated("job order function (add_job_order_fn)", job_order_, first, second, ask2<JobInfo>,
                 [](const JobInfo& j) { return "job '" + j.name + "'"; });
}

void Session::queue_order_violated(const QueueInfo& first, const QueueInfo& second) const {
  order_violated("queue order function (add_queue_order_fn)", queue_order_, first, second, ask2<QueueInfo>,
                 [](const QueueInfo& q) { return "queue '" + q.name + "'"; });
}

void Session::task_order_violated(const TaskInfo& first, const TaskInfo& second) const {
  order_violated("task order function (add_task_order_fn)", task_order_, first, second, ask2<TaskInfo>,
                 [](const TaskInfo& t) { return "task '" + t.name + "'"; });
}

void Session::victim_queue_order_violated(const QueueInfo& first, const QueueInfo& second, const QueueInfo& p) const {
  // Without a plugin's answer the victims' queues fall back to the reverse queue order.
  if (victim_queue_order_.empty()) queue_order_violated(second, first);
  order_violated(
      "victim queue order function (add_victim_queue_order_fn)", victim_queue_order_, first, second,
      [&p](const VictimQueueOrderFn& f, const QueueInfo& x, const QueueInfo& y) { return f(x, y, p); },
      [](const QueueInfo& q) { return "queue '" + q.name + "'"; });
}

Status Session::predicate(const TaskInfo& t, const NodeInfo& n) {
  ++stats_.predicate_calls;
  for (const auto& e : predicate_) {
    Status s = e.fn(t, n);
    if (!s.ok()) {
      if (s.plugin.empty()) s.plugin = e.plugin;
      return s;
    }
  }
  return Status::success();
}

namespace {
[[noreturn]] void bad_score(const std::string& plugin, const char* callback, double s, const TaskInfo& t,
                            const NodeInfo& n) {
  std::ostringstream os;
  os << "plugin '" << plugin << "': its " << callback << " scored node '" << n.name << "' for task '" << t.name
     << "' " << s << ": a score must be a finite number";
  throw PluginError(plugin, callback, os.str());
}
}  // namespace

double Session::node_score(const TaskInfo& t, const NodeInfo& n) const {
  double score = 0;
  for (const auto& e : node_order_) {
    const double s = e.fn(t, n);
    if (!std::isfinite(s)) bad_score(e.plugin, "node order function (add_node_order_fn)", s, t, n);
    score += s;
  }
  return score;
}

void Session::prioritize_nodes(const TaskInfo& t, std::span<const NodeId> nodes, std::vector<double>& out) const {
  // util.PrioritizeNodes (util/scheduler_helper.go): the map scores, then the batch scores of
  // every plugin (Session.BatchNodeOrderFn, tier order), summed per node.
  // Volcano sums the batch scores of all plugins first, then adds them to the map score.
  out.assign(nodes.size(), 0.0);
  if (!node_order_.empty())
    for (std::size_t i = 0; i < nodes.size(); ++i) out[i] = node_score(t, state_.node(nodes[i]));
  if (batch_node_order_.empty()) return;
  batch_scratch_.assign(nodes.size(), 0.0);
  for (const auto& e : batch_node_order_) {
    e.fn(t, nodes, std::span<double>(batch_scratch_));
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!std::isfinite(batch_scratch_[i]))
        bad_score(e.plugin, "batch node order function (add_batch_node_order_fn)", batch_scratch_[i], t,
                  state_.node(nodes[i]));
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) out[i] += batch_scratch_[i];
}

ValidateResult Session::job_valid(const JobInfo& j) const {
  for (const auto& e : job_valid_)
    if (ValidateResult r = e.fn(j); !r.pass) return r;
  return {};
}

bool Session::job_ready(const JobInfo& j) const {
  for (const auto& e : job_ready_)
    if (!e.fn(j)) return false;
  return true;
}

namespace {
// Votes: any Reject fails; a tier with a Permit decides; no decision means Permit. A Permit is
// credited to the tier's only permitting plugin, with its reason (if it gave one).
template <class Entries>
Verdict tally(const Entries& entries, const JobInfo& j) {
  int permits = 0;
  Verdict credit;
  auto permitted = [&] {
    return permits == 1 && !credit.reason.empty() ? credit : Verdict{};
  };
  int tier = entries.empty() ? 0 : entries.front().tier;
  for (const auto& e : entries) {
    if (e.tier != tier) {
      if (permits > 0) return permitted();
      tier = e.tier;
    }
    std::string_view reason;
    const int v = e.fn(j, reason);
    if (v < 0) return Verdict{Code::Unschedulable, e.plugin, reason};
    if (v > 0 && ++permits == 1) credit = Verdict{Code::Success, e.plugin, reason};
  }
  return permitted();
}
}  // namespace

bool Session::job_pipelined(const JobInfo& j) const { return tally(job_pipelined_, j).ok(); }

Verdict Session::job_pipelined_vote(const JobInfo& j) const { return tally(job_pipelined_, j); }

bool Session::job_starving(const JobInfo& j) const {
  if (job_starving_.empty()) return false;
  const int tier = job_starving_.front().tier;
  for (const auto& e : job_starving_) {
    if (e.tier != tier) break;
    if (!e.fn(j)) return false;
  }
  return true;
}

Verdict Session::job_enqueueable(const JobInfo& j) const { return tally(job_enqueueable_, j); }

const Session::Memo* Session::find_memo(std::size_t entry, QueueId queue, const Resource& min) const {
  for (const Memo& m : enqueue_memo_) {
    if (m.entry != entry || (m.queue != kNone && m.queue != queue)) continue;
    // At least the rejected job's minResources in every resource it names (a resource it lacks
    // is 0 there, and requests are never negative).
    bool dominates = min.milli_cpu >= m.min.milli_cpu && min.memory >= m.min.memory;
    for (const auto& e : m.min.scalars) dominates = dominates && min.scalars.get(e.name) >= e.value;
    if (dominates) return &m;
  }
  return nullptr;
}

bool Session::enqueue_memo_decides(QueueId queue, const Resource& min, Verdict& out) const {
  // job_enqueueable_memo's walk starts at entry 0: if its memo covers the job, it rejects there.
  if (job_enqueueable_.empty()) return false;
  const Memo* m = find_memo(0, queue, min);
  if (!m) return false;
  out = Verdict{Code::Unschedulable, job_enqueueable_[0].plugin, m->reason};
  return true;
}

Verdict Session::job_enqueueable_memo(JobId jid, QueueId queue, const Resource& min) {
  // tally() with known rejections: walk the plugins in order; a plugin whose memo covers this
  // job rejects it without a call (its monotonicity promise), any other plugin is asked.
  int permits = 0;
  Verdict credit;
  auto permitted = [&] { return permits == 1 && !credit.reason.empty() ? credit : Verdict{}; };
  int tier = job_enqueueable_.empty() ? 0 : job_enqueueable_.front().tier;
  for (std::size_t i = 0; i < job_enqueueable_.size(); ++i) {
    const auto& e = job_enqueueable_[i];
    if (e.tier != tier) {
      if (permits > 0) return permitted();
      tier = e.tier;
    }
    std::string_view reason;
    const Memo* m = find_memo(i, queue, min);
    const bool known = m != nullptr;
    if (known) reason = m->reason;
    const int v = known ? kReject : e.fn(state_.job(jid), reason);
    if (v < 0) {
      if (!known && enqueue_monotonicity_[i] != VoteMonotonicity::None && enqueue_memo_.size() < 64)
        enqueue_memo_.push_back({i, enqueue_monotonicity_[i] == VoteMonotonicity::Cluster ? kNone : queue, min, reason});
      return Verdict{Code::Unschedulable, e.plugin, reason};
    }
    if (v > 0 && ++permits == 1) credit = Verdict{Code::Success, e.plugin, reason};
  }
  return permitted();
}

void Session::job_enqueued(const JobInfo& j) const {
  for (const auto& e : job_enqueued_) e.fn(j);
}

bool Session::overused(const QueueInfo& q, std::string_view* by) const {
  for (const auto& e : overused_)
    if (e.fn(q)) {
      if (by) *by = e.plugin;
      return true;
    }
  return false;
}

bool Session::allocatable(const QueueInfo& q, const TaskInfo& t, std::string_view* by) const {
  for (const auto& e : allocatable_)
    if (!e.fn(q, t)) {
      if (by) *by = e.plugin;
      return false;
    }
  return true;
}

bool Session::preemptive(const QueueInfo& q, const TaskInfo& t) const {
  for (const auto& e : preemptive_)
    if (!e.fn(q, t)) return false;
  return true;
}

namespace {
// Victims (Session.Preemptable/Reclaimable): written as the Go code runs, where an empty slice
// is nil, i.e. "no decision yet" — so an intersection that comes out empty lets the next
// plugin's candidates start over, and a tier whose plugins leave it empty passes to the next.
template <class Entries>
std::vector<TaskId> victims_of(const Entries& entries, const TaskInfo& preemptor,
                               std::span<const TaskId> preemptees, VictimChoice* choice) {
  std::vector<TaskId> victims;                 // empty == nil
  static thread_local std::vector<TaskId> cand;  // one buffer for every plugin's answer, every call
  std::uint64_t voters = 0;                    // this tier's plugins that did not abstain
  std::size_t i = 0;
  while (i < entries.size()) {
    const int tier = entries[i].tier;
    voters = 0;
    for (; i < entries.size() && entries[i].tier == tier; ++i) {
      cand.clear();
      if (entries[i].fn(preemptor, preemptees, cand) == kAbstain) continue;
      if (i < 64) voters |= std::uint64_t{1} << i;
      if (cand.empty()) {
        victims.clear();
        while (i < entries.size() && entries[i].tier == tier) ++i;  // break out of this tier
        break;
      }
      if (victims.empty()) {
        victims.assign(cand.begin(), cand.end());
      } else {
        // Intersection in victims' order (as Go's nested loop keeps it), in place.
        std::erase_if(victims, [&](TaskId v) { return std::find(cand.begin(), cand.end(), v) == cand.end(); });
      }
    }
    if (!victims.empty()) {
      if (choice) *choice = {tier, voters};
      return victims;
    }
  }
  return victims;
}

template <class Entries>
std::string plugins_of(const Entries& entries, const VictimChoice& c) {
  std::string out;
  for (std::size_t i = 0; i < entries.size() && i < 64; ++i)
    if (entries[i].tier == c.tier && (c.voters >> i & 1)) out += (out.empty() ? "" : ", ") + entries[i].plugin;
  return out;
}
}  // namespace

std::vector<TaskId> Session::preemptable(const TaskInfo& p, std::span<const TaskId> ts, VictimChoice* choice) const {
  return victims_of(preemptable_, p, ts, choice);
}
std::vector<TaskId> Session::reclaimable(const TaskInfo& p, std::span<const TaskId> ts, VictimChoice* choice) const {
  return victims_of(reclaimable_, p, ts, choice);
}
std::string Session::victim_plugins(bool reclaim, const VictimChoice& choice) const {
  return reclaim ? plugins_of(reclaimable_, choice) : plugins_of(preemptable_, choice);
}

void Session::fire_allocate(const TaskInfo& t) const {
  ++task_events_;
  for (const auto& f : on_allocate_) f(t);
}
void Session::fire_deallocate(const TaskInfo& t) const {
  ++task_events_;
  for (const auto& f : on_deallocate_) f(t);
}

// ---------------------------------------------------------------- bookkeeping

FitErrors& Session::fit_errors(TaskId t) { return fit_errors_[t]; }

void Session::add_fit_failed_role(const TaskInfo& t) {
  if (t.role_index == kNone) return;  // its job counts no roles: no per-task rule reads them
  auto& roles = fit_failed_roles_[t.job];
  if (std::find(roles.begin(), roles.end(), t.role_index) == roles.end()) roles.push_back(t.role_index);
}

bool Session::task_has_fit_errors(const TaskInfo& t) const {
  if (t.role.empty() || fit_failed_roles_.empty()) return false;
  const auto* roles = fit_failed_roles(t.job);
  return roles && std::find(roles->begin(), roles->end(), t.role_index) != roles->end();
}

const std::vector<std::uint32_t>* Session::fit_failed_roles(JobId j) const {
  auto it = fit_failed_roles_.find(j);
  return it == fit_failed_roles_.end() ? nullptr : &it->second;
}

const FitErrors* Session::find_fit_errors(TaskId t) const {
  auto it = fit_errors_.find(t);
  return it == fit_errors_.end() ? nullptr : &it->second;
}

std::string_view Session::keep(std::string text) {
  kept_text_.push_back(std::move(text));
  return kept_text_.back();
}

std::uint32_t ConditionLedger::intern(std::string_view text) {
  // (Sized on first use: every session holds a ledger of its own, most never used.)
  if (by_address_.empty()) by_address_.resize(1024);
  AddressSlot& slot = by_address_[(reinterpret_cast<std::uintptr_t>(text.data()) >> 4) % by_address_.size()];
  if (slot.id != 0 && slot.data == text.data() && slot.size == text.size() && *text_of_[slot.id - 1] == text)
    return slot.id;
  std::uint32_t id;
  if (auto it = text_ids_.find(text); it != text_ids_.end()) {
    id = it->second;
  } else {
    id = static_cast<std::uint32_t>(text_ids_.size() + 1);
    text_of_.push_back(&text_ids_.emplace(std::string(text), id).first->first);
  }
  slot = AddressSlot{text.data(), text.size(), id};
  return id;
}

void ConditionLedger::compact_texts() {
  if (text_ids_.size() < compact_at_) return;
  // Keys are (code << 56) | (plugin id << 32) | reason id; ids are given anew in the order
  // the keys name them (job order), so a run renumbers the same way every time.
  decltype(text_ids_) kept;
  std::vector<const std::string*> kept_of;
  std::vector<std::uint32_t> remap(text_of_.size() + 1, 0);
  auto keep = [&](std::uint64_t id) -> std::uint64_t {
    if (id == 0 || id > text_of_.size()) return 0;
    if (remap[id] == 0) {
      remap[id] = static_cast<std::uint32_t>(kept.size() + 1);
      kept_of.push_back(&kept.emplace(*text_of_[id - 1], remap[id]).first->first);
    }
    return remap[id];
  };
  for (std::uint64_t& k : reported)
    if (k != 0) k = (k & (0xffULL << 56)) | keep((k >> 32) & 0xffffffULL) << 32 | keep(k & 0xffffffffULL);
  text_ids_ = std::move(kept);
  text_of_ = std::move(kept_of);
  std::fill(by_address_.begin(), by_address_.end(), AddressSlot{});  // the ids were renumbered
  ++reports;
  compact_at_ = std::max<std::size_t>(1024, 2 * text_ids_.size());
}

std::uint32_t Session::intern(std::string_view text) {
  // Verdicts point at texts that live at least as long as the session (literals, plugin-owned
  // strings, texts kept with keep()), thousands of verdicts at a few hundred texts: a view seen
  // at the same address earlier in the session has the same text; otherwise the ledger finds
  // it (by an address it checks against the text, else by the text).
  InternSlot& slot = intern_cache_[(reinterpret_cast<std::uintptr_t>(text.data()) >> 3) & (intern_cache_.size() - 1)];
  if (text.data() != nullptr && slot.data == text.data() && slot.size == text.size()) return slot.id;
  const std::uint32_t id = ledger_->intern(text);
  slot = InternSlot{text.data(), text.size(), id};
  return id;
}

std::uint64_t Session::condition_key(const Verdict& v) {
  return (static_cast<std::uint64_t>(v.code) << 56) | (static_cast<std::uint64_t>(intern(v.plugin)) << 32) |
         intern(v.reason);
}

void Session::set_job_reason(JobId j, Verdict v) {
  std::vector<std::uint64_t>& idx = ledger_->reason_index;
  if (idx.size() <= j) idx.resize(std::max<std::size_t>(j + 1, idx.size() * 2), 0);
  // Entry = (session uid << 32) | position in job_reasons_.
  const std::uint64_t e = idx[j];
  if ((e >> 32) == (uid_ & 0xffffffffu) && (e & 0xffffffffu) < job_reasons_.size() &&
      job_reasons_[e & 0xffffffffu].first == j) {
    job_reasons_[e & 0xffffffffu].second = v;
    return;
  }
  idx[j] = ((uid_ & 0xffffffffu) << 32) | job_reasons_.size();
  job_reasons_.emplace_back(j, v);
}

const Verdict* Session::job_reason(JobId j) const {
  const std::vector<std::uint64_t>& idx = ledger_->reason_index;
  if (j >= idx.size()) return nullptr;
  const std::uint64_t e = idx[j];
  if ((e >> 32) != (uid_ & 0xffffffffu) || (e & 0xffffffffu) >= job_reasons_.size()) return nullptr;
  const auto& r = job_reasons_[e & 0xffffffffu];
  return r.first == j ? &r.second : nullptr;
}

void Session::set_phase(JobId j, PodGroupPhase p) {
  const PodGroupPhase before = state_.job(j).phase;
  if (before == p) return;
  if (phase_seen_.emplace(j, true).second) phase_changes_.emplace_back(j, before);
  state_.set_podgroup_phase(j, p);
  changed_ = true;
}

void Session::keep_until_close(Statement&& stmt) {
  kept_.push_back(std::make_unique<Statement>(std::move(stmt)));
  kept_.back()->done_ = true;  // undone by close(), not by its destructor
}

std::vector<TaskId> Session::pipelined_tasks() const {
  std::vector<TaskId> out;
  for (const auto& kept : kept_)
    for (const Statement::Op& op : kept->ops_)
      if (op.kind == Statement::OpKind::Pipeline && state_.task(op.task).status == TaskStatus::Pipelined) out.push_back(op.task);
  return out;
}

void Session::unpipeline(TaskId t) {
  if (state_.task(t).status != TaskStatus::Pipelined)
    throw std::logic_error("Session::unpipeline: task '" + state_.task(t).name + "' is not Pipelined");
  for (auto& kept : kept_)
    std::erase_if(kept->ops_, [t](const Statement::Op& op) { return op.kind == Statement::OpKind::Pipeline && op.task == t; });
  state_.apply_task_status_quiet(t, TaskStatus::Pending, kNone);
  fire_deallocate(state_.task(t));
}

// ---------------------------------------------------------------- Statement

Statement::~Statement() {
  if (done_) return;
  if (std::uncaught_exceptions() > unwinding_at_start_) {
    done_ = true;
    undo(false);
  } else {
    discard();
  }
}

void Statement::allocate(TaskId t, NodeId node) {
  ClusterState& st = ssn_->state_;
  const TaskStatus prev = st.task(t).status;
  st.apply_task_status_quiet(t, TaskStatus::Allocated, node);
  ops_.push_back({OpKind::Allocate, t, node, prev, {}});
  ssn_->fire_allocate(st.task(t));
}

void Statement::pipeline(TaskId t, NodeId node, bool eviction_occurred) {
  ClusterState& st = ssn_->state_;
  const TaskStatus prev = st.task(t).status;
  st.apply_task_status_quiet(t, TaskStatus::Pipelined, node);
  ops_.push_back({OpKind::Pipeline, t, node, prev, {}, kNone, {}, eviction_occurred});
  // The task's transaction context (TaskInfo.NodeName, EvictionOccurred) as Pipeline sets it.
  ssn_->pipelined_evicting_[t] = eviction_occurred ? node : kNone;
  ++ssn_->stats_.pipelined;
  ssn_->fire_allocate(st.task(t));
}

void Statement::evict(TaskId t, std::string reason, TaskId preemptor, VictimChoice choice) {
  ClusterState& st = ssn_->state_;
  const TaskStatus prev = st.task(t).status;
  st.apply_task_status_quiet(t, TaskStatus::Releasing, st.task(t).node);
  ops_.push_back({OpKind::Evict, t, st.task(t).node, prev, std::move(reason), preemptor, choice});
  ssn_->fire_deallocate(st.task(t));
}

void Statement::undo(bool handlers) {
  ClusterState& st = ssn_->state_;
  // A handler that throws: the remaining ops are still undone (without handlers), then it goes on.
  std::exception_ptr thrown;
  auto fire = [&](void (Session::*f)(const TaskInfo&) const, TaskId t) {
    if (!handlers) return;
    try {
      (ssn_->*f)(st.task(t));
    } catch (...) {
      thrown = std::current_exception();
      handlers = false;
    }
  };
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    switch (it->kind) {
      case OpKind::Allocate:
      case OpKind::Pipeline:
        // unallocate / UnPipeline: back to Pending, deallocate handlers.
        st.apply_task_status_quiet(it->task, TaskStatus::Pending, kNone);
        fire(&Session::fire_deallocate, it->task);
        break;
      case OpKind::Evict:
        // unevict. Volcano (statement.go unevict) writes Running whatever the task was before,
        // harmlessly, on a session copy that is thrown away; mltwin's state outlives the
        // session, so the status the task had (Bound or Running) is restored.
        st.apply_task_status_quiet(it->task, it->prev, it->node);
        fire(&Session::fire_allocate, it->task);
        break;
    }
  }
  ops_.clear();
  if (thrown) std::rethrow_exception(thrown);
}

void Statement::discard() {
  if (done_) return;
  done_ = true;
  if (!ops_.empty()) ++ssn_->stats_.statements_discarded;
  // statement.go:385-391 Discard: each task's context (its status before the undo) becomes its
  // LastTransaction; of these only an Allocate leaves the status Allocated.
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    if (it->kind == OpKind::Allocate)
      ssn_->last_tx_allocated_.insert(it->task);
    else
      ssn_->last_tx_allocated_.erase(it->task);
    // The same LastTransaction: Pipelined with EvictionOccurred nominates its node even though
    // the evictions are undone with it (a gang preempt found short of minAvailable).
    ssn_->last_tx_nominates_[it->task] = it->kind == OpKind::Pipeline && it->eviction_occurred ? it->node : kNone;
  }
  undo();
}

void Statement::commit() {
  if (done_) throw std::logic_error("Statement::commit on a statement already committed or discarded");
  done_ = true;
  ClusterState& st = ssn_->state_;
  Statement pipelined(*ssn_);
  bool committed_something = false;
  // A backend that throws (instead of answering with CallResult) stops the commit: the ops from
  // the one that threw on stay this statement's, undone as the exception leaves (~Statement).
  std::size_t next = 0;
  struct Unfinished {
    Statement& s;
    std::size_t& next;
    ~Unfinished() {
      if (next < s.ops_.size()) {
        s.ops_.erase(s.ops_.begin(), s.ops_.begin() + static_cast<std::ptrdiff_t>(next));
        s.done_ = false;
      }
    }
  } unfinished{*this, next};
  for (; next < ops_.size(); ++next) {
    const Op& op = ops_[next];
    ssn_->last_tx_allocated_.erase(op.task);  // statement.go:413-415 ClearLastTxContext
    ssn_->last_tx_nominates_.erase(op.task);
    switch (op.kind) {
      case OpKind::Allocate: {
        // statement.allocate -> cache.AddBindTask: the task is Binding from now on.
        st.apply_task_status_quiet(op.task, TaskStatus::Binding, op.node);
        CallResult r = ssn_->backend_.bind(st.task(op.task), st.node(op.node));
        ++ssn_->stats_.binds;
        committed_something = true;
        if (!r.ok) {
          ++ssn_->stats_.bind_failures;
          ssn_->failed_binds_.push_back({op.task, "failed to bind to node " + st.node(op.node).name + ": " + r.error});
        }
        ssn_->changed_ = true;
        break;
      }
      case OpKind::Evict: {
        const std::string plugins = op.choice.tier < 0 ? std::string() : ssn_->victim_plugins(op.reason == "reclaim", op.choice);
        CallResult r = ssn_->backend_.evict(st.task(op.task), Eviction{op.reason, op.preemptor, op.choice.tier, plugins});
        if (!r.ok) {
          // statement.go:105-114 evict -> unevict (v1.12.1): the task keeps its status (Bound or
          // Running) and node.
          ++ssn_->stats_.eviction_failures;
          st.apply_task_status_quiet(op.task, op.prev, op.node);
          ssn_->fire_allocate(st.task(op.task));
          break;
        }
        ++ssn_->stats_.evictions;
        ssn_->changed_ = true;
        committed_something = true;
        break;
      }
      case OpKind::Pipeline:
        // Volcano's commit does nothing for a pipelined task: it is Pending again next cycle.
        pipelined.ops_.push_back(op);
        break;
    }
  }
  // The state changed by this commit (a bind or an eviction sent): one generation more. A
  // statement with nothing to send (preempt's within-job statements often are) changes none.
  if (committed_something) st.bump_generation();
  if (!pipelined.ops_.empty()) ssn_->keep_until_close(std::move(pipelined));
  ops_.clear();
  next = 0;
}

}  // namespace mltwin::policy
