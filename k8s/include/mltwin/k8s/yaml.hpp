// mltwin/k8s/yaml.hpp — the typed layer over yaml-cpp that the YAML readers share (the codec's
// volcano-scheduler configuration, io/'s manifests and eksctl configs): every value keeps its
// YAML path and its place in the file, so that each error (an InputError) says where it is;
// scalars are typed as the Go decoders Volcano, eksctl and kubectl use would type them.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mltwin/k8s/input.hpp"
#include "mltwin/k8s/resources.hpp"
#include "mltwin/k8s/text.hpp"
#include "mltwin/k8s/validation.hpp"
#include "mltwin/k8s/yaml_place.hpp"
#include "mltwin/policy/spelling.hpp"

namespace mltwin::k8s::yaml {

using nlohmann::json;

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

YamlPlace place_of(const Src& s, const YAML::Mark& m, const std::string& path);

[[noreturn]] void fail_at(const YamlPlace& p, const std::string& what);

// A plain scalar's YAML 1.1 type as gopkg.in/yaml.v2 resolves it (resolve.go): what the Go
// decoders Volcano and kubectl use would make of it.
enum class Plain { Null, Bool, Int, Float, Str };

bool is_bool_word(const std::string& s, bool* value);

bool is_int_text(const std::string& s);

bool is_float_text(const std::string& s);

Plain plain_type(const YAML::Node& n);

/// Go's strconv.ParseUint(s, 0, 64) (base 0: "0x"/"0X" hexadecimal, "0o"/"0O" and a leading
/// "0" octal, "0b"/"0B" binary, else decimal; no sign). False on a syntax or range error.
bool go_parse_uint_base0(std::string_view s, std::uint64_t& out);

/// Go's strconv.ParseInt(s, 0, 64): an optional sign, then go_parse_uint_base0, within int64.
bool go_parse_int_base0(std::string_view s, std::int64_t& out);

/// goyaml.v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool yaml_style_float(std::string_view s);

/// Go's strconv.ParseFloat(s, 64) on a yamlStyleFloat text: false on overflow (ErrRange); an
/// underflow is 0 or a subnormal, as Go returns it.
bool go_parse_float(std::string_view s, double& out);

/// The text the API server parses for a quantity written in YAML. kubectl, and the API server
/// for a YAML body, turn YAML into JSON with sigs.k8s.io/yaml v1.4.0 (YAMLToJSON): its goyaml.v2
/// fork resolves a plain scalar (resolve.go resolve) to an int (strconv.ParseInt or ParseUint,
/// base 0, underscores removed), a float (yamlStyleFloat, then ParseFloat) or a string, and
/// encoding/json writes the number; Quantity.UnmarshalJSON parses that text. So `cpu: 0x10` is
/// 16, `cpu: 010` is 8 (octal), `memory: 1_000` is 1000 and `cpu: 1.50` is "1.5", while a
/// quoted "0x10", or 1_000Mi, stay text (errors as quantities). Timestamps, null, booleans and
/// .inf/.nan are not numbers (errors either way).
std::string yaml_quantity_text(const YAML::Node& n);

std::string shown(const YAML::Node& n);

bool simple_key(const std::string& k);

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
      const policy::Quantity q = quantity_of(json(text));
      if (q.sign() < 0) throw std::invalid_argument("'" + text + "': quantity must be >= 0");
      (void)q.value();  // beyond int64: a QuantityError naming the amount
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
    if (std::string p = k8s::control_character_problem(node.Scalar(), true); !p.empty()) fail(p);
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
      if (std::string p = k8s::control_character_problem(key); !p.empty()) fail_at(place_of(*v.src, k.Mark(), v.path), "key: " + p);
      const Y child = v.child(key, it->second);
      if (!seen.insert(key).second) fail_at(place_of(*v.src, k.Mark(), child.path), "key '" + key + "' appears twice");
      bool is_known = open;
      for (const char* kk : known) is_known = is_known || key == kk;
      bool is_ignored = false;
      for (const char* kk : ignored) is_ignored = is_ignored || key == kk;
      if (!is_known && !is_ignored) {
        std::vector<std::string> all(known.begin(), known.end());
        all.insert(all.end(), ignored.begin(), ignored.end());
        std::string msg = "unknown key '" + key + "'" + policy::did_you_mean(key, all) + " (mltwin reads ";
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
std::vector<std::pair<std::string, std::string>> string_map(const Y& y);

/// A Kubernetes ResourceList: names mltwin models, quantities checked.
ResourceList resource_list(const Y& y);

json resources_json(const ResourceList& r);

/// The deepest value of `root` along a k8s_objects.hpp problem path ("a/0/b"), for the place of
/// an error: as far as the YAML goes.
Y descend(const Y& root, const std::string& slash_path);

/// A list of strings (values of a node selector requirement).
json string_list(const Y& y);

/// A core/v1 NodeSelectorTerm as JSON, keys checked.
json node_selector_term_yaml(const Y& y);

/// spec.affinity: nodeAffinity in its Kubernetes shape, checked as the API server checks it;
/// podAffinity / podAntiAffinity are refused (mltwin's predicates run no InterPodAffinity).
json affinity_yaml(const Y& y);

std::string read_text(const std::string& file);

std::vector<YAML::Node> load_all(const Src& src, const std::string& text);

/// The one document of a file that must hold one (empty documents, e.g. comments only, are
/// skipped); otherwise an InputError naming the file and `what` it should hold.
YAML::Node single_document(const Src& src, const std::string& text, const std::string& what);

/// apiVersion and kind of a document (both required).
std::pair<std::string, std::string> type_of(const Y& doc);

/// metadata.name (required) and namespace; the rest of metadata is ignored.
std::pair<std::string, std::string> name_of(const M& top, std::string_view kind);

}  // namespace mltwin::k8s::yaml
