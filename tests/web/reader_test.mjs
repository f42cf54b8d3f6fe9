// What a screen reader hears, in headless Chromium: every text the
// polite live region (#announce) gets is recorded with its time, while a learner drives the
// page from the keyboard alone.
//
//   training      a toy task trained from the table view's "train (play)": the start, at most
//                 one progress line per 8 s while it plays, the pause (English, the learner's)
//                 or the convergence (Chinese, by itself) with the step, the loss and the
//                 task's check sentence, and the table view's training paragraph saying the
//                 same
//   quiz-readout  a lesson's step with a question announces the question, not the note the
//                 question still hides; the answer's verdict is announced and the note appears
//                 in the table view; a step with a note and no question announces the note
//
//   views         each view beside the steps (Layers, Decoder, Document, Picture, Curve), chosen
//                 from the keyboard in the table view's "View" setting, in a lesson that has it
//                 (English and Chinese, 800×600): the table view's heading becomes the view's
//                 title, its tables hold the view's numbers with row and column headers (the
//                 Picture's patches with their colours, so that "which patch shows the red
//                 sign?" can be answered without the picture), the live region says the view
//
//   decoder       the Decoder's lesson from the keyboard (English, 800×600): the view said with
//                 its word, each word chosen or played said with the canvas's sentence for it,
//                 the decoder's training from the table view said at its start, about every
//                 10 s and at its pause, with the step and loss the canvas shows
//
//   lesson        the lesson's introduction ("About this lesson") and its steps with notes (as
//                 the canvas draws them), each a button that shows and announces its step
//
//   node tests/web/reader_test.mjs --site DIR CHECK... | all
import { fail, ok, runChecks, watchProblems } from "./harness.mjs";

const VIEWPORT = { width: 800, height: 600 };
const TIMEOUT_MS = 30000;
const SETTLE_FRAMES = 3;  // the app's events arrive a frame or more after a key: three drawn frames
const PROGRESS_GAP_MS = 8000;  // the live region's training lines while playing: at most one per 8 s

async function openPage(browser, url) {
  const page = watchProblems(await browser.newPage({ viewport: VIEWPORT, reducedMotion: "reduce" }));
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: TIMEOUT_MS, polling: 50 });
  } catch {
    const status = await page.evaluate(() => document.getElementById("status")?.textContent ?? "");
    fail(`the playground was not ready within ${TIMEOUT_MS / 1000} s (status: "${status}")`);
  }
  // Everything the live region is given from here on, with the page's clock.
  await page.evaluate(() => {
    window.heard = [];
    const region = document.getElementById("announce");
    new MutationObserver(() => window.heard.push({ t: performance.now(), text: region.textContent }))
      .observe(region, { childList: true, characterData: true, subtree: true });
  });
  return page;
}

function checkNoProblems(page, when) {
  if (page.problems.length > 0) fail(`${when}: ${page.problems.join("; ")}`);
}

// What has the focus: "body", "#id", "[data-key]" or the tag.
function focusedIn(page) {
  return page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return "body";
    return e.id ? `#${e.id}` : e.dataset?.key ? `[${e.dataset.key}]` : e.tagName.toLowerCase();
  });
}

// Presses Tab (or Shift+Tab) until the focused element is `want`, at most `max` times.
async function tabTo(page, want, { max = 60, back = false } = {}) {
  const passed = [];
  for (let k = 0; k < max; ++k) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const name = await focusedIn(page);
    if (name === want) return;
    passed.push(name);
  }
  fail(`${max} presses of ${back ? "Shift+Tab" : "Tab"} never reached ${want} (passed ${passed.join(" ")})`);
}

// Waits until the canvas has drawn SETTLE_FRAMES more frames (frames(n) wakes an idle page).
async function settle(page) {
  const r = await page.evaluate((n) => window.attentionPlayground.frames(n), SETTLE_FRAMES);
  if (!r || r.ok !== true) fail(`frames(${SETTLE_FRAMES}): ${r?.error ?? JSON.stringify(r)}`);
}

async function press(page, key, keep) {
  await page.keyboard.press(key);
  await settle(page);
  const name = await focusedIn(page);
  if (keep && name !== keep) fail(`${SETTLE_FRAMES} frames after ${key} the focus is on ${name}, not ${keep}`);
}

const heard = (page) => page.evaluate(() => window.heard);

// The page's printf for the Train section's "step %d, loss %.3g" (C's %.3g).
function formatG(x, p) {
  if (x === 0) return "0";
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  const [mantissa, exponent] = x.toExponential(p - 1).split("e");
  const e = Number(exponent);
  if (e < -4 || e >= p) return `${trim(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return trim(x.toFixed(p - 1 - e));
}
function printf(format, ...values) {
  return format.replace(/%(\.\d+)?([dsg])/g, (all, precision, kind) => {
    const v = values.shift();
    return kind === "d" ? String(v) : kind === "g" ? formatG(v, Number(precision?.slice(1) ?? 6)) : String(v);
  });
}
// The words of a format before its first conversion: "Training paused: " of "Training paused: %s.".
const lead = (format) => format.slice(0, format.indexOf("%"));

// ---------------------------------------------------------------------------------------
// training: start, progress, pause or convergence, read out and in the table view
// ---------------------------------------------------------------------------------------

async function trainIn(browser, url, lang) {
  const page = await openPage(browser, `${url}?task=previous_token&seed=1&lang=${lang}`);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  const { texts } = await ap(() => window.attentionPlayground.getAccessible());
  if (!texts.training_started || !texts.step_loss) fail(`${lang}: getAccessible().texts has no training texts`);
  const first = await ap(() => window.attentionPlayground.getTraining());
  if (first.task !== "previous_token" || first.step !== 0) fail(`${lang}: the link loaded ${JSON.stringify(first).slice(0, 160)}`);

  await tabTo(page, "#table-toggle", { max: 5 });
  await press(page, "Enter", "#a11y");
  if (lang === "en") {
    // Slow (10 steps a second): it plays long enough for a progress line before it converges.
    await tabTo(page, "#a11y-control-train_speed");
    await press(page, "ArrowUp", "#a11y-control-train_speed");
    const speed = await ap(() => window.attentionPlayground.getTraining().speed);
    if (speed !== "slow") fail(`↑ in the training speed chose "${speed}", not slow`);
    await tabTo(page, "#a11y-control-train", { max: 3, back: true });
  } else {
    await tabTo(page, "#a11y-control-train");
  }
  const t0 = await ap(() => performance.now());
  await press(page, " ", "#a11y-control-train");
  if (!(await ap(() => window.attentionPlayground.getTraining().playing))) fail(`${lang}: Space on train (play) did not start training`);

  let t;
  const settled = lead(lang === "en" ? texts.training_paused : texts.training_converged);
  if (lang === "en") {
    await page.waitForTimeout(12000);
    await press(page, " ", "#a11y-control-train");  // pause
    t = await ap(() => window.attentionPlayground.getTraining());
    if (t.playing || t.converged) fail(`en: Space again did not pause: ${JSON.stringify(t).slice(0, 160)}`);
  } else {
    // Steady (60 steps a second): previous_token from seed 1 converges at step 428, in ~7 s.
    try {
      await page.waitForFunction(() => window.attentionPlayground.getTraining().converged, null,
                                 { timeout: 25000, polling: 200 });
    } catch {
      fail(`zh: training did not converge within 25 s: ${JSON.stringify(await ap(() => window.attentionPlayground.getTraining())).slice(0, 200)}`);
    }
    t = await ap(() => window.attentionPlayground.getTraining());
    if (t.playing) fail("zh: converged training is still playing");
  }
  // The redraw that says so comes within a redraw's wait (≤ 0.5 s) or training's quiet (0.7 s).
  try {
    await page.waitForFunction((words) => window.heard.some((h) => h.text.includes(words)), settled,
                               { timeout: 3000, polling: 100 });
  } catch {
    fail(`${lang}: nothing announced "${settled}…" after the training stopped; heard ${JSON.stringify((await heard(page)).map((h) => h.text))}`);
  }
  const said = (await heard(page)).filter((h) => h.t >= t0);
  const where = printf(texts.step_loss, t.step, t.loss);
  const expected = `${printf(lang === "en" ? texts.training_paused : texts.training_converged, where)} ${t.check.text}`;
  const stop = said.find((h) => h.text.includes(settled));
  if (!stop.text.includes(expected)) fail(`${lang}: the live region said "${stop.text}", expected "${expected}"`);
  if (lang === "zh" && !/[\u4e00-\u9fff]/.test(t.check.text + texts.training_converged)) {
    fail(`zh: the check sentence is not Chinese: "${t.check.text}"`);
  }

  // The start, with a step near 0.
  const startLead = lead(texts.training_started);
  const start = said.find((h) => h.text.includes(startLead));
  if (!start) fail(`${lang}: no start was announced; heard ${JSON.stringify(said.map((h) => h.text))}`);
  const stepRe = new RegExp(texts.step_only.replace("%d", "(\\d+)"));
  const startStep = Number(stepRe.exec(start.text.slice(start.text.indexOf(startLead)))?.[1]);
  if (!(startStep >= 0 && startStep <= 10)) fail(`${lang}: the start was announced as "${start.text}"`);
  if (start.t - t0 > 2000) fail(`${lang}: the start was announced ${Math.round(start.t - t0)} ms after Space`);

  // While it played: at most one line per 8 s, each with its step and loss.
  const progressLead = lead(texts.training_progress);
  const playing = said.filter((h) => h.t < stop.t);
  const progress = playing.filter((h) => h.text.includes(progressLead));
  const times = [start.t, ...progress.map((h) => h.t)];
  for (let k = 1; k < times.length; ++k) {
    if (times[k] - times[k - 1] < PROGRESS_GAP_MS) {
      fail(`${lang}: two training lines ${Math.round(times[k] - times[k - 1])} ms apart: ` +
           `${JSON.stringify(playing.map((h) => h.text))}`);
    }
  }
  if (playing.length !== 1 + progress.length) {
    fail(`${lang}: while training played the live region also said ${JSON.stringify(playing.map((h) => h.text))}`);
  }
  const lossRe = new RegExp(texts.step_loss.replace("%d", "\\d+").replace("%.3g", "[-+.e\\d]+"));
  for (const h of progress) if (!lossRe.test(h.text)) fail(`${lang}: a progress line without step and loss: "${h.text}"`);
  if (lang === "en" && progress.length !== 1) {
    fail(`en: 12 s of slow training gave ${progress.length} progress lines (one every ~10 s): ` +
         `${JSON.stringify(progress.map((h) => h.text))}`);
  }

  // The table view's training paragraph says the same.
  await settle(page);
  const paragraph = await ap(() => document.querySelector("#a11y-body #a11y-training")?.textContent ?? null);
  if (paragraph !== expected) fail(`${lang}: the table view's training paragraph says ${JSON.stringify(paragraph)}, expected "${expected}"`);
  const focus = await focusedIn(page);
  if (focus !== "#a11y-control-train") fail(`${lang}: after training the focus is on ${focus}`);
  checkNoProblems(page, `training (${lang})`);
  await page.close();
  return `${lang}: "${start.text}"${progress.map((h) => ` +${((h.t - t0) / 1000).toFixed(1)} s "${h.text}"`).join("")}` +
         ` +${((stop.t - t0) / 1000).toFixed(1)} s "${stop.text}"`;
}

async function checkTraining({ browser, url }) {
  const en = await trainIn(browser, url, "en");
  const zh = await trainIn(browser, url, "zh");
  ok(`training: the live region said ${en}; ${zh}; the table view's paragraph the same`);
}

// induction: learned_induction reset and trained from the table view's own controls (Enter on
// "reset training", Space on "train (play)"), fast; when it pauses by itself at the lesson's
// 600 steps, the live region and the training paragraph say where the loss fell, as the
// canvas's plot marks it ("The loss fell steeply at step 240.").
async function checkInductionDrop({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=learned_induction&lang=en`);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  const { texts } = await ap(() => window.attentionPlayground.getAccessible());
  if (!texts.training_drop) fail("getAccessible().texts has no training_drop");
  await tabTo(page, "#table-toggle", { max: 5 });
  await press(page, "Enter", "#a11y");
  await tabTo(page, "#a11y-control-train_speed");
  await press(page, "ArrowDown", "#a11y-control-train_speed");  // fast
  await tabTo(page, "#a11y-control-train_reset", { max: 8 });
  await press(page, "Enter", "#a11y-control-train_reset");
  const fresh = await ap(() => window.attentionPlayground.getTraining());
  if (fresh.step !== 0 || fresh.drop !== null || fresh.speed !== "fast") fail(`after reset: step ${fresh.step}, drop ${fresh.drop}, speed ${fresh.speed}`);
  await tabTo(page, "#a11y-control-train", { max: 8, back: true });
  const t0 = await ap(() => performance.now());
  await press(page, " ", "#a11y-control-train");
  try {
    await page.waitForFunction(() => window.attentionPlayground.getTraining().finished, null, { timeout: 60000, polling: 200 });
  } catch {
    fail(`training did not pause by itself within 60 s: ${JSON.stringify(await ap(() => window.attentionPlayground.getTraining())).slice(0, 200)}`);
  }
  const t = await ap(() => window.attentionPlayground.getTraining());
  if (!(t.drop > 150 && t.drop <= 400)) fail(`getTraining().drop is ${t.drop}`);
  const dropSentence = printf(texts.training_drop, t.drop);
  try {
    await page.waitForFunction((words) => window.heard.some((h) => h.text.includes(words)), dropSentence, { timeout: 3000, polling: 100 });
  } catch {
    fail(`the live region never said "${dropSentence}"; heard ${JSON.stringify((await heard(page)).filter((h) => h.t >= t0).map((h) => h.text))}`);
  }
  await settle(page);
  const paragraph = await ap(() => document.querySelector("#a11y-body #a11y-training")?.textContent ?? null);
  const expected = `${printf(texts.training_finished, printf(texts.step_loss, t.step, t.loss))} ${dropSentence} ${t.check.text}`;
  if (paragraph !== expected) fail(`the training paragraph says ${JSON.stringify(paragraph)}, expected "${expected}"`);
  checkNoProblems(page, "induction");
  await page.close();
  ok(`induction: reset and trained from the table view, paused by itself at step ${t.step}; heard and read "${dropSentence}"`);
}

// ---------------------------------------------------------------------------------------
// quiz-readout: a step's question read out instead of its hidden note; the verdict; the note
// ---------------------------------------------------------------------------------------

async function checkQuizReadout({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=why_so_tall`);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  await tabTo(page, "#table-toggle", { max: 5 });
  await press(page, "Enter", "#a11y");
  await tabTo(page, "#a11y-control-step");
  // The lesson opens at its question's step (index 2): ↑ to the step before, then ↓ to it.
  for (let k = 0; k < 8 && (await ap(() => window.attentionPlayground.getView().step)) >= 2; ++k) {
    await press(page, "ArrowUp", "#a11y-control-step");
  }
  for (let k = 0; k < 8 && (await ap(() => window.attentionPlayground.getView().step)) < 2; ++k) {
    await press(page, "ArrowDown", "#a11y-control-step");
  }
  const d = await ap(() => window.attentionPlayground.getAccessible());
  if (d.step !== 3) fail(`↓ in the step setting reached step ${d.step}, not 3`);
  const q = d.quiz[0];
  if (!q || q.answered) fail(`step 3 has no open question: ${JSON.stringify(d.quiz)}`);
  if (d.note !== "") fail(`with its question open, step 3's note is shown: "${d.note}"`);
  const asked = (await heard(page)).pop()?.text ?? "";
  if (!asked.startsWith(d.heading) || !asked.includes(`${d.texts.predict}: ${q.ask}`)) {
    fail(`at step 3 the live region said "${asked}", without "${d.texts.predict}: ${q.ask}"`);
  }

  // Answered from the keyboard, each question of the step in turn: each verdict is read out;
  // the note, which answers them all, stays hidden until the last is answered.
  let a = d, verdict = "";
  for (let i = 0; i < d.quiz.length; ++i) {
    await tabTo(page, `[q${i} key 0]`, { back: true, max: 60 });
    const before = (await heard(page)).length;
    await press(page, "Enter", `[q${i} verdict]`);
    a = await ap(() => window.attentionPlayground.getAccessible());
    if (!a.quiz[i]?.answered) fail(`Enter on question ${i + 1}'s first answer left it open: ${JSON.stringify(a.quiz)}`);
    verdict = (await heard(page)).slice(before).map((h) => h.text).find((text) => text.includes(a.quiz[i].verdict));
    if (!verdict) fail(`the verdict "${a.quiz[i].verdict}" was not announced: ${JSON.stringify((await heard(page)).slice(before))}`);
    if (i + 1 < d.quiz.length && a.note) fail(`with question ${i + 2} still open, step 3's note is shown: "${a.note}"`);
  }
  if (!a.note) fail(`after its ${d.quiz.length} answers step 3 has no note`);
  if (asked.includes(a.note)) fail(`the step's announcement gave away the note: "${asked}"`);
  const shown = await ap(() => document.querySelector("#a11y-body p.note")?.textContent ?? null);
  if (shown !== a.note) fail(`after the answer the table view's note is ${JSON.stringify(shown)}, not "${a.note}"`);

  // Step 4 has a note and no question: the note is read out with the step.
  await tabTo(page, "#a11y-control-step");
  await press(page, "ArrowDown", "#a11y-control-step");
  const d4 = await ap(() => window.attentionPlayground.getAccessible());
  const said4 = (await heard(page)).pop()?.text ?? "";
  if (d4.step !== 4 || d4.quiz.length !== 0 || !d4.note) fail(`step 4 is ${JSON.stringify({ step: d4.step, quiz: d4.quiz, note: d4.note })}`);
  if (!said4.startsWith(d4.heading) || !said4.includes(d4.note)) fail(`at step 4 the live region said "${said4}", without its note`);
  checkNoProblems(page, "quiz-readout");
  await page.close();
  ok(`quiz-readout: step 3 announced "…${asked.slice(asked.indexOf(d.texts.predict), asked.indexOf(d.texts.predict) + 60)}…" ` +
     `(no note); ${d.quiz.length} answers, the last "${verdict.slice(0, 50)}…", then the note in the table view; step 4 its note`);
}

// ---------------------------------------------------------------------------------------
// views: the newer views described in the table view, chosen from the keyboard
// ---------------------------------------------------------------------------------------

const VIEW_LESSONS = [
  ["why_stack", "layers", "en"], ["learned_bahdanau", "decoder", "zh"], ["attention_over_attention", "document", "en"],
  ["where_the_eye_goes", "picture", "zh"], ["nadaraya_watson", "curve", "en"],
  ["multi_head", "heads", "en"], ["self_attention", "positional", "zh"], ["toy_2d", "plane", "en"],
];

async function checkViews({ browser, url }) {
  const seen = [];
  for (const [lesson, view, lang] of VIEW_LESSONS) {
    const page = await openPage(browser, `${url}?preset=${lesson}&lang=${lang}`);
    await tabTo(page, "#table-toggle", { max: 5 });
    await press(page, "Enter", "#a11y");
    await tabTo(page, "#a11y-control-view", { max: 150 });  // past a question's 40 patch buttons
    // ↓ in the select until the canvas shows the view (the select's order is the tab bar's).
    for (let k = 0; k < 10 && (await page.evaluate(() => window.attentionPlayground.getView().tab)) !== view; ++k) {
      await press(page, "ArrowDown", "#a11y-control-view");
    }
    const d = await page.evaluate(() => window.attentionPlayground.getAccessible());
    if (d.view?.id !== view) fail(`${lesson}: ↓ in "View" did not reach ${view}: ${JSON.stringify(d.view?.id)}`);
    const read = await page.evaluate(() => {
      const body = document.getElementById("a11y-body");
      return {
        heading: document.getElementById("a11y-heading").textContent,
        tables: [...body.querySelectorAll("section.view table")].map((t) => ({
          caption: t.querySelector("caption")?.textContent ?? "",
          columns: [...t.querySelectorAll("thead th[scope=col]")].map((th) => th.textContent),
          rows: [...t.querySelectorAll("tbody tr")].map((tr) => ({
            label: tr.querySelector("th[scope=row]")?.textContent ?? "",
            cells: [...tr.querySelectorAll("td")].map((td) => td.textContent) })),
        })),
        text: [...body.querySelectorAll("section.view p")].map((p) => p.textContent),
        stepTable: body.querySelector("table:not(section.view table)") !== null,
      };
    });
    if (!read.heading.endsWith(d.view.title)) fail(`${lesson}: the heading is "${read.heading}", not the view's "${d.view.title}"`);
    if (read.tables.length === 0) fail(`${lesson}: the ${view} view has no table in the table view`);
    if (read.stepTable) fail(`${lesson}: the step's matrix is still in the table view beside the ${view} view`);
    for (const t of read.tables) {
      if (!t.caption || t.rows.length === 0) fail(`${lesson}: a table without caption or rows: ${JSON.stringify(t).slice(0, 200)}`);
      for (const r of t.rows) {
        if (!r.label || r.cells.length !== t.columns.length - 1) {
          fail(`${lesson}: row ${JSON.stringify(r).slice(0, 120)} against columns ${JSON.stringify(t.columns)}`);
        }
      }
    }
    const numbers = read.tables.flatMap((t) => t.rows.flatMap((r) => r.cells)).filter((c) => /^-?\d+\.\d\d$|^\?$/.test(c));
    if (numbers.length === 0) fail(`${lesson}: the ${view} view's tables hold no number`);
    // The canvas's own words for the view are among the table view's (the same sentence).
    const sentence = { decoder: "decoder.sentence", document: "hierarchy.summary" }[view];
    if (sentence) {
      const drawn = await page.evaluate((id) => {
        const ap = window.attentionPlayground;
        ap.items();  // the first call starts the record
        ap.layoutNow(2);
        return ap.items().find((i) => i.id === id)?.label ?? null;
      }, sentence);
      if (!drawn || !read.text.includes(drawn)) fail(`${lesson}: the canvas says "${drawn}", the table view ${JSON.stringify(read.text)}`);
    }
    if (view === "heads") {  // a table per head, each the head's matrix of the step
      const heads = (await page.evaluate(() => window.attentionPlayground.getTrace())).heads.length;
      if (read.tables.length !== heads) fail(`${lesson}: ${read.tables.length} tables for ${heads} heads`);
    }
    if (view === "plane") {  // the question about q2's weights waits: its weights are "?"
      const keys = read.tables[1];
      if (!keys || keys.rows.some((r) => r.cells.at(-1) !== "?")) fail(`${lesson}: the keys' weights are shown before the question is answered: ${JSON.stringify(keys).slice(0, 300)}`);
      // The canvas's bars beside the plane: a key's name and "?", row by row as the table's.
      const bars = await page.evaluate(() => {
        const ap = window.attentionPlayground;
        ap.items();
        ap.layoutNow(2);
        return ap.items().filter((i) => i.id.startsWith("plane.weight")).map((i) => i.label);
      });
      const want = keys.rows.map((r) => `${r.label}  ?`);
      if (JSON.stringify(bars) !== JSON.stringify(want)) fail(`${lesson}: the canvas's bars read ${JSON.stringify(bars)}, the table view ${JSON.stringify(want)}`);
    }
    if (view === "picture") {
      const red = read.tables[0].columns.indexOf(lang === "zh" ? "红" : "red");
      if (red < 1 || read.tables[0].rows.length !== 40) fail(`${lesson}: the patches' table is ${JSON.stringify(read.tables[0].columns)} × ${read.tables[0].rows.length}`);
    }
    const said = (await heard(page)).map((h) => h.text).join(" | ");
    if (!said.includes(d.view.title)) fail(`${lesson}: the live region did not say the view: "${said.slice(-300)}"`);
    checkNoProblems(page, `views (${lesson})`);
    await page.close();
    seen.push(`${view} (${lesson}, ${lang}: "${read.heading}", ${read.tables.length} tables, ${numbers.length} numbers, ` +
              `first "${read.tables[0].caption.slice(0, 50)}")`);
  }
  ok(`views: chosen with ↓ in the table view's View setting, each described with its own tables: ${seen.join("; ")}`);
}

// ---------------------------------------------------------------------------------------
// decoder: the Decoder's lesson from the keyboard, and a decoder training run, as heard
// ---------------------------------------------------------------------------------------

// The canvas's own words, by item id (laid out at once: an idle page draws no frame to record).
const canvasSays = (page, id) => page.evaluate((wanted) => {
  const ap = window.attentionPlayground;
  ap.items();  // the first call starts the record
  ap.layoutNow(2);
  return ap.items().find((i) => i.id === wanted || i.id.endsWith(`###${wanted}`))?.label ?? null;
}, id);

async function checkDecoder({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=learned_bahdanau&lang=en`);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  const { texts } = await ap(() => window.attentionPlayground.getAccessible());
  const t0 = await ap(() => performance.now());
  await tabTo(page, "#table-toggle", { max: 5 });
  await press(page, "Enter", "#a11y");
  // The Decoder view, chosen with ↓ in "View": its heading and what it shows now are said.
  await tabTo(page, "#a11y-control-view", { max: 150 });
  for (let k = 0; k < 10 && (await ap(() => window.attentionPlayground.getView().tab)) !== "decoder"; ++k) {
    await press(page, "ArrowDown", "#a11y-control-view");
  }
  const hears = async (what, pattern, ms = 3000) => {
    try {
      await page.waitForFunction((re) => window.heard.some((h) => new RegExp(re).test(h.text)), pattern.source,
                                 { timeout: ms, polling: 100 });
    } catch {
      fail(`${what}: the live region never said /${pattern.source}/; heard ${JSON.stringify((await heard(page)).map((h) => h.text)).slice(-600)}`);
    }
  };
  await hears("the Decoder view", /Decoder\. Word 1 of 7\. /);
  // "Decoder's word" ↓: word 2, said with the canvas's own sentence for it.
  await tabTo(page, "#a11y-control-decoder_step", { max: 10 });
  await press(page, "ArrowDown", "#a11y-control-decoder_step");
  await hears("word 2", /Decoder\. Word 2 of 7\. /);
  const sentence2 = await canvasSays(page, "decoder.sentence");
  const said2 = (await heard(page)).map((h) => h.text).find((t) => t.includes("Word 2 of 7"));
  if (!sentence2 || !said2.includes(sentence2)) fail(`word 2: the canvas says "${sentence2}", the live region "${said2}"`);
  // "play the decoder's words", Space: the canvas's Play reads "Pause", the words follow one
  // another to the last, each said.
  await tabTo(page, "#a11y-control-decoder_play", { max: 4 });
  await press(page, " ", "#a11y-control-decoder_play");
  const playLabel = await canvasSays(page, "decoder_play");
  if (playLabel !== "Pause") fail(`Space on "play the decoder's words": the canvas's button reads "${playLabel}"`);
  await hears("play", /Decoder\. Word 7 of 7\. /, 15000);
  for (let w = 3; w <= 7; ++w) {
    if (!(await heard(page)).some((h) => h.text.includes(`Word ${w} of 7`))) fail(`play: word ${w} was not said`);
  }
  // Random start, then "train the decoder (play)": the start, a line about every 10 s, the
  // pause with the step and loss the canvas shows.
  await tabTo(page, "#a11y-control-decoder_random_start", { max: 30 });
  await press(page, "Enter");
  const fresh = await ap(() => window.attentionPlayground.getTraining());
  if (fresh.trainer !== "decoder" || fresh.step !== 0) fail(`after Random start getTraining() is ${JSON.stringify(fresh).slice(0, 200)}`);
  await tabTo(page, "#a11y-control-decoder_train", { max: 4, back: true });
  const trainT0 = await ap(() => performance.now());
  await press(page, " ", "#a11y-control-decoder_train");
  await hears("training's start", new RegExp(lead(texts.training_started)));
  // It plays until the learner pauses it (Space again, after 12 s) or it pauses itself at
  // step 1500: at its speed here that may come first.
  const during = await ap(() => window.attentionPlayground.getTraining());
  if (!during.playing || during.trainer !== "decoder") fail(`the decoder's training: getTraining() says ${JSON.stringify(during).slice(0, 200)}`);
  try {
    await page.waitForFunction(() => !window.attentionPlayground.getTraining().playing, null, { timeout: 12000, polling: 200 });
  } catch {
    await press(page, " ", "#a11y-control-decoder_train");
  }
  const t = await ap(() => window.attentionPlayground.getTraining());
  if (t.playing || !(t.step > 0)) fail(`the decoder's training did not pause: ${JSON.stringify(t).slice(0, 200)}`);
  const stopped = printf(texts.training_paused, printf(texts.step_loss, t.step, t.loss));
  await hears("the pause", new RegExp(stopped.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  const status = await canvasSays(page, "decoder.training");
  if (status !== printf("Step %d, loss %.3g", t.step, t.loss)) fail(`paused at step ${t.step}: the canvas reads "${status}"`);
  // A line when it started, one about every 10 s while it played (never two within 8 s), and
  // one when it paused.
  const training = (await heard(page)).filter((h) => h.t >= trainT0);
  const start = training.find((h) => h.text.includes(lead(texts.training_started)));
  const stop = training.find((h) => h.text.includes(stopped));
  const progress = training.filter((h) => h.text.includes(lead(texts.training_progress)));
  const lines = [start, ...progress].map((h) => h.t);
  for (let k = 1; k < lines.length; ++k) {
    if (lines[k] - lines[k - 1] < PROGRESS_GAP_MS) fail(`two training lines ${Math.round(lines[k] - lines[k - 1])} ms apart`);
  }
  const played = stop.t - start.t;
  if (progress.length < Math.floor(played / 11000)) {
    fail(`${(played / 1000).toFixed(1)} s of the decoder's training gave ${progress.length} progress lines: ${JSON.stringify(training.map((h) => h.text))}`);
  }
  const paragraph = await ap(() => document.querySelector("#a11y-body #a11y-training")?.textContent ?? null);
  if (paragraph !== stopped) fail(`the table view's training paragraph says ${JSON.stringify(paragraph)}, expected "${stopped}"`);
  checkNoProblems(page, "decoder");
  const all = (await heard(page)).filter((h) => h.t >= t0 && h.text);
  await page.close();
  ok(`decoder: heard, in order: ${all.map((h) => `+${((h.t - t0) / 1000).toFixed(1)} s "${h.text.slice(0, 140)}"`).join("; ")}`);
}

// ---------------------------------------------------------------------------------------
// lesson: the lesson's introduction and its steps with notes and questions, in the table view
// ---------------------------------------------------------------------------------------

// padded_batch at 800×600 from the keyboard: "About this lesson" opens to the lesson's
// introduction; the steps with a note are the canvas's "Notes on steps" buttons (read from
// what it draws), and Enter on one shows that step and says it.
async function checkLessonParts({ browser, url }) {
  const page = await openPage(browser, `${url}?preset=padded_batch&lang=en`);
  const ap = (fn, arg) => page.evaluate(fn, arg);
  const d = await ap(() => window.attentionPlayground.getAccessible());
  if (!(d.introduction?.length > 80)) fail(`getAccessible().introduction is ${JSON.stringify(d.introduction)}`);
  const drawn = await ap(() => {
    const a = window.attentionPlayground;
    a.items();  // the first call starts the record
    a.layoutNow(2);
    return a.items().filter((i) => /##tour\d+$/.test(i.id)).map((i) => Number(i.label));
  });
  if (drawn.length === 0 || JSON.stringify(drawn) !== JSON.stringify(d.note_steps)) {
    fail(`the canvas's "Notes on steps" are ${JSON.stringify(drawn)}, the table view's ${JSON.stringify(d.note_steps)}`);
  }
  await tabTo(page, "#table-toggle", { max: 5 });
  await press(page, "Enter", "#a11y");
  await tabTo(page, "[about]", { max: 10 });
  await press(page, "Enter", "[about]");
  const about = await ap(() => {
    const box = document.querySelector("#a11y-body details.about");
    return { open: box?.open, text: box?.querySelector("p")?.textContent ?? "" };
  });
  if (!about.open || about.text !== d.introduction) fail(`"About this lesson": ${JSON.stringify(about).slice(0, 200)}`);
  const target = d.note_steps.find((k) => k !== d.step);
  await tabTo(page, `[note steps ${target}]`, { max: 10 });
  const name = await ap(() => document.activeElement.getAttribute("aria-label"));
  if (name !== `Go to step ${target}`) fail(`the note button is named "${name}"`);
  await press(page, "Enter", `[note steps ${target}]`);
  const view = await ap(() => window.attentionPlayground.getView());
  if (view.step !== target - 1) fail(`Enter on "Go to step ${target}" shows step ${view.step + 1}`);
  const said = (await heard(page)).map((h) => h.text);
  if (!said.some((t) => t.startsWith(`Step ${target} of 8`))) fail(`after "Go to step ${target}" the live region said ${JSON.stringify(said).slice(-300)}`);
  checkNoProblems(page, "lesson");
  await page.close();
  ok(`lesson: "About this lesson" opens to the introduction (${d.introduction.length} characters); notes on steps ` +
     `${d.note_steps.join(", ")} as the canvas draws them, questions on ${d.question_steps.join(", ") || "none"}; ` +
     `Enter on "Go to step ${target}" shows it and says "${said.at(-1).slice(0, 60)}…"`);
}

const CHECKS = {
  views: checkViews,
  decoder: checkDecoder,
  lesson: checkLessonParts,
  training: checkTraining,
  induction: checkInductionDrop,
  "quiz-readout": checkQuizReadout,
};

runChecks(CHECKS, {
  checkMs: 80000,
  run: (name, ctx) => CHECKS[name](ctx),
});
