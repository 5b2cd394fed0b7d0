// A scenario that references the cluster's real configuration instead of restating it
// (volcano.scheduler_config, cluster.eksctl, queues_from, workload.manifests):
//   - scenarios/eks-trn1-yaml-example.json (its files under scenarios/yaml/) and
//     tests/scenarios/eks-trn1-yaml-equivalent.json, the same scenario restated in JSON by hand
//     from those files, load into the same TrainingScenario and, run, record the same
//     events — every row of the jobs, pods, decisions, phases and cluster_metrics tables;
//   - every file read is an input (role, path as written);
//   - what goes wrong between the scenario and its files is an error naming the place.
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;

namespace {

const std::string kSrc = MLTWIN_SOURCE_DIR;
const std::string kExample = kSrc + "/scenarios/eks-trn1-yaml-example.json";
const std::string kEquivalent = kSrc + "/tests/scenarios/eks-trn1-yaml-equivalent.json";

/// Every record the model hands its recorder, one line each: what the SQLite store writes
/// into jobs, pods, decisions, phases and cluster_metrics.
class TextRecorder final : public models::TrainingRecorder {
 public:
  std::ostringstream os;
  std::vector<models::JobFinal> finals;
  void job_submitted(const models::JobSubmitted& j) override {
    os << "submit " << j.job << ' ' << j.name << ' ' << j.queue << ' ' << j.submit.ns() << ' ' << j.nnodes << ' '
       << j.nproc_per_node << ' ' << j.neuron_devices_per_pod << ' ' << j.cpu_per_pod << ' ' << j.memory_gib_per_pod << ' '
       << j.efa_per_pod << ' ' << j.duration_s << ' ' << j.trace_row << ' ' << j.trace_gpus << '\n';
  }
  void job_final(const models::JobFinal& j) override {
    finals.push_back(j);
    os << "final " << j.job << ' ' << j.phase << ' ' << j.podgroup_phase << ' ' << j.inqueue.ns() << ' '
       << j.scheduled.ns() << ' ' << j.start.ns() << ' ' << j.end.ns() << ' ' << j.nodes << ' ' << j.reason
       << '\n';
  }
  void pod_event(const models::PodEvent& e) override {
    os << "pod " << e.job << ' ' << e.pod << ' ' << e.event << ' ' << e.node << ' ' << e.t.ns() << '\n';
  }
  void decision(const models::Decision& d) override {
    os << "decision " << d.job << ' ' << d.t.ns() << ' ' << d.code << ' ' << d.plugin << ' ' << d.reason << '\n';
  }
  void phase_change(const models::PhaseChange& p) override {
    os << "phase " << p.job << ' ' << p.t.ns() << ' ' << p.from << ' ' << p.to << '\n';
  }
  void sample(const models::ClusterSample& s) override {
    os << "sample " << s.t.ns() << ' ' << s.neuroncores_allocated << ' ' << s.neuroncores_total << ' ' << s.jobs_pending
       << ' ' << s.jobs_inqueue << ' ' << s.jobs_running << ' ' << s.pods_running << '\n';
  }
  void checkpoint(core::Time) override {}
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}
};

void run(const io::LoadedScenario& sc, TextRecorder& rec) {
  core::Simulator sim;
  core::RngStreams rng(sc.seed);
  models::TrainingCluster cluster(sc.training, sim, rng, rec);
  cluster.start();
  sim.run();
  cluster.finish(cluster.last_event());
}

std::string load_error(const std::string& path, const io::LoadOptions& opts = {}) {
  try {
    (void)io::load_scenario(path, opts);
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  FAIL("expected io::ScenarioError from " << path);
  return {};
}

/// The example scenario with `patch` merged in, written to `dir`, its YAML files referenced by
/// absolute paths.
std::string patched_example(const mltwin::test::TempDir& dir, const json& patch) {
  std::ifstream in(kExample);
  json doc = json::parse(in);
  const std::string y = kSrc + "/scenarios/yaml/";
  doc["cluster"]["eksctl"] = y + "cluster.yaml";
  doc["volcano"]["scheduler_config"] = y + "volcano-scheduler.yaml";
  doc["queues_from"] = {y + "queues.yaml"};
  for (auto& m : doc["workload"]["manifests"]) m["path"] = y + m["path"].get<std::string>().substr(5);
  doc.merge_patch(patch);
  const std::string p = dir.file("s.json");
  std::ofstream(p) << doc.dump(2);
  return p;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

TEST_CASE("the YAML-described example and its JSON restatement load the same scenario") {
  const io::LoadedScenario y = io::load_scenario(kExample);
  const io::LoadedScenario j = io::load_scenario(kEquivalent);
  const models::TrainingScenario& a = y.training;
  const models::TrainingScenario& b = j.training;
  REQUIRE(a.node_groups.size() == 1);
  CHECK(a.node_groups[0].name == "trn1-32xl");
  CHECK(a.node_groups[0].count == 4);
  CHECK(a.node_groups[0].availability_zone == "us-east-1d");
  CHECK(a.node_groups[0].labels == b.node_groups[0].labels);
  CHECK(a.scheduler.actions == b.scheduler.actions);
  REQUIRE(a.scheduler.tiers.size() == b.scheduler.tiers.size());
  for (std::size_t t = 0; t < a.scheduler.tiers.size(); ++t) {
    REQUIRE(a.scheduler.tiers[t].plugins.size() == b.scheduler.tiers[t].plugins.size());
    for (std::size_t p = 0; p < a.scheduler.tiers[t].plugins.size(); ++p) {
      CHECK(a.scheduler.tiers[t].plugins[p].name == b.scheduler.tiers[t].plugins[p].name);
      CHECK(a.scheduler.tiers[t].plugins[p].enabled == b.scheduler.tiers[t].plugins[p].enabled);
    }
  }
  REQUIRE(a.queues.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(a.queues[i].name == b.queues[i].name);
    CHECK(a.queues[i].weight == b.queues[i].weight);
    CHECK(a.queues[i].reclaimable == b.queues[i].reclaimable);
    CHECK(a.queues[i].capability.has_value() == b.queues[i].capability.has_value());
    if (a.queues[i].capability) CHECK(*a.queues[i].capability == *b.queues[i].capability);
  }
  CHECK(a.queues[1].capability->get(policy::rn::kNeuronDevice) == 64'000);  // 64 devices, in thousandths
  // Each manifest carries TorchX's policies (PodEvicted, PodFailed -> RestartJob on every task,
  // maxRetry 2); the JSON gives the same through workload.torchx.max_retries 2.
  CHECK(b.max_retries == 2);
  for (const auto& job : a.jobs) {
    REQUIRE(job.lifecycle);
    CHECK(job.lifecycle->max_retry == 2);
    CHECK(job.lifecycle->policies.empty());
    REQUIRE(job.lifecycle->task_policies.size() == 2);
    CHECK(job.lifecycle->action_for(models::JobEvent::PodEvicted) == models::JobAction::RestartJob);
    CHECK(job.lifecycle->action_for(models::JobEvent::PodFailed) == models::JobAction::RestartJob);
  }
  REQUIRE(a.jobs.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(a.jobs[i].name == b.jobs[i].name);
    CHECK(a.jobs[i].queue == b.jobs[i].queue);
    CHECK(a.jobs[i].submit == b.jobs[i].submit);
    CHECK(a.jobs[i].nnodes == b.jobs[i].nnodes);
    CHECK(a.jobs[i].nproc_per_node == b.jobs[i].nproc_per_node);
    CHECK(a.jobs[i].neuron_devices_per_pod == b.jobs[i].neuron_devices_per_pod);
    CHECK(a.jobs[i].cpu_per_pod == b.jobs[i].cpu_per_pod);
    CHECK(a.jobs[i].memory_bytes_per_pod == b.jobs[i].memory_bytes_per_pod);
    CHECK(a.jobs[i].efa_per_pod == b.jobs[i].efa_per_pod);
    CHECK(a.jobs[i].duration == b.jobs[i].duration);
    CHECK(a.jobs[i].priority == b.jobs[i].priority);
  }
  CHECK(a.jobs[0].priority == 1000);  // PriorityClass "high"
  CHECK(a.jobs[0].cpu_per_pod == doctest::Approx(127.9));
  CHECK(a.jobs[0].neuron_devices_per_pod == 16);

  // Every file read is an input, by role and as the scenario writes it (the glob's matches in
  // sorted order; the instance catalog by its file name); the JSON restatement reads only the
  // catalog.
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"instance_catalog", "aws-instance-types.json"},
      {"volcano_scheduler_config", "yaml/volcano-scheduler.yaml"}, {"eksctl_cluster_config", "yaml/cluster.yaml"},
      {"queue_manifests", "yaml/queues.yaml"},                      {"job_manifests", "yaml/jobs/llama-2x32.yaml"},
      {"job_manifests", "yaml/jobs/bert-4x32.yaml"},                {"job_manifests", "yaml/jobs/vit-a.yaml"},
      {"job_manifests", "yaml/jobs/vit-b.yaml"}};
  REQUIRE(y.inputs.size() == inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    CHECK(y.inputs[i].role == inputs[i].first);
    CHECK(y.inputs[i].as_written == inputs[i].second);
  }
  REQUIRE(j.inputs.size() == 1);
  CHECK(j.inputs[0].role == "instance_catalog");
  // The scenario as written is what the run records (run_meta.scenario_json).
  CHECK(y.json["cluster"]["eksctl"] == "yaml/cluster.yaml");
}

TEST_CASE("the YAML-described example and its JSON restatement give the same tables") {
  TextRecorder ry, rj;
  run(io::load_scenario(kExample), ry);
  run(io::load_scenario(kEquivalent), rj);
  CHECK(ry.os.str() == rj.os.str());
  // What the example shows, by hand: 4 nodes; llama (2 nodes, 2 h) is placed at once; bert
  // (production, 4 nodes) needs the whole cluster and waits until llama is done; the two
  // 1-node vit jobs fit on the two nodes llama leaves free and start within 2 s.
  REQUIRE(ry.finals.size() == 4);
  std::vector<models::JobFinal> by_job(4);  // finals come in the order jobs end
  for (const auto& f : ry.finals) {
    CHECK(f.phase == "Completed");
    REQUIRE(f.job < 4);
    by_job[f.job] = f;
  }
  const auto& llama = by_job[0];
  const auto& bert = by_job[1];
  CHECK(bert.scheduled > llama.end);
  CHECK(llama.end - llama.start == core::Duration::s(7200));
  for (int i : {2, 3}) {
    const auto& vit = by_job[i];
    CHECK(vit.scheduled <= core::Time::zero() + core::Duration::s(1202));
    CHECK(llama.nodes.find(vit.nodes) == std::string::npos);  // not on llama's nodes
  }
}

TEST_CASE("scenario references: errors name the YAML place or the scenario's JSON path") {
  mltwin::test::TempDir d;
  SUBCASE("a job in a queue no file defines, at the job's spec.queue") {
    const std::string p = patched_example(d, {{"queues_from", nullptr}, {"queues", {{{"name", "research"}}}}});
    CHECK(load_error(p) == kSrc + "/scenarios/yaml/jobs/bert-4x32.yaml:22:10: spec.queue: queue 'production' is not defined "
                                  "(give it in /queues or /queues_from)");
  }
  SUBCASE("an instance type outside the catalog, at the eksctl file's instanceType") {
    // A catalog without trn1.32xlarge (--catalog): the shipped one less that row.
    std::ifstream in(kSrc + "/catalog/aws-instance-types.json");
    json cat = json::parse(in);
    json rows = json::array();
    for (const auto& t : cat["instance_types"])
      if (t["name"] != "trn1.32xlarge") rows.push_back(t);
    cat["instance_types"] = rows;
    const std::string c = d.file("catalog.json");
    std::ofstream(c) << cat.dump(2);
    io::LoadOptions opts;
    opts.catalog_path = c;
    const std::string p = patched_example(d, json::object());
    CHECK(load_error(p, opts) == kSrc + "/scenarios/yaml/cluster.yaml:21:19: managedNodeGroups[0].instanceType: instance type "
                                        "'trn1.32xlarge' is not in the catalog (" + c + "; the scenario adds no rows under "
                                        "/catalog/instance_types); near: trn1.2xlarge, trn1n.32xlarge, trn2.48xlarge");
  }
  SUBCASE("scheduler_config and tiers both") {
    const std::string p = patched_example(d, {{"volcano", {{"tiers", json::array({{{"plugins", {{{"name", "gang"}}}}}})}}}});
    CHECK(load_error(p) == p + ": /volcano/tiers: the scenario reads the scheduler configuration from "
                               "volcano.scheduler_config; give it there or here, not both");
  }
  SUBCASE("node_groups and eksctl both: the schema's oneOf") {
    const std::string p = patched_example(
        d, {{"cluster", {{"node_groups", {{{"name", "g"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 1}}}}}}});
    const std::string e = load_error(p);
    CHECK_MESSAGE(starts_with(e, p + ": /cluster: expected exactly one of 'node_groups', 'eksctl', found 2"), e);
  }
  SUBCASE("no queue at all") {
    const std::string p = patched_example(d, {{"queues_from", nullptr}});
    CHECK(load_error(p) == p + ": /queues: the scenario defines no queue: give /queues or /queues_from");
  }
  SUBCASE("a glob that matches nothing") {
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/none-*.yaml"}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    CHECK(load_error(p) ==
          p + ": /workload/manifests/0/path: no file matches '" + kSrc + "/scenarios/yaml/jobs/none-*.yaml'");
  }
  SUBCASE("a manifests file without a Job") {
    std::ofstream(d.file("empty.yaml")) << "# nothing yet\n---\n";
    json patch;
    patch["workload"]["manifests"] = {{{"path", d.file("empty.yaml")}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    CHECK(load_error(p) == p + ": /workload/manifests/0/path: '" + d.file("empty.yaml") + "' holds no Volcano Job (or PriorityClass)");
  }
  SUBCASE("a missing file") {
    const std::string p = patched_example(d, {{"cluster", {{"eksctl", "nope.yaml"}}}});
    CHECK(load_error(p) == p + ": /cluster/eksctl: 'nope.yaml': no such file: " + d.file("nope.yaml") +
                               " (a relative path is read from the scenario's folder, not the working directory)");
  }
  SUBCASE("two Jobs of one name in two namespaces") {
    // mltwin's jobs have no namespace: both would be 'vit-a7c2d9' in the results and in explain.
    std::ifstream in(kSrc + "/scenarios/yaml/jobs/vit-a.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::string other = text.str();
    const std::string name_line = "  name: vit-a7c2d9\n";
    REQUIRE(other.find(name_line) != std::string::npos);
    other.replace(other.find(name_line), name_line.size(), name_line + "  namespace: team-b\n");
    std::ofstream(d.file("other.yaml")) << other;
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/vit-a.yaml"}, {"duration", "1h"}},
                                      {{"path", d.file("other.yaml")}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    // The Job document starts at line 12 of either file.
    CHECK(load_error(p) == d.file("other.yaml") + ":12:1: job 'vit-a7c2d9' is already defined (" + kSrc +
                               "/scenarios/yaml/jobs/vit-a.yaml:12:1); job names must differ across namespaces too: mltwin's "
                               "jobs have no namespace");
  }
}

TEST_CASE("PriorityClasses from the scenario's JSON and from its manifests are one set") {
  mltwin::test::TempDir d;
  SUBCASE("a JSON globalDefault class gives its value to the manifests' jobs that name none") {
    const std::string p = patched_example(d, {{"priority_classes", {{{"name", "batch"}, {"value", 5}, {"globalDefault", true}}}}});
    const io::LoadedScenario sc = io::load_scenario(p);
    REQUIRE(sc.training.jobs.size() == 4);
    CHECK(sc.training.jobs[0].priority == 1000);  // llama names "high" (its manifest: value 1000)
    CHECK(sc.training.jobs[0].priority_class == "high");
    CHECK(sc.training.jobs[1].priority == 5);     // bert names none: the JSON globalDefault
  }
  SUBCASE("a manifest may not redefine a class the JSON defines") {
    const std::string p = patched_example(d, {{"priority_classes", {{{"name", "high"}, {"value", 5}}}}});
    CHECK(load_error(p) == kSrc + "/scenarios/yaml/jobs/llama-2x32.yaml:157:1: PriorityClass 'high' is already defined (" + p +
                               ": /priority_classes/0)");
  }
  SUBCASE("a manifest's preemptionPolicy Never reaches the pods of the jobs that name the class") {
    std::ofstream(d.file("pc.yaml")) << "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: polite\n"
                                        "value: 1\nglobalDefault: true\npreemptionPolicy: Never\n";
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/vit-a.yaml"}, {"duration", "1h"}},
                                      {{"path", d.file("pc.yaml")}, {"duration", "1h"}}};
    const io::LoadedScenario sc = io::load_scenario(patched_example(d, patch));
    REQUIRE(sc.training.jobs.size() == 1);
    CHECK(sc.training.jobs[0].priority == 1);  // vit-a names no class: the globalDefault
    CHECK(sc.training.jobs[0].preempt_never);
    std::ofstream(d.file("pc.yaml")) << "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: polite\n"
                                        "value: 1\npreemptionPolicy: Sometimes\n";
    CHECK(load_error(patched_example(d, patch)) ==
          d.file("pc.yaml") + ":6:19: preemptionPolicy: expected PreemptLowerPriority or Never, got \"Sometimes\"");
  }
  SUBCASE("kubectl get priorityclasses -o json: Kubernetes' two system classes are accepted as the API server creates them") {
    // The List kubectl prints (Kubernetes API reference, PriorityClass v1 scheduling.k8s.io:
    // value, globalDefault, preemptionPolicy, description; metadata as the server fills it):
    // the user's class and the two built-in ones (pkg/apis/scheduling/types.go:
    // system-cluster-critical 2000000000, system-node-critical 2000001000), which
    // ValidatePriorityClass allows with exactly those values and globalDefault false.
    auto pc = [](const std::string& name, long long value, bool global) {
      return json{{"apiVersion", "scheduling.k8s.io/v1"},
                  {"kind", "PriorityClass"},
                  {"description", "d"},
                  {"metadata",
                   {{"creationTimestamp", "2026-11-30T07:58:11Z"}, {"generation", 1}, {"name", name}, {"resourceVersion", "80"},
                    {"uid", "0a1b2c3d-0000-4000-8000-00000000000" + std::to_string(name.size() % 10)}}},
                  {"preemptionPolicy", "PreemptLowerPriority"},
                  {"globalDefault", global},
                  {"value", value}};
    };
    json list = {{"apiVersion", "v1"},
                 {"kind", "List"},
                 {"metadata", {{"resourceVersion", ""}}},
                 {"items", {pc("batch", 7, true), pc("system-cluster-critical", 2000000000, false), pc("system-node-critical", 2000001000, false)}}};
    std::ofstream(d.file("pcs.json")) << list.dump(4);
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/vit-a.yaml"}, {"duration", "1h"}},
                                      {{"path", d.file("pcs.json")}, {"duration", "1h"}}};
    {
      const io::LoadedScenario sc = io::load_scenario(patched_example(d, patch));
      REQUIRE(sc.training.jobs.size() == 1);
      CHECK(sc.training.jobs[0].priority == 7);  // vit-a names no class: the globalDefault
    }
    // A system class with another value is not Kubernetes' own.
    list["items"][2]["value"] = 2000000001;
    std::ofstream(d.file("pcs.json")) << list.dump(4);
    const std::string e = load_error(patched_example(d, patch));
    CHECK_MESSAGE(e.find("value: Kubernetes' own system-node-critical has value 2000001000 and is not globalDefault (got 2000000001)") !=
                      std::string::npos,
                  e);
  }
  SUBCASE("a manifest's class named system-... is Kubernetes' own") {
    std::ofstream(d.file("pc.yaml")) << "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: system-x\nvalue: 1\n";
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/vit-a.yaml"}, {"duration", "1h"}},
                                      {{"path", d.file("pc.yaml")}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    CHECK(load_error(p) == d.file("pc.yaml") + ":4:9: metadata.name: the prefix 'system-' is reserved for Kubernetes' system "
                                               "PriorityClasses");
  }
}

namespace {
void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}
}  // namespace

TEST_CASE("Queue manifests with spec.parent and spec.deserved (capacity plugin); a broken tree at spec.parent") {
  // A tree: org (deserved 256 cpu, 1 Ti, 32 devices) with research and production under it,
  // the example's jobs in research and production (leaves). Lines and columns counted in
  // `queues` below: org's optional spec.parent value is at line 10, column 11, research's at
  // line 17, column 11.
  mltwin::test::TempDir d;
  auto queues = [](const std::string& research_parent, const std::string& org_parent) {
    return "apiVersion: scheduling.volcano.sh/v1beta1\n"          // 1
           "kind: Queue\n"                                        // 2
           "metadata:\n"                                          // 3
           "  name: org\n"                                        // 4
           "spec:\n"                                              // 5
           "  deserved:\n"                                        // 6
           "    cpu: \"256\"\n"                                   // 7
           "    memory: 1Ti\n"                                    // 8
           "    aws.amazon.com/neurondevice: 32\n" +              // 9
           (org_parent.empty() ? std::string("  weight: 1\n") : "  parent: " + org_parent + "\n") +  // 10
           "---\n"                                                // 11
           "apiVersion: scheduling.volcano.sh/v1beta1\n"          // 12
           "kind: Queue\n"                                        // 13
           "metadata:\n"                                          // 14
           "  name: research\n"                                   // 15
           "spec:\n  parent: " + research_parent + "\n"           // 16, 17
           "  deserved:\n"                                        // 18
           "    cpu: \"128\"\n"                                   // 19
           "---\n"
           "apiVersion: scheduling.volcano.sh/v1beta1\n"
           "kind: Queue\n"
           "metadata:\n"
           "  name: production\n"
           "spec:\n"
           "  parent: org\n";
  };
  const std::string qfile = d.file("tree.yaml");
  SUBCASE("a well-formed tree: parents and deserved reach the queues") {
    write_text(qfile, queues("org", ""));
    const io::LoadedScenario sc = io::load_scenario(patched_example(d, {{"queues_from", {qfile}}}));
    const auto& qs = sc.training.queues;
    REQUIRE(qs.size() == 3);
    CHECK(qs[0].name == "org");
    CHECK(qs[0].parent.empty());
    CHECK(qs[0].deserved.milli_cpu == 256'000);
    CHECK(qs[0].deserved.memory == 1099511627776.0);                   // 1 Ti = 1024^4
    CHECK(qs[0].deserved.get(policy::rn::kNeuronDevice) == 32'000);    // 32 devices
    CHECK(qs[0].deserved.scalars.size() == 1);                         // and no other scalar
    CHECK(qs[1].name == "research");
    CHECK(qs[1].parent == "org");
    CHECK(qs[1].deserved.milli_cpu > 0);                               // cpu only
    CHECK(qs[1].deserved.scalars.empty());
    CHECK(qs[2].parent == "org");
  }
  SUBCASE("an unknown parent, at its spec.parent") {
    write_text(qfile, queues("nosuch", ""));
    CHECK(load_error(patched_example(d, {{"queues_from", {qfile}}})) ==
          qfile + ":17:11: spec.parent: parent queue 'nosuch' is not defined (Volcano's queue webhook: failed to get "
                  "parent queue)");
  }
  SUBCASE("a loop, at the first queue on it") {
    write_text(qfile, queues("org", "research"));
    CHECK(load_error(patched_example(d, {{"queues_from", {qfile}}})) ==
          qfile + ":10:11: spec.parent: the parent chain loops: org -> research -> org");
  }
  SUBCASE("the scenario's own queues: errors at their JSON path") {
    const std::string p = patched_example(
        d, {{"queues_from", nullptr}, {"queues", {{{"name", "research"}, {"parent", "nosuch"}}, {{"name", "production"}}}}});
    CHECK(load_error(p) == p + ": /queues/0/parent: parent queue 'nosuch' is not defined (Volcano's queue webhook: failed "
                               "to get parent queue)");
    const std::string self = patched_example(
        d, {{"queues_from", nullptr}, {"queues", {{{"name", "research"}}, {{"name", "production"}, {"parent", "production"}}}}});
    CHECK(load_error(self) == self + ": /queues/1/parent: queue 'production' cannot be its own parent");
    // A queue under one that is its own parent: the error is at the latter, said once.
    const std::string under_self = patched_example(
        d, {{"queues_from", nullptr},
            {"queues", {{{"name", "research"}, {"parent", "production"}}, {{"name", "production"}, {"parent", "production"}}}}});
    CHECK(load_error(under_self) == under_self + ": /queues/1/parent: queue 'production' cannot be its own parent");
  }
  SUBCASE("a job in a queue with children") {
    // The example's jobs go to research and production; make production research's parent.
    write_text(qfile, queues("production", ""));
    const std::string e = load_error(patched_example(d, {{"queues_from", {qfile}}}));
    CHECK_MESSAGE(e.find("submits to queue 'production': can only submit job to leaf queue, queue `production` has 1 "
                         "child queues (Volcano's job admission webhook)") != std::string::npos,
                  e);
  }
}

TEST_CASE("initial_state names a job read from a Volcano Job manifest: placed first-fit at t0 on the eksctl nodes") {
  // The example's llama-k3v9x2 (2 pods, submitted at 0s, 2 h) started 30 min before t0: 90 min
  // remain; with no nodes named it takes the first two nodes of trn1-32xl (4 nodes, whose
  // neuron taint its pods tolerate), and it moves to the front of the workload.
  mltwin::test::TempDir d("mltwin-yaml");
  const std::string p =
      patched_example(d, json::parse(R"({"initial_state": {"running": [{"job": "llama-k3v9x2", "started": "-30m"}]}})"));
  const io::LoadedScenario s = io::load_scenario(p);
  REQUIRE_FALSE(s.training.jobs.empty());
  const models::TrainingJobSpec& j = s.training.jobs[0];
  CHECK(j.name == "llama-k3v9x2");
  REQUIRE(j.initial);
  CHECK(j.initial->elapsed == core::Duration::s(1800));
  CHECK(j.initial->remaining == core::Duration::s(5400));
  CHECK(j.initial->nodes == std::vector<std::string>{"trn1-32xl-0", "trn1-32xl-1"});
  for (std::size_t i = 1; i < s.training.jobs.size(); ++i) CHECK_FALSE(s.training.jobs[i].initial);
}

TEST_CASE("an error found in a Job read from workload.manifests names its manifest, line, column, kind and name") {
  // Before: the error named only the converted entry, /workload/jobs/N/pod, which the user
  // never wrote.
  mltwin::test::TempDir d("mltwin-yaml");
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string device_line = "              aws.amazon.com/neurondevice: '16'\n";
  std::string vit_a = slurp(kSrc + "/scenarios/yaml/jobs/vit-a.yaml");
  const std::size_t dev = vit_a.find(device_line);
  REQUIRE(dev != std::string::npos);
  const std::string vit_b = slurp(kSrc + "/scenarios/yaml/jobs/vit-b.yaml");
  // Each file's Job document starts at line 12 (11 lines of comment and a blank line before it).
  REQUIRE(std::count(vit_a.begin(), vit_a.begin() + static_cast<std::ptrdiff_t>(vit_a.find("apiVersion:")), '\n') == 11);
  const std::string two_of = "requests Neuron devices under two of aws.amazon.com/neuron, aws.amazon.com/neurondevice and "
                             "aws.amazon.com/neuroncore; Kubernetes and Volcano count these names independently, so request one";
  SUBCASE("two Neuron names in the second Job of a file: that document's line, the third job of the scenario") {
    std::string bad = vit_a;
    bad.replace(dev, device_line.size(), "              aws.amazon.com/neuron: '16'\n              aws.amazon.com/neuroncore: '32'\n");
    // vit-b first, then `---`, then the broken Job: its document starts after vit-b's lines,
    // the separator and vit-a's 11 lines.
    const std::string text = vit_b + "---\n" + bad;
    const auto doc_line = std::count(vit_b.begin(), vit_b.end(), '\n') + 1 + 11 + 1;
    write_text(d.file("jobs.yaml"), text);
    json patch;
    patch["workload"]["manifests"] = {{{"path", kSrc + "/scenarios/yaml/jobs/llama-2x32.yaml"}, {"duration", "1h"}},
                                      {{"path", d.file("jobs.yaml")}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    CHECK(load_error(p) == d.file("jobs.yaml") + ":" + std::to_string(doc_line) + ":1: Job 'vit-a7c2d9': " + two_of + " (" + p +
                               ": /workload/jobs/2/pod, as read from it)");
  }
  SUBCASE("a pod requesting 'pods'") {
    std::string bad = vit_a;
    bad.replace(dev, device_line.size(), device_line + "              pods: '1'\n");
    write_text(d.file("vit.yaml"), bad);
    json patch;
    patch["workload"]["manifests"] = {{{"path", d.file("vit.yaml")}, {"duration", "1h"}}};
    const std::string p = patched_example(d, patch);
    CHECK(load_error(p) == d.file("vit.yaml") + ":12:1: Job 'vit-a7c2d9': a pod does not request 'pods' (Volcano counts one per "
                                                 "pod itself) (" + p + ": /workload/jobs/0/pod/pods, as read from it)");
  }
}

TEST_CASE("plugin arguments Volcano would ignore are warnings at their place; --strict refuses them") {
  const mltwin::test::TempDir d;
  // In the scheduler ConfigMap: the warning names the file, line and column of the value.
  {
    std::ifstream in(kSrc + "/scenarios/yaml/volcano-scheduler.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string anchor = "      - name: nodeorder\n";
    const auto at = text.find(anchor);
    REQUIRE(at != std::string::npos);
    text.insert(at + anchor.size(), "        arguments:\n          mostrequested.wieght: 10\n");
    // The line of the inserted key: the anchor's line + 2.
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 2;
    const std::string conf = d.file("volcano-scheduler.yaml");
    std::ofstream(conf) << text;
    const std::string p = patched_example(d, {{"volcano", {{"scheduler_config", conf}}}});
    const io::LoadedScenario sc = io::load_scenario(p);
    REQUIRE(sc.warnings.size() == 1);
    CHECK(sc.warnings[0].rfind(conf + ":" + std::to_string(line) + ":33: tiers[1].plugins[4].arguments.mostrequested.wieght: plugin "
                               "'nodeorder' reads no argument 'mostrequested.wieght': Volcano ignores it; did you mean 'mostrequested.weight'?",
                               0) == 0);
    io::LoadOptions strict;
    strict.strict = true;
    CHECK(load_error(p, strict) == sc.warnings[0] + " (--strict: warnings are errors)");
  }
  // In the scenario's own JSON: the JSON pointer under /volcano.
  {
    std::ifstream in(kSrc + "/tests/scenarios/tiny-gang.json");
    json doc = json::parse(in);
    doc["volcano"]["tiers"][1]["plugins"][4]["arguments"] = {{"mostrequested.wieght", 10}};
    const std::string p = d.file("tiny.json");
    std::ofstream(p) << doc.dump(2);
    const io::LoadedScenario sc = io::load_scenario(p);
    REQUIRE(sc.warnings.size() == 1);
    CHECK(sc.warnings[0].rfind(p + ": /volcano/tiers/1/plugins/4/arguments/mostrequested.wieght: plugin 'nodeorder' reads no argument", 0) == 0);
    // A value of the wrong type is an error with or without --strict.
    doc["volcano"]["tiers"][1]["plugins"][4]["arguments"] = {{"mostrequested.weight", "ten"}};
    std::ofstream(p) << doc.dump(2);
    CHECK(load_error(p) == p + ": /volcano/tiers/1/plugins/4/arguments/mostrequested.weight: expected an integer, got 'ten' "
                               "(pkg/scheduler/plugins/nodeorder/nodeorder.go:55 MostRequestedWeight)");
  }
}
