// serving_metrics.cpp — MetricsAggregator, LatencyHistogram, quantile_type7.
#include "mltwin/models/serving_metrics.hpp"

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/count.hpp>
#include <boost/accumulators/statistics/max.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/min.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/histogram.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace mltwin::models::inference {
namespace {

namespace bh = boost::histogram;
namespace acc = boost::accumulators;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Bins of ratio 1.01 from 1 ns: 3472 of them reach 1.01^3472 ≈ 1.03·10^15 ns (11.9 days).
constexpr int kBins = 3472;

/// A Boost.Histogram axis (the library's axis concept: index(), size(), options()) of log bins
/// [e_i, e_{i+1}), e_i = r^i ns, i = 0 .. kBins − 1, with an underflow bin (values below 1 ns,
/// i.e. zeros) and an overflow bin. Its bins are those of a regular axis with a log transform
/// (up to rounding at the edges), found without a std::log per value (which was half the cost
/// of a request): the double's
/// exponent and 8 leading mantissa bits pick a slice of ratio ≤ 2^(1/256) < r, which holds at
/// most one edge, so a table gives the bin of the slice's start and one comparison with the
/// exact edge finishes the job.
class LogBinAxis {
 public:
  static constexpr unsigned options() noexcept { return bh::axis::option::underflow | bh::axis::option::overflow; }

  LogBinAxis() : tables_(&Tables::get()) {}

  bh::axis::index_type size() const noexcept { return kBins; }

  bh::axis::index_type index(double x) const noexcept {
    if (!(x >= 1.0)) return -1;
    const auto& t = *tables_;
    if (x >= t.edges[kBins]) return kBins;
    const std::size_t slice = slice_of(x);
    const int i = t.first_bin[slice];
    // Without a branch: whether x passed the slice's edge is as good as a coin toss.
    return i + static_cast<int>(x >= t.edges[static_cast<std::size_t>(i) + 1]);
  }

  /// Lower edge of bin i (0 ≤ i ≤ kBins; kBins: the overflow bin's lower edge), ns.
  double edge(int i) const noexcept { return tables_->edges[static_cast<std::size_t>(i)]; }

  bool operator==(const LogBinAxis&) const noexcept { return true; }
  bool operator!=(const LogBinAxis&) const noexcept { return false; }

 private:
  static constexpr int kSliceBits = 8;
  // Slices from 2^0 to 2^50 (> e_kBins): 50 octaves of 2^kSliceBits slices.
  static constexpr std::size_t kSlices = std::size_t{50} << kSliceBits;

  /// Slice of x in [1, 2^50): exponent and leading mantissa bits of the IEEE double.
  static std::size_t slice_of(double x) noexcept {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return static_cast<std::size_t>((bits >> (52 - kSliceBits)) - (std::uint64_t{1023} << kSliceBits));
  }

  struct Tables {
    std::vector<double> edges;          // kBins + 1 edges, ns
    std::vector<std::int16_t> first_bin;  // per slice: the bin of its lowest value
    static const Tables& get() {
      static const Tables t;  // built once, shared by every histogram
      return t;
    }
    Tables() : edges(kBins + 1), first_bin(kSlices) {
      const double log_r = std::log(LatencyHistogram::kBinRatio);
      for (int i = 0; i <= kBins; ++i) edges[static_cast<std::size_t>(i)] = std::exp(i * log_r);
      edges[0] = 1.0;
      int bin = 0;
      for (std::size_t s = 0; s < kSlices; ++s) {
        // The slice's lowest value: 2^octave · (1 + k / 2^kSliceBits).
        const int octave = static_cast<int>(s >> kSliceBits);
        const double k = static_cast<double>(s & ((std::size_t{1} << kSliceBits) - 1));
        const double low = std::ldexp(1.0 + k / (1 << kSliceBits), octave);
        while (bin < kBins && low >= edges[static_cast<std::size_t>(bin) + 1]) ++bin;
        first_bin[s] = static_cast<std::int16_t>(bin);
      }
    }
  };
  const Tables* tables_;
};

using Hist = bh::histogram<std::tuple<LogBinAxis>, bh::dense_storage<std::uint64_t>>;

using Stats = acc::accumulator_set<double, acc::stats<acc::tag::count, acc::tag::mean, acc::tag::min, acc::tag::max>>;

/// Type-7 quantiles of `v` for the levels qs, which must be in ascending order; each selection
/// works on the part of `v` above the previous one's pivot, so p50, p90, p99 cost about
/// n + n/2 + n/10 element visits. Reorders `v`.
///
/// Invariant: [begin, n) holds the order statistics begin .. n−1 (in some order).
template <std::size_t N>
std::array<double, N> quantiles_by_selection(std::vector<std::int64_t>& v, const std::array<double, N>& qs) {
  std::array<double, N> out{};
  const std::size_t n = v.size();
  if (n == 0) {
    out.fill(kNaN);
    return out;
  }
  const auto at = [&v](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  std::size_t begin = 0;
  std::size_t prev_lo = n;  // none yet
  double x_lo = 0, x_hi = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const double q = std::clamp(qs[i], 0.0, 1.0);
    const double h = (static_cast<double>(n) - 1) * q;
    const std::size_t lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
    if (lo != prev_lo) {  // else: the previous level's two order statistics again
      std::nth_element(at(begin), at(lo), v.end());
      x_lo = static_cast<double>(v[lo]);
      // Order statistic lo + 1 is the least of those above lo (the maximum has none above).
      x_hi = lo + 1 < n ? static_cast<double>(*std::min_element(at(lo + 1), v.end())) : x_lo;
      begin = lo + 1;
      prev_lo = lo;
    }
    out[i] = x_lo + (h - static_cast<double>(lo)) * (x_hi - x_lo);
  }
  return out;
}

/// Below this many values quantiles_asc selects (quantiles_by_selection); from it on it counts.
constexpr std::size_t kCountingMin = 4096;
/// quantiles_asc's buckets: 2^12 counters (16 KiB, in L1), each ~n/4096 values on average.
constexpr int kBucketBits = 12;
constexpr std::size_t kBuckets = std::size_t{1} << kBucketBits;

/// The same type-7 quantiles as quantiles_by_selection — the same order statistics, so the same
/// doubles — found by counting instead of selecting, which costs three branch-free passes over
/// `v` (min and max; a count per bucket of values, the buckets being equal slices of
/// [min, max]; picking the values of the few buckets that hold a wanted order statistic) and
/// a sort of those few values; selection's partitioning branches on every comparison of
/// random values and visits ~1.6 n of them. A per-minute ModelLatency p50/p90/p99 of ~90,000
/// values was 4 % of a DJL blog run. Leaves `v` in its order. Not reentrant per thread (its
/// scratch is thread_local).
template <std::size_t N>
std::array<double, N> quantiles_asc(std::vector<std::int64_t>& v, const std::array<double, N>& qs) {
  const std::size_t n = v.size();
  if (n < kCountingMin) return quantiles_by_selection(v, qs);
  // The order statistics wanted: lo and lo + 1 of each level (lo + 1 capped at n − 1, where
  // selection takes x_lo again).
  std::array<double, N> hs{};
  std::array<std::size_t, 2 * N> ks{};
  for (std::size_t i = 0; i < N; ++i) {
    const double q = std::clamp(qs[i], 0.0, 1.0);
    hs[i] = (static_cast<double>(n) - 1) * q;
    const std::size_t lo = std::min(static_cast<std::size_t>(std::floor(hs[i])), n - 1);
    ks[2 * i] = lo;
    ks[2 * i + 1] = std::min(lo + 1, n - 1);
  }
  const auto [min_it, max_it] = std::minmax_element(v.begin(), v.end());
  const auto lowest = static_cast<std::uint64_t>(*min_it);
  const std::uint64_t range = static_cast<std::uint64_t>(*max_it) - lowest;
  const int shift = std::max(0, static_cast<int>(std::bit_width(range)) - kBucketBits);
  const auto bucket_of = [lowest, shift](std::int64_t x) {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(x) - lowest) >> shift);
  };

  struct Scratch {
    std::vector<std::uint32_t> below;  // per bucket: values in the buckets before it; [kBuckets] = n
    std::vector<std::uint8_t> wanted;
    std::vector<std::int64_t> picked;
  };
  thread_local Scratch sc;
  sc.below.assign(kBuckets + 1, 0);
  for (const std::int64_t x : v) ++sc.below[bucket_of(x) + 1];
  for (std::size_t b = 1; b <= kBuckets; ++b) sc.below[b] += sc.below[b - 1];
  // The bucket of order statistic k: the last whose `below` is ≤ k.
  std::array<std::size_t, 2 * N> bk{};
  sc.wanted.assign(kBuckets, 0);
  for (std::size_t j = 0; j < 2 * N; ++j) {
    bk[j] = static_cast<std::size_t>(std::upper_bound(sc.below.begin(), sc.below.end(), ks[j]) - sc.below.begin()) - 1;
    sc.wanted[bk[j]] = 1;
  }
  sc.picked.clear();
  for (const std::int64_t x : v)
    if (sc.wanted[bucket_of(x)]) sc.picked.push_back(x);
  std::sort(sc.picked.begin(), sc.picked.end());
  // Order statistic k is picked[(values of the wanted buckets before its bucket) + k − below].
  std::array<std::size_t, 2 * N> distinct = bk;
  std::sort(distinct.begin(), distinct.end());
  const auto order_stat = [&](std::size_t j) {
    std::size_t before = 0;
    for (std::size_t d = 0; d < 2 * N && distinct[d] < bk[j]; ++d)
      if (d == 0 || distinct[d] != distinct[d - 1]) before += sc.below[distinct[d] + 1] - sc.below[distinct[d]];
    return static_cast<double>(sc.picked[before + ks[j] - sc.below[bk[j]]]);
  };
  std::array<double, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    const double x_lo = order_stat(2 * i), x_hi = order_stat(2 * i + 1);
    out[i] = x_lo + (hs[i] - static_cast<double>(ks[2 * i])) * (x_hi - x_lo);
  }
  return out;
}

double mean_or_nan(double sum, std::uint64_t n) { return n == 0 ? kNaN : sum / static_cast<double>(n); }

/// The facts of one period.
struct Bucket {
  std::vector<std::int64_t> model_ns, overhead_ns;  // 2xx requests
  double model_sum_ns = 0, overhead_sum_ns = 0;
  std::uint64_t invocations = 0, c4xx = 0, c5xx = 0, hits = 0;
  std::uint64_t model_errors = 0;  // 424: the container's answer timed out (InvocationModelErrors)
  std::uint64_t waits = 0;
  double wait_sum_ns = 0;
  std::uint64_t downloads = 0, loads = 0, unloads = 0;
  double download_sum_ns = 0, load_sum_ns = 0, unload_sum_ns = 0;

  bool empty() const noexcept { return invocations == 0 && downloads == 0 && loads == 0 && unloads == 0; }

  /// Adds the facts of `o` (the last period takes those reported at its end instant).
  void absorb(const Bucket& o) {
    model_ns.insert(model_ns.end(), o.model_ns.begin(), o.model_ns.end());
    overhead_ns.insert(overhead_ns.end(), o.overhead_ns.begin(), o.overhead_ns.end());
    model_sum_ns += o.model_sum_ns;
    overhead_sum_ns += o.overhead_sum_ns;
    invocations += o.invocations;
    c4xx += o.c4xx;
    c5xx += o.c5xx;
    model_errors += o.model_errors;
    hits += o.hits;
    waits += o.waits;
    wait_sum_ns += o.wait_sum_ns;
    downloads += o.downloads;
    loads += o.loads;
    unloads += o.unloads;
    download_sum_ns += o.download_sum_ns;
    load_sum_ns += o.load_sum_ns;
    unload_sum_ns += o.unload_sum_ns;
  }

  void clear() {
    model_ns.clear();  // keeps the capacity: no allocation in steady state
    overhead_ns.clear();
    model_sum_ns = overhead_sum_ns = 0;
    invocations = c4xx = c5xx = hits = waits = model_errors = 0;
    wait_sum_ns = 0;
    downloads = loads = unloads = 0;
    download_sum_ns = load_sum_ns = unload_sum_ns = 0;
  }
};

LatencySummary summarize(const LatencyHistogram& h, const Stats& s) {
  LatencySummary out;
  out.count = acc::count(s);
  if (out.count == 0) {
    out.mean_us = out.min_us = out.max_us = kNaN;
    out.p50_us = out.p90_us = out.p99_us = out.p999_us = kNaN;
    return out;
  }
  out.mean_us = acc::mean(s) / 1e3;
  out.min_us = acc::min(s) / 1e3;
  out.max_us = acc::max(s) / 1e3;
  out.p50_us = h.quantile(0.50) / 1e3;
  out.p90_us = h.quantile(0.90) / 1e3;
  out.p99_us = h.quantile(0.99) / 1e3;
  out.p999_us = h.quantile(0.999) / 1e3;
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// quantile_type7

double quantile_type7(std::vector<std::int64_t>& v, double q) {
  return quantiles_asc<1>(v, {q})[0];
}

// ---------------------------------------------------------------------------------------
// LatencyHistogram

struct LatencyHistogram::Impl {
  Hist h = bh::make_histogram_with(bh::dense_storage<std::uint64_t>(), LogBinAxis());
  std::uint64_t n = 0;
};

LatencyHistogram::LatencyHistogram() : impl_(std::make_unique<Impl>()) {}
LatencyHistogram::~LatencyHistogram() = default;
LatencyHistogram::LatencyHistogram(LatencyHistogram&&) noexcept = default;
LatencyHistogram& LatencyHistogram::operator=(LatencyHistogram&&) noexcept = default;

void LatencyHistogram::add(std::int64_t ns) {
  // 0 (and anything negative) is below the first edge, 1 ns: the underflow bin, which then
  // holds exactly the zeros.
  impl_->h(static_cast<double>(std::max<std::int64_t>(ns, 0)));
  ++impl_->n;
}

void LatencyHistogram::add_all(std::span<const std::int64_t> ns) {
  // The bin from the axis and a count added to it: what the histogram's fill does, without
  // its general machinery (the axis's index is always a valid bin, -1 .. kBins).
  Hist& h = impl_->h;
  const LogBinAxis& ax = h.axis();
  for (const std::int64_t x : ns) ++h.at(ax.index(static_cast<double>(std::max<std::int64_t>(x, 0))));
  impl_->n += ns.size();
}

std::uint64_t LatencyHistogram::count() const noexcept { return impl_->n; }

int LatencyHistogram::bins() const noexcept { return impl_->h.axis().size(); }

double LatencyHistogram::relative_error_bound() const noexcept {
  // The widest bin's: the edges are r^i rounded to doubles, so the ratios differ from r in the
  // last bits.
  static const double bound = [] {
    const LogBinAxis ax;
    double widest = 1;
    for (int i = 0; i < kBins; ++i) widest = std::max(widest, ax.edge(i + 1) / ax.edge(i));
    return std::sqrt(widest) - 1;
  }();
  return bound;
}

double LatencyHistogram::quantile(double q) const {
  const std::uint64_t n = impl_->n;
  if (n == 0) return kNaN;
  q = std::clamp(q, 0.0, 1.0);
  const double h = (static_cast<double>(n) - 1) * q;
  const auto lo = std::min(static_cast<std::uint64_t>(std::floor(h)), n - 1);
  const auto hi = std::min(lo + 1, n - 1);

  const Hist& hist = impl_->h;
  const LogBinAxis& ax = hist.axis();
  const int size = ax.size();
  // The estimate of the order statistic in bin i: 0 for the underflow bin (only zeros go
  // there), the geometric centre of a regular bin, the lower edge of the overflow bin.
  auto estimate = [&](int i) {
    if (i < 0) return 0.0;
    if (i >= size) return ax.edge(size);
    return std::sqrt(ax.edge(i) * ax.edge(i + 1));
  };
  double x_lo = kNaN, x_hi = kNaN;
  std::uint64_t below = 0;  // values in the bins before i
  for (int i = -1; i <= size; ++i) {
    const std::uint64_t c = hist.at(i);
    if (c == 0) continue;
    below += c;
    if (std::isnan(x_lo) && lo < below) x_lo = estimate(i);
    if (hi < below) {
      x_hi = estimate(i);
      break;
    }
  }
  return x_lo + (h - static_cast<double>(lo)) * (x_hi - x_lo);
}

// ---------------------------------------------------------------------------------------
// MetricsAggregator

struct MetricsAggregator::Impl {
  Duration period;
  ServingRecorder* forward = nullptr;
  bool publish_cache_hit = true;  // false: a SingleModel endpoint (no ModelCacheHit)
  Time start;       // of the open period
  Bucket cur, next;  // the open period; facts already reported for the one after it
  LatencyHistogram model_h, overhead_h, e2e_h;
  Stats model_s, overhead_s, e2e_s;
  // The 2xx latencies not yet in the histograms and stats above, in the order they came: added
  // kPendingMax at a time, and by every accessor that reads them (so, though it changes them,
  // flush() leaves what any reader sees as it was). A request then costs three appends; the
  // batch's loop overlaps the dependent table lookups of successive values, which one add()
  // per request, among the rest of a request's work, could not.
  static constexpr std::size_t kPendingMax = 1024;
  std::vector<std::int64_t> pend_model, pend_overhead, pend_e2e;
  void flush() {
    model_h.add_all(pend_model);
    overhead_h.add_all(pend_overhead);
    e2e_h.add_all(pend_e2e);
    for (const std::int64_t x : pend_model) model_s(static_cast<double>(x));
    for (const std::int64_t x : pend_overhead) overhead_s(static_cast<double>(x));
    for (const std::int64_t x : pend_e2e) e2e_s(static_cast<double>(x));
    pend_model.clear();
    pend_overhead.clear();
    pend_e2e.clear();
  }
  RunTotals totals;
  std::vector<ModelCounters> per_model;

  void check_start(Time s) const {
    if (s != start)
      throw std::logic_error("MetricsAggregator: closing the period starting at " + std::to_string(s.ns()) +
                             " ns, but the open period starts at " + std::to_string(start.ns()) + " ns");
  }
  /// Closes the open period as [start, end): its metrics from `cur`; then `next` is the open one.
  MinuteMetrics close(Time end, const PeriodGauges& g);

  // start + period, computed when the period opens (or start, so that every fact takes the
  // general path, when that sum leaves the time range: bucket_slow throws as it always did).
  Time cur_end;
  void set_start(Time s) {
    start = s;
    std::int64_t e = 0;
    cur_end = __builtin_add_overflow(s.ns(), period.count_ns(), &e) ? s : Time::from_ns(e);
  }

  /// The bucket of a fact at time t.
  Bucket& bucket(Time t, const char* what) {
    if (t >= start && t < cur_end) [[likely]]
      return cur;
    return bucket_slow(t, what);
  }
  Bucket& bucket_slow(Time t, const char* what) {
    const Time end = start + period;
    if (t >= start && t < end) return cur;
    if (t >= end && t < end + period) return next;
    throw std::logic_error(std::string("MetricsAggregator: ") + what + " at " + std::to_string(t.ns()) +
                           " ns is outside the open period [" + std::to_string(start.ns()) + ", " +
                           std::to_string(end.ns()) + ") and the next (close_period missed, or out of order)");
  }
};

MetricsAggregator::MetricsAggregator(Duration period, Time first_start, ServingRecorder* forward)
    : impl_(std::make_unique<Impl>()) {
  if (period <= Duration())
    throw std::invalid_argument("MetricsAggregator: the metrics period must be positive");
  impl_->period = period;
  impl_->set_start(first_start);
  impl_->forward = forward;
}

MetricsAggregator::~MetricsAggregator() = default;

void MetricsAggregator::publish_model_cache_hit(bool publish) noexcept { impl_->publish_cache_hit = publish; }
bool MetricsAggregator::model_cache_hit_published() const noexcept { return impl_->publish_cache_hit; }

void MetricsAggregator::request(const RequestDone& r) {
  Impl& m = *impl_;
  RunTotals& t = m.totals;
  if (r.status == 0) {
    ++t.in_flight_at_end;
    return;
  }
  Bucket& b = m.bucket(r.done, "a request answered");
  const bool ok = r.status >= 200 && r.status < 300;
  // 424 (ModelError: the invocation timed out) and 429 (ModelNotReadyException) are SageMaker's
  // answers, not the model's: not Invocation4XXErrors. A timeout is an InvocationModelError.
  const bool timed_out = r.status == 424, not_ready = r.status == 429;
  const bool c4 = r.status >= 400 && r.status < 500 && !timed_out && !not_ready;
  const bool c5 = r.status >= 500 && r.status < 600;

  ++b.invocations;
  b.c4xx += c4;
  b.c5xx += c5;
  b.model_errors += timed_out;
  b.hits += r.cache_hit;
  if (r.loading_wait_ns > 0) {
    ++b.waits;
    b.wait_sum_ns += static_cast<double>(r.loading_wait_ns);
  }
  if (ok) {
    b.model_ns.push_back(r.model_latency_ns);
    b.overhead_ns.push_back(r.overhead_ns);
    b.model_sum_ns += static_cast<double>(r.model_latency_ns);
    b.overhead_sum_ns += static_cast<double>(r.overhead_ns);

    m.pend_model.push_back(r.model_latency_ns);
    m.pend_overhead.push_back(r.overhead_ns);
    m.pend_e2e.push_back((r.done - r.arrival).count_ns());
    if (m.pend_model.size() == Impl::kPendingMax) m.flush();
  }

  ++t.invocations;
  t.served += ok;
  t.status_4xx += c4;
  t.status_5xx += c5;
  t.status_503 += r.status == 503;
  t.status_507 += r.status == 507;
  t.status_424 += timed_out;
  t.status_429 += not_ready;
  t.cache_hits += r.cache_hit;

  if (r.model >= m.per_model.size()) m.per_model.resize(static_cast<std::size_t>(r.model) + 1);
  ModelCounters& pm = m.per_model[r.model];
  ++pm.invocations;
  pm.cache_hits += r.cache_hit;
  pm.status_503 += r.status == 503;
  pm.status_507 += r.status == 507;
}

void MetricsAggregator::download_done(Time end, Duration took) {
  Bucket& b = impl_->bucket(end, "a download ended");
  ++b.downloads;
  b.download_sum_ns += static_cast<double>(took.count_ns());
  ++impl_->totals.downloads;
}

void MetricsAggregator::load_done(Time end, Duration took) {
  Bucket& b = impl_->bucket(end, "a load ended");
  ++b.loads;
  b.load_sum_ns += static_cast<double>(took.count_ns());
  ++impl_->totals.loads;
}

void MetricsAggregator::unload_done(Time end, Duration took) {
  Bucket& b = impl_->bucket(end, "an unload ended");
  ++b.unloads;
  b.unload_sum_ns += static_cast<double>(took.count_ns());
  ++impl_->totals.unloads;
}

MinuteMetrics MetricsAggregator::close_period(Time start, const PeriodGauges& g) {
  Impl& m = *impl_;
  m.check_start(start);
  return m.close(start + m.period, g);
}

MinuteMetrics MetricsAggregator::close_last_period(Time start, Time end, const PeriodGauges& g) {
  Impl& m = *impl_;
  m.check_start(start);
  if (end < start || end > start + m.period)
    throw std::logic_error("MetricsAggregator: close_last_period end " + std::to_string(end.ns()) +
                           " ns is not within the period starting at " + std::to_string(start.ns()) +
                           " ns (close the periods before it first)");
  if (end == start + m.period) {
    // Facts at the end instant itself were reported for the next period: the run ended there,
    // so they are the last period's.
    m.cur.absorb(m.next);
    m.next.clear();
  } else if (!m.next.empty()) {
    throw std::logic_error("MetricsAggregator: close_last_period end " + std::to_string(end.ns()) +
                           " ns, but a fact at or after " + std::to_string((start + m.period).ns()) +
                           " ns was reported (after the end of the run)");
  }
  return m.close(end, g);
}

bool MetricsAggregator::open_period_empty() const noexcept { return impl_->cur.empty() && impl_->next.empty(); }

MinuteMetrics MetricsAggregator::Impl::close(Time end, const PeriodGauges& g) {
  Impl& m = *this;
  const Time s = m.start;
  Bucket& b = m.cur;
  MinuteMetrics out;
  out.start = s;
  out.end = end;
  out.invocations = b.invocations;
  out.invocation_4xx = b.c4xx;
  out.invocation_5xx = b.c5xx;
  out.invocation_model_errors = b.model_errors;
  out.served = b.model_ns.size();

  // A last period of no length (the run ended exactly at a period boundary, with answers at
  // that instant) has no time to average over: its instances are those in service then.
  const double length_ns = static_cast<double>((end - s).count_ns());
  const double instance_ns = g.instance_ns > 0 ? static_cast<double>(g.instance_ns)
                                               : static_cast<double>(g.instances_in_service) * length_ns;
  const double mean_instances = length_ns > 0 ? instance_ns / length_ns : static_cast<double>(g.instances_in_service);
  out.invocations_per_instance = mean_instances > 0 ? static_cast<double>(b.invocations) / mean_instances : 0.0;

  constexpr std::array<double, 3> kLevels = {0.50, 0.90, 0.99};  // ascending: see quantiles_asc
  const auto ml = quantiles_asc(b.model_ns, kLevels);
  const auto ol = quantiles_asc(b.overhead_ns, kLevels);
  out.model_latency_avg_us = mean_or_nan(b.model_sum_ns, out.served) / 1e3;
  out.model_latency_p50_us = ml[0] / 1e3;
  out.model_latency_p90_us = ml[1] / 1e3;
  out.model_latency_p99_us = ml[2] / 1e3;
  out.overhead_latency_avg_us = mean_or_nan(b.overhead_sum_ns, out.served) / 1e3;
  out.overhead_latency_p50_us = ol[0] / 1e3;
  out.overhead_latency_p90_us = ol[1] / 1e3;
  out.overhead_latency_p99_us = ol[2] / 1e3;

  out.model_cache_hit = publish_cache_hit ? mean_or_nan(static_cast<double>(b.hits), b.invocations)
                                          : std::numeric_limits<double>::quiet_NaN();
  out.model_loading_waits = b.waits;
  out.model_loading_wait_avg_us = mean_or_nan(b.wait_sum_ns, b.waits) / 1e3;
  out.model_downloads = b.downloads;
  out.model_loads = b.loads;
  out.model_unloads = b.unloads;
  out.model_downloading_avg_us = mean_or_nan(b.download_sum_ns, b.downloads) / 1e3;
  out.model_loading_avg_us = mean_or_nan(b.load_sum_ns, b.loads) / 1e3;
  out.model_unloading_avg_us = mean_or_nan(b.unload_sum_ns, b.unloads) / 1e3;

  out.loaded_model_count = static_cast<double>(g.loaded_models);
  out.cpu_utilization = instance_ns > 0 ? 100.0 * static_cast<double>(g.cpu_busy_core_ns) / instance_ns : 0.0;
  out.memory_utilization = g.memory_total_bytes > 0 ? 100.0 * static_cast<double>(g.memory_used_bytes) /
                                                          static_cast<double>(g.memory_total_bytes)
                                                    : 0.0;
  out.instances_in_service = g.instances_in_service;
  out.workers = g.workers;

  std::swap(m.cur, m.next);
  m.next.clear();
  m.set_start(s + m.period);
  ++m.totals.periods;
  if (m.forward != nullptr) m.forward->minute(out);
  return out;
}

Time MetricsAggregator::period_start() const noexcept { return impl_->start; }
Duration MetricsAggregator::period() const noexcept { return impl_->period; }

// The readers of the whole-run distributions first add the latencies still pending (Impl::flush).
const LatencyHistogram& MetricsAggregator::model_latency() const noexcept {
  impl_->flush();
  return impl_->model_h;
}
const LatencyHistogram& MetricsAggregator::overhead_latency() const noexcept {
  impl_->flush();
  return impl_->overhead_h;
}
const LatencyHistogram& MetricsAggregator::end_to_end_latency() const noexcept {
  impl_->flush();
  return impl_->e2e_h;
}

LatencySummary MetricsAggregator::model_latency_summary() const {
  impl_->flush();
  return summarize(impl_->model_h, impl_->model_s);
}
LatencySummary MetricsAggregator::overhead_latency_summary() const {
  impl_->flush();
  return summarize(impl_->overhead_h, impl_->overhead_s);
}
LatencySummary MetricsAggregator::end_to_end_latency_summary() const {
  impl_->flush();
  return summarize(impl_->e2e_h, impl_->e2e_s);
}

const RunTotals& MetricsAggregator::totals() const noexcept { return impl_->totals; }
const std::vector<ModelCounters>& MetricsAggregator::per_model() const noexcept { return impl_->per_model; }

}  // namespace mltwin::models::inference
