// A small PNG decoder for test screenshots: 8-bit greyscale, RGB, grey+alpha or RGBA,
// non-interlaced, all five scanline filters. Returns RGBA pixels.
//
//   const { width, height, pixels } = decodePng(buffer);  // pixels: Uint8Array, RGBA
import { inflateSync } from "node:zlib";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS = { 0: 1, 2: 3, 4: 2, 6: 4 }; // by colour type

export function decodePng(buffer) {
  const png = Buffer.from(buffer);
  SIGNATURE.forEach((b, i) => {
    if (png[i] !== b) throw new Error("png: not a PNG file (bad signature)");
  });
  let width = 0, height = 0, channels = 0;
  const idat = [];
  for (let pos = 8; pos + 8 <= png.length;) {
    const length = png.readUInt32BE(pos);
    const type = png.toString("latin1", pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colourType, , , interlace] = data.subarray(8, 13);
      channels = CHANNELS[colourType] ?? 0;
      if (depth !== 8 || channels === 0 || interlace !== 0) {
        throw new Error(`png: unsupported format (depth ${depth}, colour type ${colourType}, ` +
                        `interlace ${interlace})`);
      }
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (width === 0 || height === 0 || idat.length === 0) throw new Error("png: no IHDR or IDAT");
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error("png: image data is too short");

  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride, prev = row - stride;
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? out[row + x - channels] : 0;
      const b = y > 0 ? out[prev + x] : 0;
      const c = x >= channels && y > 0 ? out[prev + x - channels] : 0;
      let v = raw[src + x];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) >> 1; break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`png: bad filter ${filter} in row ${y}`);
      }
      out[row + x] = v & 0xff;
    }
  }

  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < width * height; ++i, j += channels) {
    const grey = channels <= 2;
    pixels[4 * i] = out[j];
    pixels[4 * i + 1] = grey ? out[j] : out[j + 1];
    pixels[4 * i + 2] = grey ? out[j] : out[j + 2];
    pixels[4 * i + 3] = channels === 4 ? out[j + 3] : channels === 2 ? out[j + 1] : 255;
  }
  return { width, height, pixels };
}
