// Built-in worker autoscaling policies: DJL Serving 0.23.0's WorkLoadManager and MMS's static
// pool. See mltwin/policy/serving.hpp for the rules and their source files.
#include "mltwin/policy/serving.hpp"

namespace mltwin::policy::serving {

AdmitDecision DjlWlmPolicy::on_arrival(const PoolObservation& pool) {
  // WorkLoadManager.runJob (wlm/src/main/java/ai/djl/serving/wlm/WorkLoadManager.java, v0.23.0,
  // lines 99-121):
  //   if (maxWorkers == 0) -> WlmShutdownException                              (lines 101-105)
  //   if ((queue.remainingCapacity() == 1 && pool.isAllWorkerBusy())
  //       || pool.isAllWorkerDied() || !queue.offer(job)) -> WlmCapacityException + scaleUp
  //                                                                             (lines 107-115)
  // Both exceptions are WlmExceptions, answered 503 (serving/.../http/InferenceRequestHandler
  // .onException, lines 431-435). scaleUp adds one worker only while getNumRunningWorkers <
  // maxWorkers (lines 125-134).
  const int remaining = pool.queue_capacity - pool.queue_size;
  const bool can_grow = pool.workers_running < pool.max_workers;
  if (pool.max_workers == 0) return {false, false, "all model workers have been shut down"};
  if (remaining == 1 && pool.all_workers_busy())
    return {false, can_grow, "job queue has one slot left and every worker is busy"};
  // WorkerPool.isAllWorkerDied (WorkerPool.java, lines 132-141): no worker isRunning(). A
  // worker is running from its construction (WorkerThread.running = true, WorkerThread.java
  // line 42) until it stops, so with none the request is refused while one worker starts
  // (minWorkers 0, or the last temporary worker retired).
  if (pool.workers_running == 0) return {false, can_grow, "no worker is running (isAllWorkerDied): one is starting"};
  if (remaining <= 0) return {false, can_grow, "job queue is full"};
  // Admitted: the queue now holds queue_size + 1 jobs.
  //   if (currentWorkers == 0 || currentWorkers < maxWorkers && queue.size() > batchSize * 2)
  //       scaleUp(...)                                                          (lines 117-121)
  // (currentWorkers == 0 cannot hold here: isAllWorkerDied refused the request.)
  if (can_grow && pool.queue_size + 1 > 2 * pool.batch_size)
    return {true, true, "job queue longer than 2 x batch_size"};
  return {true, false, {}};
}

WorkerDecision DjlWlmPolicy::on_worker_free(const WorkerObservation& w) {
  // PermanentBatchAggregator.isFinished() is always false; its pollBatch blocks on take().
  if (!w.temporary) return {false, kNever};
  // The remedy (not DJL): retire only after a whole max_idle_time without a job.
  if (idle_from_batch_end_) return w.poll_timed_out ? WorkerDecision{true, kNever} : WorkerDecision{false, w.now + w.max_idle_time};
  // TemporaryBatchAggregator.isFinished(): idle = now - idleSince; finished when
  // idle > maxIdleSeconds * 1000 (strictly greater). Checked at the top of WorkerThread.run's
  // loop, i.e. right after a batch and after a poll that returned nothing.
  if (w.now - w.idle_since > w.max_idle_time) return {true, kNever};
  // pollBatch(): jobQueue.poll(maxIdleSeconds, SECONDS) — the wait starts now, not at idle_since.
  return {false, w.now + w.max_idle_time};
}

AdmitDecision MmsStaticPolicy::on_arrival(const PoolObservation& pool) {
  // ModelManager.addJob: `if (wlm.hasNoWorker(modelName)) return false;` then Model.addJob:
  // `return jobsQueue.offer(job);` (frontend/server/src/main/java/com/amazonaws/ml/mms/wlm/,
  // MMS v1.1.9). Workers are never added on demand.
  if (pool.workers_running == 0) return {false, false, "model has no worker"};
  if (pool.queue_size >= pool.queue_capacity) return {false, false, "job queue is full"};
  return {true, false, {}};
}

WorkerDecision MmsStaticPolicy::on_worker_free(const WorkerObservation&) { return {false, kNever}; }

}  // namespace mltwin::policy::serving
