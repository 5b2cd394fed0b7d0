// The YAML readers of mltwin/io/yaml_config.hpp. A thin typed layer over yaml-cpp keeps, for
// every value, its YAML path and its place in the file, so that each error says where it is.
// Where a shape comes from is said at each reader.
#include "mltwin/io/yaml_config.hpp"

#include <glob.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "k8s_objects.hpp"
#include "yaml_guard.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "scenario_common.hpp"
#include "scenario_yaml.hpp"

namespace mltwin::io {

using nlohmann::json;

std::string YamlPlace::str() const {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(column);
  if (!path.empty()) s += ": " + path;
  return s;
}

namespace {

// ---- the typed layer -----------------------------------------------------------------------

/// A file being read; for a document embedded in a block scalar (the ConfigMap's
/// volcano-scheduler.conf), the offsets that turn its marks into the outer file's.
struct Src {
  explicit Src(std::string f) : file(std::move(f)) {}
  std::string file;
  int line0 = 0;  ///< added to a mark's 0-based line
  int col0 = 0;   ///< added to a mark's 0-based column
  /// Embedded in a quoted scalar: marks inside are not the file's; point at the scalar.
  std::optional<YAML::Mark> outer;
};

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

[[noreturn]] void fail_at(const YamlPlace& p, const std::string& what) { throw ScenarioError(p.str() + ": " + what); }

// A plain scalar's YAML 1.1 type as gopkg.in/yaml.v2 resolves it (resolve.go): what the Go
// decoders Volcano and kubectl use would make of it.
enum class Plain { Null, Bool, Int, Float, Str };

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
    if (yaml_style_float(in) && go_parse_float(in, d)) return detail::go_json_float(d);
    return in;
  }
  if (c != '+' && c != '-' && !std::isdigit(static_cast<unsigned char>(c))) return in;
  std::string plain;
  for (char ch : in)
    if (ch != '_') plain += ch;
  if (std::int64_t i = 0; go_parse_int_base0(plain, i)) return std::to_string(i);
  if (std::uint64_t u = 0; go_parse_uint_base0(plain, u)) return std::to_string(u);
  if (double d = 0; yaml_style_float(plain) && go_parse_float(plain, d)) return detail::go_json_float(d);
  return in;
}

std::string shown(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing (null)";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  std::string s = n.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "\"" + detail::printable(s) + "\"";
}

bool simple_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

/// A value of the file with its YAML path.
struct Y {
  const Src* src;
  YAML::Node node;
  std::string path;

  YamlPlace at() const { return place_of(*src, node.Mark(), path); }
  [[noreturn]] void fail(const std::string& what) const { fail_at(at(), what); }
  Y child(const std::string& key, const YAML::Node& n) const {
    std::string p = path;
    if (simple_key(key)) p += (p.empty() ? "" : ".") + key;
    else p += "[\"" + key + "\"]";
    return Y{src, n, p};
  }
  Y item(std::size_t i, const YAML::Node& n) const { return Y{src, n, path + "[" + std::to_string(i) + "]"}; }

  std::string str() const {
    if (!node.IsScalar()) fail("expected a string, got " + shown(node));
    switch (plain_type(node)) {
      case Plain::Str: return printable_scalar();
      case Plain::Null: fail("expected a string, got nothing (null)");
      case Plain::Bool: fail("expected a string, got " + node.Scalar() + " (a boolean in YAML; quote it: \"" + node.Scalar() + "\")");
      default: fail("expected a string, got " + node.Scalar() + " (a number in YAML; quote it: \"" + node.Scalar() + "\")");
    }
  }
  long long integer() const {
    if (!node.IsScalar() || plain_type(node) != Plain::Int) {
      std::string msg = "expected an integer, got " + shown(node);
      if (node.IsScalar() && node.Tag() == "!" && is_int_text(node.Scalar())) msg += " (a quoted string)";
      fail(msg);
    }
    try {
      return std::stoll(node.Scalar());
    } catch (const std::exception&) {
      fail("integer out of range: " + node.Scalar());
    }
  }
  int int32(long long min = 0) const {
    const long long v = integer();
    if (v < min) fail("expected an integer >= " + std::to_string(min) + ", got " + node.Scalar());
    if (v > 2147483647LL) fail("expected a 32-bit integer, got " + node.Scalar());
    return static_cast<int>(v);
  }
  bool boolean() const {
    bool v = false;
    if (!node.IsScalar() || plain_type(node) != Plain::Bool || !is_bool_word(node.Scalar(), &v)) {
      std::string msg = "expected true or false, got " + shown(node);
      if (node.IsScalar() && node.Tag() == "!" && is_bool_word(node.Scalar(), nullptr)) msg += " (a quoted string)";
      fail(msg);
    }
    return v;
  }
  /// A Kubernetes quantity: a plain number or a string ("500m", "32Gi"), as the text the API
  /// server parses (yaml_quantity_text: `cpu: 0x10` is "16"), checked.
  std::string quantity() const {
    if (!node.IsScalar() || plain_type(node) == Plain::Null || plain_type(node) == Plain::Bool)
      fail("expected a Kubernetes quantity such as 500m, 16 or 32Gi, got " + shown(node));
    const std::string text = yaml_quantity_text(node);
    try {
      (void)parse_quantity(json(text));
    } catch (const std::exception& e) {
      fail(e.what());
    }
    return text;
  }
  /// Any scalar as its text (plugin arguments: Volcano keeps them as interface{} values).
  std::string scalar_text() const {
    if (!node.IsScalar()) fail("expected a single value (text, number or boolean), got " + shown(node));
    return printable_scalar();
  }
  /// The scalar, refused if it holds a control character (it would reach the terminal raw).
  std::string printable_scalar() const {
    if (std::string p = detail::control_character_problem(node.Scalar(), true); !p.empty()) fail(p);
    return node.Scalar();
  }
  std::vector<Y> list() const {
    if (node.IsNull()) return {};
    if (!node.IsSequence()) fail("expected a list, got " + shown(node));
    std::vector<Y> out;
    for (std::size_t i = 0; i < node.size(); ++i) out.push_back(item(i, node[i]));
    return out;
  }
};

/// A mapping: each key checked against the known ones; duplicate keys are errors (Go's YAML
/// decoders reject them too).
struct M {
  Y y;
  std::vector<std::pair<std::string, Y>> entries;
  std::vector<std::pair<std::string, Y>> ignored_entries;
  std::map<std::string, YAML::Mark> key_marks;
  /// The place of a key (not of its value), for errors about the key itself.
  YamlPlace key_at(const std::string& key, const Y& value) const { return place_of(*y.src, key_marks.at(key), value.path); }

  M(const Y& v, std::initializer_list<const char*> known, std::initializer_list<const char*> ignored = {},
    bool open = false)
      : y(v) {
    if (v.node.IsNull()) return;
    if (!v.node.IsMap()) v.fail("expected a mapping, got " + shown(v.node));
    std::set<std::string> seen;
    for (auto it = v.node.begin(); it != v.node.end(); ++it) {
      const YAML::Node k = it->first;  // a copy: operator-> returns a temporary proxy (ASan: stack-use-after-scope)
      if (!k.IsScalar()) fail_at(place_of(*v.src, k.Mark(), v.path), "expected a text key, got " + shown(k));
      const std::string key = k.Scalar();
      if (std::string p = detail::control_character_problem(key); !p.empty()) fail_at(place_of(*v.src, k.Mark(), v.path), "key: " + p);
      const Y child = v.child(key, it->second);
      if (!seen.insert(key).second) fail_at(place_of(*v.src, k.Mark(), child.path), "key '" + key + "' appears twice");
      bool is_known = open;
      for (const char* kk : known) is_known = is_known || key == kk;
      bool is_ignored = false;
      for (const char* kk : ignored) is_ignored = is_ignored || key == kk;
      if (!is_known && !is_ignored) {
        std::vector<std::string> all(known.begin(), known.end());
        all.insert(all.end(), ignored.begin(), ignored.end());
        std::string msg = "unknown key '" + key + "'" + detail::did_you_mean(key, all) + " (mltwin reads ";
        std::size_t i = 0;
        for (const char* kk : known) msg += std::string(i++ ? ", " : "") + kk;
        if (ignored.size() > 8) {
          msg += "; accepts and ignores " + std::to_string(ignored.size()) + " other fields";
        } else if (ignored.size() > 0) {
          msg += "; ignores ";
          i = 0;
          for (const char* kk : ignored) msg += std::string(i++ ? ", " : "") + kk;
        }
        fail_at(place_of(*v.src, k.Mark(), child.path), msg + ")");
      }
      key_marks[key] = k.Mark();
      (is_ignored ? ignored_entries : entries).emplace_back(key, child);
    }
  }
  /// An ignored key's value, for the few whose content is checked all the same.
  const Y* get_ignored(const std::string& key) const {
    for (const auto& [k, v] : ignored_entries)
      if (k == key) return v.node.IsNull() ? nullptr : &v;
    return nullptr;
  }
  const Y* get(const std::string& key) const {
    for (const auto& [k, v] : entries)
      if (k == key) return v.node.IsNull() ? nullptr : &v;
    return nullptr;
  }
  const Y& req(const std::string& key) const {
    if (const Y* v = get(key)) return *v;
    y.fail("missing required key '" + key + "'");
  }
};

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
  if (auto problem = detail::node_affinity_problem(out)) descend(*na, problem->field).fail(problem->message);
  return out;
}

json toleration_json(const Toleration& t) {
  json o = json::object();
  if (!t.key.empty()) o["key"] = t.key;
  if (!t.op.empty()) o["operator"] = t.op;
  if (!t.value.empty()) o["value"] = t.value;
  if (!t.effect.empty()) o["effect"] = t.effect;
  if (t.toleration_seconds) o["tolerationSeconds"] = *t.toleration_seconds;
  return o;
}

std::string read_text(const std::string& file) { return detail::read_input_file(file, "file", kMaxScenarioFileBytes); }

std::vector<YAML::Node> load_all(const Src& src, const std::string& text) {
  // libyaml first: yaml-cpp 0.7 can hang or recurse without bound on some bad input
  // (yaml_guard.hpp).
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
    throw ScenarioError(src.file + ": expected one YAML document (" + what + "), found " + std::to_string(real.size()));
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
  if (std::string p = detail::object_name_problem(name, kind); !p.empty()) meta.req("name").fail(p);
  return {name, meta.get("namespace") ? meta.get("namespace")->str() : std::string()};
}

// ---- volcano-scheduler.conf ---------------------------------------------------------------

/// The scheduler configuration document (pkg/scheduler/conf/scheduler_conf.go, v1.12.1) ->
/// the scenario's "volcano" keys; `marks` gets the place of each name a validate() error can
/// name ("actions[i]", "tiers[t].plugins[p].name").
json scheduler_conf_json(const Y& doc, std::map<std::string, YamlPlace>& marks) {
  const M top(doc, {"actions", "tiers", "configurations"}, {"metrics"});
  json out = json::object();
  if (const Y* a = top.get("actions")) {
    // UnmarshalSchedulerConf: strings.Split(actions, ","), each strings.TrimSpace'd.
    const std::string text = a->str();
    json list = json::array();
    std::string part;
    std::stringstream ss(text);
    while (std::getline(ss, part, ',')) {
      const auto b = part.find_first_not_of(" \t\n\r");
      const auto e = part.find_last_not_of(" \t\n\r");
      const std::string name = b == std::string::npos ? std::string() : part.substr(b, e - b + 1);
      marks["actions[" + std::to_string(list.size()) + "]"] = a->at();
      list.push_back(name);
    }
    if (list.empty()) a->fail("expected a comma-separated list of actions, such as \"enqueue, allocate, backfill\"");
    out["actions"] = list;
  }
  if (const Y* t = top.get("tiers")) {
    json tiers = json::array();
    for (const Y& tier : t->list()) {
      const M tm(tier, {"plugins"});
      json plugins = json::array();
      for (const Y& p : tm.req("plugins").list()) {
        // PluginOption: name, arguments and the per-extension-point switches under their yaml tags.
        std::vector<const char*> known = {"name", "arguments"};
        for (std::size_t e = 0; e < static_cast<std::size_t>(policy::Ext::kCount); ++e)
          known.push_back(policy::ext_key(static_cast<policy::Ext>(e)));
        const M pm(p, {}, {"EnabledClusterOrder", "enabledHyperNodeOrder"}, true);
        for (const auto& [k, v] : pm.entries)
          if (std::find_if(known.begin(), known.end(), [&k = k](const char* kk) { return k == kk; }) == known.end()) {
            std::string msg = "unknown key '" + k + "' (Volcano v1.12.1 ignores it, so it changes nothing; mltwin reads ";
            for (std::size_t i = 0; i < known.size(); ++i) msg += std::string(i ? ", " : "") + known[i];
            fail_at(pm.key_at(k, v), msg + ")");
          }
        json opt = json::object();
        const Y& name = pm.req("name");
        opt["name"] = name.str();
        marks[tier.path + ".plugins[" + std::to_string(plugins.size()) + "].name"] = name.at();
        if (const Y* args = pm.get("arguments")) {
          json a = json::object();
          const std::string at = tier.path + ".plugins[" + std::to_string(plugins.size()) + "].arguments";
          marks[at] = args->at();
          for (const auto& [k, v] : M(*args, {}, {}, true).entries) {
            a[k] = v.scalar_text();
            marks[at + "." + k] = v.at();  // where a plugin's refusal of this argument points
          }
          opt["arguments"] = a;
        }
        for (const auto& [k, v] : pm.entries)
          if (k != "name" && k != "arguments") opt[k] = v.boolean();
        plugins.push_back(opt);
      }
      tiers.push_back({{"plugins", plugins}});
    }
    out["tiers"] = tiers;
  }
  if (const Y* c = top.get("configurations")) {
    json confs = json::array();
    for (const Y& conf : c->list()) {
      const M cm(conf, {"name", "arguments"});
      json entry = {{"name", cm.req("name").str()}};
      if (const Y* args = cm.get("arguments")) {
        json a = json::object();
        for (const auto& [k, v] : M(*args, {}, {}, true).entries) a[k] = v.scalar_text();
        entry["arguments"] = a;
      }
      confs.push_back(entry);
    }
    out["configurations"] = confs;
  }
  // Volcano reads the file as it is: a file without tiers runs no plugins, one without
  // actions does nothing (the default configuration applies only when there is no file).
  if (!out.contains("tiers")) out["tiers"] = json::array();
  if (!out.contains("actions")) doc.fail("missing required key 'actions' (without actions the scheduler does nothing)");
  return out;
}

struct SchedulerConfRead {
  json doc;
  std::map<std::string, YamlPlace> marks;
};

SchedulerConfRead read_scheduler_conf(const std::string& file) {
  const std::string text = read_text(file);
  Src src(file);
  const Y doc{&src, single_document(src, text, "the volcano-scheduler ConfigMap or its volcano-scheduler.conf"), ""};
  SchedulerConfRead out;
  if (!doc.node.IsMap() || !doc.node["kind"]) {  // the bare volcano-scheduler.conf
    out.doc = scheduler_conf_json(doc, out.marks);
    return out;
  }
  const auto [api, kind] = type_of(doc);
  if (kind != "ConfigMap" || api != "v1")
    doc.child("kind", doc.node["kind"])
        .fail("expected a ConfigMap (apiVersion v1) holding volcano-scheduler.conf, got " + kind + " (apiVersion " + api + ")");
  const M top(doc, {"apiVersion", "kind", "metadata", "data"});
  // The chart mounts the ConfigMap's `volcano-scheduler.conf` key as the scheduler's
  // --scheduler-conf file (installer/helm/chart/volcano/templates/scheduler.yaml); other keys
  // are other files, which the scheduler does not read.
  const M data(top.req("data"), {}, {}, true);
  const Y* conf = data.get("volcano-scheduler.conf");
  if (!conf) data.y.fail("missing the key 'volcano-scheduler.conf' (the file the Volcano chart passes to --scheduler-conf)");
  const std::string embedded = conf->str();
  // A block scalar (`|`) keeps the embedded lines as they are, shifted by the indentation:
  // errors inside point at the file's own line and column. Otherwise (a quoted string) they
  // point at the string.
  Src inner(file);
  const YAML::Mark m = conf->node.Mark();
  const std::size_t pos = m.pos >= 0 ? static_cast<std::size_t>(m.pos) : std::string::npos;
  if (pos < text.size() && text[pos] == '|') {
    std::size_t line_start = text.find('\n', pos);
    inner.line0 = m.line + 1;
    // Blank lines before the first content line count as embedded lines too; the indentation
    // is that of the first line that is not blank.
    for (std::size_t p = line_start; p != std::string::npos && p + 1 < text.size(); p = text.find('\n', p + 1)) {
      std::size_t q = p + 1;
      while (q < text.size() && text[q] == ' ') ++q;
      if (q < text.size() && text[q] != '\n' && text[q] != '\r') {
        inner.col0 = static_cast<int>(q - (p + 1));
        break;
      }
    }
  } else {
    inner.outer = m;
  }
  std::vector<YAML::Node> idocs = load_all(inner, embedded);
  YAML::Node root = idocs.empty() ? YAML::Node() : idocs[0];
  const Y idoc{&inner, root, ""};
  if (idocs.size() > 1) idoc.fail("volcano-scheduler.conf holds more than one YAML document");
  out.doc = scheduler_conf_json(idoc, out.marks);
  // The marks refer to `inner`, whose offsets are already applied.
  return out;
}

// ---- manifests -----------------------------------------------------------------------------

constexpr const char* kVolcanoScheduling = "scheduling.volcano.sh/v1beta1";
constexpr const char* kVolcanoBatch = "batch.volcano.sh/v1alpha1";
constexpr const char* kPriorityApi = "scheduling.k8s.io/v1";

std::vector<JobPolicy> policies_of(const Y& y) {
  // LifecyclePolicy (batch.volcano.sh/v1alpha1), checked as the admission webhook checks a list
  // (pkg/webhooks/admission/jobs/validate/util.go validatePolicies, v1.12.1): known events and
  // actions, no event in two policies, "*" alone.
  std::vector<JobPolicy> out;
  std::set<std::string> seen;
  for (const Y& p : y.list()) {
    const M m(p, {"event", "events", "action", "exitCode", "timeout"});
    JobPolicy jp;
    std::vector<Y> event_nodes;
    if (const Y* e = m.get("event")) event_nodes.push_back(*e);
    if (const Y* es = m.get("events"))
      for (const Y& e : es->list()) event_nodes.push_back(e);
    // The CRD's enum of events (batch.volcano.sh_jobs.yaml); the webhook's policyEventMap
    // refuses the controller's internal ones.
    static const std::set<std::string> events = {"*", "PodPending", "PodRunning", "PodFailed", "PodEvicted", "Unknown",
                                                  "TaskCompleted", "OutOfSync", "CommandIssued", "JobUpdated", "TaskFailed"};
    for (const Y& en : event_nodes) {
      const std::string e = en.str();
      if (!events.count(e))
        en.fail("unknown event '" + e + "' (Volcano's are *, PodPending, PodRunning, PodFailed, PodEvicted, "
                "Unknown, TaskCompleted, OutOfSync, CommandIssued, JobUpdated, TaskFailed)");
      if (e == "PodRunning" || e == "OutOfSync" || e == "CommandIssued")
        en.fail("event '" + e + "' is internal to the job controller: Volcano's admission webhook refuses it in a policy");
      if (!seen.insert(e).second) en.fail("event '" + e + "' appears in two policies (Volcano's admission webhook refuses it)");
      jp.events.push_back(e);
    }
    if (const Y* c = m.get("exitCode"))
      c->fail("a policy on a container exit code is not modelled (mltwin's pods fail with their node or their gang, "
              "without an exit code); use event: PodFailed");
    if (const Y* t = m.get("timeout"))
      t->fail("a delayed action (timeout) is not modelled: mltwin's job controller acts at once");
    if (jp.events.empty()) p.fail("a policy needs an event or events");
    static const std::set<std::string> actions = {"RestartJob", "RestartTask", "RestartPod", "AbortJob",
                                                   "TerminateJob", "CompleteJob", "ResumeJob"};
    const Y& a = m.req("action");
    jp.action = a.str();
    if (!actions.count(jp.action))
      a.fail("unknown action '" + jp.action + "' (a policy may name RestartJob, RestartTask, RestartPod, AbortJob, "
             "TerminateJob, CompleteJob, ResumeJob)");
    out.push_back(std::move(jp));
  }
  if (seen.count("*") && seen.size() > 1)
    y.fail("a policy on \"*\" cannot stand beside policies on other events (Volcano's admission webhook refuses it)");
  return out;
}

/// torchrun's --nproc_per_node (or --nproc-per-node) in a command line, if any.
std::optional<int> nproc_in(const std::vector<std::string>& argv) {
  std::vector<std::string> tokens;
  for (const auto& a : argv) {
    std::stringstream ss(a);
    std::string t;
    while (ss >> t) tokens.push_back(t);
  }
  bool torchrun = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "torchrun" || t.find("/torchrun") != std::string::npos || t == "torch.distributed.run") torchrun = true;
    if (!torchrun) continue;
    std::string value;
    for (const char* flag : {"--nproc_per_node", "--nproc-per-node"}) {
      const std::string f = flag;
      if (t == f && i + 1 < tokens.size()) value = tokens[i + 1];
      else if (t.rfind(f + "=", 0) == 0) value = t.substr(f.size() + 1);
    }
    if (!value.empty() && is_int_text(value) && value[0] != '-') return std::stoi(value);
  }
  return std::nullopt;
}

PodShape pod_of(const Y& tmpl) {
  // PodTemplateSpec: metadata, spec. Of the PodSpec mltwin reads the containers' resources and
  // what decides placement; the rest (volumes, restartPolicy, serviceAccountName, ...) changes
  // nothing mltwin models.
  const M t(tmpl, {"metadata", "spec"});
  const M spec(t.req("spec"), {"containers", "nodeSelector", "tolerations", "affinity", "priorityClassName"}, {}, true);
  PodShape pod;
  std::vector<std::pair<std::string, double>> sum;  // name -> summed quantity
  std::map<std::string, std::string> text;          // name -> text, while only one container sets it
  std::vector<std::string> argv;
  const auto containers = spec.req("containers").list();
  if (containers.empty()) spec.req("containers").fail("expected at least one container");
  for (const Y& c : containers) {
    const M cm(c, {"name", "resources", "command", "args"}, {}, true);
    if (const Y* cmd = cm.get("command"))
      for (const Y& a : cmd->list()) argv.push_back(a.scalar_text());
    if (const Y* args = cm.get("args"))
      for (const Y& a : args->list()) argv.push_back(a.scalar_text());
    if (!cm.get("resources")) continue;
    const M res(*cm.get("resources"), {"requests", "limits"}, {"claims"});
    ResourceList req = res.get("requests") ? resource_list(*res.get("requests")) : ResourceList{};
    const ResourceList lim = res.get("limits") ? resource_list(*res.get("limits")) : ResourceList{};
    // "If you specify a limit for a resource, but do not specify any request, ... Kubernetes
    // copies the limit you specified and uses it as the requested value" (Kubernetes docs,
    // Resource Management for Pods and Containers).
    for (const auto& [k, q] : lim)
      if (std::none_of(req.begin(), req.end(), [&k = k](const auto& e) { return e.first == k; })) req.emplace_back(k, q);
    for (const auto& [k, q] : req) {
      auto it = std::find_if(sum.begin(), sum.end(), [&k = k](const auto& e) { return e.first == k; });
      const double v = parse_quantity(json(q));
      if (it == sum.end()) {
        sum.emplace_back(k, v);
        text[k] = q;
      } else {
        it->second += v;
        std::ostringstream os;
        os.precision(17);
        os << it->second;
        text[k] = os.str();
      }
    }
  }
  for (const auto& [k, v] : sum) pod.requests.emplace_back(k, text[k]);
  if (const Y* ns = spec.get("nodeSelector"))
    for (auto& [k, v] : string_map(*ns)) {
      if (std::string p = detail::qualified_name_problem(k); !p.empty()) ns->child(k, ns->node[k]).fail("label key '" + k + "': " + p);
      if (std::string p = detail::label_value_problem(v); !p.empty()) ns->child(k, ns->node[k]).fail(p);
      pod.node_selector[k] = v;
    }
  if (const Y* tl = spec.get("tolerations"))
    for (const Y& tol : tl->list()) {
      // core/v1 Toleration, checked as ValidateTolerations does.
      const M tm(tol, {"key", "operator", "value", "effect", "tolerationSeconds"});
      Toleration x;
      if (const Y* v = tm.get("key")) x.key = v->str();
      if (const Y* v = tm.get("operator")) x.op = v->str();
      if (const Y* v = tm.get("value")) x.value = v->str();
      if (const Y* v = tm.get("effect")) x.effect = v->str();
      if (const Y* v = tm.get("tolerationSeconds")) x.toleration_seconds = v->integer();
      if (auto problem = detail::toleration_problem(toleration_json(x))) descend(tol, problem->field).fail(problem->message);
      pod.tolerations.push_back(x);
    }
  if (const Y* a = spec.get("affinity")) pod.node_affinity = affinity_yaml(*a);
  if (const Y* pc = spec.get("priorityClassName")) pod.priority_class_name = pc->str();
  pod.nproc_per_node = nproc_in(argv);
  return pod;
}

VolcanoJobManifest job_of_doc(const M& top, const Y& doc) {
  VolcanoJobManifest j;
  j.at = doc.at();
  std::tie(j.name, j.namespace_) = name_of(top, "Job");
  // Annotations: the Volcano job controller copies the Job's onto its PodGroup
  // (pkg/controllers/job/job_controller_actions.go, createOrUpdatePodGroup), where the scheduler
  // reads the sla waiting time: volcano.sh/sla-waiting-time first, then sla-waiting-time
  // (pkg/scheduler/api/job_info.go SetPodGroup / extractWaitingTime, v1.12.1). Volcano skips a
  // value Go cannot parse, or <= 0, with a warning; here it is an error at its place. Other
  // annotations change nothing mltwin models.
  {
    const M meta(top.req("metadata"), {"name", "namespace"}, {}, true);
    if (const Y* ann = meta.get("annotations")) {
      const M am(*ann, {}, {}, true);
      for (const char* key : {"volcano.sh/sla-waiting-time", "sla-waiting-time"}) {
        const Y* v = am.get(key);
        if (!v) continue;
        const std::string text = v->str();
        std::int64_t ns = 0;
        try {
          ns = policy::parse_go_duration(text);
        } catch (const std::invalid_argument& e) {
          v->fail(std::string(e.what()) + " (a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h)");
        }
        if (ns <= 0) v->fail("\"" + text + "\" is not positive (Volcano ignores such a waiting time; remove it instead)");
        if (ns > kMaxScenarioTime.count_ns())
          v->fail("\"" + text + "\" is beyond the longest time a scenario may give, " + std::string(kMaxScenarioTimeText));
        if (j.sla_waiting_time.empty()) j.sla_waiting_time = text;  // the first key wins
      }
    }
  }
  // JobSpec keys (batch.volcano.sh_jobs.yaml). Ignored: plugins (env, svc, ssh: environment
  // and services for the pods), minSuccess, ttlSecondsAfterFinished, volumes,
  // runningEstimate, networkTopology.
  const M spec(top.req("spec"), {"tasks", "minAvailable", "queue", "priorityClassName", "maxRetry", "policies", "schedulerName"},
               {"plugins", "minSuccess", "ttlSecondsAfterFinished", "volumes", "runningEstimate", "networkTopology"});
  if (const Y* s = spec.get("schedulerName"))
    if (s->str() != "volcano") s->fail("expected \"volcano\" (mltwin models the Volcano scheduler), got \"" + s->str() + "\"");
  // Defaults of the admission webhook (mutate_job.go): queue "default", maxRetry 3.
  j.queue = "default";
  j.queue_at = j.at;
  if (const Y* q = spec.get("queue")) {
    j.queue = q->str();
    j.queue_at = q->at();
  }
  j.max_retry = spec.get("maxRetry") ? spec.get("maxRetry")->int32() : 0;
  if (j.max_retry == 0) j.max_retry = 3;
  if (const Y* pc = spec.get("priorityClassName")) j.priority_class_name = pc->str();
  if (const Y* p = spec.get("policies")) j.policies = policies_of(*p);
  std::set<std::string> names;
  int min_sum = 0;
  const auto tasks = spec.req("tasks").list();
  if (tasks.empty()) spec.req("tasks").fail("expected at least one task");
  for (const Y& t : tasks) {
    // TaskSpec keys; ignored: topologyPolicy (CPU/NUMA topology of the node).
    const M tm(t, {"name", "replicas", "template", "minAvailable", "maxRetry", "policies", "dependsOn"}, {"topologyPolicy"});
    VolcanoTask task;
    task.at = t.at();
    task.name = tm.req("name").str();
    if (std::string p = detail::object_name_problem(task.name, "task"); !p.empty()) tm.req("name").fail(p);
    if (!names.insert(task.name).second) tm.req("name").fail("task name '" + task.name + "' appears twice");
    task.replicas = tm.req("replicas").int32(0);
    if (const Y* m = tm.get("minAvailable")) task.min_available = m->int32(0);
    if (const Y* m = tm.get("maxRetry")) task.max_retry = m->int32(0);
    if (const Y* p = tm.get("policies")) task.policies = policies_of(*p);
    if (const Y* d = tm.get("dependsOn"))
      d->fail("dependsOn (start this task after others) is not modelled: mltwin starts a job's pods together");
    task.pod = pod_of(tm.req("template"));
    min_sum += task.min_available.value_or(task.replicas);
    j.tasks.push_back(std::move(task));
  }
  j.min_available_at = j.at;
  j.min_available = 0;
  if (const Y* m = spec.get("minAvailable")) {
    j.min_available = m->int32(0);
    j.min_available_at = m->at();
  }
  if (j.min_available == 0) j.min_available = min_sum;
  return j;
}

void read_doc(const Y& doc, Manifests& out) {
  if (doc.node.IsNull()) return;  // an empty document (a trailing ---)
  const auto [api, kind] = type_of(doc);
  const Y kind_y = doc.child("kind", doc.node["kind"]);
  const Y api_y = doc.child("apiVersion", doc.node["apiVersion"]);
  // Captured by name: clang before 16 cannot capture structured bindings (the fuzz build).
  auto want_api = [&, &api = api, &kind = kind](const char* expected) {
    if (api != expected) api_y.fail(kind + " is read as apiVersion " + expected + " (Volcano v1.12.1's CRDs), not \"" + api + "\"");
  };
  if (kind == "List" && api == "v1") {  // kubectl get -o yaml
    const M top(doc, {"apiVersion", "kind", "items", "metadata"});
    if (const Y* items = top.get("items"))
      for (const Y& item : items->list()) read_doc(item, out);
    return;
  }
  if (kind == "Queue") {
    want_api(kVolcanoScheduling);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec", "status"});
    QueueManifest q;
    q.at = doc.at();
    q.name = name_of(top, "Queue").first;
    // QueueSpec keys. Ignored: type, affinity, extendClusters (node-group affinity and
    // multi-cluster dispatch, which no plugin mltwin runs reads).
    q.parent_at = q.at;
    if (const Y* s = top.get("spec")) {
      const M spec(*s, {"weight", "capability", "guarantee", "reclaimable", "priority", "deserved", "parent"},
                   {"type", "affinity", "extendClusters"});
      if (const Y* d = spec.get("deserved")) q.deserved = resource_list(*d);
      if (const Y* p = spec.get("parent")) {
        q.parent = p->str();
        q.parent_at = p->at();
        if (q.parent.empty()) p->fail("expected a queue name");
      }
      if (const Y* w = spec.get("weight")) q.weight = w->int32(0);
      if (q.weight == 0) q.weight = 1;  // the queue webhook's default (mutate_queue.go)
      if (const Y* c = spec.get("capability")) q.capability = resource_list(*c);
      if (const Y* g = spec.get("guarantee")) {
        const M gm(*g, {"resource"});
        if (const Y* r = gm.get("resource")) q.guarantee = resource_list(*r);
      }
      if (const Y* r = spec.get("reclaimable")) q.reclaimable = r->boolean();
      if (const Y* p = spec.get("priority")) q.priority = p->int32(-2147483647);
    }
    if (const Y* st = top.get("status")) {
      const M sm(*st, {"state"}, {}, true);
      if (const Y* s = sm.get("state")) {
        q.state = s->str();
        if (q.state != "Open" && q.state != "Closed") s->fail("expected Open or Closed, got \"" + q.state + "\"");
      }
    }
    out.queues.push_back(std::move(q));
  } else if (kind == "Job") {
    want_api(kVolcanoBatch);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec"}, {"status"});
    out.jobs.push_back(job_of_doc(top, doc));
  } else if (kind == "PodGroup") {
    want_api(kVolcanoScheduling);
    const M top(doc, {"apiVersion", "kind", "metadata", "spec"}, {"status"});
    PodGroupManifest pg;
    pg.at = doc.at();
    pg.name = name_of(top, "PodGroup").first;
    const M spec(top.req("spec"), {"minMember", "queue", "minResources", "priorityClassName"},
                 {"minTaskMember", "networkTopology"});
    if (const Y* m = spec.get("minMember")) pg.min_member = m->int32(0);
    if (const Y* q = spec.get("queue")) pg.queue = q->str();
    if (const Y* r = spec.get("minResources")) pg.min_resources = resource_list(*r);
    if (const Y* p = spec.get("priorityClassName")) pg.priority_class_name = p->str();
    out.podgroups.push_back(std::move(pg));
  } else if (kind == "PriorityClass") {
    want_api(kPriorityApi);
    const M top(doc, {"apiVersion", "kind", "metadata", "value", "globalDefault"}, {"description", "preemptionPolicy"});
    PriorityClassManifest pc;
    pc.at = doc.at();
    pc.name = name_of(top, "PriorityClass").first;
    // pkg/apis/scheduling/validation: the system- prefix is Kubernetes' own; user classes go up
    // to HighestUserDefinablePriority (1,000,000,000).
    if (pc.name.rfind("system-", 0) == 0)
      M(top.req("metadata"), {}, {}, true).req("name").fail("the prefix 'system-' is reserved for Kubernetes' system PriorityClasses");
    const long long value = top.req("value").integer();
    if (value > 1000000000LL || value < -2147483648LL)
      top.req("value").fail("expected a value up to 1000000000 (HighestUserDefinablePriority), got " + std::to_string(value));
    pc.value = static_cast<int>(value);
    if (const Y* g = top.get("globalDefault")) pc.global_default = g->boolean();
    out.priority_classes.push_back(std::move(pc));
  } else {
    std::string hint;
    if (kind == "ClusterConfig") hint = "; an eksctl ClusterConfig is read from the scenario's cluster.eksctl";
    if (kind == "ConfigMap") hint = "; the volcano-scheduler ConfigMap is read from the scenario's volcano.scheduler_config";
    kind_y.fail("unknown kind \"" + kind + "\" (apiVersion " + api + "): mltwin reads Queue and PodGroup (" + kVolcanoScheduling +
                "), Job (" + kVolcanoBatch + "), PriorityClass (" + kPriorityApi + ") and List" + hint);
  }
}

}  // namespace

int VolcanoJobManifest::pods() const {
  int n = 0;
  for (const auto& t : tasks) n += t.replicas;
  return n;
}

std::string VolcanoJobManifest::action_on_evicted(const VolcanoTask& t) const {
  auto find = [](const std::vector<JobPolicy>& ps) -> std::string {
    for (const auto& p : ps)
      for (const auto& e : p.events)
        if (e == "PodEvicted" || e == "*") return p.action;
    return {};
  };
  std::string a = find(t.policies);
  return a.empty() ? find(policies) : a;
}

json volcano_scheduler_config_json(const std::string& file, std::vector<std::string>* warnings) {
  SchedulerConfRead r = read_scheduler_conf(file);
  // Unknown plugins and actions: the error the scenario's JSON gives, at the name's place.
  const policy::SchedulerConfig cfg = detail::scheduler_config_of(r.doc);
  if (warnings)
    for (const policy::ArgIssue& i : cfg.check_arguments()) {
      if (i.severity != policy::ArgIssue::Severity::Warning) continue;
      const auto it = r.marks.find(i.where);
      warnings->push_back((it == r.marks.end() ? file : it->second.file + ":" + std::to_string(it->second.line) + ":" +
                                                           std::to_string(it->second.column)) +
                          ": " + i.where + ": " + i.message);
    }
  if (std::string err = cfg.validate(); !err.empty()) {
    const auto colon = err.find(": ");
    const std::string key = colon == std::string::npos ? std::string() : err.substr(0, colon);
    const auto it = r.marks.find(key);
    if (it == r.marks.end()) throw ScenarioError(file + ": " + err);
    YamlPlace p = it->second;
    p.path = key.rfind("actions[", 0) == 0 ? "actions" : key;
    fail_at(p, err.substr(colon + 2));
  }
  return r.doc;
}

policy::SchedulerConfig read_volcano_scheduler_config(const std::string& file) {
  return detail::scheduler_config_of(volcano_scheduler_config_json(file));
}

Manifests read_manifests(const std::string& file) {
  const std::string text = read_text(file);
  Src src(file);
  Manifests out;
  const auto docs = load_all(src, text);
  for (std::size_t i = 0; i < docs.size(); ++i) read_doc(Y{&src, docs[i], ""}, out);
  return out;
}

EksctlClusterConfig read_eksctl_config(const std::string& file) {
  const std::string text = read_text(file);
  Src src(file);
  const Y doc{&src, single_document(src, text, "an eksctl ClusterConfig"), ""};
  const auto [api, kind] = type_of(doc);
  if (kind != "ClusterConfig")
    doc.child("kind", doc.node["kind"]).fail("expected ClusterConfig (apiVersion eksctl.io/v1alpha5), got \"" + kind + "\"");
  if (api != "eksctl.io/v1alpha5")
    doc.child("apiVersion", doc.node["apiVersion"]).fail("expected eksctl.io/v1alpha5, got \"" + api + "\"");
  // eksctl decodes a config file strictly (pkg/eks/api.go:222 ParseConfig: yaml.UnmarshalStrict,
  // eksctl v0.230.0), so a misspelt key is an error there and here. The field lists are the json
  // names of pkg/apis/eksctl.io/v1alpha5/types.go at v0.230.0: ClusterConfig (:1004),
  // ClusterMeta (:700), NodeGroupBase (:1888) with ScalingConfig (:1841), NodeGroup (:1501),
  // ManagedNodeGroup (:2103). Of the cluster mltwin reads
  // its node groups; the rest (vpc, iam, addons, cloudWatch, ...) changes nothing it models.
  const M top(doc, {"apiVersion", "kind", "metadata", "nodeGroups", "managedNodeGroups"},
              {"upgradePolicy", "kubernetesNetworkConfig", "autoModeConfig", "remoteNetworkConfig", "iam", "iamIdentityMappings",
               "identityProviders", "accessConfig", "vpc", "addons", "addonsConfig", "privateCluster", "fargateProfiles",
               "availabilityZones", "localZones", "cloudWatch", "secretsEncryption", "gitops", "karpenter", "outpost",
               "controlPlaneScalingConfig", "zonalShiftConfig", "kubeAPIServerConfig", "kubeSchedulerConfig",
               "kubeControllerManagerConfig", "capabilities"});
  EksctlClusterConfig cc;
  {
    const M meta(top.req("metadata"), {"name", "region"}, {"version", "forceUpdateVersion", "rollbackConfig", "tags", "annotations"});
    cc.name = meta.req("name").str();
    if (const Y* r = meta.get("region")) cc.region = r->str();
  }
  std::set<std::string> names;
  for (const char* section : {"nodeGroups", "managedNodeGroups"}) {
    const Y* s = top.get(section);
    if (!s) continue;
    for (const Y& g : s->list()) {
      // NodeGroupBase / ScalingConfig keys (types.go). Everything else about a node (AMI,
      // volumes, networking, IAM, SSH, tags, placement, ...) is accepted and ignored; a key
      // eksctl does not define is an error, as in eksctl (a key of the other kind of group is
      // ignored here and refused by eksctl's own validation).
      const M gm(g, {"name", "instanceType", "instanceTypes", "desiredCapacity", "minSize", "maxSize", "availabilityZones",
                     "efaEnabled", "labels", "taints", "instancesDistribution", "spot", "volumeSize"},
                 {// NodeGroupBase
                  "amiFamily", "subnets", "instancePrefix", "instanceName", "ssh", "privateNetworking", "tags", "iam", "ami",
                  "securityGroups", "maxPodsPerNode", "asgSuspendProcesses", "ebsOptimized", "volumeType", "volumeName",
                  "volumeEncrypted", "volumeKmsKeyID", "volumeIOPS", "volumeThroughput", "additionalVolumes",
                  "preBootstrapCommands", "overrideBootstrapCommand", "propagateASGTags", "disableIMDSv1", "disablePodIMDS",
                  "placement", "instanceSelector", "bottlerocket", "enableDetailedMonitoring", "capacityReservation",
                  "instanceMarketOptions", "outpostARN",
                  // NodeGroup
                  "asgMetricsCollection", "cpuCredits", "classicLoadBalancerNames", "targetGroupARNs", "updateConfig",
                  "clusterDNS", "kubeletExtraConfig", "containerRuntime", "maxInstanceLifetime", "localZones", "enclaveEnabled",
                  // ManagedNodeGroup
                  "launchTemplate", "releaseVersion", "nodeRepairConfig"});
      EksctlNodeGroup ng;
      ng.at = g.at();
      ng.managed = std::string(section) == "managedNodeGroups";
      ng.name = gm.req("name").str();
      if (!names.insert(ng.name).second) gm.req("name").fail("node group '" + ng.name + "' appears twice");
      // Instance types and purchase options (types.go ManagedNodeGroup.InstanceTypes and Spot;
      // NodeGroup.InstancesDistribution), checked as validation.go does.
      const Y* one = gm.get("instanceType");
      const Y* several = gm.get("instanceTypes");
      const Y* dist = gm.get("instancesDistribution");
      if (const Y* sp = gm.get("spot")) {
        if (!ng.managed)
          sp->fail("spot is a managedNodeGroups field; a nodeGroups entry gets Spot instances from instancesDistribution (eksctl User Guide, \"Spot instances\")");
        ng.spot = sp->boolean();
      }
      if (dist) {
        if (ng.managed) dist->fail("instancesDistribution is a nodeGroups field; a managed node group takes instanceTypes and spot");
        // validateInstancesDistribution: instanceType "mixed" or unset.
        if (one && one->str() != "mixed") one->fail("instanceType should be \"mixed\" or unset when using the instances distribution feature");
        if (several) several->fail("instanceTypes is a managedNodeGroups field; list the types under instancesDistribution.instanceTypes");
        const M dm(*dist, {"instanceTypes", "maxPrice", "onDemandBaseCapacity", "onDemandPercentageAboveBaseCapacity", "spotInstancePools",
                           "spotAllocationStrategy", "capacityRebalance"});
        EksctlInstancesDistribution d;
        const Y* dts = dm.get("instanceTypes");
        if (!dts || dts->list().empty()) dist->fail("at least two instance types have to be specified for mixed nodegroups (instanceTypes)");
        for (const Y& t : dts->list()) {
          ng.instance_types.push_back(t.str());
          ng.instance_types_at.push_back(t.at());
        }
        std::set<std::string> unique(ng.instance_types.begin(), ng.instance_types.end());
        if (unique.size() > 20) dts->fail("mixed nodegroups should have between 1 and 20 different instance types");
        if (unique.size() != ng.instance_types.size()) dts->fail("an instance type is listed twice");
        if (const Y* v = dm.get("onDemandBaseCapacity")) {
          if (v->integer() < 0) v->fail("onDemandBaseCapacity should be 0 or more");
          d.on_demand_base_capacity = v->int32(0);
        }
        if (const Y* v = dm.get("onDemandPercentageAboveBaseCapacity")) {
          if (v->integer() < 0 || v->integer() > 100) v->fail("percentageAboveBase should be between 0 and 100");
          d.on_demand_percentage_above_base_capacity = v->int32(0);
        }
        if (const Y* v = dm.get("spotInstancePools")) {
          if (v->integer() < 1 || v->integer() > 20) v->fail("spotInstancePools should be between 1 and 20");
          d.spot_instance_pools = v->int32(1);
        }
        if (const Y* v = dm.get("spotAllocationStrategy")) {
          const std::string st = v->str();
          // eksctl accepts EC2's SpotAllocationStrategy values; "diversified" is EC2 Fleet's, not
          // one EC2 Auto Scaling's InstancesDistribution takes.
          if (st != "lowest-price" && st != "capacity-optimized" && st != "capacity-optimized-prioritized" && st != "price-capacity-optimized")
            v->fail("spotAllocationStrategy should be one of: lowest-price, capacity-optimized, capacity-optimized-prioritized, "
                    "price-capacity-optimized (EC2 Auto Scaling's; got \"" + st + "\")");
          if (d.spot_instance_pools && st != "lowest-price")
            dm.get("spotInstancePools")->fail("spotInstancePools cannot be specified when also specifying spotAllocationStrategy: " + st);
          d.spot_allocation_strategy = st;
        }
        if (const Y* v = dm.get("maxPrice")) {
          double price = 0;
          if (!v->node.IsScalar() || (plain_type(v->node) != Plain::Int && plain_type(v->node) != Plain::Float) ||
              !go_parse_float(v->node.Scalar(), price) || !(price > 0))
            v->fail("expected a price in USD per hour above 0, got " + shown(v->node));
          d.max_price = price;
          d.max_price_at = v->at();
        }
        if (const Y* v = dm.get("capacityRebalance")) d.capacity_rebalance = v->boolean();
        ng.distribution = d;
      } else if (one && several) {
        several->fail("only one of instanceType or instanceTypes can be specified");
      } else if (one) {
        ng.instance_types = {one->str()};
        ng.instance_types_at = {one->at()};
      } else if (several) {
        if (!ng.managed && several->list().size() != 1)
          several->fail("a nodeGroups entry of several instance types takes them under instancesDistribution.instanceTypes");
        for (const Y& t : several->list()) {
          ng.instance_types.push_back(t.str());
          ng.instance_types_at.push_back(t.at());
        }
        if (ng.instance_types.empty()) several->fail("expected at least one instance type");
        std::set<std::string> unique(ng.instance_types.begin(), ng.instance_types.end());
        if (unique.size() != ng.instance_types.size()) several->fail("an instance type is listed twice");
        if (unique.size() > 20) several->fail("expected at most 20 instance types");
      } else {
        g.fail(ng.managed ? "missing required key 'instanceType' or 'instanceTypes' (mltwin does not assume eksctl's default m5.large)"
                          : "missing required key 'instanceType' or 'instancesDistribution' (mltwin does not assume eksctl's default m5.large)");
      }
      std::optional<int> desired, mn, mx;
      if (const Y* v = gm.get("desiredCapacity")) desired = v->int32(0);
      if (const Y* v = gm.get("minSize")) mn = v->int32(0);
      if (const Y* v = gm.get("maxSize")) mx = v->int32(0);
      // eksctl's defaults and checks (pkg/apis/eksctl.io/v1alpha5/validation.go).
      if (!mn) mn = desired ? *desired : 2;
      else if (desired && *desired < *mn) gm.get("desiredCapacity")->fail("desiredCapacity " + std::to_string(*desired) + " is below minSize " + std::to_string(*mn));
      if (!mx) {
        mx = desired ? *desired : *mn;
        if (*mx == 0) mx = 1;
      } else if (desired && *desired > *mx) {
        gm.get("desiredCapacity")->fail("desiredCapacity " + std::to_string(*desired) + " is above maxSize " + std::to_string(*mx));
      } else if (*mx < *mn) {
        gm.get("maxSize")->fail("maxSize " + std::to_string(*mx) + " is below minSize " + std::to_string(*mn));
      }
      if (!desired) desired = mn;
      // The scenario schema's bound on a node group (desired_capacity, min_size, max_size).
      for (const char* k : {"desiredCapacity", "minSize", "maxSize"})
        if (const Y* v = gm.get(k); v && v->int32(0) > 1000000)
          v->fail("expected at most 1000000 nodes in a node group, got " + v->node.Scalar());
      ng.desired_capacity = *desired;
      ng.min_size = *mn;
      ng.max_size = *mx;
      if (std::string p = detail::node_group_name_problem(ng.name, std::max(*desired, *mx) - 1); !p.empty()) gm.req("name").fail(p);
      if (const Y* z = gm.get("availabilityZones"))
        for (const Y& a : z->list()) ng.availability_zones.push_back(a.str());
      if (const Y* e = gm.get("efaEnabled")) ng.efa_enabled = e->boolean();
      // Keys that would change a node's allocatable, which mltwin takes from the catalog row
      // (max_pods) and the scenario's kubelet_reserved: refused rather than silently ignored.
      if (const Y* mp = gm.get_ignored("maxPodsPerNode"))
        mp->fail("maxPodsPerNode is not modelled: a node's pods capacity is its catalog row's max_pods (amazon-eks-ami "
                 "eni-max-pods.txt); to change it, give the row with max_pods under the scenario's /catalog/instance_types "
                 "and remove maxPodsPerNode here");
      if (const Y* kc = gm.get_ignored("kubeletExtraConfig")) {
        if (kc->node.IsMap())
          for (const char* k : {"maxPods", "kubeReserved", "systemReserved", "evictionHard"})
            if (kc->node[k])
              kc->child(k, kc->node[k]).fail(std::string(k) + " in kubeletExtraConfig is not modelled: give " +
                                              (std::string(k) == "maxPods" ? "the catalog row's max_pods under /catalog/instance_types"
                                                                           : "the scenario's cluster.kubelet_reserved") +
                                              " instead, and remove it here");
      }
      // volumeSize, GiB (eksctl types.go NodeGroupBase.VolumeSize): the root volume, which the
      // kubelet advertises as the node's ephemeral-storage capacity.
      if (const Y* v = gm.get("volumeSize")) {
        ng.volume_size_gib = v->int32(1);
        if (ng.volume_size_gib > 65536) v->fail("expected at most 65536 GiB (an EBS volume's largest), got " + v->node.Scalar());
      }
      if (const Y* l = gm.get("labels")) ng.labels = string_map(*l);
      if (const Y* t = gm.get("taints")) {
        // A list of {key, value, effect}, or — unmanaged nodeGroups only (taintsWrapper; a
        // managed group's taints are []NodeGroupTaint) — the map "key: value:effect" or
        // "key: :effect", split at ':' as eksctl's taints.Parse does. Each checked as
        // taints.Validate does (a qualified key, a label value, a known effect).
        std::vector<std::pair<EksctlTaint, Y>> read;
        if (t->node.IsMap()) {
          if (ng.managed)
            t->fail("a managed node group's taints are a list of {key, value, effect} (the map form is for nodeGroups)");
          const M tm(*t, {}, {}, true);
          for (const auto& [k, v] : tm.entries) {
            const std::string ve = v.str();
            std::vector<std::string> parts;
            std::stringstream ss(ve);
            std::string part;
            while (std::getline(ss, part, ':')) parts.push_back(part);
            if (!ve.empty() && ve.back() == ':') parts.push_back("");
            EksctlTaint taint{k, "", ""};
            if (parts.size() == 1) taint.effect = parts[0];
            else if (parts.size() == 2) taint = {k, parts[0], parts[1]};
            read.push_back({taint, v});
          }
        } else {
          for (const Y& x : t->list()) {
            const M tm(x, {"key", "value", "effect"});
            read.push_back({{tm.req("key").str(), tm.get("value") ? tm.get("value")->str() : "", tm.req("effect").str()}, x});
          }
        }
        for (const auto& [taint, at] : read) {
          const json o = {{"key", taint.key}, {"value", taint.value}, {"effect", taint.effect}};
          if (auto problem = detail::taint_problem(o)) {
            if (at.node.IsMap()) descend(at, problem->field).fail(problem->message);
            at.fail("taint '" + taint.key + "': " + problem->field + ": " + problem->message);
          }
          for (const auto& other : ng.taints)
            if (other.key == taint.key && other.effect == taint.effect)
              at.fail("taint '" + taint.key + "' with effect " + taint.effect + " appears twice (taints are unique by key and effect)");
          ng.taints.push_back(taint);
        }
      }
      cc.node_groups.push_back(std::move(ng));
    }
  }
  if (cc.node_groups.empty()) doc.fail("the ClusterConfig has no nodeGroups or managedNodeGroups");
  return cc;
}

// ---- into the model ------------------------------------------------------------------------

namespace {

json queue_json(const QueueManifest& q) {
  json o = {{"name", q.name}, {"weight", q.weight}, {"priority", q.priority}, {"state", q.state}, {"reclaimable", q.reclaimable}};
  if (q.capability) o["capability"] = resources_json(*q.capability);
  if (!q.guarantee.empty()) o["guarantee"] = resources_json(q.guarantee);
  if (q.deserved) o["deserved"] = resources_json(*q.deserved);
  if (!q.parent.empty()) o["parent"] = q.parent;
  return o;
}

json node_group_json(const EksctlNodeGroup& g) {
  json o = {{"name", g.name}, {"desired_capacity", g.desired_capacity}};
  if (g.instance_types.size() == 1 && !g.distribution) o["instance_type"] = g.instance_types[0];
  else o["instance_types"] = g.instance_types;
  if (g.spot) o["capacity_type"] = "SPOT";
  if (g.distribution) {
    const EksctlInstancesDistribution& d = *g.distribution;
    json dj = json::object();
    if (d.on_demand_base_capacity) dj["on_demand_base_capacity"] = *d.on_demand_base_capacity;
    if (d.on_demand_percentage_above_base_capacity) dj["on_demand_percentage_above_base_capacity"] = *d.on_demand_percentage_above_base_capacity;
    if (!d.spot_allocation_strategy.empty()) dj["spot_allocation_strategy"] = d.spot_allocation_strategy;
    if (d.spot_instance_pools) dj["spot_instance_pools"] = *d.spot_instance_pools;
    if (d.max_price) dj["spot_max_price"] = *d.max_price;
    if (d.capacity_rebalance) dj["capacity_rebalance"] = true;
    o["instances_distribution"] = dj;
  }
  if (g.availability_zones.size() == 1) o["availability_zone"] = g.availability_zones[0];
  if (g.volume_size_gib > 0) o["capacity"] = {{"ephemeral-storage", std::to_string(g.volume_size_gib) + "Gi"}};
  if (!g.labels.empty()) {
    json l = json::object();
    for (const auto& [k, v] : g.labels) l[k] = v;
    o["labels"] = l;
  }
  if (!g.taints.empty()) {
    json t = json::array();
    for (const auto& x : g.taints) t.push_back({{"key", x.key}, {"value", x.value}, {"effect", x.effect}});
    o["taints"] = t;
  }
  return o;
}

}  // namespace

models::QueueSpec to_queue_spec(const QueueManifest& q, int /*neuroncores_per_device*/) {
  return detail::queue_of(q.at.file, "Queue " + q.name, queue_json(q));
}

models::NodeGroupSpec to_node_group_spec(const EksctlNodeGroup& g) {
  models::NodeGroupSpec ng;
  const json o = node_group_json(g);
  ng.name = o["name"];
  ng.instance_types = g.instance_types;
  if (g.spot) {
    ng.distribution.on_demand_percentage_above_base = 0;
    ng.distribution.spot_allocation_strategy = models::SpotAllocationStrategy::PriceCapacityOptimized;
    ng.capacity_rebalance = true;
  }
  ng.count = o["desired_capacity"];
  ng.availability_zone = o.value("availability_zone", "");
  ng.labels = g.labels;
  // Requests are read as Quantity.MilliValue: GiB in bytes, times 1000.
  if (g.volume_size_gib > 0)
    ng.extra_capacity.add_scalar(policy::rn::kEphemeralStorage, static_cast<double>(g.volume_size_gib) * (1ull << 30) * 1000);
  if (o.contains("taints")) ng.taints = detail::taints_of(g.at.file, "nodeGroup " + g.name + "/taints", o["taints"]);
  return ng;
}

json volcano_job_json(const VolcanoJobManifest& job, const std::vector<PriorityClassManifest>& classes,
                      const json& submit, const json& duration) {
  const VolcanoTask& first = job.tasks.front();
  for (const auto& t : job.tasks) {
    auto sorted = [](ResourceList r) {
      std::sort(r.begin(), r.end());
      return r;
    };
    if (sorted(t.pod.requests) != sorted(first.pod.requests))
      fail_at(t.at, "task '" + t.name + "' requests other resources than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one shape");
    if (t.pod.node_selector != first.pod.node_selector)
      fail_at(t.at, "task '" + t.name + "' has another nodeSelector than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one nodeSelector");
    auto tol_json = [](const PodShape& p) {
      json a = json::array();
      for (const auto& x : p.tolerations) a.push_back(toleration_json(x));
      return a;
    };
    if (tol_json(t.pod) != tol_json(first.pod))
      fail_at(t.at, "task '" + t.name + "' has other tolerations than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one set of tolerations");
    if (t.pod.node_affinity != first.pod.node_affinity)
      fail_at(t.at, "task '" + t.name + "' has another node affinity than task '" + first.name +
                        "'; mltwin's TrainingJobSpec gives all pods of a job one node affinity");
  }
  const int pods = job.pods();
  if (pods < 1) fail_at(job.at, "the job has no pods (every task has replicas: 0)");
  if (job.min_available < pods)
    fail_at(job.min_available_at, "minAvailable " + std::to_string(job.min_available) + " is below the job's " +
                                      std::to_string(pods) + " pods: an elastic gang is not modelled (mltwin places a job's pods as one gang)");
  if (job.min_available > pods)
    fail_at(job.min_available_at, "minAvailable " + std::to_string(job.min_available) + " is above the job's " +
                                      std::to_string(pods) + " pods: the job could never run");
  // Priority: the PriorityClass named by the job (else by its pods); the scenario loader gives
  // the job its value, or the globalDefault class's value when it names none.
  std::string pc = job.priority_class_name.empty() ? first.pod.priority_class_name : job.priority_class_name;
  if (!pc.empty() && pc != "system-cluster-critical" && pc != "system-node-critical" &&
      std::none_of(classes.begin(), classes.end(), [&](const auto& c) { return c.name == pc; }))
    fail_at(job.at, "priorityClassName '" + pc + "' names no PriorityClass (give its manifest among the scenario's manifests)");
  json j = {{"name", job.name}, {"queue", job.queue}, {"submit", submit}, {"nnodes", pods},
            {"duration", duration}, {"pod", resources_json(first.pod.requests)}};
  if (!pc.empty()) j["priority_class"] = pc;
  if (first.pod.nproc_per_node) j["nproc_per_node"] = *first.pod.nproc_per_node;
  if (!first.pod.node_selector.empty()) {
    json ns = json::object();
    for (const auto& [k, v] : first.pod.node_selector) ns[k] = v;
    j["node_selector"] = ns;
  }
  if (!first.pod.tolerations.empty()) {
    json a = json::array();
    for (const auto& x : first.pod.tolerations) a.push_back(toleration_json(x));
    j["tolerations"] = a;
  }
  if (!first.pod.node_affinity.is_null()) j["node_affinity"] = first.pod.node_affinity;
  if (!job.sla_waiting_time.empty()) j["sla_waiting_time"] = job.sla_waiting_time;
  // The lifecycle: maxRetry, the job's policies and its tasks' (one list: mltwin's job has one
  // pod per task, each task its own policies). Events that never happen in mltwin are left out
  // (PodPending applies only with a timeout, refused above; Unknown, TaskFailed and
  // JobUpdated need a PodGroup Unknown phase, container restarts or a Job update).
  auto policies_json = [](const std::vector<JobPolicy>& ps) {
    json a = json::array();
    for (const auto& p : ps) {
      json ev = json::array();
      for (const auto& e : p.events)
        if (e == "*" || e == "PodEvicted" || e == "PodFailed" || e == "TaskCompleted") ev.push_back(e);
      if (!ev.empty()) a.push_back({{"events", ev}, {"action", p.action}});
    }
    return a;
  };
  for (const auto& t : job.tasks)
    if (policies_json(t.policies) != policies_json(first.policies))
      fail_at(t.at, "task '" + t.name + "' has other policies than task '" + first.name +
                        "'; mltwin gives every task of a job the same policies");
  j["max_retry"] = job.max_retry;
  if (const json p = policies_json(job.policies); !p.empty()) j["policies"] = p;
  if (const json p = policies_json(first.policies); !p.empty()) j["task_policies"] = p;
  return j;
}

models::TrainingJobSpec to_training_job(const VolcanoJobManifest& job, const std::vector<PriorityClassManifest>& classes,
                                        core::Duration submit, core::Duration duration, int neuroncores_per_device) {
  const json j = volcano_job_json(job, classes, std::to_string(submit.count_ns()) + "ns",
                                  std::to_string(duration.count_ns()) + "ns");
  models::TrainingJobSpec js = detail::job_of(job.at.file, "Job " + job.name, j, 0, neuroncores_per_device);
  detail::PriorityClasses pcs;
  json list = json::array();
  for (const auto& c : classes) list.push_back({{"name", c.name}, {"value", c.value}, {"globalDefault", c.global_default}});
  pcs.add_json(job.at.file, list);
  js.priority = pcs.resolve(js, false);
  return js;
}

}  // namespace mltwin::io

// ---- a scenario's references ---------------------------------------------------------------

namespace mltwin::io::detail {

namespace {

namespace fs = std::filesystem;

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

/// The files a manifests entry names: one file, or the matches of a glob pattern (sorted).
std::vector<std::pair<std::string, std::string>> files_of(const std::string& scenario_path, const std::string& where,
                                                          const std::string& as_written, const std::string& explicit_data_dir,
                                                          std::string& data_dir) {
  const std::string resolved = resolve_input_path(as_written, scenario_path, explicit_data_dir, data_dir);
  if (!has_glob(resolved)) {
    require_input(scenario_path, where, as_written, resolved);
    return {{resolved, as_written}};
  }
  glob_t g{};
  const int rc = ::glob(resolved.c_str(), 0, nullptr, &g);
  std::vector<std::pair<std::string, std::string>> out;
  if (rc == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string m = g.gl_pathv[i];
      out.emplace_back(m, (fs::path(as_written).parent_path() / fs::path(m).filename()).string());
    }
  ::globfree(&g);
  if (out.empty()) fail(scenario_path, where, "no file matches '" + as_written + "'");
  return out;
}

}  // namespace

void expand_config_files(const std::string& path, json& doc, const std::string& explicit_data_dir, std::string& data_dir,
                         std::vector<InputFileRef>& inputs, const ScenarioCatalog& catalog,
                         YamlOrigins::Places& origins, std::vector<std::string>& warnings) {
  // volcano.scheduler_config: the volcano-scheduler ConfigMap.
  json& v = doc["volcano"];
  if (v.contains("scheduler_config")) {
    for (const char* k : {"actions", "tiers", "configurations"})
      if (v.contains(k))
        fail(path, std::string("/volcano/") + k,
             "the scenario reads the scheduler configuration from volcano.scheduler_config; give it there or here, not both");
    const std::string as_written = v["scheduler_config"];
    const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
    require_input(path, "/volcano/scheduler_config", as_written, file);
    const json conf = volcano_scheduler_config_json(file, &warnings);
    for (auto it = conf.begin(); it != conf.end(); ++it) v[it.key()] = it.value();
    v.erase("scheduler_config");
    inputs.push_back({"volcano_scheduler_config", file, as_written});
  }
  // cluster.eksctl: the node groups of an eksctl ClusterConfig.
  json& c = doc["cluster"];
  if (c.contains("eksctl")) {
    const std::string as_written = c["eksctl"];
    const std::string file = resolve_input_path(as_written, path, explicit_data_dir, data_dir);
    require_input(path, "/cluster/eksctl", as_written, file);
    const EksctlClusterConfig cc = read_eksctl_config(file);
    json groups = json::array();
    for (const auto& g : cc.node_groups) {
      for (std::size_t k = 0; k < g.instance_types.size(); ++k)
        if (catalog.catalog.find(g.instance_types[k]) == nullptr)
          fail_at(g.instance_types_at[k], "instance type " + catalog.missing(g.instance_types[k]));
        else if (std::string p = catalog.use_problem(g.instance_types[k], ScenarioCatalog::Use::EksNodeGroup); !p.empty())
          fail_at(g.instance_types_at[k], p);
      json o = node_group_json(g);
      origins["/cluster/node_groups"].push_back(g.at.str() + " '" + g.name + "'");
      // minSize / maxSize bound the cluster autoscaler; without one (/cluster/autoscaler) the
      // group stays at desiredCapacity, as its Auto Scaling group does when nothing changes it.
      if (c.contains("autoscaler")) {
        o["min_size"] = g.min_size;
        o["max_size"] = g.max_size;
      }
      groups.push_back(std::move(o));
    }
    c["node_groups"] = groups;
    c.erase("eksctl");
    if (!c.contains("name")) c["name"] = cc.name;
    inputs.push_back({"eksctl_cluster_config", file, as_written});
  }
  // queues_from: Volcano Queue manifests, after the scenario's own queues.
  std::map<std::string, std::string> queue_where;  // name -> where defined
  if (doc.contains("queues"))
    for (std::size_t i = 0; i < doc["queues"].size(); ++i)
      queue_where[doc["queues"][i]["name"]] = path + ": /queues/" + std::to_string(i);
  std::vector<QueueManifest> manifest_queues;  // in the order they follow /queues
  if (doc.contains("queues_from")) {
    json& qs = doc["queues"];
    if (qs.is_null()) qs = json::array();
    for (std::size_t i = 0; i < doc["queues_from"].size(); ++i) {
      const std::string where = "/queues_from/" + std::to_string(i);
      for (const auto& [file, as_written] :
           files_of(path, where, doc["queues_from"][i].get<std::string>(), explicit_data_dir, data_dir)) {
        const Manifests m = read_manifests(file);
        if (!m.jobs.empty()) fail_at(m.jobs[0].at, "a Volcano Job in a queues_from file; list job files under workload.manifests");
        if (!m.podgroups.empty()) fail_at(m.podgroups[0].at, "a PodGroup in a queues_from file, which holds Queues");
        if (!m.priority_classes.empty())
          fail_at(m.priority_classes[0].at, "a PriorityClass in a queues_from file; list it under workload.manifests");
        if (m.queues.empty()) fail(path, where, "'" + as_written + "' holds no Queue");
        for (const auto& q : m.queues) {
          if (auto it = queue_where.find(q.name); it != queue_where.end())
            fail_at(q.at, "queue '" + q.name + "' is already defined (" + it->second + ")");
          queue_where[q.name] = q.at.str();
          qs.push_back(queue_json(q));
          manifest_queues.push_back(q);
        }
        inputs.push_back({"queue_manifests", file, as_written});
      }
    }
    // The queue tree (spec.parent), once every queue is known: a problem in a manifest's queue
    // is reported at its spec.parent (or at the manifest); the scenario's own are checked with
    // their JSON paths by the loader.
    std::vector<models::QueueSpec> tree;
    for (const auto& q : qs) {
      models::QueueSpec t;
      t.name = q["name"];
      t.parent = q.value("parent", std::string());
      tree.push_back(std::move(t));
    }
    std::size_t at = 0;
    if (std::string why = detail::queue_tree_problem(tree, at); !why.empty()) {
      const std::size_t first_manifest = tree.size() - manifest_queues.size();
      if (at >= first_manifest) {
        const QueueManifest& q = manifest_queues[at - first_manifest];
        fail_at(why.rfind("the root", 0) == 0 ? q.at : q.parent_at, why);
      }
    }
    doc.erase("queues_from");
  }
  if (!doc.contains("queues") || doc["queues"].empty())
    fail(path, "/queues", "the scenario defines no queue: give /queues or /queues_from");
  // workload.manifests: Volcano Jobs (TorchX's among them) and the PriorityClasses they name.
  json& w = doc["workload"];
  if (w.contains("manifests")) {
    struct Entry {
      VolcanoJobManifest job;
      json submit, duration;
    };
    std::vector<Entry> entries;
    // The scenario's own /priority_classes first (the manifests may not redefine them), then the
    // manifests'; all of them end up in /priority_classes, which the JSON loader reads.
    std::vector<PriorityClassManifest> classes;
    if (doc.contains("priority_classes"))
      for (std::size_t i = 0; i < doc["priority_classes"].size(); ++i) {
        const json& pcj = doc["priority_classes"][i];
        classes.push_back({pcj["name"].get<std::string>(), pcj["value"].get<int>(), pcj.value("globalDefault", false),
                           YamlPlace{path, 0, 0, "/priority_classes/" + std::to_string(i)}});
      }
    const std::size_t json_classes = classes.size();
    for (std::size_t i = 0; i < w["manifests"].size(); ++i) {
      const json& e = w["manifests"][i];
      const std::string where = "/workload/manifests/" + std::to_string(i);
      const json submit = e.value("submit", json(0));
      const json duration = e["duration"];
      if (duration_of(path, where + "/submit", submit) < core::Duration::ns(0)) fail(path, where + "/submit", "must not be negative");
      (void)duration_of(path, where + "/duration", duration);
      for (const auto& [file, as_written] : files_of(path, where + "/path", e["path"], explicit_data_dir, data_dir)) {
        Manifests m = read_manifests(file);
        if (m.jobs.empty() && m.priority_classes.empty())
          fail(path, where + "/path", "'" + as_written + "' holds no Volcano Job (or PriorityClass)");
        if (!m.queues.empty()) fail_at(m.queues[0].at, "a Queue among the workload's manifests; list Queue files under /queues_from");
        if (!m.podgroups.empty())
          fail_at(m.podgroups[0].at,
                  "a PodGroup alone does not say what its pods request; mltwin reads Volcano Jobs (their job controller creates "
                  "the PodGroup)");
        for (auto& pc : m.priority_classes) {
          for (const auto& other : classes) {
            if (other.name == pc.name) fail_at(pc.at, "PriorityClass '" + pc.name + "' is already defined (" + other.at.str() + ")");
            if (other.global_default && pc.global_default)
              fail_at(pc.at, "only one PriorityClass can be marked globalDefault ('" + other.name + "' is, " + other.at.str() + ")");
          }
          classes.push_back(pc);
        }
        for (auto& j : m.jobs) entries.push_back({std::move(j), submit, duration});
        inputs.push_back({"job_manifests", file, as_written});
      }
    }
    json jobs = json::array();
    std::map<std::string, YamlPlace> seen;
    for (const auto& e : entries) {
      // By name alone: mltwin's jobs have no namespace (results and explain name them), so two
      // Jobs of one name in two namespaces would be two jobs nobody can tell apart.
      const std::string key = e.job.name;
      if (auto it = seen.find(key); it != seen.end())
        fail_at(e.job.at, "job '" + e.job.name + "' is already defined (" + it->second.str() +
                              "); job names must differ across namespaces too: mltwin's jobs have no namespace");
      seen[key] = e.job.at;
      if (!queue_where.count(e.job.queue))
        fail_at(e.job.queue_at, "queue '" + e.job.queue + "' is not defined (" +
                                    (e.job.queue == "default" && e.job.queue_at.path.empty() ? "Volcano's default when spec.queue is absent; " : "") +
                                    "give it in /queues or /queues_from)");
      jobs.push_back(volcano_job_json(e.job, classes, e.submit, e.duration));
      origins["/workload/jobs"].push_back(e.job.at.str() + (e.job.at.path.empty() ? ": " : " ") + "Job '" + e.job.name + "'");
    }
    w["jobs"] = jobs;
    w.erase("manifests");
    if (classes.size() > json_classes) {
      json& list = doc["priority_classes"];
      if (list.is_null()) list = json::array();
      for (std::size_t i = json_classes; i < classes.size(); ++i)
        list.push_back({{"name", classes[i].name}, {"value", classes[i].value}, {"globalDefault", classes[i].global_default}});
    }
  }
}

}  // namespace mltwin::io::detail
