// Golden digests: four reference runs of the mltwin CLI, every table of each database reduced
// to a SHA-256, compared with the values checked in at tests/golden/digests.json.
//
//   philly-20k-default          the first 20,000 Philly jobs, Volcano's default configuration
//   philly-20k-preempt-reclaim  the same jobs with preempt and reclaim (evictions, restarts)
//   philly-3k-derived           3,000 jobs, run times derived from the step model on a shared fabric
//   djl-blog-10m                the AWS blog's MME load test on DJL Serving, 10 simulated minutes
//
// What is digested: every table (views derive from them) row by row in rowid order, each
// value with its SQLite type (integers and reals by their exact bits, text and blobs by their
// bytes), and the table's column names; run_meta without the keys that name the build
// (git_sha, mltwin_version). So the digests change exactly when a run's recorded behaviour or
// the results schema changes.
//
// A change that alters behaviour must update the digests in the same commit and say why:
//
//   MLTWIN_UPDATE_GOLDEN=1 build/tests/e2e/test_golden     (rewrites tests/golden/digests.json)
//
// On a mismatch the test names each table whose rows or digest differ; the four databases are
// kept under the build folder (tests/e2e/golden-runs/) to compare with the previous commit's.
// Needs the real traces (../shared/data or MLTWIN_DATA), like test_e2e_philly; about 30 s.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#if !defined(MLTWIN_SOURCE_DIR) || !defined(MLTWIN_CLI) || !defined(MLTWIN_GOLDEN_RUNS)
#error "MLTWIN_SOURCE_DIR, MLTWIN_CLI and MLTWIN_GOLDEN_RUNS must be defined by the build"
#endif

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSource = MLTWIN_SOURCE_DIR;
const std::string kDigests = kSource + "/tests/golden/digests.json";

struct GoldenRun {
  std::string name;
  std::vector<std::string> args;  ///< after `mltwin run`, before --out
};

// The reference runs. Changing one is a behaviour change of this test: update the digests.
const std::vector<GoldenRun>& golden_runs() {
  static const std::vector<GoldenRun> runs = {
      {"philly-20k-default", {"scenarios/eks-trn1-philly.json", "--max-jobs", "20000"}},
      {"philly-20k-preempt-reclaim", {"scenarios/eks-trn1-philly-preempt-reclaim.json", "--max-jobs", "20000"}},
      {"philly-3k-derived", {"scenarios/eks-trn1-philly-derived.json", "--max-jobs", "3000"}},
      {"djl-blog-10m", {"scenarios/mme-djl-blog-top-n.json", "--until", "10m"}},
  };
  return runs;
}

// run_meta keys that name the build rather than the run.
bool build_key(const std::string& key) { return key == "git_sha" || key == "mltwin_version"; }

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }
  void add(const void* p, std::size_t n) { EVP_DigestUpdate(ctx_.get(), p, n); }
  void add_u64(std::uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));  // little-endian
    add(b, 8);
  }
  void add_bytes(const void* p, std::size_t n) {  // length-prefixed: "ab"+"c" differs from "a"+"bc"
    add_u64(n);
    add(p, n);
  }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx_.get(), md, &len);
    static const char* d = "0123456789abcdef";
    std::string s;
    for (unsigned i = 0; i < len; ++i) {
      s += d[md[i] >> 4];
      s += d[md[i] & 15];
    }
    return s;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

struct Db {
  sqlite3* db = nullptr;
  explicit Db(const std::string& path) {
    REQUIRE_MESSAGE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK, path);
  }
  ~Db() { sqlite3_close(db); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
};

struct Stmt {
  sqlite3_stmt* st = nullptr;
  Stmt(sqlite3* db, const std::string& sql) {
    REQUIRE_MESSAGE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK, sql << ": " << sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(st); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
};

/// {table: {"rows": n, "sha256": hex}} for every table of the database at `path`.
json digest_database(const std::string& path) {
  Db db(path);
  std::vector<std::string> tables;
  {
    Stmt s(db.db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    while (sqlite3_step(s.st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s.st, 0)));
  }
  json out = json::object();
  for (const auto& t : tables) {
    Stmt s(db.db, "SELECT * FROM \"" + t + "\" ORDER BY rowid");
    Sha256 h;
    const int ncol = sqlite3_column_count(s.st);
    for (int c = 0; c < ncol; ++c) {
      const char* name = sqlite3_column_name(s.st, c);
      h.add_bytes(name, std::strlen(name));
    }
    std::uint64_t rows = 0;
    int rc = 0;
    while ((rc = sqlite3_step(s.st)) == SQLITE_ROW) {
      if (t == "run_meta" && build_key(reinterpret_cast<const char*>(sqlite3_column_text(s.st, 0)))) continue;
      ++rows;
      for (int c = 0; c < ncol; ++c) {
        const int type = sqlite3_column_type(s.st, c);
        const unsigned char tag = static_cast<unsigned char>(type);
        h.add(&tag, 1);
        switch (type) {
          case SQLITE_INTEGER: h.add_u64(static_cast<std::uint64_t>(sqlite3_column_int64(s.st, c))); break;
          case SQLITE_FLOAT: {
            const double v = sqlite3_column_double(s.st, c);
            std::uint64_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            h.add_u64(bits);
            break;
          }
          case SQLITE_TEXT:
          case SQLITE_BLOB: {
            const void* p = type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(s.st, c)) : sqlite3_column_blob(s.st, c);
            h.add_bytes(p, static_cast<std::size_t>(sqlite3_column_bytes(s.st, c)));
            break;
          }
          default: break;  // NULL: the tag alone
        }
      }
    }
    REQUIRE_MESSAGE(rc == SQLITE_DONE, path << ": reading " << t << ": " << sqlite3_errmsg(db.db));
    out[t] = {{"rows", rows}, {"sha256", h.hex()}};
  }
  return out;
}

/// Runs the CLI (cwd = the source folder, so the scenario paths are the ones written above),
/// output to `log`; returns the exit status.
int run_cli(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&fa, kSource.c_str());
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE_MESSAGE(rc == 0, "posix_spawn " << args[0] << ": " << std::strerror(rc));
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE_MESSAGE(WIFEXITED(status), args[0] << " killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  return WEXITSTATUS(status);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("golden digests: every table of the four reference runs is as checked in") {
  const bool update = std::getenv("MLTWIN_UPDATE_GOLDEN") != nullptr && std::string(std::getenv("MLTWIN_UPDATE_GOLDEN")) == "1";
  const fs::path dir = MLTWIN_GOLDEN_RUNS;
  fs::create_directories(dir);

  json expected;
  if (!update) {
    std::ifstream in(kDigests);
    REQUIRE_MESSAGE(in.good(), "missing " << kDigests << " (create it with MLTWIN_UPDATE_GOLDEN=1)");
    expected = json::parse(in);
  }

  json now = {{"about",
               "Digests of every table of four reference runs (tests/e2e/test_golden.cpp). A commit that changes "
               "one says why. Regenerate: MLTWIN_UPDATE_GOLDEN=1 build/tests/e2e/test_golden"},
              {"runs", json::object()}};
  for (const auto& r : golden_runs()) {
    const std::string db = (dir / (r.name + ".sqlite")).string();
    const std::string log = (dir / (r.name + ".log")).string();
    std::vector<std::string> args = {MLTWIN_CLI, "run"};
    args.insert(args.end(), r.args.begin(), r.args.end());
    args.insert(args.end(), {"--no-progress", "--out", db});
    const int rc = run_cli(args, log);
    REQUIRE_MESSAGE(rc == 0, r.name << ": mltwin run exited " << rc << ":\n" << slurp(log));
    now["runs"][r.name] = {{"args", r.args}, {"tables", digest_database(db)}};
  }

  if (update) {
    std::ofstream out(kDigests);
    out << now.dump(1) << "\n";
    REQUIRE(out.good());
    MESSAGE("rewrote " << kDigests);
    return;
  }

  for (const auto& r : golden_runs()) {
    CAPTURE(r.name);
    REQUIRE_MESSAGE(expected["runs"].contains(r.name), "no digests for " << r.name << " in " << kDigests);
    const json& exp = expected["runs"][r.name];
    CHECK_MESSAGE(exp["args"] == json(r.args), r.name << ": the reference run's arguments changed: update the digests");
    const json& got = now["runs"][r.name]["tables"];
    for (const auto& [table, e] : exp["tables"].items()) {
      if (!got.contains(table)) {
        FAIL_CHECK(r.name << ": table " << table << " is gone");
        continue;
      }
      const json& g = got[table];
      CHECK_MESSAGE(g == e, r.name << ": table " << table << " differs: expected " << e["rows"] << " rows, sha256 "
                                   << e["sha256"] << "; got " << g["rows"] << " rows, sha256 " << g["sha256"]
                                   << " (database kept: " << (dir / (r.name + ".sqlite")).string() << ")");
    }
    for (const auto& [table, g] : got.items())
      CHECK_MESSAGE(exp["tables"].contains(table), r.name << ": new table " << table << " (" << g["rows"] << " rows)");
  }
}
