// The multi-model endpoint model: its components (mltwin/models/endpoint/) wired together,
// the end of a run, and what the endpoint reports of itself (stats, invariants, snapshot).
// See mltwin/models/inference.hpp for what it models and mltwin/policy/serving.hpp for the
// rules the policies reproduce.
#include "mltwin/models/inference.hpp"

#include <stdexcept>
#include <string>

#include "mltwin/models/endpoint/endpoint_state.hpp"
#include "mltwin/models/endpoint/instance_fleet.hpp"
#include "mltwin/models/endpoint/model_store.hpp"
#include "mltwin/models/endpoint/processor_sharing.hpp"
#include "mltwin/models/endpoint/router.hpp"
#include "mltwin/models/endpoint/worker_pools.hpp"
#include "mltwin/models/serving_metrics.hpp"

namespace mltwin::models::inference {


std::string autoscaling_policy_name(const InferenceScenario& sc) {
  if (!sc.policies.autoscaling.name.empty()) return sc.policies.autoscaling.name;
  return sc.server.kind == ServerSpec::Kind::Mms ? "mms-static" : "djl-wlm";
}

PolicySet default_policies(const InferenceScenario& sc) {
  const ServingPolicies& c = sc.policies;
  PolicySet p;
  p.autoscaling = ps::autoscaling_registry().make(autoscaling_policy_name(sc), c.autoscaling.arguments);
  p.routing = ps::routing_registry().make(c.routing.name, c.routing.arguments);
  if (c.instance_scaling) p.scaling = ps::instance_scaling_registry().make(c.instance_scaling->name, c.instance_scaling->arguments);
  // Cache policies are made per instance, as each launches.
  auto cache = [](const PolicyChoice& choice) -> std::function<std::unique_ptr<ps::ModelCachePolicy>()> {
    return [choice] { return ps::model_cache_registry().make(choice.name, choice.arguments); };
  };
  p.memory_cache = cache(c.memory_cache);
  p.disk_cache = cache(c.disk_cache);
  return p;
}

/// The endpoint: its state and its components (mltwin/models/endpoint/), wired together. It
/// is each component's host: it forwards what one asks of another, and notes the time of
/// every event.
struct Endpoint::Impl final : PoolHost, StoreHost, FleetHost {
  Impl(core::Simulator& sim, const InferenceScenario& sc, core::RngStreams& rng, ServingRecorder* rec,
       MetricsAggregator* metrics, PolicySet p, EndpointStats& stats)
      : pol(checked(sc, std::move(p))), state(sim, sc, rec, metrics, stats, rng),
        pools(state, *pol.autoscaling, rng.stream("serving.service_time"), cpu, *this), cpu(sim, state.instances, pools),
        store(state, pools, *this), fleet(state, pol, *this), router(state, rng, *pol.routing, store, pools, fleet) {
    // CloudWatch publishes ModelCacheHit for multi-model endpoints only (SageMaker Developer
    // Guide, "CloudWatch metrics for multi-model endpoint deployments"): a SingleModel
    // endpoint's periods carry none (NULL in endpoint_metrics.model_cache_hit).
    if (metrics != nullptr && state.single_model()) metrics->publish_model_cache_hit(false);
  }

  /// The scenario's figures the endpoint relies on, and the policies, checked before any
  /// component is built. Throws std::invalid_argument.
  static PolicySet checked(const InferenceScenario& sc, PolicySet p) {
    if (!sc.instance_type()) throw std::invalid_argument("endpoint instance type '" + sc.endpoint.instance_type + "' is not in the catalog");
    if (sc.models.empty()) throw std::invalid_argument("the endpoint has no models");
    if (!p.autoscaling || !p.routing) throw std::invalid_argument("an autoscaling and a routing policy are required");
    if (sc.server.batch_size < 1) throw std::invalid_argument("batch_size must be >= 1");
    if (sc.server.job_queue_size < 1) throw std::invalid_argument("job_queue_size must be >= 1");
    if (sc.endpoint.mode == EndpointSpec::Mode::SingleModel) {
      // A SingleModel endpoint: load_models of existing models, which fit the instance (the
      // scenario loader says so first, with the JSON path).
      const InstanceType& t = *sc.instance_type();
      if (sc.server.load_models.empty()) throw std::invalid_argument("a SingleModel endpoint needs server.load_models");
      for (ModelId m : sc.server.load_models)
        if (m >= sc.models.size()) throw std::invalid_argument("load_models names model " + std::to_string(m) + ", which does not exist");
      if (load_models_peak_memory(sc, t) > instance_model_memory(sc, t))
        throw std::invalid_argument("load_models need more memory than the instance has for models");
      std::uint64_t artifacts = 0;
      for (const ModelSpec& m : sc.models) artifacts += m.artifact_bytes;
      if (artifacts > sc.model_storage_bytes()) throw std::invalid_argument("the model artifacts do not fit the instance's storage");
    } else if (!sc.server.load_models.empty()) {
      throw std::invalid_argument("server.load_models applies to a SingleModel endpoint only");
    }
    return p;
  }

  // PoolHost, StoreHost
  void answer(std::uint32_t r, int status, std::uint16_t batch) override { router.answer(r, status, batch); }
  bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep) override { return store.make_room(in, need, keep); }
  void pool_changed(std::uint32_t pid) override { store.pool_changed(pid); }
  void maybe_terminate(Instance& in) override { fleet.maybe_terminate(in); }
  void models_registered(Instance& in) override { fleet.models_registered(in); }
  // FleetHost
  bool traffic_active() const override { return router.traffic_active(); }
  void register_models(Instance& in) override { store.register_models(in); }
  void register_models_now(Instance& in) override { store.register_models_now(in); }
  PolicySet pol;
  EndpointState state;
  // The pools before the CPU: the CPU takes the pools as its CpuListener (a conversion to a
  // base, which needs a constructed object); the pools keep only a reference to the CPU.
  WorkerPools pools;
  ProcessorSharing cpu;
  ModelStore store;
  InstanceFleet fleet;
  Router router;
  bool finished = false;
};

Endpoint::Endpoint(core::Simulator& sim, const InferenceScenario& sc, core::RngStreams& rng,
                   ServingRecorder* recorder, MetricsAggregator* metrics, PolicySet policies)
    : impl_(std::make_unique<Impl>(sim, sc, rng, recorder, metrics, std::move(policies), stats_)) {}

core::Time Endpoint::last_event() const { return impl_->state.last_event; }

Endpoint::~Endpoint() = default;

void Endpoint::start() {
  Impl& m = *impl_;
  m.fleet.start();
  m.router.start();
  m.fleet.schedule_tick();
}

void Endpoint::finish() { finish(impl_->state.sim.now()); }

void Endpoint::finish(Time now) {
  Impl& m = *impl_;
  if (m.finished) return;
  if (now > m.state.sim.now()) throw std::invalid_argument("Endpoint::finish: end is after the simulated time reached");
  m.finished = true;
  // Requests still in flight are unserved at the end: reported once each, with status 0.
  stats_.unserved_at_end = stats_.in_flight;
  const EndpointState& s = m.state;
  std::vector<bool> is_free(s.reqs.size(), false);
  for (std::uint32_t r : s.free_reqs) is_free[r] = true;
  for (std::uint32_t r = 0; r < s.reqs.size(); ++r) {
    if (is_free[r]) continue;
    const Request& q = s.reqs[r];
    if (!q.caller_waiting) continue;  // timed out (424): its caller has its answer
    RequestDone d;
    d.id = q.id; d.model = q.model; d.instance = q.instance; d.arrival = q.arrival; d.done = now; d.status = 0;
    d.cache_hit_published = !s.single_model();
    if (s.metrics) s.metrics->request(d);
    if (s.rec) s.rec->request(d);
  }
  m.fleet.close_periods_at_end(now);
  account_instances(now);
}

void Endpoint::account_instances(Time now) const {
  const EndpointState& m = impl_->state;
  double secs = 0;
  for (const auto& in : m.instances) {
    const Time end = in.terminated == Time::max() ? now : in.terminated;
    secs += (end - in.launched).seconds();
  }
  stats_.instance_seconds = secs;
  stats_.cost_usd = secs * m.itype->on_demand_usd_per_hour / 3600.0;
}

const EndpointStats& Endpoint::stats() const {
  if (!impl_->finished) account_instances(impl_->state.sim.now());
  return stats_;
}

void Endpoint::check_invariants() const {
  const EndpointState& m = impl_->state;
  auto fail = [](const std::string& s) { throw std::logic_error("inference invariant: " + s); };
  std::uint64_t live_reqs = m.reqs.size() - m.free_reqs.size();
  if (live_reqs != stats_.in_flight + stats_.abandoned_in_container)
    fail("live requests " + std::to_string(live_reqs) + " != in flight " + std::to_string(stats_.in_flight) +
         " + abandoned in a container " + std::to_string(stats_.abandoned_in_container));
  if (stats_.requests != stats_.served + stats_.rejected_503 + stats_.rejected_507 + stats_.timed_out_424 +
                             stats_.not_ready_429 + stats_.not_found_404 + stats_.in_flight)
    fail("requests are not all accounted for");
  int workers = 0;
  for (const auto& in : m.instances) {
    if (in.mem_used > in.mem_cap) fail("instance " + std::to_string(in.id) + " memory over capacity");
    if (in.disk_used > in.disk_cap) fail("instance " + std::to_string(in.id) + " disk over capacity");
    if (in.cpu.busy != static_cast<int>(in.cpu.running.size())) fail("cpu busy count");
    std::uint64_t mem = 0;
    for (std::uint32_t mid = 0; mid < in.models.size(); ++mid) {
      const auto& mi = in.models[mid];
      if (mi.state == ModelState::Loaded) {
        const auto& p = m.pools[mi.pool];
        if (!p.live) fail("loaded model without a live pool");
        if (p.queue.size() > static_cast<std::size_t>(m.sc.server.job_queue_size)) fail("job queue over job_queue_size");
        mem += p.workers.size() * m.sc.models[mid].resident_bytes;
        workers += static_cast<int>(p.workers.size());
        int busy = 0, started = 0, starting = 0;
        for (std::uint32_t w : p.workers) {
          const auto s = m.workers[w].state;
          busy += s == WorkerState::Busy;
          started += s == WorkerState::Waiting || s == WorkerState::Aggregating;
          starting += s == WorkerState::Starting;
        }
        if (busy != p.busy || started != p.started || starting != p.starting) fail("worker state counts");
      } else if (mi.state == ModelState::Loading) {
        mem += mi.reserved;
      }
    }
    if (mem != in.mem_used) fail("instance " + std::to_string(in.id) + " memory accounting " + std::to_string(mem) + " != " + std::to_string(in.mem_used));
  }
  if (workers != m.running_workers) fail("running worker count");
}

std::vector<InstanceSnapshot> Endpoint::snapshot() const {
  const EndpointState& m = impl_->state;
  static constexpr const char* kIState[] = {"Starting", "InService", "Draining", "Terminated"};
  std::vector<InstanceSnapshot> out;
  out.reserve(m.instances.size());
  for (const auto& in : m.instances) {
    InstanceSnapshot s;
    s.id = in.id;
    s.state = kIState[static_cast<int>(in.state)];
    s.launched = in.launched;
    s.memory_used = in.mem_used;
    s.memory_capacity = in.mem_cap;
    s.disk_used = in.disk_used;
    s.disk_capacity = in.disk_cap;
    s.vcpu = in.cpu.vcpu;
    s.batches_running = in.cpu.busy;
    s.outstanding = in.outstanding;
    for (std::uint32_t mid = 0; mid < in.models.size(); ++mid) {
      const auto& mi = in.models[mid];
      s.artifacts_on_disk += mi.on_disk ? 1 : 0;
      if (!present(mi.state)) continue;
      ModelSnapshot ms;
      ms.model = mid;
      ms.state = mi.state == ModelState::Downloading ? "Downloading" : mi.state == ModelState::Loading ? "Loading" : "Loaded";
      ms.waiting_for_load = mi.pending.size();
      if (mi.state == ModelState::Loaded) {
        const auto& p = m.pools[mi.pool];
        ms.workers = static_cast<int>(p.workers.size());
        ms.workers_busy = p.busy;
        ms.workers_starting = p.starting;
        ms.queue = p.queue.size();
        ms.outstanding = p.outstanding;
      }
      s.models.push_back(ms);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mltwin::models::inference
