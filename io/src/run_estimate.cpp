// The size estimate of a run (mltwin/io/run_estimate.hpp). Every per-object cost below was
// measured on this code; docs/limits.md gives the runs, their peak RSS (GNU time's %M) and their
// database sizes, and how each figure follows from them.
#include "mltwin/io/run_estimate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace mltwin::io {

namespace {

constexpr double kKB = 1e3, kMB = 1e6;

// ---- measured costs (docs/limits.md, "What a run costs") ------------------------------------
constexpr double kBaseMemory = 15 * kMB;       // the process with a tiny scenario
constexpr double kPerDocumentByte = 20;        // the scenario document (nlohmann DOM and its copies)
constexpr double kBaseDatabase = 260 * kKB;
// SQLite's page cache grows with the database up to the cache_size the store sets
// (store/src/sqlite_store.cpp: 64 MiB for training, 16 MiB for inference).
constexpr double kTrainingCache = 64.0 * 1024 * 1024, kInferenceCache = 16.0 * 1024 * 1024;    // schema, run_meta, inputs: a 16 KiB page per table and index
// Training.
constexpr double kNodeMemory = 1 * kKB;
constexpr double kJobMemory = 1.8 * kKB;
constexpr double kPodMemory = 0.3 * kKB;
constexpr double kJobRow = 800;                // jobs, phases and decisions rows of a job
constexpr double kPodRows = 200;               // a pod's events (Created, Bound, Running, its end)
constexpr double kSampleRow = 40;              // cluster_metrics
constexpr double kLinkRow = 60;                // link_usage, per busy link per sample
constexpr double kNodeEventRow = 100;          // node_events (failures, launches, removals)
// Inference.
constexpr double kInstanceMemory = 2 * kKB;
constexpr double kInstanceModelMemory = 48;    // an instance's state of one model
constexpr double kModelMemory = 0.45 * kKB;
constexpr double kUserMemory = 0.3 * kKB;
constexpr double kTraceCountMemory = 8;        // an Azure per-minute count, read and copied
constexpr double kLatencySampleMemory = 24;    // a request's two latencies kept for its period's percentiles (vector growth included)
constexpr double kRequestRow = 54;             // requests and its index
constexpr double kModelEventRow = 60;          // model_events / worker_events, with their indexes
constexpr double kPeriodRow = 220;             // endpoint_metrics

/// Terms of a sum, kept to be shown largest first.
struct Terms {
  std::vector<std::pair<double, std::string>> items;
  double total = 0;
  void add(double count, double each, const std::string& what) {
    const double b = count * each;
    if (!(b >= 1)) return;
    total += b;
    items.emplace_back(b, fmt::format("{} {} x {} = {}", count_text(count), what, human_bytes(each), human_bytes(b)));
  }
  void add_bytes(double b, const std::string& what) {
    if (!(b > 0)) return;
    total += b;
    items.emplace_back(b, fmt::format("{} {}", human_bytes(b), what));
  }
  std::string text() {
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string s;
    for (const auto& [b, t] : items) s += (s.empty() ? "" : "; ") + t;
    return s;
  }
  static std::string count_text(double n) {
    if (!(n < 1e15)) return fmt::format("{:.3g}", n);
    std::string digits = fmt::format("{:.0f}", std::round(n)), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  }
};

// Seconds of a time or duration, divided rather than multiplied by 1e-9: a whole number of
// seconds stays whole (60 s is 60, not 60.00000000000001).
double secs(core::Duration d) { return static_cast<double>(d.count_ns()) / 1e9; }
double secs(core::Time t) { return static_cast<double>(t.ns()) / 1e9; }
double seconds_to(core::Time until) { return until == core::Time::max() ? INFINITY : secs(until); }

std::string days(double s) {
  if (s >= 86400) return fmt::format("{:.1f} d", s / 86400);
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 60) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.3g} s", s);
}

}  // namespace

std::string human_bytes(double b) {
  if (!std::isfinite(b)) return "an unbounded amount";
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  std::size_t u = 0;
  while (b >= 999.5 && u + 1 < std::size(units)) {
    b /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.3g} {}", b, units[u]);
}

RunLimits RunLimits::for_this_machine() {
  RunLimits l;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  l.memory_bytes = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : INFINITY;
  return l;
}

RunEstimate estimate_run(const LoadedScenario& loaded, core::Time until) {
  const models::TrainingScenario& sc = loaded.training;
  RunEstimate e;
  // The span: until the last job could end without waiting (its submit plus its duration, or
  // what remains of a running one), or --until.
  double end_s = 0;
  for (const auto& j : sc.jobs) {
    const double d = j.initial ? secs(j.initial->remaining) : secs(j.duration);
    end_s = std::max(end_s, secs(j.submit) + d);
  }
  e.span_s = std::min(end_s, seconds_to(until));
  for (const auto& g : sc.node_groups) e.nodes += std::max(g.count, sc.autoscaler ? g.max_size : g.count);
  double node_events = 0;
  if (sc.faults) {
    // Each failure brings a replacement node: scheduled ones, and at the failure rate over the
    // busy node-hours (at most every node busy all the time).
    node_events = static_cast<double>(sc.faults->scheduled.size()) + sc.faults->failure_rate_per_node_hour * e.nodes * e.span_s / 3600;
    e.nodes += node_events;
  }
  e.jobs = static_cast<double>(sc.jobs.size());
  for (const auto& j : sc.jobs) e.pods += j.nnodes;
  e.metric_samples = std::floor(e.span_s / std::max(secs(sc.metrics_interval), 1e-9)) + 1;
  const double document = static_cast<double>(loaded.json.dump().size());

  Terms mem, db;
  mem.add_bytes(kBaseMemory, "base");
  mem.add(document, kPerDocumentByte, "scenario bytes");
  mem.add(e.nodes, kNodeMemory, "nodes");
  mem.add(e.jobs, kJobMemory, "jobs");
  mem.add(e.pods, kPodMemory, "pods");
  db.add_bytes(kBaseDatabase, "base");
  db.add(e.jobs, kJobRow, "jobs");
  db.add(e.pods, kPodRows, "pods");
  db.add(e.metric_samples, kSampleRow, "metrics samples");
  if (sc.step_model && sc.step_model->contention && sc.duration_model == models::DurationModel::Derived) {
    // Only links that carried a multi-node job's all-reduce in the interval get a row: at most
    // two per node those jobs' pods hold.
    double multi = 0;
    for (const auto& j : sc.jobs)
      if (j.nnodes > 1) multi += j.nnodes;
    db.add(e.metric_samples * 2 * std::min(e.nodes, multi), kLinkRow, "link usage rows (at most 2 per node of a multi-node job, per sample)");
  }
  if (sc.autoscaler) node_events += e.nodes;
  db.add(node_events, kNodeEventRow, "node events");
  mem.add_bytes(std::min(db.total, kTrainingCache), "SQLite page cache (the database, up to 64 MiB)");
  e.memory_bytes = mem.total;
  e.database_bytes = db.total;
  e.memory_terms = mem.text();
  e.database_terms = db.text();
  return e;
}

RunEstimate estimate_run(const LoadedInferenceScenario& loaded, core::Time until) {
  namespace inf = models::inference;
  const inf::InferenceScenario& sc = loaded.inference;
  RunEstimate e;
  const inf::EndpointSpec& ep = sc.endpoint;
  e.instances = sc.policies.instance_scaling ? std::max(ep.initial_instances, ep.max_instances) : ep.initial_instances;
  e.models = static_cast<double>(sc.models.size());
  double rate = 0, trace_counts = 0;
  const inf::TrafficSpec& t = sc.traffic;
  const double traffic_s = t.seconds();
  switch (t.kind) {
    case inf::TrafficSpec::Kind::Poisson:
      rate = t.poisson.rate_per_s;
      break;
    case inf::TrafficSpec::Kind::Trace: {
      double total = 0;
      for (const auto& per_model : t.trace.counts) {
        trace_counts += static_cast<double>(per_model.size());
        for (int m = t.trace.first_minute; m < t.trace.first_minute + t.trace.minutes && m < static_cast<int>(per_model.size()); ++m)
          total += per_model[static_cast<std::size_t>(m)];
      }
      rate = traffic_s > 0 ? total / traffic_s : 0;
      break;
    }
    case inf::TrafficSpec::Kind::Locust: {
      e.users = t.locust.users;
      // A user's requests per second: its throughput, or one per wait (at least 1 ms a cycle:
      // with no wait, a closed loop is bounded by its requests' latency).
      double per_user = 0;
      switch (t.locust.wait) {
        case inf::LocustTraffic::Wait::ConstantThroughput: per_user = t.locust.wait_a; break;
        case inf::LocustTraffic::Wait::Constant: per_user = 1.0 / std::max(t.locust.wait_a, 1e-3); break;
        case inf::LocustTraffic::Wait::Between: per_user = 1.0 / std::max((t.locust.wait_a + t.locust.wait_b) / 2, 1e-3); break;
      }
      rate = e.users * per_user;
      break;
    }
  }
  e.span_s = std::min(traffic_s, seconds_to(until));
  e.requests = rate * e.span_s;
  const double period_s = std::max(secs(sc.output.metrics_period), 1e-9);
  e.metric_periods = std::floor(e.span_s / period_s) + 1;
  const double full = static_cast<double>(sc.output.request_records_full);
  const double records = std::min(e.requests, full) + std::max(0.0, e.requests - full) / static_cast<double>(sc.output.request_sample_every);
  const double model_events = 2 * std::min(e.requests, e.instances * e.models);
  const double document = static_cast<double>(loaded.json.dump().size());

  Terms mem, db;
  mem.add_bytes(kBaseMemory, "base");
  mem.add(document, kPerDocumentByte, "scenario bytes");
  mem.add(e.instances, kInstanceMemory, "instances");
  mem.add(e.instances * e.models, kInstanceModelMemory, "instance-models (" + Terms::count_text(e.instances) + " instances x " +
                                                            Terms::count_text(e.models) + " models)");
  mem.add(e.models, kModelMemory, "models");
  mem.add(e.users, kUserMemory, "Locust users");
  mem.add(trace_counts, kTraceCountMemory, "trace counts");
  mem.add(rate * std::min(period_s, std::max(e.span_s, 1e-9)), kLatencySampleMemory, "requests in one metrics period");
  db.add_bytes(kBaseDatabase, "base");
  db.add(records, kRequestRow, "request records");
  db.add(model_events, kModelEventRow, "model and worker events");
  db.add(e.metric_periods, kPeriodRow, "metrics periods");
  mem.add_bytes(std::min(db.total, kInferenceCache), "SQLite page cache (the database, up to 16 MiB)");
  e.memory_bytes = mem.total;
  e.database_bytes = db.total;
  e.memory_terms = mem.text();
  e.database_terms = db.text();
  return e;
}

std::vector<std::string> over_limits(const RunEstimate& e, const RunLimits& l) {
  std::vector<std::string> out;
  if (!(e.memory_bytes <= l.memory_bytes))
    out.push_back(fmt::format("about {} of memory, more than this machine's {} of physical memory", human_bytes(e.memory_bytes),
                              human_bytes(l.memory_bytes)));
  if (!(e.database_bytes <= l.database_bytes))
    out.push_back(fmt::format("a results database of about {}, more than the {} limit", human_bytes(e.database_bytes),
                              human_bytes(l.database_bytes)));
  const auto count = [&](double n, double limit, const char* what) {
    if (!(n <= limit)) out.push_back(fmt::format("{} {}, more than the limit of {}", Terms::count_text(n), what, Terms::count_text(limit)));
  };
  count(e.nodes, l.nodes, "nodes");
  count(e.pods, l.pods, "pods");
  count(e.instances, l.instances, "instances");
  count(e.models, l.models, "models");
  count(e.users, l.users, "Locust users");
  count(e.requests, l.requests, "requests");
  count(e.metric_samples + e.metric_periods, l.metric_rows, "metrics samples (each one an event and a row)");
  return out;
}

std::string describe(const RunEstimate& e) {
  std::string what;
  const auto part = [&](double n, const char* unit) {
    if (n > 0) what += (what.empty() ? "" : ", ") + Terms::count_text(std::round(n)) + " " + unit;
  };
  part(e.jobs, "jobs");
  part(e.pods, "pods");
  part(e.nodes, "nodes");
  part(e.metric_samples, "metrics samples");
  part(e.instances, "instances");
  part(e.models, "models");
  part(e.users, "Locust users");
  part(e.requests, "requests");
  part(e.metric_periods, "metrics periods");
  return fmt::format("about {} of memory and a {} database ({} over {})", human_bytes(e.memory_bytes),
                     human_bytes(e.database_bytes), what, days(e.span_s));
}

}  // namespace mltwin::io
