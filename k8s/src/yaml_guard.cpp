// yaml_guard.cpp — see yaml_guard.hpp.
#include "yaml_guard.hpp"

#include <yaml.h>

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

}  // namespace mltwin::k8s
