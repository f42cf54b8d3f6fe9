// The __scalar twins of the attention micro-kernels: plain loops, the SIMD kernels' arithmetic.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/kernels.h"
#include "core/kernels_exp.h"

namespace attn {
namespace kernels {

void f32_gemm_2x16__scalar(int mr, int nc, int kc, const float* a, int lda, const float* w,
                           size_t panel_stride, float* c, int ldc) {
  assert(mr >= 1 && mr <= 2);
  assert(nc >= 1);
  assert(kc >= 0);
  assert(kc == 0 || (a != nullptr && w != nullptr));
  assert(nc <= kPanel || panel_stride >= static_cast<size_t>(kc) * kPanel);
  assert(c != nullptr);
  for (int j = 0; j < nc; ++j) {
    // Column j is column j % 16 of panel j / 16.
    const float* wj = w + (j / kPanel) * panel_stride + j % kPanel;
    for (int i = 0; i < mr; ++i) {
      const float* ai = a + static_cast<ptrdiff_t>(i) * lda;
      float acc = 0.0f;
      for (int k = 0; k < kc; ++k) acc += ai[k] * wj[k * kPanel];
      c[static_cast<ptrdiff_t>(i) * ldc + j] = acc;
    }
  }
}

void f32_vscale__scalar(int n, const float* x, float s, float* y) {
  assert(n >= 0);
  for (int j = 0; j < n; ++j) y[j] = x[j] * s;
}

void f32_rminmax__scalar(int n, const float* x, float* min, float* max) {
  assert(n >= 1);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (int j = 0; j < n; ++j) {
    if (x[j] < mn) mn = x[j];
    if (x[j] > mx) mx = x[j];
  }
  *min = mn;
  *max = mx;
}

void f32_softmax_row__scalar(int n, const float* x, float* y) {
  assert(n >= 1);
  float mn, mx;
  f32_rminmax__scalar(n, x, &mn, &mx);
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) {
    // x - mx is exact near the maximum; exp(-inf - -inf) is NaN, as in attn::softmax_rows.
    y[j] = exp2_f32((x[j] - mx) * kLog2e);
    sum += y[j];
  }
  f32_vscale__scalar(n, y, 1.0f / sum, y);
}

float f32_masked_softmax_row__scalar(int n, const float* x, int lo, int hi, float mask_value,
                                     float* y, float* masked_weight) {
  assert(n >= 1);
  assert(lo >= 0 && hi <= n);
  assert(!std::isnan(mask_value) && mask_value <= 0.0f);
  const int visible = std::max(0, hi - lo);
  const int masked = n - visible;
  const float mask2 = mask_value_base2(mask_value);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  if (visible > 0) f32_rminmax__scalar(visible, x + lo, &mn, &mx);
  if (masked > 0 && (visible == 0 || mask2 > mx)) mx = mask2;
  const float mw = masked > 0 ? exp2_f32(mask2 - mx) : 0.0f;
  float sum = 0.0f;
  for (int j = lo; j < hi; ++j) {
    y[j] = exp2_f32(x[j] - mx);
    sum += y[j];
  }
  for (int j = 0; j < std::min(lo, n); ++j) y[j] = mw;
  for (int j = std::max(hi, lo); j < n; ++j) y[j] = mw;
  *masked_weight = mw;
  return sum + static_cast<float>(masked) * mw;
}

}  // namespace kernels
}  // namespace attn
