// Kubernetes node constraints in the policy library: taints and tolerations, node selectors and
// node affinity (the rules of node_constraints.hpp), the predicates and nodeorder plugins that
// apply them, and whole scheduling cycles with them. Expectations are worked out by hand from
// the upstream rules named in node_constraints.hpp, predicates.cpp and nodeorder.cpp.
#include <doctest/doctest.h>

#include "mltwin/policy/node_constraints.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
using Op = NodeSelectorRequirement::Op;

Toleration tol(std::string key, Toleration::Op op, std::string value = "") {
  Toleration t;
  t.key = std::move(key);
  t.op = op;
  t.value = std::move(value);
  return t;
}
Toleration tol(std::string key, Toleration::Op op, std::string value, TaintEffect effect) {
  Toleration t = tol(std::move(key), op, std::move(value));
  t.any_effect = false;
  t.effect = effect;
  return t;
}
NodeSelectorRequirement req(std::string key, Op op, std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::move(key), op, std::move(values)};
}
NodeSelectorTerm term(std::vector<NodeSelectorRequirement> exprs) { return NodeSelectorTerm{std::move(exprs), {}}; }
NodeAffinity required(std::vector<NodeSelectorTerm> terms) {
  NodeAffinity a;
  a.has_required = true;
  a.required = std::move(terms);
  return a;
}
NodeAffinity preferred(std::int32_t weight, NodeSelectorTerm t) {
  NodeAffinity a;
  a.preferred.push_back({weight, std::move(t)});
  return a;
}

const Taint kNeuron{"aws.amazon.com/neuron", "true", TaintEffect::NoSchedule};
const char* const kZone = "topology.kubernetes.io/zone";

NodeId node_of_bind(const RecordingBackend& be, JobId j) {
  for (const auto& b : be.binds)
    if (b.job == j) return b.node;
  return kNone;
}
}  // namespace

TEST_CASE("tolerations: ToleratesTaint case by case (k8s.io/api/core/v1/toleration.go)") {
  const Taint t{"k", "v", TaintEffect::NoSchedule};
  CHECK(tol("k", Toleration::Op::Equal, "v").tolerates(t));           // same key and value, any effect
  CHECK_FALSE(tol("k", Toleration::Op::Equal, "w").tolerates(t));     // other value
  CHECK_FALSE(tol("k", Toleration::Op::Equal, "").tolerates(t));      // Equal with no value: value "" only
  CHECK(tol("k", Toleration::Op::Exists).tolerates(t));               // Exists: any value
  CHECK_FALSE(tol("other", Toleration::Op::Exists).tolerates(t));     // other key
  CHECK(tol("", Toleration::Op::Exists).tolerates(t));                // empty key + Exists: every taint
  CHECK(tol("k", Toleration::Op::Exists, "", TaintEffect::NoSchedule).tolerates(t));
  CHECK_FALSE(tol("k", Toleration::Op::Exists, "", TaintEffect::NoExecute).tolerates(t));  // effect differs
  CHECK_FALSE(tol("", Toleration::Op::Exists, "", TaintEffect::PreferNoSchedule).tolerates(t));
}

TEST_CASE("node selector requirements: the six operators on present and absent labels") {
  const NodeLabels labels = {{"gen", "2"}, {"name", "abc"}, {kZone, "us-east-1a"}};
  CHECK(requirement_matches(req(kZone, Op::In, {"us-east-1b", "us-east-1a"}), labels));
  CHECK_FALSE(requirement_matches(req(kZone, Op::In, {"us-east-1b"}), labels));
  CHECK_FALSE(requirement_matches(req("absent", Op::In, {"x"}), labels));
  CHECK(requirement_matches(req(kZone, Op::NotIn, {"us-east-1b"}), labels));
  CHECK_FALSE(requirement_matches(req(kZone, Op::NotIn, {"us-east-1a"}), labels));
  CHECK(requirement_matches(req("absent", Op::NotIn, {"x"}), labels));  // NotIn holds for an absent label
  CHECK(requirement_matches(req("gen", Op::Exists), labels));
  CHECK_FALSE(requirement_matches(req("absent", Op::Exists), labels));
  CHECK(requirement_matches(req("absent", Op::DoesNotExist), labels));
  CHECK_FALSE(requirement_matches(req("gen", Op::DoesNotExist), labels));
  CHECK(requirement_matches(req("gen", Op::Gt, {"1"}), labels));          // 2 > 1
  CHECK_FALSE(requirement_matches(req("gen", Op::Gt, {"2"}), labels));    // 2 > 2 is false
  CHECK(requirement_matches(req("gen", Op::Lt, {"+3"}), labels));         // ParseInt accepts a sign
  CHECK_FALSE(requirement_matches(req("gen", Op::Lt, {"-3"}), labels));
  CHECK_FALSE(requirement_matches(req("name", Op::Gt, {"1"}), labels));   // "abc" is no integer
  CHECK_FALSE(requirement_matches(req("absent", Op::Lt, {"9"}), labels)); // absent: no match
}

TEST_CASE("node affinity: terms ORed, expressions ANDed, empty term matches nothing, nodeSelector ANDed") {
  const NodeLabels labels = {{"gen", "2"}, {kZone, "us-east-1a"}};
  const std::vector<std::pair<std::string, std::string>> none;
  // One term, two expressions: both must hold.
  CHECK(required_affinity_matches(none, required({term({req(kZone, Op::In, {"us-east-1a"}), req("gen", Op::Gt, {"1"})})}), labels, "n"));
  CHECK_FALSE(required_affinity_matches(none, required({term({req(kZone, Op::In, {"us-east-1a"}), req("gen", Op::Gt, {"5"})})}), labels, "n"));
  // Two terms: one is enough.
  CHECK(required_affinity_matches(none, required({term({req(kZone, Op::In, {"x"})}), term({req("gen", Op::Exists)})}), labels, "n"));
  // An empty term matches no node, even alone.
  CHECK_FALSE(required_affinity_matches(none, required({NodeSelectorTerm{}}), labels, "n"));
  // matchFields on the node's name.
  NodeSelectorTerm by_name;
  by_name.match_fields = {req("metadata.name", Op::In, {"n"})};
  CHECK(required_affinity_matches(none, required({by_name}), labels, "n"));
  CHECK_FALSE(required_affinity_matches(none, required({by_name}), labels, "m"));
  // nodeSelector and affinity together: both.
  const std::vector<std::pair<std::string, std::string>> sel = {{"gen", "3"}};
  CHECK_FALSE(required_affinity_matches(sel, required({term({req("gen", Op::Exists)})}), labels, "n"));
  // No required affinity: only the nodeSelector counts.
  CHECK(required_affinity_matches(none, NodeAffinity{}, labels, "n"));
  // Preferred: the sum of the matching terms' weights (weight 0 counts for nothing).
  NodeAffinity p = preferred(30, term({req(kZone, Op::In, {"us-east-1a"})}));
  p.preferred.push_back({50, term({req("gen", Op::Lt, {"3"})})});
  p.preferred.push_back({20, term({req("gen", Op::DoesNotExist)})});
  CHECK(preferred_affinity_score(p, labels, "n") == 80);
}

TEST_CASE("predicates: a NoSchedule or NoExecute taint without toleration keeps a pod off, in Kubernetes' words") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId tainted = w.node(NodeBuilder("t").trn1_32xlarge().taint(kNeuron));
  const NodeId exec = w.node(NodeBuilder("x").trn1_32xlarge().taint({"dedicated", "ml", TaintEffect::NoExecute}));
  const NodeId soft = w.node(NodeBuilder("p").trn1_32xlarge().taint({"spot", "", TaintEffect::PreferNoSchedule}));
  OpenSession s(w, one_tier({"predicates"}));
  TaskInfo t;
  const Status st = s->predicate(t, w.state.node(tainted));
  CHECK(st.code == Code::UnschedulableAndUnresolvable);
  CHECK(st.plugin == "predicates");
  CHECK(st.reason == "node(s) had untolerated taint {aws.amazon.com/neuron: true}");
  CHECK(s->predicate(t, w.state.node(exec)).reason == "node(s) had untolerated taint {dedicated: ml}");
  CHECK(s->predicate(t, w.state.node(soft)).ok());  // PreferNoSchedule never filters
  t.tolerations = {tol("aws.amazon.com/neuron", Toleration::Op::Exists, "", TaintEffect::NoSchedule)};
  CHECK(s->predicate(t, w.state.node(tainted)).ok());
  t.tolerations = {tol("aws.amazon.com/neuron", Toleration::Op::Equal, "false")};
  CHECK_FALSE(s->predicate(t, w.state.node(tainted)).ok());
  t.tolerations = {tol("", Toleration::Op::Exists)};  // tolerates everything
  CHECK(s->predicate(t, w.state.node(tainted)).ok());
  CHECK(s->predicate(t, w.state.node(exec)).ok());
}

TEST_CASE("predicates: node affinity filters before taints; the Enable arguments switch each filter off") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId n = w.node(NodeBuilder("n").trn1_32xlarge().label(kZone, "us-east-1a").taint(kNeuron));
  const NodeId cordoned = w.node(NodeBuilder("c").trn1_32xlarge().unschedulable());
  TaskInfo t;
  t.node_affinity = required({term({req(kZone, Op::In, {"us-east-1b"})})});
  {
    OpenSession s(w, one_tier({"predicates"}));
    CHECK(s->predicate(t, w.state.node(n)).reason == "node(s) didn't match Pod's node affinity/selector");
  }
  Arguments no_affinity;
  no_affinity.set("predicate.NodeAffinityEnable", "false");
  {
    OpenSession s(w, one_tier({"predicates"}, no_affinity));
    CHECK(s->predicate(t, w.state.node(n)).reason == "node(s) had untolerated taint {aws.amazon.com/neuron: true}");
  }
  Arguments neither = no_affinity;
  neither.set("predicate.TaintTolerationEnable", "false");
  {
    OpenSession s(w, one_tier({"predicates"}, neither));
    CHECK(s->predicate(t, w.state.node(n)).ok());
  }
  // A cordoned node takes a pod that tolerates node.kubernetes.io/unschedulable:NoSchedule
  // (NodeUnschedulable filter).
  OpenSession s(w, one_tier({"predicates"}));
  TaskInfo plain;
  CHECK(s->predicate(plain, w.state.node(cordoned)).reason == "node(s) were unschedulable");
  plain.tolerations = {tol("node.kubernetes.io/unschedulable", Toleration::Op::Exists, "", TaintEffect::NoSchedule)};
  CHECK(s->predicate(plain, w.state.node(cordoned)).ok());
}

TEST_CASE("predicates: a node holding its allocatable pods is Unschedulable; evictions of the session free a slot") {
  // Volcano predicates.go:495-504 against the pods of its k8s NodeInfo, which the plugin's event
  // handlers keep current (predicates.go:249-330).
  World w;
  w.queue(QueueBuilder("q"));
  // Three pods allowed: one DaemonSet pod, one Running task, one Releasing since before the session.
  const NodeId n = w.node(NodeBuilder("n").cpu(8).memory_gib(16).pods(3).daemonset_used(Pod().cpu(0.1)));
  const NodeId tainted = w.node(NodeBuilder("t").cpu(8).memory_gib(16).pods(1).taint(kNeuron));
  w.job(JobBuilder("j", "q").phase(PodGroupPhase::Running)
            .pod(Pod().name("a").cpu(1).on("n"))
            .pod(Pod().name("b").cpu(1).on("n", TaskStatus::Releasing))
            .pod(Pod().name("c").cpu(1).on("t"))
            .pod(Pod().name("d").cpu(1)));
  OpenSession s(w, one_tier({"predicates"}));
  const TaskInfo& d = w.state.task(w.tasks.at("d"));
  const Status full = s->predicate(d, w.state.node(n));
  CHECK(full.code == Code::Unschedulable);  // not Unresolvable: preempt may still free the node
  CHECK(full.reason == "node(s) pod number exceeded");
  // An Unresolvable filter wins over the pod count.
  CHECK(s->predicate(d, w.state.node(tainted)).reason == "node(s) had untolerated taint {aws.amazon.com/neuron: true}");
  {
    Statement stmt(*s.s);
    stmt.evict(w.tasks.at("a"), "preempt");  // its pod leaves Volcano's NodeInfo at once
    CHECK(s->predicate(d, w.state.node(n)).ok());
    stmt.pipeline(w.tasks.at("d"), n);  // a pipelined pod takes the slot again
    CHECK(s->predicate(d, w.state.node(n)).code == Code::Unschedulable);
    stmt.discard();  // d back to Pending, a's eviction undone
  }
  CHECK(s->predicate(d, w.state.node(n)).reason == "node(s) pod number exceeded");
}

TEST_CASE("nodeorder: preferred node affinity adds weight x nodeaffinity.weight, not normalised") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId a = w.node(NodeBuilder("a").trn1_32xlarge().label(kZone, "us-east-1a"));
  const NodeId b = w.node(NodeBuilder("b").trn1_32xlarge().label(kZone, "us-east-1b"));
  TaskInfo t;
  t.node_affinity = preferred(10, term({req(kZone, Op::In, {"us-east-1b"})}));
  // Empty trn1.32xlarge, empty pod: least-requested 100, balanced 100 -> 200 on both; b matches
  // the term of weight 10: + 10 x 2 (default nodeaffinity.weight) = 220.
  {
    OpenSession s(w, one_tier({"nodeorder"}));
    CHECK(s->node_score(t, w.state.node(a)) == 200.0);
    CHECK(s->node_score(t, w.state.node(b)) == 220.0);
  }
  Arguments five;
  five.set("nodeaffinity.weight", "5");
  OpenSession s(w, one_tier({"nodeorder"}, five));
  CHECK(s->node_score(t, w.state.node(b)) == 250.0);  // 200 + 10 x 5
}

TEST_CASE("nodeorder: TaintToleration counts untolerated PreferNoSchedule taints, normalised over the candidates") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId n0 = w.node(NodeBuilder("n0").trn1_32xlarge());
  const NodeId n1 = w.node(NodeBuilder("n1").trn1_32xlarge().taint({"k1", "", TaintEffect::PreferNoSchedule}));
  const NodeId n2 = w.node(NodeBuilder("n2")
                               .trn1_32xlarge()
                               .taint({"k1", "", TaintEffect::PreferNoSchedule})
                               .taint({"k2", "x", TaintEffect::PreferNoSchedule})
                               .taint({"k3", "", TaintEffect::NoSchedule}));  // NoSchedule: not counted
  TaskInfo t;
  std::vector<double> out;
  const std::vector<NodeId> all = {n0, n1, n2};
  OpenSession s(w, one_tier({"nodeorder"}));
  CHECK(s->batch_scores_depend_on_set());
  // Counts 0, 1, 2; max 2: 100, 100 - 100x1/2 = 50, 0; x 3 (default tainttoleration.weight),
  // plus the per-node 200 of an empty node: 500, 350, 200.
  s->prioritize_nodes(t, all, out);
  CHECK(out == std::vector<double>{500, 350, 200});
  // Over n1 and n2 only, the same counts give the same normalised scores (max is still 2).
  s->prioritize_nodes(t, std::vector<NodeId>{n1, n2}, out);
  CHECK(out == std::vector<double>{350, 200});
  // Over n1 alone: max 1, so n1 scores 0 -> 200.
  s->prioritize_nodes(t, std::vector<NodeId>{n1}, out);
  CHECK(out == std::vector<double>{200});
  // Tolerating k1 for PreferNoSchedule: counts 0, 0, 1 -> 100, 100, 0.
  t.tolerations = {tol("k1", Toleration::Op::Exists, "", TaintEffect::PreferNoSchedule)};
  s->prioritize_nodes(t, all, out);
  CHECK(out == std::vector<double>{500, 500, 200});
  // A toleration whose effect is NoSchedule is not one the scorer reads: counts 0, 1, 2 again.
  t.tolerations = {tol("k1", Toleration::Op::Exists, "", TaintEffect::NoSchedule)};
  s->prioritize_nodes(t, all, out);
  CHECK(out == std::vector<double>{500, 350, 200});
}

TEST_CASE("nodeorder: without PreferNoSchedule taints every node gets the full TaintToleration score") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId n0 = w.node(NodeBuilder("n0").trn1_32xlarge().taint(kNeuron));
  const NodeId n1 = w.node(NodeBuilder("n1").trn1_32xlarge());
  TaskInfo t;
  std::vector<double> out;
  {
    OpenSession s(w, one_tier({"nodeorder"}));
    CHECK_FALSE(s->batch_scores_depend_on_set());
    s->prioritize_nodes(t, std::vector<NodeId>{n0, n1}, out);
    CHECK(out == std::vector<double>{500, 500});  // 200 + 100 x 3
  }
  Arguments off;
  off.set("tainttoleration.weight", "0");
  off.set("leastrequested.weight", "0");
  off.set("balancedresource.weight", "0");
  off.set("mostrequested.weight", "1");
  OpenSession s(w, one_tier({"nodeorder"}, off));
  s->prioritize_nodes(t, std::vector<NodeId>{n0, n1}, out);
  CHECK(out == std::vector<double>{0, 0});  // most-requested of an empty node with an empty pod: 0
}

TEST_CASE("nodeorder: most-requested with its weight (Volcano default 0), cpu and memory weight 1 each") {
  World w;
  w.queue(QueueBuilder("q"));
  const NodeId busy = w.node(NodeBuilder("busy").trn1_32xlarge());
  w.job(JobBuilder("occupant", "q").pods(1, Pod().cpu(64).memory_gib(128)).running_on({"busy"}));
  Arguments most;
  most.set("leastrequested.weight", "0");
  most.set("balancedresource.weight", "0");
  most.set("mostrequested.weight", "2");
  OpenSession s(w, one_tier({"nodeorder"}, most));
  TaskInfo t;
  t.resreq = Pod().cpu(8).memory_gib(32).resource();
  // cpu 72/128 -> 7200/128 = 56; memory 160/512 -> 31; (56 + 31) / 2 = 43; x 2 = 86.
  CHECK(s->node_score(t, w.state.node(busy)) == 86.0);
}

TEST_CASE("cycle: a Neuron-tainted node takes only pods that tolerate its taint") {
  const Pod full = Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8);
  SUBCASE("no toleration: the job waits, with the taint in its condition") {
    World w;
    w.queue(QueueBuilder("default"));
    w.node(NodeBuilder("trn1-0").trn1_32xlarge().taint(kNeuron));
    const JobId j = w.job(JobBuilder("j", "default").pods(1, full).inqueue());
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 1);
    settle(w, be, s);
    CHECK(be.binds_of(j) == 0);
    CHECK(s.job_condition(j).reason ==
          "1/1 tasks in gang unschedulable: 0/1 nodes are unavailable: 1 node(s) had untolerated taint "
          "{aws.amazon.com/neuron: true}.");
  }
  SUBCASE("with the toleration TorchX users add: it binds") {
    World w;
    w.queue(QueueBuilder("default"));
    w.node(NodeBuilder("trn1-0").trn1_32xlarge().taint(kNeuron));
    Pod tolerating = full;
    tolerating.toleration(tol("aws.amazon.com/neuron", Toleration::Op::Exists, "", TaintEffect::NoSchedule));
    const JobId j = w.job(JobBuilder("j", "default").pods(1, tolerating).inqueue());
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 1);
    settle(w, be, s);
    CHECK(be.binds_of(j) == 1);
  }
}

TEST_CASE("cycle: required affinity on the zone; preferred affinity picks the preferred node whatever the seed") {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    World w;
    w.queue(QueueBuilder("default"));
    w.node(NodeBuilder("a").trn1_32xlarge().label(kZone, "us-east-1a"));
    const NodeId b = w.node(NodeBuilder("b").trn1_32xlarge().label(kZone, "us-east-1b"));
    const NodeId c = w.node(NodeBuilder("c").trn1_32xlarge().label(kZone, "us-east-1c"));
    const JobId req_c = w.job(JobBuilder("req", "default")
                                  .pods(1, Pod().neuron_devices(16).affinity(required({term({req(kZone, Op::NotIn, {"us-east-1a", "us-east-1b"})})})))
                                  .inqueue()
                                  .created(0));
    const JobId pref_b = w.job(JobBuilder("pref", "default")
                                   .pods(1, Pod().neuron_devices(16).affinity(preferred(1, term({req(kZone, Op::In, {"us-east-1b"})}))))
                                   .inqueue()
                                   .created(1));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), seed);
    settle(w, be, s);
    CHECK(node_of_bind(be, req_c) == c);
    CHECK(node_of_bind(be, pref_b) == b);
  }
}

TEST_CASE("cycle: PreferNoSchedule steers a pod to the untainted node, but does not forbid the tainted one") {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    World w;
    w.queue(QueueBuilder("default"));
    const NodeId soft = w.node(NodeBuilder("soft").trn1_32xlarge().taint({"spot", "", TaintEffect::PreferNoSchedule}));
    const NodeId clean = w.node(NodeBuilder("clean").trn1_32xlarge());
    const JobId first = w.job(JobBuilder("first", "default").pods(1, Pod().neuron_devices(16)).inqueue().created(0));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), seed);
    settle(w, be, s);
    CHECK(node_of_bind(be, first) == clean);
    // The clean node is full now; the next job takes the tainted one.
    const JobId second = w.job(JobBuilder("second", "default").pods(1, Pod().neuron_devices(16)).inqueue().created(1));
    settle(w, be, s);
    CHECK(node_of_bind(be, second) == soft);
  }
}

TEST_CASE("cycle: DaemonSet requests make a pod that fits the node's allocatable not fit what is left") {
  // trn1.32xlarge allocatable 128 cpu; the DaemonSets hold 0.2 cpu; a TorchX whole-node pod asks
  // 127.9 cpu: 127.9 <= 128 but 127.9 > 127.8.
  const Pod whole = Pod().cpu(127.9).memory_gib(400).neuron_devices(16).efa(8);
  World w;
  w.queue(QueueBuilder("default"));
  const NodeId n = w.node(NodeBuilder("n").trn1_32xlarge().daemonset_used(Pod().cpu(0.2).memory_gib(1)));
  // The DaemonSets' pods hold their requests and one `pods`.
  CHECK(w.state.node(n).used == task_resreq(Pod().cpu(0.2).memory_gib(1).resource()));
  CHECK(w.state.node(n).idle == w.state.node(n).allocatable - task_resreq(Pod().cpu(0.2).memory_gib(1).resource()));
  CHECK(w.state.check_invariants().empty());
  const JobId j = w.job(JobBuilder("j", "default").pods(1, whole).inqueue());
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  CHECK(be.binds_of(j) == 0);
  CHECK(s.job_condition(j).reason == "1/1 tasks in gang unschedulable: 0/1 nodes are unavailable: 1 Insufficient cpu.");
  // Without the DaemonSets the same pod binds.
  World w2;
  w2.queue(QueueBuilder("default"));
  w2.node(NodeBuilder("n").trn1_32xlarge());
  const JobId j2 = w2.job(JobBuilder("j", "default").pods(1, whole).inqueue());
  RecordingBackend be2;
  Scheduler s2(volcano_default_config(), 1);
  settle(w2, be2, s2);
  CHECK(be2.binds_of(j2) == 1);
}

TEST_CASE("static_misfit: what labels and taints alone allow, affinity reported before taints") {
  TaskInfo t;
  const NodeLabels labels = {{kZone, "us-east-1a"}};
  CHECK(static_misfit(t, labels, "n", {}).empty());
  CHECK(static_misfit(t, labels, "n", {kNeuron}) == "node(s) had untolerated taint {aws.amazon.com/neuron: true}");
  t.node_selector = {{kZone, "us-east-1b"}};
  CHECK(static_misfit(t, labels, "n", {kNeuron}) == "node(s) didn't match Pod's node affinity/selector");
  t.node_selector.clear();
  t.tolerations = {tol("aws.amazon.com/neuron", Toleration::Op::Equal, "true")};
  CHECK(static_misfit(t, labels, "n", {kNeuron}).empty());
}
