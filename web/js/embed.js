// The playground as other pages meet it: the same API over postMessage for a page that embeds it
// (from any origin the rule allows: js/messages.js), the events sent to the pages that
// subscribed, and the height the embedding page can size its iframe to.
//
// createEmbedding takes the app's calls ({api, getJson, isReady, limits, allow: the ?allow=
// parameter}), listens for messages and gives {postToSubscribers, reportHeightSoon,
// announceReady}.
import { allowList } from "./params.js";
import { answer, checkMessage, MESSAGE_PREFIX, originAllowed, parentOriginOf } from "./messages.js";

export function createEmbedding({ api, getJson, isReady, limits, allow }) {
  // Who may drive this playground: the embedding parent (by default), plus an explicit
  // allow-list ?allow=https://a.example,https://b.example.
  const parentOrigin = parentOriginOf({ embedded: window.parent !== window, referrer: document.referrer,
                                        ancestorOrigins: location.ancestorOrigins });
  // "ready" and "height" carry nothing private: when the parent's origin is unknown they go
  // to whichever page embeds us. Replies to calls always go to the caller's origin.
  const notifyOrigin = parentOrigin ?? "*";
  const allowed = allowList(allow).origins;
  const subscribers = new Map(); // window → origin, for events

  function onMessage(event) {
    const data = event.data;
    if (data === null || typeof data !== "object" || typeof data.type !== "string" ||
        !data.type.startsWith(MESSAGE_PREFIX)) {
      return; // not for us
    }
    const fromParent = event.source === window.parent && window.parent !== window;
    if (!originAllowed({ origin: event.origin, fromParent }, { allowed, parentOrigin })) {
      return; // foreign origins are ignored, without a reply
    }
    // A caller with an opaque origin ("null": a sandboxed or data: page) can only be
    // answered with "*"; the answer still goes to that one window, event.source.
    const to = event.origin === "null" ? "*" : event.origin;
    const reply = (body) => event.source?.postMessage(
      { type: `${MESSAGE_PREFIX}reply`, id: data.id ?? null, ...body }, to);
    if (data.type !== `${MESSAGE_PREFIX}call`) {
      reply({ ok: false, error: `type: unknown message type "${String(data.type).slice(0, 60)}"` });
      return;
    }
    // (Before the app is ready no call is made: "not ready yet" answers.)
    const problem = checkMessage(data, limits()?.max_scenario_chars ?? Infinity);
    if (problem) {
      reply({ ok: false, error: problem });
      return;
    }
    if (!isReady()) {
      reply({ ok: false, error: "not ready yet: wait for the attention-playground:ready message" });
      return;
    }
    try {
      if (data.method === "subscribe") {
        subscribers.set(event.source, to);
        reply({ ok: true, result: null });
        return;
      }
      const value = api[data.method](...(data.args ?? []));
      if (value instanceof Promise) {
        // exportFile: the reply when it is done ({filename, mime, blob} as `result`).
        value.then((v) => reply(answer(v)), (e) => reply({ ok: false, error: String(e?.message ?? e) }));
      } else {
        reply(answer(value));
      }
    } catch (e) {
      reply({ ok: false, error: String(e.message ?? e) });
    }
  }
  window.addEventListener("message", onMessage);

  function postToSubscribers(message) {
    for (const [target, origin] of subscribers) {
      try {
        target.postMessage(message, origin);
      } catch {
        subscribers.delete(target);
      }
    }
  }

  // The embedding page can size its iframe from this.
  let lastHeight = 0;
  function reportHeight() {
    if (window.parent === window) return;
    const height = Math.round(isReady() ? preferredHeight() : 640);
    if (height === lastHeight) return;
    lastHeight = height;
    window.parent.postMessage({ type: `${MESSAGE_PREFIX}height`, height }, notifyOrigin);
  }
  // The height at which nothing scrolls and the matrices get the cells the frame's width
  // allows (as the app measured it in its last frame), within what a page would show.
  function preferredHeight() {
    const h = getJson("ap_stats").preferred_height;
    return Number.isFinite(h) && h > 0 ? Math.min(Math.max(h, 320), 1400) : 680;
  }
  // After a change, the next frames lay it out: report then.
  function reportHeightSoon() {
    requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(reportHeight)));
  }

  // The page is ready: the embedding page is told (it may call from now on).
  function announceReady() {
    if (window.parent !== window) {
      window.parent.postMessage({ type: `${MESSAGE_PREFIX}ready` }, notifyOrigin);
    }
    reportHeightSoon();
  }

  return { postToSubscribers, reportHeightSoon, announceReady };
}
