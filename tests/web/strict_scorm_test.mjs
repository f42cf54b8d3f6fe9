// The strict course platform of tests/web/fixtures/strict_scorm.mjs under node: each of its
// rules, for SCORM 1.2 and 2004, refuses what it should with the standard's code and takes
// what it should (valid and invalid values of every type it checks); Moodle's rule at
// LMSFinish; its options; the hostile platforms it plays.
//
//   node tests/web/strict_scorm_test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CMI_DECIMAL, createStrictRuntime, ERROR_STRINGS, nextSession, REAL_10_7 } from "./fixtures/strict_scorm.mjs";

const checks = [];
const check = (name, fn) => checks.push([name, fn]);
const huge = "x".repeat(300000);

// A value in a failure's message (undefined too).
const quote = (value) => String(JSON.stringify(value)).slice(0, 60);

// A session of `version`, its calls by role, and the tests' words for them: set and get answer
// [result, error code]; accepts and refuses assert each value of a list.
const NAMES = {
  scorm12: { init: "LMSInitialize", finish: "LMSFinish", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit",
             error: "LMSGetLastError", text: "LMSGetErrorString", diagnostic: "LMSGetDiagnostic" },
  scorm2004: { init: "Initialize", finish: "Terminate", get: "GetValue", set: "SetValue", commit: "Commit",
               error: "GetLastError", text: "GetErrorString", diagnostic: "GetDiagnostic" },
};
function session(version, options = {}, { start = true } = {}) {
  const api = createStrictRuntime(version, options);
  const n = NAMES[version];
  const call = (role, ...args) => [api[n[role]](...args), api[n.error]()];
  const s = {
    api,
    n,
    call,
    init: () => call("init", ""),
    finish: () => call("finish", ""),
    commit: () => call("commit", ""),
    get: (element) => call("get", element),
    set: (element, value) => call("set", element, value),
    accepts(element, ...values) {
      for (const value of values) {
        const [result, code] = s.set(element, value);
        assert.equal(result, "true", `${element} = ${quote(value)} was refused (${code})`);
      }
    },
    refuses(code, element, ...values) {
      for (const value of values) {
        const [result, got] = s.set(element, value);
        assert.deepEqual([result, got], ["false", String(code)], `${element} = ${quote(value)}`);
      }
    },
    reads(element, value, code = "0") {
      assert.deepEqual(s.get(element), [value, code], `GetValue ${element}`);
    },
  };
  if (start) assert.deepEqual(s.init(), ["true", "0"]);
  return s;
}
// A new interaction of a 2004 session with its id and type (the order 2004 asks).
function interaction2004(s, type) {
  const i = Number(s.get("cmi.interactions._count")[0]);
  s.accepts(`cmi.interactions.${i}.id`, `q${i}`);
  s.accepts(`cmi.interactions.${i}.type`, type);
  return `cmi.interactions.${i}`;
}

// A call on a hostile input that must not hang (a pattern backtracking on a long string): the
// bound is 2 s, no speed goal.
function fast(what, fn) {
  const t0 = performance.now();
  const out = fn();
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `${what} took ${ms.toFixed(0)} ms`);
  return out;
}

check("the object: exactly the version's eight calls, the test's properties, no imports", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const api = createStrictRuntime(version);
    const functions = Object.keys(api).filter((k) => typeof api[k] === "function").sort();
    assert.deepEqual(functions, Object.values(NAMES[version]).sort());
    assert.deepEqual(Object.keys(api).filter((k) => typeof api[k] !== "function").sort(),
                     ["calls", "data", "finishCount", "pending", "state"]);
    assert.equal(api.state, "not initialized");
    // Its calls need no `this`: a spread copy (as tests replace one call) still works.
    const copy = { ...api };
    assert.equal(copy[NAMES[version].init](""), "true");
    assert.equal(api.state, "running");
  }
  assert.throws(() => createStrictRuntime("scorm3"), /no version/);
  assert.throws(() => createStrictRuntime("scorm12", { refusee: [] }), /no option "refusee"/);
  assert.throws(() => createStrictRuntime("scorm2004", { moodle: true }), /SCORM 1\.2 only/);
  assert.throws(() => createStrictRuntime("scorm12", { hostile: "nice" }), /no hostile mode/);
  // A browser page loads it as it is: it imports nothing.
  const source = readFileSync(new URL("./fixtures/strict_scorm.mjs", import.meta.url), "utf8");
  assert.doesNotMatch(source, /^\s*import\b|\brequire\(/m);
});

check("1.2: the states: 301 before LMSInitialize and after LMSFinish, 101 twice, 201 for an argument", () => {
  const s = session("scorm12", {}, { start: false });
  assert.deepEqual(s.get("cmi.core.student_id"), ["", "301"]);
  assert.deepEqual(s.set("cmi.core.lesson_location", "a"), ["false", "301"]);
  assert.deepEqual(s.commit(), ["false", "301"]);
  assert.deepEqual(s.finish(), ["false", "301"]);
  for (const bad of ["x", undefined, null, 0, " "]) assert.deepEqual(s.call("init", bad), ["false", "201"]);
  assert.equal(s.api.state, "not initialized");
  assert.deepEqual(s.init(), ["true", "0"]);
  assert.equal(s.api.state, "running");
  assert.deepEqual(s.init(), ["false", "101"]);
  assert.deepEqual(s.call("commit", "x"), ["false", "201"]);
  assert.deepEqual(s.call("finish", "x"), ["false", "201"]);
  assert.equal(s.api.state, "running");
  assert.deepEqual(s.finish(), ["true", "0"]);
  assert.equal(s.api.state, "terminated");
  assert.deepEqual(s.get("cmi.core.student_id"), ["", "301"]);
  assert.deepEqual(s.set("cmi.core.lesson_location", "a"), ["false", "301"]);
  assert.deepEqual(s.commit(), ["false", "301"]);
  assert.deepEqual(s.finish(), ["false", "301"]);
  assert.deepEqual(s.init(), ["false", "101"]);
  assert.equal(s.api.finishCount, 4);  // every call, refused ones too
});

check("2004: the states: 122/132/142/112 before, 103 twice, 104/113/123/133/143 after, 201 for an argument", () => {
  const s = session("scorm2004", {}, { start: false });
  assert.deepEqual(s.get("cmi.learner_id"), ["", "122"]);
  assert.deepEqual(s.set("cmi.location", "a"), ["false", "132"]);
  assert.deepEqual(s.commit(), ["false", "142"]);
  assert.deepEqual(s.finish(), ["false", "112"]);
  assert.deepEqual(s.call("init", "x"), ["false", "201"]);
  assert.deepEqual(s.init(), ["true", "0"]);
  assert.deepEqual(s.init(), ["false", "103"]);
  assert.deepEqual(s.call("commit", "x"), ["false", "201"]);
  assert.deepEqual(s.call("finish", undefined), ["false", "201"]);
  assert.deepEqual(s.finish(), ["true", "0"]);
  assert.deepEqual(s.init(), ["false", "104"]);
  assert.deepEqual(s.get("cmi.learner_id"), ["", "123"]);
  assert.deepEqual(s.set("cmi.location", "a"), ["false", "133"]);
  assert.deepEqual(s.commit(), ["false", "143"]);
  assert.deepEqual(s.finish(), ["false", "113"]);
  assert.equal(s.api.finishCount, 4);
});

check("1.2: elements: unknown 201, keywords 402, read-only 403, write-only 404, no children 202, no count 203", () => {
  const s = session("scorm12");
  const unknown = ["cmi.core.nope", "cmi.learner_id", "cmi.interactions", "cmi.interactions.0", "", "CMI.core.entry"];
  for (const element of unknown) {
    assert.deepEqual(s.get(element), ["", "201"], element);
    s.refuses(201, element, "x");
  }
  assert.deepEqual(s.call("get", 7), ["", "201"]);
  s.refuses(201, "cmi.core.lesson_location", 7, null, undefined);  // values are strings
  for (const element of ["cmi.interactions._count", "cmi.core._children", "cmi._version", "cmi.objectives._count"]) {
    s.refuses(402, element, "1");
  }
  for (const element of ["cmi.core.student_id", "cmi.core.student_name", "cmi.core.entry", "cmi.core.credit",
                         "cmi.core.total_time", "cmi.core.lesson_mode", "cmi.student_data.mastery_score",
                         "cmi.launch_data", "cmi.comments_from_lms"]) {
    s.refuses(403, element, "x");
  }
  s.accepts("cmi.interactions.0.id", "q1");
  for (const element of ["cmi.core.exit", "cmi.core.session_time", "cmi.interactions.0.id", "cmi.interactions.0.type",
                         "cmi.interactions.0.result", "cmi.interactions.0.student_response", "cmi.interactions.0.time",
                         "cmi.interactions.0.latency", "cmi.interactions.0.weighting"]) {
    assert.deepEqual(s.get(element), ["", "404"], element);
  }
  s.reads("cmi.core.lesson_status._children", "", "202");
  s.reads("cmi.core._count", "", "203");
  s.reads("cmi.core.student_id._count", "", "203");
  // What the platform starts a learner with, and the keywords.
  s.reads("cmi.core.lesson_status", "not attempted");
  s.reads("cmi.core.entry", "ab-initio");
  s.reads("cmi.core.credit", "credit");
  s.reads("cmi.core.lesson_mode", "normal");
  s.reads("cmi.core.score.raw", "");
  s.reads("cmi.suspend_data", "");
  s.reads("cmi._version", "3.4");
  s.reads("cmi.core.score._children", "raw,min,max");
  s.reads("cmi.interactions._count", "1");
});

check("2004: elements: unknown 401, read-only and keywords 404, write-only 405, unset 403, no children 301", () => {
  const s = session("scorm2004");
  for (const element of ["cmi.core.student_id", "cmi.nope", "adl.nav.request", "cmi.interactions.0", "cmi.score"]) {
    assert.deepEqual(s.get(element), ["", "401"], element);
    s.refuses(401, element, "x");
  }
  s.reads("", "", "301");
  s.refuses(351, "", "x");
  for (const element of ["cmi.entry", "cmi.learner_id", "cmi.learner_name", "cmi.scaled_passing_score", "cmi.credit",
                         "cmi.mode", "cmi.total_time", "cmi.completion_threshold", "cmi.launch_data",
                         "cmi.max_time_allowed", "cmi.time_limit_action", "cmi.interactions._count",
                         "cmi._version", "cmi.score._children", "cmi.comments_from_lms._count"]) {
    s.refuses(404, element, "1");
  }
  s.reads("cmi.exit", "", "405");
  s.reads("cmi.session_time", "", "405");
  for (const element of ["cmi.location", "cmi.suspend_data", "cmi.score.raw", "cmi.score.scaled",
                         "cmi.progress_measure", "cmi.scaled_passing_score", "cmi.launch_data"]) {
    s.reads(element, "", "403");
  }
  s.reads("cmi.location._children", "", "301");
  s.reads("cmi.learner_id._count", "", "301");
  s.reads("cmi.completion_status", "unknown");
  s.reads("cmi.success_status", "unknown");
  s.reads("cmi.entry", "ab-initio");
  s.reads("cmi.mode", "normal");
  s.reads("cmi._version", "1.0");
  s.reads("cmi.interactions._count", "0");
  s.reads("cmi.learner_preference.audio_captioning", "0");
});

check("1.2: CMIDecimal: \"0.10000000149011612\" is one, \"1.0000000116860974e-7\" is not; scores 0 to 100", () => {
  // A float's shortest decimal is a CMIDecimal, however many digits; JavaScript's exponent
  // form is not.
  assert.equal(CMI_DECIMAL.test("0.10000000149011612"), true);
  assert.equal(CMI_DECIMAL.test("1.0000000116860974e-7"), false);
  const s = session("scorm12");
  for (const score of ["cmi.core.score.raw", "cmi.core.score.min", "cmi.core.score.max"]) {
    s.accepts(score, "0", "100", "55.5", "0.10000000149011612", "007", "-0", "");
    s.refuses(405, score, "1.0000000116860974e-7", "1e2", "+5", ".5", "5.", "100.01", "-1", "101", "abc", " 5", "5 ",
              "0x10", "Infinity", "NaN", "5,5");
  }
  s.accepts("cmi.objectives.0.score.raw", "80");
  s.refuses(405, "cmi.objectives.0.score.raw", "100.5");
  s.accepts("cmi.interactions.0.weighting", "-2.5", "1000");
  s.refuses(405, "cmi.interactions.0.weighting", "1e3", "");
  // CMISInteger with its element's range.
  s.accepts("cmi.student_preference.audio", "-1", "0", "100");
  s.refuses(405, "cmi.student_preference.audio", "101", "-2", "1.5", "");
  s.accepts("cmi.student_preference.speed", "-100", "100");
  s.refuses(405, "cmi.student_preference.speed", "-101");
  s.accepts("cmi.student_preference.text", "-1", "1");
  s.refuses(405, "cmi.student_preference.text", "2");
});

check("2004: real(10,7): 7 decimals and 10 digits at most, no exponent; scaled and progress out of range 407", () => {
  assert.equal(REAL_10_7.test("0.1000000"), true);
  assert.equal(REAL_10_7.test("0.12345678"), false);  // 8 decimals
  assert.equal(REAL_10_7.test("0.10000000149011612"), false);  // 17 decimals
  assert.equal(REAL_10_7.test("1.0000000116860974e-7"), false);  // an exponent
  const s = session("scorm2004");
  for (const element of ["cmi.score.raw", "cmi.score.min", "cmi.score.max"]) {
    s.accepts(element, "0", "-12.5", "1234567890", "0.1234567", "123.4567891", "0.0000001", "1000", "-0");
    s.refuses(406, element, "1.0000000116860974e-7", "0.10000000149011612", "0.12345678", "1.00000000", "12345678901",
              "1234.5678912", "1e3", "+1", ".5", "5.", "", "NaN", "1,5");
  }
  s.accepts("cmi.score.scaled", "-1", "1", "0.6667", "0");
  s.refuses(407, "cmi.score.scaled", "1.0000001", "-1.5", "2");
  s.refuses(406, "cmi.score.scaled", "abc", "0.10000000149011612");
  s.accepts("cmi.progress_measure", "0", "1", "0.5");
  s.refuses(407, "cmi.progress_measure", "1.1", "-0.1");
  s.accepts("cmi.learner_preference.audio_level", "0", "2.5");
  s.refuses(407, "cmi.learner_preference.audio_level", "-1");
  s.refuses(406, "cmi.learner_preference.delivery_speed", "fast");
  s.accepts("cmi.learner_preference.audio_captioning", "-1", "0", "1");
  s.refuses(406, "cmi.learner_preference.audio_captioning", "2", "");
});

check("1.2: vocabularies: lesson_status (not \"not attempted\"), exit, interaction type, result", () => {
  const s = session("scorm12");
  s.accepts("cmi.core.lesson_status", "passed", "completed", "failed", "incomplete", "browsed");
  s.refuses(405, "cmi.core.lesson_status", "not attempted", "Passed", "", "complete", "unknown");
  s.accepts("cmi.core.exit", "time-out", "suspend", "logout", "");
  s.refuses(405, "cmi.core.exit", "normal", "Suspend", "timeout");
  s.accepts("cmi.objectives.0.status", "not attempted", "passed");
  s.accepts("cmi.interactions.0.type", "true-false", "choice", "fill-in", "matching", "performance", "sequencing",
            "likert", "numeric");
  s.refuses(405, "cmi.interactions.0.type", "long-fill-in", "other", "Choice", "");
  s.accepts("cmi.interactions.0.result", "correct", "wrong", "unanticipated", "neutral", "0.5", "1");
  s.refuses(405, "cmi.interactions.0.result", "incorrect", "1e-7", "", "right");
});

check("2004: vocabularies: completion, success, exit, interaction type, result", () => {
  const s = session("scorm2004");
  s.accepts("cmi.completion_status", "completed", "incomplete", "not attempted", "unknown");
  s.refuses(406, "cmi.completion_status", "passed", "", "Completed");
  s.accepts("cmi.success_status", "passed", "failed", "unknown");
  s.refuses(406, "cmi.success_status", "completed", "");
  s.accepts("cmi.exit", "time-out", "suspend", "logout", "normal", "");
  s.refuses(406, "cmi.exit", "timeout", "Suspend");
  s.accepts("cmi.interactions.0.id", "q1");
  s.accepts("cmi.interactions.0.type", "true-false", "choice", "fill-in", "long-fill-in", "matching", "performance",
            "sequencing", "likert", "numeric", "other");
  s.refuses(406, "cmi.interactions.0.type", "Choice", "");
  s.accepts("cmi.interactions.0.result", "correct", "incorrect", "unanticipated", "neutral", "-3.5", "1");
  s.refuses(406, "cmi.interactions.0.result", "wrong", "1e-7", "0.10000000149011612", "");
});

check("1.2: CMITimespan, CMITime, CMIString255 and CMIString4096 (counted in characters)", () => {
  const s = session("scorm12");
  s.accepts("cmi.core.session_time", "00:00:00", "0000:01:02.5", "9999:59:59.99", "12:30:00");
  s.refuses(405, "cmi.core.session_time", "0:00:00", "00000:00:00", "00:60:00", "00:00:60", "00:00:00.123", "PT1H", "",
            "00:00", "00:0:00");
  s.accepts("cmi.interactions.0.latency", "00:00:05");
  s.accepts("cmi.interactions.0.time", "00:00:00", "23:59:59.99", "10:00:00.5");
  s.refuses(405, "cmi.interactions.0.time", "24:00:00", "9:00:00", "10:00", "10:00:00.123", "10:00:00Z", "");
  s.accepts("cmi.core.lesson_location", "", "b", "x".repeat(255));
  s.refuses(405, "cmi.core.lesson_location", "x".repeat(256));
  s.accepts("cmi.suspend_data", "", "x".repeat(4096), "😀".repeat(4096));  // 4,096 characters in 8,192 code units
  s.refuses(405, "cmi.suspend_data", "x".repeat(4097), "😀".repeat(4097));
  s.accepts("cmi.comments", "x".repeat(4096));
  s.accepts("cmi.student_preference.language", "x".repeat(255));
  s.refuses(405, "cmi.student_preference.language", "x".repeat(256));
});

check("2004: timeinterval, time(second,10,0), characterstrings, localized strings, languages", () => {
  const s = session("scorm2004");
  s.accepts("cmi.session_time", "PT1H2M3.45S", "PT0S", "P1Y2M3DT4H5M6S", "P1D", "PT10M", "PT0.5S", "PT000005H");
  s.refuses(406, "cmi.session_time", "P", "PT", "P1DT", "PT1.456S", "PT1H2M3,4S", "1:00:00", "PT-1S", "P1W", "pt1h", "",
            "PT1.S");
  s.accepts("cmi.interactions.0.id", "q1");
  s.accepts("cmi.interactions.0.latency", "PT5S");
  const stamp = "cmi.interactions.0.timestamp";
  s.accepts(stamp, "2026-11-27T10:00:00", "2026", "2026-11", "2026-11-27", "2026-11-27T10", "2026-11-27T10:00",
            "2026-11-27T10:00:00.5", "2026-11-27T10:00:00.70Z", "2026-11-27T10:00:00.0+05:00",
            "2026-11-27T10:00:00.0-03", "1970-01-01T00:00:00", "2038-12-31T23:59:59.99", "2024-02-29");
  // A time zone only after a fraction of a second (RTE appendix A), a real date, 1970 to 2038.
  s.refuses(406, stamp, "2026-11-27T10:00:00Z", "2026-11-27T10:00:00+05:00", "2026-11-27 10:00:00", "2026-02-30",
            "2026-02-29", "2026-13-01", "2026-11-27T24:00:00", "1969-12-31", "2039-01-01", "2026-11-27T10:00:00.123",
            "26-11-27", "", "2026-11-27T10:00:00.0+24:00", "2026-11-27T10Z");
  s.accepts("cmi.location", "", "b", "x".repeat(1000));
  s.refuses(406, "cmi.location", "x".repeat(1001));
  s.accepts("cmi.suspend_data", "x".repeat(64000));
  s.refuses(406, "cmi.suspend_data", "x".repeat(64001));
  const description = "cmi.interactions.0.description";
  s.accepts(description, "", "Which key?", "x".repeat(250), `{lang=en}${"x".repeat(250)}`, "{lang=en-US}Which key?",
            "{not a delimiter}");
  s.refuses(406, description, "x".repeat(251), "{lang=}x", "{lang=en", "{lang=en_US}x");
  s.accepts("cmi.comments_from_learner.0.comment", "x".repeat(4000));
  s.refuses(406, "cmi.comments_from_learner.0.comment", "x".repeat(4001));
  s.accepts("cmi.comments_from_learner.0.location", "x".repeat(250));
  s.refuses(406, "cmi.comments_from_learner.0.location", "x".repeat(251));
  s.accepts("cmi.learner_preference.language", "en", "en-US", "zh-Hans-CN", "");
  s.refuses(406, "cmi.learner_preference.language", "en_US", "123", "toolonglanguage", "en-");
});

check("1.2: interactions in order (201), plain indices, CMIIdentifier ids, a response by its type", () => {
  const s = session("scorm12");
  s.refuses(201, "cmi.interactions.1.id", "q2");  // _count is 0
  s.accepts("cmi.interactions.0.id", "a.q1");
  s.reads("cmi.interactions._count", "1");
  s.refuses(201, "cmi.interactions.2.id", "q3");
  for (const index of ["01", "+1", "1e+308", "-1", " 1", "1.0", "0x1", "１", ""]) {
    s.refuses(201, `cmi.interactions.${index}.id`, "q");
  }
  s.refuses(201, "cmi.interactions.99999999999999999999.id", "q");  // plain but far beyond the count
  // 1.2 asks no id first: any element starts a new interaction.
  s.accepts("cmi.interactions.1.result", "correct");
  s.reads("cmi.interactions._count", "2");
  s.reads("cmi.interactions.5.objectives._count", "", "201");
  s.accepts("cmi.interactions.0.id", "key_3", "x".repeat(255), "!~", "why_so_tall.q2");
  s.refuses(405, "cmi.interactions.0.id", "", "a q1", "x".repeat(256), "é", "tab\t");
  s.accepts("cmi.interactions.0.objectives.0.id", "obj1");
  s.refuses(201, "cmi.interactions.0.objectives.2.id", "obj3");
  s.reads("cmi.interactions.0.objectives._count", "1");
  s.reads("cmi.interactions.0.correct_responses._count", "0");
  // Before a type, a response is a CMIString255.
  s.accepts("cmi.interactions.1.student_response", "anything at all");
  const byType = {
    numeric: [["0.25", "-3", "0.10000000149011612"], ["1.0000000116860974e-7", "abc", ""]],
    choice: [["a", "a,b,c", "{a,b}", "1"], ["key_3", "ab", "a,,b", "A", ""]],
    "fill-in": [["key_3", "", "x".repeat(255)], ["x".repeat(256)]],
    "true-false": [["t", "f", "0", "1"], ["true", ""]],
    likert: [["a", ""], ["ab"]],
    matching: [["1.a,2.b", "{1.a}"], ["1-a", ""]],
    sequencing: [["a,b,c"], ["{a,b}", "abc"]],
    performance: [["step 1 done", ""], ["x".repeat(256)]],
  };
  for (const [type, [good, bad]] of Object.entries(byType)) {
    const i = s.get("cmi.interactions._count")[0];
    s.accepts(`cmi.interactions.${i}.id`, `q${i}`);
    s.accepts(`cmi.interactions.${i}.type`, type);
    s.accepts(`cmi.interactions.${i}.student_response`, ...good);
    s.refuses(405, `cmi.interactions.${i}.student_response`, ...bad);
    s.accepts(`cmi.interactions.${i}.correct_responses.0.pattern`, good[0]);
    s.refuses(405, `cmi.interactions.${i}.correct_responses.1.pattern`, bad[0]);
  }
});

check("2004: interactions in order (351), id first and type first (408), long identifiers, responses by type", () => {
  const s = session("scorm2004");
  s.refuses(408, "cmi.interactions.0.type", "choice");  // the id comes first
  s.refuses(351, "cmi.interactions.1.id", "q2");
  s.accepts("cmi.interactions.0.id", "a.q1");
  s.refuses(408, "cmi.interactions.0.learner_response", "key_3");  // the type comes first
  s.refuses(408, "cmi.interactions.0.correct_responses.0.pattern", "key_3");
  s.accepts("cmi.interactions.0.type", "choice");
  s.accepts("cmi.interactions.0.learner_response", "key_3");
  s.accepts("cmi.interactions.0.objectives.0.id", "obj1");
  s.refuses(351, "cmi.interactions.0.objectives.2.id", "obj3");
  s.refuses(408, "cmi.interactions.1.objectives.0.id", "obj1");  // interaction 1 has no id yet
  s.refuses(351, "cmi.interactions.2.id", "q3");
  for (const index of ["01", "+1", "1e+308", "-1", " 1", "0x1", ""]) {
    s.refuses(401, `cmi.interactions.${index}.id`, "q");
  }
  s.refuses(351, "cmi.interactions.99999999999999999999.id", "q");
  s.reads("cmi.interactions._count", "1");
  s.reads("cmi.interactions.0.id", "a.q1");
  s.reads("cmi.interactions.0.type", "choice");
  s.reads("cmi.interactions.0.result", "", "403");
  s.reads("cmi.interactions.5.id", "", "301");
  s.reads("cmi.interactions.0.objectives._count", "1");
  s.reads("cmi.interactions.0.objectives.0.id", "obj1");
  // long_identifier_type: a URN when it says it is one; else no white space or control.
  s.accepts("cmi.interactions.0.id", "key_3", "urn:ADL:interaction-1", "urn:isbn:0451450523", "x".repeat(4000),
            "http://example.com/q#1", "urn:a:b%20c", "why_so_tall.q2");
  s.refuses(406, "cmi.interactions.0.id", "", "a q1", "x".repeat(4001), "urn:", "urn:bad nid:x", "urn:a:", "urn:a:b c",
            "urn:a:%zz", "tab\tx", "new\nline", "\u0001");
  const byType = {
    numeric: [["0.25", "-3", "0.1", "1234567890"], ["1.0000000116860974e-7", "0.10000000149011612", "", "1e3"]],
    choice: [["key_3", "a[,]b[,]c", ""],
             ["a[,]a", "a b", "a[,]", Array.from({ length: 37 }, (_, i) => `c${i}`).join("[,]")]],
    "fill-in": [["some text", "{lang=en}text", "a[,]b", ""], ["x".repeat(251), Array(11).fill("a").join("[,]")]],
    "long-fill-in": [["x".repeat(4000)], ["x".repeat(4001)]],
    "true-false": [["true", "false"], ["t", "1", ""]],
    likert: [["strongly_agree"], ["a b", ""]],
    matching: [["1[.]a[,]2[.]b"], ["1[.]", "1-a", "1[.]a[.]b"]],
    performance: [["step1[.]answer[,]step2[.]5", "[.]answer"], ["[.]", "no delimiter"]],
    sequencing: [["a[,]b[,]c"], ["a b", ""]],
    other: [["anything goes", ""], ["x".repeat(4001)]],
  };
  for (const [type, [good, bad]] of Object.entries(byType)) {
    const n = interaction2004(s, type);
    s.accepts(`${n}.learner_response`, ...good);
    s.refuses(406, `${n}.learner_response`, ...bad);
  }
  // Correct responses: numeric's a range, fill-in's flags first.
  const numeric = interaction2004(s, "numeric");
  s.accepts(`${numeric}.correct_responses.0.pattern`, "1[:]5", "[:]5", "1[:]");
  s.refuses(406, `${numeric}.correct_responses.0.pattern`, "5", "1[:]x");
  const fill = interaction2004(s, "fill-in");
  s.accepts(`${fill}.correct_responses.0.pattern`, "{case_matters=true}Paris",
            "{order_matters=false}{case_matters=true}a[,]b");
  s.refuses(406, `${fill}.correct_responses.0.pattern`, "{case_matters=true}{lang=}x", "x".repeat(251));
  // A text may begin with "{": an unknown flag is the answer's own text.
  s.accepts(`${fill}.correct_responses.0.pattern`, "{case_matters=maybe}");
  // Objectives: the id first, then a scaled score within -1 to 1.
  s.refuses(408, "cmi.objectives.0.score.raw", "5");
  s.accepts("cmi.objectives.0.id", "obj1");
  s.refuses(407, "cmi.objectives.0.score.scaled", "2");
  s.reads("cmi.objectives.0.success_status", "unknown");
  // Comments from the learner need no id.
  s.accepts("cmi.comments_from_learner.0.comment", "{lang=en}Nice");
  s.reads("cmi.comments_from_learner._count", "1");
  s.refuses(351, "cmi.comments_from_learner.2.comment", "x");
});

check("the record: initial values, _count, pending and data at Commit, failCommits, the next session", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const v12 = version === "scorm12";
    const location = v12 ? "cmi.core.lesson_location" : "cmi.location";
    const entry = v12 ? "cmi.core.entry" : "cmi.entry";
    const s = session(version, {
      failCommits: 2,
      initial: { "cmi.interactions._count": "2", "cmi.interactions.0.id": "x", "cmi.interactions.1.id": "y",
                 "cmi.suspend_data": "x".repeat(100000), [location]: "b", [entry]: "resume", "__proto__": "no" },
    });
    s.reads("cmi.interactions._count", "2");
    s.reads(entry, "resume");
    s.reads(location, "b");
    s.reads("cmi.suspend_data", "x".repeat(100000));  // the platform's own record is not checked
    s.accepts("cmi.interactions.2.id", "z");
    s.reads("cmi.interactions._count", "3");
    s.refuses(v12 ? 201 : 351, "cmi.interactions.4.id", "w");
    s.accepts(location, "c");
    assert.equal(s.api.pending[location], "c");
    assert.equal(s.api.data[location], "b");
    assert.deepEqual(s.commit(), ["false", v12 ? "101" : "391"]);
    assert.deepEqual(s.commit(), ["false", v12 ? "101" : "391"]);
    assert.equal(s.api.data[location], "b");  // nothing stored by a failed commit
    assert.deepEqual(s.commit(), ["true", "0"]);
    assert.equal(s.api.data[location], "c");
    assert.deepEqual(s.api.pending, {});
    assert.equal(s.api.data["cmi.interactions._count"], "3");
    assert.equal(s.api.data["cmi.interactions.2.id"], "z");
    assert.equal(Object.getPrototypeOf(s.api.data), Object.prototype);
    s.accepts(v12 ? "cmi.core.exit" : "cmi.exit", "suspend");
    s.accepts(v12 ? "cmi.core.session_time" : "cmi.session_time", v12 ? "00:01:00" : "PT1M");
    assert.deepEqual(s.finish(), ["true", "0"]);
    // The next session resumes where this one was suspended.
    const initial = nextSession(version, s.api.data);
    assert.equal(initial[entry], "resume");
    assert.equal(initial[v12 ? "cmi.core.exit" : "cmi.exit"], undefined);
    const again = session(version, { initial });
    again.reads(entry, "resume");
    again.reads(location, "c");
    again.reads("cmi.interactions._count", "3");
    // Initial collections without a _count: their size from the indices.
    session(version, { initial: { "cmi.interactions.0.id": "x", "cmi.interactions.1.id": "y" } })
      .reads("cmi.interactions._count", "2");
  }
  const plain = session("scorm2004");
  plain.accepts("cmi.exit", "normal");
  plain.finish();
  assert.equal(nextSession("scorm2004", plain.api.data)["cmi.entry"], "");
});

check("refuse: elements a platform leaves out answer 401 in 1.2 and 402 (unimplemented) in 2004", () => {
  const s = session("scorm12", { refuse: ["cmi.core.score.min", "cmi.interactions*"] });
  s.refuses(401, "cmi.core.score.min", "0");
  s.reads("cmi.core.score.min", "", "401");
  s.accepts("cmi.core.score.max", "100");
  s.reads("cmi.interactions._count", "", "401");
  s.refuses(401, "cmi.interactions.0.id", "q1");
  // Without a star: the element and everything under it.
  const t = session("scorm12", { refuse: ["cmi.interactions"] });
  t.reads("cmi.interactions._count", "", "401");
  t.refuses(401, "cmi.interactions.0.result", "correct");
  t.accepts("cmi.core.lesson_status", "incomplete");
  const u = session("scorm2004", { refuse: ["cmi.score.scaled", "cmi.interactions"] });
  u.refuses(402, "cmi.score.scaled", "0.5");
  u.reads("cmi.score.scaled", "", "402");
  u.reads("cmi.interactions._count", "", "402");
  u.accepts("cmi.score.raw", "50");
  // Unknown names are unknown first.
  u.refuses(401, "cmi.nope", "x");
});

check("refuseInitialize: 1.2 answers 101, 2004 102, and the session never begins", () => {
  for (const [version, code] of [["scorm12", "101"], ["scorm2004", "102"]]) {
    const s = session(version, { refuseInitialize: true }, { start: false });
    assert.deepEqual(s.init(), ["false", code]);
    assert.equal(s.api.state, "not initialized");
    assert.deepEqual(s.get("cmi.suspend_data"), ["", version === "scorm12" ? "301" : "122"]);
  }
});

check("Moodle: at LMSFinish incomplete becomes failed below the mastery score, passed at it; not at LMSCommit", () => {
  const finish = (initial, values, options = {}) => {
    const s = session("scorm12", { moodle: true, initial, ...options });
    for (const [element, value] of Object.entries(values)) s.accepts(element, value);
    assert.deepEqual(s.commit(), ["true", "0"]);
    const committed = s.api.data["cmi.core.lesson_status"];
    assert.deepEqual(s.finish(), ["true", "0"]);
    return [committed, s.api.data["cmi.core.lesson_status"]];
  };
  const mastery = { "cmi.student_data.mastery_score": "80" };
  assert.deepEqual(finish(mastery, { "cmi.core.lesson_status": "incomplete", "cmi.core.score.raw": "50" }),
                   ["incomplete", "failed"]);
  assert.deepEqual(finish(mastery, { "cmi.core.lesson_status": "incomplete", "cmi.core.score.raw": "80" }),
                   ["incomplete", "passed"]);
  assert.deepEqual(finish(mastery, { "cmi.core.lesson_status": "completed", "cmi.core.score.raw": "79.99" }),
                   ["completed", "failed"]);
  assert.deepEqual(finish(mastery, { "cmi.core.lesson_status": "failed", "cmi.core.score.raw": "85.5" }),
                   ["failed", "passed"]);
  // Never set: "not attempted" becomes "completed".
  assert.deepEqual(finish({}, {}), ["not attempted", "completed"]);
  assert.deepEqual(finish(mastery, {}), ["not attempted", "completed"]);  // no raw score
  // Only in normal mode with credit, with both scores given.
  const under = { "cmi.core.lesson_status": "incomplete", "cmi.core.score.raw": "50" };
  assert.deepEqual(finish({ ...mastery, "cmi.core.lesson_mode": "browse" }, under), ["incomplete", "incomplete"]);
  assert.deepEqual(finish({ ...mastery, "cmi.core.credit": "no-credit" }, under), ["incomplete", "incomplete"]);
  assert.deepEqual(finish({ "cmi.student_data.mastery_score": "" }, under), ["incomplete", "incomplete"]);
  // Without the option, the SCO's status stays.
  const plain = session("scorm12", { initial: mastery });
  plain.accepts("cmi.core.lesson_status", "incomplete");
  plain.accepts("cmi.core.score.raw", "50");
  plain.finish();
  assert.equal(plain.api.data["cmi.core.lesson_status"], "incomplete");
});

check("2004: the platform's statuses from scaled_passing_score and completion_threshold", () => {
  const s = session("scorm2004", { initial: { "cmi.scaled_passing_score": "0.8", "cmi.completion_threshold": "1" } });
  s.reads("cmi.scaled_passing_score", "0.8");
  s.reads("cmi.success_status", "unknown");
  s.accepts("cmi.success_status", "passed");
  s.reads("cmi.success_status", "unknown");  // no scaled score yet
  s.accepts("cmi.score.scaled", "0.5");
  s.reads("cmi.success_status", "failed");
  s.accepts("cmi.score.scaled", "0.8");
  s.reads("cmi.success_status", "passed");
  s.accepts("cmi.completion_status", "completed");
  s.reads("cmi.completion_status", "unknown");
  s.accepts("cmi.progress_measure", "0.5");
  s.reads("cmi.completion_status", "incomplete");
  s.finish();
  assert.equal(s.api.data["cmi.success_status"], "passed");
  assert.equal(s.api.data["cmi.completion_status"], "incomplete");
  // Without them, the SCO's values.
  const t = session("scorm2004");
  t.accepts("cmi.success_status", "failed");
  t.reads("cmi.success_status", "failed");
  t.finish();
  assert.equal(t.api.data["cmi.success_status"], "failed");
});

check("errors: strings, diagnostics, support calls keep the error, a success resets it", () => {
  for (const [version, refused, text] of [["scorm12", "405", "Incorrect data type"],
                                          ["scorm2004", "406", "Data Model Element Type Mismatch"]]) {
    const s = session(version);
    const { n, api } = s;
    const status = version === "scorm12" ? "cmi.core.lesson_status" : "cmi.completion_status";
    assert.deepEqual(s.set(status, "bogus"), ["false", refused]);
    assert.equal(api[n.error](), refused);
    assert.equal(api[n.text](refused), text);
    assert.match(api[n.diagnostic](""), new RegExp(`${status.replace(/\./g, "\\.")}: "bogus"`));
    assert.match(api[n.diagnostic](refused), /bogus/);
    assert.equal(api[n.diagnostic]("101"), ERROR_STRINGS[version][101]);
    assert.equal(api[n.text]("999"), "");
    assert.equal(api[n.text](""), "");
    assert.equal(api[n.text](405), "");  // a code is a string
    assert.equal(api[n.error](), refused);  // the support calls changed nothing
    assert.ok(api[n.diagnostic]("").length <= 255);
    assert.deepEqual(s.get(status), [version === "scorm12" ? "not attempted" : "unknown", "0"]);
    assert.equal(api[n.diagnostic](""), ERROR_STRINGS[version][0]);
    for (const code of Object.keys(ERROR_STRINGS[version])) assert.ok(api[n.text](code).length > 0, code);
  }
});

check("hostile platforms: SetValue answers an object without toString, or throws one; _count answers 1e308", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const v12 = version === "scorm12";
    const set = NAMES[version].set;
    const a = session(version, { hostile: "null-object" });
    const r = a.api[set](v12 ? "cmi.core.lesson_location" : "cmi.location", "b");
    assert.equal(Object.getPrototypeOf(r), null);
    assert.throws(() => String(r), TypeError);
    a.commit();
    assert.equal(a.api.data[v12 ? "cmi.core.lesson_location" : "cmi.location"], "b");  // stored all the same
    const b = session(version, { hostile: "throw-null-object" });
    let thrown;
    try {
      b.api[set]("cmi.suspend_data", "x");
    } catch (e) {
      thrown = e;
    }
    assert.equal(Object.getPrototypeOf(thrown), null);
    assert.equal(b.api.calls.at(-1).thrown, thrown);
    assert.equal(b.api.calls.at(-1).error, v12 ? "101" : "351");
    assert.equal(b.api.data["cmi.suspend_data"], undefined);
    const c = session(version, { hostile: "huge-count" });
    c.reads("cmi.interactions._count", "1e308");
    assert.equal(Number.isInteger(Number("1e308")), true);  // what makes it hostile
    c.refuses(v12 ? 201 : 401, `cmi.interactions.${Number("1e308")}.id`, "q");
  }
});

check("calls: every call with its arguments, result and error code", () => {
  const s = session("scorm2004");
  s.set("cmi.location", "b");
  s.get("cmi.exit");
  const calls = s.api.calls.map(({ fn, args, result, error }) => ({ fn, args, result, error }));
  assert.deepEqual(calls, [
    { fn: "Initialize", args: [""], result: "true", error: "0" },
    { fn: "GetLastError", args: [], result: "0", error: "0" },
    { fn: "SetValue", args: ["cmi.location", "b"], result: "true", error: "0" },
    { fn: "GetLastError", args: [], result: "0", error: "0" },
    { fn: "GetValue", args: ["cmi.exit"], result: "", error: "405" },
    { fn: "GetLastError", args: [], result: "405", error: "405" },
  ]);
});

check("long hostile strings are refused at once", () => {
  for (const version of ["scorm12", "scorm2004"]) {
    const s = session(version);
    const v12 = version === "scorm12";
    fast("a 300,000-character element", () => s.reads(huge, "", v12 ? "201" : "401"));
    fast("300,000 characters of suspend data", () => s.refuses(v12 ? 405 : 406, "cmi.suspend_data", huge + huge));
    fast("300,000 digits of score", () => s.refuses(v12 ? 405 : 406, v12 ? "cmi.core.score.raw" : "cmi.score.raw",
                                                     `${"1".repeat(300000)}x`));
    const index = "9".repeat(300000);
    fast("300,000 digits of an index", () => s.refuses(v12 ? 201 : 401, `cmi.interactions.${index}.id`, "q"));
    const sessionTime = v12 ? "cmi.core.session_time" : "cmi.session_time";
    fast("a 300,000-character timespan", () => s.refuses(v12 ? 405 : 406, sessionTime, `P${"1".repeat(300000)}`));
    if (!v12) {
      s.accepts("cmi.interactions.0.id", "q");
      s.accepts("cmi.interactions.0.type", "choice");
      fast("a 300,000-item choice", () => s.refuses(406, "cmi.interactions.0.learner_response",
                                                     Array(100000).fill("a").join("[,]")));
    }
  }
});

let failed = 0;
for (const [name, fn] of checks) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    ++failed;
    console.error(`FAIL: ${name}: ${e.message}`);
  }
}
console.log(`# ${checks.length - failed} of ${checks.length} passed`);
process.exit(failed ? 1 : 0);
