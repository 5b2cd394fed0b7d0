// The endpoint model against queueing theory, over many seeds (a t-test on the seeds' means,
// never one lucky seed). Reference values from ../shared/peers/analytic.py:
//   M/M/8, rho = 0.9, mu = 1            Wq = 0.876916 (Erlang C)
//   M/M/8/16, rho = 0.9                  P_block = 0.041470, Wq(admitted) = 0.282868
//   LRU, 100 of 1,000 equal models, Zipf(0.8) IRM: hit ratio 0.377790 (Che approximation)
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "inference_fixtures.hpp"

using namespace fixtures;

namespace {

struct MeanSd {
  double mean = 0, sd = 0;
  std::size_t n = 0;
};
MeanSd mean_sd(const std::vector<double>& x) {
  MeanSd r;
  r.n = x.size();
  r.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - r.mean) * (v - r.mean);
  r.sd = std::sqrt(ss / static_cast<double>(x.size() - 1));
  return r;
}
// Student t, 19 degrees of freedom, two-sided 99 %: 2.861.
constexpr double kT19_99 = 2.861;

/// One model, 8 permanent DJL workers, Poisson arrivals at rho = 0.9 with exponential 1 s service.
InferenceScenario mmc_scenario(int job_queue_size, int customers) {
  InferenceScenario sc = base_scenario(1);
  sc.server.min_workers = 8;
  sc.server.max_workers = 8;
  sc.server.job_queue_size = job_queue_size;
  sc.traffic.poisson.rate_per_s = 7.2;
  sc.traffic.poisson.duration = Duration::from_seconds(customers / 7.2);
  return sc;
}

}  // namespace

TEST_CASE("M/M/8 through DJL's worker pool: mean wait = Erlang C over 20 seeds") {
  std::vector<double> wq;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const InferenceScenario sc = mmc_scenario(1'000'000, 100'000);
    MemoryRecorder rec;
    Run run(sc, seed, &rec);
    run.go();
    double sum = 0;
    std::size_t n = 0;
    for (const auto& r : rec.requests) {
      if (r.id < 10'000) continue;  // warm-up
      REQUIRE(r.status == 200);
      sum += static_cast<double>(r.queue_ns) * 1e-9;
      ++n;
    }
    wq.push_back(sum / static_cast<double>(n));
  }
  const MeanSd s = mean_sd(wq);
  const double t = (s.mean - 0.876916) / (s.sd / std::sqrt(20.0));
  MESSAGE("Wq mean " << s.mean << " sd " << s.sd << " t " << t);
  CHECK(std::abs(t) < kT19_99);
}

TEST_CASE("job_queue_size 9 with 8 workers: at most 16 in the system -> M/M/8/16 blocking") {
  // DJL rejects when one slot is left and every worker is busy, so the queue never exceeds 8
  // while 8 run: K = 8 + 8 = 16.
  std::vector<double> block, wq;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const InferenceScenario sc = mmc_scenario(9, 100'000);
    MemoryRecorder rec;
    Run run(sc, seed, &rec);
    run.go(997);
    CHECK(run.ep.stats().max_queue_seen <= 8);
    std::size_t n = 0, rejected = 0, served = 0;
    double sum = 0;
    for (const auto& r : rec.requests) {
      if (r.id < 10'000) continue;
      ++n;
      if (r.status == 503) ++rejected;
      else {
        REQUIRE(r.status == 200);
        ++served;
        sum += static_cast<double>(r.queue_ns) * 1e-9;
      }
    }
    block.push_back(static_cast<double>(rejected) / static_cast<double>(n));
    wq.push_back(sum / static_cast<double>(served));
  }
  const MeanSd b = mean_sd(block), w = mean_sd(wq);
  const double tb = (b.mean - 0.041470) / (b.sd / std::sqrt(20.0));
  const double tw = (w.mean - 0.282868) / (w.sd / std::sqrt(20.0));
  MESSAGE("P_block " << b.mean << " (t " << tb << "), Wq(admitted) " << w.mean << " (t " << tw << ")");
  CHECK(std::abs(tb) < kT19_99);
  CHECK(std::abs(tw) < kT19_99);
}

TEST_CASE("LRU memory cache of 100 of 1,000 models under Zipf(0.8): hit ratio ~ Che approximation") {
  std::vector<double> hits;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    InferenceScenario sc = base_scenario(1000);
    for (auto& m : sc.models) m.service.base = constant(Duration::us(1));  // never busy when evicted
    sc.catalog.types[0].memory_gib = static_cast<double>(100 * sc.models[0].resident_bytes) / kGiB;      // exactly 100 models
    sc.traffic.poisson.rate_per_s = 1;
    sc.traffic.poisson.duration = Duration::s(50'000);
    sc.traffic.poisson.popularity.kind = PopularitySpec::Kind::Zipf;
    sc.traffic.poisson.popularity.first = 0;
    sc.traffic.poisson.popularity.last = 999;
    sc.traffic.poisson.popularity.zipf_alpha = 0.8;
    MemoryRecorder rec;
    Run run(sc, seed, &rec);
    run.go(9973);
    std::size_t n = 0, h = 0;
    for (const auto& r : rec.requests) {
      if (r.id < 5'000) continue;
      REQUIRE(r.status == 200);
      ++n;
      h += r.cache_hit;
    }
    hits.push_back(static_cast<double>(h) / static_cast<double>(n));
  }
  const MeanSd s = mean_sd(hits);
  MESSAGE("LRU hit ratio " << s.mean << " sd " << s.sd);
  // Che's formula is an approximation (its error at N = 1,000, C = 100 is well under 1 %, see
  // Fricker, Robert & Roberts 2012); allow it 0.005 besides the sampling error.
  CHECK(std::abs(s.mean - 0.377790) < kT19_99 * s.sd / std::sqrt(20.0) + 0.005);
}
