// The heatmap widget's drawing: the cells and their numbers, the hidden grid, the labels and
// axis names, and the legend with its zoom buttons.
//
// [SECTION] Text helpers
// [SECTION] Cells, numbers and outlines
// [SECTION] Labels and axis names
// [SECTION] Legend
#include "app/widgets/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/text/text_wrap.h"
#include "app/widgets/heatmap_internal.h"
#include "app/widgets/vertical_text.h"

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

}  // namespace

void Heatmaps::text(ImDrawList* dl, ImVec2 pos, ImU32 color, const std::string& text) {
  dl->AddText(pos, color, text.c_str());
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  box(pos, ImVec2(pos.x + size.x, pos.y + size.y), text);
}

void Heatmaps::box(ImVec2 p0, ImVec2 p1, const std::string& text) {
  boxes_.push_back(GridInfo::Box{p0.x, p0.y, p1.x, p1.y, text});
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
                    IM_COL32(52, 58, 70, 255), "?");
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

}  // namespace ui
