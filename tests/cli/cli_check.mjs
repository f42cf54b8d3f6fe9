// Runs attention-cli (native, or the WASM build under node) and checks what it prints.
//
//   node cli_check.mjs --cli "<cmd;args>" eval-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" error BAD.json BAD.expected
//   node cli_check.mjs --cli "<cmd;args>" stdin-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" --other "<cmd;args>" agree SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" parts SCENARIO     eval --only, --head, --matrices
//   node cli_check.mjs --cli "<cmd;args>" full-disk SCENARIO output to /dev/full: exit 1
//
// A CLI is given as a ;-separated command line, as CMake lists are written.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { compareJson } from "../web/harness.mjs";

const TOLERANCE = 1e-5;  // native vs WASM: absolute up to 1, relative above

function parseArgs(argv) {
  const opts = { rest: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--cli") opts.cli = argv[++i].split(";");
    else if (argv[i] === "--other") opts.other = argv[++i].split(";");
    else opts.rest.push(argv[i]);
  }
  return opts;
}

function run(cli, args, input) {
  if (!existsSync(cli[0])) {
    fail(`${cli[0]} is missing: build the native-release preset first (scripts/build.sh does)`);
  }
  const r = spawnSync(cli[0], [...cli.slice(1), ...args], {
    input, encoding: "utf8", maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  return r;
}

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

// Walks a 3-D [batch][rows][cols] array, checking it is rectangular.
function checkTensor(t, name) {
  if (!Array.isArray(t) || t.length === 0) fail(`${name} is not a non-empty array`);
  const rows = t[0].length, cols = t[0][0].length;
  t.forEach((m, b) => {
    if (m.length !== rows) fail(`${name}[${b}] has ${m.length} rows, expected ${rows}`);
    m.forEach((row, i) => {
      if (row.length !== cols) fail(`${name}[${b}][${i}] has ${row.length} columns`);
      row.forEach((v, j) => {
        if (typeof v !== "number" && !["-inf", "inf", "nan"].includes(v))
          fail(`${name}[${b}][${i}][${j}] is ${JSON.stringify(v)}`);
      });
    });
  });
  return [t.length, rows, cols];
}

function checkTrace(trace, scenario) {
  if (trace.version !== 1) fail(`trace version is ${trace.version}`);
  if (!Array.isArray(trace.heads) || trace.heads.length < 1) fail("trace has no heads");
  const heads = scenario.heads ?? 1;
  if (trace.heads.length !== heads) fail(`trace has ${trace.heads.length} heads, expected ${heads}`);
  trace.heads.forEach((h, k) => {
    const shape = checkTensor(h.scores, `heads[${k}].scores`);
    for (const part of ["scaled", "masked", "weights"]) {
      const s = checkTensor(h[part], `heads[${k}].${part}`);
      if (s.join() !== shape.join()) fail(`heads[${k}].${part} shape ${s} differs from ${shape}`);
    }
    checkTensor(h.output, `heads[${k}].output`);
    if (!scenario.dropout) {
      h.weights.forEach((m, b) => m.forEach((row, i) => {
        const sum = row.reduce((a, v) => a + v, 0);
        if (Math.abs(sum - 1) > 1e-5) fail(`heads[${k}].weights[${b}][${i}] sums to ${sum}`);
      }));
    }
  });
  checkTensor(trace.output, "output");
}


const opts = parseArgs(process.argv.slice(2));
const [mode, file, expectedFile] = opts.rest;

if (mode === "eval-ok" || mode === "stdin-ok") {
  const scenario = JSON.parse(readFileSync(file, "utf8"));
  const r = mode === "eval-ok" ? run(opts.cli, ["eval", file])
                               : run(opts.cli, ["eval", "-"], readFileSync(file));
  if (r.status !== 0) fail(`exit ${r.status}: ${r.stderr}`);
  if (r.stderr !== "") fail(`unexpected stderr: ${r.stderr}`);
  checkTrace(JSON.parse(r.stdout), scenario);
  const v = run(opts.cli, ["validate", file]);
  if (v.status !== 0 || v.stdout.trim() !== "ok") fail(`validate: exit ${v.status} ${v.stdout}`);
  console.log(`ok: ${file}`);
} else if (mode === "error") {
  const expected = readFileSync(expectedFile, "utf8").trim();
  for (const command of ["eval", "validate"]) {
    const r = run(opts.cli, [command, file]);
    if (r.status !== 2) fail(`${command}: exit ${r.status}, expected 2 (stderr: ${r.stderr})`);
    if (r.stdout !== "") fail(`${command}: printed to stdout: ${r.stdout}`);
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    if (lines.length !== 1) fail(`${command}: stderr has ${lines.length} lines: ${r.stderr}`);
    if (lines[0] !== expected) fail(`${command}: stderr\n  ${lines[0]}\nexpected\n  ${expected}`);
  }
  console.log(`ok: ${expected}`);
} else if (mode === "agree") {
  const a = run(opts.cli, ["eval", file]);
  const b = run(opts.other, ["eval", file]);
  if (a.status !== 0 || b.status !== 0) fail(`exits ${a.status} and ${b.status}: ${a.stderr}${b.stderr}`);
  const c = compareJson(JSON.parse(a.stdout), JSON.parse(b.stdout),
                        { tolerance: TOLERANCE, path: "trace", refName: "the other CLI" });
  if (c.problem) fail(c.problem);
  console.log(`largest difference ${c.worst.toExponential(3)} at ${c.path}`);
} else if (mode === "parts") {
  // Each part of the trace equals that part of the whole, and only it is printed.
  const whole = JSON.parse(run(opts.cli, ["eval", file]).stdout);
  const part = (...args) => {
    const r = run(opts.cli, ["eval", file, ...args]);
    if (r.status !== 0) fail(`eval ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const same = (got, want, what) => {
    const c = compareJson(got, want, { tolerance: 0, path: what, refName: "the whole trace" });
    if (c.problem) fail(c.problem);
  };
  same(part("--only", "output"), { version: 1, output: whole.output }, "--only output");
  same(part("--only", "heads"), { version: 1, heads: whole.heads }, "--only heads");
  const last = whole.heads.length - 1;
  same(part("--head", String(last), "--matrices", "weights,scores"),
       { version: 1, heads: [{ head: last, scores: whole.heads[last].scores, weights: whole.heads[last].weights }],
         output: whole.output }, `--head ${last} --matrices weights,scores`);
  for (const [args, error] of [[["--head", String(last + 1)], "--head: is"], [["--only", "all"], "--only: is"],
                               [["--matrices", "bogus"], "--matrices: unknown"], [["--head"], "--head: needs a value"]]) {
    const r = run(opts.cli, ["eval", file, ...args]);
    if (r.status !== 2 || !r.stderr.startsWith(`error: ${error}`)) {
      fail(`eval ${args.join(" ")}: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    }
  }
  console.log(`ok: ${file}: --only, --head and --matrices print exactly their part; bad options exit 2`);
} else if (mode === "full-disk") {
  const out = openSync("/dev/full", "w");
  const r = spawnSync(opts.cli[0], [...opts.cli.slice(1), "eval", file], { stdio: ["ignore", out, "pipe"], encoding: "utf8" });
  closeSync(out);
  if (r.status !== 1 || !/^error: output: cannot be written/.test(r.stderr)) {
    fail(`eval > /dev/full: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
  }
  console.log(`ok: eval > /dev/full exits 1: ${r.stderr.trim()}`);
} else {
  fail(`unknown mode ${mode}`);
}
