// mltwin/policy/session.hpp — one scheduling cycle's session, plugin and action contracts,
// and the Statement, after Volcano v1.12.1 pkg/scheduler/framework/{session,session_plugins,
// statement}.go.
//
// ## How plugin answers combine (session_plugins.go)
// Plugins are grouped in tiers; callbacks are consulted tier by tier, plugin by plugin, in the
// configured order, and only where the plugin's extension point is enabled.
// - Orders (job, queue, task): the first plugin returning non-zero decides; if all return 0,
//   jobs and queues fall back to (creation time, UID), tasks to (pod index, creation, UID) —
//   Volcano's UIDs: a job's is its PodGroup's "namespace/name" (JobInfo::name), a queue's its
//   name (QueueInfo::name), a task's its pod's metadata.uid (TaskInfo::uid).
// - Predicates: every plugin must pass; the first failure is the answer.
// - Node scores: summed over all plugins (each plugin applies its own weights); a node's score
//   is its per-node scores plus its batch scores over the candidate set (util.PrioritizeNodes).
// - JobValid: the first failing plugin decides (no enable switch, as in Volcano).
// - JobReady, Allocatable, Preemptive: all must agree; Overused: any plugin says overused.
// - JobEnqueueable, JobPipelined (votes): any Reject fails at once; otherwise a tier in which
//   some plugin voted Permit decides Permit; if no tier permits, the answer is Permit.
// - JobStarving: within the first tier that registers the callback, all must agree; false if
//   no tier registers one.
// - Preemptable / Reclaimable (victims): within a tier, plugins' candidate lists are
//   intersected (an abstaining plugin is skipped; an empty list ends the tier with no victims);
//   the first tier that yields a non-empty list decides.
#pragma once

#include "mltwin/policy/export.hpp"
#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mltwin/policy/backend.hpp"
#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/status.hpp"
#include "mltwin/policy/registry.hpp"

namespace mltwin::policy {

/// What a plugin promises about its JobEnqueueable vote within one enqueue action, so that the
/// action may skip calls whose answer is already known (the decisions stay exactly Volcano's):
/// - None: no promise.
/// - PerQueue: once it rejects job j, it rejects every later job of the same queue whose
///   minResources are >= j's in every dimension (its state only moves toward rejecting).
/// - Cluster: the same, for later jobs of any queue.
enum class VoteMonotonicity : std::uint8_t { None, PerQueue, Cluster };

/// What a plugin promises about its Preemptable / Reclaimable answer, so that an action may
/// reuse an answer instead of asking again (the decisions stay exactly Volcano's):
/// - OnPreemptor: no promise (the victims may depend on which task asks).
/// - OnPreemptorSpec: they depend on the preemptor only as TaskDependence::Spec says.
/// - NotOnPreemptor: the victims it picks out of a list of preemptees depend only on that list
///   and the session's state, not on the preemptor; the answer holds while no task of the
///   session moves (Session::task_events() unchanged).
enum class VictimDependence : std::uint8_t { OnPreemptor, OnPreemptorSpec, NotOnPreemptor };

/// What a plugin's Predicate or Allocatable function reads of the task it is asked about, so
/// that an action may reuse the answers given for one task for another that looks the same
/// (the decisions stay exactly Volcano's):
/// - Anything: no promise.
/// - Spec: of the task only its request (resreq), priority, BestEffort flag and placement
///   constraints (nodeSelector, node affinity, tolerations); of its job only the queue, the
///   priority, allocated + pipelined, and whether a task belongs to it. The answer holds while
///   no task of the session moves (Session::task_events() unchanged).
enum class TaskDependence : std::uint8_t { Anything, Spec };

/// Votes (Volcano util.Permit / Abstain / Reject).
inline constexpr int kPermit = 1;
inline constexpr int kAbstain = 0;
inline constexpr int kReject = -1;

using JobOrderFn = std::function<int(const JobInfo&, const JobInfo&)>;
using QueueOrderFn = std::function<int(const QueueInfo&, const QueueInfo&)>;
using TaskOrderFn = std::function<int(const TaskInfo&, const TaskInfo&)>;
using PredicateFn = std::function<Status(const TaskInfo&, const NodeInfo&)>;
using NodeOrderFn = std::function<double(const TaskInfo&, const NodeInfo&)>;
/// Volcano BatchNodeOrderFn: scores a set of candidate nodes at once, adding node i's score to
/// scores[i]; a node's score may depend on the whole set (Kubernetes' NormalizeScore).
using BatchNodeOrderFn = std::function<void(const TaskInfo&, std::span<const NodeId> nodes, std::span<double> scores)>;
using JobValidFn = std::function<ValidateResult(const JobInfo&)>;
using JobBoolFn = std::function<bool(const JobInfo&)>;
/// A vote; on Reject the plugin may point `reason` at text that lives as long as the session
/// (a literal, or a string the plugin owns) — shown as why the job waits. On Permit it may do
/// the same: the text is reported when that Permit alone decided (see Session::job_enqueueable).
using JobVoteFn = std::function<int(const JobInfo&, std::string_view& reason)>;
using JobEnqueuedFn = std::function<void(const JobInfo&)>;
using QueueBoolFn = std::function<bool(const QueueInfo&)>;
/// Volcano VictimCompareFn for queues: orders the queues of two victims for a preemptor's
/// queue (negative: l's tasks are evicted first).
using VictimQueueOrderFn = std::function<int(const QueueInfo& l, const QueueInfo& r, const QueueInfo& preemptor)>;
using QueueTaskBoolFn = std::function<bool(const QueueInfo&, const TaskInfo&)>;
/// Victim selection: candidates out of `preemptees`; return kAbstain to abstain.
using VictimFn = std::function<int(const TaskInfo& preemptor, std::span<const TaskId> preemptees,
                                   std::vector<TaskId>& victims)>;
/// Called after a task is allocated or pipelined (allocate) or evicted/unallocated
/// (deallocate) within the session (Volcano EventHandler).
using TaskEventFn = std::function<void(const TaskInfo&)>;

class Session;

/// A plugin broke the policy API's contract: an order that is not a strict weak order, a node
/// score that is not a finite number. what() names the plugin and the callback, e.g. "plugin
/// 'p': its job order function (add_job_order_fn) is not a strict weak order: ...".
class MLTWIN_POLICY_EXPORT PluginError : public std::runtime_error {
 public:
  PluginError(std::string plugin, std::string callback, const std::string& message)
      : std::runtime_error(message), plugin_(std::move(plugin)), callback_(std::move(callback)) {}
  /// The plugin's name as configured ("" when the fault lies with several plugins together).
  const std::string& plugin() const { return plugin_; }
  /// The callback: "job order function (add_job_order_fn)", "node order function (add_node_order_fn)", ...
  const std::string& callback() const { return callback_; }

 private:
  std::string plugin_, callback_;
};

/// A scheduler plugin. A fresh instance is created for every session (as Volcano does), so a
/// plugin keeps no state between cycles.
class MLTWIN_POLICY_EXPORT Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
  /// Register callbacks on the session and prepare per-session data.
  virtual void on_session_open(Session& ssn) = 0;
  virtual void on_session_close(Session&) {}
};

/// A scheduler action (enqueue, allocate, backfill, preempt, reclaim). A Scheduler makes its
/// actions once and calls execute every cycle, so an action may keep state between cycles; after
/// a session that threw, it makes them again (Scheduler::run_once), so what an action keeps need
/// not survive an exception thrown halfway through execute.
class MLTWIN_POLICY_EXPORT Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view name() const = 0;
  virtual void execute(Session& ssn) = 0;
};

using PluginFactory = std::function<std::unique_ptr<Plugin>(const Arguments&)>;
using ActionFactory = std::function<std::unique_ptr<Action>(const Arguments&)>;
/// The process-wide registries of plugins and actions (mltwin/policy/registry.hpp), with the
/// built-ins registered. The functions below are shorthands for them.
MLTWIN_POLICY_EXPORT Registry<Plugin>& plugin_registry();
MLTWIN_POLICY_EXPORT Registry<Action>& action_registry();
/// Registries of built-in and user plugins/actions (Volcano framework.RegisterPluginBuilder),
/// process-wide. Registering a name twice replaces the earlier factory (a built-in one too:
/// the Python module refuses that without replace=True).
MLTWIN_POLICY_EXPORT void register_plugin(const std::string& name, PluginFactory f);
/// The same, declaring the arguments the plugin reads: SchedulerConfig::check_arguments then
/// warns about a key it does not declare and refuses a value of the wrong type.
MLTWIN_POLICY_EXPORT void register_plugin(const std::string& name, PluginFactory f, std::vector<ArgSpec> arguments);
/// The arguments `name` declared, or nullopt (not registered, or registered without them).
MLTWIN_POLICY_EXPORT std::optional<std::vector<ArgSpec>> plugin_arguments(const std::string& name);
MLTWIN_POLICY_EXPORT void register_action(const std::string& name, ActionFactory f);
/// Removes a registered plugin; a built-in name gets its built-in factory back. False if the
/// name was not registered.
MLTWIN_POLICY_EXPORT bool unregister_plugin(const std::string& name);
/// True if `name` is one of the built-in plugins (gang, priority, drf, ...).
MLTWIN_POLICY_EXPORT bool builtin_plugin(const std::string& name);
MLTWIN_POLICY_EXPORT bool plugin_registered(const std::string& name);
MLTWIN_POLICY_EXPORT bool action_registered(const std::string& name);
MLTWIN_POLICY_EXPORT std::vector<std::string> registered_plugins();
MLTWIN_POLICY_EXPORT std::vector<std::string> registered_actions();
MLTWIN_POLICY_EXPORT std::unique_ptr<Plugin> make_plugin(const std::string& name, const Arguments& args);
MLTWIN_POLICY_EXPORT std::unique_ptr<Action> make_action(const std::string& name, const Arguments& args);

/// Counters of one session, summed by the Scheduler.
struct MLTWIN_POLICY_EXPORT SessionStats {
  std::uint64_t binds = 0, pipelined = 0, evictions = 0, enqueued = 0;
  std::uint64_t bind_failures = 0, eviction_failures = 0;  ///< backend calls refused
  std::uint64_t predicate_calls = 0, statements_discarded = 0;
};

class Statement;

/// What the Scheduler remembers of the job conditions it reported, lent to every session
/// (Session::use_ledger) so that recording a reason costs no allocation and an action can tell
/// that a job already shows a verdict. A session without a ledger uses an empty one of its own.
struct MLTWIN_POLICY_EXPORT ConditionLedger {
  /// Job -> (session uid << 32) | position in that session's job_reasons(); stamped entries.
  std::vector<std::uint64_t> reason_index;
  /// Job -> key (Session::condition_key) of the condition last reported; 0: none.
  std::vector<std::uint64_t> reported;
  /// Number of reports applied to `reported` (one per Scheduler::run_once), and the jobs whose
  /// key the latest report changed — so that an action may mirror `reported` for the jobs it
  /// follows and refresh only those.
  std::uint64_t reports = 0;
  std::vector<JobId> changed;
  /// Interned plugin and reason texts; ids start at 1.
  std::uint32_t intern(std::string_view text);
  /// Reason texts often name a job or a task, so a long-running scheduler interns texts without
  /// end. Once the table has doubled since the last time, this drops the texts no key in
  /// `reported` names and renumbers the others, rewriting those keys (they stay equal where
  /// they were equal) and advancing `reports` by one more, so that a mirror of `reported`
  /// refreshes in full. The Scheduler calls it after each report.
  void compact_texts();
  std::size_t text_count() const { return text_ids_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> text_ids_;
  std::vector<const std::string*> text_of_;  // id - 1 -> its text (a key of text_ids_)
  /// The id last found for a text at an address, per address slot, checked against the text
  /// before use (an address may hold another text by now): texts a plugin or action keeps
  /// across sessions (a reason per task, say) are then found without hashing them.
  struct AddressSlot {
    const char* data = nullptr;
    std::size_t size = 0;
    std::uint32_t id = 0;
  };
  std::vector<AddressSlot> by_address_;  // 1,024 slots once the first text is interned
  std::size_t compact_at_ = 1024;            // compact_texts() does nothing below this size
};

/// Which tier chose a set of victims (Session::preemptable / reclaimable), for Eviction: the
/// tier's index in the configuration (-1: none chose) and a bit per Preemptable (Reclaimable)
/// function of the session, in registration order, for those of the tier that voted.
struct VictimChoice {
  int tier = -1;
  std::uint64_t voters = 0;
};

class MLTWIN_POLICY_EXPORT Session {
 public:
  /// `actions` are the scheduler's long-lived action objects, run in order (Volcano creates its
  /// actions once and calls Execute every cycle, so an action may keep state between cycles);
  /// if empty, fresh ones are made from cfg.actions for this session (owned by it).
  Session(ClusterState& state, Backend& backend, const SchedulerConfig& cfg, std::mt19937_64& rng,
          std::uint64_t uid, std::vector<Action*> actions = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Opens plugins (tier order), runs the actions, closes: the whole Volcano runOnce.
  void run() { open(); run_actions(); close(); }
  /// Before open(): record every promise a plugin makes as no promise (VoteMonotonicity::None,
  /// TaskDependence::Anything, VictimDependence::OnPreemptor, a job order that is not static, batch
  /// scores that depend on the set), so that the actions take no shortcut a promise allows.
  /// Scheduler::set_check_promises runs such a session beside the real one.
  void ignore_promises() { ignore_promises_ = true; }
  /// The promises the plugins made at open(), one line each ("proportion: job enqueueable vote
  /// VoteMonotonicity::PerQueue"); empty with ignore_promises().
  std::vector<std::string> promises() const {
    std::vector<std::string> out;
    for (const auto& [opt, what] : promises_) out.push_back(opt->name + ": " + what);
    return out;
  }
  /// The three steps of run(), separately, for tests that inspect a session's combined answers.
  void open();
  void run_actions();
  /// Undoes uncommitted work, closes plugins, updates PodGroup phases (Volcano jobStatus).
  void close();
  /// After open() or run_actions() threw (a plugin's callback or order fault, a backend's
  /// exception), or close() did: puts the state back to what the backend has been told. The
  /// statements kept until close are undone (pipelined tasks back to Pending), binds the backend
  /// refused go back to Pending, and the PodGroup phases this session set that the backend has
  /// not heard (it hears them at close) are put back, though no further than Inqueue for a job
  /// with pods bound (the next close moves it on, as Volcano's jobStatus would). Binds and evictions the backend received stay. Plugins are not
  /// closed and no event handler is called. Volcano's session works on a copy of its cache
  /// that a panic throws away (framework.OpenSession, v1.12.1); here the state outlives the
  /// session. Scheduler::run_once calls it and then builds its actions afresh.
  void abandon();

  // ---- the world ----
  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }
  Backend& backend() { return backend_; }
  TimeNs now() const { return state_.now(); }
  std::uint64_t uid() const { return uid_; }
  const Resource& total_resource() const { return state_.total_allocatable(); }
  const SchedulerConfig& config() const { return cfg_; }
  /// The node-tiebreak stream (Volcano picks uniformly among the best-scored nodes).
  std::mt19937_64& rng() { return rng_; }
  SessionStats& stats() { return stats_; }
  /// Ask the scheduler to run a cycle at `t` even if nothing changes (time-dependent plugins).
  void request_wakeup(TimeNs t) { if (t < wakeup_) wakeup_ = t; }
  TimeNs wakeup() const { return wakeup_; }

  // ---- registration (from Plugin::on_session_open) ----
  /// `static_while_pending`: the plugin promises that, for two jobs whose PodGroups are Pending
  /// and have no pods yet, the answer never changes from one session to the next (it reads only
  /// fields fixed at submission). The enqueue action then keeps its order between cycles without
  /// re-checking it.
  void add_job_order_fn(JobOrderFn f, bool static_while_pending = false) {
    if (!opening_->is_enabled(Ext::JobOrder)) return;
    job_order_.push_back({opening_tier_, opening_->name, std::move(f)});
    if (static_while_pending) promised("job order static while pending");
    job_order_static_ = job_order_static_ && static_while_pending && !ignore_promises_;
  }
  /// True if every registered job order is static for pending jobs without pods.
  bool job_order_static_while_pending() const { return job_order_static_; }
  void add_queue_order_fn(QueueOrderFn f) { reg(Ext::QueueOrder, queue_order_, std::move(f)); }
  void add_task_order_fn(TaskOrderFn f) { reg(Ext::TaskOrder, task_order_, std::move(f)); }
  /// Volcano AddVictimQueueOrderFn (no enable switch, as in session_plugins.go).
  void add_victim_queue_order_fn(VictimQueueOrderFn f) { reg(Ext::kCount, victim_queue_order_, std::move(f)); }
  void add_predicate_fn(PredicateFn f, TaskDependence d = TaskDependence::Anything) {
    const std::size_t n = predicate_.size();
    reg(Ext::Predicate, predicate_, std::move(f));
    if (predicate_.size() > n && d == TaskDependence::Spec) promised("predicate TaskDependence::Spec");
    if (predicate_.size() > n && (d == TaskDependence::Anything || ignore_promises_)) task_answers_on_spec_ = false;
  }
  void add_node_order_fn(NodeOrderFn f) { reg(Ext::NodeOrder, node_order_, std::move(f)); }
  /// `depends_on_set` false promises that a node's batch score is the same in any candidate set
  /// (so an action may score a subset of the nodes that pass the predicates).
  void add_batch_node_order_fn(BatchNodeOrderFn f, bool depends_on_set = true) {
    if (!opening_->is_enabled(Ext::NodeOrder)) return;
    batch_node_order_.push_back({opening_tier_, opening_->name, std::move(f)});
    if (!depends_on_set) promised("batch node order independent of the node set");
    batch_depends_on_set_ = batch_depends_on_set_ || depends_on_set || ignore_promises_;
  }
  void add_job_valid_fn(JobValidFn f) { reg(Ext::kCount, job_valid_, std::move(f)); }
  void add_job_ready_fn(JobBoolFn f) { reg(Ext::JobReady, job_ready_, std::move(f)); }
  void add_job_pipelined_fn(JobVoteFn f) { reg(Ext::JobPipelined, job_pipelined_, std::move(f)); }
  void add_job_starving_fn(JobBoolFn f) { reg(Ext::JobStarving, job_starving_, std::move(f)); }
  void add_job_enqueueable_fn(JobVoteFn f, VoteMonotonicity m = VoteMonotonicity::None) {
    if (!opening_->is_enabled(Ext::JobEnqueued)) return;
    job_enqueueable_.push_back({opening_tier_, opening_->name, std::move(f)});
    if (m != VoteMonotonicity::None)
      promised(m == VoteMonotonicity::PerQueue ? "job enqueueable VoteMonotonicity::PerQueue" : "job enqueueable VoteMonotonicity::Cluster");
    enqueue_monotonicity_.push_back(ignore_promises_ ? VoteMonotonicity::None : m);
  }
  void add_job_enqueued_fn(JobEnqueuedFn f) { reg(Ext::JobEnqueued, job_enqueued_, std::move(f)); }
  void add_overused_fn(QueueBoolFn f) { reg(Ext::Overused, overused_, std::move(f)); }
  void add_allocatable_fn(QueueTaskBoolFn f, TaskDependence d = TaskDependence::Anything) {
    const std::size_t n = allocatable_.size();
    reg(Ext::Allocatable, allocatable_, std::move(f));
    if (allocatable_.size() > n && d == TaskDependence::Spec) promised("allocatable TaskDependence::Spec");
    if (allocatable_.size() > n && (d == TaskDependence::Anything || ignore_promises_)) task_answers_on_spec_ = false;
  }
  void add_preemptive_fn(QueueTaskBoolFn f) { reg(Ext::Preemptive, preemptive_, std::move(f)); }
  void add_preemptable_fn(VictimFn f, VictimDependence d = VictimDependence::OnPreemptor) {
    const std::size_t n = preemptable_.size();
    reg(Ext::Preemptable, preemptable_, std::move(f));
    if (preemptable_.size() > n && d != VictimDependence::OnPreemptor)
      promised(d == VictimDependence::NotOnPreemptor ? "preemptable VictimDependence::NotOnPreemptor" : "preemptable VictimDependence::OnPreemptorSpec");
    if (ignore_promises_) d = VictimDependence::OnPreemptor;
    if (preemptable_.size() > n && d != VictimDependence::NotOnPreemptor) preemptable_on_preemptor_ = true;
    if (preemptable_.size() > n && d == VictimDependence::OnPreemptor) task_answers_on_spec_ = false;
  }
  void add_reclaimable_fn(VictimFn f, VictimDependence d = VictimDependence::OnPreemptor) {
    const std::size_t n = reclaimable_.size();
    reg(Ext::Reclaimable, reclaimable_, std::move(f));
    if (reclaimable_.size() > n && d != VictimDependence::OnPreemptor)
      promised(d == VictimDependence::NotOnPreemptor ? "reclaimable VictimDependence::NotOnPreemptor" : "reclaimable VictimDependence::OnPreemptorSpec");
    if (ignore_promises_) d = VictimDependence::OnPreemptor;
    if (reclaimable_.size() > n && d != VictimDependence::NotOnPreemptor) reclaimable_on_preemptor_ = true;
  }
  /// False if every registered Preemptable (Reclaimable) function promised NotOnPreemptor: then
  /// preemptable(p, list) (reclaimable(p, list)) is the same for every preemptor p while
  /// task_events() does not change.
  bool preemptable_depends_on_preemptor() const { return preemptable_on_preemptor_; }
  bool reclaimable_depends_on_preemptor() const { return reclaimable_on_preemptor_; }
  /// True if every registered Predicate, Allocatable and Preemptable function promised to read
  /// the task it is asked about only as TaskDependence::Spec says (VictimDependence
  /// OnPreemptorSpec or NotOnPreemptor for Preemptable): then two tasks of the same spec get the
  /// same answers from them while task_events() does not change.
  bool task_answers_depend_only_on_spec() const { return task_answers_on_spec_; }
  void add_event_handler(TaskEventFn on_allocate, TaskEventFn on_deallocate);
  /// The option (arguments, switches) of the plugin being opened.
  const PluginOption& current_plugin() const { return *opening_; }

  // ---- combined calls (the rules in the header comment) ----
  bool job_order(const JobInfo& l, const JobInfo& r) const;      ///< true: l goes first
  bool queue_order(const QueueInfo& l, const QueueInfo& r) const;
  /// A pair of queues whose order every queue order function answered 0 for (proportion: equal
  /// spec.priority and equal share), so that session_plugins.go QueueOrderFn's fallback decided
  /// it (v1.12.1 :595-601): the Queue created first, or on equal CreationTimestamps the lower UID
  /// — in Volcano's scheduler a queue's UID is its name (api/queue_info.go NewQueueInfo).
  struct QueueTie {
    QueueId first, second;  ///< the winner (goes first) and the loser
    bool by_uid;            ///< equal creation times: the UIDs (the queues' names) decided
  };
  /// queue_order, noting a comparison the fallback decided in queue_ties() (once per ordered
  /// pair and session; no allocation after the first). The actions' queue orders (QueueLess:
  /// enqueue, allocate, reclaim's and preempt's queues) use it; victim ordering does not.
  bool queue_order_noting_ties(const QueueInfo& l, const QueueInfo& r) const;
  /// The pairs noted so far in this session, in the order first seen.
  const std::vector<QueueTie>& queue_ties() const { return queue_ties_; }
  bool task_order(const TaskInfo& l, const TaskInfo& r) const;
  /// Volcano VictimQueueOrderFn: true if l's tasks are evicted before r's for a preemptor of
  /// queue p — the first plugin with a non-zero answer decides, else !queue_order(l, r).
  bool victim_queue_order(const QueueInfo& l, const QueueInfo& r, const QueueInfo& p) const;
  bool has_victim_queue_order() const { return !victim_queue_order_.empty(); }
  /// An action found `first` placed before `second` by an order that now puts `second` first —
  /// the order is not a strict weak order (ordering.hpp checks every sort and heap it builds).
  /// Throws PluginError naming the plugin at fault: the one whose function answers this pair
  /// inconsistently (asked both ways, and each with itself), else the one whose answer now puts
  /// `second` first (then the order is not transitive, or its answers changed during one sort).
  /// Calls the order functions again to find it.
  [[noreturn]] void job_order_violated(const JobInfo& first, const JobInfo& second) const;
  [[noreturn]] void queue_order_violated(const QueueInfo& first, const QueueInfo& second) const;
  [[noreturn]] void task_order_violated(const TaskInfo& first, const TaskInfo& second) const;
  /// The same for victim_queue_order(first, second, preemptor).
  [[noreturn]] void victim_queue_order_violated(const QueueInfo& first, const QueueInfo& second,
                                                const QueueInfo& preemptor) const;
  Status predicate(const TaskInfo& t, const NodeInfo& n);
  /// The per-node scores only (NodeOrderFn), summed. A plugin's score that is not a finite
  /// number (NaN, +-infinity) throws PluginError naming it.
  double node_score(const TaskInfo& t, const NodeInfo& n) const;
  /// Volcano util.PrioritizeNodes: out[i] = node_score of nodes[i] plus the batch scores of
  /// nodes[i] within `nodes` (out is resized to nodes.size()). A batch score that is not a
  /// finite number throws PluginError naming the plugin.
  void prioritize_nodes(const TaskInfo& t, std::span<const NodeId> nodes, std::vector<double>& out) const;
  bool has_node_order() const { return !node_order_.empty() || !batch_node_order_.empty(); }
  /// True if some batch score depends on the candidate set (see add_batch_node_order_fn).
  bool batch_scores_depend_on_set() const { return batch_depends_on_set_; }
  ValidateResult job_valid(const JobInfo& j) const;
  bool job_ready(const JobInfo& j) const;
  bool job_pipelined(const JobInfo& j) const;
  /// The same vote as a verdict, like job_enqueueable's.
  Verdict job_pipelined_vote(const JobInfo& j) const;
  bool job_starving(const JobInfo& j) const;
  /// Permit, or the rejecting plugin with its reason. A Permit names the plugin whose vote
  /// decided it — the only plugin that voted Permit in the deciding tier — with its reason,
  /// if that plugin gave one; otherwise (several permits, or none: Permit by default) plugin
  /// and reason are empty.
  Verdict job_enqueueable(const JobInfo& j) const;
  /// The same vote, skipping plugins whose rejection of an earlier, dominated job in this action
  /// already implies their answer (VoteMonotonicity); the enqueue action uses this.
  /// `min` and `queue` are the job's; the JobInfo is looked up only if a plugin must be asked.
  Verdict job_enqueueable_memo(JobId j, QueueId queue, const Resource& min);
  /// Forget the memo (the enqueue action calls this when it starts).
  void reset_enqueue_memo() { enqueue_memo_.clear(); }
  /// Number of rejections memoised so far in this action (grows only).
  std::size_t enqueue_memo_size() const { return enqueue_memo_.size(); }
  /// True if job_enqueueable_memo(j, queue, min) would reject from the memo without calling any
  /// plugin (the first enqueueable plugin's memo covers it); `out` is then its verdict. Such a
  /// rejection runs no plugin code, so it changes nothing another decision could read.
  bool enqueue_memo_decides(QueueId queue, const Resource& min, Verdict& out) const;
  void job_enqueued(const JobInfo& j) const;
  /// Overused / not Allocatable: `by` names the plugin that said so (a view that lives as long
  /// as the session).
  bool overused(const QueueInfo& q, std::string_view* by = nullptr) const;
  bool allocatable(const QueueInfo& q, const TaskInfo& t, std::string_view* by = nullptr) const;
  bool preemptive(const QueueInfo& q, const TaskInfo& t) const;
  /// Victims (Volcano Session.Preemptable / Reclaimable). `choice`, if given, receives the tier
  /// that chose them and its plugins that voted (VictimChoice); a tier with no victims leaves it
  /// unset.
  std::vector<TaskId> preemptable(const TaskInfo& preemptor, std::span<const TaskId> preemptees,
                                  VictimChoice* choice = nullptr) const;
  std::vector<TaskId> reclaimable(const TaskInfo& preemptor, std::span<const TaskId> preemptees,
                                  VictimChoice* choice = nullptr) const;
  /// The plugins of `choice` (Eviction::plugins), comma-separated in configuration order.
  std::string victim_plugins(bool reclaim, const VictimChoice& choice) const;
  void fire_allocate(const TaskInfo& t) const;
  void fire_deallocate(const TaskInfo& t) const;
  /// Number of allocate/deallocate events fired so far in this session (every Statement
  /// operation and every undo fires one): unchanged means no task moved in between.
  std::uint64_t task_events() const { return task_events_; }

  // ---- per-session bookkeeping used by actions ----
  /// Fit errors of a task in this session (Volcano job.NodesFitErrors).
  FitErrors& fit_errors(TaskId t);
  const FitErrors* find_fit_errors(TaskId t) const;
  /// True if some task has fit errors in this session.
  bool any_fit_errors() const { return !fit_errors_.empty(); }
  /// Forget a task's fit errors (Volcano records them only when no node fits).
  void clear_fit_errors(TaskId t) { fit_errors_.erase(t); }
  /// Records that task t found no node in this session: its role joins its job's failed roles
  /// (Volcano JobInfo.FitFailedRoles, api/job_info.go:813-821, the roles of the tasks in
  /// job.NodesFitErrors, which allocate and backfill fill when no node fits).
  void add_fit_failed_role(const TaskInfo& t);
  /// Volcano TaskHasFitErrors (job_info.go:823-832): t has a role (volcano.sh/task-spec) and a
  /// task of that role found no node in this session; allocate then skips t.
  bool task_has_fit_errors(const TaskInfo& t) const;
  /// The indexes (JobInfo::roles) of job j's failed roles in this session, or nullptr for none.
  const std::vector<std::uint32_t>* fit_failed_roles(JobId j) const;
  /// Why a job waits, as decided in this session; reported to the backend when it changes.
  /// The views must live as long as the session (see keep()).
  void set_job_reason(JobId j, Verdict v);
  /// Same, copying the status's text into the session.
  void set_job_reason(JobId j, const Status& s) { set_job_reason(j, Verdict{s.code, keep(s.plugin), keep(s.reason)}); }
  /// Stores `text` for the rest of the session and returns a view of it.
  std::string_view keep(std::string text);
  /// PodGroup phase change made in this session (enqueue); reported at close.
  void set_phase(JobId j, PodGroupPhase p);
  /// The PodGroup's Unschedulable condition, stamped with this session (gang's OnSessionClose,
  /// plugins/gang/gang.go:193-205 in Volcano v1.12.1, sets it for every job with tasks that is
  /// not ready). close() then gives a job with a Running task the phase Unknown
  /// (framework/session.go:351-363 jobStatus).
  void set_unschedulable_condition(JobId j) { unschedulable_.push_back(j); }
  /// Volcano TaskInfo.LastTransaction (api/job_info.go:121-122, 227-236, v1.12.1): true if the
  /// task's last scheduling transaction in this session left it Allocated — a statement that
  /// allocated it was discarded (statement.go:385-391 records the context before undoing), or a
  /// statement kept until close allocated it (Volcano still has it Allocated when the plugins
  /// close). Committing clears it (statement.go:413-415). gang's OnSessionClose counts such
  /// pending tasks as schedulable (plugins/gang/gang.go:171-183).
  bool last_transaction_allocated(TaskId t) const { return !last_tx_allocated_.empty() && last_tx_allocated_.count(t) != 0; }
  /// True if some task's last transaction in this session left it Allocated (a cheap test
  /// before asking last_transaction_allocated task by task).
  bool any_last_transaction_allocated() const { return !last_tx_allocated_.empty(); }
  /// What the actions of this session share: the session's object of type T, value-initialised
  /// on the first call and destroyed with the session (the built-in preempt leaves here the
  /// starving jobs it collected, which reclaim takes if no task moved in between).
  template <class T>
  T& shared() {
    for (auto& [key, p] : shared_)
      if (key == &shared_key<T>) return *static_cast<T*>(p.get());
    auto p = std::make_shared<T>();
    T& out = *p;
    shared_.emplace_back(&shared_key<T>, std::move(p));
    return out;
  }
  /// True if this session ignores the plugins' promises (ignore_promises()): the actions then
  /// take no shortcut that rests on one.
  bool promises_ignored() const { return ignore_promises_; }
  /// Keeps a statement's operations applied until the session closes, then undoes them
  /// (Volcano allocate leaves a pipelined-but-not-ready job's statement in the session copy).
  void keep_until_close(Statement&& stmt);
  /// Volcano Statement.UnPipeline (framework/statement.go:215-254) on a fresh statement that is
  /// then dropped: the Pipelined task `t` goes back to Pending, off its node, and the
  /// deallocate handlers run; the kept statement that pipelined it forgets that operation, so
  /// that close() does not undo it again. Backfill uses it for BestEffort tasks.
  /// The tasks this session's kept statements pipelined that are still Pipelined, in the order
  /// they were pipelined (every Pipelined task of a session is in a kept statement).
  std::vector<TaskId> pipelined_tasks() const;
  void unpipeline(TaskId t);
  /// True if this session committed anything or changed a phase (the next cycle must run).
  bool changed() const { return changed_; }
  void mark_changed() { changed_ = true; }
  /// Jobs whose reason was set this session, with the reason (the Scheduler diffs them).
  const std::vector<std::pair<JobId, Verdict>>& job_reasons() const { return job_reasons_; }
  /// The reason set for `j` this session, or nullptr.
  const Verdict* job_reason(JobId j) const;
  /// Lets the Scheduler lend its ledger, which outlives sessions.
  void use_ledger(ConditionLedger* ledger) { ledger_ = ledger; }
  const ConditionLedger& ledger() const { return *ledger_; }
  /// A verdict's identity across sessions: (code, interned plugin text, interned reason text).
  /// Never 0. Views are looked up by address within the session, then in the ledger.
  std::uint64_t condition_key(const Verdict& v);

 private:
  void promised(const char* what) {
    if (!ignore_promises_) promises_.emplace_back(opening_, what);
  }
  template <class Vec, class F>
  void reg(Ext e, Vec& v, F&& f) {
    if (e != Ext::kCount && !opening_->is_enabled(e)) return;
    v.push_back({opening_tier_, opening_->name, std::forward<F>(f)});
  }
  template <class F>
  struct Entry {
    int tier;
    std::string plugin;
    F fn;
  };
  ClusterState& state_;
  Backend& backend_;
  const SchedulerConfig& cfg_;
  std::mt19937_64& rng_;
  std::uint64_t uid_;
  std::vector<Action*> actions_;
  /// The fresh actions of a session given none, alive as long as the session: the job reasons
  /// they record may point into them until the session is read after run().
  std::vector<std::unique_ptr<Action>> own_actions_;
  SessionStats stats_;
  TimeNs wakeup_ = INT64_MAX;
  bool changed_ = false;
  const PluginOption* opening_ = nullptr;
  int opening_tier_ = 0;
  std::vector<std::unique_ptr<Plugin>> plugins_;

  std::vector<Entry<JobOrderFn>> job_order_;
  std::vector<Entry<QueueOrderFn>> queue_order_;
  mutable std::vector<QueueTie> queue_ties_;
  mutable std::vector<std::uint8_t> queue_tie_seen_;  // [first * queues + second], sized on the first tie
  std::vector<Entry<TaskOrderFn>> task_order_;
  std::vector<Entry<VictimQueueOrderFn>> victim_queue_order_;
  std::vector<Entry<PredicateFn>> predicate_;
  std::vector<Entry<NodeOrderFn>> node_order_;
  std::vector<Entry<BatchNodeOrderFn>> batch_node_order_;
  bool batch_depends_on_set_ = false;
  bool ignore_promises_ = false;
  struct FailedBind {
    TaskId task;
    std::string why;  // "failed to bind to node N: <backend's error>"
  };
  std::vector<FailedBind> failed_binds_;  // returned to Pending when the session closes
  std::vector<std::pair<const PluginOption*, const char*>> promises_;
  mutable std::vector<double> batch_scratch_;
  std::vector<Entry<JobValidFn>> job_valid_;
  std::vector<Entry<JobBoolFn>> job_ready_;
  std::vector<Entry<JobVoteFn>> job_pipelined_;
  std::vector<Entry<JobBoolFn>> job_starving_;
  std::vector<Entry<JobVoteFn>> job_enqueueable_;
  std::vector<VoteMonotonicity> enqueue_monotonicity_;
  struct Memo;
  const Memo* find_memo(std::size_t entry, QueueId queue, const Resource& min) const;
  struct Memo {
    std::size_t entry;   // index in job_enqueueable_
    QueueId queue;       // kNone for cluster scope
    Resource min;        // the rejected job's minResources
    std::string_view reason;
  };
  std::vector<Memo> enqueue_memo_;
  bool job_order_static_ = true;
  std::vector<Entry<JobEnqueuedFn>> job_enqueued_;
  std::vector<Entry<QueueBoolFn>> overused_;
  std::vector<Entry<QueueTaskBoolFn>> allocatable_;
  std::vector<Entry<QueueTaskBoolFn>> preemptive_;
  std::vector<Entry<VictimFn>> preemptable_;
  std::vector<Entry<VictimFn>> reclaimable_;
  bool preemptable_on_preemptor_ = false, reclaimable_on_preemptor_ = false;
  bool task_answers_on_spec_ = true;
  std::vector<TaskEventFn> on_allocate_, on_deallocate_;
  mutable std::uint64_t task_events_ = 0;

  std::unordered_map<TaskId, FitErrors> fit_errors_;
  std::unordered_map<JobId, std::vector<std::uint32_t>> fit_failed_roles_;
  std::vector<std::pair<JobId, Verdict>> job_reasons_;
  ConditionLedger own_ledger_;
  ConditionLedger* ledger_ = &own_ledger_;
  std::uint32_t intern(std::string_view text);
  /// The last view seen at each of 16 address slots, in front of the ledger: a session's
  /// reasons are thousands of views of a few texts, so most lookups end here.
  struct InternSlot {
    const char* data = nullptr;
    std::size_t size = 0;
    std::uint32_t id = 0;
  };
  std::array<InternSlot, 16> intern_cache_{};
  std::deque<std::string> kept_text_;
  std::vector<std::pair<JobId, PodGroupPhase>> phase_changes_;  // (job, phase before)
  std::size_t phases_told_ = 0;  // phase_changes_[0, this) reported to the backend by close
  std::vector<JobId> unschedulable_;                            // set_unschedulable_condition
  std::unordered_set<TaskId> last_tx_allocated_;                // last_transaction_allocated
  // Nominations (nominate_at_close): the node a task's LastTransaction nominates (kNone: it has
  // a LastTransaction that nominates nothing), and the node of a task pipelined with
  // EvictionOccurred (its current transaction context).
  std::unordered_map<TaskId, NodeId> last_tx_nominates_, pipelined_evicting_;
  void nominate_at_close();
  std::unordered_map<JobId, bool> phase_seen_;
  std::vector<std::unique_ptr<Statement>> kept_;
  template <class T>
  static inline const char shared_key = 0;  // one address per type: shared<T>()'s key
  std::vector<std::pair<const void*, std::shared_ptr<void>>> shared_;
  friend class Statement;
};

/// An ordered record of allocate / pipeline / evict operations (Volcano framework.Statement).
/// Operations take effect on the ClusterState at once (other tasks of the cycle see them);
/// commit() sends them to the backend, discard() undoes them in reverse order, and a statement
/// destroyed without either is discarded.
class MLTWIN_POLICY_EXPORT Statement {
 public:
  enum class OpKind : std::uint8_t { Allocate, Pipeline, Evict };
  struct Op {
    OpKind kind;
    TaskId task;
    NodeId node;
    TaskStatus prev;  // status before the operation (restored on discard)
    std::string reason;
    TaskId preemptor = kNone;  // Evict: the task the room is made for (Eviction)
    VictimChoice choice{};     // Evict: the tier that chose the victim
    bool eviction_occurred = false;  // Pipeline: preempt evicted for the task (statement.go:151-168)
  };
  explicit Statement(Session& ssn) : ssn_(&ssn) {}
  Statement(Statement&& o) noexcept : ssn_(o.ssn_), ops_(std::move(o.ops_)), done_(o.done_) { o.done_ = true; }
  /// Discards what was not committed or discarded. While an exception unwinds the stack (the
  /// session is being abandoned, Session::abandon) it undoes without calling event handlers,
  /// which may throw again.
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  /// Task -> Allocated on `node` (idle resources). Fires allocate event handlers.
  void allocate(TaskId t, NodeId node);
  /// Task -> Pipelined on `node` (waits for releasing resources). Fires allocate handlers.
  /// `eviction_occurred`: preempt evicted victims for it (Volcano Statement.Pipeline's
  /// evictionOccurred, framework/statement.go:151-168, v1.12.1); such a task is nominated to
  /// the node when the session closes (TaskInfo::nominated_node).
  void pipeline(TaskId t, NodeId node, bool eviction_occurred = false);
  /// Task -> Releasing (eviction). Fires deallocate handlers. `preemptor` and `choice` (from
  /// Session::preemptable / reclaimable) reach the backend with the reason (Eviction).
  void evict(TaskId t, std::string reason, TaskId preemptor = kNone, VictimChoice choice = {});
  /// Allocated tasks -> Binding and backend.bind; evictions -> backend.evict; pipelined tasks
  /// are dropped from the cache at the end of the session, as Volcano's commit does nothing
  /// for them.
  void commit();
  /// Undo every operation in reverse order.
  void discard();
  const std::vector<Op>& operations() const { return ops_; }
  bool empty() const { return ops_.empty(); }

 private:
  friend class Session;
  /// `handlers`: call the session's allocate/deallocate event handlers for each op undone.
  void undo(bool handlers = true);
  Session* ssn_;
  std::vector<Op> ops_;
  bool done_ = false;
  int unwinding_at_start_ = std::uncaught_exceptions();  // made during an unwind: not ours
};

}  // namespace mltwin::policy
