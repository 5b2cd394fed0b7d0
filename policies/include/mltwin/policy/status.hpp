// mltwin/policy/status.hpp — status codes with reasons and the deciding plugin, after the
// Kubernetes scheduler framework (framework/interface.go) as Volcano v1.12.1 uses them
// (pkg/scheduler/api/unschedule_info.go). Shown to users as "why is my job pending".
#pragma once

#include "mltwin/policy/export.hpp"
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace mltwin::policy {

enum class Code : unsigned char {
  Success,
  Unschedulable,                 ///< may fit later (resources free up)
  UnschedulableAndUnresolvable,  ///< will not fit without a change to the cluster or the job
  Error,
  Wait,
  Skip,
};
MLTWIN_POLICY_EXPORT const char* to_string(Code c);

struct MLTWIN_POLICY_EXPORT Status {
  Code code = Code::Success;
  std::string plugin;  ///< the plugin (or action) that decided
  std::string reason;  ///< e.g. "Insufficient aws.amazon.com/neuroncore"
  bool ok() const { return code == Code::Success; }
  static Status success() { return {}; }
  static Status unschedulable(std::string plugin, std::string reason) {
    return {Code::Unschedulable, std::move(plugin), std::move(reason)};
  }
  static Status unresolvable(std::string plugin, std::string reason) {
    return {Code::UnschedulableAndUnresolvable, std::move(plugin), std::move(reason)};
  }
};

/// A decision with its reason as views into strings that outlive the session (plugin-owned
/// text, string literals, or text kept with Session::keep). Cheap to record for thousands of
/// waiting jobs every cycle; the Scheduler copies it only when a job's reason changes.
struct MLTWIN_POLICY_EXPORT Verdict {
  Code code = Code::Success;
  std::string_view plugin;
  std::string_view reason;
  bool ok() const { return code == Code::Success; }
};

/// Per-task summary of why no node fit, the way Volcano prints it (api/unschedule_info.go
/// FitErrors.Error()): "0/32 nodes are unavailable: 2 node(s) were unschedulable, 30 Insufficient
/// aws.amazon.com/neuroncore." Reasons are counted; the "<count> <reason>" texts are sorted as
/// strings.
struct MLTWIN_POLICY_EXPORT FitErrors {
  int nodes = 0;                     ///< nodes considered
  std::map<std::string, int, std::less<>> count;  ///< reason -> number of nodes that failed with it
  void add(std::string_view reason, int n = 1) {
    if (auto it = count.find(reason); it != count.end()) it->second += n;
    else count.emplace(std::string(reason), n);
  }
  std::string to_string() const;
};

/// Volcano ValidateResult.
struct MLTWIN_POLICY_EXPORT ValidateResult {
  bool pass = true;
  std::string reason;
  std::string message;
};

}  // namespace mltwin::policy
