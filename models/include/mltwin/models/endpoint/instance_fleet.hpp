// mltwin/models/endpoint/instance_fleet.hpp — the endpoint's instances: launch, health check,
// scale-in drain and termination; the metrics periods (CloudWatch's one-minute datapoints) and
// the instance scaling policy evaluated at the end of each.
//
// A launched instance is in service after its start-up and health check (instance_startup +
// health_check). On a SingleModel endpoint its server first registers its load_models
// (ModelStore::register_models): launch → instance_startup → the artifact's download and each
// model's load in turn → health_check → in service. At the end of each metrics period the fleet closes the period's gauges (CPU,
// memory, instances, workers; serving_metrics.hpp) and asks the InstanceScalingPolicy for a
// desired count, as SageMaker's target tracking on InvocationsPerInstance does
// (https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling.html). Scale-out
// launches instances; scale-in drains the newest: they stop receiving requests and terminate
// once they have none outstanding and no load in progress. A scaling policy that wants a count
// outside min_instances .. max_instances stops the run: its metrics-tick event throws
// std::logic_error naming the policy.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/endpoint/endpoint_state.hpp"
#include "mltwin/models/serving_metrics.hpp"

namespace mltwin::models::inference {

/// What the fleet asks of the rest of the endpoint.
class FleetHost {
 public:
  virtual ~FleetHost() = default;
  /// True while requests may still come (the traffic source is active).
  virtual bool traffic_active() const = 0;
  /// SingleModel endpoints: `in`'s server starts registering its load_models; the fleet hears
  /// InstanceFleet::models_registered when the last is loaded.
  virtual void register_models(Instance& in) = 0;
  /// SingleModel endpoints: `in` (of the initial fleet) holds its load_models now.
  virtual void register_models_now(Instance& in) = 0;
};

class InstanceFleet final : public PeriodCloser {
 public:
  /// `policies` supplies the per-instance cache policies and the (optional) scaling policy.
  /// All arguments must outlive the component.
  InstanceFleet(EndpointState& state, const PolicySet& policies, FleetHost& host)
      : s_(state), pol_(policies), host_(host) {
    s_.periods = this;
  }

  /// The initial fleet, in service now; the first metrics period opens now.
  void start();
  /// Schedules the end of the open metrics period (start() leaves it to the caller, so that the
  /// traffic's first events come first at equal times).
  void schedule_tick();
  /// A request was routed to an instance (InvocationsPerInstance of the open minute).
  void count_invocation() { ++minute_invocations_; }
  /// SingleModel endpoints: `in`'s server has registered its load_models; its health check
  /// starts now.
  void models_registered(Instance& in);
  /// A draining instance with nothing outstanding and no load in progress terminates now.
  void maybe_terminate(Instance& in);
  /// Once the period ticks have stopped (no traffic, nothing in flight), closes every period
  /// that ended by `t`, with the gauges at its end, before the event at `t` changes anything.
  void close_elapsed_periods(Time t) override {
    if (ticking_) return;
    while (t >= period_start_ + s_.sc.output.metrics_period) close_open_period();
  }
  /// Closes the run at `now` (no earlier than the last event): every period up to `now`, then
  /// the last, partial one.
  void close_periods_at_end(Time now);

 private:
  std::uint32_t launch_instance(bool in_service_now);
  void emit_instance(std::uint32_t id, InstanceEvent::Kind k, std::string_view why);
  int in_service() const;
  PeriodGauges gauges(Time now);
  void close_open_period();
  void scale(Time now);
  void on_metrics_tick();
  void on_instance_up(std::uint32_t id);
  void on_container_started(std::uint32_t id);
  void before() { s_.note_event(); }
  void set_ticking(bool on);  // and EndpointState::quiet_period_end

  EndpointState& s_;
  const PolicySet& pol_;
  FleetHost& host_;
  int desired_ = 0;
  Time last_scale_out_ = Time::from_ns(-ps::kNever), last_scale_in_ = Time::from_ns(-ps::kNever);  // never
  int scale_out_base_ = 0;            // ScalingObservation::scale_out_base
  std::vector<double> ipi_history_;   // InvocationsPerInstance per completed minute
  std::uint64_t minute_invocations_ = 0;
  Time period_start_;                 // of the open metrics period
  bool ticking_ = false;              // a metrics tick is scheduled

  template <auto Fn>
  using Ev = core::Event<Fn, &InstanceFleet::before>;
  Ev<&InstanceFleet::on_instance_up> instance_up_event_{this};
  Ev<&InstanceFleet::on_container_started> container_started_event_{this};
  Ev<&InstanceFleet::on_metrics_tick> metrics_tick_event_{this};
};

}  // namespace mltwin::models::inference
