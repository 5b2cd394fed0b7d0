// libFuzzer target: a scenario file, training or inference, as `mltwin validate` reads it
// (io::scenario_kind, then io::load_scenario / io::load_inference_scenario). ${MLTWIN_DATA}
// is a small data folder of this process (fuzz_common.hpp).
#include <cstdint>
#include <exception>

#include "fuzz_common.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/scenario.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mltwin::fuzz::make_data_folder();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string path = fuzz::as_file("scenario.json", data, size);
  try {
    if (io::scenario_kind(path) == io::ScenarioKind::Inference)
      (void)io::load_inference_scenario(path);
    else
      (void)io::load_scenario(path);
  } catch (const std::exception&) {
    // a rejected scenario: the answer we want for bad input
  }
  return 0;
}
