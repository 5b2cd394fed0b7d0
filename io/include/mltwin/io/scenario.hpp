// mltwin/io/scenario.hpp — reading a scenario file into a models::TrainingScenario.
//
// A scenario is JSON validated against scenarios/schema/scenario.schema.json (draft-07, every
// object closed: unknown keys are errors). Errors never crash or half-load: they throw
// ScenarioError, whose message names the file and the JSON path or CSV line and says what was
// expected, e.g.
//   scenarios/x.json: /queues/2/weight: Value is below minimum (expected an integer >= 1)
//   ../shared/data/training/philly/philly.csv:1045: num_gpus: expected an integer, got 'x'
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/models/training.hpp"

namespace mltwin::io {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The Volcano release the scheduler reproduces; a scenario must name this one.
inline constexpr const char* kVolcanoRelease = "v1.12.1";

struct InputFileRef {
  std::string role;        ///< e.g. "philly_trace"
  std::string path;        ///< as resolved: the file that was opened
  std::string as_written;  ///< as written in the scenario, e.g. "${MLTWIN_DATA}/training/philly/philly.csv":
                           ///< the same wherever the run starts and wherever the data folder is
};

struct LoadedScenario {
  std::string path;            ///< the scenario file, as given
  nlohmann::json json;         ///< the document after overrides
  std::string name;
  std::uint64_t seed = 1;
  models::TrainingScenario training;
  std::vector<InputFileRef> inputs;  ///< data files read (hashed into the run metadata)
  std::string data_dir;        ///< what ${MLTWIN_DATA} expanded to (empty if unused)
};

struct LoadOptions {
  /// JSON merge patch (RFC 7386) applied before validation, e.g. {"workload":{"philly":{"max_jobs":5000}}}.
  nlohmann::json overrides;
  /// Overrides $MLTWIN_DATA when non-empty.
  std::string data_dir;
  /// The scenario document itself, when it does not come from a file (e.g. a dict built in
  /// Python): the loaders then read no file, `path` names the scenario in error messages, and
  /// its folder anchors relative data paths and the search for shared/data.
  const nlohmann::json* document = nullptr;
};

/// Reads, patches, validates and builds a scenario (and reads its trace). Throws ScenarioError.
LoadedScenario load_scenario(const std::string& path, const LoadOptions& opts = {});

/// Parses a Kubernetes quantity ("500m", "32Gi", "1.5", 16) into a plain number in the base
/// unit (cores, bytes, count). Throws std::invalid_argument naming the text.
double parse_quantity(const nlohmann::json& q);

/// Resolves the data folder: `explicit_dir`, else $MLTWIN_DATA, else the first `shared/data`
/// folder found walking up from `start_dir`. Throws ScenarioError if none exists.
std::string resolve_data_dir(const std::string& explicit_dir, const std::string& start_dir);

}  // namespace mltwin::io
