// mltwin/models/serving_metrics.hpp — CloudWatch-style endpoint metrics of an inference run.
//
// MetricsAggregator turns the stream of finished requests and model download / load / unload
// durations into one MinuteMetrics per period (one minute by default), as CloudWatch reports a
// SageMaker multi-model endpoint, and keeps whole-run latency distributions in log-binned
// histograms (Boost.Histogram) whose quantiles carry a stated relative error bound.
//
// Which period a fact belongs to: a request to the period that contains its `done` time (the
// instant it was answered), a download / load / unload to the period that contains its end.
// Periods are half-open, [start, start + period): a request answered exactly at a boundary
// belongs to the period that starts there. The last period of a run ends with the run and
// holds everything up to and including its end instant: [start, end].
//
// Memory: the period's ModelLatency and OverheadLatency values (16 bytes a served request, for
// the exact percentiles), at most two periods of them (the open one and, if the model reports a
// request answered at or after the boundary before closing the period, the next), plus fixed-size
// histograms and one counter triple per model. Nothing grows with the length of the run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/serving_recorder.hpp"

namespace mltwin::models::inference {

using core::Duration;

/// Gauges of the endpoint that only the model knows, handed over when a period closes. All are
/// cheap running figures: two integrals the model keeps as it goes, and snapshots at the end.
struct PeriodGauges {
  /// CPU core-time the instances were busy during the period, summed over cores and in-service
  /// instances, ns (a fully busy 4-vCPU instance adds 4 × period).
  std::int64_t cpu_busy_core_ns = 0;
  /// In-service instance-time during the period, ns: the integral of the number of in-service
  /// instances (a fixed fleet of N: N × period). 0 = take instances_in_service × period.
  std::int64_t instance_ns = 0;
  int instances_in_service = 0;        ///< at the period's end
  int workers = 0;                     ///< running workers at the period's end, all instances
  std::uint64_t loaded_models = 0;     ///< LoadedModelCount at the end, summed over instances
  std::uint64_t memory_used_bytes = 0;   ///< at the end, summed over in-service instances
  std::uint64_t memory_total_bytes = 0;  ///< their memory, summed (0: MemoryUtilization 0)
};

/// A whole-run latency distribution: count, mean, min and max exact (Boost.Accumulators), the
/// percentiles from the log-binned histogram, within LatencyHistogram::relative_error_bound().
struct LatencySummary {
  std::uint64_t count = 0;
  double mean_us = 0, min_us = 0, max_us = 0;
  double p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0;
};

/// A log-binned histogram of non-negative durations (integer ns): a Boost.Histogram with dense
/// 64-bit counters over bins [r^i, r^(i+1)) ns, r = kBinRatio, i = 0 .. 3471 (1 ns to 1.03·10^15
/// ns, 11.9 days), an underflow bin that holds exactly the zeros, and an overflow bin. The axis
/// bins as Boost's regular axis with a log transform would, by table lookup instead of a
/// std::log per value. Fixed size (~28 KiB), whatever the number of values; ~8 ns an add.
class LatencyHistogram {
 public:
  /// Ratio of a bin's upper to its lower edge.
  static constexpr double kBinRatio = 1.01;

  LatencyHistogram();
  ~LatencyHistogram();
  LatencyHistogram(LatencyHistogram&&) noexcept;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept;
  LatencyHistogram(const LatencyHistogram&) = delete;
  LatencyHistogram& operator=(const LatencyHistogram&) = delete;

  /// Adds one value; negative values count as 0.
  void add(std::int64_t ns);
  /// Adds each value, as add() one by one would (in a loop whose lookups overlap).
  void add_all(std::span<const std::int64_t> ns);
  std::uint64_t count() const noexcept;

  /// Estimate of the type-7 quantile (numpy's default: linear interpolation between the order
  /// statistics x[floor(h)] and x[floor(h) + 1], h = (n − 1)·q) of the values added, in ns.
  /// Each of the two order statistics is replaced by the geometric centre of its bin, which is
  /// within a factor sqrt(r) of it, and so is their interpolation: the result E of the exact
  /// quantile Q satisfies Q / sqrt(r) ≤ E ≤ Q · sqrt(r), i.e. |E − Q| ≤ relative_error_bound() · Q.
  /// Zeros are exact. Not bounded if the quantile reaches the overflow bin (a value above
  /// 1.03·10^15 ns): the bin's lower edge is returned. NaN when empty; q is clamped to [0, 1].
  double quantile(double q) const;

  /// sqrt(r) − 1 for the axis's actual bin ratio r: 0.4988 % for r = 1.01.
  double relative_error_bound() const noexcept;
  /// Number of regular bins (without underflow and overflow).
  int bins() const noexcept;

 private:
  struct Impl;  // keeps Boost.Histogram out of this header
  std::unique_ptr<Impl> impl_;
};

/// Counters of one model over the whole run.
struct ModelCounters {
  std::uint64_t invocations = 0;  ///< answered requests (any status but 0)
  std::uint64_t cache_hits = 0;   ///< of which ModelCacheHit = 1
  std::uint64_t status_503 = 0;
  std::uint64_t status_507 = 0;
};

/// Whole-run totals.
struct RunTotals {
  std::uint64_t invocations = 0;   ///< answered requests (status ≠ 0)
  std::uint64_t served = 0;        ///< status 2xx
  std::uint64_t status_4xx = 0, status_5xx = 0;   ///< 4xx: the model's own (not 424, 429)
  std::uint64_t status_503 = 0, status_507 = 0;
  std::uint64_t status_424 = 0;    ///< ModelError: the invocation timed out (InvocationModelErrors)
  std::uint64_t status_429 = 0;    ///< ModelNotReadyException: the model was still loading
  std::uint64_t in_flight_at_end = 0;  ///< reported with status 0: unserved at the end of the run
  std::uint64_t cache_hits = 0;
  std::uint64_t downloads = 0, loads = 0, unloads = 0;
  std::uint64_t periods = 0;
};

/// Computes per-period CloudWatch metrics and whole-run distributions from the request stream.
///
/// Feed it in non-decreasing time order: request() at each request's `done` time, the
/// *_done() calls at the end of the operation, and close_period() once per period, in order,
/// at (or after every fact of) the period's end — every period, including those in which
/// nothing happened, up to the end of the run — then close_last_period() at the end of the run.
/// A fact that belongs to a period already closed, or to one after the next, throws
/// std::logic_error (the model skipped a close_period()).
///
/// What each MinuteMetrics field is, for period [start, end):
/// - invocations: requests answered in the period, any status (2xx, 4xx, 5xx); status 0 (in
///   flight at the end of the run) is never counted. invocation_4xx / invocation_5xx: of which
///   4xx / 5xx (503 queue full, 507 no memory for the model).
/// - invocations_per_instance: invocations ÷ the mean number of in-service instances over the
///   period (instance_ns ÷ (end − start); for a last period of no length, instances_in_service);
///   0 with no instance in service.
/// - model_latency_*, overhead_latency_*: over the period's 2xx requests, µs; avg and the
///   exact type-7 p50 / p90 / p99 of the period's values. NaN (NULL in the database) when the
///   period served none.
/// - model_cache_hit: mean of cache_hit (0/1) over the invocations; NaN without invocations,
///   and NaN in every period when ModelCacheHit is not published (publish_model_cache_hit(false):
///   a SingleModel endpoint, for which CloudWatch publishes no ModelCacheHit — SageMaker
///   Developer Guide, "CloudWatch metrics for multi-model endpoint deployments").
/// - model_loading_wait_avg_us: mean loading_wait_ns over the invocations that waited (> 0).
/// - model_downloading/loading/unloading_avg_us: mean duration of the operations that ended in
///   the period. NaN when there were none.
/// - cpu_utilization: 100 × cpu_busy_core_ns ÷ instance_ns: percent summed over the cores of an
///   instance (a busy 72-vCPU instance reads 7200), averaged over the in-service instance-time,
///   as CloudWatch reports CPUUtilization of an endpoint variant. 0 without instances.
/// - memory_utilization: 100 × memory_used_bytes ÷ memory_total_bytes at the end (all
///   instances of an endpoint are of one type, so this is the mean over instances).
/// - loaded_model_count, instances_in_service, workers: the gauges at the end.
class MetricsAggregator {
 public:
  /// `period`: length of a period (> 0); `first_start`: start of the first period. Each closed
  /// period is also handed to `forward->minute()` when `forward` is set (it must outlive this).
  explicit MetricsAggregator(Duration period, Time first_start = Time::zero(),
                             ServingRecorder* forward = nullptr);
  ~MetricsAggregator();
  MetricsAggregator(const MetricsAggregator&) = delete;
  MetricsAggregator& operator=(const MetricsAggregator&) = delete;

  /// A request's fate, at its `done` time (status 0, in flight at the end: counted only in
  /// RunTotals::in_flight_at_end, its time is not checked).
  void request(const RequestDone& r);
  /// A model download / load / unload on an instance ended at `end` after `took`.
  void download_done(Time end, Duration took);
  void load_done(Time end, Duration took);
  void unload_done(Time end, Duration took);
  /// Whether the periods carry ModelCacheHit (default true). A SingleModel endpoint turns it
  /// off (Endpoint's constructor): CloudWatch publishes ModelCacheHit for multi-model endpoints
  /// only, so every period's model_cache_hit is then NaN (NULL in the database).
  void publish_model_cache_hit(bool publish) noexcept;
  bool model_cache_hit_published() const noexcept;

  /// Closes the period [start, start + period) and returns its metrics (also forwarded).
  /// `start` must be the open period's start (std::logic_error otherwise).
  MinuteMetrics close_period(Time start, const PeriodGauges& g);
  /// Closes the run's last period [start, end], the run having ended at `end`, and returns its
  /// metrics (also forwarded). start ≤ end ≤ start + period: a run that ended later closes the
  /// periods before with close_period() first. When end = start + period, facts reported at
  /// `end` itself (which belong to the next period) are counted in this one; end = start (no
  /// length) is allowed for a run that ended at a boundary with facts at that instant (see
  /// open_period_empty()). Throws std::logic_error when `start` is not the open period's start,
  /// when `end` is out of that range, or when a fact after `end` was reported. The aggregator
  /// then has an open period starting at start + period, as after close_period().
  MinuteMetrics close_last_period(Time start, Time end, const PeriodGauges& g);
  /// True when no fact (answer, download, load, unload) has been reported for the open period
  /// or the one after it.
  bool open_period_empty() const noexcept;

  /// Start of the period open now.
  Time period_start() const noexcept;
  Duration period() const noexcept;

  /// Whole-run distributions over 2xx requests: ModelLatency, OverheadLatency, and end-to-end
  /// latency (done − arrival).
  const LatencyHistogram& model_latency() const noexcept;
  const LatencyHistogram& overhead_latency() const noexcept;
  const LatencyHistogram& end_to_end_latency() const noexcept;
  LatencySummary model_latency_summary() const;
  LatencySummary overhead_latency_summary() const;
  LatencySummary end_to_end_latency_summary() const;

  const RunTotals& totals() const noexcept;
  /// Per-model counters, indexed by model id (sized to the largest id seen + 1).
  const std::vector<ModelCounters>& per_model() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The type-7 quantile of `v` (0 ≤ q ≤ 1) by selection (std::nth_element), O(n); reorders `v`.
/// NaN when `v` is empty. Same definition as io::quantile and numpy's default.
double quantile_type7(std::vector<std::int64_t>& v, double q);

}  // namespace mltwin::models::inference
