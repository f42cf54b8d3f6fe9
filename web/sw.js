// The service worker: after a first visit the playground opens offline. At build time
// scripts/stamp_sw.mjs writes the build's id, its files and its app modules into the three lines below, so that
// a new build installs a new cache and the old one is deleted.
const BUILD = "dev";
const FILES = [];
const MODULES = [];

const PREFIX = "attention-playground-";
const CACHE = `${PREFIX}${BUILD}`;

self.addEventListener("install", (event) => {
  // Revalidated against the server (304s for what the page has just loaded).
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: "no-cache" }))))
    .then(() => self.skipWaiting()));
});

// The page names the app build it runs (attention-playground.js, -relaxed.js, -threads.js or
// -threads-relaxed.js, its .wasm and the threads' worker.js),
// once it runs: only that one is kept, so a visit downloads one build, not four.
self.addEventListener("message", (event) => {
  const files = event.data?.type === "keep" ? event.data.files : null;
  if (!Array.isArray(files)) return;
  const wanted = files.filter((f) => MODULES.includes(f));
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(wanted.map((f) => new Request(f, { cache: "no-cache" })))));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE)
      .map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// Cache first for the site's own files (the address's ?query and #link do not matter: the
// page reads them itself); anything else, or a file this build does not have, from the
// network.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname.endsWith("/") ? `${url.pathname}index.html` : url.pathname;
  event.respondWith(caches.open(CACHE)
    .then((cache) => cache.match(new URL(path, url.origin).href))
    .then((hit) => hit ?? fetch(request)));
});
