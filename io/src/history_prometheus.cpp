// history_prometheus.cpp — a job history from Prometheus: the JSON a `query_range` over
// kube-state-metrics' pod series answers (docs/scenarios.md, "The history from Prometheus"),
// grouped into Volcano Jobs by the labels Volcano's job controller gives their pods
// (pkg/controllers/job/job_controller_util.go createJobPod, v1.12.1: volcano.sh/job-name,
// volcano.sh/task-spec, volcano.sh/queue-name). Read by io::read_job_history.
#include "history_prometheus.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "mltwin/io/scenario.hpp"
#include "scenario_common.hpp"

namespace mltwin::io::detail {

using nlohmann::json;

namespace {

constexpr const char* kSeries[] = {"kube_pod_created", "kube_pod_start_time", "kube_pod_completion_time",
                                   "kube_pod_container_resource_requests", "kube_pod_labels", "kube_pod_info"};

/// A pod's series, by namespace/pod.
struct Pod {
  std::string ns, name;
  std::optional<double> created_s, start_s, completion_s;  ///< unix time, s (the series' last value)
  std::map<std::string, std::string> labels;               ///< kube_pod_labels' label_* (sanitized keys)
  std::string priority_class;                              ///< kube_pod_info's priority_class
  std::map<std::string, double> requests;                  ///< resource -> the containers' requests summed
  std::string first_at;                                    ///< the JSON path of its first series
};

/// Kubernetes' resource name of kube-state-metrics' `resource` label, which writes an extended
/// resource's name as a Prometheus label value sanitized ('/' and '.' to '_'): the names a
/// pod on Trainium or GPU nodes requests. A name with a '/' is taken as it is.
std::optional<std::string> resource_name(const std::string& label) {
  static const std::map<std::string, std::string> known = {
      {"cpu", "cpu"}, {"memory", "memory"}, {"ephemeral_storage", "ephemeral-storage"},
      {"aws_amazon_com_neuron", "aws.amazon.com/neuron"}, {"aws_amazon_com_neuroncore", "aws.amazon.com/neuroncore"},
      {"aws_amazon_com_neurondevice", "aws.amazon.com/neurondevice"}, {"vpc_amazonaws_com_efa", "vpc.amazonaws.com/efa"},
      {"nvidia_com_gpu", "nvidia.com/gpu"}, {"hugepages_2Mi", "hugepages-2Mi"}, {"hugepages_1Gi", "hugepages-1Gi"}};
  if (auto it = known.find(label); it != known.end()) return it->second;
  if (label.find('/') != std::string::npos || label == "ephemeral-storage") return label;
  return std::nullopt;
}

/// The quantity text of `v` in `resource`'s unit as kube-state-metrics reports it (cpu in
/// cores, memory and storage in bytes, others in units): millicores for cpu, whole numbers else.
std::string quantity_of(const std::string& resource, double v) {
  if (resource == "cpu") return std::to_string(std::llround(v * 1000)) + "m";
  return std::to_string(std::llround(v));
}

}  // namespace

bool looks_like_prometheus(const std::string& data) {
  const std::size_t i = data.find_first_not_of(" \t\r\n");
  return i != std::string::npos && data[i] == '{' && data.find("\"resultType\"") != std::string::npos &&
         data.find("\"kind\"") == std::string::npos;
}

void read_prometheus_history(const std::string& path, const std::string& data, JobHistory& out) {
  const json doc = parse_json_text(data, path);
  auto fail = [&](const std::string& at, const std::string& what) -> void { throw ScenarioError(path + ": " + at + ": " + what); };
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_object())
    fail("/data", "expected the JSON of Prometheus' HTTP API (/api/v1/query_range): {\"status\": \"success\", \"data\": {...}}");
  if (doc.value("status", std::string()) != "success")
    fail("/status", "the query did not succeed (\"" + printable(doc.value("status", std::string())) + "\"): " +
                        printable(doc.value("error", std::string())));
  const json& d = doc["data"];
  if (d.value("resultType", std::string()) != "matrix" && d.value("resultType", std::string()) != "vector")
    fail("/data/resultType", "expected \"matrix\" (a query_range) or \"vector\" (a query), got " + printable(d.value("resultType", json()).dump()));
  if (!d.contains("result") || !d["result"].is_array()) fail("/data/result", "expected an array of series");
  std::map<std::string, Pod> pods;  // namespace/pod
  std::set<std::string> seen_names;
  for (std::size_t i = 0; i < d["result"].size(); ++i) {
    const std::string at = "/data/result/" + std::to_string(i);
    const json& s = d["result"][i];
    if (!s.is_object() || !s.contains("metric") || !s["metric"].is_object()) fail(at, "expected {\"metric\": {...}, \"values\": [...]}");
    const json& m = s["metric"];
    auto label = [&](const char* k) -> std::string {
      if (!m.contains(k)) return {};
      if (!m[k].is_string()) fail(at + "/metric/" + k, "expected a string");
      return m[k].get<std::string>();
    };
    const std::string name = label("__name__");
    if (name.empty()) fail(at + "/metric", "no __name__: query the series by name (the query docs/scenarios.md gives keeps it)");
    if (std::find(std::begin(kSeries), std::end(kSeries), name) == std::end(kSeries)) continue;  // another series: not read
    seen_names.insert(name);
    // Scraped without honor_labels (Prometheus' default), the series' own namespace, pod and
    // container clash with the scrape target's and are renamed exported_* (Prometheus
    // configuration, scrape_config honor_labels): the pod's are then those.
    const bool exported = m.contains("exported_pod");
    const std::string ns = label(exported ? "exported_namespace" : "namespace"), pod = label(exported ? "exported_pod" : "pod");
    if (ns.empty() || pod.empty()) fail(at + "/metric", name + " without a namespace and pod label");
    // The value: the last sample of a range (these gauges do not change while the pod exists), or a vector's one.
    const json* v = nullptr;
    if (s.contains("values")) {
      if (!s["values"].is_array() || s["values"].empty()) fail(at + "/values", "expected at least one [time, \"value\"] sample");
      v = &s["values"].back();
    } else if (s.contains("value")) {
      v = &s["value"];
    } else {
      fail(at, "no values");
    }
    if (!v->is_array() || v->size() != 2 || !(*v)[1].is_string()) fail(at + "/values", "expected [time, \"value\"] samples");
    // The sample's time (Unix seconds): the series was still scraped then, so the export saw
    // the cluster at least until the latest one (a Running pod ran until then).
    // (Within +-9e9 s, year 2255, so that the time in ns fits an int64: 9.2e18.)
    if ((*v)[0].is_number() && std::isfinite((*v)[0].get<double>()) && std::fabs((*v)[0].get<double>()) < 9e9)
      out.recorded_until_ns = std::max(out.recorded_until_ns.value_or(INT64_MIN), static_cast<std::int64_t>((*v)[0].get<double>() * 1e9));
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod((*v)[1].get<std::string>(), &used);
      if (used != (*v)[1].get<std::string>().size() || !std::isfinite(value)) throw std::invalid_argument("x");
    } catch (const std::exception&) {
      fail(at + "/values", "'" + printable((*v)[1].get<std::string>()) + "' is not a finite number");
    }
    Pod& p = pods[ns + "/" + pod];
    if (p.name.empty()) {
      p.ns = ns;
      p.name = pod;
      p.first_at = at;
    }
    if (name == "kube_pod_created") p.created_s = value;
    else if (name == "kube_pod_start_time") p.start_s = value;
    else if (name == "kube_pod_completion_time") p.completion_s = value;
    else if (name == "kube_pod_info") p.priority_class = label("priority_class");
    else if (name == "kube_pod_labels") {
      for (auto it = m.begin(); it != m.end(); ++it)
        if (it.key().rfind("label_", 0) == 0 && it.value().is_string()) p.labels[it.key()] = it.value().get<std::string>();
    } else {  // kube_pod_container_resource_requests
      const std::string r = label("resource");
      const auto rn = resource_name(r);
      if (!rn)
        fail(at + "/metric/resource", "'" + printable(r) +
                                          "' is not a resource name mltwin can map back (kube-state-metrics writes aws.amazon.com/neuroncore "
                                          "as aws_amazon_com_neuroncore; known: cpu, memory, the Neuron, EFA and nvidia.com/gpu names)");
      p.requests[*rn] += value;
    }
  }
  for (const char* needed : {"kube_pod_created", "kube_pod_labels", "kube_pod_container_resource_requests"})
    if (!seen_names.count(needed))
      throw ScenarioError(path + ": no " + needed + " series: the export needs kube_pod_created, kube_pod_labels (with Volcano's "
                          "volcano.sh/job-name label allowed), kube_pod_container_resource_requests, kube_pod_start_time and "
                          "kube_pod_completion_time (docs/scenarios.md gives the query)");

  // Pods -> Jobs: Volcano's labels (kube-state-metrics: label_ and the key sanitized).
  struct Job {
    std::string ns, name, queue, priority_class, first_at;
    std::vector<const Pod*> pods;
  };
  std::map<std::string, Job> jobs;
  for (const auto& [key, p] : pods) {
    const auto job = p.labels.find("label_volcano_sh_job_name");
    if (job == p.labels.end() || job->second.empty()) {
      ++out.pods_not_volcano;
      continue;
    }
    Job& j = jobs[p.ns + "/" + job->second];
    if (j.name.empty()) {
      j.ns = p.ns;
      j.name = job->second;
      j.first_at = p.first_at;
    }
    if (auto q = p.labels.find("label_volcano_sh_queue_name"); q != p.labels.end()) j.queue = q->second;
    if (!p.priority_class.empty()) j.priority_class = p.priority_class;
    j.pods.push_back(&p);
  }
  if (jobs.empty())
    throw ScenarioError(path + ": no pod carries Volcano's volcano.sh/job-name label (kube_pod_labels' label_volcano_sh_job_name): "
                        "let kube-state-metrics export it, --metric-labels-allowlist=pods=[volcano.sh/job-name,volcano.sh/task-spec,"
                        "volcano.sh/queue-name]");
  for (const auto& [key, j] : jobs) {
    HistoryJob h;
    h.from_kubectl = false;
    h.from_prometheus = true;
    h.at = path + ": " + j.first_at;
    h.name = j.name;
    h.ns = j.ns;
    h.queue = j.queue.empty() ? "default" : j.queue;
    h.priority_class = j.priority_class;
    bool all_started = true, all_completed = true;
    double created = INFINITY, start = -INFINITY, end = -INFINITY;
    std::map<std::string, std::vector<const Pod*>> by_task;
    for (const Pod* p : j.pods) {
      if (!p->created_s) throw ScenarioError(path + ": " + p->first_at + ": pod " + p->ns + "/" + p->name + " has no kube_pod_created series");
      created = std::min(created, *p->created_s);
      if (p->start_s) start = std::max(start, *p->start_s);
      else all_started = false;
      if (p->completion_s) end = std::max(end, *p->completion_s);
      else all_completed = false;
      auto t = p->labels.find("label_volcano_sh_task_spec");
      by_task[t == p->labels.end() || t->second.empty() ? std::string("default") : t->second].push_back(p);
    }
    auto ns_of = [](double s) { return static_cast<std::int64_t>(std::llround(s * 1e9)); };
    h.submit_ns = ns_of(created);
    if (all_started) h.start_ns = ns_of(start);
    if (all_started && all_completed) h.end_ns = ns_of(end);
    h.status = h.end_ns ? "Completed" : h.start_ns ? "Running" : "Pending";
    if (h.start_ns && *h.start_ns < h.submit_ns) h.start_ns = h.submit_ns;  // a sample rounded across its creation
    if (h.end_ns && *h.end_ns < *h.start_ns) throw ScenarioError(h.where("end_time") + ": the job's pods completed before they all started");
    for (const auto& [task, ps] : by_task) {
      HistoryTask t;
      t.name = task;
      t.replicas = static_cast<int>(ps.size());
      t.requests = json::object();
      for (const auto& [r, v] : ps.front()->requests) t.requests[r] = quantity_of(r, v);
      for (const Pod* p : ps)
        if (p->requests != ps.front()->requests)
          throw ScenarioError(path + ": " + p->first_at + ": pod " + p->ns + "/" + p->name + " of task '" + task +
                              "' requests other resources than pod " + ps.front()->name + " of the same task");
      if (t.requests.empty())
        throw ScenarioError(path + ": " + ps.front()->first_at + ": pod " + ps.front()->ns + "/" + ps.front()->name +
                            " has no kube_pod_container_resource_requests series: it requests nothing the twin can place");
      h.tasks.push_back(std::move(t));
    }
    out.jobs.push_back(std::move(h));
  }
  std::sort(out.jobs.begin(), out.jobs.end(), [](const HistoryJob& a, const HistoryJob& b) {
    return a.submit_ns != b.submit_ns ? a.submit_ns < b.submit_ns : a.ns + "/" + a.name < b.ns + "/" + b.name;
  });
}

}  // namespace mltwin::io::detail
