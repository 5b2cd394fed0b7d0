// mltwin/policy/scheduler_cache.hpp — the cluster as a long-running scheduler sees it: the
// Kubernetes objects its informers deliver, kept by UID, and the ClusterState they make.
//
// Volcano's SchedulerCache (pkg/scheduler/cache/event_handlers.go at v1.12.1) takes add,
// update and delete events for pods, nodes, PodGroups and queues, in whatever order the
// informers deliver them. This class does the same and keeps a ClusterState with
// IdReuse::AfterCycle up to date, so that a Scheduler runs on it cycle after cycle and the
// memory stays bounded by the objects that exist.
//
// Every object is projected into the state from what is known at the time, and re-projected
// when what it depends on arrives or leaves, so that the state after a set of events does not
// depend on their order:
//   - a queue is always in the state;
//   - a PodGroup is a job of the state while its queue exists (Volcano leaves a job whose
//     queue does not exist out of the snapshot: cache.go Snapshot);
//   - a pod is a task of its PodGroup's job while that job is in the state and, if its status
//     holds a node, that node exists; otherwise a pod on a known node that holds resources
//     counts there as another scheduler's pod does (ClusterState::change_other_pod_usage:
//     Volcano's cache adds every pod bound to a node to that node, event_handlers.go addTask,
//     as releasing when it is being deleted: a pod of a Job the job controller killed, whose
//     PodGroup is gone while the pod terminates);
//     otherwise it is kept here only, until what it needs arrives.
// Differences from Volcano, all while the informers are still catching up: a pod whose status
// names a node that does not exist yet is not in its job (Volcano counts it in its job and
// makes a node shell that is not ready); a queue whose parent does not exist yet is a child of
// the root.
//
// Threading: like ClusterState, owned by the scheduling thread (docs/stability.md); an
// informer running elsewhere hands its events to that thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/export.hpp"
#include "mltwin/policy/objects.hpp"

namespace mltwin::policy {

/// status.phase of a pod.
enum class PodPhase : std::uint8_t { Pending, Running, Succeeded, Failed, Unknown };

/// Volcano's TaskStatus of a pod (pkg/scheduler/api/helpers.go getTaskStatus): Running, or
/// Releasing once it is being deleted; Pending without a node, Bound with one, or Releasing
/// once deleted; Succeeded, Failed and Unknown as the phase says.
MLTWIN_POLICY_EXPORT TaskStatus task_status_of(PodPhase phase, bool has_node, bool being_deleted);

/// A 64-bit key that orders Kubernetes UIDs as their strings order: for an RFC 4122 UID
/// (8-4-4-4-12 hex digits) its first 64 bits, else the string's first 8 bytes, big-endian. A
/// pod's is the task order's last tiebreak (helpers.CompareTask `lv.UID < rv.UID`, a TaskInfo's
/// UID being its pod's metadata.uid); a PodGroup's and a Queue's decide only between equal names
/// (Volcano's JobInfo/QueueInfo UIDs are their names: JobInfo::name, QueueInfo::name). Two UIDs with the same key compare equal here (random
/// UUIDs share their first 60 random bits with odds of about n^2 / 2^61).
MLTWIN_POLICY_EXPORT std::uint64_t uid_order_key(std::string_view uid);

/// A Queue (scheduling.volcano.sh/v1beta1) as the informer delivers it.
struct MLTWIN_POLICY_EXPORT QueueObject {
  std::string uid;     ///< metadata.uid
  std::string parent;  ///< spec.parent, "" for none (spec.parent of QueueInfo is set from it)
  QueueInfo spec;      ///< name = metadata.name; id and parent are set by the cache
};

/// A Node.
struct MLTWIN_POLICY_EXPORT NodeObject {
  std::string uid;  ///< metadata.uid
  NodeInfo spec;    ///< name = metadata.name; id and the resource aggregates are the state's
};

/// A PodGroup (scheduling.volcano.sh/v1beta1).
struct MLTWIN_POLICY_EXPORT PodGroupObject {
  std::string uid;    ///< metadata.uid
  std::string name;   ///< "namespace/name" (Volcano's JobID)
  std::string queue;  ///< spec.queue (the name of a Queue)
  JobInfo spec;       ///< phase = status.phase; id, queue and tasks are set by the cache;
                      ///< uid 0: uid_order_key(uid)
};

/// A Pod.
struct MLTWIN_POLICY_EXPORT PodObject {
  std::string uid;       ///< metadata.uid
  std::string name;      ///< "namespace/name"
  std::string podgroup;  ///< "namespace/name" of its PodGroup (annotation scheduling.k8s.io/group-name), "" if none
  std::string node;      ///< spec.nodeName, "" if not bound
  TaskStatus status = TaskStatus::Pending;  ///< task_status_of(status.phase, ...)
  TaskInfo spec;         ///< requests and constraints; id, job, status, node are set by the cache;
                         ///< uid 0: uid_order_key(uid)
};

class MLTWIN_POLICY_EXPORT SchedulerCache {
 public:
  SchedulerCache() : state_(IdReuse::AfterCycle) {}
  SchedulerCache(const SchedulerCache&) = delete;
  SchedulerCache& operator=(const SchedulerCache&) = delete;

  /// The state to schedule on (Scheduler::run_once(cache.state(), backend)).
  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }

  // ---- informer events. apply_* is an add or an update (an informer's relist may deliver an
  // add for an object it already delivered); delete_* of an unknown UID does nothing. ----
  /// Throws std::invalid_argument for an empty uid or name, or a name another queue has.
  void apply_queue(QueueObject q);
  void delete_queue(std::string_view uid);
  /// Throws std::invalid_argument for an empty uid or name, or a name another node has. A
  /// new name for a known uid is a new node (the old one leaves).
  void apply_node(NodeObject n);
  void delete_node(std::string_view uid);
  /// Throws std::invalid_argument for an empty uid or name, or a name another PodGroup has.
  void apply_podgroup(PodGroupObject pg);
  void delete_podgroup(std::string_view uid);
  /// An update that would take a pod the state holds in an allocated status (Binding, Bound,
  /// Running, Allocated) back to Pending without a node is ignored: the scheduler's own bind
  /// is on its way (event_handlers.go updatePod, allocatedPodInCache). Throws
  /// std::invalid_argument for an empty uid or name, or a name another pod has.
  void apply_pod(PodObject p);
  void delete_pod(std::string_view uid);

  // ---- lookups: kNone when the object is unknown or not in the state (see the header) ----
  TaskId find_pod(std::string_view uid) const;
  TaskId find_pod_by_name(std::string_view namespaced_name) const;
  JobId find_podgroup(std::string_view uid) const;
  JobId find_podgroup_by_name(std::string_view namespaced_name) const;
  NodeId find_node(std::string_view uid) const;
  NodeId find_node_by_name(std::string_view name) const;
  QueueId find_queue(std::string_view uid) const;
  QueueId find_queue_by_name(std::string_view name) const;
  /// The UID of the pod behind task t, of the PodGroup behind job j (what a Backend that binds
  /// through the API server needs); "" if none.
  const std::string& pod_uid(TaskId t) const;
  const std::string& podgroup_uid(JobId j) const;

  /// How many objects of each kind the cache holds (in the state or waiting).
  struct Counts {
    std::size_t queues = 0, nodes = 0, podgroups = 0, pods = 0;
  };
  Counts counts() const { return {queues_.size(), nodes_.size(), podgroups_.size(), pods_.size()}; }

 private:
  struct QueueRec {
    QueueObject obj;
    QueueId id = kNone;
  };
  struct NodeRec {
    NodeObject obj;
    NodeId id = kNone;
  };
  struct PodGroupRec {
    PodGroupObject obj;
    JobId job = kNone;
  };
  enum class Where : std::uint8_t { Nowhere, Task, OtherPod };
  struct PodRec {
    PodObject obj;
    Where where = Where::Nowhere;
    TaskId task = kNone;        // Where::Task
    NodeId other_node = kNone;  // Where::OtherPod: the node its request was added to
    Resource other_request;     // ... and that request
    bool other_releasing = false;  // ... counted as releasing there (the pod is being deleted)
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using ByKey = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
  using Index = ByKey<std::string>;  // name -> uid
  using Dependents = std::map<std::string, std::set<std::string>, std::less<>>;  // name -> uids, ordered

  void place_pod(PodRec& r);
  void unplace_pod(PodRec& r);
  void place_podgroup(PodGroupRec& r);
  void replace_pods_of_group(const std::string& group);
  void replace_pods_on_node(const std::string& node);
  void resolve_queue_parents();
  static void check_key(const char* kind, const std::string& uid, const std::string& name);
  /// The preamble of every apply_*: checks the key; a known uid under a new name is another
  /// object (the old one is deleted); a name another uid holds goes to the newer object (that
  /// one is deleted). Returns the record of `uid`, or end() if it is new.
  template <class Map, class NameOf>
  typename Map::iterator claim(Map& records, const Index& by_name, const char* kind, const std::string& uid,
                               const std::string& name, NameOf name_of, void (SchedulerCache::*remove)(std::string_view));

  ClusterState state_;
  ByKey<QueueRec> queues_;
  ByKey<NodeRec> nodes_;
  ByKey<PodGroupRec> podgroups_;
  ByKey<PodRec> pods_;
  Index queue_by_name_, node_by_name_, podgroup_by_name_, pod_by_name_;
  Dependents podgroups_of_queue_, pods_of_group_, pods_on_node_;
  std::vector<std::string> task_uid_, job_uid_;  // TaskId / JobId -> uid, "" if none
};

}  // namespace mltwin::policy
