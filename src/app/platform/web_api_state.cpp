// The browser bridge's calls on the app state (ui::api's, and the page's notices and toasts).
#include <emscripten/emscripten.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/model/api.h"
#include "app/platform/platform.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

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

EMSCRIPTEN_KEEPALIVE int ap_set_layer(int layer) {
  ui::request_wake();
  return ui::api::set_layer(g_runtime.app.state, layer);
}

EMSCRIPTEN_KEEPALIVE void ap_set_language(const char* code) {
  ui::api::set_language(g_runtime.app.state, code ? code : "");
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE int ap_load_preset(const char* name) {
  ui::request_wake();
  return ui::api::load_preset(g_runtime.app.state, name ? name : "") ? 1 : 0;
}

// The lessons a course walks, comma-separated ("" all of them): "" or the error.
EMSCRIPTEN_KEEPALIVE const char* ap_set_path(const char* names) {
  static std::string out;
  out = ui::api::set_path(g_runtime.app.state, names ? names : "");
  ui::request_wake();
  return out.c_str();
}

// A lesson of a course's own (course/NAME.json in a package): "" or the error.
EMSCRIPTEN_KEEPALIVE const char* ap_add_lesson(const char* name, const char* json) {
  static std::string out;
  out = ui::api::add_lesson(g_runtime.app.state, name ? name : "", json ? json : "");
  return out.c_str();
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

EMSCRIPTEN_KEEPALIVE void ap_show_notice(const char* text) {
  // A first line of the texts below is shown in the UI's language; the rest (an error, in
  // English as every error is) as it is. A whole paragraph that is one of these texts is
  // shown in the UI's language as a whole.
  static const char* const kKeys[] = {
      N_("This file could not be opened."),
      N_("Some settings in the address were ignored:"),
      N_("Some progress kept in this browser could not be read and was set aside."),
      N_("This browser would not keep your progress.\nWhat you answer now lasts until this page "
         "is closed."),
      N_("This browser would not keep your progress.\nWhat you answer now is kept in the page's "
         "address: bookmark it to come back."),
      N_("This page was opened as a course, but no course platform answered: your answers are "
         "kept in this browser only."),
      N_("The course platform did not open a record of this session: what you answer here is not "
         "in its gradebook, and lasts until this page is closed."),
      N_("The course platform stopped taking this page's reports: what you answer now may not "
         "reach its gradebook.")};
  // Each paragraph (notices put together are separated by a blank line) on its own.
  const std::string all = text ? text : "";
  std::string notice;
  for (size_t at = 0; at <= all.size();) {
    const size_t end = std::min(all.find("\n\n", at), all.size());
    std::string part = all.substr(at, end - at);
    const std::string first = part.substr(0, part.find('\n'));
    bool whole = false;
    for (const char* known : kKeys)
      if (part == known) {
        part = ui::T(known);
        whole = true;
      }
    for (const char* known : kKeys)
      if (!whole && first == known) part.replace(0, first.size(), ui::T(known));
    notice += (notice.empty() ? "" : "\n\n") + part;
    at = end + 2;
  }
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

// Export → "Course package…" (web/js/coursepack.js, the page only): the formats, then a
// package started with its spec, the site's files added one at a time (`size` bytes at `data`
// in the heap, and the file's gzip copy, `gzip_size` bytes at `gzip`, 0 when it has none; "" or
// the problem, which ends it), and the archive made by ap_package_finish ("" or the problem),
// whose bytes stay at ap_package_data() until ap_package_free().
namespace {
ui::api::PackageJob g_package_job;
std::string g_package_zip;
}  // namespace

EMSCRIPTEN_KEEPALIVE const char* ap_package_formats() {
  static const std::string out = ui::api::package_formats();
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_package_start(const char* spec) {
  static std::string out;
  std::string().swap(g_package_zip);
  out = ui::api::package_start(g_runtime.app.state, &g_package_job, spec ? spec : "");
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_package_add(const char* name, const char* data, int size,
                                                const char* gzip, int gzip_size) {
  static std::string out;
  out = ui::api::package_add(
      &g_package_job, name ? name : "",
      std::string(data ? data : "", data && size > 0 ? static_cast<size_t>(size) : 0),
      std::string(gzip ? gzip : "", gzip && gzip_size > 0 ? static_cast<size_t>(gzip_size) : 0));
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* ap_package_finish() {
  static std::string out;
  scenario::ZipResult zip = ui::api::package_finish(&g_package_job);
  out = zip.error;
  g_package_zip = std::move(zip.bytes);
  return out.c_str();
}

EMSCRIPTEN_KEEPALIVE double ap_package_data() {
  return static_cast<double>(reinterpret_cast<uintptr_t>(g_package_zip.data()));
}

EMSCRIPTEN_KEEPALIVE double ap_package_size() {
  return static_cast<double>(g_package_zip.size());
}

EMSCRIPTEN_KEEPALIVE void ap_package_free() {
  g_package_job = ui::api::PackageJob{};
  std::string().swap(g_package_zip);
}

// ui::api::limits(): what the page checks its inputs against before copying them in.
EMSCRIPTEN_KEEPALIVE const char* ap_limits() {
  static const std::string out = ui::api::limits();
  return out.c_str();
}

}  // extern "C"
