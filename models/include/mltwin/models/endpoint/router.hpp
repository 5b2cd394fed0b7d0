// mltwin/models/endpoint/router.hpp — the endpoint's front end: requests in, routed, answered.
//
// A request from the traffic source (traffic.hpp) reaches the endpoint's container after
// SageMaker's OverheadLatency, and the RoutingPolicy picks an in-service instance for it from
// the instances holding its model (or, for a new copy, from the whole fleet); with no instance
// in service it is answered 503. At the chosen instance the model store takes it
// (model_store.hpp). Every answer — 200 from a batch, 503 from admission, 507 from a failed
// load, 424 / 429 from the invocation timeout — comes back here, is counted and recorded
// (ServingRecorder, MetricsAggregator), and tells a closed-loop traffic source that its user
// may send again. It calls the store, the pools and the fleet directly.
//
// The invocation timeout (EndpointSpec::invocation_timeout, SageMaker's 60 s): every request
// that reaches an instance joins a list of the requests whose caller waits, in reach order
// (one timeout for all, so that is deadline order), and leaves it when its caller is answered;
// one event is pending, at the earliest deadline of a request still waiting. (The list holds
// the few requests in flight, where a FIFO of every deadline held a minute of requests.)
// At its deadline a request waiting for its model's download or load is answered 429
// ModelNotReadyException and leaves the model's waiting list (the load goes on, as the MME
// guide says); one in the container is answered 424 ModelError and stays there: the container
// is not told (SageMaker documents no cancellation), so its worker still runs it and the pool,
// the instance and the worker stay busy until it finishes (EndpointStats::abandoned_in_container).
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
  /// frees the slot. For a request whose caller already got 424 (it timed out in the
  /// container), the container's answer only frees the slot and the instance's count.
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
  /// Counts and records request slot `r`'s answer to its caller (the slot stays).
  void record_answer(std::uint32_t r, int status, std::uint16_t batch);
  /// The invocation timeout's event: answers the requests whose deadline has come (424 / 429).
  void on_timeout();
  void schedule_timeout();

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

  /// Appends request slot `r` to the waiting list / takes it out (if it is there).
  void wait_for_answer(std::uint32_t r);
  void stop_waiting(std::uint32_t r);
  Time deadline(const Request& q) const { return q.reach + s_.sc.endpoint.invocation_timeout; }

  // The requests whose caller waits, from their reach, in reach order (so in deadline order):
  // first and last slot, linked through Request::waiting_prev / waiting_next.
  std::uint32_t waiting_head_ = kNoSlot, waiting_tail_ = kNoSlot;
  bool timeout_pending_ = false;

  core::Event<&Router::reach, &Router::before_event> reach_event_{this};  // after the overhead
  core::Event<&Router::on_timeout, &Router::before_event> timeout_event_{this};
};

}  // namespace mltwin::models::inference
