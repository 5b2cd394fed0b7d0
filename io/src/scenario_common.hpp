// io/src/scenario_common.hpp — internal helpers shared by the scenario loaders (training and
// inference): reading a JSON file with line:column errors, validating it against a JSON Schema
// compiled into the binary with messages that name the JSON path and the expected type, and
// the value encodings every scenario uses (durations, latency distributions, ${MLTWIN_DATA}).
// Not installed; only io/src/*.cpp include it.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/core/time.hpp"
#include "mltwin/models/training.hpp"  // LatencySpec

namespace mltwin::io::detail {

/// Throws ScenarioError "file: where: what".
[[noreturn]] void fail(const std::string& file, const std::string& where, const std::string& what);

/// "line:column" (1-based) of a byte offset in `text`.
std::string line_col(const std::string& text, std::size_t byte);

/// Reads and parses a JSON file. Throws ScenarioError "path: cannot open ..." or
/// "path:L:C: invalid JSON: ...".
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
  void validate(const std::string& file, const nlohmann::json& doc) const;
  const nlohmann::json& schema() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A duration: a number of seconds or a string with a unit ("100ms", "60s", "5m").
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

}  // namespace mltwin::io::detail
