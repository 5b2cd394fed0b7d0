// gang plugin — Volcano v1.12.1 pkg/scheduler/plugins/gang/gang.go.
// A job is valid only with at least minAvailable valid tasks, ready only when minAvailable
// tasks are allocated (all-or-nothing: allocate commits a job's statement only when ready),
// ordered not-ready before ready, and starving below minAvailable. Victims may only come from
// jobs that keep minAvailable ready tasks after eviction.
//
// The per-task gang (PodGroup spec.minTaskMember) joins the job-level rules in valid, ready and
// pipelined (JobInfo::check_task_valid / _ready / _pipelined); victims and starving look at
// minAvailable only (gang.go:88-111, 156-160: "the taskMinAvailable configuration is not
// concerned").
#include <algorithm>

#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
class Gang final : public Plugin {
 public:
  std::string_view name() const override { return "gang"; }
  void on_session_open(Session& ssn) override {
    ssn.add_job_valid_fn([](const JobInfo& j) {
      ValidateResult r;
      if (!j.check_task_valid()) {  // gang.go:61-67
        r.pass = false;
        // v1beta1.NotEnoughPodsOfTaskReason.
        r.reason = "NotEnoughPodsOfTask";
        r.message = "Not enough valid pods of each task for gang-scheduling";
        return r;
      }
      const std::int32_t vtn = j.valid_task_num();
      if (vtn < j.min_available) {
        r.pass = false;
        // v1beta1.NotEnoughPodsReason, whose value is "NotEnoughTasks" (volcano.sh/apis
        // pkg/apis/scheduling/v1beta1/types.go), as gang.go:70-76 returns it.
        r.reason = "NotEnoughTasks";
        r.message = "Not enough valid tasks for gang-scheduling, valid: " + std::to_string(vtn) +
                    ", min: " + std::to_string(j.min_available);
      }
      return r;
    });
    const ClusterState* st = &ssn.state();
    auto victims_fn = [this, st](const TaskInfo&, std::span<const TaskId> preemptees, std::vector<TaskId>& victims) {
      // jobOccupiedMap: ready tasks left per job (a few jobs per call: a flat list).
      auto& occupied = occupied_;
      occupied.clear();
      for (TaskId t : preemptees) {
        const JobInfo& j = st->job(st->task(t).job);
        auto it = std::find_if(occupied.begin(), occupied.end(), [&](const auto& e) { return e.first == j.id; });
        if (it == occupied.end()) it = occupied.emplace(occupied.end(), j.id, j.ready_task_num());
        if (it->second > j.min_available) {
          --it->second;
          victims.push_back(t);
        }
      }
      return kPermit;
    };
    // The preemptor plays no part: the answer depends on the preemptees' jobs only.
    ssn.add_reclaimable_fn(victims_fn, VictimDependence::NotOnPreemptor);
    ssn.add_preemptable_fn(victims_fn, VictimDependence::NotOnPreemptor);
    // A job without pods is never ready (minAvailable >= 1): static for pending jobs.
    ssn.add_job_order_fn(
        [](const JobInfo& l, const JobInfo& r) {
          const bool lr = l.is_ready(), rr = r.is_ready();
          if (lr && rr) return 0;
          if (lr) return 1;
          if (rr) return -1;
          return 0;
        },
        /*static_while_pending=*/true);
    // gang.go:137-152.
    ssn.add_job_ready_fn([](const JobInfo& j) { return j.check_task_ready() && j.is_ready(); });
    ssn.add_job_pipelined_fn([](const JobInfo& j, std::string_view&) {
      return j.check_task_pipelined() && j.is_pipelined() ? kPermit : kReject;
    });
    ssn.add_job_starving_fn([](const JobInfo& j) { return j.is_starving(); });
  }

  // OnSessionClose: the PodGroup Unschedulable condition, "x/y tasks in gang unschedulable".
  // Thousands of waiting jobs get it every session, mostly a handful of distinct texts: each
  // distinct (x, y, fit errors) is written once per session and its view shared, so the
  // Scheduler's report interns it by address (Session::intern) instead of hashing every copy.
  void on_session_close(Session& ssn) override {
    const ClusterState& st = ssn.state();
    texts_.clear();
    for (JobId jid : st.active_jobs()) {
      if (!st.not_ready_with_tasks(jid)) continue;  // no tasks, or ready
      const JobInfo& j = st.job(jid);
      ssn.set_unschedulable_condition(jid);  // gang.go:193-205: the condition jobStatus reads
      // Keep a more specific reason an action already gave this session (queue overused...).
      if (const Verdict* v = ssn.job_reason(jid); v && !v->ok()) continue;
      const FitErrors* fit = nullptr;
      if (ssn.any_fit_errors())
        for (TaskId t : j.tasks)
          if ((fit = ssn.find_fit_errors(t))) break;
      // gang.go:171-183: the ready tasks and the pending ones whose last transaction in this
      // session left them Allocated (a discarded or kept statement allocated them).
      std::int32_t schedulable = j.ready_task_num();
      if (ssn.any_last_transaction_allocated())
        for (TaskId t : j.tasks)
          if (st.task(t).status == TaskStatus::Pending && ssn.last_transaction_allocated(t)) ++schedulable;
      const std::int32_t unready = j.min_available - schedulable;
      ssn.set_job_reason(jid, Verdict{Code::Unschedulable, "gang", text(ssn, unready, j.task_num(), fit)});
    }
  }

 private:
  /// "x/y tasks in gang unschedulable[: fit errors]", kept in the session once per distinct
  /// (x, y, fit errors) of this close (a few dozen at most are remembered; beyond that each
  /// further text is written afresh, as before).
  std::string_view text(Session& ssn, std::int32_t unready, std::int32_t tasks, const FitErrors* fit) {
    for (const GangText& g : texts_)
      if (g.unready == unready && g.tasks == tasks && g.has_fit == (fit != nullptr) &&
          (!fit || (g.fit.nodes == fit->nodes && g.fit.count == fit->count)))
        return g.text;
    const std::string_view text =
        ssn.keep(std::to_string(unready) + "/" + std::to_string(tasks) + " tasks in gang unschedulable" +
                 (fit ? ": " + fit->to_string() : std::string()));
    if (texts_.size() < 64) texts_.push_back({unready, tasks, fit != nullptr, fit ? *fit : FitErrors{}, text});
    return text;
  }
  struct GangText {
    std::int32_t unready = 0, tasks = 0;
    bool has_fit = false;
    FitErrors fit;
    std::string_view text;  // kept by the session being closed
  };
  std::vector<GangText> texts_;
  std::vector<std::pair<JobId, std::int32_t>> occupied_;  // the victim calls' scratch
};
}  // namespace
std::unique_ptr<Plugin> make_gang(const Arguments&) { return std::make_unique<Gang>(); }
}  // namespace mltwin::policy::detail
