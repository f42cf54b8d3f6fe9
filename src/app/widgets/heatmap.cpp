// The heatmap widget: layout, interaction, editing, export menu, and the widget itself (its
// cells, labels and legend are drawn in heatmap_draw.cpp).
//
// [SECTION] Layout
// [SECTION] Interaction: scroll, zoom, hover, click
// [SECTION] Editing: drag or type a value
// [SECTION] Export menu
// [SECTION] The widget
#include "app/widgets/heatmap.h"

#include <algorithm>
#include <cmath>

#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/widgets/heatmap_internal.h"
#include "imgui_internal.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Layout
//-----------------------------------------------------------------------------

namespace {

// The range the colours span: fixed by the spec, or the finite, unmasked values (symmetric
// around 0 on the diverging palette).
void value_range(const HeatmapSpec& spec, float* lo, float* hi) {
  if (spec.fixed_range) {
    *lo = spec.lo;
    *hi = spec.hi;
    return;
  }
  const attn::Matrix& m = *spec.values;
  float mn = INFINITY, mx = -INFINITY;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      if (!std::isfinite(v)) continue;
      if (spec.mask && (*spec.mask)[r * m.cols() + c]) continue;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
  if (mn > mx) mn = mx = 0.0f;
  if (spec.palette == Palette::kDiverging) {
    const float a = std::max({std::fabs(mn), std::fabs(mx), 1e-6f});
    *lo = -a;
    *hi = a;
  } else {
    *lo = mn;
    *hi = mx > mn ? mx : mn + 1e-6f;
  }
}

}  // namespace

float heatmap_row_label_width(const std::vector<std::string>* labels, const char* row_axis,
                              float avail_x) {
  float w = ImGui::GetTextLineHeight() * 1.5f;
  if (labels)
    for (const auto& l : *labels) w = std::max(w, ImGui::CalcTextSize(l.c_str()).x + 8.0f);
  if (row_axis && row_axis[0])  // room for "queries ↓" in the corner
    w = std::max(w, ImGui::CalcTextSize(row_axis).x + 24.0f);
  return std::min(w, std::max(56.0f, avail_x * 0.22f));
}

Heatmaps::Layout Heatmaps::layout(const HeatmapSpec& spec) {
  Layout l;
  const attn::Matrix& m = *spec.values;
  l.rows = static_cast<int>(m.rows());
  l.cols = static_cast<int>(m.cols());
  l.line_h = ImGui::GetTextLineHeight();
  l.avail = spec.size;
  if (l.avail.x <= 0) l.avail.x = ImGui::GetContentRegionAvail().x;
  if (l.avail.y <= 0) l.avail.y = ImGui::GetContentRegionAvail().y;
  l.row_label_w = heatmap_row_label_width(spec.row_labels, spec.row_axis, l.avail.x);
  const float legend_h = spec.legend ? l.line_h * 2.2f : 0.0f;
  float col_label_max = l.line_h;
  if (spec.col_labels)
    for (const auto& label : *spec.col_labels)
      col_label_max = std::max(col_label_max, ImGui::CalcTextSize(label.c_str()).x);
  const float grid_w_avail =
      std::max(8.0f, l.avail.x - l.row_label_w - ImGui::GetStyle().ItemSpacing.x);
  // The cells for a band of column labels `flat` or vertical: as large as the width and the
  // height left allow, and wider than tall (up to max_aspect) when the columns are few.
  float grid_h_avail = 0.0f;
  auto fit_cells = [&](bool flat) {
    l.labels_flat = flat;
    // Flat labels are one line; with axis names, a second line above them holds "keys →".
    const bool names = spec.col_axis && spec.col_axis[0];
    l.col_label_h = flat ? l.line_h * (names ? 2.0f : 1.0f) + 4.0f + (names ? 2.0f : 0.0f)
                         : std::min(col_label_max, 90.0f) + 8.0f;
    grid_h_avail = std::max(8.0f, l.avail.y - l.col_label_h - legend_h);
    l.fit =
        std::max(1.0f, std::min({grid_w_avail / l.cols, grid_h_avail / l.rows, spec.max_cell_px}));
    l.fit_w = std::max(
        l.fit, std::min({grid_w_avail / l.cols, l.fit * spec.max_aspect, spec.max_cell_px * 4}));
  };
  // Flat labels when they fit the cells as drawn (the height may make the cells narrower than
  // the width alone would), otherwise vertical ones, which never overlap (they are thinned).
  fit_cells(col_label_max + 6.0f <= std::min(grid_w_avail / l.cols, spec.max_cell_px));
  if (l.labels_flat && col_label_max + 6.0f > l.fit_w) fit_cells(false);

  const attn::Matrix& sized = spec.layout_values ? *spec.layout_values : m;
  // (Up to 48 columns: a picture's 40 patches, say, scroll with their numbers.)
  if (spec.numbers && l.rows <= 24 && l.cols <= 48) {
    // The widest number at three quarters of the text's size (the smaller size cells() draws).
    const float small = ImGui::GetFontSize() * 0.75f;
    float widest = 0.0f;
    for (int row = 0; row < l.rows; ++row)
      for (int c = 0; c < l.cols; ++c)
        widest = std::max(
            widest, ImGui::GetFont()
                        ->CalcTextSizeA(small, FLT_MAX, 0.0f, cell_number(sized(row, c)).c_str())
                        .x);
    l.number_w = widest + 6.0f;
    if (spec.keep_numbers) {
      // Cells never smaller than the numbers: when the room is short (a phone), the grid
      // scrolls instead.
      l.fit = std::max(l.fit, small + 2.5f);
      l.fit_w = std::max({l.fit_w, l.fit, widest + 6.0f});
    } else if (l.fit >= small + 2.5f && l.fit_w < widest + 6.0f &&
               grid_w_avail / l.cols >= widest + 6.0f) {
      // Cells the height keeps short but the width leaves room to: wide enough for their
      // numbers, rather than square and blank beside free space.
      l.fit_w = widest + 6.0f;
    }
  }
  l.view = &views_[std::to_string(ImGui::GetID("view"))];
  l.cw = l.fit_w * l.view->zoom;
  l.ch = l.fit * l.view->zoom;
  l.vis_cols = std::min(static_cast<float>(l.cols), grid_w_avail / l.cw);
  l.vis_rows = std::min(static_cast<float>(l.rows), grid_h_avail / l.ch);
  l.clamp_scroll();
  l.origin = ImGui::GetCursorScreenPos();
  l.g0 = ImVec2(l.origin.x + l.row_label_w, l.origin.y + l.col_label_h);
  l.g1 = ImVec2(l.g0.x + l.vis_cols * l.cw, l.g0.y + l.vis_rows * l.ch);
  l.zoomable = l.cols > l.vis_cols + 0.01f || l.rows > l.vis_rows + 0.01f || l.view->zoom != 1.0f;
  // The cells the width alone would give (up to the largest), against those drawn.
  if (l.rows <= 64) {
    const float by_width = std::min(grid_w_avail / l.cols, spec.max_cell_px);
    height_deficit_ = std::max(height_deficit_, l.rows * (by_width - l.fit));
  }
  value_range(spec, &l.lo, &l.hi);
  l.legend_right = l.g1.x;
  return l;
}

//-----------------------------------------------------------------------------
// [SECTION] Interaction: scroll, zoom, hover, click
//-----------------------------------------------------------------------------

void Heatmaps::interact(const HeatmapSpec& spec, Layout* l, HeatmapResult* r) {
  ImGuiIO& io = ImGui::GetIO();
  View& view = *l->view;
  ImGui::SetCursorScreenPos(l->g0);
  ImGui::InvisibleButton(
      "grid", ImVec2(std::max(1.0f, l->g1.x - l->g0.x), std::max(1.0f, l->g1.y - l->g0.y)),
      ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
          ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  const bool activated = ImGui::IsItemActivated();
  const bool deactivated = ImGui::IsItemDeactivated();
  if (hovered) {
    ImGui::SetItemUsingMouseWheel();
    if (io.MouseWheel != 0.0f && io.KeyCtrl) {  // zoom around the mouse
      const ImVec2 at((io.MousePos.x - l->g0.x) / l->cw + view.scroll.x,
                      (io.MousePos.y - l->g0.y) / l->ch + view.scroll.y);
      view.zoom = std::clamp(view.zoom * (io.MouseWheel > 0 ? 1.25f : 0.8f), 1.0f, 64.0f);
      view.scroll = ImVec2(at.x - (io.MousePos.x - l->g0.x) / (l->fit_w * view.zoom),
                           at.y - (io.MousePos.y - l->g0.y) / (l->fit * view.zoom));
    } else if (io.MouseWheel != 0.0f && l->zoomable) {
      if (io.KeyShift)
        view.scroll.x -= io.MouseWheel * 3.0f;
      else
        view.scroll.y -= io.MouseWheel * 3.0f;
    } else if (io.MouseWheel != 0.0f) {  // nothing to scroll here: scroll the window
      ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseWheel * l->line_h * 3.0f);
    }
    if (io.MouseWheelH != 0.0f) view.scroll.x -= io.MouseWheelH * 3.0f;
  }
  if (active &&
      (ImGui::IsMouseDragging(ImGuiMouseButton_Right) ||
       ImGui::IsMouseDragging(ImGuiMouseButton_Middle) ||
       (!spec.editable && ImGui::IsMouseDragging(ImGuiMouseButton_Left) && l->zoomable))) {
    view.scroll.x -= io.MouseDelta.x / l->cw;
    view.scroll.y -= io.MouseDelta.y / l->ch;
  }
  l->clamp_scroll();

  if (hovered || (active && drag_id_ == spec.id)) {
    const int c = static_cast<int>(std::floor((io.MousePos.x - l->g0.x) / l->cw + view.scroll.x));
    const int row = static_cast<int>(std::floor((io.MousePos.y - l->g0.y) / l->ch + view.scroll.y));
    if (c >= 0 && c < l->cols && row >= 0 && row < l->rows) {
      r->hovered = true;
      r->row = row;
      r->col = c;
    }
  }
  if (spec.editable) edit(spec, activated, active, r);
  // A click: released on the grid after moving less than a few pixels.
  if (deactivated) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0.0f);
    r->clicked = r->hovered && std::fabs(d.x) + std::fabs(d.y) < 4.0f;
    if (drag_id_ == spec.id) drag_id_.clear();
  }
  // A right click without dragging opens the export menu.
  if (spec.exportable && hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Right, 0.0f);
    if (std::fabs(d.x) + std::fabs(d.y) < 4.0f) ImGui::OpenPopup("export");
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Editing: drag or type a value
//-----------------------------------------------------------------------------

void Heatmaps::edit(const HeatmapSpec& spec, bool activated, bool active, HeatmapResult* r) {
  const attn::Matrix& m = *spec.values;
  // Drag horizontally (or vertically) to change a value.
  if (activated && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && r->hovered) {
    drag_id_ = spec.id;
    drag_row_ = r->row;
    drag_col_ = r->col;
    drag_start_value_ = m(r->row, r->col);
  }
  if (active && drag_id_ == spec.id && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 3.0f);
    if (d.x != 0.0f || d.y != 0.0f) {
      const float step = ImGui::GetIO().KeyShift ? 0.001f : 0.01f;
      const float v = std::round((drag_start_value_ + (d.x - d.y) * step) * 1000.0f) / 1000.0f;
      if (v != m(drag_row_, drag_col_)) {
        r->edited = true;
        r->edit_row = drag_row_;
        r->edit_col = drag_col_;
        r->edit_value = v;
      }
    }
  }
  // Double-click to type it.
  if (r->hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    edit_row_ = r->row;
    edit_col_ = r->col;
    edit_buffer_ = m(r->row, r->col);
    ImGui::OpenPopup("edit");
  }
  if (ImGui::BeginPopup("edit")) {
    ImGui::Text("[%d, %d]", edit_row_ + 1, edit_col_ + 1);
    ImGui::SetNextItemWidth(120);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    if (ImGui::InputFloat("##value", &edit_buffer_, 0.1f, 1.0f, "%.3f",
                          ImGuiInputTextFlags_EnterReturnsTrue)) {
      if (std::isfinite(edit_buffer_) && std::fabs(edit_buffer_) < 1e6f) {
        r->edited = true;
        r->edit_row = edit_row_;
        r->edit_col = edit_col_;
        r->edit_value = edit_buffer_;
      }
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Export menu
//-----------------------------------------------------------------------------

// The Export button, shown while the mouse is over the widget, and the menu it (or a right
// click) opens. The choice goes back to the caller in HeatmapResult::export_request.
void Heatmaps::export_menu(const HeatmapSpec& spec, const Layout& l, HeatmapResult* r,
                           float* bottom) {
  if (!spec.exportable) return;
  const GridInfo& grid = grids_[spec.id];  // last frame's widget rectangle
  const bool was_over =
      ImGui::IsMouseHoveringRect(ImVec2(grid.wx0, grid.wy0), ImVec2(grid.wx1, grid.wy1), false) &&
      ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
  if (was_over || ImGui::IsPopupOpen("export")) {
    const float bw = ImGui::CalcTextSize(T("Export")).x + 10.0f;
    ImGui::SetCursorScreenPos(
        ImVec2(std::max(l.origin.x, l.origin.x + l.row_label_w - bw - 4.0f),
               spec.legend ? l.g1.y + l.line_h * 0.5f - 2.0f : l.g1.y + 2.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 0));
    if (ImGui::SmallButton(T("Export"))) ImGui::OpenPopup("export");
    box(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), "[Export button]");
    ImGui::PopStyleVar();
    if (!spec.legend) *bottom = std::max(*bottom, l.g1.y + l.line_h + 4.0f);
  }
  if (ImGui::BeginPopup("export")) {
    if (ImGui::MenuItem(T("Copy as CSV"))) r->export_request = ExportRequest::kCsv;
    if (ImGui::MenuItem(T("Copy as JSON"))) r->export_request = ExportRequest::kJson;
    if (ImGui::MenuItem(T("Save as PNG"))) r->export_request = ExportRequest::kPng;
    ImGui::EndPopup();
  }
}

//-----------------------------------------------------------------------------
// [SECTION] The widget
//-----------------------------------------------------------------------------

HeatmapResult Heatmaps::draw(const HeatmapSpec& spec) {
  HeatmapResult r;
  if (!spec.values || spec.values->size() == 0) return r;
  ImGui::PushID(spec.id);
  Layout l = layout(spec);
  boxes_.clear();
  interact(spec, &l, &r);
  const bool grid_clicked = r.clicked;
  if (spec.hidden) r = HeatmapResult{};  // nothing to point at, click, edit or export
  r.grid_clicked = grid_clicked;
  if (r.hovered) {
    r.cell_min = ImVec2(l.cell_x(r.col), l.cell_y(r.row));
    r.cell_max = ImVec2(l.cell_x(r.col + 1), l.cell_y(r.row + 1));
  }
  const float number_px = cells(spec, l, r);
  labels(spec, l, r);
  {
    GridInfo& g = grids_[spec.id];  // the widget rectangle stays last frame's until the end
    g = GridInfo{l.g0.x,
                 l.g0.y,
                 l.g1.x,
                 l.g1.y,
                 l.rows,
                 l.cols,
                 l.view->scroll.y,
                 l.view->scroll.x,
                 l.ch,
                 l.lo,
                 l.hi,
                 renderer.frame(),
                 g.wx0,
                 g.wy0,
                 g.wx1,
                 g.wy1,
                 l.cw,
                 spec.export_name.empty() ? spec.id : spec.export_name,
                 number_px,
                 l.number_w,
                 spec.hidden,
                 {}};
  }
  float bottom = legend(spec, &l);
  export_menu(spec, l, &r, &bottom);
  GridInfo& grid = grids_[spec.id];
  grid.wx0 = l.origin.x;
  grid.wy0 = l.origin.y;
  grid.wx1 = std::max(l.g1.x, ImGui::GetItemRectMax().x);
  grid.wy1 = bottom;
  grid.boxes = std::move(boxes_);
  if (r.export_request == ExportRequest::kPng) request_png(spec.id);

  // Reserve the space used.
  ImGui::SetCursorScreenPos(l.origin);
  ImGui::Dummy(ImVec2(std::max({l.g1.x, l.legend_right, l.origin.x + 1.0f}) - l.origin.x,
                      bottom - l.origin.y));
  ImGui::PopID();
  return r;
}

bool Heatmaps::request_png(const std::string& id) {
  const auto it = grids_.find(id);
  if (it == grids_.end() || it->second.frame != renderer.frame()) return false;
  capture_id_ = id;
  capture_frame_ = renderer.frame() + 1;  // after the next frame, when menus are closed
  return true;
}

std::optional<PngCapture> Heatmaps::after_render(int fb_w, int fb_h, float dpr) {
  if (capture_frame_ < 0 || renderer.frame() < capture_frame_) return std::nullopt;
  capture_frame_ = -1;
  const auto it = grids_.find(capture_id_);
  if (it == grids_.end() || it->second.frame != renderer.frame()) return std::nullopt;
  const GridInfo& g = it->second;
  PngCapture c;
  c.filename = g.export_name + ".png";
  c.png = renderer.read_png(ImVec4(g.wx0, g.wy0, g.wx1, g.wy1), fb_w, fb_h, dpr);
  if (c.png.empty()) return std::nullopt;
  return c;
}

}  // namespace ui
