#include "mltwin/policy/resource.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "mltwin/policy/objects.hpp"
#include "mltwin/policy/status.hpp"

namespace mltwin::policy {

namespace {
std::string num(double x) {
  if (x == kInf) return "unlimited";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}
}  // namespace

std::string Resource::to_string() const {
  const std::string mem = v[1] == kInf ? num(v[1]) : num(v[1] / (1024.0 * 1024 * 1024)) + "Gi";
  return "cpu " + num(v[0] / 1000.0) + ", memory " + mem + ", neuroncore " + num(v[2] / 1000.0) + ", efa " +
         num(v[3] / 1000.0);
}

std::optional<ResourceNameMapping> map_resource_name(std::string_view n, double cores_per_device) {
  if (n == "cpu") return ResourceNameMapping{Dim::Cpu, 1000.0};
  if (n == "memory") return ResourceNameMapping{Dim::Memory, 1.0};
  if (n == "aws.amazon.com/neuroncore") return ResourceNameMapping{Dim::NeuronCore, 1000.0};
  if (n == "aws.amazon.com/neuron" || n == "aws.amazon.com/neurondevice")
    return ResourceNameMapping{Dim::NeuronCore, 1000.0 * cores_per_device};
  if (n == "vpc.amazonaws.com/efa") return ResourceNameMapping{Dim::Efa, 1000.0};
  return std::nullopt;
}

const char* to_string(TaskStatus s) {
  static const char* names[] = {"Pending", "Allocated", "Pipelined", "Binding", "Bound",
                                "Running", "Releasing", "Succeeded", "Failed",  "Unknown"};
  return names[static_cast<int>(s)];
}

const char* to_string(PodGroupPhase p) {
  static const char* names[] = {"Pending", "Inqueue", "Running", "Unknown", "Completed"};
  return names[static_cast<int>(p)];
}

const char* to_string(Code c) {
  static const char* names[] = {"Success", "Unschedulable", "UnschedulableAndUnresolvable",
                                "Error",   "Wait",          "Skip"};
  return names[static_cast<int>(c)];
}

std::string FitErrors::to_string() const {
  // Volcano v1.12.1 api/unschedule_info.go FitErrors.Error(): "0/<nodes> nodes are
  // unavailable", then each reason as "<count> <reason>", the list sorted as strings
  // (sort.Strings, byte-wise: "10 x" sorts before "9 x"), joined by ", ", and a full stop.
  std::string s = "0/" + std::to_string(nodes) + " nodes are unavailable";
  if (nodes == 0) return s;
  std::vector<std::string> parts;
  parts.reserve(count.size());
  for (const auto& [reason, n] : count) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  s += ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) s += ", ";
    s += parts[i];
  }
  return s + ".";
}

}  // namespace mltwin::policy
