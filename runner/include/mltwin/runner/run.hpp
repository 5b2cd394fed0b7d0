// mltwin/runner/run.hpp — one run of a scenario, as the CLI and the Python module drive it.
//
// A Run loads a scenario (training or inference, told apart by its "kind"), builds the model,
// its RNG streams and its SQLite results database, and then advances in simulated time under
// its caller's control:
//
//   auto run = runner::Run::open("scenarios/mme-djl-blog-top-n.json", {});
//   run->run_until(core::Time::zero() + core::Duration::s(600));   // inspect state(), query()
//   run->run_until(core::Time::max());                             // to the end
//   run->finish(store::EndReason::Completed);                      // summary(), query() still work
//
// Everything a run records is decided by the scenario, the seed and the sequence of
// run_until() targets' *events* — never by how the run was chunked: run_until(t1) then
// run_until(t2) fires exactly the events one run_until(t2) fires, in the same order, so the
// database is byte-identical however a caller steps (the CLI steps by simulated hours).
//
// Errors: open() throws io::ScenarioError (bad scenario or trace: file and JSON path or line),
// std::invalid_argument (bad option, e.g. an `out` that is a directory, a device or one of
// the run's inputs), std::runtime_error (the database cannot be written). An exception thrown
// by a policy or by the database (a full disk) during run_until() propagates out of
// run_until(); the run is then over: abandon(EndReason::Failed) records it as failed at the
// time reached, and the database stays readable.
//
// Where the database is written (RunOptions::output):
//   - Output::Direct (the default; Python's Run(out=...)): at `out` itself, from the start, so
//     that it can be read while the run goes on; an existing regular file there is replaced
//     when the run opens.
//   - Output::ReplaceAtEnd (the CLI): at a hidden file beside `out`, `.NAME.in-progress-XXXXXX`,
//     renamed over `out` only when the run ends as asked (completed, until). A run that ends
//     otherwise (interrupted, terminated, failed) leaves `out` untouched and its database,
//     with its end_reason, as partial_path(out) (`NAME.partial.sqlite`). If even the end
//     reason cannot be written (the disk is full), the unfinished file is removed and out()
//     is empty. A process killed outright leaves the hidden file behind.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/core/time.hpp"
#include "mltwin/io/run_estimate.hpp"
#include "mltwin/models/inference.hpp"
#include "mltwin/store/sqlite_store.hpp"

namespace mltwin::models {
class SessionObserver;
class TrainingCluster;
}

namespace mltwin::runner {

namespace detail {
struct RunFacts;
}

/// The commit this library was built from (40 hex digits, "-dirty" if tracked files differed,
/// "unknown" outside git) and mltwin's version; both go into every database's run_meta.
const char* git_sha() noexcept;
const char* version() noexcept;

enum class Kind { Training, Inference };

/// How the database reaches RunOptions::out (see the header comment).
enum class Output {
  Direct,        ///< written at `out` from the start
  ReplaceAtEnd,  ///< written beside it, renamed over it when the run ends as asked
};

/// Where Output::ReplaceAtEnd leaves the database of a run that did not end as asked:
/// "r.sqlite" -> "r.partial.sqlite"; a name without the .sqlite extension gets ".partial"
/// appended.
std::string partial_path(const std::string& out);

struct RunOptions {
  /// The results database: a file path, ":memory:" for a database that lives as long as the
  /// Run, or empty for results/<scenario name>-seed<N>.sqlite. A path that exists must be a
  /// regular file (or a symbolic link to one), and none of the run's inputs (the scenario, a
  /// trace, a manifest: compared by file identity, not by spelling); otherwise open() throws
  /// std::invalid_argument. An existing file is replaced (see `output` for when).
  std::string out;
  /// When and where the database is written.
  Output output = Output::Direct;
  /// A file to write summary_json() to (indented JSON) when the run ends as asked (completed,
  /// until), whole or not at all: into a hidden file beside it, `.NAME.in-progress-XXXXXX`,
  /// created with the database (so that a folder that cannot be written is an error before
  /// the run: std::runtime_error), and renamed over it by finish(). A run that ends otherwise
  /// leaves an existing file untouched. A path that exists must be a regular file, and neither
  /// the database nor one of the run's inputs (std::invalid_argument). Empty: none. The CLI's
  /// --summary-json.
  std::string summary_json_out;
  /// Errors about options name them as the CLI's flags (--out, --max-jobs) rather than as
  /// the fields and Python arguments (out, max_jobs).
  bool command_line = false;
  /// Called once the scenario and its inputs are loaded and checked, just before the first
  /// file (folder, database) is created: the CLI switches its signal handling there.
  std::function<void()> before_database;
  /// Overrides the scenario's seed.
  std::optional<std::uint64_t> seed;
  /// The folder ${MLTWIN_DATA} stands for (default: $MLTWIN_DATA, else the first shared/data
  /// folder above the scenario file).
  std::string data_dir;
  /// The instance catalog file to read instead of the shipped one (default: $MLTWIN_CATALOG,
  /// else the shipped catalog; mltwin/io/catalog.hpp).
  std::string catalog;
  /// Philly workloads: keep only the first N jobs by submit time (0: all).
  std::size_t max_jobs = 0;
  /// A JSON merge patch (RFC 7386) applied to the scenario before validation.
  nlohmann::json overrides;
  /// The scenario itself, when it does not come from a file: `path` then only names it (in
  /// errors and run_meta) and its folder anchors relative data paths.
  std::optional<nlohmann::json> document;
  /// Recorded as run_meta('until'): the stop time as the user wrote it ("" for none).
  std::string until_text;
  /// Inference runs: serving policies chosen by name, {site: {"name": ..., "arguments": {...}}},
  /// each replacing the scenario's /policies/<site> (io::LoadOptions::serving_policies).
  nlohmann::json serving_policies;
  /// Inference runs: called with the scenario's built-in policies before the endpoint is
  /// built, to replace any of them (e.g. with a policy written in Python).
  std::function<void(models::inference::PolicySet&)> customize_serving;  /// Called with the run's size estimate (mltwin/io/run_estimate.hpp, up to until_text) once
  /// the scenario is loaded, before the model or the database is built; it may throw to refuse
  /// the run (the CLI refuses one beyond io::RunLimits without --force). Unset: no estimate.
  std::function<void(const io::RunEstimate&)> check_estimate;
  /// Called once per warning of the scenario (io::LoadedScenario::warnings: plugin arguments
  /// Volcano would ignore), before the database is created. Unset: warnings are dropped.
  std::function<void(const std::string&)> on_warning;
  /// Warnings are errors (io::LoadOptions::strict; the CLI's --strict).
  bool strict = false;
  /// Training runs: run every scheduling session also without the plugins' promises and fail
  /// (policy::PromiseBroken) at the first session that decides differently
  /// (policy::Scheduler::set_check_promises; the CLI's --check-promises).
  bool check_promises = false;
  /// Training runs (Run::open refuses them for an inference run): at the first scheduling
  /// session at or after each time, the cluster's state as that session opens is written as a
  /// kubectl List (Run::snapshot's JSON, with the scheduler's configuration) to
  /// `<snapshot_prefix>snapshot-<label>.json`, and what the session decided to
  /// `<snapshot_prefix>snapshot-<label>.decisions.json` (mltwin-scheduler's JSON shape; the
  /// CLI's --snapshot-at; label: the time as written). mltwin-scheduler --once --snapshot FILE
  /// repeats that session. Sessions run only when something changed: the first at or after a
  /// time may come much later.
  std::vector<std::pair<core::Time, std::string>> snapshot_at;
  std::string snapshot_prefix;
  /// Called with each snapshot file written and the time of its session.
  std::function<void(const std::string& file, core::Time session)> on_snapshot;
  /// Called when the run ends with the label of each snapshot_at time no session reached.
  std::function<void(const std::string& label)> on_snapshot_missed;
  /// Training runs: the cluster's own names are replaced before the run (io::anonymize: Nodes
  /// read from kubectl -> node-1, ..., jobs -> job-1, ..., queues -> queue-1, ..., input files
  /// -> <role>-<k>.<ext>; the scenario's description dropped), so the database, the summary and
  /// the snapshots hold none of them; run_meta('anonymized') says so, with the map file's
  /// SHA-256. The map (real name -> alias) is written to `name_map`, or beside the database
  /// (results/x.sqlite -> results/x.names.json) when empty, as the database is created
  /// (std::invalid_argument for an inference run, for a database in memory without `name_map`,
  /// or for a map path that is the database or an input). The CLI's --anonymize and
  /// --name-map; docs/privacy.md.
  bool anonymize = false;
  std::string name_map;
  /// Training runs: every scheduling session is shown to this observer (the state as it opens,
  /// its decisions: mltwin/models/training/scheduler_driver.hpp), which must outlive the Run.
  models::SessionObserver* session_observer = nullptr;
};

class Run {
 public:
  /// Loads the scenario at `path` (or opts.document), creates the database and schedules the
  /// model's first events (none has fired yet). Throws as the header says.
  static std::unique_ptr<Run> open(const std::string& path, const RunOptions& opts);
  /// A Run destroyed before finish(): with Output::Direct the database keeps what was
  /// recorded, without end_reason; with Output::ReplaceAtEnd it is abandon()ed as failed.
  virtual ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  Kind kind() const noexcept;
  const std::string& name() const noexcept;       ///< the scenario's "name"
  std::uint64_t seed() const noexcept;
  /// Where the database is now: during the run, `out` or (Output::ReplaceAtEnd) the hidden
  /// file beside it; after finish() or abandon(), `out`, or partial_path(out) — or "" if it
  /// had to be removed (see the header comment). ":memory:" for a database in memory.
  const std::string& out() const noexcept;
  /// Where the name map of an anonymized run was written (RunOptions::anonymize); "" otherwise.
  const std::string& name_map() const noexcept;
  /// The database path asked for (RunOptions::out, or the default name).
  const std::string& target() const noexcept;
  const nlohmann::json& scenario() const noexcept;  ///< the document after overrides

  /// Simulated time reached, and the time of the next event (Time::max() when none is left).
  core::Time now() const;
  core::Time next_time() const;
  /// True when no event is left: the workload has ended.
  bool done() const { return next_time() == core::Time::max(); }
  std::uint64_t events() const;

  /// Fires every event at or before `t` (the clock then reads t, or the last event's time if
  /// none is left before t). Returns the number of events fired. Throws std::logic_error after
  /// finish(); rethrows what a model or policy throws (see the header comment).
  std::uint64_t run_until(core::Time t);
  /// Commits what has been recorded so far (run_meta checkpoint_ns): a process killed later
  /// leaves the database as of here.
  void checkpoint();

  /// Closes the run at the time reached: jobs or requests still waiting are recorded as such,
  /// run_meta gets end_reason and end_ns, the indexes are built, and (Output::ReplaceAtEnd)
  /// the file is renamed to `out` or to partial_path(out), as the reason says. The database
  /// stays open for query() until the Run is destroyed. Idempotent (the first reason wins).
  /// If closing fails (the disk is full, the rename is refused), the run is recorded as
  /// failed where possible (as abandon() does) and the error is rethrown. Then, for a run that
  /// ended as asked, the summary goes to RunOptions::summary_json_out; if that fails, the
  /// database stays as it ended and std::runtime_error names the summary file.
  void finish(store::EndReason reason);
  /// After an exception out of run_until(): the model may be half-way through an event, so
  /// it is not asked to wrap up; run_meta gets `reason` (normally Failed) and the time
  /// reached, what was recorded is committed, the file goes where finish() would put it,
  /// and the database stays readable. Idempotent; never throws (if the end reason cannot be
  /// written, see the header comment).
  void abandon(store::EndReason reason) noexcept;
  bool finished() const noexcept;

  /// One line of progress, e.g. "sim 3.2h  requests 17000 (12 in flight)  wall 1.3s ...".
  std::string status_line(double wall_s) const;
  /// How far a driver should step between progress lines, and between checkpoints, in
  /// simulated time: a training run spans months (1 h, 1 day), an inference run hours (1 min, 1 h).
  core::Duration progress_chunk() const;
  core::Duration checkpoint_interval() const;
  /// The summary (as the CLI prints it) after finish(); `wall_s` is the caller's timing.
  void print_summary(std::ostream& os, double wall_s) const;
  /// The same figures as JSON (training: jobs, queues, allocation, cost; inference: totals,
  /// latency percentiles in µs, cache hit ratio, cost, SLO verdicts). Valid after finish();
  /// before it, figures cover the run so far where they can.
  nlohmann::json summary_json() const;
  /// The model's state now, as JSON: training — every job's phase and placement, every
  /// node's allocation; inference — every instance's state, loaded models and worker pools.
  nlohmann::json state_json() const;

  /// Training runs: the cluster's scheduling state now — the objects the scheduler would see
  /// if a session opened now — as the `v1 List` kubectl prints (Nodes, Pods, PodGroups,
  /// Queues, PriorityClasses, and the mltwin-snapshot ConfigMap with the time, the scheduler's
  /// tie-break state and its configuration; mltwin/k8s/snapshot.hpp write_list). The twin's time 0 is
  /// the Unix epoch. Throws std::logic_error for an inference run.
  nlohmann::json snapshot() const;

  /// Runs SQL against the run's own database (rows recorded so far included).
  store::ResultTable query(const std::string& sql);

  /// The model objects, for embedding code that wants more than state_json(): null when the
  /// run is of the other kind.
  const models::TrainingCluster* training() const noexcept;
  const models::inference::Endpoint* endpoint() const noexcept;

 private:
  struct Impl;
  explicit Run(std::unique_ptr<Impl> impl);
  detail::RunFacts facts(double wall_s) const;
  std::unique_ptr<Impl> impl_;
};


/// What `mltwin validate` says about a scenario: it is loaded and checked as Run::open would
/// (the same errors), and nothing is built or written.
struct Validation {
  std::vector<std::string> warnings;
  std::string description;  ///< e.g. "scenario 'x': 32 nodes in 1 node group(s), 3 queues, 117325 jobs, Volcano v1.12.1"
  io::RunEstimate estimate;  ///< of the whole workload
};
Validation validate(const std::string& path, const RunOptions& opts);

/// Parses a simulated time such as "90s", "30m", "12h", "7d" (or plain seconds) into a Time
/// after t = 0. Throws std::invalid_argument naming `what` and the accepted units.
core::Time parse_until(const std::string& text, const std::string& what = "--until");

}  // namespace mltwin::runner
