// The address's parameters, read as untrusted text: each value at most MAX_PARAM_CHARS long
// (longer is no value), names and lists held to their patterns, numbers to their digits.
// Pure: tests/web/unit_test.mjs runs it under node.

export const MAX_PARAM_CHARS = 512;
// A lesson's, task's, control's or panel's name.
export const NAME = /^[a-z0-9_]{1,32}$/;
// An entry of ?allow=: a web origin, scheme and host (and port), nothing after.
export const ORIGIN = /^https?:\/\/[^/\s]+$/;

// param(name) for the query string `search` ("?a=1&b=2"): the value, or null when the address
// has none or one longer than `maxChars` (MAX_PARAM_CHARS unless given). Only the first
// `reads` · maxChars characters are read.
export function readParams(search, maxChars = MAX_PARAM_CHARS, reads = 4) {
  const params = new URLSearchParams(String(search ?? "").slice(0, reads * maxChars));
  return (name) => {
    const v = params.get(name);
    return v === null || v.length > maxChars ? null : v;
  };
}

// "a,b,c" as the names in it that are names (at most 64); null or "" gives [].
export function nameList(v) {
  return (v ?? "").split(",").filter((s) => NAME.test(s)).slice(0, 64);
}

// A whole number of at most three digits and at most `max`, or null.
export function smallInt(v, max) {
  if (typeof v !== "string" || !/^\d{1,3}$/.test(v)) return null;
  const n = Number(v);
  return n <= max ? n : null;
}

// ?allow=https://a.example,https://b.example: {origins, notes}, the origins it lists and a
// note for each entry that is not an origin.
export function allowList(v) {
  const origins = new Set(), notes = [];
  for (const entry of (v ?? "").split(",").map((s) => s.trim())) {
    if (!entry) continue;
    if (ORIGIN.test(entry)) origins.add(entry);
    else notes.push(`allow: "${entry.slice(0, 40)}" is not an origin such as https://example.org`);
  }
  return { origins, notes };
}
