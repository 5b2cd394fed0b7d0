// mltwin/core/time.hpp — simulated time as an integer count of nanoseconds.
//
// Time is never a floating-point number inside the kernel: two builds, or two standard
// libraries, must order events identically. Conversions from seconds round to the nearest
// nanosecond (ties away from zero) and are the only place a double meets a time.
//
// Arithmetic is checked: a sum, difference or product that leaves the int64 nanosecond range
// (about ±292 years) throws std::overflow_error rather than wrapping to a time in the past.
#pragma once
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace mltwin::core {

namespace detail {
/// Throws std::overflow_error "simulated time overflow: <a> ns <op> <b> ..." (time.cpp).
[[noreturn]] void time_overflow(std::int64_t a, char op, std::int64_t b);
/// Throws std::out_of_range "time value <seconds, %.6g> s is not finite or exceeds ..." (time.cpp).
[[noreturn]] void time_out_of_range(double seconds);
constexpr std::int64_t add_ns(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) time_overflow(a, '+', b);
  return r;
}
constexpr std::int64_t sub_ns(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) time_overflow(a, '-', b);
  return r;
}
constexpr std::int64_t mul_ns(std::int64_t a, std::int64_t k) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, k, &r)) time_overflow(a, '*', k);
  return r;
}
/// std::llround(x) for finite |x| < 2^63 (the caller checks): the nearest integer, halves
/// away from zero. Inline, where the libm call cost as much as the rest of a from_seconds; the
/// same result bit for bit: x − trunc(x) is exact in double (it keeps only bits of x).
constexpr std::int64_t round_half_away(double x) {
  const auto i = static_cast<std::int64_t>(x);  // toward zero
  const double frac = x - static_cast<double>(i);
  return i + static_cast<std::int64_t>(frac >= 0.5) - static_cast<std::int64_t>(frac <= -0.5);
}
}  // namespace detail

/// A span of simulated time, in integer nanoseconds (may be negative). Every operation that
/// would leave the int64 range throws std::overflow_error (see the file comment).
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(std::int64_t v) { return Duration(v); }
  static constexpr Duration us(std::int64_t v) { return Duration(detail::mul_ns(v, 1'000)); }
  static constexpr Duration ms(std::int64_t v) { return Duration(detail::mul_ns(v, 1'000'000)); }
  static constexpr Duration s(std::int64_t v) { return Duration(detail::mul_ns(v, 1'000'000'000)); }
  /// From seconds (double), rounded to the nearest ns. Throws std::out_of_range if the value
  /// is not finite or does not fit in int64 ns (about ±292 years).
  static Duration from_seconds(double seconds);
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t count_ns() const { return v_; }
  constexpr double seconds() const { return static_cast<double>(v_) * 1e-9; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(detail::add_ns(v_, o.v_)); }
  constexpr Duration operator-(Duration o) const { return Duration(detail::sub_ns(v_, o.v_)); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(detail::mul_ns(v_, k)); }
  constexpr Duration operator/(std::int64_t k) const {
    if (k == -1) return Duration(detail::sub_ns(0, v_));  // INT64_MIN / -1 overflows
    return Duration(v_ / k);
  }
  constexpr Duration& operator+=(Duration o) { v_ = detail::add_ns(v_, o.v_); return *this; }
  constexpr Duration& operator-=(Duration o) { v_ = detail::sub_ns(v_, o.v_); return *this; }

 private:
  constexpr explicit Duration(std::int64_t v) : v_(v) {}
  std::int64_t v_ = 0;
};

/// A point in simulated time: nanoseconds since the start of the run (t = 0).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_ns(std::int64_t v) { return Time(v); }
  /// From seconds since t = 0, rounded to the nearest ns; throws std::out_of_range as Duration.
  static Time from_seconds(double seconds) { return Time(Duration::from_seconds(seconds).count_ns()); }
  static constexpr Time zero() { return Time(0); }
  /// Later than every event: used as "never".
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns() const { return v_; }
  constexpr double seconds() const { return static_cast<double>(v_) * 1e-9; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return Time(detail::add_ns(v_, d.count_ns())); }
  constexpr Time operator-(Duration d) const { return Time(detail::sub_ns(v_, d.count_ns())); }
  constexpr Duration operator-(Time o) const { return Duration::ns(detail::sub_ns(v_, o.v_)); }
  constexpr Time& operator+=(Duration d) { v_ = detail::add_ns(v_, d.count_ns()); return *this; }

 private:
  constexpr explicit Time(std::int64_t v) : v_(v) {}
  std::int64_t v_ = 0;
};

inline Duration Duration::from_seconds(double seconds) {
  const double ns = seconds * 1e9;
  if (!std::isfinite(ns) || std::fabs(ns) >= 9.2e18)
    detail::time_out_of_range(seconds);
  return Duration(detail::round_half_away(ns));
}

/// Parses a duration written as "<number><unit>" with unit ns, us, ms, s, m, h or d
/// (e.g. "90s", "1.5h", "7d"); a bare number is seconds. Throws std::invalid_argument
/// naming the text when it cannot be parsed.
Duration parse_duration(const std::string& text);

}  // namespace mltwin::core
