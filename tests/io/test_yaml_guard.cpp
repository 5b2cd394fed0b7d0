// The libyaml pass before yaml-cpp (io/src/yaml_guard.hpp): input that made yaml-cpp 0.7 loop
// or recurse without bound is refused with a located error, and ordinary manifests pass.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "../../k8s/src/yaml_guard.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/io/yaml_config.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "temp_dir.hpp"

using namespace mltwin;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("yaml guard: the fuzzer's yaml-cpp hang is an invalid-YAML error naming file:line:col") {
  // tests/fuzz/corpus/fuzz_yaml/yaml-cpp-loadall-hang.yaml: 722 bytes on which YAML::LoadAll
  // allocated 22 GB before this pass; line 22 opens a flow mapping "{pec:" that never closes.
  const std::string file = std::string(MLTWIN_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_yaml/yaml-cpp-loadall-hang.yaml";
  const auto problem = k8s::check_yaml(slurp(file));
  REQUIRE(problem);
  std::string msg;
  try {
    (void)io::read_manifests(file);
  } catch (const io::ScenarioError& e) {
    msg = e.what();
  }
  CHECK(msg.rfind(file + ":" + std::to_string(problem->line + 1) + ":" + std::to_string(problem->column + 1) + ": invalid YAML: ", 0) == 0);
}

TEST_CASE("yaml guard: limits on nesting and on alias expansion") {
  SUBCASE("nesting") {
    CHECK_FALSE(k8s::check_yaml(std::string(k8s::kMaxYamlDepth, '[') + std::string(k8s::kMaxYamlDepth, ']')));
    const auto p = k8s::check_yaml(std::string(k8s::kMaxYamlDepth + 1, '[') + std::string(k8s::kMaxYamlDepth + 1, ']'));
    REQUIRE(p);
    CHECK(p->column == static_cast<std::size_t>(k8s::kMaxYamlDepth));  // the (kMax+1)-th '['
    CHECK(p->what.find("nested deeper than") != std::string::npos);
  }
  SUBCASE("aliases: 9 levels of 9 aliases expand to 9^k nodes") {
    // a: a list of 9 scalars (10 nodes); each next anchor lists 9 aliases of the previous one:
    // level k expands to 1 + 9 * size(k-1) nodes: 10, 91, 820, 7381, 66430, 597871, 5380840.
    const auto bomb = [](int levels) {
      std::string y = "l0: &l0 [x, x, x, x, x, x, x, x, x]\n";
      for (int k = 1; k <= levels; ++k) {
        const std::string n = std::to_string(k), prev = std::to_string(k - 1);
        y.append("l").append(n).append(": &l").append(n).append(" [");
        for (int i = 0; i < 9; ++i) y.append(i ? ", *l" : "*l").append(prev);
        y.append("]\n");
      }
      return y;
    };
    // 5 levels: the document holds every level once: well under a million nodes.
    CHECK_FALSE(k8s::check_yaml(bomb(5)));
    // 6 levels: level 6 alone expands to 5,380,840 nodes.
    const auto p = k8s::check_yaml(bomb(6));
    REQUIRE(p);
    CHECK(p->what.find("excessive aliasing") != std::string::npos);
    CHECK(p->line == 6);
  }
  SUBCASE("an alias before its anchor") {
    const auto p = k8s::check_yaml("a: *nope\n");
    REQUIRE(p);
    CHECK(p->line == 0);
  }
  SUBCASE("the repository's manifests pass") {
    for (const char* f : {"/scenarios/yaml/cluster.yaml", "/scenarios/yaml/queues.yaml", "/scenarios/yaml/volcano-scheduler.yaml",
                          "/scenarios/yaml/jobs/bert-4x32.yaml", "/tests/io/fixtures/volcano-scheduler-configmap.yaml"}) {
      CAPTURE(f);
      CHECK_FALSE(k8s::check_yaml(slurp(std::string(MLTWIN_SOURCE_DIR) + f)));
    }
  }
}

TEST_CASE("a kubectl JSON file is told of its JSON syntax error; a file cut short says it may be") {
  test::TempDir dir;
  auto error_reading = [&](const std::string& text, bool as_snapshot) {
    const std::string file = dir.file("jobs.json");
    std::ofstream(file, std::ios::binary) << text;
    try {
      if (as_snapshot) {
        k8s::Snapshot s;
        k8s::read_file(file, s);
      } else {
        (void)io::read_manifests(file);
      }
    } catch (const std::exception& e) {
      return std::string(e.what()).substr(file.size());
    }
    return std::string("(no error)");
  };
  // Line 3, ` "items": [ {"kind": "Job",, } ]`: the second ',' is its 28th character, where a key
  // was expected. Read as YAML, libyaml would speak of a flow mapping instead.
  const std::string broken = "{\n \"kind\": \"List\",\n \"items\": [ {\"kind\": \"Job\",, } ]\n}\n";
  CHECK(error_reading(broken, false) == ":3:28: invalid JSON: syntax error while parsing object key - unexpected ','; expected string literal");
  // The same position from the snapshot reader (mltwin-scheduler's), which parses JSON itself.
  CHECK(error_reading(broken, true).rfind(":3:28: invalid JSON (syntax error while parsing object key - unexpected ','", 0) == 0);
  // Cut short (no final line break, as kubectl's output always has): the error says so.
  const std::string hint = " (the file does not end with a line break, as kubectl's output does: was it cut short?)";
  const std::string cut = "{\n \"kind\": \"List\",\n \"items\": [ {\"kind\": \"Job\", \"metadata\": {\"na";
  for (bool as_snapshot : {false, true}) {
    const std::string e = error_reading(cut, as_snapshot);
    CHECK_MESSAGE(e.rfind(":3:", 0) == 0, e);
    CHECK_MESSAGE(e.ends_with(hint), e);
    CHECK_FALSE(error_reading(cut + "\n", as_snapshot).ends_with(hint));
  }
  // A whole file without the final line break (Python's json.dump writes none): an error that is
  // not a syntax error gets no hint.
  const std::string whole = R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node"}]})";
  CHECK_FALSE(error_reading(whole, true).ends_with(hint));
  CHECK(error_reading(whole, true) != "(no error)");
}
