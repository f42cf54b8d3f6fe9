#!/usr/bin/env bash
# Sets up, builds and runs every test: the native CTest tree (Catch2 suites, CLI, browser and
# desktop-app tests) and the WebAssembly tree (the same Catch2 suites and CLI under node).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/build.sh || exit 1
jobs="$(nproc 2>/dev/null || echo 2)"
status=0
echo "== native tests"
ctest --preset native-release -j "$jobs" || status=1
echo "== WebAssembly tests (node)"
ctest --preset wasm-release -j "$jobs" || status=1
if [ "$status" = 0 ]; then echo "test: all suites passed"; else echo "test: FAILED"; fi
exit "$status"
