// io/src/k8s_objects.hpp — the Kubernetes objects a scenario or a manifest gives for placement
// (taints, tolerations, node affinity), checked by the codec's rules (mltwin/k8s/validation.hpp,
// which names the upstream functions) with errors at the scenario's place. Shared by the JSON
// scenario loader (errors at a JSON path) and the YAML readers (errors at line:column). Not
// installed.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/k8s/validation.hpp"
#include "mltwin/policy/objects.hpp"

namespace mltwin::io::detail {

using k8s::dns1123_label_problem;
using k8s::dns1123_subdomain_problem;
using k8s::FieldProblem;
using k8s::label_value_problem;
using k8s::node_affinity_from;
using k8s::node_affinity_problem;
using k8s::node_group_name_problem;
using k8s::object_name_problem;
using k8s::qualified_name_problem;
using k8s::taint_from;
using k8s::taint_problem;
using k8s::toleration_from;
using k8s::toleration_problem;

/// A list of taints / tolerations, or a node affinity, from a scenario: each checked, a problem
/// thrown as ScenarioError "file: where/<index>/<field>: message".
std::vector<policy::Taint> taints_of(const std::string& file, const std::string& where, const nlohmann::json& list);
std::vector<policy::Toleration> tolerations_of(const std::string& file, const std::string& where, const nlohmann::json& list);
policy::NodeAffinity node_affinity_of(const std::string& file, const std::string& where, const nlohmann::json& a);

}  // namespace mltwin::io::detail
