// The traffic sources of an inference endpoint (models/traffic.hpp), alone: a front end that
// records each arrival is all they need. Expected values come from the definitions (Poisson
// counts and their spread; a trace's counts and minute boundaries; Locust users' schedules
// worked out by hand).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/traffic.hpp"

using namespace mltwin;
using namespace mltwin::models::inference;
using core::Duration;
using core::Time;

namespace {

struct Arrival {
  std::int64_t t_ns;
  std::uint32_t model;
  std::int32_t user;
};

/// Records arrivals; for a closed loop, answers each request at once (or after `latency`).
struct Recorder final : FrontEnd {
  core::Simulator& sim;
  TrafficSource* source = nullptr;
  std::vector<Arrival> arrivals;
  std::uint64_t befores = 0;
  explicit Recorder(core::Simulator& s) : sim(s) {}
  void arrive(std::uint32_t model, std::int32_t user) override {
    arrivals.push_back({sim.now().ns(), model, user});
    if (user >= 0) source->answered(static_cast<std::uint32_t>(user));
  }
  void before_event() override { ++befores; }
};

InferenceScenario with_models(int n) {
  InferenceScenario sc;
  sc.models.resize(static_cast<std::size_t>(n));
  return sc;
}

}  // namespace

TEST_CASE("Poisson traffic: about rate x duration arrivals, models uniform over the popularity range") {
  InferenceScenario sc = with_models(10);
  sc.traffic.kind = TrafficSpec::Kind::Poisson;
  sc.traffic.poisson.rate_per_s = 100;
  sc.traffic.poisson.duration = Duration::s(1000);
  sc.traffic.poisson.popularity.first = 0;
  sc.traffic.poisson.popularity.last = 9;
  core::Simulator sim;
  core::RngStreams rng(7);
  Recorder front(sim);
  auto source = make_traffic_source(sc, sim, rng, front);
  front.source = source.get();
  source->start();
  CHECK(source->active());
  sim.run();
  CHECK_FALSE(source->active());
  // A Poisson count with mean 1e5 has sd 316: within 4 sd.
  const double n = static_cast<double>(front.arrivals.size());
  CHECK(std::abs(n - 1e5) < 4 * std::sqrt(1e5));
  CHECK(front.befores == front.arrivals.size());  // one event per arrival, each after the hook
  std::vector<double> per_model(10, 0);
  for (const Arrival& a : front.arrivals) {
    CHECK(a.t_ns < Duration::s(1000).count_ns());
    CHECK(a.user == -1);
    per_model[a.model] += 1;
  }
  // Binomial(n, 0.1) per model: sd sqrt(n * 0.1 * 0.9).
  for (double c : per_model) CHECK(std::abs(c - n / 10) < 4 * std::sqrt(n * 0.09));
}

TEST_CASE("trace traffic: each minute's counts, inside the time-scaled minute") {
  InferenceScenario sc = with_models(2);
  sc.traffic.kind = TrafficSpec::Kind::Trace;
  sc.traffic.trace.counts = {{3, 0, 2}, {1, 1, 0}};
  sc.traffic.trace.time_scale = 2.0;  // a minute lasts 30 s
  sc.traffic.trace.first_minute = 0;
  sc.traffic.trace.minutes = 3;
  core::Simulator sim;
  core::RngStreams rng(1);
  Recorder front(sim);
  auto source = make_traffic_source(sc, sim, rng, front);
  front.source = source.get();
  source->start();
  sim.run();
  CHECK_FALSE(source->active());
  // counts[model][minute] arrivals of each model in [30 s x minute, 30 s x (minute + 1)).
  int count[2][3] = {};
  std::int64_t last = -1;
  for (const Arrival& a : front.arrivals) {
    CHECK(a.t_ns >= last);  // in time order
    last = a.t_ns;
    const auto minute = a.t_ns / Duration::s(30).count_ns();
    REQUIRE(minute < 3);
    ++count[a.model][minute];
  }
  CHECK(count[0][0] == 3);
  CHECK(count[0][1] == 0);
  CHECK(count[0][2] == 2);
  CHECK(count[1][0] == 1);
  CHECK(count[1][1] == 1);
  CHECK(count[1][2] == 0);
}

TEST_CASE("Locust users: spawned at spawn_rate, one request per task, then wait_time") {
  InferenceScenario sc = with_models(3);
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  LocustTraffic& l = sc.traffic.locust;
  l.users = 2;
  l.spawn_rate = 1;  // user 0 at 0 s, user 1 at 1 s
  l.duration = Duration::s(60);
  l.tasks.resize(1);
  l.tasks[0].popularity.first = 0;
  l.tasks[0].popularity.last = 2;
  core::Simulator sim;
  core::RngStreams rng(3);

  SUBCASE("constant(5 s): answered at once, a user sends every 5 s until the traffic ends") {
    l.wait = LocustTraffic::Wait::Constant;
    l.wait_a = 5;
    Recorder front(sim);
    auto source = make_traffic_source(sc, sim, rng, front);
    front.source = source.get();
    source->start();
    sim.run();
    // user 0: 0, 5, ..., 55 s (12); user 1: 1, 6, ..., 56 s (12); a step at 60 s is past the end.
    std::vector<std::int64_t> user0, user1;
    for (const Arrival& a : front.arrivals) (a.user == 0 ? user0 : user1).push_back(a.t_ns / 1'000'000'000);
    REQUIRE(user0.size() == 12);
    REQUIRE(user1.size() == 12);
    for (std::size_t i = 0; i < 12; ++i) {
      CHECK(user0[i] == static_cast<std::int64_t>(5 * i));
      CHECK(user1[i] == static_cast<std::int64_t>(5 * i + 1));
    }
    // A Locust run lasts its duration whatever its users do: active until 60 s.
    CHECK(sim.now() == Time::zero() + Duration::s(56));
    CHECK(source->active());
    sim.run_until(Time::zero() + Duration::s(60));
    CHECK_FALSE(source->active());
  }
  SUBCASE("constant_throughput(0.1/s): a task starts at most every 10 s") {
    l.wait = LocustTraffic::Wait::ConstantThroughput;
    l.wait_a = 0.1;
    Recorder front(sim);
    auto source = make_traffic_source(sc, sim, rng, front);
    front.source = source.get();
    source->start();
    sim.run();
    CHECK(front.arrivals.size() == 12);  // 0, 10, ..., 50 and 1, 11, ..., 51
  }
}

TEST_CASE("a source refuses what the loader would have: a rate <= 0, Locust without a task") {
  core::Simulator sim;
  core::RngStreams rng(1);
  Recorder front(sim);
  InferenceScenario sc = with_models(1);
  sc.traffic.kind = TrafficSpec::Kind::Poisson;
  sc.traffic.poisson.rate_per_s = 0;
  CHECK_THROWS_WITH_AS(make_traffic_source(sc, sim, rng, front)->start(), "poisson rate must be > 0", std::invalid_argument);
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  CHECK_THROWS_WITH_AS(make_traffic_source(sc, sim, rng, front)->start(), "locust traffic needs at least one task",
                       std::invalid_argument);
}

TEST_CASE("traffic kinds come from the registry by name: a kind of one's own, a built-in replaced and restored") {
  auto& reg = traffic_registry();
  CHECK(reg.names() == std::vector<std::string>{"locust", "poisson", "trace"});
  CHECK(std::string(to_string(TrafficSpec::Kind::Locust)) == "locust");
  // One arrival for model `model` at `at_s` seconds: a kind read from its Arguments.
  struct One final : TrafficSource {
    core::Simulator& sim;
    FrontEnd& front;
    std::uint32_t model;
    Time at;
    struct Fire final : core::EventHandler {
      One* o;
      void on_event(core::Simulator&, std::uint64_t) override { o->front.arrive(o->model, -1); }
    } fire{};
    One(core::Simulator& s, FrontEnd& f, std::uint32_t m, Time t) : sim(s), front(f), model(m), at(t) { fire.o = this; }
    void start() override { sim.schedule(at, &fire, 0); }
    bool active() const override { return sim.now() < at; }
  };
  struct OneKind final : TrafficKind {
    std::uint32_t model;
    double at_s;
    OneKind(std::uint32_t m, double t) : model(m), at_s(t) {}
    std::unique_ptr<TrafficSource> make(const TrafficContext& c) const override {
      return std::make_unique<One>(c.sim, c.front, model, Time::zero() + Duration::from_seconds(at_s));
    }
  };
  auto one = [](const policy::Arguments& a) -> std::unique_ptr<TrafficKind> {
    return std::make_unique<OneKind>(static_cast<std::uint32_t>(a.get_int("model", 3)), a.get_double("at", 2.0));
  };
  InferenceScenario sc = with_models(10);
  sc.traffic.kind = TrafficSpec::Kind::Poisson;
  sc.traffic.poisson.rate_per_s = 100;
  sc.traffic.poisson.duration = Duration::s(10);
  auto run = [&] {
    core::Simulator sim;
    core::RngStreams rng(7);
    Recorder front(sim);
    auto source = make_traffic_source(sc, sim, rng, front);
    source->start();
    sim.run();
    return front.arrivals;
  };
  SUBCASE("a kind of its own name, chosen by TrafficSpec::source with its arguments") {
    reg.add("one-arrival", one);
    sc.traffic.source = "one-arrival";
    sc.traffic.arguments.set("model", "7");
    sc.traffic.arguments.set("at", "4.5");
    const auto arrivals = run();
    REQUIRE(arrivals.size() == 1);
    CHECK(arrivals[0].t_ns == Duration::ms(4500).count_ns());
    CHECK(arrivals[0].model == 7);
    CHECK(reg.remove("one-arrival"));
    // Gone from the registry: refused with the known names.
    CHECK_THROWS_WITH_AS(run(), doctest::Contains("unknown traffic kind 'one-arrival'"), std::invalid_argument);
  }
  SUBCASE("a built-in name replaced, then restored") {
    reg.add("poisson", one);  // the scenario's Poisson traffic now gets one arrival, for model 3 at 2 s
    auto arrivals = run();
    REQUIRE(arrivals.size() == 1);
    CHECK(arrivals[0].t_ns == Duration::s(2).count_ns());
    CHECK(arrivals[0].model == 3);
    CHECK(reg.remove("poisson"));
    arrivals = run();  // the built-in Poisson source again: about 1,000 arrivals in 10 s
    CHECK(std::abs(static_cast<double>(arrivals.size()) - 1000.0) < 4 * std::sqrt(1000.0));
  }
  CHECK_THROWS_WITH_AS(reg.make("poison", {}), "unknown traffic kind 'poison'; did you mean 'poisson'? (known: locust, poisson, trace)", std::invalid_argument);
}
