// kubectl JSON <-> the scheduler's objects (mltwin/k8s/snapshot.hpp).
#include "mltwin/k8s/snapshot.hpp"
#include "yaml_guard.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "mltwin/k8s/resources.hpp"
#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/k8s/text.hpp"
#include "mltwin/k8s/validation.hpp"
#include "mltwin/k8s/yaml.hpp"
#include "mltwin/policy/go_duration.hpp"

namespace mltwin::k8s {

using nlohmann::json;
using policy::TimeNs;

namespace {

// ---- the kinds read -----------------------------------------------------------------------

struct Kind {
  const char* kind;
  const char* api_version;
};
// apiVersion as kubectl prints it for each kind read.
constexpr Kind kKinds[] = {{"Node", "v1"},
                           {"Pod", "v1"},
                           {"PodGroup", "scheduling.volcano.sh/v1beta1"},
                           {"Queue", "scheduling.volcano.sh/v1beta1"},
                           {"PriorityClass", "scheduling.k8s.io/v1"}};

bool read_kind(const json& kind) {
  if (!kind.is_string()) return true;  // an error, reported where the object is read
  const auto& k = kind.get_ref<const std::string&>();
  return std::any_of(std::begin(kKinds), std::end(kKinds), [&](const Kind& x) { return k == x.kind; }) || k == "ConfigMap";
}

// ---- JSON access with the path of each value ----------------------------------------------

/// JSON pointer -> "line:column" (1-based) in a YAML file, for the values read from it.
using LineMap = std::map<std::string, std::string, std::less<>>;

/// "line:column" of the value at JSON pointer `path`, else of the nearest enclosing one; "" if none.
std::string line_of(const LineMap& lines, std::string_view path) {
  for (std::string_view at = path;;) {
    if (auto it = lines.find(at); it != lines.end()) return it->second;
    const std::size_t up = at.rfind('/');
    if (at.empty() || up == std::string_view::npos) return {};
    at = at.substr(0, up);
  }
}

class Reader {
 public:
  /// `file` names the input (a YAML file of several documents: "f.yaml (YAML document 2)");
  /// with `lines`, errors give the line in `line_file` instead.
  explicit Reader(const std::string& file, const LineMap* lines = nullptr, const std::string* line_file = nullptr)
      : file_(file), lines_(lines), line_file_(line_file) {}
  /// "file: /path", or "file:LINE:COL: /path" for a YAML file (the line of the value at the
  /// path, else of the nearest enclosing one).
  std::string place(const std::string& path) const {
    const std::string p = path.empty() ? std::string("/") : path;
    if (lines_)
      if (std::string lc = line_of(*lines_, path); !lc.empty()) return (line_file_ ? *line_file_ : file_) + ":" + lc + ": " + p;
    return file_ + ": " + p;
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw InputError(place(path) + ": " + what); }
  static std::string type_name(const json& v) {
    switch (v.type()) {
      case json::value_t::null: return "null";
      case json::value_t::object: return "an object";
      case json::value_t::array: return "a list";
      case json::value_t::string: return "a string";
      case json::value_t::boolean: return "a boolean";
      default: return "a number";
    }
  }
  /// o[key], or nullptr when absent or null (Go's decoders treat both as unset).
  static const json* get(const json& o, const char* key) {
    auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object, got " + type_name(v));
    return v;
  }
  const json& list(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected a list, got " + type_name(v));
    return v;
  }
  const std::string& str(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + type_name(v));
    return v.get_ref<const std::string&>();
  }
  std::int64_t integer(const json& v, const std::string& path, std::int64_t min, std::int64_t max) const {
    if (!v.is_number_integer()) fail(path, "expected an integer, got " + type_name(v) + " " + printable(v.dump()));
    const std::int64_t x = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                               ? INT64_MAX
                               : v.get<std::int64_t>();
    if (x < min || x > max) fail(path, std::to_string(x) + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return x;
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "expected true or false, got " + type_name(v));
    return v.get<bool>();
  }
  /// An optional string field ("" when absent).
  std::string opt_str(const json& o, const char* key, const std::string& path) const {
    const json* v = get(o, key);
    return v ? str(*v, path + "/" + key) : std::string();
  }
  /// metadata.labels / annotations / spec.nodeSelector: string -> string, in key order.
  std::vector<std::pair<std::string, std::string>> string_map(const json& o, const char* key, const std::string& path) const {
    std::vector<std::pair<std::string, std::string>> out;
    const json* m = get(o, key);
    if (!m) return out;
    const std::string at = path + "/" + key;
    object(*m, at);
    for (auto it = m->begin(); it != m->end(); ++it) out.emplace_back(it.key(), str(it.value(), at + "/" + pointer_token_of(it.key())));
    std::sort(out.begin(), out.end());
    return out;
  }
  TimeNs time(const json& v, const std::string& path) const {
    const std::string& s = str(v, path);
    auto t = parse_rfc3339(s);
    if (!t) fail(path, "'" + printable(s) + "' is not an RFC 3339 time such as 2024-05-01T12:00:00Z");
    return *t;
  }
  policy::Resource resources(const json& v, const std::string& path) const {
    object(v, path);
    policy::Resource r;
    if (auto p = resource_list_problem(v, r, UnknownResource::Skip)) fail(path + "/" + pointer_token_of(p->field), p->message);
    return r;
  }
  /// A core/v1 Taint / Toleration / NodeAffinity, checked by the API server's rules.
  std::vector<policy::Taint> taints(const json& v, const std::string& path) const {
    std::vector<policy::Taint> out;
    list(v, path);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = path + "/" + std::to_string(i);
      object(v[i], at);
      typed_strings(v[i], at, {"key", "value", "effect"});
      if (auto p = taint_problem(v[i])) fail(at + "/" + p->field, p->message);
      out.push_back(taint_from(v[i]));
    }
    return out;
  }
  std::vector<policy::Toleration> tolerations(const json& v, const std::string& path) const {
    std::vector<policy::Toleration> out;
    list(v, path);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = path + "/" + std::to_string(i);
      object(v[i], at);
      typed_strings(v[i], at, {"key", "operator", "value", "effect"});
      if (const json* s = get(v[i], "tolerationSeconds")) integer(*s, at + "/tolerationSeconds", INT64_MIN, INT64_MAX);
      if (auto p = toleration_problem(v[i])) fail(at + "/" + p->field, p->message);
      out.push_back(toleration_from(v[i]));
    }
    return out;
  }
  policy::NodeAffinity node_affinity(const json& v, const std::string& path) const {
    object(v, path);
    // The validation and conversion expect the shape's JSON types: check them first.
    auto check_term = [&](const json& t, const std::string& at) {
      object(t, at);
      for (const char* part : {"matchExpressions", "matchFields"}) {
        const json* reqs = get(t, part);
        if (!reqs) continue;
        list(*reqs, at + "/" + part);
        for (std::size_t i = 0; i < reqs->size(); ++i) {
          const std::string rat = at + "/" + part + "/" + std::to_string(i);
          object((*reqs)[i], rat);
          typed_strings((*reqs)[i], rat, {"key", "operator"});
          if (const json* vals = get((*reqs)[i], "values")) {
            list(*vals, rat + "/values");
            for (std::size_t k = 0; k < vals->size(); ++k) str((*vals)[k], rat + "/values/" + std::to_string(k));
          }
        }
      }
    };
    json copy = v;  // without nulls, which the validation does not expect
    if (const json* req = get(v, "requiredDuringSchedulingIgnoredDuringExecution")) {
      const std::string at = path + "/requiredDuringSchedulingIgnoredDuringExecution";
      object(*req, at);
      const json* terms = get(*req, "nodeSelectorTerms");
      if (!terms) fail(at, "missing nodeSelectorTerms");
      list(*terms, at + "/nodeSelectorTerms");
      for (std::size_t i = 0; i < terms->size(); ++i) check_term((*terms)[i], at + "/nodeSelectorTerms/" + std::to_string(i));
    } else {
      copy.erase("requiredDuringSchedulingIgnoredDuringExecution");
    }
    if (const json* pref = get(v, "preferredDuringSchedulingIgnoredDuringExecution")) {
      const std::string at = path + "/preferredDuringSchedulingIgnoredDuringExecution";
      list(*pref, at);
      for (std::size_t i = 0; i < pref->size(); ++i) {
        const std::string pat = at + "/" + std::to_string(i);
        object((*pref)[i], pat);
        const json* w = get((*pref)[i], "weight");
        if (!w) fail(pat, "missing weight");
        integer(*w, pat + "/weight", INT32_MIN, INT32_MAX);
        const json* p = get((*pref)[i], "preference");
        if (!p) fail(pat, "missing preference");
        check_term(*p, pat + "/preference");
      }
    } else {
      copy.erase("preferredDuringSchedulingIgnoredDuringExecution");
    }
    if (auto p = node_affinity_problem(copy)) fail(path + "/" + p->field, p->message);
    return node_affinity_from(copy);
  }

 public:
  const std::string& file() const { return file_; }

 private:
  void typed_strings(const json& o, const std::string& path, std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (const json* v = get(o, k)) str(*v, path + "/" + k);
  }
  const std::string& file_;
  const LineMap* lines_;
  const std::string* line_file_;
};

std::string strformat(const char* fmt, long long a, long long b, long long c) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// ---- one object each ------------------------------------------------------------------------

struct Meta {
  std::string name, ns, uid;
  TimeNs creation = 0;
  bool deleting = false;
  std::vector<std::pair<std::string, std::string>> labels, annotations;
  const std::string* annotation(std::string_view k) const {
    for (const auto& [key, v] : annotations)
      if (key == k) return &v;
    return nullptr;
  }
  const std::string* label(std::string_view k) const {
    for (const auto& [key, v] : labels)
      if (key == k) return &v;
    return nullptr;
  }
};

Meta meta_of(const Reader& r, const json& obj, const std::string& path, const char* kind, bool namespaced) {
  Meta m;
  const json* md = Reader::get(obj, "metadata");
  if (!md) r.fail(path, "missing metadata");
  const std::string at = path + "/metadata";
  r.object(*md, at);
  const json* name = Reader::get(*md, "name");
  if (!name) r.fail(at, "missing name");
  m.name = r.str(*name, at + "/name");
  if (m.name.empty()) r.fail(at + "/name", "empty name");
  if (std::string p = control_character_problem(m.name); !p.empty()) r.fail(at + "/name", p);
  if (namespaced) {
    m.ns = r.opt_str(*md, "namespace", at);
    if (m.ns.empty()) m.ns = "default";
  }
  m.uid = r.opt_str(*md, "uid", at);
  // Without a uid (a hand-written object), one stable per kind and name.
  if (m.uid.empty()) m.uid = std::string(kind) + ":" + (namespaced ? m.ns + "/" : "") + m.name;
  if (const json* c = Reader::get(*md, "creationTimestamp")) m.creation = r.time(*c, at + "/creationTimestamp");
  if (const json* d = Reader::get(*md, "deletionTimestamp")) {
    r.time(*d, at + "/deletionTimestamp");
    m.deleting = true;
  }
  m.labels = r.string_map(*md, "labels", at);
  m.annotations = r.string_map(*md, "annotations", at);
  return m;
}

/// Go's strconv.ParseBool.
std::optional<bool> go_parse_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return false;
  return std::nullopt;
}

void read_node(const Reader& r, const json& obj, const std::string& path, Snapshot& out) {
  const Meta m = meta_of(r, obj, path, "Node", false);
  policy::NodeObject n;
  n.uid = m.uid;
  n.spec.name = m.name;
  n.spec.labels = m.labels;
  // The well-known instance-type label (k8s.io/api/core/v1 well_known_labels.go
  // LabelInstanceTypeStable, else the deprecated beta label).
  if (const std::string* t = m.label("node.kubernetes.io/instance-type")) n.spec.instance_type = *t;
  else if (const std::string* b = m.label("beta.kubernetes.io/instance-type")) n.spec.instance_type = *b;
  if (const json* spec = Reader::get(obj, "spec")) {
    const std::string at = path + "/spec";
    r.object(*spec, at);
    if (const json* u = Reader::get(*spec, "unschedulable")) n.spec.unschedulable = r.boolean(*u, at + "/unschedulable");
    if (const json* t = Reader::get(*spec, "taints")) n.spec.taints = r.taints(*t, at + "/taints");
  }
  // Volcano's NodeInfo.Ready (node_info.go setNodeState): the Ready condition is True. A node
  // without status is not ready.
  n.spec.ready = false;
  if (const json* st = Reader::get(obj, "status")) {
    const std::string at = path + "/status";
    r.object(*st, at);
    if (const json* a = Reader::get(*st, "allocatable")) n.spec.allocatable = r.resources(*a, at + "/allocatable");
    if (const json* c = Reader::get(*st, "capacity")) n.spec.capacity = r.resources(*c, at + "/capacity");
    if (const json* conds = Reader::get(*st, "conditions")) {
      r.list(*conds, at + "/conditions");
      for (std::size_t i = 0; i < conds->size(); ++i) {
        const std::string cat = at + "/conditions/" + std::to_string(i);
        r.object((*conds)[i], cat);
        if (r.opt_str((*conds)[i], "type", cat) == "Ready") n.spec.ready = r.opt_str((*conds)[i], "status", cat) == "True";
      }
    }
  }
  out.nodes.push_back(std::move(n));
}

/// The pod's requests as Volcano's NewTaskInfo takes them (pod_info.go GetPodResourceRequest:
/// the containers' sum plus spec.overhead, at least each init container's — a restartable
/// one, restartPolicy Always, adds to the sum and to every later init container's need — and
/// one `pods`).
policy::Resource pod_requests(const Reader& r, const json& spec, const std::string& at) {
  auto requests_of = [&](const json& c, const std::string& cat) {
    r.object(c, cat);
    const json* res = Reader::get(c, "resources");
    if (!res) return policy::Resource{};
    r.object(*res, cat + "/resources");
    const json* req = Reader::get(*res, "requests");
    return req ? r.resources(*req, cat + "/resources/requests") : policy::Resource{};
  };
  policy::Resource sum;
  if (const json* cs = Reader::get(spec, "containers")) {
    r.list(*cs, at + "/containers");
    for (std::size_t i = 0; i < cs->size(); ++i) sum.add(requests_of((*cs)[i], at + "/containers/" + std::to_string(i)));
  }
  if (const json* o = Reader::get(spec, "overhead")) sum.add(r.resources(*o, at + "/overhead"));
  policy::Resource restartable, init_max;
  if (const json* ics = Reader::get(spec, "initContainers")) {
    r.list(*ics, at + "/initContainers");
    for (std::size_t i = 0; i < ics->size(); ++i) {
      const std::string cat = at + "/initContainers/" + std::to_string(i);
      policy::Resource req = requests_of((*ics)[i], cat);
      if (r.opt_str((*ics)[i], "restartPolicy", cat) == "Always") {
        sum.add(req);
        restartable.add(req);
        req = restartable;
      } else {
        req.add(restartable);
      }
      init_max.set_max_resource(req);
    }
  }
  sum.set_max_resource(init_max);
  sum.max_task_num = 0;  // a pod's max_task_num means nothing (NewResource counts requested pods only on nodes)
  return policy::task_resreq(sum);
}

void read_pod(const Reader& r, const json& obj, const std::string& path, const ReadOptions& opts, Snapshot& out) {
  const Meta m = meta_of(r, obj, path, "Pod", true);
  policy::PodObject p;
  p.uid = m.uid;
  p.name = m.ns + "/" + m.name;
  p.spec.name = m.name;
  p.spec.creation = m.creation;
  p.spec.index = policy::pod_index_under_task(m.name);
  const json* specp = Reader::get(obj, "spec");
  if (!specp) r.fail(path, "missing spec");
  const std::string at = path + "/spec";
  const json& spec = r.object(*specp, at);
  p.node = r.opt_str(spec, "nodeName", at);
  std::string scheduler = r.opt_str(spec, "schedulerName", at);
  if (scheduler.empty()) scheduler = "default-scheduler";  // the API server's default (SetDefaults_PodSpec)
  const bool ours = std::find(opts.scheduler_names.begin(), opts.scheduler_names.end(), scheduler) != opts.scheduler_names.end();
  // Volcano's pod informer keeps another scheduler's pod only once it is on a node
  // (cache.go newSchedulerCache, the pod informer's FilterFunc).
  if (!ours && p.node.empty()) return;
  // The PodGroup: annotation scheduling.k8s.io/group-name, in the pod's namespace (job_info.go getJobID).
  if (const std::string* g = m.annotation("scheduling.k8s.io/group-name"); g && !g->empty() && ours) p.podgroup = m.ns + "/" + *g;
  // Volcano TaskInfo.Priority: 1, else spec.priority (which the Priority admission plugin fills
  // from the PriorityClass), else the annotation volcano.sh/task-priority when it is an int32
  // (job_info.go NewTaskInfo :193-217).
  p.spec.priority = 1;
  if (const json* pr = Reader::get(spec, "priority")) p.spec.priority = static_cast<std::int32_t>(r.integer(*pr, at + "/priority", INT32_MIN, INT32_MAX));
  if (const std::string* tp = m.annotation("volcano.sh/task-priority")) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(tp->c_str(), &end, 10);
    if (!tp->empty() && end && *end == '\0' && errno == 0 && v >= INT32_MIN && v <= INT32_MAX) p.spec.priority = static_cast<std::int32_t>(v);
  }
  const std::string pc = r.opt_str(spec, "priorityClassName", at);
  p.spec.system_critical = pc == "system-cluster-critical" || pc == "system-node-critical" || m.ns == "kube-system";
  p.spec.preempt_never = r.opt_str(spec, "preemptionPolicy", at) == "Never";
  // volcano.sh/preemptable: the annotation, else the label; true when neither; an unparsable
  // value is false (pod_info.go GetPodPreemptable).
  if (const std::string* v = m.annotation("volcano.sh/preemptable")) p.spec.preemptable = go_parse_bool(*v).value_or(false);
  else if (const std::string* l = m.label("volcano.sh/preemptable")) p.spec.preemptable = go_parse_bool(*l).value_or(false);
  // volcano.sh/task-spec: the annotation, else the label (job_info.go getTaskRole).
  if (const std::string* t = m.annotation("volcano.sh/task-spec"); t && !t->empty()) p.spec.role = *t;
  else if (const std::string* l = m.label("volcano.sh/task-spec")) p.spec.role = *l;
  p.spec.resreq = pod_requests(r, spec, at);
  p.spec.node_selector = r.string_map(spec, "nodeSelector", at);
  if (const json* aff = Reader::get(spec, "affinity")) {
    r.object(*aff, at + "/affinity");
    if (const json* na = Reader::get(*aff, "nodeAffinity")) p.spec.node_affinity = r.node_affinity(*na, at + "/affinity/nodeAffinity");
  }
  if (const json* t = Reader::get(spec, "tolerations")) p.spec.tolerations = r.tolerations(*t, at + "/tolerations");
  // status.phase (Pending when absent: a pod just created), then Volcano's getTaskStatus.
  policy::PodPhase phase = policy::PodPhase::Pending;
  if (const json* st = Reader::get(obj, "status")) {
    r.object(*st, path + "/status");
    const std::string ph = r.opt_str(*st, "phase", path + "/status");
    // status.nominatedNodeName: preempt's choice of node for a pending pod (TaskInfo::nominated_node).
    p.spec.nominated_node = r.opt_str(*st, "nominatedNodeName", path + "/status");
    if (ph == "Running") phase = policy::PodPhase::Running;
    else if (ph == "Succeeded") phase = policy::PodPhase::Succeeded;
    else if (ph == "Failed") phase = policy::PodPhase::Failed;
    else if (ph == "Unknown") phase = policy::PodPhase::Unknown;
    else if (!ph.empty() && ph != "Pending")
      r.fail(path + "/status/phase", "'" + printable(ph) + "' is not a pod phase (Pending, Running, Succeeded, Failed, Unknown)");
  }
  p.status = policy::task_status_of(phase, !p.node.empty(), m.deleting);
  if (opts.pod_details) {
    PodDetails d;
    d.scheduler = scheduler;
    d.deleting = m.deleting;
    if (const json* st = Reader::get(obj, "status")) {
      if (std::string ph = r.opt_str(*st, "phase", path + "/status"); !ph.empty()) d.phase = ph;
      if (const json* t = Reader::get(*st, "startTime")) d.start = r.time(*t, path + "/status/startTime");
    }
    // metadata.ownerReferences (meta/v1 OwnerReference): the one with controller true.
    if (const json* refs = Reader::get(*Reader::get(obj, "metadata"), "ownerReferences")) {
      const std::string oat = path + "/metadata/ownerReferences";
      r.list(*refs, oat);
      for (std::size_t i = 0; i < refs->size(); ++i) {
        const std::string rat = oat + "/" + std::to_string(i);
        r.object((*refs)[i], rat);
        if (const json* c = Reader::get((*refs)[i], "controller"); c && r.boolean(*c, rat + "/controller"))
          d.controller_kind = r.opt_str((*refs)[i], "kind", rat);
      }
    }
    for (const std::string& k : opts.keep_annotations)
      if (const std::string* v = m.annotation(k)) d.annotations[k] = *v;
    out.pod_details[p.name] = std::move(d);
  }
  out.pods.push_back(std::move(p));
}

void read_podgroup(const Reader& r, const json& obj, const std::string& path, const ReadOptions& opts, Snapshot& out) {
  const Meta m = meta_of(r, obj, path, "PodGroup", true);
  if (opts.pod_details) {
    std::map<std::string, std::string> kept;
    for (const std::string& k : opts.keep_annotations)
      if (const std::string* v = m.annotation(k)) kept[k] = *v;
    out.podgroup_annotations[m.ns + "/" + m.name] = std::move(kept);
  }
  PodGroupRead g;
  g.object.uid = m.uid;
  g.object.name = m.ns + "/" + m.name;
  g.object.spec.name = g.object.name;
  g.object.spec.creation = m.creation;
  g.object.queue = "default";
  // sla-waiting-time: annotation volcano.sh/sla-waiting-time, else sla-waiting-time
  // (api/job_info.go extractWaitingTime); a value that is not a Go duration > 0 is left unset.
  const std::string* sla = m.annotation("volcano.sh/sla-waiting-time");
  if (!sla) sla = m.annotation("sla-waiting-time");
  if (sla) {
    try {
      if (const std::int64_t d = policy::parse_go_duration(*sla); d > 0) g.object.spec.sla_waiting_time = d;
    } catch (const std::invalid_argument&) {
    }
  }
  if (const json* specp = Reader::get(obj, "spec")) {
    const std::string at = path + "/spec";
    const json& spec = r.object(*specp, at);
    if (std::string q = r.opt_str(spec, "queue", at); !q.empty()) g.object.queue = q;
    g.object.spec.min_available = 0;
    if (const json* mm = Reader::get(spec, "minMember")) g.object.spec.min_available = static_cast<std::int32_t>(r.integer(*mm, at + "/minMember", 0, INT32_MAX));
    if (const json* mtm = Reader::get(spec, "minTaskMember")) {
      r.object(*mtm, at + "/minTaskMember");
      for (auto it = mtm->begin(); it != mtm->end(); ++it)
        g.object.spec.min_task_member.emplace_back(
            it.key(), static_cast<std::int32_t>(r.integer(it.value(), at + "/minTaskMember/" + pointer_token_of(it.key()), 0, INT32_MAX)));
    }
    g.object.spec.has_min_resources = false;
    if (const json* mr = Reader::get(spec, "minResources")) {
      g.object.spec.has_min_resources = true;
      g.object.spec.min_resources = r.resources(*mr, at + "/minResources");
    }
    g.priority_class_name = r.opt_str(spec, "priorityClassName", at);
  } else {
    g.object.spec.min_available = 0;
    g.object.spec.has_min_resources = false;
  }
  g.object.spec.phase = policy::PodGroupPhase::Pending;
  if (const json* st = Reader::get(obj, "status")) {
    const std::string at = path + "/status";
    r.object(*st, at);
    const std::string ph = r.opt_str(*st, "phase", at);
    if (ph == "Inqueue") g.object.spec.phase = policy::PodGroupPhase::Inqueue;
    else if (ph == "Running") g.object.spec.phase = policy::PodGroupPhase::Running;
    else if (ph == "Unknown") g.object.spec.phase = policy::PodGroupPhase::Unknown;
    else if (ph == "Completed") g.object.spec.phase = policy::PodGroupPhase::Completed;
    else if (!ph.empty() && ph != "Pending")
      r.fail(at + "/phase", "'" + printable(ph) + "' is not a PodGroup phase (Pending, Inqueue, Running, Unknown, Completed)");
  }
  out.podgroups.push_back(std::move(g));
}

void read_queue(const Reader& r, const json& obj, const std::string& path, Snapshot& out) {
  const Meta m = meta_of(r, obj, path, "Queue", false);
  policy::QueueObject q;
  q.uid = m.uid;
  q.spec.name = m.name;
  q.spec.creation = m.creation;
  if (const json* specp = Reader::get(obj, "spec")) {
    const std::string at = path + "/spec";
    const json& spec = r.object(*specp, at);
    if (const json* w = Reader::get(spec, "weight")) q.spec.weight = static_cast<std::int32_t>(r.integer(*w, at + "/weight", 0, INT32_MAX));
    if (const json* c = Reader::get(spec, "capability")) q.spec.capability = r.resources(*c, at + "/capability");
    if (const json* g = Reader::get(spec, "guarantee")) {
      r.object(*g, at + "/guarantee");
      if (const json* gr = Reader::get(*g, "resource")) q.spec.guarantee = r.resources(*gr, at + "/guarantee/resource");
    }
    if (const json* d = Reader::get(spec, "deserved")) q.spec.deserved = r.resources(*d, at + "/deserved");
    q.parent = r.opt_str(spec, "parent", at);
    if (const json* p = Reader::get(spec, "priority")) q.spec.priority = static_cast<std::int32_t>(r.integer(*p, at + "/priority", INT32_MIN, INT32_MAX));
    if (const json* rc = Reader::get(spec, "reclaimable")) q.spec.reclaimable = r.boolean(*rc, at + "/reclaimable");
  }
  if (const json* st = Reader::get(obj, "status")) {
    r.object(*st, path + "/status");
    // Volcano's queue states: Open, Closed, Closing, Unknown; the scheduler serves only Open
    // queues (a Closing queue takes no new jobs either).
    const std::string s = r.opt_str(*st, "state", path + "/status");
    if (!s.empty() && s != "Open") q.spec.state = policy::QueueState::Closed;
  }
  out.queues.push_back(std::move(q));
}

void read_priority_class(const Reader& r, const json& obj, const std::string& path, Snapshot& out) {
  const Meta m = meta_of(r, obj, path, "PriorityClass", false);
  PriorityClass pc;
  pc.name = m.name;
  const json* v = Reader::get(obj, "value");
  if (!v) r.fail(path, "missing value");
  pc.value = static_cast<std::int32_t>(r.integer(*v, path + "/value", INT32_MIN, INT32_MAX));
  if (const json* g = Reader::get(obj, "globalDefault")) pc.global_default = r.boolean(*g, path + "/globalDefault");
  if (const std::string pp = r.opt_str(obj, "preemptionPolicy", path); pp == "Never") pc.preempt_never = true;
  else if (!pp.empty() && pp != "PreemptLowerPriority")
    r.fail(path + "/preemptionPolicy", "'" + printable(pp) + "' is not a preemption policy (PreemptLowerPriority, Never)");
  out.priority_classes.push_back(std::move(pc));
}

void read_meta_configmap(const Reader& r, const json& obj, const std::string& path, Snapshot& out) {
  const json* data = Reader::get(obj, "data");
  if (!data) return;
  r.object(*data, path + "/data");
  if (const json* now = Reader::get(*data, "now")) out.meta.now = r.time(*now, path + "/data/now");
  if (const json* tb = Reader::get(*data, "tiebreakState")) out.meta.tiebreak_state = r.str(*tb, path + "/data/tiebreakState");
  if (const json* conf = Reader::get(*data, "volcano-scheduler.conf")) {
    out.meta.scheduler_conf = r.str(*conf, path + "/data/volcano-scheduler.conf");
    out.meta.scheduler_conf_source = r.file() + " (data.volcano-scheduler.conf of " + kSnapshotConfigMap + ")";
    out.meta.scheduler_conf_file = r.file();
  }
}

void read_object(const Reader& r, const json& obj, const std::string& path, const ReadOptions& opts, Snapshot& out,
                 std::map<std::string, std::size_t>& skipped) {
  r.object(obj, path);
  const json* kind = Reader::get(obj, "kind");
  if (!kind) r.fail(path, "missing kind (kubectl's -o json prints it for every object)");
  const std::string& k = r.str(*kind, path + "/kind");
  const std::string api = r.opt_str(obj, "apiVersion", path);
  if (k == "ConfigMap") {
    const json* md = Reader::get(obj, "metadata");
    if (md && md->is_object() && r.opt_str(*md, "namespace", path + "/metadata") + "/" + r.opt_str(*md, "name", path + "/metadata") == kSnapshotConfigMap)
      read_meta_configmap(r, obj, path, out);
    else
      ++skipped[k];
    return;
  }
  for (const Kind& x : kKinds) {
    if (k != x.kind) continue;
    if (api != x.api_version) r.fail(path + "/apiVersion", "expected " + std::string(x.api_version) + " for a " + k + ", got '" + printable(api) + "'");
    const std::size_t before = out.nodes.size() + out.pods.size() + out.podgroups.size() + out.queues.size() + out.priority_classes.size();
    std::string name;
    if (k == "Node") {
      read_node(r, obj, path, out);
      if (!out.nodes.empty()) name = out.nodes.back().spec.name;
    } else if (k == "Pod") {
      read_pod(r, obj, path, opts, out);
      if (!out.pods.empty()) name = out.pods.back().name;
    } else if (k == "PodGroup") {
      read_podgroup(r, obj, path, opts, out);
      name = out.podgroups.back().object.name;
    } else if (k == "Queue") {
      read_queue(r, obj, path, out);
      name = out.queues.back().spec.name;
    } else {
      read_priority_class(r, obj, path, out);
      name = out.priority_classes.back().name;
    }
    const std::size_t after = out.nodes.size() + out.pods.size() + out.podgroups.size() + out.queues.size() + out.priority_classes.size();
    if (after == before) return;  // a pod left out (another scheduler's, on no node)
    const std::string where = r.file() + ": " + (path.empty() ? std::string("/") : path);
    const auto [it, fresh] = out.origin.emplace(k + " " + name, where);
    if (!fresh)
      r.fail(path + "/metadata/name", "a second " + k + " named '" + printable(name) + "' (the first: " + it->second +
                                          "); a snapshot holds each object once");
    return;
  }
  ++skipped[k];
}

// The parse callback: drops, while the text is parsed, the objects of kinds the reader skips
// and the fields that may hold secrets or only bulk (the header lists them).
class Dropper {
 public:
  std::map<std::string, std::size_t> dropped;  // kind -> objects dropped
  /// The indices in the List's `items` of the objects dropped, ascending: the items left keep
  /// their indices as written in errors (/items/N).
  std::vector<std::size_t> dropped_items;

  bool operator()(int depth, json::parse_event_t ev, json& parsed) {
    (void)depth;
    switch (ev) {
      case json::parse_event_t::key:
        key_ = parsed.get<std::string>();
        return !drop_key();
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        stack_.push_back({ev == json::parse_event_t::array_start, stack_.empty() ? std::string() : in_array() ? std::string() : key_});
        return true;
      case json::parse_event_t::array_end:
        stack_.pop_back();
        return true;
      case json::parse_event_t::object_end: {
        // An item of a List (the root object's `items`), or the root object itself.
        const bool list_item = stack_.size() == 3 && stack_[1].array && stack_[1].key == "items";
        const bool item = list_item || stack_.size() == 1;
        const std::size_t index = list_item ? items_seen_++ : 0;
        stack_.pop_back();
        if (item && parsed.is_object()) {
          auto k = parsed.find("kind");
          if (k != parsed.end() && k->is_string() && !read_kind(*k) && !(stack_.empty() && *k == "List")) {
            ++dropped[k->get<std::string>()];
            if (list_item) dropped_items.push_back(index);
            return false;
          }
        }
        return true;
      }
      case json::parse_event_t::value:
        if (stack_.size() == 2 && stack_[1].array && stack_[1].key == "items") ++items_seen_;  // an item that is not an object
        return true;
    }
    return true;
  }

 private:
  struct Level {
    bool array;
    std::string key;  // the key this container is the value of ("" for an array element or the root)
  };
  bool in_array() const { return !stack_.empty() && stack_.back().array; }
  bool drop_key() const {
    const std::size_t n = stack_.size();
    if (n == 0) return false;
    // metadata.managedFields
    if (key_ == "managedFields") return stack_.back().key == "metadata";
    // containers[i].env / envFrom (every kind of container)
    if (key_ == "env" || key_ == "envFrom")
      return n >= 2 && stack_[n - 2].array &&
             (stack_[n - 2].key == "containers" || stack_[n - 2].key == "initContainers" || stack_[n - 2].key == "ephemeralContainers");
    // the whole object again, as kubectl apply recorded it
    if (key_ == "kubectl.kubernetes.io/last-applied-configuration") return stack_.back().key == "annotations";
    return false;
  }
  std::vector<Level> stack_;
  std::string key_;
  std::size_t items_seen_ = 0;
};

}  // namespace

std::optional<TimeNs> parse_rfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), as Go's time.RFC3339Nano parses (metav1.Time).
  auto digits = [&](std::size_t pos, std::size_t n, int& v) {
    if (pos + n > s.size()) return false;
    v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    return true;
  };
  int Y, M, D, h, m, sec;
  if (!digits(0, 4, Y) || s.size() < 20 || s[4] != '-' || !digits(5, 2, M) || s[7] != '-' || !digits(8, 2, D) ||
      (s[10] != 'T' && s[10] != 't') || !digits(11, 2, h) || s[13] != ':' || !digits(14, 2, m) || s[16] != ':' ||
      !digits(17, 2, sec))
    return std::nullopt;
  std::size_t pos = 19;
  std::int64_t frac_ns = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t n = 0;
    std::int64_t scale = 100'000'000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (n < 9) frac_ns += (s[pos] - '0') * scale, scale /= 10;
      ++pos, ++n;
    }
    if (n == 0) return std::nullopt;
  }
  std::int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!digits(pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(pos + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_s = (s[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  using namespace std::chrono;
  const year_month_day ymd{year{Y}, month{static_cast<unsigned>(M)}, day{static_cast<unsigned>(D)}};
  if (!ymd.ok() || h > 23 || m > 59 || sec > 60) return std::nullopt;
  const std::int64_t days = sys_days{ymd}.time_since_epoch().count();
  const std::int64_t secs = days * 86400 + h * 3600 + m * 60 + sec - offset_s;
  if (secs > INT64_MAX / 1'000'000'000 - 1 || secs < INT64_MIN / 1'000'000'000 + 1) return std::nullopt;
  return secs * 1'000'000'000 + frac_ns;
}

std::string format_rfc3339(TimeNs t) {
  using namespace std::chrono;
  std::int64_t secs = t / 1'000'000'000, ns = t % 1'000'000'000;
  if (ns < 0) ns += 1'000'000'000, --secs;
  std::int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) rem += 86400, --days;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  std::string out = strformat("%04lld-%02lld-%02lld", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                              static_cast<unsigned>(ymd.day())) +
                    "T" + strformat("%02lld:%02lld:%02lld", rem / 3600, rem / 60 % 60, rem % 60);
  if (ns != 0) {
    char buf[16];
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(ns));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "Z";
}

namespace {

/// A YAML document as the JSON kubectl would have printed for it (sigs.k8s.io/yaml: goyaml.v2
/// types each plain scalar — null, a boolean, an integer in base 0, a float, else a string;
/// a quoted scalar is a string), leaving out what the JSON reader's parse drops (Dropper):
/// containers' env and envFrom, managedFields, the last-applied annotation.
json yaml_to_json(const yaml::Src& src, const YAML::Node& n, const std::string& key, const std::string& parent_key, bool in_container,
                  const std::string& ptr, LineMap* lines) {
  using yaml::Plain;
  if (lines) lines->emplace(ptr, std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1));
  if (n.IsMap()) {
    json o = json::object();
    for (auto it = n.begin(); it != n.end(); ++it) {
      const YAML::Node k = it->first;
      if (!k.IsScalar()) yaml::fail_at(yaml::place_of(src, k.Mark(), ""), "expected a text key");
      const std::string& ks = k.Scalar();
      if ((ks == "env" || ks == "envFrom") && in_container) continue;
      if (ks == "managedFields" && key == "metadata") continue;
      if (ks == "kubectl.kubernetes.io/last-applied-configuration" && key == "annotations") continue;
      o[ks] = yaml_to_json(src, it->second, ks, key, false, ptr + "/" + pointer_token_of(ks), lines);
    }
    return o;
  }
  if (n.IsSequence()) {
    json a = json::array();
    const bool containers = key == "containers" || key == "initContainers" || key == "ephemeralContainers";
    for (std::size_t i = 0; i < n.size(); ++i) a.push_back(yaml_to_json(src, n[i], "", key, containers, ptr + "/" + std::to_string(i), lines));
    return a;
  }
  if (!n.IsScalar()) return nullptr;
  (void)parent_key;
  // goyaml.v2's resolve (resolve.go), as yaml::yaml_quantity_text follows it for numbers.
  const std::string& t = n.Scalar();
  if (n.Tag() != "?") return t;  // quoted or tagged: a string
  if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") return nullptr;
  if (bool b = false; yaml::is_bool_word(t, &b)) return b;
  const char c = t[0];
  if (c == '+' || c == '-' || c == '.' || std::isdigit(static_cast<unsigned char>(c))) {
    std::string plain;
    for (char ch : t)
      if (ch != '_') plain += ch;
    if (c != '.') {
      if (std::int64_t i = 0; yaml::go_parse_int_base0(plain, i)) return i;
      if (std::uint64_t u = 0; yaml::go_parse_uint_base0(plain, u)) return u;
    }
    if (double d = 0; yaml::yaml_style_float(plain) && yaml::go_parse_float(plain, d)) return d;
  }
  return t;
}

}  // namespace

namespace {

void read_json_lines(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts, const LineMap* lines,
                     const std::string* line_file);

}  // namespace

void read_yaml(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts) {
  const yaml::Src src(file);
  const std::vector<YAML::Node> docs = yaml::load_all(src, std::string(text));
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].IsNull()) continue;
    LineMap lines;
    const json doc = yaml_to_json(src, docs[i], "", "", false, "", &lines);
    // No trace kept of objects of the kinds skipped (a Secret's keys): their lines go.
    auto skipped_kind = [](const json& o) { return o.is_object() && o.contains("kind") && !read_kind(o["kind"]); };
    if (doc.is_object() && doc.contains("items") && doc["items"].is_array() && doc.contains("kind") && doc["kind"].is_string() &&
        doc["kind"].get<std::string>().ends_with("List")) {
      for (std::size_t k = 0; k < doc["items"].size(); ++k)
        if (skipped_kind(doc["items"][k])) {
          const std::string item = "/items/" + std::to_string(k);
          for (auto it = lines.lower_bound(item); it != lines.end() && it->first.starts_with(item);)
            it = it->first.size() == item.size() || it->first[item.size()] == '/' ? lines.erase(it) : std::next(it);
        }
    } else if (skipped_kind(doc) && !(doc["kind"] == "List")) {
      lines.clear();
    }
    // Errors point at the line and column of the value, and the JSON path inside its document.
    const std::string label = docs.size() == 1 ? file : file + " (YAML document " + std::to_string(i + 1) + ")";
    read_json_lines(doc.dump(), label, into, opts, &lines, &file);
    if (opts.pod_details) into.yaml_lines[label] = {file, std::move(lines)};
  }
}

void read_json(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts) {
  read_json_lines(text, file, into, opts, nullptr, nullptr);
}

std::string with_line(const Snapshot& snap, const std::string& message) {
  for (const auto& [label, where] : snap.yaml_lines) {
    if (message.size() <= label.size() + 2 || message.compare(0, label.size(), label) != 0 || message.compare(label.size(), 3, ": /") != 0)
      continue;
    const std::size_t from = label.size() + 2;
    const std::size_t end = message.find(": ", from);
    const std::string path = message.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (std::string lc = line_of(where.lines, path); !lc.empty()) return where.file + ":" + lc + ": " + message.substr(from);
  }
  return message;
}

namespace {

void read_json_lines(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts, const LineMap* lines,
                     const std::string* line_file) {
  Dropper dropper;
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), std::ref(dropper));
  } catch (const json::parse_error& e) {
    // Its line and column (check_json reads the text again, keeping nothing).
    std::string what = e.what();  // an empty file: not looked at by check_json
    if (auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    const YamlProblem p = check_json(text).value_or(YamlProblem{0, 0, what});
    throw InputError(file + ":" + std::to_string(p.line + 1) + ":" + std::to_string(p.column + 1) + ": invalid JSON (" + p.what +
                     "); mltwin-scheduler reads what `kubectl get ... -o json` prints");
  } catch (const json::out_of_range& e) {
    // A number too large for a double (e.g. 1.4e444): nlohmann reports it as out_of_range 406.
    throw InputError(file + ": invalid JSON (" + std::string(e.what()) + "); mltwin-scheduler reads what `kubectl get ... -o json` prints");
  }
  const Reader r(file, lines, line_file);
  std::map<std::string, std::size_t> skipped = dropper.dropped;
  // The items left after the parse dropped some, each at its index as written.
  auto read_items = [&](const json& items) {
    r.list(items, "/items");
    std::size_t written = 0, d = 0;
    for (std::size_t i = 0; i < items.size(); ++i, ++written) {
      while (d < dropper.dropped_items.size() && dropper.dropped_items[d] == written) ++written, ++d;
      read_object(r, items[i], "/items/" + std::to_string(written), opts, into, skipped);
    }
  };
  if (doc.is_discarded()) {  // the root object was of a kind the reader skips
  } else if (doc.is_object() && doc.contains("kind") && doc["kind"] == "List") {
    if (const json* items = Reader::get(doc, "items")) read_items(*items);
  } else if (doc.is_object() && doc.contains("kind") && doc["kind"].is_string() && doc["kind"].get<std::string>().ends_with("List") &&
             doc.contains("items")) {
    // kubectl prints "NodeList", "PodList", ... for `kubectl get nodes -o json` against some servers.
    read_items(*Reader::get(doc, "items"));
  } else {
    read_object(r, doc, "", opts, into, skipped);
  }
  for (const auto& [kind, n] : skipped)
    into.notes.push_back(file + ": skipped " + std::to_string(n) + " object" + (n == 1 ? "" : "s") + " of kind " + printable(kind) +
                         " (the scheduler reads Node, Pod, PodGroup, Queue and PriorityClass)");
}

}  // namespace

void read_file(const std::string& path, Snapshot& into, const ReadOptions& opts) {
  const std::string text = read_input_file(path, "snapshot", kMaxDataFileBytes);
  // kubectl's -o json starts with '{' (or a list, '['); anything else is read as -o yaml.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  reading_whole(text, [&] {
    if (first == std::string::npos || text[first] == '{' || text[first] == '[') read_json(text, path, into, opts);
    else read_yaml(text, path, into, opts);
  });
}

void load(const Snapshot& snap, policy::SchedulerCache& cache) {
  std::map<std::string, std::int32_t, std::less<>> class_value;
  std::int32_t default_priority = 0;
  for (const PriorityClass& pc : snap.priority_classes) {
    class_value[pc.name] = pc.value;
    if (pc.global_default) default_priority = pc.value;  // the last one wins, as Volcano's cache has it
  }
  for (const auto& q : snap.queues) cache.apply_queue(q);
  for (const auto& n : snap.nodes) cache.apply_node(n);
  for (const PodGroupRead& g : snap.podgroups) {
    policy::PodGroupObject o = g.object;
    o.spec.priority = default_priority;
    if (auto it = class_value.find(g.priority_class_name); it != class_value.end()) o.spec.priority = it->second;
    cache.apply_podgroup(std::move(o));
  }
  for (const auto& p : snap.pods) cache.apply_pod(p);
}

// ---- writing -------------------------------------------------------------------------------

namespace {

/// A resource amount as a quantity's canonical text: millicores for cpu ("1500m", "2"), bytes
/// for memory, a count for pods, milli-units for other scalars.
std::string quantity_text_of(double v, bool milli) {
  if (!(v >= -9.2e18 && v <= 9.2e18) || static_cast<double>(static_cast<std::int64_t>(v)) != v)
    throw std::invalid_argument("write_list: a resource amount that is not a whole number within int64: " + std::to_string(v));
  const auto x = static_cast<std::int64_t>(v);
  if (!milli) return std::to_string(x);
  if (x % 1000 == 0) return std::to_string(x / 1000);
  return std::to_string(x) + "m";
}

bool names_nothing(const policy::Resource& r) {
  if (r.milli_cpu != 0 || r.memory != 0) return false;
  for (auto e : r.scalars)
    if (e.value != 0) return false;
  return true;
}

json resource_json(const policy::Resource& r, bool with_pods) {
  json out = json::object();
  if (r.milli_cpu != 0) out["cpu"] = quantity_text_of(r.milli_cpu, true);
  if (r.memory != 0) out["memory"] = quantity_text_of(r.memory, false);
  for (auto e : r.scalars) {
    if (e.name == policy::rn::kPods) {
      if (with_pods) out["pods"] = quantity_text_of(e.value, false);
      continue;
    }
    out[std::string(e.name.str())] = quantity_text_of(e.value, true);
  }
  return out;
}

}  // namespace

json requests_json(const policy::Resource& r) { return resource_json(r, false); }

namespace {

/// An RFC 4122-shaped UID whose first 64 bits are `key` (uid_order_key reads them back) and
/// whose rest tells objects with one key apart.
std::string uid_of(std::uint64_t key, std::uint64_t salt) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(key >> 32),
                static_cast<unsigned long long>((key >> 16) & 0xffff), static_cast<unsigned long long>(key & 0xffff),
                static_cast<unsigned long long>((salt >> 48) & 0xffff), static_cast<unsigned long long>(salt & 0xffffffffffffULL));
  return buf;
}

const char* phase_name(policy::PodGroupPhase p) { return policy::to_string(p); }

json taint_json(const policy::Taint& t) {
  json o = {{"key", t.key}, {"effect", policy::to_string(t.effect)}};
  if (!t.value.empty()) o["value"] = t.value;
  return o;
}

json term_json(const policy::NodeSelectorTerm& t) {
  json o = json::object();
  auto reqs = [](const std::vector<policy::NodeSelectorRequirement>& rs) {
    json a = json::array();
    for (const auto& r : rs) {
      json x = {{"key", r.key}, {"operator", policy::to_string(r.op)}};
      if (!r.values.empty()) x["values"] = r.values;
      a.push_back(x);
    }
    return a;
  };
  if (!t.match_expressions.empty()) o["matchExpressions"] = reqs(t.match_expressions);
  if (!t.match_fields.empty()) o["matchFields"] = reqs(t.match_fields);
  return o;
}

}  // namespace

json node_affinity_json(const policy::NodeAffinity& a) {
  json na = json::object();
  if (a.has_required) {
    json terms = json::array();
    for (const auto& term : a.required) terms.push_back(term_json(term));
    na["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  if (!a.preferred.empty()) {
    json pref = json::array();
    for (const auto& p : a.preferred) pref.push_back({{"weight", p.weight}, {"preference", term_json(p.preference)}});
    na["preferredDuringSchedulingIgnoredDuringExecution"] = pref;
  }
  return na;
}

json write_list(const policy::ClusterState& state, const WriteOptions& opts) {
  using policy::TaskStatus;
  json items = json::array();
  auto stamp = [&](TimeNs t) { return format_rfc3339(opts.epoch + t); };
  // PriorityClasses: the twin's own (WriteOptions::priority_classes), with their names; for a
  // PodGroup priority no such class gives, one named after its value.
  const PriorityClass* global_default = nullptr;
  for (const PriorityClass& pc : opts.priority_classes)
    if (pc.global_default) global_default = &pc;
  const std::int32_t unnamed_priority = global_default ? global_default->value : 0;  // what "" resolves to (load)
  auto class_name = [](std::int32_t v) { return "mltwin-priority-" + std::string(v < 0 ? "minus-" : "") + std::to_string(v < 0 ? -static_cast<std::int64_t>(v) : v); };
  std::unordered_map<std::string, std::int32_t> written;  // class name -> value
  for (const PriorityClass& pc : opts.priority_classes) {
    json o = {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", pc.name}}}, {"value", pc.value}};
    if (pc.global_default) o["globalDefault"] = true;
    o["preemptionPolicy"] = pc.preempt_never ? "Never" : "PreemptLowerPriority";
    items.push_back(std::move(o));
    written.emplace(pc.name, pc.value);
  }
  // The class a PodGroup names: its job's, else none when that resolves to its priority, else
  // one of its value's own.
  auto podgroup_class = [&](const policy::JobInfo& j) -> std::string {
    if (auto it = opts.job_priority_class.find(j.name); it != opts.job_priority_class.end() && !it->second.empty())
      if (auto w = written.find(it->second); w != written.end() && w->second == j.priority) return it->second;
    if (j.priority == unnamed_priority) return {};
    return class_name(j.priority);
  };
  std::set<std::int32_t> priorities;
  for (const policy::JobInfo& j : state.jobs())
    if (j.live && podgroup_class(j).rfind("mltwin-priority-", 0) == 0) priorities.insert(j.priority);
  for (std::int32_t v : priorities)
    if (!written.count(class_name(v)))
      items.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                       {"kind", "PriorityClass"},
                       {"metadata", {{"name", class_name(v)}}},
                       {"value", v},
                       {"preemptionPolicy", "PreemptLowerPriority"}});
  // Queues (the root queue is the scheduler cache's own: not an object).
  for (const policy::QueueInfo& q : state.queues()) {
    if (q.name.empty()) continue;  // a removed queue's slot
    json spec = {{"weight", q.weight}, {"reclaimable", q.reclaimable}};
    if (q.priority != 0) spec["priority"] = q.priority;
    if (q.capability) spec["capability"] = resource_json(*q.capability, true);
    if (!names_nothing(q.guarantee)) spec["guarantee"] = {{"resource", resource_json(q.guarantee, true)}};
    if (!names_nothing(q.deserved)) spec["deserved"] = resource_json(q.deserved, true);
    if (q.parent != policy::kNone) spec["parent"] = state.queue(q.parent).name;
    items.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                     {"kind", "Queue"},
                     {"metadata", {{"name", q.name}, {"uid", uid_of(q.uid, 0x3000000000000ULL + q.id)}, {"creationTimestamp", stamp(q.creation)}}},
                     {"spec", spec},
                     {"status", {{"state", q.state == policy::QueueState::Open ? "Open" : "Closed"}}}});
  }
  // Nodes, and their DaemonSets' pods.
  std::vector<json> daemon_pods;
  for (const policy::NodeInfo& n : state.nodes()) {
    if (n.name.empty()) continue;  // a removed node's slot
    json md = {{"name", n.name}, {"uid", uid_of(n.id, 0x1000000000000ULL + n.id)}};
    json labels = json::object();
    for (const auto& [k, v] : n.labels) labels[k] = v;
    if (!labels.empty()) md["labels"] = labels;
    json spec = json::object();
    if (n.unschedulable) spec["unschedulable"] = true;
    if (!n.taints.empty()) {
      spec["taints"] = json::array();
      for (const auto& t : n.taints) spec["taints"].push_back(taint_json(t));
    }
    items.push_back({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", md},
                     {"spec", spec},
                     {"status",
                      {{"allocatable", resource_json(n.allocatable, true)},
                       {"capacity", resource_json(n.capacity, true)},
                       {"conditions", json::array({{{"type", "Ready"}, {"status", n.ready ? "True" : "False"}}})}}}});
    const auto ds_pods = static_cast<std::int64_t>(n.daemonset_used.get(policy::rn::kPods));
    policy::Resource first = n.daemonset_used;
    first.set_scalar(policy::rn::kPods, 0);
    for (std::int64_t i = 0; i < std::max<std::int64_t>(ds_pods, names_nothing(first) ? 0 : 1); ++i) {
      json c = {{"name", "daemon"}, {"resources", {{"requests", i == 0 ? resource_json(first, false) : json::object()}}}};
      daemon_pods.push_back({{"apiVersion", "v1"},
                             {"kind", "Pod"},
                             {"metadata", {{"name", n.name + "-daemonset-" + std::to_string(i)}, {"namespace", "kube-system"},
                                           {"uid", uid_of(n.id, 0x2000000000000ULL + static_cast<std::uint64_t>(i))}}},
                             {"spec", {{"nodeName", n.name}, {"schedulerName", "default-scheduler"}, {"containers", json::array({c})}}},
                             {"status", {{"phase", "Running"}}}});
    }
  }
  for (json& p : daemon_pods) items.push_back(std::move(p));
  auto write_podgroup = [&](const policy::JobInfo& j) {
    json spec = {{"minMember", j.min_available}, {"queue", state.queue(j.queue).name}};
    if (std::string pc = podgroup_class(j); !pc.empty()) spec["priorityClassName"] = pc;
    if (!j.min_task_member.empty()) {
      json m = json::object();
      for (const auto& [role, n] : j.min_task_member) m[role] = n;
      spec["minTaskMember"] = m;
    }
    if (j.has_min_resources) spec["minResources"] = resource_json(j.min_resources, true);
    json md = {{"name", j.name}, {"namespace", opts.ns}, {"uid", uid_of(j.uid, 0x4000000000000ULL + j.id)}, {"creationTimestamp", stamp(j.creation)}};
    if (j.sla_waiting_time > 0) md["annotations"] = {{"volcano.sh/sla-waiting-time", policy::format_go_duration(j.sla_waiting_time)}};
    items.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                     {"kind", "PodGroup"},
                     {"metadata", md},
                     {"spec", spec},
                     {"status", {{"phase", phase_name(j.phase)}}}});
  };
  auto write_pod = [&](const policy::JobInfo& j, const policy::TaskInfo& t) {
    json pmd = {{"name", t.name}, {"namespace", opts.ns}, {"uid", uid_of(t.uid, 0x5000000000000ULL + t.id)}, {"creationTimestamp", stamp(t.creation)}};
    json ann = {{"scheduling.k8s.io/group-name", j.name}};
    if (!t.role.empty()) ann["volcano.sh/task-spec"] = t.role;
    if (!t.preemptable) ann["volcano.sh/preemptable"] = "false";
    pmd["annotations"] = ann;
    policy::Resource req = t.resreq;
    req.set_scalar(policy::rn::kPods, 0);  // Volcano adds the pod itself
    json pspec = {{"schedulerName", "volcano"},
                  {"priority", t.priority},
                  {"containers", json::array({{{"name", "main"}, {"resources", {{"requests", resource_json(req, false)}}}}})}};
    if (t.preempt_never) pspec["preemptionPolicy"] = "Never";
    if (t.system_critical) pspec["priorityClassName"] = "system-cluster-critical";
    if (!t.node_selector.empty()) {
      json ns = json::object();
      for (const auto& [k, v] : t.node_selector) ns[k] = v;
      pspec["nodeSelector"] = ns;
    }
    if (!t.node_affinity.empty()) pspec["affinity"] = {{"nodeAffinity", node_affinity_json(t.node_affinity)}};
    if (!t.tolerations.empty()) {
      json tl = json::array();
      for (const auto& x : t.tolerations) {
        json o = json::object();
        if (!x.key.empty()) o["key"] = x.key;
        o["operator"] = x.op == policy::Toleration::Op::Exists ? "Exists" : "Equal";
        if (!x.value.empty()) o["value"] = x.value;
        if (!x.any_effect) o["effect"] = policy::to_string(x.effect);
        tl.push_back(o);
      }
      pspec["tolerations"] = tl;
    }
    std::string phase;
    switch (t.status) {
      case TaskStatus::Pending: phase = "Pending"; break;
      case TaskStatus::Binding:
      case TaskStatus::Bound: phase = "Pending"; break;
      case TaskStatus::Running: phase = "Running"; break;
      case TaskStatus::Releasing: phase = "Running"; pmd["deletionTimestamp"] = stamp(opts.now.value_or(state.now())); break;
      case TaskStatus::Succeeded: phase = "Succeeded"; break;
      case TaskStatus::Failed: phase = "Failed"; break;
      case TaskStatus::Unknown: phase = "Unknown"; break;
      case TaskStatus::Allocated:
      case TaskStatus::Pipelined:
        throw std::invalid_argument("write_list: task '" + t.name + "' is " + policy::to_string(t.status) +
                                    ", a status that exists only inside a session");
    }
    if (t.node != policy::kNone && policy::on_node_status(t.status)) pspec["nodeName"] = state.node(t.node).name;
    json pstatus = {{"phase", phase}};
    if (!t.nominated_node.empty()) pstatus["nominatedNodeName"] = t.nominated_node;
    items.push_back({{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", pmd}, {"spec", pspec}, {"status", pstatus}});
  };
  // PodGroups and their pods. A job whose PodGroup the job controller deleted (it killed the
  // whole job) is out of every session, but its pods still being deleted hold their nodes
  // (ClusterState::unset_podgroup): they are written, naming a PodGroup that is not there, as
  // the API server still shows them, and a reader counts them on their nodes as Volcano's
  // cache does (event_handlers.go addTask: Releasing, api/node_info.go AddTask).
  for (const policy::JobInfo& j : state.jobs()) {
    if (!j.live && !j.podgroup_unset) continue;
    if (j.live) write_podgroup(j);
    for (policy::TaskId tid : j.tasks) write_pod(j, state.task(tid));
  }
  json data = {{"now", stamp(opts.now.value_or(state.now()))}, {"epoch", stamp(0)}};
  if (opts.tiebreak_state) data["tiebreakState"] = *opts.tiebreak_state;
  if (opts.config) data["volcano-scheduler.conf"] = write_volcano_scheduler_conf(*opts.config);
  items.push_back({{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", "mltwin-snapshot"}, {"namespace", "mltwin-system"}}},
                   {"data", data}});
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}, {"metadata", {{"resourceVersion", ""}}}};
}

}  // namespace mltwin::k8s
