// io/src/scenario_common.hpp — internal helpers shared by the scenario loaders (training and
// inference): reading a JSON file with line:column errors, validating it against a JSON Schema
// compiled into the binary with messages that name the JSON path and the expected type, and
// the value encodings every scenario uses (durations, latency distributions, ${MLTWIN_DATA}).
// Not installed; only io/src/*.cpp include it.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <optional>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "mltwin/core/time.hpp"
#include "mltwin/io/scenario.hpp"  // InputFileRef
#include "mltwin/k8s/input.hpp"
#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/k8s/text.hpp"
#include "mltwin/models/catalog.hpp"
#include "mltwin/models/training.hpp"  // LatencySpec, QueueSpec, TrainingJobSpec
#include "mltwin/policy/config.hpp"
#include "mltwin/policy/resource.hpp"
#include "mltwin/policy/spelling.hpp"

namespace mltwin::io::detail {

/// Throws ScenarioError "file: where: what".
[[noreturn]] void fail(const std::string& file, const std::string& where, const std::string& what);

/// While one is alive (on this thread), entries of the scenario's arrays were read from YAML the
/// user wrote: node groups from an eksctl ClusterConfig (/cluster/node_groups), Volcano Jobs from
/// workload.manifests (/workload/jobs). An error fail() raises at ARRAY/N... is located at that
/// YAML object (places[ARRAY][N], "file:line:column: path 'name'" or "file:line:column: Job
/// 'name'"), the scenario's own JSON pointer following in parentheses.
class YamlOrigins {
 public:
  /// The JSON pointer of an array ("/cluster/node_groups") -> the YAML place of each entry.
  using Places = std::map<std::string, std::vector<std::string>>;
  explicit YamlOrigins(Places places);
  ~YamlOrigins();
  YamlOrigins(const YamlOrigins&) = delete;
  YamlOrigins& operator=(const YamlOrigins&) = delete;
  /// The YAML place of the array entry that JSON pointer `where` lies in, or nullptr.
  static const std::string* place(std::string_view where);

 private:
  Places places_;
  const YamlOrigins* outer_;
};

/// "line:column" (1-based) of a byte offset in `text`.
std::string line_col(const std::string& text, std::size_t byte);

/// A JSON object key as a JSON pointer token (mltwin/k8s/text.hpp).
using k8s::pointer_token_of;

/// Safe-to-print text (mltwin/k8s/text.hpp).
using k8s::printable;

// "did you mean": mltwin/policy/spelling.hpp (edit_distance, near_strings, did_you_mean).
using policy::did_you_mean;
using policy::edit_distance;
using policy::near_strings;
using k8s::control_character_problem;
/// Throws ScenarioError "file: /json/path: control character ..." for the first string or key
/// of `doc` with a control character (`where` is doc's own JSON pointer, "" for the root).
void check_printable(const std::string& file, const nlohmann::json& doc, const std::string& where = "");

/// Input files within their size limits (mltwin/k8s/input.hpp).
using k8s::check_input_file;
using k8s::read_input_file;

/// Parses JSON text: a syntax error, a number out of range ("1e400") or a key given twice in
/// one object throws ScenarioError "path:L:C: ..." (the duplicate's JSON pointer in the text).
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

/// Reads (read_input_file, at most kMaxScenarioFileBytes) and parses (parse_json_text) a JSON file.
nlohmann::json read_json_file(const std::string& path);

/// A JSON Schema (draft-07) compiled once from text embedded in the binary.
class SchemaValidator {
 public:
  explicit SchemaValidator(const char* schema_text);
  ~SchemaValidator();
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;
  /// Throws ScenarioError "file: /json/path: what" for the deepest violation; a wrong type
  /// says which type(s) the schema expects there ("expected integer, got string \"4\"").
  /// `mount` is where `doc` stands in the file (a JSON pointer prefixed to every path; "" for
  /// the root).
  void validate(const std::string& file, const nlohmann::json& doc, const std::string& mount = "") const;
  const nlohmann::json& schema() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The minor version of a Kubernetes version written "1.<minor>" (as eksctl's metadata.version
/// and /cluster/kubernetes_version write it: "1.29", "1.32"); nullopt for any other text.
std::optional<int> kubernetes_minor_of(const std::string& text);

/// Throws ScenarioError unless `doc` says "schema_version": kScenarioSchemaVersion; a version-1
/// scenario (no schema_version) is told the new form and the migrate command.
void check_schema_version(const std::string& file, const nlohmann::json& doc);

/// A scenario's instance catalog: the shipped catalog's rows, with the scenario's own
/// /catalog/instance_types added (a new name) or put in place of the shipped row (a name the
/// shipped catalog has).
struct ScenarioCatalog {
  models::Catalog catalog;
  std::string shipped_path;         ///< the shipped catalog file that was read
  std::vector<std::string> where;   ///< per row of catalog.types: "<shipped_path>: /instance_types/N" or "/catalog/instance_types/N"
  bool scenario_rows = false;       ///< the scenario gave rows of its own

  /// The row named `name`; else throws ScenarioError "file: at: 'name' is not in the catalog
  /// (<shipped_path>, ...); near: ...".
  const models::InstanceType& require(const std::string& file, const std::string& at, const std::string& name) const;
  /// "'name' is not in the catalog (...)" with near names, for messages at other places.
  std::string missing(const std::string& name) const;
  /// Where the row named `name` comes from ("" if none).
  std::string row_where(const std::string& name) const;
  /// The same with the catalog file named by its file name, not its folder: what a run's
  /// results may record (no folder of the machine), e.g. "aws-instance-types.json:
  /// /instance_types/5" or "/catalog/instance_types/0 (in place of the shipped row)".
  std::string row_where_recorded(const std::string& name) const;
  /// Throws ScenarioError at `at` unless the row named `name` has an on-demand price.
  void require_price(const std::string& file, const std::string& at, const std::string& name) const;
  /// What makes the catalog type `name` wrong where it is used, or empty: SageMaker hosting
  /// instance types are named ml.*; an EKS node group launches EC2 types (no ml.), a SageMaker
  /// endpoint ml.* types.
  enum class Use { EksNodeGroup, SageMakerEndpoint };
  std::string use_problem(const std::string& name, Use use) const;
};

/// The shipped catalog (io::find_catalog(explicit_catalog)) merged with the scenario's
/// /catalog/instance_types (doc is schema-checked). Records the catalog file in `inputs` by its
/// file name (role "instance_catalog"). Throws ScenarioError.
ScenarioCatalog scenario_catalog(const std::string& file, const nlohmann::json& doc, const std::string& explicit_catalog,
                                 std::vector<InputFileRef>& inputs);

/// The scenario's "name", checked: it names the default results file (letters, digits, '.', '_',
/// '-'; no path separator). Throws ScenarioError at /name.
std::string scenario_name_of(const std::string& file, const nlohmann::json& doc);
/// The scenario's "seed" (default 1), at most 2^63 - 1 (SQLite keeps it as a signed integer).
std::uint64_t seed_of(const std::string& file, const nlohmann::json& doc);

/// A duration: a number of seconds or a string with a unit ("100ms", "60s", "5m"), at most
/// kMaxScenarioTime either side of zero (else ScenarioError at `where`).
core::Duration duration_of(const std::string& file, const std::string& where, const nlohmann::json& v);

/// A latency distribution as scenarios write it: {"constant": d} | {"uniform": [a, b]} |
/// {"exponential_mean": d}, each with "source".
models::LatencySpec latency_of(const std::string& file, const std::string& where, const nlohmann::json& v);

/// Replaces every ${MLTWIN_DATA} in `text` with `data_dir`.
std::string expand_data(const std::string& text, const std::string& data_dir);

/// A data path as written in a scenario, resolved: ${MLTWIN_DATA} expanded (resolving the data
/// folder into `data_dir` on first use), else relative to the scenario file's folder.
std::string resolve_input_path(const std::string& as_written, const std::string& scenario_path,
                               const std::string& explicit_data_dir, std::string& data_dir);

/// A Kubernetes resource list ({"cpu": "500m", "aws.amazon.com/neurondevice": 16}) ->
/// policy::Resource as Volcano's NewResource counts it: exactly the names `obj` has. Errors
/// name `where`/<resource name>.
/// ScenarioError at `where` of the scenario when `resolved` (what resolve_input_path made of
/// `as_written`) does not exist: the message gives the key, the path as written and the path
/// read (absolute), and for a relative path the folder it is read from.
void require_input(const std::string& scenario_path, const std::string& where, const std::string& as_written,
                   const std::string& resolved);

policy::Resource resources_of(const std::string& file, const std::string& where, const nlohmann::json& obj);

/// A double as Go's encoding/json writes it (mltwin/k8s/resources.hpp).
using k8s::go_json_float;

using k8s::arg_text;

using k8s::scheduler_config_of;

/// The queue tree's first problem (spec.parent, for the capacity plugin's hierarchy), as
/// Volcano's queue admission webhook and controller refuse it: a parent that is not a queue
/// (the implied "root" always is), a queue that is its own ancestor, a "root" queue with a
/// parent. Returns the message and sets `at` to the offending queue's index; empty if none.
std::string queue_tree_problem(const std::vector<models::QueueSpec>& queues, std::size_t& at);

/// Why a job may not be submitted to `queue` (Volcano's job admission webhook, admit_job.go:
/// not the root queue, only leaf queues); empty if it may.
std::string leaf_queue_problem(const std::vector<models::QueueSpec>& queues, const std::string& queue);

/// What a scenario document defines that a job names: its queues (with queues_from's, expanded
/// before; the tree, since only leaf queues take jobs) and its PriorityClasses (with Kubernetes'
/// system-cluster-critical and system-node-critical). For the job loaders that check the names
/// of jobs read from files (workload.history, cluster.pods_from).
struct DefinedNames {
  std::set<std::string> queues, classes;
  /// The queues a job can be submitted to: not root, no child queue (leaf_queue_problem), for
  /// the list an "is not defined" error offers.
  std::set<std::string> leaves;
  std::vector<models::QueueSpec> tree;  ///< names and parents
  /// "a, b, c" (after 8: ", ...") for an error message.
  static std::string list(const std::set<std::string>& names);
};
DefinedNames defined_names(const nlohmann::json& doc);

/// A scenario queue entry (schema: /queues/N) -> models::QueueSpec.
models::QueueSpec queue_of(const std::string& file, const std::string& where, const nlohmann::json& q);

/// An inline job entry (schema: /workload/jobs/N) -> models::TrainingJobSpec; `index` becomes
/// its trace_row. Checks that submit is not negative, and the node affinity and tolerations
/// (k8s_objects.hpp); not that its queue exists. A priority_class is kept by name (priority
/// stays as written, 0 if absent): the caller resolves it (PriorityClasses::resolve).
models::TrainingJobSpec job_of(const std::string& file, const std::string& where, const nlohmann::json& j,
                               std::size_t index, int cores_per_device);

/// The PriorityClasses a scenario defines (/priority_classes, and those of its manifests) and
/// Kubernetes' two system classes (pkg/apis/scheduling/types.go: system-cluster-critical
/// 2,000,000,000, system-node-critical 2,000,001,000).
class PriorityClasses {
 public:
  PriorityClasses();
  /// Adds /priority_classes (schema-checked): names unique, not "system-..." (reserved), at
  /// most one globalDefault. Errors name `file` and the JSON path.
  void add_json(const std::string& file, const nlohmann::json& list);
  bool has(const std::string& name) const;
  /// The job's priority: its priority_class's value; else its own `priority` when it gave one;
  /// else the globalDefault class's value; else 0 (Kubernetes' Priority admission plugin).
  int resolve(const models::TrainingJobSpec& j, bool priority_given) const;
  /// Whether the job's pods get preemptionPolicy Never: its priority_class's policy; a job that
  /// gives its own `priority` has no class; else the globalDefault class's (Kubernetes' Priority
  /// admission plugin copies the class's preemptionPolicy into the pod's spec).
  bool preempt_never(const models::TrainingJobSpec& j, bool priority_given) const;
  std::string names() const;  ///< "a, b, ..." (user classes, then the system ones)

 private:
  struct Class {
    std::string name;
    int value = 0;
    bool never = false;  ///< preemptionPolicy Never
  };
  std::vector<Class> classes_;
  std::optional<int> global_default_;
  bool global_default_never_ = false;
  std::string global_default_name_;
};

}  // namespace mltwin::io::detail
