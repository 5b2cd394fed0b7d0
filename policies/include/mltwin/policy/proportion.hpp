// mltwin/policy/proportion.hpp — the proportion plugin's deserved-share computation, exposed so
// that it can be tested against hand calculations and reported.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <vector>

#include "mltwin/policy/resource.hpp"

namespace mltwin::policy {

/// Per-queue attributes of the proportion plugin (Volcano queueAttr).
struct MLTWIN_POLICY_EXPORT QueueAttr {
  bool present = false;   ///< the queue has jobs in the session (only those take part)
  std::int32_t weight = 0;
  double share = 0;       ///< max over resources of allocated / deserved
  Resource deserved, allocated, request, elastic, inqueue, real_capability, guarantee;
  bool has_capability = false;  ///< spec.capability names a resource (Volcano: capability != nil)
  Resource capability;
};

/// Volcano's water-filling (proportion.go OnSessionOpen): fills `deserved` (and `share`) of every
/// present queue from `total`. Inputs: weight, request, real_capability, guarantee, allocated.
MLTWIN_POLICY_EXPORT void proportion_water_fill(const Resource& total, std::vector<QueueAttr>& attrs);

/// share = max over deserved.ResourceNames() (the resources at or above minResource) of
/// allocated / deserved (proportion.go updateShare).
MLTWIN_POLICY_EXPORT void proportion_update_share(QueueAttr& a);

}  // namespace mltwin::policy
