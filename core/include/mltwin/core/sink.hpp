// mltwin/core/sink.hpp — where models send what happened.
//
// Models report facts (a pod was bound, a metric was sampled) to a TraceSink; the SQLite store
// is one implementation, a test's in-memory recorder another. The kernel itself never calls a
// sink: tracing costs nothing unless a model emits.
#pragma once
#include <cstdint>
#include <string_view>

#include "mltwin/core/time.hpp"

namespace mltwin::core {

/// A numeric sample of a named metric at a time, optionally about one entity (node, queue).
struct MetricSample {
  Time t;
  std::string_view name;    ///< e.g. "neuroncore_allocation_ratio"
  std::string_view entity;  ///< e.g. a queue name; empty for cluster-wide metrics
  double value;
};

/// A free-form trace record: `kind` names the event type ("bind", "evict"), `subject` the
/// object, `detail` a short human-readable description.
struct TraceRecord {
  Time t;
  std::string_view kind;
  std::string_view subject;
  std::string_view detail;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void metric(const MetricSample& s) = 0;
  virtual void trace(const TraceRecord& r) = 0;
};

/// Discards everything.
class NullSink final : public TraceSink {
 public:
  void metric(const MetricSample&) override {}
  void trace(const TraceRecord&) override {}
};

}  // namespace mltwin::core
