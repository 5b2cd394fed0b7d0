// runner::compare_history (`mltwin compare`, docs/compare.md): a hand-written history against a
// hand-written results database, every figure worked out by hand below from the definitions in
// compare_history.hpp; the KS distance and nearest-rank quantiles on textbook samples.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "mltwin/runner/compare_history.hpp"

namespace fs = std::filesystem;
using namespace mltwin;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mltwin-test-compare-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

/// A results database with what compare reads: run_meta's run_kind and jobs(name, submit_ns, start_ns).
void write_db(const fs::path& p, const std::string& kind, const std::string& rows) {
  fs::remove(p);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(p.c_str(), &db) == SQLITE_OK);
  const std::string sql = "CREATE TABLE run_meta(key TEXT PRIMARY KEY, value TEXT);"
                          "INSERT INTO run_meta VALUES('run_kind', '" + kind + "');"
                          "CREATE TABLE inputs(role TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL);"
                          "CREATE TABLE jobs(job INTEGER PRIMARY KEY, name TEXT NOT NULL, submit_ns INTEGER NOT NULL, start_ns INTEGER);" +
                          rows;
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

constexpr const char* kHistory =
    "name,namespace,queue,submit_time,start_time,end_time,status,tasks\n"
    "a,ns,default,2026-01-01T00:00:00Z,2026-01-01T00:10:00Z,2026-01-01T01:00:00Z,Completed,worker:1:cpu=1\n"
    "b,ns,default,2026-01-01T00:05:00Z,2026-01-01T00:20:00Z,2026-01-01T00:50:00Z,Failed,worker:1:cpu=1\n"
    "c,ns,default,2026-01-01T00:30:00Z,2026-01-01T00:30:00Z,2026-01-01T00:40:00Z,Completed,worker:1:cpu=1\n"
    "d,ns,default,2026-01-01T01:00:00Z,,,Pending,worker:1:cpu=1\n"
    "e,ns,default,2026-01-01T01:00:00Z,2026-01-01T02:00:00Z,,Running,worker:1:cpu=1\n";

}  // namespace

TEST_CASE("compare_history: a hand-written history and run, every figure by hand") {
  // t0 = 00:00:00. Actual starts (s): a 600, b 1200, c 1800; d never; e 7200 (not in the run).
  // The run: a starts at 900, b at 1200, c at 2400, d at 4000 (the twin only); x is not in the
  // history (ignored).
  //   errors (predicted - actual): a +300, b 0, c +600 -> |e| {0, 300, 600}: MdAE 300 s; bias 300 s.
  //   waits, actual (start - submit): a 600, b 900, c 0 -> {0, 600, 900}: mean 500, p50 600, p90 and
  //   p99 the 3rd of 3 (rank ceil(2.7) = ceil(2.97) = 3) 900, max 900.
  //   waits, predicted: a 900, b 900, c 600 -> {600, 900, 900}: mean 800, p50 900, p90 900.
  //   KS: at 0: F_a 1/3, F_p 0; at 600: 2/3 vs 1/3; at 900: 1 vs 1 -> D = 1/3.
  const fs::path csv = scratch("h.csv"), db = scratch("run.sqlite");
  std::ofstream(csv) << kHistory;
  constexpr long long s = 1'000'000'000;
  write_db(db, "training",
           "INSERT INTO jobs VALUES(0, 'a', 0, " + std::to_string(900 * s) + ");"
           "INSERT INTO jobs VALUES(1, 'b', " + std::to_string(300 * s) + ", " + std::to_string(1200 * s) + ");"
           "INSERT INTO jobs VALUES(2, 'c', " + std::to_string(1800 * s) + ", " + std::to_string(2400 * s) + ");"
           "INSERT INTO jobs VALUES(3, 'd', " + std::to_string(3600 * s) + ", " + std::to_string(4000 * s) + ");"
           "INSERT INTO jobs VALUES(4, 'x', 0, 0);");
  const runner::HistoryComparison c = runner::compare_history(csv.string(), db.string());
  CHECK(c.jobs.size() == 5);
  CHECK(c.compared == 3);
  CHECK(c.not_in_run == 1);
  CHECK(c.started_only_in_history == 0);
  CHECK(c.started_only_in_twin == 1);
  CHECK(c.mdae_s == 300);
  CHECK(c.bias_s == 300);
  CHECK(c.ks_wait == doctest::Approx(1.0 / 3));
  CHECK(c.actual_wait.n == 3);
  CHECK(c.actual_wait.mean == 500);
  CHECK(c.actual_wait.p50 == 600);
  CHECK(c.actual_wait.p90 == 900);
  CHECK(c.actual_wait.p99 == 900);
  CHECK(c.actual_wait.max == 900);
  CHECK(c.predicted_wait.mean == 800);
  CHECK(c.predicted_wait.p50 == 900);
  REQUIRE(c.jobs[0].error_s());
  CHECK(*c.jobs[0].error_s() == 300);
  CHECK(c.jobs[1].submit_s == 300);
  CHECK_FALSE(c.jobs[3].error_s());  // d: the twin only
  CHECK_FALSE(c.jobs[4].in_run);
  const auto j = c.to_json();
  CHECK(j.at("start_error").at("median_absolute_s") == 300.0);
  CHECK(j.at("jobs").at(4).at("predicted_start_s").is_null());
  const std::string r = c.report();
  CHECK(r.find("median absolute error  5m00s (300.0 s)") != std::string::npos);
  CHECK(r.find("KS distance of the two distributions: 0.333") != std::string::npos);
  // The largest error first: c (+10m00s).
  CHECK(r.find("  c ") < r.find("  a "));

  CHECK_FALSE(c.run_of_this_history);  // the hand-written database names no input
  CHECK(r.find("note: the run's inputs hold no job history") != std::string::npos);

  SUBCASE("a run of this history, by its SHA-256; a run of another is refused") {
    // sha256 of kHistory, as sha256sum prints it (computed by the store's own hasher would be
    // circular): the test writes the file and asks `sha256sum`.
    const std::string cmd = "sha256sum '" + csv.string() + "' > '" + csv.string() + ".sum'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::string digest;
    std::ifstream(csv.string() + ".sum") >> digest;
    REQUIRE(digest.size() == 64);
    write_db(db, "training", "INSERT INTO inputs VALUES('job_history', 'h.csv', '" + digest + "', 1);"
             "INSERT INTO jobs VALUES(0, 'a', 0, " + std::to_string(900 * s) + ");");
    CHECK(runner::compare_history(csv.string(), db.string()).run_of_this_history);
    write_db(db, "training", "INSERT INTO inputs VALUES('job_history', 'other.csv', '" + std::string(64, '0') + "', 1);"
             "INSERT INTO jobs VALUES(0, 'a', 0, " + std::to_string(900 * s) + ");");
    CHECK_THROWS_AS(runner::compare_history(csv.string(), db.string()), std::invalid_argument);
  }
  SUBCASE("nothing in common: an error that says why") {
    write_db(db, "training", "INSERT INTO jobs VALUES(0, 'zz', 0, 0);");
    CHECK_THROWS_AS(runner::compare_history(csv.string(), db.string()), std::invalid_argument);
  }
  SUBCASE("an inference run's database is refused") {
    write_db(db, "inference", "");
    CHECK_THROWS_AS(runner::compare_history(csv.string(), db.string()), std::runtime_error);
  }
  fs::remove_all(csv.parent_path());
}

TEST_CASE("the KS distance and nearest-rank quantiles on textbook samples") {
  using runner::detail::ks_distance;
  CHECK(ks_distance({1, 2, 3}, {4, 5, 6}) == 1.0);  // disjoint
  CHECK(ks_distance({3, 1, 2}, {1, 2, 3}) == 0.0);  // the same sample, in any order
  // {1,2,3,4} vs {3,4,5,6}: F_a - F_b is 1/4, 1/2, 1/2, 1/2, 1/4, 0 at 1..6 -> 1/2.
  CHECK(ks_distance({1, 2, 3, 4}, {3, 4, 5, 6}) == 0.5);
  // Unequal sizes: {0} vs {0, 1}: at 0, 1 - 1/2.
  CHECK(ks_distance({0}, {0, 1}) == 0.5);
  using runner::detail::nearest_rank;
  const std::vector<double> v{10, 20, 30, 40, 50};
  CHECK(nearest_rank(v, 0.9) == 50);  // rank ceil(4.5) = 5
  CHECK(nearest_rank(v, 0.5) == 30);  // rank ceil(2.5) = 3
  CHECK(nearest_rank(v, 0.4) == 20);  // rank 2
  CHECK(nearest_rank(v, 1.0) == 50);
}
