// mltwin/k8s/yaml_place.hpp — where a value of a YAML file was read, and a resource list as
// written: what the YAML readers' errors and results carry.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace mltwin::k8s {

/// Where a value was read: file, 1-based line and column, YAML path ("spec.tasks[0].replicas").
struct YamlPlace {
  std::string file;
  int line = 0;
  int column = 0;
  std::string path;
  /// "file:line:column: path" (without the path when it is empty).
  std::string str() const;
};

/// A Kubernetes resource list: name -> quantity text ("127900m", "16", "32Gi") as the API server
/// parses it (a plain YAML number as sigs.k8s.io/yaml writes it in JSON: `cpu: 0x10` is "16"),
/// each name one Volcano counts (policy::is_scalar_resource_name, cpu, memory) and each
/// quantity checked.
using ResourceList = std::vector<std::pair<std::string, std::string>>;

}  // namespace mltwin::k8s
