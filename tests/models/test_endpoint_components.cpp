// Components of the inference endpoint (models/endpoint/), each alone:
//   * ProcessorSharing: batches sharing an instance's vCPUs, completion times worked out by hand
//     (each running batch progresses at min(1, vcpu / busy) of a core);
//   * ModelStore with the real worker pools and a fake host: SageMaker MME's download, load,
//     LRU unload of an idle model and 507, timings from the figures;
//   * WorkerPools with a fake host: DJL's batching (drain up to batch_size, wait up to
//     max_batch_delay), the job queue's admission and scale-up (WorkLoadManager.runJob), and
//     a temporary worker's retirement after max_idle_time (TemporaryBatchAggregator), as
//     timelines derived by hand from DJL Serving 0.23.0's rules;
//   * InstanceFleet with a scripted scaling policy: launch, health check, scale-in of the newest,
//     the metrics ticks stopping with the traffic.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/endpoint/processor_sharing.hpp"
#include "mltwin/models/endpoint/instance_fleet.hpp"
#include "mltwin/models/endpoint/model_store.hpp"
#include "mltwin/models/endpoint/worker_pools.hpp"

using namespace mltwin;
using namespace mltwin::models::inference;
using core::Duration;
using core::Time;

namespace {

constexpr std::int64_t kMs = 1'000'000;

/// Runs a function at a time (the test's own events).
struct At final : core::EventHandler {
  std::function<void()> fn;
  void on_event(core::Simulator&, std::uint64_t) override { fn(); }
};

struct Done {
  std::int64_t t_ns;
  std::uint32_t worker;
};

struct CpuRecorder final : CpuListener {
  core::Simulator& sim;
  std::vector<Done> done;
  int befores = 0;
  explicit CpuRecorder(core::Simulator& s) : sim(s) {}
  void batch_done(std::uint32_t w) override { done.push_back({sim.now().ns(), w}); }
  void before_event() override { ++befores; }
};

std::vector<Instance> one_instance(int vcpu) {
  std::vector<Instance> v(1);
  v[0].cpu.vcpu = vcpu;
  return v;
}

}  // namespace

TEST_CASE("processor sharing: two equal batches on one vCPU share it and end together") {
  core::Simulator sim;
  auto instances = one_instance(1);
  CpuRecorder rec(sim);
  ProcessorSharing cpu(sim, instances, rec);
  cpu.start(instances[0], 1, 10 * kMs);
  cpu.start(instances[0], 2, 10 * kMs);
  sim.run();
  // Each at half a core: 10 ms of work takes 20 ms.
  REQUIRE(rec.done.size() == 2);
  CHECK(rec.done[0].t_ns == 20 * kMs);
  CHECK(rec.done[1].t_ns == 20 * kMs);
  CHECK(rec.done[0].worker == 1);  // equal virtual finish: start order
  CHECK(rec.befores == 1);         // one completion event
  CHECK(instances[0].cpu.busy == 0);
  // One core busy for 20 ms.
  CHECK(instances[0].cpu.busy_core_ns == doctest::Approx(20.0 * kMs));
}

TEST_CASE("processor sharing: three batches on two vCPUs, then two, then one") {
  core::Simulator sim;
  auto instances = one_instance(2);
  CpuRecorder rec(sim);
  ProcessorSharing cpu(sim, instances, rec);
  cpu.start(instances[0], 30, 30 * kMs);
  cpu.start(instances[0], 60, 60 * kMs);
  cpu.start(instances[0], 90, 90 * kMs);
  sim.run();
  // 3 batches on 2 cores: 2/3 of a core each; the 30 ms batch ends at 45 ms (the others have
  // had 30 ms of CPU). Then 2 on 2: full speed; the 60 ms batch needs 30 ms more: 75 ms. The
  // 90 ms batch, 30 ms more alone: 105 ms.
  REQUIRE(rec.done.size() == 3);
  CHECK(rec.done[0].t_ns == 45 * kMs);
  CHECK(rec.done[0].worker == 30);
  CHECK(rec.done[1].t_ns == 75 * kMs);
  CHECK(rec.done[2].t_ns == 105 * kMs);
  // Busy cores: 2 from 0 to 75 ms, 1 from 75 to 105 ms = 180 ms of work, all of it.
  CHECK(instances[0].cpu.busy_core_ns == doctest::Approx(180.0 * kMs));
}

TEST_CASE("processor sharing: a batch arriving midway slows the running one") {
  core::Simulator sim;
  auto instances = one_instance(1);
  CpuRecorder rec(sim);
  ProcessorSharing cpu(sim, instances, rec);
  cpu.start(instances[0], 1, 100 * kMs);
  At later;
  later.fn = [&] { cpu.start(instances[0], 2, 20 * kMs); };
  sim.schedule(Time::from_ns(50 * kMs), &later, 0);
  sim.run();
  // At 50 ms the first has 50 ms left; sharing, the second's 20 ms take 40 ms (done at 90 ms),
  // in which the first got 20 ms; its last 30 ms alone: 120 ms.
  REQUIRE(rec.done.size() == 2);
  CHECK(rec.done[0].worker == 2);
  CHECK(rec.done[0].t_ns == 90 * kMs);
  CHECK(rec.done[1].worker == 1);
  CHECK(rec.done[1].t_ns == 120 * kMs);
  CHECK(ProcessorSharing::rate(instances[0].cpu) == 1.0);
}

namespace {

struct Answer {
  std::int64_t t_ns;
  std::uint32_t request;
  int status;
  int batch;
};

/// The rest of the endpoint, as the pools see it: answers recorded, memory always available.
struct FakeHost final : PoolHost {
  core::Simulator& sim;
  std::vector<Answer> answers;
  int pool_changes = 0;
  explicit FakeHost(core::Simulator& s) : sim(s) {}
  void answer(std::uint32_t r, int status, std::uint16_t batch) override { answers.push_back({sim.now().ns(), r, status, batch}); }
  bool make_room(Instance&, std::uint64_t, std::uint32_t) override { return true; }
  void pool_changed(std::uint32_t) override { ++pool_changes; }
};

/// One instance with one model whose batch takes 100 ms of one core whatever its size, under
/// DJL's WorkLoadManager rules (policy "djl-wlm").
struct PoolFixture {
  InferenceScenario sc;
  core::Simulator sim;
  core::RngStreams rng{1};
  EndpointStats stats;
  models::InstanceType itype;  ///< the server's worker counts read it (server_min_workers)
  std::unique_ptr<EndpointState> state;
  std::unique_ptr<ps::AutoscalingPolicy> policy = ps::autoscaling_registry().make("djl-wlm", {});
  std::unique_ptr<FakeHost> host;
  std::unique_ptr<ProcessorSharing> cpu;
  std::unique_ptr<WorkerPools> pools;
  std::uint32_t pid = 0;

  PoolFixture(int vcpu, auto&& configure) {
    sc.models.resize(1);
    sc.models[0].service.base = models::LatencySpec{models::LatencySpec::Kind::Constant, Duration::ms(100), Duration::ms(100), "test"};
    sc.models[0].service.batch_marginal = 0;
    configure(sc.server);
    state = std::make_unique<EndpointState>(sim, sc, nullptr, nullptr, stats, rng);
    itype.name = "ml.test";
    itype.vcpu = vcpu;
    itype.memory_gib = 16;
    state->itype = &itype;
    state->instances.resize(1);
    state->instances[0].cpu.vcpu = vcpu;
    state->instances[0].mem_cache = ps::make_lru_cache_policy();
    host = std::make_unique<FakeHost>(sim);
    cpu = std::make_unique<ProcessorSharing>(sim, state->instances, *pools_listener());
    pools = std::make_unique<WorkerPools>(*state, *policy, rng.stream("serving.service_time"), *cpu, *host);
    pid = pools->open_pool(0, 0, ServiceDraw{models::detail::LatencyDraw(sc.models[0].service.base), 0.0});
    pools->start_permanent_workers(pid);
  }
  /// ProcessorSharing reports to the pools, built after it: a forwarding listener.
  struct Forward final : CpuListener {
    PoolFixture* f;
    void batch_done(std::uint32_t w) override { f->pools->batch_done(w); }
    void before_event() override { f->pools->before_event(); }
  } forward_{};
  CpuListener* pools_listener() {
    forward_.f = this;
    return &forward_;
  }
  /// A new request slot for model 0.
  std::uint32_t request() {
    state->reqs.emplace_back();
    return static_cast<std::uint32_t>(state->reqs.size() - 1);
  }
};

}  // namespace

TEST_CASE("worker pool: a batch aggregates up to max_batch_delay, then the queue drains in full batches") {
  PoolFixture f(1, [](ServerSpec& s) {
    s.batch_size = 4;
    s.max_batch_delay = Duration::ms(10);
    s.job_queue_size = 100;
    s.min_workers = 1;
    s.max_workers = 1;  // no scale-up
  });
  At at5, at20;
  std::vector<std::uint32_t> r;
  for (int i = 0; i < 8; ++i) r.push_back(f.request());
  f.pools->enter_pool(f.pid, r[0]);  // t = 0: the worker takes it and waits 10 ms for more
  at5.fn = [&] { f.pools->enter_pool(f.pid, r[1]); f.pools->enter_pool(f.pid, r[2]); };
  at20.fn = [&] { for (int i = 3; i < 8; ++i) f.pools->enter_pool(f.pid, r[static_cast<std::size_t>(i)]); };
  f.sim.schedule(Time::from_ns(5 * kMs), &at5, 0);
  f.sim.schedule(Time::from_ns(20 * kMs), &at20, 0);
  f.sim.run();
  // r0-r2: one batch of 3 run at the 10 ms deadline, done at 110 ms. r3-r7 queue meanwhile;
  // at 110 ms the free worker drains 4 (a full batch, run at once): done at 210 ms. r7 alone:
  // taken at 210 ms, waits out the 10 ms delay, runs 220-320 ms.
  REQUIRE(f.host->answers.size() == 8);
  for (int i = 0; i < 8; ++i) {
    const Answer& a = f.host->answers[static_cast<std::size_t>(i)];
    CAPTURE(i);
    CHECK(a.request == r[static_cast<std::size_t>(i)]);
    CHECK(a.status == 200);
    const std::int64_t t = i < 3 ? 110 : i < 7 ? 210 : 320;
    const int batch = i < 3 ? 3 : i < 7 ? 4 : 1;
    CHECK(a.t_ns == t * kMs);
    CHECK(a.batch == batch);
  }
  CHECK(f.stats.batches == 3);
  CHECK(f.stats.max_queue_seen == 5);
  CHECK(f.state->reqs[r[7]].taken.ns() == 210 * kMs);
}

TEST_CASE("worker pool: a full queue refuses with 503 and adds a temporary worker, which retires after max_idle_time") {
  PoolFixture f(2, [](ServerSpec& s) {
    s.batch_size = 1;
    s.max_batch_delay = Duration::ns(0);
    s.job_queue_size = 3;
    s.min_workers = 1;
    s.max_workers = 2;
    s.max_idle_time = Duration::s(60);
    s.worker_startup = models::LatencySpec{models::LatencySpec::Kind::Constant, Duration::ms(50), Duration::ms(50), "test"};
  });
  std::vector<std::uint32_t> r;
  for (int i = 0; i < 6; ++i) r.push_back(f.request());
  for (std::uint32_t q : r) f.pools->enter_pool(f.pid, q);
  // r0: the polling worker takes it. r1, r2 queue. r3: one slot left and no worker polling ->
  // 503 and scale-up (1 < max_workers 2). r4, r5: the same, but 2 workers already run (one
  // starting): 503 without scale-up.
  REQUIRE(f.host->answers.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(f.host->answers[static_cast<std::size_t>(i)].request == r[static_cast<std::size_t>(i + 3)]);
    CHECK(f.host->answers[static_cast<std::size_t>(i)].status == 503);
  }
  CHECK(f.stats.workers_added == 1);
  f.sim.run();
  // The temporary worker is ready at 50 ms and takes r1 (done 150 ms); the permanent one ends
  // r0 at 100 ms and takes r2 (done 200 ms). Idle since its batch started (50 ms), the
  // temporary worker polls for 60 s from 150 ms; at 60.15 s it has been idle 60.1 s > 60 s and
  // retires.
  REQUIRE(f.host->answers.size() == 6);
  CHECK(f.host->answers[3].request == r[0]);
  CHECK(f.host->answers[3].t_ns == 100 * kMs);
  CHECK(f.host->answers[4].request == r[1]);
  CHECK(f.host->answers[4].t_ns == 150 * kMs);
  CHECK(f.host->answers[5].request == r[2]);
  CHECK(f.host->answers[5].t_ns == 200 * kMs);
  CHECK(f.stats.workers_retired == 1);
  CHECK(f.state->running_workers == 1);
  CHECK(f.sim.now().ns() == 60'150 * kMs);
  CHECK(f.state->pools[f.pid].workers.size() == 1);
}

namespace {

/// The rest of the endpoint as the model store and its pools see it: answers recorded, memory
/// made by the store, nothing draining.
struct StoreFakeHost final : PoolHost, StoreHost {
  core::Simulator& sim;
  ModelStore* store = nullptr;
  std::vector<Answer> answers;
  explicit StoreFakeHost(core::Simulator& s) : sim(s) {}
  void answer(std::uint32_t r, int status, std::uint16_t batch) override { answers.push_back({sim.now().ns(), r, status, batch}); }
  bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep) override { return store->make_room(in, need, keep); }
  void pool_changed(std::uint32_t pid) override { store->pool_changed(pid); }
  void maybe_terminate(Instance&) override {}
  void models_registered(Instance&) override {}
};

}  // namespace

TEST_CASE("model store: download, load, LRU unload of an idle model, load from disk, 507 for a model too big") {
  // One instance of 10 GB memory; models of 1 GB artifacts needing 4 GB each (one worker),
  // and one needing 12 GB. S3: 100 ms to the first byte, then 8 Gb/s (1 s a model); load:
  // 500 ms fixed, then 2 GB/s (0.5 s). A batch takes 100 ms.
  InferenceScenario sc;
  const auto constant = [](Duration d) { return models::LatencySpec{models::LatencySpec::Kind::Constant, d, d, "test"}; };
  sc.models.resize(4);
  for (auto& m : sc.models) {
    m.artifact_bytes = 1'000'000'000;
    m.resident_bytes = 4'000'000'000;
    m.service.base = constant(Duration::ms(100));
  }
  sc.models[3].resident_bytes = 12'000'000'000;
  sc.endpoint.s3_first_byte = constant(Duration::ms(100));
  sc.endpoint.s3_download_gbps = 8;
  sc.endpoint.load_fixed = constant(Duration::ms(500));
  sc.endpoint.load_gbytes_per_s = 2;
  sc.endpoint.unload = constant(Duration::ns(0));
  sc.server.batch_size = 1;
  sc.server.max_batch_delay = Duration::ns(0);
  sc.server.job_queue_size = 10;
  sc.server.min_workers = 1;
  sc.server.max_workers = 1;
  core::Simulator sim;
  core::RngStreams rng(1);
  EndpointStats stats;
  EndpointState state(sim, sc, nullptr, nullptr, stats, rng);
  // The server's worker counts read the instance type (server_min_workers): a small catalog row.
  models::InstanceType it;
  it.name = "ml.test";
  it.vcpu = 4;
  it.memory_gib = 16;
  state.itype = &it;
  state.instances.resize(1);
  Instance& in = state.instances[0];
  in.cpu.vcpu = 4;
  in.mem_cap = 10'000'000'000;
  in.disk_cap = 100'000'000'000;
  in.models.resize(sc.models.size());
  in.mem_cache = ps::make_lru_cache_policy();
  in.disk_cache = ps::make_lru_cache_policy();
  auto policy = ps::autoscaling_registry().make("djl-wlm", {});
  StoreFakeHost host(sim);
  struct Forward final : CpuListener {
    WorkerPools* pools = nullptr;
    void batch_done(std::uint32_t w) override { pools->batch_done(w); }
    void before_event() override {}
  } forward;
  ProcessorSharing cpu(sim, state.instances, forward);
  WorkerPools pools(state, *policy, rng.stream("serving.service_time"), cpu, host);
  forward.pools = &pools;
  ModelStore store(state, pools, host);
  host.store = &store;

  std::vector<std::uint32_t> r;
  std::vector<At> at(5);
  const std::uint32_t model_of[] = {0, 1, 2, 0, 3};
  const std::int64_t when_s[] = {0, 3, 6, 9, 11};
  for (std::size_t i = 0; i < 5; ++i) {
    state.reqs.emplace_back();
    state.reqs.back().model = model_of[i];
    r.push_back(static_cast<std::uint32_t>(i));
    at[i].fn = [&, i] {
      state.reqs[r[i]].container = sim.now();
      store.request(state.instances[0], r[i]);
    };
    sim.schedule(Time::from_ns(when_s[i] * 1'000 * kMs), &at[i], 0);
  }
  sim.run();
  // m0 at 0 s: downloaded 1.1 s, loaded 2.1 s, answered 2.2 s. m1 at 3 s: 5.2 s. m2 at 6 s:
  // downloaded 7.1 s; 8 GB of 10 are held, so the least recently loaded idle model, m0, is
  // unloaded (its artifact stays on disk); loaded 8.1 s, answered 8.2 s. m0 again at 9 s: on
  // disk, no download; m1 (now the least recent) is unloaded; loaded 10.0 s, answered 10.1 s.
  // m3 at 11 s needs 12 GB of a 10 GB instance: 507 at once.
  REQUIRE(host.answers.size() == 5);
  const std::int64_t done_ms[] = {2'200, 5'200, 8'200, 10'100, 11'000};
  const int status[] = {200, 200, 200, 200, 507};
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(host.answers[i].request == r[i]);
    CHECK(host.answers[i].t_ns == done_ms[i] * kMs);
    CHECK(host.answers[i].status == status[i]);
  }
  CHECK(state.reqs[r[0]].loading_wait == 2'100 * kMs);
  CHECK(state.reqs[r[3]].loading_wait == 1'000 * kMs);
  CHECK(stats.downloads == 3);
  CHECK(stats.loads == 4);
  CHECK(stats.unloads == 2);
  CHECK(stats.load_failures == 1);
  CHECK(in.models[0].state == ModelState::Loaded);
  CHECK(in.models[1].state == ModelState::OnDisk);
  CHECK(in.models[2].state == ModelState::Loaded);
  CHECK(in.mem_used == 8'000'000'000);
  CHECK(in.disk_used == 3'000'000'000);
  CHECK(state.holders[1].empty());
  REQUIRE(state.holders[0].size() == 1);
  CHECK(state.holders[0][0].pool == in.models[0].pool);
}

TEST_CASE("instance fleet: scale-out launches after start-up and health check; scale-in drains the newest first") {
  // Two instances at 0 s; one metrics period a minute. The scaling policy (the test's) wants 3
  // at its first evaluation (60 s) and 1 at its third (180 s). A launched instance is in
  // service after 100 s of start-up and 20 s of health check: 180 s. At 180 s it comes up
  // first (its event was scheduled at 60 s, before the tick of 180 s at 120 s), then scale-in
  // drains the newest two, which, with nothing outstanding, terminate at once.
  struct Script final : ps::InstanceScalingPolicy {
    int calls = 0;
    std::vector<std::int64_t> at_ns;
    std::vector<int> in_service;
    std::string_view name() const override { return "script"; }
    ps::ScalingDecision evaluate(const ps::ScalingObservation& o) override {
      at_ns.push_back(o.now);
      in_service.push_back(o.instances_in_service);
      ++calls;
      if (calls == 1) return {3, "out"};
      if (calls == 3) return {1, "in"};
      return {o.instances_desired, {}};
    }
  };
  struct Traffic final : FleetHost {
    core::Simulator& sim;
    explicit Traffic(core::Simulator& s) : sim(s) {}
    bool traffic_active() const override { return sim.now() < Time::from_ns(300 * 1'000 * kMs); }
    void register_models(Instance&) override {}
    void register_models_now(Instance&) override {}
  };
  InferenceScenario sc;
  sc.models.resize(1);
  const auto constant = [](Duration d) { return models::LatencySpec{models::LatencySpec::Kind::Constant, d, d, "test"}; };
  sc.endpoint.initial_instances = 2;
  sc.endpoint.min_instances = 1;
  sc.endpoint.max_instances = 4;
  sc.endpoint.instance_startup = constant(Duration::s(100));
  sc.endpoint.health_check = constant(Duration::s(20));
  core::Simulator sim;
  core::RngStreams rng(1);
  EndpointStats stats;
  EndpointState state(sim, sc, nullptr, nullptr, stats, rng);
  Script* script = nullptr;
  PolicySet pol;
  {
    auto p = std::make_unique<Script>();
    script = p.get();
    pol.scaling = std::move(p);
  }
  Traffic host(sim);
  // The fleet reads the instance type for memory: a small catalog row.
  models::InstanceType it;
  it.name = "ml.test";
  it.vcpu = 4;
  it.memory_gib = 16;
  state.itype = &it;
  InstanceFleet fleet(state, pol, host);
  fleet.start();
  fleet.schedule_tick();
  At keep_alive;  // another event pending, so the ticks go on while the traffic lasts
  keep_alive.fn = [] {};
  sim.schedule(Time::from_ns(1'000 * 1'000 * kMs), &keep_alive, 0);
  sim.run();
  REQUIRE(script->calls == 5);  // ticks at 60, 120, 180, 240, 300 s; none after the traffic
  CHECK(script->at_ns == std::vector<std::int64_t>{60'000 * kMs, 120'000 * kMs, 180'000 * kMs, 240'000 * kMs, 300'000 * kMs});
  CHECK(script->in_service == std::vector<int>{2, 2, 3, 1, 1});
  REQUIRE(state.instances.size() == 3);
  CHECK(stats.instances_launched == 3);
  CHECK(state.instances[2].launched.ns() == 60'000 * kMs);
  CHECK(state.instances[2].in_service_since.ns() == 180'000 * kMs);
  CHECK(state.instances[0].state == InstanceState::InService);
  CHECK(state.instances[1].state == InstanceState::Terminated);
  CHECK(state.instances[2].state == InstanceState::Terminated);
  CHECK(state.instances[1].terminated.ns() == 180'000 * kMs);
  CHECK(state.instances[2].terminated.ns() == 180'000 * kMs);
  CHECK(state.quiet_period_end.ns() == 360'000 * kMs);  // ticks stopped: the open period ends at 360 s
}

TEST_CASE("model store, SingleModel endpoint: load_models registered in turn at start, then 404 for another model, no eviction") {
  // The scenario's figures: three models of 1 GB artifacts; m0 holds 4 GB (one worker), m1
  // 4 GB, m2 (not in load_models) 1 GB. S3: 100 ms to the first byte, then 8 Gb/s; load: 500 ms
  // fixed, then 2 GB/s. A batch takes 100 ms. Instance memory for models 10 GB.
  // By hand, from the container's start at 0 s: the model store (3 GB, one object) is copied
  // to disk in 0.1 + 24 Gb / 8 Gb/s = 3.1 s; m0 loads in 0.5 + 1 / 2 = 1.0 s (4.1 s), then m1
  // (5.1 s): the server has registered both at 5.1 s. A request for m0 at 6 s is answered
  // 200 at 6.1 s; one for m2 at 6 s is answered 404 at once, with nothing downloaded or
  // loaded. Memory: 8 GB held; another 4 GB (a second m0 worker) does not fit, and no idle
  // model is unloaded to make room.
  InferenceScenario sc;
  const auto constant = [](Duration d) { return models::LatencySpec{models::LatencySpec::Kind::Constant, d, d, "test"}; };
  sc.models.resize(3);
  for (auto& m : sc.models) {
    m.artifact_bytes = 1'000'000'000;
    m.resident_bytes = 4'000'000'000;
    m.service.base = constant(Duration::ms(100));
  }
  sc.models[2].resident_bytes = 1'000'000'000;
  sc.endpoint.mode = EndpointSpec::Mode::SingleModel;
  sc.server.load_models = {0, 1};
  sc.endpoint.s3_first_byte = constant(Duration::ms(100));
  sc.endpoint.s3_download_gbps = 8;
  sc.endpoint.load_fixed = constant(Duration::ms(500));
  sc.endpoint.load_gbytes_per_s = 2;
  sc.endpoint.unload = constant(Duration::ns(0));
  sc.server.batch_size = 1;
  sc.server.max_batch_delay = Duration::ns(0);
  sc.server.job_queue_size = 10;
  sc.server.min_workers = 1;
  sc.server.max_workers = 2;
  core::Simulator sim;
  core::RngStreams rng(1);
  EndpointStats stats;
  EndpointState state(sim, sc, nullptr, nullptr, stats, rng);
  models::InstanceType it;
  it.name = "ml.test";
  it.vcpu = 4;
  it.memory_gib = 16;
  state.itype = &it;
  state.instances.resize(1);
  Instance& in = state.instances[0];
  in.state = InstanceState::Starting;
  in.cpu.vcpu = 4;
  in.mem_cap = 10'000'000'000;
  in.disk_cap = 100'000'000'000;
  in.models.resize(sc.models.size());
  in.mem_cache = ps::make_lru_cache_policy();
  in.disk_cache = ps::make_lru_cache_policy();
  auto policy = ps::autoscaling_registry().make("djl-wlm", {});
  struct Host final : PoolHost, StoreHost {
    core::Simulator& sim;
    ModelStore* store = nullptr;
    std::vector<Answer> answers;
    std::vector<std::int64_t> registered_ns;
    explicit Host(core::Simulator& s) : sim(s) {}
    void answer(std::uint32_t r, int status, std::uint16_t batch) override { answers.push_back({sim.now().ns(), r, status, batch}); }
    bool make_room(Instance& i, std::uint64_t need, std::uint32_t keep) override { return store->make_room(i, need, keep); }
    void pool_changed(std::uint32_t pid) override { store->pool_changed(pid); }
    void maybe_terminate(Instance&) override {}
    void models_registered(Instance& i) override {
      registered_ns.push_back(sim.now().ns());
      i.state = InstanceState::InService;  // the fleet's health check, instantly here
    }
  } host(sim);
  struct Forward final : CpuListener {
    WorkerPools* pools = nullptr;
    void batch_done(std::uint32_t w) override { pools->batch_done(w); }
    void before_event() override {}
  } forward;
  ProcessorSharing cpu(sim, state.instances, forward);
  WorkerPools pools(state, *policy, rng.stream("serving.service_time"), cpu, host);
  forward.pools = &pools;
  ModelStore store(state, pools, host);
  host.store = &store;

  store.register_models(in);
  std::vector<At> at(2);
  const std::uint32_t model_of[] = {0, 2};
  for (std::size_t i = 0; i < 2; ++i) {
    state.reqs.emplace_back();
    state.reqs.back().model = model_of[i];
    at[i].fn = [&, i] {
      state.reqs[i].container = sim.now();
      store.request(state.instances[0], static_cast<std::uint32_t>(i));
    };
    sim.schedule(Time::from_ns(6'000 * kMs), &at[i], 0);
  }
  sim.run();
  REQUIRE(host.registered_ns.size() == 1);
  CHECK(host.registered_ns[0] == 5'100 * kMs);
  REQUIRE(host.answers.size() == 2);
  CHECK(host.answers[0].request == 1);  // m2: 404 at once
  CHECK(host.answers[0].status == 404);
  CHECK(host.answers[0].t_ns == 6'000 * kMs);
  CHECK(host.answers[1].request == 0);
  CHECK(host.answers[1].status == 200);
  CHECK(host.answers[1].t_ns == 6'100 * kMs);
  CHECK(stats.downloads == 0);
  CHECK(stats.loads == 2);
  CHECK(in.models[0].state == ModelState::Loaded);
  CHECK(in.models[1].state == ModelState::Loaded);
  CHECK(in.models[2].state == ModelState::OnDisk);  // in the model store, not registered
  CHECK(state.holders[2].empty());
  CHECK(in.disk_used == 3'000'000'000);
  CHECK(in.mem_used == 8'000'000'000);
  CHECK_FALSE(store.make_room(in, 4'000'000'000, 0));
  CHECK(stats.unloads == 0);
  CHECK(in.models[1].state == ModelState::Loaded);
}
