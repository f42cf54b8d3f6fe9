// What the screen shows, read back as a person reads it: Debian's tesseract-ocr on a
// screenshot (scripts/setup.sh installs it). The browser checks use it to find a control
// where the canvas draws it and to check that a notice can be read, independently of what
// the app says through its API.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fail } from "./harness.mjs";

function tesseract(png, args) {
  const dir = mkdtempSync(join(tmpdir(), "ap-ocr-"));
  try {
    const file = join(dir, "shot.png");
    writeFileSync(file, png);
    try {
      // One thread: tesseract's OpenMP threads spin against each other (and the browser) on a
      // 2-core machine; a 1440×900 screenshot at twice the pixels took 22 s with its default
      // threads and 4.3 s with one, read the same.
      return execFileSync("tesseract", [file, "-", ...args], {
        encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      });
    } catch (e) {
      fail(`tesseract could not read the screenshot (${e.message}); scripts/setup.sh installs tesseract-ocr`);
    }
    return "";
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The screen's text, lower case, spaces collapsed.
export function readScreen(png) {
  return tesseract(png, ["--psm", "11"]).toLowerCase().replace(/\s+/g, " ");
}

// Every word tesseract finds, with its box in CSS pixels and its line:
// [{text, x0, y0, x1, y1, conf, line}]. `dpr` is the screenshot's device pixels per CSS pixel
// (small UI text reads better when the page is drawn at 2); `lang` "zh" reads Chinese too.
export function screenWords(png, { dpr = 1, lang = "en" } = {}) {
  const tsv = tesseract(png, ["-l", lang === "zh" ? "chi_sim+eng" : "eng", "--psm", "11", "tsv"]);
  const words = [];
  for (const line of tsv.split("\n").slice(1)) {
    const f = line.split("\t");
    if (f.length < 12 || !f[11].trim()) continue;
    const [x, y, w, h] = f.slice(6, 10).map((v) => Number(v) / dpr);
    words.push({ text: f[11].trim(), x0: x, y0: y, x1: x + w, y1: y + h, conf: Number(f[10]),
                 line: f.slice(2, 5).join(".") });
  }
  return words;
}

// The places where `text` is written: a word, or consecutive words of one line that join to
// it (Chinese is read a character or two at a time). Boxes in CSS pixels, top to bottom.
export function findText(words, text) {
  const hits = [];
  const target = text.replace(/\s+/g, "");
  for (let i = 0; i < words.length; ++i) {
    let joined = "";
    for (let j = i; j < words.length && words[j].line === words[i].line; ++j) {
      joined += words[j].text;
      if (joined === target) {
        const part = words.slice(i, j + 1);
        hits.push({ text, x0: Math.min(...part.map((w) => w.x0)), y0: Math.min(...part.map((w) => w.y0)),
                    x1: Math.max(...part.map((w) => w.x1)), y1: Math.max(...part.map((w) => w.y1)) });
        break;
      }
      if (!target.startsWith(joined)) break;
    }
  }
  return hits.sort((a, b) => a.y0 - b.y0);
}

// Waits until the app's notice box holds text containing `words`, then checks that the screen
// shows it (OCR of a screenshot).
export async function noticeOnScreen(page, words, when) {
  try {
    await page.waitForFunction((w) => window.attentionPlayground.stats().notice.includes(w), words,
                               { timeout: 10000, polling: 50 });
  } catch {
    const notice = await page.evaluate(() => window.attentionPlayground.stats().notice);
    fail(`${when}: no notice with "${words}" (the notice is "${notice}")`);
  }
  await page.evaluate(() => window.attentionPlayground.frames(3));  // the notice drawn
  const seen = readScreen(await page.screenshot());
  const want = words.toLowerCase();
  // Tesseract reads most words of a sentence; ask for the distinctive ones.
  const key = want.split(" ").filter((w) => w.length >= 5);
  const found = key.filter((w) => seen.includes(w));
  if (found.length < Math.ceil(key.length * 0.6)) {
    fail(`${when}: the notice "${words}" is not readable on screen (OCR found ${found.join(", ") || "none"} ` +
         `of ${key.join(", ")}; it read: ${seen.slice(0, 300)})`);
  }
  return found;
}
