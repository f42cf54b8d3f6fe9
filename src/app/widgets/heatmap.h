// The heatmap widget (Dear ImGui): token labels on both axes, the cells (drawn by
// HeatmapRenderer's shaders), numbers when cells are large enough, a legend, hover, zoom and
// pan, in-place editing, and an export menu whose choice it returns to the caller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/model/matrices.h"
#include "app/widgets/heatmap_renderer.h"
#include "core/tensor.h"
#include "imgui.h"

namespace ui {

struct HeatmapSpec {
  const char* id = "";  // unique within the window
  const attn::Matrix* values = nullptr;
  // Measured, instead of `values`, for the cells' size and whether numbers fit: the values a
  // transition ends at, so that the layout holds still while it runs (nullptr: `values`).
  const attn::Matrix* layout_values = nullptr;
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
  bool numbers = true;         // write the values in the cells where they fit
  bool keep_numbers = false;   // cells as large as their numbers need (≤ 24 × 48), scrolled
  bool editable = false;       // drag a cell to change it, double-click to type
  bool legend = true;
  bool exportable = true;  // right-click (or the Export button) offers CSV, JSON and PNG
  // Grey cells with a "?" and no numbers, legend, hover or export: the matrix would answer an
  // open question of the lesson (AppState::open_question). The layout stays as it will be.
  bool hidden = false;
  int highlight_row = -1, highlight_col = -1;  // outlined (from a hover elsewhere)
  uint64_t revision = 0;                       // changes whenever the values may have changed
  std::string export_name;                     // the file name stem of a PNG ("" = id)
};

// What the learner asked the export menu for; the caller makes the file (make_export).
enum class ExportRequest { kNone, kCsv, kJson, kPng };

struct HeatmapResult {
  bool hovered = false;
  int row = -1, col = -1;  // the hovered cell
  bool clicked = false;    // released on the same cell without dragging
  // A click on the grid, a hidden one's too (which gives no cell): a head opened by a click
  // shows nothing the "?" holds back.
  bool grid_clicked = false;
  bool edited = false;  // the user changed the hovered/dragged cell's value
  int edit_row = -1, edit_col = -1;
  float edit_value = 0.0f;
  ImVec2 cell_min, cell_max;  // screen rectangle of the hovered cell
  ExportRequest export_request = ExportRequest::kNone;
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
  std::string export_name;                   // the PNG's file name stem
  float number_px = 0;                       // the size of the numbers in the cells, 0: none
  float number_w = 0;   // the cell width the widest number needs (small size), 0: too many cells
  bool hidden = false;  // drawn as "?" (HeatmapSpec::hidden)
  // Every text and button the widget drew around its grid (labels, axis names, legend,
  // zoom and Export buttons), as rectangles, for tests that no two overlap.
  struct Box {
    float x0, y0, x1, y1;
    std::string text;
  };
  std::vector<Box> boxes;
};

// A PNG of a widget as drawn, read back after a frame was rendered.
struct PngCapture {
  std::string filename;
  std::vector<uint8_t> png;
};

class Heatmaps {
 public:
  HeatmapRenderer renderer;

  void begin_frame() {
    renderer.begin_frame();
    height_deficit_ = 0.0f;
  }
  // How much taller than they were given the heatmaps drawn this frame would like to be: the
  // largest shortfall of a grid whose cells the height, not the width, kept small (for the
  // height an embedding page should give the frame).
  float height_deficit() const { return height_deficit_; }
  // Draws one heatmap widget at the cursor and returns what the user did with it.
  HeatmapResult draw(const HeatmapSpec& spec);
  const std::map<std::string, GridInfo>& last_grids() const { return grids_; }
  // A grid drawn by other code (an image scenario's picture, a regression's curve), recorded as
  // this frame's so that layout() and the tests find it as they find a heatmap's: its cells'
  // rectangle g0–g1, the whole widget's w0–w1, its rows and columns; the caller may add more.
  GridInfo& record_grid(const std::string& id, ImVec2 g0, ImVec2 g1, ImVec2 w0, ImVec2 w1, int rows,
                        int cols, bool hidden) {
    GridInfo& g = grids_[id];
    g = GridInfo{};
    g.x0 = g0.x;
    g.y0 = g0.y;
    g.x1 = g1.x;
    g.y1 = g1.y;
    g.wx0 = w0.x;
    g.wy0 = w0.y;
    g.wx1 = w1.x;
    g.wy1 = w1.y;
    g.rows = rows;
    g.cols = cols;
    g.hidden = hidden;
    g.export_name = id;
    g.frame = renderer.frame();
    return g;
  }

  // A PNG of widget `id` (labels, cells and legend as drawn), read after the next frame is
  // rendered (when menus are closed); false if `id` was not drawn in the last frame.
  bool request_png(const std::string& id);
  // Call after the frame is rendered: the PNG asked for, when it is ready.
  std::optional<PngCapture> after_render(int fb_w, int fb_h, float dpr);
  bool capture_pending() const { return capture_frame_ >= 0; }

 private:
  struct View {
    float zoom = 1.0f;             // × the fitted cell size
    ImVec2 scroll = ImVec2(0, 0);  // first visible cell (fractional column, row)
  };
  struct Layout;

  Layout layout(const HeatmapSpec& spec);
  void interact(const HeatmapSpec& spec, Layout* l, HeatmapResult* r);
  void edit(const HeatmapSpec& spec, bool activated, bool active, HeatmapResult* r);
  // Draws the cells and, when they fit, their numbers; returns the numbers' size (0: none).
  float cells(const HeatmapSpec& spec, const Layout& l, const HeatmapResult& r);
  void hidden_cells(const Layout& l);
  void labels(const HeatmapSpec& spec, const Layout& l, const HeatmapResult& r);
  float legend(const HeatmapSpec& spec, Layout* l);
  void export_menu(const HeatmapSpec& spec, const Layout& l, HeatmapResult* r, float* bottom);

  // Draws `text` at `pos` and records its rectangle in boxes_.
  void text(ImDrawList* dl, ImVec2 pos, ImU32 color, const std::string& text);
  void box(ImVec2 p0, ImVec2 p1, const std::string& text);

  std::vector<GridInfo::Box> boxes_;  // the widget being drawn's, moved to its GridInfo
  float height_deficit_ = 0.0f;
  std::map<std::string, View> views_;
  std::map<std::string, GridInfo> grids_;  // by HeatmapSpec::id
  // The cell being dragged, and the one being typed into.
  std::string drag_id_;
  int drag_row_ = -1, drag_col_ = -1;
  float drag_start_value_ = 0.0f;
  int edit_row_ = -1, edit_col_ = -1;
  float edit_buffer_ = 0.0f;
  // A PNG waiting for the next rendered frame.
  std::string capture_id_;
  int capture_frame_ = -1;
};

// The width Heatmaps::draw gives the row labels of a widget `avail_x` wide: the widest label
// (or the row axis name) plus a margin, at most 22% of the width.
float heatmap_row_label_width(const std::vector<std::string>* labels, const char* row_axis,
                              float avail_x);

}  // namespace ui
