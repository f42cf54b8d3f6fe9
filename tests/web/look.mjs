// Opens a page, does a few clicks (x,y) or js:EXPR, and saves a screenshot, for people to look at.
//
//   node tests/web/look.mjs URL OUT.png [X,Y | js:EXPR]...
import { launchChromium } from "./browser.mjs";
const [url, out, ...clicks] = process.argv.slice(2);
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
page.on("console", (m) => { if (m.type() === "error") console.log(`[console.error] ${m.text()}`); });
await page.goto(url);
await page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 30000 });
await page.waitForTimeout(500);
for (const c of clicks) {
  if (c.startsWith("js:")) { console.log(JSON.stringify(await page.evaluate(c.slice(3))).slice(0, 300)); }
  else { const [x, y] = c.split(",").map(Number); await page.mouse.move(x, y); await page.waitForTimeout(100); await page.mouse.down(); await page.waitForTimeout(100); await page.mouse.up(); }
  await page.waitForTimeout(400);
}
await page.screenshot({ path: out });
await browser.close();
