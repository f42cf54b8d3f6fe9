// The pipeline panel's steps from the scores on: the n_q × n_k matrix of Scores, Scaled,
// Masked and Weights beside Q and K, the weighted values with the bands of their mixing, and
// the output.
#include <algorithm>
#include <cstdio>

#include "app/model/edits.h"
#include "app/text/i18n.h"
#include "app/views/panel_pipeline_internal.h"

namespace ui::detail {

HeatmapResult view_scores_like(Ctx& c, ImVec2 avail, MatrixKind kind) {
  AppState& s = c.s;
  // On a narrow screen the step's own matrix takes the whole width; Q and K stay one step back.
  // Many features (why_sqrt_d's 64): beside the step's matrix Q and K would get cells of a few
  // pixels, so they stand above it at the whole width instead, where the panel is tall enough
  // (a short one keeps its height for the step's matrix).
  const attn::Matrix* q_m = matrix_of(s, MatrixKind::kQ, c.head, c.b);
  const bool many = q_m && q_m->cols() > 24;
  const bool with_qk = avail.x >= 520.0f && (!many || avail.y >= 480.0f);
  const bool above = with_qk && many;
  const float q_k_cell = 34.0f;
  float left = with_qk && !above ? std::min(avail.x * 0.3f, 300.0f) : 0.0f;
  if (with_qk && !above) {
    // No wider than Q and K need at their largest cells: the rest goes to the step's matrix.
    float need = 60.0f;
    for (MatrixKind k : {MatrixKind::kQ, MatrixKind::kK}) {
      float label_w = 0.0f;
      const int cols = columns_and_labels(c, k, left, &label_w);
      need = std::max(need, label_w + ImGui::GetStyle().ItemSpacing.x + cols * q_k_cell);
    }
    left = std::min(left, need);
    // And narrower still (down to 80 px) when the step's matrix needs the width for its
    // numbers: "−0.00" at the numbers' smallest size (heatmap_draw.cpp, cells) in every column.
    float label_w = 0.0f;
    const int cols = columns_and_labels(c, kind, avail.x, &label_w);
    const float main_need = std::max(label_w, ImGui::CalcTextSize(T("queries")).x + 24.0f) +
                            ImGui::GetStyle().ItemSpacing.x + cols * number_cell();
    left = std::clamp(avail.x - 24.0f - main_need, 80.0f, left);
  }
  const CellRef* hov = hovered_on(
      s, {MatrixKind::kScores, MatrixKind::kScaled, MatrixKind::kMasked, MatrixKind::kWeights});
  if (with_qk) {
    const float top = ImGui::GetCursorScreenPos().y;
    if (!above) ImGui::BeginGroup();
    // Q_h and K_h, with the hovered cell's query row and key row outlined.
    const bool heads = s.scenario.heads > 1;
    MatrixDraw d;
    d.legend = false;
    d.max_cell_px = q_k_cell;
    d.size = above ? ImVec2(avail.x, avail.y * 0.2f) : ImVec2(left, avail.y * 0.45f);
    d.id = "qh";
    d.caption = heads ? "Q_h" : "Q";
    d.highlight_row = hov ? hov->row : -1;
    block(c, MatrixKind::kQ, d);
    d.id = "kh";
    d.caption = heads ? "K_h" : "K";
    d.highlight_row = hov ? hov->col : -1;
    block(c, MatrixKind::kK, d);
    if (above) {
      avail.y = std::max(avail.y * 0.5f, avail.y - (ImGui::GetCursorScreenPos().y - top));
    } else {
      ImGui::EndGroup();
      ImGui::SameLine(0, 24);
    }
  }
  MatrixDraw main;
  main.id = "main";
  main.caption = matrix_info(kind).symbol;
  main.size = ImVec2(avail.x - (with_qk && !above ? left + 24 : 0), avail.y);
  main.axis_names = true;
  // When the height is short (an 800×600 iframe), cells wider than tall keep the numbers.
  main.max_aspect = 2.5f;
  main.keep_numbers = true;
  // Coming from the step before: the matrix moves from that step's values to its own.
  attn::Matrix moving;
  const Transition& t = s.transition;
  if (t.active && t.to == s.step) {
    const attn::Matrix* before = matrix_of(s, step_matrix(t.from), c.head, c.b);
    const attn::Matrix* after = matrix_of(s, kind, c.head, c.b);
    if (before && after) {
      moving = transition_values(s.step, *before, *after, t.eased());
      main.shown = &moving;
      main.masked = s.step != Step::kMasked;  // the hatch comes when the cells have fallen
      if (s.step == Step::kWeights) main.caption = "exp(M \xe2\x88\x92 max M) \xe2\x86\x92 A";
    }
  }
  const HeatmapResult r = block(c, kind, main);
  if (r.clicked && s.mask_by_click) {
    toggle_masked_cell(&s.scenario, c.b, r.row, r.col);
    s.changed();
  }
  return r;
}

namespace {

// The mixing of one output row, drawn over W · V = O: from each value row j a band to output
// row i, as thick as the weight A[i, j], labelled "×A[i, j]" — O's row i is the sum of V's
// rows, each scaled by its weight. Rows scrolled out of view are left out.
void draw_mixing(Ctx& c, int row, float progress) {
  const auto& grids = c.h.last_grids();
  const auto v_it = grids.find("v"), o_it = grids.find("o");
  if (v_it == grids.end() || o_it == grids.end()) return;
  const GridInfo &v = v_it->second, &o = o_it->second;
  if (v.frame != o.frame || v.cell <= 0.0f || o.cell <= 0.0f) return;
  if (o.wx0 < v.x1) return;  // O under V (a phone's column): no room between them for bands
  const attn::Matrix* a = matrix_of(c.s, MatrixKind::kWeights, c.head, c.b);
  if (!a || row < 0 || row >= a->rows()) return;
  const float yo = o.y0 + (static_cast<float>(row) - o.first_row + 0.5f) * o.cell;
  if (yo < o.y0 || yo > o.y1) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float band = std::min(v.cell, o.cell) * 0.8f;  // the thickness of a weight of 1
  const bool labels = v.cell >= ImGui::GetFontSize();
  for (Eigen::Index j = 0; j < a->cols() && j < v.rows; ++j) {
    const float w = (*a)(row, j);
    if (!(w > 0.002f)) continue;  // masked, or too small to see
    const float yv = v.y0 + (static_cast<float>(j) - v.first_row + 0.5f) * v.cell;
    if (yv < v.y0 || yv > v.y1) continue;
    const ImU32 colour = IM_COL32(40, 90, 200, static_cast<int>(70 + 150 * std::min(1.0f, w)));
    const ImVec2 from(v.x1 + 2.0f, yv), to(o.wx0 - 2.0f, yo);  // to O's row labels
    const float dx = (to.x - from.x) * 0.5f;
    const ImVec2 p1(from.x + dx, from.y), p2(to.x - dx, to.y);
    if (progress >= 1.0f) {
      dl->AddBezierCubic(from, p1, p2, to, colour, std::max(1.0f, band * w));
    } else {  // the band so far: the curve from V's row up to `progress`
      constexpr int kPoints = 24;
      ImVec2 points[kPoints + 1];
      for (int k = 0; k <= kPoints; ++k) {
        const float u = progress * k / kPoints, v = 1.0f - u;
        const float b0 = v * v * v, b1 = 3 * v * v * u, b2 = 3 * v * u * u, b3 = u * u * u;
        points[k] = ImVec2(b0 * from.x + b1 * p1.x + b2 * p2.x + b3 * to.x,
                           b0 * from.y + b1 * p1.y + b2 * p2.y + b3 * to.y);
      }
      dl->AddPolyline(points, kPoints + 1, colour, 0, std::max(1.0f, band * w));
    }
    if (labels) {
      char text[16];
      std::snprintf(text, sizeof text, "\xc3\x97%.2f", w);
      dl->AddText(ImVec2(from.x + 3.0f, yv - ImGui::GetFontSize() - 1.0f),
                  ImGui::GetColorU32(ImGuiCol_Text), text);
    }
  }
}

// Matrices stacked one above the other in a narrow panel each keep this height at least, where
// a share of the screen would leave them too small to read (the panel scrolls).
float stacked_min_height(ImVec2 avail) {
  return std::min(avail.x * 0.5f, 240.0f);
}

}  // namespace

void view_weighted_values(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const CellRef* hov = hovered_on(s, {MatrixKind::kHeadOutput});
  // A row of W or of O: the query whose mixing is drawn.
  const CellRef* mixing = hovered_on(s, {MatrixKind::kHeadOutput, MatrixKind::kWeights});
  // Room between V and O for the mixing's bands (draw_mixing).
  const float gap = std::min(80.0f, avail.x * 0.1f);
  // A phone, or cells in one row too small for their numbers (many keys, long token names):
  // A on a row of its own, then V = O below it, so that none is squeezed to a stamp.
  float side_cell = 0.0f;
  std::vector<float> w =
      s.transpose ? widths_in_row(c, avail.x - 80.0f - gap,
                                  {MatrixKind::kV, MatrixKind::kWeights, MatrixKind::kHeadOutput},
                                  &side_cell)
                  : widths_in_row(c, avail.x - 80.0f - gap,
                                  {MatrixKind::kWeights, MatrixKind::kV, MatrixKind::kHeadOutput},
                                  &side_cell);
  const bool narrow = avail.x < 520.0f || side_cell < number_cell();
  // And when V = O on one line still leaves cells too small (a phone, 10 keys): all three in a
  // column, each at the panel's width and as tall as its rows need. Transposed (V · A = O),
  // a narrow panel always stacks the three.
  bool column = false;
  if (narrow && s.transpose) {
    column = true;
    w.assign(3, avail.x);
  } else if (narrow) {
    float vo_cell = 0.0f;
    w = widths_in_row(c, avail.x - 40.0f - gap, {MatrixKind::kV, MatrixKind::kHeadOutput},
                      &vo_cell);
    column = vo_cell < number_cell();
    if (column) w.assign(2, avail.x);
    w.insert(w.begin(), avail.x);
  }
  const float h = narrow ? std::max(avail.y * 0.48f, stacked_min_height(avail)) : avail.y;
  // What a block needs besides its rows: caption, column labels (turned ones up to 98 px) and
  // legend.
  const float fixed_h = 98.0f + 4.0f * ImGui::GetTextLineHeightWithSpacing();
  const bool heads = s.scenario.heads > 1;
  // W · V_h = O_h, the hovered output row's weights row and value column outlined.
  struct Block {
    const char *id, *caption, *sign_after;
    MatrixKind kind;
    int highlight_row, highlight_col;
  };
  const Block row_blocks[] = {
      {"w", "A", "\xc2\xb7", MatrixKind::kWeights, mixing ? mixing->row : -1, -1},
      {"v", heads ? "V_h" : "V", "=", MatrixKind::kV, -1, hov ? hov->col : -1},
      {"o", heads ? "O_h" : "O", nullptr, MatrixKind::kHeadOutput, mixing ? mixing->row : -1, -1},
  };
  // Transposed (the column convention): V · A = O, each output column a mix of V's columns.
  const Block column_blocks[] = {
      {"v", heads ? "V_h" : "V", "\xc2\xb7", MatrixKind::kV, -1, hov ? hov->col : -1},
      {"w", "A", "=", MatrixKind::kWeights, mixing ? mixing->row : -1, -1},
      {"o", heads ? "O_h" : "O", nullptr, MatrixKind::kHeadOutput, mixing ? mixing->row : -1, -1},
  };
  const Block* blocks = s.transpose ? column_blocks : row_blocks;
  constexpr size_t kBlocks = std::size(row_blocks);
  // Arriving from the weights: O fills in from 0 as the value rows flow into it.
  const bool moving = s.transition.active && s.transition.to == Step::kWeightedValues;
  attn::Matrix o_so_far;
  if (moving)
    if (const attn::Matrix* o = matrix_of(s, MatrixKind::kHeadOutput, c.head, c.b))
      o_so_far = *o * s.transition.eased();
  for (size_t i = 0; i < kBlocks; ++i) {
    MatrixDraw d;
    d.size = ImVec2(w[i], h);
    if (column || (narrow && blocks[i].kind == MatrixKind::kWeights)) {
      const float need = fixed_h + stacked_rows(c, blocks[i].kind) * 28.0f;
      d.size.y = column ? need : std::max(h, need);
    }
    if (blocks[i].kind == MatrixKind::kHeadOutput && o_so_far.size() > 0) d.shown = &o_so_far;
    d.id = blocks[i].id;
    d.caption = blocks[i].caption;
    d.highlight_row = blocks[i].highlight_row;
    d.highlight_col = blocks[i].highlight_col;
    block(c, blocks[i].kind, d);
    if (narrow && !s.transpose && blocks[i].kind == MatrixKind::kWeights)
      continue;  // V = O on the next row
    if (column && blocks[i].sign_after) {
      stacked_sign(blocks[i].sign_after);
    } else if (blocks[i].sign_after) {
      operator_sign(blocks[i].sign_after, h * 0.5f,
                    blocks[i].kind == MatrixKind::kV && !s.transpose ? gap : 0);
    }
  }
  // The bands join V's rows to O's: transposed, the values are columns and the bands are left
  // out.
  if (s.transpose)
    return;
  else if (mixing)
    draw_mixing(c, mixing->row, 1.0f);
  else if (moving)  // arriving at this step: the first query's value rows flow into O
    draw_mixing(c, 0, s.transition.eased());
}

void view_output(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const bool wo = s.problem.weights.W_o.size() > 0;
  // On a phone, or where cells side by side would be too small for their numbers, the three
  // stand one above the other, the "·" and "=" between them.
  float side_cell = 0.0f;
  // Alone (no W_o): 60% of the panel, up to 600 px, or wider when its columns need it to
  // show their numbers (a seq2seq model's 16 context columns).
  const auto alone_width = [&]() {
    float label_w = 0.0f;
    const int cols = columns_and_labels(c, MatrixKind::kConcat, avail.x, &label_w);
    const float wanted = label_w + ImGui::GetStyle().ItemSpacing.x + cols * (number_cell() + 2.0f);
    return std::min(avail.x, std::max(std::min(avail.x * 0.6f, 600.0f), wanted));
  };
  std::vector<float> w =
      wo && s.transpose
          ? widths_in_row(c, avail.x - 80.0f,
                          {MatrixKind::kWo, MatrixKind::kConcat, MatrixKind::kOutput}, &side_cell)
      : wo ? widths_in_row(c, avail.x - 80.0f,
                           {MatrixKind::kConcat, MatrixKind::kWo, MatrixKind::kOutput}, &side_cell)
           : std::vector<float>{alone_width()};
  const bool narrow = wo && (avail.x < 520.0f || side_cell < number_cell());
  if (narrow) w.assign(3, avail.x);
  const float row_h = narrow ? std::max({120.0f, stacked_min_height(avail),
                                         (avail.y - 5 * ImGui::GetTextLineHeightWithSpacing()) / 3})
                             : avail.y;
  const auto sign = [&](const char* text) {
    if (narrow)
      stacked_sign(text);
    else
      operator_sign(text, avail.y * 0.5f);
  };
  // Stacked, each as tall as its rows need (W_o has as many as the model has columns).
  const auto height_of = [&](MatrixKind k) {
    if (!narrow) return row_h;
    return std::max(row_h,
                    5.0f * ImGui::GetTextLineHeightWithSpacing() + stacked_rows(c, k) * 24.0f);
  };
  MatrixDraw d;
  // Transposed (the column convention): W_oᵀ · [O_1; ...; O_H] = output, the heads' outputs
  // one above another.
  const auto concat = [&](float width) {
    d.size = ImVec2(width, height_of(MatrixKind::kConcat));
    d.id = "concat";
    d.caption = s.scenario.heads > 1
                    ? (s.transpose ? "[O_1 ; ... ; O_H]" : T("concat [O_1 | ... | O_H]"))
                    : "O_1";
    block(c, MatrixKind::kConcat, d);
  };
  if (!wo || !s.transpose) concat(w[0]);
  if (!wo) return;
  if (!s.transpose) sign("\xc2\xb7");
  d.size = ImVec2(w[s.transpose ? 0 : 1], height_of(MatrixKind::kWo));
  d.id = "wo";
  char wo_caption[16];
  std::snprintf(wo_caption, sizeof wo_caption, "W_o%s", s.transpose ? kTransposed : "");
  d.caption = wo_caption;
  block(c, MatrixKind::kWo, d);
  if (s.transpose) {
    sign("\xc2\xb7");
    concat(w[1]);
  }
  sign("=");
  d.size = ImVec2(w[2], height_of(MatrixKind::kOutput));
  d.id = "out";
  d.caption = T("output");
  block(c, MatrixKind::kOutput, d);
}

}  // namespace ui::detail
