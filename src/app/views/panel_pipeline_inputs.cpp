// The pipeline panel's first two steps: the inputs (X, or queries, keys and values, with the
// positional encoding added) and their projections to Q, K and V.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/edits.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/panel_pipeline_internal.h"

namespace ui::detail {

void view_inputs(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const bool pe = s.problem.positional_encoding;
  auto edit = [&](const HeatmapResult& r, char which) {
    if (!r.edited) return;
    set_input(&s.scenario, which, c.b, r.edit_row, r.edit_col, r.edit_value);
    s.changed();
  };
  // The cell a matrix of `kind` gets in a widget `w` wide.
  const auto cell_in = [&](MatrixKind kind, float w) {
    float label_w = 0.0f;
    const int cols = columns_and_labels(c, kind, w, &label_w);
    return (w - label_w - ImGui::GetStyle().ItemSpacing.x) / cols;
  };
  // The inputs as given (editable); the table's kQueries... hold them after PE.
  if (s.scenario.self_attention) {
    // X + PE = X + PE side by side, or, on a phone or where the cells would be too small for
    // their numbers, one above the other at the panel's width.
    const bool stacked =
        pe && (avail.x < 520.0f ||
               cell_in(MatrixKind::kQueries, (avail.x - 80.0f) / 3.0f) < number_cell());
    // Alone, X is at most 560 px wide, unless its cells would be too narrow for their numbers
    // there (16 features, as a token model's stream has).
    const float alone =
        cell_in(MatrixKind::kQueries, 560.0f) < number_cell() ? avail.x : std::min(avail.x, 560.0f);
    const float w = stacked ? avail.x : pe ? (avail.x - 80.0f) / 3.0f : alone;
    const float h = stacked ? std::max(5.0f * ImGui::GetTextLineHeightWithSpacing() +
                                           stacked_rows(s.problem.queries[c.b].rows()) * 26.0f,
                                       avail.y / 3.0f)
                            : avail.y;
    const auto sign = [&](const char* text) {
      if (stacked)
        stacked_sign(text);
      else
        operator_sign(text, avail.y * 0.5f);
    };
    MatrixDraw x;
    x.id = "x";
    x.caption = pe            ? T("X (drag a cell to change it)")
                : s.transpose ? T("X: one column per token (drag a cell to change it)")
                              : T("X: one row per token (drag a cell to change it)");
    x.size = ImVec2(w, h);
    x.values = &s.problem.queries[c.b];
    x.editable = true;
    // X, PE and X + PE are added: one colour scale for the three (unless each is scaled
    // alone), so that a cell's colour in the sum is the colours above it added.
    const attn::Matrix* pe_m = pe ? matrix_of(s, MatrixKind::kPositional, c.head, c.b) : nullptr;
    const attn::Matrix* sum = pe ? matrix_of(s, MatrixKind::kQueries, c.head, c.b) : nullptr;
    ValueRange added;
    if (pe && pe_m && sum && !s.scale_alone) {
      const float top = std::max({x.values->size() ? x.values->cwiseAbs().maxCoeff() : 0.0f,
                                  pe_m->size() ? pe_m->cwiseAbs().maxCoeff() : 0.0f,
                                  sum->size() ? sum->cwiseAbs().maxCoeff() : 0.0f});
      if (std::isfinite(top) && top > 0.0f) added = ValueRange{true, -top, top};
      x.values_range = added;
    }
    edit(block(c, MatrixKind::kQueries, x), 'x');
    if (pe) {
      sign("+");
      MatrixDraw d;
      d.id = "pe";
      d.caption = "PE";
      d.size = ImVec2(w, h);
      d.values = pe_m;
      d.values_range = added;
      block(c, MatrixKind::kPositional, d);
      sign("=");
      d.id = "xpe";
      d.caption = "X + PE";
      d.values = sum;
      block(c, MatrixKind::kQueries, d);
    }
    return;
  }
  // Side by side; on a phone, or where the cells would be too small for their numbers (long
  // token names, an 800 × 600 iframe), one above the other, each keeping its legend's room.
  const float side_w = (avail.x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const bool narrow =
      avail.x < 420.0f ||
      std::min({cell_in(MatrixKind::kQueries, side_w), cell_in(MatrixKind::kKeys, side_w),
                cell_in(MatrixKind::kValues, side_w)}) < number_cell();
  const float w = narrow ? avail.x : side_w;
  // One above the other: the height shared in proportion to the rows, after each block's
  // caption, column labels and legend (about five lines).
  const float fixed_h = 5.0f * ImGui::GetTextLineHeightWithSpacing();
  const float rows_total =
      static_cast<float>(s.problem.queries[c.b].rows() + 2 * s.problem.keys[c.b].rows());
  const auto height_for = [&](const attn::Batch& raw) {
    if (!narrow) return avail.y;
    const float share = static_cast<float>(raw[c.b].rows()) / std::max(1.0f, rows_total);
    // Rows of at least 26 px, or the height's share.
    return std::max(fixed_h + stacked_rows(raw[c.b].rows()) * 26.0f,
                    fixed_h + (avail.y - 3.0f * fixed_h) * share);
  };
  const struct {
    const char* id;
    const char* caption;
    MatrixKind kind;
    const attn::Batch& raw;
    char which;
  } inputs[] = {{"q", T("queries"), MatrixKind::kQueries, s.problem.queries, 'q'},
                {"k", T("keys"), MatrixKind::kKeys, s.problem.keys, 'k'},
                {"v", T("values"), MatrixKind::kValues, s.problem.values, 'v'}};
  // Queries and keys are compared (their dot products are the scores): one colour scale for
  // the two, around 0 (unless each is scaled alone). The values are another space, and often
  // another size (up to 39 against keys of ones in textbook_ones), so they get their own:
  // a shared one would leave the smaller matrix blank.
  ValueRange shared;
  if (!s.scale_alone) {
    float top = 0.0f;
    for (const auto& in : inputs)
      if (in.which != 'v' && c.b < static_cast<int>(in.raw.size()) && in.raw[c.b].size() > 0)
        top = std::max(top, in.raw[c.b].cwiseAbs().maxCoeff());
    if (std::isfinite(top) && top > 0.0f) shared = ValueRange{true, -top, top};
  }
  for (const auto& in : inputs) {
    if (in.which != 'q' && !narrow) ImGui::SameLine();
    MatrixDraw d;
    d.id = in.id;
    d.caption = in.caption;
    d.size = ImVec2(w, height_for(in.raw));
    d.values = &in.raw[c.b];
    d.values_range = in.which == 'v' ? ValueRange{} : shared;
    d.editable = true;
    edit(block(c, in.kind, d), in.which);
  }
  if (pe)
    ImGui::TextDisabled("%s", T("Positional encoding is added to all three; see the PE tab."));
}

void view_projections(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  // W_q and W_k that are the scoring's own network (additive's) project nothing.
  const bool additive = !attn::scoring_info(s.problem.scoring).projects;
  // A third of the height each, but never less than cells a number fits in (22 px) under a
  // caption and column labels: on a short screen the panel scrolls instead.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  // (Up to 16 rows: longer sequences are read by pointing, not by their numbers.)
  const auto tall = std::min<Eigen::Index>(
      16, std::max(s.problem.queries[c.b].rows(), s.problem.keys[c.b].rows()));
  const float rows_h = static_cast<float>(tall) * 22.0f + 4.0f * line;
  const float row_h = std::max({90.0f, (avail.y - 3 * line) / 3.0f, rows_h});
  struct Row {
    const char* symbol;
    MatrixKind in, w, out;
    const char *x_id, *w_id, *out_id;  // unique heatmap ids (ap_layout reports them)
    const char* x_caption;
  };
  const Row rows[] = {
      {"Q", MatrixKind::kQueries, MatrixKind::kWq, MatrixKind::kQ, "x_q", "W_q", "Q",
       N_("X (queries)")},
      {"K", MatrixKind::kKeys, MatrixKind::kWk, MatrixKind::kK, "x_k", "W_k", "K", N_("X (keys)")},
      {"V", MatrixKind::kValues, MatrixKind::kWv, MatrixKind::kV, "x_v", "W_v", "V",
       N_("X (values)")}};
  const CellRef* hov = hovered_on(s, {MatrixKind::kQ, MatrixKind::kK, MatrixKind::kV});
  // In additive scoring W_q and W_k belong to the scoring network: no projection here.
  auto projects = [&](const Row& r) {
    return matrix_of(s, r.w, c.head, c.b) && !(additive && r.w != MatrixKind::kWv);
  };
  // Self-attention with one head and no projections: Q, K and V are X itself, said once.
  const bool same = s.scenario.self_attention && s.scenario.heads == 1 &&
                    std::none_of(std::begin(rows), std::end(rows), projects);
  if (same) {
    const std::vector<float> w =
        widths_in_row(c, avail.x - 40.0f, {MatrixKind::kQueries, MatrixKind::kQ});
    const float h = std::min(avail.y, row_h * 2.0f);
    MatrixDraw d;
    d.id = "x_q";
    d.caption = "X";
    d.size = ImVec2(w[0], h);
    if (hov) d.highlight_row = hov->row;
    block(c, MatrixKind::kQueries, d);
    operator_sign("=", h * 0.5f);
    d.id = "Q";
    d.caption = "Q = K = V";
    d.size = ImVec2(w[1], h);
    d.highlight_row = -1;
    block(c, MatrixKind::kQ, d);
    return;
  }
  // On a phone three matrices side by side get a few pixels a cell: X, W and the projection
  // go one under another instead, each the panel's width, with room for their numbers.
  if (avail.x < 520.0f) {
    const auto full = [&](MatrixKind k, const char* id, const char* caption) {
      const float n = stacked_rows(c, k);
      MatrixDraw d;
      d.legend = false;
      d.max_aspect = 2.5f;
      d.id = id;
      d.caption = caption;
      d.size = ImVec2(avail.x, n * 26.0f + 4.0f * line);
      block(c, k, d);
    };
    for (const Row& r : rows) {
      ImGui::PushID(r.symbol);
      const bool projected = projects(r);
      char w_caption[64];
      if (s.transpose && projected) {  // Q = W_qᵀ·X: the weights first
        std::snprintf(w_caption, sizeof w_caption, "%s%s", matrix_info(r.w).symbol, kTransposed);
        const std::string x_caption = printf_text("\xc2\xb7 %s", T(r.x_caption));
        full(r.w, r.w_id, w_caption);
        full(r.in, r.x_id, x_caption.c_str());
      } else {
        full(r.in, r.x_id, T(r.x_caption));
        std::snprintf(w_caption, sizeof w_caption, "\xc2\xb7 %s", matrix_info(r.w).symbol);
        if (projected) full(r.w, r.w_id, w_caption);
      }
      const std::string out_caption =
          s.scenario.heads > 1 ? printf_text("%s %s (%s %d)", projected ? "=" : "\xe2\x86\x92",
                                             r.symbol, T("head"), s.head + 1)
                               : printf_text("%s %s", projected ? "=" : "\xe2\x86\x92", r.symbol);
      full(r.out, r.out_id, out_caption.c_str());
      ImGui::PopID();
    }
    return;
  }
  for (const Row& r : rows) {
    ImGui::PushID(r.symbol);
    const bool projected = projects(r);
    // Transposed (the column convention), Q = W_qᵀ·X: the weights come first.
    const bool w_first = projected && s.transpose;
    const std::vector<float> w = !projected ? widths_in_row(c, avail.x - 40.0f, {r.in, r.out})
                                 : w_first  ? widths_in_row(c, avail.x - 80.0f, {r.w, r.in, r.out})
                                            : widths_in_row(c, avail.x - 80.0f, {r.in, r.w, r.out});
    const bool hovering = hov && hov->kind == r.out;
    // Three rows of three share the height: cells wider than tall keep their numbers where a
    // square cell would be too small for "0.00" and the width is there.
    constexpr float kAspect = 2.5f;
    MatrixDraw d;
    d.legend = false;
    d.max_aspect = kAspect;
    d.id = r.x_id;
    d.caption = T(r.x_caption);
    d.size = ImVec2(w[w_first ? 1 : 0], row_h);
    if (hovering) d.highlight_row = hov->row;
    if (!w_first) block(c, r.in, d);
    if (projected) {
      if (!w_first) operator_sign("\xc2\xb7", row_h * 0.5f);
      MatrixDraw wd;
      wd.legend = false;
      wd.max_aspect = kAspect;
      wd.id = r.w_id;
      char w_caption[32];
      std::snprintf(w_caption, sizeof w_caption, "%s%s", matrix_info(r.w).symbol,
                    w_first ? kTransposed : "");
      wd.caption = w_caption;
      wd.size = ImVec2(w[w_first ? 0 : 1], row_h);
      if (hovering)  // the hovered head's column of the whole projection
        wd.highlight_col =
            hov->head * static_cast<int>(matrix_of(s, r.out, c.head, c.b)->cols()) + hov->col;
      block(c, r.w, wd);
      if (w_first) {
        operator_sign("\xc2\xb7", row_h * 0.5f);
        block(c, r.in, d);
      }
    }
    operator_sign(projected ? "=" : "\xe2\x86\x92", row_h * 0.5f);
    const std::string out_caption = s.scenario.heads > 1
                                        ? printf_text("%s (%s %d)", r.symbol, T("head"), s.head + 1)
                                        : printf_text("%s", r.symbol);
    MatrixDraw od;
    od.legend = false;
    od.max_aspect = kAspect;
    od.id = r.out_id;
    od.caption = out_caption.c_str();
    od.size = ImVec2(w.back(), row_h);
    block(c, r.out, od);
    ImGui::PopID();
  }
}

}  // namespace ui::detail
