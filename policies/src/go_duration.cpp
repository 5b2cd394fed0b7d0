// Go's time.ParseDuration and Duration.String (src/time/format.go, the Go releases Volcano
// v1.12.1 builds with: unsigned accumulation, errors quoting the input), rule by rule.
#include "mltwin/policy/go_duration.hpp"

#include <stdexcept>
#include <utility>

namespace mltwin::policy {
namespace {

constexpr std::uint64_t kBound = 1ULL << 63;  // Go's 1<<63

/// Go's quote(): the text in double quotes, with '"' and '\' escaped and bytes outside
/// printable ASCII as \xNN — as time.quote writes them.
std::string quote(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < 0x20) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<char>(c);
  }
  return out + "\"";
}

[[noreturn]] void invalid(std::string_view orig) {
  throw std::invalid_argument("time: invalid duration " + quote(orig));
}

bool digit(char c) { return c >= '0' && c <= '9'; }

/// leadingInt: consumes [0-9]*; false on overflow.
bool leading_int(std::string_view& s, std::uint64_t& x) {
  x = 0;
  std::size_t i = 0;
  for (; i < s.size() && digit(s[i]); ++i) {
    if (x > kBound / 10) return false;
    x = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (x > kBound) return false;
  }
  s.remove_prefix(i);
  return true;
}

/// leadingFraction: consumes [0-9]*; stops accumulating precision on overflow (no error).
void leading_fraction(std::string_view& s, std::uint64_t& x, double& scale) {
  x = 0;
  scale = 1;
  bool overflow = false;
  std::size_t i = 0;
  for (; i < s.size() && digit(s[i]); ++i) {
    if (overflow) continue;
    if (x > (kBound - 1) / 10) {
      overflow = true;
      continue;
    }
    const std::uint64_t y = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (y > kBound) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

/// unitMap.
bool unit_ns(std::string_view u, std::uint64_t& ns) {
  static const std::pair<std::string_view, std::uint64_t> units[] = {
      {"ns", 1ULL},
      {"us", 1000ULL},
      {"\xC2\xB5s", 1000ULL},  // U+00B5 micro sign
      {"\xCE\xBCs", 1000ULL},  // U+03BC Greek small letter mu
      {"ms", 1000000ULL},
      {"s", 1000000000ULL},
      {"m", 60ULL * 1000000000ULL},
      {"h", 3600ULL * 1000000000ULL},
  };
  for (const auto& [name, v] : units)
    if (u == name) {
      ns = v;
      return true;
    }
  return false;
}

}  // namespace

std::int64_t parse_go_duration(std::string_view s) {
  // [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+
  const std::string_view orig = s;
  std::uint64_t d = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;  // special case: "0" needs no unit
  if (s.empty()) invalid(orig);
  while (!s.empty()) {
    std::uint64_t v = 0, f = 0;  // integers before and after the decimal point
    double scale = 1;            // value = v + f / scale
    if (!(s[0] == '.' || digit(s[0]))) invalid(orig);
    const std::size_t before = s.size();
    if (!leading_int(s, v)) invalid(orig);
    const bool pre = before != s.size();
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const std::size_t at = s.size();
      leading_fraction(s, f, scale);
      post = at != s.size();
    }
    if (!pre && !post) invalid(orig);  // no digits, e.g. ".s"
    std::size_t i = 0;
    while (i < s.size() && s[i] != '.' && !digit(s[i])) ++i;
    if (i == 0) throw std::invalid_argument("time: missing unit in duration " + quote(orig));
    const std::string_view u = s.substr(0, i);
    s.remove_prefix(i);
    std::uint64_t unit = 0;
    if (!unit_ns(u, unit))
      throw std::invalid_argument("time: unknown unit " + quote(u) + " in duration " + quote(orig));
    if (v > kBound / unit) invalid(orig);
    v *= unit;
    if (f > 0) {
      // float64 keeps fractions of an hour nanosecond-accurate (Go's comment).
      v += static_cast<std::uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kBound) invalid(orig);
    }
    d += v;
    if (d > kBound) invalid(orig);
  }
  if (neg) return d == kBound ? INT64_MIN : -static_cast<std::int64_t>(d);
  if (d > kBound - 1) invalid(orig);
  return static_cast<std::int64_t>(d);
}

namespace {
/// fmtFrac: writes the fraction of v / 10^prec (".12345") into the tail of buf[0, w), trailing
/// zeros and a bare decimal point omitted; returns the new start and v / 10^prec.
std::size_t fmt_frac(char* buf, std::size_t w, std::uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const std::uint64_t digit_v = v % 10;
    print = print || digit_v != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit_v);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return w;
}
/// fmtInt: writes v in decimal into the tail of buf[0, w); returns the new start.
std::size_t fmt_int(char* buf, std::size_t w, std::uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return w;
}
}  // namespace

std::string format_go_duration(std::int64_t ns) {
  // Duration.format: the text is built backwards from the end of a 32-byte buffer (the
  // largest, "-2562047h47m16.854775808s", takes 25).
  char buf[32];
  std::size_t w = sizeof buf;
  const bool neg = ns < 0;
  std::uint64_t u = neg ? (~static_cast<std::uint64_t>(ns) + 1) : static_cast<std::uint64_t>(ns);
  if (u < 1000000000ULL) {
    // Below a second: the smaller units, e.g. "1.2ms".
    int prec = 0;
    buf[--w] = 's';
    if (u == 0) return "0s";
    if (u < 1000ULL) {
      prec = 0;
      buf[--w] = 'n';
    } else if (u < 1000000ULL) {
      prec = 3;
      buf[--w] = '\xB5';  // U+00B5 as UTF-8 (0xC2 0xB5), as Go writes it
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    w = fmt_frac(buf, w, u, prec);
    w = fmt_int(buf, w, u);
  } else {
    buf[--w] = 's';
    w = fmt_frac(buf, w, u, 9);
    w = fmt_int(buf, w, u % 60);  // seconds
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = fmt_int(buf, w, u % 60);
      u /= 60;
      if (u > 0) {  // hours: Go stops there (days differ in length)
        buf[--w] = 'h';
        w = fmt_int(buf, w, u);
      }
    }
  }
  if (neg) buf[--w] = '-';
  return std::string(buf + w, sizeof buf - w);
}

}  // namespace mltwin::policy
