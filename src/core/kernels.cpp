// Packing, the kernel sets, and the drivers: blocked GEMM and the fused attention forward pass.
//
// [SECTION] Packing
// [SECTION] Kernel sets
// [SECTION] GEMM driver
// [SECTION] Fused attention
#include "core/kernels.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/kernels_exp.h"

namespace attn {
namespace kernels {

//-----------------------------------------------------------------------------
// [SECTION] Packing
//-----------------------------------------------------------------------------

void pack_b(int k, int n, const float* b, int ldb, float* packed) {
  assert(k >= 0 && n >= 0 && ldb >= n);
  for (int p = 0; p < panel_count(n); ++p) {
    const int cols = std::min(kPanel, n - p * kPanel);
    for (int r = 0; r < k; ++r) {
      const float* src = b + static_cast<ptrdiff_t>(r) * ldb + p * kPanel;
      float* dst = packed + (static_cast<ptrdiff_t>(p) * k + r) * kPanel;
      for (int c = 0; c < cols; ++c) dst[c] = src[c];
      for (int c = cols; c < kPanel; ++c) dst[c] = 0.0f;
    }
  }
}

void pack_bt(int k, int n, const float* bt, int ldbt, float* packed) {
  assert(k >= 0 && n >= 0 && ldbt >= k);
  for (int p = 0; p < panel_count(n); ++p) {
    float* panel = packed + static_cast<ptrdiff_t>(p) * k * kPanel;
    const int cols = std::min(kPanel, n - p * kPanel);
    for (int c = 0; c < cols; ++c) {
      const float* src = bt + static_cast<ptrdiff_t>(p * kPanel + c) * ldbt;
      for (int r = 0; r < k; ++r) panel[r * kPanel + c] = src[r];
    }
    for (int c = cols; c < kPanel; ++c)
      for (int r = 0; r < k; ++r) panel[r * kPanel + c] = 0.0f;
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Kernel sets
//-----------------------------------------------------------------------------

const KernelSet& scalar_kernels() {
  static const KernelSet set = {"scalar",
                                f32_gemm_2x16__scalar,
                                f32_vscale__scalar,
                                f32_rminmax__scalar,
                                f32_softmax_row__scalar,
                                f32_masked_softmax_row__scalar,
                                f32_softmax_backward_row__scalar};
  return set;
}

#if AP_KERNELS_HAVE_WASMSIMD
const KernelSet& wasmsimd_kernels() {
  static const KernelSet set = {"wasmsimd",
                                f32_gemm_2x16__wasmsimd,
                                f32_vscale__wasmsimd,
                                f32_rminmax__wasmsimd,
                                f32_softmax_row__wasmsimd,
                                f32_masked_softmax_row__wasmsimd,
                                f32_softmax_backward_row__wasmsimd};
  return set;
}
#endif

namespace {
const KernelSet* g_preferred = nullptr;
}  // namespace

void prefer_kernels(const KernelSet* set) {
  g_preferred = set;
}

const KernelSet& best_kernels() {
  if (g_preferred) return *g_preferred;
#if AP_KERNELS_HAVE_WASMSIMD
  return wasmsimd_kernels();
#else
  return scalar_kernels();
#endif
}

//-----------------------------------------------------------------------------
// [SECTION] GEMM driver
//-----------------------------------------------------------------------------

void gemm(const KernelSet& ks, int m, int n, int k, const float* a, int lda, const float* packed_b,
          float* c, int ldc) {
  assert(m >= 0 && n >= 0 && k >= 0);
  assert(lda >= k && ldc >= n);
  if (n == 0) return;
  const size_t panel_stride = static_cast<size_t>(k) * kPanel;
  // Blocks of panels that fit in 32 KiB stay in the L1 cache while every row pair streams
  // past them.
  const int block =
      std::max(1, static_cast<int>(32768 / (sizeof(float) * std::max<size_t>(1, panel_stride))));
  for (int p0 = 0; p0 < panel_count(n); p0 += block) {
    const int nc = std::min(block * kPanel, n - p0 * kPanel);
    for (int i = 0; i < m; i += 2) {
      ks.gemm_2x16(std::min(2, m - i), nc, k, a + static_cast<ptrdiff_t>(i) * lda, lda,
                   packed_b + p0 * panel_stride, panel_stride,
                   c + static_cast<ptrdiff_t>(i) * ldc + p0 * kPanel, ldc);
    }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Fused attention
//-----------------------------------------------------------------------------

void attention_fused(const KernelSet& ks, const FusedArgs& a, FusedWorkspace* ws) {
  assert(a.n_q >= 0 && a.n_k >= 1 && a.d >= 1 && a.d_v >= 1);
  assert(a.q != nullptr && a.ldq >= a.d);
  assert(a.packed_kt != nullptr && a.packed_v != nullptr);
  assert(a.lo != nullptr && a.hi != nullptr);
  assert(a.n_cells == 0 || a.cells != nullptr);
  assert(!std::isnan(a.mask_value) && a.mask_value <= 0.0f);
  assert(a.out != nullptr && a.ldo >= a.d_v);
  const int lds = panel_count(a.n_k) * kPanel;
  const int ldacc = panel_count(a.d_v) * kPanel;
  ws->scores.resize(static_cast<size_t>(kFusedRows) * lds);
  ws->acc.resize(static_cast<size_t>(kFusedRows) * ldacc);
  float* const s = ws->scores.data();
  float* const acc = ws->acc.data();
  const float mask2 = mask_value_base2(a.mask_value);

  for (int i0 = 0; i0 < a.n_q; i0 += kFusedRows) {
    const int rows = std::min(kFusedRows, a.n_q - i0);

    // The keys [first, last) that some query of the block sees.
    int first = a.n_k, last = 0;
    for (int r = 0; r < rows; ++r) {
      const int lo = std::max(0, a.lo[i0 + r]), hi = std::min(a.n_k, a.hi[i0 + r]);
      if (lo < hi) {
        first = std::min(first, lo);
        last = std::max(last, hi);
      }
    }

    // Q·Kᵀ for those keys, whole panels, in base-2 units (q carries scale·log2 e).
    if (first < last) {
      const int p0 = first / kPanel;
      const size_t panel_stride = static_cast<size_t>(a.d) * kPanel;
      for (int r = 0; r < rows; r += 2) {
        ks.gemm_2x16(std::min(2, rows - r), (panel_count(last) - p0) * kPanel, a.d,
                     a.q + static_cast<ptrdiff_t>(i0 + r) * a.ldq, a.ldq,
                     a.packed_kt + p0 * panel_stride, panel_stride,
                     s + static_cast<ptrdiff_t>(r) * lds + p0 * kPanel, lds);
      }
    }

    // Explicit cells become mask_value before the softmax, as in attn::apply_mask.
    for (int c = 0; c < a.n_cells; ++c) {
      const MaskedCell& cell = a.cells[c];
      if (cell.i < i0 || cell.i >= i0 + rows || cell.j < 0 || cell.j >= a.n_k) continue;
      s[static_cast<ptrdiff_t>(cell.i - i0) * lds + cell.j] = mask2;
    }

    // Masked softmax, unnormalized, in place. P·V then runs over the keys that carry weight:
    // [lo, hi) for a row whose masked keys weigh 0, every key otherwise.
    float inv_sum[kFusedRows];
    int pv_first = a.n_k, pv_last = 0;
    for (int r = 0; r < rows; ++r) {
      float* row = s + static_cast<ptrdiff_t>(r) * lds;
      const int lo = std::max(0, a.lo[i0 + r]), hi = std::min(a.n_k, a.hi[i0 + r]);
      float masked_weight;
      const float sum = ks.masked_softmax_row(a.n_k, row, std::min(lo, a.n_k), std::max(hi, 0),
                                              a.mask_value, row, &masked_weight);
      inv_sum[r] = 1.0f / sum;
      if (masked_weight != 0.0f) {  // NaN included
        pv_first = 0;
        pv_last = a.n_k;
      } else if (lo < hi) {
        pv_first = std::min(pv_first, lo);
        pv_last = std::max(pv_last, hi);
      }
    }
    const int kc = std::max(0, pv_last - pv_first);

    const size_t v_stride = static_cast<size_t>(a.n_k) * kPanel;
    for (int r = 0; r < rows; r += 2) {
      ks.gemm_2x16(std::min(2, rows - r), ldacc, kc, s + static_cast<ptrdiff_t>(r) * lds + pv_first,
                   lds, a.packed_v + static_cast<size_t>(pv_first) * kPanel, v_stride,
                   acc + static_cast<ptrdiff_t>(r) * ldacc, ldacc);
    }
    for (int r = 0; r < rows; ++r) {
      ks.vscale(a.d_v, acc + static_cast<ptrdiff_t>(r) * ldacc, inv_sum[r],
                a.out + static_cast<ptrdiff_t>(i0 + r) * a.ldo);
    }
  }
}

}  // namespace kernels
}  // namespace attn
