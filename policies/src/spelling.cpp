#include "mltwin/policy/spelling.hpp"

#include <algorithm>
#include <utility>

namespace mltwin::policy {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> near_strings(std::string_view name, const std::vector<std::string>& candidates, std::size_t max) {
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, index)
  const std::size_t limit = name.size() <= 4 ? 1 : 3;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c == name) continue;
    const std::size_t d = edit_distance(name, c);
    const bool contains = name.size() >= 3 && c.size() >= 3 && (c.find(name) != std::string::npos || name.find(c) != std::string_view::npos);
    if (d <= limit || contains) scored.emplace_back(d, i);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < max; ++i)
    if (std::find(out.begin(), out.end(), candidates[scored[i].second]) == out.end()) out.push_back(candidates[scored[i].second]);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = near_strings(name, candidates);
  if (near.empty()) return "";
  std::string out = "; did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) out += (i > 0 ? ", '" : "'") + near[i] + "'";
  return out + "?";
}

}  // namespace mltwin::policy
