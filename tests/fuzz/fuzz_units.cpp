// libFuzzer target: the small parsers of times and quantities — core::parse_duration (scenario
// durations), runner::parse_until (--until), policy::parse_go_duration (Go's
// time.ParseDuration, sla-waiting-time), policy::parse_quantity and quantity_from_json
// (Kubernetes quantities: k8s.io/apimachinery's ParseQuantity and UnmarshalJSON) and
// io::parse_quantity (a scenario's quantity, as a JSON string and, when the text is a JSON
// number, as that number). Beyond "no crash, no sanitizer report", the quantity's own
// invariants trap: only QuantityError escapes, and a quantity whose Value() fits in int64 reads
// back from its String() and its canonical text as the same amount (upstream's TestJSON).
#include <cstdint>
#include <exception>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/core/time.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/quantity.hpp"
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
  for (const bool as_json : {false, true}) {
    std::optional<policy::Quantity> q;
    try {
      q = as_json ? policy::quantity_from_json(text) : policy::parse_quantity(text);
    } catch (const policy::QuantityError&) {
    }
    if (!q) continue;
    bool fits = true;
    try {
      (void)q->value();
      (void)q->milli_value();
    } catch (const policy::QuantityError&) {
      fits = false;
    }
    (void)q->to_double();
    if (fits && (policy::parse_quantity(q->str()) != *q || policy::parse_quantity(q->canonical()) != *q)) __builtin_trap();
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
