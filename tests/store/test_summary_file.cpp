// RunOptions::summary_json_out (the CLI's --summary-json) through runner::Run: the summary file
// is reserved beside its target when the run opens, written whole when the run ends as asked,
// and otherwise never appears; a summary that cannot be written once the database is complete
// leaves the database as it ended. The figures themselves against the database: the CLI test
// (tests/e2e/test_cli.cpp).
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/runner/run.hpp"
#include "mltwin/store/sqlite_store.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kScenario = std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json";

/// The names in `dir`, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::unique_ptr<runner::Run> open(const test::TempDir& dir, const std::string& summary) {
  runner::RunOptions o;
  o.out = dir.file("r.sqlite");
  o.summary_json_out = summary;
  return runner::Run::open(kScenario, o);
}

void run_to_end(runner::Run& run) {
  while (!run.done()) run.run_until(run.next_time());
}

}  // namespace

TEST_CASE("summary file: reserved when the run opens, written whole at its end, the JSON summary_json() gives") {
  test::TempDir dir("mltwin-summary");
  const fs::path target = dir.path() / "sub" / "s.json";
  auto run = open(dir, target.string());
  // The folder is created, and the hidden file in it, before any event has fired.
  const auto reserved = names_in(dir.path() / "sub");
  REQUIRE(reserved.size() == 1);
  CHECK(reserved[0].rfind(".s.json.in-progress-", 0) == 0);
  CHECK(run->events() == 0);
  run_to_end(*run);
  run->finish(store::EndReason::Completed);
  CHECK(names_in(dir.path() / "sub") == std::vector<std::string>{"s.json"});
  const json written = json::parse(slurp(target));
  CHECK(written == run->summary_json());
  CHECK(written.at("database") == dir.file("r.sqlite"));
}

TEST_CASE("summary file: a run that does not end as asked leaves an earlier file as it was, and nothing beside it") {
  test::TempDir dir("mltwin-summary");
  const fs::path target = dir.path() / "s.json";
  std::ofstream(target) << "an earlier summary";
  SUBCASE("abandoned as failed") {
    auto run = open(dir, target.string());
    run->run_until(core::Time::zero() + core::Duration::s(600));
    run->abandon(store::EndReason::Failed);
  }
  SUBCASE("finished as interrupted") {
    auto run = open(dir, target.string());
    run->run_until(core::Time::zero() + core::Duration::s(600));
    run->finish(store::EndReason::Interrupted);
  }
  SUBCASE("destroyed before it finished") {
    auto run = open(dir, target.string());
    run->run_until(core::Time::zero() + core::Duration::s(600));
  }
  CHECK(slurp(target) == "an earlier summary");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"r.sqlite", "s.json"});
}

TEST_CASE("summary file: a summary that cannot be put in place fails the call, not the completed database") {
  // A directory takes the target's name while the run goes on: the rename is refused (EISDIR).
  test::TempDir dir("mltwin-summary");
  const fs::path target = dir.path() / "s.json";
  auto run = open(dir, target.string());
  run_to_end(*run);
  fs::create_directory(target);
  std::string error;
  try {
    run->finish(store::EndReason::Completed);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK_MESSAGE(error.rfind("cannot write summary file '" + target.string() + "': cannot rename '", 0) == 0, error);
  CHECK_MESSAGE(error.find("(the run itself ended completed; its database is '" + dir.file("r.sqlite") + "')") != std::string::npos,
                error);
  CHECK(run->finished());
  CHECK(store::query_file(dir.file("r.sqlite"), "SELECT value FROM run_meta WHERE key = 'end_reason'").columns.at(0).text_at(0) ==
        "completed");
  CHECK(fs::is_directory(target));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"r.sqlite", "s.json"});
}

TEST_CASE("summary file: the database and the run's inputs are refused before anything is written") {
  test::TempDir dir("mltwin-summary");
  auto error = [&](const std::string& summary) {
    try {
      (void)open(dir, summary);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error(dir.file("r.sqlite")) == "summary_json_out '" + dir.file("r.sqlite") + "': is the results database ('" +
                                           dir.file("r.sqlite") + "'), which it would overwrite; choose another file");
  CHECK(error(kScenario) == "summary_json_out '" + kScenario + "': is the run's scenario ('" + kScenario +
                                "'), which it would overwrite; choose another file");
  CHECK(names_in(dir.path()).empty());
}
