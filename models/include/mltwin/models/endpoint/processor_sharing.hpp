// mltwin/models/endpoint/processor_sharing.hpp — an instance's vCPUs shared by the batches
// running on it.
//
// A batch is CPU work on one core (ns of one core). While no more batches run on an instance
// than it has vCPUs, each runs at full speed; with more, all progress at rate vcpu / busy
// (processor sharing). Each instance keeps a virtual clock — the CPU each running batch has
// received so far — so a batch's virtual finish is fixed when it starts, and a change in the
// number of batches re-times only the earliest completion: one pending event per instance
// (rounded up to the next whole ns), moved when the rate changes.
//
// Unit-tested alone: tests/models/test_endpoint_components.cpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mltwin/core/event.hpp"
#include "mltwin/models/endpoint/endpoint_state.hpp"

namespace mltwin::models::inference {

/// What ProcessorSharing tells the rest of the endpoint.
class CpuListener {
 public:
  virtual ~CpuListener() = default;
  /// Worker `worker`'s batch has received all its CPU work, now.
  virtual void batch_done(std::uint32_t worker) = 0;
  /// Before each of the component's events (the endpoint notes the time, closes periods).
  virtual void before_event() = 0;
};

class ProcessorSharing {
 public:
  /// `instances` is the endpoint's instance vector (instances[id].cpu is this component's
  /// state); it, `sim` and `listener` must outlive the component.
  ProcessorSharing(core::Simulator& sim, std::vector<Instance>& instances, CpuListener& listener)
      : sim_(sim), instances_(instances), listener_(listener) {}

  /// Starts worker `worker`'s batch of `work_ns` ns of one core (at least 1) on `in`, now.
  void start(Instance& in, std::uint32_t worker, std::int64_t work_ns);
  /// Advances the instance's CPU clock and its busy-core integral to `now` (no later than the
  /// next event: the batches running do not change until then).
  static void advance_to(InstanceCpu& cpu, Time now) {
    if (now > cpu.last) {
      const double dt = static_cast<double>(now.ns() - cpu.last.ns());
      if (cpu.busy > 0) {
        cpu.vclock += dt * rate(cpu);
        cpu.busy_core_ns += dt * static_cast<double>(std::min(cpu.busy, cpu.vcpu));
      }
      cpu.last = now;
    }
  }
  /// The speed of each running batch on `cpu`: 1, or vcpu / busy when oversubscribed.
  static double rate(const InstanceCpu& cpu) {
    return cpu.busy <= cpu.vcpu ? 1.0 : static_cast<double>(cpu.vcpu) / static_cast<double>(cpu.busy);
  }

 private:
  void retime(Instance& in);
  void on_done(std::uint32_t instance);
  void before() { listener_.before_event(); }

  core::Simulator& sim_;
  std::vector<Instance>& instances_;
  CpuListener& listener_;
  std::uint64_t seq_ = 0;                   // ties of virtual finish: start order
  std::vector<std::uint32_t> done_scratch_;  // on_done's finished batches
  core::Event<&ProcessorSharing::on_done, &ProcessorSharing::before> done_event_{this};
};

}  // namespace mltwin::models::inference
