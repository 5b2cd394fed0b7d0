// libFuzzer target: the job history reader, CSV or a kubectl list of Volcano Jobs (io::read_job_history, workload.history;
// mltwin/io/job_history.hpp) and its RFC 3339 parser. Every bad input must be refused by a
// ScenarioError naming the file and line, never crash.
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_common.hpp"
#include "mltwin/io/job_history.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string path = fuzz::as_file("history.csv", data, size);
  try {
    (void)io::read_job_history(path);
  } catch (const std::exception&) {
  }
  // The same bytes as one time stamp.
  std::string why;
  (void)io::parse_rfc3339(std::string(reinterpret_cast<const char*>(data), size), why);
  return 0;
}
