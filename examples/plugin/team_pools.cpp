// team-pools: a scheduler plugin that keeps each queue's pods on the nodes of its team's pool.
//
// Many platforms give each team a node pool (an EKS node group labelled, say,
// `example.com/pool: <team>`) and map teams to Volcano queues. This plugin adds a predicate: a
// node labelled with the pool key admits only pods of the queue of that name; unlabelled nodes
// admit everyone. It is registered under a name, configured in a tier like any built-in
// plugin, and takes one argument, `poolLabel`.
//
// main() runs one scheduling cycle on a four-node world built with mltwin::policy_testing and
// exits 0 only if team a's two pods landed on team a's two nodes. docs/plugin-guide.md explains
// each step.
#include <cstdio>
#include <memory>
#include <string>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "mltwin/policy/version.hpp"

using namespace mltwin::policy;

namespace {

class TeamPools final : public Plugin {
 public:
  explicit TeamPools(const Arguments& args)
      : label_(args.get_string("poolLabel", "example.com/pool")) {}
  std::string_view name() const override { return "team-pools"; }

  void on_session_open(Session& ssn) override {
    const ClusterState* st = &ssn.state();
    // The answer depends on the pod's queue and the node only: TaskDependence::Spec lets the
    // preempt action reuse it for preemptors of the same spec within a session.
    ssn.add_predicate_fn(
        [this, st](const TaskInfo& task, const NodeInfo& node) {
          const std::string* pool = node.label(label_);
          if (!pool) return Status::success();
          const std::string& queue = st->queue(st->job(task.job).queue).name;
          if (*pool == queue) return Status::success();
          // Unresolvable: no pod of this queue will ever fit there, whatever is evicted.
          return Status::unresolvable("team-pools", "node(s) belong to another team's pool");
        },
        TaskDependence::Spec);
  }

 private:
  std::string label_;
};

}  // namespace

int main() {
  // 1. Register the plugin by name, as Volcano's framework.RegisterPluginBuilder does.
  //    It declares the one argument it reads, so that a misspelt key is reported
  //    (SchedulerConfig::check_arguments) instead of silently ignored.
  register_plugin("team-pools", [](const Arguments& args) { return std::make_unique<TeamPools>(args); },
                  {ArgSpec::of("poolLabel", ArgType::Text, "example.com/pool", "examples/plugin/team_pools.cpp")});

  // 2. Configure it: Volcano's default configuration with team-pools in the second tier.
  SchedulerConfig config = volcano_default_config();
  PluginOption option;
  option.name = "team-pools";
  option.arguments.set("poolLabel", "example.com/pool");
  config.tiers.back().plugins.push_back(option);
  if (const std::string bad = config.validate(); !bad.empty()) {
    std::fprintf(stderr, "configuration: %s\n", bad.c_str());
    return 1;
  }

  // 3. A world: two teams, two nodes each, and one two-pod job of team a.
  using namespace mltwin::policy::testing;
  World w;
  w.queue(QueueBuilder("a"));
  w.queue(QueueBuilder("b"));
  for (const char* n : {"b-0", "b-1", "a-0", "a-1"})
    w.node(NodeBuilder(n).trn1_32xlarge().label("example.com/pool", std::string(n, 1)));
  w.job(JobBuilder("train", "a").pods(2, Pod().cpu(8).memory_gib(32).neuron_devices(16)).inqueue());

  // 4. One cycle; the recording backend keeps the binds.
  RecordingBackend backend;
  Scheduler scheduler(config, /*seed=*/1);
  scheduler.run_once(w.state, backend);

  int on_own_pool = 0;
  for (const auto& b : backend.binds) {
    const NodeInfo& node = w.state.node(b.node);
    std::printf("bind %s -> %s\n", w.state.task(b.task).name.c_str(), node.name.c_str());
    on_own_pool += *node.label("example.com/pool") == "a";
  }
  std::printf("mltwin %s (Volcano %s): %zu binds, %d on team a's pool\n", kVersion, kVolcanoRelease,
              backend.binds.size(), on_own_pool);
  return backend.binds.size() == 2 && on_own_pool == 2 ? 0 : 1;
}
