// mltwin/store/sqlite_store.hpp — the SQLite results store: one database file per run.
//
// SqliteStore records a run of either kind, training or inference: it implements
// models::TrainingRecorder and models::inference::ServingRecorder by writing every record into
// a SQLite database whose schema is documented for users in docs/results-schema.md. A database
// holds the tables of its run's kind (RunMetadata::kind) beside the common run_meta and
// inputs; recording the other kind's facts is an error. Times arrive as
// simulated nanoseconds (core::Time) and are stored as INTEGER columns named *_ns;
// Time::max() ("never") is stored as NULL.
//
// Durability: rows are written in batched transactions through prepared statements. A
// transaction is committed at every checkpoint(), every kRowsPerTransaction rows, and by
// finish(). The database uses SQLite's default rollback journal (journal_mode=DELETE) with
// synchronous=NORMAL, so a process killed between checkpoints leaves a valid database: the
// next reader rolls the uncommitted tail back and sees the last committed state.
//
// Determinism: nothing written depends on the wall clock or on randomness, so two runs that
// make the same sequence of calls produce byte-identical files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/recorder.hpp"
#include "mltwin/models/serving_recorder.hpp"

namespace mltwin::store {

/// Version of the database layout; stored as PRAGMA user_version and as
/// run_meta('schema_version'). Bump it whenever a table, column or view changes meaning.
inline constexpr int kSchemaVersion = 10;

/// Rows (of any table) after which the open transaction is committed even without a
/// checkpoint, so that one transaction, and its rollback journal, stays bounded.
inline constexpr std::size_t kRowsPerTransaction = 100'000;

/// A file the run read (scenario, trace, cluster description, ...), identified by content.
struct InputFile {
  std::string role;       ///< what the file is for, e.g. "scenario", "trace"
  std::string path;       ///< as recorded: the CLI stores a form that does not depend on where
                          ///< the run was started from (see docs/results-schema.md, `inputs`)
  std::string sha256;     ///< 64 lowercase hex digits
  std::uint64_t bytes = 0;  ///< file size, bytes
};

/// Which tables a database has besides run_meta and inputs; stored as run_meta('run_kind').
enum class RunKind {
  Training,   ///< jobs, pods, decisions, phases, cluster_metrics, node_events, nodes, link_usage, step_periods, view job_times
  Inference,  ///< requests, model_events, worker_events, instance_events, endpoint_metrics
};

/// "training", "inference".
const char* to_string(RunKind k) noexcept;

/// Which requests an inference run's `requests` table keeps, decided by request id alone (ids
/// are dense in arrival order), so the choice does not depend on the order requests end in:
/// every request with id < record_full, and past that those with id % sample_every == 0
/// (sample_every 0: none). Stored in run_meta as request_records_full, request_sample_every
/// and, as an SQL condition on `id`, request_sampling.
struct RequestSampling {
  std::uint64_t record_full = 100'000;
  std::uint64_t sample_every = 100;
  bool keeps(std::uint64_t id) const noexcept {
    return id < record_full || (sample_every != 0 && id % sample_every == 0);
  }
};

/// What is needed to reproduce a run; written once into the run_meta and inputs tables.
struct RunMetadata {
  RunKind kind = RunKind::Training;
  std::string scenario_path;   ///< the CLI stores the scenario's file name (no folder)
  std::string scenario_json;   ///< the fully resolved scenario, as JSON text
  std::uint64_t seed = 0;
  std::string git_sha;         ///< commit of the mltwin build
  std::string volcano_release; ///< Volcano release whose scheduler behaviour is modelled (training)
  std::string mltwin_version;
  std::string until;           ///< simulated end of the run as given, e.g. "30d"
  std::vector<std::string> rng_streams;  ///< names of the RNG streams used (stored comma-separated)
  std::vector<InputFile> inputs;
  RequestSampling request_sampling;  ///< inference runs only
  /// Further key/value pairs for run_meta. A key may not repeat one of the built-in keys
  /// (schema_version, run_kind, mltwin_version, git_sha, volcano_release, seed, scenario_path,
  /// scenario_json, until, rng_streams, checkpoint_ns, end_reason, end_ns, request_records_full,
  /// request_sample_every, request_sampling, requests_reported, requests_arrived, requests_served,
  /// requests_rejected_503, requests_rejected_507, requests_timed_out_424, requests_not_ready_429,
  /// requests_unserved_at_end).
  std::map<std::string, std::string> extra;
};

/// What became of an inference run's requests, counted by the model over the whole run (the
/// `requests` table holds a sample only): every arrival was served, rejected, or not answered
/// when the run ended.
struct RequestAccounting {
  std::uint64_t arrived = 0;
  std::uint64_t served = 0;           ///< status 200
  std::uint64_t rejected_503 = 0;     ///< job queue full, or no instance in service
  std::uint64_t rejected_507 = 0;     ///< no memory or disk for the model
  std::uint64_t timed_out_424 = 0;    ///< ModelError: no answer within the invocation timeout
  std::uint64_t not_ready_429 = 0;    ///< ModelNotReadyException: the model still loading then
  std::uint64_t not_found_404 = 0;    ///< a SingleModel server's 404: the model not in its load_models
  std::uint64_t unserved_at_end = 0;  ///< in flight when the run ended (status 0)
};

/// How a run ended; stored as run_meta('end_reason'). The one definition of the end reasons:
/// docs/results-schema.md documents each, the CLI maps signals to them (apps/mltwin.cpp) and
/// Python's Run.finish() accepts their names.
enum class EndReason {
  Completed,    ///< "completed": no events were left: every job ended (or can never run); the
                ///< traffic is over and every request was answered or can never be (also when
                ///< --until lies beyond the last event)
  Until,        ///< "until": stopped at the --until time with events still to come
  Interrupted,  ///< "interrupted": stopped early on the user's request (SIGINT / Ctrl-C, or a
                ///< KeyboardInterrupt in Python)
  Terminated,   ///< "terminated": stopped early because the process was told to end (SIGTERM,
                ///< as Kubernetes, Slurm, `docker stop` and `timeout` send it; SIGHUP: the
                ///< terminal closed)
  Failed,       ///< "failed": stopped by an error (a policy written in Python raised, the disk
                ///< filled up, ...); the rows committed up to then are kept
};

/// Every EndReason, in declaration order.
inline constexpr EndReason kEndReasons[] = {EndReason::Completed, EndReason::Until, EndReason::Interrupted,
                                            EndReason::Terminated, EndReason::Failed};

/// "completed", "until", "interrupted", "terminated", "failed".
const char* to_string(EndReason r) noexcept;

/// The EndReason named `name` (as to_string() spells it); nullopt for any other text.
std::optional<EndReason> end_reason_from_string(std::string_view name) noexcept;

/// True for the reasons of a run that ran as asked: Completed and Until. The CLI publishes
/// such a run's database under the name asked for, and any other as a partial file.
constexpr bool ended_as_asked(EndReason r) noexcept { return r == EndReason::Completed || r == EndReason::Until; }

/// One column of a query's result. It starts with the type of the table column it reads, by
/// SQLite's affinity rules on the declared type (INT -> Integer; CHAR, CLOB, TEXT -> Text;
/// REAL, FLOA, DOUB -> Real; anything else, and expressions -> Integer), so a column of NULLs
/// only keeps its declared type; then its values decide: a REAL value makes an Integer column
/// Real (integers converted); a TEXT or BLOB value makes it Text (numbers printed as SQLite
/// prints them). `null[i]` is 1 where row i is NULL (its value slot is then 0, 0.0 or "").
struct ResultColumn {
  enum class Type { Integer, Real, Text };
  std::string name;
  Type type = Type::Integer;
  std::vector<std::int64_t> integers;  ///< rows, when Integer
  std::vector<double> reals;           ///< rows, when Real
  std::vector<std::string> texts;      ///< rows, when Text
  std::vector<std::uint8_t> null;      ///< rows

  /// Row `row` as an integer (a REAL truncated toward zero, a TEXT parsed); nullopt when NULL.
  /// Throws std::invalid_argument / std::out_of_range for a TEXT that is not a number.
  std::optional<std::int64_t> int_at(std::size_t row) const;
  /// Row `row` as a double (a TEXT parsed); nullopt when NULL.
  std::optional<double> real_at(std::size_t row) const;
  /// Row `row` as text (numbers as SQLite prints them: %.17g for REAL); "" when NULL.
  std::string text_at(std::size_t row) const;
};

/// The rows of a query, column by column.
struct ResultTable {
  std::vector<ResultColumn> columns;
  std::size_t rows = 0;
  /// The column named `name`. Throws std::runtime_error naming it when the result has none.
  const ResultColumn& column(std::string_view name) const;
};

/// Runs one SQL statement on an open connection (a `sqlite3*`, passed as void* to keep
/// <sqlite3.h> out of this header) and returns its rows. Throws std::runtime_error with
/// SQLite's message and the SQL text.
ResultTable query_connection(void* sqlite3_connection, const std::string& sql);

/// Opens the database at `path` read-only and runs `sql` on it (see query_connection). Throws
/// std::runtime_error naming the path if it cannot be opened.
ResultTable query_file(const std::string& path, const std::string& sql);

/// What the thing at `path` is when it exists and is not a regular file, as a phrase for an
/// error message ("is a directory", "is a character device", "is a fifo", "is a socket", "is a
/// symbolic link to a directory", "is a symbolic link to nothing (...)"); "" when nothing is
/// there or it is a regular file (directly or through symbolic links).
std::string not_a_regular_file(const std::string& path);

/// Writes run_meta('end_reason') and run_meta('end_ns') into the existing database at `path`,
/// in a transaction of its own: for a database whose SqliteStore has closed on an error (see
/// SqliteStore::finish). Throws std::runtime_error naming the path if it cannot be opened or
/// written (e.g. the disk is full).
void record_end_in_file(const std::string& path, EndReason reason, core::Time end);

/// Hashes a file with SHA-256 (streamed, any size) and returns its InputFile record.
/// Throws std::runtime_error naming the path if the file cannot be opened or read.
InputFile hash_input_file(const std::string& role, const std::string& path);

/// The results database of one run.
///
/// Not thread-safe: call it from the simulation thread only. Every recording method throws
/// std::runtime_error (naming the database path and SQLite's message) if SQLite fails, and
/// std::logic_error if called after finish() or if it records a fact of the other run kind
/// (e.g. request() on a training database). Rows are buffered and handed to SQLite a few
/// dozen at a time, so a failure (e.g. disk full) may surface on a later call than the one
/// that recorded the row.
///
/// A failed write (the disk is full: SQLITE_FULL; an I/O error or the file-size limit:
/// SQLITE_IOERR; ...) throws std::runtime_error naming the path and what SQLite said, e.g.
/// "results database 'r.sqlite': inserting rows into pods: database or disk is full". The
/// store then rolls its open transaction back, so the file holds what was last committed
/// (the metadata, and the rows up to the last checkpoint), and is failed(): every later
/// recording call and checkpoint() throw std::runtime_error repeating the first error;
/// record_end() may still be called (it writes in a transaction of its own, and throws if
/// that fails too) and finish() then only closes the connection.
class SqliteStore final : public models::TrainingRecorder, public models::inference::ServingRecorder {
 public:
  /// Creates the database at `path`, replacing an existing regular file there (and the
  /// rollback journal beside it), creates the schema and writes `meta`; the metadata is
  /// committed before the constructor returns. `path` ":memory:" makes a database in memory,
  /// which lives until the store is destroyed (read it with query(), and finish(true)).
  /// Throws std::runtime_error naming `path` and SQLite's message if the file cannot be
  /// created or written (e.g. the directory does not exist or is not writable), naming
  /// `path` and what it is if it exists and is not a regular file (a directory, a device, a
  /// fifo or a socket, a symbolic link to one of those or to nothing: none is opened or
  /// removed), and std::invalid_argument if meta.extra repeats a built-in run_meta key.
  SqliteStore(const std::string& path, const RunMetadata& meta);

  /// Calls finish() if it has not been called; never throws (errors are swallowed, so call
  /// finish() yourself to see them).
  ~SqliteStore() override;

  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;
  SqliteStore(SqliteStore&&) = delete;
  SqliteStore& operator=(SqliteStore&&) = delete;

  /// Inserts the jobs row, with phase 'Pending' until job_final() fills in the outcome.
  void job_submitted(const models::JobSubmitted& j) override;
  /// Updates the jobs row of j.job. Throws std::runtime_error if that job was never submitted.
  void job_final(const models::JobFinal& j) override;
  void pod_event(const models::PodEvent& e) override;
  void decision(const models::Decision& d) override;
  void phase_change(const models::PhaseChange& p) override;
  void sample(const models::ClusterSample& s) override;
  void node_event(const models::NodeEvent& e) override;
  /// Inserts the node's `nodes` row, end_ns NULL until node_ended(). A node name recorded twice
  /// throws std::runtime_error (it is the table's primary key), possibly on a later call.
  void node_launched(const models::NodeLaunched& n) override;
  /// Sets end_ns of the node's row. Throws std::runtime_error if that node was never launched.
  void node_ended(const models::NodeEnded& n) override;
  void link_usage(const models::LinkUsage& u) override;
  void step_period(const models::StepPeriod& p) override;

  // Inference runs (RunKind::Inference).

  /// Counts the request and writes its `requests` row if RunMetadata::request_sampling keeps
  /// its id. Status 0 (in flight at the end) is stored with done_ns NULL. An id reported twice
  /// throws std::runtime_error (it is the table's primary key), possibly on a later call.
  void request(const models::inference::RequestDone& r) override;
  void model_event(const models::inference::ModelEvent& e) override;
  void worker_event(const models::inference::WorkerEvent& e) override;
  void instance_event(const models::inference::InstanceEvent& e) override;
  /// One `endpoint_metrics` row; NaN statistics (a period without samples) are stored as NULL.
  void minute(const models::inference::MinuteMetrics& m) override;

  /// Records `now` (simulated ns) as run_meta('checkpoint_ns') (and, for an inference run, the
  /// number of requests reported so far as run_meta('requests_reported')), commits the open
  /// transaction and begins a new one. A commit waits for the disk (three fsyncs, ~6 ms on a cloud
  /// volume), so checkpoint on a coarse simulated-time cadence (the CLI: once a day).
  void checkpoint(core::Time now) override;

  /// Records how the run ended and the simulated time it had reached, as run_meta('end_reason')
  /// and run_meta('end_ns'); they are committed by the next checkpoint() or finish(). A
  /// database whose process died before this call has neither key. Calling it again replaces
  /// both values.
  void record_end(EndReason reason, core::Time end);

  /// Inference runs that ended normally (not after a failure): records the request accounting
  /// as run_meta('requests_arrived'), ('requests_served'), ('requests_rejected_503'),
  /// ('requests_rejected_507'), ('requests_timed_out_424'), ('requests_not_ready_429'),
  /// ('requests_not_found_404') and ('requests_unserved_at_end'); committed by the next
  /// checkpoint() or finish(). Throws std::invalid_argument if served + rejected_503 +
  /// rejected_507 + timed_out_424 + not_ready_429 + not_found_404 + unserved_at_end is not
  /// arrived, std::logic_error for a training database.
  void record_request_accounting(const RequestAccounting& a);

  /// Training runs: records the queue deadlock the run ended in (io/report.hpp Deadlock: no job
  /// running, the waiting jobs' queues each deserving less than their smallest job) as
  /// run_meta('deadlock'), the JSON object `deadlock_json` ({"queues", "waiting",
  /// "unlock_queue", "unlock_weight"}), for `mltwin explain`; committed by the next checkpoint()
  /// or finish(). No call, no key: the run did not end deadlocked. Throws std::logic_error for
  /// an inference database.
  void record_deadlock(const std::string& deadlock_json);

  /// Commits, creates the indexes (per job for training, per model for inference), runs
  /// PRAGMA optimize and closes the database — or, with `keep_open`, keeps the connection
  /// open for query() until the store is destroyed (no further records are accepted).
  /// Idempotent. Throws std::runtime_error on failure (the database is closed regardless).
  void finish(bool keep_open = false);

  /// Runs SQL on this database, including every row recorded so far (buffered rows are
  /// handed to SQLite first; they are visible to this connection before they are committed).
  /// Throws std::runtime_error (SQLite's message and the SQL) on a bad query, and
  /// std::logic_error once the connection is closed (finish() without keep_open).
  ResultTable query(const std::string& sql);

  /// True once finish() has been called.
  bool finished() const noexcept;

  /// True once a write has failed (see the class comment).
  bool failed() const noexcept;

  /// Caps the database file at `pages` pages of 16 KiB (SQLite's PRAGMA max_page_count;
  /// at least the pages already in use): a write beyond fails as on a full disk
  /// (SQLITE_FULL). For tests of that path, and for callers that bound a file's size.
  /// Throws std::logic_error after finish().
  void set_max_pages(std::uint64_t pages);

  /// Renames the finished database file to `new_path` (rename(2): atomic, replacing a file
  /// there, within one file system) and syncs the folder, closing the connection first and,
  /// if finish() kept it open, opening it again read-only at the new path for query().
  /// path() then returns `new_path`. Throws std::logic_error before finish() or for an
  /// in-memory database, std::runtime_error naming both paths if the rename fails (the
  /// database then stays at path()).
  void move_to(const std::string& new_path);

  /// The database path: the constructor's, or move_to()'s.
  const std::string& path() const noexcept;

 private:
  struct Impl;  // keeps <sqlite3.h> out of this header
  std::unique_ptr<Impl> impl_;
};

}  // namespace mltwin::store
