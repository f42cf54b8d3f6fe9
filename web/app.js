// The page around the WebAssembly app: loading it, its C entry points and typed arrays, the
// address's parameters applied, the link in the URL fragment, fonts, the app's events and
// start-up. Each other job is a module of web/js/: the API (api.js), postMessage and the
// height (embed.js), progress in storage (progress.js), exports and files (files.js), the
// table view (table_view.js), touch and the wheel (input.js), the builds (builds.js), kept
// font atlases (atlas.js), course platforms (lms.js) and course packages (coursepack.js).
//
// Nothing from a link, a URL parameter or a message ever reaches the DOM as HTML: the only
// DOM text this file writes goes through textContent, and everything else goes to the app,
// which draws it on the canvas.
//
// An ES module: the rules that need no page (the address's parameters, the postMessage rules,
// printf's numbers) are modules of their own in web/js/, tested under node.
import { allowList, NAME, nameList, readParams, smallInt } from "./js/params.js";
import { MESSAGE_PREFIX } from "./js/messages.js";
import { atlasName, keepAtlas, keptAtlas } from "./js/atlas.js";
import { installTouch, installWheel } from "./js/input.js";
import { createTableView } from "./js/table_view.js";
import { fallbackNotice, keptBuild, missingFeature, moduleBuild } from "./js/builds.js";
import { createFiles } from "./js/files.js";
import { addOwnLessons, createCmi5Report, createReport, searchRuntime, launchParams, readCmi5Launch,
         readCourse } from "./js/lms.js";
import { createProgress } from "./js/progress.js";
import { createEmbedding } from "./js/embed.js";
import { createApi, describe, failure, NOT_READY, whole } from "./js/api.js";
import { createCoursePack } from "./js/coursepack.js";

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
  // Every string goes to the app through the heap, never through ccall's own copy onto the
  // 1 MiB WebAssembly stack: a string of some 270,000 characters there overran the stack,
  // corrupted memory and stopped the module for good. Callers bound their strings
  // too; this is the floor under them.
  function call(name, ret, types, args) {
    if (!types.includes("string")) return M.ccall(name, ret, types, args);
    const blocks = [];
    try {
      const passed = args.map((a, i) => {
        if (types[i] !== "string") return a;
        const text = String(a);
        const size = M.lengthBytesUTF8(text) + 1;
        const ptr = M._malloc(size);
        if (!ptr) throw new RangeError(`${name}: a text of ${size} bytes does not fit in memory`);
        blocks.push(ptr);
        M.stringToUTF8(text, ptr, size);
        return ptr;
      });
      return M.ccall(name, ret, types.map((t) => (t === "string" ? "number" : t)), passed);
    } finally {
      for (const ptr of blocks) M._free(ptr);
    }
  }
  const getJson = (name) => JSON.parse(call(name, "string", [], []));
  const counts = () => getJson("ap_counts"); // {heads, batch}: what head and batch index

  // export() and exportFile(): what, and options {format, head, batch} (the view's head and
  // batch by default), checked; {error} or {call: the arguments of ap_export*}.
  function exportArgs(what, options, shape) {
    if (!ready) return { error: NOT_READY };
    if (options === null || options === undefined) options = {};
    if (typeof options !== "object") return { error: `options: must be an object ${shape}` };
    if (typeof what !== "string") return { error: "what: must be a string" };
    const format = options.format ?? "csv";
    if (typeof format !== "string") return { error: 'format: must be "csv" or "json"' };
    const view = getJson("ap_get_view");
    const { heads, batch: items } = counts();
    for (const [name, v, count] of [["head", options.head, heads], ["batch", options.batch, items]]) {
      if (v === undefined) continue;
      const bad = whole(v, name, count - 1);
      if (bad) return { error: bad };
    }
    const head = options.head ?? view.head;
    const batch = options.batch ?? view.batch;
    return { call: [what.slice(0, 64), format.slice(0, 16), head, batch] };
  }
  // A long text (a scenario, a link): "" or the app's answer, or the error when it does not fit.
  function callWithText(name, text) {
    try {
      return call(name, "string", ["string"], [text]);
    } catch (e) {
      if (e instanceof RangeError) return "scenario: too large for the available memory";
      throw e;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Typed arrays in and out: numbers that never become text
  // ---------------------------------------------------------------------------------------

  // Views of the WASM heap, current: in the threaded build the core's threads may have grown
  // the memory since JS last looked, leaving M.HEAP* views of the old buffer.
  function heap() {
    M._ap_heap_views();
    return { u8: M.HEAPU8, i32: M.HEAP32, f32: M.HEAPF32 };
  }

  // The arrays copied into the WASM heap once, a table of (pointer, length) beside them.
  function setScenarioBinary(text, arrays) {
    const floats = arrays.reduce((n, a) => n + a.length, 0);
    const data = M._malloc(Math.max(4, floats * 4));
    const table = M._malloc(8 * arrays.length);
    if (!data || !table) {
      if (data) M._free(data);
      if (table) M._free(table);
      return "scenario: too large for the available memory";
    }
    try {
      const { f32, i32 } = heap();
      let at = data;
      arrays.forEach((a, k) => {
        f32.set(a, at / 4);
        i32[table / 4 + 2 * k] = at;
        i32[table / 4 + 2 * k + 1] = a.length;
        at += a.length * 4;
      });
      const size = M.lengthBytesUTF8(text) + 1;
      const ptr = M._malloc(size);
      if (!ptr) return "scenario: too large for the available memory";
      try {
        M.stringToUTF8(text, ptr, size);
        return call("ap_set_scenario_binary", "string", ["number", "number", "number"],
                    [ptr, table, arrays.length]);
      } finally {
        M._free(ptr);
      }
    } finally {
      M._free(data);
      M._free(table);
    }
  }

  // The bytes of a .npy or .npz file copied into the WASM heap for ap_open_arrays; "" or the
  // error.
  function openArrays(bytes, name) {
    const ptr = M._malloc(Math.max(1, bytes.length));
    if (!ptr) return `${name}: too large for the available memory`;
    try {
      heap().u8.set(bytes, ptr);
      return call("ap_open_arrays", "string", ["number", "number", "string"],
                  [ptr, bytes.length, name.slice(0, 200)]);
    } finally {
      M._free(ptr);
    }
  }

  function typedTrace(options) {
    const shape = getJson("ap_trace_shape");
    const heads = options.heads ?? [...Array(shape.heads).keys()];
    const names = limits.head_matrices;  // in the order ap_trace_item gives them
    const matrices = options.matrices ?? names;
    if (!Array.isArray(heads) || heads.length > shape.heads || new Set(heads).size !== heads.length ||
        !heads.every((h) => Number.isInteger(h) && h >= 0 && h < shape.heads)) {
      return failure(`heads: must be an array of different heads from 0 to ${shape.heads - 1}`);
    }
    if (!Array.isArray(matrices) || matrices.length > names.length ||
        !matrices.every((m) => names.includes(m))) {
      return failure(`matrices: must name some of ${names.join(", ")}`);
    }
    const B = shape.batch, nq = shape.queries, nk = shape.keys, dv = shape.head_columns;
    const cells = (m) => (m === "output" ? nq * dv : nq * nk);
    const copy = (ptr, n, into, offset) => {
      into.set(heap().f32.subarray(ptr / 4, ptr / 4 + n), offset);
    };
    const out = { version: 1, heads: [], output: null, lean: shape.lean };
    for (const h of heads) {
      const head = options.heads ? { head: h } : {};
      for (const m of matrices) {
        head[m] = { shape: [B, nq, m === "output" ? dv : nk], data: new Float32Array(B * cells(m)) };
      }
      for (let b = 0; b < B; ++b) {
        const ptrs = call("ap_trace_item", "string", ["number", "number"], [h, b]).split(",").map(Number);
        names.forEach((m, i) => {
          if (head[m]) copy(ptrs[i], cells(m), head[m].data, b * cells(m));
        });
      }
      out.heads.push(head);
    }
    const dOut = shape.output_columns;
    out.output = { shape: [B, nq, dOut], data: new Float32Array(B * nq * dOut) };
    for (let b = 0; b < B; ++b) copy(call("ap_trace_output", "number", ["number"], [b]), nq * dOut, out.output.data, b * nq * dOut);
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // URL parameters: ?embed=1&preset=NAME&step=K&head=H&lang=zh&panels=a,b&hide=a,b&allow=ORIGINS
  // &task=NAME&seed=S&train=N&lr=R&optimizer=adam|sgd
  // (step and head counted from 1)
  // ---------------------------------------------------------------------------------------

  const param = readParams(location.search);
  const embedded = param("embed") === "1" || param("embed") === "true";
  // ?lms=scorm2004|scorm12|cmi5&lessons=a,b&pass=P: a course in a course platform (js/lms.js),
  // reported to once the page runs (startCourse).
  let course = { version: null, lessons: [], pass: 0.8, notes: [] };
  let report = null;

  // Applies the address's parameters: {notes: what was ignored, training: the promise of
  // ?train=N's steps, or null}.
  function applyParams() {
    const notes = [];
    let training = null;
    const preset = param("preset") ?? param("lesson");
    if (preset !== null) {
      if (!NAME.test(preset) || !call("ap_load_preset", "number", ["string"], [preset])) {
        notes.push(`preset: there is no preset named "${preset.slice(0, 40)}"`);
      }
    }
    // ?task=previous_token&seed=3&train=300 (&lr=0.05&optimizer=adam): a toy task, trained
    // that far (deterministic: the same weights and curve as the moment the link was made).
    const task = param("task");
    if (task !== null) {
      const seedText = param("seed") ?? "1";
      const options = {};
      if (param("lr") !== null) options.lr = Number(param("lr"));
      if (param("optimizer") !== null) options.optimizer = param("optimizer");
      const loaded = /^\d{1,15}$/.test(seedText) && Number(seedText) <= limits.max_task_seed
        ? api.loadTask(task.slice(0, 40), Number(seedText), options)
        : failure(`seed: must be a whole number from 0 to ${limits.max_task_seed}`);
      if (!loaded.ok) {
        notes.push(loaded.error.startsWith("task:") ? loaded.error : `task: ${loaded.error}`);
      } else if (param("train") !== null) {
        const steps = /^\d{1,5}$/.test(param("train")) ? Number(param("train")) : 0;
        if (steps >= 1 && steps <= limits.max_train_steps) training = api.train(steps);
        else notes.push(`train: must be a whole number from 1 to ${limits.max_train_steps}`);
      }
    }
    const lang = param("lang");
    if (lang === "en" || lang === "zh") api.setLanguage(lang);
    else if (lang !== null) notes.push(`lang: must be en or zh, not "${lang.slice(0, 20)}"`);
    if (param("panels") !== null) call("ap_set_panels", null, ["string"], [nameList(param("panels")).join(",")]);
    // ?transpose=1: the step view's matrices transposed, the formulas in the column convention
    // (S = KᵀQ, O = V·A); 0 is the default. Anything else is named and ignored. Before hide=, so that
    // transpose=1&hide=transpose fixes it on.
    const transpose = param("transpose");
    if (transpose === "1") call("ap_set_control", "string", ["string", "string"], ["transpose", "true"]);
    else if (transpose !== null && transpose !== "0") {
      notes.push(`transpose: must be 1 or 0, not "${transpose.slice(0, 20)}"`);
    }
    if (param("hide") !== null) {  // an unknown id is named (a typo would hide nothing)
      const hidden = call("ap_hide_controls", "string", ["string"], [nameList(param("hide")).join(",")]);
      if (hidden) notes.push(hidden);
    }
    if (embedded) call("ap_set_embed", null, ["number"], [1]);
    // A finger, not a mouse: controls at least 24 × 24 px (WCAG 2.5.8).
    const coarse = window.matchMedia?.("(pointer: coarse)");
    const touch = () => call("ap_set_touch", null, ["number"], [coarse?.matches ? 1 : 0]);
    touch();
    coarse?.addEventListener?.("change", touch);
    // Step changes animate unless the learner's system asks for reduced motion, or the page
    // says motion=off.
    const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)");
    const animate = () => call("ap_set_animate", null, ["number"],
                               [reduced?.matches || param("motion") === "off" ? 0 : 1]);
    animate();
    reduced?.addEventListener?.("change", animate);
    if (param("numbers") === "off") call("ap_set_numbers", null, ["number"], [0]);
    notes.push(...allowList(param("allow")).notes);
    course = readCourse(param, getJson("ap_presets").map((p) => p.name));
    notes.push(...course.notes);
    // The course's lessons (?lessons=, in a course platform or a course page's frame) are the
    // learner's path: "Lesson k of N", Previous and Next. It starts at its first lesson (a
    // platform's saved place moves it on: startCourse) unless a link or ?preset= chose what to
    // open; ?step= and ?head= below apply to it.
    if ((course.version || param("lessons") !== null) && course.lessons.length > 0) {
      const error = call("ap_set_path", "string", ["string"], [course.lessons.join(",")]);
      if (error) notes.push(error);
      else if (location.hash.length <= 1 && param("preset") === null &&
               getJson("ap_get_progress").lesson !== course.lessons[0]) {
        api.loadPreset(course.lessons[0]);
      }
    }
    // Counted from 1 in the address, as the page shows them ("6. Weights", "head 2"); the JS
    // API counts from 0.
    // (The layer first: a stack's layers may have different numbers of heads.)
    for (const [name, set, count] of [["layer", api.setLayer, () => counts().layers],
                                      ["head", api.focusHead, () => counts().heads],
                                      ["step", api.setStep, () => limits.max_step + 1]]) {
      if (param(name) === null) continue;
      const n = smallInt(param(name), 999), max = count();
      if (n === null || n < 1 || n > max) {
        notes.push(`${name}: must be a whole number from 1 to ${max} (counted from 1, as on screen)`);
      } else {
        set(n - 1);
      }
    }
    return { notes, training };
  }

  // ---------------------------------------------------------------------------------------
  // The link: the scenario and the view after '#', kept up to date as the learner works
  // ---------------------------------------------------------------------------------------

  let lastLink = "";  // the fragment the page last opened, refused or wrote itself
  let linkTimer = 0;
  // A refused link stays in the address bar (and in the history) until the learner changes
  // something: the page does not write its own link over it.
  let keepRefusedLink = false;

  function openLink(fragment, atStart = false) {
    lastLink = fragment.replace(/^#/, "");
    const error = callWithText("ap_open_link", fragment);
    keepRefusedLink = Boolean(error);
    if (error) {
      const fallback = atStart ? "so the playground starts with its first lesson" : "so the playground keeps what it shows";
      showNotice(`This link could not be opened, ${fallback}.\n${error}`);
      return false;
    }
    return true;
  }

  // A fragment the learner put in the address that the page has not read yet (its hashchange
  // event may still be queued).
  const unreadFragment = () => location.hash.length > 1 && location.hash.slice(1) !== lastLink;

  function scheduleLinkUpdate() {
    if (embedded || platformRecord) return; // an embedded playground (or a course's) leaves its address alone
    if (keepRefusedLink) return;
    clearTimeout(linkTimer);
    linkTimer = setTimeout(() => {
      // Never write over a link that was just pasted: read it first (open it or refuse it).
      if (unreadFragment()) {
        openLink(location.hash);
        return;
      }
      // A scenario still computing in parts would be finished at once to write its link,
      // holding the page for seconds: the event at its end schedules this again.
      if (getJson("ap_stats").computing !== null) return;
      const link = call("ap_get_link", "string", [], []);
      if (!link || link === lastLink) return;
      lastLink = link;
      history.replaceState(null, "", `${location.pathname}${location.search}#${link}`);
      emit("link", { link: location.href });
    }, 250);
  }

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
      M.FS.writeFile("/fonts/cjk.ttf", bytes);
      call("ap_fonts_changed", null, [], []);
    } catch (e) {
      cjkRequested = false;
      console.warn("could not load the Chinese font:", e);
      showNotice("The Chinese font could not be loaded; texts show in the fallback font.");
    }
  }

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

  // The line said when the page was opened as a course but no platform answers (in the
  // learner's language: src/app/text/i18n.cpp has it).
  const NO_PLATFORM = "This page was opened as a course, but no course platform answered: " +
                      "your answers are kept in this browser only.";

  // Said when a platform is there but keeps no record of this session (it refused to open one,
  // or its LRS did not answer), and when it stops taking the page's reports midway.
  const NOT_RECORDED = "The course platform did not open a record of this session: what you answer here " +
                       "is not in its gradebook, and lasts until this page is closed.";
  const UNSAVED = "The course platform stopped taking this page's reports: what you answer now may not " +
                  "reach its gradebook.";
  // The platform's line comes first, before what the page said at its start (the address's
  // notes), so that it is shown in the learner's language and nothing said before is lost.
  let startNotices = [];
  const platformNotice = (line) => showNotice([line, ...startNotices].join("\n\n"));
  const tellLearner = (what) => platformNotice(what === "refused" ? NOT_RECORDED : UNSAVED);
  // Under a platform, its record is the attempt's only one: the progress kept in this browser
  // (another learner's, on a shared computer) is neither read nor written, nor put in the
  // address. Outside one (no platform answered) the page keeps progress as anywhere else.
  let platformRecord = false;
  function keepInBrowser() {
    platformRecord = false;
    progress.keepInBrowser(true);
    atStart("the progress kept in this browser", progress.restore);
  }

  // Inside a course package: the LMS's run-time (SCORM: searched up the frames and openers for
  // a few seconds) or its LRS (cmi5, from the launch parameters) is told what the learner does
  // (js/lms.js). Without one the page says so and runs as anywhere else; with one that records
  // nothing, it says that.
  async function startCourse() {
    platformRecord = true;
    progress.keepInBrowser(false);  // until the platform is known
    const page = {
      lessons: course.lessons, pass: course.pass,
      progress: () => getJson("ap_get_progress"),
      marks: (marks) => {
        const checked = progress.check(marks, "suspend_data");
        if (Object.keys(checked.marks).length > 0) {
          call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
        }
        if (checked.problems.length > 0) console.warn("course progress set aside:", checked.problems.join("; "));
      },
      open: (lesson) => api.loadPreset(lesson),
      tell: tellLearner,
    };
    if (course.version === "cmi5") {
      const { launch, problems } = readCmi5Launch(launchParams(location.search));
      if (!launch) {
        console.warn("cmi5 launch parameters:", problems.join("; "));
        platformNotice(NO_PLATFORM);
        keepInBrowser();
        return;
      }
      const cmi5 = createCmi5Report({ ...page, launch, fetch: (...args) => window.fetch(...args),
                                      beacon: (url, form) => navigator.sendBeacon(url, form) });
      window.addEventListener("pagehide", () => cmi5.finish());
      if (await cmi5.start().catch(() => false)) report = cmi5;
      else platformNotice(NOT_RECORDED);
      return;
    }
    const runtime = await searchRuntime(window, course.version);
    if (!runtime) {
      platformNotice(NO_PLATFORM);
      keepInBrowser();
      return;
    }
    const scorm = createReport({ ...page, runtime, version: course.version });
    window.addEventListener("pagehide", () => scorm.finish());
    if (scorm.start()) report = scorm;
  }

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
    const { notes, training } = atStart("the address", applyParams) ?? { notes: [], training: null };
    notes.unshift(...ownNotes);
    const notices = [];
    if (notes.length > 0) notices.push(`Some settings in the address were ignored:\n${notes.join("\n")}`);
    // Another build than the one asked for runs (offline): said in the learner's language.
    if (buildFallback) notices.push(fallbackNotice(buildFallback, getJson("ap_get_view").lang));
    if (notices.length > 0) showNotice(notices.join("\n\n"));
    startNotices = notices;
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
      startCourse().catch((e) => {
        console.warn("the course platform failed:", e);
        platformNotice(NOT_RECORDED);
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
    if (name === "scenario" && report) report.shown(getJson("ap_get_progress").lesson);
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
  // The learner's own input ends the hold on a refused link (keepRefusedLink).
  for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
    canvas.addEventListener(type, () => { keepRefusedLink = false; }, { capture: true, passive: true });
  }
  start();
})();
