// libFuzzer target: the YAML files a user hands mltwin — Volcano/Kubernetes manifests
// (Queue, Job, PodGroup, PriorityClass), an eksctl ClusterConfig and the volcano-scheduler
// ConfigMap / volcano-scheduler.conf — each reader on the same bytes.
#include <cstdint>
#include <exception>

#include "fuzz_common.hpp"
#include "mltwin/io/yaml_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mltwin;
  const std::string path = fuzz::as_file("input.yaml", data, size);
  try {
    (void)io::read_manifests(path);
  } catch (const std::exception&) {
  }
  try {
    (void)io::read_eksctl_config(path);
  } catch (const std::exception&) {
  }
  try {
    (void)io::read_volcano_scheduler_config(path);
  } catch (const std::exception&) {
  }
  return 0;
}
