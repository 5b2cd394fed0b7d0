// The instance catalog that ships with mltwin (catalog/aws-instance-types.json, mltwin/io/catalog.hpp):
// every row's figures against each other and against the published figures they cite, the
// loader's errors (file and JSON path), where the catalog is found, a scenario's rows over it,
// the unknown-type error, the scenario format version and `migrate` (version 1 -> 2).
#include <doctest/doctest.h>
#include <stdlib.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "mltwin/io/catalog.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/scenario.hpp"
#include "temp_dir.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using nlohmann::json;
using namespace mltwin;

namespace {

const std::string kSrc = MLTWIN_SOURCE_DIR;
const std::string kShipped = kSrc + "/catalog/aws-instance-types.json";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

json shipped_json() { return json::parse(read_text(kShipped)); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  FAIL("expected io::ScenarioError");
  return {};
}

// A one-row catalog file of `row`, in `dir`.
std::string catalog_file(const test::TempDir& dir, const json& rows, const std::string& name = "catalog.json") {
  const std::string p = dir.file(name);
  write_text(p, json{{"instance_types", rows}}.dump(2));
  return p;
}

// The shipped trn1.32xlarge row, as JSON.
json trn1_row() {
  const json doc = shipped_json();
  for (const auto& r : doc["instance_types"])
    if (r["name"] == "trn1.32xlarge") return r;
  FAIL("no trn1.32xlarge in the shipped catalog");
  return {};
}

json scenario_json(const std::string& rel) { return json::parse(read_text(kSrc + "/" + rel)); }

std::string write_json(const test::TempDir& dir, const std::string& name, const json& doc) {
  const std::string p = dir.file(name);
  write_text(p, doc.dump(2));
  return p;
}

}  // namespace

TEST_CASE("the shipped catalog: every row sourced, its figures consistent as the device plugins advertise them") {
  const json doc = shipped_json();
  const models::Catalog cat = io::read_catalog(kShipped);
  REQUIRE(cat.types.size() == doc["instance_types"].size());
  std::set<std::string> names;
  for (const json& r : doc["instance_types"]) {
    const std::string name = r["name"];
    CAPTURE(name);
    CHECK(names.insert(name).second);
    // A source that says where the figures come from, and a price with its region, or an
    // assumption that says why there is none.
    CHECK(r["source"].get<std::string>().size() > 40);
    if (r.contains("on_demand_usd_per_hour")) {
      CHECK(r["price_region"] == "us-east-1");
      CHECK(r["on_demand_usd_per_hour"].get<double>() > 0);
    } else {
      REQUIRE(r.contains("assumptions"));
      CHECK(contains(r["assumptions"], "price"));
    }
    const bool sagemaker = name.rfind("ml.", 0) == 0;
    const json& ext = r["extended_resources"];
    const int efa = r.value("efa_interfaces", 0);
    if (sagemaker) {
      // A SageMaker host is no Kubernetes node: nothing advertised, no kubelet maxPods.
      CHECK(ext.empty());
      CHECK(!r.contains("max_pods"));
    } else {
      // Every EC2 type has the EKS AMI's maxPods; what it advertises follows its hardware.
      CHECK(r.contains("max_pods"));
      CHECK(ext.value("vpc.amazonaws.com/efa", 0) == efa);
    }
    if (r.contains("accelerator")) {
      const json& a = r["accelerator"];
      const int devices = a["devices"];
      if (a["kind"] == "aws-neuron") {
        const int cores = a["cores_per_device"];
        if (!sagemaker) {
          CHECK(ext["aws.amazon.com/neuron"] == devices);
          CHECK(ext["aws.amazon.com/neurondevice"] == devices);
          CHECK(ext["aws.amazon.com/neuroncore"] == devices * cores);
        }
        // 32 GiB of HBM per Trainium / Inferentia2 chip, 96 GiB per Trainium2 chip (Neuron
        // architecture pages).
        const double per_chip = a["name"] == "AWS Trainium2" ? 96 : 32;
        CHECK(a["memory_gib"].get<double>() == doctest::Approx(per_chip * devices));
      } else {
        if (!sagemaker) CHECK(ext["nvidia.com/gpu"] == devices);
        CHECK(!ext.contains("aws.amazon.com/neuron"));
      }
    } else {
      CHECK(!ext.contains("aws.amazon.com/neuron"));
      CHECK(!ext.contains("nvidia.com/gpu"));
    }
    if (r.contains("network_baseline_gbps")) CHECK(r["network_baseline_gbps"].get<double>() < r["network_gbps"].get<double>());
  }
  // The types issue 15 asks for are all there.
  for (const char* n : {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "inf2.xlarge", "inf2.8xlarge", "inf2.24xlarge",
                        "inf2.48xlarge", "p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.8xlarge", "g5.12xlarge",
                        "g5.48xlarge", "ml.c5.xlarge", "ml.c5.18xlarge", "ml.c5d.18xlarge", "ml.g5.xlarge", "ml.inf2.xlarge", "ml.m5.xlarge"})
    CHECK_MESSAGE(cat.find(n) != nullptr, n);
  for (const char* fam : {"m5", "m6i", "c5", "c6i", "r5"})
    for (const char* size : {"large", "xlarge", "2xlarge", "4xlarge"})
      CHECK_MESSAGE(cat.find(std::string(fam) + "." + size) != nullptr, fam << "." << size);
}

TEST_CASE("the shipped catalog: published figures") {
  const models::Catalog cat = io::read_catalog(kShipped);
  // trn1.32xlarge: 16 Trainium x 2 NeuronCore-v2, 128 vCPU, 512 GiB (Neuron 'Trn1/Trn1n
  // Architecture'), 8 EFA (one per network card), maxPods 247 = 5 ENIs x (50 - 1) + 2
  // (eni-max-pods.txt), $21.50/h in us-east-1 — the figures the golden scenarios ran with.
  const models::InstanceType& t = *cat.find("trn1.32xlarge");
  CHECK(t.trainium_chips == 16);
  CHECK(t.neuroncores_per_chip == 2);
  CHECK(t.neuroncores() == 32);
  CHECK(t.vcpu == 128);
  CHECK(t.memory_bytes() == 512ULL << 30);
  CHECK(t.efa_interfaces == 8);
  CHECK(t.network_gbps == 800);
  CHECK(t.max_pods == 5 * (50 - 1) + 2);
  CHECK(t.on_demand_usd_per_hour == 21.5);
  CHECK(t.extended_resource("aws.amazon.com/neuroncore") == 32);
  CHECK(t.extended_resource("vpc.amazonaws.com/efa") == 8);
  CHECK(t.extended_resource("nvidia.com/gpu") == 0);
  CHECK(t.instance_storage_bytes() == 4 * 1900 * 1'000'000'000ULL);
  // Trainium2: 8 physical NeuronCore-v3 per chip, grouped in pairs by the default LNC=2: 4
  // logical cores per chip, 64 on the instance ('64 ranks per instance').
  const models::InstanceType& t2 = *cat.find("trn2.48xlarge");
  CHECK(t2.trainium_chips == 16);
  CHECK(t2.physical_neuroncores_per_chip == 8);
  CHECK(t2.neuroncores_per_chip == 8 / 2);
  CHECK(t2.extended_resource("aws.amazon.com/neuroncore") == 64);
  CHECK(!t2.has_on_demand_price);
  CHECK(contains(t2.assumptions, "LNC"));
  // inf2.48xlarge: 12 Inferentia2 x 2 NeuronCore-v2 = 24 (Neuron 'Inf2 Architecture').
  CHECK(cat.find("inf2.48xlarge")->extended_resource("aws.amazon.com/neuroncore") == 24);
  // p5.48xlarge: 8 H100, 32 EFA (up to 32 network cards, 3,200 Gbps).
  const models::InstanceType& p5 = *cat.find("p5.48xlarge");
  CHECK(p5.nvidia_gpus == 8);
  CHECK(p5.extended_resource("nvidia.com/gpu") == 8);
  CHECK(p5.efa_interfaces == 32);
  CHECK(p5.network_gbps == 3200);
  // A CPU system node: nothing but cpu and memory. m5.large: 2 vCPU, 8 GiB, 'up to 10 Gigabit'
  // (0.75 baseline), maxPods 3 ENIs x (10 - 1) + 2 = 29.
  const models::InstanceType& m5 = *cat.find("m5.large");
  CHECK(m5.vcpu == 2);
  CHECK(m5.memory_gib == 8);
  CHECK(m5.extended_resources.empty());
  CHECK(m5.accelerator.empty());
  CHECK(m5.network_baseline_gbps == 0.75);
  CHECK(m5.max_pods == 3 * (10 - 1) + 2);
  // The SageMaker type of the blog's endpoint: c5d.18xlarge's 72 vCPU, 144 GiB, 2 x 900 GB NVMe.
  const models::InstanceType& sm = *cat.find("ml.c5d.18xlarge");
  CHECK(sm.vcpu == 72);
  CHECK(sm.memory_bytes() == 144ULL << 30);
  CHECK(sm.instance_storage_bytes() == 1'800'000'000'000ULL);
  CHECK(sm.on_demand_usd_per_hour == 4.147);
}

TEST_CASE("catalog errors name the file and the JSON path") {
  test::TempDir d;
  const auto load = [](const std::string& p) { return error_of([&] { (void)io::read_catalog(p); }); };
  SUBCASE("NeuronCores that do not follow from the devices") {
    json r = trn1_row();
    r["extended_resources"]["aws.amazon.com/neuroncore"] = 30;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(load(p) == p + ": /instance_types/0/extended_resources/aws.amazon.com~1neuroncore: 30 NeuronCores advertised, but the "
                         "accelerator has 16 devices x 2 cores_per_device (32)");
  }
  SUBCASE("devices advertised under another count") {
    json r = trn1_row();
    r["extended_resources"]["aws.amazon.com/neurondevice"] = 8;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(contains(load(p), p + ": /instance_types/0/extended_resources/aws.amazon.com~1neurondevice: 8 Neuron devices advertised, "
                                "but the accelerator has 16 devices"));
  }
  SUBCASE("EFA devices against the interfaces") {
    json r = trn1_row();
    r["efa_interfaces"] = 4;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(contains(load(p), p + ": /instance_types/0/extended_resources/vpc.amazonaws.com~1efa: 8 EFA devices advertised, but "
                                "efa_interfaces is 4"));
  }
  SUBCASE("a GPU on a type without one") {
    json r = trn1_row();
    r["extended_resources"]["nvidia.com/gpu"] = 1;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(load(p) == p + ": /instance_types/0/extended_resources/nvidia.com~1gpu: advertised, but the row has no nvidia-gpu accelerator");
  }
  SUBCASE("a name given twice") {
    const std::string p = catalog_file(d, json::array({trn1_row(), trn1_row()}));
    CHECK(load(p) == p + ": /instance_types/1/name: duplicate instance type 'trn1.32xlarge' (also /instance_types/0)");
  }
  SUBCASE("a wrong type") {
    json r = trn1_row();
    r["vcpu"] = "128";
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(load(p).rfind(p + ": /instance_types/0/vcpu: expected integer, got string \"128\"", 0) == 0);
  }
  SUBCASE("an unknown key") {
    json r = trn1_row();
    r["vcpus"] = 128;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(contains(load(p), p + ": /instance_types/0: unknown key 'vcpus'"));
  }
  SUBCASE("a price without its region") {
    json r = trn1_row();
    r.erase("price_region");
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(load(p) == p + ": /instance_types/0: on_demand_usd_per_hour needs its price_region (e.g. \"us-east-1\")");
  }
  SUBCASE("a name that is no label value") {
    json r = trn1_row();
    r["name"] = "trn1 32xlarge";
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(contains(load(p), p + ": /instance_types/0/name: instance type "));
  }
  SUBCASE("cores per device on a GPU") {
    json r;
    const json doc = shipped_json();
    for (const auto& x : doc["instance_types"])
      if (x["name"] == "g5.xlarge") r = x;
    r["accelerator"]["cores_per_device"] = 2;
    const std::string p = catalog_file(d, json::array({r}));
    CHECK(contains(load(p), p + ": /instance_types/0/accelerator/cores_per_device: applies to aws-neuron accelerators"));
  }
  SUBCASE("invalid JSON, at its line and column") {
    const std::string p = d.file("bad.json");
    write_text(p, "{\"instance_types\": [\n  {\"name\": }\n]}");
    CHECK(load(p).rfind(p + ":2:12: invalid JSON", 0) == 0);
  }
}

TEST_CASE("where the catalog is found") {
  test::TempDir d;
  // Without --catalog or MLTWIN_CATALOG, the build tree's binary reads the source tree's copy;
  // the search order is --catalog, MLTWIN_CATALOG, beside the binary, source tree, prefix.
  ::unsetenv(io::kCatalogEnv);
  CHECK(io::find_catalog() == kShipped);
  const auto cands = io::catalog_candidates();
  REQUIRE(cands.size() == 3);
  CHECK(cands[0].how == "installed beside the binary");
  CHECK(contains(cands[0].path, "share/mltwin/aws-instance-types.json"));
  CHECK(cands[1].path == kShipped);
  CHECK(cands[2].how == "install prefix");
  // --catalog wins; a file that is not there is an error, not skipped.
  const std::string mine = catalog_file(d, json::array({trn1_row()}));
  CHECK(io::find_catalog(mine) == mine);
  CHECK(contains(error_of([&] { (void)io::find_catalog(d.file("none.json")); }), "--catalog names '" + d.file("none.json") + "'"));
  // MLTWIN_CATALOG, when set, is used (and a missing file named there is an error).
  ::setenv(io::kCatalogEnv, mine.c_str(), 1);
  CHECK(io::find_catalog() == mine);
  ::setenv(io::kCatalogEnv, d.file("none.json").c_str(), 1);
  CHECK(contains(error_of([] { (void)io::find_catalog(); }), "MLTWIN_CATALOG names '"));
  ::unsetenv(io::kCatalogEnv);
}

TEST_CASE("a scenario's rows add to the shipped catalog or replace its row") {
  test::TempDir d;
  const std::size_t shipped = io::read_catalog(kShipped).types.size();
  json doc = scenario_json("tests/scenarios/tiny-gang.json");
  json over = trn1_row();
  over["on_demand_usd_per_hour"] = 30.0;  // the same type at another price
  over["source"] = "test: a negotiated price";
  json added = trn1_row();
  added["name"] = "trn1.test";
  added["vcpu"] = 64;
  doc["catalog"]["instance_types"] = json::array({over, added});
  doc["cluster"]["node_groups"][0]["instance_type"] = "trn1.test";
  const io::LoadedScenario sc = io::load_scenario(write_json(d, "s.json", doc));
  const models::Catalog& cat = sc.training.catalog;
  CHECK(cat.types.size() == shipped + 1);  // one replaced, one added
  CHECK(cat.find("trn1.32xlarge")->on_demand_usd_per_hour == 30.0);
  CHECK(cat.find("trn1.32xlarge")->source == "test: a negotiated price");
  CHECK(cat.find("trn1.test")->vcpu == 64);
  CHECK(cat.find("trn1n.32xlarge")->on_demand_usd_per_hour == 24.78);  // untouched
  // The catalog is an input of the run, recorded by its file name.
  bool recorded = false;
  for (const auto& in : sc.inputs)
    if (in.role == "instance_catalog") recorded = in.as_written == "aws-instance-types.json" && in.path == kShipped;
  CHECK(recorded);
  CHECK(sc.catalog_path == kShipped);

  SUBCASE("a scenario row in error, at its path in the scenario") {
    json bad = doc;
    bad["catalog"]["instance_types"][1]["extended_resources"]["aws.amazon.com/neuron"] = 4;
    const std::string p = write_json(d, "bad.json", bad);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/1/extended_resources/aws.amazon.com~1neuron: 4 Neuron devices advertised, but the accelerator "
              "has 16 devices (the Neuron device plugin advertises one per device)");
  }
  SUBCASE("a scenario row's schema error") {
    json bad = doc;
    bad["catalog"]["instance_types"][0]["memory_gib"] = -1;
    const std::string p = write_json(d, "bad.json", bad);
    CHECK(contains(error_of([&] { (void)io::load_scenario(p); }), p + ": /catalog/instance_types/0/memory_gib: "));
  }
  SUBCASE("a name twice in the scenario") {
    json bad = doc;
    bad["catalog"]["instance_types"][1]["name"] = "trn1.32xlarge";
    const std::string p = write_json(d, "bad.json", bad);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/1/name: duplicate instance type 'trn1.32xlarge' (also /catalog/instance_types/0)");
  }
  SUBCASE("a node group on a type without a price") {
    json bad = scenario_json("tests/scenarios/tiny-gang.json");
    bad["cluster"]["node_groups"][0]["instance_type"] = "trn2.48xlarge";
    const std::string p = write_json(d, "bad.json", bad);
    const std::string msg = error_of([&] { (void)io::load_scenario(p); });
    CHECK_MESSAGE(msg.rfind(p + ": /cluster/node_groups/0/instance_type: instance type 'trn2.48xlarge' has no on-demand price in the "
                                "catalog (" + kShipped + ": /instance_types/",
                            0) == 0,
                  msg);
    CHECK_MESSAGE(contains(msg, "give the row with on_demand_usd_per_hour and price_region under /catalog/instance_types"), msg);
  }
}

TEST_CASE("a scenario row that overrides part of a shipped row, or lists Kubernetes' own resources as extended ones, says so") {
  test::TempDir d;
  json doc = scenario_json("tests/scenarios/tiny-gang.json");
  // The shipped trn1.32xlarge's index, to name the row to copy.
  const json shipped = shipped_json();
  std::size_t index = 0;
  while (shipped["instance_types"][index]["name"] != "trn1.32xlarge") ++index;
  SUBCASE("only a Spot price for a shipped type: the row replaces the shipped one whole, the keys it lacks, the row to copy") {
    doc["catalog"]["instance_types"] = json::array(
        {{{"name", "trn1.32xlarge"}, {"spot", {{"usd_per_hour", 8.5}, {"region", "us-east-1"}, {"date", "2026-01-05"}, {"source", "t"}}}}});
    const std::string p = write_json(d, "s.json", doc);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/0: this row lacks vcpu, memory_gib, extended_resources, network_gbps and source: a scenario "
              "row replaces the shipped row 'trn1.32xlarge' whole (it is not merged onto it), so it gives every key a row needs. Copy "
              "the shipped row (" + kShipped + ": /instance_types/" + std::to_string(index) + ") and change what differs");
  }
  SUBCASE("a new type lacking keys: the keys every row gives") {
    json row = trn1_row();
    row["name"] = "trn1.test";
    row.erase("source");
    doc["catalog"]["instance_types"] = json::array({row});
    const std::string p = write_json(d, "s.json", doc);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/0: this row lacks source: a row of the scenario's own instance type 'trn1.test' gives name, "
              "vcpu, memory_gib, extended_resources, network_gbps and source (the catalog's row form, docs/catalog.md)");
  }
  SUBCASE("ephemeral-storage under extended_resources: it belongs in the node group's capacity") {
    json row = trn1_row();
    row["extended_resources"]["ephemeral-storage"] = 100;
    doc["catalog"]["instance_types"] = json::array({row});
    const std::string p = write_json(d, "s.json", doc);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/0/extended_resources/ephemeral-storage: 'ephemeral-storage' is not an extended resource "
              "(those a device plugin advertises, named domain/name): a node's ephemeral-storage and hugepages-* come from its node "
              "group, not its instance type: give them in the node group's capacity (/cluster/node_groups/N/capacity, e.g. "
              "{\"ephemeral-storage\": \"80Gi\"}) or eksctl's volumeSize (docs/resources.md)");
  }
  SUBCASE("cpu under extended_resources: the row's vcpu") {
    json row = trn1_row();
    row["extended_resources"]["cpu"] = 128;
    doc["catalog"]["instance_types"] = json::array({row});
    const std::string p = write_json(d, "s.json", doc);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /catalog/instance_types/0/extended_resources/cpu: 'cpu' is not an extended resource (those a device plugin "
              "advertises, named domain/name): the row gives it as vcpu");
  }
}

TEST_CASE("an unknown instance type names the catalog searched and near names") {
  test::TempDir d;
  json doc = scenario_json("tests/scenarios/tiny-gang.json");
  doc["cluster"]["node_groups"][0]["instance_type"] = "trn1.32xlage";
  const std::string p = write_json(d, "s.json", doc);
  CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
        p + ": /cluster/node_groups/0/instance_type: 'trn1.32xlage' is not in the catalog (" + kShipped +
            "; the scenario adds no rows under /catalog/instance_types); near: trn1.32xlarge, trn1.2xlarge, trn1n.32xlarge");
  const models::Catalog cat = io::read_catalog(kShipped);
  CHECK(io::near_names(cat, "m5.xlage") == std::vector<std::string>{"m5.xlarge", "c5.xlarge", "g5.xlarge"});
  CHECK(io::near_names(cat, "zzzzzzzzzzzzzzzzzzz").empty());
}

TEST_CASE("instance-type kinds: an EKS node group launches EC2 types, a SageMaker endpoint ml.* types") {
  test::TempDir d;
  SUBCASE("a node group of a SageMaker type") {
    // ml.c5.xlarge is a row of the shipped catalog (with a price): only its kind is wrong.
    json doc = scenario_json("tests/scenarios/tiny-gang.json");
    doc["cluster"]["node_groups"][0]["instance_type"] = "ml.c5.xlarge";
    const std::string p = write_json(d, "s.json", doc);
    CHECK(error_of([&] { (void)io::load_scenario(p); }) ==
          p + ": /cluster/node_groups/0/instance_type: 'ml.c5.xlarge' is a SageMaker hosting instance type (ml.*), which a "
              "SageMaker endpoint runs; an EKS node group launches EC2 instance types (no ml. prefix, e.g. 'c5.xlarge')");
  }
  SUBCASE("one of a node group's instance_types") {
    json doc = scenario_json("tests/scenarios/tiny-gang.json");
    doc["cluster"]["node_groups"][0].erase("instance_type");
    doc["cluster"]["node_groups"][0]["instance_types"] = {"trn1.32xlarge", "ml.inf2.xlarge"};
    const std::string p = write_json(d, "s.json", doc);
    const std::string e = error_of([&] { (void)io::load_scenario(p); });
    CHECK_MESSAGE(e.rfind(p + ": /cluster/node_groups/0/instance_types/1: 'ml.inf2.xlarge' is a SageMaker hosting instance type", 0) == 0, e);
  }
  SUBCASE("an endpoint of an EC2 type") {
    json doc = scenario_json("scenarios/mme-djl-blog-uniform.json");
    REQUIRE(doc["endpoint"]["instance_type"] == "ml.c5d.18xlarge");
    doc["endpoint"]["instance_type"] = "c5d.18xlarge";
    const std::string p = write_json(d, "inf.json", doc);
    CHECK(error_of([&] { (void)io::load_inference_scenario(p); }) ==
          p + ": /endpoint/instance_type: 'c5d.18xlarge' is an EC2 instance type; a SageMaker endpoint runs SageMaker hosting "
              "instance types, whose names start with 'ml.' (e.g. 'ml.c5d.18xlarge')");
  }
}

TEST_CASE("scenario format version: version 1 is refused with the migrate command, other versions too") {
  test::TempDir d;
  json doc = scenario_json("tests/scenarios/tiny-gang.json");
  doc.erase("schema_version");
  const std::string p = write_json(d, "v1.json", doc);
  const std::string msg = error_of([&] { (void)io::load_scenario(p); });
  CHECK_MESSAGE(msg.rfind(p + ": /schema_version: missing: this is a version-1 scenario", 0) == 0, msg);
  CHECK_MESSAGE(contains(msg, "\"schema_version\": 2"), msg);
  CHECK_MESSAGE(contains(msg, "mltwin migrate " + p + " -o NEW.json"), msg);
  doc["schema_version"] = 3;
  const std::string p3 = write_json(d, "v3.json", doc);
  CHECK(error_of([&] { (void)io::load_scenario(p3); }) ==
        p3 + ": /schema_version: expected 2 (the scenario format this mltwin reads), got 3");
  json inf = scenario_json("scenarios/mme-djl-blog-uniform.json");
  inf.erase("schema_version");
  const std::string pi = write_json(d, "inf.json", inf);
  CHECK(error_of([&] { (void)io::load_inference_scenario(pi); }).rfind(pi + ": /schema_version: missing: this is a version-1 scenario", 0) == 0);
  // "schema_version": 1 is the old format too: the error gives the migrate command.
  doc["schema_version"] = 1;
  const std::string p1 = write_json(d, "v1b.json", doc);
  CHECK(error_of([&] { (void)io::load_scenario(p1); }) ==
        p1 + ": /schema_version: 1 is the old scenario format (its instance types pasted under /catalog/instance_types); mltwin "
             "reads version 2. Rewrite it: mltwin migrate " + p1 + " -o NEW.json");
}

namespace {

// The version-1 text of a shipped version-2 scenario: its "schema_version" line out (or, with
// `says_1`, saying 1), the pasted catalog of `rows` (in the version-1 row form) in after the
// "name" line.
std::string as_version_1(const std::string& v2, const json& rows, bool says_1 = false) {
  std::string t = v2;
  const std::string version = "  \"schema_version\": 2,\n";
  const auto at = t.find(version);
  REQUIRE(at != std::string::npos);
  t.replace(at, version.size(), says_1 ? "  \"schema_version\": 1,\n" : "");
  const auto name = t.find("\n  \"name\": ");
  REQUIRE(name != std::string::npos);
  const auto s = t.find('\n', name + 1);
  std::string cat = json{{"instance_types", rows}}.dump(2);
  std::string indented;
  for (char c : cat) {
    indented += c;
    if (c == '\n') indented += "  ";
  }
  t.insert(s + 1, "  \"catalog\": " + indented + ",\n");
  return t;
}

// A version-1 training row with the figures of the shipped row of `name`.
json v1_training_row(const models::InstanceType& t) {
  return {{"name", t.name},
          {"trainium_chips", t.trainium_chips},
          {"neuroncores_per_chip", t.neuroncores_per_chip},
          {"device_memory_gib", t.device_memory_gib},
          {"vcpu", t.vcpu},
          {"memory_gib", t.memory_gib},
          {"efa_interfaces", t.efa_interfaces},
          {"network_gbps", t.network_gbps},
          {"on_demand_usd_per_hour", t.on_demand_usd_per_hour},
          {"price_region", t.region_of_price},
          {"source", "as pasted"}};
}

}  // namespace

TEST_CASE("migrate: a version-1 scenario with the shipped figures becomes the version-2 file, byte for byte") {
  const models::Catalog cat = io::read_catalog(kShipped);
  for (const char* rel : {"scenarios/eks-trn1-philly.json", "tests/scenarios/tiny-gang.json", "scenarios/eks-trn1-philly-startup.json"}) {
    CAPTURE(rel);
    const std::string v2 = read_text(kSrc + "/" + rel);
    json rows = json::array();
    for (const char* n : {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge"}) rows.push_back(v1_training_row(*cat.find(n)));
    const std::string v1 = as_version_1(v2, rows);
    REQUIRE(v1 != v2);
    std::vector<std::string> notes;
    CHECK(io::migrate_scenario(v1, "v1.json", cat, notes) == v2);
    REQUIRE(notes.size() == 3);
    CHECK(notes[1] == "/catalog/instance_types/1 (trn1.32xlarge): equal to the shipped row; dropped");
    // The same file saying "schema_version": 1 where version 2 says 2 becomes the same text.
    notes.clear();
    CHECK(io::migrate_scenario(as_version_1(v2, rows, true), "v1.json", cat, notes) == v2);
    CHECK(notes.size() == 3);
  }
  // The inference scenarios' rows (memory as a quantity, disk, usd_per_hour), the endpoint's type
  // having an instance store.
  const std::string v2 = read_text(kSrc + "/scenarios/mme-djl-blog-top-n.json");
  const json rows = json::array({{{"name", "ml.c5.xlarge"}, {"vcpu", 4}, {"memory", "8Gi"}, {"disk", "30Gi"}, {"usd_per_hour", 0.204},
                                  {"price_region", "us-east-1"}, {"source", "as pasted"}},
                                 {{"name", "ml.c5d.18xlarge"}, {"vcpu", 72}, {"memory", "144Gi"}, {"disk", "1800G"}, {"usd_per_hour", 4.147},
                                  {"price_region", "us-east-1"}, {"source", "as pasted"}}});
  std::vector<std::string> notes;
  CHECK(io::migrate_scenario(as_version_1(v2, rows), "v1.json", cat, notes) == v2);
}

TEST_CASE("migrate: rows that differ are kept in the catalog form, and the result loads with their figures") {
  test::TempDir d;
  const models::Catalog cat = io::read_catalog(kShipped);
  const std::string v2 = read_text(kSrc + "/tests/scenarios/tiny-gang.json");
  json cheaper = v1_training_row(*cat.find("trn1.32xlarge"));
  cheaper["on_demand_usd_per_hour"] = 12.5;
  json custom = v1_training_row(*cat.find("trn1.2xlarge"));
  custom["name"] = "trn1.half";
  custom["trainium_chips"] = 8;
  custom["device_memory_gib"] = 256;
  custom["vcpu"] = 64;
  custom["memory_gib"] = 256;
  custom["efa_interfaces"] = 4;
  custom["max_pods"] = 110;
  const json rows = json::array({v1_training_row(*cat.find("trn1.2xlarge")), cheaper, custom});
  std::vector<std::string> notes;
  const std::string out = io::migrate_scenario(as_version_1(v2, rows), "v1.json", cat, notes);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0] == "/catalog/instance_types/0 (trn1.2xlarge): equal to the shipped row; dropped");
  CHECK(notes[1] == "/catalog/instance_types/1 (trn1.32xlarge): kept as a row of the catalog form, in place of the shipped row: "
                    "on_demand_usd_per_hour 12.5 (shipped 21.5)");
  CHECK(contains(notes[2], "/catalog/instance_types/2 (trn1.half): kept as a row of the catalog form: "));
  const json m = json::parse(out);
  CHECK(m["schema_version"] == 2);
  REQUIRE(m["catalog"]["instance_types"].size() == 2);
  const json& half = m["catalog"]["instance_types"][1];
  CHECK(half["extended_resources"] == json{{"aws.amazon.com/neuron", 8}, {"aws.amazon.com/neurondevice", 8},
                                           {"aws.amazon.com/neuroncore", 16}, {"vpc.amazonaws.com/efa", 4}});
  // Everything but the catalog and the version is as it was.
  json rest = m;
  rest.erase("catalog");
  CHECK(rest == json::parse(v2));
  // It loads; the kept rows are the catalog's, the others the shipped ones.
  json loadable = m;
  loadable["cluster"]["node_groups"][0]["instance_type"] = "trn1.half";
  const io::LoadedScenario sc = io::load_scenario(write_json(d, "v2.json", loadable));
  CHECK(sc.training.catalog.find("trn1.32xlarge")->on_demand_usd_per_hour == 12.5);
  CHECK(sc.training.catalog.find("trn1.32xlarge")->max_pods == 247);  // not in the version-1 row: the shipped figure
  const models::InstanceType& h = *sc.training.catalog.find("trn1.half");
  CHECK(h.neuroncores() == 16);
  CHECK(h.max_pods == 110);
  CHECK(h.source == "as pasted");
  // A version-2 file is not migrated again.
  CHECK(error_of([&] { (void)io::migrate_scenario(out, "v2.json", cat, notes); }) ==
        "v2.json: /schema_version: already at schema_version 2, the version this mltwin reads; nothing to change (validate or run "
        "it as it is)");
}

TEST_CASE("migrate: an inference endpoint on an EBS-only type gets its volume from the version-1 disk") {
  test::TempDir d;
  const models::Catalog cat = io::read_catalog(kShipped);
  json doc = scenario_json("scenarios/mme-djl-blog-uniform.json");
  doc.erase("schema_version");
  doc["endpoint"]["instance_type"] = "ml.c5.18xlarge";
  doc["catalog"]["instance_types"] = json::array({{{"name", "ml.c5.18xlarge"}, {"vcpu", 72}, {"memory", "144Gi"}, {"disk", "30Gi"},
                                                   {"usd_per_hour", 3.672}, {"price_region", "us-east-1"}, {"source", "as pasted"}}});
  std::vector<std::string> notes;
  const std::string out = io::migrate_scenario(doc.dump(2), "v1.json", cat, notes);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "/catalog/instance_types/0 (ml.c5.18xlarge): equal to the shipped row; dropped; its disk became "
                    "/endpoint/ml_storage_volume");
  const json m = json::parse(out);
  CHECK(!m.contains("catalog"));
  CHECK(m["endpoint"]["ml_storage_volume"]["size"] == "30Gi");
  const std::string p = d.file("v2.json");
  write_text(p, out);
  const io::LoadedInferenceScenario sc = io::load_inference_scenario(p);
  CHECK(sc.inference.model_storage_bytes() == 30ULL << 30);
  CHECK(sc.inference.instance_type()->on_demand_usd_per_hour == 3.672);
  // Without the volume the EBS-only type is refused; with one the NVMe type is.
  json no_volume = m;
  no_volume["endpoint"].erase("ml_storage_volume");
  const std::string pn = write_json(d, "nv.json", no_volume);
  CHECK(contains(error_of([&] { (void)io::load_inference_scenario(pn); }),
                 pn + ": /endpoint: ml.c5.18xlarge has no instance storage: give the EBS ML storage volume"));
  json nvme = m;
  nvme["endpoint"]["instance_type"] = "ml.c5d.18xlarge";
  const std::string pv = write_json(d, "nvme.json", nvme);
  CHECK(contains(error_of([&] { (void)io::load_inference_scenario(pv); }),
                 pv + ": /endpoint/ml_storage_volume: ml.c5d.18xlarge has NVMe instance storage (1800 GB)"));
}
