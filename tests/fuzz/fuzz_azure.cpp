// libFuzzer target: the Azure Functions trace reader (io::read_azure_functions). The input is
// up to three files separated by a form feed (\f): invocations, durations, memory; a file the
// input leaves out is the valid one of the small data folder (fuzz_common.hpp).
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "mltwin/io/azure_functions.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mltwin::fuzz::make_data_folder();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const auto folder = fuzz::scratch() / "data/inference/azure-functions-2019-1k";
  const char* names[3] = {"1000_inv.csv", "1000_run.csv", "1000_mem.csv"};
  std::string paths[3];
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < 3; ++i) {
    paths[i] = (folder / names[i]).string();
    if (rest.data() == nullptr || (i > 0 && rest.empty())) continue;
    const auto cut = rest.find('\f');
    const std::string_view part = rest.substr(0, cut);
    paths[i] = (fuzz::scratch() / (std::string("fuzz-") + names[i])).string();
    fuzz::write_file(paths[i], part);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
  }
  try {
    (void)io::read_azure_functions(paths[0], paths[1], paths[2]);
  } catch (const std::exception&) {
  }
  return 0;
}
