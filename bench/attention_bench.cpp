// The benchmark's C++ side: our forward pass, Eigen's, and the SIMD128 mul+add peak loop.
//
// Built three ways by bench/run.sh: a WASM module with -msimd128 and one without (driven by
// bench/run.mjs under node, next to the peer runtimes), and a native binary (its own main).
// Every timed function lives outside main(): V8 has no on-stack replacement for WASM, so a
// hot loop inside a function that is running already would stay in the baseline compiler.
//
// [SECTION] Problems
// [SECTION] Implementations
// [SECTION] Backward and training
// [SECTION] Peak loop
// [SECTION] Native driver
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/gradient.h"
#include "core/kernels.h"
#include "core/kernels_exp.h"
#include "core/parallel.h"
#include "core/random.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten/emscripten.h>
#define AP_BENCH_EXPORT extern "C" EMSCRIPTEN_KEEPALIVE
#else
#define AP_BENCH_EXPORT extern "C"
#endif

#if AP_KERNELS_HAVE_WASMSIMD
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif
#endif

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Problems
//-----------------------------------------------------------------------------

// One self-attention problem: `heads` heads of n × d, no projections, scaled_dot, no mask.
// Queries, keys and values are n × (heads·d); head h owns columns [h·d, (h+1)·d).
struct Bench {
  int n = 0, d = 0, heads = 0;
  attn::Problem problem;
  std::vector<float> out;  // n × (heads·d), the last implementation's output
  attn::RunOptions light;
  attn::Batch target;  // n × (heads·d), for the backward pass
};

Bench g;

attn::Matrix random_matrix(int rows, int cols, uint64_t seed) {
  attn::Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      m(i, j) = 2.0f * attn::uniform01(seed, static_cast<uint64_t>(i) * cols + j) - 1.0f;
  return m;
}

void copy_out(const attn::Matrix& m) {
  g.out.assign(m.data(), m.data() + m.size());
}

}  // namespace

// Sets up the problem every implementation below computes.
AP_BENCH_EXPORT void bench_setup(int n, int d, int heads) {
  g.n = n;
  g.d = d;
  g.heads = heads;
  g.problem = attn::Problem();
  g.problem.queries = {random_matrix(n, heads * d, 1)};
  g.problem.keys = {random_matrix(n, heads * d, 2)};
  g.problem.values = {random_matrix(n, heads * d, 3)};
  g.problem.heads = heads;
  g.problem.scoring = attn::Scoring::kScaledDot;
  g.light.keep_head_matrices = false;
  g.out.assign(static_cast<size_t>(n) * heads * d, 0.0f);
  g.target = {random_matrix(n, heads * d, 4)};
}

// Row-major n × (heads·d) inputs, for the JS side to hand to the peers.
AP_BENCH_EXPORT const float* bench_queries() {
  return g.problem.queries[0].data();
}
AP_BENCH_EXPORT const float* bench_keys() {
  return g.problem.keys[0].data();
}
AP_BENCH_EXPORT const float* bench_values() {
  return g.problem.values[0].data();
}
AP_BENCH_EXPORT const float* bench_output() {
  return g.out.data();
}
AP_BENCH_EXPORT const char* bench_kernels() {
  return attn::kernels::best_kernels().name;
}
// Threads attn::run splits its work over (core/parallel.h); returns the count set: 1 in a
// module built without threads.
AP_BENCH_EXPORT int bench_set_threads(int n) {
  return attn::threads() == n ? n : attn::set_threads(n);
}

//-----------------------------------------------------------------------------
// [SECTION] Implementations
//-----------------------------------------------------------------------------

// Ours, through the public API: attn::run with keep_head_matrices = false (the fused kernel),
// on the threads last set (one unless bench_set_threads said otherwise).
AP_BENCH_EXPORT void bench_run_core() {
  const attn::Trace t = attn::run(g.problem, g.light);
  copy_out(t.output[0]);
}

namespace {

// Ours, the fused kernel alone: inputs packed and queries scaled, as attn::run does, without
// the trace's copies.
void run_fused(const attn::kernels::KernelSet& ks) {
  namespace k = attn::kernels;
  const int n = g.n, d = g.d, ld = g.heads * g.d;
  static std::vector<float> qs, kt, vp;
  static std::vector<int> lo, hi;
  static k::FusedWorkspace ws;
  qs.resize(static_cast<size_t>(n) * d);
  kt.resize(k::packed_size(d, n));
  vp.resize(k::packed_size(n, d));
  lo.assign(n, 0);
  hi.assign(n, n);
  const float c = attn::score_scale(attn::Scoring::kScaledDot, d, 1.0f) * k::kLog2e;
  for (int h = 0; h < g.heads; ++h) {
    const float* q = g.problem.queries[0].data() + h * d;
    for (int i = 0; i < n; ++i) ks.vscale(d, q + static_cast<size_t>(i) * ld, c, &qs[i * d]);
    k::pack_bt(d, n, g.problem.keys[0].data() + h * d, ld, kt.data());
    k::pack_b(n, d, g.problem.values[0].data() + h * d, ld, vp.data());
    k::FusedArgs a;
    a.n_q = a.n_k = n;
    a.d = a.d_v = d;
    a.q = qs.data();
    a.ldq = d;
    a.packed_kt = kt.data();
    a.packed_v = vp.data();
    a.lo = lo.data();
    a.hi = hi.data();
    a.out = g.out.data() + h * d;
    a.ldo = ld;
    k::attention_fused(ks, a, &ws);
  }
}

}  // namespace

AP_BENCH_EXPORT void bench_run_fused() {
  run_fused(attn::kernels::best_kernels());
}

// The same with the __scalar twins (in a SIMD build: how much the SIMD kernels add).
AP_BENCH_EXPORT void bench_run_fused_scalar() {
  run_fused(attn::kernels::scalar_kernels());
}

// Eigen 3.4: S = Q·Kᵀ·scale, row softmax, S·V, per head. In WASM Eigen has no SIMD path, so
// this is what the compiler makes of its scalar code.
AP_BENCH_EXPORT void bench_run_eigen() {
  const int n = g.n, d = g.d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  attn::Matrix out(n, g.heads * d);
  for (int h = 0; h < g.heads; ++h) {
    const attn::Matrix q = g.problem.queries[0].middleCols(h * d, d);
    const attn::Matrix k = g.problem.keys[0].middleCols(h * d, d);
    const attn::Matrix v = g.problem.values[0].middleCols(h * d, d);
    attn::Matrix s = (q * k.transpose()) * scale;
    for (int i = 0; i < n; ++i) {
      s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
      s.row(i) /= s.row(i).sum();
    }
    out.middleCols(h * d, d) = s * v;
  }
  copy_out(out);
}

// For the memory check: one run of `heads` heads over n tokens with projections
// (d_model = heads·d) and no head matrices kept; returns head_matrix_bytes.
AP_BENCH_EXPORT double bench_run_projected(int n, int d, int heads) {
  const int dm = heads * d;
  attn::Problem p;
  p.queries = {random_matrix(n, dm, 11)};
  p.keys = p.values = p.queries;
  p.heads = heads;
  p.weights.W_q = random_matrix(dm, dm, 12) * (1.0f / std::sqrt(static_cast<float>(dm)));
  p.weights.W_k = random_matrix(dm, dm, 13) * (1.0f / std::sqrt(static_cast<float>(dm)));
  p.weights.W_v = random_matrix(dm, dm, 14) * (1.0f / std::sqrt(static_cast<float>(dm)));
  p.weights.W_o = random_matrix(dm, dm, 15) * (1.0f / std::sqrt(static_cast<float>(dm)));
  attn::RunOptions light;
  light.keep_head_matrices = false;
  const attn::Trace t = attn::run(p, light);
  copy_out(t.output[0]);
  return static_cast<double>(attn::head_matrix_bytes(p));
}

//-----------------------------------------------------------------------------
// [SECTION] Backward and training
//-----------------------------------------------------------------------------

namespace {

attn::Gradients g_grads;

// The gradients' query part in g.out, so that two builds can be compared.
void copy_grad_out() {
  const attn::MatrixD& q = g_grads.queries[0];
  g.out.resize(static_cast<size_t>(q.size()));
  for (Eigen::Index i = 0; i < q.size(); ++i) g.out[i] = static_cast<float>(q.data()[i]);
}

}  // namespace

// Forward and backward of the bench_setup problem (loss = mean((output − target)²)) through
// the public API: attn::gradients runs attn::run (keeping the head matrices) and its backward.
// Returns the loss.
AP_BENCH_EXPORT double bench_run_grad() {
  const attn::Status st = attn::gradients(g.problem, g.target, &g_grads);
  if (!st.ok()) std::printf("bench: %s\n", st.error.c_str());
  copy_grad_out();
  return g_grads.loss;
}

// The same through the float64 reference backward (attn::gradients_reference), which
// attn::gradients was before the float32 one.
AP_BENCH_EXPORT double bench_run_grad_reference() {
  const attn::Status st = attn::gradients_reference(g.problem, g.target, &g_grads);
  if (!st.ok()) std::printf("bench: %s\n", st.error.c_str());
  copy_grad_out();
  return g_grads.loss;
}

namespace {

struct Training {
  attn::Problem problem;
  attn::Batch target;
  attn::Optimizer optimizer;
};

Training g_train;

// Glorot-uniform, as a scenario's "init" draws its weights: U(±√(6 / (rows + cols))).
attn::Matrix glorot(int rows, int cols, uint64_t seed) {
  return random_matrix(rows, cols, seed) * std::sqrt(6.0f / static_cast<float>(rows + cols));
}

}  // namespace

// The training benchmark's problem: self-attention over n tokens of d features, `batch`
// sequences, d_model = d with W_q, W_k, W_v, W_o learned (Glorot-uniform), `heads` heads,
// scaled dot product, a random target; Adam with lr = 0.01, from step 0.
AP_BENCH_EXPORT void bench_train_setup(int n, int d, int heads, int batch) {
  Training& t = g_train;
  t = Training();
  for (int b = 0; b < batch; ++b) {
    t.problem.queries.push_back(random_matrix(n, d, 20 + b));
    t.target.push_back(random_matrix(n, d, 40 + b));
  }
  t.problem.keys = t.problem.values = t.problem.queries;
  t.problem.heads = heads;
  t.problem.scoring = attn::Scoring::kScaledDot;
  t.problem.weights.W_q = glorot(d, d, 5);
  t.problem.weights.W_k = glorot(d, d, 6);
  t.problem.weights.W_v = glorot(d, d, 7);
  t.problem.weights.W_o = glorot(d, d, 8);
  t.optimizer.kind = attn::Optimizer::Kind::kAdam;
  t.optimizer.lr = 0.01;
}

// `steps` Adam steps of attn::Optimizer; returns the loss before the last one (-1 on error).
AP_BENCH_EXPORT double bench_train_steps(int steps) {
  double loss = -1.0;
  for (int k = 0; k < steps; ++k) {
    const attn::Status st = g_train.optimizer.step(&g_train.problem, g_train.target, &loss);
    if (!st.ok()) {
      std::printf("bench: %s\n", st.error.c_str());
      return -1.0;
    }
  }
  return loss;
}

//-----------------------------------------------------------------------------
// [SECTION] Peak loop
//-----------------------------------------------------------------------------

// The f32x4 mul+add throughput ceiling: 8 independent accumulators, each step adding a
// product of a loop-invariant vector and a vector loaded from a 1 KiB buffer (so that the
// compiler can neither hoist the products nor fold the loads). 64 flops per iteration.
// Returns a checksum so that the loop is not removed.
AP_BENCH_EXPORT float bench_peak(int iterations) {
#if AP_KERNELS_HAVE_WASMSIMD
  static float buffer[256];
  for (int i = 0; i < 256; ++i) buffer[i] = 1e-3f * static_cast<float>(i % 7);
  const float* b = buffer;
  const v128_t va0 = wasm_v128_load(b + 200), va1 = wasm_v128_load(b + 204);
  const v128_t va2 = wasm_v128_load(b + 208), va3 = wasm_v128_load(b + 212);
  v128_t vacc0 = va0, vacc1 = va1, vacc2 = va2, vacc3 = va3;
  v128_t vacc4 = va0, vacc5 = va1, vacc6 = va2, vacc7 = va3;
  for (int i = 0; i < iterations; ++i) {
    const float* p = b + ((i & 31) << 2);
    const v128_t vb0 = wasm_v128_load(p);
    const v128_t vb1 = wasm_v128_load(p + 128);
    vacc0 = wasm_f32x4_add(vacc0, wasm_f32x4_mul(va0, vb0));
    vacc1 = wasm_f32x4_add(vacc1, wasm_f32x4_mul(va0, vb1));
    vacc2 = wasm_f32x4_add(vacc2, wasm_f32x4_mul(va1, vb0));
    vacc3 = wasm_f32x4_add(vacc3, wasm_f32x4_mul(va1, vb1));
    vacc4 = wasm_f32x4_add(vacc4, wasm_f32x4_mul(va2, vb0));
    vacc5 = wasm_f32x4_add(vacc5, wasm_f32x4_mul(va2, vb1));
    vacc6 = wasm_f32x4_add(vacc6, wasm_f32x4_mul(va3, vb0));
    vacc7 = wasm_f32x4_add(vacc7, wasm_f32x4_mul(va3, vb1));
  }
  const v128_t vsum =
      wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(vacc0, vacc1), wasm_f32x4_add(vacc2, vacc3)),
                     wasm_f32x4_add(wasm_f32x4_add(vacc4, vacc5), wasm_f32x4_add(vacc6, vacc7)));
  return wasm_f32x4_extract_lane(vsum, 0);
#else
  (void)iterations;
  return 0.0f;
#endif
}

//-----------------------------------------------------------------------------
// [SECTION] Native driver
//-----------------------------------------------------------------------------

#if !defined(__EMSCRIPTEN__)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

double seconds_now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// Appends the seconds of at least `reps` calls of f (more if they take under 0.1 s).
template <typename F>
void time_calls(F f, int reps, std::vector<double>* out) {
  const double start = seconds_now();
  for (int i = 0; i < reps || (seconds_now() - start < 0.1 && i < 500); ++i) {
    const double t0 = seconds_now();
    f();
    out->push_back(seconds_now() - t0);
  }
}

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Forward + backward GFLOP/s (attn::gradients: run + backward, 12·h·n²·d flops) and Adam
// steps per second at n = 16, d = 16, 2 heads, batch 1 and 8.
void backward_tables() {
  struct Shape {
    int n, d, heads;
  };
  const Shape shapes[] = {{64, 64, 1}, {256, 64, 1}, {1024, 64, 1}, {256, 64, 8}};
  struct Impl {
    const char* name;
    double (*run)();
  };
  const Impl impls[] = {{"attn::gradients (float32, kernels)", bench_run_grad},
                        {"attn::gradients_reference (float64)", bench_run_grad_reference}};
  const int kImpls = sizeof(impls) / sizeof(impls[0]);
  std::printf(
      "\nforward + backward: attn::gradients (attn::run keeping the head matrices, then the "
      "backward), loss mean((out − target)²), scaled_dot, no mask, no projections; GFLOP/s = "
      "12·h·n²·d / median seconds of >= 9 calls in 3 interleaved rounds\n\n");
  std::printf("| %-36s |", "forward + backward (GFLOP/s)");
  for (const Shape& s : shapes) {
    const std::string name =
        (s.heads > 1 ? std::to_string(s.heads) + "×" : std::string()) + "n=" + std::to_string(s.n);
    std::printf(" %*s |", s.heads > 1 ? 9 : 8, name.c_str());
  }
  std::printf("\n|%s|", std::string(38, '-').c_str());
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) std::printf("---------:|");
  std::printf("\n");
  std::vector<std::vector<double>> gflops(kImpls);
  for (const Shape& s : shapes) {
    bench_setup(s.n, s.d, s.heads);
    std::vector<std::vector<double>> t(kImpls);
    for (const Impl& impl : impls) impl.run();
    for (int round = 0; round < 3; ++round)
      for (int i = 0; i < kImpls; ++i) time_calls([&] { impls[i].run(); }, 3, &t[i]);
    const double flops = 12.0 * s.heads * s.n * static_cast<double>(s.n) * s.d;
    for (int i = 0; i < kImpls; ++i) gflops[i].push_back(flops / median(t[i]) * 1e-9);
  }
  for (int i = 0; i < kImpls; ++i) {
    std::printf("| %-36s |", impls[i].name);
    for (double v : gflops[i]) std::printf(" %8.1f |", v);
    std::printf("\n");
  }

  std::printf(
      "\ntraining: Adam steps of attn::Optimizer per second, self-attention n = 16, d = 16, "
      "d_model 16 (W_q, W_k, W_v, W_o), 2 heads, scaled_dot; median of 7 runs of 500 steps\n\n");
  std::printf("| batch | steps/s | loss after |\n|---:|---:|---:|\n");
  for (int batch : {1, 8}) {
    bench_train_setup(16, 16, 2, batch);
    bench_train_steps(200);  // warm-up
    std::vector<double> t;
    double loss = 0.0;
    for (int r = 0; r < 7; ++r) {
      const double t0 = seconds_now();
      loss = bench_train_steps(500);
      t.push_back(seconds_now() - t0);
    }
    std::printf("| %d | %.0f | %.4g |\n", batch, 500.0 / median(t), loss);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool backward_only = argc > 1 && std::string(argv[1]) == "--backward";
  if (backward_only) {
    backward_tables();
    return 0;
  }
  struct Shape {
    int n, d, heads;
  };
  const Shape shapes[] = {{64, 64, 1}, {256, 64, 1}, {1024, 64, 1}, {2048, 64, 1}, {512, 64, 8}};
  struct Impl {
    const char* name;
    void (*run)();
  };
  // attn::run on one thread and on two (the pool is started or stopped when the count
  // changes: the first call of each run of calls pays for it, and the median leaves it out).
  const auto core_1 = [] {
    bench_set_threads(1);
    bench_run_core();
  };
  const auto core_2 = [] {
    bench_set_threads(2);
    bench_run_core();
  };
  const Impl impls[] = {{"ours: attn::run (fused kernel)", core_1},
                        {"ours: attn::run, 2 threads", core_2},
                        {"ours: the fused kernel alone", bench_run_fused},
                        {"ours: fused kernel, __scalar twins", bench_run_fused_scalar},
                        {"Eigen 3.4 (its own SSE2 code)", bench_run_eigen}};
  const int kImpls = sizeof(impls) / sizeof(impls[0]);
  const int kRounds = 3;
#if defined(__GLIBC__)
  // glibc hands the top of the heap back to the kernel when attn::run's trace is freed, and
  // the next call page-faults it in again (half the time at n = 256). A program that keeps
  // calling run() would tune this too; WASM memory is never returned, so there it cannot happen.
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  std::printf("(glibc: heap trimming off, M_TRIM_THRESHOLD = M_MMAP_THRESHOLD = 256 MiB)\n");
#endif
  std::printf(
      "native, GCC -O3 for x86-64 (SSE2; the __wasmsimd kernels through SIMDe), one thread "
      "unless the row says 2\n");
  std::printf(
      "GFLOP/s = 4·h·n²·d / median seconds of >= 21 calls after warm-up, in %d interleaved "
      "rounds\n\n",
      kRounds);
  std::vector<std::vector<double>> gflops(kImpls);
  for (const Shape& s : shapes) {
    bench_setup(s.n, s.d, s.heads);
    std::vector<std::vector<double>> t(kImpls);
    for (const Impl& impl : impls)
      for (int i = 0; i < 3; ++i) impl.run();
    for (int round = 0; round < kRounds; ++round)
      for (int i = 0; i < kImpls; ++i) time_calls(impls[i].run, 7, &t[i]);
    const double flops = 4.0 * s.heads * s.n * static_cast<double>(s.n) * s.d;
    for (int i = 0; i < kImpls; ++i) gflops[i].push_back(flops / median(t[i]) * 1e-9);
  }
  std::printf("| %-36s |", "implementation (GFLOP/s)");
  for (const Shape& s : shapes) {
    const std::string name =
        (s.heads > 1 ? std::to_string(s.heads) + "×" : std::string()) + "n=" + std::to_string(s.n);
    std::printf(" %*s |", s.heads > 1 ? 9 : 8, name.c_str());  // "×" takes two bytes
  }
  std::printf("\n|%s|", std::string(38, '-').c_str());
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) std::printf("---------:|");
  std::printf("\n");
  for (int i = 0; i < kImpls; ++i) {
    std::printf("| %-36s |", impls[i].name);
    for (double v : gflops[i]) std::printf(" %8.1f |", v);
    std::printf("\n");
  }
  volatile float sink = 0.0f;
  const int iterations = 20000000;
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) sink = sink + bench_peak(iterations);
  time_calls([&] { sink = sink + bench_peak(iterations); }, 20, &t);
  std::printf(
      "\nSIMD128 mul+add loop through SIMDe: %.1f GFLOP/s (GCC spills its accumulators under "
      "SSE2: not the hardware's ceiling)\n",
      64.0 * iterations / median(t) * 1e-9);
  backward_tables();
  return 0;
}

#endif
