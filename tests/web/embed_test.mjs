// Browser checks of the playground as other pages meet it: malformed links, the example course
// page, the postMessage origin rule, which requests the pages make, the exports, and ?embed=1.
//
//   node tests/web/embed_test.mjs --site DIR [--python /usr/bin/python3] CHECK...
//
// CHECK is links, course, origins, requests, exports, embed, or "all" (every check, one
// browser; harness.mjs runChecks prints "ok - ..." per passed assertion, "# CHECK: N ms" per
// check and "FAIL: CHECK: ..." for each that fails, and exits 1 if any failed). Every page
// (and its frames) fails the check on a console error or an uncaught page error; warnings are
// allowed.
//
// "exports" runs the NumPy export with /usr/bin/python3 (Debian's python3-numpy); pass
// --python PATH for another interpreter.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { compareJson, fail, ok, runChecks } from "./harness.mjs";
import { decodePng } from "./png.mjs";
import { waitForFrames } from "./page.mjs";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const VIEWPORT = { width: 1400, height: 900 };
const READY_MS = 20000; // for a page to become ready
const POOL_WIDTH = 2; // link pages loading at once
const CHECK_MS = 150000; // the watchdog, per check (links takes 60–100 s on a busy machine)
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PREFIX = "attention-playground:";

//-----------------------------------------------------------------------------
// Helpers
//-----------------------------------------------------------------------------

const short = (v, n = 160) => {
  const s = (typeof v === "string" ? v : JSON.stringify(v) ?? String(v)).replace(/\r?\n/g, " / ");
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

// A plain static server for tests/web/fixtures on another loopback port (another origin).
// It sends no Content-Security-Policy.
function startFixtureServer() {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };
  const server = createServer((req, res) => {
    let file;
    try {
      file = normalize(join(FIXTURES, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!file.startsWith(FIXTURES) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": types[extname(file)] ?? "application/octet-stream",
                         "Cache-Control": "no-cache" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

// A fresh page that collects console errors and page errors of every frame in page.problems:
// in its own browser context, or in `context` (a shared HTTP cache makes loading faster).
async function newPage(browser, { viewport = VIEWPORT, dpr = 1, context = null } = {}) {
  const page = context ? await context.newPage() : await browser.newPage({ viewport, deviceScaleFactor: dpr });
  page.problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") page.problems.push(`console error: ${m.text()} (${m.location()?.url ?? ""})`);
  });
  page.on("pageerror", (e) => page.problems.push(`page error: ${e.message}`));
  page.on("crash", () => page.problems.push("the page crashed"));
  return page;
}

// Waits until window.attentionPlayground in `target` (a page or a frame) is ready.
async function waitReady(target, what, timeout = READY_MS) {
  try {
    await target.waitForFunction(() => window.attentionPlayground?.isReady === true, null,
                                 { timeout, polling: 50 });
    await target.evaluate(() => window.attentionPlayground.ready);
  } catch (e) {
    const status = await target.evaluate(() => document.getElementById("status")?.textContent ?? "")
      .catch(() => "?");
    fail(`${what}: the playground was not ready within ${timeout / 1000} s (status: "${status}"; ` +
         `${e.message.split("\n")[0]})`);
  }
}

async function openApp(browser, url, what, options = {}) {
  const page = await newPage(browser, options);
  const t0 = Date.now();
  const response = await page.goto(url, { timeout: READY_MS });
  await waitReady(page, what);
  page.readyMs = Date.now() - t0;
  page.response = response;
  return page;
}

function checkNoProblems(page, when) {
  if (page.problems.length > 0) fail(`${when}: ${page.problems.join("\n  ")}`);
}

const luminance = (p, i) => 0.2126 * p[i] + 0.7152 * p[i + 1] + 0.0722 * p[i + 2];

function distinctColours(img) {
  const colours = new Set();
  for (let i = 0; i < img.pixels.length; i += 4) {
    colours.add((img.pixels[i] << 16) | (img.pixels[i + 1] << 8) | img.pixels[i + 2]);
  }
  return colours.size;
}

async function screenshot(page, what) {
  const img = decodePng(await page.screenshot());
  const colours = distinctColours(img);
  if (colours < 50) fail(`${what}: the screenshot has only ${colours} distinct colours (blank?), expected ≥ 50`);
  img.colours = colours;
  return img;
}

// Polls fn (run in node) until it returns a truthy value; fails with `what` after timeout.
async function until(fn, what, timeout = 5000) {
  const t0 = Date.now();
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() - t0 > timeout) fail(`${what} (within ${timeout / 1000} s)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A trace that a learner can trust: every head's weights finite, in [0, 1], rows summing to 1.
function checkTraceSane(trace, what) {
  if (!trace || !Array.isArray(trace.heads) || trace.heads.length === 0) fail(`${what}: getTrace() has no heads`);
  trace.heads.forEach((h, hi) => {
    if (!Array.isArray(h.weights) || h.weights.length === 0) fail(`${what}: heads[${hi}].weights is empty`);
    h.weights.forEach((m, b) => m.forEach((row, q) => {
      if (!row.every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1)) {
        fail(`${what}: heads[${hi}].weights[${b}][${q}] is ${short(row)}, not finite weights in [0, 1]`);
      }
      const sum = row.reduce((a, v) => a + v, 0);
      if (!(Math.abs(sum - 1) <= 1e-5)) fail(`${what}: heads[${hi}].weights[${b}][${q}] sums to ${sum}, not 1`);
    }));
  });
}

// Reads the state of the playground in `target` (a page or a frame).
const readState = (target) => target.evaluate(() => {
  const ap = window.attentionPlayground;
  return { scenario: ap.getScenario(), trace: ap.getTrace(), view: ap.getView(), notice: ap.stats().notice,
           presets: ap.presets().map((p) => p.name) };
});

// The default state: a fresh page without a link or parameters.
async function defaultState(browser, url) {
  const page = await openApp(browser, url, "the default page");
  const state = await readState(page);
  checkNoProblems(page, "the default page");
  await page.close();
  if (state.view.preset !== state.presets[0]) {
    fail(`the default page shows preset "${state.view.preset}", not the first preset "${state.presets[0]}"`);
  }
  if (state.notice !== "") fail(`the default page shows a notice: ${short(state.notice)}`);
  checkTraceSane(state.trace, "the default page");
  return state;
}

const b64 = (text) => Buffer.from(text, "utf8").toString("base64url");
const linkOf = (json) => `v1.${b64(typeof json === "string" ? json : JSON.stringify(json))}`;

// A page's PNG export of heatmap `id`, as a Buffer.
async function exportPng(page, id) {
  const r = await page.evaluate(async (id) => {
    const r = await window.attentionPlayground.exportPng(id);
    if (!r.ok) return { error: r.error };
    const blob = r.blob;
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { type: blob.type, isBlob: blob instanceof Blob, b64: btoa(text) };
  }, id);
  if (r.error) fail(`exportPng("${id}"): ${r.error}`);
  if (!r.isBlob) fail(`exportPng("${id}") did not resolve to a Blob`);
  if (r.type !== "image/png") fail(`exportPng("${id}") gave a Blob of type "${r.type}", not image/png`);
  return Buffer.from(r.b64, "base64");
}

// The heatmaps drawn in the latest heatmap frame, by id.
async function currentGrids(page) {
  const layout = await page.evaluate(() => window.attentionPlayground.layout());
  const latest = Math.max(...Object.values(layout).map((g) => g.frame));
  return Object.fromEntries(Object.entries(layout).filter(([, g]) => g.frame === latest));
}

//-----------------------------------------------------------------------------
// 1. links: malformed links fall back to the first lesson with a notice; a real link reopens
//-----------------------------------------------------------------------------

// A valid link's parts; every malformed link below is one change away from these.
const VALID_SCENARIO = {
  version: 1,
  x: [[0.5, -1, 0.25], [1, 0, 2], [0, 1, -0.5], [2, 0.5, 1]],
  query_tokens: ["we", "read", "the", "map"],
};
const VALID_LINK = { scenario: VALID_SCENARIO, view: { step: 3 } };

function malformedLinks() {
  const valid = linkOf(VALID_LINK);
  const payload = valid.slice(3);
  const at = Math.floor(payload.length / 2);
  const replaceAt = (c) => `v1.${payload.slice(0, at)}${c}${payload.slice(at + 1)}`;
  const withScenario = (changes) => ({ scenario: { ...VALID_SCENARIO, ...changes } });
  // cut so that the base64url text still makes whole bytes: the JSON itself ends early
  let cut = 3 + at;
  if ((cut - 3) % 4 === 1) ++cut;
  const hugeRows = `{"scenario":{"version":1,"x":[${Array(100000).fill("[0]").join(",")}]}}`;
  return [
    // [name, link, pattern the error line must match]
    ["a valid link cut in the middle", valid.slice(0, cut), /^link: truncated/],
    ["version v2", `v2.${payload}`, /^link: version "v2" is newer/],
    ["version v0", `v0.${payload}`, /^link: version "v0" is not supported/],
    ["no version", payload, /^link: not a playground link/],
    ["'%' in the payload", replaceAt("%"), /^link: invalid base64url character '%'/],
    ["'+' in the payload", replaceAt("+"), /^link: invalid base64url character '\+'/],
    ["'/' in the payload", replaceAt("/"), /^link: invalid base64url character '\/'/],
    ["'=' inside the payload", replaceAt("="), /^link: invalid base64url character '='/],
    ["base64url of text that is not JSON", linkOf("this is not JSON, just words"), /^link: invalid JSON/],
    ["JSON that is not an object", linkOf("[1,2,3]"), /^link: must be a JSON object/],
    ["no scenario", linkOf({ view: { step: 2 } }), /^link\.scenario: missing/],
    ["view.step 999", linkOf({ scenario: VALID_SCENARIO, view: { step: 999 } }), /^link\.view\.step: /],
    ["view.head 5 of 1 head", linkOf({ scenario: VALID_SCENARIO, view: { head: 5 } }), /^link\.view\.head: /],
    ["negative sizes (heads -2, init.d_model -4)",
     linkOf(withScenario({ heads: -2, init: { seed: 1, d_model: -4 } })), /^link\.scenario\.(heads|init\.d_model): /],
    ["NaN as a JSON literal", linkOf('{"scenario":{"version":1,"x":[[NaN,1],[0,1]]}}'), /^link: invalid JSON/],
    ["Infinity as a JSON literal", linkOf('{"scenario":{"version":1,"x":[[Infinity,1],[0,1]]}}'),
     /^link: invalid JSON/],
    ["1e999 (overflows a double)", linkOf('{"scenario":{"version":1,"x":[[1e999,1],[0,1]]}}'),
     /^link\.scenario\.x\[0\]\[0\]: /],
    ['"NaN" as a string in a matrix', linkOf(withScenario({ x: [["NaN", 1, 0], [0, 1, 0]] })),
     /^link\.scenario\.x\[0\]\[0\]: /],
    ["view.step as a string", linkOf({ scenario: VALID_SCENARIO, view: { step: "3" } }), /^link\.view\.step: /],
    ["x as a string", linkOf(withScenario({ x: "[[1, 2], [3, 4]]" })), /^link\.scenario\.x: /],
    ["heads 2.5", linkOf(withScenario({ heads: 2.5 })), /^link\.scenario\.heads: /],
    ["x with 100000 rows of [0]", linkOf(hugeRows), /^link\.scenario\.x: /],
    ["a link of more than 1 << 20 characters", `v1.${"A".repeat((1 << 20) + 8)}`, /^link: is \d+ characters, more than/],
    ['an empty "v1."', "v1.", /^link: (truncated|is empty)/],
  ];
}

// Runs fn over items, `width` at a time; resolves with the results in order.
async function pool(items, width, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

// Opens url#link in a fresh page; checks it is ready and responsive; returns its state.
async function openLinkPage(browser, url, link, what, context = null) {
  const page = await newPage(browser, { context });
  const t0 = Date.now();
  await page.goto(`${url}#${link}`, { timeout: READY_MS });
  await waitReady(page, what);
  const readyMs = Date.now() - t0;
  // Responsive: a round trip into the page and two new frames, promptly.
  const r0 = Date.now();
  await page.evaluate(() => window.attentionPlayground.stats());
  const roundTrip = Date.now() - r0;
  if (roundTrip > 2000) fail(`${what}: a call into the page took ${roundTrip} ms`);
  await waitForFrames(page);
  return { page, readyMs };
}

async function checkLinks({ browser, url }) {
  const ref = await defaultState(browser, url);
  ok(`links: the default page shows the first preset "${ref.presets[0]}" and no notice`);

  // Control: the unbroken link opens.
  {
    const { page } = await openLinkPage(browser, url, linkOf(VALID_LINK), "the valid control link");
    const got = await readState(page);
    if (got.notice !== "") fail(`the valid control link shows a notice: ${short(got.notice)}`);
    if (got.view.step !== 3) fail(`the valid control link shows step ${got.view.step}, expected 3`);
    if (!isDeepStrictEqual(got.scenario.x, VALID_SCENARIO.x)) fail("the valid control link did not load its scenario");
    checkNoProblems(page, "the valid control link");
    await page.close();
  }

  // Each malformed link in a fresh page (three at a time): ready, a notice about the link,
  // the first lesson with a sane trace, and a drawn page.
  const links = malformedLinks();
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  const lines = await pool(links, POOL_WIDTH, async ([name, link, pattern]) => {
    const what = `link "${name}" (${link.length} characters)`;
    const { page, readyMs } = await openLinkPage(browser, url, link, what, context);
    const got = await readState(page);
    if (!got.notice) fail(`${what}: opened without a notice (stats().notice is empty)`);
    if (!/link/i.test(got.notice)) fail(`${what}: the notice does not mention the link: ${short(got.notice)}`);
    const errorLine = got.notice.split("\n").find((l) => l.startsWith("link")) ?? "";
    if (!pattern.test(errorLine)) {
      fail(`${what}: the notice's error line is ${short(errorLine || got.notice)}; expected ${pattern}`);
    }
    if (!isDeepStrictEqual(got.scenario, ref.scenario)) {
      fail(`${what}: getScenario() is not the default (first preset): ${short(got.scenario, 300)}`);
    }
    if (got.view.preset !== ref.presets[0]) fail(`${what}: the view shows preset "${got.view.preset}"`);
    checkTraceSane(got.trace, what);
    if (!isDeepStrictEqual(got.trace, ref.trace)) fail(`${what}: getTrace() differs from the default page's`);
    const img = await screenshot(page, what);
    checkNoProblems(page, what);
    await page.close();
    return `links: ${name}: ready in ${readyMs} ms, default lesson, ${img.colours} colours; ${short(errorLine, 110)}`;
  });
  await context.close();
  lines.forEach((line) => ok(line));

  // Bounded, not refused: the largest scenario a link may carry (4096 tokens) still opens and
  // the page stays responsive.
  {
    const x = Array.from({ length: 4096 }, (_, i) => [((i * 7) % 11) / 10, 1]);
    const what = "a link with 4096 tokens (the row limit)";
    const { page, readyMs } = await openLinkPage(browser, url, linkOf({ scenario: { version: 1, x } }), what);
    const got = await page.evaluate(() => {
      const ap = window.attentionPlayground;
      return { notice: ap.stats().notice, rows: ap.getScenario().x.length };
    });
    if (got.notice !== "" || got.rows !== 4096) fail(`${what}: ${got.rows} rows, notice ${short(got.notice)}`);
    checkNoProblems(page, what);
    await page.close();
    ok(`links: ${what} opens in ${readyMs} ms and the page keeps drawing frames`);
  }

  // A real link made by getLink() reopens the same scenario, view and trace.
  const a = await openApp(browser, url, "the page that makes a link");
  const state = await a.evaluate(() => {
    const ap = window.attentionPlayground;
    const loaded = ap.loadPreset("multi_head").ok;
    const step = ap.setStep(4).step, head = ap.focusHead(1).head;
    return { loaded, step, head, link: ap.getLink(), scenario: ap.getScenario(), trace: ap.getTrace() };
  });
  if (!state.loaded || state.step !== 4 || state.head !== 1) {
    fail(`loadPreset("multi_head"), setStep(4), focusHead(1) returned ${state.loaded}, ${state.step}, ${state.head}`);
  }
  if (!/^v1\.[A-Za-z0-9_-]+\.[A-D][A-Za-z0-9_-]{5}$/.test(state.link)) fail(`getLink() returned ${short(state.link)}`);

  // A malformed link pasted into the open page (hashchange): a notice, and the page keeps
  // what it showed. First let the address catch up with the state (it follows after 250 ms).
  try {
    await a.waitForFunction((l) => location.hash === `#${l}`, state.link, { timeout: 5000 });
  } catch {
    fail("the address of the page did not follow getLink() within 5 s");
  }
  const noticeLine = async () => {
    const n = await a.evaluate(() => window.attentionPlayground.stats().notice);
    return n.split("\n").find((l) => l.startsWith("link")) ?? "";
  };
  const unchanged = async (what) => {
    const now = await a.evaluate(() => {
      const ap = window.attentionPlayground;
      return { scenario: ap.getScenario(), view: ap.getView(), trace: ap.getTrace() };
    });
    if (!isDeepStrictEqual(now.scenario, state.scenario) || now.view.head !== 1 ||
        !isDeepStrictEqual(now.trace, state.trace)) {
      fail(`${what} changed the open playground (step ${now.view.step}, head ${now.view.head})`);
    }
  };
  for (const [name, link, pattern] of [links[1], links.find(([n]) => n.startsWith("x with 100000"))]) {
    await a.evaluate((l) => { location.hash = l; }, link);
    const line = await until(async () => { const l = await noticeLine(); return pattern.test(l) ? l : null; },
                             `hashchange to the link "${name}": no notice matching ${pattern}`);
    await unchanged(`hashchange to the link "${name}"`);
    ok(`links: pasting the link "${name}" into the open page shows ${short(line, 80)} and keeps its state`);
  }

  const { page: b } = await openLinkPage(browser, url, state.link, "the page that opens the link");
  const got = await readState(b);
  if (got.notice !== "") fail(`the linked page shows a notice: ${short(got.notice)}`);
  if (!isDeepStrictEqual(got.scenario, state.scenario)) fail("the linked page's getScenario() differs");
  if (got.view.step !== 4 || got.view.head !== 1) {
    fail(`the linked page shows step ${got.view.step}, head ${got.view.head}; expected 4, 1`);
  }
  if (got.view.preset !== "multi_head") fail(`the linked page shows preset "${got.view.preset}", not multi_head`);
  if (!isDeepStrictEqual(got.trace, state.trace)) fail("the linked page's getTrace() differs");
  checkNoProblems(b, "the linked page");
  await b.close();
  ok(`links: ${links.length} malformed links fall back to the first lesson with a notice; a getLink() ` +
     `link (${state.link.length} characters) reopens multi_head at step 4, head 1 with an equal trace`);

  // The same while the address is about to follow a change of step: the pasted link must
  // still be read (opened, or refused with a notice), never overwritten by the page's own
  // address update. Each link has its own row count, so that each notice is told apart.
  const waits = [130, 160, 190, 220, 245];
  for (const [k, wait] of waits.entries()) {
    const rows = 5001 + k;  // more than the 4096 a scenario may have
    const link = linkOf(`{"scenario":{"version":1,"x":[${Array(rows).fill("[0]").join(",")}]}}`);
    const seen = await a.evaluate(async ([link, wait, step]) => {
      const ap = window.attentionPlayground;
      const seen = [];
      const onHash = () => seen.push(location.hash.length - 1);
      window.addEventListener("hashchange", onHash);
      await new Promise((resolve) => {
        const off = ap.on("step", () => { off(); resolve(); });
        setTimeout(() => { off(); resolve(); }, 2000);
        ap.setStep(step);
      });
      await new Promise((r) => setTimeout(r, wait));
      location.hash = link;
      for (let t = 0; t < 3000 && seen.length === 0; t += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300)); // and the address update, if it comes after
      window.removeEventListener("hashchange", onHash);
      return seen;
    }, [link, wait, k % 2 ? 3 : 5]);
    let line = "";
    for (const t0 = Date.now(); Date.now() - t0 < 3000 && !line.includes(`has ${rows} rows`);) {
      line = await noticeLine();
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!line.includes(`has ${rows} rows`)) {
      const lost = !seen.includes(link.length);
      fail(`a link pasted ${wait} ms after a step change was ${lost ? "lost" : "not reported"}: the hashchange ` +
           `handler saw a fragment of ${seen.join(", ") || "no"} characters (the pasted one has ${link.length}), ` +
           `and the notice says ${short(line, 80)}` +
           (lost ? ". The page's pending address update (scheduleLinkUpdate in web/js/link.js, 250 ms after the " +
                   "change) ran history.replaceState over the new fragment before its hashchange event was " +
                   "handled, so the link was neither opened nor refused" : ""));
    }
    await unchanged(`the link pasted ${wait} ms after a step change`);
  }
  ok(`links: links pasted ${waits.join(", ")} ms after a step change are each read and refused with a notice`);
  checkNoProblems(a, "the page that makes a link");
  await a.close();
}

//-----------------------------------------------------------------------------
// 2. course: the example course page drives two embedded playgrounds
//-----------------------------------------------------------------------------

async function checkCourse({ browser, url }) {
  const page = await newPage(browser);
  // Record the height messages the course page receives, by iframe id.
  await page.addInitScript(() => {
    if (window.top !== window) return;
    window.__heights = [];
    window.addEventListener("message", (e) => {
      if (e.data?.type !== "attention-playground:height") return;
      const frame = [...document.querySelectorAll("iframe")].find((f) => f.contentWindow === e.source);
      window.__heights.push({ id: frame?.id ?? null, height: e.data.height, origin: e.origin });
    });
  });
  await page.goto(`${url}examples/course.html`, { timeout: READY_MS });
  const frameOf = async (id) => {
    const frame = await (await page.$(`iframe#${id}`))?.contentFrame();
    if (!frame) fail(`course.html has no iframe #${id}`);
    return frame;
  };
  const padding = await frameOf("padding"), heads = await frameOf("heads");
  await waitReady(padding, "course.html #padding");
  await waitReady(heads, "course.html #heads");
  ok("course: both playgrounds are ready");

  const section = (target) => `.controls[data-target="${target}"]`;
  const click = (target, action, extra = "") =>
    page.click(`${section(target)} button[data-action="${action}"]${extra}`);
  const replyOf = (target) => page.$eval(`${section(target)} .reply`,
                                         (e) => ({ text: e.textContent, error: e.classList.contains("error") }));
  const waitReply = async (target, pattern, what) => {
    const r = await until(async () => {
      const r = await replyOf(target);
      return pattern.test(r.text) || r.error ? r : null;
    }, `${what}: the reply line did not match ${pattern}; it says "${(await replyOf(target)).text}"`);
    if (r.error || !pattern.test(r.text)) fail(`${what}: the reply line says "${r.text}" (error: ${r.error})`);
    return r.text;
  };
  const view = (frame) => frame.evaluate(() => window.attentionPlayground.getView());
  const scenario = (frame) => frame.evaluate(() => window.attentionPlayground.getScenario());

  // Section 1: next step.
  const before = (await view(padding)).step;
  if (before >= 7) fail(`#padding starts at step ${before}; the next-step button cannot go further`);
  await page.click(`${section("padding")} button:has-text("Next step ▶")`);
  const text = await waitReply("padding", new RegExp(`^Step ${before + 2} of 8$`), "Next step ▶");
  const after = (await view(padding)).step;
  if (after !== before + 1) fail(`Next step ▶: #padding went from step ${before} to ${after}`);
  ok(`course: "Next step ▶" moved #padding from step ${before} to ${after}; the reply says "${text}"`);

  // Section 1: mask off, then on again.
  const lens0 = (await scenario(padding)).valid_lens;
  if (lens0 === undefined) fail("#padding (padded_batch) starts without valid_lens");
  await click("padding", "toggle-mask");
  await until(async () => (await scenario(padding)).valid_lens === undefined,
              "Mask on / off: valid_lens did not disappear from #padding's scenario");
  const offText = (await replyOf("padding")).text;
  await click("padding", "toggle-mask");
  const lens2 = await until(async () => (await scenario(padding)).valid_lens,
                            "Mask on / off (second click): valid_lens did not come back");
  const onReply = await replyOf("padding");
  if (onReply.error) fail(`Mask on / off: the reply line shows an error: "${onReply.text}"`);
  ok(`course: "Mask on / off" removed valid_lens ${JSON.stringify(lens0)} ("${offText}") and put back ` +
     `${JSON.stringify(lens2)} ("${onReply.text}")`);

  // Section 2: head 2, causal.
  await page.click(`${section("heads")} button[data-action="head"][data-head="1"]`);
  await until(async () => (await view(heads)).head === 1, "Head 2: #heads getView().head did not become 1");
  const headText = await waitReply("heads", /Head 2/, "Head 2");
  const causal0 = (await scenario(heads)).causal === true;
  if (causal0) fail("#heads (multi_head) starts causal");
  await click("heads", "causal");
  await until(async () => (await scenario(heads)).causal === true,
              "Causal on / off: #heads getScenario().causal did not become true");
  const causalText = await waitReply("heads", /./, "Causal on / off");
  ok(`course: "Head 2" focused head 1 ("${headText}"); "Causal on / off" made #heads causal ("${causalText}")`);

  // Heights: each iframe is sized from its playground's height message.
  const heights = await page.evaluate(() => ({
    messages: window.__heights,
    styles: Object.fromEntries([...document.querySelectorAll("iframe")].map((f) => [f.id, f.style.height])),
  }));
  for (const id of ["padding", "heads"]) {
    const last = heights.messages.filter((m) => m.id === id).at(-1);
    if (!last) fail(`#${id} never posted an attention-playground:height message to the course page`);
    const expected = `${Math.min(Math.max(last.height, 320), 1400)}px`;
    if (heights.styles[id] !== expected) {
      fail(`#${id}: style.height is "${heights.styles[id]}", expected ${expected} from its height message ${last.height}`);
    }
  }
  ok(`course: iframe heights set from the height messages: #padding ${heights.styles.padding}, ` +
     `#heads ${heights.styles.heads}`);

  // The height fits the content at the frame's width: once the frames have their height,
  // nothing scrolls inside them, and a narrower page gives them another height.
  const settled = async (what) => {
    let last = "";
    for (let k = 0; k < 40; ++k) {  // until the heights stop changing
      await page.waitForTimeout(250);
      const now = await page.evaluate(() => [...document.querySelectorAll("iframe")].map((f) => f.style.height).join(","));
      if (now === last) break;
      last = now;
    }
    const out = {};
    for (const f of page.frames().filter((f) => f !== page.mainFrame())) {
      const id = await f.frameElement().then((e) => e.getAttribute("id"));
      const st = await f.evaluate(() => window.attentionPlayground?.stats?.());
      if (!id || !st) continue;
      const height = await page.evaluate((i) => document.getElementById(i).style.height, id);
      if (st.center_scroll_max > 2) fail(`${what}: #${id} (${height}) still scrolls ${st.center_scroll_max.toFixed(0)} px inside`);
      out[id] = height;
    }
    return out;
  };
  const wide = await settled("at 1400 px");
  await page.setViewportSize({ width: 820, height: 900 });
  const narrow = await settled("at 820 px");
  if (JSON.stringify(wide) === JSON.stringify(narrow)) {
    fail(`the frames keep one height at 1400 and 820 px wide: ${JSON.stringify(wide)}`);
  }
  ok(`course: the frames' heights fit their content with no inner scrolling: at 1400 px ` +
     `${JSON.stringify(wide)}, at 820 px ${JSON.stringify(narrow)}`);
  checkNoProblems(page, "course.html");
  await page.close();
}

//-----------------------------------------------------------------------------
// 3. origins: only the embedding parent, or origins in ?allow=, may drive the playground
//-----------------------------------------------------------------------------

async function checkOrigins({ browser, url }) {
  const b = await startFixtureServer(), c = await startFixtureServer();
  try {
    const A = new URL(url).origin, B = new URL(b.url).origin, C = new URL(c.url).origin;
    if (new Set([A, B, C]).size !== 3) fail(`the three origins are not distinct: ${A}, ${B}, ${C}`);

    const open = async (playgroundUrl) => {
      const page = await newPage(browser);
      const parentUrl = `${b.url}origins_parent.html?playground=${encodeURIComponent(playgroundUrl)}` +
                        `&sender=${encodeURIComponent(`${c.url}origins_sender.html`)}`;
      await page.goto(parentUrl, { timeout: READY_MS });
      const frame = (origin) => until(() => page.frames().find((f) => f.url().startsWith(`${origin}/`)),
                                      `no frame from ${origin} in the fixture page`, READY_MS);
      const playground = await frame(A), sender = await frame(C);
      await waitReady(playground, `the playground framed by ${B}`);
      await sender.waitForFunction(() => typeof window.apSend === "function", null, { timeout: READY_MS });
      // The parent hears "ready" from the playground, from origin A.
      await until(() => page.evaluate(() => window.apMessages.some(
        (m) => m.fromPlayground && m.data?.type === "attention-playground:ready")),
      "the parent page got no attention-playground:ready message", READY_MS);
      const fromA = await page.evaluate(() => window.apMessages.filter((m) => m.fromPlayground).map((m) => m.origin));
      if (!fromA.every((o) => o === A)) fail(`messages from the playground came from ${fromA}, expected ${A}`);
      return { page, playground, sender };
    };
    const send = (target, msg, timeout = 3000) => target.evaluate(([m, t]) => window.apSend(m, t), [msg, timeout]);
    let nextId = 1;
    const call = async (target, method, args, what) => {
      const id = `t${nextId++}`;
      const r = await send(target, { type: `${PREFIX}call`, id, method, args });
      if (!r) fail(`${what}: no reply to ${method}(${short(args)})`);
      if (r.origin !== A) fail(`${what}: the reply came from ${r.origin}, not ${A}`);
      if (r.data.ok !== true) fail(`${what}: ${method}(${short(args)}) replied ${short(r.data)}`);
      return r.data.result;
    };
    const stateVia = async (page) => ({ view: await call(page, "getView", [], "parent getView"),
                                        scenario: await call(page, "getScenario", [], "parent getScenario") });

    // (a)–(c): the default rule, the embedding parent only.
    const playgroundUrl = `${url}?embed=1&preset=multi_head&step=3`;
    const { page, playground, sender } = await open(playgroundUrl);
    const view0 = await call(page, "getView", [], "(a) a valid call from the parent");
    if (view0.step !== 2 || view0.preset !== "multi_head") fail(`(a) getView() is ${short(view0)}`);
    const step = await call(page, "setStep", [3], "(a) setStep(3) from the parent");
    if (step !== 3) fail(`(a) setStep(3) from the parent returned ${step}`);
    ok(`origins: (a) calls from the parent ${B} are answered ok from ${A} (getView, setStep(3) → 3)`);

    // A course page on another origin hears the learner's answers: "quiz" events, after subscribe.
    await call(page, "subscribe", [], "(a) subscribe from the parent");
    await call(page, "loadPreset", ["cross_attention"], "(a) loadPreset from the parent");
    const quizReply = await call(page, "answerQuiz", [0, { key: 1 }], "(a) answerQuiz from the parent");
    if (quizReply.correct !== true) fail(`(a) answerQuiz(0, {key: 1}) replied ${short(quizReply)}`);
    const quizEvent = await until(() => page.evaluate(() => window.apMessages.find((m) => m.fromPlayground &&
      m.data?.type === "attention-playground:event" && m.data.event === "quiz")),
    "the parent page got no quiz event", 5000);
    if (quizEvent.origin !== A || !isDeepStrictEqual(quizEvent.data.detail,
      { lesson: "cross_attention", question: 0, correct: true }))
      fail(`(a) the quiz event is ${short(quizEvent)}`);
    const progress = await call(page, "getProgress", [], "(a) getProgress from the parent");
    if (progress.marks.cross_attention !== "r-") fail(`(a) getProgress() marks are ${short(progress.marks)}`);
    await call(page, "loadPreset", ["multi_head"], "(a) loadPreset back");
    await call(page, "setStep", [3], "(a) setStep back");
    ok(`origins: (a) the parent on ${B} hears {lesson: "cross_attention", question: 0, correct: true} ` +
       "as a quiz event from " + A + ", and reads the marks with getProgress");

    // (b) malformed calls from the parent: an error that names the field; nothing changes.
    const base = await stateVia(page);
    const malformed = [
      ["an unknown method", { type: `${PREFIX}call`, id: "m1", method: "deleteEverything", args: [] }, "method:"],
      ["a method that is not a string", { type: `${PREFIX}call`, id: "m2", method: 7, args: [] }, "method:"],
      ["an inherited name as method", { type: `${PREFIX}call`, id: "m2b", method: "constructor", args: [] }, "method:"],
      ["setStep with a string", { type: `${PREFIX}call`, id: "m3", method: "setStep", args: ["7"] }, "args[0]:"],
      ["setStep with 2.5", { type: `${PREFIX}call`, id: "m4", method: "setStep", args: [2.5] }, "args[0]:"],
      ["setStep without its argument", { type: `${PREFIX}call`, id: "m5", method: "setStep", args: [] }, "args[0]:"],
      ["setScenario with a number", { type: `${PREFIX}call`, id: "m6", method: "setScenario", args: [42] }, "args[0]:"],
      ["setScenario with text over 1 << 20 characters",
       { type: `${PREFIX}call`, id: "m6b", method: "setScenario", args: [" ".repeat((1 << 20) + 1)] }, "args[0]:"],
      ["loadPreset with an object", { type: `${PREFIX}call`, id: "m7", method: "loadPreset", args: [{}] }, "args[0]:"],
      ["args not an array", { type: `${PREFIX}call`, id: "m8", method: "focusHead", args: "1" }, "args:"],
      ["too many args", { type: `${PREFIX}call`, id: "m9", method: "setStep", args: [7, 1] }, "args:"],
      ["no id", { type: `${PREFIX}call`, method: "setStep", args: [7] }, "id:"],
      ["an object as id", { type: `${PREFIX}call`, id: { x: 1 }, method: "setStep", args: [7] }, "id:"],
      ['type "attention-playground:bogus"', { type: `${PREFIX}bogus`, id: "m12", method: "setStep", args: [7] }, "type:"],
    ];
    for (const [name, msg, field] of malformed) {
      const r = await send(page, msg);
      if (!r) fail(`(b) ${name}: no reply (expected ok:false naming ${field})`);
      if (!isDeepStrictEqual(r.data.id, msg.id ?? null) || r.data.ok !== false) fail(`(b) ${name}: replied ${short(r.data)}`);
      if (typeof r.data.error !== "string" || !r.data.error.startsWith(field)) {
        fail(`(b) ${name}: the error is ${short(r.data.error)}; expected it to start with "${field}"`);
      }
      const now = await stateVia(page);
      if (!isDeepStrictEqual(now, base)) fail(`(b) ${name}: changed the playground: ${short(now.view)}`);
    }
    ok(`origins: (b) ${malformed.length} malformed calls from the parent get ok:false naming the field ` +
       "(method, args, args[0], id, type) and change nothing");

    // (c) the same calls from origin C: no reply, no change.
    const foreign = [
      { type: `${PREFIX}call`, id: "c1", method: "setStep", args: [7] },
      { type: `${PREFIX}call`, id: "c2", method: "setScenario", args: [VALID_SCENARIO] },
      { type: `${PREFIX}call`, id: "c3", method: "loadPreset", args: ["padded_batch"] },
      { type: `${PREFIX}call`, id: "c4", method: "getView", args: [] },
      { type: `${PREFIX}call`, id: "c5", method: "subscribe", args: [] },
      { type: `${PREFIX}bogus`, id: "c6" },
    ];
    const replies = await sender.evaluate((msgs) => Promise.all(msgs.map((m) => window.apSend(m, 1000))), foreign);
    const answered = replies.map((r, i) => (r ? foreign[i].id : null)).filter(Boolean);
    if (answered.length) fail(`(c) calls from ${C} were answered: ${answered.join(", ")}`);
    const heard = await sender.evaluate(() => window.apMessages.filter((m) => m.fromPlayground).map((m) => m.data?.type));
    if (heard.length) fail(`(c) the sender on ${C} received messages from the playground: ${heard.join(", ")}`);
    const afterC = await stateVia(page);
    if (!isDeepStrictEqual(afterC, base)) fail(`(c) calls from ${C} changed the playground: ${short(afterC.view)}`);
    const direct = await playground.evaluate(() => window.attentionPlayground.getView());
    if (direct.step !== base.view.step) fail(`(c) the playground is at step ${direct.step}, expected ${base.view.step}`);
    checkNoProblems(page, "the fixture page (default rule)");
    await page.close();
    ok(`origins: (c) ${foreign.length} messages from ${C} got no reply within 1 s and changed nothing`);

    // (d) with ?allow=<origin C> the same calls from C are answered and applied.
    const allowed = await open(`${playgroundUrl}&allow=${encodeURIComponent(C)}`);
    const stepC = await call(allowed.sender, "setStep", [7], `(d) setStep(7) from allowed ${C}`);
    if (stepC !== 7) fail(`(d) setStep(7) from ${C} returned ${stepC}`);
    const setC = await send(allowed.sender, { type: `${PREFIX}call`, id: "d2", method: "setScenario",
                                              args: [VALID_SCENARIO] });
    if (!setC || setC.data.ok !== true) fail(`(d) setScenario from ${C} replied ${short(setC?.data)}`);
    const stateD = await stateVia(allowed.page);
    if (stateD.view.step !== 7) fail(`(d) the parent reads step ${stateD.view.step} after setStep(7) from ${C}`);
    if (!isDeepStrictEqual(stateD.scenario.x, VALID_SCENARIO.x)) fail(`(d) setScenario from ${C} was not applied`);
    const badC = await send(allowed.sender, { type: `${PREFIX}call`, id: "d3", method: "nope", args: [] });
    if (!badC || badC.data.ok !== false || !badC.data.error.startsWith("method:")) {
      fail(`(d) a malformed call from allowed ${C} replied ${short(badC?.data)}`);
    }
    checkNoProblems(allowed.page, "the fixture page (?allow=)");
    await allowed.page.close();
    ok(`origins: (d) with ?allow=${C} the sender's setStep(7) and setScenario are answered and applied`);
  } finally {
    b.server.close();
    c.server.close();
  }
}

//-----------------------------------------------------------------------------
// 4. requests: nothing leaves the site's origin; the CSP is sent and declared
//-----------------------------------------------------------------------------

async function checkRequests({ browser, url }) {
  const origin = new URL(url).origin;
  const page = await newPage(browser);
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  const response = await page.goto(url, { timeout: READY_MS });
  await waitReady(page, "the playground");

  const csp = response.headers()["content-security-policy"] ?? "";
  if (!/(^|;)\s*default-src 'self'\s*(;|$)/.test(csp)) {
    fail(`index.html is served with Content-Security-Policy "${csp}", expected default-src 'self'`);
  }
  const meta = await page.evaluate(() =>
    document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.getAttribute("content") ?? null);
  if (meta === null) fail("index.html has no <meta http-equiv=\"Content-Security-Policy\">");
  if (!/(^|;)\s*default-src 'self'\s*(;|$)/.test(meta)) fail(`index.html's CSP meta is "${meta}", without default-src 'self'`);
  ok("requests: index.html has default-src 'self' in its Content-Security-Policy header and meta");

  const font = page.waitForResponse((r) => r.url().endsWith("/fonts/cjk.ttf"), { timeout: READY_MS });
  await page.evaluate(() => window.attentionPlayground.setLanguage("zh"));
  const fontResponse = await font;
  if (fontResponse.status() !== 200) fail(`fonts/cjk.ttf: HTTP ${fontResponse.status()}`);
  await waitForFrames(page);
  const grids = await currentGrids(page);
  const id = grids.main ? "main" : Object.keys(grids)[0];
  if (!id) fail("layout() lists no heatmap to export");
  const png = await exportPng(page, id);
  if (!PNG_SIGNATURE.every((v, i) => png[i] === v)) fail(`exportPng("${id}") is not a PNG`);

  const response2 = await page.goto(`${url}examples/course.html`, { timeout: READY_MS });
  for (const frameId of ["padding", "heads"]) {
    const frame = await (await page.$(`iframe#${frameId}`)).contentFrame();
    await waitReady(frame, `course.html #${frameId}`);
  }
  const csp2 = response2.headers()["content-security-policy"] ?? "";
  const meta2 = await page.evaluate(() =>
    document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.getAttribute("content") ?? "");
  if (!csp2.includes("default-src 'self'") || !meta2.includes("default-src 'self'")) {
    fail(`course.html: CSP header "${csp2}", meta "${meta2}"; both should have default-src 'self'`);
  }

  const foreign = requests.filter((u) => {
    if (u.startsWith("data:") || u.startsWith("blob:")) return false;
    try {
      return new URL(u).origin !== origin;
    } catch {
      return true;
    }
  });
  if (foreign.length) fail(`requests outside ${origin}: ${foreign.map((u) => short(u, 100)).join(", ")}`);
  // The app's WebAssembly: any build (threads where the page is isolated, relaxed SIMD where
  // it validates, else SIMD128).
  const module = /^\/attention-playground(-relaxed|-threads|-threads-relaxed)?\.wasm$/;
  for (const needed of ["/index.html", "/app.js", module, "/fonts/cjk.ttf",
                        "/examples/course.html", "/examples/course.js"]) {
    const matches = (path) => (needed instanceof RegExp ? needed.test(path) : path === needed) ||
      (needed === "/index.html" && path === "/");
    if (!requests.some((u) => matches(new URL(u).pathname))) {
      fail(`no request for ${needed} was recorded (recording is broken?): ${requests.map((u) => new URL(u).pathname).join(", ")}`);
    }
  }
  checkNoProblems(page, "the playground and course.html");
  await page.close();
  ok(`requests: ${requests.length} requests (playground, zh font, PNG export of "${id}", course page with ` +
     `two playgrounds) all to ${origin}`);
}

//-----------------------------------------------------------------------------
// 5. exports: CSV, JSON, trace, NumPy and PNG agree with the API
//-----------------------------------------------------------------------------

// RFC 4180: CRLF line ends, quoted fields with doubled quotes.
function parseCsv(text, what) {
  if (!text.endsWith("\r\n")) fail(`${what}: does not end with CRLF`);
  const rows = [];
  let row = [], field = "", i = 0, quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (ch === '"') { quoted = false; ++i; continue; }
      field += ch; ++i; continue;
    }
    if (ch === '"' && field === "") { quoted = true; ++i; continue; }
    if (ch === ",") { row.push(field); field = ""; ++i; continue; }
    if (ch === "\r" && text[i + 1] === "\n") { row.push(field); rows.push(row); row = []; field = ""; i += 2; continue; }
    if (ch === "\n" || ch === "\r") fail(`${what}: a bare line break at offset ${i} (lines must end with CRLF)`);
    field += ch; ++i;
  }
  if (quoted) fail(`${what}: an unterminated quoted field`);
  return rows;
}

async function checkExports({ browser, url, opts }) {
  const page = await openApp(browser, url, "the playground");
  const ex = (what, options) => page.evaluate(([w, o]) => window.attentionPlayground.export(w, o), [what, options]);

  // padded_batch: weights of head 0, batch item 1 as CSV.
  const loaded = await page.evaluate(() => window.attentionPlayground.loadPreset("padded_batch"));
  if (!loaded.ok) fail(`loadPreset("padded_batch"): ${loaded.error}`);
  const { trace, scenario, view } = await readState(page);
  const csv = await ex("weights", { format: "csv", head: 0, batch: 1 });
  if (csv.ok !== true || typeof csv.data !== "string") fail(`export("weights", csv) returned ${short(csv)}`);
  if (csv.mime !== "text/csv" || !/\.csv$/.test(csv.filename)) fail(`export("weights", csv): ${csv.filename}, ${csv.mime}`);
  const rows = parseCsv(csv.data, "weights CSV");
  const ref = trace.heads[0].weights[1];
  // Labels as on screen: in English, a token written {"en", "zh"} is its "en".
  const shown = (list) => list.map((t) => (typeof t === "string" ? t : t.en));
  const qTokens = shown(scenario.query_tokens[1]), kTokens = shown((scenario.key_tokens ?? scenario.query_tokens)[1]);
  if (rows.length !== ref.length + 1) fail(`weights CSV has ${rows.length} lines, expected ${ref.length + 1}`);
  if (!isDeepStrictEqual(rows[0], ["", ...kTokens])) fail(`weights CSV header is ${short(rows[0])}, expected "" + ${short(kTokens)}`);
  let cells = 0;
  ref.forEach((refRow, q) => {
    const line = rows[q + 1];
    if (line.length !== refRow.length + 1) fail(`weights CSV line ${q + 2} has ${line.length} cells, expected ${refRow.length + 1}`);
    if (line[0] !== qTokens[q]) fail(`weights CSV line ${q + 2} is labelled "${line[0]}", expected "${qTokens[q]}"`);
    refRow.forEach((v, k) => {
      const text = line[k + 1];
      if (!/^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(text)) fail(`weights CSV [${q}][${k}] is "${text}", not a number`);
      // Both are shortest round-trip float32 texts, so as float32 they are the same number (the
      // doubles parseFloat gives differ from Math.fround(v) unless v is a short binary fraction).
      if (Math.fround(parseFloat(text)) !== Math.fround(v)) {
        fail(`weights CSV [${q}][${k}] is ${text}, getTrace() has ${v} (as float32 ${Math.fround(v)})`);
      }
      // ... and the shortest: no fewer significant digits read back to the same float32.
      const digits = text.split("e")[0].replace(/[-.]/g, "").replace(/^0+/, "").replace(/0+$/, "").length;
      let shortest = 1;
      while (shortest < 9 && Math.fround(parseFloat(Math.fround(v).toPrecision(shortest))) !== Math.fround(v)) ++shortest;
      if (v !== 0 && digits !== shortest) {
        fail(`weights CSV [${q}][${k}] is ${text} (${digits} digits); the shortest text of that float32 has ${shortest}`);
      }
      ++cells;
    });
  });
  ok(`exports: weights CSV (head 0, batch 1) matches getTrace() exactly in ${cells} cells; labels are the tokens`);

  const js = await ex("scores", { format: "json" });
  if (js.ok !== true) fail(`export("scores", json) returned ${short(js)}`);
  const scores = JSON.parse(js.data);
  const refScores = trace.heads[view.head].scores[view.batch];
  if (!isDeepStrictEqual(scores.values, refScores)) fail(`scores JSON values differ from getTrace(): ${short(scores.values)}`);
  if (!isDeepStrictEqual(scores.rows, shown(scenario.query_tokens[view.batch])) ||
      !isDeepStrictEqual(scores.columns, shown((scenario.key_tokens ?? scenario.query_tokens)[view.batch]))) {
    fail(`scores JSON labels ${short(scores.rows)} / ${short(scores.columns)} are not the tokens`);
  }
  const tr = await ex("trace");
  if (tr.ok !== true || !isDeepStrictEqual(JSON.parse(tr.data), trace)) fail("export(\"trace\") differs from getTrace()");
  const bogus = await ex("bogus");
  if (bogus.ok !== false || typeof bogus.error !== "string" || !bogus.error.includes("matrix")) {
    fail(`export("bogus") returned ${short(bogus)}, expected ok:false naming "matrix"`);
  }
  ok(`exports: scores JSON (head ${view.head}, batch ${view.batch}) and the trace equal getTrace(); ` +
     `export("bogus"): ${short(bogus.error, 60)}`);

  // The NumPy program recomputes the same trace.
  if (!existsSync(opts.python)) fail(`${opts.python} does not exist (--python)`);
  const dir = mkdtempSync(join(tmpdir(), "ap-embed-test-"));
  try {
    for (const name of ["padded_batch", "multi_head", "textbook_additive"]) {
      const got = await page.evaluate((n) => {
        const ap = window.attentionPlayground;
        if (!ap.loadPreset(n).ok) return null;
        return { numpy: ap.export("numpy"), trace: ap.getTrace() };
      }, name);
      if (!got) fail(`loadPreset("${name}") returned false`);
      if (got.numpy.ok !== true) fail(`${name}: export("numpy") returned ${short(got.numpy)}`);
      const file = join(dir, `${name}.py`);
      writeFileSync(file, got.numpy.data);
      let out;
      try {
        out = execFileSync(opts.python, [file], { encoding: "utf8", timeout: 30000, maxBuffer: 1 << 26,
                                                  stdio: ["ignore", "pipe", "pipe"] });
      } catch (e) {
        fail(`${name}: ${opts.python} ${file} failed: ${short(e.stderr || e.message, 400)}`);
      }
      let py;
      try {
        py = JSON.parse(out);
      } catch (e) {
        fail(`${name}: the NumPy program printed no JSON (${e.message}): ${short(out)}`);
      }
      if (py.version !== 1) fail(`${name}: the NumPy program printed trace version ${py.version}`);
      const c = compareJson(py, got.trace, { path: `${name} numpy`, refName: "the page" });
      if (c.problem) fail(c.problem);
      ok(`exports: ${name}: the NumPy export (${got.numpy.data.length} chars) prints the page's trace (${c.numbers} numbers within 1e-5)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // PNG of a heatmap at step 5, the size of the widget as laid out, at two pixel ratios.
  await page.close();
  for (const [viewport, dpr] of [[VIEWPORT, 1], [{ width: 1000, height: 700 }, 2]]) {
    const p = await openApp(browser, url, `the playground at devicePixelRatio ${dpr}`, { viewport, dpr });
    await p.evaluate(() => window.attentionPlayground.setStep(5));
    await waitForFrames(p);
    const grids = await currentGrids(p);
    const id = grids.main ? "main" : Object.keys(grids)[0];
    if (!id) fail(`step 5 (dpr ${dpr}): layout() lists no heatmap`);
    const g = grids[id];
    if (![g.wx0, g.wy0, g.wx1, g.wy1].every(Number.isFinite)) {
      fail(`layout().${id} has no widget rectangle wx0, wy0, wx1, wy1 (keys: ${Object.keys(g).join(", ")})`);
    }
    const ratio = await p.evaluate(() => window.devicePixelRatio);
    const png = await exportPng(p, id);
    if (!PNG_SIGNATURE.every((v, i) => png[i] === v)) fail(`exportPng("${id}") does not start with the PNG signature`);
    if (png.toString("latin1", 12, 16) !== "IHDR") fail(`exportPng("${id}"): the first chunk is not IHDR`);
    const w = png.readUInt32BE(16), h = png.readUInt32BE(20);
    const ew = (g.wx1 - g.wx0) * ratio, eh = (g.wy1 - g.wy0) * ratio;
    if (Math.abs(w - ew) > 10 || Math.abs(h - eh) > 10) {
      fail(`exportPng("${id}") at devicePixelRatio ${ratio} is ${w}×${h}; the widget is ` +
           `${(g.wx1 - g.wx0).toFixed(1)}×${(g.wy1 - g.wy0).toFixed(1)} CSS px, so expected ` +
           `${ew.toFixed(0)}×${eh.toFixed(0)} ± 10`);
    }
    const img = decodePng(png);
    const colours = distinctColours(img);
    if (colours < 10) fail(`exportPng("${id}") has only ${colours} colours`);
    checkNoProblems(p, `PNG export at devicePixelRatio ${dpr}`);
    await p.close();
    ok(`exports: exportPng("${id}") at devicePixelRatio ${ratio} is a ${w}×${h} PNG (${colours} colours) ` +
       `for a ${ew.toFixed(0)}×${eh.toFixed(0)} px widget`);
  }
}

//-----------------------------------------------------------------------------
// 6. embed: URL parameters for course pages
//-----------------------------------------------------------------------------

async function checkEmbed({ browser, url }) {
  const ref = await defaultState(browser, url);
  const plain = await openApp(browser, `${url}?preset=causal_decoder&step=4`, "the page without embed");
  await waitForFrames(plain);
  const plainImg = await screenshot(plain, "the page without embed");
  checkNoProblems(plain, "the page without embed");
  await plain.close();

  const page = await openApp(browser,
    `${url}?embed=1&preset=causal_decoder&step=4&hide=preset,randomize&panels=details,lesson&lang=en`,
    "the embedded page");
  const { view, notice } = await readState(page);
  const problems = [];
  if (view.embed !== true) problems.push(`embed ${view.embed}`);
  if (view.step !== 3) problems.push(`step ${view.step}`);
  if (view.preset !== "causal_decoder") problems.push(`preset "${view.preset}"`);
  if (view.lang !== "en") problems.push(`lang "${view.lang}"`);
  if (!view.hidden.includes("preset") || !view.hidden.includes("randomize")) problems.push(`hidden ${short(view.hidden)}`);
  if (!isDeepStrictEqual(view.panels, ["details", "lesson"])) problems.push(`panels ${short(view.panels)}`);
  if (problems.length) fail(`embedded page: getView() has ${problems.join(", ")}`);
  if (notice !== "") fail(`embedded page shows a notice: ${short(notice)}`);
  await waitForFrames(page);
  const img = await screenshot(page, "the embedded page");
  checkNoProblems(page, "the embedded page");
  await page.close();

  // No dark title bar: the top 20 rows have no dark pixel; the plain page has its dark bar.
  let darkest = 255, plainDarkest = 255;
  for (let y = 0; y < 20; ++y) {
    for (let x = 0; x < img.width; ++x) {
      const i = 4 * (y * img.width + x);
      darkest = Math.min(darkest, luminance(img.pixels, i));
      plainDarkest = Math.min(plainDarkest, luminance(plainImg.pixels, i));
    }
  }
  if (darkest < 60) fail(`the embedded page's top 20 rows have a pixel of luminance ${darkest.toFixed(0)} (a dark top bar?)`);
  if (plainDarkest >= 60) fail(`the page without embed has no dark top bar (darkest ${plainDarkest.toFixed(0)} in the top 20 rows)`);
  let differ = 0;
  for (let i = 0; i < img.pixels.length; i += 4) {
    if (Math.abs(img.pixels[i] - plainImg.pixels[i]) + Math.abs(img.pixels[i + 1] - plainImg.pixels[i + 1]) +
        Math.abs(img.pixels[i + 2] - plainImg.pixels[i + 2]) > 24) ++differ;
  }
  const fraction = differ / (img.width * img.height);
  if (fraction < 0.05) fail(`the embedded page differs from the plain one in only ${(100 * fraction).toFixed(1)}% of the pixels`);
  ok(`embed: getView() ${short(view, 200)}; no dark top bar (darkest ${darkest.toFixed(0)} vs ` +
     `${plainDarkest.toFixed(0)}); ${(100 * fraction).toFixed(0)}% of the pixels differ from the plain page`);

  // An unknown preset: a notice, and the default lesson.
  const nope = await openApp(browser, `${url}?preset=nope`, "?preset=nope");
  const got = await readState(nope);
  if (!got.notice) fail("?preset=nope: no notice (stats().notice is empty)");
  if (!got.notice.includes("nope")) fail(`?preset=nope: the notice does not name the preset: ${short(got.notice)}`);
  if (got.view.preset !== ref.presets[0] || !isDeepStrictEqual(got.scenario, ref.scenario)) {
    fail(`?preset=nope: shows "${got.view.preset}", not the default "${ref.presets[0]}"`);
  }
  checkNoProblems(nope, "?preset=nope");
  await nope.close();
  ok(`embed: ?preset=nope keeps "${ref.presets[0]}" with the notice ${short(got.notice, 120)}`);
}

const CHECKS = {
  links: checkLinks,
  course: checkCourse,
  origins: checkOrigins,
  requests: checkRequests,
  exports: checkExports,
  embed: checkEmbed,
};

//-----------------------------------------------------------------------------
// Main
//-----------------------------------------------------------------------------

await runChecks(CHECKS, {
  options: { python: "/usr/bin/python3" },
  checkMs: CHECK_MS,
  run: (name, context) => CHECKS[name](context),
});
