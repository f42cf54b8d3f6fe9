// How the page loads and stays, in headless Chromium (WebGL2 on SwiftShader): no console error
// through every preset, step and language; an idle page sleeps; a first load's bytes on the
// wire; what the page says without SIMD, WebGL 2 or JavaScript; the offline copy; the font
// atlas kept between starts; and the build each browser gets (threads, relaxed SIMD).
//
//   node tests/web/load_test.mjs --site DIR CHECK... | all
//
// CHECK is one of the names in CHECKS below, or "all" to run every check in one browser
// (harness.mjs runChecks: "ok - ..." lines, "FAIL: CHECK: ..." for each failed check, exit 1 if
// any failed). Every check also fails on a console error or an uncaught page error (page.mjs
// runPageChecks).
import { fail, ok, startSiteServer } from "./harness.mjs";
import { TIMEOUT_MS, VIEWPORT, checkNoProblems, runPageChecks, setScenario, waitForFrames } from "./page.mjs";
import { decodePng } from "./png.mjs";

// Drives every preset through every step, head and batch item, both languages, and the
// events; the console must stay free of errors (checked after every check anyway).
async function checkConsole({ page }) {
  const presets = await page.evaluate(() => {
    const seen = [];
    for (const e of ["scenario", "step", "head", "view"]) {
      window.attentionPlayground.on(e, () => seen.push(e));
    }
    window.__apEvents = seen;
    return window.attentionPlayground.presets().map((p) => p.name);
  });
  for (const name of presets) {
    const r = await page.evaluate(async (name) => {
      const ap = window.attentionPlayground;
      const loaded = ap.loadPreset(name);
      if (!loaded.ok) return `loadPreset("${name}"): ${loaded.error}`;
      const s = ap.getScenario();
      for (let step = 0; step < 8; ++step) {
        const set = ap.setStep(step);
        if (!set.ok || set.step !== step) return `setStep(${step}) gave ${JSON.stringify(set)}`;
        for (let h = 0; h < (s.heads ?? 1); ++h) ap.focusHead(h);
        const drawn = await ap.frames(1);
        if (!drawn.ok) return `frames(1) at step ${step + 1}: ${drawn.error}`;
      }
      ap.setBatch(1);
      ap.getTrace();
      ap.getLink();
      return "";
    }, name);
    if (r) fail(r);
    checkNoProblems(page, `after preset ${name}`);
  }
  // Chinese: the page fetches the CJK font on the first switch.
  const fontLoaded = page.waitForResponse((r) => r.url().endsWith("/fonts/cjk.ttf"), { timeout: TIMEOUT_MS });
  await page.evaluate(() => window.attentionPlayground.setLanguage("zh"));
  const font = await fontLoaded;
  if (font.status() !== 200) fail(`fonts/cjk.ttf: HTTP ${font.status()}`);
  await waitForFrames(page);
  if ((await page.evaluate(() => window.attentionPlayground.getView().lang)) !== "zh") {
    fail("getView().lang is not zh after setLanguage(\"zh\")");
  }
  await page.evaluate(() => window.attentionPlayground.setLanguage("en"));
  await waitForFrames(page);
  const seen = await page.evaluate(() => [...new Set(window.__apEvents)].sort());
  for (const e of ["head", "scenario", "step"]) {
    if (!seen.includes(e)) fail(`no "${e}" event while presets, steps and heads changed (saw ${seen})`);
  }
  checkNoProblems(page, "after switching languages");
  ok(`no console errors: ${presets.length} presets × 8 steps, heads, batches, zh and en; ` +
     `events ${seen.join(", ")}`);
}

// A page left alone sleeps: over 10 s its main thread is busy at most 1% of the time and it
// draws no frame; a mouse move wakes it.
async function checkIdle({ page }) {
  await waitForFrames(page);
  // The frames after the last input settle (on a busy machine that takes a while): the page
  // has fallen asleep once no frame came for a second.
  await page.evaluate(async () => {
    const frames = () => window.attentionPlayground.stats().frames;
    for (let last = frames(), since = performance.now(), t0 = since; performance.now() - t0 < 20000;) {
      await new Promise((r) => setTimeout(r, 100));
      if (frames() !== last) last = frames(), since = performance.now();
      else if (performance.now() - since > 1000) return;
    }
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const metrics = async () =>
    Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const frames = () => page.evaluate(() => window.attentionPlayground.stats().frames);
  const a = await metrics(), f0 = await frames(), t0 = Date.now();
  await page.waitForTimeout(10000);
  const b = await metrics(), f1 = await frames(), seconds = (Date.now() - t0) / 1000;
  const busy = (b.TaskDuration - a.TaskDuration) / seconds;
  if (busy > 0.01) fail(`an idle page keeps its main thread busy ${(100 * busy).toFixed(2)}% of the time`);
  if (f1 !== f0) fail(`an idle page drew ${f1 - f0} frames in ${seconds.toFixed(1)} s`);
  await page.mouse.move(700, 450);
  await page.mouse.move(720, 460);
  await waitForFrames(page);
  ok(`idle: over ${seconds.toFixed(1)} s the idle page's main thread was busy ${(100 * busy).toFixed(2)}% ` +
     "of the time and drew no frame; a mouse move woke it");
}

// Bytes on the wire: a first English load (nothing cached) transfers at most 1.5 MB, the
// server sending the site's precompressed copies, the service worker's offline copy (the
// Chinese font included) counted in.
async function checkWire({ browser, url, pages }) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const requests = [];
    context.on("requestfinished", (r) => requests.push(r));  // the page's and the worker's
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
    await page.evaluate(() => window.attentionPlayground.ready);
    // Until the offline copy is complete.
    await page.waitForFunction(async () => {
      await navigator.serviceWorker.ready;
      const keys = await caches.keys();
      const key = keys.find((k) => k.startsWith("attention-playground-"));
      return key && (await (await caches.open(key)).match(new URL("fonts/cjk.ttf", location.href).href)) !== undefined;
    }, null, { timeout: TIMEOUT_MS, polling: 100 });
    await waitForFrames(page);
    let bytes = 0, pageBytes = 0;
    const byFile = new Map();
    for (const r of requests) {
      const sizes = await r.sizes();
      const n = sizes.responseBodySize + sizes.responseHeadersSize;
      bytes += n;
      if (!r.serviceWorker()) pageBytes += n;
      const path = new URL(r.url()).pathname;
      byFile.set(path, (byFile.get(path) ?? 0) + n);
    }
    const wasm = requests.find((r) => r.url().endsWith(".wasm") && !r.serviceWorker());
    const wasmEncoding = (await wasm?.response())?.headers()["content-encoding"];
    if (wasmEncoding !== "br") fail(`the .wasm came with Content-Encoding ${wasmEncoding}, expected br`);
    if (!requests.some((r) => r.serviceWorker())) fail("no request of the service worker was seen");
    const rows = [...byFile].filter(([, n]) => n >= 1024).map(([p, n]) => `${p} ${(n / 1024).toFixed(0)} KiB`);
    if (bytes > 1.5e6) fail(`a first English load transferred ${(bytes / 1e6).toFixed(2)} MB (> 1.5): ${rows.join(", ")}`);
    ok(`wire: a first English load transferred ${(bytes / 1e6).toFixed(2)} MB, the offline copy and the ` +
       `Chinese font included (the page itself ${(pageBytes / 1e6).toFixed(2)} MB): ${rows.join(", ")}`);
  } finally {
    await context.close();
  }
}

// Without WebAssembly SIMD, or without WebGL 2, the page says what to do: the setting or
// the hardware, not just "update your browser".
async function checkFallbacks({ browser, url, pages }) {
  const seen = [];
  for (const [what, stub, words] of [
    ["no SIMD", () => { const v = WebAssembly.validate; WebAssembly.validate = (b) => (b.length < 64 ? false : v(b)); },
     ["without SIMD", "switched off", "SSE4.1"]],
    ["no WebGL 2", () => { const g = HTMLCanvasElement.prototype.getContext;
                           HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
                             return kind === "webgl2" ? null : g.call(this, kind, ...rest); }; },
     ["WebGL 2 is not available", "hardware acceleration", "Use graphics acceleration"]],
  ]) {
    const page = await browser.newPage({ viewport: VIEWPORT });
    pages.push(page);
    page.problems = [];
    await page.addInitScript(stub);
    await page.goto(url);
    const text = await page.waitForFunction(() => {
      const o = document.getElementById("overlay") ?? document.querySelector(".error");
      return o && o.classList.contains("error") ? o.textContent : null;
    }, null, { timeout: TIMEOUT_MS }).then((h) => h.jsonValue());
    for (const w of words) {
      if (!text.toLowerCase().includes(w.toLowerCase())) fail(`${what}: the message does not say "${w}": ${text}`);
    }
    seen.push(`${what}: "${text.slice(0, 70)}…"`);
  }
  // In Chinese when the address says lang=zh.
  const zhPage = await browser.newPage({ viewport: VIEWPORT });
  pages.push(zhPage);
  zhPage.problems = [];
  await zhPage.addInitScript(() => { const g = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === "webgl2" ? null : g.call(this, kind, ...rest); }; });
  await zhPage.goto(`${url}?lang=zh`);
  const zhText = await zhPage.waitForFunction(() => {
    const o = document.getElementById("overlay");
    return o && o.classList.contains("error") ? o.textContent : null;
  }, null, { timeout: TIMEOUT_MS }).then((h) => h.jsonValue());
  if (!zhText.includes("WebGL 2 不可用") || !zhText.includes("硬件加速")) fail(`lang=zh, no WebGL 2: ${zhText}`);
  seen.push(`lang=zh: "${zhText.trim().split("\n").map((l) => l.trim()).filter(Boolean)[1]?.slice(0, 30)}…"`);
  ok(`fallbacks: ${seen.join("; ")}`);
}

// Offline after the first visit: the service worker has this build's files; offline, a
// reload opens the playground, 中文 gets its font from the cache, and the API answers; an
// address that asks for a build it does not keep (?simd=128, ?threads=1) opens with the kept
// one and says so (offlineOtherBuilds), on a page without and with cross-origin isolation.
async function checkOffline({ browser, url, opts }) {
  const site = opts.site;
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
  try {
    const page = await context.newPage();
    page.problems = [];
    page.on("pageerror", (e) => page.problems.push(e.message));
    await page.goto(`${url}?preset=padded_batch&step=6`);
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
    // The app build this page runs (threads on this isolated page, with relaxed SIMD where the
    // engine has it) is kept, the others not.
    const module = await page.evaluate(() => window.attentionPlayground.timing().module);
    const builds = { "threads-relaxed": "/attention-playground-threads-relaxed.wasm",
                     "threads": "/attention-playground-threads.wasm",
                     "relaxed-simd": "/attention-playground-relaxed.wasm",
                     "simd128": "/attention-playground.wasm" };
    const used = builds[module];
    const unusedBuilds = Object.values(builds).filter((f) => f !== used);
    let cached = null;
    for (let t0 = Date.now(); Date.now() - t0 < TIMEOUT_MS; await page.waitForTimeout(100)) {
      cached = await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.ready;
        const keys = await caches.keys();
        const key = keys.find((k) => k.startsWith("attention-playground-"));
        const files = key ? (await (await caches.open(key)).keys()).map((r) => new URL(r.url).pathname) : [];
        return { scope: reg.scope, keys, files };
      });
      if (cached.files.includes(used)) break;
    }
    const needed = ["/index.html", "/app.js", used, used.replace(".wasm", ".js"), "/fonts/cjk.ttf"];
    if (module.startsWith("threads")) needed.push(used.replace(".wasm", ".worker.js"));
    for (const f of needed) {
      if (!cached.files.includes(f)) fail(`the service worker's cache has no ${f}: ${cached.files}`);
    }
    for (const unused of unusedBuilds) {
      if (cached.files.includes(unused)) fail(`the service worker also keeps ${unused}, which this page does not run`);
    }
    await context.setOffline(true);
    const fromWorker = [];
    page.on("response", (r) => { if (r.fromServiceWorker()) fromWorker.push(new URL(r.url()).pathname); });
    await page.reload();
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
    await page.evaluate(() => window.attentionPlayground.setLanguage("zh"));
    await page.waitForFunction(() => window.attentionPlayground.getAccessible().title === "权重", null,
                               { timeout: TIMEOUT_MS });
    await waitForFrames(page);
    if (!fromWorker.includes("/fonts/cjk.ttf")) fail(`offline, the Chinese font did not come from the cache (${fromWorker})`);
    const trace = await page.evaluate(() => window.attentionPlayground.getTrace());
    if (!trace?.heads?.length) fail(`offline, getTrace() answered ${JSON.stringify(trace).slice(0, 200)}`);
    // Every label renders: the font has the glyphs of the lesson's Chinese (no blank boxes),
    // so the top bar's title is drawn in more than a handful of colours.
    const img = decodePng(await page.screenshot({ clip: { x: 0, y: 0, width: 400, height: 24 } }));
    const colours = new Set();
    for (let i = 0; i < img.pixels.length; i += 4) colours.add(img.pixels.slice(i, i + 3).join(","));
    if (colours.size < 20) fail(`offline in Chinese the top bar has ${colours.size} colours: no text drawn?`);
    if (page.problems.length) fail(`offline: ${page.problems.join("; ")}`);
    ok(`offline: the service worker (scope ${cached.scope}) caches ${cached.files.length} files (the ${module} build ` +
       `only); offline, a ` +
       `reload runs from it (${fromWorker.length} responses), 中文 gets its font from it, getTrace() answers`);
    const said = await offlineOtherBuilds(page, url, module);
    // The same where the page is cross-origin isolated (a threaded build is kept): ?threads=1
    // asks for one without threads, which it has never run.
    const isolated = await startSiteServer(site, { isolate: true });
    const isolatedContext = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
    try {
      const first = await isolatedContext.newPage();
      first.problems = [];
      first.on("pageerror", (e) => first.problems.push(e.message));
      await first.goto(isolated.url);
      await first.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
      const threaded = await first.evaluate(() => window.attentionPlayground.timing().module);
      if (!threaded.startsWith("threads")) fail(`on an isolated page the ${threaded} build runs, not a threaded one`);
      await keptInCache(first, `/${BUILD_FILES[threaded]}.wasm`);
      await isolatedContext.setOffline(true);
      said.push(...await offlineOtherBuilds(first, isolated.url, threaded));
    } finally {
      await isolatedContext.close();
      isolated.child.kill();
    }
    ok(`offline with another build asked for: ${said.join("; ")}`);
  } finally {
    await context.close();
  }
}

// The four builds' file stems and how the notice names them (web/js/builds.js BUILDS).
const BUILD_FILES = { "threads-relaxed": "attention-playground-threads-relaxed", "threads": "attention-playground-threads",
                      "relaxed-simd": "attention-playground-relaxed", "simd128": "attention-playground" };

const BUILD_WORDS = { "threads-relaxed": ["relaxed SIMD, threads", "relaxed SIMD，多线程"],
                      "threads": ["SIMD, threads", "SIMD，多线程"],
                      "relaxed-simd": ["relaxed SIMD, 1 thread", "relaxed SIMD，单线程"],
                      "simd128": ["SIMD, 1 thread", "SIMD，单线程"] };

// Until the service worker's cache has `file` (the page's build, kept once it runs).
async function keptInCache(page, file) {
  for (let t0 = Date.now(); Date.now() - t0 < TIMEOUT_MS; await page.waitForTimeout(100)) {
    const files = await page.evaluate(async () => {
      const key = (await caches.keys()).find((k) => k.startsWith("attention-playground-"));
      return key ? (await (await caches.open(key)).keys()).map((r) => new URL(r.url).pathname) : [];
    });
    if (files.includes(file)) return;
  }
  fail(`the service worker did not keep ${file} within ${TIMEOUT_MS / 1000} s`);
}

// Offline, with only the build `kept` in the offline copy: ?simd=128 and ?threads=1 (and
// ?simd=128 in Chinese) open the playground: it is ready and draws, and where the address
// asks for a build that is not kept, the kept one runs and a notice on screen says so in the
// UI's language (the notice's OK button among the drawn controls). Returns what was seen.
async function offlineOtherBuilds(page, base, kept) {
  const said = [];
  for (const [query, lang] of [["simd=128", "en"], ["threads=1", "en"], ["simd=128&lang=zh", "zh"]]) {
    const threads = kept.startsWith("threads") && !query.includes("threads=1");
    const relaxed = kept.includes("relaxed") && !query.includes("simd=128");
    const asked = threads ? (relaxed ? "threads-relaxed" : "threads") : (relaxed ? "relaxed-simd" : "simd128");
    await page.goto(`${base}?${query}`);
    try {
      await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
    } catch {
      const status = await page.evaluate(() => `${document.getElementById("status")?.textContent} ${document.getElementById("detail")?.textContent}`);
      fail(`offline, ?${query} (after a visit with the ${kept} build) did not open: "${status}"`);
    }
    await waitForFrames(page);
    const state = await page.evaluate(() => {
      const ap = window.attentionPlayground;
      return { module: ap.timing().module, notice: ap.stats().notice, frames: ap.stats().frames,
               ok: ap.items().some((i) => i.label === "OK" || i.label === "好") };
    });
    if (!state.ok) {  // the first items() call starts the record
      await waitForFrames(page);
      state.ok = await page.evaluate(() => window.attentionPlayground.items().some((i) => i.label === "OK" || i.label === "好"));
    }
    if (state.module !== kept) fail(`offline, ?${query} runs the ${state.module} build, not the kept ${kept}`);
    if (!(state.frames > 0)) fail(`offline, ?${query}: no frame drawn`);
    const trace = await page.evaluate(() => window.attentionPlayground.getTrace());
    if (!trace?.heads?.length) fail(`offline, ?${query}: getTrace() answered ${JSON.stringify(trace).slice(0, 200)}`);
    if (asked === kept) {
      if (state.notice !== "") fail(`offline, ?${query} asks for the kept build, yet a notice says ${JSON.stringify(state.notice)}`);
      said.push(`?${query}: the kept ${kept} build, no notice`);
      continue;
    }
    const [a, k] = [BUILD_WORDS[asked], BUILD_WORDS[kept]];
    const want = lang === "zh" ? `离线：运行的是这个浏览器保存的版本（${k[1]}），而不是地址要求的版本（${a[1]}）。`
                               : `Offline: the build this browser kept (${k[0]}) runs instead of the one asked for (${a[0]}).`;
    if (state.notice !== want) fail(`offline, ?${query}: the notice is ${JSON.stringify(state.notice)}, expected ${JSON.stringify(want)}`);
    if (!state.ok) fail(`offline, ?${query}: the notice's OK button is not drawn`);
    said.push(`?${query}: ${kept} instead of ${asked}, "${state.notice}"`);
  }
  if (page.problems.length) fail(`offline with another build: ${page.problems.join("; ")}`);
  return said;
}

// Without JavaScript (index.html's <noscript>, which loads web/noscript.css) the page is the
// sentence that asks for it, in English and Chinese, readable and uncovered, at a course
// iframe's 800×600 and a phone's 390×844: no loading card, no spinner turning, no empty canvas.
// A regression it catches: the sentence lay over the loading card, whose spinner turned for ever.
async function checkNoScript({ browser, url }) {
  const seen = [];
  for (const viewport of [{ width: 800, height: 600 }, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForLoadState("load");
      const where = `${viewport.width}x${viewport.height}`;
      const sentence = page.locator(".noscript");
      if (!(await sentence.isVisible())) fail(`${where}: without JavaScript the noscript sentence is not shown`);
      const text = await sentence.innerText();
      if (!text.includes("Please turn JavaScript on.") || !text.includes("请打开 JavaScript")) {
        fail(`${where}: the noscript card reads ${JSON.stringify(text)}`);
      }
      for (const hidden of [".spinner", "#overlay", "#status", "#canvas", "#table-toggle"]) {
        if (await page.locator(hidden).isVisible()) fail(`${where}: without JavaScript ${hidden} is shown`);
      }
      const state = await page.evaluate(() => {
        const card = document.querySelector(".noscript").getBoundingClientRect();
        // What is on top at the middle of each of the card's lines, and what animates.
        const covered = [...document.querySelectorAll(".noscript p")].map((p) => {
          const r = p.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return top === p || p.contains(top) ? null : (top?.id || top?.className || top?.tagName || "nothing");
        }).filter(Boolean);
        return { card: [card.left, card.top, card.right, card.bottom], covered,
                 animations: document.getAnimations().length,
                 fontSize: parseFloat(getComputedStyle(document.querySelector(".noscript p")).fontSize) };
      });
      const [x0, y0, x1, y1] = state.card;
      if (x0 < 0 || y0 < 0 || x1 > viewport.width || y1 > viewport.height) fail(`${where}: the noscript card ${state.card} is not inside the window`);
      if (state.covered.length) fail(`${where}: the noscript sentence is covered by ${state.covered.join(", ")}`);
      if (state.animations !== 0) fail(`${where}: without JavaScript ${state.animations} animations run (a spinner?)`);
      if (state.fontSize < 14) fail(`${where}: the noscript sentence is ${state.fontSize} px`);
      seen.push(`${where}: a ${Math.round(x1 - x0)}×${Math.round(y1 - y0)} card at (${Math.round(x0)}, ${Math.round(y0)})`);
    } finally {
      await context.close();
    }
  }
  ok(`noscript: without JavaScript only the sentence shows (en, zh), uncovered, nothing animated, no spinner, ` +
     `canvas or loading card; ${seen.join("; ")}`);
}

// The font atlas kept in IndexedDB (web/js/atlas.js, font_cache.h): a second start restores
// it instead of rasterising and draws the same pixels, in Chinese too without fetching
// fonts/cjk.ttf; a damaged kept atlas is refused, the page builds its own and keeps that.
async function checkKeptFonts({ browser, url }) {
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
  try {
    const page = await context.newPage();
    page.problems = [];
    page.on("pageerror", (e) => page.problems.push(e.message));
    page.on("console", (m) => { if (m.type() === "error") page.problems.push(m.text()); });
    const fonts = [];
    page.on("request", (r) => { if (r.url().includes("/fonts/")) fonts.push(new URL(r.url()).pathname); });
    const start = async (address) => {
      await page.goto(address);
      await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
      await waitForFrames(page);
      return page.evaluate(() => window.attentionPlayground.stats());
    };
    const kept = () => page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open("attention-playground", 1);
      open.onerror = () => resolve({});
      open.onsuccess = () => {
        const store = open.result.transaction("atlas").objectStore("atlas");
        const keys = store.getAllKeys(), all = store.getAll();
        all.onsuccess = () => {
          resolve(Object.fromEntries(keys.result.map((k, i) => [k, all.result[i].bytes.length])));
          open.result.close();
        };
      };
    }));
    const waitKept = async (name, what) => {
      for (let t0 = Date.now(); Date.now() - t0 < 10000; await page.waitForTimeout(100)) {
        const k = await kept();
        if (k[name] > 100000) return k[name];
      }
      fail(`${what}: no atlas kept as ${name} within 10 s (${JSON.stringify(await kept())})`);
    };
    // The top bar and the centre panel: everything but the last recompute's time.
    const picture = async () => (await page.screenshot({ clip: { x: 262, y: 0, width: VIEWPORT.width - 262,
                                                                 height: VIEWPORT.height } })).toString("base64");
    const address = `${url}?preset=padded_batch&step=6`;
    const first = await start(address);
    if (first.font_atlas_restored) fail("a first start restored a font atlas from an empty IndexedDB");
    const size = await waitKept("latin@100", "after a first start");
    const built = await picture();
    const second = await start(address);
    if (!second.font_atlas_restored) fail(`the second start built its atlas again (${second.font_atlas_ms} ms)`);
    if (await picture() !== built) fail("the restored atlas draws other pixels than the built one");
    // Chinese: built once from fonts/cjk.ttf, then restored with no font fetched.
    await page.evaluate(() => window.attentionPlayground.setLanguage("zh"));
    await page.waitForFunction(() => window.attentionPlayground.stats().font_atlas_cjk, null, { timeout: TIMEOUT_MS });
    await waitForFrames(page);
    const zhBuilt = await page.evaluate(() => window.attentionPlayground.stats());
    if (zhBuilt.font_atlas_restored) fail("the first Chinese atlas was restored, not built");
    if (!fonts.includes("/fonts/cjk.ttf")) fail(`the first switch to Chinese fetched no cjk.ttf (${fonts})`);
    await waitKept("cjk@100", "after switching to Chinese");
    const zhPicture = await picture();
    fonts.length = 0;
    await start(`${address}&lang=zh`);
    await page.waitForFunction(() => window.attentionPlayground.stats().font_atlas_cjk, null, { timeout: TIMEOUT_MS });
    await waitForFrames(page);
    const zhKept = await page.evaluate(() => window.attentionPlayground.stats());
    if (!zhKept.font_atlas_restored) fail("reopened in Chinese, the atlas was built again");
    if (fonts.includes("/fonts/cjk.ttf")) fail("reopened in Chinese with a kept atlas, the page still fetched cjk.ttf");
    if (await picture() !== zhPicture) fail("the restored Chinese atlas draws other pixels than the built one");
    // A damaged kept atlas: refused, the atlas is built, and a whole one is kept in its place.
    await page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open("attention-playground", 1);
      open.onsuccess = () => {
        const tx = open.result.transaction("atlas", "readwrite");
        const bytes = new Uint8Array(5000).fill(7);
        bytes.set([65, 80, 70, 65, 1, 0, 0, 0]);  // "APFA", version 1, then nonsense
        tx.objectStore("atlas").put({ bytes, time: Date.now() }, "latin@100");
        tx.oncomplete = () => { open.result.close(); resolve(); };
      };
    }));
    const damaged = await start(address);
    if (damaged.font_atlas_restored) fail("a damaged kept atlas was restored");
    if (await picture() !== built) fail("after a damaged kept atlas the page draws other pixels");
    const replaced = await waitKept("latin@100", "after a damaged kept atlas");
    if (page.problems.length) fail(`kept fonts: ${page.problems.join("; ")}`);
    ok(`kept fonts: the Latin atlas (${(size / 1048576).toFixed(1)} MB) takes ${second.font_atlas_ms.toFixed(1)} ms ` +
       `restored against ${first.font_atlas_ms.toFixed(1)} ms built; the Chinese one ${zhKept.font_atlas_ms.toFixed(1)} ` +
       `against ${zhBuilt.font_atlas_ms.toFixed(1)} ms, without fetching cjk.ttf; the same pixels both ways; a damaged ` +
       `one is refused and replaced (${(replaced / 1048576).toFixed(1)} MB)`);
  } finally {
    await context.close();
  }
}

// The four app builds: where the page is cross-origin isolated, a threaded one (unless
// ?threads=1), else one without threads; in each pair, where relaxed SIMD validates, the
// relaxed-SIMD kernels (cmake/Relaxed.cmake); with ?simd=128, or where it does not validate (a
// stubbed validate, as an older engine answers), the SIMD128 ones. The threads change no bit
// (either kernels); relaxed SIMD gives the same trace as SIMD128 within float32 rounding.
async function checkModules({ browser, url, opts, pages }) {
  // The same site served with COOP and COEP (what serve.mjs sends by default): cross-origin isolated.
  const isolated = await startSiteServer(opts.site, { isolate: true });
  try {
    await checkModulesOn({ browser, url, isolatedUrl: isolated.url, pages });
  } finally {
    isolated.child.kill();
  }
}

async function checkModulesOn({ browser, url, isolatedUrl, pages }) {
  // 200 queries in two heads: several of the core's 64-row tasks per head, so that in the
  // threaded build the work is really spread, and a causal mask.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const scenario = {
    version: 1, scoring: "scaled_dot", causal: true, heads: 2, init: { seed: 5, d_model: 8 },
    x: Array.from({ length: 200 }, () => Array.from({ length: 8 }, () => Number(random().toFixed(4)))),
  };
  const outputs = {};
  const threadCounts = {};
  const taskCounts = {};
  for (const [what, base, query, stub, want] of [
    ["isolated", isolatedUrl, "", false, "threads-relaxed"],
    ["isolated, no relaxed SIMD", isolatedUrl, "", true, "threads"],
    ["isolated, ?threads=1", isolatedUrl, "&threads=1", false, "relaxed-simd"],
    ["not isolated", url, "", false, "relaxed-simd"],
    ["?simd=128", url, "&simd=128", false, "simd128"],
    ["no relaxed SIMD", url, "", true, "simd128"],
  ]) {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: "reduce" });
    pages.push(page);
    page.problems = [];
    page.on("pageerror", (e) => page.problems.push(`page error: ${e.message}`));
    if (stub) {
      await page.addInitScript(() => {
        const validate = WebAssembly.validate;
        // The relaxed-SIMD probe is the only 82-byte module the page validates.
        WebAssembly.validate = (bytes) => (bytes.length === 82 ? false : validate(bytes));
      });
    }
    await page.goto(`${base}?preset=multi_head&step=6${query}`);
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS });
    const module = await page.evaluate(() => window.attentionPlayground.timing().module);
    if (module !== want) fail(`${what}: the page runs the ${module} build, expected ${want}`);
    const isolated = await page.evaluate(() => window.crossOriginIsolated);
    if (isolated !== (base === isolatedUrl)) fail(`${what}: crossOriginIsolated is ${isolated}`);
    await setScenario(page, scenario, `${what}: 200 × 8, two heads, causal`);
    const r = await page.evaluate(() => ({
      trace: window.attentionPlayground.getTrace(),
      threads: window.attentionPlayground.stats().threads,
      cores: navigator.hardwareConcurrency,
    }));
    if (!r.trace?.output) fail(`${what}: getTrace() answered ${JSON.stringify(r.trace).slice(0, 200)}`);
    const wantThreads = want.startsWith("threads") ? Math.min(8, r.cores) : 1;
    if (r.threads !== wantThreads) fail(`${what}: the core runs on ${r.threads} threads, expected ${wantThreads} (${r.cores} cores)`);
    outputs[what] = r.trace.output.flat(Infinity);
    threadCounts[what] = r.threads;
    // The threads really share the work: the workers load the module while the page starts
    // (they do not hold up its first frame), then take tasks. 512 queries in 4 heads are
    // 32 tasks of about 0.1 ms; a few tries leave a worker time to wake.
    let workerTasks = await page.evaluate(() => window.attentionPlayground.stats().worker_tasks);
    if (want.startsWith("threads")) {
      const wide = { ...scenario, heads: 4, init: { seed: 1, d_model: 64 },
                     x: Array.from({ length: 512 }, () => Array.from({ length: 32 }, () => Number(random().toFixed(3)))) };
      for (let i = 0; i < 10 && workerTasks === 0; ++i) {
        await setScenario(page, { ...wide, init: { ...wide.init, seed: i + 1 } }, `${what}: 512 × 32, four heads`);
        workerTasks = await page.evaluate(() => window.attentionPlayground.stats().worker_tasks);
      }
      if (!(workerTasks > 0)) fail(`${what}: the core's workers took no task in 10 runs of 512 queries × 4 heads`);
    } else if (workerTasks !== 0) {
      fail(`${what}: ${workerTasks} tasks ran on workers in a build without threads`);
    }
    taskCounts[what] = workerTasks;
  }
  const compare = (x, y) => {
    const a = outputs[x], b = outputs[y];
    if (a.length !== b.length || a.length === 0) fail(`${x} and ${y}: outputs of ${a.length} and ${b.length} numbers`);
    return Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.max(1, Math.abs(b[i]))));
  };
  // Each threaded build runs the same kernels as its single-thread twin: the same bits.
  const threadsGap = compare("isolated, no relaxed SIMD", "?simd=128");
  if (threadsGap !== 0) fail(`the threaded and the single-thread SIMD128 builds' outputs differ by ${threadsGap}`);
  const threadsRelaxedGap = compare("isolated", "not isolated");
  if (threadsRelaxedGap !== 0) fail(`the threaded and the single-thread relaxed-SIMD builds' outputs differ by ${threadsRelaxedGap}`);
  const relaxedGap = compare("not isolated", "?simd=128");
  if (!(relaxedGap <= 1e-5)) fail(`the relaxed-SIMD and SIMD128 builds' outputs differ by ${relaxedGap} (> 1e-5)`);
  ok(`modules: threads where the page is isolated (${threadCounts.isolated} threads; ${taskCounts.isolated} and ` +
     `${taskCounts["isolated, no relaxed SIMD"]} tasks on the workers of the relaxed-SIMD and SIMD128 builds) unless ` +
     `?threads=1; relaxed SIMD where it validates, SIMD128 with ?simd=128 and where it does not; 200 queries × 2 heads: ` +
     `threads and one thread the same bits, relaxed SIMD within ${relaxedGap.toExponential(1)} of SIMD128`);
}

const CHECKS = {
  console: checkConsole,
  idle: checkIdle,
  wire: checkWire,
  fallbacks: checkFallbacks,
  offline: checkOffline,
  noscript: checkNoScript,
  "kept-fonts": checkKeptFonts,
  modules: checkModules,
};

// Each check's title in the test list (tests/web/CMakeLists.txt reads them with --list).
const TITLES = {
  console: "no console errors",
  idle: "an idle page sleeps",
  wire: "a first load transfers at most 1.5 MB, compressed",
  fallbacks: "without SIMD or WebGL 2 the page names the setting or the hardware",
  offline: "after a first visit the playground opens offline, in Chinese too, with another build asked for",
  noscript: "without JavaScript the page is the sentence asking for it, no spinner",
  "kept-fonts": "a second start restores the font atlas and draws the same pixels",
  modules: "threads where the page is isolated, relaxed SIMD where it validates, the same trace",
};

// "console" runs with the animations (openPage).
await runPageChecks(CHECKS, { titles: TITLES, motion: ["console"] });
