// The Bahdanau encoder–decoder's training speed (issue 31: trained on the toy translation in
// the page, in seconds): the learned_bahdanau lesson from its random start (its weights left
// out: the seed's), 1500 steps of attn::seq2seq::ToyTrainer (Adam at 0.01 on 16 sentence pairs
// a step), by
//   - attention-cli train, natively and in WASM under node (the median of 3 runs of 1500
//     steps, less a run of 10, so that start-up and the JSON cancel);
//   - the page, as a person does it: the Decoder tab, Random start, Train, clicked where the
//     canvas draws them (headless Chromium, 800×600), timed from the click on Train to the
//     frame whose status line reads "Step 1500" (the page trains in 10 ms of each frame and
//     draws the alignment and the loss curve between).
//
//   node bench/seq2seq.mjs [--site build/wasm/site] [--native-cli build/native/attention-cli]
//                          [--wasm-cli build/wasm/attention-cli.js]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
const nativeCli = [option("--native-cli", "build/native/attention-cli")];
const wasmCli = [process.execPath, "--no-experimental-fetch", option("--wasm-cli", "build/wasm/attention-cli.js")];
const STEPS = 1500, FEW = 10, RUNS = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const lesson = JSON.parse(readFileSync(path.join(root, "build/native/presets/learned_bahdanau.json"), "utf8"));
delete lesson.seq2seq.weights;
const start = path.join(mkdtempSync(path.join(os.tmpdir(), "ap-seq2seq-")), "start.json");
writeFileSync(start, JSON.stringify(lesson));

function seconds(command, steps) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command[0], [...command.slice(1), "train", start, "--steps", String(steps)],
                      { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${command.join(" ")}: ${r.stderr.slice(-400)}`);
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, lines: r.stdout.trim().split("\n") };
}

console.log(`# machine: ${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores; node ${process.version}`);
console.log("| where | steps/s | seconds for 1500 steps | loss at step 1500 |");
console.log("|---|---|---|---|");
for (const [name, cli] of [["attention-cli, native", nativeCli], ["attention-cli, WASM (node)", wasmCli]]) {
  const per = [];
  let last = "";
  for (let k = 0; k < RUNS; ++k) {
    const full = seconds(cli, STEPS), few = seconds(cli, FEW);
    per.push((full.seconds - few.seconds) / (STEPS - FEW));
    last = JSON.parse(full.lines[STEPS - 1]).loss;
  }
  const s = median(per);
  console.log(`| ${name} | ${(1 / s).toFixed(0)} | ${(s * STEPS).toFixed(2)} | ${last.toPrecision(3)} |`);
}

const { url, child } = await startSiteServer(site);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  await page.goto(`${url}?preset=learned_bahdanau&lang=en`);
  await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 60000 });
  const items = async () => {
    await page.evaluate(() => window.attentionPlayground.items());
    await page.waitForTimeout(300);
    return page.evaluate(() => window.attentionPlayground.items());
  };
  const click = async (pick) => {
    const it = (await items()).find(pick);
    if (!it) throw new Error("a control is not on screen");
    await page.mouse.move((it.x0 + it.x1) / 2, (it.y0 + it.y1) / 2);
    await page.waitForTimeout(100);
    await page.mouse.down();
    await page.waitForTimeout(100);
    await page.mouse.up();
  };
  await click((i) => i.tab && i.label === "Decoder");
  await click((i) => i.id.endsWith("###decoder_random"));
  await page.waitForTimeout(500);
  await items();
  // The click on Train, then the record of each frame read in the page until step 1500.
  const it = (await items()).find((i) => i.id.endsWith("###decoder_train"));
  await page.mouse.move((it.x0 + it.x1) / 2, (it.y0 + it.y1) / 2);
  await page.waitForTimeout(100);
  const timing = page.evaluate(async () => {
    const ap = window.attentionPlayground;
    const status = () => ap.items().find((i) => i.id === "decoder.training")?.label ?? "";
    const f0 = ap.stats().frames;
    const t0 = performance.now();
    return new Promise((resolve) => {
      const poll = () => {
        const s = status();
        if (s.startsWith("Step 1500,")) {
          resolve({ seconds: (performance.now() - t0) / 1000, frames: ap.stats().frames - f0, status: s });
        } else if (performance.now() - t0 > 120000) {
          resolve({ seconds: NaN, frames: 0, status: s });
        } else {
          requestAnimationFrame(poll);
        }
      };
      requestAnimationFrame(poll);
    });
  });
  // The press, while the page's clock runs: ImGui acts on the release.
  await page.mouse.down();
  await page.waitForTimeout(60);
  await page.mouse.up();
  const result = await timing;
  if (!Number.isFinite(result.seconds)) throw new Error(`the page did not reach step 1500: ${result.status}`);
  console.log(`| the page (Chromium, 800×600, clicks) | ${(STEPS / result.seconds).toFixed(0)} | ` +
              `${result.seconds.toFixed(2)} (${result.frames} frames) | ${result.status.replace(/^Step 1500, loss /, "")} |`);
} finally {
  await browser.close();
  child.kill();
}
