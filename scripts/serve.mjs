// A static file server for the built site, bound to loopback, with the same
// Content-Security-Policy the pages declare. It sends a file's precompressed copy (FILE.br
// or FILE.gz, written by scripts/precompress.mjs at build time) when the browser accepts
// that encoding and the copy is not older than the file. No dependencies.
//
//   node scripts/serve.mjs [--root DIR] [--port N] [--host 127.0.0.1] [--no-isolate]
//
// Every response carries Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp, which make the page cross-origin isolated: there
// it runs the threaded build (web/app.js); Cross-Origin-Resource-Policy: cross-origin lets an
// isolated course page on another origin embed it. --no-isolate leaves them out, as most
// hosts do: the page then runs a build without threads. (--isolate, the default, is accepted.)
//
// Prints "Attention Playground: http://HOST:PORT/" once listening (PORT 0 picks a free one).
import { createServer } from "node:http";
import { closeSync, constants, createReadStream, fstatSync, openSync, realpathSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
// The real path: a link inside the site that leads out of it is not followed.
const root = realpathSync(option("--root", "build/wasm/site"));
const port = Number(option("--port", "8080"));
const host = option("--host", "127.0.0.1");
const isolation = !args.includes("--no-isolate");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".data": "application/octet-stream",
  ".png": "image/png",
  ".svg": "image/svg+xml; charset=utf-8",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".ttf": "font/ttf",
  ".webmanifest": "application/manifest+json",
};

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

// Opens a regular file for reading, or throws. Never blocks: a FIFO (or any other special
// file) inside the root is refused by its stat before it is opened, and the open itself is
// non-blocking, so that one swapped in between the two is refused by fstat, not waited on:
// opening a FIFO blocks until a writer comes, and with it every request (openSync).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
function openRegular(file) {
  if (!statSync(file).isFile()) throw new Error("not a regular file");
  const fd = openSync(file, OPEN_FLAGS);
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new Error("not a regular file");
  }
  return { fd, stat };
}

// The encodings the request accepts ("br", "gzip"), from its Accept-Encoding header: a coding
// with q=0 is refused.
function accepted(header) {
  const out = new Set();
  for (const part of String(header ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";").map((x) => x.trim());
    const q = params.find((p) => p.startsWith("q="));
    if (name && !(q && Number(q.slice(2)) === 0)) out.add(name);
  }
  return out;
}

// The precompressed copy of `file` to send, opened: {fd, stat, encoding}, or null.
function precompressed(file, stat, req) {
  const accepts = accepted(req.headers["accept-encoding"]);
  for (const [encoding, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
    if (!accepts.has(encoding)) continue;
    try {
      const { fd, stat: s } = openRegular(file + ext);
      if (s.mtimeMs >= stat.mtimeMs) return { fd, stat: s, encoding };
      closeSync(fd);
    } catch {
      // no copy (or not a regular file): the file itself is sent
    }
  }
  return null;
}

const server = createServer((req, res) => {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD" }).end();
    return;
  }
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  } catch {
    res.writeHead(400).end("bad request");
    return;
  }
  // Only regular files inside the root, by their real path (no link leads out of it), never
  // a FIFO, socket or device (openRegular); the size and the bytes come from one open file, so
  // a file replaced during a rebuild is sent whole or not at all.
  let fd = -1;
  try {
    let file = realpathSync(normalize(join(root, path)));
    if (file !== root && !file.startsWith(root + sep)) throw new Error("outside the root");
    if (statSync(file).isDirectory()) {
      file = realpathSync(join(file, "index.html"));
      if (!file.startsWith(root + sep)) throw new Error("outside the root");
    }
    let stat;
    ({ fd, stat } = openRegular(file));
    const headers = {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Content-Security-Policy": CSP,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
      "Vary": "Accept-Encoding",
    };
    if (isolation) {
      headers["Cross-Origin-Opener-Policy"] = "same-origin";
      headers["Cross-Origin-Embedder-Policy"] = "require-corp";
      headers["Cross-Origin-Resource-Policy"] = "cross-origin";
    }
    const packed = precompressed(file, stat, req);
    if (packed) {
      closeSync(fd);
      ({ fd, stat } = packed);
      headers["Content-Encoding"] = packed.encoding;
    }
    // Revalidation: an ETag from the size and time of what is sent, so that a cached copy
    // (a service worker precaching what the page just loaded) costs a 304, not the bytes.
    const etag = `"${stat.size.toString(36)}-${Math.floor(stat.mtimeMs).toString(36)}` +
                 `${headers["Content-Encoding"] ? `-${headers["Content-Encoding"]}` : ""}"`;
    headers.ETag = etag;
    if (String(req.headers["if-none-match"] ?? "").split(",").map((t) => t.trim()).includes(etag)) {
      closeSync(fd);
      fd = -1;
      res.writeHead(304, headers).end();
      return;
    }
    headers["Content-Length"] = stat.size;
    res.writeHead(200, headers);
    if (req.method === "HEAD") {
      closeSync(fd);
      res.end();
      return;
    }
    const stream = createReadStream(null, { fd, start: 0, end: Math.max(0, stat.size - 1) });
    fd = -1;  // the stream closes it
    stream.on("error", () => res.destroy());  // a read error ends the response, not the server
    stream.pipe(res);
  } catch {
    if (fd >= 0) closeSync(fd);
    if (!res.headersSent) res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found");
    else res.destroy();
  }
});

server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.log(`Attention Playground: http://${host}:${actual}/`);
});
