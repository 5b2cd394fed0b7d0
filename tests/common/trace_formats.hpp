// trace_formats.hpp — the header rows of the public traces' formats (../shared/data/README.md),
// built from their column names, for tests that write small files of those formats. One
// definition for every test; the names are the readers' (io/src/philly.cpp read_header).
#pragma once
#include <initializer_list>
#include <string>

namespace mltwin::test {

/// The column names joined by ','.
inline std::string csv_header(std::initializer_list<const char*> columns) {
  std::string out;
  for (const char* c : columns) {
    if (!out.empty()) out += ',';
    out += c;  // (not `"," + std::string(c)`: GCC 12 -O3 warns -Wrestrict on it, a false positive)
  }
  return out;
}

/// The Philly trace's header row (without its newline).
inline const std::string& philly_header() {
  static const std::string h = csv_header({"timestamp", "duration", "num_gpus", "gpu_time", "cluster"});
  return h;
}

}  // namespace mltwin::test
