// mltwin/models/endpoint/endpoint_state.hpp — the objects of a multi-model endpoint, shared by
// the components that act on them.
//
// The endpoint (inference.hpp) is a set of components, one per process of the real system,
// around this state:
//
//   Router          (router.hpp)             requests in: overhead, RoutingPolicy, answers out
//   ModelStore      (model_store.hpp)        S3 download, disk, memory: load, evict, unload
//   WorkerPools     (worker_pools.hpp)       DJL/MMS worker pools: admission, job queue, batches
//   ProcessorSharing (processor_sharing.hpp) the instances' vCPUs shared by running batches
//   InstanceFleet   (instance_fleet.hpp)     launch, health check, scaling, metrics periods
//
// The objects live here, in slot vectors indexed by id (instances by launch order; pools,
// workers and requests reuse freed slots), so every component reaches an object in O(1) and
// no component owns another's objects. Each component owns its events and the fields of its
// process (a request's routing fields belong to the Router, a pool's queue and workers to
// WorkerPools, a model's state on an instance and EndpointState::holders to the ModelStore, an
// instance's lifecycle to the InstanceFleet, Instance::cpu to ProcessorSharing) and reads the
// rest, with two shared books: an instance's memory (mem_used: the model store's loads and
// the pools' temporary workers both take from it) and its CPU clock (the fleet advances it to
// a metrics period's end through ProcessorSharing::advance_to before reading the integral).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/models/detail/fast_draw.hpp"
#include "mltwin/models/detail/inline_containers.hpp"
#include "mltwin/models/inference.hpp"
#include "mltwin/policy/serving.hpp"

namespace mltwin::models::inference {

namespace ps = policy::serving;

/// No pool, worker or request (an empty slot reference).
inline constexpr std::uint32_t kNoSlot = UINT32_MAX;

/// A model on one instance: absent, its artifact downloading from S3, on disk only, loading
/// into memory, or loaded (with a worker pool).
enum class ModelState : std::uint8_t { Absent, Downloading, OnDisk, Loading, Loaded };
/// Present: the instance holds the model or is fetching it (routing sends requests there).
inline bool present(ModelState s) {
  return s == ModelState::Downloading || s == ModelState::Loading || s == ModelState::Loaded;
}

struct ModelOnInstance {
  ModelState state = ModelState::Absent;
  bool on_disk = false;
  std::uint32_t pool = kNoSlot;
  Time phase_start;                    ///< download / load start
  Time load_began;                     ///< the download's start, or the load's (artifact on disk)
  std::uint64_t reserved = 0;          ///< memory reserved by a load in progress, bytes
  std::vector<std::uint32_t> pending;  ///< requests waiting for the load
};

/// A batch running on an instance's CPU, by virtual finish time (processor_sharing.hpp).
struct BatchRef {
  double vfinish;
  std::uint64_t seq;
  std::uint32_t worker;
  bool operator>(const BatchRef& o) const { return vfinish != o.vfinish ? vfinish > o.vfinish : seq > o.seq; }
};

/// An instance's vCPUs shared by the batches running on it (ProcessorSharing's state).
struct InstanceCpu {
  int vcpu = 1;
  int busy = 0;                        ///< batches running
  double vclock = 0;                   ///< virtual time: each running batch has received this much CPU, ns
  Time last;                           ///< when vclock was last advanced
  std::priority_queue<BatchRef, std::vector<BatchRef>, std::greater<>> running;
  core::EventId event;                 ///< the earliest completion
  double busy_core_ns = 0;             ///< ∫ min(busy, vcpu) dt, for CPUUtilization
};

enum class InstanceState : std::uint8_t { Starting, InService, Draining, Terminated };

struct Instance {
  std::uint32_t id = 0;
  InstanceState state = InstanceState::Starting;
  Time launched, terminated = Time::max();
  Time in_service_since = Time::max();  ///< when it passed its health check
  std::uint64_t mem_cap = 0, mem_used = 0, disk_cap = 0, disk_used = 0;  ///< bytes
  int outstanding = 0;                  ///< requests routed here and not answered
  int models_loaded = 0;
  int loads_in_progress = 0;
  /// SingleModel endpoints: the next of ServerSpec::load_models its server registers while it
  /// starts (the ModelStore's; load_models.size() once all are registered).
  std::uint32_t next_startup_load = 0;
  std::vector<ModelOnInstance> models;  ///< by model id
  std::unique_ptr<ps::ModelCachePolicy> mem_cache, disk_cache;
  InstanceCpu cpu;
};

/// A worker's place in DJL's WorkerThread loop. Between: at the top of the loop (counted
/// nowhere), only inside WorkerPools::worker_free().
enum class WorkerState : std::uint8_t { Starting, Waiting, Aggregating, Busy, Between, Retired };

struct Worker {
  std::uint32_t pool = kNoSlot;
  WorkerState state = WorkerState::Starting;
  bool temporary = false;
  Time idle_since;
  Time batch_deadline;
  core::EventId timer;                 ///< ready / poll deadline / batch deadline
  std::uint32_t ticket = 0;            ///< invalidates stale poller entries
  detail::SmallVec<std::uint32_t, 4> batch;
};

/// A free worker waiting on its pool's job queue (valid while its ticket matches).
struct Poller {
  std::uint32_t worker, ticket;
};

/// The per-request draws of a model, set up once (detail/fast_draw.hpp).
struct ServiceDraw {
  detail::LatencyDraw base;
  double batch_marginal = 1.0;
};

/// One model's worker pool on one instance. Cache-line aligned, what every request touches
/// first: a request's trip through its pool then costs one or two cache misses (1,240 pools in
/// the blog scenario).
struct alignas(64) Pool {
  std::uint32_t instance = 0, model = 0;
  int starting = 0, busy = 0, started = 0;  ///< started = waiting + aggregating (DJL WORKER_STARTED)
  int outstanding = 0;                      ///< queued + in batches
  bool live = false;
  std::vector<std::uint32_t> workers;          ///< running (not retired)
  detail::InlineRing<Poller, 4> pollers;       ///< longest waiting first
  detail::InlineRing<std::uint32_t, 4> queue;  ///< job queue (request slots)
  ServiceDraw service;                         ///< the model's service time
};

/// Where a request is, for the invocation timeout: before its instance, waiting for its
/// model's download or load, or in the container (job queue or batch).
enum class RequestPlace : std::uint8_t { Front, WaitingForModel, Container };

struct Request {
  std::uint64_t id = 0;
  std::uint32_t model = 0;
  std::int32_t instance = -1;
  std::int32_t user = -1;
  Time arrival, reach, container, taken;
  std::int64_t loading_wait = 0;  ///< ns
  bool hit = false;
  /// The caller waits for the answer; false once answered, or timed out (424) while the
  /// container still holds the request (EndpointStats::abandoned_in_container).
  bool caller_waiting = false;
  /// In a job queue when its pool's last worker retired (EndpointStats::stranded_jobs counts
  /// each request once, however often it is stranded).
  bool stranded = false;
  RequestPlace place = RequestPlace::Front;
  /// In the Router's list of requests whose caller waits, in reach order (router.hpp), with
  /// the previous and next slot there (kNoSlot at the ends).
  bool in_waiting_list = false;
  std::uint32_t waiting_prev = UINT32_MAX, waiting_next = UINT32_MAX;
};

/// An instance where a model is present (routing visits only these).
struct Holder {
  std::uint32_t instance;
  std::uint32_t pool;  ///< kNoSlot while downloading or loading
};

/// Closes the metrics periods that ended by a time (InstanceFleet implements it).
class PeriodCloser {
 public:
  virtual ~PeriodCloser() = default;
  virtual void close_elapsed_periods(Time t) = 0;
};

/// The endpoint's objects and what every component reads: the scenario, the clock, the
/// recorders and the counters.
struct EndpointState {
  EndpointState(core::Simulator& s, const InferenceScenario& scenario, ServingRecorder* r, MetricsAggregator* m,
                EndpointStats& stats, core::RngStreams& rng);

  core::Simulator& sim;
  const InferenceScenario& sc;
  ServingRecorder* rec;                ///< may be null
  MetricsAggregator* metrics;          ///< may be null
  EndpointStats& st;
  const InstanceType* itype;           ///< sc.instance_type(), checked non-null
  std::uint64_t storage_bytes;         ///< per instance, for model artifacts (sc.model_storage_bytes())
  core::Engine& rng_endpoint;          ///< "endpoint.latencies": start-ups, downloads, loads

  std::vector<Instance> instances;     ///< by id (launch order), never removed
  std::vector<Pool> pools;             ///< slots, reused
  std::vector<std::uint32_t> free_pools;
  std::vector<Worker> workers;         ///< slots, reused
  std::vector<std::uint32_t> free_workers;
  std::vector<Request> reqs;           ///< slots, reused
  std::vector<std::uint32_t> free_reqs;
  std::vector<detail::SmallVec<Holder, 2>> holders;  ///< per model: where it is present, by instance id
  int running_workers = 0;
  Time last_event = Time::zero();      ///< of any component's event
  /// While the metrics ticks have stopped (the traffic is over, nothing in flight): the end of
  /// the open metrics period; Time::max() while they tick. InstanceFleet keeps it.
  Time quiet_period_end = Time::max();
  PeriodCloser* periods = nullptr;     ///< the fleet, once built

  /// Before every event of every component: notes its time, and once the ticks have stopped
  /// closes the metrics periods that ended by then, before the event changes anything.
  void note_event() {
    last_event = sim.now();
    if (sim.now() >= quiet_period_end) [[unlikely]] periods->close_elapsed_periods(sim.now());
  }

  /// DJL minWorkers (MMS: every worker is permanent): server_min_workers (inference.hpp).
  int min_workers() const { return server_min_workers(sc, *itype); }
  /// DJL maxWorkers (MMS: its workers per model): server_max_workers (inference.hpp).
  int max_workers() const { return server_max_workers(sc, *itype); }
  /// A SingleModel endpoint (EndpointSpec::Mode): its server registers ServerSpec::load_models
  /// at start and never loads or evicts on demand.
  bool single_model() const { return sc.endpoint.mode == EndpointSpec::Mode::SingleModel; }
  /// Memory a load must find free (evicting idle models if need be, else 507): the model's
  /// resident bytes times its permanent workers, one at least. With DJL minWorkers 0 that one
  /// copy is not taken (model_memory_held): it stands for DJL Serving 0.23.0's registration
  /// check, ModelInfo.checkAvailableMemory (on a multi-model endpoint: an estimate of 1.2 × the
  /// model's files must be free, else WlmOutOfMemoryException, 507), which takes nothing.
  std::uint64_t model_memory_for_load(std::uint32_t m) const {
    return sc.models[m].resident_bytes * static_cast<std::uint64_t>(std::max(min_workers(), 1));
  }
  /// Memory a load takes, and its loaded model holds: one copy per permanent worker, none with
  /// DJL minWorkers 0. A Python-engine model's memory is its worker processes': DJL Serving
  /// 0.23.0 registers a model (WorkerPool.initWorkers -> ModelInfo.load -> PyModel.load) without
  /// starting any process outside MPI mode, and each worker starts its own
  /// (WorkerGroup.addThreads -> WorkerThread's constructor, predictor = model.newPredictor() ->
  /// PyModel.newPredictor -> PyProcess.startPythonProcess, whose first request makes the Python
  /// handler load the model); doScaleWorker starts minWorkers of them at registration.
  std::uint64_t model_memory_held(std::uint32_t m) const {
    return sc.models[m].resident_bytes * static_cast<std::uint64_t>(min_workers());
  }
  static bool pool_idle(const Pool& p) { return p.outstanding == 0 && p.starting == 0 && p.busy == 0; }
  /// What a routing policy sees of an instance, before the model's own figures.
  static ps::InstanceView base_view(const Instance& in) {
    ps::InstanceView v;
    fill_base_view(v, in);
    return v;
  }
  /// Sets those fields of `v` (the rest as they are).
  static void fill_base_view(ps::InstanceView& v, const Instance& in) {
    v.instance = in.id;
    v.outstanding = in.outstanding;
    v.memory_free = in.mem_cap > in.mem_used ? in.mem_cap - in.mem_used : 0;
    v.models_loaded = in.models_loaded;
  }
};

}  // namespace mltwin::models::inference
