// Drives the two embedded playgrounds of course.html through postMessage: each button sends
// a call, each reply is shown next to the buttons, and each playground's preferred height
// sizes its iframe. The page subscribes to the playgrounds' events and shows the learner's
// progress ("quiz" and "lesson" events, getProgress): where an LMS wrapper would record it.
// Replies reach the DOM through textContent only.
"use strict";

(() => {
  const PREFIX = "attention-playground:";
  // iframe id → {frame, ready, pending: Map(id → resolve), queue, lesson, change}: `lesson` is
  // the lesson the frame shows (its id, as getView and the "lesson" event name it), `change`
  // what this page's buttons have changed in it ("mask off", …), or null.
  const frames = new Map();
  let nextId = 1;

  for (const frame of document.querySelectorAll("iframe")) {
    frames.set(frame.id, { frame, ready: false, pending: new Map(), queue: [], lesson: "", change: null });
  }

  // What a lesson's notes say once a button here has changed it. A mask changes nothing before
  // the masked step (step 5 on screen, 4 in the API), so the lesson's notes on steps 1–4 stay;
  // from step 5 on, these replace them (and a question's "why", by its index). The numbers are
  // the core's: `attention-cli eval` of the preset with the change made (padded_batch without
  // valid_lens, multi_head with "causal": true).
  const RETOLD = {
    "padded_batch|mask off": {
      tour: [
        { step: 4, text: {
          en: "This page has switched the mask off: with no valid lengths nothing becomes −1e6, so these are the scaled scores as they were, <pad> columns included.",
          zh: "课程页面关掉了掩蔽：没有有效长度，就没有格子被换成 −1e6，所以这里就是原样的缩放分数，<pad> 列也一样。" } },
        { step: 5, text: {
          en: "With the mask off the <pad> columns are not 0: rows 1 to 3 of sentence 1 give each <pad> key 0.10 to 0.23, and 0.40 to 0.47 of their weight in all. In sentence 2, <pad> takes 0.09 to 0.20 of each real row. Press \"Mask on / off\" again to put the valid lengths back.",
          zh: "关掉掩蔽后，<pad> 列不再是 0：第 1 句的第 1 到 3 行给每个 <pad> 键 0.10 到 0.23，合计把 0.40 到 0.47 的权重给了填充。第 2 句里，<pad> 从每个真实行拿走 0.09 到 0.20。再按一次“Mask on / off”，有效长度就回来了。" } },
        { step: 6, text: {
          en: "Without the mask, the outputs of the real tokens mix in the <pad> value rows: in rows 1 to 3 of sentence 1 they carry 0.40 to 0.47 of the weight.",
          zh: "没有掩蔽时，真实词元的输出里混进了 <pad> 的值行：在第 1 句的第 1 到 3 行里，它们占 0.40 到 0.47 的权重。" } },
      ],
      why: {
        0: {
          en: "With the mask off, key 4 keeps its score, and the softmax gives it 0.11 of \"cat\"'s weight: padding takes weight it should never get. With the valid length 3 it would get exactly 0.",
          zh: "关掉掩蔽后，键 4 保留自己的分数，softmax 从“猫”的权重里分给它 0.11：填充拿到了本不该有的权重。有效长度为 3 时，它得到的恰好是 0。" },
      },
    },
    "multi_head|causal mask on": {
      tour: [
        { step: 4, text: {
          en: "This page has switched the causal mask on: in both heads, every key to the right of its query becomes −1e6.",
          zh: "课程页面打开了因果掩蔽：两个头里，每个查询右边的键都变成 −1e6。" } },
        { step: 5, text: {
          en: "Head 1 hardly changes: it already looked back (\"the\" now puts 1.00 on itself). Head 2 changes most: \"the\" sees only itself (1.00), \"cat\" splits its weight 0.50 and 0.50 between \"the\" and itself, \"sat\" puts 0.92 on \"cat\" and \"on\" 0.88 on \"sat\".",
          zh: "头 1 几乎不变：它本来就往回看（“那只”现在把 1.00 放在自己身上）。头 2 变化最大：“那只”只看得到自己（1.00），“猫”在“那只”和自己之间各分 0.50，“坐”把 0.92 放在“猫”上，“在”把 0.88 放在“坐”上。" } },
        { step: 7, text: {
          en: "Head 2's columns (5–8) no longer tell \"the\" and \"cat\" what the verb is: the verb comes after them, where the causal mask hides it.",
          zh: "头 2 的列（第 5–8 列）不再告诉“那只”和“猫”动词是什么：动词在它们后面，被因果掩蔽遮住了。" } },
      ],
    },
  };

  // Makes a changed lesson's texts fit its numbers: see RETOLD.
  function retell(scenario, lesson, change) {
    const texts = RETOLD[`${lesson}|${change}`] ?? {};
    const before = (scenario.tour ?? []).filter((stop) => stop.step < 4);
    scenario.tour = [...before, ...(texts.tour ?? [])];
    for (const [q, why] of Object.entries(texts.why ?? {})) {
      if (scenario.quiz?.[q]) scenario.quiz[q].why = why;
    }
  }

  function entryFor(source) {
    for (const entry of frames.values()) if (entry.frame.contentWindow === source) return entry;
    return null;
  }

  // Calls `method` in the playground of iframe `target`; resolves with its reply.
  function call(target, method, ...args) {
    const entry = frames.get(target);
    return new Promise((resolve) => {
      const id = nextId++;
      entry.pending.set(id, resolve);
      const send = () => entry.frame.contentWindow.postMessage(
        { type: `${PREFIX}call`, id, method, args }, location.origin);
      if (entry.ready) send();
      else entry.queue.push(send);
    });
  }

  window.addEventListener("message", (event) => {
    if (event.origin !== location.origin) return; // our playgrounds are served with this page
    const entry = entryFor(event.source);
    const data = event.data;
    if (!entry || data === null || typeof data !== "object" || typeof data.type !== "string") return;
    const target = entry.frame.id;
    if (data.type === `${PREFIX}ready`) {
      entry.ready = true;
      for (const send of entry.queue.splice(0)) send();
      call(target, "subscribe")
        .then(() => call(target, "getView"))
        .then((view) => {
          if (view.ok && view.result.lesson) entry.lesson = view.result.lesson;
          showProgress(target);
        });
    } else if (data.type === `${PREFIX}event` && data.event === "quiz") {
      heard(entry, data.detail ?? {});
    } else if (data.type === `${PREFIX}event` && data.event === "lesson") {
      // A lesson opened (or finished) as the playground has it: nothing of this page's changes.
      if (data.detail?.lesson) {
        entry.lesson = data.detail.lesson;
        entry.change = null;
      }
      showProgress(target);
    } else if (data.type === `${PREFIX}height` && Number.isFinite(data.height)) {
      entry.frame.style.height = `${Math.min(Math.max(data.height, 320), 1400)}px`;
    } else if (data.type === `${PREFIX}reply`) {
      const resolve = entry.pending.get(data.id);
      entry.pending.delete(data.id);
      if (resolve) resolve(data);
    }
  });

  // The learner's progress as the playground reports it (the same in both frames: they share
  // this site's localStorage).
  const progressLine = document.getElementById("progress");
  const progressLog = document.getElementById("progress-log");
  async function showProgress(target) {
    const reply = await call(target, "getProgress");
    if (!reply.ok || !progressLine) return;
    const lessons = reply.result.lessons;
    const asked = lessons.reduce((n, l) => n + l.questions, 0);
    const answered = lessons.reduce((n, l) => n + l.answered, 0);
    const right = lessons.reduce((n, l) => n + l.correct, 0);
    progressLine.textContent = `${answered} of ${asked} questions answered (${right} right the ` +
      `first time); lessons done: ${reply.result.done.length ? reply.result.done.join(", ") : "none yet"}.`;
  }
  function log(text) {
    if (!progressLog) return;
    const item = document.createElement("li");
    item.textContent = text;
    progressLog.prepend(item);
    while (progressLog.children.length > 5) progressLog.lastElementChild.remove();
  }

  // A "quiz" event: {lesson, question, correct}. The playground records the answers to its
  // lessons as they were loaded; once a button here has changed one (mask off, causal on), it
  // still checks them but names no lesson and records nothing. This page knows which lesson it
  // changed: it names it, and records the answer itself (the first answer to each question, as
  // the playground does) with setProgress, so that the count goes on.
  async function heard(entry, detail) {
    const target = entry.frame.id;
    const question = Number(detail.question);
    const changed = !detail.lesson && entry.change && entry.lesson ? entry.change : null;
    const id = detail.lesson || (changed ? entry.lesson : "");
    const progress = await call(target, "getProgress");
    const lesson = progress.ok ? progress.result.lessons.find((l) => l.id === id) : undefined;
    const name = lesson ? lesson.title : id || "A scenario of your own";
    log(`${name}${changed ? ` (${changed})` : ""}, question ${question + 1}: ` +
        `${detail.correct ? "right" : "not right"}`);
    if (changed && lesson && Number.isInteger(question) && question >= 0 && question < lesson.questions) {
      const marks = (progress.result.marks[id] ?? "").padEnd(lesson.questions, "-").split("");
      if (marks[question] === "-") {
        marks[question] = detail.correct ? "r" : "w";
        await call(target, "setProgress", { [id]: marks.join("") });
      }
    }
    showProgress(target);
  }

  // Puts the frame's lesson back as it was loaded (the playground records its answers again),
  // on the step, batch item and head the learner was looking at.
  async function restore(target) {
    const entry = frames.get(target);
    const view = await call(target, "getView");
    const loaded = await call(target, "loadPreset", entry.lesson);
    if (!loaded.ok) return loaded;
    entry.change = null;
    if (view.ok) {
      await call(target, "setStep", view.result.step);
      await call(target, "setBatch", view.result.batch);
      await call(target, "focusHead", view.result.head);
    }
    return call(target, "getScenario");
  }

  function show(controls, reply, okText) {
    const line = controls.querySelector(".reply");
    line.classList.toggle("error", !reply.ok);
    line.textContent = reply.ok ? okText : `Error: ${reply.error}`;
  }

  async function act(controls, button) {
    const target = controls.dataset.target;
    const entry = frames.get(target);
    const action = button.dataset.action;
    if (action === "next" || action === "prev") {
      const view = await call(target, "getView");
      if (!view.ok) return show(controls, view, "");
      const step = view.result.step + (action === "next" ? 1 : -1);
      const reply = await call(target, "setStep", Math.max(0, Math.min(7, step)));
      return show(controls, reply, `Step ${reply.result + 1} of 8`);
    }
    if (action === "step") {
      const reply = await call(target, "setStep", Number(button.dataset.step));
      return show(controls, reply, `Step ${reply.result + 1} of 8`);
    }
    if (action === "head") {
      const reply = await call(target, "focusHead", Number(button.dataset.head));
      return show(controls, reply, `Head ${reply.result + 1} in focus`);
    }
    if (action === "batch") {
      const view = await call(target, "getView");
      if (!view.ok) return show(controls, view, "");
      const reply = await call(target, "setBatch", view.result.batch === 0 ? 1 : 0);
      return show(controls, reply, `Sentence ${reply.result + 1}`);
    }
    // Scenario edits: read the scenario, change one field, send it back with notes that fit;
    // the second press puts the lesson back as it was loaded.
    const current = await call(target, "getScenario");
    if (!current.ok) return show(controls, current, "");
    const scenario = current.result;
    let message, change;
    if (action === "toggle-mask") {
      if (scenario.valid_lens !== undefined) {
        delete scenario.valid_lens;
        change = "mask off";
        message = "No mask: padding takes part in the softmax";
      } else if (entry.change === "mask off" && entry.lesson) {
        const back = await restore(target);
        const lens = back.ok ? back.result.valid_lens : undefined;
        return show(controls, back, Array.isArray(lens)
          ? `Valid lengths ${lens.join(" and ")}: padding is masked`
          : "The lesson is back as it was loaded");
      } else {
        scenario.valid_lens = [3, 5];
        change = "valid lengths 3 and 5";
        message = "Valid lengths 3 and 5: padding is masked";
      }
    } else if (action === "causal") {
      if (scenario.causal && entry.change === "causal mask on" && entry.lesson) {
        const back = await restore(target);
        return show(controls, back, "Causal mask off: the lesson as it was loaded");
      }
      scenario.causal = !scenario.causal;
      change = scenario.causal ? "causal mask on" : "causal mask off";
      message = scenario.causal ? "Causal mask on" : "Causal mask off";
    }
    retell(scenario, entry.lesson, change);
    const reply = await call(target, "setScenario", scenario);
    if (reply.ok) entry.change = change;
    show(controls, reply, message);
  }

  for (const controls of document.querySelectorAll(".controls")) {
    controls.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (button) act(controls, button);
    });
  }
})();
