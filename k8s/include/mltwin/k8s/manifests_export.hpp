// mltwin/k8s/manifests_export.hpp — the manifest reader (manifests.hpp) on a kubectl export of
// several kinds, e.g. what `kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json`
// prints or what `mltwin run --snapshot-at` writes: a scenario key reads its own kinds from such
// a file and leaves the others to the keys that read them (docs/scenarios.md, "Pods and
// PodGroups from kubectl").
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "mltwin/k8s/manifests.hpp"

namespace mltwin::k8s {

/// read_manifests, except that objects of the kinds in `kinds` (e.g. "Node", "Pod") are skipped
/// unparsed and counted in `skipped` (kind -> objects); "*" in `kinds` skips, likewise, every
/// kind read_manifests does not read (a Secret, a Service). Throws as read_manifests.
Manifests read_manifests_skipping(const std::string& file, const std::vector<std::string>& kinds, std::map<std::string, std::size_t>& skipped);

}  // namespace mltwin::k8s
