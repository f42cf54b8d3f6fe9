// The playground as a person uses it, in headless Chromium: controls are found where the
// screen draws them (read back from a screenshot by tesseract, not asked of the app) and
// clicked there with the mouse; the API is used only to read what the click caused.
//
//   node tests/web/person_test.mjs --site DIR CHECK... | all
import { fail, ok, runChecks, watchProblems } from "./harness.mjs";
import { findText, screenWords } from "./ocr.mjs";

const TIMEOUT_MS = 30000;
const DPR = 2; // the canvas drawn at twice the pixels: small UI text reads reliably

async function openPage(browser, url, viewport) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: DPR, reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await page.goto(url);
  await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
  await page.evaluate(() => window.attentionPlayground.ready);
  return page;
}

// Waits for the app to draw a few frames, so that the screenshot shows the latest state.
async function settle(page) {
  await page.evaluate(async () => {
    const ap = window.attentionPlayground;
    const start = ap.stats().frames, t0 = performance.now();
    while (ap.stats().frames < start + 3 && performance.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  await page.waitForTimeout(150);
}

// Where the screen shows `text` (case as drawn), top to bottom; and every word read. `clip`
// (CSS pixels, from the top left corner) reads only that part, which is faster.
async function find(page, text, lang, clip = null) {
  const shot = await page.screenshot(clip ? { clip } : {});
  const words = screenWords(shot, { dpr: DPR, lang });
  return { all: words, hits: findText(words, text) };
}

async function click(page, word) {
  await page.mouse.move((word.x0 + word.x1) / 2, (word.y0 + word.y1) / 2);
  await page.waitForTimeout(100);  // ImGui presses what was under the mouse the frame before
  await page.mouse.down();
  await page.waitForTimeout(100);
  await page.mouse.up();
}

// The Train section's own button: found on screen on the line with Step and Reset (the
// section's header also reads "Train"), clicked, and the training plays; its label reads
// "Pause" then, and clicking that pauses it. Seen broken before 2026-11-26: the button and
// the header shared one ImGui ID and the click did nothing.
async function checkTrainButton({ browser, url }) {
  for (const [lang, train, pause, step, reset] of [["en", "Train", "Pause", "Step", "Reset"],
                                                   ["zh", "训练", "暂停", "单步", "重置"]]) {
    const page = await openPage(browser, `${url}?task=translate&seed=1&lang=${lang}`, { width: 1280, height: 800 });
    // Slow (10 steps a second), so that the task is still far from trained when Pause is read
    // back and clicked some seconds later.
    await page.evaluate(() => window.attentionPlayground.setTraining({ speed: "slow" }));
    await settle(page);
    const before = await page.evaluate(() => window.attentionPlayground.getTraining());
    if (before.playing || before.step !== 0) fail(`${lang}: the task starts ${JSON.stringify(before).slice(0, 120)}`);
    // The button: a "Train" with "Step" on its line, to its right. The controls panel scrolls
    // to it as a person scrolls it: the wheel over the panel.
    const panel = { x: 0, y: 0, width: 320, height: 800 };  // the controls, on the left
    let button = null, all = [];
    for (let tries = 0; tries < 4 && !button; ++tries) {
      if (tries > 0) {
        await page.mouse.move(150, 500);
        await page.mouse.wheel(0, 400);
        await settle(page);
      }
      let hits;
      ({ all, hits } = await find(page, train, lang, panel));
      const beside = [...findText(all, step), ...findText(all, reset)];
      button = hits.find((w) => beside.some((s) => Math.abs(s.y0 - w.y0) < 8 && s.x0 > w.x1));
    }
    if (!button) {
      fail(`${lang}: no "${train}" button beside "${step}" or "${reset}" on screen (read: ${all.map((w) => w.text).join(" ").slice(0, 400)})`);
    }
    await click(page, button);
    await page.waitForTimeout(1500);
    await settle(page);
    const playing = await page.evaluate(() => window.attentionPlayground.getTraining());
    if (!playing.playing || playing.step < 5) {
      fail(`${lang}: clicking "${train}" at (${Math.round(button.x0)}, ${Math.round(button.y0)}) did not train: ` +
           JSON.stringify(playing).slice(0, 160));
    }
    // The same button now reads "Pause", still beside Step (the panel may have moved it: the
    // loss curve appeared below).
    const after = await find(page, pause, lang, panel);
    const besideAfter = [...findText(after.all, step), ...findText(after.all, reset)];
    const pauseButton = after.hits.find((w) => besideAfter.some((s) => Math.abs(s.y0 - w.y0) < 8 && s.x0 > w.x1));
    if (!pauseButton) {
      fail(`${lang}: after the click no button beside "${step}" reads "${pause}" ` +
           `(read: ${after.all.map((w) => w.text).join(" ").slice(0, 400)})`);
    }
    await click(page, pauseButton);
    await settle(page);
    const paused = await page.evaluate(() => window.attentionPlayground.getTraining());
    await page.waitForTimeout(500);
    const later = await page.evaluate(() => window.attentionPlayground.getTraining());
    if (paused.playing || paused.converged || later.step !== paused.step) {
      fail(`${lang}: "${pause}" did not pause (${JSON.stringify(paused).slice(0, 120)}; then step ${later.step})`);
    }
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    ok(`train-button (${lang}): "${train}" found on screen at (${Math.round(button.x0)}, ${Math.round(button.y0)}) and ` +
       `clicked: ${playing.step} steps in 1.5 s, loss ${playing.loss.toExponential(2)}; "${pause}" stops it at step ${paused.step}`);
    await page.context().close();
  }
}

const CHECKS = { "train-button": checkTrainButton };

runChecks(CHECKS, { run: (name, ctx) => CHECKS[name](ctx), checkMs: 170000 });
