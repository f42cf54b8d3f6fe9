// read_plain_decimal (src/scenario/json_util.h): the plain decimals it takes read exactly as
// strtod reads them, bit for bit and to the same end; the rest it leaves to strtod. In
// WebAssembly strtod itself goes through it (--wrap=strtod), so the reference there is musl's
// own, __real_strtod.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "scenario/json_util.h"

#if defined(__EMSCRIPTEN__)
extern "C" double __real_strtod(const char* s, char** end);
#endif

namespace {

// The C library's own strtod, not routed through read_plain_decimal.
double reference(const char* s, char** end) {
#if defined(__EMSCRIPTEN__)
  return __real_strtod(s, end);
#else
  return std::strtod(s, end);
#endif
}

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Whether read_plain_decimal takes `s`; when it does, it must agree with the reference.
bool agrees(const std::string& s) {
  double fast = 0.0;
  const char* fast_end = nullptr;
  const bool taken = scenario::json_util::read_plain_decimal(s.c_str(), &fast, &fast_end);
  char* ref_end = nullptr;
  const double ref = reference(s.c_str(), &ref_end);
  if (taken) {
    INFO(s << ": read " << fast << ", strtod " << ref);
    CHECK(bits(fast) == bits(ref));
    CHECK(fast_end - s.c_str() == ref_end - s.c_str());
  }
  // strtod as the program calls it (wrapped in WebAssembly) always agrees with the C library.
  char* end = nullptr;
  const double through = std::strtod(s.c_str(), &end);
  INFO(s << ": strtod " << through << ", the C library " << ref);
  CHECK(bits(through) == bits(ref));
  CHECK(end == ref_end);
  return taken;
}

}  // namespace

TEST_CASE("plain decimals read exactly as strtod reads them", "[scenario][decimal]") {
  // The fast path takes these (and must: otherwise the check above would hold vacuously)...
  for (const char* s : {"0",          "-0",
                        "+0",         "0.0",
                        "1",          "-1",
                        "0.1",        "0.2",
                        "0.3",        "-0.001",
                        "123.456",    "1e5",
                        "1E5",        "1e-5",
                        "2.5e+3",     "-7.25e-10",
                        "0.000123",   "9007199254740992",
                        "4.35",       "0.1,",
                        "1.5]",       "3.14159265358979",
                        "1e22",       "1e-22",
                        "007",        "00.5",
                        "1.5e3x",     "8.5.3",
                        "1234567.125"}) {
    INFO(s);
    CHECK(agrees(s));
  }
  // ...and leaves these to strtod: more digits than a double holds exactly, or an exponent
  // without digits. Either way the numbers agree.
  for (const char* s : {"1234567890123456789e-22", "0.30000000000000004", "8.5e", "8.5e+"}) {
    INFO(s);
    CHECK_FALSE(agrees(s));
  }
}

TEST_CASE("what double arithmetic cannot read exactly is left to strtod", "[scenario][decimal]") {
  double v = 0.0;
  const char* end = nullptr;
  for (const char* s : {" 1", "\t2", "inf", "-Infinity", "nan", "0x10", "0x1p3", "1e23", "1e-23",
                        "1e400", "12345678901234567890", "9007199254740993", ".", "-", "+.", "",
                        "e5", "0.30000000000000004", "1.7976931348623157e308"}) {
    INFO(s);
    CHECK_FALSE(scenario::json_util::read_plain_decimal(s, &v, &end));
    CHECK_FALSE(agrees(s));  // not taken; strtod still reads it, as the C library does
  }
}

TEST_CASE("random decimals: most are read fast, every one as strtod reads it",
          "[scenario][decimal]") {
  std::mt19937_64 rng(20261125);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int taken = 0;
  const int count = 100000;
  for (int i = 0; i < count; ++i) {
    std::string s = pick(0, 3) == 0 ? "-" : "";
    const int digits = pick(1, 19);
    const int point = pick(-1, digits);  // -1: no decimal point
    for (int d = 0; d < digits; ++d) {
      if (d == point) s += d == 0 ? "0." : ".";
      s += static_cast<char>('0' + pick(0, 9));
    }
    if (pick(0, 2) == 0) s += "e" + std::to_string(pick(-30, 30));
    if (agrees(s)) ++taken;
  }
  // The numbers JSON.stringify and our writer produce (up to 17 significant digits, mostly
  // 9 or fewer) are the common case; this mix has some with 18–19 digits or far exponents.
  CHECK(taken > count / 2);
  // And numbers as the playground writes them (shortest float32 text, at most 9 digits) are
  // all taken.
  std::uniform_real_distribution<float> uniform(-1000.0f, 1000.0f);
  for (int i = 0; i < 20000; ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(uniform(rng)));
    INFO(text);
    CHECK(agrees(text));
  }
}
