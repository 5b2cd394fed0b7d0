// Kubernetes quantities (mltwin/policy/quantity.hpp) against upstream's own tests:
// k8s.io/apimachinery v0.32.2 pkg/api/resource/quantity_test.go (the release Volcano v1.12.1's
// go.mod pins) and quantity_example_test.go. Each TEST_CASE names the Go test it ports; the
// tables are upstream's, converted mechanically (decQuantity(i, e, f) is dq(i, e, f): the
// amount i x 10^e in format f; Quantity{d: maxAllowed} is max_allowed). Upstream checks of the
// internal representation (int64Amount vs inf.Dec, AsInt64, parseQuantityString's pieces) have
// no counterpart: mltwin keeps one exact representation.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mltwin/policy/quantity.hpp"

using namespace mltwin::policy;
using F = QuantityFormat;

namespace {

Quantity dq(std::int64_t i, int exponent, F f) { return Quantity(i, exponent, f); }
Quantity max_allowed(F f) { return Quantity(INT64_MAX, 0, f); }  // math.go maxAllowed
Quantity negated(const Quantity& q) {
  // The test tables' amounts fit an int64 at their own exponent.
  return Quantity(-static_cast<std::int64_t>(q.unscaled()), static_cast<int>(q.exponent()), q.format());
}

const char* name(F f) {
  switch (f) {
    case F::DecimalExponent: return "DecimalExponent";
    case F::BinarySI: return "BinarySI";
    case F::DecimalSI: return "DecimalSI";
  }
  return "?";
}

QuantityProblem problem_of(const std::string& text) {
  try {
    (void)parse_quantity(text);
  } catch (const QuantityError& e) {
    return e.problem();
  }
  FAIL("no error for '" << text << "'");
  return QuantityProblem::OutOfRange;
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_quantity(text);
  } catch (const QuantityError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("TestQuantityParse: upstream's table of valid quantities, as written and with - and + in front") {
  CHECK_THROWS_AS(parse_quantity(""), QuantityError);
  struct Row {
    const char* input;
    Quantity expect;
  };
  const std::vector<Row> table = {
      {"0", dq(0, 0, F::DecimalSI)},
      {"0n", dq(0, 0, F::DecimalSI)},
      {"0u", dq(0, 0, F::DecimalSI)},
      {"0m", dq(0, 0, F::DecimalSI)},
      {"0Ki", dq(0, 0, F::BinarySI)},
      {"0k", dq(0, 0, F::DecimalSI)},
      {"0Mi", dq(0, 0, F::BinarySI)},
      {"0M", dq(0, 0, F::DecimalSI)},
      {"0Gi", dq(0, 0, F::BinarySI)},
      {"0G", dq(0, 0, F::DecimalSI)},
      {"0Ti", dq(0, 0, F::BinarySI)},
      {"0T", dq(0, 0, F::DecimalSI)},

      // Quantity less numbers are allowed
      {"1", dq(1, 0, F::DecimalSI)},

      // Binary suffixes
      {"1Ki", dq(1024, 0, F::BinarySI)},
      {"8Ki", dq(std::int64_t{1} * 8*1024, 0, F::BinarySI)},
      {"7Mi", dq(std::int64_t{1} * 7*1024*1024, 0, F::BinarySI)},
      {"6Gi", dq(std::int64_t{1} * 6*1024*1024*1024, 0, F::BinarySI)},
      {"5Ti", dq(std::int64_t{1} * 5*1024*1024*1024*1024, 0, F::BinarySI)},
      {"4Pi", dq(std::int64_t{1} * 4*1024*1024*1024*1024*1024, 0, F::BinarySI)},
      {"3Ei", dq(std::int64_t{1} * 3*1024*1024*1024*1024*1024*1024, 0, F::BinarySI)},

      {"10Ti", dq(std::int64_t{1} * 10*1024*1024*1024*1024, 0, F::BinarySI)},
      {"100Ti", dq(std::int64_t{1} * 100*1024*1024*1024*1024, 0, F::BinarySI)},

      // Decimal suffixes
      {"5n", dq(5, -9, F::DecimalSI)},
      {"4u", dq(4, -6, F::DecimalSI)},
      {"3m", dq(3, -3, F::DecimalSI)},
      {"9", dq(9, 0, F::DecimalSI)},
      {"8k", dq(8, 3, F::DecimalSI)},
      {"50k", dq(5, 4, F::DecimalSI)},
      {"7M", dq(7, 6, F::DecimalSI)},
      {"6G", dq(6, 9, F::DecimalSI)},
      {"5T", dq(5, 12, F::DecimalSI)},
      {"40T", dq(4, 13, F::DecimalSI)},
      {"300T", dq(3, 14, F::DecimalSI)},
      {"2P", dq(2, 15, F::DecimalSI)},
      {"1E", dq(1, 18, F::DecimalSI)},

      // Decimal exponents
      {"1E-3", dq(1, -3, F::DecimalExponent)},
      {"1e3", dq(1, 3, F::DecimalExponent)},
      {"1E6", dq(1, 6, F::DecimalExponent)},
      {"1e9", dq(1, 9, F::DecimalExponent)},
      {"1E12", dq(1, 12, F::DecimalExponent)},
      {"1e15", dq(1, 15, F::DecimalExponent)},
      {"1E18", dq(1, 18, F::DecimalExponent)},

      // Nonstandard but still parsable
      {"1e14", dq(1, 14, F::DecimalExponent)},
      {"1e13", dq(1, 13, F::DecimalExponent)},
      {"1e3", dq(1, 3, F::DecimalExponent)},
      {"100.035k", dq(100035, 0, F::DecimalSI)},

      // Things that look like floating point
      {"0.001", dq(1, -3, F::DecimalSI)},
      {"0.0005k", dq(5, -1, F::DecimalSI)},
      {"0.005", dq(5, -3, F::DecimalSI)},
      {"0.05", dq(5, -2, F::DecimalSI)},
      {"0.5", dq(5, -1, F::DecimalSI)},
      {"0.00050k", dq(5, -1, F::DecimalSI)},
      {"0.00500", dq(5, -3, F::DecimalSI)},
      {"0.05000", dq(5, -2, F::DecimalSI)},
      {"0.50000", dq(5, -1, F::DecimalSI)},
      {"0.5e0", dq(5, -1, F::DecimalExponent)},
      {"0.5e-1", dq(5, -2, F::DecimalExponent)},
      {"0.5e-2", dq(5, -3, F::DecimalExponent)},
      {"0.5e0", dq(5, -1, F::DecimalExponent)},
      {"10.035M", dq(10035, 3, F::DecimalSI)},

      {"1.2e3", dq(12, 2, F::DecimalExponent)},
      {"1.3E+6", dq(13, 5, F::DecimalExponent)},
      {"1.40e9", dq(14, 8, F::DecimalExponent)},
      {"1.53E12", dq(153, 10, F::DecimalExponent)},
      {"1.6e15", dq(16, 14, F::DecimalExponent)},
      {"1.7E18", dq(17, 17, F::DecimalExponent)},

      {"9.01", dq(901, -2, F::DecimalSI)},
      {"8.1k", dq(81, 2, F::DecimalSI)},
      {"7.123456M", dq(7123456, 0, F::DecimalSI)},
      {"6.987654321G", dq(6987654321, 0, F::DecimalSI)},
      {"5.444T", dq(5444, 9, F::DecimalSI)},
      {"40.1T", dq(401, 11, F::DecimalSI)},
      {"300.2T", dq(3002, 11, F::DecimalSI)},
      {"2.5P", dq(25, 14, F::DecimalSI)},
      {"1.01E", dq(101, 16, F::DecimalSI)},

      // Things that saturate/round
      {"3.001n", dq(4, -9, F::DecimalSI)},
      {"1.1E-9", dq(2, -9, F::DecimalExponent)},
      {"0.0000000001", dq(1, -9, F::DecimalSI)},
      {"0.0000000005", dq(1, -9, F::DecimalSI)},
      {"0.00000000050", dq(1, -9, F::DecimalSI)},
      {"0.5e-9", dq(1, -9, F::DecimalExponent)},
      {"0.9n", dq(1, -9, F::DecimalSI)},
      {"0.00000012345", dq(124, -9, F::DecimalSI)},
      {"0.00000012354", dq(124, -9, F::DecimalSI)},
      {"9Ei", max_allowed(F::BinarySI)},
      {"9223372036854775807Ki", max_allowed(F::BinarySI)},
      {"12E", dq(12, 18, F::DecimalSI)},

      // We'll accept fractional binary stuff, too.
      {"100.035Ki", dq(10243584, -2, F::BinarySI)},
      {"0.5Mi", dq(std::int64_t{524288}, 0, F::BinarySI)},
      {"0.05Gi", dq(536870912, -1, F::BinarySI)},
      {"0.025Ti", dq(274877906944, -1, F::BinarySI)},

      // Things written by trolls
      {"0.000000000001Ki", dq(2, -9, F::DecimalSI)}, // rounds up, changes format
      {".001", dq(1, -3, F::DecimalSI)},
      {".0001k", dq(100, -3, F::DecimalSI)},
      {"1.", dq(1, 0, F::DecimalSI)},
      {"1.G", dq(1, 9, F::DecimalSI)},
  };
  CHECK(table.size() == 96);
  for (const Row& r : table) {
    CAPTURE(r.input);
    const Quantity got = parse_quantity(r.input);
    CHECK_MESSAGE(got == r.expect, r.input << ": expected " << r.expect.str() << ", got " << got.str());
    CHECK_MESSAGE(got.format() == r.expect.format(), r.input << ": " << name(got.format()));
    // The negative version of everything.
    const Quantity neg = parse_quantity(std::string("-") + r.input);
    CHECK_MESSAGE(neg == negated(r.expect), "-" << r.input << ": got " << neg.str());
    CHECK(neg.format() == r.expect.format());
    // Everything with an explicit +.
    const Quantity pos = parse_quantity(std::string("+") + r.input);
    CHECK_MESSAGE(pos == r.expect, "+" << r.input << ": got " << pos.str());
    CHECK(pos.format() == r.expect.format());
  }
}

TEST_CASE("TestQuantityParse: upstream's invalid quantities, and the two of issue 15") {
  const std::vector<std::string> invalid = {"1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
                                            // trailing whitespace is forbidden
                                            " 1", "1 "};
  for (const std::string& s : invalid) CHECK_THROWS_AS_MESSAGE(parse_quantity(s), QuantityError, s);
  // Which of upstream's errors each is: parseQuantityString refuses the shape (ErrFormatWrong),
  // the suffix tables refuse the rest (ErrSuffix).
  CHECK(problem_of("1.1.M") == QuantityProblem::FormatWrong);  // '.' cannot start a suffix
  CHECK(problem_of("1+1.0M") == QuantityProblem::FormatWrong);
  CHECK(problem_of("0.1am") == QuantityProblem::FormatWrong);
  CHECK(problem_of("aoeu") == QuantityProblem::FormatWrong);
  CHECK(problem_of(" 1") == QuantityProblem::FormatWrong);
  CHECK(problem_of("1 ") == QuantityProblem::FormatWrong);
  CHECK(problem_of("0.1mi") == QuantityProblem::Suffix);
  CHECK(problem_of(".5i") == QuantityProblem::Suffix);
  CHECK(problem_of("1i") == QuantityProblem::Suffix);
  CHECK(problem_of("-3.01i") == QuantityProblem::Suffix);
  CHECK(problem_of("-3.01e-") == QuantityProblem::Suffix);  // "e-": ParseInt("-") fails
  // Hexadecimal, and an exponent before a suffix: both outside the grammar.
  CHECK(problem_of("0x10Gi") == QuantityProblem::FormatWrong);
  CHECK(problem_of("1e2Gi") == QuantityProblem::FormatWrong);
  CHECK(contains(error_of("0x10Gi"), "'0x10Gi' is not a Kubernetes quantity: 'x' at offset 1"));
  CHECK(contains(error_of("1e2Gi"), "'G' at offset 3"));
  CHECK(contains(error_of("0x10Gi"), "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"));  // ErrFormatWrong's text
  // Byte units as people write them get the two Kubernetes spellings.
  CHECK(problem_of("16GB") == QuantityProblem::FormatWrong);
  CHECK(contains(error_of("16GB"), "Kubernetes writes bytes without a B: 16G (10^9 bytes each) or 16Gi (2^30)"));
  CHECK(contains(error_of("1.5GiB"), "1.5G (10^9 bytes each) or 1.5Gi (2^30)"));
  CHECK(contains(error_of("512mb"), "512M (10^6 bytes each) or 512Mi (2^20)"));
  CHECK(contains(error_of("4KB"), "4k (10^3 bytes each) or 4Ki (2^10)"));
  CHECK_FALSE(contains(error_of("16Gx"), "without a B"));
  CHECK(contains(error_of("12Qi"), "'Q' at offset 2"));
  CHECK(contains(error_of("1i"), "unknown suffix 'i'"));
  CHECK(contains(error_of("1i"), "unable to parse quantity's suffix"));  // ErrSuffix's text
  CHECK(contains(error_of(""), "'' is not a Kubernetes quantity: it is empty"));
}

TEST_CASE("TestQuantityParseZero and TestQuantityParseNonNumericPanic") {
  CHECK(parse_quantity("0").str() == "0");
  CHECK_THROWS_AS(parse_quantity("Non-Numeric"), QuantityError);
}

TEST_CASE("TestQuantityCmp") {
  CHECK((parse_quantity("0") <=> parse_quantity("0")) == 0);
  CHECK((parse_quantity("100m") <=> parse_quantity("50m")) > 0);
  CHECK((parse_quantity("50m") <=> parse_quantity("100m")) < 0);
  CHECK((parse_quantity("10000T") <=> parse_quantity("100Gi")) > 0);
  // The nil/zero inf.Dec rows: zero equals zero whatever its form, and signs order.
  CHECK(dq(0, 0, F::DecimalSI) == Quantity());
  CHECK(Quantity() < dq(10, 0, F::DecimalSI));
  CHECK(Quantity() > dq(-10, 0, F::DecimalSI));
}

TEST_CASE("TestQuantityRoundUp") {
  struct Row {
    const char* in;
    int scale;
    Quantity expect;
    bool ok;
  };
  const std::vector<Row> table = {
      {"9.01", -3, dq(901, -2, F::DecimalSI), true},
      {"9.01", -2, dq(901, -2, F::DecimalSI), true},
      {"9.01", -1, dq(91, -1, F::DecimalSI), false},
      {"9.01", 0, dq(10, 0, F::DecimalSI), false},
      {"9.01", 1, dq(10, 0, F::DecimalSI), false},
      {"9.01", 2, dq(100, 0, F::DecimalSI), false},

      {"-9.01", -3, dq(-901, -2, F::DecimalSI), true},
      {"-9.01", -2, dq(-901, -2, F::DecimalSI), true},
      {"-9.01", -1, dq(-91, -1, F::DecimalSI), false},
      {"-9.01", 0, dq(-10, 0, F::DecimalSI), false},
      {"-9.01", 1, dq(-10, 0, F::DecimalSI), false},
      {"-9.01", 2, dq(-100, 0, F::DecimalSI), false},
  };
  for (const Row& r : table) {
    CAPTURE(r.in);
    CAPTURE(r.scale);
    const std::pair<Quantity, bool> rounded = parse_quantity(r.in).round_up(r.scale);
    const Quantity& got = rounded.first;
    CHECK(rounded.second == r.ok);
    CHECK_MESSAGE(got == r.expect, got.str() << " vs " << r.expect.str());
  }
}

TEST_CASE("TestQuantityString: canonical text, the text kept on parse, alternates, negatives") {
  struct Row {
    Quantity in;
    const char* expect;
    const char* alternate;
  };
  const std::vector<Row> table = {
      {dq(std::int64_t{1} * 1024*1024*1024, 0, F::BinarySI), "1Gi", "1024Mi"},
      {dq(std::int64_t{1} * 300*1024*1024, 0, F::BinarySI), "300Mi", "307200Ki"},
      {dq(std::int64_t{1} * 6*1024, 0, F::BinarySI), "6Ki", ""},
      {dq(std::int64_t{1} * 1001*1024*1024*1024, 0, F::BinarySI), "1001Gi", "1025024Mi"},
      {dq(std::int64_t{1} * 1024*1024*1024*1024, 0, F::BinarySI), "1Ti", "1024Gi"},
      {dq(5, 0, F::BinarySI), "5", "5000m"},
      {dq(500, -3, F::BinarySI), "500m", "0.5"},
      {dq(1, 9, F::DecimalSI), "1G", "1000M"},
      {dq(1000, 6, F::DecimalSI), "1G", "0.001T"},
      {dq(1000000, 3, F::DecimalSI), "1G", ""},
      {dq(1000000000, 0, F::DecimalSI), "1G", ""},
      {dq(1, -3, F::DecimalSI), "1m", "1000u"},
      {dq(80, -3, F::DecimalSI), "80m", ""},
      {dq(1080, -3, F::DecimalSI), "1080m", "1.08"},
      {dq(108, -2, F::DecimalSI), "1080m", "1080000000n"},
      {dq(10800, -4, F::DecimalSI), "1080m", ""},
      {dq(300, 6, F::DecimalSI), "300M", ""},
      {dq(1, 12, F::DecimalSI), "1T", ""},
      {dq(1234567, 6, F::DecimalSI), "1234567M", ""},
      {dq(1234567, -3, F::BinarySI), "1234567m", ""},
      {dq(3, 3, F::DecimalSI), "3k", ""},
      {dq(1025, 0, F::BinarySI), "1025", ""},
      {dq(0, 0, F::DecimalSI), "0", ""},
      {dq(0, 0, F::BinarySI), "0", ""},
      {dq(1, 9, F::DecimalExponent), "1e9", ".001e12"},
      {dq(1, -3, F::DecimalExponent), "1e-3", "0.001e0"},
      {dq(1, -9, F::DecimalExponent), "1e-9", "1000e-12"},
      {dq(80, -3, F::DecimalExponent), "80e-3", ""},
      {dq(300, 6, F::DecimalExponent), "300e6", ""},
      {dq(1, 12, F::DecimalExponent), "1e12", ""},
      {dq(1, 3, F::DecimalExponent), "1e3", ""},
      {dq(3, 3, F::DecimalExponent), "3e3", ""},
      {dq(3, 3, F::DecimalSI), "3k", ""},
      {dq(0, 0, F::DecimalExponent), "0", "00"},
      {dq(1, -9, F::DecimalSI), "1n", ""},
      {dq(80, -9, F::DecimalSI), "80n", ""},
      {dq(1080, -9, F::DecimalSI), "1080n", ""},
      {dq(108, -8, F::DecimalSI), "1080n", ""},
      {dq(10800, -10, F::DecimalSI), "1080n", ""},
      {dq(1, -6, F::DecimalSI), "1u", ""},
      {dq(80, -6, F::DecimalSI), "80u", ""},
      {dq(1080, -6, F::DecimalSI), "1080u", ""},
  };
  CHECK(table.size() == 42);
  for (const Row& r : table) {
    CAPTURE(r.expect);
    CHECK(r.in.str() == r.expect);
    const Quantity q = parse_quantity(r.expect);
    CHECK(q.str() == r.expect);
    CHECK(q == r.in);
    if (*r.alternate) {
      // An alternate spelling is not kept: its String() is the canonical text.
      const Quantity alt = parse_quantity(r.alternate);
      CHECK_MESSAGE(alt.str() == r.expect, r.alternate << " printed " << alt.str());
    }
    if (!r.in.is_zero()) CHECK(negated(r.in).str() == std::string("-") + r.expect);  // never "-0"
  }
}

TEST_CASE("TestQuantityParseEmit") {
  const std::vector<std::pair<const char*, const char*>> table = {
      {"1Ki", "1Ki"},       {"1Mi", "1Mi"},          {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},    {"1000M", "1G"},         {".001Ki", "1024m"},
      {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
  };
  for (const auto& row : table) {
    CHECK_MESSAGE(parse_quantity(row.first).str() == row.second, row.first);
    CHECK_MESSAGE(parse_quantity(std::string("-") + row.first).str() == std::string("-") + row.second, row.first);
  }
}

TEST_CASE("TestJSONWhitespace: UnmarshalJSON trims surrounding white space (strings.TrimSpace)") {
  const std::vector<std::pair<const char*, const char*>> table = {
      {R"(" 1")", "1"}, {R"("1 ")", "1"}, {"1", "1"}, {" 1", "1"}, {"1 ", "1"}, {"10", "10"}, {"-1", "-1"}, {" -1", "-1"},
  };
  for (const auto& row : table) CHECK_MESSAGE(quantity_from_json(row.first).str() == row.second, row.first);
  // Issue 15's case, and null (a zero quantity).
  CHECK(quantity_from_json(R"(" 16 ")").value() == 16);
  CHECK(quantity_from_json("null").is_zero());
  CHECK(quantity_from_json("1.5").milli_value() == 1500);
  // The quotes come off but the bytes between are not JSON-unescaped: "\u0031" is not "1".
  CHECK_THROWS_AS(quantity_from_json(R"("\u0031")"), QuantityError);
  // Unicode white space too: U+00A0 (no-break space), U+3000 (ideographic space), U+0085.
  CHECK(go_trim_space("\xC2\xA0 32Gi\t\xE3\x80\x80\xC2\x85") == "32Gi");
  CHECK(go_trim_space("\xE2\x80\x8B" "1") == "\xE2\x80\x8B" "1");  // U+200B is not White_Space
  CHECK(go_trim_space(" \n ").empty());
}

TEST_CASE("TestQuantityAsFloat64Slow (and TestStringQuantityAsFloat64Slow): the nearest double") {
  struct Row {
    Quantity in;
    double out;
  };
  const std::vector<Row> table = {
      {dq(0, 0, F::DecimalSI), 0.0},
      {dq(0, 0, F::DecimalExponent), 0.0},
      {dq(0, 0, F::BinarySI), 0.0},

      {dq(1, 0, F::DecimalSI), 1},
      {dq(1, 0, F::DecimalExponent), 1},
      {dq(1, 0, F::BinarySI), 1},

      // Binary suffixes
      {dq(1024, 0, F::BinarySI), 1024},
      {dq(std::int64_t{1} * 8*1024, 0, F::BinarySI), 8.0 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 0, F::BinarySI), 7.0 * 1024 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 1, F::BinarySI), (7.0 * 1024 * 1024) * 10},
      {dq(std::int64_t{1} * 7*1024*1024, 4, F::BinarySI), (7.0 * 1024 * 1024) * 10000},
      {dq(std::int64_t{1} * 7*1024*1024, 8, F::BinarySI), (7.0 * 1024 * 1024) * 100000000},
      {dq(std::int64_t{1} * 7*1024*1024, -1, F::BinarySI), (7.0 * 1024 * 1024) / double(10)},
      {dq(std::int64_t{1} * 7*1024*1024, -8, F::BinarySI), (7.0 * 1024 * 1024) / double(100000000)},

      {dq(1024, 0, F::DecimalSI), 1024},
      {dq(std::int64_t{1} * 8*1024, 0, F::DecimalSI), 8.0 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 0, F::DecimalSI), 7.0 * 1024 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 1, F::DecimalSI), (7.0 * 1024 * 1024) * 10},
      {dq(std::int64_t{1} * 7*1024*1024, 4, F::DecimalSI), (7.0 * 1024 * 1024) * 10000},
      {dq(std::int64_t{1} * 7*1024*1024, 8, F::DecimalSI), (7.0 * 1024 * 1024) * 100000000},
      {dq(std::int64_t{1} * 7*1024*1024, -1, F::DecimalSI), (7.0 * 1024 * 1024) / double(10)},
      {dq(std::int64_t{1} * 7*1024*1024, -8, F::DecimalSI), (7.0 * 1024 * 1024) / double(100000000)},

      {dq(1024, 0, F::DecimalExponent), 1024},
      {dq(std::int64_t{1} * 8*1024, 0, F::DecimalExponent), 8.0 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 0, F::DecimalExponent), 7.0 * 1024 * 1024},
      {dq(std::int64_t{1} * 7*1024*1024, 1, F::DecimalExponent), (7.0 * 1024 * 1024) * 10},
      {dq(std::int64_t{1} * 7*1024*1024, 4, F::DecimalExponent), (7.0 * 1024 * 1024) * 10000},
      {dq(std::int64_t{1} * 7*1024*1024, 8, F::DecimalExponent), (7.0 * 1024 * 1024) * 100000000},
      {dq(std::int64_t{1} * 7*1024*1024, -1, F::DecimalExponent), (7.0 * 1024 * 1024) / double(10)},
      {dq(std::int64_t{1} * 7*1024*1024, -8, F::DecimalExponent), (7.0 * 1024 * 1024) / double(100000000)},

      // very large numbers
      {max_allowed(F::DecimalSI), 9223372036854775807.0},
      {max_allowed(F::BinarySI), 9223372036854775807.0},
      {dq(12, 18, F::DecimalSI), 1.2e19},

      // infinities caused due to float64 overflow
      {dq(12, 500, F::DecimalSI), HUGE_VAL},
      {dq(-12, 500, F::DecimalSI), -HUGE_VAL},
  };
  CHECK(table.size() == 35);
  for (const Row& r : table) CHECK_MESSAGE(r.in.to_double() == r.out, r.in.str());
  CHECK(parse_quantity("2Ki").to_double() == 2048);
  CHECK(parse_quantity("1.1Ki").to_double() == 1126.4e+0);
  CHECK(parse_quantity("1Mi").to_double() == 1.048576e+06);
  CHECK(parse_quantity("2Gi").to_double() == 2.147483648e+09);
}

TEST_CASE("TestScaledValue") {
  const int nano = -9, micro = -6, milli = -3;
  struct Row {
    int from, to;
    std::int64_t expected;
  };
  const std::vector<Row> table = {
      {nano, nano, 1},          {nano, micro, 1},     {nano, milli, 1},  {nano, 0, 1},
      {micro, nano, 1000},      {micro, micro, 1},    {micro, milli, 1}, {micro, 0, 1},
      {milli, nano, 1000 * 1000}, {milli, micro, 1000}, {milli, milli, 1}, {milli, 0, 1},
      {0, nano, 1000 * 1000 * 1000}, {0, micro, 1000 * 1000}, {0, milli, 1000}, {0, 0, 1},
      {2, -2, 100 * 100},
  };
  for (const Row& r : table) CHECK(Quantity(1, r.from).scaled_value(r.to) == r.expected);
}

TEST_CASE("TestNewScaledSet") {
  struct Row {
    std::int64_t value;
    int scale;
    const char* expect;
  };
  const std::vector<Row> table = {
      {1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"}, {1, -3, "1m"}, {1000, -3, "1"},
      {1, 0, "1"},   {0, -9, "0"},     {0, -6, "0"},  {0, -3, "0"},     {0, 0, "0"},
  };
  for (const Row& r : table) {
    const Quantity q(r.value, r.scale);
    CHECK(q.str() == r.expect);
    CHECK(parse_quantity(q.str()).scaled_value(r.scale) == r.value);
  }
}

TEST_CASE("TestNewSet and TestMilliNewSet") {
  struct Row {
    std::int64_t value;
    F format;
    const char* expect;
    bool exact;  // TestMilliNewSet only
  };
  // An invalid format prints as DecimalExponent upstream ("invalidFormatDefaultsToExponent").
  const std::vector<Row> whole = {{1, F::DecimalSI, "1", true},     {1000, F::DecimalSI, "1k", true},
                                  {1234000, F::DecimalSI, "1234k", true}, {1024, F::BinarySI, "1Ki", true},
                                  {1000000, F::DecimalExponent, "1e6", true}, {1024 * 1024, F::BinarySI, "1Mi", true}};
  for (const Row& r : whole) {
    const Quantity q(r.value, 0, r.format);
    CHECK(q.str() == r.expect);
    CHECK(parse_quantity(q.str()).value() == r.value);
  }
  const std::vector<Row> milli = {{1, F::DecimalSI, "1m", true},
                                  {1000, F::DecimalSI, "1", true},
                                  {1234000, F::DecimalSI, "1234", true},
                                  {1024, F::BinarySI, "1024m", false},  // format changes
                                  {1000000, F::DecimalExponent, "1e3", true},
                                  {1024 * 1024, F::BinarySI, "1048576m", false}};
  for (const Row& r : milli) {
    const Quantity q(r.value, -3, r.format);
    CHECK(q.str() == r.expect);
    if (r.exact) CHECK(parse_quantity(q.str()).milli_value() == r.value);
  }
}

TEST_CASE("ExampleFormat and ExampleMustParse (quantity_example_test.go)") {
  CHECK(Quantity(std::int64_t{5} * 1024 * 1024 * 1024, 0, F::BinarySI).str() == "5Gi");
  CHECK(Quantity(std::int64_t{5} * 1000 * 1000 * 1000, 0, F::DecimalSI).str() == "5G");
  CHECK(Quantity(5300, -3, F::DecimalSI).str() == "5300m");
  CHECK(parse_quantity("5Gi").value() == 5368709120);
  CHECK(parse_quantity("5Gi").format() == F::BinarySI);
  CHECK(parse_quantity("5G").value() == 5000000000);
  CHECK(parse_quantity("5300m").milli_value() == 5300);
  CHECK(parse_quantity("5.4").milli_value() == 5400);
}

// ---- mltwin's own cases: each value computed by hand from quantity.go's rules.

TEST_CASE("Value and MilliValue round up (ceil), away from zero") {
  CHECK(parse_quantity("0.1").value() == 1);
  CHECK(parse_quantity("1.0001").value() == 2);
  CHECK(parse_quantity("-0.1").value() == -1);
  CHECK(parse_quantity("100u").milli_value() == 1);  // 0.1m
  CHECK(parse_quantity("1.0001m").milli_value() == 2);
  CHECK(parse_quantity("7993750u").milli_value() == 7994);  // 7993.75m
  CHECK(parse_quantity("127900m").milli_value() == 127900);
  CHECK(parse_quantity("0.1Gi").value() == 107374183);  // 107374182.4 bytes
  CHECK(parse_quantity("1.5Gi").value() == 1610612736);
  CHECK(parse_quantity("1n").value() == 1);
  CHECK(parse_quantity("1n").milli_value() == 1);
  CHECK(parse_quantity("1n").scaled_value(-9) == 1);
  CHECK(parse_quantity("1.5").to_double() == 1.5);
}

TEST_CASE("Parsing rounds to 1n and caps BinarySI at 2^63-1, exactly however long the text") {
  // 0.0000000001 followed by many zeros and a 1: one nano after rounding up.
  CHECK(parse_quantity("0.000000000100000000000000000000000000000000000001") == Quantity(1, -9));
  CHECK(parse_quantity("0.000000001000000000000000000000000000000000000000") == Quantity(1, -9));
  CHECK(parse_quantity("1.0000000010000000000000000000000000001") == Quantity(1000000002, -9));
  // 0.999999999999 rounds up to 1 (the carry reaches the units).
  CHECK(parse_quantity("0.999999999999") == Quantity(1, 0));
  // BinarySI with a long fraction: 0.1 x 1024 = 102.4 exactly; 1/3 x 1024 = 341.3333... -> 341.333333334.
  CHECK(parse_quantity("0.1Ki") == Quantity(1024, -1));
  CHECK(parse_quantity("0.333333333333333333333333333333Ki") == Quantity(341333333334LL, -9));
  // 2^63 bytes and just below it: capped at 2^63-1 (a long fraction still counts).
  CHECK(parse_quantity("7Ei").value() == std::int64_t{7} << 60);
  CHECK(parse_quantity("8Ei").value() == INT64_MAX);  // 2^63: capped
  CHECK(parse_quantity("7.99999999999999999999Ei").value() == INT64_MAX);
  CHECK(parse_quantity("7.9999999999999999999Ei").value() == INT64_MAX);
  CHECK(parse_quantity("100000000000000000000000Ki") == max_allowed(F::BinarySI));
  // Decimal amounts are not capped: 1.2e19 is held; its Value() is beyond int64.
  CHECK(parse_quantity("12E") == Quantity(12, 18));
  CHECK(parse_quantity("1E").value() == 1000000000000000000);
  CHECK_THROWS_AS(parse_quantity("1E").milli_value(), QuantityError);
  CHECK_THROWS_AS(parse_quantity("12E").value(), QuantityError);
  CHECK_THROWS_AS(parse_quantity("9Ei").milli_value(), QuantityError);
  CHECK(parse_quantity("9Ei").value() == INT64_MAX);
  CHECK(parse_quantity("9223372036854775.807").milli_value() == INT64_MAX);
  CHECK_THROWS_AS(parse_quantity("9223372036854775.8071").milli_value(), QuantityError);
  CHECK(parse_quantity("-9223372036854775808").value() == INT64_MIN);
  CHECK_THROWS_AS(parse_quantity("9223372036854775808").value(), QuantityError);
  CHECK(contains([] {
    try {
      (void)parse_quantity("12E").value();
    } catch (const QuantityError& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), "quantity 12E: its Value() is beyond a 64-bit integer"));
  // 1e100 is held (one digit), 45 significant digits are not.
  CHECK(parse_quantity("1e100").exponent() == 100);
  CHECK(problem_of("123456789012345678901234567890123456789012345") == QuantityProblem::OutOfRange);
  CHECK(parse_quantity("12345678901234567890123456789.012345678").str() == "12345678901234567890123456789012345678n");
}

TEST_CASE("parseQuantityString's leniencies, kept as upstream has them") {
  CHECK(parse_quantity(".").is_zero());   // TestParseQuantityString: "." and "-." are 0
  CHECK(parse_quantity("-.").is_zero());
  CHECK(parse_quantity("+").is_zero());
  CHECK(parse_quantity("Ki").is_zero());  // no digits, BinarySI
  CHECK(parse_quantity("Ki").format() == F::BinarySI);
  CHECK(parse_quantity("e5").is_zero());
  CHECK(parse_quantity("1.").value() == 1);
  CHECK(parse_quantity("1E-3") == Quantity(1, -3));  // TestParseQuantityString's last row
  CHECK(parse_quantity("0.025Ti") == Quantity(274877906944LL, -1));
  // Upstream's big-decimal path needs a digit: "e-10" (exponent below -9) and "Pi", "Ei"
  // (whose precision check sends them there) are ErrNumeric; "Ti" is not.
  CHECK(problem_of("e-10") == QuantityProblem::Numeric);
  CHECK(problem_of(".e-10") == QuantityProblem::Numeric);
  CHECK(problem_of("Pi") == QuantityProblem::Numeric);
  CHECK(problem_of("-Ei") == QuantityProblem::Numeric);
  CHECK(parse_quantity("Ti").is_zero());
  CHECK(parse_quantity("e-9").is_zero());  // scale -9: the int64 path, which needs no digit
  CHECK(parse_quantity("0e-10").is_zero());
  CHECK(contains(error_of("e-10"), "unable to parse numeric part of quantity"));  // ErrNumeric's text
  // An exponent is a 64-bit integer truncated to 32 bits (int32(parsed) in suffix.go).
  CHECK(parse_quantity("1e4294967297") == Quantity(10, 0));
  CHECK(problem_of("1e9223372036854775808") == QuantityProblem::Suffix);
  CHECK(parse_quantity("1e+3") == Quantity(1000, 0));
  CHECK(parse_quantity("1E+3").format() == F::DecimalExponent);
}

TEST_CASE("String keeps the text exactly when upstream's ParseQuantity does") {
  CHECK(parse_quantity("1.500").str() == "1.500");  // scale -3, shifted 1500: judged canonical
  CHECK(parse_quantity("+1k").str() == "+1k");
  CHECK(parse_quantity("03Ki").str() == "03Ki");
  CHECK(parse_quantity("1.5").str() == "1500m");
  CHECK(parse_quantity("1.5Gi").str() == "1536Mi");
  CHECK(parse_quantity("0.5Ki").str() == "512");
  CHECK(parse_quantity("1000E").str() == "1");  // 1e21 has no DecimalSI suffix: printed bare, as upstream
  CHECK(parse_quantity("1000E").canonical() == "1");
  CHECK(parse_quantity("1e21").str() == "1e21");
  // Only the int64 path keeps text: at most 18 digits (maxInt64Factors), else inf.Dec.
  CHECK(parse_quantity("+100000000000000001").str() == "+100000000000000001");
  CHECK(parse_quantity("+1000000000000000001").str() == "1000000000000000001");
  CHECK(parse_quantity("+1.00000000000000001").str() == "1000000001n");  // scale -17 < -9: inf.Dec, rounded
  CHECK(parse_quantity("+30Ti").str() == "+30Ti");    // BinarySI precision 15-2-12-1 = 0: int64 path
  CHECK(parse_quantity("+300Ti").str() == "300Ti");   // 15-3-12-1 < 0: inf.Dec path, canonical
}

TEST_CASE("Error messages quote the text safely") {
  CHECK(contains(error_of(std::string("1\x01") + "Gi"), "'1\\x01Gi'"));
  const std::string long_text(500, '9');
  CHECK(contains(error_of(long_text + "x"), "(501 bytes; the first 120 shown)"));
}
