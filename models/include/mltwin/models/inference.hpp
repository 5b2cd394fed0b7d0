// mltwin/models/inference.hpp — a SageMaker multi-model endpoint (MME) served by DJL Serving
// (or MMS), as a discrete-event model.
//
// The world around the serving policies (mltwin/policy/serving.hpp); every decision is theirs:
//
//   request ──OverheadLatency──► RoutingPolicy picks an in-service instance
//     model loaded there?  yes ─► the model's worker pool: AutoscalingPolicy admits (or 503),
//                                 maybe adds a worker; the job waits in the job queue
//                          no  ─► download the artifact from S3 to disk (disk full: the disk's
//                                 ModelCachePolicy deletes artifacts), load it into memory
//                                 (memory short: the memory ModelCachePolicy unloads idle
//                                 models; still short: 507), start min_workers workers;
//                                 requests that arrived meanwhile wait (ModelLoadingWaitTime)
//   a free worker takes a job, aggregates a batch (batch_size, max_batch_delay), runs it on the
//   instance's vCPUs; after each batch it asks the AutoscalingPolicy whether to retire.
//
// Workers follow DJL Serving 0.23.0's threads exactly where it matters for the rules: a worker
// is busy only while its batch runs; free workers (waiting or aggregating) poll one job queue
// and a new job goes to the longest-waiting poller (LinkedBlockingDeque's condition queue);
// an aggregating worker re-joins the back of the poll queue after each job it receives.
//
// CPU: a batch is CPU work on one core. While more batches run on an instance than it has
// vCPUs, all of them progress at rate vCPU / busy (processor sharing), implemented with a
// per-instance virtual clock so a change re-times only the earliest completion.
//
// Simplifications, stated: concurrent S3 downloads on one instance each get the full
// s3_download_gbps (no sharing yet); unloading frees memory at once (its duration is reported
// as ModelUnloadingTime); a model whose pool has a worker still starting is not evicted.
//
// Invocation timeout (endpoint.invocation_timeout, SageMaker's 60 s): a request not answered
// that long after it reached its instance is answered 424 ModelError if the container holds
// it — the container does not know, and its worker runs it to the end — or 429
// ModelNotReadyException if its model is still downloading or loading (the load goes on, up to
// EndpointSpec::model_load_limit, SageMaker's 360 s: then it is abandoned and the requests
// still waiting get 429 at once).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/inference_scenario.hpp"
#include "mltwin/models/serving_recorder.hpp"
#include "mltwin/policy/serving.hpp"

namespace mltwin::models::inference {

class MetricsAggregator;  // models/serving_metrics.hpp

/// The policies one endpoint runs. Cache policies are per instance (memory and disk), so they
/// come from factories.
struct PolicySet {
  std::unique_ptr<policy::serving::AutoscalingPolicy> autoscaling;
  std::unique_ptr<policy::serving::RoutingPolicy> routing;
  std::unique_ptr<policy::serving::InstanceScalingPolicy> scaling;  ///< null: fixed fleet
  /// One policy per instance, made when the instance launches (e.g. a Python class).
  std::function<std::unique_ptr<policy::serving::ModelCachePolicy>()> memory_cache = &policy::serving::make_lru_cache_policy;
  std::function<std::unique_ptr<policy::serving::ModelCachePolicy>()> disk_cache = &policy::serving::make_lru_cache_policy;
};

/// The policies the scenario chooses (sc.policies), built through the serving registries
/// (policy::serving::autoscaling_registry() etc.). Throws std::invalid_argument for an unknown
/// name or an argument a policy refuses.
PolicySet default_policies(const InferenceScenario& sc);
/// The worker autoscaling policy's name: the scenario's choice, else the server's own
/// ("djl-wlm" for DJL Serving, "mms-static" for MMS).
std::string autoscaling_policy_name(const InferenceScenario& sc);

struct EndpointStats {
  std::uint64_t requests = 0;           ///< arrived at the endpoint
  std::uint64_t served = 0;             ///< 200
  std::uint64_t rejected_503 = 0;       ///< job queue full (or all workers died)
  std::uint64_t rejected_507 = 0;       ///< model could not be loaded (memory or disk)
  /// 424 ModelError: the container did not answer within endpoint.invocation_timeout (60 s);
  /// counted in CloudWatch's InvocationModelErrors. The container keeps working on it.
  std::uint64_t timed_out_424 = 0;
  /// 429 ModelNotReadyException: the model was still downloading or loading on the chosen
  /// instance when the invocation timeout passed (the load goes on), or its download and load
  /// were abandoned at EndpointSpec::model_load_limit (SageMaker's 360 s) while it waited.
  std::uint64_t not_ready_429 = 0;
  /// 404 from the model server: on a SingleModel endpoint, a request for a model its server
  /// did not register (DJL Serving 0.23.0: "Model or workflow not found", InferenceRequestHandler
  /// .predict; MMS v1.1.9: "Model not found", ModelNotFoundException → HttpRequestHandler). The
  /// caller of InvokeEndpoint gets ModelError with OriginalStatusCode 404; CloudWatch counts it
  /// in Invocation4XXErrors.
  std::uint64_t not_found_404 = 0;
  std::uint64_t in_flight = 0;          ///< not answered (yet / at the end of the run)
  /// Requests whose caller got 424 that a container still holds (queued or in a batch): their
  /// worker is busy with them until they finish. Not in flight (the caller has its answer).
  std::uint64_t abandoned_in_container = 0;
  /// Requests stranded at least once: in a job queue when the pool's last worker retired
  /// (DJL Serving 0.23.0 with minWorkers 0). Nothing polls that queue until the next request
  /// starts a worker, so the jobs wait (and time out). Each request is counted once, however
  /// often it is stranded, so this is at most `requests`. Remedy: minWorkers >= 1.
  std::uint64_t stranded_jobs = 0;
  /// Set by finish(): requests not answered when the run ended (in_flight then: queued, in a
  /// batch, waiting for a model load, or between the front end and the container), reported
  /// with status 0. requests = served + rejected_503 + rejected_507 + timed_out_424 +
  /// not_ready_429 + not_found_404 + unserved_at_end after it.
  std::uint64_t unserved_at_end = 0;
  std::uint64_t cache_hits = 0;         ///< model loaded on the chosen instance at arrival
  std::uint64_t downloads = 0, loads = 0, unloads = 0, load_failures = 0, artifacts_deleted = 0;
  std::uint64_t workers_added = 0, workers_retired = 0, scale_ups_skipped = 0;
  std::uint64_t batches = 0;
  int max_workers_seen = 0;             ///< most running workers at once, all instances
  int instances_launched = 0;
  double instance_seconds = 0;          ///< summed over instances, launch → termination / end
  double cost_usd = 0;                  ///< instance_seconds × price per hour / 3600
  std::uint64_t max_queue_seen = 0;     ///< longest job queue seen, any pool
};

/// A model present on an instance (downloading, loading or loaded), as Endpoint::snapshot()
/// reports it. Artifacts only on disk are counted in InstanceSnapshot::artifacts_on_disk.
struct ModelSnapshot {
  ModelId model = 0;
  const char* state = "";            ///< "Downloading", "Loading", "Loaded"
  int workers = 0;                   ///< running workers (Loaded only), incl. starting ones
  int workers_busy = 0;              ///< running a batch
  int workers_starting = 0;          ///< process still starting
  std::size_t queue = 0;             ///< jobs in its job queue
  int outstanding = 0;               ///< requests queued or in batches
  std::size_t waiting_for_load = 0;  ///< requests waiting for the download / load
};

/// One instance now. Sizes in bytes.
struct InstanceSnapshot {
  std::uint32_t id = 0;
  const char* state = "";            ///< "Starting", "InService", "Draining", "Terminated"
  Time launched;
  std::uint64_t memory_used = 0, memory_capacity = 0, disk_used = 0, disk_capacity = 0;
  int vcpu = 0;
  int batches_running = 0;           ///< on its vCPUs (more than vcpu: processor sharing)
  int outstanding = 0;               ///< requests routed here and not answered
  int artifacts_on_disk = 0;
  std::vector<ModelSnapshot> models;  ///< by model id
};

class Endpoint final {
 public:
  /// `recorder` and `metrics` may be null. The scenario must outlive the endpoint.
  /// Throws std::invalid_argument if the endpoint's instance type is not in the catalog, a
  /// figure is out of range, or the traffic kind is not registered (the scenario loader
  /// catches these earlier, with a JSON path).
  Endpoint(core::Simulator& sim, const InferenceScenario& sc, core::RngStreams& rng,
           ServingRecorder* recorder, MetricsAggregator* metrics, PolicySet policies);
  ~Endpoint();

  /// Launches the initial fleet (in service at t = 0) and the traffic.
  void start();
  /// Ends the run at sim.now(): reports requests still in flight (status 0; counted in
  /// stats().unserved_at_end), closes the metrics periods up to the end and the last one, and
  /// the instances' cost. Call once, after the simulator stops.
  void finish();
  /// The same, closing the books at `end` (<= sim.now(); e.g. last_event() for a run that
  /// completed, whose clock may have been stepped past its last event). Throws
  /// std::invalid_argument if `end` is after sim.now().
  void finish(core::Time end);
  /// Time of the last event this endpoint handled (zero before any).
  core::Time last_event() const;

  /// The run's counters. instance_seconds and cost_usd cover every instance up to sim.now()
  /// (before finish() too: an instance still in service counts until now).
  const EndpointStats& stats() const;
  /// Every instance launched so far (terminated ones included) with the models present on it
  /// and their worker pools, by instance id. O(instances x models): for inspection between
  /// steps, not for every event.
  std::vector<InstanceSnapshot> snapshot() const;
  /// Checks the model's invariants (memory and disk within capacity, queues within their size,
  /// worker counts consistent, every request accounted for); throws std::logic_error naming
  /// the first violation.
  void check_invariants() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  /// Instance-seconds and their cost up to `now` into stats_.
  void account_instances(core::Time now) const;
  mutable EndpointStats stats_;
};

}  // namespace mltwin::models::inference
