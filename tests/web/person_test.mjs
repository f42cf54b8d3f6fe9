// The playground as a person uses it, in headless Chromium: controls are found where the
// screen draws them (read back from a screenshot by tesseract, not asked of the app) and
// clicked there with the mouse; the API is used only to read what the click caused.
//
//   node tests/web/person_test.mjs --site DIR CHECK... | all
import { fail, ok, runChecks, watchProblems } from "./harness.mjs";
import { findText, screenWords } from "./ocr.mjs";
import { cellMiddle, chineseGlyphs, distance, meanColour } from "./page.mjs";
import { decodePng } from "./png.mjs";

const TIMEOUT_MS = 30000;
const DPR = 2; // the canvas drawn at twice the pixels: small UI text reads reliably

async function openPage(browser, url, viewport, dpr = DPR) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: dpr, reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await context.addInitScript(HOLDABLE_FRAMES);
  await page.goto(url);
  await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
  await page.evaluate(() => window.attentionPlayground.ready);
  return page;
}

// Frames a page can be told to stop drawing (layoutOnly below): requestAnimationFrame's
// callbacks wait while window.apHoldFrames is set, so the app's main loop (Emscripten runs it
// from requestAnimationFrame) draws nothing; layoutNow() still runs the frames' code.
function HOLDABLE_FRAMES() {
  const raf = window.requestAnimationFrame.bind(window);
  window.apHoldFrames = false;
  window.requestAnimationFrame = (callback) => (window.apHoldFrames ? 0 : raf(callback));
}

// From now on the page's frames are laid out at once without drawing (layoutNow: the frames'
// own code and the input that came; labels_test.mjs "layout-now" checks that they lay out
// what drawn frames do), and no frame is drawn between them: the clicks and keys reach the
// app only in the frames the check lays out, and SwiftShader draws nothing meanwhile.
async function layoutOnly(page) {
  page.layoutOnly = true;
  await page.evaluate(() => { window.apHoldFrames = true; });
}

// Waits for the app to draw `frames` more frames (frames(n) wakes an idle page), so that the
// screenshot shows the latest state; then `pause` ms more where a caller asks for it.
async function settle(page, frames = 3, pause = 0) {
  const r = await page.evaluate((n) => window.attentionPlayground.frames(n), frames);
  if (!r || r.ok !== true) fail(`frames(${frames}): ${r?.error ?? JSON.stringify(r)}`);
  if (pause > 0) await page.waitForTimeout(pause);
}

// Waits until `fn(arg)` holds in the page (polled every 100 ms), at most `ms`; returns the
// seconds it took, or null when it never held (the caller's check then says what is wrong).
async function until(page, fn, arg = null, ms = 30000) {
  const t0 = Date.now();
  try {
    await page.waitForFunction(fn, arg, { timeout: ms, polling: 100 });
  } catch {
    return null;
  }
  return (Date.now() - t0) / 1000;
}

// A tap reaches the app as three mouse events two animation frames apart (web/js/input.js
// sends them so, as Dear ImGui needs): the frames until the last of them has been drawn.
const TAP_FRAMES = 8;

// Lets the app go through `n` frames: drawn ones, or on a page marked `layoutOnly` laid out at
// once without drawing (layoutNow: the frames' own code and the input that came, SwiftShader's
// pixels left out; labels_test.mjs "layout-now" checks that they lay out what drawn frames do).
async function frames(page, n) {
  if (!page.layoutOnly) return settle(page, n);
  const r = await page.evaluate((k) => window.attentionPlayground.layoutNow(k), n);
  if (r && r.ok === false) fail(`layoutNow: ${r.error}`);
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
  await frames(page, 1);  // ImGui presses what was under the mouse the frame before
  await page.mouse.down();
  await frames(page, 1);
  await page.mouse.up();
}

// The Train section's own button: found on screen on the line with Step and Reset (the
// section's header also reads "Train"), clicked, and the training plays; its label reads
// "Pause" then, and clicking that pauses it. A regression it catches: the button and
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
    let all = [];
    const button = await scrollPanelUntil(page, 3, async () => {
      let hits;
      ({ all, hits } = await find(page, train, lang, panel));
      const beside = [...findText(all, step), ...findText(all, reset)];
      return hits.find((w) => beside.some((s) => Math.abs(s.y0 - w.y0) < 8 && s.x0 > w.x1));
    });
    if (!button) {
      fail(`${lang}: no "${train}" button beside "${step}" or "${reset}" on screen (read: ${all.map((w) => w.text).join(" ").slice(0, 400)})`);
    }
    await click(page, button);
    const took = await until(page, () => window.attentionPlayground.getTraining().step >= 5);
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
       `clicked: ${playing.step} steps in ${took?.toFixed(1)} s, loss ${playing.loss.toExponential(2)}; "${pause}" stops it at step ${paused.step}`);
    await page.context().close();
  }
}

// Hard attention trained from the page as a person does it, in both languages: "More"
// opened, "hard attention (argmax)" ticked and Train clicked: the screen (read back by OCR)
// says to tick "train it straight through", and nothing trains; that box ticked and Train
// clicked: the training plays, the loss falls, and every row's weights stay one-hot. The
// boxes are found where items() says the canvas drew them and clicked there.
async function checkHardTrain({ browser, url }) {
  const WORDS = {
    en: { more: "More", hard: "hard attention (argmax)", straight: "train it straight through",
          train: "Train", said: "straight", gumbel: "with Gumbel noise" },
    zh: { more: "更多", hard: "硬注意力（argmax）", straight: "用直通估计训练", train: "训练", said: "直通估计",
          gumbel: "加上 Gumbel 噪声" },
  };
  const viewport = { width: 1280, height: 800 };
  for (const lang of ["en", "zh"]) {
    const w = WORDS[lang];
    const page = await openPage(browser, `${url}?task=previous_token&seed=1&lang=${lang}`, viewport);
    const ap = (fn) => page.evaluate(fn);
    await ap(() => window.attentionPlayground.setTraining({ speed: "fast" }));
    // The panel lists what it draws: scrolled until the control is there.
    const press = async (what, match) => {
      const item = await scrollPanelUntil(page, 6, () => reveal(page, viewport, match));
      if (!item) fail(`${lang}: no "${what}" on screen (items: ${(await itemsNow(page)).map((i) => i.label).join(" | ").slice(0, 600)})`);
      await clickItem(page, item);
      return item;
    };
    await press(w.more, (i) => i.label === w.more);
    const hardBox = await press(w.hard, (i) => i.label === w.hard);
    if (!(await ap(() => window.attentionPlayground.getScenario().hard))) {
      fail(`${lang}: clicking "${w.hard}" at (${Math.round(hardBox.x0)}, ${Math.round(hardBox.y0)}) did not turn it on`);
    }
    const trainButton = (i) => i.label === w.train && i.id.endsWith("###train_play");
    await press(w.train, trainButton);
    await settle(page);
    const refused = await ap(() => window.attentionPlayground.getTraining());
    if (refused.step !== 0 || refused.playing) fail(`${lang}: Train under hard attention without an estimator trained: ${JSON.stringify(refused).slice(0, 200)}`);
    const panel = { x: 0, y: 0, width: 320, height: viewport.height };
    const read = await find(page, w.said, lang, panel);
    if (!read.hits.length) fail(`${lang}: after Train the panel does not say "${w.said}" (read: ${read.all.map((x) => x.text).join(" ").slice(0, 500)})`);
    await press(w.straight, (i) => i.label === w.straight);
    const scenario = await ap(() => window.attentionPlayground.getScenario());
    if (JSON.stringify(scenario.hard) !== JSON.stringify({ estimator: "straight_through" })) {
      fail(`${lang}: after the click the scenario's hard is ${JSON.stringify(scenario.hard)}`);
    }
    await press(w.train, trainButton);
    const took = await until(page, () => {
      const t = window.attentionPlayground.getTraining();
      return t.step >= 20 && t.loss < 0.01;
    });
    await settle(page);
    const t = await ap(() => window.attentionPlayground.getTraining());
    if (t.step < 20) fail(`${lang}: Train straight through took ${t.step} steps in 30 s (${JSON.stringify(t).slice(0, 200)})`);
    const weights = await ap(() => window.attentionPlayground.getTrace().heads[0].weights);
    const notOneHot = weights.flat().filter((row) => row.filter((v) => v === 1).length !== 1 || row.some((v) => v !== 0 && v !== 1));
    if (notOneHot.length) fail(`${lang}: after training ${notOneHot.length} rows are not one-hot: ${JSON.stringify(notOneHot[0])}`);
    // From the random start's loss (about 0.13) to a trained one: it learned through the argmax.
    if (!(t.loss < 0.01)) fail(`${lang}: after ${t.step} straight-through steps the loss is ${t.loss}`);
    // Gumbel's noise, by its box under "train it straight through": the scenario says so, and
    // Train goes on (Pause first if it still plays).
    if ((await ap(() => window.attentionPlayground.getTraining())).playing) await press(w.train, (i) => i.id.endsWith("###train_play"));
    await press(w.gumbel, (i) => i.label === w.gumbel);
    const noisy = await ap(() => window.attentionPlayground.getScenario().hard);
    if (noisy?.estimator !== "gumbel") fail(`${lang}: after "${w.gumbel}" the scenario's hard is ${JSON.stringify(noisy)}`);
    const before = (await ap(() => window.attentionPlayground.getTraining())).step;
    await press(w.train, trainButton);
    await until(page, (b) => window.attentionPlayground.getTraining().step > b, before);
    await settle(page);
    const g = await ap(() => window.attentionPlayground.getTraining());
    if (!(g.step > before)) fail(`${lang}: Train with Gumbel noise took no step (${before} → ${g.step})`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    ok(`hard-train (${lang}): "${w.hard}" and Train clicked: nothing trained, the panel says "${w.said}"; ` +
       `"${w.straight}" clicked, Train: ${t.step} steps in ${took?.toFixed(1)} s, loss ${t.loss.toExponential(2)}, every row one-hot; ` +
       `"${w.gumbel}" clicked, Train: ${g.step - before} more steps with its noise`);
    await page.context().close();
  }
}

// --- What the canvas draws, as the app reports it (items(): every labelled control and the
// lesson's marked texts, with the rectangle its panel shows), found and clicked like a person.

async function itemsNow(page) {
  await frames(page, 2);
  let list = await page.evaluate(() => window.attentionPlayground.items());
  if (!list.length) {  // the first call starts the record
    await frames(page, 3);
    list = await page.evaluate(() => window.attentionPlayground.items());
  }
  return list;
}

// The first item on screen that `wanted` picks, looked for over frames until `ms` pass (on a
// loaded machine a frame of SwiftShader at 1440×900 may take seconds, and the record of a
// frame drawn before the last input may not have the item yet); undefined if none came.
async function itemWhen(page, wanted, ms = 30000) {
  const t0 = Date.now();
  for (let n = 0; ; ++n) {
    const item = (await itemsNow(page)).find(wanted);
    if (item || Date.now() - t0 > ms) return item;
    // An idle page draws no frame, and a record of the items needs one: the pointer moved
    // over the title bar's left end, which nothing there answers, wakes it.
    await page.mouse.move(4 + (n % 2), 4);
    await frames(page, 1);
  }
}

// How much of an item its panel and the window show, 0 to 1.
function shownPart(item, viewport) {
  const x0 = Math.max(item.x0, item.clip[0], 0), x1 = Math.min(item.x1, item.clip[2], viewport.width);
  const y0 = Math.max(item.y0, item.clip[1], 0), y1 = Math.min(item.y1, item.clip[3], viewport.height);
  const area = Math.max(0, item.x1 - item.x0) * Math.max(0, item.y1 - item.y0);
  return area > 0 ? Math.max(0, x1 - x0) * Math.max(0, y1 - y0) / area : 0;
}

// Controls cut at the left or right edge of their panel (a person reads "Ne" for "Next ▶");
// cut at the top or bottom is a panel that scrolls. Tabs in a bar that scrolls are meant so.
function cutSideways(list) {
  return list.filter((i) => !i.text && !i.tab && i.label && i.x1 - i.x0 > 2 &&
    ((i.x0 < i.clip[2] - 1 && i.x1 > i.clip[2] + 1) || (i.x1 > i.clip[0] + 1 && i.x0 < i.clip[0] - 1)));
}

// The item that `match` picks once it stands still: the browser may hand a wheel event to the
// page after mouse.wheel() returns, so a panel may still scroll by a frame or two after the
// first read; the item is read until two reads 60 ms apart agree (a person, too, clicks when
// the panel has stopped). A regression of the check it mends: the answer's key, read where
// the panel stood before a late wheel event, clicked where the key no longer was.
async function stillItem(page, match) {
  let last = (await itemsNow(page)).find(match);
  for (let i = 0; i < 10 && last; ++i) {
    await page.waitForTimeout(60);
    const now = (await itemsNow(page)).find(match);
    if (!now || (now.x0 === last.x0 && now.y0 === last.y0 && now.y1 === last.y1)) return now;
    last = now;
  }
  return last;
}

// The item that `match` picks, scrolled into view as a person would (the wheel over its panel),
// or null.
async function reveal(page, viewport, match) {
  let scrolled = false;
  for (let tries = 0; tries < 8; ++tries) {
    const item = scrolled ? await stillItem(page, match) : (await itemsNow(page)).find(match);
    if (!item) return null;
    if (shownPart(item, viewport) > 0.98) return item;
    scrolled = true;
    const cx = (Math.max(item.clip[0], 0) + Math.min(item.clip[2], viewport.width)) / 2;
    const cy = (Math.max(item.clip[1], 0) + Math.min(item.clip[3], viewport.height)) / 2;
    const target = (item.y0 + item.y1) / 2;
    await page.mouse.move(cx, Math.min(Math.max(cy, 5), viewport.height - 5));
    await page.mouse.wheel(0, Math.max(-600, Math.min(600, target - cy)));
  }
  return null;
}

// Asks look() what it seeks, and while it finds nothing scrolls the controls panel (on the
// left) with the wheel, as a person scrolls it, and asks again: `scrolls` times at most.
// Returns what look() found last (null or undefined when nothing).
async function scrollPanelUntil(page, scrolls, look) {
  let found = await look();
  for (let i = 0; i < scrolls && !found; ++i) {
    await page.mouse.move(150, 500);
    await page.mouse.wheel(0, 400);
    await settle(page);
    found = await look();
  }
  return found;
}

// A click at the middle of an item: ImGui presses what was under the mouse the frame before,
// so a frame passes between moving, pressing and letting go.
async function clickItem(page, item) {
  await page.mouse.move((item.x0 + item.x1) / 2, (item.y0 + item.y1) / 2);
  await frames(page, 1);
  await page.mouse.down();
  await frames(page, 1);
  await page.mouse.up();
  await frames(page, 2);
}

const LESSON_WORDS = {
  en: { lessonTab: /^Lesson( and controls)?$/, stepTab: "Step by step", next: "Next \u25b6", place: /^Lesson (\d+) of (\d+)$/ },
  zh: { lessonTab: /^课程(与设置)?$/, stepTab: "逐步演示", next: "下一课 \u25b6", place: /^第 (\d+) 课（共 (\d+) 课）$/ },
};

// Every lesson, walked with the mouse from the first to the last by its own "Next ▶" button, at
// a course iframe's 800×600, a laptop's 1440×900 and a phone's 390×844, in English and Chinese:
// the lesson's place and title are on screen and whole; no control is cut at its panel's side;
// every question hides what answers it (the step's note and the matrix it asks about, drawn
// as "?") until a key is clicked or a number typed, and then shows the verdict, the note and
// the numbers. A regression it catches: between 720 and 1000 px the lesson was drawn
// nowhere, and each question's answer stood beside it.
async function checkLessons({ browser, url }, sizes, { questions = true } = {}) {
  const problems = [];
  for (const viewport of sizes) {
    for (const lang of ["en", "zh"]) {
      const words = LESSON_WORDS[lang];
      const where = `${viewport.width}x${viewport.height} ${lang}`;
      // At the screen's own pixels: nothing is read back as an image here, and frames cost less.
      const page = await openPage(browser, `${url}?preset=why_so_tall&lang=${lang}`, viewport, 1);
      // Laid out, not drawn: what is read is items(), where the frames put each control.
      if (lang === "zh") await chineseGlyphs(page);
      await layoutOnly(page);
      const lessons = await page.evaluate(() => window.attentionPlayground.presets());
      const narrow = viewport.width < 720;
      let asked = 0, walked = 0;
      for (let k = 0; k < 40; ++k) {
        // The lesson: on a phone behind its tab (open already when the last lesson's Next was
        // clicked there).
        if (narrow && k === 0) {
          const tab = await reveal(page, viewport, (i) => words.lessonTab.test(i.label));
          if (!tab) { problems.push(`${where}: no lesson tab on screen`); break; }
          await clickItem(page, tab);
        }
        const list = await itemsNow(page);
        const place = list.find((i) => i.id === "lesson.place");
        const title = list.find((i) => i.id === "lesson.title");
        const view = await page.evaluate(() => window.attentionPlayground.getView());
        const name = view.lesson || `lesson ${k + 1}`;
        if (!place || shownPart(place, viewport) < 0.98 || !words.place.test(place.label)) {
          problems.push(`${where} ${name}: "Lesson k of N" is not on screen (${place ? JSON.stringify(place).slice(0, 160) : "not drawn"})`);
          break;
        }
        if (!title || shownPart(title, viewport) < 0.98) {
          problems.push(`${where} ${name}: its title is not on screen (${title ? JSON.stringify(title).slice(0, 160) : "not drawn"})`);
        }
        const [, at] = place.label.match(words.place);
        if (Number(at) !== k + 1) problems.push(`${where}: after ${k} clicks on Next the screen says "${place.label}"`);
        for (const cut of cutSideways(list)) problems.push(`${where} ${name}: "${cut.label}" is cut at its panel's side`);
        ++walked;
        // Its questions, through the step bar.
        const quiz = questions ? await page.evaluate(() => window.attentionPlayground.getQuiz()) : [];
        const next = list.find((i) => i.label === words.next);
        if (narrow && quiz.length) {
          const tab = await reveal(page, viewport, (i) => i.label === words.stepTab);
          await clickItem(page, tab);
        }
        for (const q of quiz) {
          const stepButton = await reveal(page, viewport, (i) => i.id.endsWith(`##step${q.step}`));
          if (!stepButton) { problems.push(`${where} ${name}: no button for step ${q.step + 1}`); continue; }
          await clickItem(page, stepButton);
          // A stack's question reads one layer: its "Show layer N" button brings that layer.
          if (q.layer !== undefined && (await page.evaluate(() => window.attentionPlayground.getView())).layer !== q.layer) {
            const show = await reveal(page, viewport, (i) => i.id.endsWith("##show_layer"));
            if (!show) { problems.push(`${where} ${name} step ${q.step + 1}: no "Show layer ${q.layer + 1}" on screen`); continue; }
            await clickItem(page, show);
            const shownLayer = (await page.evaluate(() => window.attentionPlayground.getView())).layer;
            if (shownLayer !== q.layer) problems.push(`${where} ${name}: "Show layer ${q.layer + 1}" shows layer ${shownLayer + 1}`);
          }
          const before = await itemsNow(page);
          const layout = await page.evaluate(() => window.attentionPlayground.layout());
          const hidden = Object.values(layout).filter((g) => g.hidden).length;
          if (!before.some((i) => i.id === "quiz.header")) problems.push(`${where} ${name} step ${q.step + 1}: no question on screen`);
          if (before.some((i) => i.id === "lesson.note")) problems.push(`${where} ${name} step ${q.step + 1}: the note shows before the answer`);
          // The matrices that answer it: for a key, every one that ranks the keys (steps 3 to
          // 6); for a value, its own matrix when the step shows it.
          const shownMatrix = (await page.evaluate(() => window.attentionPlayground.getAccessible())).matrix?.id;
          const answers = q.kind === "key" ? (q.step >= 2 && q.step <= 5) : shownMatrix === q.matrix;
          if (answers && !hidden) problems.push(`${where} ${name} step ${q.step + 1}: the matrices show their numbers before the answer`);
          // Answer: the first key's button, or a typed 0.
          let answered = false, clicked = null;
          if (q.kind === "key") {
            const keys = (await page.evaluate(() => window.attentionPlayground.getAccessible())).quiz.find((e) => e.question === q.question)?.keys ?? [];
            const button = await reveal(page, viewport, (i) => i.label === keys[0] && !i.text);
            if (button) { await clickItem(page, button); answered = true; clicked = button; }
          } else {
            const box = await reveal(page, viewport, (i) => i.id === "##value");
            if (box) {
              await clickItem(page, box);
              await page.keyboard.type("0");
              await page.keyboard.press("Enter");
              answered = true;
            }
          }
          if (!answered) { problems.push(`${where} ${name} step ${q.step + 1}: no way to answer on screen`); continue; }
          // What the answer brings, read over frames until it has come (5 s at most): on a
          // loaded machine the browser may hand the page a click or a key after the call that
          // sent it has returned, as it does to a person's hand.
          let after, layoutAfter, note, waiting;
          for (const t0 = Date.now(); ;) {
            after = await itemsNow(page);
            layoutAfter = await page.evaluate(() => window.attentionPlayground.layout());
            note = (await page.evaluate(() => window.attentionPlayground.getAccessible())).note;
            waiting = (await page.evaluate(() => window.attentionPlayground.getQuiz())).some((e) => e.step === q.step && !e.answered);
            const came = after.some((i) => i.id === "quiz.verdict") && (!note || waiting || after.some((i) => i.id === "lesson.note"));
            if (came || Date.now() - t0 > 5000) break;
            await page.waitForTimeout(100);
          }
          if (!after.some((i) => i.id === "quiz.verdict")) {
            // Where the key was clicked and where the frame draws it now, to tell a click that
            // missed from one the app ignored.
            const now = clicked && after.find((i) => i.id === clicked.id);
            const box = (i) => (i ? `[${[i.x0, i.y0, i.x1, i.y1].map(Math.round)}]` : "not drawn");
            const answeredNow = (await page.evaluate(() => window.attentionPlayground.getQuiz())).find((e) => e.question === q.question)?.answered;
            problems.push(`${where} ${name} step ${q.step + 1}: no verdict after the answer` +
              (clicked ? ` (clicked "${clicked.label}" at ${box(clicked)}, drawn now at ${box(now)})` : "") +
              ` (the question is ${answeredNow ? "" : "not "}answered)`);
          }
          // Hidden still only while another question of the step waits.
          if (!waiting && Object.values(layoutAfter).some((g) => g.hidden)) problems.push(`${where} ${name} step ${q.step + 1}: a matrix stays hidden after the answer`);
          if (note && !waiting && !after.some((i) => i.id === "lesson.note")) problems.push(`${where} ${name} step ${q.step + 1}: the note does not come back after the answer`);
          ++asked;
        }
        if (k + 1 >= lessons.length) break;
        // Next ▶, where the lesson shows it.
        if (narrow && quiz.length) {
          const tab = await reveal(page, viewport, (i) => words.lessonTab.test(i.label));
          await clickItem(page, tab);
        }
        const nextButton = await reveal(page, viewport, (i) => i.label === words.next);
        if (!nextButton || !next) { problems.push(`${where} ${name}: no "${words.next}" on screen`); break; }
        await clickItem(page, nextButton);
      }
      if (walked !== lessons.length) problems.push(`${where}: walked ${walked} of ${lessons.length} lessons`);
      if (page.problems.length) problems.push(`${where}: ${page.problems.join("; ")}`);
      console.log(`  ${where}: ${walked} lessons walked by "${words.next}", ${asked} questions answered by clicks`);
      await page.context().close();
    }
  }
  if (problems.length) fail(`${problems.length} problems:\n  ${[...new Set(problems)].slice(0, 60).join("\n  ")}`);
  ok(`lessons: every lesson's place, title and questions on screen at ${sizes.map((v) => `${v.width}x${v.height}`).join(", ")}, en and zh`);
}

// On a phone's touch screen (390×844, a coarse pointer) every control the canvas draws is at
// least 24 × 24 CSS pixels (WCAG 2.5.8), in the step view and in the lesson tab, en and zh;
// and a tap on one of them works (Next ▶ opens the next lesson). A regression it catches:
// Next ▶ 58×13, the step buttons 22×22, checkboxes 22×20.
async function checkTouch({ browser, url }) {
  const viewport = { width: 390, height: 844 };
  const small = [];
  let counted = 0;
  for (const lang of ["en", "zh"]) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1, hasTouch: true, isMobile: true,
                                               reducedMotion: "reduce" });
    const page = watchProblems(await context.newPage());
    await page.goto(`${url}?preset=why_so_tall&lang=${lang}`);
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
    const words = LESSON_WORDS[lang];
    const look = async (where) => {
      for (const i of await itemsNow(page)) {
        if (i.text || shownPart(i, viewport) < 0.98) continue;
        // The heatmaps' own zoom and Export buttons sit in the matrix's margin (not counted).
        if (/^(fit|\+|\u2212|Export|导出)$/.test(i.label) && !i.tab && i.y0 > 150) continue;
        ++counted;
        const w = i.x1 - i.x0, h = i.y1 - i.y0;
        if (w < 23.5 || h < 23.5) small.push(`${lang} ${where}: "${i.label}" ${w.toFixed(0)}×${h.toFixed(0)}`);
      }
    };
    await look("step view");
    const tab = await reveal(page, viewport, (i) => words.lessonTab.test(i.label));
    if (!tab) fail(`${lang}: no lesson tab`);
    await page.touchscreen.tap((tab.x0 + tab.x1) / 2, (tab.y0 + tab.y1) / 2);
    await settle(page, TAP_FRAMES);
    await look("lesson tab");
    const next = (await itemsNow(page)).find((i) => i.label === words.next);
    if (!next) fail(`${lang}: no "${words.next}" in the lesson tab`);
    await page.touchscreen.tap((next.x0 + next.x1) / 2, (next.y0 + next.y1) / 2);
    await settle(page, TAP_FRAMES);
    const place = (await itemsNow(page)).find((i) => i.id === "lesson.place");
    if (!place || !place.label.match(words.place) || Number(place.label.match(words.place)[1]) !== 2) {
      fail(`${lang}: a tap on "${words.next}" did not open lesson 2 (${place?.label})`);
    }
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    await context.close();
  }
  if (small.length) fail(`${small.length} controls smaller than 24×24 px:\n  ${small.slice(0, 40).join("\n  ")}`);
  ok(`touch: ${counted} controls on a 390×844 touch screen, every one at least 24×24 px; a tap on Next opens the next lesson (en, zh)`);
}

// Touch gestures on a phone's touch screen (390×844), sent as Chromium's touch events (CDP
// Input.dispatchTouchEvent, one and two fingers) and read back from what the canvas draws
// (items(), layout()): a one-finger drag up the lesson tab scrolls its panel with the finger,
// pressing nothing it started on, and back down; a tap presses Next; a sideways drag moves a
// slider; two fingers spread on a matrix zoom it in step by step as Ctrl+wheel does, and pinched
// together zoom it out; a one-finger drag on the zoomed matrix moves it (web/app.js installTouch).
// A regression it catches: one finger pressed what it touched and scrolled nothing, and a pinch
// scrolled instead of zooming.
async function checkTouchGestures({ browser, url }) {
  const viewport = { width: 390, height: 844 };
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, hasTouch: true, isMobile: true,
                                             reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await page.goto(`${url}?preset=why_so_tall&lang=en`);
  await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
  const ap = (fn, arg) => page.evaluate(fn, arg);
  const cdp = await context.newCDPSession(page);
  const touch = (type, points) => cdp.send("Input.dispatchTouchEvent", {
    type, touchPoints: points.map(([x, y], i) => ({ x, y, id: i + 1, radiusX: 4, radiusY: 4, force: 1 })) });
  // A finger (or two) put down, moved to each of `path`'s points a frame apart, held still,
  // lifted: no flick.
  const gesture = async (path) => {
    await touch("touchStart", path[0]);
    await settle(page, 1, 0);
    for (const points of path.slice(1)) {
      await touch("touchMove", points);
      await settle(page, 1, 0);
    }
    await page.waitForTimeout(150);
    await touch("touchEnd", []);
    await settle(page, 3, 50);
  };
  const line = (from, to, steps) => Array.from({ length: steps + 1 }, (_, k) =>
    from.map(([x, y], f) => [x + (to[f][0] - x) * k / steps, y + (to[f][1] - y) * k / steps]));
  const find = async (match, what) => {
    const item = (await itemsNow(page)).find(match);
    if (!item) fail(`no ${what} on screen`);
    return item;
  };
  const seen = [];

  // The lesson tab, tapped.
  const tab = await reveal(page, viewport, (i) => LESSON_WORDS.en.lessonTab.test(i.label));
  if (!tab) fail("no lesson tab");
  await page.touchscreen.tap((tab.x0 + tab.x1) / 2, (tab.y0 + tab.y1) / 2);
  await settle(page, TAP_FRAMES);
  // One finger up the panel, starting on a button: the panel follows the finger, nothing is pressed.
  const reset = await find((i) => i.label === "Reset to the preset", '"Reset to the preset"');
  const opened = async () => (await itemsNow(page)).filter((i) => i.openable).map((i) => `${i.label}:${i.open}`).join();
  const before = { view: await ap(() => JSON.stringify(window.attentionPlayground.getView())), open: await opened() };
  const start = await find((i) => i.label === "Randomize", '"Randomize"');
  const [sx, sy] = [(start.x0 + start.x1) / 2, (start.y0 + start.y1) / 2];
  await gesture(line([[sx, sy]], [[sx, sy - 150]], 10));
  const up = await find((i) => i.label === "Reset to the preset", '"Reset to the preset" after scrolling');
  const moved = reset.y0 - up.y0;
  if (!(moved > 0.7 * 150 && moved < 1.3 * 150)) fail(`a one-finger drag 150 px up moved the lesson panel ${moved.toFixed(0)} px`);
  const after = { view: await ap(() => JSON.stringify(window.attentionPlayground.getView())), open: await opened() };
  if (after.view !== before.view || after.open !== before.open) {
    fail(`the drag pressed what it started on: ${before.open} → ${after.open}; ${before.view} → ${after.view}`);
  }
  const randomize = await find((i) => i.label === "Randomize", '"Randomize" after scrolling');
  // Down 200 px: back at the top, where it stops.
  await gesture(line([[sx, randomize.y0 + 10]], [[sx, randomize.y0 + 210]], 10));
  const down = await find((i) => i.label === "Reset to the preset", '"Reset to the preset" after scrolling back');
  if (Math.abs(down.y0 - reset.y0) > 2) fail(`a one-finger drag 200 px down left the panel ${(reset.y0 - down.y0).toFixed(0)} px from its top`);
  seen.push(`one finger 150 px up scrolls the lesson panel ${moved.toFixed(0)} px, pressing nothing, and down back to its top`);

  // A tap on Next ▶ opens lesson 2.
  const next = await reveal(page, viewport, (i) => i.label === LESSON_WORDS.en.next);
  if (!next) fail(`no "${LESSON_WORDS.en.next}"`);
  await page.touchscreen.tap((next.x0 + next.x1) / 2, (next.y0 + next.y1) / 2);
  await settle(page, TAP_FRAMES);
  const place = (await itemsNow(page)).find((i) => i.id === "lesson.place");
  if (Number(place?.label.match(LESSON_WORDS.en.place)?.[1]) !== 2) fail(`a tap on Next did not open lesson 2 (${place?.label})`);
  seen.push("a tap on Next opens lesson 2");

  // Sideways on the temperature slider: it moves.
  const slider = await reveal(page, viewport, (i) => i.id === "##temperature");
  if (!slider) fail("no temperature slider on screen");
  const t0 = await ap(() => window.attentionPlayground.getScenario().temperature ?? 1);
  const [mx, my] = [(slider.x0 + slider.x1) / 2, (slider.y0 + slider.y1) / 2];
  await gesture(line([[mx, my]], [[mx + 60, my]], 6));
  const t1 = await ap(() => window.attentionPlayground.getScenario().temperature ?? 1);
  if (!(t1 > t0)) fail(`a sideways drag on the temperature slider left it at ${t1} (was ${t0})`);
  seen.push(`sideways on the temperature slider ${t0} → ${t1.toFixed(2)}`);

  // Two fingers on the step's matrix: spread, it zooms in a step per 1.25× (as Ctrl+wheel does);
  // pinched, out again.
  await ap(() => window.attentionPlayground.loadPreset("padded_batch"));
  const stepTab = await reveal(page, viewport, (i) => i.label === LESSON_WORDS.en.stepTab);
  if (!stepTab) fail("no step tab");
  await page.touchscreen.tap((stepTab.x0 + stepTab.x1) / 2, (stepTab.y0 + stepTab.y1) / 2);
  await ap(() => window.attentionPlayground.setStep(2));
  await settle(page, TAP_FRAMES);
  // The step's matrix as the last frame drew it (the tab that shows it may take a few frames).
  const grid = async (when) => {
    let layout = {}, frames = 0;
    for (let t0 = Date.now(); Date.now() - t0 < 5000; await settle(page, 1, 0)) {
      layout = await ap(() => window.attentionPlayground.layout());
      frames = await ap(() => window.attentionPlayground.stats().frames);
      if (layout.main && layout.main.frame >= frames - 1) return layout.main;
    }
    fail(`${when}: the matrix "main" is not on screen (drawn: ${Object.entries(layout).map(([id, g]) => `${id} in frame ${g.frame}`)}; frame ${frames})`);
  };
  const g0 = await grid("in the step tab");
  const [cx, cy] = [(g0.x0 + g0.x1) / 2, (g0.y0 + g0.y1) / 2];
  await gesture(line([[cx - 25, cy], [cx + 25, cy]], [[cx - 80, cy], [cx + 80, cy]], 12));
  await settle(page, 6, 100);  // the zoom steps go out a frame apart
  const g1 = await grid("after two fingers spread");
  const steps = Math.log(g1.cell / g0.cell) / Math.log(1.25);
  if (!(steps > 1.5)) fail(`two fingers spread from 50 to 160 px zoomed the matrix ×${(g1.cell / g0.cell).toFixed(2)} (cell ${g0.cell} → ${g1.cell})`);
  // One finger on the zoomed matrix moves it (it shows part of itself now), not the panel.
  const [fr, fc] = [g1.first_row, g1.first_col];
  await gesture(line([[cx + 40, cy]], [[cx - 40, cy]], 8));
  const g2 = await grid("after a one-finger drag on it");
  if (!(g2.first_col > fc)) fail(`a one-finger drag to the left on the zoomed matrix did not move it (first column ${fc} → ${g2.first_col}, row ${fr} → ${g2.first_row})`);
  const [zx, zy] = [(g2.x0 + g2.x1) / 2, (g2.y0 + g2.y1) / 2];
  await gesture(line([[zx - 80, zy], [zx + 80, zy]], [[zx - 25, zy], [zx + 25, zy]], 12));
  await settle(page, 6, 100);
  const g3 = await grid("after two fingers pinched");
  if (!(g3.cell < g2.cell / 1.2)) fail(`two fingers pinched from 160 to 50 px left the cells ${g2.cell} → ${g3.cell} px`);
  seen.push(`two fingers spread 50 → 160 px zoom the matrix ×${(g1.cell / g0.cell).toFixed(2)} (${steps.toFixed(1)} steps of 1.25), ` +
            `one finger moves the zoomed matrix (first column ${fc.toFixed(2)} → ${g2.first_col.toFixed(2)}), pinched back ×${(g3.cell / g2.cell).toFixed(2)}`);
  if (page.problems.length) fail(page.problems.join("; "));
  ok(`touch-gestures at 390×844: ${seen.join("; ")}`);
  await context.close();
}

// Every section header, checkbox, centre tab and step button the canvas draws, clicked where
// it is drawn (items()) at 1440×900 in English and Chinese: a header opens its section, a
// checkbox's tick turns over (and back on a second click), a tab brings its view, a step
// button its step. Read back from what the next frames draw and from the app's state; nothing
// is caused through the API.
async function checkClicks({ browser, url }) {
  const viewport = { width: 1440, height: 900 };
  const seen = [];
  for (const lang of ["en", "zh"]) {
    const page = await openPage(browser, `${url}?preset=self_attention&lang=${lang}`, viewport, 1);
    await layoutOnly(page);  // items() read, the pixels not: frames laid out, not drawn
    const problems = [];
    const inControls = (i) => /controls/.test(i.window) && !i.text;
    // The sections: every closed header opened by a click.
    let opened = 0;
    for (let round = 0; round < 12; ++round) {
      const closed = (await itemsNow(page)).find((i) => inControls(i) && i.open === false && !i.tab);
      if (!closed) break;
      const item = await reveal(page, viewport, (i) => i.id === closed.id && i.window === closed.window);
      if (!item) { problems.push(`section "${closed.label}" could not be scrolled into view`); break; }
      await clickItem(page, item);
      const after = (await itemsNow(page)).find((i) => i.id === closed.id && i.window === closed.window);
      if (!after?.open) { problems.push(`a click on the section "${closed.label}" did not open it`); break; }
      ++opened;
    }
    // The checkboxes: each clicked twice, its tick read back after each click.
    const boxes = (await itemsNow(page)).filter((i) => inControls(i) && typeof i.checked === "boolean");
    let flipped = 0;
    for (const box of boxes) {
      const same = (i) => i.id === box.id && i.window === box.window;
      for (const want of [!box.checked, box.checked]) {
        const item = await reveal(page, viewport, same);
        if (!item) { problems.push(`checkbox "${box.label}" is gone after a click on it`); break; }
        await clickItem(page, item);
        const now = (await itemsNow(page)).find(same);
        if (!now || now.checked !== want) {
          problems.push(`a click on "${box.label}" at (${Math.round(item.x0)}, ${Math.round(item.y0)}) left it ${now ? (now.checked ? "ticked" : "unticked") : "gone"}`);
          break;
        }
        if (want !== box.checked) ++flipped;
      }
    }
    // The centre's tabs: each brings its view (the "view" control reads it).
    const tabs = (await itemsNow(page)).filter((i) => i.tab && !/controls/.test(i.window) && i.y0 < 120);
    let tabbed = 0;
    const seenTabs = new Set();
    for (const tab of [...tabs.slice(1), tabs[0]]) {
      const item = await reveal(page, viewport, (i) => i.tab && i.label === tab.label);
      if (!item) { problems.push(`tab "${tab.label}" is not on screen`); continue; }
      const before = (await page.evaluate(() => window.attentionPlayground.getView())).tab;
      await clickItem(page, item);
      const now = (await page.evaluate(() => window.attentionPlayground.getView())).tab;
      // Each tab's own view, and the heatmaps it draws (the positional encoding's "pe", the
      // step view's "main"; the 2-D view draws none).
      const ids = Object.keys(await page.evaluate(() => window.attentionPlayground.layout()));
      if (tabs.length > 1 && now === before) problems.push(`a click on tab "${tab.label}" left the view at "${now}"`);
      else if (now === "steps" && !ids.includes("main")) problems.push(`tab "${tab.label}": no step matrix drawn (${ids.join(", ")})`);
      else ++tabbed;
      seenTabs.add(now);
    }
    // The step buttons: each brings its step.
    let stepped = 0;
    for (const k of [3, 7, 0, 5]) {
      const item = await reveal(page, viewport, (i) => i.id.endsWith(`##step${k}`));
      if (!item) { problems.push(`no button for step ${k + 1}`); continue; }
      await clickItem(page, item);
      const view = await page.evaluate(() => window.attentionPlayground.getView());
      if (view.step !== k) problems.push(`a click on step ${k + 1} shows step ${view.step + 1}`);
      else ++stepped;
    }
    if (page.problems.length) problems.push(page.problems.join("; "));
    if (seenTabs.size !== tabs.length) problems.push(`${tabs.length} tabs clicked brought ${seenTabs.size} views (${[...seenTabs].join(", ")})`);
    if (problems.length) fail(`${lang}: ${problems.length} problems:\n  ${problems.slice(0, 30).join("\n  ")}`);
    if (boxes.length < 8 || tabs.length < 4) fail(`${lang}: only ${boxes.length} checkboxes and ${tabs.length} tabs found on screen`);
    seen.push(`${lang}: ${opened} sections opened, ${flipped} checkboxes ticked and unticked, ${tabbed} tabs, ${stepped} steps`);
    await page.context().close();
  }
  ok(`clicks at 1440×900: ${seen.join("; ")}`);
}

// A stack of layers as a person meets it, en and zh at 1440×900: the step view's "Layer" and
// its buttons are on screen (read back by OCR), and a click on "2" shows layer 2 (its own
// weights); the "Layers" tab shows every layer's heads and the stream, and a click on layer 2's
// head opens it step by step at its weights. Then learned_induction trains from its Reset and
// Train buttons, every layer at once, as its description says it will (the phase change).
async function checkLayers({ browser, url }) {
  const seen = [];
  // (The line is found by its word "Layer"; in Chinese, whose one-glyph "层" tesseract does not
  // read alone, by the step's title "权重" on it.)
  for (const [lang, layerWord, tabWord, layerTwo] of [["en", "Layer", "Layers", "Layer 2"],
                                                      ["zh", "权重", "各层", "第 2 层"]]) {
    const page = await openPage(browser, `${url}?preset=why_stack&lang=${lang}&step=6`, { width: 1440, height: 900 });
    if (lang === "zh") await chineseGlyphs(page);
    await settle(page);
    const ap = (f, ...a) => page.evaluate(f, ...a);
    const start = await ap(() => window.attentionPlayground.getView());
    if (start.layers !== 2 || start.layer !== 0) fail(`${lang}: why_stack opens as ${JSON.stringify(start).slice(0, 160)}`);
    // The word "Layer" on the step view's title line, read from the screen.
    const clip = { x: 320, y: 0, width: 1120, height: 160 };
    const title = await find(page, layerWord, lang, clip);
    // (Read in the clip: its words' places are the page's less the clip's corner.)
    title.hits = title.hits.map((w) => ({ ...w, x0: w.x0 + clip.x, x1: w.x1 + clip.x, y0: w.y0 + clip.y, y1: w.y1 + clip.y }));
    if (!title.hits.length) fail(`${lang}: "${layerWord}" is not on the step view's first lines (read: ${title.all.map((w) => w.text).join(" ").slice(0, 300)})`);
    // Its "2": the button drawn right of it, on its line (the layout's boxes), clicked where
    // it is drawn.
    const two = await itemWhen(page, (i) => i.id === "2##layer");
    const label = two && title.hits.find((w) => Math.abs(two.y0 - w.y0) <= 12 && w.x1 <= two.x0 && two.x0 - w.x1 < 160);
    if (!label) {
      fail(`${lang}: no "2" button beside "${layerWord}" (${JSON.stringify(two)}; "${layerWord}" read at ` +
           `${title.hits.map((w) => `(${Math.round(w.x0)}, ${Math.round(w.y0)})`).join(", ")}; on screen: ` +
           `${(await itemsNow(page)).map((i) => i.id).join(" | ").slice(0, 600)})`);
    }
    await clickItem(page, two);
    await settle(page);
    const shown = await ap(() => window.attentionPlayground.getView());
    if (shown.layer !== 1) fail(`${lang}: a click on layer 2's button shows layer ${shown.layer + 1}`);
    // Layer 2's trace is what the step view holds now: its weights are layer 2's of the stack.
    const trace = await ap(() => window.attentionPlayground.getTrace());
    const stackWeights = trace.layers[1].heads[0].weights;
    // The "Layers" tab, clicked where drawn; it shows "Layer 2" (OCR) and each head's map.
    const tab = await itemWhen(page, (i) => i.tab && i.label === tabWord);
    if (!tab) fail(`${lang}: no "${tabWord}" tab on screen`);
    await clickItem(page, tab);
    await settle(page);
    if ((await ap(() => window.attentionPlayground.getView())).tab !== "layers") fail(`${lang}: the "${tabWord}" tab did not open`);
    const words = await find(page, layerTwo, lang);
    if (!words.hits.length) fail(`${lang}: "${layerTwo}" is not on the Layers tab (read: ${words.all.map((w) => w.text).join(" ").slice(0, 300)})`);
    const grids = await ap(() => window.attentionPlayground.layout());
    for (const id of ["layers_h0", "layers_l1_h1", "layers_l1_adds", "layers_l2_h1", "layers_h2",
                      "layers_l2_h1_from_input", "layers_l2_h1_from_layers"]) {
      if (!grids[id]) fail(`${lang}: the Layers tab draws no ${id} (${Object.keys(grids).join(", ")})`);
    }
    // What layer 1 adds, right-clicked where it is drawn: its menu's "Copy as CSV", clicked
    // where drawn, puts its numbers on the clipboard, those of the trace's layer 1 output.
    let copied = "";
    if (lang === "en") {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
      const adds = grids.layers_l1_adds;
      await page.mouse.move(adds.x0 + adds.cell_w / 2, adds.y0 + adds.cell / 2);
      await frames(page, 1);
      await page.mouse.down({ button: "right" });
      await frames(page, 1);
      await page.mouse.up({ button: "right" });
      await frames(page, 2);
      const item = await itemWhen(page, (i) => i.label === "Copy as CSV");
      if (!item) fail(`${lang}: a right-click on what layer 1 adds opens no "Copy as CSV"`);
      await clickItem(page, item);
      await until(page, async () => /\d/.test(await navigator.clipboard.readText()));
      const csv = (await ap(() => navigator.clipboard.readText())).trim().split(/\r?\n/).map((l) => l.split(","));
      const want = trace.layers[0].output[0];
      const body = csv.slice(1).map((r) => r.slice(1).map(Number));
      const off = body.length !== want.length ? Infinity
        : Math.max(...want.flatMap((r, i) => r.map((v, j) => Math.abs(v - body[i][j]) / Math.max(1, Math.abs(v)))));
      if (!(off <= 1e-5)) fail(`${lang}: "Copy as CSV" of layer 1's addition copied ${JSON.stringify(csv.slice(0, 3))}, not the trace's ${JSON.stringify(want.slice(0, 2))}`);
      copied = `, its "Copy as CSV" copied what layer 1 adds (${body.length} × ${body[0].length})`;
    }
    // Back to the steps and layer 1 (its button, clicked), then the Layers tab again and a
    // click on layer 2's head map.
    const stepsTab = await itemWhen(page, (i) => i.tab && i.label === (lang === "en" ? "Step by step" : "逐步演示"));
    await clickItem(page, stepsTab);
    await clickItem(page, await itemWhen(page, (i) => i.id === "1##layer"));
    if ((await ap(() => window.attentionPlayground.getView())).layer !== 0) fail(`${lang}: a click on "1" did not show layer 1`);
    await clickItem(page, await itemWhen(page, (i) => i.tab && i.label === tabWord));
    await settle(page);
    const g = (await ap(() => window.attentionPlayground.layout())).layers_l2_h1;
    if (!g) fail(`${lang}: back on the Layers tab, layer 2's head is not drawn`);
    const cell = { x0: g.x0 + 2, x1: g.x0 + g.cell_w, y0: g.y0 + 2, y1: g.y0 + g.cell };
    await clickItem(page, cell);
    await settle(page);
    const opened = await ap(() => window.attentionPlayground.getView());
    if (opened.tab !== "steps" || opened.layer !== 1 || opened.step !== 5) {
      fail(`${lang}: a click on layer 2's head gave ${JSON.stringify(opened).slice(0, 200)}`);
    }
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang}: "${layerWord}" read at (${Math.round(label.x0)}, ${Math.round(label.y0)}), "2" clicked ` +
              `(layer 2: ${stackWeights[0].length} × ${stackWeights[0][0].length} weights), "${tabWord}" tab with ` +
              `"${layerTwo}" read${copied}, its head clicked open at step ${opened.step + 1}`);
    await page.context().close();
  }
  // learned_induction as its description says: "Open Train and press Reset, then Train". The
  // buttons found as a person finds them (OCR, on the line with Step), the curve read while it
  // plays at the page's own speed, and the lesson's words measured on it: near 3.26 for more
  // than 150 steps, then below 1.6, and a pause by itself at step 600.
  const page = await openPage(browser, `${url}?preset=learned_induction`, { width: 1280, height: 800 });
  await settle(page);
  const panel = { x: 0, y: 0, width: 320, height: 800 };
  let all = [], reset = null, header = null;
  const look = async () => {
    let hits;
    ({ all, hits } = await find(page, "Train", "en", panel));
    const beside = [...findText(all, "Step"), ...findText(all, "Reset")];
    const train = hits.find((w) => beside.some((s) => Math.abs(s.y0 - w.y0) < 8 && s.x0 > w.x1));
    reset = train ? findText(all, "Reset").find((s) => Math.abs(s.y0 - train.y0) < 8 && s.x0 > train.x1) : null;
    header = header ?? hits.find((w) => w !== train) ?? null;
    return train;
  };
  let button = await scrollPanelUntil(page, 6, look);
  if (!button && header) {  // the section closed: open it where its header is drawn
    await click(page, header);
    await settle(page);
    button = await scrollPanelUntil(page, 4, look);
  }
  if (!button || !reset) fail(`induction: no "Train" and "Reset" beside "Step" (read: ${all.map((w) => w.text).join(" ").slice(0, 300)})`);
  await click(page, reset);
  await settle(page);
  const start = await page.evaluate(() => window.attentionPlayground.getTraining());
  if (start.step !== 0 || start.task !== "induction" || start.goal !== 600) {
    fail(`induction: Reset gave ${JSON.stringify(start).slice(0, 200)}`);
  }
  const t0 = Date.now();
  await click(page, button);
  const samples = [];  // what getTraining() says every 100 ms while it plays (a poll)
  for (;;) {
    const t = await page.evaluate(() => window.attentionPlayground.getTraining());
    samples.push({ step: t.step, loss: t.loss, s: (Date.now() - t0) / 1000 });
    if ((!t.playing && t.step > 0) || Date.now() - t0 > 90000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await settle(page);
  const tr = await page.evaluate(() => window.attentionPlayground.getTraining());
  const early = samples.filter((x) => x.step >= 1 && x.step <= 150);
  const drop = samples.find((x) => typeof x.loss === "number" && x.loss < 1.6);
  const curve = samples.filter((_, i) => i % 10 === 0).map((x) => `${x.step}: ${x.loss?.toFixed(2)}`).join(", ");
  if (early.length < 3 || early.some((x) => !(x.loss >= 2.7))) fail(`induction: not near 3.26 through step 150 (${curve})`);
  // (The seconds it took are reported, not asserted: a speed is a benchmark's to check, and
  // this check shares the processor with the test command's other lane.)
  if (!drop || drop.step > 400) fail(`induction: no drop below 1.6 by step 400 (first below: ${JSON.stringify(drop)}; ${curve})`);
  if (!tr.finished || tr.playing || tr.step !== 600) fail(`induction: Play did not pause by itself at 600: ${JSON.stringify(tr).slice(0, 200)}`);
  if (!(tr.loss < 0.5)) fail(`induction: at step 600 the loss is ${tr.loss}`);
  // The plot marks the drop, and the section says why it paused: read off the screen, the
  // panel scrolled down as a person would to see them.
  let read = "";
  await scrollPanelUntil(page, 6, async () => {
    read += " " + (await find(page, "drop:", "en", panel)).all.map((w) => w.text).join(" ");
    return /drop: step \d+/.test(read) && /Paused by itself at step 600/.test(read);
  });
  if (!/drop: step \d+/.test(read)) fail(`induction: the loss plot's mark not read (read: ${read.slice(0, 300)})`);
  if (!/Paused by itself at step 600/.test(read)) fail(`induction: "Paused by itself at step 600" not read (read: ${read.slice(0, 300)})`);
  // "large loss plot", clicked where drawn: the plot moves to the middle, several times wider,
  // and its mark reads the same step there (OCR); "smaller" puts it back in the Train section.
  const small = (await itemsNow(page)).find((i) => i.id === "loss_plot");
  const large = await itemWhen(page, (i) => i.label === "large loss plot" && "checked" in i, 5000);
  if (!small || !large) {
    const near = (await itemsNow(page)).filter((i) => i.y0 > (small?.y0 ?? 0) - 40).slice(0, 12).map((i) => `${i.label}@${Math.round(i.y0)}`);
    fail(`induction: the plot (${JSON.stringify(small)}) or "large loss plot" (${JSON.stringify(large)}) not on screen (after the plot: ${near.join(", ")})`);
  }
  await clickItem(page, large);
  await settle(page);
  const big = (await itemsNow(page)).find((i) => i.id === "loss_plot");
  if (!big || !/center/.test(big.window) || big.x1 - big.x0 < 2 * (small.x1 - small.x0) || big.y1 - big.y0 < 2 * (small.y1 - small.y0)) {
    fail(`induction: after "large loss plot" the plot is ${JSON.stringify(big)} (it was ${small.x1 - small.x0} × ${small.y1 - small.y0} px)`);
  }
  await page.screenshot({ path: `${process.env.AP_SHOTS ?? "/tmp"}/induction-large-plot.png` }).catch(() => {});
  // (Read off the whole screen, tesseract finding the plot's lines as a page; the word is
  // taken where the plot is drawn.)
  const { all: screen, hits: drops } = await find(page, "drop:", "en");
  const inPlot = drops.find((w) => w.x0 >= big.x0 - 2 && w.x1 <= big.x1 + 2 && w.y0 >= big.y0 - 2 && w.y1 <= big.y1 + 2);
  const bigRead = inPlot ? screen.filter((w) => Math.abs(w.y0 - inPlot.y0) < 6 && w.x0 >= inPlot.x0 - 60 && w.x1 <= big.x1)
    .sort((a, b) => a.x0 - b.x0).map((w) => w.text).join(" ") : "";
  const mark = read.match(/drop: step (\d+)/)[1];
  if (!new RegExp(`drop: step ${mark}\\b`).test(bigRead)) fail(`induction: the large plot reads "${bigRead.slice(0, 200)}", not "drop: step ${mark}" (plot at ${JSON.stringify(big)}; "drop:" read at ${JSON.stringify(drops)})`);
  const smaller = await itemWhen(page, (i) => i.label === "smaller" && /center/.test(i.window), 5000);
  if (!smaller) fail(`induction: no "smaller" button over the large plot`);
  await clickItem(page, smaller);
  await settle(page);
  const afterItems = await itemsNow(page);
  const back = afterItems.find((i) => i.id === "loss_plot");
  const box = afterItems.find((i) => i.label === "large loss plot" && "checked" in i);
  if (!back || /center/.test(back.window) || !box || box.checked) {
    fail(`induction: after "smaller" the plot is ${JSON.stringify(back)} and the box ${JSON.stringify(box)}`);
  }
  if (page.problems.length) fail(`induction: ${page.problems.join("; ")}`);
  await page.context().close();
  ok(`layers: ${seen.join("; ")}; learned_induction: Reset and Train clicked where drawn; loss ${samples[1]?.loss?.toFixed(2)} at ` +
     `step ${samples[1]?.step}, below 1.6 at step ${drop.step} after ${drop.s.toFixed(1)} s of Play, paused by itself at ` +
     `step ${tr.step} (loss ${tr.loss.toFixed(3)}); "${read.match(/drop: step \d+/)[0]}" read on the plot; "large loss plot" ` +
     `clicked: ${Math.round(big.x1 - big.x0)} × ${Math.round(big.y1 - big.y0)} px in the middle (was ${Math.round(small.x1 - small.x0)} × ` +
     `${Math.round(small.y1 - small.y0)}), the same mark read there; "smaller" puts it back`);
}

// A lesson opened at `size` in `lang`, its tab `tabWord` clicked where the canvas draws it
// (the view then says `tabId`).
// `dpr` 2 where the check reads text back with OCR; 1 where it reads items() and colours.
async function openOnTab(browser, url, preset, lang, size, tabWord, tabId, dpr = 1) {
  const page = await openPage(browser, `${url}?preset=${preset}&lang=${lang}`, size, dpr);
  if (lang === "zh") await chineseGlyphs(page);
  await settle(page);
  const tab = await itemWhen(page, (i) => i.tab && i.label === tabWord);
  if (!tab) fail(`${lang}: no "${tabWord}" tab on screen at ${size.width}×${size.height}`);
  await clickItem(page, tab);
  await settle(page);
  const view = await page.evaluate(() => window.attentionPlayground.getView());
  if (view.tab !== tabId) fail(`${lang}: the "${tabWord}" tab did not open (the view shows ${view.tab})`);
  return page;
}

// Attention over a picture as a person meets it, en and zh at 1440×900 and 800×600: the
// "Picture" tab, clicked where drawn, shows the street scene (its sky read back as blue from
// the screenshot) with no weights while the lesson's questions are ahead; on the step of the
// first question a click on the sign's writing, r3c3, answers it (right); after the other two
// are answered the weights are drawn over the picture: the screenshot shows the sky dimmed
// for "a red sign with writing" and bright again after a click on the "plain blue sky" button.
async function checkPicture({ browser, url }) {
  const seen = [];
  for (const [lang, tabWord, size] of [["en", "Picture", { width: 1440, height: 900 }],
                                       ["zh", "图片", { width: 800, height: 600 }]]) {
    const page = await openOnTab(browser, url, "where_the_eye_goes", lang, size, tabWord, "picture");
    const ap = (f, ...a) => page.evaluate(f, ...a);
    const grid = async () => (await ap(() => window.attentionPlayground.layout())).picture;
    let g = await grid();
    if (!g || g.rows !== 5 || g.cols !== 8) fail(`${lang}: the picture is not drawn as 5 × 8 patches: ${JSON.stringify(g)}`);
    if (!g.hidden) fail(`${lang}: the weights are drawn over the picture while the lesson's questions are ahead`);
    // The mean colour of patch (r, c), 1-based, inside its borders, read from the screen.
    const patchColour = async (r, c) => meanColour(page, cellMiddle(await grid(), r - 1, c - 1));
    const sky = await patchColour(1, 1);
    if (!(sky[2] > 200 && sky[2] > sky[0] + 60)) fail(`${lang}: the top-left patch is not sky blue on screen: ${sky.map(Math.round)}`);
    // The first question's step, by its button in the step view; then the writing, clicked on
    // the picture.
    await clickItem(page, await itemWhen(page, (i) => i.tab && i.label === (lang === "en" ? "Step by step" : "逐步演示")));
    await clickItem(page, await itemWhen(page, (i) => i.id.endsWith("##step2")));
    await settle(page);
    const quiz0 = await ap(() => window.attentionPlayground.getQuiz());
    if (quiz0[0].answered) fail(`${lang}: the first question is answered before the click`);
    const tab2 = await itemWhen(page, (i) => i.tab && i.label === tabWord);
    await clickItem(page, tab2);
    await settle(page);
    g = await grid();
    await clickItem(page, { x0: g.x0 + 2 * g.cell + 4, x1: g.x0 + 3 * g.cell - 4, y0: g.y0 + 2 * g.cell + 4, y1: g.y0 + 3 * g.cell - 4 });
    await settle(page);
    const quiz1 = await ap(() => window.attentionPlayground.getQuiz());
    if (!quiz1[0].answered || !quiz1[0].correct) fail(`${lang}: a click on r3c3 did not answer the first question right: ${JSON.stringify(quiz1[0]).slice(0, 200)}`);
    // The verdict on the tab where the click was (it was only in the lesson's box), on screen,
    // and the next question named as the one the weights now wait for.
    const shown = await itemsNow(page);
    const verdict = shown.find((i) => i.id === "picture.verdict");
    const right = lang === "en" ? "Right." : "答对了。";
    if (!verdict || !verdict.label.startsWith(right) || verdict.y0 < 0 || verdict.y1 > size.height) {
      fail(`${lang}: after the click on r3c3 the Picture tab shows no verdict (${JSON.stringify(verdict)})`);
    }
    const waits = lang === "en" ? "It waits for the question on step 3: And" : "它在等第 3 步的问题：";
    const waiting = shown.find((i) => i.id === "picture.waiting");
    if (!waiting?.label.startsWith(waits)) fail(`${lang}: the Picture tab does not say which question the weights wait for (${JSON.stringify(waiting)})`);
    // The other two, through the API (the lesson walk clicks its buttons), then the weights.
    await ap(() => { const a = window.attentionPlayground; a.answerQuiz(1, { key: 19 }); a.answerQuiz(2, { value: 0.051 }); });
    await settle(page);
    g = await grid();
    if (g.hidden) fail(`${lang}: every question answered, the weights are still not drawn over the picture`);
    const dimmed = await patchColour(1, 1);
    const writing = await patchColour(3, 3);
    if (!(dimmed[2] < sky[2] * 0.5)) fail(`${lang}: "a red sign with writing" leaves the sky bright: ${dimmed.map(Math.round)} (was ${sky.map(Math.round)})`);
    if (!(writing[0] > 150)) fail(`${lang}: the sign's writing is not bright red on screen: ${writing.map(Math.round)}`);
    // The sky query, by its button: the sky is bright again.
    const skyButton = await itemWhen(page, (i) => i.id.endsWith("##picture_q2"));
    if (!skyButton) fail(`${lang}: no button for the third query`);
    await clickItem(page, skyButton);
    await settle(page);
    const again = await patchColour(1, 1);
    if (!(again[2] > sky[2] * 0.85)) fail(`${lang}: after "plain blue sky" the sky is not bright: ${again.map(Math.round)}`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang} ${size.width}×${size.height}: sky ${sky.map(Math.round)} → ${dimmed.map(Math.round)} under the sign's ` +
              `query → ${again.map(Math.round)} under the sky's; r3c3 clicked as the answer`);
    await page.context().close();
  }
  ok(`picture: ${seen.join("; ")}`);
}

// Nadaraya–Watson's curve as a person meets it, en at 1440×900 and zh at 800×600: the "Curve"
// tab, clicked where drawn, draws the points only while the lesson's questions are ahead; once
// they are answered the predictions' line is on screen (its orange read back from the
// screenshot), the pointer over the point at x = 2.54 chooses that query (the line under the
// plot, read by OCR, names it), and Train, clicked, learns σ (from 1 to below 0.6).
async function checkCurve({ browser, url }) {
  const seen = [];
  for (const [lang, tabWord, trainWord, size] of [["en", "Curve", "Train", { width: 1440, height: 900 }],
                                                  ["zh", "曲线", "训练", { width: 800, height: 600 }]]) {
    const page = await openOnTab(browser, url, "nadaraya_watson", lang, size, tabWord, "curve", DPR);
    const ap = (f, ...a) => page.evaluate(f, ...a);
    let g = (await ap(() => window.attentionPlayground.layout())).curve;
    if (!g || g.cols !== 20) fail(`${lang}: the curve is not drawn with its 20 points: ${JSON.stringify(g)}`);
    if (!g.hidden) fail(`${lang}: the predictions are drawn while the lesson's questions are ahead`);
    // The plot's pixels of a colour, counted in a screenshot of it.
    const pixels = async (wanted) => {
      const cur = (await ap(() => window.attentionPlayground.layout())).curve;
      const png = decodePng(await page.screenshot({ clip: { x: cur.x0, y: cur.y0, width: cur.x1 - cur.x0, height: cur.y1 - cur.y0 } }));
      let n = 0;
      for (let i = 0; i < png.width * png.height; ++i) {
        if (wanted(png.pixels[4 * i], png.pixels[4 * i + 1], png.pixels[4 * i + 2])) ++n;
      }
      return n;
    };
    const orange = () => pixels((r, gg, b) => r > 180 && gg > 60 && gg < 140 && b < 80);
    // The true function, grey, is drawn from the start (it gives no answer away).
    const grey = () => pixels((r, gg, b) => Math.abs(r - gg) < 12 && Math.abs(gg - b) < 12 && r > 70 && r < 150);
    const greyBefore = await grey();
    if (!(greyBefore > 150)) fail(`${lang}: the true function is not drawn (${greyBefore} grey pixels in the plot)`);
    const before = await orange();
    await ap(() => { const a = window.attentionPlayground; a.answerQuiz(0, { value: 0.1 }); a.answerQuiz(1, { value: 2.07 }); });
    await settle(page);
    g = (await ap(() => window.attentionPlayground.layout())).curve;
    if (g.hidden) fail(`${lang}: every question answered, the predictions are still not drawn`);
    const after = await orange();
    if (!(after > before + 200)) fail(`${lang}: the estimate's line is not on screen (${before} orange pixels before, ${after} after)`);
    // The error as the screen writes it (the summary under the plot), against the leave-one-out
    // error computed here from the points and σ.
    const scenario = await ap(() => window.attentionPlayground.getScenario());
    const pts = scenario.keys.map((r, i) => [r[0], scenario.values[i][0]]);
    const looError = (sigma) => {
      let sum = 0;
      for (let i = 0; i < pts.length; ++i) {
        let num = 0, den = 0;
        for (let j = 0; j < pts.length; ++j) {
          if (j === i) continue;
          const e = Math.exp(-((pts[i][0] - pts[j][0]) ** 2) / (2 * sigma * sigma));
          num += e * pts[j][1];
          den += e;
        }
        sum += (num / den - pts[i][1]) ** 2;
      }
      return sum / pts.length;
    };
    const errorOnScreen = async () => {
      const item = (await itemsNow(page)).find((i) => i.id === "curve.summary");
      const m = /([0-9]+\.[0-9]{3})[^0-9]*σ = ([0-9.]+)/.exec(item?.label ?? "");
      return m && item.y1 <= size.height + 600 ? { error: Number(m[1]), item } : null;
    };
    const e1 = await errorOnScreen();
    if (!e1 || Math.abs(e1.error - looError(1)) > 0.0006) fail(`${lang}: at σ = 1 the Curve reads ${JSON.stringify(e1)}; the points give ${looError(1).toFixed(4)}`);
    // σ on the Curve tab, clicked a third of the way along its (logarithmic) slider.
    const slider = await itemWhen(page, (i) => i.id === "##curve_sigma", 5000);
    if (!slider || slider.y1 > size.height) fail(`${lang}: no σ slider on screen on the Curve tab (${JSON.stringify(slider)})`);
    await clickItem(page, { x0: slider.x0 + (slider.x1 - slider.x0) * 0.3, x1: slider.x0 + (slider.x1 - slider.x0) * 0.3 + 1, y0: slider.y0, y1: slider.y1 });
    await settle(page);
    const moved = (await ap(() => window.attentionPlayground.getScenario())).sigma;
    const e2 = await errorOnScreen();
    if (!(moved > 0.1 && moved < 0.6)) fail(`${lang}: a click a third along the σ slider set σ = ${moved}`);
    if (!e2 || Math.abs(e2.error - looError(moved)) > 0.0006) fail(`${lang}: at σ = ${moved} the Curve reads ${JSON.stringify(e2)}; the points give ${looError(moved).toFixed(4)}`);
    await page.screenshot({ path: `${process.env.AP_SHOTS ?? "/tmp"}/curve-${lang}-${size.width}.png` }).catch(() => {});
    // Back to about 1 (the middle of the slider: 0.05 to 20 on a log scale), for Train below.
    await clickItem(page, { x0: (slider.x0 + slider.x1) / 2, x1: (slider.x0 + slider.x1) / 2 + 1, y0: slider.y0, y1: slider.y1 });
    await settle(page);
    // The pointer over x = 2.54: the plot spans the points' and the true function's x with 4%
    // margins each side.
    const xs = [...scenario.queries.map((r) => r[0]), ...(scenario.true_curve ?? []).map((r) => r[0])];
    const lo = Math.min(...xs), hi = Math.max(...xs), pad = 0.04 * (hi - lo);
    const px = g.x0 + (2.54 - (lo - pad)) / (hi - lo + 2 * pad) * (g.x1 - g.x0);
    await page.mouse.move(px, (g.y0 + g.y1) / 2);
    await settle(page);
    // ("Query 2.54 (x = 2.54) predicts …": the query's own name, read by OCR.)
    const words = await find(page, "2.54", lang);
    if (words.hits.length < 1) fail(`${lang}: with the pointer at x = 2.54 the screen does not name that query (read: ${words.all.map((w) => w.text).join(" ").slice(-300)})`);
    // Train, clicked where the Train section draws it (the note on step 8 opens the section).
    await clickItem(page, await itemWhen(page, (i) => i.tab && i.label === (lang === "en" ? "Step by step" : "逐步演示")));
    await clickItem(page, await itemWhen(page, (i) => i.id.endsWith("##step7")));
    await ap(() => window.attentionPlayground.setTraining({ speed: "fast" }));
    const isTrain = (i) => i.label === trainWord && i.id.endsWith("###train_play");
    let train = await scrollPanelUntil(page, 8, () => reveal(page, size, isTrain));
    if (!train) {  // the section folded: its header opened as a person opens it
      const header = await scrollPanelUntil(page, 8, () => reveal(page, size, (i) => i.label === trainWord && !isTrain(i)));
      if (header) await clickItem(page, header);
      train = await scrollPanelUntil(page, 8, () => reveal(page, size, isTrain));
    }
    if (!train) fail(`${lang}: no "${trainWord}" button on screen on step 8`);
    await clickItem(page, train);
    await until(page, () => window.attentionPlayground.getScenario().sigma < 0.6);
    await settle(page);
    const sigma = (await ap(() => window.attentionPlayground.getScenario())).sigma;
    if (!(sigma < 0.6)) fail(`${lang}: after Train σ is ${sigma} (the lesson says it learns about 0.385)`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang} ${size.width}×${size.height}: the true function drawn (${greyBefore} grey pixels), ${before} → ${after} orange pixels once answered, ` +
              `error ${e1.error} at σ 1 and ${e2.error} at σ ${moved.toFixed(3)} (clicked on the tab's slider) as the points give, "2.54" named under the pointer, ` +
              `Train clicked: σ ${sigma.toFixed(3)}`);
    await page.context().close();
  }
  ok(`curve: ${seen.join("; ")}`);
}

// The transpose view option as a person uses it, at a laptop's 1440×900 in English and a
// course iframe's 800×600 in Chinese: the "transpose" checkbox is found where the canvas draws
// it and clicked; the weights' grid (layout()) turns from 2 queries × 5 keys to 5 keys × 2
// queries, its row labels become the key tokens, the formula the column convention's; a known
// weight, read back from the screen by OCR, stands in the swapped cell; with "Click a cell to
// mask it" on, a click on a transposed cell masks that query's key (not the mirrored cell);
// a second click on the checkbox turns it all back.
async function checkTranspose({ browser, url }) {
  const WORDS = {
    en: { more: "More", box: "transpose matrices", mask: "Click a cell to mask it", key0: "his dad" },
    zh: { more: "更多", box: "转置矩阵", mask: "点击格子来掩蔽它", key0: "他爸爸" },
  };
  const seen = [];
  for (const [lang, viewport] of [["en", { width: 1440, height: 900 }], ["zh", { width: 800, height: 600 }]]) {
    const w = WORDS[lang];
    const where = `${viewport.width}x${viewport.height} ${lang}`;
    const page = await openPage(browser, `${url}?preset=why_so_tall&step=6&lang=${lang}`, viewport);
    if (lang === "zh") await chineseGlyphs(page);
    const ap = (fn, arg) => page.evaluate(fn, arg);
    // Its questions (on the scores) answered first, as a learner would have, so that the weights
    // show their numbers; through the API, which is not what this check is about.
    await ap(() => { const a = window.attentionPlayground; a.getQuiz().forEach((q, i) => a.answerQuiz(i, { show: true })); a.setStep(5); });
    await settle(page);
    const grid = async () => {
      await settle(page);
      return (await ap(() => window.attentionPlayground.layout())).main;
    };
    const before = await grid();
    if (!before || before.rows !== 2 || before.cols !== 5) fail(`${where}: the weights' grid is ${JSON.stringify(before)?.slice(0, 200)}, not 2 × 5`);
    const weights = (await ap(() => window.attentionPlayground.getTrace().heads[0].weights))[0];
    // The checkbox, where the canvas draws it (the controls panel scrolled to it if need be).
    const press = async (label) => {
      const match = (i) => i.label === label && typeof i.checked === "boolean";
      const item = await scrollPanelUntil(page, 8, () => reveal(page, viewport, match));
      if (!item) fail(`${where}: no "${label}" on screen (items: ${(await itemsNow(page)).map((i) => i.label).join(" | ").slice(0, 600)})`);
      await clickItem(page, item);
      return (await itemsNow(page)).find(match);
    };
    // The box is under "More", opened first as a person opens it.
    const more = await scrollPanelUntil(page, 8, () => reveal(page, viewport, (i) => i.label === w.more && i.open === false));
    if (!more) fail(`${where}: no closed "${w.more}" section on screen`);
    await clickItem(page, more);
    const on = await press(w.box);
    if (!on?.checked) fail(`${where}: a click on "${w.box}" left it unticked`);
    const view = await ap(() => window.attentionPlayground.getView());
    if (view.transpose !== true) fail(`${where}: after the click getView().transpose is ${view.transpose}`);
    const after = await grid();
    if (after.rows !== 5 || after.cols !== 2) fail(`${where}: transposed, the weights' grid is ${after.rows} × ${after.cols}, not 5 × 2`);
    // The row labels (left of the grid) are the keys now: the first names the first fact.
    // (boxes: [x0, y0, x1, y1, text])
    const rowLabels = (after.boxes ?? []).filter(([, y0, x1, y1]) => x1 <= after.x0 + 1 && y0 >= after.y0 - 2 && y1 <= after.y1 + 2);
    if (!rowLabels.some((b) => b[4].startsWith(w.key0))) {
      fail(`${where}: transposed, the row labels are ${JSON.stringify(rowLabels.map((b) => b[4]))}, not the keys`);
    }
    const formula = (await ap(() => window.attentionPlayground.getAccessible())).formula;
    if (!/^A\[j,i\]/.test(formula)) fail(`${where}: transposed, the formula is ${JSON.stringify(formula)}`);
    // A known number in its swapped place: query 2's weight of key 2 ("he skips maths class"),
    // drawn at row 2 (key), column 2 (query) — and query 1's weight of key 1 at row 1, column 1
    // would not tell; so query 1 against key 4 at row 4, column 1 too.
    const cellRect = (g, row, col) => ({
      x: g.x0 + (col - g.first_col) * g.cell_w, y: g.y0 + (row - g.first_row) * g.cell, width: g.cell_w, height: g.cell });
    let read = 0;
    for (const [q, k] of [[0, 3], [1, 1], [0, 0]]) {
      const want = weights[q][k].toFixed(2);
      const r = cellRect(after, k, q);
      const clip = { x: Math.floor(r.x) - 2, y: Math.floor(r.y) - 2, width: Math.ceil(r.width) + 4, height: Math.ceil(r.height) + 4 };
      const shot = await page.screenshot({ clip });
      const words = screenWords(shot, { dpr: DPR, lang: "en" }).map((x) => x.text.replace(/[^\d.]/g, ""));
      if (words.includes(want)) ++read;
      else if (q === 0 && k === 3) fail(`${where}: transposed, the cell at row ${k + 1}, column ${q + 1} reads ${JSON.stringify(words)}, not ${want} (query ${q + 1}'s weight of key ${k + 1})`);
    }
    // A click on a transposed cell masks the query's key that it is: row 3 (key 3), column 2
    // (query 2) masks [batch 0, query 1, key 2] (0-based), not [0, 2, 1].
    await press(w.mask);
    const target = cellRect(after, 2, 1);
    await clickItem(page, { x0: target.x, y0: target.y, x1: target.x + target.width, y1: target.y + target.height });
    const cells = (await ap(() => window.attentionPlayground.getScenario())).masked_cells ?? [];
    if (JSON.stringify(cells) !== JSON.stringify([[0, 1, 2]])) fail(`${where}: a click on the transposed cell (row 3, column 2) masked ${JSON.stringify(cells)}, not [[0, 1, 2]] (query 2, key 3)`);
    await clickItem(page, { x0: target.x, y0: target.y, x1: target.x + target.width, y1: target.y + target.height });
    await press(w.mask);
    // Off again: the grid as it was.
    const off = await press(w.box);
    if (off?.checked) fail(`${where}: a second click on "${w.box}" left it ticked`);
    const back = await grid();
    if (back.rows !== 2 || back.cols !== 5) fail(`${where}: unticked, the weights' grid is ${back.rows} × ${back.cols}, not 2 × 5`);
    if ((await ap(() => window.attentionPlayground.getView())).transpose !== false) fail(`${where}: unticked, getView().transpose is still true`);
    if (page.problems.length) fail(`${where}: ${page.problems.join("; ")}`);
    seen.push(`${where}: 2 × 5 → 5 × 2 → 2 × 5, ${read} of 3 known weights read in their swapped cells`);
    await page.context().close();
  }
  ok(`transpose: "transpose" clicked where it is drawn turns the weights' grid (rows and columns, labels, the formula ` +
     `A[j,i]), the numbers stay in their swapped cells and a click masks the right query's key; ${seen.join("; ")}`);
}

// Export → "Course package…" as a teacher meets it (en, 1440×900): Export and then the item
// clicked where the canvas draws them (the items registry), the dialog filled with the keyboard
// (Tab reaches every field; Escape closes it and the canvas has the focus again), all but two
// lessons unticked, pass 70, Download. The download is unzipped (python3's zipfile): its
// imsmanifest.xml launches those two lessons with pass=70, and it holds every file of the
// site (site-files.json: index.html and the single-thread builds' .wasm) but the threaded
// builds, each file that has a gzip copy deflated. A title of 300 characters is refused in the
// dialog, naming the field, and nothing is downloaded.
async function checkCoursePackage({ browser, url, opts }) {
  const viewport = { width: 1440, height: 900 };
  let page = await openPage(browser, `${url}?preset=why_so_tall&lang=en`, viewport, 1);
  const openDialog = async (words = ["Export", "Course package\u2026"]) => {
    const exportButton = await itemWhen(page, (i) => i.label === words[0] && !i.text);
    if (!exportButton) fail(`no ${words[0]} button on screen`);
    await clickItem(page, exportButton);
    const item = await itemWhen(page, (i) => i.label === words[1], 10000);
    if (!item) fail(`${words[0]}'s menu has no "${words[1]}": ${(await itemsNow(page)).map((i) => i.label).join(", ")}`);
    await clickItem(page, item);
    await page.waitForSelector("#coursepack[open]", { timeout: 10000 });
  };
  const focused = () => page.evaluate(() => {
    const e = document.activeElement;
    return { id: e?.id ?? "", tag: e?.tagName ?? "", text: e?.textContent ?? "",
             inDialog: !!e?.closest?.("#coursepack") };
  });
  await openDialog();
  const first = await focused();
  if (!first.inDialog || first.id !== "coursepack-format") fail(`the focus is on ${JSON.stringify(first)}, not the format`);
  // Every field has its label (a screen reader says what it is).
  const unlabelled = await page.$$eval("#coursepack input, #coursepack select",
                                       (f) => f.filter((x) => x.labels.length === 0).map((x) => x.id));
  if (unlabelled.length) fail(`fields without a label: ${unlabelled.join(", ")}`);
  // The formats are the core's (scenario::kPackageFormats), SCORM 2004 first.
  const formats = await page.$$eval("#coursepack-format option", (o) => o.map((x) => x.value));
  if (formats[0] !== "scorm2004" || !formats.includes("scorm12")) fail(`formats: ${formats.join(", ")}`);
  // Every field is reached by Tab, and the focus stays in the dialog.
  const lessons = await page.evaluate(() => window.attentionPlayground.presets().map((p) => p.name));
  const reached = new Set();
  for (let k = 0; k < lessons.length + 8; ++k) {  // each field once, no wrap
    const f = await focused();
    if (!f.inDialog) fail(`Tab took the focus out of the dialog (to ${f.tag} ${f.id})`);
    reached.add(f.id || f.text);
    await page.keyboard.press("Tab");
  }
  const wanted = ["coursepack-format", "coursepack-title", "coursepack-shown", "coursepack-pass", "coursepack-download",
                  "coursepack-close", ...lessons.map((_, i) => `coursepack-lesson-${i}`)];
  const missed = wanted.filter((id) => !reached.has(id));
  if (missed.length) fail(`Tab never reached ${missed.join(", ")}`);
  // Escape closes it and gives the canvas the focus back.
  await page.keyboard.press("Escape");
  await page.waitForSelector("#coursepack", { state: "detached", timeout: 5000 });
  const back = await focused();
  if (back.id !== "canvas") fail(`after Escape the focus is on ${back.tag} ${back.id}, not the canvas`);

  // Filled with the keyboard: the format stays SCORM 2004; the title; None, then the first two
  // lessons ticked with Space; the scenario shown (its title edited) added as tall_ours; pass
  // 70; Download.
  const edited = await page.evaluate(() => {
    const ap = window.attentionPlayground, s = ap.getScenario();
    s.title = { en: "Tall, ours", zh: "我们的高个子" };
    return ap.setScenario(s).ok;
  });
  if (!edited) fail("the scenario's title could not be edited");
  await openDialog();
  const press = async (key, n = 1) => { for (let i = 0; i < n; ++i) await page.keyboard.press(key); };
  await press("Tab");  // the title
  await press("Control+A");
  await page.keyboard.type("Attention, week 3");
  await press("Tab", 2);  // All, None
  await press("Enter");   // None
  await press("Tab");     // lesson 1
  await press("Space");
  await press("Tab");     // lesson 2
  await press("Space");
  await press("Tab", lessons.length - 1);  // "Add the scenario shown"
  if ((await focused()).id !== "coursepack-shown") fail(`Tab after the lessons is on ${(await focused()).id}`);
  await press("Space");
  await press("Tab");     // its name, a field once the box is ticked
  if ((await focused()).id !== "coursepack-shown-name") fail(`Tab after the box is on ${(await focused()).id}`);
  await press("Control+A");
  await page.keyboard.type("tall_ours");
  await press("Tab");     // the pass field
  if ((await focused()).id !== "coursepack-pass") fail(`Tab after the name is on ${(await focused()).id}`);
  await press("Control+A");
  await page.keyboard.type("70");
  await press("Tab", 2);  // Close, Download
  if ((await focused()).id !== "coursepack-download") fail(`Tab after the pass field is on ${(await focused()).id}`);
  const ticked = await page.$$eval("#coursepack .coursepack-lessons input[type=checkbox]",
                                   (b) => b.filter((x) => x.checked).map((x) => x.value));
  if (ticked.join() !== lessons.slice(0, 2).join()) fail(`ticked: ${ticked.join(", ")}`);
  const downloaded = page.waitForEvent("download", { timeout: 180000 });
  const t0 = Date.now();
  await press("Enter");
  const download = await downloaded;
  const ms = Date.now() - t0;
  const path = `${await download.path()}`;
  const status = await page.textContent("#coursepack-status");
  const run = JSON.parse(await page.getAttribute("#coursepack", "data-run"));
  const { execFileSync } = await import("node:child_process");
  const zip = JSON.parse(execFileSync("/usr/bin/python3", ["-c", `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
print(json.dumps({"names": z.namelist(), "bad": bad, "manifest": z.read("imsmanifest.xml").decode(),
                  "own": json.loads(z.read("course/tall_ours.json")) if "course/tall_ours.json" in z.namelist() else None,
                  "deflated": [i.filename for i in z.infolist() if i.compress_type == zipfile.ZIP_DEFLATED]}))
`, path], { maxBuffer: 1 << 24 }).toString());
  const launch = `index.html?lms=scorm2004&amp;lessons=${lessons[0]},${lessons[1]},tall_ours&amp;own=tall_ours&amp;pass=70`;
  if (!zip.manifest.includes(launch)) fail(`imsmanifest.xml does not launch ${launch}:\n${zip.manifest.slice(0, 1500)}`);
  if (!zip.manifest.includes("Attention, week 3")) fail("imsmanifest.xml lacks the title");
  if (zip.bad !== null) fail(`${zip.bad}: its CRC does not match`);
  const { readdirSync, readFileSync } = await import("node:fs");
  // {"files", "gzip"} (a site built before the gzip copies were listed: the files alone).
  const list = JSON.parse(readFileSync(`${opts.site}/site-files.json`, "utf8"));
  const threaded = (f) => f.startsWith("attention-playground-threads");
  const site = (Array.isArray(list) ? list : list.files).filter((f) => !threaded(f));
  const gzip = (Array.isArray(list) ? [] : list.gzip).filter((f) => !threaded(f));
  const wasm = readdirSync(opts.site).filter((f) => f.endsWith(".wasm") && !threaded(f));
  const missing = [...site, "imsmanifest.xml", "course/tall_ours.json"].filter((f) => !zip.names.includes(f));
  if (missing.length || zip.names.length !== site.length + 2) {
    fail(`the archive's ${zip.names.length} entries are not the site's ${site.length} files (but the threaded ` +
         `builds), the lesson of its own and the manifest: missing ${missing.join(", ")}`);
  }
  if (zip.own?.title?.en !== "Tall, ours") fail(`course/tall_ours.json is not the scenario as edited: ${JSON.stringify(zip.own?.title)}`);
  if (!zip.names.includes("index.html") || wasm.length < 2 || !wasm.every((f) => zip.names.includes(f))) {
    fail(`the archive lacks index.html or a build (${wasm.join(", ")})`);
  }
  // Each file with a gzip copy is deflated from it (the page fetched the copies); none other.
  if (zip.deflated.join() !== gzip.join()) fail(`deflated: ${zip.deflated.join(", ")}; with a gzip copy: ${gzip.join(", ")}`);
  if (!/^Downloaded attention-week-3-scorm2004\.zip/.test(status)) fail(`the dialog says "${status}"`);

  // A title of 300 characters: the app's own words in the dialog, and no download.
  let more = 0;
  page.on("download", () => { ++more; });
  await page.focus("#coursepack-title");
  await press("Control+A");
  await page.keyboard.insertText("x".repeat(300));
  await page.click("#coursepack-download");
  await page.waitForFunction(() => /title:/.test(document.getElementById("coursepack-status").textContent), null,
                             { timeout: 10000 });
  const refused = await page.textContent("#coursepack-status");
  await page.waitForTimeout(1000);
  if (refused !== "Not downloaded: title: must be 1 to 200 characters" || more !== 0) {
    fail(`a 300-character title: "${refused}", ${more} downloads`);
  }
  const live = await page.getAttribute("#coursepack-status", "aria-live");
  if (live !== "polite") fail("the dialog's message is not in a live region");
  if (page.problems.length) fail(page.problems.join("; "));
  await page.context().close();
  // In Chinese: the menu's item and the dialog in the page's language.
  page = await openPage(browser, `${url}?preset=why_so_tall&lang=zh`, viewport, 1);
  await openDialog(["\u5bfc\u51fa", "\u8bfe\u7a0b\u5305\u2026"]);  // 导出, 课程包…
  const zh = await page.evaluate(() => [document.getElementById("coursepack-heading").textContent,
                                        document.querySelector("label[for=coursepack-title]").textContent,
                                        document.getElementById("coursepack-download").textContent]);
  if (zh.join("|") !== "\u8bfe\u7a0b\u5305|\u8bfe\u7a0b\u6807\u9898|\u4e0b\u8f7d") fail(`in Chinese the dialog reads ${zh.join(", ")}`);
  if (page.problems.length) fail(page.problems.join("; "));
  ok(`course-package: Export → "Course package…" clicked where drawn; Tab reached all ${wanted.length} fields, Escape ` +
     `closed it to the canvas; ${lessons[0]},${lessons[1]}, the edited scenario as tall_ours and pass 70 typed → ` +
     `${zip.names.length} entries, ${zip.deflated.length} deflated ` +
     `(${(run.bytes / 1048576).toFixed(1)} MB, ${ms} ms, heap ${(run.heapBefore / 1048576).toFixed(0)} → ` +
     `${(run.heapAfter / 1048576).toFixed(0)} MB), manifest launches ${launch.replaceAll("&amp;", "&")}; ` +
     "a 300-character title refused in the dialog, nothing downloaded; in Chinese 导出 → 课程包… opens it in Chinese");
  await page.context().close();
}

// Whether the page stops drawing (no frame for a second) within 20 s: nothing animates.
async function fallsAsleep(page) {
  return page.evaluate(async () => {
    const frames = () => window.attentionPlayground.stats().frames;
    for (let last = frames(), since = performance.now(), t0 = since; performance.now() - t0 < 20000;) {
      await new Promise((r) => setTimeout(r, 100));
      if (frames() !== last) last = frames(), since = performance.now();
      else if (performance.now() - since > 1000) return true;
    }
    return false;
  });
}

// A seq2seq model's decoder as a person meets it, en and zh at 800×600: the "Decoder" tab,
// clicked where drawn, shows the alignment of "big cat runs small bird sleeps" → "miza grona
// kuras piko lilu dormas <eos>" as 7 × 6 cells. Which rows are filled is read from the
// screenshot (a blank row is white in every cell; a written one has a cell of 0.5 or more,
// dark blue). While the lesson's first question (which source word row 1 attends to) is
// open, no row is filled; answered, row 1 alone is; "Next word", clicked twice, fills rows
// 1–3 and the sentence under the buttons names "kuras"; Play, clicked, writes the rest one
// word at a time, ends on word 7 with every row filled, turns back into Play and leaves the
// page idle (no frames drawn after it stopped).
async function checkDecoder({ browser, url }) {
  const seen = [];
  const size = { width: 800, height: 600 };
  const WORDS = {
    en: { tab: "Decoder", next: "Next word", play: "Play", last: "Word 7 of 7" },
    zh: { tab: "解码器", next: "下一个词", play: "播放", last: "第 7 个词（共 7 个）" },
  };
  for (const lang of ["en", "zh"]) {
    const words = WORDS[lang];
    const page = await openOnTab(browser, url, "learned_bahdanau", lang, size, words.tab, "decoder");
    const ap = (f, ...a) => page.evaluate(f, ...a);
    // Each row of the alignment as the screen shows it: "filled", "blank" or "unclear" (the
    // middle of every cell read from one screenshot of the grid).
    const rowsOnScreen = async () => {
      await settle(page);
      const g = (await ap(() => window.attentionPlayground.layout())).decoder;
      if (!g || g.rows !== 7 || g.cols !== 6) fail(`${lang}: the alignment is not drawn as 7 × 6 cells: ${JSON.stringify(g)}`);
      if (g.y1 > size.height || g.x1 > size.width) fail(`${lang}: the alignment does not fit on the screen at 800×600: ${JSON.stringify(g)}`);
      const cw = g.cell_w > 0 ? g.cell_w : g.cell;
      const png = decodePng(await page.screenshot({ clip: { x: g.x0, y: g.y0, width: g.x1 - g.x0, height: g.y1 - g.y0 } }));
      const sx = png.width / (g.x1 - g.x0), sy = png.height / (g.y1 - g.y0);
      const rows = [];
      for (let r = 0; r < g.rows; ++r) {
        let darkest = 0;
        for (let c = 0; c < g.cols; ++c) {
          const mean = [0, 0, 0];
          let count = 0;
          for (let y = Math.ceil((r + 0.3) * g.cell * sy); y < (r + 0.7) * g.cell * sy; ++y) {
            for (let x = Math.ceil((c + 0.3) * cw * sx); x < (c + 0.7) * cw * sx; ++x) {
              for (let k = 0; k < 3; ++k) mean[k] += png.pixels[4 * (y * png.width + x) + k];
              ++count;
            }
          }
          darkest = Math.max(darkest, distance(mean.map((v) => v / count), [255, 255, 255]));
        }
        rows.push(darkest > 80 ? "filled" : darkest < 6 ? "blank" : "unclear");
      }
      return rows;
    };
    const expect = async (filled, when) => {
      const rows = await rowsOnScreen();
      const want = rows.map((_, r) => (r < filled ? "filled" : "blank"));
      if (rows.join() !== want.join()) fail(`${lang}: ${when}: the rows on screen are ${rows.join(", ")}; expected ${filled} filled`);
      return rows;
    };
    const item = async (id) => itemWhen(page, (i) => i.id === id, 5000);
    // The first question asks what row 1 attends to most: until it is answered, no row is filled.
    const quiz0 = await ap(() => window.attentionPlayground.getQuiz());
    if (quiz0[0].answered) fail(`${lang}: the first question is answered before anything was clicked`);
    await expect(0, "while the question on row 1 is open");
    // The questions answered (as checkPicture does; the lesson walk clicks their buttons).
    await ap(() => { const a = window.attentionPlayground; a.answerQuiz(0, { key: 1 }); a.answerQuiz(1, { key: 5 }); });
    await expect(1, "on word 1");
    const first = (await item("decoder.sentence"))?.label ?? "";
    if (!first.includes("miza") || !first.includes("cat")) fail(`${lang}: word 1's sentence does not name "miza" and "cat": ${first}`);
    // "Next word", twice, where the screen draws it.
    for (let k = 0; k < 2; ++k) {
      const next = await itemWhen(page, (i) => i.label === words.next && i.id.endsWith("###decoder_next"));
      if (!next) fail(`${lang}: no "${words.next}" button on screen`);
      await clickItem(page, next);
    }
    await expect(3, `after "${words.next}" twice`);
    const sentence = (await item("decoder.sentence"))?.label ?? "";
    if (!sentence.includes("kuras")) fail(`${lang}: on word 3 the sentence does not name "kuras": ${sentence}`);
    const third = (await item("decoder.written3"))?.label;
    if (third !== "kuras") fail(`${lang}: "written so far" does not end with "kuras": ${third}`);
    // Play, clicked: it goes on to word 7 by itself, and stops there.
    const play = await itemWhen(page, (i) => i.label === words.play && i.id.endsWith("###decoder_play"));
    if (!play) fail(`${lang}: no "${words.play}" button beside "${words.next}"`);
    const t0 = Date.now();
    await clickItem(page, play);
    // (itemWhen wakes the page for a record of its last frame: a stopped Play draws no more.)
    const reached = await itemWhen(page, (i) => i.id === "decoder.place" && i.label === words.last);
    const took = Date.now() - t0;
    const place = reached?.label ?? (await item("decoder.place"))?.label;
    if (!reached) fail(`${lang}: after Play for 30 s the place reads "${place}", not "${words.last}"`);
    if (took < 2000) fail(`${lang}: Play wrote four words in ${took} ms (one every 0.8 s expected)`);
    const rows = await expect(7, "after Play");
    const again = await itemWhen(page, (i) => i.id.endsWith("###decoder_play"));
    if (again?.label !== words.play) fail(`${lang}: at the last word the button reads "${again?.label}", not "${words.play}"`);
    // Stopped: nothing keeps the page drawing. (The frames after the last input settle first,
    // as load_test.mjs's idle check lets them: the page has fallen asleep once no frame came
    // for a second; a Play still running never does.)
    const asleep = await fallsAsleep(page);
    if (!asleep) fail(`${lang}: the page still draws frames 20 s after Play reached the last word`);
    const before = await ap(() => window.attentionPlayground.stats().frames);
    await page.waitForTimeout(2000);
    const after = await ap(() => window.attentionPlayground.stats().frames);
    if (after !== before) fail(`${lang}: ${after - before} frames drawn in 2 s after Play stopped`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang}: 0 rows filled while the question on row 1 is open, 1 once answered, 3 after ` +
              `"${words.next}" ×2 ("kuras" named), ${rows.filter((r) => r === "filled").length} after Play ` +
              `(${(took / 1000).toFixed(1)} s), then asleep (0 frames in 2 s)`);
    await page.context().close();
  }
  ok(`decoder: ${seen.join("; ")}`);
}

// Attention over attention as a person meets it, en and zh at 800×600: the "Document" tab,
// clicked where drawn, shows each sentence's words with their word weights ("soup" 0.44) but
// no sentence weight ("?" for each) while the lesson's questions on the sentence weights are
// open; once the first (the food question's score) is answered, the food sentence's weight
// reads 0.72 and the line above names it; the second question's button, clicked where drawn,
// hides the weights again until its question is answered, then the service sentence leads.
async function checkHierarchy({ browser, url }) {
  const seen = [];
  const size = { width: 800, height: 600 };
  const WORDS = {
    en: { tab: "Document", food: '"food"', soup: "soup 0.44", service: "and the service?" },
    zh: { tab: "\u6587\u6863", food: "\u201c\u83dc\u201d", soup: "\u6c64 0.44", service: "\u670d\u52a1\u5462\uff1f" },
  };
  for (const lang of ["en", "zh"]) {
    const words = WORDS[lang];
    const page = await openOnTab(browser, url, "attention_over_attention", lang, size, words.tab, "document");
    const ap = (f, ...a) => page.evaluate(f, ...a);
    // The three sentence weights as drawn ("0.72", or "?" while hidden), and the line above them.
    const weights = async () => {
      const items = await itemsNow(page);
      const w = [1, 2, 3].map((k) => items.find((i) => i.id === `hierarchy.weight${k}`)?.label);
      const summary = items.find((i) => i.id === "hierarchy.summary")?.label ?? "";
      return { w, summary };
    };
    const first = await itemWhen(page, (i) => i.id === "hierarchy.weight1", 10000);
    if (!first) fail(`${lang}: the Document tab draws no sentence weight`);
    const quiz0 = await ap(() => window.attentionPlayground.getQuiz());
    if (quiz0[0].answered || quiz0[1].answered) fail(`${lang}: a question is answered before anything was clicked`);
    let now = await weights();
    if (now.w.join() !== "?,?,?") fail(`${lang}: sentence weights shown while the question about them is open: ${now.w.join(", ")}`);
    if (/0\.\d\d/.test(now.summary)) fail(`${lang}: the line above the sentences gives a weight away: ${now.summary}`);
    const soup = (await itemsNow(page)).find((i) => i.id === "hierarchy.word1.2")?.label;
    if (soup !== words.soup) fail(`${lang}: the food sentence's second word reads "${soup}", not "${words.soup}"`);
    // The food question's score answered (as checkDecoder does; the lesson walk clicks them).
    await ap(() => window.attentionPlayground.answerQuiz(0, { value: 3.35 }));
    await settle(page);
    now = await weights();
    if (now.w[0] !== "0.72") fail(`${lang}: once answered, the food sentence's weight reads "${now.w[0]}", not 0.72`);
    if (!(now.summary.includes("0.72") && now.summary.includes(words.food))) fail(`${lang}: the line above does not name the food sentence and 0.72: ${now.summary}`);
    const foodRow = now.w.join(", ");
    // The second question, by its button where drawn: hidden until its question is answered.
    const button = await reveal(page, size, (i) => i.id.endsWith("##hierarchy_q2"));
    if (!button) fail(`${lang}: no button for the second question on screen`);
    await clickItem(page, button);
    await settle(page);
    now = await weights();
    if (!now.summary.includes(words.service)) fail(`${lang}: after its button the line above is not about "${words.service}": ${now.summary}`);
    if (now.w.join() !== "?,?,?") fail(`${lang}: the service question's weights shown while its question is open: ${now.w.join(", ")}`);
    await ap(() => window.attentionPlayground.answerQuiz(1, { key: 1 }));
    await settle(page);
    now = await weights();
    const numbers = now.w.map(Number);
    if (!(numbers[1] === 0.72 && numbers[1] > numbers[0] + 0.05 && numbers[1] > numbers[2] + 0.05)) fail(`${lang}: the service sentence does not lead for "and the service?": ${now.w.join(", ")}`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang}: ? ? ? while open (word "${soup}" shown), food question ${foodRow} once answered, ` +
              `service question ${now.w.join(", ")}`);
    await page.context().close();
  }
  ok(`hierarchy: ${seen.join("; ")}`);
}

// The Decoder tab's training as a person meets it, en and zh at 800×600: "Random start",
// clicked where drawn, draws the weights again from the seed (the translation written is no
// longer the lesson's); "Train", clicked, turns into "Pause training" and learns the toy
// language in the page, pausing by itself at step 1500; then the screen shows the lesson's
// translation again and, read from a screenshot of the alignment, each row's largest weight is
// the source word that row's word translates (the adjective–noun swaps included); the lesson's
// two questions are still listed and its progress kept. The page is idle afterwards.
async function checkDecoderTrain({ browser, url }) {
  const seen = [];
  const size = { width: 800, height: 600 };
  const WORDS = {
    en: { tab: "Decoder", random: "Random start", train: "Train", pause: "Pause training", done: "Step 1500," },
    zh: { tab: "解码器", random: "随机初始化", train: "训练", pause: "暂停训练", done: "第 1500 步" },
  };
  const learned = ["miza", "grona", "kuras", "piko", "lilu", "dormas", "<eos>"];
  const aligned = [1, 0, 2, 4, 3, 5, 5];  // big cat runs small bird sleeps: the word each translates
  for (const lang of ["en", "zh"]) {
    const words = WORDS[lang];
    const page = await openOnTab(browser, url, "learned_bahdanau", lang, size, words.tab, "decoder");
    const ap = (f, ...a) => page.evaluate(f, ...a);
    // The questions answered first (checkDecoder clicks through them): rows wait for them.
    await ap(() => { const a = window.attentionPlayground; a.answerQuiz(0, { key: 1 }); a.answerQuiz(1, { key: 5 }); });
    const written = async () => {
      await settle(page);
      const items = await itemsNow(page);
      return items.filter((i) => /^decoder\.written\d+$/.test(i.id))
                  .sort((a, b) => Number(a.id.slice(15)) - Number(b.id.slice(15))).map((i) => i.label);
    };
    // Each row's brightest cell on screen (viridis grows lighter with the weight: 0 is dark
    // purple, 1 yellow), by the median lightness of its middle (the number written there is
    // a minority of its pixels), and that lightness.
    const brightest = async () => {
      await settle(page);
      const g = (await ap(() => window.attentionPlayground.layout())).decoder;
      if (!g || g.y1 > size.height || g.x1 > size.width) fail(`${lang}: the alignment is not on screen at 800×600: ${JSON.stringify(g)}`);
      const cw = g.cell_w > 0 ? g.cell_w : g.cell;
      const png = decodePng(await page.screenshot({ clip: { x: g.x0, y: g.y0, width: g.x1 - g.x0, height: g.y1 - g.y0 } }));
      const sx = png.width / (g.x1 - g.x0), sy = png.height / (g.y1 - g.y0);
      const out = [];
      for (let r = 0; r < g.rows; ++r) {
        let best = -1, light = -1;
        for (let c = 0; c < g.cols; ++c) {
          const lights = [];
          for (let y = Math.ceil((r + 0.2) * g.cell * sy); y < (r + 0.8) * g.cell * sy; ++y)
            for (let x = Math.ceil((c + 0.2) * cw * sx); x < (c + 0.8) * cw * sx; ++x) {
              const i = 4 * (y * png.width + x);
              lights.push(0.299 * png.pixels[i] + 0.587 * png.pixels[i + 1] + 0.114 * png.pixels[i + 2]);
            }
          lights.sort((a, b) => a - b);
          const median = lights[lights.length >> 1];
          if (median > light) light = median, best = c;
        }
        out.push({ col: best, light });
      }
      return out;
    };
    const status = async () => (await itemWhen(page, (i) => i.id === "decoder.training", 5000))?.label ?? "";
    const before = await written();  // word 1 of the lesson: "miza"
    if (before.join(" ") !== learned[0]) fail(`${lang}: on word 1 the lesson has written "${before.join(" ")}"`);
    const idle = await status();
    if (!/16/.test(idle) || !/1500/.test(idle)) fail(`${lang}: before training the line under the buttons reads "${idle}"`);
    // Random start, where the screen draws it.
    const random = await itemWhen(page, (i) => i.label === words.random && i.id.endsWith("###decoder_random"));
    if (!random) fail(`${lang}: no "${words.random}" button on the Decoder tab`);
    await clickItem(page, random);
    const scrambled = await written();
    if (scrambled.join(" ") === learned.join(" ")) fail(`${lang}: after "${words.random}" the model still writes the lesson's translation`);
    // Train, where the screen draws it: it reads "Pause training" while it learns.
    const train = await itemWhen(page, (i) => i.label === words.train && i.id.endsWith("###decoder_train"));
    if (!train) fail(`${lang}: no "${words.train}" button beside "${words.random}"`);
    const t0 = Date.now();
    await clickItem(page, train);
    const pausing = await itemWhen(page, (i) => i.id.endsWith("###decoder_train"), 5000);
    const reached = await itemWhen(page, (i) => i.id === "decoder.training" && i.label.startsWith(words.done), 120000);
    const took = Date.now() - t0;
    if (!reached) fail(`${lang}: after 120 s of "${words.train}" the line reads "${await status()}"`);
    const loss = Number(/([0-9.]+)\s*$/.exec(reached.label)?.[1]);
    if (!(loss < 0.05)) fail(`${lang}: at step 1500 the loss reads "${reached.label}"`);
    const after = await written();
    if (after.join(" ") !== learned.join(" ")) fail(`${lang}: trained in the page, the model writes "${after.join(" ")}"`);
    const cells = await brightest();
    if (cells.length !== 7) fail(`${lang}: ${cells.length} rows of alignment on screen after training`);
    cells.forEach((c, r) => {  // 0.70 in viridis is a light green, lightness about 150
      if (c.col !== aligned[r] || c.light < 120) fail(`${lang}: row ${r + 1} ("${learned[r]}") is lightest at column ${c.col + 1} (lightness ${c.light.toFixed(0)}); expected ${aligned[r] + 1}`);
    });
    // The lesson is still whole: on the way the decoder wrote fewer than 7 words for a while
    // (3 at step 10), and the question about the 7th row stayed the lesson's, to come back with
    // it (it was dropped for good before). Both questions there, both answerable, and the
    // answers given before Random start kept: the lesson is done.
    const quiz = await ap(() => window.attentionPlayground.getQuiz());
    if (quiz.length !== 2 || quiz.some((q) => q.fits !== true)) fail(`${lang}: after training getQuiz() is ${JSON.stringify(quiz.map((q) => [q.step, q.fits]))}`);
    const progress = (await ap(() => window.attentionPlayground.getProgress())).lessons.find((l) => l.id === "learned_bahdanau");
    if (!(progress?.questions === 2 && progress.answered === 2 && progress.done)) fail(`${lang}: after Random start and Train the lesson's progress is ${JSON.stringify(progress)}`);
    const again = await itemWhen(page, (i) => i.id.endsWith("###decoder_train"), 5000);
    if (again?.label !== words.train) fail(`${lang}: paused at step 1500, the button reads "${again?.label}"`);
    if (pausing?.label !== words.pause && took > 3000) fail(`${lang}: while training the button read "${pausing?.label}", not "${words.pause}"`);
    // Paused: the page falls asleep (no frame for a second), then draws nothing for 2 s.
    const asleep = await fallsAsleep(page);
    if (!asleep) fail(`${lang}: the page still draws frames 20 s after training paused`);
    const f0 = await ap(() => window.attentionPlayground.stats().frames);
    await page.waitForTimeout(2000);
    const f1 = await ap(() => window.attentionPlayground.stats().frames);
    if (f1 !== f0) fail(`${lang}: ${f1 - f0} frames drawn in 2 s after training paused`);
    if (page.problems.length) fail(`${lang}: ${page.problems.join("; ")}`);
    seen.push(`${lang}: "${words.random}" → "${scrambled.slice(0, 4).join(" ")} …"; "${words.train}" → ` +
              `"${reached.label}" in ${(took / 1000).toFixed(1)} s, writing "${after.join(" ")}", each row's lightest cell on its word ` +
              `(lightness ≥ ${Math.min(...cells.map((c) => c.light)).toFixed(0)})`);
    await page.context().close();
  }
  ok(`decoder-train: ${seen.join("; ")}`);
}

const CHECKS = {
  transpose: checkTranspose,
  layers: checkLayers,
  curve: checkCurve,
  decoder: checkDecoder,
  "decoder-train": checkDecoderTrain,
  hierarchy: checkHierarchy,
  picture: checkPicture,
  touch: checkTouch,
  "touch-gestures": checkTouchGestures,
  "train-button": checkTrainButton,
  "hard-train": checkHardTrain,
  clicks: checkClicks,
  "course-package": checkCoursePackage,
  "lessons-800": (ctx) => checkLessons(ctx, [{ width: 800, height: 600 }]),
  // A laptop's frames cost the most here (SwiftShader): the lessons walked, the questions
  // left to the other two sizes.
  "lessons-1440": (ctx) => checkLessons(ctx, [{ width: 1440, height: 900 }], { questions: false }),
  "lessons-phone": (ctx) => checkLessons(ctx, [{ width: 390, height: 844 }]),
};

runChecks(CHECKS, { run: (name, ctx) => CHECKS[name](ctx), checkMs: 420000 });
