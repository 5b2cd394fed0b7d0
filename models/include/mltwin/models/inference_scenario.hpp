// mltwin/models/inference_scenario.hpp — what an inference scenario says: a SageMaker
// multi-model endpoint (MME), the models behind it, the model server on each instance
// (DJL Serving 0.23.0 or MMS), and the traffic. Plain data; io/ fills it from a JSON scenario
// and the instance catalog, tests build it by hand. Every figure comes from the scenario file or
// the catalog (models/catalog.hpp), which cite their sources.
//
// Units: sizes in bytes, times as core::Duration (integer ns), rates per second, prices in USD.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/catalog.hpp"
#include "mltwin/models/training.hpp"  // LatencySpec
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/serving.hpp"

namespace mltwin::models::inference {

using core::Duration;
using core::Time;
using policy::serving::ModelId;

/// Time for one batch of k requests: `base` drawn once per batch, then scaled by
/// (1 + batch_marginal × (k − 1)): 0 = a batch costs as much as one request, 1 = linear.
/// The draw is CPU work on one core; under CPU contention it stretches (see Instance).
struct ServiceTimeSpec {
  LatencySpec base;                ///< per-request compute time on one core
  double batch_marginal = 1.0;
};

struct ModelSpec {
  std::string name;
  std::uint64_t artifact_bytes = 0;  ///< model.tar.gz in S3
  std::uint64_t resident_bytes = 0;  ///< memory held by ONE worker process holding the model
  ServiceTimeSpec service;
};

/// The model server on each instance. Keys as in DJL's serving.properties.
struct ServerSpec {
  enum class Kind { Djl, Mms } kind = Kind::Djl;
  std::string engine = "Python";      ///< engine=Python: each worker is a process with its own copy
  int batch_size = 1;                  ///< batch_size (WlmConfigManager default 1)
  Duration max_batch_delay = Duration::ms(100);  ///< max_batch_delay (default 100 ms)
  Duration max_idle_time = Duration::s(60);      ///< max_idle_time (default 60 s)
  int job_queue_size = 1000;           ///< job_queue_size (DJL 1000; MMS 100)
  int min_workers = 1;                 ///< minWorkers (DJL default 1)
  /// maxWorkers; 0 = DJL's CPU default, vcpu / OMP_NUM_THREADS (WlmConfigManager.getDefaultMaxWorkers).
  int max_workers = 0;
  int omp_num_threads = 1;             ///< OMP_NUM_THREADS of the container
  /// MMS default_workers_per_model; 0 = one per vCPU (MMS ConfigManager.getDefaultWorkers).
  int mms_workers_per_model = 0;
  LatencySpec worker_startup;          ///< process start + model deserialisation per worker
  /// The models the server registers at start-up (its `load_models`: DJL Serving 0.23.0's
  /// config.properties key, or SERVING_LOAD_MODELS; MMS v1.1.9's config.properties key, or
  /// --models), as model ids in the order listed ("ALL": every model of the scenario, which is
  /// the model store, in scenario order). Used by a SingleModel endpoint only (EndpointSpec::Mode);
  /// empty on a MultiModel one.
  std::vector<ModelId> load_models;
  std::string source;
};

struct EndpointSpec {
  /// What the container hosts: CreateModel's ContainerDefinition.Mode.
  ///   MultiModel (a multi-model endpoint): a model is downloaded from S3 and loaded on its first
  ///     invocation on an instance, and unloaded under memory pressure (model_store.hpp).
  ///   SingleModel: the model server registers the models of ServerSpec::load_models when its
  ///     instance starts — SageMaker first copies the artifact (ModelDataUrl, one .tar.gz) to
  ///     /opt/ml/model, the server's model store — and never downloads, loads, evicts or unloads
  ///     one on demand; a request for a model it did not register gets its 404.
  enum class Mode { MultiModel, SingleModel } mode = Mode::MultiModel;
  std::string instance_type;
  int initial_instances = 1;
  int min_instances = 1, max_instances = 1;
  LatencySpec instance_startup;        ///< launch → container started
  LatencySpec health_check;            ///< container started → first /ping passes (InService)
  std::uint64_t memory_reserved_bytes = 0;  ///< OS + serving container, never for models
  /// The EBS ML storage volume (ProductionVariant VolumeSizeInGB), bytes: the model artifacts'
  /// storage on a type without instance storage; 0 when the type has an instance store.
  std::uint64_t ml_storage_volume_bytes = 0;
  bool model_cache_enabled = true;     ///< MultiModelConfig.ModelCacheSetting Enabled / Disabled
  double s3_download_gbps = 0;         ///< per-instance S3 download bandwidth, Gb/s
  LatencySpec s3_first_byte;           ///< S3 request latency before the first byte
  double load_gbytes_per_s = 0;        ///< model load throughput (disk → memory), GB/s
  LatencySpec load_fixed;              ///< fixed cost per model load (process, imports)
  LatencySpec unload;                  ///< unloading a model
  LatencySpec overhead;                ///< SageMaker OverheadLatency per request
  /// How long SageMaker waits for the container's answer to an InvokeEndpoint call, from when
  /// the request reaches the instance. 60 s: "A customer's model containers must respond to
  /// requests within 60 seconds" (SageMaker Runtime API Reference, InvokeEndpoint; the
  /// Developer Guide, "Invoke a Multi-Model Endpoint": "SageMaker AI returns a response for a
  /// call to invoke_endpoint within 60 seconds"). Past it the caller gets ModelError (HTTP 424)
  /// if the container holds the request, ModelNotReadyException (HTTP 429) if the model is
  /// still downloading or loading (which goes on). Scenario key endpoint.invocation_timeout_s.
  Duration invocation_timeout = Duration::s(60);
  /// A multi-model endpoint's limit on one model's download and load on an instance, from the
  /// download's start (or the load's, the artifact being on disk). 360 s: "If the model does not
  /// finish loading before the 60 second timeout limit, the request to invoke_endpoint returns
  /// with the error code ModelNotReadyException, and the model continues to download and load
  /// into the inference container for up to 360 seconds" (Developer Guide, "Invoke a
  /// Multi-Model Endpoint"). AWS does not say what happens then; mltwin's assumption: the
  /// download or load is abandoned (LoadFailed), its memory (and an unfinished download's disk
  /// space) freed, a finished download's artifact kept on disk, and the requests still waiting
  /// for it answered 429 ModelNotReadyException at once (model_store.hpp). Not applied to a
  /// SingleModel server's start-up loads. Scenario key endpoint.model_load_limit_s.
  Duration model_load_limit = Duration::s(360);
  std::string source;
};

/// A serving policy chosen by name from its registry (mltwin/policy/serving.hpp: e.g.
/// policy::serving::routing_registry()), with its arguments as text (policy::Arguments).
struct PolicyChoice {
  std::string name;
  policy::Arguments arguments;
  std::string source;                  ///< the scenario's reason for it, if given
  static PolicyChoice named(std::string n) {
    PolicyChoice c;
    c.name = std::move(n);
    return c;
  }
};

/// The policies an endpoint runs (the scenario's `policies` block). Each is built through its
/// registry, so a user-registered policy is chosen the same way as a built-in.
struct ServingPolicies {
  /// Worker autoscaling; an empty name means the server's own: "djl-wlm" for DJL Serving,
  /// "mms-static" for MMS.
  PolicyChoice autoscaling;
  PolicyChoice memory_cache = PolicyChoice::named("lru");
  PolicyChoice disk_cache = PolicyChoice::named("lru");
  PolicyChoice routing = PolicyChoice::named("cache-aware");
  std::optional<PolicyChoice> instance_scaling;  ///< unset: a fixed fleet
};

/// Which model a request is for.
struct PopularitySpec {
  enum class Kind { Uniform, HotSet, Zipf } kind = Kind::Uniform;
  int first = 0, last = 0;            ///< Uniform over models [first, last]
  int hot_count = 1;                  ///< HotSet: models [first, first + hot_count) ...
  double hot_share = 0.9;             ///< ... take this share; the rest uniform over [first, last]
  double zipf_alpha = 0.8;            ///< Zipf over [first, last]
};

struct PoissonTraffic {
  double rate_per_s = 0;
  Duration duration;
  PopularitySpec popularity;
};

/// Per-minute invocation counts per model (Azure Functions 2019 layout), replayed with
/// arrivals spread uniformly at random within each (scaled) minute.
struct TraceTraffic {
  std::vector<std::vector<std::uint32_t>> counts;  ///< [model][minute]
  double time_scale = 1.0;            ///< 2.0 = replay twice as fast
  int first_minute = 0;               ///< 0-based
  int minutes = 0;                    ///< how many minutes to replay
};

/// Closed-loop users, as Locust runs them: `users` users spawned at `spawn_rate` per second,
/// each repeatedly picking a task by weight, sending one request, waiting for the answer, then
/// waiting `wait_time`.
struct LocustTraffic {
  struct Task {
    double weight = 1;
    PopularitySpec popularity;
  };
  enum class Wait { Constant, Between, ConstantThroughput } wait = Wait::Constant;
  int users = 1;
  double spawn_rate = 1;              ///< users started per second
  double wait_a = 0, wait_b = 0;      ///< s: constant(a) / between(a, b) / constant_throughput(a = tasks per s)
  std::vector<Task> tasks;
  Duration duration;
};

struct TrafficSpec {
  /// The built-in kind the scenario's /traffic names (its key: "poisson", "trace", "locust").
  enum class Kind { Poisson, Trace, Locust } kind = Kind::Poisson;
  PoissonTraffic poisson;
  TraceTraffic trace;
  LocustTraffic locust;
  /// A program embedding mltwin may run a kind of its own: the name it registered in
  /// traffic_registry() (traffic.hpp), built with `arguments`. Empty: the built-in `kind`.
  /// Scenario files name only the built-in kinds. seconds() does not know a kind of one's own.
  std::string source;
  policy::Arguments arguments;
  /// How long the traffic lasts, simulated seconds (a trace: its minutes at its time_scale).
  double seconds() const {
    switch (kind) {
      case Kind::Poisson: return poisson.duration.seconds();
      case Kind::Trace: return 60.0 * trace.minutes / trace.time_scale;
      case Kind::Locust: return locust.duration.seconds();
    }
    return 0;
  }
};

struct OutputSpec {
  /// Every request is recorded until this many; past it, one in `request_sample_every`.
  std::uint64_t request_records_full = 100'000;
  std::uint64_t request_sample_every = 100;
  Duration metrics_period = Duration::s(60);
};

struct Slo {
  double p99_model_latency_ms = 0;    ///< 0 = none stated
  double max_5xx_ratio = 0;
};

struct InferenceScenario {
  /// SageMaker hosting instance types (ml.*) among others: the shipped catalog and the
  /// scenario's own rows (mltwin/io/catalog.hpp).
  Catalog catalog;
  std::vector<ModelSpec> models;
  ServerSpec server;
  EndpointSpec endpoint;
  TrafficSpec traffic;
  OutputSpec output;
  Slo slo;
  ServingPolicies policies;
  const InstanceType* instance_type() const { return catalog.find(endpoint.instance_type); }
  /// Storage for model artifacts on each instance, bytes: the type's NVMe instance store when it
  /// has one (SageMaker then provisions no EBS volume and uses the instance store), else the
  /// endpoint's ML storage volume. 0 if the type is not in the catalog.
  std::uint64_t model_storage_bytes() const {
    const InstanceType* t = instance_type();
    if (t == nullptr) return 0;
    return t->instance_storage_gb > 0 ? t->instance_storage_bytes() : endpoint.ml_storage_volume_bytes;
  }
};

/// DJL maxWorkers: server.max_workers, else WlmConfigManager.getDefaultMaxWorkers (CPU:
/// vCPUs / OMP_NUM_THREADS); MMS: mms_workers_per_model, else one per vCPU.
inline int server_max_workers(const InferenceScenario& sc, const InstanceType& itype) {
  if (sc.server.kind == ServerSpec::Kind::Mms)
    return sc.server.mms_workers_per_model > 0 ? sc.server.mms_workers_per_model : itype.vcpu;
  if (sc.server.max_workers > 0) return sc.server.max_workers;
  const int omp = std::min(std::max(sc.server.omp_num_threads, 1), itype.vcpu);
  return std::max(1, itype.vcpu / omp);
}
/// DJL minWorkers of every model's pool (MMS: every worker is permanent, so its workers per
/// model). `itype` is the endpoint's instance type.
inline int server_min_workers(const InferenceScenario& sc, const InstanceType& itype) {
  if (sc.server.kind == ServerSpec::Kind::Mms) return server_max_workers(sc, itype);
  return sc.server.min_workers;
}
/// An instance's memory for models, bytes: the type's memory less endpoint.memory_reserved
/// (0 if that reserves it all).
inline std::uint64_t instance_model_memory(const InferenceScenario& sc, const InstanceType& itype) {
  const std::uint64_t reserve = sc.endpoint.memory_reserved_bytes;
  return itype.memory_bytes() > reserve ? itype.memory_bytes() - reserve : 0;
}
/// The most memory a SingleModel instance's server holds while it registers its load_models,
/// bytes. The models load one after another (DJL Serving 0.23.0, ModelServer.initModelStore:
/// each registration is joined before the next, wait_model_loading being true by default); a
/// load needs resident_size × max(minWorkers, 1) free and takes, as the loaded model then holds,
/// resident_size × minWorkers (model_store.hpp). 0 on a MultiModel endpoint. `itype` is the
/// endpoint's instance type.
inline std::uint64_t load_models_peak_memory(const InferenceScenario& sc, const InstanceType& itype) {
  const std::uint64_t mw = static_cast<std::uint64_t>(server_min_workers(sc, itype));
  std::uint64_t held = 0, peak = 0;
  for (ModelId m : sc.server.load_models) {
    const std::uint64_t res = sc.models[m].resident_bytes;
    peak = std::max(peak, held + res * std::max<std::uint64_t>(mw, 1));
    held += res * mw;
  }
  return std::max(peak, held);
}

}  // namespace mltwin::models::inference
