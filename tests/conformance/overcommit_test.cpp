// Volcano v1.12.1 pkg/scheduler/plugins/overcommit/overcommit_test.go, ported.
//
// The test opens a session with the overcommit plugin alone (only enableJobEnqueued on, which
// is also the switch JobEnqueueable reads: framework/session_plugins.go:426), then for each job
// calls JobEnqueued and then JobEnqueueable and checks the answer. So the job's minResources
// count twice in the second call: once as an Inqueue job at session open, once from
// JobEnqueued.
#include <memory>
#include <random>

#include "conformance.hpp"
#include "mltwin/policy/session.hpp"

namespace {

using namespace mltwin::conformance;

/// util.BuildNode(name, BuildResourceList(cpu, memory)): no `pods` upstream; mltwin's default
/// 110 is not read (the plugin compares only the dimensions a job's minResources name).
NodeBuilder node(std::string name, std::string_view cpu, std::string_view memory) {
  NodeBuilder n(std::move(name));
  n.cpu(cpu).memory(memory);
  return n;
}

/// Nodes n1 (2 cpu, 4Gi) and n2 (4 cpu, 16Gi); queue c1 (weight 1, capability as given).
World overcommit_world(bool small_capability) {
  World w;
  w.node(node("n1", "2", "4Gi"));
  w.node(node("n2", "4", "16Gi"));
  QueueBuilder q("c1");
  q.weight(1);
  if (small_capability) q.capability(Pod().cpu("200m").memory("0.5G"));
  w.queue(q);
  return w;
}

/// The test's loop: a session with overcommit (enableJobEnqueued, overcommit-factor as given);
/// for each job, JobEnqueued then JobEnqueueable, which must answer `want`.
void check_enqueueable(World& w, const std::string& factor, bool want) {
  SchedulerConfig cfg;
  cfg.tiers = {Tier{{plugin("overcommit", {Ext::JobEnqueued}, args({{"overcommit-factor", factor}}))}}};
  const std::string problem = cfg.validate();
  REQUIRE_MESSAGE(problem.empty(), problem);
  RecordingBackend be;
  std::mt19937_64 rng{7};
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  for (const auto& entry : w.jobs) {  // no structured binding: clang 14 cannot capture one (INFO)
    const auto& name = entry.first;
    const JobInfo& j = w.state.job(entry.second);
    s.job_enqueued(j);
    const Verdict v = s.job_enqueueable(j);
    INFO("job " << name << ": " << v.plugin << " " << v.reason);
    CHECK(v.ok() == want);
  }
  s.close();
}

}  // namespace

UPSTREAM_CASE("plugins/overcommit/overcommit_test.go", "TestOvercommitPlugin", "overCommitFactor is more than 0") {
  World w = overcommit_world(false);
  w.job(JobBuilder("pg1", "c1").min_available(2).min_resources(Pod().cpu("2000m").memory("2G"))
            .phase(PodGroupPhase::Inqueue));
  check_enqueueable(w, "1.2", true);
}

UPSTREAM_CASE("plugins/overcommit/overcommit_test.go", "TestOvercommitPlugin", "overCommitFactor is less than 0") {
  // 0.8 is below 1.0: the plugin falls back to the default 1.2.
  World w = overcommit_world(false);
  w.job(JobBuilder("pg1", "c1").min_available(2).min_resources(Pod().cpu("2000m").memory("2G"))
            .phase(PodGroupPhase::Inqueue));
  check_enqueueable(w, "0.8", true);
}

UPSTREAM_CASE("plugins/overcommit/overcommit_test.go", "TestOvercommitPlugin", "when the required resources of pg are too large") {
  World w = overcommit_world(false);
  w.job(JobBuilder("pg2", "c1").min_available(2).min_resources(Pod().cpu("20000m").memory("20G"))
            .phase(PodGroupPhase::Inqueue));
  check_enqueueable(w, "1.2", false);
}

UPSTREAM_CASE("plugins/overcommit/overcommit_test.go", "TestOvercommitPlugin", "when pg does not fill MinResources") {
  // pg3 is named "pg2" upstream, in a queue also named c1 (capability 200m, 0.5G).
  World w = overcommit_world(true);
  w.job(JobBuilder("pg2", "c1").min_available(2).no_min_resources().phase(PodGroupPhase::Inqueue));
  check_enqueueable(w, "1.2", true);
}
