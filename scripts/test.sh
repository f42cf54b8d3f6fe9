#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. the native tree (Catch2 suites, CLI, desktop app under Xvfb),
#   2. the WebAssembly tree (the same Catch2 suites and CLI under node, and the built page in
#      headless Chromium),
#   3. the native suites again under AddressSanitizer and UndefinedBehaviorSanitizer,
#   4. the scenario parser, the link codec, the JS API and the NumPy reader under libFuzzer
#      (AP_FUZZ_SECONDS each, 30).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/build.sh || exit 1
jobs="$(nproc 2>/dev/null || echo 2)"
status=0
echo "== native tests"
ctest --preset native-release -j "$jobs" || status=1
echo "== WebAssembly tests (node, headless Chromium)"
ctest --preset wasm-release -j "$jobs" || status=1
echo "== native tests under AddressSanitizer and UndefinedBehaviorSanitizer"
if cmake --preset native-debug >/dev/null && cmake --build --preset native-debug -j "$jobs" >/dev/null; then
  ctest --preset native-debug -j "$jobs" || status=1
else
  echo "test: the sanitizer build failed"
  status=1
fi
echo "== fuzzing (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer)"
if cmake --preset fuzz -DAP_FUZZ_SECONDS="${AP_FUZZ_SECONDS:-30}" >/dev/null &&
   cmake --build --preset fuzz -j "$jobs" >/dev/null; then
  ctest --preset fuzz -j "$jobs" || status=1
else
  echo "test: the fuzz build failed"
  status=1
fi
if [ "$status" = 0 ]; then echo "test: all suites passed"; else echo "test: FAILED"; fi
exit "$status"
