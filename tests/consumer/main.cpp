// Links the policy library alone, as a production component does: informer events into a
// SchedulerCache, one Volcano cycle, and a backend that binds by pod UID.
#include <cstdio>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/scheduler_cache.hpp"

using namespace mltwin::policy;

struct PrintBackend : Backend {
  const SchedulerCache* cache = nullptr;
  int binds = 0;
  CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
    ++binds;
    std::printf("bind pod %s (uid %s) -> %s\n", t.name.c_str(), cache->pod_uid(t.id).c_str(), n.name.c_str());
    return CallResult::success();
  }
  CallResult evict(const TaskInfo&, const Eviction&) override { return CallResult::success(); }
  void podgroup_phase_changed(const JobInfo&, PodGroupPhase, PodGroupPhase) override {}
  void job_condition(const JobInfo&, const Status&) override {}
};

int main() {
  SchedulerCache cache;
  QueueObject q;
  q.uid = "5d1c7a0e-0000-4000-8000-000000000001";
  q.spec.name = "default";
  cache.apply_queue(q);
  NodeObject n;
  n.uid = "5d1c7a0e-0000-4000-8000-000000000002";
  n.spec.name = "trn1-0";
  n.spec.allocatable = Resource::make(128, 512.0 * (1 << 30)).with(rn::kNeuronCore, 32).with(rn::kEfa, 8).with(rn::kPods, 110);
  cache.apply_node(n);
  PodGroupObject pg;
  pg.uid = "5d1c7a0e-0000-4000-8000-000000000003";
  pg.name = "team/job";
  pg.queue = "default";
  pg.spec.min_available = 1;
  pg.spec.min_resources = task_resreq(Resource::make(8, 32.0 * (1 << 30)).with(rn::kNeuronCore, 2));
  pg.spec.phase = PodGroupPhase::Inqueue;
  cache.apply_podgroup(pg);
  PodObject pod;
  pod.uid = "5d1c7a0e-0000-4000-8000-000000000004";
  pod.name = "team/job-0";
  pod.podgroup = "team/job";
  pod.status = task_status_of(PodPhase::Pending, false, false);
  pod.spec.name = "job-0";
  pod.spec.resreq = pg.spec.min_resources;
  cache.apply_pod(pod);
  PrintBackend be;
  be.cache = &cache;
  Scheduler s(volcano_default_config(), 1);
  s.run_once(cache.state(), be);
  return be.binds == 1 ? 0 : 1;
}
