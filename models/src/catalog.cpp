// catalog.cpp — InstanceType's derived figures (mltwin/models/catalog.hpp).
#include "mltwin/models/catalog.hpp"

#include <cmath>

namespace mltwin::models {

std::uint64_t InstanceType::memory_bytes() const {
  return static_cast<std::uint64_t>(std::llround(memory_gib * 1024.0 * 1024.0 * 1024.0));
}

std::uint64_t InstanceType::instance_storage_bytes() const {
  return static_cast<std::uint64_t>(std::llround(instance_storage_gb * 1e9));
}

std::int64_t InstanceType::extended_resource(std::string_view resource) const {
  for (const auto& [rname, count] : extended_resources)
    if (rname == resource) return count;
  return 0;
}

}  // namespace mltwin::models
