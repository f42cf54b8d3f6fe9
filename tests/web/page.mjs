// What the runners of the playground's page checks share (render_test.mjs, labels_test.mjs,
// api_test.mjs, load_test.mjs, lesson_test.mjs): a fresh page on the built site that is ready,
// its frames, its heatmaps and pixels, the presets and the native CLI's tolerance, the steps as
// the page numbers them, and runPageChecks, the main of each runner.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fail, runChecks, watchProblems } from "./harness.mjs";
import { decodePng } from "./png.mjs";

export const VIEWPORT = { width: 1400, height: 900 };
// Playwright reports the service worker's requests only with this (checkWire counts them).
process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS = "1";
export const TIMEOUT_MS = 30000; // for the page to load, or a frame to be drawn
export const TOLERANCE = 1e-5; // WASM SIMD vs native, relative to max(1, |reference|)

// A fresh page on the site that collects console errors and page errors. Unless `motion`,
// it prefers reduced motion, so that a step shows its final picture at once (the checks
// that read colours need that; "motion" and "console" run with the animations).
export async function openPage(browser, url, { viewport = VIEWPORT, dpr = 1, motion = false } = {}) {
  const page = await browser.newPage({ viewport, deviceScaleFactor: dpr,
                                       reducedMotion: motion ? "no-preference" : "reduce" });
  watchProblems(page);
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null,
                               { timeout: TIMEOUT_MS, polling: 50 });
  } catch {
    const status = await page.evaluate(() => document.getElementById("status")?.textContent ?? "");
    fail(`the playground was not ready within ${TIMEOUT_MS / 1000} s (status: "${status}"; ` +
         `${page.problems.join("; ") || "no console errors"})`);
  }
  await page.evaluate(() => window.attentionPlayground.ready);
  return page;
}

// The Chinese glyphs arrive after the page is ready (cjk.ttf is fetched on demand): until then
// Chinese text is laid out with stand-in glyphs. Waits for them; fails after TIMEOUT_MS.
export async function chineseGlyphs(page) {
  await page.waitForFunction(() => window.attentionPlayground.stats().font_atlas_cjk === true, null,
                             { timeout: TIMEOUT_MS, polling: 50 })
    .catch(() => fail(`the Chinese glyphs did not arrive within ${TIMEOUT_MS / 1000} s`));
}

export function checkNoProblems(page, when) {
  if (page.problems.length > 0) fail(`${when}: ${page.problems.join("\n  ")}`);
}

// Waits until the app has drawn two more frames (frames(2) wakes an idle page and resolves
// once they are drawn, in the animation frame after them: the screenshot shows them).
export async function waitForFrames(page) {
  const r = await page.evaluate(() => window.attentionPlayground.frames(2));
  if (!r || r.ok !== true) fail(`frames(2): ${r?.error ?? JSON.stringify(r)}`);
}

export async function screenshot(page) {
  const img = decodePng(await page.screenshot());
  if (img.width !== VIEWPORT.width || img.height !== VIEWPORT.height) {
    fail(`screenshot is ${img.width}×${img.height}, expected ${VIEWPORT.width}×${VIEWPORT.height}`);
  }
  return img;
}

export function pixel(img, x, y) {
  const i = 4 * (Math.round(y) * img.width + Math.round(x));
  return [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]];
}

// The mean colour [r, g, b] of a rectangle of the page's screen ({x, y, width, height}).
export async function meanColour(page, clip) {
  const png = decodePng(await page.screenshot({ clip }));
  const sum = [0, 0, 0];
  for (let i = 0; i < png.width * png.height; ++i) for (let k = 0; k < 3; ++k) sum[k] += png.pixels[4 * i + k];
  return sum.map((v) => v / (png.width * png.height));
}

// The middle of cell (row, col), 0-based, of a grid as layout() gives it ({x0, y0, cell}):
// the cell less `inset` of its side on each edge, for meanColour.
export function cellMiddle(grid, row, col, inset = 0.3) {
  const m = grid.cell * inset;
  return { x: grid.x0 + col * grid.cell + m, y: grid.y0 + row * grid.cell + m,
           width: grid.cell - 2 * m, height: grid.cell - 2 * m };
}

export const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, "0")).join("")}`;
export const distance = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
export const euclid = (a, b) => Math.hypot(...a.map((v, i) => v - b[i]));
export const luminance = (c) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];

// WCAG's relative luminance of an sRGB colour [r, g, b] (0-255), and the contrast ratio of two
// colours (1.4.3 asks 4.5:1 of text, 1.4.11 3:1 of a focus ring).
const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
export const relativeLuminance = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
export const contrastRatio = (a, b) => {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

// The heatmaps drawn in the app's latest heatmap frame, by id.
export async function currentGrids(page) {
  const layout = await page.evaluate(() => window.attentionPlayground.layout());
  const latest = Math.max(...Object.values(layout).map((g) => g.frame));
  return Object.fromEntries(Object.entries(layout).filter(([, g]) => g.frame === latest));
}

// The steps the checks name, by the English names limits().steps lists in the app's order:
// `output` is the step that forms a head's output, W · V ("Weighted values").
const STEP_NAMES = { scores: "Scores", scaled: "Scaled", weights: "Weights", output: "Weighted values" };

// The page's index of each step in STEP_NAMES ({scores: 2, ...}), read from the page (once a
// check) rather than copied from the C++.
export async function readSteps(page) {
  const names = await page.evaluate(() => window.attentionPlayground.limits().steps);
  if (!Array.isArray(names)) fail(`limits().steps is ${JSON.stringify(names)}, not the steps' names`);
  const steps = {};
  for (const [key, name] of Object.entries(STEP_NAMES)) {
    steps[key] = names.indexOf(name);
    if (steps[key] < 0) fail(`limits().steps (${names.join(", ")}) has no step "${name}"`);
  }
  return steps;
}

export async function setScenario(page, scenario, what) {
  const r = await page.evaluate((s) => window.attentionPlayground.setScenario(s), scenario);
  if (!r || r.ok !== true || r.error !== null) fail(`setScenario(${what}) returned ${JSON.stringify(r)}`);
}

export function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function presetFiles(opts) {
  if (!opts.presets) fail("this check needs --presets DIR");
  const files = readdirSync(opts.presets).filter((f) => f.endsWith(".json")).sort()
    .map((f) => join(opts.presets, f));
  if (files.length < 3) fail(`only ${files.length} presets in ${opts.presets}, expected at least 3`);
  return files;
}

export function presetPath(opts, name) {
  if (!opts.presets) fail("this check needs --presets DIR");
  return join(opts.presets, `${name}.json`);
}

// The main of a runner of page checks (harness.mjs runChecks):
//
//   node tests/web/RUNNER.mjs --site DIR [--cli NATIVE_attention-cli] [--presets DIR] CHECK... | all
//
// Each check gets a fresh page (openPage; with the animations if its name is in `motion`) and
// is called as checks[name]({page, browser, url, opts, pages}); it fails on a console error or
// an uncaught page error in that page or in any page it pushed onto `pages`. Every runner takes
// --cli and --presets, so that one command line serves them all; `checkMs` is the watchdog's
// limit per check.
export function runPageChecks(checks, { titles, checkMs = 110000, motion = [] }) {
  return runChecks(checks, {
    titles,
    options: { cli: undefined, presets: undefined },
    checkMs,
    async run(name, { browser, url, opts }) {
      const page = await openPage(browser, url, { motion: motion.includes(name) });
      const pages = [page];
      checkNoProblems(page, "while loading");
      await checks[name]({ page, browser, url, opts, pages });
      for (const p of pages) checkNoProblems(p, `during ${name}`);
    },
  });
}
