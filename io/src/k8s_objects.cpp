// The scenario loaders' taint, toleration and node-affinity lists: each entry checked by the
// codec's rules (mltwin/k8s/validation.hpp), a problem thrown at the scenario's own place.
#include "k8s_objects.hpp"

#include <set>
#include <utility>

#include "scenario_common.hpp"

namespace mltwin::io::detail {

using nlohmann::json;

namespace {
std::string str_of(const json& o, const char* key) { return o.contains(key) ? o[key].get<std::string>() : std::string(); }
}  // namespace

std::vector<policy::Taint> taints_of(const std::string& file, const std::string& where, const json& list) {
  std::vector<policy::Taint> out;
  std::set<std::pair<std::string, std::string>> seen;  // (key, effect)
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "/" + std::to_string(i);
    if (auto p = taint_problem(list[i])) fail(file, at + "/" + p->field, p->message);
    out.push_back(taint_from(list[i]));
    if (!seen.emplace(out.back().key, str_of(list[i], "effect")).second)
      fail(file, at, "taints must be unique by key and effect pair (Kubernetes validation)");
  }
  return out;
}

std::vector<policy::Toleration> tolerations_of(const std::string& file, const std::string& where, const json& list) {
  std::vector<policy::Toleration> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "/" + std::to_string(i);
    if (auto p = toleration_problem(list[i])) fail(file, at + "/" + p->field, p->message);
    out.push_back(toleration_from(list[i]));
  }
  return out;
}

policy::NodeAffinity node_affinity_of(const std::string& file, const std::string& where, const json& a) {
  if (auto p = node_affinity_problem(a)) fail(file, where + "/" + p->field, p->message);
  return node_affinity_from(a);
}

}  // namespace mltwin::io::detail
