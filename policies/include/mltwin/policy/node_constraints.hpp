// mltwin/policy/node_constraints.hpp — what a pod's nodeSelector, node affinity and tolerations
// make of a node's labels, name and taints, as Kubernetes v1.32 (the release Volcano v1.12.1
// builds on, go.mod k8s.io/kubernetes v1.32.2) evaluates them:
//   - k8s.io/api/core/v1/toleration.go                 Toleration.ToleratesTaint
//   - pkg/apis/core/v1/helper/helpers.go               FindMatchingUntoleratedTaint
//   - k8s.io/apimachinery/pkg/labels/selector.go       Requirement.Matches (In, NotIn, Exists,
//                                                      DoesNotExist, Gt, Lt)
//   - k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
//       RequiredNodeAffinity.Match (nodeSelector AND the required terms, terms ORed, an empty
//       term matching nothing), PreferredSchedulingTerms.Score (sum of the matching weights)
//   - pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (the filter's
//       message, countIntolerableTaintsPreferNoSchedule)
// The functions take labels, name and taints rather than a NodeInfo, so that the model can ask
// the same questions of a node group that has no node yet (the cluster autoscaler's template
// node, the admission check that rejects a job no node group could ever host).
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mltwin/policy/objects.hpp"

namespace mltwin::policy {

/// A node's labels, sorted by key (NodeInfo::labels).
using NodeLabels = std::vector<std::pair<std::string, std::string>>;

/// The message of the NodeAffinity filter (nodeaffinity.ErrReasonPod) for a nodeSelector or a
/// required node affinity the node does not satisfy.
inline constexpr std::string_view kNodeAffinityMismatch = "node(s) didn't match Pod's node affinity/selector";

/// labels.Requirement.Matches on the node's labels. In: the label is present with one of the
/// values; NotIn: absent or none of them; Exists / DoesNotExist; Gt / Lt: present, an integer
/// (strconv.ParseInt base 10) and greater / less than the requirement's single value (a
/// non-integer on either side does not match).
MLTWIN_POLICY_EXPORT bool requirement_matches(const NodeSelectorRequirement& r, const NodeLabels& labels);

/// A node selector term: every matchExpression on the labels and every matchField on the node's
/// name (metadata.name, In / NotIn). A term with neither matches no node.
MLTWIN_POLICY_EXPORT bool term_matches(const NodeSelectorTerm& t, const NodeLabels& labels, std::string_view node_name);

/// RequiredNodeAffinity.Match: every nodeSelector label, and (if the pod has a required node
/// affinity) at least one of its terms.
MLTWIN_POLICY_EXPORT bool required_affinity_matches(const std::vector<std::pair<std::string, std::string>>& node_selector,
                               const NodeAffinity& affinity, const NodeLabels& labels, std::string_view node_name);

/// PreferredSchedulingTerms.Score: the sum of the weights of the preferred terms the node matches
/// (terms of weight 0 or with no requirement count for nothing).
MLTWIN_POLICY_EXPORT std::int64_t preferred_affinity_score(const NodeAffinity& affinity, const NodeLabels& labels, std::string_view node_name);

/// True if some toleration tolerates the taint (v1helper.TolerationsTolerateTaint).
MLTWIN_POLICY_EXPORT bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);

/// FindMatchingUntoleratedTaint with the filter plugin's predicate (NoSchedule and NoExecute
/// only): the first such taint, in the node's order, that no toleration tolerates; nullptr if
/// none.
MLTWIN_POLICY_EXPORT const Taint* first_untolerated_taint(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations);

/// The TaintToleration filter's reason, "node(s) had untolerated taint {key: value}".
MLTWIN_POLICY_EXPORT std::string untolerated_taint_reason(const Taint& t);

/// countIntolerableTaintsPreferNoSchedule: the node's PreferNoSchedule taints that none of the
/// pod's tolerations with an empty or PreferNoSchedule effect tolerates.
MLTWIN_POLICY_EXPORT int intolerable_prefer_no_schedule(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations);

/// What a node's labels, name and taints alone say about a pod, whatever the node's load: an
/// empty string if the pod may go there, else the reason the NodeAffinity (first) or
/// TaintToleration filter gives, as Volcano's predicates plugin runs them.
MLTWIN_POLICY_EXPORT std::string static_misfit(const TaskInfo& t, const NodeLabels& labels, std::string_view node_name,
                          const std::vector<Taint>& taints);

}  // namespace mltwin::policy
