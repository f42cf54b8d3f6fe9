// Heatmaps drawn by our GLSL shaders (shaders/heatmap.*): a float texture per matrix, a
// colour-blind-safe palette, token labels on both axes, numbers when cells are large enough,
// a legend, hover, zoom and pan, and in-place editing.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "app/gl.h"
#include "core/tensor.h"
#include "imgui.h"

namespace ui {

enum class Palette {
  kSequential,  // viridis: 0 → dark purple, 1 → yellow (weights)
  kDiverging,   // purple ← 0 → orange, symmetric around 0 (scores, inputs)
};

// The palette's stops as linear 0..1 RGB, shared by the shader (uniforms) and the CPU (text
// contrast, legend, PNG export).
const std::vector<ImVec4>& palette_stops(Palette p);
ImVec4 palette_color(Palette p, float t);  // t in [0, 1]

struct HeatmapSpec {
  const char* id = "";  // unique within the window
  const attn::Matrix* values = nullptr;
  const std::vector<uint8_t>* mask = nullptr;  // row-major, 1 = masked; may be null
  const std::vector<std::string>* row_labels = nullptr;
  const std::vector<std::string>* col_labels = nullptr;
  const char* row_axis = "";  // e.g. "queries"
  const char* col_axis = "";  // e.g. "keys"
  Palette palette = Palette::kSequential;
  bool fixed_range = false;  // use lo/hi instead of the data's range
  float lo = 0.0f, hi = 1.0f;
  ImVec2 size = ImVec2(0, 0);  // the area to fill; 0 = the remaining content region
  float max_cell_px = 56.0f;   // cells are never drawn larger than this
  float max_aspect = 1.0f;     // cells may be up to this many times wider than tall
  bool editable = false;       // drag a cell to change it, double-click to type
  bool legend = true;
  int highlight_row = -1, highlight_col = -1;  // outlined (from a hover elsewhere)
  uint64_t revision = 0;                       // changes whenever the values may have changed
  std::string export_name;                     // file name stem for exports ("" = id)
};

struct HeatmapResult {
  bool hovered = false;
  int row = -1, col = -1;  // the hovered cell
  bool clicked = false;    // released on the same cell without dragging
  bool edited = false;     // the user changed the hovered/dragged cell's value
  int edit_row = -1, edit_col = -1;
  float edit_value = 0.0f;
  ImVec2 cell_min, cell_max;  // screen rectangle of the hovered cell
};

// Where a heatmap's grid was last drawn (screen/CSS pixels), for tests and exports.
struct GridInfo {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int rows = 0, cols = 0;
  float first_row = 0, first_col = 0, cell = 0;
  float lo = 0, hi = 0;
  int frame = 0;
  float wx0 = 0, wy0 = 0, wx1 = 0, wy1 = 0;  // the whole widget: labels, grid and legend
  float cell_w = 0;                          // cell width (`cell` is the height)
};

class HeatmapRenderer {
 public:
  const std::map<std::string, GridInfo>& last_grids() const { return grids_; }
  bool init(std::string* error);  // compiles the shaders; logs the source on failure
  void shutdown();
  void begin_frame();  // drops textures unused for a while
  void set_device_pixel_ratio(float dpr) { dpr_ = dpr; }

  // Draws one heatmap widget at the cursor and returns what the user did with it.
  HeatmapResult draw(const HeatmapSpec& spec);

  // Exports: the widget as it is drawn (labels, cells, legend) as a PNG, read back after the
  // next frame is rendered and handed to deliver_export(); false if `id` was not drawn.
  bool request_png(const std::string& id);
  void after_render(int fb_w, int fb_h, float dpr);  // call after the frame is rendered

  // Reads back the RGB colour of every cell for PNG export (CPU palette; same mapping).
  static ImU32 cell_color(const HeatmapSpec& spec, float lo, float hi, float v, bool masked);
  static void value_range(const HeatmapSpec& spec, float* lo, float* hi);

 private:
  struct Texture {
    GLuint values = 0, mask = 0;
    uint64_t revision = ~uint64_t{0};
    const void* source = nullptr;
    int rows = 0, cols = 0;
    int last_used = 0;
  };
  struct View {
    float zoom = 1.0f;             // × the fitted cell size
    ImVec2 scroll = ImVec2(0, 0);  // first visible cell (fractional column, row)
  };
  struct DrawJob {
    HeatmapRenderer* self;
    GLuint values, mask;
    ImVec4 rect;  // screen pixels: x0, y0, x1, y1
    ImVec4 view;  // first col, first row, cols, rows
    int cols, rows;
    float lo, hi;
    ImVec2 cell_px;  // on-screen cell width and height
    Palette palette;
  };

  Texture& texture_for(const HeatmapSpec& spec);
  static void draw_callback(const ImDrawList* list, const ImDrawCmd* cmd);
  void draw_job(const DrawJob& job, const ImDrawCmd* cmd);

  GLuint program_ = 0, vao_ = 0, empty_mask_ = 0;
  GLint u_rect_ = -1, u_view_ = -1, u_values_ = -1, u_mask_ = -1, u_size_ = -1, u_range_ = -1,
        u_stops_ = -1, u_stop_count_ = -1, u_cell_px_ = -1, u_dpr_ = -1;
  std::map<std::string, Texture> textures_;
  std::map<std::string, View> views_;
  std::map<std::string, GridInfo> grids_;  // by HeatmapSpec::id
  std::deque<DrawJob> jobs_;               // stable addresses until the frame is rendered
  int frame_ = 0;
  float dpr_ = 1.0f;
  // Editing state: the cell being dragged.
  std::string drag_id_;
  int drag_row_ = -1, drag_col_ = -1;
  float drag_start_value_ = 0.0f;
  std::string edit_popup_id_;
  // A PNG export waiting for the next rendered frame.
  std::string capture_id_, capture_name_;
  int capture_frame_ = -1;
  std::map<std::string, std::string> export_names_;  // by id, for request_png
  int edit_row_ = -1, edit_col_ = -1;
  float edit_buffer_ = 0.0f;
};

// The width HeatmapRenderer::draw gives the row labels of a widget `avail_x` wide: the widest
// label (or the row axis name) plus a margin, at most 22% of the width.
float heatmap_row_label_width(const std::vector<std::string>* labels, const char* row_axis,
                              float avail_x);

// The shader sources, embedded at build time from shaders/ (generated file).
extern const char* const kHeatmapVertexShader;
extern const char* const kHeatmapFragmentShader;

}  // namespace ui
