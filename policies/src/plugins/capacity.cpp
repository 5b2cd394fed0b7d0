// capacity plugin — Volcano v1.12.1 pkg/scheduler/plugins/capacity/capacity.go.
//
// The alternative to proportion: a queue's share is set by hand, per resource, in its
// spec.deserved, instead of being water-filled from weights.
// - realCapability = (total - sum of guarantees) + the queue's guarantee, capped by its
//   spec.capability (cpu or memory <= 0 or absent: no cap in that dimension);
//   deserved = min(spec.deserved, realCapability) raised to spec.guarantee.
// - Queue order: queue priority, then share = max over deserved's resources of allocated /
//   deserved.
// - Allocatable: allocated + task request within realCapability on the dimensions the task
//   requests (a queue may use more than it deserves, up to its capability: deserved only decides
//   what can be reclaimed).
// - JobEnqueueable: minResources + allocated + inqueue - elastic within realCapability
//   ("queue resource quota insufficient").
// - Preemptive (may the queue reclaim for this task?): allocated + request within deserved on the
//   task's dimensions — an extended resource deserved does not name counts as 0 there.
// - Reclaimable: tasks of queues allocated beyond deserved (an extended resource deserved does
//   not name counts as unlimited there), while the queue stays beyond it and above its guarantee.
// - No Overused callback (v1.12.1 registers none: allocate never skips a queue as overused).
//
// With `enableHierarchy: true` on the plugin (conf.PluginOption.EnabledHierarchy, read from the
// first capacity entry of the tiers: capacity.go HierarchyEnabled) queues form a tree under the
// queue "root" by spec.parent (no parent: a child of root). Every queue gets attributes; a
// parent's allocated, request, inqueue and elastic are its leaves' sums; root's capability,
// realCapability and deserved are the cluster's total and its guarantee its children's sum. A
// child inherits cpu and memory capability from its parent when it names none; its
// realCapability is its parent's realCapability less the guarantees of the parent's children,
// plus its own guarantee, capped by its capability. The tree is checked at every session open
// (checkHierarchicalQueue): a parent whose capability is below a child's in some dimension (an
// extended resource the child names and the parent does not counts as below), whose deserved is
// below the sum of its children's, or whose guarantee is below the sum of theirs, makes the
// session "not ready": every queue is then refused allocation, enqueueing and reclaim (Volcano
// logs "Failed to check queue's hierarchical structure"). Jobs go to leaf queues only;
// allocation and enqueueing check the leaf and then each ancestor up to root. Queue order: leaf
// queues first, two non-leaf queues by share, two leaves by the shares of their ancestors just
// below their deepest common one (siblings by their own share). Those ancestors' shares are
// computed when the session opens and not updated by the session's allocations (as upstream:
// the event handlers add to an ancestor's allocated but recompute only the leaf's share).
// Victims of a reclaim come first from the queues closest to the reclaimer's in the tree
// (AddVictimQueueOrderFn).
//
// Resources a queue's spec names and those it does not are told apart as upstream's maps do
// (policy/resource.hpp): e.g. a queue whose tasks never requested an extended resource its
// deserved names lacks it in allocated, so allocated.LessEqual(deserved, Infinity) fails there.
// Metrics (UpdateQueueDeserved, ...) are not kept.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../builtins.hpp"

namespace mltwin::policy {
namespace {
using namespace detail;


class Capacity final : public Plugin {
 public:
  std::string_view name() const override { return "capacity"; }

  void on_session_open(Session& ssn) override {
    ClusterState& st = ssn.state();
    st_ = &st;
    total_ = ssn.total_resource();
    hierarchy_ = hierarchy_enabled(ssn.config());
    const std::size_t n = st.queues().size();
    // Root: the queue named "root" if the scenario declares one, else an implied one (index n)
    // standing for the queue Volcano's scheduler cache creates.
    root_ = static_cast<QueueId>(n);
    for (const auto& q : st.queues())
      if (q.name == "root" && q.parent == kNone) root_ = q.id;
    attrs_.assign(n + 1, Attr{});
    ready_ = hierarchy_ ? build_hierarchical(st) : (build_flat(st), true);

    if (hierarchy_) {
      ssn.add_queue_order_fn([this](const QueueInfo& l, const QueueInfo& r) { return hierarchical_order(l, r); });
      ssn.add_victim_queue_order_fn([this](const QueueInfo& l, const QueueInfo& r, const QueueInfo& p) {
        const int ll = level(attrs_[l.id], attrs_[p.id]);
        const int rl = level(attrs_[r.id], attrs_[p.id]);
        if (ll == rl) return 0;
        return ll > rl ? -1 : 1;
      });
    } else {
      ssn.add_queue_order_fn([this](const QueueInfo& l, const QueueInfo& r) {
        if (l.priority != r.priority) return r.priority - l.priority;
        return compare_share(attrs_[l.id].share, attrs_[r.id].share);
      });
    }

    ssn.add_reclaimable_fn([this](const TaskInfo&, std::span<const TaskId> reclaimees, std::vector<TaskId>& victims) {
      if (!ready_) return kReject;
      auto& allocs = reclaim_allocs_;
      allocs.clear();
      for (TaskId t : reclaimees) {
        const TaskInfo& tt = st_->task(t);
        const QueueId q = st_->job(tt.job).queue;
        const Attr& a = attrs_[q];
        Resource* alloc = nullptr;
        for (auto& [id, r] : allocs)
          if (id == q) alloc = &r;
        if (!alloc) {
          allocs.emplace_back(q, a.allocated);
          alloc = &allocs.back().second;
        }
        // allocated.LessEqual(deserved, Infinity) || !guarantee.LessEqual(allocated - reclaimee, Zero)
        if (alloc->less_equal(a.deserved, DimensionDefault::Infinity) ||
            !a.guarantee.less_equal(*alloc - tt.resreq, DimensionDefault::Zero))
          continue;
        alloc->sub(tt.resreq);
        victims.push_back(t);
      }
      return kPermit;
    }, VictimDependence::NotOnPreemptor);  // the reclaimees' queues decide, not the reclaimer

    ssn.add_preemptive_fn([this](const QueueInfo& q, const TaskInfo& t) {
      if (!ready_ || q.state != QueueState::Open) return false;
      const Attr& a = attrs_[q.id];
      // !futureUsed.LessEqualWithDimension(deserved, req): an unnamed extended resource is 0.
      return (a.allocated + t.resreq).less_equal_with_dimension(a.deserved, t.resreq);
    });

    ssn.add_allocatable_fn([this](const QueueInfo& q, const TaskInfo& t) {
      if (q.state != QueueState::Open || !ready_) return false;
      if (hierarchy_ && !leaf(q.id)) return false;
      // checkQueueAllocatableHierarchically: the queue, then its ancestors up to root.
      if (!queue_allocatable(attrs_[q.id], t.resreq)) return false;
      const auto& anc = attrs_[q.id].ancestors;
      for (auto it = anc.rbegin(); it != anc.rend(); ++it)
        if (!queue_allocatable(attrs_[*it], t.resreq)) return false;
      return true;
    }, TaskDependence::Spec);  // the queue (and its ancestors) and the request

    closed_reason_.assign(n, {});
    quota_reason_.assign(n + 1, {});
    ssn.add_job_enqueueable_fn([this](const JobInfo& j, std::string_view& reason) {
      if (!ready_) {
        reason = "capacity: the queue hierarchy failed its check (docs/volcano.md, the capacity plugin's enableHierarchy)";
        return kReject;
      }
      if (hierarchy_ && !leaf(j.queue)) {
        reason = "capacity: the job's queue is not a leaf queue";
        return kReject;
      }
      const QueueInfo& q = st_->queue(j.queue);
      if (q.state != QueueState::Open) {
        if (closed_reason_[q.id].empty()) closed_reason_[q.id] = "queue '" + q.name + "' is not open";
        reason = closed_reason_[q.id];
        return kReject;
      }
      if (!j.has_min_resources) return kPermit;
      Attr& a = attrs_[j.queue];
      // checkJobEnqueueableHierarchically: the queue, then its ancestors up to root.
      const Attr* refused = nullptr;
      if (!job_enqueueable(a, j.min_resources)) refused = &a;
      for (auto it = a.ancestors.rbegin(); !refused && it != a.ancestors.rend(); ++it)
        if (!job_enqueueable(attrs_[*it], j.min_resources)) refused = &attrs_[*it];
      if (refused) {
        std::string& text = quota_reason_[static_cast<std::size_t>(refused - attrs_.data())];
        if (text.empty())
          text = "queue resource quota insufficient: queue '" + queue_name(*refused) + "' realCapability {" +
                 refused->real_capability.to_string() + "}";
        reason = text;
        return kReject;
      }
      a.inqueue.add(j.min_resources);
      for (QueueId anc : a.ancestors) attrs_[anc].inqueue.add(j.min_resources);
      return kPermit;
    },
    // Monotone per queue: allocated and elastic are fixed during enqueue and inqueue only grows
    // (also an ancestor's, when a sibling's job is admitted).
    VoteMonotonicity::PerQueue);

    ssn.add_event_handler(
        [this](const TaskInfo& t) {
          Attr& a = attrs_[st_->job(t.job).queue];
          a.allocated.add(t.resreq);
          update_share(a);
          for (QueueId anc : a.ancestors) attrs_[anc].allocated.add(t.resreq);  // share not updated
        },
        [this](const TaskInfo& t) {
          Attr& a = attrs_[st_->job(t.job).queue];
          a.allocated.sub(t.resreq);
          update_share(a);
          for (QueueId anc : a.ancestors) attrs_[anc].allocated.sub(t.resreq);
        });
  }

 private:
  struct Attr {
    bool present = false;
    std::int32_t priority = 0;
    std::vector<QueueId> ancestors;  // root first, the parent last
    std::vector<QueueId> children;   // by queue id
    double share = 0;
    Resource deserved, allocated, request, elastic, inqueue, real_capability, guarantee;
    bool has_capability = false;  // Volcano: capability != nil
    Resource capability;
  };

  static bool hierarchy_enabled(const SchedulerConfig& cfg) {
    for (const auto& tier : cfg.tiers)
      for (const auto& p : tier.plugins)
        if (p.name == "capacity") return p.is_enabled(Ext::Hierarchy);
    return false;
  }
  static int compare_share(double l, double r) {
    if (l == r) return 0;
    return l < r ? -1 : 1;
  }
  bool leaf(QueueId q) const { return attrs_[q].children.empty(); }
  std::string queue_name(const Attr& a) const {
    const auto idx = static_cast<std::size_t>(&a - attrs_.data());
    return idx < st_->queues().size() ? st_->queues()[idx].name : std::string("root");
  }

  /// updateShare: max over deserved.ResourceNames() (>= minResource) of allocated/deserved.
  static void update_share(Attr& a) {
    double res = 0;
    a.deserved.for_each([&](ResourceName name, double deserved) {
      if (deserved >= kMinResource) res = std::max(res, share(a.allocated.get(name), deserved));
    });
    a.share = res;
  }
  /// deserved = Max(deserved.MinDimensionResource(realCapability, Infinity), guarantee).
  static void settle_deserved(Attr& a) {
    a.deserved.min_dimension_resource(a.real_capability, DimensionDefault::Infinity);
    a.deserved = Resource::max(a.deserved, a.guarantee);
  }
  static bool queue_allocatable(const Attr& a, const Resource& req) {
    return (a.allocated + req).less_equal_with_dimension(a.real_capability, req);
  }
  static bool job_enqueueable(const Attr& a, const Resource& min) {
    const Resource r = min + a.allocated + a.inqueue - a.elastic;
    return r.less_equal_with_dimension(a.real_capability, min);
  }

  void init_attr(Attr& a, const QueueInfo& q) {
    a.present = true;
    a.priority = q.priority;
    a.deserved = q.deserved;
    a.guarantee = q.guarantee;
  }

  /// The jobs' resources into their queue's attributes (buildQueueAttrs' job loop); in the
  /// hierarchy also into every ancestor's. Every job of the session, Pending PodGroups too
  /// (capacity.go:289 and :449 walk all of ssn.Jobs): the pods of one, if it has any, count in
  /// its queue's request.
  void add_jobs(const ClusterState& st) {
    std::vector<JobId> all(st.pending_jobs());
    all.insert(all.end(), st.active_jobs().begin(), st.active_jobs().end());
    for (JobId jid : all) {
      const JobInfo& j = st.job(jid);
      Resource alloc = j.allocated, request = j.allocated + j.pending_request, inqueue, elastic;
      const Resource minres = j.has_min_resources ? j.min_resources : Resource{};
      if (j.phase == PodGroupPhase::Inqueue) inqueue.add(minres);
      if (j.phase == PodGroupPhase::Running && j.has_min_resources && j.allocated_task_num() >= j.min_available)
        inqueue.add(Resource::exceeded_part(minres, j.allocated));  // util.GetInqueueResource
      elastic = Resource::exceeded_part(j.allocated, minres);          // GetElasticResources
      Attr& a = attrs_[j.queue];
      a.allocated.add(alloc), a.request.add(request), a.inqueue.add(inqueue), a.elastic.add(elastic);
      for (QueueId anc : a.ancestors) {
        Attr& x = attrs_[anc];
        x.allocated.add(alloc), x.request.add(request), x.inqueue.add(inqueue), x.elastic.add(elastic);
      }
    }
  }

  void build_flat(const ClusterState& st) {
    Resource total_guarantee;
    for (const auto& q : st.queues()) total_guarantee.add(q.guarantee);
    for (const auto& q : st.queues()) {
      if (st.queue_job_count(q.id) == 0) continue;  // attributes only for queues with jobs
      Attr& a = attrs_[q.id];
      init_attr(a, q);
      a.has_capability = q.capability.has_value();
      if (a.has_capability) {  // capability cpu / memory <= 0: math.MaxFloat64
        a.capability = *q.capability;
        if (a.capability.milli_cpu <= 0) a.capability.milli_cpu = kMaxFloat64;
        if (a.capability.memory <= 0) a.capability.memory = kMaxFloat64;
      }
      a.real_capability = Resource::exceeded_part(total_, total_guarantee) + q.guarantee;
      if (a.has_capability) a.real_capability.min_dimension_resource(a.capability, DimensionDefault::Infinity);
    }
    add_jobs(st);
    for (auto& a : attrs_)
      if (a.present) {
        settle_deserved(a);
        update_share(a);
      }
  }

  /// buildHierarchicalQueueAttrs + checkHierarchicalQueue; false: the session is not ready.
  bool build_hierarchical(const ClusterState& st) {
    const std::size_t n = st.queues().size();
    for (const auto& q : st.queues()) init_attr(attrs_[q.id], q);
    for (const auto& q : st.queues()) {  // newQueueAttr: EmptyResource, or spec.capability
      attrs_[q.id].has_capability = true;
      attrs_[q.id].capability = q.capability.value_or(Resource{});
    }
    Attr& root = attrs_[root_];
    root.present = true;
    // Parents and ancestors (updateAncestors); a parent chain that does not reach root (a cycle)
    // fails the session as an unknown parent does upstream.
    for (const auto& q : st.queues()) {
      if (q.id == root_) continue;
      const QueueId parent = q.parent == kNone ? root_ : q.parent;
      if (parent > n || (parent == n && root_ != n)) return false;
      attrs_[parent].children.push_back(q.id);
      std::vector<QueueId> chain;
      for (QueueId p = parent;; p = st.queue(p).parent == kNone ? root_ : st.queue(p).parent) {
        if (chain.size() > n) return false;
        chain.push_back(p);
        if (p == root_) break;
      }
      attrs_[q.id].ancestors.assign(chain.rbegin(), chain.rend());
    }
    // "The Queue of Job is not leaf queue" (Volcano's admission webhook refuses such jobs; the
    // loader does too).
    for (const auto& q : st.queues())
      if (!leaf(q.id) && st.queue_job_count(q.id) > 0) return false;
    add_jobs(st);
    root.capability = root.real_capability = root.deserved = total_;
    root.has_capability = true;
    if (!check(root_)) return false;
    for (auto& a : attrs_)
      if (a.present) update_share(a);
    return true;
  }

  /// checkHierarchicalQueue(attr), recursively.
  bool check(QueueId qid) {
    Attr& p = attrs_[qid];
    Resource total_guarantee, total_deserved;
    for (QueueId c : p.children) {
      Attr& ch = attrs_[c];
      total_deserved.add(ch.deserved);
      total_guarantee.add(ch.guarantee);
      // cpu or memory not set in the child's capability: the parent's.
      if (ch.capability.milli_cpu <= 0) ch.capability.milli_cpu = p.capability.milli_cpu;
      if (ch.capability.memory <= 0) ch.capability.memory = p.capability.memory;
      if (p.capability.less_partly(ch.capability, DimensionDefault::Zero)) return false;
    }
    if (qid == root_) p.guarantee = total_guarantee;
    for (QueueId c : p.children) {
      Attr& ch = attrs_[c];
      ch.real_capability = Resource::exceeded_part(p.real_capability, total_guarantee) + ch.guarantee;
      if (ch.has_capability) ch.real_capability.min_dimension_resource(ch.capability, DimensionDefault::Infinity);
      const Resource old = ch.deserved;
      settle_deserved(ch);
      total_deserved.sub(old).add(ch.deserved);
    }
    if (p.deserved.less_partly(total_deserved, DimensionDefault::Zero)) return false;
    if (p.guarantee.less_partly(total_guarantee, DimensionDefault::Zero)) return false;
    for (QueueId c : p.children)
      if (!check(c)) return false;
    return true;
  }

  /// getQueueLevel: the index, in the ancestor lists, of the deepest common ancestor.
  static int level(const Attr& l, const Attr& r) {
    int lv = 0;
    const std::size_t m = std::min(l.ancestors.size(), r.ancestors.size());
    for (std::size_t i = 0; i < m; ++i) {
      if (l.ancestors[i] != r.ancestors[i]) return lv;
      lv = static_cast<int>(i);
    }
    return lv;
  }

  int hierarchical_order(const QueueInfo& lq, const QueueInfo& rq) const {
    if (lq.priority != rq.priority) return rq.priority - lq.priority;
    const bool ll = leaf(lq.id), rl = leaf(rq.id);
    if (ll && !rl) return -1;
    if (!ll && rl) return 1;
    if (!ll && !rl) return compare_share(attrs_[lq.id].share, attrs_[rq.id].share);
    const Attr& la = attrs_[lq.id];
    const Attr& ra = attrs_[rq.id];
    const auto lvl = static_cast<std::size_t>(level(la, ra));
    const QueueId lp = lvl + 1 < la.ancestors.size() ? la.ancestors[lvl + 1] : lq.id;
    const QueueId rp = lvl + 1 < ra.ancestors.size() ? ra.ancestors[lvl + 1] : rq.id;
    return compare_share(attrs_[lp].share, attrs_[rp].share);
  }

  ClusterState* st_ = nullptr;
  Resource total_;
  bool hierarchy_ = false, ready_ = true;
  QueueId root_ = kNone;
  std::vector<Attr> attrs_;
  std::vector<std::string> closed_reason_, quota_reason_;
  std::vector<std::pair<QueueId, Resource>> reclaim_allocs_;  // the Reclaimable call's scratch
};

}  // namespace

namespace detail {
std::unique_ptr<Plugin> make_capacity(const Arguments&) { return std::make_unique<Capacity>(); }
}  // namespace detail
}  // namespace mltwin::policy
