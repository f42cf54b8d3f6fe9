// The __wasmsimd attention micro-kernels: wasm_simd128.h intrinsics (natively through SIMDe).
//
// The same source is compiled a second time as the __wasmrelaxed kernels (AP_KERNELS_RELAXED:
// kernels_wasmrelaxed.cpp): there every a·b + c of the GEMM, the exp polynomial and the
// softmax backward is f32x4.relaxed_madd, which the engine may fuse (one rounding, where the
// CPU has FMA) or not; everything else is the same code.
//
// Habits that the measurements behind kernels.h asked for: at most 8 accumulators live in a
// loop (V8 has about 15 xmm registers for WASM), no manual unrolling of the GEMM loop and no
// compiler unrolling either (both spilled), loads as broadcasts (v128.load32_splat) rather
// than shuffles, and pmin/pmax rather than min/max (which V8 lowers to NaN-fixing sequences).
//
// [SECTION] Setup
// [SECTION] GEMM
// [SECTION] Row kernels
// [SECTION] Backward row kernels
#include "core/kernels.h"

#if AP_KERNELS_HAVE_WASMSIMD

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/kernels_exp.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#if AP_KERNELS_RELAXED
#include <simde/wasm/relaxed-simd.h>
#endif
#endif

#if AP_KERNELS_RELAXED
#define AP_KERNEL(name) name##__wasmrelaxed
#else
#define AP_KERNEL(name) name##__wasmsimd
#endif

//-----------------------------------------------------------------------------
// [SECTION] Setup
//-----------------------------------------------------------------------------

#if defined(__clang__)
#define AP_NO_UNROLL _Pragma("clang loop unroll(disable)")
#elif defined(__GNUC__)
#define AP_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define AP_NO_UNROLL
#endif

namespace attn {
namespace kernels {

namespace {

// a·b + c: two roundings in the __wasmsimd kernels (f32x4.mul, then f32x4.add), and
// f32x4.relaxed_madd in the __wasmrelaxed ones (SIMDe's older name for it, natively).
inline v128_t madd(v128_t a, v128_t b, v128_t c) {
#if !AP_KERNELS_RELAXED
  return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
#elif defined(__wasm_relaxed_simd__)
  return wasm_f32x4_relaxed_madd(a, b, c);
#else
  return simde_wasm_f32x4_fma(c, a, b);
#endif
}

inline float hmax(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

inline float hmin(v128_t v) {
  v = wasm_f32x4_pmin(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmin(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

inline float hsum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// Stores the first `count` lanes of v at p (count 1..4).
inline void store_lanes(float* p, v128_t v, int count) {
  if (count == 4) {
    wasm_v128_store(p, v);
    return;
  }
  float lanes[4];
  wasm_v128_store(lanes, v);
  for (int i = 0; i < count; ++i) p[i] = lanes[i];
}

// 2^t for t >= kExp2Cutoff (the caller guarantees it), lane by lane as exp2_f32.
inline v128_t exp2_nocutoff(v128_t vt) {
  const v128_t vmagic = wasm_f32x4_splat(kExp2Magic);
  v128_t vn = wasm_f32x4_add(vt, vmagic);
  const v128_t vs = wasm_i32x4_shl(vn, 23);
  vn = wasm_f32x4_sub(vn, vmagic);
  const v128_t vr = wasm_f32x4_sub(vt, vn);
  const v128_t vr2 = wasm_f32x4_mul(vr, vr);
  const v128_t vp01 = madd(wasm_f32x4_splat(kExp2C1), vr, wasm_f32x4_splat(1.0f));
  const v128_t vp23 = madd(wasm_f32x4_splat(kExp2C3), vr, wasm_f32x4_splat(kExp2C2));
  const v128_t vp45 = madd(wasm_f32x4_splat(kExp2C5), vr, wasm_f32x4_splat(kExp2C4));
  const v128_t vp = madd(madd(vp45, vr2, vp23), vr2, vp01);
  return wasm_f32x4_mul(vp, vs);
}

// 2^t for any t: exactly 0 below kExp2Cutoff (and for -inf); NaN stays NaN.
inline v128_t exp2_cutoff(v128_t vt) {
  return wasm_v128_andnot(exp2_nocutoff(vt), wasm_f32x4_lt(vt, wasm_f32x4_splat(kExp2Cutoff)));
}

// y[j] = 2^((x[j] − m)·c) for j in [0, n) and their sum, each as exp2_minus_sum (the scalar
// twin) computes it. `cutoff`: some exponent may be below the cutoff or not finite, so every
// lane is tested.
template <bool kScaled>
float exp2_minus_store_sum(int n, const float* x, float m, float c, bool cutoff, float* y) {
  const v128_t vm = wasm_f32x4_splat(m);
  const v128_t vc = wasm_f32x4_splat(c);
  auto exponent = [&](int j) {
    const v128_t vt = wasm_f32x4_sub(wasm_v128_load(x + j), vm);
    return kScaled ? wasm_f32x4_mul(vt, vc) : vt;
  };
  v128_t vsum = wasm_f32x4_splat(0.0f);
  int j = 0;
  if (cutoff) {
    AP_NO_UNROLL
    for (; j + 4 <= n; j += 4) {
      const v128_t ve = exp2_cutoff(exponent(j));
      vsum = wasm_f32x4_add(vsum, ve);
      wasm_v128_store(y + j, ve);
    }
  } else {
    // Two vectors per step: two independent exp chains in flight.
    v128_t vsum1 = vsum;
    AP_NO_UNROLL
    for (; j + 8 <= n; j += 8) {
      const v128_t ve0123 = exp2_nocutoff(exponent(j));
      const v128_t ve4567 = exp2_nocutoff(exponent(j + 4));
      vsum = wasm_f32x4_add(vsum, ve0123);
      vsum1 = wasm_f32x4_add(vsum1, ve4567);
      wasm_v128_store(y + j, ve0123);
      wasm_v128_store(y + j + 4, ve4567);
    }
    vsum = wasm_f32x4_add(vsum, vsum1);
  }
  // leftovers
  return hsum(vsum) + exp2_minus_sum<kScaled>(j, n, x, m, c, y);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] GEMM
//-----------------------------------------------------------------------------

void AP_KERNEL(f32_gemm_2x16)(int mr, int nc, int kc, const float* a, int lda, const float* w,
                              size_t panel_stride, float* c, int ldc) {
  assert(mr >= 1 && mr <= 2);
  assert(nc >= 1);
  assert(kc >= 0);
  assert(kc == 0 || (a != nullptr && w != nullptr));
  assert(nc <= kPanel || panel_stride >= static_cast<size_t>(kc) * kPanel);
  assert(c != nullptr);
  const float* a0 = a;
  const float* a1 = mr == 2 ? a + lda : a0;  // a single row is computed twice, stored once
  float* c0 = c;
  float* c1 = mr == 2 ? c + ldc : c0;
  // One panel of 16 columns per pass.
  for (; nc > 0; nc -= kPanel) {
    const float* wp = w;
    w += panel_stride;
    v128_t vacc0x0123 = wasm_f32x4_splat(0.0f);
    v128_t vacc0x4567 = vacc0x0123;
    v128_t vacc0x89AB = vacc0x0123;
    v128_t vacc0xCDEF = vacc0x0123;
    v128_t vacc1x0123 = vacc0x0123;
    v128_t vacc1x4567 = vacc0x0123;
    v128_t vacc1x89AB = vacc0x0123;
    v128_t vacc1xCDEF = vacc0x0123;
    AP_NO_UNROLL
    for (int k = 0; k < kc; ++k) {
      const v128_t vw0123 = wasm_v128_load(wp);
      const v128_t vw4567 = wasm_v128_load(wp + 4);
      const v128_t vw89AB = wasm_v128_load(wp + 8);
      const v128_t vwCDEF = wasm_v128_load(wp + 12);
      wp += kPanel;
      const v128_t va0 = wasm_v128_load32_splat(a0 + k);
      vacc0x0123 = madd(va0, vw0123, vacc0x0123);
      vacc0x4567 = madd(va0, vw4567, vacc0x4567);
      vacc0x89AB = madd(va0, vw89AB, vacc0x89AB);
      vacc0xCDEF = madd(va0, vwCDEF, vacc0xCDEF);
      const v128_t va1 = wasm_v128_load32_splat(a1 + k);
      vacc1x0123 = madd(va1, vw0123, vacc1x0123);
      vacc1x4567 = madd(va1, vw4567, vacc1x4567);
      vacc1x89AB = madd(va1, vw89AB, vacc1x89AB);
      vacc1xCDEF = madd(va1, vwCDEF, vacc1xCDEF);
    }
    if (nc >= kPanel) {
      // With mr = 1, c1 is c0 and both rows hold the same sums.
      wasm_v128_store(c1, vacc1x0123);
      wasm_v128_store(c1 + 4, vacc1x4567);
      wasm_v128_store(c1 + 8, vacc1x89AB);
      wasm_v128_store(c1 + 12, vacc1xCDEF);
      wasm_v128_store(c0, vacc0x0123);
      wasm_v128_store(c0 + 4, vacc0x4567);
      wasm_v128_store(c0 + 8, vacc0x89AB);
      wasm_v128_store(c0 + 12, vacc0xCDEF);
      c0 += kPanel;
      c1 += kPanel;
    } else {
      // leftovers: the last nc < 16 columns
      const v128_t vacc0[4] = {vacc0x0123, vacc0x4567, vacc0x89AB, vacc0xCDEF};
      const v128_t vacc1[4] = {vacc1x0123, vacc1x4567, vacc1x89AB, vacc1xCDEF};
      for (int q = 0; q * 4 < nc; ++q) {
        const int count = std::min(4, nc - q * 4);
        store_lanes(c1 + q * 4, vacc1[q], count);
        store_lanes(c0 + q * 4, vacc0[q], count);
      }
    }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Row kernels
//-----------------------------------------------------------------------------

void AP_KERNEL(f32_vscale)(int n, const float* x, float s, float* y) {
  assert(n >= 0);
  const v128_t vs = wasm_f32x4_splat(s);
  int j = 0;
  for (; j + 4 <= n; j += 4) wasm_v128_store(y + j, wasm_f32x4_mul(wasm_v128_load(x + j), vs));
  // leftovers
  for (; j < n; ++j) y[j] = x[j] * s;
}

void AP_KERNEL(f32_rminmax)(int n, const float* x, float* min, float* max) {
  assert(n >= 1);
  // Two accumulators each: one pmax chain alone is latency bound.
  v128_t vmax0 = wasm_f32x4_splat(-std::numeric_limits<float>::infinity());
  v128_t vmin0 = wasm_f32x4_splat(std::numeric_limits<float>::infinity());
  v128_t vmax1 = vmax0, vmin1 = vmin0;
  int j = 0;
  AP_NO_UNROLL
  for (; j + 8 <= n; j += 8) {
    const v128_t vx0123 = wasm_v128_load(x + j);
    const v128_t vx4567 = wasm_v128_load(x + j + 4);
    vmax0 = wasm_f32x4_pmax(vmax0, vx0123);
    vmin0 = wasm_f32x4_pmin(vmin0, vx0123);
    vmax1 = wasm_f32x4_pmax(vmax1, vx4567);
    vmin1 = wasm_f32x4_pmin(vmin1, vx4567);
  }
  if (j + 4 <= n) {
    const v128_t vx = wasm_v128_load(x + j);
    vmax0 = wasm_f32x4_pmax(vmax0, vx);
    vmin0 = wasm_f32x4_pmin(vmin0, vx);
    j += 4;
  }
  *max = hmax(wasm_f32x4_pmax(vmax0, vmax1));
  *min = hmin(wasm_f32x4_pmin(vmin0, vmin1));
  minmax_from(j, n, x, min, max);  // leftovers
}

void AP_KERNEL(f32_softmax_row)(int n, const float* x, float* y) {
  assert(n >= 1);
  float mn, mx;
  AP_KERNEL(f32_rminmax)(n, x, &mn, &mx);
  // The cutoff test is skipped when even the smallest exponent is above it; NaN and the
  // infinities fail the comparison and take the loop with the test.
  const bool cutoff = !((mn - mx) * kLog2e >= kExp2Cutoff);
  const float sum = exp2_minus_store_sum<true>(n, x, mx, kLog2e, cutoff, y);
  AP_KERNEL(f32_vscale)(n, y, 1.0f / sum, y);
}

float AP_KERNEL(f32_masked_softmax_row)(int n, const float* x, int lo, int hi, float mask_value,
                                        float* y, float* masked_weight) {
  const MaskedRowPlan p = plan_masked_row(n, x, lo, hi, mask_value, AP_KERNEL(f32_rminmax));
  float sum = 0.0f;
  if (p.visible > 0) {
    const bool cutoff = !(p.mn - p.mx >= kExp2Cutoff);
    sum = exp2_minus_store_sum<false>(p.visible, x + lo, p.mx, 1.0f, cutoff, y + lo);
  }
  return finish_masked_row(n, lo, hi, p, sum, y, masked_weight);
}

//-----------------------------------------------------------------------------
// [SECTION] Backward row kernels
//-----------------------------------------------------------------------------

void AP_KERNEL(f32_softmax_backward_row)(int n, const float* a, const float* da, float s, int lo,
                                         int hi, const int* masked, int n_masked, float* ds) {
  assert(n >= 1);
  assert(n_masked == 0 || masked != nullptr);
  // Σ a·da: two accumulators (one add chain alone is latency bound).
  v128_t vacc0 = wasm_f32x4_splat(0.0f), vacc1 = vacc0;
  int j = 0;
  AP_NO_UNROLL
  for (; j + 8 <= n; j += 8) {
    vacc0 = madd(wasm_v128_load(a + j), wasm_v128_load(da + j), vacc0);
    vacc1 = madd(wasm_v128_load(a + j + 4), wasm_v128_load(da + j + 4), vacc1);
  }
  if (j + 4 <= n) {
    vacc0 = madd(wasm_v128_load(a + j), wasm_v128_load(da + j), vacc0);
    j += 4;
  }
  float rest = 0.0f;
  for (; j < n; ++j) rest += a[j] * da[j];  // leftovers
  const float dot = hsum(wasm_f32x4_add(vacc0, vacc1)) + rest;

  // ds = (s·a)·(da − dot) over the visible keys, 0 around them.
  const int l0 = std::min(std::max(lo, 0), n), h0 = std::max(l0, std::min(hi, n));
  for (j = 0; j < l0; ++j) ds[j] = 0.0f;
  const v128_t vs = wasm_f32x4_splat(s), vdot = wasm_f32x4_splat(dot);
  AP_NO_UNROLL
  for (; j + 4 <= h0; j += 4) {
    const v128_t vsa = wasm_f32x4_mul(vs, wasm_v128_load(a + j));
    wasm_v128_store(ds + j, wasm_f32x4_mul(vsa, wasm_f32x4_sub(wasm_v128_load(da + j), vdot)));
  }
  for (; j < h0; ++j) ds[j] = (s * a[j]) * (da[j] - dot);  // leftovers
  for (; j < n; ++j) ds[j] = 0.0f;
  for (int c = 0; c < n_masked; ++c) {
    assert(masked[c] >= 0 && masked[c] < n);
    ds[masked[c]] = 0.0f;
  }
}

}  // namespace kernels
}  // namespace attn

#endif  // AP_KERNELS_HAVE_WASMSIMD
