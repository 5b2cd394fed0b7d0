// database_file.cpp — the results database as a file: what may be replaced, removing an old
// one with its journal, recording the end of a run in a file the store no longer holds, and
// the SHA-256 of the run's input files (see sqlite_store.hpp).
#include <sqlite3.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "mltwin/store/results_schema.hpp"
#include "mltwin/store/sqlite_store.hpp"
#include "sqlite_handles.hpp"

namespace mltwin::store {

using detail::DbHandle;

namespace detail {
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
}  // namespace detail

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
