// yaml_typed.hpp — io/'s YAML readers on the codec's typed YAML layer (mltwin/k8s/yaml.hpp),
// plus what only the manifests need. Internal to io/.
#pragma once
#include <nlohmann/json.hpp>

#include "k8s_objects.hpp"
#include "mltwin/io/yaml_config.hpp"
#include "mltwin/k8s/yaml.hpp"
#include "scenario_common.hpp"

namespace mltwin::io::yaml {

using namespace mltwin::k8s::yaml;
using k8s::yaml::toleration_json;

}  // namespace mltwin::io::yaml
