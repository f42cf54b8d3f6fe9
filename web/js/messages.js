// The postMessage API's rules, apart from the page: who may call (the origin rule), what a
// call must look like (checkMessage) and how a method's value becomes a reply (answer).
// Pure: tests/web/unit_test.mjs runs it under node.

export const MESSAGE_PREFIX = "attention-playground:";

// The methods a message may call, with the JS types of their arguments ("a|b": either).
export const METHODS = {
  getScenario: [],
  setScenario: ["object|string"],
  loadArrays: ["object", "string"],
  getTrace: ["object|undefined"],
  getView: [],
  getProgress: [],
  getTraining: [],
  loadTask: ["string", "number|undefined", "object|undefined"],
  setTraining: ["object"],
  train: ["number"],
  setProgress: ["object"],
  getQuiz: [],
  answerQuiz: ["number", "object"],
  getLink: [],
  setStep: ["number"],
  focusHead: ["number"],
  setBatch: ["number"],
  setLayer: ["number"],
  setLanguage: ["string"],
  loadPreset: ["string"],
  presets: [],
  export: ["string", "object|undefined"],
  exportFile: ["string", "object|undefined"],
  stats: [],
  limits: [],
  subscribe: [],
};

// The embedding page's origin, or null when this page is not embedded or the origin is not
// known: the first of location.ancestorOrigins, else the referrer's. Firefox gives ["null"]
// when the iframe has referrerpolicy="no-referrer": unknown, as is a referrer's "null" origin.
export function parentOriginOf({ embedded, ancestorOrigins, referrer }) {
  if (!embedded) return null;
  const known = (origin) => (origin && origin !== "null" ? origin : null);
  if (ancestorOrigins && ancestorOrigins.length > 0 && known(ancestorOrigins[0])) return ancestorOrigins[0];
  try {
    return known(new URL(referrer).origin);
  } catch {
    return null;
  }
}

// Who may drive the playground: an origin on the ?allow= list, or the embedding parent window
// (`fromParent`: the message's source is window.parent, and the page is embedded) when its
// origin is the parent's, or the parent's origin is unknown.
export function originAllowed({ origin, fromParent }, { allowed, parentOrigin }) {
  if (allowed.has(origin)) return true;
  return fromParent && (parentOrigin === null || origin === parentOrigin);
}

// "" when `data` is a well-formed call (an id, a known method, arguments of its types, whole
// numbers, strings of at most maxChars), else what is wrong, naming the field.
export function checkMessage(data, maxChars = Infinity) {
  if (typeof data.id !== "string" && typeof data.id !== "number") return "id: must be a string or a number";
  if (typeof data.method !== "string" || !Object.hasOwn(METHODS, data.method)) {
    return `method: must be one of ${Object.keys(METHODS).join(", ")}`;
  }
  const args = data.args ?? [];
  if (!Array.isArray(args)) return "args: must be an array";
  const expected = METHODS[data.method];
  if (args.length > expected.length) return `args: ${data.method} takes ${expected.length} argument(s)`;
  for (let i = 0; i < expected.length; ++i) {
    const type = args[i] === null ? "null" : typeof args[i];
    if (!expected[i].split("|").includes(type)) return `args[${i}]: must be ${expected[i].replace("|", " or ")}`;
    if (type === "number" && !Number.isInteger(args[i])) return `args[${i}]: must be a whole number`;
    if (type === "string" && args[i].length > maxChars) return `args[${i}]: is too long`;
  }
  return "";
}

// A method's return value as a reply: {ok, error} of an action, with its one value (the
// step, the head...) or its fields as `result`; a getter's data as `result`.
export function answer(value) {
  const isAnswer = value !== null && typeof value === "object" && !Array.isArray(value) &&
                   typeof value.ok === "boolean" && "error" in value;
  if (!isAnswer) return { ok: true, result: value };
  if (!value.ok) return { ok: false, error: value.error };
  const { ok, error, ...rest } = value;
  const keys = Object.keys(rest);
  return { ok, result: keys.length === 0 ? null : keys.length === 1 ? rest[keys[0]] : rest };
}
