// run.cpp — runner::Run: one run of a training or an inference scenario (see run.hpp).
#include "mltwin/policy/version.hpp"
#include "mltwin/runner/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "mltwin/core/rng.hpp"
#include "mltwin/io/inference_report.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/serving_metrics.hpp"
#include "mltwin/models/training.hpp"
#include "output_files.hpp"
#include "mltwin_git_sha.hpp"  // generated at build time by apps/git_sha.cmake: MLTWIN_GIT_SHA

#ifndef MLTWIN_GIT_SHA
#define MLTWIN_GIT_SHA "unknown"
#endif

namespace mltwin::runner {

using detail::create_hidden_beside;
using detail::file_id;
using detail::InputId;

const char* git_sha() noexcept { return MLTWIN_GIT_SHA; }
const char* version() noexcept { return policy::kVersion; }

namespace {

namespace inf = models::inference;
using nlohmann::json;


// The cluster model needs its recorder at construction, the store needs the RNG stream names
// the model creates: this forwards to the store once it exists.
class Forward final : public models::TrainingRecorder {
 public:
  models::TrainingRecorder* to = nullptr;
  void job_submitted(const models::JobSubmitted& j) override { to->job_submitted(j); }
  void job_final(const models::JobFinal& j) override { to->job_final(j); }
  void pod_event(const models::PodEvent& e) override { to->pod_event(e); }
  void decision(const models::Decision& d) override { to->decision(d); }
  void phase_change(const models::PhaseChange& p) override { to->phase_change(p); }
  void sample(const models::ClusterSample& s) override { to->sample(s); }
  void node_event(const models::NodeEvent& e) override { to->node_event(e); }
  void node_launched(const models::NodeLaunched& n) override { to->node_launched(n); }
  void node_ended(const models::NodeEnded& n) override { to->node_ended(n); }
  void link_usage(const models::LinkUsage& u) override { to->link_usage(u); }
  void step_period(const models::StepPeriod& p) override { to->step_period(p); }
  void checkpoint(core::Time now) override { to->checkpoint(now); }
};

// The metrics aggregator hands each closed period to this, which notes the worst minute and
// passes it on to the store.
class MinutePeaks final : public inf::ServingRecorder {
 public:
  explicit MinutePeaks(inf::ServingRecorder& to) : to_(to) {}
  double worst_p99_us = 0;
  std::uint64_t busiest = 0;
  void request(const inf::RequestDone& r) override { to_.request(r); }
  void model_event(const inf::ModelEvent& e) override { to_.model_event(e); }
  void worker_event(const inf::WorkerEvent& e) override { to_.worker_event(e); }
  void instance_event(const inf::InstanceEvent& e) override { to_.instance_event(e); }
  void minute(const inf::MinuteMetrics& m) override {
    if (m.model_latency_p99_us == m.model_latency_p99_us) worst_p99_us = std::max(worst_p99_us, m.model_latency_p99_us);
    busiest = std::max(busiest, m.invocations);
    to_.minute(m);
  }
  void checkpoint(core::Time now) override { to_.checkpoint(now); }

 private:
  inf::ServingRecorder& to_;
};

/// Where the database goes when the caller does not say.
std::string default_out(const std::string& out, const std::string& name, std::uint64_t seed) {
  return out.empty() ? "results/" + name + "-seed" + std::to_string(seed) + ".sqlite" : out;
}

/// Creates the folder of the database file `path` if it is missing.
void create_folder_of(const std::string& path) {
  if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error("cannot create results database '" + path + "': cannot create its folder '" +
                               parent.string() + "': " + ec.message());
  }
}

/// Throws std::invalid_argument when `out` exists and is not a regular file, or is one of
/// `inputs` (the same file, however it is spelled: links, "..", hard links).
void check_out(const std::string& out, const std::vector<InputId>& inputs, const std::string& flag) {
  if (const std::string what = store::not_a_regular_file(out); !what.empty())
    throw std::invalid_argument(flag + " '" + out + "': " + what + "; expected a regular file or a new path");
  const auto id = file_id(out);
  if (!id) return;
  for (const auto& in : inputs)
    if (in.id == *id)
      throw std::invalid_argument(flag + " '" + out + "': is the run's " + (in.role == "scenario" ? "scenario" : in.role + " input") +
                                  " ('" + in.path + "'), which it would overwrite; choose another file");
}

/// Removes a database file and its journal (an unfinished file that cannot be kept).
void remove_database(const std::string& path) noexcept {
  std::error_code ec;
  for (const char* suffix : {"", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

/// Nothing stored may depend on where the run was started from or on how the scenario and the
/// data folder were spelled (relative, absolute, --data, MLTWIN_DATA, found by search): the
/// scenario is recorded by file name, its inputs as the scenario writes them, each with its
/// SHA-256. So one scenario, inputs and seed give byte-identical databases. A scenario given
/// as a document is hashed as its JSON text.
void record_inputs(store::RunMetadata& meta, const std::string& path, const RunOptions& opts,
                   const std::vector<io::InputFileRef>& inputs) {
  meta.scenario_path = std::filesystem::path(path).filename().string();
  if (opts.document == std::nullopt) {
    meta.inputs.push_back(store::hash_input_file("scenario", path));
    meta.inputs.back().path = meta.scenario_path;
  }
  for (const auto& in : inputs) {
    meta.inputs.push_back(store::hash_input_file(in.role, in.path));
    meta.inputs.back().path = in.as_written;
  }
}

json distribution_json(const io::Distribution& d) {
  return {{"n", d.n}, {"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}, {"max", d.max}};
}

json latency_json(const inf::LatencySummary& l) {
  return {{"count", l.count}, {"mean_us", l.mean_us}, {"min_us", l.min_us}, {"max_us", l.max_us}, {"p50_us", l.p50_us},
          {"p90_us", l.p90_us}, {"p99_us", l.p99_us}, {"p999_us", l.p999_us}};
}

}  // namespace

core::Time parse_until(const std::string& text, const std::string& what) {
  core::Time until = core::Time::max();
  if (!text.empty()) {
    try {
      until = core::Time::zero() + core::parse_duration(text);
    } catch (const std::exception& e) {
      throw std::invalid_argument(what + " " + text + ": expected a time such as 90s, 30m, 12h, 7d (" + e.what() + ")");
    }
    if (until <= core::Time::zero()) throw std::invalid_argument(what + " " + text + ": expected a positive time");
  }
  return until;
}

struct Run::Impl {
  Kind kind = Kind::Training;
  std::string path, name;
  std::string target;  // the database path asked for
  std::string out;     // where the database is now ("" once removed)
  bool replace_at_end = false;
  std::vector<InputId> inputs;  // the files the run reads: a partial file may not replace one
  std::uint64_t seed = 0;
  json doc;
  core::Simulator sim;
  std::unique_ptr<core::RngStreams> rng;
  std::unique_ptr<store::SqliteStore> db;
  std::string until_text;
  bool finished = false;
  bool started = false;
  core::Time end = core::Time::zero();

  // Training.
  std::unique_ptr<io::LoadedScenario> training_sc;
  Forward fwd;
  std::unique_ptr<models::TrainingCluster> cluster;
  double span_s = 1.0;

  // Inference.
  std::unique_ptr<io::LoadedInferenceScenario> inference_sc;
  std::unique_ptr<MinutePeaks> peaks;
  std::unique_ptr<inf::MetricsAggregator> agg;
  std::unique_ptr<inf::Endpoint> ep;
  std::string server;

  void start() {
    if (started) return;
    started = true;
    if (cluster) cluster->start();
    else ep->start();
  }

  /// Checks `out` against the inputs, then creates the database (RunOptions::output says where).
  void open_database(const store::RunMetadata& meta, const std::string& scenario_path, const RunOptions& opts,
                     const std::vector<io::InputFileRef>& refs) {
    target = out;
    const bool file = out != ":memory:";
    if (file) {
      if (opts.document == std::nullopt)
        if (auto id = file_id(scenario_path)) inputs.push_back({*id, "scenario", scenario_path});
      for (const auto& r : refs)
        if (auto id = file_id(r.path)) inputs.push_back({*id, r.role, r.path});
      check_out(out, inputs, opts.command_line ? "--out" : "out");
    }
    if (opts.before_database) opts.before_database();
    if (!file) {
      db = std::make_unique<store::SqliteStore>(out, meta);
      return;
    }
    create_folder_of(out);
    if (opts.output == Output::Direct) {
      db = std::make_unique<store::SqliteStore>(out, meta);
      return;
    }
    replace_at_end = true;
    const std::string hidden = create_hidden_beside(out);
    try {
      db = std::make_unique<store::SqliteStore>(hidden, meta);
    } catch (const std::runtime_error& e) {
      remove_database(hidden);
      throw std::runtime_error("cannot create results database '" + out + "' (nothing written): " + e.what());
    } catch (...) {
      remove_database(hidden);
      throw;
    }
    out = hidden;
  }

  /// Output::ReplaceAtEnd, once the store is finished: the database goes to `target` if the
  /// run ended as asked, else to partial_path(target) — or stays where it is if that name
  /// is taken by something that is not a regular file, or by one of the inputs. Throws
  /// std::runtime_error if the rename fails (the database is then still at `out`).
  void publish(store::EndReason reason) {
    if (!replace_at_end || out.empty()) return;
    std::string to = store::ended_as_asked(reason) ? target : partial_path(target);
    if (!store::ended_as_asked(reason)) {
      const auto id = file_id(to);
      const bool is_input = id && std::any_of(inputs.begin(), inputs.end(), [&](const InputId& in) { return in.id == *id; });
      if (is_input || !store::not_a_regular_file(to).empty()) return;  // keep the hidden name: out() says it
    }
    db->move_to(to);
    out = to;
  }

  /// After an error: records `reason` (normally Failed) and the time reached, through the
  /// store if it still can, else in the file directly; closes the store (readable) and
  /// publishes the file as partial. An unfinished file (Output::ReplaceAtEnd) whose end
  /// reason could not be written is removed (out becomes ""). Never throws.
  void settle(store::EndReason reason) noexcept {
    finished = true;
    try {
      if (!db->finished()) db->record_end(reason, end);
    } catch (...) {
      // Written below, in the file directly, if at all possible.
    }
    try {
      db->finish(/*keep_open=*/true);
    } catch (...) {
      // The store closed itself; what it committed stays.
    }
    if (out == ":memory:" || out.empty()) return;
    std::string recorded;
    try {
      recorded = end_reason_in(out);
      if (recorded != store::to_string(reason)) {
        store::record_end_in_file(out, reason, end);
        recorded = end_reason_in(out);
      }
    } catch (...) {
      // Neither could write: the disk is full, or the file is damaged.
    }
    if (!replace_at_end) return;  // the caller's file stays, whatever it holds
    if (recorded != store::to_string(reason)) {
      // A file without its end reason would pass for a run still going on (or killed): it
      // goes, and its space with it once the store (finished: it writes no more) is closed.
      remove_database(out);
      out.clear();
      return;
    }
    try {
      publish(reason);
    } catch (...) {
      // It stays under its hidden name: out says where.
    }
  }

  /// run_meta('end_reason') of the database file at `p` ("" without one).
  std::string end_reason_in(const std::string& p) const {
    const store::ResultTable t = store::query_file(p, "SELECT value FROM run_meta WHERE key = 'end_reason'");
    return t.rows == 1 ? t.columns[0].text_at(0) : std::string();
  }
};

std::string partial_path(const std::string& out) {
  const std::string ext = ".sqlite";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".partial" + ext;
  return out + ".partial";
}

Run::Run(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Run::~Run() {
  if (impl_ && impl_->replace_at_end && !impl_->finished) abandon(store::EndReason::Failed);
}

std::unique_ptr<Run> Run::open(const std::string& path, const RunOptions& opts) {
  auto m = std::make_unique<Impl>();
  m->path = path;
  m->until_text = opts.until_text;
  io::LoadOptions lo;
  lo.data_dir = opts.data_dir;
  lo.catalog_path = opts.catalog;
  lo.overrides = opts.overrides;
  lo.document = opts.document ? &*opts.document : nullptr;
  lo.strict = opts.strict;
  lo.serving_policies = opts.serving_policies;
  const io::ScenarioKind kind = opts.document ? io::scenario_kind(*opts.document, path) : io::scenario_kind(path);

  store::RunMetadata meta;
  meta.git_sha = git_sha();
  meta.mltwin_version = version();
  meta.until = opts.until_text;

  if (kind == io::ScenarioKind::Inference) {
    if (opts.max_jobs > 0)
      throw std::invalid_argument(std::string(opts.command_line ? "--max-jobs" : "max_jobs") +
                                  " applies to Philly (training) workloads; '" + path + "' is an inference scenario");
    m->kind = Kind::Inference;
    m->inference_sc = std::make_unique<io::LoadedInferenceScenario>(io::load_inference_scenario(path, lo));
    const io::LoadedInferenceScenario& sc = *m->inference_sc;
    if (opts.on_warning)
      for (const auto& w : sc.warnings) opts.on_warning(w);
    if (opts.check_estimate) opts.check_estimate(io::estimate_run(sc, parse_until(opts.until_text)));
    m->name = sc.name;
    m->doc = sc.json;
    m->seed = opts.seed.value_or(sc.seed);
    m->out = default_out(opts.out, sc.name, m->seed);
    m->rng = std::make_unique<core::RngStreams>(m->seed);
    const bool mms = sc.inference.server.kind == inf::ServerSpec::Kind::Mms;
    m->span_s = std::max(1.0, sc.inference.traffic.seconds());  // what the progress line measures against

    meta.kind = store::RunKind::Inference;
    meta.scenario_json = sc.json.dump();
    meta.seed = m->seed;
    meta.request_sampling.record_full = sc.inference.output.request_records_full;
    meta.request_sampling.sample_every = sc.inference.output.request_sample_every;
    record_inputs(meta, path, opts, sc.inputs);
    meta.extra["model_server"] = mms ? std::string("MMS ") + policy::kMmsRelease
                                     : std::string("DJL Serving ") + policy::kDjlServingRelease;
    meta.extra["random_inputs"] =
        "arrival times and model choices (traffic), service times, OverheadLatency, S3 first byte, "
        "load / unload / worker start-up / instance start-up / health-check times (per their "
        "distributions), Locust waits";
    // The streams the model will draw from (recorded so a reader knows which inputs are random).
    meta.rng_streams = {"endpoint.latencies", "endpoint.overhead", "serving.service_time", "traffic.arrivals",
                        "traffic.locust_wait", "traffic.models"};
    inf::PolicySet policies = inf::default_policies(sc.inference);
    if (opts.customize_serving) {
      const bool had_scaling = policies.scaling != nullptr;
      opts.customize_serving(policies);
      // A scaling policy the caller added (the scenario's own was checked when it was loaded).
      if (!had_scaling && policies.scaling)
        if (std::string w = io::fixed_fleet_warning(sc.inference, std::string(policies.scaling->name())); !w.empty()) {
          w = path + ": " + w;
          if (opts.strict) throw io::ScenarioError(w + " (strict: warnings are errors)");
          if (opts.on_warning) opts.on_warning(w);
        }
    }
    // The policies as run (a Python object's name when one replaced the scenario's choice).
    const std::string scaling = policies.scaling ? std::string(policies.scaling->name()) : "none (fixed fleet)";
    m->server = meta.extra["model_server"] + " (worker autoscaling " + std::string(policies.autoscaling->name()) + ")";
    meta.extra["serving_policies"] = "autoscaling " + std::string(policies.autoscaling->name()) + ", routing " +
                                     std::string(policies.routing->name()) + ", instance scaling " + scaling;
    m->open_database(meta, path, opts, sc.inputs);
    m->peaks = std::make_unique<MinutePeaks>(*m->db);
    m->agg = std::make_unique<inf::MetricsAggregator>(sc.inference.output.metrics_period, core::Time::zero(), m->peaks.get());
    m->ep = std::make_unique<inf::Endpoint>(m->sim, sc.inference, *m->rng, m->db.get(), m->agg.get(), std::move(policies));
    m->start();
    return std::unique_ptr<Run>(new Run(std::move(m)));
  }

  if (opts.customize_serving || !opts.serving_policies.is_null())
    throw std::invalid_argument("serving policies apply to inference scenarios; '" + path + "' is a training scenario");
  m->kind = Kind::Training;
  if (opts.max_jobs > 0) {
    // Only a Philly workload has jobs to keep: say so in the option's name, rather than let
    // the patch below fail validation as if the scenario file were wrong.
    json doc = opts.document ? *opts.document : json();
    if (!opts.document) {
      std::ifstream in(path);
      doc = json::parse(in, nullptr, /*allow_exceptions=*/false);  // a bad file: load_scenario says where
    }
    if (!lo.overrides.is_null()) doc.merge_patch(lo.overrides);
    if (doc.is_object() && doc.contains("workload") && doc["workload"].is_object() && !doc["workload"].contains("philly"))
      throw std::invalid_argument(std::string(opts.command_line ? "--max-jobs" : "max_jobs") +
                                  " applies to Philly workloads; the workload of '" + path + "' is not one");
    json patch = {{"workload", {{"philly", {{"max_jobs", opts.max_jobs}}}}}};
    if (lo.overrides.is_null()) lo.overrides = patch;
    else lo.overrides.merge_patch(patch);
  }
  m->training_sc = std::make_unique<io::LoadedScenario>(io::load_scenario(path, lo));
  const io::LoadedScenario& sc = *m->training_sc;
  if (opts.on_warning)
    for (const auto& w : sc.warnings) opts.on_warning(w);
  if (opts.check_estimate) opts.check_estimate(io::estimate_run(sc, parse_until(opts.until_text)));
  m->name = sc.name;
  m->doc = sc.json;
  m->seed = opts.seed.value_or(sc.seed);
  m->out = default_out(opts.out, sc.name, m->seed);
  m->rng = std::make_unique<core::RngStreams>(m->seed);
  m->cluster = std::make_unique<models::TrainingCluster>(sc.training, m->sim, *m->rng, m->fwd);
  if (opts.check_promises) m->cluster->scheduler().set_check_promises(true);
  m->span_s = sc.training.jobs.empty() ? 1.0 : std::max(1.0, sc.training.jobs.back().submit.seconds());

  meta.scenario_json = sc.json.dump();
  meta.seed = m->seed;
  meta.volcano_release = policy::kVolcanoRelease;
  meta.rng_streams = m->rng->names();
  record_inputs(meta, path, opts, sc.inputs);
  meta.extra["random_inputs"] =
      "bind latency, pod start-up latency (per their distributions), Kubernetes UIDs (order of "
      "jobs submitted in the same second), Volcano's node tie-break";
  m->open_database(meta, path, opts, sc.inputs);
  m->fwd.to = m->db.get();
  m->start();
  return std::unique_ptr<Run>(new Run(std::move(m)));
}

Kind Run::kind() const noexcept { return impl_->kind; }
const std::string& Run::name() const noexcept { return impl_->name; }
std::uint64_t Run::seed() const noexcept { return impl_->seed; }
const std::string& Run::out() const noexcept { return impl_->out; }
const std::string& Run::target() const noexcept { return impl_->target; }
const nlohmann::json& Run::scenario() const noexcept { return impl_->doc; }
// A finished run reports where it ended (its last event, or the time it was stopped at), not
// the clock of the simulator, which a trailing metrics sample may have moved past the end.
core::Time Run::now() const { return impl_->finished ? impl_->end : impl_->sim.now(); }
core::Time Run::next_time() const { return impl_->sim.next_time(); }
std::uint64_t Run::events() const { return impl_->sim.stats().events_fired; }
bool Run::finished() const noexcept { return impl_->finished; }
const models::TrainingCluster* Run::training() const noexcept { return impl_->cluster.get(); }
const models::inference::Endpoint* Run::endpoint() const noexcept { return impl_->ep.get(); }

std::uint64_t Run::run_until(core::Time t) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("run '" + m.name + "' has finished; open a new Run");
  m.start();
  if (m.sim.next_time() > t) {
    // Nothing to fire: still move the clock (a caller stepping through a quiet period sees
    // now() advance), but never past the last event when the run is over.
    if (m.sim.next_time() != core::Time::max() && t > m.sim.now()) return m.sim.run_until(t);
    return 0;
  }
  return m.sim.run_until(t);
}

void Run::checkpoint() {
  Impl& m = *impl_;
  if (!m.finished) m.db->checkpoint(m.sim.now());
}

void Run::finish(store::EndReason reason) {
  Impl& m = *impl_;
  if (m.finished) return;
  m.finished = true;
  m.end = m.sim.now();
  try {
    m.start();
    if (m.cluster) {
      // A run that completed ends at its last event; one stopped early at the time reached.
      m.end = reason == store::EndReason::Completed ? std::max(m.cluster->last_event(), core::Time::zero()) : m.sim.now();
      std::string note;
      if (reason == store::EndReason::Until)
        note = "still waiting at --until " + (m.until_text.empty() ? io::human_duration(m.end.seconds()) : m.until_text);
      else if (reason != store::EndReason::Completed)
        note = std::string("run ") + store::to_string(reason) + " at " + io::human_duration(m.end.seconds());
      m.cluster->finish(m.end, note);
    } else {
      // As for training: a run that completed ends at its last event (a caller stepping in
      // chunks may have moved the clock past it), one stopped early at the time reached.
      m.end = reason == store::EndReason::Completed ? m.ep->last_event() : m.sim.now();
      m.ep->finish(m.end);
      const auto& st = m.ep->stats();
      m.db->record_request_accounting({st.requests, st.served, st.rejected_503, st.rejected_507, st.unserved_at_end});
    }
    m.db->record_end(reason, m.end);
    m.db->finish(/*keep_open=*/true);
    m.publish(reason);
  } catch (...) {
    m.settle(store::EndReason::Failed);  // records failed where it can, and tries the partial name
    throw;
  }
}

void Run::abandon(store::EndReason reason) noexcept {
  Impl& m = *impl_;
  if (m.finished) return;
  m.end = m.sim.now();
  m.settle(reason);
}

std::string Run::status_line(double wall) const {
  const Impl& m = *impl_;
  const double rate = wall > 0 ? static_cast<double>(m.sim.stats().events_fired) / wall / 1e6 : 0.0;
  // Done: the share of the workload's span (the last submission; the traffic's length) reached;
  // the ETA assumes the rest goes at the pace so far (a training run also drains after its last
  // submission, which the ETA cannot see: "draining").
  const double frac = std::min(1.0, m.sim.now().seconds() / m.span_s);
  std::string eta = "ETA --";
  if (frac >= 1.0) eta = m.ep ? "traffic over" : "draining";
  else if (frac >= 0.01 && wall > 0) eta = "ETA " + io::human_duration(wall * (1.0 - frac) / frac);
  const int width = 30, filled = static_cast<int>(frac * width);
  const std::string bar = fmt::format("[{}{}] {:3.0f}%", std::string(filled, '='), std::string(width - filled, ' '), frac * 100);
  if (m.ep) {
    const auto& st = m.ep->stats();
    return fmt::format("{}  sim {}  requests {} ({} in flight)  wall {}  {}  {:.2f}M events/s", bar,
                       io::human_duration(m.sim.now().seconds()), st.requests, st.in_flight, io::human_duration(wall), eta, rate);
  }
  return fmt::format("{}  sim {}  jobs {}/{} ended  wall {}  {}  {:.2f}M events/s", bar, io::human_duration(m.sim.now().seconds()),
                     m.cluster->ended(), m.cluster->total_jobs(), io::human_duration(wall), eta, rate);
}

void Run::print_summary(std::ostream& os, double wall_s) const {
  const Impl& m = *impl_;
  if (m.cluster) {
    io::RunSummary s = io::summarize(m.name, m.seed, m.training_sc->training, *m.cluster, m.end.seconds());
    s.events = m.sim.stats().events_fired;
    s.wall_s = wall_s;
    io::print_summary(os, s);
    os << fmt::format("Events: {} in {:.2f} s wall ({:.2f} M events/s)\n", s.events, wall_s,
                      wall_s > 0 ? static_cast<double>(s.events) / wall_s / 1e6 : 0.0);
    return;
  }
  io::InferenceSummary s;
  const auto& sc = *m.inference_sc;
  s.scenario = m.name;
  s.seed = m.seed;
  s.server = m.server;
  s.instance_type = sc.inference.endpoint.instance_type;
  s.sim_end_s = (m.finished ? m.end : m.sim.now()).seconds();
  s.finished = m.finished;
  s.stats = m.ep->stats();
  s.totals = m.agg->totals();
  s.model_latency = m.agg->model_latency_summary();
  s.overhead_latency = m.agg->overhead_latency_summary();
  s.end_to_end = m.agg->end_to_end_latency_summary();
  s.histogram_relative_error = m.agg->model_latency().relative_error_bound();
  s.peak_minute_p99_model_latency_us = m.peaks->worst_p99_us;
  s.peak_minute_invocations = m.peaks->busiest;
  const std::uint64_t reached = s.stats.requests - s.stats.in_flight;
  s.cache_hit_ratio = reached > 0 ? static_cast<double>(s.stats.cache_hits) / static_cast<double>(reached) : 0.0;
  s.p99_slo_ms = sc.inference.slo.p99_model_latency_ms;
  s.max_5xx_ratio = sc.inference.slo.max_5xx_ratio;
  s.events = m.sim.stats().events_fired;
  s.wall_s = wall_s;
  io::print_inference_summary(os, s);
}

nlohmann::json Run::summary_json() const {
  const Impl& m = *impl_;
  json j = {{"scenario", m.name}, {"seed", m.seed}, {"kind", m.cluster ? "training" : "inference"},
            {"sim_end_s", (m.finished ? m.end : m.sim.now()).seconds()}, {"events", m.sim.stats().events_fired},
            {"database", m.out}};
  if (m.cluster) {
    const io::RunSummary s =
        io::summarize(m.name, m.seed, m.training_sc->training, *m.cluster, (m.finished ? m.end : m.sim.now()).seconds());
    j["jobs"] = s.jobs;
    json phases = json::object();
    for (const auto& [phase, n] : s.phases) phases[phase] = n;
    j["phases"] = phases;
    j["makespan_s"] = s.makespan_s;
    j["queueing_s"] = distribution_json(s.queueing_s);
    j["jct_s"] = distribution_json(s.jct_s);
    json queues = json::array();
    for (const auto& q : s.queues)
      queues.push_back({{"queue", q.queue}, {"submitted", q.submitted}, {"completed", q.completed}, {"running", q.running},
                        {"pending", q.pending}, {"rejected", q.rejected}, {"queueing_s", distribution_json(q.queueing_s)},
                        {"jct_s", distribution_json(q.jct_s)}});
    j["queues"] = queues;
    j["allocation_ratio"] = s.allocation_ratio;
    j["weekly_allocation_ratio"] = s.weekly_allocation_ratio;
    j["sessions"] = s.sessions;
    j["cycles"] = s.cycles;
    j["binds"] = s.binds;
    if (s.bind_failures > 0) j["bind_failures"] = s.bind_failures;
    j["statements_discarded"] = s.discarded;
    // The job controller's work (io/report.hpp RunSummary): pods evicted, restarts, final
    // phases by policy, gangs re-formed by torchrun, jobs left stuck by SyncJob.
    j["lifecycle"] = {{"evictions", s.evictions},           {"drained", s.drained},         {"restarts", s.restarts},
                      {"failed_max_retry", s.failed},       {"aborted", s.aborted},
                      {"terminated", s.terminated},         {"completed_by_policy", s.completed_early},
                      {"resumed_in_place", s.resumed_in_place}, {"stuck", s.stuck},
                      {"lost_training_s", s.lost_training_s}, {"lost_neuroncore_s", s.lost_neuroncore_s}};
    j["cost_usd"] = s.cost_usd;
    {
      // io/report.hpp Starvation: the criterion, the count, the longest waits.
      json worst = json::array();
      for (const auto& w : s.starvation.worst)
        worst.push_back({{"job", w.name}, {"queue", w.queue}, {"waited_s", w.waited_s}, {"run_s", w.run_s},
                         {"placed", w.placed}, {"overtaken_by", w.overtaken_by}});
      j["starvation"] = {{"wait_factor", s.starvation.wait_factor}, {"jobs", s.starvation.jobs}, {"worst", worst},
                         {"remedy", s.starvation.jobs > 0 ? "sla plugin (sla-waiting-time)" : ""}};
    }
    {
      // io/report.hpp ShortQueue: queues whose share under contention is below their smallest job.
      json qs = json::array();
      for (const auto& q : s.short_queues)
        qs.push_back({{"queue", q.queue}, {"weight", q.weight}, {"total_weight", q.total_weight},
                      {"total_neuroncores", q.total_neuroncores}, {"share_neuroncores", q.share_neuroncores}, {"smallest_neuroncores", q.smallest_neuroncores},
                      {"largest_neuroncores", q.largest_neuroncores}, {"jobs", q.jobs},
                      {"mean_queueing_s", std::isnan(q.mean_queueing_s) ? json(nullptr) : json(q.mean_queueing_s)},
                      {"weight_for_smallest", q.weight_for_smallest}, {"weight_for_largest", q.weight_for_largest}});
      j["short_queues"] = qs;
    }
    {
      // io/report.hpp ReclaimChurn: jobs the reclaim action evicted more than once.
      json worst = json::array();
      for (const auto& w : s.reclaim_churn.worst)
        worst.push_back({{"job", w.name}, {"queue", w.queue}, {"evictions", w.evictions}, {"phase", w.phase},
                         {"lost_training_s", w.lost_training_s}});
      j["reclaim_churn"] = {{"jobs", s.reclaim_churn.jobs}, {"evictions", s.reclaim_churn.evictions},
                            {"queues", s.reclaim_churn.queues}, {"worst", worst},
                            {"remedy", s.reclaim_churn.jobs > 0 ? "queue shares in whole gangs (proportion weights, capacity deserved), or reclaimable: false" : ""}};
    }
    if (s.startup) {
      j["startup_s"] = s.startup_s;
      j["startup_share"] = s.startup_share;
      j["image_pull_s"] = s.image_pull_s;
      j["compile_cache"] = {{"hits", s.compile_hits}, {"misses", s.compile_misses}, {"waits", s.compile_waits}};
    }
    if (s.dynamic_nodes) {
      j["node_failures"] = s.node_failures;
      j["nodes_launched"] = s.nodes_launched;
      j["nodes_removed"] = s.nodes_removed;
    }
    if (s.spot) j["spot_interruptions"] = s.spot_interruptions;
    if (s.neuron_name_mixes > 0)
      j["neuron_names_mixed"] = {{"nodes", s.neuron_name_mixes}, {"first", s.neuron_name_mix_example},
                                 {"remedy", "request one Neuron resource name across the cluster (aws.amazon.com/neuron)"}};
    if (s.derived) {
      // Where the jobs' time on the nodes went (duration model derived), s and USD.
      json jt = {{"total_s", s.job_time_s()}, {"total_usd", s.job_time_usd()}};
      const std::pair<const char*, const io::RunSummary::Share*> rows[] = {
          {"compute", &s.compute}, {"communication", &s.communication}, {"sync", &s.sync},
          {"compile", &s.compiling}, {"startup", &s.starting}, {"lost", &s.lost}};
      for (const auto& [name, sh] : rows) jt[name] = {{"s", sh->s}, {"usd", sh->usd}};
      j["job_time"] = jt;
      if (s.contention) j["fabric_retimes"] = s.retimes;
    }
    return j;
  }
  const auto& st = m.ep->stats();
  const auto t = m.agg->totals();
  const auto& sc = *m.inference_sc;
  const std::uint64_t reached = st.requests - st.in_flight;
  j["server"] = m.server;
  j["instance_type"] = sc.inference.endpoint.instance_type;
  j["requests"] = st.requests;
  j["served"] = st.served;
  j["rejected_503"] = st.rejected_503;
  j["rejected_507"] = st.rejected_507;
  j["in_flight"] = st.in_flight;
  j["unserved_at_end"] = st.unserved_at_end;
  j["cache_hit_ratio"] = reached > 0 ? static_cast<double>(st.cache_hits) / static_cast<double>(reached) : 0.0;
  j["downloads"] = st.downloads;
  j["loads"] = st.loads;
  j["unloads"] = st.unloads;
  j["workers_added"] = st.workers_added;
  j["workers_retired"] = st.workers_retired;
  j["max_workers_seen"] = st.max_workers_seen;
  j["max_queue_seen"] = st.max_queue_seen;
  j["instances_launched"] = st.instances_launched;
  j["instance_hours"] = st.instance_seconds / 3600.0;
  j["cost_usd"] = st.cost_usd;
  j["status_5xx"] = t.status_5xx;
  j["model_latency"] = latency_json(m.agg->model_latency_summary());
  j["overhead_latency"] = latency_json(m.agg->overhead_latency_summary());
  j["end_to_end_latency"] = latency_json(m.agg->end_to_end_latency_summary());
  j["histogram_relative_error"] = m.agg->model_latency().relative_error_bound();
  j["peak_minute_p99_model_latency_us"] = m.peaks->worst_p99_us;
  j["peak_minute_invocations"] = m.peaks->busiest;
  const double p99_ms = m.agg->model_latency_summary().p99_us / 1000.0;
  const double ratio_5xx = t.invocations > 0 ? static_cast<double>(t.status_5xx) / static_cast<double>(t.invocations) : 0.0;
  j["slo"] = {{"p99_model_latency_ms", sc.inference.slo.p99_model_latency_ms},
              {"max_5xx_ratio", sc.inference.slo.max_5xx_ratio},
              {"p99_met", sc.inference.slo.p99_model_latency_ms <= 0 || p99_ms <= sc.inference.slo.p99_model_latency_ms},
              {"5xx_met", ratio_5xx <= sc.inference.slo.max_5xx_ratio}};
  return j;
}

nlohmann::json Run::state_json() const {
  const Impl& m = *impl_;
  json j = {{"now_s", m.sim.now().seconds()}, {"now_ns", m.sim.now().ns()}, {"events", m.sim.stats().events_fired}};
  if (m.cluster) {
    const policy::ClusterState& cs = m.cluster->state();
    j["submitted"] = m.cluster->submitted();
    j["ended"] = m.cluster->ended();
    j["jobs_total"] = m.cluster->total_jobs();
    json nodes = json::array();
    for (const auto& n : cs.nodes()) {
      const models::InstanceType* nt = m.training_sc ? m.training_sc->training.catalog.find(n.instance_type) : nullptr;
      const int cpd = nt && nt->neuroncores_per_chip > 0 ? nt->neuroncores_per_chip : 2;
      nodes.push_back({{"name", n.name},
                       {"instance_type", n.instance_type},
                       {"neuroncores_allocatable", n.allocatable.scalars.get(policy::rn::kNeuronCore) / 1000.0},
                       {"neuroncores_used", models::neuroncores_in(n.used, cpd)},
                       {"cpu_used", n.used.milli_cpu / 1000.0},
                       {"memory_used_bytes", n.used.memory},
                       {"pods", n.task_count}});
    }
    j["nodes"] = nodes;
    json jobs = json::array();
    for (const auto& job : cs.jobs()) {
      if (!job.live || job.phase == policy::PodGroupPhase::Completed) continue;
      json tasks = json::array();
      for (policy::TaskId t : job.tasks) {
        const policy::TaskInfo& ti = cs.task(t);
        tasks.push_back({{"name", ti.name}, {"status", policy::to_string(ti.status)},
                         {"node", ti.node == policy::kNone ? json(nullptr) : json(cs.node(ti.node).name)}});
      }
      jobs.push_back({{"name", job.name}, {"queue", cs.queue(job.queue).name}, {"phase", policy::to_string(job.phase)},
                      {"min_available", job.min_available}, {"pods", tasks}});
    }
    j["jobs"] = jobs;  // jobs not yet completed
    return j;
  }
  const auto& st = m.ep->stats();
  j["requests"] = st.requests;
  j["in_flight"] = st.in_flight;
  j["served"] = st.served;
  j["rejected_503"] = st.rejected_503;
  j["rejected_507"] = st.rejected_507;
  json instances = json::array();
  int workers = 0;
  for (const auto& in : m.ep->snapshot()) {
    json models = json::array();
    for (const auto& ms : in.models) {
      workers += ms.workers;
      models.push_back({{"model", ms.model}, {"state", ms.state}, {"workers", ms.workers}, {"workers_busy", ms.workers_busy},
                        {"workers_starting", ms.workers_starting}, {"queue", ms.queue}, {"outstanding", ms.outstanding},
                        {"waiting_for_load", ms.waiting_for_load}});
    }
    instances.push_back({{"id", in.id}, {"state", in.state}, {"launched_s", in.launched.seconds()},
                         {"memory_used_bytes", in.memory_used}, {"memory_capacity_bytes", in.memory_capacity},
                         {"disk_used_bytes", in.disk_used}, {"disk_capacity_bytes", in.disk_capacity}, {"vcpu", in.vcpu},
                         {"batches_running", in.batches_running}, {"outstanding", in.outstanding},
                         {"artifacts_on_disk", in.artifacts_on_disk}, {"models", models}});
  }
  j["workers"] = workers;
  j["instances"] = instances;
  return j;
}

store::ResultTable Run::query(const std::string& sql) { return impl_->db->query(sql); }

}  // namespace mltwin::runner
