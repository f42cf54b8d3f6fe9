// The playground from the keyboard alone, in headless Chromium: the focus stays on
// the table view's control the learner used while the view redraws (also while a task
// trains); Tab and Shift+Tab leave the page, and an embedded playground, at both ends, and
// nothing takes the focus at load; the canvas shows a focus ring; the page has an h1.
//
//   node tests/web/keyboard_test.mjs --site DIR CHECK... | all
//
// Every key goes through page.keyboard.press, as a learner's would: no element is focused or
// clicked by the test.
import { createServer } from "node:http";
import { fail, ok, runChecks, watchProblems } from "./harness.mjs";
import { cellMiddle, contrastRatio, meanColour } from "./page.mjs";
import { decodePng } from "./png.mjs";

const VIEWPORT = { width: 800, height: 600 };
const TIMEOUT_MS = 30000;
const SETTLE_FRAMES = 3;  // the app's events arrive a frame or more after a key: three drawn frames
const RING = [0x3b, 0x73, 0xe6];  // #canvas:focus-visible in web/app.css

// Waits until the canvas has drawn SETTLE_FRAMES more frames (frames(n) wakes an idle page).
async function settle(target) {
  const r = await target.evaluate((n) => window.attentionPlayground.frames(n), SETTLE_FRAMES);
  if (!r || r.ok !== true) fail(`frames(${SETTLE_FRAMES}): ${r?.error ?? JSON.stringify(r)}`);
}

async function openPage(target, url) {
  const page = watchProblems(await target.newPage({ viewport: VIEWPORT, reducedMotion: "reduce" }));
  await page.goto(url);
  await waitReady(page);
  return page;
}

async function waitReady(target) {
  try {
    await target.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
  } catch {
    const status = await target.evaluate(() => document.getElementById("status")?.textContent ?? "");
    fail(`the playground was not ready within ${TIMEOUT_MS / 1000} s (status: "${status}")`);
  }
}

function checkNoProblems(page, when) {
  if (page.problems.length > 0) fail(`${when}: ${page.problems.join("; ")}`);
}

// What has the focus: "body", "#id", "[data-key]" or the tag, with the element's text.
function focusedIn(target) {
  return target.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return { name: "body", text: "" };
    const name = e.id ? `#${e.id}` : e.dataset?.key ? `[${e.dataset.key}]` : e.tagName.toLowerCase();
    return { name, text: (e.textContent ?? "").trim().slice(0, 40) };
  });
}

// Presses Tab (or Shift+Tab) until `want(name)` holds for the focused element, at most `max`
// times; fails naming the elements passed.
async function tabTo(page, want, what, { max = 40, back = false } = {}) {
  const passed = [];
  for (let k = 0; k < max; ++k) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const { name, text } = await focusedIn(page);
    if (want(name, text)) return name;
    passed.push(name);
  }
  fail(`${max} presses of ${back ? "Shift+Tab" : "Tab"} never reached ${what} (passed ${passed.join(" ")})`);
}

// Tab from the focused control walks out of the table view and the page within `max` presses,
// none of them cancelled: the view, showing the controls of the tab it shows, holds no trap.
// Returns the controls passed. (In headless Chromium, which has no controls of its own, the
// focus goes around to the body or the canvas.)
async function tabsOut(page, what, max = 80) {
  await page.evaluate(() => {
    window.cancelledTabsOut = 0;
    window.addEventListener("keydown", (e) => {
      if (e.key === "Tab") setTimeout(() => { if (e.defaultPrevented) ++window.cancelledTabsOut; });
    }, { capture: true });
  });
  const passed = [];
  for (let k = 0; k < max; ++k) {
    await page.keyboard.press("Tab");
    const { name } = await focusedIn(page);
    if (name === "body" || name === "#canvas") {
      await page.waitForTimeout(50);
      const cancelled = await page.evaluate(() => window.cancelledTabsOut);
      if (cancelled) fail(`${what}: ${cancelled} of the Tab presses out of the table view were cancelled`);
      return passed;
    }
    passed.push(name);
  }
  fail(`${what}: ${max} presses of Tab never left the table view (the focus went ${passed.slice(-12).join(" ")})`);
}

// After a key: the app's events arrive a frame or more later and the view redraws; then the
// focus must be on `want` (a name from focusedIn), never on the body.
async function pressAndKeep(page, key, want, what, seen) {
  await page.keyboard.press(key);
  await settle(page);
  const { name, text } = await focusedIn(page);
  if (name !== want) fail(`${what}: ${SETTLE_FRAMES} frames after ${key} the focus is on ${name} ("${text}"), not ${want}`);
  seen.push(what);
}

// ---------------------------------------------------------------------------------------
// table-focus: every action in the table view keeps the focus on its control
// ---------------------------------------------------------------------------------------

async function checkTableFocus({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=why_so_tall&step=3`);
  const seen = [];
  const ap = (fn, arg) => page.evaluate(fn, arg);
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 5 });
  await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);

  // The lesson's question: Enter on a key's button; the focus goes to the verdict.
  const key = await tabTo(page, (n) => n.startsWith("[q0 key"), "the question's first answer");
  await pressAndKeep(page, "Enter", "[q0 verdict]", `answering with ${key}`, seen);
  const quiz = await ap(() => window.attentionPlayground.getQuiz()[0]);
  if (!quiz?.answered) fail(`Enter on ${key} left the question unanswered: ${JSON.stringify(quiz)}`);

  // The step (↓ in the select), the temperature (↑ in its field), the causal mask (Space).
  await tabTo(page, (n) => n === "#a11y-control-step", "the step setting");
  await pressAndKeep(page, "ArrowDown", "#a11y-control-step", "the next step", seen);
  const step = await ap(() => window.attentionPlayground.getView().step);
  if (step !== 3) fail(`↓ in the step setting showed step ${step + 1}, not 4`);
  await tabTo(page, (n) => n === "#a11y-control-temperature", "the temperature");
  const t0 = await ap(() => window.attentionPlayground.getScenario().temperature ?? 1);
  await pressAndKeep(page, "ArrowUp", "#a11y-control-temperature", "a higher temperature", seen);
  const t1 = await ap(() => window.attentionPlayground.getScenario().temperature);
  if (!(t1 > t0)) fail(`↑ in the temperature field left it at ${t1} (was ${t0})`);
  await tabTo(page, (n) => n === "#a11y-control-causal", "the causal mask");
  await pressAndKeep(page, " ", "#a11y-control-causal", "the causal mask", seen);
  if ((await ap(() => window.attentionPlayground.getScenario().causal)) !== true) fail("Space on causal left it off");
  // Back to the scoring (Shift+Tab) and the next scoring.
  await tabTo(page, (n) => n === "#a11y-control-scoring", "the scoring", { back: true });
  await pressAndKeep(page, "ArrowDown", "#a11y-control-scoring", "another scoring", seen);

  // A toy task (↓ in its select: "previous token"), then train (play) and pause.
  await tabTo(page, (n) => n === "#a11y-control-task", "the toy task");
  await pressAndKeep(page, "ArrowDown", "#a11y-control-task", "a toy task", seen);
  const task = await ap(() => window.attentionPlayground.getTraining().task);
  if (task !== "previous_token") fail(`↓ in the toy task loaded "${task}"`);
  await tabTo(page, (n) => n === "#a11y-control-train", "train (play)", { max: 3 });
  await ap(() => {
    window.redraws = 0;
    new MutationObserver(() => { ++window.redraws; }).observe(document.getElementById("a11y-body"), { childList: true });
  });
  const before = await ap(() => window.attentionPlayground.getTraining().step);
  await pressAndKeep(page, " ", "#a11y-control-train", "train (play)", seen);
  await ap(() => { window.redraws = 0; });
  await page.waitForTimeout(5000);
  const trained = await ap(() => ({ redraws: window.redraws, t: window.attentionPlayground.getTraining() }));
  const still = await focusedIn(page);
  if (still.name !== "#a11y-control-train") fail(`after 5 s of training the focus is on ${still.name}`);
  if (!trained.t.playing || !(trained.t.step > before)) fail(`Space on train (play): ${JSON.stringify(trained.t).slice(0, 200)}`);
  if (trained.redraws > 15) fail(`the table view was redrawn ${trained.redraws} times in 5 s of training (at most 15)`);
  if (trained.redraws < 2) fail(`the table view followed 5 s of training ${trained.redraws} times (the matrix changes)`);
  await pressAndKeep(page, " ", "#a11y-control-train", "pausing", seen);
  if ((await ap(() => window.attentionPlayground.getTraining().playing)) !== false) fail("Space again did not pause");
  // Escape still closes the view, and the canvas has the focus back.
  await pressAndKeep(page, "Escape", "#canvas", "closing the view", seen);
  if (await ap(() => document.getElementById("a11y").classList.contains("shown"))) fail("Escape left the table view open");
  checkNoProblems(page, "table-focus");

  // A question answered with a number: typed, then Enter (the form's Check); then the next
  // lesson's button keeps the focus as the lesson changes.
  await page.goto(`${url}?preset=self_attention&step=5`);
  await waitReady(page);
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 5 });
  await page.keyboard.press("Enter");
  const field = await tabTo(page, (n) => /^\[q\d+ value\]$/.test(n), "the question's number field");
  await page.keyboard.type("0.17");
  await pressAndKeep(page, "Enter", field.replace("value", "verdict"), "a number checked", seen);
  await tabTo(page, (n) => n === "[lesson next]", "the next lesson's button", { back: true });
  await pressAndKeep(page, "Enter", "[lesson next]", "the next lesson", seen);
  const lesson = await ap(() => window.attentionPlayground.getView().lesson);
  if (lesson !== "learned_previous_token") fail(`the next lesson's button loaded "${lesson}"`);
  checkNoProblems(page, "table-focus");
  ok(`table-focus: the focus stayed on each control ${SETTLE_FRAMES} frames after ${seen.join(", ")} (the ` +
     `verdict after the answer); ${trained.t.step - before} training steps in 5 s redrew the table view ` +
     `${trained.redraws} times`);
}

// ---------------------------------------------------------------------------------------
// embed-tab: Tab passes through an embedded playground and out of the page at both ends
// ---------------------------------------------------------------------------------------

async function checkEmbedTab({ browser, url }) {
  const playground = `${url}?embed=1&preset=why_so_tall`;
  // The parent page on another loopback port: another origin.
  const course = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title></head><body>
<button id="before">before</button>
<iframe id="f" title="playground" src="${playground}" width="800" height="600"></iframe>
<button id="after">after</button></body></html>`);
  });
  await new Promise((resolve) => course.listen(0, "127.0.0.1", resolve));
  try {
    const page = watchProblems(await browser.newPage({ viewport: { width: 900, height: 700 }, reducedMotion: "reduce" }));
    await page.goto(`http://127.0.0.1:${course.address().port}/lesson.html`);
    const frame = page.frames().find((f) => f.url().startsWith(url));
    if (!frame) fail("the playground's frame is not there");
    await waitReady(frame);
    await page.waitForTimeout(2000);
    const held = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    const frameFocus = await frame.evaluate(() => ({ has: document.hasFocus(), on: document.activeElement?.tagName }));
    if (held !== "BODY" && held !== "before") fail(`2 s after loading, the parent's focus is on ${held}`);
    if (frameFocus.has || frameFocus.on !== "BODY") fail(`2 s after loading, the frame holds the focus (${JSON.stringify(frameFocus)})`);

    // From #before, Tab through the frame to #after; Shift+Tab back.
    await page.click("#before");
    const walk = async (key, target) => {
      const stops = [];
      for (let k = 0; k < 40; ++k) {
        await page.keyboard.press(key);
        const parent = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
        if (parent === target) return stops;
        stops.push(parent === "f" ? (await focusedIn(frame)).name : parent);
      }
      fail(`40 presses of ${key} never reached #${target} (the focus went ${stops.slice(0, 12).join(" ")}…)`);
    };
    const forward = await walk("Tab", "after");
    const backward = await walk("Shift+Tab", "before");
    if (!forward.includes("#canvas") || !backward.includes("#canvas")) {
      fail(`Tab passed ${forward.join(" ")} and Shift+Tab ${backward.join(" ")}: not the canvas`);
    }
    checkNoProblems(page, "the course page");
    await page.close();
    ok(`embed-tab: nothing in the frame takes the focus at load; Tab goes before → ${forward.join(" → ")} → after, ` +
       `Shift+Tab after → ${backward.join(" → ")} → before`);
  } finally {
    course.close();
  }
  await standaloneTab(browser, url);
}

// The page alone: no Tab is cancelled, and Tab past the last control (the table view closed,
// then open) and Shift+Tab before the first (the canvas) go where the browser sends them: to
// its own controls in a window, around to the other end of the page in headless Chromium,
// which has none. (The old handler cancelled those presses and put the focus on the canvas.)
async function standaloneTab(browser, url) {
  const page = watchProblems(await browser.newPage({ viewport: VIEWPORT, reducedMotion: "reduce" }));
  // Before app.js: every cancelled Tab is counted.
  await page.addInitScript(() => {
    window.cancelledTabs = 0;
    const prevent = Event.prototype.preventDefault;
    Event.prototype.preventDefault = function (...args) {
      if (this.type === "keydown" && this.key === "Tab") ++window.cancelledTabs;
      return prevent.apply(this, args);
    };
  });
  await page.goto(`${url}?preset=why_so_tall`);
  await waitReady(page);
  const atLoad = await focusedIn(page);
  if (atLoad.name !== "body") fail(`at load the focus is on ${atLoad.name}`);
  const left = [];
  const leave = async (from, key, around) => {
    const before = await page.evaluate(() => window.cancelledTabs);
    await page.keyboard.press(key);
    const { name } = await focusedIn(page);
    const cancelled = await page.evaluate(() => window.cancelledTabs) - before;
    if (cancelled > 0) fail(`${key} from ${from} was cancelled (preventDefault)`);
    if (name !== "body" && name !== around) fail(`${key} from ${from} moved to ${name}, inside the page`);
    left.push(`${key} from ${from} (to ${name})`);
  };
  await tabTo(page, (n) => n === "#canvas", "the canvas", { max: 3 });
  await leave("the canvas", "Shift+Tab", "#table-toggle");
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 4 });
  await leave("the table view's button, the view closed", "Tab", "#canvas");
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 4 });
  await page.keyboard.press("Enter");
  const last = await page.evaluate(() => [...document.querySelectorAll("#a11y-body select, #a11y-body input")].pop()?.id);
  await tabTo(page, (n) => n === `#${last}`, "the last setting", { max: 60 });
  await leave("the last setting, the view open", "Tab", "#canvas");
  const cancelled = await page.evaluate(() => window.cancelledTabs);
  if (cancelled !== 0) fail(`${cancelled} Tab presses had their default action cancelled`);
  checkNoProblems(page, "the page alone");
  await page.close();
  ok(`embed-tab: the page alone takes no focus at load, cancels no Tab, and ${left.join(", ")} leave it`);
}

// ---------------------------------------------------------------------------------------
// focus-ring: the canvas focused from the keyboard shows a ring at its edge
// ---------------------------------------------------------------------------------------

// Every 8th pixel along each edge of the screenshot: the pixels of the band `depth` pixels
// deep from the edge, outermost first.
function edgeBands(img, depth) {
  const at = (x, y) => Array.from(img.pixels.subarray(4 * (y * img.width + x), 4 * (y * img.width + x) + 3));
  const bands = [];
  const { width: w, height: h } = img;
  for (let x = 8; x < w - 8; x += 8) {
    bands.push(["top", Array.from({ length: depth }, (_, d) => at(x, d))]);
    bands.push(["bottom", Array.from({ length: depth }, (_, d) => at(x, h - 1 - d))]);
  }
  for (let y = 8; y < h - 8; y += 8) {
    bands.push(["left", Array.from({ length: depth }, (_, d) => at(d, y))]);
    bands.push(["right", Array.from({ length: depth }, (_, d) => at(w - 1 - d, y))]);
  }
  return bands;
}

async function checkFocusRing({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=why_so_tall`);
  await page.keyboard.press("Tab");
  const focus = await page.evaluate(() => ({ id: document.activeElement?.id,
                                             visible: document.activeElement?.matches(":focus-visible") }));
  if (focus.id !== "canvas" || !focus.visible) fail(`the first Tab focused ${JSON.stringify(focus)}, not the canvas`);
  const box = await page.evaluate(() => {
    const r = document.getElementById("canvas").getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  // The canvas's box and 4 px around it, within the window (the canvas fills it).
  const clip = { x: Math.max(0, box.x - 4), y: Math.max(0, box.y - 4) };
  clip.width = Math.min(VIEWPORT.width, box.x + box.width + 4) - clip.x;
  clip.height = Math.min(VIEWPORT.height, box.y + box.height + 4) - clip.y;
  await settle(page);
  const focused = decodePng(await page.screenshot({ clip }));
  await page.keyboard.press("Shift+Tab");  // out of the page: the canvas loses the focus
  const after = await focusedIn(page);
  if (after.name === "#canvas") fail("Shift+Tab left the focus on the canvas");
  await settle(page);
  const plain = decodePng(await page.screenshot({ clip }));
  const near = (p) => Math.max(...p.map((v, i) => Math.abs(v - RING[i]))) <= 40;
  const ringed = (band) => band.slice(0, 4).some(near);
  const withFocus = edgeBands(focused, 4), without = edgeBands(plain, 4);
  const missing = withFocus.filter(([, band]) => !ringed(band)).map(([edge]) => edge);
  if (missing.length > 0.05 * withFocus.length) {
    fail(`focused, the canvas's edge lacks the ring at ${missing.length} of ${withFocus.length} places ` +
         `(${[...new Set(missing)].join(", ")})`);
  }
  const stray = without.filter(([, band]) => ringed(band)).length;
  if (stray > 0.05 * without.length) fail(`without the focus, ${stray} of ${without.length} edge places have the ring's colour`);
  // The ring against what the canvas shows there without it: at least 3:1 everywhere.
  let worst = Infinity;
  withFocus.forEach(([, band], k) => {
    const ring = band.find(near);
    if (ring) worst = Math.min(worst, contrastRatio(ring, without[k][1][1]));
  });
  if (!(worst >= 3)) fail(`the ring's contrast with the canvas under it is ${worst.toFixed(2)}:1 somewhere, under 3:1`);
  checkNoProblems(page, "focus-ring");
  ok(`focus-ring: Tab focuses the canvas and its edge shows the ring at ${withFocus.length - missing.length} of ` +
     `${withFocus.length} places (contrast at least ${worst.toFixed(2)}:1 with the canvas); unfocused, at ${stray}`);
}

// ---------------------------------------------------------------------------------------
// heading: the accessibility tree has the product's name as its h1, in both languages
// ---------------------------------------------------------------------------------------

async function checkHeading({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=why_so_tall`);
  // The loading card has faded out, its title with it.
  await page.waitForFunction(() => getComputedStyle(document.getElementById("overlay")).visibility === "hidden",
                             null, { timeout: TIMEOUT_MS, polling: 50 });
  const cdp = await page.context().newCDPSession(page);
  const h1 = async () => {
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    return nodes.filter((n) => !n.ignored && n.role?.value === "heading" &&
                               n.properties?.some((p) => p.name === "level" && p.value.value === 1))
      .map((n) => n.name?.value ?? "");
  };
  const en = await h1();
  if (en.length !== 1 || en[0] !== "Attention Playground") fail(`the page's h1 headings are ${JSON.stringify(en)}`);
  await page.evaluate(() => window.attentionPlayground.setLanguage("zh"));
  await settle(page);
  const zh = await h1();
  if (zh.length !== 1 || zh[0] !== "注意力游乐场") fail(`in Chinese the page's h1 headings are ${JSON.stringify(zh)}`);
  checkNoProblems(page, "heading");
  ok(`heading: after loading, one h1 in the accessibility tree: "${en[0]}", in Chinese "${zh[0]}"`);
}

// ---------------------------------------------------------------------------------------
// every-control: what was pointer-only on the canvas, from the keyboard in the table view
// ---------------------------------------------------------------------------------------

// "Ask me again", the lesson list, the language, an export, Open a file…, a toy task trained
// a step at a time, reset, its learning rate, optimizer and seed: each reached with Tab and
// used with Enter, Space or the arrows, the focus kept on it, its effect read back.
async function checkEveryControl({ browser, url }) {
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce",
                                             permissions: ["clipboard-read", "clipboard-write"] });
  const page = watchProblems(await context.newPage());
  // Listening from the start: Playwright intercepts the file chooser only once it listens.
  const chosen = [];
  page.on("filechooser", (c) => chosen.push(c));
  await page.goto(`${url}?preset=why_so_tall&step=3`);
  await waitReady(page);
  const seen = [];
  const ap = (fn, arg) => page.evaluate(fn, arg);
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 5 });
  await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);

  // A question answered, then asked again: the focus goes to its first answer.
  await tabTo(page, (n) => n.startsWith("[q0 key"), "the question's first answer");
  await pressAndKeep(page, "Enter", "[q0 verdict]", "answering", seen);
  await tabTo(page, (n) => n === "[q0 again]", "Ask me again", { max: 6 });
  await pressAndKeep(page, "Enter", "[q0 key 0]", "Ask me again", seen);
  const reopened = await ap(() => window.attentionPlayground.getQuiz()[0]);
  if (reopened.answered) fail(`"Ask me again" left the question answered: ${JSON.stringify(reopened).slice(0, 200)}`);

  // The centre's tabs: ↓ in the view select shows all heads on the canvas, ↑ the steps again.
  await tabTo(page, (n) => n === "#a11y-control-view", "the view");
  await pressAndKeep(page, "ArrowDown", "#a11y-control-view", "all heads", seen);
  const drawn = async () => JSON.stringify(await ap(() => window.attentionPlayground.layout()));
  if (!(await drawn()).includes('"head0"')) fail("↓ in the view select did not show all heads on the canvas");
  await pressAndKeep(page, "ArrowUp", "#a11y-control-view", "step by step", seen);
  if ((await drawn()).includes('"head0"')) fail("↑ in the view select left all heads on the canvas");

  // A toy task, one training step, another, reset; the learning rate, SGD, another seed.
  await tabTo(page, (n) => n === "#a11y-control-task", "the toy task");
  await pressAndKeep(page, "ArrowDown", "#a11y-control-task", "a toy task", seen);
  await tabTo(page, (n) => n === "#a11y-control-train_step", "one training step", { max: 6 });
  await pressAndKeep(page, "Enter", "#a11y-control-train_step", "one training step", seen);
  await pressAndKeep(page, " ", "#a11y-control-train_step", "another training step", seen);
  const stepped = await ap(() => window.attentionPlayground.getTraining());
  if (stepped.step !== 2) fail(`Enter and Space on "one training step" trained ${stepped.step} steps, not 2`);
  await tabTo(page, (n) => n === "#a11y-control-train_reset", "reset training", { max: 3 });
  await pressAndKeep(page, "Enter", "#a11y-control-train_reset", "reset training", seen);
  if ((await ap(() => window.attentionPlayground.getTraining().step)) !== 0) fail("reset training left steps");
  await tabTo(page, (n) => n === "#a11y-control-learning_rate", "the learning rate", { max: 3 });
  const lr0 = (await ap(() => window.attentionPlayground.getTraining())).lr;
  await pressAndKeep(page, "ArrowUp", "#a11y-control-learning_rate", "a higher learning rate", seen);
  const lr1 = (await ap(() => window.attentionPlayground.getTraining())).lr;
  if (!(lr1 > lr0)) fail(`↑ in the learning rate left it at ${lr1} (was ${lr0})`);
  await tabTo(page, (n) => n === "#a11y-control-optimizer", "the optimizer", { max: 3 });
  await pressAndKeep(page, "ArrowDown", "#a11y-control-optimizer", "SGD", seen);
  if ((await ap(() => window.attentionPlayground.getTraining().optimizer)) !== "sgd") fail("↓ in the optimizer did not choose SGD");
  await tabTo(page, (n) => n === "#a11y-control-train_seed", "the seed", { max: 3 });
  const seed0 = (await ap(() => window.attentionPlayground.getTraining())).seed;
  await pressAndKeep(page, "ArrowUp", "#a11y-control-train_seed", "another seed", seen);
  const seed1 = (await ap(() => window.attentionPlayground.getTraining())).seed;
  if (seed1 !== seed0 + 1) fail(`↑ in the seed gave ${seed1} (was ${seed0})`);

  // Open a file…: Enter opens the browser's file chooser.
  await tabTo(page, (n) => n === "#a11y-control-open", "Open a file…", { max: 4 });
  const choosers = chosen.length;
  await page.keyboard.press("Enter");
  for (let t = 0; t < 50 && chosen.length === choosers; ++t) await page.waitForTimeout(100);
  if (chosen.length === choosers) fail("Enter on Open a file… opened no file chooser");
  await settle(page);
  if ((await focusedIn(page)).name !== "#a11y-control-open") fail("after Open a file… the focus moved");
  seen.push("Open a file…");

  // The Export menu: Enter on "Copy as NumPy code" puts the program on the clipboard.
  const target = await tabTo(page, (n, text) => n.startsWith("#a11y-control-export-") && /NumPy/.test(text),
                             "the Export menu's \"Copy as NumPy code\"", { max: 8 });
  await pressAndKeep(page, "Enter", target, "Copy as NumPy code", seen);
  const clip = await ap(() => navigator.clipboard.readText());
  if (!/import numpy/.test(clip)) fail(`the clipboard holds ${JSON.stringify(clip.slice(0, 80))}, not the NumPy program`);
  // The step's matrix alone, as CSV (the heatmap's own menu on the canvas).
  const csv = await tabTo(page, (n, text) => n.startsWith("#a11y-control-export_matrix-") && /CSV/.test(text),
                          "\"This matrix\": Copy as CSV", { max: 6 });
  await pressAndKeep(page, "Enter", csv, "this matrix as CSV", seen);
  const table = await ap(() => navigator.clipboard.readText());
  if (!(table.split("\n").length > 2 && table.includes(","))) fail(`the clipboard holds ${JSON.stringify(table.slice(0, 80))}, not a CSV`);

  // The language: ↓ is Chinese (the page says so), ↑ English again.
  await tabTo(page, (n) => n === "#a11y-control-language", "the language", { max: 8 });
  await pressAndKeep(page, "ArrowDown", "#a11y-control-language", "中文", seen);
  const zh = await ap(() => document.documentElement.lang);
  if (zh !== "zh-CN") fail(`↓ in the language left the page in ${zh}`);
  await pressAndKeep(page, "ArrowUp", "#a11y-control-language", "English", seen);
  if ((await ap(() => document.documentElement.lang)) !== "en") fail("↑ in the language did not go back to English");
  // Back to the lesson list (Shift+Tab): ↓ opens another lesson.
  await tabTo(page, (n) => n === "#a11y-control-preset", "the lesson list", { back: true });
  await pressAndKeep(page, "ArrowDown", "#a11y-control-preset", "another lesson", seen);
  const lesson = await ap(() => window.attentionPlayground.getView().lesson);
  if (!lesson) fail("↓ in the lesson list opened no lesson");

  checkNoProblems(page, "every-control");
  await context.close();
  ok(`every-control: from the keyboard, with the focus kept: ${seen.join(", ")}; the clipboard got ` +
     `${clip.length} characters of NumPy`);
}

// A stack's layer from the keyboard: Tab reaches the table view's "Layer" select, ↓ shows
// layer 2 on the canvas (its heading says so) with the focus kept, and Tab goes on past it.
async function checkLayer({ browser, url }) {
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await page.goto(`${url}?preset=why_stack&step=6`);
  await waitReady(page);
  const seen = [];
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 5 });
  await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);
  await tabTo(page, (n) => n === "#a11y-control-layer", "the layer");
  await pressAndKeep(page, "ArrowDown", "#a11y-control-layer", "layer 2", seen);
  const view = await page.evaluate(() => window.attentionPlayground.getView());
  if (view.layer !== 1) fail(`↓ in the layer select shows layer ${view.layer + 1}`);
  const heading = await page.evaluate(() => window.attentionPlayground.getAccessible().heading);
  if (!heading.startsWith("Layer 2 of 2")) fail(`the heading after ↓ reads "${heading}"`);
  await page.keyboard.press("Tab");
  await settle(page);
  if ((await focusedIn(page)).name === "#a11y-control-layer") fail("Tab stayed on the layer select");
  checkNoProblems(page, "layer");
  await context.close();
  ok(`layer: Tab reaches the layer select, ↓ shows "${heading}", the focus kept, Tab goes on`);
}

// The Picture and Curve tabs from the keyboard: in the table view Tab reaches the view select,
// ↓ shows the tab on the canvas, and the next select chooses the query the tab draws; Escape
// closes the table view, and the canvas shows the query chosen (the sky patch dimmed under the
// sign's query, bright under "plain blue sky"; the curve's weight bars move to another query).
// The lessons' questions are answered through the API first (their keyboard path is
// table-focus's): until then both tabs hide the weights.
async function checkPictureCurve({ browser, url }) {
  const seen = [];
  for (const [preset, tab, answers] of [["where_the_eye_goes", "picture", [[0, { key: 18 }], [1, { key: 19 }], [2, { value: 0.051 }]]],
                                        ["nadaraya_watson", "curve", [[0, { value: 0.1 }], [1, { value: 2.07 }]]]]) {
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
    const page = watchProblems(await context.newPage());
    await page.goto(`${url}?preset=${preset}`);
    await waitReady(page);
    const ap = (fn, arg) => page.evaluate(fn, arg);
    await ap((list) => { for (const [q, a] of list) window.attentionPlayground.answerQuiz(q, a); }, answers);
    const control = `#a11y-control-${tab}_query`;
    // Opens the table view, presses `keys` on `control`, and closes it with Escape.
    const inTable = async (id, keys, what) => {
      await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 8 });
      await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);
      await tabTo(page, (n) => n === id, what);
      for (const key of keys) await pressAndKeep(page, key, id, what, seen);
      await page.keyboard.press("Escape");
      await settle(page);
      if (await ap(() => document.getElementById("a11y").classList.contains("shown"))) fail("Escape left the table view open");
    };
    await inTable("#a11y-control-view", ["ArrowDown"], `${preset}: the ${tab} tab`);
    const grid = async () => (await ap(() => window.attentionPlayground.layout()))[tab];
    const g = await grid();
    if (!g) fail(`${preset}: ↓ in the view select did not show the ${tab} tab on the canvas`);
    if (g.hidden) fail(`${preset}: every question answered, the ${tab} tab still hides its weights`);
    if (tab === "picture") {
      const sky = cellMiddle(g, 0, 0);
      const under = [await meanColour(page, sky)];
      await inTable(control, ["ArrowDown", "ArrowDown"], "plain blue sky");
      under.push(await meanColour(page, cellMiddle(await grid(), 0, 0)));
      if (!(under[0][2] < under[1][2] * 0.5)) fail(`the sky patch is not dimmed under the sign's query, then bright under the sky's: ${JSON.stringify(under.map((c) => c.map(Math.round)))}`);
      seen.push(`sky patch blue ${Math.round(under[0][2])} → ${Math.round(under[1][2])}`);
    } else {
      const box = { x: g.x0, y: g.y0, width: g.x1 - g.x0, height: g.y1 - g.y0 };
      const before = await page.screenshot({ clip: box });
      await inTable(control, ["ArrowDown"], "the next query");
      if (Buffer.compare(before, await page.screenshot({ clip: box })) === 0) fail("↓ in the curve's query left the plot as it was");
    }
    checkNoProblems(page, preset);
    await context.close();
  }
  ok(`picture-curve: from the keyboard: ${seen.join(", ")}`);
}

// The Decoder tab from the keyboard (learned_bahdanau, its questions answered through the API
// first): in the table view ↓ in the view select shows the Decoder tab on the canvas; ↓ in
// "Decoder's word" moves the word shown; Enter on "the decoder's random start" draws the
// weights again (the canvas writes another translation); Space on "train the decoder" trains
// it until it pauses at step 1500, the canvas then writing the lesson's translation; the focus
// stays on each control; Escape closes the table view.
async function checkDecoderKeys({ browser, url }) {
  const seen = [];
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await page.goto(`${url}?preset=learned_bahdanau`);
  await waitReady(page);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  await ap(() => { const a = window.attentionPlayground; a.answerQuiz(0, { key: 1 }); a.answerQuiz(1, { key: 5 }); });
  // What the canvas draws now: the place ("Word t of m"), the words written, the status line
  // (laid out at once: an idle page draws no frame to record, and waiting for one to come
  // read nothing in 3 of 5 runs here).
  const canvas = async () => {
    await settle(page);
    const items = await ap(() => {
      const a = window.attentionPlayground;
      a.items();  // the first call starts the record
      a.layoutNow(3);
      return a.items();
    });
    const label = (id) => items.find((i) => i.id === id)?.label ?? "";
    const written = items.filter((i) => /^decoder\.written\d+$/.test(i.id))
                         .sort((a, b) => Number(a.id.slice(15)) - Number(b.id.slice(15))).map((i) => i.label);
    return { place: label("decoder.place"), status: label("decoder.training"), written: written.join(" ") };
  };
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 8 });
  await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);
  await tabTo(page, (n) => n === "#a11y-control-view", "the view");
  for (let k = 0; k < 6 && !(await ap(() => window.attentionPlayground.layout())).decoder; ++k)
    await pressAndKeep(page, "ArrowDown", "#a11y-control-view", "the next tab", seen);
  if (!(await ap(() => window.attentionPlayground.layout())).decoder) fail("↓ in the view select never showed the Decoder tab");
  await tabTo(page, (n) => n === "#a11y-control-decoder_step", "the decoder's word", { max: 6 });
  await pressAndKeep(page, "ArrowDown", "#a11y-control-decoder_step", "word 2", seen);
  const second = await canvas();
  if (second.place !== "Word 2 of 7" || second.written !== "miza grona") fail(`↓ in the decoder's word: the canvas reads ${JSON.stringify(second)}`);
  const random = await tabTo(page, (n) => n === "#a11y-control-decoder_random_start", "the decoder's random start", { max: 6 });
  await pressAndKeep(page, "Enter", random, "random start", seen);
  const scrambled = await canvas();
  if (scrambled.written.startsWith("miza grona kuras")) fail(`after the random start the canvas still writes "${scrambled.written}"`);
  // (The registry lists "train the decoder" just before the random start.)
  const train = await tabTo(page, (n) => n === "#a11y-control-decoder_train", "train the decoder", { max: 6, back: true });
  await pressAndKeep(page, " ", train, "train the decoder", seen);
  let now = await canvas();
  for (let t0 = Date.now(); !now.status.startsWith("Step 1500,") && Date.now() - t0 < 120000;) now = await canvas();
  if (!now.status.startsWith("Step 1500,")) fail(`after Space on "train the decoder" the canvas reads "${now.status}" 120 s later`);
  if (now.written !== "miza grona kuras piko lilu dormas <eos>") fail(`trained from the keyboard, the canvas writes "${now.written}"`);
  if ((await focusedIn(page)).name !== train) fail(`while training the focus left ${train}`);
  const out = await tabsOut(page, "decoder");
  // Shift+Tab comes back to the view's last control, and Escape from there closes the view.
  await tabTo(page, (n) => n.startsWith("#a11y-control-"), "the table view's last control", { max: 3, back: true });
  await page.keyboard.press("Escape");
  await settle(page);
  if (await ap(() => document.getElementById("a11y").classList.contains("shown"))) fail("Escape left the table view open");
  checkNoProblems(page, "decoder");
  await context.close();
  ok(`decoder: from the keyboard, the focus kept: the Decoder tab, word 2 ("miza grona"), the random start ` +
     `("${scrambled.written.split(" ").slice(0, 3).join(" ")} …"), Space trained it to "${now.status}" writing "${now.written}"; ` +
     `Tab left the page from there past ${out.length} controls`);
}

// The Document tab (attention over attention) from the keyboard: the view select shows it, and
// ↓ in its question select moves the canvas to the second question, the focus kept.
async function checkDocumentKeys({ browser, url }) {
  const seen = [];
  const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: "reduce" });
  const page = watchProblems(await context.newPage());
  await page.goto(`${url}?preset=attention_over_attention`);
  await waitReady(page);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  // The lesson's questions answered, so that no weight waits behind one.
  await ap(() => {
    const a = window.attentionPlayground;
    a.answerQuiz(0, { value: 3.35 }); a.answerQuiz(1, { key: 1 }); a.answerQuiz(2, { value: 0.61 });
  });
  // What the canvas draws now (laid out at once: an idle page draws no frame to record).
  const summary = () => ap(() => {
    const a = window.attentionPlayground;
    a.items();  // the first call starts the record
    a.layoutNow(3);
    return a.items().find((i) => i.id === "hierarchy.summary")?.label ?? "";
  });
  await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 8 });
  await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);
  await tabTo(page, (n) => n === "#a11y-control-view", "the view");
  let first = "";
  for (let k = 0; k < 8 && !first; ++k) {
    await pressAndKeep(page, "ArrowDown", "#a11y-control-view", "the next tab", seen);
    first = await summary();
  }
  if (!first.startsWith('For "how was the food?"')) fail(`↓ in the view select: the Document tab reads "${first}"`);
  const question = await tabTo(page, (n) => n === "#a11y-control-hierarchy_question", "the document's question", { max: 8 });
  await pressAndKeep(page, "ArrowDown", question, "the second question", seen);
  const second = await summary();
  if (!/^For "and the service\?", the sentence "[^"]*service[^"]*" gets 0\.7/.test(second)) {
    fail(`↓ in the question select: the canvas reads "${second}"`);
  }
  const out = await tabsOut(page, "document");
  checkNoProblems(page, "document");
  await context.close();
  ok(`document: from the keyboard, the focus kept: the view select showed the Document tab ("${first.slice(0, 60)}…"), ` +
     `↓ in its question select drew "${second.slice(0, 90)}…"; Tab left the page from there past ${out.length} controls`);
}

// The table view and the canvas share the screen: at 800×600 (a course's frame) the table view
// sits beside the canvas and at 390×844 (a phone) below it, neither covering the other, and a
// view chosen in the table view (Layers, ↓ in "View") is drawn where the learner sees it: its
// heatmaps inside the canvas's own rectangle, the canvas the element at their middle. Escape
// gives the canvas the whole screen again.
async function checkBeside({ browser, url }) {
  const seen = [];
  for (const viewport of [VIEWPORT, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, reducedMotion: "reduce" });
    const page = watchProblems(await context.newPage());
    await page.goto(`${url}?preset=why_stack&step=6`);
    await waitReady(page);
    const where = `${viewport.width}×${viewport.height}`;
    await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 5 });
    await pressAndKeep(page, "Enter", "#a11y", "opening the table view", []);
    await tabTo(page, (n) => n === "#a11y-control-view", "the view", { max: 60 });
    for (let k = 0; k < 10 && (await page.evaluate(() => window.attentionPlayground.getView().tab)) !== "layers"; ++k) {
      await pressAndKeep(page, "ArrowDown", "#a11y-control-view", "the next view", []);
    }
    await settle(page);
    const seenNow = await page.evaluate(() => {
      const box = (e) => { const r = e.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
      const canvas = box(document.getElementById("canvas")), table = box(document.getElementById("a11y"));
      const grids = Object.entries(window.attentionPlayground.layout()).filter(([id]) => id.startsWith("layers_"));
      const middle = grids.map(([id, g]) => {
        const x = (g.x0 + g.x1) / 2 + canvas.x0, y = (Math.max(g.y0, 0) + Math.min(g.y1, canvas.y1 - canvas.y0)) / 2 + canvas.y0;
        return { id, x, y, inside: g.x1 <= canvas.x1 - canvas.x0 + 0.5 && g.x0 >= -0.5, at: document.elementFromPoint(x, y)?.id ?? "" };
      });
      return { canvas, table, middle, tab: window.attentionPlayground.getView().tab, focus: document.activeElement?.id };
    });
    const { canvas, table } = seenNow;
    const overlap = Math.max(0, Math.min(canvas.x1, table.x1) - Math.max(canvas.x0, table.x0)) *
                    Math.max(0, Math.min(canvas.y1, table.y1) - Math.max(canvas.y0, table.y0));
    if (seenNow.tab !== "layers") fail(`${where}: ↓ in "View" did not show Layers (${seenNow.tab})`);
    if (overlap > 0) fail(`${where}: the table view ${JSON.stringify(table)} covers the canvas ${JSON.stringify(canvas)}`);
    const area = (r) => (r.x1 - r.x0) * (r.y1 - r.y0);
    if (area(canvas) < 0.35 * viewport.width * viewport.height) fail(`${where}: the canvas keeps only ${JSON.stringify(canvas)}`);
    const shown = seenNow.middle.filter((m) => m.inside && m.at === "canvas");
    if (shown.length === 0) fail(`${where}: no Layers heatmap is drawn where the canvas shows: ${JSON.stringify(seenNow.middle).slice(0, 400)}`);
    if (seenNow.focus !== "a11y-control-view") fail(`${where}: the focus moved to ${seenNow.focus}`);
    await page.keyboard.press("Escape");
    await settle(page);
    const full = await page.evaluate(() => { const r = document.getElementById("canvas").getBoundingClientRect(); return [r.width, r.height]; });
    if (full[0] !== viewport.width || full[1] !== viewport.height) fail(`${where}: after Escape the canvas is ${full.join("×")}`);
    checkNoProblems(page, `beside (${where})`);
    await context.close();
    const side = canvas.x1 <= table.x0 ? "beside" : "above";
    seen.push(`${where}: the canvas ${Math.round(canvas.x1 - canvas.x0)}×${Math.round(canvas.y1 - canvas.y0)} ${side} the table view, ` +
              `${shown.length} of ${seenNow.middle.length} Layers heatmaps in sight`);
  }
  ok(`beside: ${seen.join("; ")}; Escape gives the canvas the whole screen`);
}

// ---------------------------------------------------------------------------------------
// skip: "Skip to the settings", past a question's 40 patch buttons, by key and by a click where
// it is drawn, in both languages
// ---------------------------------------------------------------------------------------

async function checkSkip({ browser, url }) {
  const seen = [];
  for (const [lang, label] of [["en", "Skip to the settings"], ["zh", "跳到设置"]]) {
    const page = await openPage(browser, `${url}?preset=where_the_eye_goes&lang=${lang}`);
    await tabTo(page, (n) => n === "#table-toggle", "the table view's button", { max: 8 });
    await pressAndKeep(page, "Enter", "#a11y", "opening the table view", seen);
    // The first Tab in the table view is the skip button, with its words.
    const first = await tabTo(page, (n) => n === "#a11y-skip", "the skip button", { max: 1 });
    const { text } = await focusedIn(page);
    if (text !== label) fail(`${lang}: the skip button reads "${text}", not "${label}"`);
    // Enter: the focus is on the settings' first control; the View setting is a few Tabs on.
    await page.keyboard.press("Enter");
    const landed = (await focusedIn(page)).name;
    if (!/^#a11y-control-/.test(landed)) fail(`${lang}: Enter on the skip button put the focus on ${landed}`);
    let presses = 0;
    while ((await focusedIn(page)).name !== "#a11y-control-view" && presses < 5) {
      await page.keyboard.press("Tab");
      ++presses;
    }
    if ((await focusedIn(page)).name !== "#a11y-control-view") fail(`${lang}: 5 Tabs after the skip never reached the View setting`);
    // Without it: Tab from the top of the table view past the questions' patch buttons.
    await page.focus("#a11y");
    let walk = 0;
    while ((await focusedIn(page)).name !== "#a11y-control-view" && walk < 200) {
      await page.keyboard.press("Tab");
      ++walk;
    }
    // A click where the button is drawn (its box on the screen) does the same.
    await page.focus("#a11y");
    const box = await page.locator("#a11y-skip").boundingBox();
    if (!box || box.width < 20 || box.x + box.width > VIEWPORT.width) fail(`${lang}: the skip button is drawn at ${JSON.stringify(box)}`);
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id ?? "", [box.x + box.width / 2, box.y + box.height / 2]);
    if (hit !== "a11y-skip") fail(`${lang}: at the skip button's middle the screen shows #${hit}`);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const clicked = (await focusedIn(page)).name;
    if (clicked !== landed) fail(`${lang}: a click on the skip button put the focus on ${clicked}, Enter on ${landed}`);
    checkNoProblems(page, `skip (${lang})`);
    await page.close();
    seen.push(`${lang}: "${label}" first, then ${landed}; the View setting ${presses + 2} keys from the table view's top ` +
              `instead of ${walk} Tabs`);
  }
  ok(`skip: ${seen.join("; ")}`);
}

const CHECKS = {
  skip: checkSkip,
  decoder: checkDecoderKeys,
  document: checkDocumentKeys,
  "picture-curve": checkPictureCurve,
  layer: checkLayer,
  beside: checkBeside,
  "table-focus": checkTableFocus,
  "every-control": checkEveryControl,
  "embed-tab": checkEmbedTab,
  "focus-ring": checkFocusRing,
  heading: checkHeading,
};

runChecks(CHECKS, {
  checkMs: 80000,
  run: (name, ctx) => CHECKS[name](ctx),
});
