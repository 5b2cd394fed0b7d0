// store_impl.hpp — SqliteStore's state (SqliteStore::Impl) and the compile-time column slots,
// shared by sqlite_store.cpp (opening, committing, finishing, moving the file) and
// store_records.cpp (one recorder call per table). Internal to the store.
#pragma once
#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/store/results_schema.hpp"
#include "mltwin/store/sqlite_store.hpp"
#include "row_buffer.hpp"
#include "sqlite_handles.hpp"

namespace mltwin::store {
namespace detail {

using core::Time;
namespace inf = models::inference;

// ---------------------------------------------------------------------------------------
// Schema: the tables are described once, in results_schema.hpp.

using schema::Table;

/// Whether a database of run kind `k` holds table `t`.
inline bool holds(RunKind k, const Table& t) {
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
  // By name (unique), not by address: GCC 12 does not take comparing two objects' addresses as
  // a constant expression under -fsanitize=undefined.
  for (std::size_t i = 0; i < std::size(schema::kTables); ++i)
    if (schema::kTables[i]->name == T.name) return i;
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

}  // namespace detail

using detail::bind_text;
using detail::holds;
using detail::DbHandle;
using detail::RowBuffer;
using detail::step_once;
using detail::Stmt;
using detail::Table;
using detail::table_index;

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

}  // namespace mltwin::store
