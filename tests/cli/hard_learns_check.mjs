// The lesson "Hard attention that learns" (assets/presets/hard_that_learns.json) quotes numbers
// measured with attention-cli train from its own start (the previous_token task from seed 1,
// Adam at rate 0.05, the page's default). This reruns them with the CLI and fails when one no
// longer holds, or when a note stops quoting it:
//
//   node hard_learns_check.mjs --cli "<cmd;args>" PRESET
//
//   - the preset validates, and its quiz answer keys agree with eval (lessons_check.mjs checks
//     this for every lesson too, once the lesson is in assets/lessons.txt);
//   - its starting numbers: the first sequence's scaled scores, how many of the 192 rows pick
//     the token before, with and without Gumbel noise;
//   - plain "hard": true is refused by train (the argmax has no gradient);
//   - training with straight through, Gumbel noise (τ 1, seed 0), soft attention and Gumbel
//     soft: the losses at steps 0, 25 and 50, the step at which 90% of the rows first pick the
//     token before, the step at which the page's Train pauses (the loss before it first below
//     1e-6), the one-row spikes of Gumbel's loss after that, and what the softmax of the scores
//     learned puts on the token before.
//
// The numbers are exact in one build; the tolerances let a float's last bits differ (WASM).
import { readFileSync } from "node:fs";

import { fail, lastArgument, ok, option, run } from "./cli_run.mjs";

const cli = option("--cli");
if (!cli) fail("usage: node hard_learns_check.mjs --cli \"<cmd;args>\" PRESET");
const presetPath = lastArgument();
const preset = JSON.parse(readFileSync(presetPath, "utf8"));

const RATE = 0.05;
const ST = { estimator: "straight_through" };
const GUMBEL = { estimator: "gumbel", tau: 1, seed: 0, soft: false };
const GUMBEL_SOFT = { estimator: "gumbel", tau: 1, seed: 0, soft: true };
const CONVERGED = 1e-6;  // the page's Train pauses below this loss (AppState::kConvergedLoss)

// The lesson's notes, and the numbers each one must quote (its English text), so that a note
// edited without this check, or this check without the note, fails.
const note = (step) => preset.tour?.find((t) => t.step === step)?.text?.en ?? "";
function quotes(step, ...texts) {
  for (const t of texts)
    if (!note(step).includes(t)) fail(`the note on step ${step} no longer says "${t}": update it and this check together`);
}

const evaluate = (s, what) => JSON.parse(ok(run(cli, ["eval", "-", "--only", "heads"], s), `eval (${what})`)).heads[0];
function train(s, steps, what) {
  const lines = ok(run(cli, ["train", "-", "--steps", String(steps), "--optimizer", "adam", "--lr", String(RATE)], s),
                   `train (${what})`).trim().split("\n");
  return { losses: lines.slice(0, -1).map((l) => JSON.parse(l).loss), trained: JSON.parse(lines.at(-1)) };
}
const keyOf = (i) => (i > 0 ? i - 1 : 0);  // previous_token: the token before (the first: itself)
// Rows whose largest weight is on the token before, and the mean weight there.
function picks(weights) {
  let right = 0, share = 0, rows = 0;
  weights.forEach((m) => m.forEach((row, i) => {
    const best = row.reduce((b, v, j) => (v > row[b] ? j : b), 0);
    if (best === keyOf(i)) ++right;
    share += row[keyOf(i)];
    ++rows;
  }));
  return { right, rows, share: share / rows };
}
// The smallest lead of the token before over the best other key, in the scaled scores.
function smallestLead(scaled) {
  let least = Infinity;
  scaled.forEach((m) => m.forEach((row, i) => {
    const other = Math.max(...row.filter((_, j) => j !== keyOf(i)));
    least = Math.min(least, row[keyOf(i)] - other);
  }));
  return least;
}
const near = (v, want, rel, what) => {
  if (!(Math.abs(v - want) <= rel * Math.abs(want))) fail(`${what}: ${v.toPrecision(4)}, the lesson says ${want} (±${rel * 100}%)`);
};
const within = (v, want, margin, what) => {
  if (!(v !== null && Math.abs(v - want) <= margin)) fail(`${what}: ${v}, the lesson says ${want} (±${margin})`);
};

// The preset: valid, training straight through, with the task's target.
const valid = ok(run(cli, ["validate", presetPath]), "validate").trim();
if (valid !== "ok") fail(`validate printed ${valid}`);
if (JSON.stringify(preset.hard) !== JSON.stringify(ST)) fail(`the preset's hard is ${JSON.stringify(preset.hard)}, not straight through`);
if (!Array.isArray(preset.target) || preset.target.length !== 32) fail("the preset has not the task's 32 targets");
const base = { ...preset, tour: undefined, quiz: undefined };

// The quiz's answer keys (as lessons_check.mjs quiz).
const start = evaluate(preset, "the preset");
if (!Array.isArray(preset.quiz) || preset.quiz.length < 2) fail("the lesson asks fewer than 2 questions");
preset.quiz.forEach((q, n) => {
  for (const lang of ["en", "zh"])
    if (!q.ask?.[lang] || !q.why?.[lang]) fail(`quiz[${n}]: no ${lang} question or explanation`);
  const a = q.answer, row = start[a.matrix ?? "weights"][a.batch][a.row ?? a.cell[0]];
  if (a.matrix === undefined) {
    const best = row.reduce((b, v, j) => (v > row[b] ? j : b), 0);
    const second = Math.max(...row.filter((_, j) => j !== best));
    if (best !== a.key || row[best] - second < 0.05) fail(`quiz[${n}]: row ${a.row}'s largest weight is key ${best}, the answer says ${a.key}`);
  } else if (!(Math.abs(row[a.cell[1]] - a.value) <= a.tolerance)) {
    fail(`quiz[${n}]: ${a.matrix}[${a.batch}][${a.cell}] is ${row[a.cell[1]]}, the answer says ${a.value}`);
  }
});
console.log(`ok: the preset validates; its ${preset.quiz.length} quiz answers agree with eval`);

// Its start: scaled scores of the first sequence within −0.35 to 0.25; 27 of 192 rows pick the
// token before (one-hot), 24 with Gumbel noise (seed 0), where row 3 picks E (key 5).
{
  const flat = start.scaled[0].flat();
  within(Math.min(...flat), -0.35, 0.005, "the smallest scaled score of the first sequence");
  within(Math.max(...flat), 0.25, 0.005, "the largest scaled score of the first sequence");
  const hard = picks(start.weights), noisy = evaluate({ ...base, hard: GUMBEL }, "Gumbel start");
  within(hard.right, 27, 0, "rows picking the token before at the start");
  if (hard.rows !== 192) fail(`${hard.rows} rows, not 192`);
  within(picks(noisy.weights).right, 24, 0, "rows picking the token before at the start, with Gumbel noise");
  if (noisy.weights[0][2][4] !== 1) fail("with Gumbel noise, row 3 of the first sequence no longer picks E");
  quotes(3, "−0.35 and 0.25", "27 of the 192 rows");
  quotes(4, "Row 3 now picks E", "24 of the 192 rows");
  console.log(`ok: the start: scaled scores ${Math.min(...flat).toFixed(3)} to ${Math.max(...flat).toFixed(3)}; ` +
              `${hard.right} of 192 rows pick the token before, ${picks(noisy.weights).right} with Gumbel noise`);
}

// Plain hard attention: refused, argmax having no gradient.
{
  const r = run(cli, ["train", "-", "--steps", "1"], { ...base, hard: true });
  if (r.status !== 2 || !/no gradient/.test(r.stderr) || !/straight_through/.test(r.stderr))
    fail(`train of plain "hard": true: exit ${r.status}, ${JSON.stringify(r.stderr)}`);
  console.log(`ok: plain hard attention is refused by train: ${r.stderr.trim()}`);
}

// The step at which the page's Train pauses: the loss before it first below 1e-6.
const pauseStep = (losses) => {
  for (let k = 0; k < losses.length; ++k)
    if (losses[k] < CONVERGED && (k === 0 || losses[k - 1] >= CONVERGED)) return k + 1;
  return null;
};
// The first number of steps from `from` to `to` after which 90% of the rows pick the token
// before (the argmax without noise); `from` itself when they already do (then a claim above it fails).
function firstNinety(hard, from, to) {
  for (let k = from; k <= to; ++k) {
    const t = train({ ...base, hard }, k, `${k} steps`).trained;
    if (picks(evaluate({ ...t, hard: true }, `${k} steps`).weights).right >= 0.9 * 192) return k;
  }
  return null;
}
const runs = {};
for (const [name, hard] of [["straight through", ST], ["Gumbel", GUMBEL], ["soft", false], ["Gumbel soft", GUMBEL_SOFT]]) {
  const { losses } = train({ ...base, hard }, 401, name);
  const tail = losses.slice(301, 401);
  const noise = tail.slice(1).reduce((sum, v, k) => sum + Math.abs(v - tail[k]), 0) / (tail.length - 1);
  runs[name] = { losses, pause: pauseStep(losses), noise };
  console.log(`   ${name}: loss ${[0, 25, 50, 100, 200, 400].map((k) => `${k}: ${losses[k].toPrecision(3)}`).join(", ")}; ` +
              `pauses after ${runs[name].pause} steps; mean |Δloss| over the last 100 steps ${noise.toExponential(2)}`);
}

// The rows that pick the token before after k steps (the argmax without noise).
const rightAfter = (hard, k) =>
  picks(evaluate({ ...train({ ...base, hard }, k, `${k} steps`).trained, hard: true }, `${k} steps`).weights).right;
const oneRow = 2 / (32 * 6 * 12);  // one row's wrong letter: 2 of the 2304 numbers the loss averages

// Straight through (step 5's note): 0.257 → 0.0004 at step 50; 90% of the rows after 16 steps,
// all 192 at step 35; rows slipping back for one step: three at 65 (loss 0.0027), one at 78;
// pauses at step 118.
{
  const { losses, pause } = runs["straight through"];
  near(losses[0], 0.257, 0.02, "straight through: the loss at the start");
  near(losses[50], 0.0004, 0.15, "straight through: the loss at step 50");
  within(pause, 118, 3, "straight through: the step at which Train pauses");
  const ninety = firstNinety(ST, 13, 19);
  within(ninety, 16, 2, "straight through: the step at which 90% of the rows pick the token before");
  let all = null;
  for (let k = 32; k <= 38 && all === null; ++k) if (rightAfter(ST, k) === 192) all = k;
  within(all, 35, 3, "straight through: the first step at which all 192 rows pick the token before");
  // The slips: a single step with three rows lost near 65, one near 78 (the loss: that many
  // rows' wrong letters), every row right again on either side of them.
  const slip = (at, rows) => {
    for (let k = at - 3; k <= at + 3; ++k) {
      if (192 - rightAfter(ST, k) !== rows) continue;
      near(losses[k], rows * oneRow, 0.1, `straight through: the loss at step ${k}, where ${rows} rows slip`);
      return k;
    }
    fail(`straight through: no step near ${at} where ${rows} rows slip back`);
  };
  const three = slip(65, 3), one = slip(78, 1);
  for (const k of [three - 1, three + 1, one + 1, 100, pause])
    within(rightAfter(ST, k), 192, 0, `straight through: rows right after ${k} steps`);
  quotes(5, "0.257", "0.0004 at step 50", "after 16 steps", "all 192 at step 35", "three at step 65",
         "0.0027", "one at step 78", "step 118");
  console.log(`ok: straight through: 90% of the rows right after ${ninety} steps, all 192 at ${all}; ` +
              `3 rows slip at step ${three}, 1 at ${one}; pauses at ${pause}`);
}

// Gumbel (step 6's note): 0.053 at step 25 (straight through 0.008), 0.0015 at 50; 90% of the
// rows after 34 steps (the argmax without the noise), all 192 from step 40 on; pauses at 117,
// then single steps of one wrong row: 2 of the 2304 numbers, 0.00087.
{
  const { losses, pause } = runs.Gumbel;
  near(losses[25], 0.053, 0.1, "Gumbel: the loss at step 25");
  near(runs["straight through"].losses[25], 0.008, 0.1, "straight through: the loss at step 25");
  near(losses[50], 0.0015, 0.1, "Gumbel: the loss at step 50");
  within(pause, 117, 3, "Gumbel: the step at which Train pauses");
  const ninety = firstNinety(GUMBEL, 31, 37);
  within(ninety, 34, 3, "Gumbel: the step at which 90% of the rows pick the token before");
  for (const k of [40, 41, 42, 45, 50, 60, 80, 100, pause, 130])
    within(rightAfter(GUMBEL, k), 192, 0, `Gumbel: rows right after ${k} steps`);
  const spikes = losses.slice(pause).filter((v) => Math.abs(v - oneRow) <= 0.05 * oneRow).length;
  if (spikes < 3) fail(`Gumbel: after the pause the loss reaches one wrong row (${oneRow.toPrecision(3)}) only ${spikes} times in ${401 - pause} steps`);
  quotes(6, "0.053 at step 25", "0.008", "0.0015 at step 50", "after 34 steps", "from step 40 on",
         "step 117", "0.00087", "2304");
  console.log(`ok: Gumbel: 90% of the rows right after ${ninety} steps, all from 40 on, pauses at ${pause}; ` +
              `then ${spikes} steps at one wrong row's loss, ${oneRow.toPrecision(3)}`);
}

// Step 7's note: soft (0.137 → 0.0003 at step 50, every row's largest weight on the token
// before by step 20) and Gumbel soft (0.169 → 0.0005); and the softmax of the scores learned,
// at the step where Train paused: after straight through 0.28 on the token before (some rows
// lead by 0.02), after Gumbel 1.00 (every row leads by 5.4 or more).
{
  near(runs.soft.losses[0], 0.137, 0.02, "soft: the loss at the start");
  near(runs.soft.losses[50], 0.0003, 0.15, "soft: the loss at step 50");
  const soft20 = train({ ...base, hard: false }, 20, "soft, 20 steps").trained;
  within(picks(evaluate(soft20, "soft, 20 steps").weights).right, 192, 0, "soft: rows whose largest weight is on the token before at step 20");
  near(runs["Gumbel soft"].losses[0], 0.169, 0.02, "Gumbel soft: the loss at the start");
  near(runs["Gumbel soft"].losses[50], 0.0005, 0.15, "Gumbel soft: the loss at step 50");
  const soft = (hard, steps, what) => evaluate({ ...train({ ...base, hard }, steps, what).trained, hard: false }, what);
  const st = soft(ST, runs["straight through"].pause, "straight through, then soft");
  const gu = soft(GUMBEL, runs.Gumbel.pause, "Gumbel, then soft");
  const stShare = picks(st.weights).share, guShare = picks(gu.weights).share;
  const stLead = smallestLead(st.scaled), guLead = smallestLead(gu.scaled);
  near(stShare, 0.28, 0.05, "after straight through, the softmax's mean weight on the token before");
  if (!(stLead > 0 && stLead < 0.025)) fail(`after straight through, the smallest lead is ${stLead.toFixed(3)}, the lesson says 0.02`);
  if (!(guShare >= 0.995)) fail(`after Gumbel, the softmax's mean weight on the token before is ${guShare.toFixed(3)}, the lesson says 1.00`);
  if (!(guLead >= 5.4)) fail(`after Gumbel, the smallest lead is ${guLead.toFixed(2)}, the lesson says 5.4 or more`);
  quotes(7, "0.137", "0.0003 by step 50", "by step 20", "0.169 to 0.0005", "only 0.28", "margin of 0.02", "1.00", "5.4 or more");
  console.log(`ok: softmax of the learned scores: ${stShare.toFixed(3)} on the token before after straight through ` +
              `(smallest lead ${stLead.toFixed(3)}), ${guShare.toFixed(3)} after Gumbel (smallest lead ${guLead.toFixed(2)})`);
}
