// The Kubernetes object codec (mltwin/k8s/snapshot.hpp) and one scheduling cycle on a snapshot
// (mltwin/scheduler/once.hpp).
//
// data/cluster-hand.json is a snapshot written by hand in the exact shape `kubectl get
// nodes,pods,podgroups,queues,priorityclasses,secrets,services -A -o json` prints (a v1 List,
// keys in Go's encoding/json order for unstructured objects — sorted —, four-space indent,
// managedFields, last-applied annotations). The fields the codec reads,
// and where the Kubernetes API reference defines them (kubernetes.io/docs/reference/
// kubernetes-api/, v1.30):
//   Node (cluster-resources/node-v1): metadata.name, uid, labels
//     (node.kubernetes.io/instance-type: reference/labels-annotations-taints), spec.taints
//     (NodeSpec: key, value, effect), spec.unschedulable, status.allocatable, status.capacity
//     (quantities: common-definitions/quantity), status.conditions[type=Ready].status.
//   Pod (workload-resources/pod-v1): metadata.name, namespace, uid, creationTimestamp,
//     deletionTimestamp, annotations, labels; spec.nodeName, schedulerName, priority,
//     priorityClassName, preemptionPolicy, containers[].resources.requests, initContainers[]
//     (.restartPolicy, .resources.requests), overhead, nodeSelector, affinity.nodeAffinity,
//     tolerations (key, operator, value, effect, tolerationSeconds); status.phase.
//   PriorityClass (policy-resources/priority-class-v1): metadata.name, value, globalDefault.
//   Volcano v1.12.1's CRDs (config/crd/volcano/bases/scheduling.volcano.sh_podgroups.yaml,
//     _queues.yaml): PodGroup spec.minMember, minTaskMember, minResources, queue,
//     priorityClassName, status.phase; Queue spec.weight, capability, guarantee.resource,
//     deserved, parent, priority, reclaimable, status.state; the pod annotations
//     scheduling.k8s.io/group-name, volcano.sh/task-spec, volcano.sh/preemptable.
// The decisions expected of one cycle on it are derived by hand in the TEST_CASE below.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "mltwin/scheduler/once.hpp"

using namespace mltwin;
using nlohmann::json;

namespace {

const std::string kHand = std::string(MLTWIN_SOURCE_DIR) + "/tests/k8s/data/cluster-hand.json";

const policy::PodObject& pod_named(const k8s::Snapshot& s, const std::string& name) {
  for (const auto& p : s.pods)
    if (p.name == name) return p;
  FAIL("no pod " << name);
  throw 0;
}

std::string error_of(const std::string& text) {
  k8s::Snapshot s;
  try {
    k8s::read_json(text, "x.json", s);
  } catch (const k8s::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a kubectl List: each kind read as the API reference and Volcano define it") {
  k8s::Snapshot s;
  k8s::read_file(kHand, s);
  CHECK(s.nodes.size() == 2);
  CHECK(s.queues.size() == 2);
  CHECK(s.podgroups.size() == 3);
  CHECK(s.priority_classes.size() == 2);
  // Four Volcano pods, the DaemonSet's pod and the finished pod.
  CHECK(s.pods.size() == 6);
  // One note per kind skipped; the Secret's data is dropped while parsing.
  REQUIRE(s.notes.size() == 2);
  CHECK(s.notes[0].find("skipped 1 object of kind Secret") != std::string::npos);
  CHECK(s.notes[1].find("skipped 1 object of kind Service") != std::string::npos);

  const policy::NodeInfo& a = s.nodes[0].spec;
  CHECK(a.name == "ip-10-0-1-10.ec2.internal");
  CHECK(a.instance_type == "trn1.32xlarge");
  CHECK(a.ready);
  // 127910m cpu; 503855136Ki = 503855136 * 1024 bytes; 32 NeuronCores in milli-units
  // (Volcano NewResource), 737 pods as a count.
  CHECK(a.allocatable.milli_cpu == 127910);
  CHECK(a.allocatable.memory == 503855136.0 * 1024);
  CHECK(a.allocatable.get(policy::rn::kNeuronCore) == 32000);
  CHECK(a.allocatable.get(policy::rn::kPods) == 737);
  CHECK(a.allocatable.get(policy::rn::kEfa) == 8000);
  CHECK(a.capacity.milli_cpu == 128000);
  CHECK(a.taints.empty());
  const policy::NodeInfo& b = s.nodes[1].spec;
  REQUIRE(b.taints.size() == 1);
  CHECK(b.taints[0].key == "dedicated");
  CHECK(b.taints[0].value == "inference");
  CHECK(b.taints[0].effect == policy::TaintEffect::NoSchedule);

  // PodGroups: names by namespace, spec as written, the PriorityClass by name until loaded.
  const k8s::PodGroupRead& c = s.podgroups[2];
  CHECK(c.object.name == "default/job-c");
  CHECK(c.object.queue == "default");
  CHECK(c.object.spec.min_available == 2);
  CHECK(c.object.spec.phase == policy::PodGroupPhase::Inqueue);
  CHECK(c.priority_class_name == "high-priority");
  CHECK(c.object.spec.min_resources.get(policy::rn::kNeuronCore) == 40000);
  CHECK(c.object.spec.min_task_member == std::vector<std::pair<std::string, std::int32_t>>{{"worker", 2}});
  CHECK(s.podgroups[1].object.spec.phase == policy::PodGroupPhase::Pending);

  // A Volcano pod: its group, role, index, priority (spec.priority), requests plus one pod.
  const policy::PodObject& c0 = pod_named(s, "default/job-c-worker-0");
  CHECK(c0.podgroup == "default/job-c");
  CHECK(c0.spec.role == "worker");
  CHECK(c0.spec.index == 0);
  CHECK(pod_named(s, "default/job-c-worker-1").spec.index == 1);
  CHECK(c0.spec.priority == 1000);
  CHECK(c0.status == policy::TaskStatus::Pending);
  CHECK(c0.spec.resreq.milli_cpu == 2000);
  CHECK(c0.spec.resreq.memory == 16.0 * (1 << 30));
  CHECK(c0.spec.resreq.get(policy::rn::kNeuronCore) == 20000);
  CHECK(c0.spec.resreq.get(policy::rn::kPods) == 1);
  CHECK(c0.spec.tolerations.size() == 2);
  CHECK(c0.spec.preemptable);
  CHECK(!c0.spec.system_critical);
  // The DaemonSet's pod: another scheduler's, on its node; its request is the larger of the
  // containers' sum (25m) and the init container's (50m, 64Mi) (pod_info.go GetPodResourceRequest).
  const policy::PodObject& ds = pod_named(s, "kube-system/aws-node-x7k2p");
  CHECK(ds.podgroup.empty());
  CHECK(ds.node == "ip-10-0-1-10.ec2.internal");
  CHECK(ds.status == policy::TaskStatus::Running);
  CHECK(ds.spec.resreq.milli_cpu == 50);
  CHECK(ds.spec.resreq.memory == 64.0 * (1 << 20));
  CHECK(ds.spec.system_critical);
  CHECK(pod_named(s, "default/old-job-worker-0").status == policy::TaskStatus::Succeeded);
}

TEST_CASE("one cycle on the hand-written snapshot decides what Volcano's rules give by hand") {
  // Derivation (Volcano v1.12.1 default configuration: enqueue, allocate, backfill; tiers
  // priority, gang, conformance | overcommit, drf, predicates, proportion, nodeorder):
  // - enqueue: overcommit's idle = 1.2 x the ready nodes' allocatable - used. NeuronCores:
  //   1.2 x 64 = 76.8; the Inqueue PodGroups' minResources hold 32 (job-a) + 40 (job-c) = 72.
  //   job-b asks cpu 4, memory 16Gi and no NeuronCores: 72 <= 76.8 and cpu 6 + 4 + 4 = 14 <=
  //   1.2 x 255.82 - 0.05, so job-b is admitted: Pending -> Inqueue. (It has no pods yet.)
  // - allocate: job-c (PriorityClass high-priority, 1000) goes before job-a (0). Its worker-0
  //   fits node .10 (32 NeuronCores); node .11 is tainted dedicated=inference:NoSchedule, which
  //   the pods do not tolerate. worker-1 needs 20 more: .10 has 12 left, so job-c is not ready
  //   and its statement is discarded. job-a's two workers (16 each) then fill .10: bound in
  //   task order (index 0, then 1).
  // - close: job-a has 2 allocated >= minMember 2: Inqueue -> Running. job-c keeps Inqueue
  //   (none allocated, none running) and gang marks it unschedulable (gang.go:170-205): its
  //   minAvailable 2 less the tasks that were allocated in this session, worker-0 (its last
  //   transaction, gang.go:171-182) = 1, of 2 tasks; the fit errors are worker-1's: .10 lacks
  //   NeuronCores, .11's taint is not tolerated. Gang skips job-b, which has no pods
  //   (gang.go:166-169).
  k8s::Snapshot s;
  k8s::read_file(kHand, s);
  scheduler::OnceOptions opts;
  opts.now = *k8s::parse_rfc3339("2026-12-01T10:00:00Z");
  const scheduler::Decisions d = scheduler::run_once(s, opts);
  REQUIRE(d.binds.size() == 2);
  CHECK(d.binds[0].pod == "default/job-a-worker-0");
  CHECK(d.binds[0].node == "ip-10-0-1-10.ec2.internal");
  CHECK(d.binds[1].pod == "default/job-a-worker-1");
  CHECK(d.binds[1].node == "ip-10-0-1-10.ec2.internal");
  CHECK(d.evictions.empty());
  REQUIRE(d.phases.size() == 2);
  std::vector<std::string> phases;
  for (const auto& p : d.phases) phases.push_back(p.podgroup + ": " + p.from + " -> " + p.to);
  std::sort(phases.begin(), phases.end());
  CHECK(phases[0] == "default/job-a: Inqueue -> Running");
  CHECK(phases[1] == "default/job-b: Pending -> Inqueue");
  REQUIRE(d.waiting.size() == 1);
  CHECK(d.waiting[0].podgroup == "default/job-c");
  CHECK(d.waiting[0].plugin == "gang");
  CHECK(d.waiting[0].code == "Unschedulable");
  CHECK(d.waiting[0].reason ==
        "1/2 tasks in gang unschedulable: 0/2 nodes are unavailable: 1 Insufficient aws.amazon.com/neuroncore, "
        "1 node(s) had untolerated taint {dedicated: inference}.");
  CHECK(d.counts.nodes == 2);
  CHECK(d.counts.podgroups == 3);
  CHECK(d.counts.pods == 4);
  CHECK(d.counts.pending_pods == 4);

  const json j = scheduler::to_json(d);
  CHECK(j["schema"] == 1);
  CHECK(j["now"] == "2026-12-01T10:00:00Z");
  CHECK(j["binds"][0]["pod"] == "default/job-a-worker-0");
  CHECK(j["podgroup_phases"].size() == 2);
  CHECK(scheduler::to_text(d).find("default/job-a-worker-1 -> ip-10-0-1-10.ec2.internal") != std::string::npos);
}

TEST_CASE("fields that may hold secrets are dropped while parsing, not read") {
  // env, envFrom and the last-applied annotation of a container are never looked at: a value
  // of a type the reader would refuse passes unnoticed there, and is refused elsewhere.
  const std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":5},"managedFields":7},
      "spec":{"schedulerName":"volcano","containers":[{"name":"c","env":5,"envFrom":6}]}})";
  k8s::Snapshot s;
  k8s::read_json(pod, "p.json", s);
  CHECK(s.pods.size() == 1);
  // The same annotation anywhere else is an annotation like any other: read and refused.
  CHECK(error_of(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"a":5}},"spec":{}})") ==
        "x.json: /metadata/annotations/a: expected a string, got a number");
  // A label named env is a label.
  k8s::Snapshot t;
  k8s::read_json(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"env":"prod"}}})", "n.json", t);
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].spec.labels == std::vector<std::pair<std::string, std::string>>{{"env", "prod"}});
}

TEST_CASE("bad input: the file and the JSON path, or the line and column") {
  CHECK(error_of("{\n  \"kind\": \"List\",\n  \"items\": [ }") .rfind("x.json:3:14: invalid JSON", 0) == 0);
  CHECK(error_of(R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},
      "status":{"allocatable":{"cpu":"12x"}}}]})")
            .rfind("x.json: /items/0/status/allocatable/cpu: ", 0) == 0);
  CHECK(error_of(R"({"apiVersion":"v1beta1","kind":"Node","metadata":{"name":"n"}})") ==
        "x.json: /apiVersion: expected v1 for a Node, got 'v1beta1'");
  CHECK(error_of(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})") == "x.json: /: missing spec");
  CHECK(error_of(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"schedulerName":"volcano"},"status":{"phase":"Done"}})") ==
        "x.json: /status/phase: 'Done' is not a pod phase (Pending, Running, Succeeded, Failed, Unknown)");
  CHECK(error_of(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"yesterday"},"spec":{}})") ==
        "x.json: /metadata/creationTimestamp: 'yesterday' is not an RFC 3339 time such as 2024-05-01T12:00:00Z");
  CHECK(error_of(R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"g"},"spec":{"minMember":-1}})") ==
        "x.json: /spec/minMember: -1 is out of range [0, 2147483647]");
  CHECK(error_of(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"Sometimes"}]}})")
            .rfind("x.json: /spec/taints/0/effect: ", 0) == 0);
  CHECK(error_of(R"([1, 2])") == "x.json: /: expected an object, got a list");
}

TEST_CASE("RFC 3339 times, as metav1.Time writes and Go's time.Parse reads them") {
  CHECK(k8s::parse_rfc3339("1970-01-01T00:00:00Z") == 0);
  CHECK(k8s::parse_rfc3339("2000-01-01T00:00:00Z") == 946684800LL * 1'000'000'000);  // the well-known Unix time
  CHECK(k8s::parse_rfc3339("2000-01-01T01:00:00+01:00") == 946684800LL * 1'000'000'000);
  CHECK(k8s::parse_rfc3339("2000-01-01T00:00:00.5Z") == 946684800LL * 1'000'000'000 + 500'000'000);
  CHECK(k8s::parse_rfc3339("1969-12-31T23:59:59Z") == -1'000'000'000);
  CHECK(!k8s::parse_rfc3339("2000-02-30T00:00:00Z"));
  CHECK(!k8s::parse_rfc3339("2000-01-01 00:00:00Z"));
  CHECK(!k8s::parse_rfc3339("2000-01-01T00:00:00"));
  CHECK(k8s::format_rfc3339(946684800LL * 1'000'000'000) == "2000-01-01T00:00:00Z");
  CHECK(k8s::format_rfc3339(1'500'000'000) == "1970-01-01T00:00:01.5Z");
  CHECK(k8s::format_rfc3339(-1) == "1969-12-31T23:59:59.999999999Z");
}

TEST_CASE("write_list: a state read back is the same state") {
  using namespace policy::testing;
  World w;
  w.queue(QueueBuilder("q1").weight(2));
  const policy::NodeId n0 = w.node(NodeBuilder("n0").cpu(8).memory_gib(32).resource(policy::rn::kNeuronCore, 32));
  w.node(NodeBuilder("n1").cpu(8).memory_gib(32).resource(policy::rn::kNeuronCore, 32).taint({"dedicated", "x", policy::TaintEffect::NoSchedule}));
  const policy::JobId j = w.job(JobBuilder("j1", "q1").min_available(2).priority(5).created(3'000'000'000)
                                    .phase(policy::PodGroupPhase::Running)
                                    .pod(Pod().cpu(2).memory_gib(4).neuron_cores(16))
                                    .pod(Pod().cpu(2).memory_gib(4).neuron_cores(16)));
  // A job the job controller killed: its PodGroup deleted, its pod still terminating on n0.
  const policy::JobId killed = w.job(JobBuilder("killed", "q1").min_available(1).created(1'000'000'000)
                                         .phase(policy::PodGroupPhase::Running).pod(Pod().cpu(1).memory_gib(2)));
  w.state.set_task_status(w.state.job(killed).tasks[0], policy::TaskStatus::Releasing, n0);
  w.state.unset_podgroup(killed);
  const auto& job = w.state.job(j);
  w.state.set_task_status(job.tasks[0], policy::TaskStatus::Running, n0);
  {  // the pending pod nominated to n1 by an earlier preempt (status.nominatedNodeName)
    policy::TaskInfo spec = w.state.task(job.tasks[1]);
    spec.nominated_node = "n1";
    w.state.update_task(job.tasks[1], spec);
  }
  w.state.set_now(10'000'000'000);
  policy::Scheduler sched(policy::volcano_default_config(), 42);
  k8s::WriteOptions wo;
  wo.epoch = *k8s::parse_rfc3339("2026-01-01T00:00:00Z");
  wo.tiebreak_state = sched.tiebreak_state();
  const json list = k8s::write_list(w.state, wo);
  CHECK(list["kind"] == "List");
  int nominated = 0;
  for (const auto& item : list["items"])
    if (item["kind"] == "Pod" && item["status"].contains("nominatedNodeName")) {
      ++nominated;
      CHECK(item["metadata"]["name"] == w.state.task(job.tasks[1]).name);
      CHECK(item["status"]["nominatedNodeName"] == "n1");
    }
  CHECK(nominated == 1);
  // The killed job's pod is written as the API server shows it, being deleted, with no PodGroup.
  int killed_pods = 0;
  for (const auto& item : list["items"]) {
    CHECK_FALSE((item["kind"] == "PodGroup" && item["metadata"]["name"] == "killed"));
    if (item["kind"] == "Pod" && item["metadata"].value("annotations", json::object()).value("scheduling.k8s.io/group-name", "") == "killed") {
      ++killed_pods;
      CHECK(item["metadata"].contains("deletionTimestamp"));
      CHECK(item["spec"]["nodeName"] == "n0");
    }
  }
  CHECK(killed_pods == 1);

  k8s::Snapshot s;
  k8s::read_json(list.dump(), "twin.json", s);
  CHECK(s.notes.empty());
  REQUIRE(s.meta.now);
  CHECK(*s.meta.now == wo.epoch + 10'000'000'000);
  CHECK(s.meta.tiebreak_state == wo.tiebreak_state);
  policy::SchedulerCache cache;
  k8s::load(s, cache);
  const policy::ClusterState& r = cache.state();
  const policy::JobId rj = cache.find_podgroup_by_name("default/j1");
  REQUIRE(rj != policy::kNone);
  const policy::JobInfo& back = r.job(rj);
  CHECK(back.priority == 5);
  CHECK(back.min_available == 2);
  CHECK(back.creation == wo.epoch + job.creation);
  CHECK(back.uid == job.uid);
  CHECK(back.phase == policy::PodGroupPhase::Running);
  CHECK(back.min_resources == job.min_resources);
  CHECK(r.queue(back.queue).name == "q1");
  CHECK(r.queue(back.queue).weight == 2);
  REQUIRE(back.tasks.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const policy::TaskInfo& a = w.state.task(job.tasks[i]);
    const policy::TaskInfo& t = r.task(cache.find_pod_by_name("default/" + a.name));
    CHECK(t.resreq == a.resreq);
    CHECK(t.status == a.status);
    CHECK(t.uid == a.uid);
    CHECK(t.priority == a.priority);
    CHECK(t.creation == wo.epoch + a.creation);
    CHECK(t.nominated_node == (i == 1 ? "n1" : ""));
  }
  const policy::NodeInfo& rn0 = r.node(cache.find_node_by_name("n0"));
  CHECK(rn0.allocatable == w.state.node(n0).allocatable);
  INFO("idle read back: cpu " << rn0.idle.milli_cpu << " memory " << rn0.idle.memory << " pods " << rn0.idle.get(policy::rn::kPods)
       << " nc " << rn0.idle.get(policy::rn::kNeuronCore) << "; twin: cpu " << w.state.node(n0).idle.milli_cpu << " memory "
       << w.state.node(n0).idle.memory << " pods " << w.state.node(n0).idle.get(policy::rn::kPods) << " nc "
       << w.state.node(n0).idle.get(policy::rn::kNeuronCore));
  CHECK(rn0.idle == w.state.node(n0).idle);
  // The terminating pod holds 1 cpu and 2 GiB there as releasing (FutureIdle counts it).
  CHECK(w.state.node(n0).releasing.milli_cpu == 1000);
  CHECK(rn0.releasing == w.state.node(n0).releasing);
  CHECK(cache.find_podgroup_by_name("default/killed") == policy::kNone);
  CHECK(r.node(cache.find_node_by_name("n1")).taints.size() == 1);
  CHECK(r.check_invariants().empty());
}

TEST_CASE("kubectl -o yaml: the same snapshot read from YAML decides the same") {
  // data/cluster-hand.yaml is data/cluster-hand.json as kubectl -o yaml writes it
  // (sigs.k8s.io/yaml: keys sorted, block style, numeric-looking strings quoted).
  k8s::Snapshot j, y;
  k8s::read_file(kHand, j);
  k8s::read_file(std::string(MLTWIN_SOURCE_DIR) + "/tests/k8s/data/cluster-hand.yaml", y);
  REQUIRE(y.pods.size() == j.pods.size());
  for (std::size_t i = 0; i < j.pods.size(); ++i) {
    CHECK(y.pods[i].name == j.pods[i].name);
    CHECK(y.pods[i].spec.resreq == j.pods[i].spec.resreq);
    CHECK(y.pods[i].spec.priority == j.pods[i].spec.priority);
    CHECK(y.pods[i].spec.tolerations == j.pods[i].spec.tolerations);
  }
  REQUIRE(y.nodes.size() == 2);
  CHECK(y.nodes[0].spec.allocatable == j.nodes[0].spec.allocatable);
  CHECK(y.nodes[1].spec.taints == j.nodes[1].spec.taints);
  scheduler::OnceOptions opts;
  opts.now = *k8s::parse_rfc3339("2026-12-01T10:00:00Z");
  const json dj = scheduler::to_json(scheduler::run_once(j, opts));
  const json dy = scheduler::to_json(scheduler::run_once(y, opts));
  CHECK(dy["binds"] == dj["binds"]);
  CHECK(dy["podgroup_phases"] == dj["podgroup_phases"]);
  CHECK(dy["waiting"] == dj["waiting"]);

  // Plain YAML scalars typed as Go's YAML decoder types them: `cpu: 2` is the number 2,
  // `memory: 0x10` is 16, `"2"` a string; a syntax error gives the line and column.
  k8s::Snapshot s;
  k8s::read_yaml("apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\nstatus:\n  allocatable:\n    cpu: 2\n    memory: 0x10\n    pods: \"110\"\n",
                 "n.yaml", s);
  REQUIRE(s.nodes.size() == 1);
  CHECK(s.nodes[0].spec.allocatable.milli_cpu == 2000);
  CHECK(s.nodes[0].spec.allocatable.memory == 16);
  CHECK(s.nodes[0].spec.allocatable.get(policy::rn::kPods) == 110);
  k8s::Snapshot bad;
  try {
    k8s::read_yaml("apiVersion: v1\nkind: Node\nmetadata: [\n", "bad.yaml", bad);
    FAIL("no error");
  } catch (const k8s::InputError& e) {
    CHECK(std::string(e.what()).rfind("bad.yaml:", 0) == 0);
    CHECK(std::string(e.what()).find("invalid YAML") != std::string::npos);
  }
  // An error inside a document: the line and column of the value (line 11, "  unschedulable: "
  // is 17 characters), and the JSON path inside its document.
  try {
    k8s::read_yaml("kind: Node\napiVersion: v1\nmetadata:\n  name: a\n---\nkind: Node\napiVersion: v1\nmetadata:\n  name: b\nspec:\n  unschedulable: maybe\n",
                   "two.yaml", bad);
    FAIL("no error");
  } catch (const k8s::InputError& e) {
    CHECK(std::string(e.what()) == "two.yaml:11:18: /spec/unschedulable: expected true or false, got a string");
  }
  // A field absent: the line of the object that lacks it (a PriorityClass without value, whose
  // item starts on line 6 at column 3, after "- ").
  try {
    k8s::read_yaml("apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  apiVersion: v1\n- kind: PriorityClass\n  apiVersion: scheduling.k8s.io/v1\n"
                   "  metadata: {name: p}\n",
                   "pc.yaml", bad);
    FAIL("no error");
  } catch (const k8s::InputError& e) {
    CHECK(std::string(e.what()) == "pc.yaml:6:3: /items/1: missing value");
  }
}

TEST_CASE("a YAML export's lines are kept for the objects read only (no trace of a Secret's keys)") {
  k8s::Snapshot s;
  k8s::ReadOptions o;
  o.pod_details = true;
  k8s::read_yaml("apiVersion: v1\nkind: List\nitems:\n- kind: Secret\n  apiVersion: v1\n  data: {password: aHVudGVyMg==}\n"
                 "- kind: Node\n  apiVersion: v1\n  metadata: {name: node-a}\n",
                 "x.yaml", s, o);
  REQUIRE(s.yaml_lines.count("x.yaml"));
  const auto& lines = s.yaml_lines.at("x.yaml").lines;
  CHECK(lines.at("/items/1/metadata/name") == "9:20");
  for (const auto& entry : lines) CHECK_MESSAGE(entry.first.rfind("/items/0", 0) != 0, entry.first);
  CHECK(k8s::with_line(s, "x.yaml: /items/1/metadata/name: bad") == "x.yaml:9:20: /items/1/metadata/name: bad");
  CHECK(k8s::with_line(s, "y.yaml: /items/1: other file") == "y.yaml: /items/1: other file");
}

TEST_CASE("objects of a skipped kind keep the indices of the others as written (/items/N)") {
  // items[0] a Service (dropped while parsing), items[1] a Node with a bad quantity: the error
  // names /items/1, as the file has it.
  k8s::Snapshot s;
  const std::string text = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "2x"}}}]})";
  try {
    k8s::read_json(text, "l.json", s);
    FAIL("no error");
  } catch (const k8s::InputError& e) {
    CHECK_MESSAGE(std::string(e.what()).rfind("l.json: /items/1/status/allocatable/cpu: ", 0) == 0, e.what());
  }
  // Read well, the second of two Nodes after two Services is at /items/3.
  k8s::Snapshot ok;
  k8s::read_json(R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}]})",
                 "l.json", ok);
  CHECK(ok.origin.at("Node a") == "l.json: /items/1");
  CHECK(ok.origin.at("Node b") == "l.json: /items/3");
}

TEST_CASE("a configuration written as volcano-scheduler.conf reads back the same") {
  policy::SchedulerConfig c = policy::volcano_default_config();
  c.actions = {"enqueue", "allocate", "preempt", "reclaim", "backfill"};
  c.tiers[1].plugins[0].arguments.set("overcommit-factor", "1.5");
  c.tiers[0].plugins[1].enabled[static_cast<std::size_t>(policy::Ext::Preemptable)] = false;
  c.action_arguments["allocate"].set("predicateErrorCacheEnable", "true");
  const std::string text = k8s::write_volcano_scheduler_conf(c);
  INFO(text);
  const policy::SchedulerConfig back = k8s::parse_volcano_scheduler_config(text, "written.conf");
  CHECK(back.actions == c.actions);
  REQUIRE(back.tiers.size() == c.tiers.size());
  for (std::size_t t = 0; t < c.tiers.size(); ++t) {
    REQUIRE(back.tiers[t].plugins.size() == c.tiers[t].plugins.size());
    for (std::size_t p = 0; p < c.tiers[t].plugins.size(); ++p) {
      CHECK(back.tiers[t].plugins[p].name == c.tiers[t].plugins[p].name);
      CHECK(back.tiers[t].plugins[p].enabled == c.tiers[t].plugins[p].enabled);
      CHECK(back.tiers[t].plugins[p].arguments.all() == c.tiers[t].plugins[p].arguments.all());
    }
  }
  CHECK(back.action_arguments.at("allocate").all() == c.action_arguments.at("allocate").all());
  // The chart's own shape: actions as one string.
  CHECK(text.rfind("actions: \"enqueue, allocate, preempt, reclaim, backfill\"\n", 0) == 0);
}

TEST_CASE("each object once; what the cycle cannot see is said") {
  // Two Nodes of one name: an error naming both places.
  const std::string twice = R"({"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"a"}},
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"b"}}]})";
  CHECK(error_of(twice) == "x.json: /items/1/metadata/name: a second Node named 'n' (the first: x.json: /items/0); a snapshot holds each object once");
  // A pod whose PodGroup is missing, one on a node that is missing, a PodGroup without its queue.
  const std::string orphans = R"({"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"g"},"spec":{"queue":"nowhere","minMember":1}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"scheduling.k8s.io/group-name":"gone"}},"spec":{"schedulerName":"volcano"}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"schedulerName":"default-scheduler","nodeName":"ghost"},"status":{"phase":"Running"}}]})";
  k8s::Snapshot s;
  k8s::read_json(orphans, "o.json", s);
  scheduler::OnceOptions opts;
  opts.now = 0;
  const scheduler::Decisions d = scheduler::run_once(s, opts);
  REQUIRE(d.notes.size() == 3);
  CHECK(d.notes[0] == "1 PodGroup left out (default/g): its queue is not in the snapshot (Volcano's cache leaves such jobs out)");
  CHECK(d.notes[1] == "1 pod left out (default/p): the PodGroup named by annotation scheduling.k8s.io/group-name is not in the "
                      "snapshot, or is left out");
  CHECK(d.notes[2] == "1 pod left out (default/q): on a node that is not in the snapshot, so its requests count nowhere");
  CHECK(d.config_source == "Volcano's default");
}
