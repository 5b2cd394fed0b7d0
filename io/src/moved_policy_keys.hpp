// io/src/moved_policy_keys.hpp — where the serving policy settings of schema 2's first releases
// (mltwin 0.2) went in mltwin 0.3: one table that both the loader's error ("moved: ...") and
// `mltwin migrate` read, so the two cannot disagree.
#pragma once

#include <string>

namespace mltwin::io::detail {

struct MovedPolicyKey {
  const char* parent;  ///< the object that held the key: "endpoint", "server"
  const char* key;     ///< "routing"
  const char* site;    ///< its place now: /policies/<site>
  const char* policy;  ///< the policy it configures there
  /// How its value becomes the policy's arguments.
  enum class Arguments {
    ObjectKeys,      ///< the object's keys (its "source" stays the choice's source)
    TargetTracking,  ///< the keys of its "target_tracking" object (likewise)
    Value,           ///< the value itself, as the argument named `key`
  } arguments;
  const char* what;  ///< what the loader says, before the example
};

/// In the order of the policies block (docs/inference.md): migrate writes them so.
inline constexpr MovedPolicyKey kMovedPolicyKeys[] = {
    {"server", "idle_from_batch_end", "autoscaling", "djl-wlm", MovedPolicyKey::Arguments::Value,
     "it is an argument of the worker autoscaling policy, under /policies/autoscaling"},
    {"endpoint", "routing", "routing", "cache-aware", MovedPolicyKey::Arguments::ObjectKeys,
     "the router is chosen under /policies/routing"},
    {"endpoint", "autoscaling", "instance_scaling", "target-tracking", MovedPolicyKey::Arguments::TargetTracking,
     "instance scaling is chosen under /policies/instance_scaling"},
};

/// How the arguments come from the old value, in words ("its keys as arguments").
inline std::string arguments_text(const MovedPolicyKey& m) {
  switch (m.arguments) {
    case MovedPolicyKey::Arguments::ObjectKeys: return "its keys as arguments";
    case MovedPolicyKey::Arguments::TargetTracking: return "the keys of its target_tracking as arguments";
    case MovedPolicyKey::Arguments::Value: return std::string("its value as argument ") + m.key;
  }
  return "";
}

}  // namespace mltwin::io::detail
