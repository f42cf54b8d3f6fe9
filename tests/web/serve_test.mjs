// scripts/serve.mjs as a hostile visitor meets it: it serves the site's files with its
// headers, refuses what is outside the root (also through symbolic links) and what is not a
// regular file (a FIFO too, without waiting on it), and keeps serving after each refusal.
//
//   node tests/web/serve_test.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { CheckFailure, fail, ok, startSiteServer } from "./harness.mjs";

function get(url, path) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => { body += d; });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

// The raw bytes of a response, asking for `encoding` (Accept-Encoding).
function getBytes(url, path, encoding) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { headers: encoding ? { "Accept-Encoding": encoding } : {} },
                        (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

// get(), or a rejection when there is no whole answer within `ms`.
function getWithin(url, path, ms, encoding = null) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`GET ${path} had no answer within ${ms} ms`)), ms);
    getBytes(url, path, encoding).then((r) => { clearTimeout(timer); resolve(r); },
                                       (e) => { clearTimeout(timer); reject(e); });
  });
}

const root = mkdtempSync(join(tmpdir(), "ap-serve-"));
let server = null, status = 0;
try {
  writeFileSync(join(root, "index.html"), "<!doctype html><title>t</title>");
  writeFileSync(join(root, "app.js"), "console.log(1);");
  mkdirSync(join(root, "x.html"));                           // a directory with a file's name
  mkdirSync(join(root, "sub"));                              // a directory without index.html
  symlinkSync("/etc/passwd", join(root, "passwd.txt"));      // a link out of the root
  symlinkSync("/etc", join(root, "etc"));                    // a directory link out of it
  symlinkSync(join(root, "app.js"), join(root, "alias.js"));  // a link inside it
  server = await startSiteServer(root);
  const url = server.url;

  const index = await get(url, "/");
  if (index.status !== 200 || !index.body.includes("<title>t</title>")) fail(`GET / gave ${index.status}`);
  if (!/default-src 'self'/.test(index.headers["content-security-policy"] ?? "")) fail("no CSP on /");
  if (index.headers["content-type"] !== "text/html; charset=utf-8") fail(`/ is ${index.headers["content-type"]}`);
  const js = await get(url, "/alias.js");
  if (js.status !== 200 || js.body !== "console.log(1);") fail(`a link inside the root gave ${js.status}`);
  ok("serve: the site's files are served with their type and the CSP; a link inside the root too");

  for (const path of ["/passwd.txt", "/etc/passwd", "/x.html", "/sub", "/../../etc/passwd",
                      "/%2e%2e/%2e%2e/etc/passwd", "/nope.js"]) {
    const r = await get(url, path);
    if (r.status === 200) fail(`GET ${path} was served: ${r.body.slice(0, 40)}`);
    if (r.body.includes("root:")) fail(`GET ${path} leaked /etc/passwd`);
  }
  const after = await get(url, "/app.js");
  if (after.status !== 200) fail(`the server stopped serving after the refusals (${after.status})`);
  ok("serve: links out of the root, directories and missing files are refused, and the server goes on");

  // A FIFO inside the root (a named pipe, no writer): opening it would block the server, and
  // every request with it. It is refused at once, as its precompressed "copy" is passed over,
  // and a request made meanwhile is answered.
  execFileSync("mkfifo", [join(root, "x")]);
  execFileSync("mkfifo", [join(root, "fifo.js")]);
  writeFileSync(join(root, "piped.js"), "console.log(2);");
  execFileSync("mkfifo", [join(root, "piped.js.br")]);
  const fifoAnswers = await Promise.all([
    getWithin(url, "/x", 3000), getWithin(url, "/fifo.js", 3000), getWithin(url, "/app.js", 3000),
    getWithin(url, "/piped.js", 3000, "br"),
  ]).catch((e) => fail(`a FIFO in the root: ${e.message}`));
  const [fifo, fifoJs, during, piped] = fifoAnswers;
  for (const [path, r] of [["/x", fifo], ["/fifo.js", fifoJs]]) {
    if (r.status !== 404) fail(`GET ${path} (a FIFO) gave ${r.status}, expected 404`);
  }
  if (during.status !== 200 || during.body.toString() !== "console.log(1);") {
    fail(`GET /app.js beside the FIFOs gave ${during.status}`);
  }
  if (piped.status !== 200 || piped.headers["content-encoding"] || piped.body.toString() !== "console.log(2);") {
    fail(`GET /piped.js with a FIFO as its .br gave ${piped.status}, ${piped.headers["content-encoding"] ?? "identity"}`);
  }
  const later = await getWithin(url, "/app.js", 3000).catch((e) => fail(`after the FIFOs: ${e.message}`));
  if (later.status !== 200) fail(`the server stopped serving after the FIFOs (${later.status})`);
  ok("serve: FIFOs in the root are refused (404) at once, a FIFO .br is passed over, and the server goes on");

  // Precompressed copies: sent when accepted and not older than the file.
  const big = "const numbers = [" + Array.from({ length: 2000 }, (_, i) => i % 97).join(", ") + "];\n";
  writeFileSync(join(root, "big.js"), big);
  writeFileSync(join(root, "big.js.br"), brotliCompressSync(Buffer.from(big)));
  writeFileSync(join(root, "big.js.gz"), gzipSync(Buffer.from(big)));
  const seen = [];
  for (const [accept, want] of [["gzip, deflate, br", "br"], ["gzip", "gzip"], ["br;q=0, gzip", "gzip"],
                                ["identity", undefined], [null, undefined]]) {
    const r = await getBytes(url, "/big.js", accept);
    const encoding = r.headers["content-encoding"];
    if (r.status !== 200 || encoding !== want) {
      fail(`Accept-Encoding ${accept}: status ${r.status}, Content-Encoding ${encoding}, expected ${want}`);
    }
    const body = encoding === "br" ? brotliDecompressSync(r.body) : encoding === "gzip" ? gunzipSync(r.body) : r.body;
    if (body.toString() !== big) fail(`Accept-Encoding ${accept}: the body is not the file`);
    if (Number(r.headers["content-length"]) !== r.body.length) fail(`Accept-Encoding ${accept}: wrong Content-Length`);
    if (!/accept-encoding/i.test(r.headers.vary ?? "")) fail(`Accept-Encoding ${accept}: no Vary: Accept-Encoding`);
    seen.push(`${accept ?? "none"} → ${encoding ?? "identity"} (${r.body.length} bytes)`);
  }
  // A copy older than its file (the file was rebuilt) is not sent.
  const old = new Date(Date.now() - 3600e3);
  utimesSync(join(root, "big.js.br"), old, old);
  const stale = await getBytes(url, "/big.js", "br, gzip");
  if (stale.headers["content-encoding"] !== "gzip") {
    fail(`a .br older than its file was sent (${stale.headers["content-encoding"]})`);
  }
  ok(`serve: precompressed copies by Accept-Encoding: ${seen.join("; ")}; a stale .br is passed over`);

  // Revalidation: the ETag of what was sent gives a 304 without the bytes.
  const first = await getBytes(url, "/big.js", "gzip");
  const etag = first.headers.etag;
  if (!etag) fail("no ETag on /big.js");
  const again = await new Promise((resolve, reject) => {
    const req = request(new URL("/big.js", url), { headers: { "Accept-Encoding": "gzip", "If-None-Match": etag } },
                        (res) => { res.resume(); res.on("end", () => resolve(res)); });
    req.on("error", reject);
    req.end();
  });
  if (again.statusCode !== 304) fail(`If-None-Match ${etag} gave ${again.statusCode}, expected 304`);
  const other = await getBytes(url, "/big.js", null);
  if (other.headers.etag === etag) fail("the identity and gzip bodies share one ETag");
  ok(`serve: If-None-Match with the ETag (${etag}) gives 304; each encoding has its own ETag`);

  // Cross-origin isolation: COOP, COEP and CORP by default, none with --no-isolate.
  const ISOLATION = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp",
                      "cross-origin-resource-policy": "cross-origin" };
  for (const [name, value] of Object.entries(ISOLATION)) {
    if (index.headers[name] !== undefined) fail(`--no-isolate sent ${name}: ${index.headers[name]}`);
  }
  const isolated = await startSiteServer(root, { isolate: true });
  try {
    for (const path of ["/", "/app.js"]) {
      const r = await get(isolated.url, path);
      for (const [name, value] of Object.entries(ISOLATION)) {
        if (r.headers[name] !== value) fail(`${path} by default: ${name} is ${r.headers[name]}, expected ${value}`);
      }
    }
  } finally {
    isolated.child.kill();
  }
  ok("serve: COOP same-origin, COEP require-corp and CORP cross-origin by default, none with --no-isolate");
} catch (e) {
  console.error(e instanceof CheckFailure ? `FAIL: ${e.message}` : `FAIL: ${e.stack ?? e}`);
  status = 1;
} finally {
  server?.child.kill();
  rmSync(root, { recursive: true, force: true });
}
process.exit(status);
