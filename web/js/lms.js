// Course platforms, as the page meets them: the course the address describes (?lms=, ?lessons=,
// ?pass=), a course package's lessons of its own (?own=), and each kind of platform's report, a
// module each: SCORM 1.2 and 2004 (lms_scorm.js, a run-time up the frames) and cmi5 (lms_cmi5.js,
// xAPI statements to an LRS), with what they share in lms_core.js. This module re-exports their
// names, so that the page (web/app.js, address.js, course_platform.js) and the tests have one
// place to import a course platform's calls from.
//
// Pure: tests/web/unit_test.mjs runs it under node; tests/web/lms_test.mjs in Chromium.

import { boundedText, describeError, REQUEST_TIMEOUT_MS, withTimeout } from "./lms_core.js";
import { VERSIONS } from "./lms_scorm.js";

export { courseState, decimalText, describeError, interactionId, REQUEST_TIMEOUT_MS,
         withTimeout } from "./lms_core.js";
export { COMMIT_RETRY_MS, createReport, findRuntime, interval2004, searchRuntime, timespan12, timestamp2004,
         VERSIONS } from "./lms_scorm.js";
export { CMI5, createCmi5Report, interactionIri, launchParams, readCmi5Launch, readLaunchData,
         readProgressDocument } from "./lms_cmi5.js";

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
