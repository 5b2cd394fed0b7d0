// libFuzzer target: the Philly trace reader (io::read_philly) with the main scenario's mapping
// (scenarios/eks-trn1-philly.json: 16 devices per node, 2 NeuronCores per device).
#include <cstdint>
#include <exception>

#include "fuzz_common.hpp"
#include "mltwin/io/philly.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string path = fuzz::as_file("philly.csv", data, size);
  io::PhillyMapping m;
  m.per_device_cpu = 7.9;
  m.per_device_memory_bytes = 31.0 * (1ull << 30);
  m.whole_cpu = 126;
  m.whole_memory_bytes = 500.0 * (1ull << 30);
  m.whole_efa = 8;
  try {
    (void)io::read_philly(path, m);
  } catch (const std::exception&) {
  }
  return 0;
}
