// mltwin/io/inference_scenario.hpp — reading an inference scenario file into a
// models::inference::InferenceScenario.
//
// An inference scenario is JSON with "kind": "inference" and "schema_version": 2, validated
// against scenarios/schema/inference.schema.json (draft-07, compiled into the binary; every
// object closed: unknown keys, including unknown serving.properties keys, are errors). Its
// endpoint names a SageMaker instance type (ml.*) of the shipped catalog or of the scenario's
// /catalog/instance_types (mltwin/io/catalog.hpp); model artifacts are kept on the type's
// instance store, or, for a type without one, on /endpoint/ml_storage_volume. Errors throw
// ScenarioError naming the file and the JSON path or CSV line and saying what was expected, e.g.
//   scenarios/x.json: /server/serving_properties/max_batch_dealy: ... 'max_batch_dealy'
//   scenarios/x.json: /endpoint/s3/first_byte/constant: expected a duration such as "100ms" ...
//   ../shared/data/inference/azure-functions-2019-1k/1000_inv.csv:17: minute_3: expected a non-negative integer, got 'x'
//
// Encodings (the same as training scenarios): durations are seconds or strings with a unit
// ("100ms", "60s", "5m"); sizes are bytes or Kubernetes quantities ("300Mi", "1.5Gi", "900G");
// latency distributions are {"constant": d} | {"uniform": [a, b]} | {"exponential_mean": d},
// each with a "source". DJL's serving.properties keys keep DJL's names and units
// (max_batch_delay in ms, max_idle_time in s).
//
// Model sets: "list" (inline), "copies" (one model spec N times, named prefix + i), or
// "azure_functions" (model i = function i of 1000_inv.csv: resident size = resident_scale ×
// AverageAllocatedMb MiB of its app from 1000_mem.csv; service time with mean = Average ms of
// 1000_run.csv, clamped to [minimum, maximum], exponential or constant as the scenario says;
// artifact size fixed or a fraction of the resident size as the scenario says).
//
// Traffic: "poisson", "trace" (Azure Functions per-minute counts, function i -> model i) or
// "locust" (closed-loop users).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/io/scenario.hpp"  // ScenarioError, InputFileRef, LoadOptions
#include "mltwin/models/inference_scenario.hpp"

namespace mltwin::io {

/// What a scenario file describes: its top-level "kind" ("training" when absent).
enum class ScenarioKind { Training, Inference };

/// Reads the file's top-level "kind" without validating the rest. Throws ScenarioError if the
/// file cannot be read, is not JSON, or names an unknown kind.
ScenarioKind scenario_kind(const std::string& path);
/// The same for a document already in memory; `path` names it in the error message.
ScenarioKind scenario_kind(const nlohmann::json& doc, const std::string& path);

struct LoadedInferenceScenario {
  std::string path;            ///< the scenario file, as given
  nlohmann::json json;         ///< the document after overrides
  std::string name;
  std::uint64_t seed = 1;
  models::inference::InferenceScenario inference;
  std::vector<InputFileRef> inputs;  ///< data files read (hashed into the run metadata)
  std::string data_dir;        ///< what ${MLTWIN_DATA} expanded to (empty if unused)
  std::string catalog_path;    ///< the instance catalog file read (mltwin/io/catalog.hpp)
  /// What loads but is likely not what was meant, one line each with its place ("x.json:
  /// /policies/instance_scaling: ..."): an instance scaling policy on an endpoint whose
  /// min_instances equals max_instances. LoadOptions::strict makes the first an error.
  std::vector<std::string> warnings;
};

/// The warning for an instance scaling policy named `policy` on `sc`'s endpoint, or "" when
/// its fleet may change (min_instances < max_instances).
std::string fixed_fleet_warning(const models::inference::InferenceScenario& sc, const std::string& policy);

/// Reads, patches (LoadOptions::overrides, RFC 7386), validates and builds an inference
/// scenario, reading the Azure Functions trace if it uses one. Throws ScenarioError.
LoadedInferenceScenario load_inference_scenario(const std::string& path, const LoadOptions& opts = {});

}  // namespace mltwin::io
