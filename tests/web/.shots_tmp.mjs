import { launchChromium } from "./browser.mjs";
import { startSiteServer } from "./harness.mjs";
const { child, url } = await startSiteServer(process.argv[2]);
const browser = await launchChromium();
const sizes = [[1440, 900], [800, 600], [390, 844]];
try {
  for (const lang of ["en", "zh"]) {
    for (const [w, h] of sizes) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, reducedMotion: "reduce" });
      const page = await ctx.newPage();
      const ready = () => page.waitForFunction(() => window.attentionPlayground?.isReady, null, { timeout: 60000 });
      const frames = (n = 6) => page.evaluate((n) => new Promise((r) => { let k = 0; const f = () => (++k >= n ? r() : requestAnimationFrame(f)); requestAnimationFrame(f); }), n);
      const ap = (f, a) => page.evaluate(f, a);
      if (process.env.SKIP1) { } else {
      // 1. learned_induction trained from Reset, large loss plot on.
      await page.goto(`${url}?preset=learned_induction&lang=${lang}`); await ready();
      await ap(() => { const a = window.attentionPlayground; a.setTraining({ speed: "fast" }); });
      await ap(() => { const a = window.attentionPlayground; return a.train(0); });
      // Reset through the table-view control the page offers; then 600 steps.
      await ap(async () => { const a = window.attentionPlayground; document.getElementById("table-toggle").click(); });
      await frames();
      await page.click("#a11y-control-train_reset").catch(() => {});
      await page.click("#a11y-control-train").catch(() => {});
      await page.waitForFunction(() => window.attentionPlayground.getTraining().finished, null, { timeout: 90000 }).catch(() => {});
      await page.click("#a11y-control-loss_plot_large").catch(() => {});
      await ap(() => document.getElementById("table-toggle").click());
      await frames(10);
      await page.screenshot({ path: `/tmp/shots2/induction-large-${lang}-${w}.png` });
      }
      // 2. learned_bahdanau after Random start + 10 steps: the unfit question, at step 5.
      await page.goto(`${url}?preset=learned_bahdanau&lang=${lang}&step=4`); await ready();
      await frames(4);
      await ap(() => window.attentionPlayground.items());
      await frames(4);
      const tabs = await ap(() => window.attentionPlayground.items());
      const tab = tabs.find((i) => i.tab && (i.label === "Decoder" || i.label === "解码器"));
      if (tab) { await page.mouse.click((tab.x0 + tab.x1) / 2, (tab.y0 + tab.y1) / 2); await frames(6); }
      const items = await ap(() => window.attentionPlayground.items());
      const random = items.find((i) => i.id.endsWith("###decoder_random"));
      if (random) { await page.mouse.click((random.x0 + random.x1) / 2, (random.y0 + random.y1) / 2); await frames(6); }
      else console.log("no random", lang, w);
      await ap(() => window.attentionPlayground.train(10));
      await frames(10);
      const q = await ap(() => window.attentionPlayground.getQuiz());
      console.log(lang, w, JSON.stringify(q.map((x) => [x.fits, x.unfit?.slice(0, 60)])));
      await page.screenshot({ path: `/tmp/shots2/bahdanau-unfit-${lang}-${w}.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  child.kill();
}
