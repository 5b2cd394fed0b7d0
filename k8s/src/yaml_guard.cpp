// yaml_guard.cpp — see yaml_guard.hpp.
#include "yaml_guard.hpp"

#include <yaml.h>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <vector>

namespace mltwin::k8s {

std::optional<YamlProblem> check_yaml(const std::string& text) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) return YamlProblem{0, 0, "libyaml could not start (out of memory)"};
  const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> guard(&parser, yaml_parser_delete);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());

  // Per document: the expanded size of each anchored node, and of each open collection.
  std::map<std::string, std::uint64_t> anchored;
  struct Open {
    std::uint64_t nodes = 1;
    std::string anchor;
  };
  std::vector<Open> open;
  std::uint64_t document_nodes = 0;
  const auto add = [&](std::uint64_t n) {  // saturating: the limit is far below overflow
    std::uint64_t& to = open.empty() ? document_nodes : open.back().nodes;
    to = std::min<std::uint64_t>(to + n, kMaxYamlNodes + 1);
    return to;
  };
  const auto anchor_of = [](const yaml_char_t* a) { return a ? std::string(reinterpret_cast<const char*>(a)) : std::string(); };

  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      const yaml_mark_t& m = parser.problem ? parser.problem_mark : parser.mark;
      std::string what = parser.problem ? parser.problem : "invalid YAML";
      if (parser.context) what += std::string(" (") + parser.context + ")";
      return YamlProblem{m.line, m.column, what};
    }
    const std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> event(&ev, yaml_event_delete);
    const yaml_mark_t at = ev.start_mark;
    std::uint64_t total = 0;
    switch (ev.type) {
      case YAML_STREAM_END_EVENT: return std::nullopt;
      case YAML_DOCUMENT_START_EVENT:
        anchored.clear();
        document_nodes = 0;
        break;
      case YAML_SCALAR_EVENT:
        total = add(1);
        if (ev.data.scalar.anchor) anchored[anchor_of(ev.data.scalar.anchor)] = 1;
        break;
      case YAML_ALIAS_EVENT: {
        const auto it = anchored.find(anchor_of(ev.data.alias.anchor));
        if (it == anchored.end())
          return YamlProblem{at.line, at.column, "alias *" + anchor_of(ev.data.alias.anchor) + " names no anchor before it"};
        total = add(it->second);
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT:
        if (static_cast<int>(open.size()) >= kMaxYamlDepth)
          return YamlProblem{at.line, at.column, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels"};
        open.push_back({1, anchor_of(ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                                          : ev.data.mapping_start.anchor)});
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        Open done = std::move(open.back());
        open.pop_back();
        if (!done.anchor.empty()) anchored[done.anchor] = done.nodes;
        total = add(done.nodes);
        break;
      }
      default: break;
    }
    if (total > kMaxYamlNodes)
      return YamlProblem{at.line, at.column,
                         "the document expands to more than " + std::to_string(kMaxYamlNodes) +
                             " nodes through its aliases (excessive aliasing)"};
  }
}

namespace {
/// A SAX handler that keeps nothing: only the first parse error is noted.
struct JsonSyntax : nlohmann::json_sax<nlohmann::json> {
  std::optional<std::pair<std::size_t, std::string>> error;  // (1-based byte, message)
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    if (const auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    error.emplace(byte, std::move(what));
    return false;
  }
};
}  // namespace

std::optional<YamlProblem> check_json(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return std::nullopt;
  JsonSyntax sax;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const std::exception& e) {  // out_of_range: a number too large for a double
    return YamlProblem{0, 0, e.what()};
  }
  if (!sax.error) return std::nullopt;
  // The byte is 1-based: the error's line and column, 0-based as YAML::Mark.
  YamlProblem p{0, 0, sax.error->second};
  for (std::size_t i = 0; i + 1 < sax.error->first && i < text.size(); ++i) {
    if (text[i] == '\n') ++p.line, p.column = 0;
    else ++p.column;
  }
  return p;
}

}  // namespace mltwin::k8s
