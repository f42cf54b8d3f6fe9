// The step-by-step pipeline: a step bar, the formula and explanation of the current step,
// and its matrices as heatmaps (inputs → projections → scores → scaled → masked → weights
// → weighted values → output).
//
// [SECTION] Helpers
// [SECTION] Step bar
// [SECTION] One view per step
// [SECTION] The panel
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "app/app.h"
#include "app/controls.h"
#include "app/edits.h"
#include "app/i18n.h"
#include "app/item_log.h"
#include "app/platform.h"
#include "scenario/export.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

struct Ctx {
  AppState& s;
  Heatmaps& h;
  int head, b;
};

// The hover from last frame, if it is on `kind` in this head and batch item.
const CellRef* hovered_on(const AppState& s, std::initializer_list<MatrixKind> kinds) {
  if (!s.prev_hover) return nullptr;
  for (MatrixKind k : kinds)
    if (s.prev_hover->kind == k && s.prev_hover->head == s.head && s.prev_hover->batch == s.batch)
      return &*s.prev_hover;
  return nullptr;
}

HeatmapResult block(Ctx& c, MatrixKind kind, MatrixDraw d) {
  return draw_matrix(c.s, c.h, kind, c.head, c.b, d);
}

// A "·" or "=" between blocks laid out in a row, with `gap` more pixels around it.
void operator_sign(const char* sign, float height, float gap = 0.0f) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x + gap * 0.5f;
  ImGui::SameLine(0, spacing);
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(1, height * 0.45f));
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(sign);
  if (g_fonts.title) ImGui::PopFont();
  ImGui::EndGroup();
  ImGui::SameLine(0, spacing);
}

// Widths for the matrices of `kinds` side by side in `total` pixels, so that their cells come
// out the same size: each gets room for its row labels (heatmap_row_label_width) and a share
// of the pixels in proportion to its columns.
// Matrix `k`'s columns, and the width of its row labels in a widget `total` pixels wide.
static int columns_and_labels(Ctx& c, MatrixKind k, float total, float* label_w) {
  const attn::Matrix* m = matrix_of(c.s, k, c.head, c.b);
  const int rows = m ? static_cast<int>(m->rows()) : 0;
  const std::vector<std::string> labels = axis_labels(c.s, matrix_info(k).rows, c.b, rows);
  *label_w = heatmap_row_label_width(&labels, "", total);
  return std::max(m ? static_cast<int>(m->cols()) : 1, 1);
}

std::vector<float> widths_in_row(Ctx& c, float total, std::initializer_list<MatrixKind> kinds,
                                 float* cell_out = nullptr) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  std::vector<float> label_w;
  std::vector<int> cols;
  float fixed = 0.0f;
  int all_cols = 0;
  // Row labels measured against each matrix's share of the row, as the heatmap measures them
  // against its own width (measured against the whole row, long labels took room the heatmap
  // then cut them to, and the cells got less).
  const float share = total / std::max<size_t>(kinds.size(), 1);
  for (MatrixKind k : kinds) {
    label_w.push_back(0.0f);
    cols.push_back(columns_and_labels(c, k, share, &label_w.back()));
    fixed += label_w.back() + spacing;
    all_cols += cols.back();
  }
  const float cell = std::max(1.0f, (total - fixed) / std::max(all_cols, 1));
  if (cell_out) *cell_out = cell;
  std::vector<float> out;
  for (size_t i = 0; i < cols.size(); ++i) out.push_back(label_w[i] + spacing + cols[i] * cell);
  return out;
}

// The narrowest cell that holds a number ("−0.00") at the smaller size the heatmap draws.
float number_cell() {
  return ImGui::CalcTextSize(
             "\xe2\x88\x92"
             "0.00")
                 .x *
             0.75f +
         8.0f;
}

// A "·", "+" or "=" on a line of its own, between matrices stacked one above another.
void stacked_sign(const char* sign) {
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(sign);
  if (g_fonts.title) ImGui::PopFont();
}

// The rows a stacked matrix is made tall enough for: all of them, up to 16 (longer sequences
// are read by pointing, and the panel scrolls).
float stacked_rows(Eigen::Index rows) {
  return static_cast<float>(std::min<Eigen::Index>(16, rows));
}
float stacked_rows(Ctx& c, MatrixKind k) {
  const attn::Matrix* m = matrix_of(c.s, k, c.head, c.b);
  return stacked_rows(m ? m->rows() : 1);
}

// The lesson's note on this step, in a tinted box with an accent bar on its left.
void lesson_note(const AppState& s, const std::string& text) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pad = 8.0f;
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Indent(pad + 4.0f);
  ImGui::Dummy(ImVec2(0, pad * 0.25f));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.11f, 0.31f, 0.66f, 1.0f));
  ImGui::TextUnformatted(T("In this lesson"));
  ImGui::PopStyleColor();
  text_wrapped(text, false, ImGui::GetContentRegionAvail().x - pad);
  item_text("lesson.note", text);
  if (s.edited)
    text_wrapped(T("(written for the lesson as it was loaded: Reset to the preset to see its "
                   "numbers again)"),
                 true, ImGui::GetContentRegionAvail().x - pad);
  ImGui::Dummy(ImVec2(0, pad * 0.25f));
  ImGui::Unindent(pad + 4.0f);
  const ImVec2 p1(p0.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y);
  dl->ChannelsSetCurrent(0);
  dl->AddRectFilled(p0, p1, IM_COL32(232, 240, 252, 255), 4.0f);
  dl->AddRectFilled(p0, ImVec2(p0.x + 4.0f, p1.y), IM_COL32(46, 99, 201, 255), 2.0f);
  dl->ChannelsMerge();
  ImGui::Spacing();
}

//-----------------------------------------------------------------------------
// [SECTION] Step bar
//-----------------------------------------------------------------------------

void export_menu(AppState& s);

void step_bar(AppState& s) {
  const float avail = ImGui::GetContentRegionAvail().x;
  float full = 0.0f;
  for (int k = 0; k < kStepCount; ++k)
    full += ImGui::CalcTextSize(T(step_name(static_cast<Step>(k)))).x + 40.0f;
  const bool compact = full + 260.0f > avail;
  for (int k = 0; k < kStepCount; ++k) {
    const Step st = static_cast<Step>(k);
    if (k) {
      ImGui::SameLine(0, 2);
      ImGui::TextDisabled("\xe2\x80\xba");
      ImGui::SameLine(0, 2);
    }
    char label[96];
    if (compact)
      std::snprintf(label, sizeof label, "%d##step%d", k + 1, k);
    else
      std::snprintf(label, sizeof label, "%d  %s##step%d", k + 1, T(step_name(st)), k);
    const bool current = s.step == st;
    if (current) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.16f, 0.36f, 0.78f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.20f, 0.42f, 0.85f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    }
    if (ImGui::Button(label)) {
      s.set_step(k);
      s.playing = false;
    }
    if (current) ImGui::PopStyleColor(3);
    if (compact && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(step_name(st)));
  }
  // ◀ ▶ Play Export follow on the same line when they fit, else on the next.
  const float rest = 2.0f * ImGui::GetFrameHeight() + ImGui::CalcTextSize(T("Pause")).x +
                     ImGui::CalcTextSize(T("Export")).x + 4.0f * ImGui::GetStyle().FramePadding.x +
                     56.0f;
  if (ImGui::GetContentRegionMax().x - ImGui::GetItemRectMax().x + ImGui::GetWindowPos().x >
      rest + 16.0f)
    ImGui::SameLine(0, 16);
  ImGui::BeginDisabled(s.step == Step::kInputs);
  if (ImGui::ArrowButton("prev", ImGuiDir_Left)) s.set_step(static_cast<int>(s.step) - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(static_cast<int>(s.step) == kStepCount - 1);
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) s.set_step(static_cast<int>(s.step) + 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? T("Pause") : T("Play"))) {
    if (!s.playing && static_cast<int>(s.step) == kStepCount - 1) s.set_step(0);
    s.playing = !s.playing;
    s.play_clock = 0.0;
  }
  if (!s.control_hidden("export")) {
    ImGui::SameLine(0, 16);
    if (ImGui::Button(T("Export"))) ImGui::OpenPopup("export all");
    if (ImGui::BeginPopup("export all")) {
      export_menu(s);
      ImGui::EndPopup();
    }
  }
  // Keyboard: ← → to step, space to play, when no text field has focus.
  if (!ImGui::GetIO().WantTextInput &&
      ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow)))
      s.set_step(static_cast<int>(s.step) - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)))
      s.set_step(static_cast<int>(s.step) + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space))) s.playing = !s.playing;
  }
}

// Whole-scenario exports: the trace, the scenario, code that recomputes it, the link.

void export_menu(AppState& s) {
  for (const ControlOption& o : find_control("export")->options(s))
    if (ImGui::MenuItem(o.label.c_str())) control_apply(s, "export", o.value);
  deliver_exports(s);  // now: a copy to the clipboard is allowed while the click is fresh
  ImGui::Separator();
  ImGui::TextDisabled("%s", T("Right-click any matrix to export it alone."));
}

void head_selector(AppState& s) {
  if (s.scenario.heads <= 1) return;
  ImGui::SameLine(0, 24);
  ImGui::TextUnformatted(T("Head"));
  for (int h = 0; h < s.scenario.heads; ++h) {
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "%d##head", h + 1);
    if (ImGui::RadioButton(label, s.head == h)) s.set_head(h);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] One view per step
//-----------------------------------------------------------------------------

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
    const float w = stacked ? avail.x : pe ? (avail.x - 80.0f) / 3.0f : std::min(avail.x, 560.0f);
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
    x.caption = pe ? T("X (drag a cell to change it)")
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
      full(r.in, r.x_id, T(r.x_caption));
      char w_caption[64], out_caption[96];
      std::snprintf(w_caption, sizeof w_caption, "\xc2\xb7 %s", matrix_info(r.w).symbol);
      if (projected) full(r.w, r.w_id, w_caption);
      if (s.scenario.heads > 1)
        std::snprintf(out_caption, sizeof out_caption, "%s %s (%s %d)",
                      projected ? "=" : "\xe2\x86\x92", r.symbol, T("head"), s.head + 1);
      else
        std::snprintf(out_caption, sizeof out_caption, "%s %s", projected ? "=" : "\xe2\x86\x92",
                      r.symbol);
      full(r.out, r.out_id, out_caption);
      ImGui::PopID();
    }
    return;
  }
  for (const Row& r : rows) {
    ImGui::PushID(r.symbol);
    const bool projected = projects(r);
    const std::vector<float> w = projected ? widths_in_row(c, avail.x - 80.0f, {r.in, r.w, r.out})
                                           : widths_in_row(c, avail.x - 40.0f, {r.in, r.out});
    const bool hovering = hov && hov->kind == r.out;
    // Three rows of three share the height: cells wider than tall keep their numbers where a
    // square cell would be too small for "0.00" and the width is there.
    constexpr float kAspect = 2.5f;
    MatrixDraw d;
    d.legend = false;
    d.max_aspect = kAspect;
    d.id = r.x_id;
    d.caption = T(r.x_caption);
    d.size = ImVec2(w[0], row_h);
    if (hovering) d.highlight_row = hov->row;
    block(c, r.in, d);
    if (projected) {
      operator_sign("\xc2\xb7", row_h * 0.5f);
      MatrixDraw wd;
      wd.legend = false;
      wd.max_aspect = kAspect;
      wd.id = r.w_id;
      wd.caption = matrix_info(r.w).symbol;
      wd.size = ImVec2(w[1], row_h);
      if (hovering)  // the hovered head's column of the whole projection
        wd.highlight_col =
            hov->head * static_cast<int>(matrix_of(s, r.out, c.head, c.b)->cols()) + hov->col;
      block(c, r.w, wd);
    }
    operator_sign(projected ? "=" : "\xe2\x86\x92", row_h * 0.5f);
    char out_caption[64];
    if (s.scenario.heads > 1)
      std::snprintf(out_caption, sizeof out_caption, "%s (%s %d)", r.symbol, T("head"), s.head + 1);
    else
      std::snprintf(out_caption, sizeof out_caption, "%s", r.symbol);
    MatrixDraw od;
    od.legend = false;
    od.max_aspect = kAspect;
    od.id = r.out_id;
    od.caption = out_caption;
    od.size = ImVec2(w.back(), row_h);
    block(c, r.out, od);
    ImGui::PopID();
  }
}

// Q_h and K_h on the left, the step's n_q × n_k matrix on the right.
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
    // numbers: "−0.00" at the numbers' smallest size (heatmap.cpp, cells) in every column.
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
      widths_in_row(c, avail.x - 80.0f - gap,
                    {MatrixKind::kWeights, MatrixKind::kV, MatrixKind::kHeadOutput}, &side_cell);
  const bool narrow = avail.x < 520.0f || side_cell < number_cell();
  // And when V = O on one line still leaves cells too small (a phone, 10 keys): all three in a
  // column, each at the panel's width and as tall as its rows need.
  bool column = false;
  if (narrow) {
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
  const struct {
    const char *id, *caption, *sign_after;
    MatrixKind kind;
    int highlight_row, highlight_col;
  } blocks[] = {
      {"w", "A", "\xc2\xb7", MatrixKind::kWeights, mixing ? mixing->row : -1, -1},
      {"v", heads ? "V_h" : "V", "=", MatrixKind::kV, -1, hov ? hov->col : -1},
      {"o", heads ? "O_h" : "O", nullptr, MatrixKind::kHeadOutput, mixing ? mixing->row : -1, -1},
  };
  // Arriving from the weights: O fills in from 0 as the value rows flow into it.
  const bool moving = s.transition.active && s.transition.to == Step::kWeightedValues;
  attn::Matrix o_so_far;
  if (moving)
    if (const attn::Matrix* o = matrix_of(s, MatrixKind::kHeadOutput, c.head, c.b))
      o_so_far = *o * s.transition.eased();
  for (size_t i = 0; i < std::size(blocks); ++i) {
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
    if (narrow && blocks[i].kind == MatrixKind::kWeights) continue;  // V = O on the next row
    if (column && blocks[i].sign_after) {
      stacked_sign(blocks[i].sign_after);
    } else if (blocks[i].sign_after) {
      operator_sign(blocks[i].sign_after, h * 0.5f, blocks[i].kind == MatrixKind::kV ? gap : 0);
    }
  }
  if (mixing)
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
  std::vector<float> w =
      wo ? widths_in_row(c, avail.x - 80.0f,
                         {MatrixKind::kConcat, MatrixKind::kWo, MatrixKind::kOutput}, &side_cell)
         : std::vector<float>{std::min(avail.x * 0.6f, 600.0f)};
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
  d.size = ImVec2(w[0], height_of(MatrixKind::kConcat));
  d.id = "concat";
  d.caption = s.scenario.heads > 1 ? T("concat [O_1 | ... | O_H]") : "O_1";
  block(c, MatrixKind::kConcat, d);
  if (!wo) return;
  sign("\xc2\xb7");
  d.size = ImVec2(w[1], height_of(MatrixKind::kWo));
  d.id = "wo";
  d.caption = "W_o";
  block(c, MatrixKind::kWo, d);
  sign("=");
  d.size = ImVec2(w[2], height_of(MatrixKind::kOutput));
  d.id = "out";
  d.caption = T("output");
  block(c, MatrixKind::kOutput, d);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

void draw_pipeline(AppState& s, Heatmaps& h) {
  if (s.trace.heads.empty()) {
    ImGui::TextUnformatted(T("No scenario yet."));
    return;
  }
  // A short panel (an 800 × 600 iframe, a phone held sideways) keeps its height for the
  // step's matrix: the step's explanation moves into a "(?)" beside its formula, and the
  // mask-by-click switch beside the title. The lesson's note stays.
  const bool compact = ImGui::GetContentRegionAvail().y < 560.0f;
  step_bar(s);
  ImGui::Separator();
  const int head = std::clamp(s.head, 0, static_cast<int>(s.trace.heads.size()) - 1);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  Ctx c{s, h, head, b};

  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::Text("%d. %s", static_cast<int>(s.step) + 1, T(step_name(s.step)));
  if (g_fonts.title) ImGui::PopFont();
  if (s.step != Step::kInputs && s.step != Step::kOutput) head_selector(s);
  if (s.scenario.batch() > 1) {
    ImGui::SameLine(0, 24);
    batch_selector(s);
  }
  const bool mask_switch =
      s.step == Step::kMasked || s.step == Step::kWeights || s.step == Step::kScaled;
  if (compact && mask_switch) {
    // Beside the title when it fits (a batch selector may have taken the line), else below.
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                      ImGui::CalcTextSize(T("Click a cell to mask it")).x + 24.0f);
    ImGui::Checkbox(T("Click a cell to mask it"), &s.mask_by_click);
  }
  // The formula on a line of its own; in a short panel the "(?)" after its last line, so its
  // lines leave room for it.
  const float marker_w =
      compact ? ImGui::CalcTextSize("(?)").x + 2.0f * ImGui::GetStyle().ItemSpacing.x : 0.0f;
  text_wrapped_formula(step_formula(s.step, s.problem),
                       std::max(40.0f, ImGui::GetContentRegionAvail().x - marker_w), compact);
  if (compact) {
    help_marker(step_explanation(s.step, s.problem));
  } else {
    text_wrapped(T(step_explanation(s.step, s.problem)));
  }
  draw_step_words(s);
  // The note explains the step's numbers, so it waits, like them, for the question's answer.
  if (s.open_question() < 0)
    for (const scenario::TourStop& stop : s.scenario.tour)
      if (stop.step == static_cast<int>(s.step) && s.note_shown(stop))
        lesson_note(s, stop.text.in(language_code()));
  draw_questions(s);  // the lesson's questions on this step, before the matrices answer them
  if (!compact && mask_switch) {
    ImGui::Checkbox(T("Click a cell to mask it"), &s.mask_by_click);
    help_marker(
        "With this on, clicking a cell of the matrix adds it to the masked cells, or removes it.");
  }
  ImGui::Spacing();

  // The matrices keep at least 60% of the panel's height, so that a long note and a question
  // above them push them down (the panel scrolls) rather than shrink them past reading.
  const ImVec2 avail(
      ImGui::GetContentRegionAvail().x,
      std::max({160.0f, ImGui::GetContentRegionAvail().y - 4.0f, 0.6f * ImGui::GetWindowHeight()}));
  switch (s.step) {
    case Step::kInputs:
      view_inputs(c, avail);
      break;
    case Step::kProjections:
      view_projections(c, avail);
      break;
    case Step::kScores:
    case Step::kScaled:
    case Step::kMasked:
    case Step::kWeights:
      view_scores_like(c, avail, step_matrix(s.step));
      break;
    case Step::kWeightedValues:
      view_weighted_values(c, avail);
      break;
    case Step::kOutput:
      view_output(c, avail);
      break;
  }
}

}  // namespace ui
