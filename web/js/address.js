// The address's parameters applied to the app once it is ready:
// ?embed=1&preset=NAME&step=K&head=H&lang=zh&panels=a,b&hide=a,b&allow=ORIGINS
// &task=NAME&seed=S&train=N&lr=R&optimizer=adam|sgd (step and head counted from 1), the
// course's ?lms=, ?lessons= and ?pass= (lms.js's readCourse), and the page's own
// (?transpose=, ?motion=, ?numbers=). Reading them is params.js's; what each does is the app's.
//
// applyParams takes the page's {param (readParams's), embedded, call, getJson, counts, limits,
// api, setCourse (given the course the address describes)} and returns {notes, training}.
import { allowList, NAME, nameList, smallInt } from "./params.js";
import { failure } from "./api.js";
import { readCourse } from "./lms.js";

// Applies the address's parameters: {notes: what was ignored, training: the promise of
// ?train=N's steps, or null}.
export function applyParams({ param, embedded, call, getJson, counts, limits, api, setCourse }) {
  const notes = [];
  let training = null;
  const preset = param("preset") ?? param("lesson");
  if (preset !== null) {
    if (!NAME.test(preset) || !call("ap_load_preset", "number", ["string"], [preset])) {
      notes.push(`preset: there is no preset named "${preset.slice(0, 40)}"`);
    }
  }
  // ?task=previous_token&seed=3&train=300 (&lr=0.05&optimizer=adam): a toy task, trained
  // that far (deterministic: the same weights and curve as the moment the link was made).
  const task = param("task");
  if (task !== null) {
    const seedText = param("seed") ?? "1";
    const options = {};
    if (param("lr") !== null) options.lr = Number(param("lr"));
    if (param("optimizer") !== null) options.optimizer = param("optimizer");
    const loaded = /^\d{1,15}$/.test(seedText) && Number(seedText) <= limits.max_task_seed
      ? api.loadTask(task.slice(0, 40), Number(seedText), options)
      : failure(`seed: must be a whole number from 0 to ${limits.max_task_seed}`);
    if (!loaded.ok) {
      notes.push(loaded.error.startsWith("task:") ? loaded.error : `task: ${loaded.error}`);
    } else if (param("train") !== null) {
      const steps = /^\d{1,5}$/.test(param("train")) ? Number(param("train")) : 0;
      if (steps >= 1 && steps <= limits.max_train_steps) training = api.train(steps);
      else notes.push(`train: must be a whole number from 1 to ${limits.max_train_steps}`);
    }
  }
  const lang = param("lang");
  if (lang === "en" || lang === "zh") api.setLanguage(lang);
  else if (lang !== null) notes.push(`lang: must be en or zh, not "${lang.slice(0, 20)}"`);
  if (param("panels") !== null) call("ap_set_panels", null, ["string"], [nameList(param("panels")).join(",")]);
  // ?transpose=1: the step view's matrices transposed, the formulas in the column convention
  // (S = KᵀQ, O = V·A); 0 is the default. Anything else is named and ignored. Before hide=, so that
  // transpose=1&hide=transpose fixes it on.
  const transpose = param("transpose");
  if (transpose === "1") call("ap_set_control", "string", ["string", "string"], ["transpose", "true"]);
  else if (transpose !== null && transpose !== "0") {
    notes.push(`transpose: must be 1 or 0, not "${transpose.slice(0, 20)}"`);
  }
  if (param("hide") !== null) {  // an unknown id is named (a typo would hide nothing)
    const hidden = call("ap_hide_controls", "string", ["string"], [nameList(param("hide")).join(",")]);
    if (hidden) notes.push(hidden);
  }
  if (embedded) call("ap_set_embed", null, ["number"], [1]);
  // A finger, not a mouse: controls at least 24 × 24 px (WCAG 2.5.8).
  const coarse = window.matchMedia?.("(pointer: coarse)");
  const touch = () => call("ap_set_touch", null, ["number"], [coarse?.matches ? 1 : 0]);
  touch();
  coarse?.addEventListener?.("change", touch);
  // Step changes animate unless the learner's system asks for reduced motion, or the page
  // says motion=off.
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)");
  const animate = () => call("ap_set_animate", null, ["number"],
                             [reduced?.matches || param("motion") === "off" ? 0 : 1]);
  animate();
  reduced?.addEventListener?.("change", animate);
  if (param("numbers") === "off") call("ap_set_numbers", null, ["number"], [0]);
  notes.push(...allowList(param("allow")).notes);
  const course = readCourse(param, getJson("ap_presets").map((p) => p.name));
  setCourse(course);
  notes.push(...course.notes);
  // The course's lessons (?lessons=, in a course platform or a course page's frame) are the
  // learner's path: "Lesson k of N", Previous and Next. It starts at its first lesson (a
  // platform's saved place moves it on: course_platform.js, startCourse) unless a link or ?preset= chose what to
  // open; ?step= and ?head= below apply to it.
  if ((course.version || param("lessons") !== null) && course.lessons.length > 0) {
    const error = call("ap_set_path", "string", ["string"], [course.lessons.join(",")]);
    if (error) notes.push(error);
    else if (location.hash.length <= 1 && param("preset") === null &&
             getJson("ap_get_progress").lesson !== course.lessons[0]) {
      api.loadPreset(course.lessons[0]);
    }
  }
  // Counted from 1 in the address, as the page shows them ("6. Weights", "head 2"); the JS
  // API counts from 0.
  // (The layer first: a stack's layers may have different numbers of heads.)
  for (const [name, set, count] of [["layer", api.setLayer, () => counts().layers],
                                    ["head", api.focusHead, () => counts().heads],
                                    ["step", api.setStep, () => limits.max_step + 1]]) {
    if (param(name) === null) continue;
    const n = smallInt(param(name), 999), max = count();
    if (n === null || n < 1 || n > max) {
      notes.push(`${name}: must be a whole number from 1 to ${max} (counted from 1, as on screen)`);
    } else {
      set(n - 1);
    }
  }
  return { notes, training };
}
