#include "mltwin/io/azure_functions.hpp"

// csv.h (Fast C++ CSV Parser) trips GCC 12's -Wstringop-truncation in its error helper.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <utility>

#include "mltwin/io/scenario.hpp"  // ScenarioError
#include "scenario_common.hpp"

namespace mltwin::io {

namespace {

namespace fs = std::filesystem;

// One CSV file read line by line with fccp's LineReader. The trace has no quoted fields, so a
// row is its text split at commas; a quote is reported as an error rather than misread.
class CsvLines {
 public:
  CsvLines(const std::string& path, const char* what) : path_(path) {
    // Open it ourselves first, for a message that says what the file is and how to point at it.
    if (!std::ifstream(path, std::ios::binary))
      throw ScenarioError(path + ": cannot open the Azure Functions trace " + what +
                          " file (set MLTWIN_DATA or --data, or the scenario's trace folder)");
    detail::check_input_file(path, std::string("Azure Functions trace ") + what + " file", kMaxTraceFileBytes);
    try {
      reader_ = std::make_unique<::io::LineReader>(path);
    } catch (const ::io::error::base& e) {
      throw ScenarioError(path + ": " + e.what());
    }
  }

  /// The next non-blank line split into fields; false at the end. Blank lines are accepted
  /// only at the end of the file.
  bool next(std::vector<std::string_view>& fields) {
    for (;;) {
      char* line = nullptr;
      try {
        line = reader_->next_line();
      } catch (const ::io::error::base& e) {
        throw ScenarioError(path_ + ": " + e.what());
      }
      if (line == nullptr) return false;
      line_ = reader_->get_file_line();
      std::string_view text(line);
      while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
      if (text.empty()) {
        if (blank_line_ == 0) blank_line_ = line_;
        continue;
      }
      if (blank_line_ != 0)
        throw ScenarioError(path_ + ":" + std::to_string(blank_line_) + ": blank line before more data (line " +
                            std::to_string(line_) + ")");
      if (std::string p = detail::control_character_problem(text, true); !p.empty()) throw ScenarioError(where() + ": " + p);
      if (text.find('"') != std::string_view::npos)
        throw ScenarioError(where() + ": quoted fields are not expected in this trace");
      fields.clear();
      std::size_t start = 0;
      for (;;) {
        const std::size_t comma = text.find(',', start);
        std::string_view f = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
        while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
        fields.push_back(f);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return true;
    }
  }

  std::string where() const { return path_ + ":" + std::to_string(line_); }
  std::int64_t line() const { return line_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& column, const std::string& what) const {
    throw ScenarioError(where() + ": " + (column.empty() ? "" : column + ": ") + what);
  }

  void expect_columns(const std::vector<std::string_view>& fields, std::size_t n) const {
    if (fields.size() != n)
      fail("", "expected " + std::to_string(n) + " comma-separated columns as in the header, got " +
                   std::to_string(fields.size()));
  }

  std::uint64_t unsigned_field(std::string_view f, const std::string& column) const {
    std::uint64_t v = 0;
    const auto r = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || r.ec != std::errc() || r.ptr != f.data() + f.size())
      fail(column, "expected a non-negative integer, got '" + std::string(f) + "'");
    return v;
  }

  double number_field(std::string_view f, const std::string& column) const {
    double v = 0;
    const auto r = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || r.ec != std::errc() || r.ptr != f.data() + f.size() || !std::isfinite(v) || v < 0)
      fail(column, "expected a number >= 0, got '" + std::string(f) + "'");
    return v;
  }

  std::string hash_field(std::string_view f, const std::string& column) const {
    if (f.empty()) fail(column, "empty");
    return std::string(f);
  }

 private:
  std::string path_;
  std::unique_ptr<::io::LineReader> reader_;
  std::int64_t line_ = 0;
  std::int64_t blank_line_ = 0;
};

// Column index of `name` in a header; fails naming the file if absent.
std::size_t column_of(const CsvLines& csv, const std::vector<std::string_view>& header, const std::string& name) {
  std::size_t found = header.size();
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) {
      if (found != header.size()) csv.fail("", "header names column '" + name + "' twice");
      found = i;
    }
  if (found == header.size()) csv.fail("", "header has no column '" + name + "'");
  return found;
}

}  // namespace

AzureFunctionsTrace read_azure_functions(const std::string& folder) {
  const fs::path d(folder);
  return read_azure_functions((d / kAzureInvocationsFile).string(), (d / kAzureDurationsFile).string(),
                              (d / kAzureMemoryFile).string());
}

AzureFunctionsTrace read_azure_functions(const std::string& invocations_csv, const std::string& durations_csv,
                                         const std::string& memory_csv) {
  AzureFunctionsTrace t;
  t.invocations_path = invocations_csv;
  t.durations_path = durations_csv;
  t.memory_path = memory_csv;
  std::vector<std::string_view> f;

  // 1000_inv.csv: HashFunction,HashOwner,HashApp,minute_1..minute_N.
  {
    CsvLines csv(invocations_csv, "invocations (1000_inv.csv)");
    if (!csv.next(f)) throw ScenarioError(invocations_csv + ": empty file (expected a header line)");
    static const char* const lead[] = {"HashFunction", "HashOwner", "HashApp"};
    for (std::size_t i = 0; i < 3; ++i)
      if (f.size() <= i || f[i] != lead[i])
        csv.fail("", std::string("header column ") + std::to_string(i + 1) + ": expected '" + lead[i] + "', got '" +
                         (f.size() > i ? std::string(f[i]) : std::string()) + "'");
    for (std::size_t i = 3; i < f.size(); ++i)
      if (f[i] != "minute_" + std::to_string(i - 2))
        csv.fail("", "header column " + std::to_string(i + 1) + ": expected 'minute_" + std::to_string(i - 2) +
                         "', got '" + std::string(f[i]) + "'");
    if (f.size() < 4) csv.fail("", "header has no minute_1.. columns");
    const std::size_t ncols = f.size();
    t.minutes = static_cast<int>(ncols - 3);
    std::map<std::tuple<std::string, std::string, std::string>, std::int64_t> seen;
    while (csv.next(f)) {
      csv.expect_columns(f, ncols);
      AzureFunction fn;
      fn.hash_function = csv.hash_field(f[0], "HashFunction");
      fn.hash_owner = csv.hash_field(f[1], "HashOwner");
      fn.hash_app = csv.hash_field(f[2], "HashApp");
      fn.inv_line = csv.line();
      const auto [it, fresh] = seen.emplace(std::tuple(fn.hash_owner, fn.hash_app, fn.hash_function), fn.inv_line);
      if (!fresh) csv.fail("HashFunction", "function '" + fn.hash_function + "' repeats line " + std::to_string(it->second));
      fn.per_minute.resize(static_cast<std::size_t>(t.minutes));
      for (int m = 0; m < t.minutes; ++m) {
        const std::size_t col = 3 + static_cast<std::size_t>(m);
        const std::uint64_t v = csv.unsigned_field(f[col], "minute_" + std::to_string(m + 1));
        if (v > UINT32_MAX) csv.fail("minute_" + std::to_string(m + 1), "count " + std::to_string(v) + " is too large");
        fn.per_minute[static_cast<std::size_t>(m)] = static_cast<std::uint32_t>(v);
        fn.invocations += v;
      }
      t.total_invocations += fn.invocations;
      t.functions.push_back(std::move(fn));
    }
    if (t.functions.empty()) throw ScenarioError(invocations_csv + ": the trace has no functions (only a header)");
  }

  // 1000_run.csv: HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,...
  {
    CsvLines csv(durations_csv, "durations (1000_run.csv)");
    if (!csv.next(f)) throw ScenarioError(durations_csv + ": empty file (expected a header line)");
    const std::size_t ncols = f.size();
    const std::size_t c_owner = column_of(csv, f, "HashOwner"), c_app = column_of(csv, f, "HashApp"),
                      c_fn = column_of(csv, f, "HashFunction"), c_avg = column_of(csv, f, "Average"),
                      c_count = column_of(csv, f, "Count"), c_min = column_of(csv, f, "Minimum"),
                      c_max = column_of(csv, f, "Maximum");
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < t.functions.size(); ++i)
      index.emplace(std::tuple(t.functions[i].hash_owner, t.functions[i].hash_app, t.functions[i].hash_function), i);
    while (csv.next(f)) {
      csv.expect_columns(f, ncols);
      const auto key = std::tuple(csv.hash_field(f[c_owner], "HashOwner"), csv.hash_field(f[c_app], "HashApp"),
                                  csv.hash_field(f[c_fn], "HashFunction"));
      const double avg = csv.number_field(f[c_avg], "Average");
      const std::uint64_t count = csv.unsigned_field(f[c_count], "Count");
      const double mn = csv.number_field(f[c_min], "Minimum");
      const double mx = csv.number_field(f[c_max], "Maximum");
      const auto it = index.find(key);
      if (it == index.end()) continue;  // a function not in the invocation file: not used
      AzureFunction& fn = t.functions[it->second];
      if (fn.run_line != 0)
        csv.fail("HashFunction", "function '" + fn.hash_function + "' repeats line " + std::to_string(fn.run_line));
      fn.run_average_ms = avg;
      fn.run_count = count;
      fn.run_minimum_ms = mn;
      fn.run_maximum_ms = mx;
      fn.run_line = csv.line();
    }
    for (const auto& fn : t.functions)
      if (fn.run_line == 0)
        throw ScenarioError(durations_csv + ": no row for function HashFunction=" + fn.hash_function + " (HashOwner=" +
                            fn.hash_owner + ", HashApp=" + fn.hash_app + ") of " + invocations_csv + ":" +
                            std::to_string(fn.inv_line));
  }

  // 1000_mem.csv: HashOwner,HashApp,SampleCount,AverageAllocatedMb,... (per app).
  {
    CsvLines csv(memory_csv, "memory (1000_mem.csv)");
    if (!csv.next(f)) throw ScenarioError(memory_csv + ": empty file (expected a header line)");
    const std::size_t ncols = f.size();
    const std::size_t c_owner = column_of(csv, f, "HashOwner"), c_app = column_of(csv, f, "HashApp"),
                      c_avg = column_of(csv, f, "AverageAllocatedMb");
    std::map<std::pair<std::string, std::string>, std::pair<double, std::int64_t>> apps;
    while (csv.next(f)) {
      csv.expect_columns(f, ncols);
      auto key = std::pair(csv.hash_field(f[c_owner], "HashOwner"), csv.hash_field(f[c_app], "HashApp"));
      const double mb = csv.number_field(f[c_avg], "AverageAllocatedMb");
      const auto [it, fresh] = apps.emplace(std::move(key), std::pair(mb, csv.line()));
      if (!fresh) csv.fail("HashApp", "app '" + it->first.second + "' repeats line " + std::to_string(it->second.second));
    }
    for (auto& fn : t.functions) {
      const auto it = apps.find(std::pair(fn.hash_owner, fn.hash_app));
      if (it == apps.end())
        throw ScenarioError(memory_csv + ": no row for app HashApp=" + fn.hash_app + " (HashOwner=" + fn.hash_owner +
                            ") of function " + invocations_csv + ":" + std::to_string(fn.inv_line));
      fn.memory_average_mb = it->second.first;
      fn.mem_line = it->second.second;
    }
  }
  return t;
}

}  // namespace mltwin::io
