// A course platform's gradebook: inside a SCORM package an LMS gives the page a run-time
// object (SCORM 2004's API_1484_11, SCORM 1.2's API) somewhere up its frames. The page, asked
// with ?lms=scorm2004 or ?lms=scorm12, finds it and reports what the learner does in the
// course's lessons: each question answered (an interaction), progress, completion when every
// lesson is done, the score (answers right the first time out of the questions) and success
// against the passing score; it resumes from the LMS's suspend data and location.
//
// Pure but for the window it is given: tests/web/unit_test.mjs runs it under node with a
// stand-in run-time, tests/web/lms_test.mjs in Chromium against scorm-again's.

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

// The course the address describes, read as untrusted text: ?lms=scorm2004|scorm12, the
// course's lessons (?lessons=a,b: those of `known`, in that order; none: all of `known`) and
// ?pass=P, the passing score in percent (80 unless given). {version (null without ?lms=),
// lessons, pass (0 to 1), notes: what was ignored, one line each naming the parameter}.
export function readCourse(param, known) {
  const notes = [];
  const lms = param("lms");
  const version = lms === null ? null : Object.hasOwn(VERSIONS, lms) ? lms : null;
  if (lms !== null && !version) notes.push(`lms: must be scorm2004 or scorm12, not "${lms.slice(0, 40)}"`);
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
