// /cluster/nodes_from: a training scenario's nodes from what `kubectl get nodes -o json` (or
// -o yaml) prints. The fixtures, tests/io/fixtures/kubectl/nodes.{json,yaml}, are hand-built in
// the shape the Kubernetes API reference gives for a Node (kubernetes.io/docs/reference/
// kubernetes-api/cluster-resources/node-v1/: metadata with labels, annotations and
// managedFields; spec.providerID, taints, unschedulable; status.capacity, allocatable,
// conditions, addresses, nodeInfo, images) inside the `v1 List` kubectl prints for a list, as
// an EKS cluster in us-west-2 shows its nodes:
//   - ip-10-42-3-10.us-west-2.compute.internal: trn1.32xlarge, us-west-2d, tainted
//     aws.amazon.com/neuron=true:NoSchedule; capacity cpu 128, memory 527937416Ki, pods 247,
//     16 Neuron devices (aws.amazon.com/neuron and neurondevice), 32 NeuronCores, 8 EFA;
//     allocatable cpu 127610m, memory 524791688Ki (the EKS AMI's reservation for it: 390m,
//     11 x 247 + 255 = 2972Mi plus the 100Mi eviction threshold = 3145728Ki), ephemeral-storage
//     482098735124;
//   - ip-10-42-7-21.us-west-2.compute.internal: the same, cordoned (spec.unschedulable true and
//     the node.kubernetes.io/unschedulable:NoSchedule taint `kubectl cordon` adds, with timeAdded);
//   - ip-10-42-9-5.us-west-2.compute.internal: m7i.large (a type the shipped catalog does not
//     have), labelled only with the deprecated beta.kubernetes.io/instance-type, us-west-2a,
//     tainted dedicated=system:PreferNoSchedule; allocatable cpu 1930m, memory 7179624Ki, pods 29.
// The YAML file is the same List as -o yaml prints it. Expected values below are those numbers,
// in mltwin's units (policy/resource.hpp: millicores, bytes, pods as a count, other resources in
// milli-units).
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/io/scenario.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;

namespace {

const std::string kFix = std::string(MLTWIN_SOURCE_DIR) + "/tests/io/fixtures/kubectl/";
const std::string kA = "ip-10-42-3-10.us-west-2.compute.internal";
const std::string kB = "ip-10-42-7-21.us-west-2.compute.internal";
const std::string kC = "ip-10-42-9-5.us-west-2.compute.internal";
constexpr double kKi = 1024.0;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

json whole_node_job(const std::string& name, const std::string& submit, const std::string& duration) {
  return {{"name", name},
          {"queue", "default"},
          {"submit", submit},
          {"nnodes", 1},
          {"pod", {{"cpu", "120"}, {"memory", "480Gi"}, {"aws.amazon.com/neurondevice", 16}, {"vpc.amazonaws.com/efa", 8}}},
          {"duration", duration},
          {"tolerations", json::array({{{"key", "aws.amazon.com/neuron"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}};
}

/// tests/scenarios/tiny-gang.json with its cluster replaced by `cluster` and two whole-node
/// jobs that tolerate the Neuron taint.
json scenario_with(const json& cluster) {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  REQUIRE(in.good());
  json d = json::parse(in);
  d.erase("$schema");
  d["cluster"] = cluster;
  d["workload"] = {{"jobs", json::array({whole_node_job("a", "0s", "1h"), whole_node_job("b", "0s", "20m")})}};
  return d;
}

struct Loaded {
  test::TempDir dir;
  std::string path;  ///< the scenario file
  io::LoadedScenario sc;
};

/// Writes `doc` as s.json in a fresh folder, with `files` (name -> text) beside it, and loads it.
std::unique_ptr<Loaded> load(const json& doc, const std::vector<std::pair<std::string, std::string>>& files = {}) {
  auto l = std::make_unique<Loaded>();
  for (const auto& [name, text] : files) write_text(l->dir.file(name), text);
  l->path = l->dir.file("s.json");
  write_text(l->path, doc.dump(2));
  l->sc = io::load_scenario(l->path);
  return l;
}

/// The error loading `doc` (files beside it as for load), the folder's path replaced by "T".
std::string error_of(const json& doc, const std::vector<std::pair<std::string, std::string>>& files = {}) {
  test::TempDir d;
  for (const auto& [name, text] : files) write_text(d.file(name), text);
  const std::string p = d.file("s.json");
  write_text(p, doc.dump(2));
  try {
    (void)io::load_scenario(p);
  } catch (const io::ScenarioError& e) {
    // The folder's path as "T" (built anew: GCC 12's -Wrestrict misreads std::string::replace).
    const std::string m = e.what(), folder = d.path().string();
    std::string out;
    for (std::size_t from = 0;;) {
      const std::size_t at = m.find(folder, from);
      out += m.substr(from, at == std::string::npos ? std::string::npos : at - from);
      if (at == std::string::npos) return out;
      out += "T";
      from = at + folder.size();
    }
  }
  FAIL("expected io::ScenarioError, but the scenario loaded");
  return {};
}

const models::NodeGroupSpec& group_of(const models::TrainingScenario& sc, const std::string& node) {
  for (const auto& g : sc.node_groups)
    if (g.observed && g.observed->name == node) return g;
  FAIL("no node " << node);
  return sc.node_groups.front();
}

/// The three fixture nodes as the loader must make them (values from the file header).
void check_fixture_nodes(const models::TrainingScenario& sc) {
  REQUIRE(sc.node_groups.size() == 3);
  CHECK(sc.node_groups[0].name == kA);  // in file order
  CHECK(sc.node_groups[1].name == kB);
  CHECK(sc.node_groups[2].name == kC);
  for (const auto& g : sc.node_groups) {
    REQUIRE(g.observed.has_value());
    CHECK(g.count == 1);
    CHECK(g.name == g.observed->name);
    CHECK(g.observed->ready);
  }
  const models::NodeGroupSpec& a = group_of(sc, kA);
  CHECK(a.instance_types == std::vector<std::string>{"trn1.32xlarge"});
  CHECK(a.availability_zone == "us-west-2d");
  CHECK(a.taints == std::vector<policy::Taint>{{"aws.amazon.com/neuron", "true", policy::TaintEffect::NoSchedule}});
  CHECK_FALSE(a.observed->unschedulable);
  CHECK(a.observed->in_catalog);
  // Allocatable as the object gives it: no kubelet reservation taken again.
  const policy::Resource& al = a.observed->allocatable;
  CHECK(al.milli_cpu == 127610);
  CHECK(al.memory == 524791688 * kKi);
  CHECK(al.get(policy::rn::kPods) == 247);
  CHECK(al.get(policy::rn::kNeuronDevice) == 16000);
  CHECK(al.get(policy::rn::kNeuron) == 16000);
  CHECK(al.get(policy::rn::kNeuronCore) == 32000);
  CHECK(al.get(policy::rn::kEfa) == 8000);
  CHECK(al.get(policy::rn::kEphemeralStorage) == 482098735124.0 * 1000);
  CHECK(a.observed->capacity.milli_cpu == 128000);
  CHECK(a.observed->capacity.memory == 527937416 * kKi);
  // What the model's node gets: the object's resources and labels (the well-known ones included).
  const models::NodeResources r = models::node_resources(sc, a, models::NodeLaunch{}, kA);
  CHECK(r.allocatable == al);
  CHECK(r.capacity == a.observed->capacity);
  const auto labels = models::node_labels(a, models::NodeLaunch{});
  CHECK(labels.size() == 17);
  CHECK(std::count(labels.begin(), labels.end(), std::pair<std::string, std::string>{"kubernetes.io/hostname", kA}) == 1);
  CHECK(std::count(labels.begin(), labels.end(), std::pair<std::string, std::string>{"eks.amazonaws.com/nodegroup", "trn1-ng"}) == 1);
  // Price: the catalog's on-demand price of trn1.32xlarge (its row 1).
  CHECK(models::node_usd_per_hour(sc.catalog, a, models::NodeLaunch{}) == 21.5);
  CHECK(models::node_price_source(sc.catalog, a, models::NodeLaunch{}) == "aws-instance-types.json: /instance_types/1 on_demand_usd_per_hour, us-east-1");

  const models::NodeGroupSpec& b = group_of(sc, kB);
  CHECK(b.observed->unschedulable);
  CHECK(b.taints == std::vector<policy::Taint>{{"aws.amazon.com/neuron", "true", policy::TaintEffect::NoSchedule},
                                               {"node.kubernetes.io/unschedulable", "", policy::TaintEffect::NoSchedule}});
  CHECK(b.observed->allocatable == al);

  const models::NodeGroupSpec& c = group_of(sc, kC);
  CHECK(c.instance_types == std::vector<std::string>{"m7i.large"});  // from beta.kubernetes.io/instance-type
  CHECK(c.availability_zone == "us-west-2a");
  CHECK(c.taints == std::vector<policy::Taint>{{"dedicated", "system", policy::TaintEffect::PreferNoSchedule}});
  CHECK_FALSE(c.observed->in_catalog);
  CHECK(c.observed->allocatable.milli_cpu == 1930);
  CHECK(c.observed->allocatable.memory == 7179624 * kKi);
  CHECK(c.observed->allocatable.get(policy::rn::kPods) == 29);
  CHECK(c.observed->allocatable.get(policy::rn::kNeuronDevice) == 0);
  CHECK(c.observed->capacity.milli_cpu == 2000);
  CHECK(models::node_usd_per_hour(sc.catalog, c, models::NodeLaunch{}) == 0.0);
  CHECK(models::node_price_source(sc.catalog, c, models::NodeLaunch{}) == "none: instance type 'm7i.large' is not in the catalog");
}

}  // namespace

TEST_CASE("nodes_from: a kubectl List of Nodes (JSON) becomes the twin's nodes, with their names, labels, taints, allocatable and cordon") {
  auto l = load(scenario_with({{"nodes_from", {kFix + "nodes.json"}}}));
  check_fixture_nodes(l->sc.training);
  // The type the catalog lacks loads, without a price: one warning names the node.
  REQUIRE(l->sc.warnings.size() == 1);
  CHECK(l->sc.warnings[0] == l->path + ": /cluster/nodes_from: no on-demand price for node(s) " + kC +
                                 " (m7i.large): they cost 0 USD/h in the run's cost (give the instance type's row with "
                                 "on_demand_usd_per_hour and price_region under /catalog/instance_types)");
  // The file is an input of the run, as the scenario names it.
  bool listed = false;
  for (const auto& in : l->sc.inputs) listed = listed || (in.role == "cluster_nodes" && in.as_written == kFix + "nodes.json");
  CHECK(listed);
}

TEST_CASE("nodes_from: the same List as -o yaml prints it gives the same nodes; a path is relative to the scenario") {
  auto l = load(scenario_with({{"nodes_from", {"nodes.yaml"}}}), {{"nodes.yaml", slurp(kFix + "nodes.yaml")}});
  check_fixture_nodes(l->sc.training);
}

TEST_CASE("nodes_from: several files add up; single Node objects are read too") {
  // The List split in two files: the first node alone (a single object, as `kubectl get node
  // NAME -o json` prints it), then a List of the other two.
  json list = json::parse(slurp(kFix + "nodes.json"));
  const json first = list["items"][0];
  list["items"].erase(0);
  auto l = load(scenario_with({{"nodes_from", {"a.json", "rest.json"}}}), {{"a.json", first.dump(4)}, {"rest.json", list.dump(4)}});
  check_fixture_nodes(l->sc.training);
}

TEST_CASE("nodes_from: real node names in initial_state; a cordoned node takes no first-fit pod; a name matching no node is refused") {
  json doc = scenario_with({{"nodes_from", {kFix + "nodes.json"}}});
  doc["initial_state"] = {{"running", json::array({{{"job", "a"}, {"started", "-10m"}, {"nodes", {kA}}}})}};
  {
    auto l = load(doc);
    REQUIRE(l->sc.training.jobs[0].initial);
    CHECK(l->sc.training.jobs[0].initial->nodes == std::vector<std::string>{kA});
  }
  // First fit: a is on A; the cordoned B (and C, without Neuron devices) cannot take b.
  doc["initial_state"]["running"].push_back({{"job", "b"}, {"started", "0s"}});
  CHECK(error_of(doc) == "T/s.json: /initial_state/running/1: no node at t0 has room for pod 0 of job 'b' {cpu 120, memory 480Gi, "
                         "pods 1, aws.amazon.com/neurondevice 16, vpc.amazonaws.com/efa 8}");
  // A named placement on the cordoned node is what kubectl shows for a pod started before the
  // cordon (whose node.kubernetes.io/unschedulable:NoSchedule taint evicts nothing): accepted.
  doc["initial_state"]["running"][1]["nodes"] = {kB};
  {
    auto l = load(doc);
    CHECK(l->sc.training.jobs[1].initial->nodes == std::vector<std::string>{kB});
  }
  doc["initial_state"]["running"][1]["nodes"] = {"ip-10-42-3-11.us-west-2.compute.internal"};
  CHECK(error_of(doc) == "T/s.json: /initial_state/running/1/nodes/0: no node 'ip-10-42-3-11.us-west-2.compute.internal' at t0 "
                         "(the cluster's nodes: " + kA + ", " + kB + ", " + kC + ")");
  // Faults name nodes the same way.
  json f = scenario_with({{"nodes_from", {kFix + "nodes.json"}}});
  f["faults"] = {{"scheduled", json::array({{{"node", kB}, {"at", "10m"}}})}, {"replacement_time", "5m"}, {"source", "test"}};
  CHECK_NOTHROW(load(f));
  f["faults"]["scheduled"][0]["node"] = "trn1-0";
  CHECK(error_of(f) == "T/s.json: /faults/scheduled/0/node: no node 'trn1-0' at t = 0 (nodes are named <node group>-<index>, or as "
                       "their Node objects in /cluster/nodes_from)");
}

TEST_CASE("nodes_from with node groups: both add up; a group that is one of the Nodes' EKS node groups, or a name clash, is refused") {
  json groups = json::array({{{"name", "extra"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}}});
  {
    auto l = load(scenario_with({{"nodes_from", {kFix + "nodes.json"}}, {"node_groups", groups}}));
    const auto& ng = l->sc.training.node_groups;
    REQUIRE(ng.size() == 4);
    CHECK(ng[0].name == "extra");
    CHECK_FALSE(ng[0].observed);
  }
  groups[0]["name"] = "trn1-ng";
  CHECK(error_of(scenario_with({{"nodes_from", {kFix + "nodes.json"}}, {"node_groups", groups}})) ==
        "T/s.json: /cluster/node_groups/0/name: node group 'trn1-ng' is also the EKS node group of Node '" + kA + "' (" + kFix +
            "nodes.json: /items/0, label eks.amazonaws.com/nodegroup): its nodes would be counted twice; give the group's nodes in "
            "nodes_from, or the group in node_groups, not both");
  // A Node named as a node of a group would be (a cluster whose nodes are not EKS's).
  {
    json list = json::parse(slurp(kFix + "nodes.json"));
    list["items"][0]["metadata"]["name"] = "extra-0";
    groups[0]["name"] = "extra";
    CHECK(error_of(scenario_with({{"nodes_from", {"nodes.json"}}, {"node_groups", groups}}), {{"nodes.json", list.dump(4)}}) ==
          "T/s.json: /cluster/node_groups/0/name: node group 'extra' would name its nodes <name>-<index>, and Node 'extra-0' of "
          "T/nodes.json: /items/0 has that name: rename the group");
  }
  // node_groups and eksctl stay exclusive; a cluster needs one of the three.
  CHECK(error_of(scenario_with({{"node_groups", groups}, {"eksctl", "c.yaml"}})) ==
        "T/s.json: /cluster: expected exactly one of 'node_groups', 'eksctl', found 2 (nodes_from may be given with either)");
  CHECK(error_of(scenario_with({{"name", "x"}})) ==
        "T/s.json: /cluster: expected one of 'node_groups', 'eksctl', 'nodes_from' (kubectl Node objects), found none");
  // A kubelet reservation has nothing to apply to: allocatable is the objects'.
  CHECK(error_of(scenario_with({{"nodes_from", {kFix + "nodes.json"}}, {"kubelet_reserved", {{"formula", "eks-ami"}, {"source", "test"}}}})) ==
        "T/s.json: /cluster/kubelet_reserved: applies to /cluster/node_groups, and the cluster has none: the nodes of "
        "/cluster/nodes_from have their allocatable from their Node objects (status.allocatable, the kubelet's reservation "
        "already taken)");
}

TEST_CASE("nodes_from: bad input is refused naming the file and the JSON path (or line)") {
  const json doc = scenario_with({{"nodes_from", {"nodes.json"}}});
  const json list = json::parse(slurp(kFix + "nodes.json"));
  // A missing file: the key, the path as written and where it was looked for.
  {
    const std::string e = error_of(doc);
    CHECK_MESSAGE(e.rfind("T/s.json: /cluster/nodes_from/0: ", 0) == 0, e);
    CHECK_MESSAGE(e.find("nodes.json") != std::string::npos, e);
  }
  // A Pod and a Service among the Nodes (kubectl get nodes,pods,services -o json): the file's
  // Nodes are read, the rest is left to the keys that read it (none here).
  {
    json l = list;
    l["items"].push_back({{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                          {"spec", {{"nodeName", "x"}, {"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}});
    l["items"].push_back({{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "s"}}}});
    auto loaded = load(doc, {{"nodes.json", l.dump(4)}});
    CHECK(loaded->sc.training.node_groups.size() == list["items"].size());
    CHECK_FALSE(loaded->sc.pods_from.has_value());
  }
  // A file without a Node says which keys read what it holds.
  {
    json l = list;
    l["items"] = json::array({{{"apiVersion", "v1"},
                               {"kind", "Pod"},
                               {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                               {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}},
                              {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", "q"}}}}});
    CHECK(error_of(doc, {{"nodes.json", l.dump(4)}}) ==
          "T/s.json: /cluster/nodes_from/0: 'nodes.json' holds no Node (expected what `kubectl get nodes -o json` prints; its Queues by "
          "/queues_from)");
  }
  // A malformed quantity.
  {
    json l = list;
    l["items"][2]["status"]["allocatable"]["memory"] = "7179624KiB";
    const std::string e = error_of(doc, {{"nodes.json", l.dump(4)}});
    CHECK_MESSAGE(e.rfind("T/nodes.json: /items/2/status/allocatable/memory: ", 0) == 0, e);
    CHECK_MESSAGE(e.find("(read as T/s.json: /cluster/nodes_from/0)") != std::string::npos, e);
  }
  // The same in YAML: the document and the JSON path inside it.
  {
    std::string y = slurp(kFix + "nodes.yaml");
    const std::string from = "cpu: 1930m";
    const std::size_t at = y.find(from);
    REQUIRE(at != std::string::npos);
    y = y.substr(0, at) + "cpu: 1930mm" + y.substr(at + from.size());
    // The line and column of the value, counted in the text.
    const std::size_t line = static_cast<std::size_t>(std::count(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
    const std::size_t column = at - (y.rfind('\n', at) + 1) + std::string("cpu: ").size() + 1;
    const std::string e = error_of(scenario_with({{"nodes_from", {"nodes.yaml"}}}), {{"nodes.yaml", y}});
    CHECK_MESSAGE(e.rfind("T/nodes.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": /items/2/status/allocatable/cpu: ", 0) == 0, e);
  }
  // A JSON syntax error: line and column.
  {
    const std::string e = error_of(doc, {{"nodes.json", "{\"kind\": \"List\",\n \"items\": [\n  {\"kind\": \"Node\",}\n]}"}});
    CHECK_MESSAGE(e.rfind("T/nodes.json:3:", 0) == 0, e);
  }
  // A Node twice (two files naming one node).
  CHECK(error_of(scenario_with({{"nodes_from", {"nodes.json", "again.json"}}}), {{"nodes.json", list.dump(4)}, {"again.json", list["items"][1].dump(4)}}) ==
        "T/again.json: /: a second Node named '" + kB + "' (the first: T/nodes.json: /items/1)");
  // A Node without an instance-type label.
  {
    json l = list;
    l["items"][0]["metadata"]["labels"].erase("node.kubernetes.io/instance-type");
    l["items"][0]["metadata"]["labels"].erase("beta.kubernetes.io/instance-type");
    CHECK(error_of(doc, {{"nodes.json", l.dump(4)}}) ==
          "T/nodes.json: /items/0/metadata/labels: Node '" + kA +
              "' has no instance type label (node.kubernetes.io/instance-type, or the deprecated beta.kubernetes.io/instance-type), "
              "which EKS sets on every node");
  }
  // A file with no Node.
  CHECK(error_of(doc, {{"nodes.json", R"({"apiVersion": "v1", "kind": "List", "items": [], "metadata": {"resourceVersion": ""}})"}}) ==
        "T/s.json: /cluster/nodes_from/0: 'nodes.json' holds no Node (expected what `kubectl get nodes -o json` prints)");
  // /fabric needs each node's EFA interfaces from the catalog.
  {
    json f = scenario_with({{"nodes_from", {kFix + "nodes.json"}}});
    f["fabric"] = {{"efa", {{"gbps_per_interface", 100}, {"latency", "15us"}, {"source", "test"}}}, {"neuronlink", json::array()}};
    const std::string e = error_of(f);
    CHECK_MESSAGE(e.rfind("T/s.json: /fabric: needs each node's EFA interfaces and NeuronLink topology from the catalog, and the Node " +
                              kFix + "nodes.json: /items/2 (" + kC + ", m7i.large) is of an instance type it does not have",
                          0) == 0,
                  e);
  }
}

TEST_CASE("nodes_from: a Spot node (EKS's capacityType label) runs On-Demand, with a warning saying so") {
  json list = json::parse(slurp(kFix + "nodes.json"));
  list["items"][1]["metadata"]["labels"]["eks.amazonaws.com/capacityType"] = "SPOT";
  auto l = load(scenario_with({{"nodes_from", {"nodes.json"}}}), {{"nodes.json", list.dump(4)}});
  REQUIRE(l->sc.warnings.size() == 2);
  CHECK(l->sc.warnings[0] == l->path + ": /cluster/nodes_from: node(s) " + kB +
                                 " are Spot (label eks.amazonaws.com/capacityType SPOT): the twin runs them as On-Demand nodes, at "
                                 "the on-demand price and never interrupted (Spot nodes of nodes_from are not modelled yet)");
  CHECK(models::node_usd_per_hour(l->sc.training.catalog, group_of(l->sc.training, kB), models::NodeLaunch{}) == 21.5);
}

TEST_CASE("queues_from: a file without a Queue (Nodes, PodGroups, ...) says which keys read what it holds") {
  json doc = scenario_with({{"nodes_from", {kFix + "nodes.json"}}});
  doc.erase("queues");
  doc["queues_from"] = {"nodes.yaml"};
  // queues_from skips the Nodes (a kubectl export of several kinds serves several keys), then
  // finds no Queue and says which key reads what the file holds.
  CHECK(error_of(doc, {{"nodes.yaml", slurp(kFix + "nodes.yaml")}}) ==
        "T/s.json: /queues_from/0: 'nodes.yaml' holds no Queue (it holds 3 Node(s): Nodes are read from /cluster/nodes_from)");
  // The same for each kind it skips: the keys that read them.
  const json other = {{"apiVersion", "v1"},
                      {"kind", "List"},
                      {"items",
                       {{{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"}, {"metadata", {{"name", "g"}}}, {"spec", {{"minMember", 1}}}},
                        {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "p"}}}, {"value", 1}},
                        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "volcano-scheduler-configmap"}}}}}}};
  doc["queues_from"] = {"other.json"};
  CHECK(error_of(doc, {{"other.json", other.dump(2)}}) ==
        "T/s.json: /queues_from/0: 'other.json' holds no Queue (it holds 1 ConfigMap(s), 1 PodGroup(s), 1 PriorityClass(s): Pods and "
        "PodGroups from /cluster/pods_from; PriorityClasses from /cluster/pods_from or /workload/manifests; the volcano-scheduler "
        "ConfigMap from /volcano/scheduler_config)");
}

TEST_CASE("kubectl get queues -o json: the List reads as queues_from, Volcano's own root and default queues included") {
  // scheduling.volcano.sh/v1beta1 Queue as the API server returns it (Volcano v1.12.1's CRD:
  // spec.weight, reclaimable, parent; status.state, allocated), the List kubectl prints.
  auto queue = [](const std::string& name, const std::string& parent) {
    json spec = {{"reclaimable", parent.empty() ? false : true}, {"weight", 1}};
    if (!parent.empty()) spec["parent"] = parent;
    return json{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata",
                 {{"creationTimestamp", "2026-11-30T08:10:02Z"}, {"generation", 1}, {"name", name}, {"resourceVersion", "1204"},
                  {"uid", "2f1d0c3b-4a5e-4f6d-8b7c-9d0e1f2a3b4" + std::to_string(name.size())}}},
                {"spec", spec},
                {"status", {{"allocated", {{"cpu", "0"}, {"memory", "0"}}}, {"reservation", json::object()}, {"state", "Open"}}}};
  };
  const json list = {{"apiVersion", "v1"},
                     {"kind", "List"},
                     {"metadata", {{"resourceVersion", ""}}},
                     {"items", {queue("root", ""), queue("default", "root")}}};
  json doc = scenario_with({{"nodes_from", {kFix + "nodes.json"}}});
  doc.erase("queues");
  doc["queues_from"] = {"queues.json"};
  auto l = load(doc, {{"queues.json", list.dump(4)}});
  REQUIRE(l->sc.training.queues.size() == 2);
  CHECK(l->sc.training.queues[0].name == "root");
  CHECK(l->sc.training.queues[1].name == "default");
  CHECK(l->sc.training.queues[1].parent == "root");
}
