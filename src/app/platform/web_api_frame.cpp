// The browser bridge's calls on the last drawn frame: stats, heatmap layout and PNGs, items.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/platform/platform.h"
#include "app/text/explain.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"
#include "core/parallel.h"

using ui::g_runtime;

extern "C" {

// Asks for a PNG of heatmap `id` (a key of ap_layout) after the next frame; it arrives through
// Module.apExport. Returns 0 when that heatmap is not on screen.
EMSCRIPTEN_KEEPALIVE int ap_export_png(const char* id) {
  const bool ok = g_runtime.app.heatmaps.request_png(id ? id : "");
  ui::request_wake();
  return ok ? 1 : 0;
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

// ap_layout after laying the UI out `frames` times (1 to 8) at once, without drawing it
// (ui::layout_frames).
EMSCRIPTEN_KEEPALIVE const char* ap_layout_now(int frames) {
  ui::layout_frames(std::clamp(frames, 1, 8));
  return ap_layout();
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
