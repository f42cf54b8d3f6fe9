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
  *min = std::numeric_limits<float>::infinity();
  *max = -*min;
  minmax_from(0, n, x, min, max);
}

void f32_softmax_row__scalar(int n, const float* x, float* y) {
  assert(n >= 1);
  float mn, mx;
  f32_rminmax__scalar(n, x, &mn, &mx);
  const float sum = exp2_minus_sum<true>(0, n, x, mx, kLog2e, y);
  f32_vscale__scalar(n, y, 1.0f / sum, y);
}

float f32_masked_softmax_row__scalar(int n, const float* x, int lo, int hi, float mask_value,
                                     float* y, float* masked_weight) {
  const MaskedRowPlan p = plan_masked_row(n, x, lo, hi, mask_value, f32_rminmax__scalar);
  const float sum = exp2_minus_sum<false>(lo, hi, x, p.mx, 1.0f, y);
  return finish_masked_row(n, lo, hi, p, sum, y, masked_weight);
}

}  // namespace kernels
}  // namespace attn
