// The attention micro-kernels against their scalar twins and float64 references at edge sizes
// (the backward row kernel too), the fused forward pass against the full path, and run_head /
// RunOptions against run.
//
// [SECTION] Helpers
// [SECTION] 2^t
// [SECTION] GEMM micro-kernel and driver
// [SECTION] Row kernels
// [SECTION] Backward row kernels
// [SECTION] Fused attention
// [SECTION] The core with the kernels
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compare.h"
#include "core/attention.h"
#include "core/kernels.h"
#include "core/kernels_exp.h"
#include "core/random.h"

#ifndef AP_TEST_RELAXED_KERNELS
#define AP_TEST_RELAXED_KERNELS 0
#endif
#ifndef AP_TEST_EXPECT_BEST_RELAXED
#define AP_TEST_EXPECT_BEST_RELAXED 0
#endif

namespace k = attn::kernels;
using attn::Problem;
using attn::Scoring;

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// SIMD against scalar twin: the same operations in the same order, so equal bits are expected;
// the tolerance only allows a compiler that contracts a*b+c into an FMA in one of them.
constexpr double kTwinTolerance = 1e-6;
// float32 kernels against a float64 reference, scaled by max(1, |reference|).
constexpr double kGemmTolerance = 1e-5;
// 2^t: the polynomial's 1.9e-7 plus the rounding of t, relative.
constexpr double kExp2Tolerance = 4e-7;
// Softmax weights (at most 1) against float64, absolute.
constexpr double kSoftmaxTolerance = 1e-6;
// The fused forward pass against the full path: different summation orders and the base-2
// rescaling of q, on outputs of magnitude about 1.
constexpr double kFusedTolerance = 2e-5;

const int kSizes[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65};

std::vector<float> random_vector(size_t n, double lo, double hi, uint64_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(lo + (hi - lo) * attn::uniform01(seed, i));
  return v;
}

// The largest difference between got and want over count values read with a stride, scaled
// by max(1, |want|); NaN must match NaN. `where` names the index and both values.
struct ArrayDiff {
  double worst = 0.0;
  bool nan_ok = true;
  std::string where = "none";
};

template <typename Want>
ArrayDiff compare_rows(int rows, int cols, const float* got, int ldg, const Want* want, int ldw) {
  ArrayDiff d;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const double g = got[static_cast<size_t>(i) * ldg + j];
      const double w = static_cast<double>(want[static_cast<size_t>(i) * ldw + j]);
      std::ostringstream os;
      os << "[" << i << "][" << j << "] got " << g << " want " << w;
      if (std::isnan(g) || std::isnan(w)) {
        if (std::isnan(g) != std::isnan(w)) {
          d.nan_ok = false;
          d.where = os.str() + " (NaN mismatch)";
        }
        continue;
      }
      if (std::isinf(g) || std::isinf(w)) {
        if (g != w) {
          d.nan_ok = false;
          d.where = os.str() + " (infinity mismatch)";
        }
        continue;
      }
      const double scaled = std::fabs(g - w) / std::max(1.0, std::fabs(w));
      if (scaled > d.worst) {
        d.worst = scaled;
        if (d.nan_ok) d.where = os.str();
      }
    }
  return d;
}

#define CHECK_ROWS_CLOSE(rows, cols, got, ldg, want, ldw, tolerance)                   \
  do {                                                                                 \
    const ArrayDiff diff_ = compare_rows((rows), (cols), (got), (ldg), (want), (ldw)); \
    INFO("worst scaled difference " << diff_.worst << " at " << diff_.where);          \
    CHECK(diff_.nan_ok);                                                               \
    CHECK(diff_.worst <= (tolerance));                                                 \
  } while (0)

#define CHECK_CLOSE(n, got, want, tolerance) \
  CHECK_ROWS_CLOSE(1, (n), (got), (n), (want), (n), tolerance)

// The kernel sets: every test build has the SIMD128 ones (WASM with -msimd128, natively
// through SIMDe), and "the test build has its kernel sets" fails if it does not; the relaxed
// ones where the build links them (AP_TEST_RELAXED_KERNELS: natively, and the WASM suite
// core_tests_relaxed, which runs under node with relaxed SIMD enabled).
std::vector<const k::KernelSet*> kernel_sets() {
  std::vector<const k::KernelSet*> sets = {&k::scalar_kernels()};
#if AP_KERNELS_HAVE_WASMSIMD
  sets.push_back(&k::wasmsimd_kernels());
#endif
#if AP_TEST_RELAXED_KERNELS
  sets.push_back(&k::relaxed_kernels());
#endif
  return sets;
}

// The SIMD128 set, whose kernels have a __scalar twin to agree with bit for bit. The scalar
// set is checked against the float64 reference only (compared with itself it could not fail),
// and so is the relaxed set: relaxed_madd may round once where its twin rounds twice.
bool has_twin(const k::KernelSet* ks) {
  return std::string(ks->name) == "wasmsimd";
}

}  // namespace

TEST_CASE("the test build has its kernel sets", "[kernels]") {
  // Without the SIMD set every twin check below would be skipped: fail instead.
  REQUIRE(AP_KERNELS_HAVE_WASMSIMD == 1);
  REQUIRE(kernel_sets().size() == 2 + AP_TEST_RELAXED_KERNELS);
  CHECK(std::string(kernel_sets()[1]->name) == "wasmsimd");
#if AP_TEST_RELAXED_KERNELS
  CHECK(std::string(kernel_sets()[2]->name) == "wasmrelaxed");
#endif
  // What attn::run uses: the relaxed set in a module built to prefer it, else SIMD128.
  CHECK(std::string(k::best_kernels().name) ==
        (AP_TEST_EXPECT_BEST_RELAXED ? "wasmrelaxed" : "wasmsimd"));
}

//-----------------------------------------------------------------------------
// [SECTION] 2^t
//-----------------------------------------------------------------------------

TEST_CASE("exp2_f32 is accurate, exactly 0 below the cutoff and never denormal", "[kernels][exp]") {
  double worst = 0.0, at = 0.0;
  for (int i = 0; i <= 200000; ++i) {
    const float t = -125.0f + 125.0f * static_cast<float>(i) / 200000.0f;
    const float got = k::exp2_f32(t);
    const double want = std::exp2(static_cast<double>(t));
    REQUIRE(std::fpclassify(got) == FP_NORMAL);
    const double rel = std::fabs(got - want) / want;
    if (rel > worst) worst = rel, at = t;
  }
  INFO("worst relative error " << worst << " at t = " << at);
  CHECK(worst <= kExp2Tolerance);
  CHECK(k::exp2_f32(0.0f) == 1.0f);
  CHECK(k::exp2_f32(-1.0f) == 0.5f);
  CHECK(k::exp2_f32(-125.5f) == 0.0f);
  CHECK(k::exp2_f32(-1e6f) == 0.0f);
  CHECK(k::exp2_f32(-kInf) == 0.0f);
  CHECK(std::isnan(k::exp2_f32(std::numeric_limits<float>::quiet_NaN())));
}

//-----------------------------------------------------------------------------
// [SECTION] GEMM micro-kernel and driver
//-----------------------------------------------------------------------------

TEST_CASE("f32_gemm_2x16: SIMD equals scalar and float64 at edge sizes and odd strides",
          "[kernels][gemm]") {
  for (int mr = 1; mr <= 2; ++mr)
    for (int nc : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33})
      for (int kc : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65}) {
        const int lda = kc + 3, ldc = nc + 5;  // odd leading dimensions
        const size_t panel_stride = static_cast<size_t>(kc + 2) * k::kPanel;  // gaps between panels
        const int panels = k::panel_count(nc);
        const std::vector<float> a = random_vector(static_cast<size_t>(2) * lda, -1, 1, 1 + kc);
        const std::vector<float> w = random_vector(panels * panel_stride, -1, 1, 100 + kc);
        std::vector<double> want(static_cast<size_t>(mr) * ldc, 0.0);
        for (int i = 0; i < mr; ++i)
          for (int j = 0; j < nc; ++j)
            for (int t = 0; t < kc; ++t)
              want[i * ldc + j] +=
                  static_cast<double>(a[i * lda + t]) *
                  w[(j / k::kPanel) * panel_stride + t * k::kPanel + j % k::kPanel];
        const float sentinel = 12345.0f;
        std::vector<float> scalar(static_cast<size_t>(2) * ldc, sentinel);
        k::f32_gemm_2x16__scalar(mr, nc, kc, a.data(), lda, w.data(), panel_stride, scalar.data(),
                                 ldc);
        INFO("mr " << mr << " nc " << nc << " kc " << kc);
        CHECK_ROWS_CLOSE(mr, nc, scalar.data(), ldc, want.data(), ldc, kGemmTolerance);
#if AP_KERNELS_HAVE_WASMSIMD
        std::vector<float> simd(static_cast<size_t>(2) * ldc, sentinel);
        k::f32_gemm_2x16__wasmsimd(mr, nc, kc, a.data(), lda, w.data(), panel_stride, simd.data(),
                                   ldc);
        CHECK_ROWS_CLOSE(mr, nc, simd.data(), ldc, scalar.data(), ldc, kTwinTolerance);
        // Nothing written past nc columns or mr rows.
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < ldc; ++j)
            if (i >= mr || j >= nc) CHECK(simd[i * ldc + j] == sentinel);
#endif
#if AP_TEST_RELAXED_KERNELS
        // Relaxed: against float64 (fused or not, each step rounds at most as SIMD128's does).
        std::vector<float> relaxed(static_cast<size_t>(2) * ldc, sentinel);
        k::relaxed_kernels().gemm_2x16(mr, nc, kc, a.data(), lda, w.data(), panel_stride,
                                       relaxed.data(), ldc);
        CHECK_ROWS_CLOSE(mr, nc, relaxed.data(), ldc, want.data(), ldc, kGemmTolerance);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < ldc; ++j)
            if (i >= mr || j >= nc) CHECK(relaxed[i * ldc + j] == sentinel);
#endif
      }
}

TEST_CASE("gemm with packed B matches float64 for every shape edge", "[kernels][gemm]") {
  for (const k::KernelSet* ks : kernel_sets())
    for (int m : {1, 2, 3, 17})
      for (int n : kSizes)
        for (int kk : {1, 4, 9, 16, 65}) {
          const int lda = kk + 1, ldb = n + 2, ldc = n + 3;
          const std::vector<float> a = random_vector(static_cast<size_t>(m) * lda, -1, 1, 7);
          const std::vector<float> b = random_vector(static_cast<size_t>(kk) * ldb, -1, 1, 8);
          std::vector<double> want(static_cast<size_t>(m) * ldc, 0.0);
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j)
              for (int t = 0; t < kk; ++t)
                want[i * ldc + j] += static_cast<double>(a[i * lda + t]) * b[t * ldb + j];
          INFO(ks->name << ": m " << m << " n " << n << " k " << kk);
          std::vector<float> packed(k::packed_size(kk, n));
          k::pack_b(kk, n, b.data(), ldb, packed.data());
          std::vector<float> c(static_cast<size_t>(m) * ldc);
          k::gemm(*ks, m, n, kk, a.data(), lda, packed.data(), c.data(), ldc);
          CHECK_ROWS_CLOSE(m, n, c.data(), ldc, want.data(), ldc, kGemmTolerance);

          // The same product from Bᵀ (n × k), as Q·Kᵀ packs K.
          std::vector<float> bt(static_cast<size_t>(n) * (kk + 1));
          for (int j = 0; j < n; ++j)
            for (int t = 0; t < kk; ++t) bt[j * (kk + 1) + t] = b[t * ldb + j];
          k::pack_bt(kk, n, bt.data(), kk + 1, packed.data());
          std::vector<float> c2(static_cast<size_t>(m) * ldc);
          k::gemm(*ks, m, n, kk, a.data(), lda, packed.data(), c2.data(), ldc);
          CHECK_ROWS_CLOSE(m, n, c2.data(), ldc, c.data(), ldc, 0.0);
        }
}

//-----------------------------------------------------------------------------
// [SECTION] Row kernels
//-----------------------------------------------------------------------------

TEST_CASE("f32_vscale and f32_rminmax are exact in every set at every length", "[kernels][row]") {
  for (const k::KernelSet* ks : kernel_sets())
    for (int n : kSizes) {
      INFO(ks->name << ": n " << n);
      std::vector<float> x = random_vector(n, -3, 3, 20 + n);
      std::vector<float> y(n), want(n);
      ks->vscale(n, x.data(), 0.37f, y.data());
      for (int j = 0; j < n; ++j) want[j] = x[j] * 0.37f;
      CHECK_CLOSE(n, y.data(), want.data(), 0.0);
      x[n / 2] = -7.0f;  // a known minimum and maximum, anywhere in the row
      x[(n * 2) / 3] = 9.0f;
      if (n == 1) x[0] = 9.0f;
      float mn, mx;
      ks->rminmax(n, x.data(), &mn, &mx);
      CHECK(mx == 9.0f);
      CHECK(mn == (n == 1 ? 9.0f : *std::min_element(x.begin(), x.end())));
    }
}

namespace {

// softmax in float64: exp(x - max) / Σ, NaN when the maximum is not finite or x holds NaN.
std::vector<double> softmax_ref(const std::vector<float>& x) {
  double mx = -std::numeric_limits<double>::infinity();
  bool has_nan = false;
  for (float v : x) {
    if (std::isnan(v)) has_nan = true;
    mx = std::max(mx, static_cast<double>(v));
  }
  std::vector<double> y(x.size(), std::numeric_limits<double>::quiet_NaN());
  if (has_nan || std::isinf(mx)) return y;
  double sum = 0.0;
  for (size_t j = 0; j < x.size(); ++j) sum += y[j] = std::exp(x[j] - mx);
  for (double& v : y) v /= sum;
  return y;
}

}  // namespace

TEST_CASE("f32_softmax_row: twins and float64 agree, special rows included", "[kernels][row]") {
  for (const k::KernelSet* ks : kernel_sets())
    for (int n : kSizes) {
      for (int variant = 0; variant < 7; ++variant) {
        std::vector<float> x = random_vector(n, -5, 5, 30 + n);
        const char* what = "random";
        if (variant == 1) what = "all -1e6 (uniform)", std::fill(x.begin(), x.end(), -1e6f);
        if (variant == 2) what = "all -inf (NaN)", std::fill(x.begin(), x.end(), -kInf);
        if (variant == 3) what = "half -inf", std::fill(x.begin(), x.begin() + n / 2, -kInf);
        if (variant == 4) what = "spread beyond the cutoff", x[0] = 200.0f;
        if (variant == 5) what = "+inf (NaN)", x[n - 1] = kInf;
        if (variant == 6) what = "NaN", x[n / 2] = std::numeric_limits<float>::quiet_NaN();
        INFO(ks->name << ": n " << n << ", " << what);
        std::vector<float> y(n);
        ks->softmax_row(n, x.data(), y.data());
        const std::vector<double> want = softmax_ref(x);
        CHECK_CLOSE(n, y.data(), want.data(), kSoftmaxTolerance);
        for (int j = 0; j < n; ++j)
          if (!std::isnan(y[j]) && y[j] != 0.0f) CHECK(std::fpclassify(y[j]) == FP_NORMAL);
        if (has_twin(ks)) {
          std::vector<float> scalar(n);
          k::f32_softmax_row__scalar(n, x.data(), scalar.data());
          CHECK_CLOSE(n, y.data(), scalar.data(), kTwinTolerance);
        }
      }
    }
}

TEST_CASE("f32_masked_softmax_row: every mask interval, -1e6 and -inf", "[kernels][row]") {
  for (const k::KernelSet* ks : kernel_sets())
    for (int n : kSizes)
      for (float mask_value : {-1e6f, -kInf}) {
        // Intervals: none visible (valid length 0), the first key, all keys, a causal prefix,
        // a window in the middle, the last key, lo >= hi.
        const std::vector<std::pair<int, int>> ranges = {
            {0, 0}, {0, 1}, {0, n}, {0, (n + 1) / 2}, {n / 3, n - n / 3}, {n - 1, n}, {n, n}};
        for (auto [lo, hi] : ranges) {
          INFO(ks->name << ": n " << n << " [" << lo << ", " << hi << ") mask " << mask_value);
          const std::vector<float> x = random_vector(n, -8, 8, 40 + n);
          // The masked row in base 2 and its softmax in float64.
          std::vector<float> row(n);
          for (int j = 0; j < n; ++j) row[j] = j >= lo && j < hi ? x[j] : mask_value * k::kLog2e;
          double mx = -std::numeric_limits<double>::infinity();
          for (float v : row) mx = std::max(mx, static_cast<double>(v));
          std::vector<double> want(n, std::numeric_limits<double>::quiet_NaN());
          if (!std::isinf(mx)) {
            double sum = 0.0;
            for (int j = 0; j < n; ++j) sum += want[j] = std::exp2(row[j] - mx);
            for (double& v : want) v /= sum;
          }
          std::vector<float> y(n, 777.0f);
          float masked_weight = 777.0f;
          const float sum =
              ks->masked_softmax_row(n, x.data(), lo, hi, mask_value, y.data(), &masked_weight);
          std::vector<float> normalized(n);
          for (int j = 0; j < n; ++j) normalized[j] = y[j] / sum;
          CHECK_CLOSE(n, normalized.data(), want.data(), kSoftmaxTolerance);
          if (hi - lo < n)
            for (int j = 0; j < n; ++j)
              if (j < lo || j >= hi) {
                CAPTURE(j);
                CHECK((std::isnan(y[j]) ? std::isnan(masked_weight) : y[j] == masked_weight));
              }
          if (has_twin(ks)) {
            std::vector<float> ys(n, 777.0f);
            float mws = 777.0f;
            const float sums =
                k::f32_masked_softmax_row__scalar(n, x.data(), lo, hi, mask_value, ys.data(), &mws);
            CHECK_CLOSE(n, y.data(), ys.data(), kTwinTolerance);
            CHECK_CLOSE(1, &sum, &sums, kTwinTolerance * n);
          }
        }
      }
}

TEST_CASE("f32_masked_softmax_row: in place, and x may be far below the maximum",
          "[kernels][row]") {
  for (const k::KernelSet* ks : kernel_sets()) {
    INFO(ks->name);
    std::vector<float> x = random_vector(37, -1, 1, 50);
    x[5] = -300.0f;  // 2^-300 is exactly 0, not a denormal
    float mw;
    const float sum = ks->masked_softmax_row(37, x.data(), 2, 30, -1e6f, x.data(), &mw);
    CHECK(x[5] == 0.0f);
    CHECK(mw == 0.0f);
    CHECK(x[0] == 0.0f);
    CHECK(x[36] == 0.0f);
    double total = 0.0;
    for (float v : x) total += v;
    CHECK(total == Approx(sum).epsilon(1e-6));

    // Visible scores below the mask value: the masked keys take the weight, as they would in
    // softmax(apply_mask(scaled)).
    std::vector<float> low(9, -3e6f);
    ks->masked_softmax_row(9, low.data(), 0, 5, -1e6f, low.data(), &mw);
    CHECK(mw == 1.0f);
    for (int j = 0; j < 5; ++j) CHECK(low[j] == 0.0f);
    for (int j = 5; j < 9; ++j) CHECK(low[j] == 1.0f);

    // A finite mask value whose base-2 form would overflow still gives a uniform row.
    std::vector<float> row(6, 1.0f);
    const float total6 = ks->masked_softmax_row(6, row.data(), 0, 0, -3e38f, row.data(), &mw);
    CHECK(mw == 1.0f);
    CHECK(total6 == 6.0f);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Backward row kernels
//-----------------------------------------------------------------------------

TEST_CASE("f32_softmax_backward_row: twins bitwise equal, float64 agrees, masked cells exactly 0",
          "[kernels][row][grad]") {
  // Lengths around the 4- and 8-key steps; intervals as visible_range gives them; explicit
  // cells (one repeated, one inside the interval's edge); weights a softmax row (or a uniform
  // fully masked one).
  for (const k::KernelSet* ks : kernel_sets())
    for (int n : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65})
      for (int variant = 0; variant < 9; ++variant) {
        int lo = 0, hi = n;
        std::vector<int> cells;
        const char* what = "every key visible";
        if (variant == 1) what = "first key", hi = 1;
        if (variant == 2) what = "causal prefix", hi = (n + 1) / 2;
        if (variant == 3) what = "window", lo = n / 3, hi = n - n / 3;
        if (variant == 4) what = "last key", lo = n - 1;
        if (variant == 5) what = "lo >= hi (fully masked, finite mask)", lo = n, hi = n;
        if (variant == 6) what = "valid length 0 (fully masked, finite mask)", lo = 0, hi = 0;
        if (variant == 7) what = "cells", cells = {n / 2, n - 1, n / 2, 0};
        if (variant == 8) what = "window and cells", lo = n / 4, hi = n - n / 4, cells = {n / 4};
        INFO(ks->name << ": n " << n << ", " << what << " [" << lo << ", " << hi << ")");
        const bool none_visible = lo >= hi;
        const std::vector<float> scores = random_vector(n, -4, 4, 70 + n);
        std::vector<float> a(n);
        if (none_visible) {
          std::fill(a.begin(), a.end(), 1.0f / static_cast<float>(n));  // uniform
        } else {
          // The masked forward row's softmax: masked keys weigh 0.
          std::vector<float> row(n, -1e6f);
          for (int j = lo; j < hi; ++j) row[j] = scores[j];
          for (int c : cells) row[c] = -1e6f;
          k::f32_softmax_row__scalar(n, row.data(), a.data());
        }
        const std::vector<float> da = random_vector(n, -1, 1, 90 + n);
        const float s = 0.37f;
        // float64: s·a_j·(da_j − Σ a·da) where visible.
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot += static_cast<double>(a[j]) * da[j];
        std::vector<double> want(n, 0.0);
        std::vector<bool> masked(n, true);
        for (int j = lo; j < hi; ++j) masked[j] = false;
        for (int c : cells) masked[c] = true;
        for (int j = 0; j < n; ++j)
          if (!masked[j]) want[j] = s * static_cast<double>(a[j]) * (da[j] - dot);

        std::vector<float> ds(n, 777.0f);
        ks->softmax_backward_row(n, a.data(), da.data(), s, lo, hi, cells.data(),
                                 static_cast<int>(cells.size()), ds.data());
        CHECK_CLOSE(n, ds.data(), want.data(), kGemmTolerance);
        for (int j = 0; j < n; ++j)
          if (masked[j]) {
            CAPTURE(j);
            CHECK(ds[j] == 0.0f);
            CHECK_FALSE(std::signbit(ds[j]));
          }
        // In place over da: the same bits.
        std::vector<float> inplace = da;
        ks->softmax_backward_row(n, a.data(), inplace.data(), s, lo, hi, cells.data(),
                                 static_cast<int>(cells.size()), inplace.data());
        CHECK(std::memcmp(inplace.data(), ds.data(), sizeof(float) * n) == 0);
        if (has_twin(ks)) {
          std::vector<float> scalar(n, 555.0f);
          k::f32_softmax_backward_row__scalar(n, a.data(), da.data(), s, lo, hi, cells.data(),
                                              static_cast<int>(cells.size()), scalar.data());
          CHECK(std::memcmp(scalar.data(), ds.data(), sizeof(float) * n) == 0);
        }
      }
}

TEST_CASE("f32_softmax_backward_row: large rows and values, twins still bitwise equal",
          "[kernels][row][grad]") {
  // Magnitudes far from 1 and a long row: every lane and leftover path of the sum matters.
  for (int n : {127, 128, 129, 1000, 1027}) {
    INFO("n " << n);
    std::vector<float> a = random_vector(n, 0, 1, 110 + n);
    const std::vector<float> da = random_vector(n, -300, 300, 120 + n);
    float sum = 0.0f;
    for (float v : a) sum += v;
    for (float& v : a) v /= sum;
    const std::vector<int> cells = {3, n - 2};
    std::vector<float> scalar(n), simd(n);
    k::f32_softmax_backward_row__scalar(n, a.data(), da.data(), 0.125f, 1, n - 1, cells.data(), 2,
                                        scalar.data());
#if AP_KERNELS_HAVE_WASMSIMD
    k::f32_softmax_backward_row__wasmsimd(n, a.data(), da.data(), 0.125f, 1, n - 1, cells.data(), 2,
                                          simd.data());
    CHECK(std::memcmp(scalar.data(), simd.data(), sizeof(float) * n) == 0);
#endif
    CHECK(scalar[0] == 0.0f);
    CHECK(scalar[3] == 0.0f);
    CHECK(scalar[n - 2] == 0.0f);
    CHECK(scalar[n - 1] == 0.0f);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Fused attention
//-----------------------------------------------------------------------------

namespace {

struct FusedCase {
  int n_q, n_k, d, d_v;
  std::vector<int> lo, hi;
  std::vector<k::MaskedCell> cells;
  float mask_value = -1e6f;
};

// float64: softmax over keys of q·k in base 2 (q is in base-2 units), masked cells at
// mask_value·log2(e), times v.
std::vector<double> fused_ref(const FusedCase& c, const std::vector<float>& q,
                              const std::vector<float>& kk, const std::vector<float>& v) {
  std::vector<double> out(static_cast<size_t>(c.n_q) * c.d_v);
  for (int i = 0; i < c.n_q; ++i) {
    std::vector<double> s(c.n_k);
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < c.n_k; ++j) {
      bool masked = j < c.lo[i] || j >= c.hi[i];
      for (const auto& cell : c.cells) masked = masked || (cell.i == i && cell.j == j);
      double dot = 0.0;
      for (int t = 0; t < c.d; ++t) dot += static_cast<double>(q[i * c.d + t]) * kk[j * c.d + t];
      s[j] = masked ? static_cast<double>(c.mask_value * k::kLog2e) : dot;
      mx = std::max(mx, s[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < c.n_k; ++j)
      sum += s[j] =
          std::isinf(mx) ? std::numeric_limits<double>::quiet_NaN() : std::exp2(s[j] - mx);
    for (int t = 0; t < c.d_v; ++t) {
      double acc = 0.0;
      for (int j = 0; j < c.n_k; ++j) acc += s[j] / sum * v[j * c.d_v + t];
      out[i * c.d_v + t] = acc;
    }
  }
  return out;
}

void check_fused(const FusedCase& c) {
  const std::vector<float> q = random_vector(static_cast<size_t>(c.n_q) * c.d, -1, 1, 61);
  const std::vector<float> kk = random_vector(static_cast<size_t>(c.n_k) * c.d, -1, 1, 62);
  const std::vector<float> v = random_vector(static_cast<size_t>(c.n_k) * c.d_v, -1, 1, 63);
  std::vector<float> kt(k::packed_size(c.d, c.n_k)), vp(k::packed_size(c.n_k, c.d_v));
  k::pack_bt(c.d, c.n_k, kk.data(), c.d, kt.data());
  k::pack_b(c.n_k, c.d_v, v.data(), c.d_v, vp.data());
  const std::vector<double> want = fused_ref(c, q, kk, v);
  std::vector<std::vector<float>> outs;
  for (const k::KernelSet* ks : kernel_sets()) {
    INFO(ks->name << ": n_q " << c.n_q << " n_k " << c.n_k << " d " << c.d << " d_v " << c.d_v
                  << " mask " << c.mask_value << " cells " << c.cells.size());
    k::FusedArgs a;
    a.n_q = c.n_q;
    a.n_k = c.n_k;
    a.d = c.d;
    a.d_v = c.d_v;
    a.q = q.data();
    a.ldq = c.d;
    a.packed_kt = kt.data();
    a.packed_v = vp.data();
    a.lo = c.lo.data();
    a.hi = c.hi.data();
    a.cells = c.cells.data();
    a.n_cells = static_cast<int>(c.cells.size());
    a.mask_value = c.mask_value;
    const int ldo = c.d_v + 1;  // an odd output stride
    std::vector<float> out(static_cast<size_t>(c.n_q) * ldo, 555.0f);
    a.out = out.data();
    a.ldo = ldo;
    k::FusedWorkspace ws;
    k::attention_fused(*ks, a, &ws);
    CHECK_ROWS_CLOSE(c.n_q, c.d_v, out.data(), ldo, want.data(), c.d_v, kGemmTolerance);
    for (int i = 0; i < c.n_q; ++i) CHECK(out[static_cast<size_t>(i) * ldo + c.d_v] == 555.0f);
    outs.push_back(out);
  }
  if (outs.size() == 2)
    CHECK_ROWS_CLOSE(c.n_q, c.d_v, outs[1].data(), c.d_v + 1, outs[0].data(), c.d_v + 1,
                     kTwinTolerance);
}

}  // namespace

TEST_CASE("attention_fused matches float64 for every mask kind at edge sizes", "[kernels][fused]") {
  for (int n_q : {1, 3, 8, 9, 17})
    for (int n_k : {1, 4, 15, 16, 17, 63, 64, 65})
      for (int d : {1, 3, 16, 17, 64})
        for (int d_v : {1, 5, 16, 17})
          for (int kind = 0; kind < 6; ++kind) {
            FusedCase c{n_q, n_k,  d, d_v, std::vector<int>(n_q, 0), std::vector<int>(n_q, n_k),
                        {},  -1e6f};
            for (int i = 0; i < n_q; ++i) {
              if (kind == 1) c.hi[i] = std::min(n_k, i + 1);  // causal
              if (kind == 2) {                                // window 1
                c.lo[i] = std::max(0, i - 1);
                c.hi[i] = std::min(n_k, i + 2);
              }
              if (kind == 3 || kind == 4) c.hi[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : n_k;
              if (kind == 4) c.mask_value = -kInf;  // valid lengths 0 → NaN rows
            }
            if (kind == 5) c.cells = {{0, 0}, {n_q - 1, n_k - 1}, {n_q / 2, n_k / 2}};
            check_fused(c);
          }
}

//-----------------------------------------------------------------------------
// [SECTION] The core with the kernels
//-----------------------------------------------------------------------------

namespace {

Problem projected_problem(int batch, int n, int d_model, int heads, uint64_t seed) {
  Problem p;
  p.queries = test::random_batch(batch, n, d_model, -1, 1, seed);
  p.keys = test::random_batch(batch, n + 3, d_model, -1, 1, seed + 1);
  p.values = test::random_batch(batch, n + 3, d_model, -1, 1, seed + 2);
  p.heads = heads;
  p.weights.W_q = test::random_matrix(d_model, d_model, -0.5, 0.5, seed + 3);
  p.weights.W_k = test::random_matrix(d_model, d_model, -0.5, 0.5, seed + 4);
  p.weights.W_v = test::random_matrix(d_model, d_model + 2 * heads, -0.5, 0.5, seed + 5);
  p.weights.W_o = test::random_matrix(d_model + 2 * heads, 7, -0.5, 0.5, seed + 6);
  return p;
}

// Every variant of the pipeline: scorings, hard, dropout, masks, positions.
std::vector<std::pair<std::string, Problem>> pipeline_variants() {
  std::vector<std::pair<std::string, Problem>> out;
  // Every scoring whose W_q and W_k project (additive, with its own network, is below): a new
  // one is in attn::kScorings and so here.
  for (Scoring s : attn::kScorings) {
    if (!attn::scoring_info(s).projects) continue;
    Problem p = projected_problem(2, 19, 8, 2, 70);
    p.scoring = s;
    p.temperature = 0.7f;
    if (s == Scoring::kGeneral) p.weights.W = test::random_matrix(4, 4, -1, 1, 77);
    out.push_back({std::string(attn::scoring_name(s)) + ", valid lengths", p});
    out.back().second.mask.valid_lens = {{5}, {22}};
  }
  Problem causal = projected_problem(1, 70, 8, 4, 80);
  causal.mask.causal = true;
  causal.positional_encoding = true;
  out.push_back({"causal with positions, 70 rows (several blocks)", causal});
  Problem window = projected_problem(2, 33, 6, 3, 90);
  window.mask.window = 2;
  window.mask.valid_lens = {std::vector<int>(33, 0), {4}};  // every row of item 0 masked
  window.mask.cells = {{1, 0, 1}, {1, 5, 5}, {1, 32, 33}};
  out.push_back({"window, per-query lengths 0, cells", window});
  Problem minf = window;
  minf.mask.mask_value = -kInf;
  out.push_back({"the same with -inf (NaN rows)", minf});
  Problem huge = window;
  huge.mask.mask_value = -3e38f;  // finite, but its base-2 form would overflow
  out.push_back({"the same with -3e38 (uniform rows)", huge});
  Problem hard = projected_problem(2, 9, 4, 1, 100);
  hard.hard = true;
  hard.mask.valid_lens = {{3}, {12}};
  out.push_back({"hard", hard});
  Problem dropout = projected_problem(1, 130, 4, 2, 110);
  dropout.dropout_p = 0.25f;
  dropout.dropout_seed = 9;
  out.push_back({"dropout, 130 rows (three row blocks)", dropout});
  Problem additive;
  additive.queries = test::random_batch(2, 5, 4, -1, 1, 120);
  additive.keys = test::random_batch(2, 7, 3, -1, 1, 121);
  additive.values = test::random_batch(2, 7, 2, -1, 1, 122);
  additive.scoring = Scoring::kAdditive;
  additive.weights.W_q = test::random_matrix(4, 6, -1, 1, 123);
  additive.weights.W_k = test::random_matrix(3, 6, -1, 1, 124);
  additive.weights.w_v = test::random_matrix(6, 1, -1, 1, 125).col(0);
  additive.mask.valid_lens = {{3}, {7}};
  out.push_back({"additive", additive});
  return out;
}

}  // namespace

TEST_CASE("every scoring has one row of the scoring table", "[kernels][core]") {
  std::set<std::string> names;
  for (Scoring s : attn::kScorings) {
    const attn::ScoringInfo& info = attn::scoring_info(s);
    CHECK(info.scoring == s);
    CHECK(names.insert(info.name).second);
    CHECK(std::string(attn::scoring_name(s)) == info.name);
    // A scoring without projections has a network of its own, which is one head.
    if (!info.projects) CHECK(info.one_head);
  }
  CHECK(names.size() == std::size(attn::kScorings));
}

TEST_CASE("run without head matrices gives the output of run with them", "[kernels][core]") {
  for (const auto& [name, p] : pipeline_variants()) {
    INFO(name);
    REQUIRE(attn::validate(p).error == "");
    const attn::Trace full = attn::run(p);
    attn::RunOptions light_options;
    light_options.keep_head_matrices = false;
    const attn::Trace light = attn::run(p, light_options);
    REQUIRE(light.heads.size() == full.heads.size());
    for (size_t h = 0; h < full.heads.size(); ++h) {
      INFO("head " << h);
      const attn::HeadTrace& lh = light.heads[h];
      CHECK(lh.scores.empty());
      CHECK(lh.scaled.empty());
      CHECK(lh.masked.empty());
      CHECK(lh.weights.empty());
      CHECK_MATCHES(lh.q, ref::from(full.heads[h].q));
      CHECK_MATCHES(lh.v, ref::from(full.heads[h].v));
      const test::Diff diff = test::compare(lh.output, ref::from(full.heads[h].output));
      INFO("head output: max scaled " << diff.max_scaled << " at " << diff.where);
      CHECK(diff.shape_ok);
      CHECK(diff.nan_ok);
      CHECK(diff.max_scaled <= kFusedTolerance);
    }
    const test::Diff diff = test::compare(light.output, ref::from(full.output));
    INFO("output: max scaled " << diff.max_scaled << " at " << diff.where);
    CHECK(diff.nan_ok);
    CHECK(diff.max_scaled <= kFusedTolerance);
    // And the full path still matches the float64 reference.
    const ref::Trace want = ref::run(p);
    CHECK_MATCHES(full.output, want.output);
  }
}

TEST_CASE("run_head gives exactly the head that run computes", "[kernels][core]") {
  for (const auto& [name, p] : pipeline_variants()) {
    const attn::Trace t = attn::run(p);
    for (int h = 0; h < p.heads; ++h) {
      INFO(name << ", head " << h);
      const attn::HeadTrace got = attn::run_head(p, h);
      const attn::HeadTrace& want = t.heads[h];
      for (auto [g, w] :
           {std::pair{&got.q, &want.q}, std::pair{&got.k, &want.k}, std::pair{&got.v, &want.v},
            std::pair{&got.scores, &want.scores}, std::pair{&got.scaled, &want.scaled},
            std::pair{&got.masked, &want.masked}, std::pair{&got.weights, &want.weights},
            std::pair{&got.output, &want.output}}) {
        const test::Diff diff = test::compare(*g, ref::from(*w));
        INFO("max abs " << diff.max_abs << " at " << diff.where);
        CHECK(diff.shape_ok);
        CHECK(diff.nan_ok);
        CHECK(diff.max_abs == 0.0);
      }
    }
  }
}

TEST_CASE("head_matrix_bytes counts four n_q × n_k float matrices per head and item",
          "[kernels][core]") {
  Problem p = projected_problem(3, 10, 8, 2, 130);  // 10 queries, 13 keys
  CHECK(attn::head_matrix_bytes(p) == 4 * 2 * 3 * 10 * 13 * 4);
  Problem big;
  big.queries = big.keys = big.values = attn::Batch(1, attn::Matrix(2048, 1));
  big.heads = 8;
  CHECK(attn::head_matrix_bytes(big) == 4ll * 8 * 2048 * 2048 * 4);  // 512 MiB
}
