// Training steps per second (the goal: ≥ 500 in the browser at n = 16, d = 16, 2 heads):
// Adam steps of attn::Optimizer on a self-attention scenario of n = 16 tokens of 16 features,
// d_model 16 from "init" (W_q, W_k, W_v, W_o learned), 2 heads, scaled dot product, a random
// target; batch 1 and batch 8. Timed three ways, each the median of 5 runs:
//   - native: `attention-cli train - --steps N` (build/native), per step from the difference of
//     N = 2000 and N = 10 (so that start-up and reading the scenario cancel);
//   - WASM under node: the same with build/wasm/attention-cli.js;
//   - the browser: the page's JS API, setScenario then train(N), timed inside the page.
//
//   node bench/train.mjs [--site build/wasm/site] [--native-cli build/native/attention-cli]
//                        [--wasm-cli build/wasm/attention-cli.js]
//
// bench/run.mjs --backward (and the native attention_bench --backward) time the same steps
// through attn::Optimizer directly, without the CLI's JSON line per step.
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { launchChromium } from "../tests/web/browser.mjs";
import { startSiteServer } from "../tests/web/harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const args = process.argv.slice(2);
const option = (name, fallback) =>
  path.resolve(args.includes(name) ? args[args.indexOf(name) + 1] : path.join(root, fallback));
const site = option("--site", "build/wasm/site");
const nativeCli = option("--native-cli", "build/native/attention-cli");
const wasmCli = option("--wasm-cli", "build/wasm/attention-cli.js");
const STEPS = 2000, FEW = 10, RUNS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// A seeded scenario: numbers from a small LCG, so every run trains the same problem.
function scenario(batch) {
  let state = 12345;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const matrix = () => Array.from({ length: 16 }, () => Array.from({ length: 16 }, next));
  return {
    version: 1, heads: 2, scoring: "scaled_dot",
    x: Array.from({ length: batch }, matrix),
    target: Array.from({ length: batch }, matrix),
    init: { seed: 7, d_model: 16 },
  };
}

function cliSeconds(command, text, steps) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command[0], [...command.slice(1), "train", "-", "--steps", String(steps),
                                   "--optimizer", "adam", "--lr", "0.01"],
                      { input: text, encoding: "utf8", maxBuffer: 1 << 28 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${command.join(" ")} train: ${r.stderr}`);
  return s;
}

function cliRate(command, text) {
  const per = [];
  for (let k = 0; k < RUNS; ++k)
    per.push((cliSeconds(command, text, STEPS) - cliSeconds(command, text, FEW)) / (STEPS - FEW));
  return 1 / median(per);
}

console.log(`# machine: ${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores; ` +
            `node ${process.version}`);
console.log(`# Adam steps per second, n = 16 tokens, d_model 16, 2 heads (median of ${RUNS} runs)`);
console.log("| batch | native | WASM (node) | browser (Chromium) |");
console.log("|---|---|---|---|");
const { url, child } = await startSiteServer(site);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.attentionPlayground?.stats?.().frames > 1, null,
                             { timeout: 60000 });
  for (const batch of [1, 8]) {
    const text = JSON.stringify(scenario(batch));
    const native = cliRate([nativeCli], text);
    const wasm = cliRate([process.execPath, "--no-experimental-fetch", wasmCli], text);
    const inPage = await page.evaluate(async ({ s, steps, runs }) => {
      const ap = window.attentionPlayground;
      const rates = [];
      for (let k = 0; k < runs; ++k) {
        const set = ap.setScenario(s);
        if (!set.ok) throw new Error(set.error);
        const t0 = performance.now();
        const r = await ap.train(steps);  // in slices of 30 ms, the page drawing in between
        const ms = performance.now() - t0;
        if (!r.ok) throw new Error(r.error);
        rates.push((1000 * steps) / ms);
      }
      return rates.sort((a, b) => a - b)[Math.floor(runs / 2)];
    }, { s: JSON.parse(text), steps: STEPS, runs: RUNS });
    console.log(`| ${batch} | ${native.toFixed(0)} | ${wasm.toFixed(0)} | ${inPage.toFixed(0)} |`);
  }
} finally {
  await browser.close();
  child.kill();
}
