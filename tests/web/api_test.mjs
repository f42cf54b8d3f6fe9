// window.attentionPlayground as a program calls it, in headless Chromium (WebGL2 on
// SwiftShader): its traces equal the native CLI's, bad scenarios and bad calls are refused
// with the field named and change nothing, typed arrays and NumPy files go in and out, the
// largest scenarios and the longest exports work in parts, and links and the address's
// parameters reopen the same state or are named and ignored.
//
//   node tests/web/api_test.mjs --site DIR [--cli NATIVE_attention-cli] [--presets DIR] CHECK... | all
//
// CHECK is one of the names in CHECKS below, or "all" to run every check in one browser
// (harness.mjs runChecks: "ok - ..." lines, "FAIL: CHECK: ..." for each failed check, exit 1 if
// any failed). Every check also fails on a console error or an uncaught page error (page.mjs
// runPageChecks).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { compareJson, fail, ok } from "./harness.mjs";
import { TIMEOUT_MS, TOLERANCE, VIEWPORT, checkNoProblems, currentGrids, openPage, presetFiles, presetPath,
         runPageChecks, sameJson, setScenario, waitForFrames } from "./page.mjs";

// Scenarios the API must refuse, and the field each error must start with.
const BAD_SCENARIOS = [
  ["heads that do not divide d_model",
   { version: 1, x: [[1, 2, 3, 4], [5, 6, 7, 8]], heads: 3, init: { seed: 1, d_model: 8 } },
   "heads"],
  ["a key row of the wrong length",
   { version: 1, queries: [[[1, 0, 0, 1]]], keys: [[[1, 0, 0, 1], [0, 1, 0, 1], [1, 1, 0]]],
     values: [[[1], [2], [3]]] },
   "keys[0][2]"],
  ["an unknown scoring", { version: 1, queries: [[1, 2]], keys: [[1, 2]], values: [[1]],
                           scoring: "telepathy" }, "scoring"],
  ["a number instead of an object", 42, "scenario"],
  ["text that is not JSON", "{\"version\": 1, \"queries\": [[1, 2]", "json"],
];

// Waits until nothing computes in parts (stats().computing: a large scenario, or a lean one's
// focused head), then for the frames that show it.
async function waitForComputing(page) {
  await page.waitForFunction(() => window.attentionPlayground.stats().computing === null, null,
                             { timeout: TIMEOUT_MS * 2, polling: 50 });
  await waitForFrames(page);
}

// For every preset: setScenario → getTrace equals `attention-cli eval`, and getScenario
// equals `attention-cli normalize`.
async function checkTrace({ page, opts }) {
  if (!opts.cli || !existsSync(opts.cli)) {
    fail(`the native attention-cli is missing (${opts.cli ?? "no --cli"}): build the native-release ` +
         "preset first (scripts/build.sh does)");
  }
  const cli = (...args) => JSON.parse(execFileSync(opts.cli, args, { encoding: "utf8", maxBuffer: 1 << 28 }));
  for (const file of presetFiles(opts)) {
    const name = basename(file, ".json");
    await setScenario(page, JSON.parse(readFileSync(file, "utf8")), name);
    const [trace, scenario] = await page.evaluate(() => {
      const ap = window.attentionPlayground;
      return [ap.getTrace(), ap.getScenario()];
    });
    const ref = cli("eval", file);
    for (const [l, one] of (ref.layers ?? [ref]).entries()) {  // a stack: every layer's heads
      if (!Array.isArray(one.heads) || one.heads.length === 0) fail(`${name}: the CLI's trace has no heads (layer ${l})`);
      for (const [k, h] of one.heads.entries()) {
        for (const part of ["scores", "scaled", "masked", "weights", "output"]) {
          if (!Array.isArray(h[part])) fail(`${name}: the CLI's heads[${k}] has no ${part}`);
        }
      }
    }
    if (!Array.isArray(ref.output)) fail(`${name}: the CLI's trace has no output`);
    const worst = compareJson(trace, ref, { tolerance: TOLERANCE, path: "trace", refName: "the CLI" });
    if (worst.problem) fail(worst.problem);
    if (!sameJson(scenario, cli("normalize", file))) {
      fail(`${name}: getScenario() differs from attention-cli normalize`);
    }
    ok(`trace of ${name} matches the CLI (largest relative difference ` +
       `${worst.worst.toExponential(2)} at ${worst.path})`);
  }
}

// Bad scenarios are refused with an error naming the field, and change nothing.
async function checkBadScenarios({ page, opts }) {
  await page.evaluate(() => window.attentionPlayground.loadPreset("multi_head"));
  const before = await page.evaluate(() => {
    const ap = window.attentionPlayground;
    return { scenario: ap.getScenario(), trace: ap.getTrace(), link: ap.getLink() };
  });
  for (const [what, scenario, field] of BAD_SCENARIOS) {
    const r = await page.evaluate((s) => window.attentionPlayground.setScenario(s), scenario);
    if (!r || r.ok !== false) fail(`setScenario(${what}) returned ${JSON.stringify(r)}, expected ok: false`);
    if (typeof r.error !== "string" || !r.error.startsWith(`${field}: `)) {
      fail(`setScenario(${what}): error ${JSON.stringify(r.error)} does not start with "${field}: "`);
    }
    // The native CLI says the same about the same text.
    if (typeof scenario === "object") {
      if (!opts.cli || !existsSync(opts.cli)) fail(`the native attention-cli is missing (${opts.cli})`);
      let stderr = "";
      try {
        execFileSync(opts.cli, ["validate", "-"], { input: JSON.stringify(scenario), encoding: "utf8",
                                                    stdio: ["pipe", "pipe", "pipe"] });
      } catch (e) {
        stderr = String(e.stderr).trim();
      }
      if (stderr !== `error: ${r.error}`) {
        fail(`setScenario(${what}): error "${r.error}", but the CLI says "${stderr}"`);
      }
    }
    const after = await page.evaluate(() => {
      const ap = window.attentionPlayground;
      return { scenario: ap.getScenario(), trace: ap.getTrace(), link: ap.getLink() };
    });
    for (const k of ["scenario", "trace", "link"]) {
      if (!sameJson(after[k], before[k])) fail(`setScenario(${what}) was refused but changed get${k}`);
    }
    ok(`setScenario(${what}) → ${r.error}`);
  }
  // Stacked layers: the page takes them, shows the first layer, and hands the whole stack back
  // (getScenario as attention-cli normalize, getTrace as its eval); a stack the core refuses
  // (a layer whose heads do not divide the width) is refused by name and changes nothing.
  const layered = { version: 1, x: [[1, 0], [0, 1]], init: { seed: 1, d_model: 2 }, layers: [{}, {}] };
  const r = await page.evaluate((s) => window.attentionPlayground.setScenario(s), layered);
  if (r?.ok !== true) fail(`setScenario(layers) returned ${JSON.stringify(r)}`);
  const got = await page.evaluate(() => {
    const ap = window.attentionPlayground;
    return { scenario: ap.getScenario(), trace: ap.getTrace(), view: ap.getView() };
  });
  const normalized = JSON.parse(execFileSync(opts.cli, ["normalize", "-"], { input: JSON.stringify(layered), encoding: "utf8" }));
  if (!sameJson(got.scenario, normalized)) fail("getScenario() of a stack differs from attention-cli normalize");
  const evaluated = JSON.parse(execFileSync(opts.cli, ["eval", "-"], { input: JSON.stringify(layered), encoding: "utf8" }));
  const worst = compareJson(got.trace, evaluated, { tolerance: TOLERANCE, path: "trace", refName: "the CLI" });
  if (worst.problem) fail(worst.problem);
  if (got.view.layers !== 2 || got.view.layer !== 0) fail(`a stack's view: ${JSON.stringify(got.view).slice(0, 160)}`);
  const before2 = await page.evaluate(() => window.attentionPlayground.getScenario());
  const bad = { ...layered, layers: [{}, { heads: 3 }] };
  const r2 = await page.evaluate((s) => window.attentionPlayground.setScenario(s), bad);
  if (r2?.ok !== false || !String(r2.error).startsWith("layers[1].heads")) fail(`setScenario(bad layers) returned ${JSON.stringify(r2)}`);
  const after = await page.evaluate(() => window.attentionPlayground.getScenario());
  if (!sameJson(after, before2)) fail("setScenario(bad layers) was refused but changed the scenario");
  ok(`setScenario(layers): shown a layer at a time, getScenario and getTrace as the CLI's (largest ` +
     `relative difference ${worst.worst.toExponential(2)}); a bad layer → ${r2.error}`);
}

// A link reopens the same scenario, step, head and trace in a new page.
async function checkLink({ page, browser, url, opts, pages }) {
  await setScenario(page, JSON.parse(readFileSync(presetPath(opts, "multi_head"), "utf8")), "multi_head");
  const state = await page.evaluate(() => {
    const ap = window.attentionPlayground;
    const step = ap.setStep(4).step, head = ap.focusHead(1).head;
    return { step, head, link: ap.getLink(), scenario: ap.getScenario(), trace: ap.getTrace(),
             view: ap.getView() };
  });
  if (state.step !== 4 || state.head !== 1) {
    fail(`setStep(4), focusHead(1) returned ${state.step}, ${state.head}`);
  }
  if (!/^v1\.[A-Za-z0-9_-]+\.[A-D][A-Za-z0-9_-]{5}$/.test(state.link)) fail(`getLink() returned "${state.link.slice(0, 80)}"`);
  // The page keeps its address up to date with the link.
  try {
    await page.waitForFunction((link) => location.hash === `#${link}`, state.link, { timeout: 5000 });
  } catch {
    fail("the address of the page did not follow getLink() within 5 s");
  }
  const other = await openPage(browser, `${url}#${state.link}`);
  pages.push(other);
  const got = await other.evaluate(() => {
    const ap = window.attentionPlayground;
    return { scenario: ap.getScenario(), trace: ap.getTrace(), view: ap.getView(), link: ap.getLink() };
  });
  if (!sameJson(got.scenario, state.scenario)) fail("the linked page's getScenario() differs");
  if (got.view.step !== 4 || got.view.head !== 1) {
    fail(`the linked page shows step ${got.view.step}, head ${got.view.head}; expected 4, 1`);
  }
  if (!sameJson(got.trace, state.trace)) fail("the linked page's getTrace() differs");
  if (got.link !== state.link) fail("the linked page's getLink() differs from the link it opened");
  await waitForFrames(other);
  if (!(await currentGrids(other)).main) fail("the linked page draws no \"main\" heatmap at step 4");
  checkNoProblems(other, "in the linked page");
  ok(`link round trip: ${state.link.length} characters; scenario, step 4, head 2 and trace reopen equal`);
}

// Every call answers with {ok, error} on bad input instead of throwing, changes nothing then,
// and answers {ok: true, error: null, ...} on good input; before the ready event too.
async function checkApi({ browser, url, pages }) {
  // Before ready: a page asked as soon as its script has run.
  const early = await browser.newPage({ viewport: VIEWPORT });
  pages.push(early);
  early.problems = [];
  await early.goto(url, { waitUntil: "domcontentloaded" });
  const before = await early.evaluate(() => {
    const ap = window.attentionPlayground;
    if (ap.isReady) return null;  // too late to see it: nothing to check
    return [ap.getTrace(), ap.setStep(1), ap.export("weights"), ap.stats()];
  });
  if (before) {
    for (const r of before) {
      if (r?.ok !== false || !/^not ready/.test(r.error)) fail(`before ready: ${JSON.stringify(r)}`);
    }
    ok("api: before the ready event, getters and actions answer {ok: false, error: \"not ready...\"}");
  }
  const page = await openPage(browser, url);
  pages.push(page);
  await page.evaluate(() => window.attentionPlayground.loadPreset("multi_head"));
  const got = await page.evaluate(async () => {
    const ap = window.attentionPlayground;
    const view0 = ap.getView(), scenario0 = JSON.stringify(ap.getScenario());
    const calls = {
      "setStep(99)": () => ap.setStep(99),
      'setStep("2")': () => ap.setStep("2"),
      "setStep(2.5)": () => ap.setStep(2.5),
      "focusHead(5)": () => ap.focusHead(5),
      "setBatch(1)": () => ap.setBatch(1),
      "setLayer(1)": () => ap.setLayer(1),  // one layer: only 0
      "setLayer(-1)": () => ap.setLayer(-1),
      'setLanguage("fr")': () => ap.setLanguage("fr"),
      'loadPreset("nope")': () => ap.loadPreset("nope"),
      "loadPreset(7)": () => ap.loadPreset(7),
      "export(42)": () => ap.export(42),
      'export("weights", 5)': () => ap.export("weights", 5),
      'export("bogus")': () => ap.export("bogus"),
      'export("weights", {format: "xml"})': () => ap.export("weights", { format: "xml" }),
      'exportPng("nope")': () => ap.exportPng("nope"),
      'on("step", 5)': () => ap.on("step", 5),
      "setScenario(undefined)": () => ap.setScenario(undefined),
    };
    const bad = {};
    for (const [name, fn] of Object.entries(calls)) {
      try {
        bad[name] = await fn();
      } catch (e) {
        bad[name] = { threw: String(e) };
      }
    }
    const unchanged = JSON.stringify(ap.getView()) === JSON.stringify(view0) &&
                      JSON.stringify(ap.getScenario()) === scenario0;
    const good = {
      step: ap.setStep(3), head: ap.focusHead(1), lang: ap.setLanguage("en"),
      preset: ap.loadPreset("multi_head"), nullOptions: ap.export("weights", null),
      png: await ap.exportPng("main").then((r) => ({ ok: r.ok, error: r.error, blob: r.blob instanceof Blob })),
    };
    return { bad, unchanged, good };
  });
  for (const [name, r] of Object.entries(got.bad)) {
    if (r?.threw) fail(`${name} threw ${r.threw}`);
    if (r?.ok !== false || typeof r.error !== "string" || !/^[a-z_.]+[[:]/.test(r.error)) {
      fail(`${name} returned ${JSON.stringify(r)}, expected {ok: false, error: "<field>: ..."}`);
    }
  }
  if (!got.unchanged) fail("a refused call changed the view or the scenario");
  const g = got.good;
  if (!g.step.ok || g.step.step !== 3 || g.step.error !== null) fail(`setStep(3) returned ${JSON.stringify(g.step)}`);
  if (!g.head.ok || g.head.head !== 1) fail(`focusHead(1) returned ${JSON.stringify(g.head)}`);
  if (!g.lang.ok || !g.preset.ok) fail(`setLanguage("en"), loadPreset: ${JSON.stringify([g.lang, g.preset])}`);
  if (!g.nullOptions.ok || !/^weights_head1_batch1\.csv$/.test(g.nullOptions.filename)) {
    fail(`export("weights", null) returned ${JSON.stringify(g.nullOptions).slice(0, 200)}`);
  }
  if (!g.png.ok || !g.png.blob) fail(`exportPng("main") resolved with ${JSON.stringify(g.png)}`);
  ok(`api: ${Object.keys(got.bad).length} bad calls answer {ok: false, error} naming the field and ` +
     "change nothing; good calls answer {ok: true, error: null, ...}; nothing throws");
}

// The scenario that once blanked the page for good (four sequences of 4096 tokens: every
// head's matrices of every item would take 1 GiB) is drawn, one batch item at a time, and the
// page goes on working.
async function checkMemory({ page }) {
  const r = await page.evaluate(() => {
    const rows = (n) => Array.from({ length: n }, () => [0]);
    return window.attentionPlayground.setScenario({ version: 1, x: [rows(4096), rows(4096), rows(4096), rows(4096)] });
  });
  if (!r.ok) fail(`setScenario(4 × 4096 tokens) was refused: ${r.error}`);
  for (const [step, batch] of [[5, 3], [2, 0], [6, 1]]) {
    await page.evaluate(([s, b]) => { window.attentionPlayground.setStep(s); window.attentionPlayground.setBatch(b); },
                        [step, batch]);
    await waitForComputing(page);
    const grids = await currentGrids(page);
    const main = grids.main ?? grids.w;
    if (!main || main.rows !== 4096 || main.cols !== 4096) {
      fail(`step ${step}, item ${batch + 1}: no 4096 × 4096 heatmap drawn (${Object.keys(grids).join(", ")})`);
    }
  }
  const stats = await page.evaluate(() => window.attentionPlayground.stats());
  if (!stats.lean || stats.error) fail(`stats after the big scenario: ${JSON.stringify(stats)}`);
  const back = await page.evaluate(() => window.attentionPlayground.loadPreset("padded_batch"));
  if (!back.ok) fail(`loadPreset after the big scenario: ${back.error}`);
  await waitForFrames(page);
  ok(`memory: 4 × 4096 tokens are drawn one batch item at a time (WASM heap ${Math.round(stats.heap_bytes / 2 ** 20)} MiB), ` +
     "and a preset loads afterwards");
}

// A link the page refuses stays in the address bar, and in the history, until the learner
// changes something; then the address follows the page again.
async function checkRefusedLink({ browser, url, pages }) {
  const refused = "v9.eyJzY2VuYXJpbyI6e319";  // a newer version
  const page = await openPage(browser, `${url}#${refused}`);
  pages.push(page);
  const notice = await page.evaluate(() => window.attentionPlayground.stats().notice);
  if (!/newer than this playground/.test(notice)) fail(`the refused link's notice is ${JSON.stringify(notice)}`);
  await page.evaluate(() => window.attentionPlayground.setStep(3));  // a page script, not the learner
  await page.waitForTimeout(3500);
  const kept = await page.evaluate(() => location.hash);
  if (kept !== `#${refused}`) fail(`3.5 s after a refused link the address holds ${kept.slice(0, 60)}`);
  // The learner clicks and steps: the address becomes the page's own link.
  const box = await page.evaluate(() => {
    const r = document.getElementById("canvas").getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height - 20 };
  });
  await page.mouse.click(box.x, box.y);
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((r) => location.hash.length > 1 && location.hash !== `#${r}`, refused,
                             { timeout: 5000 }).catch(() => {});
  const own = await page.evaluate(() => location.hash);
  if (!/^#v1\./.test(own)) fail(`after the learner's input the address is ${own.slice(0, 60)}, not the page's link`);
  ok("refused-link: a refused link stays in the address until the learner acts; then the page's link replaces it");
}

// A bad URL parameter is named in a notice and ignored; the good ones still apply.
async function checkParams({ browser, url, pages }) {
  const page = await openPage(browser, `${url}?allow=javascript:alert(1),https://ok.example&step=99&head=3&layer=2` +
                                       "&preset=multi_head&hide=causal,casual&lang=klingon" +
                                       "&own=..%2F..%2Fetc%2Fpasswd,why_so_tall");
  pages.push(page);
  const state = await page.evaluate(() => ({ notice: window.attentionPlayground.stats().notice,
                                             view: window.attentionPlayground.getView() }));
  for (const want of ['allow: "javascript:alert(1)" is not an origin', "step: must be a whole number from 1 to 8",
                      "head: must be a whole number from 1 to 2", "layer: must be a whole number from 1 to 1",
                      'hide: no control "casual"',
                      'lang: must be en or zh, not "klingon"',
                      // ?own= fetches nothing outside course/ and nothing for a lesson it has.
                      'own: "../../etc/passwd" is not a lesson name']) {
    if (!state.notice.includes(want)) fail(`the notice does not say "${want}": ${JSON.stringify(state.notice)}`);
  }
  if (state.view.lesson !== "multi_head") fail(`?preset=multi_head was not applied: ${JSON.stringify(state.view)}`);
  // The known id is hidden all the same: the canvas draws no causal checkbox.
  if (!state.view.hidden?.includes("causal")) fail(`?hide=causal,casual did not hide causal: ${JSON.stringify(state.view)}`);
  // The address counts as the page does: ?step=6 is the step titled "6. Weights", ?head=2 the
  // second head (the JS API's step 5 and head 1), ?layer=2 a stack's second layer, and ?step=0
  // is refused.
  for (const [query, want] of [["preset=multi_head&step=6&head=2", { step: 5, head: 1, layer: 0 }],
                               ["preset=multi_head&step=1", { step: 0, head: 0, layer: 0 }],
                               ["preset=why_stack&step=6&layer=2", { step: 5, head: 0, layer: 1 }]]) {
    const p = await openPage(browser, `${url}?${query}`);
    pages.push(p);
    const v = await p.evaluate(() => window.attentionPlayground.getView());
    if (v.step !== want.step || v.head !== want.head || v.layer !== want.layer) {
      fail(`?${query}: getView() has step ${v.step}, head ${v.head}, layer ${v.layer}; expected ` +
           `${want.step}, ${want.head}, ${want.layer}`);
    }
    if (want.layer === 1) {
      // setLayer: back to the first layer, and a third that the stack does not have is refused.
      const r = await p.evaluate(() => {
        const ap = window.attentionPlayground;
        return { first: ap.setLayer(0), third: ap.setLayer(2), view: ap.getView() };
      });
      if (!r.first.ok || r.first.layer !== 0 || r.view.layer !== 0) fail(`setLayer(0) on why_stack: ${JSON.stringify(r)}`);
      if (r.third.ok || r.third.error !== "layer: must be a whole number from 0 to 1") {
        fail(`setLayer(2) on a stack of two: ${JSON.stringify(r.third)}`);
      }
    }
  }
  // ?transpose=1 draws the step view transposed (the column convention) and getView() says so;
  // ?transpose=yes is named and ignored; 0 (the default) leaves it off.
  for (const [query, want, notice] of [["transpose=1", true, null], ["transpose=0", false, null],
                                       ["transpose=yes", false, 'transpose: must be 1 or 0, not "yes"']]) {
    const p = await openPage(browser, `${url}?preset=why_so_tall&step=6&${query}`);
    pages.push(p);
    const r = await p.evaluate(() => ({ view: window.attentionPlayground.getView(),
                                        notice: window.attentionPlayground.stats().notice,
                                        formula: window.attentionPlayground.getAccessible().formula }));
    if (r.view.transpose !== want) fail(`?${query}: getView().transpose is ${r.view.transpose}, expected ${want}`);
    if (notice && !r.notice.includes(notice)) fail(`?${query}: the notice does not say "${notice}": ${JSON.stringify(r.notice)}`);
    const columns = /^A\[j,i\] = .*softmax over each column/.test(r.formula);
    if (columns !== want) fail(`?${query}: the step's formula is ${JSON.stringify(r.formula)}`);
  }
  const zero = await openPage(browser, `${url}?preset=multi_head&step=0`);
  pages.push(zero);
  const zeroNotice = await zero.evaluate(() => window.attentionPlayground.stats().notice);
  if (!zeroNotice.includes("step: must be a whole number from 1 to 8")) fail(`?step=0: notice ${JSON.stringify(zeroNotice)}`);
  ok("params: bad allow, step, head, layer, hide, lang and own parameters are each named in the notice; ?preset still applies; " +
     "?step=6&head=2 is the step titled 6 and the second head; ?layer=2 and setLayer show a stack's layer; " +
     "?transpose=1 is getView().transpose with the column convention's formula, transpose=yes is named and ignored");
}

// Typed arrays in and out: a scenario given as {shape, data: Float32Array} runs as its JSON
// does, getTrace({typed: true}) holds the same numbers as getTrace(), bad arrays are named,
// and a scenario far past the JSON's 1 MiB is taken.
async function checkTyped({ page, opts }) {
  const scenario = JSON.parse(readFileSync(presetPath(opts, "multi_head"), "utf8"));
  const r = await page.evaluate((scenario) => {
    const ap = window.attentionPlayground;
    const flat = (m) => new Float32Array(m.flat(2));
    const x = scenario.x;
    const is3d = Array.isArray(x[0][0]);
    const shape = is3d ? [x.length, x[0].length, x[0][0].length] : [x.length, x[0].length];
    const typed = { ...scenario, x: { shape, data: flat(x) } };
    const a = ap.setScenario(typed);
    const viaTyped = { trace: ap.getTrace(), scenario: ap.getScenario() };
    const b = ap.setScenario(scenario);
    const viaJson = { trace: ap.getTrace(), scenario: ap.getScenario() };
    const t = ap.getTrace({ typed: true });
    const one = ap.getTrace({ typed: true, heads: [1], matrices: ["weights"] });
    const bad = [
      ap.setScenario({ version: 1, x: { shape: [2, 2], data: [1, 0, 0, 1] } }),
      ap.setScenario({ version: 1, x: { shape: [2, 3], data: new Float32Array(4) } }),
      ap.setScenario({ version: 1, x: { shape: [2, 2], data: new Float32Array([1, NaN, 0, 1]) } }),
      ap.getTrace({ typed: true, heads: [7] }),
    ];
    // 2048 tokens × 256 features: 2 MB of numbers, some 10 MB as JSON text.
    const big = new Float32Array(2048 * 256);
    for (let i = 0; i < big.length; ++i) big[i] = Math.sin(i * 0.01);
    const large = ap.setScenario({ version: 1, x: { shape: [2048, 256], data: big }, heads: 4 });
    const largeTrace = ap.getTrace({ typed: true, heads: [2], matrices: ["weights"] });
    const w = largeTrace.heads[0]?.weights;
    let rowSum = 0;
    for (let j = 0; j < 2048; ++j) rowSum += w.data[5 * 2048 + j];
    return { a, b, same: JSON.stringify(viaTyped) === JSON.stringify(viaJson), json: viaJson.trace,
             typed: { heads: t.heads.map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, [v.shape, Array.from(v.data)]]))),
                      output: [t.output.shape, Array.from(t.output.data)] },
             one: { keys: Object.keys(one.heads[0]), head: one.heads[0].head, shape: one.heads[0].weights.shape },
             bad: bad.map((x) => x.error), large, lean: largeTrace.lean, wshape: w?.shape, rowSum };
  }, scenario);
  if (!r.a.ok || !r.b.ok) fail(`setScenario typed / JSON: ${JSON.stringify([r.a, r.b])}`);
  if (!r.same) fail("a scenario given as typed arrays runs differently from its JSON");
  // Every typed matrix holds the JSON trace's numbers (as float32).
  r.json.heads.forEach((h, k) => {
    for (const m of ["scores", "scaled", "masked", "weights", "output"]) {
      const [shape, data] = r.typed.heads[k][m];
      const want = h[m].flat(2).map((v) => (typeof v === "string" ? Number(v.replace("inf", "Infinity")) : v));
      if (JSON.stringify(shape) !== JSON.stringify([h[m].length, h[m][0].length, h[m][0][0].length])) fail(`typed heads[${k}].${m} has shape ${shape}`);
      want.forEach((v, i) => {
        if (!(Object.is(Math.fround(v), data[i]) || (Number.isNaN(v) && Number.isNaN(data[i])))) {
          fail(`typed heads[${k}].${m}[${i}] is ${data[i]}, the JSON trace has ${v}`);
        }
      });
    }
  });
  if (JSON.stringify(r.one) !== JSON.stringify({ keys: ["head", "weights"], head: 1, shape: [1, 5, 5] })) {
    fail(`getTrace({typed, heads: [1], matrices: ["weights"]}) gave ${JSON.stringify(r.one)}`);
  }
  // The data's length is checked against its shape in the page, before anything is copied.
  const want = ["x.data: must be a Float32Array", "x.data: has 4 numbers, expected 6",
                "x[0][1]: is not a finite number", "heads: must be an array of different heads from 0 to 1"];
  r.bad.forEach((e, i) => { if (!e?.startsWith(want[i])) fail(`bad typed call ${i}: ${e}, expected ${want[i]}…`); });
  if (!r.large.ok) fail(`a 2048 × 256 typed scenario was refused: ${r.large.error}`);
  if (!r.lean || JSON.stringify(r.wshape) !== "[1,2048,2048]" || Math.abs(r.rowSum - 1) > 1e-4) {
    fail(`the 2048-token trace: lean ${r.lean}, weights ${JSON.stringify(r.wshape)}, a row sums to ${r.rowSum}`);
  }
  ok("typed: typed arrays in run as the JSON does and come out as the JSON trace's numbers; bad " +
     "arrays are named; 2048 × 256 (10 MB as text) is taken, and a lean head computed on demand");
}

// NumPy files: np.savez_compressed's Q, K and V given to loadArrays, and a lone .npy dropped
// on the page, become the scenario's fields, number for number; a broken file is named in an
// answer and in the notice on the canvas, and the scenario before stays; with hide=open a drop
// is ignored.
async function checkArrays({ page, browser, url, pages }) {
  const made = JSON.parse(execFileSync("/usr/bin/python3", ["-c", `
import base64, io, json, numpy as np
rng = np.random.default_rng(5)
a = {"queries": rng.standard_normal((7, 16)).astype(np.float32),
     "keys": rng.standard_normal((9, 16)),
     "values": rng.integers(-9, 9, size=(9, 4)).astype(">i2")}
z = io.BytesIO(); np.savez_compressed(z, **a)
k = io.BytesIO(); np.save(k, (a["keys"] * 2).astype(np.float16))
print(json.dumps({"npz": base64.b64encode(z.getvalue()).decode(),
                  "npy": base64.b64encode(k.getvalue()).decode(),
                  "want": {n: v.astype(np.float32).tolist() for n, v in a.items()},
                  "keys2": (a["keys"] * 2).astype(np.float16).astype(np.float32).tolist()}))
`], { encoding: "utf8" }));
  const r = await page.evaluate(async ({ npz, npy }) => {
    const ap = window.attentionPlayground;
    const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const loaded = ap.loadArrays(bytes(npz).buffer, "data.npz");
    const s = ap.getScenario();
    const weights = ap.getTrace().heads[0].weights[0];
    // A lone .npy dropped on the page, as a browser delivers it.
    const drop = (name, data) => {
      const dt = new DataTransfer();
      dt.items.add(new File([data], name));
      window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    };
    // The page reads a dropped file asynchronously: until the scenario changes (3 s at most).
    const was = JSON.stringify(ap.getScenario());
    drop("keys.npy", bytes(npy));
    for (const t0 = performance.now(); JSON.stringify(ap.getScenario()) === was && performance.now() - t0 < 3000;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const dropped = ap.getScenario();
    const before = JSON.stringify(dropped);
    const cut = bytes(npz).slice(0, 500);
    const bad = [ap.loadArrays(cut, "cut.npz"), ap.loadArrays("not bytes", "x.npz"),
                 ap.loadArrays(bytes(npy), "W_z.npy")];
    drop("cut.npz", cut);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { loaded, title: s.title, queries: s.queries, keys: s.keys, values: s.values,
             rowSum: weights[3].reduce((a, b) => a + b, 0), droppedKeys: dropped.keys,
             bad: bad.map((b) => b.error), unchanged: JSON.stringify(ap.getScenario()) === before,
             notice: ap.stats().notice };
  }, made);
  if (!r.loaded.ok) fail(`loadArrays of an np.savez_compressed file: ${r.loaded.error}`);
  if (r.title?.en !== "Your data: data.npz") fail(`the title is ${JSON.stringify(r.title)}`);
  for (const name of ["queries", "keys", "values"]) {
    const got = r[name].flat(2), want = made.want[name].flat(2);
    if (got.length !== want.length || got.some((v, i) => Math.fround(v) !== want[i])) {
      fail(`${name} from the .npz is not NumPy's numbers (as float32)`);
    }
  }
  if (Math.abs(r.rowSum - 1) > 1e-5) fail(`a row of weights sums to ${r.rowSum}`);
  const k2 = made.keys2.flat(), gotK2 = r.droppedKeys.flat(2);
  if (gotK2.length !== k2.length || gotK2.some((v, i) => Math.fround(v) !== k2[i])) {
    fail("a dropped keys.npy (float16) did not become the keys");
  }
  const want = ["cut.npz: not a ZIP file", "data: must be an ArrayBuffer or a typed array",
                "W_z.npy: W_z: is not a matrix field"];
  r.bad.forEach((e, i) => { if (!e?.startsWith(want[i])) fail(`bad loadArrays ${i}: ${e}, expected ${want[i]}…`); });
  if (!r.unchanged) fail("a refused file changed the scenario");
  if (!r.notice.startsWith("This file could not be opened.\ncut.npz: not a ZIP file")) {
    fail(`a dropped broken file showed the notice ${JSON.stringify(r.notice)}`);
  }
  // A stack's layer weights by their state-dict names, dropped on the stack lesson: layer 0's
  // W_o of zeros, so layer 0 adds nothing to the stream, and layer 1 is as the lesson has it.
  const state = execFileSync("/usr/bin/python3", ["-c", `
import base64, io, numpy as np
z = io.BytesIO(); np.savez(z, **{"layers.0.W_o": np.zeros((18, 18), np.float32)})
print(base64.b64encode(z.getvalue()).decode())
`], { encoding: "utf8" }).trim();
  const stack = await page.evaluate(async (b64) => {
    const ap = window.attentionPlayground;
    ap.loadPreset("why_stack");
    const adds = () => ap.getTrace().layers.map((l) => l.output.flat(2).some((v) => v !== 0));
    const before = { adds: adds(), W_q1: JSON.stringify(ap.getScenario().layers[1].W_q) };
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "state.npz"));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    for (const t0 = performance.now(); ap.getScenario().title?.en !== "Your data: state.npz" && performance.now() - t0 < 3000;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const s = ap.getScenario();
    return { before, adds: adds(), title: s.title?.en, layers: s.layers.length,
             zero: s.layers[0].W_o.flat().every((v) => v === 0),
             sameW_q1: JSON.stringify(s.layers[1].W_q) === before.W_q1 };
  }, state);
  if (String(stack.before.adds) !== "true,true") fail(`before the drop the stack's layers add ${stack.before.adds}`);
  if (stack.title !== "Your data: state.npz" || stack.layers !== 2 || !stack.zero || !stack.sameW_q1 ||
      String(stack.adds) !== "false,true") {
    fail(`a dropped state dict with layers.0.W_o: ${JSON.stringify(stack)}`);
  }
  // hide=open: the page takes no drop.
  const hidden = await openPage(browser, `${url}?hide=open`);
  pages.push(hidden);
  const ignored = await hidden.evaluate(async (npy) => {
    const ap = window.attentionPlayground;
    const before = JSON.stringify(ap.getScenario());
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(npy), (c) => c.charCodeAt(0))], "keys.npy"));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    return JSON.stringify(ap.getScenario()) === before;
  }, made.npy);
  if (!ignored) fail("with hide=open a dropped file still replaced the scenario");
  ok("arrays: np.savez_compressed and a dropped float16 .npy become the fields, number for number; " +
     "broken files are named and change nothing; a dropped state dict's layers.0.W_o of zeros stops " +
     "why_stack's layer 0 adding to the stream; hide=open ignores drops");
}

// Long exports: exportFile writes the same text as export(), a part at a time with its
// progress; export() refuses a matrix past 2^16 numbers and names exportFile; a newer
// exportFile ends an older one; the heatmap menu's "Copy as CSV" of a large matrix is written
// in parts and downloaded.
async function checkExportFile({ page }) {
  const r = await page.evaluate(async () => {
    const ap = window.attentionPlayground;
    const scenario = (n) => {
      const data = new Float32Array(n * 16);
      for (let i = 0; i < data.length; ++i) data[i] = Math.sin(i * 0.37);
      return { version: 1, x: { shape: [n, 16], data } };
    };
    // export() at once (up to 2^16 numbers), exportFile() in parts: the same text.
    ap.setScenario(scenario(256));
    ap.setStep(5);
    const same = {};
    const progress = {};
    for (const format of ["csv", "json"]) {
      const whole = ap.export("weights", { format });
      const file = await ap.exportFile("weights", { format });
      same[format] = file.ok && whole.ok && file.filename === whole.filename &&
                     (await file.blob.text()) === whole.data;
    }
    ap.setScenario(scenario(700));
    const middle = ap.export("weights", { format: "csv" });
    for (const format of ["csv", "json"]) {
      progress[format] = [];
      const file = await ap.exportFile("weights", {
        format, onProgress: (done, total) => progress[format].push([done, total]) });
      if (!file.ok) progress[format] = [file.error];
    }
    const scenarioFile = await ap.exportFile("scenario");
    same.scenario = (await scenarioFile.blob.text()) === ap.export("scenario").data;
    const first = ap.exportFile("weights", { format: "csv" });
    const second = ap.exportFile("weights", { format: "json" });
    const [a, b] = await Promise.all([first, second]);
    const bad = await ap.exportFile("weights", { head: 9 });
    ap.setScenario(scenario(2100));
    const refused = ap.export("weights", { format: "csv" });
    for (let i = 0; i < 6; ++i) await new Promise((res) => requestAnimationFrame(res));
    return { same, progress, raced: [a.error, b.ok], bad: bad.error, refused: refused.error,
             middle: middle.error, layout: ap.layout() };
  });
  for (const [k, v] of Object.entries(r.same)) if (!v) fail(`exportFile("${k === "scenario" ? k : `weights", ${k}`}") differs from export()`);
  // Each export reports more than once, with rows rising to all 700 of them.
  for (const [format, steps] of Object.entries(r.progress)) {
    if (steps.length < 2 || steps.some(([d, total], i) => total !== 700 || (i > 0 && d <= steps[i - 1][0])) ||
        steps[steps.length - 1][0] !== 700) {
      fail(`exportFile(${format}): onProgress was not called with rising rows up to 700: ` +
           JSON.stringify(steps.slice(0, 8)));
    }
  }
  if (r.raced[0] !== "export: ended by a newer export" || !r.raced[1]) {
    fail(`two exports at once: ${JSON.stringify(r.raced)}`);
  }
  if (!r.bad?.startsWith("head: must be a whole number from 0 to 0")) fail(`exportFile with head 9: ${r.bad}`);
  if (!r.refused?.startsWith("weights: 4410000 numbers are too many to export at once; exportFile()")) {
    fail(`export() of 2100 × 2100 weights: ${r.refused}`);
  }
  if (!r.middle?.startsWith("weights: 490000 numbers are too many to export at once")) {
    fail(`export() of 700 × 700 weights (more than 2^16 numbers): ${r.middle}`);
  }
  // The menu of the 2100 × 2100 heatmap: right-click, then its first item, "Copy as CSV".
  const g = r.layout.main;
  if (!g) fail(`no main heatmap on screen: ${Object.keys(r.layout)}`);
  const x = (g.x0 + g.x1) / 2, y = (g.y0 + g.y1) / 2;
  await page.mouse.move(x, y);
  await page.mouse.down({ button: "right" });
  await page.mouse.up({ button: "right" });
  await waitForFrames(page);
  const download = page.waitForEvent("download", { timeout: 90000 });
  await page.mouse.move(x + 30, y + 12);
  await waitForFrames(page);
  await page.mouse.down();
  await page.mouse.up();
  const d = await download;
  if (d.suggestedFilename() !== "weights_head1_batch1.csv") fail(`the download is ${d.suggestedFilename()}`);
  const size = statSync(await d.path()).size;
  if (size < 4410000 * 2) fail(`the downloaded CSV has ${size} bytes, too few for 2100 × 2100 numbers`);
  ok(`export-file: exportFile writes what export() does, with progress; export() refuses 2100² numbers ` +
     `and the heatmap menu downloads them (${(size / 1e6).toFixed(0)} MB) written in parts`);
}

// The page trains a stack as attention-cli train does: the induction task from seed 1, 40
// steps through the JS API, gives the scenario the native CLI writes after 40 steps (the same
// batches, Adam at the same float rate), to float32's rounding: the page's WASM kernels (SIMD,
// perhaps relaxed, and threads) round differently from the native build's.
async function checkTrainStack({ page, opts }) {
  const r = await page.evaluate(async () => {
    const ap = window.attentionPlayground;
    const loaded = ap.loadTask("induction", 1);
    const trained = await ap.train(40);
    return { loaded, trained, scenario: ap.getScenario(), view: ap.getView(), link: ap.getLink() };
  });
  if (!r.loaded.ok || !r.trained.ok) fail(`induction: ${JSON.stringify([r.loaded, r.trained]).slice(0, 300)}`);
  if (r.trained.training.step !== 40) fail(`induction: trained ${r.trained.training.step} steps`);
  if (r.view.layers !== 2) fail(`induction: the page shows ${r.view.layers} layers`);
  const task = execFileSync(opts.cli, ["task", "induction", "--seed", "1"], { encoding: "utf8" });
  const out = execFileSync(opts.cli, ["train", "-", "--steps", "40", "--lr", "0.01", "--optimizer", "adam"],
                           { input: task, encoding: "utf8", maxBuffer: 1 << 28 }).trim().split("\n");
  const cliScenario = JSON.parse(out[out.length - 1]);
  const lastLoss = JSON.parse(out[out.length - 2]).loss;
  // The page's scenario says where it came from (its task), the CLI's does not: the weights,
  // embed and unembed must be the same numbers.
  let worst = 0, where = "";
  const near = (a, b, path) => a.forEach((row, i) => row.forEach((v, j) => {
    const d = Math.abs(v - b[i][j]) / Math.max(1, Math.abs(b[i][j]));
    if (d > worst) worst = d, where = `${path}[${i}][${j}]`;
  }));
  for (const l of [0, 1]) {
    for (const m of ["W_q", "W_k", "W_v", "W_o"]) near(r.scenario.layers[l][m], cliScenario.layers[l][m], `layers[${l}].${m}`);
  }
  for (const m of ["embed", "unembed"]) near(r.scenario[m], cliScenario[m], m);
  if (worst > 1e-4) fail(`induction: after 40 steps the page's ${where} is ${worst.toExponential(2)} from the CLI's`);
  const lossGap = Math.abs(r.trained.training.loss - lastLoss) / lastLoss;
  if (lossGap > 1e-4) fail(`induction: the page's last loss ${r.trained.training.loss} is not the CLI's ${lastLoss}`);
  ok(`induction: 40 steps in the page = attention-cli train's (weights within ${worst.toExponential(2)} at ${where}, ` +
     `loss ${lastLoss.toFixed(4)} within ${lossGap.toExponential(1)})`);
}

const CHECKS = {
  "train-stack": checkTrainStack,
  trace: checkTrace,
  "bad-scenarios": checkBadScenarios,
  link: checkLink,
  api: checkApi,
  memory: checkMemory,
  "refused-link": checkRefusedLink,
  params: checkParams,
  typed: checkTyped,
  arrays: checkArrays,
  "export-file": checkExportFile,
};

// Each check's title in the test list (tests/web/CMakeLists.txt reads them with --list).
const TITLES = {
  "train-stack": "a stack trains in the page as attention-cli train does",
  trace: "API trace equals the native CLI",
  "bad-scenarios": "bad scenarios are refused",
  link: "links round trip",
  api: "every call answers {ok, error} and none throws",
  memory: "the largest scenarios are drawn one batch item at a time",
  "refused-link": "a refused link stays in the address until the learner acts",
  params: "bad URL parameters are named and ignored",
  typed: "typed arrays in and out",
  arrays: "NumPy files opened or dropped become the scenario",
  "export-file": "long exports are written in parts",
};

await runPageChecks(CHECKS, { titles: TITLES });
