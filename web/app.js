// The page around the WebAssembly app: loading it, its events and start-up. Each other job is
// a module of web/js/: the app's C entry points and typed arrays (calls.js), the address's
// parameters applied (address.js), the link in the URL fragment (link.js), the API (api.js),
// postMessage and the height (embed.js), progress in storage (progress.js), exports and files
// (files.js), the table view (table_view.js), touch and the wheel (input.js), the builds
// (builds.js), fonts (fonts.js) and kept font atlases (atlas.js), course platforms (lms.js, and
// course_platform.js, which starts the report) and course packages (coursepack.js).
//
// Nothing from a link, a URL parameter or a message ever reaches the DOM as HTML: the only
// DOM text this file writes goes through textContent, and everything else goes to the app,
// which draws it on the canvas.
//
// An ES module: the rules that need no page (the address's parameters, the postMessage rules,
// printf's numbers) are modules of their own in web/js/, tested under node.
import { readParams } from "./js/params.js";
import { MESSAGE_PREFIX } from "./js/messages.js";
import { atlasName, keepAtlas, keptAtlas } from "./js/atlas.js";
import { installTouch, installWheel } from "./js/input.js";
import { createTableView } from "./js/table_view.js";
import { fallbackNotice, keptBuild, missingFeature, moduleBuild } from "./js/builds.js";
import { createFiles } from "./js/files.js";
import { addOwnLessons } from "./js/lms.js";
import { createProgress } from "./js/progress.js";
import { createEmbedding } from "./js/embed.js";
import { createApi, describe, failure } from "./js/api.js";
import { createCoursePack } from "./js/coursepack.js";
import { createCalls } from "./js/calls.js";
import { applyParams } from "./js/address.js";
import { createLink } from "./js/link.js";
import { createFonts } from "./js/fonts.js";
import { createCoursePlatform } from "./js/course_platform.js";

(() => {
  // The app's limits, read once it is ready (ap_limits, ui::api::limits: the scenario's shapes,
  // the memory budget, a scenario's and a file's size, a task's seed and training), checked here
  // before anything is copied into its memory.
  let limits = null;

  const canvas = document.getElementById("canvas");
  const overlay = document.getElementById("overlay");
  const statusLine = document.getElementById("status");
  const detailLine = document.getElementById("detail");

  let failed = false;
  let ready = false;
  // Since navigation; `module`: which build runs ("threads-relaxed", "threads", "relaxed-simd"
  // or "simd128").
  const timing = { scriptMs: performance.now(), readyMs: null, firstFrameMs: null, module: null };

  function setStatus(text, detail = "") {
    if (failed) return;
    statusLine.textContent = text;
    detailLine.textContent = detail;
  }

  // Never a blank page: every failure ends here with a sentence a student can act on.
  function fail(text, detail = "") {
    if (failed) return;
    setStatus(text, detail);
    failed = true;
    overlay.classList.remove("hidden");
    overlay.classList.add("error");
    emit("error", { message: `${text} ${detail}`.trim() });
  }

  // ---------------------------------------------------------------------------------------
  // Events for subscribers (window.attentionPlayground.on) and the parent page
  // ---------------------------------------------------------------------------------------

  const listeners = new Map(); // event name → Set of callbacks

  function emit(event, detail) {
    for (const callback of listeners.get(event) ?? []) {
      try {
        callback(detail);
      } catch (e) {
        console.warn("attentionPlayground listener failed:", e);
      }
    }
    if (event !== "ready") postToSubscribers({ type: `${MESSAGE_PREFIX}event`, event, detail });
  }

  // ---------------------------------------------------------------------------------------
  // The app's C entry points
  // ---------------------------------------------------------------------------------------

  let M = null; // the Emscripten module, once the app runs
  let loadedBuild = null; // moduleBuild() of the app's script, once it is loading
  let buildFallback = null;  // {asked, kept}: the build asked for could not be loaded, a kept one runs
  // Its calls, and typed arrays in and out of its heap: js/calls.js.
  const { call, getJson, counts, exportArgs, callWithText, heap, setScenarioBinary, openArrays, typedTrace } =
    createCalls({ module: () => M, isReady: () => ready, limits: () => limits });

  // ---------------------------------------------------------------------------------------
  // URL parameters: ?embed=1&preset=NAME&step=K&head=H&lang=zh&panels=a,b&hide=a,b&allow=ORIGINS
  // &task=NAME&seed=S&train=N&lr=R&optimizer=adam|sgd
  // (step and head counted from 1), applied once the app is ready: js/address.js
  // ---------------------------------------------------------------------------------------

  const param = readParams(location.search);
  const embedded = param("embed") === "1" || param("embed") === "true";
  // ?lms=scorm2004|scorm12|cmi5&lessons=a,b&pass=P: a course in a course platform (js/lms.js),
  // reported to once the page runs (js/course_platform.js).
  let course = { version: null, lessons: [], pass: 0.8, notes: [] };

  // ---------------------------------------------------------------------------------------
  // The link: the scenario and the view after '#', kept up to date as the learner works
  // ---------------------------------------------------------------------------------------

  // Opened at start and when the learner puts another one in the address, written there as the
  // learner works: js/link.js. An embedded playground (or a course's) leaves its address alone.
  const { openLink, unreadFragment, scheduleLinkUpdate, releaseRefusedLink } = createLink({
    call, callWithText, getJson, showNotice, emit, leaveAlone: () => embedded || coursePlatform.recording() });

  function showNotice(text) {
    call("ap_show_notice", null, ["string"], [text.slice(0, 2000)]);
  }

  // This learner's answers, kept in this browser (and in the link the page shows), shared by
  // its tabs: js/progress.js.
  const progress = createProgress({ call, getJson, showNotice, embedded });

  // ---------------------------------------------------------------------------------------
  // window.attentionPlayground
  // ---------------------------------------------------------------------------------------

  // window.attentionPlayground: js/api.js.
  const { api, resolveReady } = createApi({
    call, getJson, callWithText, isReady: () => ready, limits: () => limits, listeners, progress, counts,
    exportArgs, setScenarioBinary, openArrays, typedTrace, files: () => files, timing });
  Object.defineProperty(window, "attentionPlayground", { value: api, enumerable: true });
  // Files in and out (exports, the clipboard, downloads, opened and dropped files): js/files.js.
  const files = createFiles({ call, getJson, api, isReady: () => ready, running: () => M !== null,
                              limits: () => limits, showNotice, failure });

  // Other pages: postMessage calls, events to subscribers, the height: js/embed.js.
  const embedding = createEmbedding({ api, getJson, isReady: () => ready, limits: () => limits,
                                      allow: param("allow") });
  const { postToSubscribers, reportHeightSoon } = embedding;

  // Touch and the wheel: js/input.js.

  // ---------------------------------------------------------------------------------------
  // Fonts: Chinese glyphs are fetched the first time the learner switches to 中文, and the
  // font atlas the app builds (50–170 ms of rasterising) is kept in IndexedDB for next time
  // ---------------------------------------------------------------------------------------

  // The Chinese font and the atlases handed to the app: js/fonts.js (kept ones: js/atlas.js).
  const { putAtlas, loadCjkFont } = createFonts({ call, showNotice, module: () => M });

  // ---------------------------------------------------------------------------------------
  // Start
  // ---------------------------------------------------------------------------------------

  // What the page does at start that could meet something unforeseen (a link, the address, what
  // this browser kept) is tried on its own: a failure there shows a notice, never a blank page.
  function atStart(what, fn) {
    try {
      return fn();
    } catch (e) {
      console.warn(`${what} failed:`, e);
      showNotice(`Something kept or given to this page could not be used (${what}).\n${describe(e)}`);
      return undefined;
    }
  }

  // Inside a course package, the course platform found and reported to: js/course_platform.js.
  const coursePlatform = createCoursePlatform({ call, getJson, progress, api, showNotice, atStart });

  async function onAppReady() {
    M = window.Module;
    timing.readyMs = performance.now();
    // A course package's lessons of its own (?own=) first, so that ?lessons= finds them; the page
    // is ready (the API, messages, events) only once they are in.
    const ownNotes = param("own") === null ? [] : await addOwnLessons(
      param("own"), getJson("ap_presets").map((p) => p.name), {
        fetch: (...args) => fetch(...args),
        add: (name, text) => call("ap_add_lesson", "string", ["string", "string"], [name, text]),
      }).catch((e) => [`own: ${String(e?.message ?? e).slice(0, 100)}`]);
    ready = true; // the C entry points can be called from here on
    limits = getJson("ap_limits");
    if (location.hash.length > 1) {
      atStart("the link", () => openLink(location.hash, true));
    }
    const { notes, training } = atStart("the address", () => applyParams({
      param, embedded, call, getJson, counts, limits, api, setCourse: (c) => { course = c; } })) ??
      { notes: [], training: null };
    notes.unshift(...ownNotes);
    const notices = [];
    if (notes.length > 0) notices.push(`Some settings in the address were ignored:\n${notes.join("\n")}`);
    // Another build than the one asked for runs (offline): said in the learner's language.
    if (buildFallback) notices.push(fallbackNotice(buildFallback, getJson("ap_get_view").lang));
    if (notices.length > 0) showNotice(notices.join("\n\n"));
    coursePlatform.setStartNotices(notices);
    overlay.classList.add("hidden");
    // ?train=N: the steps are taken a frame at a time, in view, before the page says it is ready.
    if (training) {
      const trained = await training;
      if (!trained.ok) showNotice(`Some settings in the address were ignored:\ntrain: ${trained.error}`);
    }
    // Nothing takes the focus at load: in a frame it would pull the learner out of the page
    // around it, and a keyboard user starts with Tab (the canvas comes first). The canvas's
    // keys work without it (GLFW listens on the window).
    window.addEventListener("hashchange", () => {
      if (unreadFragment()) openLink(location.hash);
    });
    new ResizeObserver(() => {
      call("ap_wake", null, [], []);
      reportHeightSoon();
    }).observe(canvas);
    if (course.version) {
      coursePlatform.startCourse(course).catch((e) => {
        console.warn("the course platform failed:", e);
        coursePlatform.notRecorded();
      });
    } else {
      atStart("the progress kept in this browser", progress.restore);
    }
    window.addEventListener("storage", (e) => atStart("progress from another tab", () => progress.onStorage(e)));
    if (timing.module.startsWith("threads")) {
      // Firefox cannot leave an isolated page controlled by a service worker while its thread
      // workers live (src/app/platform/web_api.cpp, ap_end_threads).
      window.addEventListener("beforeunload", () => call("ap_end_threads", null, [], []));
    }
    resolveReady(api);
    renderAccessible(false);
    // Offline after this visit: the service worker (sw.js) keeps this build's files, the
    // Chinese font included. Registered once the page runs, so that it revalidates what the
    // page has just loaded instead of competing with it.
    if ("serviceWorker" in navigator && window.isSecureContext && param("offline") !== "off") {
      navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline copy:", e.message));
      // The build this page runs is kept too (the worker keeps no module unasked).
      navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage(
        { type: "keep", files: loadedBuild.files })).catch(() => {});
    }
    emit("ready", api);
    window.dispatchEvent(new CustomEvent("attentionplayground:ready", { detail: api }));
    embedding.announceReady();
  }

  // The step as text, the table view: js/table_view.js.
  const tableView = createTableView({ canvas, call, getJson, api, isReady: () => ready });
  const { renderAccessible, renderSoon } = tableView;
  // Export → "Course package…": its dialog (js/coursepack.js), after the table view's keys.
  const coursePack = createCoursePack({
    canvas, call, getJson, download: (...args) => files.download(...args),
    memory: { malloc: (n) => M._malloc(n), free: (p) => M._free(p), u8: () => heap().u8 } });

  function onAppEvent(name) {
    if (!ready) return;
    if (name.startsWith("open_url|")) {
      // The textbook link of a lesson (a plain https address, checked when the scenario was
      // read): a new tab, told nothing about this page. The click that asked for it is a few
      // milliseconds old, so the browser still counts it as the learner's.
      const target = name.slice("open_url|".length);
      if (target.startsWith("https://")) window.open(target, "_blank", "noopener,noreferrer");
      return;
    }
    if (name.startsWith("quiz|")) {
      const [, question, correct] = name.split("|");
      const lesson = getJson("ap_get_progress").lesson;
      progress.save();
      emit("quiz", { lesson, question: Number(question), correct: correct === "1" });
      const report = coursePlatform.report();
      if (report) {
        const q = getJson("ap_get_quiz")[Number(question)] ?? {};
        report.answered({ lesson, question: Number(question), correct: correct === "1", kind: q.kind,
                          response: q.response, ask: q.ask });
      }
      renderSoon(false);
      return;
    }
    if (name === "lesson") {
      const p = getJson("ap_get_progress");
      const index = p.lessons.findIndex((l) => l.id === p.lesson);
      emit("lesson", { lesson: p.lesson, index, count: p.lessons.length,
                       done: index >= 0 && p.lessons[index].done });
      return;
    }
    if (name === "table_view") {
      tableView.showTableView(!tableView.shown());
      return;
    }
    if (name === "course_package") {
      coursePack.open();
      return;
    }
    if (name === "open_file") {
      files.pickFile();
      return;
    }
    if (name.startsWith("export_file|")) {
      files.exportInParts(...name.split("|").slice(1));
      return;
    }
    if (name === "copy_link") {
      const link = call("ap_get_link", "string", [], []);
      if (link) api.copyOrDownload(`${location.origin}${location.pathname}#${link}`, "link.txt");
      return;
    }
    if (name === "training") {
      // Steps were taken: the link follows once they stop (the update waits 250 ms for quiet),
      // and the table view is redrawn less often meanwhile (renderSoon). Once they stop (a
      // pause on the canvas sends no event), one more redraw says so (trainingNews).
      tableView.trainingStepped();
      scheduleLinkUpdate();
      return;
    }
    if (name === "scenario" && coursePlatform.report()) coursePlatform.report().shown(getJson("ap_get_progress").lesson);
    if (name === "scenario" || name === "step" || name === "head" || name === "view") {
      renderSoon(name === "step" || name === "view");  // a step or a view of its own is announced
      let detail = null;
      if (name === "step" || name === "head" || name === "view") detail = getJson("ap_get_view");
      emit(name, detail);
      scheduleLinkUpdate();
      reportHeightSoon();
    }
  }

  function start() {
    const missing = missingFeature(param);
    if (missing) {
      fail(...missing);
      return;
    }
    setStatus("Loading the attention core (WebAssembly)…");
    const latin = atlasName("latin");
    const keptLatin = keptAtlas(latin);  // read while the module downloads
    window.Module = {
      canvas,
      locateFile: (path) => path,
      print: (text) => console.log(text),
      printErr: (text) => console.warn(text),
      setStatus: (text) => { if (text && !ready) setStatus(text); },
      onAbort: (what) => fail("The playground stopped because of an internal error.", String(what ?? "")),
      apReady: onAppReady,
      apEvent: onAppEvent,
      apNeedCjkFont: loadCjkFont,
      apKeepAtlas: keepAtlas,
      // The kept atlas, if any, is in /atlas/ before main() builds the fonts.
      preRun: [() => {
        window.Module.addRunDependency("kept-atlas");
        keptLatin.then((bytes) => { if (bytes) putAtlas(latin, bytes); })
          .catch(() => {})
          .finally(() => window.Module.removeRunDependency("kept-atlas"));
      }],
      apExport: (...args) => files.onAppExport(...args),
      apFirstFrame: () => { timing.firstFrameMs = performance.now(); },
      apFatal: (message) => fail("The playground could not start.", message),
    };
    const cannotLoad = () => fail("The playground's files could not be loaded.",
                                  "Check the connection and reload the page.");
    const load = (build, onerror) => {
      loadedBuild = build;
      timing.module = build.name;
      const script = document.createElement("script");
      script.src = build.script;
      script.async = true;
      script.onerror = onerror;
      document.body.appendChild(script);
    };
    // The build asked for, or (offline, when the offline copy does not have it) one it has.
    load(moduleBuild(param), () => {
      const asked = loadedBuild;
      keptBuild(asked).catch(() => null).then((kept) => {
        if (!kept) {
          cannotLoad();
          return;
        }
        buildFallback = { asked, kept };
        load(kept, cannotLoad);
      });
    });
  }

  window.addEventListener("error", (e) => {
    if (!ready) fail("The playground could not start.", String(e.message ?? ""));
  });
  window.addEventListener("unhandledrejection", (e) => {
    if (!ready) fail("The playground could not start.", String(e.reason?.message ?? e.reason ?? ""));
  });

  installTouch({ canvas, call, getJson, isReady: () => ready });
  installWheel({ canvas, call, running: () => M !== null });
  canvas.addEventListener("pointerdown", () => canvas.focus({ preventScroll: true }));
  // A right-click opens the playground's own menu only, not the browser's over it.
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  // The learner's own input ends the hold on a refused link (js/link.js).
  for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
    canvas.addEventListener(type, () => { releaseRefusedLink(); }, { capture: true, passive: true });
  }
  start();
})();
