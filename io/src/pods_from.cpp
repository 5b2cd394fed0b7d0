// /cluster/pods_from: the pods and PodGroups of the user's own cluster, from what
// `kubectl get pods,podgroups -A -o json` (or -o yaml) prints, read by mltwin-scheduler's
// snapshot reader (k8s::read_file, ReadOptions::pod_details), rewritten as what the scenario
// already models (docs/scenarios.md, "Pods and PodGroups from kubectl"):
//   - a PodGroup whose pods run on nodes: a workload job submitted at 0s (a torchrun gang of its
//     pods) and an /initial_state/running entry placing its pods on their nodes;
//   - a PodGroup whose pods are Pending without a node (or that has no pods yet): a workload
//     job of independent pods submitted at 0s, minAvailable = spec.minMember;
//   - the pods of other schedulers (DaemonSets' included) on a node: their requests held on that
//     node for the whole run, as a /cluster/daemonsets entry selecting that node by name.
// The run time of each job comes from the duration model the scenario names
// (/cluster/pods_from/duration); PodsFromUse says which, for how many jobs.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "mltwin/io/job_history.hpp"
#include "mltwin/k8s/manifests_export.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"

namespace mltwin::io {

std::string PodsFromUse::describe() const {
  std::string s = "Pods from kubectl: " + std::to_string(files) + " file(s), now " + now + " (" + now_source + "); " +
                  std::to_string(running_jobs) + " running PodGroup(s) placed at t0, " + std::to_string(pending_jobs) +
                  " pending PodGroup(s) submitted at 0s (" + std::to_string(admitted_jobs) + " of them admitted: Inqueue at t0)";
  if (running_jobs + pending_jobs > 0) {
    s += ", their run times from the duration model '" + model + "'";
    if (model == "annotation") s += " (annotation " + key + ")";
    else if (model == "median_finished" || model == "history_distribution") {
      s += model == "median_finished" ? " (pending: " + fixed + ", the median of "
                                      : " (drawn with seed " + std::to_string(seed) + ", stream " + kHistoryRunTimeStream + ", from ";
      s += std::to_string(from_jobs) + " finished job(s) of " + history + "; " + std::to_string(conditional) +
           " running conditional on their time run, " + std::to_string(fallback) + " of them past every finished run time: as long again)";
    }
    else s += " (" + fixed + ")";
  }
  s += "; " + std::to_string(other_pods) + " pod(s) of other schedulers held on " + std::to_string(held_nodes) + " node(s)";
  if (unmodelled > 0)
    s += "; not modelled (pods of several shapes; warned): " + std::to_string(unmodelled) + " PodGroup(s), running ones' pods held on their nodes";
  if (ignored_finished + ignored_deleting > 0)
    s += "; ignored: " + std::to_string(ignored_finished) + " Succeeded/Failed pod(s), " + std::to_string(ignored_deleting) +
         " pod(s) being deleted";
  return s;
}

namespace detail {

using nlohmann::json;

namespace {

std::string ns_text(std::int64_t ns) { return std::to_string(ns) + "ns"; }

/// Whether a kubectl export names Volcano's batch API (its Jobs): only then is it read again
/// for them (the manifest reader).
bool holds_volcano_jobs(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("batch.volcano.sh/") != std::string::npos;
}

/// The Volcano Job a PodGroup belongs to, by its name: Volcano's job controller names a Job's
/// PodGroup `<job name>-<job UID>` (pkg/controllers/job/job_controller_util.go:113 and
/// job_controller_actions.go:64, v1.12.1), the UID an RFC 4122 UUID. Another PodGroup's name
/// (one created by hand, or by another controller) is its own.
std::string job_name_of_podgroup(const std::string& pg) {
  constexpr std::size_t kUuid = 36;  // 8-4-4-4-12 hex digits
  if (pg.size() <= kUuid + 1 || pg[pg.size() - kUuid - 1] != '-') return pg;
  for (std::size_t i = 0; i < kUuid; ++i) {
    const char c = pg[pg.size() - kUuid + i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return pg;
  }
  return pg.substr(0, pg.size() - kUuid - 1);
}

json tolerations_json(const std::vector<policy::Toleration>& ts) {
  json out = json::array();
  for (const auto& t : ts) {
    json o = json::object();
    if (!t.key.empty()) o["key"] = t.key;
    o["operator"] = t.op == policy::Toleration::Op::Exists ? "Exists" : "Equal";
    if (!t.value.empty()) o["value"] = t.value;
    if (!t.any_effect) o["effect"] = policy::to_string(t.effect);
    if (t.toleration_seconds) o["tolerationSeconds"] = *t.toleration_seconds;
    out.push_back(std::move(o));
  }
  return out;
}

/// The Kubernetes text of a pod's requests for a scenario job's `pod` (k8s::requests_json).
json pod_json(const std::string& origin, const policy::Resource& r) {
  try {
    return k8s::requests_json(r);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(origin + ": " + e.what());
  }
}

}  // namespace

namespace {
/// expand_pods_from's rewriting of the objects read (`snap`) into the scenario `doc`, with the
/// duration model's figures (`fixed_ns`; `runs`, the history's finished run times, and
/// `draws`, history_distribution's streams).
void rewrite_pods_from(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                       YamlOrigins::Places& origins, const json& pf, const k8s::ReadOptions& ro, const k8s::Snapshot& snap,
                       std::int64_t fixed_ns, const std::vector<std::int64_t>& runs, std::optional<core::RngStreams>& draws, PodsFromUse& u,
                       std::vector<std::string>& warnings, const std::map<std::string, k8s::VolcanoJobManifest>& vcjobs);
}  // namespace

void expand_pods_from(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                      std::vector<InputFileRef>& inputs, YamlOrigins::Places& origins, std::optional<PodsFromUse>& use,
                      std::uint64_t seed, std::vector<std::string>& warnings) {
  if (!doc["cluster"].contains("pods_from")) return;
  // Kept in the document: read_nodes_from reads a file listed in both keys (kubectl get
  // nodes,pods,podgroups -A -o json) for its Nodes only.
  const json pf = doc["cluster"]["pods_from"];
  json& w = doc["workload"];
  if (w.contains("philly"))
    fail(path, "/cluster/pods_from", "cannot be given with /workload/philly (a trace's jobs); give the trace's jobs or the cluster's, not both");
  PodsFromUse u;

  // The duration model (no default: no figure would be right for every cluster).
  const json& dm = pf["duration"];
  u.model = dm["model"].get<std::string>();
  std::int64_t fixed_ns = 0;
  std::vector<std::int64_t> runs;          // median_finished, history_distribution: the finished run times, sorted
  std::optional<core::RngStreams> draws;   // history_distribution: the run seed's streams
  if (u.model == "annotation") {
    if (!dm.contains("key")) fail(path, "/cluster/pods_from/duration/key", "the annotation model needs the annotation's key (e.g. \"mltwin.io/duration\")");
    if (dm.contains("history")) fail(path, "/cluster/pods_from/duration/history", "the annotation model takes no history");
    if (dm.contains("duration")) fail(path, "/cluster/pods_from/duration/duration", "the annotation model takes no duration (each job's is its annotation)");
    u.key = dm["key"].get<std::string>();
  } else if (u.model == "median_finished" || u.model == "history_distribution") {
    // The run times (end_time - start_time) of the Completed and Failed jobs of a job history
    // (mltwin/io/job_history.hpp), as workload.history's models: their median, or one drawn.
    if (!dm.contains("history"))
      fail(path, "/cluster/pods_from/duration/history", "the " + u.model + " model needs a job history (workload.history's format)");
    for (const char* k : {"key", "duration"})
      if (dm.contains(k)) fail(path, std::string("/cluster/pods_from/duration/") + k, "the " + u.model + " model takes no " + std::string(k));
    u.history = dm["history"].get<std::string>();
    const std::string file = resolve_input_path(u.history, path, explicit_data_dir, data_dir);
    require_input(path, "/cluster/pods_from/duration/history", u.history, file);
    const JobHistory hist = read_job_history(file);
    // Not role job_history: the run does not replay it (mltwin compare tells the two apart).
    inputs.push_back({"duration_history", file, u.history});
    runs = finished_run_times(hist);
    if (runs.empty())
      fail(path, "/cluster/pods_from/duration/history", "'" + u.history + "' has no Completed or Failed job to take the run times of");
    u.from_jobs = runs.size();
    fixed_ns = conditional_median(runs, std::nullopt).ns;
    if (u.model == "median_finished" && fixed_ns <= 0)
      fail(path, "/cluster/pods_from/duration/history", "the median run time of '" + u.history + "' is 0");
    char text[32];
    std::snprintf(text, sizeof text, "%.0f s", static_cast<double>(fixed_ns) / 1e9);
    u.fixed = text;
    if (u.model == "history_distribution") {
      draws.emplace(seed);
      u.seed = seed;
    }
  } else {  // fixed (the schema allows no other)
    if (!dm.contains("duration")) fail(path, "/cluster/pods_from/duration/duration", "the fixed model needs a duration (e.g. \"2h\")");
    for (const char* k : {"key", "history"})
      if (dm.contains(k)) fail(path, std::string("/cluster/pods_from/duration/") + k, "the fixed model takes no " + std::string(k));
    fixed_ns = duration_of(path, "/cluster/pods_from/duration/duration", dm["duration"]).count_ns();
    if (fixed_ns <= 0) fail(path, "/cluster/pods_from/duration/duration", "expected a duration above 0");
    u.fixed = dm["duration"].is_string() ? dm["duration"].get<std::string>() : dm["duration"].dump() + " s";
  }

  // Read every file into one snapshot (a PodGroup and its pods may be in different files).
  k8s::Snapshot snap;
  // The Volcano Jobs in the files (namespace/name): a PodGroup without pods yet takes its pods'
  // nodeSelector, affinity and tolerations from its Job's pod template.
  std::map<std::string, k8s::VolcanoJobManifest> vcjobs;
  k8s::ReadOptions ro;
  ro.pod_details = true;
  if (!u.key.empty()) ro.keep_annotations = {u.key};
  const json& files = pf["files"];
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = "/cluster/pods_from/files/" + std::to_string(i);
    const std::string as_written = files[i];
    const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
    require_input(path, where, as_written, file);
    try {
      k8s::read_file(file, snap, ro);
      if (holds_volcano_jobs(file)) {
        std::map<std::string, std::size_t> skipped;
        for (auto& v : k8s::read_manifests_skipping(file, {"Node", "Pod", "PodGroup", "Queue", "PriorityClass", "ConfigMap", "*"}, skipped).jobs)
          vcjobs.emplace(v.namespace_ + "/" + v.name, std::move(v));
      }
    } catch (const k8s::InputError& e) {
      throw ScenarioError(std::string(e.what()) + " (read as " + path + ": " + where + ")");
    }
    inputs.push_back({"cluster_pods", file, as_written});
    ++u.files;
  }
  // The objects read, as the scenario's jobs, placements and held pods. Errors there name an
  // object of the files by its origin and a JSON path below it: for a YAML file, with the line
  // and column of that path (k8s::with_line).
  try {
    rewrite_pods_from(path, doc, explicit_data_dir, data_dir, origins, pf, ro, snap, fixed_ns, runs, draws, u, warnings, vcjobs);
  } catch (const ScenarioError& e) {
    throw ScenarioError(k8s::with_line(snap, e.what()));
  }
  use = std::move(u);
}

namespace {

void rewrite_pods_from(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                       YamlOrigins::Places& origins, const json& pf, const k8s::ReadOptions& ro, const k8s::Snapshot& snap,
                       std::int64_t fixed_ns, const std::vector<std::int64_t>& runs, std::optional<core::RngStreams>& draws, PodsFromUse& u,
                       std::vector<std::string>& warnings, const std::map<std::string, k8s::VolcanoJobManifest>& vcjobs) {
  json& w = doc["workload"];
  const std::string read_as = " (read as " + path + ": /cluster/pods_from)";
  // A kubectl export of several kinds may be listed here and under the other keys that read it:
  // Nodes are /cluster/nodes_from's, Queues /queues_from's (a PodGroup naming a queue no key
  // defines says which file holds it). PriorityClasses are read here: the PodGroups name them, and
  // `kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json` has no other key to give
  // them to. Each is added to /priority_classes unless the scenario defines it already with the
  // same value (another value, or a second globalDefault, is an error); Kubernetes' system classes
  // are the built-in ones.
  std::map<std::string, std::string> queue_objects;  // Queue name -> where a file holds it
  for (const auto& q : snap.queues) queue_objects.emplace(q.spec.name, snap.origin.at("Queue " + q.spec.name));
  if (!snap.priority_classes.empty()) {
    json& list = doc["priority_classes"];
    if (list.is_null()) list = json::array();
    for (const k8s::PriorityClass& pc : snap.priority_classes) {
      const std::string origin = snap.origin.at("PriorityClass " + pc.name);
      if (pc.name == "system-cluster-critical" || pc.name == "system-node-critical") continue;
      if (pc.name.rfind("system-", 0) == 0)
        throw ScenarioError(origin + "/metadata/name: the prefix 'system-' is reserved for Kubernetes' system PriorityClasses" + read_as);
      bool known = false;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const json& o = list[i];
        const std::string at = path + ": /priority_classes/" + std::to_string(i);
        if (o["name"] == pc.name) {
          if (o["value"].get<std::int64_t>() != pc.value || o.value("globalDefault", false) != pc.global_default)
            throw ScenarioError(origin + ": PriorityClass '" + pc.name + "' (value " + std::to_string(pc.value) +
                                (pc.global_default ? ", globalDefault" : "") + ") is already defined otherwise (" + at + ")" + read_as);
          known = true;
        } else if (pc.global_default && o.value("globalDefault", false)) {
          throw ScenarioError(origin + "/globalDefault: only one PriorityClass can be marked globalDefault ('" + o["name"].get<std::string>() +
                              "' is, " + at + ")" + read_as);
        }
      }
      if (known) continue;
      list.push_back({{"name", pc.name}, {"value", pc.value}, {"globalDefault", pc.global_default},
                      {"preemptionPolicy", pc.preempt_never ? "Never" : "PreemptLowerPriority"}});
      origins["/priority_classes"].resize(list.size() - 1);
      origins["/priority_classes"].push_back(origin + ": PriorityClass '" + pc.name + "'");
    }
  }

  // "now": the time of the export. kubectl prints none; default the newest creationTimestamp or
  // status.startTime of the pods and PodGroups read (the export was made at or after it).
  policy::TimeNs now = 0;
  if (pf.contains("now")) {
    const auto t = k8s::parse_rfc3339(pf["now"].get<std::string>());
    if (!t) fail(path, "/cluster/pods_from/now", "'" + printable(pf["now"].get<std::string>()) + "' is not an RFC 3339 time such as 2026-03-02T12:00:00Z");
    now = *t;
    u.now_source = "/cluster/pods_from/now";
  } else if (snap.meta.now) {
    // A twin's snapshot (mltwin run --snapshot-at) says when its session was: the ConfigMap
    // mltwin-system/mltwin-snapshot's data.now, on the clock of its creationTimestamps.
    now = *snap.meta.now;
    u.now_source = std::string("data.now of the ConfigMap ") + k8s::kSnapshotConfigMap;
  } else {
    bool any = false;
    for (const auto& p : snap.pods) {
      if (p.spec.creation != 0) now = any ? std::max(now, p.spec.creation) : p.spec.creation, any = true;
      if (auto it = snap.pod_details.find(p.name); it != snap.pod_details.end() && it->second.start)
        now = any ? std::max(now, *it->second.start) : *it->second.start, any = true;
    }
    for (const auto& g : snap.podgroups)
      if (g.object.spec.creation != 0) now = any ? std::max(now, g.object.spec.creation) : g.object.spec.creation, any = true;
    if (!any && !snap.pods.empty())
      fail(path, "/cluster/pods_from", "no creationTimestamp nor startTime in the files to date the export: give /cluster/pods_from/now");
    u.now_source = "the newest creationTimestamp or startTime read";
  }
  u.now = k8s::format_rfc3339(now);

  // What the scenario defines: its nodes at t0 (node groups' <group>-<index>, nodes_from's Nodes),
  // queues and PriorityClasses.
  std::set<std::string> nodes;
  const json& c = doc["cluster"];
  if (c.contains("node_groups"))
    for (const auto& g : c["node_groups"])
      for (int i = 0; i < g["desired_capacity"].get<int>(); ++i) nodes.insert(g["name"].get<std::string>() + "-" + std::to_string(i));
  if (c.contains("nodes_from"))
    for (std::size_t i = 0; i < c["nodes_from"].size(); ++i) {
      const std::string where = "/cluster/nodes_from/" + std::to_string(i);
      const std::string file = resolve_input_path(c["nodes_from"][i], path, explicit_data_dir, data_dir);
      require_input(path, where, c["nodes_from"][i], file);
      k8s::Snapshot ns;
      try {
        k8s::read_file(file, ns);  // the names only: read_nodes_from checks the file
      } catch (const k8s::InputError& e) {
        throw ScenarioError(std::string(e.what()) + " (read as " + path + ": " + where + ")");
      }
      for (const auto& n : ns.nodes) nodes.insert(n.spec.name);
    }
  const DefinedNames defined = defined_names(doc);
  const std::set<std::string>& queues = defined.queues;
  const std::set<std::string>& classes = defined.classes;
  const std::vector<models::QueueSpec>& tree = defined.tree;
  auto list = &DefinedNames::list;

  // The pods: of a PodGroup, or of another scheduler on a node (held there).
  std::map<std::string, std::vector<const policy::PodObject*>> members;  // PodGroup "ns/name" -> its pods, in file order
  std::map<std::string, policy::Resource> held;                        // node -> other pods' requests
  std::map<std::string, std::vector<std::string>> held_pods;             // node -> those pods
  std::set<std::string> group_names;
  for (const auto& g : snap.podgroups) group_names.insert(g.object.name);
  for (const auto& p : snap.pods) {
    const std::string origin = snap.origin.at("Pod " + p.name);
    const k8s::PodDetails& d = snap.pod_details.at(p.name);
    if (d.phase == "Succeeded" || d.phase == "Failed") {
      ++u.ignored_finished;
      continue;
    }
    if (d.deleting) {
      ++u.ignored_deleting;
      continue;
    }
    if (!p.node.empty() && !nodes.count(p.node))
      throw ScenarioError(origin + "/spec/nodeName: pod '" + p.name + "' runs on node '" + p.node + "', which the scenario does not have (" +
                          list(nodes) + ")" + read_as);
    if (p.podgroup.empty()) {
      if (std::find(ro.scheduler_names.begin(), ro.scheduler_names.end(), d.scheduler) != ro.scheduler_names.end())
        throw ScenarioError(origin + "/metadata/annotations: pod '" + p.name +
                            "' of scheduler volcano has no annotation scheduling.k8s.io/group-name (Volcano's controller gives every "
                            "such pod a PodGroup: export the PodGroups too)" + read_as);
      // Another scheduler's pod (the reader keeps only those on a node): its requests stay on it.
      policy::Resource r = p.spec.resreq;
      r.set_scalar(policy::rn::kPods, 0);
      held[p.node].add(r);
      held_pods[p.node].push_back(p.name + (d.controller_kind.empty() ? "" : " (" + d.controller_kind + ")"));
      ++u.other_pods;
      continue;
    }
    if (!group_names.count(p.podgroup))
      throw ScenarioError(origin + "/metadata/annotations/scheduling.k8s.io~1group-name: pod '" + p.name + "' names PodGroup '" + p.podgroup +
                          "', which no file of /cluster/pods_from holds (export them together: kubectl get pods,podgroups -A -o json)" +
                          read_as);
    members[p.podgroup].push_back(&p);
  }

  json jobs = w.contains("jobs") ? w["jobs"] : json::array();
  auto& job_places = origins["/workload/jobs"];
  job_places.resize(jobs.size());
  json& is = doc["initial_state"];
  if (!is.contains("running")) is["running"] = json::array();
  if (!is.contains("source")) is["source"] = "kubectl (/cluster/pods_from)";
  auto& run_places = origins["/initial_state/running"];
  run_places.resize(is["running"].size());
  auto& admitted_places = origins["/initial_state/admitted"];
  if (is.contains("admitted")) admitted_places.resize(is["admitted"].size());
  std::map<std::string, std::string> job_names;  // name -> origin
  for (const auto& j : jobs) job_names.emplace(j["name"].get<std::string>(), path + ": /workload/jobs");

  for (const auto& g : snap.podgroups) {
    const std::string origin = snap.origin.at("PodGroup " + g.object.name);
    const std::string name = job_name_of_podgroup(g.object.name.substr(g.object.name.find('/') + 1));
    const std::string label = "PodGroup '" + g.object.name + "'";
    if (g.object.spec.phase == policy::PodGroupPhase::Completed) continue;
    const auto& pods = members[g.object.name];
    std::vector<const policy::PodObject*> placed, waiting;
    for (const auto* p : pods) (p->node.empty() ? waiting : placed).push_back(p);
    if (!placed.empty() && !waiting.empty())
      throw ScenarioError(origin + ": " + label + " has " + std::to_string(placed.size()) + " pod(s) on nodes and " + std::to_string(waiting.size()) +
                          " without: a partly running PodGroup is not modelled yet" + read_as);
    if (!queues.count(g.object.queue)) {
      const auto holder = queue_objects.find(g.object.queue);
      throw ScenarioError(origin + "/spec/queue: " + label + ": queue '" + g.object.queue + "' is not defined in " + path +
                          (holder != queue_objects.end()
                               ? " (" + holder->second + " holds it: list that file under /queues_from too, which reads the Queues of a kubectl export)"
                               : " (/queues or /queues_from; the leaf queues a job can name: " + list(defined.leaves) + ")") +
                          read_as);
    }
    if (std::string why = leaf_queue_problem(tree, g.object.queue); !why.empty())
      throw ScenarioError(origin + "/spec/queue: " + label + ": queue '" + g.object.queue + "': " + why + " (Volcano's job admission webhook)");
    if (!g.priority_class_name.empty() && !classes.count(g.priority_class_name))
      throw ScenarioError(origin + "/spec/priorityClassName: " + label + ": PriorityClass '" + g.priority_class_name + "' is not defined in " +
                          path + " (/priority_classes, a PriorityClass in a file of /cluster/pods_from or of /workload/manifests: " +
                          list(classes) + ")" + read_as);
    if (auto [it, fresh] = job_names.emplace(name, origin); !fresh)
      throw ScenarioError(origin + "/metadata/name: " + label + ": a job named '" + name + "' is already read (" + it->second +
                          "): mltwin's jobs have no namespace");
    // One pod's requests: every pod's must be the same (mltwin's jobs have one pod shape). A
    // PodGroup without pods (Volcano's job controller creates them once it is Inqueue): minMember
    // pods each requesting spec.minResources / minMember.
    int npods = static_cast<int>(pods.size());
    json pod;
    if (pods.empty()) {
      const int mm = g.object.spec.min_available;
      if (mm < 1 || !g.object.spec.has_min_resources)
        throw ScenarioError(origin + "/spec: " + label + " has no pods in the files, and no minMember >= 1 with minResources to size them by" +
                            read_as);
      const policy::Resource& all = g.object.spec.min_resources;
      policy::Resource one;
      one.milli_cpu = all.milli_cpu / mm;
      one.memory = all.memory / mm;
      for (auto e : all.scalars)
        if (e.name != policy::rn::kPods) one.set_scalar(e.name, e.value / mm);
      pod = pod_json(origin + "/spec/minResources", one);
      npods = mm;
    } else {
      const policy::Resource& first = pods.front()->spec.resreq;
      const policy::PodObject* other = nullptr;
      for (const auto* p : pods)
        if (!other && !(p->spec.resreq == first)) other = p;
      if (other) {
        // Pods of several shapes (an MPI launcher and its workers, say): not modelled as a job.
        // A running one keeps its pods' requests on their nodes for the run (as another
        // scheduler's pods), a pending one is left out; a warning each (--strict: an error).
        const std::string why = snap.origin.at("Pod " + other->name) + "/spec: pod '" + other->name + "' requests {" +
                                other->spec.resreq.to_string() + "}, pod '" + pods.front()->name + "' of the same " + label + " {" +
                                first.to_string() + "}: pods of different shapes in one PodGroup are not modelled yet";
        if (!placed.empty()) {
          for (const auto* p : placed) {
            policy::Resource r = p->spec.resreq;
            r.set_scalar(policy::rn::kPods, 0);
            held[p->node].add(r);
            held_pods[p->node].push_back(p->name + " (" + label + ", not modelled)");
          }
          warnings.push_back(why + "; its " + std::to_string(placed.size()) + " running pod(s) hold their requests on their nodes for the run" +
                             read_as);
        } else {
          warnings.push_back(why + "; left out" + read_as);
        }
        ++u.unmodelled;
        continue;
      }
      pod = pod_json(snap.origin.at("Pod " + pods.front()->name) + "/spec/containers", first);
    }
    // The duration model.
    std::int64_t run_ns = fixed_ns;
    std::string run_at;
    if (draws && placed.empty()) run_ns = conditional_draw(runs, std::nullopt, draws->stream(kHistoryRunTimeStream)).ns;
    if (u.model == "annotation") {
      const std::string* v = nullptr;
      if (auto it = snap.podgroup_annotations.find(g.object.name); it != snap.podgroup_annotations.end() && it->second.count(u.key)) {
        v = &it->second.at(u.key);
        run_at = origin + "/metadata/annotations/" + pointer_token_of(u.key);
      }
      for (std::size_t k = 0; !v && k < pods.size(); ++k)
        if (const auto& a = snap.pod_details.at(pods[k]->name).annotations; a.count(u.key)) {
          v = &a.at(u.key);
          run_at = snap.origin.at("Pod " + pods[k]->name) + "/metadata/annotations/" + pointer_token_of(u.key);
        }
      if (!v)
        throw ScenarioError(origin + "/metadata/annotations: " + label + ": neither it nor its pods have the annotation '" + u.key +
                            "' that the duration model names (/cluster/pods_from/duration)" + read_as);
      try {
        run_ns = policy::parse_go_duration(*v);
      } catch (const std::invalid_argument& e) {
        throw ScenarioError(run_at + ": '" + printable(*v) + "' is not a Go duration (\"2h\", \"90m\", \"1h30m\"): " + e.what() + read_as);
      }
      if (run_ns <= 0) throw ScenarioError(run_at + ": expected a duration above 0, got '" + printable(*v) + "'" + read_as);
    }
    json job = {{"name", name}, {"queue", g.object.queue}, {"submit", "0s"}, {"pod", std::move(pod)}};
    if (!g.priority_class_name.empty()) job["priority_class"] = g.priority_class_name;
    const policy::PodObject* shape = pods.empty() ? nullptr : pods.front();
    if (!shape) {
      // No pods yet (Volcano's job controller creates them once the PodGroup is Inqueue): the
      // constraints of its Job's pod template (its first task's), when the files hold the Job.
      if (auto it = vcjobs.find(g.object.name.substr(0, g.object.name.find('/') + 1) + name);
          it != vcjobs.end() && !it->second.tasks.empty()) {
        const k8s::PodShape& tp = it->second.tasks.front().pod;
        if (!tp.node_selector.empty()) {
          json sel = json::object();
          for (const auto& [k, v] : tp.node_selector) sel[k] = v;
          job["node_selector"] = std::move(sel);
        }
        if (!tp.tolerations.empty()) {
          json ts = json::array();
          for (const auto& t : tp.tolerations) ts.push_back(k8s::yaml::toleration_json(t));
          job["tolerations"] = std::move(ts);
        }
        if (!tp.node_affinity.is_null()) job["node_affinity"] = tp.node_affinity;
        ++u.constraints_from_job;
      }
    }
    if (shape && !shape->spec.node_selector.empty()) {
      json sel = json::object();
      for (const auto& [k, v] : shape->spec.node_selector) sel[k] = v;
      job["node_selector"] = std::move(sel);
    }
    if (shape && !shape->spec.tolerations.empty()) job["tolerations"] = tolerations_json(shape->spec.tolerations);
    if (shape && !shape->spec.node_affinity.empty()) job["node_affinity"] = k8s::node_affinity_json(shape->spec.node_affinity);
    if (!placed.empty()) {
      // Running: started at its pods' earliest status.startTime, else the PodGroup's creation.
      std::optional<policy::TimeNs> start;
      for (const auto* p : placed)
        if (const auto& s = snap.pod_details.at(p->name).start) start = start ? std::min(*start, *s) : *s;
      if (!start && g.object.spec.creation != 0) start = g.object.spec.creation;
      if (!start)
        throw ScenarioError(origin + ": " + label + " runs, and neither its pods' status.startTime nor its creationTimestamp says since when" + read_as);
      const std::int64_t elapsed = now - *start;
      if (elapsed < 0)
        throw ScenarioError(origin + ": " + label + " started at " + k8s::format_rfc3339(*start) + ", after the export's now " + u.now + read_as);
      // The annotation is the job's whole run time; the fixed model gives what remains.
      std::int64_t remaining = run_ns;
      if (u.model == "annotation") {
        remaining = run_ns - elapsed;
        if (remaining <= 0)
          throw ScenarioError(run_at + ": " + label + " has run " + std::to_string(elapsed / 1'000'000'000) + " s by " + u.now + ", its annotation '" +
                              u.key + "' says " + std::to_string(run_ns / 1'000'000'000) + " s in all: it should have ended" + read_as);
      }
      if (!runs.empty()) {
        // Conditional on having run `elapsed`: the median (or a draw) of the finished run times
        // longer than it, less elapsed; past every one of them, elapsed again (conditional_median).
        const ModelRunTime r = draws ? conditional_draw(runs, elapsed, draws->stream(kHistoryRunTimeStream)) : conditional_median(runs, elapsed);
        ++u.conditional;
        if (r.fallback) ++u.fallback;
        remaining = r.ns - elapsed;
        if (remaining <= 0)
          throw ScenarioError(origin + ": " + label + " started at " + u.now + " and every finished run time of '" + u.history +
                              "' is 0: the " + u.model + " model gives it no time to run" + read_as);
      }
      job["nnodes"] = static_cast<int>(placed.size());
      job["duration"] = ns_text(elapsed + remaining);
      json nodes_list = json::array();
      for (const auto* p : placed) nodes_list.push_back(p->node);
      is["running"].push_back({{"job", name}, {"started", ns_text(-elapsed)}, {"remaining", ns_text(remaining)}, {"nodes", std::move(nodes_list)}});
      run_places.push_back(origin + ": " + label);
      ++u.running_jobs;
    } else {
      // Pending: a Job of independent pods, as Volcano's gang plugin sees it (minMember of them).
      json task = {{"name", "pod"}, {"replicas", npods}, {"duration", ns_text(run_ns)}};
      job["tasks"] = json::array({std::move(task)});
      const int mm = std::min(std::max(g.object.spec.min_available, 1), npods);
      job["min_available"] = mm;
      ++u.pending_jobs;
      // Admitted already (Inqueue; Running or Unknown with no pod on a node: the scheduler set
      // it in an earlier session): the job controller has created, or will create, its pods.
      if (g.object.spec.phase != policy::PodGroupPhase::Pending) {
        if (!is.contains("admitted")) is["admitted"] = json::array();
        is["admitted"].push_back({{"job", name}});
        admitted_places.push_back(origin + ": " + label + " (status.phase " + policy::to_string(g.object.spec.phase) + ")");
        ++u.admitted_jobs;
      }
    }
    jobs.push_back(std::move(job));
    job_places.push_back(origin + ": " + label);
  }
  w["jobs"] = std::move(jobs);
  if (is["running"].empty() && !is.contains("admitted")) doc.erase("initial_state");

  // Other schedulers' pods: their requests on their node, as a DaemonSet that selects that node
  // by name (matchFields metadata.name) and tolerates every taint.
  if (!held.empty()) {
    json& ds = doc["cluster"]["daemonsets"];
    if (ds.is_null()) ds = json::array();
    auto& ds_places = origins["/cluster/daemonsets"];
    ds_places.resize(ds.size());
    for (const auto& [node, r] : held) {
      std::string names;
      for (std::size_t k = 0; k < held_pods[node].size() && k < 4; ++k) names += (k ? ", " : "") + held_pods[node][k];
      if (held_pods[node].size() > 4) names += ", ...";
      json term = {{"matchFields", json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", json::array({node})}}})}};
      ds.push_back({{"name", "pods-on-" + node},
                    {"requests", pod_json(path + ": /cluster/pods_from", r)},
                    {"node_affinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", json::array({term})}}}}},
                    {"tolerations", json::array({{{"operator", "Exists"}}})},
                    {"source", "kubectl: pods of other schedulers on " + node + ": " + names}});
      ds_places.push_back(path + ": /cluster/pods_from: the pods of other schedulers on node " + node);
    }
    u.held_nodes = held.size();
  }
}

}  // namespace

}  // namespace detail
}  // namespace mltwin::io
