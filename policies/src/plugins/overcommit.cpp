// overcommit plugin — Volcano v1.12.1 pkg/scheduler/plugins/overcommit/overcommit.go.
// A job may enter Inqueue only while the min resources of all Inqueue jobs (and the unallocated
// part of running ones) fit in total × overcommit-factor minus what is used, on the dimensions
// the job requests. overcommit-factor defaults to 1.2 (defaultOverCommitFactor); a value below
// 1.0 falls back to the default, as upstream does.
#include "../builtins.hpp"

namespace mltwin::policy::detail {
namespace {
constexpr double kDefaultOverCommitFactor = 1.2;

class Overcommit final : public Plugin {
 public:
  explicit Overcommit(const Arguments& a) : factor_(a.get_double("overcommit-factor", kDefaultOverCommitFactor)) {
    if (factor_ < 1.0) factor_ = kDefaultOverCommitFactor;
  }
  std::string_view name() const override { return "overcommit"; }
  void on_session_open(Session& ssn) override {
    const ClusterState& st = ssn.state();
    idle_ = ssn.total_resource();
    idle_.multi(factor_).sub(st.total_used());
    // The min resources of Inqueue jobs and the unallocated part of running ones: the state
    // keeps that sum (queue_job_sums.hpp); the loop below is its fallback.
    if (const QueueJobSums* kept = st.queue_job_sums()) {
      inqueue_ = kept->inqueue_all();
    } else {
      inqueue_ = Resource{};
      sum_inqueue(st);
    }
    // Monotone across the cluster: idle is fixed and inqueue only grows during enqueue, so a
    // job whose minResources dominate a rejected one's is rejected too.
    ssn.add_job_enqueueable_fn(
        [this](const JobInfo& j, std::string_view& reason) {
          if (!j.has_min_resources) return kPermit;
          if ((inqueue_ + j.min_resources).less_equal_with_dimension(idle_, j.min_resources)) return kPermit;
          reason = "resource in cluster is overused";
          return kReject;
        },
        VoteMonotonicity::Cluster);
    ssn.add_job_enqueued_fn([this](const JobInfo& j) {
      if (j.has_min_resources) inqueue_.add(j.min_resources);
    });
  }

 private:
  void sum_inqueue(const ClusterState& st) {
    for (JobId jid : st.active_jobs()) {
      const JobInfo& j = st.job(jid);
      if (!j.has_min_resources) continue;
      if (j.phase == PodGroupPhase::Inqueue) {
        inqueue_.add(j.min_resources);
        continue;
      }
      if (j.phase == PodGroupPhase::Running && j.allocated_task_num() >= j.min_available)
        inqueue_.add_exceeded_part(j.min_resources, j.allocated);  // util.GetInqueueResource
    }
  }
  double factor_;
  Resource idle_, inqueue_;
};
}  // namespace
std::vector<ArgSpec> overcommit_arguments() {
  return {ArgSpec::of("overcommit-factor", ArgType::Float, "1.2", "pkg/scheduler/plugins/overcommit/overcommit.go:35 overCommitFactor (default :37)")};
}

std::unique_ptr<Plugin> make_overcommit(const Arguments& a) { return std::make_unique<Overcommit>(a); }
}  // namespace mltwin::policy::detail
