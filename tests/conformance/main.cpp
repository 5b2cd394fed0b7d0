// The conformance suite's main: runs the doctest cases, then accounts for every upstream row of
// upstream_cases.tsv and upstream_controller_cases.tsv (ported and passing or failing, differing
// on purpose, not applicable, or not yet ported, with the reason) and checks docs/conformance.md
// against the page it writes from them.
//   test_conformance                       run, check the page (CI: `make test`)
//   MLTWIN_UPDATE_DOCS=1 test_conformance  run, rewrite the page (`make docs`)
// With doctest filters (-tc=...) only the cases run; the page is neither checked nor written.
// The page's section on the real volcano-scheduler (between kLabBegin and kLabEnd) is not this
// program's: tools/lab/conformance.py writes it from the lab (`make conformance`); it is kept as
// it stands, after the introduction.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace {

const std::string kPage = std::string(MLTWIN_SOURCE_DIR) + "/docs/conformance.md";
const std::string kLabBegin = "<!-- lab:begin (tools/lab/conformance.py; make conformance) -->";
const std::string kLabEnd = "<!-- lab:end -->";

/// The lab section of the page as it stands (markers included), or a placeholder when the page
/// has none yet.
std::string lab_section(const std::string& current) {
  const std::size_t b = current.find(kLabBegin);
  const std::size_t e = b == std::string::npos ? std::string::npos : current.find(kLabEnd, b);
  if (e != std::string::npos) return current.substr(b, e + kLabEnd.size() - b);
  return kLabBegin + "\n## Against the real volcano-scheduler\n\nNot run yet: `make lab && make conformance` (docs/lab.md).\n" + kLabEnd;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return out;
    at = next + sep.size();
  }
}

/// The outcome of each case whose doctest name starts with "upstream | " or "source | ".
struct Results : doctest::IReporter {
  static inline std::map<std::string, bool> passed;  // full test case name -> passed
  const doctest::TestCaseData* current = nullptr;
  explicit Results(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& d) override { current = &d; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& st) override {
    if (current == nullptr) return;
    const std::string name = current->m_name;
    if (name.rfind("upstream | ", 0) == 0 || name.rfind("source | ", 0) == 0) {
      auto [it, fresh] = passed.emplace(name, st.testCaseSuccess);
      if (!fresh) it->second = it->second && st.testCaseSuccess;
    }
  }
  void test_case_exception(const doctest::TestCaseException&) override {
    if (current != nullptr) passed[current->m_name] = false;
  }
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

std::string cell(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

struct Row {
  std::string file, func, line, name;
  std::string status, reason;
};

/// One manifest of upstream rows and its section of the page.
struct Suite {
  std::string manifest;  ///< under tests/conformance/
  std::string root;      ///< the upstream directory its files are under
  std::string title;     ///< the section's title
  std::vector<Row> rows;
};

/// Builds the page; returns problems (an unknown, undeclared or doubly declared row) in `errors`.
std::string render(std::vector<std::string>& errors, const std::string& current) {
  std::vector<Suite> suites = {
      {"upstream_cases.tsv", "pkg/scheduler/", "The scheduler: actions and plugins", {}},
      {"upstream_controller_cases.tsv", "pkg/controllers/job/", "The job controller", {}},
  };
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_key;  // "file | func | name"
  for (std::size_t si = 0; si < suites.size(); ++si) {
    const std::string path = std::string(MLTWIN_SOURCE_DIR) + "/tests/conformance/" + suites[si].manifest;
    std::ifstream in(path);
    if (!in) {
      errors.push_back("cannot read " + path);
      continue;
    }
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.empty() || line[0] == '#') continue;
      const auto f = split(line, "\t");
      if (f.size() != 4) {
        errors.push_back(path + ":" + std::to_string(lineno) + ": want 4 tab-separated fields");
        continue;
      }
      by_key[f[0] + " | " + f[1] + " | " + f[3]] = {si, suites[si].rows.size()};
      suites[si].rows.push_back({f[0], f[1], f[2], f[3], "", ""});
    }
  }
  std::vector<std::pair<std::string, std::string>> source_cases;
  for (const auto& [name, ok] : Results::passed) {
    if (name.rfind("source | ", 0) == 0) {
      const auto parts = split(name.substr(9), " | ");
      source_cases.emplace_back(parts[0] + " | " + (parts.size() > 1 ? parts[1] : ""), ok ? "passes" : "FAILS");
      continue;
    }
    const std::string key = name.substr(11);
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      errors.push_back("ported case '" + key + "' is not a row of an upstream manifest (file | function | name)");
      continue;
    }
    suites[it->second.first].rows[it->second.second].status = ok ? "passes" : "FAILS";
  }
  for (const auto& d : mltwin::conformance::declared_rows()) {
    using mltwin::conformance::RowKind;
    const std::string what = d.kind == RowKind::NotYet ? "not yet ported" : d.kind == RowKind::Differs ? "differs on purpose" : "not applicable";
    int matched = 0;
    for (Suite& su : suites)
      for (Row& r : su.rows) {
        if (r.file != d.file || (!d.func.empty() && r.func != d.func) || (!d.name.empty() && r.name != d.name)) continue;
        ++matched;
        if (!r.status.empty()) {
          errors.push_back("'" + r.file + " | " + r.func + " | " + r.name + "' is declared " + what + " and also " + r.status);
          continue;
        }
        r.status = what;
        r.reason = d.reason;
      }
    if (matched == 0)
      errors.push_back(std::string(d.kind == RowKind::NotYet ? "NOT_YET" : d.kind == RowKind::Differs ? "DIFFERS_ON_PURPOSE" : "NOT_APPLICABLE") +
                       "('" + d.file + "', '" + d.func + "', '" + d.name + "') matches no row of an upstream manifest");
  }
  std::ostringstream os;
  os << "# Conformance with Volcano v1.12.1\n\n"
     << "<!-- Generated by tests/conformance (test_conformance; `make docs` rewrites it), but for the section\n"
     << "     between the lab markers, which tools/lab/conformance.py writes (`make conformance`). Do not edit. -->\n\n"
     << "Every table case of Volcano v1.12.1's scheduler tests (`pkg/scheduler/actions/*/*_test.go`,\n"
     << "`pkg/scheduler/plugins/**/*_test.go`) and job controller tests (`pkg/controllers/job/*_test.go`),\n"
     << "listed in `tests/conformance/upstream_cases.tsv` and `upstream_controller_cases.tsv`, is a row\n"
     << "here: ported to mltwin and passing; different on purpose, with the reason; not applicable,\n"
     << "with the feature it needs that mltwin does not model; or not yet ported, with what it waits\n"
     << "for. A ported case keeps its upstream file, function and name, builds its inputs with\n"
     << "mltwin's builders (`mltwin/policy/testing/builders.hpp` for the scheduler), runs what the\n"
     << "upstream case runs and asserts what it asserts (binds, evictions, pipelined tasks, PodGroup\n"
     << "phases; the Job's phase, retries and pods). Where an upstream job-controller case checks only\n"
     << "that the action returns no error, the port also checks what the state's file makes of the Job\n"
     << "(its phase, its pods), read from the lines it cites. `make test` fails when this page is stale\n"
     << "or an upstream case has no row.\n\n"
     << lab_section(current) << "\n";
  for (Suite& su : suites) {
    std::map<std::string, std::map<std::string, int>> per_file;
    std::map<std::string, int> totals;
    for (Row& r : su.rows) {
      // Every row is declared: ported (UPSTREAM_CASE), or NOT_YET / NOT_APPLICABLE /
      // DIFFERS_ON_PURPOSE with its reason. A row a new manifest brings must not pass unseen.
      if (r.status.empty()) {
        errors.push_back("upstream case '" + r.file + " | " + r.func + " | " + r.name +
                         "' has no row here: port it (UPSTREAM_CASE) or declare it NOT_YET, NOT_APPLICABLE or "
                         "DIFFERS_ON_PURPOSE with the reason");
        r.status = "not yet ported";
      }
      ++per_file[r.file][r.status];
      ++totals[r.status];
    }
    os << "\n## " << su.title << " (`" << su.root << "`)\n\n"
       << "**" << su.rows.size() << " upstream cases:** " << totals["passes"] << " ported and passing, "
       << totals["FAILS"] << " failing, " << totals["differs on purpose"] << " differing on purpose, "
       << totals["not applicable"] << " not applicable, " << totals["not yet ported"] << " not yet ported.\n\n"
       << "| Upstream file (under `" << su.root << "`) | Cases | Passing | Failing | Differs on purpose | Not applicable | Not yet ported |\n"
       << "|---|---:|---:|---:|---:|---:|---:|\n";
    for (auto& [file, n] : per_file)
      os << "| `" << file << "` | " << n["passes"] + n["FAILS"] + n["differs on purpose"] + n["not applicable"] + n["not yet ported"]
         << " | " << n["passes"] << " | " << n["FAILS"] << " | " << n["differs on purpose"] << " | " << n["not applicable"]
         << " | " << n["not yet ported"] << " |\n";
    os << "\n| Upstream file | Test function | Case | Status | Reason |\n|---|---|---|---|---|\n";
    for (const Row& r : su.rows)
      os << "| `" << r.file << "` | " << r.func << " | " << cell(r.name) << " | " << r.status << " | " << cell(r.reason) << " |\n";
  }
  if (!source_cases.empty()) {
    os << "\n## Written from Volcano's source\n\n"
       << "Rules with no upstream table case (the gang and nodeorder plugins, the PodGroup phase a\n"
       << "session leaves), each test citing the lines it follows.\n\n| Source file | What is checked | Status |\n|---|---|---|\n";
    for (const auto& [what, status] : source_cases) {
      const auto parts = split(what, " | ");
      os << "| `" << parts[0] << "` | " << cell(parts.size() > 1 ? parts[1] : "") << " | " << status << " |\n";
    }
  }
  return os.str();
}

}  // namespace

REGISTER_LISTENER("conformance-results", 1, Results);

int main(int argc, char** argv) {
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  const int rc = ctx.run();
  if (ctx.shouldExit()) return rc;
  bool filtered = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.find("-tc") != std::string::npos || a.find("-sc") != std::string::npos || a.find("-ts") != std::string::npos ||
        a.find("test-case") != std::string::npos || a.find("source-file") != std::string::npos || a.find("subcase") != std::string::npos ||
        a.find("-sf") != std::string::npos || a.find("-tce") != std::string::npos)
      filtered = true;
  }
  if (filtered) return rc;
  std::string current;
  {
    std::ifstream in(kPage);
    std::stringstream ss;
    ss << in.rdbuf();
    current = ss.str();
  }
  std::vector<std::string> errors;
  const std::string page = render(errors, current);
  for (const auto& e : errors) std::cerr << "conformance: " << e << "\n";
  if (!errors.empty()) return 1;
  if (current != page) {
    if (const char* u = std::getenv("MLTWIN_UPDATE_DOCS"); u != nullptr && std::string(u) == "1") {
      const std::string tmp = kPage + ".tmp";
      {
        std::ofstream out(tmp, std::ios::binary);
        out << page;
        if (!out) {
          std::cerr << "conformance: cannot write " << tmp << "\n";
          return 1;
        }
      }
      if (std::rename(tmp.c_str(), kPage.c_str()) != 0) {
        std::cerr << "conformance: cannot replace " << kPage << "\n";
        return 1;
      }
      std::cout << "conformance: wrote " << kPage << "\n";
    } else {
      std::cerr << "conformance: " << kPage << " is stale: run `make docs` (MLTWIN_UPDATE_DOCS=1 "
                << argv[0] << ") and commit it\n";
      return rc != 0 ? rc : 1;
    }
  }
  return rc;
}
