// mltwin — command-line front end.
//
//   mltwin run SCENARIO [--out FILE] [--seed N] [--until TIME] [--data DIR] [--max-jobs N] [--replications N]
//   mltwin validate SCENARIO [--data DIR] [--max-jobs N]
//   mltwin explain RUN.sqlite JOB
//   mltwin trace RUN.sqlite [--out FILE.json]
//
// The summary goes to stdout, progress and errors to stderr. Exit status: 0 success, 1 a
// runtime failure, 2 bad input (scenario, trace, arguments), 130 interrupted by Ctrl-C (the
// database then holds everything up to the interruption).
//
// The run itself is mltwin::runner::Run (runner/), which the Python module drives too; this
// file adds the command line, progress, checkpoints and Ctrl-C.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>

#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/runner/explain.hpp"
#include "mltwin/runner/replications.hpp"
#include "mltwin/runner/run.hpp"
#include "mltwin/runner/trace_export.hpp"

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

using namespace mltwin;


int cmd_validate(const std::string& path, const std::string& data, std::size_t max_jobs) {
  io::LoadOptions opts;
  opts.data_dir = data;
  if (io::scenario_kind(path) == io::ScenarioKind::Inference) {
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
  if (max_jobs > 0) opts.overrides = {{"workload", {{"philly", {{"max_jobs", max_jobs}}}}}};
  const io::LoadedScenario sc = io::load_scenario(path, opts);
  std::size_t nodes = 0;
  for (const auto& g : sc.training.node_groups) nodes += static_cast<std::size_t>(g.count);
  fmt::print("{}: valid — scenario '{}': {} nodes in {} node group(s), {} queues, {} jobs, Volcano {}\n", path, sc.name,
             nodes, sc.training.node_groups.size(), sc.training.queues.size(), sc.training.jobs.size(),
             io::kVolcanoRelease);
  return 0;
}

/// Drives an open run to `until` (or its end) in chunks of simulated time: checkpoints, stops
/// on Ctrl-C, prints progress on stderr; then finishes it. Returns true if interrupted.
bool drive(runner::Run& run, core::Time until, bool progress, double& wall) {
  const bool training = run.kind() == runner::Kind::Training;
  // Progress and checkpoints by simulated time: a training run spans months, an inference
  // run hours. A checkpoint commits to disk (a few ms), so they are rare.
  const core::Duration chunk = training ? core::Duration::s(3600) : core::Duration::s(60);
  const core::Duration checkpoint_every = training ? core::Duration::s(86400) : core::Duration::s(3600);
  const bool tty = isatty(STDERR_FILENO) != 0;

  const auto wall0 = std::chrono::steady_clock::now();
  auto last_print = wall0;
  core::Time next_checkpoint = core::Time::zero() + checkpoint_every;
  bool interrupted = false;
  for (;;) {
    const core::Time next = run.next_time();
    if (next == core::Time::max() || next > until) break;
    run.run_until(std::min(next + chunk, until));
    if (run.now() >= next_checkpoint) {
      run.checkpoint();
      next_checkpoint = run.now() + checkpoint_every;
    }
    if (g_interrupted.load()) {
      interrupted = true;
      break;
    }
    const auto now_wall = std::chrono::steady_clock::now();
    if (progress && now_wall - last_print > std::chrono::milliseconds(tty ? 250 : 10000)) {
      last_print = now_wall;
      const std::string msg = run.status_line(std::chrono::duration<double>(now_wall - wall0).count());
      std::cerr << (tty ? "\r" + msg + "   " : msg + "\n") << std::flush;
    }
  }
  if (tty && progress) std::cerr << "\r" << std::string(100, ' ') << "\r";

  store::EndReason reason = store::EndReason::Completed;
  if (interrupted) {
    reason = store::EndReason::Interrupted;
  } else if (!run.done()) {
    reason = store::EndReason::Until;
    run.run_until(until);  // the clock reads the --until time
  }
  run.finish(reason);
  wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return interrupted;
}

/// results/x.sqlite -> results/x-seed7.sqlite (the database of one replication).
std::string replication_out(const std::string& out, std::uint64_t seed) {
  if (out.empty()) return out;  // the default name already carries the seed
  const std::string ext = ".sqlite";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + "-seed" + std::to_string(seed) + ext;
  return out + "-seed" + std::to_string(seed);
}

int cmd_run(const std::string& path, const std::string& out, std::optional<std::uint64_t> seed,
            const std::string& until_text, const std::string& data, std::size_t max_jobs, bool progress_forced_off,
            std::size_t replications) {
  const core::Time until = runner::parse_until(until_text);
  if (replications == 0) throw std::invalid_argument("--replications 0: expected at least 1");
  runner::RunOptions opts;
  opts.out = out;
  opts.seed = seed;
  opts.data_dir = data;
  opts.max_jobs = max_jobs;
  opts.until_text = until_text;
  // From here on Ctrl-C ends the run cleanly (before, it ends the process: nothing is written
  // yet). Installed before the database file is created, so that once the file exists an
  // interrupt is recorded in it.
  std::signal(SIGINT, on_sigint);
  if (replications == 1) {
    const auto run = runner::Run::open(path, opts);
    double wall = 0;
    const bool interrupted = drive(*run, until, !progress_forced_off, wall);
    run->print_summary(std::cout, wall);
    fmt::print("Results: {}\n", run->out());
    if (interrupted) {
      std::cerr << "interrupted: " << run->out() << " holds the run up to " << runner::human_time(run->now().seconds()) << "\n";
      return 130;
    }
    return 0;
  }

  // Independent replications: seeds s, s+1, ..., each with its own database; then every
  // summary figure's mean and 95 % Student-t interval.
  std::vector<nlohmann::json> summaries;
  std::string random_inputs, name;
  double total_wall = 0;
  // The first seed: --seed, else the scenario's ("seed", default 1). A file that cannot be
  // read here is reported by Run::open below, with its line and column.
  std::uint64_t first_seed = 1;
  if (seed) first_seed = *seed;
  else {
    std::ifstream in(path);
    const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object() && doc.contains("seed") && doc["seed"].is_number_unsigned()) first_seed = doc["seed"].get<std::uint64_t>();
  }
  for (std::size_t k = 0; k < replications; ++k) {
    runner::RunOptions o = opts;
    o.seed = first_seed + k;
    o.out = replication_out(out, first_seed + k);
    const auto run = runner::Run::open(path, o);
    double wall = 0;
    const bool interrupted = drive(*run, until, !progress_forced_off, wall);
    total_wall += wall;
    summaries.push_back(run->summary_json());
    name = run->name();
    if (random_inputs.empty()) {
      const auto t = run->query("SELECT value FROM run_meta WHERE key = 'random_inputs'");
      if (t.rows == 1) random_inputs = t.columns[0].texts[0];
    }
    fmt::print(stderr, "replication {}/{}: seed {} -> {} ({:.1f} s)\n", k + 1, replications, run->seed(), run->out(), wall);
    if (interrupted) {
      std::cerr << "interrupted during replication " << k + 1 << ": " << run->out() << " holds it up to "
                << runner::human_time(run->now().seconds()) << "; no statistics\n";
      return 130;
    }
  }
  const auto stats = runner::replication_stats(summaries, 0.95);
  fmt::print("Scenario {}: {} replications, seeds {}..{} ({:.1f} s wall)\n", name, replications, first_seed,
             first_seed + replications - 1, total_wall);
  fmt::print("The seed changes: {}\n", random_inputs.empty() ? "(not recorded)" : random_inputs);
  fmt::print("Mean and 95 % confidence interval (Student t, n - 1 degrees of freedom) of each summary figure:\n");
  fmt::print("  {:<44} {:>16} {:>14} {:>14} {:>14}\n", "figure", "mean", "± (95 %)", "min", "max");
  for (const auto& f : stats) {
    if (f.name == "events" || f.name == "sim_end_s") continue;
    fmt::print("  {:<44} {:>16.6g} {:>14.4g} {:>14.6g} {:>14.6g}\n", f.name, f.mean, f.half_width, f.min, f.max);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mltwin — a discrete-event digital twin of ML infrastructure on AWS (EKS + Trainium + Volcano; SageMaker MME + DJL Serving)"};
  app.set_version_flag("--version", std::string(runner::version()) + " (" + runner::git_sha() + ")");
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
  std::size_t replications = 1;
  run->add_option("--replications", replications,
                  "run N seeds (the scenario's or --seed, then +1, +2, ...), each with its own database, and print "
                  "every summary figure's mean with its 95 % confidence interval");
  auto* val = app.add_subcommand("validate", "check a scenario (and its trace) without running it");
  val->add_option("scenario", scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  val->add_option("--data", data, "data folder for ${MLTWIN_DATA}");
  val->add_option("--max-jobs", max_jobs, "Philly workloads: keep only the first N jobs by submit time (0: all)");
  std::string database, job;
  auto* explain = app.add_subcommand("explain", "why a training job waited: its phases, each wait's deciding plugin and reason, what ended it");
  explain->add_option("database", database, "results database of a training run")->required()->check(CLI::ExistingFile);
  explain->add_option("job", job, "job name (e.g. philly-01156) or id")->required();
  std::string trace_out;
  auto* trace = app.add_subcommand("trace", "write a run as a Chrome/Perfetto trace (open it in ui.perfetto.dev)");
  trace->add_option("database", database, "results database of a run")->required()->check(CLI::ExistingFile);
  trace->add_option("--out,-o", trace_out, "trace file, replaced if it exists (default: the database with .trace.json)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every other command-line error is bad input (2).
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*run) return cmd_run(scenario, out, seed, until, data, max_jobs, no_progress, replications);
    if (*trace) {
      if (trace_out.empty()) {
        trace_out = database;
        if (auto dot = trace_out.rfind(".sqlite"); dot != std::string::npos && dot + 7 == trace_out.size()) trace_out.resize(dot);
        trace_out += ".trace.json";
      }
      const auto st = runner::export_trace(database, trace_out);
      fmt::print("{}: {} slices, {} instant events, {} counter samples; open it in https://ui.perfetto.dev\n", trace_out,
                 st.slices, st.instants, st.counters);
      return 0;
    }
    if (*explain) {
      std::cout << runner::explain_job(database, job);
      return 0;
    }
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
