// mltwin/policy/serving.hpp — the serving policy API: the decisions a model server and a
// SageMaker multi-model endpoint (MME) make, as pure functions of an observation.
//
// Four policies, each an abstract class with built-in implementations (policies/src/serving/):
//
//   AutoscalingPolicy      a model's worker pool on one instance (DJL Serving's WorkLoadManager):
//                          admit or reject (HTTP 503) an arriving request, add a worker, and when
//                          a temporary worker retires.
//   ModelCachePolicy       which loaded models (or artifacts on disk) to unload when bytes are
//                          needed; LRU is the MME default we state (AWS documents only that
//                          "unused models are unloaded" under memory pressure).
//   RoutingPolicy          which instance receives a request of a model.
//   InstanceScalingPolicy  how many instances the endpoint wants (Application Auto Scaling
//                          target tracking on SageMakerVariantInvocationsPerInstance).
//
// Standard library only, like the rest of policies/: a production component links these
// policies without the simulator. No clocks, no I/O, no randomness inside: time arrives in the
// observation as integer nanoseconds (Nanos), and a policy never reads a wall clock.
//
// The upstream behaviour reproduced is pinned: DJL Serving v0.23.0
// (github.com/deepjavalibrary/djl-serving, tag v0.23.0) and Multi Model Server v1.1.9
// (github.com/awslabs/multi-model-server); each rule below cites its source file.
#pragma once

#include "mltwin/policy/export.hpp"
#include "mltwin/policy/registry.hpp"
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mltwin::policy::serving {

/// Simulated time or duration, integer nanoseconds.
using Nanos = std::int64_t;
inline constexpr Nanos kNanosPerSecond = 1'000'000'000;
inline constexpr Nanos kNever = INT64_MAX;

// ---------------------------------------------------------------------------------------------
// Worker autoscaling
// ---------------------------------------------------------------------------------------------

/// A model's worker pool on one instance, as DJL's WorkerPool exposes it when a request arrives.
/// Worker states follow DJL's WorkerState: a worker is *busy* only while it runs a batch
/// (WORKER_BUSY, WorkerThread.run); a worker waiting for a job or aggregating a batch is
/// *started* (WORKER_STARTED); a worker still starting its process counts as running.
struct MLTWIN_POLICY_EXPORT PoolObservation {
  Nanos now = 0;
  int min_workers = 1;       ///< DJL minWorkers (permanent workers)
  int max_workers = 1;       ///< DJL maxWorkers
  int workers_running = 0;   ///< not stopped / scaled down (incl. starting): getNumRunningWorkers
  int workers_busy = 0;      ///< running a batch (WORKER_BUSY)
  int workers_started = 0;   ///< waiting for or aggregating a batch (WORKER_STARTED)
  int queue_size = 0;        ///< jobs in the job queue before this request
  int queue_capacity = 1000; ///< job_queue_size (DJL 0.23.0 default: WlmConfigManager.java)
  int batch_size = 1;        ///< batch_size
  int free_cores = 0;        ///< vCPUs of the instance not running a batch (for custom policies)
  /// DJL WorkerPool.isAllWorkerBusy: no worker is WORKER_STARTED (vacuously true with none).
  bool all_workers_busy() const { return workers_started == 0; }
};

/// What to do with an arriving request.
struct MLTWIN_POLICY_EXPORT AdmitDecision {
  bool admit = true;               ///< false: answer 503 (WlmCapacityException)
  bool add_worker = false;         ///< start one temporary worker (DJL pool.addThreads())
  std::string_view reason;         ///< why rejected or why a worker was added (static text)
};

/// A worker that has just become free to take a job: it finished a batch, finished starting,
/// or its poll for a job timed out. DJL's TemporaryBatchAggregator keeps `idle_since`: the time
/// it last took a batch (or was created).
struct MLTWIN_POLICY_EXPORT WorkerObservation {
  Nanos now = 0;
  Nanos idle_since = 0;     ///< last batch taken, or creation time
  bool temporary = false;   ///< added by the autoscaler (not one of the min_workers)
  Nanos max_idle_time = 0;  ///< max_idle_time, ns
  bool poll_timed_out = false;  ///< called because the previous poll_deadline passed with no job
};

/// The worker's next step: retire now, or wait for a job until `poll_deadline` (then ask again).
struct MLTWIN_POLICY_EXPORT WorkerDecision {
  bool retire = false;
  Nanos poll_deadline = kNever;  ///< kNever: wait for a job forever (a permanent worker)
};

class MLTWIN_POLICY_EXPORT AutoscalingPolicy {
 public:
  virtual ~AutoscalingPolicy() = default;
  virtual std::string_view name() const = 0;
  /// A request arrives for the pool (the model is loaded). Called once per request.
  virtual AdmitDecision on_arrival(const PoolObservation& pool) = 0;
  /// A worker is free to take a job (see WorkerObservation). Called after every batch, after
  /// start-up, and when the previous poll_deadline passes with no job taken.
  virtual WorkerDecision on_worker_free(const WorkerObservation& worker) = 0;
};

/// DJL Serving 0.23.0's WorkLoadManager (wlm/src/main/java/ai/djl/serving/wlm/):
///  * reject (503) when max_workers is 0 (WlmShutdownException), when the queue has one slot
///    left and every worker is busy, when no worker is running (WorkerPool.isAllWorkerDied),
///    or when the queue is full (WorkLoadManager.runJob, lines 99-115); a rejection also tries
///    to add a worker (runJob calls scaleUp before returning the error) — so with no worker
///    running (minWorkers 0, or the last temporary worker gone) a request gets 503 while one
///    worker starts, and only later requests are queued;
///  * after an admitted request, add one worker when fewer than max_workers run and the queue
///    (now including the request) holds more than 2 × batch_size (WorkLoadManager.runJob /
///    scaleUp, lines 117-134);
///  * a temporary worker polls the queue for at most max_idle_time after each batch and retires
///    at the first check where now − idle_since > max_idle_time, idle_since being when it last
///    took a batch or was created (TemporaryBatchAggregator.pollBatch / isFinished, checked at
///    the top of WorkerThread.run's loop) — so a batch that ran longer than max_idle_time
///    retires its worker as soon as it ends. Permanent workers never retire.
///
/// Later releases, compared tag by tag in the upstream repository (v0.24.0, v0.26.0, v0.29.0,
/// v0.35.0 and v0.36.0, the latest; table in docs/inference.md):
///  * the scale-up rule (WorkLoadManager.runJob, scaleUp) and the worker loop that checks
///    isFinished() before each poll (WorkerThread.run) are unchanged up to v0.36.0;
///  * the idle rule (TemporaryBatchAggregator.pollBatch / isFinished) is unchanged up to
///    v0.36.0: idleSince is still set when a batch is *taken*; only the constructor's types
///    changed (ModelInfo -> WorkerPoolConfig in v0.24.0, LinkedBlockingDeque -> BlockingQueue
///    in v0.35.0) — so the misbehaviour below is still there in v0.36.0;
///  * admission: up to v0.29.0 the same code; from v0.35.0 (commit 9b4f268e, "Allows user
///    defined priority for each request") the job queue is a PriorityBlockingQueue ordered by
///    Job priority (WorkerPool.initWorkers; util/WorkerJob.compareTo), unbounded, and runJob
///    checks the capacity itself: remaining = job_queue_size − size, reject when remaining == 1
///    and every worker is busy, when remaining < 1, or when every worker died — the same
///    answers as 0.23.0's offer() on a bounded deque. What changes is the order: a binary heap
///    does not keep arrival order among equal priorities (every request has priority 0 unless
///    the client sets one), so from v0.35.0 queued jobs are not taken first-in first-out.
///    This policy and the endpoint model keep 0.23.0's FIFO;
///  * the defaults the scenarios take from 0.23.0 are the same in every later tag:
///    job_queue_size 1000, max_idle_time 60 s, batch_size 1, max_batch_delay 100 ms
///    (wlm/.../util/WlmConfigManager.java); minWorkers 1 and, on CPU, maxWorkers = cores /
///    OMP_NUM_THREADS (2 when OMP_NUM_THREADS is unset, but DJL's start script exports
///    OMP_NUM_THREADS=1 unless NO_OMP_NUM_THREADS is set: serving/build.gradle, build.gradle.kts
///    from v0.29.0). They moved from WlmConfigManager.getDefaultMin/MaxWorkers (0.23.0) to
///    ModelInfo.getMin/MaxWorkers(device) in v0.24.0; v0.26.0 added the SERVING_MIN_WORKERS /
///    SERVING_MAX_WORKERS environment variables (ModelInfo.initialize); on GPU every engine
///    gets 1 worker from v0.29.0 (0.23.0: 1 for Python and MXNet, else 2).
///
/// Misbehaviour reproduced, without a policy remedy: a temporary worker retires at the top of
/// its loop whatever the queue holds (WorkerThread.run, line 92; TemporaryBatchAggregator.
/// isFinished), and nothing else polls the job queue (WorkerPool has no other consumer), so
/// when the pool's *last* worker retires with jobs queued (minWorkers 0) those jobs wait until
/// a new request — refused 503 by isAllWorkerDied — starts a worker; their callers meanwhile
/// get SageMaker's 424 at 60 s (EndpointSpec::invocation_timeout). The endpoint counts them
/// (EndpointStats::stranded_jobs) and the run summary names the remedy, minWorkers >= 1.
///
/// Misbehaviour reproduced, and its remedy: because idle time is counted from when a worker
/// *took* its last batch, a model whose requests run longer than max_idle_time loses every
/// temporary worker right after its first batch, and a backlog is then drained by the
/// permanent workers alone (new workers are added only when further requests arrive). With
/// `idle_from_batch_end` (an option of ours, not DJL's) a temporary worker retires only after
/// max_idle_time without work, counted from the end of its last batch.
class MLTWIN_POLICY_EXPORT DjlWlmPolicy final : public AutoscalingPolicy {
 public:
  explicit DjlWlmPolicy(bool idle_from_batch_end = false) : idle_from_batch_end_(idle_from_batch_end) {}
  std::string_view name() const override { return idle_from_batch_end_ ? "djl-wlm+idle-from-batch-end" : "djl-wlm"; }
  AdmitDecision on_arrival(const PoolObservation& pool) override;
  WorkerDecision on_worker_free(const WorkerObservation& worker) override;

 private:
  bool idle_from_batch_end_ = false;
};

/// Multi Model Server's static pool (MMS v1.1.9, frontend/server/src/main/java/com/amazonaws/
/// ml/mms/wlm/Model.java addJob: `jobsQueue.offer(job)`; ModelManager.addJob answers false when
/// the model has no worker): a fixed number of workers, never scaled; reject only when the job
/// queue (job_queue_size, default 100 in util/ConfigManager.java) is full.
/// With no worker, every request gets 503 (ModelManager.addJob lines 214-216, answered by
/// http/InferenceRequestHandler lines 174-179: "No worker is available to serve request").
/// A worker scaled down through the management API puts the jobs of its batch back at the
/// front of the job queue (WorkerThread.shutdown lines 380-409 -> BatchAggregator.sendError
/// (null, ...) lines 127-140 -> Model.addFirst), so MMS strands no job; mltwin's MMS pools are
/// fixed and stopped only when their model is unloaded idle, so that case never arises.
class MLTWIN_POLICY_EXPORT MmsStaticPolicy final : public AutoscalingPolicy {
 public:
  std::string_view name() const override { return "mms-static"; }
  AdmitDecision on_arrival(const PoolObservation& pool) override;
  WorkerDecision on_worker_free(const WorkerObservation& worker) override;
};

// ---------------------------------------------------------------------------------------------
// Model cache
// ---------------------------------------------------------------------------------------------

/// Dense model id within an endpoint (0 .. models-1).
using ModelId = std::uint32_t;

/// Asked by the cache policy about a candidate victim.
class MLTWIN_POLICY_EXPORT EvictionGuard {
 public:
  virtual ~EvictionGuard() = default;
  /// False while the model cannot be unloaded now (it has requests queued or running, or is
  /// being loaded). The policy skips it.
  virtual bool evictable(ModelId model) const = 0;
};

/// One cache (an instance's memory, or its disk) tracked by a policy: the policy sees every
/// insertion, use and removal, and chooses victims. Sizes in bytes.
class MLTWIN_POLICY_EXPORT ModelCachePolicy {
 public:
  virtual ~ModelCachePolicy() = default;
  virtual std::string_view name() const = 0;
  /// `model` entered the cache, taking `bytes`.
  virtual void on_insert(ModelId model, std::uint64_t bytes, Nanos now) = 0;
  /// `model` was used (a request of it arrived).
  virtual void on_access(ModelId model, Nanos now) = 0;
  /// `model` now takes `bytes` (e.g. a worker process holding a copy was added or retired).
  virtual void on_resize(ModelId model, std::uint64_t bytes) = 0;
  /// `model` left the cache (whoever decided it).
  virtual void on_remove(ModelId model) = 0;
  /// Choose models to remove so that at least `bytes_needed` bytes are freed; appends them to
  /// `victims` in the order to remove them and returns true, or returns false (and appends
  /// nothing) when the evictable models together hold less than `bytes_needed`.
  virtual bool choose_victims(std::uint64_t bytes_needed, Nanos now, const EvictionGuard& guard,
                              std::vector<ModelId>& victims) = 0;
};

/// Least recently used first. O(1) per insert/access/remove; choose_victims walks from the
/// least recently used end, skipping unevictable models.
MLTWIN_POLICY_EXPORT std::unique_ptr<ModelCachePolicy> make_lru_cache_policy();

// ---------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------

/// One in-service instance as the router sees it for a request of one model.
struct MLTWIN_POLICY_EXPORT InstanceView {
  std::uint32_t instance = 0;       ///< instance id (stable for the instance's life)
  bool model_present = false;       ///< the model is loaded or being loaded here
  int model_outstanding = 0;        ///< this model's requests queued or running here
  int model_workers = 0;            ///< this model's running workers here
  int outstanding = 0;              ///< all requests queued or running here
  std::uint64_t memory_free = 0;    ///< bytes not held by loaded models
  int models_loaded = 0;
};

struct MLTWIN_POLICY_EXPORT RouteDecision {
  std::uint32_t instance = 0;       ///< chosen instance (one of the views)
  bool new_copy = false;            ///< the model is not present there: it will be loaded
  std::string_view reason;
};

/// Every in-service instance, built only when a policy asks (it costs a pass over the fleet).
class MLTWIN_POLICY_EXPORT InstanceList {
 public:
  virtual ~InstanceList() = default;
  /// Views of all in-service instances, sorted by id, never empty.
  virtual std::span<const InstanceView> all() const = 0;
};

class MLTWIN_POLICY_EXPORT RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;
  virtual std::string_view name() const = 0;
  /// Chooses an instance for a request of `model`. `holders` are the in-service instances where
  /// the model is present (loaded or being loaded), sorted by id, possibly empty; `everyone`
  /// lists all in-service instances on demand (for placing a new copy). Called once per request.
  virtual RouteDecision route(ModelId model, Nanos now, std::span<const InstanceView> holders,
                              const InstanceList& everyone) = 0;
};

/// Parameters of the built-in MME-like router. AWS documents the behaviour only qualitatively
/// ("requests are routed to an instance where the model is already loaded; a model under heavy
/// load gets additional copies", SageMaker Developer Guide, "How multi-model endpoints work"),
/// so the thresholds are ours and stated in the scenario.
struct MLTWIN_POLICY_EXPORT CacheAwareRoutingParams {
  /// A copy is "heavily loaded" when its outstanding requests per running worker reach this;
  /// a request then goes to an instance without the model, if there is one.
  double heavy_load_per_worker = 2.0;
  /// At most this many copies of one model across the endpoint (0 = no limit).
  int max_copies = 0;
};

/// Routes to the least-loaded instance holding the model (fewest outstanding requests of the
/// model, then fewest overall, then lowest id); if none holds it, or every copy is heavily
/// loaded and max_copies allows another, to the instance without it with the most free memory
/// (then fewest outstanding, then lowest id).
MLTWIN_POLICY_EXPORT std::unique_ptr<RoutingPolicy> make_cache_aware_router(const CacheAwareRoutingParams& p);

// ---------------------------------------------------------------------------------------------
// Instance scaling
// ---------------------------------------------------------------------------------------------

struct MLTWIN_POLICY_EXPORT ScalingObservation {
  Nanos now = 0;
  int instances_in_service = 0;
  int instances_desired = 0;      ///< current desired count (incl. instances still starting)
  int min_instances = 1, max_instances = 1;
  /// Per-minute InvocationsPerInstance datapoints, oldest first, one per completed minute.
  std::span<const double> invocations_per_instance;
  Nanos last_scale_out = -kNever;  ///< when the desired count last went up (-kNever: never)
  Nanos last_scale_in = -kNever;   ///< when it last went down
  /// The desired count the scale-out cooldown that began at or before last_scale_out counts
  /// added capacity from: the count before the scale-out at last_scale_out, or what the policy
  /// returned as ScalingDecision::scale_out_base with it (e.g. the count before the first of the
  /// scale-outs whose cooldown it continued). 0 before any scale-out.
  int scale_out_base = 0;
};

struct MLTWIN_POLICY_EXPORT ScalingDecision {
  int desired = 0;                ///< unchanged when no action
  std::string_view reason;
  /// A scale-out only: the desired count its scale-out cooldown counts added capacity from,
  /// handed back in ScalingObservation::scale_out_base until the next scale-out. -1 (the
  /// default): the count before this scale-out — a scale-out that begins a cooldown.
  int scale_out_base = -1;
};

class MLTWIN_POLICY_EXPORT InstanceScalingPolicy {
 public:
  virtual ~InstanceScalingPolicy() = default;
  virtual std::string_view name() const = 0;
  /// Called once per completed metric minute.
  virtual ScalingDecision evaluate(const ScalingObservation& obs) = 0;
};

/// Application Auto Scaling target tracking (AWS Application Auto Scaling User Guide,
/// "Target tracking scaling policies"), evaluated once per metric minute:
///  * alarms — a high alarm when InvocationsPerInstance exceeds the target for
///    `scale_out_datapoints` consecutive minutes, a low alarm when it is below
///    `scale_in_ratio` × target for `scale_in_datapoints` minutes. AWS documents that target
///    tracking creates and manages these CloudWatch alarms, not their datapoint rules: 3 of 3
///    minutes to scale out, 15 of 15 below 90 % of the target to scale in are what the alarms
///    of a SageMaker variant's policy are observed to use — observed, not documented — so
///    they are parameters;
///  * capacity — a high alarm's scaling adjustment is the capacity that brings the metric back
///    to target on the instances it was measured on (the in-service ones, N):
///    Δ = ceil(N × metric / target) − N; a low alarm's capacity is ceil(N × metric / target),
///    which lowers the desired count only to a smaller value. Results are clamped to [min, max].
///    AWS documents that target tracking "calculates the scaling adjustment based on the metric
///    and the target value", not the formula;
///  * scale-out cooldown (`scale_out_cooldown`, 300 s for SageMaker variants) — "the capacity
///    added by the initiating scale-out activity is calculated as part of the desired capacity
///    for the next scale-out activity", and the policy "won't increase the desired capacity
///    again unless either a larger scale out is triggered or the cooldown period ends" ("Define
///    cooldown periods"; ScaleOutCooldown in the API Reference). Out of a cooldown a high alarm
///    adds Δ to the desired count. Within one, the capacity added since the cooldown began
///    (desired − scale_out_base) counts against Δ: only a larger scale-out acts, and it adds only
///    the difference (the desired count becomes scale_out_base + Δ); an alarm asking for the
///    same or less is ignored ("scale-out cooldown"). A larger scale-out restarts the cooldown
///    ("after Application Auto Scaling successfully scales out ... it starts to calculate the
///    cooldown time") and keeps its base: the capacity all the scale-outs of the cooldown added
///    counts — our reading (counting only the last one's would add the same Δ again every
///    minute of a steady load). So the cooldown decides: an alarm still high when it ends
///    (instances not yet in service, the metric still measured on N) adds Δ again. A scale-in
///    ends the scale-out cooldown (ours: AWS does not say);
///  * scale-in cooldown (`scale_in_cooldown`, 300 s for SageMaker variants) — runs after a
///    scale-in activity only; "if another alarm triggers a scale-out activity during the
///    scale-in cooldown period, Application Auto Scaling scales out the target immediately. In
///    this case, the scale-in cooldown period stops and doesn't complete" ("Define cooldown
///    periods"; TargetTrackingScalingPolicyConfiguration.ScaleInCooldown): a scale-out after
///    the last scale-in ends it. A scale-out alone never delays a scale-in.
/// Every figure is a scenario parameter with its source.
struct MLTWIN_POLICY_EXPORT TargetTrackingParams {
  /// InvocationsPerInstance per minute (TargetValue): required, no default (0 is refused).
  double target = 0;
  int scale_out_datapoints = 3;
  int scale_in_datapoints = 15;
  double scale_in_ratio = 0.9;
  Nanos scale_out_cooldown = 300 * kNanosPerSecond;
  Nanos scale_in_cooldown = 300 * kNanosPerSecond;
  bool disable_scale_in = false;
};
/// Throws std::invalid_argument when p.target is not a finite number > 0.
MLTWIN_POLICY_EXPORT std::unique_ptr<InstanceScalingPolicy> make_target_tracking(const TargetTrackingParams& p);

// ---------------------------------------------------------------------------------------------
// Chosen by name
// ---------------------------------------------------------------------------------------------

/// The serving policies by name (mltwin/policy/registry.hpp), process-wide, each with the
/// arguments it reads (values as text, typed by its ArgSpecs; defaults from the parameter
/// structs above). A scenario's `policies` block and Python's Run(routing="...") choose from
/// them; a production component builds with e.g. routing_registry().make("cache-aware", args).
/// Built-ins:
///   autoscaling        "djl-wlm" (idle_from_batch_end), "mms-static"
///   model cache        "lru"
///   routing            "cache-aware" (heavy_load_per_worker, max_copies)
///   instance scaling   "target-tracking" (metric, target_value (required), scale_out_cooldown,
///                      scale_in_cooldown, scale_out_datapoints, scale_in_datapoints,
///                      scale_in_ratio, disable_scale_in)
/// make() throws std::invalid_argument for an unknown name ("unknown routing policy 'x'; did
/// you mean ...") or a value a policy refuses ("argument 'max_copies': expected an integer >= 0").
MLTWIN_POLICY_EXPORT Registry<AutoscalingPolicy>& autoscaling_registry();
MLTWIN_POLICY_EXPORT Registry<ModelCachePolicy>& model_cache_registry();
MLTWIN_POLICY_EXPORT Registry<RoutingPolicy>& routing_registry();
MLTWIN_POLICY_EXPORT Registry<InstanceScalingPolicy>& instance_scaling_registry();

}  // namespace mltwin::policy::serving
