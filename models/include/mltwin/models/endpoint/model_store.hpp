// mltwin/models/endpoint/model_store.hpp — the models on each instance: S3 download to disk,
// load into memory, eviction from either under pressure, unload.
//
// SageMaker multi-model endpoints load a model on its first invocation on an instance
// (https://docs.aws.amazon.com/sagemaker/latest/dg/multi-model-endpoints-how-it-works.html):
//   * the artifact is downloaded from S3 to the instance's disk (s3_first_byte plus size over
//     s3_download_gbps); a full disk has its ModelCachePolicy delete artifacts not in use;
//   * it is loaded into memory (load_fixed plus size over load_gbytes_per_s), taking its
//     resident memory for min_workers workers (DJL Serving 0.23.0: each worker is a Python
//     process with its own copy; none with minWorkers 0, though one copy must be free, the
//     stand-in for DJL's ModelInfo.checkAvailableMemory: EndpointState::model_memory_held /
//     model_memory_for_load); short of memory, the memory ModelCachePolicy unloads idle models,
//     and if that is not enough the requests waiting get 507;
//   * requests arriving meanwhile wait for the load (ModelLoadingWaitTime);
//   * the download and load together may take EndpointSpec::model_load_limit (SageMaker's 360 s:
//     the model "continues to download and load into the inference container for up to 360
//     seconds", Developer Guide, "Invoke a Multi-Model Endpoint"), counted from the download's
//     start (the load's, an artifact already on disk). One that would end later is abandoned
//     at the limit — what AWS does then is not documented; this is mltwin's assumption: a
//     LoadFailed event, the memory reserved freed, an unfinished download's disk space freed
//     (a finished one's artifact stays on disk), and the requests still waiting answered 429
//     ModelNotReadyException at once. The next request for the model starts again;
//   * with ModelCacheSetting Disabled, a model leaves the instance as soon as its pool is idle.
// Each model's presence is mirrored in EndpointState::holders, which routing reads.
//
// On a SingleModel endpoint (EndpointSpec::Mode) the store does none of that on demand: the
// server registers ServerSpec::load_models when its instance starts (register_models) and keeps
// them — no eviction, no unload; a request for a model it did not register is answered 404.
//   * SageMaker copies the model artifact (ModelDataUrl, one .tar.gz holding the model store:
//     every model of the scenario) to /opt/ml/model before the server starts: s3_first_byte plus
//     the artifacts' total size over s3_download_gbps, onto the instance's disk;
//   * the server then loads each listed model in turn (DJL Serving 0.23.0,
//     ModelServer.initModelStore: with wait_model_loading, true by default, each
//     registerWorkflow future is joined before the next; MMS v1.1.9, ModelServer.initModelStore,
//     registers them one by one too), each load as on a multi-model endpoint (load_fixed plus
//     size over load_gbytes_per_s, min_workers workers), and tells the fleet when the last is done.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/endpoint/endpoint_state.hpp"
#include "mltwin/models/endpoint/worker_pools.hpp"

namespace mltwin::models::inference {

/// What the model store asks of the rest of the endpoint.
class StoreHost {
 public:
  virtual ~StoreHost() = default;
  /// Request slot `r` is answered now with HTTP `status` (507: the load failed; 404: a
  /// SingleModel server did not register its model).
  virtual void answer(std::uint32_t r, int status, std::uint16_t batch) = 0;
  /// SingleModel endpoints: `in`'s server has registered all its load_models.
  virtual void models_registered(Instance& in) = 0;
  /// `in` may have nothing left to do (a draining instance then terminates).
  virtual void maybe_terminate(Instance& in) = 0;
};

class ModelStore {
 public:
  /// All arguments must outlive the component.
  ModelStore(EndpointState& state, WorkerPools& pools, StoreHost& host);

  /// Request slot `r`, routed to `in`, asks for its model there: a loaded model's pool takes it
  /// (ModelCacheHit), a load in progress keeps it waiting, otherwise a load starts (SingleModel
  /// endpoints: the request is answered 404, its model not registered).
  void request(Instance& in, std::uint32_t r);
  /// Request slot `r`, waiting for its model's download or load on `in`, leaves the waiting
  /// list (its invocation timed out: ModelNotReadyException); the load goes on.
  void forget_waiting(Instance& in, std::uint32_t r);
  /// A pool may have gone idle: with ModelCacheSetting Disabled its model leaves the instance.
  void pool_changed(std::uint32_t pid);
  /// Frees memory for `need` more bytes on `in` by unloading idle models (never `keep`; never
  /// any on a SingleModel endpoint). True if `need` bytes are then free.
  bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep);
  /// SingleModel endpoints: `in`'s server starts (its container has started): the artifact is
  /// copied to its disk, then each of load_models loads in turn; StoreHost::models_registered
  /// follows the last. Stops if the instance leaves Starting meanwhile (scaled in).
  void register_models(Instance& in);
  /// SingleModel endpoints: `in` (of the initial fleet, in service at the run's start) holds
  /// the artifact and every model of load_models, loaded, with their permanent workers ready:
  /// each recorded as Loaded now, in 0 s.
  void register_models_now(Instance& in);

 private:
  struct Guard;
  void set_state(Instance& in, std::uint32_t m, ModelState to);
  bool make_disk_room(Instance& in, std::uint64_t need, std::uint32_t keep);
  void delete_artifact(Instance& in, std::uint32_t m, std::string_view why);
  void unload_model(Instance& in, std::uint32_t m, std::string_view why);
  void fail_pending(Instance& in, std::uint32_t m, std::string_view why);
  void start_load(Instance& in, std::uint32_t m, std::uint32_t r);
  void begin_memory_load(Instance& in, std::uint32_t m);
  void on_download_done(std::uint32_t iid, std::uint32_t m);
  void on_load_done(std::uint32_t iid, std::uint32_t m);
  void on_load_abandoned(std::uint32_t iid, std::uint32_t m);
  /// Schedules the end of the download or load phase now under way for model `m` on `in`, which
  /// takes `d`: its done event, or — on a multi-model endpoint, when it would end after
  /// model_load_limit from ModelOnInstance::load_began — its abandonment at that limit.
  template <class DoneEvent>
  void schedule_phase_end(Instance& in, std::uint32_t m, Duration d, DoneEvent& done);
  void finish_load(Instance& in, std::uint32_t m);
  void place_artifacts(Instance& in);
  void load_next_startup_model(Instance& in);
  void on_artifacts_copied(std::uint32_t iid);
  void before() { s_.note_event(); }

  EndpointState& s_;
  WorkerPools& pools_;
  StoreHost& host_;
  std::vector<ServiceDraw> service_draws_;  // per model, copied into each of its pools
  std::vector<ps::ModelId> victims_;        // scratch for cache decisions

  template <auto Fn>
  using Ev = core::Event<Fn, &ModelStore::before>;
  Ev<&ModelStore::on_download_done> download_done_event_{this};  // (instance, model)
  Ev<&ModelStore::on_load_done> load_done_event_{this};          // (instance, model)
  Ev<&ModelStore::on_load_abandoned> load_abandoned_event_{this};  // (instance, model)
  Ev<&ModelStore::on_artifacts_copied> artifacts_copied_event_{this};  // instance (SingleModel)
};

}  // namespace mltwin::models::inference
