// The browser bridge: C entry points behind window.attentionPlayground (web/app.js), events
// forwarded to JavaScript, and the fonts the page loads on demand.
//
// Strings returned to JavaScript stay valid until the next call of the same function.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app/api.h"
#include "app/app.h"
#include "app/i18n.h"
#include "app/item_log.h"
#include "app/platform.h"
#include "core/parallel.h"
#include "imgui_impl_glfw.h"
#include "scenario/export.h"
#include "scenario/link.h"

namespace ui {

std::string load_kept_font_atlas(const std::string& name) {
  return read_file("/atlas/" + name + ".bin");
}

void keep_font_atlas(const std::string& name, const std::string& blob) {
  EM_ASM(
      {
        if (Module.apKeepAtlas) Module.apKeepAtlas(UTF8ToString($0), HEAPU8.slice($1, $1 + $2));
      },
      name.c_str(), blob.data(), blob.size());
}

// The page puts a kept atlas with the Chinese glyphs in /atlas/ if it has one, else fetches
// cjk.ttf into /fonts/, and then calls ap_fonts_changed.
void request_cjk_font() {
  const std::string name = font_atlas_name(g_runtime.dpr, true);
  EM_ASM(
      {
        if (Module.apNeedCjkFont) Module.apNeedCjkFont(UTF8ToString($0));
      },
      name.c_str());
}

void on_ready() {
  // app.js answers "open_file" with its picker, and "export_file|…" with exportFile.
  g_runtime.app.state.in_page = true;
  EM_ASM({
    if (Module.apReady) Module.apReady();
  });
}

void after_frame() {
  AppState& s = g_runtime.app.state;
  if (g_runtime.frame_count == 0) {
    EM_ASM({
      if (Module.apFirstFrame) Module.apFirstFrame();
    });
  }
  for (const std::string& e : s.events) {
    // A language switch needs the Chinese glyphs: the page fetches them, then calls back.
    if (e == "language") {
      if (s.lang == Lang::kZh && !g_runtime.cjk_loaded) {
        request_cjk_font();
      } else {
        g_runtime.fonts_dirty = true;
      }
      continue;
    }
    EM_ASM(
        {
          if (Module.apEvent) Module.apEvent(UTF8ToString($0));
        },
        e.c_str());
  }
  s.events.clear();
}

void deliver_export(const std::string& filename, const std::string& mime, const std::string& data,
                    bool copy) {
  EM_ASM(
      {
        if (Module.apExport)
          Module.apExport(UTF8ToString($0), UTF8ToString($1), HEAPU8.slice($2, $2 + $3), !!$4);
      },
      filename.c_str(), mime.c_str(), data.data(), data.size(), copy ? 1 : 0);
}

void report_fatal(const std::string& message) {
  EM_ASM(
      {
        if (Module.apFatal) Module.apFatal(UTF8ToString($0));
      },
      message.c_str());
}

}  // namespace ui

using ui::g_runtime;

namespace ui {
namespace {

// The app state with any recompute still running in parts finished (AppState::slice_ms): for
// the calls that read or change what was computed. The calls that replace the scenario, and
// those about the view alone, do not wait for it; a lean trace's focused head is finished
// only by the calls that read it (AppState::head_trace).
AppState& settled() {
  AppState& s = g_runtime.app.state;
  if (s.computing()) s.recompute_if_needed();
  return s;
}

}  // namespace
}  // namespace ui

extern "C" {

// The calls of window.attentionPlayground on the app state (ui::api, GL-free, which the
// native tests and the fuzzer call too). Returned strings stay valid until the next call of
// the same function.

EMSCRIPTEN_KEEPALIVE const char* ap_get_scenario() {
  static std::string out;
  out = ui::api::get_scenario(ui::settled());
  return out.c_str();
}

// Returns "" when the scenario was applied, otherwise "<field>: <problem>" (state unchanged).
EMSCRIPTEN_KEEPALIVE const char* ap_set_scenario(const char* json) {
  static std::string out;
  out = ui::api::set_scenario(g_runtime.app.state, json ? json : "");
  ui::request_wake();
  return out.c_str();
}

// The same with `count` typed arrays: table holds (pointer, length) pairs of floats in the
// WASM heap, which the JSON's {"shape", "buffer": k} fields name.
EMSCRIPTEN_KEEPALIVE const char* ap_set_scenario_binary(const char* json, const int32_t* table,
                                                        int count) {
  static std::string out;
  std::vector<scenario::FloatArray> arrays;
  for (int k = 0; k < count; ++k)
    arrays.push_back({reinterpret_cast<const float*>(static_cast<uintptr_t>(table[2 * k])),
                      static_cast<size_t>(table[2 * k + 1])});
  out = ui::api::set_scenario(g_runtime.app.state, json ? json : "", arrays);
  ui::request_wake();
  return out.c_str();
}

// loadArrays and a dropped .npy/.npz file: `size` bytes at `data` in the WASM heap, the file
// named `name`. "" when the new scenario runs, else the error (api::open_arrays).
EMSCRIPTEN_KEEPALIVE const char* ap_open_arrays(const char* data, int size, const char* name) {
  static std::string out;
  out = ui::api::open_arrays(g_runtime.app.state,
                             std::string(data ? data : "", data ? static_cast<size_t>(size) : 0),
                             name ? name : "");
  ui::request_wake();
  return out.c_str();
}

// getTrace({typed: true}): the sizes, then where one head of one item is ("p0,p1,...": its
// matrices in attn::kHeadMatrixNames's order, which limits() lists; "" when out of range), and
// an item's output.
EMSCRIPTEN_KEEPALIVE const char* ap_trace_shape() {
  static std::string out;
  out = ui::api::trace_shape(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_trace_item(int head, int batch) {
  static std::string out;
  const ui::api::TraceItem p = ui::api::trace_item(ui::settled(), head, batch);
  out.clear();
  if (!p[0]) return out.c_str();
  for (size_t i = 0; i < p.size(); ++i)
    out += (i ? "," : "") + std::to_string(reinterpret_cast<uintptr_t>(p[i]));
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE double ap_trace_output(int batch) {
  return static_cast<double>(
      reinterpret_cast<uintptr_t>(ui::api::trace_output(ui::settled(), batch)));
}

EMSCRIPTEN_KEEPALIVE const char* ap_get_trace() {
  static std::string out;
  out = ui::api::get_trace(ui::settled());
  return out.c_str();
}

// What a head or batch index may be: {"heads": H, "batch": B}.
EMSCRIPTEN_KEEPALIVE const char* ap_counts() {
  static std::string out;
  out = ui::api::counts(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_get_view() {
  static std::string out;
  out = ui::api::view(ui::settled());
  return out.c_str();
}

// What the canvas shows, as text (api::accessible), with the arithmetic of the cell under
// the mouse.
EMSCRIPTEN_KEEPALIVE const char* ap_accessible() {
  static std::string out;
  ui::AppState& s = ui::settled();
  out = ui::api::accessible(s, s.hover);
  return out.c_str();
}

// The same, with the arithmetic of cell (row, col) of the step's matrix (the table view's
// cell cursor).
EMSCRIPTEN_KEEPALIVE const char* ap_accessible_cell(int row, int col) {
  static std::string out;
  ui::AppState& s = ui::settled();
  const int head = std::max(0, s.head), batch = std::max(0, s.batch);
  out = ui::api::accessible(s, ui::CellRef{ui::step_matrix(s.step), head, batch, row, col});
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE int ap_set_step(int step) {
  ui::request_wake();
  return ui::api::set_step(g_runtime.app.state, step);
}

EMSCRIPTEN_KEEPALIVE int ap_focus_head(int head) {
  ui::request_wake();
  return ui::api::focus_head(g_runtime.app.state, head);
}

EMSCRIPTEN_KEEPALIVE int ap_set_batch(int batch) {
  ui::request_wake();
  return ui::api::set_batch(g_runtime.app.state, batch);
}

EMSCRIPTEN_KEEPALIVE void ap_set_language(const char* code) {
  ui::api::set_language(g_runtime.app.state, code ? code : "");
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE int ap_load_preset(const char* name) {
  ui::request_wake();
  return ui::api::load_preset(g_runtime.app.state, name ? name : "") ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE const char* ap_get_progress() {
  static std::string out;
  out = ui::api::progress(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_set_progress(const char* json) {
  static std::string out;
  out = ui::api::set_progress(ui::settled(), json ? json : "");
  ui::request_wake();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_get_quiz() {
  static std::string out;
  out = ui::api::quiz(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_answer_quiz(int question, const char* answer) {
  static std::string out;
  out = ui::api::answer_quiz(ui::settled(), question, answer ? answer : "");
  ui::request_wake();
  return out.c_str();
}

// Training: its state, a toy task, and steps taken now.
EMSCRIPTEN_KEEPALIVE const char* ap_training() {
  static std::string out;
  out = ui::api::training(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_load_task(const char* name, double seed) {
  static std::string out;
  out = ui::api::load_task(g_runtime.app.state, name ? name : "", seed);
  ui::request_wake();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_set_training(double lr, const char* optimizer,
                                                 const char* speed) {
  static std::string out;
  out = ui::api::set_training(ui::settled(), lr, optimizer ? optimizer : "", speed ? speed : "");
  ui::request_wake();
  return out.c_str();
}

// api.train's slices: at most `steps` steps for at most budget_ms, refused unless the training
// has taken `expect_step` steps so far (-1: any), so that a change between two slices (a new
// task, Reset, Play) ends the call instead of training something else.
// {"taken", "step", "error"}.
EMSCRIPTEN_KEEPALIVE const char* ap_train_slice(int steps, double budget_ms, double expect_step) {
  static std::string out;
  out = ui::api::train_slice(ui::settled(), steps, budget_ms, expect_step);
  ui::request_wake();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_train_steps(int steps) {
  static std::string out;
  out = ui::api::train_steps(ui::settled(), steps);
  ui::request_wake();
  return out.c_str();
}

// In the threaded build the heap can grow on one of the core's threads, and emscripten renews
// its views of it (Module.HEAPU8, HEAPF32, …) only when its own code next reads them (its
// GROWABLE_HEAP checks, which this EM_ASM goes through too). web/app.js calls this before it
// reads or writes those views itself.
EMSCRIPTEN_KEEPALIVE void ap_heap_views() {
  EM_ASM({ Module.apHeapBytes = HEAPU8.length; });
}

// Before the page is left: the core goes on one thread and the workers of the others end. In
// Firefox (153) a page whose thread workers are still alive, with a service worker in charge of
// it, cannot be left on a cross-origin isolated site: reloads and links are aborted
// (NS_ERROR_INTERCEPTION_FAILED). Should the page stay after all, it runs on one thread. No
// core call is under way: the page's event handlers run between them.
EMSCRIPTEN_KEEPALIVE void ap_end_threads() {
  if (attn::threads() <= 1) return;
  attn::set_threads(1);
#ifdef __EMSCRIPTEN_PTHREADS__
  EM_ASM({ PThread.terminateAllThreads(); });
#endif
}

// The table view's settings (api::controls) and a change to one of them.
EMSCRIPTEN_KEEPALIVE const char* ap_controls() {
  static std::string out;
  out = ui::api::controls(ui::settled());
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_set_control(const char* id, const char* value) {
  static std::string out;
  out = ui::api::set_control(ui::settled(), id ? id : "", value ? value : "");
  ui::deliver_exports(g_runtime.app.state);  // while the learner's click still counts (clipboard)
  ui::request_wake();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_presets() {
  static std::string out;
  out = ui::api::presets(g_runtime.app.state);
  return out.c_str();
}

// Comma-separated panel ids to show; the others are hidden.
EMSCRIPTEN_KEEPALIVE void ap_set_panels(const char* csv) {
  ui::api::set_panels(g_runtime.app.state, csv ? csv : "");
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE const char* ap_hide_controls(const char* csv) {
  static std::string out;
  out = ui::api::hide_controls(g_runtime.app.state, csv ? csv : "");
  ui::request_wake();
  return out.c_str();
}

// 1 on a touch screen: larger controls (ui::set_touch_targets).
EMSCRIPTEN_KEEPALIVE void ap_set_touch(int touch) {
  ui::set_touch_targets(touch != 0);
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE void ap_set_embed(int embed) {
  g_runtime.app.state.embed = embed != 0;
  ui::request_wake();
}

// The values written in the cells (1) or only the colours (0: numbers=off in the address).
EMSCRIPTEN_KEEPALIVE void ap_set_numbers(int on) {
  g_runtime.app.state.show_numbers = on != 0;
  ui::request_wake();
}

// Step changes animate (1) or not (0: the page prefers reduced motion, or motion=off).
EMSCRIPTEN_KEEPALIVE void ap_set_animate(int animate) {
  g_runtime.app.state.animate = animate != 0;
  if (!animate) g_runtime.app.state.transition = ui::Transition{};
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE void ap_show_notice(const char* text) {
  // A first line of the texts below is shown in the UI's language; the rest (an error, in
  // English as every error is) as it is.
  // A whole notice that is one of these texts is shown in the UI's language as a whole.
  static const char* const kKeys[] = {
      N_("This file could not be opened."), N_("Some settings in the address were ignored:"),
      N_("Some progress kept in this browser could not be read and was set aside."),
      N_("This browser would not keep your progress.\nWhat you answer now lasts until this page "
         "is closed."),
      N_("This browser would not keep your progress.\nWhat you answer now is kept in the page's "
         "address: bookmark it to come back.")};
  std::string notice = text ? text : "";
  const std::string first = notice.substr(0, notice.find('\n'));
  bool whole = false;
  for (const char* known : kKeys)
    if (notice == known) {
      notice = ui::T(known);
      whole = true;
    }
  for (const char* known : kKeys)
    if (!whole && first == known) notice.replace(0, first.size(), ui::T(known));
  g_runtime.app.state.notice = notice;
  ui::request_wake();
}

// The link of the current scenario and view ("v1.<base64url>", without '#'), or "" while the
// scenario being edited does not validate.
EMSCRIPTEN_KEEPALIVE const char* ap_get_link() {
  static std::string out;
  out = ui::api::get_link(ui::settled());
  return out.c_str();
}

// Opens a link (with or without '#'). Returns "" when it was applied, otherwise one line
// naming the part and the problem; the state is then unchanged.
EMSCRIPTEN_KEEPALIVE const char* ap_open_link(const char* fragment) {
  static std::string out;
  out = ui::api::open_link(g_runtime.app.state, fragment ? fragment : "");
  ui::request_wake();
  return out.c_str();
}

// A short confirmation drawn at the bottom of the canvas: the translation of `key` (one of
// the texts below), then `detail` (a file name).
EMSCRIPTEN_KEEPALIVE void ap_toast(const char* key, const char* detail) {
  static const char* const kKeys[] = {N_("Copied to the clipboard:"), N_("Downloaded"),
                                      N_("Opened"), N_("Exporting")};
  ui::AppState& s = ui::settled();
  const std::string k = key ? key : "";
  std::string text = k;
  for (const char* known : kKeys)
    if (k == known) text = ui::T(known);
  s.toast = (text + " " + (detail ? detail : "")).substr(0, 200);
  s.toast_seconds = 3.0;
  ui::request_wake();
}

// Exports for the JavaScript API (ui::make_export): `what` is "trace", "scenario", "numpy",
// "pytorch", or a matrix id of the table (matrices.h); `format` is "csv" or "json" for a
// matrix. Returns {"ok":true,"error":null,"filename","mime","data"} or {"ok":false,"error"}.
EMSCRIPTEN_KEEPALIVE const char* ap_export(const char* what, const char* format, int head,
                                           int batch) {
  static std::string out;
  out = ui::api::export_json(ui::settled(), what ? what : "", format ? format : "", head, batch);
  return out.c_str();
}

// exportFile, a part at a time: ap_export_start answers as api::export_start does, with the
// job's "id"; each ap_export_next(id, numbers) gives the next part (about that many numbers)
// and ap_export_row(id) the row the job has reached (rows + 1 once done; -1 when a newer job
// has replaced it). One job at a time.
namespace {
ui::ExportJob g_export_job;
int g_export_id = 0;
}  // namespace

EMSCRIPTEN_KEEPALIVE const char* ap_export_start(const char* what, const char* format, int head,
                                                 int batch) {
  static std::string out;
  ++g_export_id;
  out = ui::api::export_start(ui::settled(), &g_export_job, what ? what : "", format ? format : "",
                              head, batch);
  if (g_export_job.file.ok()) out.insert(out.size() - 1, ",\"id\":" + std::to_string(g_export_id));
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_export_next(int id, double numbers) {
  static std::string out;
  out = id == g_export_id ? ui::next_export_part(&g_export_job, static_cast<int64_t>(numbers))
                          : std::string();
  if (g_export_job.done()) g_export_job.source.clear();  // its memory back at once
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE double ap_export_row(int id) {
  return id == g_export_id ? static_cast<double>(g_export_job.next_row) : -1.0;
}

// Asks for a PNG of heatmap `id` (a key of ap_layout) after the next frame; it arrives through
// Module.apExport. Returns 0 when that heatmap is not on screen.
EMSCRIPTEN_KEEPALIVE int ap_export_png(const char* id) {
  const bool ok = g_runtime.app.heatmaps.request_png(id ? id : "");
  ui::request_wake();
  return ok ? 1 : 0;
}

// Wheel steps (+1 = one notch up or left), normalised by the page from the DOM event: Emscripten
// 3.1.6's GLFW passes the raw pixel deltas, 100 times too large and with the sign flipped.
EMSCRIPTEN_KEEPALIVE void ap_wheel(double dx, double dy) {
  ImGui_ImplGlfw_ScrollCallback(g_runtime.window, dx, dy);
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE void ap_clear_frame_times() {
  g_runtime.frame_ms.clear();
}

EMSCRIPTEN_KEEPALIVE void ap_wake() {
  ui::request_wake();
}

// The page wrote /fonts/cjk.ttf or a kept atlas: rebuild the atlas with the Chinese glyphs.
EMSCRIPTEN_KEEPALIVE void ap_fonts_changed() {
  g_runtime.fonts_dirty = true;
  ui::request_wake();
}

// ui::api::limits(): what the page checks its inputs against before copying them in.
EMSCRIPTEN_KEEPALIVE const char* ap_limits() {
  static const std::string out = ui::api::limits();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_stats() {
  static std::string out;
  const ui::AppState& s = g_runtime.app.state;
  nlohmann::json j;
  j["revision"] = s.revision;
  j["recompute_ms"] = s.recompute_ms;
  j["frames"] = g_runtime.frame_count;
  j["font_atlas_ms"] = g_runtime.font_atlas_ms;              // the last font atlas build
  j["font_atlas_restored"] = g_runtime.font_atlas_restored;  // ... from a kept blob
  j["font_atlas_cjk"] = g_runtime.cjk_loaded;                // ... with the Chinese glyphs
  j["heap_bytes"] = EM_ASM_DOUBLE({ return HEAPU8.length; });
  j["threads"] = attn::threads();            // the core's (more than 1 only in the threaded build)
  j["worker_tasks"] = attn::worker_tasks();  // tasks its workers took, since the start
  j["error"] = s.error;
  j["warning"] = s.overflow ? ui::overflow_text(*s.overflow, s.problem) : "";
  j["notice"] = s.notice;  // the message box on screen, "" when none
  j["lean"] = s.lean;
  // A recompute running in parts (a large scenario): the part of it done, 0 to 1; else null.
  if (s.computing())
    j["computing"] = s.computing_progress();
  else
    j["computing"] = nullptr;
  j["preferred_height"] = s.preferred_height;    // CSS pixels (the height message)
  j["center_scroll_max"] = s.center_scroll_max;  // 0: the centre panel does not scroll
  // The step change being animated: {from, to, t} (0-based steps, t eased 0…1), or null.
  if (s.transition.active)
    j["transition"] = {{"from", static_cast<int>(s.transition.from)},
                       {"to", static_cast<int>(s.transition.to)},
                       {"t", s.transition.eased()}};
  else
    j["transition"] = nullptr;
  // The hovered cell and the tooltip with its arithmetic (narrow screens), as drawn in the
  // last frame: [x0, y0, x1, y1], or null.
  if (s.hover)
    j["hover_cell"] = {s.hover_cell[0], s.hover_cell[1], s.hover_cell[2], s.hover_cell[3]};
  else
    j["hover_cell"] = nullptr;
  if (s.tooltip_rect[2] > s.tooltip_rect[0])
    j["tooltip"] = {s.tooltip_rect[0], s.tooltip_rect[1], s.tooltip_rect[2], s.tooltip_rect[3]};
  else
    j["tooltip"] = nullptr;
  // CPU time per drawn frame over the last frames (ImGui, our panels, GL calls).
  std::vector<float> t = g_runtime.frame_ms;
  std::sort(t.begin(), t.end());
  j["frame_samples"] = t.size();
  j["frame_ms_median"] = t.empty() ? 0.0f : t[t.size() / 2];
  j["frame_ms_p95"] = t.empty() ? 0.0f : t[std::min(t.size() - 1, t.size() * 95 / 100)];
  out = j.dump();
  return out.c_str();
}

// Where each heatmap of the last drawn frame is, in CSS pixels, by id: its grid of cells
// (x0..y1) and the whole widget with labels and legend (wx0..wy1). For tests and exports.
EMSCRIPTEN_KEEPALIVE const char* ap_layout() {
  static std::string out;
  nlohmann::json j = nlohmann::json::object();
  int latest = 0;
  for (const auto& entry : g_runtime.app.heatmaps.last_grids())
    latest = std::max(latest, entry.second.frame);
  for (const auto& [id, g] : g_runtime.app.heatmaps.last_grids()) {
    if (g.frame != latest) continue;
    j[id] = {{"x0", g.x0},
             {"y0", g.y0},
             {"x1", g.x1},
             {"y1", g.y1},
             {"rows", g.rows},
             {"cols", g.cols},
             {"first_row", g.first_row},
             {"first_col", g.first_col},
             {"cell", g.cell},
             {"cell_w", g.cell_w},
             {"numbers", g.number_px},
             {"number_w", g.number_w},
             {"hidden", g.hidden},
             {"lo", g.lo},
             {"hi", g.hi},
             {"frame", g.frame},
             {"wx0", g.wx0},
             {"wy0", g.wy0},
             {"wx1", g.wx1},
             {"wy1", g.wy1}};
    nlohmann::json boxes = nlohmann::json::array();
    for (const ui::GridInfo::Box& b : g.boxes) boxes.push_back({b.x0, b.y0, b.x1, b.y1, b.text});
    j[id]["boxes"] = std::move(boxes);
  }
  out = j.dump();
  return out.c_str();
}

// Every labelled control and marked text of the last drawn frame (item_log.h), in CSS pixels:
// [{label, id, window, x0, y0, x1, y1, clip: [x0, y0, x1, y1], checked?, open?, text?}]. The
// first call turns the log on and draws two frames, so ask again after them.
EMSCRIPTEN_KEEPALIVE const char* ap_items() {
  static std::string out;
  if (!ui::item_log_enabled()) {
    ui::item_log_enable(true);
    g_runtime.busy_frames = std::max(g_runtime.busy_frames, 3);
  }
  nlohmann::json j = nlohmann::json::array();
  for (const ui::ItemBox& b : ui::item_log_last()) {
    nlohmann::json e = {{"label", b.label},   {"id", b.id},
                        {"window", b.window}, {"x0", b.x0},
                        {"y0", b.y0},         {"x1", b.x1},
                        {"y1", b.y1},         {"clip", {b.cx0, b.cy0, b.cx1, b.cy1}}};
    if (b.checkable) e["checked"] = b.checked;
    if (b.openable) e["open"] = b.open;
    if (b.text) e["text"] = true;
    if (b.tab) e["tab"] = true;
    j.push_back(std::move(e));
  }
  out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out.c_str();
}

}  // extern "C"
