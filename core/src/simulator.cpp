// The discrete-event kernel: an indexed 4-ary min-heap of 16-byte (time, seq|slot) entries
// over a pool of event slots.
//
// Why this shape (numbers in bench/README.md):
//  * The key lives inline in the heap entry, so sifting reads only the heap array; the slot
//    pool is touched once per move (to record the entry's new index, which cancel and
//    reschedule need to find it in O(1)) and once to fire.
//  * 4-ary rather than binary: half the depth, and the four children of a node share one
//    64-byte line (or two). With the M/M/c benchmark's ~9 pending events the two are within
//    noise of each other; with a million pending events the binary heap was ~1.6x slower.
//  * sift_down, the hot operation, picks the smallest child with a branch-free tournament of
//    128-bit compares (the comparisons of random keys mispredict about half the time as
//    branches) and prefetches the grandchildren, which halves the cost per event when the
//    heap does not fit in cache.
//  * The fired event's root entry is reused by the first event its handler schedules (see
//    fire_top), so the common "fire one, schedule one" costs one sift instead of two.
//  * Slots are recycled through an intrusive free list and carry a generation count, so an
//    EventId of a fired or cancelled event never matches a reused slot. After the pool and
//    the heap have grown to the peak number of pending events, scheduling allocates nothing.
//  * The event loop tests `fluid_.empty()` once per event; everything fluid-related sits
//    behind that branch.
//  * The lane: beside the heap, an array of entries kept sorted by (time, seq). An event goes
//    there when its entry sorts no earlier than the kLaneScan-th from the lane's back (an
//    insertion then moves the few entries behind it one place back), otherwise into the
//    heap; the next event is the earlier of the lane's front and the heap's root. Events
//    scheduled roughly in the order of their times — a fleet of closed-loop users each
//    waiting a fixed think time, the bulk of the pending events of an inference run — then
//    cost a few instructions each and stay out of the heap, which keeps the near,
//    out-of-order ones (in the DJL blog run: ~450 users in the lane, ~15 events in the heap,
//    two or three levels instead of five or six). Which of the two holds an event changes
//    nothing but the cost: both are ordered by the same (time, seq) key, so events fire in
//    exactly the heap-only order. Entries in the lane do not tell their slots where they are
//    (so a shift is a plain copy); a cancel finds its entry by binary search on the time
//    (kept in the slot) and leaves a tombstone (its slot bits set to kNoSlot, its rank kept, so
//    the lane stays sorted) until it reaches the front, so a lane full of tombstones only
//    sends new events to the heap.
#include "mltwin/core/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mltwin::core {

namespace {

// The lane's array: 32 KiB of entries, allocated when first used.
constexpr std::uint32_t kLaneCapacity = 2048;
// An insertion into the lane moves fewer than this many entries (else the event goes to the heap).
constexpr std::uint32_t kLaneScan = 128;

// Out of line and cold, so that the checks in schedule()/reschedule() compile to one
// compare-and-branch each and the formatting code stays out of the hot path.
[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_schedule(const char* where, Time t, Time now,
                                                               const EventHandler* h) {
  if (h == nullptr)
    throw std::invalid_argument(std::string("Simulator::") + where + ": null EventHandler");
  throw std::invalid_argument(std::string("Simulator::") + where + ": time " +
                              std::to_string(t.ns()) + " ns is in the past (now() = " +
                              std::to_string(now.ns()) + " ns)");
}

}  // namespace

Simulator::Simulator() {
  // Enough for typical models to never grow the arrays; they grow geometrically otherwise.
  slots_.reserve(64);
  heap_.reserve(64);
}

// ---- slot pool -------------------------------------------------------------------------------

std::uint32_t Simulator::alloc_slot() {
  if (free_head_ != kNoSlot) {
    const std::uint32_t s = free_head_;
    free_head_ = slots_[s].heap_pos;
    return s;
  }
  // UINT32_MAX is EventId's "invalid" marker and kNoSlot, and a heap_pos of kInLane means "in
  // the lane", so the pool stops two short of it.
  if (slots_.size() >= kInLane) [[unlikely]]
    throw std::length_error("Simulator: more than 2^32-2 pending events");
  slots_.push_back(Slot{nullptr, 0, kNoSlot, 0, 0});
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void Simulator::free_slot(std::uint32_t s) {
  Slot& sl = slots_[s];
  ++sl.generation;  // wraps after 2^32 reuses of one slot; an id that old is not a concern
  sl.heap_pos = free_head_;
  free_head_ = s;
}

// ---- sequence numbers ------------------------------------------------------------------------

std::uint64_t Simulator::next_key(std::uint32_t slot) {
  if (next_seq_ > UINT32_MAX) [[unlikely]]
    renumber_sequences();
  return (next_seq_++ << 32) | slot;
}

// Sequence numbers only need to order the *pending* events, so when the 32-bit space is used
// up (after ~4.3e9 schedules, a few minutes of a fast run) we relabel the pending events
// 0..n-1 in their current (time, seq) order. A strictly increasing relabelling keeps every
// parent-child comparison the same, so the heap array needs no re-sifting, and every event
// scheduled afterwards still sorts after all pending ones at its time. O(n log n), rare.
// The lane's entries (tombstones too, so that it stays sorted) are relabelled with the heap's.
void Simulator::renumber_sequences() {
  std::vector<Entry*> order;
  order.reserve(heap_.size() + (lane_tail_ - lane_head_));
  for (Entry& e : heap_) order.push_back(&e);
  for (std::uint32_t i = lane_head_; i < lane_tail_; ++i) order.push_back(&lane_[i]);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) { return earlier(*a, *b); });
  std::uint64_t seq = 0;
  for (Entry* e : order) {
    e->key = (seq << 32) | slot_of(*e);
    ++seq;
  }
  next_seq_ = seq;
}

// ---- heap ------------------------------------------------------------------------------------
// Both sifts move a "hole" instead of swapping: each step copies one entry and updates one
// slot's heap_pos, and `e` is written once at the end.

void Simulator::sift_up(std::uint32_t i, Entry e) {
  while (i > 0) {
    const std::uint32_t parent = (i - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, e);
}

void Simulator::sift_down(std::uint32_t i, Entry e) {
  const std::uint32_t n = static_cast<std::uint32_t>(heap_.size());
  const Entry* const h = heap_.data();
  const Rank re = rank(e);
  // Below 64 KiB the heap lives in L1/L2 and prefetching only costs instructions.
  const bool prefetch = n > 4096;
  for (;;) {
    const std::uint32_t first = kArity * i + 1;
    std::uint32_t best;
    if (first + kArity <= n) [[likely]] {
      // Large heaps are bound by cache misses: fetch the grandchildren's lines while we
      // compare the children. (Computed as integers: the address may lie past the end of
      // the array, which is harmless for a prefetch, which never faults.)
      if (prefetch) {
        const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(h);
        for (std::uint32_t k = 0; k < kArity; ++k)
          __builtin_prefetch(
              reinterpret_cast<const void*>(base + (kArity * (first + k) + 1) * sizeof(Entry)));
      }
      // All children exist: pick the smallest as a tournament of selects, which the
      // compiler turns into conditional moves. (kArity == 2 is kept for measurements.)
      static_assert(kArity == 4 || kArity == 2);
      const std::uint32_t a = rank(h[first + 1]) < rank(h[first]) ? first + 1 : first;
      if constexpr (kArity == 4) {
        const std::uint32_t b = rank(h[first + 3]) < rank(h[first + 2]) ? first + 3 : first + 2;
        best = rank(h[b]) < rank(h[a]) ? b : a;
      } else {
        best = a;
      }
    } else {
      if (first >= n) break;
      best = first;
      for (std::uint32_t c = first + 1; c < n; ++c)
        if (rank(h[c]) < rank(h[best])) best = c;
    }
    if (!(rank(h[best]) < re)) break;
    place(i, h[best]);
    i = best;
  }
  place(i, e);
}

// Removes heap_[i]; the caller frees its slot.
void Simulator::heap_remove(std::uint32_t i) {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;  // it was the last entry
  // The moved entry may belong above or below position i.
  if (i > 0 && earlier(last, heap_[(i - 1) / kArity]))
    sift_up(i, last);
  else
    sift_down(i, last);
}

// ---- lane ------------------------------------------------------------------------------------

// Puts e into the lane if it sorts no earlier than the entry kLaneScan from the back (all of
// them when the lane is shorter); false if it belongs further forward, or the lane is full.
bool Simulator::lane_insert(const Entry& e) {
  const std::uint32_t size = lane_tail_ - lane_head_;
  const Rank re = rank(e);
  if (size >= kLaneScan && re < rank(lane_[lane_tail_ - kLaneScan])) return false;
  if (size == kLaneCapacity / 2) [[unlikely]]
    return false;  // "full"
  if (lane_tail_ == lane_.size()) [[unlikely]] {
    if (lane_.empty()) {
      lane_.resize(kLaneCapacity);  // once: the lane never grows, so it never allocates again
    } else {
      // Back to the start of the array. The lane holds at most half of it (below), so this
      // moves at most one entry per insertion since the last time: O(1) amortised.
      std::copy(lane_.begin() + lane_head_, lane_.begin() + lane_tail_, lane_.begin());
      lane_head_ = 0;
      lane_tail_ = size;
    }
  }
  // From the back, the first entry that e does not precede; e goes right after it, the entries
  // it passed one place back (a handful: cheaper moved as the scan goes than by a memmove call).
  Entry* const first = lane_.data() + lane_head_;
  Entry* p = lane_.data() + lane_tail_;
  while (p > first && re < rank(p[-1])) {
    *p = p[-1];
    --p;
  }
  *p = e;
  ++lane_tail_;
  ++lane_live_;
  slots_[slot_of(e)].heap_pos = kInLane;
  slots_[slot_of(e)].lane_t = e.t;
  return true;
}

// Turns the entry of pending slot `slot` into a tombstone; the caller frees the slot.
void Simulator::lane_cancel(std::uint32_t slot) {
  // The first entry at the slot's time, then the one of that time that is the slot's.
  const std::int64_t t = slots_[slot].lane_t;
  Entry* p = std::lower_bound(lane_.data() + lane_head_, lane_.data() + lane_tail_, t,
                              [](const Entry& e, std::int64_t v) { return e.t < v; });
  while (slot_of(*p) != slot) ++p;  // it is there: the slot is pending in the lane
  p->key |= kNoSlot;  // the seq (high half) keeps its place in the order
  --lane_live_;
  lane_skip_dead();
}

// Drops the tombstones at the front, so that the front is pending whenever lane_live_ > 0.
void Simulator::lane_skip_dead() {
  while (lane_head_ < lane_tail_ && slot_of(lane_[lane_head_]) == kNoSlot) ++lane_head_;
}

// A new entry: into the lane if it fits there, else into the heap (taking over a fired root).
void Simulator::insert(const Entry& e) {
  // lane_insert's first test, here too: most events that go to the heap fail it, and then
  // skip the call (whose prologue saved six registers for nothing).
  const std::uint32_t size = lane_tail_ - lane_head_;
  if ((size < kLaneScan || !earlier(e, lane_[lane_tail_ - kLaneScan])) && lane_insert(e)) return;
  if (root_fired_) {
    // Take over the fired event's root position (see fire_top). The subtrees below the root
    // are valid heaps, so sifting e down from the root yields a valid heap, whatever e's key.
    root_fired_ = false;
    sift_down(0, e);
  } else {
    heap_.push_back(e);
    sift_up(static_cast<std::uint32_t>(heap_.size() - 1), e);
  }
}

std::int64_t Simulator::next_event_ns() const {
  std::int64_t t = heap_.empty() ? INT64_MAX : heap_.front().t;
  if (lane_live_ != 0) t = std::min(t, lane_[lane_head_].t);
  return t;
}

// ---- public API ------------------------------------------------------------------------------

EventId Simulator::schedule(Time t, EventHandler* h, std::uint64_t payload) {
  if (t < now_ || h == nullptr) [[unlikely]]
    throw_bad_schedule("schedule", t, now_, h);
  const std::uint32_t s = alloc_slot();
  Slot& sl = slots_[s];
  sl.handler = h;
  sl.payload = payload;
  const EventId id{s, sl.generation};
  ++stats_.events_scheduled;
  insert(Entry{t.ns(), next_key(s)});
  return id;
}

bool Simulator::cancel(EventId id) {
  if (!live(id)) return false;
  const std::uint32_t pos = slots_[id.slot].heap_pos;
  if (pos == kInLane) lane_cancel(id.slot);
  else heap_remove(pos);
  free_slot(id.slot);
  ++stats_.events_cancelled;
  return true;
}

bool Simulator::reschedule(EventId id, Time t) {
  if (!live(id)) return false;
  if (t < now_) [[unlikely]]
    throw_bad_schedule("reschedule", t, now_, slots_[id.slot].handler);
  const std::uint32_t i = slots_[id.slot].heap_pos;
  if (i == kInLane) {
    // A tombstone where it was, and a new entry.
    const Entry e{t.ns(), next_key(id.slot)};
    lane_cancel(id.slot);
    insert(e);
    ++stats_.events_rescheduled;
    return true;
  }
  const std::int64_t old_t = heap_[i].t;
  const Entry e{t.ns(), next_key(id.slot)};
  // The new seq is larger than every pending one, so the key shrank iff the time did. (Compare
  // times only: next_key may have just renumbered the old entry's seq.)
  if (e.t < old_t)
    sift_up(i, e);
  else
    sift_down(i, e);
  ++stats_.events_rescheduled;
  return true;
}

bool Simulator::pending(EventId id) const { return live(id); }

Time Simulator::time_of(EventId id) const {
  if (!live(id)) return Time::max();
  const std::uint32_t pos = slots_[id.slot].heap_pos;
  return Time::from_ns(pos == kInLane ? slots_[id.slot].lane_t : heap_[pos].t);
}

void Simulator::add_fluid_model(FluidModel* m) {
  if (m == nullptr) throw std::invalid_argument("Simulator::add_fluid_model: null FluidModel");
  fluid_.push_back(m);
}

Time Simulator::next_time() const {
  Time th = Time::max();
  if (!root_fired_) {
    if (!heap_.empty()) th = Time::from_ns(heap_.front().t);
  } else {  // the root is a fired event (we are in a handler): the next is one of its children
    const std::size_t end = std::min<std::size_t>(heap_.size(), kArity + 1);
    for (std::size_t c = 1; c < end; ++c) th = std::min(th, Time::from_ns(heap_[c].t));
  }
  if (lane_live_ != 0) th = std::min(th, Time::from_ns(lane_[lane_head_].t));
  if (fluid_.empty()) return th;
  return std::min(th, fluid_next_time(nullptr));
}

// ---- event loop ------------------------------------------------------------------------------

// Fires the earliest event. The slot is freed before the handler runs, so the handler sees
// its own EventId as no longer pending and may reuse the slot at once.
//
// The fired entry is left at heap_[0] while the handler runs (root_fired_), because most
// handlers schedule a follow-up event: the first schedule() then takes over the root and sifts
// down once, where pop-then-push would sift twice. root_fired_ is a valid state for every
// operation, not only inside handlers: the stale root compares earlier than every pending
// entry (it was the minimum, and anything scheduled or rescheduled since has a larger
// sequence number), so sift_up from a cancel or reschedule stops below it; pending_count()
// and next_time() skip it; loop() and step() drop it before looking at the top. So if the
// handler throws, nothing needs repairing; otherwise the root is dropped right here.
void Simulator::fire_top() {
  const Entry top = heap_.front();
  const std::uint32_t s = slot_of(top);
  EventHandler* const h = slots_[s].handler;
  const std::uint64_t payload = slots_[s].payload;
  free_slot(s);
  now_ = Time::from_ns(top.t);
  ++stats_.events_fired;
  root_fired_ = true;
  h->on_event(*this, payload);
  if (root_fired_) drop_fired_root();
}

// Fires the lane's front (the caller checked that it is the next event): no root to keep.
void Simulator::fire_lane_front() {
  const Entry top = lane_[lane_head_++];
  --lane_live_;
  if (lane_head_ < lane_tail_ && slot_of(lane_[lane_head_]) == kNoSlot) [[unlikely]]
    lane_skip_dead();
  const std::uint32_t s = slot_of(top);
  EventHandler* const h = slots_[s].handler;
  const std::uint64_t payload = slots_[s].payload;
  free_slot(s);
  now_ = Time::from_ns(top.t);
  ++stats_.events_fired;
  h->on_event(*this, payload);
}

void Simulator::drop_fired_root() {
  root_fired_ = false;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, last);
}

// Earliest due time over the fluid models; `*which` gets the first registered model due then.
Time Simulator::fluid_next_time(FluidModel** which) const {
  Time best = Time::max();
  for (FluidModel* m : fluid_) {
    const Time t = m->next_event_time(now_);
    if (t < now_) [[unlikely]]
      throw std::logic_error("FluidModel::next_event_time returned " + std::to_string(t.ns()) +
                             " ns, before now() = " + std::to_string(now_.ns()) + " ns");
    if (t < best) {
      best = t;
      if (which != nullptr) *which = m;
    }
  }
  return best;
}

void Simulator::advance_fluid_to(Time t) {
  if (t <= now_) return;  // the clock does not move: no empty intervals
  for (FluidModel* m : fluid_) m->advance(now_, t);
  now_ = t;
}

// One step of the loop when fluid models exist. Discrete events win ties (see the header).
bool Simulator::fluid_step(Time limit) {
  FluidModel* due = nullptr;
  const Time tf = fluid_next_time(&due);
  const std::int64_t next = next_event_ns();
  if (next != INT64_MAX && next <= tf.ns()) {
    const Time th = Time::from_ns(next);
    if (th > limit) return false;
    advance_fluid_to(th);
    fire_next();
    return true;
  }
  if (due == nullptr || tf > limit) return false;  // nothing pending, or beyond the limit
  advance_fluid_to(tf);
  ++stats_.fluid_due;
  due->on_due(*this);
  return true;
}

std::uint64_t Simulator::loop(Time limit) {
  if (root_fired_) drop_fired_root();  // a handler threw, or called run() itself
  const std::uint64_t fired_before = stats_.events_fired;
  const std::int64_t lim = limit.ns();
  stop_requested_ = false;
  while (!stop_requested_) {
    if (fluid_.empty()) [[likely]] {
      if (lane_first()) {
        if (lane_[lane_head_].t > lim) break;
        fire_lane_front();
      } else {
        if (heap_.empty() || heap_.front().t > lim) break;
        fire_top();
      }
    } else if (!fluid_step(limit)) {
      break;
    }
  }
  return stats_.events_fired - fired_before;
}

std::uint64_t Simulator::run() { return loop(Time::max()); }

std::uint64_t Simulator::run_until(Time t) {
  const std::uint64_t fired = loop(t);
  if (!stop_requested_) advance_fluid_to(t);  // also sets now_ = t when t > now_
  return fired;
}

bool Simulator::step() {
  if (root_fired_) drop_fired_root();  // a handler threw, or called step() itself
  if (fluid_.empty()) {
    if (heap_.empty() && lane_live_ == 0) return false;
    fire_next();
    return true;
  }
  return fluid_step(Time::max());
}

}  // namespace mltwin::core
