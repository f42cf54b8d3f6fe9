// The picture of an image scenario (scenario/image.h): the patches are the keys, and the
// chosen query's attention weights are drawn over the picture, the patches it attends to
// left bright and the others dimmed, as a spotlight. Hover a patch for its numbers.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"
#include "scenario/image.h"

namespace ui {

namespace {

ImU32 pixel_colour(const scenario::Image& im, int x, int y) {
  const uint8_t* p = &im.rgb[3 * (static_cast<size_t>(y) * im.width + x)];
  return IM_COL32(p[0], p[1], p[2], 255);
}

}  // namespace

void draw_picture(AppState& s, Heatmaps& h) {
  const scenario::Image& im = s.scenario.image;
  if (im.empty() || !s.runs()) return;
  text_wrapped(
      T("Each patch of the picture is a key, described by four numbers: how red, green and blue "
        "it is and how many edges it has (writing, windows and lane marks have many). A query "
        "says what to look for in the same four numbers. Its attention weights are drawn over "
        "the picture: the patches it looks at stay bright, the others are dimmed."));
  const attn::Matrix* weights = matrix_of(s, MatrixKind::kWeights, std::max(0, s.head), 0);
  if (!weights || weights->cols() != im.patches()) return;
  const int n_q = static_cast<int>(weights->rows());
  s.picture_query = std::clamp(s.picture_query, 0, std::max(0, n_q - 1));
  const std::vector<std::string> queries = axis_labels(s, Axis::kQueryTokens, 0, n_q);

  // The query to show: one button each, the chosen one marked.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(T("Query:"));
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (int i = 0; i < n_q; ++i) {
    // Beside the last one when it fits, else on the next line (a phone's width).
    const float w =
        ImGui::CalcTextSize(queries[i].c_str()).x + 2 * ImGui::GetStyle().FramePadding.x;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w < right) ImGui::SameLine();
    const bool chosen = i == s.picture_query;
    if (chosen)
      ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    const std::string id = printf_text("%s##picture_q%d", queries[i].c_str(), i);
    if (ImGui::Button(id.c_str())) s.picture_query = i;
    if (chosen) ImGui::PopStyleColor();
  }
  const int q = s.picture_query;
  const bool hidden = picture_hidden(s);

  // A click that answered a question gets its verdict here, where it was given, as the
  // lesson's box gives it (green when right): above the picture, on screen with it.
  for (const std::string& verdict : step_verdicts(s)) {
    const bool right = verdict.rfind(T("Right."), 0) == 0;
    ImGui::PushStyleColor(
        ImGuiCol_Text, right ? ImVec4(0.05f, 0.45f, 0.2f, 1.0f) : ImVec4(0.7f, 0.15f, 0.1f, 1.0f));
    text_wrapped(verdict);
    item_text("picture.verdict", verdict);
    ImGui::PopStyleColor();
  }
  // The picture, as large as the panel allows (whole pixels of the screen per pixel of it).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::clamp(std::floor(std::min(avail.x, 760.0f) / im.width), 1.0f, 16.0f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(side * im.width, side * im.height);
  ImGui::InvisibleButton("picture", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int y = 0; y < im.height; ++y) {
    int x = 0;
    while (x < im.width) {  // a run of one colour, one rectangle
      const ImU32 c = pixel_colour(im, x, y);
      int end = x + 1;
      while (end < im.width && pixel_colour(im, end, y) == c) ++end;
      dl->AddRectFilled(ImVec2(p0.x + x * side, p0.y + y * side),
                        ImVec2(p0.x + end * side, p0.y + (y + 1) * side), c);
      x = end;
    }
  }
  const float patch_px = side * im.patch;
  const int cols = im.columns();
  float top = 0.0f;
  int best = 0;
  for (int j = 0; j < im.patches(); ++j)
    if ((*weights)(q, j) > (*weights)(q, best)) best = j;
  top = std::max((*weights)(q, best), 1e-12f);
  char number[32];
  if (!hidden) {
    for (int j = 0; j < im.patches(); ++j) {
      const ImVec2 a(p0.x + (j % cols) * patch_px, p0.y + (j / cols) * patch_px);
      const ImVec2 b(a.x + patch_px, a.y + patch_px);
      const float w = (*weights)(q, j);
      const float dim = 0.78f * (1.0f - std::clamp(w / top, 0.0f, 1.0f));
      dl->AddRectFilled(a, b, IM_COL32(0, 0, 0, static_cast<int>(255.0f * dim)));
      if (s.show_numbers && patch_px >= 34.0f) {
        std::snprintf(number, sizeof number, "%.2f", w);
        const ImVec2 t = ImGui::CalcTextSize(number);
        const ImVec2 at(a.x + (patch_px - t.x) * 0.5f, b.y - t.y - 3.0f);
        dl->AddRectFilled(ImVec2(at.x - 2, at.y - 1), ImVec2(at.x + t.x + 2, at.y + t.y + 1),
                          IM_COL32(0, 0, 0, 170), 3.0f);
        dl->AddText(at, IM_COL32(255, 255, 255, 255), number);
      }
    }
    const ImVec2 a(p0.x + (best % cols) * patch_px, p0.y + (best / cols) * patch_px);
    dl->AddRect(a, ImVec2(a.x + patch_px, a.y + patch_px), IM_COL32(255, 214, 10, 255), 0.0f, 0,
                3.0f);
  }
  // The patches' names, small in their corners, so that "r3c3" in a question can be found.
  if (patch_px >= 60.0f) {
    for (int j = 0; j < im.patches(); ++j) {
      const std::string name = scenario::patch_name(im, j);
      const ImVec2 at(p0.x + (j % cols) * patch_px + 3.0f, p0.y + (j / cols) * patch_px + 2.0f);
      const ImVec2 t = ImGui::CalcTextSize(name.c_str());
      dl->AddRectFilled(ImVec2(at.x - 1, at.y), ImVec2(at.x + t.x + 1, at.y + t.y),
                        IM_COL32(255, 255, 255, 150), 2.0f);
      dl->AddText(at, IM_COL32(20, 20, 20, 255), name.c_str());
    }
  }
  for (int c = 1; c < cols; ++c)  // the patches' borders
    dl->AddLine(ImVec2(p0.x + c * patch_px, p0.y), ImVec2(p0.x + c * patch_px, p0.y + size.y),
                IM_COL32(255, 255, 255, 60));
  for (int r = 1; r < im.rows(); ++r)
    dl->AddLine(ImVec2(p0.x, p0.y + r * patch_px), ImVec2(p0.x + size.x, p0.y + r * patch_px),
                IM_COL32(255, 255, 255, 60));

  // A patch's numbers, under the pointer (or a finger); a click on it answers the open question
  // that asks which patch a query attends to most.
  const int open = s.open_question();
  const bool asks_patch = open >= 0 && s.quiz()[open].answer.argmax;
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int pc = std::clamp(static_cast<int>((m.x - p0.x) / patch_px), 0, cols - 1);
    const int pr = std::clamp(static_cast<int>((m.y - p0.y) / patch_px), 0, im.rows() - 1);
    const int j = pr * cols + pc;
    if (asks_patch && ImGui::IsItemClicked()) s.answer_quiz(open, j, 0.0f);
    const attn::Matrix& keys = s.trace.keys[0];
    std::string tip = scenario::patch_name(im, j) + ": ";
    for (int f = 0; f < scenario::kImageFeatures && f < keys.cols(); ++f) {
      tip +=
          printf_text("%s%s %.2f", f ? ", " : "", T(scenario::kImageFeatureNames[f]), keys(j, f));
    }
    if (!hidden) {
      tip += printf_text(T("; weight %.3f"), (*weights)(q, j));
    }
    ImGui::SetTooltip("%s", tip.c_str());
  }

  const ImVec2 end(p0.x + size.x, p0.y + size.y);
  GridInfo& g = h.record_grid("picture", p0, end, p0, end, im.rows(), cols, hidden);
  g.cell = g.cell_w = patch_px;

  // In words: where the chosen query looks.
  if (hidden) {
    text_wrapped(asks_patch ? T("Click the patch you predict (or its button in the lesson). The "
                                "weights show over the picture once the lesson's questions up "
                                "to here are answered.")
                            : T("The weights show over the picture once the lesson's questions "
                                "up to here are answered."));
    // Which question they wait for (the one a click here answers, or another).
    if (const std::string which = waiting_question(s); !which.empty()) {
      text_wrapped(which, true);
      item_text("picture.waiting", which);
    }
    return;
  }
  const std::string text = picture_summary(s);  // as the table view says it
  text_wrapped(text);
}

}  // namespace ui
