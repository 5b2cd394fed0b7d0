// Hand-built inference scenarios and an in-memory recorder for the endpoint model's tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/inference.hpp"

namespace fixtures {

using namespace mltwin;
using namespace mltwin::models::inference;
using core::Duration;
using models::LatencySpec;

inline LatencySpec constant(Duration d) {
  LatencySpec l;
  l.kind = LatencySpec::Kind::Constant;
  l.a = d;
  return l;
}
inline LatencySpec exponential(Duration mean) {
  LatencySpec l;
  l.kind = LatencySpec::Kind::Exponential;
  l.a = mean;
  return l;
}

constexpr std::uint64_t kGiB = 1ULL << 30;

/// One instance type "test.8x" (8 vCPU, 64 GiB, no instance store: a 1 TiB ML storage volume,
/// $1/h); `n_models` models of 100 MiB
/// artifact and resident size, exponential 1 s service; instantaneous download, load, unload
/// and overhead; DJL defaults; Poisson traffic to model 0.
inline InferenceScenario base_scenario(int n_models = 1) {
  InferenceScenario sc;
  models::InstanceType t;
  t.name = "test.8x";
  t.vcpu = 8;
  t.memory_gib = 64;
  t.on_demand_usd_per_hour = 1.0;
  t.has_on_demand_price = true;
  sc.catalog.types.push_back(t);
  sc.endpoint.ml_storage_volume_bytes = 1024 * kGiB;
  for (int i = 0; i < n_models; ++i) {
    ModelSpec m;
    m.name = "m";
    m.name += std::to_string(i);
    m.artifact_bytes = 100ULL << 20;
    m.resident_bytes = 100ULL << 20;
    m.service.base = exponential(Duration::s(1));
    sc.models.push_back(m);
  }
  sc.server.kind = ServerSpec::Kind::Djl;
  sc.server.worker_startup = constant(Duration::ms(0));
  sc.endpoint.instance_type = "test.8x";
  sc.endpoint.initial_instances = 1;
  sc.endpoint.min_instances = sc.endpoint.max_instances = 1;
  sc.endpoint.instance_startup = constant(Duration::s(0));
  sc.endpoint.health_check = constant(Duration::s(0));
  sc.endpoint.s3_first_byte = constant(Duration::s(0));
  sc.endpoint.load_fixed = constant(Duration::s(0));
  sc.endpoint.unload = constant(Duration::s(0));
  sc.endpoint.overhead = constant(Duration::s(0));
  sc.traffic.kind = TrafficSpec::Kind::Poisson;
  sc.traffic.poisson.rate_per_s = 1;
  sc.traffic.poisson.duration = Duration::s(100);
  sc.traffic.poisson.popularity.kind = PopularitySpec::Kind::Uniform;
  sc.traffic.poisson.popularity.first = 0;
  sc.traffic.poisson.popularity.last = 0;
  return sc;
}

/// Keeps every event in memory.
struct MemoryRecorder final : ServingRecorder {
  std::vector<RequestDone> requests;
  std::vector<ModelEvent> models;
  std::vector<std::string> model_reasons;
  std::vector<WorkerEvent> workers;
  std::vector<InstanceEvent> instances;
  std::vector<MinuteMetrics> minutes;
  void request(const RequestDone& r) override { requests.push_back(r); }
  void model_event(const ModelEvent& e) override {
    models.push_back(e);
    model_reasons.emplace_back(e.reason);
    models.back().reason = {};
  }
  void worker_event(const WorkerEvent& e) override {
    workers.push_back(e);
    workers.back().reason = {};
  }
  void instance_event(const InstanceEvent& e) override {
    instances.push_back(e);
    instances.back().reason = {};
  }
  void minute(const MinuteMetrics& m) override { minutes.push_back(m); }
  void checkpoint(core::Time) override {}
};

/// Runs `sc` to the end with `seed`, checking invariants every `check_every` events (0: never).
struct Run {
  core::Simulator sim;
  core::RngStreams rng;
  Endpoint ep;
  Run(const InferenceScenario& sc, std::uint64_t seed, ServingRecorder* rec, MetricsAggregator* metrics = nullptr)
      : rng(seed), ep(sim, sc, rng, rec, metrics, default_policies(sc)) {}
  void go(std::uint64_t check_every = 0) {
    ep.start();
    std::uint64_t n = 0;
    while (sim.step()) {
      if (check_every && ++n % check_every == 0) ep.check_invariants();
    }
    ep.check_invariants();
    ep.finish();
  }
};

}  // namespace fixtures
