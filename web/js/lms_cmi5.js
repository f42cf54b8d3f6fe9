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
// What it shares with SCORM's report (lms_scorm.js) is lms_core.js's; the page imports both
// through lms.js.
//
// Pure but for the fetch it is given: tests/web/unit_test.mjs runs it under node against a
// stand-in LRS (a fetch that answers as one), tests/web/lms_test.mjs in Chromium.

import { readParams } from "./params.js";
import { boundedText, courseState, decimalText, describeError, interactionId, REQUEST_TIMEOUT_MS,
         withTimeout } from "./lms_core.js";

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
