// The induction task's training speed (issue: the drop within 10 s of Play on a 2-core
// laptop): `attention-cli task induction --seed S | attention-cli train - --steps 600 --lr 0.01
// --optimizer adam`, natively and in WASM under node (build/wasm/attention-cli.js, SIMD128,
// one thread). Per CLI: steps per second (the median of 3 runs of 600 steps, less a run of 10,
// so that start-up and the JSON cancel), the step where the loss of the fresh batches first
// falls below 1.0 (a third of the way from log 10 to 0: the drop), and the seconds to it.
//
//   node bench/induction.mjs [--native-cli build/native/attention-cli]
//                            [--wasm-cli build/wasm/attention-cli.js]
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
