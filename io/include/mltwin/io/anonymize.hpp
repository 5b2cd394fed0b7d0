// mltwin/io/anonymize.hpp — a training scenario with the cluster's own names replaced
// (`mltwin run --anonymize`, docs/privacy.md).
//
// A twin of a real cluster holds its node names (ip-10-42-3-10.us-west-2.compute.internal), its
// jobs' names and the paths of the files they were exported to. anonymize() renames them in a
// loaded scenario before the run, so nothing the run writes (the database, the summary, the
// snapshots) holds them: nodes read from kubectl become node-1, node-2, ..., jobs job-1, ...,
// queues queue-1, ..., input files <role>-<k>.<ext>. The NameMap says which is which; it is written beside the
// database, never into it, and `mltwin compare --name-map` reads it back.
//
// Aliases are numbered in the sorted order of the real names, zero-padded to one width, so
// that any comparison of two names the model makes (an ordering tie-break) decides as it did:
// a run and its anonymized run decide the same, name for alias (tests/e2e/test_anonymize.cpp).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/io/scenario.hpp"

namespace mltwin::io {

/// Real name -> alias, per kind.
struct NameMap {
  std::map<std::string, std::string> nodes;  ///< Nodes read from kubectl (cluster.nodes_from)
  std::map<std::string, std::string> jobs;   ///< every job of the workload
  /// every queue but Volcano's `root` (queues are often named after the teams, or namespaces)
  std::map<std::string, std::string> queues;
  std::map<std::string, std::string> files;  ///< input files, as the scenario writes them
  std::string scenario_file;                 ///< the scenario's file name (alias: "scenario.json")

  /// The map file's JSON: {"format": "mltwin-name-map/1", "scenario": {real: alias},
  /// "nodes": {...}, "jobs": {...}, "queues": {...}, "files": {...}}.
  nlohmann::json to_json() const;
  /// Reads a map file written by to_json(). Throws ScenarioError naming the file and the JSON
  /// path of what is wrong.
  static NameMap read(const std::string& path);
};

/// Renames, in `s` (its model, its document, its warnings and its summaries' file names):
///  - each Node read from kubectl (its name, its node group's, a label or selector value equal
///    to it, the held pods' DaemonSet selecting it, initial_state placements, faults);
///  - each job (TrainingJobSpec::name; pods and PodGroups take their names from it);
///  - each queue but `root` (queue-1, ...: its spec, its parent, its jobs');
///  - each input file (InputFileRef::as_written, as the inputs table records them; in the
///    document and in price sources);
/// and drops the document's `description` (free text, which may name anything). Node groups
/// the scenario defines itself (node_groups, eksctl) keep their names. Namespaces are not
/// renamed because no run holds one: mltwin's jobs have no namespace (docs/privacy.md).
/// Returns the map. Throws ScenarioError if an alias could equal a node of a group it keeps.
NameMap anonymize(LoadedScenario& s);

}  // namespace mltwin::io
