// scenario_yaml.cpp — a scenario's references to the cluster's real configuration, replaced by
// the entries they stand for (scenario_yaml.hpp).
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "mltwin/io/yaml_config.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"

#include "mltwin/k8s/manifests_export.hpp"
#include "yaml_typed.hpp"

namespace mltwin::io {

using nlohmann::json;
using namespace yaml;

// ---- into the model ------------------------------------------------------------------------

namespace {

json queue_json(const QueueManifest& q) {
  json o = {{"name", q.name}, {"weight", q.weight}, {"priority", q.priority}, {"state", q.state}, {"reclaimable", q.reclaimable}};
  if (q.capability) o["capability"] = resources_json(*q.capability);
  if (!q.guarantee.empty()) o["guarantee"] = resources_json(q.guarantee);
  if (q.deserved) o["deserved"] = resources_json(*q.deserved);
  if (!q.parent.empty()) o["parent"] = q.parent;
  return o;
}

json node_group_json(const EksctlNodeGroup& g) {
  json o = {{"name", g.name}, {"desired_capacity", g.desired_capacity}};
  if (g.instance_types.size() == 1 && !g.distribution) o["instance_type"] = g.instance_types[0];
  else o["instance_types"] = g.instance_types;
  if (g.spot) o["capacity_type"] = "SPOT";
  if (g.distribution) {
    const EksctlInstancesDistribution& d = *g.distribution;
    json dj = json::object();
    if (d.on_demand_base_capacity) dj["on_demand_base_capacity"] = *d.on_demand_base_capacity;
    if (d.on_demand_percentage_above_base_capacity) dj["on_demand_percentage_above_base_capacity"] = *d.on_demand_percentage_above_base_capacity;
    if (!d.spot_allocation_strategy.empty()) dj["spot_allocation_strategy"] = d.spot_allocation_strategy;
    if (d.spot_instance_pools) dj["spot_instance_pools"] = *d.spot_instance_pools;
    if (d.max_price) dj["spot_max_price"] = *d.max_price;
    if (d.capacity_rebalance) dj["capacity_rebalance"] = true;
    o["instances_distribution"] = dj;
  }
  if (g.availability_zones.size() == 1) o["availability_zone"] = g.availability_zones[0];
  if (g.volume_size_gib > 0) o["capacity"] = {{"ephemeral-storage", std::to_string(g.volume_size_gib) + "Gi"}};
  if (!g.labels.empty()) {
    json l = json::object();
    for (const auto& [k, v] : g.labels) l[k] = v;
    o["labels"] = l;
  }
  if (!g.taints.empty()) {
    json t = json::array();
    for (const auto& x : g.taints) t.push_back({{"key", x.key}, {"value", x.value}, {"effect", x.effect}});
    o["taints"] = t;
  }
  return o;
}

}  // namespace

models::QueueSpec to_queue_spec(const QueueManifest& q, int /*neuroncores_per_device*/) {
  return detail::queue_of(q.at.file, "Queue " + q.name, queue_json(q));
}

models::NodeGroupSpec to_node_group_spec(const EksctlNodeGroup& g) {
  models::NodeGroupSpec ng;
  const json o = node_group_json(g);
  ng.name = o["name"];
  ng.instance_types = g.instance_types;
  if (g.spot) {
    ng.distribution.on_demand_percentage_above_base = 0;
    ng.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::PriceCapacityOptimized;
    ng.capacity_rebalance = true;
  }
  ng.count = o["desired_capacity"];
  ng.availability_zone = o.value("availability_zone", "");
  ng.labels = g.labels;
  // Requests are read as Quantity.MilliValue: GiB in bytes, times 1000.
  if (g.volume_size_gib > 0)
    ng.extra_capacity.add_scalar(policy::rn::kEphemeralStorage, static_cast<double>(g.volume_size_gib) * (1ull << 30) * 1000);
  if (o.contains("taints")) ng.taints = detail::taints_of(g.at.file, "nodeGroup " + g.name + "/taints", o["taints"]);
  return ng;
}

json volcano_job_json(const VolcanoJobManifest& job, const std::vector<PriorityClassManifest>& classes,
                      const json& submit, const json& duration, const std::string& duration_where) {
  const VolcanoTask& first = job.tasks.front();
  for (const auto& t : job.tasks) {
    auto sorted = [](ResourceList r) {
      std::sort(r.begin(), r.end());
      return r;
    };
    if (sorted(t.pod.requests) != sorted(first.pod.requests))
      fail_at(t.at, "task '" + t.name + "' requests other resources than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one shape");
    if (t.pod.node_selector != first.pod.node_selector)
      fail_at(t.at, "task '" + t.name + "' has another nodeSelector than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one nodeSelector");
    auto tol_json = [](const PodShape& p) {
      json a = json::array();
      for (const auto& x : p.tolerations) a.push_back(toleration_json(x));
      return a;
    };
    if (tol_json(t.pod) != tol_json(first.pod))
      fail_at(t.at, "task '" + t.name + "' has other tolerations than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one set of tolerations");
    if (t.pod.node_affinity != first.pod.node_affinity)
      fail_at(t.at, "task '" + t.name + "' has another node affinity than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one node affinity");
  }
  const int pods = job.pods();
  if (pods < 1) fail_at(job.at, "the job has no pods (every task has replicas: 0)");
  // A duration per task name: the Job's pods run independently (no torchrun), each its task's.
  const bool independent = duration.is_object();
  if (job.min_available < pods && !independent)
    fail_at(job.min_available_at, "minAvailable " + std::to_string(job.min_available) + " is below the job's " +
                                      std::to_string(pods) + " pods: for a torchrun job that is elastic torchrun (--nnodes=MIN:MAX), "
                                      "which is not modelled; give the manifest entry's duration per task name for a Job of "
                                      "independent pods");
  if (job.min_available > pods)
    fail_at(job.min_available_at, "minAvailable " + std::to_string(job.min_available) + " is above the job's " +
                                      std::to_string(pods) + " pods: the job could never run");
  // Priority: the PriorityClass named by the job (else by its pods); the scenario loader gives
  // the job its value, or the globalDefault class's value when it names none.
  std::string pc = job.priority_class_name.empty() ? first.pod.priority_class_name : job.priority_class_name;
  if (!pc.empty() && pc != "system-cluster-critical" && pc != "system-node-critical" &&
      std::none_of(classes.begin(), classes.end(), [&](const auto& c) { return c.name == pc; }))
    fail_at(job.at, "priorityClassName '" + pc + "' names no PriorityClass (give its manifest among the scenario's manifests)");
  json j = {{"name", job.name}, {"queue", job.queue}, {"submit", submit}, {"pod", resources_json(first.pod.requests)}};
  if (!independent) {
    j["nnodes"] = pods;
    j["duration"] = duration;
  }
  if (!pc.empty()) j["priority_class"] = pc;
  if (first.pod.nproc_per_node && !independent) j["nproc_per_node"] = *first.pod.nproc_per_node;
  if (!first.pod.node_selector.empty()) {
    json ns = json::object();
    for (const auto& [k, v] : first.pod.node_selector) ns[k] = v;
    j["node_selector"] = ns;
  }
  if (!first.pod.tolerations.empty()) {
    json a = json::array();
    for (const auto& x : first.pod.tolerations) a.push_back(toleration_json(x));
    j["tolerations"] = a;
  }
  if (!first.pod.node_affinity.is_null()) j["node_affinity"] = first.pod.node_affinity;
  if (!job.sla_waiting_time.empty()) j["sla_waiting_time"] = job.sla_waiting_time;
  // The lifecycle: maxRetry, the job's policies and its tasks' (one list: mltwin's job has one
  // pod per task, each task its own policies). Events that never happen in mltwin are left out
  // (PodPending applies only with a timeout, refused above; TaskFailed and JobUpdated need
  // container restarts or a Job update).
  auto policies_json = [](const std::vector<JobPolicy>& ps) {
    json a = json::array();
    for (const auto& p : ps) {
      json ev = json::array();
      for (const auto& e : p.events)
        if (e == "*" || e == "PodEvicted" || e == "PodFailed" || e == "TaskCompleted" || e == "Unknown") ev.push_back(e);
      if (!ev.empty()) a.push_back({{"events", ev}, {"action", p.action}});
    }
    return a;
  };
  j["max_retry"] = job.max_retry;
  if (const json p = policies_json(job.policies); !p.empty()) j["policies"] = p;
  if (independent) {
    // Each task: its replicas, minAvailable, own policies and the entry's duration for its name.
    const std::string& where = duration_where;
    json tasks = json::array();
    for (const auto& t : job.tasks) {
      if (!duration.contains(t.name))
        fail_at(t.at, "task '" + t.name + "' has no duration in " + where + " (give one per task name)");
      if (t.replicas < 1) fail_at(t.at, "task '" + t.name + "' has replicas 0 (a task of a Job of independent pods needs a pod)");
      json tj = {{"name", t.name}, {"replicas", t.replicas}, {"duration", duration[t.name]}};
      if (t.min_available) tj["min_available"] = *t.min_available;
      if (const json p = policies_json(t.policies); !p.empty()) tj["policies"] = p;
      tasks.push_back(tj);
    }
    for (auto it = duration.begin(); it != duration.end(); ++it)
      if (std::none_of(job.tasks.begin(), job.tasks.end(), [&](const auto& t) { return t.name == it.key(); }))
        fail_at(job.at, "Job " + job.name + " has no task '" + it.key() + "' (" + where + " names it)");
    j["tasks"] = tasks;
    j["min_available"] = job.min_available;
    return j;
  }
  for (const auto& t : job.tasks)
    if (policies_json(t.policies) != policies_json(first.policies))
      fail_at(t.at, "task '" + t.name + "' has other policies than task '" + first.name +
                        "'; mltwin gives every task of a TorchX job the same policies (give the manifest entry's duration "
                        "per task name for a Job of independent pods, whose tasks have their own)");
  if (const json p = policies_json(first.policies); !p.empty()) j["task_policies"] = p;
  return j;
}

models::TrainingJobSpec to_training_job(const VolcanoJobManifest& job, const std::vector<PriorityClassManifest>& classes,
                                        core::Duration submit, core::Duration duration, int neuroncores_per_device) {
  const json j = volcano_job_json(job, classes, std::to_string(submit.count_ns()) + "ns",
                                  std::to_string(duration.count_ns()) + "ns");
  models::TrainingJobSpec js = detail::job_of(job.at.file, "Job " + job.name, j, 0, neuroncores_per_device);
  detail::PriorityClasses pcs;
  json list = json::array();
  for (const auto& c : classes)
    list.push_back({{"name", c.name}, {"value", c.value}, {"globalDefault", c.global_default},
                    {"preemptionPolicy", c.preempt_never ? "Never" : "PreemptLowerPriority"}});
  pcs.add_json(job.at.file, list);
  js.priority = pcs.resolve(js, false);
  js.preempt_never = pcs.preempt_never(js, false);
  return js;
}

}  // namespace mltwin::io

// ---- a scenario's references ---------------------------------------------------------------

namespace mltwin::io::detail {

using nlohmann::json;
using namespace yaml;

namespace {

namespace fs = std::filesystem;

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

/// The files a manifests entry names: one file, or the matches of a glob pattern (sorted).
std::vector<std::pair<std::string, std::string>> files_of(const std::string& scenario_path, const std::string& where,
                                                          const std::string& as_written, const std::string& explicit_data_dir,
                                                          std::string& data_dir) {
  const std::string resolved = resolve_input_path(as_written, scenario_path, explicit_data_dir, data_dir);
  if (!has_glob(resolved)) {
    require_input(scenario_path, where, as_written, resolved);
    return {{resolved, as_written}};
  }
  glob_t g{};
  const int rc = ::glob(resolved.c_str(), 0, nullptr, &g);
  std::vector<std::pair<std::string, std::string>> out;
  if (rc == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string m = g.gl_pathv[i];
      out.emplace_back(m, (fs::path(as_written).parent_path() / fs::path(m).filename()).string());
    }
  ::globfree(&g);
  if (out.empty()) fail(scenario_path, where, "no file matches '" + as_written + "'");
  return out;
}

}  // namespace

void expand_config_files(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                         std::vector<InputFileRef>& inputs, const ScenarioCatalog& catalog,
                         YamlOrigins::Places& origins, std::vector<std::string>& warnings) {
  // volcano.scheduler_config: the volcano-scheduler ConfigMap.
  json& v = doc["volcano"];
  if (v.contains("scheduler_config")) {
    for (const char* k : {"actions", "tiers", "configurations"})
      if (v.contains(k))
        fail(path, std::string("/volcano/") + k,
             "the scenario reads the scheduler configuration from volcano.scheduler_config; give it there or here, not both");
    const std::string as_written = v["scheduler_config"];
    const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
    require_input(path, "/volcano/scheduler_config", as_written, file);
    const json conf = volcano_scheduler_config_json(file, &warnings);
    for (auto it = conf.begin(); it != conf.end(); ++it) v[it.key()] = it.value();
    v.erase("scheduler_config");
    inputs.push_back({"volcano_scheduler_config", file, as_written});
  }
  // cluster.eksctl: the node groups of an eksctl ClusterConfig.
  json& c = doc["cluster"];
  if (c.contains("eksctl")) {
    const std::string as_written = c["eksctl"];
    const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
    require_input(path, "/cluster/eksctl", as_written, file);
    const EksctlClusterConfig cc = read_eksctl_config(file);
    json groups = json::array();
    for (const auto& g : cc.node_groups) {
      for (std::size_t k = 0; k < g.instance_types.size(); ++k)
        if (catalog.catalog.find(g.instance_types[k]) == nullptr)
          fail_at(g.instance_types_at[k], "instance type " + catalog.missing(g.instance_types[k]));
        else if (std::string p = catalog.use_problem(g.instance_types[k], ScenarioCatalog::Use::EksNodeGroup); !p.empty())
          fail_at(g.instance_types_at[k], p);
      json o = node_group_json(g);
      origins["/cluster/node_groups"].push_back(g.at.str() + " '" + g.name + "'");
      // minSize / maxSize bound the cluster autoscaler; without one (/cluster/autoscaler) the
      // group stays at desiredCapacity, as its Auto Scaling group does when nothing changes it.
      if (c.contains("autoscaler")) {
        o["min_size"] = g.min_size;
        o["max_size"] = g.max_size;
      }
      groups.push_back(std::move(o));
    }
    c["node_groups"] = groups;
    c.erase("eksctl");
    if (!c.contains("name")) c["name"] = cc.name;
    if (!c.contains("kubernetes_version") && !cc.version.empty()) c["kubernetes_version"] = cc.version;
    inputs.push_back({"eksctl_cluster_config", file, as_written});
  }
  // queues_from: Volcano Queue manifests, after the scenario's own queues.
  std::map<std::string, std::string> queue_where;  // name -> where defined
  if (doc.contains("queues"))
    for (std::size_t i = 0; i < doc["queues"].size(); ++i)
      queue_where[doc["queues"][i]["name"]] = path + ": /queues/" + std::to_string(i);
  std::vector<QueueManifest> manifest_queues;  // in the order they follow /queues
  if (doc.contains("queues_from")) {
    json& qs = doc["queues"];
    if (qs.is_null()) qs = json::array();
    for (std::size_t i = 0; i < doc["queues_from"].size(); ++i) {
      const std::string where = "/queues_from/" + std::to_string(i);
      for (const auto& [file, as_written] :
           files_of(path, where, doc["queues_from"][i].get<std::string>(), explicit_data_dir, data_dir)) {
        // A kubectl export of several kinds (kubectl get nodes,pods,podgroups,queues,priorityclasses
        // -A -o json, or what mltwin run --snapshot-at writes) may be listed here and under the
        // keys that read its other kinds: those are skipped here, unparsed.
        std::map<std::string, std::size_t> skipped;
        const Manifests m = k8s::read_manifests_skipping(file, {"Node", "Pod", "PodGroup", "PriorityClass", "ConfigMap", "*"}, skipped);
        if (!m.jobs.empty()) fail_at(m.jobs[0].at, "a Volcano Job in a queues_from file; list job files under workload.manifests");
        if (m.queues.empty()) {
          // What it holds instead, and the keys that read it.
          std::string held, keys;
          for (const auto& [kind, n] : skipped) held += (held.empty() ? "" : ", ") + std::to_string(n) + " " + kind + "(s)";
          auto key = [&](const char* kind, const char* text) {
            if (skipped.count(kind)) keys += std::string(keys.empty() ? "" : "; ") + text;
          };
          key("Node", "Nodes are read from /cluster/nodes_from");
          if (skipped.count("Pod") || skipped.count("PodGroup")) keys += std::string(keys.empty() ? "" : "; ") + "Pods and PodGroups from /cluster/pods_from";
          key("PriorityClass", "PriorityClasses from /cluster/pods_from or /workload/manifests");
          key("ConfigMap", "the volcano-scheduler ConfigMap from /volcano/scheduler_config");
          fail(path, where, "'" + as_written + "' holds no Queue" + (held.empty() ? std::string() : " (it holds " + held + ": " + keys + ")"));
        }
        for (const auto& q : m.queues) {
          if (auto it = queue_where.find(q.name); it != queue_where.end())
            fail_at(q.at, "queue '" + q.name + "' is already defined (" + it->second + ")");
          queue_where[q.name] = q.at.str();
          qs.push_back(queue_json(q));
          manifest_queues.push_back(q);
        }
        inputs.push_back({"queue_manifests", file, as_written});
      }
    }
    // The queue tree (spec.parent), once every queue is known: a problem in a manifest's queue
    // is reported at its spec.parent (or at the manifest); the scenario's own are checked with
    // their JSON paths by the loader.
    std::vector<models::QueueSpec> tree;
    for (const auto& q : qs) {
      models::QueueSpec t;
      t.name = q["name"];
      t.parent = q.value("parent", std::string());
      tree.push_back(std::move(t));
    }
    std::size_t at = 0;
    if (std::string why = detail::queue_tree_problem(tree, at); !why.empty()) {
      const std::size_t first_manifest = tree.size() - manifest_queues.size();
      if (at >= first_manifest) {
        const QueueManifest& q = manifest_queues[at - first_manifest];
        fail_at(why.rfind("the root", 0) == 0 ? q.at : q.parent_at, why);
      }
    }
    doc.erase("queues_from");
  }
  if (!doc.contains("queues") || doc["queues"].empty())
    fail(path, "/queues", "the scenario defines no queue: give /queues or /queues_from");
  // workload.manifests: Volcano Jobs (TorchX's among them) and the PriorityClasses they name.
  json& w = doc["workload"];
  if (w.contains("manifests")) {
    struct Entry {
      VolcanoJobManifest job;
      json submit, duration;
      std::string duration_where;  // the entry's /duration, for volcano_job_json's messages
    };
    std::vector<Entry> entries;
    // The scenario's own /priority_classes first (the manifests may not redefine them), then the
    // manifests'; all of them end up in /priority_classes, which the JSON loader reads.
    std::vector<PriorityClassManifest> classes;
    if (doc.contains("priority_classes"))
      for (std::size_t i = 0; i < doc["priority_classes"].size(); ++i) {
        const json& pcj = doc["priority_classes"][i];
        classes.push_back({pcj["name"].get<std::string>(), pcj["value"].get<int>(), pcj.value("globalDefault", false),
                           pcj.value("preemptionPolicy", std::string()) == "Never",
                           YamlPlace{path, 0, 0, "/priority_classes/" + std::to_string(i)}});
      }
    const std::size_t json_classes = classes.size();
    for (std::size_t i = 0; i < w["manifests"].size(); ++i) {
      const json& e = w["manifests"][i];
      const std::string where = "/workload/manifests/" + std::to_string(i);
      const json submit = e.value("submit", json(0));
      json duration = e["duration"];
      if (duration_of(path, where + "/submit", submit) < core::Duration::ns(0)) fail(path, where + "/submit", "must not be negative");
      if (duration.is_object()) {  // per task name: Jobs of independent pods
        for (auto it = duration.begin(); it != duration.end(); ++it)
          if (duration_of(path, where + "/duration/" + it.key(), it.value()) < core::Duration::ns(0))
            fail(path, where + "/duration/" + it.key(), "expected a duration >= 0");
      } else {
        (void)duration_of(path, where + "/duration", duration);
      }
      for (const auto& [file, as_written] : files_of(path, where + "/path", e["path"], explicit_data_dir, data_dir)) {
        Manifests m = read_manifests(file);
        if (m.jobs.empty() && m.priority_classes.empty())
          fail(path, where + "/path", "'" + as_written + "' holds no Volcano Job (or PriorityClass)");
        if (!m.queues.empty()) fail_at(m.queues[0].at, "a Queue among the workload's manifests; list Queue files under /queues_from");
        if (!m.podgroups.empty())
          fail_at(m.podgroups[0].at,
                  "a PodGroup alone does not say what its pods request; mltwin reads Volcano Jobs (their job controller creates "
                  "the PodGroup)");
        for (auto& pc : m.priority_classes) {
          if (pc.system) continue;  // Kubernetes' own, as kubectl lists it: already there
          for (const auto& other : classes) {
            if (other.name == pc.name) fail_at(pc.at, "PriorityClass '" + pc.name + "' is already defined (" + other.at.str() + ")");
            if (other.global_default && pc.global_default)
              fail_at(pc.at, "only one PriorityClass can be marked globalDefault ('" + other.name + "' is, " + other.at.str() + ")");
          }
          classes.push_back(pc);
        }
        for (auto& j : m.jobs) entries.push_back({std::move(j), submit, duration, path + ": " + where + "/duration"});
        inputs.push_back({"job_manifests", file, as_written});
      }
    }
    json jobs = json::array();
    std::map<std::string, YamlPlace> seen;
    for (const auto& e : entries) {
      // By name alone: mltwin's jobs have no namespace (results and explain name them), so two
      // Jobs of one name in two namespaces would be two jobs nobody can tell apart.
      const std::string key = e.job.name;
      if (auto it = seen.find(key); it != seen.end())
        fail_at(e.job.at, "job '" + e.job.name + "' is already defined (" + it->second.str() +
                              "); job names must differ across namespaces too: mltwin's jobs have no namespace");
      seen[key] = e.job.at;
      if (!queue_where.count(e.job.queue))
        fail_at(e.job.queue_at, "queue '" + e.job.queue + "' is not defined (" +
                                    (e.job.queue == "default" && e.job.queue_at.path.empty() ? "Volcano's default when spec.queue is absent; " : "") +
                                    "give it in /queues or /queues_from)");
      jobs.push_back(volcano_job_json(e.job, classes, e.submit, e.duration, e.duration_where));
      origins["/workload/jobs"].push_back(e.job.at.str() + (e.job.at.path.empty() ? ": " : " ") + "Job '" + e.job.name + "'");
    }
    w["jobs"] = jobs;
    w.erase("manifests");
    if (classes.size() > json_classes) {
      json& list = doc["priority_classes"];
      if (list.is_null()) list = json::array();
      for (std::size_t i = json_classes; i < classes.size(); ++i)
        list.push_back({{"name", classes[i].name}, {"value", classes[i].value}, {"globalDefault", classes[i].global_default},
                        {"preemptionPolicy", classes[i].preempt_never ? "Never" : "PreemptLowerPriority"}});
    }
  }
}

}  // namespace mltwin::io::detail
