// mltwin/models/endpoint/model_store.hpp — the models on each instance: S3 download to disk,
// load into memory, eviction from either under pressure, unload.
//
// SageMaker multi-model endpoints load a model on its first invocation on an instance
// (https://docs.aws.amazon.com/sagemaker/latest/dg/multi-model-endpoints-how-it-works.html):
//   * the artifact is downloaded from S3 to the instance's disk (s3_first_byte plus size over
//     s3_download_gbps); a full disk has its ModelCachePolicy delete artifacts not in use;
//   * it is loaded into memory (load_fixed plus size over load_gbytes_per_s), reserving its
//     resident memory for min_workers workers; short of memory, the memory ModelCachePolicy
//     unloads idle models, and if that is not enough the requests waiting get 507;
//   * requests arriving meanwhile wait for the load (ModelLoadingWaitTime);
//   * with ModelCacheSetting Disabled, a model leaves the instance as soon as its pool is idle.
// Each model's presence is mirrored in EndpointState::holders, which routing reads.
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
  /// Request slot `r` is answered now with HTTP `status` (507: the load failed).
  virtual void answer(std::uint32_t r, int status, std::uint16_t batch) = 0;
  /// `in` may have nothing left to do (a draining instance then terminates).
  virtual void maybe_terminate(Instance& in) = 0;
};

class ModelStore {
 public:
  /// All arguments must outlive the component.
  ModelStore(EndpointState& state, WorkerPools& pools, StoreHost& host);

  /// Request slot `r`, routed to `in`, asks for its model there: a loaded model's pool takes it
  /// (ModelCacheHit), a load in progress keeps it waiting, otherwise a load starts.
  void request(Instance& in, std::uint32_t r);
  /// Request slot `r`, waiting for its model's download or load on `in`, leaves the waiting
  /// list (its invocation timed out: ModelNotReadyException); the load goes on.
  void forget_waiting(Instance& in, std::uint32_t r);
  /// A pool may have gone idle: with ModelCacheSetting Disabled its model leaves the instance.
  void pool_changed(std::uint32_t pid);
  /// Frees memory for `need` more bytes on `in` by unloading idle models (never `keep`).
  bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep);

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
};

}  // namespace mltwin::models::inference
