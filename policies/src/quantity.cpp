// Kubernetes quantities, rule by rule after k8s.io/apimachinery v0.32.2 pkg/api/resource
// (the release Volcano v1.12.1's go.mod pins). Each function names the upstream function whose
// rule it follows; the code is mltwin's own. Upstream keeps a quantity either as an int64 with
// a base-10 scale (int64Amount, its "fast path") or as an arbitrary-precision inf.Dec; both
// hold the same amount, which mltwin keeps as a 128-bit mantissa and a base-10 exponent.
#include "mltwin/policy/quantity.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mltwin::policy {
namespace {

using I128 = Quantity::Int128;
__extension__ typedef unsigned __int128 U128;

constexpr int kMaxDigits = 38;  // every 38-digit number fits in a signed 128-bit integer
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr U128 kNano = 1000000000;  // 10^9: parsed amounts are multiples of 10^-9 (Nano)

/// quantity.go splitREString, quoted in upstream's ErrFormatWrong.
constexpr const char* kRegex = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

const std::array<U128, kMaxDigits + 1>& pow10_table() {
  static const std::array<U128, kMaxDigits + 1> t = [] {
    std::array<U128, kMaxDigits + 1> a{};
    a[0] = 1;
    for (std::size_t i = 1; i < a.size(); ++i) a[i] = a[i - 1] * 10;
    return a;
  }();
  return t;
}

U128 pow10(std::int64_t n) { return pow10_table()[static_cast<std::size_t>(n)]; }

std::string u128_digits(U128 v) {
  if (v == 0) return "0";
  char buf[40];
  int i = 40;
  while (v != 0) {
    buf[--i] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  return std::string(buf + i, static_cast<std::size_t>(40 - i));
}

int digit_count(U128 v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

U128 magnitude(I128 m) { return m < 0 ? static_cast<U128>(-m) : static_cast<U128>(m); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The text for an error message: in single quotes, bytes outside printable ASCII as \xNN, and
/// cut after 120 bytes.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 120;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f) {
      char b[5];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      if (c == '\'' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  out += "'";
  if (s.size() > kShown) out += " (" + std::to_string(s.size()) + " bytes; the first " + std::to_string(kShown) + " shown)";
  return out;
}

[[noreturn]] void refuse(QuantityProblem p, std::string_view text, const std::string& why) {
  static const char* const upstream[] = {
      "", "unable to parse quantity's suffix", "unable to parse numeric part of quantity", ""};
  std::string msg = quoted(text) + " is not a Kubernetes quantity: " + why;
  if (p == QuantityProblem::FormatWrong)
    msg += std::string(" (Kubernetes: quantities must match the regular expression '") + kRegex + "')";
  else if (p != QuantityProblem::OutOfRange)
    msg += std::string(" (Kubernetes: ") + upstream[static_cast<int>(p)] + ")";
  throw QuantityError(p, msg);
}

/// parseQuantityString's pieces: the sign, the integer digits without leading zeros ("0" when
/// none are left), the fraction digits, the suffix, and where upstream's `value` (the number
/// as written, sign included) ends.
struct Pieces {
  bool positive = true;
  std::string_view num, denom, suffix;
  std::size_t value_end = 0;
  bool value_has_digit = false;
};

/// parseQuantityString (quantity.go): a hand scanner, not the regular expression it quotes.
/// Returns the offset of the byte it refuses, or npos.
std::size_t scan(std::string_view s, Pieces& p) {
  const std::size_t end = s.size();
  std::size_t pos = 0;
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    p.positive = s[0] == '+';
    ++pos;
  }
  while (pos < end && s[pos] == '0') ++pos;  // leading zeros
  if (pos == end) {                          // all zeros (or nothing) after the sign: zero
    p.num = "0";
    p.value_has_digit = true;  // upstream sets value = "0" here
    p.value_end = end;
    return std::string_view::npos;
  }
  auto finish = [&](std::size_t value_end) {
    p.value_end = value_end;
    for (std::size_t i = 0; i < value_end; ++i) p.value_has_digit = p.value_has_digit || is_digit(s[i]);
    return std::string_view::npos;
  };
  const std::size_t num_start = pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  p.num = s.substr(num_start, pos - num_start);
  if (pos == end) return finish(end);
  if (p.num.empty()) p.num = "0";
  if (s[pos] == '.') {  // "1." is accepted: upstream's TODO leaves an empty fraction legal
    const std::size_t denom_start = ++pos;
    while (pos < end && is_digit(s[pos])) ++pos;
    p.denom = s.substr(denom_start, pos - denom_start);
    if (pos == end) return finish(end);
  }
  finish(pos);
  const std::size_t suffix_start = pos;
  constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  if (pos < end) return pos;
  p.suffix = s.substr(suffix_start);
  return std::string_view::npos;
}

struct Suffix {
  int base = 10;                 // 10 or 2
  std::int64_t exponent = 0;     // of the base
  QuantityFormat format = QuantityFormat::DecimalSI;
};

/// Go's strconv.ParseInt(s, 10, 64): an optional sign and one or more decimal digits, within
/// int64. False otherwise.
bool go_parse_int64(std::string_view s, std::int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  std::uint64_t v = 0;
  const std::uint64_t bound = neg ? (std::uint64_t{1} << 63) : static_cast<std::uint64_t>(kInt64Max);
  for (char c : s) {
    if (!is_digit(c)) return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (bound - d) / 10) return false;
    v = v * 10 + d;
  }
  out = neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return true;
}

/// suffix.go: fastLookup.interpret, then suffixHandler.interpret (the decSuffixes and
/// binSuffixes tables, then "e"/"E" followed by strconv.ParseInt's integer, truncated to 32
/// bits by int32(parsed)).
Suffix interpret(std::string_view text, std::string_view suf) {
  static const std::pair<std::string_view, int> decimal[] = {{"", 0},  {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3},
                                                             {"M", 6}, {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<std::string_view, int> binary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                            {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [s, e] : decimal)
    if (suf == s) return {10, e, QuantityFormat::DecimalSI};
  for (const auto& [s, e] : binary)
    if (suf == s) return {2, e, QuantityFormat::BinarySI};
  if (suf.size() > 1 && (suf[0] == 'e' || suf[0] == 'E')) {
    std::int64_t v = 0;
    if (!go_parse_int64(suf.substr(1), v))
      refuse(QuantityProblem::Suffix, text, "the exponent " + quoted(suf.substr(1)) + " is not a 64-bit integer");
    const auto truncated = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
    return {10, truncated, QuantityFormat::DecimalExponent};
  }
  refuse(QuantityProblem::Suffix, text,
         "unknown suffix " + quoted(suf) + " (Kubernetes knows n u m k M G T P E, Ki Mi Gi Ti Pi Ei, and e or E followed by an integer exponent)");
}

/// Adds one to a string of decimal digits.
void increment(std::string& digits) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return;
    }
    digits[i] = '0';
  }
  digits.insert(digits.begin(), '1');
}

}  // namespace

Quantity::Quantity(std::int64_t unscaled, int scale, QuantityFormat format) : format_(format) {
  mantissa_ = unscaled;
  exponent_ = unscaled == 0 ? 0 : scale;
  while (mantissa_ != 0 && mantissa_ % 10 == 0) {
    mantissa_ /= 10;
    ++exponent_;
  }
}

Quantity parse_quantity(std::string_view text) {
  // ParseQuantity: "" is ErrFormatWrong; "0" is DecimalSI zero, its text kept.
  if (text.empty()) refuse(QuantityProblem::FormatWrong, text, "it is empty");
  Quantity q;
  if (text == "0") {
    q.text_ = "0";
    return q;
  }
  Pieces p;
  if (const std::size_t bad = scan(text, p); bad != std::string_view::npos) {
    std::string why = quoted(text.substr(bad, 1)) + " at offset " + std::to_string(bad) +
                      " cannot stand there; a quantity is <number><suffix>, such as 500m, 16, 1.5Gi or 1e3";
    // Byte units as people write them (16GB, 16GiB, 512MB): Kubernetes' suffixes have no B.
    if (text.size() >= 2 && (text.back() == 'B' || text.back() == 'b')) {
      std::string_view unit = text.substr(0, text.size() - 1);
      std::size_t u = unit.size();
      while (u > 0 && std::isalpha(static_cast<unsigned char>(unit[u - 1]))) --u;
      std::string_view number = unit.substr(0, u);
      const std::string_view prefix = unit.substr(u);
      while (!number.empty() && number.back() == ' ') number.remove_suffix(1);  // "12 GB"
      static constexpr std::string_view kPrefixes[] = {"k", "K", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "KI", "MI", "GI", "TI",
                                                       "m", "g", "t", "ki", "mi", "gi", "ti"};
      for (std::string_view k : kPrefixes)
        if (!number.empty() && prefix == k) {
          const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(k[0])));
          const std::string dec = std::string(number) + (c == 'K' ? "k" : std::string(1, c));
          const std::string bin = std::string(number) + std::string(1, c) + "i";
          why += "; Kubernetes writes bytes without a B: " + dec + " (" + (c == 'K' ? "10^3" : c == 'M' ? "10^6" : c == 'G' ? "10^9" : c == 'T' ? "10^12" : c == 'P' ? "10^15" : "10^18") +
                 " bytes each) or " + bin + " (" + (c == 'K' ? "2^10" : c == 'M' ? "2^20" : c == 'G' ? "2^30" : c == 'T' ? "2^40" : c == 'P' ? "2^50" : "2^60") + ")";
          break;
        }
    }
    refuse(QuantityProblem::FormatWrong, text, why);
  }
  const Suffix suf = interpret(text, p.suffix);
  q.format_ = suf.format;
  const auto num_len = static_cast<std::int64_t>(p.num.size());
  const auto denom_len = static_cast<std::int64_t>(p.denom.size());

  // Which of upstream's two representations ParseQuantity builds decides two things an
  // amount alone does not: the inf.Dec path needs a digit in the number (inf.Dec.SetString, else
  // ErrNumeric), and the int64 path keeps the text as String() when it judges it canonical.
  bool fast = false;
  std::int64_t binary_num = 0;  // the integer part, on the BinarySI fast path
  if (suf.format != QuantityFormat::BinarySI) {
    fast = 18 - (num_len + denom_len) >= 0 && suf.exponent - denom_len >= -9;
  } else if (p.denom.empty() && 15 - num_len - suf.exponent * 3 / 10 - 1 >= 0) {
    (void)go_parse_int64(p.num, binary_num);  // at most 11 digits here
    fast = binary_num <= (kInt64Max >> suf.exponent);  // int64Multiply(value, 1<<exponent)
  }
  if (!fast && !p.value_has_digit)
    refuse(QuantityProblem::Numeric, text,
           "its number " + quoted(text.substr(0, p.value_end)) + " has no digit, which Kubernetes needs for this suffix");
  if (fast) {
    if (suf.format == QuantityFormat::BinarySI) {
      if ((binary_num & 7) != 0) q.text_ = std::string(text);
    } else {
      const std::string shifted = std::string(p.num) + std::string(p.denom);
      const std::int64_t scale = suf.exponent - denom_len;
      const bool thousands = shifted.size() >= 3 && shifted.compare(shifted.size() - 3, 3, "000") == 0;
      if (scale % 3 == 0 && !thousands && shifted[0] != '0') q.text_ = std::string(text);
    }
  }

  U128 mag = 0;
  std::int64_t exponent = 0;
  if (suf.base == 10) {
    // The digits and the exponent of their last one; digits below 10^-9 are dropped and, if
    // any was not 0, the rest goes up by one unit of 10^-9 (inf.RoundUp to Nano).
    std::string digits = std::string(p.num) + std::string(p.denom);
    const std::size_t lead = digits.find_first_not_of('0');
    if (lead == std::string::npos) {
      digits.clear();
    } else {
      digits.erase(0, lead);
    }
    exponent = suf.exponent - denom_len;
    if (!digits.empty() && exponent < -9) {
      const std::uint64_t drop = static_cast<std::uint64_t>(-9 - exponent);
      bool lost;
      if (drop >= digits.size()) {
        lost = true;
        digits.clear();
      } else {
        const std::size_t keep = digits.size() - static_cast<std::size_t>(drop);
        lost = digits.find_first_not_of('0', keep) != std::string::npos;
        digits.resize(keep);
      }
      exponent = -9;
      if (lost) increment(digits);
    }
    const std::size_t last = digits.find_last_not_of('0');
    if (last == std::string::npos) {
      digits.clear();
      exponent = 0;
    } else {
      exponent += static_cast<std::int64_t>(digits.size() - 1 - last);
      digits.resize(last + 1);
    }
    if (digits.size() > static_cast<std::size_t>(kMaxDigits))
      refuse(QuantityProblem::OutOfRange, text,
             "it has more than 38 significant digits above 1n (it is at least 1e29); mltwin cannot hold it, and its "
             "Value() and MilliValue() would overflow int64 in Kubernetes");
    for (char c : digits) mag = mag * 10 + static_cast<U128>(c - '0');
  } else {
    // BinarySI: (num.denom) x 2^exponent, rounded up to a multiple of 10^-9, capped at 2^63-1
    // (maxAllowed). In units of 10^-9: num x 2^e x 10^9 + ceil(0.denom x 2^e x 10^9), the latter
    // by Horner's rule from the last digit with a ceiling at each step (ceil(ceil(x)/10) is
    // ceil(x/10)), each step within 10 x 2^60 x 10^9 < 2^127.
    const U128 cap = static_cast<U128>(kInt64Max);
    bool capped = p.num.size() > 19;
    U128 nano = 0;
    if (!capped) {
      U128 n = 0;
      for (char c : p.num) n = n * 10 + static_cast<U128>(c - '0');
      capped = n > (cap >> suf.exponent);
      if (!capped) {
        const U128 m = (U128{1} << suf.exponent) * kNano;
        U128 frac = 0;
        for (std::size_t i = p.denom.size(); i-- > 0;) frac = (static_cast<U128>(p.denom[i] - '0') * m + frac + 9) / 10;
        nano = (n << suf.exponent) * kNano + frac;
        capped = nano > cap * kNano;
      }
    }
    if (capped) {
      mag = cap;
    } else {
      mag = nano;
      exponent = -9;
      if (nano > 0 && nano < kNano) q.format_ = QuantityFormat::DecimalSI;  // 0 < amount < 1
    }
    if (mag == 0) exponent = 0;
    while (mag != 0 && mag % 10 == 0) {
      mag /= 10;
      ++exponent;
    }
  }
  q.mantissa_ = p.positive ? static_cast<I128>(mag) : -static_cast<I128>(mag);
  q.exponent_ = exponent;
  return q;
}

namespace {

/// Compares |a| x 10^ea with |b| x 10^eb (mantissas without trailing zeros, or 0).
std::strong_ordering compare_magnitude(U128 a, std::int64_t ea, U128 b, std::int64_t eb) {
  if (a == 0 || b == 0) return a <=> b;
  const std::int64_t ta = digit_count(a) - 1 + ea, tb = digit_count(b) - 1 + eb;  // leading digit's place
  if (ta != tb) return ta <=> tb;
  // Same leading place: the one with the larger exponent has fewer digits; scaled to the
  // other's exponent it has as many, at most 38.
  if (ea > eb) return a * pow10(ea - eb) <=> b;
  if (eb > ea) return a <=> b * pow10(eb - ea);
  return a <=> b;
}

}  // namespace

std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept {
  const int sa = a.sign(), sb = b.sign();
  if (sa != sb) return sa <=> sb;
  if (sa == 0) return std::strong_ordering::equal;
  const auto m = compare_magnitude(magnitude(a.mantissa_), a.exponent_, magnitude(b.mantissa_), b.exponent_);
  if (sa > 0) return m;
  return m == std::strong_ordering::less ? std::strong_ordering::greater
         : m == std::strong_ordering::greater ? std::strong_ordering::less
                                              : m;
}

std::int64_t Quantity::scaled_value(int scale) const {
  // ScaledValue / int64Amount.AsScaledInt64 / negativeScaleInt64: ceil away from zero.
  if (mantissa_ == 0) return 0;
  const bool neg = mantissa_ < 0;
  const U128 mag = magnitude(mantissa_);
  const U128 limit = neg ? (U128{1} << 63) : static_cast<U128>(kInt64Max);
  const std::int64_t d = exponent_ - scale;
  U128 r = 0;
  bool over = false;
  if (d >= 0) {
    over = d > 19 || mag > limit / pow10(d);
    if (!over) r = mag * pow10(d);
  } else if (-d > kMaxDigits) {
    r = 1;  // 0 < |amount| < 10^scale
  } else {
    const U128 p = pow10(-d);
    r = mag / p + (mag % p != 0 ? 1 : 0);
    over = r > limit;
  }
  if (over) {
    const std::string what = scale == 0 ? "Value()" : scale == -3 ? "MilliValue()" : "ScaledValue(" + std::to_string(scale) + ")";
    throw QuantityError(QuantityProblem::OutOfRange,
                        "quantity " + canonical() + ": its " + what +
                            " is beyond a 64-bit integer (at most 9223372036854775807 in magnitude); Kubernetes "
                            "returns an overflowed number there");
  }
  return neg ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(r)) : static_cast<std::int64_t>(r);
}

std::int64_t Quantity::value() const { return scaled_value(0); }
std::int64_t Quantity::milli_value() const { return scaled_value(-3); }

std::pair<Quantity, bool> Quantity::round_up(int scale) const {
  // RoundUp / int64Amount.AsScale / negativeScaleInt64 (away from zero).
  if (mantissa_ == 0 || exponent_ >= scale) {
    Quantity same = *this;
    return {same, true};
  }
  const std::int64_t d = scale - exponent_;
  const U128 mag = magnitude(mantissa_);
  U128 r = 1;
  bool exact = false;
  if (d <= kMaxDigits) {
    const U128 p = pow10(d);
    r = mag / p + (mag % p != 0 ? 1 : 0);
    exact = mag % p == 0;
  }
  Quantity out;
  out.format_ = format_;
  out.mantissa_ = mantissa_ < 0 ? -static_cast<I128>(r) : static_cast<I128>(r);
  out.exponent_ = scale;
  while (out.mantissa_ % 10 == 0) {
    out.mantissa_ /= 10;
    ++out.exponent_;
  }
  return {out, exact};
}

double Quantity::to_double() const {
  if (mantissa_ == 0) return 0.0;
  const std::string s = u128_digits(magnitude(mantissa_)) + "e" + std::to_string(exponent_);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  (void)ptr;
  if (ec == std::errc::result_out_of_range) v = exponent_ > 0 ? HUGE_VAL : 0.0;
  return mantissa_ < 0 ? -v : v;
}

std::string Quantity::canonical() const {
  // CanonicalizeBytes with int64Amount/infDecAmount.AsCanonicalBytes and
  // AsCanonicalBase1024Bytes, and suffixHandler.constructBytes for the suffix.
  if (mantissa_ == 0) return "0";
  const std::string sign = mantissa_ < 0 ? "-" : "";
  const U128 mag = magnitude(mantissa_);
  QuantityFormat f = format_;
  if (f == QuantityFormat::BinarySI) {
    // Below 1024 in magnitude, or with a fraction (AsScale(0) not exact): DecimalSI. Beyond
    // 10^38 (only a constructed quantity gets there; parsing caps BinarySI at 2^63-1) mltwin
    // prints DecimalSI too, where upstream would divide its big integer by 1024.
    if (compare_magnitude(mag, exponent_, 1024, 0) < 0 || exponent_ < 0 || digit_count(mag) + exponent_ > kMaxDigits) {
      f = QuantityFormat::DecimalSI;
    } else {
      U128 v = mag * pow10(exponent_);
      int times = 0;  // removeInt64Factors(value, 1024)
      while (v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++times;
      }
      static const char* const binary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      // binSuffixes has no 2^0 and nothing past Ei: those print bare.
      return sign + u128_digits(v) + (times <= 6 ? binary[times] : "");
    }
  }
  std::string digits = u128_digits(mag);
  std::int64_t e = exponent_;
  switch (e % 3) {  // the exponent down to a multiple of 3 (Go's % truncates as C++'s does)
    case 1:
    case -2:
      digits += "0";
      e -= 1;
      break;
    case 2:
    case -1:
      digits += "00";
      e -= 2;
      break;
    default:
      break;
  }
  std::string suffix;
  if (f == QuantityFormat::DecimalExponent) {
    if (e != 0) suffix = "e" + std::to_string(e);
  } else {
    // decSuffixes; an exponent it lacks (beyond E, or below n) prints bare, as upstream does.
    static const std::pair<int, const char*> decimal[] = {{-9, "n"}, {-6, "u"}, {-3, "m"}, {3, "k"},  {6, "M"},
                                                          {9, "G"},  {12, "T"}, {15, "P"}, {18, "E"}};
    for (const auto& [x, s] : decimal)
      if (e == x) suffix = s;
  }
  return sign + digits + suffix;
}

std::string_view go_trim_space(std::string_view s) {
  // unicode.IsSpace in UTF-8: the ASCII ones and U+0085, U+00A0 (two bytes), U+1680,
  // U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (three bytes).
  auto space_len_at = [](std::string_view t) -> std::size_t {
    if (t.empty()) return 0;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(t[i]); };
    const unsigned char c = b(0);
    if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
    if (c == 0xC2 && t.size() >= 2 && (b(1) == 0x85 || b(1) == 0xA0)) return 2;
    if (t.size() < 3) return 0;
    if (c == 0xE1 && b(1) == 0x9A && b(2) == 0x80) return 3;
    if (c == 0xE2 && b(1) == 0x80 && ((b(2) >= 0x80 && b(2) <= 0x8A) || b(2) == 0xA8 || b(2) == 0xA9 || b(2) == 0xAF)) return 3;
    if (c == 0xE2 && b(1) == 0x81 && b(2) == 0x9F) return 3;
    if (c == 0xE3 && b(1) == 0x80 && b(2) == 0x80) return 3;
    return 0;
  };
  while (const std::size_t n = space_len_at(s)) s.remove_prefix(n);
  for (;;) {
    std::size_t n = 0;
    for (std::size_t len = 1; len <= 3 && len <= s.size() && n == 0; ++len)
      if (space_len_at(s.substr(s.size() - len)) == len) n = len;
    if (n == 0) break;
    s.remove_suffix(n);
  }
  return s;
}

Quantity quantity_from_json(std::string_view raw) {
  // UnmarshalJSON: null is a zero quantity; quotes come off; strings.TrimSpace; ParseQuantity.
  if (raw == "null") return Quantity{};
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') raw = raw.substr(1, raw.size() - 2);
  return parse_quantity(go_trim_space(raw));
}

}  // namespace mltwin::policy
