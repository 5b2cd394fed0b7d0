// Tests of the named random streams (mltwin/core/rng.hpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mltwin/core/rng.hpp"

using mltwin::core::Engine;
using mltwin::core::RngStreams;
using mltwin::core::stream_seed;

namespace {

// The definitions from rng.hpp, written out again here so the test does not trust the
// implementation: FNV-1a 64 ...
std::uint64_t ref_fnv1a64(std::string_view s) {
  std::uint64_t h = 14695981039346656037ULL;  // offset basis
  for (unsigned char c : s) {
    h = h ^ c;
    h = h * 1099511628211ULL;  // FNV prime 2^40 + 2^8 + 0xb3
  }
  return h;
}

// ... and the first output of SplitMix64 from state x.
std::uint64_t ref_splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<std::uint64_t> draws(Engine& e, int n) {
  std::vector<std::uint64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(e());
  return v;
}

}  // namespace

TEST_CASE("the reference FNV-1a and SplitMix64 reproduce published test vectors") {
  // FNV-1a 64 vectors from the FNV reference test suite (Fowler/Noll/Vo).
  CHECK(ref_fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(ref_fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(ref_fnv1a64("foobar") == 0x85944171f73967e8ULL);
  // SplitMix64 from state 0: first output 0xe220a8397b1dcdaf; from 1234567 (Vigna's
  // splitmix64.c test): 6457827717110365317.
  CHECK(ref_splitmix64(0) == 0xe220a8397b1dcdafULL);
  CHECK(ref_splitmix64(1234567) == 6457827717110365317ULL);
}

TEST_CASE("stream_seed is the documented pure function of (seed, name)") {
  const std::uint64_t expect = ref_splitmix64(12345ULL ^ ref_fnv1a64("mmc.arrivals"));
  CHECK(stream_seed(12345, "mmc.arrivals") == expect);
  CHECK(stream_seed(12345, "mmc.arrivals") == expect);  // pure: same value again
  CHECK(stream_seed(0, "") == ref_splitmix64(0xcbf29ce484222325ULL));
  CHECK(stream_seed(12345, "mmc.service") != expect);
  CHECK(stream_seed(12346, "mmc.arrivals") != expect);

  // A stream's engine is mt19937_64 seeded with that value.
  RngStreams rs(12345);
  Engine direct(expect);
  CHECK(draws(rs.stream("mmc.arrivals"), 100) == draws(direct, 100));
}

TEST_CASE("the engine is the standard mt19937_64") {
  // [rand.predef]: the 10000th consecutive invocation of a default-constructed mt19937_64
  // (seed 5489) produces 9981545732273789042.
  Engine e(5489u);
  e.discard(9999);
  CHECK(e() == 9981545732273789042ULL);
  Engine d;
  d.discard(9999);
  CHECK(d() == 9981545732273789042ULL);
}

TEST_CASE("RngStreams: same seed, same sequences; different names or seeds, different ones") {
  RngStreams a(42), b(42), c(43);
  // Create b's streams in the other order: a stream must not depend on creation order.
  Engine& b2 = b.stream("y");
  Engine& b1 = b.stream("x");
  const auto ax = draws(a.stream("x"), 1000);
  CHECK(ax == draws(b1, 1000));
  CHECK(draws(a.stream("y"), 1000) == draws(b2, 1000));
  CHECK(draws(c.stream("x"), 1000) != ax);

  RngStreams fresh(42);
  CHECK(draws(fresh.stream("y"), 1000) != draws(fresh.stream("x"), 1000));
}

TEST_CASE("RngStreams: references stay valid, the state persists, names are sorted") {
  RngStreams rs(7);
  Engine& s = rs.stream("zeta");
  const std::uint64_t first = s();
  for (int i = 0; i < 50; ++i) rs.stream("stream." + std::to_string(i));  // grow the map
  CHECK(&rs.stream("zeta") == &s);
  Engine replay(stream_seed(7, "zeta"));
  CHECK(replay() == first);
  CHECK(rs.stream("zeta")() == replay());  // continues, does not restart
  CHECK(rs.seed() == 7);

  RngStreams named(1);
  named.stream("b");
  named.stream("a");
  named.stream("c");
  named.stream("a");
  CHECK(named.names() == std::vector<std::string>{"a", "b", "c"});
}
