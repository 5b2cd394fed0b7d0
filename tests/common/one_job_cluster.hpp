// tests/common/one_job_cluster.hpp — one Volcano Job of mltwin's training model and the training
// cluster's components around it, built by hand (no scenario file), for tests that drive the job
// controller, the pod lifecycle and the scheduler driver one rule at a time
// (tests/models/test_training_components.cpp, tests/conformance/controller_harness.hpp).
//
// The Job is submitted at 0 s as TrainingCluster::arrive does: `replicas` pods of 1 cpu (none
// created yet), minAvailable = replicas, PodGroup Pending, Job Pending; one queue "default" and one
// node "node-0". Binds take 50 ms and pods start in 2 s. Nothing is scheduled until a test acts
// (parts->driver.ensure_tick() starts the scheduler's cycles).
#pragma once

#include <memory>
#include <string>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/training/components.hpp"

namespace mltwin::test {

struct OneJobOptions {
  std::string name = "train";
  int replicas = 2;
  /// The Job's lifecycle (maxRetry, policies); null: none (maxRetry 3, no policy).
  std::shared_ptr<const models::JobLifecycle> lifecycle;
  double node_cpu = 8;           ///< node-0's allocatable cpu, cores
  double node_memory_gib = 64;   ///< node-0's allocatable memory, GiB
};

/// `Recorder` is the test's models::TrainingRecorder (what it checks of the rows).
template <class Recorder>
struct OneJobCluster {
  models::TrainingScenario sc;
  core::Simulator sim;
  core::RngStreams rng{1};
  Recorder rows;
  std::unique_ptr<models::TrainingState> s;
  std::unique_ptr<models::TrainingComponents> parts;

  explicit OneJobCluster(const OneJobOptions& o) {
    using models::LatencySpec;
    sc.bind_latency = LatencySpec{LatencySpec::Kind::Constant, core::Duration::ms(50), core::Duration::ms(50), "test"};
    sc.pod_startup = LatencySpec{LatencySpec::Kind::Constant, core::Duration::s(2), core::Duration::s(2), "test"};
    models::TrainingJobSpec j;
    j.name = o.name;
    j.queue = "default";
    j.nnodes = o.replicas;
    j.cpu_per_pod = 1;
    j.duration = core::Duration::s(1000);
    j.lifecycle = o.lifecycle ? o.lifecycle : std::make_shared<models::JobLifecycle>();
    sc.jobs.push_back(j);
    s = std::make_unique<models::TrainingState>(sc, sim, rows, rng);
    policy::QueueInfo q;
    q.name = "default";
    s->state.add_queue(q);
    policy::NodeInfo n;
    n.name = "node-0";
    n.allocatable = policy::Resource::make(o.node_cpu, o.node_memory_gib * (1ull << 30));
    n.allocatable.with(policy::rn::kPods, 110);  // the kubelet's max-pods
    n.capacity = n.allocatable;
    s->state.add_node(n);
    s->torchx_default = models::torchx_lifecycle(0);
    s->runs.resize(1);
    s->outcomes.resize(1);
    s->jstart.resize(1);
    parts = std::make_unique<models::TrainingComponents>(*s, rng);
    policy::JobInfo pj;
    pj.name = j.name;
    pj.queue = 0;
    pj.min_available = j.nnodes;
    pj.min_resources = s->pod_resreq(0);
    pj.min_resources.multi(j.nnodes);
    s->runs[0].pj = s->state.add_job(pj);
    s->job_of_policy.assign(s->runs[0].pj + 1, 0);
    s->next_arrival = 1;
  }
};

}  // namespace mltwin::test
