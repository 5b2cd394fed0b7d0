// Tests of time conversions and parse_duration (mltwin/core/time.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "mltwin/core/time.hpp"

using mltwin::core::Duration;
using mltwin::core::parse_duration;
using mltwin::core::Time;

namespace {
std::int64_t parsed_ns(const std::string& s) { return parse_duration(s).count_ns(); }
constexpr std::int64_t kS = 1'000'000'000;
}  // namespace

TEST_CASE("parse_duration: every unit, integers and fractions") {
  CHECK(parsed_ns("42ns") == 42);
  CHECK(parsed_ns("250us") == 250'000);
  CHECK(parsed_ns("100ms") == 100'000'000);
  CHECK(parsed_ns("90s") == 90 * kS);
  CHECK(parsed_ns("2m") == 120 * kS);
  CHECK(parsed_ns("1.5h") == 5'400 * kS);
  CHECK(parsed_ns("7d") == 604'800 * kS);
  CHECK(parsed_ns("30") == 30 * kS);          // bare number: seconds
  CHECK(parsed_ns("0.5") == 500'000'000);
  CHECK(parsed_ns("0.1s") == 100'000'000);
  CHECK(parsed_ns("1e3ms") == kS);
  CHECK(parsed_ns("2.5us") == 2'500);
  CHECK(parsed_ns("1.5ns") == 2);             // nearest ns, ties away from zero
  CHECK(parsed_ns("0s") == 0);
  CHECK(parsed_ns("-5s") == -5 * kS);
  CHECK(parsed_ns("9223372036854775807ns") == std::numeric_limits<std::int64_t>::max());
  CHECK(parsed_ns("106751d") == 106'751LL * 86'400 * kS);  // ~292 years fits
}

TEST_CASE("parse_duration: malformed or out-of-range text throws, naming the text") {
  for (const char* bad : {"", "s", "ms", "5x", "5 s", " 5s", "5s ", "abc", "1.5.5s", "+5s",
                          "5sec", "inf", "nans", "1e300s", "106752d", "9223372036854775808ns",
                          "5S", "0x10s"}) {
    CAPTURE(bad);
    std::string quoted = "\"";  // built with append: GCC 12 misfires -Wrestrict on a + b + c
    quoted.append(bad).append("\"");
    CHECK_THROWS_WITH_AS(parse_duration(bad), doctest::Contains(quoted.c_str()),
                         std::invalid_argument);
  }
}

TEST_CASE("Duration/Time conversions round to the nearest ns") {
  CHECK(Duration::from_seconds(1.5e-9).count_ns() == 2);
  CHECK(Duration::from_seconds(-1.5e-9).count_ns() == -2);
  CHECK(Duration::from_seconds(0.25).count_ns() == 250'000'000);
  CHECK(Time::from_seconds(2.0).ns() == 2 * kS);
  CHECK_THROWS_AS(Duration::from_seconds(1e10), std::out_of_range);
  CHECK((Time::from_ns(10) - Time::from_ns(4)).count_ns() == 6);
  CHECK(Duration::ms(3) + Duration::us(2) == Duration::ns(3'002'000));
}

TEST_CASE("detail::round_half_away is std::llround over the range it is used on") {
  using mltwin::core::detail::round_half_away;
  // Halves away from zero, the largest double below a half, values that are whole already.
  for (const double x : {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                         1e-300, 4503599627370495.5, 4503599627370497.0, 9007199254740993.0, 9.1e18, -9.1e18,
                         123456789.49999997, 2'000'000.5, 3.0e15 + 0.5}) {
    CAPTURE(x);
    CHECK(round_half_away(x) == std::llround(x));
  }
  // A sweep of random magnitudes and fractions (xorshift: independent of the library's RNGs).
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  int mismatches = 0;
  for (int i = 0; i < 200'000; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const double x = std::ldexp(static_cast<double>(s >> 11) / 9007199254740992.0, static_cast<int>(s % 62)) *
                     ((s & 1) ? -1.0 : 1.0);
    if (round_half_away(x) != std::llround(x)) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("time arithmetic that leaves the int64 nanosecond range throws instead of wrapping") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  // 3.05 s + INT64_MAX ns wrapped to -9223372033804775809 ns ("in the past").
  CHECK_THROWS_AS((void)(Time::from_ns(3'050'000'000) + Duration::ns(kMax)), std::overflow_error);
  CHECK_THROWS_WITH_AS((void)(Time::from_ns(kMax - 5) + Duration::ns(10)),
                       "simulated time overflow: 9223372036854775802 ns + 10 ns leaves the int64 nanosecond range (about 292 "
                       "years either side of t = 0)",
                       std::overflow_error);
  CHECK_THROWS_AS((void)(Time::from_ns(kMin + 5) - Duration::ns(10)), std::overflow_error);
  CHECK_THROWS_AS((void)(Time::from_ns(kMax) - Time::from_ns(-1)), std::overflow_error);
  CHECK_THROWS_AS((void)(Duration::ns(kMax) + Duration::ns(1)), std::overflow_error);
  CHECK_THROWS_AS((void)(Duration::ns(kMin) - Duration::ns(1)), std::overflow_error);
  CHECK_THROWS_AS((void)(Duration::ns(kMax / 2 + 1) * 2), std::overflow_error);
  CHECK_THROWS_AS((void)(Duration::ns(kMin) / -1), std::overflow_error);
  CHECK_THROWS_AS((void)Duration::s(9'223'372'037), std::overflow_error);  // 2^63 ns is 9,223,372,036.85 s
  Time t = Time::from_ns(kMax - 1);
  CHECK_THROWS_AS(t += Duration::ns(2), std::overflow_error);
  CHECK(t.ns() == kMax - 1);  // unchanged by the failed +=
  // At the edges, exact results still come out.
  CHECK((Time::from_ns(kMax - 5) + Duration::ns(5)).ns() == kMax);
  CHECK(Duration::s(9'223'372'036).count_ns() == 9'223'372'036'000'000'000);
  CHECK((Duration::ns(kMin + 1) / -1).count_ns() == kMax);
}
