// mltwin/models/serving_recorder.hpp — what an inference run reports, fact by fact.
//
// The model (models/inference.hpp) calls these; store/ writes them to SQLite, tests keep them
// in memory. Times are simulated (integer ns since the run's start). Per-minute metrics are
// computed by models::inference::MetricsAggregator (models/serving_metrics.hpp) from the
// request stream and handed over as MinuteMetrics.
#pragma once
#include <cstdint>
#include <string_view>

#include "mltwin/core/time.hpp"

namespace mltwin::models::inference {

using core::Time;

/// One request's fate. Every request is reported exactly once (served, rejected, or still in
/// flight at the end of the run, with status 0).
struct RequestDone {
  std::uint64_t id = 0;            ///< dense, in arrival order
  std::uint32_t model = 0;
  std::int32_t instance = -1;      ///< -1: rejected before reaching an instance
  Time arrival;                    ///< reached the endpoint
  Time done;                       ///< answered (== arrival + overhead + waits + model latency)
  /// 200; 503 (queue full, no worker, no instance); 507 (no memory for the model); 424
  /// (ModelError: no answer within the invocation timeout, the container still holds it); 429
  /// (ModelNotReadyException: its model still loading at the timeout, or its load abandoned at
  /// the 360 s model load limit); 0 (in flight at end).
  int status = 200;
  std::int64_t overhead_ns = 0;        ///< OverheadLatency: SageMaker's own share
  std::int64_t loading_wait_ns = 0;    ///< ModelLoadingWaitTime: waiting for download + load
  std::int64_t model_latency_ns = 0;   ///< ModelLatency: entered the container's job queue → answered
  std::int64_t queue_ns = 0;           ///< part of model_latency spent in the job queue / batch aggregation
  std::uint16_t batch = 0;             ///< size of the batch it ran in (0 if it did not run)
  bool cache_hit = false;              ///< ModelCacheHit: the model was loaded on the instance at arrival
  /// False on a SingleModel endpoint: ModelCacheHit is a multi-model metric, which CloudWatch
  /// does not publish for it, so `cache_hit` means nothing there (the requests row's cache_hit
  /// is NULL).
  bool cache_hit_published = true;
};

struct ModelEvent {
  enum class Kind : std::uint8_t { DownloadStart, Downloaded, LoadStart, Loaded, Unloaded, ArtifactDeleted, LoadFailed };
  Time t;
  std::uint32_t instance = 0;
  std::uint32_t model = 0;
  Kind kind = Kind::DownloadStart;
  std::uint64_t bytes = 0;
  std::int64_t duration_ns = 0;    ///< Downloaded / Loaded / Unloaded: how long it took
  std::string_view reason;         ///< LoadFailed / Unloaded: why (valid during the call)
};

/// A change in a model's worker pool on an instance. Added / Ready / Retired concern one
/// temporary worker (DJL's autoscaling); a pool's permanent workers appear as one Ready when the
/// model is loaded and one Stopped when it is unloaded, with workers_after giving the count
/// (MMS pools of one worker per vCPU would otherwise write dozens of rows per load).
struct WorkerEvent {
  enum class Kind : std::uint8_t { Added, Ready, Retired, Stopped, ScaleUpSkipped };
  Time t;
  std::uint32_t instance = 0;
  std::uint32_t model = 0;
  Kind kind = Kind::Added;
  bool temporary = false;
  int workers_after = 0;           ///< running workers of the pool after the event
  std::string_view reason;         ///< valid during the call
};

struct InstanceEvent {
  enum class Kind : std::uint8_t { Launched, InService, Terminated, DesiredChanged };
  Time t;
  std::uint32_t instance = 0;      ///< for DesiredChanged: unused (0)
  Kind kind = Kind::Launched;
  int desired_after = 0;
  std::string_view reason;
};

/// Endpoint-wide CloudWatch-style metrics for one period (one minute by default). Latencies in
/// microseconds, as CloudWatch reports ModelLatency and OverheadLatency; percentiles are exact
/// (type-7 quantiles of the period's values). Utilisations in percent, CPUUtilization summed over
/// cores (an instance with 72 vCPUs reports up to 7200 %), averaged over in-service instances.
struct MinuteMetrics {
  Time start;
  std::uint64_t invocations = 0;            ///< Invocations (answered, any status, by `done` time: see serving_metrics.hpp)
  double invocations_per_instance = 0;      ///< InvocationsPerInstance
  std::uint64_t invocation_4xx = 0, invocation_5xx = 0;  ///< the model's own 4xx (none here) / 5xx
  /// InvocationModelErrors: invocations answered 424 ModelError because the container did not
  /// answer within the invocation timeout (60 s).
  std::uint64_t invocation_model_errors = 0;
  double model_latency_avg_us = 0, model_latency_p50_us = 0, model_latency_p90_us = 0, model_latency_p99_us = 0;
  double overhead_latency_avg_us = 0, overhead_latency_p50_us = 0, overhead_latency_p90_us = 0, overhead_latency_p99_us = 0;
  double model_cache_hit = 0;               ///< ModelCacheHit: average of 0/1 over invocations
  double model_loading_wait_avg_us = 0;     ///< ModelLoadingWaitTime (over requests that waited)
  double model_downloading_avg_us = 0;      ///< ModelDownloadingTime (over downloads ended in the period)
  double model_loading_avg_us = 0;          ///< ModelLoadingTime
  double model_unloading_avg_us = 0;        ///< ModelUnloadingTime
  double loaded_model_count = 0;            ///< LoadedModelCount: models loaded at period end, summed over instances
  double cpu_utilization = 0;               ///< CPUUtilization, % summed over cores, mean over instances
  double memory_utilization = 0;            ///< MemoryUtilization, %, mean over instances
  int instances_in_service = 0;             ///< at period end
  int workers = 0;                          ///< running workers at period end, all instances
  // Sample counts behind the averages (CloudWatch's SampleCount), and the period's end.
  Time end;                                 ///< the period is [start, end)
  std::uint64_t served = 0;                 ///< 2xx answers: the latency statistics' sample count
  std::uint64_t model_loading_waits = 0;    ///< invocations that waited for a download / load
  std::uint64_t model_downloads = 0, model_loads = 0, model_unloads = 0;  ///< ended in the period
};

class ServingRecorder {
 public:
  virtual ~ServingRecorder() = default;
  virtual void request(const RequestDone& r) = 0;
  virtual void model_event(const ModelEvent& e) = 0;
  virtual void worker_event(const WorkerEvent& e) = 0;
  virtual void instance_event(const InstanceEvent& e) = 0;
  virtual void minute(const MinuteMetrics& m) = 0;
  /// A consistent prefix of the run is recorded (the store commits here).
  virtual void checkpoint(Time now) = 0;
};

}  // namespace mltwin::models::inference
