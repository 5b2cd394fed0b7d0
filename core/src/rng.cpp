// Named random streams. The derivation of a stream's seed is part of the reproducibility
// contract (a run's seed and stream names, recorded in its metadata, must reproduce it on any
// machine), so it is written out in full in rng.hpp and must not change.
#include "mltwin/core/rng.hpp"

namespace mltwin::core {

namespace {

// FNV-1a, 64-bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3.
constexpr std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// First output of SplitMix64 (Steele, Lea & Flood 2014) from state x: a bijective 64-bit
// mixer, so distinct (seed ^ name-hash) values give distinct stream seeds.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t stream_seed(std::uint64_t seed, std::string_view name) {
  return splitmix64(seed ^ fnv1a64(name));
}

Engine& RngStreams::stream(std::string_view name) {
  auto it = streams_.find(name);
  if (it == streams_.end())
    it = streams_.emplace(std::string(name), std::make_unique<Engine>(stream_seed(seed_, name)))
             .first;
  return *it->second;
}

std::vector<std::string> RngStreams::names() const {
  std::vector<std::string> out;
  out.reserve(streams_.size());
  for (const auto& kv : streams_) out.push_back(kv.first);
  return out;
}

}  // namespace mltwin::core
