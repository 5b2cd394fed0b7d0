// Reads quantity texts, one a line, and prints what mltwin makes of each in the form of
// main.go (run.sh): OK <unscaled>e<exponent> <Format> <String()> <Value()> <MilliValue()>, or ERR <kind>.
#include "mltwin/policy/quantity.hpp"
#include <cstdio>
#include <iostream>
#include <string>
using namespace mltwin::policy;
static std::string i128(Quantity::Int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0; std::string s;
  while (v != 0) { int d = (int)(v % 10); if (d < 0) d = -d; s.insert(s.begin(), char('0' + d)); v /= 10; }
  return (neg ? "-" : "") + s;
}
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string t;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') { t += '\n'; ++i; } else t += line[i];
    }
    try {
      Quantity q = parse_quantity(t);
      const char* f = q.format() == QuantityFormat::BinarySI ? "BinarySI" : q.format() == QuantityFormat::DecimalSI ? "DecimalSI" : "DecimalExponent";
      bool small = q.is_zero() || (long long)(i128(q.unscaled() < 0 ? -q.unscaled() : q.unscaled()).size()) + q.exponent() <= 15;
      std::string v = "-", mv = "-";
      if (small) { v = std::to_string(q.value()); mv = std::to_string(q.milli_value()); }
      std::cout << "OK " << i128(q.unscaled()) << "e" << q.exponent() << " " << f << " " << q.str() << " " << v << " " << mv << "\n";
    } catch (const QuantityError& e) {
      const char* k = e.problem() == QuantityProblem::FormatWrong ? "FormatWrong" : e.problem() == QuantityProblem::Suffix ? "Suffix" : e.problem() == QuantityProblem::Numeric ? "Numeric" : "OutOfRange";
      std::cout << "ERR " << k << "\n";
    }
  }
}
