// attention-cli grad, checked through the CLI alone: its shapes, every gradient against a
// central difference of the loss computed from `attention-cli eval` of the scenario with that
// one number moved, the errors it names, and (WASM build) agreement with the native CLI.
//
//   node grad_check.mjs --cli "<cmd;args>" [--other "<cmd;args>"]
import { spawnSync } from "node:child_process";

import { fail, option, run as runArgs } from "./cli_run.mjs";

const cli = option("--cli"), other = option("--other");

const run = (command, verb, scenario) => runArgs(command, [verb, "-"], scenario);
const ok = (r, what) => {
  if (r.status !== 0) fail(`${what}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const loss = (scenario) => {
  const t = ok(run(cli, "eval", scenario), "eval");
  const out = t.output, target = scenario.target.length && Array.isArray(scenario.target[0][0])
    ? scenario.target : [scenario.target];
  let sum = 0, n = 0;
  out.forEach((m, b) => m.forEach((row, i) => row.forEach((v, j) => {
    sum += (v - target[b][i][j]) ** 2;
    ++n;
  })));
  return sum / n;
};

// Two heads, learned projections given explicitly, a causal mask, temperature, PE: x, W_q,
// W_k, W_v and W_o all get gradients.
const rnd = (seed) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
const r = rnd(7);
const mat = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round(r() * 100) / 100));
const scenario = {
  version: 1, x: mat(3, 2), heads: 2, causal: true, temperature: 0.8,
  positional_encoding: true, scoring: "scaled_dot",
  W_q: mat(2, 4), W_k: mat(2, 4), W_v: mat(2, 4), W_o: mat(4, 3), target: mat(3, 3),
};
const g = ok(run(cli, "grad", scenario), "grad");
if (g.version !== 1 || typeof g.loss !== "number") fail(`grad printed ${JSON.stringify(g).slice(0, 200)}`);
if (Math.abs(g.loss - loss(scenario)) > 1e-6 * Math.max(1, g.loss))
  fail(`grad's loss ${g.loss} differs from eval's ${loss(scenario)}`);
const names = Object.keys(g.grads).sort().join(",");
if (names !== "W_k,W_o,W_q,W_v,x") fail(`grads for ${names}, expected W_k, W_o, W_q, W_v, x`);
let checked = 0, worst = 0;
// Every number of every field that has a gradient, against a central difference of eval's loss.
function differences(sc, grads) {
  for (const name of Object.keys(grads)) {
    const field = sc[name];
    const flat = !Array.isArray(field[0]);  // w_v is a vector
    const rows = flat ? [field] : field, grows = flat ? [grads[name]] : grads[name];
    if (grows.length !== rows.length || grows[0].length !== rows[0].length)
      fail(`grads.${name} is not shaped like ${name}`);
    rows.forEach((row, i) => row.forEach((v, j) => {
      const h = 1e-2;
      const moved = (dv) => {
        const s2 = structuredClone(sc);
        if (flat) s2[name][j] = v + dv;
        else s2[name][i][j] = v + dv;
        return loss(s2);
      };
      const fd = (moved(h) - moved(-h)) / (2 * h);
      const got = grows[i][j];
      const err = Math.abs(got - fd);
      if (err > 1e-4 + 2e-3 * Math.abs(fd))
        fail(`grads.${name}[${i}][${j}] is ${got}, a central difference of eval's loss gives ${fd}`);
      worst = Math.max(worst, err);
      ++checked;
    }));
  }
}
differences(scenario, g.grads);
// Additive scoring: its scorer's W_q, W_k and w_v, cross-attention with padding.
const additive = {
  version: 1, queries: mat(2, 3), keys: mat(4, 2), values: mat(4, 2), scoring: "additive",
  W_q: mat(3, 4), W_k: mat(2, 4), w_v: mat(1, 4)[0], valid_lens: [3], target: mat(2, 2),
};
const ga = ok(run(cli, "grad", additive), "grad (additive)");
if (Object.keys(ga.grads).sort().join(",") !== "W_k,W_q,keys,queries,values,w_v")
  fail(`additive grads for ${Object.keys(ga.grads)}`);
differences(additive, ga.grads);
console.log(`ok: grad's ${checked} numbers agree with central differences of eval's loss (largest gap ${worst.toExponential(2)})`);

// Hard attention, straight through: the loss is eval's (one-hot weights); W_v and W_o, which
// do not move the argmax, get the loss's own gradient; W_q and W_k get the estimator's, not
// zero, although the loss is flat in them. Every scoring and mask kind is accepted.
{
  const hard = { ...structuredClone(scenario), hard: { estimator: "straight_through" } };
  const gh = ok(run(cli, "grad", hard), "grad (hard, straight through)");
  if (Math.abs(gh.loss - loss(hard)) > 1e-6 * Math.max(1, gh.loss))
    fail(`grad's loss ${gh.loss} under hard attention differs from eval's ${loss(hard)}`);
  const before = checked;
  differences(hard, { W_v: gh.grads.W_v, W_o: gh.grads.W_o });
  const largest = (m) => Math.max(...m.flat().map(Math.abs));
  if (!(largest(gh.grads.W_q) > 1e-6 && largest(gh.grads.W_k) > 1e-6))
    fail(`straight through: W_q and W_k got no gradient (${largest(gh.grads.W_q)}, ${largest(gh.grads.W_k)})`);
  const flat = structuredClone(hard);
  flat.W_q[0][0] += 1e-3;
  if (loss(flat) !== loss(hard)) fail("hard attention's loss moved with W_q by 1e-3: the test's premise fails");
  const kinds = [
    { scoring: "dot", valid_lens: [2] }, { scoring: "general", W: mat(2, 2), window: 1 },
    { scoring: "cosine", mask_value: "-inf", causal: true },
    { scoring: "additive" },
  ];
  for (const k of kinds) {
    const base = k.scoring === "additive" ? additive : scenario;
    const sc = { ...structuredClone(base), ...k, hard: { estimator: "straight_through" } };
    const gk = ok(run(cli, "grad", sc), `grad (hard, straight through, ${k.scoring})`);
    if (!Number.isFinite(gk.loss)) fail(`grad (hard, ${k.scoring}) printed loss ${gk.loss}`);
  }
  const adamHard = spawnSync(cli[0], [...cli.slice(1), "train", "-", "--steps", "100", "--optimizer", "adam", "--lr", "0.05"],
                             { input: JSON.stringify(hard), encoding: "utf8", maxBuffer: 1 << 28 });
  if (adamHard.status !== 0) fail(`train (hard, straight through): exit ${adamHard.status}: ${adamHard.stderr}`);
  const hl = adamHard.stdout.trim().split("\n").map((l) => JSON.parse(l));
  if (!(hl[99].loss < 0.5 * hl[0].loss)) fail(`100 Adam steps through hard attention took the loss from ${hl[0].loss} to ${hl[99].loss} only`);
  console.log(`ok: hard attention, straight through: loss as eval's, W_v and W_o match ${checked - before} central ` +
              `differences, W_q and W_k get the estimator's gradient; ${kinds.length} more scorings and masks; ` +
              `100 Adam steps take the loss ${hl[0].loss.toPrecision(3)} → ${hl[99].loss.toPrecision(3)}`);
}

// Gumbel-softmax: grad's loss is eval's (the same noise); soft, every gradient is a central
// difference of eval's loss; train draws new noise each step, the same in two runs, and the
// loss comes down.
{
  const soft = { ...structuredClone(scenario), hard: { estimator: "gumbel", tau: 0.5, seed: 3, soft: true } };
  const gs = ok(run(cli, "grad", soft), "grad (Gumbel, soft)");
  if (Math.abs(gs.loss - loss(soft)) > 1e-6 * Math.max(1, gs.loss))
    fail(`grad's loss ${gs.loss} under soft Gumbel differs from eval's ${loss(soft)}`);
  const before = checked;
  differences(soft, gs.grads);
  const oneHot = { ...structuredClone(scenario), hard: { estimator: "gumbel", tau: 0.5, seed: 3 } };
  const go = ok(run(cli, "grad", oneHot), "grad (Gumbel, straight through)");
  if (Math.abs(go.loss - loss(oneHot)) > 1e-6 * Math.max(1, go.loss))
    fail(`grad's loss ${go.loss} under Gumbel differs from eval's ${loss(oneHot)}`);
  const train = (sc) => {
    const t = spawnSync(cli[0], [...cli.slice(1), "train", "-", "--steps", "100", "--optimizer", "adam", "--lr", "0.05"],
                        { input: JSON.stringify(sc), encoding: "utf8", maxBuffer: 1 << 28 });
    if (t.status !== 0) fail(`train (Gumbel): exit ${t.status}: ${t.stderr}`);
    return t.stdout.trim().split("\n").filter((l) => l.startsWith("{\"step\""));
  };
  for (const sc of [oneHot, soft]) {
    const a = train(sc), b = train(sc);
    if (a.join("\n") !== b.join("\n")) fail("train (Gumbel) printed other losses the second time");
    const losses = a.map((l) => JSON.parse(l).loss);
    if (!losses.every(Number.isFinite)) fail(`train (Gumbel) printed a loss that is not finite`);
    const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
    if (!(mean(losses.slice(-10)) < 0.7 * mean(losses.slice(0, 10))))
      fail(`100 Adam steps through Gumbel (${sc.hard.soft ? "soft" : "one-hot"}) took the loss from ` +
           `${mean(losses.slice(0, 10))} to ${mean(losses.slice(-10))} only (means of 10)`);
    if (new Set(losses.slice(0, 5)).size < 2) fail("train (Gumbel): the first losses are all the same");
  }
  console.log(`ok: Gumbel-softmax: loss as eval's, soft: ${checked - before} central differences; ` +
              "train deterministic, its loss coming down, soft and one-hot");
}

// train: one SGD step is exactly w ← w − lr·∂L/∂w for every weight; Adam lowers the loss; the
// same run twice prints the same lines.
const trainLines = (extra) => {
  const r2 = spawnSync(cli[0], [...cli.slice(1), "train", "-", ...extra], {
    input: JSON.stringify(scenario), encoding: "utf8", maxBuffer: 1 << 28,
  });
  if (r2.status !== 0) fail(`train ${extra.join(" ")}: exit ${r2.status}: ${r2.stderr}`);
  return r2.stdout.trim().split("\n");
};
const one = trainLines(["--steps", "1", "--optimizer", "sgd", "--lr", "0.3"]);
const stepped = JSON.parse(one[1]);
if (JSON.parse(one[0]).loss !== g.loss) fail(`train's first loss ${one[0]} is not grad's ${g.loss}`);
let sgdGap = 0;
for (const name of ["W_q", "W_k", "W_v", "W_o"])
  scenario[name].forEach((row, i) => row.forEach((v, j) => {
    const want = Math.fround(v - 0.3 * g.grads[name][i][j]);
    sgdGap = Math.max(sgdGap, Math.abs(stepped[name][i][j] - want));
  }));
if (sgdGap > 1e-6) fail(`one SGD step is off w − lr·grad by ${sgdGap}`);
if (JSON.stringify(stepped.x) !== JSON.stringify(scenario.x)) fail("training moved the inputs");
const adam = trainLines(["--steps", "100", "--optimizer", "adam", "--lr", "0.05"]);
const first = JSON.parse(adam[0]).loss, last = JSON.parse(adam[99]).loss;
if (!(last < 0.05 * first)) fail(`100 Adam steps took the loss from ${first} to ${last} only`);
if (trainLines(["--steps", "100", "--optimizer", "adam", "--lr", "0.05"]).join("\n") !== adam.join("\n"))
  fail("two identical train runs printed different lines");
const trained = JSON.parse(adam[100]);
if (Math.abs(loss(trained) - ok(run(cli, "grad", trained), "grad of the trained").loss) > 1e-6)
  fail("the trained scenario's eval and grad disagree on its loss");
console.log(`ok: train: one SGD step is w − 0.3·grad (within ${sgdGap.toExponential(1)}), inputs fixed; ` +
            `100 Adam steps take the loss from ${first.toPrecision(3)} to ${last.toPrecision(3)}, the same twice`);

// Gaussian scoring: "sigma" is a gradient too (a number, after the weights), against a central
// difference of eval's loss like every other; one SGD step is σ − lr·∂L/∂σ, and train writes
// the learned "sigma" back.
{
  const gauss = {
    version: 1, queries: mat(4, 2), keys: mat(5, 2), values: mat(5, 3), scoring: "gaussian",
    sigma: 0.7, temperature: 0.9, valid_lens: [4], W_q: mat(2, 4), W_k: mat(2, 4),
    target: mat(4, 3),
  };
  const gg = ok(run(cli, "grad", gauss), "grad (gaussian)");
  const keys = Object.keys(gg.grads).join(",");
  if (keys !== "queries,keys,values,W_q,W_k,sigma")
    fail(`grad (gaussian) printed grads for ${keys}, expected queries, keys, values, W_q, W_k, sigma`);
  if (typeof gg.grads.sigma !== "number") fail(`grads.sigma is ${JSON.stringify(gg.grads.sigma)}, not a number`);
  const { sigma, ...arrays } = gg.grads;
  differences(gauss, arrays);
  const h = 1e-3;
  const fd = (loss({ ...gauss, sigma: gauss.sigma + h }) - loss({ ...gauss, sigma: gauss.sigma - h })) / (2 * h);
  if (Math.abs(sigma - fd) > 1e-4 + 2e-3 * Math.abs(fd))
    fail(`grads.sigma is ${sigma}, a central difference of eval's loss gives ${fd}`);
  ++checked;
  const stepped = spawnSync(cli[0], [...cli.slice(1), "train", "-", "--steps", "1", "--optimizer", "sgd", "--lr", "0.3"],
                            { input: JSON.stringify(gauss), encoding: "utf8" });
  if (stepped.status !== 0) fail(`train (gaussian): exit ${stepped.status}: ${stepped.stderr}`);
  const after = JSON.parse(stepped.stdout.trim().split("\n")[1]);
  const want = Math.fround(0.7 - Math.fround(0.3) * sigma);
  if (Math.abs(after.sigma - want) > 1e-6) fail(`one SGD step took sigma to ${after.sigma}, expected ${want}`);
  // The toy task kernel_regression learns σ alone, with its recipe, from seeds 1, 2 and 3.
  const recipe = JSON.parse(spawnSync(cli[0], [...cli.slice(1), "task", "--list"], { encoding: "utf8" }).stdout
    .trim().split("\n").find((l) => l.includes("kernel_regression")).trim().replace(/,$/, ""));
  const learned = [];
  for (const seed of [1, 2, 3]) {
    const task = spawnSync(cli[0], [...cli.slice(1), "task", "kernel_regression", "--seed", String(seed)], { encoding: "utf8" }).stdout;
    const t = spawnSync(cli[0], [...cli.slice(1), "train", "-", "--steps", String(recipe.steps), "--optimizer", "adam",
                                 "--lr", String(recipe.lr)], { input: task, encoding: "utf8" });
    if (t.status !== 0) fail(`train kernel_regression --seed ${seed}: exit ${t.status}: ${t.stderr}`);
    const trained = JSON.parse(t.stdout.trim().split("\n").at(-1));
    if (!(loss(trained) < recipe.loss_below)) fail(`kernel_regression from seed ${seed}: loss ${loss(trained)}`);
    if (!(trained.sigma > 0 && trained.sigma < 1)) fail(`kernel_regression from seed ${seed}: sigma ${trained.sigma}`);
    learned.push(trained.sigma.toFixed(2));
  }
  console.log(`ok: gaussian: grads.sigma is a central difference of eval's loss, one SGD step is σ − lr·grad; ` +
              `kernel_regression learns σ = ${learned.join(", ")} from seeds 1, 2, 3`);
}

// Toy tasks: trained from `attention-cli task`, the intended head appears, and it holds on
// sequences it never saw (another seed's data with the trained weights).
const cliText = (argv, input) => {
  const res = spawnSync(cli[0], [...cli.slice(1), ...argv], { input, encoding: "utf8", maxBuffer: 1 << 28 });
  if (res.status !== 0) fail(`${argv.join(" ")}: exit ${res.status}: ${res.stderr}`);
  return res.stdout;
};
const keyOf = { previous_token: (i) => (i > 0 ? i - 1 : 0), reverse: (i, n) => n - 1 - i };
for (const name of Object.keys(keyOf)) {
  const task = cliText(["task", name, "--seed", "3"]);
  const lines = cliText(["train", "-", "--steps", "400", "--optimizer", "adam", "--lr", "0.05"], task).trim().split("\n");
  const trained = JSON.parse(lines.at(-1));
  const unseen = JSON.parse(cliText(["task", name, "--seed", "11"]));
  for (const wname of ["W_q", "W_k", "W_v", "W_o"]) unseen[wname] = trained[wname];
  delete unseen.init;
  const share = (sc) => {
    const w = ok(run(cli, "eval", sc), "eval of a trained task").heads[0].weights;
    let sum = 0, count = 0;
    w.forEach((m) => m.forEach((row, i) => { sum += row[keyOf[name](i, m.length)]; ++count; }));
    return sum / count;
  };
  const seen = share(trained), fresh = share(unseen);
  if (!(seen >= 0.9 && fresh >= 0.9))
    fail(`task ${name}: after 400 Adam steps the intended key gets ${seen.toFixed(3)} of the weight (unseen sequences ${fresh.toFixed(3)}), expected ≥ 0.9`);
  console.log(`ok: task ${name}: 400 Adam steps, loss ${JSON.parse(lines[0]).loss.toPrecision(3)} → ` +
              `${JSON.parse(lines[399]).loss.toPrecision(3)}; the intended key gets ${seen.toFixed(3)} of the weight, ` +
              `${fresh.toFixed(3)} on sequences it never saw`);
}

// Errors name what is wrong.
const errors = [
  [{ ...scenario, target: undefined }, "error: target: missing (the output the loss compares with)"],
  [{ ...scenario, target: mat(3, 2) }, "error: target: is 1 × 3 × 2, the output is 1 × 3 × 3 (batch × queries × columns)"],
  [{ ...scenario, hard: true }, "error: grad: hard attention picks one key by argmax, which has no gradient (the " +
   "straight-through estimator gives it one: \"hard\": {\"estimator\": \"straight_through\"})"],
  [{ ...scenario, hard: { estimator: "gumbell" } }, "error: hard.estimator: unknown estimator \"gumbell\", expected \"straight_through\" or \"gumbel\""],
  [{ ...scenario, hard: {} }, "error: hard.estimator: missing (\"straight_through\" or \"gumbel\")"],
  [{ ...scenario, hard: "yes" }, "error: hard: must be true, false, {\"estimator\": \"straight_through\"} or " +
   "{\"estimator\": \"gumbel\", \"tau\": 1, \"seed\": 0, \"soft\": false}, got a string"],
  [{ ...scenario, hard: { estimator: "gumbel", tau: -1 } }, "error: hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay inside float32) to 100, got -1"],
];
const noWeights = { version: 1, x: [[1, 0], [0, 1]], target: [[0, 0], [1, 1]] };
const t1 = spawnSync(cli[0], [...cli.slice(1), "train", "-", "--steps", "3"], { input: JSON.stringify(noWeights), encoding: "utf8" });
if (t1.status !== 2 || !t1.stderr.startsWith("error: train: the scenario has no weights to learn"))
  fail(`train without weights: exit ${t1.status}: ${t1.stderr}`);
const t2 = spawnSync(cli[0], [...cli.slice(1), "train", "-"], { input: JSON.stringify(scenario), encoding: "utf8" });
if (t2.status !== 2 || t2.stderr.trim() !== "error: --steps: missing (how many steps to train)")
  fail(`train without --steps: exit ${t2.status}: ${t2.stderr}`);
for (const [s, expected] of errors) {
  const res = run(cli, "grad", s);
  if (res.status !== 2 || res.stderr.trim() !== expected) fail(`expected "${expected}", got exit ${res.status}: ${res.stderr}`);
}
console.log(`ok: ${errors.length} bad scenarios get their one-line errors`);

if (other) {
  const h = ok(run(other, "grad", scenario), "the other CLI's grad");
  let gap = Math.abs(h.loss - g.loss);
  for (const name of Object.keys(g.grads))
    g.grads[name].forEach((row, i) => row.forEach((v, j) => { gap = Math.max(gap, Math.abs(v - h.grads[name][i][j])); }));
  if (gap > 1e-5) fail(`the two CLIs' gradients differ by ${gap}`);
  console.log(`ok: the WASM and native CLIs' gradients agree (largest difference ${gap.toExponential(2)})`);
}
