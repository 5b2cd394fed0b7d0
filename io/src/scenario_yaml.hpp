// io/src/scenario_yaml.hpp — a scenario's references to the cluster's real configuration
// (volcano.scheduler_config, cluster.eksctl, queues_from, workload.manifests), replaced by the
// scenario entries they stand for. Not installed; implemented in scenario_yaml.cpp.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/io/scenario.hpp"
#include "scenario_common.hpp"  // ScenarioCatalog

namespace mltwin::io::detail {

/// Reads every file `doc` references (paths relative to the scenario file, ${MLTWIN_DATA}
/// expanded as for traces) and rewrites `doc` in place: the scheduler ConfigMap into
/// volcano.actions/tiers/configurations, the eksctl node groups into cluster.node_groups, the
/// Queue manifests appended to queues, the Volcano Jobs into workload.jobs (with their maxRetry
/// and lifecycle policies as max_retry, policies, task_policies). Each file read is appended to
/// `inputs`. The eksctl node groups' instance types must be in `catalog`. Expects a document
/// the schema has checked. Throws ScenarioError naming the YAML file, line, column and path, or
/// the scenario and its JSON path.
/// `origins`: the YAML place of each entry read from a file (for YamlOrigins): under
/// "/cluster/node_groups" the eksctl node groups, under "/workload/jobs" the manifests' Jobs, in
/// the order of those arrays. `warnings`: the scheduler ConfigMap's plugin-argument warnings at
/// their YAML places.
void expand_config_files(const std::string& scenario_path, nlohmann::json& doc, const std::string& explicit_data_dir,
                         std::string& data_dir, std::vector<InputFileRef>& inputs, const ScenarioCatalog& catalog,
                         YamlOrigins::Places& origins, std::vector<std::string>& warnings);

/// workload.history (job_history.cpp, after expand_config_files: the queues of queues_from are
/// known): reads the job history CSV (mltwin/io/job_history.hpp) and rewrites it as
/// workload.jobs, one Job of independent pods per row: submit = its submit_time less the
/// file's earliest, each task's duration = end_time - start_time, or the unfinished_duration
/// model's for a job without end_time. Checks each row's queue and priority_class against the
/// scenario ("FILE:LINE: column C: ..."). `origins` gets each row's "FILE:LINE: Job 'name'"
/// under "/workload/jobs"; `use` what was read, for the run summary. Jobs the twin cannot model
/// (HistoryJob::unmodelled) are left out, each a line in `warnings`. `seed`: the run seed, for
/// the history_distribution model's draws (stream "history.run_time").
void expand_job_history(const std::string& scenario_path, nlohmann::json& doc, const std::string& explicit_data_dir,
                        std::string& data_dir, std::vector<InputFileRef>& inputs, YamlOrigins::Places& origins,
                        std::optional<JobHistoryUse>& use, std::uint64_t seed, std::vector<std::string>& warnings);

/// cluster.pods_from (pods_from.cpp, after expand_job_history): reads the Pods and PodGroups of
/// kubectl exports and rewrites them as workload.jobs (every PodGroup, submitted at 0s),
/// initial_state.running (the PodGroups whose pods run on nodes) and cluster.daemonsets (the
/// pods of other schedulers, held on their node). `origins` gets each entry's place in the
/// files; `use` what was read, for the run summary. `seed`: the run seed, for the
/// history_distribution model's draws (stream "history.run_time").
void expand_pods_from(const std::string& scenario_path, nlohmann::json& doc, const std::string& explicit_data_dir,
                      std::string& data_dir, std::vector<InputFileRef>& inputs, YamlOrigins::Places& origins,
                      std::optional<PodsFromUse>& use, std::uint64_t seed, std::vector<std::string>& warnings);

}  // namespace mltwin::io::detail
