// The `nodes` table of a training run's database (docs/results-schema.md): one row per node that
// ever existed, with its node group, instance type, purchase option, zone, launch and end, and
// the price the run's cost applies to it. Runs go through runner::Run into a real database; every
// expected row is derived by hand in the comments from the rules in models/training.hpp
// (node_launch: EC2 Auto Scaling's On-Demand split, prioritized On-Demand, the Spot strategies'
// pools), the figures of tests/scenarios/{tiny-gang,node-failure,autoscaler-trap,
// spot-price-history}.json and the shipped catalog, never copied from a run. The timelines of the
// node-failure and autoscaler-trap runs are those derived in tests/models/test_spot.cpp and
// tests/models/test_startup.cpp.
#include "scenario_run.hpp"
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "mltwin/runner/run.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;
using nlohmann::json;

namespace {

constexpr std::int64_t kS = 1'000'000'000LL;

std::string source_file(const std::string& rel) { return std::string(MLTWIN_SOURCE_DIR) + "/" + rel; }

/// One node's row, as read back.
struct NodeRow {
  std::string group, type, capacity, zone;  // zone "<NULL>" when NULL
  std::int64_t launch_ns = 0;
  std::optional<std::int64_t> end_ns;
  double usd_per_hour = 0;
  std::string price_source;
};

/// Run options with `catalog` as the instance catalog ("": the shipped one).
runner::RunOptions with_catalog(const std::string& catalog) {
  runner::RunOptions o;
  o.catalog = catalog;
  return o;
}

/// A training run of tests/scenarios/<scenario> with `overrides`, to its end, into a database.
struct NodesRun : test::ScenarioRun {
  std::map<std::string, NodeRow> nodes;  // by node name
  std::int64_t run_end_ns = 0;

  NodesRun(const std::string& scenario, const json& overrides, const std::string& catalog = "")
      : ScenarioRun(source_file("tests/scenarios/" + scenario), overrides, with_catalog(catalog)) {
    const auto t = query("SELECT node, node_group, instance_type, capacity_type, coalesce(zone, '<NULL>') AS zone,"
                         " launch_ns, end_ns, usd_per_hour, price_source FROM nodes ORDER BY rowid");
    for (std::size_t i = 0; i < t.rows; ++i)
      nodes[t.column("node").text_at(i)] = {t.column("node_group").text_at(i),    t.column("instance_type").text_at(i),
                                            t.column("capacity_type").text_at(i), t.column("zone").text_at(i),
                                            *t.column("launch_ns").int_at(i),     t.column("end_ns").int_at(i),
                                            *t.column("usd_per_hour").real_at(i), t.column("price_source").text_at(i)};
    run_end_ns = std::stoll(one("SELECT value FROM run_meta WHERE key = 'end_ns'"));
  }
  std::string one(const std::string& sql) const { return query(sql).columns.at(0).text_at(0); }
  /// The nodes' (end, or the run's end, - launch) x price, USD: what the run's cost should be.
  /// The query of docs/results-schema.md, as it is written there.
  double cost_from_rows() const {
    return *query("SELECT sum((coalesce(end_ns, (SELECT CAST(value AS INTEGER) FROM run_meta WHERE key = 'end_ns')) - launch_ns)\n"
                  "           / 3600e9 * usd_per_hour) AS cost_usd\n"
                  "FROM nodes;")
                .columns.at(0)
                .real_at(0);
  }
};

/// The shipped catalog's row of `type` (catalog/aws-instance-types.json), read here rather than
/// through mltwin's catalog reader.
json catalog_row(const std::string& type) {
  std::ifstream in(source_file("catalog/aws-instance-types.json"));
  const json cat = json::parse(in);
  for (const auto& r : cat["instance_types"])
    if (r["name"] == type) return r;
  FAIL("no catalog row " << type);
  return {};
}

/// What nodes.price_source says of an On-Demand node: its row of the shipped catalog (by file
/// name and JSON pointer) and the price's region.
std::string on_demand_source(const std::string& type) {
  std::ifstream in(source_file("catalog/aws-instance-types.json"));
  const json cat = json::parse(in);
  for (std::size_t i = 0; i < cat["instance_types"].size(); ++i)
    if (cat["instance_types"][i]["name"] == type)
      return "aws-instance-types.json: /instance_types/" + std::to_string(i) + " on_demand_usd_per_hour, " +
             cat["instance_types"][i]["price_region"].get<std::string>();
  FAIL("no catalog row " << type);
  return {};
}

}  // namespace

TEST_CASE("nodes: a mixed group's rows per instance type and purchase option follow the split rules, at the catalog's prices") {
  // tiny-gang.json's 4 trn1.32xlarge (an EKS managed On-Demand group in us-east-1a) and a
  // self-managed group 'cpu' of [m5.xlarge, m6i.xlarge], desired 7, no zone, with
  // instancesDistribution: onDemandBaseCapacity 2, onDemandPercentageAboveBaseCapacity 40,
  // capacity-optimized. On-Demand count at N nodes: od(N) = min(N, 2) + ceil((N - 2) x 40 / 100):
  // od(0..7) = 0, 1, 2, 3, 3, 4, 4, 4. Slot k is On-Demand when od(k + 1) > od(k): slots 0, 1, 2,
  // 4 On-Demand (of the first type, m5.xlarge: prioritized), slots 3, 5, 6 Spot; the s-th Spot
  // slot takes pool s mod 2 in list order (capacity-optimized, pools assumed equally deep):
  // slot 3 -> s 0 m5.xlarge, slot 5 -> s 1 m6i.xlarge, slot 6 -> s 2 m5.xlarge.
  // Per type: m5.xlarge 4 ON_DEMAND + 2 SPOT, m6i.xlarge 1 SPOT; trn1.32xlarge 4 ON_DEMAND.
  // Spot prices from spot-price-history.json (no zone: the mean over the zones of each type's
  // newest Linux/UNIX price; only us-east-1a has these types): m5.xlarge 0.07, m6i.xlarge 0.05.
  const json overrides = {
      {"cluster",
       {{"spot_price_history", "spot-price-history.json"},
        {"node_groups",
         json::array({{{"name", "trn1"}, {"instance_type", "trn1.32xlarge"}, {"desired_capacity", 4}, {"availability_zone", "us-east-1a"}},
                      {{"name", "cpu"},
                       {"instance_types", {"m5.xlarge", "m6i.xlarge"}},
                       {"desired_capacity", 7},
                       {"instances_distribution",
                        {{"on_demand_base_capacity", 2},
                         {"on_demand_percentage_above_base_capacity", 40},
                         {"spot_allocation_strategy", "capacity-optimized"}}}}})}}}};
  NodesRun r("tiny-gang.json", overrides);
  REQUIRE(r.nodes.size() == 11);

  const std::pair<const char*, const char*> cpu[] = {{"m5.xlarge", "ON_DEMAND"}, {"m5.xlarge", "ON_DEMAND"}, {"m5.xlarge", "ON_DEMAND"},
                                                      {"m5.xlarge", "SPOT"},      {"m5.xlarge", "ON_DEMAND"}, {"m6i.xlarge", "SPOT"},
                                                      {"m5.xlarge", "SPOT"}};
  for (int i = 0; i < 7; ++i) {
    const std::string name = "cpu-" + std::to_string(i);
    REQUIRE_MESSAGE(r.nodes.count(name) == 1, name);
    const NodeRow& n = r.nodes.at(name);
    CHECK_MESSAGE(n.type == cpu[i].first, name);
    CHECK_MESSAGE(n.capacity == cpu[i].second, name);
    CHECK(n.group == "cpu");
    CHECK(n.zone == "<NULL>");  // the group gives no zone: none is made up
  }
  for (int i = 0; i < 4; ++i) {
    const NodeRow& n = r.nodes.at("trn1-" + std::to_string(i));
    CHECK(n.group == "trn1");
    CHECK(n.type == "trn1.32xlarge");
    CHECK(n.capacity == "ON_DEMAND");
    CHECK(n.zone == "us-east-1a");
  }
  // Rows per type and purchase option, as SQL counts them.
  const auto counts = r.query("SELECT instance_type || ' ' || capacity_type || ' ' || count(*) AS c FROM nodes"
                              " GROUP BY instance_type, capacity_type ORDER BY instance_type, capacity_type");
  REQUIRE(counts.rows == 4);
  CHECK(counts.columns[0].text_at(0) == "m5.xlarge ON_DEMAND 4");
  CHECK(counts.columns[0].text_at(1) == "m5.xlarge SPOT 2");
  CHECK(counts.columns[0].text_at(2) == "m6i.xlarge SPOT 1");
  CHECK(counts.columns[0].text_at(3) == "trn1.32xlarge ON_DEMAND 4");

  // Prices: On-Demand at the catalog row's on_demand_usd_per_hour, citing the row;
  // Spot at the history's price, citing the history file.
  for (const auto& entry : r.nodes) {  // no structured binding: clang 14 cannot capture one (CHECK_MESSAGE)
    const std::string& name = entry.first;
    const auto& n = entry.second;
    CHECK_MESSAGE(n.launch_ns == 0, name);  // every node is there from t = 0 and stays
    CHECK_MESSAGE(!n.end_ns.has_value(), name);
    if (n.capacity == "ON_DEMAND") {
      const json row = catalog_row(n.type);
      CHECK_MESSAGE(n.usd_per_hour == row["on_demand_usd_per_hour"].get<double>(), name);
      CHECK_MESSAGE(n.price_source == on_demand_source(n.type), name);
    } else {
      CHECK_MESSAGE(n.usd_per_hour == (n.type == "m5.xlarge" ? 0.07 : 0.05), name);
      // The history file as the scenario names it, not the folder it was read from.
      CHECK_MESSAGE(n.price_source == "spot-price-history.json: newest Linux/UNIX SpotPrice (us-east-1a 2026-07-01T10:00:00)",
                    name);
    }
  }
  CHECK(r.nodes.at("cpu-0").usd_per_hour == 0.192);  // the catalog's m5.xlarge, by hand
  CHECK(r.nodes.at("trn1-0").usd_per_hour == 21.5);  // and trn1.32xlarge

  // Every node a pod ran on has its row.
  CHECK(r.one("SELECT count(*) FROM pods WHERE node IS NOT NULL AND node NOT IN (SELECT node FROM nodes)") == "0");

  // The run's cost (fixed node groups: every node at its price for the whole run) is the sum of
  // the rows' (end - launch) x price: 4 x 21.5 + 4 x 0.192 + 2 x 0.07 + 0.05 USD/h over the run.
  const double usd_per_hour = 4 * 21.5 + 4 * 0.192 + 2 * 0.07 + 0.05;
  CHECK(r.summary["cost_usd"].get<double>() == doctest::Approx(usd_per_hour * static_cast<double>(r.run_end_ns) / 3600e9).epsilon(1e-12));
  CHECK(r.cost_from_rows() == doctest::Approx(r.summary["cost_usd"].get<double>()).epsilon(1e-12));
}

namespace {
// node-failure.json with its node a Spot node of a managed Spot group (price from the fixture,
// us-east-1a: 8.6) and a Spot interruption notice at 3000 s instead of the failure (as
// tests/models/test_spot.cpp).
json spot_interruption() {
  return {{"cluster",
           {{"spot_price_history", "spot-price-history.json"},
            {"node_groups", json::array({{{"name", "trn1"},
                                          {"instance_type", "trn1.32xlarge"},
                                          {"capacity_type", "SPOT"},
                                          {"desired_capacity", 1},
                                          {"availability_zone", "us-east-1a"}}})}}},
          {"faults",
           {{"scheduled", json::array()},
            {"replacement_time", "300s"},
            {"source", "test"},
            {"spot_interruptions", {{{"node", "trn1-0"}, {"at", "3000s"}}}}}}};
}

/// launch_ns agrees with the node's Launching event (0 for a node of t = 0, which has none),
/// and end_ns with its Failed, SpotInterrupted or Removed event (NULL: none).
void check_rows_match_node_events(const NodesRun& r) {
  CHECK(r.one("SELECT count(*) FROM nodes n WHERE launch_ns != coalesce((SELECT t_ns FROM node_events e WHERE e.node = n.node"
              " AND e.event = 'Launching'), 0)") == "0");
  CHECK(r.one("SELECT count(*) FROM nodes n WHERE end_ns IS NOT (SELECT t_ns FROM node_events e WHERE e.node = n.node"
              " AND e.event IN ('Failed', 'SpotInterrupted', 'Removed'))") == "0");
  CHECK(r.one("SELECT count(*) FROM node_events WHERE node NOT IN (SELECT node FROM nodes)") == "0");
}
}  // namespace

TEST_CASE("nodes: a failed node's row ends at the failure, its replacement's starts at its launch; the rows give the run's cost") {
  // node-failure.json: trn1-0 (On-Demand, 21.5 USD/h) fails at 3000 s; the replacement trn1-1
  // is launched then (Ready 300 s later) and is there at the end.
  NodesRun r("node-failure.json", json::object());
  REQUIRE(r.nodes.size() == 2);
  const NodeRow& a = r.nodes.at("trn1-0");
  const NodeRow& b = r.nodes.at("trn1-1");
  CHECK(a.launch_ns == 0);
  CHECK(a.end_ns == 3000 * kS);
  CHECK(b.launch_ns == 3000 * kS);
  CHECK_FALSE(b.end_ns.has_value());
  for (const NodeRow* n : {&a, &b}) {
    CHECK(n->capacity == "ON_DEMAND");
    CHECK(n->usd_per_hour == 21.5);
    CHECK(n->price_source == on_demand_source("trn1.32xlarge"));
  }
  check_rows_match_node_events(r);
  // (3000 s + (end - 3000 s)) x 21.5 USD/h: the node-seconds the summary prices.
  CHECK(r.summary["cost_usd"].get<double>() == doctest::Approx(static_cast<double>(r.run_end_ns) / 3600e9 * 21.5).epsilon(1e-12));
  CHECK(r.cost_from_rows() == doctest::Approx(r.summary["cost_usd"].get<double>()).epsilon(1e-12));
}

TEST_CASE("nodes: a Spot interruption ends the row at the termination; Capacity Rebalancing launches the replacement at the notice") {
  // Notice at 3000 s: the managed Spot group (Capacity Rebalancing) launches trn1-1 then;
  // trn1-0 is terminated at 3000 + 120 = 3120 s. The run ends at 6748 s (the cycle after the
  // job's end at 6747.05 s). Both Spot at 8.6 USD/h: (3120 + 3748) s x 8.6 / 3600.
  NodesRun r("node-failure.json", spot_interruption());
  REQUIRE(r.nodes.size() == 2);
  const NodeRow& a = r.nodes.at("trn1-0");
  const NodeRow& b = r.nodes.at("trn1-1");
  CHECK(a.launch_ns == 0);
  CHECK(a.end_ns == 3120 * kS);
  CHECK(b.launch_ns == 3000 * kS);
  CHECK_FALSE(b.end_ns.has_value());
  for (const NodeRow* n : {&a, &b}) {
    CHECK(n->capacity == "SPOT");
    CHECK(n->usd_per_hour == 8.6);
    CHECK(n->price_source == "spot-price-history.json: newest Linux/UNIX SpotPrice (us-east-1a 2026-07-01T10:00:00)");
  }
  CHECK(r.run_end_ns == 6748 * kS);
  check_rows_match_node_events(r);
  CHECK(r.summary["cost_usd"].get<double>() == doctest::Approx((3120.0 + 3748.0) * 8.6 / 3600.0).epsilon(1e-12));
  CHECK(r.cost_from_rows() == doctest::Approx(r.summary["cost_usd"].get<double>()).epsilon(1e-12));
}

TEST_CASE("nodes: the autoscaler's scale-out starts a row at the launch, its scale-in ends one") {
  // autoscaler-trap.json without the enqueue action: the 10 s scan launches trn1-1 (Ready at
  // 310 s); both nodes are empty from 912.05 s and the 1520 s scan removes trn1-0 (min_size 1
  // keeps trn1-1).
  NodesRun r("autoscaler-trap.json", {{"volcano", {{"actions", {"allocate", "backfill"}}}}});
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes.at("trn1-0").launch_ns == 0);
  CHECK(r.nodes.at("trn1-0").end_ns == 1520 * kS);
  CHECK(r.nodes.at("trn1-1").launch_ns == 10 * kS);
  CHECK_FALSE(r.nodes.at("trn1-1").end_ns.has_value());
  check_rows_match_node_events(r);
  CHECK(r.summary["cost_usd"].get<double>() ==
        doctest::Approx((1520.0 + (static_cast<double>(r.run_end_ns) / 1e9 - 10.0)) * 21.5 / 3600.0).epsilon(1e-12));
  CHECK(r.cost_from_rows() == doctest::Approx(r.summary["cost_usd"].get<double>()).epsilon(1e-12));
}

TEST_CASE("nodes: a Spot price from a catalog row's spot entry cites the row, the catalog file by its name") {
  // A catalog file (--catalog) of the shipped rows with a "spot" entry on trn1.32xlarge (a test
  // figure, 9.25 USD/h); node-failure.json's one node as a managed Spot group without a history:
  // its price is the row's, and its source names the row in the file by the file's name (no
  // folder of the machine is recorded).
  test::TempDir tmp{"mltwin-nodes-catalog"};
  json cat;
  {
    std::ifstream in(source_file("catalog/aws-instance-types.json"));
    cat = json::parse(in);
  }
  std::size_t row = 0;
  while (cat["instance_types"][row]["name"] != "trn1.32xlarge") ++row;
  cat["instance_types"][row]["spot"] = {{"usd_per_hour", 9.25}, {"region", "us-east-1"}, {"date", "2026-07-01"}, {"source", "test figure"}};
  const std::string file = tmp.file("my-catalog.json");
  std::ofstream(file) << cat.dump(1);
  json o = spot_interruption();
  o["cluster"].erase("spot_price_history");
  o["faults"]["spot_interruptions"] = json::array();
  NodesRun r("node-failure.json", o, file);
  REQUIRE(r.nodes.size() == 1);
  const NodeRow& n = r.nodes.at("trn1-0");
  CHECK(n.capacity == "SPOT");
  CHECK(n.usd_per_hour == 9.25);
  CHECK(n.price_source == "my-catalog.json: /instance_types/" + std::to_string(row) + " spot: us-east-1 2026-07-01, test figure");
  CHECK(r.cost_from_rows() == doctest::Approx(r.summary["cost_usd"].get<double>()).epsilon(1e-12));
}

TEST_CASE("jobs: neuron_resource and other_requests give the pods' device requests by name") {
  // scenarios/eks-mixed-fleet.json: trn-* pods request 8 aws.amazon.com/neurondevice and 4 EFA,
  // gpu-* pods 4 nvidia.com/gpu, cpu-* pods only cpu and memory (the scenario file says so).
  const test::ScenarioRun r(source_file("scenarios/eks-mixed-fleet.json"));
  const auto t = r.query("SELECT name, neuron_devices_per_pod, coalesce(neuron_resource, '<NULL>') AS nr,"
                         " coalesce(other_requests, '<NULL>') AS other FROM jobs ORDER BY job");
  REQUIRE(t.rows == 11);
  for (std::size_t i = 0; i < t.rows; ++i) {
    const std::string name = t.column("name").text_at(i);
    CAPTURE(name);
    if (name.rfind("trn-", 0) == 0) {
      CHECK(*t.column("neuron_devices_per_pod").int_at(i) == 8);
      CHECK(t.column("nr").text_at(i) == "aws.amazon.com/neurondevice");
      CHECK(t.column("other").text_at(i) == "<NULL>");
    } else if (name.rfind("gpu-", 0) == 0) {
      CHECK(t.column("nr").text_at(i) == "<NULL>");
      CHECK(t.column("other").text_at(i) == R"({"nvidia.com/gpu":"4"})");
    } else {
      CHECK(t.column("nr").text_at(i) == "<NULL>");
      CHECK(t.column("other").text_at(i) == "<NULL>");
    }
  }
}
