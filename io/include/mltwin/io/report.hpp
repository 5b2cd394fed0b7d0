// mltwin/io/report.hpp — the run summary printed after a training run.
//
// Definitions (also in docs/reading-results.md):
// - queueing delay = time the gang is placed (last pod bound) - submit time, s
// - job completion time (JCT) = time the last pod succeeded - submit time, s
// - makespan = last job end - first submit (t = 0), s
// - NeuronCore allocation ratio = NeuronCores held by bound pods / NeuronCores in the cluster,
//   time-weighted (exact integral, not sampled), overall and per week
// Percentiles interpolate linearly between order statistics (Hyndman & Fan type 7, numpy's
// default), so p50 of {1, 2, 3, 4} is 2.5.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mltwin/models/training.hpp"

namespace mltwin::io {

/// A duration in seconds as people read it, to one decimal in the largest fitting unit: "44.0s",
/// "12.5m", "3.2h", "4.1d" ("-" for NaN). The one format of the summaries and the progress line.
std::string human_duration(double seconds);

/// Quantile q in [0, 1] of `v` (type 7). `v` is sorted in place. NaN if empty.
double quantile(std::vector<double>& v, double q);

struct Distribution {
  std::size_t n = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
  static Distribution of(std::vector<double> v);
};

struct QueueSummary {
  std::string queue;
  std::size_t submitted = 0, completed = 0, running = 0, pending = 0;  ///< by final job phase
  std::size_t refused = 0;          ///< never created: an admission webhook refused the Job
  std::size_t ended_otherwise = 0;  ///< Failed, Aborted or Terminated: ended without completing
  Distribution queueing_s, jct_s;
};

/// One job as the starvation flag sees it.
struct WaitRecord {
  std::string name, queue;
  std::int64_t submit_ns = 0;
  std::int64_t placed_ns = INT64_MAX;  ///< its gang placed (first time); INT64_MAX: never
  std::int64_t run_ns = 0;             ///< its run time (the job's duration)
  double size = 0;                     ///< NeuronCores it requests in all
  /// Sessions in which it waited while a job of another queue was placed and the two queues'
  /// order was a tie decided by the QueueOrderFn fallback (models::QueueTieLoss): the queue
  /// that won the first, and whether the UIDs decided it (equal creation times).
  std::size_t tie_sessions = 0;
  std::string tie_winner = {};
  bool tie_by_uid = false;
};

/// A job flagged as starved: it waited (submit -> its gang placed, or -> the end of the run if
/// never placed) more than wait_factor x its run time, while at least one job of the same
/// queue, submitted strictly later and requesting strictly fewer NeuronCores in all, was placed
/// before it — the pattern of Volcano's allocate, which skips a gang that does not fit now and
/// goes on with the next, smaller job ("skip and continue"). If every queue placed its jobs
/// first come first served, no job would ever be placed before an earlier one that still
/// waits, so the flag cannot fire on such a run.
struct StarvedJob {
  std::string name, queue;
  double waited_s = 0, run_s = 0;
  bool placed = false;             ///< false: still waiting when the run ended
  std::size_t overtaken_by = 0;    ///< later, smaller jobs of its queue placed before it
};
struct Starvation {
  double wait_factor = 1;
  std::size_t jobs = 0;            ///< jobs flagged
  std::vector<StarvedJob> worst;   ///< up to 5, longest wait first (then name)
};
/// The flag over `jobs` (Refused jobs left out by the caller); `end_ns`: the end of the run.
/// O(n log n + n x distinct sizes) per queue.
Starvation find_starvation(const std::vector<WaitRecord>& jobs, double wait_factor, std::int64_t end_ns);

/// A job flagged as starved across queues: it waited (as for Starvation) more than wait_factor x
/// its run time, while at least one job of ANOTHER queue, submitted strictly later, was placed
/// strictly before it, and it lost at least one measured queue-order tie (tie_sessions > 0: a
/// job of another queue was placed in a session where the fallback ordered that queue first). Volcano's allocate takes queues in Session.QueueOrderFn order
/// (pkg/scheduler/framework/session_plugins.go, v1.12.1): the plugins' queue orders first —
/// proportion's (plugins/proportion/proportion.go AddQueueOrderFn): the Queue's spec.priority,
/// higher first, then share, lower first — and when every one answers 0, the Queue's
/// CreationTimestamp, then its UID. So between queues of equal priority and share, the same queue
/// wins every tie. Overtaking by share alone is not flagged here (the queue share flag's).
struct CrossQueueStarvedJob {
  std::string name, queue;
  double waited_s = 0, run_s = 0;
  bool placed = false;                  ///< false: still waiting when the run ended
  std::size_t overtaken_by = 0;         ///< later jobs of other queues placed before it
  /// Those jobs per queue, by name (most first, then name).
  std::vector<std::pair<std::string, std::size_t>> by_queue;
  std::size_t tie_sessions = 0;         ///< WaitRecord::tie_sessions
  std::string tie_winner;
  bool tie_by_uid = false;
};
struct CrossQueueStarvation {
  double wait_factor = 1;
  std::size_t jobs = 0;                 ///< jobs flagged
  /// Of those, the jobs that waited through a session in which another queue's job was placed
  /// ahead of theirs by the QueueOrderFn fallback (a tie), and those sessions in all.
  std::size_t tie_jobs = 0, tie_sessions = 0;
  std::vector<CrossQueueStarvedJob> worst;  ///< up to 5, longest wait first (then name)
};
/// The flag over `jobs` (Refused jobs left out by the caller); `end_ns`: the end of the run.
/// O(n log n): one Fenwick tree over placement-time ranks for all jobs and one per queue.
CrossQueueStarvation find_cross_queue_starvation(const std::vector<WaitRecord>& jobs, double wait_factor,
                                                 std::int64_t end_ns);

/// A queue whose share of the NeuronCores under contention is below the smallest job it holds
/// (Volcano's proportion plugin, pkg/scheduler/plugins/proportion/proportion.go: the cluster is
/// divided among the queues that have jobs in proportion to their weights, capped by
/// capability, raised to guarantee; a queue asking for less than its share leaves the rest to
/// the others). When every queue with jobs asks for at least its weighted share, the queue
/// deserves share_neuroncores = total x weight / total_weight (then min capability, max
/// guarantee); allocate refuses a task that would take the queue past what it deserves, so a
/// gang larger than that can run only while other queues leave part of their share unused.
struct ShortQueue {
  std::string queue;
  int weight = 0, total_weight = 0;    ///< its weight, and the sum over the queues with jobs
  double total_neuroncores = 0;        ///< the cluster's (as it started)
  double share_neuroncores = 0;        ///< its deserved NeuronCores when every queue asks
  double smallest_neuroncores = 0, largest_neuroncores = 0;  ///< of its jobs
  std::size_t jobs = 0;                ///< its jobs above the share
  double mean_queueing_s = 0;          ///< theirs (placed ones), NaN if none was placed
  /// The smallest weight that gives the queue a share of at least its smallest / its largest
  /// job (the other weights unchanged); 0 when no weight can (the job exceeds the capability).
  int weight_for_smallest = 0, weight_for_largest = 0;
};
struct QueueRecord {
  std::string name;
  int weight = 1;
  double capability_neuroncores = std::numeric_limits<double>::infinity(), guarantee_neuroncores = 0;
};
struct JobSizeRecord {
  std::string queue;
  double neuroncores = 0;
  double queueing_s = std::numeric_limits<double>::quiet_NaN();  ///< NaN: never placed
};
/// The queues to flag, in name order. `total_neuroncores`: the cluster's; queues without jobs
/// take no part (proportion builds attributes only for queues with jobs).
std::vector<ShortQueue> find_short_queues(const std::vector<QueueRecord>& queues, const std::vector<JobSizeRecord>& jobs,
                                          double total_neuroncores);

/// Reclaim churn: jobs the reclaim action evicted more than once. Each eviction restarts (or,
/// past maxRetry, fails) the whole job (TorchX's PodEvicted -> RestartJob). Volcano's reclaim
/// decides pod by pod: a queue may reclaim while its next pod fits within its deserved share,
/// and another queue's pods are victims while that queue holds more than its deserved
/// (proportion.go, capacity.go). When a queue's deserved share is below its gang, its gang is
/// above the share whenever it is placed and is reclaimed each time
/// (tests/scenarios/reclaim-churn.json: a1 placed and reclaimed three times, then Failed).
struct ChurnedJob {
  std::string name, queue, phase;  ///< phase: the job's final phase
  int evictions = 0;               ///< by reclaim
  double lost_training_s = 0;      ///< training thrown away by its restarts
};
struct ReclaimChurn {
  std::size_t jobs = 0;              ///< jobs evicted by reclaim twice or more
  std::size_t evictions = 0;         ///< their reclaim evictions
  std::vector<std::string> queues;   ///< their queues, by name
  std::vector<ChurnedJob> worst;     ///< up to 5, most evictions first (then name)
};

/// A queue deadlock (proportion): the run ended with jobs waiting in two or more queues, each of
/// which deserves less than its smallest job (ShortQueue), and nothing running: allocate refuses
/// every gang for ever. Raising every such queue's weight keeps the lock; raising one queue's
/// weight to weight_for_smallest (the others unchanged) lets its jobs run, and once its queue
/// asks for nothing more the others' shares grow.
struct Deadlock {
  std::vector<std::string> queues;  ///< the deadlocked queues, by name
  std::size_t waiting = 0;          ///< jobs waiting in them at the end
  std::string unlock_queue;         ///< the queue whose weight to raise (smallest weight needed, then name); empty: none can
  int unlock_weight = 0;            ///< its weight_for_smallest
};

struct RunSummary {
  std::string scenario;
  std::uint64_t seed = 0;
  double sim_end_s = 0, makespan_s = 0;
  std::size_t jobs = 0;
  std::vector<std::pair<std::string, std::size_t>> phases;  ///< final phase -> jobs
  Distribution queueing_s, jct_s;
  std::vector<QueueSummary> queues;  ///< sorted by name
  double neuroncores = 0;            ///< NeuronCores in the cluster at t = 0 (0: no Trainium nor Inferentia; no ratio)
  double allocation_ratio = 0;       ///< time-weighted over [0, sim end]
  std::vector<double> weekly_allocation_ratio;
  std::uint64_t sessions = 0, cycles = 0, binds = 0, discarded = 0;
  std::uint64_t bind_failures = 0;  ///< binds the API server refused (lifecycle.bind_failure_probability)
  /// Pods evicted (preempt, reclaim); restarts by the job controller (RestartJob, RestartTask,
  /// RestartPod); jobs Failed (retries exhausted), Aborted, Terminated, Completed early by a
  /// policy; torchrun gangs re-formed with a replacement pod; jobs left stuck with Failed pods
  /// by Volcano's default SyncJob; training lost.
  std::uint64_t evictions = 0, restarts = 0, failed = 0;
  /// Priority inversions (TrainingStats::priority_inversions): pods evicted for a pod of a
  /// lower-priority job, by the action and tier that chose them; the first one, described.
  std::vector<std::pair<std::string, std::uint64_t>> priority_inversions;
  std::string priority_inversion_example;
  std::uint64_t drained = 0;  ///< pods evicted by node drains (Spot notices); not in `evictions`
  std::uint64_t aborted = 0, terminated = 0, completed_early = 0, resumed_in_place = 0, stuck = 0;
  /// Jobs admitted that can never be placed (TrainingStats::never_placeable), the first one's
  /// name and why; refused ones (TrainingStats::refused).
  std::uint64_t never_placeable = 0, refused = 0;
  std::string never_placeable_example;
  bool enqueue_action = true;  ///< the scheduler runs Volcano's enqueue action (what admits PodGroups to Inqueue)
  /// The autoscaler trap and churn (TrainingStats): jobs that never got a pod though the groups
  /// could grow for them, the first one's name; nodes scaled up that never held a pod, their
  /// node-hours and on-demand-or-Spot cost.
  std::uint64_t autoscaler_trapped = 0, churn_nodes = 0;
  std::string autoscaler_trap_example;
  double churn_node_hours = 0, churn_usd = 0;
  bool churn_cut = false;  ///< TrainingStats::churn_cut: the churn's cost is a lower bound
  double lost_training_s = 0, lost_neuroncore_s = 0;
  /// Whole-job restarts: their new PodGroup's wait from creation (the restart) to admission
  /// (TrainingStats::readmission_wait_s).
  Distribution readmission_s;
  /// With a startup block: job-seconds from the last pod Running to training start
  /// (rendezvous, compilation, dataset read), in image pulls, and in training; compile-cache
  /// outcomes. startup_share = startup_s / (startup_s + training_s).
  bool startup = false;
  double startup_s = 0, image_pull_s = 0, training_s = 0, startup_share = 0;
  std::uint64_t compile_hits = 0, compile_misses = 0, compile_waits = 0;
  /// With faults or an autoscaler: nodes failed, launched (replacements, scale-ups), removed;
  /// the cost is then node-seconds in service × price.
  bool dynamic_nodes = false;
  std::uint64_t node_failures = 0, nodes_launched = 0, nodes_removed = 0;
  /// Pods of failed nodes deleted by the taint manager and removed by PodGC, and those of the
  /// latter the taint manager had deleted first (TrainingStats).
  std::uint64_t taint_evictions = 0, pods_garbage_collected = 0, pods_garbage_collected_after_taint_eviction = 0;
  /// Pods deleted by the taint manager when their tolerationSeconds of their node group's
  /// NoExecute taint ran out (TrainingStats::node_taint_evictions).
  std::uint64_t node_taint_evictions = 0;
  /// Job attempts that failed at training start: their EFA pods split across availability zones.
  std::uint64_t efa_cross_zone_failures = 0;
  std::uint64_t spot_interruptions = 0;  ///< Spot nodes interrupted (notice, then termination)
  bool spot = false;                      ///< some node group launches Spot nodes
  /// Nodes whose pods held two different Neuron resource names (TrainingStats::neuron_name_mixes)
  /// and the first of them with its names.
  std::uint64_t neuron_name_mixes = 0;
  std::string neuron_name_mix_example;
  Starvation starvation;
  CrossQueueStarvation cross_queue_starvation;
  std::vector<ShortQueue> short_queues;
  std::optional<Deadlock> deadlock;
  ReclaimChurn reclaim_churn;
  std::uint64_t events = 0;
  double wall_s = 0;
  double cost_usd = 0;  ///< node-hours × on-demand price over [0, sim end]
  /// Where the jobs' time on the nodes went (duration_model derived; JobOutcome), summed over
  /// jobs: seconds, and NeuronCore-seconds priced at the node's on-demand price per NeuronCore
  /// (price per hour / 3600 / NeuronCores per node), USD.
  struct Share {
    double s = 0, usd = 0;
  };
  /// `compiling` is the Neuron compilation (or cache load) part of start-up (with a startup
  /// block; 0 otherwise), `starting` the rest of start-up (bind, image pull, pod start-up,
  /// rendezvous, dataset read).
  bool derived = false;
  /// Jobs shared the /fabric (StepModelSpec::contention): how often a job's step time changed
  /// mid-attempt because another job started or stopped on its EFA links.
  bool contention = false;
  std::uint64_t retimes = 0;
  Share compute, communication, sync, compiling, starting, lost;
  double job_time_s() const { return compute.s + communication.s + sync.s + compiling.s + starting.s + lost.s; }
  double job_time_usd() const {
    return compute.usd + communication.usd + sync.usd + compiling.usd + starting.usd + lost.usd;
  }
};

RunSummary summarize(const std::string& scenario, std::uint64_t seed, const models::TrainingScenario& sc,
                     const models::TrainingCluster& cluster, double sim_end_s);
void print_summary(std::ostream& os, const RunSummary& s);

}  // namespace mltwin::io
