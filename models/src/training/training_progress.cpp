// TrainingProgress: see mltwin/models/training/training_progress.hpp.
#include "mltwin/models/training/training_progress.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/models/fabric.hpp"
#include "mltwin/models/node_lifecycle.hpp"
#include "mltwin/models/training/job_controller.hpp"

namespace mltwin::models {

using policy::JobId;
using policy::TaskId;
using policy::TaskStatus;

TrainingProgress::TrainingProgress(TrainingState& state, JobController& controller) : s_(state), controller_(controller) {
  const TrainingScenario& sc = s_.sc;
  if (sc.duration_model == DurationModel::Derived) {
    if (!sc.step_model) throw std::invalid_argument("duration model 'derived' needs a step model (/step_model)");
    for (const auto& j : sc.jobs)
      if (j.steps < 1) throw std::invalid_argument("job " + j.name + ": duration model 'derived' needs steps >= 1");
    if (sc.step_model->contention) {
      if (!sc.fabric) throw std::invalid_argument("step model contention needs the scenario's fabric (/fabric)");
      if (sc.autoscaler) throw std::invalid_argument("fabric contention with a cluster autoscaler is not modelled yet");
      fabric_traffic_ = std::make_unique<FabricTraffic>(sc, s_.sim, s_.rec);
    }
  }
}

TrainingProgress::~TrainingProgress() = default;

void TrainingProgress::start(std::size_t idx) {
  // torchrun's rendezvous completes when the last worker joins: training starts now (a
  // restarted job resumes from its last checkpoint and trains for what remains).
  JobRun& run = s_.runs[idx];
  JobOutcome& out = s_.outcomes[idx];
  run.attempt_start = s_.sim.now();
  if (run.start == core::Time::max()) run.start = s_.sim.now();  // the first start
  out.start = run.start;
  out.phase = "Running";
  if (run.attempt_placed != core::Time::max()) out.startup_s += (s_.sim.now() - run.attempt_placed).seconds();
  run.attempt_placed = core::Time::max();
  if (fabric_traffic_) {
    // The job's all-reduce joins the fabric (a ring over its pods' nodes in replica order);
    // the jobs it shares links with slow down, and it gets its share.
    std::vector<std::pair<int, std::uint32_t>> by_replica;
    for (TaskId t : s_.state.job(run.pj).tasks)
      by_replica.emplace_back(s_.replica_of_task[t], s_.nodes->rec(s_.state.task(t).node).fabric_slot);
    std::sort(by_replica.begin(), by_replica.end());
    std::vector<std::uint32_t> nodes;
    for (const auto& [r, n] : by_replica) nodes.push_back(n);
    try {
      fabric_traffic_->add_job(static_cast<std::uint32_t>(idx), nodes);
    } catch (const NoRouteError& e) {  // the loader keeps multi-zone jobs in one zone
      throw std::runtime_error("job " + s_.sc.jobs[idx].name + ": its pods cannot form an EFA ring: " + e.what());
    }
  }
  run.end_event = s_.sim.schedule_in(training_time(idx), &job_end_event_, idx);
  if (fabric_traffic_) settle_traffic();
}

double TrainingProgress::stop(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  if (run.attempt_start == core::Time::max()) return 0;
  double lost_s = 0;
  s_.sim.cancel(run.end_event);
  s_.stats.training_s += (s_.sim.now() - run.attempt_start).seconds();
  const std::int64_t c = s_.sc.checkpoint_interval.count_ns();
  if (s_.sc.duration_model == DurationModel::Derived) {
    // Progress in whole steps; a checkpoint every max(1, c / step time) steps of this attempt.
    // The kept steps' share of the attempt's time and split is credited, the rest is lost
    // (with one step time all along: elapsed - kept steps x step time).
    end_step_period(idx, s_.sim.now(), "restarted");
    const Duration elapsed = s_.sim.now() - run.attempt_start;
    const std::int64_t t = run.step.total().count_ns();
    const std::int64_t done = run.steps_saved + static_cast<std::int64_t>(std::floor(run.att_steps));
    const std::int64_t every = std::max<std::int64_t>(1, t > 0 ? c / t : 1);
    const std::int64_t kept = c > 0 ? std::max(run.steps_saved, done / every * every) : 0;
    const double k = static_cast<double>(std::max<std::int64_t>(0, kept - run.steps_saved));
    const double frac = run.att_steps > 0 ? std::min(1.0, k / run.att_steps) : 0.0;
    JobOutcome& o = s_.outcomes[idx];
    o.compute_s += frac * run.att_compute_s;
    o.communication_s += frac * run.att_comm_s;
    o.sync_s += frac * run.att_sync_s;
    lost_s = elapsed.seconds() * (1.0 - frac);
    run.steps_saved = kept;
    run.period_start = core::Time::max();
  } else {
    const Duration total = run.saved + (s_.sim.now() - run.attempt_start);
    const Duration kept = c > 0 ? Duration::ns(total.count_ns() / c * c) : Duration::ns(0);
    lost_s = (total - kept).seconds();
    run.saved = kept;
  }
  run.attempt_start = core::Time::max();
  if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) {
    fabric_traffic_->remove_job(static_cast<std::uint32_t>(idx));  // the others may speed up
    settle_traffic();
  }
  return lost_s;
}

void TrainingProgress::close_attempt_at_end(std::size_t idx, core::Time end) {
  JobRun& run = s_.runs[idx];
  if (run.attempt_start == core::Time::max()) return;
  if (end > run.attempt_start) s_.stats.training_s += (end - run.attempt_start).seconds();
  if (s_.sc.duration_model == DurationModel::Derived) {
    // Still training: the attempt's steps so far count (nothing is lost yet).
    end_step_period(idx, end, "run ended");
    JobOutcome& o = s_.outcomes[idx];
    o.compute_s += run.att_compute_s;
    o.communication_s += run.att_comm_s;
    o.sync_s += run.att_sync_s;
  }
}

Duration TrainingProgress::training_time(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  if (s_.sc.duration_model != DurationModel::Derived) return j.duration - run.saved;
  // Derived: the steps still to do at the step time of the placement this attempt got, with
  // the bandwidth the fabric grants now (retime() changes it when the sharing changes).
  const LinkGrant g = grant_of(idx);
  run.step = step_time(s_.sc.step_model->profile, placement_of(idx), g);
  run.period_start = s_.sim.now();
  run.att_steps = run.att_compute_s = run.att_comm_s = run.att_sync_s = 0;
  run.step_since = s_.sim.now();
  run.step_since_steps = 0;
  run.efa_gbps = g.inter_gbps;
  ++run.attempt;
  // Each of the 2(N-1) inter-node ring steps moves S/N bytes over every hop.
  run.hop_bytes_per_step = j.nnodes > 1 ? 2.0 * (j.nnodes - 1) * s_.sc.step_model->profile.gradient_bytes() / j.nnodes : 0.0;
  return Duration::ns((j.steps - run.steps_saved) * run.step.total().count_ns());
}

Placement TrainingProgress::placement_of(std::size_t idx) const {
  return {s_.sc.jobs[idx].nnodes, static_cast<int>(std::lround(s_.neuroncores_of(s_.pod_resreq(idx))))};
}

LinkGrant TrainingProgress::grant_of(std::size_t idx) const {
  LinkGrant g = s_.sc.step_model->nominal();
  if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx)))
    g.inter_gbps = fabric_traffic_->inter_gbps(static_cast<std::uint32_t>(idx));
  return g;
}

void TrainingProgress::close_period(std::size_t idx, core::Time at) {
  JobRun& run = s_.runs[idx];
  if (run.period_start == core::Time::max() || at <= run.period_start) return;
  const std::int64_t t = run.step.total().count_ns();
  const std::int64_t dt = (at - run.period_start).count_ns();
  run.period_start = at;
  if (dt <= 0 || t <= 0) return;
  const double n = static_cast<double>(dt) / static_cast<double>(t);
  run.att_steps += n;
  run.att_compute_s += n * run.step.computing().seconds();
  run.att_comm_s += n * run.step.communication().seconds();
  run.att_sync_s += n * run.step.sync.seconds();
  if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx)))
    fabric_traffic_->carried(static_cast<std::uint32_t>(idx), n * run.hop_bytes_per_step);
}

void TrainingProgress::retime(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  if (run.ended || run.attempt_start == core::Time::max()) return;
  const TrainingJobSpec& j = s_.sc.jobs[idx];
  const LinkGrant g = grant_of(idx);
  const StepTime next = step_time(s_.sc.step_model->profile, placement_of(idx), g);
  if (next.total() == run.step.total()) return;
  end_step_period(idx, s_.sim.now(), "retimed");  // the steps so far at the old step time
  run.step = next;
  run.step_since = s_.sim.now();
  run.step_since_steps = run.att_steps;
  run.efa_gbps = g.inter_gbps;
  const double left = std::max(0.0, static_cast<double>(j.steps - run.steps_saved) - run.att_steps);
  const auto ns = static_cast<std::int64_t>(std::ceil(left * static_cast<double>(next.total().count_ns())));
  s_.sim.cancel(run.end_event);
  run.end_event = s_.sim.schedule_in(Duration::ns(ns), &job_end_event_, idx);
  ++s_.stats.retimes;
}

void TrainingProgress::end_step_period(std::size_t idx, core::Time at, std::string_view why) {
  JobRun& run = s_.runs[idx];
  if (run.step_since == core::Time::max()) return;
  close_period(idx, at);
  StepPeriod p;
  p.job = static_cast<std::uint32_t>(idx);
  p.attempt = run.attempt;
  p.start = run.step_since;
  p.end = at;
  p.nodes = s_.sc.jobs[idx].nnodes;
  p.efa_gbps = p.nodes > 1 ? run.efa_gbps : 0.0;
  p.step_s = run.step.total().seconds();
  p.communication_s = run.step.communication().seconds();
  p.steps = run.att_steps - run.step_since_steps;
  p.end_reason = why;
  s_.rec.step_period(p);
  run.step_since = core::Time::max();
}

void TrainingProgress::settle_traffic() {
  for (std::uint32_t j : fabric_traffic_->take_changed()) retime(j);  // in job order
}

void TrainingProgress::record_link_usage(core::Time at) {
  if (!fabric_traffic_ || !fabric_traffic_->usage_due(at)) return;
  // The running jobs' steps up to `at` are booked first (their bytes on their links).
  for (JobId j : s_.state.active_jobs()) {
    const std::size_t idx = s_.job_of_policy[j];
    if (fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) close_period(idx, at);
  }
  fabric_traffic_->record_usage(at);
}

void TrainingProgress::job_end(std::size_t idx) {
  JobRun& run = s_.runs[idx];
  if (s_.sc.duration_model == DurationModel::Derived) {
    // The whole attempt is kept: its steps' split, period by period.
    end_step_period(idx, s_.sim.now(), "completed");
    JobOutcome& o = s_.outcomes[idx];
    o.compute_s += run.att_compute_s;
    o.communication_s += run.att_comm_s;
    o.sync_s += run.att_sync_s;
    run.period_start = core::Time::max();
    if (fabric_traffic_ && fabric_traffic_->has_job(static_cast<std::uint32_t>(idx))) {
      fabric_traffic_->remove_job(static_cast<std::uint32_t>(idx));
      run.ended = true;  // not retimed by the settling below
      settle_traffic();
    }
  }
  s_.stats.training_s += (s_.sim.now() - run.attempt_start).seconds();
  controller_.training_completed(idx);
}

}  // namespace mltwin::models
