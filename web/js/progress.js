// A learner's progress: the marks of the questions answered, {lesson: "r-w"} ("r" right first
// time, "w" wrong, "-" not yet), kept in this browser and shared by its tabs.
//
// checkMarks is the rule for marks from anyone (a caller, the storage, a course platform) and
// needs no page (tests/web/unit_test.mjs). createProgress keeps them: each write merges what
// another tab kept first, and each tab takes in what another writes (the storage event); a mark
// once given stays (AppState::merge_progress).

export const PROGRESS_KEY = "attention-playground:progress";
export const MAX_PROGRESS_CHARS = 1 << 14;  // stored progress: some 25 lessons' marks fit in 1 KB

// Progress marks: {marks, problems}, the entries that are lessons of `lessonIds` (a Set) with 1
// to 8 marks of "-", "r" and "w", and a line naming `name` for each entry that is not.
export function checkMarks(marks, name, lessonIds) {
  const problems = [];
  if (marks === null || typeof marks !== "object" || Array.isArray(marks)) {
    return { marks: {}, problems: [`${name}: must be an object {lesson: "r-"}`] };
  }
  const entries = Object.entries(marks);
  if (entries.length > 4 * lessonIds.size) {
    return { marks: {}, problems: [`${name}: has ${entries.length} entries, more than there are lessons`] };
  }
  const out = {};
  for (const [id, v] of entries) {
    const at = `${name}.${id.length > 40 ? `${id.slice(0, 40)}…` : id}`;
    if (!lessonIds.has(id)) problems.push(`${at}: is not a lesson of this playground`);
    else if (typeof v !== "string" || !/^[-rw]{1,8}$/.test(v)) problems.push(`${at}: must be 1 to 8 marks of "-", "r" and "w"`);
    else out[id] = v;
  }
  return { marks: out, problems };
}

// The page's progress in this browser's storage. Takes the app's calls ({call, getJson,
// showNotice, embedded}); gives {check, save, mergeStored, restore, onStorage, keepInBrowser}.
// keepInBrowser(false): under a course platform, whose record is the attempt's only one, the
// browser's storage is neither read nor written (another learner may have used this browser).
export function createProgress({ call, getJson, showNotice, embedded }) {
  let lessonIds = null;
  // checkMarks against this playground's lessons (read once, when first needed).
  const check = (marks, name) => {
    lessonIds ??= new Set(getJson("ap_presets").map((p) => p.name));
    return checkMarks(marks, name, lessonIds);
  };
  const current = () => JSON.stringify(getJson("ap_get_progress").marks);
  const setMarks = (marks) => call("ap_set_progress", "string", ["string"], [JSON.stringify(marks)]);

  let storageRefused = false;  // said once: a failed write is shown on screen
  let inBrowser = true;
  function save() {
    if (!inBrowser) return;
    try {
      const stored = localStorage.getItem(PROGRESS_KEY);
      if (stored !== null) mergeStored(stored, false);
      localStorage.setItem(PROGRESS_KEY, current());
      storageRefused = false;
    } catch (e) {
      // Full, or off (private windows, sandboxed frames, a blocked site): say so, once.
      if (storageRefused) return;
      storageRefused = true;
      console.warn("progress not kept:", e);
      showNotice(embedded ? "This browser would not keep your progress." +
                            "\nWhat you answer now lasts until this page is closed."
                          : "This browser would not keep your progress." +
                            "\nWhat you answer now is kept in the page's address: bookmark it to come back.");
    }
  }

  // Marks kept in storage (by this tab, another one, or anything else on this origin): what is
  // this playground's progress is merged, the rest set aside with a notice when `tell`.
  function mergeStored(text, tell = true) {
    let problems;
    if (text.length > MAX_PROGRESS_CHARS) {
      problems = [`it is ${text.length} characters, more than any progress (${MAX_PROGRESS_CHARS})`];
    } else {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const checked = parsed === undefined ? { marks: {}, problems: ["it is not JSON"] }
        : check(parsed, "progress");
      problems = checked.problems;
      if (Object.keys(checked.marks).length > 0) setMarks(checked.marks);
    }
    if (problems.length === 0) return;
    // What could not be read is dropped, so that it is not met again at every start.
    try {
      localStorage.setItem(PROGRESS_KEY, current());
    } catch {
      // kept as it was; the notice below still says what happened
    }
    if (tell) {
      const more = problems.length > 3 ? `\n… and ${problems.length - 3} more` : "";
      showNotice(`Some progress kept in this browser could not be read and was set aside.\n${problems.slice(0, 3).join("\n")}${more}`);
    }
  }

  function restore() {
    if (!inBrowser) return;
    let saved = null;
    try {
      saved = localStorage.getItem(PROGRESS_KEY);
    } catch {
      return;
    }
    if (saved !== null) mergeStored(saved);
  }

  // Another tab wrote: its marks are taken in. Two tabs that wrote at once each read the
  // storage before the other wrote: the one that now holds more than was written writes it
  // back (marks only ever add up, so this ends).
  function onStorage(e) {
    if (!inBrowser || e.key !== PROGRESS_KEY || e.newValue === null) return;
    mergeStored(e.newValue);
    if (current() !== e.newValue) save();
  }

  return { check, save, mergeStored, restore, onStorage, keepInBrowser: (keep) => { inBrowser = Boolean(keep); } };
}
