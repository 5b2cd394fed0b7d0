// proportion plugin — Volcano v1.12.1 pkg/scheduler/plugins/proportion/proportion.go.
//
// Each queue that has jobs deserves a share of the cluster by weight, found by water-filling:
// every round hands the remaining resources to the unsatisfied queues in proportion to their
// weights; a queue's deserved is capped by its real capability (capability, and what the other
// queues' guarantees leave) and by its request (what its jobs ask for, allocated + pending),
// and raised to its guarantee; a queue whose request is met, or whose deserved stopped moving,
// leaves the game; rounds end when nothing remains or nothing moved.
// - Queue order: queue priority, then share = max over resources of allocated / deserved.
// - Overused: deserved <= allocated in every dimension -> the queue is skipped by allocate.
// - Allocatable: allocated + task request within deserved on the dimensions the task requests.
// - Enqueueable: minResources + allocated + inqueue - elastic within the real capability.
// - Reclaimable (used by the reclaim action): tasks of queues allocated beyond deserved, taken
//   while the queue stays over it (proportion.go AddReclaimableFn); Preemptive = Allocatable.
#include <bit>
#include <cstdint>
#include <vector>

#include "../builtins.hpp"
#include "mltwin/policy/proportion.hpp"

namespace mltwin::policy {
namespace {
using namespace detail;

/// Equal bit for bit: the same names in the same order, each value the same double (+0 and -0
/// differ), so that a result computed from one is exactly the result for the other.
bool same_bits(const Resource& a, const Resource& b) {
  auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  if (bits(a.milli_cpu) != bits(b.milli_cpu) || bits(a.memory) != bits(b.memory) || a.scalars.size() != b.scalars.size())
    return false;
  for (auto ia = a.scalars.begin(), ib = b.scalars.begin(); ia != a.scalars.end(); ++ia, ++ib) {
    const auto ea = *ia, eb = *ib;
    if (ea.name != eb.name || bits(ea.value) != bits(eb.value)) return false;
  }
  return true;
}

/// The last water-filling, with what it read: proportion_water_fill is a function of the total
/// and of each queue's presence, weight, real capability, request and guarantee alone (the
/// deserved it starts from is zero); a session in which no job arrived, left or changed its
/// request (a pod starting, a bind) changes none of them. Kept per thread, as the plugin object
/// lives for one session; any difference in what it read, bit for bit, fills again. (How often
/// it hits on the Philly run was not counted; the profile's filling fell from 7.8 % to 4.7 %.)
struct WaterFillMemo {
  struct Queue {
    bool present = false;
    std::int32_t weight = 0;
    Resource real_capability, request, guarantee, deserved;
  };
  bool valid = false;
  Resource total;
  std::vector<Queue> queues;

  bool matches(const Resource& t, const std::vector<QueueAttr>& attrs) const {
    if (!valid || queues.size() != attrs.size() || !same_bits(total, t)) return false;
    for (std::size_t q = 0; q < attrs.size(); ++q) {
      const Queue& m = queues[q];
      const QueueAttr& a = attrs[q];
      if (m.present != a.present) return false;
      if (!a.present) continue;
      if (m.weight != a.weight || !same_bits(m.request, a.request) || !same_bits(m.real_capability, a.real_capability) ||
          !same_bits(m.guarantee, a.guarantee))
        return false;
    }
    return true;
  }
  void store(const Resource& t, const std::vector<QueueAttr>& attrs) {
    valid = true;
    total = t;
    queues.resize(attrs.size());
    for (std::size_t q = 0; q < attrs.size(); ++q) {
      const QueueAttr& a = attrs[q];
      queues[q] = Queue{a.present, a.weight, a.real_capability, a.request, a.guarantee, a.deserved};
    }
  }
};

/// Deserved and share from the memo when it matches, else by water-filling (and remembered).
/// A queue's share is always computed from its allocation now: after the filling, each
/// present queue's share is updateShare of its final deserved (proportion_water_fill updates it
/// whenever deserved moves), and an absent queue's is 0, as updateShare of an empty deserved.
void fill_deserved(const Resource& total, std::vector<QueueAttr>& attrs) {
  thread_local WaterFillMemo memo;
  if (memo.matches(total, attrs)) {
    for (std::size_t q = 0; q < attrs.size(); ++q) {
      if (!attrs[q].present) continue;
      attrs[q].deserved = memo.queues[q].deserved;
      proportion_update_share(attrs[q]);
    }
    return;
  }
  proportion_water_fill(total, attrs);
  memo.store(total, attrs);
}

/// The per-session vectors' storage, handed from one session's plugin to the next on this thread
/// (a plugin lives for one session; the values are rebuilt at every open, only the memory is
/// kept, which spares a few allocations per queue per session).
struct ProportionStorage {
  std::vector<QueueAttr> attrs;
  std::vector<std::string> closed_reason, quota_reason;
};
ProportionStorage& spare_storage() {
  thread_local ProportionStorage spare;
  return spare;
}

/// (allocated + req).less_equal_with_dimension(deserved, req) — proportion.go's allocatable,
/// the queue's allocation plus the task's request within deserved on the resources the task
/// requests — without building the sum (per task per session): each compared value is the
/// same sum (allocated's value, 0 when absent, plus the request's), and the sum's scalars are
/// read only for names the request has.
bool sum_within_requested(const Resource& allocated, const Resource& req, const Resource& deserved) {
  if (req.milli_cpu > 0 && allocated.milli_cpu + req.milli_cpu > deserved.milli_cpu) return false;
  if (req.memory > 0 && allocated.memory + req.memory > deserved.memory) return false;
  for (const auto& e : req.scalars) {
    if (e.name == rn::kPods) continue;
    if (e.value > 0 && allocated.scalars.get(e.name) + e.value > deserved.scalars.get(e.name)) return false;
  }
  return true;
}

class Proportion final : public Plugin {
 public:
  Proportion() {
    ProportionStorage& spare = spare_storage();
    attrs_ = std::move(spare.attrs);
    closed_reason_ = std::move(spare.closed_reason);
    quota_reason_ = std::move(spare.quota_reason);
  }
  ~Proportion() override {
    ProportionStorage& spare = spare_storage();
    spare.attrs = std::move(attrs_);
    spare.closed_reason = std::move(closed_reason_);
    spare.quota_reason = std::move(quota_reason_);
  }
  std::string_view name() const override { return "proportion"; }

  void on_session_open(Session& ssn) override {
    ClusterState& st = ssn.state();
    st_ = &st;
    const Resource total = ssn.total_resource();
    Resource total_guarantee;
    for (const auto& q : st.queues()) total_guarantee.add(q.guarantee);
    // What the guarantees leave of the cluster, the same for every queue.
    const Resource unguaranteed = Resource::exceeded_part(total, total_guarantee);
    attrs_.assign(st.queues().size(), QueueAttr{});
    for (const auto& q : st.queues()) {
      if (st.queue_job_count(q.id) == 0) continue;  // attributes only for queues with jobs
      QueueAttr& a = attrs_[q.id];
      a.present = true;
      a.weight = q.weight;
      // capability: spec.capability when it names something, cpu or memory <= 0 read as
      // math.MaxFloat64; realCapability = (total - guarantees) + guarantee, capped by it where
      // it names a resource (MinDimensionResource(capability, Infinity)).
      a.has_capability = q.capability.has_value();
      if (a.has_capability) {
        a.capability = *q.capability;
        if (a.capability.milli_cpu <= 0) a.capability.milli_cpu = kMaxFloat64;
        if (a.capability.memory <= 0) a.capability.memory = kMaxFloat64;
      }
      a.guarantee = q.guarantee;
      a.real_capability = unguaranteed + q.guarantee;
      if (a.has_capability) a.real_capability.min_dimension_resource(a.capability, DimensionDefault::Infinity);
    }
    // The jobs' sums (the job loop over every job, proportion.go:92-162: allocated, request,
    // inqueue, elastic), kept by the state as jobs change.
    std::vector<QueueJobSums::Sums> scratch;
    const QueueJobSums* kept = st.queue_job_sums();
    if (!kept) scratch = QueueJobSums::from_scratch(st);
    for (const auto& q : st.queues()) {
      const QueueJobSums::Sums& s = kept ? kept->queue(q.id) : scratch[q.id];
      QueueAttr& a = attrs_[q.id];
      a.allocated = s.allocated;
      a.request = s.request;
      a.inqueue = s.inqueue;
      a.elastic = s.elastic;
    }
    fill_deserved(total, attrs_);

    ssn.add_queue_order_fn([this](const QueueInfo& l, const QueueInfo& r) {
      if (l.priority != r.priority) return r.priority - l.priority;
      const double ls = attrs_[l.id].share, rs = attrs_[r.id].share;
      if (ls == rs) return 0;
      return ls < rs ? -1 : 1;
    });
    ssn.add_reclaimable_fn([this](const TaskInfo&, std::span<const TaskId> reclaimees, std::vector<TaskId>& victims) {
      auto& allocs = reclaim_allocs_;
      allocs.clear();
      for (TaskId t : reclaimees) {
        const TaskInfo& tt = st_->task(t);
        const QueueId q = st_->job(tt.job).queue;
        Resource* alloc = nullptr;
        for (auto& [id, r] : allocs)
          if (id == q) alloc = &r;
        if (!alloc) {
          allocs.emplace_back(q, attrs_[q].allocated);
          alloc = &allocs.back().second;
        }
        if (!alloc->less_equal(attrs_[q].deserved, DimensionDefault::Zero)) {
          alloc->sub(tt.resreq);
          victims.push_back(t);
        }
      }
      return kPermit;
    }, VictimDependence::NotOnPreemptor);  // the preemptees' queues decide, not the preemptor
    ssn.add_overused_fn([this](const QueueInfo& q) {
      const QueueAttr& a = attrs_[q.id];
      return a.deserved.less_equal(a.allocated, DimensionDefault::Zero);
    });
    auto allocatable = [this](const QueueInfo& q, const TaskInfo& t) {
      if (q.state != QueueState::Open) return false;
      const QueueAttr& a = attrs_[q.id];
      return sum_within_requested(a.allocated, t.resreq, a.deserved);
    };
    ssn.add_allocatable_fn(allocatable, TaskDependence::Spec);  // the queue and the request
    ssn.add_preemptive_fn(allocatable);
    // Reasons are written once per queue per session; votes point at them.
    closed_reason_.resize(attrs_.size());
    quota_reason_.resize(attrs_.size());
    for (std::size_t q = 0; q < attrs_.size(); ++q) closed_reason_[q].clear(), quota_reason_[q].clear();
    // (written on a queue's first rejection of the session)
    ssn.add_job_enqueueable_fn([this](const JobInfo& j, std::string_view& reason) {
      const QueueInfo& q = st_->queue(j.queue);
      if (q.state != QueueState::Open) {
        if (closed_reason_[q.id].empty()) closed_reason_[q.id] = "queue '" + q.name + "' is not open";
        reason = closed_reason_[q.id];
        return kReject;
      }
      if (!j.has_min_resources) return kPermit;
      QueueAttr& a = attrs_[j.queue];
      const Resource r = j.min_resources + a.allocated + a.inqueue - a.elastic;
      if (r.less_equal_with_dimension(a.real_capability, j.min_resources)) {
        a.inqueue.add(j.min_resources);
        return kPermit;
      }
      if (quota_reason_[q.id].empty())
        quota_reason_[q.id] = "queue resource quota insufficient: queue '" + q.name + "' capability {" +
                              a.real_capability.to_string() + "}";
      reason = quota_reason_[q.id];
      return kReject;
    },
    // Monotone per queue: allocated and elastic are fixed during enqueue and inqueue only grows.
    VoteMonotonicity::PerQueue);
    ssn.add_event_handler(
        [this](const TaskInfo& t) {
          QueueAttr& a = attrs_[st_->job(t.job).queue];
          a.allocated.add(t.resreq);
          proportion_update_share(a);
        },
        [this](const TaskInfo& t) {
          QueueAttr& a = attrs_[st_->job(t.job).queue];
          a.allocated.sub(t.resreq);
          proportion_update_share(a);
        });
  }

 private:
  ClusterState* st_ = nullptr;
  std::vector<QueueAttr> attrs_;
  std::vector<std::string> closed_reason_, quota_reason_;
  std::vector<std::pair<QueueId, Resource>> reclaim_allocs_;  // the Reclaimable call's scratch
};

}  // namespace

void proportion_update_share(QueueAttr& a) {
  double res = 0;
  a.deserved.for_each([&](ResourceName name, double deserved) {
    if (deserved < kMinResource) return;  // deserved.ResourceNames()
    const double s = share(a.allocated.get(name), deserved);
    if (s > res) res = s;
  });
  a.share = res;
}

void proportion_water_fill(const Resource& total, std::vector<QueueAttr>& attrs) {
  Resource remaining = total;
  std::vector<bool> meet(attrs.size(), false);
  for (;;) {
    std::int64_t total_weight = 0;
    for (std::size_t q = 0; q < attrs.size(); ++q)
      if (attrs[q].present && !meet[q]) total_weight += attrs[q].weight;
    if (total_weight == 0) break;
    const Resource old_remaining = remaining;
    Resource increased, decreased;
    for (std::size_t q = 0; q < attrs.size(); ++q) {
      QueueAttr& a = attrs[q];
      if (!a.present || meet[q]) continue;
      const Resource old = a.deserved;
      Resource add = remaining;
      add.multi(static_cast<double>(a.weight) / static_cast<double>(total_weight));
      a.deserved.add(add);
      a.deserved.min_dimension_resource(a.real_capability, DimensionDefault::Infinity);
      a.deserved.min_dimension_resource(a.request, DimensionDefault::Zero);
      a.deserved = Resource::max(a.deserved, a.guarantee);
      proportion_update_share(a);
      if (a.request.less_equal(a.deserved, DimensionDefault::Zero) || a.deserved == old) meet[q] = true;
      auto [inc, dec] = a.deserved.diff(old, DimensionDefault::Zero);
      increased.add(inc);
      decreased.add(dec);
    }
    remaining = Resource::exceeded_part(remaining + decreased, increased);
    // equality.Semantic.DeepEqual: the same names and values (nil and empty maps alike).
    if (remaining.is_empty() || remaining == old_remaining) break;
  }
}

namespace detail {
std::unique_ptr<Plugin> make_proportion(const Arguments&) { return std::make_unique<Proportion>(); }
}  // namespace detail
}  // namespace mltwin::policy
