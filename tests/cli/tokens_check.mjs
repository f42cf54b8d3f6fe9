// attention-cli on a token model (scenario JSON "tokens" with "layers"): the induction task as
// `task induction` prints it; eval's logits and next-token probabilities; grad's embed and
// unembed against central differences of the cross-entropy eval's probabilities give; train on
// the task's fresh batches (the same lines twice, the trained scenario valid, its own tokens
// predicted after the recipe); in WASM the same numbers as the native CLI; the errors.
//
//   node tokens_check.mjs --cli "<cmd;args>" [--other "<cmd;args>"]
import { fail, ok, option, run } from "./cli_run.mjs";

const cli = option("--cli"), other = option("--other");
const json = (command, argv, sc) => JSON.parse(ok(run(command, argv, sc), argv[0]));

const task = json(cli, ["task", "induction", "--seed", "1"]);
if (!task.tokens || task.x !== undefined) fail("the induction task is not written as tokens");
if (task.layers.length !== 2) fail(`the induction task has ${task.layers.length} layers, not 2`);
if (task.batches?.task !== "induction") fail("the induction task does not train on fresh batches");
if (ok(run(cli, ["validate", "-"], task), "validate").trim() !== "ok") fail("task: not valid");

// A small token model, for the differences.
const small = {
  version: 1, tokens: [[0, 1, 2, 0, 1], [2, 2, 1, 0, 1]], next: [[1, 2, 0, 1, -1], [2, 1, 0, 1, -1]],
  vocab: ["A", "B", "C"], init: { seed: 3, d_model: 4 }, layers: [{}, { heads: 2 }], causal: true,
  positional_encoding: true,
};
const crossEntropy = (sc) => {
  const t = json(cli, ["eval", "-", "--only", "output"], sc);
  let sum = 0, n = 0;
  sc.next.forEach((row, b) => row.forEach((k, i) => {
    if (k < 0) return;
    sum -= Math.log(t.probabilities[b][i][k]);
    ++n;
  }));
  return sum / n;
};

// eval: logits [B][n][V] and probabilities that sum to 1 in each row.
const e = json(cli, ["eval", "-"], small);
if (e.layers.length !== 2) fail("eval: not one entry per layer");
const dims = (a) => (Array.isArray(a) ? [a.length, ...dims(a[0])] : []);
if (dims(e.logits).join() !== "2,5,3") fail(`eval: logits are ${dims(e.logits)}, not 2,5,3`);
for (const m of e.probabilities)
  for (const row of m) {
    const s = row.reduce((a, v) => a + v, 0);
    if (Math.abs(s - 1) > 1e-5) fail(`eval: a row of probabilities sums to ${s}`);
  }

// grad: the loss is eval's cross-entropy; embed and unembed against central differences.
const g = json(cli, ["grad", "-"], small);
if (Math.abs(g.loss - crossEntropy(small)) > 1e-5 * Math.max(1, g.loss))
  fail(`grad: loss ${g.loss}, eval's cross-entropy ${crossEntropy(small)}`);
if (g.grads.x !== undefined || !g.grads.embed || !g.grads.unembed) fail("grad: not embed and unembed");
// Differences need the weights written out: the scenario trained for 0 steps writes them.
const lines = ok(run(cli, ["train", "-", "--steps", "0"], small), "train").trim().split("\n");
const written = JSON.parse(lines.at(-1));
const g0 = json(cli, ["grad", "-"], written);
let worst = 0;
for (const [field, grad] of [["embed", g0.grads.embed], ["unembed", g0.grads.unembed]])
  for (const [i, j] of [[0, 0], [1, 2], [2, 1]]) {
    const h = 1e-3;
    const up = structuredClone(written), down = structuredClone(written);
    up[field][i][j] += h;
    down[field][i][j] -= h;
    const fd = (crossEntropy(up) - crossEntropy(down)) / (up[field][i][j] - down[field][i][j]);
    const gap = Math.abs(fd - grad[i][j]);
    worst = Math.max(worst, gap);
    if (gap > 2e-3 + 2e-2 * Math.abs(fd)) fail(`grad: ${field}[${i}][${j}] is ${grad[i][j]}, differences say ${fd}`);
  }

// train on the task's batches: the same lines twice; the trained scenario is valid, keeps its
// batches, and predicts its own tokens (never trained on) with a low cross-entropy.
const steps = ["--steps", "600", "--lr", "0.01", "--optimizer", "adam"];
const a = ok(run(cli, ["train", "-", ...steps], task), "train");
const b = ok(run(cli, ["train", "-", ...steps], task), "train");
if (a !== b) fail("train: two runs differ");
const trained = JSON.parse(a.trim().split("\n").at(-1));
if (trained.batches?.seed !== 1 || trained.init !== undefined || !trained.embed) fail("train: the trained scenario is not written back");
if (ok(run(cli, ["validate", "-"], trained), "validate").trim() !== "ok") fail("train: the trained scenario is not valid");
const before = crossEntropy(task), after = crossEntropy(trained);
if (!(before > 2 && after < 0.6)) fail(`train: cross-entropy ${before} → ${after}`);
const losses = a.trim().split("\n").slice(0, -1).map((l) => JSON.parse(l).loss);
if (other) {
  const native = ok(run(other, ["train", "-", ...steps], task), "native train");
  if (native !== a) fail("train: WASM and native differ");
}

// Errors name the field.
const error = (sc, argv = ["grad", "-"]) => run(cli, argv, sc).stderr.trim();
const cases = [
  [{ ...small, next: undefined }, "error: next: no position has a next token to predict (give next, -1 for none)"],
  [{ ...small, tokens: [[0, 1, 2, 0, 3], [2, 2, 1, 0, 1]] }, "error: tokens[0][4]: is 3, expected a token in [0, 3) (the rows of embed)"],
  [{ ...small, target: [[1]] }, "error: target: not with tokens (the loss is the cross-entropy of next)"],
];
for (const [sc, want] of cases) if (error(sc) !== want) fail(`expected "${want}", got "${error(sc)}"`);

console.log(`ok: induction task; eval's probabilities sum to 1; grad within ${worst.toExponential(1)} of differences; ` +
  `train ${losses[0].toFixed(3)} → ${losses.at(-1).toFixed(3)} on fresh batches, ` +
  `its own tokens ${before.toFixed(3)} → ${after.toFixed(3)}${other ? "; native the same" : ""}`);
