// mltwin/io/catalog.hpp — the instance catalog that ships with mltwin
// (catalog/aws-instance-types.json, docs/catalog.md): finding it, reading it, and the scenario
// format version that goes with it.
//
// A catalog file is JSON validated against scenarios/schema/catalog.schema.json (compiled into
// the binary). Each row is an EC2 or SageMaker instance type with its figures and their source;
// a scenario names instance types and may add rows or replace a row of the shipped catalog by
// repeating its name under /catalog/instance_types (same row form). Errors throw ScenarioError
// naming the file and the JSON path, e.g.
//   catalog/aws-instance-types.json: /instance_types/3/extended_resources/aws.amazon.com/neuroncore:
//     32 NeuronCores advertised, but the accelerator has 16 devices x 1 cores (16)
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mltwin/io/scenario.hpp"  // ScenarioError
#include "mltwin/models/catalog.hpp"

namespace mltwin::io {

/// The shipped catalog's file name (in the source tree's catalog/, installed under share/mltwin/).
inline constexpr const char* kCatalogFileName = "aws-instance-types.json";
/// The environment variable naming a catalog file to use instead of the shipped one.
inline constexpr const char* kCatalogEnv = "MLTWIN_CATALOG";

/// The scenario format this build reads (/schema_version). Version 1 (no schema_version key)
/// pasted its instance catalog in another row form; `mltwin migrate` rewrites it
/// (migrate_scenario, below).
inline constexpr int kScenarioSchemaVersion = 2;

/// A place the catalog is looked for, and why there.
struct CatalogCandidate {
  std::string path;
  std::string how;  ///< "--catalog", "MLTWIN_CATALOG", "installed beside the binary", "source tree", "install prefix"
};

/// Where the catalog is looked for, in order: `explicit_path` (--catalog) if not empty; else
/// $MLTWIN_CATALOG if set; else <folder of the binary holding this code>/../share/mltwin/
/// aws-instance-types.json (an installed mltwin), the source tree's catalog/aws-instance-types.json
/// (compiled in), <install prefix>/share/mltwin/aws-instance-types.json (compiled in).
std::vector<CatalogCandidate> catalog_candidates(const std::string& explicit_path = "");

/// The catalog file to read: `explicit_path` or $MLTWIN_CATALOG (an error if it is not a
/// regular file), else the first default candidate that exists. Throws ScenarioError naming the
/// places tried.
std::string find_catalog(const std::string& explicit_path = "");

/// Reads and checks a catalog file (at most kMaxScenarioFileBytes, a regular file): the schema,
/// no name twice, names valid as the label node.kubernetes.io/instance-type, and figures that
/// agree (catalog_rows). Throws ScenarioError "path: /instance_types/N/...: what".
models::Catalog read_catalog(const std::string& path);

/// Instance types from rows of the catalog form: `rows` is the JSON array found at `where`
/// (e.g. "/instance_types", "/catalog/instance_types") in `file`. Checks the schema, that no
/// name is given twice, names (a label value), and that the figures agree: the Neuron device
/// plugin's aws.amazon.com/neuron and .../neurondevice equal the accelerator's devices and
/// .../neuroncore devices x cores_per_device; nvidia.com/gpu the GPUs; vpc.amazonaws.com/efa
/// efa_interfaces; a price has its region; the baseline bandwidth is at most the burst one.
/// Throws ScenarioError "file: where/N/...: what".
models::Catalog catalog_rows(const std::string& file, const std::string& where, const nlohmann::json& rows);

/// Up to `max` names of `catalog` closest to `name` (Levenshtein distance at most 3, or a
/// name that contains it or that it contains), closest first.
std::vector<std::string> near_names(const models::Catalog& catalog, const std::string& name, std::size_t max = 3);

/// Rewrites a version-1 scenario (no /schema_version, or "schema_version": 1) as version 2,
/// keeping its text byte for byte where it can: inserts "schema_version": 2 after "$schema" (or
/// first; a schema_version of 1 becomes 2 where it is), and replaces the
/// pasted /catalog/instance_types: a row whose figures equal the shipped row of its name is
/// dropped (the scenario then names the shipped type), any other row becomes a row of the
/// catalog form (an override when the shipped catalog has its name, with every figure the
/// version-1 row gave); /catalog goes when no row is left. Inference rows: "memory" becomes
/// memory_gib, "usd_per_hour" the on-demand price; "disk" is the type's instance store, or,
/// on a type without one, the endpoint's EBS ML storage volume (/endpoint/ml_storage_volume,
/// when that type is the endpoint's). `text` is the file's content, `path` names it in errors;
/// `shipped` is the catalog the result is to be read with. `notes` gets one line per row kept
/// or dropped. Throws ScenarioError if the text is not a version-1 scenario (at /schema_version:
/// "already at schema_version 2, ...; nothing to change", or a version it does not know).
std::string migrate_scenario(const std::string& text, const std::string& path, const models::Catalog& shipped,
                             std::vector<std::string>& notes);

/// migrate_scenario of the file at `path` (a regular file of at most kMaxScenarioFileBytes),
/// against the catalog find_catalog(catalog_path) finds. Returns the new text.
std::string migrate_scenario_file(const std::string& path, const std::string& catalog_path, std::vector<std::string>& notes);

}  // namespace mltwin::io
