// mltwin/policy/queue_job_sums.hpp — per queue, the sums over its jobs that proportion and
// overcommit take at every session open, kept up to date as jobs change.
//
// Volcano's proportion plugin (v1.12.1 pkg/scheduler/plugins/proportion/proportion.go,
// OnSessionOpen's job loop, proportion.go:92-162) and overcommit plugin (overcommit.go
// OnSessionOpen) walk every job of the session, whatever its PodGroup's phase, at each session
// open and add up, per queue (a Pending PodGroup's pods, when it has some, count in request):
//   allocated  += job.Allocated
//   request    += job.Allocated + job.pending tasks' requests          (TotalRequest)
//   inqueue    += minResources                        (PodGroup Inqueue)
//              += ExceededPart(minResources, Allocated) (Running with minAvailable allocated:
//                                                       util.GetInqueueResource)
//   elastic    += ExceededPart(Allocated, minResources) (util.GetElasticResources)
// (overcommit's inqueue is the same sum over all queues, for jobs with minResources.)
// A replay opens hundreds of thousands of sessions over a backlog of thousands of jobs, so
// mltwin keeps these sums instead: every change to a job marks it, and reading the sums first
// takes each marked job's old term out and puts its new one in.
//
// The sums are exact, so they are the very doubles the per-session loop gives: every term is
// a whole non-negative number (millicores, bytes, counts, milli-units: what Kubernetes
// quantities give), summed as int64 per resource name. A whole-number sum below 2^53 is the
// same double in any order, and each of the loop's partial sums is at most the final one. A
// resource name is in a queue's sum while at least one term has it, as Go's map keeps a key
// once added. When a term is not whole, is negative, or a sum reaches 2^53, the sums stop
// being kept (exact() turns false for good) and the plugins go back to the loop.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <vector>

#include "mltwin/policy/objects.hpp"

namespace mltwin::policy {

class ClusterState;

class MLTWIN_POLICY_EXPORT QueueJobSums {
 public:
  /// One queue's sums (Volcano's queueAttr allocated, request, inqueue, elastic before any
  /// plugin logic).
  struct Sums {
    Resource allocated, request, inqueue, elastic;
  };
  /// Job `j` changed (its phase, tasks' statuses or requests, or it was added or removed).
  void touch(JobId j) {
    if (!exact_) return;
    if (j >= dirty_.size()) dirty_.resize(j + 1, 0);
    if (!dirty_[j]) {
      dirty_[j] = 1;
      marked_.push_back(j);
    }
  }
  /// Brings the sums up to date with `st`. Returns false when they are not kept (see above).
  bool refresh(const ClusterState& st);
  bool exact() const { return exact_; }
  /// After a successful refresh(): queue q's sums (an empty Sums for a queue with no terms).
  const Sums& queue(QueueId q) const;
  /// After a successful refresh(): the inqueue sum over every queue (overcommit's inqueue).
  const Resource& inqueue_all() const { return inqueue_all_; }
  /// The loop's sums from scratch, in its order (what the kept sums must equal;
  /// ClusterState::check_invariants compares them, and the plugins fall back to it).
  static std::vector<Sums> from_scratch(const ClusterState& st);
  /// The four terms job `j` adds to its queue's sums.
  static Sums terms_of(const JobInfo& j);

 private:
  // An exact sum of one resource: its total and how many terms name it.
  struct Cell {
    std::uint16_t id;
    std::int32_t terms;
    std::int64_t sum;
  };
  // cpu and memory are always present; scalars sorted by name id.
  struct ExactResource {
    std::int64_t milli_cpu = 0, memory = 0;
    std::vector<Cell> scalars;
  };
  struct ExactSums {
    ExactResource part[4];  // allocated, request, inqueue, elastic
  };
  bool apply(ExactResource& into, const Resource& term, int sign);
  static Resource materialize(const ExactResource& e);

  std::vector<std::uint8_t> dirty_;
  std::vector<JobId> marked_;
  // The terms each counted job put in (a slot while the job is counted).
  std::vector<std::uint32_t> slot_of_;  // job id -> slot + 1, 0: not counted
  std::vector<Sums> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<QueueId> slot_queue_;
  std::vector<ExactSums> exact_sums_;     // per queue
  std::vector<std::uint8_t> stale_;       // per queue: materialized Sums out of date
  std::vector<Sums> sums_;                // per queue, materialized
  ExactResource inqueue_all_exact_;
  Resource inqueue_all_;
  bool inqueue_all_stale_ = true;
  bool exact_ = true;
};

}  // namespace mltwin::policy
