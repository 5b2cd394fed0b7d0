// scenario_workload.cpp — /workload of a training scenario (TorchX settings, a Philly trace or
// explicit jobs), the duration model, and the checks only the whole scenario can make: zones,
// extended resources, queues (training_load.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/io/philly.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/step_model.hpp"
#include "mltwin/policy/node_constraints.hpp"
#include "k8s_objects.hpp"
#include "training_load.hpp"

namespace mltwin::io::detail {

using nlohmann::json;

void TrainingLoad::read_workload() {
  // Workload.
  const json& w = doc["workload"];
  if (w.contains("torchx")) {
    const json& t = w["torchx"];
    sc.max_retries = t.value("max_retries", 0);
    if (t.contains("peer_failure_timeout")) {
      sc.peer_failure_timeout = duration_of(path, "/workload/torchx/peer_failure_timeout", t["peer_failure_timeout"]);
      if (sc.peer_failure_timeout <= core::Duration::ns(0)) fail(path, "/workload/torchx/peer_failure_timeout", "expected a positive duration");
    }
    if (t.contains("checkpoint_interval")) {
      sc.checkpoint_interval = duration_of(path, "/workload/torchx/checkpoint_interval", t["checkpoint_interval"]);
      if (sc.checkpoint_interval < core::Duration::ns(0)) fail(path, "/workload/torchx/checkpoint_interval", "expected a duration >= 0");
    }
  }
  if (w.contains("philly")) {
    const json& p = w["philly"];
    // ${MLTWIN_DATA}/... is in the data folder, a relative path beside the scenario.
    const std::string trace_as_written = p["trace"];
    const std::string trace = detail::resolve_input_path(trace_as_written, path, opts.data_dir, out.data_dir);
    detail::require_input(path, "/workload/philly/trace", trace_as_written, trace);
    const json& m = p["mapping"];
    PhillyMapping pm;
    pm.neuron_devices_per_gpu = m["neuron_devices_per_gpu"];
    pm.devices_per_node = m["devices_per_node"];
    pm.neuroncores_per_device = cores_per_device;
    pm.processes_per_neuroncore = m.value("processes_per_neuroncore", 1);
    const policy::Resource per = resources_of(path, "/workload/philly/mapping/pod_per_device", m["pod_per_device"]);
    const policy::Resource whole = resources_of(path, "/workload/philly/mapping/pod_whole_node", m["pod_whole_node"]);
    pm.per_device_cpu = per.milli_cpu / 1000.0;
    pm.per_device_memory_bytes = per.memory;
    pm.whole_cpu = whole.milli_cpu / 1000.0;
    pm.whole_memory_bytes = whole.memory;
    pm.whole_efa = static_cast<int>(std::lround(whole.scalars.get(policy::rn::kEfa) / 1000.0));
    pm.queue_prefix = p.value("queue_prefix", std::string("vc-"));
    pm.priority = p.value("priority", 0);
    pm.max_jobs = p.value("max_jobs", std::size_t{0});
    sc.jobs = read_philly(trace, pm);
    const std::string model = p.value("model", std::string()), flags = p.value("compiler_flags", std::string());
    std::vector<std::pair<std::string, std::string>> selector;
    if (p.contains("node_selector"))
      for (auto it = p["node_selector"].begin(); it != p["node_selector"].end(); ++it)
        selector.emplace_back(it.key(), it.value().get<std::string>());
    std::sort(selector.begin(), selector.end());
    const policy::NodeAffinity affinity =
        p.contains("node_affinity") ? detail::node_affinity_of(path, "/workload/philly/node_affinity", p["node_affinity"]) : policy::NodeAffinity{};
    const std::vector<policy::Toleration> tolerations =
        p.contains("tolerations") ? detail::tolerations_of(path, "/workload/philly/tolerations", p["tolerations"]) : std::vector<policy::Toleration>{};
    std::string pclass;
    if (p.contains("priority_class")) {
      if (p.contains("priority")) fail(path, "/workload/philly/priority_class", "give priority or priority_class (its PriorityClass's value), not both");
      pclass = p["priority_class"].get<std::string>();
      if (!classes.has(pclass))
        fail(path, "/workload/philly/priority_class", "PriorityClass '" + pclass + "' is not defined (known: " + classes.names() + ")");
    }
    for (auto& j : sc.jobs) {
      j.model = model;
      j.compiler_flags = flags;
      j.node_selector = selector;
      j.node_affinity = affinity;
      j.tolerations = tolerations;
      j.priority_class = pclass;
      j.priority = classes.resolve(j, p.contains("priority"));
      j.preempt_never = classes.preempt_never(j, p.contains("priority"));
    }
    replicate_philly(p.value("copies", 1));
    out.inputs.push_back({"philly_trace", trace, trace_as_written});
  } else {
    json& jobs = doc["workload"]["jobs"];
    std::map<std::string, std::size_t> job_index;  // name -> first index
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      json& j = jobs[i];
      const std::string where = "/workload/jobs/" + std::to_string(i);
      // The whole-node shorthand: "pod": "aws_trn1_32xlarge", TorchX's named resource.
      if (j.contains("pod") && j["pod"].is_string()) j["pod"] = torchx_named_resource(path, where + "/pod", j["pod"].get<std::string>());
      models::TrainingJobSpec js = detail::job_of(path, where, j, i, cores_per_device);
      if (const auto [it, fresh] = job_index.emplace(js.name, i); !fresh)
        fail(path, where + "/name", "duplicate job '" + js.name + "' (also /workload/jobs/" + std::to_string(it->second) +
                                        "): job names identify jobs in the results and in explain");
      if (!js.priority_class.empty() && !classes.has(js.priority_class))
        fail(path, where + "/priority_class", "PriorityClass '" + js.priority_class + "' is not defined (known: " + classes.names() + ")");
      js.priority = classes.resolve(js, j.contains("priority"));
      js.preempt_never = classes.preempt_never(js, j.contains("priority"));
      js.model = j.value("model", std::string());
      js.compiler_flags = j.value("compiler_flags", std::string());
      if (!queue_names.count(js.queue)) fail(path, where + "/queue", "queue '" + js.queue + "' is not defined in /queues");
      sc.jobs.push_back(js);
    }
    std::stable_sort(sc.jobs.begin(), sc.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; });
  }
}

void TrainingLoad::read_duration_model() {
  const json& w = doc["workload"];
  if (w.value("duration_model", std::string("trace")) == "derived") {
    if (!sc.step_model) fail(path, "/workload/duration_model", "'derived' needs a /step_model block (profile and fabric)");
    sc.duration_model = models::DurationModel::Derived;
    const models::LinkGrant nominal = sc.step_model->nominal();
    const auto& explicit_jobs = w.contains("jobs") ? w["jobs"] : json::array();
    for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
      models::TrainingJobSpec& j = sc.jobs[i];
      // Explicit jobs may give their steps; trace_row is their index in /workload/jobs.
      if (w.contains("jobs")) {
        const json& ej = explicit_jobs[static_cast<std::size_t>(j.trace_row)];
        if (ej.contains("steps")) {
          if (j.independent_pods())
            fail(path, "/workload/jobs/" + std::to_string(j.trace_row) + "/steps",
                 "a job with tasks runs no torchrun training: its pods run their tasks' durations, not optimizer steps");
          j.steps = ej["steps"].get<std::int64_t>();
        }
      }
      if (j.steps > 0 || j.independent_pods()) continue;  // independent pods: their tasks' durations
      // Steps = traced duration / step time at the job's own placement with no contention.
      const models::Placement pl{j.nnodes, j.neuron_devices_per_pod * cores_per_device};
      if (pl.cores_per_node < 1)
        fail(path, "/workload/duration_model", "job " + j.name + " requests no Neuron device: it has no step time");
      const std::int64_t t = models::step_time(sc.step_model->profile, pl, nominal).total().count_ns();
      if (t <= 0) fail(path, "/step_model/profile", "the step time is zero");
      j.steps = std::max<std::int64_t>(1, (j.duration.count_ns() + t / 2) / t);
    }
    if (sc.step_model->contention && sc.autoscaler)
      fail(path, "/cluster/autoscaler",
           "jobs sharing the /fabric (duration_model derived) with a cluster autoscaler is not modelled yet: drop one, "
           "or the /fabric block (then give /step_model/fabric)");
  }
}

json TrainingLoad::torchx_named_resource(const std::string& file, const std::string& where, const std::string& name) const {
  // TorchX's named resources for AWS (torchx/specs/named_resources_aws.py: aws_<type with _ for
  // .>, e.g. aws_trn1_32xlarge: the instance's vCPUs, memMB = its GiB x 1024, its Neuron devices
  // and EFA interfaces), as its Kubernetes scheduler writes the pod's requests
  // (torchx/schedulers/kubernetes_scheduler.py: RESERVED_MILLICPU 100 and RESERVED_MEMMB 1024
  // left for the kubelet and daemons; memory in "M"): a whole node, one pod per node. The
  // instance type is the catalog's row.
  if (name.rfind("aws_", 0) != 0 || name.size() <= 4)
    fail(file, where, "\"" + name + "\": expected a TorchX named resource, aws_<instance type> (e.g. aws_trn1_32xlarge), or a resource list");
  std::string type = name.substr(4);
  const auto us = type.find('_');
  if (us == std::string::npos) fail(file, where, "\"" + name + "\": expected aws_<family>_<size>, e.g. aws_trn1_32xlarge");
  type[us] = '.';
  const models::InstanceType* it = cat.catalog.find(type);
  if (it == nullptr) fail(file, where, "\"" + name + "\": instance type " + cat.missing(type));
  constexpr int kReservedMilliCpu = 100, kReservedMemMb = 1024;  // kubernetes_scheduler.py
  json pod = {{"cpu", std::to_string(it->vcpu * 1000 - kReservedMilliCpu) + "m"},
              {"memory", std::to_string(static_cast<long long>(std::llround(it->memory_gib * 1024)) - kReservedMemMb) + "M"}};
  if (it->trainium_chips > 0) pod["aws.amazon.com/neurondevice"] = it->trainium_chips;
  if (it->efa_interfaces > 0) pod["vpc.amazonaws.com/efa"] = it->efa_interfaces;
  return pod;
}

void TrainingLoad::check_zones() const {
  const json& w = doc["workload"];
  // EFA traffic does not cross availability zones (docs/fabric.md): a multi-node job that
  // uses EFA (requests vpc.amazonaws.com/efa, or shares the /fabric) and whose pods may land
  // in several zones — by the labels their nodes carry (the group's own, the instance type, the
  // EKS node group, the zone) and their taints — is accepted, as Kubernetes accepts it, but if
  // the scheduler does split it, its collectives cannot connect and its pods fail at training
  // start (PodLifecycle::training_begins). The loader warns, once, naming the first such job.
  std::set<std::string> all_zones;
  for (const auto& g : sc.node_groups) all_zones.insert(g.availability_zone);
  if (all_zones.size() < 2) return;
  std::size_t count = 0;
  std::string first;
  for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
    const models::TrainingJobSpec& j = sc.jobs[i];
    if (j.nnodes < 2 || !models::uses_efa(sc, j)) continue;
    std::set<std::string> zones;
    const policy::TaskInfo cons = models::pod_constraints(j);
    const policy::Resource pod = policy::task_resreq(models::pod_requests(j, cores_per_device));
    // A group counts where one of its nodes could take the pod: its labels and taints admit
    // it and its empty node has room for the pod's requests (a CPU system group in another
    // zone does not split a Trainium gang).
    auto may_hold = [&](const models::NodeGroupSpec& g, models::NodeLaunch l) {
      return policy::static_misfit(cons, models::node_labels(g, l), {}, g.taints).empty() &&
             pod.less_equal(models::node_resources(sc, g, l).pod_room(), policy::DimensionDefault::Zero);
    };
    for (const auto& g : sc.node_groups)
      if (std::any_of(g.instance_types.begin(), g.instance_types.end(), [&](const std::string& type) {
            const std::size_t k = static_cast<std::size_t>(&type - g.instance_types.data());
            return may_hold(g, {k, models::CapacityType::OnDemand}) || may_hold(g, {k, models::CapacityType::Spot});
          }))
        zones.insert(g.availability_zone.empty() ? std::string("(no zone)") : g.availability_zone);
    if (zones.size() < 2) continue;
    if (++count > 1) continue;
    std::string list;
    for (const auto& z : zones) list += (list.empty() ? "" : ", ") + z;
    const std::string where = w.contains("jobs")      ? "/workload/jobs/" + std::to_string(j.trace_row)
                              : w.contains("philly") ? std::string("/workload/philly/node_selector")
                                                     : std::string("/workload/manifests");
    first = path + ": " + where + ": job " + j.name + " (" + std::to_string(j.nnodes) + " nodes, EFA) may be placed across availability zones (" + list + ")";
  }
  if (count == 0) return;
  out.warnings.push_back(first + (count > 1 ? " (and " + std::to_string(count - 1) + " more job(s))" : std::string()) +
                         ": EFA traffic does not cross zones, so a job split across them fails at training start (its pods "
                         "Failed, PodFailed). Keep it in one zone with a node_selector (nodeSelector) or a required node_affinity "
                         "on topology.kubernetes.io/zone");
  if (opts.strict) throw ScenarioError(out.warnings.back() + " (--strict: warnings are errors)");
}

void TrainingLoad::check_extended_resources() const {
  const json& w = doc["workload"];
  // A resource name only exists where a device plugin or the node group advertises it: a pod
  // requesting an extended resource no node group offers would stay Pending for ever, which is
  // almost always a misspelling (nvidia.com/gpus). Kubernetes' and the device plugins' own
  // names (policy::rn) and hugepages-* are left to the run, which rejects the job naming it.
  std::set<std::string> offered;
  for (const auto& g : sc.node_groups)
    for (std::size_t k = 0; k < g.instance_types.size(); ++k)
      for (const auto ct : {models::CapacityType::OnDemand, models::CapacityType::Spot})
        models::node_resources(sc, g, models::NodeLaunch{k, ct}).allocatable.for_each([&](policy::ResourceName n, double amount) {
          if (amount > 0) offered.insert(std::string(n.str()));
        });
  std::set<std::uint16_t> checked;
  for (const auto& j : sc.jobs)
    models::pod_requests(j, cores_per_device).for_each([&](policy::ResourceName n, double amount) {
      if (amount <= 0 || n.id() < policy::rn::kWellKnown || !checked.insert(n.id()).second) return;
      const std::string name(n.str());
      if (offered.count(name) || name.rfind("hugepages-", 0) == 0) return;
      std::vector<std::string> candidates(offered.begin(), offered.end());
      for (std::uint16_t id = 0; id < policy::rn::kWellKnown; ++id) candidates.emplace_back(policy::ResourceName(id).str());
      std::string list;
      for (const auto& o : offered) list += (list.empty() ? "" : ", ") + o;
      const std::string where = w.contains("jobs")      ? "/workload/jobs/" + std::to_string(j.trace_row)
                                : w.contains("philly") ? std::string("/workload/philly/mapping")
                                                       : std::string("/workload/manifests");
      fail(path, where,
           "job " + j.name + " requests '" + name + "', which no node group offers (they offer " + list + ")" +
               detail::did_you_mean(name, candidates) +
               "; an extended resource exists where a node group gives it (its catalog row's extended_resources, or "
               "/cluster/node_groups/N/capacity)");
    });
}

void TrainingLoad::replicate_philly(int copies) {
  if (copies <= 1) return;
  // Copy i (1 .. copies-1) of every queue but root, and of every job: the same figures, names
  // suffixed -c<i>; a copy's queue hangs under the copy of its parent. The jobs keep their
  // submit times, so the copies interleave (stable: copy 0 first at a tie).
  const std::vector<models::QueueSpec> queues = sc.queues;
  for (int i = 1; i < copies; ++i) {
    const std::string suffix = "-c" + std::to_string(i);
    for (models::QueueSpec q : queues) {
      if (q.name == "root") continue;
      q.name += suffix;
      if (!q.parent.empty() && q.parent != "root") q.parent += suffix;
      if (!queue_names.insert(q.name).second)
        fail(path, "/workload/philly/copies", "copy " + std::to_string(i) + " of queue '" + q.name.substr(0, q.name.size() - suffix.size()) +
                                                   "' would be named '" + q.name + "', which /queues already defines");
      sc.queues.push_back(std::move(q));
    }
  }
  std::vector<models::TrainingJobSpec> all;
  all.reserve(sc.jobs.size() * static_cast<std::size_t>(copies));
  for (const auto& j : sc.jobs)
    for (int i = 0; i < copies; ++i) {
      all.push_back(j);
      if (i == 0) continue;
      all.back().name += "-c" + std::to_string(i);
      all.back().queue += "-c" + std::to_string(i);
    }
  sc.jobs = std::move(all);  // read_philly's order (by submit time), each job followed by its copies
}

void TrainingLoad::check_job_queues() const {
  // Every job's queue must exist.
  for (const auto& j : sc.jobs)
    if (!queue_names.count(j.queue)) {
      throw ScenarioError(path + ": /queues: the workload submits to queue '" + j.queue + "' (job " + j.name +
                          (j.trace_row > 0 ? ", trace line " + std::to_string(j.trace_row) : std::string()) +
                          "), which the scenario does not define");
    } else if (std::string why = detail::leaf_queue_problem(sc.queues, j.queue); !why.empty()) {
      throw ScenarioError(path + ": /queues: job " + j.name + " submits to queue '" + j.queue + "': " + why +
                          " (Volcano's job admission webhook)");
    }
}

}  // namespace mltwin::io::detail
