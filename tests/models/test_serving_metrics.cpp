// MetricsAggregator and LatencyHistogram: per-period CloudWatch metrics checked against values
// computed by hand (type-7 quantiles: h = (n − 1)·q, x[floor h] + frac(h)·(x[floor h + 1] −
// x[floor h])), whole-run histogram quantiles against the exact quantiles of the same samples.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "mltwin/models/serving_metrics.hpp"

using namespace mltwin::models::inference;
using mltwin::core::Duration;
using mltwin::core::Time;

namespace {

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kS = 1'000'000'000;

Time at(double seconds) { return Time::from_seconds(seconds); }

RequestDone served(std::uint64_t id, Time done, std::int64_t model_us, std::int64_t overhead_us) {
  RequestDone r;
  r.id = id;
  r.model = static_cast<std::uint32_t>(id % 3);
  r.instance = 0;
  r.arrival = done - Duration::us(model_us + overhead_us);
  r.done = done;
  r.status = 200;
  r.model_latency_ns = model_us * kUs;
  r.overhead_ns = overhead_us * kUs;
  r.batch = 1;
  r.cache_hit = true;
  return r;
}

/// Reference type-7 quantile by sorting (the definition, as io::quantile and numpy).
double sorted_quantile(std::vector<std::int64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return static_cast<double>(v[lo]) + (h - static_cast<double>(lo)) * static_cast<double>(v[hi] - v[lo]);
}

struct MinuteSink final : ServingRecorder {
  std::vector<MinuteMetrics> minutes;
  void request(const RequestDone&) override {}
  void model_event(const ModelEvent&) override {}
  void worker_event(const WorkerEvent&) override {}
  void instance_event(const InstanceEvent&) override {}
  void minute(const MinuteMetrics& m) override { minutes.push_back(m); }
  void checkpoint(Time) override {}
};

}  // namespace

TEST_CASE("one hand-made minute: counts, averages and exact type-7 percentiles") {
  MinuteSink sink;
  MetricsAggregator agg(Duration::s(60), Time::zero(), &sink);

  // Ten 2xx requests, ModelLatency 1..10 ms in a shuffled order, OverheadLatency 10 µs × the
  // same rank + 5 µs; done times spread over the minute.
  const std::int64_t model_ms[10] = {5, 1, 3, 9, 7, 2, 10, 4, 8, 6};
  for (int i = 0; i < 10; ++i)
    agg.request(served(static_cast<std::uint64_t>(i), at(1.0 + 5.0 * i), model_ms[i] * 1000, model_ms[i] * 10 + 5));
  // Two of them were misses that waited for the model: 2 s and 4 s.
  {
    RequestDone r = served(10, at(51.0), 3000, 35);  // an 11th 2xx: ModelLatency 3 ms, overhead 35 µs
    r.cache_hit = false;
    r.loading_wait_ns = 2 * kS;
    agg.request(r);
    r.id = 11;
    r.done = at(52.0);
    r.loading_wait_ns = 4 * kS;
    agg.request(r);
  }
  // Two 503s (queue full) and one 507: invocations and 5xx, no latency samples, no hits.
  for (std::uint64_t id : {12, 13, 14}) {
    RequestDone r;
    r.id = id;
    r.model = 7;
    r.arrival = r.done = at(53.0 + static_cast<double>(id - 12));
    r.status = id == 14 ? 507 : 503;
    r.instance = id == 14 ? -1 : 1;
    agg.request(r);
  }
  // A 4xx (the model never makes one, but it is counted as CloudWatch would).
  {
    RequestDone r;
    r.id = 15;
    r.arrival = r.done = at(59.5);
    r.status = 400;
    agg.request(r);
  }
  agg.download_done(at(10), Duration::ms(1500));
  agg.download_done(at(20), Duration::ms(2500));
  agg.load_done(at(21), Duration::ms(300));
  agg.unload_done(at(22), Duration::ms(40));
  agg.unload_done(at(23), Duration::ms(60));
  agg.unload_done(at(24), Duration::ms(80));

  PeriodGauges g;
  g.instances_in_service = 2;
  g.instance_ns = 2 * 60 * kS;
  g.cpu_busy_core_ns = 150 * kS;
  g.loaded_models = 17;
  g.workers = 9;
  g.memory_used_bytes = 3ULL << 30;
  g.memory_total_bytes = 8ULL << 30;
  const MinuteMetrics m = agg.close_period(Time::zero(), g);

  CHECK(m.start == Time::zero());
  CHECK(m.end == at(60));
  CHECK(m.invocations == 16);
  CHECK(m.invocation_5xx == 3);
  CHECK(m.invocation_4xx == 1);
  CHECK(m.served == 12);
  CHECK(m.invocations_per_instance == doctest::Approx(8.0));

  // ModelLatency (µs), sorted: 1000, 2000, 3000, 3000, 3000, 4000, 5000, 6000, 7000, 8000,
  // 9000, 10000 (n = 12). p50: h = 5.5 → 4000 + 0.5·1000 = 4500. p90: h = 9.9 → 8000 + 0.9·1000
  // = 8900. p99: h = 10.89 → 9000 + 0.89·1000 = 9890. Mean 61000 / 12.
  CHECK(m.model_latency_p50_us == doctest::Approx(4500).epsilon(1e-12));
  CHECK(m.model_latency_p90_us == doctest::Approx(8900).epsilon(1e-12));
  CHECK(m.model_latency_p99_us == doctest::Approx(9890).epsilon(1e-12));
  CHECK(m.model_latency_avg_us == doctest::Approx(61000.0 / 12).epsilon(1e-12));
  // OverheadLatency (µs), sorted: 15, 25, 35, 35, 35, 45, 55, 65, 75, 85, 95, 105.
  // p50 = 45 + 0.5·10 = 50, p90 = 85 + 0.9·10 = 94, p99 = 95 + 0.89·10 = 103.9. Mean 670 / 12.
  CHECK(m.overhead_latency_p50_us == doctest::Approx(50).epsilon(1e-12));
  CHECK(m.overhead_latency_p90_us == doctest::Approx(94).epsilon(1e-12));
  CHECK(m.overhead_latency_p99_us == doctest::Approx(103.9).epsilon(1e-12));
  CHECK(m.overhead_latency_avg_us == doctest::Approx(670.0 / 12).epsilon(1e-12));

  CHECK(m.model_cache_hit == doctest::Approx(10.0 / 16));  // 10 hits among 16 invocations
  CHECK(m.model_loading_waits == 2);
  CHECK(m.model_loading_wait_avg_us == doctest::Approx(3e6));
  CHECK(m.model_downloads == 2);
  CHECK(m.model_downloading_avg_us == doctest::Approx(2e6));
  CHECK(m.model_loads == 1);
  CHECK(m.model_loading_avg_us == doctest::Approx(3e5));
  CHECK(m.model_unloads == 3);
  CHECK(m.model_unloading_avg_us == doctest::Approx(6e4));

  CHECK(m.loaded_model_count == 17);
  CHECK(m.workers == 9);
  CHECK(m.instances_in_service == 2);
  CHECK(m.cpu_utilization == doctest::Approx(125.0));  // 150 core-s over 2 × 60 instance-s
  CHECK(m.memory_utilization == doctest::Approx(37.5));

  REQUIRE(sink.minutes.size() == 1);
  CHECK(sink.minutes[0].model_latency_p99_us == m.model_latency_p99_us);
  CHECK(agg.period_start() == at(60));

  // Whole run: exact count, mean, min, max; totals and per-model counters.
  const LatencySummary s = agg.model_latency_summary();
  CHECK(s.count == 12);
  CHECK(s.mean_us == doctest::Approx(61000.0 / 12));
  CHECK(s.min_us == 1000);
  CHECK(s.max_us == 10000);
  const RunTotals& t = agg.totals();
  CHECK(t.invocations == 16);
  CHECK(t.served == 12);
  CHECK(t.status_503 == 2);
  CHECK(t.status_507 == 1);
  CHECK(t.status_4xx == 1);
  CHECK(t.cache_hits == 10);
  CHECK(t.downloads == 2);
  CHECK(t.unloads == 3);
  CHECK(t.periods == 1);
  REQUIRE(agg.per_model().size() == 8);
  CHECK(agg.per_model()[7].invocations == 3);
  CHECK(agg.per_model()[7].status_503 == 2);
  CHECK(agg.per_model()[7].status_507 == 1);
  CHECK(agg.per_model()[0].invocations == 5);  // ids 0, 3, 6, 9 (model id % 3) and the 4xx (model 0)
  CHECK(agg.per_model()[0].status_507 == 0);
}

TEST_CASE("CPUUtilization is summed over cores and averaged over in-service instance-time") {
  MetricsAggregator agg(Duration::s(60));
  SUBCASE("2 instances × 4 vCPU, 300 busy core-seconds in a minute: 250 % (of at most 400 %)") {
    PeriodGauges g;
    g.instances_in_service = 2;
    g.instance_ns = 2 * 60 * kS;
    g.cpu_busy_core_ns = 300 * kS;
    CHECK(agg.close_period(Time::zero(), g).cpu_utilization == doctest::Approx(250.0));
  }
  SUBCASE("instance_ns 0: instances_in_service × period") {
    PeriodGauges g;
    g.instances_in_service = 2;
    g.cpu_busy_core_ns = 480 * kS;  // both fully busy
    CHECK(agg.close_period(Time::zero(), g).cpu_utilization == doctest::Approx(400.0));
  }
  SUBCASE("a second instance in service for the last 30 s only: 90 instance-seconds") {
    PeriodGauges g;
    g.instances_in_service = 2;
    g.instance_ns = 90 * kS;
    g.cpu_busy_core_ns = 90 * kS;  // one core busy on average
    const MinuteMetrics m = agg.close_period(Time::zero(), g);
    CHECK(m.cpu_utilization == doctest::Approx(100.0));
    CHECK(m.invocations_per_instance == 0);
  }
  SUBCASE("no instance in service: 0, not NaN") {
    const MinuteMetrics m = agg.close_period(Time::zero(), PeriodGauges{});
    CHECK(m.cpu_utilization == 0);
    CHECK(m.memory_utilization == 0);
    CHECK(m.invocations_per_instance == 0);
  }
}

TEST_CASE("periods with no requests, the period of a request answered on a boundary, and misuse") {
  MetricsAggregator agg(Duration::s(60));
  PeriodGauges g;
  g.instances_in_service = 1;

  SUBCASE("empty periods: zero counts, NaN statistics (NULL in the database)") {
    for (int p = 0; p < 3; ++p) {
      const MinuteMetrics m = agg.close_period(at(60.0 * p), g);
      CHECK(m.start == at(60.0 * p));
      CHECK(m.invocations == 0);
      CHECK(m.served == 0);
      CHECK(m.invocations_per_instance == 0);
      CHECK(std::isnan(m.model_latency_avg_us));
      CHECK(std::isnan(m.model_latency_p50_us));
      CHECK(std::isnan(m.model_latency_p99_us));
      CHECK(std::isnan(m.overhead_latency_p90_us));
      CHECK(std::isnan(m.model_cache_hit));
      CHECK(std::isnan(m.model_loading_wait_avg_us));
      CHECK(std::isnan(m.model_downloading_avg_us));
    }
    CHECK(agg.period_start() == at(180));
    CHECK(agg.model_latency_summary().count == 0);
    CHECK(std::isnan(agg.model_latency_summary().p99_us));
  }

  SUBCASE("a request answered exactly at the boundary belongs to the next period, even if reported first") {
    agg.request(served(0, at(59.999999999), 1000, 10));
    agg.request(served(1, at(60.0), 2000, 10));  // the boundary: period 2
    agg.download_done(at(60.0), Duration::s(1));
    const MinuteMetrics m1 = agg.close_period(Time::zero(), g);
    CHECK(m1.invocations == 1);
    CHECK(m1.model_latency_p50_us == 1000);
    CHECK(m1.model_downloads == 0);
    const MinuteMetrics m2 = agg.close_period(at(60), g);
    CHECK(m2.invocations == 1);
    CHECK(m2.model_latency_p99_us == 2000);
    CHECK(m2.model_downloads == 1);
  }

  SUBCASE("a single request: every percentile is its value") {
    agg.request(served(0, at(1), 1234, 56));
    const MinuteMetrics m = agg.close_period(Time::zero(), g);
    CHECK(m.model_latency_p50_us == 1234);
    CHECK(m.model_latency_p90_us == 1234);
    CHECK(m.model_latency_p99_us == 1234);
    CHECK(m.overhead_latency_avg_us == 56);
  }

  SUBCASE("a shorter last period") {
    agg.request(served(0, at(10), 1000, 10));
    const MinuteMetrics m = agg.close_last_period(Time::zero(), at(30), g);
    CHECK(m.end == at(30));
    CHECK(m.invocations_per_instance == 1);  // one in-service instance throughout
  }

  SUBCASE("the last period holds its end instant: answers at a boundary where the run ended") {
    // The run ended at 60 s; a request answered at 60 s belongs to the period that would
    // start there, but there is none: the last period, [0, 60 s], takes it.
    agg.request(served(0, at(30), 1000, 10));
    agg.request(served(1, at(60), 3000, 10));
    agg.unload_done(at(60), Duration::ms(100));
    CHECK_FALSE(agg.open_period_empty());
    const MinuteMetrics m = agg.close_last_period(Time::zero(), at(60), g);
    CHECK(m.end == at(60));
    CHECK(m.invocations == 2);
    CHECK(m.model_latency_avg_us == 2000);  // (1000 + 3000) / 2
    CHECK(m.model_unloads == 1);
    CHECK(agg.open_period_empty());
    CHECK(agg.totals().invocations == 2);
  }

  SUBCASE("a last period of no length, for answers at the boundary the run ended on") {
    agg.close_period(Time::zero(), g);
    CHECK(agg.open_period_empty());
    agg.request(served(0, at(60), 1000, 10));
    CHECK_FALSE(agg.open_period_empty());
    g.instances_in_service = 2;
    const MinuteMetrics m = agg.close_last_period(at(60), at(60), g);
    CHECK(m.start == at(60));
    CHECK(m.end == at(60));
    CHECK(m.invocations == 1);
    CHECK(m.invocations_per_instance == 0.5);  // 1 answer / the 2 instances in service then
    CHECK(m.cpu_utilization == 0);
  }

  SUBCASE("after the last period of a run that ended early: a fact after the end is an error") {
    agg.request(served(0, at(61), 1000, 10));  // in the next period: after an end at 30 s
    CHECK_THROWS_AS(agg.close_last_period(Time::zero(), at(30), g), std::logic_error);
  }

  SUBCASE("the last period may not reach past one period: the ones before are closed first") {
    // The bug of issue 14: a run whose last event came 540 s after its open period began.
    CHECK_THROWS_AS(agg.close_last_period(Time::zero(), at(60.000000001), g), std::logic_error);
    for (int p = 0; p < 9; ++p) agg.close_period(at(60.0 * p), g);
    const MinuteMetrics m = agg.close_last_period(at(540), at(599.983), g);
    CHECK(m.start == at(540));
    CHECK(m.end == at(599.983));
    CHECK(agg.totals().periods == 10);
  }

  SUBCASE("in-flight requests (status 0) are counted apart and never enter a period") {
    RequestDone r;
    r.status = 0;
    r.done = at(1e6);  // not checked
    agg.request(r);
    CHECK(agg.totals().in_flight_at_end == 1);
    CHECK(agg.close_period(Time::zero(), g).invocations == 0);
  }

  SUBCASE("misuse throws") {
    CHECK_THROWS_AS(agg.request(served(0, at(120), 1, 1)), std::logic_error);  // two periods ahead
    CHECK_THROWS_AS(agg.close_period(at(60), g), std::logic_error);          // not the open period
    agg.close_period(Time::zero(), g);
    CHECK_THROWS_AS(agg.request(served(0, at(59), 1, 1)), std::logic_error);  // period closed
    CHECK_THROWS_AS(agg.load_done(at(30), Duration::s(1)), std::logic_error);
    CHECK_THROWS_AS(MetricsAggregator(Duration::ns(0)), std::invalid_argument);
  }
}

TEST_CASE("per-period percentiles equal the sort-based type-7 quantiles on random periods") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    MetricsAggregator agg(Duration::s(60));
    const int n = 1 + static_cast<int>(rng() % (trial < 100 ? 12 : 3000));
    std::vector<std::int64_t> model_ns, overhead_ns;
    for (int i = 0; i < n; ++i) {
      // Few distinct values in some trials, to exercise ties.
      const std::int64_t ml = static_cast<std::int64_t>(rng() % (trial % 2 == 0 ? 5 : 1'000'000)) * kUs;
      const std::int64_t ol = static_cast<std::int64_t>(rng() % 1000) * kUs;
      RequestDone r = served(static_cast<std::uint64_t>(i), at(30), 0, 0);
      r.model_latency_ns = ml;
      r.overhead_ns = ol;
      agg.request(r);
      model_ns.push_back(ml);
      overhead_ns.push_back(ol);
    }
    const MinuteMetrics m = agg.close_period(Time::zero(), PeriodGauges{});
    CAPTURE(trial);
    CAPTURE(n);
    CHECK(m.model_latency_p50_us == doctest::Approx(sorted_quantile(model_ns, 0.50) / 1e3).epsilon(1e-12));
    CHECK(m.model_latency_p90_us == doctest::Approx(sorted_quantile(model_ns, 0.90) / 1e3).epsilon(1e-12));
    CHECK(m.model_latency_p99_us == doctest::Approx(sorted_quantile(model_ns, 0.99) / 1e3).epsilon(1e-12));
    CHECK(m.overhead_latency_p50_us == doctest::Approx(sorted_quantile(overhead_ns, 0.50) / 1e3).epsilon(1e-12));
    CHECK(m.overhead_latency_p90_us == doctest::Approx(sorted_quantile(overhead_ns, 0.90) / 1e3).epsilon(1e-12));
    CHECK(m.overhead_latency_p99_us == doctest::Approx(sorted_quantile(overhead_ns, 0.99) / 1e3).epsilon(1e-12));
  }
  std::vector<std::int64_t> v = {40, 10, 30, 20};
  CHECK(quantile_type7(v, 0.5) == 25);  // h = 1.5: 20 + 0.5 · 10
  std::vector<std::int64_t> none;
  CHECK(std::isnan(quantile_type7(none, 0.5)));
}

TEST_CASE("type-7 quantiles of large vectors (counted, not selected) equal the sort-based ones exactly") {
  // From 4096 values on, the quantiles are found by counting values in buckets of [min, max]
  // (serving_metrics.cpp): the same order statistics, so the very same doubles.
  const auto reference = [](std::vector<std::int64_t> v, double q) {
    std::sort(v.begin(), v.end());
    const double h = (static_cast<double>(v.size()) - 1) * q;
    const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), v.size() - 1);
    const auto hi = std::min(lo + 1, v.size() - 1);
    const double x_lo = static_cast<double>(v[lo]), x_hi = static_cast<double>(v[hi]);
    return x_lo + (h - static_cast<double>(lo)) * (x_hi - x_lo);
  };
  std::mt19937_64 rng(11);
  int mismatches = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 4096 + rng() % 20'000;
    std::vector<std::int64_t> v(n);
    for (auto& x : v) {
      switch (trial % 6) {
        case 0: x = static_cast<std::int64_t>(rng() % 30'000'000); break;            // latencies, ns
        case 1: x = static_cast<std::int64_t>(rng() % 7); break;                     // many ties
        case 2: x = 42; break;                                                       // all equal
        case 3: x = static_cast<std::int64_t>(rng()); break;                         // full int64 range
        case 4: x = static_cast<std::int64_t>(rng() % 1000) - 500; break;            // negatives
        default: x = (rng() % 100 == 0) ? static_cast<std::int64_t>(rng() >> 2) : static_cast<std::int64_t>(rng() % 1000);  // outliers
      }
    }
    for (const double q : {0.0, 0.001, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      std::vector<std::int64_t> w = v;
      if (quantile_type7(w, q) != reference(v, q)) ++mismatches;
    }
  }
  CHECK(mismatches == 0);

  // Through a period's p50 / p90 / p99 (three levels from one count).
  MetricsAggregator agg(Duration::s(60));
  std::vector<std::int64_t> model_ns;
  for (int i = 0; i < 50'000; ++i) {
    RequestDone r = served(static_cast<std::uint64_t>(i), at(30), 0, 0);
    r.model_latency_ns = static_cast<std::int64_t>(rng() % 5'000'000);
    agg.request(r);
    model_ns.push_back(r.model_latency_ns);
  }
  const MinuteMetrics m = agg.close_period(Time::zero(), PeriodGauges{});
  CHECK(m.model_latency_p50_us == reference(model_ns, 0.50) / 1e3);
  CHECK(m.model_latency_p90_us == reference(model_ns, 0.90) / 1e3);
  CHECK(m.model_latency_p99_us == reference(model_ns, 0.99) / 1e3);
}

TEST_CASE("histogram quantiles of 100k lognormal latencies are within the stated relative error") {
  LatencyHistogram h;
  // sqrt(1.01) − 1 = 0.004987...: the bound for bins of ratio 1.01.
  CHECK(h.relative_error_bound() == doctest::Approx(std::sqrt(1.01) - 1).epsilon(1e-9));
  CHECK(h.relative_error_bound() < 0.005);
  CHECK(std::isnan(h.quantile(0.5)));

  std::mt19937_64 rng(2024);
  std::lognormal_distribution<double> lognormal(std::log(50e6), 1.0);  // median 50 ms, in ns
  std::vector<std::int64_t> values;
  values.reserve(100'000);
  for (int i = 0; i < 100'000; ++i) {
    const auto ns = static_cast<std::int64_t>(std::llround(lognormal(rng)));
    values.push_back(ns);
    h.add(ns);
  }
  CHECK(h.count() == 100'000);
  const double bound = h.relative_error_bound();
  for (double q : {0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0}) {
    const double exact = sorted_quantile(values, q);
    const double est = h.quantile(q);
    CAPTURE(q);
    CAPTURE(exact);
    CAPTURE(est);
    CHECK(std::fabs(est - exact) <= bound * exact * (1 + 1e-9));
  }

  SUBCASE("every value lands in its bin: one value's quantile is within the bound, 1 ns to 10^15 ns") {
    std::vector<double> xs;
    for (int x = 1; x <= 3000; ++x) xs.push_back(x);
    for (double x = 3000; x < 1e15; x *= 1.0037) xs.push_back(std::floor(x));
    for (double x : xs) {
      LatencyHistogram one;
      one.add(static_cast<std::int64_t>(x));
      const double est = one.quantile(0.5);
      if (!(std::fabs(est - x) <= bound * x * (1 + 1e-9))) {
        CAPTURE(x);
        CAPTURE(est);
        FAIL_CHECK("outside the bound");
      }
    }
  }

  SUBCASE("zeros are exact; a quantile between a zero and a positive value interpolates") {
    LatencyHistogram z;
    z.add(0);
    z.add(0);
    z.add(1000);
    CHECK(z.quantile(0.0) == 0);
    CHECK(z.quantile(0.5) == 0);
    CHECK(std::fabs(z.quantile(1.0) - 1000) <= z.relative_error_bound() * 1000 * (1 + 1e-9));
  }
}

TEST_CASE("whole-run summaries cover every period; end-to-end latency is done − arrival") {
  MetricsAggregator agg(Duration::s(60));
  for (int p = 0; p < 5; ++p) {
    for (int i = 0; i < 100; ++i) {
      RequestDone r = served(static_cast<std::uint64_t>(p * 100 + i), at(60.0 * p + 0.5 * i), 1000 * (i + 1), 100);
      r.arrival = r.done - Duration::ms(i + 1) - Duration::ms(50);  // 50 ms more than model + overhead: waits
      agg.request(r);
    }
    agg.close_period(at(60.0 * p), PeriodGauges{});
  }
  const LatencySummary m = agg.model_latency_summary();
  CHECK(m.count == 500);
  CHECK(m.mean_us == doctest::Approx(50500));
  CHECK(m.min_us == 1000);
  CHECK(m.max_us == 100000);
  // Exact type-7 p50 of 1..100 ms each five times: h = 249.5 → 50.5 ms.
  CHECK(std::fabs(m.p50_us - 50500) <= agg.model_latency().relative_error_bound() * 50500 * (1 + 1e-9));
  const LatencySummary e = agg.end_to_end_latency_summary();
  CHECK(e.count == 500);
  CHECK(e.mean_us == doctest::Approx(100500));
  CHECK(e.min_us == 51000);
  const LatencySummary o = agg.overhead_latency_summary();
  CHECK(o.min_us == 100);
  CHECK(o.max_us == 100);
  CHECK(std::fabs(o.p99_us - 100) <= 100 * agg.overhead_latency().relative_error_bound() * (1 + 1e-9));
}
