// mltwin/models/startup.hpp — what happens between "every pod of a job is Running" and "the
// job trains", and the node-level faults and scaling around it (issue 5, parts 4 and 5).
//
// Start-up of one attempt of a TorchX dist.ddp job, when a `startup` block is configured:
//
//   pod Bound ──pod start-up latency + image pull on its node──► Running
//   last pod Running ──torchrun rendezvous──► Neuron compilation (or compile-cache load)
//   ──dataset read from FSx for Lustre──► training starts
//
// - Image pull: each node pulls the job's container image from ECR once, at
//   image_bytes / pull_bytes_per_s; a pod whose node already holds the image (or is pulling
//   it) waits only for what is left of that pull. The node keeps the image afterwards (the
//   kubelet's image garbage collection is not modelled); a replacement node starts empty.
// - Rendezvous: torchrun's rendezvous (c10d or etcd backend) completes a fixed time after
//   the last worker joins.
// - Neuron compilation: PyTorch Neuron compiles each graph it traces unless the Neuron
//   persistent cache holds it. The cache (NEURON_COMPILE_CACHE_URL, e.g. a directory on FSx for
//   Lustre shared by every node) is keyed here by (cache URL, model graph, compiler flags,
//   data-parallel degree = nnodes × nproc_per_node): the Neuron BERT tutorial says a change of
//   batch size, optimizer or number of workers may trigger recompilation. Hit: load time only.
//   Miss: compile (JIT at run time, or ahead with neuron_parallel_compile), then store. A job
//   that finds the entry being compiled by another job waits for it, then loads it ("wait").
//   A job killed while compiling stores nothing.
// - Dataset read: dataset_bytes / the file system's throughput (storage TiB × per-unit
//   throughput, MB/s per TiB). Concurrent readers do not share it here (each job reads at the
//   file system's full throughput): an optimistic bound until the fluid-sharing solver exists.
//
// A restarted job runs every phase again (pods are created anew): its nodes usually hold the
// image already and its graphs are in the cache.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "mltwin/core/time.hpp"

namespace mltwin::models {

/// Compile times of one model's training graphs on Trainium.
struct NeuronModelSpec {
  std::string name;                ///< e.g. "bert-large"
  core::Duration jit_compile;      ///< compiling every graph at run time (JIT), sequentially
  core::Duration parallel_compile; ///< neuron_parallel_compile ahead of the run
  double dataset_bytes = 0;        ///< bytes a job of this model reads before training, bytes
  std::string source;
};

enum class CompileMode { Jit, ParallelCompile };

/// The scenario's `startup` block (all figures with their sources in the scenario file).
struct StartupSpec {
  // Container image.
  std::string image;               ///< image reference, e.g. an ECR URI (one image for all jobs)
  double image_bytes = 0;          ///< compressed size pulled, bytes
  double pull_bytes_per_s = 0;     ///< ECR pull throughput per node, bytes/s (> 0)
  std::string image_source;
  // torchrun rendezvous.
  core::Duration rendezvous;       ///< last worker joins -> rendezvous complete
  std::string rendezvous_source;
  // Neuron compilation.
  CompileMode mode = CompileMode::Jit;
  std::vector<NeuronModelSpec> models;  ///< names unique
  std::string default_model;       ///< a job without a model compiles this one (must be in models)
  std::string default_flags;       ///< NEURON_CC_FLAGS of a job that sets none
  std::string cache_url;           ///< NEURON_COMPILE_CACHE_URL; empty: no persistent cache
  core::Duration cache_load;       ///< loading a cached graph set, s
  std::string compile_source;
  // FSx for Lustre.
  double fsx_bytes_per_s = 0;      ///< file system throughput, bytes/s (> 0)
  std::string fsx_source;

  const NeuronModelSpec* find_model(const std::string& name) const;
};

/// How a job's compilation went in one attempt.
enum class CompileOutcome { Hit, Miss, Wait };
const char* to_string(CompileOutcome o) noexcept;

/// The start-up state of the cluster: which node holds the image since when, and what the
/// compile cache holds. Deterministic: ordered maps only.
class StartupModel {
 public:
  explicit StartupModel(const StartupSpec& spec) : spec_(spec) {}

  /// A pod bound to `node` at `now` needs the image: returns how long it waits for it (zero if
  /// the node holds it; the rest of an in-flight pull; else a full pull, which starts now).
  core::Duration image_pull(std::uint32_t node, core::Time now);
  /// The node is gone (failed or removed): its image cache is gone with it.
  void forget_node(std::uint32_t node) { images_.erase(node); }

  struct Compile {
    core::Duration time;
    CompileOutcome outcome = CompileOutcome::Miss;
  };
  /// Job `job` looks its graphs up at `now`. A miss starts a compilation that lands in the cache
  /// at now + compile time. Throws std::invalid_argument for a model not in the spec.
  Compile compile(std::uint32_t job, const std::string& model, const std::string& flags, int dp_degree,
                  core::Time now);
  /// Job `job` was killed at `now`: compilations it started that have not finished are dropped.
  void abort_compiles(std::uint32_t job, core::Time now);
  /// Seconds to read `bytes` from FSx for Lustre.
  core::Duration dataset_read(double bytes) const;

  std::size_t cache_entries() const { return cache_.size(); }

 private:
  using Key = std::tuple<std::string, std::string, std::string, int>;  // url, model, flags, dp
  struct Entry {
    core::Time ready;
    std::uint32_t owner;
  };
  const StartupSpec& spec_;
  std::map<std::uint32_t, core::Time> images_;  // node -> image on the node from this time
  std::map<Key, Entry> cache_;
};

/// Node failures (the scenario's `faults` block).
struct NodeFailureAt {
  std::string node;  ///< node name, e.g. "trn1-1"
  core::Duration at;
};
struct FaultSpec {
  /// Failures per node-hour while a node holds pods (exponential times to failure, RNG stream
  /// "node.failure"); 0: none. Idle nodes are not failed (see docs/startup-and-faults.md).
  double failure_rate_per_node_hour = 0;
  std::vector<NodeFailureAt> scheduled;  ///< failures at given times (tests, what-ifs)
  /// Failure -> a new node of the same group is Ready (the Auto Scaling group launches a
  /// replacement: detection + launch + join). A Spot node's replacement takes as long.
  core::Duration replacement_time;
  /// Spot interruptions per node-hour of a Spot node while it holds pods (exponential times to
  /// the interruption notice, RNG stream "spot.interruption"); 0: none. The Spot Instance
  /// Advisor's frequency-of-interruption buckets turn into a rate as docs/startup-and-faults.md
  /// shows.
  double spot_interruption_rate_per_node_hour = 0;
  /// Interruption notices at given times, of Spot nodes present at t = 0 (tests, what-ifs).
  std::vector<NodeFailureAt> spot_interruptions;
  /// Interruption notice -> the instance is terminated: the two-minute warning (EC2 User Guide,
  /// "Spot Instance interruption notices"), 120 s unless the scenario says otherwise.
  core::Duration spot_notice = core::Duration::s(120);
  /// Failure -> the node lifecycle controller marks the node NotReady (Ready Unknown) and taints
  /// it node.kubernetes.io/unreachable (NoExecute and NoSchedule): kube-controller-manager's
  /// --node-monitor-grace-period, 40 s up to Kubernetes 1.31 and 50 s from 1.32
  /// (kubernetes#126287), after the cluster's version unless the scenario gives it. The
  /// kubelet's lease renewals (10 s) and the controller's 5 s monitor period are not modelled.
  core::Duration node_monitor_grace_period = core::Duration::s(50);
  /// NotReady -> a pod without a toleration of its own for that taint is evicted (deleted) by
  /// the taint manager: the toleration the DefaultTolerationSeconds admission plugin adds to every
  /// pod, --default-unreachable-toleration-seconds, 300 s. A pod whose tolerations tolerate the
  /// taint stays (tolerationSeconds is not kept: for ever).
  core::Duration unreachable_toleration = core::Duration::s(300);
  /// Failure -> the Auto Scaling group has terminated the instance: billing stops, the
  /// replacement launches (Ready at failure + replacement_time), and the Node object is deleted
  /// once it is NotReady too (the cloud node lifecycle controller deletes a NotReady node whose
  /// instance is gone). Default 0 s: the failure is the instance's loss. No AWS figure is
  /// published for how long an impaired instance lingers before its group replaces it.
  core::Duration instance_terminated_after = core::Duration::s(0);
  /// PodGC (pkg/controller/podgc/gc_controller.go, constants gcCheckPeriod and quarantineTime):
  /// a pass every 20 s; the pods of a node missing from the informer are deleted at the first
  /// pass 40 s after the pass that saw it missing (passes on a 20 s grid from t = 0 here).
  core::Duration pod_gc_period = core::Duration::s(20);
  core::Duration pod_gc_quarantine = core::Duration::s(40);
  std::string source;
};

/// Kubernetes cluster-autoscaler (the scenario's `cluster.autoscaler` block); applies to the
/// node groups that set min_size/max_size.
struct AutoscalerSpec {
  core::Duration scan_interval = core::Duration::s(10);             ///< --scan-interval
  core::Duration scale_down_unneeded_time = core::Duration::s(600); ///< --scale-down-unneeded-time
  core::Duration scale_down_delay_after_add = core::Duration::s(600); ///< --scale-down-delay-after-add
  core::Duration launch_time;  ///< scale-up decision -> node Ready (EC2 launch, boot, join)
  std::string source;
};

}  // namespace mltwin::models
