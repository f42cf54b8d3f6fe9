// Fonts: Chinese glyphs are fetched the first time the learner switches to 中文, and the font
// atlas the app builds (50–170 ms of rasterising) is kept in IndexedDB for next time (the
// keeping is atlas.js's; here, an atlas kept is handed to the app, and the font fetched).
//
// createFonts takes the page's {call, showNotice, module (the Emscripten module, once the app
// runs)} and gives it {putAtlas, loadCjkFont}.
import { keptAtlas } from "./atlas.js";

export function createFonts({ call, showNotice, module }) {
  // The atlases kept in IndexedDB are js/atlas.js's. One handed to the app is written where
  // the app looks for it.
  function putAtlas(name, bytes) {
    const FS = window.Module.FS;
    try { FS.mkdir("/atlas"); } catch { /* there already */ }
    FS.writeFile(`/atlas/${name}.bin`, bytes);
  }

  let cjkRequested = false, cjkKeptTried = false;
  async function loadCjkFont(name) {
    if (cjkRequested) return;
    cjkRequested = true;
    // A kept atlas with the Chinese glyphs, once: if the app refuses it, it asks again.
    if (!cjkKeptTried && name) {
      cjkKeptTried = true;
      const bytes = await keptAtlas(name, 1500);
      if (bytes) {
        putAtlas(name, bytes);
        cjkRequested = false;
        call("ap_fonts_changed", null, [], []);
        return;
      }
    }
    try {
      const response = await fetch("fonts/cjk.ttf");
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      module().FS.writeFile("/fonts/cjk.ttf", bytes);
      call("ap_fonts_changed", null, [], []);
    } catch (e) {
      cjkRequested = false;
      console.warn("could not load the Chinese font:", e);
      showNotice("The Chinese font could not be loaded; texts show in the fallback font.");
    }
  }

  return { putAtlas, loadCjkFont };
}
