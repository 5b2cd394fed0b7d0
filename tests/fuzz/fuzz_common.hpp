// tests/fuzz/fuzz_common.hpp — what every libFuzzer target shares: a scratch folder with a
// small data folder (for ${MLTWIN_DATA}), writing the fuzzer's bytes to a file (the readers
// take paths, as the CLI does), and the rule that an exception is an answer, not a finding.
//
// A finding is what the sanitizers or libFuzzer report: a crash, an out-of-bounds access,
// undefined behaviour, a hang (-timeout) or memory beyond -rss_limit_mb. Every reader is
// expected to reject bad input by throwing (ScenarioError, std::invalid_argument, ...).
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include "../common/trace_formats.hpp"

namespace mltwin::fuzz {

/// The scratch folder of this process, created on first use: <tmp>/mltwin-fuzz-<pid>.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("mltwin-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline void write_file(const std::filesystem::path& p, std::string_view bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Writes `bytes` to scratch()/name and returns its path.
inline std::string as_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const auto p = scratch() / name;
  write_file(p, std::string_view(reinterpret_cast<const char*>(data), size));
  return p.string();
}

/// A small, valid data folder (the layout of ../shared/data) in scratch()/data, and
/// MLTWIN_DATA pointing at it, so that scenarios naming ${MLTWIN_DATA} read small files.
inline void make_data_folder() {
  const auto d = scratch() / "data";
  write_file(d / "training/philly/philly.csv",
             mltwin::test::philly_header() + "\n"
             "2017-10-03 10:00:00,3600,8,28800,vc-a\n"
             "2017-10-03 10:00:05,60,1,60,vc-b\n"
             "2017-10-03 10:01:00,7200,32,230400,vc-a\n"
             "2017-10-03 10:02:00,100,2,200,vc-b\n");
  const std::string minutes = [] {
    std::string s;
    for (int i = 1; i <= 1440; ++i) s += ",minute_" + std::to_string(i);
    return s;
  }();
  const std::string counts = [] {
    std::string s;
    for (int i = 1; i <= 1440; ++i) s += (i % 7 == 0) ? ",3" : ",0";
    return s;
  }();
  const auto az = d / "inference/azure-functions-2019-1k";
  write_file(az / "1000_inv.csv", "HashFunction,HashOwner,HashApp" + minutes + "\nf1,o1,a1" + counts +
                                      "\nf2,o1,a1" + counts + "\n");
  write_file(az / "1000_run.csv",
             "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,percentile_Average_0,"
             "percentile_Average_1,percentile_Average_25,percentile_Average_50,percentile_Average_75,"
             "percentile_Average_99,percentile_Average_100\n"
             "o1,a1,f1,120,10,50,300,50,50,80,120,150,290,300\n"
             "o1,a1,f2,30,10,10,90,10,10,20,30,40,88,90\n");
  write_file(az / "1000_mem.csv",
             "HashOwner,HashApp,SampleCount,AverageAllocatedMb,AverageAllocatedMb_pct1,AverageAllocatedMb_pct5,"
             "AverageAllocatedMb_pct25,AverageAllocatedMb_pct50,AverageAllocatedMb_pct75,AverageAllocatedMb_pct95,"
             "AverageAllocatedMb_pct99,AverageAllocatedMb_pct100\n"
             "o1,a1,100,150,100,110,130,150,170,190,200,210\n");
  ::setenv("MLTWIN_DATA", d.c_str(), 1);
}

}  // namespace mltwin::fuzz
