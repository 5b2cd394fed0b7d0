// The results schema is described once (store/include/mltwin/store/results_schema.hpp); this test
// keeps docs/results-schema.md in step with it, and checks that what the store creates is what
// the description says. To rewrite the page's generated blocks after changing the schema:
//
//   make docs        (MLTWIN_UPDATE_DOCS=1 build/tests/store/test_results_schema_doc)
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "mltwin/store/results_schema.hpp"
#include "mltwin/store/sqlite_store.hpp"

using namespace mltwin::store;

namespace {
const std::string kPage = std::string(MLTWIN_SOURCE_DIR) + "/docs/results-schema.md";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("docs/results-schema.md shows the schema as results_schema.hpp describes it") {
  const std::string page = read(kPage);
  const std::string want = schema::update_markdown(page);
  if (const char* u = std::getenv("MLTWIN_UPDATE_DOCS"); u != nullptr && std::string(u) == "1" && want != page) {
    std::ofstream(kPage, std::ios::binary) << want;
    MESSAGE("rewrote " << kPage);
    return;
  }
  CHECK_MESSAGE(want == page, kPage << " is out of date with results_schema.hpp: run `make docs`");
  // The version the page describes is the one the store writes.
  CHECK(page.find("describes schema version **" + std::to_string(kSchemaVersion) + "**") != std::string::npos);
}

TEST_CASE("update_markdown names the line of a bad block and a table left out") {
  CHECK_THROWS_WITH_AS(schema::update_markdown("a\nb\n<!-- columns: nope -->\n<!-- end -->\n"),
                       "line 3: no table 'nope' in the schema", std::invalid_argument);
  CHECK_THROWS_WITH_AS(schema::update_markdown("<!-- columns: jobs -->\nno end\n"),
                       "line 1: '<!-- columns: jobs -->' has no '<!-- end -->'", std::invalid_argument);
  CHECK_THROWS_WITH_AS(schema::update_markdown("nothing generated here\n"),
                       "table 'run_meta' has no '<!-- columns: run_meta -->' block", std::invalid_argument);
}

TEST_CASE("the SQL made from the description: hand-written expectations for one table") {
  CHECK(schema::insert_sql(schema::kPhases) == "INSERT INTO phases (job, t_ns, from_phase, to_phase) VALUES ");
  CHECK(schema::row_placeholders(schema::kPhases) == "(?, ?, ?, ?)");
  CHECK(schema::index_sql(schema::kPhases) == "CREATE INDEX phases_by_job ON phases(job);\n");
  CHECK(schema::update_sql(schema::kNodes) == "UPDATE nodes SET end_ns = ?2 WHERE node = ?1");
  // Slots count only the columns written at insert: the jobs row's outcome columns are not in it.
  static_assert(schema::insert_slot(schema::kJobs, "phase") == 15);
  static_assert(schema::insert_slot(schema::kJobs, "steps") == 16);
  static_assert(schema::count(schema::kJobs, schema::kInsert) == 17);
  static_assert(schema::update_param(schema::kJobs, "phase") == 2);
}

TEST_CASE("a database has exactly the described tables and columns, in order, with their declarations") {
  for (const RunKind kind : {RunKind::Training, RunKind::Inference}) {
    RunMetadata meta;
    meta.kind = kind;
    SqliteStore store(":memory:", meta);
    std::set<std::string> have;
    const ResultTable names = store.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    for (std::size_t r = 0; r < names.rows; ++r) have.insert(names.column("name").text_at(r));
    std::set<std::string> described;
    for (const schema::Table* t : schema::kTables) {
      const bool held = t->holder == schema::Holder::Every ||
                        (t->holder == schema::Holder::Training) == (kind == RunKind::Training);
      if (!held) continue;
      described.insert(std::string(t->name));
      const ResultTable cols = store.query("SELECT name, type, \"notnull\", pk FROM pragma_table_info('" + std::string(t->name) + "')");
      REQUIRE(cols.rows == t->columns.size());
      for (std::size_t i = 0; i < cols.rows; ++i) {
        const schema::Column& c = t->columns[i];
        CAPTURE(t->name);
        CAPTURE(c.name);
        CHECK(cols.column("name").text_at(i) == c.name);
        // SQLite's own reading of the declaration: its type, NOT NULL and PRIMARY KEY.
        CHECK(std::string(c.decl).starts_with(cols.column("type").text_at(i)));
        CHECK((cols.column("notnull").int_at(i) == 1) == (c.decl.find("NOT NULL") != std::string_view::npos));
        CHECK((cols.column("pk").int_at(i) == 1) == (c.decl.find("PRIMARY KEY") != std::string_view::npos));
      }
    }
    CHECK(have == described);
  }
}
