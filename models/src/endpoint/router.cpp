// Router: see mltwin/models/endpoint/router.hpp.
#include "mltwin/models/endpoint/router.hpp"

#include <stdexcept>
#include <string>

#include "mltwin/models/serving_metrics.hpp"

namespace mltwin::models::inference {

Router::Router(EndpointState& state, core::RngStreams& rng, ps::RoutingPolicy& policy, ModelStore& store, WorkerPools& pools,
               InstanceFleet& fleet)
    : s_(state), rng_overhead_(rng.stream("endpoint.overhead")), overhead_draw_(state.sc.endpoint.overhead), policy_(policy),
      store_(store), pools_(pools), fleet_(fleet) {
  all_.s = &s_;
  traffic_ = make_traffic_source(s_.sc, s_.sim, rng, *this);
}

std::span<const ps::InstanceView> Router::AllInstances::all() const {
  views.clear();
  for (const Instance& in : s->instances) {
    if (in.state != InstanceState::InService) continue;
    ps::InstanceView v = EndpointState::base_view(in);
    const ModelOnInstance& mi = in.models[model];
    v.model_present = present(mi.state);
    if (mi.state == ModelState::Loaded) {
      v.model_outstanding = s->pools[mi.pool].outstanding;
      v.model_workers = static_cast<int>(s->pools[mi.pool].workers.size());
    } else if (v.model_present) {
      v.model_outstanding = static_cast<int>(mi.pending.size());
    }
    views.push_back(v);
  }
  return views;
}

std::uint32_t Router::new_request() {
  std::uint32_t r;
  if (!s_.free_reqs.empty()) { r = s_.free_reqs.back(); s_.free_reqs.pop_back(); }
  else { r = static_cast<std::uint32_t>(s_.reqs.size()); s_.reqs.emplace_back(); }
  s_.reqs[r] = Request{};
  s_.reqs[r].id = next_request_id_++;
  s_.reqs[r].caller_waiting = true;
  return r;
}

void Router::arrive(std::uint32_t model, std::int32_t user) {
  const std::uint32_t r = new_request();
  Request& q = s_.reqs[r];
  q.model = model;
  q.user = user;
  q.arrival = s_.sim.now();
  ++s_.st.requests;
  ++s_.st.in_flight;
  const Duration oh = overhead_draw_(rng_overhead_);
  if (oh.count_ns() <= 0) reach(r);
  else s_.sim.schedule_in(oh, &reach_event_, r);
}

void Router::reach(std::uint32_t r) {
  Request& q = s_.reqs[r];
  q.reach = s_.sim.now();
  q.container = s_.sim.now();
  // The invocation timeout runs from here (the container's 60 s).
  wait_for_answer(r);
  if (!timeout_pending_) schedule_timeout();
  hviews_.clear();
  for (const Holder& h : s_.holders[q.model]) {
    const Instance& in = s_.instances[h.instance];
    if (in.state != InstanceState::InService) continue;
    // Filled where it lies: a view built on the stack and copied was read back as 16-byte
    // words right after being written field by field, which stalls store forwarding.
    ps::InstanceView& v = hviews_.emplace_back();
    EndpointState::fill_base_view(v, in);
    v.model_present = true;
    if (h.pool != kNoSlot) {
      const Pool& p = s_.pools[h.pool];
      v.model_outstanding = p.outstanding;
      v.model_workers = static_cast<int>(p.workers.size());
    } else {
      v.model_outstanding = static_cast<int>(in.models[q.model].pending.size());
    }
  }
  all_.model = q.model;
  if (hviews_.empty() && all_.all().empty()) {
    answer(r, 503, 0);  // no instance in service
    return;
  }
  const ps::RouteDecision d = policy_.route(q.model, s_.sim.now().ns(), hviews_, all_);
  // A policy may be the user's (C++ or Python): its choice is checked before it is used.
  if (d.instance >= s_.instances.size() || s_.instances[d.instance].state != InstanceState::InService)
    throw std::logic_error("routing policy '" + std::string(policy_.name()) + "' chose instance " + std::to_string(d.instance) +
                           ", which is not in service (it must be one of the views it was given)");
  Instance& in = s_.instances[d.instance];
  q.instance = static_cast<std::int32_t>(in.id);
  ++in.outstanding;
  fleet_.count_invocation();
  in.mem_cache->on_access(q.model, s_.sim.now().ns());
  if (!d.new_copy) {
    for (const Holder& h : s_.holders[q.model]) {
      if (h.instance != in.id) continue;
      if (h.pool != kNoSlot) {  // loaded: the fast path (a loaded model's artifact is pinned on
        q.hit = true;           // disk; its disk recency is renewed when it leaves memory)
        ++s_.st.cache_hits;
        pools_.enter_pool(h.pool, r);
        return;
      }
      break;
    }
  }
  store_.request(in, r);
}

void Router::answer(std::uint32_t r, int status, std::uint16_t batch) {
  Request& q = s_.reqs[r];
  const bool caller_waiting = q.caller_waiting;
  if (caller_waiting) record_answer(r, status, batch);
  else --s_.st.abandoned_in_container;  // its caller got 424 at its deadline: nothing to tell
  const std::int32_t user = q.user;
  const std::int32_t instance = q.instance;
  if (instance >= 0) --s_.instances[static_cast<std::uint32_t>(instance)].outstanding;
  s_.free_reqs.push_back(r);
  if (caller_waiting && user >= 0) traffic_->answered(static_cast<std::uint32_t>(user));
  if (instance >= 0) fleet_.maybe_terminate(s_.instances[static_cast<std::uint32_t>(instance)]);
}

void Router::record_answer(std::uint32_t r, int status, std::uint16_t batch) {
  Request& q = s_.reqs[r];
  q.caller_waiting = false;
  stop_waiting(r);
  --s_.st.in_flight;
  if (status == 200) ++s_.st.served;
  else if (status == 503) ++s_.st.rejected_503;
  else if (status == 507) ++s_.st.rejected_507;
  else if (status == 424) ++s_.st.timed_out_424;
  else if (status == 429) ++s_.st.not_ready_429;
  else if (status == 404) ++s_.st.not_found_404;
  RequestDone d;
  d.id = q.id;
  d.model = q.model;
  d.instance = q.instance;
  d.arrival = q.arrival;
  d.done = s_.sim.now();
  d.status = status;
  d.overhead_ns = q.reach.ns() - q.arrival.ns();
  d.loading_wait_ns = q.loading_wait;
  d.model_latency_ns = status == 200 ? s_.sim.now().ns() - q.container.ns() : 0;
  d.queue_ns = status == 200 ? q.taken.ns() - q.container.ns() : 0;
  d.batch = batch;
  d.cache_hit = q.hit;
  d.cache_hit_published = !s_.single_model();  // ModelCacheHit: multi-model endpoints only
  if (s_.metrics) s_.metrics->request(d);
  if (s_.rec) s_.rec->request(d);
}

void Router::wait_for_answer(std::uint32_t r) {
  Request& q = s_.reqs[r];
  q.in_waiting_list = true;
  q.waiting_prev = waiting_tail_;
  q.waiting_next = kNoSlot;
  if (waiting_tail_ != kNoSlot) s_.reqs[waiting_tail_].waiting_next = r;
  else waiting_head_ = r;
  waiting_tail_ = r;
}

void Router::stop_waiting(std::uint32_t r) {
  Request& q = s_.reqs[r];
  if (!q.in_waiting_list) return;
  q.in_waiting_list = false;
  if (q.waiting_prev != kNoSlot) s_.reqs[q.waiting_prev].waiting_next = q.waiting_next;
  else waiting_head_ = q.waiting_next;
  if (q.waiting_next != kNoSlot) s_.reqs[q.waiting_next].waiting_prev = q.waiting_prev;
  else waiting_tail_ = q.waiting_prev;
}

/// Waits for the earliest deadline of a request still waiting (if any).
void Router::schedule_timeout() {
  timeout_pending_ = waiting_head_ != kNoSlot;
  if (timeout_pending_) s_.sim.schedule(deadline(s_.reqs[waiting_head_]), &timeout_event_, 0);
}

void Router::on_timeout() {
  const Time now = s_.sim.now();
  while (waiting_head_ != kNoSlot && deadline(s_.reqs[waiting_head_]) <= now) {
    const std::uint32_t slot = waiting_head_;
    stop_waiting(slot);
    Request& q = s_.reqs[slot];
    switch (q.place) {
      case RequestPlace::WaitingForModel:
        // ModelNotReadyException: the model "continues to download and load into the
        // inference container" (Developer Guide, "Invoke a Multi-Model Endpoint").
        store_.forget_waiting(s_.instances[static_cast<std::uint32_t>(q.instance)], slot);
        q.loading_wait = now.ns() - q.container.ns();
        answer(slot, 429, 0);
        break;
      case RequestPlace::Container: {
        // ModelError: the container keeps the job (queued or running) until it finishes, and
        // answers it then to nobody (answer() frees the slot).
        const std::int32_t user = q.user;
        record_answer(slot, 424, 0);
        ++s_.st.abandoned_in_container;
        if (user >= 0) traffic_->answered(static_cast<std::uint32_t>(user));
        break;
      }
      case RequestPlace::Front:
        break;  // not reached: a request gets its deadline when it reaches its instance
    }
  }
  schedule_timeout();
}

}  // namespace mltwin::models::inference
