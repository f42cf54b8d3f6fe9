// The step as text: a section that screen readers read (and anyone can open as the "Table
// view"), kept in step with the canvas; an aria-live line announces each step change.
//
// createTableView({canvas, call, getJson, api, isReady}) builds it on index.html's elements
// (#a11y, #a11y-body, #announce, #table-toggle) with the app's calls and the page's API, and
// returns what the page calls: renderAccessible(announce), renderSoon(announce) (once, after
// the app's events of a frame), trainingStepped() (a "training" event), showTableView(show)
// and shown().
import { printf } from "./format.js";

export const PRODUCT = { en: "Attention Playground", zh: "注意力游乐场" };

export function createTableView({ canvas, call, getJson, api, isReady }) {
  const a11y = document.getElementById("a11y");
  const a11yBody = document.getElementById("a11y-body");
  const announcer = document.getElementById("announce");
  const tableToggle = document.getElementById("table-toggle");
  const pageTitle = document.getElementById("page-title");
  const mainLandmark = document.querySelector("main");
  let lastAnnounced = "", lastLesson = "", lastQuizLine = "", lastNote = "";
  let moveCellCursor = () => {};  // the table view's arrow keys (matrixTable sets it)
  let cellCursor = "";  // the data-key of the cell that Tab comes back to in the table
  let refocusing = false;  // the focus is being put back after a redraw (refocus)

  function element(tag, props = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "className") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  // Text written only when it differs: rewriting the same words is a change that a screen
  // reader may read out again.
  function setText(e, text) {
    if (e && e.textContent !== text) e.textContent = text;
  }

  // The table view is made of parts: the lesson's place, the formula, each question, the
  // matrix, each setting. A redraw keeps a part's element when what it shows is the same and
  // builds a new one only when that changed, so the focus (and a screen reader's place) stays
  // where the learner left it; while a task trains, only the matrix is new.
  function partList() {
    const kept = new Map();  // key → {sig, el}
    let used = new Set();
    return {
      // The element for `key` showing `data`: the last one when its data is the same (or when
      // `hold`: the learner is typing in it), else a new one from build().
      get(key, data, build, hold = false) {
        used.add(key);
        const sig = JSON.stringify(data);
        const old = kept.get(key);
        if (old && (old.sig === sig || hold)) return old.el;
        const el = build();
        kept.set(key, { sig, el });
        return el;
      },
      // Makes `els` the container's children in this order without moving an element that
      // stays (a moved element loses the focus): new ones go in between, the rest are removed.
      place(container, els) {
        for (const key of kept.keys()) if (!used.has(key)) kept.delete(key);
        used = new Set();
        const wanted = new Set(els);
        for (const child of [...container.childNodes]) if (!wanted.has(child)) child.remove();
        let at = container.firstChild;
        for (const el of els) {
          if (el === at) at = at.nextSibling;
          else container.insertBefore(el, at);
        }
      },
    };
  }
  const bodyParts = partList();
  const settingParts = partList();

  // Where the focus is in the table view, as a key that outlives a redraw: the data-key of the
  // control (every control of the view has one: a setting's id, "q0 key 2", "cell weights 1 3").
  function focusKey(el) {
    if (!el || !a11yBody.contains(el)) return null;
    return el.closest("[data-key]")?.dataset.key ?? null;
  }
  // The focused element was replaced: the focus goes to the control with the same key, else to
  // what the old one names in data-then (an answered question's verdict, the table's first
  // cell), else to the view itself. Never to the page's body, where Tab and Escape do nothing.
  function refocus(old, key) {
    const then = old.closest("[data-then]")?.dataset.then;
    const next = a11yBody.querySelector(`[data-key="${CSS.escape(key)}"]`) ??
                 (then ? a11yBody.querySelector(then) : null) ?? a11y;
    refocusing = true;
    try {
      next.focus();
    } finally {
      refocusing = false;
    }
  }

  // Hidden, the table view stays in the accessibility tree for screen readers but out of Tab's
  // way: a sighted learner would tab into controls that cannot be seen. Each control's own
  // tabindex is kept in data-tab meanwhile.
  const CONTROLS = "button, input, select, a[href], summary, td";
  function setTabbable(shown) {
    for (const e of a11yBody.querySelectorAll(CONTROLS)) {
      if (!shown && e.dataset.tab === undefined) {
        e.dataset.tab = e.getAttribute("tabindex") ?? "";
        e.tabIndex = -1;
      } else if (shown && e.dataset.tab !== undefined) {
        if (e.dataset.tab === "") e.removeAttribute("tabindex");
        else e.setAttribute("tabindex", e.dataset.tab);
        delete e.dataset.tab;
      }
    }
  }
  // A tabindex of a control that may be hidden (setTabbable): the one it gets back when shown.
  function setTabIndex(e, value) {
    if (e.dataset.tab !== undefined) e.dataset.tab = String(value);
    else e.tabIndex = value;
  }

  // Redraws the table view from the app's state. `fromApp`: for one of the app's events, not
  // the learner's action in the view (a cell being typed in is then left alone).
  function renderAccessible(announce, fromApp = false) {
    if (!isReady() || !a11y) return;
    lastRedraw = performance.now();
    const d = getJson("ap_accessible");
    showTexts(d);
    const focused = document.activeElement;
    const key = focusKey(focused);
    const t = getJson("ap_training");
    // The view the centre shows (Layers, Decoder, Document, Picture, Curve) in place of the
    // step's matrix: its sentences and its numbers as tables, as the canvas draws them.
    const parts = [...lessonParts(d), ...quizParts(d),
                   ...(d.view ? viewParts(d.view) : matrixParts(d.matrix, d.texts, fromApp)),
                   settingsPart(d.texts),  // the settings after the matrix: the step comes first
                   ...trainingParts(t, d.texts)];  // what the settings' train (play) is doing
    bodyParts.place(a11yBody, parts);
    setTabbable(a11y.classList.contains("shown"));
    if (key && !focused.isConnected) refocus(focused, key);
    // Each step change is announced, with the lesson when that changed too, and the step's
    // open question (the note waits for its answer, as on the canvas) or else its note; else a
    // verdict, with the note it uncovered. Training says when it starts, pauses and converges.
    const said = [];
    const quizLine = (d.quiz ?? []).filter((q) => q.answered).map((q) => `${q.verdict} ${q.why}`).pop() ?? "";
    const lesson = d.lesson !== lastLesson && d.lesson_place ? `${d.lesson_place}: ${d.lesson}. ` : "";
    const open = (d.quiz ?? []).find((q) => !q.answered);
    const colon = d.lang === "zh" ? "：" : ": ";
    const extra = open ? ` ${d.texts.predict}${colon}${open.ask}${open.unfit ? `${d.lang === "zh" ? "" : " "}${open.unfit}` : ""}` : d.note ? ` ${d.note}` : "";
    // (A view says what it shows now, its word, question or query, in "now".)
    const line = d.view ? `${lesson}${viewHeading(d)}. ${d.view.now ?? d.view.sections[0]?.text?.find((t) => t) ?? ""}${extra}`
      : `${lesson}${d.heading}. ${d.explanation}${extra}`;
    if (announce && line !== lastAnnounced) {
      said.push(line);
    } else if (quizLine && quizLine !== lastQuizLine) {
      said.push(quizLine);
      if (d.note && d.note !== lastNote) said.push(d.note);
    }
    const news = trainingNews(t, d.texts);
    if (news) said.push(news);
    if (said.length) announcer.textContent = said.join(" ");
    lastQuizLine = quizLine;
    lastAnnounced = line;
    lastLesson = d.lesson;
    lastNote = d.note;
  }

  // Training, as the Train section shows it: "step 600, loss 0.0031" (the canvas's printf
  // formats, %.3g too: js/format.js), in a sentence of the view's texts.
  function trainingWhere(t, texts) {
    return typeof t.loss === "number" ? printf(texts.step_loss, t.step, t.loss) : printf(texts.step_only, t.step);
  }
  // The sentence for the training as it is now: playing, or paused (by the learner or,
  // converged, by itself); the step where the loss fell, for a task with a phase change; then
  // the task's check sentence ("Head 1 puts 0.97 of each row's
  // weight on the token before.") when `withCheck`.
  function trainingSentence(t, texts, withCheck) {
    const format = t.playing ? texts.training_progress
      : t.converged ? texts.training_converged
      : t.finished ? texts.training_finished : texts.training_paused;
    // A task whose loss stays high and then falls (induction): the step where it fell, as the
    // loss plot marks it ("the drop: step 240").
    const drop = Number.isInteger(t.drop) && t.drop > 0 && texts.training_drop ? ` ${printf(texts.training_drop, t.drop)}` : "";
    const check = withCheck && t.check?.text ? ` ${t.check.text}` : "";
    const error = !t.playing && t.error ? ` ${t.error}` : "";  // why it stopped, when it could not go on
    return printf(format, trainingWhere(t, texts)) + drop + check + error;
  }

  // The table view's training paragraph, while training plays and once it has taken steps.
  // One element kept across redraws (its words change at every step), never focusable.
  function trainingParts(t, texts) {
    if (!t.playing && !(t.step > 0)) return [];
    const p = bodyParts.get("training", [], () => element("p", { id: "a11y-training", className: "training" }));
    setText(p, trainingSentence(t, texts, true));
    return [p];
  }

  // What the live region says about training: that it started, paused or converged, and
  // while it plays at most a line every TRAINING_SAY_MS (each step would flood a reader).
  // A new task, a reset or another seed is the learner's own doing: nothing is said then.
  const TRAINING_SAY_MS = 10000;
  let trainingSeen = null, trainingSaidAt = 0;
  function trainingNews(t, texts) {
    const was = trainingSeen;
    trainingSeen = { task: t.task, seed: t.seed, step: t.step, playing: t.playing };
    if (!was || was.task !== t.task || was.seed !== t.seed || t.step < was.step) return "";
    const now = performance.now();
    if (t.playing && !was.playing) {
      trainingSaidAt = now;
      return printf(texts.training_started, trainingWhere(t, texts));
    }
    if (!t.playing && was.playing) return trainingSentence(t, texts, true);
    if (t.playing && now - trainingSaidAt >= TRAINING_SAY_MS) {
      trainingSaidAt = now;
      return trainingSentence(t, texts, false);
    }
    return "";
  }

  // The page's language, its heading and the texts of the view's fixed elements.
  function showTexts(d) {
    document.documentElement.lang = d.lang === "zh" ? "zh-CN" : "en";
    setText(pageTitle, PRODUCT[d.lang] ?? PRODUCT.en);
    // The main landmark is named after the lesson: a page that embeds two playgrounds has
    // three main landmarks, which a screen reader tells apart by name (axe: landmark-unique).
    const product = PRODUCT[d.lang] ?? PRODUCT.en;
    const mainName = d.lesson ? `${product}: ${d.lesson}` : product;
    if (mainLandmark && mainLandmark.getAttribute("aria-label") !== mainName) mainLandmark.setAttribute("aria-label", mainName);
    const heading = viewHeading(d);
    setText(document.getElementById("a11y-heading"), d.lesson ? `${d.lesson}: ${heading}` : heading);
    setText(document.getElementById("a11y-close"), d.texts.close);
    setText(document.getElementById("a11y-skip"), d.texts.skip_settings);
    setText(tableToggle, d.texts.table_view);
  }

  // The heading: the step's ("Step 3 of 8: Scores"), or the view's title when the centre shows
  // another view.
  const viewHeading = (d) => (d.view ? d.view.title : d.heading);

  // A view's description (src/app/model/views.cpp): a section a part, each with its heading,
  // its sentences and its tables (a caption, a header cell for the rows' labels, a column
  // header per column, a row header per row: a screen reader reads each cell with both).
  function viewParts(view) {
    return view.sections.map((sec, i) => bodyParts.get(`view ${view.id} ${i}`, sec, () => {
      const box = element("section", { className: "view" });
      if (sec.heading) box.append(element("h3", {}, sec.heading));
      for (const line of sec.text ?? []) if (line) box.append(element("p", {}, line));
      for (const t of sec.tables ?? []) box.append(viewTable(t));
      return box;
    }));
  }
  function viewTable(t) {
    const head = element("tr", {}, element("th", { scope: "col" }, t.row_header),
                         ...t.columns.map((c) => element("th", { scope: "col" }, c)));
    const body = element("tbody", {}, ...t.rows.map((r) => element("tr", {},
      element("th", { scope: "row" }, r.label), ...r.cells.map((c) => element("td", {}, c)))));
    return element("table", {}, element("caption", {}, t.caption), element("thead", {}, head), body);
  }

  // The lesson's place and buttons to the lessons around it, the formula, the explanation, the
  // textbook section, the words and the lesson's note.
  function lessonParts(d) {
    const parts = [];
    const text = (key, className, value) => {
      if (value) parts.push(bodyParts.get(key, value, () => element("p", className ? { className } : {}, value)));
    };
    if (d.lesson_place) {
      parts.push(bodyParts.get("lessons", [d.lesson_place, d.previous, d.next, d.texts.previous, d.texts.next],
                               () => lessonNav(d)));
    }
    // The lesson's introduction, folded (it is long; the canvas shows it beside the steps), and
    // the steps with a note or a question, each a button that shows the step.
    if (d.introduction) {
      parts.push(bodyParts.get("introduction", [d.introduction, d.texts.about], () =>
        element("details", { className: "about" }, element("summary", { "data-key": "about" }, d.texts.about),
                element("p", {}, d.introduction))));
    }
    for (const [key, steps, label] of [["note steps", d.note_steps, d.texts.notes_on],
                                       ["question steps", d.question_steps, d.texts.questions_on]]) {
      if (!steps?.length) continue;
      parts.push(bodyParts.get(key, [steps, label, d.texts.go_to_step], () => {
        const p = element("p", { className: "step-links" }, label);
        for (const k of steps) {
          const b = element("button", { type: "button", "data-key": `${key} ${k}`,
                                        "aria-label": printf(d.texts.go_to_step, k) }, String(k));
          b.addEventListener("click", () => {
            call("ap_set_control", "string", ["string", "string"], ["step", JSON.stringify(k - 1)]);
            renderAccessible(true);  // the step now shown is announced
          });
          p.append(" ", b);
        }
        return p;
      }));
    }
    if (!d.view) {  // the step's; a view's own sentences come with it (viewParts)
      text("formula", "formula", d.formula);
      text("explanation", "", d.explanation);
    }
    if (d.read?.url?.startsWith("https://")) {
      const label = d.texts.read.replace("%s", d.read.title);
      parts.push(bodyParts.get("read", [d.read.url, label], () => element("p", {},
        element("a", { href: d.read.url, target: "_blank", rel: "noopener noreferrer", "data-key": "read" }, label))));
    }
    if (d.glossary?.length) {
      parts.push(bodyParts.get("words", [d.glossary, d.texts.words], () => {
        const list = element("dl", {});
        for (const w of d.glossary) list.append(element("dt", {}, w.term), element("dd", {}, w.text));
        return element("details", { className: "words" }, element("summary", { "data-key": "words" }, d.texts.words), list);
      }));
    }
    text("note", "note", d.note);
    return parts;
  }

  // Loading another lesson keeps the focus on the button that did it (when the new lesson has
  // one too); the live region says which lesson it is.
  function lessonNav(d) {
    const nav = element("p", { className: "lessons" }, d.lesson_place);
    for (const [which, name, label] of [["previous", d.previous, d.texts.previous], ["next", d.next, d.texts.next]]) {
      if (!name) continue;
      const b = element("button", { type: "button", "data-lesson": name, "data-key": `lesson ${which}` }, label);
      b.addEventListener("click", () => {
        api.loadPreset(name);
        renderAccessible(true);
      });
      nav.append(" ", b);
    }
    return nav;
  }

  // The step's questions: a button per key, or a number and Check, as on the canvas. Once a
  // question is answered its part is new, and the focus goes to its verdict (data-then).
  function quizParts(d) {
    return (d.quiz ?? []).map((q) => bodyParts.get(`quiz ${q.question}`, [q, d.texts.predict, d.texts.check],
                                                   () => quizBox(q, d.texts)));
  }
  function quizBox(q, texts) {
    const n = q.question;
    const box = element("div", { className: "quiz", role: "group", "aria-label": texts.predict,
                                 "data-question": String(n), "data-then": `[data-key="q${n} verdict"]` },
                        element("p", { className: "quiz-title" }, texts.predict),
                        element("p", {}, q.ask));
    const answer = (value) => {
      api.answerQuiz(n, value);
      renderAccessible(false);
    };
    if (q.answered) {
      // Asked again, the question's first answer (or its number field) has the focus.
      const again = element("button", { type: "button", "data-key": `q${n} again`,
                                         "data-then": `[data-key="q${n} key 0"], [data-key="q${n} value"]` },
                            texts.again);
      again.addEventListener("click", () => {
        api.answerQuiz(n, { again: true });
        renderAccessible(false);
      });
      box.append(element("p", { className: "verdict", tabindex: "-1", "data-key": `q${n} verdict` }, q.verdict),
                 element("p", {}, q.why), element("p", {}, again));
    } else if (q.unfit) {
      // Its cell is not there now (the decoder writes fewer words after Random start): why,
      // and what brings it back; nothing to answer with.
      box.append(element("p", { className: "quiz-unfit" }, q.unfit));
    } else if (q.kind === "key") {
      const row = element("p", {});
      q.keys.forEach((label, j) => {
        const b = element("button", { type: "button", "data-key": `q${n} key ${j}` }, label);
        b.addEventListener("click", () => answer({ key: j }));
        row.append(b, " ");
      });
      box.append(row);
    } else {
      // A form, so that Enter submits (the key itself never reaches the input's listeners:
      // see the capture listener below; the form's implicit submission is a default action).
      const input = element("input", { type: "text", inputmode: "decimal", "aria-label": q.ask, size: "8",
                                       "data-key": `q${n} value` });
      const form = element("form", {}, input, " ",
                           element("button", { type: "submit", "data-key": `q${n} check` }, texts.check));
      // The whole text is the number, as on the canvas (ui::typed_number): "0.20.9986", "0x10"
      // or "1e" is refused with a sentence under the box, never read in part.
      const problem = element("p", { className: "quiz-problem", role: "status" });
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const text = input.value.trim().replace(",", ".").replace("\u2212", "-");
        const v = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
        if (Number.isFinite(v) && Math.abs(v) <= 3.4028234663852886e38) {
          answer({ value: v });
          return;
        }
        input.setAttribute("aria-invalid", "true");
        problem.textContent = texts.not_a_number;
      });
      input.addEventListener("input", () => {
        input.removeAttribute("aria-invalid");
        problem.textContent = "";
      });
      box.append(form, problem);
    }
    if (!q.answered) {  // giving up shows the answer (not right first time), as on the canvas
      const show = element("button", { type: "button", "data-key": `q${n} show` }, texts.show);
      show.addEventListener("click", () => answer({ show: true }));
      box.append(element("p", {}, show));
    }
    return box;
  }

  // The step's matrix as a table, the line that reads out the cell under the cursor, and a
  // note when the table shows only the first rows and columns. While the learner types in a
  // cell, the app's redraws leave the table as it is.
  function matrixParts(m, texts, fromApp) {
    if (!m) return [];
    const typing = fromApp && a11yBody.contains(document.activeElement) &&
                   document.activeElement.matches("td input");
    const parts = [bodyParts.get("matrix", [m, texts.head, texts.rows_cols], () => matrixTable(m, texts), typing),
                   bodyParts.get("cell line", [m.id, m.head, m.batch], () =>
                     element("p", { id: "a11y-cell", className: "cell", "aria-live": "polite" }))];
    if (m.truncated) {
      const note = texts.truncated.replace("%d", m.cells.length).replace("%d", m.rows)
        .replace("%d", m.col_labels.length).replace("%d", m.cols);
      parts.push(bodyParts.get("truncated", note, () => element("p", {}, note)));
    }
    return parts;
  }

  function matrixTable(m, texts) {
    const caption = [`${m.symbol}: ${m.name}`];
    if (m.head) caption.push(`${texts.head} ${m.head}`);
    caption.push(texts.rows_cols.replace("%s", m.row_axis).replace("%s", m.col_axis));
    if (m.hidden) caption.push(m.hidden);  // "?" in every cell until the question is answered
    const head = element("tr", {}, element("td", {}));
    for (const c of m.col_labels) head.append(element("th", { scope: "col" }, c));
    const body = element("tbody");
    const cols = m.cells[0]?.length ?? 0;
    m.cells.forEach((row, i) => {
      const tr = element("tr", {}, element("th", { scope: "row" }, m.row_labels[i]));
      row.forEach((text, j) => {
        tr.append(element("td", { ...(text.includes(" ") ? { className: "masked" } : {}), "data-row": String(i),
                                  "data-col": String(j), "data-key": `cell ${m.id} ${i} ${j}`,
                                  "data-then": "tbody td" }, text));
      });
      body.append(tr);
    });
    // A cell cursor: Tab stops on one cell (the last one the learner was on), the arrow keys
    // move it, and the arithmetic of the cell it is on is read out below the table (aria-live).
    const cells = [...body.querySelectorAll("td")];
    const at = Math.max(0, cells.findIndex((td) => td.dataset.key === cellCursor));
    cells.forEach((td, k) => { td.tabIndex = k === at ? 0 : -1; });
    if (m.editable) body.addEventListener("click", (e) => editCell(e.target.closest("td"), m));
    body.addEventListener("focusin", (e) => {
      const td = e.target.closest("td");
      if (!td) return;
      cellCursor = td.dataset.key;
      for (const c of cells) setTabIndex(c, c === td ? 0 : -1);
      if (!refocusing) readCell(td);
    });
    moveCellCursor = (e) => {
      const td = document.activeElement?.closest?.("td");
      if (!td || !body.contains(td)) return;
      if (document.activeElement !== td) return;  // typing in a cell's field
      if (e.key === "Enter" && m.editable) {
        e.preventDefault();
        td.click();
        return;
      }
      const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[e.key];
      if (step === undefined) return;
      e.preventDefault();
      const next = cells[cells.indexOf(td) + step];
      if (next) next.focus();
    };
    return element("table", {}, element("caption", {}, caption.join(" · ")), element("thead", {}, head), body);
  }

  // The cell's arithmetic, read out (a redraw that puts the focus back says nothing).
  function readCell(td) {
    const info = JSON.parse(call("ap_accessible_cell", "string", ["number", "number"],
                                 [Number(td.dataset.row), Number(td.dataset.col)]));
    const out = document.getElementById("a11y-cell");
    if (out && info.cell) {
      out.textContent = `${info.cell.name} [${info.cell.row}, ${info.cell.col}]: ${td.textContent}. ` +
                        info.cell.lines.join(". ");
    }
  }

  // Enter on a cell of an input matrix edits it: a text field in its place, Enter to keep the
  // number, Escape to leave it (endEdit).
  function editCell(td, m) {
    if (!td || td.querySelector("input")) return;
    td.dataset.text = td.textContent;
    const field = element("input", { type: "text", inputmode: "decimal", size: "6", value: td.textContent,
      "aria-label": `${m.name} [${Number(td.dataset.row) + 1}, ${Number(td.dataset.col) + 1}]` });
    const form = element("form", {}, field);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const value = Number(field.value.replace(",", ".").replace("\u2212", "-"));
      if (!Number.isFinite(value)) return;
      endEdit(td);
      const error = call("ap_set_control", "string", ["string", "string"], ["cell", JSON.stringify(
        { matrix: m.id, batch: m.batch - 1, row: Number(td.dataset.row), col: Number(td.dataset.col), value })]);
      if (error) announcer.textContent = error;
      renderAccessible(false);  // a new table: the focus goes to the same cell in it
    });
    td.replaceChildren(form);
    field.focus();
    field.select();
  }
  // The cell shows its number again, and has the focus.
  function endEdit(td) {
    td.replaceChildren(td.dataset.text ?? "");
    td.focus();
  }

  // The canvas's settings as the page's own form controls, each changed as on the canvas. A
  // setting's element stays while its label and choices do: a new value is shown in it.
  function settingsPart(texts) {
    const fieldset = bodyParts.get("settings", [], () =>
      element("fieldset", { className: "settings" }, element("legend", {})));
    const legend = fieldset.querySelector("legend");
    setText(legend, texts.settings);
    settingParts.place(fieldset, [legend, ...getJson("ap_controls").map(settingPart)]);
    return fieldset;
  }
  function settingPart(c) {
    const { value, ...shape } = c;
    const el = settingParts.get(c.id, shape, () => settingControl(c));
    if (c.kind !== "button" && c.kind !== "menu") showValue(el.querySelector("input, select"), c);
    return el;
  }
  // The app's value in the control, when it changed since it was last shown there (a number
  // half typed is not written over by a redraw).
  function showValue(input, c) {
    const v = JSON.stringify(c.value);
    if (input.dataset.value === v) return;
    input.dataset.value = v;
    if (c.kind === "checkbox") input.checked = c.value;
    else if (c.kind === "select") input.value = v;
    else input.value = String(Number(c.value.toPrecision(4)));  // 0.05, 1.05, 0.001, 123456
  }
  // The settings that choose what the centre shows: the step, the view, and a view's word,
  // question or query (the view's "now"). A choice among them is announced.
  const SAID_WHEN_CHOSEN = new Set(["step", "view", "decoder_step", "hierarchy_question", "picture_query", "curve_query", "plane_query"]);
  function settingControl(c) {
    const id = `a11y-control-${c.id}`;
    // A button does what the canvas's does; a menu is a group of buttons, one per choice.
    const apply = (value) => {
      const error = call("ap_set_control", "string", ["string", "string"], [c.id, JSON.stringify(value)]);
      if (error) announcer.textContent = error;
      return error;
    };
    if (c.kind === "button") {
      const b = element("button", { type: "button", id, "data-key": id }, c.label);
      b.addEventListener("click", () => {
        apply(true);
        renderAccessible(false);
      });
      return element("div", { className: "setting" }, b);
    }
    if (c.kind === "menu") {
      const group = element("div", { className: "setting", role: "group", "aria-labelledby": `${id}-label` },
                            element("span", { id: `${id}-label` }, c.label), " ");
      c.options.forEach((o, k) => {
        const b = element("button", { type: "button", id: `${id}-${k}`, "data-key": `${id}-${k}` }, o.label);
        b.addEventListener("click", () => {
          if (!apply(o.value) && c.id === "export") announcer.textContent = o.label;
          renderAccessible(false);
        });
        group.append(b, " ");
      });
      return group;
    }
    let input;
    if (c.kind === "checkbox") {
      input = element("input", { type: "checkbox", id, "data-key": id });
    } else if (c.kind === "select") {
      input = element("select", { id, "data-key": id });
      for (const o of c.options) input.append(element("option", { value: JSON.stringify(o.value) }, o.label));
    } else {
      input = element("input", { type: "number", id, min: String(c.min), max: String(c.max),
                                 step: String(c.step ?? "any"), "data-key": id });
    }
    input.addEventListener("change", () => {
      const value = c.kind === "checkbox" ? input.checked
        : c.kind === "select" ? JSON.parse(input.value) : Number(input.value);
      apply(value);
      delete input.dataset.value;  // shows the app's value, also when it refused this one
      renderAccessible(SAID_WHEN_CHOSEN.has(c.id));  // the step, view, word, question or query now shown
    });
    const label = element("label", { for: id }, c.label);
    return element("div", { className: "setting" },
      ...(c.kind === "checkbox" ? [input, " ", label] : [label, " ", input]));
  }

  // The app's events come a frame after a change, often several in one frame: one redraw for
  // them, after that frame; while a task trains (a "training" event every frame) at most two
  // a second, each one a new matrix for a screen reader to find its place in.
  const TRAINING_REDRAW_MS = 500;
  const TRAINING_QUIET_MS = 700;  // no steps for this long: training has paused
  let trainingQuiet = 0;
  let pendingRedraw = null;  // {announce} while a redraw is due
  let lastRedraw = 0, trainingUntil = 0;
  function renderSoon(announce) {
    if (pendingRedraw) {
      pendingRedraw.announce ||= announce;
      return;
    }
    pendingRedraw = { announce };
    const run = () => {
      const { announce: say } = pendingRedraw;
      pendingRedraw = null;
      // Not while a scenario computes in parts: reading its training state would finish it at
      // once; the event at its end asks for this redraw again.
      if (getJson("ap_stats").computing !== null) return;
      renderAccessible(say, true);
    };
    const now = performance.now();
    const wait = now < trainingUntil ? lastRedraw + TRAINING_REDRAW_MS - now : 0;
    if (wait > 0) setTimeout(run, wait);
    else queueMicrotask(run);
  }

  // Training took steps: the table view is redrawn less often meanwhile (renderSoon), and
  // once no step has come for TRAINING_QUIET_MS (a pause on the canvas sends no event), once
  // more to say so (trainingNews).
  function trainingStepped() {
    trainingUntil = performance.now() + 1000;
    clearTimeout(trainingQuiet);
    trainingQuiet = setTimeout(() => renderSoon(false), TRAINING_QUIET_MS);
  }

  function showTableView(show) {
    document.getElementById("a11y-close").tabIndex = show ? 0 : -1;
    document.getElementById("a11y-skip").tabIndex = show ? 0 : -1;
    a11y.classList.toggle("visually-hidden", !show);
    a11y.classList.toggle("shown", show);
    document.body.classList.toggle("table-open", show);  // the canvas makes room (app.css)
    tableToggle.setAttribute("aria-expanded", String(show));
    renderAccessible(false);  // its controls join Tab's order, or leave it
    if (show) a11y.focus();
    else canvas.focus();
  }
  tableToggle?.addEventListener("click", () => showTableView(!a11y.classList.contains("shown")));
  // Tab and Shift+Tab are the browser's, wherever the focus is: Emscripten's GLFW, which
  // listens in the capture phase on the window, prevents Tab's default, so a learner could
  // never leave the canvas, the page or the frame around it. This listener comes first and
  // keeps Tab from GLFW. The page's own elements are in index.html in the order Tab walks them
  // (the canvas, the table view's button, the table view), and Tab leaves at both ends.
  //
  // Other keys typed in the page's own elements (the table view, its button) are theirs too:
  // GLFW never sees them (it would step the pipeline on ←/→). Stopping an event does not cancel
  // its default action: Enter and Space still press the focused button. Escape closes the
  // table view, also when the focus is nowhere.
  const ownElement = (e) => e === tableToggle || a11y.contains(e);
  for (const type of ["keydown", "keyup", "keypress"]) {
    window.addEventListener(type, (e) => {
      // Option+Tab too: Safari's way to every control when plain Tab skips buttons.
      if (e.key === "Tab" && !e.ctrlKey && !e.metaKey) {
        e.stopImmediatePropagation();
        return;
      }
      const here = document.activeElement;
      const shown = a11y.classList.contains("shown");
      if (here === null || here === document.body) {
        if (type === "keydown" && e.key === "Escape" && shown) {
          e.stopImmediatePropagation();
          showTableView(false);
        }
        return;
      }
      if (!ownElement(here)) return;
      e.stopImmediatePropagation();
      if (type !== "keydown") return;
      const editing = here.tagName === "INPUT" ? here.closest("td") : null;
      if (e.key === "Escape" && editing) endEdit(editing);  // the cell keeps its number
      else if (e.key === "Escape" && shown) showTableView(false);
      else moveCellCursor(e);
    }, true);
  }
  document.getElementById("a11y-close")?.addEventListener("click", () => showTableView(false));
  // Past the lesson, its questions (a picture's 40 patches) and the tables, to the settings'
  // first control: the step, the view and the view's own choice come first there.
  document.getElementById("a11y-skip")?.addEventListener("click", () => {
    a11yBody.querySelector("fieldset.settings :is(select, input, button)")?.focus();
  });

  return { renderAccessible, renderSoon, trainingStepped, showTableView,
           shown: () => a11y.classList.contains("shown") };
}
