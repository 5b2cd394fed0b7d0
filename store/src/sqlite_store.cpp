// sqlite_store.cpp — SqliteStore and hash_input_file. The schema below is documented for
// users in docs/results-schema.md; change both together and bump kSchemaVersion.
#include "mltwin/store/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

namespace mltwin::store {
namespace {

using core::Time;
namespace inf = models::inference;

// ---------------------------------------------------------------------------------------
// Schema

// Tables and the view, created when the database is created: the common tables, then those of
// the run's kind. Indexes come later (k*Indexes, in finish()): building them once costs about
// what maintaining them row by row would, but keeps that work off the path of every recorded
// row.
constexpr const char* kCommonSchema = R"sql(
CREATE TABLE run_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE inputs (
  role   TEXT NOT NULL,
  path   TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  bytes  INTEGER NOT NULL
);
)sql";

constexpr const char* kTrainingSchema = R"sql(
CREATE TABLE jobs (
  job                    INTEGER PRIMARY KEY,
  name                   TEXT NOT NULL,
  queue                  TEXT NOT NULL,
  submit_ns              INTEGER NOT NULL,
  nnodes                 INTEGER NOT NULL,
  nproc_per_node         INTEGER NOT NULL,
  neuron_devices_per_pod INTEGER NOT NULL,
  cpu_per_pod            REAL NOT NULL,
  memory_gib_per_pod     REAL NOT NULL,
  efa_per_pod            INTEGER NOT NULL,
  neuron_resource        TEXT,
  other_requests         TEXT,
  duration_s             REAL NOT NULL,
  trace_row              INTEGER NOT NULL,
  trace_gpus             INTEGER NOT NULL,
  phase                  TEXT NOT NULL,
  podgroup_phase         TEXT,
  inqueue_ns             INTEGER,
  scheduled_ns           INTEGER,
  start_ns               INTEGER,
  end_ns                 INTEGER,
  nodes                  TEXT,
  reason                 TEXT,
  restarts               INTEGER,
  lost_training_s        REAL,
  startup_s              REAL,
  training_start_ns      INTEGER,
  image_pull_s           REAL,
  rendezvous_s           REAL,
  compile_s              REAL,
  compile_cache          TEXT,
  dataset_read_s         REAL,
  steps                  INTEGER,
  compute_s              REAL,
  communication_s        REAL,
  sync_s                 REAL,
  step_s                 REAL
);
CREATE TABLE pods (
  job   INTEGER NOT NULL REFERENCES jobs(job),
  pod   INTEGER NOT NULL,
  event TEXT NOT NULL,
  node  TEXT,
  t_ns  INTEGER NOT NULL
);
CREATE TABLE decisions (
  job    INTEGER NOT NULL REFERENCES jobs(job),
  t_ns   INTEGER NOT NULL,
  code   TEXT NOT NULL,
  plugin TEXT,
  reason TEXT
);
CREATE TABLE phases (
  job        INTEGER NOT NULL REFERENCES jobs(job),
  t_ns       INTEGER NOT NULL,
  from_phase TEXT NOT NULL,
  to_phase   TEXT NOT NULL
);
CREATE TABLE cluster_metrics (
  t_ns                  INTEGER NOT NULL,
  neuroncores_allocated REAL NOT NULL,
  neuroncores_total     REAL NOT NULL,
  allocation_ratio      REAL,
  jobs_pending          INTEGER NOT NULL,
  jobs_inqueue          INTEGER NOT NULL,
  jobs_running          INTEGER NOT NULL,
  pods_running          INTEGER NOT NULL
);
CREATE TABLE node_events (
  t_ns   INTEGER NOT NULL,
  node   TEXT NOT NULL,
  node_group TEXT NOT NULL,
  event  TEXT NOT NULL,
  reason TEXT
);
CREATE TABLE nodes (
  node          TEXT PRIMARY KEY,
  node_group    TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  capacity_type TEXT NOT NULL,
  zone          TEXT,
  launch_ns     INTEGER NOT NULL,
  end_ns        INTEGER,
  usd_per_hour  REAL NOT NULL,
  price_source  TEXT NOT NULL
);
CREATE TABLE link_usage (
  start_ns    INTEGER NOT NULL,
  end_ns      INTEGER NOT NULL,
  link        TEXT NOT NULL,
  bytes       REAL NOT NULL,
  utilisation REAL NOT NULL
);
CREATE TABLE step_periods (
  job             INTEGER NOT NULL REFERENCES jobs(job),
  attempt         INTEGER NOT NULL,
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  nodes           INTEGER NOT NULL,
  efa_gbps        REAL,
  step_s          REAL NOT NULL,
  communication_s REAL NOT NULL,
  steps           REAL NOT NULL,
  end_reason      TEXT NOT NULL
);
CREATE VIEW job_times AS
SELECT job, queue, phase,
       (scheduled_ns - submit_ns) / 1e9 AS queueing_s,
       (end_ns - submit_ns) / 1e9       AS jct_s,
       (start_ns - submit_ns) / 1e9     AS wait_to_start_s
FROM jobs;
)sql";

constexpr const char* kTrainingIndexes = R"sql(
CREATE INDEX pods_by_job ON pods(job);
CREATE INDEX decisions_by_job ON decisions(job);
CREATE INDEX phases_by_job ON phases(job);
CREATE INDEX step_periods_by_job ON step_periods(job);
)sql";

// Inference: column names of endpoint_metrics are CloudWatch's metric names in snake_case with
// the statistic and unit appended (docs/results-schema.md).
constexpr const char* kInferenceSchema = R"sql(
CREATE TABLE requests (
  id                    INTEGER PRIMARY KEY,
  model                 INTEGER NOT NULL,
  instance              INTEGER,
  arrival_ns            INTEGER NOT NULL,
  done_ns               INTEGER,
  status                INTEGER NOT NULL,
  overhead_latency_ns   INTEGER NOT NULL,
  model_loading_wait_ns INTEGER NOT NULL,
  model_latency_ns      INTEGER NOT NULL,
  queue_ns              INTEGER NOT NULL,
  batch_size            INTEGER NOT NULL,
  cache_hit             INTEGER NOT NULL
);
CREATE TABLE model_events (
  t_ns        INTEGER NOT NULL,
  instance    INTEGER NOT NULL,
  model       INTEGER NOT NULL,
  event       TEXT NOT NULL,
  bytes       INTEGER NOT NULL,
  duration_ns INTEGER,
  reason      TEXT
);
CREATE TABLE worker_events (
  t_ns          INTEGER NOT NULL,
  instance      INTEGER NOT NULL,
  model         INTEGER NOT NULL,
  event         TEXT NOT NULL,
  temporary     INTEGER NOT NULL,
  workers_after INTEGER NOT NULL,
  reason        TEXT
);
CREATE TABLE instance_events (
  t_ns          INTEGER NOT NULL,
  instance      INTEGER,
  event         TEXT NOT NULL,
  desired_after INTEGER NOT NULL,
  reason        TEXT
);
CREATE TABLE endpoint_metrics (
  start_ns                        INTEGER NOT NULL,
  end_ns                          INTEGER NOT NULL,
  invocations                     INTEGER NOT NULL,
  invocations_per_instance        REAL NOT NULL,
  invocation_4xx_errors           INTEGER NOT NULL,
  invocation_5xx_errors           INTEGER NOT NULL,
  model_latency_count             INTEGER NOT NULL,
  model_latency_avg_us            REAL,
  model_latency_p50_us            REAL,
  model_latency_p90_us            REAL,
  model_latency_p99_us            REAL,
  overhead_latency_avg_us         REAL,
  overhead_latency_p50_us         REAL,
  overhead_latency_p90_us         REAL,
  overhead_latency_p99_us         REAL,
  model_cache_hit                 REAL,
  model_loading_wait_time_count   INTEGER NOT NULL,
  model_loading_wait_time_avg_us  REAL,
  model_downloading_time_count    INTEGER NOT NULL,
  model_downloading_time_avg_us   REAL,
  model_loading_time_count        INTEGER NOT NULL,
  model_loading_time_avg_us       REAL,
  model_unloading_time_count      INTEGER NOT NULL,
  model_unloading_time_avg_us     REAL,
  loaded_model_count              REAL NOT NULL,
  cpu_utilization_pct             REAL NOT NULL,
  memory_utilization_pct          REAL NOT NULL,
  instances_in_service            INTEGER NOT NULL,
  workers                         INTEGER NOT NULL
);
)sql";

constexpr const char* kInferenceIndexes = R"sql(
CREATE INDEX requests_by_model ON requests(model);
CREATE INDEX model_events_by_model ON model_events(model);
CREATE INDEX worker_events_by_model ON worker_events(model);
)sql";

// Column lists and one row's placeholders of the tables written row by row. Rows are
// buffered and inserted RowBuffer::kBatchRows at a time with one multi-row INSERT.
constexpr const char* kJobsInsert =
    "INSERT INTO jobs (job, name, queue, submit_ns, nnodes, nproc_per_node,"
    " neuron_devices_per_pod, cpu_per_pod, memory_gib_per_pod, efa_per_pod, neuron_resource, other_requests,"
    " duration_s, trace_row, trace_gpus, steps, phase) VALUES ";
constexpr const char* kJobsRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'Pending')";
constexpr int kJobsColumns = 16;
constexpr const char* kPodsInsert = "INSERT INTO pods (job, pod, event, node, t_ns) VALUES ";
constexpr const char* kPodsRow = "(?, ?, ?, ?, ?)";
constexpr int kPodsColumns = 5;
constexpr const char* kDecisionsInsert =
    "INSERT INTO decisions (job, t_ns, code, plugin, reason) VALUES ";
constexpr const char* kDecisionsRow = "(?, ?, ?, ?, ?)";
constexpr int kDecisionsColumns = 5;
constexpr const char* kPhasesInsert =
    "INSERT INTO phases (job, t_ns, from_phase, to_phase) VALUES ";
constexpr const char* kPhasesRow = "(?, ?, ?, ?)";
constexpr int kPhasesColumns = 4;
constexpr const char* kMetricsInsert =
    "INSERT INTO cluster_metrics (t_ns, neuroncores_allocated, neuroncores_total,"
    " allocation_ratio, jobs_pending, jobs_inqueue, jobs_running, pods_running) VALUES ";
constexpr const char* kMetricsRow = "(?, ?, ?, ?, ?, ?, ?, ?)";
constexpr int kMetricsColumns = 8;
constexpr const char* kNodeEventsInsert = "INSERT INTO node_events (t_ns, node, node_group, event, reason) VALUES ";
constexpr const char* kNodeEventsRow = "(?, ?, ?, ?, ?)";
constexpr int kNodeEventsColumns = 5;
constexpr const char* kNodesInsert =
    "INSERT INTO nodes (node, node_group, instance_type, capacity_type, zone, launch_ns, end_ns, usd_per_hour,"
    " price_source) VALUES ";
constexpr const char* kNodesRow = "(?, ?, ?, ?, ?, ?, NULL, ?, ?)";
constexpr int kNodesColumns = 8;
constexpr const char* kLinkUsageInsert = "INSERT INTO link_usage (start_ns, end_ns, link, bytes, utilisation) VALUES ";
constexpr const char* kLinkUsageRow = "(?, ?, ?, ?, ?)";
constexpr int kLinkUsageColumns = 5;
constexpr const char* kStepPeriodsInsert =
    "INSERT INTO step_periods (job, attempt, start_ns, end_ns, nodes, efa_gbps, step_s, communication_s, steps,"
    " end_reason) VALUES ";
constexpr const char* kStepPeriodsRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr int kStepPeriodsColumns = 10;

constexpr const char* kRequestsInsert =
    "INSERT INTO requests (id, model, instance, arrival_ns, done_ns, status, overhead_latency_ns,"
    " model_loading_wait_ns, model_latency_ns, queue_ns, batch_size, cache_hit) VALUES ";
constexpr const char* kRequestsRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr int kRequestsColumns = 12;
constexpr const char* kModelEventsInsert =
    "INSERT INTO model_events (t_ns, instance, model, event, bytes, duration_ns, reason) VALUES ";
constexpr const char* kModelEventsRow = "(?, ?, ?, ?, ?, ?, ?)";
constexpr int kModelEventsColumns = 7;
constexpr const char* kWorkerEventsInsert =
    "INSERT INTO worker_events (t_ns, instance, model, event, temporary, workers_after, reason) VALUES ";
constexpr const char* kWorkerEventsRow = "(?, ?, ?, ?, ?, ?, ?)";
constexpr int kWorkerEventsColumns = 7;
constexpr const char* kInstanceEventsInsert =
    "INSERT INTO instance_events (t_ns, instance, event, desired_after, reason) VALUES ";
constexpr const char* kInstanceEventsRow = "(?, ?, ?, ?, ?)";
constexpr int kInstanceEventsColumns = 5;
constexpr const char* kEndpointMetricsInsert =
    "INSERT INTO endpoint_metrics (start_ns, end_ns, invocations, invocations_per_instance,"
    " invocation_4xx_errors, invocation_5xx_errors, model_latency_count, model_latency_avg_us,"
    " model_latency_p50_us, model_latency_p90_us, model_latency_p99_us, overhead_latency_avg_us,"
    " overhead_latency_p50_us, overhead_latency_p90_us, overhead_latency_p99_us, model_cache_hit,"
    " model_loading_wait_time_count, model_loading_wait_time_avg_us, model_downloading_time_count,"
    " model_downloading_time_avg_us, model_loading_time_count, model_loading_time_avg_us,"
    " model_unloading_time_count, model_unloading_time_avg_us, loaded_model_count,"
    " cpu_utilization_pct, memory_utilization_pct, instances_in_service, workers) VALUES ";
constexpr const char* kEndpointMetricsRow =
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr int kEndpointMetricsColumns = 29;

constexpr const char* kUpdateJob =
    "UPDATE jobs SET phase = ?2, podgroup_phase = ?3, inqueue_ns = ?4, scheduled_ns = ?5,"
    " start_ns = ?6, end_ns = ?7, nodes = ?8, reason = ?9, restarts = ?10, lost_training_s = ?11,"
    " training_start_ns = ?12, image_pull_s = ?13, rendezvous_s = ?14, compile_s = ?15,"
    " compile_cache = ?16, dataset_read_s = ?17, startup_s = ?18, compute_s = ?19,"
    " communication_s = ?20, sync_s = ?21, step_s = ?22 WHERE job = ?1";
constexpr const char* kEndNode = "UPDATE nodes SET end_ns = ?2 WHERE node = ?1";
constexpr const char* kPutMeta =
    "INSERT INTO run_meta (key, value) VALUES (?1, ?2)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value";
constexpr const char* kInsertInput =
    "INSERT INTO inputs (role, path, sha256, bytes) VALUES (?1, ?2, ?3, ?4)";

constexpr std::array<std::string_view, 12> kBuiltinMetaKeys = {
    "schema_version", "mltwin_version", "git_sha",     "volcano_release", "seed",       "scenario_path",
    "scenario_json",  "until",          "rng_streams", "checkpoint_ns",   "end_reason", "end_ns"};
// Built-in keys added with inference runs (schema version 3), and their request accounting
// (schema version 6).
constexpr std::array<std::string_view, 10> kBuiltinMetaKeys3 = {
    "run_kind",          "request_records_full", "request_sample_every",  "request_sampling",
    "requests_reported", "requests_arrived",     "requests_served",       "requests_rejected_503",
    "requests_rejected_507", "requests_unserved_at_end"};

const char* to_text(inf::ModelEvent::Kind k) {
  using K = inf::ModelEvent::Kind;
  switch (k) {
    case K::DownloadStart: return "DownloadStart";
    case K::Downloaded: return "Downloaded";
    case K::LoadStart: return "LoadStart";
    case K::Loaded: return "Loaded";
    case K::Unloaded: return "Unloaded";
    case K::ArtifactDeleted: return "ArtifactDeleted";
    case K::LoadFailed: return "LoadFailed";
  }
  return "Unknown";
}
const char* to_text(inf::WorkerEvent::Kind k) {
  using K = inf::WorkerEvent::Kind;
  switch (k) {
    case K::Added: return "Added";
    case K::Ready: return "Ready";
    case K::Retired: return "Retired";
    case K::Stopped: return "Stopped";
    case K::ScaleUpSkipped: return "ScaleUpSkipped";
  }
  return "Unknown";
}
const char* to_text(inf::InstanceEvent::Kind k) {
  using K = inf::InstanceEvent::Kind;
  switch (k) {
    case K::Launched: return "Launched";
    case K::InService: return "InService";
    case K::Terminated: return "Terminated";
    case K::DesiredChanged: return "DesiredChanged";
  }
  return "Unknown";
}
/// The model events that carry how long they took (ModelEvent::duration_ns).
bool has_duration(inf::ModelEvent::Kind k) {
  using K = inf::ModelEvent::Kind;
  return k == K::Downloaded || k == K::Loaded || k == K::Unloaded;
}

// ---------------------------------------------------------------------------------------
// Thin RAII and binding helpers over the SQLite C API

struct DbClose {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using DbHandle = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

// Text is bound with SQLITE_STATIC (no copy). That is safe because every statement is
// stepped and reset before the text's owner changes, and every parameter is bound again
// before the next step, so SQLite never reads a pointer left over from an earlier row.
int bind_text(sqlite3_stmt* s, int i, std::string_view v) {
  // A default-constructed string_view has data() == nullptr, which SQLite would store as
  // NULL; an empty string is meant.
  const char* p = v.data() != nullptr ? v.data() : "";
  return sqlite3_bind_text64(s, i, p, v.size(), SQLITE_STATIC, SQLITE_UTF8);
}
/// Empty text is stored as NULL (the optional columns: podgroup_phase, nodes, reason).
int bind_text_or_null(sqlite3_stmt* s, int i, std::string_view v) {
  return v.empty() ? sqlite3_bind_null(s, i) : bind_text(s, i, v);
}
/// Time::max() means "never" and is stored as NULL.
int bind_time(sqlite3_stmt* s, int i, Time t) {
  return t == Time::max() ? sqlite3_bind_null(s, i) : sqlite3_bind_int64(s, i, t.ns());
}

/// Steps a fully bound write statement once and resets it; SQLITE_OK or the error code.
int step_once(sqlite3_stmt* s) {
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

/// Rows of one table waiting to be inserted.
///
/// Running one INSERT program per row costs SQLite about as much CPU again as the row
/// itself; binding kBatchRows rows into one multi-row INSERT halves the cost of the ~10^6
/// rows of a large run. Values are copied into the buffer (the recorder's string_views
/// live only for the call), text into one arena so that a row costs no allocation.
class RowBuffer {
 public:
  static constexpr int kBatchRows = 32;

  /// `insert` is "INSERT INTO t (cols) VALUES ", `row` one row's "(?, ...)" with
  /// `columns` placeholders.
  void prepare(sqlite3* db, const char* insert, const char* row, int columns) {
    columns_ = columns;
    std::string many = insert;
    for (int r = 0; r < kBatchRows; ++r) (many += (r > 0 ? ", " : "")) += row;
    one_ = prepare_persistent(db, std::string(insert) + row);
    batch_ = prepare_persistent(db, many);
    values_.reserve(static_cast<std::size_t>(kBatchRows * columns_));
  }

  bool prepared() const { return one_ && batch_; }

  // The values of the row being built, in column order.
  void add_int(std::int64_t v) { values_.push_back({Value::Int, v, 0, 0}); }
  void add_real(double v) { values_.push_back({Value::Real, 0, v, 0}); }
  /// NaN ("no value": a statistic over no samples) is stored as NULL.
  void add_real_or_null(double v) { std::isnan(v) ? add_null() : add_real(v); }
  void add_null() { values_.push_back({Value::Null, 0, 0, 0}); }
  void add_time(Time t) { t == Time::max() ? add_null() : add_int(t.ns()); }
  void add_text(std::string_view v) {
    values_.push_back({Value::Text, static_cast<std::int64_t>(text_.size()), 0, v.size()});
    text_.append(v);
  }
  /// Empty text is stored as NULL (the optional columns: node, plugin, reason).
  void add_text_or_null(std::string_view v) { v.empty() ? add_null() : add_text(v); }

  /// Completes the row; true when the buffer is full and must be flushed.
  bool end_row() { return ++rows_ == kBatchRows; }

  /// Inserts the buffered rows (one multi-row INSERT when full, else row by row) and empties
  /// the buffer; SQLITE_OK or SQLite's error code. The rows are dropped either way.
  int flush() {
    int rc = SQLITE_OK;
    if (rows_ == kBatchRows) {
      for (int r = 0; r < rows_ && rc == SQLITE_OK; ++r) rc = bind_row(batch_.get(), r, r * columns_);
      if (rc == SQLITE_OK) rc = step_once(batch_.get());
    } else {
      for (int r = 0; r < rows_ && rc == SQLITE_OK; ++r) {
        rc = bind_row(one_.get(), r, 0);
        if (rc == SQLITE_OK) rc = step_once(one_.get());
      }
    }
    values_.clear();
    text_.clear();
    rows_ = 0;
    return rc;
  }

  void close() noexcept {
    one_.reset();
    batch_.reset();
  }

 private:
  struct Value {
    enum Kind : std::uint8_t { Null, Int, Real, Text } kind;
    std::int64_t i;   // Int: the value; Text: offset into text_
    double r;         // Real
    std::size_t len;  // Text: length
  };

  static Stmt prepare_persistent(sqlite3* db, const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    // PERSISTENT: these statements live as long as the connection and run ~10^5 times.
    sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    return Stmt(s);  // null on failure: the caller checks prepared()
  }

  /// Binds buffered row `row` to parameters first_param + 1 ... first_param + columns_.
  int bind_row(sqlite3_stmt* s, int row, int first_param) {
    int rc = SQLITE_OK;
    const std::size_t base = static_cast<std::size_t>(row * columns_);
    for (int c = 0; c < columns_ && rc == SQLITE_OK; ++c) {
      const Value& v = values_[base + static_cast<std::size_t>(c)];
      const int param = first_param + c + 1;
      switch (v.kind) {
        case Value::Null: rc = sqlite3_bind_null(s, param); break;
        case Value::Int: rc = sqlite3_bind_int64(s, param, v.i); break;
        case Value::Real: rc = sqlite3_bind_double(s, param, v.r); break;
        case Value::Text:
          rc = bind_text(s, param, std::string_view(text_).substr(static_cast<std::size_t>(v.i), v.len));
          break;
      }
    }
    return rc;
  }

  int columns_ = 0;
  int rows_ = 0;
  std::vector<Value> values_;  // rows_ * columns_ values, row after row
  std::string text_;           // the text values, back to back
  Stmt one_, batch_;
};

}  // namespace

/// Removes the database file at `path` and the journal, WAL and shared-memory files SQLite
/// keeps beside it (`what` opens the error message). Only regular files (or symbolic links to
/// them) are removed: anything else there is an error, and is left alone.
void remove_database_files(const std::string& path, const std::string& what) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    const std::string p = path + suffix;
    if (const std::string kind = not_a_regular_file(p); !kind.empty())
      throw std::runtime_error(what + ": '" + p + "' " + kind + " (expected a regular file or a new path)");
    std::error_code ec;
    std::filesystem::remove(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw std::runtime_error(what + ": cannot remove old file '" + p + "': " + ec.message());
  }
}

// ---------------------------------------------------------------------------------------
// SqliteStore::Impl

struct SqliteStore::Impl {
  std::string path;
  RunKind kind = RunKind::Training;
  DbHandle db;  // declared first, destroyed last: the statements are finalized before it
  RowBuffer jobs, pods, decisions, phases, metrics, node_events, nodes, link_usage, step_periods;  // training
  RowBuffer requests, model_events, worker_events, instance_events, endpoint_metrics;  // inference
  std::vector<std::uint32_t> jobs_buffered;  // ids of the rows waiting in `jobs`
  Stmt update_job, end_node, put_meta;
  std::size_t rows_in_transaction = 0;
  RequestSampling sampling;
  std::uint64_t requests_reported = 0;
  bool finished = false;
  bool in_memory = false;
  std::string failure;  // the first failed write's message; non-empty: the store is failed()

  /// SQLite's message for the last call on the connection, with what the system said for an
  /// I/O error or a full disk (e.g. "disk I/O error (File too large)"), or, when SQLite kept
  /// no system error, what a failed write usually means.
  std::string sqlite_message() const { return sqlite3_errmsg(db.get()) + reason_suffix(); }
  std::string reason_suffix() const {
    const int primary = sqlite3_extended_errcode(db.get()) & 0xFF;
    if (primary != SQLITE_IOERR && primary != SQLITE_FULL) return "";
    if (const int sys = sqlite3_system_errno(db.get()); sys != 0) return std::string(" (") + std::strerror(sys) + ")";
    if (primary == SQLITE_IOERR) return " (a read or write failed: is the disk full, or the file-size limit (ulimit -f) reached?)";
    return "";
  }

  /// Throws `msg` as std::runtime_error after rolling back the open transaction (SQLite
  /// leaves one whose statement failed in an undefined state), and marks the store failed.
  [[noreturn]] void raise(std::string msg) {
    if (failure.empty()) failure = msg;
    if (db && sqlite3_get_autocommit(db.get()) == 0) sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw std::runtime_error(msg);
  }
  [[noreturn]] void fail(std::string_view what) {
    std::string msg = "results database '" + path + "': " + std::string(what);
    if (db) msg += ": " + sqlite_message();
    raise(std::move(msg));
  }
  void check(int rc, std::string_view what) {
    if (rc != SQLITE_OK) fail(what);
  }

  void exec(const char* sql, std::string_view what) {
    char* err = nullptr;
    if (sqlite3_exec(db.get(), sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = "results database '" + path + "': " + std::string(what) + ": " +
                        (err != nullptr ? std::string(err) + reason_suffix() : sqlite_message());
      sqlite3_free(err);
      raise(std::move(msg));
    }
  }

  Stmt prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v3(db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    Stmt owned(s);
    if (rc != SQLITE_OK) fail(std::string("preparing \"") + sql + "\"");
    return owned;
  }

  void prepare(RowBuffer& buf, const char* insert, const char* row, int columns) {
    buf.prepare(db.get(), insert, row, columns);
    if (!buf.prepared()) fail(std::string("preparing \"") + insert + row + "\"");
  }

  void flush(RowBuffer& buf, std::string_view table) {
    if (buf.flush() != SQLITE_OK) fail("inserting rows into " + std::string(table));
    if (&buf == &jobs) jobs_buffered.clear();
  }

  void flush_all() {
    // A buffer of the other run kind is never prepared and never holds rows: flushing it is a
    // no-op.
    flush(jobs, "jobs");
    flush(pods, "pods");
    flush(decisions, "decisions");
    flush(phases, "phases");
    flush(metrics, "cluster_metrics");
    flush(node_events, "node_events");
    flush(nodes, "nodes");
    flush(link_usage, "link_usage");
    flush(step_periods, "step_periods");
    flush(requests, "requests");
    flush(model_events, "model_events");
    flush(worker_events, "worker_events");
    flush(instance_events, "instance_events");
    flush(endpoint_metrics, "endpoint_metrics");
  }

  /// Completes a buffered row: flushes the buffer when full, and commits after
  /// kRowsPerTransaction recorded rows.
  void end_row(RowBuffer& buf, std::string_view table) {
    if (buf.end_row()) flush(buf, table);
    row_written();
  }

  void row_written() {
    if (++rows_in_transaction >= kRowsPerTransaction) commit_and_begin();
  }

  void commit_and_begin() {
    flush_all();
    exec("COMMIT", "commit");
    exec("BEGIN", "begin transaction");
    rows_in_transaction = 0;
  }

  void put_meta_value(std::string_view key, std::string_view value) {
    sqlite3_stmt* s = put_meta.get();
    check(bind_text(s, 1, key), "binding run_meta key");
    check(bind_text(s, 2, value), "binding run_meta value");
    check(step_once(s), "writing run_meta");
  }

  void require_open() const {
    if (finished)
      throw std::logic_error("results database '" + path + "' was written after finish()");
    if (!failure.empty())
      throw std::runtime_error("results database '" + path + "' cannot be written: an earlier write failed (" +
                               failure + ")");
  }
  /// require_open(), and the database is of kind `k` (`what` names the call).
  void require(RunKind k, std::string_view what) const {
    require_open();
    if (kind != k)
      throw std::logic_error("results database '" + path + "' is for a " + to_string(kind) +
                             " run: " + std::string(what) + " records a " + to_string(k) + " run");
  }

  /// Finalizes every statement and closes the connection; an open transaction rolls back.
  void close() noexcept {
    for (RowBuffer* b : {&jobs, &pods, &decisions, &phases, &metrics, &node_events, &nodes, &link_usage, &step_periods, &requests,
                         &model_events, &worker_events, &instance_events, &endpoint_metrics})
      b->close();
    update_job.reset();
    end_node.reset();
    put_meta.reset();
    db.reset();
  }
};

// ---------------------------------------------------------------------------------------
// SqliteStore

SqliteStore::SqliteStore(const std::string& path, const RunMetadata& meta)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.kind = meta.kind;
  m.sampling = meta.request_sampling;
  m.in_memory = path == ":memory:";

  for (const auto& [key, value] : meta.extra) {
    const auto builtin = [&k = key](std::string_view b) { return k == b; };
    if (std::any_of(kBuiltinMetaKeys.begin(), kBuiltinMetaKeys.end(), builtin) ||
        std::any_of(kBuiltinMetaKeys3.begin(), kBuiltinMetaKeys3.end(), builtin))
      throw std::invalid_argument("run metadata: extra key '" + key +
                                  "' repeats a built-in run_meta key");
  }

  if (!m.in_memory) {
    if (const std::string what = not_a_regular_file(path); !what.empty())
      throw std::runtime_error("cannot create results database '" + path + "': it " + what +
                               " (expected a regular file or a new path)");
  }
  // Replace, never append to, an earlier run's file. A stale journal beside it could be
  // "hot" and roll pages of the old database into the new one, so it goes too.
  if (!m.in_memory) remove_database_files(path, "cannot create results database '" + path + "'");

  sqlite3* raw = nullptr;
  // NOMUTEX: the store is used from one thread (see the header), so SQLite's per-call
  // connection mutex is pure overhead.
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  m.db.reset(raw);  // sqlite3_open_v2 may return a handle even on failure; it must be closed
  if (rc != SQLITE_OK) {
    const std::string why = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    throw std::runtime_error("cannot create results database '" + path + "': " + why);
  }
  sqlite3_extended_result_codes(m.db.get(), 1);

  // 16 KiB pages (default 4 KiB): a results file is written in bulk and read by scans, and
  // bigger pages mean fewer page writes, syscalls and B-tree levels. Must precede the first
  // table.
  m.exec("PRAGMA page_size = 16384", "setting page_size");
  // The rollback journal (SQLite's default) rather than WAL: a single file that any sqlite3
  // reader opens, recovered automatically if the process dies mid-transaction.
  m.exec("PRAGMA journal_mode = DELETE", "setting journal_mode");
  m.exec("PRAGMA synchronous = NORMAL", "setting synchronous");
  // Large enough (KiB when negative) that a kRowsPerTransaction-row transaction stays in
  // memory until its commit. A training run updates job rows all over the jobs table and gets
  // 64 MiB; an inference run only appends (100,000 rows of at most ~100 bytes a transaction)
  // and gets 16 MiB: the cache keeps committed pages up to its size, so it is the bound on
  // what the store holds (the MMS blog run's peak: 83 MiB with 64 MiB, 54 MiB with 16 MiB, the
  // same speed).
  m.exec(m.kind == RunKind::Training ? "PRAGMA cache_size = -65536" : "PRAGMA cache_size = -16384",
         "setting cache_size");
  m.exec("PRAGMA temp_store = MEMORY", "setting temp_store");

  m.exec("BEGIN", "begin transaction");
  m.exec(kCommonSchema, "creating the schema");
  m.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str(),
         "setting user_version");

  if (m.kind == RunKind::Training) {
    m.exec(kTrainingSchema, "creating the training tables");
    m.prepare(m.jobs, kJobsInsert, kJobsRow, kJobsColumns);
    m.prepare(m.pods, kPodsInsert, kPodsRow, kPodsColumns);
    m.prepare(m.decisions, kDecisionsInsert, kDecisionsRow, kDecisionsColumns);
    m.prepare(m.phases, kPhasesInsert, kPhasesRow, kPhasesColumns);
    m.prepare(m.metrics, kMetricsInsert, kMetricsRow, kMetricsColumns);
    m.prepare(m.node_events, kNodeEventsInsert, kNodeEventsRow, kNodeEventsColumns);
    m.prepare(m.nodes, kNodesInsert, kNodesRow, kNodesColumns);
    m.prepare(m.link_usage, kLinkUsageInsert, kLinkUsageRow, kLinkUsageColumns);
    m.prepare(m.step_periods, kStepPeriodsInsert, kStepPeriodsRow, kStepPeriodsColumns);
    m.jobs_buffered.reserve(RowBuffer::kBatchRows);
    m.update_job = m.prepare(kUpdateJob);
    m.end_node = m.prepare(kEndNode);
  } else {
    m.exec(kInferenceSchema, "creating the inference tables");
    m.prepare(m.requests, kRequestsInsert, kRequestsRow, kRequestsColumns);
    m.prepare(m.model_events, kModelEventsInsert, kModelEventsRow, kModelEventsColumns);
    m.prepare(m.worker_events, kWorkerEventsInsert, kWorkerEventsRow, kWorkerEventsColumns);
    m.prepare(m.instance_events, kInstanceEventsInsert, kInstanceEventsRow, kInstanceEventsColumns);
    m.prepare(m.endpoint_metrics, kEndpointMetricsInsert, kEndpointMetricsRow, kEndpointMetricsColumns);
  }
  m.put_meta = m.prepare(kPutMeta);

  m.put_meta_value("schema_version", std::to_string(kSchemaVersion));
  m.put_meta_value("run_kind", to_string(m.kind));
  m.put_meta_value("mltwin_version", meta.mltwin_version);
  m.put_meta_value("git_sha", meta.git_sha);
  m.put_meta_value("volcano_release", meta.volcano_release);
  m.put_meta_value("seed", std::to_string(meta.seed));
  m.put_meta_value("scenario_path", meta.scenario_path);
  m.put_meta_value("scenario_json", meta.scenario_json);
  m.put_meta_value("until", meta.until);
  m.put_meta_value("rng_streams", join(meta.rng_streams, ','));
  if (m.kind == RunKind::Inference) {
    const RequestSampling& rs = m.sampling;
    m.put_meta_value("request_records_full", std::to_string(rs.record_full));
    m.put_meta_value("request_sample_every", std::to_string(rs.sample_every));
    std::string rule = "id < " + std::to_string(rs.record_full);
    if (rs.sample_every != 0) rule += " OR id % " + std::to_string(rs.sample_every) + " = 0";
    m.put_meta_value("request_sampling", rule);
    m.put_meta_value("requests_reported", "0");
  }
  for (const auto& [key, value] : meta.extra) m.put_meta_value(key, value);

  {
    Stmt ins = m.prepare(kInsertInput);
    sqlite3_stmt* s = ins.get();
    for (const InputFile& f : meta.inputs) {
      int brc = bind_text(s, 1, f.role);
      if (brc == SQLITE_OK) brc = bind_text(s, 2, f.path);
      if (brc == SQLITE_OK) brc = bind_text(s, 3, f.sha256);
      if (brc == SQLITE_OK) brc = sqlite3_bind_int64(s, 4, static_cast<std::int64_t>(f.bytes));
      m.check(brc, "binding an inputs row");
      m.check(step_once(s), "writing inputs");
    }
  }

  // The metadata is durable before the first record: even a run killed at once says what
  // it was.
  m.commit_and_begin();
}

SqliteStore::~SqliteStore() {
  if (!impl_ || impl_->finished) return;
  try {
    finish();
  } catch (...) {
    // A destructor must not throw; the connection is closed either way (see finish()).
  }
}

void SqliteStore::job_submitted(const models::JobSubmitted& j) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "job_submitted");
  RowBuffer& b = m.jobs;
  b.add_int(j.job);
  b.add_text(j.name);
  b.add_text(j.queue);
  b.add_int(j.submit.ns());
  b.add_int(j.nnodes);
  b.add_int(j.nproc_per_node);
  b.add_int(j.neuron_devices_per_pod);
  b.add_real(j.cpu_per_pod);
  b.add_real(j.memory_gib_per_pod);
  b.add_int(j.efa_per_pod);
  j.neuron_resource.empty() ? b.add_null() : b.add_text(j.neuron_resource);
  j.other_requests.empty() ? b.add_null() : b.add_text(j.other_requests);
  b.add_real(j.duration_s);
  b.add_int(j.trace_row);
  b.add_int(j.trace_gpus);
  j.steps > 0 ? b.add_int(j.steps) : b.add_null();
  m.jobs_buffered.push_back(j.job);
  m.end_row(b, "jobs");
}

void SqliteStore::job_final(const models::JobFinal& j) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "job_final");
  // The row to update may still be waiting in the insert buffer.
  if (std::find(m.jobs_buffered.begin(), m.jobs_buffered.end(), j.job) != m.jobs_buffered.end())
    m.flush(m.jobs, "jobs");

  sqlite3_stmt* s = m.update_job.get();
  int rc = sqlite3_bind_int64(s, 1, j.job);
  if (rc == SQLITE_OK) rc = bind_text(s, 2, j.phase);
  if (rc == SQLITE_OK) rc = bind_text_or_null(s, 3, j.podgroup_phase);
  if (rc == SQLITE_OK) rc = bind_time(s, 4, j.inqueue);
  if (rc == SQLITE_OK) rc = bind_time(s, 5, j.scheduled);
  if (rc == SQLITE_OK) rc = bind_time(s, 6, j.start);
  if (rc == SQLITE_OK) rc = bind_time(s, 7, j.end);
  if (rc == SQLITE_OK) rc = bind_text_or_null(s, 8, j.nodes);
  if (rc == SQLITE_OK) rc = bind_text_or_null(s, 9, j.reason);
  if (rc == SQLITE_OK) rc = sqlite3_bind_int64(s, 10, j.restarts);
  if (rc == SQLITE_OK) rc = sqlite3_bind_double(s, 11, j.lost_training_s);
  // The start-up breakdown: NULL when the scenario has no startup block.
  auto real_or_null = [&](int i, double v) { return j.startup_modelled ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i); };
  if (rc == SQLITE_OK) rc = j.startup_modelled ? bind_time(s, 12, j.training_start) : sqlite3_bind_null(s, 12);
  if (rc == SQLITE_OK) rc = real_or_null(13, j.image_pull_s);
  if (rc == SQLITE_OK) rc = real_or_null(14, j.rendezvous_s);
  if (rc == SQLITE_OK) rc = real_or_null(15, j.compile_s);
  if (rc == SQLITE_OK) rc = bind_text_or_null(s, 16, j.startup_modelled ? std::string_view(j.compile_cache) : std::string_view());
  if (rc == SQLITE_OK) rc = real_or_null(17, j.dataset_read_s);
  if (rc == SQLITE_OK) rc = sqlite3_bind_double(s, 18, j.startup_s);
  // The computing / communicating / synchronisation split exists only with derived durations.
  const double split[] = {j.compute_s, j.communication_s, j.sync_s, j.step_s};
  for (int k = 0; k < 4 && rc == SQLITE_OK; ++k)
    rc = j.derived ? sqlite3_bind_double(s, 19 + k, split[k]) : sqlite3_bind_null(s, 19 + k);
  m.check(rc, "binding a jobs update");
  m.check(step_once(s), "updating a jobs row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': job_final for job " +
                             std::to_string(j.job) + ", which was never submitted");
  m.row_written();
}

void SqliteStore::pod_event(const models::PodEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "pod_event");
  RowBuffer& b = m.pods;
  b.add_int(e.job);
  b.add_int(e.pod);
  b.add_text(e.event);
  b.add_text_or_null(e.node);
  b.add_time(e.t);
  m.end_row(b, "pods");
}

void SqliteStore::decision(const models::Decision& d) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "decision");
  RowBuffer& b = m.decisions;
  b.add_int(d.job);
  b.add_time(d.t);
  b.add_text(d.code);
  b.add_text_or_null(d.plugin);
  b.add_text_or_null(d.reason);
  m.end_row(b, "decisions");
}

void SqliteStore::phase_change(const models::PhaseChange& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "phase_change");
  RowBuffer& b = m.phases;
  b.add_int(p.job);
  b.add_time(p.t);
  b.add_text(p.from);
  b.add_text(p.to);
  m.end_row(b, "phases");
}

void SqliteStore::node_event(const models::NodeEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_event");
  RowBuffer& b = m.node_events;
  b.add_time(e.t);
  b.add_text(e.node);
  b.add_text(e.group);
  b.add_text(e.event);
  b.add_text_or_null(e.reason);
  m.end_row(b, "node_events");
}

void SqliteStore::node_launched(const models::NodeLaunched& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_launched");
  RowBuffer& b = m.nodes;
  b.add_text(n.node);
  b.add_text(n.group);
  b.add_text(n.instance_type);
  b.add_text(n.capacity_type);
  b.add_text_or_null(n.zone);
  b.add_time(n.t);
  b.add_real(n.usd_per_hour);
  b.add_text(n.price_source);
  m.end_row(b, "nodes");
}

void SqliteStore::node_ended(const models::NodeEnded& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_ended");
  // The row may still be waiting in the insert buffer (nodes end rarely: flush it whole).
  m.flush(m.nodes, "nodes");
  sqlite3_stmt* s = m.end_node.get();
  int rc = bind_text(s, 1, n.node);
  if (rc == SQLITE_OK) rc = bind_time(s, 2, n.t);
  m.check(rc, "binding a nodes update");
  m.check(step_once(s), "updating a nodes row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': node_ended for node '" + std::string(n.node) +
                             "', which was never launched");
  m.row_written();
}

void SqliteStore::link_usage(const models::LinkUsage& u) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "link_usage");
  RowBuffer& b = m.link_usage;
  b.add_time(u.start);
  b.add_time(u.end);
  b.add_text(u.link);
  b.add_real(u.bytes);
  b.add_real(u.utilisation);
  m.end_row(b, "link_usage");
}

void SqliteStore::step_period(const models::StepPeriod& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "step_periods");
  RowBuffer& b = m.step_periods;
  b.add_int(p.job);
  b.add_int(p.attempt);
  b.add_time(p.start);
  b.add_time(p.end);
  b.add_int(p.nodes);
  if (p.nodes > 1) b.add_real(p.efa_gbps);
  else b.add_null();
  b.add_real(p.step_s);
  b.add_real(p.communication_s);
  b.add_real(p.steps);
  b.add_text(p.end_reason);
  m.end_row(b, "step_periods");
}

void SqliteStore::sample(const models::ClusterSample& c) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "sample");
  RowBuffer& b = m.metrics;
  b.add_time(c.t);
  b.add_real(c.neuroncores_allocated);
  b.add_real(c.neuroncores_total);
  if (c.neuroncores_total > 0)
    b.add_real(c.neuroncores_allocated / c.neuroncores_total);
  else
    b.add_null();
  b.add_int(c.jobs_pending);
  b.add_int(c.jobs_inqueue);
  b.add_int(c.jobs_running);
  b.add_int(c.pods_running);
  m.end_row(b, "cluster_metrics");
}

// ---------------------------------------------------------------------------------------
// Inference tables

void SqliteStore::request(const inf::RequestDone& r) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "request");
  ++m.requests_reported;
  if (!m.sampling.keeps(r.id)) return;
  RowBuffer& b = m.requests;
  b.add_int(static_cast<std::int64_t>(r.id));
  b.add_int(r.model);
  if (r.instance < 0)
    b.add_null();
  else
    b.add_int(r.instance);
  b.add_time(r.arrival);
  if (r.status == 0)
    b.add_null();  // still in flight when the run ended: never answered
  else
    b.add_time(r.done);
  b.add_int(r.status);
  b.add_int(r.overhead_ns);
  b.add_int(r.loading_wait_ns);
  b.add_int(r.model_latency_ns);
  b.add_int(r.queue_ns);
  b.add_int(r.batch);
  b.add_int(r.cache_hit ? 1 : 0);
  m.end_row(b, "requests");
}

void SqliteStore::model_event(const inf::ModelEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "model_event");
  RowBuffer& b = m.model_events;
  b.add_time(e.t);
  b.add_int(e.instance);
  b.add_int(e.model);
  b.add_text(to_text(e.kind));
  b.add_int(static_cast<std::int64_t>(e.bytes));
  if (has_duration(e.kind))
    b.add_int(e.duration_ns);
  else
    b.add_null();
  b.add_text_or_null(e.reason);
  m.end_row(b, "model_events");
}

void SqliteStore::worker_event(const inf::WorkerEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "worker_event");
  RowBuffer& b = m.worker_events;
  b.add_time(e.t);
  b.add_int(e.instance);
  b.add_int(e.model);
  b.add_text(to_text(e.kind));
  b.add_int(e.temporary ? 1 : 0);
  b.add_int(e.workers_after);
  b.add_text_or_null(e.reason);
  m.end_row(b, "worker_events");
}

void SqliteStore::instance_event(const inf::InstanceEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "instance_event");
  RowBuffer& b = m.instance_events;
  b.add_time(e.t);
  if (e.kind == inf::InstanceEvent::Kind::DesiredChanged)
    b.add_null();  // the endpoint's desired count, not one instance
  else
    b.add_int(e.instance);
  b.add_text(to_text(e.kind));
  b.add_int(e.desired_after);
  b.add_text_or_null(e.reason);
  m.end_row(b, "instance_events");
}

void SqliteStore::minute(const inf::MinuteMetrics& x) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "minute");
  RowBuffer& b = m.endpoint_metrics;
  auto count = [&b](std::uint64_t v) { b.add_int(static_cast<std::int64_t>(v)); };
  b.add_time(x.start);
  b.add_time(x.end);
  count(x.invocations);
  b.add_real(x.invocations_per_instance);
  count(x.invocation_4xx);
  count(x.invocation_5xx);
  count(x.served);
  b.add_real_or_null(x.model_latency_avg_us);
  b.add_real_or_null(x.model_latency_p50_us);
  b.add_real_or_null(x.model_latency_p90_us);
  b.add_real_or_null(x.model_latency_p99_us);
  b.add_real_or_null(x.overhead_latency_avg_us);
  b.add_real_or_null(x.overhead_latency_p50_us);
  b.add_real_or_null(x.overhead_latency_p90_us);
  b.add_real_or_null(x.overhead_latency_p99_us);
  b.add_real_or_null(x.model_cache_hit);
  count(x.model_loading_waits);
  b.add_real_or_null(x.model_loading_wait_avg_us);
  count(x.model_downloads);
  b.add_real_or_null(x.model_downloading_avg_us);
  count(x.model_loads);
  b.add_real_or_null(x.model_loading_avg_us);
  count(x.model_unloads);
  b.add_real_or_null(x.model_unloading_avg_us);
  b.add_real(x.loaded_model_count);
  b.add_real(x.cpu_utilization);
  b.add_real(x.memory_utilization);
  b.add_int(x.instances_in_service);
  b.add_int(x.workers);
  m.end_row(b, "endpoint_metrics");
}

// ---------------------------------------------------------------------------------------
// Both kinds

void SqliteStore::checkpoint(core::Time now) {
  Impl& m = *impl_;
  m.require_open();
  m.put_meta_value("checkpoint_ns", std::to_string(now.ns()));
  if (m.kind == RunKind::Inference) m.put_meta_value("requests_reported", std::to_string(m.requests_reported));
  m.commit_and_begin();
}

void SqliteStore::record_end(EndReason reason, core::Time end) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("results database '" + m.path + "' was written after finish()");
  if (m.failure.empty()) {
    m.put_meta_value("end_reason", to_string(reason));
    m.put_meta_value("end_ns", std::to_string(end.ns()));
    return;
  }
  // After a failed write the transaction was rolled back: these two rows go in one of their
  // own, on top of what was committed.
  m.exec("BEGIN", "begin transaction");
  m.put_meta_value("end_reason", to_string(reason));
  m.put_meta_value("end_ns", std::to_string(end.ns()));
  m.exec("COMMIT", "recording the end of the run");
}

void SqliteStore::record_request_accounting(const RequestAccounting& a) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "record_request_accounting");
  if (a.served + a.rejected_503 + a.rejected_507 + a.unserved_at_end != a.arrived)
    throw std::invalid_argument("results database '" + m.path + "': request accounting does not add up: " +
                                std::to_string(a.served) + " served + " + std::to_string(a.rejected_503) +
                                " rejected 503 + " + std::to_string(a.rejected_507) + " rejected 507 + " +
                                std::to_string(a.unserved_at_end) + " unserved at the end != " +
                                std::to_string(a.arrived) + " arrived");
  m.put_meta_value("requests_arrived", std::to_string(a.arrived));
  m.put_meta_value("requests_served", std::to_string(a.served));
  m.put_meta_value("requests_rejected_503", std::to_string(a.rejected_503));
  m.put_meta_value("requests_rejected_507", std::to_string(a.rejected_507));
  m.put_meta_value("requests_unserved_at_end", std::to_string(a.unserved_at_end));
}

void SqliteStore::finish(bool keep_open) {
  Impl& m = *impl_;
  if (m.finished) return;
  m.finished = true;  // also when a step below throws: the store is closed either way
  if (!m.failure.empty()) {
    // Nothing more is written: the file keeps what was committed (and record_end's rows).
    if (!keep_open) m.close();
    return;
  }
  try {
    m.flush_all();
    if (m.kind == RunKind::Inference) m.put_meta_value("requests_reported", std::to_string(m.requests_reported));
    m.exec("COMMIT", "commit");
    // The index sorts spill to a temporary file in runs of at most cache_size bytes. With
    // temp_store = MEMORY SQLite's sorter never spills (vdbesort.c, sqlite3VdbeSorterInit: the
    // run size limit is set only when temporary files are on disk), so it would hold every key
    // of the table in memory — the process's peak then grew with the run's length (MMS blog
    // uniform, 1 h, 2.0 M model_events: 174 MiB against 82 MiB at the end of the run). The
    // committed pages beyond the smaller cache are dropped. The file's bytes do not change.
    m.exec("PRAGMA temp_store = FILE", "setting temp_store");
    m.exec("PRAGMA cache_size = -16384", "setting cache_size");
    // The data is committed first, so a failure while indexing loses no rows.
    m.exec("BEGIN", "begin transaction");
    m.exec(m.kind == RunKind::Training ? kTrainingIndexes : kInferenceIndexes, "creating indexes");
    m.exec("COMMIT", "commit");
    m.exec("PRAGMA optimize", "PRAGMA optimize");
  } catch (...) {
    m.close();
    throw;
  }
  if (!keep_open) m.close();
}

ResultTable SqliteStore::query(const std::string& sql) {
  Impl& m = *impl_;
  if (!m.db) throw std::logic_error("results database '" + m.path + "' is closed (finish() without keep_open)");
  if (!m.finished && m.failure.empty()) m.flush_all();
  return query_connection(m.db.get(), sql);
}

bool SqliteStore::failed() const noexcept { return !impl_->failure.empty(); }

void SqliteStore::set_max_pages(std::uint64_t pages) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("results database '" + m.path + "': set_max_pages after finish()");
  m.exec(("PRAGMA max_page_count = " + std::to_string(pages)).c_str(), "setting max_page_count");
}

namespace {
/// fsync of a folder, so that a rename in it survives a crash (best effort: some file
/// systems refuse to sync a folder, and the rename itself has happened either way).
void sync_folder(const std::filesystem::path& file) {
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}
}  // namespace

void SqliteStore::move_to(const std::string& new_path) {
  Impl& m = *impl_;
  if (!m.finished) throw std::logic_error("results database '" + m.path + "': move_to before finish()");
  if (m.in_memory) throw std::logic_error("results database ':memory:' has no file to move");
  const bool reopen = m.db != nullptr;
  m.close();  // SQLite must not have a file open while it is renamed (sqlite.org/howtocorrupt.html, 2.4)
  const auto open_at = [&m](const std::string& p) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(p.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    m.db.reset(raw);
    if (rc != SQLITE_OK) {
      const std::string why = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
      m.db.reset();
      throw std::runtime_error("cannot open results database '" + p + "': " + why);
    }
  };
  const std::string what = "cannot move results database '" + m.path + "' to '" + new_path + "'";
  std::error_code ec;
  try {
    if (const std::string kind = not_a_regular_file(new_path); !kind.empty())
      throw std::runtime_error(what + ": it " + kind + " (expected a regular file or a new path)");
    // The journal (and WAL files) of an earlier database there would be applied to this one
    // when it is next opened: they go first. A journal left beside this file (its last
    // transaction could not be rolled back) belongs to it and moves with it, before it, so
    // that no reader sees the file without it.
    for (const char* suffix : {"-journal", "-wal", "-shm"}) {
      const std::string p = new_path + suffix;
      if (const std::string kind = not_a_regular_file(p); !kind.empty())
        throw std::runtime_error(what + ": '" + p + "' " + kind);
      std::filesystem::remove(p, ec);
      if (ec) throw std::runtime_error(what + ": cannot remove old file '" + p + "': " + ec.message());
    }
    const std::string journal = m.path + "-journal";
    if (std::filesystem::exists(journal, ec)) std::filesystem::rename(journal, new_path + "-journal", ec);
    if (!ec) std::filesystem::rename(m.path, new_path, ec);
    if (ec) throw std::runtime_error(what + ": " + ec.message());
  } catch (...) {
    if (reopen) open_at(m.path);
    throw;
  }
  sync_folder(new_path);
  m.path = new_path;
  if (reopen) open_at(new_path);
}

void record_end_in_file(const std::string& path, EndReason reason, core::Time end) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK)
    throw std::runtime_error("cannot open results database '" + path + "': " +
                             (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  const std::string sql = std::string("BEGIN; ") + "INSERT INTO run_meta (key, value) VALUES ('end_reason', '" +
                          to_string(reason) + "'), ('end_ns', '" + std::to_string(end.ns()) +
                          "') ON CONFLICT (key) DO UPDATE SET value = excluded.value; COMMIT;";
  char* err = nullptr;
  if (sqlite3_exec(db.get(), sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = "results database '" + path + "': recording the end of the run: " +
                      (err != nullptr ? std::string(err) : std::string(sqlite3_errmsg(db.get())));
    sqlite3_free(err);
    throw std::runtime_error(msg);  // the connection's close rolls the transaction back
  }
}

std::string not_a_regular_file(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return "";  // nothing there (or unreadable: opening it will say)
  const auto kind = [](mode_t mode) -> std::string {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a fifo";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
  };
  if (!S_ISLNK(link.st_mode)) {
    const std::string k = kind(link.st_mode);
    return k.empty() ? k : "is " + k;
  }
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) return "is a symbolic link to nothing (" + std::string(std::strerror(errno)) + ")";
  const std::string k = kind(target.st_mode);
  return k.empty() ? k : "is a symbolic link to " + k;
}

namespace {
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string(buf);
}
}  // namespace

std::optional<std::int64_t> ResultColumn::int_at(std::size_t row) const {
  if (null[row] != 0) return std::nullopt;
  if (type == Type::Integer) return integers[row];
  if (type == Type::Real) return static_cast<std::int64_t>(reals[row]);
  return std::stoll(texts[row]);
}
std::optional<double> ResultColumn::real_at(std::size_t row) const {
  if (null[row] != 0) return std::nullopt;
  if (type == Type::Real) return reals[row];
  if (type == Type::Integer) return static_cast<double>(integers[row]);
  return std::stod(texts[row]);
}
std::string ResultColumn::text_at(std::size_t row) const {
  if (null[row] != 0) return {};
  if (type == Type::Text) return texts[row];
  if (type == Type::Integer) return std::to_string(integers[row]);
  return number_text(reals[row]);
}
const ResultColumn& ResultTable::column(std::string_view name) const {
  for (const auto& c : columns)
    if (c.name == name) return c;
  throw std::runtime_error("query result has no column '" + std::string(name) + "'");
}

ResultTable query_connection(void* connection, const std::string& sql) {
  auto* db = static_cast<sqlite3*>(connection);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    sqlite3_finalize(raw);
    throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  Stmt st(raw);
  if (raw == nullptr) throw std::runtime_error("SQL error: no statement in: " + sql);
  ResultTable out;
  const int n = sqlite3_column_count(raw);
  out.columns.resize(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    ResultColumn& col = out.columns[static_cast<std::size_t>(c)];
    col.name = sqlite3_column_name(raw, c);
    // A column of a table starts with the type its declaration gives it (SQLite's affinity
    // rules, sqlite.org/datatype3.html section 3.1), so that a column of NULLs only keeps it.
    if (const char* decl = sqlite3_column_decltype(raw, c)) {
      std::string d(decl);
      for (char& ch : d) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (d.find("INT") != std::string::npos) col.type = ResultColumn::Type::Integer;
      else if (d.find("CHAR") != std::string::npos || d.find("CLOB") != std::string::npos ||
               d.find("TEXT") != std::string::npos)
        col.type = ResultColumn::Type::Text;
      else if (d.find("REAL") != std::string::npos || d.find("FLOA") != std::string::npos ||
               d.find("DOUB") != std::string::npos)
        col.type = ResultColumn::Type::Real;
    }
  }
  // Columns start as their declared type (Integer for expressions and undeclared columns) and
  // are promoted, converting the rows so far, when a REAL (Integer -> Real) or TEXT/BLOB
  // (-> Text) value arrives.
  auto to_real = [](ResultColumn& col) {
    col.reals.assign(col.integers.begin(), col.integers.end());
    col.integers.clear();
    col.type = ResultColumn::Type::Real;
  };
  auto to_text = [&](ResultColumn& col) {
    col.texts.clear();
    col.texts.reserve(out.rows + 1);
    for (std::size_t i = 0; i < out.rows; ++i) {
      if (col.null[i] != 0) col.texts.emplace_back();
      else if (col.type == ResultColumn::Type::Integer) col.texts.push_back(std::to_string(col.integers[i]));
      else col.texts.push_back(number_text(col.reals[i]));
    }
    col.integers.clear();
    col.reals.clear();
    col.type = ResultColumn::Type::Text;
  };
  for (;;) {
    const int rc = sqlite3_step(raw);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(db) + " in: " + sql);
    for (int c = 0; c < n; ++c) {
      ResultColumn& col = out.columns[static_cast<std::size_t>(c)];
      const int t = sqlite3_column_type(raw, c);
      if (t == SQLITE_FLOAT && col.type == ResultColumn::Type::Integer) to_real(col);
      if ((t == SQLITE_TEXT || t == SQLITE_BLOB) && col.type != ResultColumn::Type::Text) to_text(col);
      col.null.push_back(t == SQLITE_NULL ? 1 : 0);
      switch (col.type) {
        case ResultColumn::Type::Integer: col.integers.push_back(t == SQLITE_NULL ? 0 : sqlite3_column_int64(raw, c)); break;
        case ResultColumn::Type::Real: col.reals.push_back(t == SQLITE_NULL ? 0.0 : sqlite3_column_double(raw, c)); break;
        case ResultColumn::Type::Text:
          if (t == SQLITE_NULL) col.texts.emplace_back();
          else if (t == SQLITE_INTEGER) col.texts.push_back(std::to_string(sqlite3_column_int64(raw, c)));
          else if (t == SQLITE_FLOAT) col.texts.push_back(number_text(sqlite3_column_double(raw, c)));
          else {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_blob(raw, c));
            col.texts.emplace_back(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(raw, c)));
          }
          break;
      }
    }
    ++out.rows;
  }
  return out;
}

ResultTable query_file(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK)
    throw std::runtime_error("cannot open results database '" + path + "': " +
                             (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  return query_connection(db.get(), sql);
}

bool SqliteStore::finished() const noexcept { return impl_->finished; }

const std::string& SqliteStore::path() const noexcept { return impl_->path; }

const char* to_string(RunKind k) noexcept {
  switch (k) {
    case RunKind::Training: return "training";
    case RunKind::Inference: return "inference";
  }
  return "unknown";
}

const char* to_string(EndReason r) noexcept {
  switch (r) {
    case EndReason::Completed: return "completed";
    case EndReason::Until: return "until";
    case EndReason::Interrupted: return "interrupted";
    case EndReason::Terminated: return "terminated";
    case EndReason::Failed: return "failed";
  }
  return "unknown";
}

std::optional<EndReason> end_reason_from_string(std::string_view name) noexcept {
  for (EndReason r : kEndReasons)
    if (name == to_string(r)) return r;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// hash_input_file

InputFile hash_input_file(const std::string& role, const std::string& path) {
  struct FileClose {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  struct CtxFree {
    void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
  };

  std::unique_ptr<std::FILE, FileClose> file(std::fopen(path.c_str(), "rb"));
  if (!file)
    throw std::runtime_error("cannot open input file '" + path + "': " + std::strerror(errno));

  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("cannot hash input file '" + path + "': OpenSSL SHA-256 init failed");

  InputFile out{role, path, {}, 0};
  std::array<unsigned char, 1 << 16> buf{};
  for (;;) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), file.get());
    if (n > 0) {
      if (EVP_DigestUpdate(ctx.get(), buf.data(), n) != 1)
        throw std::runtime_error("cannot hash input file '" + path + "': OpenSSL SHA-256 failed");
      out.bytes += n;
    }
    if (n < buf.size()) {
      if (std::ferror(file.get()))
        throw std::runtime_error("cannot read input file '" + path + "': " + std::strerror(errno));
      break;  // end of file
    }
  }

  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &len) != 1)
    throw std::runtime_error("cannot hash input file '" + path + "': OpenSSL SHA-256 failed");

  static constexpr char kHex[] = "0123456789abcdef";
  out.sha256.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.sha256 += kHex[digest[i] >> 4];
    out.sha256 += kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace mltwin::store
