// mltwin — command-line front end.
//
//   mltwin run SCENARIO [--out FILE] [--summary-json FILE] [--seed N] [--until TIME] [--data DIR] [--max-jobs N] [--replications N] [--force] [--strict] [--check-promises]
//   mltwin validate SCENARIO [--data DIR] [--max-jobs N] [--strict]
//   mltwin validate HISTORY [--strict]          (a job history on its own: CSV, kubectl vcjob list, Prometheus export)
//   mltwin explain RUN.sqlite JOB
//   mltwin trace RUN.sqlite [--out FILE.json]
//   mltwin plugins
//   mltwin policies
//
// The summary goes to stdout, progress and errors to stderr. Exit status (kExitStatus below,
// also in --help and docs/cli.md): 0 success, 1 a runtime failure, 2 bad input (scenario,
// trace, arguments), 128 + the signal for a run stopped by one: 130 SIGINT (Ctrl-C), 143
// SIGTERM, 129 SIGHUP.
//
// `run` writes its database beside the target and renames it over the target only when the
// run ends as asked (runner::Output::ReplaceAtEnd): a run stopped by a signal or an error
// leaves the previous results untouched and its own as NAME.partial.sqlite, with its
// end_reason; --summary-json FILE is written the same way, and only by a run that ends as
// asked (runner::RunOptions::summary_json_out). Signals: SIGINT ends the run as `interrupted`,
// SIGTERM and SIGHUP as `terminated`; before the database exists (loading the scenario and its
// trace) they end the process at once, with the same exit status and nothing written.
//
// The run itself is mltwin::runner::Run (runner/), which the Python module drives too; this
// file adds the command line, progress, checkpoints and signals.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <set>

#include "mltwin/core/time.hpp"
#include "mltwin/policy/serving.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/version.hpp"
#include "mltwin/io/job_history.hpp"
#include "mltwin/io/catalog.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/run_estimate.hpp"
#include "mltwin/models/inference.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/runner/compare_history.hpp"
#include "mltwin/runner/explain.hpp"
#include "mltwin/runner/replications.hpp"
#include "mltwin/runner/run.hpp"
#include "mltwin/runner/trace_export.hpp"
#include "mltwin/store/sqlite_store.hpp"

namespace {

constexpr const char* kExitStatus =
    "Exit status: 0 ok; 1 runtime failure (e.g. the disk is full); 2 bad input (scenario, trace, command line; a run "
    "too large to start without --force); "
    "130 stopped by SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP. A run that does not end as asked (a signal, an "
    "error) leaves an existing --out file untouched and its own database as NAME.partial.sqlite, with its end_reason.";

// Signals. Until a run's database exists, a signal ends the process at once (nothing to
// record, nothing to clean up); once it exists, the first signal is noted here and the run
// stops at its next check (every simulated hour of a training run, minute of an inference
// run) and records it.
std::atomic<int> g_signal{0};
std::atomic<bool> g_recording{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_signal(int sig) {
  if (!g_recording.load()) {
    // Only async-signal-safe calls here: write(2) and _exit(2).
    static constexpr char kInt[] = "\nmltwin: interrupted (SIGINT) while setting up the run; no database was written\n";
    static constexpr char kTerm[] = "\nmltwin: terminated (SIGTERM) while setting up the run; no database was written\n";
    static constexpr char kHup[] = "\nmltwin: hung up (SIGHUP) while setting up the run; no database was written\n";
    const char* msg = sig == SIGINT ? kInt : sig == SIGTERM ? kTerm : kHup;
    const std::size_t len = sig == SIGINT ? sizeof kInt - 1 : sig == SIGTERM ? sizeof kTerm - 1 : sizeof kHup - 1;
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, len);
    ::_exit(128 + sig);
  }
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);  // the first signal decides
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;  // a system call the signal interrupts (a write of SQLite's) resumes
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, reported as an error like a
  // full disk, instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
}

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal"; }

/// SIGINT: interrupted (the user asked); SIGTERM, SIGHUP: terminated (the process was told to end).
mltwin::store::EndReason reason_of(int sig) {
  return sig == SIGINT ? mltwin::store::EndReason::Interrupted : mltwin::store::EndReason::Terminated;
}

using namespace mltwin;

/// A flag's value as an unsigned integer in [lo, hi]: decimal digits only (no sign, no
/// spaces, no exponent). Throws std::invalid_argument naming the flag.
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t lo, std::uint64_t hi,
                          const std::string& expected) {
  std::uint64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const auto [p, ec] = std::from_chars(first, last, v);
  if (!digits || ec != std::errc() || p != last || v < lo || v > hi)
    throw std::invalid_argument(flag + " " + (text.empty() ? "''" : text) + ": expected " + expected);
  return v;
}

// ---- size limits (issue 14, item 5): the estimate, and --force ----------------------------

/// Why the run exceeds the limits, with its estimate; empty if it does not.
std::string size_problem(const io::RunEstimate& e) {
  const std::vector<std::string> over = io::over_limits(e, io::RunLimits::for_this_machine());
  if (over.empty()) return {};
  std::string msg;
  for (const auto& o : over) msg += "\n  - " + o;
  return msg + "\n  estimate: " + io::describe(e) + "\n  memory: " + e.memory_terms + "\n  database: " + e.database_terms;
}

/// RunOptions::check_estimate of `mltwin run`: refuses a run beyond the limits (exit 2) unless
/// --force, which runs it with a warning.
void check_size(const io::RunEstimate& e, const std::string& scenario, bool force) {
  const std::string problem = size_problem(e);
  if (problem.empty()) return;
  if (!force)
    throw io::ScenarioError(scenario + ": the run is too large to start without --force:" + problem +
                            "\n  Run it anyway with --force, or make it smaller (--until; fewer nodes, jobs, instances, models "
                            "or users; a longer metrics interval). Limits and per-object costs: docs/limits.md");
  std::cerr << "warning: " << scenario << ": the run is beyond the size limits (--force: running it anyway):" << problem << "\n";
}

/// validate's last line(s): the estimate, and whether `mltwin run` would refuse the run.
void print_estimate(const io::RunEstimate& e) {
  fmt::print("estimate: {}\n  memory: {}\n  database: {}\n", io::describe(e), e.memory_terms, e.database_terms);
  if (const std::string problem = size_problem(e); !problem.empty())
    fmt::print("mltwin run refuses it without --force:{}\n", problem.substr(0, problem.find("\n  estimate: ")));
}

int cmd_validate(const std::string& path, const std::string& data, const std::string& catalog, std::size_t max_jobs,
                 bool strict) {
  // A job history on its own (a CSV, a kubectl list of Volcano Jobs, a Prometheus export):
  // what it holds, without a scenario (docs/cli.md).
  if (io::looks_like_job_history(path)) {
    const io::JobHistory h = io::read_job_history(path);
    std::size_t skipped = 0;
    for (const auto& j : h.jobs) skipped += j.unmodelled.empty() ? 0 : 1;
    if (strict && skipped > 0) {
      for (const auto& j : h.jobs)
        if (!j.unmodelled.empty())
          throw std::invalid_argument(j.where("tasks") + ": Job '" + j.name + "' (namespace " + j.ns + ") would be skipped: " + j.unmodelled +
                                      " (--strict: warnings are errors)");
    }
    std::cout << io::describe_history(path, h);
    return 0;
  }
  runner::RunOptions opts;
  opts.data_dir = data;
  opts.catalog = catalog;
  opts.strict = strict;
  opts.max_jobs = max_jobs;
  opts.command_line = true;
  const runner::Validation v = runner::validate(path, opts);
  for (const auto& w : v.warnings) std::cerr << "warning: " << w << "\n";
  fmt::print("{}: valid{} — {}\n", path,
             v.warnings.empty() ? std::string() : fmt::format(" with {} warning(s) (--strict refuses them)", v.warnings.size()),
             v.description);
  print_estimate(v.estimate);
  return 0;
}

/// How drive() ended a run.
struct Ended {
  store::EndReason reason = store::EndReason::Completed;
  int signal = 0;  ///< the signal that stopped it, or 0
  double wall = 0;
};

/// Drives an open run to `until` (or its end) in chunks of simulated time: checkpoints, stops
/// on a signal, prints progress on stderr; then finishes it. An error while running (a
/// policy, the database) abandons the run as failed and is rethrown; so is one while
/// finishing (Run::finish records it the same way).
Ended drive(runner::Run& run, core::Time until, bool progress) {
  // Progress and checkpoints by simulated time, as the world's span asks. A checkpoint
  // commits to disk (a few ms), so they are rare.
  const core::Duration chunk = run.progress_chunk();
  const core::Duration checkpoint_every = run.checkpoint_interval();
  const bool tty = isatty(STDERR_FILENO) != 0;

  const auto wall0 = std::chrono::steady_clock::now();
  auto last_print = wall0;
  core::Time next_checkpoint = core::Time::zero() + checkpoint_every;
  Ended e;
  try {
    for (;;) {
      if ((e.signal = g_signal.load()) != 0) break;  // also one that came while the run was set up
      const core::Time next = run.next_time();
      if (next == core::Time::max() || next > until) break;
      run.run_until(std::min(next + chunk, until));
      if (run.now() >= next_checkpoint) {
        run.checkpoint();
        next_checkpoint = run.now() + checkpoint_every;
      }
      const auto now_wall = std::chrono::steady_clock::now();
      if (progress && now_wall - last_print > std::chrono::milliseconds(tty ? 250 : 10000)) {
        last_print = now_wall;
        const std::string msg = run.status_line(std::chrono::duration<double>(now_wall - wall0).count());
        std::cerr << (tty ? "\r" + msg + "   " : msg + "\n") << std::flush;
      }
    }
  } catch (...) {
    if (tty && progress) std::cerr << "\r" << std::string(100, ' ') << "\r";
    run.abandon(store::EndReason::Failed);
    throw;
  }
  if (tty && progress) std::cerr << "\r" << std::string(100, ' ') << "\r";

  if (e.signal != 0) {
    e.reason = reason_of(e.signal);
  } else if (!run.done()) {
    e.reason = store::EndReason::Until;
    run.run_until(until);  // the clock reads the --until time
  }
  run.finish(e.reason);
  e.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return e;
}

/// Where a run that did not end as asked left its database, for stderr.
std::string where_it_is(const runner::Run& run, store::EndReason reason) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string kept = fs::exists(run.target(), ec)
                               ? "; " + run.target() + " is unchanged"
                               : "; nothing was written to " + run.target();
  if (run.out().empty())
    return "its unfinished database could not record how it ended (" + std::string(store::to_string(reason)) +
           ") and was removed" + kept;
  return "the run up to " + io::human_duration(run.now().seconds()) + " is in " + run.out() + " (end_reason " +
         store::to_string(reason) + ")" + kept;
}

/// results/x.sqlite -> results/x-seed7.sqlite (the database of one replication; `ext`
/// ".json": s.json -> s-seed7.json, its summary).
std::string replication_out(const std::string& out, std::uint64_t seed, const std::string& ext = ".sqlite") {
  if (out.empty()) return out;  // the default name already carries the seed
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + "-seed" + std::to_string(seed) + ext;
  return out + "-seed" + std::to_string(seed);
}

/// The exit status for an error: 2 for bad input, 1 for any other failure.
int exit_status_of(const std::exception& e) {
  return dynamic_cast<const io::ScenarioError*>(&e) != nullptr || dynamic_cast<const std::invalid_argument*>(&e) != nullptr ? 2 : 1;
}

/// An error already written to stderr, with the exit status it calls for.
struct Reported {
  int status = 1;
};

/// The flags of `run`, as given.
struct RunFlags {
  std::string scenario, out, data, until, seed, max_jobs, replications, catalog;
  std::string summary_json;  ///< --summary-json
  bool until_given = false;
  bool summary_json_given = false;
  bool no_progress = false;
  bool force = false;  ///< --force: start a run beyond the size limits
  bool strict = false;  ///< --strict: the scenario's warnings are errors
  bool check_promises = false;  ///< --check-promises
  std::vector<std::string> snapshot_at;  ///< --snapshot-at
  bool anonymize = false;  ///< --anonymize
  std::string name_map;    ///< --name-map
};

/// The largest --max-jobs and --replications: far above any trace or sweep, and small enough
/// that every count fits the types downstream.
constexpr std::uint64_t kMaxJobs = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kMaxReplications = 1'000'000;

constexpr const char* kCatalogHelp =
    "instance catalog to use instead of the shipped one (default: $MLTWIN_CATALOG, else catalog/aws-instance-types.json "
    "of the source tree or share/mltwin/ of an installed mltwin; docs/catalog.md)";

/// `mltwin migrate`: the version-2 text of a version-1 scenario, to `out` (replaced through a
/// file beside it and a rename) or stdout; what became of each pasted row on stderr.
int cmd_migrate(const std::string& path, const std::string& out, const std::string& catalog) {
  std::vector<std::string> notes;
  const std::string text = io::migrate_scenario_file(path, catalog, notes);
  for (const auto& n : notes) std::cerr << "migrate: " << n << "\n";
  if (out.empty()) {
    std::cout << text;
    return 0;
  }
  if (const std::string what = store::not_a_regular_file(out); !what.empty())
    throw std::invalid_argument("--out '" + out + "': " + what + "; expected a regular file or a new path");
  const std::filesystem::path target(out);
  const std::filesystem::path tmp = target.parent_path() / ("." + target.filename().string() + ".migrate-tmp");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) throw std::runtime_error("cannot write '" + tmp.string() + "': " + std::strerror(errno));
  }
  std::filesystem::rename(tmp, target);
  std::cerr << "migrate: wrote " << out << " (schema_version " << io::kScenarioSchemaVersion << ")\n";
  return 0;
}

int cmd_run(const RunFlags& f) {
  // The flags are checked here, with messages naming them, before anything is loaded.
  if (f.until_given && f.until.empty()) throw std::invalid_argument("--until '': expected a time such as 90s, 30m, 12h, 7d");
  if (f.summary_json_given && f.summary_json.empty()) throw std::invalid_argument("--summary-json '': expected a file name");
  const core::Time until = runner::parse_until(f.until, "--until");
  std::optional<std::uint64_t> seed;
  if (!f.seed.empty())
    seed = parse_count("--seed", f.seed, 0, std::numeric_limits<std::uint64_t>::max(),
                       "an integer from 0 to 18446744073709551615");
  const std::size_t max_jobs = f.max_jobs.empty() ? 0
                               : parse_count("--max-jobs", f.max_jobs, 0, kMaxJobs,
                                             "an integer from 0 (all jobs) to " + std::to_string(kMaxJobs));
  const std::size_t replications =
      f.replications.empty() ? 1
                             : parse_count("--replications", f.replications, 1, kMaxReplications,
                                           "an integer from 1 to " + std::to_string(kMaxReplications));
  runner::RunOptions opts;
  opts.out = f.out;
  opts.summary_json_out = f.summary_json;
  opts.seed = seed;
  opts.data_dir = f.data;
  opts.catalog = f.catalog;
  opts.max_jobs = max_jobs;
  opts.until_text = f.until;
  opts.output = runner::Output::ReplaceAtEnd;
  opts.command_line = true;
  // From here on a signal ends the process at once (nothing is written yet) until the run's
  // database is about to be created; from then on it ends the run cleanly and is recorded.
  install_signal_handlers();
  opts.before_database = [] { g_recording.store(true); };
  opts.check_estimate = [&f](const io::RunEstimate& e) { check_size(e, f.scenario, f.force); };
  opts.strict = f.strict;
  opts.check_promises = f.check_promises;
  opts.anonymize = f.anonymize;
  opts.name_map = f.name_map;
  // 0s is allowed here (not for --until): the run's first session, e.g. of a scenario built
  // from a snapshot (cluster.pods_from), whose PodGroups are all submitted at 0s.
  for (const std::string& t : f.snapshot_at) {
    core::Time at = core::Time::max();
    try {
      at = core::Time::zero() + core::parse_duration(t);
    } catch (const std::exception&) {
    }
    // Otherwise parse_until's error (not a time, or negative).
    if (at == core::Time::max() || at < core::Time::zero()) at = runner::parse_until(t, "--snapshot-at");
    opts.snapshot_at.emplace_back(at, t);
  }
  opts.on_snapshot = [](const std::string& file, core::Time at) {
    std::cerr << "snapshot: " << file << " (the session at t = " << io::human_duration(at.seconds())
              << ", the first at or after the time asked; what it decided is beside it, .decisions.json; "
              << "mltwin-scheduler --once --snapshot " << file << " repeats it)\n";
  };
  opts.on_snapshot_missed = [](const std::string& label) {
    std::cerr << "warning: --snapshot-at " << label << ": no scheduling session ran at or after it (the run ended before); "
              << "no snapshot written\n";
  };
  auto said = std::make_shared<std::set<std::string>>();  // once each, across replications
  opts.on_warning = [said](const std::string& w) {
    if (said->insert(w).second) std::cerr << "warning: " << w << "\n";
  };
  const bool progress = !f.no_progress;

  /// Runs one; returns how it ended (an error: abandoned as failed, said on stderr, rethrown).
  const auto run_one = [&](const runner::RunOptions& o, std::unique_ptr<runner::Run>& run) {
    g_recording.store(false);  // setting up: a signal ends the process
    run = runner::Run::open(f.scenario, o);
    try {
      return drive(*run, until, progress);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      // A database at its target ended as asked (only its summary file failed: the error says so).
      if (run->out() != run->target()) std::cerr << "the run failed: " << where_it_is(*run, store::EndReason::Failed) << "\n";
      throw Reported{exit_status_of(e)};
    }
  };

  if (replications == 1) {
    std::unique_ptr<runner::Run> run;
    const Ended e = run_one(opts, run);
    run->print_summary(std::cout, e.wall);
    if (f.check_promises && e.signal == 0)
      fmt::print("Promise check: each of the run's {} scheduling sessions decided the same without the plugins' promises\n",
                 run->summary_json().value("sessions", std::uint64_t{0}));
    if (e.signal != 0) {
      fmt::print("Partial results: {}\n", run->out().empty() ? "(none)" : run->out());
      std::cout.flush();
      std::cerr << store::to_string(e.reason) << " (" << signal_name(e.signal) << "): " << where_it_is(*run, e.reason) << "\n";
      return 128 + e.signal;
    }
    fmt::print("Results: {}\n", run->out());
    if (!f.summary_json.empty()) fmt::print("Summary JSON: {}\n", f.summary_json);
    if (!run->name_map().empty())
      fmt::print("Names: anonymized; the real ones are in {} (keep it apart from the database; "
                 "mltwin compare --name-map reads it)\n", run->name_map());
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
    (void)io::scenario_kind(f.scenario);  // refuses what is not a regular file (a FIFO would block below)
    std::ifstream in(f.scenario);
    const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object() && doc.contains("seed") && doc["seed"].is_number_unsigned()) first_seed = doc["seed"].get<std::uint64_t>();
  }
  if (first_seed > std::numeric_limits<std::uint64_t>::max() - (replications - 1))
    throw std::invalid_argument(fmt::format("--replications {}: the seeds from {} would pass 18446744073709551615",
                                            replications, first_seed));
  for (std::size_t k = 0; k < replications; ++k) {
    runner::RunOptions o = opts;
    o.seed = first_seed + k;
    o.out = replication_out(f.out, first_seed + k);
    o.summary_json_out = replication_out(f.summary_json, first_seed + k, ".json");
    std::unique_ptr<runner::Run> run;
    const Ended e = run_one(o, run);
    total_wall += e.wall;
    summaries.push_back(run->summary_json());
    name = run->name();
    if (random_inputs.empty()) {
      const auto t = run->query("SELECT value FROM run_meta WHERE key = 'random_inputs'");
      if (t.rows == 1) random_inputs = t.columns[0].texts[0];
    }
    fmt::print(stderr, "replication {}/{}: seed {} -> {}{} ({:.1f} s)\n", k + 1, replications, run->seed(), run->out(),
               o.summary_json_out.empty() || e.signal != 0 ? std::string() : ", " + o.summary_json_out, e.wall);
    if (e.signal != 0) {
      std::cerr << store::to_string(e.reason) << " (" << signal_name(e.signal) << ") during replication " << k + 1 << ": "
                << where_it_is(*run, e.reason) << "; no statistics\n";
      return 128 + e.signal;
    }
  }
  const auto stats = runner::replication_stats(summaries, 0.95);
  fmt::print("Scenario {}: {} replications, seeds {}..{} ({:.1f} s wall)\n", name, replications, first_seed,
             first_seed + replications - 1, total_wall);
  fmt::print("The seed changes: {}\n", random_inputs.empty() ? "(not recorded)" : random_inputs);
  fmt::print("Mean and 95 % confidence interval (Student t, n - 1 degrees of freedom) of each summary figure:\n");
  fmt::print("  {:<44} {:>16} {:>14} {:>14} {:>14}\n", "figure", "mean", "± (95 %)", "min", "max");
  for (const auto& st : stats) {
    if (st.name == "events" || st.name == "sim_end_s") continue;
    fmt::print("  {:<44} {:>16.6g} {:>14.4g} {:>14.6g} {:>14.6g}\n", st.name, st.mean, st.half_width, st.min, st.max);
  }
  return 0;
}

/// `mltwin plugins`: every registered plugin with the arguments it declares (a Markdown table).
int cmd_plugins() {
  fmt::print("| plugin | argument | type | default | read by (Volcano {}) | in mltwin |\n|---|---|---|---|---|---|\n",
             policy::kVolcanoRelease);
  for (const std::string& name : policy::registered_plugins()) {
    const auto specs = policy::plugin_arguments(name);
    if (!specs) {
      fmt::print("| {} | (not declared) | | | | |\n", name);
      continue;
    }
    if (specs->empty()) fmt::print("| {} | none | | | | |\n", name);
    for (const policy::ArgSpec& s : *specs)
      fmt::print("| {} | `{}{}` | {} | {} | {} | {} |\n", name, s.key, s.prefix ? "<name>" : "", policy::to_string(s.type),
                 s.default_value.empty() ? "—" : s.default_value, s.source,
                 s.modelled ? "modelled" : "not modelled: " + s.not_modelled);
  }
  return 0;
}

/// Rows of `mltwin policies` for one registry.
template <class Product>
void print_policy_rows(const char* site, const policy::Registry<Product>& registry) {
  for (const std::string& name : registry.names()) {
    const auto entry = registry.find(name);
    if (!entry) continue;
    const std::string what = entry->summary.empty() ? std::string(registry.builtin(name) ? "" : "(registered by the user)")
                                                    : entry->summary;
    if (!entry->arguments || entry->arguments->empty())
      fmt::print("| {} | {} | {} | {} | | | |\n", site, name, what, entry->arguments ? "none" : "(not declared)");
    else
      for (std::size_t i = 0; i < entry->arguments->size(); ++i) {
        const policy::ArgSpec& a = (*entry->arguments)[i];
        fmt::print("| {} | {} | {} | `{}` | {} | {} | {} |\n", i == 0 ? site : "", i == 0 ? name : "", i == 0 ? what : "",
                   a.key, policy::to_string(a.type), a.default_value.empty() ? "— (required)" : a.default_value, a.source);
      }
  }
}

/// `mltwin policies`: the serving policies a scenario's `policies` block may choose, with their
/// arguments (a Markdown table; docs/inference.md shows the same).
int cmd_policies() {
  namespace ps = policy::serving;
  fmt::print("| `policies` key | name | what it does | argument | type | default | source |\n|---|---|---|---|---|---|---|\n");
  print_policy_rows("autoscaling", ps::autoscaling_registry());
  print_policy_rows("memory_cache, disk_cache", ps::model_cache_registry());
  print_policy_rows("routing", ps::routing_registry());
  print_policy_rows("instance_scaling", ps::instance_scaling_registry());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mltwin — a discrete-event digital twin of ML infrastructure on AWS (EKS + Trainium + Volcano; SageMaker MME + DJL Serving)"};
  app.set_version_flag("--version", std::string(runner::version()) + " (" + runner::git_sha() + ")");
  app.footer(kExitStatus);
  app.require_subcommand(1);
  RunFlags rf;
  std::string scenario, data, max_jobs_text;
  // Numbers are taken as text and checked by cmd_run (parse_count), so that "-1" is refused
  // with the flag's name instead of wrapping around to 2^64 - 1.
  auto* run = app.add_subcommand("run", "run a scenario and write its SQLite results database");
  run->footer(kExitStatus);
  run->add_option("scenario", rf.scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  run->add_option("--out,-o", rf.out,
                  "results database (default results/<name>-seed<N>.sqlite); written beside it and renamed over it when "
                  "the run ends as asked; must not be a directory, a device or one of the run's inputs")
      ->type_name("FILE");
  auto* summary_opt =
      run->add_option("--summary-json", rf.summary_json,
                      "also write the summary as JSON (the figures Python's Run.summary() returns) to FILE when the "
                      "run ends as asked: written beside it and renamed over it, checked before the run starts; a "
                      "run stopped by a signal or an error leaves FILE untouched. With --replications, one a seed "
                      "(s.json -> s-seed7.json)")
          ->type_name("FILE");
  run->add_option("--seed", rf.seed, "run seed, 0 to 18446744073709551615 (default: the scenario's)")->type_name("N");
  auto* until_opt =
      run->add_option("--until", rf.until, "stop at this simulated time, e.g. 30d, 12h; jobs still waiting are reported")
          ->type_name("TIME");
  run->add_option("--data", rf.data,
                  "data folder for ${MLTWIN_DATA} (default $MLTWIN_DATA, else the first shared/data folder above the scenario)");
  run->add_flag("--no-progress", rf.no_progress, "no progress bar on stderr");
  run->add_flag("--force", rf.force,
                "start a run whose estimated memory, database or size exceeds the limits (this machine's memory; "
                "docs/limits.md), which is otherwise refused");
  run->add_option("--max-jobs", rf.max_jobs, "Philly workloads: keep only the first N jobs by submit time (0: all)")
      ->type_name("N");
  run->add_option("--catalog", rf.catalog, kCatalogHelp)->type_name("FILE");
  constexpr const char* kStrictHelp =
      "treat the scenario's warnings as errors (plugin arguments Volcano would ignore: unknown keys, keys whose "
      "subject mltwin does not model)";
  run->add_flag("--strict", rf.strict, kStrictHelp);
  run->add_flag("--check-promises", rf.check_promises,
                "run every scheduling session also without the plugins' performance promises and fail at the first "
                "session that decides differently (about twice as slow)");
  run->add_option("--snapshot-at", rf.snapshot_at,
                  "training runs: write the cluster's state as kubectl JSON at the first scheduling session at or after "
                  "TIME (e.g. 6h; repeatable), to <database name>.snapshot-TIME.json, for mltwin-scheduler --once")
      ->type_name("TIME");
  run->add_flag("--anonymize", rf.anonymize,
                "training runs: rename the Nodes read from kubectl (node-1, ...), the jobs (job-1, ...) and the input "
                "files (<role>-<k>) before the run, so the database holds none of the cluster's names; the map to the "
                "real ones goes to <database name>.names.json (docs/privacy.md)");
  run->add_option("--name-map", rf.name_map, "with --anonymize: where to write the name map instead")->type_name("FILE");
  run->add_option("--replications", rf.replications,
                  "run N seeds (the scenario's or --seed, then +1, +2, ...), each with its own database, and print "
                  "every summary figure's mean with its 95 % confidence interval")
      ->type_name("N");
  auto* val = app.add_subcommand("validate", "check a scenario (and its trace) without running it, or a job history on its own");
  val->add_option("scenario", scenario, "scenario JSON file, or a job history (CSV, kubectl vcjob list, Prometheus export)")->required()->check(CLI::ExistingFile);
  val->add_option("--data", data, "data folder for ${MLTWIN_DATA}");
  val->add_option("--max-jobs", max_jobs_text, "Philly workloads: keep only the first N jobs by submit time (0: all)")
      ->type_name("N");
  std::string catalog, migrate_out;
  val->add_option("--catalog", catalog, kCatalogHelp)->type_name("FILE");
  bool strict = false;
  val->add_flag("--strict", strict, kStrictHelp);
  auto* migrate = app.add_subcommand("migrate",
                                     "rewrite a version-1 scenario (no schema_version, a pasted instance catalog) as version 2");
  migrate->add_option("scenario", scenario, "version-1 scenario JSON file")->required()->check(CLI::ExistingFile);
  migrate->add_option("--out,-o", migrate_out, "where to write it (default: stdout); may be the scenario itself")->type_name("FILE");
  migrate->add_option("--catalog", catalog, kCatalogHelp)->type_name("FILE");
  std::string database, job;
  auto* explain = app.add_subcommand("explain", "why a training job waited: its phases, each wait's deciding plugin and reason, what ended it");
  explain->add_option("database", database, "results database of a training run")->required()->check(CLI::ExistingFile);
  explain->add_option("job", job, "job name (e.g. philly-01156) or id")->required();
  std::string history, compare_json, compare_name_map;
  std::size_t compare_worst = 10;
  auto* compare = app.add_subcommand("compare",
                                     "how well a run of a job history predicted it: each job's predicted vs actual start, "
                                     "the median absolute error, the queueing waits and their KS distance (docs/compare.md)");
  compare->add_option("history", history, "the job history the run replayed (workload.history: a CSV, kubectl's Volcano Jobs or a Prometheus export)")->required()->check(CLI::ExistingFile);
  compare->add_option("database", database, "results database of the run")->required()->check(CLI::ExistingFile);
  compare->add_option("--name-map", compare_name_map, "an anonymized run's name map (mltwin run --anonymize wrote it beside the database)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  compare->add_option("--json", compare_json, "also write the comparison, every job included, as JSON to FILE ('-': stdout, instead of the report)")
      ->type_name("FILE");
  compare->add_option("--worst", compare_worst, "how many of the largest errors the report lists (default 10)")->type_name("N");
  auto* plugins = app.add_subcommand("plugins", "list the scheduler plugins and the arguments each reads (a Markdown table)");
  auto* policies = app.add_subcommand("policies", "list the serving policies an inference scenario may choose, with their arguments (a Markdown table)");
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
    if (*run) {
      rf.until_given = until_opt->count() > 0;
      rf.summary_json_given = summary_opt->count() > 0;
      return cmd_run(rf);
    }
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
    if (*compare) {
      const runner::HistoryComparison c = runner::compare_history(history, database, compare_name_map);
      if (compare_json == "-") {
        std::cout << c.to_json().dump(1) << "\n";
        return 0;
      }
      std::cout << c.report(compare_worst);
      if (!compare_json.empty()) {
        std::ofstream f(compare_json);
        f << c.to_json().dump(1) << "\n";
        if (!f.flush()) throw std::runtime_error("cannot write " + compare_json);
      }
      return 0;
    }
    if (*plugins) return cmd_plugins();
    if (*policies) return cmd_policies();
    if (*explain) {
      std::cout << runner::explain_job(database, job);
      return 0;
    }
    const std::size_t max_jobs = max_jobs_text.empty() ? 0
                                 : parse_count("--max-jobs", max_jobs_text, 0, kMaxJobs,
                                               "an integer from 0 (all jobs) to " + std::to_string(kMaxJobs));
    if (*migrate) return cmd_migrate(scenario, migrate_out, catalog);
    return cmd_validate(scenario, data, catalog, max_jobs, strict);
  } catch (const Reported& r) {
    return r.status;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_status_of(e);
  }
}
