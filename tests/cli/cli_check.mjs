// Runs attention-cli (native, or the WASM build under node) and checks what it prints.
//
//   node cli_check.mjs --cli "<cmd;args>" eval-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" error BAD.json BAD.expected
//   node cli_check.mjs --cli "<cmd;args>" stdin-ok SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" --other "<cmd;args>" agree SCENARIO
//   node cli_check.mjs --cli "<cmd;args>" parts SCENARIO     eval --only, --head, --matrices
//   node cli_check.mjs --cli "<cmd;args>" full-disk SCENARIO  every command's output to
//                                   /dev/full: exit 1, one line on stderr
//   node cli_check.mjs --cli "<cmd;args>" closed-pipe SCENARIO  output to a pipe whose reader
//                                   has gone: exit 1 (not SIGPIPE), one line on stderr
//   node cli_check.mjs --cli "<cmd;args>" seed                task --seed out of range: exit 2
//   node cli_check.mjs --cli "<cmd;args>" diverge             train --lr 100 stops, saying why,
//                                   and never prints inf or NaN
//   node cli_check.mjs --cli "<cmd;args>" seq2seq-train LESSON  train of a GRU encoder–decoder,
//                                   and what it refuses
//   node cli_check.mjs --cli "<cmd;args>" arrays-budget      repeated --arrays: one budget
//   node cli_check.mjs --cli "<cmd;args>" json-bomb          45 MB of [{},{},…]: refused before
//                                   its tree is built (and in < 150 MB, where /usr/bin/time is;
//                                   --peak-mb N sets another limit, for sanitized builds)
//   node cli_check.mjs --cli "<cmd;args>" package-own LESSON  package --add: a teacher's lesson
//   node cli_check.mjs --cli "<cmd;args>" package-site LESSON  package --site: the files its
//                                   site-files.json lists, deflated from zlib's gzip copies
//   node cli_check.mjs --cli "<cmd;args>" package-inputs LESSON  package refuses a FIFO, a
//                                   directory and a 95 MB --add without reading it, and an
//                                   --out that is one of its inputs
//   node cli_check.mjs --cli "<cmd;args>" package-size SITE  the staged site's package in each
//                                   format is at most 4 MB
//
// A CLI is given as a ;-separated command line, as CMake lists are written.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync,
         symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deflateRawSync, gzipSync } from "node:zlib";
import { compareJson } from "../web/harness.mjs";

const TOLERANCE = 1e-5;  // native vs WASM: absolute up to 1, relative above

// An .npz (a ZIP, deflated) of one float32 array of zeros, `name` with `shape`, as
// np.savez_compressed writes it: small on disk, large once read.
function npz(name, shape) {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(", ")}), }`;
  const pad = 64 - ((10 + dict.length + 1) % 64);
  const header = Buffer.from(`\x93NUMPY\x01\x00` + "  " + dict + " ".repeat(pad % 64) + "\n", "latin1");
  header.writeUInt16LE(header.length - 10, 8);
  const count = shape.reduce((a, b) => a * b, 1);
  const npy = Buffer.concat([header, Buffer.alloc(count * 4)]);
  const data = deflateRawSync(npy);
  const file = Buffer.from(`${name}.npy`);
  const crc = crc32(npy);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(npy.length, 22);
  local.writeUInt16LE(file.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(npy.length, 24);
  central.writeUInt16LE(file.length, 28);
  central.writeUInt32LE(0, 42);
  const cdAt = 30 + file.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + file.length, 12);
  end.writeUInt32LE(cdAt, 16);
  return Buffer.concat([local, file, data, central, file, end]);
}

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; ++k) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function parseArgs(argv) {
  const opts = { rest: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--cli") opts.cli = argv[++i].split(";");
    else if (argv[i] === "--other") opts.other = argv[++i].split(";");
    else if (argv[i] === "--peak-mb") opts.peakMb = Number(argv[++i]);
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

// A staged site in `root` as the build writes it: each of `files` ({path: bytes}), a gzip copy
// (zlib's, level 9, as scripts/precompress.mjs makes them) beside each in `gzip`, and
// site-files.json listing `files` in their order (or `list`, when given) and those copies.
function writeSite(root, files, { gzip = [], list = null } = {}) {
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), bytes);
    if (gzip.includes(path)) writeFileSync(join(root, `${path}.gz`), gzipSync(bytes, { level: 9 }));
  }
  const listed = list ?? [...Object.keys(files), "site-files.json"];
  writeFileSync(join(root, "site-files.json"), JSON.stringify({ files: listed, gzip }));
}

// A zip read back by python3's zipfile: every CRC checked (testzip), each entry's name, method
// (0 stored, 8 deflated) and bytes (base64).
function readZip(path) {
  const r = spawnSync("/usr/bin/python3", ["-c", `
import base64, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps({"bad": z.testzip(), "entries": [
    {"name": i.filename, "method": i.compress_type, "needed": i.extract_version,
     "bytes": base64.b64encode(z.read(i)).decode()} for i in z.infolist()]}))`, path],
  { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) fail(`python3 could not read ${path}: ${r.stderr}`);
  const z = JSON.parse(r.stdout);
  if (z.bad !== null) fail(`${path}: the entry ${z.bad} fails its CRC-32`);
  for (const e of z.entries) e.bytes = Buffer.from(e.bytes, "base64");
  return z.entries;
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
  if (scenario.layers) {  // a stack: each layer's trace is one layer's, with its own heads
    if (!Array.isArray(trace.layers) || trace.layers.length !== scenario.layers.length)
      fail(`trace has ${trace.layers?.length} layers, expected ${scenario.layers.length}`);
    trace.layers.forEach((l, k) => checkTrace({ version: 1, ...l },
      { ...scenario, layers: undefined, heads: scenario.layers[k].heads ?? 1 }));
    checkTensor(trace.output, "output");
    return;
  }
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
  if (scenario.hierarchy) checkHierarchy(trace.hierarchy, scenario.hierarchy);
}

// Attention over attention's block: each sentence's word weights (as many as its words,
// summing to 1) and one vector of d numbers per sentence.
function checkHierarchy(block, h) {
  if (!block) fail("trace has no hierarchy block");
  const ww = block.word_weights, sv = block.sentence_vectors;
  if (!Array.isArray(ww) || ww.length !== h.sentences.length)
    fail(`hierarchy.word_weights has ${ww?.length} rows, expected ${h.sentences.length}`);
  ww.forEach((row, k) => {
    if (!Array.isArray(row) || row.length !== h.sentences[k].length)
      fail(`hierarchy.word_weights[${k}] has ${row?.length} weights, expected ${h.sentences[k].length}`);
    const sum = row.reduce((a, v) => a + v, 0);
    if (Math.abs(sum - 1) > 1e-5) fail(`hierarchy.word_weights[${k}] sums to ${sum}`);
  });
  const d = h.sentences[0][0].length;
  if (!Array.isArray(sv) || sv.length !== h.sentences.length ||
      sv.some((v) => !Array.isArray(v) || v.length !== d ||
                     v.some((x) => typeof x !== "number" || !Number.isFinite(x))))
    fail(`hierarchy.sentence_vectors is not ${h.sentences.length} rows of ${d} numbers`);
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
  // Every command, and every way out of it that prints (task and lesson once exited 0 there).
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const task = join(dir, "task.json");
    writeFileSync(task, run(opts.cli, ["task", "previous_token"]).stdout);
    const recipes = new URL("../../assets/recipes/", import.meta.url);
    const recipe = join(recipes.pathname, readdirSync(recipes).filter((f) => f.endsWith(".json"))[0]);
    const commands = [["eval", file], ["eval", file, "--only", "output"], ["validate", file],
                      ["normalize", file], ["grad", task], ["train", task, "--steps", "2"],
                      ["task", "recall"], ["task", "sort", "--seed", "3"], ["task", "--list"],
                      ["lesson", recipe], ["--help"]];
    for (const args of commands) {
      const out = openSync("/dev/full", "w");
      const r = spawnSync(opts.cli[0], [...opts.cli.slice(1), ...args],
                          { stdio: ["ignore", out, "pipe"], encoding: "utf8" });
      closeSync(out);
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      if (r.status !== 1 || lines.length !== 1 || !/^error: output: cannot be written \(.+\)$/.test(lines[0])) {
        fail(`${args.join(" ")} > /dev/full: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
      }
    }
    console.log(`ok: ${commands.length} commands > /dev/full exit 1 with one line`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "closed-pipe") {
  // The reader of the output goes away at once: the CLI must not die of SIGPIPE (exit 141 in a
  // shell), but exit 1 and say so. Outputs over a pipe's 64 KB, so that the write meets the
  // closed end whatever the timing.
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const scenario = (n) => {
      const path = join(dir, `x${n}.json`);
      const x = Array.from({ length: n }, (_, i) => Array.from({ length: 8 }, (_, j) => ((i * 7 + j * 3) % 11) / 10));
      writeFileSync(path, JSON.stringify({ version: 1, x }));
      return path;
    };
    const task = join(dir, "task.json");
    writeFileSync(task, run(opts.cli, ["task", "previous_token"]).stdout);
    for (const args of [["eval", scenario(300)], ["normalize", scenario(4000)],
                        ["train", task, "--steps", "3000"]]) {
      const r = await new Promise((resolve) => {
        const child = spawn(opts.cli[0], [...opts.cli.slice(1), ...args], { stdio: ["ignore", "pipe", "pipe"] });
        child.stdout.destroy();
        let stderr = "";
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (d) => { stderr += d; });
        child.on("close", (status, signal) => resolve({ status, signal, stderr }));
      });
      if (r.status !== 1 || !/^error: output: cannot be written \(.+\)\n$/.test(r.stderr)) {
        fail(`${args[0]} into a closed pipe: exit ${r.status}, signal ${r.signal}, stderr ${JSON.stringify(r.stderr)}`);
      }
    }
    console.log("ok: eval, normalize and train into a closed pipe exit 1, saying so");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "seed") {
  // --seed 99999999999999999999 must not be taken as 2^64 − 1 (a scenario validate refuses).
  for (const seed of ["99999999999999999999", "1000000", "-1", "1e3", "", "0x10"]) {
    const r = run(opts.cli, ["task", "recall", "--seed", seed]);
    const want = `error: --seed: is "${seed}", expected a whole number from 0 to 999999\n`;
    if (r.status !== 2 || r.stdout !== "" || r.stderr !== want) {
      fail(`task recall --seed ${seed}: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    }
  }
  for (const seed of ["0", "999999"]) {
    const r = run(opts.cli, ["task", "recall", "--seed", seed]);
    if (r.status !== 0) fail(`task recall --seed ${seed}: exit ${r.status}: ${r.stderr}`);
    const v = run(opts.cli, ["validate", "-"], r.stdout);
    if (v.status !== 0 || v.stdout !== "ok\n") fail(`the task of seed ${seed} does not validate: ${v.stderr}`);
  }
  console.log("ok: task --seed takes 0 to 999999, and its scenarios validate; others exit 2");
} else if (mode === "diverge") {
  // train at --lr 100 overflows: "loss": inf is not JSON, and no -inf masked row is to blame.
  // It stops at the step that overflows, with that reason; every line is JSON.
  const task = run(opts.cli, ["task", "recall", "--seed", "2"]).stdout;
  for (const [optimizer, steps] of [["sgd", 300], ["adam", 3000]]) {
    const r = run(opts.cli, ["train", "-", "--steps", String(steps), "--lr", "100", "--optimizer", optimizer], task);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    for (const line of lines) {
      let value;
      try { value = JSON.parse(line); } catch { fail(`--optimizer ${optimizer}: a line is not JSON: ${line.slice(0, 80)}`); }
      if (value.version === 1 && line === lines[lines.length - 1] && r.status === 0) {
        if (/"(-?inf|nan)"/.test(line)) fail(`--optimizer ${optimizer}: the trained scenario holds inf or NaN`);
        continue;
      }
      if (value.step === undefined || !Number.isFinite(value.loss)) fail(`--optimizer ${optimizer}: line ${line.slice(0, 80)}`);
    }
    const stderr = r.stderr.trim();
    if (r.status === 0 && optimizer === "adam") {  // Adam's steps are at most about lr each
      console.log(`ok: --optimizer adam --lr 100 trains ${steps} steps without overflowing`);
      continue;
    }
    if (r.status !== 2 || stderr.includes("\n") || !/^error: train: .*(--lr|the learning rate) 100 is too large/.test(stderr) ||
        /-inf|masked/.test(stderr)) {
      fail(`--optimizer ${optimizer} --lr 100: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    }
    console.log(`ok: --optimizer ${optimizer} --lr 100 stops after ${lines.length} steps: ${stderr}`);
  }
  const fine = run(opts.cli, ["train", "-", "--steps", "5", "--lr", "0.05"], task);
  if (fine.status !== 0) fail(`--lr 0.05: exit ${fine.status}: ${fine.stderr}`);
} else if (mode === "seq2seq-train") {
  // train of a GRU encoder–decoder (the learned_bahdanau lesson, given): a line per step from
  // its weights, then the model with every weight; what it cannot take is refused by name.
  const lesson = readFileSync(file, "utf8");
  const r = run(opts.cli, ["train", "-", "--steps", "3"], lesson);
  const lines = r.stdout.trim().split("\n");
  if (r.status !== 0 || lines.length !== 4) fail(`train --steps 3: exit ${r.status}, ${lines.length} lines: ${r.stderr}`);
  for (let k = 0; k < 3; ++k) {
    const l = JSON.parse(lines[k]);
    if (l.step !== k + 1 || !(l.loss > 0 && l.loss < 0.1)) fail(`line ${k + 1}: ${lines[k]}`);
  }
  const trained = JSON.parse(lines[3]);
  if (Object.keys(trained.seq2seq.weights).length !== 25) fail("the trained model does not write its 25 weights");
  if (JSON.stringify(trained.seq2seq.weights) === JSON.stringify(JSON.parse(lesson).seq2seq.weights)) fail("three steps changed no weight");
  const other = JSON.parse(lesson);
  other.seq2seq.target_words[0] = "grand";  // not the toy language's words
  const refusals = [
    [["--steps", "2", "--lr", "0.1"], lesson, /^error: --lr: a seq2seq model trains as the page's Decoder tab does/],
    [["--steps", "2", "--optimizer", "sgd"], lesson, /^error: --optimizer: a seq2seq model trains/],
    [["--steps", "2"], JSON.stringify(other), /^error: seq2seq: train learns from the toy language's sentence pairs/],
    [[], lesson, /^error: --steps: missing/],
    [["--steps", "-1"], lesson, /^error: --steps: is "-1"/],
  ];
  // From a file, not standard input: a refused option ends the CLI before it reads its input,
  // and a pipe still being written would then break (EPIPE) in this check, not in the CLI.
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    for (const [args, input, want] of refusals) {
      const model = join(dir, "model.json");
      writeFileSync(model, input);
      const e = run(opts.cli, ["train", model, ...args]);
      if (e.status !== 2 || e.stdout !== "" || !want.test(e.stderr) || e.stderr.trim().includes("\n"))
        fail(`train ${args.join(" ")}: exit ${e.status}, stderr ${JSON.stringify(e.stderr)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`ok: train takes a seq2seq model of the toy language (loss ${JSON.parse(lines[0]).loss.toFixed(5)}), and refuses ${refusals.length} ways it cannot, by name`);
} else if (mode === "arrays-budget") {
  // Each --arrays file read in full, a small .npz that inflates to 32 MB, given 12 times,
  // would take a GB. All of them share one budget: as many numbers as one .npz may
  // hold (2^25).
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const bomb = join(dir, "bomb.npz");
    writeFileSync(bomb, npz("keys", [2048, 4096]));  // 2^23 zeros, 32 MB as float32
    const args = ["validate"];
    for (let i = 0; i < 12; ++i) args.push("--arrays", bomb);
    const r = run(opts.cli, args);
    const want = `error: --arrays: the files hold more than 33554432 numbers in all (as many as one .npz may), at ${bomb}: keys\n`;
    if (r.status !== 2 || r.stderr !== want) fail(`12 × --arrays: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    console.log(`ok: 12 × --arrays ${readFileSync(bomb).length}-byte .npz of 2^23 numbers: ${r.stderr.trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "json-bomb") {
  // 45 MB of [{},{},…] (within the 96 MB the CLI reads) must be refused without 1.24 GB.
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const bomb = join(dir, "bomb.json");
    const row = `[${Array(65536).fill("{}").join(",")}]`;
    writeFileSync(bomb, `[${Array(Math.floor((45 << 20) / row.length)).fill(row).join(",")}]`);
    const want = "error: json: holds too many values (their tree would take more than 256 MB)\n";
    const time = existsSync("/usr/bin/time") && !opts.cli[0].endsWith("node");
    const r = time ? spawnSync("/usr/bin/time", ["-f", "peak %M KB", ...opts.cli, "validate", bomb], { encoding: "utf8" })
                   : run(opts.cli, ["validate", bomb]);
    const peak = /peak (\d+) KB/.exec(r.stderr);
    const stderr = r.stderr.split("\n").filter((l) => l.startsWith("error: ")).map((l) => `${l}\n`).join("");
    if (r.status !== 2 || stderr !== want) fail(`validate 45 MB of [{},…]: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    // 150 MB, or what --peak-mb says (AddressSanitizer's shadow and quarantine add
    // about half again); either is far below the 1.24 GB the tree would take.
    const limitKb = (opts.peakMb ?? 150) << 10;
    if (peak && Number(peak[1]) > limitKb) fail(`validate 45 MB of [{},…] took ${peak[1]} KB`);
    console.log(`ok: 45 MB of [{},…] refused${peak ? ` in ${(Number(peak[1]) / 1024).toFixed(0)} MB` : ""}: ${stderr.trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "package-own") {
  // package --add: a teacher's scenario file goes into the package as course/NAME.json, on the
  // path where --lessons puts it (or after it); a hostile one is refused, named, writing nothing.
  const preset = file;
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const site = join(dir, "site");
    writeSite(site, { "index.html": "<!doctype html><title>site</title>",
                      "assets/presets/why_so_tall.json": readFileSync(preset) });
    const mine = JSON.parse(readFileSync(preset, "utf8"));
    mine.title = { en: "Ours", zh: "我们的" };
    mine.values[0][0] = 0.25;  // an edit
    writeFileSync(join(dir, "ours.json"), JSON.stringify(mine));
    const out = join(dir, "course.zip");
    const pack = (...extra) => run(opts.cli, ["package", "--site", site, "--out", out, ...extra]);
    const made = pack("--lessons", "why_so_tall", "--add", join(dir, "ours.json"), "--format", "scorm12");
    if (made.status !== 0) fail(`package --add ours.json: exit ${made.status}: ${made.stderr}`);
    if (!made.stdout.includes("lessons=why_so_tall,ours&own=ours&")) fail(`package --add: launches ${made.stdout}`);
    const read = spawnSync("/usr/bin/python3", ["-c", `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps({"bad": z.testzip(), "names": z.namelist(), "ours": z.read("course/ours.json").decode(),
                  "manifest": z.read("imsmanifest.xml").decode()}))`, out], { encoding: "utf8" });
    if (read.status !== 0) fail(`python3 could not read the package: ${read.stderr}`);
    const z = JSON.parse(read.stdout);
    if (z.bad !== null) fail(`the package's ${z.bad} fails its CRC-32`);
    if (z.ours !== readFileSync(join(dir, "ours.json"), "utf8")) fail("course/ours.json is not the file given");
    if (!z.manifest.includes('<file href="course/ours.json"/>')) fail("the manifest does not list course/ours.json");
    // --lessons places it: first here.
    const placed = pack("--lessons", "ours,why_so_tall", "--add", join(dir, "ours.json"));
    if (placed.status !== 0 || !placed.stdout.includes("lessons=ours,why_so_tall&own=ours&")) fail(`--lessons ours,why_so_tall: ${placed.stdout}${placed.stderr}`);
    rmSync(out);
    const write = (name, text) => { writeFileSync(join(dir, name), text); return join(dir, name); };
    const bad = [
      [["--lessons", "why_so_tall", "--add", write("broken.json", '{"version": 1, "x": [[1, "a"], [0, 1]]}')],
       'error: own[0] ("broken"): x[0][1]: must be a number, got a string'],
      [["--lessons", "why_so_tall", "--add", write("cut.json", '{"version": 1, "x": [[1, 0]')],
       'error: own[0] ("cut"): json: parse error'],
      [["--lessons", "why_so_tall", "--add", write("why_so_tall.json", JSON.stringify(mine))],
       'error: own[0]: "why_so_tall" is a lesson of the playground already; give yours another name'],
      [["--lessons", "why_so_tall", "--add", write("Bad-Name.json", JSON.stringify(mine))],
       `error: --add: ${join(dir, "Bad-Name.json")}: the file's name "Bad-Name" is not a lesson name (1 to 32 of a-z, 0-9 and _)`],
      [["--lessons", "why_so_tall", "--add", write("big.json", " ".repeat((1 << 20) + 1))],
       `error: --add: ${join(dir, "big.json")}: is larger than 1 MB`],
      [["--lessons", "why_so_tall", "--add", write("notes.txt", "{}")],
       `error: --add: ${join(dir, "notes.txt")} is not a .json scenario file`],
      [["--lessons", "why_so_tall", "--add", join(dir, "missing.json")], `error: --add: ${join(dir, "missing.json")}: cannot open (No such file or directory)`],
      [["--add", join(dir, "ours.json")], "error: --add: name the course's lessons with --lessons too"],
      [["--lessons", "why_so_tall", "--add", join(dir, "ours.json"), "--add", join(dir, "ours.json")],
       'error: own[1]: "ours" is given twice'],
    ];
    for (const [extra, want] of bad) {
      const r = pack(...extra);
      if (r.status !== 2 || !r.stderr.startsWith(want) || existsSync(out)) {
        fail(`package ${extra.join(" ")}: exit ${r.status}, wrote ${existsSync(out)}, stderr ${JSON.stringify(r.stderr)}, expected ${want}`);
      }
    }
    console.log(`ok: package --add wrote course/ours.json (${z.names.length} entries) on the path after why_so_tall, ` +
                `or first; ${bad.length} hostile ones refused, naming the file or the field`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "package-site") {
  // package --site: the package holds what the site's site-files.json lists and nothing else of
  // the folder (a dotfile, a zip left there, a file of another build), nor the threaded builds
  // (a platform's page is not cross-origin isolated); each file is deflated from its gzip copy
  // (zlib's, dynamic codes) when that copy is the file's, stored when it is stale; python3's
  // zipfile reads every entry back to the site's bytes. A listed file missing, a listed dotfile
  // or link, and no list at all are refused, naming it.
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const site = join(dir, "site");
    const text = (n, seed) => Array.from({ length: n }, (_, i) => `${seed} ${i % 13} attention; `).join("");
    const files = {
      "index.html": `<!doctype html><meta content="connect-src 'self'">${text(40, "page")}`,
      "assets/presets/why_so_tall.json": readFileSync(file),
      "attention-playground.wasm": Buffer.from(text(3000, "module")),
      "attention-playground-threads.wasm": Buffer.from(text(3000, "threads")),
      "js/stale.js": text(200, "old"),
      "js/unlisted_copy.js": text(200, "unlisted"),
      "icon.bin": Buffer.from([0, 1, 2, 3, 250, 251, 252]),
    };
    writeSite(site, files, { gzip: ["index.html", "assets/presets/why_so_tall.json", "attention-playground.wasm",
                                    "attention-playground-threads.wasm", "js/stale.js"] });
    writeFileSync(join(site, "js/stale.js"), text(200, "new"));  // edited after its copy was made
    files["js/stale.js"] = text(200, "new");
    // A copy the list does not name is not taken (the page would not fetch it).
    writeFileSync(join(site, "js/unlisted_copy.js.gz"), gzipSync(files["js/unlisted_copy.js"]));
    // Strays: none is listed, so none goes in.
    const strays = [".env", ".git/config", "old-course.zip", "notes.txt", "js/.hidden.js", "stray.js.gz"];
    for (const f of strays) {
      mkdirSync(dirname(join(site, f)), { recursive: true });
      writeFileSync(join(site, f), "SECRET=1\n");
    }
    const out = join(dir, "course.zip");
    const pack = (...extra) => run(opts.cli, ["package", "--site", site, "--out", out, ...extra]);
    const made = pack("--lessons", "why_so_tall");
    if (made.status !== 0) fail(`package: exit ${made.status}: ${made.stderr}`);
    const entries = readZip(out);
    const names = entries.map((e) => e.name);
    const want = ["imsmanifest.xml", "index.html", "assets/presets/why_so_tall.json", "attention-playground.wasm",
                  "js/stale.js", "js/unlisted_copy.js", "icon.bin", "site-files.json"];
    if (names.join() !== want.join()) fail(`the package holds ${names.join(", ")}, not ${want.join(", ")}`);
    const deflated = ["index.html", "assets/presets/why_so_tall.json", "attention-playground.wasm"];
    for (const e of entries.slice(1)) {
      const bytes = e.name === "site-files.json" ? readFileSync(join(site, e.name)) : Buffer.from(files[e.name]);
      if (!e.bytes.equals(bytes)) fail(`${e.name}: its bytes in the package are not the site's`);
      const method = deflated.includes(e.name) ? 8 : 0;
      if (e.method !== method || e.needed !== (method === 8 ? 20 : 10)) {
        fail(`${e.name}: method ${e.method}, version ${e.needed}; expected ${method}`);
      }
    }
    const manifest = entries[0].bytes.toString();
    const hrefs = [...manifest.matchAll(/<file href="([^"]*)"/g)].map((m) => m[1]);
    if (hrefs.join() !== want.slice(1).join()) fail(`the manifest lists ${hrefs.join(", ")}`);
    // Refused, naming the file, writing nothing.
    const bad = [];
    const refuse = (what, list, want, setup = () => {}, gzip = []) => {
      writeSite(site, files, { list, gzip });
      setup();
      rmSync(out, { force: true });
      const r = pack("--lessons", "why_so_tall");
      if (r.status !== 2 || r.stderr !== `${want}\n` || existsSync(out)) {
        fail(`${what}: exit ${r.status}, wrote ${existsSync(out)}, stderr ${JSON.stringify(r.stderr)}, expected ${want}`);
      }
      bad.push(what);
    };
    const listed = [...Object.keys(files), "site-files.json"];
    refuse("a listed file missing", [...listed, "js/gone.js"],
           `error: --site: site-files.json lists js/gone.js, which ${site} does not have (No such file or directory)`);
    refuse("a listed gzip copy missing", listed,
           `error: --site: site-files.json lists a gzip copy of icon.bin, which ${site} does not have (No such file or directory)`,
           () => rmSync(join(site, "icon.bin.gz")), ["icon.bin"]);
    refuse("a listed dotfile", [...listed, ".env"], `error: --site: ${join(site, "site-files.json")}: files[8] ".env" ` +
           "is not a file's path in the site (relative, no '.' or '..' part, no dotfile)");
    refuse("a listed path out of the site", [...listed, "../secret"], `error: --site: ${join(site, "site-files.json")}: ` +
           "files[8] \"../secret\" is not a file's path in the site (relative, no '.' or '..' part, no dotfile)");
    refuse("a listed link", [...listed, "js/link.js"],
           `error: --site: ${join(site, "js/link.js")}: is not a regular file (a symbolic link)`,
           () => symlinkSync(join(site, ".env"), join(site, "js/link.js")));
    refuse("no list", listed, `error: --site: ${site} has no site-files.json (the list of the site's files the build ` +
           "writes; build the site again)", () => rmSync(join(site, "site-files.json")));
    console.log(`ok: package --site holds the ${names.length - 1} listed files (${deflated.length} deflated from ` +
                `zlib's gzip copies; stored: a stale copy's file, one whose copy is not listed), none of ` +
                `${strays.length} strays nor the threaded build; refused: ${bad.join(", ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "package-inputs") {
  // package --add takes a regular file of at most 1 MB and reads no more: a FIFO is refused at
  // once (not waited on), a directory or a device too, and a 95 MB (sparse) file without
  // being read; --out may not be an input (an --add file, however spelt or linked, or anything
  // inside --site), and the input is left as it was.
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const site = join(dir, "site");
    writeSite(site, { "index.html": "<!doctype html><title>site</title>",
                      "assets/presets/why_so_tall.json": readFileSync(file) });
    const mine = join(dir, "mine.json");
    writeFileSync(mine, readFileSync(file));
    const out = join(dir, "course.zip");
    const refused = [];
    const refuse = (what, args, want, { ms = 5000 } = {}) => {
      const t0 = Date.now();
      const r = spawnSync(opts.cli[0], [...opts.cli.slice(1), "package", "--site", site, ...args],
                          { encoding: "utf8", timeout: 20000 });
      const took = Date.now() - t0;
      if (r.error) fail(`${what}: ${r.error.message} (after ${took} ms)`);
      if (r.status !== 2 || r.stderr !== `${want}\n`) {
        fail(`${what}: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}, expected ${want}`);
      }
      if (took > ms) fail(`${what}: took ${took} ms`);
      refused.push(`${what} (${took} ms)`);
    };
    const add = (path) => ["--out", out, "--lessons", "why_so_tall", "--add", path];
    const fifo = join(dir, "fifo.json");
    if (spawnSync("mkfifo", [fifo]).status === 0) {
      refuse("a FIFO", add(fifo), `error: --add: ${fifo}: is not a regular file (a FIFO)`, { ms: 3000 });
    }
    mkdirSync(join(dir, "folder.json"));
    refuse("a directory", add(join(dir, "folder.json")),
           `error: --add: ${join(dir, "folder.json")}: is not a regular file (a directory)`);
    if (existsSync("/dev/zero")) {
      symlinkSync("/dev/zero", join(dir, "zero.json"));
      refuse("a device", add(join(dir, "zero.json")), `error: --add: ${join(dir, "zero.json")}: is not a regular file (a device)`);
    }
    // 95 MB that take no disk: refused from its size, before a byte is read (time and peak
    // memory measured where /usr/bin/time is, for the native CLI).
    const sparse = join(dir, "sparse.json");
    writeFileSync(sparse, "");
    truncateSync(sparse, 95 << 20);
    const wantSparse = `error: --add: ${sparse}: is larger than 1 MB`;
    refuse("a 95 MB file", add(sparse), wantSparse);
    let measured = "";
    if (existsSync("/usr/bin/time") && !opts.cli[0].endsWith("node")) {
      const r = spawnSync("/usr/bin/time", ["-f", "took %e s, peak %M KB", ...opts.cli, "package", "--site", site,
                                            ...add(sparse)], { encoding: "utf8" });
      const m = /took ([\d.]+) s, peak (\d+) KB/.exec(r.stderr);
      if (!m || !r.stderr.startsWith(wantSparse)) fail(`a 95 MB file under /usr/bin/time: ${r.stderr}`);
      if (Number(m[1]) > 1 || Number(m[2]) > 32 * 1024) fail(`a 95 MB file was refused in ${m[1]} s, ${m[2]} KB`);
      measured = `: ${m[0]}`;
    }
    // --out an input: the same file, another spelling, a hard link; or inside the site.
    const before = readFileSync(mine);
    const other = join(dir, "site", "..", "mine.json");
    linkSync(mine, join(dir, "hard.zip"));
    refuse("--out the --add file", ["--out", mine, "--lessons", "why_so_tall", "--add", mine],
           `error: --out: ${mine} is the --add file ${mine}; write the package elsewhere`);
    refuse("--out the --add file spelt otherwise", ["--out", other, "--lessons", "why_so_tall", "--add", mine],
           `error: --out: ${other} is the --add file ${mine}; write the package elsewhere`);
    refuse("--out a hard link to the --add file", ["--out", join(dir, "hard.zip"), "--lessons", "why_so_tall", "--add", mine],
           `error: --out: ${join(dir, "hard.zip")} is the --add file ${mine}; write the package elsewhere`);
    refuse("--out a file of the site", ["--out", join(site, "index.html")],
           `error: --out: ${join(site, "index.html")} is inside --site ${site}; write the package elsewhere`);
    refuse("--out a new file in the site", ["--out", join(site, "course.zip")],
           `error: --out: ${join(site, "course.zip")} is inside --site ${site}; write the package elsewhere`);
    if (!readFileSync(mine).equals(before)) fail("the --add file changed");
    if (existsSync(join(site, "course.zip")) || existsSync(out)) fail("a refused package was written");
    console.log(`ok: package refused ${refused.join(", ")}${measured}; the --add file unchanged`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (mode === "package-size") {
  // The staged site's package, in each format, with every lesson: at most 4 MB (course
  // platforms' upload limits are often 2 to 20 MB), read back by python3's zipfile, the
  // single-thread builds in and deflated, the threaded ones out.
  const site = file;
  const dir = mkdtempSync(join(tmpdir(), "ap-cli-"));
  try {
    const sizes = [];
    for (const format of ["scorm2004", "scorm12", "cmi5"]) {
      const out = join(dir, `${format}.zip`);
      const r = run(opts.cli, ["package", "--site", site, "--out", out, "--format", format]);
      if (r.status !== 0) fail(`package --format ${format}: exit ${r.status}: ${r.stderr}`);
      const bytes = readFileSync(out).length;
      if (bytes > 4e6) fail(`the ${format} package is ${bytes} bytes, more than 4 MB`);
      const entries = readZip(out);
      for (const build of ["attention-playground.wasm", "attention-playground-relaxed.wasm"]) {
        const e = entries.find((x) => x.name === build);
        if (!e || e.method !== 8) fail(`the ${format} package's ${build} is ${e ? "stored" : "missing"}`);
      }
      const threads = entries.filter((e) => e.name.includes("-threads"));
      if (threads.length) fail(`the ${format} package holds ${threads.map((e) => e.name).join(", ")}`);
      sizes.push(`${format} ${bytes} bytes (${entries.length} entries)`);
    }
    console.log(`ok: the site's packages: ${sizes.join(", ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  fail(`unknown mode ${mode}`);
}
