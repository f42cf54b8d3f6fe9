// The __wasmrelaxed kernels: kernels_wasmsimd.cpp compiled again with AP_KERNELS_RELAXED (its
// a·b + c as f32x4.relaxed_madd), and their KernelSet.
//
// Natively this is part of every build (through SIMDe, which computes a·b + c with two
// roundings as the __wasmsimd kernels do). In WASM it is compiled on its own by clang-19
// (-mrelaxed-simd; Debian's emscripten 3.1.6 has clang 14, which emits the pre-standard
// opcodes no engine accepts) with AP_KERNELS_PREFER_RELAXED, so that a module it is linked
// into uses it for attn::run: see src/core/CMakeLists.txt.
#define AP_KERNELS_RELAXED 1
#include "core/kernels_wasmsimd.cpp"  // NOLINT(bugprone-suspicious-include)

#if AP_KERNELS_HAVE_WASMSIMD

namespace attn {
namespace kernels {

const KernelSet& relaxed_kernels() {
  static const KernelSet set = {"wasmrelaxed",
                                f32_gemm_2x16__wasmrelaxed,
                                f32_vscale__wasmrelaxed,
                                f32_rminmax__wasmrelaxed,
                                f32_softmax_row__wasmrelaxed,
                                f32_masked_softmax_row__wasmrelaxed,
                                f32_softmax_backward_row__wasmrelaxed};
  return set;
}

#if AP_KERNELS_PREFER_RELAXED
namespace {
// Before main(): attn::run then uses these kernels from its first call on.
[[maybe_unused]] const bool g_preferred = (prefer_kernels(&relaxed_kernels()), true);
}  // namespace
#endif

}  // namespace kernels
}  // namespace attn

#endif  // AP_KERNELS_HAVE_WASMSIMD
