#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. the native tree (Catch2 suites, CLI, desktop app under Xvfb),
#   2. the WebAssembly tree (the same Catch2 suites and CLI under node, and the built page in
#      headless Chromium, Firefox and WebKit),
#   3. the native suites again under AddressSanitizer and UndefinedBehaviorSanitizer,
#   4. the scenario parser, the link codec, the JS API, the NumPy reader and the number reader
#      under libFuzzer (AP_FUZZ_SECONDS each, 30), built in the sanitizers' tree.
#
# The browser checks need only the native CLI and the staged site, so those are built first;
# then the work runs in two lanes side by side: the site's build and the browser checks (one
# browser at a time: they time frames) at the normal priority, and everything else at a lower
# one (the rest of the native tree and its suites, the sanitizers' and fuzzers' tree and its
# suites, the WebAssembly test programs and their suites under node), which takes the processor
# time the browser leaves. At the end it prints each phase's minutes and the slowest tests
# (scripts/test_report.mjs); the logs and JUnit files stay in build/test-logs/.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc 2>/dev/null || echo 2)"
logs="$root/build/test-logs"
rm -rf "$logs"
mkdir -p "$logs"
started=$(date +%s)

# phase NAME LANE COMMAND...: runs COMMAND and records its start, end (seconds since the test
# command began) and exit status in phases.tsv.
phase() {
  local name="$1" lane="$2"
  shift 2
  local t0=$(($(date +%s) - started))
  echo "== $name"
  "$@"
  local rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lane" "$t0" "$(($(date +%s) - started))" "$rc" >>"$logs/phases.tsv"
  [ "$rc" = 0 ] || echo "test: $name FAILED (exit $rc)"
  return "$rc"
}

report() {
  if command -v node >/dev/null 2>&1 && [ -f "$root/scripts/test_report.mjs" ]; then
    node "$root/scripts/test_report.mjs" "$logs" --slowest 20
  else
    cat "$logs/phases.tsv"
  fi
}

# ctest PRESET_OR_DIR NAME [ARGS...]: a ctest run whose JUnit file is logs/NAME.xml.
run_ctest() {
  local where="$1" name="$2"
  shift 2
  ctest $where --output-junit "$logs/$name.xml" "$@"
}

phase "setup" setup ./scripts/setup.sh || { report; exit 1; }
# What the browser checks need first: the native CLI (they compare with it) and the site.
phase "build: native CLI" build bash -c \
  'cmake --preset native-release >/dev/null && cmake --build --preset native-release -j "$0" --target attention-cli' \
  "$jobs" || { report; exit 1; }

# The other lane, beside the browser's at a lower priority: the rest of the native tree and its
# tests, the sanitizers' and fuzzers' tree and theirs, then the WebAssembly test programs (in
# the tree the site was built in, once that build has finished) and their suites under node.
other_lane() {
  local s=0
  if phase "build: native" other cmake --build --preset native-release -j "$jobs"; then
    phase "tests: native" other run_ctest "--preset native-release" native -j "$jobs" || s=1
  else
    s=1
  fi
  # (the compilers' output goes to a log, whose end is printed when the build fails)
  if phase "build: sanitizers and fuzzers" other bash -c \
      'cmake --preset native-debug -DAP_FUZZ_SECONDS="$1" >/dev/null &&
       { cmake --build --preset native-debug -j "$0" >"$2" 2>&1 || { tail -n 60 "$2"; exit 1; }; }' \
      "$jobs" "${AP_FUZZ_SECONDS:-30}" "$logs/build-native-debug.log"; then
    phase "tests: AddressSanitizer and UndefinedBehaviorSanitizer" other run_ctest "--preset native-debug" native-debug -j "$jobs" || s=1
    phase "tests: fuzzing (libFuzzer)" other run_ctest "--preset fuzz" fuzz -j "$jobs" || s=1
  else
    s=1
  fi
  # One build at a time in a tree: wait for the site's.
  while [ ! -e "$logs/site.done" ]; do sleep 2; done
  if [ "$(cat "$logs/site.done")" = 0 ] &&
     phase "build: WebAssembly tests" other bash -c \
       'cmake --build --preset wasm-release -j "$0" --target attention-cli &&
        { make -C build/wasm/tests -j "$0" >"$1" 2>&1 || { tail -n 60 "$1"; exit 1; }; }' \
       "$jobs" "$logs/build-wasm-tests.log"; then
    phase "tests: WebAssembly under node" other run_ctest "--preset wasm-release" wasm-node -j "$jobs" -LE browser || s=1
  else
    s=1
  fi
  return "$s"
}

(
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1
  other_lane
) >"$logs/other-lane.log" 2>&1 &
other_pid=$!
status=0

# The site (every app build, the threaded tree, the staged pages), at the normal priority; then
# the browser checks, one browser at a time.
phase "build: WebAssembly site" build bash -c \
  'cmake --preset wasm-release >/dev/null && cmake --build --preset wasm-release -j "$0" --target site' "$jobs"
site=$?
echo "$site" >"$logs/site.done"
if [ "$site" = 0 ]; then
  phase "tests: browser (Chromium, Firefox, WebKit)" browser \
    run_ctest "--test-dir build/wasm/tests/web" wasm-browser -j "$jobs" -L browser || status=1
else
  status=1
fi
wait "$other_pid" || status=1
echo "== the other lane's output"
cat "$logs/other-lane.log"
report
if [ "$status" = 0 ]; then echo "test: all suites passed"; else echo "test: FAILED"; fi
exit "$status"
