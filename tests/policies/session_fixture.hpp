// Shared by the plugin tests: a scheduler configuration of one tier, and a session opened on a
// World (policies/testing builders) for calling the session's combined answers directly.
#pragma once
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"

namespace mltwin::policy::testing {

/// One tier holding `names`, each with `args` (none by default).
inline SchedulerConfig one_tier(const std::vector<std::string>& names, const Arguments& args = {}) {
  SchedulerConfig c;
  Tier t;
  for (const auto& n : names) t.plugins.push_back(PluginOption{n, {}, args});
  c.tiers.push_back(t);
  return c;
}

/// A session opened on `w` with `c`; closed when the fixture goes out of scope.
struct OpenSession {
  RecordingBackend be;
  std::mt19937_64 rng{7};
  SchedulerConfig cfg;
  std::unique_ptr<Session> s;
  OpenSession(World& w, SchedulerConfig c) : cfg(std::move(c)) {
    s = std::make_unique<Session>(w.state, be, cfg, rng, 1);
    s->open();
  }
  ~OpenSession() { s->close(); }
  Session* operator->() { return s.get(); }
};

/// One scheduler cycle, 1 s after the last.
inline void cycle(World& w, RecordingBackend& be, Scheduler& s) {
  be.world = &w;
  w.state.set_now(w.state.now() + 1'000'000'000);
  s.run_once(w.state, be);
}

/// Runs scheduler cycles (1 s apart) until nothing changes; returns the sessions opened.
inline int settle(World& w, RecordingBackend& be, Scheduler& s, int max_cycles = 20) {
  be.world = &w;
  int sessions = 0;
  for (int i = 0; i < max_cycles && s.needs_cycle(w.state); ++i) {
    w.state.set_now(w.state.now() + 1'000'000'000);
    sessions += s.run_once(w.state, be);
  }
  REQUIRE_FALSE(s.needs_cycle(w.state));
  return sessions;
}

}  // namespace mltwin::policy::testing
