// Writes FILE.br (brotli, quality 11) and FILE.gz (gzip, level 9) beside each compressible
// file of the built site, where they are smaller, so that scripts/serve.mjs (or any static
// host that serves precompressed files) sends the site compressed. Node's zlib: no
// dependencies. The files are compressed side by side on zlib's thread pool (brotli's quality
// 11 over the site's 16 MiB took 34 s on one core).
//
// The gzip copies are also what a course package is made of (its entries deflated from them,
// scenario::write_zip): the files that have one are listed in DIR/site-files.json's "gzip"
// (scripts/stamp_sw.mjs writes the list before), so that the page fetches those copies and no
// other. site-files.json itself is compressed last, after that, and is not in its own list.
//
//   node scripts/precompress.mjs DIR
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".wasm", ".ttf",
                                     ".svg", ".txt", ".webmanifest"]);

const dir = process.argv[2];
if (!dir) {
  console.error("usage: precompress.mjs DIR");
  process.exit(2);
}

const SITE_FILES = join(dir, "site-files.json");
let raw = 0, br = 0, gz = 0, files = 0;
const work = [];
const gzipped = new Set();  // the files given a .gz copy by this run
function walk(d) {
  for (const entry of readdirSync(d, { withFileTypes: true })) {
    const path = join(d, entry.name);
    if (entry.isDirectory()) {
      walk(path);
      continue;
    }
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(entry.name)) || path === SITE_FILES) continue;
    work.push(compress(path));
  }
}
async function compress(path) {
  const bytes = readFileSync(path);
  const sizes = { br: bytes.length, gz: bytes.length };
  const [brData, gzData] = await Promise.all([
    brotliAsync(bytes, { params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    gzipAsync(bytes, { level: 9 }),
  ]);
  for (const [ext, data] of [["br", brData], ["gz", gzData]]) {
    const out = `${path}.${ext}`;
    if (data.length < bytes.length) {
      writeFileSync(out, data);
      sizes[ext] = data.length;
      if (ext === "gz") gzipped.add(path);
    } else {
      try { unlinkSync(out); } catch { /* none */ }
    }
  }
  raw += bytes.length;
  br += sizes.br;
  gz += sizes.gz;
  ++files;
}
walk(dir);
await Promise.all(work);
if (existsSync(SITE_FILES)) {
  const list = JSON.parse(readFileSync(SITE_FILES, "utf8"));
  if (Array.isArray(list?.files)) {
    list.gzip = list.files.filter((f) => gzipped.has(join(dir, f)));
    writeFileSync(SITE_FILES, `${JSON.stringify(list)}\n`);
  }
}
if (existsSync(SITE_FILES)) await compress(SITE_FILES);
const mib = (n) => (n / 1048576).toFixed(2);
console.log(`precompressed ${files} files: ${mib(raw)} MiB raw, ${mib(gz)} MiB gzip, ${mib(br)} MiB brotli`);
