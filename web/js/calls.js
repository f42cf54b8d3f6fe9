// The app's C entry points (ccall, every string through the heap) and typed arrays in and out
// of its WebAssembly heap: numbers that never become text. The page's one way into the app
// once it runs (web/app.js hands these calls to the API, the table view, the files, ...).
//
// createCalls takes {module (the Emscripten module, once the app runs), isReady, limits (the
// app's, once it is ready)} and gives the page {call, getJson, counts, exportArgs, callWithText,
// heap, setScenarioBinary, openArrays, typedTrace}.
import { failure, NOT_READY, whole } from "./api.js";

export function createCalls({ module, isReady, limits }) {
  // Every string goes to the app through the heap, never through ccall's own copy onto the
  // 1 MiB WebAssembly stack: a string of some 270,000 characters there overran the stack,
  // corrupted memory and stopped the module for good. Callers bound their strings
  // too; this is the floor under them.
  function call(name, ret, types, args) {
    const M = module();
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
    if (!isReady()) return { error: NOT_READY };
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
    const M = module();
    M._ap_heap_views();
    return { u8: M.HEAPU8, i32: M.HEAP32, f32: M.HEAPF32 };
  }

  // The arrays copied into the WASM heap once, a table of (pointer, length) beside them.
  function setScenarioBinary(text, arrays) {
    const M = module();
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
    const M = module();
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
    const names = limits().head_matrices;  // in the order ap_trace_item gives them
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

  return { call, getJson, counts, exportArgs, callWithText, heap, setScenarioBinary, openArrays, typedTrace };
}
