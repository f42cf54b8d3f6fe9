// The font atlases the app builds (50–170 ms of rasterising), kept in IndexedDB for the next
// start. Kept by name, at most KEPT_ATLASES of them (zooming changes the ratio), the least
// recently kept dropped first. The app checks each against what it would build
// (src/app/widgets/font_cache.h) and rebuilds, then keeps the new one, when it does not match.
// Without IndexedDB nothing is kept.

const KEPT_ATLASES = 4;
// "latin@100": the glyph set and the device pixel ratio in hundredths.
export const atlasName = (glyphs) => `${glyphs}@${Math.round((window.devicePixelRatio || 1) * 100)}`;

// Runs use(store) in a transaction on the "atlas" store; resolves with what use() put in the
// object it returned, once the transaction completes, or null (no IndexedDB, blocked, failed).
function atlasStore(mode, use) {
  return new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open("attention-playground", 1);
    } catch {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore("atlas");
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
    request.onsuccess = () => {
      const db = request.result;
      try {
        const tx = db.transaction("atlas", mode);
        const result = use(tx.objectStore("atlas"));
        tx.oncomplete = () => { db.close(); resolve(result.value ?? null); };
        tx.onerror = tx.onabort = () => { db.close(); resolve(null); };
      } catch {
        db.close();
        resolve(null);
      }
    };
  });
}

// The bytes of the atlas kept under `name`, or null. budgetMs: how long the read may take
// before the app builds the atlas itself. The Latin atlas (1.2 MB) holds up the start, so
// 400 ms; the Chinese one (4.8 MB; 560–690 ms to read on a 2-core VM) is read while the page
// already runs in Latin, and its alternative is fetching fonts/cjk.ttf (0.31 MB; seconds on a
// slow connection, nothing offline): 1.5 s.
export function keptAtlas(name, budgetMs = 400) {
  const read = atlasStore("readonly", (store) => {
    const result = {};
    const get = store.get(name);
    get.onsuccess = () => { result.value = get.result?.bytes ?? null; };
    return result;
  });
  return Promise.race([read, new Promise((r) => setTimeout(() => r(null), budgetMs))]);
}

// Keeps `bytes` as the atlas `name`.
export function keepAtlas(name, bytes) {
  // Kept after the first frames, when the page is idle; the oldest beyond KEPT_ATLASES go.
  setTimeout(() => atlasStore("readwrite", (store) => {
    store.put({ bytes, time: Date.now() }, name);
    const keys = store.getAllKeys();
    keys.onsuccess = () => {
      const all = store.getAll();
      all.onsuccess = () => {
        const order = keys.result.map((k, i) => [k, all.result[i].time]).sort((a, b) => b[1] - a[1]);
        for (const [k] of order.slice(KEPT_ATLASES)) store.delete(k);
      };
    };
    return {};
  }), 1000);
}
