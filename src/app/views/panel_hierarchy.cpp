// The Document tab of a hierarchy scenario (scenario/hierarchy_form.h): attention over
// attention drawn as Yang et al. 2016 draw it, both levels at once. For the chosen question,
// one line per sentence: its sentence weight b_k (a bar and its number), then its words as
// boxes shaded by their word weight a_ki (darker is more), the number in each box.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/matrices.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"

namespace ui {

namespace {

// A word weight's shade, white-blue at 0 to dark blue at 1 (by a^0.75, so that the small
// weights of a long sentence still differ); `dark` says white text reads on it.
ImU32 word_shade(float a, bool* dark) {
  const float t = std::pow(std::clamp(a, 0.0f, 1.0f), 0.75f);
  *dark = t > 0.5f;
  const auto mix = [t](float lo, float hi) { return static_cast<int>(lo + (hi - lo) * t); };
  return IM_COL32(mix(236, 24), mix(241, 64), mix(250, 160), 255);
}

// The question buttons, the chosen one marked; each wraps to the next line when the panel ends.
void question_buttons(AppState& s, const std::vector<std::string>& names) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(T("Question:"));
  for (int i = 0; i < static_cast<int>(names.size()); ++i) {
    const float w = ImGui::CalcTextSize(names[i].c_str()).x + 2 * ImGui::GetStyle().FramePadding.x;
    same_line_if_fits(w);
    const bool chosen = i + 1 == s.hierarchy_question;
    if (chosen)
      ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    const std::string id = printf_text("%s##hierarchy_q%d", names[i].c_str(), i + 1);
    if (ImGui::Button(id.c_str())) s.hierarchy_question = i + 1;
    if (chosen) ImGui::PopStyleColor();
  }
}

}  // namespace

void draw_hierarchy(AppState& s, Heatmaps&) {
  const scenario::Hierarchy& hy = s.scenario.hierarchy;
  if (hy.empty() || !s.runs() || s.trace.heads.empty() || s.trace.heads[0].weights.empty()) return;
  const attn::Matrix& b = s.trace.heads[0].weights[0];  // Q × S, the sentence weights
  const int n_q = static_cast<int>(hy.questions.rows());
  const int n_s = static_cast<int>(hy.sentences.size());
  if (n_q == 0 || b.rows() != n_q || b.cols() != n_s ||
      static_cast<int>(hy.word_weights.size()) != n_s)
    return;
  s.hierarchy_question = std::clamp(s.hierarchy_question, 1, n_q);
  const std::vector<std::string> questions = axis_labels(s, Axis::kQueryTokens, 0, n_q);
  const std::vector<std::string> sentences = axis_labels(s, Axis::kKeyTokens, 0, n_s);

  text_wrapped(
      T("Attention at two levels. Inside each sentence a word query weighs the words (the "
        "shade of each box: darker is more) and pools them into the sentence's vector. The "
        "question then weighs the sentence vectors (the bars), and their weighted sum o is the "
        "document's vector: what this question reads of the text."));
  const bool scaled = hy.scoring == attn::Scoring::kScaledDot;
  text_wrapped_formula(scaled ? "a_ki = softmax_i(u_w · w_ki / √d),   v_k = Σ_i a_ki w_ki"
                              : "a_ki = softmax_i(u_w · w_ki),   v_k = Σ_i a_ki w_ki");
  text_wrapped_formula(scaled ? "b_k = softmax_k(q · v_k / √d),   o = Σ_k b_k v_k"
                              : "b_k = softmax_k(q · v_k),   o = Σ_k b_k v_k");
  question_buttons(s, questions);
  const int q = s.hierarchy_question - 1;  // after the buttons: this frame draws the one chosen
  const bool hidden = document_row_hidden(s, q);

  // Where this question looks, in words (as the table view says it).
  int best = 0;
  for (int k = 1; k < n_s; ++k)
    if (b(q, k) > b(q, best)) best = k;
  const std::string text = document_summary(s);
  ImGui::Spacing();
  text_wrapped(text);
  item_text("hierarchy.summary", text);
  ImGui::Spacing();

  // One line per sentence: its name, its weight b as a bar and a number, then its words.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 pad(6.0f, 3.0f);
  const float box_h = 2.0f * line + 2.0f * pad.y;
  float name_w = 0.0f;
  for (const std::string& name : sentences)
    name_w = std::max(name_w, ImGui::CalcTextSize(name.c_str()).x);
  const float bar_w = 4.0f * ImGui::GetFontSize();
  const float number_w = ImGui::CalcTextSize("0.00").x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
  char id[64], number[32];
  ImGui::TextDisabled("%s", T("Sentence weight b, then each word's weight a"));
  for (int k = 0; k < n_s; ++k) {
    ImGui::PushID(k);
    // The name, middle of the line.
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(name_w, box_h));
    dl->AddText(ImVec2(p0.x, p0.y + 0.5f * (box_h - line)), text_colour, sentences[k].c_str());
    std::snprintf(id, sizeof id, "hierarchy.sentence%d", k + 1);
    item_text(id, sentences[k]);
    // The bar and its number ("?" while a question waits on it).
    ImGui::SameLine(0.0f, style.ItemSpacing.x * 2.0f);
    p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(bar_w + style.ItemSpacing.x + number_w, box_h));
    const bool bar_hovered = ImGui::IsItemHovered();
    const float bar_h = 0.8f * line, y = p0.y + 0.5f * (box_h - bar_h);
    const float w = hidden ? 0.0f : std::clamp(b(q, k), 0.0f, 1.0f);
    dl->AddRectFilled(ImVec2(p0.x, y), ImVec2(p0.x + bar_w, y + bar_h),
                      IM_COL32(226, 230, 238, 255), 3.0f);
    if (w > 0.0f)
      dl->AddRectFilled(ImVec2(p0.x, y), ImVec2(p0.x + bar_w * w, y + bar_h),
                        k == best ? IM_COL32(41, 92, 199, 255) : IM_COL32(120, 146, 204, 255),
                        3.0f);
    if (hidden)
      std::snprintf(number, sizeof number, "?");
    else
      std::snprintf(number, sizeof number, "%.2f", b(q, k));
    dl->AddText(ImVec2(p0.x + bar_w + style.ItemSpacing.x, p0.y + 0.5f * (box_h - line)),
                text_colour, number);
    std::snprintf(id, sizeof id, "hierarchy.weight%d", k + 1);
    item_text(id, number);
    if (bar_hovered) {
      // (A question and a sentence are the learner's words: a string that grows.)
      const std::string tip =
          hidden ? std::string(T("Shows once the lesson's question about it is answered."))
                 : printf_text(T("\"%s\" gives the sentence \"%s\" the weight b = %.3f."),
                               questions[q].c_str(), sentences[k].c_str(), b(q, k));
      ImGui::SetTooltip("%s", tip.c_str());
    }
    // The words, a box each, wrapping under the first when the panel ends.
    const attn::Vector& a = hy.word_weights[k];
    const std::vector<std::string> words = hierarchy_sentence_words(hy, k);
    for (int i = 0; i < a.size(); ++i) {
      std::snprintf(number, sizeof number, "%.2f", a(i));
      const float tw = ImGui::CalcTextSize(words[i].c_str()).x;
      const ImVec2 size(std::max(tw, number_w) + 2.0f * pad.x, box_h);
      same_line_if_fits(size.x);
      if (i == 0) ImGui::BeginGroup();
      const ImVec2 c0 = ImGui::GetCursorScreenPos();
      ImGui::Dummy(size);
      bool dark = false;
      const ImU32 fill = word_shade(a(i), &dark);
      const ImU32 ink = dark ? IM_COL32(255, 255, 255, 255) : IM_COL32(20, 24, 32, 255);
      dl->AddRectFilled(c0, ImVec2(c0.x + size.x, c0.y + size.y), fill, 4.0f);
      dl->AddText(ImVec2(c0.x + 0.5f * (size.x - tw), c0.y + pad.y), ink, words[i].c_str());
      const float nw = ImGui::CalcTextSize(number).x;
      dl->AddText(ImVec2(c0.x + 0.5f * (size.x - nw), c0.y + pad.y + line), ink, number);
      std::snprintf(id, sizeof id, "hierarchy.word%d.%d", k + 1, i + 1);
      item_text(id, words[i] + " " + number);
      if (ImGui::IsItemHovered()) {
        const std::string tip =
            printf_text(T("\"%s\": the word query gives it the weight a = %.3f in the sentence "
                          "\"%s\"."),
                        words[i].c_str(), a(i), sentences[k].c_str());
        ImGui::SetTooltip("%s", tip.c_str());
      }
    }
    if (a.size() > 0) ImGui::EndGroup();
    ImGui::PopID();
    ImGui::Dummy(ImVec2(0.0f, 0.25f * line));
  }
}

}  // namespace ui
