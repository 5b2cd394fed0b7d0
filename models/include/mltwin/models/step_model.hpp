// mltwin/models/step_model.hpp — the time of one optimizer step of a data-parallel training job
// on Trn1 nodes, from a model profile and the job's placement (issue 5, part 3).
//
// One optimizer step of a data-parallel (DDP) job with W = nodes × cores_per_node workers
// (one torchrun process per NeuronCore) is, in this model:
//
//   step = A × compute_per_microstep                 compute: A gradient-accumulation micro-steps
//        + step_overhead                             compute: optimizer step + host work, once per step
//        + A × straggler_sigma × sqrt(2 ln N)        synchronisation: per micro-step, N = nodes
//        + allreduce(gradient bytes)                 communication: hierarchical ring (below)
//
// where A = microsteps_per_step (the profile's gradient accumulation; a weak-scaling profile
// keeps A fixed, so the global batch is A × W × micro_batch sequences).
//
// The all-reduce of S = parameters × gradient_bytes_per_parameter bytes is the hierarchical
// ring (Neuron runtime docs, "Inter-node collective communication": reduce-scatter inside the
// node, ring across nodes, all-gather inside the node), each phase costed alpha-beta, step by
// step, with the bandwidth the fabric grants:
//
//   reduce-scatter  (P-1) steps; per step every core sends S/P bytes to its ring neighbour on
//                   the same node over one NeuronLink hop: alpha_intra + (S/P) / B_intra
//   inter-node ring 2(N-1) steps (ring reduce-scatter then all-gather of each core's S/P shard
//                   across the N nodes; P parallel rings, one per local rank, share the node's
//                   EFA); per step every core sends S/(P·N) bytes to the same local rank on the
//                   next node: alpha_inter + (S/(P·N)) / (B_inter / P) = alpha_inter + S/(N·B_inter)
//   all-gather      like reduce-scatter: (P-1) steps of alpha_intra + (S/P) / B_intra
//
// with P = cores_per_node, B_intra the bandwidth granted to one NeuronLink hop and B_inter the
// bandwidth granted to one node's EFA traffic of this job (both Gb/s = 1e9 bit/s). With N = 1
// there is no inter-node phase; with P = 1 no intra-node phase. Every step's transfer time is
// rounded to the nearest integer nanosecond, as a fluid solver on integer time ends the step.
//
// The synchronisation term is a modelling choice (docs/step-model.md): micro-steps end in
// lock-step across nodes, and the expected maximum of N independent Gaussian delays of
// standard deviation sigma exceeds their mean by about sigma·sqrt(2 ln N) (the classical
// extreme-value bound); it is zero on one node. The profile's compute_per_microstep,
// step_overhead and straggler_sigma are fitted to the aws-neuron-sdk Trn1 training benchmark
// (tests/models/test_step_model.cpp, docs/step-model.md).
//
// Everything here is a pure function: no clock, no randomness, no allocation except
// allreduce_transfers().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"

namespace mltwin::models {

/// What one model costs per step; every figure from the scenario (step_model.profile), with its
/// source. Throws nothing; step_time() validates.
struct ModelProfile {
  std::string name;                         ///< e.g. "bert-large-ph1-bf16-lamb"
  double parameters = 0;                    ///< trainable parameters (count), e.g. 340e6 for BERT-large
  double gradient_bytes_per_parameter = 2;  ///< bytes all-reduced per parameter (2: BF16, 4: FP32)
  int sequence_length = 0;                  ///< tokens per sequence (informative)
  int micro_batch = 1;                      ///< sequences per NeuronCore per micro-step
  int microsteps_per_step = 1;              ///< gradient-accumulation micro-steps per optimizer step (A)
  core::Duration compute_per_microstep;     ///< one micro-step on one NeuronCore (fitted)
  core::Duration step_overhead;             ///< per optimizer step: optimizer + host (fitted)
  core::Duration straggler_sigma;           ///< per micro-step, per node (fitted)
  std::string source;

  /// Gradient bytes all-reduced per step, S.
  double gradient_bytes() const { return parameters * gradient_bytes_per_parameter; }
  /// Sequences per optimizer step over `workers` NeuronCores: A × workers × micro_batch.
  double global_batch(int workers) const {
    return static_cast<double>(microsteps_per_step) * workers * micro_batch;
  }
};

/// Where a job runs: the same number of NeuronCores on each of `nodes` nodes.
struct Placement {
  int nodes = 1;           ///< N >= 1
  int cores_per_node = 1;  ///< P >= 1 (torchrun processes per node, one per NeuronCore)
  int workers() const { return nodes * cores_per_node; }
};

/// The bandwidth the fabric grants the job now, and the per-step latencies.
struct LinkGrant {
  double intra_gbps = 0;                      ///< one NeuronLink hop, Gb/s (> 0 when P > 1)
  double inter_gbps = 0;                      ///< one node's EFA traffic of this job, Gb/s (> 0 when N > 1)
  core::Duration intra_alpha;                 ///< latency per intra-node ring step
  core::Duration inter_alpha;                 ///< latency per inter-node ring step
};

/// One optimizer step, split.
struct StepTime {
  int microsteps = 0;
  core::Duration compute;         ///< A × compute_per_microstep
  core::Duration overhead;        ///< step_overhead (counted as compute in job breakdowns)
  core::Duration sync;            ///< A × round(sigma × sqrt(2 ln N))
  core::Duration reduce_scatter;  ///< intra-node, NeuronLink
  core::Duration inter_ring;      ///< inter-node, EFA
  core::Duration all_gather;      ///< intra-node, NeuronLink
  core::Duration communication() const { return reduce_scatter + inter_ring + all_gather; }
  core::Duration computing() const { return compute + overhead; }
  core::Duration total() const { return computing() + sync + communication(); }
};

/// The step time of `profile` on `placement` with the bandwidth `grant`. Throws
/// std::invalid_argument (naming the profile and the bad figure) for nodes or cores < 1, a
/// negative duration or byte count, or a zero bandwidth a phase needs.
StepTime step_time(const ModelProfile& profile, const Placement& placement, const LinkGrant& grant);

/// sqrt(2 ln n) for n > 1, else 0: the expected excess of the maximum of n unit Gaussians over
/// their mean, to first order (the straggler factor).
double straggler_factor(int nodes);

/// One transfer of one collective step: `bytes` from (src_node, src_core) to (dst_node, dst_core).
struct Transfer {
  int src_node = 0, src_core = 0, dst_node = 0, dst_core = 0;
  double bytes = 0;
};

/// One phase of the hierarchical all-reduce: `steps` identical steps; in each, all `transfers`
/// run at once and the step ends alpha after the last one finishes.
struct CollectivePhase {
  std::string name;          ///< "reduce_scatter", "inter_node_ring", "all_gather"
  bool inter_node = false;   ///< over EFA (true) or NeuronLink (false)
  int steps = 0;
  core::Duration alpha;      ///< per step
  std::vector<Transfer> transfers;  ///< per step: P per node (intra) or P per node pair (inter)
};

/// The all-reduce of `profile`'s gradients on `placement` as transfers, phase by phase, for a
/// fabric model to run as flows. The closed form step_time() computes equals, per phase,
/// steps × (alpha + max over transfers of bytes / rate granted to it) with the rates of
/// `grant` (intra: intra_gbps per transfer; inter: the P transfers leaving a node share
/// inter_gbps). Phases with no step are omitted. Throws like step_time().
std::vector<CollectivePhase> allreduce_transfers(const ModelProfile& profile, const Placement& placement,
                                                 const LinkGrant& grant);

}  // namespace mltwin::models
