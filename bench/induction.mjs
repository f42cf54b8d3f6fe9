// The induction task's training speed (issue: the drop within 10 s of Play on a 2-core
// laptop): `attention-cli task induction --seed S | attention-cli train - --steps 600 --lr 0.01
// --optimizer adam`, natively and in WASM under node (build/wasm/attention-cli.js, SIMD128,
// one thread). Per CLI: steps per second (the median of 3 runs of 600 steps, less a run of 10,
// so that start-up and the JSON cancel), the step where the loss of the fresh batches first
// falls below 1.0 (a third of the way from log 10 to 0: the drop), and the seconds to it.
//
// And the page (headless Chromium, 1280×800): ?task=induction&seed=S, Play at "fast" clicked
// where the Train section draws it, timed from the press to the first frame whose loss is below
// 1.0, and on to step 600.
//
//   node bench/induction.mjs [--native-cli build/native/attention-cli]
//                            [--wasm-cli build/wasm/attention-cli.js] [--site build/wasm/site]
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
const nativeCli = [option("--native-cli", "build/native/attention-cli")];
const wasmCli = [process.execPath, "--no-experimental-fetch", option("--wasm-cli", "build/wasm/attention-cli.js")];
const STEPS = 600, FEW = 10, RUNS = 3, DROP = 1.0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(command, argv, input) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command[0], [...command.slice(1), ...argv], { input, encoding: "utf8", maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${command.join(" ")} ${argv.join(" ")}: ${r.stderr.slice(-400)}`);
  return { out: r.stdout, seconds };
}
const train = (command, task, steps) =>
  run(command, ["train", "-", "--steps", String(steps), "--lr", "0.01", "--optimizer", "adam"], task);

console.log(`induction task, ${os.cpus()[0].model}, node ${process.version}`);
console.log("| CLI | seed | steps/s | step of the drop (loss < 1.0) | seconds to the drop | loss after 600 |");
console.log("|---|---|---|---|---|---|");
for (const [name, cli] of [["native", nativeCli], ["WASM (node)", wasmCli]])
  for (const seed of [1, 2, 3]) {
    const task = run(nativeCli, ["task", "induction", "--seed", String(seed)]).out;
    const times = [];
    let lines = [];
    for (let k = 0; k < RUNS; ++k) {
      const full = train(cli, task, STEPS), few = train(cli, task, FEW);
      times.push((full.seconds - few.seconds) / (STEPS - FEW));
      lines = full.out.trim().split("\n").slice(0, -1).map((l) => JSON.parse(l).loss);
    }
    const perStep = median(times);
    const drop = lines.findIndex((l) => l < DROP) + 1;  // 0: never
    console.log(`| ${name} | ${seed} | ${(1 / perStep).toFixed(0)} | ${drop || "none"} | ` +
      `${drop ? (drop * perStep).toFixed(2) : "—"} | ${lines.at(-1).toFixed(3)} |`);
  }

// The page: the same task and seeds, trained by Play at "fast" (as many steps as fit in 8 ms
// of each frame), the Train button clicked where the canvas draws it; the steps and their
// losses read back each animation frame, to the first loss below 1.0 and on to step 600.
const { url, child } = await startSiteServer(option("--site", "build/wasm/site"));
const browser = await launchChromium();
try {
  console.log("\n| the page: Play at fast (Chromium, 1280×800) | seed | steps/s | step of the drop (loss < 1.0) | seconds of Play to the drop | loss at 600 |");
  console.log("|---|---|---|---|---|---|");
  for (const seed of [1, 2, 3]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}?task=induction&seed=${seed}&lang=en`);
    await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 60000 });
    await page.evaluate(() => window.attentionPlayground.setTraining({ speed: "fast" }));
    let button;
    for (let tries = 0; tries < 8 && !button; ++tries) {
      await page.evaluate(() => window.attentionPlayground.items());
      await page.waitForTimeout(400);
      button = (await page.evaluate(() => window.attentionPlayground.items())).find((i) => i.id === "Train###train_play");
      if (!button || button.y1 > 800) {  // the controls panel scrolled to it, as a person does
        button = undefined;
        await page.mouse.move(150, 500);
        await page.mouse.wheel(0, 400);
      }
    }
    if (!button) throw new Error(`seed ${seed}: no Train button on screen`);
    await page.mouse.move((button.x0 + button.x1) / 2, (button.y0 + button.y1) / 2);
    await page.waitForTimeout(200);
    const timing = page.evaluate(({ steps, drop }) => new Promise((resolve) => {
      const ap = window.attentionPlayground;
      let t0 = 0, dropStep = 0, dropSeconds = NaN;
      const poll = () => {
        const t = ap.getTraining();
        if (!t0 && t.playing) t0 = performance.now();
        if (t0 && !dropStep && t.loss !== null && t.loss < drop) dropStep = t.step, dropSeconds = (performance.now() - t0) / 1000;
        if (t.step >= steps || (t0 && performance.now() - t0 > 120000)) {
          resolve({ seconds: (performance.now() - t0) / 1000, step: t.step, dropStep, dropSeconds, loss: t.loss });
        } else {
          requestAnimationFrame(poll);
        }
      };
      requestAnimationFrame(poll);
    }), { steps: STEPS, drop: DROP });
    await page.mouse.down();
    await page.waitForTimeout(60);
    await page.mouse.up();
    const r = await timing;
    console.log(`| page | ${seed} | ${(r.step / r.seconds).toFixed(0)} | ${r.dropStep ? `≤ ${r.dropStep}` : "none"} | ` +
                `${r.dropStep ? r.dropSeconds.toFixed(2) : "—"} | ${r.loss.toFixed(3)} (step ${r.step}) |`);
    await page.close();
  }
} finally {
  await browser.close();
  child.kill();
}
