// The playground in WebKit, Safari's engine: Debian's WebKitGTK (webkit2gtk-driver's
// WebKitWebDriver driving libwebkit2gtk-4.1's MiniBrowser) over plain W3C WebDriver, spoken here
// with node's fetch (WebKitGTK 2.50's driver has no BiDi, so no log API either). It starts its
// own X display (xvfb-run) and ends the driver's whole process group, even on failure.
//
//   node tests/web/webkit_test.mjs --site DIR --cli attention-cli --presets DIR [--keep-shot]
//
// 1. WebKitGTK as Debian ships it, the site cross-origin isolated (COOP and COEP, serve.mjs's
//    default): the page says it is ready with no console error, runs the best build the engine
//    allows (judged by probes of the test's own, not app.js's), draws (a screenshot with many
//    colours), every preset's trace equals the native CLI's, two lessons are walked through
//    their 8 steps with their questions answered through window.attentionPlayground and the
//    progress recorded, the table view is used from the keyboard alone (checkKeyboard), and
//    with the server stopped a reload opens the playground from the service worker's copy, the
//    progress still there.
//    WebKitGTK reports crossOriginIsolated = true but gives the page no SharedArrayBuffer: JSC
//    exposes it (and lets a shared memory be posted to a worker) only in a web process launched
//    with its useSharedArrayBuffer option, which Safari's UI process sets for an isolated page
//    (ProcessLauncherCocoa: "enable-shared-array-buffer"); WebKitGTK's launcher
//    (ProcessLauncherGLib.cpp) never does. So there the page runs a build without threads.
// 2. The same engine with that option on (JSC_useSharedArrayBuffer=1, as Safari runs an
//    isolated page): the threaded build on min(cores, 8) threads, its workers taking tasks,
//    every preset's trace the CLI's.
//
// Console errors: WebDriver classic has no log API and MiniBrowser's
// --enable-write-console-messages-to-stdout is not applied to the view automation drives, so
// the site is served through a small proxy that adds one same-origin script (HOOK_PATH) at the
// top of every HTML page: it records console.error/warn, uncaught errors, unhandled
// rejections, failed loads and CSP violations from the first line on, in
// window.__wkProblems, which the check reads before leaving each page. Any of them fails the
// check but Emscripten's "Blocking on the main thread" warning (KNOWN_WARNINGS), noted instead.
import { execFileSync, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync,
         writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, delimiter, join } from "node:path";
import { CheckFailure, compareJson, fail, ok, startSiteServer } from "./harness.mjs";
import { decodePng } from "./png.mjs";

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const site = option("--site"), cli = option("--cli"), presets = option("--presets");
const keepShot = args.includes("--keep-shot");

// On PATH unless named.
function which(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const file = join(dir || ".", name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}
const DRIVER = process.env.AP_WEBKIT_DRIVER ?? which("WebKitWebDriver");
const MINIBROWSER = process.env.AP_MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const XVFB_RUN = process.env.AP_XVFB_RUN ?? which("xvfb-run");
const READY_MS = 90000;     // for the page to say it is ready
const TOTAL_MS = 230000;    // the whole check, driver starts included (the test allows 4 min)
const TOLERANCE = 1e-5;     // as firefox_test.mjs: WASM SIMD against the native CLI
const WINDOW = { width: 1280, height: 800 };

// The smallest module using relaxed SIMD's f32x4.relaxed_madd (the same bytes as app.js's
// RELAXED_PROBE, kept here so that the check judges the engine, not the page's own probe).
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];
const RELAXED_PROBE = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60,
  0x00, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00, 0x0a, 0x3d, 0x01, 0x3b, 0x00, ...V128_ZERO,
  ...V128_ZERO, ...V128_ZERO, 0xfd, 0x85, 0x02, 0x0b];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------------------------------
// The problem recorder every HTML page gets, and the proxy that adds it
// ------------------------------------------------------------------------------------------

const HOOK_PATH = "/__webkit_test_hook.js";
const HOOK_JS = `(() => {
  const seen = [];
  window.__wkProblems = seen;
  const text = (list) => list.map((x) => {
    try {
      if (x instanceof Error) return x.name + ": " + x.message;
      return typeof x === "string" ? x : JSON.stringify(x);
    } catch (e) {
      return String(x);
    }
  }).join(" ").slice(0, 400);
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function (...a) {
      seen.push("console." + level + ": " + text(a));
      return original.apply(this, a);
    };
  }
  addEventListener("error", (e) => {
    const t = e.target;
    if (t && t !== window && t.tagName) seen.push("failed to load <" + t.tagName.toLowerCase() + "> " + (t.src || t.href || ""));
    else seen.push("uncaught: " + e.message + " (" + (e.filename || "?") + ":" + e.lineno + ")");
  }, true);
  addEventListener("unhandledrejection", (e) => seen.push("unhandled rejection: " + text([e.reason])));
  document.addEventListener("securitypolicyviolation", (e) =>
    seen.push("CSP violation: " + e.violatedDirective + " " + e.blockedURI));
})();
`;

// serve.mjs behind a proxy on another loopback port that adds the recorder to HTML pages
// (asked of serve.mjs uncompressed) and serves it with the site's own headers. Resolves with
// {url, stop()}.
async function startHookedSite(root) {
  const upstream = await startSiteServer(root, { isolate: true });
  const up = new URL(upstream.url);
  const proxy = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === HOOK_PATH) {
      res.writeHead(200, {
        "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache",
        "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp",
        "Cross-Origin-Resource-Policy": "same-origin",
      });
      res.end(req.method === "HEAD" ? undefined : HOOK_JS);
      return;
    }
    const html = path.endsWith("/") || path.endsWith(".html");
    const headers = { ...req.headers, host: up.host };
    if (html) headers["accept-encoding"] = "identity";
    const forward = request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers }, (r) => {
      if (!html || !/^text\/html/.test(r.headers["content-type"] ?? "")) {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
        return;
      }
      const chunks = [];
      r.on("data", (c) => chunks.push(c));
      r.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
          .replace(/<head>/i, `<head>\n<script src="${HOOK_PATH}"></script>`);
        const out = { ...r.headers, "content-length": Buffer.byteLength(body) };
        delete out["transfer-encoding"];
        res.writeHead(r.statusCode, out);
        res.end(req.method === "HEAD" ? undefined : body);
      });
    });
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${proxy.address().port}/`,
    stop() {
      upstream.child.kill();
      proxy.closeAllConnections?.();
      return new Promise((r) => proxy.close(() => r()));
    },
    kill() {
      upstream.child.kill("SIGKILL");
      proxy.closeAllConnections?.();
      proxy.close();
    },
  };
}

// ------------------------------------------------------------------------------------------
// A small W3C WebDriver client for WebKitWebDriver
// ------------------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const started = new Set(); // every driver started, for the cleanup on any exit

class WebKit {
  // Starts `xvfb-run WebKitWebDriver` in a process group of its own and opens a session with
  // MiniBrowser in automation mode. `env`: extra environment (inherited by MiniBrowser and its
  // web processes).
  static async start(label, env = {}) {
    const wk = new WebKit();
    wk.label = label;
    wk.port = await freePort();
    wk.output = "";
    wk.child = spawn(XVFB_RUN, ["-a", "-s", `-screen 0 1440x900x24`, DRIVER, `--port=${wk.port}`],
                     { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    started.add(wk);
    const keep = (d) => { wk.output = (wk.output + d).slice(-4000); };
    wk.child.stdout.on("data", keep);
    wk.child.stderr.on("data", keep);
    wk.exited = null;
    wk.child.on("exit", (code, signal) => { wk.exited = signal ?? code; });
    wk.base = `http://127.0.0.1:${wk.port}`;
    for (const t0 = Date.now(); ; ) {
      if (wk.exited !== null) fail(`webkit (${label}): the driver exited (${wk.exited}): ${wk.output.trim().slice(-500)}`);
      const status = await fetch(`${wk.base}/status`, { signal: AbortSignal.timeout(2000) })
        .then((r) => r.json()).catch(() => null);
      if (status?.value?.ready) break;
      if (Date.now() - t0 > 30000) fail(`webkit (${label}): WebKitWebDriver did not answer within 30 s: ${wk.output.trim().slice(-500)}`);
      await sleep(200);
    }
    const session = await wk.send("POST", "/session", {
      capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } } },
    }, 60000);
    wk.session = session.sessionId;
    wk.caps = session.capabilities;
    await wk.cmd("POST", "/timeouts", { script: 120000, pageLoad: 120000 });
    await wk.cmd("POST", "/window/rect", WINDOW);
    return wk;
  }

  async send(method, path, body, timeoutMs = 60000) {
    let r;
    try {
      r = await fetch(this.base + path, {
        method, headers: { "Content-Type": "application/json; charset=utf-8" },
        body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      fail(`webkit (${this.label}): ${method} ${path}: ${e.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : e.message}` +
           (this.exited !== null ? ` (the driver exited: ${this.output.trim().slice(-300)})` : ""));
    }
    const json = await r.json().catch(() => ({}));
    if (!r.ok || json?.value?.error) {
      fail(`webkit (${this.label}): ${method} ${path}: ${json?.value?.error ?? r.status}: ${String(json?.value?.message ?? "").slice(0, 300)}`);
    }
    return json.value;
  }

  cmd(method, path, body, timeoutMs) {
    return this.send(method, `/session/${this.session}${path}`, body, timeoutMs);
  }

  navigate(url) {
    return this.cmd("POST", "/url", { url }, 150000);
  }

  // Runs fn(...args) in the page (its result JSON-cloned); an async fn is awaited.
  async run(fn, ...fnArgs) {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn}).apply(null, Array.prototype.slice.call(arguments, 0, -1)))
        .then((v) => done({ value: v === undefined ? null : v }), (e) => done({ thrown: String(e && e.stack || e) }));`;
    const r = await this.cmd("POST", "/execute/async", { script, args: fnArgs }, 130000);
    if (r?.thrown) fail(`webkit (${this.label}): the page threw: ${r.thrown.slice(0, 400)}`);
    return r?.value;
  }

  async screenshot() {
    return Buffer.from(await this.cmd("GET", "/screenshot", undefined, 60000), "base64");
  }

  // Closes the session and ends the driver's process group (Xvfb, MiniBrowser and its web
  // processes with it): TERM, then KILL what is left.
  async close() {
    if (this.session && this.exited === null) {
      await fetch(`${this.base}/session/${this.session}`, { method: "DELETE", signal: AbortSignal.timeout(10000) })
        .catch(() => {});
    }
    this.session = null;
    killGroup(this, "SIGTERM");
    for (const t0 = Date.now(); this.exited === null && Date.now() - t0 < 5000; ) await sleep(100);
    await sleep(300);
    killGroup(this, "SIGKILL");
    started.delete(this);
  }
}

function killGroup(wk, signal) {
  try {
    process.kill(-wk.child.pid, signal);
  } catch {
    // already gone
  }
}

// ------------------------------------------------------------------------------------------
// Page helpers
// ------------------------------------------------------------------------------------------

// Waits until the page says it is ready (or shows its error overlay, which fails at once).
async function waitReady(wk, what) {
  const t0 = Date.now();
  for (;;) {
    const s = await wk.run(() => ({
      ready: window.attentionPlayground?.isReady === true,
      overlay: document.getElementById("overlay")?.className ?? "",
      status: `${document.getElementById("status")?.textContent ?? ""} ${document.getElementById("detail")?.textContent ?? ""}`.trim(),
      hooked: Array.isArray(window.__wkProblems),
    }));
    if (/\berror\b/.test(s.overlay)) fail(`webkit (${wk.label}): ${what}: the page failed: "${s.status}"`);
    if (s.ready) {
      if (!s.hooked) fail(`webkit (${wk.label}): ${what}: the problem recorder (${HOOK_PATH}) is not in the page`);
      return Date.now() - t0;
    }
    if (Date.now() - t0 > READY_MS) fail(`webkit (${wk.label}): ${what}: not ready within ${READY_MS / 1000} s ("${s.status}")`);
    await sleep(250);
  }
}

// Warnings that are not failures, each printed as a note when seen. Emscripten's runtime warns
// once per page when the main thread waits on a futex (emscripten_check_blocking_allowed):
// the threaded build's main thread waits for a task a worker took (src/core/parallel.cpp,
// Pool's done_.wait) whenever that worker is still on it, which a loaded machine makes likely,
// in every browser.
const KNOWN_WARNINGS = [/^console\.warn: Blocking on the main thread is very dangerous/];
const noted = new Set();

// Fails on anything the recorder saw on this page but the known warnings.
async function checkProblems(wk, what) {
  const seen = await wk.run(() => window.__wkProblems ?? ["the problem recorder is missing"]);
  const problems = seen.filter((p) => !KNOWN_WARNINGS.some((re) => re.test(p)));
  for (const p of seen.filter((x) => !problems.includes(x))) {
    if (!noted.has(p)) console.log(`note: webkit (${wk.label}): ${what}: ${p}`);
    noted.add(p);
  }
  if (problems.length) fail(`webkit (${wk.label}): ${what}: ${problems.slice(0, 5).join("; ")}`);
}

// What the engine allows, probed here (not by app.js): cross-origin isolation, the
// SharedArrayBuffer global, whether a shared memory can be posted (what threads need), relaxed
// SIMD; and which build the page runs, on how many threads.
function probe(wk, relaxedBytes) {
  return wk.run((bytes) => {
    let shared = "no";
    try {
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
      const channel = new MessageChannel();
      channel.port1.postMessage(memory.buffer);
      channel.port1.close();
      shared = "yes";
    } catch (e) {
      shared = `${e.name}: ${e.message}`;
    }
    let relaxed = false;
    try {
      relaxed = WebAssembly.validate(new Uint8Array(bytes));
    } catch {
      relaxed = false;
    }
    const ap = window.attentionPlayground;
    return {
      isolated: window.crossOriginIsolated === true, sabGlobal: typeof SharedArrayBuffer, shared, relaxed,
      module: ap.timing().module, threads: ap.stats().threads, cores: navigator.hardwareConcurrency,
      ua: navigator.userAgent,
    };
  }, relaxedBytes);
}

// The build app.js should pick where the engine allows what `p` says.
function bestBuild(p) {
  const threads = p.isolated && p.shared === "yes";
  if (threads) return p.relaxed ? "threads-relaxed" : "threads";
  return p.relaxed ? "relaxed-simd" : "simd128";
}

const cliTraces = new Map();
function cliTrace(file) {
  if (!cliTraces.has(file)) {
    cliTraces.set(file, JSON.parse(execFileSync(cli, ["eval", file], { encoding: "utf8", maxBuffer: 1 << 28 })));
  }
  return cliTraces.get(file);
}

// Every preset's trace, set through the API, against the CLI's. Returns the largest difference.
async function compareTraces(wk) {
  const files = readdirSync(presets).filter((f) => f.endsWith(".json")).sort();
  let worst = 0;
  for (const f of files) {
    const scenario = JSON.parse(readFileSync(join(presets, f), "utf8"));
    const trace = await wk.run((s) => {
      const r = window.attentionPlayground.setScenario(s);
      return r.ok ? window.attentionPlayground.getTrace() : { error: r.error };
    }, scenario);
    if (trace?.error) fail(`webkit (${wk.label}): setScenario(${f}): ${trace.error}`);
    const cmp = compareJson(trace, cliTrace(join(presets, f)), { tolerance: TOLERANCE, path: "trace", refName: "the CLI" });
    if (cmp.problem) fail(`webkit (${wk.label}): ${basename(f, ".json")}: ${cmp.problem}`);
    worst = Math.max(worst, cmp.worst);
  }
  return { count: files.length, worst };
}

// A lesson walked as a learner would through the API: loaded, its 8 steps shown in turn, each
// question answered (with the answer its preset file gives) at the step that asks it.
async function walkLesson(wk, name) {
  const preset = JSON.parse(readFileSync(join(presets, `${name}.json`), "utf8"));
  const answers = (preset.quiz ?? []).map((q) => ("key" in q.answer ? { key: q.answer.key } : { value: q.answer.value }));
  if (answers.length === 0) fail(`webkit: the lesson ${name} has no questions to answer`);
  const r = await wk.run(async (lesson, given) => {
    const ap = window.attentionPlayground, events = [];
    const offs = [ap.on("quiz", (d) => events.push(["quiz", d])), ap.on("lesson", (d) => events.push(["lesson", d]))];
    const frame = () => new Promise((res) => {
      requestAnimationFrame(() => res());
      setTimeout(res, 200);
    });
    const loaded = ap.loadPreset(lesson);
    if (!loaded.ok) return { error: `loadPreset("${lesson}"): ${loaded.error}` };
    await frame();
    const quiz = ap.getQuiz();
    const steps = [];
    for (let k = 0; k < 8; ++k) {
      const set = ap.setStep(k);
      await frame();
      const view = ap.getView();
      const answered = [];
      quiz.forEach((q, i) => {
        if (q.step === k) answered.push({ question: i, result: ap.answerQuiz(i, given[i]) });
      });
      steps.push({ set, step: view.step, lesson: view.lesson, answered });
    }
    for (const t0 = performance.now(); !events.some(([e, d]) => e === "lesson" && d.done) && performance.now() - t0 < 5000; ) {
      await new Promise((res) => setTimeout(res, 50));
    }
    offs.forEach((off) => off());
    return { quiz, steps, events, progress: ap.getProgress(),
             stored: localStorage.getItem("attention-playground:progress") };
  }, name, answers);
  const where = `webkit (${wk.label}): lesson ${name}`;
  if (r.error) fail(`${where}: ${r.error}`);
  if (r.quiz.length !== answers.length) fail(`${where}: getQuiz() lists ${r.quiz.length} questions, its file ${answers.length}`);
  const answeredAt = new Map();
  r.steps.forEach((s, k) => {
    if (!s.set?.ok || s.set.step !== k || s.step !== k) fail(`${where}: setStep(${k}) gave ${JSON.stringify(s.set)}, the view shows step ${s.step}`);
    if (s.lesson !== name) fail(`${where}: at step ${k} the view's lesson is ${JSON.stringify(s.lesson)}`);
    for (const a of s.answered) {
      if (!a.result?.ok || a.result.correct !== true) {
        fail(`${where}: question ${a.question} answered ${JSON.stringify(answers[a.question])} at step ${k}: ${JSON.stringify(a.result)}`);
      }
      answeredAt.set(a.question, k);
    }
  });
  if (answeredAt.size !== answers.length) fail(`${where}: only ${answeredAt.size} of ${answers.length} questions were asked on the 8 steps`);
  const quizEvents = r.events.filter(([e]) => e === "quiz").map(([, d]) => d);
  if (quizEvents.length !== answers.length || quizEvents.some((d) => d.lesson !== name || d.correct !== true)) {
    fail(`${where}: "quiz" events ${JSON.stringify(quizEvents)}`);
  }
  if (!r.events.some(([e, d]) => e === "lesson" && d.lesson === name && d.done)) fail(`${where}: no "lesson" event with done: true`);
  const marks = r.progress?.marks?.[name];
  if (marks !== "r".repeat(answers.length) || !r.progress.done.includes(name)) {
    fail(`${where}: getProgress() has marks ${JSON.stringify(marks)}, done ${JSON.stringify(r.progress?.done)}`);
  }
  if (!r.stored?.includes(name)) fail(`${where}: localStorage keeps ${JSON.stringify(r.stored)?.slice(0, 200)}`);
  return { questions: answers.length, at: [...answeredAt.values()], marks };
}

// The playground from the keyboard alone (keyboard_test.mjs's table-focus in
// Chromium), every key a WebDriver key action, nothing clicked or focused by the test: Tab to
// the table view's button, Enter opens the view, Enter answers the question (the focus on its
// verdict), ↓ on the step, Space on the causal mask, Escape back to the canvas; no key leaves
// the focus on <body>. Safari tabs to buttons only with "Press Tab to highlight each item"
// (else Option+Tab); WebKitGTK's Tab reaches them (its tabs-to-links setting is on), as the
// check finds.
const KEYS = { Tab: "\uE004", Enter: "\uE007", Escape: "\uE00C", "↓": "\uE015", Space: "\uE00D" };
const SETTLE_FRAMES = 3;  // the app's events come a frame or more after a key, then the view redraws

// Waits until the page has drawn `n` more frames (frames(n) wakes an idle page).
async function drawn(wk, n, where) {
  const r = await wk.run((k) => window.attentionPlayground.frames(k), n);
  if (!r?.ok) fail(`${where}: frames(${n}): ${JSON.stringify(r)}`);
}
async function checkKeyboard(wk, url) {
  const t0 = Date.now();
  await wk.navigate(`${url}?preset=why_so_tall&step=3`);
  await waitReady(wk, "the keyboard's page");
  const where = `webkit (${wk.label}): keyboard`;
  const focused = () => wk.run(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return "<body>";
    return e.id ? `#${e.id}` : e.dataset?.key ? `[data-key="${e.dataset.key}"]` : e.tagName.toLowerCase();
  });
  const done = [];
  let at = await focused(), tabs = 0;
  const press = async (name, what) => {
    const from = at;
    if (name === "Tab") ++tabs;
    await wk.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: [
      { type: "keyDown", value: KEYS[name] }, { type: "keyUp", value: KEYS[name] }] }] });
    at = await focused();
    if (at === "<body>") fail(`${where}: ${name} (${what}) moved the focus from ${from} to <body>`);
    return from;
  };
  const tabTo = async (want, what, max) => {
    const passed = [];
    for (let k = 0; k < max; ++k) {
      await press("Tab", `towards ${what}`);
      if (want(at)) return at;
      passed.push(at);
    }
    fail(`${where}: ${max} presses of Tab never reached ${what} (passed ${passed.join(" ")})`);
  };
  // A key that acts: the focus must be on `want` at once and SETTLE_FRAMES drawn frames later.
  const act = async (name, want, what) => {
    const from = await press(name, what);
    for (const when of ["at once", `${SETTLE_FRAMES} frames`]) {
      if (when !== "at once") {
        await drawn(wk, SETTLE_FRAMES, where);
        at = await focused();
      }
      if (at !== want) fail(`${where}: ${when} after ${name} on ${from} (${what}) the focus is on ${at}, not ${want}`);
    }
    done.push(`${name} ${what}`);
  };
  await tabTo((n) => n === "#table-toggle", "the table view's button (a button: Safari's Tab skips it by default)", 8);
  await act("Enter", "#a11y", "opens the table view");
  if (!(await wk.run(() => document.getElementById("a11y").classList.contains("shown")))) fail(`${where}: Enter left the table view closed`);
  const key = await tabTo((n) => n.startsWith('[data-key="q0 key'), "the question's answers", 40);
  await act("Enter", '[data-key="q0 verdict"]', `on ${key} answers`);
  const quiz = await wk.run(() => window.attentionPlayground.getQuiz()[0]);
  if (quiz?.answered !== true) fail(`${where}: Enter on ${key} left the question unanswered: ${JSON.stringify(quiz).slice(0, 200)}`);
  await tabTo((n) => n === "#a11y-control-step", "the step setting", 40);
  const step0 = await wk.run(() => window.attentionPlayground.getView().step);
  await act("↓", "#a11y-control-step", "the next step");
  const step1 = await wk.run(() => window.attentionPlayground.getView().step);
  if (step0 !== 2 || step1 !== 3) fail(`${where}: ?step=3 showed 0-based step ${step0} and ↓ ${step1}, not 2 then 3`);
  await tabTo((n) => n === "#a11y-control-causal", "the causal mask", 20);
  await act("Space", "#a11y-control-causal", "the causal mask");
  if ((await wk.run(() => window.attentionPlayground.getScenario().causal)) !== true) fail(`${where}: Space left the causal mask off`);
  await act("Escape", "#canvas", "closes the view");
  if (await wk.run(() => document.getElementById("a11y").classList.contains("shown"))) fail(`${where}: Escape left the table view open`);
  await checkProblems(wk, "the keyboard's page");
  ok(`webkit: from the keyboard alone (${tabs} Tabs; WebKitGTK's plain Tab reaches every button and link, as Safari's ` +
     `only with "Press Tab to highlight each item"), the focus kept ${SETTLE_FRAMES} frames after each key and never on ` +
     `<body>: ${done.join(", ")} (step ${step0 + 1} → ${step1 + 1}; ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

// ------------------------------------------------------------------------------------------
// The check
// ------------------------------------------------------------------------------------------

let status = 0, shotDir = null;
const sites = new Set();

function cleanupNow() {
  for (const wk of started) {
    killGroup(wk, "SIGTERM");
    killGroup(wk, "SIGKILL");
  }
  for (const s of sites) s.kill();
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    console.error(`FAIL: webkit: stopped by ${signal}`);
    cleanupNow();
    process.exit(1);
  });
}
const watchdog = setTimeout(() => {
  console.error(`FAIL: webkit: no result within ${TOTAL_MS / 1000} s`);
  cleanupNow();
  process.exit(1);
}, TOTAL_MS);

async function hookedSite() {
  const s = await startHookedSite(site);
  sites.add(s);
  return s;
}

const t00 = Date.now();
try {
  if (!site || !existsSync(join(site, "index.html"))) fail(`--site must name the staged site (no index.html in ${site})`);
  if (!cli || !existsSync(cli)) fail(`the native attention-cli is missing (${cli})`);
  if (!presets || !existsSync(presets)) fail(`--presets must name the presets (${presets})`);
  if (!XVFB_RUN || !existsSync(XVFB_RUN)) fail("webkit: no xvfb-run (scripts/setup.sh installs xvfb)");
  if (!DRIVER || !existsSync(DRIVER)) {
    fail(`webkit: no WebKitWebDriver ${DRIVER ? `at ${DRIVER}` : "on PATH"} (scripts/setup.sh installs webkit2gtk-driver)`);
  }
  if (!existsSync(MINIBROWSER)) fail(`webkit: no MiniBrowser at ${MINIBROWSER} (scripts/setup.sh installs webkit2gtk-driver, which brings libwebkit2gtk-4.1-0)`);

  // 1. WebKitGTK as shipped.
  let wk = await WebKit.start("WebKitGTK");
  let served = await hookedSite();
  const start = `${served.url}?preset=padded_batch&step=6`;
  const t0 = Date.now();
  await wk.navigate(start);
  await waitReady(wk, "the first load");
  const readyMs = Date.now() - t0;
  await drawn(wk, 3, "webkit: the first load");
  await checkProblems(wk, "the first load");
  ok(`webkit: ${wk.caps?.browserName} ${wk.caps?.browserVersion} (WebKitGTK) runs the playground: ready ${readyMs} ms after ` +
     "the navigation, no console error or warning, uncaught error or failed load");

  const p = await probe(wk, RELAXED_PROBE);
  const want = bestBuild(p);
  if (p.module !== want) {
    fail(`webkit: the page runs the ${p.module} build, but the engine allows ${want} (${JSON.stringify(p)})`);
  }
  if (p.module.startsWith("threads") ? p.threads !== Math.min(Math.max(1, p.cores || 1), 8) : p.threads !== 1) {
    fail(`webkit: the ${p.module} build runs on ${p.threads} threads (${p.cores} cores)`);
  }
  ok(`webkit: the ${p.module} build, the best this engine allows: crossOriginIsolated ${p.isolated}, ` +
     `SharedArrayBuffer global ${p.sabGlobal}, posting a shared WebAssembly.Memory: ${p.shared}, ` +
     `relaxed SIMD ${p.relaxed ? "validates" : "does not validate"}` +
     (p.isolated && p.shared !== "yes" ? " (WebKitGTK launches no web process with JSC's useSharedArrayBuffer; Safari does for an isolated page: part 2)" : ""));

  // The screenshot: saved, a PNG of the window's size with many colours.
  const png = await wk.screenshot();
  shotDir = mkdtempSync(join(tmpdir(), "ap-webkit-"));
  const shot = join(shotDir, "padded_batch-step6.png");
  writeFileSync(shot, png);
  const img = decodePng(png);
  const colours = new Set();
  for (let i = 0; i < img.pixels.length; i += 16) colours.add(img.pixels.slice(i, i + 3).join(","));
  const bytes = statSync(shot).size;
  if (img.width < 800 || img.height < 500 || bytes < 20000 || colours.size < 200) {
    fail(`webkit: the screenshot ${shot} is ${img.width}x${img.height}, ${bytes} bytes, ${colours.size} colours: blank?`);
  }
  ok(`webkit: a screenshot of ${img.width}x${img.height}, ${(bytes / 1024).toFixed(0)} KiB, ${colours.size} distinct colours ` +
     `(${keepShot ? shot : "removed at the end; --keep-shot keeps it"})`);

  const traces = await compareTraces(wk);
  ok(`webkit: the traces of ${traces.count} presets equal the native CLI's in the ${p.module} build ` +
     `(largest relative difference ${traces.worst.toExponential(2)})`);

  const walked = [];
  for (const lesson of ["cross_attention", "multi_head"]) {
    const w = await walkLesson(wk, lesson);
    walked.push(`${lesson} (${w.questions} questions at steps ${w.at.join(", ")}, marks "${w.marks}")`);
  }
  await checkProblems(wk, "the traces and lessons");
  ok(`webkit: lessons walked through their 8 steps, every question answered right through the API and recorded: ${walked.join("; ")}`);
  await checkKeyboard(wk, served.url);

  // Offline: the service worker's copy opens the playground once the server is gone.
  const t1 = Date.now();
  let controlled = false;
  while (!controlled && Date.now() - t1 < 30000) {
    controlled = await wk.run(() => navigator.serviceWorker?.controller != null);
    if (!controlled) await sleep(250);
  }
  if (!controlled) {
    const why = await wk.run(async () => ({
      api: "serviceWorker" in navigator, secure: window.isSecureContext,
      registrations: (await navigator.serviceWorker?.getRegistrations?.() ?? []).map((r) => ({
        scope: r.scope, active: !!r.active, installing: !!r.installing, waiting: !!r.waiting })),
    }));
    fail(`webkit: no service worker controls the page after 30 s: ${JSON.stringify(why)}`);
  }
  // The recorder goes into the worker's copy too (it is the test's file, not the site's).
  const kept = await wk.run(async (hook) => {
    const names = (await caches.keys()).filter((k) => k.startsWith("attention-playground-"));
    if (names.length !== 1) return { error: `caches ${JSON.stringify(names)}` };
    const cache = await caches.open(names[0]);
    await cache.add(hook);
    return { name: names[0], files: (await cache.keys()).length };
  }, HOOK_PATH);
  if (kept.error) fail(`webkit: the offline copy: ${kept.error}`);
  await checkProblems(wk, "before going offline");
  await served.stop();
  sites.delete(served);
  const gone = await fetch(start, { signal: AbortSignal.timeout(5000) }).then(() => false, () => true);
  if (!gone) fail("webkit: the site still answers after its server was stopped");
  await wk.navigate(start);
  await waitReady(wk, "the reload with the server stopped");
  const off = await wk.run(() => ({
    module: window.attentionPlayground.timing().module,
    marks: window.attentionPlayground.getProgress().marks,
    controlled: navigator.serviceWorker?.controller != null,
  }));
  if (off.module !== p.module) fail(`webkit: offline the page runs ${off.module}, online ${p.module}`);
  if (off.marks.cross_attention !== "rr" || off.marks.multi_head !== "rr") {
    fail(`webkit: offline the progress is ${JSON.stringify(off.marks)}`);
  }
  await sleep(500);
  await checkProblems(wk, "the reload with the server stopped");
  ok(`webkit: with the server stopped, a reload opens the playground from the service worker's copy ` +
     `(${kept.files} files in ${kept.name}; the ${off.module} build, the lessons' marks kept, no error)`);
  await wk.close();

  // 2. With JSC's useSharedArrayBuffer on, as Safari runs a cross-origin isolated page.
  wk = await WebKit.start("WebKitGTK, JSC_useSharedArrayBuffer=1", { JSC_useSharedArrayBuffer: "1" });
  served = await hookedSite();
  const t2 = Date.now();
  await wk.navigate(`${served.url}?preset=causal_decoder`);
  await waitReady(wk, "the isolated page with shared memory");
  const readyThreadsMs = Date.now() - t2;
  const q = await probe(wk, RELAXED_PROBE);
  const wantThreads = bestBuild(q);
  const cores = Math.min(Math.max(1, q.cores || 1), 8);
  if (!wantThreads.startsWith("threads")) {
    fail(`webkit: with JSC_useSharedArrayBuffer=1 the engine still shares no memory (${JSON.stringify(q)})`);
  }
  if (q.module !== wantThreads || q.threads !== cores) {
    fail(`webkit: with shared memory the page runs ${q.module} on ${q.threads} threads, expected ${wantThreads} on ${cores} (${JSON.stringify(q)})`);
  }
  const threadTraces = await compareTraces(wk);
  // The workers take part (they load the module while the page starts; until then the page's
  // own thread does the work): 128 queries in 4 heads, causal, are cut into tasks; a few seeds
  // give a worker time to wake. The last one's trace is the CLI's too.
  // On a loaded machine the workers may take seconds to start: runs for up to 30 s, half a
  // second apart (10 runs back to back once saw none).
  let seed = 11, tasks = 0, wide = null, runs = 0;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const until = Date.now() + 30000;
  for (let i = 0; tasks === 0 && (i < 10 || Date.now() < until); ++i) {
    if (i > 0) await new Promise((r) => setTimeout(r, 500));
    runs = i + 1;
    wide = { version: 1, scoring: "scaled_dot", causal: true, heads: 4, init: { seed: i + 1, d_model: 64 },
             x: Array.from({ length: 128 }, () => Array.from({ length: 32 }, () => Number(random().toFixed(3)))) };
    const r = await wk.run((s) => {
      const ap = window.attentionPlayground;
      const set = ap.setScenario(s);
      return set.ok ? { tasks: ap.stats().worker_tasks } : { error: set.error };
    }, wide);
    if (r.error) fail(`webkit: setScenario(128 × 32, four heads): ${r.error}`);
    tasks = r.tasks;
  }
  if (!(tasks > 0)) fail(`webkit: the threaded build's workers took no task in ${runs} runs of 128 queries × 4 heads (30 s)`);
  const wideFile = join(mkdtempSync(join(tmpdir(), "ap-webkit-wide-")), "wide.json");
  writeFileSync(wideFile, JSON.stringify(wide));
  const wideCmp = compareJson(await wk.run(() => window.attentionPlayground.getTrace()), cliTrace(wideFile),
                              { tolerance: TOLERANCE, path: "trace", refName: "the CLI" });
  rmSync(join(wideFile, ".."), { recursive: true, force: true });
  if (wideCmp.problem) fail(`webkit: 128 × 32, four heads, threaded: ${wideCmp.problem}`);
  await checkProblems(wk, "the threaded build");
  ok(`webkit: with JSC_useSharedArrayBuffer=1 (what Safari sets for an isolated page's process) the ${q.module} build ` +
     `on ${q.threads} threads (ready in ${readyThreadsMs} ms): the traces of ${threadTraces.count} presets and of ` +
     `128 queries × 4 heads (${tasks} tasks on its workers) equal the CLI's (largest relative difference ` +
     `${Math.max(threadTraces.worst, wideCmp.worst).toExponential(2)}), no error`);
  await wk.close();
  console.log(`# webkit: ${((Date.now() - t00) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(e instanceof CheckFailure ? `FAIL: ${e.message}` : `FAIL: webkit: ${e.stack ?? e}`);
  status = 1;
} finally {
  clearTimeout(watchdog);
  for (const wk of [...started]) await wk.close().catch(() => {});
  for (const s of [...sites]) await s.stop().catch(() => {});
  if (shotDir && (keepShot || status !== 0)) {
    if (status !== 0) console.log(`# webkit: the screenshot is kept in ${shotDir}`);
  } else if (shotDir) {
    rmSync(shotDir, { recursive: true, force: true });
  }
}
process.exit(status);
