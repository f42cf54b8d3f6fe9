// What the course report needs for either kind of platform (SCORM's run-time, lms_scorm.js;
// cmi5's LRS, lms_cmi5.js) and for a package's own lessons (lms.js): the course's state from the
// page's progress, an interaction's id, a number answer as the data models take it, untrusted
// answers and errors read as text, and a request bounded in time and in the size of its answer.
//
// Pure: tests/web/unit_test.mjs runs it under node (through lms.js).

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

// What a run-time returns, read as untrusted data: a string as it is, a boolean or number as
// text, anything else (an object without a way to be text, a symbol) as "". Never throws.
export const asText = (r) => (typeof r === "string" ? r : typeof r === "boolean" || typeof r === "number" ? String(r) : "");
// What was thrown, as a short line (what a hostile run-time throws may not be text).
export function describeError(e) {
  try {
    const message = e !== null && typeof e === "object" && typeof e.message === "string" ? e.message : e;
    return typeof message === "string" ? message.slice(0, 200) : asText(message).slice(0, 200) || "something that is no error";
  } catch {
    return "something that is no error";
  }
}

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

// A response's text: the body read whole (an LRS is the platform's), but refused above `max`.
export async function boundedText(response, max) {
  const length = Number(response.headers?.get?.("content-length"));
  if (Number.isFinite(length) && length > max) throw new Error(`an answer of ${length} bytes`);
  const text = await response.text();
  if (typeof text !== "string" || text.length > max) throw new Error("an answer too long");
  return text;
}
