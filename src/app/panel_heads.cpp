// All heads side by side: one small heatmap per head of the current step's matrix; click one
// to focus it in the step-by-step view.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/app.h"
#include "app/edits.h"
#include "app/i18n.h"

namespace ui {

void draw_heads(AppState& s, HeatmapRenderer& h) {
  const int H = static_cast<int>(s.trace.heads.size());
  if (H == 0) return;
  Step shown = s.step;
  if (shown == Step::kInputs || shown == Step::kProjections || shown == Step::kConcat)
    shown = Step::kWeights;
  text_wrapped(
      T("Each head has its own queries and keys, so each can attend to different "
        "tokens. Click a head to focus it."));
  // Which matrix each head shows: the same as the step-by-step view's step.
  for (const Step st :
       {Step::kScores, Step::kScaled, Step::kMasked, Step::kWeights, Step::kOutput}) {
    if (st != Step::kScores) ImGui::SameLine();
    char label[96];
    std::snprintf(label, sizeof label, "%s##shown", T(step_name(st)));
    if (ImGui::RadioButton(label, shown == st)) s.set_step(static_cast<int>(st));
  }
  batch_selector(s);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  const std::vector<std::string> q = query_labels(s.scenario, b), k = key_labels(s.scenario, b);
  const float avail = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, std::min(H, static_cast<int>(avail / 260.0f)));
  const float w = avail / per_row - ImGui::GetStyle().ItemSpacing.x;
  if (s.lean) {
    text_wrapped(T("This scenario is too large to keep every head's matrices: only the focused "
                   "head is computed in full. Click another head to compute it."),
                 true);
  }
  for (int i = 0; i < H; ++i) {
    if (s.lean && i != s.head) {
      if (i % per_row) ImGui::SameLine();
      char label[48];
      std::snprintf(label, sizeof label, "%s %d##lean%d", T("head"), i + 1, i);
      if (ImGui::Button(label, ImVec2(w, w * 0.8f))) s.set_head(i);
      continue;
    }
    const attn::HeadTrace& ht = s.head_trace(i);
    const attn::Matrix* m = &ht.weights[b];
    MatrixKind kind = MatrixKind::kWeights;
    switch (shown) {
      case Step::kScores:
        m = &ht.scores[b];
        kind = MatrixKind::kScores;
        break;
      case Step::kScaled:
        m = &ht.scaled[b];
        kind = MatrixKind::kScaled;
        break;
      case Step::kMasked:
        m = &ht.masked[b];
        kind = MatrixKind::kMasked;
        break;
      case Step::kOutput:
        m = &ht.output[b];
        kind = MatrixKind::kHeadOutput;
        break;
      default:
        break;
    }
    if (i % per_row) ImGui::SameLine();
    ImGui::BeginGroup();
    char caption[48];
    std::snprintf(caption, sizeof caption, "%s %d%s", T("head"), i + 1,
                  i == s.head ? "  \xe2\x97\x8f" : "");
    ImGui::TextUnformatted(caption);
    char id[32];
    std::snprintf(id, sizeof id, "head%d", i);
    HeatmapSpec sp;
    sp.id = id;
    sp.values = m;
    sp.row_labels = &q;
    sp.col_labels = kind == MatrixKind::kHeadOutput ? nullptr : &k;
    sp.palette = kind == MatrixKind::kWeights ? Palette::kSequential : Palette::kDiverging;
    if (kind == MatrixKind::kWeights && !s.problem.hard && s.problem.dropout_p == 0.0f) {
      sp.fixed_range = true;
      sp.lo = 0.0f;
      sp.hi = 1.0f;
    }
    if ((kind == MatrixKind::kWeights || kind == MatrixKind::kMasked) &&
        b < static_cast<int>(s.masks.size()))
      sp.mask = &s.masks[b];
    sp.size = ImVec2(w, w * 0.8f);
    sp.max_cell_px = 40.0f;
    sp.revision = s.revision;
    const HeatmapResult r = h.draw(sp);
    if (r.hovered) s.hover = CellRef{kind, i, b, r.row, r.col};
    if (r.clicked) s.set_head(i);
    ImGui::EndGroup();
  }
}

}  // namespace ui
