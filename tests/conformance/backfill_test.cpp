// Volcano v1.12.1 pkg/scheduler/actions/backfill/backfill_test.go, ported.
//
// TestPickUpPendingTasks opens a session, pipelines some tasks (statements never committed),
// then checks the order of the tasks backfill's pickUpPendingTasks picks: the BestEffort ones,
// Pending or Pipelined (unpipelined), in queue, job and task order. mltwin's backfill does not
// expose its pick list; it places each picked task in that order, and with one node, no
// predicate and no JobReady plugin each placement binds at once — so the order of the binds is
// the pick order. A node "node1" (the node upstream pipelines onto, absent from its cache) is
// added to pipeline onto and to place on.
#include <memory>
#include <random>

#include "conformance.hpp"
#include "mltwin/policy/session.hpp"

namespace {

using namespace mltwin::conformance;

/// util.BuildPodWithPriority(ns, name, "", Pending, req, ...): BestEffort (no requests) or
/// 500m cpu, with the pod's priority.
Pod task(const std::string& name, bool best_effort, int priority) {
  Pod p;
  p.name(name).priority(priority);
  if (!best_effort) p.cpu("500m");
  return p;
}

}  // namespace

UPSTREAM_CASE("actions/backfill/backfill_test.go", "TestPickUpPendingTasks", "test") {
  World w;
  w.node(NodeBuilder("node1").cpu("8").memory("8Gi"));
  w.queue(QueueBuilder("q1").weight(1));
  // pg1 (priority class job-priority-1: 1) and pg2 (job-priority-2: 2), Inqueue, minMember 1,
  // minTaskMember {"": 3} (above minMember: the per-task checks are skipped).
  std::vector<std::string> pipelined;
  for (const std::string pg : {"pg1", "pg2"}) {
    JobBuilder j(pg, "q1");
    j.min_available(1).min_task_member("", 3).no_min_resources().phase(PodGroupPhase::Inqueue).priority(pg == "pg1" ? 1 : 2);
    // pendingPods: tasks 1 and 3; pipelinedPods: tasks 2 and 4; each BestEffort and not,
    // with priority equal to its number.
    for (int n : {1, 3, 2, 4})
      for (bool be : {true, false}) {
        const std::string name = pg + (be ? "-besteffort-task-" : "-unbesteffort-task-") + std::to_string(n);
        j.pod(task(name, be, n));
        if (n % 2 == 0) pipelined.push_back(name);
      }
    w.job(j);
  }

  SchedulerConfig cfg;
  cfg.actions = {"backfill"};
  cfg.tiers = {Tier{{plugin("priority", {Ext::Preemptable, Ext::TaskOrder, Ext::JobOrder}),
                     plugin("drf", {Ext::QueueOrder})}}};
  const std::string problem = cfg.validate();
  REQUIRE_MESSAGE(problem.empty(), problem);
  RecordingBackend be;
  std::mt19937_64 rng{7};
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  for (const std::string& name : pipelined) {
    Statement stmt(s);
    stmt.pipeline(w.tasks.at(name), w.nodes.at("node1"));
    s.keep_until_close(std::move(stmt));  // neither committed nor discarded, as upstream
  }
  s.run_actions();
  std::vector<std::string> order;
  for (const auto& b : be.binds) order.push_back(w.state.task(b.task).name);
  s.close();
  const std::vector<std::string> want = {
      "pg2-besteffort-task-4", "pg2-besteffort-task-3", "pg2-besteffort-task-2", "pg2-besteffort-task-1",
      "pg1-besteffort-task-4", "pg1-besteffort-task-3", "pg1-besteffort-task-2", "pg1-besteffort-task-1",
  };
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  INFO("want " << join(want) << "\ngot  " << join(order));
  CHECK(order == want);
}
