// The mltwin CLI in child processes, on small fixtures written to a temp dir (no real data
// needed; fast):
//   - the database does not depend on how paths are given: the scenario by a relative or an
//     absolute path, from another working directory, the data folder by --data, MLTWIN_DATA
//     or found by search (different spellings of one folder) -> byte-identical files;
//   - run_meta records how a run ended: end_reason completed / until, or, in
//     NAME.partial.sqlite beside the untouched --out file, interrupted (SIGINT) / terminated
//     (SIGTERM, SIGHUP) / failed (a file-size limit), with end_ns, the simulated time reached;
//   - signals during set-up end the process with 130 / 143 / 129 and no file written;
//   - --out refuses devices, directories, fifos and the run's inputs; flags are checked;
//   - --summary-json writes the summary's JSON, whose figures the database agrees with, only for
//     a run that ends as asked, and refuses what it may not replace before the run starts;
//   - the summary's per-queue line counts jobs still running at --until.
//
// The fixture is tests/scenarios/tiny-gang.json (4 whole-node trn1.32xlarge nodes: 64 Trainium
// devices) with a Philly workload read from ${MLTWIN_DATA}/training/philly/, laid out as
//   T/shared/data/training/philly/{small,big}.csv   T/scen/{small,big}.json
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include "trace_formats.hpp"

#if !defined(MLTWIN_SOURCE_DIR) || !defined(MLTWIN_CLI)
#error "MLTWIN_SOURCE_DIR and MLTWIN_CLI must be defined by the build"
#endif

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;
using mltwin::test::TempDir;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// tiny-gang with a Philly workload reading `trace`; single-pod jobs of up to 16 devices.
json philly_scenario(const std::string& name, const std::string& trace) {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  REQUIRE(in.good());
  json d = json::parse(in);
  d["name"] = name;
  d["queues"] = json::array({{{"name", "vc-aaa"}}, {{"name", "vc-bbb"}}});
  d["workload"] = {{"philly",
                    {{"trace", trace},
                     {"queue_prefix", "vc-"},
                     {"mapping",
                      {{"neuron_devices_per_gpu", 1},
                       {"devices_per_node", 16},
                       {"pod_whole_node",
                        {{"cpu", "127900m"},
                         {"memory", "523264M"},
                         {"aws.amazon.com/neurondevice", 16},
                         {"vpc.amazonaws.com/efa", 8}}},
                       {"pod_per_device", {{"cpu", "7993750u"}, {"memory", "32704M"}}},
                       {"processes_per_neuroncore", 1},
                       {"source", "test fixture"}}}}}};
  return d;
}

const std::string kHeader = mltwin::test::philly_header() + "\n";

/// The fixture tree under `root`.
struct Fixture {
  fs::path root, data, scen;
  explicit Fixture(const fs::path& r) : root(r), data(r / "shared" / "data"), scen(r / "scen") {
    // small: five jobs of 1 h, submitted one per schedule period (no ties, whose order the
    // seed decides): at 0, 1 and 2 s three of 16 devices (one node each) in vc-aaa, which
    // run at once; at 3 s one of 32 devices (two nodes) in vc-aaa, which waits until they
    // end (admitting it would overcommit the cluster beyond overcommit's 1.2 factor); at 60 s
    // one of 16 devices in vc-bbb, which takes the fourth node.
    write_text(data / "training/philly/small.csv", kHeader +
                                                       "2017-10-03 10:00:00,3600,16,57600,aaa\n"
                                                       "2017-10-03 10:00:01,3600,16,57600,aaa\n"
                                                       "2017-10-03 10:00:02,3600,16,57600,aaa\n"
                                                       "2017-10-03 10:00:03,3600,32,115200,aaa\n"
                                                       "2017-10-03 10:01:00,3600,16,57600,bbb\n");
    write_text(scen / "small.json", philly_scenario("small", "${MLTWIN_DATA}/training/philly/small.csv").dump(2));
    // big: 50,000 jobs of 8 devices, one a minute for 35 days, 400 s each: long enough (tens
    // of seconds of wall time) to be interrupted while it runs.
    std::string rows = kHeader;
    for (int i = 0; i < 50'000; ++i) {
      const int day = 3 + i / 1440, minute = i % 1440;  // from 2017-10-03 into November
      char line[96];
      std::snprintf(line, sizeof line, "2017-%02d-%02d %02d:%02d:00,400,8,3200,%s\n", day > 31 ? 11 : 10,
                    day > 31 ? day - 31 : day, minute / 60, minute % 60, i % 2 ? "aaa" : "bbb");
      rows += line;
    }
    write_text(data / "training/philly/big.csv", rows);
    write_text(scen / "big.json", philly_scenario("big", "${MLTWIN_DATA}/training/philly/big.csv").dump(2));
  }
};

/// Starts the CLI with `args` in `cwd`, the environment without MLTWIN_DATA plus `env`, and
/// stdout + stderr to `log`; with `max_file_bytes`, under that file-size limit (RLIMIT_FSIZE,
/// as `ulimit -f` sets it). Returns the pid.
pid_t spawn_cli(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env,
                const fs::path& log, rlim_t max_file_bytes = RLIM_INFINITY) {
  std::vector<std::string> argv_s = {MLTWIN_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "MLTWIN_DATA=", 12) != 0) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string cwd_s = cwd.string(), log_s = log.string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(log_s.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0 || ::chdir(cwd_s.c_str()) != 0)
      ::_exit(127);
    if (max_file_bytes != RLIM_INFINITY) {
      const struct rlimit lim = {max_file_bytes, max_file_bytes};
      if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(127);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE_MESSAGE(WIFEXITED(status), "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  return WEXITSTATUS(status);
}

/// Runs the CLI to the end; returns its exit status (the output is in `log`).
int run_cli(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env,
            const fs::path& log) {
  return wait_exit(spawn_cli(args, cwd, env, log));
}

class Db {
 public:
  explicit Db(const fs::path& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("open " + path.string() + ": " + sqlite3_errmsg(db_));
  }
  ~Db() { sqlite3_close_v2(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  /// Rows of `sql`, each column as text ("NULL" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error("prepare '" + sql + "': " + sqlite3_errmsg(db_));
    std::vector<std::vector<std::string>> out;
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> r;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const unsigned char* t = sqlite3_column_text(s, c);
        r.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out.push_back(std::move(r));
    }
    sqlite3_finalize(s);
    return out;
  }
  std::string one(const std::string& sql) {
    const auto r = rows(sql);
    if (r.empty() || r[0].empty()) throw std::runtime_error("no row from '" + sql + "'");
    return r[0][0];
  }
  std::map<std::string, std::string> meta() {
    std::map<std::string, std::string> m;
    for (const auto& r : rows("SELECT key, value FROM run_meta")) m[r[0]] = r[1];
    return m;
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string sha256_of(const fs::path& path) {
  const std::string bytes = slurp(path);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  REQUIRE(EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) == 1);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) (out += kHex[md[i] >> 4]) += kHex[md[i] & 0xF];
  return out;
}

/// The files in `dir` the CLI writes while a run goes on: `.NAME.in-progress-XXXXXX`, and
/// their journals.
std::vector<std::string> in_progress_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (contains(e.path().filename().string(), ".in-progress-")) out.push_back(e.path().filename().string());
  return out;
}

/// Waits (up to 60 s) until a run's database exists in `dir`; true if it does.
bool wait_for_database(const fs::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  while (in_progress_files(dir).empty()) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(60)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// Waits (up to 10 s) until process `pid` catches SIGINT, SIGTERM and SIGHUP (its SigCgt
/// mask in /proc/PID/status); true if it does.
bool wait_for_signal_handlers(pid_t pid) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t want = (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1)) | (1ULL << (SIGHUP - 1));
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("SigCgt:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) & want) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

/// The names in `dir`, sorted, but for the tests' logs (*.log).
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() != ".log") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// tests/scenarios/<name>.json as a JSON document, its $schema made absolute (the copy is
/// written elsewhere).
json test_scenario(const std::string& name) {
  json sc = json::parse(slurp(fs::path(MLTWIN_SOURCE_DIR) / "tests/scenarios" / (name + ".json")));
  sc["$schema"] = (fs::path(MLTWIN_SOURCE_DIR) / "scenarios/schema/scenario.schema.json").string();
  return sc;
}

/// Writes `sc` to <dir>/<stem>.json, runs it into <stem>.sqlite (REQUIREs success; the log is
/// <stem>-run.log) and returns the path of the database.
fs::path run_scenario(const fs::path& dir, const json& sc, const std::string& stem) {
  write_text(dir / (stem + ".json"), sc.dump());
  const fs::path log = dir / (stem + "-run.log");
  REQUIRE_MESSAGE(run_cli({"run", stem + ".json", "--out", stem + ".sqlite", "--no-progress"}, dir, {}, log) == 0, slurp(log));
  return dir / (stem + ".sqlite");
}

/// `mltwin explain <db> <job>`'s output (REQUIREs success).
std::string explain(const fs::path& db, const std::string& job) {
  const fs::path log = db.parent_path() / (db.stem().string() + "-explain-" + job + ".log");
  REQUIRE(run_cli({"explain", db.filename().string(), job}, db.parent_path(), {}, log) == 0);
  return slurp(log);
}

/// The first whole second after the last job's end, ns, as text.
std::string next_cycle_after_last_end(Db& db) {
  const std::int64_t last = std::stoll(db.one("SELECT max(end_ns) FROM jobs"));
  return std::to_string((last / kS + 1) * kS);
}

}  // namespace

TEST_CASE("the database does not depend on how the scenario and the data folder are spelled") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const fs::path other = t.path() / "elsewhere";
  fs::create_directories(other);
  const std::string common_tail = "--seed=3";

  // 1. From the fixture root: relative scenario, relative --data, relative --out.
  REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--data", "shared/data", "--out", "a.sqlite", "--no-progress",
                           common_tail},
                          fx.root, {}, t.path() / "a.log") == 0,
                  slurp(t.path() / "a.log"));
  // 2. From another folder: absolute scenario spelled with "..", MLTWIN_DATA spelled with "./"
  //    and a trailing slash.
  const std::string abs_scenario = (fx.root / "elsewhere" / ".." / "scen" / "small.json").string();
  const std::string data_env = "MLTWIN_DATA=" + (fx.root / "." / "shared" / "data").string() + "/";
  REQUIRE_MESSAGE(run_cli({"run", abs_scenario, "--out", (fx.root / "b.sqlite").string(), "--no-progress", common_tail},
                          other, {data_env}, t.path() / "b.log") == 0,
                  slurp(t.path() / "b.log"));
  // 3. From the scenario's folder, the data folder found by walking up from the scenario.
  REQUIRE_MESSAGE(
      run_cli({"run", "./small.json", "--out", "../c.sqlite", "--no-progress", common_tail}, fx.scen, {}, t.path() / "c.log") ==
          0,
      slurp(t.path() / "c.log"));

  const std::string a = slurp(fx.root / "a.sqlite"), b = slurp(fx.root / "b.sqlite"), c = slurp(fx.root / "c.sqlite");
  REQUIRE(a.size() > 10'000);
  const bool same_ab = a == b, same_ac = a == c;  // (bools: doctest would print the binary)
  CHECK_MESSAGE(same_ab, "relative vs absolute paths, --data vs MLTWIN_DATA: the databases differ");
  CHECK_MESSAGE(same_ac, "relative paths vs the data folder found by search: the databases differ");

  // What is stored instead of the paths: the scenario's file name, the instance catalog's file
  // name, the trace as the scenario writes it, and their SHA-256s.
  Db db(fx.root / "a.sqlite");
  const auto meta = db.meta();
  CHECK(meta.at("scenario_path") == "small.json");
  const auto inputs = db.rows("SELECT role, path, sha256, bytes FROM inputs ORDER BY rowid");
  REQUIRE(inputs.size() == 3);
  CHECK(inputs[0] == std::vector<std::string>{"scenario", "small.json", sha256_of(fx.scen / "small.json"),
                                              std::to_string(fs::file_size(fx.scen / "small.json"))});
  const fs::path catalog = fs::path(MLTWIN_SOURCE_DIR) / "catalog/aws-instance-types.json";
  CHECK(inputs[1] == std::vector<std::string>{"instance_catalog", "aws-instance-types.json", sha256_of(catalog),
                                              std::to_string(fs::file_size(catalog))});
  const fs::path csv = fx.data / "training/philly/small.csv";
  CHECK(inputs[2] == std::vector<std::string>{"philly_trace", "${MLTWIN_DATA}/training/philly/small.csv", sha256_of(csv),
                                              std::to_string(fs::file_size(csv))});
  // No stored text names the temp folder.
  const std::string root = fx.root.string();
  for (const auto& r : db.rows("SELECT key || '=' || value FROM run_meta UNION ALL SELECT path FROM inputs"))
    CHECK_MESSAGE(!contains(r[0], root), r[0]);
}

TEST_CASE("run_meta records how the run ended: completed, or stopped at --until") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};

  SUBCASE("to the end") {
    REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--out", "done.sqlite", "--no-progress"}, fx.root, env,
                            t.path() / "done.log") == 0,
                    slurp(t.path() / "done.log"));
    Db db(fx.root / "done.sqlite");
    const auto meta = db.meta();
    CHECK(meta.at("schema_version") == "10");
    CHECK(meta.at("until") == "");
    CHECK(meta.at("end_reason") == "completed");
    // The run ends with its last event: the scheduler cycle (whole seconds) that follows the
    // last job's end.
    CHECK(meta.at("end_ns") == next_cycle_after_last_end(db));
    CHECK(db.one("SELECT count(*) FROM jobs WHERE phase = 'Completed'") == "5");
    const std::string out = slurp(t.path() / "done.log");
    CHECK_MESSAGE(contains(out, " vc-aaa: 4 submitted, 4 completed, 0 running, 0 pending\n"), out);
  }
  SUBCASE("--until later than the last event: completed") {
    REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--until", "30d", "--out", "late.sqlite", "--no-progress"},
                            fx.root, env, t.path() / "late.log") == 0,
                    slurp(t.path() / "late.log"));
    Db db(fx.root / "late.sqlite");
    const auto meta = db.meta();
    CHECK(meta.at("until") == "30d");
    CHECK(meta.at("end_reason") == "completed");
    CHECK(meta.at("end_ns") == next_cycle_after_last_end(db));
  }
  SUBCASE("--until 30m: stopped with jobs running and pending") {
    // At 30 min: the three 16-device jobs of vc-aaa and vc-bbb's run; vc-aaa's 32-device job
    // waits for two free nodes.
    REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--until", "30m", "--out", "until.sqlite", "--no-progress"},
                            fx.root, env, t.path() / "until.log") == 0,
                    slurp(t.path() / "until.log"));
    Db db(fx.root / "until.sqlite");
    const auto meta = db.meta();
    CHECK(meta.at("until") == "30m");
    CHECK(meta.at("end_reason") == "until");
    CHECK(meta.at("end_ns") == std::to_string(1800 * kS));
    CHECK(db.one("SELECT group_concat(phase) FROM (SELECT phase FROM jobs ORDER BY job)") ==
          "Running,Running,Running,Pending,Running");
    const std::string out = slurp(t.path() / "until.log");
    CHECK_MESSAGE(contains(out, " vc-aaa: 4 submitted, 0 completed, 3 running, 1 pending\n"), out);
    CHECK_MESSAGE(contains(out, " vc-bbb: 1 submitted, 0 completed, 1 running, 0 pending\n"), out);
  }
}

TEST_CASE("a signal stops the run: the previous results stay, the run so far is in NAME.partial.sqlite with its end reason") {
  // SIGINT (Ctrl-C): interrupted, exit 130; SIGTERM (Kubernetes, Slurm, docker stop,
  // timeout): terminated, 143; SIGHUP (the terminal closed): terminated, 129.
  struct Case {
    int sig;
    int status;
    const char* reason;
    const char* name;
  };
  for (const Case c : {Case{SIGINT, 130, "interrupted", "SIGINT"}, Case{SIGTERM, 143, "terminated", "SIGTERM"},
                       Case{SIGHUP, 129, "terminated", "SIGHUP"}}) {
    CAPTURE(c.name);
    TempDir t("mltwin-cli");
    const Fixture fx(t.path());
    const fs::path out = fx.root / "int.sqlite", partial = fx.root / "int.partial.sqlite";
    write_text(out, "the previous results");
    const pid_t pid = spawn_cli({"run", "scen/big.json", "--out", out.string(), "--no-progress"}, fx.root,
                                {"MLTWIN_DATA=" + fx.data.string()}, t.path() / "int.log");
    // Once the database exists (beside the target, under a hidden name), a signal ends the
    // run cleanly and is recorded.
    REQUIRE_MESSAGE(wait_for_database(fx.root), "the run never created its database: " << slurp(t.path() / "int.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    REQUIRE(::kill(pid, c.sig) == 0);
    const int rc = wait_exit(pid);
    const std::string log = slurp(t.path() / "int.log");
    REQUIRE_MESSAGE(rc == c.status, "exit " << rc << " (0: the run ended before the signal arrived)\n" << log);
    CHECK_MESSAGE(contains(log, std::string(c.reason) + " (" + c.name + "): the run up to "), log);
    CHECK_MESSAGE(contains(log, "is in " + partial.string() + " (end_reason " + c.reason + "); " + out.string() +
                                    " is unchanged"),
                  log);
    CHECK(slurp(out) == "the previous results");
    CHECK(in_progress_files(fx.root).empty());

    Db db(partial);
    CHECK(db.one("PRAGMA integrity_check") == "ok");
    const auto meta = db.meta();
    CHECK(meta.at("end_reason") == c.reason);
    CHECK(meta.at("until") == "");
    const std::int64_t end_ns = std::stoll(meta.at("end_ns"));
    const std::int64_t submitted = std::stoll(db.one("SELECT count(*) FROM jobs"));
    CHECK(end_ns > 0);
    CHECK(submitted < 50'000);
    // The jobs submitted by then are in the table, none submitted after end_ns; the run is
    // finalized like one stopped at --until (jobs not yet ended get their final row).
    CHECK(std::stoll(db.one("SELECT max(submit_ns) FROM jobs")) <= end_ns);
    CHECK(db.one("SELECT count(*) FROM jobs WHERE phase = 'Completed'") != "0");
    CHECK(db.one("SELECT count(*) FROM jobs WHERE podgroup_phase IS NULL") == "0");
    CHECK(db.one("SELECT count(*) FROM sqlite_schema WHERE type = 'index'") != "0");
  }
}

TEST_CASE("a signal while the run is set up ends the process at once: its exit status, no file written") {
  // A trace of 400,000 jobs takes the CLI most of a second to read: the signal arrives once
  // its handlers are installed (SigCgt), well before its database would be created.
  struct Case {
    int sig;
    int status;
    const char* what;
  };
  for (const Case c : {Case{SIGINT, 130, "interrupted (SIGINT)"}, Case{SIGTERM, 143, "terminated (SIGTERM)"},
                       Case{SIGHUP, 129, "hung up (SIGHUP)"}}) {
    CAPTURE(c.what);
    TempDir t("mltwin-cli");
    const fs::path data = t.path() / "data", run_dir = t.path() / "run";
    std::string rows = kHeader;
    rows.reserve(400'000 * 36);
    for (int i = 0; i < 400'000; ++i) {
      char line[96];
      // Minutes after 2017-10-01 00:00, 400 s each.
      const int day = i / 1440, minute = i % 1440;
      std::snprintf(line, sizeof line, "2017-%02d-%02d %02d:%02d:00,400,8,3200,%s\n", 10 + day / 30, 1 + day % 30,
                    minute / 60, minute % 60, i % 2 ? "aaa" : "bbb");
      rows += line;
    }
    write_text(data / "training/philly/huge.csv", rows);
    write_text(t.path() / "huge.json", philly_scenario("huge", "${MLTWIN_DATA}/training/philly/huge.csv").dump(2));
    fs::create_directories(run_dir);
    write_text(run_dir / "h.sqlite", "the previous results");
    const pid_t pid = spawn_cli({"run", (t.path() / "huge.json").string(), "--out", "h.sqlite", "--no-progress"}, run_dir,
                                {"MLTWIN_DATA=" + data.string()}, t.path() / "setup.log");
    REQUIRE(wait_for_signal_handlers(pid));
    REQUIRE(::kill(pid, c.sig) == 0);
    const int rc = wait_exit(pid);
    const std::string log = slurp(t.path() / "setup.log");
    CHECK_MESSAGE(rc == c.status, log);
    CHECK_MESSAGE(contains(log, std::string("mltwin: ") + c.what + " while setting up the run; no database was written"), log);
    CHECK(names_in(run_dir) == std::vector<std::string>{"h.sqlite"});
    CHECK(slurp(run_dir / "h.sqlite") == "the previous results");
  }
}

TEST_CASE("a run that ends as asked replaces --out, leaving nothing beside it, with the bytes of a fresh file") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  write_text(fx.root / "old.sqlite", "the previous results");
  write_text(fx.root / "old.partial.sqlite", "a partial file of an earlier run");
  REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--out", "old.sqlite", "--no-progress"}, fx.root, env, t.path() / "a.log") == 0,
                  slurp(t.path() / "a.log"));
  REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--out", "new.sqlite", "--no-progress"}, fx.root, env, t.path() / "b.log") == 0,
                  slurp(t.path() / "b.log"));
  CHECK(contains(slurp(t.path() / "a.log"), "Results: old.sqlite\n"));
  const bool same = slurp(fx.root / "old.sqlite") == slurp(fx.root / "new.sqlite");
  CHECK_MESSAGE(same, "a database renamed over an old file differs from one written fresh");
  CHECK(Db(fx.root / "old.sqlite").meta().at("end_reason") == "completed");
  CHECK(in_progress_files(fx.root).empty());
  CHECK(slurp(fx.root / "old.partial.sqlite") == "a partial file of an earlier run");  // not ours to remove
}

TEST_CASE("--out refuses a path that is not a regular file, or one of the run's inputs, and leaves it as it was") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  int n = 0;
  /// Runs small.json with --out `out`; expects exit 2 and `message` on stderr, and no other file.
  const auto refused = [&](const std::string& out, const std::string& message) {
    CAPTURE(out);
    const fs::path log = t.path() / ("refused-" + std::to_string(n++) + ".log");
    const auto before = names_in(fx.root);
    CHECK(run_cli({"run", "scen/small.json", "--out", out, "--no-progress"}, fx.root, env, log) == 2);
    const std::string text = slurp(log);
    CHECK_MESSAGE(contains(text, "error: --out '" + out + "': " + message), text);
    CHECK(names_in(fx.root) == before);
  };

  SUBCASE("a device") {
    // As root, a character device of our own (the numbers of /dev/null) in the temp folder;
    // otherwise /dev/full itself, which the test could not replace anyway. Checked by stat only.
    fs::path dev = fx.root / "dev-null";
    if (::geteuid() != 0 || ::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) dev = "/dev/full";
    struct stat before {};
    REQUIRE(::lstat(dev.c_str(), &before) == 0);
    REQUIRE(S_ISCHR(before.st_mode));
    refused(dev.string(), "is a character device; expected a regular file or a new path");
    struct stat after {};
    REQUIRE(::lstat(dev.c_str(), &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_rdev == before.st_rdev);
    CHECK(after.st_ino == before.st_ino);
  }
  SUBCASE("a directory, a fifo, a symbolic link to a directory") {
    fs::create_directory(fx.root / "dir");
    REQUIRE(::mkfifo((fx.root / "fifo").c_str(), 0644) == 0);
    fs::create_directory_symlink(fx.root / "dir", fx.root / "link");
    refused("dir", "is a directory");
    refused("fifo", "is a fifo");
    refused("link", "is a symbolic link to a directory");
    CHECK(fs::is_directory(fx.root / "dir"));
    CHECK(fs::is_fifo(fx.root / "fifo"));
    CHECK(fs::is_symlink(fx.root / "link"));
  }
  SUBCASE("the scenario, however it is spelled; the trace") {
    const std::string scenario = slurp(fx.scen / "small.json"), trace = slurp(fx.data / "training/philly/small.csv");
    fs::create_symlink(fx.scen / "small.json", fx.root / "link.json");
    fs::create_hard_link(fx.scen / "small.json", fx.root / "hard.json");
    refused("scen/small.json", "is the run's scenario ('scen/small.json'), which it would overwrite; choose another file");
    refused("scen/../scen/./small.json", "is the run's scenario");
    refused((fx.scen / "small.json").string(), "is the run's scenario");
    refused("link.json", "is the run's scenario");
    refused("hard.json", "is the run's scenario");
    refused("shared/data/training/philly/small.csv", "is the run's philly_trace input");
    CHECK(slurp(fx.scen / "small.json") == scenario);
    CHECK(slurp(fx.data / "training/philly/small.csv") == trace);
  }
}

TEST_CASE("a run that fails keeps the previous database byte-identical and leaves NAME.partial.sqlite, end_reason failed") {
  // The file-size limit (ulimit -f: 1 MiB) stops the writes of the 50,000-job run part-way, as
  // a full disk would: SQLite reports an I/O error (EFBIG) on a commit; the CLI ignores
  // SIGXFSZ, so this is an error, not a kill.
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--out", "r.sqlite", "--no-progress"}, fx.root, env, t.path() / "a.log") == 0,
                  slurp(t.path() / "a.log"));
  const std::string previous = slurp(fx.root / "r.sqlite");
  const int rc = wait_exit(spawn_cli({"run", "scen/big.json", "--out", "r.sqlite", "--no-progress"}, fx.root, env,
                                     t.path() / "b.log", 1 << 20));
  const std::string log = slurp(t.path() / "b.log");
  CHECK_MESSAGE(rc == 1, log);
  CHECK_MESSAGE(contains(log, "error: results database '"), log);
  CHECK_MESSAGE(contains(log, "disk I/O error"), log);
  CHECK_MESSAGE(contains(log, "ulimit -f"), log);
  CHECK_MESSAGE(contains(log, "the run failed: the run up to "), log);
  CHECK_MESSAGE(contains(log, "is in r.partial.sqlite (end_reason failed); r.sqlite is unchanged"), log);
  const bool unchanged = slurp(fx.root / "r.sqlite") == previous;
  CHECK_MESSAGE(unchanged, "the previous database changed");
  CHECK(in_progress_files(fx.root).empty());

  Db db(fx.root / "r.partial.sqlite");
  CHECK(db.one("PRAGMA integrity_check") == "ok");
  const auto meta = db.meta();
  CHECK(meta.at("end_reason") == "failed");
  // What was committed before the failure: the jobs of the days checkpointed, no more.
  const std::int64_t checkpoint_ns = std::stoll(meta.at("checkpoint_ns"));
  CHECK(checkpoint_ns > 0);
  CHECK(std::stoll(meta.at("end_ns")) >= checkpoint_ns);
  CHECK(std::stoll(db.one("SELECT count(*) FROM jobs")) > 0);
  CHECK(std::stoll(db.one("SELECT max(submit_ns) FROM jobs")) <= checkpoint_ns);
  CHECK(fs::file_size(fx.root / "r.partial.sqlite") <= (1u << 20));
}

TEST_CASE("a database that cannot even be created (a 64 KiB file-size limit) is an error naming it; nothing is left") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  write_text(fx.root / "r.sqlite", "the previous results");
  const auto before = names_in(fx.root);
  const int rc = wait_exit(spawn_cli({"run", "scen/small.json", "--out", "r.sqlite", "--no-progress"}, fx.root,
                                     {"MLTWIN_DATA=" + fx.data.string()}, t.path() / "r.log", 64 << 10));
  const std::string log = slurp(t.path() / "r.log");
  CHECK_MESSAGE(rc == 1, log);
  CHECK_MESSAGE(contains(log, "error: cannot create results database 'r.sqlite' (nothing written): results database '.r.sqlite.in-progress-"), log);
  CHECK_MESSAGE(contains(log, "disk I/O error"), log);
  CHECK(names_in(fx.root) == before);
  CHECK(slurp(fx.root / "r.sqlite") == "the previous results");
}

TEST_CASE("trace --out refuses the database itself and what is not a regular file") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  REQUIRE(run_cli({"run", "scen/small.json", "--out", "r.sqlite", "--no-progress"}, fx.root, {"MLTWIN_DATA=" + fx.data.string()},
                  t.path() / "run.log") == 0);
  const std::string db = slurp(fx.root / "r.sqlite");
  fs::create_directory(fx.root / "dir");
  fs::create_symlink(fx.root / "r.sqlite", fx.root / "link.sqlite");
  CHECK(run_cli({"trace", "r.sqlite", "--out", "r.sqlite"}, fx.root, {}, t.path() / "a.log") == 2);
  CHECK_MESSAGE(contains(slurp(t.path() / "a.log"), "error: trace file 'r.sqlite': is the database it is made from"),
                slurp(t.path() / "a.log"));
  CHECK(run_cli({"trace", "r.sqlite", "--out", "link.sqlite"}, fx.root, {}, t.path() / "b.log") == 2);
  CHECK(run_cli({"trace", "r.sqlite", "--out", "dir"}, fx.root, {}, t.path() / "c.log") == 2);
  CHECK_MESSAGE(contains(slurp(t.path() / "c.log"), "error: trace file 'dir': is a directory"), slurp(t.path() / "c.log"));
  const bool intact = slurp(fx.root / "r.sqlite") == db;
  CHECK(intact);
  CHECK(fs::is_directory(fx.root / "dir"));
  // Written beside the target and renamed: nothing else is left.
  write_text(fx.root / "r.trace.json", "an earlier trace");
  CHECK(run_cli({"trace", "r.sqlite"}, fx.root, {}, t.path() / "d.log") == 0);
  CHECK(json::parse(slurp(fx.root / "r.trace.json")).contains("traceEvents"));
  CHECK(in_progress_files(fx.root).empty());
}

TEST_CASE("--summary-json writes the summary's JSON whole, with the figures the database holds") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  // Its folder is created; an earlier summary there is replaced.
  write_text(fx.root / "sum" / "s.json", "an earlier summary");
  REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--out", "r.sqlite", "--summary-json", "sum/s.json", "--no-progress"}, fx.root,
                          env, t.path() / "run.log") == 0,
                  slurp(t.path() / "run.log"));
  CHECK(contains(slurp(t.path() / "run.log"), "Results: r.sqlite\nSummary JSON: sum/s.json\n"));
  CHECK(in_progress_files(fx.root / "sum").empty());
  const json j = json::parse(slurp(fx.root / "sum" / "s.json"));
  Db db(fx.root / "r.sqlite");
  const auto meta = db.meta();
  CHECK(j.at("kind") == "training");
  CHECK(j.at("scenario") == "small");
  CHECK(j.at("database") == "r.sqlite");
  CHECK(std::to_string(j.at("seed").get<std::uint64_t>()) == meta.at("seed"));
  CHECK(static_cast<std::int64_t>(j.at("sim_end_s").get<double>() * 1e9 + 0.5) == std::stoll(meta.at("end_ns")));
  // Job counts, overall, by phase and per queue, as SQL counts them.
  CHECK(std::to_string(j.at("jobs").get<int>()) == db.one("SELECT count(*) FROM jobs"));
  for (const auto& r : db.rows("SELECT phase, count(*) FROM jobs GROUP BY phase")) {
    CAPTURE(r[0]);
    CHECK(std::to_string(j.at("phases").at(r[0]).get<int>()) == r[1]);
  }
  REQUIRE(j.at("queues").size() == 2);
  for (const auto& q : j.at("queues")) {
    const std::string name = q.at("queue").get<std::string>();
    CAPTURE(name);
    CHECK(std::to_string(q.at("submitted").get<int>()) == db.one("SELECT count(*) FROM jobs WHERE queue = '" + name + "'"));
    CHECK(std::to_string(q.at("completed").get<int>()) ==
          db.one("SELECT count(*) FROM jobs WHERE queue = '" + name + "' AND phase = 'Completed'"));
  }
  // The mean queueing delay over the placed jobs: the view job_times (docs/results-schema.md).
  CHECK(j.at("queueing_s").at("n") == 5);
  CHECK(j.at("queueing_s").at("mean").get<double>() == doctest::Approx(std::stod(db.one("SELECT avg(queueing_s) FROM job_times"))).epsilon(1e-12));
}

TEST_CASE("--summary-json is checked before the run starts; a run that does not end as asked leaves it untouched") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  int n = 0;
  /// Runs small.json into r.sqlite with --summary-json `file`: exit `status`, `message` on
  /// stderr, and nothing written (no database either: the run never started).
  const auto refused = [&](const std::string& file, int status, const std::string& message) {
    CAPTURE(file);
    const fs::path log = t.path() / ("refused-" + std::to_string(n++) + ".log");
    const auto before = names_in(fx.root);
    CHECK(run_cli({"run", "scen/small.json", "--out", "r.sqlite", "--summary-json", file, "--no-progress"}, fx.root, env, log) ==
          status);
    const std::string text = slurp(log);
    CHECK_MESSAGE(contains(text, "error: " + message), text);
    CHECK(names_in(fx.root) == before);
  };
  fs::create_directory(fx.root / "dir");
  write_text(fx.root / "plain", "a file, not a folder");
  refused("", 2, "--summary-json '': expected a file name");
  refused("dir", 2, "--summary-json 'dir': is a directory; expected a regular file or a new path");
  refused("scen/../scen/small.json", 2, "--summary-json 'scen/../scen/small.json': is the run's scenario");
  refused("shared/data/training/philly/small.csv", 2,
          "--summary-json 'shared/data/training/philly/small.csv': is the run's philly_trace input");
  refused("./r.sqlite", 2, "--summary-json './r.sqlite': is the results database ('r.sqlite'), which it would overwrite");
  refused("plain/s.json", 1, "cannot create summary file 'plain/s.json': cannot create its folder 'plain'");
  CHECK(slurp(fx.root / "plain") == "a file, not a folder");

  SUBCASE("stopped by SIGINT: no summary file, an earlier one unchanged") {
    write_text(fx.root / "s.json", "the previous summary");
    const pid_t pid = spawn_cli({"run", "scen/big.json", "--out", "int.sqlite", "--summary-json", "s.json", "--no-progress"},
                                fx.root, env, t.path() / "int.log");
    REQUIRE_MESSAGE(wait_for_database(fx.root), "the run never created its database: " << slurp(t.path() / "int.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    REQUIRE(::kill(pid, SIGINT) == 0);
    const int rc = wait_exit(pid);
    const std::string log = slurp(t.path() / "int.log");
    REQUIRE_MESSAGE(rc == 130, "exit " << rc << " (0: the run ended before the signal arrived)\n" << log);
    CHECK_FALSE(contains(log, "Summary JSON:"));
    CHECK(slurp(fx.root / "s.json") == "the previous summary");
    CHECK(in_progress_files(fx.root).empty());
    CHECK(Db(fx.root / "int.partial.sqlite").meta().at("end_reason") == "interrupted");
  }
  SUBCASE("--replications: one summary a seed, each of its own database") {
    REQUIRE_MESSAGE(run_cli({"run", "scen/small.json", "--replications", "2", "--seed", "3", "--out", "r.sqlite", "--summary-json",
                             "s.json", "--no-progress"},
                            fx.root, env, t.path() / "rep.log") == 0,
                    slurp(t.path() / "rep.log"));
    for (const char* seed : {"3", "4"}) {
      CAPTURE(seed);
      const json j = json::parse(slurp(fx.root / ("s-seed" + std::string(seed) + ".json")));
      CHECK(j.at("database") == "r-seed" + std::string(seed) + ".sqlite");
      CHECK(std::to_string(j.at("seed").get<std::uint64_t>()) == seed);
      CHECK(Db(fx.root / ("r-seed" + std::string(seed) + ".sqlite")).meta().at("seed") == seed);
    }
    CHECK_FALSE(fs::exists(fx.root / "s.json"));
    CHECK(in_progress_files(fx.root).empty());
  }
}

TEST_CASE("a run whose set-up fails writes nothing and keeps the previous database") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  write_text(fx.root / "r.sqlite", "the previous results");
  // Row 4 of the trace is cut short.
  write_text(fx.data / "training/philly/bad.csv", kHeader + "2017-10-03 10:00:00,3600,16,57600,aaa\n2017-10-03 10:00:01,36\n");
  write_text(fx.scen / "bad.json", philly_scenario("bad", "${MLTWIN_DATA}/training/philly/bad.csv").dump(2));
  const auto before = names_in(fx.root);
  CHECK(run_cli({"run", "scen/bad.json", "--out", "r.sqlite", "--no-progress"}, fx.root, env, t.path() / "bad.log") == 2);
  CHECK_MESSAGE(contains(slurp(t.path() / "bad.log"), "bad.csv"), slurp(t.path() / "bad.log"));
  CHECK(names_in(fx.root) == before);
  CHECK(slurp(fx.root / "r.sqlite") == "the previous results");
}

TEST_CASE("command-line numbers are checked by the CLI, with messages naming the flag") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--seed", "-1"}, "error: --seed -1: expected an integer from 0 to 18446744073709551615"},
      {{"--seed", "18446744073709551616"}, "error: --seed 18446744073709551616: expected an integer from 0 to 18446744073709551615"},
      {{"--seed", "1e3"}, "error: --seed 1e3: expected an integer"},
      {{"--seed", " 7"}, "error: --seed  7: expected an integer"},
      {{"--replications", "-1"}, "error: --replications -1: expected an integer from 1 to 1000000"},
      {{"--replications", "0"}, "error: --replications 0: expected an integer from 1 to 1000000"},
      {{"--replications", "2", "--seed", "18446744073709551615"},
       "error: --replications 2: the seeds from 18446744073709551615 would pass 18446744073709551615"},
      {{"--max-jobs", "-1"}, "error: --max-jobs -1: expected an integer from 0 (all jobs) to 2147483647"},
      {{"--max-jobs", "99999999999999999999"}, "error: --max-jobs 99999999999999999999: expected an integer from 0 (all jobs)"},
      {{"--until", "-5s"}, "error: --until -5s: expected a positive time"},
      {{"--until", "0"}, "error: --until 0: expected a positive time"},
      {{"--until", "soon"}, "error: --until soon: expected a time such as 90s, 30m, 12h, 7d"},
      {{"--until", "1e400s"}, "error: --until 1e400s: expected a time such as 90s, 30m, 12h, 7d"},
      {{"--until", "9999999999999d"}, "error: --until 9999999999999d: expected a time such as 90s, 30m, 12h, 7d"},
      {{"--until", ""}, "error: --until '': expected a time such as 90s, 30m, 12h, 7d"},
  };
  int n = 0;
  for (const auto& c : cases) {
    CAPTURE(c.message);
    std::vector<std::string> args = {"run", "scen/small.json", "--out", "x.sqlite", "--no-progress"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const fs::path log = t.path() / ("flag-" + std::to_string(n++) + ".log");
    CHECK(run_cli(args, fx.root, env, log) == 2);
    const std::string text = slurp(log);
    CHECK_MESSAGE(contains(text, c.message), text);
    CHECK_MESSAGE(!contains(text, "small.json"), text);  // the flag is to blame, not the scenario
  }
  CHECK_FALSE(fs::exists(fx.root / "x.sqlite"));
  // --max-jobs on a workload that is not Philly's names the flag, not the scenario's JSON.
  CHECK(run_cli({"run", (fs::path(MLTWIN_SOURCE_DIR) / "tests/scenarios/fabric-contention.json").string(), "--out", "x.sqlite",
                 "--max-jobs", "5"},
                fx.root, env, t.path() / "mj.log") == 2);
  CHECK_MESSAGE(contains(slurp(t.path() / "mj.log"), "error: --max-jobs applies to Philly workloads"), slurp(t.path() / "mj.log"));
  // --help states the exit status.
  CHECK(run_cli({"run", "--help"}, fx.root, env, t.path() / "help.log") == 0);
  CHECK_MESSAGE(contains(slurp(t.path() / "help.log"), "130 stopped by SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP"),
                slurp(t.path() / "help.log"));
}

TEST_CASE("jobs sharing the fabric: link_usage in the database and link counters in the Perfetto trace") {
  // tests/scenarios/fabric-contention.json: A (100 steps) and B (50 steps) each move 680e6
  // bytes over every hop per step (2 (N - 1) / N x S with N = 2): node 0's EFA transmit link
  // carries 150 x 680e6 bytes over the run, summed over its metrics intervals.
  TempDir t("mltwin-cli");
  const fs::path scen = fs::path(MLTWIN_SOURCE_DIR) / "tests/scenarios/fabric-contention.json";
  REQUIRE_MESSAGE(run_cli({"run", scen.string(), "--out", "fab.sqlite", "--no-progress"}, t.path(), {}, t.path() / "fab.log") == 0,
                  slurp(t.path() / "fab.log"));
  Db db(t.path() / "fab.sqlite");
  CHECK(std::abs(std::stod(db.one("SELECT sum(bytes) FROM link_usage WHERE link = 'trn1-0/efa-tx'")) - 150 * 680e6) < 1.0);
  CHECK(db.one("SELECT count(DISTINCT link) FROM link_usage") == "4");  // both nodes' tx and rx
  CHECK(db.one("SELECT count(*) FROM link_usage WHERE utilisation <= 0 OR utilisation > 1") == "0");
  REQUIRE_MESSAGE(run_cli({"trace", "fab.sqlite", "--out", "fab.json"}, t.path(), {}, t.path() / "trace.log") == 0,
                  slurp(t.path() / "trace.log"));
  const json tr = json::parse(slurp(t.path() / "fab.json"));
  int counters = 0;
  for (const auto& e : tr.at("traceEvents"))
    if (e.value("ph", "") == "C" && e.value("name", "") == "trn1-0/efa-tx utilisation %") ++counters;
  CHECK(counters >= 2);  // its first interval's value, and 0 after its last
  // The rings: A alone (800 Gb/s), A and B beside each other (400 Gb/s each: every NIC link
  // carries both rings), A alone again; the four step_periods rows are the four slices, and
  // each slice's steps x step time is its duration (to the ns rounding of the end event).
  CHECK(db.one("SELECT count(*) FROM step_periods") == "4");
  CHECK(db.one("SELECT group_concat(efa_gbps, ',') FROM (SELECT efa_gbps FROM step_periods WHERE job = 0 ORDER BY start_ns)") == "800.0,400.0,800.0");
  CHECK(db.one("SELECT count(*) FROM step_periods WHERE abs(steps * step_s - (end_ns - start_ns) / 1e9) > 1e-6") == "0");
  std::vector<std::string> rings;
  for (const auto& e : tr.at("traceEvents"))
    if (e.value("ph", "") == "X" && e.value("cat", "") == "all-reduce") rings.push_back(e.at("name").get<std::string>());
  std::sort(rings.begin(), rings.end());
  CHECK(rings == std::vector<std::string>{"a ring x2 @ 400 Gb/s", "a ring x2 @ 800 Gb/s", "a ring x2 @ 800 Gb/s", "b ring x2 @ 400 Gb/s"});
}

TEST_CASE("derived durations: a job still training when --until stops the run keeps its steps so far") {
  // fabric-contention: A trains alone from 3.05 s at 1,437,381,000 ns per step (hand-derived in
  // test_step_model: compute 1.3 s + sync 117,741,000 + NeuronLink 12,810,000 + EFA 6,830,000 ns);
  // B is submitted at 60 s. Stopped at 30 s: (30 - 3.05) / 1.437381 = 18.7494... steps, each
  // with 1.3 s of computing, and one step_periods row ending at 30 s.
  TempDir t("mltwin-cli");
  const fs::path scen = fs::path(MLTWIN_SOURCE_DIR) / "tests/scenarios/fabric-contention.json";
  REQUIRE_MESSAGE(run_cli({"run", scen.string(), "--out", "u.sqlite", "--until", "30s", "--no-progress"}, t.path(), {}, t.path() / "u.log") == 0,
                  slurp(t.path() / "u.log"));
  Db db(t.path() / "u.sqlite");
  const double steps = (30e9 - 3.05e9) / 1'437'381'000.0;
  CHECK(db.one("SELECT phase FROM jobs WHERE job = 0") == "Running");
  CHECK(std::stod(db.one("SELECT compute_s FROM jobs WHERE job = 0")) == doctest::Approx(steps * 1.3).epsilon(1e-9));
  CHECK(std::stod(db.one("SELECT steps FROM step_periods WHERE job = 0")) == doctest::Approx(steps).epsilon(1e-9));
  CHECK(db.one("SELECT end_ns || ' ' || end_reason FROM step_periods WHERE job = 0") == "30000000000 run ended");
}

TEST_CASE("a job history: scenarios/eks-history-csv.json validates and runs; a bad row is refused with FILE:LINE: column") {
  // scenarios/history/jobs.csv: 10 jobs, 3 without end_time (2 Running, 1 Pending) on the
  // (conditional) medians of the 7 finished run times (s): 1800, 2311.5, 2508, 12600, 22288,
  // 23280, 27000. mixtral-ft-8 (Pending): the median, 12,600 s. By the file's latest time
  // (22:30:00Z) llama-sft-0103 had run 1,140 s (all seven longer: 12,600 s), bert-pretrain-b
  // 26,950 s (only 27,000 s longer: 27,000 s). 12,600 to 27,000 s, mean 17,400 s.
  TempDir t("mltwin-cli");
  const fs::path scen = fs::path(MLTWIN_SOURCE_DIR) / "scenarios/eks-history-csv.json";
  const fs::path log = t.path() / "h.log";
  REQUIRE_MESSAGE(run_cli({"validate", scen.string()}, t.path(), {}, log) == 0, slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "10 jobs, Volcano v1.12.1\nJob history: history/jobs.csv, 10 job(s); 3 without end_time (2 "
                                     "Running, 1 Pending) ran 12600 s to 27000 s (mean 17400 s), the unfinished_duration model "
                                     "'median_finished' (medians of 7 finished job(s); 2 Running conditional on their time run by "
                                     "2026-01-05T22:30:00Z, 0 of them past every finished run time: twice their time run)"),
                slurp(log));
  REQUIRE_MESSAGE(run_cli({"run", scen.string(), "--out", "h.sqlite", "--no-progress", "--summary-json", "h.json"}, t.path(), {}, log) == 0,
                  slurp(log));
  const json summary = json::parse(slurp(t.path() / "h.json"));
  CHECK(summary.at("jobs") == 10);
  CHECK(summary.at("job_history").at("unfinished") == 3);
  CHECK(summary.at("job_history").at("unfinished_s") == 17400.0);
  CHECK(summary.at("job_history").at("unfinished_min_s") == 12600.0);
  CHECK(summary.at("job_history").at("unfinished_max_s") == 27000.0);
  CHECK(summary.at("job_history").at("conditional") == 2);
  CHECK(summary.at("job_history").at("skipped") == 0);
  // mltwin compare on the run: 9 of the 10 rows have a start_time, and the run starts every job
  // (all 10 end), so 9 are compared; mixtral-ft-8 (Pending in the history) started in the twin only.
  const fs::path hist = fs::path(MLTWIN_SOURCE_DIR) / "scenarios/history/jobs.csv";
  REQUIRE_MESSAGE(run_cli({"compare", hist.string(), "h.sqlite", "--json", "c.json"}, t.path(), {}, log) == 0, slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "compared: 9 jobs"), slurp(log));
  const json cmp = json::parse(slurp(t.path() / "c.json"));
  CHECK(cmp.at("compared") == 9);
  CHECK(cmp.at("started_only_in_twin") == 1);
  CHECK(cmp.at("jobs").at(9).at("name") == "mixtral-ft-8");
  CHECK(cmp.at("jobs").at(9).at("actual_start_s").is_null());
  CHECK(run_cli({"compare", "nowhere.csv", "h.sqlite"}, t.path(), {}, log) == 2);
  // mixtral-ft-7 (line 7) ended at 12:10, before it started at 14:40.
  write_text(t.path() / "jobs.csv", [&] {
    std::string csv = slurp(fs::path(MLTWIN_SOURCE_DIR) / "scenarios/history/jobs.csv");
    const std::string from = "2026-01-05T22:10:00Z,Completed";
    csv.replace(csv.find(from), from.size(), "2026-01-05T12:10:00Z,Completed");
    return csv;
  }());
  json bad = json::parse(slurp(scen));
  bad.erase("$schema");
  bad["workload"]["history"]["file"] = "jobs.csv";
  write_text(t.path() / "bad.json", bad.dump());
  CHECK(run_cli({"validate", "bad.json"}, t.path(), {}, log) == 2);
  // The file as the scenario names it, beside the scenario (run from its folder).
  CHECK_MESSAGE(contains(slurp(log), std::string("error: jobs.csv") +
                                         ":7: column end_time: '2026-01-05T12:10:00Z' is before the job's start_time '2026-01-05T14:40:00Z'"),
                slurp(log));
}

TEST_CASE("mltwin validate HISTORY: a job history on its own, what it holds; a bad row FILE:LINE; --strict refuses a skipped job") {
  TempDir t("mltwin-cli");
  const fs::path log = t.path() / "v.log";
  write_text(t.path() / "jobs.csv", slurp(fs::path(MLTWIN_SOURCE_DIR) / "scenarios/history/jobs.csv"));
  REQUIRE_MESSAGE(run_cli({"validate", "jobs.csv"}, t.path(), {}, log) == 0, slurp(log));
  // 10 rows: 7 finished (6 Completed, 1 Failed), 2 Running, 1 Pending; run times as above.
  CHECK_MESSAGE(contains(slurp(log), "jobs.csv: a job history of 10 job(s): 7 finished (Completed, Failed), 2 Running, 1 Pending; "
                                     "0 the twin would skip\n"),
                slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "finished run times: median 12600 s, from 1800 s to 27000 s"), slurp(log));
  // A bad row: FILE:LINE: column.
  std::string csv = slurp(t.path() / "jobs.csv");
  write_text(t.path() / "bad.csv", csv.substr(0, csv.find('\n') + 1) + "a,ns,q,,2026-01-05T08:00:00Z,,,Done,w:1:cpu=1,\n");
  CHECK(run_cli({"validate", "bad.csv"}, t.path(), {}, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: bad.csv:2: column status: 'Done' is not a job status read here"), slurp(log));
  // A job of two pod shapes: listed as skipped, with its line; --strict: an error.
  write_text(t.path() / "shapes.csv", csv + "two-shapes,ns,team-a,,2026-01-05T08:00:00Z,,,Pending,\"l:1:cpu=1;w:2:cpu=2\",\n");
  REQUIRE_MESSAGE(run_cli({"validate", "shapes.csv"}, t.path(), {}, log) == 0, slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "1 the twin would skip (1 with tasks of different pod shapes (mltwin gives every pod of a job the same "
                                     "requests))\n  shapes.csv:12: Job 'two-shapes' (namespace ns): skipped: tasks of different pod shapes"),
                slurp(log));
  CHECK(run_cli({"validate", "shapes.csv", "--strict"}, t.path(), {}, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: shapes.csv:12: column tasks: Job 'two-shapes' (namespace ns) would be skipped"), slurp(log));
}

TEST_CASE("nodes from kubectl: scenarios/eks-kubectl-nodes.json runs on the Nodes' own names, keeps off the cordoned one, prices by the catalog") {
  // scenarios/kubectl/nodes.json: two trn1.32xlarge (ip-10-42-7-21 cordoned) and an m7i.large,
  // a type the catalog lacks. llama-1x32 runs at t0 on ip-10-42-3-10, started 30 min before
  // with 1 h to train: it ends at 1800 s. bert-1x32 (submitted at 0 s) fits neither the
  // cordoned node nor the m7i.large (no Neuron device): the cycle at 1800 s places it on
  // ip-10-42-3-10, bound 50 ms later, Running 2 s after that, done 20 min later (3002.05 s).
  TempDir t("mltwin-cli");
  const fs::path scen = fs::path(MLTWIN_SOURCE_DIR) / "scenarios/eks-kubectl-nodes.json";
  REQUIRE_MESSAGE(run_cli({"run", scen.string(), "--out", "k.sqlite", "--no-progress", "--snapshot-at", "1s"}, t.path(), {}, t.path() / "k.log") == 0,
                  slurp(t.path() / "k.log"));
  // The twin's own state at its first session (written as kubectl JSON): each node as its Node
  // object gave it — the cordon, the taints, allocatable (memory 524791688Ki = 537386688512
  // bytes), the 17 labels of the object (its kubernetes.io/hostname not doubled).
  const json snap = json::parse(slurp(t.path() / "k.snapshot-1s.json"));
  std::map<std::string, json> nodes;
  for (const auto& o : snap.at("items"))
    if (o.at("kind") == "Node") nodes[o.at("metadata").at("name").get<std::string>()] = o;
  REQUIRE(nodes.size() == 3);
  const json& cordoned = nodes.at("ip-10-42-7-21.us-west-2.compute.internal");
  CHECK(cordoned.at("spec").value("unschedulable", false));
  CHECK(cordoned.at("spec").at("taints").size() == 2);
  CHECK(cordoned.at("status").at("allocatable").at("cpu") == "127610m");
  CHECK(cordoned.at("status").at("allocatable").at("memory") == "537386688512");
  CHECK(cordoned.at("metadata").at("labels").size() == 17);
  CHECK_FALSE(nodes.at("ip-10-42-3-10.us-west-2.compute.internal").at("spec").value("unschedulable", false));
  CHECK(nodes.at("ip-10-42-9-5.us-west-2.compute.internal").at("status").at("allocatable").at("cpu") == "1930m");
  CHECK(contains(slurp(t.path() / "k.log"), "/cluster/nodes_from: no on-demand price for node(s) ip-10-42-9-5.us-west-2.compute.internal (m7i.large)"));
  Db db(t.path() / "k.sqlite");
  CHECK(db.rows("SELECT node, instance_type, capacity_type, zone, usd_per_hour, price_source FROM nodes ORDER BY node") ==
        std::vector<std::vector<std::string>>{
            {"ip-10-42-3-10.us-west-2.compute.internal", "trn1.32xlarge", "ON_DEMAND", "us-west-2d", "21.5",
             "aws-instance-types.json: /instance_types/1 on_demand_usd_per_hour, us-east-1"},
            {"ip-10-42-7-21.us-west-2.compute.internal", "trn1.32xlarge", "ON_DEMAND", "us-west-2d", "21.5",
             "aws-instance-types.json: /instance_types/1 on_demand_usd_per_hour, us-east-1"},
            {"ip-10-42-9-5.us-west-2.compute.internal", "m7i.large", "ON_DEMAND", "us-west-2a", "0.0",
             "none: instance type 'm7i.large' is not in the catalog"}});
  CHECK(db.rows("SELECT name, phase, start_ns, end_ns FROM jobs ORDER BY job") ==
        std::vector<std::vector<std::string>>{{"llama-1x32", "Completed", std::to_string(-1800 * kS), std::to_string(1800 * kS)},
                                              {"bert-1x32", "Completed", "1802050000000", "3002050000000"}});
  CHECK(db.one("SELECT group_concat(DISTINCT node) FROM pods WHERE node IS NOT NULL") == "ip-10-42-3-10.us-west-2.compute.internal");
}

TEST_CASE("pods from kubectl: scenarios/eks-kubectl-pods.json starts from the cluster's running PodGroup and submits the pending one") {
  // scenarios/kubectl/pods.json, now 18:00:00Z: llama's pod runs on ip-10-42-3-10 since
  // 17:30:00Z (status.startTime), its PodGroup's mltwin.io/duration is 1h: 30 min left, it ends
  // at 1800 s, as eks-kubectl-nodes.json's hand-written initial_state. bert's PodGroup is
  // Inqueue with its pod Pending (20m): the cycle at 1800 s places it on ip-10-42-3-10 (the other
  // trn1 is cordoned, the m7i.large has no Neuron device), bound 50 ms later, Running 2 s after
  // that, done 20 min later (3002.05 s). aws-node (25m cpu) stays on ip-10-42-3-10, coredns on
  // ip-10-42-9-5; data-prep (Succeeded) is ignored.
  TempDir t("mltwin-cli");
  const fs::path scen = fs::path(MLTWIN_SOURCE_DIR) / "scenarios/eks-kubectl-pods.json";
  const fs::path log = t.path() / "p.log";
  REQUIRE_MESSAGE(run_cli({"validate", scen.string()}, t.path(), {}, log) == 0, slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "Pods from kubectl: 1 file(s), now 2026-12-06T18:00:00Z (/cluster/pods_from/now); 1 running PodGroup(s) "
                                     "placed at t0, 1 pending PodGroup(s) submitted at 0s (1 of them admitted: Inqueue at t0), their run times from the duration model "
                                     "'annotation' (annotation mltwin.io/duration); 2 pod(s) of other schedulers held on 2 node(s); "
                                     "ignored: 1 Succeeded/Failed pod(s), 0 pod(s) being deleted"),
                slurp(log));
  REQUIRE_MESSAGE(run_cli({"run", scen.string(), "--out", "p.sqlite", "--no-progress", "--summary-json", "p.json"}, t.path(), {}, log) == 0,
                  slurp(log));
  const json summary = json::parse(slurp(t.path() / "p.json"));
  CHECK(summary.at("pods_from").at("running_jobs") == 1);
  CHECK(summary.at("pods_from").at("pending_jobs") == 1);
  CHECK(summary.at("pods_from").at("duration_model") == "annotation");
  Db db(t.path() / "p.sqlite");
  CHECK(db.rows("SELECT name, phase, start_ns, end_ns FROM jobs ORDER BY job") ==
        std::vector<std::vector<std::string>>{
            {"llama-1x32", "Completed", std::to_string(-1800 * kS), std::to_string(1800 * kS)},  // the Job's name: the PodGroup's less -<job UID>
            {"bert-1x32", "Completed", "1802050000000", "3002050000000"}});
  // A pod on a node the scenario does not have: the file and the JSON path.
  json pods = json::parse(slurp(fs::path(MLTWIN_SOURCE_DIR) / "scenarios/kubectl/pods.json"));
  pods["items"][1]["spec"]["nodeName"] = "ip-10-42-3-99.us-west-2.compute.internal";
  write_text(t.path() / "pods.json", pods.dump(2));
  json bad = json::parse(slurp(scen));
  bad.erase("$schema");
  bad["cluster"]["nodes_from"] = json::array({(fs::path(MLTWIN_SOURCE_DIR) / "scenarios/kubectl/nodes.json").string()});
  bad["cluster"]["pods_from"]["files"] = json::array({"pods.json"});
  write_text(t.path() / "bad.json", bad.dump());
  CHECK(run_cli({"validate", "bad.json"}, t.path(), {}, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: pods.json: /items/1/spec/nodeName: pod 'ml/llama-1x32-worker-0' runs on node "
                                     "'ip-10-42-3-99.us-west-2.compute.internal', which the scenario does not have"),
                slurp(log));
}

TEST_CASE("round trip: a --snapshot-at file, unedited, is a new scenario's nodes_from, pods_from and queues_from; its first session decides as the twin did") {
  // Run 1: 3 trn1.32xlarge, queues prod and research, classes team-high (1000) and team-low (10).
  // a (prod) and b (research) run from 0 s for 2 h, one node each; c (research, team-low, 1
  // node), d (prod, team-high, 2 nodes) and e (research, team-high, 1 node) are submitted at
  // 600 s. The snapshot is the session at 600 s, which opens with c, d, e Pending (their pods
  // not created yet: Volcano's job controller creates them once Inqueue).
  // Run 2 is built from that file alone: its Nodes (nodes_from), its Queues (queues_from), its
  // PodGroups, pods and PriorityClasses (pods_from; `now` from the snapshot's ConfigMap). a and
  // b run at t0 on their nodes, c, d, e are submitted at 0 s: its first session (at 0 s) must
  // decide what run 1's session at 600 s decided, as its .decisions.json says.
  // Why equality holds here: enqueue admits by overcommit (idle x 1.2 against the jobs' minResources)
  // in job order, and no two of c, d, e tie in it — within research e (team-high) goes before c
  // (team-low) and takes the room c would need, d (prod) needs 2 nodes where 1.2 are idle;
  // the order of prod and research (equal shares) changes none of that. Without the classes'
  // values (or with their names lost) c and e would tie and run 2 could admit either.
  // Run 3 is built from run 1's next session, at 601 s: e's PodGroup Inqueue with its pod
  // created (pending), c and d Pending. e is admitted at t0 (/initial_state/admitted), so run 3's
  // first session binds e's pod to the one free node, as run 1's did; it cannot tie (one node
  // has room).
  TempDir t("mltwin-cli");
  auto job = [](const std::string& name, const std::string& queue, const std::string& cls, const std::string& submit, int nnodes,
                const std::string& duration) {
    return json{{"name", name}, {"queue", queue}, {"priority_class", cls}, {"submit", submit}, {"nnodes", nnodes},
                {"pod", "aws_trn1_32xlarge"}, {"duration", duration}};
  };
  const json first = {
      {"schema_version", 2},
      {"name", "roundtrip-first"},
      {"seed", 3},
      {"cluster", {{"node_groups", json::array({{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 3},
                                                  {"availability_zone", "us-east-1a"}}})}}},
      {"priority_classes", json::array({{{"name", "team-high"}, {"value", 1000}}, {{"name", "team-low"}, {"value", 10}}})},
      {"volcano", {{"release", "v1.12.1"}, {"schedule_period", "1s"}}},
      {"queues", json::array({{{"name", "prod"}, {"weight", 1}}, {{"name", "research"}, {"weight", 1}}})},
      {"workload",
       {{"jobs", json::array({job("a", "prod", "team-low", "0s", 1, "2h"), job("b", "research", "team-high", "0s", 1, "2h"),
                              job("c", "research", "team-low", "600s", 1, "1h"), job("d", "prod", "team-high", "600s", 2, "1h"),
                              job("e", "research", "team-high", "600s", 1, "1h")})}}}};
  write_text(t.path() / "first.json", first.dump(2));
  const fs::path log = t.path() / "rt.log";
  REQUIRE_MESSAGE(run_cli({"run", "first.json", "--out", "first.sqlite", "--no-progress", "--snapshot-at", "600s", "--snapshot-at", "601s"},
                          t.path(), {}, log) == 0,
                  slurp(log));
  const json snap = json::parse(slurp(t.path() / "first.snapshot-600s.json"));
  const json want = json::parse(slurp(t.path() / "first.snapshot-600s.decisions.json"));
  // The session decided something (else the comparison below could not fail).
  REQUIRE(want.at("binds").size() + want.at("evictions").size() + want.at("podgroup_phases").size() > 0);
  // The classes under their own names (not mltwin-priority-N), as the PodGroups name them.
  std::set<std::string> classes;
  for (const auto& o : snap.at("items"))
    if (o.at("kind") == "PriorityClass") classes.insert(o.at("metadata").at("name").get<std::string>());
  CHECK(classes == std::set<std::string>{"team-high", "team-low"});

  const json second = {
      {"schema_version", 2},
      {"name", "roundtrip-second"},
      {"seed", 3},
      {"cluster",
       {{"nodes_from", {"first.snapshot-600s.json"}},
        {"pods_from", {{"files", {"first.snapshot-600s.json"}}, {"duration", {{"model", "fixed"}, {"duration", "1h"}, {"source", "test"}}}}}}},
      {"volcano", {{"release", "v1.12.1"}, {"schedule_period", "1s"}}},
      {"queues_from", {"first.snapshot-600s.json"}},
      {"workload", json::object()}};
  write_text(t.path() / "second.json", second.dump(2));
  REQUIRE_MESSAGE(run_cli({"run", "second.json", "--out", "second.sqlite", "--no-progress", "--snapshot-at", "0s"}, t.path(), {}, log) == 0,
                  slurp(log));
  // now = the snapshot's: its ConfigMap's data.now, 600 s after its epoch.
  CHECK_MESSAGE(contains(slurp(log), "Pods from kubectl: 1 file(s), now 2000-01-01T00:10:00Z (data.now of the ConfigMap "
                                     "mltwin-system/mltwin-snapshot); 2 running PodGroup(s) placed at t0, 3 pending PodGroup(s) submitted at 0s"),
                slurp(log));
  const json got = json::parse(slurp(t.path() / "second.snapshot-0s.decisions.json"));
  CHECK(got.at("now") == "2000-01-01T00:00:00Z");  // run 2's first session, at its t0
  CHECK(got.at("binds") == want.at("binds"));
  CHECK(got.at("evictions") == want.at("evictions"));
  CHECK(got.at("podgroup_phases") == want.at("podgroup_phases"));
  // Run 2's own state at that session: a and b on the nodes run 1 had them on.
  const json snap2 = json::parse(slurp(t.path() / "second.snapshot-0s.json"));
  auto placements = [](const json& list) {
    std::map<std::string, std::string> out;
    for (const auto& o : list.at("items"))
      if (o.at("kind") == "Pod" && o.at("spec").contains("nodeName")) out[o.at("metadata").at("name")] = o.at("spec").at("nodeName");
    return out;
  };
  CHECK(placements(snap2) == placements(snap));

  // Run 3, from the session at 601 s: the Inqueue PodGroup is admitted at t0 and its pod bound.
  const json want3 = json::parse(slurp(t.path() / "first.snapshot-601s.decisions.json"));
  REQUIRE(want3.at("binds").size() == 1);  // e's pod (else this part could not fail)
  json third = second;
  third["name"] = "roundtrip-third";
  third["cluster"]["nodes_from"] = {"first.snapshot-601s.json"};
  third["cluster"]["pods_from"]["files"] = {"first.snapshot-601s.json"};
  third["queues_from"] = {"first.snapshot-601s.json"};
  write_text(t.path() / "third.json", third.dump(2));
  REQUIRE_MESSAGE(run_cli({"run", "third.json", "--out", "third.sqlite", "--no-progress", "--snapshot-at", "0s"}, t.path(), {}, log) == 0,
                  slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "2 running PodGroup(s) placed at t0, 3 pending PodGroup(s) submitted at 0s (1 of them admitted: Inqueue at t0)"),
                slurp(log));
  const json got3 = json::parse(slurp(t.path() / "third.snapshot-0s.decisions.json"));
  // The same job's pod to the same node. The pod's name differs: pods_from makes a pending
  // PodGroup's pods one task, `pod` (e-pod-0), where run 1's torchrun job named it e-trainer-0-0.
  auto job_to_node = [](const json& binds) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& b : binds) {
      const std::string pod = b.at("pod").get<std::string>();  // default/<job>-...
      out.emplace_back(pod.substr(0, pod.find('-')), b.at("node").get<std::string>());
    }
    return out;
  };
  CHECK(job_to_node(got3.at("binds")) == job_to_node(want3.at("binds")));
  // e's pod to the one node a and b leave free.
  std::set<std::string> free_nodes = {"trn1-0", "trn1-1", "trn1-2"};
  for (const auto& [pod, node] : placements(snap)) free_nodes.erase(node);
  REQUIRE(free_nodes.size() == 1);
  CHECK(job_to_node(want3.at("binds")) == std::vector<std::pair<std::string, std::string>>{{"default/e", *free_nodes.begin()}});
  CHECK(got3.at("evictions") == want3.at("evictions"));
  CHECK(got3.at("podgroup_phases") == want3.at("podgroup_phases"));
}

TEST_CASE("explain: a job restarted after a node failure and placed again at once is not 'still waiting'") {
  // fabric-contention's cluster with one 1-pod job, placed on trn1-1 (nodeorder), which fails at 100 s: NotReady
  // and its Node deleted at 150 s (Kubernetes 1.32 defaults), PodGC deletes the pod at 200 s,
  // patched Failed; the job restarts (PodFailed -> RestartJob): killJob deletes the PodGroup
  // and the new one (Pending) is admitted by the session at 200 s (enqueue's verdict ends the
  // Restarting wait), its pod created and bound on trn1-0 (the replacement is Ready only at
  // 250 s) by the 201 s session. Before the fix, explain read the Restarting verdict as holding
  // to the end of the run.
  TempDir t("mltwin-cli");
  json sc = test_scenario("fabric-contention");
  sc["workload"]["jobs"] = json::parse(R"([{"name": "w", "queue": "default", "submit": "0s", "nnodes": 1,
      "pod": {"cpu": "127900m", "memory": "523264M", "aws.amazon.com/neurondevice": 16, "vpc.amazonaws.com/efa": 8},
      "duration": "1h", "steps": 100}])");
  sc["workload"]["torchx"] = {{"max_retries", 2}};
  sc["faults"] = json::parse(R"({"scheduled": [{"node": "trn1-1", "at": "100s"}], "replacement_time": "150s", "source": "test"})");
  const fs::path path = run_scenario(t.path(), sc, "fail");
  Db db(path);
  REQUIRE(db.one("SELECT nodes FROM jobs") == "trn1-0");
  const std::string out = explain(path, "w");
  CHECK_MESSAGE(contains(out, "Restarting by job-controller"), out);
  CHECK_MESSAGE(contains(out, "00:03:20 .. 00:03:20 (0 s): Restarting by job-controller"), out);
  CHECK_MESSAGE(contains(out, "admitted at 00:03:20."), out);
  CHECK_MESSAGE(contains(out, "1 pod(s) Bound on trn1-0"), out);
  CHECK_MESSAGE(!contains(out, "still waiting when the run ended"), out);
}

TEST_CASE("explain: a job that ended Failed is not 'still waiting' after its end") {
  // tests/scenarios/reclaim-churn.json: a1's third reclaim eviction (1067 s) exhausts maxRetry 3
  // and the job is Failed; its pods terminate for the 30 s grace period (Deleted at 1097 s, when
  // the job ends). killJob deleted its PodGroup at 1067 s, so no later session sees it: the last
  // verdict is the job controller's Failed, whose wait ends with the job at 1097 s (30 s), not
  // at the end of the run (4700 s).
  TempDir t("mltwin-cli");
  const fs::path path = run_scenario(t.path(), test_scenario("reclaim-churn"), "churn");
  Db db(path);
  REQUIRE(db.one("SELECT phase FROM jobs WHERE name = 'a1'") == "Failed");
  REQUIRE(db.one("SELECT end_ns FROM jobs WHERE name = 'a1'") == "1097000000000");
  const std::string out = explain(path, "a1");
  CHECK_MESSAGE(contains(out, "00:17:47 .. 00:18:17 (30 s): Failed by job-controller"), out);
  CHECK_MESSAGE(!contains(out, "00:17:48"), out);  // no session after the kill
  CHECK_MESSAGE(contains(out, "the job ended Failed at 00:18:17"), out);
  CHECK_MESSAGE(!contains(out, "still waiting when the run ended"), out);
}

TEST_CASE("explain: a starved job is told so, with the jobs that overtook it and the sla remedy") {
  // tests/scenarios/sla-starvation.json, default configuration (tests/models/test_sla_starvation.cpp
  // derives it): big (4 whole-node pods, 30 min, submitted at 100 s) is bound at 5945.05 s; it
  // waited 5845.05 s > 1 x 1800 s while s01..s19 (1 pod each, submitted at 260 k s, same queue)
  // were all placed before it; s01, submitted at 260 s, is the first of them placed (bound at
  // 261.05 s: the 261 s session plus the 50 ms bind latency).
  TempDir t("mltwin-cli");
  const fs::path path = run_scenario(t.path(), test_scenario("sla-starvation"), "starve");
  const std::string out = explain(path, "big");
  CHECK_MESSAGE(contains(out, "(3.2x its 30m00s run) while 19 later, smaller job(s) of queue default were placed before it (the first, s01, at 00:04:21.050)"), out);
  CHECK_MESSAGE(contains(out, "Remedy: the sla plugin"), out);
  // A small job that never waited long is not flagged.
  CHECK(!contains(explain(path, "s05"), "Starvation:"));
}

TEST_CASE("explain names the lifecycle policy the job controller applied, and the Volcano Job phases") {
  // tests/scenarios/job-policies.json (derived in tests/models/test_training.cpp): lo's pod 0 is
  // evicted by reclaim at 1001 s and its task's policy PodEvicted -> RestartTask applies (it
  // overrides the job-level AbortJob); at 1301 s the surviving pod times out and PodFailed ->
  // RestartTask applies again.
  TempDir t("mltwin-cli");
  const fs::path path = run_scenario(t.path(), test_scenario("job-policies"), "p");
  const std::string out = explain(path, "lo");
  // The eviction names the pod it made room for, both priorities (0: no PriorityClass) and the
  // tier that chose the victim: tier 1's gang leaves none (lo holds exactly minAvailable), tier
  // 2's proportion (its only Reclaimable plugin) takes lo's pod.
  CHECK_MESSAGE(contains(out, "Restarting by job-controller: pod lo-trainer-0-0 evicted (reclaim) for pod hi-trainer-0-0 of job "
                              "hi, priority 0 (this job's: 0); victims chosen by tier 2 (proportion); PodEvicted -> RestartTask, "
                              "retry 1 of maxRetry 3"),
                out);
  CHECK_MESSAGE(contains(out, "(the task's policy) [Volcano Job Running -> Restarting]"), out);
  CHECK_MESSAGE(contains(out, "PodFailed -> RestartTask, retry 2 of maxRetry 3"), out);
  CHECK_MESSAGE(contains(out, "rule: Volcano's job controller (pkg/controllers/job)"), out);
  CHECK_MESSAGE(contains(slurp(t.path() / "p-run.log") + out, "Completed"), out);
}

TEST_CASE("explain: a deadlocked job is told it is deadlocked, with the remedy that unlocks it; applied, no deadlock") {
  // tests/scenarios/queue-deadlock.json (derived in tests/models/test_training.cpp): queues a and
  // b of weight 1 on 128 NeuronCores each deserve 64 < 96, their smallest (only) gang; nothing
  // ever runs. Queue a at weight w deserves 128 w / (w + 1) >= 96 from w = 3.
  TempDir t("mltwin-cli");
  json sc = test_scenario("queue-deadlock");
  const fs::path locked = run_scenario(t.path(), sc, "dl");
  {
    Db db(locked);
    CHECK(json::parse(db.one("SELECT value FROM run_meta WHERE key = 'deadlock'")) ==
          json::parse(R"({"queues": ["a", "b"], "waiting": 2, "unlock_queue": "a", "unlock_weight": 3})"));
  }
  const std::string out = explain(locked, "b1");
  CHECK_MESSAGE(contains(out, "still waiting when the run ended, deadlocked (see Deadlock below)."), out);
  CHECK_MESSAGE(contains(out, "Deadlock: the run ended with queues a, b each deserving less than their smallest job"), out);
  CHECK_MESSAGE(contains(out, "2 job(s) waited on an idle cluster, this one among them (queue b). Remedy: raise one queue's "
                              "weight — queue a to 3 —"),
                out);
  // The remedy applied: queue a at weight 3 runs a1, then b1; no deadlock, none told.
  sc["queues"][0]["weight"] = 3;
  const fs::path fixed = run_scenario(t.path(), sc, "fixed");
  {
    Db db(fixed);
    CHECK(db.one("SELECT COUNT(*) FROM run_meta WHERE key = 'deadlock'") == "0");
    CHECK(db.one("SELECT group_concat(phase) FROM jobs") == "Completed,Completed");
  }
  CHECK(!contains(explain(fixed, "b1"), "Deadlock"));
}

TEST_CASE("explain: a job caught in the autoscaler trap is told so; overcommit's advice fits a cluster that scales out") {
  // tests/scenarios/autoscaler-trap.json: 1 node present (min 1, max 3), a 2-node gang: overcommit
  // admits 1.2 x 1 node < 2, so the PodGroup stays Pending, no pod exists, the autoscaler never
  // scales out (models/training.cpp names the trap in the final reason).
  TempDir t("mltwin-cli");
  const std::string out = explain(run_scenario(t.path(), test_scenario("autoscaler-trap"), "trap"), "j");
  CHECK_MESSAGE(contains(out, "Unschedulable by overcommit"), out);
  CHECK_MESSAGE(contains(out, "sooner with: enqueue left out of volcano.actions"), out);
  CHECK_MESSAGE(!contains(out, "a larger overcommit-factor or cluster"), out);  // the plain overcommit advice
  CHECK_MESSAGE(contains(out, "Autoscaler trap: the job never got a pod"), out);
}

TEST_CASE("explain: a job of independent pods ran (not trained), and CompleteJob is how it ended, not a wait") {
  // tests/scenarios/job-tasks.json (derived in tests/models/test_training.cpp): mpi's pods are Running at 3.05 s; master's pod succeeds at 603.05 s and its
  // TaskCompleted -> CompleteJob ends the Job: the workers are killed, Deleted after the 30 s
  // grace period, the Job Completed at 633.05 s: it ran 633.05 - 3.05 = 630 s = 10m30s.
  TempDir t("mltwin-cli");
  const std::string out = explain(run_scenario(t.path(), test_scenario("job-tasks"), "tasks"), "mpi");
  CHECK_MESSAGE(contains(out, "; ran 10m30s; ended at 00:10:33.050"), out);
  CHECK_MESSAGE(contains(out, "it never waited"), out);
  CHECK_MESSAGE(contains(out, "How it ended:\n  00:10:03.050: Completing by job-controller: task master completed"), out);
  CHECK_MESSAGE(contains(out, "the job ended Completed at 00:10:33.050."), out);
  CHECK_MESSAGE(!contains(out, "checkpoint"), out);  // no restart advice for a job its own policy completed
}

TEST_CASE("explain: a never-placeable job gets no starvation advice; a restart after a node failure gets fault advice") {
  // tests/scenarios/reject-capability.json: over-cap asks for 32 Neuron devices in a queue capped
  // at 16: it can never be placed and waits the whole run (1 h), longer than its run time, while
  // at-cap (same queue, later, smaller) is placed: the starvation criterion holds, but the
  // summary leaves never-placeable jobs out of the flag (no turn would come), and so does explain.
  TempDir t("mltwin-cli");
  const std::string over = explain(run_scenario(t.path(), test_scenario("reject-capability"), "cap"), "over-cap");
  CHECK_MESSAGE(contains(over, "final reason: can never be placed"), over);
  CHECK_MESSAGE(!contains(over, "Starvation:"), over);
  CHECK_MESSAGE(!contains(over, "sla plugin"), over);
  // The summary's Never placeable line: budget held Inqueue only with the enqueue action.
  CHECK(contains(slurp(t.path() / "cap-run.log"), "Inqueue once enqueue finds budget"));
  json no_enqueue = test_scenario("reject-capability");
  no_enqueue["volcano"]["actions"] = {"allocate", "backfill"};
  run_scenario(t.path(), no_enqueue, "cap2");
  const std::string log = slurp(t.path() / "cap2-run.log");
  CHECK_MESSAGE(contains(log, "without the enqueue action, allocate admits their PodGroups: they hold no enqueue budget"), log);
  CHECK_MESSAGE(!contains(log, "Inqueue once enqueue finds budget"), log);
  // tests/scenarios/node-failure.json: a's pod is failed by PodGC when its node is gone
  // (PodFailed -> RestartJob): no scheduler eviction, so no preempt/reclaim advice.
  const std::string a = explain(run_scenario(t.path(), test_scenario("node-failure"), "nf"), "a");
  CHECK_MESSAGE(contains(a, "Restarting by job-controller: pod a-trainer-0-0 failed: PodGC"), a);
  CHECK_MESSAGE(contains(a, "sooner with: a shorter checkpoint interval (less lost work), fewer of the faults behind the pod event"), a);
  CHECK_MESSAGE(!contains(a, "preempt/reclaim left out"), a);
}

TEST_CASE("migrate: a version-1 scenario is refused by run and validate, rewritten by migrate, then valid") {
  TempDir t("mltwin-cli");
  const Fixture fx(t.path());
  const std::vector<std::string> env = {"MLTWIN_DATA=" + fx.data.string()};
  // small.json as version 1: no schema_version, the catalog pasted in the old row form (the
  // shipped figures of trn1.32xlarge).
  json v1 = json::parse(slurp(fx.scen / "small.json"));
  v1.erase("schema_version");
  v1["catalog"] = {{"instance_types",
                    {{{"name", "trn1.32xlarge"}, {"trainium_chips", 16}, {"neuroncores_per_chip", 2}, {"device_memory_gib", 512},
                      {"vcpu", 128}, {"memory_gib", 512}, {"efa_interfaces", 8}, {"network_gbps", 800},
                      {"on_demand_usd_per_hour", 21.5}, {"price_region", "us-east-1"}, {"source", "pasted"}}}}};
  write_text(fx.scen / "v1.json", v1.dump(2));
  const fs::path log = t.path() / "log.txt";
  CHECK(run_cli({"validate", "scen/v1.json"}, t.path(), env, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: scen/v1.json: /schema_version: missing: this is a version-1 scenario"), slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "mltwin migrate scen/v1.json -o NEW.json"), slurp(log));
  CHECK(run_cli({"run", "scen/v1.json", "--no-progress"}, t.path(), env, log) == 2);
  // migrate to stdout, then to a file; the row equal to the shipped one is dropped.
  CHECK(run_cli({"migrate", "scen/v1.json"}, t.path(), env, log) == 0);
  CHECK_MESSAGE(contains(slurp(log), "migrate: /catalog/instance_types/0 (trn1.32xlarge): equal to the shipped row; dropped"), slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "\"schema_version\": 2"), slurp(log));
  CHECK(run_cli({"migrate", "scen/v1.json", "-o", "scen/v2.json"}, t.path(), env, log) == 0);
  const json v2 = json::parse(slurp(fx.scen / "v2.json"));
  CHECK(!v2.contains("catalog"));
  CHECK(v2 == json::parse(slurp(fx.scen / "small.json")));
  CHECK(run_cli({"validate", "scen/v2.json"}, t.path(), env, log) == 0);
  CHECK_MESSAGE(contains(slurp(log), "scen/v2.json: valid"), slurp(log));
  // Migrating it again is refused; a --catalog that is not there is an error naming it.
  CHECK(run_cli({"migrate", "scen/v2.json"}, t.path(), env, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: scen/v2.json: /schema_version: already at schema_version 2, the version this mltwin "
                                     "reads; nothing to change"), slurp(log));
  CHECK(run_cli({"validate", "scen/v2.json", "--catalog", "none.json"}, t.path(), env, log) == 2);
  CHECK_MESSAGE(contains(slurp(log), "error: --catalog names 'none.json', which is not a catalog file"), slurp(log));
}

namespace {
/// The output of `mltwin <command>` (a Markdown table starting with `header`), checked to be
/// in `doc` verbatim: the docs show the command's own output.
std::string table_shown_in(const char* command, const std::string& doc, const std::string& header) {
  const mltwin::test::TempDir t;
  REQUIRE(run_cli({command}, t.path(), {}, t.path() / "out.log") == 0);
  std::ifstream out(t.path() / "out.log");
  const std::string table((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/" + doc);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(table.rfind(header, 0) == 0);
  const std::string hint = "regenerate the table in " + doc + " with `mltwin " + command + "`";
  CHECK_MESSAGE(text.find(table) != std::string::npos, hint);
  return table;
}
}  // namespace

TEST_CASE("migrate moves an inference scenario's serving policy settings of mltwin 0.2 into its policies block") {
  TempDir t("mltwin-cli");
  const fs::path dir = t.path() / "scen";
  fs::create_directories(dir);
  // The Azure scenario as mltwin 0.2 wrote it: routing and target tracking under the endpoint,
  // the DJL remedy under the server.
  const json shipped = json::parse(slurp(fs::path(MLTWIN_SOURCE_DIR) / "scenarios" / "mme-azure-functions.json"));
  json old = shipped;
  const json& p = shipped["policies"];
  old.erase("policies");
  old["endpoint"]["routing"] = p["routing"]["arguments"];
  old["endpoint"]["routing"]["source"] = p["routing"]["source"];
  old["endpoint"]["autoscaling"]["target_tracking"] = p["instance_scaling"]["arguments"];
  old["endpoint"]["autoscaling"]["target_tracking"]["source"] = p["instance_scaling"]["source"];
  old["server"]["idle_from_batch_end"] = true;
  write_text(dir / "old.json", old.dump(2));
  const std::vector<std::string> env = {"MLTWIN_DATA=/nonexistent"};  // validate reads the trace: not needed here
  const fs::path log = t.path() / "log.txt";
  CHECK(run_cli({"validate", "scen/old.json"}, t.path(), env, log) == 2);
  // The first moved key in the policies block's order is named (io/src/moved_policy_keys.hpp).
  CHECK_MESSAGE(contains(slurp(log), "/server/idle_from_batch_end: moved: it is an argument of the worker autoscaling policy"),
                slurp(log));
  CHECK_MESSAGE(contains(slurp(log), "`mltwin migrate scen/old.json` rewrites it"), slurp(log));
  REQUIRE(run_cli({"migrate", "scen/old.json", "-o", "scen/new.json"}, t.path(), env, log) == 0);
  CHECK_MESSAGE(contains(slurp(log), "migrate: /endpoint/routing -> /policies/routing"), slurp(log));
  const json moved = json::parse(slurp(dir / "new.json"));
  CHECK(!moved["endpoint"].contains("routing"));
  CHECK(!moved["endpoint"].contains("autoscaling"));
  CHECK(!moved["server"].contains("idle_from_batch_end"));
  CHECK(moved["policies"]["routing"] == p["routing"]);
  CHECK(moved["policies"]["instance_scaling"] == p["instance_scaling"]);
  CHECK(moved["policies"]["autoscaling"] == json({{"name", "djl-wlm"}, {"arguments", {{"idle_from_batch_end", true}}}}));
  // Everything else is as it was.
  json a = moved, b = shipped;
  a.erase("policies");
  b.erase("policies");
  CHECK(a == b);
}

TEST_CASE("mltwin plugins prints the table docs/plugin-guide.md shows") {
  const std::string table = table_shown_in("plugins", "docs/plugin-guide.md", "| plugin | argument |");
  CHECK(table.find("| nodeorder | `mostrequested.weight` | integer | 0 |") != std::string::npos);
}

TEST_CASE("mltwin policies prints the table docs/inference.md shows") {
  const std::string table = table_shown_in("policies", "docs/inference.md", "| `policies` key | name |");
  // Defaults from the parameter structs: CacheAwareRoutingParams{} and TargetTrackingParams{}.
  CHECK(table.find("| `heavy_load_per_worker` | number | 2 |") != std::string::npos);
  CHECK(table.find("| `scale_out_cooldown` | Go duration | 5m0s |") != std::string::npos);
  CHECK(table.find("| `target_value` | number | — (required) |") != std::string::npos);
}
