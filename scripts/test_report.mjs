// Where the test command's time went: each phase (setup, each build, each suite) with its
// minutes, and the slowest tests with their seconds, read from what scripts/test.sh leaves in
// its log folder: phases.tsv (name, lane, start and end in seconds since the command began,
// exit status) and one JUnit file per ctest run (ctest --output-junit).
//
//   node scripts/test_report.mjs LOG_DIR [--slowest N]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const dir = args[0];
const slowestAt = args.indexOf("--slowest");
const slowest = slowestAt >= 0 ? Number(args[slowestAt + 1]) : 20;
if (!dir || !existsSync(dir)) {
  console.error(`test_report: no log folder "${dir ?? ""}"`);
  process.exit(2);
}

const clock = (s) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, "0")}`;
const pad = (text, n) => String(text).padEnd(n);

const phasesFile = join(dir, "phases.tsv");
const phases = existsSync(phasesFile)
  ? readFileSync(phasesFile, "utf8").split("\n").filter(Boolean).map((line) => {
    const [name, lane, start, end, status] = line.split("\t");
    return { name, lane, start: Number(start), end: Number(end), status: Number(status) };
  })
  : [];

// The JUnit files ctest writes: <testcase name="..." time="..." status="run|fail|...">.
const unescape = (s) => s.replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&lt;/g, "<")
  .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const tests = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".xml")).sort()) {
  const suite = file.replace(/\.xml$/, "");
  const xml = readFileSync(join(dir, file), "utf8");
  for (const m of xml.matchAll(/<testcase name="([^"]*)"[^>]*? time="([^"]*)" status="([^"]*)"/g)) {
    tests.push({ suite, name: unescape(m[1]), seconds: Number(m[2]), status: m[3] });
  }
}

console.log("\n== where the time went");
if (phases.length) {
  const width = Math.max(...phases.map((p) => p.name.length), 5) + 2;
  console.log(`${pad("phase", width)}${pad("lane", 10)}${pad("from", 8)}${pad("to", 8)}${pad("took", 8)}result`);
  for (const p of phases) {
    console.log(`${pad(p.name, width)}${pad(p.lane, 10)}${pad(clock(p.start), 8)}${pad(clock(p.end), 8)}` +
                `${pad(clock(p.end - p.start), 8)}${p.status === 0 ? "ok" : `FAILED (${p.status})`}`);
  }
  const end = Math.max(...phases.map((p) => p.end));
  console.log(`the whole command: ${clock(end)} (${end} s)`);
}
const bySuite = new Map();
for (const t of tests) {
  const s = bySuite.get(t.suite) ?? { n: 0, seconds: 0, failed: 0 };
  s.n += 1;
  s.seconds += t.seconds;
  if (t.status === "fail") s.failed += 1;
  bySuite.set(t.suite, s);
}
if (bySuite.size) {
  console.log("\n== tests per suite (seconds summed over the tests, which run side by side)");
  for (const [suite, s] of bySuite) {
    console.log(`${pad(suite, 24)}${pad(`${s.n} tests`, 12)}${pad(`${Math.round(s.seconds)} s`, 10)}` +
                `${s.failed ? `${s.failed} failed` : ""}`);
  }
}
if (tests.length) {
  console.log(`\n== the ${Math.min(slowest, tests.length)} slowest tests`);
  for (const t of [...tests].sort((a, b) => b.seconds - a.seconds).slice(0, slowest)) {
    console.log(`${t.seconds.toFixed(1).padStart(7)} s  ${t.name}${t.status === "fail" ? "  (FAILED)" : ""}`);
  }
}
