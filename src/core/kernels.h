// Attention micro-kernels (WASM SIMD128 and scalar twins), packing, and the drivers built on them.
//
// Every micro-kernel exists twice with the same name: `__wasmsimd` (wasm_simd128.h intrinsics;
// natively through SIMDe) and `__scalar` (plain loops, the same arithmetic in the same order).
// A KernelSet bundles one of the two; the drivers (gemm, attention_fused) take a KernelSet, so
// tests run either against the other and the core uses best_kernels().
//
// Why 2×16: V8 gives WASM about 15 usable xmm registers. A 2-row × 16-column tile holds 8
// accumulators, 4 B vectors and 1 broadcast A value, and needs 2 broadcasts per 16 mul+add; on
// this project's machine it ran at 95% of the mul+add peak, against 80% for 4×8 (4 broadcasts)
// and much less for any tile with more than 8 accumulators (spills).
//
// [SECTION] Build configuration
// [SECTION] Packing
// [SECTION] Micro-kernels
// [SECTION] Kernel sets
// [SECTION] Drivers
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

//-----------------------------------------------------------------------------
// [SECTION] Build configuration
//-----------------------------------------------------------------------------

// The __wasmsimd kernels are compiled in WASM builds with -msimd128 and in every native build
// (through SIMDe). A WASM build without -msimd128 has only the __scalar kernels.
#if defined(__EMSCRIPTEN__) && !defined(__wasm_simd128__)
#define AP_KERNELS_HAVE_WASMSIMD 0
#else
#define AP_KERNELS_HAVE_WASMSIMD 1
#endif

namespace attn {
namespace kernels {

//-----------------------------------------------------------------------------
// [SECTION] Packing
//-----------------------------------------------------------------------------

// The GEMM micro-kernel reads B (k × n) as panels of kPanel columns: panel p holds columns
// [16p, 16p + 16) as k consecutive rows of 16 floats, zero-padded past column n. Packing costs
// O(k·n) and lets the kernel load 16 columns with 4 aligned-in-cache vector loads per k step.
constexpr int kPanel = 16;

inline int panel_count(int n) {
  return (n + kPanel - 1) / kPanel;
}
// Floats needed to pack a k × n matrix.
inline size_t packed_size(int k, int n) {
  return static_cast<size_t>(panel_count(n)) * kPanel * static_cast<size_t>(k);
}

// B given row-major (k × n, row stride ldb): X·W packs W, P·V packs V.
void pack_b(int k, int n, const float* b, int ldb, float* packed);
// B given as its transpose (n × k row-major, row stride ldbt): Q·Kᵀ packs K itself.
void pack_bt(int k, int n, const float* bt, int ldbt, float* packed);

//-----------------------------------------------------------------------------
// [SECTION] Micro-kernels
//-----------------------------------------------------------------------------

// One GEMM micro-kernel serves every product: Q·Kᵀ (W = pack_bt of K), P·V (W = pack_b of V)
// and the projections X·W (W = pack_b of W).
//
// C[mr × nc] = A[mr × kc] · W[kc × nc], W packed: panel p (columns [16p, 16p + 16)) is kc
// rows of 16 floats starting at w + p·panel_stride. The micro-kernel is a 2 × 16 tile; it walks
// the panels itself, which saves a call per tile. 1 <= mr <= 2, nc >= 1, kc >= 0 (kc = 0
// stores zeros), panel_stride >= 16·kc when nc > 16. Each C element is the k-ordered sum of
// products, so both twins give bitwise equal results.
void f32_gemm_2x16__wasmsimd(int mr, int nc, int kc, const float* a, int lda, const float* w,
                             size_t panel_stride, float* c, int ldc);
void f32_gemm_2x16__scalar(int mr, int nc, int kc, const float* a, int lda, const float* w,
                           size_t panel_stride, float* c, int ldc);

// y[j] = x[j] · s for j < n (y may be x).
void f32_vscale__wasmsimd(int n, const float* x, float s, float* y);
void f32_vscale__scalar(int n, const float* x, float s, float* y);

// Largest and smallest of x[0..n), n >= 1. NaN entries may be skipped: callers that must see
// NaN find it in the sum of the exponentials.
void f32_rminmax__wasmsimd(int n, const float* x, float* min, float* max);
void f32_rminmax__scalar(int n, const float* x, float* min, float* max);

// The softmax of one row, y = exp(x - max) / Σ exp(x - max) (y may be x). Same special cases as
// attn::softmax_rows: a row of equal values (e.g. all -1e6) is uniform; a row whose maximum is
// -inf or +inf, or that holds NaN, is NaN. exp is exactly 0 below -86.6 (never denormal).
void f32_softmax_row__wasmsimd(int n, const float* x, float* y);
void f32_softmax_row__scalar(int n, const float* x, float* y);

// One row of masked softmax, unnormalized, in base 2. x holds n scores already multiplied by
// scale·log2(e); keys outside [lo, hi) are masked (lo >= hi: all of them). With
// M = max(x[lo..hi), m2 if any key is masked), m2 = mask_value_base2(mask_value) (that is
// mask_value·log2(e), kept finite), it writes
//   y[j] = 2^(x[j] - M) for j in [lo, hi) and y[j] = 2^(m2 - M) elsewhere,
// stores the latter in *masked_weight and returns Σ y. Dividing by the sum gives exactly the
// softmax of the masked row in natural units (masked cells = mask_value), hence: a fully
// masked row is uniform for a finite mask_value and NaN for -inf. y may be x.
float f32_masked_softmax_row__wasmsimd(int n, const float* x, int lo, int hi, float mask_value,
                                       float* y, float* masked_weight);
float f32_masked_softmax_row__scalar(int n, const float* x, int lo, int hi, float mask_value,
                                     float* y, float* masked_weight);

// The backward of one softmax row. With a = the row's softmax weights (before any dropout) and
// da = the loss gradient with respect to them, it writes the gradient with respect to the raw
// scores (s = the factor they were multiplied by, attn::score_scale):
//   ds[j] = (s·a[j])·(da[j] − Σ_k a[k]·da[k])   for a visible key j,
//   ds[j] = 0 exactly                            for a masked key: outside [lo, hi) (lo >= hi:
//                                                every key), or one of masked[0..n_masked),
// the forward's convention (an interval from visible_range plus explicit cells, any order,
// repeats allowed): a masked score is a constant and passes no gradient. The sum runs over all
// n keys (a fully masked row under a finite mask value is uniform, and all its ds are 0), as
// two 4-lane partial sums over 8 keys per step, one more 4-key step, the lanes reduced pairwise
// and then the leftovers; the scalar twin keeps the same lanes. n >= 1; ds may be da.
// tests/core/kernels_test.cpp compares the twins bit for bit at n = 1, 3, 4, 5, 7, 8, 9, 15,
// 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 1000 and 1027, with every kind of mask.
void f32_softmax_backward_row__wasmsimd(int n, const float* a, const float* da, float s, int lo,
                                        int hi, const int* masked, int n_masked, float* ds);
void f32_softmax_backward_row__scalar(int n, const float* a, const float* da, float s, int lo,
                                      int hi, const int* masked, int n_masked, float* ds);

//-----------------------------------------------------------------------------
// [SECTION] Kernel sets
//-----------------------------------------------------------------------------

struct KernelSet {
  const char* name;  // "wasmsimd" or "scalar"
  void (*gemm_2x16)(int mr, int nc, int kc, const float* a, int lda, const float* w,
                    size_t panel_stride, float* c, int ldc);
  void (*vscale)(int n, const float* x, float s, float* y);
  void (*rminmax)(int n, const float* x, float* min, float* max);
  void (*softmax_row)(int n, const float* x, float* y);
  float (*masked_softmax_row)(int n, const float* x, int lo, int hi, float mask_value, float* y,
                              float* masked_weight);
  void (*softmax_backward_row)(int n, const float* a, const float* da, float s, int lo, int hi,
                               const int* masked, int n_masked, float* ds);
};

const KernelSet& scalar_kernels();
#if AP_KERNELS_HAVE_WASMSIMD
const KernelSet& wasmsimd_kernels();
#endif
// The relaxed-SIMD set ("wasmrelaxed"): the __wasmsimd source compiled again with a·b + c as
// f32x4.relaxed_madd (kernels_wasmrelaxed.cpp; each kernel's name ends in __wasmrelaxed). Every
// native build has it (through SIMDe, where it rounds as the __wasmsimd set does); in WASM it
// is only in the module built with clang-19 for engines that validate relaxed SIMD
// (attention-playground-relaxed; src/core/CMakeLists.txt), where it is preferred.
const KernelSet& relaxed_kernels();
// What attn::run uses: the set a module prefers (prefer_kernels), else the SIMD128 one when
// this build has it, else the scalar one.
const KernelSet& best_kernels();
// Makes `set` what best_kernels() answers from now on (the relaxed object does so when it is
// linked into a module built to prefer it).
void prefer_kernels(const KernelSet* set);

//-----------------------------------------------------------------------------
// [SECTION] Drivers
//-----------------------------------------------------------------------------

// C (m × n, row stride ldc) = A (m × k, row stride lda) · B, with B packed by pack_b/pack_bt.
void gemm(const KernelSet& ks, int m, int n, int k, const float* a, int lda, const float* packed_b,
          float* c, int ldc);

// Scratch memory of the fused forward pass, reused across calls.
struct FusedWorkspace {
  std::vector<float> scores;  // kFusedRows × (n_k rounded up to a panel)
  std::vector<float> acc;     // kFusedRows × (d_v rounded up to a panel)
};

// An explicitly masked (query, key) cell of the batch item being computed.
struct MaskedCell {
  int i, j;
};

// One attention head of one batch item, softmax weights, masks as intervals plus cells.
struct FusedArgs {
  int n_q = 0, n_k = 0, d = 0, d_v = 0;
  const float* q = nullptr;          // n_q × d, row stride ldq: queries ALREADY multiplied by
  int ldq = 0;                       // scale·log2(e) (so that scores come out in base 2)
  const float* packed_kt = nullptr;  // pack_bt(d, n_k, keys): Kᵀ in panels of 16 keys
  const float* packed_v = nullptr;   // pack_b(n_k, d_v, values): V in panels of 16 columns
  const int* lo = nullptr;           // n_q entries: query i sees keys [lo[i], hi[i])
  const int* hi = nullptr;
  const MaskedCell* cells = nullptr;  // explicitly masked cells (any order), may be null
  int n_cells = 0;
  float mask_value = -1e6f;  // what masked scores become (natural units); may be -inf
  float* out = nullptr;      // n_q × d_v, row stride ldo
  int ldo = 0;
};

// Rows per block of the fused pass: its score buffer is kFusedRows × n_k floats.
constexpr int kFusedRows = 8;

// out = softmax(mask(q·kᵀ)) · v, one block of kFusedRows queries at a time: Q·Kᵀ for the keys
// any query of the block can see, the masked softmax (unnormalized, in base 2), then P·V over
// the same keys and a division by the row sums. Memory: the workspace, never n_q × n_k.
// Rows with explicit cells (or whose masked keys carry weight, e.g. fully masked ones) take
// the whole row: identical results, just more work.
void attention_fused(const KernelSet& ks, const FusedArgs& args, FusedWorkspace* ws);

}  // namespace kernels
}  // namespace attn
