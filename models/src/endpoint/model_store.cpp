// ModelStore: see mltwin/models/endpoint/model_store.hpp.
#include "mltwin/models/endpoint/model_store.hpp"

#include <algorithm>

#include "mltwin/models/serving_metrics.hpp"

namespace mltwin::models::inference {

ModelStore::ModelStore(EndpointState& state, WorkerPools& pools, StoreHost& host) : s_(state), pools_(pools), host_(host) {
  service_draws_.reserve(s_.sc.models.size());
  for (const ModelSpec& spec : s_.sc.models)
    service_draws_.push_back(ServiceDraw{detail::LatencyDraw(spec.service.base), spec.service.batch_marginal});
}

/// Changes a model's state on an instance, keeping holders[model] (the instances where it is
/// present: downloading, loading or loaded) in step, so routing visits only those.
void ModelStore::set_state(Instance& in, std::uint32_t m, ModelState to) {
  ModelOnInstance& mi = in.models[m];
  const bool was = present(mi.state), is = present(to);
  mi.state = to;
  auto& h = s_.holders[m];
  auto at = std::lower_bound(h.begin(), h.end(), in.id, [](const Holder& x, std::uint32_t id) { return x.instance < id; });
  if (was && is) {
    at->pool = to == ModelState::Loaded ? mi.pool : kNoSlot;
  } else if (is) {
    h.insert(at, Holder{in.id, to == ModelState::Loaded ? mi.pool : kNoSlot});
  } else if (was) {
    h.erase(at);
  }
}

void ModelStore::request(Instance& in, std::uint32_t r) {
  Request& q = s_.reqs[r];
  ModelOnInstance& mi = in.models[q.model];
  if (mi.on_disk) in.disk_cache->on_access(q.model, s_.sim.now().ns());
  switch (mi.state) {
    case ModelState::Loaded:
      q.hit = true;
      ++s_.st.cache_hits;
      pools_.enter_pool(mi.pool, r);
      break;
    case ModelState::Downloading:
    case ModelState::Loading:
      q.place = RequestPlace::WaitingForModel;
      mi.pending.push_back(r);
      break;
    case ModelState::Absent:
    case ModelState::OnDisk:
      // A SingleModel server loads nothing on demand: DJL Serving 0.23.0 answers 404 "Model or
      // workflow not found" (InferenceRequestHandler.predict, no model_url_pattern set;
      // NettyUtils.sendError NOT_FOUND), MMS v1.1.9 404 "Model not found" (ModelManager.addJob).
      if (s_.single_model()) {
        host_.answer(r, 404, 0);
        break;
      }
      start_load(in, q.model, r);
      break;
  }
}

void ModelStore::forget_waiting(Instance& in, std::uint32_t r) {
  auto& pending = in.models[s_.reqs[r].model].pending;
  pending.erase(std::find(pending.begin(), pending.end(), r));
}

void ModelStore::pool_changed(std::uint32_t pid) {
  Pool& p = s_.pools[pid];
  if (!p.live) return;
  Instance& in = s_.instances[p.instance];
  if (!s_.sc.endpoint.model_cache_enabled && !s_.single_model() && EndpointState::pool_idle(p)) {
    unload_model(in, p.model, "ModelCacheSetting Disabled");
    if (in.models[p.model].on_disk) delete_artifact(in, p.model, "ModelCacheSetting Disabled");
  }
  host_.maybe_terminate(in);
}

/// What a cache policy may evict: on disk, an artifact not in use; in memory, a loaded model
/// nobody waits for whose pool is idle. Never `keep`.
struct ModelStore::Guard final : ps::EvictionGuard {
  const EndpointState* s;
  const Instance* in;
  std::uint32_t keep;
  bool disk;
  bool evictable(ps::ModelId m) const override {
    if (m == keep) return false;
    const ModelOnInstance& mi = in->models[m];
    if (disk) return mi.state == ModelState::OnDisk;  // not loaded, not loading, not downloading
    if (mi.state != ModelState::Loaded || !mi.pending.empty()) return false;
    return EndpointState::pool_idle(s->pools[mi.pool]);
  }
};

bool ModelStore::make_room(Instance& in, std::uint64_t need, std::uint32_t keep) {
  if (in.mem_used + need <= in.mem_cap) return true;
  if (need > in.mem_cap || s_.single_model()) return false;  // a SingleModel server keeps its models
  victims_.clear();
  Guard g{};
  g.s = &s_; g.in = &in; g.keep = keep; g.disk = false;
  if (!in.mem_cache->choose_victims(in.mem_used + need - in.mem_cap, s_.sim.now().ns(), g, victims_)) return false;
  const std::vector<ps::ModelId> chosen = victims_;
  for (ps::ModelId v : chosen) unload_model(in, v, "memory needed by another model");
  return in.mem_used + need <= in.mem_cap;
}

bool ModelStore::make_disk_room(Instance& in, std::uint64_t need, std::uint32_t keep) {
  if (in.disk_used + need <= in.disk_cap) return true;
  if (need > in.disk_cap) return false;
  victims_.clear();
  Guard g{};
  g.s = &s_; g.in = &in; g.keep = keep; g.disk = true;
  if (!in.disk_cache->choose_victims(in.disk_used + need - in.disk_cap, s_.sim.now().ns(), g, victims_)) return false;
  const std::vector<ps::ModelId> chosen = victims_;
  for (ps::ModelId v : chosen) delete_artifact(in, v, "disk space needed");
  return in.disk_used + need <= in.disk_cap;
}

void ModelStore::delete_artifact(Instance& in, std::uint32_t m, std::string_view why) {
  ModelOnInstance& mi = in.models[m];
  mi.on_disk = false;
  in.disk_used -= s_.sc.models[m].artifact_bytes;
  in.disk_cache->on_remove(m);
  if (mi.state == ModelState::OnDisk) set_state(in, m, ModelState::Absent);
  ++s_.st.artifacts_deleted;
  if (s_.rec)
    s_.rec->model_event(ModelEvent{s_.sim.now(), in.id, m, ModelEvent::Kind::ArtifactDeleted, s_.sc.models[m].artifact_bytes, 0, why});
}

void ModelStore::unload_model(Instance& in, std::uint32_t m, std::string_view why) {
  ModelOnInstance& mi = in.models[m];
  pools_.stop_pool(mi.pool);
  mi.pool = kNoSlot;
  set_state(in, m, mi.on_disk ? ModelState::OnDisk : ModelState::Absent);
  in.mem_cache->on_remove(m);
  if (mi.on_disk) in.disk_cache->on_access(m, s_.sim.now().ns());  // last use of the artifact
  --in.models_loaded;
  ++s_.st.unloads;
  const Duration d = s_.sc.endpoint.unload.draw(s_.rng_endpoint);
  if (s_.metrics) s_.metrics->unload_done(s_.sim.now(), d);
  if (s_.rec) s_.rec->model_event(ModelEvent{s_.sim.now(), in.id, m, ModelEvent::Kind::Unloaded, 0, d.count_ns(), why});
}

void ModelStore::fail_pending(Instance& in, std::uint32_t m, std::string_view why) {
  ModelOnInstance& mi = in.models[m];
  ++s_.st.load_failures;
  if (s_.rec)
    s_.rec->model_event(ModelEvent{s_.sim.now(), in.id, m, ModelEvent::Kind::LoadFailed, s_.model_memory_for_load(m), 0, why});
  std::vector<std::uint32_t> waiting;
  waiting.swap(mi.pending);
  for (std::uint32_t r : waiting) {
    s_.reqs[r].loading_wait = s_.sim.now().ns() - s_.reqs[r].container.ns();
    host_.answer(r, 507, 0);
  }
}

void ModelStore::start_load(Instance& in, std::uint32_t m, std::uint32_t r) {
  ModelOnInstance& mi = in.models[m];
  s_.reqs[r].place = RequestPlace::WaitingForModel;
  mi.pending.push_back(r);
  const ModelSpec& spec = s_.sc.models[m];
  if (s_.model_memory_for_load(m) > in.mem_cap) {
    fail_pending(in, m, "model needs more memory than the instance has");
    return;
  }
  if (!mi.on_disk) {
    if (!make_disk_room(in, spec.artifact_bytes, m)) {
      fail_pending(in, m, "no disk space for the model artifact");
      return;
    }
    in.disk_used += spec.artifact_bytes;
    set_state(in, m, ModelState::Downloading);
    mi.phase_start = s_.sim.now();
    mi.load_began = s_.sim.now();
    ++in.loads_in_progress;
    ++s_.st.downloads;
    if (s_.rec) s_.rec->model_event(ModelEvent{s_.sim.now(), in.id, m, ModelEvent::Kind::DownloadStart, spec.artifact_bytes, 0, {}});
    const EndpointSpec& ep = s_.sc.endpoint;
    const double secs = ep.s3_download_gbps > 0 ? static_cast<double>(spec.artifact_bytes) * 8.0 / (ep.s3_download_gbps * 1e9) : 0.0;
    const Duration d = ep.s3_first_byte.draw(s_.rng_endpoint) + Duration::from_seconds(secs);
    schedule_phase_end(in, m, d, download_done_event_);
    return;
  }
  ++in.loads_in_progress;
  mi.load_began = s_.sim.now();
  begin_memory_load(in, m);
}

template <class DoneEvent>
void ModelStore::schedule_phase_end(Instance& in, std::uint32_t m, Duration d, DoneEvent& done) {
  const ModelOnInstance& mi = in.models[m];
  const Time limit = mi.load_began + s_.sc.endpoint.model_load_limit;
  // "continues to download and load ... for up to 360 seconds": ending at the limit is within.
  if (!s_.single_model() && s_.sim.now() + d > limit) {
    s_.sim.schedule(limit, &load_abandoned_event_, load_abandoned_event_.payload(in.id, m));
    return;
  }
  s_.sim.schedule_in(d, &done, done.payload(in.id, m));
}

void ModelStore::on_load_abandoned(std::uint32_t iid, std::uint32_t m) {
  Instance& in = s_.instances[iid];
  ModelOnInstance& mi = in.models[m];
  if (mi.state == ModelState::Downloading) {
    // The artifact never reached the disk: its space is free again.
    in.disk_used -= s_.sc.models[m].artifact_bytes;
    set_state(in, m, ModelState::Absent);
  } else {
    // Loading: the memory it reserved is free again; the downloaded artifact stays on disk.
    in.mem_used -= mi.reserved;
    mi.reserved = 0;
    set_state(in, m, mi.on_disk ? ModelState::OnDisk : ModelState::Absent);
  }
  --in.loads_in_progress;
  ++s_.st.load_failures;
  if (s_.rec)
    s_.rec->model_event(ModelEvent{s_.sim.now(), iid, m, ModelEvent::Kind::LoadFailed, s_.model_memory_for_load(m), 0,
                                   "not loaded within the model load limit (endpoint.model_load_limit_s; SageMaker: 360 s)"});
  // The requests still waiting (each less than the invocation timeout so far): 429
  // ModelNotReadyException now — their model will not be ready (mltwin's assumption).
  std::vector<std::uint32_t> waiting;
  waiting.swap(mi.pending);
  for (std::uint32_t r : waiting) {
    s_.reqs[r].loading_wait = s_.sim.now().ns() - s_.reqs[r].container.ns();
    host_.answer(r, 429, 0);
  }
  host_.maybe_terminate(in);
}

void ModelStore::on_download_done(std::uint32_t iid, std::uint32_t m) {
  Instance& in = s_.instances[iid];
  ModelOnInstance& mi = in.models[m];
  mi.on_disk = true;
  in.disk_cache->on_insert(m, s_.sc.models[m].artifact_bytes, s_.sim.now().ns());
  const std::int64_t d = s_.sim.now().ns() - mi.phase_start.ns();
  if (s_.metrics) s_.metrics->download_done(s_.sim.now(), Duration::ns(d));
  if (s_.rec) s_.rec->model_event(ModelEvent{s_.sim.now(), iid, m, ModelEvent::Kind::Downloaded, s_.sc.models[m].artifact_bytes, d, {}});
  begin_memory_load(in, m);
}

void ModelStore::begin_memory_load(Instance& in, std::uint32_t m) {
  ModelOnInstance& mi = in.models[m];
  const std::uint64_t need = s_.model_memory_for_load(m);
  if (!make_room(in, need, m)) {
    set_state(in, m, mi.on_disk ? ModelState::OnDisk : ModelState::Absent);
    --in.loads_in_progress;
    fail_pending(in, m, "memory exhausted: the models holding it are in use");
    host_.maybe_terminate(in);
    return;
  }
  // Only the permanent workers' copies are taken (none with minWorkers 0: the check above is
  // DJL's checkAvailableMemory, which holds nothing).
  const std::uint64_t held = s_.model_memory_held(m);
  in.mem_used += held;
  mi.reserved = held;
  set_state(in, m, ModelState::Loading);
  mi.phase_start = s_.sim.now();
  if (s_.rec) s_.rec->model_event(ModelEvent{s_.sim.now(), in.id, m, ModelEvent::Kind::LoadStart, need, 0, {}});
  const EndpointSpec& ep = s_.sc.endpoint;
  const double secs = ep.load_gbytes_per_s > 0 ? static_cast<double>(s_.sc.models[m].artifact_bytes) / (ep.load_gbytes_per_s * 1e9) : 0.0;
  const Duration d = ep.load_fixed.draw(s_.rng_endpoint) + Duration::from_seconds(secs);
  schedule_phase_end(in, m, d, load_done_event_);
}

void ModelStore::on_load_done(std::uint32_t iid, std::uint32_t m) {
  Instance& in = s_.instances[iid];
  finish_load(in, m);
  if (s_.single_model()) load_next_startup_model(in);
}

void ModelStore::finish_load(Instance& in, std::uint32_t m) {
  const std::uint32_t iid = in.id;
  ModelOnInstance& mi = in.models[m];
  --in.loads_in_progress;
  const std::uint32_t pid = pools_.open_pool(iid, m, service_draws_[m]);
  mi.pool = pid;
  set_state(in, m, ModelState::Loaded);
  ++in.models_loaded;
  ++s_.st.loads;
  // The pool holds what the load took: one copy per permanent worker (none with DJL minWorkers
  // 0, until a request starts a worker, which takes its own: WorkerPools::add_worker).
  const std::uint64_t held = mi.reserved;
  in.mem_cache->on_insert(m, held, s_.sim.now().ns());
  mi.reserved = 0;
  const std::int64_t d = s_.sim.now().ns() - mi.phase_start.ns();
  // ModelLoadingTime is a multi-model endpoint's metric (CloudWatch, "SageMaker AI multi-model
  // endpoint model loading metrics").
  if (s_.metrics && !s_.single_model()) s_.metrics->load_done(s_.sim.now(), Duration::ns(d));
  if (s_.rec) s_.rec->model_event(ModelEvent{s_.sim.now(), iid, m, ModelEvent::Kind::Loaded, s_.model_memory_for_load(m), d, {}});
  pools_.start_permanent_workers(pid);
  std::vector<std::uint32_t> waiting;
  waiting.swap(mi.pending);
  for (std::uint32_t r : waiting) {
    s_.reqs[r].loading_wait = s_.sim.now().ns() - s_.reqs[r].container.ns();
    pools_.enter_pool(pid, r);
  }
}

/// SageMaker's copy of the model artifact to /opt/ml/model: every model of the scenario (the
/// model store) on the instance's disk. The scenario loader checked that they fit.
void ModelStore::place_artifacts(Instance& in) {
  for (std::uint32_t m = 0; m < s_.sc.models.size(); ++m) {
    in.models[m].on_disk = true;
    in.disk_used += s_.sc.models[m].artifact_bytes;
    set_state(in, m, ModelState::OnDisk);
  }
}

void ModelStore::register_models(Instance& in) {
  // SageMaker copies ModelDataUrl (one .tar.gz) to /opt/ml/model before the container serves:
  // one S3 object, s3_first_byte then its size at s3_download_gbps (the artifacts' total).
  std::uint64_t bytes = 0;
  for (const ModelSpec& spec : s_.sc.models) bytes += spec.artifact_bytes;
  const EndpointSpec& ep = s_.sc.endpoint;
  const double secs = ep.s3_download_gbps > 0 ? static_cast<double>(bytes) * 8.0 / (ep.s3_download_gbps * 1e9) : 0.0;
  const Duration d = ep.s3_first_byte.draw(s_.rng_endpoint) + Duration::from_seconds(secs);
  s_.sim.schedule_in(d, &artifacts_copied_event_, in.id);
}

void ModelStore::on_artifacts_copied(std::uint32_t iid) {
  Instance& in = s_.instances[iid];
  if (in.state != InstanceState::Starting) return;  // scaled in while starting
  place_artifacts(in);
  in.next_startup_load = 0;
  load_next_startup_model(in);
}

/// The server's next startup model, or, after the last, the fleet's health check. One at a
/// time: DJL Serving 0.23.0's ModelServer.initModelStore joins each registration (f.join())
/// before the next when wait_model_loading is true (its default, ConfigManager.waitModelLoading).
void ModelStore::load_next_startup_model(Instance& in) {
  if (in.state != InstanceState::Starting) return;  // scaled in while starting
  const auto& list = s_.sc.server.load_models;
  if (in.next_startup_load >= list.size()) {
    host_.models_registered(in);
    return;
  }
  const std::uint32_t m = list[in.next_startup_load++];
  ++in.loads_in_progress;
  begin_memory_load(in, m);
}

void ModelStore::register_models_now(Instance& in) {
  place_artifacts(in);
  for (std::uint32_t m : s_.sc.server.load_models) {
    ModelOnInstance& mi = in.models[m];
    const std::uint64_t held = s_.model_memory_held(m);
    in.mem_used += held;
    mi.reserved = held;
    mi.phase_start = s_.sim.now();
    ++in.loads_in_progress;
    finish_load(in, m);
  }
  in.next_startup_load = static_cast<std::uint32_t>(s_.sc.server.load_models.size());
}

}  // namespace mltwin::models::inference
