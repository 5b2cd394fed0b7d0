// /cluster/pods_from: a training scenario's jobs and held pods from what `kubectl get
// pods,podgroups -A -o json` prints. The fixture, tests/io/fixtures/kubectl/pods.json, is a
// hand-built `v1 List` (invented names and UIDs) in the shapes of the Kubernetes API reference's
// core/v1 Pod (kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/: metadata
// with annotations and ownerReferences; spec.schedulerName, nodeName, containers with env and
// resources, initContainers, tolerations, priorityClassName; status.phase, startTime,
// conditions) and Volcano's PodGroup (scheduling.volcano.sh/v1beta1: spec.minMember,
// minResources, queue; status.phase), on the Nodes of tests/io/fixtures/kubectl/nodes.json:
//   - PodGroup ml/llama-1x32-5c1e... Running, annotation mltwin.io/duration "1h", created
//     17:29:40Z; its pod llama-1x32-worker-0 (scheduler volcano) Running on ip-10-42-3-10 since
//     status.startTime 17:30:00Z, requests cpu 120, memory 480Gi, neurondevice 16, efa 8,
//     tolerating the Neuron taint; its env holds an (invented) token;
//   - PodGroup ml/bert-1x32-8e2d... Inqueue, annotation "20m"; its pod Pending, no node;
//   - kube-system/aws-node-x7k2p, a DaemonSet's (default-scheduler) on ip-10-42-3-10: containers
//     cpu 25m, one init container cpu 25m (the larger of the two: 25m);
//   - kube-system/coredns-..., a ReplicaSet's, on ip-10-42-9-5: cpu 100m, memory 70Mi;
//   - ml/data-prep-1-fj3kd, Succeeded on ip-10-42-9-5: ignored.
// With now = 18:00:00Z, by hand: llama started 1800 s before t0 (18:00 - 17:30), runs 1 h in
// all, so 1800 s remain; bert runs 1200 s; 480Gi = 480 x 2^30 = 515396075520 bytes; 70Mi =
// 70 x 2^20 = 73400320 bytes. pods.yaml is the same List as -o yaml prints it.
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/io/scenario.hpp"
#include "mltwin/k8s/snapshot.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;

namespace {

const std::string kFix = std::string(MLTWIN_SOURCE_DIR) + "/tests/io/fixtures/kubectl/";
const std::string kA = "ip-10-42-3-10.us-west-2.compute.internal";
const std::string kC = "ip-10-42-9-5.us-west-2.compute.internal";
const std::string kLlama = "llama-1x32-5c1e9a27-0d4b-4f1e-9b8a-2f6c7d8e9a01";
const std::string kBert = "bert-1x32-8e2d4c6a-1b3f-4d5e-a6b7-c8d9e0f1a2b3";
// Their Volcano Jobs' names: Volcano names a Job's PodGroup <job>-<job UID>
// (job_controller_util.go:113), and the job is named after the Job.
const std::string kLlamaJob = "llama-1x32";
const std::string kBertJob = "bert-1x32";
constexpr std::int64_t kS = 1'000'000'000;

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

/// scenarios/eks-kubectl-pods.json with its files replaced by the fixtures (absolute paths) or,
/// for `pods`, a name beside the scenario.
json scenario(const std::string& pods = kFix + "pods.json") {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-kubectl-pods.json");
  REQUIRE(in.good());
  json d = json::parse(in);
  d.erase("$schema");
  d["cluster"]["nodes_from"] = json::array({kFix + "nodes.json"});
  d["cluster"]["pods_from"]["files"] = json::array({pods});
  return d;
}

struct Loaded {
  test::TempDir dir;
  io::LoadedScenario sc;
};

std::unique_ptr<Loaded> load(const json& doc, const std::vector<std::pair<std::string, std::string>>& files = {},
                             std::optional<std::uint64_t> seed = std::nullopt) {
  auto l = std::make_unique<Loaded>();
  for (const auto& [name, text] : files) write_text(l->dir.file(name), text);
  const std::string p = l->dir.file("s.json");
  write_text(p, doc.dump(2));
  io::LoadOptions o;
  o.seed = seed;
  l->sc = io::load_scenario(p, o);
  return l;
}

/// The error loading `doc` (files beside it), the folder's path replaced by "T".
std::string error_of(const json& doc, const std::vector<std::pair<std::string, std::string>>& files = {}) {
  test::TempDir d;
  for (const auto& [name, text] : files) write_text(d.file(name), text);
  const std::string p = d.file("s.json");
  write_text(p, doc.dump(2));
  try {
    (void)io::load_scenario(p);
  } catch (const io::ScenarioError& e) {
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

const models::TrainingJobSpec& job(const models::TrainingScenario& sc, const std::string& name) {
  for (const auto& j : sc.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return sc.jobs.front();
}

}  // namespace

TEST_CASE("pods_from: the running PodGroup runs at t0 on its pod's node, the pending one is submitted at 0s, other pods hold their nodes") {
  auto l = load(scenario());
  const models::TrainingScenario& sc = l->sc.training;
  REQUIRE(sc.jobs.size() == 2);
  const models::TrainingJobSpec& llama = job(sc, kLlamaJob);
  CHECK(llama.queue == "default");
  CHECK(llama.nnodes == 1);
  CHECK_FALSE(llama.independent_pods());
  CHECK(llama.cpu_per_pod == 120.0);
  CHECK(llama.memory_bytes_per_pod == 515396075520.0);
  CHECK(llama.neuron_devices_per_pod == 16);
  CHECK(llama.efa_per_pod == 8);
  CHECK(llama.tolerations.size() == 2);
  REQUIRE(llama.initial != nullptr);
  CHECK(llama.initial->elapsed.count_ns() == 1800 * kS);
  CHECK(llama.initial->remaining.count_ns() == 1800 * kS);
  CHECK(llama.initial->nodes == std::vector<std::string>{kA});
  CHECK(llama.duration.count_ns() == 3600 * kS);

  const models::TrainingJobSpec& bert = job(sc, kBertJob);
  CHECK(bert.initial == nullptr);
  CHECK(bert.submit.ns() == 0);
  REQUIRE(bert.tasks.size() == 1);
  CHECK(bert.tasks[0].replicas == 1);
  CHECK(bert.tasks[0].duration.count_ns() == 1200 * kS);
  CHECK(bert.min_available == 1);

  // aws-node and coredns: one DaemonSet each, on their node only.
  REQUIRE(sc.daemonsets.size() == 2);
  CHECK(sc.daemonsets[0].name == "pods-on-" + kA);
  CHECK(sc.daemonsets[0].requests.milli_cpu == 25);
  CHECK(sc.daemonsets[0].requests.memory == 0);
  CHECK(sc.daemonsets[1].name == "pods-on-" + kC);
  CHECK(sc.daemonsets[1].requests.milli_cpu == 100);
  CHECK(sc.daemonsets[1].requests.memory == 73400320.0);

  REQUIRE(l->sc.pods_from.has_value());
  const io::PodsFromUse& u = *l->sc.pods_from;
  CHECK(u.files == 1);
  CHECK(u.now == "2026-12-06T18:00:00Z");
  CHECK(u.running_jobs == 1);
  CHECK(u.pending_jobs == 1);
  CHECK(u.other_pods == 2);
  CHECK(u.held_nodes == 2);
  CHECK(u.ignored_finished == 1);
  CHECK(u.model == "annotation");
}

TEST_CASE("pods_from: the same List as -o yaml prints it (tests/io/fixtures/kubectl/pods.yaml) gives the same jobs") {
  auto l = load(scenario(kFix + "pods.yaml"));
  const models::TrainingScenario& sc = l->sc.training;
  REQUIRE(sc.jobs.size() == 2);
  CHECK(job(sc, kLlamaJob).initial->remaining.count_ns() == 1800 * kS);
  CHECK(job(sc, kLlamaJob).memory_bytes_per_pod == 515396075520.0);
  CHECK(job(sc, kBertJob).tasks[0].duration.count_ns() == 1200 * kS);
  REQUIRE(sc.daemonsets.size() == 2);
  CHECK(sc.daemonsets[1].requests.memory == 73400320.0);
}

TEST_CASE("pods_from: an error in a YAML file gives the line and column, then the JSON path") {
  // bert's PodGroup (the second "queue: default" of pods.yaml) in a queue the scenario lacks:
  // the error's line and column are those of the value, counted in the text here.
  std::string y = slurp(kFix + "pods.yaml");
  const std::string from = "queue: default";
  const std::size_t at = y.find(from, y.find(from) + 1);
  REQUIRE(at != std::string::npos);
  y = y.substr(0, at) + "queue: research" + y.substr(at + from.size());
  const std::size_t line = static_cast<std::size_t>(std::count(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  const std::size_t column = at - (y.rfind('\n', at) + 1) + std::string("queue: ").size() + 1;
  const std::string e = error_of(scenario("pods.yaml"), {{"pods.yaml", y}});
  CHECK(e == "T/pods.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": /items/2/spec/queue: PodGroup 'ml/" + kBert +
                 "': queue 'research' is not defined in T/s.json (/queues or /queues_from; the leaf queues a job can name: default) (read as "
                 "T/s.json: /cluster/pods_from)");
}

TEST_CASE("pods_from: the fixed model; now defaults to the newest timestamp read") {
  json d = scenario();
  d["cluster"]["pods_from"].erase("now");
  d["cluster"]["pods_from"]["duration"] = {{"model", "fixed"}, {"duration", "45m"}, {"source", "test"}};
  auto l = load(d);
  const models::TrainingScenario& sc = l->sc.training;
  // The newest: bert's pod's creationTimestamp 17:58:03Z; llama started 1683 s before it.
  CHECK(l->sc.pods_from->now == "2026-12-06T17:58:03Z");
  const models::TrainingJobSpec& llama = job(sc, kLlamaJob);
  CHECK(llama.initial->elapsed.count_ns() == 1683 * kS);
  CHECK(llama.initial->remaining.count_ns() == 45 * 60 * kS);  // the fixed model: what remains
  CHECK(job(sc, kBertJob).tasks[0].duration.count_ns() == 45 * 60 * kS);
}

TEST_CASE("pods_from: a PodGroup without pods is sized by minResources / minMember; a pod being deleted is ignored") {
  json list = json::parse(slurp(kFix + "pods.json"));
  // bert's PodGroup before Volcano's job controller made its pods: minMember 2, minResources for
  // both: each pod requests 240 / 2 = 120 cpu and 960Gi / 2 = 480Gi = 515396075520 bytes.
  list["items"].erase(3);
  list["items"][2]["spec"]["minMember"] = 2;
  list["items"][2]["spec"]["minResources"] = {{"cpu", "240"}, {"memory", "960Gi"}, {"aws.amazon.com/neurondevice", "32"}, {"vpc.amazonaws.com/efa", "16"}};
  // coredns (now items[4]) being deleted.
  list["items"][4]["metadata"]["deletionTimestamp"] = "2026-12-06T17:59:50Z";
  auto l = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  const models::TrainingJobSpec& bert = job(l->sc.training, kBertJob);
  REQUIRE(bert.tasks.size() == 1);
  CHECK(bert.tasks[0].replicas == 2);
  CHECK(bert.min_available == 2);
  CHECK(bert.cpu_per_pod == 120.0);
  CHECK(bert.memory_bytes_per_pod == 515396075520.0);
  CHECK(bert.neuron_devices_per_pod == 16);
  CHECK(bert.efa_per_pod == 8);
  CHECK(l->sc.pods_from->ignored_deleting == 1);
  CHECK(l->sc.pods_from->other_pods == 1);
  REQUIRE(l->sc.training.daemonsets.size() == 1);
  CHECK(l->sc.training.daemonsets[0].name == "pods-on-" + kA);
}

TEST_CASE("pods_from: the median_finished model: a pending job's run time is the median, a running job's remaining is conditional") {
  // scenarios/history/jobs.csv: the 7 finished run times (s) 1800, 2311.5, 2508, 12600, 22288,
  // 23280, 27000; the median, 12600 s, is bert's (pending) run time. llama has run 18:00:00 -
  // 17:30:00 = 1800 s by now: the run times longer than 1800 s are the 6 from 2311.5 on, their
  // median (12600 + 22288) / 2 = 17444 s its whole run time, 17444 - 1800 = 15644 s what remains.
  json d = scenario();
  d["cluster"]["pods_from"]["duration"] = {
      {"model", "median_finished"}, {"history", std::string(MLTWIN_SOURCE_DIR) + "/scenarios/history/jobs.csv"}, {"source", "test"}};
  auto l = load(d);
  const models::TrainingScenario& sc = l->sc.training;
  CHECK(job(sc, kLlamaJob).initial->remaining.count_ns() == 15644 * kS);
  CHECK(job(sc, kLlamaJob).duration.count_ns() == 17444 * kS);
  CHECK(job(sc, kBertJob).tasks[0].duration.count_ns() == 12600 * kS);
  CHECK(l->sc.pods_from->from_jobs == 7);
  CHECK(l->sc.pods_from->conditional == 1);
  CHECK(l->sc.pods_from->fallback == 0);
  CHECK(l->sc.pods_from->fixed == "12600 s");
  // Had llama run 8 h (28,800 s, longer than every finished job): the fallback, as long again.
  json late = d;
  late["cluster"]["pods_from"]["now"] = "2026-12-07T01:30:00Z";  // 17:30 + 8 h
  auto f = load(late);
  CHECK(job(f->sc.training, kLlamaJob).initial->remaining.count_ns() == 28800 * kS);
  CHECK(f->sc.pods_from->fallback == 1);
  CHECK(f->sc.pods_from->describe().find("1 running conditional on their time run, 1 of them past every finished run time") !=
        std::string::npos);
  d["cluster"]["pods_from"]["duration"].erase("history");
  CHECK(error_of(d) == "T/s.json: /cluster/pods_from/duration/history: the median_finished model needs a job history (workload.history's format)");
}

TEST_CASE("pods_from: the history_distribution model draws each run time from the history's finished ones, by the run seed") {
  json d = scenario();
  d["cluster"]["pods_from"]["duration"] = {
      {"model", "history_distribution"}, {"history", std::string(MLTWIN_SOURCE_DIR) + "/scenarios/history/jobs.csv"}, {"source", "test"}};
  const std::set<std::int64_t> finished = {1800 * kS, 2311 * kS + kS / 2, 2508 * kS, 12600 * kS, 22288 * kS, 23280 * kS, 27000 * kS};
  std::set<std::int64_t> llama_runs, bert_runs;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto l = load(d, {}, seed);
    const models::TrainingJobSpec& llama = job(l->sc.training, kLlamaJob);
    // Whole run time = time run (1800 s) + remaining: one of the finished run times above 1800 s.
    const std::int64_t whole = llama.initial->elapsed.count_ns() + llama.initial->remaining.count_ns();
    CHECK(finished.count(whole) == 1);
    CHECK(whole > 1800 * kS);
    llama_runs.insert(whole);
    const std::int64_t b = job(l->sc.training, kBertJob).tasks[0].duration.count_ns();
    CHECK(finished.count(b) == 1);
    bert_runs.insert(b);
    CHECK(l->sc.pods_from->seed == seed);
    CHECK(l->sc.pods_from->conditional == 1);
    // The same seed draws the same.
    auto again = load(d, {}, seed);
    CHECK(job(again->sc.training, kLlamaJob).initial->remaining == llama.initial->remaining);
    CHECK(job(again->sc.training, kBertJob).tasks[0].duration.count_ns() == b);
  }
  // 40 seeds vary the draws: the chance that 40 uniform draws from 7 (6) values all coincide is
  // 7^-39 (6^-39).
  CHECK(bert_runs.size() > 1);
  CHECK(llama_runs.size() > 1);
}

TEST_CASE("pods_from: a pod's nodeAffinity is the job's") {
  json list = json::parse(slurp(kFix + "pods.json"));
  // bert's pod asks for the zone of the trn1 nodes (us-west-2d).
  list["items"][3]["spec"]["affinity"] = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         {{"nodeSelectorTerms",
           json::array({{{"matchExpressions", json::array({{{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {"us-west-2d"}}}})}}})}}}}}};
  auto l = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  const models::TrainingJobSpec& bert = job(l->sc.training, kBertJob);
  REQUIRE(bert.node_affinity.has_required);
  REQUIRE(bert.node_affinity.required.size() == 1);
  REQUIRE(bert.node_affinity.required[0].match_expressions.size() == 1);
  CHECK(bert.node_affinity.required[0].match_expressions[0].key == "topology.kubernetes.io/zone");
  CHECK(bert.node_affinity.required[0].match_expressions[0].values == std::vector<std::string>{"us-west-2d"});
  CHECK(job(l->sc.training, kLlamaJob).node_affinity.empty());
}

TEST_CASE("pods_from: one file serves nodes_from and pods_from (kubectl get nodes,pods,podgroups -A -o json)") {
  json all = json::parse(slurp(kFix + "nodes.json"));
  const json pods = json::parse(slurp(kFix + "pods.json"));
  for (const auto& o : pods["items"]) all["items"].push_back(o);
  json d = scenario("all.json");
  d["cluster"]["nodes_from"] = json::array({"all.json"});
  auto l = load(d, {{"all.json", all.dump(2)}});
  CHECK(l->sc.training.jobs.size() == 2);
  CHECK(l->sc.training.node_groups.size() == 3);
}

TEST_CASE("pods_from: env values, other annotations and managedFields are not kept") {
  json list = json::parse(slurp(kFix + "pods.json"));
  // An env that is not even a list: dropped while parsing, never read.
  list["items"][1]["spec"]["containers"][0]["env"] = 5;
  list["items"][1]["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}, {"fieldsV1", {{"f:spec", json::object()}}}}});
  list["items"][1]["metadata"]["annotations"]["secret.example.com/token"] = "s3cr3t";
  k8s::Snapshot snap;
  k8s::ReadOptions ro;
  ro.pod_details = true;
  ro.keep_annotations = {"mltwin.io/duration"};
  k8s::read_json(list.dump(), "pods.json", snap, ro);
  const k8s::PodDetails& d = snap.pod_details.at("ml/llama-1x32-worker-0");
  CHECK(d.annotations.empty());  // only the named key is kept, and the pod has none
  CHECK(d.phase == "Running");
  CHECK(d.start == k8s::parse_rfc3339("2026-12-06T17:30:00Z"));
  CHECK(snap.pod_details.at("kube-system/aws-node-x7k2p").controller_kind == "DaemonSet");
  CHECK(snap.podgroup_annotations.at("ml/" + kLlama).at("mltwin.io/duration") == "1h");
  CHECK(snap.podgroup_annotations.at("ml/" + kLlama).size() == 1);
}

TEST_CASE("pods_from: bad input is refused naming the file and the JSON path") {
  const json list = json::parse(slurp(kFix + "pods.json"));
  const json d = scenario("pods.json");
  auto err = [&](const json& l) { return error_of(d, {{"pods.json", l.dump(2)}}); };
  const std::string as = " (read as T/s.json: /cluster/pods_from)";
  {  // a pod on a node the scenario does not have
    json l = list;
    l["items"][1]["spec"]["nodeName"] = "ip-10-42-3-99.us-west-2.compute.internal";
    const std::string e = err(l);
    CHECK_MESSAGE(e.rfind("T/pods.json: /items/1/spec/nodeName: pod 'ml/llama-1x32-worker-0' runs on node "
                          "'ip-10-42-3-99.us-west-2.compute.internal', which the scenario does not have (",
                          0) == 0,
                  e);
  }
  {  // a pod naming a PodGroup the files lack
    json l = list;
    l["items"][3]["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = "gone";
    CHECK(err(l) == "T/pods.json: /items/3/metadata/annotations/scheduling.k8s.io~1group-name: pod 'ml/bert-1x32-worker-0' names PodGroup "
                    "'ml/gone', which no file of /cluster/pods_from holds (export them together: kubectl get pods,podgroups -A -o json)" + as);
  }
  {  // a queue the scenario does not have
    json l = list;
    l["items"][2]["spec"]["queue"] = "research";
    CHECK(err(l) == "T/pods.json: /items/2/spec/queue: PodGroup 'ml/" + kBert + "': queue 'research' is not defined in T/s.json (/queues or "
                    "/queues_from; the leaf queues a job can name: default)" + as);
  }
  {  // the choices offered are the leaves: not root, not a parent
    json dd = d;
    dd["queues"] = {{{"name", "default"}, {"weight", 1}},
                    {{"name", "root"}, {"weight", 1}},
                    {{"name", "org"}, {"weight", 1}, {"parent", "root"}},
                    {{"name", "team"}, {"weight", 1}, {"parent", "org"}}};
    json l = list;
    l["items"][2]["spec"]["queue"] = "research";
    CHECK(error_of(dd, {{"pods.json", l.dump(2)}}) ==
          "T/pods.json: /items/2/spec/queue: PodGroup 'ml/" + kBert + "': queue 'research' is not defined in T/s.json (/queues or "
          "/queues_from; the leaf queues a job can name: default, team)" + as);
  }
  {  // a PriorityClass the scenario does not have
    json l = list;
    l["items"][2]["spec"]["priorityClassName"] = "urgent";
    const std::string e = err(l);
    CHECK_MESSAGE(e.rfind("T/pods.json: /items/2/spec/priorityClassName: PodGroup 'ml/" + kBert + "': PriorityClass 'urgent' is not defined", 0) == 0, e);
  }
  {  // a PriorityClass of the files with another value than the scenario's class of that name
    json dd = d;
    dd["priority_classes"] = {{{"name", "urgent"}, {"value", 400}}};
    json l = list;
    l["items"].push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "urgent"}}}, {"value", 500}});
    CHECK(error_of(dd, {{"pods.json", l.dump(2)}}) ==
          "T/pods.json: /items/7: PriorityClass 'urgent' (value 500) is already defined otherwise (T/s.json: /priority_classes/0)" + as);
  }
  {  // no room: the running pod asks for more than its node's allocatable (127610m cpu)
    json l = list;
    l["items"][1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "128";
    const std::string e = err(l);
    CHECK_MESSAGE(e.rfind("T/pods.json: /items/0: PodGroup 'ml/" + kLlama + "': node " + kA + " has {", 0) == 0, e);
    CHECK_MESSAGE(e.find("(T/s.json: /initial_state/running/0/nodes/0, as read from it)") != std::string::npos, e);
  }
  {  // the annotation missing, malformed, or shorter than the time already run
    json l = list;
    l["items"][2]["metadata"]["annotations"].erase("mltwin.io/duration");
    CHECK(err(l) == "T/pods.json: /items/2/metadata/annotations: PodGroup 'ml/" + kBert +
                        "': neither it nor its pods have the annotation 'mltwin.io/duration' that the duration model names "
                        "(/cluster/pods_from/duration)" + as);
    l["items"][2]["metadata"]["annotations"]["mltwin.io/duration"] = "20 minutes";
    const std::string e = err(l);
    CHECK_MESSAGE(e.rfind("T/pods.json: /items/2/metadata/annotations/mltwin.io~1duration: '20 minutes' is not a Go duration", 0) == 0, e);
    l = list;
    l["items"][0]["metadata"]["annotations"]["mltwin.io/duration"] = "25m";
    CHECK(err(l) == "T/pods.json: /items/0/metadata/annotations/mltwin.io~1duration: PodGroup 'ml/" + kLlama +
                        "' has run 1800 s by 2026-12-06T18:00:00Z, its annotation 'mltwin.io/duration' says 1500 s in all: it should have "
                        "ended" + as);
  }
  {  // a volcano pod without the PodGroup annotation
    json l = list;
    l["items"][3]["metadata"]["annotations"].erase("scheduling.k8s.io/group-name");
    CHECK(err(l) == "T/pods.json: /items/3/metadata/annotations: pod 'ml/bert-1x32-worker-0' of scheduler volcano has no annotation "
                    "scheduling.k8s.io/group-name (Volcano's controller gives every such pod a PodGroup: export the PodGroups too)" + as);
  }
  {  // a PodGroup partly running: bert's pod moved into llama's group beside llama's running pod
    json l = list;
    l["items"][3]["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = kLlama;
    CHECK(err(l) == "T/pods.json: /items/0: PodGroup 'ml/" + kLlama + "' has 1 pod(s) on nodes and 1 without: a partly running PodGroup is "
                    "not modelled yet" + as);
  }
  {  // a Queue in the file is /queues_from's: a PodGroup naming it, the file not listed there, says so
    json l = list;
    l["items"].push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", "q"}}}, {"spec", {{"weight", 1}}}});
    l["items"][2]["spec"]["queue"] = "q";
    CHECK(err(l) == "T/pods.json: /items/2/spec/queue: PodGroup 'ml/" + kBert + "': queue 'q' is not defined in T/s.json (T/pods.json: /items/7 "
                    "holds it: list that file under /queues_from too, which reads the Queues of a kubectl export)" + as);
  }
  {  // a malformed startTime: the reader's own error, with the scenario's key
    json l = list;
    l["items"][1]["status"]["startTime"] = "yesterday";
    CHECK(err(l) == "T/pods.json: /items/1/status/startTime: 'yesterday' is not an RFC 3339 time such as 2024-05-01T12:00:00Z (read as T/s.json: "
                    "/cluster/pods_from/files/0)");
  }
  {  // the fixed model without its duration
    json dd = d;
    dd["cluster"]["pods_from"]["duration"] = {{"model", "fixed"}, {"source", "test"}};
    CHECK(error_of(dd, {{"pods.json", list.dump()}}) == "T/s.json: /cluster/pods_from/duration/duration: the fixed model needs a duration (e.g. \"2h\")");
  }
}

TEST_CASE("pods_from: the files' PriorityClasses are the scenario's (kubectl get ...,priorityclasses), Kubernetes' system ones built in") {
  // bert's PodGroup names 'urgent' (value 500), which only the export defines; the export also
  // lists Kubernetes' system-cluster-critical (value 2000000000, as the API server creates it)
  // and 'low' (value 10), which the scenario defines too with the same value: no conflict.
  json l = json::parse(slurp(kFix + "pods.json"));
  l["items"][2]["spec"]["priorityClassName"] = "urgent";
  l["items"].push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "urgent"}}}, {"value", 500},
                        {"preemptionPolicy", "Never"}});
  l["items"].push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "system-cluster-critical"}}},
                        {"value", 2000000000}});
  l["items"].push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "low"}}}, {"value", 10}});
  json d = scenario("pods.json");
  d["priority_classes"] = {{{"name", "low"}, {"value", 10}}};
  auto loaded = load(d, {{"pods.json", l.dump(2)}});
  const models::TrainingJobSpec& bert = job(loaded->sc.training, kBertJob);
  CHECK(bert.priority_class == "urgent");
  CHECK(bert.priority == 500);
  CHECK(bert.preempt_never);  // the class's preemptionPolicy Never
  CHECK(job(loaded->sc.training, kLlamaJob).priority == 0);
}

TEST_CASE("pods_from: one `kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json` file serves nodes_from, pods_from and queues_from") {
  // The fixtures' Nodes and Pods/PodGroups in one List with Volcano's root and default Queues
  // and a PriorityClass, listed unedited under the three keys: each reads its own kinds.
  json all = json::parse(slurp(kFix + "nodes.json"));
  const json pods = json::parse(slurp(kFix + "pods.json"));
  for (const auto& o : pods["items"]) all["items"].push_back(o);
  for (const char* q : {"root", "default"})
    all["items"].push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                            {"kind", "Queue"},
                            {"metadata", {{"name", q}, {"uid", std::string("uid-") + q}}},
                            {"spec", {{"weight", 1}, {"reclaimable", true}}},
                            {"status", {{"state", "Open"}}}});
  all["items"].push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "batch"}}}, {"value", 100}});
  all["items"][3 + 2]["spec"]["priorityClassName"] = "batch";  // bert's PodGroup: after the 3 Nodes, the pods fixture's items[2]
  json d = scenario("all.json");
  d["cluster"]["nodes_from"] = json::array({"all.json"});
  d.erase("queues");
  d["queues_from"] = json::array({"all.json"});
  auto loaded = load(d, {{"all.json", all.dump(2)}});
  const models::TrainingScenario& sc = loaded->sc.training;
  CHECK(sc.node_groups.size() == 3);  // the 3 Nodes
  REQUIRE(sc.queues.size() == 2);
  CHECK(sc.queues[0].name == "root");
  CHECK(sc.queues[1].name == "default");
  REQUIRE_MESSAGE(sc.jobs.size() == 2, (loaded->sc.pods_from ? loaded->sc.pods_from->describe() : std::string("no pods_from")));
  CHECK(job(sc, kBertJob).priority == 100);
  CHECK(job(sc, kLlamaJob).queue == "default");
}

TEST_CASE("pods_from: a job is named after its Volcano Job: the PodGroup's name less -<job UID>, only when that is a UUID") {
  // Volcano names a Job's PodGroup <job name>-<job UID> (job_controller_util.go:113, v1.12.1).
  json list = json::parse(slurp(kFix + "pods.json"));
  // bert's PodGroup (and its pod's annotation) named otherwise: 'Z' is not a hex digit, and a
  // name with no UUID at all.
  const std::string not_uuid = "bert-1x32-8e2d4c6a-1b3f-4d5e-a6b7-c8d9e0f1a2bg";
  list["items"][2]["metadata"]["name"] = not_uuid;
  list["items"][3]["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = not_uuid;
  auto l = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  std::set<std::string> names;
  for (const auto& j : l->sc.training.jobs) names.insert(j.name);
  CHECK(names == std::set<std::string>{kLlamaJob, not_uuid});
  list["items"][2]["metadata"]["name"] = "eval";
  list["items"][3]["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = "eval";
  l = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  names.clear();
  for (const auto& j : l->sc.training.jobs) names.insert(j.name);
  CHECK(names == std::set<std::string>{kLlamaJob, "eval"});
}

TEST_CASE("pods_from: a PodGroup whose pods have several shapes is not modelled: a running one's pods stay on their nodes, with a warning") {
  // llama (running on kA) gets a second, launcher-like pod on the same node (6 cpu, 8Gi): its
  // PodGroup has pods of two shapes. It is no job; both pods' requests are held on kA (the
  // fixture's 120 cpu + 6 cpu beside aws-node's 25m), and a warning names the second pod's place
  // (a warning: --strict refuses it, as every warning).
  json list = json::parse(slurp(kFix + "pods.json"));
  json second = list["items"][1];
  second["metadata"]["name"] = "llama-1x32-launcher-0";
  second["metadata"]["uid"] = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0e";
  second["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "6"}, {"memory", "8Gi"}}}};
  list["items"].push_back(second);
  auto l = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  for (const auto& j : l->sc.training.jobs) CHECK(j.name != kLlamaJob);
  CHECK(l->sc.pods_from->unmodelled == 1);
  CHECK(l->sc.pods_from->running_jobs == 0);
  std::string w;
  for (const auto& each : l->sc.warnings)
    if (each.find("different shapes") != std::string::npos) w = each;
  CHECK_MESSAGE(w.find("pods.json: /items/7/spec: pod 'ml/llama-1x32-launcher-0' requests {") != std::string::npos, w);
  CHECK_MESSAGE(w.find("pods of different shapes in one PodGroup are not modelled yet; its 2 running pod(s) hold their requests") != std::string::npos, w);
  double held_cpu = -1;
  for (const auto& ds : l->sc.training.daemonsets)
    if (ds.name == "pods-on-" + kA) held_cpu = ds.requests.milli_cpu;
  CHECK(held_cpu == 120'000.0 + 6'000.0 + 25.0);  // milli-cpu: llama's worker, the launcher, aws-node
}

TEST_CASE("pods_from: a PodGroup without pods takes its Volcano Job's pod template constraints when the files hold the Job") {
  // bert's PodGroup before its pods exist (Volcano's job controller creates them once it is
  // Inqueue): a PodGroup object holds no pod template, so alone it has no tolerations. With its
  // Volcano Job (batch.volcano.sh/v1alpha1, namespace ml, named as the PodGroup less -<UID>) in
  // the same export, the job takes the Job's first task's nodeSelector and tolerations.
  json list = json::parse(slurp(kFix + "pods.json"));
  list["items"].erase(3);  // bert's pod
  list["items"][2]["spec"]["minMember"] = 1;
  list["items"][2]["spec"]["minResources"] = {{"cpu", "120"}, {"memory", "480Gi"}, {"aws.amazon.com/neurondevice", "16"}};
  auto without = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  CHECK(job(without->sc.training, kBertJob).tolerations.empty());
  CHECK(without->sc.pods_from->constraints_from_job == 0);
  const json container = {{"name", "main"}, {"image", "bert:1"}, {"resources", {{"requests", {{"cpu", "120"}}}}}};
  list["items"].push_back(
      {{"apiVersion", "batch.volcano.sh/v1alpha1"},
       {"kind", "Job"},
       {"metadata", {{"name", "bert-1x32"}, {"namespace", "ml"}, {"uid", "8e2d4c6a-1b3f-4d5e-a6b7-c8d9e0f1a2b3"}}},
       {"spec",
        {{"minAvailable", 1},
         {"schedulerName", "volcano"},
         {"queue", "default"},
         {"tasks", json::array({{{"name", "worker"},
                                 {"replicas", 1},
                                 {"template",
                                  {{"spec",
                                    {{"containers", json::array({container})},
                                     {"nodeSelector", {{"node.kubernetes.io/instance-type", "trn1.32xlarge"}}},
                                     {"tolerations", json::array({{{"key", "aws.amazon.com/neuron"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}}}}}}})}}}});
  auto with = load(scenario("pods.json"), {{"pods.json", list.dump(2)}});
  const models::TrainingJobSpec& bert = job(with->sc.training, kBertJob);
  REQUIRE(bert.tolerations.size() == 1);
  CHECK(bert.tolerations[0].key == "aws.amazon.com/neuron");
  CHECK(bert.tolerations[0].op == policy::Toleration::Op::Exists);
  CHECK(bert.node_selector == std::vector<std::pair<std::string, std::string>>{{"node.kubernetes.io/instance-type", "trn1.32xlarge"}});
  CHECK(with->sc.pods_from->constraints_from_job == 1);
}
