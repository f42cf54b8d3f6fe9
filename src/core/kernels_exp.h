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
#include <cassert>
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

// The smallest and largest of x[j0, n) and *mn, *mx: the scalar min/max kernel's loop and the
// SIMD kernel's leftovers.
inline void minmax_from(int j0, int n, const float* x, float* mn, float* mx) {
  for (int j = j0; j < n; ++j) {
    if (x[j] < *mn) *mn = x[j];
    if (x[j] > *mx) *mx = x[j];
  }
}

// y[j] = 2^((x[j] − m)·c) for j in [j0, n), and their sum: the scalar kernels' loop and the
// SIMD kernels' leftovers. Without kScaled the scores are already in base-2 units (c = 1).
template <bool kScaled>
float exp2_minus_sum(int j0, int n, const float* x, float m, float c, float* y) {
  float sum = 0.0f;
  for (int j = j0; j < n; ++j) {
    // x - m is exact near the maximum; exp(-inf - -inf) is NaN, as in attn::softmax_rows.
    y[j] = exp2_f32(kScaled ? (x[j] - m) * c : x[j] - m);
    sum += y[j];
  }
  return sum;
}

// What a masked softmax row needs before its exponentials, the same for both twins: the
// row maximum M (over the visible scores x[lo, hi), and the masked score m2 when a key is
// masked), the smallest visible score, and the weight each masked key gets, 2^(m2 - M)
// before normalising. `rminmax(n, x, &mn, &mx)` is the twin's min/max kernel.
struct MaskedRowPlan {
  int visible = 0, masked = 0;
  float mn = 0.0f, mx = 0.0f, mw = 0.0f;
};

template <typename RMinMax>
MaskedRowPlan plan_masked_row(int n, const float* x, int lo, int hi, float mask_value,
                              RMinMax rminmax) {
  assert(n >= 1);
  assert(lo >= 0 && hi <= n);
  assert(!std::isnan(mask_value) && mask_value <= 0.0f);
  MaskedRowPlan p;
  p.visible = std::max(0, hi - lo);
  p.masked = n - p.visible;
  const float mask2 = mask_value_base2(mask_value);
  p.mn = std::numeric_limits<float>::infinity();
  p.mx = -p.mn;
  if (p.visible > 0) rminmax(p.visible, x + lo, &p.mn, &p.mx);
  if (p.masked > 0 && (p.visible == 0 || mask2 > p.mx)) p.mx = mask2;
  p.mw = p.masked > 0 ? exp2_f32(mask2 - p.mx) : 0.0f;
  return p;
}

// The masked keys' weight in y outside [lo, hi); the row's sum with them.
inline float finish_masked_row(int n, int lo, int hi, const MaskedRowPlan& p, float visible_sum,
                               float* y, float* masked_weight) {
  if (p.masked > 0) {
    std::fill(y, y + std::min(lo, n), p.mw);
    std::fill(y + std::max(hi, lo), y + n, p.mw);
  }
  *masked_weight = p.mw;
  return visible_sum + static_cast<float>(p.masked) * p.mw;
}

}  // namespace kernels
}  // namespace attn
