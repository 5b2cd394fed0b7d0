// `mltwin run --anonymize` (runner::RunOptions::anonymize, io::anonymize; docs/privacy.md) on the
// shipped twins of a cluster: the one read from kubectl (scenarios/eks-kubectl-pods.json) and the
// one replayed from a job history (scenarios/eks-history-csv.json).
//
// The names the test looks for are read here from the input files themselves (the Nodes', Pods'
// and PodGroups' metadata; the history's name, namespace and queue columns), not from the name
// map, and looked for in every cell of every table. Each check also runs on the run with real
// names, where the names must be found: a dump that missed a table would fail there.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/io/anonymize.hpp"
#include "mltwin/runner/compare_history.hpp"
#include "scenario_run.hpp"

using namespace mltwin;
using json = nlohmann::json;

namespace {

const std::string kSource = MLTWIN_SOURCE_DIR;

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// Every table of the database, every row, every cell as text: table -> rows of cells.
std::map<std::string, std::vector<std::vector<std::string>>> cells(const std::string& db) {
  std::map<std::string, std::vector<std::vector<std::string>>> out;
  const store::ResultTable tables = store::query_file(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  for (std::size_t t = 0; t < tables.rows; ++t) {
    const std::string name = tables.columns.at(0).text_at(t);
    const store::ResultTable rows = store::query_file(db, "SELECT * FROM \"" + name + "\"");
    auto& into = out[name];
    for (std::size_t r = 0; r < rows.rows; ++r) {
      std::vector<std::string> row;
      for (const auto& c : rows.columns) row.push_back(c.text_at(r));
      into.push_back(std::move(row));
    }
  }
  return out;
}

/// Each of `names` found in some cell of the database, with where.
std::vector<std::string> found(const std::string& db, const std::set<std::string>& names) {
  std::vector<std::string> hits;
  for (const auto& [table, rows] : cells(db))
    for (const auto& row : rows)
      for (const auto& cell : row)
        for (const auto& n : names)
          if (cell.find(n) != std::string::npos) hits.push_back("'" + n + "' in " + table + ": " + cell.substr(0, 200));
  return hits;
}

/// A cell of the run with real names as the anonymized run should have it: a real name (or a
/// comma-separated list of node names, jobs.nodes) replaced by its alias, an input file's name
/// (in nodes.price_source) by its alias.
std::string aliased(std::string cell, const io::NameMap& m) {
  for (const auto* kind : {&m.nodes, &m.jobs, &m.queues})
    if (auto it = kind->find(cell); it != kind->end()) return it->second;
  for (const auto& [file, alias] : m.files)
    if (const auto at = cell.find(file + ": "); at != std::string::npos) cell.replace(at, file.size(), alias);
  if (cell.find(',') == std::string::npos) return cell;
  std::string out;
  std::stringstream in(cell);
  for (std::string part; std::getline(in, part, ',');) {
    const auto it = m.nodes.find(part);
    if (it == m.nodes.end()) return cell;
    out += (out.empty() ? "" : ",") + it->second;
  }
  return out;
}

/// The two databases hold the same results, name for alias: every table but run_meta and
/// inputs (which say how the run was made) cell by cell.
void check_same_results(const std::string& real_db, const std::string& anon_db, const io::NameMap& m) {
  auto real = cells(real_db), anon = cells(anon_db);
  REQUIRE(real.size() == anon.size());
  std::size_t compared = 0;
  for (const auto& entry : real) {  // no structured binding: clang 14 cannot capture one (INFO)
    const std::string& table = entry.first;
    const auto& rows = entry.second;
    if (table == "run_meta" || table == "inputs") continue;
    INFO("table " << table);
    REQUIRE(anon.count(table) == 1);
    REQUIRE(anon.at(table).size() == rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t c = 0; c < rows[r].size(); ++c) {
        CHECK(aliased(rows[r][c], m) == anon.at(table)[r][c]);
        ++compared;
      }
  }
  CHECK(compared > 100);
}

/// The aliases of each kind sort as the real names do (a tie decided by name decides alike).
void check_order_kept(const std::map<std::string, std::string>& kind) {
  std::vector<std::string> aliases;
  for (const auto& [real, alias] : kind) aliases.push_back(alias);  // in the real names' order
  CHECK(std::is_sorted(aliases.begin(), aliases.end()));
  CHECK(std::set<std::string>(aliases.begin(), aliases.end()).size() == aliases.size());
}

runner::RunOptions anonymized() {
  runner::RunOptions o;
  o.anonymize = true;
  return o;
}

}  // namespace

TEST_CASE("anonymize: a twin read from kubectl keeps none of the cluster's names, and decides the same") {
  const std::string scenario = kSource + "/scenarios/eks-kubectl-pods.json";
  // The names, from the exports: Nodes, Pods and PodGroups, namespace/name, the files.
  std::set<std::string> names = {"kubectl/nodes.json", "kubectl/pods.json", "eks-kubectl-pods.json"};
  std::set<std::string> node_names;
  const json nodes = read_json(kSource + "/scenarios/kubectl/nodes.json"), pods = read_json(kSource + "/scenarios/kubectl/pods.json");
  for (const auto& item : nodes.at("items"))
    node_names.insert(item.at("metadata").at("name").get<std::string>());
  names.insert(node_names.begin(), node_names.end());
  for (const auto& item : pods.at("items")) {
    const auto& md = item.at("metadata");
    names.insert(md.at("name").get<std::string>());
    names.insert(md.at("namespace").get<std::string>() + "/" + md.at("name").get<std::string>());
  }
  REQUIRE(node_names.size() == 3);
  REQUIRE(names.size() == 3 + 3 + 2 * 7);

  test::ScenarioRun real(scenario);
  test::ScenarioRun anon(scenario, {}, anonymized());
  // The run with real names holds them (the dump reaches them), the anonymized run none.
  CHECK(found(real.db, node_names).size() > 3);
  const auto leaks = found(anon.db, names);
  for (const auto& l : leaks) MESSAGE(l);
  CHECK(leaks.empty());
  CHECK(anon.printed.find("ip-10-42") == std::string::npos);

  const io::NameMap m = io::NameMap::read(anon.dir.file("run.names.json"));
  std::set<std::string> mapped;
  for (const auto& [n, alias] : m.nodes) mapped.insert(n);
  CHECK(mapped == node_names);
  CHECK(m.nodes.at("ip-10-42-3-10.us-west-2.compute.internal") == "node-1");  // the first in sorted order
  CHECK(m.jobs.size() == 2);
  CHECK(m.queues == std::map<std::string, std::string>{{"default", "queue-1"}});
  CHECK(m.scenario_file == "eks-kubectl-pods.json");
  check_order_kept(m.nodes);
  check_order_kept(m.jobs);
  check_same_results(real.db, anon.db, m);

  // run_meta says the run was anonymized, with the map's SHA-256.
  const json meta = json::parse(anon.query("SELECT value FROM run_meta WHERE key = 'anonymized'").columns.at(0).text_at(0));
  CHECK(meta.at("name_map_sha256") == store::hash_input_file("name_map", anon.dir.file("run.names.json")).sha256);
  CHECK(real.query("SELECT value FROM run_meta WHERE key = 'anonymized'").rows == 0);
  CHECK(anon.query("SELECT value FROM run_meta WHERE key = 'scenario_path'").columns.at(0).text_at(0) == "scenario.json");
}

TEST_CASE("anonymize: a history replay's names go, and compare matches it through the name map") {
  const std::string scenario = kSource + "/scenarios/eks-history-csv.json";
  const std::string history = kSource + "/scenarios/history/jobs.csv";
  // The jobs' names, namespaces and queues: columns 1-3 of the CSV (no quoted commas before
  // the tasks column).
  std::set<std::string> names = {"history/jobs.csv", "eks-history-csv.json"};
  std::ifstream in(history);
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("name,namespace,queue,", 0) == 0);
  std::size_t rows = 0;
  for (; std::getline(in, line); ++rows) {
    std::stringstream cols(line);
    for (int c = 0; c < 3; ++c) {
      std::string v;
      std::getline(cols, v, ',');
      names.insert(v);
    }
  }
  REQUIRE(rows == 10);

  test::ScenarioRun real(scenario);
  test::ScenarioRun anon(scenario, {}, anonymized());
  CHECK(found(real.db, names).size() > 10);
  const auto leaks = found(anon.db, names);
  for (const auto& l : leaks) MESSAGE(l);
  CHECK(leaks.empty());

  const std::string map_file = anon.dir.file("run.names.json");
  const io::NameMap m = io::NameMap::read(map_file);
  CHECK(m.jobs.size() == rows);
  check_order_kept(m.jobs);
  check_order_kept(m.queues);
  check_same_results(real.db, anon.db, m);

  // compare: the same figures through the map; refused without it, or with another run's.
  const runner::HistoryComparison a = runner::compare_history(history, real.db);
  const runner::HistoryComparison b = runner::compare_history(history, anon.db, map_file);
  CHECK(b.compared == a.compared);
  CHECK(b.mdae_s == a.mdae_s);
  CHECK(b.ks_wait == a.ks_wait);
  CHECK(b.to_json().at("jobs") == a.to_json().at("jobs"));  // the real names, the same starts
  CHECK_THROWS_WITH_AS(runner::compare_history(history, anon.db), doctest::Contains("give its name map"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(runner::compare_history(history, real.db, map_file), doctest::Contains("was not anonymized"), std::invalid_argument);
  test::ScenarioRun other(kSource + "/scenarios/eks-kubectl-pods.json", {}, anonymized());
  CHECK_THROWS_WITH_AS(runner::compare_history(history, anon.db, other.dir.file("run.names.json")),
                       doctest::Contains("is not the one the run"), std::invalid_argument);
}

TEST_CASE("anonymize: what it refuses") {
  runner::RunOptions o = anonymized();
  o.out = ":memory:";
  CHECK_THROWS_WITH_AS(runner::Run::open(kSource + "/scenarios/eks-kubectl-pods.json", o), doctest::Contains("needs a file for its name map"),
                       std::invalid_argument);
  test::TempDir dir("mltwin-anonymize");
  o.out = dir.file("r.sqlite");
  o.name_map = kSource + "/scenarios/kubectl/nodes.json";  // an input
  CHECK_THROWS_WITH_AS(runner::Run::open(kSource + "/scenarios/eks-kubectl-pods.json", o), doctest::Contains("cluster_nodes input"),
                       std::invalid_argument);
  o.name_map = o.out;
  CHECK_THROWS_WITH_AS(runner::Run::open(kSource + "/scenarios/eks-kubectl-pods.json", o), doctest::Contains("is also the run's database"),
                       std::invalid_argument);
  o.name_map.clear();
  CHECK_THROWS_WITH_AS(runner::Run::open(kSource + "/scenarios/mme-djl-blog-uniform.json", o), doctest::Contains("inference scenario"),
                       std::invalid_argument);
  CHECK_THROWS_AS(io::NameMap::read(kSource + "/scenarios/kubectl/nodes.json"), io::ScenarioError);
}
