#!/usr/bin/env bash
# Builds what the benchmark needs and prints every number: the node table (ours with and without
# SIMD128, Eigen in WASM, tfjs-backend-wasm, onnxruntime-web, the SIMD128 mul+add peak, the
# memory check), the backward (forward + backward GFLOP/s, Adam steps per second at n = 16,
# d = 16, 2 heads), the native tables, and the browser numbers of the built playground (bytes,
# time to first frame, recompute at n = 1024 with 8 heads, frame time at n = 256) in headless
# Chromium. On demand only: not part of scripts/test.sh.
#   ./bench/run.sh              everything (about 3 minutes on 2 cores, plus the first build)
#   ./bench/run.sh --quick      node table up to n = 1024 only
#   ./bench/run.sh --backward   the backward and training tables only, node and native
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
out="$root/build/bench"
jobs="$(nproc 2>/dev/null || echo 2)"

# The peers, from bench/package-lock.json (the only step that uses the network).
if [ ! -d "$bench/node_modules/onnxruntime-web" ] ||
   [ "$bench/package-lock.json" -nt "$bench/node_modules/.package-lock.json" ]; then
  (cd "$bench" && npm ci --no-audit --no-fund)
fi

build() {  # build <dir> <cmake args...>
  local dir="$1"
  shift
  "$@" -S "$bench" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
}
echo "bench: building (WASM with SIMD128, without, with relaxed SIMD, with threads; native) in $out" >&2
build "$out/wasm-simd" emcmake cmake -DAP_BENCH_SIMD=ON
build "$out/wasm-scalar" emcmake cmake -DAP_BENCH_SIMD=OFF
build "$out/wasm-relaxed" emcmake cmake -DAP_BENCH_SIMD=ON -DAP_BENCH_RELAXED=ON
build "$out/wasm-threads" emcmake cmake -DAP_BENCH_SIMD=ON -DAP_BENCH_THREADS=ON -DAP_BENCH_RELAXED=ON
build "$out/native" cmake

# --experimental-wasm-relaxed-simd: node 20 validates relaxed SIMD only with it (Chromium 114+
# without); it changes nothing for the other modules.
node --no-experimental-fetch --experimental-wasm-relaxed-simd "$bench/run.mjs" \
  --machine "$out/native/machine_probe" --simd "$out/wasm-simd/attention_bench.js" \
  --scalar "$out/wasm-scalar/attention_bench.js" --relaxed "$out/wasm-relaxed/attention_bench.js" \
  --threads "$out/wasm-threads/attention_bench.js" "$@"
echo
if [ "${1:-}" = "--backward" ]; then
  "$out/native/attention_bench" --backward
  exit 0
fi
"$out/native/attention_bench"

echo
echo "bench: building the site (build/wasm/site)" >&2
(cd "$root" && cmake --preset wasm-release >/dev/null && cmake --build --preset wasm-release -j "$jobs" --target site >/dev/null)
node "$bench/browser.mjs" --site "$root/build/wasm/site"
