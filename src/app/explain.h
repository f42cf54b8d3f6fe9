// The teaching model of the pipeline: its steps, the formula each step computes, its
// explanation, and the arithmetic behind any cell. Pure functions (no GL, no ImGui), so the
// texts are tested natively.
#pragma once

#include <string>
#include <vector>

#include "core/attention.h"

namespace ui {

enum class Step : int {
  kInputs,       // X (+ PE)
  kProjections,  // Q = X·W_q, K = X·W_k, V = X·W_v
  kScores,       // S = Q·Kᵀ (or another scoring function)
  kScaled,       // S / √d / T
  kMasked,       // masked cells ← mask value
  kWeights,      // softmax
  kOutput,       // O_h = W·V_h
  kConcat,       // [O_1 | … | O_H] · W_o
};
constexpr int kStepCount = 8;

const char* step_name(Step s);  // English; the UI translates it with T()
// One or two sentences, English, chosen for the scenario (scoring, masks, heads, PE).
const char* step_explanation(Step s, const attn::Problem& p);
// The formula exactly as the code computes it, with this scenario's numbers (d, T, p).
std::string step_formula(Step s, const attn::Problem& p);

// Every matrix the views draw, so that a hovered cell can be explained.
enum class MatrixKind {
  kQueries,
  kKeys,
  kValues,      // inputs after positional encoding
  kPositional,  // the PE added to the queries
  kWq,
  kWk,
  kWv,
  kWo,  // weights
  kQ,
  kK,
  kV,  // this head's projected slices
  kScores,
  kScaled,
  kMasked,
  kWeights,
  kHeadOutput,
  kConcat,
  kOutput,
};

struct CellRef {
  MatrixKind kind = MatrixKind::kWeights;
  int head = 0, batch = 0, row = 0, col = 0;
  int pe_d = 0;  // kPositional: the table's width d (0 = the scenario's)
};

// Lines of arithmetic behind one cell, e.g. "q₂·k₅ = 0.3×1.2 + (−0.5)×0.4 = −0.04".
// Indices are shown 1-based; `query_tokens`/`key_tokens` name the rows and columns.
std::vector<std::string> explain_cell(const CellRef& cell, const attn::Problem& p,
                                      const attn::Trace& t, const attn::HeadTrace& head);

// Why (b, i, j) is masked (attn::mask_reason), as the UI says it ("" when it is visible).
std::string mask_reason_text(const attn::MaskSpec& m, int b, int i, int j);

// Numbers as the UI prints them: 4 significant digits, −1e6 and ∞ spelled out.
std::string num(float v);
// 1-based subscript digits: sub(1) == "₂".
std::string sub(int zero_based);

}  // namespace ui
