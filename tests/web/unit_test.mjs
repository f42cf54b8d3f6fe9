// The page's pure modules (web/js/*.js) under node, without a browser: the address's
// parameters, the postMessage rules and printf's numbers, each with the hostile version of
// its input (long strings, wrong types, names that are Object's own, origins that are not).
// formatG is compared with C's printf through python3's % operator on 3,000 numbers. The
// course report (lms.js) against a stand-in run-time that keeps what it is told, and cmi5's
// against a stand-in LRS (a fetch that answers as one).
//
//   node tests/web/unit_test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { allowList, MAX_PARAM_CHARS, nameList, readParams, smallInt } from "../../web/js/params.js";
import { answer, checkMessage, METHODS, originAllowed, parentOriginOf } from "../../web/js/messages.js";
import { formatG, printf } from "../../web/js/format.js";
import { checkShape, typedFields } from "../../web/js/typed.js";
import { addOwnLessons, CMI5, COMMIT_RETRY_MS, courseState, createCmi5Report, createReport, decimalText, describeError,
         findRuntime, interval2004, launchParams, readCmi5Launch, readCourse, MAX_OWN_LESSON_CHARS, searchRuntime,
         timespan12, timestamp2004, VERSIONS } from "../../web/js/lms.js";
import { checkMarks } from "../../web/js/progress.js";
import { createStrictRuntime, nextSession } from "./fixtures/strict_scorm.mjs";

const checks = [];
const check = (name, fn) => checks.push([name, fn]);
const huge = "x".repeat(300000);

// A call on a hostile input that must not hang: no pattern backtracking on a long string, no
// work quadratic in its entries. Those take seconds to minutes at these sizes (300,000
// characters, 100,000 entries), so the bound is 2 s; it is no speed goal (the benchmarks set
// those), and a loaded machine's 350 ms for 100,000 entries (CI at stop 46, against 200 ms
// then) is no failure.
function fast(what, fn) {
  const t0 = performance.now();
  const out = fn();
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `${what} took ${ms.toFixed(0)} ms`);
  return out;
}

check("params: values, missing ones and values over the length limit", () => {
  const param = readParams(`?a=1&b=${"y".repeat(MAX_PARAM_CHARS + 1)}&c=${"z".repeat(MAX_PARAM_CHARS)}&d=`);
  assert.equal(param("a"), "1");
  assert.equal(param("b"), null);  // too long: no value
  assert.equal(param("c"), "z".repeat(MAX_PARAM_CHARS));
  assert.equal(param("d"), "");
  assert.equal(param("nope"), null);
  assert.equal(param("__proto__"), null);
  // Only the first 4 · MAX_PARAM_CHARS characters of the address are read.
  const late = readParams(`?x=${"1".repeat(4 * MAX_PARAM_CHARS)}&late=1`);
  assert.equal(late("late"), null);
  // Hostile addresses: long, undefined, not a string.
  assert.equal(fast("a 300,000-character address", () => readParams(`?a=${huge}`))("a"), null);
  assert.equal(readParams(undefined)("a"), null);
  assert.equal(readParams({ toString: () => "?a=2" })("a"), "2");
});

check("params: name lists keep names only, at most 64", () => {
  assert.deepEqual(nameList("a,B,c_d,,x-y,<b>,é,ok9"), ["a", "c_d", "ok9"]);
  assert.deepEqual(nameList(null), []);
  assert.deepEqual(nameList(""), []);
  assert.equal(nameList(Array.from({ length: 100 }, (_, i) => `n${i}`).join(",")).length, 64);
  assert.deepEqual(nameList("a".repeat(33)), []);  // longer than a name
  assert.deepEqual(fast("a 300,000-character list", () => nameList(`${huge},ok`)), ["ok"]);
  assert.deepEqual(fast("300,000 commas", () => nameList(",".repeat(300000))), []);
});

check("params: small whole numbers only", () => {
  assert.equal(smallInt("7", 10), 7);
  assert.equal(smallInt("10", 10), 10);
  assert.equal(smallInt("11", 10), null);
  assert.equal(smallInt("007", 10), 7);
  for (const bad of ["", "-1", " 1", "1 ", "1e2", "0x1", "1.5", "1000", "٣", null, undefined, 5, huge]) {
    assert.equal(smallInt(bad, 999), null, `smallInt(${String(bad).slice(0, 20)})`);
  }
});

check("params: ?allow= keeps origins and names what is not one", () => {
  const { origins, notes } = allowList(" https://a.example, http://b.example:8080 ,javascript:alert(1)," +
                                       "https://c.example/path,,https://d.example ");
  assert.deepEqual([...origins], ["https://a.example", "http://b.example:8080", "https://d.example"]);
  assert.equal(notes.length, 2);
  assert.match(notes[0], /^allow: "javascript:alert\(1\)" is not an origin/);
  assert.match(notes[1], /^allow: "https:\/\/c\.example\/path" is not an origin/);
  assert.deepEqual(allowList(null), { origins: new Set(), notes: [] });
  const long = fast("a 300,000-character entry", () => allowList(`https://${huge}/`));
  assert.equal(long.origins.size, 0);
  assert.ok(long.notes[0].length < 120, "the note quotes 40 characters of the entry");
  assert.equal(allowList(`https://${"a".repeat(5000)}`).origins.size, 1);  // long but an origin
});

check("messages: the parent's origin from ancestorOrigins, else the referrer, else unknown", () => {
  assert.equal(parentOriginOf({ embedded: false, ancestorOrigins: ["https://p.example"] }), null);
  assert.equal(parentOriginOf({ embedded: true, ancestorOrigins: ["https://p.example"], referrer: "https://r.example/x" }),
               "https://p.example");
  // Firefox's ["null"] (no-referrer): unknown, the referrer is tried.
  assert.equal(parentOriginOf({ embedded: true, ancestorOrigins: ["null"], referrer: "https://r.example/a/b?c" }),
               "https://r.example");
  assert.equal(parentOriginOf({ embedded: true, ancestorOrigins: [], referrer: "" }), null);
  assert.equal(parentOriginOf({ embedded: true, referrer: "null" }), null);
  assert.equal(parentOriginOf({ embedded: true, referrer: "data:text/html,hi" }), null);  // an opaque origin
  assert.equal(parentOriginOf({ embedded: true, referrer: `https://${huge}` }), `https://${huge}`);
  assert.equal(parentOriginOf({ embedded: true }), null);
});

check("messages: who may call", () => {
  const allowed = new Set(["https://ok.example"]);
  const rule = (origin, fromParent, parentOrigin) => originAllowed({ origin, fromParent }, { allowed, parentOrigin });
  assert.equal(rule("https://ok.example", false, null), true);  // listed: from any window
  assert.equal(rule("https://ok.example", false, "https://p.example"), true);
  assert.equal(rule("https://p.example", true, "https://p.example"), true);  // the parent
  assert.equal(rule("https://evil.example", true, "https://p.example"), false);  // the parent navigated away
  assert.equal(rule("https://any.example", true, null), true);  // the parent, its origin unknown
  assert.equal(rule("https://p.example", false, "https://p.example"), false);  // not the parent window
  assert.equal(rule("null", false, null), false);
  assert.equal(rule(huge, false, null), false);
});

check("messages: a call's id, method and arguments, each refused naming the field", () => {
  const call = (fields) => checkMessage({ id: 1, ...fields }, 1000);
  assert.equal(call({ method: "getView" }), "");
  assert.equal(call({ method: "setStep", args: [3] }), "");
  assert.equal(call({ method: "loadTask", args: ["sort"] }), "");  // the optional ones left out
  assert.equal(checkMessage({ method: "getView" }), "id: must be a string or a number");
  assert.equal(checkMessage({ id: {}, method: "getView" }), "id: must be a string or a number");
  for (const method of ["nope", "__proto__", "constructor", "toString", "hasOwnProperty", 7, null, huge]) {
    assert.match(call({ method }), /^method: must be one of getScenario, /, String(method).slice(0, 20));
  }
  assert.equal(call({ method: "getView", args: "x" }), "args: must be an array");
  assert.equal(call({ method: "getView", args: [1] }), "args: getView takes 0 argument(s)");
  assert.equal(call({ method: "setStep", args: ["3"] }), "args[0]: must be number");
  assert.equal(call({ method: "setStep", args: [1.5] }), "args[0]: must be a whole number");
  assert.equal(call({ method: "setStep", args: [NaN] }), "args[0]: must be a whole number");
  assert.equal(call({ method: "setStep", args: [10n] }), "args[0]: must be number");
  assert.equal(call({ method: "setStep", args: [null] }), "args[0]: must be number");
  assert.equal(call({ method: "setScenario", args: [null] }), "args[0]: must be object or string");
  assert.equal(call({ method: "setScenario", args: ["x".repeat(1001)] }), "args[0]: is too long");
  assert.equal(call({ method: "setScenario", args: ["x".repeat(1000)] }), "");
  assert.equal(call({ method: "loadTask", args: ["sort", 1.5] }), "args[1]: must be a whole number");
  // Every method's types are ones typeof gives.
  const types = new Set(["object", "string", "number", "undefined"]);
  for (const [name, args] of Object.entries(METHODS)) {
    for (const a of args) for (const t of a.split("|")) assert.ok(types.has(t), `${name}: ${t}`);
  }
});

check("messages: a method's value as a reply", () => {
  assert.deepEqual(answer({ ok: true, error: null, step: 3 }), { ok: true, result: 3 });
  assert.deepEqual(answer({ ok: true, error: null }), { ok: true, result: null });
  assert.deepEqual(answer({ ok: true, error: null, a: 1, b: 2 }), { ok: true, result: { a: 1, b: 2 } });
  assert.deepEqual(answer({ ok: false, error: "step: no", step: 3 }), { ok: false, error: "step: no" });
  assert.deepEqual(answer([1, 2]), { ok: true, result: [1, 2] });
  assert.deepEqual(answer(null), { ok: true, result: null });
  assert.deepEqual(answer("text"), { ok: true, result: "text" });
  assert.deepEqual(answer({ ok: "yes", error: null }), { ok: true, result: { ok: "yes", error: null } });  // a getter's data
});

check("format: printf fills the app's conversions", () => {
  assert.equal(printf("step %d, loss %.3g", 600, 0.0031234), "step 600, loss 0.00312");
  assert.equal(printf("%s of %d", "a", 7.9), "a of 7");
  assert.equal(printf("%s %s", "a"), "a %s");  // no value left: as written
  assert.equal(printf("100%", 1), "100%");
  assert.equal(printf("%g", 1e21), "1e+21");
  assert.equal(fast("a 300,000-character format", () => printf(`${"%".repeat(300000)}d`, 1)).length, 300000);
  assert.equal(printf(undefined), "undefined");
});

check("format: formatG is C's %.Ng on 3,000 numbers (python3's % operator)", () => {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const cases = [];
  for (let i = 0; i < 3000; ++i) {
    const x = (random() < 0.5 ? -1 : 1) * random() * 10 ** Math.floor(random() * 24 - 12);
    cases.push([x, 1 + Math.floor(random() * 9)]);
  }
  // Ties (exact binary fractions), carries (9.99…) and the ends of the double range.
  cases.push([0.0001, 3], [0.00001, 3], [999999.5, 6], [123456.5, 6], [1, 1], [9.5, 1], [0.5, 1],
             [0.125, 2], [0.375, 2], [2.5, 1], [3.5, 1], [0.0625, 2], [99.95, 3], [9.999, 3],
             [1e-300, 4], [1.7976931348623157e308, 17], [5e-324, 3], [-0.0001234, 2]);
  const ours = cases.map(([x, p]) => formatG(x, p));
  const theirs = JSON.parse(execFileSync("python3", ["-c",
    "import json,sys; print(json.dumps(['%.*g' % (p, x) for x, p in json.load(sys.stdin)]))"],
    { input: JSON.stringify(cases) }).toString());
  const wrong = cases.map((c, i) => [c, ours[i], theirs[i]]).filter(([, a, b]) => a !== b);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${cases.length} differ`);
  assert.equal(formatG(NaN, 3), "NaN");
  assert.equal(formatG(-Infinity, 3), "-Infinity");
  assert.equal(formatG(0, 3), "0");
  assert.equal(formatG(1 / 3, 1000), formatG(1 / 3, 17));  // precision held to 17, no RangeError
  assert.equal(formatG(2.5, -5), "2");  // at least one digit; the tie to even, as C
  assert.equal(formatG(0.125, 2), "0.12");  // toPrecision would say 0.13
  assert.equal(formatG(-0, 3), "-0");
});

// Limits of the form limits() gives (typedFields takes them as an argument: these are test
// numbers, the same as today's; the page's own are used by api_test.mjs "typed").
const LIMITS = { max_batch: 64, max_rows: 4096, max_cols: 1024, memory_budget_bytes: 384 * 2 ** 20,
                 array_fields: ["x", "queries", "keys", "values", "W_q", "W_k", "W_v", "W_o", "W", "w_v"] };

check("typed: shapes are checked against the limits before anything is allocated", () => {
  assert.deepEqual(checkShape("x", [2, 3], LIMITS), { sizes: [2, 3], numbers: 6 });
  assert.deepEqual(checkShape("keys", [64, 4096, 1], LIMITS), { sizes: [64, 4096, 1], numbers: 262144 });
  assert.deepEqual(checkShape("w_v", [5], LIMITS), { sizes: [5], numbers: 5 });
  const bad = [
    ["x", [2], "x.shape: must be [rows, cols] or [batch, rows, cols]"],
    ["x", [1, 2, 3, 4], "x.shape: must be [rows, cols] or [batch, rows, cols]"],
    ["w_v", [2, 2], "w_v.shape: must be [n]"],
    ["x", "2,3", "x.shape: must be [rows, cols] or [batch, rows, cols]"],
    ["x", null, "x.shape: must be [rows, cols] or [batch, rows, cols]"],
    ["x", [2, 1025], "x.shape[1]: must be a whole number of columns from 1 to 1024"],
    ["x", [4097, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [65, 2, 2], "x.shape[0]: must be a whole number of batch items from 1 to 64"],
    ["x", [2 ** 32, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [0, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [-1, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [1.5, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [NaN, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", ["2", 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [2n, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
    ["x", [Infinity, 2], "x.shape[0]: must be a whole number of rows from 1 to 4096"],
  ];
  for (const [field, shape, error] of bad) assert.deepEqual(checkShape(field, shape, LIMITS), { error });
});

check("typed: fields become buffers; wrong data, sizes and totals are named", () => {
  const x = { shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) };
  const w = { shape: [2, 3], data: new Float32Array(6) };
  const r = typedFields({ version: 1, x, W_q: w, title: "t" }, LIMITS);
  assert.deepEqual(r.json, { version: 1, x: { shape: [2, 2], buffer: 0 }, W_q: { shape: [2, 3], buffer: 1 }, title: "t" });
  assert.equal(r.arrays[0], x.data);
  assert.equal(r.arrays[1], w.data);
  // Not typed: handed on untouched, the same object.
  const plain = { version: 1, x: [[1, 2]] };
  assert.equal(typedFields(plain, LIMITS).json, plain);
  assert.equal(typedFields(null, LIMITS).json, null);
  assert.equal(typedFields("text", LIMITS).json, "text");
  // Only the listed fields: data under another name is left for the app to refuse.
  const other = { version: 1, target: { shape: [1, 1], data: new Float32Array(1) } };
  assert.equal(typedFields(other, LIMITS).json, other);
  const errors = [
    [{ x: { shape: [2, 2], data: [1, 2, 3, 4] } }, "x.data: must be a Float32Array"],
    [{ x: { shape: [2, 2], data: new Float64Array(4) } }, "x.data: must be a Float32Array"],
    [{ x: { shape: [2, 2], data: new Float32Array(5) } },
     "x.data: has 5 numbers, expected 4 (the product of the shape [2, 2])"],
    [{ x: { shape: [2 ** 31, 2], data: new Float32Array(4) } },
     "x.shape[0]: must be a whole number of rows from 1 to 4096"],
  ];
  for (const [scenario, error] of errors) assert.deepEqual(typedFields(scenario, LIMITS), { error });
  // Each array within the limits, together over the memory budget: refused before a copy.
  const small = { ...LIMITS, memory_budget_bytes: 64 };
  assert.match(typedFields({ queries: { shape: [4, 4], data: new Float32Array(16) },
                             keys: { shape: [2, 2], data: new Float32Array(4) } }, small).error,
               /^keys\.data: the typed arrays hold 20 numbers \(1 MB\), more than the /);
  // A getter that throws is the caller's error: typedFields does not catch it (setScenario
  // answers {ok: false}, hostile_test.mjs "throws").
  assert.throws(() => typedFields({ get x() { throw new Error("boom"); } }, LIMITS), /boom/);
});

// A stand-in SCORM run-time: it keeps what it is set, answers "true" or, when `refuse` names
// the element, "false" with error 351, and counts the interactions as an LMS does.
function standIn(version, initial = {}, refuse = null) {
  const v = VERSIONS[version];
  const data = { "cmi.interactions._count": "0", ...initial };
  const calls = [];
  let error = "0";
  return {
    data, calls,
    [v.init]: () => { calls.push("init"); return "true"; },
    [v.get]: (e) => (e in data ? data[e] : ""),
    [v.set]: (e, value) => {
      calls.push(`${e}=${value}`);
      if (typeof value !== "string") throw new Error(`${e}: not a string`);
      if (e === refuse) { error = "351"; return "false"; }
      data[e] = value;
      const m = /^cmi\.interactions\.(\d+)\.id$/.exec(e);
      if (m) data["cmi.interactions._count"] = String(Math.max(Number(data["cmi.interactions._count"]), Number(m[1]) + 1));
      return "true";
    },
    [v.commit]: () => { calls.push("commit"); return "true"; },
    [v.finish]: () => { calls.push("finish"); return "true"; },
    [v.error]: () => error,
    [v.errorText]: (code) => `error ${code}`,
  };
}

// The page's side: two lessons of 2 and 1 questions, the marks it keeps.
function page(lessons = { a: 2, b: 1 }) {
  const marks = {};
  const opened = [];
  return {
    marks, opened,
    progress: () => ({
      lesson: opened.at(-1) ?? "",
      marks: { ...marks },
      lessons: Object.entries(lessons).map(([id, questions]) => {
        const m = marks[id] ?? "";
        return { id, questions, answered: [...m].filter((c) => c !== "-").length,
                 correct: [...m].filter((c) => c === "r").length,
                 done: m.length === questions && !m.includes("-") };
      }),
    }),
    answer(id, q, right) {
      const m = [...(marks[id] ?? "-".repeat(lessons[id]))];
      if (m[q] === "-") m[q] = right ? "r" : "w";
      marks[id] = m.join("");
    },
    restore: (m) => Object.assign(marks, m),
    open: (id) => opened.push(id),
  };
}

check("lms: the course in the address, each bad part named and ignored", () => {
  const known = ["a", "b", "c"];
  assert.deepEqual(readCourse(readParams("?lms=scorm2004&lessons=c,a&pass=75"), known),
                   { version: "scorm2004", lessons: ["c", "a"], pass: 0.75, notes: [] });
  assert.deepEqual(readCourse(readParams(""), known), { version: null, lessons: known, pass: 0.8, notes: [] });
  const bad = readCourse(readParams(`?lms=__proto__&lessons=a,zz,${"q".repeat(500)}&pass=101`), known);
  assert.equal(bad.version, null);
  assert.deepEqual(bad.lessons, ["a"]);
  assert.equal(bad.pass, 0.8);
  assert.deepEqual(bad.notes.map((n) => n.split(":")[0]), ["lms", "lessons", "pass"]);
  assert.ok(bad.notes.every((n) => n.length < 200), "each note is short");
  assert.equal(readCourse(readParams("?lms=toString"), known).version, null);
  assert.deepEqual(readCourse(readParams("?lessons=zz"), known).lessons, known);
  // 200 names (the 64 first read), and an address too long to read a value from at all.
  assert.deepEqual(fast("200 lesson names", () => readCourse(readParams(`?lessons=${"b,".repeat(200)}`), known)).lessons, ["b"]);
  assert.deepEqual(fast("3,000 lesson names", () => readCourse(readParams(`?lessons=${"a,".repeat(3000)}`), known)).lessons, known);
});

check("lms: the run-time is found up the frames and the opener's, not across origins", () => {
  const api = standIn("scorm2004");
  const top = { API_1484_11: api };
  top.parent = top;
  const mid = { parent: top };
  const leaf = { parent: mid };
  assert.equal(findRuntime(leaf, "scorm2004"), api);
  assert.equal(findRuntime(leaf, "scorm12"), null);
  assert.equal(findRuntime(leaf, "nope"), null);
  // A frame of another origin throws when read: the search stops there.
  const foreign = new Proxy({}, { get() { throw new Error("SecurityError"); } });
  assert.equal(findRuntime({ parent: foreign }, "scorm2004"), null);
  // A popup: the opener's frames.
  const popup = { parent: null, opener: leaf };
  popup.parent = popup;
  assert.equal(findRuntime(popup, "scorm2004"), api);
  // A loop of parents ends; an object without the calls is not a run-time.
  const a = { API: { LMSInitialize: 1 } }, b = { parent: a };
  a.parent = b;
  assert.equal(findRuntime(b, "scorm12"), null);
});

check("lms: SCORM 2004: interactions, score, completion and success, then a resumed session", () => {
  const api = standIn("scorm2004");
  const p = page();
  const report = createReport({ runtime: api, version: "scorm2004", lessons: ["a", "b"], pass: 0.6,
                                progress: p.progress, marks: p.restore, open: p.open,
                                now: () => new Date("2026-11-27T10:00:00Z"), warn: assert.fail });
  assert.equal(report.start(), true);
  assert.deepEqual(p.opened, ["a"]);
  assert.equal(api.data["cmi.completion_status"], "incomplete");
  assert.equal(api.data["cmi.success_status"], "unknown");
  p.answer("a", 0, true);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 2, ask: "Which key?" });
  p.answer("a", 1, false);
  report.answered({ lesson: "a", question: 1, correct: false, kind: "value", response: 0.25 });
  report.answered({ lesson: "elsewhere", question: 0, correct: true, kind: "key", response: 0 });
  assert.equal(api.data["cmi.interactions.0.id"], "a.q1");
  assert.equal(api.data["cmi.interactions.0.type"], "choice");
  assert.equal(api.data["cmi.interactions.0.learner_response"], "key_3");
  assert.equal(api.data["cmi.interactions.0.result"], "correct");
  assert.equal(api.data["cmi.interactions.0.timestamp"], "2026-11-27T10:00:00.00Z");  // UTC, said so
  assert.equal(api.data["cmi.interactions.0.description"], "Which key?");
  assert.equal(api.data["cmi.interactions.1.type"], "numeric");
  assert.equal(api.data["cmi.interactions.1.learner_response"], "0.25");
  assert.equal(api.data["cmi.interactions.1.result"], "incorrect");
  assert.equal(api.data["cmi.interactions._count"], "2");  // another lesson's answer: not reported
  assert.equal(api.data["cmi.progress_measure"], "0.5");
  report.shown("b");
  assert.equal(api.data["cmi.location"], "b");
  p.answer("b", 0, true);
  report.answered({ lesson: "b", question: 0, correct: true, kind: "key", response: null });
  assert.equal(api.data["cmi.interactions.2.learner_response"], undefined);  // "Show me": none
  assert.equal(api.data["cmi.completion_status"], "completed");
  assert.equal(api.data["cmi.score.raw"], "67");
  assert.equal(api.data["cmi.score.max"], "100");
  assert.equal(api.data["cmi.score.scaled"], "0.6667");
  assert.equal(api.data["cmi.success_status"], "passed");
  assert.equal(api.data["cmi.exit"], "suspend");
  report.finish();
  assert.equal(api.calls.at(-1), "finish");
  assert.equal(report.live(), false);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });  // after: nothing
  assert.equal(api.calls.at(-1), "finish");
  // The next session: the marks and the lesson come back from the suspend data and location.
  const again = standIn("scorm2004", { ...api.data });
  const q = page();
  createReport({ runtime: again, version: "scorm2004", lessons: ["a", "b"], pass: 0.6, progress: q.progress,
                 marks: q.restore, open: q.open, warn: assert.fail }).start();
  assert.deepEqual(q.marks, { a: "rw", b: "r" });
  assert.deepEqual(q.opened, ["b"]);
  assert.equal(again.data["cmi.interactions._count"], "3");
});

check("lms: SCORM 1.2: lesson_status, a score in percent, keys written out", () => {
  const api = standIn("scorm12");
  const p = page({ a: 2 });
  const report = createReport({ runtime: api, version: "scorm12", lessons: ["a"], pass: 0.8,
                                progress: p.progress, marks: p.restore, open: p.open, warn: assert.fail });
  report.start();
  p.answer("a", 0, true);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 0 });
  p.answer("a", 1, false);
  report.answered({ lesson: "a", question: 1, correct: false, kind: "key", response: 4 });
  assert.equal(api.data["cmi.interactions.0.type"], "fill-in");
  assert.equal(api.data["cmi.interactions.1.student_response"], "key_5");
  assert.equal(api.data["cmi.interactions.1.result"], "wrong");
  assert.match(api.data["cmi.interactions.1.time"], /^\d\d:\d\d:\d\d$/);
  assert.equal(api.data["cmi.core.score.raw"], "50");
  assert.equal(api.data["cmi.core.lesson_status"], "failed");
  assert.equal(api.data["cmi.core.exit"], "suspend");
});

check("lms: a hostile or failing run-time never stops the page", () => {
  const warnings = [];
  const run = (runtime, initial) => {
    const p = page();
    const r = createReport({ runtime, version: "scorm2004", lessons: ["a", "b"], pass: 0.8, progress: p.progress,
                             marks: p.restore, open: p.open, warn: (m) => warnings.push(m) });
    const started = r.start();
    p.answer("a", 0, true);
    r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
    r.finish();
    return { started, p, initial };
  };
  // Initialize refuses; Initialize throws; SetValue throws.
  const refusing = { ...standIn("scorm2004"), Initialize: () => "false" };
  assert.equal(run(refusing).started, false);
  const throwing = { ...standIn("scorm2004"), Initialize: () => { throw new Error("boom"); } };
  assert.equal(run(throwing).started, false);
  const setThrows = { ...standIn("scorm2004"), SetValue: () => { throw new Error("quota"); } };
  run(setThrows);
  // One element refused: one warning, then silence.
  const before = warnings.length;
  run(standIn("scorm2004", {}, "cmi.score.scaled"));
  assert.equal(warnings.length, before + 1);
  assert.match(warnings.at(-1), /cmi\.score\.scaled.*351: error 351/);
  // Suspend data that is not ours, or huge, or marks of the wrong kind: set aside, said once
  // each (what marks are accepted is the page's checkMarks: lms_test.mjs "hostile").
  for (const suspend of ["not json", "x".repeat(100000), JSON.stringify({ marks: "rw" }), "null", "[]"]) {
    const said = warnings.length;
    const { p } = run(standIn("scorm2004", { "cmi.suspend_data": suspend }));
    assert.deepEqual(p.marks, { a: "r-" });
    assert.equal(warnings.length, said + 1);
    assert.match(warnings.at(-1), /suspend data is not this playground's/);
  }
  // A location that is no lesson of the course opens the first.
  const { p } = run(standIn("scorm2004", { "cmi.location": "../../etc" }));
  assert.deepEqual(p.opened, ["a"]);
  assert.ok(warnings.every((w) => w.length < 400), "each warning is short");
});

// A stand-in LRS, as the fetch cmi5's report is given: the fetch URL answers a token once
// (and an error after, as cmi5 requires), statements are kept, state documents stored; a
// request without the token or the xAPI version is refused. `refuse` makes one path answer 500.
function standInLrs({ documents = {}, tokenAnswer = null, refuse = null } = {}) {
  const token = "dGVzdDpzZWNyZXQ=";
  const statements = [];
  let fetched = 0;
  const reply = (status, body = "") => ({ ok: status >= 200 && status < 300, status,
                                          headers: { get: () => null }, text: async () => body });
  const fetch = async (url, init = {}) => {
    const u = new URL(url);
    if (u.pathname === "/fetch") {
      if (init.method !== "POST") return reply(405);
      return ++fetched === 1 ? reply(200, tokenAnswer ?? JSON.stringify({ "auth-token": token }))
                             : reply(200, JSON.stringify({ "error-code": "1", "error-text": "already in use" }));
    }
    // xAPI's alternate request syntax (what the page sends as it is left): the method, the
    // headers, the parameters and the content from the form.
    if (u.searchParams.has("method")) {
      assert.equal(init.method, "POST");
      assert.equal(init.headers["Content-Type"], "application/x-www-form-urlencoded");
      assert.equal(init.keepalive, true);
      const form = new URLSearchParams(init.body);
      const method = u.searchParams.get("method");
      init = { method, body: form.get("content"),
               headers: Object.fromEntries(["Authorization", "X-Experience-API-Version", "Content-Type"].map((h) => [h, form.get(h)])) };
      for (const k of ["stateId", "activityId", "agent", "registration"]) if (form.has(k)) u.searchParams.set(k, form.get(k));
      u.searchParams.delete("method");
    }
    if (init.headers?.Authorization !== `Basic ${token}` || init.headers?.["X-Experience-API-Version"] !== "1.0.3") {
      return reply(401);
    }
    if (u.pathname === refuse) return reply(500);
    if (u.pathname === "/xapi/statements" && init.method === "POST") {
      assert.equal(init.headers["Content-Type"], "application/json");
      statements.push(JSON.parse(init.body));
      return reply(200, "[]");
    }
    if (u.pathname === "/xapi/activities/state") {
      const id = u.searchParams.get("stateId");
      assert.equal(u.searchParams.get("registration"), REGISTRATION);
      assert.deepEqual(JSON.parse(u.searchParams.get("agent")), ACTOR);
      if (init.method === "GET") return Object.hasOwn(documents, id) ? reply(200, documents[id]) : reply(404);
      if (init.method === "PUT") {
        documents[id] = init.body;
        return reply(204);
      }
    }
    return reply(404);
  };
  return { fetch, statements, documents, fetched: () => fetched, verbs: () => statements.map((s) => s.verb.display["en-US"]) };
}

const REGISTRATION = "2c0b5c39-8f7e-4f5b-9a5d-4f2b1a6c7d8e";
const ACTOR = { objectType: "Agent", account: { homePage: "https://lms.example", name: "learner-7" } };
const AU = "https://attention-playground.invalid/course/0123456789abcdef/au";
const launchQuery = (over = {}) => `?${new URLSearchParams({
  lms: "cmi5", endpoint: "https://lrs.example/xapi/", fetch: "https://lrs.example/fetch?k=1",
  actor: JSON.stringify(ACTOR), registration: REGISTRATION, activityId: AU, ...over })}`;
const LAUNCH = readCmi5Launch(launchParams(launchQuery())).launch;

function cmi5Session(lrs, { lessons = ["a", "b"], pass = 0.6, warn = assert.fail, p = page() } = {}) {
  const report = createCmi5Report({ launch: LAUNCH, lessons, pass, progress: p.progress, marks: p.restore,
                                    open: p.open, fetch: lrs.fetch, warn, now: () => new Date("2026-11-27T10:00:00Z"),
                                    wait: async () => {} });
  return { report, p };
}

check("lms: cmi5's launch parameters, each bad or missing one named", () => {
  assert.deepEqual(LAUNCH, { endpoint: "https://lrs.example/xapi/", fetchUrl: "https://lrs.example/fetch?k=1",
                             actor: ACTOR, registration: REGISTRATION, activityId: AU });
  // The endpoint without its "/"; the actor rebuilt from the checked fields alone.
  const own = readCmi5Launch(launchParams(launchQuery({ endpoint: "http://127.0.0.1:9/lrs",
    actor: JSON.stringify({ ...ACTOR, name: "Ann", mbox: "mailto:x@y", __proto__: { polluted: 1 }, extra: [1] }) })));
  assert.equal(own.launch.endpoint, "http://127.0.0.1:9/lrs/");
  assert.deepEqual(own.launch.actor, { ...ACTOR, name: "Ann" });
  assert.deepEqual(readCmi5Launch(launchParams("?lms=cmi5")).problems,
                   ["endpoint: missing", "fetch: missing", "actor: missing", "registration: missing", "activityId: missing"]);
  const hostile = {
    endpoint: ["javascript:alert(1)", "https://lrs.example/xapi/?x=1", "file:///etc/passwd", "", "not a url"],
    fetch: ["data:text/plain,token", "//lrs.example/fetch", "ftp://x/"],
    actor: ["{", "[]", "null", "\"learner\"", JSON.stringify({ mbox: "mailto:a@b" }),
            JSON.stringify({ account: { homePage: "javascript:1", name: "n" } }),
            JSON.stringify({ account: { homePage: "https://l", name: "n".repeat(501) } }),
            JSON.stringify({ account: { homePage: "https://l", name: 7 } }), JSON.stringify({ account: [] })],
    registration: ["not-a-uuid", `${REGISTRATION}\n`, REGISTRATION.replace(/-/g, ""), "../../etc"],
    activityId: ["no scheme", "https://a b", "https://a\u0000b", ":x"],
  };
  for (const [name, values] of Object.entries(hostile)) {
    for (const value of values) {
      const r = fast(`${name}=${value.slice(0, 20)}`, () => readCmi5Launch(launchParams(launchQuery({ [name]: value }))));
      assert.equal(r.launch, null, `${name}=${value}`);
      assert.deepEqual(r.problems.map((q) => q.split(":")[0]), [name], `${name}=${value}`);
    }
  }
  // Values over 2,000 characters are not read; an address of megabytes is cut before parsing.
  assert.deepEqual(readCmi5Launch(launchParams(launchQuery({ activityId: `https://x/${"a".repeat(3000)}` }))).problems,
                   ["activityId: missing"]);
  assert.equal(fast("a huge address", () => readCmi5Launch(launchParams(`?endpoint=${huge}${huge}`))).launch, null);
  assert.equal(readCourse(readParams("?lms=cmi5"), ["a"]).version, "cmi5");
});

check("lms: cmi5: initialized, answered, completed, passed, terminated; a second session resumes", async () => {
  const lrs = standInLrs({ documents: { [CMI5.launchData]: JSON.stringify({
    launchMode: "Normal", masteryScore: 0.6, moveOn: "CompletedAndPassed",
    contextTemplate: { contextActivities: { grouping: [{ id: "https://lms.example/course/1" }] },
                       extensions: { "https://w3id.org/xapi/cmi5/context/extensions/sessionid": "s-1" } } }) } });
  const { report, p } = cmi5Session(lrs, { pass: 0.9 });  // LMS.LaunchData's 0.6 decides
  assert.equal(await report.start(), true);
  assert.equal(lrs.fetched(), 1);
  assert.deepEqual(p.opened, ["a"]);
  assert.deepEqual(lrs.verbs(), ["initialized"]);
  p.answer("a", 0, true);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 2, ask: "Which key?" });
  p.answer("a", 1, false);
  report.answered({ lesson: "a", question: 1, correct: false, kind: "value", response: 0.25 });
  report.answered({ lesson: "elsewhere", question: 0, correct: true, kind: "key", response: 0 });
  report.shown("b");
  p.answer("b", 0, true);
  report.answered({ lesson: "b", question: 0, correct: true, kind: "key", response: null });  // "Show me"
  await report.settled();
  assert.deepEqual(lrs.verbs(), ["initialized", "answered", "answered", "answered", "completed", "passed"]);
  const [init, a1, a2, a3, completed, passed] = lrs.statements;
  for (const s of lrs.statements) {
    assert.deepEqual(s.actor, ACTOR);
    assert.equal(s.context.registration, REGISTRATION);
    assert.equal(s.context.extensions["https://w3id.org/xapi/cmi5/context/extensions/sessionid"], "s-1");
    assert.deepEqual(s.context.contextActivities.grouping, [{ id: "https://lms.example/course/1" }]);
    assert.equal(s.verb.id, `http://adlnet.gov/expapi/verbs/${s.verb.display["en-US"]}`);
    assert.equal(s.timestamp, "2026-11-27T10:00:00.000Z");
  }
  const categories = (s) => (s.context.contextActivities.category ?? []).map((c) => c.id);
  assert.deepEqual(init.object, { objectType: "Activity", id: AU });
  assert.deepEqual(categories(init), [CMI5.category]);
  // "answered" is an allowed statement: no cmi5 category.
  assert.deepEqual(categories(a1), []);
  assert.deepEqual(Object.keys(a1.context.contextActivities), ["grouping"]);
  assert.deepEqual(a1.object, { objectType: "Activity", id: `${AU}#a.q1`, definition: {
    type: "http://adlnet.gov/expapi/activities/cmi.interaction", name: { "en-US": "Which key?" }, interactionType: "choice" } });
  assert.deepEqual(a1.result, { success: true, response: "key_3" });
  assert.deepEqual(a2.result, { success: false, response: "0.25" });
  assert.equal(a2.object.definition.interactionType, "numeric");
  assert.deepEqual(a3.result, { success: true });
  assert.deepEqual(categories(completed), [CMI5.category, CMI5.moveOnCategory]);
  assert.deepEqual(completed.result, { completion: true, duration: "PT0.00S" });
  assert.deepEqual(passed.result, { score: { scaled: 0.6667 }, success: true, duration: "PT0.00S" });
  assert.equal(passed.context.extensions[CMI5.masteryScore], 0.6);
  const kept = JSON.parse(lrs.documents[CMI5.stateId]);
  assert.deepEqual(kept, { version: 1, marks: { a: "rw", b: "r" }, lesson: "b",
                           sent: { completed: true, passed: true, failed: false } });
  report.finish();
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(lrs.verbs().slice(-1), ["terminated"]);
  assert.deepEqual(categories(lrs.statements.at(-1)), [CMI5.category]);
  assert.equal(report.live(), false);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });  // after: nothing
  report.finish();
  await report.settled();
  assert.equal(lrs.statements.length, 7);
  // The fetch URL answers once: a second start with it is refused, said once.
  const warnings = [];
  assert.equal(await cmi5Session(lrs, { warn: (m) => warnings.push(m) }).report.start(), false);
  assert.match(warnings.join("\n"), /auth token \(already in use\)/);
  // The next launch (a new fetch URL): the marks and the lesson come back, and neither
  // completed nor passed is sent again for the registration.
  const next = standInLrs({ documents: { ...lrs.documents } });
  const again = cmi5Session(next);
  assert.equal(await again.report.start(), true);
  assert.deepEqual(again.p.marks, { a: "rw", b: "r" });
  assert.deepEqual(again.p.opened, ["b"]);
  assert.deepEqual(next.verbs(), ["initialized"]);
});

check("lms: cmi5: failed below the mastery score; Browse mode sends no judgement", async () => {
  const lrs = standInLrs();
  const { report, p } = cmi5Session(lrs, { lessons: ["a"], pass: 0.8 });
  assert.equal(await report.start(), true);
  p.answer("a", 0, true);
  report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 0 });
  p.answer("a", 1, false);
  report.answered({ lesson: "a", question: 1, correct: false, kind: "key", response: 1 });
  await report.settled();
  assert.deepEqual(lrs.verbs(), ["initialized", "answered", "answered", "completed", "failed"]);
  assert.deepEqual(lrs.statements.at(-1).result, { score: { scaled: 0.5 }, success: false, duration: "PT0.00S" });
  assert.equal(lrs.statements.at(-1).context.extensions, undefined);  // no mastery score given, no template
  // As the page goes: a beacon when the window gives one (the alternate syntax's form), else
  // the keepalive fetch.
  const beacons = [];
  const withBeacon = createCmi5Report({ launch: LAUNCH, lessons: ["a"], pass: 0.8, progress: page().progress,
                                        marks: () => {}, open: () => {}, fetch: standInLrs().fetch, warn: assert.fail,
                                        beacon: (url, form) => beacons.push([url, form.get("content")]) > 0 });
  assert.equal(await withBeacon.start(), true);
  withBeacon.finish();
  assert.deepEqual(beacons.map(([url]) => url), ["https://lrs.example/xapi/statements?method=POST",
                                                 "https://lrs.example/xapi/activities/state?method=PUT"]);
  assert.equal(JSON.parse(beacons[0][1]).verb.display["en-US"], "terminated");
  const browse = standInLrs({ documents: { [CMI5.launchData]: JSON.stringify({ launchMode: "Browse" }) } });
  const b = cmi5Session(browse, { lessons: ["a"] });
  assert.equal(await b.report.start(), true);
  b.p.answer("a", 0, true);
  b.report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 0 });
  b.p.answer("a", 1, true);
  b.report.answered({ lesson: "a", question: 1, correct: true, kind: "key", response: 0 });
  await b.report.settled();
  assert.deepEqual(browse.verbs(), ["initialized", "answered", "answered"]);
});

check("lms: cmi5: hostile tokens, documents and a failing LRS stop the reports, never the page", async () => {
  const warnings = [];
  const warn = (m) => warnings.push(m);
  // Token answers that are no token: refused, start is false, nothing else is asked.
  for (const answer of ["not json", "[]", "{}", JSON.stringify({ "auth-token": 5 }), JSON.stringify({ "auth-token": "a b" }),
                        JSON.stringify({ "auth-token": "x\r\nX-Injected: 1" }), JSON.stringify({ "auth-token": huge })]) {
    const lrs = standInLrs({ tokenAnswer: answer });
    const said = warnings.length;
    assert.equal(await fast("a token", () => cmi5Session(lrs, { warn }).report.start()), false, answer.slice(0, 40));
    assert.equal(warnings.length, said + 1);
    assert.deepEqual(lrs.statements, []);
  }
  // A fetch that throws (the network, or the page's CSP), or answers nothing.
  for (const fetch of [async () => { throw new TypeError("Failed to fetch"); }, async () => undefined, () => null]) {
    const p = page();
    const r = createCmi5Report({ launch: LAUNCH, lessons: ["a"], pass: 0.8, progress: p.progress, marks: p.restore,
                                 open: p.open, fetch, warn });
    assert.equal(await r.start(), false);
  }
  // The progress document planted: a huge string, the wrong shapes, __proto__: set aside, said,
  // the first lesson opened; LMS.LaunchData of the wrong shape: its defaults.
  for (const doc of [huge, "null", "[]", "\"rw\"", JSON.stringify({ version: 1, marks: "rw" }),
                     JSON.stringify({ version: 2, marks: { a: "r" } }), "{\"version\":1,\"marks\":[\"r\"]}"]) {
    const lrs = standInLrs({ documents: { [CMI5.stateId]: doc, [CMI5.launchData]: JSON.stringify({ launchMode: "Review!",
      masteryScore: "1", contextTemplate: { contextActivities: "x", extensions: [] } }) } });
    const said = warnings.length;
    const { report, p } = cmi5Session(lrs, { warn });
    assert.equal(await report.start(), true, doc.slice(0, 40));
    assert.deepEqual(p.marks, {});
    assert.deepEqual(p.opened, ["a"]);
    assert.equal(warnings.length, said + 1);
    assert.match(warnings.at(-1), /saved progress is not this playground's/);
    assert.deepEqual(lrs.statements[0].context.contextActivities, { category: [{ id: CMI5.category, objectType: "Activity" }] });
  }
  // A document whose lesson is none and whose sent flags are not booleans: the marks kept (the
  // page checks them), the first lesson opened, the judgements still to send.
  const planted = standInLrs({ documents: { [CMI5.stateId]: JSON.stringify({ version: 1, marks: { a: "r" }, lesson: "../x",
                                                                             sent: { completed: "yes", passed: 1 } }) } });
  const s = cmi5Session(planted, { lessons: ["a"], p: page({ a: 1 }), warn });
  assert.equal(await s.report.start(), true);
  assert.deepEqual(s.p.opened, ["a"]);
  assert.deepEqual(planted.verbs(), ["initialized", "completed", "passed"]);
  // The LRS refuses a statement: one warning, then nothing more is sent; no call throws.
  const failing = standInLrs({ refuse: "/xapi/statements" });
  const said = warnings.length;
  const f = cmi5Session(failing, { warn });
  assert.equal(await f.report.start(), false);
  f.report.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 0 });
  f.report.shown("b");
  f.report.finish();
  await f.report.settled();
  assert.equal(warnings.length, said + 1);
  assert.match(warnings.at(-1), /refused POST https:\/\/lrs\.example\/xapi\/statements \(500\)/);
  assert.ok(warnings.every((w) => w.length < 400), "each warning is short");
});

// A run-time that refuses as a platform may: `refuse` (elements or prefixes, answered "false"
// with `code`), `failCommits` (that many commits refused, 391), `initial` (the learner's record),
// `answer(fn, result)` (what a call returns, to make it hostile). Keeps what it is told in `data`.
function refusingRuntime(version, { initial = {}, refuse = [], code = "401", failCommits = 0, answer = (fn, r) => r } = {}) {
  const v = VERSIONS[version];
  const data = { "cmi.interactions._count": "0", ...initial };
  const calls = [];
  let error = "0", commits = 0;
  const out = (fn, r) => answer(fn, r);
  return {
    data, calls,
    [v.init]: () => { calls.push("init"); return out("init", "true"); },
    [v.get]: (e) => { error = "0"; return out("get", Object.hasOwn(data, e) ? data[e] : ""); },
    [v.set]: (e, value) => {
      calls.push(`${e}=${value}`);
      if (typeof value !== "string") throw new Error(`${e}: not a string`);
      if (refuse.some((r) => e === r || e.startsWith(`${r}.`))) { error = code; return out("set", "false"); }
      error = "0";
      data[e] = value;
      const m = /^cmi\.interactions\.(\d+)\.id$/.exec(e);
      if (m) data["cmi.interactions._count"] = String(Math.max(Number(data["cmi.interactions._count"]), Number(m[1]) + 1));
      return out("set", "true");
    },
    [v.commit]: () => {
      calls.push("commit");
      if (++commits <= failCommits) { error = version === "scorm12" ? "101" : "391"; return out("commit", "false"); }
      return out("commit", "true");
    },
    [v.finish]: () => { calls.push("finish"); return out("finish", "true"); },
    [v.error]: () => out("error", error),
    [v.errorText]: (c) => out("errorText", `error ${c}`),
  };
}

check("lms: a number answer as the decimal typed; times with their zone; the session's time", () => {
  const cases = [[0.1, "0.1"], [1e-7, "0.0000001"], [-2.5, "-2.5"], [42, "42"], [-0, "0"], [0.3333333, "0.3333333"],
                 [123456.78, "123456.78"], [0.123456789, "0.1234568"], [1e9, "1000000000"], [2 / 3, "0.6666667"]];
  for (const [typed, text] of cases) assert.equal(decimalText(Math.fround(typed)), text, String(typed));
  // The float32 the app keeps, as its JSON gives it (0.1 → 0.10000000149011612).
  assert.equal(decimalText(0.10000000149011612), "0.1");
  assert.equal(decimalText(1.0000000116860974e-7), "0.0000001");
  for (const none of [NaN, Infinity, 3e38, 1e10, "0.1", null, undefined, {}]) assert.equal(decimalText(none), null, String(none));
  for (const text of cases.map((c) => c[1])) {
    assert.match(text, /^-?\d{1,10}(\.\d{1,7})?$/, "1.2's CMIDecimal and 2004's real(10,7): no exponent, 7 decimals");
  }
  assert.equal(timestamp2004(new Date("2026-11-27T10:00:00.129Z")), "2026-11-27T10:00:00.12Z");
  assert.equal(timespan12(3723450), "01:02:03.45");
  assert.equal(interval2004(3723450), "PT1H2M3.45S");
  assert.equal(timespan12(0), "00:00:00.00");
  assert.equal(timespan12(1e12), "9999:46:40.00");  // 1.2 counts hours in at most 4 digits
  assert.equal(interval2004(59990), "PT0H0M59.99S");
  const hostile = Object.create(null);
  assert.equal(describeError(hostile), "something that is no error");
  assert.equal(describeError(new Proxy({}, { get() { throw new Error("trap"); } })), "something that is no error");
  assert.equal(describeError(new Error("x".repeat(500))).length, 200);
});

check("lms: what the platform refuses is skipped, the rest reported, Terminate always called", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const v = VERSIONS[version];
    const min = version === "scorm12" ? "cmi.core.score.min" : "cmi.score.min";
    for (const refuse of [[min], ["cmi.interactions"], [min, "cmi.interactions", "cmi.suspend_data"]]) {
      const api = refusingRuntime(version, { refuse });
      const warnings = [];
      const p = page();
      const r = createReport({ runtime: api, version, lessons: ["a", "b"], pass: 0.6, progress: p.progress, marks: p.restore,
                               open: p.open, warn: (m) => warnings.push(m), now: () => new Date("2026-11-27T10:00:00Z") });
      assert.equal(r.start(), true);
      p.answer("a", 0, true);
      r.answered({ lesson: "a", question: 0, correct: true, kind: "value", response: Math.fround(0.1) });
      p.answer("a", 1, true);
      r.answered({ lesson: "a", question: 1, correct: true, kind: "key", response: 1 });
      p.answer("b", 0, false);
      r.answered({ lesson: "b", question: 0, correct: false, kind: "key", response: 0 });
      r.finish();
      const status = version === "scorm12" ? "cmi.core.lesson_status" : "cmi.completion_status";
      assert.equal(api.data[status], version === "scorm12" ? "passed" : "completed", `${version} ${refuse}`);  // 67 >= 60
      assert.equal(api.data[version === "scorm12" ? "cmi.core.score.raw" : "cmi.score.raw"], "67");
      assert.equal(api.data[v.exit], "suspend");
      assert.equal(api.calls.at(-1), "finish");
      assert.equal(api.calls.filter((c) => c === "finish").length, 1);
      if (!refuse.includes("cmi.interactions")) {
        assert.equal(api.data["cmi.interactions.0.id"], "a.q1");
        assert.equal(api.data[`cmi.interactions.0.${v.response}`], "0.1");
        assert.equal(api.data["cmi.interactions._count"], "3");
      } else {
        // Refused once, for good: the next answers do not try again.
        assert.equal(api.calls.filter((c) => c.startsWith("cmi.interactions.")).length, 1);
      }
      if (!refuse.includes("cmi.suspend_data")) assert.deepEqual(JSON.parse(api.data["cmi.suspend_data"]).marks, { a: "rr", b: "w" });
      // One line in the console for each element refused, however often it is met.
      assert.equal(warnings.length, refuse.length, warnings.join("\n"));
      assert.match(api.data[version === "scorm12" ? "cmi.core.session_time" : "cmi.session_time"],
                   version === "scorm12" ? /^\d{2,4}:\d\d:\d\d\.\d\d$/ : /^PT\d+H\d+M\d+\.\d\dS$/);
    }
  }
});

check("lms: whatever the run-time returns or throws is data, never an error of the page", () => {
  const nothing = () => Object.create(null);
  const hostile = [
    ["returns an object without a value", (fn, r) => (fn === "set" || fn === "error" || fn === "errorText" ? nothing() : r)],
    ["throws an object without a value", (fn, r) => { if (fn === "set" || fn === "commit") throw nothing(); return r; }],
    ["answers symbols and numbers", (fn, r) => (fn === "get" ? Symbol("x") : fn === "set" ? 1 : fn === "error" ? 401 : r)],
    ["throws on finish", (fn, r) => { if (fn === "finish") throw new Proxy({}, { get() { throw new Error("trap"); } }); return r; }],
  ];
  for (const [what, answer] of hostile) {
    const api = refusingRuntime("scorm2004", { answer });
    const p = page();
    const warnings = [];
    const r = createReport({ runtime: api, version: "scorm2004", lessons: ["a", "b"], pass: 0.8, progress: p.progress,
                             marks: p.restore, open: p.open, warn: (m) => warnings.push(m), schedule: () => {} });
    assert.doesNotThrow(() => {
      r.start();
      p.answer("a", 0, true);
      r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
      r.shown("b");
      r.finish();
    }, what);
    assert.ok(api.calls.includes("finish"), `${what}: Terminate called`);
    assert.ok(warnings.length <= 12 && warnings.every((w) => typeof w === "string" && w.length < 400), `${what}: ${warnings}`);
  }
  // A count that is no count ("1e308", "-1", "01", 10,000): no interaction is written at an
  // index made of it; the rest is reported.
  for (const count of ["1e308", "-1", "01", "10000", " ", "0x10"]) {
    const api = refusingRuntime("scorm12", { initial: { "cmi.interactions._count": count } });
    const p = page({ a: 1 });
    const warnings = [];
    const r = createReport({ runtime: api, version: "scorm12", lessons: ["a"], pass: 0.8, progress: p.progress,
                             marks: p.restore, open: p.open, warn: (m) => warnings.push(m) });
    r.start();
    p.answer("a", 0, true);
    r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
    assert.deepEqual(api.calls.filter((c) => c.startsWith("cmi.interactions.")), [], count);
    assert.equal(api.data["cmi.core.lesson_status"], "passed");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /_count/);
  }
});

check("lms: a new attempt starts empty; the platform's passing score; no fail before the end", () => {
  // Learner B's new attempt on a record that still holds suspend data and a location (a
  // platform that kept them): nothing of them comes in.
  for (const [version, entry] of [["scorm12", "cmi.core.entry"], ["scorm2004", "cmi.entry"]]) {
    const v = VERSIONS[version];
    const api = refusingRuntime(version, { initial: { [entry]: "ab-initio", [v.location]: "b",
      [v.suspend]: JSON.stringify({ version: 1, marks: { a: "rw", b: "r" } }) } });
    const p = page();
    createReport({ runtime: api, version, lessons: ["a", "b"], pass: 0.8, progress: p.progress, marks: p.restore,
                   open: p.open, warn: assert.fail }).start();
    assert.deepEqual(p.marks, {}, version);
    assert.deepEqual(p.opened, ["a"]);
    assert.deepEqual(JSON.parse(api.data[v.suspend]).marks, {});
  }
  // SCORM 1.2 with a mastery score (80): while the course is not done the raw score is held
  // back, so that a platform's rule (Moodle: raw < mastery → "failed" at LMSFinish) cannot fail
  // a learner who left halfway; once done, passed or failed as that rule would say.
  const api = refusingRuntime("scorm12", { initial: { "cmi.student_data.mastery_score": "80" } });
  const p = page();
  const r = createReport({ runtime: api, version: "scorm12", lessons: ["a", "b"], pass: 0.5, progress: p.progress,
                           marks: p.restore, open: p.open, warn: assert.fail });
  r.start();
  p.answer("a", 0, true);
  r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
  assert.equal(api.data["cmi.core.lesson_status"], "incomplete");
  assert.equal(api.data["cmi.core.score.raw"], undefined);
  p.answer("a", 1, true);
  r.answered({ lesson: "a", question: 1, correct: true, kind: "key", response: 1 });
  p.answer("b", 0, false);
  r.answered({ lesson: "b", question: 0, correct: false, kind: "key", response: 0 });
  assert.equal(api.data["cmi.core.score.raw"], "67");
  assert.equal(api.data["cmi.core.lesson_status"], "failed");  // 67 < the platform's 80 (not ?pass=50)
  // SCORM 2004 with a scaled passing score (0.5): scaled held back until done; passed against it.
  const api2 = refusingRuntime("scorm2004", { initial: { "cmi.scaled_passing_score": "0.5" } });
  const q = page();
  const r2 = createReport({ runtime: api2, version: "scorm2004", lessons: ["a", "b"], pass: 0.9, progress: q.progress,
                            marks: q.restore, open: q.open, warn: assert.fail });
  r2.start();
  q.answer("a", 0, true);
  r2.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
  assert.equal(api2.data["cmi.score.scaled"], undefined);
  assert.equal(api2.data["cmi.success_status"], "unknown");
  q.answer("a", 1, false);
  r2.answered({ lesson: "a", question: 1, correct: false, kind: "key", response: 1 });
  q.answer("b", 0, true);
  r2.answered({ lesson: "b", question: 0, correct: true, kind: "key", response: 0 });
  assert.equal(api2.data["cmi.score.scaled"], "0.6667");
  assert.equal(api2.data["cmi.success_status"], "passed");
  // A passing score that is no number, or out of range: ?pass= decides.
  for (const bad of ["abc", "1e2", "101", "-5", ""]) {
    const a = refusingRuntime("scorm12", { initial: { "cmi.student_data.mastery_score": bad } });
    const m = page({ a: 1 });
    const rr = createReport({ runtime: a, version: "scorm12", lessons: ["a"], pass: 1, progress: m.progress,
                              marks: m.restore, open: m.open, warn: assert.fail });
    rr.start();
    assert.equal(a.data["cmi.core.score.raw"], "0", bad);  // not held back: no platform passing score
  }
});

check("lms: a refused commit is tried again; the learner is told once when it keeps failing", () => {
  for (const [failCommits, toldExpected] of [[2, []], [50, ["unsaved"]]]) {
    const api = refusingRuntime("scorm2004", { failCommits });
    const p = page();
    const timers = [];
    const told = [];
    const warnings = [];
    const r = createReport({ runtime: api, version: "scorm2004", lessons: ["a", "b"], pass: 0.8, progress: p.progress,
                             marks: p.restore, open: p.open, warn: (m) => warnings.push(m), tell: (w) => told.push(w),
                             schedule: (fn, ms) => timers.push([fn, ms]) });
    r.start();
    while (timers.length > 0) timers.shift()[0]();
    p.answer("a", 0, true);
    r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
    while (timers.length > 0) timers.shift()[0]();
    assert.deepEqual(told, toldExpected, `${failCommits} refused`);
    assert.equal(warnings.length, 1);
    assert.equal(api.data["cmi.interactions.0.id"], "a.q1");  // reporting went on
  }
  assert.deepEqual(COMMIT_RETRY_MS, [1000, 3000, 10000]);
  // Initialize refused: the learner is told that nothing is recorded.
  const told = [];
  const p = page();
  const r = createReport({ runtime: { ...refusingRuntime("scorm12"), LMSInitialize: () => "false" }, version: "scorm12",
                           lessons: ["a"], pass: 0.8, progress: p.progress, marks: p.restore, open: p.open,
                           warn: () => {}, tell: (w) => told.push(w) });
  assert.equal(r.start(), false);
  r.finish();
  assert.deepEqual(told, ["refused"]);
});

check("lms: the run-time is found when it comes late, and in the popup's top window's opener", async () => {
  const api = refusingRuntime("scorm2004");
  const frame = { parent: null };
  frame.parent = frame;
  let waits = 0;
  const found = await searchRuntime(frame, "scorm2004", { wait: async () => { if (++waits === 3) frame.API_1484_11 = api; } });
  assert.equal(found, api);
  assert.equal(waits, 3);
  // Never there: null after the time given (5 s of 250 ms), no more.
  waits = 0;
  assert.equal(await searchRuntime({ parent: null }, "scorm12", { wait: async () => { ++waits; } }), null);
  assert.equal(waits, 20);
  // The LMS opened a popup whose frame holds the SCO: the frame's own opener is null, its top's
  // is the LMS window.
  const lms = { API: refusingRuntime("scorm12") };
  lms.parent = lms;
  const popupTop = { opener: lms };
  popupTop.parent = popupTop;
  popupTop.top = popupTop;
  const sco = { parent: popupTop, top: popupTop, opener: null };
  assert.equal(findRuntime(sco, "scorm12"), lms.API);
  // A top window of another origin: not read, no error.
  const guarded = { parent: null, opener: null, get top() { throw new Error("SecurityError"); } };
  guarded.parent = guarded;
  assert.equal(findRuntime(guarded, "scorm12"), null);
});

check("lms: suspend data that would pass the platform's limit drops whole lessons, never cuts JSON", () => {
  const names = Array.from({ length: 150 }, (_, i) => `lesson_with_a_long_name_${String(i).padStart(3, "0")}`);
  const p = page(Object.fromEntries(names.map((n) => [n, 8])));
  for (const n of names) for (let q = 0; q < 8; ++q) p.answer(n, q, q % 2 === 0);
  const api = refusingRuntime("scorm12");
  const warnings = [];
  createReport({ runtime: api, version: "scorm12", lessons: names.slice(0, 20), pass: 0.8, progress: p.progress,
                 marks: p.restore, open: p.open, warn: (m) => warnings.push(m) }).start();
  const text = api.data["cmi.suspend_data"];
  assert.ok(text.length <= 4096, `${text.length}`);
  const kept = JSON.parse(text).marks;
  for (const n of names.slice(0, 20)) assert.equal(kept[n], "rwrwrwrw");  // the course's lessons first
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /marks of \d+ lessons were left out/);
});

check("lms: cmi5: an LRS that does not answer, answers 500 once, or stops midway", async () => {
  const p = page();
  const stalled = () => new Promise(() => {});
  const t0 = performance.now();
  const r = createCmi5Report({ launch: LAUNCH, lessons: ["a"], pass: 0.8, progress: p.progress, marks: p.restore,
                               open: p.open, fetch: stalled, warn: () => {}, timeoutMs: 50 });
  assert.equal(await r.start(), false);
  assert.ok(performance.now() - t0 < 1000);
  // A server error once: tried again, and reported.
  const lrs = standInLrs();
  let refused = 0;
  const flaky = async (url, init) => (url.includes("/statements") && refused++ === 0
    ? { ok: false, status: 503, headers: { get: () => null }, text: async () => "" } : lrs.fetch(url, init));
  const waited = [];
  const q = page();
  const told = [];
  const s = createCmi5Report({ launch: LAUNCH, lessons: ["a"], pass: 0.8, progress: q.progress, marks: q.restore,
                               open: q.open, fetch: flaky, warn: assert.fail, wait: async (ms) => waited.push(ms),
                               tell: (w) => told.push(w) });
  assert.equal(await s.start(), true);
  assert.deepEqual(waited, [1000]);
  assert.deepEqual(lrs.verbs(), ["initialized"]);
  // Then the LRS stops answering: the reports stop and the learner is told, once.
  let dead = false;
  const s2 = createCmi5Report({ launch: LAUNCH, lessons: ["a"], pass: 0.8, progress: q.progress, marks: q.restore,
                                open: q.open, fetch: (url, init) => (dead ? stalled() : standInLrs().fetch(url, init)),
                                warn: () => {}, tell: (w) => told.push(w), timeoutMs: 50, wait: async () => {} });
  assert.equal(await s2.start(), true);
  dead = true;
  q.answer("a", 0, true);
  s2.answered({ lesson: "a", question: 0, correct: true, kind: "value", response: Math.fround(0.1) });
  s2.answered({ lesson: "a", question: 1, correct: true, kind: "value", response: 2 });
  await s2.settled();
  assert.equal(s2.live(), false);
  assert.deepEqual(told, ["unsaved"]);
});

check("lms: the strict platform refuses nothing the page writes; Moodle's rule fails no learner halfway", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const v12 = version === "scorm12";
    const options = v12 ? { moodle: true, initial: { "cmi.student_data.mastery_score": "80" } } : {};
    let api = createStrictRuntime(version, options);
    const p = page();
    let clock = Date.parse("2026-11-27T10:00:00Z");
    const now = () => new Date(clock);
    let r = createReport({ runtime: api, version, lessons: ["a", "b"], pass: 0.6, progress: p.progress, marks: p.restore,
                           open: p.open, now, warn: assert.fail });
    assert.equal(r.start(), true);
    p.answer("a", 0, false);
    r.answered({ lesson: "a", question: 0, correct: false, kind: "value", response: 0.10000000149011612, ask: "How tall?" });
    p.answer("a", 1, true);
    r.answered({ lesson: "a", question: 1, correct: true, kind: "value", response: 1.0000000116860974e-7 });
    r.shown("b");
    clock += 3723450;
    r.finish();  // left halfway
    const refused = api.calls.filter((c) => c.error !== "0" && !/Get(Last)?Error|GetDiagnostic|GetValue/.test(c.fn));
    assert.deepEqual(refused, [], `${version}: ${JSON.stringify(refused)}`);
    const rec = api.data;
    assert.equal(rec[v12 ? "cmi.core.lesson_status" : "cmi.completion_status"], "incomplete", version);
    assert.equal(rec[v12 ? "cmi.interactions.0.student_response" : "cmi.interactions.0.learner_response"], "0.1");
    assert.equal(rec[v12 ? "cmi.interactions.1.student_response" : "cmi.interactions.1.learner_response"], "0.0000001");
    assert.equal(rec[v12 ? "cmi.core.session_time" : "cmi.session_time"], v12 ? "01:02:03.45" : "PT1H2M3.45S");
    if (!v12) assert.equal(rec["cmi.interactions.0.timestamp"], "2026-11-27T10:00:00.00Z");
    // The next session resumes; the learner finishes: 1 right of 3 (33): failed against 80 (1.2,
    // the platform's) and 60 (2004, ?pass=).
    api = createStrictRuntime(version, { ...options, initial: nextSession(version, rec) });
    const q = page();
    r = createReport({ runtime: api, version, lessons: ["a", "b"], pass: 0.6, progress: q.progress, marks: q.restore,
                       open: q.open, now, warn: assert.fail });
    r.start();
    assert.deepEqual(q.marks, { a: "wr" });
    assert.deepEqual(q.opened, ["b"]);
    q.answer("b", 0, false);
    r.answered({ lesson: "b", question: 0, correct: false, kind: "key", response: 3 });
    r.finish();
    assert.equal(api.data[v12 ? "cmi.core.lesson_status" : "cmi.success_status"], "failed");
    assert.equal(api.data[v12 ? "cmi.core.score.raw" : "cmi.score.raw"], "33");
    assert.equal(api.data["cmi.interactions._count"], "3");
  }
  // Its hostile modes and a refused optional element: the rest is still reported, Terminate called.
  for (const [version, options] of [["scorm2004", { hostile: "null-object" }], ["scorm2004", { hostile: "throw-null-object" }],
                                    ["scorm12", { hostile: "huge-count" }], ["scorm12", { refuse: ["cmi.core.score.min"] }],
                                    ["scorm2004", { refuse: ["cmi.interactions*"] }], ["scorm2004", { failCommits: 1 }]]) {
    const api = createStrictRuntime(version, options);
    const p = page();
    const warnings = [];
    const timers = [];
    const r = createReport({ runtime: api, version, lessons: ["a", "b"], pass: 0.6, progress: p.progress, marks: p.restore,
                             open: p.open, warn: (m) => warnings.push(m), schedule: (fn) => timers.push(fn) });
    assert.doesNotThrow(() => {
      r.start();
      p.answer("a", 0, true);
      r.answered({ lesson: "a", question: 0, correct: true, kind: "key", response: 1 });
      while (timers.length > 0) timers.shift()();
      r.finish();
    });
    assert.equal(api.finishCount, 1, JSON.stringify(options));
    assert.ok(warnings.length >= 1 && warnings.length <= 9, `${JSON.stringify(options)}: ${warnings.join("\n")}`);
    if (!options.hostile?.startsWith("throw")) {
      assert.equal(api.data[version === "scorm12" ? "cmi.core.lesson_status" : "cmi.completion_status"], "incomplete");
    }
  }
});

check("lms: a course's own lesson whose server never answers is named after the timeout", async () => {
  const t0 = performance.now();
  const notes = await addOwnLessons("stalls,ours", [], {
    fetch: async (url, init) => (url.includes("stalls") ? new Promise((_, reject) => {
      init.signal?.addEventListener("abort", () => reject(new Error("aborted")));
    }) : { ok: true, status: 200, headers: { get: () => null }, text: () => new Promise(() => {}) }),
    add: () => "", timeoutMs: 60 });
  assert.deepEqual(notes, ["course/stalls.json: could not be read (no answer in 0.1 s)",
                           "course/ours.json: could not be read (no answer in 0.1 s)"]);  // a body that never ends too
  assert.ok(performance.now() - t0 < 1000);
});

check("lms: cmi5: a typed number sent as typed; left halfway, then resumed", async () => {
  const lrs = standInLrs();
  const { report, p } = cmi5Session(lrs, { lessons: ["a", "b"] });
  assert.equal(await report.start(), true);
  p.answer("a", 0, false);
  report.answered({ lesson: "a", question: 0, correct: false, kind: "value", response: 0.10000000149011612 });
  report.shown("b");
  await report.settled();
  report.finish();  // left halfway: terminated, no completed
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(lrs.verbs(), ["initialized", "answered", "terminated"]);
  assert.equal(lrs.statements[1].result.response, "0.1");
  const next = standInLrs({ documents: { ...lrs.documents } });
  const again = cmi5Session(next, { lessons: ["a", "b"] });
  assert.equal(await again.report.start(), true);
  assert.deepEqual(again.p.marks, { a: "w-" });
  assert.deepEqual(again.p.opened, ["b"]);
});

check("lms: the course state counts only the course's lessons", () => {
  const progress = { lessons: [{ id: "a", questions: 2, correct: 1, done: true },
                               { id: "b", questions: 3, correct: 3, done: false }] };
  assert.deepEqual(courseState(progress, ["a"]), { questions: 2, correct: 1, done: 1, lessons: 1, complete: true, score: 0.5 });
  assert.equal(courseState(progress, ["a", "b", "gone"]).complete, false);
  assert.equal(courseState(null, []).score, 1);
});

check("progress: marks of this playground's lessons are kept, anything else is named and set aside", () => {
  const lessons = new Set(["why_so_tall", "padded_batch"]);
  assert.deepEqual(checkMarks({ why_so_tall: "r-w", padded_batch: "-" }, "marks", lessons),
                   { marks: { why_so_tall: "r-w", padded_batch: "-" }, problems: [] });
  for (const bad of [null, undefined, 3, "r-", [], ["r"], () => 1]) {
    const r = checkMarks(bad, "marks", lessons);
    assert.deepEqual(r.marks, {});
    assert.match(r.problems[0], /^marks: must be an object/);
  }
  // Entries: an unknown lesson (named, cut to 40 characters), marks that are not 1 to 8 of
  // "-", "r", "w", and names that are Object's own.
  const r = checkMarks({ why_so_tall: "rrrrrrrrr", padded_batch: "x", [huge]: "r", __proto__: "r", constructor: "r",
                         toString: 5 }, "progress", lessons);
  assert.deepEqual(r.marks, {});
  assert.equal(r.problems.length, 5);
  assert.ok(r.problems.every((p) => p.startsWith("progress.") && p.length < 120), r.problems.join("\n"));
  assert.ok(r.problems.some((p) => p.includes("why_so_tall: must be 1 to 8 marks")));
  // Far more entries than lessons: refused whole, not read one by one.
  const many = Object.fromEntries(Array.from({ length: 100000 }, (_, i) => [`l${i}`, "r"]));
  const flood = fast("100000 entries", () => checkMarks(many, "marks", lessons));
  assert.deepEqual(flood, { marks: {}, problems: ["marks: has 100000 entries, more than there are lessons"] });
});

check("lms: a package's own lessons (?own=) are fetched from course/, each bad one named, nothing else asked", async () => {
  const asked = [];
  const files = {
    "course/ours.json": { status: 200, text: '{"version": 1}' },
    "course/broken.json": { status: 200, text: "{" },
    "course/huge.json": { status: 200, text: "x".repeat(MAX_OWN_LESSON_CHARS + 1) },
    "course/liar.json": { status: 200, length: String(1 << 30), text: "{}" },
    "course/down.json": { throws: new TypeError("Failed to fetch") },
  };
  const fetch = async (url, init) => {
    asked.push(url);
    assert.equal(init.credentials, "same-origin");
    const f = files[url];
    if (!f) return { ok: false, status: 404, headers: { get: () => null }, text: async () => "" };
    if (f.throws) throw f.throws;
    return { ok: true, status: 200, headers: { get: (h) => (h === "content-length" ? f.length ?? null : null) },
             text: async () => f.text };
  };
  const added = [];
  const add = (name, text) => {
    added.push(name);
    return text === "{" ? `course/${name}.json: json: parse error` : "";
  };
  const notes = await addOwnLessons(
    `why_so_tall,ours,ours,missing,broken,huge,liar,down,../etc/passwd,Ours,${"a".repeat(33)},__proto__`,
    ["why_so_tall"], { fetch, add });
  // Known lessons and names that are no names are never fetched (the first three of those are
  // named): no path leaves course/.
  assert.deepEqual(asked, ["course/ours.json", "course/missing.json", "course/broken.json", "course/huge.json",
                           "course/liar.json", "course/down.json", "course/__proto__.json"]);
  assert.deepEqual(added, ["ours", "broken"]);
  assert.deepEqual(notes.map((n) => n.split(":")[0]),
                   ["own", "own", "own", "course/missing.json", "course/broken.json", "course/huge.json",
                    "course/liar.json", "course/down.json", "course/__proto__.json"]);
  assert.match(notes[3], /^course\/missing\.json: could not be read \(HTTP 404\)$/);
  assert.ok(notes.every((n) => n.length < 200), notes.join("\n"));
  // At most 16 files, from an address of any length; nothing without ?lessons=.
  asked.length = 0;
  await fast("a 300,000-character list", () => addOwnLessons(huge, [], { fetch, add }));
  assert.deepEqual(asked, []);
  await addOwnLessons(Array.from({ length: 100 }, (_, i) => `l${i}`).join(","), [], { fetch, add });
  assert.equal(asked.length, 16);
  assert.deepEqual(await addOwnLessons(null, [], { fetch, add }), []);
});

let failed = 0;
for (const [name, fn] of checks) {
  try {
    await fn();  // the cmi5 checks are asynchronous
    console.log(`ok - ${name}`);
  } catch (e) {
    ++failed;
    console.error(`FAIL: ${name}: ${e.message}`);
  }
}
console.log(`# ${checks.length - failed} of ${checks.length} passed`);
process.exit(failed ? 1 : 0);
