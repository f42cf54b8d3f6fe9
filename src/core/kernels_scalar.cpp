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

void f32_softmax_backward_row__scalar(int n, const float* a, const float* da, float s, int lo,
                                      int hi, const int* masked, int n_masked, float* ds) {
  assert(n >= 1);
  assert(n_masked == 0 || masked != nullptr);
  // Σ a·da in the SIMD kernel's lanes: two 4-lane sums over 8 keys per step, one more 4-key
  // step into the first, the two added, the lanes reduced as (0 + 2) + (1 + 3), then the
  // leftovers summed from 0 and added.
  float acc0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, acc1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 4; ++l) {
      acc0[l] += a[j + l] * da[j + l];
      acc1[l] += a[j + 4 + l] * da[j + 4 + l];
    }
  if (j + 4 <= n) {
    for (int l = 0; l < 4; ++l) acc0[l] += a[j + l] * da[j + l];
    j += 4;
  }
  float lanes[4];
  for (int l = 0; l < 4; ++l) lanes[l] = acc0[l] + acc1[l];
  float rest = 0.0f;
  for (; j < n; ++j) rest += a[j] * da[j];
  const float dot = ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3])) + rest;

  const int l0 = std::min(std::max(lo, 0), n), h0 = std::max(l0, std::min(hi, n));
  for (j = 0; j < l0; ++j) ds[j] = 0.0f;
  for (; j < h0; ++j) ds[j] = (s * a[j]) * (da[j] - dot);
  for (; j < n; ++j) ds[j] = 0.0f;
  for (int c = 0; c < n_masked; ++c) {
    assert(masked[c] >= 0 && masked[c] < n);
    ds[masked[c]] = 0.0f;
  }
}

}  // namespace kernels
}  // namespace attn
