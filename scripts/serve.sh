#!/usr/bin/env bash
# Sets up, builds and serves the playground on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops).
# Arguments go to scripts/serve.mjs: --isolate sends COOP and COEP, and the page runs threads.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
exec node "$root/scripts/serve.mjs" --root "$root/build/wasm/site" --port "${PORT:-8080}" "$@"
