// replications.cpp — runner::replication_stats (see replications.hpp).
#include "mltwin/runner/replications.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>
#include <map>

namespace mltwin::runner {
namespace {

void flatten(const nlohmann::json& j, const std::string& prefix, std::vector<std::pair<std::string, double>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) flatten(*it, key, out);
    else if (it->is_number() && !it->is_boolean()) out.emplace_back(key, it->get<double>());
  }
}

}  // namespace

std::vector<FigureStats> replication_stats(const std::vector<nlohmann::json>& summaries, double level) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> values;
  for (const auto& s : summaries) {
    std::vector<std::pair<std::string, double>> flat;
    flatten(s, "", flat);
    for (const auto& [k, v] : flat) {
      if (k == "seed") continue;
      if (values.find(k) == values.end()) order.push_back(k);
      if (std::isfinite(v)) values[k].push_back(v);
      else values[k];
    }
  }
  std::vector<FigureStats> out;
  for (const auto& k : order) {
    const auto& v = values[k];
    FigureStats f;
    f.name = k;
    f.n = v.size();
    if (v.empty()) {
      f.mean = f.half_width = f.min = f.max = std::nan("");
      out.push_back(f);
      continue;
    }
    double sum = 0;
    for (double x : v) sum += x;
    f.mean = sum / static_cast<double>(v.size());
    f.min = *std::min_element(v.begin(), v.end());
    f.max = *std::max_element(v.begin(), v.end());
    if (v.size() < 2) {
      f.half_width = std::nan("");
    } else {
      double ss = 0;
      for (double x : v) ss += (x - f.mean) * (x - f.mean);
      const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
      const boost::math::students_t t(static_cast<double>(v.size() - 1));
      f.half_width = boost::math::quantile(t, 0.5 + level / 2) * sd / std::sqrt(static_cast<double>(v.size()));
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace mltwin::runner
