// Volcano v1.12.1 pkg/scheduler/plugins/nodeorder/nodeorder.go has no test upstream: these cases
// are written from its source and from the Kubernetes scoring plugins it calls, at the version
// Volcano's go.mod pins (k8s.io/kubernetes v1.32.2, go.mod:45), files under
// pkg/scheduler/framework/plugins/:
// - noderesources/least_allocated.go leastResourceScorer, leastRequestedScore: per resource
//   (allocatable - requested) * 100 / allocatable in integers (0 when requested > allocatable),
//   then sum(score * weight) / sum(weight) in integers; nodeorder.go:172-179 asks for cpu and
//   memory with weight 50 each.
// - noderesources/most_allocated.go mostResourceScorer, mostRequestedScore: requested * 100 /
//   allocatable, requested capped at allocatable; cpu and memory weight 1 each (nodeorder.go:182-189).
// - noderesources/balanced_allocation.go balancedResourceScorer: fractions requested / allocatable
//   (capped at 1) of cpu, memory and nvidia.com/gpu (nodeorder.go:192-200; resource_allocation.go
//   calculateResourceAllocatableRequest leaves out an extended resource the pod does not request,
//   and score() one the node lacks); std = |f1 - f2| / 2 for two, the population standard
//   deviation for three; int64((1 - std) * 100).
//   "requested" is the node's pods plus the pod scored (resource_allocation.go). The Fit scorers
//   (least, most) count a pod without a cpu or memory request as 100m or 200Mi
//   (schedutil.DefaultMilliCPURequest, DefaultMemoryRequest; NonZeroRequested); mltwin does not
//   model these defaults and scores requests as they are. Every pod here requests cpu and
//   memory, where the two agree.
// - nodeaffinity/node_affinity.go Score: the sum of the weights of the pod's preferred terms the
//   node matches; nodeorder.go:269-280 adds it times nodeaffinity.weight without normalising.
// - tainttoleration/taint_toleration.go: per node the PreferNoSchedule taints not tolerated by the
//   pod's tolerations of empty or PreferNoSchedule effect (getAllTolerationPreferNoSchedule,
//   countIntolerableTaintsPreferNoSchedule); NormalizeScore is helper.DefaultNormalizeScore(100,
//   reverse): 100 - 100 * count / max over the candidates, 100 everywhere when max is 0
//   (plugins/helper/normalize_score.go); nodeorder.go:318 via util/nodescore/nodescore.go:42-109
//   multiplies by tainttoleration.weight. It is a batch score (nodeorder.go:300-335): it depends
//   on the candidate nodes.
// Weights (nodeorder.go:116-156 calculateWeight): leastrequested 1, mostrequested 0,
// balancedresource 1, nodeaffinity 2, tainttoleration 3 unless given; a scorer of weight 0 is
// skipped (:217-280). The node's score is the sum (:213-284 NodeOrderFn, plus the batch score,
// util.PrioritizeNodes). ImageLocality, InterPodAffinity and PodTopologySpread score nothing for
// the pods and nodes built here (no images, no pod affinity terms, no spread constraints).
#include <cmath>
#include <optional>

#include "conformance.hpp"

namespace {

using namespace mltwin::conformance;

Taint taint(std::string key, std::string value, TaintEffect e) { return Taint{std::move(key), std::move(value), e}; }

Toleration tolerate(std::string key, Toleration::Op op, std::string value, std::optional<TaintEffect> effect) {
  Toleration t;
  t.key = std::move(key);
  t.op = op;
  t.value = std::move(value);
  t.any_effect = !effect.has_value();
  if (effect) t.effect = *effect;
  return t;
}

PreferredSchedulingTerm prefer(std::int32_t weight, std::string key, NodeSelectorRequirement::Op op,
                               std::vector<std::string> values = {}) {
  PreferredSchedulingTerm p;
  p.weight = weight;
  p.preference.match_expressions.push_back({std::move(key), op, std::move(values)});
  return p;
}

/// Three nodes and the pod "t" (1 cpu, 2Gi) to score:
/// - a: 4 cpu, 8Gi, holds a pod of 1 cpu / 2Gi; zone=a; PreferNoSchedule taints k1, k2, k3=w.
/// - b: 8 cpu, 8Gi, holds a pod of 2 cpu / 6Gi; zone=b, disk=ssd; PreferNoSchedule k1 and k5=v,
///   NoSchedule k4.
/// - c: 16 cpu, 32Gi, empty; no labels, no taints.
/// t prefers zone In [a] (weight 10) and disk Exists (weight 30); it tolerates k2 (Exists,
/// PreferNoSchedule), k3 = v (any effect: not k3=w), k5 = v (any effect), and k1 only for
/// NoSchedule (not counted for PreferNoSchedule).
/// Intolerable PreferNoSchedule taints: a 2 (k1, k3=w), b 1 (k1), c 0.
World three_nodes() {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("a").cpu("4").memory("8Gi").pods(110).label("zone", "a")
             .taint(taint("k1", "", TaintEffect::PreferNoSchedule))
             .taint(taint("k2", "", TaintEffect::PreferNoSchedule))
             .taint(taint("k3", "w", TaintEffect::PreferNoSchedule)));
  w.node(NodeBuilder("b").cpu("8").memory("8Gi").pods(110).label("disk", "ssd").label("zone", "b")
             .taint(taint("k1", "", TaintEffect::PreferNoSchedule))
             .taint(taint("k4", "", TaintEffect::NoSchedule))
             .taint(taint("k5", "v", TaintEffect::PreferNoSchedule)));
  w.node(NodeBuilder("c").cpu("16").memory("32Gi").pods(110));
  NodeAffinity aff;
  aff.preferred = {prefer(10, "zone", NodeSelectorRequirement::Op::In, {"a"}),
                   prefer(30, "disk", NodeSelectorRequirement::Op::Exists)};
  Pod t;
  t.name("t").cpu("1").memory("2Gi").affinity(aff)
      .toleration(tolerate("k2", Toleration::Op::Exists, "", TaintEffect::PreferNoSchedule))
      .toleration(tolerate("k3", Toleration::Op::Equal, "v", std::nullopt))
      .toleration(tolerate("k5", Toleration::Op::Equal, "v", std::nullopt))
      .toleration(tolerate("k1", Toleration::Op::Exists, "", TaintEffect::NoSchedule));
  w.job(JobBuilder("held", "q").min_available(0).no_min_resources().phase(PodGroupPhase::Running)
            .pod(Pod().name("on-a").cpu("1").memory("2Gi").on("a"))
            .pod(Pod().name("on-b").cpu("2").memory("6Gi").on("b")));
  w.job(JobBuilder("j", "q").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue).pod(t)
            .pod(Pod().name("big").cpu("1").memory("8Gi")));
  return w;
}

Tier nodeorder(Arguments a = {}) { return Tier{{plugin("nodeorder", {Ext::NodeOrder}, std::move(a))}}; }

/// Session::prioritize_nodes over the named candidates, by name.
std::map<std::string, double> prioritized(SessionOn& s, World& w, const char* task, std::vector<std::string> names) {
  std::vector<NodeId> nodes;
  for (const auto& n : names) nodes.push_back(w.nodes.at(n));
  std::vector<double> out;
  s->prioritize_nodes(w.state.task(w.tasks.at(task)), nodes, out);
  std::map<std::string, double> m;
  for (std::size_t i = 0; i < names.size(); ++i) m[names[i]] = out[i];
  return m;
}

double node_score(SessionOn& s, World& w, const char* task, const char* node) {
  return s->node_score(w.state.task(w.tasks.at(task)), w.state.node(w.nodes.at(node)));
}

}  // namespace

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "leastrequested :229-240 alone (weight 1): least_allocated.go, cpu and memory weight 50 each, in integers") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder(args({{"balancedresource.weight", "0"}, {"nodeaffinity.weight", "0"},
                                  {"tainttoleration.weight", "0"}}))});
  // a: cpu (4000-2000)*100/4000 = 50, memory (8Gi-4Gi)*100/8Gi = 50 -> (50*50+50*50)/100 = 50.
  CHECK(node_score(s, w, "t", "a") == 50);
  // b: cpu (8000-3000)*100/8000 = 62 (62.5), memory 8Gi of 8Gi -> 0 -> (62*50+0)/100 = 31.
  CHECK(node_score(s, w, "t", "b") == 31);
  // c: cpu 15000*100/16000 = 93 (93.75), memory 30Gi*100/32Gi = 93 -> 93.
  CHECK(node_score(s, w, "t", "c") == 93);
  // "big" (1 cpu, 8Gi) on a: memory 10Gi > 8Gi -> 0; cpu 50 -> 25.
  CHECK(node_score(s, w, "big", "a") == 25);
  // With tainttoleration off no batch score is added.
  CHECK(prioritized(s, w, "t", {"a", "b", "c"}) == std::map<std::string, double>{{"a", 50}, {"b", 31}, {"c", 93}});
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "mostrequested :242-253 (weight 0 by default, :122): most_allocated.go, cpu and memory weight 1 each, "
            "requested capped at allocatable") {
  World w = three_nodes();
  const Arguments only_most = args({{"leastrequested.weight", "0"}, {"mostrequested.weight", "1"},
                                    {"balancedresource.weight", "0"}, {"nodeaffinity.weight", "0"},
                                    {"tainttoleration.weight", "0"}});
  SessionOn s(w, {nodeorder(only_most)});
  // a: cpu 2000*100/4000 = 50, memory 4Gi*100/8Gi = 50 -> (50+50)/2 = 50.
  CHECK(node_score(s, w, "t", "a") == 50);
  // b: cpu 3000*100/8000 = 37 (37.5), memory 100 -> (37+100)/2 = 68 (68.5).
  CHECK(node_score(s, w, "t", "b") == 68);
  // c: cpu 1000*100/16000 = 6 (6.25), memory 2Gi*100/32Gi = 6 -> 6.
  CHECK(node_score(s, w, "t", "c") == 6);
  // "big" on a: memory 10Gi capped at 8Gi -> 100; cpu 50 -> 75.
  CHECK(node_score(s, w, "big", "a") == 75);
  // At its default weight 0 it adds nothing: every scorer off but mostrequested left unset.
  World w0 = three_nodes();
  SessionOn s0(w0, {nodeorder(args({{"leastrequested.weight", "0"}, {"balancedresource.weight", "0"},
                                    {"nodeaffinity.weight", "0"}, {"tainttoleration.weight", "0"}}))});
  CHECK(node_score(s0, w0, "t", "a") == 0);
  CHECK(node_score(s0, w0, "t", "b") == 0);
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "balancedresource :255-266 (weight 1): balanced_allocation.go, (1 - |f_cpu - f_mem| / 2) * 100 truncated, "
            "fractions capped at 1") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder(args({{"leastrequested.weight", "0"}, {"nodeaffinity.weight", "0"},
                                  {"tainttoleration.weight", "0"}}))});
  CHECK(node_score(s, w, "t", "a") == 100);  // 0.5 and 0.5
  CHECK(node_score(s, w, "t", "b") == 68);   // 0.375 and 1: std 0.3125 -> 68.75
  CHECK(node_score(s, w, "t", "c") == 100);  // 0.0625 and 0.0625
  CHECK(node_score(s, w, "big", "a") == 75);  // 0.5 and 10/8 capped at 1: std 0.25
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "balancedresource :191-200 includes nvidia.com/gpu: a pod that requests GPUs on a node that has them is "
            "scored on three fractions, std = sqrt(sum((f - mean)^2) / 3) (balanced_allocation.go)") {
  World w;
  w.queue(QueueBuilder("q"));
  w.node(NodeBuilder("g").cpu("8").memory("32Gi").pods(110).gpus(4));
  w.node(NodeBuilder("plain").cpu("8").memory("32Gi").pods(110));
  w.job(JobBuilder("j", "q").min_available(1).no_min_resources().phase(PodGroupPhase::Inqueue)
            .pod(Pod().name("t").cpu("2").memory("8Gi").gpus(2)));
  SessionOn s(w, {nodeorder(args({{"leastrequested.weight", "0"}, {"nodeaffinity.weight", "0"},
                                  {"tainttoleration.weight", "0"}}))});
  // g: cpu 0.25, memory 0.25, gpu 0.5; mean 1/3; std = sqrt((2 * (1/12)^2 + (1/6)^2) / 3)
  // = 0.117851... -> (1 - 0.117851) * 100 = 88.2 -> 88.
  const double f[] = {0.25, 0.25, 0.5};
  const double mean = (f[0] + f[1] + f[2]) / 3;
  double sum = 0;
  for (double x : f) sum += (x - mean) * (x - mean);
  REQUIRE(static_cast<std::int64_t>((1 - std::sqrt(sum / 3)) * 100) == 88);
  CHECK(node_score(s, w, "t", "g") == 88);
  // plain has no nvidia.com/gpu: resource_allocation.go skips it, two fractions of 0.25: 100.
  CHECK(node_score(s, w, "t", "plain") == 100);
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "nodeaffinity :268-280 (weight 2): the matched preferred terms' weights, not normalised, times the weight") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder(args({{"leastrequested.weight", "0"}, {"balancedresource.weight", "0"},
                                  {"tainttoleration.weight", "0"}}))});
  CHECK(node_score(s, w, "t", "a") == 20);  // zone In [a]: 10 * 2
  CHECK(node_score(s, w, "t", "b") == 60);  // disk Exists: 30 * 2
  CHECK(node_score(s, w, "t", "c") == 0);
  World w5 = three_nodes();
  SessionOn s5(w5, {nodeorder(args({{"leastrequested.weight", "0"}, {"balancedresource.weight", "0"},
                                    {"tainttoleration.weight", "0"}, {"nodeaffinity.weight", "5"}}))});
  CHECK(node_score(s5, w5, "t", "b") == 150);
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "tainttoleration :318 (weight 3, batch): untolerated PreferNoSchedule taints normalised over the candidate "
            "nodes, 100 - 100 * count / max, times the weight") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder(args({{"leastrequested.weight", "0"}, {"balancedresource.weight", "0"},
                                  {"nodeaffinity.weight", "0"}}))});
  // Counts a 2, b 1, c 0; max 2: a 0, b 50, c 100; times 3.
  CHECK(prioritized(s, w, "t", {"a", "b", "c"}) == std::map<std::string, double>{{"a", 0}, {"b", 150}, {"c", 300}});
  // Among b and c the max is 1: b scores 0.
  CHECK(prioritized(s, w, "t", {"b", "c"}) == std::map<std::string, double>{{"b", 0}, {"c", 300}});
  // No candidate with such a taint: DefaultNormalizeScore gives every node 100.
  CHECK(prioritized(s, w, "t", {"c"}) == std::map<std::string, double>{{"c", 300}});
  // The per-node function (NodeOrderFn) has no part of it.
  CHECK(node_score(s, w, "t", "c") == 0);
  // A pod without tolerations: a 3 (k1, k2, k3), b 2 (k1, k5), c 0: a 0, b 100 - 66 = 34, c 100.
  CHECK(prioritized(s, w, "big", {"a", "b", "c"}) == std::map<std::string, double>{{"a", 0}, {"b", 102}, {"c", 300}});
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "the weighted sum :213-284 plus :300-335, default weights (leastrequested 1, balancedresource 1, "
            "nodeaffinity 2, tainttoleration 3)") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder()});
  // a: 50 + 100 + 20 + 0 = 170; b: 31 + 68 + 60 + 150 = 309; c: 93 + 100 + 0 + 300 = 493.
  CHECK(prioritized(s, w, "t", {"a", "b", "c"}) == std::map<std::string, double>{{"a", 170}, {"b", 309}, {"c", 493}});
  CHECK(node_score(s, w, "t", "a") == 170);
  CHECK(node_score(s, w, "t", "b") == 159);
  CHECK(node_score(s, w, "t", "c") == 193);
}

SOURCE_CASE("plugins/nodeorder/nodeorder.go",
            "the weighted sum with every weight given (calculateWeight :116-156): leastrequested 2, mostrequested 3, "
            "balancedresource 0, nodeaffinity 1, tainttoleration 5") {
  World w = three_nodes();
  SessionOn s(w, {nodeorder(args({{"leastrequested.weight", "2"}, {"mostrequested.weight", "3"},
                                  {"balancedresource.weight", "0"}, {"nodeaffinity.weight", "1"},
                                  {"tainttoleration.weight", "5"}}))});
  // a: 2*50 + 3*50 + 10 + 5*0 = 260; b: 2*31 + 3*68 + 30 + 5*50 = 546; c: 2*93 + 3*6 + 0 + 5*100 = 704.
  CHECK(prioritized(s, w, "t", {"a", "b", "c"}) == std::map<std::string, double>{{"a", 260}, {"b", 546}, {"c", 704}});
}
