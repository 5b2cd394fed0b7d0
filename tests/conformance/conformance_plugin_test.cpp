// Volcano v1.12.1 pkg/scheduler/plugins/conformance/conformance_test.go, ported.
//
// The upstream test runs no action: it opens a session with the conformance plugin alone
// (Preemptable enabled) and asks ssn.Preemptable for the victims among two running pods of the
// same name, one in namespace kube-system, with an empty preemptor.
#include <random>

#include "conformance.hpp"
#include "mltwin/policy/session.hpp"

using namespace mltwin::conformance;

UPSTREAM_CASE("plugins/conformance/conformance_test.go", "TestConformancePlugin", "conformance plugin") {
  World w;
  w.queue(QueueBuilder("q1").weight(1));
  w.node(NodeBuilder("test-node").cpu("2").memory("2Gi"));
  w.job(JobBuilder("pg1", "q1").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(Pod().name("kube-system/test-pod").cpu("1").memory("1Gi").on("test-node"))
            .pod(Pod().name("test-namespace/test-pod").cpu("1").memory("1Gi").on("test-node")));
  // A pod of namespace kube-system is what mltwin's TaskInfo::system_critical stands for.
  const TaskId task1 = w.tasks.at("kube-system/test-pod");
  const TaskId task2 = w.tasks.at("test-namespace/test-pod");
  TaskInfo spec = w.state.task(task1);
  spec.system_critical = true;
  w.state.update_task(task1, spec);

  SchedulerConfig cfg;
  cfg.tiers = {Tier{{plugin("conformance", {Ext::Preemptable})}}};
  RecordingBackend be;
  std::mt19937_64 rng{7};
  Session ssn(w.state, be, cfg, rng, 1);
  ssn.open();
  const std::vector<TaskId> preemptees{task1, task2};
  CHECK(ssn.preemptable(TaskInfo{}, preemptees) == std::vector<TaskId>{task2});
  ssn.close();
}
