// scenario_input.cpp — reading a scenario document (internal to io/, declared in
// scenario_common.hpp): input files within their size limits, JSON text with the line and
// column of each error, no control characters in names and texts, and the JSON Schema check
// (valijson) with errors at JSON paths.
#include <fmt/format.h>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mltwin/io/scenario.hpp"
#include "scenario_common.hpp"

namespace mltwin::io::detail {

namespace fs = std::filesystem;
using nlohmann::json;

void check_printable(const std::string& file, const json& doc, const std::string& where) {
  if (doc.is_string()) {
    if (std::string p = control_character_problem(doc.get_ref<const std::string&>()); !p.empty()) fail(file, where.empty() ? "/" : where, p);
  } else if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (std::string p = control_character_problem(it.key()); !p.empty())
        fail(file, (where.empty() ? std::string("/") : where), "key: " + p);
      check_printable(file, it.value(), where + "/" + pointer_token_of(it.key()));
    }
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i) check_printable(file, doc[i], where + "/" + std::to_string(i));
  }
}

std::string line_col(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

namespace {

// A character iterator that remembers the furthest position the parser has read, so that an
// error the parser reports without a position (a duplicate key, a number out of range) can
// still say line:column.
struct TrackingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* p = nullptr;
  const char** seen = nullptr;
  reference operator*() const {
    *seen = p;
    return *p;
  }
  TrackingIterator& operator++() {
    ++p;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator t = *this;
    ++p;
    return t;
  }
  bool operator==(const TrackingIterator& o) const { return p == o.p; }
  bool operator!=(const TrackingIterator& o) const { return p != o.p; }
};

// Where the parser is, as a JSON pointer, while it reads: each open object (its keys so far
// and the key being read) or array (the index of the element being read).
struct ParsePath {
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  std::vector<Frame> frames;
  std::string pointer(std::size_t depth) const {
    std::string p;
    for (std::size_t i = 0; i < depth && i < frames.size(); ++i)
      p += "/" + (frames[i].array ? std::to_string(frames[i].index) : pointer_token_of(frames[i].key));
    return p;
  }
  void element_done() {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  }
};

// The byte offset of the opening quote of the string whose closing quote is at `close`.
std::size_t string_start(const std::string& text, std::size_t close) {
  for (std::size_t i = close; i-- > 0;) {
    if (text[i] != '"') continue;
    std::size_t backslashes = 0;
    for (std::size_t k = i; k-- > 0 && text[k] == '\\';) ++backslashes;
    if (backslashes % 2 == 0) return i;
  }
  return close;
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& path) {
  const char* seen = text.data();
  ParsePath where;
  // nlohmann keeps the last of duplicate keys silently; RFC 8259 leaves their meaning open and
  // Kubernetes' strict decoding refuses them, so mltwin does too.
  const json::parser_callback_t check = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: where.frames.push_back({}); break;
      case json::parse_event_t::array_start: where.frames.push_back({true, 0, {}, {}}); break;
      case json::parse_event_t::key: {
        ParsePath::Frame& f = where.frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          const std::size_t close = seen != nullptr ? static_cast<std::size_t>(seen - text.data()) : 0;
          throw ScenarioError(path + ":" + line_col(text, string_start(text, close)) + ": duplicate key '" + printable(f.key) +
                              "' in " + (where.frames.size() > 1 ? where.pointer(where.frames.size() - 1) : std::string("the top-level object")) +
                              " (JSON objects must not repeat a key: " + where.pointer(where.frames.size()) + " is given twice)");
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        where.frames.pop_back();
        where.element_done();
        break;
      case json::parse_event_t::value: where.element_done(); break;
    }
    return true;
  };
  try {
    return json::parse(TrackingIterator{text.data(), &seen}, TrackingIterator{text.data() + text.size(), &seen}, check);
  } catch (const json::parse_error& e) {
    throw ScenarioError(path + ":" + line_col(text, e.byte == 0 ? 0 : e.byte - 1) + ": invalid JSON: " + e.what());
  } catch (const json::exception& e) {
    // A number out of range ("1e400": out_of_range.406) and the like carry no position: the
    // place the parser had reached does (the number just read: back to its first character).
    std::size_t at = seen != nullptr && seen > text.data() ? static_cast<std::size_t>(seen - text.data()) : 0;
    while (at > 0 && std::strchr("0123456789+-.eE", text[at - 1]) != nullptr) --at;
    throw ScenarioError(path + ":" + line_col(text, at) + ": invalid JSON: " + e.what());
  }
}

json read_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path, "scenario file", kMaxScenarioFileBytes), path);
}

namespace {

// valijson context ["<root>", "[queues]", "[2]", "[weight]"] -> "/queues/2/weight" (each key
// escaped as RFC 6901 says: ["[pod]", "[\"aws.amazon.com/neuron\"]"] -> "/pod/aws.amazon.com~1neuron").
std::string pointer(const std::vector<std::string>& ctx) {
  std::string p;
  for (const auto& c : ctx) {
    if (c == "<root>") continue;
    std::string s = c;
    if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    p += "/" + pointer_token_of(s);
  }
  return p.empty() ? "/" : p;
}

std::string context_key(const std::string& c) {
  std::string key = c;
  if (key.size() >= 2 && key.front() == '[' && key.back() == ']') key = key.substr(1, key.size() - 2);
  if (key.size() >= 2 && key.front() == '"' && key.back() == '"') key = key.substr(1, key.size() - 2);
  return key;
}

// The JSON Schema type name of a value ("integer" for whole numbers written without a
// fraction, as valijson's strict type check sees them).
std::string json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "value";
  }
}

// a < b for two JSON numbers, exactly when both are integers (a uint64 above 2^53 against a
// bound does not go through double).
bool less_than(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    const bool a_neg = !a.is_number_unsigned() && a.get<std::int64_t>() < 0;
    const bool b_neg = !b.is_number_unsigned() && b.get<std::int64_t>() < 0;
    if (a_neg != b_neg) return a_neg;
    if (a_neg) return a.get<std::int64_t>() < b.get<std::int64_t>();
    return a.get<std::uint64_t>() < b.get<std::uint64_t>();
  }
  return a.get<double>() < b.get<double>();
}

bool has_type(const json& v, const std::string& type) {
  if (type == "number") return v.is_number();
  return json_type_name(v) == type;
}

}  // namespace

struct SchemaValidator::Impl {
  json doc;
  valijson::Schema schema;

  // Follows local "$ref"s ("#/definitions/x"); nullptr if one is not local.
  const json* deref(const json* s) const {
    for (int hops = 0; s != nullptr && s->is_object() && s->contains("$ref"); ++hops) {
      const json& ref = (*s)["$ref"];
      if (hops > 32 || !ref.is_string() || ref.get<std::string>().rfind('#', 0) != 0) return nullptr;
      const json::json_pointer ptr(ref.get<std::string>().substr(1));
      if (!doc.contains(ptr)) return nullptr;
      s = &doc[ptr];
    }
    return s;
  }

  // Walks the instance and the schema together along a valijson context ("properties",
  // "additionalProperties", "items", local "$ref"s). {nullptr, nullptr} when it leaves them.
  std::pair<const json*, const json*> value_and_schema_at(const json& inst, const std::vector<std::string>& ctx) const {
    const json* value = &inst;
    const json* sch = deref(&doc);
    for (const auto& c : ctx) {
      if (c == "<root>") continue;
      if (sch == nullptr || !sch->is_object()) return {nullptr, nullptr};
      const std::string key = context_key(c);
      if (value->is_object()) {
        if (!value->contains(key)) return {nullptr, nullptr};
        value = &(*value)[key];
        if (sch->contains("properties") && (*sch)["properties"].contains(key))
          sch = &(*sch)["properties"][key];
        else if (sch->contains("additionalProperties") && (*sch)["additionalProperties"].is_object())
          sch = &(*sch)["additionalProperties"];
        else
          return {nullptr, nullptr};
      } else if (value->is_array()) {
        std::size_t i = 0;
        try {
          std::size_t used = 0;
          i = static_cast<std::size_t>(std::stoul(key, &used));
          if (used != key.size()) return {nullptr, nullptr};
        } catch (const std::exception&) {
          return {nullptr, nullptr};
        }
        if (i >= value->size()) return {nullptr, nullptr};
        value = &(*value)[i];
        if (!sch->contains("items") || !(*sch)["items"].is_object()) return {nullptr, nullptr};
        sch = &(*sch)["items"];
      } else {
        return {nullptr, nullptr};
      }
      sch = deref(sch);
    }
    return {value, sch};
  }

  // "expected integer, got string \"4\"" when the schema at the location has a "type" the
  // value lacks; "expected one of ..." for a value outside an "enum"; empty otherwise.
  std::string explain(const json& inst, const std::vector<std::string>& ctx) const {
    const auto [value, sch] = value_and_schema_at(inst, ctx);
    if (value == nullptr || sch == nullptr || !sch->is_object()) return {};
    auto shown = [](const json& v) {
      std::string msg = json_type_name(v);
      if (v.is_primitive()) {
        const std::string text = v.dump();
        if (text.size() <= 40) msg += " " + text;
      }
      return msg;
    };
    if (sch->contains("type")) {
      std::vector<std::string> types;
      const json& t = (*sch)["type"];
      if (t.is_string()) types.push_back(t.get<std::string>());
      else if (t.is_array())
        for (const auto& x : t)
          if (x.is_string()) types.push_back(x.get<std::string>());
      bool ok = types.empty();
      for (const auto& type : types) ok = ok || has_type(*value, type);
      if (!ok) {
        std::string msg = "expected ";
        for (std::size_t i = 0; i < types.size(); ++i) {
          if (i > 0) msg += i + 1 == types.size() ? " or " : ", ";
          msg += types[i];
        }
        return msg + ", got " + shown(*value);
      }
    }
    if (value->is_number() && (sch->contains("minimum") || sch->contains("maximum"))) {
      // "expected an integer from 0 to 1000000, got 4294967298" rather than valijson's
      // "Expected number less than or equal to 1000000.000000".
      const bool below = sch->contains("minimum") && (*sch)["minimum"].is_number() && less_than(*value, (*sch)["minimum"]);
      const bool above = sch->contains("maximum") && (*sch)["maximum"].is_number() && less_than((*sch)["maximum"], *value);
      if (below || above) {
        const bool integer = sch->contains("type") && (*sch)["type"] == "integer";
        std::string msg = std::string("expected ") + (integer ? "an integer" : "a number");
        if (sch->contains("minimum") && sch->contains("maximum"))
          msg += " from " + (*sch)["minimum"].dump() + " to " + (*sch)["maximum"].dump();
        else if (sch->contains("minimum"))
          msg += " >= " + (*sch)["minimum"].dump();
        else
          msg += " <= " + (*sch)["maximum"].dump();
        return msg + ", got " + value->dump();
      }
    }
    if (sch->contains("enum") && (*sch)["enum"].is_array()) {
      const json& e = (*sch)["enum"];
      if (std::find(e.begin(), e.end(), *value) == e.end()) {
        std::string msg = "expected one of ";
        for (std::size_t i = 0; i < e.size(); ++i) msg += (i > 0 ? ", " : "") + e[i].dump();
        return msg + "; got " + shown(*value);
      }
    }
    if (sch->contains("const") && (*sch)["const"] != *value)
      return "expected " + (*sch)["const"].dump() + ", got " + shown(*value);
    if (value->is_object() && sch->contains("additionalProperties") && (*sch)["additionalProperties"] == false &&
        sch->contains("properties") && (*sch)["properties"].is_object()) {
      const json& props = (*sch)["properties"];
      for (auto it = value->begin(); it != value->end(); ++it)
        if (!props.contains(it.key())) {
          std::string msg = "unknown key '" + it.key() + "' (expected ";
          std::size_t i = 0;
          for (auto p = props.begin(); p != props.end(); ++p, ++i) msg += (i > 0 ? ", " : "") + p.key();
          return msg + ")";
        }
    }
    if (sch->contains("oneOf") && value->is_object()) {
      // The oneOf's of these schemas choose a variant by its key: name the keys.
      std::vector<std::string> keys;
      for (const auto& alt : (*sch)["oneOf"])
        if (alt.contains("required") && alt["required"].size() == 1) keys.push_back(alt["required"][0].get<std::string>());
      if (!keys.empty() && keys.size() == (*sch)["oneOf"].size()) {
        int present = 0;
        for (const auto& k : keys) present += value->contains(k) ? 1 : 0;
        if (present != 1) {
          std::string msg = "expected exactly one of ";
          for (std::size_t i = 0; i < keys.size(); ++i) msg += (i > 0 ? ", " : "") + ("'" + keys[i] + "'");
          return msg + (present == 0 ? ", found none" : ", found " + std::to_string(present));
        }
      }
    }
    return {};
  }
};

SchemaValidator::SchemaValidator(const char* schema_text) : impl_(std::make_unique<Impl>()) {
  impl_->doc = json::parse(schema_text);
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter a(impl_->doc);
  parser.populateSchema(a, impl_->schema);
}

SchemaValidator::~SchemaValidator() = default;

const json& SchemaValidator::schema() const { return impl_->doc; }

void SchemaValidator::validate(const std::string& file, const json& doc, const std::string& mount) const {
  valijson::Validator v;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (v.validate(impl_->schema, target, &results)) return;
  // Report the deepest error: it is the most specific ("weight: below minimum") rather than the
  // enclosing object's "failed to validate against schema".
  std::vector<valijson::ValidationResults::Error> errs(results.begin(), results.end());
  std::stable_sort(errs.begin(), errs.end(), [](const auto& a, const auto& b) { return a.context.size() > b.context.size(); });
  // valijson reports a oneOf failure only at the object holding the oneOf, after the errors of
  // each alternative (which mention keys the user did not write); prefer an explanation of
  // the deepest location that has one, then valijson's text.
  std::string what;
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < errs.size() && what.empty(); ++i) {
    if (i > 0 && errs[i].context.size() < errs[0].context.size()) break;
    what = impl_->explain(doc, errs[i].context);
    if (!what.empty()) chosen = i;
  }
  if (what.empty()) {
    // A oneOf/anyOf at a shallower level may explain better than a deep alternative's error.
    for (std::size_t i = 0; i < errs.size() && what.empty(); ++i) {
      what = impl_->explain(doc, errs[i].context);
      if (!what.empty()) chosen = i;
    }
  }
  if (what.empty()) what = errs.front().description;
  std::string at = pointer(errs[chosen].context);
  if (!mount.empty()) at = at == "/" ? mount : mount + at;
  std::string msg = file + ": " + at + ": " + what;
  if (errs.size() > 1) msg += " (" + std::to_string(errs.size() - 1) + " related schema messages omitted)";
  throw ScenarioError(msg);
}

}  // namespace mltwin::io::detail
