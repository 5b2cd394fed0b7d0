// mltwin/core/simulator.hpp — the discrete-event kernel.
//
// A component with several kinds of event declares one core::Event per kind (core/event.hpp)
// instead of decoding a kind from the payload.
//
// Events are ordered by (time, insertion sequence): two events at the same nanosecond fire in
// the order they were scheduled; a rescheduled event takes a fresh sequence number, as if it
// had been cancelled and scheduled anew. An event is a (handler, payload) pair: the handler is
// a long-lived model object, the payload a 64-bit value it interprets (an index, an id). There
// is no std::function and no heap allocation per event: event slots are pooled and reused, and
// the pending-event set is an indexed 4-ary heap, so cancel and reschedule are O(log n).
//
// Fluid models (max-min fair bandwidth sharing: core/flow_network.hpp) plug in through
// FluidModel, the way SimGrid keeps its resource models and their lmm solver beside the kernel: before the clock moves from t0 to t1 every
// fluid model is advanced over [t0, t1), and a fluid model's own next completion time competes
// with the discrete events for the next step.
//
// The fluid rules, precisely (tests/core/test_kernel.cpp pins them down):
//   * advance(t0, t1) is called, on every fluid model in registration order, exactly when the
//     clock moves forward (t1 > t0): before a discrete event or an on_due at a later time, and
//     when run_until(t) moves the clock to t. It is never called with an empty interval, so the
//     intervals a model sees are contiguous and cover [0, now) once each (from the time it was
//     registered).
//   * Ties: at a given time every discrete event due at that time fires first (including events
//     those handlers schedule for the same time), then the on_due of a fluid model whose
//     next_event_time is that time. An event scheduled by on_due for the current time fires
//     after it. Between fluid models due at the same time, the first registered goes first.
//   * next_event_time(now) may return now itself (the model is due now, after the discrete
//     events at now); a time before now is a bug in the model and makes the kernel throw
//     std::logic_error. After on_due the model must report a later time (or Time::max()),
//     otherwise the kernel calls on_due again at the same time.
//   * With no fluid model registered the event loop pays one predictable branch per event.
#pragma once
#include <cstdint>
#include <vector>

#include "mltwin/core/time.hpp"

namespace mltwin::core {

class Simulator;

/// Receives events. Implemented by model objects, which outlive every event they schedule.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  /// Called when an event scheduled with this handler fires; `payload` is the value given to
  /// Simulator::schedule. sim.now() is the event's time.
  virtual void on_event(Simulator& sim, std::uint64_t payload) = 0;
};

/// Handle to a scheduled event: valid until the event fires or is cancelled; a stale handle is
/// detected (by a generation count) and cancel/reschedule on it return false.
struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  constexpr bool valid() const { return slot != UINT32_MAX; }
  friend constexpr bool operator==(EventId, EventId) = default;
};

/// A continuous model advanced between discrete events (e.g. max-min fair bandwidth sharing).
class FluidModel {
 public:
  virtual ~FluidModel() = default;
  /// The earliest time >= now at which this model needs the kernel's attention (a flow ends),
  /// or Time::max() if none. Queried before every step of the event loop (so after every
  /// event); returning `now` means "due now, after the discrete events at now".
  virtual Time next_event_time(Time now) = 0;
  /// Advance the model's continuous state from `from` to `to` (to >= from).
  virtual void advance(Time from, Time to) = 0;
  /// Called when the clock reaches the time this model returned from next_event_time.
  virtual void on_due(Simulator& sim) = 0;
};

/// Counters a run reports (progress bars, benchmarks).
struct KernelStats {
  std::uint64_t events_fired = 0;      ///< discrete events whose handler was called
  std::uint64_t events_scheduled = 0;  ///< schedule() calls
  std::uint64_t events_cancelled = 0;  ///< successful cancel() calls
  std::uint64_t events_rescheduled = 0;
  std::uint64_t fluid_due = 0;         ///< FluidModel::on_due calls
};

class Simulator {
 public:
  Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }

  /// Schedule `h->on_event(*this, payload)` at absolute time `t`. Throws std::invalid_argument
  /// if t < now() (the past) or h is null.
  EventId schedule(Time t, EventHandler* h, std::uint64_t payload = 0);
  /// Same, `d` after now(); d must be >= 0.
  EventId schedule_in(Duration d, EventHandler* h, std::uint64_t payload = 0) {
    return schedule(now_ + d, h, payload);
  }
  /// Remove a pending event. Returns false (and does nothing) if it already fired or was
  /// cancelled.
  bool cancel(EventId id);
  /// Move a pending event to time t (>= now()); it takes a new insertion sequence. Returns false
  /// if the event is no longer pending. O(log n).
  bool reschedule(EventId id, Time t);
  /// True while the event is pending.
  bool pending(EventId id) const;
  /// Scheduled time of a pending event; Time::max() for a stale id.
  Time time_of(EventId id) const;

  /// Register a fluid model (not owned; must outlive the simulator's runs).
  void add_fluid_model(FluidModel* m);

  /// Fire events until none remain or stop() is called. Returns the number of discrete events
  /// fired by this call (fluid on_due calls are counted in stats().fluid_due).
  std::uint64_t run();
  /// Fire events (and fluid completions) with time <= t, then set now() to t (if t > now(),
  /// advancing the fluid models to t) and return. Events at exactly t fire. If stop() is
  /// called, returns right after that event and leaves now() at its time. Returns the number
  /// of discrete events fired by this call.
  std::uint64_t run_until(Time t);
  /// Fire the single next event (or fluid completion). Returns false if nothing is pending.
  /// Ignores stop().
  bool step();
  /// Ask run()/run_until() to return after the current event. The request is cleared when the
  /// next run()/run_until() starts, and stays visible through stop_requested() until then.
  void stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

  /// Number of pending discrete events.
  std::size_t pending_count() const { return heap_.size() - (root_fired_ ? 1 : 0) + lane_live_; }
  /// Time of the next pending discrete event or fluid completion, Time::max() if none.
  Time next_time() const;
  const KernelStats& stats() const { return stats_; }

 private:
  friend struct SimulatorTestAccess;  // tests only: drives the sequence-number renumbering

  // A pooled event: whom to call and with what. Its (time, seq) key lives only in its heap
  // entry, so sifting reads only heap_ (and writes heap_pos of each entry it moves).
  struct Slot {
    EventHandler* handler;
    std::uint64_t payload;
    std::uint32_t heap_pos;    // index in heap_ while pending (kInLane: in the lane); next free slot while free
    std::uint32_t generation;  // bumped when the slot is freed, so old EventIds stop matching
    std::int64_t lane_t;       // the event's time while it is in the lane (to find its entry there)
  };
  // A heap entry is 16 bytes (four per cache line): the time in ns and one 64-bit word
  // `(seq << 32) | slot`. Comparing that word compares seq (unique among pending events), so
  // the slot index rides along for free. Sequence numbers are 32-bit; when they run out,
  // renumber_sequences() relabels the pending events 0..n-1 in order (see simulator.cpp).
  struct Entry {
    std::int64_t t;
    std::uint64_t key;
  };
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;
  static constexpr std::uint32_t kArity = 4;
  // The lane (see simulator.cpp): a sorted array of entries beside the heap. A pending slot's
  // heap_pos is its index in heap_, or kInLane when its entry is in the lane (which moves
  // entries without telling their slots; a cancel finds the entry by its time). Its capacity
  // and how far from its back an insertion may go: kLaneCapacity, kLaneScan in simulator.cpp.
  static constexpr std::uint32_t kInLane = UINT32_MAX - 1;

  // (t, key) as one unsigned 128-bit number (t >= 0 always: nothing is scheduled before
  // now() >= 0), so a comparison is a compare and a subtract-with-borrow, no branch.
  __extension__ using Rank = unsigned __int128;
  static Rank rank(const Entry& e) {
    return (Rank(static_cast<std::uint64_t>(e.t)) << 64) | e.key;
  }
  static bool earlier(const Entry& a, const Entry& b) { return rank(a) < rank(b); }
  static std::uint32_t slot_of(const Entry& e) { return static_cast<std::uint32_t>(e.key); }

  void fire_top();
  void fire_lane_front();
  // Fires the earliest pending event, from the lane or the heap (there is one; no fired root).
  void fire_next() {
    if (lane_first()) fire_lane_front();
    else fire_top();
  }
  void drop_fired_root();
  bool fluid_step(Time limit);
  void advance_fluid_to(Time t);
  void place(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    slots_[slot_of(e)].heap_pos = i;
  }
  bool lane_insert(const Entry& e);
  void lane_cancel(std::uint32_t slot);
  void lane_skip_dead();
  void insert(const Entry& e);
  // True if the next event to fire is the lane's front rather than the heap's root (the
  // caller has dropped a fired root).
  bool lane_first() const {
    return lane_live_ != 0 && (heap_.empty() || earlier(lane_[lane_head_], heap_.front()));
  }
  // Time of the earliest pending discrete event (the caller has dropped a fired root);
  // INT64_MAX if none.
  std::int64_t next_event_ns() const;
  void sift_up(std::uint32_t i, Entry e);
  void sift_down(std::uint32_t i, Entry e);
  void heap_remove(std::uint32_t i);
  std::uint64_t next_key(std::uint32_t slot);
  void renumber_sequences();
  std::uint32_t alloc_slot();
  void free_slot(std::uint32_t s);
  bool live(EventId id) const {
    return id.slot < slots_.size() && slots_[id.slot].generation == id.generation;
  }
  Time fluid_next_time(FluidModel** which) const;
  std::uint64_t loop(Time limit);

  Time now_ = Time::zero();
  std::uint64_t next_seq_ = 0;  // <= 2^32; reaching 2^32 triggers renumber_sequences()
  bool stop_requested_ = false;
  // Set while a handler runs (and after one throws): heap_[0] still holds the entry of the
  // event being fired, its slot already freed. The handler's first schedule() overwrites it
  // and sifts down once, instead of a pop (sift down) plus a push (sift up); see fire_top().
  bool root_fired_ = false;
  std::uint32_t free_head_ = kNoSlot;  // intrusive free list threaded through Slot::heap_pos
  std::vector<Slot> slots_;
  std::vector<Entry> heap_;
  // The lane: entries sorted by (t, seq) in lane_[lane_head_, lane_tail_) of an array of
  // kLaneCapacity (allocated on first use; the entries move back to its start when they reach
  // its end), lane_live_ of which are pending (a cancelled entry stays, as a tombstone whose
  // slot is kNoSlot, until it reaches the front).
  std::vector<Entry> lane_;
  std::uint32_t lane_head_ = 0;
  std::uint32_t lane_tail_ = 0;
  std::uint32_t lane_live_ = 0;
  std::vector<FluidModel*> fluid_;
  KernelStats stats_;
};

}  // namespace mltwin::core
