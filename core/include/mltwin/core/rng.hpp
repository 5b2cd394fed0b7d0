// mltwin/core/rng.hpp — named random streams from one seed.
//
// Every stochastic component draws from its own stream, named after it ("philly.bind_latency",
// "scheduler.node_tiebreak"), so adding a component or a draw in one place does not shift the
// numbers another component sees. A stream's seed is derived from (run seed, stream name) by a
// fixed hash (FNV-1a 64 of the name mixed with the seed through SplitMix64:
//   stream_seed(seed, name) = splitmix64(seed ^ fnv1a64(name)), where fnv1a64 starts from
//   0xcbf29ce484222325 and, per byte, xors the byte in then multiplies by 0x100000001b3, and
//   splitmix64(x) is the first output of a SplitMix64 generator whose state is x:
//   z = x + 0x9e3779b97f4a7c15; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//   z = (z ^ (z >> 27)) * 0x94d049bb133111eb; return z ^ (z >> 31)),
// and the engine is boost::random::mt19937_64 seeded with that value. Draw through
// Boost.Random distributions, whose output — unlike std:: distributions — is the same with
// every standard library.
#pragma once
#include <boost/random/mersenne_twister.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mltwin::core {

using Engine = boost::random::mt19937_64;

/// The 64-bit seed of stream `name` under run seed `seed` (pure function; documented above).
std::uint64_t stream_seed(std::uint64_t seed, std::string_view name);

class RngStreams {
 public:
  explicit RngStreams(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t seed() const { return seed_; }
  /// The engine of stream `name`, created on first use. The reference stays valid for the
  /// lifetime of this object. Look a stream up once and keep the reference on hot paths.
  Engine& stream(std::string_view name);
  /// Names of the streams created so far, sorted (recorded in run metadata: "which inputs
  /// are random").
  std::vector<std::string> names() const;

 private:
  std::uint64_t seed_;
  std::map<std::string, std::unique_ptr<Engine>, std::less<>> streams_;
};

}  // namespace mltwin::core
