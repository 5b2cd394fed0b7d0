// sqlite_handles.hpp — thin RAII and binding helpers over the SQLite C API, shared by the
// store's source files (internal).
#pragma once
#include <sqlite3.h>

#include <memory>
#include <string>
#include <string_view>

namespace mltwin::store::detail {

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
inline int bind_text(sqlite3_stmt* s, int i, std::string_view v) {
  // A default-constructed string_view has data() == nullptr, which SQLite would store as
  // NULL; an empty string is meant.
  const char* p = v.data() != nullptr ? v.data() : "";
  return sqlite3_bind_text64(s, i, p, v.size(), SQLITE_STATIC, SQLITE_UTF8);
}
/// Steps a fully bound write statement once and resets it; SQLITE_OK or the error code.
inline int step_once(sqlite3_stmt* s) {
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/// Removes the database file at `path` and the journal, WAL and shared-memory files SQLite
/// keeps beside it (`what` opens the error message). Only regular files (or symbolic links to
/// them) are removed: anything else there is an error (std::runtime_error), and is left alone.
void remove_database_files(const std::string& path, const std::string& what);

}  // namespace mltwin::store::detail
