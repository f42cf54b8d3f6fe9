// All heads side by side: one small heatmap per head of the current step's matrix; click one
// to focus it in the step-by-step view.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

void draw_heads(AppState& s, Heatmaps& h) {
  const int H = static_cast<int>(s.trace.heads.size());
  if (H == 0) return;
  const Step shown = heads_step(s);
  text_wrapped(
      T("Each head has its own queries and keys, so each can attend to different "
        "tokens. Click a head to focus it."));
  // Which matrix each head shows: the same as the step-by-step view's step.
  for (const Step st :
       {Step::kScores, Step::kScaled, Step::kMasked, Step::kWeights, Step::kWeightedValues}) {
    if (st != Step::kScores) ImGui::SameLine();
    const std::string label = printf_text("%s##shown", T(step_name(st)));
    if (ImGui::RadioButton(label.c_str(), shown == st)) s.set_step(static_cast<int>(st));
  }
  batch_selector(s);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  const float avail = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, std::min(H, static_cast<int>(avail / 260.0f)));
  const float w = avail / per_row - ImGui::GetStyle().ItemSpacing.x;
  if (s.lean) {
    text_wrapped(T("This scenario is too large to keep every head's matrices: only the focused "
                   "head is computed in full. Click another head to compute it."),
                 true);
  }
  for (int i = 0; i < H; ++i) {
    if (i % per_row) ImGui::SameLine();
    if (s.lean && i != s.head) {
      const std::string label = printf_text("%s %d##lean%d", T("head"), i + 1, i);
      if (ImGui::Button(label.c_str(), ImVec2(w, w * 0.8f))) s.set_head(i);
      continue;
    }
    ImGui::BeginGroup();
    const std::string caption =
        printf_text("%s %d%s", T("head"), i + 1, i == s.head ? "  \xe2\x97\x8f" : "");
    ImGui::TextUnformatted(caption.c_str());
    char id[32];
    std::snprintf(id, sizeof id, "head%d", i);
    MatrixDraw d;
    d.id = id;
    d.size = ImVec2(w, w * 0.8f);
    d.max_cell_px = 40.0f;
    const HeatmapResult r = draw_matrix(s, h, step_matrix(shown), i, b, d);
    if (r.clicked) s.set_head(i);
    ImGui::EndGroup();
  }
}

}  // namespace ui
