// mltwin/runner/trace_export.hpp — a run's database as a Chrome / Perfetto trace-event JSON
// file (the "JSON Object Format" of the Trace Event Format; opens in ui.perfetto.dev and
// chrome://tracing). Timestamps are µs of simulated time since the start of the run.
//
// Training runs:
//   - one process per node ("node trn1-3"); each pod that held the node is a slice from its
//     Bound to its Succeeded / Deleted (or the end of the run), named "<job> pod <i>", with a
//     nested "running" slice from Running; pods that overlap on a node get separate threads
//     (lanes), assigned greedily by start time;
//   - evictions (Evicted, Killed) as instant events on the pod's lane;
//   - process "queues": a counter per queue, "pending <queue>" = jobs submitted and not yet
//     placed (never placed: until they end or the run does);
//   - process "cluster": counters from cluster_metrics (NeuronCores allocated, jobs pending /
//     inqueue / running).
// Inference runs:
//   - one process per instance; model downloads and loads as slices (DownloadStart ->
//     Downloaded, LoadStart -> Loaded / LoadFailed), unloads and artifact deletions as
//     instant events;
//   - process "endpoint": counters from endpoint_metrics (Invocations, workers, instances in
//     service, LoadedModelCount).
#pragma once
#include <cstddef>
#include <string>

namespace mltwin::runner {

struct TraceExportStats {
  std::size_t slices = 0, instants = 0, counters = 0;
};

/// Writes the trace of the run in `database` to `out`: beside it, renamed over it once complete
/// (an error leaves an earlier file there untouched). Throws std::invalid_argument if `out` is
/// not a regular file (a directory, a device, a fifo, a link to one) or is `database` itself,
/// std::runtime_error if the database cannot be read or the file cannot be written.
TraceExportStats export_trace(const std::string& database, const std::string& out);

}  // namespace mltwin::runner
