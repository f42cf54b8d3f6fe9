// window.attentionPlayground: the page's API (docs/embedding.md, docs/contracts.md), the same
// one postMessage calls (js/embed.js). Every call answers instead of throwing: the checks here
// name the field a value is wrong in before anything reaches the app, and a guard around every
// method turns what they do not foresee into {ok: false, error}.
//
// createApi takes the app's calls and the page's parts ({call, getJson, callWithText, isReady,
// limits, listeners, progress, counts, exportArgs, setScenarioBinary, openArrays, typedTrace,
// files, timing}) and gives {api, resolveReady}.
import { NAME } from "./params.js";
import { typedFields } from "./typed.js";

const EXPORT_PART_NUMBERS = 1 << 14; // per part of exportFile: some 200 KB of text, a few ms
const FRAMES_WAIT_MS = 60000; // frames(n) gives up after this (a software renderer under load)
const EXPORT_SLICE_MS = 20; // exportFile writes parts for this long between two frames
export const MAX_NAME_CHARS = 64; // a lesson's, task's or control's name: longer ones are no name

// Every call answers instead of throwing: an action returns {ok: true, error: null, ...} or
// {ok: false, error: "<field>: <problem>"} and changes nothing; a getter returns its data, or
// {ok: false, error} before the playground is ready. Indices (step, head, batch) are 0-based.
export const failure = (error) => ({ ok: false, error });
export const success = (fields = {}) => ({ ok: true, error: null, ...fields });
export const NOT_READY = "not ready yet: wait for the ready event";
export const whole = (v, name, max) =>
  Number.isInteger(v) && v >= 0 && v <= max ? null
    : max < 0 ? `${name}: there is none` : `${name}: must be a whole number from 0 to ${max}`;

// An exception as one line of at most 200 characters, whatever was thrown.
export const describe = (e) => {
  try {
    return String(e?.message ?? e).slice(0, 200);
  } catch {
    return "an argument could not be read";
  }
};

export function createApi({ call, getJson, callWithText, isReady, limits, listeners, progress, counts, exportArgs,
                            setScenarioBinary, openArrays, typedTrace, files, timing }) {
  let resolveReady;
  const readyPromise = new Promise((resolve) => { resolveReady = resolve; });

  // The training options {lr, optimizer, speed}, checked: {lr, optimizer, speed} or {error}.
  function checkTraining(options) {
    const { lr, optimizer, speed } = options;
    const maxLr = limits().max_learning_rate;
    if (lr !== undefined && !(typeof lr === "number" && lr > 0 && lr <= maxLr)) {
      return { error: `lr: must be a number above 0 and at most ${maxLr}` };
    }
    if (optimizer !== undefined && !limits().optimizers.includes(optimizer)) {
      return { error: `optimizer: must be ${limits().optimizers.map((o) => `"${o}"`).join(" or ")}` };
    }
    if (speed !== undefined && speed !== "slow" && speed !== "steady" && speed !== "fast") {
      return { error: 'speed: must be "slow", "steady" or "fast"' };
    }
    return { lr, optimizer, speed };
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
    get isReady() { return isReady(); },

    // Subscribes to "ready", "scenario", "step", "head", "view", "link", "quiz" ({lesson, question, correct}),
    // "lesson" ({lesson, index, count, done}) or "error"; returns a
    // function that unsubscribes. "ready" fires at once when the playground is already ready.
    on(event, callback) {
      if (typeof event !== "string") return failure("event: must be a string");
      if (typeof callback !== "function") return failure("callback: must be a function");
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(callback);
      if (event === "ready" && isReady()) queueMicrotask(() => callback(api));
      const off = () => { listeners.get(event).delete(callback); };
      return Object.assign(off, { ok: true, error: null });
    },
    off(event, callback) {
      listeners.get(event)?.delete(callback);
      return success();
    },

    getScenario() { return isReady() ? getJson("ap_get_scenario") : failure(NOT_READY); },

    // Takes a scenario object (or its JSON text); returns {ok: true, error: null} once it runs,
    // or {ok: false, error: "<field>: <problem>"} and leaves the playground as it was. Any
    // matrix field may be {shape: [rows, cols] | [batch, rows, cols], data: Float32Array}
    // (row-major; w_v {shape: [n], data}): its numbers go to the app as they are, with no
    // text in between and no limit on the text's length (the size limits still apply).
    setScenario(scenario) {
      if (!isReady()) return failure(NOT_READY);
      const typed = typeof scenario === "string" ? null : typedFields(scenario, limits());
      if (typed?.error) return failure(typed.error);
      let text;
      try {
        text = typeof scenario === "string" ? scenario : JSON.stringify(typed.json);
      } catch (e) {
        return failure(`scenario: cannot be written as JSON (${e.message})`);
      }
      if (typeof text !== "string") return failure("scenario: must be an object");
      if (text.length > limits().max_scenario_chars) {
        return failure(`scenario: is ${text.length} characters, at most ${limits().max_scenario_chars} ` +
                       "(give large matrices as {shape, data: Float32Array})");
      }
      const error = typed?.arrays.length ? setScenarioBinary(text, typed.arrays)
                                         : callWithText("ap_set_scenario", text);
      return error ? failure(error) : success();
    },

    // A NumPy file as a new scenario (docs/cli.md: "Bring your own data"): `data` is the bytes of a
    // .npy or .npz file (np.save, np.savez, np.savez_compressed) as an ArrayBuffer or a typed
    // array, `name` its file name. Each array becomes the field it is named after (x or
    // queries, keys, values; W_q, W_k, W_v, W_o, W, w_v; a lone "keys.npy" is keys); the
    // scoring, temperature and masks stay when they fit. Returns {ok, error}.
    loadArrays(data, name) {
      if (!isReady()) return failure(NOT_READY);
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : null;
      if (!bytes) return failure("data: must be an ArrayBuffer or a typed array");
      if (typeof name !== "string" || name.length === 0) return failure("name: must be the file's name");
      if (bytes.length > limits().max_file_bytes) {
        return failure(`data: is ${bytes.length} bytes, at most ${limits().max_file_bytes}`);
      }
      const error = openArrays(bytes, name);
      return error ? failure(error) : success();
    },

    // The trace as JSON, or with {typed: true} every matrix as {shape: [batch, rows, cols],
    // data: Float32Array}; {heads: [h, ...]} and {matrices: ["weights", ...]} pick parts (a
    // lean trace's heads are computed on demand, one batch item at a time).
    getTrace(options) {
      if (!isReady()) return failure(NOT_READY);
      if (options === undefined || options === null || options.typed !== true) {
        return getJson("ap_get_trace");
      }
      return typedTrace(options);
    },
    getView() { return isReady() ? getJson("ap_get_view") : failure(NOT_READY); },
    // What this learner has done: {lesson, lessons: [{id, title, questions, answered, correct,
    // done}], marks: {id: "r-w"}, done: [ids]}. Kept in this browser (localStorage) and in the
    // link; the playground sends it nowhere: a course page reads it here or from the "quiz" and
    // "lesson" events.
    getProgress() { return isReady() ? getJson("ap_get_progress") : failure(NOT_READY); },
    // Adds marks {id: "rw"} (one per question: "-" not yet, "r" right, "w" wrong), e.g. what a
    // course page recorded on another device. Answers already given stay.
    setProgress(marks) {
      if (!isReady()) return failure(NOT_READY);
      const checked = progress.check(marks, "marks");
      if (checked.problems.length > 0) return failure(checked.problems[0]);
      const error = call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
      if (error) return failure(error);
      progress.save();
      return success({ progress: getJson("ap_get_progress") });
    },
    // Training (the Train section): {task, seed, step, loss, lr, optimizer, speed, playing,
    // converged, finished, goal, error, check: {loss, value, passed, text} | null, share}.
    getTraining() { return isReady() ? getJson("ap_training") : failure(NOT_READY); },
    // Loads a toy task (previous_token, reverse, sort, recall, translate, kernel_regression)
    // from a seed, as the Train section does, at its recipe's rate with Adam unless options
    // {lr, optimizer} say otherwise.
    loadTask(name, seed = 1, options = {}) {
      if (!isReady()) return failure(NOT_READY);
      if (typeof name !== "string") return failure("name: must be a string");
      if (name.length > MAX_NAME_CHARS) return failure(`task: there is no toy task named "${name.slice(0, 40)}…"`);
      if (!Number.isInteger(seed) || seed < 0 || seed > limits().max_task_seed) {
        return failure(`seed: must be a whole number from 0 to ${limits().max_task_seed}`);
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
      if (!isReady()) return failure(NOT_READY);
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
      if (!isReady()) return Promise.resolve(failure(NOT_READY));
      const bad = whole(steps, "steps", 100000);
      if (bad || steps < 1) return Promise.resolve(failure(bad ?? "steps: must be a whole number from 1 to 100000"));
      return trainInSlices(steps);
    },
    // The shown lesson's questions: [{question, step, ask, kind: "key"|"value", matrix (the
    // one it asks about: "weights" for a key), answered, correct, why}] (why once answered).
    getQuiz() { return isReady() ? getJson("ap_get_quiz") : failure(NOT_READY); },
    // Answers question q (0-based) with {key: j} (0-based) or {value: v}, or gives up with
    // {show: true}: {ok, correct, key|value} where key or value is the core's answer. Fires
    // "quiz" like a click does. Until then, what would answer it is hidden (getAccessible).
    answerQuiz(question, answer) {
      if (!isReady()) return failure(NOT_READY);
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
        if (!Number.isInteger(key) || key < 0 || key >= limits().max_rows) {
          return failure(`answer.key: must be a whole number from 0 to ${limits().max_rows - 1}`);
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
      if (!isReady()) return failure(NOT_READY);
      const bad = whole(step, "step", limits().max_step);
      if (bad) return failure(bad);
      return success({ step: call("ap_set_step", "number", ["number"], [step]) });
    },
    focusHead(head) {
      if (!isReady()) return failure(NOT_READY);
      const bad = whole(head, "head", counts().heads - 1);
      if (bad) return failure(bad);
      return success({ head: call("ap_focus_head", "number", ["number"], [head]) });
    },
    setBatch(batch) {
      if (!isReady()) return failure(NOT_READY);
      const bad = whole(batch, "batch", counts().batch - 1);
      if (bad) return failure(bad);
      return success({ batch: call("ap_set_batch", "number", ["number"], [batch]) });
    },
    // A stack's layer to show, 0 to getView().layers − 1 (a scenario without "layers" has one).
    setLayer(layer) {
      if (!isReady()) return failure(NOT_READY);
      const bad = whole(layer, "layer", counts().layers - 1);
      if (bad) return failure(bad);
      return success({ layer: call("ap_set_layer", "number", ["number"], [layer]) });
    },
    setLanguage(lang) {
      if (!isReady()) return failure(NOT_READY);
      if (lang !== "en" && lang !== "zh") return failure('lang: must be "en" or "zh"');
      call("ap_set_language", null, ["string"], [lang]);
      return success();
    },
    loadPreset(name) {
      if (!isReady()) return failure(NOT_READY);
      if (typeof name !== "string" || !NAME.test(name) ||
          call("ap_load_preset", "number", ["string"], [name]) !== 1) {
        return failure(`preset: there is no preset named "${String(name).slice(0, 40)}"`);
      }
      return success();
    },
    presets() { return isReady() ? getJson("ap_presets") : failure(NOT_READY); },
    getLink() { return isReady() ? call("ap_get_link", "string", [], []) : failure(NOT_READY); },
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
      if (!isReady()) return Promise.resolve(failure(NOT_READY));
      if (typeof id !== "string" || !call("ap_export_png", "number", ["string"], [id.slice(0, 64)])) {
        return Promise.resolve(failure(`id: no heatmap "${String(id).slice(0, 64)}" on screen`));
      }
      return new Promise((resolve) => files().pendingPng.push((blob) => resolve(success({ blob }))));
    },
    // Copies text to the clipboard; when the browser refuses, downloads it as `filename`.
    // Resolves with {ok: true, error: null, delivered: "copied" | "downloaded"}.
    async copyOrDownload(text, filename = "attention.txt", mime = "text/plain") {
      if (typeof filename !== "string" || filename.length === 0 || filename.length > 200) {
        return failure("filename: must be a file name of 1 to 200 characters");
      }
      if (typeof mime !== "string" || mime.length > 100) return failure("mime: must be a media type such as text/plain");
      const delivered = await files().deliver(filename, mime, new TextEncoder().encode(String(text)), true);
      return success({ delivered });
    },
    // For tests and benchmarks: when the page became ready and drew its first frame (ms since
    // navigation start), and a way to restart the frame-time statistics of stats().
    timing() { return { ...timing }; },
    clearFrameTimes() {
      if (!isReady()) return failure(NOT_READY);
      call("ap_clear_frame_times", null, [], []);
      return success();
    },
    // For tests and tools: resolves once the canvas has drawn `n` more frames (1 to 60; an idle
    // page sleeps, and this wakes it) with {ok: true, error: null, frames} (the count drawn
    // then), or {ok: false, error} when they were not drawn within 60 s (a hidden page draws
    // none).
    async frames(n = 1) {
      if (!isReady()) return failure(NOT_READY);
      if (!Number.isInteger(n) || n < 1 || n > 60) return failure("n: must be an integer from 1 to 60");
      const target = call("ap_draw_frames", "number", ["number"], [n]) + n;
      const t0 = performance.now();
      for (;;) {
        const drawn = call("ap_frame_count", "number", [], []);
        if (drawn >= target) return success({ frames: drawn });
        if (performance.now() - t0 > FRAMES_WAIT_MS) {
          return failure(`frames: ${target - drawn} of ${n} frames were not drawn within ${FRAMES_WAIT_MS / 1000} s`);
        }
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    },
    // For tests and tools: the last recompute, frames drawn, heap size; where heatmaps are.
    stats() { return isReady() ? getJson("ap_stats") : failure(NOT_READY); },
    // The limits every input is held to: {max_batch, max_rows, max_cols, memory_budget_bytes,
    // max_scenario_chars, max_file_bytes, max_task_seed, max_train_steps, max_learning_rate,
    // optimizers, max_step, steps, array_fields, head_matrices} (ui::api::limits); a copy.
    limits() { return isReady() ? structuredClone(limits()) : failure(NOT_READY); },
    layout() { return isReady() ? getJson("ap_layout") : failure(NOT_READY); },
    // layout() after the view is laid out `frames` times (1 to 8) at once, without drawing it:
    // for tests and tools that read where things go, not the pixels (the canvas shows them at
    // its next frame; events wait for it too).
    layoutNow(frames = 2) {
      if (!isReady()) return failure(NOT_READY);
      if (!Number.isInteger(frames) || frames < 1 || frames > 8) return failure("frames: must be an integer from 1 to 8");
      return JSON.parse(call("ap_layout_now", "string", ["number"], [frames]));
    },
    // Every labelled control the canvas drew in its last frame, where and how much of it shows
    // ([{label, id, window, x0, y0, x1, y1, clip, checked?, open?, text?}]); the first call
    // starts the record, so the list fills a few frames later.
    items() { return isReady() ? getJson("ap_items") : failure(NOT_READY); },
    // The step on screen as text: title, formula, explanation, note and its matrix (the table
    // view and screen readers read this).
    getAccessible() { return isReady() ? getJson("ap_accessible") : failure(NOT_READY); },
  };
  // Every call answers, whatever it is given: BigInt values, cyclic objects, a Proxy whose traps
  // throw, getters that throw. What the checks above do not foresee ends here as {ok: false,
  // error} (or a promise of it), never as an exception in the caller's code.
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
  return { api, resolveReady };
}
