#!/usr/bin/env bash
# Installs everything the project builds and tests with, idempotently, as root on Debian 12.
# Debian packages via apt, Dear ImGui 1.86 from Debian's source package into .cache/,
# and the npm dev dependencies (playwright-core, puppeteer-core, axe-core) from
# package-lock.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache"

packages=(
  build-essential cmake ninja-build git ca-certificates xz-utils
  ccache  # the compiler cache every tree compiles through (cmake/Common.cmake)
  emscripten
  libeigen3-dev libglfw3-dev catch2 libsimde-dev nlohmann-json3-dev
  libgl-dev chromium firefox-esr xvfb xauth libgl1-mesa-dri libglx-mesa0 python3-numpy
  webkit2gtk-driver  # WebKit, Safari's engine: WebKitWebDriver and libwebkit2gtk-4.1's MiniBrowser (tests/web/webkit_test.mjs)
  python3-fonttools fonts-dejavu-core fonts-wqy-microhei
  clang-14 libclang-rt-14-dev  # libFuzzer and the sanitizers' runtimes for the fuzz preset
  clang-19  # the relaxed-SIMD kernels' final opcodes (cmake/Relaxed.cmake); emscripten's clang 14 has only the pre-standard ones
  tesseract-ocr tesseract-ocr-chi-sim  # the browser checks read what the screen shows (tests/web/ocr.mjs)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from elsewhere (NodeSource's nodejs ships npm and conflicts with
# Debian's npm package); install Debian's only when the commands are missing.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Dear ImGui from Debian's source package (the binary package has no imgui*.cpp).
imgui_dir="$cache/imgui/imgui-1.86"
if [ ! -f "$imgui_dir/imgui.cpp" ]; then
  d="$cache/imgui"
  mkdir -p "$d/lists/partial"
  cat >"$d/src.sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$d" -o "Dir::State::Lists=$d/lists")
  apt-get "${o[@]}" update
  (cd "$d" && apt-get "${o[@]}" source --download-only imgui)
  tarball=$(ls "$d"/imgui_1.86*.orig.tar.* 2>/dev/null | head -n 1 || true)
  if [ -z "$tarball" ]; then
    echo "setup: error: Debian's imgui 1.86 source package was not downloaded into $d" >&2
    exit 1
  fi
  tar -xf "$tarball" -C "$d"
  if [ ! -f "$imgui_dir/imgui.cpp" ] || [ ! -f "$imgui_dir/backends/imgui_impl_glfw.cpp" ]; then
    echo "setup: error: $imgui_dir/imgui.cpp or its GLFW backend is missing after unpacking $tarball" >&2
    exit 1
  fi
fi

# npm dev dependencies (playwright-core drives Debian's chromium, puppeteer-core its
# firefox-esr; neither downloads a browser).
if [ -f "$root/package-lock.json" ]; then
  if [ ! -d "$root/node_modules/playwright-core" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
    (cd "$root" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
fi
echo "setup: ok"
