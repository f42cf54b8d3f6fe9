// No two labels overlap, at every size a course or a learner uses: every lesson and step, in
// both languages, in headless Chromium (WebGL2 on SwiftShader). No row or column label, axis
// name, legend or button drawn around the heatmaps covers another, a matrix or the hovered
// Export button; the step's matrix shows its numbers, and so does every other one with room.
// The views are laid out with layoutNow (the frames' code without SwiftShader drawing the
// pixels, about a fifth of the time); "layout-now" checks that this is what drawn frames show.
//
//   node tests/web/labels_test.mjs --site DIR CHECK... | all
//
// CHECK is one of the names in CHECKS below, or "all" to run every check in one browser
// (harness.mjs runChecks: "ok - ..." lines, "FAIL: CHECK: ..." for each failed check, exit 1 if
// any failed). Every check also fails on a console error or an uncaught page error (page.mjs
// runPageChecks).
import { fail, ok } from "./harness.mjs";
import { chineseGlyphs, openPage, runPageChecks } from "./page.mjs";

// The sizes a course uses: 640×480 and 800×600 iframes, a phone; a small laptop, a large one.
// One browser check per one or two sizes: each walks every lesson's 8 steps in both languages
// (18 lessons: 10 to 20 s a size here).
const SMALL_SIZES = [[640, 480], [800, 600]];

// The heatmaps of the page's latest layout, by id, after the view is laid out three times at
// once (layoutNow: the frames' own code, the pixels not drawn): the mouse moved or the wheel
// turned before it is in them, as in a drawn frame.
async function laidOut(page) {
  const layout = await page.evaluate(() => window.attentionPlayground.layoutNow(3));
  if (layout.ok === false) fail(`layoutNow: ${layout.error}`);
  const latest = Math.max(...Object.values(layout).map((g) => g.frame));
  return Object.fromEntries(Object.entries(layout).filter(([, g]) => g.frame === latest));
}

// At every course size, in both languages, for every lesson and step: no two texts or
// buttons drawn around the heatmaps (row and column labels, axis names, legends, zoom and
// Export buttons) overlap, the matrix a step is about shows its numbers, and so does every
// other matrix where the screen has room for them.
async function checkLabels({ browser, url, pages }, sizes = SMALL_SIZES) {
  const overlap = (a, b) =>
    Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 0.5 && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5;
  let states = 0, boxes = 0, bare = 0;
  for (const [width, height] of sizes) {
    for (const lang of ["en", "zh"]) {
      const p = await openPage(browser, `${url}?lang=${lang}`, { viewport: { width, height } });
      pages.push(p);
      if (lang === "zh") await chineseGlyphs(p);  // else measured with stand-in glyphs
      const problems = await p.evaluate(async (overlapSrc) => {
        const overlap = eval(overlapSrc);
        const ap = window.attentionPlayground;
        const found = [];
        let states = 0, boxes = 0, bare = 0;
        for (const lesson of ap.presets()) {
          const name = lesson.name ?? lesson;
          const r = ap.loadPreset(name);
          if (r && r.ok === false) { found.push(`${name}: ${r.error}`); continue; }
          // Every matrix as it is once its question is answered (before, it is drawn as "?":
          // person_test.mjs "lessons-*").
          for (const q of ap.getQuiz()) ap.answerQuiz(q.question, { show: true });
          for (let step = 0; step < 8; ++step) {
            ap.setStep(step);
            // Laid out three times at once, the pixels not drawn (layoutNow): the boxes are
            // what the drawn frames would have, at a fraction of SwiftShader's cost.
            const layout = ap.layoutNow(3);
            if (layout.ok === false) { found.push(`${name} step ${step + 1}: layoutNow: ${layout.error}`); continue; }
            const latest = Math.max(...Object.values(layout).map((g) => g.frame));
            const grids = Object.entries(layout).filter(([, g]) => g.frame === latest);
            const all = grids.flatMap(([id, g]) => g.boxes.map((b) => ({ id, b })));
            ++states;
            boxes += all.length;
            for (let i = 0; i < all.length; ++i) {
              for (let j = i + 1; j < all.length; ++j) {
                if (overlap(all[i].b, all[j].b)) {
                  found.push(`${name} step ${step + 1}: "${all[i].b[4]}" (${all[i].id}) overlaps ` +
                             `"${all[j].b[4]}" (${all[j].id}) at ` +
                             `${all[i].b.slice(0, 4).map(Math.round)} / ${all[j].b.slice(0, 4).map(Math.round)}`);
                }
              }
              // A label over another heatmap's cells.
              for (const [id, g] of grids) {
                if (id !== all[i].id && overlap(all[i].b, [g.x0, g.y0, g.x1, g.y1])) {
                  found.push(`${name} step ${step + 1}: "${all[i].b[4]}" (${all[i].id}) lies on the cells of ${id}`);
                }
              }
            }
            const main = layout.main;
            if (main && main.frame === latest && !(main.numbers > 0)) {
              found.push(`${name} step ${step + 1}: the ${main.rows}×${main.cols} matrix ` +
                         `(cells ${main.cell_w.toFixed(0)}×${main.cell.toFixed(0)} px) shows no numbers`);
            }
            // Every other matrix of up to 24 × 24 cells shows its numbers too, unless the
            // matrices on its line fill the step panel's width (its cells cannot be wider
            // there), the panel's width alone is too narrow for cells as wide as its numbers
            // need (number_w), or it is one of the small Q and K beside the scores.
            const panel = ap.items().find((i) => /##step0$/.test(i.id))?.clip;
            const drawn = grids.filter(([, g]) => g.x1 > g.x0 && g.y1 > g.y0);
            for (const [id, g] of drawn) {
              if (g.hidden || g.numbers || g.rows > 24 || g.cols > 24 || id === "qh" || id === "kh") continue;
              ++bare;
              const line = drawn.filter(([, o]) => o.wy0 < g.y1 && o.wy1 > g.y0);
              const used = Math.max(...line.map(([, o]) => o.wx1)) - Math.min(...line.map(([, o]) => o.wx0));
              const width = panel ? panel[2] - panel[0] : innerWidth;
              const room = (width - (g.x0 - g.wx0)) / g.cols;
              if (used < 0.85 * width && room >= g.number_w + 2) {
                found.push(`${name} step ${step + 1} "${id}" (${g.rows}×${g.cols}): no numbers in ` +
                           `${g.cell_w.toFixed(0)}×${g.cell.toFixed(0)} px cells while its line uses ` +
                           `${used.toFixed(0)} of ${width.toFixed(0)} px`);
              }
            }
          }
        }
        return { found, states, boxes, bare };
      }, overlap.toString());
      // With the mouse on the step's matrix, its Export button shows: on nothing else either.
      for (const name of await p.evaluate(() => window.attentionPlayground.presets().map((l) => l.name ?? l))) {
        await p.evaluate((n) => { window.attentionPlayground.loadPreset(n); window.attentionPlayground.setStep(5); }, name);
        let main = (await laidOut(p)).main;
        // Below the fold (a lesson's note above it, a short window): the panel scrolled to it,
        // as a person scrolls it, with the wheel over the panel.
        for (let k = 0; k < 4 && (main.y0 + main.y1) / 2 > height - 40; ++k) {
          await p.mouse.move((main.x0 + main.x1) / 2, height / 2);
          await p.mouse.wheel(0, (main.y0 + main.y1) / 2 - height / 2);
          main = (await laidOut(p)).main;
        }
        // (A matrix that would answer an open question is grey "?" cells, with no export: a
        // stack's lessons ask theirs on step 6.)
        if (main.hidden) continue;
        await p.mouse.move((main.x0 + main.x1) / 2, (main.y0 + main.y1) / 2);
        const grids = Object.entries(await laidOut(p));
        const all = grids.flatMap(([id, g]) => g.boxes.map((b) => ({ id, b })));
        const button = all.find((x) => x.b[4] === "[Export button]");
        if (!button) problems.found.push(`${name} step 6: no Export button with the mouse on the matrix`);
        for (const x of all) {
          if (x !== button && button && overlap(x.b, button.b)) {
            problems.found.push(`${name} step 6: the Export button covers "${x.b[4]}" (${x.id})`);
          }
        }
        await p.mouse.move(1, 1);
      }
      states += problems.states;
      boxes += problems.boxes;
      bare += problems.bare;
      if (problems.found.length > 0) {
        fail(`at ${width}×${height} (${lang}), ${problems.found.length} problems:\n  ` +
             problems.found.slice(0, 20).join("\n  "));
      }
      await p.close();
    }
  }
  ok(`labels: ${states} views (${sizes.map(([w, h]) => `${w}×${h}`).join(", ")}; en and zh; ` +
     `every lesson and step): ${boxes} labels, none overlaps another, a matrix or the hovered Export button; ` +
     `every step's matrix shows numbers, and the ${bare} other matrices without them are on lines that fill the panel`);
}

// The premise of the checks above: layoutNow(3) gives the boxes that three drawn frames give,
// label for label and pixel for pixel, for three lessons' 8 steps at 800×600 in both languages
// (the Chinese glyphs in); it draws nothing (stats().frames stays) and refuses a bad count.
async function checkLayoutNow({ browser, url, pages }) {
  let compared = 0;
  for (const lang of ["en", "zh"]) {
    const p = await openPage(browser, `${url}?lang=${lang}`, { viewport: { width: 800, height: 600 } });
    pages.push(p);
    if (lang === "zh") await chineseGlyphs(p);
    const r = await p.evaluate(async () => {
      const ap = window.attentionPlayground;
      const frames = (n) => ap.frames(n);
      const text = (layout) => {
        const latest = Math.max(...Object.values(layout).map((g) => g.frame));
        return Object.entries(layout).filter(([, g]) => g.frame === latest)
          .map(([id, g]) => `${id} ${[g.x0, g.y0, g.x1, g.y1].map(Math.round)} ${g.numbers}: ` +
                            g.boxes.map((b) => `${b[4]}@${b.slice(0, 4).map(Math.round)}`).join(", "))
          .sort().join("\n");
      };
      const differ = [];
      let compared = 0;
      for (const name of ap.presets().map((l) => l.name ?? l).slice(0, 3)) {
        ap.loadPreset(name);
        for (let step = 0; step < 8; ++step) {
          ap.setStep(step);
          await frames(3);
          const drawn = text(ap.layout());
          const before = ap.stats().frames;
          const now = text(ap.layoutNow(3));
          if (ap.stats().frames !== before) differ.push(`${name} step ${step + 1}: layoutNow drew a frame`);
          if (now !== drawn) differ.push(`${name} step ${step + 1}:\n    drawn ${drawn.slice(0, 300)}\n    now   ${now.slice(0, 300)}`);
          ++compared;
        }
      }
      const refused = [0, 9, 2.5, "3", null, {}].map((v) => ap.layoutNow(v))
        .filter((x) => !(x && x.ok === false && /^frames: /.test(x.error)));
      return { differ, compared, refused: refused.length };
    });
    if (r.differ.length) fail(`${lang}: ${r.differ.length} of ${r.compared} states laid out otherwise than drawn:\n  ${r.differ.slice(0, 4).join("\n  ")}`);
    if (r.refused) fail(`${lang}: layoutNow took ${r.refused} bad frame counts`);
    compared += r.compared;
  }
  ok(`layoutNow: ${compared} states (3 lessons × 8 steps, en and zh, 800×600) laid out as three drawn frames lay them out, with no frame drawn; bad counts refused`);
}

const CHECKS = {
  "layout-now": checkLayoutNow,
  labels: checkLabels,
  "labels-phone": (args) => checkLabels(args, [[390, 844]]),
  "labels-1024": (args) => checkLabels(args, [[1024, 640]]),
  "labels-1440": (args) => checkLabels(args, [[1440, 900]]),
};

// Each check's title in the test list (tests/web/CMakeLists.txt reads them with --list).
const TITLES = {
  "layout-now": "the layout laid out at once is the layout drawn",
  labels: "no two labels overlap at 640x480 and 800x600",
  "labels-phone": "no two labels overlap on a phone",
  "labels-1024": "no two labels overlap at 1024x640",
  "labels-1440": "no two labels overlap at 1440x900",
};

// Each check walks 18 lessons × 8 steps × 2 languages a size.
await runPageChecks(CHECKS, { titles: TITLES, checkMs: 150000 });
