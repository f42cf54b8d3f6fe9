// The playground app: one AppState, the heatmap renderer, and the panels that draw it. The
// same code runs in the browser (WebGL2) and natively (OpenGL 3.3); main.cpp owns the loop.
#pragma once

#include <string>

#include "app/app_state.h"
#include "app/heatmap.h"
#include "imgui.h"

namespace ui {

// Fonts loaded by main.cpp: the UI font and a monospaced one for formulas and numbers.
struct Fonts {
  ImFont* ui = nullptr;
  ImFont* mono = nullptr;
  ImFont* title = nullptr;
};
extern Fonts g_fonts;

// Light theme tuned for projectors and course pages.
void apply_style(float scale);

class App {
 public:
  bool init(std::string* error);
  void shutdown() { heatmaps.shutdown(); }
  // Builds this frame's UI over the whole display (ImGui::NewFrame has been called).
  void frame();
  // True while something animates (play), so the loop keeps drawing without input.
  bool animating() const { return state.playing || !state.toast.empty(); }

  AppState state;
  HeatmapRenderer heatmaps;
};

// Panels, one file each. Each draws inside the current window/child.
void draw_top_bar(AppState& s);
void draw_controls(AppState& s);
void draw_pipeline(AppState& s, HeatmapRenderer& h);
void draw_details(AppState& s);
void draw_heads(AppState& s, HeatmapRenderer& h);
void draw_positional(AppState& s, HeatmapRenderer& h);
void draw_plane(AppState& s);
void draw_lesson(AppState& s);

// Shared widgets.
void help_marker(const char* text);  // "(?)" with a tooltip, as in the ImGui demo
// Wrapped text, English broken at spaces and Chinese between characters (text_wrap.h);
// width <= 0 wraps at the right edge of the content region.
void text_wrapped(const std::string& text, bool disabled = false, float width = 0.0f);
void text_wrapped_mono(const std::string& text);
// The batch item selector, shown when the batch has more than one item.
void batch_selector(AppState& s);

}  // namespace ui
