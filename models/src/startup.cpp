// startup.cpp — StartupModel: node image caches, the Neuron compile cache, FSx reads (see
// models/startup.hpp for the rules and docs/startup-and-faults.md for the sources).
#include "mltwin/models/startup.hpp"

#include <stdexcept>

namespace mltwin::models {

const NeuronModelSpec* StartupSpec::find_model(const std::string& name) const {
  for (const auto& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

const char* to_string(CompileOutcome o) noexcept {
  switch (o) {
    case CompileOutcome::Hit: return "hit";
    case CompileOutcome::Miss: return "miss";
    case CompileOutcome::Wait: return "wait";
  }
  return "?";
}

core::Duration StartupModel::image_pull(std::uint32_t node, core::Time now) {
  auto it = images_.find(node);
  if (it != images_.end()) return it->second > now ? it->second - now : core::Duration::ns(0);
  const core::Duration pull = core::Duration::from_seconds(spec_.image_bytes / spec_.pull_bytes_per_s);
  images_.emplace(node, now + pull);
  return pull;
}

StartupModel::Compile StartupModel::compile(std::uint32_t job, const std::string& model, const std::string& flags,
                                            int dp_degree, core::Time now) {
  const NeuronModelSpec* m = spec_.find_model(model);
  if (!m) throw std::invalid_argument("job compiles model '" + model + "', which the startup block does not list");
  const core::Duration compile = spec_.mode == CompileMode::Jit ? m->jit_compile : m->parallel_compile;
  if (spec_.cache_url.empty()) return {compile, CompileOutcome::Miss};  // no persistent cache
  const Key key{spec_.cache_url, model, flags, dp_degree};
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    cache_.emplace(key, Entry{now + compile, job});
    return {compile, CompileOutcome::Miss};
  }
  if (it->second.ready <= now) return {spec_.cache_load, CompileOutcome::Hit};
  return {(it->second.ready - now) + spec_.cache_load, CompileOutcome::Wait};
}

void StartupModel::abort_compiles(std::uint32_t job, core::Time now) {
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->second.owner == job && it->second.ready > now) it = cache_.erase(it);
    else ++it;
  }
}

core::Duration StartupModel::dataset_read(double bytes) const {
  if (bytes <= 0) return core::Duration::ns(0);
  return core::Duration::from_seconds(bytes / spec_.fsx_bytes_per_s);
}

}  // namespace mltwin::models
