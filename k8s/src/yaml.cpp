// yaml_typed.cpp — the typed layer over yaml-cpp (yaml_typed.hpp).
#include "mltwin/k8s/yaml.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "mltwin/policy/go_duration.hpp"
#include "yaml_guard.hpp"

namespace mltwin::k8s {

std::string YamlPlace::str() const {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(column);
  if (!path.empty()) s += ": " + path;
  return s;
}

}  // namespace mltwin::k8s

namespace mltwin::k8s::yaml {

YamlPlace place_of(const Src& s, const YAML::Mark& m, const std::string& path) {
  YamlPlace p{s.file, 0, 0, path};
  if (s.outer) {
    p.line = s.outer->line + 1;
    p.column = s.outer->column + 1;
  } else if (m.line >= 0) {
    p.line = m.line + 1 + s.line0;
    p.column = m.column + 1 + s.col0;
  }
  return p;
}

[[noreturn]] void fail_at(const YamlPlace& p, const std::string& what) { throw InputError(p.str() + ": " + what); }

bool is_bool_word(const std::string& s, bool* value) {
  static const char* const yes[] = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"};
  static const char* const no[] = {"n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"};
  for (const char* w : yes)
    if (s == w) {
      if (value) *value = true;
      return true;
    }
  for (const char* w : no)
    if (s == w) {
      if (value) *value = false;
      return true;
    }
  return false;
}

bool is_int_text(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool is_float_text(const std::string& s) {
  if (s == ".inf" || s == "-.inf" || s == "+.inf" || s == ".nan" || s == ".Inf" || s == ".NaN") return true;
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  bool digits = false, dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) digits = true;
    else if (c == '.' && !dot) dot = true;
    else if ((c == 'e' || c == 'E') && digits) {
      std::size_t j = i + 1;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      if (j >= s.size()) return false;
      for (; j < s.size(); ++j)
        if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
      return true;
    } else {
      return false;
    }
  }
  return digits;
}

Plain plain_type(const YAML::Node& n) {
  if (n.IsNull()) return Plain::Null;
  if (n.Tag() != "?") return Plain::Str;  // quoted or explicitly tagged: a string
  const std::string& s = n.Scalar();
  if (s == "~" || s == "null" || s == "Null" || s == "NULL" || s.empty()) return Plain::Null;
  if (is_bool_word(s, nullptr)) return Plain::Bool;
  if (is_int_text(s)) return Plain::Int;
  if (is_float_text(s)) return Plain::Float;
  return Plain::Str;
}

/// Go's strconv.ParseUint(s, 0, 64) (base 0: "0x"/"0X" hexadecimal, "0o"/"0O" and a leading
/// "0" octal, "0b"/"0B" binary, else decimal; no sign). False on a syntax or range error.
bool go_parse_uint_base0(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  unsigned base = 10;
  if (s[0] == '0') {
    const char p = s.size() >= 3 ? static_cast<char>(std::tolower(static_cast<unsigned char>(s[1]))) : '\0';
    base = p == 'b' ? 2 : p == 'x' ? 16 : 8;
    s.remove_prefix(p == 'b' || p == 'o' || p == 'x' ? 2 : 1);
  }
  std::uint64_t n = 0;
  for (char ch : s) {
    const int c = std::tolower(static_cast<unsigned char>(ch));
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'z') d = static_cast<unsigned>(c - 'a' + 10);
    else return false;
    if (d >= base) return false;
    if (n > (UINT64_MAX - d) / base) return false;
    n = n * base + d;
  }
  out = n;
  return true;
}

/// Go's strconv.ParseInt(s, 0, 64): an optional sign, then go_parse_uint_base0, within int64.
bool go_parse_int_base0(std::string_view s, std::int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::uint64_t u = 0;
  if (!go_parse_uint_base0(s, u)) return false;
  const std::uint64_t cutoff = std::uint64_t{1} << 63;
  if (neg ? u > cutoff : u >= cutoff) return false;
  out = neg ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
  return true;
}

/// goyaml.v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool yaml_style_float(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

/// Go's strconv.ParseFloat(s, 64) on a yamlStyleFloat text: false on overflow (ErrRange); an
/// underflow is 0 or a subnormal, as Go returns it.
bool go_parse_float(std::string_view s, double& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);  // from_chars takes no '+'
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec == std::errc()) return r.ptr == s.data() + s.size();
  if (r.ec != std::errc::result_out_of_range) return false;
  out = std::strtod(std::string(s).c_str(), nullptr);  // glibc: correctly rounded, +-HUGE_VAL on overflow
  return std::isfinite(out);
}

/// The text the API server parses for a quantity written in YAML. kubectl, and the API server
/// for a YAML body, turn YAML into JSON with sigs.k8s.io/yaml v1.4.0 (YAMLToJSON): its goyaml.v2
/// fork resolves a plain scalar (resolve.go resolve) to an int (strconv.ParseInt or ParseUint,
/// base 0, underscores removed), a float (yamlStyleFloat, then ParseFloat) or a string, and
/// encoding/json writes the number; Quantity.UnmarshalJSON parses that text. So `cpu: 0x10` is
/// 16, `cpu: 010` is 8 (octal), `memory: 1_000` is 1000 and `cpu: 1.50` is "1.5", while a
/// quoted "0x10", or 1_000Mi, stay text (errors as quantities). Timestamps, null, booleans and
/// .inf/.nan are not numbers (errors either way).
std::string yaml_quantity_text(const YAML::Node& n) {
  const std::string& in = n.Scalar();
  if (n.Tag() != "?" || in.empty()) return in;  // quoted or tagged: a string
  const char c = in[0];
  if (c == '.') {  // the '.' hint: ParseFloat, which here accepts what yamlStyleFloat does
    double d = 0;
    if (yaml_style_float(in) && go_parse_float(in, d)) return go_json_float(d);
    return in;
  }
  if (c != '+' && c != '-' && !std::isdigit(static_cast<unsigned char>(c))) return in;
  std::string plain;
  for (char ch : in)
    if (ch != '_') plain += ch;
  if (std::int64_t i = 0; go_parse_int_base0(plain, i)) return std::to_string(i);
  if (std::uint64_t u = 0; go_parse_uint_base0(plain, u)) return std::to_string(u);
  if (double d = 0; yaml_style_float(plain) && go_parse_float(plain, d)) return go_json_float(d);
  return in;
}

std::string shown(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing (null)";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  std::string s = n.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "\"" + printable(s) + "\"";
}

bool simple_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

/// The string map of labels, nodeSelector, ...: every value a string.
std::vector<std::pair<std::string, std::string>> string_map(const Y& y) {
  M m(y, {}, {}, true);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : m.entries) out.emplace_back(k, v.str());
  return out;
}

/// A Kubernetes ResourceList: names mltwin models, quantities checked.
ResourceList resource_list(const Y& y) {
  M m(y, {}, {}, true);
  ResourceList out;
  for (const auto& [k, v] : m.entries) {
    if (!(k == "cpu" || k == "memory" || policy::is_scalar_resource_name(k)) || k.starts_with("count/"))
      fail_at(place_of(*v.src, v.node.Mark(), v.path),
              "'" + k + "' is not a resource name Volcano counts (cpu, memory, pods, ephemeral-storage, "
              "hugepages-<size>, or an extended resource such as aws.amazon.com/neuron or nvidia.com/gpu)");
    out.emplace_back(k, v.quantity());
  }
  return out;
}

json resources_json(const ResourceList& r) {
  json o = json::object();
  for (const auto& [k, q] : r) o[k] = q;
  return o;
}

/// The deepest value of `root` along a k8s_objects.hpp problem path ("a/0/b"), for the place of
/// an error: as far as the YAML goes.
Y descend(const Y& root, const std::string& slash_path) {
  Y at = root;
  std::stringstream ss(slash_path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (at.node.IsMap()) {
      const YAML::Node n = at.node[part];
      if (!n) break;
      at = at.child(part, n);
    } else if (at.node.IsSequence() && !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit)) {
      const std::size_t i = std::stoul(part);
      if (i >= at.node.size()) break;
      at = at.item(i, at.node[i]);
    } else {
      break;
    }
  }
  return at;
}

/// A list of strings (values of a node selector requirement).
json string_list(const Y& y) {
  json a = json::array();
  for (const Y& v : y.list()) a.push_back(v.str());
  return a;
}

/// A core/v1 NodeSelectorTerm as JSON, keys checked.
json node_selector_term_yaml(const Y& y) {
  const M m(y, {"matchExpressions", "matchFields"});
  json t = json::object();
  for (const char* part : {"matchExpressions", "matchFields"})
    if (const Y* list = m.get(part)) {
      json reqs = json::array();
      for (const Y& r : list->list()) {
        const M rm(r, {"key", "operator", "values"});
        json o = {{"key", rm.req("key").str()}, {"operator", rm.req("operator").str()}};
        if (const Y* v = rm.get("values")) o["values"] = string_list(*v);
        reqs.push_back(o);
      }
      t[part] = reqs;
    }
  return t;
}

/// spec.affinity: nodeAffinity in its Kubernetes shape, checked as the API server checks it;
/// podAffinity / podAntiAffinity are refused (mltwin's predicates run no InterPodAffinity).
json affinity_yaml(const Y& y) {
  const M a(y, {"nodeAffinity", "podAffinity", "podAntiAffinity"});
  for (const char* k : {"podAffinity", "podAntiAffinity"})
    if (const Y* p = a.get(k))
      p->fail(std::string(k) + " (inter-pod affinity) is not modelled: mltwin's predicates run no InterPodAffinity filter");
  const Y* na = a.get("nodeAffinity");
  if (!na) return json();
  const M m(*na, {"requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"});
  json out = json::object();
  if (const Y* r = m.get("requiredDuringSchedulingIgnoredDuringExecution")) {
    const M rm(*r, {"nodeSelectorTerms"});
    json terms = json::array();
    for (const Y& t : rm.req("nodeSelectorTerms").list()) terms.push_back(node_selector_term_yaml(t));
    out["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  if (const Y* p = m.get("preferredDuringSchedulingIgnoredDuringExecution")) {
    json prefs = json::array();
    for (const Y& e : p->list()) {
      const M em(e, {"weight", "preference"});
      prefs.push_back({{"weight", em.req("weight").int32(-2147483647)}, {"preference", node_selector_term_yaml(em.req("preference"))}});
    }
    out["preferredDuringSchedulingIgnoredDuringExecution"] = prefs;
  }
  if (auto problem = node_affinity_problem(out)) descend(*na, problem->field).fail(problem->message);
  return out;
}


std::string read_text(const std::string& file) { return read_input_file(file, "file", kMaxConfigFileBytes); }

std::vector<YAML::Node> load_all(const Src& src, const std::string& text) {
  // A JSON file (kubectl get -o json) is told of its JSON error; libyaml next: yaml-cpp 0.7 can
  // hang or recurse without bound on some bad input (yaml_guard.hpp).
  if (const auto problem = check_json(text)) {
    YAML::Mark at;
    at.line = static_cast<int>(problem->line);
    at.column = static_cast<int>(problem->column);
    fail_at(place_of(src, at, ""), "invalid JSON: " + problem->what);
  }
  if (const auto problem = check_yaml(text)) {
    YAML::Mark at;
    at.line = static_cast<int>(problem->line);
    at.column = static_cast<int>(problem->column);
    fail_at(place_of(src, at, ""), "invalid YAML: " + problem->what);
  }
  try {
    return YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    fail_at(place_of(src, e.mark, ""), "invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    fail_at(place_of(src, e.mark, ""), std::string("invalid YAML: ") + e.what());
  }
}

/// The one document of a file that must hold one (empty documents, e.g. comments only, are
/// skipped); otherwise a ScenarioError naming the file and `what` it should hold.
YAML::Node single_document(const Src& src, const std::string& text, const std::string& what) {
  std::vector<YAML::Node> real;
  for (const auto& d : load_all(src, text))
    if (!d.IsNull()) real.push_back(d);
  if (real.size() != 1)
    throw InputError(src.file + ": expected one YAML document (" + what + "), found " + std::to_string(real.size()));
  return real[0];
}

/// apiVersion and kind of a document (both required).
std::pair<std::string, std::string> type_of(const Y& doc) {
  if (!doc.node.IsMap()) doc.fail("expected a Kubernetes object (a mapping with apiVersion and kind), got " + shown(doc.node));
  const YAML::Node a = doc.node["apiVersion"], k = doc.node["kind"];
  if (!a) doc.fail("missing required key 'apiVersion'");
  if (!k) doc.fail("missing required key 'kind'");
  return {doc.child("apiVersion", a).str(), doc.child("kind", k).str()};
}

/// metadata.name (required) and namespace; the rest of metadata is ignored.
std::pair<std::string, std::string> name_of(const M& top, std::string_view kind) {
  const M meta(top.req("metadata"), {"name", "namespace"}, {}, true);
  const std::string name = meta.req("name").str();
  if (name.empty()) meta.req("name").fail("expected a non-empty name");
  if (std::string p = object_name_problem(name, kind); !p.empty()) meta.req("name").fail(p);
  return {name, meta.get("namespace") ? meta.get("namespace")->str() : std::string()};
}

}  // namespace mltwin::k8s::yaml
