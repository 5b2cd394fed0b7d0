// Kubernetes quantities and resource lists in JSON, read as the API server and Volcano read them
// (mltwin/k8s/resources.hpp).
#include "mltwin/k8s/resources.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "mltwin/policy/spelling.hpp"

namespace mltwin::k8s {

using nlohmann::json;

std::string go_json_float(double v) {
  // encoding/json floatEncoder: 'e' format when 0 < |v| < 1e-6 or |v| >= 1e21, else 'f'; both
  // with strconv's shortest digits (precision -1), "e-07" cleaned to "e-7". std::to_chars in
  // scientific form gives the shortest digits; 'f' places them, padding with zeros (Go writes
  // 1.2345678901234568e20 as "123456789012345680000", where to_chars' fixed form may print the
  // double's exact digits).
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    const std::size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
    return s;
  }
  const bool neg = s[0] == '-';
  const std::size_t e = s.find('e');
  const int exp10 = std::stoi(s.substr(e + 1));
  std::string digits;
  for (std::size_t i = neg ? 1 : 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  std::string out = neg ? "-" : "";
  if (a == 0) return out + "0";
  const int n = static_cast<int>(digits.size());
  if (exp10 >= n - 1) {
    out += digits + std::string(static_cast<std::size_t>(exp10 - (n - 1)), '0');
  } else if (exp10 >= 0) {
    out += digits.substr(0, static_cast<std::size_t>(exp10 + 1)) + "." + digits.substr(static_cast<std::size_t>(exp10 + 1));
  } else {
    out += "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + digits;
  }
  return out;
}

std::string quantity_text(const nlohmann::json& q) {
  if (q.is_string()) return q.get<std::string>();
  if (q.is_number_integer()) return q.dump();  // signed or unsigned: its decimal digits
  if (q.is_number_float()) {
    const double v = q.get<double>();
    if (!std::isfinite(v)) throw std::invalid_argument("quantity must be a finite number");
    return go_json_float(v);
  }
  throw std::invalid_argument("quantity must be a number or a string");
}

policy::Quantity quantity_of(const nlohmann::json& q) { return policy::parse_quantity(policy::go_trim_space(quantity_text(q))); }

double parse_quantity(const nlohmann::json& q) {
  const policy::Quantity x = quantity_of(q);
  if (x.sign() < 0) throw std::invalid_argument("'" + quantity_text(q) + "': quantity must be >= 0");
  (void)x.value();  // beyond int64: a QuantityError naming the amount
  return x.to_double();
}

std::optional<FieldProblem> resource_list_problem(const json& obj, policy::Resource& r, UnknownResource unknown) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& name = it.key();
    const bool known = name == "cpu" || name == "memory" || policy::is_scalar_resource_name(name);
    if (!known || name.starts_with("count/")) {
      if (unknown == UnknownResource::Skip) continue;
      std::vector<std::string> names;
      for (std::uint16_t id = 0; id < policy::rn::kWellKnown; ++id) names.emplace_back(policy::ResourceName(id).str());
      return FieldProblem{name,
           "not a resource name Volcano counts: cpu, memory, pods, ephemeral-storage, hugepages-<size>, or an "
           "extended resource such as aws.amazon.com/neuron or nvidia.com/gpu (domain/name)" + policy::did_you_mean(name, names)};
    }
    // Volcano NewResource (api/resource_info.go:71-107): cpu as Quantity.MilliValue(), memory
    // and pods as Value(), every other scalar as MilliValue() — each rounded up, exactly.
    std::int64_t v = 0;
    try {
      const policy::Quantity q = quantity_of(it.value());
      if (q.sign() < 0) throw std::invalid_argument("'" + q.str() + "': a resource quantity must be >= 0");
      v = (name == "memory" || name == "pods") ? q.value() : q.milli_value();
    } catch (const std::exception& e) {
      return FieldProblem{name, e.what()};
    }
    const auto x = static_cast<double>(v);
    if (name == "cpu") r.milli_cpu += x;
    else if (name == "memory") r.memory += x;
    else if (name == "pods") {
      r.add_scalar(policy::rn::kPods, x);
      r.max_task_num += static_cast<int>(std::min<std::int64_t>(v, 1'000'000'000));
    } else r.add_scalar(policy::ResourceName::intern(name), x);
  }
  return std::nullopt;
}

}  // namespace mltwin::k8s
