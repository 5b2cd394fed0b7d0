// The serving policies on hand-made observations. Every expected value follows from the rule
// quoted beside it (DJL Serving 0.23.0 wlm/ sources, MMS v1.1.9, AWS target tracking), not
// from a run.
#include <doctest/doctest.h>

#include <vector>

#include "mltwin/policy/serving.hpp"

using namespace mltwin::policy::serving;

namespace {
constexpr Nanos kS = kNanosPerSecond;

PoolObservation pool(int running, int busy, int started, int queue, int capacity, int batch = 1, int max = 8) {
  PoolObservation o;
  o.min_workers = 1;
  o.max_workers = max;
  o.workers_running = running;
  o.workers_busy = busy;
  o.workers_started = started;
  o.queue_size = queue;
  o.queue_capacity = capacity;
  o.batch_size = batch;
  return o;
}

struct AllEvictable final : EvictionGuard {
  std::vector<ModelId> pinned;
  bool evictable(ModelId m) const override {
    for (ModelId p : pinned)
      if (p == m) return false;
    return true;
  }
};
}  // namespace

TEST_CASE("DJL WLM admission: WorkLoadManager.runJob's rule, case by case") {
  DjlWlmPolicy p;
  struct Case {
    const char* name;
    PoolObservation obs;
    bool admit, add;
  };
  const Case cases[] = {
      // queue 9 of capacity 10: one slot left, every worker busy -> 503 (the special case),
      // and scaleUp is still attempted (2 running < 8 max).
      {"one slot left, all busy", pool(2, 2, 0, 9, 10), false, true},
      // one slot left but a worker is WORKER_STARTED (free) -> admitted; queue becomes 10 > 2.
      {"one slot left, a worker free", pool(2, 1, 1, 9, 10), true, true},
      // full queue -> 503 even with free workers
      {"queue full", pool(2, 1, 1, 10, 10), false, true},
      // full queue at max workers -> 503, nothing to add
      {"queue full at max workers", pool(8, 8, 0, 10, 10), false, false},
      // no running worker -> isAllWorkerDied: 503, and scaleUp adds one (0 < 8 max)
      {"no worker running", pool(0, 0, 0, 0, 10), false, true},
      // max_workers 0 -> WlmShutdownException (503), nothing to add
      {"max_workers 0", pool(0, 0, 0, 0, 10, 1, 0), false, false},
      // one worker still starting (running, neither busy nor started): not all died -> admitted
      {"only a starting worker", pool(1, 0, 0, 0, 10), true, false},
      // queue after offer = 3 > 2 x batch_size 1 -> add
      {"queue 3 > 2", pool(1, 1, 0, 2, 1000), true, true},
      // queue after offer = 2, not > 2 -> no add
      {"queue 2 not > 2", pool(1, 1, 0, 1, 1000), true, false},
      // batch_size 4: queue after offer 8 is not > 8; 9 is
      {"batch 4, queue 8", pool(1, 1, 0, 7, 1000, 4), true, false},
      {"batch 4, queue 9", pool(1, 1, 0, 8, 1000, 4), true, true},
      // at max workers: never add
      {"at max workers", pool(8, 8, 0, 500, 1000), true, false},
      // zero busy and zero started (all starting) counts as all busy: one slot left -> 503
      {"all starting, one slot left", pool(3, 0, 0, 9, 10), false, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const AdmitDecision d = p.on_arrival(c.obs);
    CHECK(d.admit == c.admit);
    CHECK(d.add_worker == c.add);
  }
}

TEST_CASE("DJL idle rule: when exactly a temporary worker retires") {
  DjlWlmPolicy p;
  const Nanos idle = 60 * kS;
  SUBCASE("permanent workers never retire and wait forever") {
    const WorkerDecision d = p.on_worker_free({1000 * kS, 0, false, idle});
    CHECK_FALSE(d.retire);
    CHECK(d.poll_deadline == kNever);
  }
  SUBCASE("after a short batch: poll for max_idle_time from now, then retire") {
    // took a batch at t = 100 s, the batch ended at 100.5 s.
    WorkerDecision d = p.on_worker_free({100 * kS + kS / 2, 100 * kS, true, idle});
    CHECK_FALSE(d.retire);
    CHECK(d.poll_deadline == 160 * kS + kS / 2);  // poll(maxIdleSeconds) starts at the batch end
    // the poll times out with no job: idle = 160.5 - 100 = 60.5 s > 60 s -> retire
    d = p.on_worker_free({160 * kS + kS / 2, 100 * kS, true, idle});
    CHECK(d.retire);
  }
  SUBCASE("idle exactly max_idle_time is not yet finished (strictly greater)") {
    const WorkerDecision d = p.on_worker_free({160 * kS, 100 * kS, true, idle});
    CHECK_FALSE(d.retire);
    CHECK(d.poll_deadline == 220 * kS);
  }
  SUBCASE("a batch that ran longer than max_idle_time retires its worker as soon as it ends") {
    // took the batch at 100 s; it ran 61 s; isFinished is checked before the next poll.
    const WorkerDecision d = p.on_worker_free({161 * kS, 100 * kS, true, idle});
    CHECK(d.retire);
  }
  SUBCASE("a fresh worker's idle clock starts at its creation") {
    WorkerDecision d = p.on_worker_free({2 * kS, 0, true, idle});  // created at 0, ready at 2 s
    CHECK(d.poll_deadline == 62 * kS);
    d = p.on_worker_free({62 * kS, 0, true, idle});
    CHECK(d.retire);
  }
}

TEST_CASE("MMS static pool: only a full queue (or no worker) rejects, never scales") {
  MmsStaticPolicy p;
  CHECK(p.on_arrival(pool(4, 4, 0, 99, 100)).admit);  // one slot left, all busy: MMS admits
  CHECK_FALSE(p.on_arrival(pool(4, 4, 0, 100, 100)).admit);
  CHECK_FALSE(p.on_arrival(pool(0, 0, 0, 0, 100)).admit);
  CHECK_FALSE(p.on_arrival(pool(4, 4, 0, 50, 100)).add_worker);
  CHECK_FALSE(p.on_worker_free({100 * kS, 0, true, 60 * kS}).retire);
}

TEST_CASE("LRU: least recently used first, skipping pinned models, all or nothing") {
  auto lru = make_lru_cache_policy();
  AllEvictable g;
  lru->on_insert(1, 100, 0);
  lru->on_insert(2, 100, 1);
  lru->on_insert(3, 100, 2);
  lru->on_access(1, 3);  // recency now (most recent first): 1, 3, 2
  std::vector<ModelId> v;
  REQUIRE(lru->choose_victims(150, 4, g, v));
  CHECK(v == std::vector<ModelId>{2, 3});
  v.clear();
  g.pinned = {2};
  REQUIRE(lru->choose_victims(150, 4, g, v));
  CHECK(v == std::vector<ModelId>{3, 1});
  v.clear();
  CHECK_FALSE(lru->choose_victims(250, 4, g, v));  // only 200 bytes evictable
  CHECK(v.empty());
  lru->on_resize(3, 300);
  REQUIRE(lru->choose_victims(250, 4, g, v));
  CHECK(v == std::vector<ModelId>{3});
  v.clear();
  lru->on_remove(3);
  g.pinned.clear();
  REQUIRE(lru->choose_victims(1, 4, g, v));
  CHECK(v == std::vector<ModelId>{2});
}

struct Fleet final : InstanceList {
  std::vector<InstanceView> v;
  mutable int asked = 0;
  std::span<const InstanceView> all() const override {
    ++asked;
    return v;
  }
  std::vector<InstanceView> holders() const {
    std::vector<InstanceView> h;
    for (const auto& x : v)
      if (x.model_present) h.push_back(x);
    return h;
  }
};

TEST_CASE("cache-aware routing") {
  auto r = make_cache_aware_router(CacheAwareRoutingParams{2.0, 0});
  Fleet f;
  f.v.resize(3);
  for (std::uint32_t i = 0; i < 3; ++i) f.v[i].instance = i;
  f.v[0].memory_free = 10;
  f.v[1].memory_free = 30;
  f.v[2].memory_free = 30;
  f.v[2].outstanding = 5;
  // nowhere loaded: most free memory, then fewest outstanding -> 1
  RouteDecision d = r->route(7, 0, f.holders(), f);
  CHECK(d.instance == 1);
  CHECK(d.new_copy);
  // loaded on 2 with 1 outstanding per worker: stays there, without listing the fleet
  f.v[2].model_present = true;
  f.v[2].model_outstanding = 1;
  f.v[2].model_workers = 1;
  f.asked = 0;
  d = r->route(7, 0, f.holders(), f);
  CHECK(d.instance == 2);
  CHECK_FALSE(d.new_copy);
  CHECK(f.asked == 0);
  // heavily loaded (2 per worker >= 2.0): a new copy on 1
  f.v[2].model_outstanding = 2;
  d = r->route(7, 0, f.holders(), f);
  CHECK(d.instance == 1);
  CHECK(d.new_copy);
  // with max_copies 1 it stays
  auto r1 = make_cache_aware_router(CacheAwareRoutingParams{2.0, 1});
  CHECK(r1->route(7, 0, f.holders(), f).instance == 2);
  // two copies, the less loaded one wins
  f.v[0].model_present = true;
  f.v[0].model_workers = 1;
  f.v[0].model_outstanding = 0;
  CHECK(r->route(7, 0, f.holders(), f).instance == 0);
}

TEST_CASE("target tracking: alarms, proportional capacity, cooldowns") {
  TargetTrackingParams tp;
  tp.target = 100;
  auto p = make_target_tracking(tp);
  ScalingObservation o;
  o.now = 3600 * kS;
  o.instances_in_service = 2;
  o.instances_desired = 2;
  o.min_instances = 1;
  o.max_instances = 10;
  std::vector<double> m = {150, 150};
  o.invocations_per_instance = m;
  CHECK(p->evaluate(o).desired == 2);  // only 2 of 3 datapoints above target
  m = {150, 150, 250};
  o.invocations_per_instance = m;
  CHECK(p->evaluate(o).desired == 5);  // 2 + (ceil(2 x 250 / 100) - 2) = 5
  o.last_scale_out = -kNever;
  m = std::vector<double>(15, 50);  // 15 minutes below 0.9 x 100
  o.invocations_per_instance = m;
  o.instances_in_service = 4;
  o.instances_desired = 4;
  CHECK(p->evaluate(o).desired == 2);  // ceil(4 x 50 / 100) = 2
  m[3] = 95;                            // one datapoint not below 90: no low alarm
  o.invocations_per_instance = m;
  CHECK(p->evaluate(o).desired == 4);
  m = std::vector<double>(15, 1);
  o.invocations_per_instance = m;
  CHECK(p->evaluate(o).desired == 1);  // clamped to min_instances
  o.last_scale_in = o.now - 10 * kS;
  CHECK(p->evaluate(o).desired == 4);  // scale-in cooldown
}

// Application Auto Scaling User Guide, "Target tracking scaling policies", "Define cooldown
// periods" (and TargetTrackingScalingPolicyConfiguration.ScaleOutCooldown / ScaleInCooldown):
//  - scale-out: "the capacity added by the initiating scale-out activity is calculated as part
//    of the desired capacity for the next scale-out activity"; the policy "won't increase the
//    desired capacity again unless either a larger scale out is triggered or the cooldown
//    period ends";
//  - scale-in: "if another alarm triggers a scale-out activity during the scale-in cooldown
//    period, Application Auto Scaling scales out the target immediately. In this case, the
//    scale-in cooldown period stops and doesn't complete."
TEST_CASE("target tracking cooldowns: a larger scale-out goes ahead; a scale-out ends the scale-in cooldown") {
  TargetTrackingParams tp;
  tp.target = 100;  // cooldowns 300 s, 3 / 15 datapoints, scale-in below 90
  auto p = make_target_tracking(tp);
  ScalingObservation o;
  o.now = 3600 * kS;
  o.min_instances = 1;
  o.max_instances = 10;
  std::vector<double> m;

  SUBCASE("scale-out cooldown: the capacity added counts, a larger scale-out is not blocked") {
    // 100 s ago a scale-out took the desired count from 2 to 5 (base 2, 3 added); the 3 new
    // instances are not in service yet, so the metric is still measured on 2.
    o.last_scale_out = o.now - 100 * kS;
    o.scale_out_base = 2;
    o.instances_in_service = 2;
    o.instances_desired = 5;
    m = {250, 250, 250};  // adjustment ceil(2 x 250 / 100) - 2 = 3: not more than the 3 added
    o.invocations_per_instance = m;
    ScalingDecision d = p->evaluate(o);
    CHECK(d.desired == 5);
    CHECK(d.reason == "scale-out cooldown");
    m = {250, 250, 200};  // adjustment 4 - 2 = 2 < 3: a smaller scale-out, ignored too
    o.invocations_per_instance = m;
    CHECK(p->evaluate(o).desired == 5);
    CHECK(p->evaluate(o).reason == "scale-out cooldown");
    m = {250, 250, 300};  // adjustment 6 - 2 = 4 > 3: a larger scale-out adds 1 -> 2 + 4 = 6
    o.invocations_per_instance = m;
    d = p->evaluate(o);
    CHECK(d.desired == 6);
    CHECK(d.reason == "high alarm: a larger scale-out within the scale-out cooldown");
    CHECK(d.scale_out_base == 2);  // the cooldown it restarts counts from 2 still
    m = {250, 250, 460};  // adjustment ceil(9.2) - 2 = 8: 2 + 8 = 10 = max_instances
    o.invocations_per_instance = m;
    CHECK(p->evaluate(o).desired == 10);
    m = {250, 250, 1000};  // adjustment 20 - 2 = 18: 20, clamped to max_instances 10
    o.invocations_per_instance = m;
    CHECK(p->evaluate(o).desired == 10);
    // A scale-in since the scale-out ended its cooldown: the adjustment 3 adds to 5.
    m = {250, 250, 250};
    o.invocations_per_instance = m;
    o.last_scale_in = o.now - 50 * kS;
    d = p->evaluate(o);
    CHECK(d.desired == 8);
    CHECK(d.scale_out_base == -1);  // a scale-out that begins a cooldown
  }
  SUBCASE("the scale-out cooldown ends after 300 s: the same alarm then adds its adjustment again") {
    // The desired count went from 2 to 5; the new instances are still starting.
    o.instances_in_service = 2;
    o.instances_desired = 5;
    o.scale_out_base = 2;
    m = {250, 250, 250};  // adjustment ceil(2 x 250 / 100) - 2 = 3
    o.invocations_per_instance = m;
    o.last_scale_out = o.now - 299 * kS;  // within: the 3 added count, nothing happens
    CHECK(p->evaluate(o).desired == 5);
    o.last_scale_out = o.now - 300 * kS;  // now - then = 300 s, not < 300 s: over -> 5 + 3
    ScalingDecision d = p->evaluate(o);
    CHECK(d.desired == 8);
    CHECK(d.reason == "high alarm: InvocationsPerInstance above target");
    CHECK(d.scale_out_base == -1);
    // With every instance in service and the metric at 150: ceil(5 x 150 / 100) - 5 = 3 -> 8.
    o.instances_in_service = 5;
    m = {150, 150, 150};
    o.invocations_per_instance = m;
    CHECK(p->evaluate(o).desired == 8);
    // A 600 s cooldown still holds at 300 s: the cooldown's length decides.
    TargetTrackingParams longer = tp;
    longer.scale_out_cooldown = 600 * kS;
    o.instances_in_service = 2;
    m = {250, 250, 250};
    o.invocations_per_instance = m;
    CHECK(make_target_tracking(longer)->evaluate(o).desired == 5);
  }
  SUBCASE("scale-in cooldown: after a scale-in only; a later scale-out ends it") {
    o.instances_in_service = 4;
    o.instances_desired = 4;
    m = std::vector<double>(15, 40);  // 15 datapoints below 90: ceil(4 x 40 / 100) = 2 (1.6 up)
    o.invocations_per_instance = m;
    // A scale-out 100 s ago and no scale-in: no scale-in cooldown runs (the old rule waited
    // 300 s after any activity).
    o.last_scale_out = o.now - 100 * kS;
    CHECK(p->evaluate(o).desired == 2);
    // A scale-in 200 s ago, nothing since: within the 300 s scale-in cooldown.
    o.last_scale_out = o.now - 1000 * kS;
    o.last_scale_in = o.now - 200 * kS;
    ScalingDecision d = p->evaluate(o);
    CHECK(d.desired == 4);
    CHECK(d.reason == "scale-in cooldown");
    // A scale-out 50 s ago, after that scale-in, ended the cooldown: scale-in may proceed.
    o.last_scale_out = o.now - 50 * kS;
    CHECK(p->evaluate(o).desired == 2);
    // The scale-in cooldown is over at 300 s after the scale-in.
    o.last_scale_out = o.now - 1000 * kS;
    o.last_scale_in = o.now - 300 * kS;
    CHECK(p->evaluate(o).desired == 2);
  }
}

TEST_CASE("remedy option: idle counted from the end of the last batch") {
  DjlWlmPolicy p(true);
  const Nanos idle = 60 * kS;
  // a 61 s batch taken at 100 s: DJL would retire the worker at 161 s; the remedy polls on.
  WorkerDecision d = p.on_worker_free({161 * kS, 100 * kS, true, idle, false});
  CHECK_FALSE(d.retire);
  CHECK(d.poll_deadline == 221 * kS);
  d = p.on_worker_free({221 * kS, 100 * kS, true, idle, true});  // no job for 60 s
  CHECK(d.retire);
  CHECK_FALSE(DjlWlmPolicy(true).on_worker_free({221 * kS, 0, false, idle, true}).retire);  // permanent
}

TEST_CASE("the serving registries build the built-ins by name, with the parameter structs' defaults") {
  namespace pol = mltwin::policy;
  // target-tracking with only its required target: the 300 s cooldowns and 3-datapoint alarm
  // of TargetTrackingParams (Application Auto Scaling's defaults for SageMaker variants).
  pol::Arguments a;
  a.set("target_value", "100");
  auto p = instance_scaling_registry().make("target-tracking", a);
  CHECK(p->name() == "target-tracking");
  ScalingObservation o;
  o.now = 3600 * kS;
  o.instances_in_service = o.instances_desired = 2;
  o.min_instances = 1;
  o.max_instances = 10;
  std::vector<double> m = {150, 150, 250};
  o.invocations_per_instance = m;
  CHECK(p->evaluate(o).desired == 5);  // 2 + (ceil(2 x 250 / 100) - 2)
  // The scale-out that took the desired count from 2 to 5 was 299 s ago: the high alarm's
  // adjustment (3) is not more than the 3 added, and the cooldown is why, until 300 s; then it
  // adds 3 again (the 3 new instances still starting).
  o.instances_desired = 5;
  o.scale_out_base = 2;
  o.last_scale_out = o.now - 299 * kS;
  CHECK(p->evaluate(o).desired == 5);
  CHECK(p->evaluate(o).reason == "scale-out cooldown");  // within 300 s
  o.last_scale_out = o.now - 300 * kS;
  CHECK(p->evaluate(o).desired == 8);
  a.set("scale_out_cooldown", "10m");
  CHECK(instance_scaling_registry().make("target-tracking", a)->evaluate(o).reason == "scale-out cooldown");  // 300 s < 600 s
  // Required, and refused values name the argument.
  CHECK_THROWS_WITH_AS(instance_scaling_registry().make("target-tracking", {}), doctest::Contains("argument 'target_value': required"),
                       std::invalid_argument);
  CHECK_THROWS_AS(make_target_tracking(TargetTrackingParams{}), std::invalid_argument);
  pol::Arguments r;
  r.set("heavy_load_per_worker", "-1");
  CHECK_THROWS_WITH_AS(routing_registry().make("cache-aware", r), doctest::Contains("argument 'heavy_load_per_worker'"),
                       std::invalid_argument);
  // Unknown names say what is known.
  CHECK_THROWS_WITH_AS(autoscaling_registry().make("djl", {}), doctest::Contains("unknown autoscaling policy 'djl'"),
                       std::invalid_argument);
  CHECK(autoscaling_registry().make("djl-wlm", {})->name() == "djl-wlm");
  pol::Arguments idle;
  idle.set("idle_from_batch_end", "true");
  CHECK(autoscaling_registry().make("djl-wlm", idle)->name() == "djl-wlm+idle-from-batch-end");
  CHECK(model_cache_registry().make("lru", {})->name() == "lru");
  // An unknown argument key is an error for a serving policy (nothing upstream ignores it).
  pol::Arguments typo;
  typo.set("max_copy", "1");
  const auto issues = routing_registry().check("cache-aware", typo, "arguments.");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].severity == pol::ArgIssue::Severity::Error);
  CHECK(issues[0].message == "routing policy 'cache-aware' reads no argument 'max_copy'; did you mean 'max_copies'? (it reads "
                             "heavy_load_per_worker, max_copies)");
}

TEST_CASE("a registration under a built-in's name replaces it until removed") {
  struct Named final : AutoscalingPolicy {
    std::string_view name() const override { return "mine"; }
    AdmitDecision on_arrival(const PoolObservation&) override { return {}; }
    WorkerDecision on_worker_free(const WorkerObservation&) override { return {}; }
  };
  auto& reg = autoscaling_registry();
  reg.add("mms-static", [](const mltwin::policy::Arguments&) -> std::unique_ptr<AutoscalingPolicy> { return std::make_unique<Named>(); });
  CHECK(reg.make("mms-static", {})->name() == "mine");
  CHECK(reg.remove("mms-static"));
  CHECK(reg.make("mms-static", {})->name() == "mms-static");
  CHECK(reg.builtin("mms-static"));
  CHECK_FALSE(reg.remove("never-registered"));
}
