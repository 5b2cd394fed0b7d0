// InstanceFleet: see mltwin/models/endpoint/instance_fleet.hpp.
#include "mltwin/models/endpoint/instance_fleet.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mltwin/models/endpoint/processor_sharing.hpp"

namespace mltwin::models::inference {

void InstanceFleet::start() {
  desired_ = s_.sc.endpoint.initial_instances;
  for (int i = 0; i < s_.sc.endpoint.initial_instances; ++i) launch_instance(true);
  period_start_ = s_.sim.now();
}

void InstanceFleet::close_periods_at_end(Time now) {
  // Every period up to the end, then the last one, [period_start, now], which also holds what
  // happened at `now` itself — when the run ended exactly at a period boundary with answers at
  // that instant, a period of no length.
  while (now > period_start_ + s_.sc.output.metrics_period) close_open_period();
  if (now > period_start_ || (s_.metrics && !s_.metrics->open_period_empty())) {
    const PeriodGauges g = gauges(now);
    if (s_.metrics) s_.metrics->close_last_period(period_start_, now, g);
  }
}

std::uint32_t InstanceFleet::launch_instance(bool in_service_now) {
  Instance in;
  in.id = static_cast<std::uint32_t>(s_.instances.size());
  in.launched = s_.sim.now();
  in.cpu.last = s_.sim.now();
  in.mem_cap = instance_model_memory(s_.sc, *s_.itype);
  in.disk_cap = s_.storage_bytes;
  in.cpu.vcpu = std::max(1, s_.itype->vcpu);
  in.models.resize(s_.sc.models.size());
  in.mem_cache = pol_.memory_cache();
  in.disk_cache = pol_.disk_cache();
  s_.instances.push_back(std::move(in));
  ++s_.st.instances_launched;
  const std::uint32_t id = s_.instances.back().id;
  emit_instance(id, InstanceEvent::Kind::Launched, "launched");
  if (in_service_now) {
    // A SingleModel endpoint in service has registered its models (CreateEndpoint finished
    // before the run).
    if (s_.single_model()) host_.register_models_now(s_.instances[id]);
    s_.instances[id].state = InstanceState::InService;
    s_.instances[id].in_service_since = s_.sim.now();
    emit_instance(id, InstanceEvent::Kind::InService, "initial fleet");
  } else if (s_.single_model()) {
    // The server registers its models between its start and the health check (on_container_started).
    s_.sim.schedule_in(s_.sc.endpoint.instance_startup.draw(s_.rng_endpoint), &container_started_event_, id);
  } else {
    const Duration up = s_.sc.endpoint.instance_startup.draw(s_.rng_endpoint) + s_.sc.endpoint.health_check.draw(s_.rng_endpoint);
    s_.sim.schedule_in(up, &instance_up_event_, id);
  }
  return id;
}

void InstanceFleet::emit_instance(std::uint32_t id, InstanceEvent::Kind k, std::string_view why) {
  if (s_.rec) s_.rec->instance_event(InstanceEvent{s_.sim.now(), id, k, desired_, why});
}

int InstanceFleet::in_service() const {
  int n = 0;
  for (const auto& in : s_.instances) n += in.state == InstanceState::InService;
  return n;
}

void InstanceFleet::maybe_terminate(Instance& in) {
  if (in.state != InstanceState::Draining || in.outstanding > 0 || in.loads_in_progress > 0) return;
  in.state = InstanceState::Terminated;
  in.terminated = s_.sim.now();
  emit_instance(in.id, InstanceEvent::Kind::Terminated, "scale-in");
}

/// The gauges of the period [period_start, now): integrals up to `now` and the state at `now`,
/// which is sim.now() or a time between the last event and the next (nothing changes in
/// between). Resets the per-period CPU integral.
PeriodGauges InstanceFleet::gauges(Time now) {
  PeriodGauges g;
  double busy = 0;
  for (Instance& in : s_.instances) {
    if (in.in_service_since == Time::max()) continue;
    ProcessorSharing::advance_to(in.cpu, now);
    busy += in.cpu.busy_core_ns;
    in.cpu.busy_core_ns = 0;
    const Time from = std::max(in.in_service_since, period_start_);
    const Time to = std::min(in.terminated, now);
    if (to > from) g.instance_ns += (to - from).count_ns();
    if (in.state != InstanceState::InService && in.state != InstanceState::Draining) continue;
    ++g.instances_in_service;
    g.loaded_models += static_cast<std::uint64_t>(in.models_loaded);
    g.memory_used_bytes += in.mem_used + s_.sc.endpoint.memory_reserved_bytes;
    g.memory_total_bytes += s_.itype->memory_bytes();
  }
  g.cpu_busy_core_ns = static_cast<std::int64_t>(std::llround(busy));
  g.workers = s_.running_workers;
  return g;
}

void InstanceFleet::set_ticking(bool on) {
  ticking_ = on;
  s_.quiet_period_end = on ? Time::max() : period_start_ + s_.sc.output.metrics_period;
}

void InstanceFleet::on_metrics_tick() {
  ticking_ = false;
  const Time now = s_.sim.now();
  const PeriodGauges g = gauges(now);
  if (s_.metrics) s_.metrics->close_period(period_start_, g);
  const int live = g.instances_in_service;
  ipi_history_.push_back(live > 0 ? static_cast<double>(minute_invocations_) / live : 0.0);
  if (ipi_history_.size() > 64) ipi_history_.erase(ipi_history_.begin(), ipi_history_.begin() + 32);
  minute_invocations_ = 0;
  period_start_ = now;
  if (pol_.scaling) scale(now);
  // Tick (and scale) while traffic comes or requests are in flight, and only while another
  // event is pending: with none, nothing can ever happen again — the requests still in flight
  // can never be served (a policy left them without a worker, say), and the run is over;
  // Endpoint::finish() reports them as unserved at the end. Later periods, when other events
  // outlive the ticks, are closed by close_elapsed_periods().
  if ((host_.traffic_active() || s_.st.in_flight > 0) && s_.sim.pending_count() > 0) schedule_tick();
  else set_ticking(false);
}

void InstanceFleet::schedule_tick() {
  s_.sim.schedule(period_start_ + s_.sc.output.metrics_period, &metrics_tick_event_, 0);
  set_ticking(true);
}

/// Closes the open period at its end, [period_start, period_start + metrics_period), which must
/// be no later than the next event.
void InstanceFleet::close_open_period() {
  const Time end = period_start_ + s_.sc.output.metrics_period;
  const PeriodGauges g = gauges(end);
  if (s_.metrics) s_.metrics->close_period(period_start_, g);
  period_start_ = end;
  if (!ticking_) set_ticking(false);
}

void InstanceFleet::scale(Time now) {
  ps::ScalingObservation o;
  o.now = now.ns();
  o.instances_in_service = in_service();
  o.instances_desired = desired_;
  o.min_instances = s_.sc.endpoint.min_instances;
  o.max_instances = s_.sc.endpoint.max_instances;
  o.invocations_per_instance = ipi_history_;
  o.last_scale_out = last_scale_out_.ns();
  o.last_scale_in = last_scale_in_.ns();
  o.scale_out_base = scale_out_base_;
  const ps::ScalingDecision d = pol_.scaling->evaluate(o);
  if (d.desired == desired_) return;
  if (d.desired < o.min_instances || d.desired > o.max_instances)
    throw std::logic_error("instance scaling policy '" + std::string(pol_.scaling->name()) + "' wants " +
                           std::to_string(d.desired) + " instances, outside the endpoint's min_instances .. max_instances (" +
                           std::to_string(o.min_instances) + " .. " + std::to_string(o.max_instances) + ")");
  const int before = desired_;
  desired_ = d.desired;
  if (s_.rec) s_.rec->instance_event(InstanceEvent{now, 0, InstanceEvent::Kind::DesiredChanged, desired_, d.reason});
  if (desired_ > before) {
    last_scale_out_ = now;
    // The count this scale-out's cooldown counts added capacity from (the policy's, or the
    // count before it).
    scale_out_base_ = d.scale_out_base >= 0 ? d.scale_out_base : before;
    for (int i = before; i < desired_; ++i) launch_instance(false);
  } else {
    last_scale_in_ = now;
    // Scale in: the newest instances stop receiving requests and terminate once drained.
    int to_remove = before - desired_;
    for (auto it = s_.instances.rbegin(); it != s_.instances.rend() && to_remove > 0; ++it) {
      if (it->state == InstanceState::InService || it->state == InstanceState::Starting) {
        it->state = it->state == InstanceState::Starting ? InstanceState::Terminated : InstanceState::Draining;
        if (it->state == InstanceState::Terminated) it->terminated = now;
        --to_remove;
        maybe_terminate(*it);
      }
    }
  }
}

void InstanceFleet::on_container_started(std::uint32_t id) {
  Instance& in = s_.instances[id];
  if (in.state != InstanceState::Starting) return;  // scaled in while starting
  host_.register_models(in);
}

void InstanceFleet::models_registered(Instance& in) {
  if (in.state != InstanceState::Starting) return;
  // DJL Serving 0.23.0 binds its port only after every startup model is registered
  // (ModelServer.start: initModelStore, then initializeServer), so the first /ping that
  // passes comes after the loads: the health check runs from here.
  s_.sim.schedule_in(s_.sc.endpoint.health_check.draw(s_.rng_endpoint), &instance_up_event_, in.id);
}

void InstanceFleet::on_instance_up(std::uint32_t id) {
  Instance& in = s_.instances[id];
  if (in.state != InstanceState::Starting) return;
  in.state = InstanceState::InService;
  in.in_service_since = s_.sim.now();
  in.cpu.last = s_.sim.now();
  emit_instance(in.id, InstanceEvent::Kind::InService, "health check passed");
}

}  // namespace mltwin::models::inference
