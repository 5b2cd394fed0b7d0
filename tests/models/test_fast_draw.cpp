// detail/fast_draw.hpp and detail/inline_containers.hpp: the inference model's speed-ups must
// not change a single number. The draws are checked against what they replace — Boost's
// uniform_int_distribution and LatencySpec::draw — value by value from identically seeded
// engines, and the engines must end in the same state (same number of engine calls); the
// reciprocal division against the hardware division; the containers against std::deque /
// std::vector under the same random operations.
#include <doctest/doctest.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/models/detail/fast_draw.hpp"
#include "mltwin/models/detail/inline_containers.hpp"

using mltwin::core::Duration;
using mltwin::core::Engine;
using mltwin::models::LatencySpec;
using namespace mltwin::models::detail;

TEST_CASE("InvariantDivider equals the hardware division") {
  Engine e(7);
  std::vector<std::uint64_t> divisors = {1, 2, 3, 5, 7, 10, 641, 1000, 4'000'001, 6'700'417,
                                         (1ULL << 32) - 1, (1ULL << 32) + 1, (1ULL << 63) - 1,
                                         1ULL << 63, (1ULL << 63) + 1, std::numeric_limits<std::uint64_t>::max()};
  // the bucket sizes of the ranges the scenarios use: 2^64 − 1 over (range + 1)
  for (std::uint64_t r : {1ULL, 989ULL, 9ULL, 4'000'000ULL, 59'999'999'999ULL}) divisors.push_back(~0ULL / (r + 1));
  for (int i = 0; i < 200; ++i) divisors.push_back(e() >> (e() % 64));
  for (std::uint64_t d : divisors) {
    if (d == 0) continue;
    CAPTURE(d);
    const InvariantDivider div(d);
    std::vector<std::uint64_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, ~0ULL, ~0ULL - 1, ~0ULL - d, (~0ULL / d) * d,
                                     (~0ULL / d) * d - 1};
    for (int i = 0; i < 2000; ++i) ns.push_back(e());
    for (std::uint64_t n : ns) {
      CAPTURE(n);
      REQUIRE(div(n) == n / d);
    }
  }
}

TEST_CASE("UniformIntDraw gives Boost's uniform_int_distribution values from the same engine calls") {
  struct Range {
    std::int64_t lo, hi;
  };
  // the OverheadLatency range (2-6 ms in ns), models 0..989, a trace minute in ns, one value,
  // negative bounds, a power-of-two width, and the widest ranges
  const std::vector<Range> ranges = {{2'000'000, 6'000'000}, {0, 989}, {0, 59'999'999'999}, {5, 5}, {-7, 3},
                                     {0, 1023}, {0, 1}, {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()},
                                     {0, std::numeric_limits<std::int64_t>::max()}, {-1, std::numeric_limits<std::int64_t>::max()}};
  for (const Range& r : ranges) {
    CAPTURE(r.lo);
    CAPTURE(r.hi);
    Engine a(42), b(42);
    const UniformIntDraw<std::int64_t> fast(r.lo, r.hi);
    for (int i = 0; i < 20000; ++i) {
      const std::int64_t want = boost::random::uniform_int_distribution<std::int64_t>(r.lo, r.hi)(a);
      REQUIRE(fast(b) == want);
    }
    CHECK(a == b);  // same number of engine calls
  }
  SUBCASE("int, as ModelPicker draws model ids") {
    Engine a(3), b(3);
    const UniformIntDraw<int> fast(11, 989);
    for (int i = 0; i < 20000; ++i) REQUIRE(fast(b) == boost::random::uniform_int_distribution<int>(11, 989)(a));
    CHECK(a == b);
  }
}

TEST_CASE("LatencyDraw gives LatencySpec::draw's durations from the same engine calls") {
  const std::vector<LatencySpec> specs = {
      {LatencySpec::Kind::Constant, Duration::ms(100), Duration::ms(100), "c"},
      {LatencySpec::Kind::Uniform, Duration::ms(2), Duration::ms(6), "u"},
      {LatencySpec::Kind::Uniform, Duration::s(1), Duration::s(1), "u, one value"},
      {LatencySpec::Kind::Exponential, Duration::ms(2), Duration::ms(2), "e"},
      {LatencySpec::Kind::Exponential, Duration::s(300), Duration::s(300), "e, long"},
  };
  for (const LatencySpec& l : specs) {
    CAPTURE(l.source);
    Engine a(11), b(11);
    const LatencyDraw fast(l);
    for (int i = 0; i < 20000; ++i) REQUIRE(fast(b) == l.draw(a));
    CHECK(a == b);
  }
}

TEST_CASE("InlineRing behaves as a FIFO deque, inline and grown") {
  Engine e(5);
  InlineRing<std::uint32_t, 4> ring;
  std::deque<std::uint32_t> ref;
  for (int step = 0; step < 50000; ++step) {
    // bursts of pushes then drains, so the ring grows past its 4 inline slots, wraps, and
    // empties again
    const bool filling = (step / 64) % 2 == 0;
    const bool push = ref.empty() || (filling ? e() % 4 != 0 : e() % 4 == 0);
    if (push) {
      const auto v = static_cast<std::uint32_t>(e());
      ring.push_back(v);
      ref.push_back(v);
    } else {
      REQUIRE(ring.front() == ref.front());
      ring.pop_front();
      ref.pop_front();
    }
    REQUIRE(ring.size() == ref.size());
    if (!ref.empty()) REQUIRE(ring[ref.size() - 1] == ref.back());
  }
  SUBCASE("copies and moves keep the order") {
    InlineRing<std::uint32_t, 4> a;
    for (std::uint32_t i = 0; i < 3; ++i) a.push_back(i);
    a.pop_front();
    for (std::uint32_t i = 3; i < 9; ++i) a.push_back(i);  // grown, wrapped once
    InlineRing<std::uint32_t, 4> b = a;
    InlineRing<std::uint32_t, 4> c = std::move(a);
    CHECK(a.empty());
    for (std::uint32_t i = 1; i < 9; ++i) {
      CHECK(b.front() == i);
      CHECK(c.front() == i);
      b.pop_front();
      c.pop_front();
    }
    CHECK(b.empty());
    c.clear();
    CHECK(c.empty());
  }
}

TEST_CASE("SmallVec behaves as a vector for sorted insert and erase") {
  Engine e(9);
  SmallVec<std::uint32_t, 2> v;
  std::vector<std::uint32_t> ref;
  for (int step = 0; step < 20000; ++step) {
    const auto x = static_cast<std::uint32_t>(e() % 50);
    auto at = std::lower_bound(ref.begin(), ref.end(), x);
    const std::uint32_t* vat = std::lower_bound(v.begin(), v.end(), x);
    if (at != ref.end() && *at == x) {
      ref.erase(at);
      v.erase(vat);
    } else {
      ref.insert(at, x);
      v.insert(vat, x);
    }
    REQUIRE(std::vector<std::uint32_t>(v.begin(), v.end()) == ref);
  }
  v.clear();
  CHECK(v.empty());
  v.push_back(4);
  CHECK(v.back() == 4);
}
