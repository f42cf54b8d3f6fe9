#!/usr/bin/env bash
# Sets up, builds and serves the playground on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops).
# Arguments go to scripts/serve.mjs: it sends COOP and COEP, so the page runs threads;
# --no-isolate leaves them out (a host that does not send them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
exec node "$root/scripts/serve.mjs" --root "$root/build/wasm/site" --port "${PORT:-8080}" "$@"
