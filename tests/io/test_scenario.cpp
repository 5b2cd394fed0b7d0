// Scenario loading: every error names the file and where in it (JSON path, line:column or
// CSV line) and what was expected; the Philly adapter's sorting and GPU -> Trainium mapping;
// Kubernetes quantities; the data-folder search. Fixtures are written to a temp dir at test
// time (the Philly rows are invented, not taken from the trace). Expected values are derived
// by hand from io/include/mltwin/io/{scenario,philly}.hpp.
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/fabric.hpp"
#include "trace_formats.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mltwin;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

using mltwin::test::TempDir;

/// Sets (or unsets) MLTWIN_DATA for a scope and restores the previous value.
class EnvGuard {
 public:
  explicit EnvGuard(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("MLTWIN_DATA")) old_ = old;
    if (value) ::setenv("MLTWIN_DATA", value->c_str(), 1);
    else ::unsetenv("MLTWIN_DATA");
  }
  ~EnvGuard() {
    if (old_) ::setenv("MLTWIN_DATA", old_->c_str(), 1);
    else ::unsetenv("MLTWIN_DATA");
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::optional<std::string> old_;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string write_json(const TempDir& d, const std::string& name, const json& doc) {
  const std::string p = d.file(name);
  write_text(p, doc.dump(2));
  return p;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Loads `path` expecting a ScenarioError; returns its message.
std::string load_error(const std::string& path, const io::LoadOptions& opts = {}) {
  try {
    (void)io::load_scenario(path, opts);
  } catch (const io::ScenarioError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected io::ScenarioError, got another exception: " << std::string(e.what()));
  }
  FAIL("expected io::ScenarioError from " << path << ", but it loaded");
  return {};
}

/// The hand-checkable inline-jobs scenario all error cases start from.
json tiny_gang() {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  REQUIRE(in.good());
  return json::parse(in);
}

// A Philly scenario on the tiny-gang cluster, its mapping written out here: whole-node pods
// request 127.9 cpu, 523264M memory, 16 devices, 8 EFA; smaller pods 7.99375 cpu (7993750u)
// and 32704M per device; 16 devices per node; one process per NeuronCore (2 per device).
json philly_scenario(const std::string& trace) {
  json d = tiny_gang();
  d["name"] = "philly-fixture";
  d["queues"] = json::array({{{"name", "vc-aaa"}}, {{"name", "vc-bbb"}}, {{"name", "vc-ccc"}}});
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

/// Writes `rows` (after the header) as trace.csv and a scenario reading it; returns the
/// scenario path.
std::string philly_fixture(const TempDir& d, const std::string& rows, const std::string& csv_name = "trace.csv") {
  write_text(d.file(csv_name), kHeader + rows);
  return write_json(d, "scenario.json", philly_scenario(csv_name));
}

/// True if `msg` names CSV line `line` of `file`: "file:line:" or csv.h's "in file "file" in
/// line "line"".
bool names_csv_line(const std::string& msg, const std::string& file, int line) {
  const std::string l = std::to_string(line);
  if (contains(msg, file + ":" + l + ":")) return true;
  return contains(msg, "\"" + file + "\"") && contains(msg, "line \"" + l + "\"");
}

}  // namespace

// ================================================================== JSON errors

TEST_CASE("invalid JSON: the message gives line:column of the offending character") {
  TempDir d;
  // Line 3 is `  "seed": ,`: two spaces, "seed" in columns 3-8, ':' 9, ' ' 10, ',' 11.
  const std::string p = d.file("bad.json");
  write_text(p, "{\n  \"name\": \"x\",\n  \"seed\": ,\n}\n");
  const std::string msg = load_error(p);
  CHECK_MESSAGE(msg.rfind(p + ":3:11: invalid JSON", 0) == 0, msg);
  CHECK_MESSAGE(contains(msg, "unexpected ','"), msg);

  // One line: `{"name": "x",}` — the '}' where a member name is expected is column 14.
  const std::string q = d.file("bad2.json");
  write_text(q, "{\"name\": \"x\",}");
  const std::string msg2 = load_error(q);
  CHECK_MESSAGE(msg2.rfind(q + ":1:14: invalid JSON", 0) == 0, msg2);
}

TEST_CASE("a missing scenario file is named") {
  TempDir d;
  const std::string p = d.file("nope.json");
  const std::string msg = load_error(p);
  CHECK(msg.rfind(p + ": ", 0) == 0);
  CHECK(contains(msg, "cannot open"));
}

TEST_CASE("schema errors name the file and the JSON path") {
  TempDir d;
  SUBCASE("unknown key") {
    json doc = tiny_gang();
    doc["queues"][0]["wieght"] = 1;
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /queues/0", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "'wieght'"), msg);
  }
  SUBCASE("wrong type") {
    json doc = tiny_gang();
    doc["cluster"]["node_groups"][0]["desired_capacity"] = "4";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /cluster/node_groups/0/desired_capacity: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "expected integer"), msg);  // more in the next test case
  }
  SUBCASE("missing required field") {
    json doc = tiny_gang();
    doc["cluster"]["node_groups"][0].erase("instance_type");
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /cluster/node_groups/0: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "give the group's instance_type, or its instance_types"), msg);
    json doc2 = tiny_gang();
    doc2["cluster"]["node_groups"][0].erase("desired_capacity");
    const std::string msg2 = load_error(write_json(d, "s2.json", doc2));
    CHECK_MESSAGE(contains(msg2, ": /cluster/node_groups/0: "), msg2);
    CHECK_MESSAGE(contains(msg2, "Missing required property 'desired_capacity'"), msg2);
  }
  SUBCASE("missing top-level section") {
    json doc = tiny_gang();
    doc.erase("workload");
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "Missing required property 'workload'"), msg);
  }
  SUBCASE("value below the minimum") {
    json doc = tiny_gang();
    doc["queues"][0]["weight"] = 0;
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    // The bounds as the schema gives them, not valijson's "Expected number greater than or
    // equal to 1.000000".
    CHECK_MESSAGE(msg.rfind(p + ": /queues/0/weight: expected an integer from 1 to 2147483647, got 0", 0) == 0, msg);
  }
  SUBCASE("an override is validated like the file") {
    io::LoadOptions opts;
    opts.overrides = {{"output", {{"metrics_interval", true}}}};
    const std::string p = write_json(d, "s.json", tiny_gang());
    const std::string msg = load_error(p, opts);
    CHECK_MESSAGE(msg.rfind(p + ": /output/metrics_interval: ", 0) == 0, msg);
  }
}

TEST_CASE("a wrong-type error names the type(s) the schema expects and the type found") {
  // scenario.hpp promises messages that say what was expected; valijson's own text for a type
  // mismatch ("Value type not permitted by 'type' constraint.") does not name the type.
  TempDir d;
  SUBCASE("a string where an integer is expected") {
    json doc = tiny_gang();
    doc["cluster"]["node_groups"][0]["desired_capacity"] = "4";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /cluster/node_groups/0/desired_capacity: expected integer, got string \"4\"", 0) == 0,
                  msg);
    CHECK_MESSAGE(!contains(msg, "Value type not permitted"), msg);
  }
  SUBCASE("a fraction where an integer is expected") {
    json doc = tiny_gang();
    doc["cluster"]["node_groups"][0]["desired_capacity"] = 2.5;
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ": /cluster/node_groups/0/desired_capacity: expected integer, got number 2.5"), msg);
  }
  SUBCASE("a union type, reached through a $ref, from an override") {
    io::LoadOptions opts;
    opts.overrides = {{"output", {{"metrics_interval", true}}}};
    const std::string p = write_json(d, "s.json", tiny_gang());
    const std::string msg = load_error(p, opts);
    CHECK_MESSAGE(msg.rfind(p + ": /output/metrics_interval: expected number or string, got boolean true", 0) == 0, msg);
  }
  SUBCASE("an array item") {
    json doc = tiny_gang();
    doc["volcano"]["actions"][1] = 7;
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /volcano/actions/1: expected string, got integer 7", 0) == 0, msg);
  }
  SUBCASE("an object where a string is expected") {
    json doc = tiny_gang();
    doc["name"] = json::object({{"a", 1}});
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /name: expected string, got object", 0) == 0, msg);
  }
  SUBCASE("other schema errors keep valijson's text") {
    json doc = tiny_gang();
    doc["queues"] = json::array();
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(!contains(msg, "expected integer"), msg);
    CHECK_MESSAGE(contains(msg, "/queues: Array should contain no fewer than 1 elements."), msg);
  }
}

TEST_CASE("semantic errors name the file and the JSON path") {
  TempDir d;
  SUBCASE("unknown instance type") {
    json doc = tiny_gang();
    doc["cluster"]["node_groups"][0]["instance_type"] = "trn9.huge";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /cluster/node_groups/0/instance_type: ", 0) == 0, msg);
    // The catalog that was searched, and that the scenario adds none of its own.
    CHECK_MESSAGE(contains(msg, "'trn9.huge' is not in the catalog (" + std::string(MLTWIN_SOURCE_DIR) + "/catalog/aws-instance-types.json; the scenario adds "
                                "no rows under /catalog/instance_types)"),
                  msg);
  }
  SUBCASE("unknown plugin in a tier") {
    json doc = tiny_gang();
    doc["volcano"]["tiers"][1]["plugins"][2]["name"] = "binpackk";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    // The location: /volcano then tiers[1].plugins[2] (or the same as one JSON pointer).
    const bool located = contains(msg, p + ": /volcano/tiers/1/plugins/2") ||
                         (contains(msg, p + ": /volcano") && contains(msg, "tiers[1].plugins[2]"));
    CHECK_MESSAGE(located, msg);
    CHECK_MESSAGE(contains(msg, "unknown plugin 'binpackk'"), msg);
    CHECK_MESSAGE(contains(msg, "gang"), msg);  // lists the known plugins
  }
  SUBCASE("unknown action") {
    json doc = tiny_gang();
    doc["volcano"]["actions"][1] = "alocate";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ": /volcano"), msg);
    CHECK_MESSAGE(contains(msg, "actions[1]"), msg);
    CHECK_MESSAGE(contains(msg, "'alocate'"), msg);
  }
  SUBCASE("wrong Volcano release") {
    json doc = tiny_gang();
    doc["volcano"]["release"] = "v1.11.0";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /volcano/release: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "v1.12.1"), msg);
    CHECK_MESSAGE(contains(msg, "'v1.11.0'"), msg);
  }
  SUBCASE("a job names an undefined queue") {
    json doc = tiny_gang();
    doc["workload"]["jobs"][1]["queue"] = "nope";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "/workload/jobs/1/queue"), msg);
    CHECK_MESSAGE(contains(msg, "'nope'"), msg);
    CHECK_MESSAGE(contains(msg, "/queues"), msg);
  }
  SUBCASE("a bad Kubernetes quantity in a pod") {
    json doc = tiny_gang();
    doc["workload"]["jobs"][0]["pod"]["memory"] = "12Qi";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0/pod/memory: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "'12Qi' is not a Kubernetes quantity: 'Q' at offset 2"), msg);
  }
  SUBCASE("a bad Kubernetes quantity in a queue capability") {
    json doc = tiny_gang();
    doc["queues"][0]["capability"] = {{"cpu", "lots"}};
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /queues/0/capability/cpu: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "'lots'"), msg);
  }
  SUBCASE("a bad duration") {
    json doc = tiny_gang();
    doc["workload"]["jobs"][2]["duration"] = "30 parsecs";
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/2/duration: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "expected a duration"), msg);
  }
  SUBCASE("a duplicate queue") {
    json doc = tiny_gang();
    doc["queues"].push_back({{"name", "default"}});
    const std::string p = write_json(d, "s.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(p + ": /queues/1/name: ", 0) == 0, msg);
  }
}

TEST_CASE("an inline job with an undefined queue is located by its JSON path") {
  // Inline jobs have no trace: the message points at /workload/jobs/1/queue.
  TempDir d;
  json doc = tiny_gang();
  doc["workload"]["jobs"][1]["queue"] = "nope";
  const std::string msg = load_error(write_json(d, "s.json", doc));
  CHECK_MESSAGE(contains(msg, "/workload/jobs/1"), msg);
  CHECK_MESSAGE(!contains(msg, "trace line"), msg);
}

TEST_CASE("the inline workload loads as written") {
  const auto sc = io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  CHECK(sc.name == "tiny-gang");
  CHECK(sc.seed == 7);
  REQUIRE(sc.training.jobs.size() == 3);
  const auto& a = sc.training.jobs[0];
  CHECK(a.name == "a");
  CHECK(a.nnodes == 4);
  CHECK(a.neuron_devices_per_pod == 16);
  CHECK(a.nproc_per_node == 32);
  CHECK(a.efa_per_pod == 8);
  CHECK(a.cpu_per_pod == doctest::Approx(127.9).epsilon(1e-12));
  CHECK(a.memory_bytes_per_pod == 523264e6);
  CHECK(a.duration.count_ns() == 3600 * kS);
  CHECK(sc.training.jobs[2].submit.ns() == 600 * kS);
  CHECK(sc.training.scheduler.schedule_period_ns == kS);
  CHECK(sc.training.bind_latency.a.count_ns() == 50'000'000);
  CHECK(sc.training.pod_startup.a.count_ns() == 2 * kS);
  CHECK(sc.training.metrics_interval.count_ns() == 300 * kS);
  REQUIRE(sc.training.node_groups.size() == 1);
  CHECK(sc.training.node_groups[0].count == 4);
  // The one input: the shipped instance catalog, by its file name.
  REQUIRE(sc.inputs.size() == 1);
  CHECK(sc.inputs[0].role == "instance_catalog");
  CHECK(sc.inputs[0].as_written == "aws-instance-types.json");
  CHECK(sc.data_dir.empty());
}

// ================================================================== quantities

TEST_CASE("parse_quantity") {
  CHECK(io::parse_quantity("500m") == 0.5);
  CHECK(io::parse_quantity("32Gi") == 32.0 * 1073741824.0);
  CHECK(io::parse_quantity("523264M") == 5.23264e11);
  CHECK(io::parse_quantity("1Ki") == 1024);
  CHECK(io::parse_quantity("2k") == 2000);
  CHECK(io::parse_quantity("1.5") == 1.5);
  CHECK(io::parse_quantity("7993750u") == 7.99375);  // the exact amount's nearest double
  CHECK(io::parse_quantity("3T") == 3e12);
  CHECK(io::parse_quantity(16) == 16);
  CHECK(io::parse_quantity(0.25) == 0.25);
  CHECK(io::parse_quantity("0") == 0);
  auto err = [](const json& q) -> std::string {
    try {
      (void)io::parse_quantity(q);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  // Kubernetes' grammar (k8s.io/apimachinery ParseQuantity): hexadecimal and an exponent
  // before a suffix are errors, which std::stod used to accept.
  CHECK(contains(err("0x10Gi"), "'0x10Gi' is not a Kubernetes quantity"));
  CHECK(contains(err("1e2Gi"), "'1e2Gi' is not a Kubernetes quantity"));
  CHECK(contains(err("inf"), "'inf' is not a Kubernetes quantity"));
  CHECK(contains(err("12Qi"), "'12Qi'"));
  CHECK(contains(err("abc"), "'abc'"));
  CHECK(contains(err(""), "''"));
  CHECK(contains(err("-1"), "'-1'"));
  CHECK(err(-1) != "(no error)");
  CHECK(contains(err("-1"), "quantity must be >= 0"));
  // Beyond int64: Kubernetes' Value() would overflow.
  CHECK(contains(err("12E"), "quantity 12E: its Value() is beyond a 64-bit integer"));
  CHECK(contains(err(json(18446744073709551615ULL)), "Value() is beyond a 64-bit integer"));
  // UnmarshalJSON trims surrounding white space; a JSON integer is its digits, a JSON float the
  // text Go's encoding/json writes for it.
  CHECK(io::parse_quantity(" 16 ") == 16);
  CHECK(io::parse_quantity("\t500m\n") == 0.5);
  CHECK(io::parse_quantity(1.5) == 1.5);
  CHECK(io::quantity_text(1e21) == "1e+21");
  CHECK(io::quantity_text(1e-7) == "1e-7");
  CHECK(io::quantity_text(0.1) == "0.1");
  CHECK(io::quantity_text(100.0) == "100");
  CHECK(io::quantity_text(16) == "16");
  CHECK(io::quantity_of("0.1Gi").value() == 107374183);  // ceil(107374182.4)
  CHECK(io::quantity_of(json(1.5)).milli_value() == 1500);
  CHECK(io::parse_quantity("1n") == 1e-9);
  CHECK(io::parse_quantity("0.1n") == 1e-9);  // rounded up to 1n
  CHECK(io::parse_quantity("9Ei") == 9223372036854775807.0);  // capped at 2^63-1
  CHECK(err(true) != "(no error)");
  CHECK(err(json::array({1})) != "(no error)");
}

// ================================================================== Philly traces

TEST_CASE("Philly: jobs are sorted by submit time, t = 0 at the earliest submit") {
  TempDir d;
  // Lines 2..5; submit order: line 3 (10:00:00), line 2 (10:00:30), line 5 (10:00:30, a tie:
  // file order keeps it after line 2), line 4 (11:00:00).
  const std::string p = philly_fixture(d,
                                       "2017-10-03 10:00:30,100,1,100,aaa\n"
                                       "2017-10-03 10:00:00,200,2,400,bbb\n"
                                       "2017-10-03 11:00:00,300,4,1200,aaa\n"
                                       "2017-10-03 10:00:30,50.5,8,404,ccc\n");
  const auto sc = io::load_scenario(p);
  const auto& j = sc.training.jobs;
  REQUIRE(j.size() == 4);
  const std::int64_t lines[] = {3, 2, 5, 4};
  const std::int64_t submit_s[] = {0, 30, 30, 3600};
  const int gpus[] = {2, 1, 8, 4};
  const char* queues[] = {"vc-bbb", "vc-aaa", "vc-ccc", "vc-aaa"};
  const std::int64_t duration_ns[] = {200 * kS, 100 * kS, 50'500'000'000LL, 300 * kS};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(j[i].name == "philly-0000" + std::to_string(i));
    CHECK(j[i].trace_row == lines[i]);
    CHECK(j[i].submit.ns() == submit_s[i] * kS);
    CHECK(j[i].trace_gpus == gpus[i]);
    CHECK(j[i].queue == queues[i]);
    CHECK(j[i].duration.count_ns() == duration_ns[i]);
    CHECK(j[i].nnodes == 1);
    CHECK(j[i].neuron_devices_per_pod == gpus[i]);
    CHECK(j[i].efa_per_pod == 0);
  }
  REQUIRE(sc.inputs.size() == 2);  // the instance catalog, then the trace
  CHECK(sc.inputs[0].role == "instance_catalog");
  CHECK(sc.inputs[1].role == "philly_trace");
  CHECK(fs::equivalent(sc.inputs[1].path, d.file("trace.csv")));  // relative to the scenario's folder
  CHECK(sc.inputs[1].as_written == "trace.csv");

  // max_jobs keeps the first N by submit time (not by file order).
  io::LoadOptions opts;
  opts.overrides = {{"workload", {{"philly", {{"max_jobs", 2}}}}}};
  const auto first2 = io::load_scenario(p, opts);
  REQUIRE(first2.training.jobs.size() == 2);
  CHECK(first2.training.jobs[0].trace_row == 3);
  CHECK(first2.training.jobs[1].trace_row == 2);
  CHECK(first2.training.jobs[0].submit.ns() == 0);
  CHECK(first2.json["workload"]["philly"]["max_jobs"] == 2);

  // copies: the first 2 jobs (max_jobs) three times, copy i's names and queues suffixed -c<i>,
  // each job followed by its copies; the 3 queues three times.
  opts.overrides = {{"workload", {{"philly", {{"max_jobs", 2}, {"copies", 3}}}}}};
  const auto tripled = io::load_scenario(p, opts);
  REQUIRE(tripled.training.jobs.size() == 2 * 3);
  const char* names[] = {"philly-00000", "philly-00000-c1", "philly-00000-c2", "philly-00001", "philly-00001-c1", "philly-00001-c2"};
  const char* tripled_queues[] = {"vc-bbb", "vc-bbb-c1", "vc-bbb-c2", "vc-aaa", "vc-aaa-c1", "vc-aaa-c2"};
  for (int i = 0; i < 6; ++i) {
    CAPTURE(i);
    const auto& t = tripled.training.jobs[i];
    CHECK(t.name == names[i]);
    CHECK(t.queue == tripled_queues[i]);
    CHECK(t.submit == first2.training.jobs[i / 3].submit);
    CHECK(t.duration == first2.training.jobs[i / 3].duration);
    CHECK(t.trace_row == first2.training.jobs[i / 3].trace_row);
  }
  std::vector<std::string> qs;
  for (const auto& q : tripled.training.queues) qs.push_back(q.name);
  CHECK(qs == std::vector<std::string>{"vc-aaa", "vc-bbb", "vc-ccc", "vc-aaa-c1", "vc-bbb-c1", "vc-ccc-c1", "vc-aaa-c2", "vc-bbb-c2", "vc-ccc-c2"});
  opts.overrides = {{"queues", json::array({{{"name", "vc-aaa"}}, {{"name", "vc-bbb"}}, {{"name", "vc-ccc"}}, {{"name", "vc-aaa-c1"}}})},
                    {"workload", {{"philly", {{"copies", 2}}}}}};
  CHECK_THROWS_WITH_AS(io::load_scenario(p, opts), doctest::Contains("/workload/philly/copies: copy 1 of queue 'vc-aaa' would be named 'vc-aaa-c1'"),
                       io::ScenarioError);
}

TEST_CASE("Philly: GPU -> Trainium mapping") {
  TempDir d;
  const std::string p = philly_fixture(d,
                                       "2017-10-03 10:00:00,60,24,1440,aaa\n"   // line 2
                                       "2017-10-03 10:00:01,60,16,960,aaa\n"    // line 3
                                       "2017-10-03 10:00:02,60,1,60,aaa\n"      // line 4
                                       "2017-10-03 10:00:03,60,32,1920,aaa\n"   // line 5
                                       "2017-10-03 10:00:04,60,12,720,aaa\n");  // line 6
  const auto sc = io::load_scenario(p);
  const auto& j = sc.training.jobs;
  REQUIRE(j.size() == 5);
  // The mapping's per-device cpu "7993750u" is read as Volcano reads a request, Quantity's
  // MilliValue() rounded up: 7993.75m -> 7994m.
  const double per_cpu = 7.994, per_mem = 32704e6;
  // 24 GPUs -> 24 devices > 16: ceil(24/16) = 2 pods of 12 devices; a partial node gets
  // 12 × the per-device cpu and memory and the whole node's 8 EFA interfaces.
  CHECK(j[0].nnodes == 2);
  CHECK(j[0].neuron_devices_per_pod == 12);
  CHECK(j[0].efa_per_pod == 8);
  CHECK(j[0].cpu_per_pod == doctest::Approx(12 * per_cpu).epsilon(1e-12));  // 95.925
  CHECK(j[0].memory_bytes_per_pod == doctest::Approx(12 * per_mem).epsilon(1e-12));  // 3.92448e11
  CHECK(j[0].nproc_per_node == 24);  // 12 devices × 2 NeuronCores × 1
  CHECK(j[0].trace_gpus == 24);
  // 16 GPUs: one pod, a whole node's devices and the whole-node request, no EFA.
  CHECK(j[1].nnodes == 1);
  CHECK(j[1].neuron_devices_per_pod == 16);
  CHECK(j[1].efa_per_pod == 0);
  CHECK(j[1].cpu_per_pod == doctest::Approx(127.9).epsilon(1e-12));
  CHECK(j[1].memory_bytes_per_pod == 523264e6);
  CHECK(j[1].nproc_per_node == 32);
  // 1 GPU: one pod, 1/16 of a node.
  CHECK(j[2].nnodes == 1);
  CHECK(j[2].neuron_devices_per_pod == 1);
  CHECK(j[2].efa_per_pod == 0);
  CHECK(j[2].cpu_per_pod == doctest::Approx(per_cpu).epsilon(1e-12));
  CHECK(j[2].memory_bytes_per_pod == per_mem);
  CHECK(j[2].nproc_per_node == 2);
  // 32 GPUs: 2 whole-node pods with EFA.
  CHECK(j[3].nnodes == 2);
  CHECK(j[3].neuron_devices_per_pod == 16);
  CHECK(j[3].efa_per_pod == 8);
  CHECK(j[3].cpu_per_pod == doctest::Approx(127.9).epsilon(1e-12));
  CHECK(j[3].memory_bytes_per_pod == 523264e6);
  // 12 GPUs: one pod of 12 devices inside one node: no EFA.
  CHECK(j[4].nnodes == 1);
  CHECK(j[4].neuron_devices_per_pod == 12);
  CHECK(j[4].efa_per_pod == 0);
  CHECK(j[4].cpu_per_pod == doctest::Approx(12 * per_cpu).epsilon(1e-12));
  CHECK(j[4].memory_bytes_per_pod / kGiB == doctest::Approx(12 * per_mem / kGiB).epsilon(1e-12));
}

TEST_CASE("Philly: a device count that does not split over its nodes is an error naming the line") {
  TempDir d;
  // 17 GPUs: ceil(17/16) = 2 nodes, 17 % 2 = 1.
  const std::string p = philly_fixture(d,
                                       "2017-10-03 10:00:00,60,1,60,aaa\n"
                                       "2017-10-03 10:00:01,60,4,240,aaa\n"
                                       "2017-10-03 09:00:00,60,17,1020,bbb\n"  // line 4, sorts first
                                       "2017-10-03 10:00:03,60,2,120,aaa\n");
  const std::string msg = load_error(p);
  CHECK_MESSAGE(msg.rfind(d.file("trace.csv") + ":4: ", 0) == 0, msg);
  CHECK_MESSAGE(contains(msg, "17 Neuron devices do not split evenly over 2 nodes"), msg);
}

TEST_CASE("Philly: a fractional device count is an error naming the line") {
  TempDir d;
  write_text(d.file("trace.csv"), kHeader +
                                      "2017-10-03 10:00:00,60,2,120,aaa\n"
                                      "2017-10-03 10:00:01,60,3,180,aaa\n");  // line 3: 1.5 devices
  json doc = philly_scenario("trace.csv");
  doc["workload"]["philly"]["mapping"]["neuron_devices_per_gpu"] = 0.5;
  const std::string msg = load_error(write_json(d, "scenario.json", doc));
  CHECK_MESSAGE(msg.rfind(d.file("trace.csv") + ":3: ", 0) == 0, msg);
  CHECK_MESSAGE(contains(msg, "num_gpus 3"), msg);
  CHECK_MESSAGE(contains(msg, "fractional"), msg);
}

TEST_CASE("Philly: bad rows name the file and the line") {
  TempDir d;
  const std::string csv = d.file("trace.csv");
  SUBCASE("num_gpus is not a number") {
    const std::string p = philly_fixture(d,
                                         "2017-10-03 10:00:00,60,1,60,aaa\n"
                                         "2017-10-03 10:00:01,60,x,60,aaa\n"  // line 3
                                         "2017-10-03 10:00:02,60,1,60,aaa\n");
    const std::string msg = load_error(p);
    CHECK_MESSAGE(names_csv_line(msg, csv, 3), msg);
    CHECK_MESSAGE(contains(msg, "num_gpus"), msg);
    CHECK_MESSAGE(contains(msg, "x"), msg);
  }
  SUBCASE("num_gpus is zero") {
    const std::string p = philly_fixture(d,
                                         "2017-10-03 10:00:00,60,1,60,aaa\n"
                                         "2017-10-03 10:00:01,60,1,60,aaa\n"
                                         "2017-10-03 10:00:02,60,0,0,aaa\n");  // line 4
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(csv + ":4: num_gpus: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, ">= 1"), msg);
  }
  SUBCASE("malformed timestamp") {
    const std::string p = philly_fixture(d,
                                         "2017-10-03 10:00:00,60,1,60,aaa\n"
                                         "2017-13-03 10:00:01,60,1,60,aaa\n");  // line 3: month 13
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(csv + ":3: timestamp: ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "'2017-13-03 10:00:01'"), msg);
  }
  SUBCASE("negative duration") {
    const std::string p = philly_fixture(d, "2017-10-03 10:00:00,-5,1,60,aaa\n");  // line 2
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(csv + ":2: duration: ", 0) == 0, msg);
  }
  SUBCASE("empty cluster") {
    const std::string p = philly_fixture(d, "2017-10-03 10:00:00,60,1,60,aaa\n2017-10-03 10:00:00,60,1,60,\n");
    const std::string msg = load_error(p);
    CHECK_MESSAGE(msg.rfind(csv + ":3: cluster: ", 0) == 0, msg);
  }
  SUBCASE("a missing column") {
    write_text(csv, "timestamp,duration,gpus,gpu_time,cluster\n2017-10-03 10:00:00,60,1,60,aaa\n");
    const std::string msg = load_error(write_json(d, "scenario.json", philly_scenario("trace.csv")));
    CHECK_MESSAGE(contains(msg, csv), msg);
    CHECK_MESSAGE(contains(msg, "num_gpus"), msg);
  }
  SUBCASE("no rows") {
    const std::string msg = load_error(philly_fixture(d, ""));
    CHECK_MESSAGE(msg.rfind(csv + ": ", 0) == 0, msg);
    CHECK_MESSAGE(contains(msg, "no jobs"), msg);
  }
  SUBCASE("a row's cluster has no queue") {
    const std::string p = philly_fixture(d,
                                         "2017-10-03 10:00:00,60,1,60,aaa\n"
                                         "2017-10-03 10:00:01,60,1,60,zzz\n");  // line 3
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, "'vc-zzz'"), msg);
    CHECK_MESSAGE(contains(msg, "trace line 3"), msg);
  }
  SUBCASE("the trace file does not exist") {
    const std::string msg = load_error(write_json(d, "scenario.json", philly_scenario("missing.csv")));
    // The key, the path as written, the path read, and where a relative path is read from.
    CHECK(msg == d.file("scenario.json") + ": /workload/philly/trace: 'missing.csv': no such file: " + d.file("missing.csv") +
                     " (a relative path is read from the scenario's folder, not the working directory)");
  }
}

TEST_CASE("Philly: a trailing blank line is not a row") {
  TempDir d;
  const std::string rows = "2017-10-03 10:00:30,100,1,100,aaa\n2017-10-03 10:00:00,200,2,400,bbb\n";
  SUBCASE("one blank line (as the published file ends)") {
    const auto sc = io::load_scenario(philly_fixture(d, rows + "\n"));
    REQUIRE(sc.training.jobs.size() == 2);
    CHECK(sc.training.jobs[0].trace_row == 3);
    CHECK(sc.training.jobs[1].trace_row == 2);
  }
  SUBCASE("several blank lines") {
    CHECK(io::load_scenario(philly_fixture(d, rows + "\n\n\n")).training.jobs.size() == 2);
  }
  SUBCASE("no final newline") {
    CHECK(io::load_scenario(philly_fixture(d, rows.substr(0, rows.size() - 1))).training.jobs.size() == 2);
  }
  SUBCASE("CRLF line ends, no blank line") {
    std::string crlf;
    for (char c : kHeader + rows) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    write_text(d.file("trace.csv"), crlf);
    const auto sc = io::load_scenario(write_json(d, "scenario.json", philly_scenario("trace.csv")));
    REQUIRE(sc.training.jobs.size() == 2);
    CHECK(sc.training.jobs[0].queue == "vc-bbb");  // no '\r' left on the last column
  }
}

TEST_CASE("a CRLF trace ending with a blank line loads") {
  // Trailing blank lines are stripped whether they end in "\n" or "\r\n".
  TempDir d;
  std::string crlf;
  for (char c : kHeader + "2017-10-03 10:00:30,100,1,100,aaa\n2017-10-03 10:00:00,200,2,400,bbb\n\n")
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_text(d.file("trace.csv"), crlf);
  const std::string p = write_json(d, "scenario.json", philly_scenario("trace.csv"));
  std::size_t n = 0;
  try {
    n = io::load_scenario(p).training.jobs.size();
  } catch (const std::exception& e) {
    FAIL_CHECK(std::string(e.what()));
  }
  CHECK(n == 2);
}

// ================================================================== the data folder

TEST_CASE("resolve_data_dir") {
  TempDir d;
  const fs::path data = d.path() / "a" / "shared" / "data";
  fs::create_directories(data);
  fs::create_directories(d.path() / "a" / "b" / "c");
  const fs::path other = d.path() / "other";
  fs::create_directories(other);

  SUBCASE("an explicit folder wins") {
    EnvGuard env(other.string());
    CHECK(io::resolve_data_dir(data.string(), (d.path() / "a" / "b").string()) == data.string());
  }
  SUBCASE("an explicit folder that does not exist is an error naming it") {
    EnvGuard env(std::nullopt);
    const std::string bad = (d.path() / "nope").string();
    try {
      (void)io::resolve_data_dir(bad, d.path().string());
      FAIL("no error");
    } catch (const io::ScenarioError& e) {
      CHECK(contains(e.what(), "'" + bad + "'"));
      CHECK(contains(e.what(), "--data"));
    }
  }
  SUBCASE("MLTWIN_DATA comes next") {
    EnvGuard env(other.string());
    CHECK(io::resolve_data_dir("", (d.path() / "a" / "b").string()) == other.string());
  }
  SUBCASE("MLTWIN_DATA naming no folder is an error") {
    const std::string bad = (d.path() / "nope").string();
    EnvGuard env(bad);
    try {
      (void)io::resolve_data_dir("", (d.path() / "a" / "b").string());
      FAIL("no error");
    } catch (const io::ScenarioError& e) {
      CHECK(contains(e.what(), "MLTWIN_DATA"));
      CHECK(contains(e.what(), "'" + bad + "'"));
    }
  }
  SUBCASE("else the first shared/data walking up") {
    EnvGuard env(std::nullopt);
    CHECK(io::resolve_data_dir("", (d.path() / "a" / "b" / "c").string()) == data.lexically_normal().string());
    CHECK(io::resolve_data_dir("", (d.path() / "a").string()) == data.lexically_normal().string());
  }
  SUBCASE("nothing found") {
    EnvGuard env(std::nullopt);
    // Precondition: no ancestor of the temp dir has a shared/data folder.
    for (fs::path p = d.path();; p = p.parent_path()) {
      REQUIRE_MESSAGE(!fs::is_directory(p / "shared" / "data"), "cannot test: " << (p / "shared" / "data") << " exists");
      if (p == p.root_path()) break;
    }
    const std::string start = other.string();
    try {
      (void)io::resolve_data_dir("", start);
      FAIL("no error");
    } catch (const io::ScenarioError& e) {
      CHECK(contains(e.what(), "MLTWIN_DATA"));
      CHECK(contains(e.what(), "'" + start + "'"));
    }
  }
}

TEST_CASE("${MLTWIN_DATA} in a trace path") {
  TempDir d;
  const fs::path data = d.path() / "data";
  fs::create_directories(data / "training" / "philly");
  write_text((data / "training" / "philly" / "t.csv").string(), kHeader + "2017-10-03 10:00:00,60,1,60,aaa\n");
  fs::create_directories(d.path() / "scen");
  const std::string p = (d.path() / "scen" / "s.json").string();
  write_text(p, philly_scenario("${MLTWIN_DATA}/training/philly/t.csv").dump(2));

  SUBCASE("LoadOptions.data_dir") {
    EnvGuard env(std::nullopt);
    io::LoadOptions opts;
    opts.data_dir = data.string();
    const auto sc = io::load_scenario(p, opts);
    CHECK(sc.data_dir == data.string());
    REQUIRE(sc.inputs.size() == 2);  // the instance catalog, then the trace
    CHECK(sc.inputs[1].path == data.string() + "/training/philly/t.csv");
    CHECK(sc.inputs[1].as_written == "${MLTWIN_DATA}/training/philly/t.csv");  // not expanded
    CHECK(sc.training.jobs.size() == 1);
  }
  SUBCASE("MLTWIN_DATA") {
    EnvGuard env(data.string());
    const auto sc = io::load_scenario(p);
    CHECK(sc.data_dir == data.string());
    CHECK(sc.training.jobs.size() == 1);
  }
  SUBCASE("a shared/data folder above the scenario") {
    EnvGuard env(std::nullopt);
    const fs::path shared = d.path() / "shared" / "data";
    fs::create_directories(shared / "training" / "philly");
    fs::copy_file(data / "training" / "philly" / "t.csv", shared / "training" / "philly" / "t.csv");
    const auto sc = io::load_scenario(p);
    CHECK(sc.data_dir == shared.lexically_normal().string());
    CHECK(sc.training.jobs.size() == 1);
  }
  SUBCASE("nowhere: the error says what to set") {
    EnvGuard env(std::nullopt);
    for (fs::path q = d.path();; q = q.parent_path()) {
      REQUIRE_MESSAGE(!fs::is_directory(q / "shared" / "data"), "cannot test: " << (q / "shared" / "data") << " exists");
      if (q == q.root_path()) break;
    }
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, "MLTWIN_DATA"), msg);
  }
}

// ================================================================== the fabric object

namespace {

/// tiny-gang with the "fabric" object of the shipped Philly scenario.
json with_fabric() {
  std::ifstream in(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-philly.json");
  REQUIRE(in.good());
  json d = tiny_gang();
  d["fabric"] = json::parse(in)["fabric"];
  return d;
}

}  // namespace

TEST_CASE("fabric: absent means no network; present, its figures load with their units") {
  TempDir d;
  CHECK_FALSE(io::load_scenario(write_json(d, "a.json", tiny_gang())).training.fabric.has_value());
  const io::LoadedScenario sc = io::load_scenario(write_json(d, "b.json", with_fabric()));
  REQUIRE(sc.training.fabric.has_value());
  const models::FabricParams& f = *sc.training.fabric;
  // Neuron docs: 800 Gb/s over 8 interfaces -> 100 Gb/s each; latency "10us".
  CHECK(f.efa.gbps_per_interface == 100.0);
  CHECK(f.efa.latency == core::Duration::us(10));
  CHECK_FALSE(f.leaf_spine.has_value());  // non-blocking unless the scenario says otherwise
  const models::NeuronLinkSpec* nl = f.neuronlink_for("trn1.32xlarge");
  REQUIRE(nl != nullptr);
  CHECK(nl->torus_rows == 4);
  CHECK(nl->torus_cols == 4);
  // 384 GiB/s per device over 4 links = 96 GiB/s = 96 * 2^30 * 8 bit/s.
  CHECK(nl->gbps_per_link == doctest::Approx(384.0 / 4 * kGiB * 8 / 1e9));
  CHECK(nl->latency == core::Duration::us(1));
  CHECK(f.neuronlink_for("trn1n.32xlarge") != nullptr);
  CHECK(f.neuronlink_for("trn1.2xlarge") == nullptr);
  // The topology builds from what the scenario loaded, one fabric node per cluster node.
  core::Simulator sim;
  core::FlowNetwork net(sim);
  const auto nodes = models::fabric_nodes_of(sc.training.node_groups);
  const models::Fabric fab(sc.training.catalog, nodes, f, net);
  int expected = 0;
  for (const auto& g : sc.training.node_groups) expected += g.count;
  CHECK(fab.node_count() == static_cast<std::size_t>(expected));
}

TEST_CASE("fabric: errors name the JSON path") {
  TempDir d;
  {
    json doc = with_fabric();
    doc["fabric"]["neuronlink"][0]["instance_type"] = "trn9.xlarge";
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/neuronlink/0/instance_type: 'trn9.xlarge' is not in the catalog ("), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["neuronlink"][0]["torus"] = json::array({3, 4});
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/neuronlink/0/torus: a 3 x 4 torus does not hold the 16 Trainium chips of trn1.32xlarge"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["neuronlink"].erase(0);  // trn1.32xlarge, which the node group uses
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/neuronlink: no entry for instance type 'trn1.32xlarge' (16 Trainium chips), used by /cluster/node_groups/0"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["neuronlink"][1]["instance_type"] = "trn1.32xlarge";
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/neuronlink/1/instance_type: a second entry for 'trn1.32xlarge'"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["efa"]["gbps_per_interface"] = 0;
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/efa/gbps_per_interface"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["leaf_spine"] = {{"nodes_per_leaf", 16}, {"oversubscription", 0.5}, {"source", "x"}};
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/leaf_spine/oversubscription"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["efa"]["latency"] = "soon";
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric/efa/latency"), msg);
  }
  {
    json doc = with_fabric();
    doc["fabric"]["spine"] = 1;  // unknown key
    const std::string msg = load_error(write_json(d, "s.json", doc));
    CHECK_MESSAGE(contains(msg, "/fabric"), msg);
  }
}

TEST_CASE("error paths escape '/' and '~' in resource and label names (JSON Pointer, RFC 6901)") {
  TempDir d;
  json doc = tiny_gang();
  REQUIRE(doc["workload"]["jobs"][0].contains("pod"));
  SUBCASE("a bad quantity of a domain/name resource") {
    doc["workload"]["jobs"][0]["pod"]["aws.amazon.com/neuron"] = "x";
    const std::string p = write_json(d, "s.json", doc);
    const std::string e = load_error(p);
    CHECK_MESSAGE(e.rfind(p + ": /workload/jobs/0/pod/aws.amazon.com~1neuron: 'x' is not a Kubernetes quantity", 0) == 0, e);
  }
  SUBCASE("a quota name (count/...), with a '~'") {
    doc["workload"]["jobs"][0]["pod"]["count/aws.amazon.com/neu~ron"] = 1;
    const std::string p = write_json(d, "s.json", doc);
    const std::string e = load_error(p);
    CHECK_MESSAGE(e.rfind(p + ": /workload/jobs/0/pod/count~1aws.amazon.com~1neu~0ron: not a resource name Volcano counts", 0) == 0, e);
  }
  SUBCASE("a schema error under a resource name") {
    doc["workload"]["jobs"][0]["pod"]["aws.amazon.com/neuron"] = true;
    const std::string p = write_json(d, "s.json", doc);
    const std::string e = load_error(p);
    CHECK_MESSAGE(e.rfind(p + ": /workload/jobs/0/pod/aws.amazon.com~1neuron: expected number or string, got boolean true", 0) == 0, e);
  }
  SUBCASE("a node group label's value") {
    doc["cluster"]["node_groups"][0]["labels"] = {{"example.com/team", "not a value!"}};
    const std::string p = write_json(d, "s.json", doc);
    const std::string e = load_error(p);
    CHECK_MESSAGE(e.rfind(p + ": /cluster/node_groups/0/labels/example.com~1team: ", 0) == 0, e);
  }
}

TEST_CASE("a job requesting an extended resource no node group offers is a load error, with the near name") {
  // scenarios/eks-mixed-fleet.json offers nvidia.com/gpu (p4d.24xlarge) and the Neuron names
  // (trn1.32xlarge). "nvidia.com/gpus" is one edit from nvidia.com/gpu: such a pod would stay
  // Pending for ever, so validate refuses it. A well-known name the fleet lacks is left to the
  // run (it rejects the job, naming the resource).
  const std::string scen = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-mixed-fleet.json";
  auto with_pod = [&](const nlohmann::json& pod) {
    io::LoadOptions o;
    nlohmann::json job = {{"name", "j"}, {"queue", "training"}, {"submit", "0s"}, {"nnodes", 1}, {"duration", "1h"}, {"pod", pod}};
    o.overrides = {{"workload", {{"jobs", nlohmann::json::array({job})}}}};
    return o;
  };
  const std::string msg = load_error(scen, with_pod({{"cpu", "4"}, {"nvidia.com/gpus", 1}}));
  CHECK_MESSAGE(msg.rfind(scen + ": /workload/jobs/0: job j requests 'nvidia.com/gpus', which no node group offers (they offer ", 0) == 0, msg);
  CHECK_MESSAGE(msg.find("nvidia.com/gpu, pods") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("; did you mean 'nvidia.com/gpu'?") != std::string::npos, msg);
  // A name no group offers and nothing is near: the same error, no suggestion.
  const std::string fpga = load_error(scen, with_pod({{"cpu", "4"}, {"example.com/fpga", 1}}));
  CHECK_MESSAGE(fpga.find("job j requests 'example.com/fpga', which no node group offers") != std::string::npos, fpga);
  CHECK_MESSAGE(fpga.find("did you mean") == std::string::npos, fpga);
  // Offered names load.
  CHECK_NOTHROW(io::load_scenario(scen, with_pod({{"cpu", "4"}, {"nvidia.com/gpu", 1}})));
  // Not a resource name at all: the nearest well-known one.
  const std::string memroy = load_error(scen, with_pod({{"cpu", "4"}, {"memroy", "4Gi"}}));
  CHECK_MESSAGE(memroy.find("/workload/jobs/0/pod/memroy: not a resource name Volcano counts") != std::string::npos, memroy);
  CHECK_MESSAGE(memroy.find("; did you mean 'memory'?") != std::string::npos, memroy);
}

TEST_CASE("a job's tasks and minAvailable: errors name the JSON path") {
  TempDir d;
  auto err = [&](const std::function<void(json&)>& edit) {
    json doc = tiny_gang();
    edit(doc["workload"]["jobs"][0]);
    const std::string p = write_json(d, "s.json", doc);
    return std::make_pair(p, load_error(p));
  };
  const json tasks = json::array({{{"name", "master"}, {"replicas", 1}, {"duration", "10m"}},
                                  {{"name", "worker"}, {"replicas", 3}, {"duration", "30m"}}});
  SUBCASE("minAvailable below a torchrun gang's pods: elastic torchrun is not modelled") {
    std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([](json& j) { j["min_available"] = 2; });
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0/min_available: minAvailable 2 is below the job's 4 pods: for a torchrun job "
                                "that is elastic torchrun (--nnodes=MIN:MAX",
                            0) == 0,
                  msg);
  }
  SUBCASE("minAvailable above the pods") {
    std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([&](json& j) {
      j.erase("nnodes");
      j.erase("duration");
      j["tasks"] = tasks;
      j["min_available"] = 5;
    });
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0/min_available: minAvailable 5 is above the job's 4 pods", 0) == 0, msg);
  }
  SUBCASE("tasks beside nnodes") {
    std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([&](json& j) { j["tasks"] = tasks; });
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0/nnodes: give nnodes or tasks, not both", 0) == 0, msg);
  }
  SUBCASE("neither tasks nor nnodes") {
    std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([](json& j) { j.erase("nnodes"); });
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0: missing nnodes: a job gives nnodes and duration (a torchrun gang) or tasks", 0) == 0,
                  msg);
  }
  SUBCASE("a task's minAvailable above its replicas; a task named twice") {
    json t = tasks;
    t[1]["min_available"] = 4;
    std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([&](json& j) {
      j.erase("nnodes");
      j.erase("duration");
      j["tasks"] = t;
    });
    CHECK_MESSAGE(msg.rfind(p + ": /workload/jobs/0/tasks/1/min_available: task minAvailable 4 is above the task's 3 replicas", 0) == 0,
                  msg);
    json u = tasks;
    u[1]["name"] = "master";
    std::string p2, msg2;
    std::tie(p2, msg2) = err([&](json& j) {
      j.erase("nnodes");
      j.erase("duration");
      j["tasks"] = u;
    });
    CHECK_MESSAGE(msg2.rfind(p2 + ": /workload/jobs/0/tasks/1/name: task name 'master' appears twice", 0) == 0, msg2);
  }
  SUBCASE("min_available 0, negative, above the replicas: as Volcano's admission webhooks treat them") {
    // mutate_job.go (v1.12.1) runs first: patchDefaultMinAvailable turns spec.minAvailable 0
    // (or unset) into the tasks' minAvailable summed, a task without one counting its replicas;
    // admit_job.go validateJobCreate then refuses, in its order, a negative job minAvailable,
    // a task's negative minAvailable or one above its replicas, and a job minAvailable above
    // the replicas summed, with these messages.
    auto with_tasks = [&](const json& t, const json& min) {
      return [t, min](json& j) {
        j.erase("nnodes");
        j.erase("duration");
        j["tasks"] = t;
        if (!min.is_null()) j["min_available"] = min;
      };
    };
    const std::string head = "Volcano's admission webhook refuses the Job: \"";
    // Job a (tiny-gang's first), tasks master (1 replica) and worker (3).
    {
      std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err([](json& j) { j["min_available"] = -1; });
      CHECK(msg == p + ": /workload/jobs/0/min_available: minAvailable -1 is below 0: " + head + "job 'minAvailable' must be >= 0.\"");
    }
    {
      json t = tasks;
      t[1]["min_available"] = -1;
      std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err(with_tasks(t, 2));
      CHECK(msg == p + ": /workload/jobs/0/tasks/1/min_available: task minAvailable -1 is below 0: " + head +
                       "'minAvailable' < 0 in task: worker, job: a;\"");
    }
    {
      // Job minAvailable unset: the mutating webhook sums 1 (master's replicas) + -4 = -3,
      // and the validating webhook's first check refuses that.
      json t = tasks;
      t[1]["min_available"] = -4;
      std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err(with_tasks(t, json()));
      CHECK(msg == p + ": /workload/jobs/0/tasks/1/min_available: task minAvailable -4 is below 0; with the job's min_available "
                       "unset (or 0) the mutating webhook sets it to the tasks' minAvailable summed, -3, and " + head +
                       "job 'minAvailable' must be >= 0.\"");
      // 0 is the same as unset; a sum of 1 + -1 = 0 is not negative: the task's own message.
      std::string p2, msg2;
    std::tie(p2, msg2) = err(with_tasks(t, 0));
      CHECK(msg2 == msg);
      t[1]["min_available"] = -1;
      const auto [p3, msg3] = err(with_tasks(t, 0));
      CHECK(msg3.find("'minAvailable' < 0 in task: worker, job: a;") != std::string::npos);
    }
    {
      json t = tasks;
      t[1]["min_available"] = 4;
      std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err(with_tasks(t, 0));
      CHECK(msg == p + ": /workload/jobs/0/tasks/1/min_available: task minAvailable 4 is above the task's 3 replicas: " + head +
                       "'minAvailable' is greater than 'replicas' in task: worker, job: a;\"");
    }
    {
      std::string p, msg;  // not a structured binding: clang 14 cannot capture one
    std::tie(p, msg) = err(with_tasks(tasks, 5));
      CHECK(msg == p + ": /workload/jobs/0/min_available: minAvailable 5 is above the job's 4 pods: " + head +
                       "job 'minAvailable' should not be greater than total replicas in tasks;\"");
    }
    // Accepted: 0 is the webhook's default. A torchrun gang of 4: TorchX's four tasks of one
    // pod each, 4. Tasks master (1) and worker (3, minAvailable 1): 1 + 1 = 2. Every task's
    // minAvailable 0: 0 + 0 = 0, a PodGroup of minMember 0 (Volcano takes it).
    json doc = tiny_gang();
    doc["workload"]["jobs"][0]["min_available"] = 0;
    json t = tasks;
    t[1]["min_available"] = 1;
    with_tasks(t, 0)(doc["workload"]["jobs"][1]);
    json z = tasks;
    z[0]["min_available"] = 0;
    z[1]["min_available"] = 0;
    with_tasks(z, json())(doc["workload"]["jobs"][2]);
    const io::LoadedScenario sc = io::load_scenario(write_json(d, "zero.json", doc));
    CHECK(sc.training.jobs[0].min_member() == 4);
    CHECK(sc.training.jobs[1].min_member() == 2);
    CHECK(sc.training.jobs[2].min_member() == 0);
  }
  SUBCASE("a job of tasks loads: pods, minAvailable, the jobs table's duration") {
    json doc = tiny_gang();
    json& j = doc["workload"]["jobs"][0];
    j.erase("nnodes");
    j.erase("duration");
    j["tasks"] = tasks;
    j["min_available"] = 2;
    const io::LoadedScenario sc = io::load_scenario(write_json(d, "ok.json", doc));
    const models::TrainingJobSpec& js = sc.training.jobs[0];
    CHECK(js.independent_pods());
    CHECK(js.nnodes == 4);                      // 1 + 3 replicas
    CHECK(js.min_member() == 2);
    CHECK(js.task_min_total() == 4);            // no task minAvailable: replicas
    CHECK(js.duration == core::Duration::s(1800));  // the longest task's
    CHECK(js.task_of_replica(0) == 0);
    CHECK(js.task_of_replica(1) == 1);
    CHECK(js.task_of_replica(3) == 1);
    CHECK(!sc.training.jobs[1].independent_pods());
    CHECK(sc.training.jobs[1].min_member() == 4);
  }
}
