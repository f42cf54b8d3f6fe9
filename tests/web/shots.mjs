// Screenshots of the playground in headless Chromium, for people to look at (and for the
// README's picture): any size, either language, any preset and steps, a hovered cell.
//
//   node tests/web/shots.mjs URL OUT [--size WxH] [--dpr N] [--lang en|zh] [--preset NAME]
//        [--steps 0,5 | all] [--hover ID:ROW,COL] [--click LABEL]... [--eval JS]...
//
// OUT is a .png file (one step) or a folder (step<K>.png per step). --hover points the mouse
// at cell (ROW, COL), 0-based, of the heatmap ID that layout() reports ("main" is the step's
// matrix). --click clicks the control the canvas draws with that label (a tab, a button).
// --eval runs JS in the page after the rest is set (repeatable).
import { mkdirSync } from "node:fs";
import { launchChromium } from "./browser.mjs";

const args = process.argv.slice(2);
const options = (name) => args.flatMap((a, i) => (args[i - 1] === name ? [a] : []));
const option = (name, fallback) => options(name)[0] ?? fallback;
const [url, out] = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
if (!url || !out) {
  console.error("usage: shots.mjs URL OUT [--size WxH] [--dpr N] [--lang zh] [--preset NAME] " +
                "[--steps 0,5|all] [--hover ID:ROW,COL] [--eval JS]");
  process.exit(2);
}
const [width, height] = option("--size", "1400x900").split("x").map(Number);
const lang = option("--lang", null);
const stepsArg = option("--steps", out.endsWith(".png") ? null : "all");
const steps = stepsArg === "all" ? [0, 1, 2, 3, 4, 5, 6, 7]
            : stepsArg === null ? [null] : stepsArg.split(",").map(Number);
if (!out.endsWith(".png")) mkdirSync(out, { recursive: true });

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width, height },
                                     deviceScaleFactor: Number(option("--dpr", "1")) });
page.on("console", (m) => { if (m.type() === "error") console.log(`[console.error] ${m.text()}`); });
page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
await page.goto(url);
await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 30000 });
const ap = (fn, arg) => page.evaluate(fn, arg);
const preset = option("--preset", null);
if (preset) await ap((p) => window.attentionPlayground.loadPreset(p), preset);
if (lang) await ap((l) => window.attentionPlayground.setLanguage(l), lang);
// --click LABEL (repeatable): a click where the canvas draws the control reading LABEL.
for (const label of options("--click")) {
  await ap(() => window.attentionPlayground.items());  // starts the record
  await page.waitForTimeout(lang === "zh" ? 1500 : 300);  // the Chinese font, then the layout
  const found = (await ap(() => window.attentionPlayground.items())).filter((i) => i.label === label && !i.text);
  const item = found.find((i) => i.tab) ?? found[0];  // a tab before a word of the same name
  if (!item) throw new Error(`--click: no control "${label}" on screen`);
  await page.mouse.move((item.x0 + item.x1) / 2, (item.y0 + item.y1) / 2);
  await page.waitForTimeout(150);
  await page.mouse.down();
  await page.waitForTimeout(150);
  await page.mouse.up();
  await page.waitForTimeout(300);
}
for (const step of steps) {
  if (step !== null) await ap((s) => window.attentionPlayground.setStep(s), step);
  await page.waitForTimeout(lang === "zh" ? 1500 : 400);
  const hover = option("--hover", null);
  if (hover) {
    const [id, cell] = hover.split(":");
    const [row, col] = cell.split(",").map(Number);
    const g = (await ap(() => window.attentionPlayground.layout()))[id];
    if (!g) throw new Error(`--hover: no heatmap "${id}" on screen`);
    const x = g.x0 + (col - g.first_col + 0.5) * g.cell_w, y = g.y0 + (row - g.first_row + 0.5) * g.cell;
    await page.mouse.move(x - 20, y);
    await page.mouse.move(x, y, { steps: 4 });
    await page.waitForTimeout(400);
  }
  for (const js of options("--eval")) console.log(String(JSON.stringify(await ap(js))).slice(0, 300));
  const file = out.endsWith(".png") ? out : `${out}/step${step}.png`;
  await page.screenshot({ path: file });
  console.log(`wrote ${file}`);
}
await browser.close();
