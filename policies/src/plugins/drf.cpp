// drf plugin — Volcano v1.12.1 pkg/scheduler/plugins/drf/drf.go (without hierarchy).
// Jobs are ordered by dominant resource share, lowest first: share = max over the cluster's
// resources of allocated / total (helpers.Share). A job's allocation, as DRF tracks it through
// its event handlers, is its allocated tasks plus the tasks pipelined in this session — which
// is exactly JobInfo::allocated + JobInfo::pipelined, so the share is computed on demand.
// Victims for preemption: tasks whose job, after losing them, would still have a share at or
// above the preemptor's (shareDelta 1e-6).
#include <cmath>
#include <algorithm>
#include <vector>

#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
constexpr double kShareDelta = 0.000001;

// calculateShare: max over totalResource.ResourceNames() of allocated.Get(rn) / total, with
// allocated = a + b (a job's allocated and pipelined) summed per resource, not built.
bool holds_nothing(const Resource& r) {
  if (r.milli_cpu != 0 || r.memory != 0) return false;
  for (std::size_t i = 0; i < r.scalars.size(); ++i)
    if (r.scalars.value_at(i) != 0) return false;
  return true;
}

// The share of (a + b) + c, each name summed in the order Resource::add would (a name a side
// lacks is skipped: adding to an absent name starts from 0).
double dominant_share(const Resource& a, const Resource& b, const Resource& c, const Resource& total) {
  double res = 0;
  auto one = [&](double alloc, double t) {
    if (t < kMinResource) return;  // Resource.ResourceNames skips absent resources
    const double s = share(alloc, t);
    if (s > res) res = s;
  };
  one((a.milli_cpu + b.milli_cpu) + c.milli_cpu, total.milli_cpu);
  one((a.memory + b.memory) + c.memory, total.memory);
  ScalarCursor ca(a.scalars), cb(b.scalars), cc(c.scalars);
  for (std::size_t i = 0; i < total.scalars.size(); ++i) {
    const ResourceName name = total.scalars.name_at(i);
    const double* xa = ca.find(name);
    double alloc = xa ? *xa : 0.0;
    if (const double* x = cb.find(name)) alloc += *x;
    if (const double* x = cc.find(name)) alloc += *x;
    one(alloc, total.scalars.value_at(i));
  }
  return res;
}
const Resource kNothing{};
double dominant_share(const Resource& a, const Resource& b, const Resource& total) {
  // A job that holds nothing (most jobs allocate compares) has share 0 on every resource.
  if (holds_nothing(a) && holds_nothing(b)) return 0;
  return dominant_share(a, b, kNothing, total);
}
double dominant_share(const Resource& alloc, const Resource& total) { return dominant_share(alloc, kNothing, kNothing, total); }

class Drf final : public Plugin {
 public:
  std::string_view name() const override { return "drf"; }
  void on_session_open(Session& ssn) override {
    if (ssn.current_plugin().is_enabled(Ext::Hierarchy))
      throw std::invalid_argument("drf: enableHierarchy (hierarchical DRF) is not supported yet");
    const ClusterState* st = &ssn.state();
    const Resource total = ssn.total_resource();
    auto job_share = [total](const JobInfo& j) { return dominant_share(j.allocated, j.pipelined, total); };
    // A job without pods holds nothing: share 0, static for pending jobs.
    ssn.add_job_order_fn(
        [job_share](const JobInfo& l, const JobInfo& r) {
          const double ls = job_share(l), rs = job_share(r);
          if (ls == rs) return 0;
          return ls < rs ? -1 : 1;
        },
        /*static_while_pending=*/true);
    ssn.add_preemptable_fn([this, st, total](const TaskInfo& preemptor, std::span<const TaskId> preemptees,
                                             std::vector<TaskId>& victims) {
      const JobInfo& pj = st->job(preemptor.job);
      const double ls = dominant_share(pj.allocated, pj.pipelined, preemptor.resreq, total);
      auto& allocations = allocations_;  // a few jobs per call: a flat list
      allocations.clear();
      for (TaskId t : preemptees) {
        const TaskInfo& tt = st->task(t);
        auto it = std::find_if(allocations.begin(), allocations.end(), [&](const auto& e) { return e.first == tt.job; });
        if (it == allocations.end()) {
          const JobInfo& j = st->job(tt.job);
          it = allocations.emplace(allocations.end(), tt.job, j.allocated + j.pipelined);
        }
        it->second.sub(tt.resreq);
        const double rs = dominant_share(it->second, total);
        if (ls < rs || std::fabs(ls - rs) <= kShareDelta) victims.push_back(t);
      }
      return kPermit;
    }, VictimDependence::OnPreemptorSpec);  // the preemptor's request and its job's allocation
  }

 private:
  std::vector<std::pair<JobId, Resource>> allocations_;  // the Preemptable call's scratch
};
}  // namespace
std::unique_ptr<Plugin> make_drf(const Arguments&) { return std::make_unique<Drf>(); }
}  // namespace mltwin::policy::detail
