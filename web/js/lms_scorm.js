// SCORM 1.2 and SCORM 2004, a course platform's gradebook: inside a SCORM package an LMS gives
// the page a run-time object (SCORM 2004's API_1484_11, SCORM 1.2's API) somewhere up its frames
// or its opener's. The page, asked with ?lms=scorm2004 or ?lms=scorm12, finds it (searching again
// for a few seconds) and reports what the learner does in the course's lessons: each question
// answered (an interaction, a number answer as the decimal typed), progress, completion when
// every lesson is done, the score (answers right the first time out of the questions), success
// against the passing score once the course is done, the session's time; it resumes from the
// LMS's suspend data and location, and a new attempt starts empty. What the platform refuses is
// skipped and the rest still reported; a refused commit is tried again; whatever the run-time
// returns or throws is untrusted data. The learner is told on screen when nothing is recorded.
// Both versions are one report: they differ in their names (VERSIONS) and in a few elements.
// cmi5 is lms_cmi5.js's; what both share, lms_core.js's; the page imports them through lms.js.
//
// Pure but for the window it is given: tests/web/unit_test.mjs runs it under node with a
// stand-in run-time and a strict one (tests/web/fixtures/strict_scorm.mjs), tests/web/lms_test.mjs
// in Chromium against scorm-again's and the strict one.

import { asText, courseState, decimalText, describeError, interactionId } from "./lms_core.js";

// The two versions: the object's name in the window, its calls, and its data model's names.
export const VERSIONS = {
  scorm2004: {
    object: "API_1484_11",
    init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit", finish: "Terminate",
    error: "GetLastError", errorText: "GetErrorString",
    location: "cmi.location", suspend: "cmi.suspend_data", exit: "cmi.exit",
    wrong: "incorrect", response: "learner_response", keyType: "choice",
  },
  scorm12: {
    object: "API",
    init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit",
    finish: "LMSFinish", error: "LMSGetLastError", errorText: "LMSGetErrorString",
    location: "cmi.core.lesson_location", suspend: "cmi.suspend_data", exit: "cmi.core.exit",
    // 1.2's choice answers are single characters: a key is written out (fill-in) instead.
    wrong: "wrong", response: "student_response", keyType: "fill-in",
  },
};

// The suspend data each version holds (1.2's CMIString4096, 2004's characterstring of 64000).
const SUSPEND_LIMIT = { scorm12: 4096, scorm2004: 64000 };
const MAX_FRAMES = 16;  // how far up the frames and openers the search goes
const MAX_INTERACTIONS = 9999;  // a count the platform gives above this is not believed

// The run-time object of `version` seen from `win`: in it, up its parents, then up its
// opener's parents, then up the parents of its top window's opener (a SCO in a frame of a
// popup: the order the SCORM run-time specifications give). Null when none, or when a frame
// refuses to be read (another origin).
export function findRuntime(win, version) {
  const name = VERSIONS[version]?.object;
  if (!name) return null;
  const read = (w, key) => {
    try {
      return w ? w[key] : null;
    } catch {
      return null;  // a frame of another origin
    }
  };
  const search = (start) => {
    let w = start;
    for (let depth = 0; w && depth < MAX_FRAMES; ++depth) {
      let found = null;
      try {
        found = w[name];
        if (found && typeof found[VERSIONS[version].init] === "function") return found;
      } catch {
        return null;  // a frame of another origin: no further
      }
      const parent = read(w, "parent");
      if (!parent || parent === w) return null;
      w = parent;
    }
    return null;
  };
  const opener = read(win, "opener");
  const top = read(win, "top");
  const topOpener = top && top !== win ? read(top, "opener") : null;
  return search(win) ?? (opener ? search(opener) : null) ??
         (topOpener && topOpener !== opener ? search(topOpener) : null);
}

// findRuntime, asked again every `every` ms until `within` ms have passed: a platform that
// puts its run-time in place a moment after the page loads is still found. A promise of the
// run-time or null. `wait(ms)` is the timer (a stand-in in the tests).
export async function searchRuntime(win, version, { within = 5000, every = 250,
                                                    wait = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
  for (let waited = 0; ; waited += every) {
    const found = findRuntime(win, version);
    if (found || waited >= within) return found;
    await wait(every);
  }
}

// A fraction as the data model takes it: at most 4 decimals, no trailing zeros (2/3 → 0.6667).
const round4 = (x) => Math.round(x * 10000) / 10000;

// Times as each version writes them: 1.2's CMITime (the time of day, local, as 1.2 has no
// zone) and CMITimespan ("HHHH:MM:SS.SS"); 2004's time(second,10,0), in UTC with its zone
// after the hundredths (the standard's form puts the zone after the fraction), and
// timeinterval (ISO 8601, "PT1H2M3.45S").
const two = (n) => String(n).padStart(2, "0");
const timeOfDay = (d) => d.toTimeString().slice(0, 8);
export const timestamp2004 = (d) => `${d.toISOString().slice(0, 22)}Z`;
function splitDuration(ms) {
  const cs = Math.max(0, Math.round(ms / 10));
  return { h: Math.min(9999, Math.floor(cs / 360000)), m: Math.floor(cs / 6000) % 60, s: Math.floor(cs / 100) % 60,
           cs: cs % 100 };
}
export function timespan12(ms) {
  const { h, m, s, cs } = splitDuration(ms);
  return `${two(h)}:${two(m)}:${two(s)}.${two(cs)}`;
}
export function interval2004(ms) {
  const { h, m, s, cs } = splitDuration(ms);
  return `PT${h}H${m}M${s}.${two(cs)}S`;
}

// A call that succeeded: true, or its text "true" (what a run-time returns is untrusted: asText).
const succeeded = (r) => r === true || asText(r) === "true";

// The errors after which a session is over (not started, or ended): 1.2's 301, 2004's
// "... before initialization" and "... after termination" codes. Any other refusal is of one
// element or value, and the rest is still reported.
const SESSION_OVER = new Set(["301", "104", "112", "113", "122", "123", "132", "133", "142", "143"]);
// Refusals of an element itself, not of one value (not implemented, unknown, read only): that
// element is not tried again in the session.
const ELEMENT_REFUSED = new Set(["201", "401", "402", "403", "404"]);
// A commit refused is tried again after these waits; then the learner is told.
export const COMMIT_RETRY_MS = [1000, 3000, 10000];

// Reports to `runtime` (findRuntime's) for `version`: `lessons` (the course's, in order),
// `pass` (the passing score, 0 to 1; the platform's own — 1.2's mastery score, 2004's scaled
// passing score — when it gives one), and the page's calls: `progress()` (getProgress),
// `marks` (marks read back from the suspend data, checked as stored progress is),
// `open(lesson)` and `tell(what)`: "refused" (Initialize was refused: nothing is recorded) or
// "unsaved" (commits keep failing, or the platform ended the session), each said once on
// screen by the page. Every call on the run-time is guarded and whatever it returns or throws
// read as untrusted data: an element the platform refuses is skipped (said once in the
// console) and the rest still reported; a failed commit is tried again (COMMIT_RETRY_MS).
// `schedule(fn, ms)` is the timer for the retries. Returns {start, answered, shown, finish,
// live}.
export function createReport({ runtime, version, lessons, pass, progress, marks, open, now = () => new Date(),
                               warn = (m) => console.warn(m), tell = () => {},
                               schedule = (fn, ms) => setTimeout(fn, ms) }) {
  const v = VERSIONS[version];
  let live = false;
  let initialized = false, finished = false;
  let interactions = null;  // the next interaction's index; null: interactions are not reported
  let passPercent = Math.round(100 * pass), platformPass = false;
  let startedAt = 0;
  const refused = new Set();  // elements refused for good (interactions' as cmi.interactions.n.x)
  const warned = new Set();   // the kinds of refusal said in the console
  const told = new Set();
  let commitFailures = 0, retrying = false;
  // Each kind of refusal said once, and at most MAX_WARNINGS of them (a run-time that refuses
  // everything would otherwise fill the console).
  const MAX_WARNINGS = 8;
  const once = (key, message) => {
    if (warned.has(key) || warned.size > MAX_WARNINGS) return;
    warned.add(key);
    warn(warned.size > MAX_WARNINGS ? "The course platform refuses more; no more of it is said here." : message);
  };
  const tellOnce = (what) => {
    if (told.has(what)) return;
    told.add(what);
    try {
      tell(what);
    } catch {
      // the page's notice failed: the console has said it
    }
  };
  // A call on the run-time: its answer, or undefined when it threw (`thrown` says what).
  let thrown = "";
  const attempt = (fn, ...args) => {
    thrown = "";
    try {
      return runtime[v[fn]](...args);
    } catch (e) {
      thrown = describeError(e);
      return undefined;
    }
  };
  const errorCode = () => asText(attempt("error")).trim().slice(0, 8);
  const errorLine = () => {
    if (thrown) return `threw: ${thrown}`;
    const code = errorCode();
    return `${code}: ${asText(attempt("errorText", code)).slice(0, 120)}`;
  };
  // The session is over on the platform's side: nothing more is sent but Terminate.
  const over = (what) => {
    live = false;
    once("over", `The course platform ended the session at ${what}; this page reports nothing more to it.`);
    tellOnce("unsaved");
  };
  const set = (element, value) => {
    const kind = element.replace(/^cmi\.interactions\.\d+\./, "cmi.interactions.n.");
    if (!live || refused.has(kind)) return false;
    const text = String(value);
    const r = attempt("set", element, text);
    if (succeeded(r)) return true;
    const code = thrown ? "" : errorCode();
    const why = thrown ? `threw: ${thrown}` : `${code}: ${asText(attempt("errorText", code)).slice(0, 120)}`;
    if (SESSION_OVER.has(code)) {
      over(`${element} (${why})`);
      return false;
    }
    if (ELEMENT_REFUSED.has(code) || thrown) refused.add(kind);
    once(`set ${kind}`, `The course platform refused ${element} = ${text.slice(0, 60)} (${why}); ` +
                        `the rest is still reported.`);
    return false;
  };
  const get = (element) => {
    if (!live) return "";
    const r = attempt("get", element);
    return typeof r === "string" ? r : "";
  };
  // Commit, tried again after a refusal; the learner is told when the retries are spent.
  const commit = () => {
    if (!live) return;
    if (succeeded(attempt("commit", ""))) {
      commitFailures = 0;
      return;
    }
    const why = errorLine();
    if (SESSION_OVER.has(errorCode())) {
      over(`${v.commit} (${why})`);
      return;
    }
    ++commitFailures;
    once("commit", `The course platform refused ${v.commit} (${why}); it is tried again.`);
    if (commitFailures > COMMIT_RETRY_MS.length) {
      tellOnce("unsaved");
      return;
    }
    if (retrying) return;
    retrying = true;
    schedule(() => {
      retrying = false;
      commit();
    }, COMMIT_RETRY_MS[commitFailures - 1]);
  };

  // The suspend data: the marks, the course's lessons first; whole lessons are left out from
  // the end (never a cut in the middle of the JSON) when they do not fit the version's limit.
  function suspendData() {
    const all = progress()?.marks ?? {};
    const ids = [...lessons.filter((id) => Object.hasOwn(all, id)),
                 ...Object.keys(all).filter((id) => !lessons.includes(id))];
    for (let keep = ids.length; keep >= 0; --keep) {
      const text = JSON.stringify({ version: 1, marks: Object.fromEntries(ids.slice(0, keep).map((id) => [id, all[id]])) });
      if (text.length <= SUSPEND_LIMIT[version]) {
        if (keep < ids.length) once("suspend", `The course platform keeps ${SUSPEND_LIMIT[version]} characters of suspend data: the marks of ${ids.length - keep} lessons were left out.`);
        return text;
      }
    }
    return JSON.stringify({ version: 1, marks: {} });
  }

  // The score, progress, completion and success as the page's progress says now. Success only
  // once the course is complete; while it is not, the score the platform's own passing rule
  // reads (1.2's raw score against its mastery score, as Moodle does at LMSFinish; 2004's
  // scaled score against its scaled passing score) is held back when the platform has a
  // passing score, so that no platform marks "failed" a learner who has not finished.
  function status() {
    const s = courseState(progress(), lessons);
    const raw = Math.round(100 * s.score);
    const hold = platformPass && !s.complete;
    if (version === "scorm2004") {
      const scaled = round4(s.score);
      const success = !s.complete ? "unknown" : scaled * 100 >= passPercent - 1e-9 ? "passed" : "failed";
      // In percent, as 1.2's: platforms grade by the raw score (Moodle reads it out of 100).
      set("cmi.score.min", 0);
      set("cmi.score.max", 100);
      set("cmi.score.raw", raw);
      if (!hold) set("cmi.score.scaled", scaled);
      set("cmi.progress_measure", round4(s.done / Math.max(1, s.lessons)));
      set("cmi.completion_status", s.complete ? "completed" : "incomplete");
      set("cmi.success_status", success);
    } else {
      set("cmi.core.score.min", 0);
      set("cmi.core.score.max", 100);
      if (!hold) set("cmi.core.score.raw", raw);
      set("cmi.core.lesson_status", !s.complete ? "incomplete" : raw >= passPercent ? "passed" : "failed");
    }
    // Resumable until the course is done, and after: its suspend data holds the answers.
    set(v.exit, "suspend");
    set(v.suspend, suspendData());
    commit();
    return s;
  }

  // The platform's passing score, when it gives one: 1.2's cmi.student_data.mastery_score (0 to
  // 100), 2004's cmi.scaled_passing_score (-1 to 1; below 0 passes anyone).
  function readPlatformPass() {
    if (version === "scorm12") {
      const m = get("cmi.student_data.mastery_score").trim();
      if (/^\d{1,3}(\.\d{1,7})?$/.test(m) && Number(m) <= 100) return Number(m);
    } else {
      const m = get("cmi.scaled_passing_score").trim();
      if (/^-?\d(\.\d{1,7})?$/.test(m) && Math.abs(Number(m)) <= 1) return Math.max(0, Number(m) * 100);
    }
    return null;
  }

  return {
    // Opens the session: Initialize, the marks and the lesson of a suspended one back (a new
    // attempt starts empty), the status as it stands. False when there is no session to
    // report to (the page is told: "refused").
    start() {
      if (initialized) return live;
      const r = attempt("init", "");
      if (!succeeded(r)) {
        once("init", `The course platform refused ${v.init} (${errorLine()}); this page reports nothing to it.`);
        tellOnce("refused");
        return false;
      }
      initialized = true;
      live = true;
      startedAt = now().getTime();
      const count = get("cmi.interactions._count").trim();
      if (/^(0|[1-9]\d{0,3})$/.test(count)) {
        interactions = Number(count);
      } else {
        once("count", `The course platform's cmi.interactions._count is "${count.slice(0, 20)}", no count: ` +
                      "answers are reported without their interactions.");
      }
      const platform = readPlatformPass();
      if (platform !== null) {
        passPercent = platform;
        platformPass = true;
      }
      // A new attempt ("ab-initio") starts empty whatever the platform holds.
      const entry = get(version === "scorm12" ? "cmi.core.entry" : "cmi.entry").trim();
      const suspended = entry === "ab-initio" ? "" : get(v.suspend);
      if (suspended) {
        let parsed = null;
        try {
          parsed = suspended.length <= SUSPEND_LIMIT.scorm2004 ? JSON.parse(suspended) : null;
        } catch {
          parsed = null;
        }
        if (parsed && typeof parsed === "object" && parsed.marks && typeof parsed.marks === "object") {
          marks(parsed.marks);
        } else {
          warn("The course platform's suspend data is not this playground's; it was set aside.");
        }
      }
      const location = entry === "ab-initio" ? "" : get(v.location);
      if (lessons.includes(location)) open(location);
      else if (lessons.length > 0) open(lessons[0]);
      if (live) status();
      return true;
    },
    // A question answered: {lesson, question, correct, kind ("key" or "value"), response,
    // ask}. Only the course's lessons count.
    answered({ lesson, question, correct, kind, response, ask }) {
      if (!live || !lessons.includes(lesson)) return;
      if (interactions !== null && interactions < MAX_INTERACTIONS) {
        const n = `cmi.interactions.${interactions}`;
        if (set(`${n}.id`, interactionId(lesson, question))) {
          ++interactions;
          set(`${n}.type`, kind === "key" ? v.keyType : "numeric");
          // None after "Show me": the result alone says it was not answered right.
          const answer = response === null || response === undefined ? null
            : kind === "key" ? (Number.isInteger(response) && response >= 0 ? `key_${response + 1}` : null)
            : decimalText(response);
          if (answer !== null) set(`${n}.${v.response}`, answer);
          set(`${n}.result`, correct ? "correct" : v.wrong);
          if (version === "scorm2004") {
            set(`${n}.timestamp`, timestamp2004(now()));
            if (ask) set(`${n}.description`, String(ask).slice(0, 250));
          } else {
            set(`${n}.time`, timeOfDay(now()));
          }
        }
      }
      status();
    },
    // The lesson on screen, where a resumed session starts.
    shown(lesson) {
      if (!live || !lessons.includes(lesson)) return;
      set(v.location, lesson);
      commit();
    },
    // The session ends (the page is left): the last status and the session's time, then
    // Terminate — always, once the session was opened, whatever was refused before.
    finish() {
      if (!initialized || finished) return;
      finished = true;
      if (live) {
        const ms = now().getTime() - startedAt;
        set(version === "scorm12" ? "cmi.core.session_time" : "cmi.session_time",
            version === "scorm12" ? timespan12(ms) : interval2004(ms));
        status();
      }
      live = false;
      if (!succeeded(attempt("finish", ""))) warn(`The course platform refused ${v.finish} (${errorLine()}).`);
    },
    live: () => live,
  };
}
