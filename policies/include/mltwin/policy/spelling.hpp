// mltwin/policy/spelling.hpp — "did you mean": the nearest of a set of names to a misspelt one,
// for error messages about configuration keys, resource names and instance types.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mltwin::policy {

/// Levenshtein distance (insertions, deletions, substitutions of bytes).
MLTWIN_POLICY_EXPORT std::size_t edit_distance(std::string_view a, std::string_view b);

/// Up to `max` of `candidates` that `name` may be a misspelling of, nearest first: at most 3 edits
/// (at most 1 for names of 4 bytes or fewer), or one contains the other (names of 3+ bytes);
/// ties keep the candidates' order; no duplicates; `name` itself is never returned.
MLTWIN_POLICY_EXPORT std::vector<std::string> near_strings(std::string_view name, const std::vector<std::string>& candidates,
                                                           std::size_t max = 3);

/// "; did you mean 'x'?" or "; did you mean 'x', 'y'?" for the near_strings of `name`, or "".
MLTWIN_POLICY_EXPORT std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace mltwin::policy
