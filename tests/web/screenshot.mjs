// Takes a screenshot of a page in Debian's headless Chromium, for people to look at.
//
//   node tests/web/screenshot.mjs URL OUT.png [WIDTHxHEIGHT] [--wait-ms N] [--eval JS]
import { launchChromium } from "./browser.mjs";

const [url, out, size = "1280x800"] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const waitIndex = process.argv.indexOf("--wait-ms");
const waitMs = waitIndex > 0 ? Number(process.argv[waitIndex + 1]) : 1500;
const [width, height] = size.split("x").map(Number);

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width, height } });
page.on("console", (m) => console.log(`[console.${m.type()}] ${m.text()}`));
page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
await page.goto(url);
await page.waitForTimeout(waitMs);
await page.screenshot({ path: out });
await browser.close();
console.log(`wrote ${out}`);
