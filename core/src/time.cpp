// parse_duration: durations as people write them in scenario files ("90s", "1.5h", "7d").
//
// Grammar: <number><unit>, nothing else (no spaces, no sign other than a leading '-').
// <number> is a decimal as std::from_chars reads it ("90", "1.5", "2e3"); <unit> is one of
// ns, us, ms, s, m (minutes), h, d (days); without a unit the number is seconds.
// Integers are converted exactly in integer arithmetic (so "9223372036854775807ns" survives);
// numbers with a fraction or exponent go through double and round to the nearest ns, like
// Duration::from_seconds.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "mltwin/core/time.hpp"

namespace mltwin::core {

void detail::time_overflow(std::int64_t a, char op, std::int64_t b) {
  throw std::overflow_error("simulated time overflow: " + std::to_string(a) + (op == '*' ? " ns * " : std::string(" ns ") + op + " ") +
                            std::to_string(b) + (op == '*' ? "" : " ns") +
                            " leaves the int64 nanosecond range (about 292 years either side of t = 0)");
}

namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t ns;
};

// Two-letter suffixes first, so that "5ms" is not read as "5m" followed by junk "s".
constexpr Unit kUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60LL * 1'000'000'000},
    {"h", 3'600LL * 1'000'000'000},
    {"d", 86'400LL * 1'000'000'000},
};

[[noreturn]] void fail(const std::string& text, const char* why) {
  throw std::invalid_argument("parse_duration: cannot parse \"" + text + "\": " + why +
                              " (expected <number><unit>, unit one of ns, us, ms, s, m, h, d;"
                              " a bare number is seconds)");
}

}  // namespace

Duration parse_duration(const std::string& text) {
  std::string_view num = text;
  std::int64_t unit_ns = 1'000'000'000;  // bare number: seconds
  for (const Unit& u : kUnits) {
    if (num.size() > u.suffix.size() && num.ends_with(u.suffix)) {
      num.remove_suffix(u.suffix.size());
      unit_ns = u.ns;
      break;
    }
  }
  if (num.empty()) fail(text, "no number");
  const char* const first = num.data();
  const char* const last = first + num.size();

  // Exact path: an integer count of units.
  std::int64_t whole = 0;
  auto [ip, iec] = std::from_chars(first, last, whole);
  if (iec == std::errc() && ip == last) {
    std::int64_t ns = 0;
    if (__builtin_mul_overflow(whole, unit_ns, &ns)) fail(text, "out of the int64 ns range");
    return Duration::ns(ns);
  }

  // General path: a decimal fraction or exponent.
  double value = 0.0;
  auto [fp, fec] = std::from_chars(first, last, value);
  if (fec == std::errc::result_out_of_range) fail(text, "out of the int64 ns range");
  if (fec != std::errc() || fp != last) fail(text, "not a number followed by a unit");
  const double ns = value * static_cast<double>(unit_ns);
  // 2^63 is exactly representable; anything at or beyond it does not fit in int64.
  if (!std::isfinite(ns) || std::fabs(ns) >= 9223372036854775808.0)
    fail(text, "not finite or out of the int64 ns range");
  return Duration::ns(static_cast<std::int64_t>(std::llround(ns)));
}

}  // namespace mltwin::core
