// Export → "Course package…": a dialog over the canvas in which a teacher picks a format, a
// title, the lessons and a passing score, and downloads a SCORM package of this playground for
// a course platform. The package is the one `attention-cli package` writes: the page fetches
// its own files (site-files.json, written at build time by scripts/stamp_sw.mjs and
// scripts/precompress.mjs) and hands them one at a time to the app, whose
// scenario::write_package checks the spec and writes the zip and its imsmanifest.xml
// (ap_package_*, src/app/platform/web_api_state.cpp). With each file goes its gzip copy
// (FILE.gz, made at build time) where the list names one: the app deflates the file's entry
// from it once it has inflated it back to the file's bytes, so the package is some 3 MB, not
// 9. The threaded builds stay out (a course platform's page is not cross-origin isolated, so
// it never runs them). The page's own: not part of window.attentionPlayground nor of
// postMessage.
//
// Every field is checked by the app; its answer ("title: must be 1 to 200 characters") is
// shown in the dialog and nothing is downloaded. Nothing typed here reaches the DOM as HTML.
//
// "Add the scenario shown" makes it a lesson of the course's own: the app writes the scenario
// shown into the package as course/NAME.json (the spec's "shown": NAME), which the page fetches
// in the platform when ?lessons= names it (js/lms.js, addOwnLessons).
//
// createCoursePack takes {canvas, call, getJson, memory: {malloc, free, u8}, download} and
// gives {open, close, isOpen}.
import { BUILDS, namedBuild } from "./builds.js";

const TEXT = {
  en: {
    heading: "Course package",
    intro: "A package of this playground for a course platform (Moodle, Canvas, …): the lessons " +
      "you choose, each question reported to the gradebook. It holds the playground's files " +
      "(about 3 MB) and needs nothing from the internet.",
    format: "Format",
    title: "Course title",
    defaultTitle: "Attention Playground",
    lessons: "Lessons, in the order of the path",
    all: "All",
    none: "None",
    pass: "Passing score (%)",
    download: "Download",
    close: "Close",
    fetching: (k, n) => `Reading the playground's files: ${k} of ${n}…`,
    writing: "Writing the package…",
    done: (name, mb) => `Downloaded ${name} (${mb} MB).`,
    failed: "Not downloaded: ",
    noLesson: "lessons: choose at least one lesson",
    shown: "Add the scenario shown, with your edits, as a lesson of the course's own (after the lessons chosen)",
    shownName: "Its name (a–z, 0–9 and _)",
  },
  zh: {
    heading: "课程包",
    intro: "供课程平台（Moodle、Canvas 等）使用的游乐场课程包：包含你选的课程，每道题的作答都会报告给成绩册。" +
      "包里有游乐场的全部文件（约 3 MB），不需要联网。",
    format: "格式",
    title: "课程标题",
    defaultTitle: "注意力游乐场",
    lessons: "课程（按学习路径的顺序）",
    all: "全选",
    none: "全不选",
    pass: "及格分数（%）",
    download: "下载",
    close: "关闭",
    fetching: (k, n) => `正在读取游乐场的文件：第 ${k} 个，共 ${n} 个…`,
    writing: "正在生成课程包…",
    done: (name, mb) => `已下载 ${name}（${mb} MB）。`,
    failed: "未下载：",
    noLesson: "lessons：请至少选择一课",
    shown: "把当前显示的场景（含你的修改）作为本课程自己的一课加入（排在所选课程之后）",
    shownName: "它的名字（a–z、0–9 和 _）",
  },
};

const MAX_TITLE_CHARS = 1000; // more is refused by the app anyway (200); this bounds the copy
const MAX_SITE_FILES = 4096;  // ui::api::kMaxPackageFiles
// The threaded builds' files, which a package leaves out (scenario::package_ships does too):
// they need a cross-origin isolated page, and a course platform's is not.
const THREADED = new Set(Object.keys(BUILDS).filter((b) => b.startsWith("threads"))
  .flatMap((b) => namedBuild(b).files));

// site-files.json read: {files, gzip} (the files and those with a gzip copy), or null when it is
// not such a list. A site built before the copies were listed has the files alone: none is
// taken as having a copy.
function siteFiles(list) {
  const names = (a) => Array.isArray(a) && a.length <= MAX_SITE_FILES &&
    a.every((f) => typeof f === "string" && f.length > 0 && f.length <= 200);
  const files = Array.isArray(list) ? list : list?.files;
  const gzip = Array.isArray(list) ? [] : list?.gzip;
  return names(files) && names(gzip) ? { files, gzip } : null;
}

// FILE.gz as it lies on the server, or null when there is none to use: it cannot be fetched
// (the offline copy keeps no .gz), or the server sent it with Content-Encoding: gzip and fetch()
// handed it back inflated, the file itself (no gzip magic 1f 8b). The app checks the rest; a
// file without a copy it takes is stored.
async function gzipCopy(name) {
  try {
    const response = await fetch(`${name}.gz`);
    if (!response.ok) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    return bytes.length >= 18 && bytes[0] === 0x1f && bytes[1] === 0x8b ? bytes : null;
  } catch {
    return null;
  }
}

// A file name from the course's title: "attention-week-3-scorm2004.zip".
export function packageFileName(title, format) {
  const slug = String(title).toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "");
  return `${slug || "course"}-${format}.zip`;
}

// The passing score as the app takes it: a whole number when the field holds one, else the
// text itself (the app names the field: "pass: must be a whole percent from 0 to 100").
export function passValue(text) {
  const t = String(text).trim();
  return /^-?\d{1,6}$/.test(t) ? Number(t) : t.slice(0, 40);
}

// The name offered for the scenario shown as a lesson of the course's own: the lesson's with
// "_edited" (at most 32 characters of a-z, 0-9 and _), or "my_lesson".
export function ownLessonName(preset) {
  const base = typeof preset === "string" && /^[a-z0-9_]{1,32}$/.test(preset) ? preset : "";
  return base ? `${base.slice(0, 25)}_edited` : "my_lesson";
}

export function createCoursePack({ canvas, call, getJson, memory, download }) {
  let dialog = null;
  let job = 0;  // the download under way; a newer one or closing the dialog ends it

  const el = (tag, props = {}, children = []) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.appendChild(c);
    return e;
  };

  function build() {
    const lang = getJson("ap_get_view").lang === "zh" ? "zh" : "en";
    const t = TEXT[lang];
    const formats = getJson("ap_package_formats");
    const lessons = getJson("ap_presets").filter((p) => !p.own);  // a course's own are not the site's
    const d = el("dialog", { id: "coursepack", "aria-labelledby": "coursepack-heading",
                             "aria-describedby": "coursepack-intro", lang: lang === "zh" ? "zh-CN" : "en" });
    const select = el("select", { id: "coursepack-format" },
                      formats.map((f) => el("option", { value: f.value, text: f.label })));
    const title = el("input", { id: "coursepack-title", type: "text", autocomplete: "off", spellcheck: "false" });
    title.value = t.defaultTitle;
    const pass = el("input", { id: "coursepack-pass", type: "number", min: "0", max: "100", step: "1",
                               inputmode: "numeric" });
    pass.value = "80";
    const boxes = lessons.map((p, i) => {
      const box = el("input", { type: "checkbox", id: `coursepack-lesson-${i}`, value: p.name });
      box.checked = true;
      return box;
    });
    const list = el("ol", { class: "coursepack-lessons" }, lessons.map((p, i) => el("li", {}, [
      boxes[i],
      el("label", { for: boxes[i].id, text: (lang === "zh" ? p.title_zh : p.title) || p.name }),
    ])));
    const all = el("button", { type: "button", class: "small", text: t.all });
    const none = el("button", { type: "button", class: "small", text: t.none });
    all.addEventListener("click", () => { for (const b of boxes) b.checked = true; });
    none.addEventListener("click", () => { for (const b of boxes) b.checked = false; });
    const shown = el("input", { type: "checkbox", id: "coursepack-shown" });
    const shownName = el("input", { id: "coursepack-shown-name", type: "text", autocomplete: "off",
                                    spellcheck: "false", maxlength: "32" });
    shownName.value = ownLessonName(getJson("ap_get_view").preset);
    shownName.disabled = true;
    shown.addEventListener("change", () => { shownName.disabled = !shown.checked; });
    const status = el("p", { id: "coursepack-status", class: "coursepack-status", role: "status",
                             "aria-live": "polite" });
    const go = el("button", { type: "button", id: "coursepack-download", class: "primary", text: t.download });
    const close = el("button", { type: "button", id: "coursepack-close", text: t.close });
    d.append(
      el("h2", { id: "coursepack-heading", text: t.heading }),
      el("p", { id: "coursepack-intro", class: "coursepack-intro", text: t.intro }),
      el("div", { class: "coursepack-row" }, [el("label", { for: select.id, text: t.format }), select]),
      el("div", { class: "coursepack-row" }, [el("label", { for: title.id, text: t.title }), title]),
      el("fieldset", {}, [
        el("legend", {}, [el("span", { text: t.lessons })]),
        el("div", { class: "coursepack-all" }, [all, none]),
        list,
      ]),
      el("div", { class: "coursepack-shown" }, [shown, el("label", { for: shown.id, text: t.shown })]),
      el("div", { class: "coursepack-row" }, [el("label", { for: shownName.id, text: t.shownName }), shownName]),
      el("div", { class: "coursepack-row" }, [el("label", { for: pass.id, text: t.pass }), pass]),
      status,
      el("div", { class: "coursepack-buttons" }, [close, go]),
    );
    close.addEventListener("click", () => d.close());
    d.addEventListener("close", () => {
      ++job;  // a download under way ends
      call("ap_package_free", null, [], []);
      d.remove();
      if (dialog === d) dialog = null;
      // Back where it was opened from: the canvas, or the table view's Export button.
      (opener?.isConnected ? opener : canvas).focus({ preventScroll: true });
    });
    const say = (text, error = false) => {
      status.textContent = text;
      status.classList.toggle("error", error);
    };
    go.addEventListener("click", async () => {
      const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
      const own = shown.checked ? shownName.value.slice(0, 40) : null;
      if (chosen.length === 0 && own === null) {
        say(t.failed + t.noLesson, true);
        return;
      }
      const spec = {
        format: select.value,
        title: title.value.slice(0, MAX_TITLE_CHARS),
        // Every lesson: the whole path (the launch address names none); only the lesson of the
        // course's own when no other is chosen.
        lessons: chosen.length === boxes.length ? [] : chosen.length === 0 ? [own] : chosen,
        pass: passValue(pass.value),
      };
      if (own !== null) spec.shown = own;
      go.disabled = true;
      try {
        // Said every 25 files, not at each (a screen reader would read them all).
        const r = await makePackage(spec, (k, n) => {
          if (k === n) say(t.writing);
          else if (k % 25 === 0) say(t.fetching(k + 1, n));
        });
        if (r.error) {
          say(t.failed + r.error, true);
          return;
        }
        if (r.ended) return;
        const name = packageFileName(spec.title, spec.format);
        download(name, "application/zip", r.blob);
        say(t.done(name, (r.blob.size / 1048576).toFixed(1)));
      } finally {
        go.disabled = false;
      }
    });
    return d;
  }

  // The package of `spec`: {blob} or {error} (the app's, naming the field or the file), or
  // {ended} when the dialog closed meanwhile. onProgress(k, n) before each of the n files, and
  // (n, n) before the archive is written.
  async function makePackage(spec, onProgress) {
    const mine = ++job;
    const started = call("ap_package_start", "string", ["string"], [JSON.stringify(spec)]);
    if (started) return { error: started };
    try {
      let site;
      try {
        const response = await fetch("site-files.json", { cache: "no-cache" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        site = siteFiles(await response.json());
      } catch (e) {
        return { error: `site-files.json: cannot be read (${String(e?.message ?? e).slice(0, 100)})` };
      }
      if (!site) return { error: "site-files.json: is not a list of the site's files" };
      const list = site.files.filter((f) => !THREADED.has(f));
      const copies = new Set(site.gzip);
      const heapBefore = memory.u8().length;
      const t0 = performance.now();
      for (let k = 0; k < list.length; ++k) {
        onProgress(k, list.length);
        let bytes;
        try {
          const response = await fetch(list[k]);
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          bytes = new Uint8Array(await response.arrayBuffer());
        } catch (e) {
          return { error: `${list[k]}: cannot be read (${String(e?.message ?? e).slice(0, 100)})` };
        }
        const packed = copies.has(list[k]) ? await gzipCopy(list[k]) : null;
        if (mine !== job) return { ended: true };
        // Into the heap one file at a time: the app keeps its copies, these are let go.
        const ptr = memory.malloc(Math.max(1, bytes.length));
        if (!ptr) return { error: `${list[k]}: does not fit in memory` };
        const gz = packed ? memory.malloc(packed.length) : 0;
        if (packed && !gz) {
          memory.free(ptr);
          return { error: `${list[k]}.gz: does not fit in memory` };
        }
        let added;
        try {
          memory.u8().set(bytes, ptr);
          if (packed) memory.u8().set(packed, gz);
          added = call("ap_package_add", "string", ["string", "number", "number", "number", "number"],
                       [list[k], ptr, bytes.length, gz, packed ? packed.length : 0]);
        } finally {
          memory.free(ptr);
          if (gz) memory.free(gz);
        }
        if (added) return { error: added };
      }
      onProgress(list.length, list.length);
      await new Promise((resolve) => { setTimeout(resolve, 0); });  // the status shows first
      if (mine !== job) return { ended: true };
      const finished = call("ap_package_finish", "string", [], []);
      if (finished) return { error: finished };
      const ptr = call("ap_package_data", "number", [], []);
      const size = call("ap_package_size", "number", [], []);
      const blob = new Blob([memory.u8().slice(ptr, ptr + size)], { type: "application/zip" });
      // What the package cost: the heap's growth and the time (docs/embedding.md, "In a course platform").
      lastRun = { files: list.length, bytes: size, ms: Math.round(performance.now() - t0),
                  heapBefore, heapAfter: memory.u8().length };
      if (dialog) dialog.dataset.run = JSON.stringify(lastRun);
      return { blob };
    } finally {
      call("ap_package_free", null, [], []);
    }
  }
  let lastRun = null;

  // Keys typed in the dialog are its own: Emscripten's GLFW, listening on the window in the
  // capture phase, would step the pipeline on ←/→ and play on Space. Registered before the app
  // starts, so it comes before GLFW's listeners (Tab is left to the browser by table_view.js).
  // Stopping an event does not cancel its default action: Escape still closes the dialog.
  for (const type of ["keydown", "keyup", "keypress"]) {
    window.addEventListener(type, (e) => {
      if (dialog) e.stopImmediatePropagation();
    }, true);
  }

  let opener = null;
  function open() {
    if (dialog) return;
    const here = document.activeElement;
    opener = here && here !== document.body ? here : null;
    dialog = build();
    document.body.appendChild(dialog);
    dialog.showModal();
    dialog.querySelector("#coursepack-format").focus();
  }

  return {
    open,
    close: () => dialog?.close(),
    isOpen: () => dialog !== null,
    lastRun: () => lastRun,
  };
}
