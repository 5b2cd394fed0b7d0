// traffic.cpp — the traffic sources of an inference endpoint (see traffic.hpp).
#include "mltwin/models/traffic.hpp"

#include <algorithm>
#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/detail/fast_draw.hpp"

namespace mltwin::models::inference {
namespace {

using core::Engine;

/// A wait longer than this (about 158 years) ends after any traffic: a scenario's traffic lasts
/// at most 10 years (io::kMaxScenarioTime), and a Time cannot hold 292.
constexpr double kNeverSeconds = 5e9;

/// Draws a model id from a popularity spec.
class ModelPicker {
 public:
  explicit ModelPicker(const PopularitySpec& p) : p_(p) {
    if (p.kind == PopularitySpec::Kind::Uniform) uniform_ = detail::UniformIntDraw<int>(p.first, p.last);
    if (p.kind == PopularitySpec::Kind::HotSet) {
      const int hot_last = p.first + p.hot_count - 1;
      hot_ = detail::UniformIntDraw<int>(p.first, std::min(hot_last, p.last));
      if (hot_last < p.last) cold_ = detail::UniformIntDraw<int>(hot_last + 1, p.last);
    }
    if (p.kind == PopularitySpec::Kind::Zipf) {
      std::vector<double> w;
      for (int i = p.first; i <= p.last; ++i) w.push_back(1.0 / std::pow(double(i - p.first + 1), p.zipf_alpha));
      zipf_ = boost::random::discrete_distribution<int, double>(w.begin(), w.end());
    }
  }
  std::uint32_t operator()(Engine& e) {
    switch (p_.kind) {
      case PopularitySpec::Kind::Uniform:
        return static_cast<std::uint32_t>(uniform_(e));
      case PopularitySpec::Kind::HotSet: {
        // hot_share of the requests go uniformly to [first, first + hot_count), the rest
        // uniformly to the other models of [first, last].
        const int hot_last = p_.first + p_.hot_count - 1;
        if (hot_last >= p_.last || boost::random::bernoulli_distribution<double>(p_.hot_share)(e))
          return static_cast<std::uint32_t>(hot_(e));
        return static_cast<std::uint32_t>(cold_(e));
      }
      case PopularitySpec::Kind::Zipf:
        return static_cast<std::uint32_t>(p_.first + zipf_(e));
    }
    return 0;
  }

 private:
  PopularitySpec p_;
  // boost::random::uniform_int_distribution<int> draws, set up once (detail/fast_draw.hpp)
  detail::UniformIntDraw<int> uniform_, hot_, cold_;
  boost::random::discrete_distribution<int, double> zipf_;
};

/// What every source holds: the simulator, the front end, and its events' "before" hook.
class Source : public TrafficSource {
 protected:
  Source(core::Simulator& sim, FrontEnd& front) : sim_(sim), front_(front) {}
  void before() { front_.before_event(); }
  core::Simulator& sim_;
  FrontEnd& front_;
};

// ------------------------------------------------------------------------------- Poisson

class PoissonSource final : public Source {
 public:
  PoissonSource(const PoissonTraffic& p, core::Simulator& sim, core::RngStreams& rng, FrontEnd& front)
      : Source(sim, front), p_(p), rng_arrivals_(rng.stream("traffic.arrivals")), rng_models_(rng.stream("traffic.models")) {}

  void start() override {
    if (p_.rate_per_s <= 0) throw std::invalid_argument("poisson rate must be > 0");
    picker_.emplace(p_.popularity);
    end_ = core::Time::zero() + p_.duration;
    schedule_next();
  }
  bool active() const override { return !done_; }

 private:
  void schedule_next() {
    const double gap = boost::random::exponential_distribution<double>(p_.rate_per_s)(rng_arrivals_);
    if (gap > kNeverSeconds) {  // after the traffic's end, whatever it is (a tiny rate)
      done_ = true;
      return;
    }
    const core::Time t = sim_.now() + core::Duration::from_seconds(gap);
    if (t < end_) sim_.schedule(t, &arrival_event_, 0);
    else done_ = true;
  }
  void on_arrival() {
    front_.arrive((*picker_)(rng_models_), -1);
    schedule_next();
  }

  const PoissonTraffic& p_;
  Engine& rng_arrivals_;
  Engine& rng_models_;
  std::optional<ModelPicker> picker_;
  core::Time end_;
  bool done_ = false;
  core::Event<&PoissonSource::on_arrival, &PoissonSource::before> arrival_event_{this};
};

// ------------------------------------------------------------------------------- Trace

class TraceSource final : public Source {
 public:
  TraceSource(const TraceTraffic& t, std::size_t models, core::Simulator& sim, core::RngStreams& rng, FrontEnd& front)
      : Source(sim, front), t_(t), models_(models), rng_arrivals_(rng.stream("traffic.arrivals")) {}

  void start() override {
    minute_ = 0;
    sim_.schedule(core::Time::zero(), &minute_event_, 0);
  }
  bool active() const override { return !done_ || next_ < arrivals_.size(); }

 private:
  /// Draws the next minute's arrivals (each uniform within the time-scaled minute), in time order.
  void on_minute() {
    arrivals_.clear();
    next_ = 0;
    const int minute = t_.first_minute + minute_;
    const std::int64_t start = sim_.now().ns();
    const auto len = static_cast<std::int64_t>(std::llround(60e9 / t_.time_scale));
    const detail::UniformIntDraw<std::int64_t> within(0, std::max<std::int64_t>(len - 1, 0));
    for (std::uint32_t m = 0; m < t_.counts.size() && m < models_; ++m) {
      if (minute >= static_cast<int>(t_.counts[m].size())) continue;
      for (std::uint32_t i = 0; i < t_.counts[m][static_cast<std::size_t>(minute)]; ++i)
        arrivals_.emplace_back(core::Time::from_ns(start + within(rng_arrivals_)), m);
    }
    std::sort(arrivals_.begin(), arrivals_.end());
    ++minute_;
    if (minute_ < t_.minutes) sim_.schedule(core::Time::from_ns(start + len), &minute_event_, 0);
    else done_ = true;
    if (!arrivals_.empty()) sim_.schedule(arrivals_[0].first, &arrival_event_, 0);
  }
  /// Fires every arrival due now, then waits for the next.
  void on_arrival() {
    while (next_ < arrivals_.size() && arrivals_[next_].first <= sim_.now()) front_.arrive(arrivals_[next_++].second, -1);
    if (next_ < arrivals_.size()) sim_.schedule(arrivals_[next_].first, &arrival_event_, 0);
  }

  const TraceTraffic& t_;
  std::size_t models_;
  Engine& rng_arrivals_;
  std::vector<std::pair<core::Time, std::uint32_t>> arrivals_;  // this minute's
  std::size_t next_ = 0;
  int minute_ = 0;
  bool done_ = false;
  core::Event<&TraceSource::on_minute, &TraceSource::before> minute_event_{this};
  core::Event<&TraceSource::on_arrival, &TraceSource::before> arrival_event_{this};
};

// ------------------------------------------------------------------------------- Locust

class LocustSource final : public Source {
 public:
  LocustSource(const LocustTraffic& l, core::Simulator& sim, core::RngStreams& rng, FrontEnd& front)
      : Source(sim, front), l_(l), rng_models_(rng.stream("traffic.models")), rng_users_(rng.stream("traffic.locust_wait")) {}

  void start() override {
    std::vector<double> w;
    for (const auto& task : l_.tasks) {
      pickers_.emplace_back(task.popularity);
      w.push_back(task.weight);
    }
    if (w.empty()) throw std::invalid_argument("locust traffic needs at least one task");
    task_choice_ = boost::random::discrete_distribution<int, double>(w.begin(), w.end());
    end_ = core::Time::zero() + l_.duration;
    period_s_ = 1.0 / l_.wait_a;
    users_.resize(static_cast<std::size_t>(l_.users));
    for (int u = 0; u < l_.users; ++u) {
      // A start beyond any traffic (which lasts at most 10 years) is one that never comes;
      // past 292 years it would not even be a Time.
      if (static_cast<double>(u) / l_.spawn_rate > kNeverSeconds) break;
      const core::Time t0 = core::Time::zero() + core::Duration::from_seconds(static_cast<double>(u) / l_.spawn_rate);
      if (t0 < end_) sim_.schedule(t0, &user_step_event_, static_cast<std::uint64_t>(u));
    }
  }
  bool active() const override { return sim_.now() < end_; }

  void answered(std::uint32_t u) override {
    double wait = 0;
    switch (l_.wait) {
      case LocustTraffic::Wait::Constant: wait = l_.wait_a; break;
      case LocustTraffic::Wait::Between:
        wait = l_.wait_a + (l_.wait_b - l_.wait_a) * boost::random::uniform_01<double>()(rng_users_);
        break;
      case LocustTraffic::Wait::ConstantThroughput: {
        // locust wait_time.constant_throughput(t): wait so that a task starts at most every 1/t s.
        const double elapsed = (sim_.now() - users_[u].task_start).seconds();
        wait = std::max(0.0, period_s_ - elapsed);
        break;
      }
    }
    if (wait > kNeverSeconds) return;  // a constant throughput so low that the next task never comes
    const core::Time next = sim_.now() + core::Duration::from_seconds(wait);
    if (next < end_) sim_.schedule(next, &user_step_event_, u);
  }

 private:
  struct User {
    core::Time task_start;  // of its current task (constant_throughput waits from it)
  };
  /// User `u` picks a task by weight and sends its request.
  void on_user_step(std::uint32_t u) {
    if (sim_.now() >= end_) return;  // the run's users stop with its duration
    users_[u].task_start = sim_.now();
    const int task = task_choice_(rng_models_);
    front_.arrive(pickers_[static_cast<std::size_t>(task)](rng_models_), static_cast<std::int32_t>(u));
  }

  const LocustTraffic& l_;
  Engine& rng_models_;
  Engine& rng_users_;
  std::vector<ModelPicker> pickers_;  // one per task
  boost::random::discrete_distribution<int, double> task_choice_;
  core::Time end_;
  double period_s_ = 0;  // constant_throughput's 1 / t, s (the same double as dividing each time)
  std::vector<User> users_;
  core::Event<&LocustSource::on_user_step, &LocustSource::before> user_step_event_{this};
};

/// A built-in kind: builds its source from the scenario's typed spec.
class BuiltinKind final : public TrafficKind {
 public:
  using Build = std::unique_ptr<TrafficSource> (*)(const TrafficContext&);
  explicit BuiltinKind(Build b) : build_(b) {}
  std::unique_ptr<TrafficSource> make(const TrafficContext& c) const override { return build_(c); }

 private:
  Build build_;
};

policy::Registry<TrafficKind>::Entry builtin(BuiltinKind::Build b, std::string summary) {
  return {[b](const policy::Arguments&) -> std::unique_ptr<TrafficKind> { return std::make_unique<BuiltinKind>(b); },
          std::vector<policy::ArgSpec>{}, std::move(summary)};
}

std::unique_ptr<TrafficSource> poisson(const TrafficContext& c) {
  return std::make_unique<PoissonSource>(c.sc.traffic.poisson, c.sim, c.rng, c.front);
}
std::unique_ptr<TrafficSource> trace(const TrafficContext& c) {
  return std::make_unique<TraceSource>(c.sc.traffic.trace, c.sc.models.size(), c.sim, c.rng, c.front);
}
std::unique_ptr<TrafficSource> locust(const TrafficContext& c) {
  return std::make_unique<LocustSource>(c.sc.traffic.locust, c.sim, c.rng, c.front);
}

}  // namespace

policy::Registry<TrafficKind>& traffic_registry() {
  static policy::Registry<TrafficKind> r(
      "traffic kind", {{"poisson", builtin(&poisson, "open-loop Poisson arrivals, models by popularity")},
                       {"trace", builtin(&trace, "per-minute counts per model (Azure Functions 2019 layout)")},
                       {"locust", builtin(&locust, "closed-loop Locust users (spawn_rate, tasks, wait_time)")}});
  return r;
}

const char* to_string(TrafficSpec::Kind k) {
  switch (k) {
    case TrafficSpec::Kind::Poisson: return "poisson";
    case TrafficSpec::Kind::Trace: return "trace";
    case TrafficSpec::Kind::Locust: return "locust";
  }
  return "?";
}

std::unique_ptr<TrafficSource> make_traffic_source(const InferenceScenario& sc, core::Simulator& sim, core::RngStreams& rng,
                                                   FrontEnd& front) {
  const TrafficSpec& t = sc.traffic;
  const std::string name = t.source.empty() ? std::string(to_string(t.kind)) : t.source;
  return traffic_registry().make(name, t.source.empty() ? policy::Arguments{} : t.arguments)->make(TrafficContext{sc, sim, rng, front});
}

}  // namespace mltwin::models::inference
