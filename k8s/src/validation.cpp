// Object names, taints, tolerations and node affinity as the Kubernetes API server validates
// them (mltwin/k8s/validation.hpp names the upstream functions), into the policy library's objects.
#include "mltwin/k8s/validation.hpp"

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <utility>

#include "mltwin/policy/resource.hpp"
#include "mltwin/k8s/text.hpp"

namespace mltwin::k8s {

using nlohmann::json;

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// qualifiedNameFmt / labelValueFmt: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool name_chars_ok(std::string_view s) {
  if (s.empty()) return false;
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!(alnum(c) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

// IsDNS1123Subdomain: the policy library's rule (policy/resource.hpp), one copy for both.
bool dns1123_subdomain(std::string_view s) { return policy::is_dns1123_subdomain(s); }

bool is_integer_text(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;  // within int64, as strconv.ParseInt needs
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string str_of(const json& o, const char* key) {
  return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}
/// The first of `keys` present with a value that is neither a string nor null (YAML's empty).
std::optional<FieldProblem> not_a_string(const json& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (o.contains(k) && !o[k].is_string() && !o[k].is_null()) return FieldProblem{k, "expected a string, got " + o[k].dump()};
  return std::nullopt;
}

policy::TaintEffect effect_of(const std::string& e) {
  if (e == "PreferNoSchedule") return policy::TaintEffect::PreferNoSchedule;
  if (e == "NoExecute") return policy::TaintEffect::NoExecute;
  return policy::TaintEffect::NoSchedule;
}

bool valid_effect(const std::string& e) { return e == "NoSchedule" || e == "PreferNoSchedule" || e == "NoExecute"; }

std::optional<FieldProblem> requirement_problem(const json& r, bool field_selector) {
  const std::string op = str_of(r, "operator");
  const std::string key = str_of(r, "key");
  const std::size_t n = r.contains("values") ? r["values"].size() : 0;
  if (field_selector) {
    // ValidateNodeFieldSelectorRequirement.
    if (key != "metadata.name") return FieldProblem{"key", "'" + key + "' is not supported (matchFields supports metadata.name)"};
    if (op != "In" && op != "NotIn") return FieldProblem{"operator", "'" + op + "' is not supported for matchFields (In, NotIn)"};
    if (n != 1) return FieldProblem{"values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"};
    return std::nullopt;
  }
  if (std::string p = qualified_name_problem(key); !p.empty()) return FieldProblem{"key", p};
  if (op == "In" || op == "NotIn") {
    if (n == 0) return FieldProblem{"values", "must be specified when `operator` is 'In' or 'NotIn'"};
    for (std::size_t i = 0; i < n; ++i)
      if (std::string p = label_value_problem(r["values"][i].get<std::string>()); !p.empty())
        return FieldProblem{"values/" + std::to_string(i), p};
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (n > 0) return FieldProblem{"values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"};
  } else if (op == "Gt" || op == "Lt") {
    if (n != 1) return FieldProblem{"values", "must be specified single value when `operator` is 'Lt' or 'Gt'"};
    if (!is_integer_text(r["values"][0].get<std::string>()))
      return FieldProblem{"values/0", "for 'Gt', 'Lt' operators, the value must be an integer, got '" +
                                          r["values"][0].get<std::string>() + "'"};
  } else {
    return FieldProblem{"operator", "'" + op + "' is not a valid selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)"};
  }
  return std::nullopt;
}

std::optional<FieldProblem> term_problem(const json& t) {
  for (const char* part : {"matchExpressions", "matchFields"}) {
    if (!t.contains(part)) continue;
    for (std::size_t i = 0; i < t[part].size(); ++i)
      if (auto p = requirement_problem(t[part][i], std::string(part) == "matchFields"))
        return FieldProblem{std::string(part) + "/" + std::to_string(i) + "/" + p->field, p->message};
  }
  return std::nullopt;
}

policy::NodeSelectorRequirement requirement_from(const json& r) {
  using Op = policy::NodeSelectorRequirement::Op;
  policy::NodeSelectorRequirement out;
  out.key = r["key"].get<std::string>();
  const std::string op = r["operator"].get<std::string>();
  out.op = op == "In" ? Op::In : op == "NotIn" ? Op::NotIn : op == "Exists" ? Op::Exists
         : op == "DoesNotExist" ? Op::DoesNotExist : op == "Gt" ? Op::Gt : Op::Lt;
  if (r.contains("values"))
    for (const auto& v : r["values"]) out.values.push_back(v.get<std::string>());
  return out;
}

policy::NodeSelectorTerm term_from(const json& t) {
  policy::NodeSelectorTerm out;
  if (t.contains("matchExpressions"))
    for (const auto& r : t["matchExpressions"]) out.match_expressions.push_back(requirement_from(r));
  if (t.contains("matchFields"))
    for (const auto& r : t["matchFields"]) out.match_fields.push_back(requirement_from(r));
  return out;
}

}  // namespace

std::string qualified_name_problem(std::string_view s) {
  const auto slash = s.find('/');
  std::string_view name = s;
  if (slash != std::string_view::npos) {
    const std::string_view prefix = s.substr(0, slash);
    name = s.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (!dns1123_subdomain(prefix))
      return "prefix part '" + printable(prefix) + "' must be a DNS subdomain: lowercase alphanumeric characters, '-' or '.', "
             "starting and ending with an alphanumeric character, at most 253 characters";
    if (name.find('/') != std::string_view::npos) return "a qualified name has at most one '/'";
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!name_chars_ok(name))
    return "name part '" + printable(name) + "' must consist of alphanumeric characters, '-', '_' or '.', and must start "
           "and end with an alphanumeric character";
  return {};
}

std::string label_value_problem(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > 63) return "must be no more than 63 characters";
  if (!name_chars_ok(s))
    return "'" + printable(s) + "' must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start "
           "and end with an alphanumeric character";
  return {};
}

namespace {
// validation.go's messages (RegexError with its examples).
constexpr const char* kDns1123LabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an "
    "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kDns1123SubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

bool dns1123_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!(lower_alnum(c) || c == '-')) return false;
  return true;
}
}  // namespace

std::string dns1123_label_problem(std::string_view name) {
  const std::string shown = "'" + printable(name) + "': ";
  if (name.size() > 63) return shown + "must be no more than 63 characters";
  if (!dns1123_label(name)) return shown + kDns1123LabelMsg;
  return {};
}

std::string dns1123_subdomain_problem(std::string_view name) {
  const std::string shown = "'" + printable(name) + "': ";
  if (name.size() > 253) return shown + "must be no more than 253 characters";
  if (!dns1123_subdomain(name)) return shown + kDns1123SubdomainMsg;
  return {};
}

std::string object_name_problem(std::string_view name, std::string_view kind) {
  if (kind == "task") {
    if (std::string p = dns1123_label_problem(name); !p.empty())
      return "task name " + p + " (Volcano's job admission webhook requires a DNS-1123 label)";
    return {};
  }
  std::string p = dns1123_subdomain_problem(name);
  if (p.empty() && kind == "Job" && name.size() > 63)
    p = "'" + printable(name) + "': must be no more than 63 characters (Volcano's job admission webhook checks IsQualifiedName)";
  if (p.empty()) return {};
  return std::string(kind) + " name " + p + " (Kubernetes object names: k8s.io/apimachinery/pkg/util/validation)";
}

std::string node_group_name_problem(std::string_view name, long long max_index) {
  if (!dns1123_label(name))
    return "node group name " + dns1123_label_problem(name) +
           " (its nodes are named <group>-<index>: a Kubernetes node name, also the value of the kubernetes.io/hostname label)";
  const std::size_t longest = name.size() + 1 + std::to_string(max_index < 0 ? 0 : max_index).size();
  if (longest > 63)
    return "node group name '" + printable(name) + "' is too long: its node " + std::string(name) + "-" +
           std::to_string(max_index < 0 ? 0 : max_index) + " has " + std::to_string(longest) +
           " characters, and a node's name is the value of its kubernetes.io/hostname label (at most 63)";
  return {};
}

std::optional<FieldProblem> taint_problem(const json& t) {
  // validateNodeTaints: the key is required and a qualified name, the value a label value, the
  // effect required and known.
  if (auto p = not_a_string(t, {"key", "value", "effect"})) return p;
  const std::string key = str_of(t, "key");
  if (key.empty()) return FieldProblem{"key", "a taint needs a key"};
  if (std::string p = qualified_name_problem(key); !p.empty()) return FieldProblem{"key", p};
  if (std::string p = label_value_problem(str_of(t, "value")); !p.empty()) return FieldProblem{"value", p};
  const std::string e = str_of(t, "effect");
  if (!valid_effect(e))
    return FieldProblem{"effect", "expected NoSchedule, PreferNoSchedule or NoExecute, got \"" + e + "\""};
  return std::nullopt;
}

std::optional<FieldProblem> toleration_problem(const json& t) {
  // ValidateTolerations, check by check.
  if (auto p = not_a_string(t, {"key", "operator", "value", "effect"})) return p;
  const std::string key = str_of(t, "key");
  const std::string op = str_of(t, "operator");
  const std::string effect = str_of(t, "effect");
  if (!key.empty())
    if (std::string p = qualified_name_problem(key); !p.empty()) return FieldProblem{"key", p};
  if (key.empty() && op != "Exists")
    return FieldProblem{"operator", "operator must be Exists when `key` is empty, which means \"match all values and all keys\""};
  if (t.contains("tolerationSeconds") && effect != "NoExecute")
    return FieldProblem{"effect", "effect must be 'NoExecute' when `tolerationSeconds` is set"};
  if (op.empty() || op == "Equal") {
    if (std::string p = label_value_problem(str_of(t, "value")); !p.empty()) return FieldProblem{"value", p};
  } else if (op == "Exists") {
    if (!str_of(t, "value").empty()) return FieldProblem{"value", "value must be empty when `operator` is 'Exists'"};
  } else {
    return FieldProblem{"operator", "expected Equal or Exists, got \"" + op + "\""};
  }
  if (!effect.empty() && !valid_effect(effect))
    return FieldProblem{"effect", "expected NoSchedule, PreferNoSchedule, NoExecute or nothing (every effect), got \"" + effect + "\""};
  return std::nullopt;
}

std::optional<FieldProblem> node_affinity_problem(const json& a) {
  static const char* const kReq = "requiredDuringSchedulingIgnoredDuringExecution";
  static const char* const kPref = "preferredDuringSchedulingIgnoredDuringExecution";
  if (a.contains(kReq)) {
    const json& r = a[kReq];
    if (!r.contains("nodeSelectorTerms") || r["nodeSelectorTerms"].empty())
      return FieldProblem{std::string(kReq) + "/nodeSelectorTerms", "must have at least one node selector term"};
    for (std::size_t i = 0; i < r["nodeSelectorTerms"].size(); ++i)
      if (auto p = term_problem(r["nodeSelectorTerms"][i]))
        return FieldProblem{std::string(kReq) + "/nodeSelectorTerms/" + std::to_string(i) + "/" + p->field, p->message};
  }
  if (a.contains(kPref))
    for (std::size_t i = 0; i < a[kPref].size(); ++i) {
      const json& p = a[kPref][i];
      const std::string at = std::string(kPref) + "/" + std::to_string(i);
      const long long w = p.contains("weight") ? p["weight"].get<long long>() : 0;
      if (w < 1 || w > 100) return FieldProblem{at + "/weight", "must be in the range 1-100, got " + std::to_string(w)};
      if (!p.contains("preference")) return FieldProblem{at + "/preference", "missing (a node selector term)"};
      if (auto q = term_problem(p["preference"])) return FieldProblem{at + "/preference/" + q->field, q->message};
    }
  return std::nullopt;
}

policy::Taint taint_from(const json& t) {
  return policy::Taint{str_of(t, "key"), str_of(t, "value"), effect_of(str_of(t, "effect"))};
}

policy::Toleration toleration_from(const json& t) {
  policy::Toleration out;
  out.key = str_of(t, "key");
  out.op = str_of(t, "operator") == "Exists" ? policy::Toleration::Op::Exists : policy::Toleration::Op::Equal;
  out.value = str_of(t, "value");
  const std::string e = str_of(t, "effect");
  out.any_effect = e.empty();
  out.effect = effect_of(e);
  if (t.contains("tolerationSeconds") && t["tolerationSeconds"].is_number_integer())
    out.toleration_seconds = t["tolerationSeconds"].get<std::int64_t>();
  return out;
}

policy::NodeAffinity node_affinity_from(const json& a) {
  policy::NodeAffinity out;
  if (a.contains("requiredDuringSchedulingIgnoredDuringExecution")) {
    out.has_required = true;
    for (const auto& t : a["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]) out.required.push_back(term_from(t));
  }
  if (a.contains("preferredDuringSchedulingIgnoredDuringExecution"))
    for (const auto& p : a["preferredDuringSchedulingIgnoredDuringExecution"])
      out.preferred.push_back({p["weight"].get<std::int32_t>(), term_from(p["preference"])});
  return out;
}

}  // namespace mltwin::k8s
