// Drives the two embedded playgrounds of course.html through postMessage: each button sends
// a call, each reply is shown next to the buttons, and each playground's preferred height
// sizes its iframe. The page subscribes to the playgrounds' events and shows the learner's
// progress ("quiz" and "lesson" events, getProgress): where an LMS wrapper would record it.
// Replies reach the DOM through textContent only.
"use strict";

(() => {
  const PREFIX = "attention-playground:";
  const frames = new Map(); // iframe id → {frame, ready, pending: Map(id → resolve)}
  let nextId = 1;

  for (const frame of document.querySelectorAll("iframe")) {
    frames.set(frame.id, { frame, ready: false, pending: new Map(), queue: [] });
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
    if (data.type === `${PREFIX}ready`) {
      entry.ready = true;
      for (const send of entry.queue.splice(0)) send();
      call(entry.frame.id, "subscribe").then(() => showProgress(entry.frame.id));
    } else if (data.type === `${PREFIX}event` && (data.event === "quiz" || data.event === "lesson")) {
      if (data.event === "quiz") {
        const d = data.detail;
        log(`${d.lesson}, question ${d.question + 1}: ${d.correct ? "right" : "not right"}`);
      }
      showProgress(entry.frame.id);
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

  function show(controls, reply, okText) {
    const line = controls.querySelector(".reply");
    line.classList.toggle("error", !reply.ok);
    line.textContent = reply.ok ? okText : `Error: ${reply.error}`;
  }

  async function act(controls, button) {
    const target = controls.dataset.target;
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
    // Scenario edits: read the scenario, change one field, send it back.
    const current = await call(target, "getScenario");
    if (!current.ok) return show(controls, current, "");
    const scenario = current.result;
    let message;
    if (action === "toggle-mask") {
      if (scenario.valid_lens === undefined) {
        scenario.valid_lens = [3, 5];
        message = "Valid lengths 3 and 5: padding is masked";
      } else {
        delete scenario.valid_lens;
        message = "No mask: padding takes part in the softmax";
      }
    } else if (action === "causal") {
      scenario.causal = !scenario.causal;
      message = scenario.causal ? "Causal mask on" : "Causal mask off";
    }
    const reply = await call(target, "setScenario", scenario);
    show(controls, reply, message);
  }

  for (const controls of document.querySelectorAll(".controls")) {
    controls.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (button) act(controls, button);
    });
  }
})();
