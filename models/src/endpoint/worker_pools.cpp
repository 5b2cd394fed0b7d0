// WorkerPools: see mltwin/models/endpoint/worker_pools.hpp.
#include "mltwin/models/endpoint/worker_pools.hpp"

#include <algorithm>
#include <cmath>

namespace mltwin::models::inference {

std::uint32_t WorkerPools::open_pool(std::uint32_t iid, std::uint32_t m, const ServiceDraw& service) {
  std::uint32_t pid;
  if (!s_.free_pools.empty()) { pid = s_.free_pools.back(); s_.free_pools.pop_back(); }
  else { pid = static_cast<std::uint32_t>(s_.pools.size()); s_.pools.emplace_back(); }
  Pool& p = s_.pools[pid];
  p = Pool{};
  p.instance = iid;
  p.model = m;
  p.live = true;
  p.service = service;
  return pid;
}

void WorkerPools::start_permanent_workers(std::uint32_t pid) {
  // WorkerPool.initWorkers -> doScaleWorker adds minWorkers permanent threads (WorkerPool.java,
  // DJL 0.23.0, lines 233-257): none with minWorkers 0.
  for (int i = 0; i < s_.min_workers(); ++i) {
    const std::uint32_t w = new_worker(pid, false);
    s_.workers[w].state = WorkerState::Starting;
    ++s_.pools[pid].starting;
  }
  if (s_.pools[pid].workers.empty()) return;
  emit_worker(s_.pools[pid], WorkerEvent::Kind::Ready, false, "model loaded: its min_workers permanent workers are ready");
  for (std::uint32_t w : std::vector<std::uint32_t>(s_.pools[pid].workers)) {
    --s_.pools[pid].starting;
    s_.workers[w].state = WorkerState::Between;
    worker_free(w);
  }
}

void WorkerPools::stop_pool(std::uint32_t pid) {
  Pool& p = s_.pools[pid];
  while (!p.workers.empty()) retire_worker(p.workers.back(), WorkerEvent::Kind::Stopped, "model unloaded");
  emit_worker(p, WorkerEvent::Kind::Stopped, false, "model unloaded: all its workers stopped");
  p.live = false;
  p.queue.clear();
  p.pollers.clear();
  s_.free_pools.push_back(pid);
}

std::uint32_t WorkerPools::new_worker(std::uint32_t pool, bool temporary) {
  std::uint32_t w;
  if (!s_.free_workers.empty()) { w = s_.free_workers.back(); s_.free_workers.pop_back(); }
  else { w = static_cast<std::uint32_t>(s_.workers.size()); s_.workers.emplace_back(); }
  Worker& k = s_.workers[w];
  const std::uint32_t ticket = k.ticket + 1;
  k = Worker{};
  k.ticket = ticket;
  k.pool = pool;
  k.temporary = temporary;
  k.idle_since = s_.sim.now();  // TemporaryBatchAggregator: idleSince = creation time
  s_.pools[pool].workers.push_back(w);
  ++s_.running_workers;
  s_.st.max_workers_seen = std::max(s_.st.max_workers_seen, s_.running_workers);
  return w;
}

void WorkerPools::emit_worker(const Pool& p, WorkerEvent::Kind k, bool temporary, std::string_view why) {
  if (s_.rec)
    s_.rec->worker_event(WorkerEvent{s_.sim.now(), p.instance, p.model, k, temporary, static_cast<int>(p.workers.size()), why});
}

/// Adds one temporary worker to `pool` (DJL pool.addThreads()), if memory allows.
void WorkerPools::add_worker(std::uint32_t pid, std::string_view why) {
  Pool& p = s_.pools[pid];
  Instance& in = s_.instances[p.instance];
  const std::uint64_t need = s_.sc.models[p.model].resident_bytes;
  if (!host_.make_room(in, need, p.model)) {
    ++s_.st.scale_ups_skipped;
    emit_worker(p, WorkerEvent::Kind::ScaleUpSkipped, true, "no memory for another worker process");
    return;
  }
  in.mem_used += need;
  in.mem_cache->on_resize(p.model, (p.workers.size() + 1) * need);
  const std::uint32_t w = new_worker(pid, true);
  ++s_.pools[pid].starting;
  ++s_.st.workers_added;
  emit_worker(s_.pools[pid], WorkerEvent::Kind::Added, true, why);
  s_.workers[w].timer = s_.sim.schedule_in(s_.sc.server.worker_startup.draw(s_.rng_endpoint), &worker_ready_event_, w);
}

void WorkerPools::retire_worker(std::uint32_t w, WorkerEvent::Kind kind, std::string_view why) {
  Worker& k = s_.workers[w];
  Pool& p = s_.pools[k.pool];
  Instance& in = s_.instances[p.instance];
  if (k.state == WorkerState::Waiting || k.state == WorkerState::Aggregating) --p.started;
  if (k.state == WorkerState::Starting) --p.starting;
  if (k.timer.valid()) s_.sim.cancel(k.timer);
  k.timer = {};
  k.state = WorkerState::Retired;
  ++k.ticket;
  // From the back: stop_pool retires a pool's workers last first (MMS: 72 per unload).
  p.workers.erase(std::find(p.workers.rbegin(), p.workers.rend(), w).base() - 1);
  --s_.running_workers;
  const std::uint64_t res = s_.sc.models[p.model].resident_bytes;
  in.mem_used -= res;
  in.mem_cache->on_resize(p.model, p.workers.size() * res);
  if (kind == WorkerEvent::Kind::Retired) ++s_.st.workers_retired;
  // DJL 0.23.0: the last worker retires whatever its queue holds, and nothing else polls that
  // queue (see DjlWlmPolicy): the jobs are stranded until a request starts a worker.
  // A request can be stranded again after a later worker took other jobs and retired too: it
  // is counted once (EndpointStats::stranded_jobs counts requests, not strandings).
  if (kind == WorkerEvent::Kind::Retired && p.workers.empty() && !p.queue.empty()) {
    for (std::size_t i = 0; i < p.queue.size(); ++i) {
      const std::uint32_t r = p.queue[i];
      if (s_.reqs[r].stranded) continue;
      s_.reqs[r].stranded = true;
      ++s_.st.stranded_jobs;
    }
    why = "idle longer than max_idle_time; the pool's last worker: its queued jobs are stranded";
  }
  if (kind != WorkerEvent::Kind::Stopped) emit_worker(p, kind, k.temporary, why);  // a pool's stop is one event
  s_.free_workers.push_back(w);
}

/// The worker is at the top of DJL's WorkerThread loop: ask whether it retires, then poll.
void WorkerPools::worker_free(std::uint32_t w, bool poll_timed_out) {
  Worker& k = s_.workers[w];
  Pool& p = s_.pools[k.pool];
  const ps::WorkerDecision d = policy_.on_worker_free(ps::WorkerObservation{
      s_.sim.now().ns(), k.idle_since.ns(), k.temporary, s_.sc.server.max_idle_time.count_ns(), poll_timed_out});
  if (d.retire) {
    retire_worker(w, WorkerEvent::Kind::Retired, "idle longer than max_idle_time");
    host_.pool_changed(k.pool);
    return;
  }
  k.state = WorkerState::Waiting;
  ++p.started;
  if (!p.queue.empty()) {
    const std::uint32_t r = p.queue.front();
    p.queue.pop_front();
    take_first_job(w, r);
    return;
  }
  p.pollers.emplace_back(w, k.ticket);
  if (d.poll_deadline != ps::kNever)
    k.timer = s_.sim.schedule(Time::from_ns(d.poll_deadline), &poll_deadline_event_, w);
}

/// A waiting worker received its first job: drain the queue up to batch_size, then run or
/// keep aggregating (BatchAggregator.drainTo).
void WorkerPools::take_first_job(std::uint32_t w, std::uint32_t r) {
  Worker& k = s_.workers[w];
  Pool& p = s_.pools[k.pool];
  if (k.timer.valid()) s_.sim.cancel(k.timer);
  k.timer = {};
  ++k.ticket;  // leaves the poll queue
  k.batch.clear();
  k.batch.push_back(r);
  s_.reqs[r].taken = s_.sim.now();
  const std::size_t b = static_cast<std::size_t>(s_.sc.server.batch_size);
  while (k.batch.size() < b && !p.queue.empty()) {
    const std::uint32_t q = p.queue.front();
    p.queue.pop_front();
    s_.reqs[q].taken = s_.sim.now();
    k.batch.push_back(q);
  }
  if (k.batch.size() >= b || s_.sc.server.max_batch_delay.count_ns() <= 0) {
    run_batch(w);
    return;
  }
  k.state = WorkerState::Aggregating;
  k.batch_deadline = s_.sim.now() + s_.sc.server.max_batch_delay;
  k.timer = s_.sim.schedule(k.batch_deadline, &batch_deadline_event_, w);
  p.pollers.emplace_back(w, k.ticket);
}

/// Gives queued jobs to pollers, longest-waiting first.
void WorkerPools::dispatch(std::uint32_t pid) {
  Pool& p = s_.pools[pid];
  while (!p.queue.empty() && !p.pollers.empty()) {
    const auto [w, ticket] = p.pollers.front();
    p.pollers.pop_front();
    Worker& k = s_.workers[w];
    if (k.ticket != ticket || (k.state != WorkerState::Waiting && k.state != WorkerState::Aggregating)) continue;
    const std::uint32_t r = p.queue.front();
    p.queue.pop_front();
    if (k.state == WorkerState::Waiting) {
      take_first_job(w, r);
    } else {
      s_.reqs[r].taken = s_.sim.now();
      k.batch.push_back(r);
      if (k.batch.size() >= static_cast<std::size_t>(s_.sc.server.batch_size) || s_.sim.now() >= k.batch_deadline) {
        if (k.timer.valid()) s_.sim.cancel(k.timer);
        k.timer = {};
        ++k.ticket;
        run_batch(w);
      } else {
        p.pollers.emplace_back(w, k.ticket);  // polls again, at the back of the queue
      }
    }
  }
}

void WorkerPools::run_batch(std::uint32_t w) {
  Worker& k = s_.workers[w];
  Pool& p = s_.pools[k.pool];
  --p.started;
  ++p.busy;
  k.state = WorkerState::Busy;
  ++k.ticket;
  k.idle_since = s_.sim.now();  // TemporaryBatchAggregator.pollBatch: idleSince after the drain
  ++s_.st.batches;
  const ServiceDraw& svc = p.service;
  const double base = static_cast<double>(svc.base(rng_service_).count_ns());
  const double k1 = static_cast<double>(k.batch.size() - 1);
  const std::int64_t work = core::detail::round_half_away(base * (1.0 + svc.batch_marginal * k1));  // = std::llround
  cpu_.start(s_.instances[p.instance], w, work);
}

void WorkerPools::batch_done(std::uint32_t w) {
  Worker& k = s_.workers[w];
  const std::uint32_t pid = k.pool;
  Pool& p = s_.pools[pid];
  --p.busy;
  k.state = WorkerState::Between;
  const auto bsize = static_cast<std::uint16_t>(k.batch.size());
  for (std::uint32_t r : k.batch) {
    --p.outstanding;
    host_.answer(r, 200, bsize);
  }
  k.batch.clear();
  worker_free(w);
  host_.pool_changed(pid);
}

void WorkerPools::enter_pool(std::uint32_t pid, std::uint32_t r) {
  Pool& p = s_.pools[pid];
  const Instance& in = s_.instances[p.instance];
  s_.reqs[r].container = s_.sim.now();
  s_.reqs[r].place = RequestPlace::Container;
  ps::PoolObservation o;
  o.now = s_.sim.now().ns();
  o.min_workers = s_.min_workers();
  o.max_workers = s_.max_workers();
  o.workers_running = static_cast<int>(p.workers.size());
  o.workers_busy = p.busy;
  o.workers_started = p.started;
  o.queue_size = static_cast<int>(p.queue.size());
  o.queue_capacity = s_.sc.server.job_queue_size;
  o.batch_size = s_.sc.server.batch_size;
  o.free_cores = std::max(0, in.cpu.vcpu - in.cpu.busy);
  const ps::AdmitDecision d = policy_.on_arrival(o);
  if (!d.admit) {
    if (d.add_worker) add_worker(pid, d.reason);
    host_.answer(r, 503, 0);
    return;
  }
  ++p.outstanding;
  if (d.add_worker) add_worker(pid, d.reason);
  // Fast path: an empty queue and a free worker polling -> it takes the job at once (the same
  // outcome as queueing it and dispatching, without touching the queue).
  if (p.queue.empty() && s_.sc.server.batch_size == 1) {
    while (!p.pollers.empty()) {
      const auto [w, ticket] = p.pollers.front();
      p.pollers.pop_front();
      const Worker& k = s_.workers[w];
      if (k.ticket != ticket || k.state != WorkerState::Waiting) continue;
      take_first_job(w, r);
      return;
    }
  }
  p.queue.push_back(r);
  s_.st.max_queue_seen = std::max<std::uint64_t>(s_.st.max_queue_seen, p.queue.size());
  dispatch(pid);
}

void WorkerPools::on_worker_ready(std::uint32_t w) {
  Worker& k = s_.workers[w];
  k.timer = {};
  --s_.pools[k.pool].starting;
  k.state = WorkerState::Between;
  emit_worker(s_.pools[k.pool], WorkerEvent::Kind::Ready, k.temporary, {});
  const std::uint32_t pid = k.pool;
  worker_free(w);
  dispatch(pid);
}

void WorkerPools::on_poll_deadline(std::uint32_t w) {
  Worker& k = s_.workers[w];
  k.timer = {};
  if (k.state != WorkerState::Waiting) return;
  ++k.ticket;  // leaves the poll queue
  --s_.pools[k.pool].started;
  k.state = WorkerState::Between;
  worker_free(w, true);
}

void WorkerPools::on_batch_deadline(std::uint32_t w) {
  Worker& k = s_.workers[w];
  k.timer = {};
  if (k.state == WorkerState::Aggregating) run_batch(w);
}

}  // namespace mltwin::models::inference
