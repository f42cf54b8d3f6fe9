// Numbers as text: the shortest decimal that reads back to the same float32 (format_float),
// as every JSON and CSV the playground writes spells them.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario {

using json_util::kPow10;
using json_util::times_pow10;

//-----------------------------------------------------------------------------
// [SECTION] Number formatting
//-----------------------------------------------------------------------------

namespace {

// The shortest text that reads back (strtof) to exactly v, with printf and strtof: a binary
// search over 1 to 9 significant digits (printf rounds the exact value correctly, so a
// precision that reads back makes every larger one read back too). Exact, and slow in WASM
// (musl's printf and strtof work in big integers): shortest_fast does the usual case.
int format_float_printf(char* buf, float v) {
  const float a = std::fabs(v);
  int lo = 1, hi = 9;  // 9 significant digits always read back
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    // `& 15` (mid is 1 to 9 anyway) lets the compiler see the text fits the 48 bytes.
    std::snprintf(buf, 48, "%.*g", mid & 15, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v)
      hi = mid;
    else
      lo = mid + 1;
  }
  int len = std::snprintf(buf, 48, "%.*g", lo & 15, static_cast<double>(v));
  // %g writes 0.000123 as "0.000123" but 10.5e3 as "1.05e+04": between 1e-4 and 1e5 a plain
  // decimal reads better.
  if (std::strchr(buf, 'e') && a >= 1e-4f && a < 1e5f) {
    char plain[48];
    for (int decimals = 0; decimals <= 12; ++decimals) {
      const int n = std::snprintf(plain, sizeof plain, "%.*f", decimals, static_cast<double>(v));
      if (std::strtof(plain, nullptr) == v) {
        std::memcpy(buf, plain, static_cast<size_t>(n) + 1);
        return n;
      }
    }
  }
  return len;
}

// Whether the real number near r (|real − r| <= |r|·2^-53) is so close to a tie — between two
// integers (`integers`) or two floats — that rounding r could round differently.
bool near_tie(double r, bool integers) {
  double tie;
  if (integers) {
    tie = std::floor(r) + 0.5;
  } else {
    const float f = static_cast<float>(r);
    const float other = std::nextafter(f, r > f ? INFINITY : -INFINITY);
    tie = (static_cast<double>(f) + static_cast<double>(other)) / 2;
  }
  return std::fabs(r - tie) <= std::fabs(r) * 0x1p-50;
}

// The shortest significant digits of a (finite, > 0) that read back to a, in double
// arithmetic: digits = round(a · 10^(p−1−e10)) for the smallest p that reads back. False when
// double arithmetic cannot decide (a power of ten it cannot hold exactly, a value near a tie):
// then printf decides.
bool shortest_fast(float a, uint64_t* digits, int* p, int* e10) {
  int e = static_cast<int>(std::floor(std::log10(static_cast<double>(a))));
  for (int precision = 1; precision <= 9; ++precision) {
    double scaled;
    if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    if (scaled >= kPow10[precision]) {  // log10 was one too small
      ++e;
      if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    } else if (scaled < kPow10[precision - 1]) {  // one too large
      --e;
      if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    }
    if (near_tie(scaled, true)) return false;
    double d = std::nearbyint(scaled);
    int exp10 = e;
    if (d >= kPow10[precision]) d /= 10, ++exp10;  // 9.96 at two digits is 10
    double back;
    if (!times_pow10(d, exp10 - precision + 1, &back)) return false;
    if (near_tie(back, false)) return false;
    if (static_cast<float>(back) == a) {
      *digits = static_cast<uint64_t>(d);
      *p = precision;
      *e10 = exp10;
      return true;
    }
  }
  return false;
}

// The digits as printf's %.{p}g writes them: exponent form below 1e-4 and from 10^p on, else
// a plain decimal; no trailing zeros.
int write_g(char* buf, bool negative, uint64_t digits, int p, int e10) {
  char d[24];
  const int n = std::snprintf(d, sizeof d, "%llu", static_cast<unsigned long long>(digits));
  int len = 0;
  if (negative) buf[len++] = '-';
  int used = n;
  while (used > 1 && d[used - 1] == '0') --used;  // trailing zeros
  if (e10 < -4 || e10 >= p) {
    buf[len++] = d[0];
    if (used > 1) {
      buf[len++] = '.';
      for (int i = 1; i < used; ++i) buf[len++] = d[i];
    }
    len += std::snprintf(buf + len, 16, "e%c%02d", e10 < 0 ? '-' : '+', std::abs(e10));
  } else if (e10 < 0) {
    buf[len++] = '0';
    buf[len++] = '.';
    for (int i = 0; i < -e10 - 1; ++i) buf[len++] = '0';
    for (int i = 0; i < used; ++i) buf[len++] = d[i];
  } else {
    for (int i = 0; i <= e10; ++i) buf[len++] = i < n ? d[i] : '0';
    if (used > e10 + 1) {
      buf[len++] = '.';
      for (int i = e10 + 1; i < used; ++i) buf[len++] = d[i];
    }
  }
  buf[len] = '\0';
  return len;
}

}  // namespace

int format_float_to(char* buf, float v) {
  if (std::isnan(v)) return std::snprintf(buf, 48, "nan");
  if (std::isinf(v)) return std::snprintf(buf, 48, v < 0 ? "-inf" : "inf");
  // Negative zero keeps its sign through JSON readers only as a float: "-0" reads as the
  // integer 0 (nlohmann, Python), "-0.0" as -0.0.
  if (v == 0.0f) return std::snprintf(buf, 48, std::signbit(v) ? "-0.0" : "0");
  const float a = std::fabs(v);
  // Whole numbers below 1e5 as integers (masks, counts, the textbook's values).
  if (a < 1e5f && std::floor(a) == a)
    return std::snprintf(buf, 48, "%lld", static_cast<long long>(v));
  uint64_t digits;
  int p, e10;
  if (shortest_fast(a, &digits, &p, &e10)) {
    const bool exponent = e10 < -4 || e10 >= p;
    // %g's exponent form between 1e-4 and 1e5 becomes a plain decimal (format_float_printf).
    if (!exponent || a < 1e-4f || a >= 1e5f) return write_g(buf, v < 0, digits, p, e10);
  }
  return format_float_printf(buf, v);
}

std::string format_float(float v) {
  char buf[48];
  const int n = format_float_to(buf, v);
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace scenario
