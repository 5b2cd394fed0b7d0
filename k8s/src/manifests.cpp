// Kubernetes and Volcano manifests (mltwin/k8s/manifests.hpp) on the typed YAML layer
// (mltwin/k8s/yaml.hpp: each value keeps its YAML path and place, so that each error says where
// it is). Where a shape comes from is said at each reader.
#include "mltwin/k8s/manifests.hpp"
#include "mltwin/k8s/manifests_export.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "mltwin/k8s/validation.hpp"
#include "mltwin/k8s/yaml.hpp"
#include "mltwin/policy/go_duration.hpp"

namespace mltwin::k8s {

using nlohmann::json;

namespace yaml {
json toleration_json(const Toleration& t) {
  json o = json::object();
  if (!t.key.empty()) o["key"] = t.key;
  if (!t.op.empty()) o["operator"] = t.op;
  if (!t.value.empty()) o["value"] = t.value;
  if (!t.effect.empty()) o["effect"] = t.effect;
  if (t.toleration_seconds) o["tolerationSeconds"] = *t.toleration_seconds;
  return o;
}
}  // namespace yaml

namespace {

using namespace yaml;  // the typed layer (yaml_typed.hpp)

// ---- manifests -----------------------------------------------------------------------------

constexpr const char* kVolcanoScheduling = "scheduling.volcano.sh/v1beta1";
constexpr const char* kVolcanoBatch = "batch.volcano.sh/v1alpha1";
constexpr const char* kPriorityApi = "scheduling.k8s.io/v1";

std::vector<JobPolicy> policies_of(const Y& y) {
  // LifecyclePolicy (batch.volcano.sh/v1alpha1), checked as the admission webhook checks a list
  // (pkg/webhooks/admission/jobs/validate/util.go validatePolicies, v1.12.1): known events and
  // actions, no event in two policies, "*" alone.
  std::vector<JobPolicy> out;
  std::set<std::string> seen;
  for (const Y& p : y.list()) {
    const M m(p, {"event", "events", "action", "exitCode", "timeout"});
    JobPolicy jp;
    std::vector<Y> event_nodes;
    if (const Y* e = m.get("event")) event_nodes.push_back(*e);
    if (const Y* es = m.get("events"))
      for (const Y& e : es->list()) event_nodes.push_back(e);
    // The CRD's enum of events (batch.volcano.sh_jobs.yaml); the webhook's policyEventMap
    // refuses the controller's internal ones.
    static const std::set<std::string> events = {"*", "PodPending", "PodRunning", "PodFailed", "PodEvicted", "Unknown",
                                                  "TaskCompleted", "OutOfSync", "CommandIssued", "JobUpdated", "TaskFailed"};
    for (const Y& en : event_nodes) {
      const std::string e = en.str();
      if (!events.count(e))
        en.fail("unknown event '" + e + "' (Volcano's are *, PodPending, PodRunning, PodFailed, PodEvicted, "
                "Unknown, TaskCompleted, OutOfSync, CommandIssued, JobUpdated, TaskFailed)");
      if (e == "PodRunning" || e == "OutOfSync" || e == "CommandIssued")
        en.fail("event '" + e + "' is internal to the job controller: Volcano's admission webhook refuses it in a policy");
      if (!seen.insert(e).second) en.fail("event '" + e + "' appears in two policies (Volcano's admission webhook refuses it)");
      jp.events.push_back(e);
    }
    if (const Y* c = m.get("exitCode"))
      c->fail("a policy on a container exit code is not modelled (mltwin's pods fail with their node or their gang, "
              "without an exit code); use event: PodFailed");
    if (const Y* t = m.get("timeout"))
      t->fail("a delayed action (timeout) is not modelled: mltwin's job controller acts at once");
    if (jp.events.empty()) p.fail("a policy needs an event or events");
    static const std::set<std::string> actions = {"RestartJob", "RestartTask", "RestartPod", "AbortJob",
                                                   "TerminateJob", "CompleteJob", "ResumeJob"};
    const Y& a = m.req("action");
    jp.action = a.str();
    if (!actions.count(jp.action))
      a.fail("unknown action '" + jp.action + "' (a policy may name RestartJob, RestartTask, RestartPod, AbortJob, "
             "TerminateJob, CompleteJob, ResumeJob)");
    out.push_back(std::move(jp));
  }
  if (seen.count("*") && seen.size() > 1)
    y.fail("a policy on \"*\" cannot stand beside policies on other events (Volcano's admission webhook refuses it)");
  return out;
}

/// torchrun's --nproc_per_node (or --nproc-per-node) in a command line, if any.
std::optional<int> nproc_in(const std::vector<std::string>& argv) {
  std::vector<std::string> tokens;
  for (const auto& a : argv) {
    std::stringstream ss(a);
    std::string t;
    while (ss >> t) tokens.push_back(t);
  }
  bool torchrun = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "torchrun" || t.find("/torchrun") != std::string::npos || t == "torch.distributed.run") torchrun = true;
    if (!torchrun) continue;
    std::string value;
    for (const char* flag : {"--nproc_per_node", "--nproc-per-node"}) {
      const std::string f = flag;
      if (t == f && i + 1 < tokens.size()) value = tokens[i + 1];
      else if (t.rfind(f + "=", 0) == 0) value = t.substr(f.size() + 1);
    }
    if (!value.empty() && is_int_text(value) && value[0] != '-') return std::stoi(value);
  }
  return std::nullopt;
}

PodShape pod_of(const Y& tmpl) {
  // PodTemplateSpec: metadata, spec. Of the PodSpec mltwin reads the containers' resources and
  // what decides placement; the rest (volumes, restartPolicy, serviceAccountName, ...) changes
  // nothing mltwin models.
  const M t(tmpl, {"metadata", "spec"});
  const M spec(t.req("spec"), {"containers", "nodeSelector", "tolerations", "affinity", "priorityClassName"}, {}, true);
  PodShape pod;
  std::vector<std::pair<std::string, double>> sum;  // name -> summed quantity
  std::map<std::string, std::string> text;          // name -> text, while only one container sets it
  std::vector<std::string> argv;
  const auto containers = spec.req("containers").list();
  if (containers.empty()) spec.req("containers").fail("expected at least one container");
  for (const Y& c : containers) {
    const M cm(c, {"name", "resources", "command", "args"}, {}, true);
    if (const Y* cmd = cm.get("command"))
      for (const Y& a : cmd->list()) argv.push_back(a.scalar_text());
    if (const Y* args = cm.get("args"))
      for (const Y& a : args->list()) argv.push_back(a.scalar_text());
    if (!cm.get("resources")) continue;
    const M res(*cm.get("resources"), {"requests", "limits"}, {"claims"});
    ResourceList req = res.get("requests") ? resource_list(*res.get("requests")) : ResourceList{};
    const ResourceList lim = res.get("limits") ? resource_list(*res.get("limits")) : ResourceList{};
    // "If you specify a limit for a resource, but do not specify any request, ... Kubernetes
    // copies the limit you specified and uses it as the requested value" (Kubernetes docs,
    // Resource Management for Pods and Containers).
    for (const auto& [k, q] : lim)
      if (std::none_of(req.begin(), req.end(), [&k = k](const auto& e) { return e.first == k; })) req.emplace_back(k, q);
    for (const auto& [k, q] : req) {
      auto it = std::find_if(sum.begin(), sum.end(), [&k = k](const auto& e) { return e.first == k; });
      const double v = parse_quantity(json(q));
      if (it == sum.end()) {
        sum.emplace_back(k, v);
        text[k] = q;
      } else {
        it->second += v;
        std::ostringstream os;
        os.precision(17);
        os << it->second;
        text[k] = os.str();
      }
    }
  }
  for (const auto& [k, v] : sum) pod.requests.emplace_back(k, text[k]);
  if (const Y* ns = spec.get("nodeSelector"))
    for (auto& [k, v] : string_map(*ns)) {
      if (std::string p = qualified_name_problem(k); !p.empty()) ns->child(k, ns->node[k]).fail("label key '" + k + "': " + p);
      if (std::string p = label_value_problem(v); !p.empty()) ns->child(k, ns->node[k]).fail(p);
      pod.node_selector[k] = v;
    }
  if (const Y* tl = spec.get("tolerations"))
    for (const Y& tol : tl->list()) {
      // core/v1 Toleration, checked as ValidateTolerations does.
      const M tm(tol, {"key", "operator", "value", "effect", "tolerationSeconds"});
      Toleration x;
      if (const Y* v = tm.get("key")) x.key = v->str();
      if (const Y* v = tm.get("operator")) x.op = v->str();
      if (const Y* v = tm.get("value")) x.value = v->str();
      if (const Y* v = tm.get("effect")) x.effect = v->str();
      if (const Y* v = tm.get("tolerationSeconds")) x.toleration_seconds = v->integer();
      if (auto problem = toleration_problem(toleration_json(x))) descend(tol, problem->field).fail(problem->message);
      pod.tolerations.push_back(x);
    }
  if (const Y* a = spec.get("affinity")) pod.node_affinity = affinity_yaml(*a);
  if (const Y* pc = spec.get("priorityClassName")) pod.priority_class_name = pc->str();
  pod.nproc_per_node = nproc_in(argv);
  return pod;
}

// spec.minAvailable and spec.tasks[*].minAvailable as Volcano's admission webhooks treat them
// (v1.12.1). The mutating webhook (pkg/webhooks/admission/jobs/mutate/mutate_job.go) runs
// first: patchDefaultMinAvailable sets an unset or 0 spec.minAvailable to the tasks'
// minAvailable summed, a task without one counting its replicas (`job_min_sum`), and
// mutateSpec gives such a task minAvailable = replicas. The validating webhook
// (validate/admit_job.go validateJobCreate) then refuses, in its order: a negative
// spec.minAvailable (the whole answer: it returns at once), a task's negative minAvailable or
// one above its replicas, and a spec.minAvailable above the tasks' replicas summed. Each
// refusal quotes the webhook's own message (the first one it would give).
void check_min_available(VolcanoJobManifest& j, const Y* job_min, long long job_min_sum, const std::vector<Y>& task_docs) {
  auto webhook = [](const std::string& msg) { return "Volcano's admission webhook refuses the Job: \"" + msg + "\""; };
  auto task_min_y = [&](std::size_t k) { return task_docs[k].child("minAvailable", task_docs[k].node["minAvailable"]); };
  const bool defaulted = j.min_available == 0;
  if (defaulted) {
    if (job_min_sum < 0) {  // only a negative task minAvailable makes the sum negative
      for (std::size_t k = 0; k < j.tasks.size(); ++k)
        if (j.tasks[k].min_available && *j.tasks[k].min_available < 0)
          task_min_y(k).fail("task minAvailable " + std::to_string(*j.tasks[k].min_available) +
                             " is below 0; with spec.minAvailable unset (or 0) the mutating webhook sets it to the tasks' "
                             "minAvailable summed, " + std::to_string(job_min_sum) + ", and " +
                             webhook("job 'minAvailable' must be >= 0."));
    }
    j.min_available = static_cast<int>(job_min_sum);
  } else if (j.min_available < 0) {
    job_min->fail("minAvailable " + std::to_string(j.min_available) + " is below 0: " + webhook("job 'minAvailable' must be >= 0."));
  }
  long long replicas = 0;
  for (std::size_t k = 0; k < j.tasks.size(); ++k) {
    const VolcanoTask& t = j.tasks[k];
    replicas += t.replicas;
    if (!t.min_available) continue;
    if (*t.min_available < 0)
      task_min_y(k).fail("task minAvailable " + std::to_string(*t.min_available) + " is below 0: " +
                         webhook("'minAvailable' < 0 in task: " + t.name + ", job: " + j.name + ";"));
    if (*t.min_available > t.replicas)
      task_min_y(k).fail("task minAvailable " + std::to_string(*t.min_available) + " is above the task's " +
                         std::to_string(t.replicas) + " replicas: " +
                         webhook("'minAvailable' is greater than 'replicas' in task: " + t.name + ", job: " + j.name + ";"));
  }
  // A defaulted minAvailable is never above the replicas here: a task's minAvailable above its
  // replicas was refused above.
  if (j.min_available > replicas)
    job_min->fail("minAvailable " + std::to_string(j.min_available) + " is above the tasks' " + std::to_string(replicas) +
                  " replicas: " + webhook("job 'minAvailable' should not be greater than total replicas in tasks;"));
}

VolcanoJobManifest job_of_doc(const M& top, const Y& doc) {
  VolcanoJobManifest j;
  j.at = doc.at();
  std::tie(j.name, j.namespace_) = name_of(top, "Job");
  // Annotations: the Volcano job controller copies the Job's onto its PodGroup
  // (pkg/controllers/job/job_controller_actions.go, createOrUpdatePodGroup), where the scheduler
  // reads the sla waiting time: volcano.sh/sla-waiting-time first, then sla-waiting-time
  // (pkg/scheduler/api/job_info.go SetPodGroup / extractWaitingTime, v1.12.1). Volcano skips a
  // value Go cannot parse, or <= 0, with a warning; here it is an error at its place. Other
  // annotations change nothing mltwin models.
  j.creation_at = j.at;
  j.phase_at = j.at;
  if (const Y* st = top.get("status")) {
    // JobStatus (batch.volcano.sh_jobs.yaml): state {phase, reason, message,
    // lastTransitionTime}, conditions [{status, lastTransitionTime}], and counters not read here.
    const M sm(*st, {"state", "conditions"}, {}, true);
    if (const Y* s = sm.get("state")) {
      const M state(*s, {"phase", "lastTransitionTime"}, {"reason", "message"});
      j.phase_at = s->at();
      if (const Y* p = state.get("phase")) {
        j.phase = p->str();
        j.phase_at = p->at();
      }
      if (const Y* t = state.get("lastTransitionTime")) j.phase_time = t->str();
    }
    if (const Y* cs = sm.get("conditions"))
      for (const Y& c : cs->list()) {
        const M cm(c, {"status", "lastTransitionTime"});
        VolcanoJobManifest::Condition cond;
        cond.at = c.at();
        cond.status = cm.req("status").str();
        if (const Y* t = cm.get("lastTransitionTime")) cond.last_transition_time = t->str();
        j.conditions.push_back(std::move(cond));
      }
  }
  {
    const M meta(top.req("metadata"), {"name", "namespace"}, {}, true);
    if (const Y* c = meta.get("creationTimestamp")) {
      j.creation_timestamp = c->str();
      j.creation_at = c->at();
    }
    if (const Y* ann = meta.get("annotations")) {
      const M am(*ann, {}, {}, true);
      for (const char* key : {"volcano.sh/sla-waiting-time", "sla-waiting-time"}) {
        const Y* v = am.get(key);
        if (!v) continue;
        const std::string text = v->str();
        std::int64_t ns = 0;
        try {
          ns = policy::parse_go_duration(text);
        } catch (const std::invalid_argument& e) {
          v->fail(std::string(e.what()) + " (a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h)");
        }
        if (ns <= 0) v->fail("\"" + text + "\" is not positive (Volcano ignores such a waiting time; remove it instead)");
        if (ns > kMaxManifestDurationNs)
          v->fail("\"" + text + "\" is beyond the longest time a scenario may give, " + std::string(kMaxManifestDurationText));
        if (j.sla_waiting_time.empty()) j.sla_waiting_time = text;  // the first key wins
      }
    }
  }
  // JobSpec keys (batch.volcano.sh_jobs.yaml). Ignored: plugins (env, svc, ssh: environment
  // and services for the pods), ttlSecondsAfterFinished, volumes, runningEstimate,
  // networkTopology. Refused: minSuccess (not modelled).
  const M spec(top.req("spec"), {"tasks", "minAvailable", "queue", "priorityClassName", "maxRetry", "policies", "schedulerName", "minSuccess"},
               {"plugins", "ttlSecondsAfterFinished", "volumes", "runningEstimate", "networkTopology"});
  if (const Y* m = spec.get("minSuccess"))
    m->fail("minSuccess (the Job Completed once that many pods Succeeded, state/running.go) is not modelled: remove it");
  if (const Y* s = spec.get("schedulerName"))
    if (s->str() != "volcano") s->fail("expected \"volcano\" (mltwin models the Volcano scheduler), got \"" + s->str() + "\"");
  // Defaults of the admission webhook (mutate_job.go): queue "default", maxRetry 3.
  j.queue = "default";
  j.queue_at = j.at;
  if (const Y* q = spec.get("queue")) {
    j.queue = q->str();
    j.queue_at = q->at();
  }
  j.max_retry = spec.get("maxRetry") ? spec.get("maxRetry")->int32() : 0;
  if (j.max_retry == 0) j.max_retry = 3;
  if (const Y* pc = spec.get("priorityClassName")) j.priority_class_name = pc->str();
  if (const Y* p = spec.get("policies")) j.policies = policies_of(*p);
  std::set<std::string> names;
  long long min_sum = 0;
  const auto tasks = spec.req("tasks").list();
  if (tasks.empty()) spec.req("tasks").fail("expected at least one task");
  for (const Y& t : tasks) {
    // TaskSpec keys; ignored: topologyPolicy (CPU/NUMA topology of the node).
    const M tm(t, {"name", "replicas", "template", "minAvailable", "maxRetry", "policies", "dependsOn"}, {"topologyPolicy"});
    VolcanoTask task;
    task.at = t.at();
    task.name = tm.req("name").str();
    if (std::string p = object_name_problem(task.name, "task"); !p.empty()) tm.req("name").fail(p);
    if (!names.insert(task.name).second) tm.req("name").fail("task name '" + task.name + "' appears twice");
    task.replicas = tm.req("replicas").int32(0);
    // minAvailable: an int32 in the CRD (no minimum); the webhook checks it below.
    if (const Y* m = tm.get("minAvailable")) task.min_available = m->int32(-2147483648LL);
    if (const Y* m = tm.get("maxRetry")) task.max_retry = m->int32(0);
    if (const Y* p = tm.get("policies")) task.policies = policies_of(*p);
    if (const Y* d = tm.get("dependsOn"))
      d->fail("dependsOn (start this task after others) is not modelled: mltwin starts a job's pods together");
    task.pod = pod_of(tm.req("template"));
    min_sum += task.min_available.value_or(task.replicas);
    j.tasks.push_back(std::move(task));
  }
  j.min_available_at = j.at;
  j.min_available = 0;
  const Y* job_min = spec.get("minAvailable");
  if (job_min) {
    j.min_available = job_min->int32(-2147483648LL);
    j.min_available_at = job_min->at();
  }
  check_min_available(j, job_min, min_sum, tasks);
  return j;
}

void read_doc(const Y& doc, Manifests& out, const std::vector<std::string>* skip = nullptr,
              std::map<std::string, std::size_t>* skipped = nullptr) {
  if (doc.node.IsNull()) return;  // an empty document (a trailing ---)
  const auto [api, kind] = type_of(doc);
  // read_manifests_skipping: a kind another of the scenario's keys reads, not parsed here.
  if (skip && std::find(skip->begin(), skip->end(), kind) != skip->end()) {
    ++(*skipped)[kind];
    return;
  }
  const Y kind_y = doc.child("kind", doc.node["kind"]);
  const Y api_y = doc.child("apiVersion", doc.node["apiVersion"]);
  // Captured by name: clang before 16 cannot capture structured bindings (the fuzz build).
  auto want_api = [&, &api = api, &kind = kind](const char* expected) {
    if (api != expected) api_y.fail(kind + " is read as apiVersion " + expected + " (Volcano v1.12.1's CRDs), not \"" + api + "\"");
  };
  if (kind == "List" && api == "v1") {  // kubectl get -o yaml
    const M top(doc, {"apiVersion", "kind", "items", "metadata"});
    if (const Y* items = top.get("items"))
      for (const Y& item : items->list()) read_doc(item, out, skip, skipped);
    return;
  }
  if (kind == "Queue") {
    want_api(kVolcanoScheduling);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec", "status"});
    QueueManifest q;
    q.at = doc.at();
    q.name = name_of(top, "Queue").first;
    // QueueSpec keys. Ignored: type, affinity, extendClusters (node-group affinity and
    // multi-cluster dispatch, which no plugin mltwin runs reads).
    q.parent_at = q.at;
    if (const Y* s = top.get("spec")) {
      const M spec(*s, {"weight", "capability", "guarantee", "reclaimable", "priority", "deserved", "parent"},
                   {"type", "affinity", "extendClusters"});
      if (const Y* d = spec.get("deserved")) q.deserved = resource_list(*d);
      if (const Y* p = spec.get("parent")) {
        q.parent = p->str();
        q.parent_at = p->at();
        if (q.parent.empty()) p->fail("expected a queue name");
      }
      if (const Y* w = spec.get("weight")) q.weight = w->int32(0);
      if (q.weight == 0) q.weight = 1;  // the queue webhook's default (mutate_queue.go)
      if (const Y* c = spec.get("capability")) q.capability = resource_list(*c);
      if (const Y* g = spec.get("guarantee")) {
        const M gm(*g, {"resource"});
        if (const Y* r = gm.get("resource")) q.guarantee = resource_list(*r);
      }
      if (const Y* r = spec.get("reclaimable")) q.reclaimable = r->boolean();
      if (const Y* p = spec.get("priority")) q.priority = p->int32(-2147483647);
    }
    if (const Y* st = top.get("status")) {
      const M sm(*st, {"state"}, {}, true);
      if (const Y* s = sm.get("state")) {
        q.state = s->str();
        if (q.state != "Open" && q.state != "Closed") s->fail("expected Open or Closed, got \"" + q.state + "\"");
      }
    }
    out.queues.push_back(std::move(q));
  } else if (kind == "Job") {
    want_api(kVolcanoBatch);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec", "status"});
    out.jobs.push_back(job_of_doc(top, doc));
  } else if (kind == "PodGroup") {
    want_api(kVolcanoScheduling);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec"}, {"status"});
    PodGroupManifest pg;
    pg.at = doc.at();
    pg.name = name_of(top, "PodGroup").first;
    const M spec(top.req("spec"), {"minMember", "minTaskMember", "queue", "minResources", "priorityClassName"},
                 {"networkTopology"});
    if (const Y* m = spec.get("minMember")) pg.min_member = m->int32(0);
    if (const Y* m = spec.get("minTaskMember"))  // map[string]int32 (scheduling.volcano.sh_podgroups.yaml)
      for (const auto& [role, n] : M(*m, {}, {}, true).entries) pg.min_task_member.emplace_back(role, n.int32(0));
    if (const Y* q = spec.get("queue")) pg.queue = q->str();
    if (const Y* r = spec.get("minResources")) pg.min_resources = resource_list(*r);
    if (const Y* p = spec.get("priorityClassName")) pg.priority_class_name = p->str();
    out.podgroups.push_back(std::move(pg));
  } else if (kind == "PriorityClass") {
    want_api(kPriorityApi);
    const M top(doc, {"apiVersion", "kind", "metadata", "value", "globalDefault", "preemptionPolicy"}, {"description"});
    PriorityClassManifest pc;
    pc.at = doc.at();
    pc.name = name_of(top, "PriorityClass").first;
    // pkg/apis/scheduling/validation ValidatePriorityClass: the system- prefix is Kubernetes'
    // own, allowed only for a known system class with its value and not globalDefault
    // (scheduling.IsKnownSystemPriorityClass; SystemPriorityClasses in pkg/apis/scheduling/
    // types.go: system-cluster-critical = SystemCriticalPriority = 2000000000,
    // system-node-critical = SystemCriticalPriority + 1000); user classes go up to
    // HighestUserDefinablePriority (1,000,000,000).
    const long long value = top.req("value").integer();
    if (const Y* g = top.get("globalDefault")) pc.global_default = g->boolean();
    if (pc.name.rfind("system-", 0) == 0) {
      const long long known = pc.name == "system-cluster-critical" ? 2000000000LL : pc.name == "system-node-critical" ? 2000001000LL : -1;
      if (known < 0)
        M(top.req("metadata"), {}, {}, true).req("name").fail("the prefix 'system-' is reserved for Kubernetes' system PriorityClasses");
      if (value != known || pc.global_default)
        top.req("value").fail("Kubernetes' own " + pc.name + " has value " + std::to_string(known) + " and is not globalDefault (got " +
                              std::to_string(value) + (pc.global_default ? ", globalDefault" : "") + ")");
      pc.system = true;
    } else if (value > 1000000000LL || value < -2147483648LL) {
      top.req("value").fail("expected a value up to 1000000000 (HighestUserDefinablePriority), got " + std::to_string(value));
    }
    pc.value = static_cast<int>(value);
    if (const Y* pp = top.get("preemptionPolicy")) {
      const std::string v = pp->str();
      if (v != "PreemptLowerPriority" && v != "Never") pp->fail("expected PreemptLowerPriority or Never, got \"" + v + "\"");
      pc.preempt_never = v == "Never";
    }
    out.priority_classes.push_back(std::move(pc));
  } else {
    // read_manifests_skipping with "*": a kind this reader does not read at all (a Secret, a
    // Service in a kubectl export) is another key's or no one's.
    if (skip && std::find(skip->begin(), skip->end(), "*") != skip->end()) {
      ++(*skipped)[kind];
      return;
    }
    std::string hint;
    if (kind == "ClusterConfig") hint = "; an eksctl ClusterConfig is read from the scenario's cluster.eksctl";
    if (kind == "ConfigMap") hint = "; the volcano-scheduler ConfigMap is read from the scenario's volcano.scheduler_config";
    if (kind == "Node") hint = "; Nodes (kubectl get nodes -o json) are read from the scenario's cluster.nodes_from";
    kind_y.fail("unknown kind \"" + kind + "\" (apiVersion " + api + "): mltwin reads Queue and PodGroup (" + kVolcanoScheduling +
                "), Job (" + kVolcanoBatch + "), PriorityClass (" + kPriorityApi + ") and List" + hint);
  }
}

}  // namespace

int VolcanoJobManifest::pods() const {
  int n = 0;
  for (const auto& t : tasks) n += t.replicas;
  return n;
}

std::string VolcanoJobManifest::action_on_evicted(const VolcanoTask& t) const {
  auto find = [](const std::vector<JobPolicy>& ps) -> std::string {
    for (const auto& p : ps)
      for (const auto& e : p.events)
        if (e == "PodEvicted" || e == "*") return p.action;
    return {};
  };
  std::string a = find(t.policies);
  return a.empty() ? find(policies) : a;
}

Manifests read_manifests(const std::string& file) {
  const std::string text = read_text(file);
  Src src(file);
  Manifests out;
  reading_whole(text, [&] {
    const auto docs = load_all(src, text);
    for (std::size_t i = 0; i < docs.size(); ++i) read_doc(Y{&src, docs[i], ""}, out);
  });
  return out;
}

Manifests read_manifests_skipping(const std::string& file, const std::vector<std::string>& kinds, std::map<std::string, std::size_t>& skipped) {
  const std::string text = read_text(file);
  Src src(file);
  Manifests out;
  reading_whole(text, [&] {
    const auto docs = load_all(src, text);
    for (std::size_t i = 0; i < docs.size(); ++i) read_doc(Y{&src, docs[i], ""}, out, &kinds, &skipped);
  });
  return out;
}

}  // namespace mltwin::k8s
