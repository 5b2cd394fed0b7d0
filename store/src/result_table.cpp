// result_table.cpp — query results as columns (ResultTable), from a store's connection or a
// database file (see sqlite_store.hpp).
#include <sqlite3.h>

#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "mltwin/store/sqlite_store.hpp"
#include "sqlite_handles.hpp"

namespace mltwin::store {

using detail::DbHandle;
using detail::Stmt;

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

}  // namespace mltwin::store
