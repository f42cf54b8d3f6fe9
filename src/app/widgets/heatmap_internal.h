// The heatmap widget's layout (Heatmaps::Layout), shared by its logic (heatmap.cpp) and its
// drawing (heatmap_draw.cpp).
#pragma once

#include <algorithm>
#include <cmath>

#include "app/widgets/heatmap.h"

namespace ui {

// Where everything goes: row labels on the left, column labels on top, the grid, the legend
// below. Screen pixels.
struct Heatmaps::Layout {
  int rows = 0, cols = 0;
  float line_h = 0.0f;
  ImVec2 avail, origin;
  float row_label_w = 0.0f, col_label_h = 0.0f;
  bool labels_flat = true;         // column labels horizontal (else turned 90°)
  float fit = 0.0f, fit_w = 0.0f;  // the fitted cell height and width, before zoom
  float cw = 0.0f, ch = 0.0f;      // the cell width and height as drawn
  float vis_cols = 0.0f, vis_rows = 0.0f;
  ImVec2 g0, g1;  // the visible grid
  View* view = nullptr;
  float lo = 0.0f, hi = 1.0f;
  bool zoomable = false;  // part of the matrix is hidden, or it is zoomed
  float legend_right = 0.0f;
  float number_w = 0.0f;  // the cell width its widest number needs at the smaller size, 0: none

  float cell_x(int c) const { return g0.x + (c - view->scroll.x) * cw; }
  float cell_y(int r) const { return g0.y + (r - view->scroll.y) * ch; }
  int first_col() const { return static_cast<int>(view->scroll.x); }
  int first_row() const { return static_cast<int>(view->scroll.y); }
  int end_col() const {
    return std::min(cols, static_cast<int>(std::ceil(view->scroll.x + vis_cols)));
  }
  int end_row() const {
    return std::min(rows, static_cast<int>(std::ceil(view->scroll.y + vis_rows)));
  }
  // Scroll bounds: the visible window stays inside the matrix.
  void clamp_scroll() const {
    view->scroll.x = std::clamp(view->scroll.x, 0.0f, cols - vis_cols);
    view->scroll.y = std::clamp(view->scroll.y, 0.0f, rows - vis_rows);
  }
};

}  // namespace ui
