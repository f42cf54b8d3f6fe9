// attention-cli on a scenario with "layers" (stacked attention layers on a residual stream):
// eval's shape and its parts, grad against the float64 reference (stack_reference, within 1e-4
// relative) and against central differences of eval's loss, train (SGD's step exactly, Adam
// lowering the loss, the same twice, the weights written back), and the errors.
//
//   node layers_check.mjs --cli "<cmd;args>" [--reference "<cmd;args>"] [--other "<cmd;args>"] FILE
import { readFileSync } from "node:fs";

import { fail, lastArgument, ok, option, run } from "./cli_run.mjs";

const cli = option("--cli"), reference = option("--reference"), other = option("--other");
const file = lastArgument();

const json = (r, what) => JSON.parse(ok(r, what));
const eval_ = (sc, ...extra) => json(run(cli, ["eval", "-", ...extra], sc), `eval ${extra.join(" ")}`);
// grad of a CLI (`grad -`), or the reference tool's (`-`).
const grad = (command, sc) => json(run(command, command === reference ? ["-"] : ["grad", "-"], sc), "grad");
const trainLines = (sc, extra) =>
  ok(run(cli, ["train", "-", ...extra], sc), `train ${extra.join(" ")}`).trim().split("\n");
const loss = (sc) => {
  const out = eval_(sc, "--only", "output").output;
  const target = Array.isArray(sc.target[0][0]) ? sc.target : [sc.target];
  let sum = 0, n = 0;
  out.forEach((m, b) => m.forEach((row, i) => row.forEach((v, j) => {
    sum += (v - target[b][i][j]) ** 2;
    ++n;
  })));
  return sum / n;
};
const shape = (a) => (Array.isArray(a) ? [a.length, ...shape(a[0])] : []);

const scenario = JSON.parse(readFileSync(file, "utf8"));
const L = scenario.layers.length;
const x = Array.isArray(scenario.x[0][0]) ? scenario.x : [scenario.x];
const [B, n, d] = shape(x);

// eval: one object per layer with its heads and what it adds; the output is x plus them all
// (float32 sums, in order), the same as --only output's.
const t = eval_(scenario);
if (t.version !== 1 || Object.keys(t).join() !== "version,layers,output")
  fail(`eval printed the keys ${Object.keys(t)}`);
if (t.layers.length !== L) fail(`eval printed ${t.layers.length} layers, expected ${L}`);
t.layers.forEach((layer, l) => {
  const heads = scenario.layers[l].heads ?? 1;
  if (layer.heads.length !== heads) fail(`layers[${l}] has ${layer.heads.length} heads, expected ${heads}`);
  for (const h of layer.heads) {
    if (Object.keys(h).join() !== "scores,scaled,masked,weights,output") fail(`layers[${l}] head keys ${Object.keys(h)}`);
    if (shape(h.weights).join() !== [B, n, n].join()) fail(`layers[${l}] weights are ${shape(h.weights)}`);
    h.weights.forEach((m) => m.forEach((row) => {
      const sum = row.reduce((a, v) => a + v, 0);
      if (Math.abs(sum - 1) > 1e-5) fail(`layers[${l}]: a row of weights sums to ${sum}`);
    }));
  }
  if (shape(layer.output).join() !== [B, n, d].join()) fail(`layers[${l}].output is ${shape(layer.output)}`);
});
let sumGap = 0;
t.output.forEach((m, b) => m.forEach((row, i) => row.forEach((v, j) => {
  let h = Math.fround(x[b][i][j]);
  // Each number printed is the shortest decimal that reads back to its float32.
  for (const layer of t.layers) h = Math.fround(h + Math.fround(layer.output[b][i][j]));
  sumGap = Math.max(sumGap, Math.abs(Math.fround(v) - h));
})));
if (!scenario.positional_encoding && sumGap !== 0) fail(`the output is not x plus the layers' outputs (off by ${sumGap})`);
const only = eval_(scenario, "--only", "output");
if (JSON.stringify(only) !== JSON.stringify({ version: 1, output: t.output })) fail("eval --only output differs from eval's output");
const headsOnly = eval_(scenario, "--only", "heads");
if (Object.keys(headsOnly).join() !== "version,layers" || headsOnly.layers.some((l) => "output" in l))
  fail(`eval --only heads printed ${JSON.stringify(headsOnly).slice(0, 200)}`);
const weightsOnly = eval_(scenario, "--matrices", "weights");
if (JSON.stringify(weightsOnly.layers[L - 1].heads[0]) !== JSON.stringify({ weights: t.layers[L - 1].heads[0].weights }))
  fail("eval --matrices weights differs from eval's weights");
const head = run(cli, ["eval", "-", "--head", "0"], scenario);
if (head.status !== 2 || head.stderr.trim() !== "error: --head: not with layers yet")
  fail(`eval --head: exit ${head.status}: ${head.stderr}`);
console.log(`ok: eval prints ${L} layers, their heads and outputs; the output is x plus them; ` +
            "--only output, --only heads and --matrices print those parts; --head is refused");

// grad: the loss is eval's; one gradient per weight each layer has, shaped like it; against the
// float64 reference within 1e-4 relative.
const g = grad(cli, scenario);
if (Object.keys(g.grads).join() !== "x,layers") fail(`grads has ${Object.keys(g.grads)}`);
if (Math.abs(g.loss - loss(scenario)) > 1e-6 * Math.max(1, g.loss)) fail(`grad's loss ${g.loss} is not eval's ${loss(scenario)}`);
if (shape(g.grads.x).join() !== shape(scenario.x).join()) fail(`grads.x is ${shape(g.grads.x)}, x is ${shape(scenario.x)}`);
// The weights, written out: train --steps 0 prints the scenario with init's weights.
const written = JSON.parse(trainLines(scenario, ["--steps", "0"]).at(-1));
if ("init" in written) fail("train --steps 0 still has init");
if (g.grads.layers.length !== L) fail(`grads.layers has ${g.grads.layers.length} layers`);
g.grads.layers.forEach((gl, l) => {
  const names = Object.keys(written.layers[l]).filter((k) => k !== "heads");
  if (Object.keys(gl).sort().join() !== names.sort().join()) fail(`grads.layers[${l}] has ${Object.keys(gl)}, the layer ${names}`);
  for (const name of names)
    if (shape(gl[name]).join() !== shape(written.layers[l][name]).join())
      fail(`grads.layers[${l}].${name} is ${shape(gl[name])}, the weight ${shape(written.layers[l][name])}`);
});
const flat = (gr) => [["x", gr.grads.x.flat(2)],
  ...gr.grads.layers.flatMap((gl, l) => Object.keys(gl).map((k) => [`layers[${l}].${k}`, gl[k].flat(2)]))];
if (reference) {
  const r = grad(reference, scenario);
  const largest = Math.max(...flat(r).flatMap(([, v]) => v.map(Math.abs)));
  let worst = 0, count = 0;
  const ours = new Map(flat(g));
  for (const [name, values] of flat(r)) {
    values.forEach((want, i) => {
      const got = ours.get(name)[i], gap = Math.abs(got - want);
      if (gap > 1e-4 * Math.abs(want) + 1e-6 * largest) fail(`grads.${name}[${i}] is ${got}, the float64 reference ${want}`);
      worst = Math.max(worst, gap / Math.max(Math.abs(want), 1e-6 * largest));
      ++count;
    });
  }
  if (Math.abs(g.loss - r.loss) > 1e-6 * r.loss) fail(`grad's loss ${g.loss}, the reference's ${r.loss}`);
  console.log(`ok: grad's ${count} numbers agree with attn::gradients_reference within 1e-4 relative (at worst ${worst.toExponential(2)})`);
}
// Central differences of eval's loss, for x and every weight of the written-out scenario.
{
  const gw = grad(cli, written);
  if (JSON.stringify(gw) !== JSON.stringify(g)) fail("grad of the written-out weights differs from grad with init");
  let checked = 0, worst = 0;
  const h = 1e-2;
  const check = (name, get, set, want) => {
    const moved = (dv) => {
      const s2 = structuredClone(written);
      set(s2, get(written) + dv);
      return loss(s2);
    };
    const fd = (moved(h) - moved(-h)) / (2 * h), err = Math.abs(want - fd);
    if (err > 1e-4 + 2e-3 * Math.abs(fd)) fail(`grads.${name} is ${want}, a central difference of eval's loss gives ${fd}`);
    worst = Math.max(worst, err);
    ++checked;
  };
  const xs = Array.isArray(written.x[0][0]) ? (s) => s.x : (s) => [s.x];
  const gx = Array.isArray(written.x[0][0]) ? g.grads.x : [g.grads.x];
  gx.forEach((m, b) => m.forEach((row, i) => row.forEach((v, j) =>
    check(`x[${b}][${i}][${j}]`, (s) => xs(s)[b][i][j], (s, val) => { xs(s)[b][i][j] = val; }, v))));
  g.grads.layers.forEach((gl, l) => {
    for (const name of Object.keys(gl)) {
      const rows = Array.isArray(gl[name][0]) ? gl[name] : [gl[name]];
      const at = (s) => (Array.isArray(gl[name][0]) ? s.layers[l][name] : [s.layers[l][name]]);
      rows.forEach((row, i) => row.forEach((v, j) =>
        check(`layers[${l}].${name}[${i}][${j}]`, (s) => at(s)[i][j], (s, val) => { at(s)[i][j] = val; }, v)));
    }
  });
  console.log(`ok: grad's ${checked} numbers agree with central differences of eval's loss (largest gap ${worst.toExponential(2)})`);
}

// train: one SGD step is exactly w ← w − lr·∂L/∂w in every layer, x fixed; 50 Adam steps lower
// the loss; the same run prints the same lines; the trained scenario reads back, its weights
// written out.
{
  const one = trainLines(written, ["--steps", "1", "--optimizer", "sgd", "--lr", "0.3"]);
  if (JSON.parse(one[0]).loss !== g.loss) fail(`train's first loss ${one[0]} is not grad's ${g.loss}`);
  const stepped = JSON.parse(one[1]);
  if (JSON.stringify(stepped.x) !== JSON.stringify(written.x)) fail("training moved x");
  let gap = 0;
  g.grads.layers.forEach((gl, l) => {
    for (const name of Object.keys(gl))
      written.layers[l][name].flat().forEach((v, i) => {
        const want = Math.fround(v - 0.3 * gl[name].flat()[i]);
        gap = Math.max(gap, Math.abs(stepped.layers[l][name].flat()[i] - want));
      });
  });
  if (gap > 1e-6) fail(`one SGD step is off w − lr·grad by ${gap}`);
  const adam = trainLines(scenario, ["--steps", "50", "--optimizer", "adam", "--lr", "0.05"]);
  if (adam.length !== 51) fail(`train --steps 50 printed ${adam.length} lines`);
  const first = JSON.parse(adam[0]).loss, last = JSON.parse(adam[49]).loss;
  if (!(last < 0.5 * first)) fail(`50 Adam steps took the loss from ${first} to ${last} only`);
  if (trainLines(scenario, ["--steps", "50", "--optimizer", "adam", "--lr", "0.05"]).join("\n") !== adam.join("\n"))
    fail("two identical train runs printed different lines");
  const trained = JSON.parse(adam[50]);
  if ("init" in trained || trained.layers.length !== L || !trained.layers.every((l) => "W_q" in l))
    fail(`the trained scenario's layers are ${JSON.stringify(trained.layers).slice(0, 200)}`);
  if (Math.abs(loss(trained) - grad(cli, trained).loss) > 1e-6) fail("the trained scenario's eval and grad disagree on its loss");
  if (!(loss(trained) < 0.5 * first)) fail(`the trained scenario's loss ${loss(trained)} is not below half of ${first}`);
  console.log(`ok: train: one SGD step is w − 0.3·grad in every layer (within ${gap.toExponential(1)}), x fixed; ` +
              `50 Adam steps take the loss from ${first.toPrecision(3)} to ${last.toPrecision(3)}, the same twice`);
}

// Errors.
{
  const errors = [
    ["grad", { ...scenario, target: undefined }, "error: target: missing (the output the loss compares with)"],
    ["train", { version: 1, x: scenario.x, layers: [{}, {}], target: scenario.target },
     "error: train: the layers have no weights to learn (give \"init\")"],
    ["grad", { ...scenario, hard: true }, "error: layers[0]: grad: hard attention picks one key by argmax, which has " +
     "no gradient (the straight-through estimator gives it one: \"hard\": {\"estimator\": \"straight_through\"})"],
  ];
  for (const [verb, sc, expected] of errors) {
    const r = run(cli, verb === "train" ? ["train", "-", "--steps", "3"] : [verb, "-"], sc);
    if (r.status !== 2 || r.stderr.trim() !== expected) fail(`${verb}: expected "${expected}", got exit ${r.status}: ${r.stderr}`);
  }
  console.log(`ok: ${errors.length} refusals name what is wrong`);
}

if (other) {
  const h = grad(other, scenario);
  const theirs = new Map(flat(h));
  let gap = Math.abs(h.loss - g.loss);
  for (const [name, values] of flat(g)) values.forEach((v, i) => { gap = Math.max(gap, Math.abs(v - theirs.get(name)[i])); });
  if (gap > 1e-5) fail(`the two CLIs' gradients differ by ${gap}`);
  const theirEval = json(run(other, ["eval", "-", "--only", "output"], scenario), "the other eval");
  let evalGap = 0;
  t.output.flat(2).forEach((v, i) => { evalGap = Math.max(evalGap, Math.abs(v - theirEval.output.flat(2)[i])); });
  if (evalGap > 1e-5) fail(`the two CLIs' outputs differ by ${evalGap}`);
  console.log(`ok: the other CLI's output and gradients agree (largest differences ${evalGap.toExponential(2)}, ${gap.toExponential(2)})`);
}
