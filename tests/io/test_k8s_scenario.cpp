// Kubernetes constraints in JSON scenarios: node-group taints, jobs' tolerations and node
// affinity, PriorityClasses, the kubelet reservation and DaemonSets load as written; every
// broken one is refused with the file, the JSON path and what Kubernetes' API validation (or
// eksctl's, or the EKS AMI's) would say. Expected values are derived by hand from the rules
// named in io/src/k8s_objects.hpp, io/src/scenario_cluster.cpp and models/catalog.hpp.
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/io/scenario.hpp"
#include "trace_formats.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

json scenario(const std::string& name) {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/" + name);
  REQUIRE(in.good());
  return json::parse(in);
}

std::string write_json(const test::TempDir& d, const std::string& name, const json& doc) {
  const std::string p = d.file(name);
  std::ofstream out(p, std::ios::binary);
  out << doc.dump(2);
  REQUIRE(out.good());
  return p;
}

io::LoadedScenario load(const json& doc) {
  test::TempDir d;
  return io::load_scenario(write_json(d, "s.json", doc));
}

/// The warnings loading `doc` gives, joined by newlines, the temp file's path replaced by "s.json".
std::string warnings_of(const json& doc) {
  test::TempDir d;
  const std::string p = write_json(d, "s.json", doc);
  std::string all;
  for (std::string w : io::load_scenario(p).warnings) {
    if (w.rfind(p, 0) == 0) w = "s.json" + w.substr(p.size());
    all += (all.empty() ? "" : "\n") + w;
  }
  return all;
}

/// The error loading `doc`, with the temp file's path replaced by "s.json".
std::string error_of(const json& doc) {
  test::TempDir d;
  const std::string p = write_json(d, "s.json", doc);
  try {
    (void)io::load_scenario(p);
  } catch (const io::ScenarioError& e) {
    std::string m = e.what();
    if (m.rfind(p, 0) == 0) m = "s.json" + m.substr(p.size());
    return m;
  }
  FAIL("expected io::ScenarioError, but the scenario loaded");
  return {};
}

json neuron_toleration() { return {{"key", "aws.amazon.com/neuron"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}; }

}  // namespace

TEST_CASE("JSON: taints, tolerations and node affinity load as written") {
  const io::LoadedScenario sc = load(scenario("k8s-constraints.json"));
  const auto& groups = sc.training.node_groups;
  REQUIRE(groups.size() == 2);
  REQUIRE(groups[0].taints.size() == 1);
  CHECK(groups[0].taints[0] == policy::Taint{"aws.amazon.com/neuron", "true", policy::TaintEffect::NoSchedule});
  CHECK(groups[1].taints.empty());
  const auto& jobs = sc.training.jobs;
  REQUIRE(jobs.size() == 5);
  REQUIRE(jobs[0].tolerations.size() == 1);
  const policy::Toleration& t = jobs[0].tolerations[0];
  CHECK(t.key == "aws.amazon.com/neuron");
  CHECK(t.op == policy::Toleration::Op::Exists);
  CHECK_FALSE(t.any_effect);
  CHECK(t.effect == policy::TaintEffect::NoSchedule);
  CHECK(jobs[0].node_affinity.has_required);
  REQUIRE(jobs[0].node_affinity.required.size() == 1);
  CHECK(jobs[0].node_affinity.required[0].match_expressions ==
        std::vector<policy::NodeSelectorRequirement>{
            {"topology.kubernetes.io/zone", policy::NodeSelectorRequirement::Op::In, {"us-east-1a"}}});
  CHECK(jobs[1].tolerations.empty());
  CHECK(jobs[1].node_affinity.empty());
  REQUIRE(jobs[4].node_affinity.preferred.size() == 1);
  CHECK(jobs[4].node_affinity.preferred[0].weight == 50);
  CHECK_FALSE(jobs[4].node_affinity.has_required);
}

TEST_CASE("JSON: PriorityClasses give jobs their priority, as Kubernetes' Priority admission does") {
  json doc = scenario("tiny-gang.json");
  doc["priority_classes"] = {{{"name", "low"}, {"value", 10}},
                             {{"name", "batch"}, {"value", 100}, {"globalDefault", true}, {"description", "default"}}};
  doc["workload"]["jobs"][0]["priority_class"] = "low";   // the class's value
  doc["workload"]["jobs"][2]["priority"] = 7;            // an explicit priority stays
  const io::LoadedScenario sc = load(doc);
  const auto& jobs = sc.training.jobs;
  CHECK(jobs[0].priority == 10);
  CHECK(jobs[0].priority_class == "low");
  CHECK(jobs[1].priority == 100);  // names none: the globalDefault class
  CHECK(jobs[1].priority_class.empty());
  CHECK(jobs[2].priority == 7);
  // Kubernetes' system classes always exist (pkg/apis/scheduling/types.go).
  doc["workload"]["jobs"][1]["priority_class"] = "system-node-critical";
  CHECK(load(doc).training.jobs[1].priority == 2000001000);
  // Philly: one class for every trace job is checked like a job's.
  json bad = scenario("tiny-gang.json");
  bad["workload"]["jobs"][0]["priority_class"] = "urgent";
  CHECK(error_of(bad) == "s.json: /workload/jobs/0/priority_class: PriorityClass 'urgent' is not defined (known: "
                         "system-cluster-critical, system-node-critical)");
}

TEST_CASE("JSON: a PriorityClass's preemptionPolicy Never reaches its jobs' pods, the globalDefault's too") {
  json doc = scenario("tiny-gang.json");
  doc["priority_classes"] = {{{"name", "polite"}, {"value", 10}, {"preemptionPolicy", "Never"}},
                             {{"name", "batch"}, {"value", 100}, {"preemptionPolicy", "PreemptLowerPriority"}}};
  doc["workload"]["jobs"][0]["priority_class"] = "polite";
  doc["workload"]["jobs"][1]["priority_class"] = "batch";
  doc["workload"]["jobs"][2]["priority"] = 7;  // no class: Kubernetes' default, PreemptLowerPriority
  const auto jobs = load(doc).training.jobs;
  CHECK(jobs[0].preempt_never);
  CHECK_FALSE(jobs[1].preempt_never);
  CHECK_FALSE(jobs[2].preempt_never);
  // A job naming no class takes the globalDefault class's policy with its value.
  doc["priority_classes"][0]["globalDefault"] = true;
  doc["workload"]["jobs"][1].erase("priority_class");
  const auto again = load(doc).training.jobs;
  CHECK(again[1].priority == 10);
  CHECK(again[1].preempt_never);
  CHECK_FALSE(again[2].preempt_never);  // its own priority: no class at all
  json bad = scenario("tiny-gang.json");
  bad["workload"]["jobs"][0]["queue"] = "c1";  // Volcano's snapshot would leave the job out silently
  CHECK(error_of(bad) == "s.json: /workload/jobs/0/queue: queue 'c1' is not defined in /queues");
  bad = scenario("tiny-gang.json");
  bad["priority_classes"] = {{{"name", "x"}, {"value", 1}, {"preemptionPolicy", "Sometimes"}}};
  CHECK(error_of(bad).find("/priority_classes/0/preemptionPolicy") != std::string::npos);
}

TEST_CASE("JSON: the kubelet reservation (EKS AMI formula or explicit) and the DaemonSets") {
  const io::LoadedScenario sc = load(scenario("allocatable.json"));
  const auto& g = sc.training.node_groups[0];
  // kube-reserved 390m and 2972 MiB (11 x 247 + 255), evictionHard memory.available 100 MiB.
  CHECK(g.kubelet_reserved.milli_cpu == 390.0);
  CHECK(g.kubelet_reserved.memory == 3072.0 * kMiB);
  CHECK(g.kubelet_reserved.scalars.empty());
  REQUIRE(sc.training.daemonsets.size() == 4);
  CHECK(sc.training.daemonsets[0].name == "aws-node");
  CHECK(sc.training.daemonsets[0].requests.milli_cpu == 50.0);
  CHECK(sc.training.daemonsets[2].requests.memory == 20.0 * kMiB);
  CHECK(sc.training.daemonsets[3].node_affinity.has_required);
  REQUIRE(sc.training.daemonsets[3].tolerations.size() == 2);
  // Keys given replace their part of the formula; system-reserved adds; the eviction threshold
  // may be a percentage of the node's memory: cpu 500m; memory 2972 MiB + 1 GiB + 5% of 512 GiB.
  json doc = scenario("allocatable.json");
  doc["cluster"]["kubelet_reserved"]["kube_reserved"] = {{"cpu", "500m"}};
  doc["cluster"]["kubelet_reserved"]["system_reserved"] = {{"memory", "1Gi"}};
  doc["cluster"]["kubelet_reserved"]["eviction_hard"] = {{"memory.available", "5%"}};
  const policy::Resource r = load(doc).training.node_groups[0].kubelet_reserved;  // a copy: the scenario is a temporary
  CHECK(r.milli_cpu == 500.0);
  CHECK(r.memory == doctest::Approx(2972.0 * kMiB + kGiB + 0.05 * 512 * kGiB));
  // A node group's own reservation replaces the cluster's; without either, none.
  doc["cluster"]["node_groups"][0]["kubelet_reserved"] = {{"kube_reserved", {{"cpu", "1"}}}, {"source", "test"}};
  CHECK(load(doc).training.node_groups[0].kubelet_reserved == policy::Resource::make(1, 0));
  CHECK(load(scenario("tiny-gang.json")).training.node_groups[0].kubelet_reserved == policy::Resource{});
}

TEST_CASE("JSON: broken constraints are refused with the JSON path and Kubernetes' reason") {
  struct Row {
    const char* what;
    void (*patch)(json&);
    const char* expected;  // the whole message, or its beginning when it ends with "..."
  };
  const Row rows[] = {
      {"a taint effect outside the three",
       [](json& d) { d["cluster"]["node_groups"][0]["taints"] = {{{"key", "k"}, {"effect", "NoScheduled"}}}; },
       "s.json: /cluster/node_groups/0/taints/0/effect: expected one of \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"; "
       "got string \"NoScheduled\"..."},
      {"a taint key that is no qualified name",
       [](json& d) { d["cluster"]["node_groups"][0]["taints"] = {{{"key", "bad key!"}, {"effect", "NoSchedule"}}}; },
       "s.json: /cluster/node_groups/0/taints/0/key: name part 'bad key!' must consist of alphanumeric characters, '-', '_' "
       "or '.', and must start and end with an alphanumeric character"},
      {"the same taint key and effect twice",
       [](json& d) {
         d["cluster"]["node_groups"][0]["taints"] = {{{"key", "k"}, {"value", "a"}, {"effect", "NoSchedule"}},
                                                     {{"key", "k"}, {"value", "b"}, {"effect", "NoSchedule"}}};
       },
       "s.json: /cluster/node_groups/0/taints/1: taints must be unique by key and effect pair (Kubernetes validation)"},
      {"a toleration without key and with operator Equal",
       [](json& d) { d["workload"]["jobs"][0]["tolerations"] = {{{"operator", "Equal"}, {"value", "x"}}}; },
       "s.json: /workload/jobs/0/tolerations/0/operator: operator must be Exists when `key` is empty, which means \"match all "
       "values and all keys\""},
      {"Exists with a value",
       [](json& d) { d["workload"]["jobs"][0]["tolerations"] = {{{"key", "k"}, {"operator", "Exists"}, {"value", "x"}}}; },
       "s.json: /workload/jobs/0/tolerations/0/value: value must be empty when `operator` is 'Exists'"},
      {"tolerationSeconds without NoExecute",
       [](json& d) {
         d["workload"]["jobs"][0]["tolerations"] = {{{"key", "k"}, {"operator", "Exists"}, {"effect", "NoSchedule"}, {"tolerationSeconds", 30}}};
       },
       "s.json: /workload/jobs/0/tolerations/0/effect: effect must be 'NoExecute' when `tolerationSeconds` is set"},
      {"a misspelt toleration key",
       [](json& d) { d["workload"]["jobs"][0]["tolerations"] = {{{"key", "k"}, {"operator", "Exists"}, {"tolerationsSeconds", 3}}}; },
       "s.json: /workload/jobs/0/tolerations/0: unknown key 'tolerationsSeconds' (expected effect, key, operator, "
       "tolerationSeconds, value)..."},
      {"required affinity without a term",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", json::array()}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms: must have at "
       "least one node selector term"},
      {"In without values",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {{"requiredDuringSchedulingIgnoredDuringExecution",
                                                      {{"nodeSelectorTerms", {{{"matchExpressions", {{{"key", "zone"}, {"operator", "In"}}}}}}}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/"
       "matchExpressions/0/values: must be specified when `operator` is 'In' or 'NotIn'"},
      {"Gt with a value that is no integer",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {
             {"preferredDuringSchedulingIgnoredDuringExecution",
              {{{"weight", 5}, {"preference", {{"matchExpressions", {{{"key", "gen"}, {"operator", "Gt"}, {"values", {"abc"}}}}}}}}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/preferredDuringSchedulingIgnoredDuringExecution/0/preference/matchExpressions/"
       "0/values/0: for 'Gt', 'Lt' operators, the value must be an integer, got 'abc'"},
      {"Exists with values",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {
             {"requiredDuringSchedulingIgnoredDuringExecution",
              {{"nodeSelectorTerms", {{{"matchExpressions", {{{"key", "gen"}, {"operator", "Exists"}, {"values", {"1"}}}}}}}}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/"
       "matchExpressions/0/values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"},
      {"matchFields on a field other than metadata.name",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {
             {"requiredDuringSchedulingIgnoredDuringExecution",
              {{"nodeSelectorTerms", {{{"matchFields", {{{"key", "metadata.uid"}, {"operator", "In"}, {"values", {"x"}}}}}}}}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/"
       "matchFields/0/key: 'metadata.uid' is not supported (matchFields supports metadata.name)"},
      {"a preferred weight of 0",
       [](json& d) {
         d["workload"]["jobs"][0]["node_affinity"] = {
             {"preferredDuringSchedulingIgnoredDuringExecution", {{{"weight", 0}, {"preference", json::object()}}}}};
       },
       "s.json: /workload/jobs/0/node_affinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight: ..."},
      {"priority and priority_class together",
       [](json& d) {
         d["priority_classes"] = {{{"name", "low"}, {"value", 1}}};
         d["workload"]["jobs"][0]["priority"] = 3;
         d["workload"]["jobs"][0]["priority_class"] = "low";
       },
       "s.json: /workload/jobs/0/priority_class: give priority or priority_class (its PriorityClass's value), not both"},
      {"two globalDefault classes",
       [](json& d) {
         d["priority_classes"] = {{{"name", "a"}, {"value", 1}, {"globalDefault", true}},
                                  {{"name", "b"}, {"value", 2}, {"globalDefault", true}}};
       },
       "s.json: /priority_classes/1/globalDefault: only one PriorityClass can be marked globalDefault ('a' is)"},
      {"a class named system-...",
       [](json& d) { d["priority_classes"] = {{{"name", "system-mine"}, {"value", 1}}}; },
       "s.json: /priority_classes/0/name: the prefix 'system-' is reserved for Kubernetes' system PriorityClasses"},
      {"a class value above HighestUserDefinablePriority",
       [](json& d) { d["priority_classes"] = {{{"name", "huge"}, {"value", 1000000001}}}; },
       "s.json: /priority_classes/0/value: ..."},
      {"the EKS AMI formula on a catalog row without max_pods",
       [](json& d) {
         d["cluster"]["kubelet_reserved"] = {{"formula", "eks-ami"}, {"source", "test"}};
         // A row in place of the shipped trn1.32xlarge, without max_pods.
         d["catalog"]["instance_types"] = {{{"name", "trn1.32xlarge"}, {"vcpu", 128}, {"memory_gib", 512},
                                            {"extended_resources", json::object()}, {"network_gbps", 800},
                                            {"on_demand_usd_per_hour", 21.5}, {"price_region", "us-east-1"}, {"source", "test"}}};
       },
       "s.json: /cluster/kubelet_reserved/formula: formula eks-ami needs the kubelet's maxPods of trn1.32xlarge, which its catalog "
       "row (/catalog/instance_types/0 (in place of the shipped row)) does not give: give the row with max_pods under "
       "/catalog/instance_types (amazon-eks-ami eni-max-pods.txt)"},
      {"a reservation above the instance type",
       [](json& d) { d["cluster"]["kubelet_reserved"] = {{"kube_reserved", {{"cpu", "200"}}}, {"source", "test"}}; },
       "s.json: /cluster/kubelet_reserved: reserves {cpu 200, memory 0}, more than a trn1.32xlarge has "
       "{cpu 128, memory 512Gi, pods 247, aws.amazon.com/neuron 16, aws.amazon.com/neurondevice 16, "
       "aws.amazon.com/neuroncore 32, vpc.amazonaws.com/efa 8}"},
      {"an eviction threshold above 100%",
       [](json& d) { d["cluster"]["kubelet_reserved"] = {{"eviction_hard", {{"memory.available", "150%"}}}, {"source", "test"}}; },
       "s.json: /cluster/kubelet_reserved/eviction_hard/memory.available: expected a percentage from 0% to 100% (expected a "
       "quantity such as 100Mi, or a percentage such as 5%)"},
      {"DaemonSets asking more than a node has",
       [](json& d) {
         d["cluster"]["daemonsets"] = {{{"name", "hog"}, {"requests", {{"cpu", "129"}}}, {"source", "test"}}};
       },
       "s.json: /cluster/daemonsets: the DaemonSets on node group 'trn1' request {cpu 129, memory 0, pods 1}, "
       "more than its nodes' allocatable {cpu 128, memory 512Gi, pods 247, aws.amazon.com/neuron 16, "
       "aws.amazon.com/neurondevice 16, aws.amazon.com/neuroncore 32, vpc.amazonaws.com/efa 8}"},
      {"a DaemonSet without a source",
       [](json& d) { d["cluster"]["daemonsets"] = {{{"name", "x"}, {"requests", json::object()}}}; },
       "s.json: /cluster/daemonsets/0: ..."},
  };
  for (const Row& r : rows) {
    const std::string what = r.what;
    CAPTURE(what);
    json doc = scenario("tiny-gang.json");
    r.patch(doc);
    const std::string msg = error_of(doc);
    const std::string want = r.expected;
    if (want.size() > 3 && want.compare(want.size() - 3, 3, "...") == 0) {
      CHECK_MESSAGE(msg.rfind(want.substr(0, want.size() - 3), 0) == 0, "got: " << msg);
    } else {
      CHECK(msg == want);
    }
  }
}

TEST_CASE("JSON: a multi-node EFA job that may span zones is accepted with a warning unless its affinity or tolerations keep it in one") {
  // Two node groups in two zones, the second tainted: the jobs (EFA pods) could use both groups
  // until the taint (not tolerated) or a required zone affinity leaves them one zone. Kubernetes
  // accepts such a job; the loader warns once, naming the first job and counting the others.
  json doc = scenario("tiny-gang.json");
  doc["cluster"]["node_groups"].push_back(
      {{"name", "east-b"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 2}, {"availability_zone", "us-east-1b"}});
  CHECK(warnings_of(doc) ==
        "s.json: /workload/jobs/0: job a (4 nodes, EFA) may be placed across availability zones (us-east-1a, us-east-1b) "
        "(and 2 more job(s)): EFA traffic does not cross zones, so a job split across them fails at training start (its "
        "pods Failed, PodFailed). Keep it in one zone with a node_selector (nodeSelector) or a required node_affinity on "
        "topology.kubernetes.io/zone");
  // A taint on the second group that the jobs do not tolerate keeps them in us-east-1a.
  json tainted = doc;
  tainted["cluster"]["node_groups"][1]["taints"] = {{{"key", "aws.amazon.com/neuron"}, {"value", "true"}, {"effect", "NoSchedule"}}};
  CHECK(warnings_of(tainted).empty());
  // So does a required zone affinity; a toleration alone (taint tolerated) does not.
  json tolerant = tainted;
  // json::array: `= {x}` of one json is a copy of x under clang, an array of one under gcc.
  for (auto& j : tolerant["workload"]["jobs"]) j["tolerations"] = json::array({neuron_toleration()});
  CHECK(warnings_of(tolerant).find("may be placed across availability zones") != std::string::npos);
  for (auto& j : tolerant["workload"]["jobs"])
    j["node_affinity"] = {{"requiredDuringSchedulingIgnoredDuringExecution",
                           {{"nodeSelectorTerms",
                             {{{"matchExpressions", {{{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {"us-east-1b"}}}}}}}}}}};
  CHECK(warnings_of(tolerant).empty());
}

TEST_CASE("JSON: workload.philly gives every trace job the same tolerations, node affinity and PriorityClass") {
  test::TempDir d;
  {
    std::ofstream csv(d.file("trace.csv"), std::ios::binary);
    csv << mltwin::test::philly_header() << "\n2017-10-03 10:00:00,100,1,100,aaa\n2017-10-03 10:00:30,60,2,120,aaa\n";
  }
  json doc = scenario("tiny-gang.json");
  doc["queues"] = json::array({{{"name", "vc-aaa"}}});
  doc["priority_classes"] = {{{"name", "trace"}, {"value", 42}}};
  doc["workload"] = {{"philly",
                      {{"trace", "trace.csv"},
                       {"priority_class", "trace"},
                       {"tolerations", {neuron_toleration()}},
                       {"node_affinity",
                        {{"preferredDuringSchedulingIgnoredDuringExecution",
                          {{{"weight", 10}, {"preference", {{"matchExpressions", {{{"key", "gen"}, {"operator", "Exists"}}}}}}}}}}},
                       {"mapping",
                        {{"neuron_devices_per_gpu", 1},
                         {"devices_per_node", 16},
                         {"pod_whole_node", {{"cpu", "127900m"}, {"memory", "523264M"}, {"aws.amazon.com/neurondevice", 16}}},
                         {"pod_per_device", {{"cpu", "7993750u"}, {"memory", "32704M"}}},
                         {"source", "test fixture"}}}}}};
  const io::LoadedScenario sc = io::load_scenario(write_json(d, "s.json", doc));
  REQUIRE(sc.training.jobs.size() == 2);
  for (const auto& j : sc.training.jobs) {
    CHECK(j.priority == 42);
    CHECK(j.priority_class == "trace");
    REQUIRE(j.tolerations.size() == 1);
    CHECK(j.tolerations[0].key == "aws.amazon.com/neuron");
    REQUIRE(j.node_affinity.preferred.size() == 1);
    CHECK(j.node_affinity.preferred[0].weight == 10);
  }
  doc["workload"]["philly"]["priority"] = 3;
  const std::string p = write_json(d, "s.json", doc);
  try {
    (void)io::load_scenario(p);
    FAIL("expected an error");
  } catch (const io::ScenarioError& e) {
    CHECK(std::string(e.what()) == p + ": /workload/philly/priority_class: give priority or priority_class (its "
                                       "PriorityClass's value), not both");
  }
}

TEST_CASE("JSON: a group in another zone whose nodes cannot hold the pod does not split a gang across zones") {
  // A CPU system group (m5.xlarge: 4 vCPU, no Neuron device, no EFA) in us-east-1b, or with no
  // zone, beside tiny-gang's trn1.32xlarge in us-east-1a: its nodes cannot hold a pod asking for
  // 16 Neuron devices and 8 EFA interfaces, so the Trainium gangs stay in one zone.
  for (const char* zone : {"us-east-1b", ""}) {
    CAPTURE(zone);
    json doc = scenario("tiny-gang.json");
    json system = {{"name", "system"}, {"instance_type", "m5.xlarge"}, {"desired_capacity", 2}};
    if (*zone) system["availability_zone"] = zone;
    doc["cluster"]["node_groups"].push_back(system);
    CHECK(warnings_of(doc).empty());
    // A pod small enough for an m5.xlarge (1 vCPU, 1 EFA it does not have: still no) ...
    json small = doc;
    for (auto& j : small["workload"]["jobs"]) j["pod"] = {{"cpu", "1"}, {"memory", "1Gi"}, {"vpc.amazonaws.com/efa", 1}};
    CHECK(warnings_of(small).empty());
  }
  // ... while a second trn1 group in us-east-1b could hold it: warned of.
  json doc = scenario("tiny-gang.json");
  doc["cluster"]["node_groups"].push_back(
      {{"name", "system"}, {"instance_type", "m5.xlarge"}, {"desired_capacity", 2}, {"availability_zone", "us-east-1b"}});
  doc["cluster"]["node_groups"].push_back(
      {{"name", "east-b"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}, {"availability_zone", "us-east-1c"}});
  CHECK(warnings_of(doc).find("may be placed across availability zones (us-east-1a, us-east-1c)") != std::string::npos);
}

TEST_CASE("JSON: \"pod\": \"aws_trn1_32xlarge\", TorchX's named resource, is the whole-node request TorchX writes") {
  // torchx/specs/named_resources_aws.py aws_trn1_32xlarge: 128 vCPUs, memMB 512 x 1024, 16 Neuron
  // devices, 8 EFA; its Kubernetes scheduler leaves RESERVED_MILLICPU 100 and RESERVED_MEMMB 1024:
  // cpu 128000 - 100 = 127900m, memory 524288 - 1024 = 523264M — tiny-gang's explicit pod.
  const json explicit_doc = scenario("tiny-gang.json");
  json named = explicit_doc;
  for (auto& j : named["workload"]["jobs"]) j["pod"] = "aws_trn1_32xlarge";
  const io::LoadedScenario a = load(explicit_doc), b = load(named);
  REQUIRE(a.training.jobs.size() == b.training.jobs.size());
  for (std::size_t i = 0; i < a.training.jobs.size(); ++i) {
    CAPTURE(i);
    const auto& x = a.training.jobs[i];
    const auto& y = b.training.jobs[i];
    CHECK(y.cpu_per_pod == 127.9);
    CHECK(y.memory_bytes_per_pod == 523264e6);
    CHECK(y.neuron_devices_per_pod == 16);
    CHECK(y.efa_per_pod == 8);
    CHECK(x.cpu_per_pod == y.cpu_per_pod);
    CHECK(x.memory_bytes_per_pod == y.memory_bytes_per_pod);
    CHECK(x.neuron_resource == y.neuron_resource);
  }
  json bad = explicit_doc;
  bad["workload"]["jobs"][0]["pod"] = "aws_trn9_32xlarge";
  CHECK(error_of(bad).rfind("s.json: /workload/jobs/0/pod: \"aws_trn9_32xlarge\": instance type 'trn9.32xlarge' is not in the catalog", 0) == 0);
  bad["workload"]["jobs"][0]["pod"] = "whole-node";
  CHECK(error_of(bad).rfind("s.json: /workload/jobs/0/pod: \"whole-node\": expected a TorchX named resource", 0) == 0);
}
