// mltwin/store/results_schema.hpp — the results database's tables, defined once.
//
// Each table is a list of columns: name, SQL declaration, unit, when the store writes it, and
// what it means. From this one description come
//   * the CREATE TABLE statements (create_table_sql),
//   * the INSERT and UPDATE statements the store prepares (insert_sql, update_sql), and the
//     slot of each column in them, resolved by name at compile time (insert_slot,
//     update_param): a misspelt column does not compile;
//   * the column tables of docs/results-schema.md (columns_markdown; the test
//     `test_results_schema_doc` fails when the page differs, `make docs` rewrites it).
// A change here changes the file format: bump kSchemaVersion (sqlite_store.hpp) and add a row
// to the version table of docs/results-schema.md.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mltwin::store::schema {

/// Which databases hold a table: every one, or those of one kind of run.
enum class Holder : std::uint8_t { Every, Training, Inference };

/// When the store writes a column (a bit set).
enum Written : std::uint8_t {
  kInsert = 1,  ///< in the row's INSERT (the recorder binds it)
  kUpdate = 2,  ///< in the row's UPDATE (the outcome of a job, the end of a node); NULL until then
};

struct Column {
  std::string_view name;
  std::string_view decl;     ///< SQL declaration after the name, e.g. "INTEGER NOT NULL"
  std::string_view unit;     ///< for the docs: "ns", "s", "GiB", ...; empty for counts, ids, text
  std::uint8_t written;      ///< Written bits
  std::string_view metric;   ///< endpoint_metrics: the CloudWatch metric (statistic); else empty
  std::string_view meaning;  ///< for the docs (Markdown)
};

struct Table {
  std::string_view name;
  Holder holder;
  std::span<const Column> columns;
  std::string_view key;       ///< the column an UPDATE of a row names it by; empty: never updated
  std::string_view index_on;  ///< the column of index "<table>_by_<column>", built at finish(); empty: none
};

// ---- run_meta
inline constexpr Column kRunMetaColumns[] = {
    {"key", "TEXT PRIMARY KEY", "", kInsert,
     "",
     "name of the fact"},
    {"value", "TEXT NOT NULL", "", kInsert,
     "",
     "its value, as text"},
};
// ---- inputs
inline constexpr Column kInputsColumns[] = {
    {"role", "TEXT NOT NULL", "", kInsert,
     "",
     "what the file is for: `scenario`, `instance_catalog` (the instance catalog, [catalog.md](catalog.md)), `philly_trace`, `azure_functions_invocations` / `_durations` / `_memory`, `volcano_scheduler_config`, `eksctl_cluster_config`, `queue_manifests`, `job_manifests`, `spot_price_history`, `cluster_nodes` (`cluster.nodes_from`), `cluster_pods` (`cluster.pods_from`), `job_history` (`workload.history`: the history the run replays), `duration_history` (the history a `pods_from` duration model takes its run times from)"},
    {"path", "TEXT NOT NULL", "", kInsert,
     "",
     "the file as the run names it, independent of the machine and of the working directory: for `scenario` and `instance_catalog`, the file name; for other files, the path as the scenario writes it, e.g. `${MLTWIN_DATA}/training/philly/philly.csv` (relative to the data folder) or `trace.csv` (a relative path is relative to the scenario's folder)"},
    {"sha256", "TEXT NOT NULL", "", kInsert,
     "",
     "SHA-256 of the content, 64 lowercase hex digits (as `sha256sum` prints)"},
    {"bytes", "INTEGER NOT NULL", "", kInsert,
     "",
     "file size, bytes"},
};
// ---- jobs
inline constexpr Column kJobsColumns[] = {
    {"job", "INTEGER PRIMARY KEY", "", kInsert,
     "",
     "job id, `0 .. n-1` in submission order"},
    {"name", "TEXT NOT NULL", "", kInsert,
     "",
     "job name, e.g. `philly-000123`"},
    {"queue", "TEXT NOT NULL", "", kInsert,
     "",
     "Volcano queue the job was submitted to"},
    {"submit_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "submission time; for a job running at t0 (`initial_state`), when its training started (0 or negative), as are its `inqueue_ns`, `scheduled_ns` and `start_ns`"},
    {"nnodes", "INTEGER NOT NULL", "pods", kInsert,
     "",
     "pods of the job (TorchX replicas) = PodGroup `minAvailable`"},
    {"nproc_per_node", "INTEGER NOT NULL", "processes", kInsert,
     "",
     "`torchrun` processes per pod (one per NeuronCore)"},
    {"neuron_devices_per_pod", "INTEGER NOT NULL", "devices", kInsert,
     "",
     "Neuron devices requested per pod, under whichever name the pods use (`neuron_resource`; for `aws.amazon.com/neuroncore` the NeuronCores ÷ NeuronCores per device)"},
    {"cpu_per_pod", "REAL NOT NULL", "cores", kInsert,
     "",
     "CPU requested per pod"},
    {"memory_gib_per_pod", "REAL NOT NULL", "GiB", kInsert,
     "",
     "memory requested per pod"},
    {"efa_per_pod", "INTEGER NOT NULL", "interfaces", kInsert,
     "",
     "EFA interfaces (`vpc.amazonaws.com/efa`) requested per pod"},
    {"neuron_resource", "TEXT", "", kInsert,
     "",
     "the name the pods request their Neuron devices under: `aws.amazon.com/neurondevice` (TorchX's), `aws.amazon.com/neuron` or `aws.amazon.com/neuroncore`; NULL when they request none"},
    {"other_requests", "TEXT", "", kInsert,
     "",
     "the pods' other requests as a JSON object of Kubernetes quantities (`{\"nvidia.com/gpu\":\"4\",\"ephemeral-storage\":\"10737418240\"}`: `nvidia.com/gpu`, `ephemeral-storage` and `hugepages-*` in bytes, any extended resource); NULL when none"},
    {"duration_s", "REAL NOT NULL", "s", kInsert,
     "",
     "training run time once every pod is running (from the trace)"},
    {"trace_row", "INTEGER NOT NULL", "", kInsert,
     "",
     "1-based line of the job in the trace CSV (the header is line 1)"},
    {"trace_gpus", "INTEGER NOT NULL", "GPUs", kInsert,
     "",
     "GPUs the job asked for in the trace"},
    {"phase", "TEXT NOT NULL", "", kInsert | kUpdate,
     "",
     "Volcano Job phase at the end: `Completed` (trained to the end, or `CompleteJob` by a policy: `reason` says so), `Running`, `Pending` (`reason` says why; `stuck: ...` when Volcano's SyncJob left Failed pods it never recreates; `can never be placed: ...` for a job no node set can hold), `Refused` (not a Volcano phase: an admission webhook refused the Job, which never existed), `Failed` (retries exhausted: `maxRetry`; or every pod ended with fewer than `minAvailable` Succeeded), `Aborted` (`AbortJob`), `Terminated` (`TerminateJob`) (`Pending` until the outcome is written)"},
    {"podgroup_phase", "TEXT", "", kUpdate,
     "",
     "last PodGroup phase: `Pending`, `Inqueue`, `Running`, `Unknown` (a pod runs but the scheduler found the gang unschedulable: Volcano's jobStatus), `Completed`; NULL until the outcome is written"},
    {"inqueue_ns", "INTEGER", "ns", kUpdate,
     "",
     "the PodGroup became `Inqueue` (admitted by the `enqueue` action); NULL: never"},
    {"scheduled_ns", "INTEGER", "ns", kUpdate,
     "",
     "the last pod was bound: the whole gang is placed (the first time, for a job restarted after an eviction); NULL: never"},
    {"start_ns", "INTEGER", "ns", kUpdate,
     "",
     "the last pod was `Running` (the first time): without a `startup` block `torchrun` rendezvous completes and training starts; with one, the start-up phases begin (training starts at `training_start_ns`); NULL: never"},
    {"end_ns", "INTEGER", "ns", kUpdate,
     "",
     "all pods `Succeeded`; for a job ended by its lifecycle policies (`Failed`, `Aborted`, `Terminated`, `Completed` by `CompleteJob`), its last deleted pod gone; NULL: never"},
    {"nodes", "TEXT", "", kUpdate,
     "",
     "node names of the job's pods when its row is written (it ended, or the run did), comma-separated, in pod order (a torchrun gang keeps its Succeeded pods); NULL if never placed, or for a job of independent pods (`tasks`) whose pods are all gone: the `pods` table has each pod's node"},
    {"reason", "TEXT", "", kUpdate,
     "",
     "why the job was refused or is still pending, or the event and policy that ended it (`PodEvicted -> AbortJob: ...`); NULL otherwise"},
    {"restarts", "INTEGER", "", kUpdate,
     "",
     "the Volcano Job's `retryCount`: `RestartJob`, `RestartTask`, `RestartPod` actions taken while it was Pending or Running (evicted or failed pods); NULL until the outcome is written"},
    {"lost_training_s", "REAL", "s", kUpdate,
     "",
     "training progress those restarts threw away (since the last checkpoint of each attempt; in derived mode the time of the steps and part-step thrown away), redone later"},
    {"startup_s", "REAL", "s", kUpdate,
     "",
     "start-up, summed over attempts: first pod bound → training starts (bind latency, image pull, pod start-up, and with a `startup` block rendezvous, compilation and dataset read); for an attempt killed before it trained, first bind → killed; NULL until the outcome is written"},
    {"training_start_ns", "INTEGER", "ns", kUpdate,
     "",
     "the first time training started, after the start-up phases; NULL without a `startup` block or if it never started"},
    {"image_pull_s", "REAL", "s", kUpdate,
     "",
     "image pulls, summed over the job's attempts (per attempt: its longest pod pull; 0 where the nodes held the image); NULL without a `startup` block"},
    {"rendezvous_s", "REAL", "s", kUpdate,
     "",
     "`torchrun` rendezvous, summed over attempts; NULL without a `startup` block"},
    {"compile_s", "REAL", "s", kUpdate,
     "",
     "Neuron compilation (miss), wait for another job's compilation plus load (wait), or compile-cache load (hit), summed over attempts; NULL without a `startup` block"},
    {"compile_cache", "TEXT", "", kUpdate,
     "",
     "per attempt that reached compilation, in order: `hit`, `miss` or `wait`, comma-separated (e.g. `miss,hit`); NULL without a `startup` block or before any"},
    {"dataset_read_s", "REAL", "s", kUpdate,
     "",
     "dataset read from FSx for Lustre, summed over attempts; NULL without a `startup` block"},
    {"steps", "INTEGER", "optimizer steps", kInsert,
     "",
     "with `workload.duration_model` `derived`: the steps the job trains ([step model](step-model.md)); NULL in trace mode"},
    {"compute_s", "REAL", "s", kUpdate,
     "",
     "derived mode: kept training time spent computing (micro-steps and the per-step overhead); NULL in trace mode"},
    {"communication_s", "REAL", "s", kUpdate,
     "",
     "derived mode: kept training time in the gradient all-reduce (reduce-scatter, inter-node ring, all-gather); NULL in trace mode"},
    {"sync_s", "REAL", "s", kUpdate,
     "",
     "derived mode: kept training time waiting for stragglers (synchronisation term); NULL in trace mode"},
    {"step_s", "REAL", "s", kUpdate,
     "",
     "derived mode: step time of the placement of the job's last attempt (0 if it never trained); NULL in trace mode"},
};
// ---- pods
inline constexpr Column kPodsColumns[] = {
    {"job", "INTEGER NOT NULL REFERENCES jobs(job)", "", kInsert,
     "",
     "job id (`jobs.job`)"},
    {"pod", "INTEGER NOT NULL", "", kInsert,
     "",
     "replica index, `0 .. nnodes-1`"},
    {"event", "TEXT NOT NULL", "", kInsert,
     "",
     "`Created`, `Bound` (assigned to a node), `Running` (containers started), `Succeeded`; after an eviction: `Evicted` (the scheduler's preempt or reclaim action deleted the pod), `Killed` (the Volcano job controller deleted it: `RestartJob` kills every pod of the job), `Drained` (its node's drain at a Spot interruption notice evicted it; the job controller then applies the job's policy for `PodEvicted`), `TaintEvicted` (the taint manager deleted it, `PodEvicted`: its node failed and stayed NotReady past the pod's toleration of `node.kubernetes.io/unreachable:NoExecute`, 300 s by default — it stays Terminating until PodGC removes it, `Deleted` — or its `tolerationSeconds` of a NoExecute taint of its node group ran out, counted from its bind — `Deleted` after its termination grace period, at once if its containers had ended), `BindFailed` (the API server refused its binding to `node`, `lifecycle.bind_failure_probability`: it is Pending again and bound at a later cycle; its job's decision row has plugin `bind`), `Deleted` (gone after its termination grace period, its resources free; at once for a pod not on a node; on a failed node, when PodGC deletes it once the Node object is gone), `Failed` (its failed node's Node object was deleted: PodGC patched it Failed, `PodFailed`, and deletes it at once, `PodEvicted`; a Spot node's pod terminated with it; or its torchrun gave up after `workload.torchx.peer_failure_timeout` waiting for a lost peer: the pod stays, Failed, holding no resources, until the job controller deletes it); the job controller then applies the job's policy for `PodFailed`. A restarted job's missing pods are `Created` again once its PodGroup is admitted"},
    {"node", "TEXT", "", kInsert,
     "",
     "node the pod is on; NULL for `Created`"},
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the event"},
};
// ---- decisions
inline constexpr Column kDecisionsColumns[] = {
    {"job", "INTEGER NOT NULL REFERENCES jobs(job)", "", kInsert,
     "",
     "job id (`jobs.job`)"},
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "scheduling cycle in which the verdict was reached"},
    {"code", "TEXT NOT NULL", "", kInsert,
     "",
     "`Success`, `Unschedulable` (may fit when resources free up), `UnschedulableAndUnresolvable` (will not fit without a change to the cluster or the job), `Error`, `Wait`, `Skip`; from the job controller (plugin `job-controller`) after a pod event (`PodEvicted`, `PodFailed`) or the PodGroup's phase `Unknown` (event `Unknown`): the Volcano Job phase the action left, e.g. `Restarting` (`RestartJob`, `RestartTask`: the job waits again in its PodGroup), `Failed` (retries exhausted), `Aborting`, `Terminating`, `Completing`, or `Running` / `Pending` (`SyncJob`: no policy names the event); from `torchrun` with `Running`: the gang formed again with a replacement pod before its survivors timed out"},
    {"plugin", "TEXT", "", kInsert,
     "",
     "Volcano plugin or action that decided (e.g. `gang`, `predicates`, `proportion`, `enqueue`); NULL if none. `sla` with `Success`: the job was admitted to Inqueue because it had waited its `sla-waiting-time` (sla's Permit decided, the other plugins' votes did not count); `sla` with `Unschedulable`: past its waiting time, the job holds the idle resources allocate found for its pods until its whole gang fits (sla in a tier before gang's)"},
    {"reason", "TEXT", "", kInsert,
     "",
     "for the job controller: which pod was evicted (by which action) or failed (and why), the event and action (`PodEvicted -> RestartTask`), whose policy it was (the task's, the job's, or none: SyncJob), the retry count against `maxRetry`, the training lost (since the last checkpoint, or since the start) and the Volcano Job phase before and after; otherwise the message Volcano would show, e.g. `gang: 1/1 tasks in gang unschedulable: 0/32 nodes are unavailable: 32 Insufficient cpu.` (for each node the first insufficient resource in the order cpu, memory, aws.amazon.com/neuroncore, vpc.amazonaws.com/efa); NULL if none"},
};
// ---- phases
inline constexpr Column kPhasesColumns[] = {
    {"job", "INTEGER NOT NULL REFERENCES jobs(job)", "", kInsert,
     "",
     "job id (`jobs.job`)"},
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the transition"},
    {"from_phase", "TEXT NOT NULL", "", kInsert,
     "",
     "phase before: `Pending`, `Inqueue`, `Running`, `Unknown`, `Completed`"},
    {"to_phase", "TEXT NOT NULL", "", kInsert,
     "",
     "phase after (same values)"},
};
// ---- cluster_metrics
inline constexpr Column kClusterMetricsColumns[] = {
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the sample"},
    {"neuroncores_allocated", "REAL NOT NULL", "NeuronCores", kInsert,
     "",
     "NeuronCores held by pods (allocated on their nodes)"},
    {"neuroncores_total", "REAL NOT NULL", "NeuronCores", kInsert,
     "",
     "NeuronCores in the cluster"},
    {"allocation_ratio", "REAL", "fraction 0..1", kInsert,
     "",
     "`neuroncores_allocated / neuroncores_total`; NULL when the cluster has none"},
    {"jobs_pending", "INTEGER NOT NULL", "jobs", kInsert,
     "",
     "PodGroups `Pending` (waiting to be admitted to `Inqueue`)"},
    {"jobs_inqueue", "INTEGER NOT NULL", "jobs", kInsert,
     "",
     "PodGroups `Inqueue`, not yet running"},
    {"jobs_running", "INTEGER NOT NULL", "jobs", kInsert,
     "",
     "PodGroups `Running`"},
    {"pods_running", "INTEGER NOT NULL", "pods", kInsert,
     "",
     "pods in `Running`"},
};
// ---- node_events
inline constexpr Column kNodeEventsColumns[] = {
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the event"},
    {"node", "TEXT NOT NULL", "", kInsert,
     "",
     "node name, `<node group>-<index>` (a replacement or new node takes the group's next index)"},
    {"node_group", "TEXT NOT NULL", "", kInsert,
     "",
     "node group"},
    {"event", "TEXT NOT NULL", "", kInsert,
     "",
     "`Launching` (the autoscaler scaled out, or a failed or interrupted node is replaced), `Ready` (joined: schedulable), `Failed` (the instance failed: its kubelet went silent, its pods' containers died; Kubernetes still shows the node Ready), `NotReady` (the node monitor grace period passed: Ready Unknown, tainted `node.kubernetes.io/unreachable:NoExecute`), `Terminated` (the Auto Scaling group terminated the failed instance: billing stops, its replacement launches), `Deleted` (the Node object is deleted: its instance gone and the node NotReady), `Removed` (scaled in by the autoscaler), `SpotInterruptionNotice` (a Spot node got its two-minute notice: cordoned and drained), `SpotInterrupted` (terminated at the end of its notice), `NeuronNamesMixed` (the node's pods now request two of `aws.amazon.com/neuron`, `aws.amazon.com/neurondevice`, `aws.amazon.com/neuroncore`, which Kubernetes counts independently: the same device may be promised twice; once per node, [resources](resources.md#the-three-neuron-names))"},
    {"reason", "TEXT", "", kInsert,
     "",
     "why, e.g. `replaces trn1-0`, `scale-up: pending pods fit no existing node (desired 2)`; NULL if none"},
};
// ---- nodes
inline constexpr Column kNodesColumns[] = {
    {"node", "TEXT PRIMARY KEY", "", kInsert,
     "",
     "node name, `<node group>-<index>`, or a Node's own name from `cluster.nodes_from` (its replacement `<name>-1`, ...), as in "
     "`pods.node` and `node_events.node`"},
    {"node_group", "TEXT NOT NULL", "", kInsert,
     "",
     "node group (eksctl `nodeGroups[].name`; a node of `cluster.nodes_from` is a group of its own, named as the node), as in "
     "`node_events.node_group`"},
    {"instance_type", "TEXT NOT NULL", "", kInsert,
     "",
     "EC2 instance type of the node, one of its group's `instance_types`"},
    {"capacity_type", "TEXT NOT NULL", "", kInsert,
     "",
     "purchase option: `ON_DEMAND` or `SPOT` (EKS's values, which it sets as the node label `eks.amazonaws.com/capacityType` on the nodes of managed node groups; a self-managed group with `instances_distribution` gets no such label, its nodes are still one or the other)"},
    {"zone", "TEXT", "", kInsert,
     "",
     "the node group's `availability_zone`; NULL when the scenario gives the group none"},
    {"launch_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "when the node's instance launch was requested, which is when the run's cost starts counting it: 0 for the nodes at t = 0; for a later node, the time of its `Launching` row in `node_events`. The node joins the cluster (schedulable) later, at its `Ready` row in `node_events` (`faults.replacement_time` or the autoscaler's `launch_time` after the launch)"},
    {"end_ns", "INTEGER", "ns", kUpdate,
     "",
     "when the node left the cluster: the time of its `Terminated` (a failed node's instance terminated), `SpotInterrupted` (the end of its interruption notice, `faults.spot_notice`, two minutes by default; not the notice) or `Removed` row in `node_events`; NULL: still there when the run ended"},
    {"usd_per_hour", "REAL NOT NULL", "USD/h", kInsert,
     "",
     "the price the run's cost applies to the node: an `ON_DEMAND` node at its instance type's `on_demand_usd_per_hour` in the instance catalog; a `SPOT` node at its group's Spot price of its type (the catalog row's `spot` entry, or from `/cluster/spot_price_history` the newest Linux/UNIX price in the group's zone, without a zone the mean of each zone's newest)"},
    {"price_source", "TEXT NOT NULL", "", kInsert,
     "",
     "where `usd_per_hour` comes from: `ON_DEMAND`, the catalog row by file name and JSON pointer with the price's region (`aws-instance-types.json: /instance_types/5 on_demand_usd_per_hour, us-east-1`; the row's `source` cites the price, and the catalog is among the run's `inputs`); `SPOT`, the catalog row with its `spot` entry's region, date and source, or the Spot price history file with the zones and timestamps of the prices used"},
};
// ---- link_usage
inline constexpr Column kLinkUsageColumns[] = {
    {"start_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "start of the interval (`output.metrics_interval`)"},
    {"end_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "end of the interval (the last one ends with the run)"},
    {"link", "TEXT NOT NULL", "", kInsert,
     "",
     "link name: `<node>/efa-tx`, `<node>/efa-rx` (a node's EFA interfaces, each way), `leaf<i>/up`, `leaf<i>/down` (leaf/spine; leaves numbered over the whole fabric)"},
    {"bytes", "REAL NOT NULL", "bytes", kInsert,
     "",
     "carried in the interval"},
    {"utilisation", "REAL NOT NULL", "fraction", kInsert,
     "",
     "bytes × 8 / (capacity Gb/s × 10⁹ × interval s)"},
};
// ---- step_periods
inline constexpr Column kStepPeriodsColumns[] = {
    {"job", "INTEGER NOT NULL REFERENCES jobs(job)", "", kInsert,
     "",
     "`jobs.job`"},
    {"attempt", "INTEGER NOT NULL", "", kInsert,
     "",
     "0 for the first training start, +1 per restart"},
    {"start_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "start of the period"},
    {"end_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "end of the period"},
    {"nodes", "INTEGER NOT NULL", "", kInsert,
     "",
     "nodes of the job's all-reduce ring"},
    {"efa_gbps", "REAL", "Gb/s", kInsert,
     "",
     "EFA bandwidth granted to each of the job's nodes (its slowest ring hop) in the period; NULL for a single-node job"},
    {"step_s", "REAL NOT NULL", "s", kInsert,
     "",
     "optimizer step time in the period"},
    {"communication_s", "REAL NOT NULL", "s", kInsert,
     "",
     "of which the all-reduce (NeuronLink reduce-scatter and all-gather, EFA ring), per step"},
    {"steps", "REAL NOT NULL", "optimizer steps", kInsert,
     "",
     "progressed in the period, fractional: (`end_ns` − `start_ns`) / `step_s`"},
    {"end_reason", "TEXT NOT NULL", "", kInsert,
     "",
     "`retimed` (the grant changed), `completed`, `restarted` (evicted or its node failed; steps since the last checkpoint are lost, see `jobs.lost_training_s`), `run ended`"},
};
// ---- requests
inline constexpr Column kRequestsColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "", kInsert,
     "",
     "request id, dense in arrival order"},
    {"model", "INTEGER NOT NULL", "", kInsert,
     "",
     "model invoked (`TargetModel`)"},
    {"instance", "INTEGER", "", kInsert,
     "",
     "instance that answered; NULL: rejected before reaching one (507: the model fits no instance)"},
    {"arrival_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "the request reached the endpoint"},
    {"done_ns", "INTEGER", "ns", kInsert,
     "",
     "the answer left the endpoint (`arrival_ns` + overhead + waits + model latency); NULL: in flight at the end"},
    {"status", "INTEGER NOT NULL", "", kInsert,
     "",
     "HTTP status: `200`; `503` the model server's job queue was full (or it had no running worker, or no instance was in service); `507` no memory for the model; `424` ModelError, no answer within the invocation timeout (the container still ran it); `429` ModelNotReadyException, its model still downloading or loading at the timeout, or its download and load abandoned at the 360 s limit (`endpoint.model_load_limit_s`); `404` a SingleModel endpoint's server did not register the model (`server.load_models`; the caller gets ModelError with OriginalStatusCode 404); `0` in flight at the end (unserved at the end)"},
    {"overhead_latency_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "SageMaker's own share of the latency (CloudWatch **OverheadLatency**, there in µs)"},
    {"model_loading_wait_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time waiting for the model to be downloaded and/or loaded (**ModelLoadingWaitTime**); 0: none"},
    {"model_latency_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "entered the container's job queue → answered (**ModelLatency**)"},
    {"queue_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "part of `model_latency_ns` spent in the job queue and batch aggregation"},
    {"batch_size", "INTEGER NOT NULL", "requests", kInsert,
     "",
     "size of the batch the request ran in; 0: it did not run"},
    {"cache_hit", "INTEGER", "0/1", kInsert,
     "",
     "the model was loaded on the instance when the request arrived (**ModelCacheHit**); NULL on a SingleModel "
     "endpoint, for which CloudWatch publishes no ModelCacheHit (a multi-model metric)"},
};
// ---- model_events
inline constexpr Column kModelEventsColumns[] = {
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the event"},
    {"instance", "INTEGER NOT NULL", "", kInsert,
     "",
     "instance"},
    {"model", "INTEGER NOT NULL", "", kInsert,
     "",
     "model"},
    {"event", "TEXT NOT NULL", "", kInsert,
     "",
     "`DownloadStart`, `Downloaded` (artifact on the instance's disk), `LoadStart`, `Loaded` (in memory, ready for workers), `Unloaded` (out of memory), `ArtifactDeleted` (off the disk), `LoadFailed`"},
    {"bytes", "INTEGER NOT NULL", "bytes", kInsert,
     "",
     "artifact size for `DownloadStart`, `Downloaded`, `ArtifactDeleted`; memory the load needs for `LoadStart`, `Loaded`, `LoadFailed`; 0 when not given"},
    {"duration_ns", "INTEGER", "ns", kInsert,
     "",
     "for `Downloaded`, `Loaded`, `Unloaded`: how long it took (**ModelDownloadingTime**, **ModelLoadingTime**, **ModelUnloadingTime**); NULL for the other events"},
    {"reason", "TEXT", "", kInsert,
     "",
     "for `Unloaded` and `LoadFailed`: why (e.g. the cache policy's choice); NULL otherwise"},
};
// ---- worker_events
inline constexpr Column kWorkerEventsColumns[] = {
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the event"},
    {"instance", "INTEGER NOT NULL", "", kInsert,
     "",
     "instance"},
    {"model", "INTEGER NOT NULL", "", kInsert,
     "",
     "model whose pool changed"},
    {"event", "TEXT NOT NULL", "", kInsert,
     "",
     "`Added` (process starting), `Ready` (takes jobs), `Retired` (an idle temporary worker stopped by the idle rule), `Stopped` (the pool was stopped, e.g. the model unloaded), `ScaleUpSkipped` (a scale-up was due but not possible)"},
    {"temporary", "INTEGER NOT NULL", "0/1", kInsert,
     "",
     "1: a worker added by scaling above the pool's minimum"},
    {"workers_after", "INTEGER NOT NULL", "workers", kInsert,
     "",
     "running workers of the pool after the event"},
    {"reason", "TEXT", "", kInsert,
     "",
     "why, when the model says; NULL otherwise"},
};
// ---- instance_events
inline constexpr Column kInstanceEventsColumns[] = {
    {"t_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "time of the event"},
    {"instance", "INTEGER", "", kInsert,
     "",
     "instance; NULL for `DesiredChanged`"},
    {"event", "TEXT NOT NULL", "", kInsert,
     "",
     "`Launched`, `InService` (passed the health check: receives traffic from now on), `Terminated`, `DesiredChanged` (the endpoint's desired instance count changed, e.g. by autoscaling)"},
    {"desired_after", "INTEGER NOT NULL", "instances", kInsert,
     "",
     "desired instance count after the event"},
    {"reason", "TEXT", "", kInsert,
     "",
     "why, when the model says (e.g. the scaling decision); NULL otherwise"},
};
// ---- endpoint_metrics
inline constexpr Column kEndpointMetricsColumns[] = {
    {"start_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "start of the period"},
    {"end_ns", "INTEGER NOT NULL", "ns", kInsert,
     "",
     "end of the period (exclusive); the last period may be shorter, and includes its end"},
    {"invocations", "INTEGER NOT NULL", "requests", kInsert,
     "Invocations (Sum)",
     "requests answered, any status"},
    {"invocations_per_instance", "REAL NOT NULL", "requests", kInsert,
     "InvocationsPerInstance (Sum)",
     "`invocations` ÷ the mean number of in-service instances over the period (a last period of no length: those in service at its end)"},
    {"invocation_4xx_errors", "INTEGER NOT NULL", "requests", kInsert,
     "Invocation4XXErrors (Sum)",
     "answers with a 4xx status from the model: `404` from a SingleModel endpoint's server for a model not in its `load_models` (`424` and `429` are SageMaker's own answers, not counted here)"},
    {"invocation_5xx_errors", "INTEGER NOT NULL", "requests", kInsert,
     "Invocation5XXErrors (Sum)",
     "answers with a 5xx status (503, 507)"},
    {"invocation_model_errors", "INTEGER NOT NULL", "requests", kInsert,
     "InvocationModelErrors (Sum)",
     "answers `424` ModelError: the container did not answer within the invocation timeout (`endpoint.invocation_timeout_s`, 60 s)"},
    {"model_latency_count", "INTEGER NOT NULL", "requests", kInsert,
     "ModelLatency (SampleCount)",
     "`200` answers: the values behind the latency statistics"},
    {"model_latency_avg_us", "REAL", "µs", kInsert,
     "ModelLatency (Average)",
     ""},
    {"model_latency_p50_us", "REAL", "µs", kInsert,
     "ModelLatency (p50)",
     "exact type-7 quantile"},
    {"model_latency_p90_us", "REAL", "µs", kInsert,
     "ModelLatency (p90)",
     "exact type-7 quantile"},
    {"model_latency_p99_us", "REAL", "µs", kInsert,
     "ModelLatency (p99)",
     "exact type-7 quantile"},
    {"overhead_latency_avg_us", "REAL", "µs", kInsert,
     "OverheadLatency (Average)",
     ""},
    {"overhead_latency_p50_us", "REAL", "µs", kInsert,
     "OverheadLatency (p50)",
     "exact type-7 quantile"},
    {"overhead_latency_p90_us", "REAL", "µs", kInsert,
     "OverheadLatency (p90)",
     "exact type-7 quantile"},
    {"overhead_latency_p99_us", "REAL", "µs", kInsert,
     "OverheadLatency (p99)",
     "exact type-7 quantile"},
    {"model_cache_hit", "REAL", "fraction 0..1", kInsert,
     "ModelCacheHit (Average)",
     "share of the invocations whose model was loaded on the instance at arrival; NULL on a SingleModel "
     "endpoint, for which CloudWatch publishes no ModelCacheHit (a multi-model metric)"},
    {"model_loading_wait_time_count", "INTEGER NOT NULL", "requests", kInsert,
     "ModelLoadingWaitTime (SampleCount)",
     "invocations that waited for a download and/or load"},
    {"model_loading_wait_time_avg_us", "REAL", "µs", kInsert,
     "ModelLoadingWaitTime (Average)",
     "their mean wait"},
    {"model_downloading_time_count", "INTEGER NOT NULL", "downloads", kInsert,
     "ModelDownloadingTime (SampleCount)",
     "downloads from S3 ended in the period"},
    {"model_downloading_time_avg_us", "REAL", "µs", kInsert,
     "ModelDownloadingTime (Average)",
     "their mean duration"},
    {"model_loading_time_count", "INTEGER NOT NULL", "loads", kInsert,
     "ModelLoadingTime (SampleCount)",
     "loads ended in the period"},
    {"model_loading_time_avg_us", "REAL", "µs", kInsert,
     "ModelLoadingTime (Average)",
     "their mean duration"},
    {"model_unloading_time_count", "INTEGER NOT NULL", "unloads", kInsert,
     "ModelUnloadingTime (SampleCount)",
     "unloads ended in the period"},
    {"model_unloading_time_avg_us", "REAL", "µs", kInsert,
     "ModelUnloadingTime (Average)",
     "their mean duration"},
    {"loaded_model_count", "REAL NOT NULL", "models", kInsert,
     "LoadedModelCount (Sum)",
     "models loaded at the end of the period, summed over instances"},
    {"cpu_utilization_pct", "REAL NOT NULL", "%", kInsert,
     "CPUUtilization (Average)",
     "CPU busy time summed over the cores of an instance (each core 0–100 %, so a 72-vCPU instance reads up to 7200 %), averaged over the in-service instance-time of the period"},
    {"memory_utilization_pct", "REAL NOT NULL", "%", kInsert,
     "MemoryUtilization (Average)",
     "memory in use (models, workers, the reserved share) ÷ instance memory at the end of the period, over in-service instances"},
    {"instances_in_service", "INTEGER NOT NULL", "instances", kInsert,
     "",
     "in service at the end of the period"},
    {"workers", "INTEGER NOT NULL", "workers", kInsert,
     "",
     "running model-server workers at the end of the period, all instances and models"},
};

inline constexpr Table kRunMeta{"run_meta", Holder::Every, kRunMetaColumns, "key", ""};
inline constexpr Table kInputs{"inputs", Holder::Every, kInputsColumns, "", ""};
inline constexpr Table kJobs{"jobs", Holder::Training, kJobsColumns, "job", ""};
inline constexpr Table kPods{"pods", Holder::Training, kPodsColumns, "", "job"};
inline constexpr Table kDecisions{"decisions", Holder::Training, kDecisionsColumns, "", "job"};
inline constexpr Table kPhases{"phases", Holder::Training, kPhasesColumns, "", "job"};
inline constexpr Table kClusterMetrics{"cluster_metrics", Holder::Training, kClusterMetricsColumns, "", ""};
inline constexpr Table kNodeEvents{"node_events", Holder::Training, kNodeEventsColumns, "", ""};
inline constexpr Table kNodes{"nodes", Holder::Training, kNodesColumns, "node", ""};
inline constexpr Table kLinkUsage{"link_usage", Holder::Training, kLinkUsageColumns, "", ""};
inline constexpr Table kStepPeriods{"step_periods", Holder::Training, kStepPeriodsColumns, "", "job"};
inline constexpr Table kRequests{"requests", Holder::Inference, kRequestsColumns, "", "model"};
inline constexpr Table kModelEvents{"model_events", Holder::Inference, kModelEventsColumns, "", "model"};
inline constexpr Table kWorkerEvents{"worker_events", Holder::Inference, kWorkerEventsColumns, "", "model"};
inline constexpr Table kInstanceEvents{"instance_events", Holder::Inference, kInstanceEventsColumns, "", ""};
inline constexpr Table kEndpointMetrics{"endpoint_metrics", Holder::Inference, kEndpointMetricsColumns, "", ""};

/// Every table, in the order they are created (and documented).
inline constexpr const Table* kTables[] = {&kRunMeta,  &kInputs,       &kJobs,        &kPods,     &kDecisions,
                                           &kPhases,   &kClusterMetrics, &kNodeEvents, &kNodes,    &kLinkUsage,
                                           &kStepPeriods, &kRequests,  &kModelEvents, &kWorkerEvents,
                                           &kInstanceEvents, &kEndpointMetrics};

/// The view of training databases: per-job delays in seconds.
inline constexpr std::string_view kJobTimesView = R"sql(CREATE VIEW job_times AS
SELECT job, queue, phase,
       (scheduled_ns - submit_ns) / 1e9 AS queueing_s,
       (end_ns - submit_ns) / 1e9       AS jct_s,
       (start_ns - submit_ns) / 1e9     AS wait_to_start_s
FROM jobs;)sql";

// ---------------------------------------------------------------------------------------
// Slots, resolved at compile time

/// Number of columns of `t` written by `w` (kInsert or kUpdate).
constexpr int count(const Table& t, Written w) {
  int n = 0;
  for (const Column& c : t.columns) n += (c.written & w) != 0 ? 1 : 0;
  return n;
}
/// Position of `column` among the columns of `t` written by `w`, in table order; a column that
/// is not one of them does not compile.
consteval int slot(const Table& t, Written w, std::string_view column) {
  int i = 0;
  for (const Column& c : t.columns) {
    if ((c.written & w) == 0) continue;
    if (c.name == column) return i;
    ++i;
  }
  throw "results_schema: no such column written there";  // a compile error in a consteval call
}
/// The slot of `column` in a row of insert_sql(t): the recorder's RowBuffer::set(slot, value).
consteval int insert_slot(const Table& t, std::string_view column) { return slot(t, kInsert, column); }
/// The parameter number of `column` in update_sql(t) (?1 is the key).
consteval int update_param(const Table& t, std::string_view column) { return 2 + slot(t, kUpdate, column); }

// ---------------------------------------------------------------------------------------
// SQL and Markdown

/// "CREATE TABLE t (\n  col decl,\n ...\n);\n"
std::string create_table_sql(const Table& t);
/// "INSERT INTO t (a, b, ...) VALUES " and one row's "(?, ?, ...)": the columns written at insert.
std::string insert_sql(const Table& t);
std::string row_placeholders(const Table& t);
/// "UPDATE t SET a = ?2, ... WHERE key = ?1": the columns written by the update.
std::string update_sql(const Table& t);
/// "CREATE INDEX t_by_c ON t(c);\n", or "" for a table without an index.
std::string index_sql(const Table& t);
/// The column table of docs/results-schema.md for `t` (Markdown, one line per column).
std::string columns_markdown(const Table& t);
/// The CREATE INDEX statements of one kind of database, as a Markdown SQL block.
std::string indexes_markdown(Holder holder);
/// `page` (docs/results-schema.md) with its generated blocks rewritten: between
/// "<!-- columns: TABLE -->" and "<!-- end -->" the table's columns_markdown, between
/// "<!-- indexes: training -->" (or inference) and "<!-- end -->" its indexes_markdown. Throws
/// std::invalid_argument (with the line) for an unknown or repeated table, a block without its
/// end, or a table of the schema without a block.
std::string update_markdown(std::string_view page);

}  // namespace mltwin::store::schema
