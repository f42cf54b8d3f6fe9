// "Behind this cell": the arithmetic of the cell under the mouse, as the code computes it.
#include "app/app.h"
#include "app/edits.h"
#include "app/i18n.h"

namespace ui {

namespace {

const char* matrix_title(MatrixKind k) {
  switch (k) {
    case MatrixKind::kQueries:
      return N_("queries");
    case MatrixKind::kKeys:
      return N_("keys");
    case MatrixKind::kValues:
      return N_("values");
    case MatrixKind::kPositional:
      return N_("positional encoding");
    case MatrixKind::kWq:
      return N_("W_q");
    case MatrixKind::kWk:
      return N_("W_k");
    case MatrixKind::kWv:
      return N_("W_v");
    case MatrixKind::kWo:
      return N_("W_o");
    case MatrixKind::kQ:
      return N_("Q");
    case MatrixKind::kK:
      return N_("K");
    case MatrixKind::kV:
      return N_("V");
    case MatrixKind::kScores:
      return N_("scores");
    case MatrixKind::kScaled:
      return N_("scaled scores");
    case MatrixKind::kMasked:
      return N_("masked scores");
    case MatrixKind::kWeights:
      return N_("weights");
    case MatrixKind::kHeadOutput:
      return N_("weighted values");
    case MatrixKind::kConcat:
      return N_("concatenated heads");
    case MatrixKind::kOutput:
      return N_("output");
  }
  return "";
}

bool is_pair(MatrixKind k) {
  return k == MatrixKind::kScores || k == MatrixKind::kScaled || k == MatrixKind::kMasked ||
         k == MatrixKind::kWeights;
}

}  // namespace

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
  ImGui::Text("%s [%d, %d]", T(matrix_title(c.kind)), c.row + 1, c.col + 1);
  if (is_pair(c.kind) && c.row < static_cast<int>(q.size()) && c.col < static_cast<int>(k.size())) {
    ImGui::TextDisabled(
        "%s \xe2\x80\x9c%s\xe2\x80\x9d  \xe2\x86\x92  %s \xe2\x80\x9c%s\xe2\x80\x9d", T("query"),
        q[c.row].c_str(), T("key"), k[c.col].c_str());
  }
  if (s.scenario.heads > 1 && c.kind != MatrixKind::kOutput && c.kind != MatrixKind::kConcat)
    ImGui::TextDisabled("%s %d", T("head"), h + 1);
  ImGui::Separator();
  const std::vector<std::string> lines = explain_cell(c, s.problem, s.trace, s.head_trace(h));
  for (const std::string& line : lines) text_wrapped_mono(line);
}

}  // namespace ui
