// The CLI's size limits and input checks end to end (issue 14, items 3 and 5): each case of the
// issue that hung, grew without bound or was accepted silently, run through `mltwin` in a child
// process under `timeout`, so that a regression fails instead of hanging the suite.
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#if !defined(MLTWIN_SOURCE_DIR) || !defined(MLTWIN_CLI)
#error "MLTWIN_SOURCE_DIR and MLTWIN_CLI must be defined by the build"
#endif

namespace fs = std::filesystem;
using nlohmann::json;
using mltwin::test::TempDir;

namespace {

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return json::parse(in);
}

std::string write_json(const TempDir& d, const std::string& name, const json& doc) {
  const std::string p = d.file(name);
  std::ofstream(p) << doc.dump(1);
  return p;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int status = -1;
  std::string output;  ///< stdout and stderr
};

/// `mltwin ARGS` with at most `seconds` of wall time (timeout(1) ends it: status 124).
Result cli(const TempDir& d, const std::string& args, int seconds = 60) {
  const std::string log = d.file("cli.log");
  const std::string cmd = "cd '" + d.path().string() + "' && timeout -s KILL " + std::to_string(seconds) + " '" +
                          std::string(MLTWIN_CLI) + "' " + args + " > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.output = slurp(log);
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

json tiny_gang() { return read_json(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json"); }
json blog() { return read_json(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/mme-djl-blog-top-n.json"); }
json with(json doc, const std::function<void(json&)>& edit) {
  edit(doc);
  return doc;
}

}  // namespace

TEST_CASE("runs too large to start are refused with their estimate (exit 2), nothing written") {
  TempDir d;
  struct Case {
    const char* name;
    json doc;
    const char* reason;
  };
  const Case cases[] = {
      // 16 GB resident and growing, before.
      {"instances", with(blog(), [](json& s) { s["endpoint"]["initial_instances"] = 10'000'000; }),
       "10,000,000 instances, more than the limit of 100,000"},
      // 15 GB and growing.
      {"users", with(blog(), [](json& s) { s["traffic"]["locust"]["users"] = 1'000'000'000; }),
       "1,000,000,000 Locust users, more than the limit of 1,000,000"},
      // 952 MB of database a minute.
      {"period", with(blog(), [](json& s) { s["output"]["metrics_period"] = "1ns"; }),
       "3,600,000,000,001 metrics samples (each one an event and a row), more than the limit of 100,000,000"},
      {"interval", with(tiny_gang(), [](json& s) { s["output"]["metrics_interval"] = "1ns"; }),
       "3,600,000,000,001 metrics samples (each one an event and a row), more than the limit of 100,000,000"},
      {"nodes", with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["desired_capacity"] = 60'000; }),
       "60,000 nodes, more than the limit of 50,000"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string scenario = write_json(d, std::string(c.name) + ".json", c.doc);
    const Result r = cli(d, "run " + scenario + " --out out.sqlite --no-progress");
    CHECK_MESSAGE(r.status == 2, r.output);
    CHECK_MESSAGE(contains(r.output, "error: " + scenario + ": the run is too large to start without --force:"), r.output);
    CHECK_MESSAGE(contains(r.output, std::string("  - ") + c.reason), r.output);
    CHECK_MESSAGE(contains(r.output, "  estimate: about "), r.output);
    CHECK_MESSAGE(contains(r.output, "Run it anyway with --force"), r.output);
    CHECK(!fs::exists(d.file("out.sqlite")));
    CHECK(!fs::exists(d.file("out.partial.sqlite")));
    // validate says the run would be refused (and exits 0: the scenario is valid).
    const Result v = cli(d, "validate " + scenario);
    CHECK_MESSAGE(v.status == 0, v.output);
    CHECK_MESSAGE(contains(v.output, "mltwin run refuses it without --force:\n  - "), v.output);
    CHECK_MESSAGE(contains(v.output, c.reason), v.output);
  }
}

TEST_CASE("--force runs a run beyond the limits, after a warning") {
  TempDir d;
  // 60,000 nodes: over the node limit, set up in well under a second.
  const std::string scenario =
      write_json(d, "nodes.json", with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["desired_capacity"] = 60'000; }));
  const Result r = cli(d, "run " + scenario + " --out out.sqlite --no-progress --until 1s --force");
  CHECK_MESSAGE(r.status == 0, r.output);
  CHECK_MESSAGE(contains(r.output, "warning: " + scenario + ": the run is beyond the size limits (--force: running it anyway):\n"
                                   "  - 60,000 nodes, more than the limit of 50,000"),
                r.output);
  CHECK(fs::exists(d.file("out.sqlite")));
}

TEST_CASE("validate prints the estimate") {
  TempDir d;
  // tiny-gang: jobs a, b (4 pods each, 1 h) and c (2 pods); 4 nodes; 5 min samples over 1 h.
  const Result v = cli(d, "validate " + std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  CHECK_MESSAGE(v.status == 0, v.output);
  CHECK_MESSAGE(contains(v.output, "estimate: about "), v.output);
  CHECK_MESSAGE(contains(v.output, " of memory and a 265 KB database (3 jobs, 10 pods, 4 nodes, 13 metrics samples over 1.0 h)\n"),
                v.output);
  CHECK_MESSAGE(!contains(v.output, "refuses"), v.output);
}

TEST_CASE("a scenario that is not a regular file is refused at once") {
  TempDir d;
  const std::string fifo = d.file("fifo.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO blocked in open() and /dev/urandom never ended (validate, run, and run
  // --replications reading the seed).
  for (const std::string& path : {fifo, std::string("/dev/urandom")}) {
    CAPTURE(path);
    for (const std::string& cmd : {"validate " + path, "run " + path + " --out o.sqlite", "run " + path + " --replications 2"}) {
      CAPTURE(cmd);
      const Result r = cli(d, cmd, 20);
      CHECK_MESSAGE(r.status == 2, r.output);
      CHECK_MESSAGE(contains(r.output, path + ": the scenario file is not a regular file"), r.output);
    }
  }
}

TEST_CASE("tiny rates run: a wait beyond any traffic is one that never comes, not a time overflow") {
  TempDir d;
  // Each drew a wait of ~10^300 s, which no Time holds: the run failed with "time value ... s is
  // not finite or exceeds the int64 nanosecond range".
  const json poisson = with(blog(), [](json& s) {
    s["traffic"] = {{"poisson", {{"rate", 1e-300}, {"duration", "1m"}, {"popularity", {{"uniform", json::object()}}}}}};
  });
  const json throughput = with(blog(), [](json& s) {
    s["traffic"]["locust"]["wait_time"] = {{"constant_throughput", 1e-300}};
    s["traffic"]["locust"]["duration"] = "1m";
  });
  const json spawn = with(blog(), [](json& s) {
    s["traffic"]["locust"]["spawn_rate"] = 1e-300;
    s["traffic"]["locust"]["duration"] = "1m";
  });
  json failures = read_json(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/node-failure.json");
  failures["faults"]["node_failure_rate_per_node_hour"] = 1e-300;
  for (const auto& named : {std::pair<std::string, json>{"poisson", poisson}, {"throughput", throughput}, {"spawn", spawn},
                            {"failures", failures}}) {
    const auto& [name, doc] = named;
    CAPTURE(named.first);  // not `name`: clang 14 cannot capture a structured binding
    const std::string scenario = write_json(d, name + ".json", doc);
    const Result r = cli(d, "run " + scenario + " --out " + name + ".sqlite --no-progress");
    CHECK_MESSAGE(r.status == 0, r.output);
  }
}
