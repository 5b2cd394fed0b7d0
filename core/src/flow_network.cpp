// Max-min fair sharing, incremental over connected components (see flow_network.hpp).
//
// Progressive filling with a heap of links keyed by fair share. Each link l in the component
// starts with rem = capacity and unfixed = its flow count, share = rem / unfixed. Pop the link
// with the smallest share (ties: smallest link id); every still-unfixed flow on it gets that
// share as its rate; each other link on such a flow loses that share from rem and one unfixed
// flow; links so touched are pushed again with their new share (a version count discards the
// stale heap entries). Cost per recomputation: O(S log S) with S = sum over the component's
// flows of their route lengths.
//
// Why the result does not depend on discovery order: the pops happen in (share, link id)
// order, and within one pop every fixed flow gets the same share, so each touched link's rem
// is decreased by the same value k times whatever order its k flows are visited in. So the
// numbers are a function of the component alone, and an incremental update gives, bit for
// bit, what recomputing the whole network gives (tests/core/test_flow_network.cpp checks).
#include "mltwin/core/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace mltwin::core {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr double kBytesPerNsPerGbps = 0.125;  // 1 Gb/s = 1e9 bit/s = 0.125 byte/ns

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("FlowNetwork: " + what); }

}  // namespace

FlowNetwork::FlowNetwork(core::Simulator& sim) : sim_(sim) { sim_.add_fluid_model(this); }

FlowNetwork::~FlowNetwork() = default;

LinkId FlowNetwork::add_link(double gbps, std::string name) {
  if (!std::isfinite(gbps) || !(gbps > 0))
    bad("link '" + name + "': capacity must be a finite number of Gb/s > 0, got " + std::to_string(gbps));
  if (links_.size() >= UINT32_MAX) bad("too many links");
  Link l;
  l.capacity = gbps * kBytesPerNsPerGbps;
  l.capacity_gbps = gbps;
  l.load_since = now_ns();
  links_.push_back(std::move(l));
  link_names_.push_back(std::move(name));
  return static_cast<LinkId>(links_.size() - 1);
}

// ---- flow slots ------------------------------------------------------------------------------

std::uint32_t FlowNetwork::alloc_flow() {
  if (free_head_ != UINT32_MAX) {
    const std::uint32_t s = free_head_;
    free_head_ = flows_[s].next_free;
    return s;
  }
  if (flows_.size() >= UINT32_MAX - 1) bad("too many flows");
  flows_.emplace_back();
  new_rate_.push_back(0);
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

void FlowNetwork::free_flow(std::uint32_t s) {
  Flow& f = flows_[s];
  f.state = State::Free;
  ++f.generation;
  f.owner = nullptr;
  f.route_len = 0;
  f.route_big.clear();
  f.pos_big.clear();
  f.next_free = free_head_;
  free_head_ = s;
  --live_flows_;
}

const FlowNetwork::Flow& FlowNetwork::flow_of(FlowId f, const char* what) const {
  if (!live(f)) bad(std::string(what) + ": stale or invalid flow handle");
  return flows_[f.slot];
}

bool FlowNetwork::alive(FlowId f) const { return live(f); }

// ---- starting, activating, ending ------------------------------------------------------------

FlowId FlowNetwork::start(std::vector<LinkId> route, double bytes, FlowOwner* owner, std::uint64_t payload,
                          core::Duration latency) {
  if (owner == nullptr) bad("start: null FlowOwner");
  if (!std::isfinite(bytes) || !(bytes > 0)) bad("start: bytes must be finite and > 0, got " + std::to_string(bytes));
  return start_impl(std::move(route), bytes, owner, payload, latency);
}

FlowId FlowNetwork::start_standing(std::vector<LinkId> route, FlowOwner* owner, std::uint64_t payload) {
  if (owner == nullptr) bad("start_standing: null FlowOwner");
  if (route.empty()) bad("start_standing: a standing flow needs at least one link");
  return start_impl(std::move(route), std::numeric_limits<double>::infinity(), owner, payload, core::Duration::ns(0));
}

FlowId FlowNetwork::start_impl(std::vector<LinkId> route, double bytes, FlowOwner* owner, std::uint64_t payload,
                               core::Duration latency) {
  if (latency < core::Duration::ns(0)) bad("start: negative latency");
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= links_.size()) bad("start: link " + std::to_string(route[i]) + " does not exist");
    for (std::size_t j = 0; j < i; ++j)
      if (route[j] == route[i]) bad("start: link " + std::to_string(route[i]) + " appears twice in the route");
  }
  const std::uint32_t s = alloc_flow();
  Flow& f = flows_[s];
  f.route_len = static_cast<std::uint32_t>(route.size());
  if (f.route_len <= kInline) {
    std::copy(route.begin(), route.end(), f.route_in);
  } else {
    f.route_big = std::move(route);
    f.pos_big.assign(f.route_len, 0);
  }
  f.remaining = bytes;
  f.rate = 0;
  f.t_ref = now_ns();
  f.t_done = kNever;
  f.seq = next_seq_++;
  f.owner = owner;
  f.payload = payload;
  f.state = State::Latent;
  ++live_flows_;
  ++stats_.flows_started;
  const FlowId id{s, f.generation};
  if (latency > core::Duration::ns(0)) {
    f.activation = sim_.schedule_in(latency, this, s);
  } else {
    activate(s);
  }
  return id;
}

void FlowNetwork::on_event(core::Simulator&, std::uint64_t payload) {
  const auto s = static_cast<std::uint32_t>(payload);
  if (s < flows_.size() && flows_[s].state == State::Latent) activate(s);
}

void FlowNetwork::activate(std::uint32_t s) {
  const std::int64_t now = now_ns();
  Flow& f = flows_[s];
  f.state = State::Active;
  f.activation = core::EventId{};
  f.t_ref = now;
  f.rate = 0;
  if (f.route_len == 0) {  // nothing limits it: done as soon as it is active
    f.rate = std::numeric_limits<double>::infinity();
    f.t_done = now;
    done_push(s);
    return;
  }
  const LinkId* route = f.route();
  std::uint32_t* pos = f.pos();
  for (std::uint32_t k = 0; k < f.route_len; ++k) {
    Link& l = links_[route[k]];
    pos[k] = static_cast<std::uint32_t>(l.flows.size());
    l.flows.push_back(s);
  }
  recompute_from(f.links());  // (flows_ does not reallocate during a recomputation)
}

void FlowNetwork::detach(std::uint32_t s) {
  Flow& f = flows_[s];
  const LinkId* route = f.route();
  const std::uint32_t* pos = f.pos();
  for (std::uint32_t k = 0; k < f.route_len; ++k) {
    Link& l = links_[route[k]];
    const std::uint32_t i = pos[k];
    const std::uint32_t moved = l.flows.back();
    l.flows[i] = moved;
    l.flows.pop_back();
    if (moved != s) {
      Flow& m = flows_[moved];
      const LinkId* mr = m.route();
      for (std::uint32_t j = 0; j < m.route_len; ++j)
        if (mr[j] == route[k]) {
          m.pos()[j] = i;
          break;
        }
    }
  }
}

bool FlowNetwork::cancel(FlowId id) {
  if (!live(id)) return false;
  const std::uint32_t s = id.slot;
  Flow& f = flows_[s];
  ++stats_.flows_cancelled;
  if (f.state == State::Latent) {
    sim_.cancel(f.activation);
    free_flow(s);
    return true;
  }
  if (f.heap_pos != UINT32_MAX) done_remove(s);
  detach(s);
  recompute_from(f.links());  // it is off its links, so the solve does not see it
  free_flow(s);
  return true;
}

// ---- the solver ------------------------------------------------------------------------------

void FlowNetwork::recompute_from(std::span<const LinkId> seeds) {
  if (seeds.empty()) return;
  ++epoch_;
  comp_flows_.clear();
  comp_links_.clear();
  stack_.clear();
  for (const LinkId l : seeds)
    if (links_[l].mark != epoch_) {
      links_[l].mark = epoch_;
      stack_.push_back(l);
    }
  while (!stack_.empty()) {
    const LinkId l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (const std::uint32_t s : links_[l].flows) {
      Flow& f = flows_[s];
      if (f.mark == epoch_) continue;
      f.mark = epoch_;
      comp_flows_.push_back(s);
      for (const LinkId l2 : f.links())
        if (links_[l2].mark != epoch_) {
          links_[l2].mark = epoch_;
          stack_.push_back(l2);
        }
    }
  }
  solve();
}

void FlowNetwork::recompute_all() {
  std::vector<LinkId> all(links_.size());
  for (LinkId l = 0; l < all.size(); ++l) all[l] = l;
  recompute_from(all);
}

void FlowNetwork::solve() {
  ++stats_.recomputations;
  stats_.flows_recomputed += comp_flows_.size();
  const std::int64_t now = now_ns();
  // Min-heap on (share, link id).
  const auto later = [](const HeapEntry& a, const HeapEntry& b) {
    return a.share != b.share ? a.share > b.share : a.link > b.link;
  };
  heap_.clear();
  double* const new_rate = new_rate_.data();
  for (const std::uint32_t s : comp_flows_) new_rate[s] = -1;  // unfixed
  for (const LinkId id : comp_links_) {
    Link& l = links_[id];
    l.rem = l.capacity;
    l.unfixed = static_cast<std::uint32_t>(l.flows.size());
    l.version = 0;
    if (l.unfixed > 0) heap_.push_back({l.rem / l.unfixed, id, 0});
  }
  std::make_heap(heap_.begin(), heap_.end(), later);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const HeapEntry top = heap_.back();
    heap_.pop_back();
    Link& l = links_[top.link];
    if (top.version != l.version || l.unfixed == 0) continue;  // stale entry
    const double share = top.share;
    touched_.clear();
    for (const std::uint32_t s : l.flows) {
      if (new_rate[s] >= 0) continue;
      new_rate[s] = share;
      for (const LinkId id2 : flows_[s].links()) {
        if (id2 == top.link) continue;
        Link& l2 = links_[id2];
        l2.rem -= share;
        --l2.unfixed;
        if (l2.version % 2 == 0) {  // first touch in this pop: odd version marks "touched"
          ++l2.version;
          touched_.push_back(id2);
        }
      }
    }
    l.unfixed = 0;
    for (const LinkId id2 : touched_) {
      Link& l2 = links_[id2];
      ++l2.version;  // back to even: a new version, older heap entries are stale
      if (l2.unfixed > 0) {
        heap_.push_back({std::max(l2.rem, 0.0) / l2.unfixed, id2, l2.version});
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
  // Link loads (settled up to now first, for the bytes-carried integral).
  for (const LinkId id : comp_links_) {
    Link& l = links_[id];
    l.bytes_acc += l.load * static_cast<double>(now - l.load_since);
    l.load_since = now;
    double load = 0;
    for (const std::uint32_t s : l.flows) load += new_rate[s];
    l.load = load;
  }
  for (const std::uint32_t s : comp_flows_) retime(s, new_rate[s], now);
}

// A rate change at `now`: bring the bytes up to date, compute the new completion time.
void FlowNetwork::retime(std::uint32_t s, double new_rate, std::int64_t now) {
  Flow& f = flows_[s];
  if (new_rate == f.rate) return;  // same rate, same completion time
  if (!(new_rate > 0))
    throw std::logic_error("FlowNetwork: a flow got rate " + std::to_string(new_rate) +
                           " B/ns (max-min over positive capacities cannot give that)");
  ++stats_.flows_retimed;
  if (std::isinf(f.remaining)) {  // a standing flow: a new rate, never a completion
    f.t_ref = now;
    f.rate = new_rate;
    f.owner->on_rate_change(*this, FlowId{s, f.generation}, f.payload);
    return;
  }
  if (f.t_done != kNever && f.t_done <= now) {
    // Already due at this ns (a discrete event at the same time changed the sharing): its
    // bytes are done; keep it due now rather than push it 1 ns on for a rounding residue.
    f.rate = new_rate;
    f.remaining = 0;
    f.t_ref = now;
    return;
  }
  f.remaining -= f.rate * static_cast<double>(now - f.t_ref);
  f.t_ref = now;
  f.rate = new_rate;
  std::int64_t t_done = now;
  if (f.remaining > 0) {
    const double q = std::ceil(f.remaining / new_rate);  // ns, rounded up; >= 1
    if (!(q < 9.0e18) || static_cast<double>(now) + q >= 9.2e18)
      throw std::overflow_error("FlowNetwork: a flow of " + std::to_string(f.remaining) + " bytes at " +
                                std::to_string(new_rate * 8) + " Gb/s would end beyond the int64 ns range");
    t_done = now + std::max<std::int64_t>(1, static_cast<std::int64_t>(q));
  }
  f.t_done = t_done;
  if (f.heap_pos == UINT32_MAX) done_push(s);
  else done_update(s);
}

// ---- completion heap -------------------------------------------------------------------------

void FlowNetwork::done_sift_up(std::uint32_t i, DoneKey k) {
  while (i > 0) {
    const std::uint32_t parent = (i - 1) / 4;
    if (!earlier(k, done_heap_[parent])) break;
    done_place(i, done_heap_[parent]);
    i = parent;
  }
  done_place(i, k);
}

void FlowNetwork::done_sift_down(std::uint32_t i, DoneKey k) {
  const auto n = static_cast<std::uint32_t>(done_heap_.size());
  for (;;) {
    const std::uint32_t first = 4 * i + 1;
    if (first >= n) break;
    std::uint32_t best = first;
    const std::uint32_t end = std::min(first + 4, n);
    for (std::uint32_t c = first + 1; c < end; ++c)
      if (earlier(done_heap_[c], done_heap_[best])) best = c;
    if (!earlier(done_heap_[best], k)) break;
    done_place(i, done_heap_[best]);
    i = best;
  }
  done_place(i, k);
}

void FlowNetwork::done_push(std::uint32_t slot) {
  const Flow& f = flows_[slot];
  done_heap_.push_back({});
  done_sift_up(static_cast<std::uint32_t>(done_heap_.size() - 1), DoneKey{f.t_done, f.seq, slot});
}

void FlowNetwork::done_remove(std::uint32_t slot) {
  const std::uint32_t i = flows_[slot].heap_pos;
  flows_[slot].heap_pos = UINT32_MAX;
  const DoneKey last = done_heap_.back();
  done_heap_.pop_back();
  if (i == done_heap_.size()) return;
  if (i > 0 && earlier(last, done_heap_[(i - 1) / 4]))
    done_sift_up(i, last);
  else
    done_sift_down(i, last);
}

void FlowNetwork::done_update(std::uint32_t slot) {
  const Flow& f = flows_[slot];
  const std::uint32_t i = f.heap_pos;
  const DoneKey k{f.t_done, f.seq, slot};
  if (i > 0 && earlier(k, done_heap_[(i - 1) / 4]))
    done_sift_up(i, k);
  else
    done_sift_down(i, k);
}

// ---- kernel hook -----------------------------------------------------------------------------

core::Time FlowNetwork::next_event_time(core::Time) {
  return done_heap_.empty() ? core::Time::max() : core::Time::from_ns(done_heap_.front().t);
}

void FlowNetwork::advance(core::Time, core::Time) {
  // Nothing to do: bytes are kept as (remaining at t_ref, rate) and brought up to date lazily
  // when a rate changes, so moving the clock costs O(1) whatever the number of flows.
}

void FlowNetwork::on_due(core::Simulator& sim) {
  const std::int64_t now = sim.now().ns();
  done_batch_.clear();
  std::vector<LinkId>& seeds = seed_buf_;
  seeds.clear();
  while (!done_heap_.empty() && done_heap_.front().t <= now) {
    const std::uint32_t s = done_heap_.front().slot;  // the earliest (t, flow id) first
    done_remove(s);
    Flow& f = flows_[s];
    detach(s);
    seeds.insert(seeds.end(), f.links().begin(), f.links().end());
    done_batch_.push_back({s, f.generation, f.owner, f.payload});
    ++stats_.flows_completed;
    free_flow(s);
  }
  recompute_from(seeds);
  // Owners last, in flow-id order (the heap's order at equal times); they may start flows.
  const std::vector<Done> batch = done_batch_;
  for (const Done& d : batch) d.owner->on_flow_done(sim, *this, FlowId{d.slot, d.generation}, d.payload);
}

// ---- queries ---------------------------------------------------------------------------------

double FlowNetwork::rate_gbps(FlowId id) const {
  const Flow& f = flow_of(id, "rate_gbps");
  return f.state == State::Active ? f.rate / kBytesPerNsPerGbps : 0.0;
}

double FlowNetwork::remaining_bytes(FlowId id) const {
  const Flow& f = flow_of(id, "remaining_bytes");
  if (f.state == State::Latent) return f.remaining;
  const std::int64_t now = now_ns();
  if (f.t_done <= now) return 0.0;
  return std::max(0.0, f.remaining - f.rate * static_cast<double>(now - f.t_ref));
}

core::Time FlowNetwork::completion_time(FlowId id) const {
  const Flow& f = flow_of(id, "completion_time");
  return f.t_done == kNever ? core::Time::max() : core::Time::from_ns(f.t_done);
}

double FlowNetwork::link_bytes(LinkId id) const {
  const Link& l = links_.at(id);
  return l.bytes_acc + l.load * static_cast<double>(now_ns() - l.load_since);
}

}  // namespace mltwin::core
