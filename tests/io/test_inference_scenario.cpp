// Inference scenarios: every shipped scenario loads with the figures it states; every error
// names the file and where in it (JSON path or CSV line) and what was expected; the Azure
// Functions adapter on a small fixture written here (expected values computed by hand from the
// rows below) and on the real trace (608,228 invocations of 1,000 functions over 1,440 minutes,
// per ../shared/data/README.md).
#include "temp_dir.hpp"
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/io/azure_functions.hpp"
#include "mltwin/io/inference_report.hpp"
#include "mltwin/io/inference_scenario.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mltwin;
namespace inf = mltwin::models::inference;

namespace {

constexpr std::int64_t kMs = 1'000'000LL;
constexpr std::int64_t kS = 1'000'000'000LL;
constexpr std::uint64_t kMiB = 1024ULL * 1024ULL;

using mltwin::test::TempDir;

const std::string kScenarios = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  return json::parse(in);
}

std::string write_json(const TempDir& d, const std::string& name, const json& doc) {
  const std::string p = d.file(name);
  write_text(p, doc.dump(2));
  return p;
}

/// Loads `path` expecting a ScenarioError; returns its message.
std::string load_error(const std::string& path, const io::LoadOptions& opts = {}) {
  try {
    (void)io::load_inference_scenario(path, opts);
  } catch (const io::ScenarioError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected io::ScenarioError, got another exception: " << std::string(e.what()));
  }
  FAIL("expected io::ScenarioError from " << path << ", but it loaded");
  return {};
}

std::string azure_error(const std::string& folder) {
  try {
    (void)io::read_azure_functions(folder);
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  FAIL("expected io::ScenarioError from the trace in " << folder);
  return {};
}

/// The shipped DJL uniform blog scenario: the base the error cases edit.
json blog_uniform() { return read_json(kScenarios + "mme-djl-blog-uniform.json"); }

// ---------------------------------------------------------------- a hand-checkable fixture
//
// Three functions over four minutes. inv totals: f1 1+0+2+3 = 6, f2 5, f3 4+4 = 8; 19 in all.
// run.csv lists them out of order (and an extra function the inv file does not have), with
// its own column order; mem.csv is per app.
const std::string kInv =
    "HashFunction,HashOwner,HashApp,minute_1,minute_2,minute_3,minute_4\n"
    "f1,o1,a1,1,0,2,3\n"
    "f2,o1,a2,0,0,0,5\n"
    "f3,o2,a3,4,4,0,0\n";
const std::string kRun =
    "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,percentile_Average_0\n"
    "o2,a3,f3,250,8,100.0,400.0,100\n"
    "oX,aX,fX,7,1,7.0,7.0,7\n"
    "o1,a1,f1,0,6,0.0,1.0,0\n"
    "o1,a2,f2,1500,5,1000.0,2000.0,1000\n";
const std::string kMem =
    "HashOwner,HashApp,SampleCount,AverageAllocatedMb,AverageAllocatedMb_pct1\n"
    "o1,a2,10,300,250\n"
    "o1,a1,5,128,120\n"
    "o2,a3,7,64,60\n";

/// Writes the fixture into `d`/trace (each file replaceable) and returns the folder.
std::string write_fixture(const TempDir& d, const std::string& inv = kInv, const std::string& run = kRun,
                          const std::string& mem = kMem) {
  const fs::path dir = d.path() / "trace";
  fs::create_directories(dir);
  write_text((dir / "1000_inv.csv").string(), inv);
  write_text((dir / "1000_run.csv").string(), run);
  write_text((dir / "1000_mem.csv").string(), mem);
  return dir.string();
}

/// The Azure scenario, its trace replaced by the fixture at "trace" beside the scenario file.
json azure_fixture_scenario() {
  json doc = read_json(kScenarios + "mme-azure-functions.json");
  doc["models"]["azure_functions"]["trace"] = "trace";
  doc["traffic"]["trace"]["first_minute"] = 1;
  doc["traffic"]["trace"]["minutes"] = 2;
  return doc;
}

}  // namespace

// ================================================================== shipped scenarios

TEST_CASE("the DJL blog scenarios: 1,000 sklearn copies on 20 x ml.c5d.18xlarge, Locust at 1,500 requests/s") {
  for (const std::string pattern : {"uniform", "one-hot", "top-n"}) {
    CAPTURE(pattern);
    const auto s = io::load_inference_scenario(kScenarios + "mme-djl-blog-" + pattern + ".json");
    CHECK(s.name == "mme-djl-blog-" + pattern);
    REQUIRE(s.inputs.size() == 1);  // the shipped instance catalog, by its file name
    CHECK(s.inputs[0].role == "instance_catalog");
    CHECK(s.inputs[0].as_written == "aws-instance-types.json");
    CHECK(s.data_dir.empty());
    const inf::InferenceScenario& sc = s.inference;
    REQUIRE(sc.models.size() == 1000);
    CHECK(sc.models[0].name == "sklearn-0");
    CHECK(sc.models[999].name == "sklearn-999");
    CHECK(sc.models[7].resident_bytes == 100 * kMiB);
    CHECK(sc.models[7].artifact_bytes == 4096);
    CHECK(sc.models[7].service.base.kind == models::LatencySpec::Kind::Exponential);
    CHECK(sc.models[7].service.base.a.count_ns() == 2 * kMs);
    REQUIRE(sc.instance_type() != nullptr);
    CHECK(sc.instance_type()->name == "ml.c5d.18xlarge");
    CHECK(sc.instance_type()->vcpu == 72);
    // From the shipped catalog (catalog/aws-instance-types.json): c5d.18xlarge's 144 GiB and
    // 2 x 900 GB NVMe (EC2 User Guide), the SageMaker price the scenario carried before.
    CHECK(sc.instance_type()->memory_bytes() == 144ULL * 1024 * kMiB);
    CHECK(sc.instance_type()->instance_storage_bytes() == 1'800'000'000'000ULL);
    CHECK(sc.model_storage_bytes() == 1'800'000'000'000ULL);
    CHECK(sc.endpoint.ml_storage_volume_bytes == 0);
    CHECK(sc.instance_type()->on_demand_usd_per_hour == doctest::Approx(4.147));
    CHECK(sc.instance_type()->region_of_price == "us-east-1");
    CHECK(s.catalog_path == std::string(MLTWIN_SOURCE_DIR) + "/catalog/aws-instance-types.json");
    CHECK(sc.endpoint.initial_instances == 20);
    CHECK(sc.endpoint.min_instances == 20);
    CHECK(sc.endpoint.max_instances == 20);
    CHECK(!sc.policies.instance_scaling.has_value());  // a fixed fleet
    CHECK(sc.policies.autoscaling.name == "djl-wlm");
    CHECK(sc.policies.routing.name == "cache-aware");
    CHECK(sc.policies.routing.arguments.get_double("heavy_load_per_worker", 0) == 2.0);
    CHECK(sc.endpoint.model_cache_enabled);
    CHECK(sc.server.kind == inf::ServerSpec::Kind::Djl);
    CHECK(sc.server.engine == "Python");
    CHECK(sc.server.max_idle_time.count_ns() == 600 * kS);
    CHECK(sc.server.max_batch_delay.count_ns() == 100 * kMs);
    CHECK(sc.server.batch_size == 1);
    CHECK(sc.server.job_queue_size == 1000);
    CHECK(sc.server.min_workers == 1);
    CHECK(sc.server.max_workers == 0);  // DJL's default: vCPUs / OMP_NUM_THREADS
    CHECK(sc.server.omp_num_threads == 1);
    REQUIRE(sc.traffic.kind == inf::TrafficSpec::Kind::Locust);
    const inf::LocustTraffic& l = sc.traffic.locust;
    CHECK(l.users == 450);
    CHECK(l.wait == inf::LocustTraffic::Wait::ConstantThroughput);
    CHECK(l.users * l.wait_a == doctest::Approx(1500).epsilon(1e-5));
    CHECK(l.duration.count_ns() == 3600 * kS);
    CHECK(sc.output.metrics_period.count_ns() == 60 * kS);
    CHECK(sc.slo.p99_model_latency_ms == 100.0);  // "100ms": 1e8 ns / 1e6, exact
  }
  SUBCASE("uniform: one task over models 0..989") {
    const auto l = io::load_inference_scenario(kScenarios + "mme-djl-blog-uniform.json").inference.traffic.locust;
    REQUIRE(l.tasks.size() == 1);
    CHECK(l.tasks[0].popularity.kind == inf::PopularitySpec::Kind::Uniform);
    CHECK(l.tasks[0].popularity.first == 0);
    CHECK(l.tasks[0].popularity.last == 989);
  }
  SUBCASE("one hot: weight 9 on model 0, weight 1 on 1..989 (90 % to model 0)") {
    const auto l = io::load_inference_scenario(kScenarios + "mme-djl-blog-one-hot.json").inference.traffic.locust;
    REQUIRE(l.tasks.size() == 2);
    CHECK(l.tasks[0].weight == 9);
    CHECK(l.tasks[0].popularity.first == 0);
    CHECK(l.tasks[0].popularity.last == 0);
    CHECK(l.tasks[1].weight == 1);
    CHECK(l.tasks[1].popularity.first == 1);
    CHECK(l.tasks[1].popularity.last == 989);
  }
  SUBCASE("top n: weight 8 on models 0..10, weight 1 on 11..989 (8/9 to 11 hot models)") {
    const auto l = io::load_inference_scenario(kScenarios + "mme-djl-blog-top-n.json").inference.traffic.locust;
    REQUIRE(l.tasks.size() == 2);
    CHECK(l.tasks[0].weight == 8);
    CHECK(l.tasks[0].popularity.last - l.tasks[0].popularity.first + 1 == 11);
    CHECK(l.tasks[1].weight == 1);
    CHECK(l.tasks[1].popularity.first == 11);
    CHECK(l.tasks[1].popularity.last == 989);
  }
}

TEST_CASE("the MMS blog scenarios: the same endpoint and traffic, static workers, job queue 100") {
  for (const std::string pattern : {"uniform", "one-hot", "top-n"}) {
    CAPTURE(pattern);
    const auto mms = io::load_inference_scenario(kScenarios + "mme-mms-blog-" + pattern + ".json");
    const auto djl = io::load_inference_scenario(kScenarios + "mme-djl-blog-" + pattern + ".json");
    CHECK(mms.inference.server.kind == inf::ServerSpec::Kind::Mms);
    CHECK(mms.inference.server.job_queue_size == 100);
    CHECK(mms.inference.server.mms_workers_per_model == 0);  // one per vCPU
    // Everything but the server is the DJL scenario's.
    json a = mms.json, b = djl.json;
    CHECK(a["policies"]["autoscaling"]["name"] == "mms-static");
    CHECK(b["policies"]["autoscaling"]["name"] == "djl-wlm");
    for (json* d : {&a, &b}) {
      d->erase("server");
      (*d)["policies"].erase("autoscaling");
      d->erase("name");
      d->erase("description");
    }
    CHECK(a == b);
  }
}

TEST_CASE("the Azure Functions scenario: 1,000 trace functions as models, one day of per-minute counts") {
  const auto s = io::load_inference_scenario(kScenarios + "mme-azure-functions.json");
  const inf::InferenceScenario& sc = s.inference;
  REQUIRE(sc.models.size() == 1000);
  CHECK(sc.models[0].name == "fn-0");
  // slo.p99_model_latency "60s": 60e9 ns / 1e6 = 60000 ms exactly (not 60000.00000000001).
  CHECK(sc.slo.p99_model_latency_ms == 60000.0);
  // Function 0 (line 2 of each file): Average 224 ms, its app's AverageAllocatedMb 188.
  CHECK(sc.models[0].service.base.kind == models::LatencySpec::Kind::Exponential);
  CHECK(sc.models[0].service.base.a.count_ns() == 224 * kMs);
  CHECK(sc.models[0].resident_bytes == 188 * kMiB);
  CHECK(sc.models[0].artifact_bytes == 94 * kMiB);  // half the resident size
  for (const auto& m : sc.models) {
    CHECK(m.service.base.a.count_ns() >= 1 * kMs);   // floor (44 functions have Average 0)
    CHECK(m.service.base.a.count_ns() <= 60 * kS);   // cap
  }
  REQUIRE(sc.traffic.kind == inf::TrafficSpec::Kind::Trace);
  const inf::TraceTraffic& t = sc.traffic.trace;
  REQUIRE(t.counts.size() == 1000);
  std::uint64_t total = 0;
  for (const auto& row : t.counts) {
    REQUIRE(row.size() == 1440);
    total = std::accumulate(row.begin(), row.end(), total);
  }
  CHECK(total == 608'228);
  CHECK(t.first_minute == 0);
  CHECK(t.minutes == 1440);
  CHECK(t.time_scale == 1.0);
  REQUIRE(sc.policies.instance_scaling.has_value());
  CHECK(sc.policies.instance_scaling->name == "target-tracking");
  const policy::Arguments& tt = sc.policies.instance_scaling->arguments;
  CHECK(tt.get_double("target_value", 0) == 450);
  CHECK(tt.get_string("scale_out_cooldown", "") == "300s");
  CHECK(tt.get_string("scale_in_cooldown", "") == "300s");
  CHECK(sc.endpoint.initial_instances == 2);
  CHECK(sc.endpoint.min_instances == 1);
  CHECK(sc.endpoint.max_instances == 20);
  CHECK(sc.server.max_idle_time.count_ns() == 60 * kS);  // DJL's default
  REQUIRE(s.inputs.size() == 4);  // the instance catalog, then the trace's three files
  CHECK(s.inputs[0].role == "instance_catalog");
  CHECK(s.inputs[1].role == "azure_functions_invocations");
  CHECK(s.inputs[1].as_written == "${MLTWIN_DATA}/inference/azure-functions-2019-1k/1000_inv.csv");
  CHECK(fs::is_regular_file(s.inputs[1].path));
  CHECK(!s.data_dir.empty());
}

TEST_CASE("scenario_kind: training without a kind, inference by its kind, anything else an error") {
  CHECK(io::scenario_kind(kScenarios + "eks-trn1-philly.json") == io::ScenarioKind::Training);
  CHECK(io::scenario_kind(kScenarios + "mme-djl-blog-uniform.json") == io::ScenarioKind::Inference);
  TempDir d;
  json doc = blog_uniform();
  doc["kind"] = "training";
  CHECK(io::scenario_kind(write_json(d, "t.json", doc)) == io::ScenarioKind::Training);
  doc["kind"] = "batch";
  const std::string p = write_json(d, "b.json", doc);
  try {
    (void)io::scenario_kind(p);
    FAIL("expected an error");
  } catch (const io::ScenarioError& e) {
    const std::string msg = e.what();
    CHECK_MESSAGE(contains(msg, p + ": /kind: expected \"training\" or \"inference\""), msg);
    CHECK_MESSAGE(contains(msg, "\"batch\""), msg);
  }
  SUBCASE("each loader refuses the other kind") {
    const std::string msg = load_error(kScenarios + "eks-trn1-philly.json");
    CHECK_MESSAGE(contains(msg, kScenarios + "eks-trn1-philly.json: /kind: "), msg);
    CHECK_MESSAGE(contains(msg, "training scenario"), msg);
    CHECK_THROWS_AS((void)io::load_scenario(kScenarios + "mme-djl-blog-uniform.json"), io::ScenarioError);
  }
}

// ================================================================== errors: file + path + expectation

TEST_CASE("instance scaling on a fleet whose min and max are equal is a warning (an error with strict)") {
  TempDir d;
  json doc = blog_uniform();  // 20 instances, min = max = 20
  doc["policies"]["instance_scaling"] = {{"name", "target-tracking"}, {"arguments", {{"target_value", 450}}}};
  const std::string p = write_json(d, "x.json", doc);
  const auto s = io::load_inference_scenario(p);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0] == p + ": /policies/instance_scaling: instance scaling policy 'target-tracking' is chosen, but "
                             "min_instances = max_instances = 20: the fleet cannot change (give /endpoint/min_instances "
                             "and /endpoint/max_instances)");
  io::LoadOptions strict;
  strict.strict = true;
  CHECK_THROWS_WITH_AS(io::load_inference_scenario(p, strict), doctest::Contains("(--strict: warnings are errors)"),
                       io::ScenarioError);
  doc["endpoint"]["min_instances"] = 1;
  doc["endpoint"]["max_instances"] = 40;
  CHECK(io::load_inference_scenario(write_json(d, "y.json", doc)).warnings.empty());
  // Durations are bounded like every other time of a scenario.
  doc["policies"]["instance_scaling"]["arguments"]["scale_in_cooldown"] = "100000h";
  CHECK_THROWS_WITH_AS(io::load_inference_scenario(write_json(d, "z.json", doc)),
                       doctest::Contains("/policies/instance_scaling/arguments/scale_in_cooldown: a duration of at most 10 years"),
                       io::ScenarioError);
}

// DJL Serving 0.23.0, WlmConfigManager.getDefaultMaxWorkers (wlm/.../util/WlmConfigManager.java
// lines 176-184): `int maxWorkers = getWorkersProperty(model, "maxWorkers", -1); if (maxWorkers
// > 0) return maxWorkers;` else the device's default. So serving.properties maxWorkers=0 is the
// default, as if unset; it is not a pool of no workers (which WorkLoadManager.runJob would
// answer 503 every time: only the management API can scale a model to max_worker=0).
TEST_CASE("DJL maxWorkers 0 is DJL's default maxWorkers, as if unset") {
  TempDir d;
  json doc = blog_uniform();
  REQUIRE_FALSE(doc["server"]["serving_properties"].contains("maxWorkers"));
  const auto unset = io::load_inference_scenario(write_json(d, "unset.json", doc)).inference;
  doc["server"]["serving_properties"]["maxWorkers"] = 0;
  const auto zero = io::load_inference_scenario(write_json(d, "zero.json", doc)).inference;
  CHECK(zero.server.max_workers == 0);
  // ml.c5d.18xlarge: 72 vCPUs, OMP_NUM_THREADS 1 -> 72 / 1 = 72 workers at most, either way.
  REQUIRE(zero.instance_type() != nullptr);
  CHECK(zero.instance_type()->vcpu == 72);
  CHECK(inf::server_max_workers(zero, *zero.instance_type()) == 72);
  CHECK(inf::server_max_workers(unset, *unset.instance_type()) == 72);
  // minWorkers is checked against that default: 72 loads, 73 does not.
  doc["server"]["serving_properties"]["minWorkers"] = 72;
  CHECK(io::load_inference_scenario(write_json(d, "min72.json", doc)).inference.server.min_workers == 72);
  doc["server"]["serving_properties"]["minWorkers"] = 73;
  const std::string e = load_error(write_json(d, "min73.json", doc));
  CHECK_MESSAGE(contains(e, "minWorkers (73) exceeds maxWorkers (72, DJL's default vCPUs / OMP_NUM_THREADS"), e);
}

TEST_CASE("inference scenario errors name the file, the JSON path and what was expected") {
  TempDir d;
  auto check = [&](json doc, const std::string& pointer, const std::string& expectation) {
    const std::string p = write_json(d, "x.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ": " + pointer + ": "), msg);
    CHECK_MESSAGE(contains(msg, expectation), msg);
  };
  SUBCASE("wrong type") {
    json doc = blog_uniform();
    doc["endpoint"]["initial_instances"] = "20";
    check(doc, "/endpoint/initial_instances", "expected integer, got string \"20\"");
  }
  SUBCASE("wrong type inside serving.properties") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["max_idle_time"] = "600s";
    check(doc, "/server/serving_properties/max_idle_time", "expected integer, got string \"600s\"");
  }
  SUBCASE("unknown key") {
    json doc = blog_uniform();
    doc["endpoint"]["instanse_count"] = 3;
    check(doc, "/endpoint", "unknown key 'instanse_count'");
  }
  SUBCASE("unknown serving.properties key: the message lists DJL's keys") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["max_batch_dealy"] = 50;
    check(doc, "/server/serving_properties", "unknown key 'max_batch_dealy'");
    const std::string msg = load_error(write_json(d, "y.json", doc));
    CHECK_MESSAGE(contains(msg, "max_batch_delay"), msg);
    CHECK_MESSAGE(contains(msg, "maxWorkers"), msg);
  }
  SUBCASE("a serving.properties key DJL has but mltwin does not model is also an error") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["option.rolling_batch"] = "auto";
    check(doc, "/server/serving_properties", "unknown key 'option.rolling_batch'");
  }
  SUBCASE("unknown key in a latency names the key") {
    json doc = blog_uniform();
    doc["endpoint"]["overhead"] = {{"constnt", "5ms"}, {"source", "x"}};
    check(doc, "/endpoint/overhead", "unknown key 'constnt'");
  }
  SUBCASE("a latency with two distributions") {
    json doc = blog_uniform();
    doc["endpoint"]["overhead"] = {{"constant", "5ms"}, {"exponential_mean", "5ms"}, {"source", "x"}};
    check(doc, "/endpoint/overhead", "expected exactly one of 'constant', 'uniform', 'exponential_mean', found 2");
  }
  SUBCASE("bad duration") {
    json doc = blog_uniform();
    doc["endpoint"]["s3"]["first_byte"] = {{"constant", "5 parsecs"}, {"source", "x"}};
    check(doc, "/endpoint/s3/first_byte/constant", "expected a duration such as \"100ms\"");
  }
  SUBCASE("bad size") {
    json doc = blog_uniform();
    doc["models"]["copies"]["model"]["resident_size"] = "100Mb";
    check(doc, "/models/copies/model/resident_size", "'100Mb'");
  }
  SUBCASE("out-of-range value") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["batch_size"] = 0;
    check(doc, "/server/serving_properties/batch_size", "expected an integer from 1 to 2147483647, got 0");
  }
  SUBCASE("enum value") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["engine"] = "PyTorch";
    check(doc, "/server/serving_properties/engine", "expected one of \"Python\"; got string \"PyTorch\"");
  }
  SUBCASE("missing required key") {
    json doc = blog_uniform();
    doc["endpoint"].erase("overhead");
    check(doc, "/endpoint", "'overhead'");
  }
  SUBCASE("serving policies: unknown name, unknown argument, wrong type, a value the policy refuses") {
    json doc = blog_uniform();
    doc["policies"]["routing"] = {{"name", "cache_aware"}};
    check(doc, "/policies/routing/name", "unknown routing policy 'cache_aware'; did you mean 'cache-aware'? (known: cache-aware)");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"max_copy", 2}}}};
    check(doc, "/policies/routing/arguments/max_copy",
          "routing policy 'cache-aware' reads no argument 'max_copy'; did you mean 'max_copies'? (it reads "
          "heavy_load_per_worker, max_copies)");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"max_copies", 1.5}}}};
    check(doc, "/policies/routing/arguments/max_copies", "expected an integer, got 1.5");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"max_copies", "2"}}}};
    check(doc, "/policies/routing/arguments/max_copies", "expected an integer, got \"2\"");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"max/copies", 2}}}};
    check(doc, "/policies/routing/arguments/max~1copies", "reads no argument 'max/copies'");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"heavy_load_per_worker", 0}}}};
    check(doc, "/policies/routing/arguments/heavy_load_per_worker", "expected a finite number > 0, got '0'");
    doc["policies"]["routing"] = {{"name", "cache-aware"}, {"arguments", {{"max_copies", json::array()}}}};
    check(doc, "/policies/routing/arguments/max_copies", "expected");
    doc["policies"].erase("routing");
    doc["policies"]["instance_scaling"] = {{"name", "target-tracking"}, {"arguments", {{"scale_in_ratio", 0.5}}}};
    check(doc, "/policies/instance_scaling/arguments/target_value", "required");
    doc["policies"]["instance_scaling"]["arguments"]["target_value"] = 100;
    doc["policies"]["instance_scaling"]["arguments"]["metric"] = "CPUUtilization";
    check(doc, "/policies/instance_scaling/arguments/metric", "SageMakerVariantInvocationsPerInstance only");
  }
  SUBCASE("the serving policy keys of earlier releases name where they moved") {
    json doc = blog_uniform();
    doc["endpoint"]["routing"] = {{"max_copies", 1}, {"source", "x"}};
    check(doc, "/endpoint/routing", "moved: the router is chosen under /policies/routing");
    doc = blog_uniform();
    doc["endpoint"]["autoscaling"] = {{"target_tracking", {{"target_value", 100}}}};
    check(doc, "/endpoint/autoscaling", "/policies/instance_scaling");
    doc = blog_uniform();
    doc["server"]["idle_from_batch_end"] = true;
    check(doc, "/server/idle_from_batch_end", "/policies/autoscaling");
  }
  SUBCASE("unpinned DJL release") {
    json doc = blog_uniform();
    doc["server"]["release"] = "0.26.0";
    check(doc, "/server/release", "DJL Serving 0.23.0, not '0.26.0'");
  }
  SUBCASE("MMS config.properties on a DJL server") {
    json doc = blog_uniform();
    doc["server"]["config_properties"] = {{"job_queue_size", 100}};
    check(doc, "/server/config_properties", "use serving_properties");
  }
  SUBCASE("minWorkers above DJL's default maxWorkers") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["minWorkers"] = 73;
    check(doc, "/server/serving_properties/minWorkers", "exceeds maxWorkers (72, DJL's default");
    check(doc, "/server/serving_properties/minWorkers", "would silently lower minWorkers to 72 (WorkerGroup)");
  }
  SUBCASE("minWorkers above an explicit maxWorkers") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["minWorkers"] = 3;
    doc["server"]["serving_properties"]["maxWorkers"] = 2;
    check(doc, "/server/serving_properties/minWorkers", "minWorkers (3) exceeds maxWorkers (2); DJL Serving 0.23.0");
  }
  SUBCASE("negative maxWorkers") {
    json doc = blog_uniform();
    doc["server"]["serving_properties"]["maxWorkers"] = -1;
    check(doc, "/server/serving_properties/maxWorkers", "expected an integer from 0 to 65536, got -1");
  }
  SUBCASE("instance type not in the catalog") {
    json doc = blog_uniform();
    doc["endpoint"]["instance_type"] = "ml.c5d.19xlarge";
    check(doc, "/endpoint/instance_type", "'ml.c5d.19xlarge' is not in the catalog (");
    check(doc, "/endpoint/instance_type", "; near: ml.c5d.18xlarge");
  }
  SUBCASE("popularity beyond the last model") {
    json doc = blog_uniform();
    doc["traffic"]["locust"]["tasks"][0]["popularity"]["uniform"]["last"] = 1000;
    check(doc, "/traffic/locust/tasks/0/popularity/uniform/last", "the scenario has 1000 models (0..999)");
  }
  SUBCASE("trace traffic without a trace") {
    json doc = blog_uniform();
    doc["traffic"] = {{"trace", {{"time_scale", 1}}}};
    check(doc, "/traffic/trace", "needs a trace");
  }
  SUBCASE("invalid JSON: line:column") {
    const std::string p = d.file("bad.json");
    write_text(p, "{\n  \"kind\": \"inference\",\n  \"name\": ,\n}\n");
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ":3:11: invalid JSON"), msg);
  }
  SUBCASE("an override (merge patch) is validated like the file") {
    io::LoadOptions opts;
    opts.overrides = {{"traffic", {{"locust", {{"users", 0}}}}}};
    const std::string p = write_json(d, "x.json", blog_uniform());
    const std::string msg = load_error(p, opts);
    CHECK_MESSAGE(contains(msg, p + ": /traffic/locust/users: "), msg);
  }
}

TEST_CASE("an override switches a blog scenario to MMS") {
  io::LoadOptions opts;
  opts.overrides = {{"server",
                     {{"kind", "mms"},
                      {"release", "v1.1.9"},
                      {"serving_properties", nullptr},
                      {"config_properties", {{"default_workers_per_model", 4}}}}}};
  const auto s = io::load_inference_scenario(kScenarios + "mme-djl-blog-one-hot.json", opts);
  CHECK(s.inference.server.kind == inf::ServerSpec::Kind::Mms);
  CHECK(s.inference.server.mms_workers_per_model == 4);
  CHECK(s.inference.server.job_queue_size == 100);
  CHECK(s.json["server"]["kind"] == "mms");
}

// ================================================================== Azure Functions adapter

TEST_CASE("Azure adapter on a fixture: rows matched by key, counts and sizes as written") {
  TempDir d;
  const auto t = io::read_azure_functions(write_fixture(d));
  CHECK(t.minutes == 4);
  CHECK(t.total_invocations == 19);
  REQUIRE(t.functions.size() == 3);
  const auto& f1 = t.functions[0];
  CHECK(f1.hash_function == "f1");
  CHECK(f1.hash_owner == "o1");
  CHECK(f1.hash_app == "a1");
  CHECK(f1.per_minute == std::vector<std::uint32_t>{1, 0, 2, 3});
  CHECK(f1.invocations == 6);
  CHECK(f1.inv_line == 2);
  CHECK(f1.run_average_ms == 0);
  CHECK(f1.run_line == 4);
  CHECK(f1.memory_average_mb == 128);
  CHECK(f1.mem_line == 3);
  CHECK(t.functions[1].invocations == 5);
  CHECK(t.functions[1].run_average_ms == 1500);
  CHECK(t.functions[1].run_count == 5);
  CHECK(t.functions[1].run_minimum_ms == 1000);
  CHECK(t.functions[1].run_maximum_ms == 2000);
  CHECK(t.functions[1].memory_average_mb == 300);
  CHECK(t.functions[2].per_minute == std::vector<std::uint32_t>{4, 4, 0, 0});
  CHECK(t.functions[2].run_average_ms == 250);
  CHECK(t.functions[2].memory_average_mb == 64);
}

TEST_CASE("Azure adapter: CRLF line ends and blank lines at the end are accepted") {
  TempDir d;
  auto crlf = [](std::string s) {
    std::string out;
    for (char c : s) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
  };
  const auto t = io::read_azure_functions(write_fixture(d, crlf(kInv) + "\r\n\r\n", kRun + "\n", kMem));
  CHECK(t.total_invocations == 19);
  CHECK(t.functions[2].per_minute.back() == 0);
}

TEST_CASE("the Azure scenario on the fixture: models and per-minute counts by hand") {
  TempDir d;
  write_fixture(d);
  const auto s = io::load_inference_scenario(write_json(d, "azure.json", azure_fixture_scenario()));
  const auto& sc = s.inference;
  REQUIRE(sc.models.size() == 3);
  // f1: Average 0 ms -> the 1 ms floor; 128 MiB; artifact half of it.
  CHECK(sc.models[0].service.base.a.count_ns() == 1 * kMs);
  CHECK(sc.models[0].resident_bytes == 128 * kMiB);
  CHECK(sc.models[0].artifact_bytes == 64 * kMiB);
  CHECK(sc.models[1].service.base.a.count_ns() == 1500 * kMs);
  CHECK(sc.models[1].resident_bytes == 300 * kMiB);
  CHECK(sc.models[1].artifact_bytes == 150 * kMiB);
  CHECK(sc.models[2].service.base.a.count_ns() == 250 * kMs);
  CHECK(sc.models[2].resident_bytes == 64 * kMiB);
  const auto& tr = sc.traffic.trace;
  REQUIRE(tr.counts.size() == 3);
  CHECK(tr.counts[0] == std::vector<std::uint32_t>{1, 0, 2, 3});
  CHECK(tr.first_minute == 1);
  CHECK(tr.minutes == 2);
  REQUIRE(s.inputs.size() == 4);  // the instance catalog, then the trace's three files
  CHECK(s.inputs[2].role == "azure_functions_durations");
  CHECK(s.inputs[2].as_written == "trace/1000_run.csv");
  CHECK(s.inputs[2].path == (d.path() / "trace" / "1000_run.csv").string());
  SUBCASE("minutes past the end of the trace") {
    json doc = azure_fixture_scenario();
    doc["traffic"]["trace"]["minutes"] = 4;
    const std::string p = write_json(d, "late.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ": /traffic/trace/minutes: minutes 1..4 run past the trace's 4 minutes"), msg);
  }
  SUBCASE("an exponential service time without a floor meets f1's Average of 0 ms") {
    json doc = azure_fixture_scenario();
    doc["models"]["azure_functions"]["service_time"].erase("minimum");
    const std::string p = write_json(d, "nofloor.json", doc);
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, p + ": /models/azure_functions/service_time/minimum: "), msg);
    CHECK_MESSAGE(contains(msg, "1000_run.csv:4"), msg);
  }
  SUBCASE("a constant distribution and a fixed artifact size") {
    json doc = azure_fixture_scenario();
    doc["models"]["azure_functions"]["service_time"]["distribution"] = "constant";
    doc["models"]["azure_functions"]["artifact_size"] = {{"fixed", "10Mi"}, {"source", "test"}};
    const auto s2 = io::load_inference_scenario(write_json(d, "const.json", doc));
    CHECK(s2.inference.models[1].service.base.kind == models::LatencySpec::Kind::Constant);
    CHECK(s2.inference.models[2].artifact_bytes == 10 * kMiB);
  }
}

TEST_CASE("Azure adapter errors name file:line, the column and what was expected") {
  TempDir d;
  const std::string inv = (d.path() / "trace" / "1000_inv.csv").string();
  const std::string run = (d.path() / "trace" / "1000_run.csv").string();
  const std::string mem = (d.path() / "trace" / "1000_mem.csv").string();
  SUBCASE("a count that is not a number") {
    const std::string msg = azure_error(write_fixture(d,
        "HashFunction,HashOwner,HashApp,minute_1,minute_2,minute_3,minute_4\n"
        "f1,o1,a1,1,0,2,3\n"
        "f2,o1,a2,0,x,0,5\n"
        "f3,o2,a3,4,4,0,0\n"));
    CHECK_MESSAGE(contains(msg, inv + ":3: minute_2: expected a non-negative integer, got 'x'"), msg);
  }
  SUBCASE("a negative count") {
    const std::string msg = azure_error(write_fixture(d, kInv + "f4,o1,a1,1,-2,0,0\n"));
    CHECK_MESSAGE(contains(msg, inv + ":5: minute_2: expected a non-negative integer, got '-2'"), msg);
  }
  SUBCASE("a row with too few columns") {
    const std::string msg = azure_error(write_fixture(d, kInv + "f4,o1,a1,1,2\n"));
    CHECK_MESSAGE(contains(msg, inv + ":5: expected 7 comma-separated columns as in the header, got 5"), msg);
  }
  SUBCASE("a bad run-time average") {
    const std::string msg = azure_error(write_fixture(d, kInv, kRun + "o9,a9,f9,fast,1,1.0,1.0,1\n"));
    CHECK_MESSAGE(contains(msg, run + ":6: Average: expected a number >= 0, got 'fast'"), msg);
  }
  SUBCASE("a function without a run row") {
    const std::string msg = azure_error(write_fixture(d, kInv,
        "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum\n"
        "o2,a3,f3,250,8,100.0,400.0\n"
        "o1,a1,f1,0,6,0.0,1.0\n"));
    CHECK_MESSAGE(contains(msg, run + ": no row for function HashFunction=f2"), msg);
    CHECK_MESSAGE(contains(msg, inv + ":3"), msg);
  }
  SUBCASE("an app without a memory row") {
    const std::string msg = azure_error(write_fixture(d, kInv, kRun,
        "HashOwner,HashApp,SampleCount,AverageAllocatedMb\n"
        "o1,a2,10,300\n"
        "o1,a1,5,128\n"));
    CHECK_MESSAGE(contains(msg, mem + ": no row for app HashApp=a3"), msg);
  }
  SUBCASE("inv.csv's header in run.csv's column order") {
    const std::string msg = azure_error(write_fixture(d,
        "HashOwner,HashApp,HashFunction,minute_1,minute_2,minute_3,minute_4\n"
        "o1,a1,f1,1,0,2,3\n"));
    CHECK_MESSAGE(contains(msg, inv + ":1: header column 1: expected 'HashFunction', got 'HashOwner'"), msg);
  }
  SUBCASE("a memory file without AverageAllocatedMb") {
    const std::string msg = azure_error(write_fixture(d, kInv, kRun, "HashOwner,HashApp,SampleCount\no1,a1,5\n"));
    CHECK_MESSAGE(contains(msg, mem + ":1: header has no column 'AverageAllocatedMb'"), msg);
  }
  SUBCASE("a duplicate function") {
    const std::string msg = azure_error(write_fixture(d, kInv + "f1,o1,a1,0,0,0,1\n"));
    CHECK_MESSAGE(contains(msg, inv + ":5: HashFunction: function 'f1' repeats line 2"), msg);
  }
  SUBCASE("a blank line inside the data") {
    const std::string msg = azure_error(write_fixture(d, "HashFunction,HashOwner,HashApp,minute_1\nf1,o1,a1,1\n\nf2,o1,a2,1\n"));
    CHECK_MESSAGE(contains(msg, inv + ":3: blank line before more data"), msg);
  }
  SUBCASE("a missing trace file, through a scenario") {
    write_fixture(d);
    fs::remove(run);
    const std::string p = write_json(d, "azure.json", azure_fixture_scenario());
    const std::string msg = load_error(p);
    CHECK_MESSAGE(contains(msg, run + ": cannot open the Azure Functions trace durations"), msg);
  }
  SUBCASE("a missing trace folder under ${MLTWIN_DATA}") {
    json doc = azure_fixture_scenario();
    doc["models"]["azure_functions"]["trace"] = "${MLTWIN_DATA}/inference/nowhere";
    io::LoadOptions opts;
    opts.data_dir = d.path().string();
    const std::string msg = load_error(write_json(d, "azure.json", doc), opts);
    CHECK_MESSAGE(contains(msg, (d.path() / "inference" / "nowhere" / "1000_inv.csv").string() + ": cannot open"), msg);
  }
}

TEST_CASE("Azure adapter on the real trace: 1,000 functions, 1,440 minutes, 608,228 invocations") {
  std::string dir;
  try {
    dir = io::resolve_data_dir("", kScenarios);
  } catch (const std::exception& e) {
    FAIL("the data folder is missing (this test needs ../shared/data beside the checkout, or MLTWIN_DATA): "
         << std::string(e.what()));
  }
  const auto t = io::read_azure_functions(dir + "/inference/azure-functions-2019-1k");
  CHECK(t.functions.size() == 1000);
  CHECK(t.minutes == 1440);
  CHECK(t.total_invocations == 608'228);
  // The first data row of each file (the files happen to share their order).
  const auto& f0 = t.functions[0];
  CHECK(f0.hash_function.rfind("1779fd3337dd353e", 0) == 0);
  CHECK(f0.invocations == 481);
  CHECK(f0.per_minute[0] == 1);
  CHECK(f0.per_minute[3] == 1);
  CHECK(f0.run_average_ms == 224);
  CHECK(f0.memory_average_mb == 188);
  std::uint64_t top = 0;
  for (const auto& f : t.functions) {
    CHECK(f.run_line >= 2);
    CHECK(f.mem_line >= 2);
    top = std::max(top, f.invocations);
  }
  CHECK(top == 42'994);
  CHECK(t.functions[999].invocations == 288);
}

TEST_CASE("a SingleModel endpoint: load_models by name or ALL, and the errors name their JSON path") {
  const std::string example = std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/single-model-djl.json";
  const json base = read_json(example);
  const io::LoadedInferenceScenario ok = io::load_inference_scenario(example);
  CHECK(ok.inference.endpoint.mode == inf::EndpointSpec::Mode::SingleModel);
  CHECK(ok.inference.server.load_models == std::vector<inf::ModelId>{0, 1});  // resnet, bert
  TempDir d;
  {
    json doc = base;
    doc["server"]["load_models"] = "ALL";
    const auto all = io::load_inference_scenario(write_json(d, "all.json", doc));
    CHECK(all.inference.server.load_models == std::vector<inf::ModelId>{0, 1, 2});
  }
  {
    json doc = base;
    doc["server"]["load_models"] = json::array({"bert", "gpt"});
    const std::string e = load_error(write_json(d, "unknown.json", doc));
    CHECK(contains(e, "/server/load_models/1"));
    CHECK(contains(e, "no model 'gpt'"));
  }
  {
    json doc = base;
    doc["server"]["load_models"] = json::array({"bert", "bert"});
    CHECK(contains(load_error(write_json(d, "twice.json", doc)), "/server/load_models/1"));
  }
  {
    // DJL Serving 0.23.0 and MMS v1.1.9 test "ALL".equalsIgnoreCase(loadModels)
    // (ModelServer.initModelStore): "all" and "All" load every model, as "ALL".
    for (const char* spelling : {"all", "All"}) {
      json doc = base;
      doc["server"]["load_models"] = spelling;
      const auto all = io::load_inference_scenario(write_json(d, "lower.json", doc));
      CHECK(all.inference.server.load_models == std::vector<inf::ModelId>{0, 1, 2});
    }
  }
  {
    // An empty list: the loader's own message at the path, not the schema's oneOf.
    json doc = base;
    doc["server"]["load_models"] = json::array();
    const std::string e = load_error(write_json(d, "empty.json", doc));
    CHECK(contains(e, "empty.json"));
    CHECK(contains(e, "/server/load_models: lists no model: give model names or \"ALL\""));
    CHECK_FALSE(contains(e, "const"));
  }
  {
    // Another string: says how DJL/MMS spell it.
    json doc = base;
    doc["server"]["load_models"] = "resnet";
    const std::string e = load_error(write_json(d, "string.json", doc));
    CHECK(contains(e, "string.json"));
    CHECK(contains(e, "/server/load_models: expected \"ALL\""));
    CHECK(contains(e, "spell it \"ALL\""));
    CHECK(contains(e, "[\"resnet\"]"));
    CHECK_FALSE(contains(e, "const"));
  }
  {
    json doc = base;
    doc["server"]["load_models"] = "none";
    const std::string e = load_error(write_json(d, "none.json", doc));
    CHECK(contains(e, "/server/load_models: \"none\" registers no model at start"));
  }
  {
    json doc = base;
    doc["server"].erase("load_models");
    CHECK(contains(load_error(write_json(d, "missing.json", doc)), ": /server: "));
  }
  {
    json doc = base;
    doc["endpoint"].erase("mode");  // a multi-model endpoint loads on demand: no load_models
    CHECK(contains(load_error(write_json(d, "mme.json", doc)), "/server/load_models"));
  }
  {
    json doc = base;
    doc["endpoint"]["model_cache"] = "Enabled";
    CHECK(contains(load_error(write_json(d, "cache.json", doc)), "/endpoint/model_cache"));
  }
  {
    // SageMaker's 360 s limit on a model's download and load is a multi-model endpoint's
    // (Developer Guide, "Invoke a Multi-Model Endpoint"): refused on a SingleModel one; on a
    // multi-model one 360 s unless the scenario says otherwise.
    json doc = base;
    doc["endpoint"]["model_load_limit_s"] = 600;
    const std::string e = load_error(write_json(d, "limit.json", doc));
    CHECK(contains(e, "limit.json"));
    CHECK(contains(e, "/endpoint/model_load_limit_s"));
    doc["endpoint"].erase("mode");
    doc["server"].erase("load_models");
    CHECK(io::load_inference_scenario(write_json(d, "mme-limit.json", doc)).inference.endpoint.model_load_limit ==
          core::Duration::s(600));
    doc["endpoint"].erase("model_load_limit_s");
    CHECK(io::load_inference_scenario(write_json(d, "mme-default.json", doc)).inference.endpoint.model_load_limit ==
          core::Duration::s(360));
    doc["endpoint"]["model_load_limit_s"] = 0;
    CHECK(contains(load_error(write_json(d, "zero.json", doc)), "/endpoint/model_load_limit_s"));
  }
  {
    // ml.c5.xlarge: 8 GiB less 1 GiB reserved = 7 GiB for models. resnet 2 GiB + bert 4 GiB
    // fit (6 GiB); with minWorkers 2 they need 12 GiB: refused, naming the list.
    json doc = base;
    doc["server"]["serving_properties"]["minWorkers"] = 2;
    const std::string e = load_error(write_json(d, "memory.json", doc));
    CHECK(contains(e, "/server/load_models"));
    CHECK(contains(e, std::to_string(12ULL << 30) + " bytes"));
    CHECK(contains(e, std::to_string(7ULL << 30)));
  }
  {
    // The model store (3 x 1 GB) on a 2 GiB (2,147,483,648-byte) volume does not fit.
    json doc = base;
    doc["endpoint"]["ml_storage_volume"]["size"] = "2Gi";
    CHECK(contains(load_error(write_json(d, "disk.json", doc)), "/endpoint/ml_storage_volume/size"));
  }
}

// The run summary's ModelCacheHit: a multi-model endpoint's ratio with 4 decimals; NaN (a
// SingleModel endpoint, for which CloudWatch publishes no ModelCacheHit) prints no figure.
TEST_CASE("inference summary: ModelCacheHit printed for a multi-model endpoint, not for a SingleModel one") {
  io::InferenceSummary s;
  s.scenario = "t";
  s.cache_hit_ratio = 0.6726;
  std::ostringstream mme;
  io::print_inference_summary(mme, s);
  CHECK(contains(mme.str(), "ModelCacheHit: 0.6726\n"));
  s.cache_hit_ratio = std::nan("");
  std::ostringstream single;
  io::print_inference_summary(single, s);
  CHECK(contains(single.str(), "ModelCacheHit: not published for SingleModel endpoints\n"));
  CHECK_FALSE(contains(single.str(), "nan"));
}

// The SLO verdicts count what their metrics count: ModelLatency of 200s, 5xx = 503 + 507. When
// requests failed with 424 or 429, a verdict names them, so that "met" does not read as "no
// failures" (the Azure functions scenario: 5xx "met" while 2.9 % timed out).
TEST_CASE("inference summary: an SLO verdict names the 424s and 429s it does not count") {
  io::InferenceSummary s;
  s.scenario = "t";
  s.finished = true;
  s.p99_slo_ms = 60'000;
  s.max_5xx_ratio = 0.01;
  s.model_latency.p99_us = 1'000'000;  // 1 s: met
  // 1,000 answered: 960 served, 5 rejected 503, 29 timed out 424, 6 not ready 429.
  s.stats.requests = 1000;
  s.stats.served = 960;
  s.stats.rejected_503 = 5;
  s.stats.timed_out_424 = 29;
  s.stats.not_ready_429 = 6;
  std::ostringstream os;
  io::print_inference_summary(os, s);
  // 5xx share 5 / 1000 = 0.5 % <= 1 %: met; 29 + 6 = 35 = 3.5 % of the 1,000 answered.
  CHECK_MESSAGE(contains(os.str(), "SLO 5xx share <= 1.0000 %: met (5xx only; not counted: 35 requests (3.5000 % of those "
                                   "answered) failed with 424 ModelError or 429 ModelNotReadyException)\n"),
                os.str());
  CHECK_MESSAGE(contains(os.str(), "SLO p99 ModelLatency <= 60000 ms: met (1000.00 ms, 200s only; not counted: 35 requests"),
                os.str());
  // None failed so: the verdicts as before, with no note.
  s.stats.served = 995;
  s.stats.timed_out_424 = s.stats.not_ready_429 = 0;
  std::ostringstream clean;
  io::print_inference_summary(clean, s);
  CHECK_MESSAGE(contains(clean.str(), "SLO 5xx share <= 1.0000 %: met\n"), clean.str());
  CHECK_FALSE(contains(clean.str(), "not counted"));
}
