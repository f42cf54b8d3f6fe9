// Shared by the browser checks (the runners of page.mjs, embed_test.mjs, ...), the CLI checks and
// bench/browser.mjs: failures that stop a check, "ok" lines, the one comparer of traces, and
// the site served by scripts/serve.mjs on a free port.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./browser.mjs";

const SERVE = fileURLToPath(new URL("../../scripts/serve.mjs", import.meta.url));

// A failed assertion: the check stops and prints "FAIL: <check>: <message>".
export class CheckFailure extends Error {}

export function fail(message) {
  throw new CheckFailure(message);
}

export function ok(message) {
  console.log(`ok - ${message}`);
}

// Collects a page's console errors, uncaught errors and a crash in page.problems, which the
// checks fail on.
export function watchProblems(page) {
  page.problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") page.problems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => page.problems.push(`page error: ${e.message}`));
  page.on("crash", () => page.problems.push("the page crashed"));
  return page;
}

// Starts scripts/serve.mjs for `root` on a free loopback port; resolves with the child process
// and the site's URL, which ends with "/". isolate: with COOP and COEP (as serve.mjs sends them
// unless --no-isolate); without, the page runs the build without threads.
export function startSiteServer(root, { isolate = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVE, "--root", root, "--port", "0", "--host", "127.0.0.1",
                                           ...(isolate ? [] : ["--no-isolate"])],
                        { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve.mjs did not start: ${out}`)), 10000);
    child.on("exit", (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      out += text;
      const m = /Attention Playground: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1].replace(/\/?$/, "/") });
      }
    });
  });
}

// Compares two JSON values (traces, usually): every number of `got` within
// tolerance · max(1, |ref|) of `ref` (absolute up to 1, relative above), every other value
// equal, arrays of the same length and objects with the same keys. Returns
// {problem, worst, path, numbers}: `problem` is "" or one line naming the path and both values
// ("trace.heads[0].weights[0][1][2]: 0.25, the CLI has 0.2500024 (difference 2.4e-6)"), and
// `worst` the largest scaled difference seen, at `path`. A stack's layers above the first and its
// logits are compared relative to the largest magnitude of their matrix (at least 1), not the
// cell's: they read a stream the float32 core rounded, and their scores are sums of terms far
// larger than themselves (learned_induction's layer 2: -0.5609 from terms of ~30, 1.3e-5 apart
// between the SIMD page and the native CLI), as tests/scenario/export_check.py does.
export function compareJson(got, ref, { tolerance = 1e-5, path = "", refName = "the reference" } = {}) {
  const out = { problem: "", worst: 0, path, numbers: 0 };
  const show = (v) => {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 80 ? `${s.slice(0, 80)}…` : s;
  };
  const scales = new Map();  // a matrix's path → its largest magnitude
  const scaleOf = (p) => {
    const m = /^(.*(?:\.layers\[[1-9]\d*\]\..*|\.logits)\[\d+\])\[\d+\]\[\d+\]$/.exec(p);
    return m ? scales.get(m[1]) ?? 1 : 1;
  };
  const walk = (g, r, p) => {
    if (out.problem) return;
    if (Array.isArray(r) && r.length && Array.isArray(r[0]) && typeof r[0][0] === "number") {
      scales.set(p, Math.max(1, ...r.flat().filter(Number.isFinite).map(Math.abs)));
    }
    if (typeof r === "number") {
      if (typeof g !== "number") {
        out.problem = `${p}: ${show(g)}, ${refName} has ${r}`;
        return;
      }
      const diff = Math.abs(g - r) / Math.max(1, Math.abs(r), scaleOf(p));
      ++out.numbers;
      if (!(diff <= tolerance)) out.problem = `${p}: ${g}, ${refName} has ${r} (difference ${diff})`;
      else if (diff > out.worst) Object.assign(out, { worst: diff, path: p });
    } else if (Array.isArray(r)) {
      if (!Array.isArray(g) || g.length !== r.length) {
        out.problem = `${p}: ${Array.isArray(g) ? `${g.length} entries` : show(g)}, ${refName} has ${r.length}`;
        return;
      }
      r.forEach((v, i) => walk(g[i], v, `${p}[${i}]`));
    } else if (r !== null && typeof r === "object") {
      if (g === null || typeof g !== "object" || Array.isArray(g)) {
        out.problem = `${p}: ${show(g)} is not an object`;
        return;
      }
      const extra = Object.keys(g).filter((k) => !(k in r));
      if (extra.length) {
        out.problem = `${p}: has ${extra.join(", ")}, which ${refName} does not`;
        return;
      }
      for (const k of Object.keys(r)) {
        if (!(k in g)) out.problem = `${p}.${k} is missing`;
        walk(g[k], r[k], `${p}.${k}`);
      }
    } else if (g !== r) {
      out.problem = `${p}: ${show(g)}, ${refName} has ${show(r)}`;
    }
  };
  walk(got, ref, path);
  return out;
}

// The main of a browser check tool:
//
//   node TOOL.mjs --site DIR [--OPTION VALUE]... CHECK... | all
//
// serves the site (startSiteServer), launches one Chromium, and runs every named check in
// turn, each as run(name, {browser, url, opts}) bounded by a watchdog: it prints "ok - ..." lines
// (the check's own), "FAIL: NAME: message" for a check that fails (the others still run) and
// "# NAME: N ms"; the exit status is 1 if any failed. `options` names the --OPTIONs the tool
// takes, with their defaults.
// `--list` prints the checks, one a line: name, title and the seconds a test runner should
// allow (the watchdog's limit and a margin for the browser's start), tab-separated.
// tests/web/CMakeLists.txt makes a ctest of each line, so that the checks are listed once.
// `titles` names a check in the test list (its name by default).
export async function runChecks(checks, { options = {}, run, checkMs = 110000, titles = {} }) {
  const limitOf = (name) => (typeof checkMs === "function" ? checkMs(name) : checkMs);  // per check, or one
  if (process.argv.includes("--list")) {
    for (const name of Object.keys(checks)) {
      console.log(`${name}\t${titles[name] ?? name}\t${Math.ceil(limitOf(name) / 1000) + 30}`);
    }
    process.exit(0);
  }
  let server = null, browser = null, watchdog = null, status = 0;
  const arm = (name) => {
    clearTimeout(watchdog);
    const limit = limitOf(name);
    watchdog = setTimeout(() => {
      console.error(`FAIL: ${name} did not finish within ${limit / 1000} s`);
      server?.child.kill();
      process.exit(1);
    }, limit);
  };
  try {
    arm("starting");
    const opts = { ...options, checks: [] };
    const argv = process.argv.slice(2);
    for (let i = 0; i < argv.length; ++i) {
      const name = argv[i].startsWith("--") ? argv[i].slice(2) : null;
      if (name === "site" || (name !== null && name in options)) opts[name] = argv[++i];
      else if (name !== null) fail(`unknown option ${argv[i]}`);
      else opts.checks.push(argv[i]);
    }
    if (!opts.site || !existsSync(join(opts.site, "index.html"))) {
      fail(`--site must name the staged site (no index.html in ${opts.site})`);
    }
    const names = opts.checks.includes("all") ? Object.keys(checks) : opts.checks;
    if (names.length === 0) fail(`name a check: ${Object.keys(checks).join(", ")} or all`);
    for (const name of names) if (!checks[name]) fail(`unknown check "${name}"`);
    server = await startSiteServer(opts.site);
    browser = await launchChromium();
    for (const name of names) {
      arm(name);
      const t0 = Date.now();
      try {
        await run(name, { browser, url: server.url, opts });
      } catch (e) {
        console.error(e instanceof CheckFailure ? `FAIL: ${name}: ${e.message}` : `FAIL: ${name}: ${e.stack ?? e}`);
        status = 1;
      }
      for (const context of browser.contexts()) await context.close().catch(() => {});
      console.log(`# ${name}: ${Date.now() - t0} ms`);
    }
  } catch (e) {
    console.error(e instanceof CheckFailure ? `FAIL: ${e.message}` : `FAIL: ${e.stack ?? e}`);
    status = 1;
  } finally {
    await browser?.close().catch(() => {});
    server?.child.kill();
    clearTimeout(watchdog);
  }
  process.exit(status);
}
