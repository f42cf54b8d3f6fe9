// Writes FILE.br (brotli, quality 11) and FILE.gz (gzip, level 9) beside each compressible
// file of the built site, where they are smaller, so that scripts/serve.mjs (or any static
// host that serves precompressed files) sends the site compressed. Node's zlib: no
// dependencies.
//
//   node scripts/precompress.mjs DIR
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".wasm", ".ttf",
                                     ".svg", ".txt", ".webmanifest"]);

const dir = process.argv[2];
if (!dir) {
  console.error("usage: precompress.mjs DIR");
  process.exit(2);
}

let raw = 0, br = 0, gz = 0, files = 0;
function walk(d) {
  for (const entry of readdirSync(d, { withFileTypes: true })) {
    const path = join(d, entry.name);
    if (entry.isDirectory()) {
      walk(path);
      continue;
    }
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(entry.name))) continue;
    const bytes = readFileSync(path);
    const sizes = { br: bytes.length, gz: bytes.length };
    for (const [ext, data] of [
      ["br", brotliCompressSync(bytes, { params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })],
      ["gz", gzipSync(bytes, { level: 9 })],
    ]) {
      const out = `${path}.${ext}`;
      if (data.length < bytes.length) {
        writeFileSync(out, data);
        sizes[ext] = data.length;
      } else {
        try { unlinkSync(out); } catch { /* none */ }
      }
    }
    raw += bytes.length;
    br += sizes.br;
    gz += sizes.gz;
    ++files;
  }
}
walk(dir);
const mib = (n) => (n / 1048576).toFixed(2);
console.log(`precompressed ${files} files: ${mib(raw)} MiB raw, ${mib(gz)} MiB gzip, ${mib(br)} MiB brotli`);
