// The heatmap widget: layout, interaction, cells and numbers, labels, legend, export menu.
//
// [SECTION] Text helpers
// [SECTION] Layout
// [SECTION] Interaction: scroll, zoom, hover, click
// [SECTION] Editing: drag or type a value
// [SECTION] Cells, numbers and outlines
// [SECTION] Labels and axis names
// [SECTION] Legend
// [SECTION] Export menu
// [SECTION] The widget
#include "app/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/explain.h"
#include "app/i18n.h"
#include "app/text_wrap.h"
#include "app/vertical_text.h"
#include "imgui_internal.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Text helpers
//-----------------------------------------------------------------------------

namespace {

// `text` shortened with an ellipsis to fit `max_w` pixels in the current font.
std::string fit_label(const std::string& text, float max_w) {
  return fit_text(text, max_w, [](std::string_view t) {
    return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
  });
}

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

//-----------------------------------------------------------------------------
// [SECTION] Layout
//-----------------------------------------------------------------------------

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
  if (spec.numbers && l.rows <= 24 && l.cols <= 24) {
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
// [SECTION] Cells, numbers and outlines
//-----------------------------------------------------------------------------

float Heatmaps::cells(const HeatmapSpec& spec, const Layout& l, const HeatmapResult& r) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (spec.hidden) {
    hidden_cells(l);
    return 0.0f;
  }
  CellsJob job;
  job.key = std::to_string(ImGui::GetID(spec.id));
  job.values = spec.values;
  job.mask = spec.mask;
  job.revision = spec.revision;
  job.rect = ImVec4(l.g0.x, l.g0.y, l.g1.x, l.g1.y);
  job.view = ImVec4(l.view->scroll.x, l.view->scroll.y, l.vis_cols, l.vis_rows);
  job.cell_px = ImVec2(l.cw, l.ch);
  job.lo = l.lo;
  job.hi = l.hi;
  job.palette = spec.palette;
  renderer.draw_cells(dl, job);

  dl->PushClipRect(l.g0, l.g1, true);
  // Numbers in the cells when they fit: at the text's size, or else at three quarters of it
  // (still readable), so that cells of 30 px keep their numbers.
  const attn::Matrix& m = *spec.values;
  const attn::Matrix& sized = spec.layout_values ? *spec.layout_values : m;
  ImFont* font = ImGui::GetFont();
  float size = 0.0f;
  // The widest number among the visible cells (at the full size), or, when there are too
  // many cells to measure, a wide one ("−0.00"; cells that many are too small anyway).
  const float full = ImGui::GetFontSize();
  const long visible =
      static_cast<long>(l.end_row() - l.first_row()) * (l.end_col() - l.first_col());
  float widest_w = font->CalcTextSizeA(full, FLT_MAX, 0.0f,
                                       "\xe2\x88\x92"
                                       "0.00")
                       .x;
  if (visible <= 4096 && l.cw >= 12.0f) {
    widest_w = 0.0f;
    for (int row = l.first_row(); row < l.end_row(); ++row)
      for (int c = l.first_col(); c < l.end_col(); ++c)
        widest_w = std::max(
            widest_w,
            font->CalcTextSizeA(full, FLT_MAX, 0.0f, cell_number(sized(row, c)).c_str()).x);
  }
  for (const float scale : {1.0f, 0.75f}) {
    if (!spec.numbers) break;
    const float px = full * scale;
    const ImVec2 widest(widest_w * scale, px);
    if (l.cw >= widest.x + 4.0f + 2.0f * scale && l.ch >= widest.y + 2.0f) {
      size = px;
      break;
    }
  }
  if (size > 0.0f) {
    for (int row = l.first_row(); row < l.end_row(); ++row)
      for (int c = l.first_col(); c < l.end_col(); ++c) {
        const float v = m(row, c);
        const bool masked = spec.mask && (*spec.mask)[row * l.cols + c];
        const std::string text = cell_number(v);
        const ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0.0f, text.c_str());
        const ImVec4 bg =
            ImGui::ColorConvertU32ToFloat4(cell_color(spec.palette, l.lo, l.hi, v, masked));
        const float lum = 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z;
        dl->AddText(
            font, size,
            ImVec2(l.cell_x(c) + (l.cw - ts.x) * 0.5f, l.cell_y(row) + (l.ch - ts.y) * 0.5f),
            lum > 0.45f ? IM_COL32(20, 22, 28, 255) : IM_COL32(255, 255, 255, 240), text.c_str());
      }
  }
  // Outlines: highlighted row/column from elsewhere, and the hovered cell.
  const ImU32 accent = IM_COL32(230, 60, 40, 255);
  if (spec.highlight_row >= 0 && spec.highlight_row < l.rows)
    dl->AddRect(ImVec2(l.g0.x, l.cell_y(spec.highlight_row)),
                ImVec2(l.g1.x, l.cell_y(spec.highlight_row + 1)), accent, 0, 0, 2.0f);
  if (spec.highlight_col >= 0 && spec.highlight_col < l.cols)
    dl->AddRect(ImVec2(l.cell_x(spec.highlight_col), l.g0.y),
                ImVec2(l.cell_x(spec.highlight_col + 1), l.g1.y), accent, 0, 0, 2.0f);
  if (r.hovered) {
    dl->AddRect(r.cell_min, r.cell_max, IM_COL32(255, 255, 255, 255), 0, 0, 3.0f);
    dl->AddRect(r.cell_min, r.cell_max, IM_COL32(20, 20, 20, 255), 0, 0, 1.0f);
  }
  dl->PopClipRect();
  return size;
}

// The two ends of a colour bar at one precision: the larger end to three significant digits
// and the other to as many decimals ("−3.00" and "3.16", not "−2.998" and "3.164"; "−0.92"
// and "1.00"). Numbers too large or too small for that are written as num() writes them.
static void legend_ends(float lo, float hi, std::string* lo_text, std::string* hi_text) {
  const float big = std::max(std::fabs(lo), std::fabs(hi));
  if (!std::isfinite(lo) || !std::isfinite(hi) || big >= 1e5f || big < 1e-3f) {
    *lo_text = num(lo);
    *hi_text = num(hi);
    return;
  }
  const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(big))), 0, 4);
  const auto write = [decimals](float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, static_cast<double>(v));
    std::string out = text;
    if (out.find_first_not_of("-0.") == std::string::npos) out = out.substr(out[0] == '-');
    if (!out.empty() && out[0] == '-') out = "\xe2\x88\x92" + out.substr(1);  // a real minus
    return out;
  };
  *lo_text = write(lo);
  *hi_text = write(hi);
}

// The grid of a hidden matrix: every cell the same grey, a "?" in those large enough for one.
void Heatmaps::hidden_cells(const Layout& l) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(l.g0, l.g1, true);
  dl->AddRectFilled(l.g0, l.g1, IM_COL32(226, 229, 235, 255));
  const ImU32 line = IM_COL32(246, 247, 249, 255);
  for (int c = l.first_col() + 1; c < l.end_col(); ++c)
    dl->AddLine(ImVec2(l.cell_x(c), l.g0.y), ImVec2(l.cell_x(c), l.g1.y), line);
  for (int row = l.first_row() + 1; row < l.end_row(); ++row)
    dl->AddLine(ImVec2(l.g0.x, l.cell_y(row)), ImVec2(l.g1.x, l.cell_y(row)), line);
  const ImVec2 q = ImGui::CalcTextSize("?");
  if (l.cw >= q.x + 4.0f && l.ch >= q.y + 2.0f)
    for (int row = l.first_row(); row < l.end_row(); ++row)
      for (int c = l.first_col(); c < l.end_col(); ++c)
        dl->AddText(ImVec2(l.cell_x(c) + (l.cw - q.x) * 0.5f, l.cell_y(row) + (l.ch - q.y) * 0.5f),
                    IM_COL32(96, 102, 114, 255), "?");
  dl->PopClipRect();
}

//-----------------------------------------------------------------------------
// [SECTION] Labels and axis names
//-----------------------------------------------------------------------------

void Heatmaps::labels(const HeatmapSpec& spec, const Layout& l, const HeatmapResult& r) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float line_h = l.line_h;
  // Row labels (every k-th when rows are thinner than a line of text).
  const int row_step = std::max(1, static_cast<int>(std::ceil((line_h + 1.0f) / l.ch)));
  float last_bottom = l.g0.y - 1.0f;
  for (int row = l.first_row(); row < l.end_row(); row += row_step) {
    const std::string label = spec.row_labels && row < static_cast<int>(spec.row_labels->size())
                                  ? (*spec.row_labels)[row]
                                  : std::to_string(row + 1);
    const std::string shown = fit_label(label, l.row_label_w - 8.0f);
    const ImVec2 ts = ImGui::CalcTextSize(shown.c_str());
    const float y = std::max(l.cell_y(row) + (l.ch - ts.y) * 0.5f, l.g0.y - 1.0f);
    if (y < last_bottom || y + ts.y > l.g1.y + line_h) continue;  // never on the one above
    last_bottom = y + ts.y;
    text(dl, ImVec2(l.g0.x - ts.x - 6.0f, y), row == r.row ? text_col : dim_col, shown);
  }
  // Column labels: flat when they fit, otherwise vertical.
  const float col_pitch = l.labels_flat ? l.cw : line_h + 1.0f;
  const int col_step = std::max(1, static_cast<int>(std::ceil(col_pitch / l.cw)));
  for (int c = l.first_col(); c < l.end_col(); c += col_step) {
    const std::string label = spec.col_labels && c < static_cast<int>(spec.col_labels->size())
                                  ? (*spec.col_labels)[c]
                                  : std::to_string(c + 1);
    const ImU32 color = c == r.col ? text_col : dim_col;
    // A label of a glyph or two stays flat among turned ones: a turned "I" reads as "—".
    const ImVec2 flat_size = ImGui::CalcTextSize(label.c_str());
    if (l.labels_flat ||
        (col_step == 1 && flat_size.x <= line_h * 1.2f && flat_size.x + 4.0f <= l.cw)) {
      text(dl, ImVec2(l.cell_x(c) + (l.cw - flat_size.x) * 0.5f, l.g0.y - flat_size.y - 3.0f),
           color, label);
    } else {
      const std::string shown = fit_label(label, l.col_label_h - 8.0f);
      const float x = l.cell_x(c) + l.cw * 0.5f;
      if (x < l.g0.x || x > l.g1.x) continue;
      add_text_vertical(dl, ImVec2(x, l.g0.y - 4.0f), color, shown);
      const ImVec2 ts = ImGui::CalcTextSize(shown.c_str());
      box(ImVec2(x - ts.y * 0.5f, l.g0.y - 4.0f - ts.x), ImVec2(x + ts.y * 0.5f, l.g0.y - 4.0f),
          shown);
    }
  }
  // Axis names in the top-left corner: "keys →" above "queries ↓" when the column labels
  // leave room for two lines, else on one line.
  if (!spec.row_axis[0] && !spec.col_axis[0]) return;
  const std::string rows_name = std::string(spec.row_axis) + " \xe2\x86\x93";
  const std::string cols_name = std::string(spec.col_axis) + " \xe2\x86\x92";
  const float w = l.row_label_w - 4.0f;
  const float top = l.g0.y - line_h - 3.0f;
  if (l.col_label_h >= 2.0f * line_h + 4.0f) {
    text(dl, ImVec2(l.origin.x, top - line_h), dim_col, fit_label(cols_name, w));
    text(dl, ImVec2(l.origin.x, top), dim_col, fit_label(rows_name, w));
    return;
  }
  // One line: the row axis in the corner, the column axis after the last column label.
  const std::string both = rows_name + "  " + cols_name;
  if (ImGui::CalcTextSize(both.c_str()).x <= w) {
    text(dl, ImVec2(l.origin.x, top), dim_col, both);
    return;
  }
  text(dl, ImVec2(l.origin.x, top), dim_col, fit_label(rows_name, w));
  if (l.g1.x + 8.0f + ImGui::CalcTextSize(cols_name.c_str()).x <= l.origin.x + l.avail.x)
    text(dl, ImVec2(l.g1.x + 8.0f, top), dim_col, cols_name);
}

//-----------------------------------------------------------------------------
// [SECTION] Legend
//-----------------------------------------------------------------------------

// The palette with the value range, a masked swatch when there is a mask, and zoom buttons
// when part of the matrix is hidden. Returns the bottom of the widget.
float Heatmaps::legend(const HeatmapSpec& spec, Layout* l) {
  if (!spec.legend) return l->g1.y;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float line_h = l->line_h;
  if (spec.hidden) {  // the scale would tell the range: the line says why there is none
    const std::string why = fit_label(T("Hidden until you answer the question above"),
                                      std::max(l->g1.x, l->origin.x + l->avail.x) - l->g0.x);
    text(dl, ImVec2(l->g0.x, l->g1.y + line_h * 0.5f), dim_col, why);
    l->legend_right = l->g0.x + ImGui::CalcTextSize(why.c_str()).x;
    return l->g1.y + line_h * 1.8f;
  }
  const ImVec2 g0 = l->g0, g1 = l->g1;
  const float y = g1.y + line_h * 0.5f;
  const float bar_h = line_h * 0.7f;
  std::string lo_text, hi_text;
  legend_ends(l->lo, l->hi, &lo_text, &hi_text);
  float lo_w = ImGui::CalcTextSize(lo_text.c_str()).x;
  float hi_w = ImGui::CalcTextSize(hi_text.c_str()).x;
  // The bar and its two numbers stay inside the widget's width: "lo [bar] hi" on one line,
  // or, when that leaves the bar too short, the bar under the grid and the numbers below it
  // (as the cells write them, shorter, when even that is too narrow).
  const float widget_right = l->origin.x + l->avail.x;
  const float room = widget_right - g0.x - lo_w - hi_w - 12.0f;
  const bool stacked = room < 60.0f;
  if (stacked && std::max(g1.x, widget_right) - g0.x < lo_w + hi_w + 12.0f) {
    lo_text = cell_number(l->lo);
    hi_text = cell_number(l->hi);
    lo_w = ImGui::CalcTextSize(lo_text.c_str()).x;
    hi_w = ImGui::CalcTextSize(hi_text.c_str()).x;
  }
  // (Wider than the widget rather than the two numbers on top of each other.)
  const float bar_w =
      stacked ? std::max(g1.x - g0.x, lo_w + hi_w + 12.0f)
              : std::max(24.0f, std::min({180.0f, room, std::max(80.0f, g1.x - g0.x - 40.0f)}));
  const ImVec2 bar0(stacked ? g0.x : g0.x + lo_w + 6.0f, y + (line_h - bar_h) * 0.5f);
  box(bar0, ImVec2(bar0.x + bar_w, bar0.y + bar_h), "[colour bar]");
  const int segments = 20;
  for (int s = 0; s < segments; ++s) {
    const ImU32 a =
        ImGui::ColorConvertFloat4ToU32(palette_color(spec.palette, s / float(segments)));
    const ImU32 b =
        ImGui::ColorConvertFloat4ToU32(palette_color(spec.palette, (s + 1) / float(segments)));
    dl->AddRectFilledMultiColor(ImVec2(bar0.x + bar_w * s / segments, bar0.y),
                                ImVec2(bar0.x + bar_w * (s + 1) / segments, bar0.y + bar_h), a, b,
                                b, a);
  }
  // Zero, where a scale around it has it: in the bar's light middle, in dark text.
  if (spec.palette == Palette::kDiverging && l->lo < 0.0f && l->hi > 0.0f) {
    const float zx = bar0.x + bar_w * (-l->lo / (l->hi - l->lo));
    const float size = bar_h * 1.1f;
    const ImVec2 zw = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0.0f, "0");
    dl->AddText(ImGui::GetFont(), size, ImVec2(zx - zw.x * 0.5f, bar0.y + (bar_h - zw.y) * 0.5f),
                IM_COL32(40, 40, 48, 255), "0");
  }
  float x;       // where the legend's first line ends
  float next_y;  // the top of the next free line
  float bottom_extra = 0.0f;
  if (stacked) {
    const float ny = bar0.y + bar_h + 2.0f;
    text(dl, ImVec2(g0.x, ny), dim_col, lo_text);
    text(dl, ImVec2(bar0.x + bar_w - hi_w, ny), dim_col, hi_text);
    x = std::max(g1.x, bar0.x + bar_w) + 6.0f;
    next_y = ny + line_h + 2.0f;
    bottom_extra = next_y - (y + line_h * 1.3f);
  } else {
    text(dl, ImVec2(g0.x, y), dim_col, lo_text);
    text(dl, ImVec2(bar0.x + bar_w + 6.0f, y), dim_col, hi_text);
    x = bar0.x + bar_w + 12.0f + hi_w;
    next_y = y + line_h * 1.3f;
  }
  bool any_mask = false;
  if (spec.mask)
    for (uint8_t v : *spec.mask) any_mask = any_mask || v;
  l->legend_right = x - 6.0f;
  if (any_mask) {
    // The swatch follows the bar when it fits beside the grid, else it takes a line below.
    const float swatch_w = 10.0f + bar_h * 1.6f + 5.0f + ImGui::CalcTextSize(T("masked")).x;
    float sy = bar0.y, ty = y;
    x += 10.0f;
    if (x - 10.0f + swatch_w > std::max(g1.x, l->legend_right)) {
      x = g0.x;
      sy = next_y + (line_h - bar_h) * 0.5f;
      ty = next_y;
      bottom_extra = next_y + line_h * 1.3f - (y + line_h * 1.3f);
    }
    const ImVec2 s0(x, sy), s1(x + bar_h * 1.6f, sy + bar_h);
    dl->AddRectFilled(s0, s1, ImGui::ColorConvertFloat4ToU32(kMaskedColor));
    for (float k = -bar_h; k < bar_h * 1.6f; k += 5.0f)
      dl->AddLine(
          ImVec2(std::max(s0.x, s0.x + k), s1.y - std::max(0.0f, -k)),
          ImVec2(std::min(s1.x, s0.x + k + bar_h), s0.y + std::max(0.0f, s0.x + k + bar_h - s1.x)),
          ImGui::ColorConvertFloat4ToU32(kMaskedStripe), 2.0f);
    box(s0, s1, "[masked swatch]");
    text(dl, ImVec2(s1.x + 5.0f, ty), dim_col, T("masked"));
    x = s1.x + 5.0f + ImGui::CalcTextSize(T("masked")).x;
    l->legend_right = std::max(l->legend_right, x);
  }
  if (l->zoomable) {
    View& view = *l->view;
    const float after =
        bottom_extra > 0.0f ? (stacked ? bar0.x + bar_w : bar0.x + bar_w + 6.0f + hi_w) : x;
    char dims[32];
    std::snprintf(dims, sizeof dims, "%d\xc3\x97%d", l->rows, l->cols);
    const float group_w = ImGui::CalcTextSize("\xe2\x88\x92+fit").x + ImGui::CalcTextSize(dims).x +
                          30.0f + 3.0f * ImGui::GetStyle().ItemSpacing.x;
    ImVec2 at(std::max(after + 12.0f, g1.x - 150.0f), y - 2.0f);
    if (at.x + group_w > l->origin.x + l->avail.x) {  // no room beside the legend: a line below
      at = ImVec2(g0.x, y + line_h * 1.3f + bottom_extra);
      bottom_extra += line_h * 1.3f;
    }
    ImGui::SetCursorScreenPos(at);
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 0));
    const ImVec2 zoom0 = ImGui::GetCursorScreenPos();
    if (ImGui::SmallButton("\xe2\x88\x92")) view.zoom = std::max(1.0f, view.zoom * 0.8f);
    ImGui::SameLine();
    if (ImGui::SmallButton("+")) view.zoom = std::min(64.0f, view.zoom * 1.25f);
    ImGui::SameLine();
    if (ImGui::SmallButton("fit")) view = View{};
    ImGui::SameLine();
    ImGui::TextDisabled("%s", dims);
    box(zoom0, ImGui::GetItemRectMax(), "[zoom buttons]");
    ImGui::PopStyleVar();
  }
  return y + line_h * 1.5f + bottom_extra;
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
  if (spec.hidden) r = HeatmapResult{};  // nothing to point at, click, edit or export
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

void Heatmaps::text(ImDrawList* dl, ImVec2 pos, ImU32 color, const std::string& text) {
  dl->AddText(pos, color, text.c_str());
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  box(pos, ImVec2(pos.x + size.x, pos.y + size.y), text);
}

void Heatmaps::box(ImVec2 p0, ImVec2 p1, const std::string& text) {
  boxes_.push_back(GridInfo::Box{p0.x, p0.y, p1.x, p1.y, text});
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
