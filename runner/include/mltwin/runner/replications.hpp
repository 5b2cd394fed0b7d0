// mltwin/runner/replications.hpp — independent replications of a run: the same scenario under
// N seeds, and each numeric summary figure's mean with its Student-t confidence interval
// (Boost.Math's students_t quantile).
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mltwin::runner {

struct FigureStats {
  std::string name;     ///< the summary figure, e.g. "queueing_s.mean", "model_latency.p99_us"
  std::size_t n = 0;    ///< replications that reported it
  double mean = 0;
  double half_width = 0;  ///< of the `level` interval; NaN when n < 2
  double min = 0, max = 0;
};

/// Per figure over `summaries` (Run::summary_json() of each replication): every numeric leaf,
/// nested objects flattened with '.', arrays skipped. `level` e.g. 0.95. Figures in the
/// first summary's order.
std::vector<FigureStats> replication_stats(const std::vector<nlohmann::json>& summaries, double level);

}  // namespace mltwin::runner
