// Kubernetes' node constraints (node_constraints.hpp names the upstream file of each rule).
#include "mltwin/policy/node_constraints.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

namespace mltwin::policy {

const char* to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::NoSchedule: return "NoSchedule";
    case TaintEffect::PreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::NoExecute: return "NoExecute";
  }
  return "?";
}

const char* to_string(NodeSelectorRequirement::Op op) {
  using Op = NodeSelectorRequirement::Op;
  switch (op) {
    case Op::In: return "In";
    case Op::NotIn: return "NotIn";
    case Op::Exists: return "Exists";
    case Op::DoesNotExist: return "DoesNotExist";
    case Op::Gt: return "Gt";
    case Op::Lt: return "Lt";
  }
  return "?";
}

bool Toleration::tolerates(const Taint& t) const {
  // k8s.io/api/core/v1/toleration.go ToleratesTaint: an effect, if given, must match; a key,
  // if given, must match; Exists matches any value, Equal (or no operator) the exact value.
  if (!any_effect && effect != t.effect) return false;
  if (!key.empty() && key != t.key) return false;
  return op == Op::Exists || value == t.value;
}

namespace {

const std::string* label_of(const NodeLabels& labels, std::string_view key) {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

// strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits, within int64.
std::optional<std::int64_t> parse_int64(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t mag = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), mag);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (!neg && mag > kMax) return std::nullopt;
  if (neg && mag > kMax + 1) return std::nullopt;
  return neg ? static_cast<std::int64_t>(0 - mag) : static_cast<std::int64_t>(mag);
}

bool field_matches(const NodeSelectorRequirement& r, std::string_view node_name) {
  // nodeSelectorRequirementsAsFieldSelector: metadata.name with In / NotIn and one value
  // (the loaders refuse anything else).
  if (r.key != "metadata.name" || r.values.size() != 1) return false;
  const bool eq = node_name == r.values[0];
  return r.op == NodeSelectorRequirement::Op::In ? eq : (r.op == NodeSelectorRequirement::Op::NotIn && !eq);
}

}  // namespace

bool requirement_matches(const NodeSelectorRequirement& r, const NodeLabels& labels) {
  using Op = NodeSelectorRequirement::Op;
  const std::string* have = label_of(labels, r.key);
  auto in_values = [&] { return have && std::find(r.values.begin(), r.values.end(), *have) != r.values.end(); };
  switch (r.op) {
    case Op::In: return in_values();
    case Op::NotIn: return !in_values();
    case Op::Exists: return have != nullptr;
    case Op::DoesNotExist: return have == nullptr;
    case Op::Gt:
    case Op::Lt: {
      if (!have || r.values.size() != 1) return false;
      const auto lv = parse_int64(*have);
      const auto rv = parse_int64(r.values[0]);
      if (!lv || !rv) return false;
      return r.op == Op::Gt ? *lv > *rv : *lv < *rv;
    }
  }
  return false;
}

bool term_matches(const NodeSelectorTerm& t, const NodeLabels& labels, std::string_view node_name) {
  if (t.empty()) return false;  // "nil or empty term matches no objects"
  for (const auto& r : t.match_expressions)
    if (!requirement_matches(r, labels)) return false;
  for (const auto& r : t.match_fields)
    if (!field_matches(r, node_name)) return false;
  return true;
}

bool required_affinity_matches(const std::vector<std::pair<std::string, std::string>>& node_selector,
                               const NodeAffinity& affinity, const NodeLabels& labels, std::string_view node_name) {
  for (const auto& [k, v] : node_selector) {
    const std::string* have = label_of(labels, k);
    if (!have || *have != v) return false;
  }
  if (!affinity.has_required) return true;
  for (const auto& term : affinity.required)
    if (term_matches(term, labels, node_name)) return true;
  return false;
}

std::int64_t preferred_affinity_score(const NodeAffinity& affinity, const NodeLabels& labels, std::string_view node_name) {
  std::int64_t score = 0;
  for (const auto& p : affinity.preferred)
    if (p.weight != 0 && term_matches(p.preference, labels, node_name)) score += p.weight;
  return score;
}

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const auto& tol : tolerations)
    if (tol.tolerates(taint)) return true;
  return false;
}

const Taint* first_untolerated_taint(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations) {
  for (const auto& t : taints) {
    if (t.effect != TaintEffect::NoSchedule && t.effect != TaintEffect::NoExecute) continue;
    if (!tolerated(tolerations, t)) return &t;
  }
  return nullptr;
}

std::string untolerated_taint_reason(const Taint& t) {
  return "node(s) had untolerated taint {" + t.key + ": " + t.value + "}";
}

int intolerable_prefer_no_schedule(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations) {
  int n = 0;
  for (const auto& t : taints) {
    if (t.effect != TaintEffect::PreferNoSchedule) continue;
    // getAllTolerationPreferNoSchedule: only tolerations with an empty or PreferNoSchedule effect.
    bool ok = false;
    for (const auto& tol : tolerations)
      if ((tol.any_effect || tol.effect == TaintEffect::PreferNoSchedule) && tol.tolerates(t)) ok = true;
    if (!ok) ++n;
  }
  return n;
}

std::string static_misfit(const TaskInfo& t, const NodeLabels& labels, std::string_view node_name,
                          const std::vector<Taint>& taints) {
  if (!required_affinity_matches(t.node_selector, t.node_affinity, labels, node_name)) return std::string(kNodeAffinityMismatch);
  if (const Taint* bad = first_untolerated_taint(taints, t.tolerations)) return untolerated_taint_reason(*bad);
  return {};
}

}  // namespace mltwin::policy
