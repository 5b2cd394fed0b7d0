// row_buffer.hpp — the rows of a table on their way into SQLite, and the parameters of an
// UPDATE, each set by column name through the one description of the tables
// (results_schema.hpp). Internal to the store.
#pragma once
#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/store/results_schema.hpp"
#include "sqlite_handles.hpp"

namespace mltwin::store::detail {

using core::Time;
using schema::Table;

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
    values_.resize(static_cast<std::size_t>(kBatchRows * columns_));  // every row's slots, once
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
    return ++rows_ == kBatchRows;
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
  std::vector<Value> values_;         // kBatchRows * columns_ slots, row after row (rows_ of them full)
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

}  // namespace mltwin::store::detail
