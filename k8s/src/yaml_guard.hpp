// yaml_guard.hpp — a first pass over YAML text with libyaml (the reference C parser, Debian's
// libyaml-dev) before yaml-cpp builds nodes from it.
//
// yaml-cpp 0.7 (Debian 12) can loop for ever, allocating, on some malformed input — a 722-byte
// file found by tests/fuzz/fuzz_yaml took 22 GB in YAML::LoadAll (yaml-cpp issue #499, fixed
// upstream by PR #1319, 2024, after 0.8) — and recurses without bound on deep nesting
// (yaml-cpp issues #459, #654). libyaml's event parser rejects malformed text with a located
// error and needs no recursion; this pass also refuses nesting deeper than kMaxYamlDepth and
// documents whose aliases expand beyond kMaxYamlNodes (an "alias bomb": nine aliases of nine
// aliases ... of a list; go-yaml, which kubectl uses, refuses "excessive aliasing" likewise).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mltwin::k8s {

/// Deeper nesting than any Kubernetes object; yaml-cpp recurses once per level.
inline constexpr int kMaxYamlDepth = 200;
/// Nodes a document may expand to through its aliases (each alias counts the whole subtree it
/// stands for).
inline constexpr std::uint64_t kMaxYamlNodes = 1'000'000;

struct YamlProblem {
  std::size_t line = 0;    ///< 0-based, as YAML::Mark
  std::size_t column = 0;  ///< 0-based
  std::string what;        ///< e.g. "did not find expected node content (while parsing a flow node)"
};

/// The first problem libyaml or the limits above find in `text`, or nothing if yaml-cpp may
/// parse it. Never throws for bad input.
std::optional<YamlProblem> check_yaml(const std::string& text);

/// For text that starts (after white space) with '{' or '[', as `kubectl get -o json` prints:
/// the first JSON syntax error nlohmann::json finds ("syntax error while parsing object key -
/// unexpected end of input; expected string literal"), or nothing. Read as YAML instead (JSON
/// being YAML), a cut or broken JSON file gives libyaml's words about YAML. Never throws for bad
/// input; builds no document.
std::optional<YamlProblem> check_json(std::string_view text);

}  // namespace mltwin::k8s
