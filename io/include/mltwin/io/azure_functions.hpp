// mltwin/io/azure_functions.hpp — the Azure Functions 2019 trace, 1,000-function excerpt
// (Shahrad et al., "Serverless in the Wild", USENIX ATC'20; Azure/AzurePublicDataset, CC-BY 4.0;
// this sample from vhive-serverless/invitro, MIT), read from a folder holding:
//
//   1000_inv.csv  HashFunction,HashOwner,HashApp,minute_1..minute_N — invocations of each function
//                 in each minute of one day (N = 1440); one row per function.
//   1000_run.csv  HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,percentile_Average_*
//                 — execution time per function, ms (note the column order differs from inv).
//   1000_mem.csv  HashOwner,HashApp,SampleCount,AverageAllocatedMb,AverageAllocatedMb_pct* —
//                 allocated memory per *app*, MB.
//
// Functions keep 1000_inv.csv's row order (function i = row i + 1 of the data rows); run rows
// are matched by (HashOwner, HashApp, HashFunction) and mem rows by (HashOwner, HashApp), not
// by position. Every function must have one run row and its app one mem row. Blank lines at
// the end and CRLF line ends are accepted. Errors throw ScenarioError "file:line: column: what".
//
// The trace is read from the data folder (${MLTWIN_DATA}/inference/azure-functions-2019-1k),
// never copied into the repository.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mltwin::io {

struct AzureFunction {
  std::string hash_owner, hash_app, hash_function;
  std::int64_t inv_line = 0;                 ///< line in 1000_inv.csv (1 = header)
  std::vector<std::uint32_t> per_minute;     ///< invocations in minute 0 .. minutes-1
  std::uint64_t invocations = 0;             ///< sum of per_minute
  double run_average_ms = 0;                 ///< 1000_run.csv Average
  std::uint64_t run_count = 0;               ///< 1000_run.csv Count
  double run_minimum_ms = 0, run_maximum_ms = 0;
  std::int64_t run_line = 0;                 ///< line in 1000_run.csv
  double memory_average_mb = 0;              ///< 1000_mem.csv AverageAllocatedMb of the function's app
  std::int64_t mem_line = 0;                 ///< line in 1000_mem.csv
};

struct AzureFunctionsTrace {
  std::string invocations_path, durations_path, memory_path;  ///< the files read
  std::vector<AzureFunction> functions;      ///< in 1000_inv.csv order
  int minutes = 0;                           ///< minute columns in 1000_inv.csv
  std::uint64_t total_invocations = 0;
};

/// File names inside the trace folder.
inline constexpr const char* kAzureInvocationsFile = "1000_inv.csv";
inline constexpr const char* kAzureDurationsFile = "1000_run.csv";
inline constexpr const char* kAzureMemoryFile = "1000_mem.csv";

/// Reads the three files of `folder`. Throws ScenarioError naming file:line on bad rows, and
/// "file: cannot open ..." for a missing file.
AzureFunctionsTrace read_azure_functions(const std::string& folder);

/// The same from explicit file paths (tests, other samples of the trace).
AzureFunctionsTrace read_azure_functions(const std::string& invocations_csv, const std::string& durations_csv,
                                         const std::string& memory_csv);

}  // namespace mltwin::io
