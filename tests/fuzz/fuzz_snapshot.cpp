// libFuzzer target: a cluster snapshot as mltwin-scheduler reads it (kubectl YAML, and JSON), then one
// scheduling cycle on what was read — bad input must end in an error, never a crash or a hang.
#include <cstdint>
#include <exception>
#include <string_view>

#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/scheduler/once.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  k8s::Snapshot snap;
  try {
    k8s::Snapshot from_yaml;
    k8s::read_yaml(text, "input.yaml", from_yaml);
  } catch (const k8s::InputError&) {
  }
  try {
    k8s::read_json(text, "input.json", snap);
  } catch (const k8s::InputError&) {
    return 0;
  }
  try {
    scheduler::OnceOptions opts;
    opts.now = 0;
    (void)scheduler::run_once(snap, opts);
  } catch (const std::invalid_argument&) {  // objects the cache refuses (two with one name)
  }
  return 0;
}
