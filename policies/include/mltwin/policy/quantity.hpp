// mltwin/policy/quantity.hpp — Kubernetes resource quantities ("500m", "16", "32Gi", "1.5",
// "1e3") parsed, rounded and printed as the API server does: k8s.io/apimachinery
// pkg/api/resource at v0.32.2, the release Volcano v1.12.1's go.mod pins (quantity.go
// ParseQuantity, parseQuantityString, UnmarshalJSON, Value, MilliValue, ScaledValue, String,
// CanonicalizeBytes; suffix.go; amount.go; scale_int.go). In the policy library so that a
// production component and mltwin read one manifest alike. docs/quantities.md says it in prose.
//
// The grammar (quantity.go, the comment on type Quantity):
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | <sign><number>          <sign> ::= "+" | "-"
//   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei                  (2^10 .. 2^60)
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E       (10^-9 .. 10^18)
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>     (an integer exponent)
// Nothing else: no hexadecimal ("0x10Gi"), no exponent before a suffix ("1e2Gi"), no spaces
// (" 1" and "1 " are errors here; UnmarshalJSON trims them first, see quantity_from_json).
// parseQuantityString's own leniencies are kept, as upstream tests them: "1." and ".5" and
// "1.G" parse, and so does a number with no digits ("." and "+" and "Ki" are zero).
#pragma once

#include "mltwin/policy/export.hpp"
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace mltwin::policy {

/// Why a quantity was refused.
enum class QuantityProblem {
  FormatWrong,  ///< not <signedNumber><suffix> (upstream ErrFormatWrong)
  Suffix,       ///< an unknown suffix, or an exponent that is not a 64-bit integer (ErrSuffix)
  Numeric,      ///< a number with no digits where upstream needs one (ErrNumeric)
  OutOfRange,   ///< an amount mltwin cannot hold, or a Value()/MilliValue() beyond int64
};

/// A quantity refused; what() names the text (or the amount) and says why, with upstream's
/// own error sentence in parentheses.
class MLTWIN_POLICY_EXPORT QuantityError : public std::invalid_argument {
 public:
  QuantityError(QuantityProblem problem, const std::string& what) : std::invalid_argument(what), problem_(problem) {}
  QuantityProblem problem() const noexcept { return problem_; }

 private:
  QuantityProblem problem_;
};

/// quantity.go's Format: the suffix family a quantity was written with, kept for printing.
enum class QuantityFormat { DecimalExponent, BinarySI, DecimalSI };

/// An amount held exactly, as upstream's fixed-point Quantity holds it: unscaled() x
/// 10^exponent(), never a floating-point number. A parsed amount is a multiple of 10^-9
/// (parsing rounds up to 1n); any amount whose Value() and MilliValue() fit in int64 is held.
class MLTWIN_POLICY_EXPORT Quantity {
 public:
  __extension__ typedef __int128 Int128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

  /// Zero, DecimalSI.
  Quantity() = default;
  /// unscaled x 10^scale in `format` (NewScaledQuantity, NewQuantity: scale 0, NewMilliQuantity:
  /// scale -3). Not rounded: NewScaledQuantity(1, -12) holds 1e-12 exactly, as upstream does.
  Quantity(std::int64_t unscaled, int scale, QuantityFormat format = QuantityFormat::DecimalSI);

  QuantityFormat format() const noexcept { return format_; }
  /// -1, 0 or 1 (Sign).
  int sign() const noexcept { return mantissa_ < 0 ? -1 : mantissa_ > 0 ? 1 : 0; }
  bool is_zero() const noexcept { return mantissa_ == 0; }
  /// The amount is unscaled() x 10^exponent(), with no factor 10 left in unscaled() (0 for zero).
  Int128 unscaled() const noexcept { return mantissa_; }
  std::int64_t exponent() const noexcept { return exponent_; }

  /// Value(): the amount in base units (cores, bytes, counts) rounded up to an integer — up
  /// means away from zero ("0.1" is 1, "-0.1" is -1), as quantity.go documents Value and as its
  /// int64 representation computes it. Throws QuantityError (OutOfRange) when the result is
  /// outside int64; Kubernetes returns an overflowed number there (0 or a wrapped value).
  /// For a negative amount held on upstream's arbitrary-precision path (scale_int.go
  /// scaledValue) Kubernetes computes other numbers — truncation plus one (`-1.86n` has Value()
  /// 1), or low bits of a too-large intermediate — while its int64 path rounds away from zero;
  /// API validation refuses negative requests, and this library follows the documented rule.
  std::int64_t value() const;
  /// MilliValue(): ceil(amount x 1000), rounded as value() is ("100u" is 1, "1.0001m" is 2).
  /// Throws QuantityError (OutOfRange) beyond int64 (|amount| > 9223372036854775.807);
  /// Kubernetes overflows silently there.
  std::int64_t milli_value() const;
  /// ScaledValue(scale): ceil(amount / 10^scale), rounded as value() is; milli_value() is
  /// scaled_value(-3). Throws QuantityError (OutOfRange) beyond int64.
  std::int64_t scaled_value(int scale) const;

  /// RoundUp(scale): the amount rounded up (away from zero) to a multiple of 10^scale, and
  /// whether that lost nothing. RoundUp(0) of "9.01" is 10, not exact; of "-9.01" is -10.
  std::pair<Quantity, bool> round_up(int scale) const;

  /// The nearest double (correctly rounded; +-inf beyond the double range). Upstream's
  /// AsApproximateFloat64 may differ in the last bit; AsFloat64Slow agrees on its tests.
  double to_double() const;

  /// CanonicalizeBytes: the canonical text — the largest suffix of the quantity's format with
  /// no fractional digits ("1.5" is "1500m", "1.5Gi" is "1536Mi", "1e3" stays "1e3", "0.5Ki" is
  /// "512"). BinarySI below 1024 in magnitude, or not an integer, prints as DecimalSI. As
  /// upstream, a DecimalSI amount beyond the E suffix prints without a suffix ("1000E" is "1").
  std::string canonical() const;
  /// String(): the text as parsed when ParseQuantity kept it (it judged the input canonical:
  /// "300Mi", "1500m", and quirks such as "1.500" and "+1k"), else canonical().
  std::string str() const { return text_.empty() ? canonical() : text_; }

  /// Cmp: amounts only (Equal ignores the format as well).
  friend MLTWIN_POLICY_EXPORT std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept;
  friend bool operator==(const Quantity& a, const Quantity& b) noexcept { return (a <=> b) == 0; }

 private:
  friend Quantity parse_quantity(std::string_view text);
  Int128 mantissa_ = 0;        ///< no trailing decimal zeros (0 for zero)
  std::int64_t exponent_ = 0;  ///< base 10
  QuantityFormat format_ = QuantityFormat::DecimalSI;
  std::string text_;  ///< upstream's q.s: the input, when ParseQuantity reuses it as String()
};

/// ParseQuantity: the text exactly, without trimming. An amount that is not a multiple of 1n
/// is rounded up (away from zero) to one ("0.1n" is 1n, "3.001n" is 4n); a BinarySI amount
/// beyond 2^63-1 is capped there ("9Ei" is 9223372036854775807), as upstream caps it; a
/// decimal amount is not capped ("12E" is 1.2e19; its value() throws). A BinarySI amount
/// between 0 and 1 in magnitude becomes DecimalSI ("0.000000000001Ki" is 2n). Throws QuantityError naming the text: FormatWrong
/// ("0x10Gi", "1e2Gi", " 1", ""), Suffix ("1i", "0.1mi", "1e99999999999999999999"), Numeric
/// ("e-10": no digit, and upstream's path for exponents below -9 needs one), OutOfRange (more
/// than 38 significant digits above 1n, i.e. at least 1e29: Kubernetes holds it, but its
/// Value() and MilliValue() overflow int64 anyway). An exponent is read as a 64-bit integer and
/// truncated to 32 bits, as suffix.go does ("1e4294967297" is 10); mltwin does not reproduce
/// the further 32-bit wrap-around of upstream's scale arithmetic for exponents within a few
/// units of +-2^31.
MLTWIN_POLICY_EXPORT Quantity parse_quantity(std::string_view text);

/// Go's strings.TrimSpace: leading and trailing Unicode white space (unicode.IsSpace: \t \n
/// \v \f \r space, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
/// U+3000) removed.
MLTWIN_POLICY_EXPORT std::string_view go_trim_space(std::string_view text);

/// Quantity.UnmarshalJSON on a raw JSON value: `null` is zero; a value in double quotes loses
/// them (the bytes between are not JSON-unescaped: upstream parses them as they are); then
/// strings.TrimSpace and parse_quantity. So `" 16 "` and `16` (a JSON number: its text) are 16,
/// and `"1.5"` and `1.5` are 1500m. A caller holding a decoded JSON string passes its content
/// through go_trim_space and parse_quantity instead. Throws QuantityError as parse_quantity.
MLTWIN_POLICY_EXPORT Quantity quantity_from_json(std::string_view raw_json_value);

}  // namespace mltwin::policy
