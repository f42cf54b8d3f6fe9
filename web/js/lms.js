// A course platform's gradebook: inside a SCORM package an LMS gives the page a run-time
// object (SCORM 2004's API_1484_11, SCORM 1.2's API) somewhere up its frames or its opener's.
// The page, asked with ?lms=scorm2004 or ?lms=scorm12, finds it (searching again for a few
// seconds) and reports what the learner does in the course's lessons: each question answered
// (an interaction, a number answer as the decimal typed), progress, completion when every
// lesson is done, the score (answers right the first time out of the questions), success
// against the passing score once the course is done, the session's time; it resumes from the
// LMS's suspend data and location, and a new attempt starts empty. What the platform refuses is
// skipped and the rest still reported; a refused commit is tried again; whatever the run-time
// returns or throws is untrusted data. The learner is told on screen when nothing is recorded.
//
// Pure but for the window it is given: tests/web/unit_test.mjs runs it under node with a
// stand-in run-time and a strict one (tests/web/fixtures/strict_scorm.mjs), tests/web/lms_test.mjs
// in Chromium against scorm-again's and the strict one.

import { readParams } from "./params.js";

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

// The course's state from the page's progress (getProgress()) and its lessons: the questions,
// those answered right the first time, the lessons done, and the score out of 1.
export function courseState(progress, lessons) {
  const byId = new Map((progress?.lessons ?? []).map((l) => [l.id, l]));
  let questions = 0, correct = 0, done = 0;
  for (const id of lessons) {
    const l = byId.get(id);
    if (!l) continue;
    questions += l.questions;
    correct += l.correct;
    if (l.done) ++done;
  }
  return { questions, correct, done, lessons: lessons.length, complete: done === lessons.length,
           score: questions > 0 ? correct / questions : 1 };
}

// An interaction's id: the lesson and the question, 1-based ("why_so_tall.q2").
export const interactionId = (lesson, question) => `${lesson}.q${question + 1}`;

// A fraction as the data model takes it: at most 4 decimals, no trailing zeros (2/3 → 0.6667).
const round4 = (x) => Math.round(x * 10000) / 10000;

// A number answer as both data models take it (1.2's CMIDecimal, 2004's real(10,7), xAPI's
// response): the decimal the learner typed, never the expansion of the float32 the app keeps
// it in (0.1 is kept as 0.100000001490116…) nor an exponent (1e-7). The shortest decimal that
// reads back as the same float32 is what was typed, up to float32's precision; it is written
// out in full, rounded to 7 decimals, without trailing zeros. Null for what no decimal of at
// most 10 integer digits holds (the answer is then reported without its response).
export function decimalText(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return null;
  const f = Math.fround(x);
  let shortest = f;
  for (let digits = 1; digits <= 9; ++digits) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) {
      shortest = candidate;
      break;
    }
  }
  if (Math.abs(shortest) >= 1e10) return null;
  const text = shortest.toFixed(7).replace(/0+$/, "").replace(/\.$/, "");
  return text === "-0" ? "0" : text;
}

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

// What a run-time returns, read as untrusted data: a string as it is, a boolean or number as
// text, anything else (an object without a way to be text, a symbol) as "". Never throws.
const asText = (r) => (typeof r === "string" ? r : typeof r === "boolean" || typeof r === "number" ? String(r) : "");
const succeeded = (r) => r === true || asText(r) === "true";
// What was thrown, as a short line (what a hostile run-time throws may not be text).
export function describeError(e) {
  try {
    const message = e !== null && typeof e === "object" && typeof e.message === "string" ? e.message : e;
    return typeof message === "string" ? message.slice(0, 200) : asText(message).slice(0, 200) || "something that is no error";
  } catch {
    return "something that is no error";
  }
}

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

// The course the address describes, read as untrusted text: ?lms=scorm2004|scorm12|cmi5, the
// course's lessons (?lessons=a,b: those of `known`, in that order; none: all of `known`) and
// ?pass=P, the passing score in percent (80 unless given). {version (null without ?lms=),
// lessons, pass (0 to 1), notes: what was ignored, one line each naming the parameter}.
export function readCourse(param, known) {
  const notes = [];
  const lms = param("lms");
  const version = lms === null ? null : Object.hasOwn(VERSIONS, lms) || lms === "cmi5" ? lms : null;
  if (lms !== null && !version) notes.push(`lms: must be scorm2004, scorm12 or cmi5, not "${lms.slice(0, 40)}"`);
  let lessons = [...known];
  if (param("lessons") !== null) {
    const asked = (param("lessons") ?? "").split(",").slice(0, 64);
    const unknown = asked.filter((id) => !known.includes(id));
    if (unknown.length > 0) {
      notes.push(`lessons: ${unknown.slice(0, 3).map((id) => `"${id.slice(0, 40)}"`).join(", ")} ` +
                 `${unknown.length === 1 ? "is not a lesson" : "are not lessons"} of this playground`);
    }
    const chosen = [...new Set(asked.filter((id) => known.includes(id)))];
    if (chosen.length > 0) lessons = chosen;
  }
  let pass = 0.8;
  if (param("pass") !== null) {
    const p = param("pass");
    if (/^\d{1,3}$/.test(p) && Number(p) <= 100) pass = Number(p) / 100;
    else notes.push(`pass: must be a whole percent from 0 to 100, not "${p.slice(0, 20)}"`);
  }
  return { version, lessons, pass, notes };
}

// A course package's lessons of its own (attention-cli package --add, or the page's dialog's
// "the scenario shown"): course/NAME.json beside the page (scenario/package.h), named in the
// launch address's ?own=. For each name `asked` (?own=, as given) names that is no lesson of
// `known`, at most MAX_OWN_LESSONS of them, the file is fetched from the page's own origin and
// its text (at most MAX_OWN_LESSON_CHARS) handed to add(name, text) (ap_add_lesson: "" or the
// problem, naming the file and the field). Returns the notes: one line for each file refused or
// missing, and for each name that is no name.
export const OWN_LESSON = /^[a-z0-9_]{1,32}$/;
// How long a request to the page's server or the platform's LRS may take, its answer read.
export const REQUEST_TIMEOUT_MS = 10000;

// `work(signal)` (a request and the reading of its answer) given `ms` to settle: its promise,
// or an error "no answer in N s" once they pass (the request is then aborted). A server that
// never answers, or answers a body that never ends, cannot hold the page.
export function withTimeout(work, ms) {
  const controller = typeof AbortController === "function" ? new AbortController() : null;
  let timer = null;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller?.abort();
      reject(new Error(`no answer in ${Math.round(ms / 100) / 10} s`));
    }, ms);
  });
  return Promise.race([Promise.resolve().then(() => work(controller?.signal)), timeout])
    .finally(() => clearTimeout(timer));
}

export const MAX_OWN_LESSONS = 16;
export const MAX_OWN_LESSON_CHARS = 1 << 20;
export async function addOwnLessons(asked, known, { fetch, add, timeoutMs = REQUEST_TIMEOUT_MS }) {
  if (typeof asked !== "string") return [];
  const names = [...new Set(asked.split(",").slice(0, 64))];
  const notes = names.filter((name) => !OWN_LESSON.test(name)).slice(0, 3)
    .map((name) => `own: "${name.slice(0, 40)}" is not a lesson name (1 to 32 of a-z, 0-9 and _)`);
  const wanted = names.filter((name) => OWN_LESSON.test(name) && !known.includes(name)).slice(0, MAX_OWN_LESSONS);
  for (const name of wanted) {
    const file = `course/${name}.json`;
    let text;
    try {
      text = await withTimeout(async (signal) => {
        const response = await fetch(file, { cache: "no-cache", credentials: "same-origin", signal });
        if (!response?.ok) throw new Error(`HTTP ${response?.status}`);
        return boundedText(response, MAX_OWN_LESSON_CHARS);
      }, timeoutMs);
    } catch (e) {
      notes.push(`${file}: could not be read (${describeError(e).slice(0, 80)})`);
      continue;
    }
    const error = add(name, text);
    if (error) notes.push(String(error).slice(0, 300));
  }
  return notes;
}

// ---------------------------------------------------------------------------------------------
// cmi5 (xAPI). A cmi5 platform launches the page with ?lms=cmi5 (from the package's cmi5.xml)
// and its own launch parameters: endpoint (its LRS), fetch (a one-time URL that answers the
// auth token), actor (the learner, JSON), registration (the learner's enrolment, a UUID) and
// activityId (the AU's IRI). The page POSTs to fetch once for the token, reads the platform's
// LMS.LaunchData state document (launch mode, mastery score, the context every statement
// carries), reads back its own progress document, and sends xAPI statements: initialized,
// answered (one for each question: a cmi.interaction activity, its success and response),
// completed once the course's lessons are done, passed or failed against the mastery score, and
// terminated when the page is left. Every launch parameter and every document read back is
// untrusted: each is bounded and checked, and a bad one means no platform, never an error.
// ---------------------------------------------------------------------------------------------

export const CMI5 = {
  stateId: "attention-playground-progress",  // this page's own state document
  launchData: "LMS.LaunchData",
  category: "https://w3id.org/xapi/cmi5/context/categories/cmi5",
  moveOnCategory: "https://w3id.org/xapi/cmi5/context/categories/moveon",
  masteryScore: "https://w3id.org/xapi/cmi5/context/extensions/masteryscore",
  interaction: "http://adlnet.gov/expapi/activities/cmi.interaction",
  verbs: Object.fromEntries(["initialized", "answered", "completed", "passed", "failed", "terminated"]
    .map((v) => [v, `http://adlnet.gov/expapi/verbs/${v}`])),
};
const MAX_IRI_CHARS = 2000;
const MAX_TOKEN_CHARS = 4096;
const MAX_DOCUMENT_CHARS = 64000;  // a state document read back: ours is far shorter
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A plain JSON object (not an array, not null), or null.
const objectOr = (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : null);
const boundedString = (v, max) => typeof v === "string" && v.length > 0 && v.length <= max;

// An http(s) URL given as text: its href, or null.
function httpUrl(text) {
  if (!boundedString(text, MAX_IRI_CHARS)) return null;
  try {
    const u = new URL(text);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

// The learner as cmi5 gives it: an Agent identified by an account. Rebuilt from the checked
// fields alone, so that nothing else of what was given is sent back.
function readActor(text) {
  if (!boundedString(text, MAX_IRI_CHARS)) return null;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const account = objectOr(objectOr(parsed)?.account);
  if (!account || !httpUrl(account.homePage) || !boundedString(account.name, 500)) return null;
  const actor = { objectType: "Agent", account: { homePage: account.homePage, name: account.name } };
  if (boundedString(parsed.name, 200)) actor.name = parsed.name;
  return actor;
}

// A reader of the address's parameters for cmi5's launch: as params.js's readParams, but with
// room for a platform's long addresses and actor (each value up to 2000 characters).
export function launchParams(search) {
  return readParams(search, MAX_IRI_CHARS, 6);
}

// The launch parameters: {launch: {endpoint (ends in "/"), fetchUrl, actor, registration,
// activityId} or null, problems: one line for each parameter missing or bad}.
export function readCmi5Launch(param) {
  const problems = [];
  const read = (name, parse, what) => {
    const text = param(name);
    const value = text === null ? null : parse(text);
    if (value === null) problems.push(`${name}: ${text === null ? "missing" : `not ${what}`}`);
    return value;
  };
  const endpoint = read("endpoint", (t) => {
    const u = httpUrl(t);
    return u && !/[?#]/.test(u) ? (u.endsWith("/") ? u : `${u}/`) : null;
  }, "an http(s) address");
  const fetchUrl = read("fetch", httpUrl, "an http(s) address");
  const actor = read("actor", readActor, "an agent with an account");
  const registration = read("registration", (t) => (UUID.test(t) ? t.toLowerCase() : null), "a UUID");
  const activityId = read("activityId", (t) => (
    boundedString(t, MAX_IRI_CHARS) && /^[a-z][a-z0-9+.-]*:[^\s\u0000-\u001f\u007f]+$/i.test(t) ? t : null), "an IRI");
  return { launch: problems.length > 0 ? null : { endpoint, fetchUrl, actor, registration, activityId }, problems };
}

// An interaction's activity id: the AU's IRI with the interaction after a "#" (after a "/" in
// a fragment the AU's IRI already has).
export const interactionIri = (activityId, id) => `${activityId}${activityId.includes("#") ? "/" : "#"}${id}`;

// A duration as xAPI writes it (ISO 8601, to the hundredth of a second).
const duration = (ms) => `PT${(Math.max(0, ms) / 1000).toFixed(2)}S`;

// A response's text: the body read whole (an LRS is the platform's), but refused above `max`.
async function boundedText(response, max) {
  const length = Number(response.headers?.get?.("content-length"));
  if (Number.isFinite(length) && length > max) throw new Error(`an answer of ${length} bytes`);
  const text = await response.text();
  if (typeof text !== "string" || text.length > max) throw new Error("an answer too long");
  return text;
}

// This page's progress document read back: {marks, lesson, sent} of the checked parts, or null
// when it is not this playground's (the marks themselves are checked by the page: `marks`).
export function readProgressDocument(text, lessons) {
  if (typeof text !== "string" || text.length > MAX_DOCUMENT_CHARS) return null;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!objectOr(parsed) || parsed.version !== 1 || !objectOr(parsed.marks)) return null;
  const sent = objectOr(parsed.sent) ?? {};
  return {
    marks: parsed.marks,
    lesson: typeof parsed.lesson === "string" && lessons.includes(parsed.lesson) ? parsed.lesson : null,
    sent: { completed: sent.completed === true, passed: sent.passed === true, failed: sent.failed === true },
  };
}

// The platform's LMS.LaunchData, the parts the page uses: {mode ("Normal", "Browse" or
// "Review"), mastery (0 to 1, or null), template (contextTemplate's contextActivities and
// extensions)}. Anything missing or malformed: the defaults.
export function readLaunchData(text) {
  const out = { mode: "Normal", mastery: null, template: { contextActivities: {}, extensions: {} } };
  let parsed = null;
  try {
    parsed = typeof text === "string" && text.length <= MAX_DOCUMENT_CHARS ? objectOr(JSON.parse(text)) : null;
  } catch {
    parsed = null;
  }
  if (!parsed) return out;
  if (["Normal", "Browse", "Review"].includes(parsed.launchMode)) out.mode = parsed.launchMode;
  if (typeof parsed.masteryScore === "number" && parsed.masteryScore >= 0 && parsed.masteryScore <= 1) {
    out.mastery = parsed.masteryScore;
  }
  const template = objectOr(parsed.contextTemplate);
  out.template.contextActivities = objectOr(template?.contextActivities) ?? {};
  out.template.extensions = objectOr(template?.extensions) ?? {};
  return out;
}

// Reports to the platform's LRS: `launch` (readCmi5Launch's), `lessons`, `pass` (0 to 1; the
// platform's mastery score, when LMS.LaunchData has one, instead), the page's calls as
// createReport's, `fetch` (the window's, or a stand-in) and `beacon(url, form)` (the window's
// navigator.sendBeacon, or none: then a keepalive fetch) for what is sent as the page goes. Statements go one at a time, in
// order; a refusal or a network failure stops the reports, with one warning, and never the
// page. Returns {start (a promise of true once reporting, false when there is no platform to
// report to), answered, shown, finish, live}.
export function createCmi5Report({ launch, lessons, pass, progress, marks, open, fetch, beacon = null,
                                   now = () => new Date(), warn = (m) => console.warn(m), tell = () => {},
                                   timeoutMs = REQUEST_TIMEOUT_MS,
                                   wait = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
  let token = "";
  let live = false;
  let stopped = false;
  let mode = "Normal", mastery = null, template = { contextActivities: {}, extensions: {} };
  let sent = { completed: false, passed: false, failed: false };
  let lesson = null;
  let startedAt = 0;
  let initialized = false, terminated = false;  // the session's first and last statements sent
  let queue = Promise.resolve();
  const stop = (e) => {
    const wasLive = live;
    live = false;
    if (stopped) return;
    stopped = true;
    warn(`The course platform refused ${describeError(e)}; this page reports nothing more to it.`);
    // Once reporting, the learner is told that what follows is not recorded (before it, the
    // page says that no platform answered).
    if (wasLive) {
      try {
        tell("unsaved");
      } catch {
        // the console has said it
      }
    }
  };
  const headers = (json) => ({
    Authorization: `Basic ${token}`,
    "X-Experience-API-Version": "1.0.3",
    ...(json ? { "Content-Type": "application/json" } : {}),
  });
  const stateUrl = (stateId) => `${launch.endpoint}activities/state?${new URLSearchParams({
    stateId, activityId: launch.activityId, agent: JSON.stringify(launch.actor), registration: launch.registration,
  })}`;
  // A request to the LRS, its answer read within timeoutMs: {status, ok, text} (text: the
  // body when `read`, "" when it is too long to be ours or unreadable), or an error naming it.
  // A network failure or a server error (5xx, 429) is tried again twice, a second and three
  // seconds later; a request that timed out is not (it may have arrived: a statement sent
  // twice could be refused as a second "completed").
  const RETRY_MS = [1000, 3000];
  const request = async (method, url, body, read = false) => {
    const where = `${method} ${url.split("?")[0]}`;
    for (let attempt = 0; ; ++attempt) {
      let answer = null, failure = null;
      try {
        answer = await withTimeout(async (signal) => {
          const r = await fetch(url, { method, headers: headers(body !== undefined), signal,
                                       ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
          if (!r || typeof r.status !== "number") throw new Error("no answer");
          let text = "";
          if (read && r.ok) {
            try {
              text = await boundedText(r, MAX_DOCUMENT_CHARS);
            } catch {
              text = "";  // too long to be ours, or unreadable: set aside as any other document
            }
          }
          return { status: r.status, ok: Boolean(r.ok), text };
        }, timeoutMs);
      } catch (e) {
        failure = describeError(e);
        if (failure.startsWith("no answer in")) throw new Error(`${where}: ${failure}`);
      }
      const again = failure !== null || answer.status >= 500 || answer.status === 429;
      if (!again || attempt >= RETRY_MS.length) {
        if (failure !== null) throw new Error(`${where}: ${failure}`);
        return answer;
      }
      await wait(RETRY_MS[attempt]);
    }
  };
  const required = async (method, url, body) => {
    const r = await request(method, url, body);
    if (!r.ok) throw new Error(`${method} ${url.split("?")[0]} (${r.status})`);
    return r;
  };
  // A document of the state API: its text, or null when there is none (404).
  const readState = async (stateId) => {
    const r = await request("GET", stateUrl(stateId), undefined, true);
    if (r.status === 404) return null;
    if (!r.ok) throw new Error(`GET state ${stateId} (${r.status})`);
    return r.text;
  };

  // A statement: the learner, the verb, the object (the AU unless given), the result, and the
  // context: the registration and LMS.LaunchData's template; the cmi5 category on the
  // statements cmi5 defines (and only on them: "answered" is an allowed statement), moveon on
  // those that count towards moving on.
  const statement = (verb, { object, result, defined = true, moveOn = false, extensions = {} } = {}) => {
    const activities = { ...template.contextActivities };
    const category = Array.isArray(activities.category) ? [...activities.category] : [];
    if (defined) category.push({ id: CMI5.category, objectType: "Activity" });
    if (moveOn) category.push({ id: CMI5.moveOnCategory, objectType: "Activity" });
    if (category.length > 0) activities.category = category;
    const context = { registration: launch.registration };
    if (Object.keys(activities).length > 0) context.contextActivities = activities;
    const all = { ...template.extensions, ...extensions };
    if (Object.keys(all).length > 0) context.extensions = all;
    return {
      actor: launch.actor,
      verb: { id: CMI5.verbs[verb], display: { "en-US": verb } },
      object: object ?? { objectType: "Activity", id: launch.activityId },
      ...(result ? { result } : {}),
      context,
      timestamp: now().toISOString(),
    };
  };
  // xAPI 1.0.3's alternate request syntax (part three, 1.3; every 1.0.3 LRS takes it): the
  // method in the query, the headers, the parameters and the content in a form. A "simple"
  // request, which a browser sends without a CORS preflight: one step, as the page is being
  // left (keepalive), where the JSON form must first wait for a preflight's answer. Its answer
  // is not waited for. (An LMS records a session whose terminated never came as abandoned.)
  const leaving = (method, url, body) => {
    const u = new URL(url);
    const form = new URLSearchParams(u.searchParams);
    form.set("Authorization", `Basic ${token}`);
    form.set("X-Experience-API-Version", "1.0.3");
    form.set("Content-Type", "application/json");
    form.set("content", JSON.stringify(body));
    const target = `${u.origin}${u.pathname}?method=${method}`;
    try {
      // Called at once, not from a later task: the page may be gone by then. A beacon (the
      // browser's own way to send as a page goes) when given, else a keepalive fetch.
      if (beacon && beacon(target, form)) return;
      Promise.resolve(fetch(target, {
        method: "POST", keepalive: true, body: form.toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" } })).catch(() => {});
    } catch {
      // nothing more can be done as the page goes
    }
  };
  const post = (s) => required("POST", `${launch.endpoint}statements`, s);
  // The progress document: the marks as they were when the request was queued (`marks`).
  const progressDocument = (marks) => ({ version: 1, marks: marks ?? progress()?.marks ?? {}, lesson, sent });
  const saveState = (marks) => required("PUT", stateUrl(CMI5.stateId), progressDocument(marks));
  // One request after the other, in order; the first failure stops the rest.
  const enqueue = (fn) => {
    queue = queue.then(() => (live ? fn() : undefined)).catch(stop);
    return queue;
  };
  const elapsed = () => duration(now().getTime() - startedAt);

  // Completed once every lesson is done, then passed or failed against the mastery score: each
  // once per registration (the sent flags live in the progress document), and none in Browse or
  // Review mode (cmi5 forbids them there). `s`: the course's state when the answer was given
  // (courseState), so that the statements come in the order of the learner's answers.
  const judge = async (s) => {
    if (mode !== "Normal" || !s.complete) return;
    if (!sent.completed) {
      await post(statement("completed", { moveOn: true, result: { completion: true, duration: elapsed() } }));
      sent = { ...sent, completed: true };
    }
    if (!sent.passed && !sent.failed) {
      const success = s.score >= (mastery ?? pass);
      await post(statement(success ? "passed" : "failed", {
        moveOn: true,
        result: { score: { scaled: Math.round(s.score * 10000) / 10000 }, success, duration: elapsed() },
        extensions: mastery !== null ? { [CMI5.masteryScore]: mastery } : {},
      }));
      sent = { ...sent, [success ? "passed" : "failed"]: true };
    }
  };

  return {
    async start() {
      try {
        // The token: once (a second POST to fetch is refused, as cmi5 requires of the platform).
        const answer = await withTimeout(async (signal) => {
          const r = await fetch(launch.fetchUrl, { method: "POST", signal });
          if (!r?.ok) throw new Error(`the auth token (${r?.status})`);
          try {
            return objectOr(JSON.parse(await boundedText(r, MAX_TOKEN_CHARS + 100)));
          } catch {
            return null;
          }
        }, timeoutMs).catch((e) => {
          const why = describeError(e);
          throw new Error(why.startsWith("the auth token") ? why : `the auth token (${why})`);
        });
        const t = answer?.["auth-token"];
        if (!boundedString(t, MAX_TOKEN_CHARS) || !/^[\x21-\x7e]+$/.test(t)) {
          throw new Error(`the auth token (${boundedString(answer?.["error-text"], 200) ? answer["error-text"] : "none given"})`);
        }
        token = t;
        ({ mode, mastery, template } = readLaunchData(await readState(CMI5.launchData)));
        const kept = await readState(CMI5.stateId);
        if (kept !== null) {
          const doc = readProgressDocument(kept, lessons);
          if (doc) {
            marks(doc.marks);
            sent = doc.sent;
            lesson = doc.lesson;
          } else {
            warn("The course platform's saved progress is not this playground's; it was set aside.");
          }
        }
        lesson ??= lessons[0] ?? null;
        if (lesson) open(lesson);
        startedAt = now().getTime();
        live = true;
        // Queued, so that an answer given meanwhile is sent after it.
        const s = courseState(progress(), lessons), marksNow = progress()?.marks;
        await enqueue(async () => {
          await post(statement("initialized"));
          initialized = true;
          await judge(s);
          await saveState(marksNow);
        });
        return live;
      } catch (e) {
        stop(e);
        return false;
      }
    },
    // A question answered, as createReport's: an "answered" statement (an allowed statement:
    // no cmi5 category), then completion and success when the course is done, then the progress
    // document.
    answered({ lesson: at, question, correct, kind, response, ask }) {
      if (!live || !lessons.includes(at)) return;
      const id = interactionId(at, question);
      const result = { success: Boolean(correct) };
      if (response !== null && response !== undefined && Number.isFinite(Number(response))) {
        const answer = kind === "key" ? `key_${Number(response) + 1}` : decimalText(Number(response));
        if (answer !== null) result.response = answer;
      }
      const s = statement("answered", {
        defined: false,
        object: { objectType: "Activity", id: interactionIri(launch.activityId, id),
                  definition: { type: CMI5.interaction, name: { "en-US": ask ? String(ask).slice(0, 250) : id },
                                interactionType: kind === "key" ? "choice" : "numeric" } },
        result,
      });
      const state = courseState(progress(), lessons), marksNow = progress()?.marks;
      enqueue(async () => {
        await post(s);
        await judge(state);
        await saveState(marksNow);
      });
    },
    // The lesson on screen, where a resumed session starts.
    shown(at) {
      if (!live || !lessons.includes(at)) return;
      lesson = at;
      const marksNow = progress()?.marks;
      enqueue(() => saveState(marksNow));
    },
    // The page is left: "terminated", then the progress document (already saved after each
    // answer and lesson; this is its last word), sent at once in the form that outlives the
    // page (`leaving`; requests still queued may arrive after them). Terminated first: of the
    // two it is the one cmi5 requires, should the browser let only one go. Sent also when the
    // reports stopped after initialized (a request cut off as the page goes stops them first).
    finish() {
      if (!initialized || terminated) return;
      terminated = true;
      leaving("POST", `${launch.endpoint}statements`, statement("terminated", { result: { duration: elapsed() } }));
      leaving("PUT", stateUrl(CMI5.stateId), progressDocument());
      live = false;
    },
    live: () => live,
    // The requests queued so far, settled (for tests).
    settled: () => queue,
  };
}
