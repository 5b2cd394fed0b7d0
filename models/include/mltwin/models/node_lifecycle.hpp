// mltwin/models/node_lifecycle.hpp — the nodes of a training cluster over their lifetime: the
// node groups' nodes at t = 0, node failures and their replacement, Spot interruptions (notice,
// drain, termination), and the Kubernetes cluster autoscaler (docs/startup-and-faults.md).
//
// A component of the training model (TrainingCluster): it owns the per-node books and its own
// events, adds and removes nodes in the shared policy::ClusterState, records node rows and
// events, and tells the rest of the cluster what it must do about a node through NodeHost
// (fail the pods of a lost node, drain a pod, wake the scheduler).
//
// Cluster autoscaler (kubernetes/autoscaler, cluster-autoscaler; FAQ "How does scale-up work?"
// and "How does scale-down work?"), as modelled:
// - Every --scan-interval (10 s) aligned to t = 0, when something changed since the last scan
//   (or a scale-down countdown runs), it lists the pods that are Pending (created, not bound).
// - It drops the pods that would fit on existing or upcoming nodes (filter-out-schedulable: it
//   knows nothing of gangs, so one pod of a gang that fits an idle node is not counted), then
//   bin-packs the rest (first fit, largest NeuronCore request first) onto new nodes of the first
//   node group (scenario order) that can hold them, up to its max_size. The nodes are Ready
//   launch_time later.
// - A node without pods for --scale-down-unneeded-time (10 min) is removed, never below
//   min_size, and not within --scale-down-delay-after-add (10 min) of a scale-up. Nodes with
//   pods are never removed here (a training pod cannot move).
// It looks only at pods: a Volcano PodGroup that the enqueue action keeps Pending has none, so
// the autoscaler never adds nodes for it (volcano-sh/volcano#3910, #1775) — the trap the
// scenario avoids by leaving the enqueue action out of the scheduler configuration (then
// Volcano's allocate action moves Pending PodGroups to Inqueue itself, their pods are created
// and the autoscaler sees them).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/recorder.hpp"
#include "mltwin/models/training.hpp"
#include "mltwin/policy/cluster_state.hpp"

namespace mltwin::models {

/// One node's books: its group and capacity slot, its lifetime, its pending fault events.
struct NodeRec {
  std::size_t group = 0;                       ///< index in scenario.node_groups
  core::Time added = core::Time::zero();       ///< launch requested (billing starts)
  core::Time removed = core::Time::max();      ///< failed, interrupted or removed by the autoscaler
  core::Time empty_since = core::Time::zero(); ///< no pod on it since (autoscaler)
  core::EventId failure_event;                 ///< pending random failure, while busy
  bool failure_pending = false;
  bool launching = false;                      ///< scale-up or replacement not yet Ready
  std::uint32_t fabric_slot = UINT32_MAX;      ///< its node in the Fabric (a replacement takes the failed node's)
  std::int64_t slot = 0;                       ///< its capacity slot in the group (node_launch)
  NodeLaunch launch;                           ///< its instance type and purchase option
  core::EventId spot_event;                    ///< pending random Spot interruption notice, while busy
  bool spot_pending = false;
  bool noticed = false;                        ///< given a Spot interruption notice (cordoned, draining)
  bool replaced = false;                       ///< its replacement is launched already (Capacity Rebalancing)
  bool scaled_up = false;                      ///< launched by an autoscaler scale-up
  std::uint64_t launch_signature = 0;          ///< the Pending pods it was launched for (autoscaler_scan)
  bool held_pod = false;                       ///< a pod was bound to it at some time
  /// A node failure's timeline (docs/startup-and-faults.md): the instance failed (its kubelet
  /// went silent), the node lifecycle controller marked it NotReady, the Node object was deleted.
  core::Time failed = core::Time::max();
  core::Time not_ready = core::Time::max();
  core::Time node_deleted = core::Time::max();
  core::Time pod_gc = core::Time::max();  ///< when PodGC deletes the deleted node's pods
  /// The kubelet is gone (failed, not yet deleted): nothing on the node starts, stops or
  /// finishes deleting any more; its pods wait for the taint manager or PodGC.
  bool unreachable() const { return failed != core::Time::max(); }
};

/// What the rest of the training cluster does about a node's fate (TrainingCluster implements it).
class NodeHost {
 public:
  virtual ~NodeHost() = default;
  /// Node `n` is gone (terminated at the end of its Spot notice): its pods fail with it.
  virtual void pods_lost_with_node(policy::NodeId n) = 0;
  /// Node `n`'s instance failed: its kubelet is silent, its containers are dead. The API shows
  /// nothing yet (its pods stay Running); the jobs with pods there stop training.
  virtual void node_unreachable(policy::NodeId) {}
  /// How long after node `n` is tainted node.kubernetes.io/unreachable:NoExecute the taint
  /// manager evicts each of its pods: the distinct delays, one per pod its tolerations (of that
  /// taint and the node's other NoExecute taints) let go (a pod tolerating them for ever, or
  /// with its deletion scheduled already, has none). `default_toleration` is the
  /// DefaultTolerationSeconds admission plugin's, for a pod without its own.
  virtual std::vector<core::Duration> taint_eviction_delays(policy::NodeId, core::Duration default_toleration) {
    return {default_toleration};
  }
  /// The taint manager evicts (deletes) node `n`'s pods whose toleration of NoExecute taint
  /// node.kubernetes.io/unreachable has run out, the node tainted `tainted_for` ago. They stay
  /// Terminating: no kubelet confirms the deletion.
  virtual void taint_evict_pods(policy::NodeId, core::Duration /*tainted_for*/) {}
  /// PodGC deletes the pods of deleted node `n` (gcOrphaned): each is patched Failed (unless
  /// terminal) and force-deleted.
  virtual void pods_garbage_collected(policy::NodeId) {}
  /// Evicts pod `t` for a node drain, giving it at most `longest_grace`.
  virtual void drain_pod(policy::TaskId t, core::Duration longest_grace) = 0;
  /// Node `n` left the cluster: forget what was cached on it (images).
  virtual void node_left(policy::NodeId n) = 0;
  /// Something changed that the scheduler must see: run a cycle soon.
  virtual void wake_scheduler() = 0;
  /// NeuronCores a pod's request holds (the autoscaler packs the largest first).
  virtual double neuroncores_of(const policy::Resource& r) const = 0;
  /// Called before each of the component's events (the cluster notes the time of its last event).
  virtual void before_event() = 0;
  /// Only jobs that can never be placed are left (TrainingState::settled): once it has removed a
  /// node, the autoscaler scales up no more (its churn would go on for ever).
  virtual bool settled() const { return false; }
};

class NodeLifecycle {
 public:
  /// Adds the node groups' nodes at t = 0 to `state` and schedules the scenario's scheduled
  /// failures and Spot interruptions. Throws std::invalid_argument for an instance type not in
  /// the catalog, or a scheduled fault on a node that is not there (or not Spot) at t = 0.
  /// Every reference must outlive the component.
  NodeLifecycle(const TrainingScenario& sc, core::Simulator& sim, core::RngStreams& rng, policy::ClusterState& state,
                TrainingRecorder& rec, TrainingStats& stats, NodeHost& host);
  NodeLifecycle(const NodeLifecycle&) = delete;
  NodeLifecycle& operator=(const NodeLifecycle&) = delete;

  /// The run starts: the nodes present now get their `nodes` rows; later nodes get theirs at launch.
  void start();
  /// Faults or an autoscaler are configured: nodes come and go.
  bool dynamic() const { return dynamic_; }
  const NodeRec& rec(policy::NodeId n) const { return recs_[n]; }
  /// Node `n`'s kubelet is gone (NodeRec::unreachable); false for a node without a record.
  bool unreachable(policy::NodeId n) const { return n < recs_.size() && recs_[n].unreachable(); }
  /// A node's pods changed (a pod bound or gone): the busy node's fault clocks, the idle
  /// node's autoscaler countdown. Only with dynamic().
  void occupancy_changed(policy::NodeId n);
  /// The autoscaler scans at its next interval (something changed). Only with an autoscaler.
  void ensure_scan();
  /// Pods of `pod`'s size that nodes the autoscaler may still add could hold (0 without one).
  std::int64_t headroom_fit(const policy::Resource& pod, const policy::TaskInfo& constraints) const;
  /// Node-seconds per group and pool up to `end`, into the stats.
  void close_books(core::Time end);

 private:
  policy::NodeId add_group_node(std::size_t group, bool ready, std::int64_t slot = -1);
  void record_launch(policy::NodeId n);
  void node_failure(policy::NodeId n);
  void node_not_ready(policy::NodeId n);
  void instance_terminated(policy::NodeId n);
  void delete_node(policy::NodeId n);
  void taint_eviction(policy::NodeId n);
  void pod_gc(policy::NodeId n);
  /// The Spot instance is terminated at the end of its notice: its pods fail, it leaves the
  /// cluster, and unless a replacement was launched already the Auto Scaling group launches one.
  void node_lost(policy::NodeId n, const std::string& event, const std::string& reason);
  /// The Auto Scaling group replaces node `n`: a new node of its slot, Ready at `ready_at`.
  void launch_replacement(policy::NodeId n, core::Time ready_at);
  void spot_notice(policy::NodeId n);
  void spot_termination(policy::NodeId n);
  void node_ready(policy::NodeId n);
  void autoscaler_scan();
  void before() { host_.before_event(); }

  const TrainingScenario& sc_;
  core::Simulator& sim_;
  policy::ClusterState& state_;
  TrainingRecorder& rec_;
  TrainingStats& stats_;
  NodeHost& host_;
  std::vector<NodeRec> recs_;          // per node id
  std::vector<int> group_next_index_;  // next node name suffix per group
  core::Engine* failure_rng_ = nullptr;  // with a failure rate ("node.failure")
  core::Engine* spot_rng_ = nullptr;     // with a Spot interruption rate ("spot.interruption")
  bool dynamic_ = false;
  bool started_ = false;  // start() ran: nodes are recorded as they launch
  bool scan_pending_ = false;
  bool settled_removed_ = false;  // a node removed once only never-placeable jobs were left (autoscaler_scan)
  // A churn cycle seen: a node launched for this set of Pending pods was removed without ever
  // holding one; no scale-up for the same set again (autoscaler_scan).
  bool churned_ = false;
  std::uint64_t churned_signature_ = 0;
  core::Time last_scale_up_ = core::Time::zero();
  bool scaled_up_ = false;

  template <auto Fn>
  using Ev = core::Event<Fn, &NodeLifecycle::before>;
  Ev<&NodeLifecycle::node_failure> failure_event_{this};
  Ev<&NodeLifecycle::node_not_ready> not_ready_event_{this};
  Ev<&NodeLifecycle::instance_terminated> terminated_event_{this};
  Ev<&NodeLifecycle::taint_eviction> taint_eviction_event_{this};
  Ev<&NodeLifecycle::pod_gc> pod_gc_event_{this};
  Ev<&NodeLifecycle::node_ready> ready_event_{this};
  Ev<&NodeLifecycle::spot_notice> spot_notice_event_{this};
  Ev<&NodeLifecycle::spot_termination> spot_termination_event_{this};
  Ev<&NodeLifecycle::autoscaler_scan> scan_event_{this};
};

}  // namespace mltwin::models
