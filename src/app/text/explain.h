// The teaching model of the pipeline: its steps, the formula each step computes, its
// explanation, and the arithmetic behind any cell. Pure functions (no GL, no ImGui), so the
// texts are tested natively.
#pragma once

#include <string>
#include <vector>

#include "app/model/matrices.h"
#include "core/attention.h"
#include "scenario/scenario.h"

namespace ui {

enum class Step : int {
  kInputs,          // X (+ PE)
  kProjections,     // Q = X·W_q, K = X·W_k, V = X·W_v
  kScores,          // S = Q·Kᵀ (or another scoring function)
  kScaled,          // S / √d / T
  kMasked,          // masked cells ← mask value
  kWeights,         // softmax
  kWeightedValues,  // O_h = W·V_h, each head's weighted sum of the value rows
  kOutput,          // [O_1 | … | O_H] · W_o, the final output
};
constexpr int kStepCount = scenario::kStepCount;
static_assert(static_cast<int>(Step::kOutput) == kStepCount - 1, "one step count: scenario.h");

const char* step_name(Step s);  // English; the UI translates it with T()
// The matrix a step is about: the one the all-heads grid shows for it.
MatrixKind step_matrix(Step s);
// A scoring as the controls name it, in English ("scaled dot product").
const char* scoring_label(attn::Scoring s);

// One or two sentences, English, chosen for the scenario (scoring, masks, heads, PE). With
// `columns`, as the view transposed for the column convention says them (AppState::transpose:
// tokens are columns) where the row convention's sentence speaks of rows.
const char* step_explanation(Step s, const attn::Problem& p, bool columns = false);
// The formula exactly as the code computes it, with this scenario's numbers (d, T, p). With
// `columns`, in the column convention the transposed view draws (the tokens are columns; the
// numbers are the same): S = KᵀQ, A = softmax over each column of M, O = V·A, and W_qᵀ for
// the stored W_q, whose transpose is drawn.
std::string step_formula(Step s, const attn::Problem& p, bool columns = false);

// Lines of arithmetic behind one cell, e.g. "q₂·k₅ = 0.3×1.2 + (−0.5)×0.4 = −0.04".
// Indices are shown 1-based; `query_tokens`/`key_tokens` name the rows and columns.
std::vector<std::string> explain_cell(const CellRef& cell, const attn::Problem& p,
                                      const attn::Trace& t, const attn::HeadTrace& head);

// Where the numbers overflowed float32 (first_overflow), as the UI says it.
std::string overflow_text(const CellRef& c, const attn::Problem& p);

// Why (b, i, j) is masked (attn::mask_reason), as the UI says it ("" when it is visible).
std::string mask_reason_text(const attn::MaskSpec& m, int b, int i, int j);

// Numbers as the UI prints them: 4 significant digits, −1e6 and ∞ spelled out.
std::string num(float v);
// Numbers as a heatmap cell prints them, short: 2 decimals below 10, 1 below 100, none below
// 1e5, then an exponent with one or two digits (−1e6, −1e9, 2.5e5); −∞, ∞ and NaN.
std::string cell_number(float v);
// printf into a std::string, of any length: the UI's texts with numbers and names.
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
std::string printf_text(const char* format, ...);
// 1-based subscript digits: sub(1) == "₂".
std::string sub(int zero_based);

}  // namespace ui
