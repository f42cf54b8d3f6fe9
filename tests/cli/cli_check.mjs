// Runs attention-cli (native, or the WASM build under node) and checks what it prints.
//
//   node cli_check.mjs --cli "<cmd;args>" eval-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" error BAD.json BAD.expected
//   node cli_check.mjs --cli "<cmd;args>" stdin-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" --other "<cmd;args>" agree SCENARIO
//
// A CLI is given as a ;-separated command line, as CMake lists are written.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
} else {
  fail(`unknown mode ${mode}`);
}
