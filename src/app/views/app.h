// The playground app: one AppState, the heatmap renderer, and the panels that draw it. The
// same code runs in the browser (WebGL2) and natively (OpenGL 3.3); main.cpp owns the loop.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/model/app_state.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/widgets/font_cache.h"
#include "app/widgets/heatmap.h"
#include "imgui.h"

namespace ui {

// The fonts main.cpp loaded (add_app_fonts): UI, monospaced for formulas and numbers, titles.
extern Fonts g_fonts;

// Light theme tuned for projectors and course pages.
void apply_style(float scale);
// Touch screens (the page says so, from "(pointer: coarse)"): every control at least 24 × 24
// CSS pixels (WCAG 2.5.8), small buttons included; the style is applied again.
void set_touch_targets(bool touch);
bool touch_targets();
// ImGui::SmallButton, or a full-height button on a touch screen.
bool small_button(const char* label);

class App {
 public:
  // A large scenario computes in parts of kComputeSliceMs, one a frame, while the page shows
  // how far it is (AppState::slice_ms).
  static constexpr double kComputeSliceMs = 30.0;
  attn::Status init() {
    state.slice_ms = kComputeSliceMs;
    return heatmaps.renderer.init();
  }
  void shutdown() { heatmaps.renderer.shutdown(); }
  // Builds this frame's UI over the whole display (ImGui::NewFrame has been called).
  void frame();
  // True while something animates (play, a step's transition, a toast), waits for a frame (a
  // PNG) or computes in parts, so the loop keeps drawing without input.
  bool animating() const {
    return state.playing || state.decoder_playing || state.decoder_training.playing ||
           state.training.playing || state.transition.active || !state.toast.empty() ||
           heatmaps.capture_pending() || state.computing() || state.redraw > 0;
  }

  AppState state;
  Heatmaps heatmaps;
};

// Panels, one file each. Each draws inside the current window/child.
void draw_top_bar(AppState& s);
void draw_controls(AppState& s);
void draw_pipeline(AppState& s, Heatmaps& h);
void draw_details(AppState& s);
void draw_heads(AppState& s, Heatmaps& h);
void draw_layers(AppState& s, Heatmaps& h);   // a stack's layers, heads and stream
void draw_picture(AppState& s, Heatmaps& h);  // an image scenario's weights over its picture
// A regression's points, predictions and the chosen query's weights (AppState::has_curve).
void draw_curve(AppState& s, Heatmaps& h);
// A seq2seq model's decoder writing one word at a time, its alignment growing a row per word.
void draw_decoder(AppState& s, Heatmaps& h);
// A hierarchy scenario's two levels for the chosen question: each sentence's weight, then its
// words shaded by their word weights (attention over attention).
void draw_hierarchy(AppState& s, Heatmaps& h);
void draw_positional(AppState& s, Heatmaps& h);
void draw_plane(AppState& s, Heatmaps& h);
void draw_lesson(AppState& s);
// The lesson's questions on the current step (panel_lesson.cpp), drawn in the step's column.
void draw_questions(AppState& s);
// The glossary's words for the current step, each opening its entry (panel_lesson.cpp).
void draw_step_words(AppState& s);

// A matrix of the table (matrices.h) as a heatmap: its values, labels, palette, range and mask
// come from the table; the hover is recorded for "behind this cell"; an export chosen in its
// menu is made (make_export) and handed to the platform.
struct MatrixDraw {
  const char* id = "";                   // the widget id (ap_layout reports it)
  const char* caption = nullptr;         // drawn above it (in the UI font), if any
  ImVec2 size = ImVec2(0, 0);            // 0: the remaining content region
  const attn::Matrix* values = nullptr;  // instead of the table's (the raw inputs)
  ValueRange values_range;  // the range `values` are coloured over (not fixed: their own)
  // Drawn instead of the table's values but on the table's scale, with its sizes and exports:
  // a step's transition (transition.h). `masked = false` leaves the hatch off meanwhile.
  const attn::Matrix* shown = nullptr;
  bool masked = true;
  bool editable = false;  // HeatmapResult::edited reports the change
  bool legend = true;
  bool axis_names = false;  // "queries ↓", "keys →" in the corner
  float max_cell_px = 56.0f;
  float max_aspect = 1.0f;    // cells up to this many times wider than tall
  bool keep_numbers = false;  // the step's matrix: its numbers always show (it may scroll)
  int highlight_row = -1, highlight_col = -1;
  // Drawn transposed (the step view with AppState::transpose): DrawnMatrix. Everything else
  // here, and the HeatmapResult returned, stays in the matrix's own rows and columns.
  bool transpose = false;
};
HeatmapResult draw_matrix(AppState& s, Heatmaps& h, MatrixKind k, int head, int batch,
                          const MatrixDraw& d);
// A heatmap of `spec.values` labelled by `spec.row_labels` and `spec.col_labels` (a view's own
// matrix, not one of the trace's steps): draws it and answers its menu's "Copy as CSV" and
// "Copy as JSON" with those numbers and labels (file stem: `export_name`, else `id`).
HeatmapResult draw_heatmap(AppState& s, Heatmaps& h, const HeatmapSpec& spec);
// The cell under the mouse this frame, and its rectangle on screen (tooltips keep off it).
void set_hover(AppState& s, const CellRef& c, const HeatmapResult& r);
// Hands an export to the learner (deliver_export), or shows why it cannot be made.
void deliver(AppState& s, const Export& e, bool copy);
// Delivers the whole-scenario exports asked for (AppState::exports_due: the Export menu, the
// "export" control); a link is copied by the page ("copy_link").
void deliver_exports(AppState& s);

// Shared widgets.
// "(?)" with a tooltip, as in the ImGui demo: after the last item when it fits, else below it.
void help_marker(const char* text);
// Puts the next item after the last one when `width` pixels are left on the line before the
// window clips it, else on the next line (a narrow panel wraps its buttons instead of cutting
// them off at its edge).
void same_line_if_fits(float width);
// The width of a button (or a small one) labelled `label`.
float button_width(const char* label);
// Wrapped text, English broken at spaces and Chinese between characters (text_wrap.h);
// width <= 0 wraps at the right edge of the content region.
void text_wrapped(const std::string& text, bool disabled = false, float width = 0.0f);
// The loss curve with its axes: the loss on a log scale (it falls by orders of magnitude),
// one grid line per power of ten, the steps along the bottom; the last 2000 steps at most;
// height_lines font sizes high. Under it, a spike explained when one happened and asked for
// (not for a minibatch's loss, whose ups and downs are the batches').
// mark_step > 0: a vertical line at that step (1-based), labelled mark_label.
void loss_chart(const std::vector<float>& losses, float height_lines = 6.0f,
                bool explain_spikes = true, int mark_step = -1, const char* mark_label = nullptr);
// The Train section's loss plot drawn large across the middle panel (AppState::large_loss_plot),
// with the step, the loss and the drop as the Train section shows them; nothing when the
// scenario's training has taken no step.
void draw_large_loss_plot(AppState& s);
// In the monospaced font; last_apart makes the last line an item of its own, so that an item
// put on the same line (a "(?)") follows the last line, not the first.
void text_wrapped_mono(const std::string& text, float width = 0.0f, bool last_apart = false);
// A formula ("O = A·V"): in the UI font, whose O is round and wide, so that it does not read as
// the monospaced font's narrow 0; wrapped as text_wrapped_mono is.
void text_wrapped_formula(const std::string& text, float width = 0.0f, bool last_apart = false);
// Widgets for the controls of the table (controls.h), drawn from its label, value, choices and
// range; a change is applied as set_control applies it. Each draws nothing when the control
// is hidden or not there, and returns true when it changed something.
bool control_apply(AppState& s, const char* id, const nlohmann::json& value);
// With draw_unavailable, a control not there for this scenario is drawn greyed out.
bool control_checkbox(AppState& s, const char* id, bool draw_unavailable = false);
// preview: the closed combo's text instead of the chosen option's label.
bool control_combo(AppState& s, const char* id, const char* preview = nullptr);
bool control_radios(AppState& s, const char* id, const char* suffix = "");  // a wrapping row
bool control_slider(AppState& s, const char* id, const char* format = "");
bool control_button(AppState& s, const char* id, const char* label = nullptr, bool small = false,
                    bool draw_unavailable = false);
// The batch item selector, shown when the batch has more than one item.
void batch_selector(AppState& s);

}  // namespace ui
