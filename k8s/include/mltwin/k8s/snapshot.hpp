// mltwin/k8s/snapshot.hpp — a cluster's scheduling state as kubectl prints it, read into the
// objects the policy library's SchedulerCache takes, and written back from a ClusterState.
//
// Reading: what `kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json` (or -o yaml)
// prints — a `v1 List` of mixed kinds — or a single object, from one or more files (they add up to one
// snapshot). Each field used is read as the Kubernetes API reference defines it (core/v1 Node,
// Pod; scheduling.k8s.io/v1 PriorityClass) and as Volcano v1.12.1's CRDs define theirs
// (scheduling.volcano.sh/v1beta1 PodGroup, Queue), and turned into what Volcano's scheduler cache
// makes of it (pkg/scheduler/api/job_info.go NewTaskInfo, pod_info.go, node_info.go,
// cache/cache.go Snapshot). docs/mltwin-scheduler.md lists the fields.
//   - Objects of other kinds are skipped, one note per kind ("skipped 12 objects of kind
//     Service"); each is dropped as soon as it is parsed, so no Secret is kept (its bytes pass
//     through the file's text and the parser, nothing more).
//   - Fields that can hold secrets or bulk are dropped while parsing, never stored: containers'
//     `env` and `envFrom`, `metadata.managedFields`, and the annotation
//     kubectl.kubernetes.io/last-applied-configuration (a copy of the whole object, env included).
//   - Bad input throws InputError naming the file and the JSON path ("cluster.json:
//     /items/3/spec/containers/0/resources/requests/cpu: ..."); a JSON syntax error gives the
//     line and column.
//
// Writing: write_list turns a ClusterState (the twin's, at a session's opening) into the List
// the reader reads back to the same state, so that mltwin-scheduler decides on it exactly as
// the twin did (tests/k8s, tests/e2e/test_agreement).
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mltwin/k8s/input.hpp"
#include "mltwin/policy/cluster_state.hpp"
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/scheduler_cache.hpp"

namespace mltwin::k8s {

/// A PriorityClass (scheduling.k8s.io/v1).
struct PriorityClass {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  bool preempt_never = false;  ///< preemptionPolicy Never (default PreemptLowerPriority)
};

/// A PodGroup as read, with the name of its PriorityClass (resolved when the snapshot is loaded:
/// the classes may come later in the input).
struct PodGroupRead {
  policy::PodGroupObject object;
  std::string priority_class_name;  ///< spec.priorityClassName
};

/// What mltwin writes beside the Kubernetes objects of a twin's snapshot, as a ConfigMap named
/// mltwin-snapshot in namespace mltwin-system (kSnapshotConfigMap): the session's time and the
/// scheduler's tie-break stream, so that a cycle on the snapshot repeats the twin's session.
/// A cluster's own snapshot has none.
struct SnapshotMeta {
  std::optional<policy::TimeNs> now;         ///< data.now (RFC 3339), ns since the Unix epoch
  std::optional<std::string> tiebreak_state;  ///< data.tiebreakState: the std::mt19937_64 state as text
  /// data["volcano-scheduler.conf"]: the configuration the twin's scheduler ran, as the file
  /// (parse_volcano_scheduler_config), and where it was read ("file (data.volcano-scheduler.conf
  /// of mltwin-system/mltwin-snapshot)").
  std::optional<std::string> scheduler_conf;
  std::string scheduler_conf_source;
  std::string scheduler_conf_file;  ///< the file it was read from
};
inline constexpr const char* kSnapshotConfigMap = "mltwin-system/mltwin-snapshot";

/// What a scenario's cluster.pods_from reads of a Pod beyond what the scheduler's cache takes
/// (kept only with ReadOptions::pod_details).
struct PodDetails {
  std::string phase = "Pending";        ///< status.phase as written (Pending when absent: the API's default)
  std::string scheduler;                ///< spec.schedulerName (default-scheduler when absent, SetDefaults_PodSpec)
  std::optional<policy::TimeNs> start;  ///< status.startTime (the kubelet's acknowledgement), ns since the Unix epoch
  bool deleting = false;                ///< metadata.deletionTimestamp is set
  std::string controller_kind;          ///< metadata.ownerReferences: the kind of the entry with controller true, "" if none
  /// metadata.annotations named in ReadOptions::keep_annotations (no other annotation is kept).
  std::map<std::string, std::string> annotations;
};

/// A cluster's scheduling objects.
struct Snapshot {
  std::vector<policy::QueueObject> queues;
  std::vector<policy::NodeObject> nodes;
  std::vector<PodGroupRead> podgroups;
  std::vector<policy::PodObject> pods;
  std::vector<PriorityClass> priority_classes;
  SnapshotMeta meta;
  /// With ReadOptions::pod_details: per pod ("namespace/name"), what PodDetails lists; per
  /// PodGroup ("namespace/name"), its annotations named in ReadOptions::keep_annotations.
  std::unordered_map<std::string, PodDetails> pod_details;
  std::unordered_map<std::string, std::map<std::string, std::string>> podgroup_annotations;
  /// Where each object was read ("Pod default/p" -> "cluster.json: /items/12", from YAML
  /// "cluster.yaml:40:3: /items/12"; N is the item's index as written, objects of skipped
  /// kinds counted): a second object
  /// of one kind and name is an error naming both places.
  std::unordered_map<std::string, std::string> origin;
  /// With ReadOptions::pod_details, per YAML input as origin names it ("f.yaml", or
  /// "f.yaml (YAML document 2)"): the file and the "line:column" of each JSON pointer read from
  /// it (with_line turns an origin into a place with its line).
  struct YamlLines {
    std::string file;
    std::map<std::string, std::string, std::less<>> lines;
  };
  std::map<std::string, YamlLines> yaml_lines;
  /// One line per kind skipped, and per pod left to another scheduler ("skipped 3 objects of
  /// kind Service (mltwin-scheduler reads Node, Pod, PodGroup, Queue, PriorityClass)").
  std::vector<std::string> notes;
};

struct ReadOptions {
  /// Pods whose spec.schedulerName is another scheduler's only hold their node's resources
  /// (Volcano's cache: event_handlers.go addPod, responsibleForPod). volcano-scheduler's
  /// --scheduler-name flag, default "volcano".
  std::vector<std::string> scheduler_names = {"volcano"};
  /// Keep Snapshot::pod_details and podgroup_annotations (a scenario's cluster.pods_from).
  bool pod_details = false;
  /// The annotations kept there, by exact key (e.g. the duration model's "mltwin.io/duration");
  /// every other annotation is read and dropped.
  std::vector<std::string> keep_annotations;
};

/// Parses kubectl JSON `text` (a List or one object) and adds its objects to `into`. `file`
/// names the input in errors. Throws InputError.
void read_json(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts = {});
/// The same for what `kubectl get ... -o yaml` prints (one or more YAML documents): each
/// document typed as sigs.k8s.io/yaml turns it into JSON, then read as read_json reads it
/// (errors give the line and column of the value, or of the nearest enclosing one, and the
/// JSON path inside its document: "pods.yaml:12:7: /items/2/spec/queue: ..."; so does
/// Snapshot::origin; a YAML syntax error, the line and column).
void read_yaml(std::string_view text, const std::string& file, Snapshot& into, const ReadOptions& opts = {});
/// A message that starts with an origin and a JSON path below it ("f.yaml: /items/2/spec/queue:
/// ...") of a YAML input of `snap` (Snapshot::yaml_lines), with the line and column of that path
/// (or of the nearest enclosing value) instead: "f.yaml:40:12: /items/2/spec/queue: ...". Any
/// other message as it is.
std::string with_line(const Snapshot& snap, const std::string& message);
/// Reads a file (a regular file of at most kMaxDataFileBytes, 4 GiB): JSON when it starts with
/// '{' or '[', else YAML. Throws InputError.
void read_file(const std::string& path, Snapshot& into, const ReadOptions& opts = {});

/// Hands the snapshot's objects to `cache` in the order an informer's first list would (queues,
/// nodes, PodGroups, pods), resolving each PodGroup's priority as Volcano's cache does
/// (cache.go:1380-1390 Snapshot: the value of its spec.priorityClassName, else of the
/// globalDefault class, else 0). Throws std::invalid_argument from the cache (e.g. two objects
/// with one name).
void load(const Snapshot& snap, policy::SchedulerCache& cache);

/// Requests (policy::Resource units) as the quantities of a Kubernetes `resources.requests`
/// object: cpu in millicores ("1500m", or "2" when whole), memory in bytes, other resources
/// from milli-units; `pods` left out. Throws std::invalid_argument for an amount that is not a
/// whole number of those units.
nlohmann::json requests_json(const policy::Resource& r);
/// A node affinity as core/v1 NodeAffinity's JSON (requiredDuringSchedulingIgnoredDuringExecution
/// and preferredDuringSchedulingIgnoredDuringExecution, each present when set), as write_list
/// writes a pod's.
nlohmann::json node_affinity_json(const policy::NodeAffinity& a);

/// RFC 3339 time (metav1.Time: "2024-05-01T12:00:00Z", fractional seconds and numeric offsets
/// accepted) as ns since the Unix epoch; nullopt if malformed.
std::optional<policy::TimeNs> parse_rfc3339(std::string_view text);
/// ns since the Unix epoch as RFC 3339 in UTC, fractional seconds only when not whole.
std::string format_rfc3339(policy::TimeNs t);

/// Where mltwin's runs put their time 0 in the snapshots they write (runner: `mltwin run
/// --snapshot-at`, mltwin.Run.snapshot()): 2000-01-01T00:00:00Z, 946,684,800 s after the Unix
/// epoch. Not 1970-01-01T00:00:00Z, which kubectl readers (and cluster.pods_from) cannot tell
/// from a timestamp left unset (metav1.Time's zero value serialises as null, a Go zero time).
inline constexpr policy::TimeNs kTwinEpoch = 946'684'800LL * 1'000'000'000LL;

struct WriteOptions {
  /// Where the state's time 0 lies, ns since the Unix epoch (creation timestamps are epoch +
  /// the state's time); written as the ConfigMap's data.epoch.
  policy::TimeNs epoch = 0;
  /// Written as SnapshotMeta when set.
  std::optional<std::string> tiebreak_state;
  /// The session's time in the state's clock (SnapshotMeta::now = epoch + it); default
  /// state.now(), the time of the state's last session.
  std::optional<policy::TimeNs> now;
  /// The scheduler's configuration, written as SnapshotMeta::scheduler_conf when set.
  std::optional<policy::SchedulerConfig> config;
  std::string ns = "default";  ///< the namespace of pods and PodGroups
  /// The PriorityClasses the twin defines (a scenario's priority_classes): written as they are,
  /// and a PodGroup's spec.priorityClassName is its job's class from job_priority_class (job
  /// name -> class name) when that class has the job's priority. A job without a class whose
  /// priority is what no class name resolves to (the globalDefault class's value, else 0) names
  /// none; any other job names a class written for its value, mltwin-priority-N (as when both
  /// are empty).
  std::vector<PriorityClass> priority_classes;
  std::unordered_map<std::string, std::string> job_priority_class;
};

/// The state as the `v1 List` kubectl would print for its Nodes, Pods, PodGroups, Queues and
/// PriorityClasses, plus the mltwin-snapshot ConfigMap (now = epoch + opts.now or state.now()).
/// The same file reads back as a scenario's cluster.nodes_from, cluster.pods_from (its `now`
/// defaults to the ConfigMap's) and queues_from (docs/scenarios.md). Reading it
/// back gives the same scheduling state: same names, priorities, requests, creation times, UIDs
/// (the 64-bit order key as the UID's first half), phases and placements. A node's DaemonSet
/// requests become pods of another scheduler in kube-system, one per pod counted. Throws
/// std::invalid_argument for a state it cannot write faithfully (a task in an in-session status:
/// Allocated or Pipelined).
nlohmann::json write_list(const policy::ClusterState& state, const WriteOptions& opts = {});

}  // namespace mltwin::k8s
