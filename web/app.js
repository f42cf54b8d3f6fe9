// The page around the WebAssembly app: feature checks and loading, the canvas, touch, fonts,
// the link in the URL fragment, URL parameters for embedding, window.attentionPlayground and
// the same API over postMessage.
//
// Nothing from a link, a URL parameter or a message ever reaches the DOM as HTML: the only
// DOM text this file writes goes through textContent, and everything else goes to the app,
// which draws it on the canvas.
//
// An ES module: the rules that need no page (the address's parameters, the postMessage rules,
// printf's numbers) are modules of their own in web/js/, tested under node.
import { allowList, NAME, nameList, readParams, smallInt } from "./js/params.js";
import { answer, checkMessage, MESSAGE_PREFIX, originAllowed, parentOriginOf } from "./js/messages.js";
import { typedFields } from "./js/typed.js";
import { atlasName, keepAtlas, keptAtlas } from "./js/atlas.js";
import { installTouch, installWheel } from "./js/input.js";
import { createTableView } from "./js/table_view.js";
import { fallbackNotice, keptBuild, missingFeature, moduleBuild } from "./js/builds.js";
import { createFiles } from "./js/files.js";
import { createReport, findRuntime, readCourse } from "./js/lms.js";

(() => {
  const EXPORT_PART_NUMBERS = 1 << 14; // per part of exportFile: some 200 KB of text, a few ms
  const EXPORT_SLICE_MS = 20; // exportFile writes parts for this long between two frames
  // The app's limits, read once it is ready (ap_limits, ui::api::limits: the scenario's shapes,
  // the memory budget, a scenario's and a file's size, a task's seed and training), checked here
  // before anything is copied into its memory.
  let limits = null;
  const MAX_NAME_CHARS = 64; // a lesson's, task's or control's name: longer ones are no name

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
  // ?lms=scorm2004|scorm12&lessons=a,b&pass=P: a course in a course platform (js/lms.js),
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
    // Counted from 1 in the address, as the page shows them ("6. Weights", "head 2"); the JS
    // API counts from 0.
    for (const [name, set, count] of [["head", api.focusHead, () => counts().heads],
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
    if (embedded) return; // an embedded playground leaves its address alone
    if (keepRefusedLink) return;
    clearTimeout(linkTimer);
    linkTimer = setTimeout(() => {
      // Never write over a link that was just pasted: read it first (open it or refuse it).
      if (unreadFragment()) {
        openLink(location.hash);
        return;
      }
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

  // ---------------------------------------------------------------------------------------
  // window.attentionPlayground
  // ---------------------------------------------------------------------------------------

  let resolveReady;
  const readyPromise = new Promise((resolve) => { resolveReady = resolve; });

  // Every call answers instead of throwing: an action returns {ok: true, error: null, ...} or
  // {ok: false, error: "<field>: <problem>"} and changes nothing; a getter returns its data, or
  // {ok: false, error} before the playground is ready. Indices (step, head, batch) are 0-based.
  const failure = (error) => ({ ok: false, error });
  const success = (fields = {}) => ({ ok: true, error: null, ...fields });
  const NOT_READY = "not ready yet: wait for the ready event";
  const whole = (v, name, max) =>
    Number.isInteger(v) && v >= 0 && v <= max ? null
      : max < 0 ? `${name}: there is none` : `${name}: must be a whole number from 0 to ${max}`;

  // The training options {lr, optimizer, speed}, checked: {lr, optimizer, speed} or {error}.
  function checkTraining(options) {
    const { lr, optimizer, speed } = options;
    const maxLr = limits.max_learning_rate;
    if (lr !== undefined && !(typeof lr === "number" && lr > 0 && lr <= maxLr)) {
      return { error: `lr: must be a number above 0 and at most ${maxLr}` };
    }
    if (optimizer !== undefined && !limits.optimizers.includes(optimizer)) {
      return { error: `optimizer: must be ${limits.optimizers.map((o) => `"${o}"`).join(" or ")}` };
    }
    if (speed !== undefined && speed !== "slow" && speed !== "steady" && speed !== "fast") {
      return { error: 'speed: must be "slow", "steady" or "fast"' };
    }
    return { lr, optimizer, speed };
  }

  // Progress marks {lesson: "r-w"} from a caller or from storage: {marks, problems}, the marks
  // that are this playground's lessons with 1 to 8 marks of "-", "r" and "w", and a line for
  // each entry that is not (at most a few).
  const MAX_PROGRESS_CHARS = 1 << 14; // stored progress: some 25 lessons' marks fit in 1 KB
  let lessonIds = null;
  function checkMarks(marks, name) {
    const problems = [];
    if (marks === null || typeof marks !== "object" || Array.isArray(marks)) {
      return { marks: {}, problems: [`${name}: must be an object {lesson: "r-"}`] };
    }
    lessonIds ??= new Set(getJson("ap_presets").map((p) => p.name));
    const entries = Object.entries(marks);
    if (entries.length > 4 * lessonIds.size) {
      return { marks: {}, problems: [`${name}: has ${entries.length} entries, more than there are lessons`] };
    }
    const out = {};
    for (const [id, v] of entries) {
      const at = `${name}.${id.length > 40 ? `${id.slice(0, 40)}…` : id}`;
      if (!lessonIds.has(id)) problems.push(`${at}: is not a lesson of this playground`);
      else if (typeof v !== "string" || !/^[-rw]{1,8}$/.test(v)) problems.push(`${at}: must be 1 to 8 marks of "-", "r" and "w"`);
      else out[id] = v;
    }
    return { marks: out, problems };
  }

  // api.train: steps a slice at a time (at most TRAIN_SLICE_MS each, then the page draws a
  // frame and handles input). The app refuses a slice when its step count is not where the
  // last slice left it: the training was changed in between (see api.train).
  const TRAIN_SLICE_MS = 20;
  let trainJob = 0;
  async function trainInSlices(steps) {
    const job = ++trainJob;
    let taken = 0, at = -1;
    while (taken < steps) {
      if (job !== trainJob) return failure(`train: ended by a newer train() after ${taken} of ${steps} steps`);
      const r = JSON.parse(call("ap_train_slice", "string", ["number", "number", "number"],
                                [steps - taken, TRAIN_SLICE_MS, at]));
      if (r.error) {
        return failure(taken === 0 ? r.error : `${r.error} (after ${taken} of ${steps} steps)`);
      }
      taken += r.taken;
      at = r.step;
      if (taken < steps) await new Promise((resolve) => { setTimeout(resolve, 0); });
    }
    if (job === trainJob) trainJob = 0;
    return success({ training: getJson("ap_training") });
  }

  const api = {
    version: 1,
    ready: readyPromise,
    get isReady() { return ready; },

    // Subscribes to "ready", "scenario", "step", "head", "view", "link", "quiz" ({lesson, question, correct}),
    // "lesson" ({lesson, index, count, done}) or "error"; returns a
    // function that unsubscribes. "ready" fires at once when the playground is already ready.
    on(event, callback) {
      if (typeof event !== "string") return failure("event: must be a string");
      if (typeof callback !== "function") return failure("callback: must be a function");
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(callback);
      if (event === "ready" && ready) queueMicrotask(() => callback(api));
      const off = () => { listeners.get(event).delete(callback); };
      return Object.assign(off, { ok: true, error: null });
    },
    off(event, callback) {
      listeners.get(event)?.delete(callback);
      return success();
    },

    getScenario() { return ready ? getJson("ap_get_scenario") : failure(NOT_READY); },

    // Takes a scenario object (or its JSON text); returns {ok: true, error: null} once it runs,
    // or {ok: false, error: "<field>: <problem>"} and leaves the playground as it was. Any
    // matrix field may be {shape: [rows, cols] | [batch, rows, cols], data: Float32Array}
    // (row-major; w_v {shape: [n], data}): its numbers go to the app as they are, with no
    // text in between and no limit on the text's length (the size limits still apply).
    setScenario(scenario) {
      if (!ready) return failure(NOT_READY);
      const typed = typeof scenario === "string" ? null : typedFields(scenario, limits);
      if (typed?.error) return failure(typed.error);
      let text;
      try {
        text = typeof scenario === "string" ? scenario : JSON.stringify(typed.json);
      } catch (e) {
        return failure(`scenario: cannot be written as JSON (${e.message})`);
      }
      if (typeof text !== "string") return failure("scenario: must be an object");
      if (text.length > limits.max_scenario_chars) {
        return failure(`scenario: is ${text.length} characters, at most ${limits.max_scenario_chars} ` +
                       "(give large matrices as {shape, data: Float32Array})");
      }
      const error = typed?.arrays.length ? setScenarioBinary(text, typed.arrays)
                                         : callWithText("ap_set_scenario", text);
      return error ? failure(error) : success();
    },

    // A NumPy file as a new scenario (README: "Bring your own data"): `data` is the bytes of a
    // .npy or .npz file (np.save, np.savez, np.savez_compressed) as an ArrayBuffer or a typed
    // array, `name` its file name. Each array becomes the field it is named after (x or
    // queries, keys, values; W_q, W_k, W_v, W_o, W, w_v; a lone "keys.npy" is keys); the
    // scoring, temperature and masks stay when they fit. Returns {ok, error}.
    loadArrays(data, name) {
      if (!ready) return failure(NOT_READY);
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : null;
      if (!bytes) return failure("data: must be an ArrayBuffer or a typed array");
      if (typeof name !== "string" || name.length === 0) return failure("name: must be the file's name");
      if (bytes.length > limits.max_file_bytes) {
        return failure(`data: is ${bytes.length} bytes, at most ${limits.max_file_bytes}`);
      }
      const error = openArrays(bytes, name);
      return error ? failure(error) : success();
    },

    // The trace as JSON, or with {typed: true} every matrix as {shape: [batch, rows, cols],
    // data: Float32Array}; {heads: [h, ...]} and {matrices: ["weights", ...]} pick parts (a
    // lean trace's heads are computed on demand, one batch item at a time).
    getTrace(options) {
      if (!ready) return failure(NOT_READY);
      if (options === undefined || options === null || options.typed !== true) {
        return getJson("ap_get_trace");
      }
      return typedTrace(options);
    },
    getView() { return ready ? getJson("ap_get_view") : failure(NOT_READY); },
    // What this learner has done: {lesson, lessons: [{id, title, questions, answered, correct,
    // done}], marks: {id: "r-w"}, done: [ids]}. Kept in this browser (localStorage) and in the
    // link; the playground sends it nowhere: a course page reads it here or from the "quiz" and
    // "lesson" events.
    getProgress() { return ready ? getJson("ap_get_progress") : failure(NOT_READY); },
    // Adds marks {id: "rw"} (one per question: "-" not yet, "r" right, "w" wrong), e.g. what a
    // course page recorded on another device. Answers already given stay.
    setProgress(marks) {
      if (!ready) return failure(NOT_READY);
      const checked = checkMarks(marks, "marks");
      if (checked.problems.length > 0) return failure(checked.problems[0]);
      const error = call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
      if (error) return failure(error);
      saveProgress();
      return success({ progress: getJson("ap_get_progress") });
    },
    // Training (the Train section): {task, seed, step, loss, lr, optimizer, speed, playing,
    // converged, error, check: {loss, value, passed, text} | null, share}.
    getTraining() { return ready ? getJson("ap_training") : failure(NOT_READY); },
    // Loads a toy task (previous_token, reverse, sort, recall, translate, kernel_regression)
    // from a seed, as the Train section does, at its recipe's rate with Adam unless options
    // {lr, optimizer} say otherwise.
    loadTask(name, seed = 1, options = {}) {
      if (!ready) return failure(NOT_READY);
      if (typeof name !== "string") return failure("name: must be a string");
      if (name.length > MAX_NAME_CHARS) return failure(`task: there is no toy task named "${name.slice(0, 40)}…"`);
      if (!Number.isInteger(seed) || seed < 0 || seed > limits.max_task_seed) {
        return failure(`seed: must be a whole number from 0 to ${limits.max_task_seed}`);
      }
      if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
        return failure("options: must be {lr, optimizer, speed}");
      }
      // The options are checked before the task replaces the scenario: a refusal changes nothing.
      const checked = options ? checkTraining(options) : { ok: true };
      if (checked.error) return failure(checked.error);
      const error = call("ap_load_task", "string", ["string", "number"], [name, seed]);
      if (error) return failure(error);
      return !options || Object.keys(options).length === 0
        ? success({ training: getJson("ap_training") })
        : api.setTraining(options);
    },
    // The Train section's {lr, optimizer: "adam"|"sgd", speed: "slow"|"steady"|"fast"} (any
    // may be left out; speed: 10 or 60 steps a second while playing, or all that fit a frame).
    setTraining(options) {
      if (!ready) return failure(NOT_READY);
      if (typeof options !== "object" || options === null || Array.isArray(options)) {
        return failure("options: must be {lr, optimizer, speed}");
      }
      const checked = checkTraining(options);
      if (checked.error) return failure(checked.error);
      const { lr, optimizer, speed } = checked;
      const error = call("ap_set_training", "string", ["number", "string", "string"],
                         [lr ?? NaN, optimizer ?? "", speed ?? ""]);
      return error ? failure(error) : success({ training: getJson("ap_training") });
    },
    // Takes `steps` training steps (1 to 100000) with the section's optimizer and rate, a
    // frame's worth at a time so that the page keeps drawing and answering (the loss curve
    // falls as it goes). Resolves with {ok: true, error: null, training} once they are taken,
    // or {ok: false, error} — also when the training is changed meanwhile (another train(), a
    // new task or scenario, Reset or Play), saying how many steps were taken.
    train(steps) {
      if (!ready) return Promise.resolve(failure(NOT_READY));
      const bad = whole(steps, "steps", 100000);
      if (bad || steps < 1) return Promise.resolve(failure(bad ?? "steps: must be a whole number from 1 to 100000"));
      return trainInSlices(steps);
    },
    // The shown lesson's questions: [{question, step, ask, kind: "key"|"value", matrix (the
    // one it asks about: "weights" for a key), answered, correct, why}] (why once answered).
    getQuiz() { return ready ? getJson("ap_get_quiz") : failure(NOT_READY); },
    // Answers question q (0-based) with {key: j} (0-based) or {value: v}, or gives up with
    // {show: true}: {ok, correct, key|value} where key or value is the core's answer. Fires
    // "quiz" like a click does. Until then, what would answer it is hidden (getAccessible).
    answerQuiz(question, answer) {
      if (!ready) return failure(NOT_READY);
      const bad = whole(question, "question", getJson("ap_get_quiz").length - 1);
      if (bad) return failure(bad);
      if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
        return failure("answer: must be {key: j}, {value: v}, {show: true} or {again: true}");
      }
      // Only these fields, checked here: nothing else of the object is read or sent.
      const { key, value, show, again } = answer;
      const given = {};
      if (show !== undefined) {  // {show: true}: "Show me the answer" (not right first time)
        if (show !== true) return failure("answer.show: must be true");
        given.show = true;
      } else if (again !== undefined) {  // {again: true}: "Ask me again" (the mark stays)
        if (again !== true) return failure("answer.again: must be true");
        given.again = true;
      } else if (key !== undefined) {
        if (!Number.isInteger(key) || key < 0 || key >= limits.max_rows) {
          return failure(`answer.key: must be a whole number from 0 to ${limits.max_rows - 1}`);
        }
        given.key = key;
      } else if (value !== undefined) {
        if (typeof value !== "number" || !Number.isFinite(value)) return failure("answer.value: must be a finite number");
        given.value = value;
      }
      const r = JSON.parse(call("ap_answer_quiz", "string", ["number", "string"],
                                [question, JSON.stringify(given)]));
      return r.error ? failure(r.error) : success(r);
    },
    // The step to show, 0 (inputs) to limits().max_step (7, the output).
    setStep(step) {
      if (!ready) return failure(NOT_READY);
      const bad = whole(step, "step", limits.max_step);
      if (bad) return failure(bad);
      return success({ step: call("ap_set_step", "number", ["number"], [step]) });
    },
    focusHead(head) {
      if (!ready) return failure(NOT_READY);
      const bad = whole(head, "head", counts().heads - 1);
      if (bad) return failure(bad);
      return success({ head: call("ap_focus_head", "number", ["number"], [head]) });
    },
    setBatch(batch) {
      if (!ready) return failure(NOT_READY);
      const bad = whole(batch, "batch", counts().batch - 1);
      if (bad) return failure(bad);
      return success({ batch: call("ap_set_batch", "number", ["number"], [batch]) });
    },
    setLanguage(lang) {
      if (!ready) return failure(NOT_READY);
      if (lang !== "en" && lang !== "zh") return failure('lang: must be "en" or "zh"');
      call("ap_set_language", null, ["string"], [lang]);
      return success();
    },
    loadPreset(name) {
      if (!ready) return failure(NOT_READY);
      if (typeof name !== "string" || !NAME.test(name) ||
          call("ap_load_preset", "number", ["string"], [name]) !== 1) {
        return failure(`preset: there is no preset named "${String(name).slice(0, 40)}"`);
      }
      return success();
    },
    presets() { return ready ? getJson("ap_presets") : failure(NOT_READY); },
    getLink() { return ready ? call("ap_get_link", "string", [], []) : failure(NOT_READY); },
    // Exports as text: what = "trace" | "scenario" | "numpy" | "pytorch", or a matrix id
    // ("queries", "W_q", "Q", "scores", "scaled", "masked", "weights", "head_output", "output",
    // ...) with options {format: "csv" | "json", head, batch} (default: the view's).
    // Returns {ok: true, error: null, filename, mime, data} or {ok: false, error}.
    export(what, options = {}) {
      const args = exportArgs(what, options, "{format, head, batch}");
      return args.error ? failure(args.error)
        : JSON.parse(call("ap_export", "string", ["string", "string", "number", "number"], args.call));
    },
    // The same exports, written a part at a time between frames so that the page never stops
    // (any size; export() refuses a matrix of more than 2^16 numbers). Resolves with {ok: true,
    // error: null, filename, mime, blob} or {ok: false, error}; options.onProgress(done, total)
    // is called with the rows written after each slice of parts, and (rows, rows) at the end.
    // A newer exportFile ends an older one, which resolves with an error.
    async exportFile(what, options = {}) {
      const args = exportArgs(what, options, "{format, head, batch, onProgress}");
      if (args.error) return failure(args.error);
      const onProgress = options?.onProgress;
      if (onProgress !== undefined && typeof onProgress !== "function") {
        return failure("onProgress: must be a function");
      }
      const job = JSON.parse(call("ap_export_start", "string", ["string", "string", "number", "number"],
                                  args.call));
      if (!job.ok) return job;
      // Text parts become a Blob every megabyte or so: encoding them all at the end would hold
      // the page up again, and so did a Blob of 8 MB at a time (55-75 ms each here).
      const blobs = [];
      let parts = [], chars = 0;
      const flush = () => {
        blobs.push(new Blob(parts));
        parts = [];
        chars = 0;
      };
      const report = (rows) => {
        try {
          onProgress?.(rows, job.rows);
        } catch {
          // the caller's callback failing does not end the export
        }
      };
      let slice = performance.now();
      for (;;) {
        const part = call("ap_export_next", "string", ["number", "number"], [job.id, EXPORT_PART_NUMBERS]);
        const row = call("ap_export_row", "number", ["number"], [job.id]);
        if (row < 0) return failure("export: ended by a newer export");
        parts.push(part);
        chars += part.length;
        if (chars > 1 << 20) flush();
        if (row > job.rows) break;
        // Parts until EXPORT_SLICE_MS have gone, then a frame.
        if (performance.now() - slice < EXPORT_SLICE_MS) continue;
        report(row);
        await new Promise((resolve) => { setTimeout(resolve, 0); });
        slice = performance.now();
      }
      flush();
      report(job.rows);
      return success({ filename: job.filename, mime: job.mime, blob: new Blob(blobs, { type: job.mime }) });
    },
    // A PNG of a heatmap as drawn, labels and legend included; id is a key of layout().
    // Resolves with {ok: true, error: null, blob} or {ok: false, error}.
    exportPng(id) {
      if (!ready) return Promise.resolve(failure(NOT_READY));
      if (typeof id !== "string" || !call("ap_export_png", "number", ["string"], [id.slice(0, 64)])) {
        return Promise.resolve(failure(`id: no heatmap "${String(id).slice(0, 64)}" on screen`));
      }
      return new Promise((resolve) => files.pendingPng.push((blob) => resolve(success({ blob }))));
    },
    // Copies text to the clipboard; when the browser refuses, downloads it as `filename`.
    // Resolves with {ok: true, error: null, delivered: "copied" | "downloaded"}.
    async copyOrDownload(text, filename = "attention.txt", mime = "text/plain") {
      if (typeof filename !== "string" || filename.length === 0 || filename.length > 200) {
        return failure("filename: must be a file name of 1 to 200 characters");
      }
      if (typeof mime !== "string" || mime.length > 100) return failure("mime: must be a media type such as text/plain");
      const delivered = await files.deliver(filename, mime, new TextEncoder().encode(String(text)), true);
      return success({ delivered });
    },
    // For tests and benchmarks: when the page became ready and drew its first frame (ms since
    // navigation start), and a way to restart the frame-time statistics of stats().
    timing() { return { ...timing }; },
    clearFrameTimes() {
      if (!ready) return failure(NOT_READY);
      call("ap_clear_frame_times", null, [], []);
      return success();
    },
    // For tests and tools: the last recompute, frames drawn, heap size; where heatmaps are.
    stats() { return ready ? getJson("ap_stats") : failure(NOT_READY); },
    // The limits every input is held to: {max_batch, max_rows, max_cols, memory_budget_bytes,
    // max_scenario_chars, max_file_bytes, max_task_seed, max_train_steps, max_learning_rate,
    // optimizers, max_step, steps, array_fields, head_matrices} (ui::api::limits); a copy.
    limits() { return ready ? structuredClone(limits) : failure(NOT_READY); },
    layout() { return ready ? getJson("ap_layout") : failure(NOT_READY); },
    // layout() after the view is laid out `frames` times (1 to 8) at once, without drawing it:
    // for tests and tools that read where things go, not the pixels (the canvas shows them at
    // its next frame; events wait for it too).
    layoutNow(frames = 2) {
      if (!ready) return failure(NOT_READY);
      if (!Number.isInteger(frames) || frames < 1 || frames > 8) return failure("frames: must be an integer from 1 to 8");
      return JSON.parse(call("ap_layout_now", "string", ["number"], [frames]));
    },
    // Every labelled control the canvas drew in its last frame, where and how much of it shows
    // ([{label, id, window, x0, y0, x1, y1, clip, checked?, open?, text?}]); the first call
    // starts the record, so the list fills a few frames later.
    items() { return ready ? getJson("ap_items") : failure(NOT_READY); },
    // The step on screen as text: title, formula, explanation, note and its matrix (the table
    // view and screen readers read this).
    getAccessible() { return ready ? getJson("ap_accessible") : failure(NOT_READY); },
  };
  // Every call answers, whatever it is given: BigInt values, cyclic objects, a Proxy whose traps
  // throw, getters that throw. What the checks above do not foresee ends here as {ok: false,
  // error} (or a promise of it), never as an exception in the caller's code.
  const describe = (e) => {
    try {
      return String(e?.message ?? e).slice(0, 200);
    } catch {
      return "an argument could not be read";
    }
  };
  for (const name of Object.keys(api)) {
    const fn = Object.getOwnPropertyDescriptor(api, name).value;
    if (typeof fn !== "function" || name === "on" || name === "off") continue;
    api[name] = function guarded(...args) {
      try {
        const r = fn.apply(api, args);
        return r instanceof Promise ? r.catch((e) => failure(`${name}: ${describe(e)}`)) : r;
      } catch (e) {
        return failure(`${name}: ${describe(e)}`);
      }
    };
  }
  for (const name of ["on", "off"]) {
    const fn = api[name];
    api[name] = (...args) => {
      try {
        return fn.apply(api, args);
      } catch (e) {
        return failure(`${name}: ${describe(e)}`);
      }
    };
  }
  Object.defineProperty(window, "attentionPlayground", { value: api, enumerable: true });
  // Files in and out (exports, the clipboard, downloads, opened and dropped files): js/files.js.
  const files = createFiles({ call, getJson, api, isReady: () => ready, running: () => M !== null,
                              limits: () => limits, showNotice, failure });

  // ---------------------------------------------------------------------------------------
  // postMessage: the same API for pages that embed the playground from another origin
  // ---------------------------------------------------------------------------------------

  // Who may drive this playground: the embedding parent (by default), plus an explicit
  // allow-list ?allow=https://a.example,https://b.example.
  const parentOrigin = parentOriginOf({ embedded: window.parent !== window, referrer: document.referrer,
                                        ancestorOrigins: location.ancestorOrigins });
  // "ready" and "height" carry nothing private: when the parent's origin is unknown they go
  // to whichever page embeds us. Replies to calls always go to the caller's origin.
  const notifyOrigin = parentOrigin ?? "*";
  const allowed = allowList(param("allow")).origins;
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
    const problem = checkMessage(data, limits?.max_scenario_chars ?? Infinity);
    if (problem) {
      reply({ ok: false, error: problem });
      return;
    }
    if (!ready) {
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
    const height = Math.round(api.isReady ? preferredHeight() : 640);
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

  // Inside a SCORM package: the LMS's run-time is found up the frames and told what the
  // learner does (js/lms.js). Without one the page says so (onAppReady) and runs as anywhere
  // else.
  function startCourse() {
    const runtime = findRuntime(window, course.version);
    if (!runtime) return;  // said with the address's notes (onAppReady)
    report = createReport({
      runtime, version: course.version, lessons: course.lessons, pass: course.pass,
      progress: () => getJson("ap_get_progress"),
      marks: (marks) => {
        const checked = checkMarks(marks, "suspend_data");
        if (Object.keys(checked.marks).length > 0) {
          call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
        }
        if (checked.problems.length > 0) console.warn("course progress set aside:", checked.problems.join("; "));
      },
      open: (lesson) => api.loadPreset(lesson),
    });
    if (!report.start()) {
      report = null;
      return;
    }
    window.addEventListener("pagehide", () => report?.finish());
  }

  async function onAppReady() {
    M = window.Module;
    timing.readyMs = performance.now();
    ready = true; // the C entry points can be called from here on
    limits = getJson("ap_limits");
    if (location.hash.length > 1) {
      atStart("the link", () => openLink(location.hash, true));
    }
    const { notes, training } = atStart("the address", applyParams) ?? { notes: [], training: null };
    const notices = [];
    // First, so that its line is shown in the learner's language (ap_show_notice).
    if (course.version && !findRuntime(window, course.version)) {
      notices.push("This page was opened as a course, but no course platform answered: " +
                   "your answers are kept in this browser only.");
    }
    if (notes.length > 0) notices.push(`Some settings in the address were ignored:\n${notes.join("\n")}`);
    // Another build than the one asked for runs (offline): said in the learner's language.
    if (buildFallback) notices.push(fallbackNotice(buildFallback, getJson("ap_get_view").lang));
    if (notices.length > 0) showNotice(notices.join("\n\n"));
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
    atStart("the progress kept in this browser", restoreProgress);
    if (course.version) atStart("the course platform", startCourse);
    window.addEventListener("storage", (e) => {
      if (e.key !== PROGRESS_KEY || e.newValue === null) return;
      atStart("progress from another tab", () => {
        mergeStored(e.newValue);
        // Two tabs that wrote at once each read the storage before the other wrote: the one
        // that now holds more than was written writes it back (marks only ever add up, so
        // this ends).
        if (JSON.stringify(getJson("ap_get_progress").marks) !== e.newValue) saveProgress();
      });
    });
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
    if (window.parent !== window) {
      window.parent.postMessage({ type: `${MESSAGE_PREFIX}ready` }, notifyOrigin);
    }
    reportHeightSoon();
  }

  // The step as text, the table view: js/table_view.js.
  const tableView = createTableView({ canvas, call, getJson, api, isReady: () => ready });
  const { renderAccessible, renderSoon } = tableView;

  // This learner's answers, kept in this browser only (and in the link the page shows). Two
  // tabs share them: each write merges what the other kept first, and each tab takes in what
  // the other writes (the storage event). A mark once given stays (AppState::merge_progress).
  const PROGRESS_KEY = "attention-playground:progress";
  let storageRefused = false;  // said once: a failed write is shown on screen
  function saveProgress() {
    let stored = null;
    try {
      stored = localStorage.getItem(PROGRESS_KEY);
      if (stored !== null) mergeStored(stored, false);
      localStorage.setItem(PROGRESS_KEY, JSON.stringify(getJson("ap_get_progress").marks));
      storageRefused = false;
    } catch (e) {
      // Full, or off (private windows, sandboxed frames, a blocked site): say so, once.
      if (storageRefused) return;
      storageRefused = true;
      console.warn("progress not kept:", e);
      showNotice(embedded ? "This browser would not keep your progress." +
                            "\nWhat you answer now lasts until this page is closed."
                          : "This browser would not keep your progress." +
                            "\nWhat you answer now is kept in the page's address: bookmark it to come back.");
    }
  }
  // Marks kept in storage (by this tab, another one, or anything else on this origin): what is
  // this playground's progress is merged, the rest set aside with a notice when `tell`.
  function mergeStored(text, tell = true) {
    let problems;
    if (text.length > MAX_PROGRESS_CHARS) {
      problems = [`it is ${text.length} characters, more than any progress (${MAX_PROGRESS_CHARS})`];
    } else {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const checked = parsed === undefined ? { marks: {}, problems: ["it is not JSON"] }
        : checkMarks(parsed, "progress");
      problems = checked.problems;
      if (Object.keys(checked.marks).length > 0) {
        call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
      }
    }
    if (problems.length === 0) return;
    // What could not be read is dropped, so that it is not met again at every start.
    try {
      localStorage.setItem(PROGRESS_KEY, JSON.stringify(getJson("ap_get_progress").marks));
    } catch {
      // kept as it was; the notice below still says what happened
    }
    if (tell) {
      const more = problems.length > 3 ? `\n… and ${problems.length - 3} more` : "";
      showNotice(`Some progress kept in this browser could not be read and was set aside.\n${problems.slice(0, 3).join("\n")}${more}`);
    }
  }
  function restoreProgress() {
    let saved = null;
    try {
      saved = localStorage.getItem(PROGRESS_KEY);
    } catch {
      return;
    }
    if (saved !== null) mergeStored(saved);
  }

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
      saveProgress();
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
      renderSoon(name === "step");
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
