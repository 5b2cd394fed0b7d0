// Known behaviours of multi-model endpoints as small scenarios; expected values by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "inference_fixtures.hpp"
#include "mltwin/models/serving_metrics.hpp"
#include "mltwin/models/traffic.hpp"

using namespace fixtures;

namespace {

/// One Locust user invoking model 0 every `period` (constant_throughput(1 / period)).
void every(InferenceScenario& sc, double period_s, Duration duration) {
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = 1;
  sc.traffic.locust.spawn_rate = 1;
  sc.traffic.locust.wait = LocustTraffic::Wait::ConstantThroughput;
  sc.traffic.locust.wait_a = 1.0 / period_s;
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = duration;
}

}  // namespace

TEST_CASE("a model invoked every 30 s on an instance with room to spare is loaded once, then hits") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(20));
  sc.endpoint.load_fixed = constant(Duration::s(2));
  every(sc, 30, Duration::s(600));  // requests at 0, 30, ..., 570 s: 20 of them
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  REQUIRE(rec.requests.size() == 20);
  CHECK(run.ep.stats().loads == 1);
  CHECK(run.ep.stats().unloads == 0);
  CHECK_FALSE(rec.requests[0].cache_hit);
  CHECK(rec.requests[0].loading_wait_ns == 2'000'000'000);  // waited for the 2 s load
  for (std::size_t i = 1; i < rec.requests.size(); ++i) {
    CHECK(rec.requests[i].cache_hit);
    CHECK(rec.requests[i].model_latency_ns == 20'000'000);
  }
}

TEST_CASE("ModelCacheSetting Disabled: every request loads the model again") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(20));
  sc.endpoint.model_cache_enabled = false;
  every(sc, 30, Duration::s(300));  // 10 requests
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  CHECK(run.ep.stats().loads == 10);
  CHECK(run.ep.stats().downloads == 10);  // the artifact is deleted too
  CHECK(run.ep.stats().artifacts_deleted == 10);
  CHECK(run.ep.stats().cache_hits == 0);
  for (std::size_t i = 0; i < rec.models.size(); ++i)
    if (rec.models[i].kind == ModelEvent::Kind::ArtifactDeleted) CHECK(rec.model_reasons[i] == "ModelCacheSetting Disabled");
}

TEST_CASE("MMS, one worker per vCPU x a 1.5 GB model on ml.c5.xlarge: the second model gets a 507") {
  InferenceScenario sc = base_scenario(2);
  sc.catalog.types[0].name = "ml.c5.xlarge";
  sc.catalog.types[0].vcpu = 4;
  sc.catalog.types[0].memory_gib = 8;  // AWS: ml.c5.xlarge 4 vCPU, 8 GiB
  sc.endpoint.instance_type = "ml.c5.xlarge";
  sc.endpoint.memory_reserved_bytes = 512ULL << 20;
  for (auto& m : sc.models) {
    m.resident_bytes = 1'500'000'000;  // per worker process: 4 workers hold 6 GB
    m.service.base = constant(Duration::s(100));
  }
  sc.server.kind = ServerSpec::Kind::Mms;
  sc.server.job_queue_size = 100;
  sc.endpoint.invocation_timeout = Duration::s(3600);  // 100 s requests: this test is about memory, not the 60 s limit
  sc.traffic.kind = TrafficSpec::Kind::Trace;
  sc.traffic.trace.counts = {{1}, {1}};  // one request of each model in minute 0
  sc.traffic.trace.minutes = 1;
  MemoryRecorder rec;
  Run run(sc, 3, &rec);
  run.go(1);
  REQUIRE(rec.requests.size() == 2);
  std::sort(rec.requests.begin(), rec.requests.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; });
  CHECK(rec.requests[0].status == 200);  // after 100 s: the scenario lifts the 60 s limit
  CHECK(rec.requests[1].status == 507);  // 6 GB + 6 GB > 7.5 GiB, and the first model is busy
  CHECK(run.ep.stats().load_failures == 1);
}

TEST_CASE("a model bigger than any instance gets a 507 at once, not a hang") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].resident_bytes = 100 * kGiB;
  sc.traffic.poisson.duration = Duration::s(5);
  sc.traffic.poisson.rate_per_s = 2;
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  REQUIRE_FALSE(rec.requests.empty());
  for (const auto& r : rec.requests) {
    CHECK(r.status == 507);
    CHECK(r.done == r.arrival);
  }
}

TEST_CASE("a full job queue answers 503 at once and never holds more than its size") {
  // 1 worker, 10 s per request, ~50 requests within the first second.
  auto make = [](ServerSpec::Kind kind) {
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::s(10));
    sc.server.kind = kind;
    sc.server.min_workers = sc.server.max_workers = 1;
    sc.server.mms_workers_per_model = 1;
    sc.server.job_queue_size = 5;
    sc.traffic.poisson.rate_per_s = 50;
    sc.traffic.poisson.duration = Duration::s(1);
    return sc;
  };
  SUBCASE("MMS: queue offer fails only when full -> 1 running + 5 queued served") {
    const InferenceScenario sc = make(ServerSpec::Kind::Mms);
    MemoryRecorder rec;
    Run run(sc, 7, &rec);
    run.go(1);
    CHECK(run.ep.stats().served == 6);
    CHECK(run.ep.stats().max_queue_seen == 5);
    for (const auto& r : rec.requests)
      if (r.status == 503) CHECK(r.done == r.arrival);
  }
  SUBCASE("DJL: one slot left and every worker busy -> 503, so 1 running + 4 queued served") {
    const InferenceScenario sc = make(ServerSpec::Kind::Djl);
    MemoryRecorder rec;
    Run run(sc, 7, &rec);
    run.go(1);
    CHECK(run.ep.stats().served == 5);
    CHECK(run.ep.stats().max_queue_seen == 4);
    CHECK(run.ep.stats().rejected_503 == run.ep.stats().requests - 5);
  }
}

TEST_CASE("DJL adds a temporary worker when the queue exceeds 2 x batch_size and retires it by the idle rule") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(1));
  sc.server.min_workers = 1;
  sc.server.max_workers = 2;
  sc.server.max_idle_time = Duration::s(60);
  // 4 requests at t = 0, 0.25, 0.5, 0.75 s (trace minute with time_scale 80: 0.75 s minute).
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = 4;
  sc.traffic.locust.spawn_rate = 4;  // users start at 0, 0.25, 0.5, 0.75 s
  sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
  sc.traffic.locust.wait_a = 1000;  // one request each
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = Duration::s(10);
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  // t=0: load (instant), permanent worker takes request 0 (busy to 1 s).
  // 0.25: queue 1; 0.5: queue 2; 0.75: queue 3 > 2 -> one temporary worker, ready at once,
  //   takes the oldest queued job (request 1) at 0.75 -> busy to 1.75.
  // 1.0: permanent worker takes request 2 (to 2.0); 1.75: temporary takes request 3 (to 2.75).
  // The temporary worker last took a batch at 1.75; after it ends at 2.75 it polls for 60 s,
  // then retires at 62.75 (idle 61 s > 60 s).
  std::vector<WorkerEvent> tmp;
  for (const auto& w : rec.workers)
    if (w.temporary) tmp.push_back(w);
  REQUIRE(tmp.size() == 3);  // Added, Ready, Retired
  CHECK(tmp[0].kind == WorkerEvent::Kind::Added);
  CHECK(tmp[0].t.ns() == 750'000'000);
  CHECK(tmp[2].kind == WorkerEvent::Kind::Retired);
  CHECK(tmp[2].t.ns() == 62'750'000'000);
  std::map<std::uint64_t, std::int64_t> done;
  for (const auto& r : rec.requests) done[r.id] = r.done.ns();
  CHECK(done[0] == 1'000'000'000);
  CHECK(done[1] == 1'750'000'000);
  CHECK(done[2] == 2'000'000'000);
  CHECK(done[3] == 2'750'000'000);
}

TEST_CASE("instances added by scale-out receive no request before their health check passes") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(10));
  sc.endpoint.max_instances = 4;
  sc.endpoint.instance_startup = constant(Duration::s(120));
  sc.endpoint.health_check = constant(Duration::s(30));
  sc.policies.instance_scaling = PolicyChoice::named("target-tracking");
  sc.policies.instance_scaling->arguments.set("target_value", "600");  // InvocationsPerInstance per minute
  sc.traffic.poisson.rate_per_s = 30;  // 1,800 per minute: wants 3 instances
  sc.traffic.poisson.duration = Duration::s(1200);
  MemoryRecorder rec;
  Run run(sc, 5, &rec);
  run.go(101);
  std::map<std::int32_t, std::int64_t> in_service;
  for (const auto& e : rec.instances)
    if (e.kind == InstanceEvent::Kind::InService) in_service[static_cast<std::int32_t>(e.instance)] = e.t.ns();
  CHECK(in_service.size() >= 3);  // scaled out
  for (const auto& r : rec.requests) {
    REQUIRE(in_service.count(r.instance));
    CHECK(r.arrival.ns() >= in_service[r.instance]);  // overhead 0: routed at arrival
  }
  // first scale-out after 3 datapoints above target: at the 3rd minute tick (180 s); the new
  // instances are in service 150 s later.
  CHECK(in_service[1] == 330'000'000'000);
}

// Application Auto Scaling User Guide, "Target tracking scaling policies", "Define cooldown
// periods": during the scale-out cooldown "the capacity added by the initiating scale-out
// activity is calculated as part of the desired capacity for the next scale-out activity", and
// the policy "won't increase the desired capacity again unless either a larger scale out is
// triggered or the cooldown period ends".
//
// One instance in service all along (the new ones take 1,000 s to start), target 100 per
// minute, per-minute counts replayed from a trace: 300, 300, 300, 300, 200, then 400 for six
// minutes. The metric ticks at the end of each minute (60 s, 120 s, ...), measured on N = 1
// instance, so a high alarm's adjustment is ceil(count / 100) - 1. By hand, with the 300 s
// cooldown:
//   180 s  datapoints 300, 300, 300: adjustment 2, no cooldown -> 1 + 2 = 3 (cooldown base 1)
//   240 s  300: adjustment 2, within the cooldown: 1 + 2 = 3, not above 3 -> ignored (same)
//   300 s  200: adjustment 1 -> 1 + 1 = 2 -> ignored (smaller)
//   360 s  400: adjustment 3 -> 1 + 3 = 4 > 3: a larger scale-out, adds 1; the cooldown
//          restarts at 360 s with base 1
//   420 .. 600 s  400: 1 + 3 = 4, not above 4 -> ignored
//   660 s  400: 660 - 360 = 300 s, the cooldown is over -> 4 + 3 = 7
// With a 600 s cooldown the alarm at 660 s is still within it (ends at 960 s): the count stays 4.
TEST_CASE("target tracking on an endpoint: the scale-out cooldown ignores the same or a smaller scale-out, not a larger one, until it ends") {
  auto run_with = [](const char* cooldown) {
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::ms(10));
    sc.endpoint.max_instances = 20;
    sc.endpoint.instance_startup = constant(Duration::s(1000));
    sc.policies.instance_scaling = PolicyChoice::named("target-tracking");
    sc.policies.instance_scaling->arguments.set("target_value", "100");
    sc.policies.instance_scaling->arguments.set("scale_out_cooldown", cooldown);
    sc.traffic.kind = TrafficSpec::Kind::Trace;
    sc.traffic.trace.counts = {{300, 300, 300, 300, 200, 400, 400, 400, 400, 400, 400}};
    sc.traffic.trace.minutes = 11;
    MemoryRecorder rec;
    Run run(sc, 9, &rec);
    run.go(1001);
    std::vector<std::pair<std::int64_t, int>> desired;  // (s, desired count after)
    for (const auto& e : rec.instances)
      if (e.kind == InstanceEvent::Kind::DesiredChanged) desired.emplace_back(e.t.ns() / 1'000'000'000, e.desired_after);
    std::int64_t first_in_service = INT64_MAX;  // of a launched instance
    for (const auto& e : rec.instances)
      if (e.kind == InstanceEvent::Kind::InService && e.instance > 0) first_in_service = std::min(first_in_service, e.t.ns());
    CHECK(first_in_service == 1180'000'000'000);  // N stayed 1 up to 660 s
    return desired;
  };
  const std::vector<std::pair<std::int64_t, int>> with_300 = {{180, 3}, {360, 4}, {660, 7}};
  const std::vector<std::pair<std::int64_t, int>> with_600 = {{180, 3}, {360, 4}};
  CHECK(run_with("300s") == with_300);
  CHECK(run_with("600s") == with_600);
}

TEST_CASE("DJL misbehaviour: a batch longer than max_idle_time retires its temporary worker; the remedy keeps it") {
  auto make = [](bool remedy) {
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::s(90));
    sc.endpoint.invocation_timeout = Duration::s(3600);  // 90 s batches: about the idle rule, not the 60 s limit
    sc.server.min_workers = 1;
    sc.server.max_workers = 2;
    sc.server.max_idle_time = Duration::s(60);
    sc.policies.autoscaling = PolicyChoice::named("djl-wlm");
    sc.policies.autoscaling.arguments.set("idle_from_batch_end", remedy ? "true" : "false");
    sc.traffic.kind = TrafficSpec::Kind::Locust;
    sc.traffic.locust.users = 4;
    sc.traffic.locust.spawn_rate = 10;  // requests at 0, 0.1, 0.2, 0.3 s
    sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
    sc.traffic.locust.wait_a = 10'000;
    LocustTraffic::Task t;
    t.popularity.first = t.popularity.last = 0;
    sc.traffic.locust.tasks = {t};
    sc.traffic.locust.duration = Duration::s(5);
    return sc;
  };
  // 0: permanent P takes r0 (to 90 s). 0.3: queue 3 > 2 -> temporary T, takes r1 (to 90.3).
  // 90: P takes r2 (to 180). 90.3: T's batch ran 90 s > 60 s ->
  //   DJL: T retires at 90.3; r3 waits for P: 180 -> 270.
  //   remedy: T takes r3 at 90.3 -> 180.3, then idles 60 s and retires at 240.3.
  for (bool remedy : {false, true}) {
    CAPTURE(remedy);
    const InferenceScenario sc = make(remedy);
    MemoryRecorder rec;
    Run run(sc, 1, &rec);
    run.go(1);
    std::map<std::uint64_t, std::int64_t> done;
    for (const auto& r : rec.requests) done[r.id] = r.done.ns();
    CHECK(done[0] == 90'000'000'000);
    CHECK(done[1] == 90'300'000'000);
    CHECK(done[2] == 180'000'000'000);
    CHECK(done[3] == (remedy ? 180'300'000'000 : 270'000'000'000));
    std::int64_t retired = -1;
    for (const auto& w : rec.workers)
      if (w.kind == WorkerEvent::Kind::Retired) retired = w.t.ns();
    CHECK(retired == (remedy ? 240'300'000'000 : 90'300'000'000));
  }
}

namespace {
/// `n` Locust users, user u sending its single request at u / spawn_rate s.
void one_request_each(InferenceScenario& sc, int n, double spawn_rate) {
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = n;
  sc.traffic.locust.spawn_rate = spawn_rate;
  sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
  sc.traffic.locust.wait_a = 100'000;
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = Duration::s(10);
}
}  // namespace

TEST_CASE("dynamic batching: batch_size fills a batch early, max_batch_delay closes it") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(1));
  sc.models[0].service.batch_marginal = 0;  // a batch costs 1 s whatever its size
  sc.server.batch_size = 4;
  sc.server.max_batch_delay = Duration::ms(100);
  sc.server.min_workers = sc.server.max_workers = 1;
  one_request_each(sc, 6, 100);  // requests at 0, 10, 20, 30, 40, 50 ms
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  // 0: the worker takes r0 and aggregates until 100 ms; r1..r3 join it; the 4th fills the
  // batch at 30 ms -> runs to 1.030 s. r4, r5 queue; at 1.030 the worker takes both, waits
  // until 1.130 for more (max_batch_delay), runs them -> 2.130 s.
  std::map<std::uint64_t, RequestDone> by;
  for (const auto& r : rec.requests) by[r.id] = r;
  REQUIRE(by.size() == 6);
  for (std::uint64_t i = 0; i < 4; ++i) {
    CHECK(by[i].done.ns() == 1'030'000'000);
    CHECK(by[i].batch == 4);
  }
  for (std::uint64_t i = 4; i < 6; ++i) {
    CHECK(by[i].done.ns() == 2'130'000'000);
    CHECK(by[i].batch == 2);
  }
  CHECK(run.ep.stats().batches == 2);
}

TEST_CASE("CPU contention: batches beyond the vCPUs share the cores (processor sharing)") {
  InferenceScenario sc = base_scenario(1);
  sc.catalog.types[0].vcpu = 2;
  sc.models[0].service.base = constant(Duration::s(1));
  sc.server.min_workers = sc.server.max_workers = 4;
  one_request_each(sc, 4, 1000);  // at 0, 1, 2, 3 ms; each 1 s of CPU on a 2-vCPU instance
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  // By hand (v = CPU each running batch has received):
  //  [0,2 ms): 1-2 batches, rate 1 -> at 2 ms b0 has 2 ms, b1 1 ms;
  //  [2,3 ms): 3 batches, rate 2/3 -> at 3 ms b0 2.6667 ms, b1 1.6667, b2 0.6667;
  //  from 3 ms: 4 batches, rate 1/2: b0 needs 997.3333 ms more -> ends 3 + 1994.6667 = 1997.6667 ms;
  //  then 3 batches, rate 2/3: b1 is 1 ms behind b0 -> + 1.5 ms = 1999.1667 ms;
  //  then 2, rate 1: b2 + 1 ms = 2000.1667 ms; then b3 + 0.6667 ms = 2000.8333 ms.
  std::map<std::uint64_t, std::int64_t> done;
  for (const auto& r : rec.requests) done[r.id] = r.done.ns();
  const double expect_ms[4] = {1997.6666667, 1999.1666667, 2000.1666667, 2000.8333333};
  for (std::uint64_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(std::abs(static_cast<double>(done[i]) - expect_ms[i] * 1e6) <= 3.0);  // ns rounding
  }
}

TEST_CASE("a full disk deletes the least recently used artifact not in memory; a deleted model downloads again") {
  // Memory holds one model (one 100 MiB worker in 150 MiB), the disk three artifacts
  // (3 x 100 MiB in 350 MiB). One request a minute: models A B C D B A (0 1 2 3 1 0).
  // Downloads take 1 s (first byte; no bandwidth term), loads 2 s, requests 20 ms.
  InferenceScenario sc = base_scenario(4);
  sc.catalog.types[0].memory_gib = 150.0 / 1024;  // 150 MiB
  sc.endpoint.ml_storage_volume_bytes = 350ULL << 20;
  for (auto& m : sc.models) m.service.base = constant(Duration::ms(20));
  sc.server.max_workers = 1;
  sc.endpoint.s3_first_byte = constant(Duration::s(1));
  sc.endpoint.load_fixed = constant(Duration::s(2));
  sc.traffic.kind = TrafficSpec::Kind::Trace;
  sc.traffic.trace.counts = {{1, 0, 0, 0, 0, 1}, {0, 1, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 0}};
  sc.traffic.trace.minutes = 6;
  MemoryRecorder rec;
  Run run(sc, 5, &rec);
  run.go(1);

  // By hand. The disk's LRU order is that of an artifact's last use: its download, a request
  // finding it on disk, or its model leaving memory (a loaded model's artifact is pinned).
  //  m0 A: download A (disk A), load A.
  //  m1 B: download B (disk A B); memory needs room: unload A (A last used now); load B.
  //  m2 C: download C (disk A B C); unload B; load C.
  //  m3 D: disk full (400 > 350 MiB); of the artifacts not in memory, A (unloaded m1) is older
  //        than B (unloaded m2): delete A; download D (disk B C D); unload C; load D.
  //  m4 B: on disk: no download; unload D; load B.
  //  m5 A: not on disk, disk full: not in memory are C (unloaded m3) and D (unloaded m4):
  //        delete C; download A again (disk B D A); unload B; load A.
  using K = ModelEvent::Kind;
  const std::vector<std::pair<K, std::uint32_t>> expected = {
      {K::DownloadStart, 0}, {K::Downloaded, 0}, {K::LoadStart, 0}, {K::Loaded, 0},                                          // m0
      {K::DownloadStart, 1}, {K::Downloaded, 1}, {K::Unloaded, 0}, {K::LoadStart, 1}, {K::Loaded, 1},                        // m1
      {K::DownloadStart, 2}, {K::Downloaded, 2}, {K::Unloaded, 1}, {K::LoadStart, 2}, {K::Loaded, 2},                        // m2
      {K::ArtifactDeleted, 0}, {K::DownloadStart, 3}, {K::Downloaded, 3}, {K::Unloaded, 2}, {K::LoadStart, 3}, {K::Loaded, 3},  // m3
      {K::Unloaded, 3}, {K::LoadStart, 1}, {K::Loaded, 1},                                                                    // m4
      {K::ArtifactDeleted, 2}, {K::DownloadStart, 0}, {K::Downloaded, 0}, {K::Unloaded, 1}, {K::LoadStart, 0}, {K::Loaded, 0},  // m5
  };
  std::vector<std::pair<K, std::uint32_t>> got;
  for (const auto& e : rec.models) got.emplace_back(e.kind, e.model);
  CHECK(got == expected);
  REQUIRE(rec.models.size() == expected.size());
  for (std::size_t i = 0; i < rec.models.size(); ++i) {
    CAPTURE(i);
    const ModelEvent& e = rec.models[i];
    if (e.kind == K::ArtifactDeleted) {
      CHECK(e.bytes == 100ULL << 20);
      CHECK(rec.model_reasons[i] == "disk space needed");
    }
    if (e.kind == K::Downloaded) CHECK(e.duration_ns == 1'000'000'000);
    if (e.kind == K::Loaded) CHECK(e.duration_ns == 2'000'000'000);
  }
  // Every request is served after its download (1 s, except B at m4) and load (2 s) and 20 ms.
  REQUIRE(rec.requests.size() == 6);
  std::sort(rec.requests.begin(), rec.requests.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; });
  const std::int64_t wait_ns[6] = {3'000'000'000, 3'000'000'000, 3'000'000'000, 3'000'000'000, 2'000'000'000, 3'000'000'000};
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(rec.requests[i].status == 200);
    CHECK_FALSE(rec.requests[i].cache_hit);
    CHECK(rec.requests[i].loading_wait_ns == wait_ns[i]);
    CHECK(rec.requests[i].done.ns() - rec.requests[i].arrival.ns() == wait_ns[i] + 20'000'000);
  }
  const EndpointStats& st = run.ep.stats();
  CHECK(st.downloads == 5);
  CHECK(st.loads == 6);
  CHECK(st.unloads == 5);
  CHECK(st.artifacts_deleted == 2);
}

// ---------------------------------------------------------------- traffic generators
// Locust's wait_time functions (locust/user/wait_time.py): a user runs a task, then waits
// `constant(a)`, `between(a, b)` (uniform), or `constant_throughput(c)` (max(0, 1/c - task time));
// the next task starts after the wait. With a 20 ms service and nothing else on the path, the
// gap between a request's answer and the user's next request is exactly that wait.

namespace {
void one_user(InferenceScenario& sc, LocustTraffic::Wait w, double a, double b, Duration duration) {
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = 1;
  sc.traffic.locust.spawn_rate = 1;
  sc.traffic.locust.wait = w;
  sc.traffic.locust.wait_a = a;
  sc.traffic.locust.wait_b = b;
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = duration;
}
/// Runs `sc` to its end and returns its requests in arrival order.
std::vector<RequestDone> requests_by_arrival(const InferenceScenario& sc, std::uint64_t seed) {
  MemoryRecorder rec;
  Run run(sc, seed, &rec);
  run.go();
  std::vector<RequestDone> v = std::move(rec.requests);
  std::sort(v.begin(), v.end(), [](const RequestDone& x, const RequestDone& y) { return x.arrival < y.arrival; });
  return v;
}
}  // namespace

TEST_CASE("Locust constant(a): every next request starts exactly a after the answer") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(20));
  one_user(sc, LocustTraffic::Wait::Constant, 0.5, 0, Duration::s(100));
  const auto r = requests_by_arrival(sc, 1);
  // Cycle 20 ms + 500 ms from t = 0 while the start is before 100 s: ceil(100 / 0.52) = 193.
  CHECK(r.size() == 193);
  for (std::size_t i = 0; i + 1 < r.size(); ++i) CHECK((r[i + 1].arrival - r[i].done).count_ns() == 500'000'000);
}

TEST_CASE("Locust between(a, b): waits uniform on [a, b] (mean and variance within z-bounds)") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(20));
  one_user(sc, LocustTraffic::Wait::Between, 1.0, 3.0, Duration::s(20000));
  const auto r = requests_by_arrival(sc, 7);
  REQUIRE(r.size() > 5000);  // ~ 20000 / 2.02
  double sum = 0, sum2 = 0;
  const double n = static_cast<double>(r.size() - 1);
  for (std::size_t i = 0; i + 1 < r.size(); ++i) {
    const double w = static_cast<double>((r[i + 1].arrival - r[i].done).count_ns()) / 1e9;
    CHECK(w >= 1.0);
    CHECK(w <= 3.0);
    sum += w;
    sum2 += w * w;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // U(1, 3): mean 2, variance (3 - 1)^2 / 12 = 1/3; the mean's standard error sqrt(1/3 / n).
  CHECK(std::abs(mean - 2.0) < 4 * std::sqrt(1.0 / 3.0 / n));
  // The sample variance's standard error for a uniform: sqrt((mu4 - sigma^4) / n) with
  // mu4 = (b - a)^4 / 80 = 0.2, sigma^4 = 1/9.
  CHECK(std::abs(var - 1.0 / 3.0) < 4 * std::sqrt((0.2 - 1.0 / 9.0) / n));
}

TEST_CASE("Locust constant_throughput(c): a task that runs longer than 1/c is followed at once") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::ms(300));
  one_user(sc, LocustTraffic::Wait::ConstantThroughput, 5.0, 0, Duration::s(30));  // 1/c = 200 ms < 300 ms
  const auto r = requests_by_arrival(sc, 1);
  CHECK(r.size() == 100);  // back to back, 300 ms each, starts at 0, 0.3, ..., 29.7 s
  for (std::size_t i = 0; i + 1 < r.size(); ++i) CHECK(r[i + 1].arrival == r[i].done);
}

TEST_CASE("Locust weighted tasks: the share of each task is its weight's (binomial z-bound)") {
  InferenceScenario sc = base_scenario(2);
  for (auto& m : sc.models) m.service.base = constant(Duration::ms(1));
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = 20;
  sc.traffic.locust.spawn_rate = 20;
  sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
  sc.traffic.locust.wait_a = 0.1;
  LocustTraffic::Task t0, t1;
  t0.weight = 8;
  t0.popularity.first = t0.popularity.last = 0;
  t1.weight = 1;
  t1.popularity.first = t1.popularity.last = 1;
  sc.traffic.locust.tasks = {t0, t1};
  sc.traffic.locust.duration = Duration::s(300);
  MemoryRecorder rec;
  Run run(sc, 5, &rec);
  run.go();
  const double n = static_cast<double>(rec.requests.size());
  REQUIRE(n > 50000);
  double zero = 0;
  for (const auto& q : rec.requests) zero += q.model == 0 ? 1 : 0;
  const double p = 8.0 / 9.0;
  CHECK(std::abs(zero / n - p) < 4 * std::sqrt(p * (1 - p) / n));
}

TEST_CASE("trace replay with time_scale 2: minute m's counts arrive within [30 m, 30 (m + 1)) s") {
  // Two models, per-minute counts as the Azure adapter gives them; replay from minute 1, two
  // minutes, twice as fast: trace minute 1 -> [0, 30) s, minute 2 -> [30, 60) s.
  InferenceScenario sc = base_scenario(2);
  for (auto& m : sc.models) m.service.base = constant(Duration::ms(1));
  sc.traffic.kind = TrafficSpec::Kind::Trace;
  sc.traffic.trace.counts = {{9, 3, 5, 8}, {9, 2, 0, 8}};
  sc.traffic.trace.time_scale = 2.0;
  sc.traffic.trace.first_minute = 1;
  sc.traffic.trace.minutes = 2;
  MemoryRecorder rec;
  Run run(sc, 3, &rec);
  run.go();
  std::map<std::pair<int, std::uint32_t>, int> got;  // (window, model) -> requests
  for (const auto& q : rec.requests) {
    const std::int64_t t = (q.arrival - core::Time::zero()).count_ns();
    REQUIRE(t >= 0);
    REQUIRE(t < 60'000'000'000);
    ++got[{static_cast<int>(t / 30'000'000'000), q.model}];
  }
  CHECK(rec.requests.size() == 10);  // 3 + 2 + 5 + 0
  CHECK(got[{0, 0}] == 3);
  CHECK(got[{0, 1}] == 2);
  CHECK(got[{1, 0}] == 5);
  CHECK(got[{1, 1}] == 0);
}

namespace {
/// A user's router: each request to the next in-service instance in id order, from `start`.
class RoundRobin final : public policy::serving::RoutingPolicy {
 public:
  explicit RoundRobin(int start) : next_(static_cast<std::size_t>(start)) {}
  std::string_view name() const override { return "round-robin"; }
  policy::serving::RouteDecision route(ModelId, policy::serving::Nanos, std::span<const policy::serving::InstanceView>,
                                       const policy::serving::InstanceList& everyone) override {
    const auto all = everyone.all();
    const policy::serving::InstanceView& v = all[next_++ % all.size()];
    return {v.instance, !v.model_present, {}};
  }

 private:
  std::size_t next_;
};
}  // namespace

TEST_CASE("a routing policy registered by the user is chosen by name like a built-in, and checked") {
  namespace ps = policy::serving;
  ps::routing_registry().add(
      "round-robin",
      [](const policy::Arguments& a) -> std::unique_ptr<ps::RoutingPolicy> { return std::make_unique<RoundRobin>(a.get_int("start", 0)); },
      std::vector<policy::ArgSpec>{policy::ArgSpec::of("start", policy::ArgType::Int, "0", "the test")}, "the test's");
  InferenceScenario sc = base_scenario(1);
  sc.endpoint.initial_instances = sc.endpoint.min_instances = sc.endpoint.max_instances = 3;
  sc.policies.routing = PolicyChoice::named("round-robin");
  sc.policies.routing.arguments.set("start", "1");
  MemoryRecorder rec;
  {
    Run run(sc, 2, &rec);
    run.go();
  }
  // Overhead 0: requests are routed in arrival order, so request k (0-based) went to (1 + k) mod 3.
  std::vector<std::pair<std::int64_t, std::int32_t>> by_arrival;
  for (const auto& r : rec.requests) by_arrival.emplace_back(r.arrival.ns(), r.instance);
  std::sort(by_arrival.begin(), by_arrival.end());
  REQUIRE(by_arrival.size() > 50);  // about 100 requests in 100 s
  for (std::size_t k = 0; k < by_arrival.size(); ++k) CHECK(by_arrival[k].second == static_cast<std::int32_t>((1 + k) % 3));
  // Removed, the name is unknown again (a built-in's name would get the built-in back).
  CHECK(ps::routing_registry().remove("round-robin"));
  CHECK_THROWS_WITH_AS((void)default_policies(sc), doctest::Contains("unknown routing policy 'round-robin'"), std::invalid_argument);
  CHECK(ps::routing_registry().has("cache-aware"));
}

namespace {
class Elsewhere final : public policy::serving::RoutingPolicy {
 public:
  std::string_view name() const override { return "elsewhere"; }
  policy::serving::RouteDecision route(ModelId, policy::serving::Nanos, std::span<const policy::serving::InstanceView>,
                                       const policy::serving::InstanceList&) override {
    return {7, true, {}};
  }
};
}  // namespace

TEST_CASE("a routing decision naming an instance not in service stops the run with the policy's name") {
  InferenceScenario sc = base_scenario(1);
  core::Simulator sim;
  core::RngStreams rng(1);
  PolicySet p = default_policies(sc);
  p.routing = std::make_unique<Elsewhere>();
  Endpoint ep(sim, sc, rng, nullptr, nullptr, std::move(p));
  ep.start();
  CHECK_THROWS_WITH_AS(
      [&] {
        while (sim.step()) {
        }
      }(),
      doctest::Contains("routing policy 'elsewhere' chose instance 7, which is not in service"), std::logic_error);
}

namespace {
/// `users` Locust users spawned 0.1 s apart (requests at 0, 0.1, 0.2, ... s), each sending one
/// request of model 0 and then waiting 10,000 s: one request each within the test's horizon.
void one_request_each(InferenceScenario& sc, int users) {
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = users;
  sc.traffic.locust.spawn_rate = 10;
  sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
  sc.traffic.locust.wait_a = 10'000;
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = Duration::s(1);
}
std::map<std::uint64_t, RequestDone> by_id(const MemoryRecorder& rec) {
  std::map<std::uint64_t, RequestDone> m;
  for (const auto& r : rec.requests) m[r.id] = r;
  return m;
}
}  // namespace

// SageMaker Runtime API Reference, InvokeEndpoint: "A customer's model containers must respond
// to requests within 60 seconds"; ModelError is HTTP 424. The container is not told (SageMaker
// documents no cancellation), so its worker runs the request to the end.
TEST_CASE("invocation timeout: a request the container holds past 60 s is a 424 ModelError, and still runs") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(50));
  sc.server.min_workers = 1;
  sc.server.max_workers = 1;  // one worker: the jobs queue behind each other
  one_request_each(sc, 3);    // r0 at 0, r1 at 0.1 s, r2 at 0.2 s
  MemoryRecorder rec;
  MetricsAggregator agg(Duration::s(60), Time::zero(), &rec);
  Run run(sc, 1, &rec, &agg);
  run.go(1);
  const auto r = by_id(rec);
  REQUIRE(r.size() == 3);
  // r0: 0 -> 50 s, within 60 s: 200 with ModelLatency 50 s.
  CHECK(r.at(0).status == 200);
  CHECK(r.at(0).done.ns() == 50'000'000'000);
  CHECK(r.at(0).model_latency_ns == 50'000'000'000);
  // r1 waits for r0 and would finish at 100 s; its deadline is 0.1 + 60 = 60.1 s: 424 then.
  CHECK(r.at(1).status == 424);
  CHECK(r.at(1).done.ns() == 60'100'000'000);
  CHECK(r.at(1).model_latency_ns == 0);  // not a served request: no ModelLatency
  // r2 would finish at 150 s; deadline 60.2 s.
  CHECK(r.at(2).status == 424);
  CHECK(r.at(2).done.ns() == 60'200'000'000);
  const auto& st = run.ep.stats();
  CHECK(st.served == 1);
  CHECK(st.timed_out_424 == 2);
  CHECK(st.not_ready_429 == 0);
  // The worker ran all three (the last batch ended at 150 s) and let go of them.
  CHECK(st.batches == 3);
  CHECK(st.abandoned_in_container == 0);
  CHECK(run.ep.last_event().ns() == 150'000'000'000);
  // Latency statistics count the one 200 only; the 424s are InvocationModelErrors.
  CHECK(agg.totals().served == 1);
  CHECK(agg.totals().status_424 == 2);
  CHECK(agg.totals().status_4xx == 0);
  CHECK(agg.model_latency_summary().max_us == doctest::Approx(50e6).epsilon(0.01));
  std::uint64_t model_errors = 0;
  for (const auto& m : rec.minutes) model_errors += m.invocation_model_errors;
  CHECK(model_errors == 2);
}

// Developer Guide, "Invoke a Multi-Model Endpoint": "If the model does not finish loading
// before the 60 second timeout limit, the request to invoke_endpoint returns with the error
// code ModelNotReadyException, and the model continues to download and load into the inference
// container for up to 360 seconds." ModelNotReadyException is HTTP 429 (InvokeEndpoint, Errors).
TEST_CASE("invocation timeout: a request waiting for its model's load past 60 s is a 429 ModelNotReadyException; the load goes on") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(1));
  sc.endpoint.load_fixed = constant(Duration::s(100));  // the load ends at 100 s
  one_request_each(sc, 1);
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  const auto r = by_id(rec);
  REQUIRE(r.size() == 1);
  CHECK(r.at(0).status == 429);
  CHECK(r.at(0).done.ns() == 60'000'000'000);
  CHECK(r.at(0).loading_wait_ns == 60'000'000'000);  // ModelLoadingWaitTime up to the timeout
  const auto& st = run.ep.stats();
  CHECK(st.not_ready_429 == 1);
  CHECK(st.loads == 1);  // loaded at 100 s all the same
  bool loaded_at_100 = false;
  for (const auto& e : rec.models)
    if (e.kind == ModelEvent::Kind::Loaded) loaded_at_100 = e.t.ns() == 100'000'000'000;
  CHECK(loaded_at_100);
}

// The same page: the model "continues to download and load into the inference container for
// up to 360 seconds". What happens after is not documented; mltwin abandons the download-and-load
// at 360 s from the download's start (LoadFailed, the memory freed, the downloaded artifact kept
// on disk) and answers the requests still waiting 429 at once (EndpointSpec::model_load_limit).
//
// One Locust user, constant wait 260 s after each answer, for 1,000 s; the artifact's download
// takes 100 s (first byte; no bandwidth term), its load 300 s, a request 1 s of service. By hand:
//   r0 at 0 s: DownloadStart 0 s, Downloaded 100 s, LoadStart 100 s; the load would end at
//      400 s > 0 + 360 s. r0's 60 s deadline: 429 at 60 s (waited 60 s).
//   r1 at 60 + 260 = 320 s waits; at 360 s the load is abandoned (LoadFailed) and r1 gets 429
//      at 360 s (waited 40 s).
//   r2 at 360 + 260 = 620 s: the artifact is on disk, no download: LoadStart 620 s, Loaded at
//      920 s (300 s <= 360 s). r2's deadline: 429 at 680 s (waited 60 s).
//   r3 at 680 + 260 = 940 s: loaded, a hit: 200 at 941 s. The next would come at 1,201 s, after
//      the 1,000 s: none.
// With a 260 s load instead the first load ends at 100 + 260 = 360 s, within the limit ("up to
// 360 seconds"): Loaded at 360 s, r1 (at 320 s) served at 361 s.
TEST_CASE("multi-model endpoint: a download and load not done 360 s after it began is abandoned; its waiting requests get 429") {
  auto make = [](Duration load) {
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::s(1));
    sc.endpoint.s3_first_byte = constant(Duration::s(100));
    sc.endpoint.load_fixed = constant(load);
    sc.traffic.kind = TrafficSpec::Kind::Locust;
    sc.traffic.locust.users = 1;
    sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
    sc.traffic.locust.wait_a = 260;
    LocustTraffic::Task t;
    t.popularity.first = t.popularity.last = 0;
    sc.traffic.locust.tasks = {t};
    sc.traffic.locust.duration = Duration::s(1000);
    return sc;
  };
  constexpr std::int64_t kS = 1'000'000'000;
  SUBCASE("a 300 s load after a 100 s download: abandoned at 360 s") {
    const InferenceScenario sc = make(Duration::s(300));
    MemoryRecorder rec;
    Run run(sc, 1, &rec);
    run.go(1);  // invariants after every event: memory and disk accounting included
    const auto r = by_id(rec);
    REQUIRE(r.size() == 4);
    const std::vector<std::tuple<std::int64_t, int, std::int64_t, std::int64_t>> want = {
        // arrival, status, done, loading wait (s)
        {0, 429, 60, 60}, {320, 429, 360, 40}, {620, 429, 680, 60}, {940, 200, 941, 0}};
    for (std::uint64_t id = 0; id < 4; ++id) {
      CAPTURE(id);
      const auto& [arrival, status, done, wait] = want[id];
      CHECK(r.at(id).arrival.ns() == arrival * kS);
      CHECK(r.at(id).status == status);
      CHECK(r.at(id).done.ns() == done * kS);
      CHECK(r.at(id).loading_wait_ns == wait * kS);
    }
    CHECK(r.at(3).cache_hit);
    std::vector<std::pair<ModelEvent::Kind, std::int64_t>> events;
    for (const auto& e : rec.models) events.emplace_back(e.kind, e.t.ns() / kS);
    const std::vector<std::pair<ModelEvent::Kind, std::int64_t>> want_events = {
        {ModelEvent::Kind::DownloadStart, 0}, {ModelEvent::Kind::Downloaded, 100}, {ModelEvent::Kind::LoadStart, 100},
        {ModelEvent::Kind::LoadFailed, 360}, {ModelEvent::Kind::LoadStart, 620},     {ModelEvent::Kind::Loaded, 920}};
    CHECK(events == want_events);
    const auto& st = run.ep.stats();
    CHECK(st.not_ready_429 == 3);
    CHECK(st.served == 1);
    CHECK(st.load_failures == 1);
    CHECK(st.downloads == 1);  // the artifact stayed on disk
    CHECK(st.loads == 1);
  }
  SUBCASE("a 400 s download: abandoned at 360 s, nothing kept on disk, downloaded again") {
    // r0 at 0 s: DownloadStart 0 s, abandoned at 360 s (the disk space freed); r0 429 at 60 s.
    // r1 at 320 s: 429 at 360 s. r2 at 620 s: the artifact is not on disk, DownloadStart
    // 620 s, abandoned at 980 s; r2 429 at 680 s. r3 at 940 s waits: 429 at 980 s. The next
    // would come at 1,240 s: none.
    InferenceScenario sc = make(Duration::s(300));
    sc.endpoint.s3_first_byte = constant(Duration::s(400));
    MemoryRecorder rec;
    Run run(sc, 1, &rec);
    run.go(1);
    const auto r = by_id(rec);
    REQUIRE(r.size() == 4);
    const std::int64_t done[] = {60, 360, 680, 980};
    for (std::uint64_t id = 0; id < 4; ++id) {
      CAPTURE(id);
      CHECK(r.at(id).status == 429);
      CHECK(r.at(id).done.ns() == done[id] * kS);
    }
    std::vector<std::pair<ModelEvent::Kind, std::int64_t>> events;
    for (const auto& e : rec.models) events.emplace_back(e.kind, e.t.ns() / kS);
    const std::vector<std::pair<ModelEvent::Kind, std::int64_t>> want_events = {
        {ModelEvent::Kind::DownloadStart, 0}, {ModelEvent::Kind::LoadFailed, 360},
        {ModelEvent::Kind::DownloadStart, 620}, {ModelEvent::Kind::LoadFailed, 980}};
    CHECK(events == want_events);
    CHECK(run.ep.stats().downloads == 2);
    CHECK(run.ep.stats().load_failures == 2);
    CHECK(run.ep.snapshot().at(0).disk_used == 0);
    CHECK(run.ep.snapshot().at(0).memory_used == 0);
  }
  SUBCASE("a 260 s load: done at 360 s exactly, within the limit") {
    const InferenceScenario sc = make(Duration::s(260));
    MemoryRecorder rec;
    Run run(sc, 1, &rec);
    run.go(1);
    const auto r = by_id(rec);
    REQUIRE(r.size() >= 2);
    CHECK(r.at(0).status == 429);
    CHECK(r.at(1).arrival.ns() == 320 * kS);
    CHECK(r.at(1).status == 200);
    CHECK(r.at(1).done.ns() == 361 * kS);
    CHECK(run.ep.stats().load_failures == 0);
  }
}

// DJL Serving 0.23.0, WorkLoadManager.runJob (lines 107-115): with no running worker,
// WorkerPool.isAllWorkerDied() is true, so the request is refused (WlmCapacityException, 503)
// and scaleUp starts one worker; requests arriving while it starts are queued (a worker is
// running from its construction). WorkerPool.doScaleWorker starts minWorkers (0) permanent ones.
TEST_CASE("DJL minWorkers 0: the first request gets 503 while a worker starts; the next ones wait for it") {
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(1));
  sc.server.min_workers = 0;
  sc.server.max_workers = 2;
  sc.server.worker_startup = constant(Duration::s(5));
  one_request_each(sc, 3);  // r0 at 0, r1 at 0.1 s, r2 at 0.2 s
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  const auto r = by_id(rec);
  REQUIRE(r.size() == 3);
  CHECK(r.at(0).status == 503);  // at 0: no worker -> 503, one worker added (ready at 5 s)
  CHECK(r.at(0).done.ns() == 0);
  // r1 and r2 queued (queue 1 and 2, not > 2 x batch_size: no second worker); the worker takes
  // r1 at 5 s (done 6 s), then r2 (done 7 s).
  CHECK(r.at(1).status == 200);
  CHECK(r.at(1).done.ns() == 6'000'000'000);
  CHECK(r.at(2).status == 200);
  CHECK(r.at(2).done.ns() == 7'000'000'000);
  CHECK(run.ep.stats().workers_added == 1);
  CHECK(run.ep.stats().stranded_jobs == 0);
}

namespace {
/// Scripted open-loop traffic: one request for each (second, model), registered in
/// traffic_registry() as "scripted-test" while the object lives (the scenario names it).
class Scripted {
 public:
  Scripted(InferenceScenario& sc, std::vector<std::pair<double, std::uint32_t>> arrivals) {
    auto list = std::make_shared<const std::vector<std::pair<double, std::uint32_t>>>(std::move(arrivals));
    traffic_registry().add("scripted-test", [list](const policy::Arguments&) -> std::unique_ptr<TrafficKind> {
      return std::make_unique<Kind>(list);
    });
    sc.traffic.source = "scripted-test";
  }
  ~Scripted() { traffic_registry().remove("scripted-test"); }
  Scripted(const Scripted&) = delete;
  Scripted& operator=(const Scripted&) = delete;

 private:
  using List = std::shared_ptr<const std::vector<std::pair<double, std::uint32_t>>>;
  struct Source final : TrafficSource, core::EventHandler {
    core::Simulator& sim;
    FrontEnd& front;
    List list;
    Source(core::Simulator& s, FrontEnd& f, List l) : sim(s), front(f), list(std::move(l)) {}
    void start() override {
      for (std::size_t i = 0; i < list->size(); ++i) sim.schedule(core::Time::zero() + Duration::from_seconds((*list)[i].first), this, i);
    }
    void on_event(core::Simulator&, std::uint64_t i) override {
      front.before_event();
      front.arrive((*list)[i].second, -1);
    }
    bool active() const override { return !list->empty() && sim.now() < core::Time::zero() + Duration::from_seconds(list->back().first); }
  };
  struct Kind final : TrafficKind {
    List list;
    explicit Kind(List l) : list(std::move(l)) {}
    std::unique_ptr<TrafficSource> make(const TrafficContext& c) const override { return std::make_unique<Source>(c.sim, c.front, list); }
  };
};
}  // namespace

// When does a DJL Serving 0.23.0 model take memory? A Python-engine model's memory is its worker
// processes'. Registration (WorkerPool.initWorkers -> ModelInfo.load -> PyModel.load) starts no
// process outside MPI mode (engines/python/.../PyModel.java, load(): only the MPI branch calls
// createAllPyProcesses); each worker starts its own (WorkerGroup.addThreads -> WorkerThread's
// constructor, `predictor = model.newPredictor()` -> PyModel.newPredictor -> new PyProcess,
// startPythonProcess, whose first request, "initialize model with an empty request"
// (PyProcess.java), makes the handler load the model); doScaleWorker starts minWorkers of them.
// So with minWorkers 0 neither the load nor the loaded model holds memory; only a started worker
// does. (The load still needs one copy free: the stand-in for ModelInfo.checkAvailableMemory.)
//
// Two models, A (100 MiB resident) and B (200 MiB), 250 MiB for models; downloads instantaneous,
// loads 10 s, worker start 3 s, max_idle_time 10 s, minWorkers 0, maxWorkers 1. By hand:
//    0 s  a0 (A): A's load starts: 100 MiB must be free (250 are), nothing taken. At 5 s: 0 used.
//   10 s  A loaded, holding nothing; a0 enters A's pool with no worker: 503, and one temporary
//         worker starts (100 MiB): 100 used. Ready at 13 s, polls until 23 s.
//   23 s  13 s idle > 10 s: it retires: A is loaded and holds nothing — 0 used at 30 s.
//   40 s  b0 (B): B's load starts (200 MiB free needed, 250 are); nothing taken: 0 used at 45 s.
//   46 s  a1 (A): no worker: 503, and a worker starts at once: 100 MiB of the 250 free.
// (When the load took one copy, B held 200 MiB from 40 s to 50 s, and A's worker at 46 s found
// 50 MiB free, B not evictable while loading: ScaleUpSkipped.)
TEST_CASE("DJL minWorkers 0: neither the load nor the loaded model holds memory; a worker takes its copy when it starts") {
  InferenceScenario sc = base_scenario(2);
  sc.models[0].resident_bytes = 100ULL << 20;
  sc.models[1].resident_bytes = 200ULL << 20;
  for (auto& m : sc.models) m.service.base = constant(Duration::s(1));
  sc.endpoint.memory_reserved_bytes = 64 * kGiB - (250ULL << 20);  // 250 MiB for models
  sc.endpoint.load_fixed = constant(Duration::s(10));
  sc.server.min_workers = 0;
  sc.server.max_workers = 1;
  sc.server.worker_startup = constant(Duration::s(3));
  sc.server.max_idle_time = Duration::s(10);
  Scripted traffic(sc, {{0, 0}, {40, 1}, {46, 0}});
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.ep.start();
  constexpr std::int64_t kS = 1'000'000'000;
  auto used_at = [&](std::int64_t s) {
    run.sim.run_until(core::Time::from_ns(s * kS));
    run.ep.check_invariants();
    return run.ep.snapshot().at(0).memory_used;
  };
  CHECK(used_at(5) == 0);               // A loading
  CHECK(used_at(12) == 100ULL << 20);   // A's temporary worker
  CHECK(used_at(30) == 0);              // A loaded, its worker retired at 23 s
  REQUIRE(run.ep.snapshot().at(0).models.size() == 1);
  CHECK(std::string(run.ep.snapshot().at(0).models[0].state) == "Loaded");
  CHECK(run.ep.snapshot().at(0).models[0].workers == 0);
  CHECK(used_at(45) == 0);              // B loading
  CHECK(used_at(47) == 100ULL << 20);   // A's worker, started at 46 s
  std::vector<std::pair<WorkerEvent::Kind, std::int64_t>> a_workers;
  for (const auto& w : rec.workers)
    if (w.model == 0) a_workers.emplace_back(w.kind, w.t.ns());
  const std::vector<std::pair<WorkerEvent::Kind, std::int64_t>> want = {
      {WorkerEvent::Kind::Added, 10 * kS}, {WorkerEvent::Kind::Ready, 13 * kS}, {WorkerEvent::Kind::Retired, 23 * kS},
      {WorkerEvent::Kind::Added, 46 * kS}};
  CHECK(a_workers == want);
  const auto r = by_id(rec);
  REQUIRE(r.size() == 2);  // a0 and a1 answered so far (b0 waits for B's load)
  CHECK(r.at(0).status == 503);
  CHECK(r.at(0).done.ns() == 10 * kS);
  CHECK(r.at(2).status == 503);
  CHECK(r.at(2).done.ns() == 46 * kS);
  CHECK(run.ep.stats().scale_ups_skipped == 0);
  while (run.sim.step()) {}
  run.ep.check_invariants();
  run.ep.finish();
}

// DJL Serving 0.23.0: a temporary worker retires at the top of its loop once more than
// max_idle_time has passed since it took its last batch (WorkerThread.run line 92,
// TemporaryBatchAggregator.isFinished), whatever the queue holds; nothing else polls the queue.
// With minWorkers 0 the queued jobs are stranded: their callers get SageMaker's 424 at 60 s.
TEST_CASE("DJL minWorkers 0: jobs queued when the last worker retires are stranded; minWorkers 1 avoids it") {
  auto make = [](int min_workers) {
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::s(70));  // longer than max_idle_time
    sc.server.min_workers = min_workers;
    sc.server.max_workers = 2;
    sc.server.max_idle_time = Duration::s(60);
    sc.server.worker_startup = constant(Duration::s(5));
    one_request_each(sc, 3);
    return sc;
  };
  SUBCASE("minWorkers 0: stranded") {
    MemoryRecorder rec;
    const InferenceScenario sc = make(0);  // the Endpoint keeps a reference: it must outlive the run
    Run run(sc, 1, &rec);
    run.go(1);
    const auto r = by_id(rec);
    REQUIRE(r.size() == 3);
    // r0 at 0: 503, a temporary worker T starts (ready at 5 s, idle since its creation at 0).
    CHECK(r.at(0).status == 503);
    // T takes r1 at 5 s (idle_since = 5 s), runs it to 75 s; r1's deadline 60.1 s: 424.
    CHECK(r.at(1).status == 424);
    CHECK(r.at(1).done.ns() == 60'100'000'000);
    // r2 stays queued; deadline 60.2 s: 424. At 75 s, T: 75 - 5 = 70 s > 60 s -> retires with r2
    // still queued: stranded, and nothing polls the queue again.
    CHECK(r.at(2).status == 424);
    const auto& st = run.ep.stats();
    CHECK(st.stranded_jobs == 1);
    CHECK(st.batches == 1);
    CHECK(st.abandoned_in_container == 1);  // r2, in the queue when the run ended
    CHECK(st.unserved_at_end == 0);         // its caller had its answer
    // The metrics tick at 60 s saw requests in flight and ticked again at 120 s; nothing was
    // in flight or pending then, and nothing can ever take r2: the run ends there.
    CHECK(run.ep.last_event().ns() == 120'000'000'000);
  }
  SUBCASE("minWorkers 1: the permanent worker drains the queue") {
    MemoryRecorder rec;
    const InferenceScenario sc = make(1);  // the Endpoint keeps a reference: it must outlive the run
    Run run(sc, 1, &rec);
    run.go(1);
    const auto r = by_id(rec);
    REQUIRE(r.size() == 3);
    // P takes r0 at 0 (to 70 s), then r1 (to 140 s), then r2 (to 210 s): all past 60 s -> 424,
    // but nothing is stranded and the container finishes all three.
    for (std::uint64_t id = 0; id < 3; ++id) CHECK(r.at(id).status == 424);
    const auto& st = run.ep.stats();
    CHECK(st.stranded_jobs == 0);
    CHECK(st.batches == 3);
    CHECK(st.abandoned_in_container == 0);
    CHECK(run.ep.last_event().ns() == 210'000'000'000);
  }
}

// A request stranded twice is one stranded request: EndpointStats::stranded_jobs counts
// requests, not strandings (it once added the queue length at every last-worker retirement).
TEST_CASE("DJL minWorkers 0: a request stranded twice is counted once") {
  constexpr std::int64_t kS = 1'000'000'000;
  InferenceScenario sc = base_scenario(1);
  sc.models[0].service.base = constant(Duration::s(10));
  sc.server.min_workers = 0;
  sc.server.max_workers = 1;
  sc.server.max_idle_time = Duration::s(5);
  sc.server.worker_startup = constant(Duration::ms(500));
  // Six Locust users spawned 1 s apart (requests r0..r5 at 0, 1, ..., 5 s), each waiting 30 s
  // after its answer; the users stop at 31 s, so only user 0 (answered 503 at 0) sends again:
  // r6 at 30 s.
  sc.traffic.kind = TrafficSpec::Kind::Locust;
  sc.traffic.locust.users = 6;
  sc.traffic.locust.spawn_rate = 1;
  sc.traffic.locust.wait = LocustTraffic::Wait::Constant;
  sc.traffic.locust.wait_a = 30;
  LocustTraffic::Task t;
  t.popularity.first = t.popularity.last = 0;
  sc.traffic.locust.tasks = {t};
  sc.traffic.locust.duration = Duration::s(31);
  MemoryRecorder rec;
  Run run(sc, 1, &rec);
  run.go(1);
  const auto r = by_id(rec);
  REQUIRE(r.size() == 7);
  // 0 s: r0, no running worker: 503; a temporary worker T1 starts (idle since 0), ready at 0.5 s
  // (0.5 s idle <= 5 s: it polls).
  CHECK(r.at(0).status == 503);
  // 1 s: T1 takes r1 (idle since 1 s) and runs it to 11 s. 2..5 s: r2..r5 queue (no second
  // worker: maxWorkers 1).
  CHECK(r.at(1).status == 200);
  CHECK(r.at(1).done.ns() == 11 * kS);
  // 11 s: T1 idle 11 - 1 = 10 s > 5 s: retires, the last worker: r2, r3, r4, r5 stranded (4).
  // 30 s: r6 finds no running worker: 503; T2 starts (idle since 30 s), ready at 30.5 s, takes
  // r2 (deadline 2 + 60 = 62 s) and runs it to 40.5 s.
  CHECK(r.at(6).status == 503);
  CHECK(r.at(6).done.ns() == 30 * kS);
  CHECK(r.at(2).status == 200);
  CHECK(r.at(2).done.ns() == 40'500'000'000);
  // 40.5 s: T2 idle 40.5 - 30.5 = 10 s > 5 s: retires with r3, r4, r5 queued, stranded again.
  // They time out at 3 + 60, 4 + 60, 5 + 60 s: 424.
  for (std::uint64_t id = 3; id <= 5; ++id) {
    CHECK(r.at(id).status == 424);
    CHECK(r.at(id).done.ns() == static_cast<std::int64_t>(id + 60) * kS);
  }
  const auto& st = run.ep.stats();
  CHECK(st.requests == 7);
  // Distinct stranded requests: r2..r5 = 4 (the sum of queue lengths, 4 + 3 = 7, counted r3..r5
  // twice).
  CHECK(st.stranded_jobs == 4);
  CHECK(st.workers_retired == 2);
  CHECK(st.batches == 2);
  CHECK(st.abandoned_in_container == 3);  // r3, r4, r5
}

TEST_CASE("SingleModel endpoint: a scaled-out instance registers load_models before its health check; other models get 404") {
  // Two models of 1 GB artifacts; the server registers m0 only. The scaling policy (the
  // test's) wants 2 instances at its first evaluation (60 s). By hand, the new instance:
  // launched 60 s; container started after instance_startup 100 s (160 s); the model store
  // (2 GB) copied in 0.1 s + 16 Gb / 8 Gb/s = 2.1 s (162.1 s); m0 loaded in 0.5 s + 1 GB /
  // 2 GB/s = 1 s (163.1 s); health check 20 s: in service at 183.1 s, and no request reaches it
  // before. The initial instance holds m0 from t = 0 (Loaded, 0 s). Requests for m1 get 404.
  struct Script final : mltwin::policy::serving::InstanceScalingPolicy {
    std::string_view name() const override { return "script"; }
    mltwin::policy::serving::ScalingDecision evaluate(const mltwin::policy::serving::ScalingObservation& o) override {
      return {2, o.instances_desired == 2 ? "" : "out"};
    }
  };
  InferenceScenario sc = base_scenario(2);
  for (auto& m : sc.models) {
    m.artifact_bytes = 1'000'000'000;
    m.service.base = constant(Duration::ms(10));
  }
  sc.endpoint.mode = EndpointSpec::Mode::SingleModel;
  sc.server.load_models = {0};
  sc.endpoint.max_instances = 2;
  sc.endpoint.instance_startup = constant(Duration::s(100));
  sc.endpoint.health_check = constant(Duration::s(20));
  sc.endpoint.s3_first_byte = constant(Duration::ms(100));
  sc.endpoint.s3_download_gbps = 8;
  sc.endpoint.load_fixed = constant(Duration::ms(500));
  sc.endpoint.load_gbytes_per_s = 2;
  sc.traffic.poisson.rate_per_s = 2;
  sc.traffic.poisson.duration = Duration::s(300);
  sc.traffic.poisson.popularity.last = 1;
  MemoryRecorder rec;
  core::Simulator sim;
  core::RngStreams rng(7);
  PolicySet pol = default_policies(sc);
  pol.scaling = std::make_unique<Script>();
  Endpoint ep(sim, sc, rng, &rec, nullptr, std::move(pol));
  ep.start();
  while (sim.step()) {}
  ep.check_invariants();
  ep.finish();
  constexpr std::int64_t kS = 1'000'000'000;
  std::vector<std::pair<std::int64_t, InstanceEvent::Kind>> inst1;
  for (const auto& e : rec.instances)
    if (e.instance == 1 && e.kind != InstanceEvent::Kind::DesiredChanged) inst1.emplace_back(e.t.ns(), e.kind);
  REQUIRE(inst1.size() == 2);
  CHECK(inst1[0] == std::pair{60 * kS, InstanceEvent::Kind::Launched});
  CHECK(inst1[1] == std::pair{183 * kS + 100'000'000, InstanceEvent::Kind::InService});
  std::vector<ModelEvent> m1;
  for (const auto& e : rec.models)
    if (e.instance == 1) m1.push_back(e);
  REQUIRE(m1.size() == 2);
  CHECK(m1[0].kind == ModelEvent::Kind::LoadStart);
  CHECK(m1[0].t.ns() == 162 * kS + 100'000'000);
  CHECK(m1[1].kind == ModelEvent::Kind::Loaded);
  CHECK(m1[1].t.ns() == 163 * kS + 100'000'000);
  CHECK(m1[1].duration_ns == kS);
  std::uint64_t not_found = 0, on_new = 0;
  for (const auto& r : rec.requests) {
    CHECK(r.status == (r.model == 1 ? 404 : 200));
    not_found += r.status == 404;
    if (r.instance == 1) {
      ++on_new;
      CHECK(r.arrival.ns() >= 183 * kS + 100'000'000);
    }
  }
  CHECK(on_new > 0);
  const EndpointStats& st = ep.stats();
  CHECK(st.not_found_404 == not_found);
  CHECK(not_found > 0);
  CHECK(st.requests == st.served + st.not_found_404 + st.unserved_at_end);
  CHECK(st.downloads == 0);
  CHECK(st.unloads == 0);
  CHECK(st.loads == 2);  // m0 on each instance
  CHECK(st.instances_launched == 2);
}

// CloudWatch publishes ModelCacheHit for multi-model endpoints only (SageMaker Developer Guide,
// "CloudWatch metrics for multi-model endpoint deployments"). Requests at 0, 30, ..., 570 s, two
// answered per minute. Multi-model: the first waits for the 2 s load (a miss, answered at
// 2.02 s), the others hit: minute 0 has 1 hit of 2 (0.5), minutes 1..9 have 2 of 2 (1.0).
// SingleModel (load_models = {0}): the initial instance holds the model from t = 0, and no
// minute carries ModelCacheHit (NaN, NULL in the database), though each has 2 invocations.
TEST_CASE("ModelCacheHit: per minute on a multi-model endpoint, not published on a SingleModel one") {
  for (const bool single : {false, true}) {
    CAPTURE(single);
    InferenceScenario sc = base_scenario(1);
    sc.models[0].service.base = constant(Duration::ms(20));
    sc.endpoint.load_fixed = constant(Duration::s(2));
    if (single) {
      sc.endpoint.mode = EndpointSpec::Mode::SingleModel;
      sc.server.load_models = {0};
    }
    every(sc, 30, Duration::s(600));
    MemoryRecorder rec;
    MetricsAggregator agg(Duration::s(60), Time::zero(), &rec);
    Run run(sc, 1, &rec, &agg);
    run.go(1);
    CHECK(agg.model_cache_hit_published() == !single);
    for (const auto& r : rec.requests) CHECK(r.cache_hit_published == !single);  // requests.cache_hit NULL
    REQUIRE(rec.minutes.size() >= 10);
    for (std::size_t m = 0; m < 10; ++m) {
      CAPTURE(m);
      CHECK(rec.minutes[m].invocations == 2);
      if (single)
        CHECK(std::isnan(rec.minutes[m].model_cache_hit));
      else
        CHECK(rec.minutes[m].model_cache_hit == (m == 0 ? 0.5 : 1.0));
    }
  }
}
