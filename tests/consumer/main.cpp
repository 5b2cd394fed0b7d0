// Links the policy library alone and runs one Volcano cycle against a tiny backend.
#include <cstdio>

#include "mltwin/policy/scheduler.hpp"

using namespace mltwin::policy;

struct PrintBackend : Backend {
  int binds = 0;
  CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
    ++binds;
    std::printf("bind %s -> %s\n", t.name.c_str(), n.name.c_str());
    return CallResult::success();
  }
  CallResult evict(const TaskInfo&, std::string_view) override { return CallResult::success(); }
  void podgroup_phase_changed(const JobInfo&, PodGroupPhase, PodGroupPhase) override {}
  void job_condition(const JobInfo&, const Status&) override {}
};

int main() {
  ClusterState st;
  QueueInfo q;
  q.name = "default";
  const QueueId qid = st.add_queue(q);
  NodeInfo n;
  n.name = "trn1-0";
  n.allocatable = Resource::make(128, 512.0 * (1 << 30)).with(rn::kNeuronCore, 32).with(rn::kEfa, 8).with(rn::kPods, 110);
  st.add_node(n);
  JobInfo j;
  j.name = "job";
  j.queue = qid;
  j.min_available = 1;
  j.min_resources = task_resreq(Resource::make(8, 32.0 * (1 << 30)).with(rn::kNeuronCore, 2));
  const JobId jid = st.add_job(j);
  st.set_podgroup_phase(jid, PodGroupPhase::Inqueue);
  TaskInfo t;
  t.name = "job-0";
  t.resreq = j.min_resources;
  st.add_task(jid, t);
  PrintBackend be;
  Scheduler s(volcano_default_config(), 1);
  s.run_once(st, be);
  return be.binds == 1 ? 0 : 1;
}
