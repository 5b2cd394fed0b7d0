// TrainingState: see mltwin/models/training/training_state.hpp.
#include "mltwin/models/training/training_state.hpp"

#include <algorithm>

#include "mltwin/models/node_lifecycle.hpp"

namespace mltwin::models {

namespace {
constexpr std::int64_t kDayNs = 86'400LL * 1'000'000'000LL;
}  // namespace

TrainingState::TrainingState(const TrainingScenario& scenario, core::Simulator& simulator, TrainingRecorder& recorder,
                             core::RngStreams& rng)
    : sc(scenario), sim(simulator), rec(recorder), uid_rng(rng.stream("apiserver.uid")) {
  if (sc.termination_grace.kind != LatencySpec::Kind::Constant) grace_rng = &rng.stream("pod.termination_grace");
}

policy::Resource TrainingState::pod_resreq(std::size_t idx) const {
  return policy::task_resreq(pod_requests(sc.jobs[idx], cores_per_device));
}

void TrainingState::account_allocation(double delta_cores) {
  core::Time t = alloc_since_;
  const core::Time now = sim.now();
  auto& days = stats.allocated_core_seconds_per_day;
  while (t < now) {
    const std::int64_t day = t.ns() / kDayNs;
    const core::Time day_end = core::Time::from_ns((day + 1) * kDayNs);
    const core::Time seg_end = std::min(now, day_end);
    if (days.size() <= static_cast<std::size_t>(day)) days.resize(static_cast<std::size_t>(day) + 1, 0.0);
    days[static_cast<std::size_t>(day)] += alloc_cores_ * (seg_end - t).seconds();
    t = seg_end;
  }
  alloc_since_ = now;
  alloc_cores_ += delta_cores;
}

void TrainingState::node_occupancy_changed(policy::NodeId n) {
  if (nodes && nodes->dynamic()) nodes->occupancy_changed(n);
}

void TrainingState::write_final(std::size_t idx, const std::string& phase, const std::string& reason) {
  const JobRun& run = runs[idx];
  JobFinal f;
  f.job = static_cast<std::uint32_t>(idx);
  f.phase = phase;
  f.podgroup_phase = run.last_phase;
  f.inqueue = run.inqueue;
  f.scheduled = run.scheduled;
  f.start = run.start;
  f.end = run.end;
  if (run.pj != policy::kNone) {
    for (policy::TaskId t : state.job(run.pj).tasks) {
      const policy::TaskInfo& task = state.task(t);
      if (task.node == policy::kNone) continue;
      if (!f.nodes.empty()) f.nodes += ",";
      f.nodes += state.node(task.node).name;
    }
  }
  f.reason = reason;
  const JobStartup& js = jstart[idx];
  const JobOutcome& o = outcomes[idx];
  f.restarts = run.retries;
  f.lost_training_s = o.lost_s;
  f.startup_s = o.startup_s;
  if (startup_modelled) {
    f.startup_modelled = true;
    f.image_pull_s = js.image_pull_s;
    f.rendezvous_s = js.rendezvous_s;
    f.compile_s = o.compile_s;
    f.dataset_read_s = js.dataset_read_s;
    f.compile_cache = js.compile_cache;
    f.training_start = js.training_start;
  }
  f.derived = sc.duration_model == DurationModel::Derived;
  f.compute_s = o.compute_s;
  f.communication_s = o.communication_s;
  f.sync_s = o.sync_s;
  f.step_s = run.step.total().seconds();
  rec.job_final(f);
}

}  // namespace mltwin::models
