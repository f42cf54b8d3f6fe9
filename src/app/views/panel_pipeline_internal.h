// What the pipeline panel's files share: the context a step's view draws in, the helpers that
// lay matrices out side by side or one above another (panel_pipeline.cpp defines them), and
// the views of the steps (panel_pipeline_inputs.cpp, panel_pipeline_scores.cpp).
#pragma once

#include <initializer_list>
#include <vector>

#include "app/views/app.h"

namespace ui::detail {

// "ᵀ", after a weight's symbol in the transposed view (AppState::transpose): Q = W_qᵀ·X.
inline constexpr const char* kTransposed = "\xe1\xb5\x80";

struct Ctx {
  AppState& s;
  Heatmaps& h;
  int head, b;
};

// The hover from last frame, if it is on `kind` in this head and batch item.
const CellRef* hovered_on(const AppState& s, std::initializer_list<MatrixKind> kinds);

HeatmapResult block(Ctx& c, MatrixKind kind, MatrixDraw d);

// A "·" or "=" between blocks laid out in a row, with `gap` more pixels around it.
void operator_sign(const char* sign, float height, float gap = 0.0f);

// Matrix `k`'s columns, and the width of its row labels in a widget `total` pixels wide.
int columns_and_labels(Ctx& c, MatrixKind k, float total, float* label_w);

// Widths for the matrices of `kinds` side by side in `total` pixels, so that their cells come
// out the same size: each gets room for its row labels (heatmap_row_label_width) and a share
// of the pixels in proportion to its columns.
std::vector<float> widths_in_row(Ctx& c, float total, std::initializer_list<MatrixKind> kinds,
                                 float* cell_out = nullptr);

// The narrowest cell that holds a number ("−0.00") at the smaller size the heatmap draws.
float number_cell();

// A "·", "+" or "=" on a line of its own, between matrices stacked one above another.
void stacked_sign(const char* sign);

// The rows a stacked matrix is made tall enough for: all of them, up to 16 (longer sequences
// are read by pointing, and the panel scrolls).
float stacked_rows(Eigen::Index rows);
float stacked_rows(Ctx& c, MatrixKind k);

// One view per step: the step's matrices in `avail` pixels.
void view_inputs(Ctx& c, ImVec2 avail);
void view_projections(Ctx& c, ImVec2 avail);
// Q_h and K_h on the left, the step's n_q × n_k matrix on the right.
HeatmapResult view_scores_like(Ctx& c, ImVec2 avail, MatrixKind kind);
void view_weighted_values(Ctx& c, ImVec2 avail);
void view_output(Ctx& c, ImVec2 avail);

}  // namespace ui::detail
