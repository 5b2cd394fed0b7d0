// mltwin/models/traffic.hpp — the requests that reach an inference endpoint: one component per
// kind of traffic, behind one interface, chosen by name through traffic_registry() (the
// policy::Registry mechanism the serving policies use).
//
//   * Poisson: open-loop arrivals at `rate_per_s` for `duration`, each for a model drawn from
//     the popularity spec (stream "traffic.arrivals" for the gaps, "traffic.models" for the
//     models).
//   * Trace: per-minute counts per model (Azure Functions 2019 layout), each minute's arrivals
//     spread uniformly at random within the (time-scaled) minute ("traffic.arrivals").
//   * Locust: closed-loop users, as Locust runs them: spawned at `spawn_rate` per second, each
//     picking a task by weight, sending one request, waiting for its answer, then waiting
//     `wait_time` (constant, between, constant_throughput; "traffic.models",
//     "traffic.locust_wait").
//
// A source sends each request to the endpoint's front end (FrontEnd::arrive) and, for a
// closed loop, hears when its user's request is answered (TrafficSource::answered). Unit-testable
// alone: a FrontEnd that records the arrivals is all it needs (tests/models/test_traffic.cpp).
#pragma once
#include <cstdint>
#include <memory>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/inference_scenario.hpp"
#include "mltwin/policy/registry.hpp"

namespace mltwin::models::inference {

/// Where a traffic source sends its requests: the endpoint's front end.
class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  /// A request for `model` arrives now. `user` is the Locust user who sent it, -1 for open-loop
  /// traffic.
  virtual void arrive(std::uint32_t model, std::int32_t user) = 0;
  /// Called before each of the source's events (the endpoint notes the time of its last event).
  virtual void before_event() = 0;
};

/// The requests of one kind of traffic.
class TrafficSource {
 public:
  virtual ~TrafficSource() = default;
  /// Schedules the first arrivals (or users). Throws std::invalid_argument for a spec the
  /// scenario loader would have refused (a rate <= 0, Locust without a task).
  virtual void start() = 0;
  /// Closed loop: `user`'s request was answered now (any status). Open loop: never called.
  virtual void answered(std::uint32_t user) { (void)user; }
  /// True while requests may still come: before the traffic's end, or while arrivals of the
  /// current trace minute are still to fire.
  virtual bool active() const = 0;
};

/// What a traffic source is built from. All of it must outlive the source.
struct TrafficContext {
  const InferenceScenario& sc;
  core::Simulator& sim;
  core::RngStreams& rng;  ///< the source draws from its "traffic.*" streams
  FrontEnd& front;
};

/// A kind of traffic: builds its sources. Registered by name in traffic_registry(), as a
/// serving policy is in its registry; the factory gets the kind's Arguments (the built-in kinds
/// read none: their figures are the scenario's typed TrafficSpec).
class TrafficKind {
 public:
  virtual ~TrafficKind() = default;
  /// A source of this kind for `ctx.sc`. Throws std::invalid_argument for a spec the scenario
  /// loader would have refused.
  virtual std::unique_ptr<TrafficSource> make(const TrafficContext& ctx) const = 0;
};

/// The kinds of traffic by name: "poisson", "trace" and "locust" built in (the keys of a
/// scenario's /traffic); a program embedding mltwin may add its own or replace one
/// (policy::Registry::add).
policy::Registry<TrafficKind>& traffic_registry();

/// The registry name of a scenario's kind of traffic: "poisson", "trace" or "locust".
const char* to_string(TrafficSpec::Kind k);

/// The source of `sc.traffic`: the kind registered under sc.traffic.source (with
/// sc.traffic.arguments), or when that is empty under to_string(sc.traffic.kind), drawing from
/// `rng`'s traffic streams and sending to `front`. The scenario, simulator, streams and front
/// end must outlive it. Throws std::invalid_argument if the name is not registered, or what
/// the kind's factory throws for its arguments.
std::unique_ptr<TrafficSource> make_traffic_source(const InferenceScenario& sc, core::Simulator& sim, core::RngStreams& rng,
                                                   FrontEnd& front);

}  // namespace mltwin::models::inference
