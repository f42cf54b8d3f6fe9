// The attention forward benchmark under node: ours (WASM SIMD128 and scalar), Eigen in WASM,
// tfjs-backend-wasm and onnxruntime-web, side by side, plus the SIMD128 mul+add peak loop.
//
//   node --no-experimental-fetch bench/run.mjs --simd <attention_bench.js> --scalar <...js>
//        [--quick] [--backward]
//
// (bench/run.sh builds the modules and calls this.) Forward = softmax(Q·Kᵀ/√d)·V, one thread,
// FLOPs = 4·h·n²·d. Each implementation is timed per call, median of >= 20 calls after a
// warm-up, in rounds that take turns between implementations so that the machine's noise
// falls on all of them alike. Then the backward: forward + backward GFLOP/s of attn::gradients
// (12·h·n²·d flops) and Adam steps per second at n = 16, d = 16, 2 heads (ours only; the peers
// have no backward here). --backward prints only that part (no peers needed).
//
// [SECTION] Setup
// [SECTION] Implementations
// [SECTION] Timing
// [SECTION] Main

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { intAttribute, model, node, scalarInitializer, valueInfo } from "./onnx_model.mjs";

//-----------------------------------------------------------------------------
// [SECTION] Setup
//-----------------------------------------------------------------------------

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = path.join(here, "node_modules");
const require = createRequire(import.meta.url);

// Nothing may come from the network at run time: every .wasm file is read from node_modules.
globalThis.fetch = async (url) => {
  throw new Error(`bench: network access attempted (${url}); everything must load offline`);
};

function parseArgs(argv) {
  // 8 short rounds, taking turns, so that a slow spell of this shared machine (seconds long)
  // falls on every implementation alike rather than on one.
  const opts = { rounds: 8, minReps: 20, roundSeconds: 0.15 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--simd") opts.simd = argv[++i];
    else if (argv[i] === "--scalar") opts.scalar = argv[++i];
    else if (argv[i] === "--relaxed") opts.relaxed = argv[++i];
    else if (argv[i] === "--threads") opts.threads = argv[++i];
    else if (argv[i] === "--quick") opts.quick = true;
    else if (argv[i] === "--backward") opts.backward = true;
    else if (argv[i] === "--machine") opts.machine = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!opts.simd || !opts.scalar) throw new Error("usage: run.mjs --simd <js> --scalar <js> [--relaxed <js>] [--threads <js>] [--quick] [--backward] [--machine <machine_probe>]");
  return opts;
}

const shapes = [
  { n: 64, d: 64, h: 1 },
  { n: 256, d: 64, h: 1 },
  { n: 1024, d: 64, h: 1 },
  { n: 2048, d: 64, h: 1 },
  { n: 512, d: 64, h: 8 },
];
const PEAK_ITERATIONS = 3000000;  // about 3 ms of the peak loop per sample
const shapeName = (s) => (s.h > 1 ? `${s.h}×n=${s.n}` : `n=${s.n}`);
const flopsOf = (s) => 4 * s.h * s.n * s.n * s.d;

function version(pkg) {
  return require(path.join(nodeModules, pkg, "package.json")).version;
}

//-----------------------------------------------------------------------------
// [SECTION] Implementations
//-----------------------------------------------------------------------------

// Each implementation: prepare(shape, inputs) once per shape, then run() per timed call,
// output() → Float32Array n × (h·d) in our layout (head h = columns [h·d, (h+1)·d)).

async function loadOurs(file) {
  const create = require(path.resolve(file));
  return create();
}

// threads: set before each call (a module built with -pthread; 1 in any other).
function ours(module, label, fn, threads = 1) {
  return {
    label,
    prepare(s) {
      if (module._bench_set_threads(threads) !== threads) throw new Error(`${label}: ${threads} threads could not be set`);
      module._bench_setup(s.n, s.d, s.h);
    },
    run() {
      module[fn]();
    },
    output(s) {
      return new Float32Array(module.HEAPF32.buffer, module._bench_output(), s.n * s.h * s.d).slice();
    },
  };
}

// The inputs as the peers want them: per head [n][d], Kᵀ per head [d][n], and all heads as
// [h][n][d] or [n][h·d].
function peerInputs(module, s) {
  const count = s.n * s.h * s.d;
  const view = (ptr) => new Float32Array(module.HEAPF32.buffer, ptr, count).slice();
  const q = view(module._bench_queries()), k = view(module._bench_keys()), v = view(module._bench_values());
  const ld = s.h * s.d;
  const perHead = (x, transpose) => {
    const heads = [];
    for (let h = 0; h < s.h; h++) {
      const m = new Float32Array(s.n * s.d);
      for (let i = 0; i < s.n; i++)
        for (let c = 0; c < s.d; c++) {
          const value = x[i * ld + h * s.d + c];
          if (transpose) m[c * s.n + i] = value;
          else m[i * s.d + c] = value;
        }
      heads.push(m);
    }
    return heads;
  };
  const stack = (heads) => {
    const out = new Float32Array(count);
    heads.forEach((m, h) => out.set(m, h * s.n * s.d));
    return out;
  };
  const qh = perHead(q), kth = perHead(k, true), vh = perHead(v);
  return { q, k, v, qh, kth, vh, q3: stack(qh), kt3: stack(kth), v3: stack(vh) };
}

// [h][n][d] → our [n][h·d].
function fromHeads(data, s) {
  const out = new Float32Array(s.n * s.h * s.d);
  for (let h = 0; h < s.h; h++)
    for (let i = 0; i < s.n; i++)
      for (let c = 0; c < s.d; c++) out[i * s.h * s.d + h * s.d + c] = data[(h * s.n + i) * s.d + c];
  return out;
}

async function loadTfjs() {
  const tf = require(path.join(nodeModules, "@tensorflow/tfjs-core"));
  const wasm = require(path.join(nodeModules, "@tensorflow/tfjs-backend-wasm"));
  tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);  // one thread
  wasm.setWasmPaths(path.join(nodeModules, "@tensorflow/tfjs-backend-wasm/dist") + path.sep);
  if (!(await tf.setBackend("wasm"))) throw new Error("tfjs: the wasm backend did not start");
  await tf.ready();
  const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
  const threads = await tf.env().getAsync("WASM_HAS_MULTITHREAD_SUPPORT");
  if (!simd || threads) throw new Error(`tfjs: expected SIMD without threads, got simd=${simd} threads=${threads}`);
  return tf;
}

// tfjs at its best: K given transposed (matMul with transposeB falls to a scalar loop) and
// one 2-D matMul per head (a batched 3-D matMul also falls to a scalar loop: 2.4 GFLOP/s).
function tfjsImpl(tf) {
  let q, kt, v, scale, last;
  return {
    label: `tfjs-backend-wasm ${version("@tensorflow/tfjs-backend-wasm")} (XNNPACK; Kᵀ given)`,
    prepare(s, inputs) {
      [q, kt, v].forEach((list) => list && list.forEach((t) => t.dispose()));
      q = inputs.qh.map((m) => tf.tensor2d(m, [s.n, s.d]));
      kt = inputs.kth.map((m) => tf.tensor2d(m, [s.d, s.n]));
      v = inputs.vh.map((m) => tf.tensor2d(m, [s.n, s.d]));
      if (scale) scale.dispose();
      scale = tf.scalar(1 / Math.sqrt(s.d));
    },
    run() {
      const out = tf.tidy(() => {
        const heads = q.map((qh, h) => tf.matMul(tf.softmax(tf.mul(tf.matMul(qh, kt[h]), scale)), v[h]));
        return heads.length === 1 ? heads[0] : tf.stack(heads);
      });
      last = out.dataSync();
      out.dispose();
    },
    output(s) {
      return fromHeads(last, s);
    },
  };
}

async function loadOrt() {
  const ort = require(path.join(nodeModules, "onnxruntime-web"));
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = path.join(nodeModules, "onnxruntime-web/dist") + path.sep;
  return ort;
}

// onnxruntime-web: MatMul → Mul → Softmax → MatMul with Kᵀ given, and the fused
// com.microsoft MultiHeadAttention contrib op; the faster of the two counts.
function ortImpl(ort, variant) {
  let session, feeds, last;
  const graphs = {
    matmul_softmax(s) {
      return {
        bytes: model({
          nodes: [
            node("MatMul", ["Q", "Kt"], ["S"]),
            node("Mul", ["S", "scale"], ["S2"]),
            node("Softmax", ["S2"], ["P"], [intAttribute("axis", -1)]),
            node("MatMul", ["P", "V"], ["O"]),
          ],
          initializers: [scalarInitializer("scale", 1 / Math.sqrt(s.d))],
          inputs: [valueInfo("Q", [s.h, s.n, s.d]), valueInfo("Kt", [s.h, s.d, s.n]), valueInfo("V", [s.h, s.n, s.d])],
          outputs: [valueInfo("O", [s.h, s.n, s.d])],
          opsets: [["", 17]],
        }),
        feeds: (x) => ({
          Q: new ort.Tensor("float32", x.q3, [s.h, s.n, s.d]),
          Kt: new ort.Tensor("float32", x.kt3, [s.h, s.d, s.n]),
          V: new ort.Tensor("float32", x.v3, [s.h, s.n, s.d]),
        }),
        output: (data) => fromHeads(data, s),
      };
    },
    multi_head_attention(s) {
      const dims = [1, s.n, s.h * s.d];
      return {
        bytes: model({
          nodes: [node("MultiHeadAttention", ["Q", "K", "V"], ["O"], [intAttribute("num_heads", s.h)], "com.microsoft")],
          inputs: [valueInfo("Q", dims), valueInfo("K", dims), valueInfo("V", dims)],
          outputs: [valueInfo("O", dims)],
          opsets: [["", 17], ["com.microsoft", 1]],
        }),
        feeds: (x) => ({
          Q: new ort.Tensor("float32", x.q, dims),
          K: new ort.Tensor("float32", x.k, dims),
          V: new ort.Tensor("float32", x.v, dims),
        }),
        output: (data) => data.slice(),
      };
    },
  };
  let graph;
  return {
    label: `onnxruntime-web ${version("onnxruntime-web")} (${variant === "matmul_softmax" ? "MatMul, Softmax; Kᵀ given" : "MultiHeadAttention op"})`,
    async prepare(s, inputs) {
      if (session) await session.release();
      graph = graphs[variant](s);
      session = await ort.InferenceSession.create(graph.bytes, {
        executionProviders: ["wasm"],
        graphOptimizationLevel: "all",
      });
      feeds = graph.feeds(inputs);
    },
    async run() {
      const result = await session.run(feeds);
      last = result.O.data;
    },
    output() {
      return graph.output(last);
    },
  };
}

//-----------------------------------------------------------------------------
// [SECTION] Timing
//-----------------------------------------------------------------------------

// What the numbers were measured on: the CPU's model, family and model number, its nominal
// clock and its caches (Linux: /proc/cpuinfo and /sys/devices/system/cpu/cpu0/cache), so that
// a table always says which machine it is from.
// hw: machine_probe's answer, whose CPUID caches stand in where /sys has none (some VMs).
function machine(hw) {
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const field = (name) => info.match(new RegExp(`^${name}\\s*: (.*)$`, "m"))?.[1]?.trim() ?? "?";
    const flags = field("flags").split(" ");
    const caches = [];
    const dir = "/sys/devices/system/cpu/cpu0/cache";
    const indexes = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith("index")).sort() : [];
    for (const index of indexes) {
      const read = (f) => readFileSync(`${dir}/${index}/${f}`, "utf8").trim();
      const type = read("type");
      if (type === "Instruction") continue;
      caches.push(`L${read("level")}${type === "Data" ? "d" : ""} ${read("size")}`);
    }
    if (!caches.length) caches.push(hw?.caches ? `${hw.caches} (CPUID)` : "caches unknown");
    return `${field("model name")} (vendor ${field("vendor_id")}, family ${field("cpu family")}, ` +
           `model ${field("model")}), ${os.cpus().length} logical cores, nominal ${Math.round(Number(field("cpu MHz")))} MHz, ` +
           `${caches.join(", ")}, ${["avx2", "fma", "avx512f"].filter((f) => flags.includes(f)).join(" ") || "no AVX2/FMA"}`;
  } catch (e) {
    return `${os.cpus()[0]?.model ?? "unknown CPU"} (no /proc/cpuinfo: ${e.message})`;
  }
}

// What the hardware itself does (bench/machine.cpp, native): the clock measured by a chain of
// dependent adds, and the 128-bit mul+add and FMA ceilings, in GFLOP/s and flop per cycle.
function hardware(probe) {
  if (!probe) return null;
  try {
    return JSON.parse(execFileSync(probe, { encoding: "utf8" }));
  } catch (e) {
    console.log(`# machine_probe failed: ${e.message}`);
    return null;
  }
}

function hardwareLine(hw) {
  if (!hw?.ghz) return null;
  const part = (name, g, f) => g ? `${name} ${g.toFixed(1)} GFLOP/s (${f.toFixed(1)} flop/cycle)` : null;
  return `# measured natively (bench/machine.cpp): ${hw.ghz.toFixed(2)} GHz (a chain of dependent adds); ` +
         `the hardware's 128-bit ceiling: ${[part("mul+add", hw.mul_add128_gflops, hw.mul_add128_flop_per_cycle),
                                             part("FMA", hw.fma128_gflops, hw.fma128_flop_per_cycle)].filter(Boolean).join(", ")}`;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
};

async function warmUp(impl) {
  // Enough calls for V8 to move hot WASM functions from Liftoff to TurboFan.
  const start = performance.now();
  for (let i = 0; i < 5 || performance.now() - start < 300; i++) await impl.run();
}

// One round: `reps` timed calls (more for fast calls, up to `seconds`), in seconds per call.
async function timeRound(impl, reps, seconds) {
  const times = [];
  const start = performance.now();
  while (times.length < reps || (performance.now() - start < seconds * 1e3 && times.length < 500)) {
    const t0 = performance.now();
    await impl.run();
    times.push((performance.now() - t0) * 1e-3);
  }
  return times;
}

function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;  // NaN propagates
  }
  return worst;
}

//-----------------------------------------------------------------------------
// [SECTION] Backward and training
//-----------------------------------------------------------------------------

const backwardShapes = [
  { n: 64, d: 64, h: 1 },
  { n: 256, d: 64, h: 1 },
  { n: 1024, d: 64, h: 1 },
  { n: 256, d: 64, h: 8 },
];

// Forward + backward GFLOP/s of attn::gradients, and Adam steps per second of attn::Optimizer
// at n = 16, d = 16, d_model 16, 2 heads, batch 1 and 8, in every module given.
async function backwardTables(modules, opts) {
  const rounds = 3;
  console.log(`# forward + backward: attn::gradients (attn::run keeping the head matrices, then the backward), ` +
              `loss mean((out − target)²), scaled_dot, no mask, no projections, d = 64`);
  console.log(`# GFLOP/s = 12·h·n²·d / median seconds of >= 9 calls after warm-up (${rounds} interleaved rounds)\n`);
  const names = backwardShapes.map(shapeName);
  const width = 58;
  const row = (label, cells) => console.log(`| ${pad(label, width)} | ${cells.map((c) => lpad(c, 8)).join(" | ")} |`);
  const gflops = modules.map(() => ({}));
  for (const s of backwardShapes) {
    process.stderr.write(`bench: backward ${shapeName(s)} ...`);
    const samples = modules.map(() => []);
    for (const m of modules) {
      m.module._bench_set_threads(m.threads ?? 1);
      m.module._bench_setup(s.n, s.d, s.h);
      const start = performance.now();
      for (let i = 0; i < 3 || performance.now() - start < 300; i++) m.module[m.fn]();
    }
    for (let round = 0; round < rounds; round++) {
      modules.forEach((m, k) => {
        m.module._bench_set_threads(m.threads ?? 1);
        m.module._bench_setup(s.n, s.d, s.h);
        m.module[m.fn]();
        const start = performance.now();
        while (samples[k].length < 3 * (round + 1) || (performance.now() - start < opts.roundSeconds * 1e3 && samples[k].length < 500)) {
          const t0 = performance.now();
          m.module[m.fn]();
          samples[k].push((performance.now() - t0) * 1e-3);
        }
      });
      process.stderr.write(".");
    }
    modules.forEach((m, k) => (gflops[k][shapeName(s)] = ((3 * flopsOf(s)) / median(samples[k])) * 1e-9));
    process.stderr.write(" done\n");
  }
  row("forward + backward (GFLOP/s)", names);
  console.log(`|${"-".repeat(width + 2)}|${names.map(() => "-".repeat(9) + ":").join("|")}|`);
  modules.forEach((m, k) => row(m.label, names.map((n) => gflops[k][n].toFixed(1))));
  const one = modules.findIndex((m) => m.threads === 1), two = modules.findIndex((m) => m.threads === 2);
  if (one >= 0 && two >= 0) {
    row("2 threads ÷ 1 thread (the -pthread module)", names.map((n) => (gflops[two][n] / gflops[one][n]).toFixed(2) + "×"));
  }

  console.log(`\n# training: Adam steps of attn::Optimizer per second, self-attention n = 16, d = 16, d_model 16 ` +
              `(W_q, W_k, W_v, W_o learned), 2 heads, scaled_dot, random target; median of 7 runs of 500 steps after warm-up\n`);
  console.log(`| ${pad("training steps per second", width)} | ${lpad("batch 1", 8)} | ${lpad("batch 8", 8)} |`);
  console.log(`|${"-".repeat(width + 2)}|---------:|---------:|`);
  // attn::Optimizer steps with attn::gradients: one row per module.
  for (const m of modules.filter((x) => x.train)) {
    const rates = [];
    for (const batch of [1, 8]) {
      m.module._bench_set_threads(m.threads ?? 1);
      m.module._bench_train_setup(16, 16, 2, batch);
      const start = performance.now();
      while (performance.now() - start < 300) m.module._bench_train_steps(50);
      const times = [];
      for (let r = 0; r < 7; r++) {
        const t0 = performance.now();
        if (m.module._bench_train_steps(500) < 0) throw new Error(`${m.label}: a training step failed`);
        times.push((performance.now() - t0) * 1e-3);
      }
      rates.push(500 / median(times));
    }
    const label = m.label.replace(/attn::gradients( \(float32\))?/, "attn::Optimizer (Adam)");
    console.log(`| ${pad(label, width)} | ${rates.map((r) => lpad(r.toFixed(0), 8)).join(" | ")} |`);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Main
//-----------------------------------------------------------------------------

const pad = (x, w) => String(x).padEnd(w);
const lpad = (x, w) => String(x).padStart(w);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const simd = await loadOurs(opts.simd);
  const scalar = await loadOurs(opts.scalar);
  if (simd.UTF8ToString(simd._bench_kernels()) !== "wasmsimd") throw new Error("--simd module has no SIMD kernels");
  if (scalar.UTF8ToString(scalar._bench_kernels()) !== "scalar") throw new Error("--scalar module has SIMD kernels");
  // The relaxed-SIMD module, when given (node needs --experimental-wasm-relaxed-simd).
  const relaxed = opts.relaxed ? await loadOurs(opts.relaxed) : null;
  if (relaxed && relaxed.UTF8ToString(relaxed._bench_kernels()) !== "wasmrelaxed") {
    throw new Error("--relaxed module does not use the relaxed kernels");
  }
  // The module built with -pthread, run on 1 and on 2 threads: relaxed-SIMD kernels as
  // run.sh builds it (what a cross-origin isolated page runs where they validate), SIMD128 if
  // it was built without them.
  const threaded = opts.threads ? await loadOurs(opts.threads) : null;
  if (threaded && threaded._bench_set_threads(2) !== 2) throw new Error("--threads module cannot run 2 threads");
  const threadKernels = threaded?.UTF8ToString(threaded._bench_kernels()) === "wasmrelaxed" ? "relaxed SIMD" : "SIMD128";
  // Measured first, while nothing else of ours runs.
  const hw = hardware(opts.machine);
  console.log(`# machine: ${machine(hw)}`);
  const hwLine = hardwareLine(hw);
  if (hwLine) console.log(hwLine);
  const backwardModules = [
    { module: simd, fn: "_bench_run_grad", label: "attn::gradients (float32), WASM SIMD128", train: true },
    { module: scalar, fn: "_bench_run_grad", label: "attn::gradients (float32), WASM no SIMD", train: true },
    { module: simd, fn: "_bench_run_grad_reference", label: "attn::gradients_reference (float64), WASM" },
  ];
  if (relaxed) {
    backwardModules.splice(1, 0, { module: relaxed, fn: "_bench_run_grad",
                                   label: "attn::gradients (float32), WASM relaxed SIMD", train: true });
  }
  if (threaded) {
    backwardModules.push(
      { module: threaded, fn: "_bench_run_grad", label: `attn::gradients, WASM ${threadKernels} -pthread, 1 thread`, threads: 1, train: true },
      { module: threaded, fn: "_bench_run_grad", label: `attn::gradients, WASM ${threadKernels} -pthread, 2 threads`, threads: 2, train: true });
  }
  if (opts.backward) {
    console.log(`# ${new Date().toISOString().slice(0, 10)}, node ${process.version} (V8 ${process.versions.v8}), one thread\n`);
    await backwardTables(backwardModules, opts);
    return;
  }
  const tf = await loadTfjs();
  const ort = await loadOrt();

  const impls = [
    { key: "ours", ...ours(simd, "ours: attn::run, WASM SIMD128 (fused kernel)", "_bench_run_core") },
    { key: "ours_kernel", ...ours(simd, "ours: the fused kernel alone, WASM SIMD128", "_bench_run_fused") },
    ...(relaxed ? [{ key: "relaxed", ...ours(relaxed, "ours: attn::run, WASM relaxed SIMD (madd)", "_bench_run_core") }] : []),
    ...(threaded
      ? [
          { key: "threads1", ...ours(threaded, `ours: attn::run, WASM ${threadKernels} -pthread, 1 thread`, "_bench_run_core", 1) },
          { key: "threads2", ...ours(threaded, `ours: attn::run, WASM ${threadKernels} -pthread, 2 threads`, "_bench_run_core", 2) },
        ]
      : []),
    { key: "scalar", ...ours(scalar, "ours: attn::run, WASM without SIMD (__scalar)", "_bench_run_core") },
    { key: "eigen", ...ours(simd, "Eigen 3.4 in WASM (-msimd128)", "_bench_run_eigen") },
    { key: "tfjs", peer: true, ...tfjsImpl(tf) },
    { key: "ort", peer: true, ...ortImpl(ort, "matmul_softmax") },
    { key: "ort_mha", peer: true, ...ortImpl(ort, "multi_head_attention") },
  ];

  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  console.log(`# Attention forward, ${new Date().toISOString().slice(0, 10)}, node ${process.version} (V8 ${process.versions.v8}), ${cpu}, ${os.cpus().length} cores, one thread`);
  console.log(`# GFLOP/s = 4·h·n²·d / median seconds of >= ${opts.minReps} calls after warm-up (${opts.rounds} interleaved rounds); d = 64`);
  console.log("# every runtime: WASM with SIMD128 (except the row that says otherwise), one thread (except the rows that say 2)");
  console.log("# network: fetch() throws in this process; every .wasm file comes from bench/node_modules or our build\n");

  const gflops = {};  // key → shape name → GFLOP/s
  const peaks = {};   // shape name → the SIMD128 mul+add peak measured in its rounds, GFLOP/s
  // Warm-up: V8 swaps in the optimized peak loop only on a call after its background compile.
  for (const t0 = performance.now(); performance.now() - t0 < 500;) simd._bench_peak(PEAK_ITERATIONS);
  const diffs = {};   // key → shape name → max |Δ| against ours
  const shapeList = opts.quick ? shapes.filter((s) => s.n <= 1024) : shapes;
  for (const s of shapeList) {
    const name = shapeName(s);
    process.stderr.write(`bench: ${name} ...`);
    simd._bench_setup(s.n, s.d, s.h);
    const inputs = peerInputs(simd, s);
    const samples = Object.fromEntries(impls.map((impl) => [impl.key, []]));
    for (const impl of impls) {
      await impl.prepare(s, inputs);
      await warmUp(impl);
    }
    const peakSamples = [];
    for (let round = 0; round < opts.rounds; round++) {
      // The SIMD128 mul+add peak takes its turn in every round too, so that each shape is
      // compared with a peak measured under the same conditions.
      for (let k = 0; k < 5; k++) {
        const t0 = performance.now();
        simd._bench_peak(PEAK_ITERATIONS);
        peakSamples.push((performance.now() - t0) * 1e-3);
      }
      for (const impl of impls) {
        // Each implementation owns its module's current problem: set it up again in turn,
        // with one untimed call (first-call allocations).
        await impl.prepare(s, inputs);
        await impl.run();
        // The slow ones get their 20 calls in all; the fast ones run for roundSeconds per round.
        const slow = impl.key === "scalar" || impl.key === "eigen";
        const reps = Math.ceil(opts.minReps / opts.rounds);
        samples[impl.key].push(...(await timeRound(impl, reps, slow ? 0 : opts.roundSeconds)));
      }
      process.stderr.write(".");
    }
    const reference = (await impls[0].prepare(s, inputs), await impls[0].run(), impls[0].output(s));
    for (const impl of impls) {
      await impl.prepare(s, inputs);
      await impl.run();
      (diffs[impl.key] ??= {})[name] = maxAbsDiff(impl.output(s), reference);
      (gflops[impl.key] ??= {})[name] = (flopsOf(s) / median(samples[impl.key])) * 1e-9;
      impl.reps = (impl.reps ?? 0) + samples[impl.key].length;
    }
    peaks[name] = ((64 * PEAK_ITERATIONS) / median(peakSamples)) * 1e-9;
    process.stderr.write(" done\n");
  }

  // The table.
  const names = shapeList.map(shapeName);
  const width = 58;
  const row = (label, cells) => console.log(`| ${pad(label, width)} | ${cells.map((c) => lpad(c, 8)).join(" | ")} |`);
  row("implementation (GFLOP/s)", names);
  console.log(`|${"-".repeat(width + 2)}|${names.map(() => "-".repeat(9) + ":").join("|")}|`);
  for (const impl of impls) row(impl.label, names.map((n) => gflops[impl.key][n].toFixed(1)));
  const bestPeer = (n) => Math.max(...impls.filter((i) => i.peer).map((i) => gflops[i.key][n]));
  row("ours ÷ best peer", names.map((n) => (gflops.ours[n] / bestPeer(n)).toFixed(2) + "×"));
  if (gflops.relaxed) row("ours relaxed SIMD ÷ best peer", names.map((n) => (gflops.relaxed[n] / bestPeer(n)).toFixed(2) + "×"));
  if (gflops.threads2) {
    row("2 threads ÷ 1 thread (the -pthread module)", names.map((n) => (gflops.threads2[n] / gflops.threads1[n]).toFixed(2) + "×"));
    row("ours 2 threads ÷ best peer (one thread)", names.map((n) => (gflops.threads2[n] / bestPeer(n)).toFixed(2) + "×"));
  }
  row("ours ÷ ours without SIMD", names.map((n) => (gflops.ours[n] / gflops.scalar[n]).toFixed(1) + "×"));
  row("SIMD128 mul+add peak, same rounds", names.map((n) => peaks[n].toFixed(1)));
  row("ours, % of that peak", names.map((n) => ((100 * gflops.ours[n]) / peaks[n]).toFixed(0) + "%"));
  const ceiling = hw?.mul_add128_gflops;
  if (ceiling) {
    row("hardware 128-bit mul+add ceiling (native)", names.map(() => ceiling.toFixed(1)));
    row("V8's peak loop, % of the hardware's", names.map((n) => ((100 * peaks[n]) / ceiling).toFixed(0) + "%"));
    row("ours, % of the hardware's", names.map((n) => ((100 * gflops.ours[n]) / ceiling).toFixed(0) + "%"));
    if (gflops.relaxed) {
      row("ours relaxed SIMD, % of the hardware's", names.map((n) => ((100 * gflops.relaxed[n]) / ceiling).toFixed(0) + "%"));
    }
  }
  console.log();
  console.log("peak: a loop of 8 independent f32x4 mul+add accumulators, timed 5 times in each round");
  if (ceiling) console.log("hardware ceiling: the same loop natively in AVX-encoded SSE (bench/machine.cpp), measured once before the tables");
  if (gflops.ours["n=1024"])
    console.log(`ours at n=1024: ${gflops.ours["n=1024"].toFixed(1)} GFLOP/s = ` +
                `${((100 * gflops.ours["n=1024"]) / peaks["n=1024"]).toFixed(1)}% of the peak measured in the same rounds ` +
                `(${peaks["n=1024"].toFixed(1)} GFLOP/s)`);
  console.log();
  console.log("max |output − ours| per shape (every implementation computes the same forward pass):");
  for (const impl of impls.slice(1)) row(impl.label, names.map((n) => diffs[impl.key][n].toExponential(1)));
  console.log();
  console.log(`repetitions per shape: ${impls.map((i) => `${i.key} ${Math.round(i.reps / shapeList.length)}`).join(", ")} (average)`);

  // Memory: a fresh SIMD module, n = 2048, 8 heads, d_model 512, with projections.
  const fresh = await loadOurs(opts.simd);
  const before = fresh.HEAP8.length;
  const t0 = performance.now();
  const headBytes = fresh._bench_run_projected(2048, 64, 8);
  const seconds = (performance.now() - t0) * 1e-3;
  const mb = (b) => (b / (1 << 20)).toFixed(0) + " MiB";
  console.log();
  console.log(`memory: attn::run(n=2048, 8 heads, d_model=512, W_q/W_k/W_v/W_o, keep_head_matrices=false) ` +
              `grew the WASM heap from ${mb(before)} to ${mb(fresh.HEAP8.length)} (limit 256 MiB) in ${seconds.toFixed(2)} s; ` +
              `keeping the head matrices would need ${mb(headBytes)} more`);

  console.log();
  await backwardTables(backwardModules, opts);
}

// exit(0) on success too: the -pthread module's workers would keep node running.
main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
