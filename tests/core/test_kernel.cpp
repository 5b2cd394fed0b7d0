// Tests of the discrete-event kernel (mltwin/core/simulator.hpp).
//
// Every expected value below is written by hand from the documented semantics, or produced by
// an independent reference (a std::multimap keyed by (time, seq)), never copied from a run of
// the kernel.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/core/simulator.hpp"

namespace mltwin::core {
// Declared a friend in simulator.hpp: lets the stress test push the 32-bit sequence counter
// to the edge, so the renumbering path runs without 4 billion schedules.
struct SimulatorTestAccess {
  static std::uint64_t next_seq(const Simulator& s) { return s.next_seq_; }
  static void jump_next_seq(Simulator& s, std::uint64_t to) {
    REQUIRE(to >= s.next_seq_);  // must stay above every pending event's seq
    s.next_seq_ = to;
  }
};
}  // namespace mltwin::core

using mltwin::core::Duration;
using mltwin::core::EventHandler;
using mltwin::core::EventId;
using mltwin::core::FluidModel;
using mltwin::core::Simulator;
using mltwin::core::SimulatorTestAccess;
using mltwin::core::Time;

namespace {

Time ns(std::int64_t v) { return Time::from_ns(v); }

struct Fired {
  std::int64_t t;
  std::uint64_t payload;
  friend bool operator==(const Fired&, const Fired&) = default;
};

// Records (now, payload) of every event it receives.
class Recorder : public EventHandler {
 public:
  std::vector<Fired> log;
  void on_event(Simulator& sim, std::uint64_t payload) override {
    log.push_back({sim.now().ns(), payload});
  }
  std::vector<std::uint64_t> payloads() const {
    std::vector<std::uint64_t> p;
    for (const auto& f : log) p.push_back(f.payload);
    return p;
  }
};

using P = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("events fire in time order; equal times in insertion order") {
  Simulator sim;
  Recorder r;
  sim.schedule(ns(30), &r, 0);
  sim.schedule(ns(10), &r, 1);
  for (std::uint64_t p = 2; p < 12; ++p) sim.schedule(ns(20), &r, p);  // ten at t=20
  sim.schedule(ns(10), &r, 12);
  sim.schedule(ns(0), &r, 13);
  CHECK(sim.pending_count() == 14);
  CHECK(sim.next_time() == ns(0));
  CHECK(sim.run() == 14);
  CHECK(r.payloads() == P{13, 1, 12, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0});
  CHECK(sim.now() == ns(30));
  CHECK(sim.pending_count() == 0);
  CHECK(sim.next_time() == Time::max());
  CHECK(sim.stats().events_fired == 14);
  CHECK(sim.stats().events_scheduled == 14);
}

TEST_CASE("an event scheduled at now() by a handler fires after those already pending at now()") {
  struct Chain : EventHandler {
    std::vector<std::uint64_t> seen;
    void on_event(Simulator& sim, std::uint64_t p) override {
      seen.push_back(p);
      if (p == 1) sim.schedule(sim.now(), this, 100);      // same time, after 2 and 3
      if (p == 100) sim.schedule_in(Duration::ns(0), this, 101);
    }
  } c;
  Simulator sim;
  sim.schedule(ns(5), &c, 1);
  sim.schedule(ns(5), &c, 2);
  sim.schedule(ns(5), &c, 3);
  sim.schedule(ns(6), &c, 4);
  sim.run();
  CHECK(c.seen == P{1, 2, 3, 100, 101, 4});
}

TEST_CASE("cancel: pending, twice, after firing, and with a reused slot") {
  Simulator sim;
  Recorder r;
  const EventId a = sim.schedule(ns(10), &r, 1);
  const EventId b = sim.schedule(ns(20), &r, 2);
  const EventId c = sim.schedule(ns(30), &r, 3);
  CHECK(sim.pending(b));
  CHECK(sim.time_of(b) == ns(20));
  CHECK(sim.cancel(b));
  CHECK_FALSE(sim.pending(b));
  CHECK_FALSE(sim.cancel(b));  // already cancelled
  CHECK(sim.pending_count() == 2);
  CHECK_FALSE(sim.cancel(EventId{}));  // the default id is never valid
  CHECK_FALSE(EventId{}.valid());

  CHECK(sim.step());  // fires a
  CHECK(r.payloads() == P{1});
  CHECK_FALSE(sim.pending(a));
  CHECK_FALSE(sim.cancel(a));  // already fired
  CHECK(sim.time_of(a) == Time::max());

  // The next schedule reuses a freed slot; the old ids that named that slot must stay dead.
  const EventId d = sim.schedule(ns(40), &r, 4);
  CHECK((d.slot == a.slot || d.slot == b.slot));
  CHECK(d != a);
  CHECK(d != b);
  CHECK_FALSE(sim.cancel(a));
  CHECK_FALSE(sim.cancel(b));
  CHECK_FALSE(sim.reschedule(a, ns(50)));
  CHECK_FALSE(sim.reschedule(b, ns(50)));
  CHECK(sim.pending(d));
  CHECK(sim.time_of(d) == ns(40));

  CHECK(sim.cancel(c));
  sim.run();
  CHECK(r.payloads() == P{1, 4});
  CHECK(sim.stats().events_cancelled == 2);
  CHECK_FALSE(sim.cancel(d));
}

TEST_CASE("cancel from inside a handler, including the handler's own (already fired) event") {
  struct Canceller : EventHandler {
    EventId self, victim;
    bool self_cancel = true, victim_cancel = false;
    std::vector<std::uint64_t> seen;
    void on_event(Simulator& sim, std::uint64_t p) override {
      seen.push_back(p);
      if (p == 1) {
        self_cancel = sim.cancel(self);  // the firing event is no longer pending
        victim_cancel = sim.cancel(victim);
      }
    }
  } h;
  Simulator sim;
  h.self = sim.schedule(ns(1), &h, 1);
  h.victim = sim.schedule(ns(1), &h, 2);
  sim.schedule(ns(2), &h, 3);
  sim.run();
  CHECK_FALSE(h.self_cancel);
  CHECK(h.victim_cancel);
  CHECK(h.seen == P{1, 3});
}

TEST_CASE("inside a handler: pending_count(), next_time() and pending() see the fired event as gone") {
  struct Probe : EventHandler {
    std::vector<std::size_t> counts;
    std::vector<std::int64_t> nexts;
    EventId self;
    bool self_pending = true;
    void on_event(Simulator& sim, std::uint64_t p) override {
      if (p != 1) return;
      self_pending = sim.pending(self);
      counts.push_back(sim.pending_count());
      nexts.push_back(sim.next_time().ns());
      sim.schedule(Time::from_ns(15), this, 4);
      counts.push_back(sim.pending_count());
      nexts.push_back(sim.next_time().ns());
    }
  } h;
  Simulator sim;
  h.self = sim.schedule(ns(10), &h, 1);
  sim.schedule(ns(20), &h, 2);
  sim.schedule(ns(30), &h, 3);
  CHECK(sim.step());
  CHECK_FALSE(h.self_pending);
  CHECK(h.counts == std::vector<std::size_t>{2, 3});
  CHECK(h.nexts == std::vector<std::int64_t>{20, 15});
  CHECK(sim.pending_count() == 3);
  CHECK(sim.next_time() == ns(15));
}

TEST_CASE("a handler that throws leaves the kernel consistent") {
  struct Thrower : EventHandler {
    std::vector<std::uint64_t> seen;
    void on_event(Simulator& sim, std::uint64_t p) override {
      seen.push_back(p);
      if (p == 2) throw std::runtime_error("model bug");
      if (p == 3) {
        sim.schedule(sim.now(), this, 30);  // scheduled, then the handler throws
        throw std::runtime_error("model bug after scheduling");
      }
    }
  } h;
  Simulator sim;
  for (std::uint64_t p = 1; p <= 5; ++p) sim.schedule(ns(static_cast<std::int64_t>(p)), &h, p);
  CHECK_THROWS_AS(sim.run(), std::runtime_error);
  CHECK(sim.now() == ns(2));
  CHECK(sim.pending_count() == 3);  // 2 counts as fired
  CHECK_THROWS_AS(sim.run(), std::runtime_error);
  CHECK(sim.pending_count() == 3);  // 4, 5 and the 30 scheduled by 3
  CHECK(sim.run() == 3);
  CHECK(h.seen == P{1, 2, 3, 30, 4, 5});
  CHECK(sim.stats().events_fired == 6);
}

TEST_CASE("reschedule earlier and later; a rescheduled event goes after those already at its new time") {
  Simulator sim;
  Recorder r;
  const EventId a = sim.schedule(ns(10), &r, 1);
  sim.schedule(ns(20), &r, 2);
  sim.schedule(ns(20), &r, 3);
  const EventId x = sim.schedule(ns(50), &r, 4);
  const EventId y = sim.schedule(ns(20), &r, 5);

  CHECK(sim.reschedule(a, ns(20)));  // later: to a time that already has 2, 3, 5
  CHECK(sim.time_of(a) == ns(20));
  CHECK(sim.reschedule(x, ns(5)));   // earlier: now first
  CHECK(sim.reschedule(y, ns(20)));  // same time: takes a new sequence, so moves behind a
  sim.schedule(ns(20), &r, 6);       // scheduled after both reschedules: last at t=20
  CHECK(sim.stats().events_rescheduled == 3);
  sim.run();
  CHECK(r.log == std::vector<Fired>{{5, 4}, {20, 2}, {20, 3}, {20, 1}, {20, 5}, {20, 6}});
}

TEST_CASE("reschedule: into the past throws, a stale id returns false") {
  Simulator sim;
  Recorder r;
  const EventId a = sim.schedule(ns(10), &r, 1);
  const EventId b = sim.schedule(ns(30), &r, 2);
  sim.run_until(ns(20));
  CHECK_FALSE(sim.reschedule(a, ns(25)));  // fired
  CHECK_THROWS_AS(sim.reschedule(b, ns(19)), std::invalid_argument);
  CHECK(sim.time_of(b) == ns(30));  // unchanged by the failed call
  CHECK(sim.reschedule(b, ns(20)));  // == now() is allowed
  CHECK(sim.step());
  CHECK(r.log == std::vector<Fired>{{10, 1}, {20, 2}});
}

TEST_CASE("run_until: events at exactly t fire, now() == t afterwards") {
  Simulator sim;
  Recorder r;
  sim.schedule(ns(10), &r, 1);
  sim.schedule(ns(20), &r, 2);
  sim.schedule(ns(20), &r, 3);
  sim.schedule(ns(21), &r, 4);
  CHECK(sim.run_until(ns(20)) == 3);
  CHECK(r.payloads() == P{1, 2, 3});
  CHECK(sim.now() == ns(20));
  CHECK(sim.pending_count() == 1);

  CHECK(sim.run_until(ns(20)) == 0);  // again at the same time: nothing, clock unchanged
  CHECK(sim.now() == ns(20));
  CHECK(sim.run_until(ns(15)) == 0);  // earlier than now: clock does not go back
  CHECK(sim.now() == ns(20));

  Simulator empty;
  CHECK(empty.run_until(ns(1'000)) == 0);
  CHECK(empty.now() == ns(1'000));
  CHECK_THROWS_AS(empty.schedule(ns(999), &r, 0), std::invalid_argument);

  CHECK(sim.run_until(ns(100)) == 1);
  CHECK(sim.now() == ns(100));
  CHECK(r.log.back() == Fired{21, 4});
}

TEST_CASE("step fires exactly one event") {
  Simulator sim;
  Recorder r;
  CHECK_FALSE(sim.step());
  sim.schedule(ns(7), &r, 1);
  sim.schedule(ns(3), &r, 2);
  CHECK(sim.step());
  CHECK(sim.now() == ns(3));
  CHECK(r.payloads() == P{2});
  CHECK(sim.step());
  CHECK(sim.now() == ns(7));
  CHECK_FALSE(sim.step());
  CHECK(sim.now() == ns(7));
}

TEST_CASE("stop() from inside a handler") {
  struct Stopper : EventHandler {
    std::vector<std::uint64_t> seen;
    void on_event(Simulator& sim, std::uint64_t p) override {
      seen.push_back(p);
      if (p == 2) sim.stop();
    }
  } h;
  Simulator sim;
  for (std::uint64_t p = 1; p <= 4; ++p) sim.schedule(ns(static_cast<std::int64_t>(10 * p)), &h, p);
  CHECK(sim.run() == 2);
  CHECK(sim.stop_requested());
  CHECK(sim.now() == ns(20));
  CHECK(sim.pending_count() == 2);
  CHECK(sim.run() == 2);  // a new run clears the request
  CHECK_FALSE(sim.stop_requested());
  CHECK(h.seen == P{1, 2, 3, 4});

  // run_until stopped early leaves the clock at the stopping event, not at t.
  Simulator s2;
  Stopper h2;
  s2.schedule(ns(10), &h2, 2);
  s2.schedule(ns(15), &h2, 5);
  CHECK(s2.run_until(ns(100)) == 1);
  CHECK(s2.now() == ns(10));
  CHECK(s2.run_until(ns(100)) == 1);
  CHECK(s2.now() == ns(100));
}

TEST_CASE("schedule rejects the past and null handlers with std::invalid_argument") {
  Simulator sim;
  Recorder r;
  sim.schedule(ns(100), &r, 0);
  sim.run();
  CHECK_THROWS_WITH_AS(sim.schedule(ns(99), &r, 0), doctest::Contains("in the past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sim.schedule(ns(99), &r, 0), doctest::Contains("99 ns"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sim.schedule(ns(200), nullptr, 0), doctest::Contains("null"),
                       std::invalid_argument);
  CHECK_THROWS_AS(sim.schedule_in(Duration::ns(-1), &r, 0), std::invalid_argument);
  CHECK(sim.pending_count() == 0);
  CHECK(sim.stats().events_scheduled == 1);
  sim.schedule(ns(100), &r, 1);  // == now() is fine
  sim.schedule_in(Duration::us(1), &r, 2);
  CHECK(sim.time_of(sim.schedule_in(Duration::ns(5), &r, 3)) == ns(105));
  sim.run();
  CHECK(r.log == std::vector<Fired>{{100, 0}, {100, 1}, {105, 3}, {1'100, 2}});
}

// ---- fluid-model hook -----------------------------------------------------------------------

namespace {

// A fake fluid model: logs every call into a shared log, and is due at the times in `dues`
// (consumed front to back by on_due).
class FakeFluid : public FluidModel {
 public:
  FakeFluid(std::string name, std::vector<std::string>& log, std::vector<std::int64_t> dues)
      : name_(std::move(name)), log_(log), dues_(std::move(dues)) {}
  Time next_event_time(Time) override {
    return next_ < dues_.size() ? Time::from_ns(dues_[next_]) : Time::max();
  }
  void advance(Time from, Time to) override {
    log_.push_back(name_ + ".advance " + std::to_string(from.ns()) + "-" + std::to_string(to.ns()));
  }
  void on_due(Simulator& sim) override {
    log_.push_back(name_ + ".due @" + std::to_string(sim.now().ns()));
    ++next_;
    if (on_due_hook) on_due_hook(sim);
  }
  void (*on_due_hook)(Simulator&) = nullptr;

 private:
  std::string name_;
  std::vector<std::string>& log_;
  std::vector<std::int64_t> dues_;
  std::size_t next_ = 0;
};

class LogHandler : public EventHandler {
 public:
  explicit LogHandler(std::vector<std::string>& log) : log_(log) {}
  void on_event(Simulator& sim, std::uint64_t p) override {
    log_.push_back("ev" + std::to_string(p) + " @" + std::to_string(sim.now().ns()));
    if (p == 2) sim.schedule(sim.now(), this, 3);  // same time: still before the fluid due
  }

 private:
  std::vector<std::string>& log_;
};

LogHandler* g_handler = nullptr;

}  // namespace

TEST_CASE("fluid hook: advance intervals and ordering against discrete events") {
  std::vector<std::string> log;
  Simulator sim;
  LogHandler h(log);
  FakeFluid f("f", log, {20, 30});
  sim.add_fluid_model(&f);
  sim.schedule(ns(10), &h, 1);
  sim.schedule(ns(30), &h, 2);  // ties with f's second due; its handler adds ev3 at 30
  // on_due at 30 schedules ev4 at 30: it fires after the on_due.
  g_handler = &h;
  f.on_due_hook = [](Simulator& s) {
    if (s.now() == Time::from_ns(30)) s.schedule(s.now(), g_handler, 4);
  };
  CHECK(sim.next_time() == ns(10));
  CHECK(sim.run() == 4);
  CHECK(log == std::vector<std::string>{
                   "f.advance 0-10", "ev1 @10",
                   "f.advance 10-20", "f.due @20",
                   "f.advance 20-30", "ev2 @30", "ev3 @30", "f.due @30", "ev4 @30"});
  CHECK(sim.stats().fluid_due == 2);
  CHECK(sim.stats().events_fired == 4);
  CHECK(sim.now() == ns(30));

  log.clear();
  CHECK(sim.run_until(ns(50)) == 0);  // moving the clock advances the model too
  CHECK(log == std::vector<std::string>{"f.advance 30-50"});
  CHECK(sim.now() == ns(50));
  log.clear();
  CHECK(sim.run_until(ns(50)) == 0);  // no movement, no empty interval
  CHECK(log.empty());
}

TEST_CASE("fluid hook: two models, run_until limits, step and next_time") {
  std::vector<std::string> log;
  Simulator sim;
  LogHandler h(log);
  FakeFluid a("a", log, {15, 40});
  FakeFluid b("b", log, {15, 25});
  sim.add_fluid_model(&a);
  sim.add_fluid_model(&b);
  sim.schedule(ns(5), &h, 1);
  CHECK(sim.next_time() == ns(5));

  CHECK(sim.run_until(ns(15)) == 1);  // a and b both due at 15 (the limit): a first
  CHECK(log == std::vector<std::string>{"a.advance 0-5", "b.advance 0-5", "ev1 @5",
                                        "a.advance 5-15", "b.advance 5-15", "a.due @15",
                                        "b.due @15"});
  CHECK(sim.next_time() == ns(25));
  log.clear();

  CHECK(sim.run_until(ns(24)) == 0);  // b due at 25 lies beyond the limit
  CHECK(log == std::vector<std::string>{"a.advance 15-24", "b.advance 15-24"});
  log.clear();

  CHECK(sim.step());  // the next thing is b's completion at 25
  CHECK(log == std::vector<std::string>{"a.advance 24-25", "b.advance 24-25", "b.due @25"});
  CHECK(sim.now() == ns(25));
  CHECK(sim.stats().fluid_due == 3);
  log.clear();

  CHECK(sim.step());
  CHECK(log == std::vector<std::string>{"a.advance 25-40", "b.advance 25-40", "a.due @40"});
  CHECK_FALSE(sim.step());  // nothing left anywhere
  CHECK(sim.next_time() == Time::max());
}

TEST_CASE("fluid hook: a model reporting a time in the past is an error") {
  struct Broken : FluidModel {
    Time next_event_time(Time now) override { return now - Duration::ns(1); }
    void advance(Time, Time) override {}
    void on_due(Simulator&) override {}
  } m;
  Simulator sim;
  Recorder r;
  sim.schedule(ns(10), &r, 1);
  CHECK(sim.run_until(ns(5)) == 0);  // no fluid model yet: fine
  sim.add_fluid_model(&m);
  CHECK_THROWS_AS(sim.run(), std::logic_error);
  CHECK_THROWS_AS(sim.add_fluid_model(nullptr), std::invalid_argument);
}

// ---- stress test against a reference ---------------------------------------------------------

namespace {

// The reference: a multimap keyed by (time, seq) with its own sequence counter; a reschedule
// is an erase plus an insert with a new seq. Obviously correct, if slower.
struct Reference {
  std::multimap<std::pair<std::int64_t, std::uint64_t>, std::uint64_t> q;  // -> payload
  std::map<std::uint64_t, std::pair<std::int64_t, std::uint64_t>> where;  // payload -> key
  std::uint64_t seq = 0;
  void schedule(std::int64_t t, std::uint64_t p) {
    q.emplace(std::make_pair(t, seq), p);
    where[p] = {t, seq};
    ++seq;
  }
  bool cancel(std::uint64_t p) {
    auto it = where.find(p);
    if (it == where.end()) return false;
    q.erase(it->second);
    where.erase(it);
    return true;
  }
  bool reschedule(std::uint64_t p, std::int64_t t) {
    if (!cancel(p)) return false;
    schedule(t, p);
    return true;
  }
  std::uint64_t pop() {
    auto it = q.begin();
    const std::uint64_t p = it->second;
    where.erase(p);
    q.erase(it);
    return p;
  }
};

// `think_times`: most new events come a roughly fixed delay ahead (with jitter), in roughly the
// order of their times, as closed-loop users' steps do — the pattern that fills the kernel's
// lane (simulator.cpp) — the rest a little ahead, into the heap.
void stress(std::uint64_t seed, bool exercise_seq_wrap, bool think_times = false) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::uint64_t n) { return rng() % n; };  // bias is irrelevant here
  Simulator sim;
  Recorder r;
  Reference ref;
  std::vector<EventId> ids;  // ids[payload]; includes fired and cancelled ones
  std::vector<std::uint64_t> expected;
  std::uint64_t wraps = 0;
  std::uint64_t mismatches = 0;  // counted, not asserted one by one: doctest asserts are slow

  for (int op = 0; op < 200'000; ++op) {
    if (exercise_seq_wrap && SimulatorTestAccess::next_seq(sim) < (1ULL << 32) - 1'000) {
      SimulatorTestAccess::jump_next_seq(sim, (1ULL << 32) - 1 - uniform(300));
      ++wraps;
    }
    const std::int64_t now = sim.now().ns();
    // Pending sets of ~0..500 events; a narrow time range makes equal times common.
    const std::uint64_t k = uniform(100);
    if (k < 40 || ref.q.empty()) {
      const std::int64_t t =
          now + static_cast<std::int64_t>(think_times && uniform(3) != 0 ? 1'000 + uniform(40) : uniform(50));
      const std::uint64_t p = ids.size();
      ids.push_back(sim.schedule(Time::from_ns(t), &r, p));
      ref.schedule(t, p);
    } else if (k < 55) {
      const std::uint64_t p = uniform(ids.size());  // often stale
      if (sim.cancel(ids[p]) != ref.cancel(p)) ++mismatches;
    } else if (k < 75) {
      const std::uint64_t p = uniform(ids.size());
      const std::int64_t t = now + static_cast<std::int64_t>(uniform(50));
      if (sim.reschedule(ids[p], Time::from_ns(t)) != ref.reschedule(p, t)) ++mismatches;
    } else if (k < 97) {
      expected.push_back(ref.pop());
      if (!sim.step()) ++mismatches;
    } else {
      // run_until a time a little ahead: fire everything up to it in the reference too.
      const std::int64_t t = now + static_cast<std::int64_t>(uniform(5));
      std::uint64_t n = 0;
      while (!ref.q.empty() && ref.q.begin()->first.first <= t) {
        expected.push_back(ref.pop());
        ++n;
      }
      if (sim.run_until(Time::from_ns(t)) != n || sim.now().ns() != t) ++mismatches;
    }
    if (sim.pending_count() != ref.q.size()) ++mismatches;
    if (op % 2'000 == 0) {  // spot-check pending()/time_of() of every id
      for (std::uint64_t p = 0; p < ids.size(); ++p) {
        auto it = ref.where.find(p);
        if (sim.pending(ids[p]) != (it != ref.where.end())) ++mismatches;
        if (it != ref.where.end() && sim.time_of(ids[p]).ns() != it->second.first) ++mismatches;
      }
    }
  }
  CHECK(mismatches == 0);
  while (!ref.q.empty()) expected.push_back(ref.pop());
  sim.run();
  CHECK(r.payloads() == expected);
  CHECK(expected.size() > 50'000);
  if (exercise_seq_wrap) CHECK(wraps > 100);
}

}  // namespace

TEST_CASE("sequence-number exhaustion: renumbering keeps the order, from schedule and reschedule") {
  Simulator sim;
  Recorder r;
  // Sequence numbers are 32-bit; jump to the point where the next one must renumber.
  SimulatorTestAccess::jump_next_seq(sim, 1ULL << 32);
  sim.schedule(ns(10), &r, 1);  // renumbers an empty set, then takes seq 0
  sim.schedule(ns(20), &r, 2);
  sim.schedule(ns(10), &r, 3);
  const EventId a = sim.schedule(ns(5), &r, 4);
  SimulatorTestAccess::jump_next_seq(sim, 1ULL << 32);
  sim.schedule(ns(10), &r, 5);  // renumbers 1, 2, 3, 4; must still go after 1 and 3
  CHECK(SimulatorTestAccess::next_seq(sim) == 5);
  SimulatorTestAccess::jump_next_seq(sim, 1ULL << 32);
  CHECK(sim.reschedule(a, ns(10)));  // renumbers inside reschedule
  sim.run();
  CHECK(r.payloads() == P{1, 3, 5, 4, 2});

  // Reschedule the root to its own time, with children at that time, when the renumbering
  // happens inside the call: its old seq (near 2^32) is larger than its new one (3), yet it
  // must still move behind everything already at t=10.
  Simulator s2;
  Recorder r2;
  SimulatorTestAccess::jump_next_seq(s2, (1ULL << 32) - 10);
  const EventId root = s2.schedule(ns(10), &r2, 1);
  s2.schedule(ns(10), &r2, 2);
  s2.schedule(ns(10), &r2, 3);
  SimulatorTestAccess::jump_next_seq(s2, 1ULL << 32);
  CHECK(s2.reschedule(root, ns(10)));
  s2.run();
  CHECK(r2.payloads() == P{2, 3, 1});
}

TEST_CASE("stress: random schedule/cancel/reschedule/step mixes match a multimap reference") {
  SUBCASE("seed 1") { stress(1, false); }
  SUBCASE("seed 2") { stress(2, false); }
  SUBCASE("32-bit sequence numbers wrapping every few hundred schedules") { stress(3, true); }
  SUBCASE("think times: most events in the lane") { stress(4, false, true); }
  SUBCASE("think times, with sequence numbers wrapping") { stress(5, true, true); }
}

// ---- no allocation per event ----------------------------------------------------------------

// Counting replacements of the global operator new live in alloc_counter.cpp (their own
// translation unit, so GCC does not inline them into callers and misreport malloc/delete).
namespace mltwin_test {
extern bool g_count_allocs;
extern std::uint64_t g_allocs;
}  // namespace mltwin_test
using mltwin_test::g_allocs;
using mltwin_test::g_count_allocs;

TEST_CASE("no heap allocation per event once the pool has grown") {
  // Each event reschedules itself a pseudo-random delay ahead; cancels and re-schedules a
  // partner now and then. Pending count stays at the warm-up size.
  struct Churn : EventHandler {
    std::uint64_t x = 88172645463325252ULL;  // xorshift64 state
    std::vector<EventId> ids;
    std::uint64_t fired = 0;
    std::uint64_t next() {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    }
    void on_event(Simulator& sim, std::uint64_t p) override {
      ++fired;
      ids[p] = sim.schedule_in(Duration::ns(static_cast<std::int64_t>(next() % 1'000)), this, p);
      const std::uint64_t q = next() % ids.size();
      if (q != p && sim.cancel(ids[q]))
        ids[q] = sim.schedule_in(Duration::ns(static_cast<std::int64_t>(next() % 1'000)), this, q);
    }
  } h;
  Simulator sim;
  constexpr std::uint64_t kPending = 5'000;
  h.ids.resize(kPending);
  for (std::uint64_t p = 0; p < kPending; ++p) h.ids[p] = sim.schedule(ns(static_cast<std::int64_t>(p)), &h, p);
  sim.run_until(ns(10'000));  // warm-up
  g_allocs = 0;
  g_count_allocs = true;
  sim.run_until(ns(100'000));
  g_count_allocs = false;
  CHECK(h.fired > 500'000);
  CHECK(sim.pending_count() == kPending);
  CHECK(g_allocs == 0);
}

// core::Event (core/event.hpp): each kind of event calls its own member function with the
// payload as that function's argument, after the owner's "before" hook when one is named.
namespace {
enum class Colour : std::uint8_t { Red = 3, Blue = 7 };
struct Component {
  explicit Component(Simulator& s) : sim(s) {}
  Simulator& sim;
  std::vector<std::string> log;
  void before() { log.push_back("before@" + std::to_string(sim.now().ns())); }
  void ping() { log.push_back("ping@" + std::to_string(sim.now().ns())); }
  void pod(std::uint32_t id) { log.push_back("pod " + std::to_string(id)); }
  void colour(Colour c) { log.push_back("colour " + std::to_string(int(c))); }
  void pair(std::uint32_t a, std::uint32_t b) { log.push_back("pair " + std::to_string(a) + "," + std::to_string(b)); }
  mltwin::core::Event<&Component::ping> ping_event{this};
  mltwin::core::Event<&Component::pod, &Component::before> pod_event{this};
  mltwin::core::Event<&Component::colour> colour_event{this};
  mltwin::core::Event<&Component::pair> pair_event{this};
};
}  // namespace

TEST_CASE("core::Event calls the member function of its kind with the payload") {
  Simulator sim;
  Component c(sim);
  sim.schedule(ns(5), &c.pod_event, 4'000'000'000ULL);  // a full 32-bit id survives
  sim.schedule(ns(1), &c.ping_event, 99);                // the payload of a no-argument event is ignored
  sim.schedule(ns(2), &c.colour_event, std::uint64_t(Colour::Blue));
  sim.schedule(ns(3), &c.pair_event, decltype(c.pair_event)::payload(0xFFFFFFFFu, 17));
  sim.run();
  const std::vector<std::string> want = {"ping@1", "colour 7", "pair 4294967295,17", "before@5", "pod 4000000000"};
  CHECK(c.log == want);
}
