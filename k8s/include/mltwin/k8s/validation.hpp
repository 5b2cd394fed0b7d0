// mltwin/k8s/validation.hpp — what the Kubernetes API server requires of the objects the codec
// reads: object names, label keys and values, taints, tolerations and node affinity, checked as
// pkg/apis/core/validation/validation.go (validateTaints, ValidateTolerations,
// ValidateNodeSelectorRequirement, ValidatePreferredSchedulingTerms) and
// k8s.io/apimachinery/pkg/util/validation (IsQualifiedName, IsValidLabelValue, IsDNS1123Label,
// IsDNS1123Subdomain) check them, and turned into the policy library's objects. The scenario
// loaders (io/) and the snapshot reader share them, so both refuse the same things with the
// same words.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/policy/objects.hpp"

namespace mltwin::k8s {


/// What is wrong with a label key / taint key (IsQualifiedName), or empty.
std::string qualified_name_problem(std::string_view s);
/// What is wrong with a label value / taint value (IsValidLabelValue), or empty.
std::string label_value_problem(std::string_view s);

/// Object names, as Kubernetes validates them (k8s.io/apimachinery/pkg/util/validation/
/// validation.go IsDNS1123Label, IsDNS1123Subdomain; messages as upstream's). Each returns what
/// is wrong with `name`, or empty; the name is shown with control characters escaped.
std::string dns1123_label_problem(std::string_view name);
std::string dns1123_subdomain_problem(std::string_view name);
/// The name of an object of `kind` — what Kubernetes requires of its metadata.name:
/// - "Queue", "PodGroup" (Volcano CRDs: the API server's generic check of a custom resource's
///   name, a DNS-1123 subdomain), "PriorityClass" (ValidatePriorityClass: NameIsDNSSubdomain),
///   "DaemonSet" (ValidateDaemonSetName: NameIsDNSSubdomain): a DNS-1123 subdomain;
/// - "Job" (a Volcano Job: a DNS-1123 subdomain as a CRD, and Volcano's admission webhook adds
///   IsQualifiedName, pkg/webhooks/admission/jobs/validate/admit_job.go validateJobName): a
///   DNS-1123 subdomain of at most 63 characters;
/// - "task" (a Volcano Job's task: admit_job.go validates IsDNS1123Label): a DNS-1123 label.
std::string object_name_problem(std::string_view name, std::string_view kind);
/// A node group's name: its nodes are named <group>-<index> up to `max_index`, and a node's
/// name is a DNS-1123 subdomain (ValidateNodeName) that is also the value of its
/// kubernetes.io/hostname label (at most 63 characters); the group's name is the value of the
/// eks.amazonaws.com/nodegroup label. So: a DNS-1123 label that leaves room for "-<index>".
std::string node_group_name_problem(std::string_view name, long long max_index);

/// A problem in one field of an object: the path below the object (e.g. "operator",
/// "nodeSelectorTerms/0/matchExpressions/1/values") and what is wrong.
struct FieldProblem {
  std::string field;
  std::string message;
};

/// Each expects the object in its Kubernetes shape with the right JSON types (the schema, or the
/// YAML reader, checks those) and returns the first problem, if any:
/// - a taint {key, value, effect}: key a qualified name, value a label value, effect one of
///   NoSchedule, PreferNoSchedule, NoExecute;
/// - a toleration {key, operator, value, effect, tolerationSeconds}: an empty key needs operator
///   Exists; Exists takes no value; tolerationSeconds only with effect NoExecute;
/// - a node affinity {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms},
///   preferredDuringSchedulingIgnoredDuringExecution: [{weight 1..100, preference}]}: at least
///   one required term; In/NotIn with values, Exists/DoesNotExist without, Gt/Lt with one
///   integer; matchFields only metadata.name with In/NotIn and one value.
std::optional<FieldProblem> taint_problem(const nlohmann::json& t);
std::optional<FieldProblem> toleration_problem(const nlohmann::json& t);
std::optional<FieldProblem> node_affinity_problem(const nlohmann::json& a);

/// The policy objects of checked JSON.
policy::Taint taint_from(const nlohmann::json& t);
policy::Toleration toleration_from(const nlohmann::json& t);
policy::NodeAffinity node_affinity_from(const nlohmann::json& a);

}  // namespace mltwin::k8s
