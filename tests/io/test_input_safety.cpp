// Issue 14, item 3: numbers, units and names checked. Every case below was accepted silently,
// crashed with a raw library message or hung before; each now fails with an error naming the
// file and the JSON path (or line:column, or CSV line). Expected messages are written by hand
// from the rules they cite (the schemas' bounds, kMaxScenarioTime, Kubernetes' validation.go).
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/scenario.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;
using mltwin::test::TempDir;

namespace {

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return json::parse(in);
}

json tiny_gang() { return read_json(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json"); }
json blog_djl() { return read_json(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/mme-djl-blog-top-n.json"); }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// The ScenarioError message of loading `text` (written to `name` in `d`), training or
/// inference by the document's kind.
std::string error_of_text(const TempDir& d, const std::string& name, const std::string& text) {
  const std::string p = d.file(name);
  write_text(p, text);
  try {
    if (io::scenario_kind(p) == io::ScenarioKind::Inference) (void)io::load_inference_scenario(p);
    else (void)io::load_scenario(p);
  } catch (const io::ScenarioError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected io::ScenarioError, got another exception: " << std::string(e.what()));
  }
  FAIL("expected io::ScenarioError from " << p << ", but it loaded");
  return {};
}

/// The message without the count of valijson's other messages for the same error.
std::string error_of(const TempDir& d, const json& doc) {
  std::string msg = error_of_text(d, "s.json", doc.dump(2));
  if (const auto at = msg.find(" related schema messages omitted)"); at != std::string::npos)
    msg.erase(msg.rfind(" (", at));
  return msg;
}

/// `doc` changed by `edit`.
json with(json doc, const std::function<void(json&)>& edit) {
  edit(doc);
  return doc;
}

}  // namespace

// ================================================================== the JSON text

TEST_CASE("a key given twice in one object is an error at its line:column and JSON path") {
  TempDir d;
  // nlohmann/json keeps the last of two equal keys: "seed" 7 then 8 ran with seed 8.
  std::string msg = error_of_text(d, "top.json", "{\n  \"name\": \"x\",\n  \"name\": \"y\"\n}\n");
  CHECK_MESSAGE(msg == d.file("top.json") + ":3:3: duplicate key 'name' in the top-level object (JSON objects must not "
                                            "repeat a key: /name is given twice)",
                msg);
  // Inside an array element: the second "weight" starts at column 55.
  msg = error_of_text(d, "queue.json", R"({"queues": [{"name": "a"}, {"name": "b", "weight": 1, "weight": 2}]})");
  CHECK_MESSAGE(msg == d.file("queue.json") + ":1:55: duplicate key 'weight' in /queues/1 (JSON objects must not repeat a "
                                              "key: /queues/1/weight is given twice)",
                msg);
  // Array indices count primitives, arrays and objects alike.
  msg = error_of_text(d, "deep.json", R"({"a": [1, [2, 3], {"k": 1}], "b": {"c": {"d": 1, "d": 2}}})");
  CHECK_MESSAGE(contains(msg, "deep.json:1:50: duplicate key 'd' in /b/c "), msg);
  msg = error_of_text(d, "nested.json", R"({"a": [[1], {"x": 1, "x": 2}]})");
  CHECK_MESSAGE(contains(msg, "nested.json:1:22: duplicate key 'x' in /a/1 "), msg);
  // The same key in two objects is no duplicate: the whole tiny-gang scenario has many.
  CHECK_NOTHROW(io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json"));
}

TEST_CASE("a number beyond double's range (1e400) is an error naming the file and the number's line:column") {
  TempDir d;
  // Before: nlohmann's raw "[json.exception.out_of_range.406] number overflow parsing '1e400'",
  // without the file (exit 1). The number starts at column 23.
  const std::string msg = error_of_text(d, "big.json", R"({"name": "x", "seed": 1e400})");
  CHECK_MESSAGE(msg.rfind(d.file("big.json") + ":1:23: invalid JSON: ", 0) == 0, msg);
  CHECK_MESSAGE(contains(msg, "number overflow parsing '1e400'"), msg);
}

TEST_CASE("inputs must be regular files of bounded size") {
  TempDir d;
  // A FIFO would block in open() and /dev/urandom never ends: both hung `mltwin validate`.
  const std::string fifo = d.file("fifo.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const auto& entry : std::vector<std::pair<std::string, std::string>>{
           {fifo, "a FIFO"}, {"/dev/urandom", "a device"}, {d.path().string(), "a directory"}}) {
    const auto& [path, kind] = entry;
    CAPTURE(entry.first);  // not `path`: clang 14 cannot capture a structured binding
    try {
      (void)io::load_scenario(path);
      FAIL("loaded");
    } catch (const io::ScenarioError& e) {
      const std::string msg = e.what();
      CHECK_MESSAGE(msg == path + ": the scenario file is not a regular file (" + kind +
                               "); mltwin reads inputs from regular files only",
                    msg);
    }
  }
  // A (sparse) file one byte above the limit is refused before it is read.
  const std::string huge = d.file("huge.json");
  write_text(huge, "{}");
  std::filesystem::resize_file(huge, io::kMaxScenarioFileBytes + 1);
  try {
    (void)io::load_scenario(huge);
    FAIL("loaded");
  } catch (const io::ScenarioError& e) {
    CHECK(std::string(e.what()) == huge + ": the scenario file is 67108865 bytes, above the limit of 67108864 bytes for this "
                                          "kind of input (docs/limits.md)");
  }
}

// ================================================================== integers

TEST_CASE("every integer of both schemas has bounds that fit the C++ field it is read into") {
  // The loaders read integers into int unless listed here (int64 / uint64 fields): a bound
  // above INT32_MAX would let a value wrap as it is stored (4,294,967,298 nodes ran as 2).
  const std::vector<std::string> wide = {"seed", "steps", "tolerationSeconds", "request_records_full", "request_sample_every",
                                         "max_batch_delay", "max_idle_time"};
  for (const char* file : {"/scenarios/schema/scenario.schema.json", "/scenarios/schema/inference.schema.json"}) {
    const json schema = read_json(std::string(MLTWIN_SOURCE_DIR) + file);
    std::size_t integers = 0;
    std::function<void(const json&, const std::string&)> walk = [&](const json& n, const std::string& at) {
      if (n.is_object()) {
        if (n.contains("type") && n["type"] == "integer") {
          ++integers;
          CAPTURE(file);
          CAPTURE(at);
          REQUIRE(n.contains("minimum"));
          REQUIRE(n.contains("maximum"));
          const std::string key = at.substr(at.rfind('/') + 1);
          if (std::find(wide.begin(), wide.end(), key) == wide.end()) {
            CHECK(n["maximum"].get<double>() <= 2147483647.0);
            CHECK(n["minimum"].get<double>() >= -2147483648.0);
          } else {
            CHECK(n["maximum"].get<double>() <= 9223372036854775807.0);
          }
        }
        for (auto it = n.begin(); it != n.end(); ++it) walk(it.value(), at + "/" + it.key());
      } else if (n.is_array()) {
        for (std::size_t i = 0; i < n.size(); ++i) walk(n[i], at + "/" + std::to_string(i));
      }
    };
    walk(schema, "");
    CHECK(integers > 20);
  }
}

TEST_CASE("integers beyond their bounds are errors at their JSON path, not wrapped values") {
  TempDir d;
  // 4,294,967,298 = 2^32 + 2 ran as 2 nodes; 10^18 became -1,486,618,624.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["desired_capacity"] = 4294967298ULL; })) ==
        d.file("s.json") + ": /cluster/node_groups/0/desired_capacity: expected an integer from 0 to 1000000, got 4294967298");
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["nnodes"] = 1000000000000000000ULL; })) ==
        d.file("s.json") + ": /workload/jobs/2/nnodes: expected an integer from 1 to 1000000, got 1000000000000000000");
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["queues"][0]["weight"] = 2147483648LL; })) ==
        d.file("s.json") + ": /queues/0/weight: expected an integer from 1 to 2147483647, got 2147483648");
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][0]["priority"] = -2147483649LL; })) ==
        d.file("s.json") + ": /workload/jobs/0/priority: expected an integer from -2147483648 to 2147483647, got -2147483649");
  // 2^63 compares equal to the bound 2^63 - 1 as a double: the loader checks it exactly.
  for (std::uint64_t seed : {9223372036854775808ULL, 18446744073709551615ULL}) {
    CAPTURE(seed);
    CHECK(error_of(d, with(tiny_gang(), [&](json& s) { s["seed"] = seed; })) ==
          d.file("s.json") + ": /seed: expected an integer from 0 to 9223372036854775807, got " + std::to_string(seed));
  }
}

TEST_CASE("inference integers beyond their bounds are errors at their JSON path") {
  TempDir d;
  CHECK(error_of(d, with(blog_djl(), [](json& s) { s["endpoint"]["initial_instances"] = 4294967298ULL; })) ==
        d.file("s.json") + ": /endpoint/initial_instances: expected an integer from 1 to 2147483647, got 4294967298");
  CHECK(error_of(d, with(blog_djl(), [](json& s) { s["traffic"]["locust"]["users"] = 2147483648LL; })) ==
        d.file("s.json") + ": /traffic/locust/users: expected an integer from 1 to 2147483647, got 2147483648");
  CHECK(error_of(d, with(blog_djl(), [](json& s) { s["server"]["serving_properties"]["max_batch_delay"] = 9223372036854775807LL; })) ==
        d.file("s.json") + ": /server/serving_properties/max_batch_delay: expected an integer from 0 to 315360000000, got 9223372036854775807");
}

// ================================================================== times

TEST_CASE("times and durations are bounded by kMaxScenarioTime at their JSON path") {
  TempDir d;
  const std::string beyond = " is beyond the longest time a scenario may give, 10 years (315360000 s)";
  // A duration of INT64_MAX ns started 3.05 s in and ended "-9223372033804775809 ns, in the past".
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][0]["duration"] = "9223372036854775807ns"; })) ==
        d.file("s.json") + ": /workload/jobs/0/duration: \"9223372036854775807ns\"" + beyond);
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["submit"] = "3650d1ns"; })).find("/workload/jobs/2/submit: ") !=
        std::string::npos);
  // 3650 days is exactly the limit: accepted; one second more is not.
  {
    const std::string p = d.file("edge.json");
    write_text(p, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["submit"] = "3650d"; }).dump());
    CHECK(io::load_scenario(p).training.jobs.back().submit.ns() == 3650LL * 86400 * 1'000'000'000);
  }
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["submit"] = 315360001; })) ==
        d.file("s.json") + ": /workload/jobs/2/submit: 315360001" + beyond);
  // Go durations (Volcano's sla-waiting-time) go to 2^63 - 1 ns too.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["sla_waiting_time"] = "2562047h"; })) ==
        d.file("s.json") + ": /workload/jobs/2/sla_waiting_time: \"2562047h\"" + beyond);
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["lifecycle"]["pod_startup"]["constant"] = "-3651d"; })) ==
        d.file("s.json") + ": /lifecycle/pod_startup/constant: \"-3651d\"" + beyond);
  CHECK(error_of(d, with(blog_djl(), [](json& s) { s["traffic"]["locust"]["duration"] = "100000d"; })) ==
        d.file("s.json") + ": /traffic/locust/duration: \"100000d\"" + beyond);
  // A negative job duration passed validate and failed the run with "Simulator::schedule: time
  // -1950000000 ns is in the past", naming no file.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][1]["duration"] = "-1s"; })) ==
        d.file("s.json") + ": /workload/jobs/1/duration: \"-1s\": expected a duration >= 0");
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][0]["duration"] = -5; })) ==
        d.file("s.json") + ": /workload/jobs/0/duration: -5: expected a duration >= 0");
}

// ================================================================== names

TEST_CASE("duplicate job names are errors at the second one's JSON path") {
  TempDir d;
  // Before, explain picked the first of two jobs named "a".
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][2]["name"] = "a"; })) ==
        d.file("s.json") + ": /workload/jobs/2/name: duplicate job 'a' (also /workload/jobs/0): job names identify jobs in the "
                           "results and in explain");
}

TEST_CASE("names follow Kubernetes' rules for their kind of object") {
  TempDir d;
  const std::string subdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
      "an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const std::string label =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an "
      "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const std::string k8s = " (Kubernetes object names: k8s.io/apimachinery/pkg/util/validation)";
  // Volcano Queue (a CRD: DNS-1123 subdomain).
  CHECK(error_of(d, with(tiny_gang(), [](json& s) {
          s["queues"][0]["name"] = "Default";
          for (auto& j : s["workload"]["jobs"]) j["queue"] = "Default";
        })) == d.file("s.json") + ": /queues/0/name: Queue name 'Default': " + subdomain + k8s);
  // A Volcano Job: a subdomain of at most 63 characters (the webhook's IsQualifiedName).
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][1]["name"] = "job_b"; })) ==
        d.file("s.json") + ": /workload/jobs/1/name: Job name 'job_b': " + subdomain + k8s);
  const std::string long_job(64, 'j');
  CHECK(error_of(d, with(tiny_gang(), [&](json& s) { s["workload"]["jobs"][1]["name"] = long_job; })) ==
        d.file("s.json") + ": /workload/jobs/1/name: Job name '" + long_job +
            "': must be no more than 63 characters (Volcano's job admission webhook checks IsQualifiedName)" + k8s);
  // A node group names its nodes <group>-<index>: a DNS-1123 label with room for the index.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["name"] = "trn1.big"; })) ==
        d.file("s.json") + ": /cluster/node_groups/0/name: node group name 'trn1.big': " + label +
            " (its nodes are named <group>-<index>: a Kubernetes node name, also the value of the kubernetes.io/hostname label)");
  // 61 characters + "-3" = 63 fits (4 nodes: 0..3); with 10 nodes, "-9" still fits; 11 nodes need "-10" (64).
  const std::string g61(61, 'g');
  {
    const std::string p = d.file("fits.json");
    write_text(p, with(tiny_gang(), [&](json& s) {
                    s["cluster"]["node_groups"][0]["name"] = g61;
                    s["cluster"]["node_groups"][0]["desired_capacity"] = 10;
                  }).dump());
    CHECK_NOTHROW(io::load_scenario(p));
  }
  CHECK(error_of(d, with(tiny_gang(), [&](json& s) {
          s["cluster"]["node_groups"][0]["name"] = g61;
          s["cluster"]["node_groups"][0]["desired_capacity"] = 11;
        })) == d.file("s.json") + ": /cluster/node_groups/0/name: node group name '" + g61 + "' is too long: its node " + g61 +
                   "-10 has 64 characters, and a node's name is the value of its kubernetes.io/hostname label (at most 63)");
  // PriorityClass and DaemonSet: DNS-1123 subdomains.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["priority_classes"] = json::array({{{"name", "High"}, {"value", 10}}}); })) ==
        d.file("s.json") + ": /priority_classes/0/name: PriorityClass name 'High': " + subdomain + k8s);
  CHECK(error_of(d, with(tiny_gang(), [](json& s) {
          s["cluster"]["daemonsets"] = json::array({{{"name", "aws_node"}, {"requests", {{"cpu", "25m"}}}, {"source", "t"}}});
        })) == d.file("s.json") + ": /cluster/daemonsets/0/name: DaemonSet name 'aws_node': " + subdomain + k8s);
  // Label values: the instance type and the zone become node labels.
  CHECK(contains(error_of(d, with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["availability_zone"] = "us-east-1a/b"; })),
                 ": /cluster/node_groups/0/availability_zone: zone 'us-east-1a/b' must be empty or consist of alphanumeric"));
  // The scenario's name names its results file: no path in it.
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["name"] = "../../etc/x"; })) ==
        d.file("s.json") + ": /name: '../../etc/x': a scenario name names its results file (results/<name>-seed<N>.sqlite): up to "
                           "200 letters, digits, '.', '_' or '-', starting with a letter or a digit");
  // Philly's job names are fine: tested by every Philly scenario (philly-01156).
}

TEST_CASE("control characters in any string or key are errors, shown escaped") {
  TempDir d;
  // An ESC in a queue name reached the terminal raw (it can recolour or rewrite the screen).
  CHECK(error_of(d, with(tiny_gang(), [](json& s) { s["description"] = "red \x1b[31m text"; })) ==
        d.file("s.json") + ": /description: control character U+001B at character 5 in 'red \\x1B[31m text' (names and texts must be "
                           "printable: a control character would reach the terminal raw)");
  // The right-to-left override (U+202E, UTF-8 E2 80 AE) reorders what a terminal shows.
  CHECK(contains(error_of(d, with(tiny_gang(), [](json& s) { s["workload"]["jobs"][0]["name"] = "a\xe2\x80\xae" "b"; })),
                 ": /workload/jobs/0/name: control character U+202E at character 2 in 'a\\u202Eb'"));
  CHECK(contains(error_of(d, with(tiny_gang(), [](json& s) { s["cluster"]["node_groups"][0]["labels"] = {{"k\ty", "v"}}; })),
                 ": /cluster/node_groups/0/labels: key: control character U+0009"));
  // Inference scenarios too.
  CHECK(contains(error_of(d, with(blog_djl(), [](json& s) { s["endpoint"]["source"] = std::string("bell\a"); })),
                 ": /endpoint/source: control character U+0007"));
}

TEST_CASE("plugin arguments keep the number as written") {
  TempDir d;
  // An integer above 2^63 - 1 became "-1" (read into a long long): binpack ran with weight -1.
  const std::string msg = error_of(d, with(tiny_gang(), [](json& s) {
    s["volcano"]["tiers"][1]["plugins"].push_back({{"name", "binpack"}, {"arguments", {{"binpack.weight", 18446744073709551615ULL}}}});
  }));
  CHECK_MESSAGE(contains(msg, "'18446744073709551615'"), msg);
  // A double kept six digits: 1.2345678 became "1.23457".
  const std::string p = d.file("args.json");
  write_text(p, with(tiny_gang(), [](json& s) {
                  s["volcano"]["tiers"][1]["plugins"][0]["arguments"] = {{"overcommit-factor", 1.2345678}, {"n", 2.0}};
                }).dump());
  const io::LoadedScenario sc = io::load_scenario(p);
  const auto& args = sc.training.scheduler.tiers[1].plugins[0].arguments.all();
  REQUIRE(args.count("overcommit-factor") == 1);
  CHECK(args.at("overcommit-factor") == "1.2345678");
  CHECK(args.at("n") == "2");  // as before for short values
}

TEST_CASE("times that follow from sizes and rates are bounded too") {
  TempDir d;
  // 4 KiB at 10^-20 Gb/s is 3.3e15 s: the download could not be scheduled.
  CHECK(contains(error_of(d, with(blog_djl(), [](json& s) { s["endpoint"]["s3"]["download_gbps"] = 1e-20; })),
                 ": /endpoint/s3/download_gbps: the largest artifact (4096 bytes) would download for 3276800000000000.000000 s, "
                 "beyond the longest time a scenario may give, 10 years (315360000 s)"));
  CHECK(contains(error_of(d, with(blog_djl(), [](json& s) { s["endpoint"]["model_load"]["gbytes_per_s"] = 1e-20; })),
                 ": /endpoint/model_load/gbytes_per_s: the largest artifact (4096 bytes) would load for "));
}
