// ---------------------------------------------------------------------------------------
// Touch: Emscripten 3.1.6's GLFW does not turn touches into mouse input, so we do.
//
// The canvas fills the page, which never scrolls (app.css): what a finger scrolls is the panel
// under it, as the wheel does there. One finger: a tap presses what it touches. A touch is a
// drag once the finger has moved TOUCH_SLOP pixels: it drags like the mouse where it started
// on a matrix that a drag edits (the inputs) or moves (zoomed in, or larger than its box), or
// when it goes sideways (a slider); otherwise it scrolls the panel under the finger, which
// follows the finger, and a flick keeps it going for a moment. Where that scrolls nothing and
// the finger came down on no control (the 2-D view's plane), it drags like the mouse after
// all. Two fingers: apart or together zoom the matrix between them a step (×1.25) at a time,
// as Ctrl+wheel does; moved together they scroll like the wheel.
// ---------------------------------------------------------------------------------------

const TOUCH_SLOP = 8;  // CSS px
const PX_PER_NOTCH = 75;  // a wheel notch scrolls a panel 5 lines of its 15 px font (imgui.cpp)
const ZOOM_STEP = 1.25;  // a matrix's zoom per Ctrl+wheel notch (src/app/widgets/heatmap.cpp)
// The matrices a drag edits (view_inputs in src/app/views/panel_pipeline_inputs.cpp), unless
// layout() says.
const EDITABLE_GRIDS = new Set(["x", "q", "k", "v"]);

export function installTouch({ canvas, call, getJson, isReady }) {
  // Synthetic mouse events and zoom steps go out one drawn frame apart: Dear ImGui only
  // presses a tab or an overlapping button that was already under the mouse in the previous
  // frame. A move still waiting takes the place of the one before it.
  const queue = [];
  let pumping = false, waitingMove = null;
  const pump = () => {
    const next = queue.shift();
    if (!next) {
      pumping = false;
      return;
    }
    next();
    requestAnimationFrame(() => requestAnimationFrame(pump));
  };
  const later = (fn) => {
    waitingMove = null;
    queue.push(fn);
    if (!pumping) {
      pumping = true;
      pump();
    }
  };
  const mouse = (type, p, buttons) => {
    if (type === "mousemove" && waitingMove && !waitingMove.sent && waitingMove.buttons === buttons) {
      waitingMove.p = p;
      return;
    }
    const entry = { type, p, buttons, sent: false };
    later(() => {
      entry.sent = true;
      canvas.dispatchEvent(new MouseEvent(entry.type, { bubbles: true, cancelable: true, ...entry.p,
                                                        button: 0, buttons: entry.buttons }));
    });
    if (type === "mousemove") waitingMove = entry;
  };
  const wheel = (dx, dy) => {
    const clamp = (v) => Math.max(-10, Math.min(10, v));
    if (dx || dy) call("ap_wheel", null, ["number", "number"], [clamp(dx), clamp(dy)]);
  };
  // Ctrl held for the frame of one wheel notch: pressed and let go at once, the app holds it
  // down for that frame (src/app/platform/main.cpp, hold_quick_keys). GLFW reads keyCode, which a made-up
  // event has only when given.
  const control = (type) => {
    const e = new KeyboardEvent(type, { key: "Control", code: "ControlLeft", ctrlKey: type === "keydown",
                                        bubbles: true, cancelable: true });
    Object.defineProperty(e, "keyCode", { value: 17 });
    Object.defineProperty(e, "which", { value: 17 });
    window.dispatchEvent(e);
  };
  const zoom = (p, notch) => {
    mouse("mousemove", p, 0);  // the matrix is under the mouse the frame before
    later(() => {
      control("keydown");
      wheel(0, notch);
      control("keyup");
    });
  };
  const point = (t) => ({ clientX: t.clientX, clientY: t.clientY, screenX: t.screenX, screenY: t.screenY });
  // After a scroll or two fingers the mouse leaves the canvas: no tooltip stays from where the
  // fingers were (a tap leaves it where it pressed: that is how a finger hovers a cell).
  const away = () => mouse("mousemove", { clientX: -100, clientY: -100, screenX: -100, screenY: -100 }, 0);
  const frames = () => getJson("ap_stats").frames;
  // What the app drew in its last frame: the matrices (layout()) and the controls (items(); the
  // first call starts the record, which then answers from the next frames on).
  const inside = (p, x0, y0, x1, y1) => p.clientX >= x0 && p.clientX < x1 && p.clientY >= y0 && p.clientY < y1;
  const dragsMatrix = (p) => {
    const now = frames();
    for (const [id, g] of Object.entries(getJson("ap_layout"))) {
      if (g.frame !== now || g.hidden || !inside(p, g.x0, g.y0, g.x1, g.y1)) continue;
      const moves = g.rows * g.cell > g.y1 - g.y0 + 1 || g.cols * g.cell_w > g.x1 - g.x0 + 1;
      return (g.editable ?? EDITABLE_GRIDS.has(id)) || moves;
    }
    return false;
  };
  const controlAt = (list, p) => list.some((i) => !i.text && inside(p, i.x0, i.y0, i.x1, i.y1) &&
                                                  inside(p, ...i.clip));
  const places = (list) => list.map((i) => `${i.id}@${Math.round(i.x0)},${Math.round(i.y0)}`).join("|");

  let gesture = null;  // the touch going on: {mode: "tap", "drag", "scroll", "two" or "rest", ...}
  let fling = 0;
  const stopFling = () => {
    cancelAnimationFrame(fling);
    fling = 0;
  };
  // A flick: the panel scrolls on at the finger's last speed (px/ms), slowing down.
  const flingFrom = (samples) => {
    const now = performance.now();
    const recent = samples.filter((s) => now - s.t < 100);
    const first = recent[0], last = recent[recent.length - 1];
    let speed = recent.length < 2 || now - last.t > 50 ? 0 : (last.y - first.y) / Math.max(1, last.t - first.t);
    if (Math.abs(speed) < 0.3) {
      away();
      return;
    }
    let before = now;
    const step = (t) => {
      const dt = Math.min(50, t - before);
      before = t;
      speed *= 0.996 ** dt;
      if (Math.abs(speed) < 0.05) {
        fling = 0;
        away();
        return;
      }
      wheel(0, (speed * dt) / PX_PER_NOTCH);
      fling = requestAnimationFrame(step);
    };
    fling = requestAnimationFrame(step);
  };

  // One finger.
  const begin = (t) => {
    const p = point(t);
    gesture = { mode: "tap", finger: t.identifier, start: p, last: p, controls: getJson("ap_items"),
                samples: [{ t: performance.now(), y: p.clientY }] };
    mouse("mousemove", p, 0);
  };
  const drag = (g, p) => {  // pressed where the finger came down, moved to where it is
    g.mode = "drag";
    mouse("mousedown", g.start, 1);
    mouse("mousemove", p, 1);
  };
  const move = (t) => {
    const g = gesture, p = point(t);
    const dx = p.clientX - g.start.clientX, dy = p.clientY - g.start.clientY;
    g.samples.push({ t: performance.now(), y: p.clientY });
    if (g.samples.length > 16) g.samples.shift();
    if (g.mode === "tap") {
      if (Math.hypot(dx, dy) < TOUCH_SLOP) return;
      if (Math.abs(dx) > Math.abs(dy) || dragsMatrix(g.start)) {
        drag(g, p);
      } else {
        Object.assign(g, { mode: "scroll", since: frames(), scrolled: false, before: places(g.controls),
                           onControl: controlAt(g.controls, g.start) });
      }
    } else if (g.mode === "drag") {
      mouse("mousemove", p, 1);
    }
    if (g.mode === "scroll") {
      wheel(0, (p.clientY - g.last.clientY) / PX_PER_NOTCH);
      // Did anything scroll? Nothing after a few frames, and no control under the finger: a drag.
      if (!g.scrolled && frames() >= g.since + 3) {
        g.scrolled = places(getJson("ap_items")) !== g.before;
        if (!g.scrolled && !g.onControl) drag(g, p);
      }
    }
    g.last = p;
  };
  const end = (cancelled) => {
    const g = gesture;
    if (g.mode === "tap" && !cancelled) {
      mouse("mousedown", g.start, 1);
      mouse("mouseup", g.start, 0);
    } else if (g.mode === "drag") {
      mouse("mouseup", g.last, 0);
    } else if (g.mode === "scroll") {
      if (cancelled) away();
      else flingFrom(g.samples);
    }
  };

  // Two fingers: a pinch or a pan, once they have moved enough to tell.
  const pair = (touches) => {
    const [a, b] = touches;
    return {
      centre: { clientX: (a.clientX + b.clientX) / 2, clientY: (a.clientY + b.clientY) / 2,
                screenX: (a.screenX + b.screenX) / 2, screenY: (a.screenY + b.screenY) / 2 },
      spread: Math.max(1, Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY)),
    };
  };
  const beginTwo = (touches) => {
    if (gesture?.mode === "drag") mouse("mouseup", gesture.last, 0);
    const { centre, spread } = pair(touches);
    gesture = { mode: "two", kind: null, start: centre, last: centre, spread, zoomed: spread };
    mouse("mousemove", centre, 0);
  };
  const moveTwo = (touches) => {
    const g = gesture, { centre, spread } = pair(touches);
    if (!g.kind) {
      if (Math.abs(Math.log(spread / g.spread)) > Math.log(1.15)) g.kind = "pinch";
      else if (Math.hypot(centre.clientX - g.start.clientX, centre.clientY - g.start.clientY) > 2 * TOUCH_SLOP) g.kind = "pan";
    }
    if (g.kind === "pinch") {
      for (; spread >= g.zoomed * ZOOM_STEP; g.zoomed *= ZOOM_STEP) zoom(centre, 1);
      for (; spread <= g.zoomed / ZOOM_STEP; g.zoomed /= ZOOM_STEP) zoom(centre, -1);
    } else if (g.kind === "pan") {
      wheel((centre.clientX - g.last.clientX) / PX_PER_NOTCH, (centre.clientY - g.last.clientY) / PX_PER_NOTCH);
    }
    g.last = centre;
  };

  const handler = (e) => {
    if (e.target !== canvas) return;
    e.stopPropagation(); // keep the touch from Emscripten's own handlers
    e.preventDefault();
    if (!isReady()) return;
    if (e.type === "touchstart") {
      canvas.focus({ preventScroll: true });
      stopFling();
      if (e.touches.length >= 2) beginTwo(e.touches);
      else if (!gesture) begin(e.touches[0]);
    } else if (e.type === "touchmove") {
      if (gesture?.mode === "two" && e.touches.length >= 2) moveTwo(e.touches);
      else if (gesture && gesture.mode !== "two" && gesture.mode !== "rest") {
        move([...e.touches].find((t) => t.identifier === gesture.finger) ?? e.touches[0]);
      }
    } else if (gesture) {  // touchend, touchcancel
      if (e.touches.length === 0) {
        if (gesture.mode !== "two" && gesture.mode !== "rest") end(e.type === "touchcancel");
        else away();
        gesture = null;
      } else if (gesture.mode === "two" || gesture.mode === "rest") {
        // One finger of two lifted: the rest of the touch does nothing; a third of three, a new pair.
        if (e.touches.length >= 2) beginTwo(e.touches);
        else gesture.mode = "rest";
      }
    }
  };
  for (const type of ["touchstart", "touchmove", "touchend", "touchcancel"]) {
    window.addEventListener(type, handler, { capture: true, passive: false });
  }
}

// The wheel, in notches: Emscripten 3.1.6's GLFW hands the app raw pixel deltas with the
// sign flipped, so the page converts (100 px, 3 lines or 1 page per notch) and calls the app.
export function installWheel({ canvas, call, running }) {
  const perNotch = [100, 3, 1]; // by WheelEvent.deltaMode: pixels, lines, pages
  window.addEventListener("wheel", (e) => {
    if (e.target !== canvas) return;
    e.stopPropagation();
    e.preventDefault();
    if (!running()) return;
    const unit = perNotch[e.deltaMode] ?? 100;
    const clamp = (v) => Math.max(-10, Math.min(10, v));
    call("ap_wheel", null, ["number", "number"], [clamp(-e.deltaX / unit), clamp(-e.deltaY / unit)]);
  }, { capture: true, passive: false });
}
