// A course platform's gradebook: inside a SCORM package an LMS gives the page a run-time
// object (SCORM 2004's API_1484_11, SCORM 1.2's API) somewhere up its frames. The page, asked
// with ?lms=scorm2004 or ?lms=scorm12, finds it and reports what the learner does in the
// course's lessons: each question answered (an interaction), progress, completion when every
// lesson is done, the score (answers right the first time out of the questions) and success
// against the passing score; it resumes from the LMS's suspend data and location.
//
// Pure but for the window it is given: tests/web/unit_test.mjs runs it under node with a
// stand-in run-time, tests/web/lms_test.mjs in Chromium against scorm-again's.

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

// SCORM 1.2 holds suspend data to 4096 characters (2004: 64000); ours is far shorter.
const MAX_SUSPEND_CHARS = 4096;
const MAX_FRAMES = 16;  // how far up the frames and openers the search goes

// The run-time object of `version` seen from `win`: in it, up its parents, then up its
// opener's parents (the order the SCORM run-time specifications give). Null when none, or
// when a frame refuses to be read (another origin).
export function findRuntime(win, version) {
  const name = VERSIONS[version]?.object;
  if (!name) return null;
  const search = (start) => {
    let w = start;
    for (let depth = 0; w && depth < MAX_FRAMES; ++depth) {
      try {
        const found = w[name];
        if (found && typeof found[VERSIONS[version].init] === "function") return found;
      } catch {
        return null;  // a frame of another origin: no further
      }
      let parent = null;
      try {
        parent = w.parent;
      } catch {
        return null;
      }
      if (!parent || parent === w) return null;
      w = parent;
    }
    return null;
  };
  let opener = null;
  try {
    opener = win.opener;
  } catch {
    opener = null;
  }
  return search(win) ?? (opener ? search(opener) : null);
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
const round4 = (x) => String(Math.round(x * 10000) / 10000);
// SCORM 1.2's time of day (CMITime), 2004's ISO 8601 timestamp (to the second).
const timeOfDay = (d) => d.toTimeString().slice(0, 8);
const timestamp = (d) => d.toISOString().slice(0, 19);

// Reports to `runtime` (findRuntime's) for `version`: `lessons` (the course's, in order),
// `pass` (the passing score, 0 to 1), and the page's calls: `progress()` (getProgress), `marks`
// (marks read back from the suspend data, checked as stored progress is) and `open(lesson)`.
// Every call on the run-time is guarded: an LMS that throws or refuses stops the reports, with
// one warning, and never the page. Returns {start, answered, shown, finish, values}.
export function createReport({ runtime, version, lessons, pass, progress, marks, open, now = () => new Date(),
                               warn = (m) => console.warn(m) }) {
  const v = VERSIONS[version];
  let live = false;
  let stopped = false;
  let interactions = 0;
  const stop = (what) => {
    if (stopped) return;
    stopped = true;
    live = false;
    let detail = "";
    try {
      const code = runtime[v.error]();
      detail = ` (${code}: ${runtime[v.errorText](code)})`;
    } catch {
      // no more than the call's own failure to say
    }
    warn(`The course platform refused ${what}${detail}; this page reports nothing more to it.`);
  };
  const callRuntime = (fn, ...args) => {
    if (!live) return null;
    try {
      return runtime[v[fn]](...args);
    } catch (e) {
      stop(`${v[fn]} (${String(e?.message ?? e).slice(0, 200)})`);
      return null;
    }
  };
  const set = (element, value) => {
    const r = callRuntime("set", element, String(value));
    if (live && String(r) !== "true") stop(`${element} = ${String(value).slice(0, 60)}`);
  };
  const get = (element) => {
    const r = callRuntime("get", element);
    return typeof r === "string" ? r : "";
  };

  // The score, progress, completion and success as the page's progress says now.
  function status() {
    const s = courseState(progress(), lessons);
    if (version === "scorm2004") {
      // In percent, as 1.2's: platforms grade by the raw score (Moodle reads it out of 100).
      set("cmi.score.min", 0);
      set("cmi.score.max", 100);
      set("cmi.score.raw", Math.round(100 * s.score));
      set("cmi.score.scaled", round4(s.score));
      set("cmi.progress_measure", round4(s.done / Math.max(1, s.lessons)));
      set("cmi.completion_status", s.complete ? "completed" : "incomplete");
      set("cmi.success_status", !s.complete ? "unknown" : s.score >= pass ? "passed" : "failed");
    } else {
      set("cmi.core.score.min", 0);
      set("cmi.core.score.max", 100);
      set("cmi.core.score.raw", Math.round(100 * s.score));
      set("cmi.core.lesson_status", !s.complete ? "incomplete" : s.score >= pass ? "passed" : "failed");
    }
    // Resumable until the course is done, and after: its suspend data holds the answers.
    set(v.exit, "suspend");
    set(v.suspend, JSON.stringify({ version: 1, marks: progress()?.marks ?? {} }).slice(0, MAX_SUSPEND_CHARS));
    callRuntime("commit", "");
    return s;
  }

  return {
    // Opens the session: Initialize, the marks and the lesson of a suspended one back, the
    // status as it stands. False when there is no session to report to.
    start() {
      try {
        live = true;
        const r = runtime[v.init]("");
        if (String(r) !== "true") {
          stop(v.init);
          return false;
        }
      } catch (e) {
        stop(`${v.init} (${String(e?.message ?? e).slice(0, 200)})`);
        return false;
      }
      const count = Number(get("cmi.interactions._count"));
      interactions = Number.isInteger(count) && count >= 0 ? count : 0;
      const suspended = get(v.suspend);
      if (suspended) {
        let parsed = null;
        try {
          parsed = suspended.length <= MAX_SUSPEND_CHARS ? JSON.parse(suspended) : null;
        } catch {
          parsed = null;
        }
        if (parsed && typeof parsed === "object" && parsed.marks && typeof parsed.marks === "object") {
          marks(parsed.marks);
        } else {
          warn("The course platform's suspend data is not this playground's; it was set aside.");
        }
      }
      const location = get(v.location);
      if (lessons.includes(location)) open(location);
      else if (lessons.length > 0) open(lessons[0]);
      status();
      return live;
    },
    // A question answered: {lesson, question, correct, kind ("key" or "value"), response,
    // ask}. Only the course's lessons count.
    answered({ lesson, question, correct, kind, response, ask }) {
      if (!live || !lessons.includes(lesson)) return;
      const n = `cmi.interactions.${interactions}`;
      set(`${n}.id`, interactionId(lesson, question));
      set(`${n}.type`, kind === "key" ? v.keyType : "numeric");
      // None after "Show me": the result alone says it was not answered right.
      if (response !== null && response !== undefined && Number.isFinite(Number(response))) {
        set(`${n}.${v.response}`, kind === "key" ? `key_${Number(response) + 1}` : String(Number(response)));
      }
      set(`${n}.result`, correct ? "correct" : v.wrong);
      if (version === "scorm2004") {
        set(`${n}.timestamp`, timestamp(now()));
        if (ask) set(`${n}.description`, String(ask).slice(0, 250));
      } else {
        set(`${n}.time`, timeOfDay(now()));
      }
      ++interactions;
      status();
    },
    // The lesson on screen, where a resumed session starts.
    shown(lesson) {
      if (!live || !lessons.includes(lesson)) return;
      set(v.location, lesson);
      callRuntime("commit", "");
    },
    // The session ends (the page is left): the last status, then Terminate.
    finish() {
      if (!live) return;
      status();
      callRuntime("finish", "");
      live = false;
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
export const MAX_OWN_LESSONS = 16;
export const MAX_OWN_LESSON_CHARS = 1 << 20;
export async function addOwnLessons(asked, known, { fetch, add }) {
  if (typeof asked !== "string") return [];
  const names = [...new Set(asked.split(",").slice(0, 64))];
  const notes = names.filter((name) => !OWN_LESSON.test(name)).slice(0, 3)
    .map((name) => `own: "${name.slice(0, 40)}" is not a lesson name (1 to 32 of a-z, 0-9 and _)`);
  const wanted = names.filter((name) => OWN_LESSON.test(name) && !known.includes(name)).slice(0, MAX_OWN_LESSONS);
  for (const name of wanted) {
    const file = `course/${name}.json`;
    let text;
    try {
      const response = await fetch(file, { cache: "no-cache", credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await boundedText(response, MAX_OWN_LESSON_CHARS);
    } catch (e) {
      notes.push(`${file}: could not be read (${String(e?.message ?? e).slice(0, 80)})`);
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
                                   now = () => new Date(), warn = (m) => console.warn(m) }) {
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
    live = false;
    if (stopped) return;
    stopped = true;
    warn(`The course platform refused ${String(e?.message ?? e).slice(0, 200)}; this page reports nothing more to it.`);
  };
  const headers = (json) => ({
    Authorization: `Basic ${token}`,
    "X-Experience-API-Version": "1.0.3",
    ...(json ? { "Content-Type": "application/json" } : {}),
  });
  const stateUrl = (stateId) => `${launch.endpoint}activities/state?${new URLSearchParams({
    stateId, activityId: launch.activityId, agent: JSON.stringify(launch.actor), registration: launch.registration,
  })}`;
  // A request to the LRS: the response, or an error naming it when the LRS refuses.
  const request = async (method, url, body) => {
    const r = await fetch(url, { method, headers: headers(body !== undefined),
                                 ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    if (!r || typeof r.status !== "number") throw new Error(`${method} ${url.split("?")[0]}: no answer`);
    return r;
  };
  const required = async (method, url, body) => {
    const r = await request(method, url, body);
    if (!r.ok) throw new Error(`${method} ${url.split("?")[0]} (${r.status})`);
    return r;
  };
  // A document of the state API: its text, or null when there is none (404).
  const readState = async (stateId) => {
    const r = await request("GET", stateUrl(stateId));
    if (r.status === 404) return null;
    if (!r.ok) throw new Error(`GET state ${stateId} (${r.status})`);
    try {
      return await boundedText(r, MAX_DOCUMENT_CHARS);
    } catch {
      return "";  // too long to be ours, or unreadable: set aside as any other document
    }
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
        const r = await fetch(launch.fetchUrl, { method: "POST" });
        if (!r?.ok) throw new Error(`the auth token (${r?.status})`);
        let answer = null;
        try {
          answer = objectOr(JSON.parse(await boundedText(r, MAX_TOKEN_CHARS + 100)));
        } catch {
          answer = null;
        }
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
        result.response = kind === "key" ? `key_${Number(response) + 1}` : String(Number(response));
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
