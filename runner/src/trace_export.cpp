// trace_export.cpp — runner::export_trace (see trace_export.hpp). Reads only the database;
// writes the JSON with nlohmann::json one event at a time (a Philly run has ~10^5 slices).
#include "mltwin/runner/trace_export.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

#include "mltwin/store/sqlite_store.hpp"
#include "output_files.hpp"

namespace mltwin::runner {
namespace {

using nlohmann::json;
using store::ResultColumn;
using store::ResultTable;

/// Column accessors by name (throw when the column is missing: a database of another kind).
struct Rows {
  ResultTable t;
  std::map<std::string, std::size_t> index;
  explicit Rows(ResultTable table) : t(std::move(table)) {
    for (std::size_t i = 0; i < t.columns.size(); ++i) index[t.columns[i].name] = i;
  }
  const ResultColumn& c(const char* name) const {
    auto it = index.find(name);
    if (it == index.end()) throw std::runtime_error(std::string("results database has no column '") + name + "'");
    return t.columns[it->second];
  }
  std::optional<std::int64_t> i64(const char* name, std::size_t r) const { return c(name).int_at(r); }
  std::optional<double> f64(const char* name, std::size_t r) const { return c(name).real_at(r); }
  std::string str(const char* name, std::size_t r) const { return c(name).text_at(r); }
  std::size_t size() const { return t.rows; }
};

double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot write trace file '" + path + "'");
    out_ << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"simulated time since the start of the run\"},\"traceEvents\":[\n";
  }
  void event(const json& e) {
    if (!first_) out_ << ",\n";
    first_ = false;
    out_ << e.dump();
  }
  void process(int pid, const std::string& name, int sort) {
    event({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
    event({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", sort}}}});
  }
  void close() {
    out_ << "\n]}\n";
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write trace file '" + path_ + "'");
  }

 private:
  std::string path_;
  std::ofstream out_;
  bool first_ = true;
};

/// Greedy lanes: the first lane whose last slice ended at or before `start`.
int lane_for(std::vector<std::int64_t>& lane_end, std::int64_t start, std::int64_t end) {
  for (std::size_t i = 0; i < lane_end.size(); ++i)
    if (lane_end[i] <= start) {
      lane_end[i] = end;
      return static_cast<int>(i);
    }
  lane_end.push_back(end);
  return static_cast<int>(lane_end.size() - 1);
}

std::int64_t run_end(const std::string& db) {
  Rows m(store::query_file(db, "SELECT value FROM run_meta WHERE key IN ('end_ns', 'checkpoint_ns') ORDER BY key = 'end_ns' DESC"));
  return m.size() > 0 ? std::stoll(m.str("value", 0)) : 0;
}

TraceExportStats training(const std::string& db, Writer& w) {
  TraceExportStats st;
  const std::int64_t end_of_run = run_end(db);
  Rows jobs(store::query_file(db, "SELECT job, name, queue, submit_ns, scheduled_ns, end_ns FROM jobs ORDER BY job"));
  Rows pods(store::query_file(db, "SELECT job, pod, event, node, t_ns FROM pods ORDER BY rowid"));

  // Nodes in name order, as processes 1..N (0: queues, N+1: cluster).
  std::map<std::string, int> node_pid;
  for (std::size_t r = 0; r < pods.size(); ++r)
    if (auto n = pods.str("node", r); !n.empty()) node_pid.emplace(n, 0);
  int pid = 1;
  for (auto& [name, p] : node_pid) {
    p = pid++;
    w.process(p, "node " + name, p);
  }
  const int queues_pid = 0, cluster_pid = pid;
  w.process(queues_pid, "queues", -1);
  w.process(cluster_pid, "cluster", pid);

  // Pod occupancy: (job, pod) -> the open slice since its Bound.
  struct Open {
    std::string node;
    std::int64_t bound = 0;
    std::optional<std::int64_t> running;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, Open> open;
  struct Slice {
    std::string node, name;
    std::int64_t job, pod, bound, end;
    std::optional<std::int64_t> running;
    std::vector<std::pair<std::int64_t, std::string>> marks;  // evictions
  };
  std::vector<Slice> slices;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<std::int64_t, std::string>>> marks;
  std::vector<std::string> job_name(jobs.size()), job_queue(jobs.size());
  for (std::size_t r = 0; r < jobs.size(); ++r) {
    const auto j = static_cast<std::size_t>(*jobs.i64("job", r));
    if (j < job_name.size()) {
      job_name[j] = jobs.str("name", r);
      job_queue[j] = jobs.str("queue", r);
    }
  }
  auto close_slice = [&](std::pair<std::int64_t, std::int64_t> key, std::int64_t t) {
    auto it = open.find(key);
    if (it == open.end()) return;
    const auto j = static_cast<std::size_t>(key.first);
    slices.push_back({it->second.node, (j < job_name.size() ? job_name[j] : std::to_string(key.first)) + " pod " + std::to_string(key.second),
                      key.first, key.second, it->second.bound, t, it->second.running, std::move(marks[key])});
    marks.erase(key);
    open.erase(it);
  };
  for (std::size_t r = 0; r < pods.size(); ++r) {
    const std::pair<std::int64_t, std::int64_t> key{*pods.i64("job", r), *pods.i64("pod", r)};
    const std::string ev = pods.str("event", r);
    const std::int64_t t = *pods.i64("t_ns", r);
    if (ev == "Bound") open[key] = Open{pods.str("node", r), t, std::nullopt};
    else if (ev == "Running") {
      if (auto it = open.find(key); it != open.end()) it->second.running = t;
    } else if (ev == "Evicted" || ev == "Killed" || ev == "Drained" || ev == "TaintEvicted") {
      if (open.count(key) != 0) marks[key].emplace_back(t, ev);
    } else if (ev == "Failed") {  // its node failed: the pod ends with it
      if (open.count(key) != 0) marks[key].emplace_back(t, ev);
      close_slice(key, t);
    } else if (ev == "Succeeded" || ev == "Deleted") close_slice(key, t);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> still;
  for (const auto& [key, o] : open) still.push_back(key);
  for (const auto& key : still) close_slice(key, std::max(end_of_run, open[key].bound));

  std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return a.bound != b.bound ? a.bound < b.bound : (a.job != b.job ? a.job < b.job : a.pod < b.pod);
  });
  std::map<std::string, std::vector<std::int64_t>> lanes;
  for (const Slice& s : slices) {
    const int p = node_pid[s.node];
    const int tid = lane_for(lanes[s.node], s.bound, s.end);
    const auto j = static_cast<std::size_t>(s.job);
    json args = {{"job", s.job}, {"pod", s.pod}, {"queue", j < job_queue.size() ? job_queue[j] : ""}};
    w.event({{"ph", "X"}, {"name", s.name}, {"cat", "pod"}, {"pid", p}, {"tid", tid}, {"ts", us(s.bound)},
             {"dur", us(s.end - s.bound)}, {"args", args}});
    ++st.slices;
    if (s.running && *s.running <= s.end) {
      w.event({{"ph", "X"}, {"name", "running"}, {"cat", "pod"}, {"pid", p}, {"tid", tid}, {"ts", us(*s.running)},
               {"dur", us(s.end - *s.running)}, {"args", args}});
      ++st.slices;
    }
    for (const auto& [t, what] : s.marks) {
      w.event({{"ph", "i"}, {"s", "t"}, {"name", what + " " + s.name}, {"cat", "eviction"}, {"pid", p}, {"tid", tid}, {"ts", us(t)}});
      ++st.instants;
    }
  }

  // Pending jobs per queue: +1 at submission, -1 when the gang is placed (or the job ends
  // without ever being placed: refused).
  std::map<std::string, std::vector<std::pair<std::int64_t, int>>> changes;
  for (std::size_t r = 0; r < jobs.size(); ++r) {
    auto& v = changes[jobs.str("queue", r)];
    v.emplace_back(*jobs.i64("submit_ns", r), +1);
    if (auto s = jobs.i64("scheduled_ns", r)) v.emplace_back(*s, -1);
    else if (auto e = jobs.i64("end_ns", r)) v.emplace_back(*e, -1);
  }
  for (auto& [queue, v] : changes) {
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int n = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      n += v[i].second;
      if (i + 1 < v.size() && v[i + 1].first == v[i].first) continue;  // one sample per instant
      w.event({{"ph", "C"}, {"name", "pending " + queue}, {"pid", queues_pid}, {"tid", 0}, {"ts", us(v[i].first)}, {"args", {{"jobs", n}}}});
      ++st.counters;
    }
  }

  Rows m(store::query_file(db, "SELECT * FROM cluster_metrics ORDER BY t_ns"));
  for (std::size_t r = 0; r < m.size(); ++r) {
    const double ts = us(*m.i64("t_ns", r));
    w.event({{"ph", "C"}, {"name", "NeuronCores allocated"}, {"pid", cluster_pid}, {"tid", 0}, {"ts", ts},
             {"args", {{"allocated", m.f64("neuroncores_allocated", r).value_or(0)}}}});
    w.event({{"ph", "C"}, {"name", "PodGroups"}, {"pid", cluster_pid}, {"tid", 0}, {"ts", ts},
             {"args", {{"pending", m.i64("jobs_pending", r).value_or(0)}, {"inqueue", m.i64("jobs_inqueue", r).value_or(0)},
                       {"running", m.i64("jobs_running", r).value_or(0)}}}});
    st.counters += 2;
  }

  // Fabric links (duration model derived with a /fabric): each link's utilisation per metrics
  // interval, a counter on its node's track ("trn1-0/efa-tx" -> trn1-0), switch links on the
  // cluster's; 0 after an interval the next does not continue.
  Rows lu(store::query_file(db, "SELECT start_ns, end_ns, link, utilisation FROM link_usage ORDER BY link, start_ns"));
  for (std::size_t r = 0; r < lu.size(); ++r) {
    const std::string link = lu.str("link", r);
    const auto slash = link.find('/');
    const auto it = slash == std::string::npos ? node_pid.end() : node_pid.find(link.substr(0, slash));
    const int p = it == node_pid.end() ? cluster_pid : it->second;
    const std::int64_t t0 = *lu.i64("start_ns", r), t1 = *lu.i64("end_ns", r);
    const std::string name = link + " utilisation %";
    w.event({{"ph", "C"}, {"name", name}, {"pid", p}, {"tid", 0}, {"ts", us(t0)},
             {"args", {{"percent", 100.0 * lu.f64("utilisation", r).value_or(0)}}}});
    ++st.counters;
    const bool continued = r + 1 < lu.size() && lu.str("link", r + 1) == link && *lu.i64("start_ns", r + 1) == t1;
    if (!continued) {
      w.event({{"ph", "C"}, {"name", name}, {"pid", p}, {"tid", 0}, {"ts", us(t1)}, {"args", {{"percent", 0.0}}}});
      ++st.counters;
    }
  }

  // The jobs' all-reduce rings over EFA (duration model derived, schema 5 on): one slice per
  // period of constant step time of a multi-node job, named with the bandwidth the fabric
  // granted it, on a process of their own; a slice ends where the grant changed (another
  // ring started or stopped on a shared link), the attempt ended or the run stopped.
  Rows has(store::query_file(db, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'step_periods'"));
  if (has.i64("n", 0).value_or(0) > 0) {
    Rows sp(store::query_file(db, "SELECT job, attempt, start_ns, end_ns, nodes, efa_gbps, step_s, communication_s, steps, end_reason "
                                  "FROM step_periods WHERE nodes > 1 ORDER BY start_ns, job, attempt"));
    if (sp.size() > 0) {
      // One row per job (its thread), named after it, so that a job's ring reads left to right.
      const int rings_pid = cluster_pid + 1;
      w.process(rings_pid, "EFA all-reduce rings", rings_pid);
      std::map<std::size_t, int> ring_row;
      for (std::size_t r = 0; r < sp.size(); ++r) {
        const std::int64_t t0 = *sp.i64("start_ns", r), t1 = *sp.i64("end_ns", r);
        const auto j = static_cast<std::size_t>(*sp.i64("job", r));
        const std::string name = j < job_name.size() ? job_name[j] : std::to_string(j);
        const double gbps = sp.f64("efa_gbps", r).value_or(0);
        auto [row, fresh] = ring_row.emplace(j, static_cast<int>(ring_row.size()));
        const int tid = row->second;
        if (fresh) {
          w.event({{"ph", "M"}, {"name", "thread_name"}, {"pid", rings_pid}, {"tid", tid}, {"args", {{"name", name}}}});
          w.event({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", rings_pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
        }
        w.event({{"ph", "X"}, {"name", fmt::format("{} ring x{} @ {:.4g} Gb/s", name, *sp.i64("nodes", r), gbps)}, {"cat", "all-reduce"},
                 {"pid", rings_pid}, {"tid", tid}, {"ts", us(t0)}, {"dur", us(t1 - t0)},
                 {"args", {{"job", j}, {"attempt", *sp.i64("attempt", r)}, {"nodes", *sp.i64("nodes", r)}, {"efa_gbps", gbps},
                           {"step_s", sp.f64("step_s", r).value_or(0)}, {"communication_s", sp.f64("communication_s", r).value_or(0)},
                           {"steps", sp.f64("steps", r).value_or(0)}, {"ended", sp.str("end_reason", r)}}}});
        ++st.slices;
      }
    }
  }
  return st;
}

TraceExportStats inference(const std::string& db, Writer& w) {
  TraceExportStats st;
  const std::int64_t end_of_run = run_end(db);
  Rows ev(store::query_file(db, "SELECT t_ns, instance, model, event FROM model_events ORDER BY rowid"));
  std::map<std::int64_t, int> inst_pid;
  for (std::size_t r = 0; r < ev.size(); ++r) inst_pid.emplace(*ev.i64("instance", r), 0);
  Rows ie(store::query_file(db, "SELECT DISTINCT instance FROM instance_events WHERE instance IS NOT NULL"));
  for (std::size_t r = 0; r < ie.size(); ++r) inst_pid.emplace(*ie.i64("instance", r), 0);
  int pid = 1;
  for (auto& [i, p] : inst_pid) {
    p = pid++;
    w.process(p, "instance " + std::to_string(i), p);
  }
  const int endpoint_pid = 0;
  w.process(endpoint_pid, "endpoint", -1);

  struct Key {
    std::int64_t instance, model;
    bool operator<(const Key& o) const { return instance != o.instance ? instance < o.instance : model < o.model; }
  };
  std::map<Key, std::int64_t> downloading, loading;
  std::map<std::int64_t, std::vector<std::int64_t>> lanes;
  auto slice = [&](const char* what, Key k, std::int64_t t0, std::int64_t t1, const std::string& outcome) {
    const int tid = lane_for(lanes[k.instance], t0, t1);
    w.event({{"ph", "X"}, {"name", std::string(what) + " model " + std::to_string(k.model)}, {"cat", what},
             {"pid", inst_pid[k.instance]}, {"tid", tid}, {"ts", us(t0)}, {"dur", us(t1 - t0)},
             {"args", {{"model", k.model}, {"outcome", outcome}}}});
    ++st.slices;
  };
  // Slices must be emitted per lane in start order: collect, then sort.
  struct S {
    const char* what;
    Key k;
    std::int64_t t0, t1;
    std::string outcome;
  };
  std::vector<S> all;
  for (std::size_t r = 0; r < ev.size(); ++r) {
    const Key k{*ev.i64("instance", r), *ev.i64("model", r)};
    const std::string e = ev.str("event", r);
    const std::int64_t t = *ev.i64("t_ns", r);
    if (e == "DownloadStart") downloading[k] = t;
    else if (e == "Downloaded") {
      if (auto it = downloading.find(k); it != downloading.end()) {
        all.push_back({"download", k, it->second, t, e});
        downloading.erase(it);
      }
    } else if (e == "LoadStart") loading[k] = t;
    else if (e == "Loaded" || e == "LoadFailed") {
      if (auto it = loading.find(k); it != loading.end()) {
        all.push_back({"load", k, it->second, t, e});
        loading.erase(it);
      }
    } else if (e == "Unloaded" || e == "ArtifactDeleted") {
      w.event({{"ph", "i"}, {"s", "p"}, {"name", e + " model " + std::to_string(k.model)}, {"cat", "cache"},
               {"pid", inst_pid[k.instance]}, {"tid", 0}, {"ts", us(t)}});
      ++st.instants;
    }
  }
  for (const auto& [k, t0] : downloading) all.push_back({"download", k, t0, std::max(t0, end_of_run), "unfinished"});
  for (const auto& [k, t0] : loading) all.push_back({"load", k, t0, std::max(t0, end_of_run), "unfinished"});
  std::stable_sort(all.begin(), all.end(), [](const S& a, const S& b) {
    return a.t0 != b.t0 ? a.t0 < b.t0 : (a.k.instance != b.k.instance ? a.k.instance < b.k.instance : a.k.model < b.k.model);
  });
  for (const S& s : all) slice(s.what, s.k, s.t0, s.t1, s.outcome);

  Rows m(store::query_file(db, "SELECT * FROM endpoint_metrics ORDER BY start_ns"));
  for (std::size_t r = 0; r < m.size(); ++r) {
    const double ts = us(*m.i64("start_ns", r));
    w.event({{"ph", "C"}, {"name", "Invocations"}, {"pid", endpoint_pid}, {"tid", 0}, {"ts", ts},
             {"args", {{"invocations", m.i64("invocations", r).value_or(0)}, {"5xx", m.i64("invocation_5xx_errors", r).value_or(0)}}}});
    w.event({{"ph", "C"}, {"name", "fleet"}, {"pid", endpoint_pid}, {"tid", 0}, {"ts", ts},
             {"args", {{"instances_in_service", m.i64("instances_in_service", r).value_or(0)}, {"workers", m.i64("workers", r).value_or(0)}}}});
    w.event({{"ph", "C"}, {"name", "LoadedModelCount"}, {"pid", endpoint_pid}, {"tid", 0}, {"ts", ts},
             {"args", {{"models", m.f64("loaded_model_count", r).value_or(0)}}}});
    st.counters += 3;
  }
  return st;
}

}  // namespace

TraceExportStats export_trace(const std::string& db, const std::string& out) {
  if (const std::string what = store::not_a_regular_file(out); !what.empty())
    throw std::invalid_argument("trace file '" + out + "': " + what + "; expected a regular file or a new path");
  if (const auto id = detail::file_id(out); id && id == detail::file_id(db))
    throw std::invalid_argument("trace file '" + out + "': is the database it is made from ('" + db +
                                "'), which it would overwrite; choose another file");
  Rows kind(store::query_file(db, "SELECT value FROM run_meta WHERE key = 'run_kind'"));
  const std::string k = kind.size() == 1 ? kind.str("value", 0) : "training";
  // Written beside `out` and renamed over it once complete: an error leaves an earlier trace
  // there as it was.
  detail::WholeFile file(out, "trace file");
  Writer w(file.hidden());
  TraceExportStats st = k == "inference" ? inference(db, w) : training(db, w);
  w.close();
  file.commit();
  return st;
}

}  // namespace mltwin::runner
