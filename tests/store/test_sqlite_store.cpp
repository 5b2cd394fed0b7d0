// Tests of the SQLite results store: what is written is what is read back, identical call
// sequences give identical files, failures name the path, and an abandoned run leaves a
// readable database holding exactly its committed rows.
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/store/sqlite_store.hpp"

namespace fs = std::filesystem;
using mltwin::core::Time;
using namespace mltwin::models;
using mltwin::store::RunMetadata;
using mltwin::store::SqliteStore;

namespace {

/// A fresh directory under the system temp directory, removed with everything in it.
using mltwin::test::TempDir;

/// A read connection to a results database, with one-value query helpers.
class Reader {
 public:
  explicit Reader(const std::string& path) {
    // Read-write, as the sqlite3 CLI opens a file: needed to roll back a hot journal.
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
      throw std::runtime_error("open " + path + ": " + sqlite3_errmsg(db_));
  }
  ~Reader() { sqlite3_close_v2(db_); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// Runs `sql` and returns read(statement) for its first row; throws if there is none.
  template <class F>
  auto one(const std::string& sql, F read) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error("prepare '" + sql + "': " + sqlite3_errmsg(db_));
    if (sqlite3_step(s) != SQLITE_ROW) {
      sqlite3_finalize(s);
      throw std::runtime_error("no row from '" + sql + "'");
    }
    auto v = read(s);
    sqlite3_finalize(s);
    return v;
  }

  std::int64_t integer(const std::string& sql) {
    return one(sql, [](sqlite3_stmt* s) { return sqlite3_column_int64(s, 0); });
  }
  double real(const std::string& sql) {
    return one(sql, [](sqlite3_stmt* s) { return sqlite3_column_double(s, 0); });
  }
  std::string text(const std::string& sql) {
    return one(sql, [](sqlite3_stmt* s) {
      const auto* p = sqlite3_column_text(s, 0);
      return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string("<NULL>");
    });
  }
  bool is_null(const std::string& sql) {
    return one(sql, [](sqlite3_stmt* s) { return sqlite3_column_type(s, 0) == SQLITE_NULL; });
  }

 private:
  sqlite3* db_ = nullptr;
};

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Time sec(double s) { return Time::from_seconds(s); }

RunMetadata small_meta(std::uint64_t seed = 42) {
  RunMetadata m;
  m.scenario_path = "scenarios/philly.json";
  m.scenario_json = R"({"until":"7d"})";
  m.seed = seed;
  m.git_sha = "0123abcd";
  m.volcano_release = "v1.10.0";
  m.mltwin_version = "0.1.0";
  m.until = "7d";
  m.rng_streams = {"arrivals", "durations", "failures"};
  m.inputs = {{"trace", "data/philly.csv", std::string(64, 'f'), 1234}};
  m.extra = {{"cli", "mltwin run scenarios/philly.json"}};
  return m;
}

/// A small but complete run: one job that finishes, one that never leaves Pending.
void write_small_run(SqliteStore& st) {
  JobSubmitted a;
  a.job = 0;
  a.name = "philly-000001";
  a.queue = "research";
  a.submit = sec(1.5);
  a.nnodes = 2;
  a.nproc_per_node = 32;
  a.neuron_devices_per_pod = 16;
  a.cpu_per_pod = 120.5;
  a.memory_gib_per_pod = 480.25;
  a.efa_per_pod = 8;
  a.duration_s = 3600.0;
  a.trace_row = 2;
  a.trace_gpus = 16;
  st.job_submitted(a);

  JobSubmitted b = a;
  b.job = 1;
  b.name = "philly-000002";
  b.queue = "prod";
  b.submit = sec(2.0);
  b.nnodes = 64;
  b.trace_row = 3;
  st.job_submitted(b);

  st.phase_change({0, sec(2.0), "Pending", "Inqueue"});
  st.decision({1, sec(2.0), "Unschedulable", "gang", "0/4 nodes are available: 4 Insufficient aws.amazon.com/neurondevice."});
  for (int pod = 0; pod < 2; ++pod) st.pod_event({0, pod, "Created", "", sec(2.0)});
  st.sample({sec(3.0), 64.0, 256.0, 0, 1, 0, 0});
  st.checkpoint(sec(3.0));

  st.pod_event({0, 0, "Bound", "trn1-node-a", sec(4.0)});
  st.pod_event({0, 1, "Bound", "trn1-node-b", sec(4.25)});
  st.decision({0, sec(4.25), "Success", "allocate", ""});
  st.phase_change({0, sec(4.25), "Inqueue", "Running"});
  st.pod_event({0, 0, "Running", "trn1-node-a", sec(34.25)});
  st.pod_event({0, 1, "Running", "trn1-node-b", sec(34.25)});
  st.sample({sec(6.0), 128.0, 256.0, 1, 0, 1, 2});
  st.sample({sec(9.0), 0.0, 0.0, 0, 0, 0, 0});  // a cluster with no capacity: ratio NULL

  JobFinal fa;
  fa.job = 0;
  fa.phase = "Completed";
  fa.podgroup_phase = "Completed";
  fa.inqueue = sec(2.0);
  fa.scheduled = sec(4.25);
  fa.start = sec(34.25);
  fa.end = sec(3634.25);
  fa.nodes = "trn1-node-a,trn1-node-b";
  st.job_final(fa);

  JobFinal fb;  // every time left at Time::max(): never happened
  fb.job = 1;
  fb.phase = "Pending";
  fb.podgroup_phase = "Pending";
  fb.reason = "gang unschedulable";
  st.job_final(fb);
  st.checkpoint(sec(3634.25));
}

}  // namespace

TEST_CASE("a run written through the recorder interface reads back column by column") {
  TempDir dir;
  const std::string path = dir.file("run.db");
  {
    SqliteStore st(path, small_meta());
    CHECK(st.path() == path);
    write_small_run(st);
    st.finish();
    CHECK(st.finished());
  }
  CHECK_FALSE(fs::exists(path + "-journal"));

  Reader db(path);
  SUBCASE("run metadata and inputs") {
    CHECK(db.integer("PRAGMA user_version") == mltwin::store::kSchemaVersion);
    auto meta = [&](const std::string& key) {
      return db.text("SELECT value FROM run_meta WHERE key = '" + key + "'");
    };
    CHECK(meta("schema_version") == "10");
    CHECK(mltwin::store::kSchemaVersion == 10);
    CHECK(meta("run_kind") == "training");
    CHECK(meta("mltwin_version") == "0.1.0");
    CHECK(meta("git_sha") == "0123abcd");
    CHECK(meta("volcano_release") == "v1.10.0");
    CHECK(meta("seed") == "42");
    CHECK(meta("scenario_path") == "scenarios/philly.json");
    CHECK(meta("scenario_json") == R"({"until":"7d"})");
    CHECK(meta("until") == "7d");
    CHECK(meta("rng_streams") == "arrivals,durations,failures");
    CHECK(meta("cli") == "mltwin run scenarios/philly.json");
    CHECK(meta("checkpoint_ns") == "3634250000000");
    CHECK(db.integer("SELECT count(*) FROM run_meta") == 12);

    CHECK(db.text("SELECT role || ' ' || path || ' ' || sha256 || ' ' || bytes FROM inputs") ==
          "trace data/philly.csv " + std::string(64, 'f') + " 1234");
  }

  SUBCASE("jobs: submission columns, final columns, NULL for never") {
    CHECK(db.integer("SELECT count(*) FROM jobs") == 2);
    CHECK(db.text("SELECT name FROM jobs WHERE job = 0") == "philly-000001");
    CHECK(db.text("SELECT queue FROM jobs WHERE job = 0") == "research");
    CHECK(db.integer("SELECT submit_ns FROM jobs WHERE job = 0") == 1'500'000'000);
    CHECK(db.integer("SELECT nnodes FROM jobs WHERE job = 0") == 2);
    CHECK(db.integer("SELECT nproc_per_node FROM jobs WHERE job = 0") == 32);
    CHECK(db.integer("SELECT neuron_devices_per_pod FROM jobs WHERE job = 0") == 16);
    CHECK(db.real("SELECT cpu_per_pod FROM jobs WHERE job = 0") == 120.5);
    CHECK(db.real("SELECT memory_gib_per_pod FROM jobs WHERE job = 0") == 480.25);
    CHECK(db.integer("SELECT efa_per_pod FROM jobs WHERE job = 0") == 8);
    CHECK(db.real("SELECT duration_s FROM jobs WHERE job = 0") == 3600.0);
    CHECK(db.integer("SELECT trace_row FROM jobs WHERE job = 0") == 2);
    CHECK(db.integer("SELECT trace_gpus FROM jobs WHERE job = 0") == 16);
    CHECK(db.text("SELECT phase FROM jobs WHERE job = 0") == "Completed");
    CHECK(db.text("SELECT podgroup_phase FROM jobs WHERE job = 0") == "Completed");
    CHECK(db.integer("SELECT inqueue_ns FROM jobs WHERE job = 0") == 2'000'000'000);
    CHECK(db.integer("SELECT scheduled_ns FROM jobs WHERE job = 0") == 4'250'000'000);
    CHECK(db.integer("SELECT start_ns FROM jobs WHERE job = 0") == 34'250'000'000);
    CHECK(db.integer("SELECT end_ns FROM jobs WHERE job = 0") == 3'634'250'000'000);
    CHECK(db.text("SELECT nodes FROM jobs WHERE job = 0") == "trn1-node-a,trn1-node-b");
    CHECK(db.is_null("SELECT reason FROM jobs WHERE job = 0"));

    CHECK(db.text("SELECT phase FROM jobs WHERE job = 1") == "Pending");
    CHECK(db.is_null("SELECT inqueue_ns FROM jobs WHERE job = 1"));
    CHECK(db.is_null("SELECT scheduled_ns FROM jobs WHERE job = 1"));
    CHECK(db.is_null("SELECT start_ns FROM jobs WHERE job = 1"));
    CHECK(db.is_null("SELECT end_ns FROM jobs WHERE job = 1"));
    CHECK(db.is_null("SELECT nodes FROM jobs WHERE job = 1"));
    CHECK(db.text("SELECT reason FROM jobs WHERE job = 1") == "gang unschedulable");
  }

  SUBCASE("job_times view: differences in seconds, NULL when an end is missing") {
    // Job 0: submit 1.5 s, scheduled 4.25 s, start 34.25 s, end 3634.25 s.
    CHECK(db.real("SELECT queueing_s FROM job_times WHERE job = 0") == 2.75);
    CHECK(db.real("SELECT wait_to_start_s FROM job_times WHERE job = 0") == 32.75);
    CHECK(db.real("SELECT jct_s FROM job_times WHERE job = 0") == 3632.75);
    CHECK(db.text("SELECT queue || '/' || phase FROM job_times WHERE job = 0") == "research/Completed");
    CHECK(db.is_null("SELECT queueing_s FROM job_times WHERE job = 1"));
    CHECK(db.is_null("SELECT jct_s FROM job_times WHERE job = 1"));
    CHECK(db.is_null("SELECT wait_to_start_s FROM job_times WHERE job = 1"));
  }

  SUBCASE("pods, decisions, phases") {
    CHECK(db.integer("SELECT count(*) FROM pods") == 6);
    CHECK(db.integer("SELECT count(*) FROM pods WHERE event = 'Created' AND node IS NULL") == 2);
    CHECK(db.text("SELECT node FROM pods WHERE pod = 1 AND event = 'Bound'") == "trn1-node-b");
    CHECK(db.integer("SELECT t_ns FROM pods WHERE pod = 1 AND event = 'Bound'") == 4'250'000'000);

    CHECK(db.integer("SELECT count(*) FROM decisions") == 2);
    CHECK(db.text("SELECT code || ' ' || plugin FROM decisions WHERE job = 1") == "Unschedulable gang");
    CHECK(db.text("SELECT reason FROM decisions WHERE job = 1") ==
          "0/4 nodes are available: 4 Insufficient aws.amazon.com/neurondevice.");
    CHECK(db.is_null("SELECT reason FROM decisions WHERE job = 0"));

    CHECK(db.integer("SELECT count(*) FROM phases") == 2);
    CHECK(db.text("SELECT from_phase || '>' || to_phase FROM phases WHERE t_ns = 4250000000") ==
          "Inqueue>Running");
  }

  SUBCASE("cluster_metrics") {
    CHECK(db.integer("SELECT count(*) FROM cluster_metrics") == 3);
    CHECK(db.real("SELECT allocation_ratio FROM cluster_metrics WHERE t_ns = 3000000000") == 0.25);
    CHECK(db.real("SELECT allocation_ratio FROM cluster_metrics WHERE t_ns = 6000000000") == 0.5);
    CHECK(db.is_null("SELECT allocation_ratio FROM cluster_metrics WHERE t_ns = 9000000000"));
    CHECK(db.text("SELECT neuroncores_allocated || ' ' || neuroncores_total || ' ' || jobs_pending"
                  " || ' ' || jobs_inqueue || ' ' || jobs_running || ' ' || pods_running"
                  " FROM cluster_metrics WHERE t_ns = 6000000000") == "128.0 256.0 1 0 1 2");
  }

  SUBCASE("finish created the per-job indexes") {
    for (const char* index : {"pods_by_job", "decisions_by_job", "phases_by_job"})
      CHECK(db.integer(std::string("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '") +
                       index + "'") == 1);
  }
}

TEST_CASE("rows buffered for a multi-row INSERT reach the database intact") {
  // 70 jobs and 100 pod events: full batches and a partial one at finish(); some jobs end
  // while their row is still in the insert buffer.
  TempDir dir;
  const std::string path = dir.file("batches.db");
  std::int64_t pod_sum = 0, t_sum = 0;
  {
    SqliteStore st(path, small_meta());
    for (std::uint32_t i = 0; i < 70; ++i) {
      JobSubmitted j;
      j.job = i;
      j.name = "job-" + std::to_string(i);
      j.queue = i % 2 == 0 ? "even" : "odd";
      j.submit = Time::from_ns(i * 1000);
      j.trace_row = i + 2;
      st.job_submitted(j);
      if (i % 10 == 3) {
        JobFinal f;
        f.job = i;
        f.phase = "Rejected";
        f.reason = "queue closed";
        st.job_final(f);
      }
    }
    for (int k = 0; k < 100; ++k) {
      const std::string node = "node-" + std::to_string(k);  // dies before the row is written
      st.pod_event({static_cast<std::uint32_t>(k % 70), k, k % 3 == 0 ? "Created" : "Bound",
                    k % 3 == 0 ? "" : node, Time::from_ns(k * 7)});
      pod_sum += k;
      t_sum += k * 7;
    }
    st.finish();
  }
  Reader db(path);
  CHECK(db.integer("SELECT count(*) FROM jobs") == 70);
  CHECK(db.integer("SELECT sum(trace_row) FROM jobs") == 70 * 2 + 69 * 70 / 2);
  CHECK(db.text("SELECT name || ' ' || queue || ' ' || submit_ns FROM jobs WHERE job = 69") ==
        "job-69 odd 69000");
  CHECK(db.integer("SELECT count(*) FROM jobs WHERE phase = 'Rejected' AND reason = 'queue closed'") == 7);
  CHECK(db.integer("SELECT count(*) FROM jobs WHERE phase = 'Pending' AND reason IS NULL") == 63);
  CHECK(db.integer("SELECT count(*) FROM pods") == 100);
  CHECK(db.integer("SELECT sum(pod) FROM pods") == pod_sum);
  CHECK(db.integer("SELECT sum(t_ns) FROM pods") == t_sum);
  CHECK(db.integer("SELECT count(*) FROM pods WHERE node IS NULL") == 34);
  CHECK(db.integer("SELECT count(*) FROM pods WHERE node = 'node-' || pod") == 66);
  CHECK(db.text("SELECT event || ' ' || job || ' ' || node FROM pods WHERE pod = 98") == "Bound 28 node-98");
}

TEST_CASE("nodes: a row per launch, end_ns set when the node ends, NULL for no zone and for a node still there") {
  TempDir dir;
  const std::string path = dir.file("nodes.db");
  {
    SqliteStore st(path, small_meta());
    st.node_launched({sec(0), "trn1-0", "trn1", "trn1.32xlarge", "ON_DEMAND", "us-east-1a", 21.5, "catalog row source"});
    st.node_launched({sec(0), "cpu-0", "cpu", "m6i.xlarge", "SPOT", "", 0.05, "spot history"});
    // Ended while its row still waits in the insert buffer.
    st.node_ended({sec(3000), "trn1-0"});
    st.node_launched({sec(3000), "trn1-1", "trn1", "trn1.32xlarge", "ON_DEMAND", "us-east-1a", 21.5, "catalog row source"});
    st.checkpoint(sec(3000));
    // A node that never launched.
    CHECK_THROWS_WITH_AS(st.node_ended({sec(3001), "trn1-9"}), doctest::Contains("node_ended for node 'trn1-9', which was never launched"),
                         std::runtime_error);
    st.finish();
  }
  Reader db(path);
  CHECK(db.integer("SELECT count(*) FROM nodes") == 3);
  CHECK(db.text("SELECT group_concat(node, ',') FROM (SELECT node FROM nodes ORDER BY rowid)") == "trn1-0,cpu-0,trn1-1");
  CHECK(db.text("SELECT node_group || ' ' || instance_type || ' ' || capacity_type || ' ' || zone || ' ' || launch_ns || ' ' ||"
                " end_ns || ' ' || usd_per_hour || ' ' || price_source FROM nodes WHERE node = 'trn1-0'") ==
        "trn1 trn1.32xlarge ON_DEMAND us-east-1a 0 3000000000000 21.5 catalog row source");
  CHECK(db.is_null("SELECT zone FROM nodes WHERE node = 'cpu-0'"));
  CHECK(db.is_null("SELECT end_ns FROM nodes WHERE node = 'cpu-0'"));
  CHECK(db.real("SELECT usd_per_hour FROM nodes WHERE node = 'cpu-0'") == 0.05);
  CHECK(db.text("SELECT capacity_type || ' ' || price_source FROM nodes WHERE node = 'cpu-0'") == "SPOT spot history");
  CHECK(db.integer("SELECT launch_ns FROM nodes WHERE node = 'trn1-1'") == 3'000'000'000'000);
  CHECK(db.is_null("SELECT end_ns FROM nodes WHERE node = 'trn1-1'"));
}

TEST_CASE("identical call sequences produce byte-identical files") {
  TempDir dir;
  auto write = [&](const std::string& name, std::uint64_t seed) {
    const std::string path = dir.file(name);
    SqliteStore st(path, small_meta(seed));
    write_small_run(st);
    st.finish();
    return file_bytes(path);
  };
  const auto first = write("a.db", 42);
  const auto second = write("b.db", 42);
  REQUIRE(first.size() > 0);
  CHECK(first == second);
  // And the comparison can fail: one different metadata value changes the file.
  CHECK(first != write("c.db", 43));
  // Rewriting over an existing file gives the same bytes as writing a fresh one.
  CHECK(write("a.db", 42) == first);
}

TEST_CASE("an existing database and a stale journal are replaced") {
  TempDir dir;
  const std::string path = dir.file("run.db");
  { std::ofstream(path) << "not a database"; }
  { std::ofstream(path + "-journal") << "stale journal"; }
  {
    SqliteStore st(path, small_meta());
    write_small_run(st);
  }  // the destructor finishes
  CHECK_FALSE(fs::exists(path + "-journal"));
  Reader db(path);
  CHECK(db.integer("SELECT count(*) FROM jobs") == 2);
  CHECK(db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index'") >= 3);
}

TEST_CASE("errors name the path") {
  TempDir dir;
  SUBCASE("a directory that does not exist") {
    const std::string path = dir.file("no-such-dir/run.db");
    try {
      SqliteStore st(path, small_meta());
      FAIL("opening " << path << " did not throw");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find(path) != std::string::npos);
      CHECK(std::string(e.what()).find("unable to open database file") != std::string::npos);
    }
  }
  SUBCASE("a path that is a directory is neither opened nor deleted") {
    const std::string path = dir.file("subdir");
    fs::create_directory(path);
    CHECK_THROWS_WITH_AS(SqliteStore(path, small_meta()), doctest::Contains(path.c_str()), std::runtime_error);
    CHECK(fs::is_directory(path));
  }
  SUBCASE("an extra metadata key that shadows a built-in one") {
    RunMetadata m = small_meta();
    m.extra["seed"] = "7";
    CHECK_THROWS_AS(SqliteStore(dir.file("run.db"), m), std::invalid_argument);
    for (const char* key : {"end_reason", "end_ns"}) {
      RunMetadata e = small_meta();
      e.extra[key] = "x";
      CHECK_THROWS_AS(SqliteStore(dir.file("run.db"), e), std::invalid_argument);
    }
  }
  SUBCASE("job_final for a job never submitted") {
    SqliteStore st(dir.file("run.db"), small_meta());
    JobFinal f;
    f.job = 99;
    f.phase = "Completed";
    CHECK_THROWS_WITH_AS(st.job_final(f), doctest::Contains("job 99"), std::runtime_error);
  }
  SUBCASE("writing after finish") {
    SqliteStore st(dir.file("run.db"), small_meta());
    st.finish();
    st.finish();  // idempotent
    CHECK_THROWS_AS(st.sample({sec(1), 0, 0, 0, 0, 0, 0}), std::logic_error);
    CHECK_THROWS_AS(st.checkpoint(sec(1)), std::logic_error);
    CHECK_THROWS_AS(st.record_end(mltwin::store::EndReason::Completed, sec(1)), std::logic_error);
  }
}

TEST_CASE("record_end stores how the run ended and the simulated time reached") {
  using mltwin::store::EndReason;
  TempDir dir;
  CHECK(std::string(mltwin::store::to_string(EndReason::Completed)) == "completed");
  CHECK(std::string(mltwin::store::to_string(EndReason::Until)) == "until");
  CHECK(std::string(mltwin::store::to_string(EndReason::Interrupted)) == "interrupted");
  CHECK(std::string(mltwin::store::to_string(EndReason::Terminated)) == "terminated");
  CHECK(std::string(mltwin::store::to_string(EndReason::Failed)) == "failed");

  SUBCASE("without record_end there is no end_reason (a run that never ended)") {
    const std::string path = dir.file("run.db");
    {
      SqliteStore st(path, small_meta());
      write_small_run(st);
      st.finish();
    }
    Reader db(path);
    CHECK(db.integer("SELECT count(*) FROM run_meta WHERE key IN ('end_reason', 'end_ns')") == 0);
  }
  SUBCASE("interrupted: what the CLI does on SIGINT (record_end, then finish)") {
    const std::string path = dir.file("run.db");
    {
      SqliteStore st(path, small_meta());
      write_small_run(st);
      st.record_end(EndReason::Interrupted, sec(3700.5));
      st.finish();
    }
    Reader db(path);
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_reason'") == "interrupted");
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_ns'") == "3700500000000");
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'checkpoint_ns'") == "3634250000000");
  }
  SUBCASE("a second call replaces the first; the values survive a checkpoint") {
    const std::string path = dir.file("run.db");
    {
      SqliteStore st(path, small_meta());
      st.record_end(EndReason::Until, sec(10));
      st.checkpoint(sec(10));
      st.record_end(EndReason::Completed, sec(12));
      st.finish();
    }
    Reader db(path);
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_reason'") == "completed");
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_ns'") == "12000000000");
    CHECK(db.integer("SELECT count(*) FROM run_meta WHERE key = 'end_reason'") == 1);
  }
}

TEST_CASE("the end reasons: five, each named once, read back by name") {
  using mltwin::store::EndReason;
  using mltwin::store::end_reason_from_string;
  std::vector<std::string> names;
  for (EndReason r : mltwin::store::kEndReasons) {
    names.emplace_back(mltwin::store::to_string(r));
    CHECK(end_reason_from_string(names.back()) == r);
  }
  CHECK(names == std::vector<std::string>{"completed", "until", "interrupted", "terminated", "failed"});
  CHECK_FALSE(end_reason_from_string("Completed").has_value());
  CHECK_FALSE(end_reason_from_string("killed").has_value());
  CHECK_FALSE(end_reason_from_string("").has_value());
  CHECK(mltwin::store::ended_as_asked(EndReason::Completed));
  CHECK(mltwin::store::ended_as_asked(EndReason::Until));
  CHECK_FALSE(mltwin::store::ended_as_asked(EndReason::Interrupted));
  CHECK_FALSE(mltwin::store::ended_as_asked(EndReason::Terminated));
  CHECK_FALSE(mltwin::store::ended_as_asked(EndReason::Failed));
}

TEST_CASE("a path that is not a regular file is neither opened nor removed") {
  using mltwin::store::not_a_regular_file;
  TempDir dir;
  const std::string fifo = dir.file("fifo"), sub = dir.file("sub"), to_dir = dir.file("to-dir"),
                    dangling = dir.file("dangling"), regular = dir.file("regular.db"), to_regular = dir.file("to-regular");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_directory(sub);
  fs::create_directory_symlink(sub, to_dir);
  fs::create_symlink(dir.file("nothing"), dangling);
  { std::ofstream(regular) << "x"; }
  fs::create_symlink(regular, to_regular);

  // What each is (by stat only: /dev/null is never opened).
  CHECK(not_a_regular_file(fifo) == "is a fifo");
  CHECK(not_a_regular_file(sub) == "is a directory");
  CHECK(not_a_regular_file(to_dir) == "is a symbolic link to a directory");
  CHECK(not_a_regular_file(dangling).rfind("is a symbolic link to nothing", 0) == 0);
  CHECK(not_a_regular_file("/dev/null") == "is a character device");
  CHECK(not_a_regular_file(regular) == "");
  CHECK(not_a_regular_file(to_regular) == "");
  CHECK(not_a_regular_file(dir.file("absent")) == "");

  for (const std::string& p : {fifo, sub, to_dir, dangling}) {
    CAPTURE(p);
    CHECK_THROWS_WITH_AS(SqliteStore(p, small_meta()), doctest::Contains(("'" + p + "': it is a").c_str()), std::runtime_error);
  }
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_directory(sub));
  CHECK(fs::is_symlink(to_dir));
  CHECK(fs::is_symlink(dangling));

  SUBCASE("nor is a journal beside it that is not a regular file") {
    const std::string path = dir.file("run.db");
    fs::create_directory(path + "-journal");
    CHECK_THROWS_WITH_AS(SqliteStore(path, small_meta()), doctest::Contains("run.db-journal' is a directory"),
                         std::runtime_error);
    CHECK(fs::is_directory(path + "-journal"));
  }
}

TEST_CASE("a full database (SQLITE_FULL) is an error naming the file; the committed rows and the end reason stay") {
  // set_max_pages caps the file as a full disk would: the first write past the cap fails.
  TempDir dir;
  const std::string path = dir.file("full.db");
  {
    SqliteStore st(path, small_meta());
    write_small_run(st);  // committed by its checkpoint at 3634.25 s: 2 jobs, 6 pods
    const std::int64_t pages = st.query("PRAGMA page_count").columns[0].integers[0];
    st.set_max_pages(static_cast<std::uint64_t>(pages) + 2);
    std::string error;
    try {
      // Far more rows than two 16 KiB pages hold (a pods row takes at least 20 bytes).
      for (int i = 0; i < 100'000; ++i) st.pod_event({0, i, "Created", "", sec(4000.0)});
      st.checkpoint(sec(4000.0));
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    CHECK_MESSAGE(error.find("results database '" + path + "'") != std::string::npos, error);
    CHECK_MESSAGE(error.find("database or disk is full") != std::string::npos, error);
    CHECK(st.failed());
    // Every later write repeats the first error.
    CHECK_THROWS_WITH_AS(st.pod_event({0, 0, "Created", "", sec(4001.0)}), doctest::Contains("an earlier write failed"),
                         std::runtime_error);
    CHECK_THROWS_WITH_AS(st.checkpoint(sec(4001.0)), doctest::Contains("database or disk is full"), std::runtime_error);
    // The end reason still goes in, in a transaction of its own; finish() then only closes.
    st.record_end(mltwin::store::EndReason::Failed, sec(4000.0));
    st.finish();
  }
  Reader db(path);
  CHECK(db.text("PRAGMA integrity_check") == "ok");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_reason'") == "failed");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_ns'") == "4000000000000");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'checkpoint_ns'") == "3634250000000");
  CHECK(db.integer("SELECT count(*) FROM jobs") == 2);
  CHECK(db.integer("SELECT count(*) FROM pods") == 6);
  CHECK_FALSE(fs::exists(path + "-journal"));
}

TEST_CASE("move_to renames a finished database, replacing a file and a stale journal there") {
  TempDir dir;
  const std::string from = dir.file(".run.db.in-progress-abc123"), to = dir.file("run.db");
  { std::ofstream(to) << "the previous results"; }
  { std::ofstream(to + "-journal") << "a stale journal of the previous results"; }
  SqliteStore st(from, small_meta());
  write_small_run(st);
  CHECK_THROWS_AS(st.move_to(to), std::logic_error);  // not finished yet
  st.finish(/*keep_open=*/true);

  SUBCASE("onto a directory: refused, the database stays, readable") {
    const std::string sub = dir.file("sub");
    fs::create_directory(sub);
    CHECK_THROWS_WITH_AS(st.move_to(sub), doctest::Contains("it is a directory"), std::runtime_error);
    CHECK(st.path() == from);
    CHECK(fs::is_directory(sub));
    CHECK(st.query("SELECT count(*) FROM jobs").columns[0].integers[0] == 2);
  }
  SUBCASE("onto the previous results") {
    st.move_to(to);
    CHECK(st.path() == to);
    CHECK_FALSE(fs::exists(from));
    CHECK_FALSE(fs::exists(to + "-journal"));
    CHECK(st.query("SELECT count(*) FROM jobs").columns[0].integers[0] == 2);  // opened again, read-only
    Reader db(to);
    CHECK(db.integer("SELECT count(*) FROM pods") == 6);
  }
}

TEST_CASE("record_end_in_file writes the end reason into a closed database") {
  TempDir dir;
  const std::string path = dir.file("run.db");
  {
    SqliteStore st(path, small_meta());
    write_small_run(st);
    st.record_end(mltwin::store::EndReason::Completed, sec(3634.25));
    st.finish();
  }
  mltwin::store::record_end_in_file(path, mltwin::store::EndReason::Failed, sec(3700.0));
  Reader db(path);
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_reason'") == "failed");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'end_ns'") == "3700000000000");
  CHECK_THROWS_WITH_AS(mltwin::store::record_end_in_file(dir.file("absent.db"), mltwin::store::EndReason::Failed, sec(1)),
                       doctest::Contains("absent.db"), std::runtime_error);
  CHECK_FALSE(fs::exists(dir.file("absent.db")));
}

TEST_CASE("hash_input_file computes SHA-256 and the size") {
  using mltwin::store::hash_input_file;
  TempDir dir;
  SUBCASE("abc") {
    const std::string path = dir.file("abc.txt");
    { std::ofstream(path, std::ios::binary) << "abc"; }
    const auto f = hash_input_file("trace", path);
    CHECK(f.role == "trace");
    CHECK(f.path == path);
    CHECK(f.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(f.bytes == 3);
  }
  SUBCASE("empty file") {
    const std::string path = dir.file("empty");
    { std::ofstream(path, std::ios::binary); }
    const auto f = hash_input_file("scenario", path);
    CHECK(f.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(f.bytes == 0);
  }
  SUBCASE("one million 'a' (several read buffers)") {
    const std::string path = dir.file("million-a");
    { std::ofstream(path, std::ios::binary) << std::string(1'000'000, 'a'); }
    const auto f = hash_input_file("trace", path);
    CHECK(f.sha256 == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK(f.bytes == 1'000'000);
  }
  SUBCASE("a missing file") {
    const std::string path = dir.file("missing.csv");
    CHECK_THROWS_WITH_AS(hash_input_file("trace", path), doctest::Contains(path.c_str()), std::runtime_error);
  }
  SUBCASE("a directory") {
    CHECK_THROWS_WITH_AS(hash_input_file("trace", dir.file("")), doctest::Contains(dir.file("").c_str()),
                         std::runtime_error);
  }
}

namespace {

/// Runs `body` in a child process that then exits with _exit(0) — no destructors, no
/// finish(): what a killed run leaves behind. Returns true if the child got that far.
template <class F>
bool in_abandoned_child(F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("a run abandoned without finish() holds exactly its committed rows") {
  TempDir dir;
  const std::string path = dir.file("killed.db");

  SUBCASE("rows after the last checkpoint are rolled back") {
    REQUIRE(in_abandoned_child([&] {
      SqliteStore st(path, small_meta());
      write_small_run(st);  // ends with a checkpoint
      for (std::uint32_t job = 2; job < 50; ++job) {
        JobSubmitted j;
        j.job = job;
        j.name = "late";
        j.queue = "prod";
        j.submit = sec(4000.0);
        st.job_submitted(j);
        st.pod_event({job, 0, "Created", "", sec(4000.0)});
      }
      ::_exit(0);  // the store is never finished nor destroyed
    }));
    // The child leaves a -journal beside the file. Whether SQLite must roll pages back (the
    // uncommitted tail reached the file) or may ignore the journal (it stayed in the page
    // cache) is SQLite's business; either way a reader sees the last commit.
    CHECK(fs::exists(path + "-journal"));

    Reader db(path);
    CHECK(db.integer("SELECT count(*) FROM jobs") == 2);
    CHECK(db.integer("SELECT count(*) FROM pods") == 6);
    CHECK(db.integer("SELECT count(*) FROM decisions") == 2);
    CHECK(db.integer("SELECT count(*) FROM phases") == 2);
    CHECK(db.integer("SELECT count(*) FROM cluster_metrics") == 3);
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'checkpoint_ns'") == "3634250000000");
    CHECK(db.text("SELECT phase FROM jobs WHERE job = 0") == "Completed");
    CHECK(db.text("PRAGMA integrity_check") == "ok");
  }

  SUBCASE("without checkpoints, every kRowsPerTransaction rows are committed") {
    constexpr std::size_t kRows = mltwin::store::kRowsPerTransaction;
    REQUIRE(in_abandoned_child([&] {
      SqliteStore st(path, small_meta());
      JobSubmitted j;
      j.name = "big";
      j.queue = "prod";
      st.job_submitted(j);
      st.checkpoint(sec(1.0));  // 1 job committed; the row count starts again
      for (std::size_t i = 0; i < kRows + 5; ++i)
        st.pod_event({0, static_cast<int>(i), "Created", "", sec(2.0)});
      ::_exit(0);
    }));
    Reader db(path);
    CHECK(db.integer("SELECT count(*) FROM jobs") == 1);
    CHECK(db.integer("SELECT count(*) FROM pods") == static_cast<std::int64_t>(kRows));
    CHECK(db.text("PRAGMA integrity_check") == "ok");
  }

  SUBCASE("killed before the first record: the metadata is there") {
    REQUIRE(in_abandoned_child([&] {
      SqliteStore st(path, small_meta());
      ::_exit(0);
    }));
    Reader db(path);
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'seed'") == "42");
    CHECK(db.integer("SELECT count(*) FROM jobs") == 0);
    CHECK(db.integer("SELECT count(*) FROM run_meta WHERE key = 'end_reason'") == 0);
  }
}
