// The multi-model endpoint model. See mltwin/models/inference.hpp for what it models and
// mltwin/policy/serving.hpp for the rules the policies reproduce.
#include "mltwin/models/inference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mltwin/core/event.hpp"
#include "mltwin/models/detail/fast_draw.hpp"
#include "mltwin/models/detail/inline_containers.hpp"
#include "mltwin/models/serving_metrics.hpp"
#include "mltwin/models/traffic.hpp"

namespace mltwin::models::inference {

namespace ps = policy::serving;
using core::Engine;

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

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;
}  // namespace

struct Endpoint::Impl final : FrontEnd {
  // ---------------------------------------------------------------- state
  enum class MState : std::uint8_t { Absent, Downloading, OnDisk, Loading, Loaded };
  struct ModelOnInstance {
    MState state = MState::Absent;
    bool on_disk = false;
    std::uint32_t pool = kNone;
    Time phase_start;                 // download / load start
    std::uint64_t reserved = 0;       // memory reserved by a load in progress
    std::vector<std::uint32_t> pending;  // requests waiting for the load
  };
  enum class IState : std::uint8_t { Starting, InService, Draining, Terminated };
  struct BatchRef {
    double vfinish;
    std::uint64_t seq;
    std::uint32_t worker;
    bool operator>(const BatchRef& o) const { return vfinish != o.vfinish ? vfinish > o.vfinish : seq > o.seq; }
  };
  struct Instance {
    std::uint32_t id = 0;
    IState state = IState::Starting;
    Time launched, terminated = Time::max();
    Time in_service_since = Time::max();  // when it passed its health check
    std::uint64_t mem_cap = 0, mem_used = 0, disk_cap = 0, disk_used = 0;
    int vcpu = 1;
    int outstanding = 0;              // requests routed here and not answered
    int models_loaded = 0;
    int loads_in_progress = 0;
    std::vector<ModelOnInstance> models;
    std::unique_ptr<ps::ModelCachePolicy> mem_cache, disk_cache;
    // CPU processor sharing
    int busy = 0;                     // batches running
    double vclock = 0;                // virtual time: each running batch has received this much CPU
    Time last;                        // when vclock was last advanced
    std::priority_queue<BatchRef, std::vector<BatchRef>, std::greater<>> running;
    core::EventId cpu_event;
    double busy_core_ns = 0;          // ∫ min(busy, vcpu) dt, for CPUUtilization
  };
  // Between: at the top of WorkerThread's loop (counted nowhere), only inside worker_free().
  enum class WState : std::uint8_t { Starting, Waiting, Aggregating, Busy, Between, Retired };
  struct Worker {
    std::uint32_t pool = kNone;
    WState state = WState::Starting;
    bool temporary = false;
    Time idle_since;
    Time batch_deadline;
    core::EventId timer;              // ready / poll deadline / batch deadline
    std::uint32_t ticket = 0;         // invalidates stale poller entries
    detail::SmallVec<std::uint32_t, 4> batch;
  };
  struct Poller {
    std::uint32_t worker, ticket;
  };
  /// The per-request draws of a model, set up once (detail/fast_draw.hpp).
  struct ServiceDraw {
    detail::LatencyDraw base;
    double batch_marginal = 1.0;
  };
  // Cache-line aligned, what every request touches first: a request's trip through its pool
  // then costs one or two cache misses (1,240 pools in the blog scenario).
  struct alignas(64) Pool {
    std::uint32_t instance = 0, model = 0;
    int starting = 0, busy = 0, started = 0;  // started = waiting + aggregating (DJL WORKER_STARTED)
    int outstanding = 0;              // queued + in batches
    bool live = false;
    std::vector<std::uint32_t> workers;  // running (not retired)
    detail::InlineRing<Poller, 4> pollers;      // longest waiting first
    detail::InlineRing<std::uint32_t, 4> queue;  // job queue (request slots)
    ServiceDraw service;              // the model's service time (a copy of service_draws[model])
  };
  struct Request {
    std::uint64_t id = 0;
    std::uint32_t model = 0;
    std::int32_t instance = -1;
    std::int32_t user = -1;
    Time arrival, reach, container, taken;
    std::int64_t loading_wait = 0;
    bool hit = false;
  };

  Endpoint& self;
  core::Simulator& sim;
  const InferenceScenario& sc;
  ServingRecorder* rec;
  MetricsAggregator* metrics;
  PolicySet pol;
  EndpointStats& st;
  const InstanceType* itype = nullptr;
  std::uint64_t storage_bytes = 0;  // per instance, for model artifacts (InferenceScenario::model_storage_bytes)

  Engine& rng_service;
  Engine& rng_overhead;
  Engine& rng_endpoint;

  std::vector<Instance> instances;
  std::vector<Worker> workers;
  std::vector<std::uint32_t> free_workers;
  std::vector<Pool> pools;
  std::vector<std::uint32_t> free_pools;
  std::vector<Request> reqs;
  std::vector<std::uint32_t> free_reqs;
  std::uint64_t next_request_id = 0;
  int running_workers = 0;
  int desired = 0;
  Time last_scale_out = Time::from_ns(-ps::kNever), last_scale_in = Time::from_ns(-ps::kNever);  // never
  std::vector<double> ipi_history;    // InvocationsPerInstance per completed minute
  std::uint64_t minute_invocations = 0;
  Time period_start;                  // of the open metrics period
  bool ticking = false;               // a metrics tick is scheduled
  bool finished = false;
  std::vector<ps::InstanceView> hviews;  // scratch for routing: the model's in-service holders
  /// Every in-service instance, for a router placing a new copy (built on demand).
  struct Fleet final : ps::InstanceList {
    const Impl* impl = nullptr;
    std::uint32_t model = 0;
    mutable std::vector<ps::InstanceView> views;
    std::span<const ps::InstanceView> all() const override {
      views.clear();
      for (const Instance& in : impl->instances) {
        if (in.state != IState::InService) continue;
        ps::InstanceView v = base_view(in);
        const ModelOnInstance& mi = in.models[model];
        v.model_present = present(mi.state);
        if (mi.state == MState::Loaded) {
          v.model_outstanding = impl->pools[mi.pool].outstanding;
          v.model_workers = static_cast<int>(impl->pools[mi.pool].workers.size());
        } else if (v.model_present) {
          v.model_outstanding = static_cast<int>(mi.pending.size());
        }
        views.push_back(v);
      }
      return views;
    }
  } fleet;
  static ps::InstanceView base_view(const Instance& in) {
    ps::InstanceView v;
    v.instance = in.id;
    v.outstanding = in.outstanding;
    v.memory_free = in.mem_cap > in.mem_used ? in.mem_cap - in.mem_used : 0;
    v.models_loaded = in.models_loaded;
    return v;
  }
  struct Holder {
    std::uint32_t instance;
    std::uint32_t pool;  // kNone while downloading or loading
  };
  std::vector<detail::SmallVec<Holder, 2>> holders;  // per model: instances where it is present, by id
  std::vector<ps::ModelId> victims;     // scratch for cache decisions

  std::unique_ptr<TrafficSource> traffic;  // traffic.hpp: the requests that reach the endpoint

  Impl(Endpoint& e, core::Simulator& s, const InferenceScenario& scenario, core::RngStreams& rng,
       ServingRecorder* r, MetricsAggregator* m, PolicySet p, EndpointStats& stats)
      : self(e), sim(s), sc(scenario), rec(r), metrics(m), pol(std::move(p)), st(stats),
        rng_service(rng.stream("serving.service_time")), rng_overhead(rng.stream("endpoint.overhead")),
        rng_endpoint(rng.stream("endpoint.latencies")), traffic(make_traffic_source(sc, s, rng, *this)) {
    itype = sc.instance_type();
    storage_bytes = sc.model_storage_bytes();
    holders.resize(sc.models.size());
    fleet.impl = this;
    overhead_draw = detail::LatencyDraw(sc.endpoint.overhead);
    service_draws.reserve(sc.models.size());
    for (const ModelSpec& spec : sc.models) service_draws.push_back(ServiceDraw{detail::LatencyDraw(spec.service.base), spec.service.batch_marginal});
    if (!itype) throw std::invalid_argument("endpoint instance type '" + sc.endpoint.instance_type + "' is not in the catalog");
    if (sc.models.empty()) throw std::invalid_argument("the endpoint has no models");
    if (!pol.autoscaling || !pol.routing) throw std::invalid_argument("an autoscaling and a routing policy are required");
    if (sc.server.batch_size < 1) throw std::invalid_argument("batch_size must be >= 1");
    if (sc.server.job_queue_size < 1) throw std::invalid_argument("job_queue_size must be >= 1");
  }

  // ---------------------------------------------------------------- helpers
  int min_workers() const {
    if (sc.server.kind == ServerSpec::Kind::Mms) return max_workers();
    return sc.server.min_workers;
  }
  int max_workers() const {
    if (sc.server.kind == ServerSpec::Kind::Mms)
      return sc.server.mms_workers_per_model > 0 ? sc.server.mms_workers_per_model : itype->vcpu;
    if (sc.server.max_workers > 0) return sc.server.max_workers;
    // WlmConfigManager.getDefaultMaxWorkers (CPU): cpuCores / OMP_NUM_THREADS when set.
    const int omp = std::min(std::max(sc.server.omp_num_threads, 1), itype->vcpu);
    return std::max(1, itype->vcpu / omp);
  }
  std::uint64_t model_memory_for_load(std::uint32_t m) const {
    return sc.models[m].resident_bytes * static_cast<std::uint64_t>(std::max(min_workers(), 1));
  }
  Duration draw(const LatencySpec& l, Engine& e) const { return l.draw(e); }
  /// The per-request draws, set up once: OverheadLatency, and each model's service time.
  detail::LatencyDraw overhead_draw;
  std::vector<ServiceDraw> service_draws;  // per model

  std::uint32_t new_request() {
    std::uint32_t s;
    if (!free_reqs.empty()) { s = free_reqs.back(); free_reqs.pop_back(); }
    else { s = static_cast<std::uint32_t>(reqs.size()); reqs.emplace_back(); }
    reqs[s] = Request{};
    reqs[s].id = next_request_id++;
    return s;
  }

  // ---------------------------------------------------------------- instances
  std::uint32_t launch_instance(bool in_service_now) {
    Instance in;
    in.id = static_cast<std::uint32_t>(instances.size());
    in.launched = sim.now();
    in.last = sim.now();
    const std::uint64_t reserve = sc.endpoint.memory_reserved_bytes;
    in.mem_cap = itype->memory_bytes() > reserve ? itype->memory_bytes() - reserve : 0;
    in.disk_cap = storage_bytes;
    in.vcpu = std::max(1, itype->vcpu);
    in.models.resize(sc.models.size());
    in.mem_cache = pol.memory_cache();
    in.disk_cache = pol.disk_cache();
    instances.push_back(std::move(in));
    ++st.instances_launched;
    const std::uint32_t id = instances.back().id;
    emit_instance(id, InstanceEvent::Kind::Launched, "launched");
    if (in_service_now) {
      instances[id].state = IState::InService;
      instances[id].in_service_since = sim.now();
      emit_instance(id, InstanceEvent::Kind::InService, "initial fleet");
    } else {
      const Duration up = draw(sc.endpoint.instance_startup, rng_endpoint) + draw(sc.endpoint.health_check, rng_endpoint);
      sim.schedule_in(up, &instance_up_event, id);
    }
    return id;
  }
  void emit_instance(std::uint32_t id, InstanceEvent::Kind k, std::string_view why) {
    if (rec) rec->instance_event(InstanceEvent{sim.now(), id, k, desired, why});
  }
  int in_service() const {
    int n = 0;
    for (const auto& in : instances) n += in.state == IState::InService;
    return n;
  }
  void maybe_terminate(Instance& in) {
    if (in.state != IState::Draining || in.outstanding > 0 || in.loads_in_progress > 0) return;
    in.state = IState::Terminated;
    in.terminated = sim.now();
    emit_instance(in.id, InstanceEvent::Kind::Terminated, "scale-in");
  }

  // ---------------------------------------------------------------- CPU (processor sharing)
  double rate(const Instance& in) const {
    return in.busy <= in.vcpu ? 1.0 : static_cast<double>(in.vcpu) / static_cast<double>(in.busy);
  }
  void cpu_advance(Instance& in) { cpu_advance_to(in, sim.now()); }
  /// Advances the instance's CPU clock to `now` (no later than the next event: the batches
  /// running do not change until then).
  void cpu_advance_to(Instance& in, Time now) {
    if (now > in.last) {
      const double dt = static_cast<double>(now.ns() - in.last.ns());
      if (in.busy > 0) {
        in.vclock += dt * rate(in);
        in.busy_core_ns += dt * static_cast<double>(std::min(in.busy, in.vcpu));
      }
      in.last = now;
    }
  }
  void cpu_retime(Instance& in) {
    if (in.running.empty()) {
      if (in.cpu_event.valid()) sim.cancel(in.cpu_event);
      in.cpu_event = {};
      return;
    }
    const double left = std::max(0.0, in.running.top().vfinish - in.vclock);
    const double real = std::ceil(left / rate(in));
    const Time t = sim.now() + Duration::ns(static_cast<std::int64_t>(real));
    if (in.cpu_event.valid() && sim.pending(in.cpu_event)) {
      if (sim.time_of(in.cpu_event) != t) sim.reschedule(in.cpu_event, t);
    } else {
      in.cpu_event = sim.schedule(t, &cpu_done_event, in.id);
    }
  }
  std::uint64_t cpu_seq = 0;
  std::vector<std::uint32_t> cpu_done_scratch;  // on_cpu_done's finished batches
  void cpu_start(Instance& in, std::uint32_t w, std::int64_t work_ns) {
    cpu_advance(in);
    ++in.busy;
    in.running.push(BatchRef{in.vclock + static_cast<double>(std::max<std::int64_t>(work_ns, 1)), cpu_seq++, w});
    cpu_retime(in);
  }
  void on_cpu_done(std::uint32_t iid) {
    Instance& in = instances[iid];
    in.cpu_event = {};
    cpu_advance(in);
    // Every batch whose virtual finish has been reached ends now (1e-3 virtual ns absorbs the
    // rounding of the ceil above under contention; without contention all values are integers).
    // batch_done() never re-enters on_cpu_done (a CPU completion is always an event of its
    // own), so one scratch vector serves every call.
    cpu_done_scratch.clear();
    while (!in.running.empty() && in.running.top().vfinish <= in.vclock + 1e-3) {
      cpu_done_scratch.push_back(in.running.top().worker);
      in.running.pop();
      --in.busy;
    }
    cpu_retime(in);
    for (std::size_t i = 0; i < cpu_done_scratch.size(); ++i) batch_done(cpu_done_scratch[i]);
  }

  // ---------------------------------------------------------------- workers
  std::uint32_t new_worker(std::uint32_t pool, bool temporary) {
    std::uint32_t w;
    if (!free_workers.empty()) { w = free_workers.back(); free_workers.pop_back(); }
    else { w = static_cast<std::uint32_t>(workers.size()); workers.emplace_back(); }
    Worker& k = workers[w];
    const std::uint32_t ticket = k.ticket + 1;
    k = Worker{};
    k.ticket = ticket;
    k.pool = pool;
    k.temporary = temporary;
    k.idle_since = sim.now();  // TemporaryBatchAggregator: idleSince = creation time
    pools[pool].workers.push_back(w);
    ++running_workers;
    st.max_workers_seen = std::max(st.max_workers_seen, running_workers);
    return w;
  }
  void emit_worker(const Pool& p, WorkerEvent::Kind k, bool temporary, std::string_view why) {
    if (rec) rec->worker_event(WorkerEvent{sim.now(), p.instance, p.model, k, temporary, static_cast<int>(p.workers.size()), why});
  }

  /// Adds one temporary worker to `pool` (DJL pool.addThreads()), if memory allows.
  void add_worker(std::uint32_t pid, std::string_view why) {
    Pool& p = pools[pid];
    Instance& in = instances[p.instance];
    const std::uint64_t need = sc.models[p.model].resident_bytes;
    if (!make_room(in, need, p.model)) {
      ++st.scale_ups_skipped;
      emit_worker(p, WorkerEvent::Kind::ScaleUpSkipped, true, "no memory for another worker process");
      return;
    }
    in.mem_used += need;
    in.mem_cache->on_resize(p.model, (p.workers.size() + 1) * need);
    const std::uint32_t w = new_worker(pid, true);
    ++pools[pid].starting;
    ++st.workers_added;
    emit_worker(pools[pid], WorkerEvent::Kind::Added, true, why);
    workers[w].timer = sim.schedule_in(draw(sc.server.worker_startup, rng_endpoint), &worker_ready_event, w);
  }

  void retire_worker(std::uint32_t w, WorkerEvent::Kind kind, std::string_view why) {
    Worker& k = workers[w];
    Pool& p = pools[k.pool];
    Instance& in = instances[p.instance];
    if (k.state == WState::Waiting || k.state == WState::Aggregating) --p.started;
    if (k.state == WState::Starting) --p.starting;
    if (k.timer.valid()) sim.cancel(k.timer);
    k.timer = {};
    k.state = WState::Retired;
    ++k.ticket;
    // From the back: unload_model retires a pool's workers last first (MMS: 72 per unload).
    p.workers.erase(std::find(p.workers.rbegin(), p.workers.rend(), w).base() - 1);
    --running_workers;
    const std::uint64_t res = sc.models[p.model].resident_bytes;
    in.mem_used -= res;
    in.mem_cache->on_resize(p.model, p.workers.size() * res);
    if (kind == WorkerEvent::Kind::Retired) ++st.workers_retired;
    if (kind != WorkerEvent::Kind::Stopped) emit_worker(p, kind, k.temporary, why);  // a pool's stop is one event
    free_workers.push_back(w);
  }

  /// The worker is at the top of DJL's WorkerThread loop: ask whether it retires, then poll.
  void worker_free(std::uint32_t w, bool poll_timed_out = false) {
    Worker& k = workers[w];
    Pool& p = pools[k.pool];
    const ps::WorkerDecision d = pol.autoscaling->on_worker_free(ps::WorkerObservation{
        sim.now().ns(), k.idle_since.ns(), k.temporary, sc.server.max_idle_time.count_ns(), poll_timed_out});
    if (d.retire) {
      retire_worker(w, WorkerEvent::Kind::Retired, "idle longer than max_idle_time");
      after_pool_change(k.pool);
      return;
    }
    k.state = WState::Waiting;
    ++p.started;
    if (!p.queue.empty()) {
      const std::uint32_t r = p.queue.front();
      p.queue.pop_front();
      take_first_job(w, r);
      return;
    }
    p.pollers.emplace_back(w, k.ticket);
    if (d.poll_deadline != ps::kNever)
      k.timer = sim.schedule(Time::from_ns(d.poll_deadline), &poll_deadline_event, w);
  }

  /// A waiting worker received its first job: drain the queue up to batch_size, then run or
  /// keep aggregating (BatchAggregator.drainTo).
  void take_first_job(std::uint32_t w, std::uint32_t r) {
    Worker& k = workers[w];
    Pool& p = pools[k.pool];
    if (k.timer.valid()) sim.cancel(k.timer);
    k.timer = {};
    ++k.ticket;  // leaves the poll queue
    k.batch.clear();
    k.batch.push_back(r);
    reqs[r].taken = sim.now();
    const std::size_t b = static_cast<std::size_t>(sc.server.batch_size);
    while (k.batch.size() < b && !p.queue.empty()) {
      const std::uint32_t q = p.queue.front();
      p.queue.pop_front();
      reqs[q].taken = sim.now();
      k.batch.push_back(q);
    }
    if (k.batch.size() >= b || sc.server.max_batch_delay.count_ns() <= 0) {
      run_batch(w);
      return;
    }
    k.state = WState::Aggregating;
    k.batch_deadline = sim.now() + sc.server.max_batch_delay;
    k.timer = sim.schedule(k.batch_deadline, &batch_deadline_event, w);
    p.pollers.emplace_back(w, k.ticket);
  }

  /// Gives queued jobs to pollers, longest-waiting first.
  void dispatch(std::uint32_t pid) {
    Pool& p = pools[pid];
    while (!p.queue.empty() && !p.pollers.empty()) {
      const auto [w, ticket] = p.pollers.front();
      p.pollers.pop_front();
      Worker& k = workers[w];
      if (k.ticket != ticket || (k.state != WState::Waiting && k.state != WState::Aggregating)) continue;
      const std::uint32_t r = p.queue.front();
      p.queue.pop_front();
      if (k.state == WState::Waiting) {
        take_first_job(w, r);
      } else {
        reqs[r].taken = sim.now();
        k.batch.push_back(r);
        if (k.batch.size() >= static_cast<std::size_t>(sc.server.batch_size) || sim.now() >= k.batch_deadline) {
          if (k.timer.valid()) sim.cancel(k.timer);
          k.timer = {};
          ++k.ticket;
          run_batch(w);
        } else {
          p.pollers.emplace_back(w, k.ticket);  // polls again, at the back of the queue
        }
      }
    }
  }

  void run_batch(std::uint32_t w) {
    Worker& k = workers[w];
    Pool& p = pools[k.pool];
    --p.started;
    ++p.busy;
    k.state = WState::Busy;
    ++k.ticket;
    k.idle_since = sim.now();  // TemporaryBatchAggregator.pollBatch: idleSince after the drain
    ++st.batches;
    const ServiceDraw& svc = p.service;
    const double base = static_cast<double>(svc.base(rng_service).count_ns());
    const double k1 = static_cast<double>(k.batch.size() - 1);
    const auto work = static_cast<std::int64_t>(std::llround(base * (1.0 + svc.batch_marginal * k1)));
    cpu_start(instances[p.instance], w, work);
  }

  void batch_done(std::uint32_t w) {
    Worker& k = workers[w];
    const std::uint32_t pid = k.pool;
    Pool& p = pools[pid];
    --p.busy;
    k.state = WState::Between;
    const auto bsize = static_cast<std::uint16_t>(k.batch.size());
    for (std::uint32_t r : k.batch) {
      --p.outstanding;
      answer(r, 200, bsize);
    }
    k.batch.clear();
    worker_free(w);
    after_pool_change(pid);
  }

  /// After a pool went idle: with ModelCacheSetting Disabled the model leaves the instance.
  void after_pool_change(std::uint32_t pid) {
    Pool& p = pools[pid];
    if (!p.live) return;
    Instance& in = instances[p.instance];
    if (!sc.endpoint.model_cache_enabled && pool_idle(p)) {
      unload_model(in, p.model, "ModelCacheSetting Disabled");
      if (in.models[p.model].on_disk) delete_artifact(in, p.model, "ModelCacheSetting Disabled");
    }
    maybe_terminate(in);
  }
  bool pool_idle(const Pool& p) const { return p.outstanding == 0 && p.starting == 0 && p.busy == 0; }

  static bool present(MState s) { return s == MState::Downloading || s == MState::Loading || s == MState::Loaded; }
  /// Changes a model's state on an instance, keeping holders[model] (the instances where it is
  /// present: downloading, loading or loaded) in step, so routing visits only those.
  void set_state(Instance& in, std::uint32_t m, MState to) {
    ModelOnInstance& mi = in.models[m];
    const bool was = present(mi.state), is = present(to);
    mi.state = to;
    auto& h = holders[m];
    auto at = std::lower_bound(h.begin(), h.end(), in.id, [](const Holder& x, std::uint32_t id) { return x.instance < id; });
    if (was && is) {
      at->pool = to == MState::Loaded ? mi.pool : kNone;
    } else if (is) {
      h.insert(at, Holder{in.id, to == MState::Loaded ? mi.pool : kNone});
    } else if (was) {
      h.erase(at);
    }
  }

  // ---------------------------------------------------------------- model cache
  struct Guard final : ps::EvictionGuard {
    const Impl* impl;
    const Instance* in;
    std::uint32_t keep;
    bool disk;
    bool evictable(ps::ModelId m) const override {
      if (m == keep) return false;
      const ModelOnInstance& mi = in->models[m];
      if (disk) return mi.state == MState::OnDisk;  // not loaded, not loading, not downloading
      if (mi.state != MState::Loaded || !mi.pending.empty()) return false;
      return impl->pool_idle(impl->pools[mi.pool]);
    }
  };

  /// Frees memory for `need` more bytes on `in` by unloading idle models (never `keep`).
  bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep) {
    if (in.mem_used + need <= in.mem_cap) return true;
    if (need > in.mem_cap) return false;
    victims.clear();
    Guard g{};
    g.impl = this; g.in = &in; g.keep = keep; g.disk = false;
    if (!in.mem_cache->choose_victims(in.mem_used + need - in.mem_cap, sim.now().ns(), g, victims)) return false;
    const std::vector<ps::ModelId> chosen = victims;
    for (ps::ModelId v : chosen) unload_model(in, v, "memory needed by another model");
    return in.mem_used + need <= in.mem_cap;
  }
  bool make_disk_room(Instance& in, std::uint64_t need, std::uint32_t keep) {
    if (in.disk_used + need <= in.disk_cap) return true;
    if (need > in.disk_cap) return false;
    victims.clear();
    Guard g{};
    g.impl = this; g.in = &in; g.keep = keep; g.disk = true;
    if (!in.disk_cache->choose_victims(in.disk_used + need - in.disk_cap, sim.now().ns(), g, victims)) return false;
    const std::vector<ps::ModelId> chosen = victims;
    for (ps::ModelId v : chosen) delete_artifact(in, v, "disk space needed");
    return in.disk_used + need <= in.disk_cap;
  }
  void delete_artifact(Instance& in, std::uint32_t m, std::string_view why) {
    ModelOnInstance& mi = in.models[m];
    mi.on_disk = false;
    in.disk_used -= sc.models[m].artifact_bytes;
    in.disk_cache->on_remove(m);
    if (mi.state == MState::OnDisk) set_state(in, m, MState::Absent);
    ++st.artifacts_deleted;
    if (rec) rec->model_event(ModelEvent{sim.now(), in.id, m, ModelEvent::Kind::ArtifactDeleted, sc.models[m].artifact_bytes, 0, why});
  }
  void unload_model(Instance& in, std::uint32_t m, std::string_view why) {
    ModelOnInstance& mi = in.models[m];
    Pool& p = pools[mi.pool];
    while (!p.workers.empty()) retire_worker(p.workers.back(), WorkerEvent::Kind::Stopped, "model unloaded");
    emit_worker(p, WorkerEvent::Kind::Stopped, false, "model unloaded: all its workers stopped");
    p.live = false;
    p.queue.clear();
    p.pollers.clear();
    free_pools.push_back(mi.pool);
    mi.pool = kNone;
    set_state(in, m, mi.on_disk ? MState::OnDisk : MState::Absent);
    in.mem_cache->on_remove(m);
    if (mi.on_disk) in.disk_cache->on_access(m, sim.now().ns());  // last use of the artifact
    --in.models_loaded;
    ++st.unloads;
    const Duration d = draw(sc.endpoint.unload, rng_endpoint);
    if (metrics) metrics->unload_done(sim.now(), d);
    if (rec) rec->model_event(ModelEvent{sim.now(), in.id, m, ModelEvent::Kind::Unloaded, 0, d.count_ns(), why});
  }

  // ---------------------------------------------------------------- load path
  void fail_pending(Instance& in, std::uint32_t m, std::string_view why) {
    ModelOnInstance& mi = in.models[m];
    ++st.load_failures;
    if (rec) rec->model_event(ModelEvent{sim.now(), in.id, m, ModelEvent::Kind::LoadFailed, model_memory_for_load(m), 0, why});
    std::vector<std::uint32_t> waiting;
    waiting.swap(mi.pending);
    for (std::uint32_t r : waiting) {
      reqs[r].loading_wait = sim.now().ns() - reqs[r].container.ns();
      answer(r, 507, 0);
    }
  }

  void start_load(Instance& in, std::uint32_t m, std::uint32_t r) {
    ModelOnInstance& mi = in.models[m];
    mi.pending.push_back(r);
    const ModelSpec& spec = sc.models[m];
    if (model_memory_for_load(m) > in.mem_cap) {
      fail_pending(in, m, "model needs more memory than the instance has");
      return;
    }
    if (!mi.on_disk) {
      if (!make_disk_room(in, spec.artifact_bytes, m)) {
        fail_pending(in, m, "no disk space for the model artifact");
        return;
      }
      in.disk_used += spec.artifact_bytes;
      set_state(in, m, MState::Downloading);
      mi.phase_start = sim.now();
      ++in.loads_in_progress;
      ++st.downloads;
      if (rec) rec->model_event(ModelEvent{sim.now(), in.id, m, ModelEvent::Kind::DownloadStart, spec.artifact_bytes, 0, {}});
      const double secs = sc.endpoint.s3_download_gbps > 0
                              ? static_cast<double>(spec.artifact_bytes) * 8.0 / (sc.endpoint.s3_download_gbps * 1e9)
                              : 0.0;
      const Duration d = draw(sc.endpoint.s3_first_byte, rng_endpoint) + Duration::from_seconds(secs);
      sim.schedule_in(d, &download_done_event, download_done_event.payload(in.id, m));
      return;
    }
    ++in.loads_in_progress;
    begin_memory_load(in, m);
  }

  void on_download_done(std::uint32_t iid, std::uint32_t m) {
    Instance& in = instances[iid];
    ModelOnInstance& mi = in.models[m];
    mi.on_disk = true;
    in.disk_cache->on_insert(m, sc.models[m].artifact_bytes, sim.now().ns());
    const std::int64_t d = sim.now().ns() - mi.phase_start.ns();
    if (metrics) metrics->download_done(sim.now(), Duration::ns(d));
    if (rec) rec->model_event(ModelEvent{sim.now(), iid, m, ModelEvent::Kind::Downloaded, sc.models[m].artifact_bytes, d, {}});
    begin_memory_load(in, m);
  }

  void begin_memory_load(Instance& in, std::uint32_t m) {
    ModelOnInstance& mi = in.models[m];
    const std::uint64_t need = model_memory_for_load(m);
    if (!make_room(in, need, m)) {
      set_state(in, m, mi.on_disk ? MState::OnDisk : MState::Absent);
      --in.loads_in_progress;
      fail_pending(in, m, "memory exhausted: the models holding it are in use");
      maybe_terminate(in);
      return;
    }
    in.mem_used += need;
    mi.reserved = need;
    set_state(in, m, MState::Loading);
    mi.phase_start = sim.now();
    if (rec) rec->model_event(ModelEvent{sim.now(), in.id, m, ModelEvent::Kind::LoadStart, need, 0, {}});
    const double secs = sc.endpoint.load_gbytes_per_s > 0
                            ? static_cast<double>(sc.models[m].artifact_bytes) / (sc.endpoint.load_gbytes_per_s * 1e9)
                            : 0.0;
    const Duration d = draw(sc.endpoint.load_fixed, rng_endpoint) + Duration::from_seconds(secs);
    sim.schedule_in(d, &load_done_event, load_done_event.payload(in.id, m));
  }

  void on_load_done(std::uint32_t iid, std::uint32_t m) {
    Instance& in = instances[iid];
    ModelOnInstance& mi = in.models[m];
    --in.loads_in_progress;
    std::uint32_t pid;
    if (!free_pools.empty()) { pid = free_pools.back(); free_pools.pop_back(); }
    else { pid = static_cast<std::uint32_t>(pools.size()); pools.emplace_back(); }
    pools[pid] = Pool{};
    pools[pid].instance = iid;
    pools[pid].model = m;
    pools[pid].live = true;
    pools[pid].service = service_draws[m];
    mi.pool = pid;
    set_state(in, m, MState::Loaded);
    ++in.models_loaded;
    ++st.loads;
    in.mem_cache->on_insert(m, mi.reserved, sim.now().ns());
    mi.reserved = 0;
    const std::int64_t d = sim.now().ns() - mi.phase_start.ns();
    if (metrics) metrics->load_done(sim.now(), Duration::ns(d));
    if (rec) rec->model_event(ModelEvent{sim.now(), iid, m, ModelEvent::Kind::Loaded, model_memory_for_load(m), d, {}});
    // The load started min_workers permanent workers (PermanentBatchAggregator); they are ready.
    for (int i = 0; i < std::max(min_workers(), 1); ++i) {
      const std::uint32_t w = new_worker(pid, false);
      workers[w].state = WState::Starting;
      ++pools[pid].starting;
    }
    emit_worker(pools[pid], WorkerEvent::Kind::Ready, false, "model loaded: its min_workers permanent workers are ready");
    for (std::uint32_t w : std::vector<std::uint32_t>(pools[pid].workers)) {
      --pools[pid].starting;
      workers[w].state = WState::Between;
      worker_free(w);
    }
    std::vector<std::uint32_t> waiting;
    waiting.swap(mi.pending);
    for (std::uint32_t r : waiting) {
      reqs[r].loading_wait = sim.now().ns() - reqs[r].container.ns();
      enter_pool(pid, r);
    }
  }

  // ---------------------------------------------------------------- requests
  void arrive(std::uint32_t model, std::int32_t user) override {
    const std::uint32_t r = new_request();
    Request& q = reqs[r];
    q.model = model;
    q.user = user;
    q.arrival = sim.now();
    ++st.requests;
    ++st.in_flight;
    const Duration oh = overhead_draw(rng_overhead);
    if (oh.count_ns() <= 0) reach(r);
    else sim.schedule_in(oh, &reach_event, r);
  }

  void reach(std::uint32_t r) {
    Request& q = reqs[r];
    q.reach = sim.now();
    q.container = sim.now();
    hviews.clear();
    for (const Holder& h : holders[q.model]) {
      const Instance& in = instances[h.instance];
      if (in.state != IState::InService) continue;
      ps::InstanceView v = base_view(in);
      v.model_present = true;
      if (h.pool != kNone) {
        const Pool& p = pools[h.pool];
        v.model_outstanding = p.outstanding;
        v.model_workers = static_cast<int>(p.workers.size());
      } else {
        v.model_outstanding = static_cast<int>(in.models[q.model].pending.size());
      }
      hviews.push_back(v);
    }
    fleet.model = q.model;
    if (hviews.empty() && fleet.all().empty()) {
      answer(r, 503, 0);  // no instance in service
      return;
    }
    const ps::RouteDecision d = pol.routing->route(q.model, sim.now().ns(), hviews, fleet);
    // A policy may be the user's (C++ or Python): its choice is checked before it is used.
    if (d.instance >= instances.size() || instances[d.instance].state != IState::InService)
      throw std::logic_error("routing policy '" + std::string(pol.routing->name()) + "' chose instance " +
                             std::to_string(d.instance) + ", which is not in service (it must be one of the views it was given)");
    Instance& in = instances[d.instance];
    q.instance = static_cast<std::int32_t>(in.id);
    ++in.outstanding;
    ++minute_invocations;
    in.mem_cache->on_access(q.model, sim.now().ns());
    if (!d.new_copy) {
      for (const Holder& h : holders[q.model]) {
        if (h.instance != in.id) continue;
        if (h.pool != kNone) {  // loaded: the fast path (a loaded model's artifact is pinned on
          q.hit = true;         // disk; its disk recency is renewed when it leaves memory)
          ++st.cache_hits;
          enter_pool(h.pool, r);
          return;
        }
        break;
      }
    }
    ModelOnInstance& mi = in.models[q.model];
    if (mi.on_disk) in.disk_cache->on_access(q.model, sim.now().ns());
    switch (mi.state) {
      case MState::Loaded:
        q.hit = true;
        ++st.cache_hits;
        enter_pool(mi.pool, r);
        break;
      case MState::Downloading:
      case MState::Loading:
        mi.pending.push_back(r);
        break;
      case MState::Absent:
      case MState::OnDisk:
        start_load(in, q.model, r);
        break;
    }
  }

  void enter_pool(std::uint32_t pid, std::uint32_t r) {
    Pool& p = pools[pid];
    Instance& in = instances[p.instance];
    reqs[r].container = sim.now();
    ps::PoolObservation o;
    o.now = sim.now().ns();
    o.min_workers = min_workers();
    o.max_workers = max_workers();
    o.workers_running = static_cast<int>(p.workers.size());
    o.workers_busy = p.busy;
    o.workers_started = p.started;
    o.queue_size = static_cast<int>(p.queue.size());
    o.queue_capacity = sc.server.job_queue_size;
    o.batch_size = sc.server.batch_size;
    o.free_cores = std::max(0, in.vcpu - in.busy);
    const ps::AdmitDecision d = pol.autoscaling->on_arrival(o);
    if (!d.admit) {
      if (d.add_worker) add_worker(pid, d.reason);
      answer(r, 503, 0);
      return;
    }
    ++p.outstanding;
    if (d.add_worker) add_worker(pid, d.reason);
    // Fast path: an empty queue and a free worker polling -> it takes the job at once (the same
    // outcome as queueing it and dispatching, without touching the queue).
    if (p.queue.empty() && sc.server.batch_size == 1) {
      while (!p.pollers.empty()) {
        const auto [w, ticket] = p.pollers.front();
        p.pollers.pop_front();
        const Worker& k = workers[w];
        if (k.ticket != ticket || k.state != WState::Waiting) continue;
        take_first_job(w, r);
        return;
      }
    }
    p.queue.push_back(r);
    st.max_queue_seen = std::max<std::uint64_t>(st.max_queue_seen, p.queue.size());
    dispatch(pid);
  }

  void answer(std::uint32_t r, int status, std::uint16_t batch) {
    Request& q = reqs[r];
    --st.in_flight;
    if (status == 200) ++st.served;
    else if (status == 503) ++st.rejected_503;
    else if (status == 507) ++st.rejected_507;
    if (q.instance >= 0) {
      Instance& in = instances[static_cast<std::uint32_t>(q.instance)];
      --in.outstanding;
    }
    RequestDone d;
    d.id = q.id;
    d.model = q.model;
    d.instance = q.instance;
    d.arrival = q.arrival;
    d.done = sim.now();
    d.status = status;
    d.overhead_ns = q.reach.ns() - q.arrival.ns();
    d.loading_wait_ns = q.loading_wait;
    d.model_latency_ns = status == 200 ? sim.now().ns() - q.container.ns() : 0;
    d.queue_ns = status == 200 ? q.taken.ns() - q.container.ns() : 0;
    d.batch = batch;
    d.cache_hit = q.hit;
    if (metrics) metrics->request(d);
    if (rec) rec->request(d);
    const std::int32_t user = q.user;
    free_reqs.push_back(r);
    if (user >= 0) traffic->answered(static_cast<std::uint32_t>(user));
    if (q.instance >= 0) maybe_terminate(instances[static_cast<std::uint32_t>(q.instance)]);
  }

  // ---------------------------------------------------------------- metrics and scaling
  /// The gauges of the period [period_start, now): integrals up to `now` and the state at
  /// `now`, which is sim.now() or a time between the last event and the next (nothing changes
  /// in between). Resets the per-period CPU integral.
  PeriodGauges gauges(Time now) {
    PeriodGauges g;
    double busy = 0;
    for (Instance& in : instances) {
      if (in.in_service_since == Time::max()) continue;
      cpu_advance_to(in, now);
      busy += in.busy_core_ns;
      in.busy_core_ns = 0;
      const Time from = std::max(in.in_service_since, period_start);
      const Time to = std::min(in.terminated, now);
      if (to > from) g.instance_ns += (to - from).count_ns();
      if (in.state != IState::InService && in.state != IState::Draining) continue;
      ++g.instances_in_service;
      g.loaded_models += static_cast<std::uint64_t>(in.models_loaded);
      g.memory_used_bytes += in.mem_used + sc.endpoint.memory_reserved_bytes;
      g.memory_total_bytes += itype->memory_bytes();
    }
    g.cpu_busy_core_ns = static_cast<std::int64_t>(std::llround(busy));
    g.workers = running_workers;
    return g;
  }
  void on_metrics_tick() {
    ticking = false;
    const Time now = sim.now();
    const PeriodGauges g = gauges(now);
    if (metrics) metrics->close_period(period_start, g);
    const int live = g.instances_in_service;
    ipi_history.push_back(live > 0 ? static_cast<double>(minute_invocations) / live : 0.0);
    if (ipi_history.size() > 64) ipi_history.erase(ipi_history.begin(), ipi_history.begin() + 32);
    minute_invocations = 0;
    period_start = now;
    if (pol.scaling) scale(now);
    // Tick (and scale) while traffic comes or requests are in flight, and only while another
    // event is pending: with none, nothing can ever happen again — the requests still in flight
    // can never be served (a policy left them without a worker, say), and the run is over;
    // finish() reports them as unserved at the end. Later periods, when other events outlive
    // the ticks, are closed by close_elapsed_periods().
    if ((traffic->active() || st.in_flight > 0) && sim.pending_count() > 0) {
      sim.schedule(now + sc.output.metrics_period, &metrics_tick_event, 0);
      ticking = true;
    }
  }
  /// Once the ticks have stopped (the traffic is over and nothing is in flight) the model may
  /// still have events: DJL's idle temporary workers retire up to max_idle_time after their
  /// last batch, draining instances terminate. Every period that ended by `t` is closed before
  /// the event at `t` changes anything, with the gauges at the period's end, so the periods go
  /// on, without a gap, to the end of the run.
  void close_elapsed_periods(Time t) {
    if (ticking) return;
    while (t >= period_start + sc.output.metrics_period) close_open_period();
  }
  /// Closes the open period at its end, [period_start, period_start + metrics_period), which
  /// must be no later than the next event.
  void close_open_period() {
    const Time end = period_start + sc.output.metrics_period;
    const PeriodGauges g = gauges(end);
    if (metrics) metrics->close_period(period_start, g);
    period_start = end;
  }
  void scale(Time now) {
    ps::ScalingObservation o;
    o.now = now.ns();
    o.instances_in_service = in_service();
    o.instances_desired = desired;
    o.min_instances = sc.endpoint.min_instances;
    o.max_instances = sc.endpoint.max_instances;
    o.invocations_per_instance = ipi_history;
    o.last_scale_out = last_scale_out.ns();
    o.last_scale_in = last_scale_in.ns();
    const ps::ScalingDecision d = pol.scaling->evaluate(o);
    if (d.desired == desired) return;
    if (d.desired < o.min_instances || d.desired > o.max_instances)
      throw std::logic_error("instance scaling policy '" + std::string(pol.scaling->name()) + "' wants " +
                             std::to_string(d.desired) + " instances, outside the endpoint's min_instances .. max_instances (" +
                             std::to_string(o.min_instances) + " .. " + std::to_string(o.max_instances) + ")");
    const int before = desired;
    desired = d.desired;
    if (rec) rec->instance_event(InstanceEvent{now, 0, InstanceEvent::Kind::DesiredChanged, desired, d.reason});
    if (desired > before) {
      last_scale_out = now;
      for (int i = before; i < desired; ++i) launch_instance(false);
    } else {
      last_scale_in = now;
      // Scale in: the newest instances stop receiving requests and terminate once drained.
      int to_remove = before - desired;
      for (auto it = instances.rbegin(); it != instances.rend() && to_remove > 0; ++it) {
        if (it->state == IState::InService || it->state == IState::Starting) {
          it->state = it->state == IState::Starting ? IState::Terminated : IState::Draining;
          if (it->state == IState::Terminated) it->terminated = now;
          --to_remove;
          maybe_terminate(*it);
        }
      }
    }
  }
  // ---------------------------------------------------------------- events (core/event.hpp)
  /// Before every event: note its time, and close the metrics periods that ended before it
  /// once the ticks have stopped.
  void before_event() override {
    self.last_event_ = sim.now();
    close_elapsed_periods(sim.now());
  }
  void on_worker_ready(std::uint32_t w) {
    Worker& k = workers[w];
    k.timer = {};
    --pools[k.pool].starting;
    k.state = WState::Between;
    emit_worker(pools[k.pool], WorkerEvent::Kind::Ready, k.temporary, {});
    const std::uint32_t pid = k.pool;
    worker_free(w);
    dispatch(pid);
  }
  void on_poll_deadline(std::uint32_t w) {
    Worker& k = workers[w];
    k.timer = {};
    if (k.state != WState::Waiting) return;
    ++k.ticket;  // leaves the poll queue
    --pools[k.pool].started;
    k.state = WState::Between;
    worker_free(w, true);
  }
  void on_batch_deadline(std::uint32_t w) {
    Worker& k = workers[w];
    k.timer = {};
    if (k.state == WState::Aggregating) run_batch(w);
  }
  void on_instance_up(std::uint32_t id) {
    Instance& in = instances[id];
    if (in.state != IState::Starting) return;
    in.state = IState::InService;
    in.in_service_since = sim.now();
    in.last = sim.now();
    emit_instance(in.id, InstanceEvent::Kind::InService, "health check passed");
  }
  template <auto Fn>
  using Ev = core::Event<Fn, &Impl::before_event>;
  Ev<&Impl::reach> reach_event{this};                 // a request reaches the container after its overhead
  Ev<&Impl::on_download_done> download_done_event{this};  // (instance, model)
  Ev<&Impl::on_load_done> load_done_event{this};          // (instance, model)
  Ev<&Impl::on_worker_ready> worker_ready_event{this};
  Ev<&Impl::on_poll_deadline> poll_deadline_event{this};
  Ev<&Impl::on_batch_deadline> batch_deadline_event{this};
  Ev<&Impl::on_cpu_done> cpu_done_event{this};
  Ev<&Impl::on_instance_up> instance_up_event{this};
  Ev<&Impl::on_metrics_tick> metrics_tick_event{this};
};

Endpoint::Endpoint(core::Simulator& sim, const InferenceScenario& sc, core::RngStreams& rng,
                   ServingRecorder* recorder, MetricsAggregator* metrics, PolicySet policies)
    : impl_(std::make_unique<Impl>(*this, sim, sc, rng, recorder, metrics, std::move(policies), stats_)) {}

Endpoint::~Endpoint() = default;

void Endpoint::start() {
  Impl& m = *impl_;
  m.desired = m.sc.endpoint.initial_instances;
  for (int i = 0; i < m.sc.endpoint.initial_instances; ++i) m.launch_instance(true);
  m.period_start = m.sim.now();
  m.traffic->start();
  m.sim.schedule(m.sim.now() + m.sc.output.metrics_period, &m.metrics_tick_event, 0);
  m.ticking = true;
}

void Endpoint::finish() { finish(impl_->sim.now()); }

void Endpoint::finish(Time now) {
  Impl& m = *impl_;
  if (m.finished) return;
  if (now > m.sim.now()) throw std::invalid_argument("Endpoint::finish: end is after the simulated time reached");
  m.finished = true;
  // Requests still in flight are unserved at the end: reported once each, with status 0.
  stats_.unserved_at_end = stats_.in_flight;
  std::vector<bool> is_free(m.reqs.size(), false);
  for (std::uint32_t r : m.free_reqs) is_free[r] = true;
  for (std::uint32_t r = 0; r < m.reqs.size(); ++r) {
    if (is_free[r]) continue;
    const Impl::Request& q = m.reqs[r];
    RequestDone d;
    d.id = q.id; d.model = q.model; d.instance = q.instance; d.arrival = q.arrival; d.done = now; d.status = 0;
    if (m.metrics) m.metrics->request(d);
    if (m.rec) m.rec->request(d);
  }
  // Every period up to the end, then the last one, [period_start, now], which also holds what
  // happened at `now` itself — when the run ended exactly at a period boundary with answers at
  // that instant, a period of no length.
  while (now > m.period_start + m.sc.output.metrics_period) m.close_open_period();
  if (now > m.period_start || (m.metrics && !m.metrics->open_period_empty())) {
    const PeriodGauges g = m.gauges(now);
    if (m.metrics) m.metrics->close_last_period(m.period_start, now, g);
  }
  account_instances(now);
}

void Endpoint::account_instances(Time now) const {
  const Impl& m = *impl_;
  double secs = 0;
  for (const auto& in : m.instances) {
    const Time end = in.terminated == Time::max() ? now : in.terminated;
    secs += (end - in.launched).seconds();
  }
  stats_.instance_seconds = secs;
  stats_.cost_usd = secs * m.itype->on_demand_usd_per_hour / 3600.0;
}

const EndpointStats& Endpoint::stats() const {
  if (!impl_->finished) account_instances(impl_->sim.now());
  return stats_;
}

void Endpoint::check_invariants() const {
  const Impl& m = *impl_;
  auto fail = [](const std::string& s) { throw std::logic_error("inference invariant: " + s); };
  std::uint64_t live_reqs = m.reqs.size() - m.free_reqs.size();
  if (live_reqs != stats_.in_flight) fail("in-flight requests " + std::to_string(live_reqs) + " != counter " + std::to_string(stats_.in_flight));
  if (stats_.requests != stats_.served + stats_.rejected_503 + stats_.rejected_507 + stats_.in_flight)
    fail("requests are not all accounted for");
  int workers = 0;
  for (const auto& in : m.instances) {
    if (in.mem_used > in.mem_cap) fail("instance " + std::to_string(in.id) + " memory over capacity");
    if (in.disk_used > in.disk_cap) fail("instance " + std::to_string(in.id) + " disk over capacity");
    if (in.busy != static_cast<int>(in.running.size())) fail("cpu busy count");
    std::uint64_t mem = 0;
    for (std::uint32_t mid = 0; mid < in.models.size(); ++mid) {
      const auto& mi = in.models[mid];
      if (mi.state == Impl::MState::Loaded) {
        const auto& p = m.pools[mi.pool];
        if (!p.live) fail("loaded model without a live pool");
        if (p.queue.size() > static_cast<std::size_t>(m.sc.server.job_queue_size)) fail("job queue over job_queue_size");
        mem += p.workers.size() * m.sc.models[mid].resident_bytes;
        workers += static_cast<int>(p.workers.size());
        int busy = 0, started = 0, starting = 0;
        for (std::uint32_t w : p.workers) {
          const auto s = m.workers[w].state;
          busy += s == Impl::WState::Busy;
          started += s == Impl::WState::Waiting || s == Impl::WState::Aggregating;
          starting += s == Impl::WState::Starting;
        }
        if (busy != p.busy || started != p.started || starting != p.starting) fail("worker state counts");
      } else if (mi.state == Impl::MState::Loading) {
        mem += mi.reserved;
      }
    }
    if (mem != in.mem_used) fail("instance " + std::to_string(in.id) + " memory accounting " + std::to_string(mem) + " != " + std::to_string(in.mem_used));
  }
  if (workers != m.running_workers) fail("running worker count");
}

std::vector<InstanceSnapshot> Endpoint::snapshot() const {
  const Impl& m = *impl_;
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
    s.vcpu = in.vcpu;
    s.batches_running = in.busy;
    s.outstanding = in.outstanding;
    for (std::uint32_t mid = 0; mid < in.models.size(); ++mid) {
      const auto& mi = in.models[mid];
      s.artifacts_on_disk += mi.on_disk ? 1 : 0;
      if (mi.state != Impl::MState::Downloading && mi.state != Impl::MState::Loading && mi.state != Impl::MState::Loaded)
        continue;
      ModelSnapshot ms;
      ms.model = mid;
      ms.state = mi.state == Impl::MState::Downloading ? "Downloading" : mi.state == Impl::MState::Loading ? "Loading" : "Loaded";
      ms.waiting_for_load = mi.pending.size();
      if (mi.state == Impl::MState::Loaded) {
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
