// Screenshots of every step of a preset in headless Chromium, for people to look at.
//
//   node tests/web/shots.mjs URL OUT_DIR [--preset NAME] [--size WxH] [--lang zh]
import { mkdirSync } from "node:fs";
import { launchChromium } from "./browser.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const [url, out] = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
const [width, height] = option("--size", "1400x900").split("x").map(Number);
mkdirSync(out, { recursive: true });

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width, height } });
page.on("console", (m) => { if (m.type() === "error") console.log(`[console.error] ${m.text()}`); });
page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
await page.goto(url);
await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 30000 });
const preset = option("--preset", null);
if (preset) await page.evaluate((p) => window.attentionPlayground.loadPreset(p), preset);
const lang = option("--lang", null);
if (lang) await page.evaluate((l) => window.attentionPlayground.setLanguage(l), lang);
for (let step = 0; step < 8; ++step) {
  await page.evaluate((s) => window.attentionPlayground.setStep(s), step);
  await page.waitForTimeout(lang ? 1500 : 400);
  const file = `${out}/step${step}.png`;
  await page.screenshot({ path: file });
  console.log(`wrote ${file}`);
}
await browser.close();
