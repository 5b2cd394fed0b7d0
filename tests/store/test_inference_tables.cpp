// Tests of the inference tables of the SQLite results store: each table written through the
// ServingRecorder interface reads back column by column, the request sampling rule keeps the
// ids it says, an abandoned run leaves its checkpointed rows, identical call sequences give
// byte-identical files, and a database records only its own run kind.
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/store/sqlite_store.hpp"

using mltwin::core::Time;
using namespace mltwin::models::inference;
using mltwin::store::RequestSampling;
using mltwin::store::RunKind;
using mltwin::store::RunMetadata;
using mltwin::store::SqliteStore;
using mltwin::test::TempDir;

namespace {

/// A read connection with one-value query helpers.
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

RunMetadata inference_meta(std::uint64_t seed = 7, RequestSampling sampling = {10, 4}) {
  RunMetadata m;
  m.kind = RunKind::Inference;
  m.request_sampling = sampling;
  m.scenario_path = "mme-djl-blog-uniform.json";
  m.scenario_json = R"({"name":"mme"})";
  m.seed = seed;
  m.git_sha = "0123abcd";
  m.mltwin_version = "0.1.0";
  m.rng_streams = {"arrivals", "service"};
  m.extra = {{"djl_serving_release", "0.23.0"}};
  return m;
}

RequestDone request(std::uint64_t id) {
  RequestDone r;
  r.id = id;
  r.model = static_cast<std::uint32_t>(id % 5);
  r.instance = static_cast<std::int32_t>(id % 2);
  r.arrival = Time::from_ns(static_cast<std::int64_t>(id) * 1'000'000);
  r.overhead_ns = 20'000;
  r.model_latency_ns = 3'000'000 + static_cast<std::int64_t>(id);
  r.queue_ns = 1'000'000;
  r.done = r.arrival + mltwin::core::Duration::ns(r.overhead_ns + r.model_latency_ns);
  r.batch = 2;
  r.cache_hit = id % 3 != 0;
  return r;
}

MinuteMetrics minute_row(int k) {
  MinuteMetrics m;
  m.start = sec(60.0 * k);
  m.end = sec(60.0 * (k + 1));
  m.invocations = 1200;
  m.invocations_per_instance = 600;
  m.invocation_4xx = 1;
  m.invocation_5xx = 3;
  m.served = 1196;
  m.model_latency_avg_us = 3100.5;
  m.model_latency_p50_us = 3000;
  m.model_latency_p90_us = 4500.25;
  m.model_latency_p99_us = 9000.75;
  m.overhead_latency_avg_us = 21;
  m.overhead_latency_p50_us = 20;
  m.overhead_latency_p90_us = 25;
  m.overhead_latency_p99_us = 40;
  m.model_cache_hit = 0.75;
  m.model_loading_waits = 2;
  m.model_loading_wait_avg_us = 1.5e6;
  m.model_downloads = 2;
  m.model_downloading_avg_us = 1e6;
  m.model_loads = 2;
  m.model_loading_avg_us = 4e5;
  m.model_unloads = 0;
  m.model_unloading_avg_us = std::numeric_limits<double>::quiet_NaN();  // none in the period
  m.loaded_model_count = 17;
  m.cpu_utilization = 3550.5;
  m.memory_utilization = 41.25;
  m.instances_in_service = 2;
  m.workers = 40;
  return m;
}

/// A small inference run: 30 requests (ids reported out of order), one of each event kind, two
/// periods, a checkpoint after the first period.
void write_small_inference_run(SqliteStore& st) {
  InstanceEvent launched;
  launched.t = sec(0);
  launched.instance = 0;
  launched.kind = InstanceEvent::Kind::Launched;
  launched.desired_after = 2;
  st.instance_event(launched);
  InstanceEvent desired;
  desired.t = sec(0);
  desired.instance = 99;  // ignored: stored as NULL
  desired.kind = InstanceEvent::Kind::DesiredChanged;
  desired.desired_after = 2;
  desired.reason = "initial_instances";
  st.instance_event(desired);
  InstanceEvent in_service = launched;
  in_service.t = sec(5);
  in_service.kind = InstanceEvent::Kind::InService;
  st.instance_event(in_service);

  ModelEvent dl;
  dl.t = sec(6);
  dl.instance = 0;
  dl.model = 3;
  dl.kind = ModelEvent::Kind::DownloadStart;
  dl.bytes = 123'456;
  dl.duration_ns = 999;  // ignored for a start: stored as NULL
  st.model_event(dl);
  dl.t = sec(7);
  dl.kind = ModelEvent::Kind::Downloaded;
  dl.duration_ns = 1'000'000'000;
  st.model_event(dl);
  ModelEvent unloaded = dl;
  unloaded.t = sec(8);
  unloaded.model = 4;
  unloaded.kind = ModelEvent::Kind::Unloaded;
  unloaded.duration_ns = 50'000'000;
  unloaded.reason = "lru: memory for model 3";
  st.model_event(unloaded);

  WorkerEvent w;
  w.t = sec(9);
  w.instance = 0;
  w.model = 3;
  w.kind = WorkerEvent::Kind::Added;
  w.temporary = true;
  w.workers_after = 2;
  w.reason = "job queue 5 > 2 × batch_size";
  st.worker_event(w);
  w.t = sec(10);
  w.kind = WorkerEvent::Kind::Ready;
  w.reason = {};
  st.worker_event(w);

  for (std::uint64_t id = 0; id < 20; ++id) st.request(request(id ^ 1));  // 1, 0, 3, 2, ...
  st.minute(minute_row(0));
  st.checkpoint(sec(60));

  for (std::uint64_t id = 20; id < 29; ++id) st.request(request(id));
  RequestDone rejected = request(29);  // no memory anywhere for the model: 507, no instance
  rejected.instance = -1;
  rejected.status = 507;
  rejected.done = rejected.arrival;
  rejected.model_latency_ns = rejected.overhead_ns = rejected.queue_ns = 0;
  rejected.batch = 0;
  rejected.cache_hit = false;
  st.request(rejected);
  RequestDone in_flight = request(32);
  in_flight.status = 0;
  in_flight.loading_wait_ns = 5;
  st.request(in_flight);
  st.minute(minute_row(1));
  st.checkpoint(sec(120));
}

}  // namespace

TEST_CASE("an inference run reads back table by table") {
  TempDir dir;
  const std::string path = dir.file("mme.db");
  {
    SqliteStore st(path, inference_meta());
    write_small_inference_run(st);
    st.finish();
  }
  Reader db(path);
  auto meta = [&](const std::string& key) { return db.text("SELECT value FROM run_meta WHERE key = '" + key + "'"); };

  SUBCASE("run_meta: kind, sampling rule, requests reported") {
    CHECK(db.integer("PRAGMA user_version") == mltwin::store::kSchemaVersion);
    CHECK(meta("run_kind") == "inference");
    CHECK(meta("request_records_full") == "10");
    CHECK(meta("request_sample_every") == "4");
    CHECK(meta("request_sampling") == "id < 10 OR id % 4 = 0");
    CHECK(meta("requests_reported") == "31");
    CHECK(meta("djl_serving_release") == "0.23.0");
    CHECK(meta("checkpoint_ns") == "120000000000");
  }

  SUBCASE("only the inference tables exist") {
    for (const char* t : {"requests", "model_events", "worker_events", "instance_events", "endpoint_metrics"})
      CHECK(db.integer(std::string("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '") + t +
                       "'") == 1);
    CHECK(db.integer("SELECT count(*) FROM sqlite_schema WHERE name IN ('jobs', 'pods', 'job_times')") == 0);
    for (const char* index : {"requests_by_model", "model_events_by_model", "worker_events_by_model"})
      CHECK(db.integer(std::string("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '") + index +
                       "'") == 1);
  }

  SUBCASE("requests: the sampling rule, as stored, selects exactly the rows kept") {
    // Reported: ids 0..29 and 32. Kept: 0..9, then 12, 16, 20, 24, 28, 32.
    CHECK(db.integer("SELECT count(*) FROM requests") == 16);
    CHECK(db.text("SELECT group_concat(id) FROM (SELECT id FROM requests WHERE id >= 10 ORDER BY id)") ==
          "12,16,20,24,28,32");
    const std::string rule = meta("request_sampling");
    CHECK(db.integer("SELECT count(*) FROM requests WHERE NOT (" + rule + ")") == 0);

    CHECK(db.integer("SELECT model FROM requests WHERE id = 7") == 2);
    CHECK(db.integer("SELECT instance FROM requests WHERE id = 7") == 1);
    CHECK(db.integer("SELECT arrival_ns FROM requests WHERE id = 7") == 7'000'000);
    CHECK(db.integer("SELECT done_ns FROM requests WHERE id = 7") == 7'000'000 + 20'000 + 3'000'007);
    CHECK(db.integer("SELECT status FROM requests WHERE id = 7") == 200);
    CHECK(db.integer("SELECT overhead_latency_ns FROM requests WHERE id = 7") == 20'000);
    CHECK(db.integer("SELECT model_loading_wait_ns FROM requests WHERE id = 7") == 0);
    CHECK(db.integer("SELECT model_latency_ns FROM requests WHERE id = 7") == 3'000'007);
    CHECK(db.integer("SELECT queue_ns FROM requests WHERE id = 7") == 1'000'000);
    CHECK(db.integer("SELECT batch_size FROM requests WHERE id = 7") == 2);
    CHECK(db.integer("SELECT cache_hit FROM requests WHERE id = 7") == 1);
    CHECK(db.integer("SELECT cache_hit FROM requests WHERE id = 9") == 0);
    CHECK(db.integer("SELECT count(*) FROM requests WHERE id = 29") == 0);  // not sampled
    CHECK(db.integer("SELECT status FROM requests WHERE id = 32") == 0);
    CHECK(db.is_null("SELECT done_ns FROM requests WHERE id = 32"));  // in flight at the end
    CHECK(db.integer("SELECT model_loading_wait_ns FROM requests WHERE id = 32") == 5);
  }

  SUBCASE("model, worker and instance events") {
    CHECK(db.integer("SELECT count(*) FROM model_events") == 3);
    CHECK(db.text("SELECT event || ' ' || instance || ' ' || model || ' ' || bytes FROM model_events"
                  " WHERE t_ns = 6000000000") == "DownloadStart 0 3 123456");
    CHECK(db.is_null("SELECT duration_ns FROM model_events WHERE event = 'DownloadStart'"));
    CHECK(db.is_null("SELECT reason FROM model_events WHERE event = 'DownloadStart'"));
    CHECK(db.integer("SELECT duration_ns FROM model_events WHERE event = 'Downloaded'") == 1'000'000'000);
    CHECK(db.text("SELECT model || ' ' || duration_ns || ' ' || reason FROM model_events WHERE event = 'Unloaded'") ==
          "4 50000000 lru: memory for model 3");

    CHECK(db.integer("SELECT count(*) FROM worker_events") == 2);
    CHECK(db.text("SELECT event || ' ' || temporary || ' ' || workers_after || ' ' || reason FROM worker_events"
                  " WHERE t_ns = 9000000000") == "Added 1 2 job queue 5 > 2 × batch_size");
    CHECK(db.is_null("SELECT reason FROM worker_events WHERE event = 'Ready'"));

    CHECK(db.integer("SELECT count(*) FROM instance_events") == 3);
    CHECK(db.is_null("SELECT instance FROM instance_events WHERE event = 'DesiredChanged'"));
    CHECK(db.text("SELECT desired_after || ' ' || reason FROM instance_events WHERE event = 'DesiredChanged'") ==
          "2 initial_instances");
    CHECK(db.integer("SELECT t_ns FROM instance_events WHERE event = 'InService' AND instance = 0") == 5'000'000'000);
  }

  SUBCASE("endpoint_metrics: one row per period, NaN as NULL") {
    CHECK(db.integer("SELECT count(*) FROM endpoint_metrics") == 2);
    const std::string row1 = " FROM endpoint_metrics WHERE start_ns = 60000000000";
    CHECK(db.integer("SELECT end_ns" + row1) == 120'000'000'000);
    CHECK(db.integer("SELECT invocations" + row1) == 1200);
    CHECK(db.real("SELECT invocations_per_instance" + row1) == 600);
    CHECK(db.integer("SELECT invocation_4xx_errors" + row1) == 1);
    CHECK(db.integer("SELECT invocation_5xx_errors" + row1) == 3);
    CHECK(db.integer("SELECT model_latency_count" + row1) == 1196);
    CHECK(db.real("SELECT model_latency_avg_us" + row1) == 3100.5);
    CHECK(db.real("SELECT model_latency_p50_us" + row1) == 3000);
    CHECK(db.real("SELECT model_latency_p90_us" + row1) == 4500.25);
    CHECK(db.real("SELECT model_latency_p99_us" + row1) == 9000.75);
    CHECK(db.real("SELECT overhead_latency_avg_us" + row1) == 21);
    CHECK(db.real("SELECT overhead_latency_p50_us" + row1) == 20);
    CHECK(db.real("SELECT overhead_latency_p90_us" + row1) == 25);
    CHECK(db.real("SELECT overhead_latency_p99_us" + row1) == 40);
    CHECK(db.real("SELECT model_cache_hit" + row1) == 0.75);
    CHECK(db.integer("SELECT model_loading_wait_time_count" + row1) == 2);
    CHECK(db.real("SELECT model_loading_wait_time_avg_us" + row1) == 1.5e6);
    CHECK(db.integer("SELECT model_downloading_time_count" + row1) == 2);
    CHECK(db.real("SELECT model_downloading_time_avg_us" + row1) == 1e6);
    CHECK(db.integer("SELECT model_loading_time_count" + row1) == 2);
    CHECK(db.real("SELECT model_loading_time_avg_us" + row1) == 4e5);
    CHECK(db.integer("SELECT model_unloading_time_count" + row1) == 0);
    CHECK(db.is_null("SELECT model_unloading_time_avg_us" + row1));
    CHECK(db.real("SELECT loaded_model_count" + row1) == 17);
    CHECK(db.real("SELECT cpu_utilization_pct" + row1) == 3550.5);
    CHECK(db.real("SELECT memory_utilization_pct" + row1) == 41.25);
    CHECK(db.integer("SELECT instances_in_service" + row1) == 2);
    CHECK(db.integer("SELECT workers" + row1) == 40);
  }
}

TEST_CASE("request sampling: every id below record_full, then one in sample_every by id") {
  const RequestSampling s{100'000, 100};
  CHECK(s.keeps(0));
  CHECK(s.keeps(99'999));
  CHECK(s.keeps(100'000));
  CHECK_FALSE(s.keeps(100'001));
  CHECK(s.keeps(100'100));
  CHECK_FALSE(s.keeps(123'456));
  const RequestSampling none{5, 0};
  CHECK(none.keeps(4));
  CHECK_FALSE(none.keeps(5));
  CHECK_FALSE(none.keeps(100));

  TempDir dir;
  const std::string path = dir.file("sampled.db");
  {
    SqliteStore st(path, inference_meta(7, {1000, 100}));
    for (std::uint64_t id = 0; id < 20'000; ++id) st.request(request(id));
    st.finish();
  }
  Reader db(path);
  CHECK(db.integer("SELECT count(*) FROM requests") == 1000 + 190);  // 0..999, then 1000, 1100, ..., 19900
  CHECK(db.integer("SELECT max(id) FROM requests") == 19'900);
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'requests_reported'") == "20000");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'request_sampling'") == "id < 1000 OR id % 100 = 0");

  SUBCASE("sample_every 0: nothing past record_full") {
    const std::string p0 = dir.file("none.db");
    {
      SqliteStore st(p0, inference_meta(7, {3, 0}));
      for (std::uint64_t id = 0; id < 50; ++id) st.request(request(id));
      st.finish();
    }
    Reader d0(p0);
    CHECK(d0.integer("SELECT count(*) FROM requests") == 3);
    CHECK(d0.text("SELECT value FROM run_meta WHERE key = 'request_sampling'") == "id < 3");
  }
}

TEST_CASE("identical inference call sequences produce byte-identical files") {
  TempDir dir;
  auto write = [&](const std::string& name, std::uint64_t seed) {
    const std::string path = dir.file(name);
    SqliteStore st(path, inference_meta(seed));
    write_small_inference_run(st);
    for (std::uint64_t id = 100; id < 5000; ++id) st.request(request(id));  // full batches too
    st.finish();
    return file_bytes(path);
  };
  const auto first = write("a.db", 7);
  REQUIRE(first.size() > 0);
  CHECK(first == write("b.db", 7));
  CHECK(first != write("c.db", 8));
}

namespace {

/// Runs `body` in a child process that then exits with _exit(0): no destructors, no finish().
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

TEST_CASE("an inference run abandoned without finish() holds exactly its checkpointed rows") {
  TempDir dir;
  const std::string path = dir.file("killed.db");
  REQUIRE(in_abandoned_child([&] {
    SqliteStore st(path, inference_meta());
    write_small_inference_run(st);  // ends with a checkpoint at 120 s
    for (std::uint64_t id = 40; id < 400; ++id) st.request(request(id));
    st.minute(minute_row(2));
    WorkerEvent w;
    w.kind = WorkerEvent::Kind::Retired;
    st.worker_event(w);
    ::_exit(0);
  }));
  Reader db(path);
  CHECK(db.text("PRAGMA integrity_check") == "ok");
  CHECK(db.integer("SELECT count(*) FROM requests") == 16);
  CHECK(db.integer("SELECT count(*) FROM endpoint_metrics") == 2);
  CHECK(db.integer("SELECT count(*) FROM worker_events") == 2);
  CHECK(db.integer("SELECT count(*) FROM model_events") == 3);
  CHECK(db.integer("SELECT count(*) FROM instance_events") == 3);
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'checkpoint_ns'") == "120000000000");
  CHECK(db.text("SELECT value FROM run_meta WHERE key = 'requests_reported'") == "31");
  CHECK(db.integer("SELECT count(*) FROM run_meta WHERE key = 'end_reason'") == 0);
}

TEST_CASE("a database records only its own run kind") {
  TempDir dir;
  SUBCASE("inference facts on a training database") {
    RunMetadata m = inference_meta();
    m.kind = RunKind::Training;
    SqliteStore st(dir.file("training.db"), m);
    CHECK_THROWS_WITH_AS(st.request(request(0)), doctest::Contains("training run"), std::logic_error);
    CHECK_THROWS_AS(st.minute(minute_row(0)), std::logic_error);
    CHECK_THROWS_AS(st.worker_event(WorkerEvent{}), std::logic_error);
    st.finish();
    Reader db(dir.file("training.db"));
    CHECK(db.text("SELECT value FROM run_meta WHERE key = 'run_kind'") == "training");
    CHECK(db.integer("SELECT count(*) FROM run_meta WHERE key LIKE 'request%'") == 0);
    CHECK(db.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'requests'") == 0);
  }
  SUBCASE("training facts on an inference database") {
    SqliteStore st(dir.file("inference.db"), inference_meta());
    CHECK_THROWS_WITH_AS(st.sample({sec(1), 0, 0, 0, 0, 0, 0}), doctest::Contains("inference run"), std::logic_error);
    CHECK_THROWS_AS(st.job_submitted({}), std::logic_error);
  }
  SUBCASE("a request id reported twice is an error") {
    SqliteStore st(dir.file("dup.db"), inference_meta());
    st.request(request(1));
    st.request(request(1));
    CHECK_THROWS_AS(st.finish(), std::runtime_error);
  }
  SUBCASE("the new built-in run_meta keys cannot be shadowed") {
    for (const char* key : {"run_kind", "request_sampling", "requests_reported"}) {
      RunMetadata m = inference_meta();
      m.extra.emplace(key, "x");
      CHECK_THROWS_AS(SqliteStore(dir.file("x.db"), m), std::invalid_argument);
    }
  }
}

TEST_CASE("finish() indexes a large table within a fixed memory bound") {
  // SQLite's own allocations (sqlite3_status64, SQLITE_STATUS_MEMORY_USED) while finish()
  // builds the per-model index over 1,500,000 model_events, whose sort keys (a record of model
  // and rowid in a list node each, ~24 bytes) come to ~36 MB when the whole sort is held in
  // memory, as it was with temp_store = MEMORY (peak then 40 MiB at 1,000,000 rows). The bound
  // is the store's, whatever the rows: a 16 MiB page cache (inference run) plus a sort run of
  // at most 16 MiB (vdbesort.c: runs of cache_size bytes, merged from a temporary file), plus
  // 4 MiB for statements and merge buffers.
  TempDir dir;
  const std::string path = dir.file("big.db");
  SqliteStore st(path, inference_meta());
  ModelEvent e;
  e.kind = ModelEvent::Kind::Loaded;
  e.bytes = 100 << 20;
  e.duration_ns = 2'000'000'000;
  constexpr std::uint32_t kRows = 1'500'000;
  for (std::uint32_t i = 0; i < kRows; ++i) {
    e.t = Time::from_ns(std::int64_t{i} * 1000);
    e.instance = i % 20;
    e.model = (i * 7919u) % 1000u;  // every model, interleaved: the index must really sort
    st.model_event(e);
  }
  sqlite3_int64 now = 0, peak = 0;
  REQUIRE(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &now, &peak, 1) == SQLITE_OK);  // reset peak
  st.finish();
  REQUIRE(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &now, &peak, 0) == SQLITE_OK);
  MESSAGE("SQLite memory high-water during finish(): " << peak / 1024 << " KiB");
  CHECK(peak < (16 + 16 + 4) * 1024 * 1024);
  Reader db(path);
  CHECK(db.integer("SELECT count(*) FROM model_events") == kRows);
  CHECK(db.integer("SELECT count(*) FROM model_events INDEXED BY model_events_by_model WHERE model = 999") ==
        kRows / 1000);
}
