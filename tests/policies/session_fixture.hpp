// Shared by the plugin tests: a scheduler configuration of one tier, and a session opened on a
// World (policies/testing builders) for calling the session's combined answers directly.
#pragma once
#include <memory>
#include <random>
#include <string>
#include <vector>

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

}  // namespace mltwin::policy::testing
