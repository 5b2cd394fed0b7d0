// ProcessorSharing: see mltwin/models/endpoint/processor_sharing.hpp.
#include "mltwin/models/endpoint/processor_sharing.hpp"

#include <algorithm>
#include <cmath>

namespace mltwin::models::inference {

void ProcessorSharing::retime(Instance& in) {
  InstanceCpu& cpu = in.cpu;
  if (cpu.running.empty()) {
    if (cpu.event.valid()) sim_.cancel(cpu.event);
    cpu.event = {};
    return;
  }
  const double left = std::max(0.0, cpu.running.top().vfinish - cpu.vclock);
  // At full speed (rate 1) left / rate is left itself: no division (~15 cycles) in the usual case.
  const double real = std::ceil(cpu.busy <= cpu.vcpu ? left : left / rate(cpu));
  const Time t = sim_.now() + Duration::ns(static_cast<std::int64_t>(real));
  if (cpu.event.valid() && sim_.pending(cpu.event)) {
    if (sim_.time_of(cpu.event) != t) sim_.reschedule(cpu.event, t);
  } else {
    cpu.event = sim_.schedule(t, &done_event_, in.id);
  }
}

void ProcessorSharing::start(Instance& in, std::uint32_t worker, std::int64_t work_ns) {
  InstanceCpu& cpu = in.cpu;
  advance_to(cpu, sim_.now());
  ++cpu.busy;
  cpu.running.push(BatchRef{cpu.vclock + static_cast<double>(std::max<std::int64_t>(work_ns, 1)), seq_++, worker});
  retime(in);
}

void ProcessorSharing::on_done(std::uint32_t instance) {
  Instance& in = instances_[instance];
  InstanceCpu& cpu = in.cpu;
  cpu.event = {};
  advance_to(cpu, sim_.now());
  // Every batch whose virtual finish has been reached ends now (1e-3 virtual ns absorbs the
  // rounding of the ceil in retime under contention; without contention all values are
  // integers). batch_done() never re-enters on_done (a CPU completion is always an event of
  // its own), so one scratch vector serves every call.
  done_scratch_.clear();
  while (!cpu.running.empty() && cpu.running.top().vfinish <= cpu.vclock + 1e-3) {
    done_scratch_.push_back(cpu.running.top().worker);
    cpu.running.pop();
    --cpu.busy;
  }
  retime(in);
  for (std::size_t i = 0; i < done_scratch_.size(); ++i) listener_.batch_done(done_scratch_[i]);
}

}  // namespace mltwin::models::inference
