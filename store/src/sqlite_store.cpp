// sqlite_store.cpp — SqliteStore and hash_input_file. The tables are described once, in
// results_schema.hpp (which docs/results-schema.md is checked against); this file writes rows
// into them, naming each column (col<T>("name"), checked at compile time).
#include "mltwin/store/sqlite_store.hpp"

#include "mltwin/store/results_schema.hpp"

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
///
/// A row is built by column: set_*(col<T>("name"), value) in any order; end_row() checks that
/// every column of the INSERT got a value.
class RowBuffer {
 public:
  static constexpr int kBatchRows = 32;

  /// Prepares the INSERT of `t`'s columns written at insert (schema::insert_sql).
  void prepare(sqlite3* db, const Table& t) {
    table_ = &t;
    columns_ = schema::count(t, schema::kInsert);
    full_ = columns_ == 64 ? ~0ULL : (1ULL << columns_) - 1;
    const std::string insert = schema::insert_sql(t), row = schema::row_placeholders(t);
    std::string many = insert;
    for (int r = 0; r < kBatchRows; ++r) (many += (r > 0 ? ", " : "")) += row;
    one_ = prepare_persistent(db, insert + row);
    batch_ = prepare_persistent(db, many);
    values_.reserve(static_cast<std::size_t>(kBatchRows * columns_));
    values_.resize(static_cast<std::size_t>(columns_));
  }

  bool prepared() const { return one_ && batch_; }
  const Table& table() const { return *table_; }

  // The values of the row being built, by slot (col<T>("name")).
  void set_int(int slot, std::int64_t v) { put(slot, {Value::Int, v, 0, 0}); }
  void set_real(int slot, double v) { put(slot, {Value::Real, 0, v, 0}); }
  /// NaN ("no value": a statistic over no samples) is stored as NULL.
  void set_real_or_null(int slot, double v) { std::isnan(v) ? set_null(slot) : set_real(slot, v); }
  void set_null(int slot) { put(slot, {Value::Null, 0, 0, 0}); }
  /// Time::max() ("never") is stored as NULL.
  void set_time(int slot, Time t) { t == Time::max() ? set_null(slot) : set_int(slot, t.ns()); }
  void set_text(int slot, std::string_view v) {
    put(slot, {Value::Text, static_cast<std::int64_t>(text_.size()), 0, v.size()});
    text_.append(v);
  }
  /// Empty text is stored as NULL (the optional columns: node, plugin, reason).
  void set_text_or_null(int slot, std::string_view v) { v.empty() ? set_null(slot) : set_text(slot, v); }

  /// Completes the row; true when the buffer is full and must be flushed. Throws
  /// std::logic_error (a bug in the store) if a column got no value.
  bool end_row() {
    if (set_ != full_) missing_column();
    set_ = 0;
    if (++rows_ == kBatchRows) return true;
    values_.resize(static_cast<std::size_t>((rows_ + 1) * columns_));
    return false;
  }

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
    values_.resize(static_cast<std::size_t>(columns_));
    text_.clear();
    rows_ = 0;
    set_ = 0;
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

  void put(int slot, const Value& v) {
    values_[static_cast<std::size_t>(rows_ * columns_ + slot)] = v;
    set_ |= 1ULL << slot;
  }
  [[noreturn]] void missing_column() const {
    int slot = 0;
    for (const schema::Column& c : table_->columns) {
      if ((c.written & schema::kInsert) == 0) continue;
      if ((set_ & (1ULL << slot)) == 0)
        throw std::logic_error("results store: a row of " + std::string(table_->name) + " has no value for column " +
                               std::string(c.name));
      ++slot;
    }
    throw std::logic_error("results store: a row of " + std::string(table_->name) + " is incomplete");
  }

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
      const int p = first_param + c + 1;
      switch (v.kind) {
        case Value::Null: rc = sqlite3_bind_null(s, p); break;
        case Value::Int: rc = sqlite3_bind_int64(s, p, v.i); break;
        case Value::Real: rc = sqlite3_bind_double(s, p, v.r); break;
        case Value::Text:
          rc = bind_text(s, p, std::string_view(text_).substr(static_cast<std::size_t>(v.i), v.len));
          break;
      }
    }
    return rc;
  }

  const Table* table_ = nullptr;
  int columns_ = 0;
  int rows_ = 0;
  std::uint64_t set_ = 0, full_ = 0;  // the slots of the row being built that have a value; all of them
  std::vector<Value> values_;         // (rows_ + 1) * columns_ values, row after row
  std::string text_;                  // the text values, back to back
  Stmt one_, batch_;
};

/// Binds the parameters of an UPDATE by number (param<T>("name"); ?1 is the row's key) and
/// checks that every one got a value before the statement runs.
class UpdateBinder {
 public:
  UpdateBinder(sqlite3_stmt* s, const Table& t) : s_(s), full_((1ULL << (1 + schema::count(t, schema::kUpdate))) - 1) {}
  void integer(int p, std::int64_t v) { done(p, sqlite3_bind_int64(s_, p, v)); }
  void real(int p, double v) { done(p, sqlite3_bind_double(s_, p, v)); }
  void null(int p) { done(p, sqlite3_bind_null(s_, p)); }
  void text(int p, std::string_view v) { done(p, bind_text(s_, p, v)); }
  void text_or_null(int p, std::string_view v) { v.empty() ? null(p) : text(p, v); }
  void time(int p, Time t) { t == Time::max() ? null(p) : integer(p, t.ns()); }
  /// SQLITE_OK once every parameter is bound, else the first error (or SQLITE_MISUSE: one unbound).
  int rc() const { return rc_ != SQLITE_OK ? rc_ : (set_ == full_ ? SQLITE_OK : SQLITE_MISUSE); }

 private:
  void done(int p, int rc) {
    if (rc_ == SQLITE_OK) rc_ = rc;
    set_ |= 1ULL << (p - 1);
  }
  sqlite3_stmt* s_;
  std::uint64_t full_, set_ = 0;
  int rc_ = SQLITE_OK;
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

void record_end_in_file(const std::string& path, EndReason reason, core::Time end) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK)
    throw std::runtime_error("cannot open results database '" + path + "': " +
                             (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  const std::string sql = std::string("BEGIN; ") + schema::insert_sql(schema::kRunMeta) + "('end_reason', '" +
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
