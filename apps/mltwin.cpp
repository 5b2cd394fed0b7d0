// mltwin — command-line front end.
//
//   mltwin run SCENARIO [--out FILE] [--seed N] [--until TIME] [--data DIR] [--max-jobs N]
//   mltwin validate SCENARIO [--data DIR] [--max-jobs N]
//
// The summary goes to stdout, progress and errors to stderr. Exit status: 0 success, 1 a
// runtime failure, 2 bad input (scenario, trace, arguments), 130 interrupted by Ctrl-C (the
// database then holds everything up to the interruption).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/inference_report.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/inference.hpp"
#include "mltwin/models/serving_metrics.hpp"
#include "mltwin/models/training.hpp"
#include "mltwin/store/sqlite_store.hpp"
#include "mltwin_git_sha.hpp"  // generated at build time by apps/git_sha.cmake: MLTWIN_GIT_SHA

#ifndef MLTWIN_GIT_SHA
#define MLTWIN_GIT_SHA "unknown"
#endif
#ifndef MLTWIN_VERSION
#define MLTWIN_VERSION "0.0.0"
#endif

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

using namespace mltwin;

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
  void checkpoint(core::Time now) override { to->checkpoint(now); }
};

// The metrics aggregator hands each closed period to this, which notes the worst minute and
// passes it on to the store.
class MinutePeaks final : public models::inference::ServingRecorder {
 public:
  explicit MinutePeaks(models::inference::ServingRecorder& to) : to_(to) {}
  double worst_p99_us = 0;
  std::uint64_t busiest = 0;
  void request(const models::inference::RequestDone& r) override { to_.request(r); }
  void model_event(const models::inference::ModelEvent& e) override { to_.model_event(e); }
  void worker_event(const models::inference::WorkerEvent& e) override { to_.worker_event(e); }
  void instance_event(const models::inference::InstanceEvent& e) override { to_.instance_event(e); }
  void minute(const models::inference::MinuteMetrics& m) override {
    if (m.model_latency_p99_us == m.model_latency_p99_us) worst_p99_us = std::max(worst_p99_us, m.model_latency_p99_us);
    busiest = std::max(busiest, m.invocations);
    to_.minute(m);
  }
  void checkpoint(core::Time now) override { to_.checkpoint(now); }

 private:
  models::inference::ServingRecorder& to_;
};

std::string human(double s) {
  if (s < 120) return fmt::format("{:.0f}s", s);
  if (s < 7200) return fmt::format("{:.1f}m", s / 60);
  if (s < 172800) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
}

io::LoadOptions load_options(const std::string& data, std::size_t max_jobs) {
  io::LoadOptions opts;
  opts.data_dir = data;
  if (max_jobs > 0) opts.overrides = {{"workload", {{"philly", {{"max_jobs", max_jobs}}}}}};
  return opts;
}

int cmd_validate(const std::string& path, const std::string& data, std::size_t max_jobs) {
  if (io::scenario_kind(path) == io::ScenarioKind::Inference) {
    io::LoadOptions opts;
    opts.data_dir = data;
    const io::LoadedInferenceScenario sc = io::load_inference_scenario(path, opts);
    const auto& e = sc.inference.endpoint;
    fmt::print("{}: valid — inference scenario '{}': {} x {} ({}), {} models, {}\n", path, sc.name,
               e.initial_instances, e.instance_type,
               e.autoscaling ? fmt::format("autoscaling {}..{}", e.min_instances, e.max_instances) : "fixed fleet",
               sc.inference.models.size(),
               sc.inference.server.kind == models::inference::ServerSpec::Kind::Mms
                   ? std::string("MMS ") + policy::serving::kMmsRelease
                   : std::string("DJL Serving ") + policy::serving::kDjlServingRelease);
    return 0;
  }
  const io::LoadOptions opts = load_options(data, max_jobs);
  const io::LoadedScenario sc = io::load_scenario(path, opts);
  std::size_t nodes = 0;
  for (const auto& g : sc.training.node_groups) nodes += static_cast<std::size_t>(g.count);
  fmt::print("{}: valid — scenario '{}': {} nodes in {} node group(s), {} queues, {} jobs, Volcano {}\n", path, sc.name,
             nodes, sc.training.node_groups.size(), sc.training.queues.size(), sc.training.jobs.size(),
             io::kVolcanoRelease);
  return 0;
}

core::Time parse_until(const std::string& until_text) {
  core::Time until = core::Time::max();
  if (!until_text.empty()) {
    try {
      until = core::Time::zero() + core::parse_duration(until_text);
    } catch (const std::exception& e) {
      throw std::invalid_argument("--until " + until_text + ": expected a time such as 90s, 30m, 12h, 7d (" + e.what() + ")");
    }
    if (until <= core::Time::zero()) throw std::invalid_argument("--until " + until_text + ": expected a positive time");
  }
  return until;
}

/// Drives `sim` to `until` in chunks of simulated time: checkpoints the store every
/// `checkpoint_every`, stops on Ctrl-C, and prints `status()` on stderr (every 250 ms on a
/// terminal, every 10 s otherwise) unless progress is off. Returns true if interrupted.
template <class Status>
bool drive(core::Simulator& sim, core::Time until, core::Duration chunk, core::Duration checkpoint_every,
           store::SqliteStore& db, bool progress, Status status) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto wall0 = std::chrono::steady_clock::now();
  auto last_print = wall0;
  core::Time next_checkpoint = core::Time::zero() + checkpoint_every;
  bool interrupted = false;
  for (;;) {
    const core::Time next = sim.next_time();
    if (next == core::Time::max() || next > until) break;
    sim.run_until(std::min(next + chunk, until));
    if (sim.now() >= next_checkpoint) {
      db.checkpoint(sim.now());
      next_checkpoint = sim.now() + checkpoint_every;
    }
    if (g_interrupted.load()) {
      interrupted = true;
      break;
    }
    const auto now_wall = std::chrono::steady_clock::now();
    if (progress && now_wall - last_print > std::chrono::milliseconds(tty ? 250 : 10000)) {
      last_print = now_wall;
      const double wall = std::chrono::duration<double>(now_wall - wall0).count();
      const std::string msg = status(wall);
      std::cerr << (tty ? "\r" + msg + "   " : msg + "\n") << std::flush;
    }
  }
  if (tty && progress) std::cerr << "\r" << std::string(100, ' ') << "\r";
  return interrupted;
}

/// An inference run: a multi-model endpoint (models/inference.hpp) driven by its scenario's
/// traffic; per-request records (sampled), model/worker/instance events and per-minute
/// CloudWatch-style metrics into SQLite; the summary on stdout.
int cmd_run_inference(const std::string& path, std::string out, std::optional<std::uint64_t> seed_opt,
                      const std::string& until_text, const std::string& data, bool progress_forced_off) {
  namespace inf = models::inference;
  io::LoadOptions opts;
  opts.data_dir = data;
  const io::LoadedInferenceScenario sc = io::load_inference_scenario(path, opts);
  const std::uint64_t seed = seed_opt.value_or(sc.seed);
  const core::Time until = parse_until(until_text);
  if (out.empty()) out = "results/" + sc.name + "-seed" + std::to_string(seed) + ".sqlite";
  if (auto parent = std::filesystem::path(out).parent_path(); !parent.empty()) std::filesystem::create_directories(parent);

  core::Simulator sim;
  core::RngStreams rng(seed);
  const bool mms = sc.inference.server.kind == inf::ServerSpec::Kind::Mms;

  store::RunMetadata meta;
  meta.kind = store::RunKind::Inference;
  meta.scenario_path = std::filesystem::path(path).filename().string();
  meta.scenario_json = sc.json.dump();
  meta.seed = seed;
  meta.git_sha = MLTWIN_GIT_SHA;
  meta.mltwin_version = MLTWIN_VERSION;
  meta.until = until_text;
  meta.request_sampling.record_full = sc.inference.output.request_records_full;
  meta.request_sampling.sample_every = sc.inference.output.request_sample_every;
  meta.inputs.push_back(store::hash_input_file("scenario", path));
  meta.inputs.back().path = meta.scenario_path;
  for (const auto& in : sc.inputs) {
    meta.inputs.push_back(store::hash_input_file(in.role, in.path));
    meta.inputs.back().path = in.as_written;
  }
  meta.extra["model_server"] = mms ? std::string("MMS ") + policy::serving::kMmsRelease
                                   : std::string("DJL Serving ") + policy::serving::kDjlServingRelease;
  meta.extra["random_inputs"] =
      "arrival times and model choices (traffic), service times, OverheadLatency, S3 first byte, "
      "load / unload / worker start-up / instance start-up / health-check times (per their "
      "distributions), Locust waits";
  // The streams the model will draw from (recorded so a reader knows which inputs are random).
  meta.rng_streams = {"endpoint.latencies", "endpoint.overhead", "serving.service_time", "traffic.arrivals",
                      "traffic.locust_wait", "traffic.models"};
  std::signal(SIGINT, on_sigint);
  store::SqliteStore db(out, meta);
  MinutePeaks peaks(db);
  inf::MetricsAggregator agg(sc.inference.output.metrics_period, core::Time::zero(), &peaks);
  inf::Endpoint ep(sim, sc.inference, rng, &db, &agg, inf::default_policies(sc.inference));

  const auto wall0 = std::chrono::steady_clock::now();
  ep.start();
  const bool interrupted =
      drive(sim, until, core::Duration::s(60), core::Duration::s(3600), db, !progress_forced_off, [&](double wall) {
        const auto& st = ep.stats();
        return fmt::format("sim {}  requests {} ({} in flight)  wall {:.1f}s  {:.2f}M events/s",
                           human(sim.now().seconds()), st.requests, st.in_flight, wall,
                           static_cast<double>(sim.stats().events_fired) / wall / 1e6);
      });
  store::EndReason reason = store::EndReason::Completed;
  if (interrupted) reason = store::EndReason::Interrupted;
  else if (until != core::Time::max() && sim.next_time() != core::Time::max()) {
    reason = store::EndReason::Until;
    sim.run_until(until);
  }
  ep.finish();
  db.record_end(reason, sim.now());
  db.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  io::InferenceSummary s;
  s.scenario = sc.name;
  s.seed = seed;
  s.server = meta.extra["model_server"] + (mms ? " (static workers)" : " (WLM worker autoscaling)");
  s.instance_type = sc.inference.endpoint.instance_type;
  s.sim_end_s = sim.now().seconds();
  s.stats = ep.stats();
  s.totals = agg.totals();
  s.model_latency = agg.model_latency_summary();
  s.overhead_latency = agg.overhead_latency_summary();
  s.end_to_end = agg.end_to_end_latency_summary();
  s.histogram_relative_error = agg.model_latency().relative_error_bound();
  s.peak_minute_p99_model_latency_us = peaks.worst_p99_us;
  s.peak_minute_invocations = peaks.busiest;
  const std::uint64_t reached = s.stats.requests - s.stats.in_flight;
  s.cache_hit_ratio = reached > 0 ? static_cast<double>(s.stats.cache_hits) / static_cast<double>(reached) : 0.0;
  s.p99_slo_ms = sc.inference.slo.p99_model_latency_ms;
  s.max_5xx_ratio = sc.inference.slo.max_5xx_ratio;
  s.events = sim.stats().events_fired;
  s.wall_s = wall;
  io::print_inference_summary(std::cout, s);
  fmt::print("Results: {}\n", out);
  if (interrupted) {
    std::cerr << "interrupted: " << out << " holds the run up to " << human(sim.now().seconds()) << "\n";
    return 130;
  }
  return 0;
}

int cmd_run(const std::string& path, std::string out, std::optional<std::uint64_t> seed_opt, const std::string& until_text,
            const std::string& data, std::size_t max_jobs, bool progress_forced_off) {
  if (io::scenario_kind(path) == io::ScenarioKind::Inference)
    return cmd_run_inference(path, out, seed_opt, until_text, data, progress_forced_off);
  const io::LoadOptions opts = load_options(data, max_jobs);
  const io::LoadedScenario sc = io::load_scenario(path, opts);
  const std::uint64_t seed = seed_opt.value_or(sc.seed);
  const core::Time until = parse_until(until_text);
  if (out.empty()) out = "results/" + sc.name + "-seed" + std::to_string(seed) + ".sqlite";
  if (auto parent = std::filesystem::path(out).parent_path(); !parent.empty()) std::filesystem::create_directories(parent);

  core::Simulator sim;
  core::RngStreams rng(seed);
  Forward fwd;
  models::TrainingCluster cluster(sc.training, sim, rng, fwd);

  // Nothing stored may depend on where the run was started from or on how the scenario and the
  // data folder were spelled (relative, absolute, --data, MLTWIN_DATA, found by search): the
  // scenario is recorded by file name, its inputs as the scenario writes them, each with its
  // SHA-256. So one scenario, inputs and seed give byte-identical databases.
  store::RunMetadata meta;
  meta.scenario_path = std::filesystem::path(path).filename().string();
  meta.scenario_json = sc.json.dump();
  meta.seed = seed;
  meta.git_sha = MLTWIN_GIT_SHA;
  meta.volcano_release = io::kVolcanoRelease;
  meta.mltwin_version = MLTWIN_VERSION;
  meta.until = until_text;
  meta.rng_streams = rng.names();
  meta.inputs.push_back(store::hash_input_file("scenario", path));
  meta.inputs.back().path = meta.scenario_path;
  for (const auto& in : sc.inputs) {
    meta.inputs.push_back(store::hash_input_file(in.role, in.path));
    meta.inputs.back().path = in.as_written;
  }
  meta.extra["random_inputs"] =
      "bind latency, pod start-up latency (per their distributions), Kubernetes UIDs (order of "
      "jobs submitted in the same second), Volcano's node tie-break";
  // From here on Ctrl-C ends the run cleanly (before, it ends the process: nothing is written
  // yet). Installed before the database file is created, so that once the file exists an
  // interrupt is recorded in it.
  std::signal(SIGINT, on_sigint);
  store::SqliteStore db(out, meta);
  fwd.to = &db;

  const auto wall0 = std::chrono::steady_clock::now();
  const double span = sc.training.jobs.empty() ? 1.0 : std::max(1.0, sc.training.jobs.back().submit.seconds());
  cluster.start();
  const bool interrupted =
      drive(sim, until, core::Duration::s(3600), core::Duration::s(86400), db, !progress_forced_off, [&](double wall) {
        const double frac = std::min(1.0, sim.now().seconds() / span);
        const int width = 30, filled = static_cast<int>(frac * width);
        return fmt::format("[{}{}] {:3.0f}%  sim {}  jobs {}/{} ended  wall {:.1f}s  {:.2f}M events/s",
                           std::string(filled, '='), std::string(width - filled, ' '), frac * 100,
                           human(sim.now().seconds()), cluster.ended(), cluster.total_jobs(), wall,
                           static_cast<double>(sim.stats().events_fired) / wall / 1e6);
      });
  const core::Time end = interrupted ? sim.now() : (until != core::Time::max() && sim.next_time() != core::Time::max()
                                                        ? until
                                                        : std::max(cluster.last_event(), core::Time::zero()));
  std::string note;
  store::EndReason reason = store::EndReason::Completed;
  if (interrupted) {
    note = "run interrupted at " + human(end.seconds());
    reason = store::EndReason::Interrupted;
  } else if (until != core::Time::max() && sim.next_time() != core::Time::max()) {
    note = "still waiting at --until " + until_text;
    reason = store::EndReason::Until;
  }
  cluster.finish(end, note);
  db.record_end(reason, end);
  db.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  io::RunSummary s = io::summarize(sc.name, seed, sc.training, cluster, end.seconds());
  s.events = sim.stats().events_fired;
  s.wall_s = wall;
  io::print_summary(std::cout, s);
  fmt::print("Events: {} in {:.2f} s wall ({:.2f} M events/s)\nResults: {}\n", s.events, wall,
             static_cast<double>(s.events) / wall / 1e6, out);
  if (interrupted) {
    std::cerr << "interrupted: " << out << " holds the run up to " << human(end.seconds()) << "\n";
    return 130;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mltwin — a discrete-event digital twin of ML infrastructure on AWS (EKS + Trainium + Volcano; SageMaker MME + DJL Serving)"};
  app.set_version_flag("--version", std::string(MLTWIN_VERSION) + " (" + MLTWIN_GIT_SHA + ")");
  app.require_subcommand(1);
  std::string scenario, out, until, data;
  std::optional<std::uint64_t> seed;
  bool no_progress = false;
  std::size_t max_jobs = 0;
  auto* run = app.add_subcommand("run", "run a scenario and write its SQLite results database");
  run->add_option("scenario", scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  run->add_option("--out,-o", out, "results database, replaced if it exists (default results/<name>-seed<N>.sqlite)");
  run->add_option("--seed", seed, "run seed (default: the scenario's)");
  run->add_option("--until", until, "stop at this simulated time, e.g. 30d, 12h; jobs still waiting are reported");
  run->add_option("--data", data,
                  "data folder for ${MLTWIN_DATA} (default $MLTWIN_DATA, else the first shared/data folder above the scenario)");
  run->add_flag("--no-progress", no_progress, "no progress bar on stderr");
  run->add_option("--max-jobs", max_jobs, "Philly workloads: keep only the first N jobs by submit time (0: all)");
  auto* val = app.add_subcommand("validate", "check a scenario (and its trace) without running it");
  val->add_option("scenario", scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  val->add_option("--data", data, "data folder for ${MLTWIN_DATA}");
  val->add_option("--max-jobs", max_jobs, "Philly workloads: keep only the first N jobs by submit time (0: all)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every other command-line error is bad input (2).
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*run) return cmd_run(scenario, out, seed, until, data, max_jobs, no_progress);
    return cmd_validate(scenario, data, max_jobs);
  } catch (const io::ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
