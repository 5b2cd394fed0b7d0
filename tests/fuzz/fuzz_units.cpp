// libFuzzer target: the small parsers of times and quantities — core::parse_duration (scenario
// durations), runner::parse_until (--until), policy::parse_go_duration (Go's
// time.ParseDuration, sla-waiting-time) and io::parse_quantity (Kubernetes quantities, as a
// JSON string and, when the text is a JSON number, as that number).
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/core/time.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "mltwin/runner/run.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)core::parse_duration(text);
  } catch (const std::exception&) {
  }
  try {
    (void)runner::parse_until(text);
  } catch (const std::exception&) {
  }
  try {
    (void)policy::parse_go_duration(text);
  } catch (const std::exception&) {
  }
  try {
    (void)io::parse_quantity(nlohmann::json(text));
  } catch (const std::exception&) {
  }
  const auto number = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (number.is_number()) {
    try {
      (void)io::parse_quantity(number);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
