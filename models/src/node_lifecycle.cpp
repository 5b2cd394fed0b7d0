// node_lifecycle.cpp — the nodes of a training cluster over their lifetime (node_lifecycle.hpp).
#include "mltwin/models/node_lifecycle.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <cstdio>
#include <stdexcept>

#include "mltwin/policy/node_constraints.hpp"

namespace mltwin::models {

using policy::NodeId;
using policy::Resource;
using policy::TaskId;
using policy::TaskStatus;

NodeLifecycle::NodeLifecycle(const TrainingScenario& scenario, core::Simulator& sim, core::RngStreams& rng,
                             policy::ClusterState& state, TrainingRecorder& rec, TrainingStats& stats, NodeHost& host)
    : sc_(scenario), sim_(sim), state_(state), rec_(rec), stats_(stats), host_(host) {
  const TrainingScenario& sc = sc_;
  dynamic_ = sc.faults.has_value() || sc.autoscaler.has_value();
  group_next_index_.assign(sc.node_groups.size(), 0);
  for (std::size_t g = 0; g < sc.node_groups.size(); ++g) {
    const NodeGroupSpec& ng = sc.node_groups[g];
    for (const std::string& type : ng.instance_types)
      if (!sc.catalog.find(type) && !ng.observed)  // a node of the user's cluster loads without a row
        throw std::invalid_argument("node group '" + ng.name + "': instance type '" + type + "' is not in the catalog");
    for (int i = 0; i < ng.count; ++i) {
      const NodeId id = add_group_node(g, true, i);
      recs_[id].fabric_slot = static_cast<std::uint32_t>(id);  // fabric_nodes_of's order
    }
  }
  if (!sc.faults) return;
  if (sc.faults->failure_rate_per_node_hour > 0) failure_rng_ = &rng.stream("node.failure");
  if (sc.faults->spot_interruption_rate_per_node_hour > 0) spot_rng_ = &rng.stream("spot.interruption");
  for (const NodeFailureAt& f : sc.faults->scheduled) {
    const NodeId id = state_.find_node(f.node);
    if (id == policy::kNone)
      throw std::invalid_argument("faults: scheduled failure of node '" + f.node + "', which is not in the cluster at t = 0");
    sim_.schedule(core::Time::zero() + f.at, &failure_event_, id);
  }
  for (const NodeFailureAt& f : sc.faults->spot_interruptions) {
    const NodeId id = state_.find_node(f.node);
    if (id == policy::kNone || recs_[id].launch.capacity != CapacityType::Spot)
      throw std::invalid_argument("faults: Spot interruption of node '" + f.node + "', which is not a Spot node at t = 0");
    sim_.schedule(core::Time::zero() + f.at, &spot_notice_event_, id);
  }
}

NodeId NodeLifecycle::add_group_node(std::size_t group, bool ready, std::int64_t slot) {
  const NodeGroupSpec& g = sc_.node_groups[group];
  if (slot < 0) {
    // A scale-up: the lowest slot no live node holds, so that the group at N nodes keeps the
    // Auto Scaling group's On-Demand / Spot split of N (node_launch).
    std::vector<char> held;
    for (const NodeRec& r : recs_)
      if (r.group == group && r.removed == core::Time::max()) {
        if (held.size() <= static_cast<std::size_t>(r.slot)) held.resize(static_cast<std::size_t>(r.slot) + 1, 0);
        held[static_cast<std::size_t>(r.slot)] = 1;
      }
    slot = 0;
    while (static_cast<std::size_t>(slot) < held.size() && held[static_cast<std::size_t>(slot)]) ++slot;
  }
  const NodeLaunch launch = node_launch(g, slot);
  policy::NodeInfo n;
  // A node of the user's cluster keeps its own name; a replacement of it is <name>-1, ...
  const int index = group_next_index_[group]++;
  n.name = g.observed && index == 0 ? g.observed->name : g.name + "-" + std::to_string(index);
  n.instance_type = g.instance_types[launch.type];
  const NodeResources res = node_resources(sc_, g, launch, n.name);
  n.capacity = res.capacity;
  n.allocatable = res.allocatable;
  n.daemonset_used = res.daemonsets;
  n.taints = g.taints;
  n.ready = ready;
  n.labels = node_labels(g, launch);
  if (g.observed) {
    // As the Node object was at t0: cordoned, or not Ready (then it stays so: nothing in the
    // twin makes it Ready).
    n.unschedulable = g.observed->unschedulable;
    if (index == 0) n.ready = ready && g.observed->ready;
  }
  // The kubelet's well-known kubernetes.io/hostname label (the node's name here), unless the
  // Node object has its own.
  if (!std::any_of(n.labels.begin(), n.labels.end(), [](const auto& kv) { return kv.first == "kubernetes.io/hostname"; }))
    n.labels.emplace_back("kubernetes.io/hostname", n.name);
  std::sort(n.labels.begin(), n.labels.end());
  const NodeId id = state_.add_node(n);
  if (recs_.size() <= id) recs_.resize(id + 1);
  NodeRec& r = recs_[id];
  r.group = group;
  r.added = sim_.now();
  r.empty_since = sim_.now();
  r.launching = !ready;
  r.slot = slot;
  r.launch = launch;
  if (started_) record_launch(id);
  return id;
}

void NodeLifecycle::record_launch(NodeId n) {
  const NodeRec& r = recs_[n];
  const NodeGroupSpec& g = sc_.node_groups[r.group];
  // The price the run's cost applies to the node (io::summarize: node_usd_per_hour over
  // [added, removed or the end]).
  rec_.node_launched({r.added, state_.node(n).name, g.name, g.instance_types.at(r.launch.type), to_string(r.launch.capacity),
                      g.availability_zone, node_usd_per_hour(sc_.catalog, g, r.launch),
                      node_price_source(sc_.catalog, g, r.launch)});
}

namespace {
std::string seconds_text(Duration d) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", d.seconds());
  return s;
}
}  // namespace

void NodeLifecycle::node_failure(NodeId n) {
  // The instance fails (docs/startup-and-faults.md, "Node failures"): its kubelet goes silent
  // and its containers die, but Kubernetes sees nothing until the node monitor grace period
  // ends — its pods stay Running in the API and the node Ready.
  NodeRec& r = recs_[n];
  if (r.removed != core::Time::max() || r.launching || r.unreachable()) return;  // gone, not up yet, or failed already
  r.failure_pending = false;
  if (r.spot_pending) {
    sim_.cancel(r.spot_event);
    r.spot_pending = false;
  }
  ++stats_.node_failures;
  r.failed = sim_.now();
  const FaultSpec& f = *sc_.faults;
  rec_.node_event({sim_.now(), state_.node(n).name, sc_.node_groups[r.group].name, "Failed",
                   "the instance failed: its kubelet stopped reporting; the node stays Ready for the node monitor grace "
                   "period (" + seconds_text(f.node_monitor_grace_period) + " s)"});
  host_.node_unreachable(n);
  sim_.schedule_in(f.node_monitor_grace_period, &not_ready_event_, n);
  sim_.schedule_in(f.instance_terminated_after, &terminated_event_, n);
}

void NodeLifecycle::node_not_ready(NodeId n) {
  // kube-controller-manager's node lifecycle controller: no heartbeat for the grace period, so
  // Ready Unknown and the taints node.kubernetes.io/unreachable NoSchedule and NoExecute.
  // Volcano's cache leaves a node that is not Ready out of its snapshot (cache.go Snapshot)
  // and its pods stay with their jobs (ClusterState::update_node).
  NodeRec& r = recs_[n];
  r.not_ready = sim_.now();
  policy::NodeInfo spec = state_.node(n);
  spec.ready = false;
  spec.taints.push_back({"node.kubernetes.io/unreachable", "", policy::TaintEffect::NoSchedule});
  spec.taints.push_back({"node.kubernetes.io/unreachable", "", policy::TaintEffect::NoExecute});
  state_.update_node(n, spec);
  rec_.node_event({sim_.now(), state_.node(n).name, sc_.node_groups[r.group].name, "NotReady",
                   "no kubelet heartbeat for " + seconds_text(sc_.faults->node_monitor_grace_period) +
                       " s: Ready Unknown, tainted node.kubernetes.io/unreachable:NoExecute"});
  host_.wake_scheduler();
  if (r.removed != core::Time::max()) delete_node(n);  // its instance is gone already
  // The taint manager (pkg/controller/tainteviction/taint_eviction.go processPodOnNode)
  // schedules each pod's deletion at the taint's time + its minimum tolerationSeconds: one event
  // per distinct delay, each evicting the pods whose toleration has run out. The Node's deletion
  // does not cancel that work (handleNodeUpdate only forgets the node's taints); PodGC's
  // deletion of the pods does (handlePodUpdate: NotFound), so no event is scheduled past it.
  const core::Time gc = recs_[n].pod_gc;
  for (core::Duration d : host_.taint_eviction_delays(n, sc_.faults->unreachable_toleration))
    if (sim_.now() + d < gc) sim_.schedule_in(d, &taint_eviction_event_, n);
}

void NodeLifecycle::instance_terminated(NodeId n) {
  // The Auto Scaling group terminates the failed instance (billing stops) and launches its
  // replacement; the Node object goes once the node is NotReady as well.
  NodeRec& r = recs_[n];
  if (r.removed != core::Time::max()) return;
  r.removed = sim_.now();
  rec_.node_ended({r.removed, state_.node(n).name});
  rec_.node_event({sim_.now(), state_.node(n).name, sc_.node_groups[r.group].name, "Terminated",
                   "the Auto Scaling group terminated the failed instance"});
  host_.node_left(n);
  const bool not_ready = r.not_ready != core::Time::max();
  // launch_replacement adds a node: recs_ may grow, so `r` is not used after it.
  if (!r.replaced) launch_replacement(n, r.failed + sc_.faults->replacement_time);
  if (not_ready) delete_node(n);
}

void NodeLifecycle::delete_node(NodeId n) {
  // The cloud node lifecycle controller deletes a NotReady node whose instance no longer
  // exists. PodGC (gc_controller.go gcOrphaned): the first pass after that sees the node
  // missing and quarantines it; the pass a quarantine later deletes its pods.
  NodeRec& r = recs_[n];
  r.node_deleted = sim_.now();
  rec_.node_event({sim_.now(), state_.node(n).name, sc_.node_groups[r.group].name, "Deleted",
                   "the Node object is deleted: its instance is gone"});
  const std::int64_t p = sc_.faults->pod_gc_period.count_ns();
  const std::int64_t seen = (sim_.now().ns() / p + 1) * p;
  r.pod_gc = core::Time::from_ns(seen) + sc_.faults->pod_gc_quarantine;
  sim_.schedule(r.pod_gc, &pod_gc_event_, n);
}

void NodeLifecycle::taint_eviction(NodeId n) {
  // The taint manager: some pods' unreachable toleration (their own, or DefaultTolerationSeconds')
  // ran out. Its work items are per pod: the Node's deletion does not cancel them
  // (taint_eviction.go handleNodeUpdate only forgets the node's taints), only the pod's deletion
  // does (handlePodUpdate, NotFound) — a pod PodGC has not removed yet is still deleted.
  if (sim_.now() >= recs_[n].pod_gc) return;  // PodGC deleted the node's pods: their work is cancelled
  host_.taint_evict_pods(n, sim_.now() - recs_[n].not_ready);
  host_.wake_scheduler();
}

void NodeLifecycle::pod_gc(NodeId n) {
  host_.pods_garbage_collected(n);
  host_.wake_scheduler();
}

void NodeLifecycle::node_lost(NodeId n, const std::string& event, const std::string& reason) {
  NodeRec& r = recs_[n];
  r.removed = sim_.now();
  rec_.node_ended({r.removed, state_.node(n).name});
  if (r.spot_pending) {
    sim_.cancel(r.spot_event);
    r.spot_pending = false;
  }
  const std::string name = state_.node(n).name;
  rec_.node_event({sim_.now(), name, sc_.node_groups[r.group].name, event, reason});
  host_.pods_lost_with_node(n);
  state_.set_node_ready(n, false);
  host_.node_left(n);
  if (!recs_[n].replaced) launch_replacement(n, sim_.now() + sc_.faults->replacement_time);
  host_.wake_scheduler();
}

void NodeLifecycle::launch_replacement(NodeId n, core::Time ready_at) {
  // The Auto Scaling group replaces the instance: a new node in the same capacity slot (the same
  // instance type and purchase option), with an empty image cache.
  recs_[n].replaced = true;
  const std::size_t group = recs_[n].group;
  const NodeId rep = add_group_node(group, false, recs_[n].slot);
  recs_[rep].fabric_slot = recs_[n].fabric_slot;  // in the old instance's place on the network
  ++stats_.nodes_launched;
  rec_.node_event({sim_.now(), state_.node(rep).name, sc_.node_groups[group].name, "Launching", "replaces " + state_.node(n).name});
  sim_.schedule(ready_at, &ready_event_, rep);
}

void NodeLifecycle::spot_notice(NodeId n) {
  // EC2 User Guide, "Spot Instance interruption notices": a two-minute warning before EC2
  // interrupts the instance. EKS managed node groups (and aws-node-termination-handler on
  // self-managed ones, --enable-spot-interruption-draining) cordon the node and drain it: every
  // pod is evicted with its own terminationGracePeriodSeconds (NTH --pod-termination-grace-period
  // default -1: the pod's), which the termination at the end of the notice cuts short.
  NodeRec& r = recs_[n];
  if (r.removed != core::Time::max() || r.launching || r.noticed || r.unreachable()) return;  // gone, not up yet, noticed already, or failed
  if (r.spot_pending) {
    sim_.cancel(r.spot_event);  // a no-op when it is the event firing now
    r.spot_pending = false;
  }
  r.noticed = true;
  ++stats_.spot_interruptions;
  const Duration notice = sc_.faults->spot_notice;
  const std::string name = state_.node(n).name;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", notice.seconds());
  rec_.node_event({sim_.now(), name, sc_.node_groups[r.group].name, "SpotInterruptionNotice",
                   std::string("Spot interruption notice: cordoned and drained, terminated in ") + secs + " s"});
  state_.set_node_unschedulable(n, true);
  std::vector<TaskId> on;
  for (const auto* list : {&state_.pending_jobs(), &state_.active_jobs()})
    for (policy::JobId j : *list)
      for (TaskId t : state_.job(j).tasks)
        if (state_.task(t).node == n && policy::on_node_status(state_.task(t).status)) on.push_back(t);
  std::sort(on.begin(), on.end());  // task id order: independent of the lists' order
  for (TaskId t : on) host_.drain_pod(t, notice);
  // Capacity Rebalancing (EKS managed Spot node groups; eksctl capacityRebalance): the Auto
  // Scaling group launches the replacement now rather than at the termination.
  if (sc_.node_groups[r.group].capacity_rebalance) launch_replacement(n, sim_.now() + sc_.faults->replacement_time);
  sim_.schedule_in(notice, &spot_termination_event_, n);
  host_.wake_scheduler();
}

void NodeLifecycle::spot_termination(NodeId n) {
  NodeRec& r = recs_[n];
  if (r.removed != core::Time::max()) return;
  if (r.unreachable()) {  // failed during its notice: EC2 terminates it now all the same
    instance_terminated(n);
    return;
  }
  if (r.failure_pending) {
    sim_.cancel(r.failure_event);
    r.failure_pending = false;
  }
  node_lost(n, "SpotInterrupted", "Spot instance terminated at the end of its interruption notice");
}

void NodeLifecycle::node_ready(NodeId n) {
  NodeRec& r = recs_[n];
  r.launching = false;
  r.empty_since = sim_.now();
  state_.set_node_ready(n, true);
  rec_.node_event({sim_.now(), state_.node(n).name, sc_.node_groups[r.group].name, "Ready", ""});
  host_.wake_scheduler();
}

void NodeLifecycle::occupancy_changed(NodeId n) {
  NodeRec& r = recs_[n];
  if (r.removed != core::Time::max() || r.unreachable()) return;  // a failed node's clocks are stopped
  const bool busy = state_.node(n).task_count > 0;
  if (busy) r.held_pod = true;
  if (!busy) {
    r.empty_since = sim_.now();
    if (r.failure_pending) {
      sim_.cancel(r.failure_event);
      r.failure_pending = false;
    }
    if (r.spot_pending) {
      sim_.cancel(r.spot_event);
      r.spot_pending = false;
    }
    return;
  }
  // A busy Spot node is interrupted at the scenario's rate, the same way (its own stream).
  if (spot_rng_ != nullptr && !r.spot_pending && !r.noticed && r.launch.capacity == CapacityType::Spot) {
    boost::random::exponential_distribution<double> d(sc_.faults->spot_interruption_rate_per_node_hour / 3600.0);
    const double s = d(*spot_rng_);
    if (s <= 5e9) {
      r.spot_event = sim_.schedule_in(core::Duration::from_seconds(s), &spot_notice_event_, n);
      r.spot_pending = true;
    }
  }
  // A busy node fails at the scenario's rate; memoryless, so a new draw each time it becomes
  // busy gives exponential times to failure over its busy time.
  if (failure_rng_ == nullptr || r.failure_pending) return;
  boost::random::exponential_distribution<double> d(sc_.faults->failure_rate_per_node_hour / 3600.0);
  const double s = d(*failure_rng_);
  // A failure beyond about 158 years comes after any run (its times are at most 10 years), and
  // past 292 years it would not even be a Time: a node that never fails (a tiny rate).
  if (s > 5e9) return;
  r.failure_event = sim_.schedule_in(core::Duration::from_seconds(s), &failure_event_, n);
  r.failure_pending = true;
}

void NodeLifecycle::ensure_scan() {
  if (scan_pending_) return;
  const std::int64_t p = sc_.autoscaler->scan_interval.count_ns();
  const std::int64_t t = (sim_.now().ns() / p + 1) * p;  // the next loop after this change
  sim_.schedule(core::Time::from_ns(t), &scan_event_, 0);
  scan_pending_ = true;
}

std::int64_t NodeLifecycle::headroom_fit(const Resource& pod, const policy::TaskInfo& constraints) const {
  if (!sc_.autoscaler) return 0;
  std::int64_t fit = 0;
  for (std::size_t g = 0; g < sc_.node_groups.size(); ++g) {
    const NodeGroupSpec& ng = sc_.node_groups[g];
    if (ng.max_size < 0) continue;
    // The autoscaler only adds nodes of a group whose template node the pod's predicates accept.
    if (!policy::static_misfit(constraints, template_labels(ng), {}, ng.taints).empty()) continue;
    int live = 0;
    for (std::size_t n = 0; n < recs_.size(); ++n)
      if (recs_[n].group == g && recs_[n].removed == core::Time::max()) ++live;
    const Resource t = node_resources(sc_, ng).pod_room();
    std::int64_t per = INT64_MAX;
    pod.for_each([&](policy::ResourceName name, double want) {
      if (want > 0) per = std::min<std::int64_t>(per, static_cast<std::int64_t>(t.get(name) / want));
    });
    if (per == INT64_MAX) per = 1;
    fit += per * std::max(0, ng.max_size - live);
  }
  return fit;
}

void NodeLifecycle::autoscaler_scan() {
  scan_pending_ = false;
  const AutoscalerSpec& as = *sc_.autoscaler;
  const core::Time now = sim_.now();
  const std::size_t groups = sc_.node_groups.size();
  std::vector<int> live(groups, 0);
  for (const NodeRec& r : recs_)
    if (r.removed == core::Time::max()) ++live[r.group];

  // ---- scale-up: Pending pods that no existing or upcoming node can take.
  std::vector<TaskId> pending;
  for (const auto* list : {&state_.pending_jobs(), &state_.active_jobs()})
    for (policy::JobId j : *list)
      for (TaskId t : state_.job(j).tasks)
        if (state_.task(t).status == TaskStatus::Pending) pending.push_back(t);
  std::sort(pending.begin(), pending.end());
  // Once only jobs that can never be placed are left (NodeHost::settled), scale-ups for their
  // pods and removals of the nodes they leave empty would go on for ever (autoscaler churn):
  // the run shows the cycle up to its first removal, then the autoscaler only scales down
  // (docs/startup-and-faults.md).
  // The same cut whatever else runs: once a node launched for exactly these Pending pods was
  // removed without ever holding one, launching for them again would repeat the cycle.
  std::uint64_t signature = 1469598103934665603ull;  // FNV-1a over the pods' UIDs, in task order
  for (TaskId t : pending) {
    signature ^= state_.task(t).uid;
    signature *= 1099511628211ull;
  }
  const bool churn_cut = (settled_removed_ && host_.settled()) || (churned_ && signature == churned_signature_);
  if (churn_cut && !pending.empty()) stats_.churn_cut = true;
  if (!pending.empty() && !churn_cut) {
    // A pod counts as schedulable on a node its resources fit and whose labels and taints its
    // nodeSelector, node affinity and tolerations accept (the scheduler's predicates, which
    // filter-out-schedulable runs).
    std::vector<std::pair<NodeId, Resource>> free;
    for (const auto& n : state_.nodes()) {
      const NodeRec& r = recs_[n.id];
      if (r.removed != core::Time::max() || r.unreachable()) continue;
      free.emplace_back(n.id, r.launching ? n.pod_room() : n.idle);
    }
    std::vector<TaskId> unsched;
    for (TaskId t : pending) {
      const policy::TaskInfo& task = state_.task(t);
      const Resource& req = task.resreq;
      auto it = std::find_if(free.begin(), free.end(), [&](const std::pair<NodeId, Resource>& f) {
        if (!req.less_equal(f.second)) return false;
        const policy::NodeInfo& n = state_.node(f.first);
        return policy::static_misfit(task, n.labels, n.name, n.taints).empty();
      });
      if (it != free.end()) it->second.sub(req);
      else unsched.push_back(t);
    }
    // Largest NeuronCore request first (then task id): first-fit decreasing.
    std::stable_sort(unsched.begin(), unsched.end(), [&](TaskId a, TaskId b) {
      return host_.neuroncores_of(state_.task(a).resreq) > host_.neuroncores_of(state_.task(b).resreq);
    });
    for (std::size_t g = 0; g < groups && !unsched.empty(); ++g) {
      const NodeGroupSpec& ng = sc_.node_groups[g];
      if (ng.max_size < 0) continue;
      const Resource tmpl = node_resources(sc_, ng).pod_room();
      const auto tmpl_labels = template_labels(ng);
      const int headroom = std::max(0, ng.max_size - live[g]);
      std::vector<Resource> fresh;
      std::vector<TaskId> rest;
      for (TaskId t : unsched) {
        const Resource& req = state_.task(t).resreq;
        // The group's template node must take the pod: its resources and its labels and taints.
        if (!req.less_equal(tmpl) || !policy::static_misfit(state_.task(t), tmpl_labels, {}, ng.taints).empty()) {
          rest.push_back(t);
          continue;
        }
        auto it = std::find_if(fresh.begin(), fresh.end(), [&](const Resource& f) { return req.less_equal(f); });
        if (it != fresh.end()) {
          it->sub(req);
        } else if (static_cast<int>(fresh.size()) < headroom) {
          fresh.push_back(tmpl);
          fresh.back().sub(req);
        } else {
          rest.push_back(t);
        }
      }
      unsched.swap(rest);
      for (std::size_t k = 0; k < fresh.size(); ++k) {
        const NodeId id = add_group_node(g, false);
        recs_[id].scaled_up = true;
        recs_[id].launch_signature = signature;
        ++live[g];
        ++stats_.nodes_launched;
        rec_.node_event({now, state_.node(id).name, ng.name, "Launching",
                         "scale-up: pending pods fit no existing node (desired " + std::to_string(live[g]) + ")"});
        sim_.schedule_in(as.launch_time, &ready_event_, id);
      }
      if (!fresh.empty()) {
        last_scale_up_ = now;
        scaled_up_ = true;
      }
    }
  }

  // ---- scale-down: nodes without pods for scale_down_unneeded_time.
  bool countdown = false, changed = false;
  const bool cooling = scaled_up_ && now - last_scale_up_ < as.scale_down_delay_after_add;
  for (const auto& n : state_.nodes()) {
    NodeRec& r = recs_[n.id];
    const NodeGroupSpec& ng = sc_.node_groups[r.group];
    if (ng.min_size < 0 || r.removed != core::Time::max() || r.launching || r.unreachable() || n.task_count > 0) continue;
    if (live[r.group] <= ng.min_size) continue;
    if (cooling || now - r.empty_since < as.scale_down_unneeded_time) {
      countdown = true;
      continue;
    }
    r.removed = now;
    rec_.node_ended({now, n.name});
    changed = true;
    if (host_.settled()) settled_removed_ = true;
    if (r.scaled_up && !r.held_pod) {
      churned_ = true;
      churned_signature_ = r.launch_signature;
    }
    --live[r.group];
    ++stats_.nodes_removed;
    state_.set_node_ready(n.id, false);
    host_.node_left(n.id);
    rec_.node_event({now, n.name, ng.name, "Removed",
                     "scale-down: no pods for " + std::to_string(as.scale_down_unneeded_time.count_ns() / 1'000'000'000) +
                         " s (desired " + std::to_string(live[r.group]) + ")"});
  }
  // Scan again only while a countdown runs; any other change wakes the scheduler, and through
  // it the autoscaler (ensure_scan).
  if (changed) host_.wake_scheduler();
  else if (countdown) ensure_scan();
}

void NodeLifecycle::close_books(core::Time end) {
  stats_.node_group_seconds.assign(sc_.node_groups.size(), 0.0);
  stats_.node_pool_seconds.assign(sc_.node_groups.size(), {});
  for (std::size_t g = 0; g < sc_.node_groups.size(); ++g)
    stats_.node_pool_seconds[g].assign(2 * sc_.node_groups[g].instance_types.size(), 0.0);
  stats_.churn_nodes = 0;
  stats_.churn_node_seconds = stats_.churn_usd = 0;
  for (const NodeRec& r : recs_) {
    const core::Time until = std::min(r.removed, end);
    if (r.scaled_up && !r.held_pod && !r.launching) {
      // Autoscaler churn: a node launched for Pending pods that never held one (the
      // autoscaler sizes for pods, not gangs: NodeLifecycle::autoscaler_scan).
      ++stats_.churn_nodes;
      const double s = until > r.added ? (until - r.added).seconds() : 0.0;
      stats_.churn_node_seconds += s;
      stats_.churn_usd += s / 3600.0 * node_usd_per_hour(sc_.catalog, sc_.node_groups[r.group], r.launch);
    }
    if (until <= r.added) continue;
    stats_.node_group_seconds[r.group] += (until - r.added).seconds();
    stats_.node_pool_seconds[r.group][2 * r.launch.type + (r.launch.capacity == CapacityType::Spot ? 1 : 0)] += (until - r.added).seconds();
  }
}

void NodeLifecycle::start() {
  started_ = true;
  for (std::size_t n = 0; n < recs_.size(); ++n) record_launch(static_cast<NodeId>(n));
}

}  // namespace mltwin::models
