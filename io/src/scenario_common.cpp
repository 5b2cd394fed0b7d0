// scenario_common.cpp — helpers the training and inference loaders and the YAML readers share
// (scenario_common.hpp): errors at JSON paths, names, seeds, durations, latencies, resources,
// the scheduler configuration, queues, lifecycle policies, PriorityClasses, quantities. Reading
// and checking the document itself: scenario_input.cpp.
#include "scenario_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "k8s_objects.hpp"
#include "mltwin/io/scenario.hpp"  // ScenarioError, resolve_data_dir
#include "mltwin/policy/go_duration.hpp"

namespace mltwin::io::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
thread_local const YamlOrigins* g_origins = nullptr;
}  // namespace

YamlOrigins::YamlOrigins(Places places) : places_(std::move(places)), outer_(g_origins) { g_origins = this; }
YamlOrigins::~YamlOrigins() { g_origins = outer_; }
const std::string* YamlOrigins::place(std::string_view where) {
  if (g_origins == nullptr) return nullptr;
  for (const auto& [array, places] : g_origins->places_) {
    if (!where.starts_with(array) || where.size() <= array.size() || where[array.size()] != '/') continue;
    std::size_t index = 0, i = array.size() + 1;
    for (; i < where.size() && where[i] >= '0' && where[i] <= '9' && index < places.size(); ++i)
      index = index * 10 + static_cast<std::size_t>(where[i] - '0');
    if (i > array.size() + 1 && (i == where.size() || where[i] == '/') && index < places.size() && !places[index].empty())
      return &places[index];
  }
  return nullptr;
}

void fail(const std::string& file, const std::string& where, const std::string& what) {
  if (const std::string* at = YamlOrigins::place(where)) throw ScenarioError(*at + ": " + what + " (" + file + ": " + where + ", as read from it)");
  throw ScenarioError(file + ": " + where + ": " + what);
}

std::string scenario_name_of(const std::string& file, const json& doc) {
  const std::string name = doc["name"].get<std::string>();
  // It names the default results file, results/<name>-seed<N>.sqlite: no path separators, no
  // hidden or relative names.
  const bool first_ok = !name.empty() && std::isalnum(static_cast<unsigned char>(name[0]));
  const bool rest_ok = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!first_ok || !rest_ok || name.size() > 200)
    fail(file, "/name", "'" + printable(name) + "': a scenario name names its results file (results/<name>-seed<N>.sqlite): up to 200 "
                         "letters, digits, '.', '_' or '-', starting with a letter or a digit");
  return name;
}

std::uint64_t seed_of(const std::string& file, const json& doc) {
  if (!doc.contains("seed")) return 1;
  const json& v = doc["seed"];
  // The schema bounds it; a uint64 just above 2^63 - 1 passes a bound compared as a double.
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > 9223372036854775807ULL))
    fail(file, "/seed", "expected an integer from 0 to 9223372036854775807, got " + v.dump());
  return v.get<std::uint64_t>();
}

core::Duration duration_of(const std::string& file, const std::string& where, const json& v) {
  core::Duration d;
  try {
    d = v.is_number() ? core::Duration::from_seconds(v.get<double>()) : core::parse_duration(v.get<std::string>());
  } catch (const std::exception& e) {
    fail(file, where, std::string("expected a duration such as \"100ms\", \"90s\" or \"1.5h\": ") + e.what());
  }
  if (d > kMaxScenarioTime || d < core::Duration::ns(0) - kMaxScenarioTime)
    fail(file, where, printable(v.dump()) + " is beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
  return d;
}

models::LatencySpec latency_of(const std::string& file, const std::string& where, const json& v) {
  models::LatencySpec l;
  l.source = v.value("source", "");
  if (v.contains("constant")) {
    l.kind = models::LatencySpec::Kind::Constant;
    l.a = duration_of(file, where + "/constant", v["constant"]);
  } else if (v.contains("uniform")) {
    l.kind = models::LatencySpec::Kind::Uniform;
    l.a = duration_of(file, where + "/uniform/0", v["uniform"][0]);
    l.b = duration_of(file, where + "/uniform/1", v["uniform"][1]);
    if (l.b < l.a) fail(file, where + "/uniform", "max is below min");
  } else {
    l.kind = models::LatencySpec::Kind::Exponential;
    l.a = duration_of(file, where + "/exponential_mean", v["exponential_mean"]);
    if (l.a <= core::Duration::ns(0)) fail(file, where + "/exponential_mean", "expected a positive mean");
  }
  if (l.a < core::Duration::ns(0)) fail(file, where, "latency must not be negative");
  return l;
}

std::string expand_data(const std::string& text, const std::string& data_dir) {
  const std::string key = "${MLTWIN_DATA}";
  std::string s = text;
  for (auto p = s.find(key); p != std::string::npos; p = s.find(key, p + data_dir.size())) s.replace(p, key.size(), data_dir);
  return s;
}

std::string resolve_input_path(const std::string& as_written, const std::string& scenario_path,
                               const std::string& explicit_data_dir, std::string& data_dir) {
  const std::string dir = fs::path(scenario_path).parent_path().string();
  if (as_written.find("${MLTWIN_DATA}") != std::string::npos) {
    if (data_dir.empty()) data_dir = resolve_data_dir(explicit_data_dir, dir.empty() ? "." : dir);
    return expand_data(as_written, data_dir);
  }
  if (fs::path(as_written).is_relative()) return (fs::path(dir) / as_written).string();
  return as_written;
}

void require_input(const std::string& scenario_path, const std::string& where, const std::string& as_written,
                   const std::string& resolved) {
  std::error_code ec;
  if (fs::exists(resolved, ec)) return;
  std::string what = "'" + as_written + "': no such file: " + fs::absolute(resolved, ec).lexically_normal().string();
  if (as_written.find("${MLTWIN_DATA}") == std::string::npos && fs::path(as_written).is_relative())
    what += " (a relative path is read from the scenario's folder, not the working directory)";
  fail(scenario_path, where, what);
}

policy::Resource resources_of(const std::string& file, const std::string& where, const json& obj) {
  policy::Resource r;
  if (auto p = k8s::resource_list_problem(obj, r)) fail(file, where + "/" + pointer_token_of(p->field), p->message);
  return r;
}

models::QueueSpec queue_of(const std::string& file, const std::string& where, const json& q) {
  models::QueueSpec qs;
  qs.name = q["name"];
  qs.weight = q.value("weight", 1);
  if (q.contains("capability") && !q["capability"].empty())
    qs.capability = resources_of(file, where + "/capability", q["capability"]);
  if (q.contains("guarantee")) qs.guarantee = resources_of(file, where + "/guarantee", q["guarantee"]);
  qs.priority = q.value("priority", 0);
  qs.open = q.value("state", std::string("Open")) == "Open";
  qs.reclaimable = q.value("reclaimable", true);
  if (q.contains("deserved")) qs.deserved = resources_of(file, where + "/deserved", q["deserved"]);
  qs.parent = q.value("parent", std::string());
  return qs;
}

std::string queue_tree_problem(const std::vector<models::QueueSpec>& queues, std::size_t& at) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < queues.size(); ++i) index.emplace(queues[i].name, i);
  // A queue that is its own parent first, at that queue (a walk from another queue would meet
  // it as a loop further up).
  for (std::size_t i = 0; i < queues.size(); ++i)
    if (!queues[i].parent.empty() && queues[i].parent == queues[i].name) {
      at = i;
      return "queue '" + queues[i].name + "' cannot be its own parent";
    }
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const auto& q = queues[i];
    at = i;
    if (q.parent.empty()) continue;
    if (q.name == "root") return "the root queue has no parent";
    if (q.parent != "root" && !index.count(q.parent))
      return "parent queue '" + q.parent + "' is not defined (Volcano's queue webhook: failed to get parent queue)";
    // Walk up to root: back at q, the chain loops.
    std::string chain = q.name;
    std::string p = q.parent;
    std::set<std::string> seen{q.name};
    while (p != "root") {
      chain += " -> " + p;
      const auto it = index.find(p);
      if (it == index.end()) break;  // reported at that queue
      if (p == q.name) return "the parent chain loops: " + chain;
      if (!seen.insert(p).second) break;  // a loop further up: reported at a queue on it
      p = queues[it->second].parent.empty() ? std::string("root") : queues[it->second].parent;
    }
  }
  return {};
}

DefinedNames defined_names(const nlohmann::json& doc) {
  DefinedNames d;
  d.classes = {"system-cluster-critical", "system-node-critical"};
  if (doc.contains("queues"))
    for (const auto& q : doc["queues"]) {
      d.queues.insert(q["name"].get<std::string>());
      models::QueueSpec t;
      t.name = q["name"];
      t.parent = q.value("parent", std::string());
      d.tree.push_back(std::move(t));
    }
  if (doc.contains("priority_classes"))
    for (const auto& c : doc["priority_classes"]) d.classes.insert(c["name"].get<std::string>());
  for (const auto& q : d.tree)
    if (leaf_queue_problem(d.tree, q.name).empty()) d.leaves.insert(q.name);
  return d;
}

std::string DefinedNames::list(const std::set<std::string>& names) {
  std::string out;
  std::size_t k = 0;
  for (const auto& x : names) {
    if (k++ == 8) return out + ", ...";
    out += (out.empty() ? "" : ", ") + x;
  }
  return out;
}

std::string leaf_queue_problem(const std::vector<models::QueueSpec>& queues, const std::string& queue) {
  // pkg/webhooks/admission/jobs/validate/admit_job.go (v1.12.1).
  if (queue == "root") return "can not submit job to root queue";
  std::size_t children = 0;
  for (const auto& q : queues)
    if (q.parent == queue) ++children;
  if (children > 0)
    return "can only submit job to leaf queue, queue `" + queue + "` has " + std::to_string(children) + " child queues";
  return {};
}

namespace {

models::JobEvent event_of(const std::string& e) {
  if (e == "PodEvicted") return models::JobEvent::PodEvicted;
  if (e == "PodFailed") return models::JobEvent::PodFailed;
  if (e == "TaskCompleted") return models::JobEvent::TaskCompleted;
  if (e == "Unknown") return models::JobEvent::Unknown;
  return models::JobEvent::Any;  // "*" (the schema allows no other)
}

models::JobAction action_of(const std::string& a) {
  using A = models::JobAction;
  for (A x : {A::RestartJob, A::RestartTask, A::RestartPod, A::AbortJob, A::TerminateJob, A::CompleteJob, A::ResumeJob})
    if (a == models::to_string(x)) return x;
  return A::SyncJob;  // not reached: the schema lists the actions
}

// A LifecyclePolicy list, checked as Volcano's admission webhook checks it
// (pkg/webhooks/admission/jobs/validate/util.go validatePolicies, v1.12.1): each policy names
// an event or events, no event appears in two policies, and "*" stands alone.
std::vector<models::LifecyclePolicy> lifecycle_policies_of(const std::string& file, const std::string& where, const json& list) {
  std::vector<models::LifecyclePolicy> out;
  std::uint8_t seen = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& p = list[i];
    const std::string w = where + "/" + std::to_string(i);
    std::vector<std::pair<std::string, std::string>> events;  // (event, its JSON path)
    if (p.contains("event")) events.emplace_back(p["event"].get<std::string>(), w + "/event");
    if (p.contains("events"))
      for (std::size_t k = 0; k < p["events"].size(); ++k) events.emplace_back(p["events"][k].get<std::string>(), w + "/events/" + std::to_string(k));
    if (events.empty()) fail(file, w, "a policy needs an event or events (Volcano's webhook: either event and exitCode should be specified)");
    models::LifecyclePolicy lp;
    lp.action = action_of(p["action"].get<std::string>());
    for (const auto& [e, at] : events) {
      const auto bit = static_cast<std::uint8_t>(1u << static_cast<unsigned>(event_of(e)));
      if (seen & bit) fail(file, at, "event '" + e + "' appears in two policies (Volcano's webhook refuses a duplicate event)");
      seen |= bit;
      lp.events |= bit;
    }
    out.push_back(lp);
  }
  const auto any = static_cast<std::uint8_t>(1u << static_cast<unsigned>(models::JobEvent::Any));
  if ((seen & any) && seen != any)
    fail(file, where, "a policy on \"*\" cannot stand beside policies on other events (Volcano's webhook: if there's * here, "
                      "no other policy should be here)");
  return out;
}

}  // namespace

// min_available of the job and of its tasks as Volcano's admission webhooks treat spec.minAvailable
// and spec.tasks[*].minAvailable (v1.12.1). The mutating webhook (pkg/webhooks/admission/jobs/
// mutate/mutate_job.go) runs first: patchDefaultMinAvailable sets an unset or 0 minAvailable to
// the tasks' minAvailable summed (a task without one counting its replicas; a torchrun gang's
// TorchX tasks are one pod each), which TrainingJobSpec::min_member computes from
// min_available 0. The validating webhook (validate/admit_job.go validateJobCreate) then
// refuses, in its order: a negative job minAvailable (its whole answer: it returns at once), a
// task's negative minAvailable or one above its replicas, and a job minAvailable above the
// tasks' replicas summed. Each refusal quotes the webhook's message (the first it would give).
void check_min_available(const std::string& file, const std::string& where, const json& j, models::TrainingJobSpec& js) {
  auto webhook = [](const std::string& msg) { return "Volcano's admission webhook refuses the Job: \"" + msg + "\""; };
  auto task_at = [&](std::size_t k) { return where + "/tasks/" + std::to_string(k) + "/min_available"; };
  const int given = j.contains("min_available") ? j["min_available"].get<int>() : 0;
  if (given < 0)
    fail(file, where + "/min_available", "minAvailable " + std::to_string(given) + " is below 0: " + webhook("job 'minAvailable' must be >= 0."));
  // The tasks' minAvailable summed as patchDefaultMinAvailable sums them (JobTaskSpec's -1 is
  // "not given", so the JSON says which were given).
  long long sum = 0;
  for (std::size_t k = 0; k < js.tasks.size(); ++k)
    sum += j["tasks"][k].contains("min_available") ? js.tasks[k].min_available : js.tasks[k].replicas;
  if (given == 0 && sum < 0)  // only a negative task minAvailable makes the sum negative
    for (std::size_t k = 0; k < js.tasks.size(); ++k)
      if (js.tasks[k].min_available < 0 && j["tasks"][k].contains("min_available"))
        fail(file, task_at(k),
             "task minAvailable " + std::to_string(js.tasks[k].min_available) + " is below 0; with the job's min_available unset (or 0) "
             "the mutating webhook sets it to the tasks' minAvailable summed, " + std::to_string(sum) + ", and " +
                 webhook("job 'minAvailable' must be >= 0."));
  for (std::size_t k = 0; k < js.tasks.size(); ++k) {
    const models::JobTaskSpec& t = js.tasks[k];
    if (!j["tasks"][k].contains("min_available")) continue;
    if (t.min_available < 0)
      fail(file, task_at(k), "task minAvailable " + std::to_string(t.min_available) + " is below 0: " +
                                 webhook("'minAvailable' < 0 in task: " + t.name + ", job: " + js.name + ";"));
    if (t.min_available > t.replicas)
      fail(file, task_at(k), "task minAvailable " + std::to_string(t.min_available) + " is above the task's " +
                                 std::to_string(t.replicas) + " replicas: " +
                                 webhook("'minAvailable' is greater than 'replicas' in task: " + t.name + ", job: " + js.name + ";"));
  }
  if (given > js.nnodes)
    fail(file, where + "/min_available", "minAvailable " + std::to_string(given) + " is above the job's " + std::to_string(js.nnodes) +
                                             " pods: " + webhook("job 'minAvailable' should not be greater than total replicas in tasks;"));
  js.min_available = given;
}

models::TrainingJobSpec job_of(const std::string& file, const std::string& where, const json& j, std::size_t index,
                               int cores_per_device) {
  models::TrainingJobSpec js;
  js.name = j["name"];
  if (std::string p = object_name_problem(js.name, "Job"); !p.empty()) fail(file, where + "/name", p);
  js.queue = j["queue"];
  js.submit = core::Time::zero() + duration_of(file, where + "/submit", j["submit"]);
  if (j.contains("tasks")) {
    // A Volcano Job of independent pods: its tasks say the pods and how long each runs.
    if (j.contains("nnodes"))
      fail(file, where + "/nnodes", "give nnodes or tasks, not both: a job with tasks has its tasks' replicas as pods");
    if (j.contains("duration"))
      fail(file, where + "/duration", "give duration or tasks, not both: each task of a job with tasks has its own duration");
    if (j.contains("nproc_per_node"))
      fail(file, where + "/nproc_per_node", "a job with tasks runs no torchrun (nproc_per_node is torchrun's)");
    std::set<std::string> names;
    js.nnodes = 0;
    js.duration = core::Duration::ns(0);
    for (std::size_t k = 0; k < j["tasks"].size(); ++k) {
      const json& t = j["tasks"][k];
      const std::string w = where + "/tasks/" + std::to_string(k);
      models::JobTaskSpec ts;
      ts.name = t["name"];
      if (std::string p = object_name_problem(ts.name, "task"); !p.empty()) fail(file, w + "/name", p);
      if (!names.insert(ts.name).second) fail(file, w + "/name", "task name '" + ts.name + "' appears twice");
      ts.replicas = t["replicas"];
      ts.duration = duration_of(file, w + "/duration", t["duration"]);
      if (ts.duration < core::Duration::ns(0)) fail(file, w + "/duration", printable(t["duration"].dump()) + ": expected a duration >= 0");
      // Checked below, with the job's, as Volcano's webhooks check them.
      if (t.contains("min_available")) ts.min_available = t["min_available"];
      if (t.contains("policies"))
        ts.policies = std::make_shared<const std::vector<models::LifecyclePolicy>>(lifecycle_policies_of(file, w + "/policies", t["policies"]));
      js.nnodes += ts.replicas;
      js.duration = std::max(js.duration, ts.duration);  // the jobs table's duration: the longest pod's
      js.tasks.push_back(std::move(ts));
    }
  } else {
    if (!j.contains("nnodes") || !j.contains("duration"))
      fail(file, where, std::string("missing ") + (j.contains("nnodes") ? "duration" : "nnodes") +
                            ": a job gives nnodes and duration (a torchrun gang) or tasks (independent pods)");
    js.nnodes = j["nnodes"];
    js.duration = duration_of(file, where + "/duration", j["duration"]);
  }
  // A negative duration would end the job before it starts (the simulator refused it at run
  // time, naming no file).
  if (js.duration < core::Duration::ns(0)) fail(file, where + "/duration", printable(j["duration"].dump()) + ": expected a duration >= 0");
  check_min_available(file, where, j, js);
  if (js.min_available > 0 && js.min_available < js.nnodes && !js.independent_pods())
    fail(file, where + "/min_available",
         "minAvailable " + std::to_string(js.min_available) + " is below the job's " + std::to_string(js.nnodes) +
             " pods: for a torchrun job that is elastic torchrun (--nnodes=MIN:MAX, the rendezvous restarting on every "
             "membership change), which is not modelled; a job of independent pods (tasks) may have it");
  js.priority = j.value("priority", 0);
  js.trace_row = static_cast<std::int64_t>(index);
  if (j.contains("pod")) {
    const policy::Resource r = resources_of(file, where + "/pod", j["pod"]);
    js.cpu_per_pod = r.milli_cpu / 1000.0;
    js.memory_bytes_per_pod = r.memory;
    // The Neuron devices, under one of the device plugin's three names (Kubernetes counts them
    // independently: one pod naming two would hold two unrelated counts of the same chips).
    int neuron_names = 0;
    double devices = 0;
    for (policy::ResourceName n : {policy::rn::kNeuronDevice, policy::rn::kNeuron, policy::rn::kNeuronCore})
      if (const double* v = r.scalars.find(n)) {
        ++neuron_names;
        js.neuron_resource = n;
        devices = *v / 1000.0 / (n == policy::rn::kNeuronCore ? cores_per_device : 1);
      }
    if (neuron_names > 1)
      fail(file, where + "/pod",
           "requests Neuron devices under two of aws.amazon.com/neuron, aws.amazon.com/neurondevice and "
           "aws.amazon.com/neuroncore; Kubernetes and Volcano count these names independently, so request one");
    if (r.scalars.find(policy::rn::kPods))
      fail(file, where + "/pod/pods", "a pod does not request 'pods' (Volcano counts one per pod itself)");
    for (const auto& e : r.scalars)
      if (e.name != policy::rn::kNeuron && e.name != policy::rn::kNeuronDevice && e.name != policy::rn::kNeuronCore &&
          e.name != policy::rn::kEfa)
        js.other_requests.push_back(e);
    // Counts of devices: bounded before they become ints (a quantity such as "1E" is 10^18).
    const double efa = r.scalars.get(policy::rn::kEfa) / 1000.0;
    if (devices > kMaxDevicesPerPod || efa > kMaxDevicesPerPod)
      fail(file, where + "/pod", "requests " + std::to_string(devices > kMaxDevicesPerPod ? devices : efa) + " " +
                                     (devices > kMaxDevicesPerPod ? "Neuron devices" : "EFA interfaces") + " for one pod; at most " +
                                     std::to_string(kMaxDevicesPerPod) + " (a node has at most 1024 of either)");
    js.neuron_devices_per_pod = static_cast<int>(std::lround(devices));
    js.efa_per_pod = static_cast<int>(std::lround(efa));
  }
  if (j.contains("node_selector")) {
    for (auto it = j["node_selector"].begin(); it != j["node_selector"].end(); ++it)
      js.node_selector.emplace_back(it.key(), it.value().get<std::string>());
    std::sort(js.node_selector.begin(), js.node_selector.end());
  }
  if (j.contains("node_affinity")) js.node_affinity = node_affinity_of(file, where + "/node_affinity", j["node_affinity"]);
  if (j.contains("tolerations")) js.tolerations = tolerations_of(file, where + "/tolerations", j["tolerations"]);
  if (j.contains("priority_class")) {
    if (j.contains("priority"))
      fail(file, where + "/priority_class", "give priority or priority_class (its PriorityClass's value), not both");
    js.priority_class = j["priority_class"].get<std::string>();
  }
  if (j.contains("sla_waiting_time")) {
    // The annotation's value, read as Volcano reads it: Go's time.ParseDuration
    // (pkg/scheduler/api/job_info.go extractWaitingTime, v1.12.1).
    const std::string text = j["sla_waiting_time"].get<std::string>();
    std::int64_t ns = 0;
    try {
      ns = policy::parse_go_duration(text);
    } catch (const std::invalid_argument& e) {
      fail(file, where + "/sla_waiting_time",
           std::string(e.what()) + " (a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h)");
    }
    if (ns <= 0)
      fail(file, where + "/sla_waiting_time",
           "\"" + text + "\" is not positive (Volcano ignores such a waiting time; remove it instead)");
    if (ns > kMaxScenarioTime.count_ns())
      fail(file, where + "/sla_waiting_time", "\"" + printable(text) + "\" is beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
    js.sla_waiting_time = core::Duration::ns(ns);
  }
  if (j.contains("policies") || j.contains("task_policies") || j.contains("max_retry")) {
    // The job's own Volcano lifecycle (else the scenario's TorchX default).
    auto lc = std::make_shared<models::JobLifecycle>();
    lc->max_retry = j.value("max_retry", 0);
    if (lc->max_retry == 0) lc->max_retry = 3;  // the admission webhook's DefaultMaxRetry (mutate_job.go)
    if (j.contains("policies")) lc->policies = lifecycle_policies_of(file, where + "/policies", j["policies"]);
    if (j.contains("task_policies")) lc->task_policies = lifecycle_policies_of(file, where + "/task_policies", j["task_policies"]);
    js.lifecycle = std::move(lc);
  }
  js.nproc_per_node = j.value("nproc_per_node", std::max(1, js.neuron_devices_per_pod * cores_per_device));
  if (js.submit < core::Time::zero()) fail(file, where + "/submit", "must not be negative");
  return js;
}

PriorityClasses::PriorityClasses() {
  // k8s pkg/apis/scheduling/types.go: SystemCriticalPriority = 2 * HighestUserDefinablePriority;
  // system-node-critical is SystemCriticalPriority + 1000.
  classes_ = {{"system-cluster-critical", 2000000000, false}, {"system-node-critical", 2000001000, false}};
}

void PriorityClasses::add_json(const std::string& file, const json& list) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& c = list[i];
    const std::string where = "/priority_classes/" + std::to_string(i);
    const std::string name = c["name"].get<std::string>();
    // pkg/apis/scheduling/validation: the system- prefix is reserved, values above
    // HighestUserDefinablePriority are for system classes (the schema caps the value).
    if (name.rfind("system-", 0) == 0)
      fail(file, where + "/name", "the prefix 'system-' is reserved for Kubernetes' system PriorityClasses");
    if (has(name)) fail(file, where + "/name", "PriorityClass '" + name + "' is defined twice");
    if (std::string p = object_name_problem(name, "PriorityClass"); !p.empty()) fail(file, where + "/name", p);
    const int value = c["value"].get<int>();
    const bool never = c.value("preemptionPolicy", std::string("PreemptLowerPriority")) == "Never";
    classes_.insert(classes_.end() - 2, {name, value, never});  // before the two system classes
    if (c.value("globalDefault", false)) {
      if (global_default_)
        fail(file, where + "/globalDefault",
             "only one PriorityClass can be marked globalDefault ('" + global_default_name_ + "' is)");
      global_default_ = value;
      global_default_never_ = never;
      global_default_name_ = name;
    }
  }
}

bool PriorityClasses::has(const std::string& name) const {
  for (const Class& c : classes_)
    if (c.name == name) return true;
  return false;
}

std::string PriorityClasses::names() const {
  std::string s;
  for (const Class& c : classes_) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

int PriorityClasses::resolve(const models::TrainingJobSpec& j, bool priority_given) const {
  if (!j.priority_class.empty()) {
    for (const Class& c : classes_)
      if (c.name == j.priority_class) return c.value;
  }
  if (priority_given) return j.priority;
  return global_default_.value_or(0);
}

bool PriorityClasses::preempt_never(const models::TrainingJobSpec& j, bool priority_given) const {
  if (!j.priority_class.empty()) {
    for (const Class& c : classes_)
      if (c.name == j.priority_class) return c.never;
  }
  if (priority_given) return false;
  return global_default_ && global_default_never_;
}

}  // namespace mltwin::io::detail

namespace mltwin::io {

// Shared by the training and inference loaders and the catalog (declared in mltwin/io/scenario.hpp).


std::string resolve_data_dir(const std::string& explicit_dir, const std::string& start_dir) {
  auto check = [](const std::string& d, const std::string& how) {
    if (!std::filesystem::is_directory(d)) throw ScenarioError(how + " names '" + d + "', which is not a folder");
    return d;
  };
  if (!explicit_dir.empty()) return check(explicit_dir, "--data");
  if (const char* env = std::getenv("MLTWIN_DATA"); env && *env) return check(env, "MLTWIN_DATA");
  for (std::filesystem::path p = std::filesystem::absolute(start_dir); ; p = p.parent_path()) {
    const std::filesystem::path cand = p / "shared" / "data";
    if (std::filesystem::is_directory(cand)) return cand.lexically_normal().string();
    if (p == p.root_path() || p.empty()) break;
  }
  throw ScenarioError("the scenario reads ${MLTWIN_DATA}, which is not set, and no shared/data folder was found above '" +
                      start_dir + "'; set MLTWIN_DATA (or --data) to the shared data folder (the one holding training/ and inference/)");
}

}  // namespace mltwin::io
