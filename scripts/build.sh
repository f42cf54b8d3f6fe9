#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then builds the native tree (tests, CLI, desktop app) and the
# WebAssembly tree (the site in build/wasm/site, and the same tests for node).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ "${AP_SKIP_SETUP:-0}" = 1 ] || ./scripts/setup.sh
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j "$jobs"
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release -j "$jobs"
echo "build: ok (site in build/wasm/site)"
