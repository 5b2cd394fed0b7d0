// Text as a terminal shows it: control characters and malformed UTF-8 made visible
// (mltwin/k8s/text.hpp).
#include "mltwin/k8s/text.hpp"

#include <cstdio>

namespace mltwin::k8s {

namespace {

// The code point of the UTF-8 sequence at s[i] (its length in `len`); -1 if malformed.
long utf8_at(std::string_view s, std::size_t i, std::size_t& len) {
  const auto c = static_cast<unsigned char>(s[i]);
  len = 1;
  if (c < 0x80) return c;
  const int n = c >= 0xF8 ? -1 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
  if (n < 0 || i + static_cast<std::size_t>(n) >= s.size()) return -1;
  long cp = c & (0x3F >> n);
  for (int k = 1; k <= n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b & 0x3F);
  }
  len = static_cast<std::size_t>(n) + 1;
  return cp;
}

// Characters that change what a terminal shows rather than show themselves: C0 and C1 controls,
// DEL, and the Unicode bidirectional overrides and isolates ("Trojan Source", CVE-2021-42574).
bool invisible_control(long cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

std::string code_point_name(long cp) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "U+%04lX", cp);
  return buf;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 1;
    const long cp = utf8_at(s, i, len);
    if (cp < 0 || invisible_control(cp)) {
      char buf[32];
      if (cp < 0) std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(s[i])));
      else std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02lX" : "\\u%04lX", cp);
      out += buf;
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::string control_character_problem(std::string_view s, bool allow_line_breaks) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++chars) {
    std::size_t len = 1;
    const long cp = utf8_at(s, i, len);
    if (cp < 0) return "invalid UTF-8 at byte " + std::to_string(i + 1) + " of '" + printable(s) + "'";
    if (invisible_control(cp) && !(allow_line_breaks && (cp == '\n' || cp == '\t')))
      return "control character " + code_point_name(cp) + " at character " + std::to_string(chars + 1) + " in '" + printable(s) +
             "' (names and texts must be printable: a control character would reach the terminal raw)";
    i += len;
  }
  return {};
}

std::string pointer_token_of(std::string_view key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

}  // namespace mltwin::k8s
