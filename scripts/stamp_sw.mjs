// Writes the build's id (a hash of the site's files) and the list of files to precache into
// DIR/sw.js, so that each build has its own cache and a new build replaces the old one.
//
//   node scripts/stamp_sw.mjs DIR
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: stamp_sw.mjs DIR");
  process.exit(2);
}
function walk(d, into) {
  for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(d, entry.name);
    if (entry.isDirectory()) walk(path, into);
    else if (entry.isFile() && !/\.(br|gz)$/.test(entry.name)) into.push(relative(dir, path).split(sep).join("/"));
  }
  return into;
}
// DIR/site-files.json: the site's files, from which a course package is made (Export → "Course
// package…", web/js/coursepack.js, fetches them; `attention-cli package` reads them from the
// directory, and nothing it does not list): {"files": [every file of the site, itself and sw.js
// too, but not the .br and .gz copies], "gzip": [those with a gzip copy FILE.gz beside them]}.
// scripts/precompress.mjs, which makes the copies after this, fills in "gzip".
const SITE_FILES = "site-files.json";
writeFileSync(join(dir, SITE_FILES), "{}");
// In the order `attention-cli package` once read a directory (by path parts, byte by byte); the
// page's package and the tool's follow the list's order, so they are the same bytes.
const byParts = (a, b) => {
  const p = a.split("/"), q = b.split("/");
  for (let i = 0; i < Math.min(p.length, q.length); ++i) {
    if (p[i] !== q[i]) return Buffer.compare(Buffer.from(p[i]), Buffer.from(q[i]));
  }
  return p.length - q.length;
};
writeFileSync(join(dir, SITE_FILES), `${JSON.stringify({ files: walk(dir, []).sort(byParts), gzip: [] })}\n`);
// The build's id is a hash of the files' names and bytes, but for sw.js (which it goes into) and
// site-files.json (the names again, and which precompress.mjs rewrites).
const files = walk(dir, []).filter((f) => f !== "sw.js").map((f) => join(dir, f));
const hashed = files.filter((f) => relative(dir, f) !== SITE_FILES);
const hash = createHash("sha256");
for (const f of hashed) {
  hash.update(relative(dir, f));
  hash.update(readFileSync(f));
}
const build = hash.digest("hex").slice(0, 16);
const all = files.map((f) => relative(dir, f).split(sep).join("/"));
// The page runs one of the app's builds (SIMD128, relaxed SIMD, threads with either kernels,
// web/app.js): the worker keeps the one the page names (its "keep" message), not all four.
const isModule = (u) => /^attention-playground(-relaxed|-threads|-threads-relaxed)?\.(js|wasm)$|^attention-playground-threads(-relaxed)?\.worker\.js$/.test(u);
const urls = all.filter((u) => !isModule(u));
const modules = all.filter(isModule);
const swPath = join(dir, "sw.js");
let sw = readFileSync(swPath, "utf8");
const before = sw;
sw = sw.replace(/^const BUILD = .*;$/m, `const BUILD = ${JSON.stringify(build)};`)
       .replace(/^const FILES = .*;$/m, `const FILES = ${JSON.stringify(urls)};`)
       .replace(/^const MODULES = .*;$/m, `const MODULES = ${JSON.stringify(modules)};`);
if (sw === before) {
  console.error("stamp_sw.mjs: sw.js has no BUILD, FILES and MODULES lines to fill in");
  process.exit(1);
}
writeFileSync(swPath, sw);
console.log(`service worker: build ${build}, ${urls.length} files to precache, ${modules.length} module files to keep on request`);
