// mltwin/core/event.hpp — a component's kinds of event as typed handlers.
//
// A component with several kinds of event (a pod is bound, a download completes) declares one
// core::Event per kind, naming the member function the event calls:
//
//   class PodLifecycle {
//     void pod_bound(policy::TaskId t);
//     core::Event<&PodLifecycle::pod_bound> pod_bound_event_{this};
//     ...
//     sim.schedule_in(latency, &pod_bound_event_, t);   // later: this->pod_bound(t)
//   };
//
// The handler object *is* the kind: nothing is packed into the payload to say which kind it is,
// and no switch decodes it, so an event of an unknown kind cannot exist. The payload is the
// member function's argument:
//   * `void f()`                 — the payload is unused (schedule with 0);
//   * `void f(Id)`               — Id integral or an enum: the payload converted to it;
//   * `void f(std::uint32_t, std::uint32_t)` — two 32-bit ids; schedule with
//     `Event<...>::payload(a, b)`.
// An optional second template argument names a member function called first on every event of
// this kind (e.g. to note the time of the component's last event):
//
//   core::Event<&PoissonSource::on_arrival, &PoissonSource::before> arrival_event_{this};
//
// Cost: one virtual call, as for any EventHandler; the member function is known at compile time.
// An Event refers to its owner: it is neither copied nor moved (declare it as a member).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "mltwin/core/simulator.hpp"

namespace mltwin::core {

namespace detail {
template <class Owner, auto Before>
inline void call_before(Owner* o) {
  // By the argument's type, not its value: comparing a member pointer with nullptr is not a
  // constant expression under -fsanitize=undefined (GCC 12).
  if constexpr (!std::is_same_v<decltype(Before), std::nullptr_t>) (o->*Before)();
}
template <class Arg>
constexpr bool payload_arg = std::is_integral_v<Arg> || std::is_enum_v<Arg>;
}  // namespace detail

template <auto Fn, auto Before = nullptr>
class Event;

/// An event calling `Owner::Fn()`.
template <class Owner, void (Owner::*Fn)(), auto Before>
class Event<Fn, Before> final : public EventHandler {
 public:
  explicit Event(Owner* owner) : owner_(owner) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void on_event(Simulator&, std::uint64_t) override {
    detail::call_before<Owner, Before>(owner_);
    (owner_->*Fn)();
  }

 private:
  Owner* owner_;
};

/// An event calling `Owner::Fn(Id(payload))`.
template <class Owner, class Arg, void (Owner::*Fn)(Arg), auto Before>
class Event<Fn, Before> final : public EventHandler {
  static_assert(detail::payload_arg<Arg>, "an event's argument is an integral id or an enum");

 public:
  explicit Event(Owner* owner) : owner_(owner) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void on_event(Simulator&, std::uint64_t payload) override {
    detail::call_before<Owner, Before>(owner_);
    (owner_->*Fn)(static_cast<Arg>(payload));
  }

 private:
  Owner* owner_;
};

/// An event calling `Owner::Fn(a, b)` with two 32-bit ids; schedule it with payload(a, b).
template <class Owner, void (Owner::*Fn)(std::uint32_t, std::uint32_t), auto Before>
class Event<Fn, Before> final : public EventHandler {
 public:
  explicit Event(Owner* owner) : owner_(owner) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  static constexpr std::uint64_t payload(std::uint32_t a, std::uint32_t b) { return (std::uint64_t(a) << 32) | b; }
  void on_event(Simulator&, std::uint64_t p) override {
    detail::call_before<Owner, Before>(owner_);
    (owner_->*Fn)(static_cast<std::uint32_t>(p >> 32), static_cast<std::uint32_t>(p));
  }

 private:
  Owner* owner_;
};

}  // namespace mltwin::core
