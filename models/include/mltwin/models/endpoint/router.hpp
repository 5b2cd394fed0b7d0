// mltwin/models/endpoint/router.hpp — the endpoint's front end: requests in, routed, answered.
//
// A request from the traffic source (traffic.hpp) reaches the endpoint's container after
// SageMaker's OverheadLatency, and the RoutingPolicy picks an in-service instance for it from
// the instances holding its model (or, for a new copy, from the whole fleet); with no instance
// in service it is answered 503. At the chosen instance the model store takes it
// (model_store.hpp). Every answer — 200 from a batch, 503 from admission, 507 from a failed
// load — comes back here, is counted and recorded (ServingRecorder, MetricsAggregator), and
// tells a closed-loop traffic source that its user may send again. It calls the store, the pools
// and the fleet directly.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/endpoint/endpoint_state.hpp"
#include "mltwin/models/endpoint/instance_fleet.hpp"
#include "mltwin/models/endpoint/model_store.hpp"
#include "mltwin/models/endpoint/worker_pools.hpp"
#include "mltwin/models/traffic.hpp"

namespace mltwin::models::inference {

class Router final : public FrontEnd {
 public:
  /// Makes the scenario's traffic source (sending here). Draws OverheadLatency from the
  /// "endpoint.overhead" stream. All arguments must outlive the component. Throws
  /// std::invalid_argument if the scenario's traffic kind is not registered (traffic.hpp).
  Router(EndpointState& state, core::RngStreams& rng, ps::RoutingPolicy& policy, ModelStore& store, WorkerPools& pools,
         InstanceFleet& fleet);

  /// Starts the traffic.
  void start() { traffic_->start(); }
  /// True while the traffic source may still send requests.
  bool traffic_active() const { return traffic_->active(); }
  /// Answers request slot `r` now with HTTP `status` (`batch`: its batch's size, for 200) and
  /// frees the slot.
  void answer(std::uint32_t r, int status, std::uint16_t batch);

  // FrontEnd. Throws std::logic_error if the RoutingPolicy chooses an instance that is not in
  // service (a user's policy is checked), here or at the request's later reach event.
  void arrive(std::uint32_t model, std::int32_t user) override;
  void before_event() override { s_.note_event(); }

 private:
  /// Every in-service instance, for a router placing a new copy (built on demand).
  struct AllInstances final : ps::InstanceList {
    const EndpointState* s = nullptr;
    std::uint32_t model = 0;
    mutable std::vector<ps::InstanceView> views;
    std::span<const ps::InstanceView> all() const override;
  };
  std::uint32_t new_request();
  void reach(std::uint32_t r);

  EndpointState& s_;
  core::Engine& rng_overhead_;
  detail::LatencyDraw overhead_draw_;  // OverheadLatency, set up once
  ps::RoutingPolicy& policy_;
  ModelStore& store_;
  WorkerPools& pools_;
  InstanceFleet& fleet_;
  std::uint64_t next_request_id_ = 0;
  std::vector<ps::InstanceView> hviews_;  // scratch: the model's in-service holders
  AllInstances all_;
  std::unique_ptr<TrafficSource> traffic_;

  core::Event<&Router::reach, &Router::before_event> reach_event_{this};  // after the overhead
};

}  // namespace mltwin::models::inference
