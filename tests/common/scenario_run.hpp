// tests/common/scenario_run.hpp — one run of a scenario file through runner::Run, as the CLI and
// Python drive it, from its first event to its last, into a results database in a temporary
// folder; for tests that check what the run recorded (SQL on the database, docs/results-schema.md)
// and its summary (Run::summary_json and the text Run::print_summary prints). Links
// mltwin::runner.
//
//   test::ScenarioRun r(path, {{"queues", queues}});  // a merge patch over the scenario
//   CHECK(r.job_ns("a1", "end_ns") == 1097 * kS);
//   CHECK(r.summary.at("starvation").at("jobs") == 0);
//
// A test's own queries go in a struct derived from it (tests/models/test_reclaim_churn.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "mltwin/runner/run.hpp"
#include "mltwin/store/sqlite_store.hpp"
#include "temp_dir.hpp"

namespace mltwin::test {

struct ScenarioRun {
  TempDir dir;
  std::string db;          ///< the database: run.sqlite in `dir`, closed once the run is over
  nlohmann::json summary;  ///< Run::summary_json() after finish()
  std::string printed;     ///< what Run::print_summary() prints (wall time 0)

  /// Runs the scenario at `path` with `overrides` (a JSON merge patch, RunOptions::overrides)
  /// and any other `options` (their `out` and `overrides` are replaced) until no event is left
  /// (the clock stops at the last one), and finishes it as completed. Throws what Run::open and
  /// Run::run_until throw.
  explicit ScenarioRun(const std::string& path, const nlohmann::json& overrides = {}, runner::RunOptions options = {})
      : dir("mltwin-scenario-run") {
    options.out = db = dir.file("run.sqlite");
    options.overrides = overrides;
    auto run = runner::Run::open(path, options);
    while (!run->done()) run->run_until(run->next_time());
    run->finish(store::EndReason::Completed);
    summary = run->summary_json();
    std::ostringstream os;
    run->print_summary(os, 0);
    printed = os.str();
  }

  /// SQL on the run's database.
  store::ResultTable query(const std::string& sql) const { return store::query_file(db, sql); }
  /// An integer column of the jobs table (e.g. "scheduled_ns", "end_ns") for the job named
  /// `job`; -1 when it is NULL.
  std::int64_t job_ns(const std::string& job, const std::string& column) const {
    return query("SELECT " + column + " FROM jobs WHERE name = '" + job + "'").column(column).int_at(0).value_or(-1);
  }
};

}  // namespace mltwin::test
