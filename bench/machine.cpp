// What the machine itself can do, for bench/run.mjs to print beside the WASM numbers: the
// clock it actually runs at and the hardware's 128-bit float ceiling, both measured natively.
//
//   machine_probe          prints one JSON line:
//   {"ghz": G, "mul_add128_gflops": P, "mul_add128_flop_per_cycle": P / G,
//    "fma128_gflops": F, "fma128_flop_per_cycle": F / G,   (x86 with AVX; fma: with FMA too)
//    "caches": "L1d 48K, L2 1024K, L3 32768K"}              (from CPUID)
//
// The clock: a chain of dependent integer adds, one cycle each on every x86 core of the last
// 20 years, 64 per loop iteration so the loop's own compare and branch run beside it. The
// ceiling: 8 independent accumulators of 4-lane float mul+add (as V8 compiles SIMD128's
// f32x4.mul and f32x4.add), then of 4-lane fused multiply-add (what relaxed SIMD's
// f32x4.relaxed_madd becomes where the CPU has FMA), each at least 0.2 s, best of 5.
// x86-64 only (elsewhere it prints {}); not part of the tests.
#include <chrono>
#include <cstdio>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best of 5 runs of f(iterations) that take >= 0.2 s each: seconds per iteration.
template <typename F>
double best_seconds_per_iteration(F f) {
  long iterations = 1 << 16;
  for (;;) {
    const double t0 = now();
    f(iterations);
    if (now() - t0 >= 0.2) break;
    iterations *= 2;
  }
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const double t0 = now();
    f(iterations);
    const double t = (now() - t0) / static_cast<double>(iterations);
    if (t < best) best = t;
  }
  return best;
}

#if defined(__x86_64__)

volatile float g_sink;
const float kA = 1.0001f, kB = 1e-7f;

void dependent_adds(long iterations) {
  long x = 0;
  for (long i = 0; i < iterations; ++i) {
    // 64 adds, each waiting for the one before: 64 cycles.
    asm volatile(
        ".rept 64\n\t"
        "add $1, %0\n\t"
        ".endr"
        : "+r"(x));
  }
  g_sink = static_cast<float>(x);
}

// What both ceiling loops share around their 8 instructions: a and b broadcast into xmm14 and
// xmm15, the 8 accumulators xmm0–xmm7 from 0, `iterations` turns, then two accumulators added
// and stored (so that nothing is dead).
#define AP_LOOP_START                 \
  "vbroadcastss %[a], %%xmm14\n\t"    \
  "vbroadcastss %[b], %%xmm15\n\t"    \
  "vxorps %%xmm0, %%xmm0, %%xmm0\n\t" \
  "vmovaps %%xmm0, %%xmm1\n\t"        \
  "vmovaps %%xmm0, %%xmm2\n\t"        \
  "vmovaps %%xmm0, %%xmm3\n\t"        \
  "vmovaps %%xmm0, %%xmm4\n\t"        \
  "vmovaps %%xmm0, %%xmm5\n\t"        \
  "vmovaps %%xmm0, %%xmm6\n\t"        \
  "vmovaps %%xmm0, %%xmm7\n\t"        \
  "1:\n\t"
#define AP_LOOP_END                   \
  "dec %[n]\n\t"                      \
  "jnz 1b\n\t"                        \
  "vaddps %%xmm1, %%xmm0, %%xmm0\n\t" \
  "vmovups %%xmm0, %[out]\n\t"
#define AP_LOOP_OPERANDS                                                                     \
  : [n] "+r"(iterations), [out] "=m"(out)                                                  \
  : [a] "m"(kA), [b] "m"(kB)                                                               \
  : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
    "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

// 8 accumulators × 4 lanes × (mul + add) = 64 flops per iteration, in VEX-encoded 128-bit
// instructions as V8 emits f32x4.mul and f32x4.add on an AVX machine; written in assembly so
// that the compiler neither folds the loop-invariant products nor spills. The products go to
// four temporaries in turn (renaming makes them independent); xmm14 and xmm15 hold a and b.
__attribute__((target("avx"))) void mul_add128(long iterations) {
  float out[4];
  asm volatile(AP_LOOP_START
               "vmulps %%xmm14, %%xmm15, %%xmm8\n\t"
               "vaddps %%xmm8, %%xmm0, %%xmm0\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm9\n\t"
               "vaddps %%xmm9, %%xmm1, %%xmm1\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm10\n\t"
               "vaddps %%xmm10, %%xmm2, %%xmm2\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm11\n\t"
               "vaddps %%xmm11, %%xmm3, %%xmm3\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm8\n\t"
               "vaddps %%xmm8, %%xmm4, %%xmm4\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm9\n\t"
               "vaddps %%xmm9, %%xmm5, %%xmm5\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm10\n\t"
               "vaddps %%xmm10, %%xmm6, %%xmm6\n\t"
               "vmulps %%xmm14, %%xmm15, %%xmm11\n\t"
               "vaddps %%xmm11, %%xmm7, %%xmm7\n\t" AP_LOOP_END AP_LOOP_OPERANDS);
  g_sink = out[0];
}

// The same with 8 fused multiply-adds (vfmadd231ps): also 64 flops per iteration.
__attribute__((target("avx,fma"))) void fma128(long iterations) {
  float out[4];
  asm volatile(AP_LOOP_START
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm0\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm1\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm2\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm3\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm4\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm5\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm6\n\t"
               "vfmadd231ps %%xmm14, %%xmm15, %%xmm7\n\t" AP_LOOP_END AP_LOOP_OPERANDS);
  g_sink = out[0];
}

// The data and unified caches as CPUID describes them (AMD: leaf 0x8000001D, Intel: leaf 4,
// the same layout), e.g. "L1d 48K, L2 1024K, L3 32768K": for machines whose /sys has no
// cache directory (some VMs). Empty when CPUID has neither leaf.
void print_caches() {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  const bool amd = b == 0x68747541;  // "Auth"enticAMD
  unsigned leaf = 4;
  if (amd) {
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x8000001D) return;
    leaf = 0x8000001D;
  } else if (a < 4) {
    return;
  }
  std::printf(", \"caches\": \"");
  const char* sep = "";
  for (unsigned i = 0; i < 8; ++i) {
    __cpuid_count(leaf, i, a, b, c, d);
    const unsigned type = a & 0x1f;  // 0 none, 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const unsigned level = (a >> 5) & 0x7;
    const unsigned long bytes = static_cast<unsigned long>((b >> 22) + 1) *
                                (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1);
    std::printf("%sL%u%s %luK", sep, level, type == 1 ? "d" : "", bytes / 1024);
    sep = ", ";
  }
  // AMD without the descriptors (a VM may hide them): the older leaves, sizes only.
  if (amd && !*sep && __get_cpuid(0x80000006, &a, &b, &c, &d)) {
    unsigned a5, b5, c5, d5;
    if (__get_cpuid(0x80000005, &a5, &b5, &c5, &d5)) std::printf("L1d %uK, ", c5 >> 24);
    std::printf("L2 %uK", c >> 16);
    if (d >> 18) std::printf(", L3 %uK", (d >> 18) * 512);
  }
  std::printf("\"");
}

#endif

}  // namespace

int main() {
#if defined(__x86_64__)
  const double ghz = 64.0 / best_seconds_per_iteration(dependent_adds) * 1e-9;
  std::printf("{\"ghz\": %.3f", ghz);
  print_caches();
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx")) {
    const double mul_add = 64.0 / best_seconds_per_iteration(mul_add128) * 1e-9;
    std::printf(", \"mul_add128_gflops\": %.2f, \"mul_add128_flop_per_cycle\": %.2f", mul_add,
                mul_add / ghz);
  }
  if (__builtin_cpu_supports("avx") && __builtin_cpu_supports("fma")) {
    const double fma = 64.0 / best_seconds_per_iteration(fma128) * 1e-9;
    std::printf(", \"fma128_gflops\": %.2f, \"fma128_flop_per_cycle\": %.2f", fma, fma / ghz);
  }
  std::printf("}\n");
#else
  std::printf("{}\n");
#endif
  return 0;
}
