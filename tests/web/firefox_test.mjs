// The playground in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by npm's
// puppeteer-core): it loads and draws, every preset's trace equals the native CLI's, the table
// view is used from the keyboard alone (checkKeyboard), and the course page's postMessage
// calls are answered. Firefox needs an X display for WebGL 2: run
// under xvfb-run (tests/web/CMakeLists.txt does).
//
//   node tests/web/firefox_test.mjs --site DIR --cli attention-cli --presets DIR
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename, join } from "node:path";
import puppeteer from "puppeteer-core";
import { CheckFailure, compareJson, fail, ok, startSiteServer } from "./harness.mjs";
import { decodePng } from "./png.mjs";

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const site = option("--site"), cli = option("--cli"), presets = option("--presets");
const FIREFOX = process.env.AP_FIREFOX ?? "/usr/bin/firefox-esr";
const READY_MS = 90000;

let server = null, parentServer = null, isolated = null, browser = null, status = 0;

// Firefox's remote agent now and then loses a browsing context for a moment after a navigation
// ("Protocol error (script.callFunction): … e is undefined", seen once in CI): keep every
// evaluate short and try it again a few times before calling it a failure.
async function evaluate(page, fn, ...args) {
  for (let attempt = 1; ; ++attempt) {
    try {
      return await page.evaluate(fn, ...args);
    } catch (e) {
      const transient = /Protocol error|context|destroyed|detached|undefined/i.test(String(e?.message));
      if (!transient || attempt >= 6) throw e;
      console.log(`note: firefox: evaluate failed (${String(e.message).split("\n")[0].slice(0, 120)}); trying again`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
// Waits until `fn` (a short evaluate) is true in the page, across the navigation under way.
async function until(page, fn, what) {
  const t0 = Date.now();
  for (;;) {
    const yes = await page.evaluate(fn).catch(() => false);
    if (yes) return;
    if (Date.now() - t0 > READY_MS) fail(`firefox: ${what}: not within ${READY_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Cross-origin isolated (COOP and COEP, as serve.mjs sends them by default): the threaded
// build on every thread the machine offers (up to 8), its trace the CLI's; and with the
// offline copy's service worker in charge, a reload and a link still open new pages (Firefox
// 153 aborted them while the thread workers lived: web_api.cpp, ap_end_threads).
async function checkIsolated(page) {
  isolated = await startSiteServer(site, { isolate: true });
  await page.goto(`${isolated.url}?preset=causal_decoder`);
  const fresh = () => !window.ffOld && window.attentionPlayground?.isReady === true;
  await until(page, fresh, "the isolated page");
  const first = await evaluate(page, () => ({
    isolated: window.crossOriginIsolated, module: window.attentionPlayground.timing().module,
    threads: window.attentionPlayground.stats().threads, cores: navigator.hardwareConcurrency,
  }));
  const want = Math.min(Math.max(1, first.cores || 1), 8);
  // A threaded build: with relaxed-SIMD kernels where this Firefox validates them.
  const threadsBuild = /^threads(-relaxed)?$/;
  if (!first.isolated || !threadsBuild.test(first.module) || first.threads !== want) {
    fail(`firefox: isolated page: ${JSON.stringify(first)}, expected a threads build on ${want} threads`);
  }
  const file = join(presets, "causal_decoder.json");
  const trace = await evaluate(page, () => window.attentionPlayground.getTrace());
  const ref = JSON.parse(execFileSync(cli, ["eval", file], { encoding: "utf8", maxBuffer: 1 << 28 }));
  const cmp = compareJson(trace, ref, { tolerance: 1e-5, path: "trace", refName: "the CLI" });
  if (cmp.problem) fail(`firefox: isolated causal_decoder: ${cmp.problem}`);
  await until(page, () => navigator.serviceWorker?.controller != null, "the service worker in charge");
  for (const [how, go] of [
    ["a reload", () => setTimeout(() => location.reload(), 10)],
    ["a link", (u) => setTimeout(() => { location.href = u; }, 10)],
  ]) {
    await evaluate(page, () => { window.ffOld = true; });
    await evaluate(page, go, `${isolated.url}?preset=multi_head`);
    await until(page, fresh, `${how} on the isolated page with its service worker`);
    const module = await evaluate(page, () => window.attentionPlayground.timing().module);
    if (module !== first.module) fail(`firefox: after ${how} the isolated page runs ${module}, first ${first.module}`);
  }
  ok(`firefox: isolated, the ${first.module} build on ${first.threads} threads (trace = the CLI's, largest relative ` +
     `difference ${cmp.worst.toExponential(2)}); with its service worker, a reload and a link open new pages`);
}

// The playground from the keyboard alone (keyboard_test.mjs's table-focus in
// Chromium): page.keyboard.press only, nothing clicked or focused by the test. The table
// view's button, Enter opens the view, Enter answers the question (the focus on its verdict),
// ↓ on the step, Space on the causal mask, Escape back to the canvas; no key leaves the
// focus on <body>.
const SETTLE_FRAMES = 3;  // the app's events come a frame or more after a key, then the view redraws
async function checkKeyboard(page, url) {
  const t0 = Date.now();
  await page.goto(`${url}?preset=why_so_tall&step=3`);
  await page.waitForFunction(() => window.attentionPlayground?.isReady === true, { timeout: READY_MS, polling: 200 });
  const ap = (fn) => evaluate(page, fn);
  const focused = () => ap(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return "<body>";
    return e.id ? `#${e.id}` : e.dataset?.key ? `[data-key="${e.dataset.key}"]` : e.tagName.toLowerCase();
  });
  const done = [];
  let at = await focused(), tabs = 0;
  const press = async (key, name, what) => {
    const from = at;
    if (key === "Tab") ++tabs;
    await page.keyboard.press(key);
    at = await focused();
    if (at === "<body>") fail(`firefox: keyboard: ${name} (${what}) moved the focus from ${from} to <body>`);
    return from;
  };
  const tabTo = async (want, what, max) => {
    const passed = [];
    for (let k = 0; k < max; ++k) {
      await press("Tab", "Tab", `towards ${what}`);
      if (want(at)) return at;
      passed.push(at);
    }
    fail(`firefox: keyboard: ${max} presses of Tab never reached ${what} (passed ${passed.join(" ")})`);
  };
  // A key that acts: the focus must be on `want` at once and SETTLE_FRAMES drawn frames later.
  const act = async (key, name, want, what) => {
    const from = await press(key, name, what);
    for (const when of ["at once", `${SETTLE_FRAMES} frames`]) {
      if (when !== "at once") {
        await evaluate(page, (n) => window.attentionPlayground.frames(n), SETTLE_FRAMES);
        at = await focused();
      }
      if (at !== want) fail(`firefox: keyboard: ${when} after ${name} on ${from} (${what}) the focus is on ${at}, not ${want}`);
    }
    done.push(`${name} ${what}`);
  };
  await tabTo((n) => n === "#table-toggle", "the table view's button", 8);
  await act("Enter", "Enter", "#a11y", "opens the table view");
  if (!(await ap(() => document.getElementById("a11y").classList.contains("shown")))) fail("firefox: keyboard: Enter left the table view closed");
  const key = await tabTo((n) => n.startsWith('[data-key="q0 key'), "the question's answers", 40);
  await act("Enter", "Enter", '[data-key="q0 verdict"]', `on ${key} answers`);
  const quiz = await ap(() => window.attentionPlayground.getQuiz()[0]);
  if (quiz?.answered !== true) fail(`firefox: keyboard: Enter on ${key} left the question unanswered: ${JSON.stringify(quiz).slice(0, 200)}`);
  await tabTo((n) => n === "#a11y-control-step", "the step setting", 40);
  const step0 = await ap(() => window.attentionPlayground.getView().step);
  await act("ArrowDown", "↓", "#a11y-control-step", "the next step");
  const step1 = await ap(() => window.attentionPlayground.getView().step);
  if (step0 !== 2 || step1 !== 3) fail(`firefox: keyboard: ?step=3 showed 0-based step ${step0} and ↓ ${step1}, not 2 then 3`);
  await tabTo((n) => n === "#a11y-control-causal", "the causal mask", 20);
  await act(" ", "Space", "#a11y-control-causal", "the causal mask");
  if ((await ap(() => window.attentionPlayground.getScenario().causal)) !== true) fail("firefox: keyboard: Space left the causal mask off");
  await act("Escape", "Escape", "#canvas", "closes the view");
  if (await ap(() => document.getElementById("a11y").classList.contains("shown"))) fail("firefox: keyboard: Escape left the table view open");
  ok(`firefox: from the keyboard alone (${tabs} Tabs, which reach every button and control), the focus kept ${SETTLE_FRAMES} frames ` +
     `after each key and never on <body>: ${done.join(", ")} (step ${step0 + 1} → ${step1 + 1}; ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

const watchdog = setTimeout(() => {
  console.error("FAIL: firefox: no result within 6 minutes");
  process.exit(1);
}, 360000);
try {
  if (!existsSync(FIREFOX)) fail(`no Firefox at ${FIREFOX} (scripts/setup.sh installs firefox-esr)`);
  if (!cli || !existsSync(cli)) fail(`the native attention-cli is missing (${cli})`);
  server = await startSiteServer(site);
  browser = await puppeteer.launch({
    browser: "firefox", executablePath: FIREFOX, headless: true,
    extraPrefsFirefox: { "devtools.console.stdout.content": true },
    args: ["--width=1280", "--height=800"],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const warnings = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
    if (m.type() === "warn" || m.type() === "warning") warnings.push(m.text());
  });

  // Loads and draws.
  const t0 = Date.now();
  await page.goto(`${server.url}?preset=padded_batch&step=6`);
  await page.waitForFunction(() => window.attentionPlayground?.isReady === true, { timeout: READY_MS, polling: 200 });
  // Three frames drawn (frames(n) wakes an idle page): the step's picture is on the canvas.
  const drawn = await evaluate(page, () => window.attentionPlayground.frames(3));
  if (!drawn?.ok) fail(`firefox: frames(3): ${JSON.stringify(drawn)}`);
  const img = decodePng(await page.screenshot());
  const colours = new Set();
  for (let i = 0; i < img.pixels.length; i += 16) colours.add(img.pixels.slice(i, i + 3).join(","));
  if (colours.size < 200) fail(`firefox: the page drew ${colours.size} colours: blank?`);
  const version = await browser.version();
  ok(`firefox: ${version} runs the playground (ready in ${Date.now() - t0} ms, ${colours.size} colours drawn)`);

  // Every preset's trace equals the native CLI's.
  const files = readdirSync(presets).filter((f) => f.endsWith(".json")).sort();
  let worst = 0;
  for (const f of files) {
    const scenario = JSON.parse(readFileSync(join(presets, f), "utf8"));
    const trace = await evaluate(page, (s) => {
      const r = window.attentionPlayground.setScenario(s);
      return r.ok ? window.attentionPlayground.getTrace() : { error: r.error };
    }, scenario);
    if (trace.error) fail(`firefox: setScenario(${f}): ${trace.error}`);
    const ref = JSON.parse(execFileSync(cli, ["eval", join(presets, f)], { encoding: "utf8", maxBuffer: 1 << 28 }));
    const cmp = compareJson(trace, ref, { tolerance: 1e-5, path: "trace", refName: "the CLI" });
    if (cmp.problem) fail(`firefox: ${basename(f, ".json")}: ${cmp.problem}`);
    worst = Math.max(worst, cmp.worst);
  }
  ok(`firefox: the traces of ${files.length} presets equal the native CLI's (largest relative difference ${worst.toExponential(2)})`);
  await checkKeyboard(page, server.url);

  // The course page: its playgrounds answer postMessage calls.
  await page.goto(`${server.url}examples/course.html`);
  await page.waitForSelector("iframe", { timeout: READY_MS });
  // Ask until a reply comes (the course page may have seen "ready" already); each ask is a
  // short evaluate of its own.
  await evaluate(page, () => {
    window.ffReply = null;
    addEventListener("message", (e) => {
      const frame = document.querySelector("iframe");
      if (e.source === frame?.contentWindow && e.data?.type === "attention-playground:reply" && e.data.id === "ff1")
        window.ffReply = e.data;
    });
  });
  let answer = null;
  for (const t = Date.now(); Date.now() - t < READY_MS; ) {
    answer = await evaluate(page, () => {
      if (window.ffReply?.ok) return window.ffReply;
      document.querySelector("iframe").contentWindow.postMessage(
        { type: "attention-playground:call", id: "ff1", method: "setStep", args: [3] }, "*");
      return null;
    });
    if (answer) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!answer || answer.result !== 3) fail(`firefox: the course page's setStep(3) was answered ${JSON.stringify(answer)}`);
  ok("firefox: the course page's playground answers a postMessage setStep(3) with 3");

  // A parent on another origin that sends no referrer: Firefox tells the frame its parent's
  // origin is "null"; the playground still says it is ready and answers.
  // (A plain server: serve.mjs's CSP would forbid the page to frame another origin.)
  const parentHtml = `<!doctype html><title>parent</title><script src="parent.js"></script>
    <iframe referrerpolicy="no-referrer" src="${server.url}?preset=toy_2d" width="800" height="600"></iframe>`;
  const parentJs = "window.got = []; addEventListener('message', (e) => window.got.push(e.data));";
  parentServer = createServer((req, res) => {
    const js = req.url.startsWith("/parent.js");
    res.writeHead(200, { "Content-Type": js ? "text/javascript" : "text/html; charset=utf-8" });
    res.end(js ? parentJs : parentHtml);
  });
  await new Promise((r) => parentServer.listen(0, "127.0.0.1", r));
  parentServer.url = `http://127.0.0.1:${parentServer.address().port}/`;
  await page.goto(parentServer.url);
  const seenReady = () => evaluate(page, () => (window.got ?? []).some((d) => d?.type === "attention-playground:ready"));
  const t1 = Date.now();
  while (!(await seenReady()) && Date.now() - t1 < READY_MS) await new Promise((r) => setTimeout(r, 250));
  if (!(await seenReady())) {
    const got = await evaluate(page, () => JSON.stringify(window.got ?? null).slice(0, 200));
    fail(`firefox: a no-referrer parent on another origin never got "ready" (${got})`);
  }
  ok("firefox: a parent on another origin with referrerpolicy=\"no-referrer\" gets the ready message");
  await checkIsolated(page);
  if (errors.length) fail(`firefox: errors on the page: ${errors.join("; ")}`);
  // No warnings either (the legacy WebAssembly `try` of -fwasm-exceptions drew one per load).
  if (warnings.length) fail(`firefox: warnings on the page: ${warnings.join("; ")}`);
  ok("firefox: no console errors or warnings on any of the pages");
} catch (e) {
  console.error(e instanceof CheckFailure ? `FAIL: ${e.message}` : `FAIL: ${e.stack ?? e}`);
  status = 1;
} finally {
  clearTimeout(watchdog);
  await browser?.close().catch(() => {});
  server?.child.kill();
  parentServer?.close();
  isolated?.child.kill();
}
process.exit(status);
