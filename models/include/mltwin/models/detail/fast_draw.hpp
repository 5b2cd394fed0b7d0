// mltwin/models/detail/fast_draw.hpp — draws that give the same numbers as Boost.Random's,
// from the same engine state, with the per-call divisions taken out.
//
// boost::random::uniform_int_distribution (Boost 1.74, boost/random/uniform_int_distribution.hpp,
// generate_uniform_int, the "brange > range" branch) divides the engine's range into
// range + 1 buckets — one 64-bit division and one remainder per call — then divides each
// engine output by the bucket size until the quotient is within the range. UniformIntDraw
// does the same with the bucket size computed once and the division by it done as a
// multiplication by a precomputed reciprocal (libdivide's unsigned 64-bit "round-up"
// algorithm, exact for every 64-bit numerator: Granlund & Montgomery, "Division by invariant
// integers using multiplication", PLDI 1994). Same engine calls, same results: a run keeps its
// bytes (tests/models/test_fast_draw.cpp checks it against Boost and against plain division).
//
// LatencyDraw is models::LatencySpec::draw with the distribution set up once.
#pragma once
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <boost/random/exponential_distribution.hpp>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/time.hpp"
#include "mltwin/models/training.hpp"  // LatencySpec

namespace mltwin::models::detail {

__extension__ typedef unsigned __int128 U128;  // GCC and Clang on 64-bit targets

/// n / d for a fixed divisor d ≥ 1 and any 64-bit n, without a division instruction.
class InvariantDivider {
 public:
  InvariantDivider() = default;
  explicit InvariantDivider(std::uint64_t d) {
    shift_ = static_cast<std::uint8_t>(63 - std::countl_zero(d));  // floor(log2 d); d ≥ 1
    if ((d & (d - 1)) == 0) {
      magic_ = 0;  // a power of two: a shift
      return;
    }
    // m = floor(2^(64 + shift) / d) with its remainder; then doubled (65-bit "add" variant).
    const U128 num = static_cast<U128>(1) << (64 + shift_);
    std::uint64_t m = static_cast<std::uint64_t>(num / d);
    const std::uint64_t rem = static_cast<std::uint64_t>(num % d);
    m += m;
    const std::uint64_t twice_rem = rem + rem;
    if (twice_rem >= d || twice_rem < rem) m += 1;
    magic_ = m + 1;
  }
  std::uint64_t operator()(std::uint64_t n) const noexcept {
    if (magic_ == 0) return n >> shift_;
    const auto t = static_cast<std::uint64_t>((static_cast<U128>(magic_) * n) >> 64);
    return (((n - t) >> 1) + t) >> shift_;
  }

 private:
  std::uint64_t magic_ = 0;
  std::uint8_t shift_ = 0;
};

/// boost::random::uniform_int_distribution<T>(lo, hi)(engine) for core::Engine (mt19937_64),
/// the same value from the same engine calls.
template <class T>
class UniformIntDraw {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
  using Unsigned = std::make_unsigned_t<T>;
  // A Mersenne Twister of word size 64 yields every value of [0, 2^64 − 1]: Boost's
  // "brange > range" branch with brange = 2^64 − 1, which the arithmetic below follows.
  static_assert(std::is_same_v<core::Engine::result_type, std::uint64_t> && core::Engine::word_size == 64);

 public:
  UniformIntDraw() = default;
  UniformIntDraw(T lo, T hi) : lo_(lo), range_(static_cast<std::uint64_t>(static_cast<Unsigned>(hi) - static_cast<Unsigned>(lo))) {
    if (range_ == 0 || range_ == std::numeric_limits<std::uint64_t>::max()) return;  // no buckets
    // brange = 2^64 − 1 is the type's maximum: Boost's first bucket formula.
    constexpr std::uint64_t brange = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t bucket = brange / (range_ + 1);
    if (brange % (range_ + 1) == range_) ++bucket;
    div_ = InvariantDivider(bucket);
  }
  T operator()(core::Engine& e) const {
    if (range_ == 0) return lo_;  // Boost draws nothing
    if (range_ == std::numeric_limits<std::uint64_t>::max()) return add(e());
    for (;;) {
      const std::uint64_t q = div_(e());
      if (q <= range_) return add(q);
    }
  }

 private:
  T add(std::uint64_t q) const noexcept {
    return static_cast<T>(static_cast<Unsigned>(static_cast<Unsigned>(lo_) + static_cast<Unsigned>(q)));
  }
  T lo_{};
  std::uint64_t range_ = 0;
  InvariantDivider div_;
};

/// LatencySpec::draw(engine) with the distribution built once: the same Duration from the
/// same engine calls (constant: none; uniform: Boost's uniform_int_distribution<int64_t> on
/// [min, max] ns; exponential: Boost's exponential_distribution<double>(1 / mean s) then
/// Duration::from_seconds).
class LatencyDraw {
 public:
  LatencyDraw() = default;
  explicit LatencyDraw(const LatencySpec& l) : kind_(l.kind), a_(l.a) {
    if (kind_ == LatencySpec::Kind::Uniform) uniform_ = UniformIntDraw<std::int64_t>(l.a.count_ns(), l.b.count_ns());
    if (kind_ == LatencySpec::Kind::Exponential) lambda_ = 1.0 / l.a.seconds();
  }
  core::Duration operator()(core::Engine& e) const {
    switch (kind_) {
      case LatencySpec::Kind::Constant: return a_;
      case LatencySpec::Kind::Uniform: return core::Duration::ns(uniform_(e));
      case LatencySpec::Kind::Exponential:
        return core::Duration::from_seconds(boost::random::exponential_distribution<double>(lambda_)(e));
    }
    return a_;
  }

 private:
  LatencySpec::Kind kind_ = LatencySpec::Kind::Constant;
  core::Duration a_;
  double lambda_ = 1;
  UniformIntDraw<std::int64_t> uniform_;
};

}  // namespace mltwin::models::detail
