// mltwin/models/endpoint/worker_pools.hpp — DJL Serving's (or MMS's) worker pools: one per
// model loaded on an instance.
//
// Follows DJL Serving 0.23.0's threads where it matters for the rules
// (serving/src/main/java/ai/djl/serving/wlm/WorkerPool.java, WorkerThread.java,
// BatchAggregator.java, PermanentBatchAggregator.java, TemporaryBatchAggregator.java):
//   * a job arriving at a pool is admitted or refused (503) by the AutoscalingPolicy, which may
//     also add a temporary worker (WorkLoadManager's scale-up; memory permitting);
//   * free workers (waiting or aggregating) poll one job queue, and a new job goes to the
//     longest-waiting poller (LinkedBlockingDeque's condition queue); an aggregating worker
//     re-joins the back of the poll queue after each job it receives;
//   * a worker drains the queue up to batch_size, waits up to max_batch_delay for more, and runs
//     the batch on the instance's CPU (ProcessorSharing); it is busy only while the batch runs;
//   * at the top of its loop a worker asks the AutoscalingPolicy whether to retire
//     (max_idle_time), then polls again.
//
// Unit-tested alone with a fake host: tests/models/test_endpoint_components.cpp.
#pragma once
#include <cstdint>
#include <string_view>

#include "mltwin/core/event.hpp"
#include "mltwin/models/endpoint/endpoint_state.hpp"
#include "mltwin/models/endpoint/processor_sharing.hpp"

namespace mltwin::models::inference {

/// What the worker pools ask of the rest of the endpoint.
class PoolHost {
 public:
  virtual ~PoolHost() = default;
  /// Request slot `r` is answered now with HTTP `status`; `batch`: the size of its batch (200).
  virtual void answer(std::uint32_t r, int status, std::uint16_t batch) = 0;
  /// Frees `need` bytes of memory on `in` for another worker of model `keep` (never evicting
  /// `keep`); false if it cannot.
  virtual bool make_room(Instance& in, std::uint64_t need, std::uint32_t keep) = 0;
  /// Pool `pid` changed (a batch ended, a worker retired): it may now be idle.
  virtual void pool_changed(std::uint32_t pid) = 0;
};

class WorkerPools final : public CpuListener {
 public:
  /// `policy` decides admission, scale-up and retirement; `service_rng` draws batch service
  /// times, `state.rng_endpoint` worker start-ups. All must outlive the component.
  WorkerPools(EndpointState& state, ps::AutoscalingPolicy& policy, core::Engine& service_rng, ProcessorSharing& cpu,
              PoolHost& host)
      : s_(state), policy_(policy), rng_service_(service_rng), cpu_(cpu), host_(host) {}

  /// A new, live, empty pool for model `m` on instance `iid` (a slot reused if one is free).
  std::uint32_t open_pool(std::uint32_t iid, std::uint32_t m, const ServiceDraw& service);
  /// The model's load started its min_workers permanent workers (PermanentBatchAggregator):
  /// they are ready now and start polling.
  void start_permanent_workers(std::uint32_t pid);
  /// The model was unloaded: every worker stops (one Stopped event), the queue is dropped and
  /// the slot freed. The caller has answered or moved the pool's requests.
  void stop_pool(std::uint32_t pid);
  /// Request slot `r` reaches pool `pid`'s job queue now (or is refused with 503).
  void enter_pool(std::uint32_t pid, std::uint32_t r);

  // CpuListener
  void batch_done(std::uint32_t w) override;
  void before_event() override { s_.note_event(); }

 private:
  std::uint32_t new_worker(std::uint32_t pool, bool temporary);
  void emit_worker(const Pool& p, WorkerEvent::Kind k, bool temporary, std::string_view why);
  void add_worker(std::uint32_t pid, std::string_view why);
  void retire_worker(std::uint32_t w, WorkerEvent::Kind kind, std::string_view why);
  void worker_free(std::uint32_t w, bool poll_timed_out = false);
  void take_first_job(std::uint32_t w, std::uint32_t r);
  void dispatch(std::uint32_t pid);
  void run_batch(std::uint32_t w);
  void on_worker_ready(std::uint32_t w);
  void on_poll_deadline(std::uint32_t w);
  void on_batch_deadline(std::uint32_t w);

  EndpointState& s_;
  ps::AutoscalingPolicy& policy_;
  core::Engine& rng_service_;
  ProcessorSharing& cpu_;
  PoolHost& host_;

  template <auto Fn>
  using Ev = core::Event<Fn, &WorkerPools::before_event>;
  Ev<&WorkerPools::on_worker_ready> worker_ready_event_{this};
  Ev<&WorkerPools::on_poll_deadline> poll_deadline_event_{this};
  Ev<&WorkerPools::on_batch_deadline> batch_deadline_event_{this};
};

}  // namespace mltwin::models::inference
