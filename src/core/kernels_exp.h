// 2^t for the softmax kernels: constants shared by the SIMD and scalar twins, and the scalar one.
//
// t = n + r with n = round(t) (by adding a magic number, whose low mantissa bits then hold
// n + 127: shifted into the exponent field they make 2^n) and |r| <= 1/2; 2^r is a degree-5
// polynomial (relative error 1.9e-7 evaluated in float32, fitted for this project), evaluated
// as (1 + c1 r) + r²((c2 + c3 r) + r²(c4 + c5 r)): two more operations than Horner's rule but
// a dependency chain half as long, which measured 10% faster under V8. Below
// t = -125 the result is exactly 0: every result is a normal float, never a denormal, which
// V8 does not flush and which would be slow. NaN stays NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attn {
namespace kernels {

constexpr float kLog2e = 0x1.715476p+0f;
constexpr float kExp2Magic = 0x1.8000FEp23f;  // 1.5·2^23 + 127: rounds, and biases n by 127
constexpr float kExp2Cutoff = -125.0f;        // 2^t is 0 below, and a normal float above
constexpr float kExp2C1 = 0x1.62e42ap-1f;
constexpr float kExp2C2 = 0x1.ebf9bcp-3f;
constexpr float kExp2C3 = 0x1.c6b752p-5f;
constexpr float kExp2C4 = 0x1.3cea88p-7f;
constexpr float kExp2C5 = 0x1.5bba14p-10f;

// A masked score in base-2 units: mask_value·log2(e), kept finite when mask_value is finite
// (below -2.4e38 the product would overflow to -inf, and a fully masked row would turn NaN
// instead of uniform).
inline float mask_value_base2(float mask_value) {
  if (std::isinf(mask_value)) return mask_value;
  return std::max(mask_value * kLog2e, -std::numeric_limits<float>::max());
}

// The scalar twin of the vector 2^t: the same operations in the same order, so both give the
// same bits.
inline float exp2_f32(float t) {
  if (t < kExp2Cutoff) return 0.0f;
  float n = t + kExp2Magic;
  uint32_t bits;
  std::memcpy(&bits, &n, sizeof bits);
  bits <<= 23;
  float s;
  std::memcpy(&s, &bits, sizeof s);
  n -= kExp2Magic;
  const float r = t - n;
  const float r2 = r * r;
  const float p01 = kExp2C1 * r + 1.0f;
  const float p23 = kExp2C3 * r + kExp2C2;
  const float p45 = kExp2C5 * r + kExp2C4;
  const float p = (p45 * r2 + p23) * r2 + p01;
  return p * s;
}

}  // namespace kernels
}  // namespace attn
