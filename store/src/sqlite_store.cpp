// sqlite_store.cpp — SqliteStore: a run's records into the results database. The tables are
// described once, in results_schema.hpp (which docs/results-schema.md is checked against); this
// file writes rows into them, naming each column (col<T>("name"), checked at compile time).
// Beside it: row_buffer.hpp (rows on their way in), result_table.cpp (query results),
// database_file.cpp (the file: replacing, removing, the end of a run, input hashes).
#include "mltwin/store/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include "mltwin/store/results_schema.hpp"
#include "row_buffer.hpp"
#include "sqlite_handles.hpp"

namespace mltwin::store {
namespace {

using detail::bind_text;
using detail::DbHandle;
using detail::remove_database_files;
using detail::RowBuffer;
using detail::step_once;
using detail::Stmt;
using detail::UpdateBinder;

using core::Time;
namespace inf = models::inference;

// ---------------------------------------------------------------------------------------
// Schema: the tables are described once, in results_schema.hpp.

using schema::Table;

/// Whether a database of run kind `k` holds table `t`.
bool holds(RunKind k, const Table& t) {
  switch (t.holder) {
    case schema::Holder::Every: return true;
    case schema::Holder::Training: return k == RunKind::Training;
    case schema::Holder::Inference: return k == RunKind::Inference;
  }
  return false;
}

/// Index of table T in schema::kTables (compile time).
template <const Table& T>
consteval std::size_t table_index() {
  for (std::size_t i = 0; i < std::size(schema::kTables); ++i)
    if (schema::kTables[i] == &T) return i;
  throw "not a table of schema::kTables";
}
/// Slot of `column` in a row of table T's INSERT (compile time: a misspelt column does not compile).
template <const Table& T>
consteval int col(std::string_view column) {
  return schema::insert_slot(T, column);
}
/// Parameter number of `column` in table T's UPDATE (compile time).
template <const Table& T>
consteval int param(std::string_view column) {
  return schema::update_param(T, column);
}

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

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// SqliteStore::Impl

struct SqliteStore::Impl {
  std::string path;
  RunKind kind = RunKind::Training;
  DbHandle db;  // declared first, destroyed last: the statements are finalized before it
  /// One buffer per table of schema::kTables (those of the other kind of run stay unprepared).
  std::array<RowBuffer, std::size(schema::kTables)> buffers;
  std::vector<std::uint32_t> jobs_buffered;  // ids of the rows waiting in the jobs buffer
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

  void exec(const char* sql, const std::string& what) {
    char* err = nullptr;
    if (sqlite3_exec(db.get(), sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = "results database '" + path + "': " + std::string(what) + ": " +
                        (err != nullptr ? std::string(err) + reason_suffix() : sqlite_message());
      sqlite3_free(err);
      raise(std::move(msg));
    }
  }

  Stmt prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v3(db.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    Stmt owned(s);
    if (rc != SQLITE_OK) fail("preparing \"" + sql + "\"");
    return owned;
  }

  /// The row buffer of table T.
  template <const Table& T>
  RowBuffer& rows() {
    return buffers[table_index<T>()];
  }

  /// Creates the tables of this kind of run and prepares their inserts.
  void create_tables() {
    for (std::size_t i = 0; i < std::size(schema::kTables); ++i) {
      const Table& t = *schema::kTables[i];
      if (!holds(kind, t)) continue;
      exec(schema::create_table_sql(t).c_str(), "creating table " + std::string(t.name));
      // run_meta is written by put_meta_value, an upsert (checkpoint_ns and the end are rewritten).
      if (&t == &schema::kRunMeta) continue;
      buffers[i].prepare(db.get(), t);
      if (!buffers[i].prepared()) fail("preparing \"" + schema::insert_sql(t) + schema::row_placeholders(t) + "\"");
    }
  }

  void flush(RowBuffer& buf) {
    if (buf.flush() != SQLITE_OK) fail("inserting rows into " + std::string(buf.table().name));
    if (&buf == &rows<schema::kJobs>()) jobs_buffered.clear();
  }

  void flush_all() {
    // A buffer of the other run kind is never prepared and never holds rows: it is skipped.
    for (RowBuffer& b : buffers)
      if (b.prepared()) flush(b);
  }

  /// Completes a buffered row: flushes the buffer when full, and commits after
  /// kRowsPerTransaction recorded rows.
  void end_row(RowBuffer& buf) {
    if (buf.end_row()) flush(buf);
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
    for (RowBuffer& b : buffers) b.close();
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
  m.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str(),
         "setting user_version");
  m.create_tables();
  if (m.kind == RunKind::Training) {
    m.exec(std::string(schema::kJobTimesView).c_str(), "creating view job_times");
    m.jobs_buffered.reserve(RowBuffer::kBatchRows);
    m.update_job = m.prepare(schema::update_sql(schema::kJobs));
    m.end_node = m.prepare(schema::update_sql(schema::kNodes));
  }
  m.put_meta = m.prepare(schema::insert_sql(schema::kRunMeta) + schema::row_placeholders(schema::kRunMeta) +
                         " ON CONFLICT (key) DO UPDATE SET value = excluded.value");

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

  for (const InputFile& f : meta.inputs) {
    RowBuffer& b = m.rows<schema::kInputs>();
    b.set_text(col<schema::kInputs>("role"), f.role);
    b.set_text(col<schema::kInputs>("path"), f.path);
    b.set_text(col<schema::kInputs>("sha256"), f.sha256);
    b.set_int(col<schema::kInputs>("bytes"), static_cast<std::int64_t>(f.bytes));
    m.end_row(b);
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
  constexpr const Table& T = schema::kJobs;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), j.job);
  b.set_text(col<T>("name"), j.name);
  b.set_text(col<T>("queue"), j.queue);
  b.set_int(col<T>("submit_ns"), j.submit.ns());
  b.set_int(col<T>("nnodes"), j.nnodes);
  b.set_int(col<T>("nproc_per_node"), j.nproc_per_node);
  b.set_int(col<T>("neuron_devices_per_pod"), j.neuron_devices_per_pod);
  b.set_real(col<T>("cpu_per_pod"), j.cpu_per_pod);
  b.set_real(col<T>("memory_gib_per_pod"), j.memory_gib_per_pod);
  b.set_int(col<T>("efa_per_pod"), j.efa_per_pod);
  b.set_text_or_null(col<T>("neuron_resource"), j.neuron_resource);
  b.set_text_or_null(col<T>("other_requests"), j.other_requests);
  b.set_real(col<T>("duration_s"), j.duration_s);
  b.set_int(col<T>("trace_row"), j.trace_row);
  b.set_int(col<T>("trace_gpus"), j.trace_gpus);
  b.set_text(col<T>("phase"), "Pending");  // until job_final
  j.steps > 0 ? b.set_int(col<T>("steps"), j.steps) : b.set_null(col<T>("steps"));
  m.jobs_buffered.push_back(j.job);
  m.end_row(b);
}

void SqliteStore::job_final(const models::JobFinal& j) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "job_final");
  constexpr const Table& T = schema::kJobs;
  // The row to update may still be waiting in the insert buffer.
  if (std::find(m.jobs_buffered.begin(), m.jobs_buffered.end(), j.job) != m.jobs_buffered.end())
    m.flush(m.rows<T>());

  UpdateBinder u(m.update_job.get(), T);
  u.integer(1, j.job);
  u.text(param<T>("phase"), j.phase);
  u.text_or_null(param<T>("podgroup_phase"), j.podgroup_phase);
  u.time(param<T>("inqueue_ns"), j.inqueue);
  u.time(param<T>("scheduled_ns"), j.scheduled);
  u.time(param<T>("start_ns"), j.start);
  u.time(param<T>("end_ns"), j.end);
  u.text_or_null(param<T>("nodes"), j.nodes);
  u.text_or_null(param<T>("reason"), j.reason);
  u.integer(param<T>("restarts"), j.restarts);
  u.real(param<T>("lost_training_s"), j.lost_training_s);
  u.real(param<T>("startup_s"), j.startup_s);
  // The start-up breakdown: NULL when the scenario has no startup block.
  const auto startup_real = [&](int p, double v) { j.startup_modelled ? u.real(p, v) : u.null(p); };
  j.startup_modelled ? u.time(param<T>("training_start_ns"), j.training_start) : u.null(param<T>("training_start_ns"));
  startup_real(param<T>("image_pull_s"), j.image_pull_s);
  startup_real(param<T>("rendezvous_s"), j.rendezvous_s);
  startup_real(param<T>("compile_s"), j.compile_s);
  u.text_or_null(param<T>("compile_cache"), j.startup_modelled ? std::string_view(j.compile_cache) : std::string_view());
  startup_real(param<T>("dataset_read_s"), j.dataset_read_s);
  // The computing / communicating / synchronisation split exists only with derived durations.
  const auto derived_real = [&](int p, double v) { j.derived ? u.real(p, v) : u.null(p); };
  derived_real(param<T>("compute_s"), j.compute_s);
  derived_real(param<T>("communication_s"), j.communication_s);
  derived_real(param<T>("sync_s"), j.sync_s);
  derived_real(param<T>("step_s"), j.step_s);
  m.check(u.rc(), "binding a jobs update");
  m.check(step_once(m.update_job.get()), "updating a jobs row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': job_final for job " +
                             std::to_string(j.job) + ", which was never submitted");
  m.row_written();
}

void SqliteStore::pod_event(const models::PodEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "pod_event");
  constexpr const Table& T = schema::kPods;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), e.job);
  b.set_int(col<T>("pod"), e.pod);
  b.set_text(col<T>("event"), e.event);
  b.set_text_or_null(col<T>("node"), e.node);
  b.set_time(col<T>("t_ns"), e.t);
  m.end_row(b);
}

void SqliteStore::decision(const models::Decision& d) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "decision");
  constexpr const Table& T = schema::kDecisions;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), d.job);
  b.set_time(col<T>("t_ns"), d.t);
  b.set_text(col<T>("code"), d.code);
  b.set_text_or_null(col<T>("plugin"), d.plugin);
  b.set_text_or_null(col<T>("reason"), d.reason);
  m.end_row(b);
}

void SqliteStore::phase_change(const models::PhaseChange& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "phase_change");
  constexpr const Table& T = schema::kPhases;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), p.job);
  b.set_time(col<T>("t_ns"), p.t);
  b.set_text(col<T>("from_phase"), p.from);
  b.set_text(col<T>("to_phase"), p.to);
  m.end_row(b);
}

void SqliteStore::node_event(const models::NodeEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_event");
  constexpr const Table& T = schema::kNodeEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_text(col<T>("node"), e.node);
  b.set_text(col<T>("node_group"), e.group);
  b.set_text(col<T>("event"), e.event);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::node_launched(const models::NodeLaunched& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_launched");
  constexpr const Table& T = schema::kNodes;
  RowBuffer& b = m.rows<T>();
  b.set_text(col<T>("node"), n.node);
  b.set_text(col<T>("node_group"), n.group);
  b.set_text(col<T>("instance_type"), n.instance_type);
  b.set_text(col<T>("capacity_type"), n.capacity_type);
  b.set_text_or_null(col<T>("zone"), n.zone);
  b.set_time(col<T>("launch_ns"), n.t);
  b.set_real(col<T>("usd_per_hour"), n.usd_per_hour);
  b.set_text(col<T>("price_source"), n.price_source);
  m.end_row(b);
}

void SqliteStore::node_ended(const models::NodeEnded& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_ended");
  constexpr const Table& T = schema::kNodes;
  // The row may still be waiting in the insert buffer (nodes end rarely: flush it whole).
  m.flush(m.rows<T>());
  UpdateBinder u(m.end_node.get(), T);
  u.text(1, n.node);
  u.time(param<T>("end_ns"), n.t);
  m.check(u.rc(), "binding a nodes update");
  m.check(step_once(m.end_node.get()), "updating a nodes row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': node_ended for node '" + std::string(n.node) +
                             "', which was never launched");
  m.row_written();
}

void SqliteStore::link_usage(const models::LinkUsage& l) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "link_usage");
  constexpr const Table& T = schema::kLinkUsage;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("start_ns"), l.start);
  b.set_time(col<T>("end_ns"), l.end);
  b.set_text(col<T>("link"), l.link);
  b.set_real(col<T>("bytes"), l.bytes);
  b.set_real(col<T>("utilisation"), l.utilisation);
  m.end_row(b);
}

void SqliteStore::step_period(const models::StepPeriod& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "step_periods");
  constexpr const Table& T = schema::kStepPeriods;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), p.job);
  b.set_int(col<T>("attempt"), p.attempt);
  b.set_time(col<T>("start_ns"), p.start);
  b.set_time(col<T>("end_ns"), p.end);
  b.set_int(col<T>("nodes"), p.nodes);
  p.nodes > 1 ? b.set_real(col<T>("efa_gbps"), p.efa_gbps) : b.set_null(col<T>("efa_gbps"));
  b.set_real(col<T>("step_s"), p.step_s);
  b.set_real(col<T>("communication_s"), p.communication_s);
  b.set_real(col<T>("steps"), p.steps);
  b.set_text(col<T>("end_reason"), p.end_reason);
  m.end_row(b);
}

void SqliteStore::sample(const models::ClusterSample& c) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "sample");
  constexpr const Table& T = schema::kClusterMetrics;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), c.t);
  b.set_real(col<T>("neuroncores_allocated"), c.neuroncores_allocated);
  b.set_real(col<T>("neuroncores_total"), c.neuroncores_total);
  if (c.neuroncores_total > 0)
    b.set_real(col<T>("allocation_ratio"), c.neuroncores_allocated / c.neuroncores_total);
  else
    b.set_null(col<T>("allocation_ratio"));
  b.set_int(col<T>("jobs_pending"), c.jobs_pending);
  b.set_int(col<T>("jobs_inqueue"), c.jobs_inqueue);
  b.set_int(col<T>("jobs_running"), c.jobs_running);
  b.set_int(col<T>("pods_running"), c.pods_running);
  m.end_row(b);
}

// ---------------------------------------------------------------------------------------
// Inference tables

void SqliteStore::request(const inf::RequestDone& r) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "request");
  ++m.requests_reported;
  if (!m.sampling.keeps(r.id)) return;
  constexpr const Table& T = schema::kRequests;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("id"), static_cast<std::int64_t>(r.id));
  b.set_int(col<T>("model"), r.model);
  r.instance < 0 ? b.set_null(col<T>("instance")) : b.set_int(col<T>("instance"), r.instance);
  b.set_time(col<T>("arrival_ns"), r.arrival);
  // status 0: still in flight when the run ended, never answered
  r.status == 0 ? b.set_null(col<T>("done_ns")) : b.set_time(col<T>("done_ns"), r.done);
  b.set_int(col<T>("status"), r.status);
  b.set_int(col<T>("overhead_latency_ns"), r.overhead_ns);
  b.set_int(col<T>("model_loading_wait_ns"), r.loading_wait_ns);
  b.set_int(col<T>("model_latency_ns"), r.model_latency_ns);
  b.set_int(col<T>("queue_ns"), r.queue_ns);
  b.set_int(col<T>("batch_size"), r.batch);
  b.set_int(col<T>("cache_hit"), r.cache_hit ? 1 : 0);
  m.end_row(b);
}

void SqliteStore::model_event(const inf::ModelEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "model_event");
  constexpr const Table& T = schema::kModelEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_int(col<T>("instance"), e.instance);
  b.set_int(col<T>("model"), e.model);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("bytes"), static_cast<std::int64_t>(e.bytes));
  has_duration(e.kind) ? b.set_int(col<T>("duration_ns"), e.duration_ns) : b.set_null(col<T>("duration_ns"));
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::worker_event(const inf::WorkerEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "worker_event");
  constexpr const Table& T = schema::kWorkerEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_int(col<T>("instance"), e.instance);
  b.set_int(col<T>("model"), e.model);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("temporary"), e.temporary ? 1 : 0);
  b.set_int(col<T>("workers_after"), e.workers_after);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::instance_event(const inf::InstanceEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "instance_event");
  constexpr const Table& T = schema::kInstanceEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  // DesiredChanged is about the endpoint's desired count, not one instance.
  if (e.kind == inf::InstanceEvent::Kind::DesiredChanged)
    b.set_null(col<T>("instance"));
  else
    b.set_int(col<T>("instance"), e.instance);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("desired_after"), e.desired_after);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::minute(const inf::MinuteMetrics& x) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "minute");
  constexpr const Table& T = schema::kEndpointMetrics;
  RowBuffer& b = m.rows<T>();
  const auto count = [&b](int slot, std::uint64_t v) { b.set_int(slot, static_cast<std::int64_t>(v)); };
  b.set_time(col<T>("start_ns"), x.start);
  b.set_time(col<T>("end_ns"), x.end);
  count(col<T>("invocations"), x.invocations);
  b.set_real(col<T>("invocations_per_instance"), x.invocations_per_instance);
  count(col<T>("invocation_4xx_errors"), x.invocation_4xx);
  count(col<T>("invocation_5xx_errors"), x.invocation_5xx);
  count(col<T>("model_latency_count"), x.served);
  b.set_real_or_null(col<T>("model_latency_avg_us"), x.model_latency_avg_us);
  b.set_real_or_null(col<T>("model_latency_p50_us"), x.model_latency_p50_us);
  b.set_real_or_null(col<T>("model_latency_p90_us"), x.model_latency_p90_us);
  b.set_real_or_null(col<T>("model_latency_p99_us"), x.model_latency_p99_us);
  b.set_real_or_null(col<T>("overhead_latency_avg_us"), x.overhead_latency_avg_us);
  b.set_real_or_null(col<T>("overhead_latency_p50_us"), x.overhead_latency_p50_us);
  b.set_real_or_null(col<T>("overhead_latency_p90_us"), x.overhead_latency_p90_us);
  b.set_real_or_null(col<T>("overhead_latency_p99_us"), x.overhead_latency_p99_us);
  b.set_real_or_null(col<T>("model_cache_hit"), x.model_cache_hit);
  count(col<T>("model_loading_wait_time_count"), x.model_loading_waits);
  b.set_real_or_null(col<T>("model_loading_wait_time_avg_us"), x.model_loading_wait_avg_us);
  count(col<T>("model_downloading_time_count"), x.model_downloads);
  b.set_real_or_null(col<T>("model_downloading_time_avg_us"), x.model_downloading_avg_us);
  count(col<T>("model_loading_time_count"), x.model_loads);
  b.set_real_or_null(col<T>("model_loading_time_avg_us"), x.model_loading_avg_us);
  count(col<T>("model_unloading_time_count"), x.model_unloads);
  b.set_real_or_null(col<T>("model_unloading_time_avg_us"), x.model_unloading_avg_us);
  b.set_real(col<T>("loaded_model_count"), x.loaded_model_count);
  b.set_real(col<T>("cpu_utilization_pct"), x.cpu_utilization);
  b.set_real(col<T>("memory_utilization_pct"), x.memory_utilization);
  b.set_int(col<T>("instances_in_service"), x.instances_in_service);
  b.set_int(col<T>("workers"), x.workers);
  m.end_row(b);
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
    std::string indexes;
    for (const Table* t : schema::kTables)
      if (holds(m.kind, *t)) indexes += schema::index_sql(*t);
    m.exec(indexes.c_str(), "creating indexes");
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

}  // namespace mltwin::store
