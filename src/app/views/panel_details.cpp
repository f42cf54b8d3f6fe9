// "Behind this cell": the arithmetic of the cell under the mouse, as the code computes it.
#include "app/model/edits.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

void draw_details(AppState& s) {
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(T("Behind this cell"));
  if (g_fonts.title) ImGui::PopFont();
  if (!s.hover || s.trace.heads.empty()) {
    text_wrapped(T("Point at a cell of any matrix to see the arithmetic that produced it."), true);
    return;
  }
  const CellRef& c = *s.hover;
  const int h = std::min(c.head, static_cast<int>(s.trace.heads.size()) - 1);
  const std::vector<std::string> q = query_labels(s.scenario, c.batch);
  const std::vector<std::string> k = key_labels(s.scenario, c.batch);
  const MatrixInfo& info = matrix_info(c.kind);
  ImGui::Text("%s [%d, %d]", T(info.title), c.row + 1, c.col + 1);
  const bool pair = info.rows == Axis::kQueryTokens && info.cols == Axis::kKeyTokens;
  if (pair && c.row < static_cast<int>(q.size()) && c.col < static_cast<int>(k.size())) {
    // Wrapped: a key such as "his dad is 2 m tall" is not cut at the panel's edge.
    text_wrapped(std::string(T("query")) + " \xe2\x80\x9c" + q[c.row] +
                     "\xe2\x80\x9d  \xe2\x86\x92  " + T("key") + " \xe2\x80\x9c" + k[c.col] +
                     "\xe2\x80\x9d",
                 true);
  }
  if (s.scenario.heads > 1 && info.per_head) ImGui::TextDisabled("%s %d", T("head"), h + 1);
  ImGui::Separator();
  const std::vector<std::string> lines =
      explain_cell(c, s.problem, s.trace, s.head_trace(h, c.batch));
  for (const std::string& line : lines) text_wrapped_mono(line);
  // With a target: how the loss answers to this cell, and what a training step does with it.
  double g = 0.0;
  if (s.cell_gradient(c, &g)) {
    ImGui::Separator();
    text_wrapped_mono(printf_text("\xe2\x88\x82L/\xe2\x88\x82(%s [%d, %d]) = %s", info.symbol,
                                  c.row + 1, c.col + 1, num(static_cast<float>(g)).c_str()));
    const bool weight = info.role == MatrixRole::kWeight;
    if (c.kind == MatrixKind::kOutput) {
      const std::string line =
          printf_text(T("L = mean((output \xe2\x88\x92 target)\xc2\xb2); here the target is %s, so "
                        "\xe2\x88\x82L/\xe2\x88\x82y = 2(y \xe2\x88\x92 target)/N."),
                      num(s.scenario.target[c.batch](c.row, c.col)).c_str());
      text_wrapped(line, true);
    } else if (!info.per_head || weight) {
      text_wrapped(weight
                       ? T("A training step moves this weight against its gradient: by "
                           "\xe2\x88\x92rate \xc3\x97 \xe2\x88\x82L/\xe2\x88\x82w with SGD.")
                       : T("Training keeps the inputs fixed; the gradient says how the loss would "
                           "change if this number did."),
                   true);
    } else {
      text_wrapped(T("Training changes this number only through the weights before it; the "
                     "gradient is what flows back through it to them."),
                   true);
    }
  }
}

}  // namespace ui
