// The positional-encoding explorer: the PE matrix, a few of its sinusoids, and an experiment
// that shuffles the tokens with and without PE to show what positions change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/edits.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

void draw_positional(AppState& s, Heatmaps& h) {
  const int n = s.scenario.n_queries();
  const int scenario_d = attn::batch_cols(s.scenario.queries);
  // The explorer's own table: as many positions as the learner asks for (a one-token scenario
  // shows no pattern), with the scenario's d unless changed here (views.h).
  PositionalPanel& e = s.positional;
  positional_table(s);
  int& positions = e.positions;
  int& d = e.d;
  text_wrapped(
      T("Self-attention compares tokens by their vectors only, so on its own it "
        "cannot tell first from last. Sinusoidal positional encoding adds a "
        "different pattern to each position: column pairs 2i and 2i+1 are a "
        "sine and a cosine whose wavelength grows with i."));
  const double base = s.scenario.pe_base;
  text_wrapped_formula(printf_text(
      "PE[p, 2i] = sin(p / %g^(2i/d)),   PE[p, 2i+1] = cos(p / %g^(2i/d))", base, base));
  ImGui::SetNextItemWidth(160.0f);
  ImGui::SliderInt(T("positions"), &positions, 1, 256);
  ImGui::SameLine(0, 24);
  ImGui::SetNextItemWidth(160.0f);
  ImGui::SliderInt(T("features d##pe"), &d, 2, 128);
  ImGui::SameLine();
  help_marker(printf_text(T("The table depends on d: every column's frequency is 1 / "
                            "%g^(2i/d). Change d here to see more or fewer frequencies; the "
                            "scenario keeps its own d."),
                          base)
                  .c_str());
  const attn::Matrix& pe = positional_table(s);  // as the sliders left it
  const bool same_d = d == scenario_d;
  const int outlined = same_d ? std::min(n, positions) : 0;
  text_wrapped(positional_note(s).c_str(), true);

  const float avail = ImGui::GetContentRegionAvail().x;
  // The matrix and the plot side by side, or one above the other in a narrow panel (an
  // 800 × 600 iframe), each title wrapped to its own width so that neither pushes the other out.
  const bool stacked = avail < 600.0f;
  const float half = stacked ? avail : avail * 0.5f - 8.0f;
  const float height = stacked ? 260.0f : std::min(320.0f, ImGui::GetContentRegionAvail().y * 0.5f);
  std::vector<std::string> rows;
  for (int p = 0; p < positions; ++p) rows.push_back(std::to_string(p));
  std::vector<std::string> cols;
  for (int c = 0; c < d; ++c) cols.push_back(std::to_string(c));
  HeatmapSpec sp;
  sp.id = "pe";
  sp.values = &pe;
  sp.row_labels = &rows;
  sp.col_labels = &cols;
  sp.row_axis = T("position");
  sp.col_axis = T("column");
  sp.palette = Palette::kDiverging;
  sp.fixed_range = true;
  sp.lo = -1.0f;
  sp.hi = 1.0f;
  sp.size = ImVec2(half, height);
  sp.max_aspect = 6.0f;  // few features, many positions: wide cells
  sp.revision = e.pe_revision;
  ImGui::BeginGroup();
  text_wrapped(T("PE matrix (rows: positions, columns: features)"), false, half);
  sp.export_name = "positional_encoding_" + std::to_string(positions) + "x" + std::to_string(d);
  const HeatmapResult r = draw_heatmap(s, h, sp);
  if (r.hovered) set_hover(s, CellRef{MatrixKind::kPositional, 0, 0, r.row, r.col, d}, r);
  if (outlined > 0) {
    // Outline the scenario's rows where they are visible.
    const auto it = h.last_grids().find("pe");
    if (it != h.last_grids().end() && it->second.cell > 0) {
      const GridInfo& g = it->second;
      const float y1 = std::min(g.y1, g.y0 + (outlined - g.first_row) * g.cell);
      if (y1 > g.y0)
        ImGui::GetWindowDrawList()->AddRect(ImVec2(g.x0 - 1, g.y0 - 1), ImVec2(g.x1 + 1, y1 + 1),
                                            IM_COL32(20, 24, 32, 255), 0.0f, 0, 2.5f);
    }
  }
  ImGui::EndGroup();
  if (!stacked) ImGui::SameLine(0, 16);

  // Sinusoids of a few columns, plotted over the positions.
  ImGui::BeginGroup();
  text_wrapped(T("Columns as functions of the position"), false, half);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(half, height - ImGui::GetTextLineHeightWithSpacing());
  dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(255, 255, 255, 255));
  dl->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(210, 214, 222, 255));
  // The plot area, inside margins for the legend (top), the value ticks (left) and the
  // positions (bottom).
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 axis_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float left = p0.x +
                     ImGui::CalcTextSize(
                         "\xe2\x88\x92"
                         "1")
                         .x +
                     10.0f;
  const float right = p0.x + size.x - 10.0f;
  // The columns plotted (first, second, third, middle, last: each once) and their legend, in
  // as many lines as the plot's width needs (it was cut at the side, "colu", on a narrow one).
  const std::vector<int> shown_cols = positional_plotted_columns(d);
  std::vector<std::string> labels;
  std::vector<ImVec2> label_at;
  float legend_x = left, legend_y = p0.y + 5.0f;
  for (const int c : shown_cols) {
    const std::string label = printf_text("%s %d", T("column"), c);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    if (legend_x > left && legend_x + w > right) {
      legend_x = left;
      legend_y += lh + 2.0f;
    }
    labels.push_back(label);
    label_at.push_back(ImVec2(legend_x, legend_y));
    legend_x += w + 14.0f;
  }
  const float top = legend_y + lh + 7.0f, bottom = p0.y + size.y - lh - 8.0f;
  const float mid = (top + bottom) * 0.5f, amp = (bottom - top) * 0.5f;
  for (int v = -1; v <= 1; ++v) {
    const float y = mid - v * amp;
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), IM_COL32(226, 229, 235, 255));
    const char* text = v > 0   ? "1"
                       : v < 0 ? "\xe2\x88\x92"
                                 "1"
                               : "0";
    dl->AddText(ImVec2(left - ImGui::CalcTextSize(text).x - 5.0f, y - lh * 0.5f), axis_col, text);
  }
  const int span = std::max(positions - 1, 1);
  const int tick_step = std::max(1, span / 8);
  for (int p = 0; p <= span; p += tick_step) {
    const float x = left + (right - left) * p / span;
    char text[16];
    std::snprintf(text, sizeof text, "%d", p);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(text).x * 0.5f, bottom + 3.0f), axis_col, text);
  }
  const ImU32 colors[] = {IM_COL32(84, 39, 136, 255), IM_COL32(224, 130, 20, 255),
                          IM_COL32(33, 145, 140, 255), IM_COL32(179, 88, 6, 255),
                          IM_COL32(128, 115, 172, 255)};
  for (size_t k = 0; k < shown_cols.size(); ++k) {
    const int c = shown_cols[k];
    const double freq =
        std::pow(static_cast<double>(s.scenario.pe_base), -static_cast<double>(c - c % 2) / d);
    ImVec2 prev;
    for (int x = 0; x <= 200; ++x) {
      const double pos = span * x / 200.0;
      const double v = c % 2 == 0 ? std::sin(pos * freq) : std::cos(pos * freq);
      const ImVec2 pt(left + (right - left) * x / 200.0f, mid - static_cast<float>(v) * amp);
      if (x) dl->AddLine(prev, pt, colors[k], 2.0f);
      prev = pt;
    }
    for (int p = 0; p < positions && positions <= 64; ++p) {
      const ImVec2 pt(left + (right - left) * p / span, mid - pe(p, c) * amp);
      dl->AddCircleFilled(pt, 3.0f, colors[k]);
    }
    dl->AddText(label_at[k], colors[k], labels[k].c_str());
  }
  ImGui::Dummy(size);
  ImGui::EndGroup();

  // The experiment.
  ImGui::Spacing();
  ImGui::Separator();
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(T("Does word order matter?"));
  if (g_fonts.title) ImGui::PopFont();
  if (!s.scenario.self_attention) {
    ImGui::TextDisabled("%s", T("This experiment needs self-attention (a scenario with x)."));
    return;
  }
  if (s.layered()) {  // its shuffle would reorder one layer's stream, not the stack's tokens
    ImGui::TextDisabled("%s", T("This experiment runs on one layer: open a scenario without "
                                "\"layers\"."));
    return;
  }
  if (ImGui::Checkbox(T("positional encoding"), &s.scenario.positional_encoding)) s.changed();
  ImGui::SameLine();
  if (ImGui::Button(T("Shuffle tokens"))) {
    shuffle_tokens(&s.scenario, ++e.shuffle_seed);
    s.changed();
  }
  positional_experiment(s, &e);
  if (!e.experiment_valid) return;
  float worst_without = 0.0f, worst_with = 0.0f;
  for (float v : e.change_without) worst_without = std::max(worst_without, v);
  for (float v : e.change_with) worst_with = std::max(worst_with, v);
  text_wrapped(T("Shuffling the tokens and comparing each token's output row before and after:"));
  ImGui::BulletText("%s %.4f", T("without positional encoding, the largest change is"),
                    worst_without);
  ImGui::BulletText("%s %.4f", T("with positional encoding, the largest change is"), worst_with);
  text_wrapped(positional_conclusion(s.scenario).c_str(), true);
}

}  // namespace ui
