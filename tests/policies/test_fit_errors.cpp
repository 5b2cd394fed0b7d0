// The "why is my job pending" text of a gang that no node can take, as Volcano v1.12.1 builds
// it: allocate.go predicate() -> api/resource_info.go LessEqualWithResourcesName ->
// api/unschedule_info.go WrapInsufficientResourceReason (the FIRST insufficient dimension only,
// in the order cpu, memory, scalar resources) and FitErrors.Error() ("0/N nodes are
// unavailable: ", "<count> <reason>" texts sorted as strings). Expected texts written by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/status.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
/// A node of 4 vCPU, 16 GiB, 1 Neuron device (2 NeuronCores), 1 EFA interface.
NodeBuilder small(const std::string& name) { return NodeBuilder(name).cpu(4).memory_gib(16).neuron_devices(1).efa(1); }
}  // namespace

TEST_CASE("allocate names only the first insufficient resource per node: cpu, memory, Neuron devices, EFA") {
  // Two small nodes (so the queue's deserved share, capped by the cluster, admits the pod);
  // one pod that exceeds each node in the listed dimensions. Volcano keeps one reason per node.
  struct Row {
    const char* what;
    Pod pod;
    const char* reason;  // empty: the pod fits and binds
  };
  const std::vector<Row> rows = {
      {"cpu only", Pod().cpu(6), "Insufficient cpu"},
      {"memory only", Pod().memory_gib(20), "Insufficient memory"},
      {"Neuron devices only", Pod().neuron_devices(2), "Insufficient aws.amazon.com/neurondevice"},
      {"NeuronCores only", Pod().neuron_cores(3), "Insufficient aws.amazon.com/neuroncore"},
      {"EFA only", Pod().efa(2), "Insufficient vpc.amazonaws.com/efa"},
      {"all four: cpu first", Pod().cpu(6).memory_gib(20).neuron_devices(2).efa(2), "Insufficient cpu"},
      {"memory and NeuronCores: memory first", Pod().memory_gib(20).neuron_devices(2), "Insufficient memory"},
      {"memory and EFA: memory first", Pod().memory_gib(20).efa(2), "Insufficient memory"},
      {"Neuron devices and EFA: devices (Volcano: random map order; mltwin: the lower name id)",
       Pod().neuron_devices(2).efa(2), "Insufficient aws.amazon.com/neurondevice"},
      {"cpu above the node by less than minResource (0.1 millicore): fits", Pod().cpu(4.00005), ""},
      {"cpu above the node by 1 millicore: does not fit", Pod().cpu(4.001), "Insufficient cpu"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.what);
    World w;
    w.queue(QueueBuilder("default"));
    w.node(small("n0"));
    w.node(small("n1"));
    const JobId j = w.job(JobBuilder("j", "default").pods(1, r.pod).inqueue().created(0));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 1);
    settle(w, be, s);
    if (std::string(r.reason).empty()) {
      CHECK(be.binds_of(j) == 1);
      continue;
    }
    CHECK(be.binds_of(j) == 0);
    CHECK(s.job_condition(j).plugin == "gang");
    CHECK(s.job_condition(j).reason ==
          "1/1 tasks in gang unschedulable: 0/2 nodes are unavailable: 2 " + std::string(r.reason) + ".");
  }
}

TEST_CASE("pods is a resource: a node whose maxPods are taken is \"Insufficient pods\"") {
  // Volcano gives every task one `pods` (pod_info.go:84) and a node its allocatable pods: two
  // nodes of maxPods 2, each already holding one DaemonSet pod, take one pod each; a 3-pod gang
  // cannot start, and the third pod finds both nodes short of pods, not of cpu (8 cores each, 1
  // per pod). The gang plugin counts 1 of 3 unready: the two pods allocated before the statement
  // was discarded keep LastTransaction Allocated (statement.go:385-391) and count as schedulable
  // (plugins/gang/gang.go:171-183, v1.12.1).
  World w;
  w.queue(QueueBuilder("default"));
  for (const char* n : {"n0", "n1"}) w.node(NodeBuilder(n).cpu(8).memory_gib(16).pods(2).daemonset_used(Pod().cpu(0.1)));
  const JobId j = w.job(JobBuilder("j", "default").pods(3, Pod().cpu(1)).inqueue().created(0));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  CHECK(be.binds_of(j) == 0);
  CHECK(s.job_condition(j).reason == "1/3 tasks in gang unschedulable: 0/2 nodes are unavailable: 2 Insufficient pods.");
  // With maxPods 3 the gang fits (two pods on one node, one on the other).
  World w2;
  w2.queue(QueueBuilder("default"));
  for (const char* n : {"n0", "n1"}) w2.node(NodeBuilder(n).cpu(8).memory_gib(16).pods(3).daemonset_used(Pod().cpu(0.1)));
  const JobId j2 = w2.job(JobBuilder("j", "default").pods(3, Pod().cpu(1)).inqueue().created(0));
  RecordingBackend be2;
  Scheduler s2(volcano_default_config(), 1);
  settle(w2, be2, s2);
  CHECK(be2.binds_of(j2) == 3);
}

TEST_CASE("fit errors from different nodes: counted per reason, sorted as \"<count> <reason>\" strings") {
  // Three nodes too small in cpu, two large but cordoned: "2 node(s)..." sorts before
  // "3 Insufficient..." because Volcano sorts the formatted texts, not the reasons.
  World w;
  w.queue(QueueBuilder("default"));
  for (int i = 0; i < 3; ++i) w.node(small("s" + std::to_string(i)));
  for (int i = 0; i < 2; ++i) w.node(NodeBuilder("c" + std::to_string(i)).trn1_32xlarge().unschedulable());
  const JobId j = w.job(JobBuilder("j", "default").pods(1, Pod().cpu(8)).inqueue().created(0));
  RecordingBackend be;
  Scheduler s(volcano_default_config(), 1);
  settle(w, be, s);
  CHECK(be.binds_of(j) == 0);
  CHECK(s.job_condition(j).reason ==
        "1/1 tasks in gang unschedulable: 0/5 nodes are unavailable: 2 node(s) were unschedulable, "
        "3 Insufficient cpu.");
}

TEST_CASE("FitErrors::to_string follows unschedule_info.go FitErrors.Error()") {
  struct Row {
    int nodes;
    std::vector<std::pair<std::string, int>> reasons;
    std::string text;
  };
  const std::vector<Row> rows = {
      {0, {}, "0/0 nodes are unavailable"},
      {32, {{"Insufficient cpu", 32}}, "0/32 nodes are unavailable: 32 Insufficient cpu."},
      // Byte-wise order of the formatted texts: "10 ..." before "9 ...", "2 n..." before "3 I...".
      {19, {{"a", 9}, {"b", 10}}, "0/19 nodes are unavailable: 10 b, 9 a."},
      {5, {{"Insufficient cpu", 3}, {"node(s) were unschedulable", 2}},
       "0/5 nodes are unavailable: 2 node(s) were unschedulable, 3 Insufficient cpu."},
      {4, {{"Insufficient memory", 2}, {"Insufficient cpu", 2}},
       "0/4 nodes are unavailable: 2 Insufficient cpu, 2 Insufficient memory."},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    FitErrors fe;
    fe.nodes = r.nodes;
    for (const auto& [reason, n] : r.reasons)
      for (int i = 0; i < n; ++i) fe.add(reason);
    CHECK(fe.to_string() == r.text);
  }
}

TEST_CASE("a pod of the same request is fitted again once a node changed in the session") {
  // allocate remembers the last scan in which every node fell short and hands its shortfalls to
  // the next pod of the same request while no node changed. Jobs in creation order a, b, c on
  // two nodes of 4 vCPU and 2 Neuron devices (proportion left out, so that the queue's share
  // does not stop c): a (1 vCPU, 3 devices) is short of devices on both; b (3.5 vCPU, 1 device)
  // binds to one node; c asks what a asked, but the node b took now has 0.5 vCPU (short of cpu
  // first) and the other still 2 devices.
  World w;
  w.queue(QueueBuilder("default"));
  for (const char* n : {"n0", "n1"}) w.node(NodeBuilder(n).cpu(4).memory_gib(16).neuron_devices(2));
  const Pod big = Pod().cpu(1).neuron_devices(3);
  const JobId a = w.job(JobBuilder("a", "default").pods(1, big).inqueue().created(0));
  const JobId b = w.job(JobBuilder("b", "default").pods(1, Pod().cpu(3.5).neuron_devices(1)).inqueue().created(1));
  const JobId c = w.job(JobBuilder("c", "default").pods(1, big).inqueue().created(2));
  SchedulerConfig cfg = volcano_default_config();
  for (auto& tier : cfg.tiers)
    std::erase_if(tier.plugins, [](const PluginOption& p) { return p.name == "proportion"; });
  RecordingBackend be;
  Scheduler s(cfg, 1);
  s.run_once(w.state, be);
  CHECK(be.binds_of(b) == 1);
  CHECK(s.job_condition(a).reason ==
        "1/1 tasks in gang unschedulable: 0/2 nodes are unavailable: 2 Insufficient aws.amazon.com/neurondevice.");
  CHECK(s.job_condition(c).reason ==
        "1/1 tasks in gang unschedulable: 0/2 nodes are unavailable: 1 Insufficient aws.amazon.com/neurondevice, 1 Insufficient cpu.");
}
