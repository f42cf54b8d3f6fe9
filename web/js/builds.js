// Which build of the playground this browser runs (SIMD128 or relaxed SIMD, with or without
// threads), the one kept offline when the one asked for cannot be loaded, and what the page says
// when the browser lacks what every build needs (WebAssembly, SIMD, WebGL 2).
import { PRODUCT } from "./table_view.js";


// The smallest module that uses SIMD128: (func (result v128) (v128.const i32x4 0 0 0 0)).
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00, 0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b,
]);

// The smallest module that uses relaxed SIMD's final opcodes: (func (result v128)
// (f32x4.relaxed_madd (v128.const 0) (v128.const 0) (v128.const 0))). Where it validates
// (Chromium 114+), the page loads the build whose kernels use it (attention-playground-relaxed,
// cmake/Relaxed.cmake); elsewhere, or with ?simd=128, the SIMD128 build.
const v128Zero = [0xfd, 0x0c, ...new Array(16).fill(0)];
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00, 0x0a, 0x3d, 0x01, 0x3b, 0x00, ...v128Zero, ...v128Zero, ...v128Zero,
  0xfd, 0x85, 0x02, 0x0b,
]);
// Where the page is cross-origin isolated (its server sends COOP and COEP, as
// scripts/serve.mjs does) a threaded build runs instead (the core's work spread over up to 8
// threads, the same results as one thread): with the relaxed-SIMD kernels where they
// validate, else (or with ?simd=128) the SIMD128 ones; ?threads=1 opts out. An embedding
// page that is not isolated gets a build without threads and loses nothing else.
// crossOriginIsolated alone is not enough: WebKitGTK (2.50) reports it true yet has no
// SharedArrayBuffer global and refuses to post shared memory (DataCloneError), since it never
// starts JSC with useSharedArrayBuffer as Safari does for an isolated page
// (tests/web/webkit_test.mjs); the threaded build would fail there, so keep both tests.
export function threadsAllowed(param) {
  return window.crossOriginIsolated === true && typeof SharedArrayBuffer === "function" &&
         param("threads") !== "1";
}
// The four builds by name (what timing().module reports): the stem of their files, and how
// the offline notice names them (fallbackNotice).
export const BUILDS = {
  "threads-relaxed": { stem: "attention-playground-threads-relaxed",
                       en: "relaxed SIMD, threads", zh: "relaxed SIMD，多线程" },
  "threads": { stem: "attention-playground-threads", en: "SIMD, threads", zh: "SIMD，多线程" },
  "relaxed-simd": { stem: "attention-playground-relaxed", en: "relaxed SIMD, 1 thread", zh: "relaxed SIMD，单线程" },
  "simd128": { stem: "attention-playground", en: "SIMD, 1 thread", zh: "SIMD，单线程" },
};
// A build: its name, its script and every file it loads (what the offline copy keeps).
export function namedBuild(name) {
  const { stem } = BUILDS[name];
  return {
    name,
    script: `${stem}.js`,
    files: [`${stem}.js`, `${stem}.wasm`, ...(name.startsWith("threads") ? [`${stem}.worker.js`] : [])],
  };
}
export function relaxedValidates() {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}
// The build this page runs (param: the address's parameters, params.js readParams).
export function moduleBuild(param) {
  const relaxed = relaxedValidates() && param("simd") !== "128";
  if (threadsAllowed(param)) return namedBuild(relaxed ? "threads-relaxed" : "threads");
  return namedBuild(relaxed ? "relaxed-simd" : "simd128");
}
// Offline, the build the address asks for (?simd=128, ?threads=1) may not be in the offline
// copy, which keeps only the builds that ran here (sw.js): then one that is kept runs
// instead, if this browser can run it (threads where the page is isolated, relaxed SIMD where
// it validates), the nearest to the one asked for first. Null when none is kept.
export async function keptBuild(asked) {
  if (!window.caches || !navigator.serviceWorker?.controller) return null;
  const threads = window.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";
  const relaxed = relaxedValidates();
  const distance = (name) => (name.startsWith("threads") !== asked.name.startsWith("threads") ? 2 : 0) +
                             (name.includes("relaxed") !== asked.name.includes("relaxed") ? 1 : 0);
  const candidates = Object.keys(BUILDS)
    .filter((name) => name !== asked.name && (threads || !name.startsWith("threads")) &&
                      (relaxed || !name.includes("relaxed")))
    .sort((a, b) => distance(a) - distance(b));
  for (const name of candidates) {
    const build = namedBuild(name);
    const hits = await Promise.all(build.files.map((f) => caches.match(new URL(f, location.href).href)));
    if (hits.every(Boolean)) return build;
  }
  return null;
}
// What the page says when `asked` could not be loaded and `kept` (keptBuild) runs instead.
export function fallbackNotice({ asked, kept }, lang) {
  const a = BUILDS[asked.name], k = BUILDS[kept.name];
  if (lang === "zh") {
    return navigator.onLine === false
      ? `离线：运行的是这个浏览器保存的版本（${k.zh}），而不是地址要求的版本（${a.zh}）。`
      : `地址要求的版本（${a.zh}）无法加载；运行的是这个浏览器保存的版本（${k.zh}）。`;
  }
  return navigator.onLine === false
    ? `Offline: the build this browser kept (${k.en}) runs instead of the one asked for (${a.en}).`
    : `The build asked for (${a.en}) could not be loaded; the build this browser kept (${k.en}) runs instead.`;
}

// In Chinese when the address asks for it (lang=zh) or, without lang=, the browser's
// language is Chinese: what the page says before the app (and its texts) is running. Null when
// nothing is missing, else [sentence, what to do].
export function missingFeature(param) {
  const missing = missingFeatureEn();
  const zh = (param("lang") ?? navigator.language ?? "").toLowerCase().startsWith("zh");
  if (!missing || !zh) return missing;
  document.documentElement.lang = "zh-CN";
  for (const title of document.querySelectorAll("#page-title, #overlay .title")) title.textContent = PRODUCT.zh;
  return ZH_FALLBACKS[missing[0]] ?? missing;
}
const ZH_FALLBACKS = {
  "This browser cannot run WebAssembly.": ["这个浏览器不能运行 WebAssembly。",
    "请用新版的 Firefox、Chrome、Edge 或 Safari 打开这个页面。"],
  "This browser runs WebAssembly without SIMD, which the playground needs.": [
    "这个浏览器运行 WebAssembly 时没有 SIMD，而游乐场需要它。",
    "所有新版浏览器都支持它（Chrome 和 Edge 91+、Firefox 89+、Safari 16.4+）。如果你的浏览器是新版，" +
    "那么它被关掉了：可能是某个设置（Firefox 的 about:config 里的 javascript.options.wasm_simd）、" +
    "锁定或增强安全模式，或者单位的策略；也可能是处理器缺少所需的指令（x86 上的 SSE4.1）。" +
    "换一台电脑或换一个浏览器就可以。"],
  "WebGL 2 is not available, and the heatmaps are drawn with it.": [
    "WebGL 2 不可用，而热力图是用它画的。",
    "多半是硬件加速被关掉了：Chrome 或 Edge 在 设置 → 系统 → “使用图形加速（如果可用）”；" +
    "Firefox 在 设置 → 常规 → 性能 → “使用硬件加速（如可用）”（以及 about:config 里的 " +
    "webgl.disabled）。改完后重启浏览器。如果它已经打开，可能是显卡驱动被屏蔽了：更新驱动或换一个浏览器会有帮助。"],
};
function missingFeatureEn() {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.validate !== "function") {
    return ["This browser cannot run WebAssembly.",
            "Please open the page in a current version of Firefox, Chrome, Edge or Safari."];
  }
  if (!WebAssembly.validate(SIMD_PROBE)) {
    return ["This browser runs WebAssembly without SIMD, which the playground needs.",
            "Every current browser has it (Chrome and Edge 91+, Firefox 89+, Safari 16.4+). " +
            "If yours is current, it is switched off: by a setting (Firefox's " +
            "javascript.options.wasm_simd in about:config), by a locked-down or enhanced " +
            "security mode, or by your organisation's policy; or the processor lacks the " +
            "instructions it needs (SSE4.1 on x86). Another computer or browser will work."];
  }
  const probe = document.createElement("canvas");
  if (!probe.getContext("webgl2")) {
    return ["WebGL 2 is not available, and the heatmaps are drawn with it.",
            "Hardware acceleration is probably off: in Chrome or Edge, Settings → System → " +
            "\"Use graphics acceleration when available\"; in Firefox, Settings → General → " +
            "Performance → \"Use hardware acceleration when available\" (and webgl.disabled " +
            "in about:config). Then restart the browser. If it is on, the graphics driver " +
            "may be blocked: updating it, or another browser, helps."];
  }
  return null;
}
