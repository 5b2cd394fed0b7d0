// sqlite_store.cpp — SqliteStore: the results database of a run — created with its tables
// (described once, in results_schema.hpp), committed at checkpoints, finished (indexes, the
// end of the run), moved into place. Beside it: store_records.cpp (one recorder call per
// table), store_impl.hpp (the store's state), row_buffer.hpp (rows on their way in),
// result_table.cpp (query results), database_file.cpp (replacing and removing a file, the end
// of a run in a file, input hashes).
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

#include "store_impl.hpp"

namespace mltwin::store {

using namespace detail;

namespace {

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

constexpr std::array<std::string_view, 12> kBuiltinMetaKeys = {
    "schema_version", "mltwin_version", "git_sha",     "volcano_release", "seed",       "scenario_path",
    "scenario_json",  "until",          "rng_streams", "checkpoint_ns",   "end_reason", "end_ns"};
// Built-in keys added with inference runs (schema version 3), and their request accounting
// (schema version 6; the invocation timeout's 424 and 429, version 8; a SingleModel server's
// 404, version 9).
constexpr std::array<std::string_view, 13> kBuiltinMetaKeys3 = {
    "run_kind",          "request_records_full", "request_sample_every",  "request_sampling",
    "requests_reported", "requests_arrived",     "requests_served",       "requests_rejected_503",
    "requests_rejected_507", "requests_timed_out_424", "requests_not_ready_429", "requests_not_found_404",
    "requests_unserved_at_end"};

}  // namespace

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
  if (a.served + a.rejected_503 + a.rejected_507 + a.timed_out_424 + a.not_ready_429 + a.not_found_404 + a.unserved_at_end !=
      a.arrived)
    throw std::invalid_argument("results database '" + m.path + "': request accounting does not add up: " +
                                std::to_string(a.served) + " served + " + std::to_string(a.rejected_503) +
                                " rejected 503 + " + std::to_string(a.rejected_507) + " rejected 507 + " +
                                std::to_string(a.timed_out_424) + " timed out 424 + " +
                                std::to_string(a.not_ready_429) + " not ready 429 + " +
                                std::to_string(a.not_found_404) + " not found 404 + " +
                                std::to_string(a.unserved_at_end) + " unserved at the end != " +
                                std::to_string(a.arrived) + " arrived");
  m.put_meta_value("requests_arrived", std::to_string(a.arrived));
  m.put_meta_value("requests_served", std::to_string(a.served));
  m.put_meta_value("requests_rejected_503", std::to_string(a.rejected_503));
  m.put_meta_value("requests_rejected_507", std::to_string(a.rejected_507));
  m.put_meta_value("requests_timed_out_424", std::to_string(a.timed_out_424));
  m.put_meta_value("requests_not_ready_429", std::to_string(a.not_ready_429));
  m.put_meta_value("requests_not_found_404", std::to_string(a.not_found_404));
  m.put_meta_value("requests_unserved_at_end", std::to_string(a.unserved_at_end));
}

void SqliteStore::record_deadlock(const std::string& deadlock_json) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "record_deadlock");
  m.put_meta_value("deadlock", deadlock_json);
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
