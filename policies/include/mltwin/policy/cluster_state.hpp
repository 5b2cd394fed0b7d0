// mltwin/policy/cluster_state.hpp — the scheduler's view of the cluster, kept up to date
// incrementally.
//
// Volcano's SchedulerCache deep-copies itself into a snapshot every cycle (cache.Snapshot()).
// A trace replay has millions of cycles, so mltwin keeps one ClusterState that the world (the
// simulator, or a production informer) updates in place, and a Session works on it directly:
// a Statement applies its operations to this state and undoes them on discard, and whatever a
// session leaves uncommitted is undone when it closes. Node and job aggregates (idle, used,
// pipelined, per-status task counts, allocated) are maintained on every change, so opening a
// session costs O(queues + live jobs), not O(tasks).
//
// generation() counts changes made from outside a session plus the changes a session commits;
// the Scheduler uses it to skip cycles in which nothing changed.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <memory>
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "mltwin/policy/chunked_vector.hpp"
#include "mltwin/policy/objects.hpp"
#include "mltwin/policy/queue_job_sums.hpp"

namespace mltwin::policy {

/// A version of one ClusterState's set of tasks in some statuses (ClusterState::running_version):
/// two versions are equal only if they are of the same state and that set has not changed
/// between them. Each state (a copy too) draws its versions from its own lineage, a token it
/// allocates, so versions of two states never compare equal and no process-wide counter is
/// needed; a version holds its lineage's token, so the token cannot be freed and its address
/// reused while a version is kept. A default-constructed version equals no state's.
class MLTWIN_POLICY_EXPORT StateVersion {
 public:
  StateVersion() = default;
  friend bool operator==(const StateVersion& a, const StateVersion& b) { return a.lineage_ == b.lineage_ && a.n_ == b.n_; }

 private:
  friend class ClusterState;
  StateVersion(std::shared_ptr<const char> lineage, std::uint64_t n) : lineage_(std::move(lineage)), n_(n) {}
  std::shared_ptr<const char> lineage_;
  std::uint64_t n_ = 0;
};

/// Whether a ClusterState gives the ids of removed tasks, jobs, nodes and queues to new ones.
enum class IdReuse : std::uint8_t {
  /// Ids are never reused: a removed task or job keeps its record (status Unknown, live =
  /// false) for as long as the state lives. What the simulator uses: its records and event
  /// payloads name tasks and jobs by id long after they are gone.
  Never,
  /// A removed object's id goes back to the pool at the next release_removed() (which
  /// Scheduler::run_once calls at the end of every cycle, after its actions have seen the
  /// removal), so the state's memory is bounded by the most objects live at once. What a
  /// long-running scheduler uses (SchedulerCache).
  AfterCycle,
};

/// What ClusterState::release_removed() made reusable.
struct MLTWIN_POLICY_EXPORT ReleasedIds {
  std::vector<JobId> jobs;
  std::vector<TaskId> tasks;
  std::vector<NodeId> nodes;
  std::vector<QueueId> queues;
};

class MLTWIN_POLICY_EXPORT ClusterState {
 public:
  explicit ClusterState(IdReuse reuse = IdReuse::Never) : reuse_(reuse) {}
  IdReuse id_reuse() const { return reuse_; }

  // ---- building the world (each call bumps generation) ----
  QueueId add_queue(QueueInfo q);
  /// Adds a node; idle starts at allocatable less the DaemonSets' requests (daemonset_used,
  /// which used starts at). Throws std::invalid_argument on a duplicate name. O(1) on average
  /// (a name index), so a cluster of N nodes is set up in O(N).
  /// A node added with ready = false does not count in total_allocatable() until it is ready.
  NodeId add_node(NodeInfo n);
  /// Marks a node Ready or not (a node that failed, or that a node group removed). Volcano's
  /// cache leaves nodes that are not Ready out of its snapshot (pkg/scheduler/cache/cache.go,
  /// Snapshot: `if !value.Ready() { continue }`), so total_allocatable() (ssn.TotalResource)
  /// counts ready nodes only and the predicates plugin rejects the others. A replacement is a
  /// new node (ids are reused only after remove_node, with IdReuse::AfterCycle). Throws std::logic_error if the node still holds tasks
  /// when marked not ready (remove them first), std::out_of_range for an unknown id. O(1) when
  /// every node's allocatable is whole (see total_allocatable()), else O(nodes).
  void set_node_ready(NodeId n, bool ready);
  /// Cordons a node (spec.unschedulable = true: `kubectl cordon`, a drain) or uncordons it. A
  /// cordoned node stays in the snapshot and its allocatable in total_allocatable(); the
  /// predicates plugin rejects it for new pods. Throws std::out_of_range for an unknown id.
  void set_node_unschedulable(NodeId n, bool unschedulable);
  /// Adds a job (PodGroup) with no tasks yet, phase as given (normally Pending).
  JobId add_job(JobInfo j);
  /// Creates a pod of `job` in status Pending. best_effort is derived from resreq.
  TaskId add_task(JobId job, TaskInfo t);
  /// Moves a task to `status`; `node` is required for statuses that occupy a node and ignored
  /// otherwise. Updates node idle/used/pipelined/releasing and the job's counters exactly as
  /// Volcano's NodeInfo.AddTask/RemoveTask and JobInfo.UpdateTaskStatus do.
  void set_task_status(TaskId t, TaskStatus status, NodeId node = kNone);
  /// A move between allocated statuses (Binding -> Bound -> Running) that the kubelet reports.
  /// It changes no resource aggregate and no count any built-in plugin or action reads (they
  /// all treat the allocated statuses alike, as Volcano's AllocatedStatus does), so it does not
  /// count as a change for cycle skipping. A custom plugin that tells Bound from Running must
  /// use set_task_status instead. Throws std::logic_error if either status is not allocated.
  void set_task_status_within_allocated(TaskId t, TaskStatus status);
  void set_podgroup_phase(JobId j, PodGroupPhase p);
  /// The pod is gone (its deletion completed, e.g. after an eviction's termination grace
  /// period): off its node, out of its job's task list and counters. The TaskInfo stays, with
  /// status Unknown and no node, until its id is reused (IdReuse); the job keeps its PodGroup.
  void remove_task(TaskId t);
  /// The job's PodGroup was deleted (Volcano's job controller deletes it whenever it kills the
  /// whole job: job_controller_actions.go:212-225). Volcano's cache keeps the job with its pods
  /// but unsets its PodGroup (event_handlers.go deletePodGroup: job.UnsetPodGroup()), and a job
  /// without PodGroup is left out of the snapshot (cache.go:1407-1414): here the job leaves
  /// the live set — the lists, its queue's job count and sums, every session — while its tasks
  /// stay where they are (a pod being deleted keeps holding its node as Releasing until
  /// remove_task). Only remove_task, set_task_status, set_podgroup and remove_job may then be
  /// applied to it. No-op if the PodGroup is unset already or the job was removed.
  void unset_podgroup(JobId j);
  /// A PodGroup is created again for a job whose PodGroup was unset (Volcano: the job
  /// controller's next sync, createOrUpdatePodGroup; the cache's SetPodGroup on the same job,
  /// which keeps its pods): the job is live again with spec's name, queue, min_available,
  /// priority, creation, uid, sla_waiting_time, min_resources and phase. A reader's entry of
  /// the job is stale (PendingChange::Renewed). Throws std::logic_error if the PodGroup is not
  /// unset, std::invalid_argument for an unknown queue.
  void set_podgroup(JobId j, const JobInfo& spec);
  /// Removes a finished job from the live set (its tasks must be off every node; with
  /// IdReuse::AfterCycle it must have no tasks at all). Throws std::logic_error otherwise.
  void remove_job(JobId j);

  // ---- informer-style updates (SchedulerCache drives these; each bumps generation) ----
  /// Replaces a node's spec — labels, taints, allocatable, capacity, daemonset_used,
  /// unschedulable, ready, instance_type — keeping the tasks on it (Volcano NodeInfo.SetNode:
  /// idle = allocatable - used). The name is the node's key and must not change. A node that
  /// stops being ready keeps its tasks, which their jobs still count (as Volcano's cache does:
  /// the node only leaves the snapshot); nothing new is placed on it (predicates). Throws
  /// std::invalid_argument for a new name, std::out_of_range for an unknown id.
  void update_node(NodeId n, const NodeInfo& spec);
  /// The node left the cluster (Volcano RemoveNode). It must hold no tasks (std::logic_error);
  /// its name is free for a new node at once, its id at the next release_removed() with
  /// IdReuse::AfterCycle. Until reused the slot stays in nodes() as a node that is not ready
  /// with no name, which no plugin places anything on.
  void remove_node(NodeId n);
  /// Adds (add = true) or takes away the requests of a pod on node n that this state does not
  /// schedule — another scheduler's pod, or one whose PodGroup is unknown: like a DaemonSet's
  /// pod it counts in daemonset_used and used (Volcano's cache adds every pod bound to a node,
  /// whatever its scheduler: event_handlers.go addTask). A pod being deleted (`releasing`,
  /// Volcano's Releasing) counts in the node's releasing too, as NodeInfo.AddTask has it
  /// (api/node_info.go:424-428), so future_idle() includes it; take it away with the same flag.
  /// Throws std::out_of_range.
  void change_other_pod_usage(NodeId n, const Resource& request, bool add, bool releasing = false);
  /// Replaces a PodGroup's spec: name, queue, min_available, priority, creation, uid,
  /// sla_waiting_time, has_min_resources, min_resources; and its phase as set_podgroup_phase
  /// does. Throws std::invalid_argument for an unknown queue.
  void update_job(JobId j, const JobInfo& spec);
  /// Replaces a pod's spec: name, index, resreq, priority, creation, uid, node_selector,
  /// node_affinity, tolerations, system_critical, preemptable, nominated_node (status and node are changed by
  /// set_task_status). A task on a node is taken off and put back so its node and job sums
  /// follow a changed request.
  void update_task(TaskId t, const TaskInfo& spec);
  /// Replaces a queue's spec (weight, capability, guarantee, deserved, parent, state,
  /// priority, reclaimable, creation, uid, name).
  void update_queue(QueueId q, const QueueInfo& spec);
  /// The queue was deleted. It must have no live jobs (std::logic_error; Volcano's admission
  /// webhook refuses to delete a queue that is not Closed). Until its id is reused the slot
  /// stays in queues() as a Closed queue with no name, weight, guarantee, capability or
  /// parent, which no plugin counts (every plugin skips a queue without jobs, and the slot
  /// adds nothing to a sum).
  void remove_queue(QueueId q);
  /// With IdReuse::AfterCycle, the ids removed since the last call become reusable (returned,
  /// so that a caller keeping per-id state resets it); with IdReuse::Never it returns nothing.
  /// Scheduler::run_once calls it after each session, once every action has seen the removals;
  /// a program that drives a ClusterState without a Scheduler calls it itself, or its memory
  /// grows with every removal.
  ReleasedIds release_removed();
  /// Drops the pending log's entries numbered below `up_to` (pending_log_base() becomes
  /// `up_to`, or stays if it is already past it). Scheduler::run_once drops, after each session,
  /// the entries that were there when the session opened: enqueue has read them; those the
  /// session itself appended stay for the next one. Without a Scheduler, call it with the
  /// number your own reader has reached.
  void trim_pending_log(std::uint64_t up_to);
  void set_now(TimeNs t) { now_ = t; }

  // ---- reading ----
  TimeNs now() const { return now_; }
  std::uint64_t generation() const { return generation_; }
  /// Changes with every status change into or out of Running (in a session or not): unchanged
  /// means the same tasks are Running, on the same nodes, so that an action may keep what it
  /// derived from that set from one session to the next (the built-in actions follow
  /// placement_log(), which also says which tasks changed). A version of one state never
  /// equals a version of another, a copy included (StateVersion).
  StateVersion running_version() const { return {lineage_.token(), running_version_}; }
  /// The same for Bound or Running (Volcano's PreemptableStatus: preempt's victims).
  StateVersion bound_or_running_version() const { return {lineage_.token(), bound_or_running_version_}; }
  /// A version that stands for this state itself (equal only for the same state, a copy
  /// excluded): a reader of placement_log() keeps it to know whose log it read.
  StateVersion lineage() const { return {lineage_.token(), 0}; }
  /// The tasks whose place among the victims preempt and reclaim choose from may have changed,
  /// in order (a task may appear more than once): every status change into or out of Bound or
  /// Running (a removal included), a change of spec (update_task), and every task of a job
  /// whose queue or PodGroup changed (update_job, unset_podgroup, set_podgroup). Entry i is
  /// change number placement_log_base() + i over the state's life: an action that keeps such
  /// lists from one session to the next reads the entries from the number it has reached and
  /// re-examines those tasks only, or starts again from the whole state if that number is
  /// below placement_log_base() (it missed entries). Scheduler::run_once trims it after each
  /// session (trim_placement_log); without a Scheduler it is dropped whole once it holds 2^20
  /// entries (the base moves past them).
  const std::vector<TaskId>& placement_log() const { return placement_log_; }
  std::uint64_t placement_log_base() const { return placement_log_base_; }
  /// Drops the placement log's entries numbered below `up_to`, as trim_pending_log does.
  void trim_placement_log(std::uint64_t up_to);
  /// Changes whenever a node's idle, used, releasing or pipelined resources change (a task
  /// placed on or taken off it, in a session or not) or a node is added: unchanged means every
  /// node's resources are as they were, so a resource-fit scan over the nodes gives the same
  /// answer. Counts within this state only (compare values of one state).
  std::uint64_t node_resources_version() const { return node_resources_version_; }
  /// Volcano FutureIdle (Idle + Releasing - Pipelined) of node n: the value
  /// NodeInfo::future_idle() computes, kept as tasks move on and off the node (preempt and
  /// reclaim read it per node for every preemptor). The reference stays valid until the next
  /// add_node.
  const Resource& future_idle(NodeId n) const { return future_idle_[n]; }
  const ChunkedVector<TaskInfo>& tasks() const { return tasks_; }
  const ChunkedVector<JobInfo>& jobs() const { return jobs_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const std::vector<QueueInfo>& queues() const { return queues_; }
  /// The node named `name`, or kNone.
  NodeId find_node(const std::string& name) const;
  TaskInfo& task(TaskId t) { return tasks_[t]; }
  const TaskInfo& task(TaskId t) const { return tasks_[t]; }
  JobInfo& job(JobId j) { return jobs_[j]; }
  const JobInfo& job(JobId j) const { return jobs_[j]; }
  NodeInfo& node(NodeId n) { return nodes_[n]; }
  const NodeInfo& node(NodeId n) const { return nodes_[n]; }
  QueueInfo& queue(QueueId q) { return queues_[q]; }
  const QueueInfo& queue(QueueId q) const { return queues_[q]; }
  /// Live jobs whose PodGroup is Pending (no pods yet), and all other live jobs. Order within
  /// each list is unspecified (removal swaps); every order the scheduler builds from them is a
  /// total order, so the lists' order never shows in a decision.
  const std::vector<JobId>& pending_jobs() const { return lists_[0]; }
  const std::vector<JobId>& active_jobs() const { return lists_[1]; }
  std::size_t live_job_count() const { return lists_[0].size() + lists_[1].size(); }
  /// A change to the set of Pending PodGroups (pending_log).
  enum class PendingChange : std::uint8_t {
    Entered,  ///< added, or its phase moved back to Pending
    Left,     ///< its phase moved on, or it was removed
    Renewed,  ///< its queue or minResources changed (update_job), in whatever phase: an entry a
              ///< reader keeps for it is stale
  };
  /// The changes to the set of Pending PodGroups not yet trimmed (trim_pending_log), in order.
  /// Entry i of the log is change number pending_log_base() + i, counted over the state's
  /// life: an action that keeps per-cycle state follows the set by remembering the next number
  /// it has to read, and starts again from pending_jobs() if that number is below
  /// pending_log_base() (it missed entries).
  const std::vector<std::pair<JobId, PendingChange>>& pending_log() const { return pending_log_; }
  std::uint64_t pending_log_base() const { return pending_log_base_; }
  /// Two facts per job, kept with its task counts so that a loop over every active job in every
  /// session (allocate's job orders, gang's close) need not open the JobInfo of the jobs they
  /// pass over: a Pending task that is not BestEffort (JobInfo::count(Pending) >
  /// pending_best_effort_num), and tasks without being ready (!tasks.empty() && !is_ready()).
  bool has_pending_tasks(JobId j) const { return (job_flags_[j] & kHasPendingTasks) != 0; }
  bool not_ready_with_tasks(JobId j) const { return (job_flags_[j] & kNotReadyWithTasks) != 0; }
  /// Number of Pending PodGroups that already have pods.
  std::int32_t pending_jobs_with_pods() const { return pending_with_pods_; }
  /// Live jobs per queue (proportion builds attributes only for queues with jobs).
  std::int32_t queue_job_count(QueueId q) const { return queue_jobs_[q]; }
  /// Sum of the allocatable of Ready nodes (Volcano ssn.TotalResource). While every node's
  /// allocatable is whole in each dimension (millicores, bytes, counts: what Kubernetes
  /// quantities give) it is kept as an exact integer sum, changed by one node at a time, and
  /// read as that sum rounded once to double — the same double as adding the nodes one by one
  /// whenever the sum stays below 2^53, and independent of their order beyond. A node with a
  /// fractional allocatable switches to re-adding the Ready nodes in id order on each change.
  const Resource& total_allocatable() const { return total_allocatable_; }
  /// Sum of the used resources of Ready nodes (tasks and DaemonSet pods).
  Resource total_used() const;
  /// Per queue, the sums over its live jobs that proportion and overcommit take at
  /// every session open (allocated, request, inqueue, elastic: queue_job_sums.hpp), kept as
  /// jobs change; nullptr when they cannot be kept exactly (a request that is not a whole
  /// number, or sums beyond 2^53): then take QueueJobSums::from_scratch(state). A job's queue,
  /// minAvailable and minResources must not change once it is added.
  const QueueJobSums* queue_job_sums() const { return job_sums_.refresh(*this) ? &job_sums_ : nullptr; }
  /// True if some node has a PreferNoSchedule taint (taints are fixed when a node is added).
  bool has_prefer_no_schedule_taints() const { return prefer_no_schedule_taints_; }

  // ---- for Statement: in-session changes that do not count as a generation change ----
  void apply_task_status_quiet(TaskId t, TaskStatus status, NodeId node);
  void bump_generation() { ++generation_; }

  /// Checks every aggregate against a recomputation from scratch and every node against
  /// over-allocation; returns a description of the first violation or an empty string.
  std::string check_invariants() const;

 private:
  bool node_live(NodeId n) const;  // added and not removed
  void node_add_task(NodeInfo& n, const TaskInfo& t);
  void node_remove_task(NodeInfo& n, const TaskInfo& t);
  std::vector<Resource> future_idle_;  // per node: NodeInfo::future_idle() as of its last change
  ChunkedVector<TaskInfo> tasks_;  // references stay valid as tasks are added
  ChunkedVector<JobInfo> jobs_;
  std::vector<NodeInfo> nodes_;
  std::vector<QueueInfo> queues_;
  void list_insert(JobId j);
  void list_erase(JobId j);
  std::vector<JobId> lists_[2];           // [0] PodGroup Pending, [1] the rest
  std::vector<std::uint32_t> list_pos_;   // job id -> index in its list
  static constexpr std::uint8_t kHasPendingTasks = 1, kNotReadyWithTasks = 2;
  std::vector<std::uint8_t> job_flags_;   // job id -> has_pending_tasks | not_ready_with_tasks
  void refresh_job_flags(const JobInfo& j);
  std::vector<std::int32_t> queue_jobs_;
  std::vector<std::pair<JobId, PendingChange>> pending_log_;
  std::uint64_t pending_log_base_ = 0;
  std::vector<TaskId> placement_log_;
  std::uint64_t placement_log_base_ = 0;
  void log_placement(TaskId t);
  void log_placement_of_job(const JobInfo& j);
  // IdReuse::AfterCycle: ids removed since the last release_removed(), and ids free to reuse.
  IdReuse reuse_;
  ReleasedIds removed_, free_;
  std::int32_t pending_with_pods_ = 0;
  void total_change(const Resource& r, bool add, bool last_node);
  void total_rebuild();
  std::unordered_map<std::string, NodeId> node_index_;  // name -> id (lookups only, never iterated)
  Resource total_allocatable_;
  // The exact sums (resource name id -> int64) while totals_exact_: every allocatable so far
  // whole and no sum overflowed.
  std::vector<std::pair<std::uint16_t, std::int64_t>> total_exact_;
  bool totals_exact_ = true;
  bool prefer_no_schedule_taints_ = false;
  mutable QueueJobSums job_sums_;  // brought up to date when read
  /// The token of this state's versions: fresh for every state, a copy included (a move keeps it).
  class Lineage {
   public:
    Lineage() : token_(std::make_shared<const char>('\0')) {}
    Lineage(const Lineage&) : Lineage() {}
    Lineage& operator=(const Lineage&) {
      token_ = std::make_shared<const char>('\0');
      return *this;
    }
    Lineage(Lineage&&) noexcept = default;
    Lineage& operator=(Lineage&&) noexcept = default;
    ~Lineage() = default;
    const std::shared_ptr<const char>& token() const { return token_; }

   private:
    std::shared_ptr<const char> token_;
  };
  Lineage lineage_;
  TimeNs now_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t running_version_ = 0;
  std::uint64_t bound_or_running_version_ = 0;
  std::uint64_t node_resources_version_ = 0;
};

/// True for statuses in which a task holds (or reserves) resources on a node.
constexpr bool on_node_status(TaskStatus s) {
  return allocated_status(s) || s == TaskStatus::Pipelined || s == TaskStatus::Releasing;
}

}  // namespace mltwin::policy
