// Volcano v1.12.1 pkg/scheduler/plugins/defaults_test.go TestApplyPluginConfDefaults, ported:
// a scheduler configuration's plugin switches left unset read as enabled, and false stays false
// (plugins/defaults.go ApplyPluginConfDefaults; mltwin: PluginOption::is_enabled). Upstream
// checks every switch but the hierarchy one, which mltwin, like drf, reads as off unless set.
#include "conformance.hpp"

namespace {
using namespace mltwin::conformance;

std::vector<Ext> switches_upstream_checks() {
  std::vector<Ext> out;
  for (int i = 0; i < static_cast<int>(Ext::kCount); ++i)
    if (static_cast<Ext>(i) != Ext::Hierarchy) out.push_back(static_cast<Ext>(i));
  return out;
}
}  // namespace

UPSTREAM_CASE("plugins/defaults_test.go", "TestApplyPluginConfDefaults", "test with nil fields - should set all to true") {
  const PluginOption p{"test", {}, {}};
  for (Ext e : switches_upstream_checks()) {
    INFO(ext_key(e));
    CHECK(p.is_enabled(e));
  }
}

UPSTREAM_CASE("plugins/defaults_test.go", "TestApplyPluginConfDefaults", "test with false fields - should keep false values") {
  PluginOption p{"test", {}, {}};
  for (auto& v : p.enabled) v = false;
  for (Ext e : switches_upstream_checks()) {
    INFO(ext_key(e));
    CHECK_FALSE(p.is_enabled(e));
  }
}
