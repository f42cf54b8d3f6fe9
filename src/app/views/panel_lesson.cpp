// "About this scenario": the preset's title and description in the current language, and
// buttons to the steps its tour has notes on.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "app/model/edits.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/glossary.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"

namespace ui {

// "Words in this step: query · key · softmax": each opens its entry of the glossary, with the
// whole glossary below it.
void draw_step_words(AppState& s) {
  const std::vector<const GlossaryEntry*> words = glossary_for_step(s.step);
  if (words.empty()) return;
  static const GlossaryEntry* open = nullptr;
  bool clicked = false;
  ImGui::TextDisabled("%s", T("Words in this step"));
  for (const GlossaryEntry* e : words) {
    const char* term = T(e->term);
    const float w = ImGui::CalcTextSize(term).x + 2 * ImGui::GetStyle().FramePadding.x;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <
        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::SameLine();
    ImGui::PushID(e->id);
    if (small_button(term)) {
      open = e;
      clicked = true;
    }
    ImGui::PopID();
  }
  if (clicked) ImGui::OpenPopup("##glossary");  // outside the buttons' IDs, as BeginPopup is
  const float width = std::min(520.0f, ImGui::GetIO().DisplaySize.x - 24.0f);
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0),
                                      ImVec2(width, ImGui::GetIO().DisplaySize.y * 0.8f));
  if (ImGui::BeginPopup("##glossary")) {
    if (open) {
      if (g_fonts.title) ImGui::PushFont(g_fonts.title);
      text_wrapped(T(open->term));
      if (g_fonts.title) ImGui::PopFont();
      text_wrapped(T(open->text));
    }
    ImGui::Spacing();
    if (ImGui::CollapsingHeader(T("Glossary"))) {
      for (const GlossaryEntry& e : glossary()) {
        ImGui::TextUnformatted(T(e.term));
        text_wrapped(T(e.text), true);
      }
    }
    ImGui::EndPopup();
  }
}

// The questions of the current step: asked before the answer is on screen, answered with a key
// (one button per key token) or a typed number, checked against the core's numbers, then
// explained; in a warm box under the lesson's note.
void draw_questions(AppState& s) {
  const std::vector<scenario::QuizQuestion>& quiz = s.quiz();
  s.replies.resize(quiz.size());
  static char typed[scenario::kMaxQuizQuestions][32] = {};
  // A box whose text is not a number says so under it until the text changes.
  static bool not_a_number[scenario::kMaxQuizQuestions] = {};
  static uint64_t typed_for = ~uint64_t{0};
  if (typed_for != s.loads) {  // a new scenario: empty answer boxes
    typed_for = s.loads;
    for (auto& t : typed) t[0] = '\0';
    for (bool& b : not_a_number) b = false;
  }
  const std::string lang = language_code();
  const auto marks = s.progress.find(s.lesson_id());
  // A stack asks each question on its layer: the others of this step wait there, behind a
  // button that shows that layer (one per layer, with how many are open there).
  std::vector<int> elsewhere(static_cast<size_t>(s.layer_count()), 0);
  for (size_t q = 0; q < quiz.size(); ++q) {
    const scenario::QuizQuestion& qq = quiz[q];
    if (qq.step != static_cast<int>(s.step)) continue;
    if (s.layered() && qq.answer.layer != s.layer) {
      if (!s.replies[q].answered && qq.answer.layer < s.layer_count()) ++elsewhere[qq.answer.layer];
      continue;
    }
    ImGui::PushID(static_cast<int>(q));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float pad = 8.0f;
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float box_w = ImGui::GetContentRegionAvail().x;
    ImGui::Indent(pad + 4.0f);
    ImGui::Dummy(ImVec2(0, pad * 0.25f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.27f, 0.02f, 1.0f));
    ImGui::TextUnformatted(T("Predict, then check"));
    item_text("quiz.header", T("Predict, then check"));
    ImGui::PopStyleColor();
    const auto room = [pad] { return ImGui::GetContentRegionAvail().x - pad; };
    text_wrapped(lesson_text_shown(s, qq.ask.in(lang)), false, room());
    AppState::QuizReply& r = s.replies[q];
    const scenario::QuizAnswer& a = qq.answer;
    if (!s.quiz_fits(static_cast<int>(q))) {
      // Its cell is not there now (training changed how many words the decoder writes, or an
      // edit took a row away): why, and what brings it back; nothing to answer with.
      const std::string unfit = s.quiz_unfit_text(static_cast<int>(q));
      text_wrapped(unfit, true, room());
      item_text("quiz.unfit", unfit);
    } else if (!r.answered) {
      if (a.argmax) {
        const std::vector<std::string> keys = s.quiz_key_labels(static_cast<int>(q));
        for (size_t j = 0; j < keys.size(); ++j) {
          if (j > 0) {
            const float next =
                ImGui::CalcTextSize(keys[j].c_str()).x + 2 * ImGui::GetStyle().FramePadding.x;
            if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next <
                ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
              ImGui::SameLine();
          }
          ImGui::PushID(static_cast<int>(j));
          if (ImGui::Button(keys[j].c_str()))
            s.answer_quiz(static_cast<int>(q), static_cast<int>(j), 0);
          ImGui::PopID();
        }
      } else {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        const bool enter = ImGui::InputText(
            "##value", typed[q], sizeof typed[q],
            ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_EnterReturnsTrue);
        if (ImGui::IsItemEdited()) not_a_number[q] = false;
        ImGui::SameLine();
        const bool check = ImGui::Button(T("Check"));
        if (enter || check) {
          // The whole text is the number ("0.20.9986" was read as 0.2 and marked wrong).
          const std::optional<float> v = typed_number(typed[q]);
          if (v) s.answer_quiz(static_cast<int>(q), -1, *v);
          not_a_number[q] = !v;
        }
        if (not_a_number[q]) {
          ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.7f, 0.15f, 0.1f, 1.0f));
          text_wrapped(T("Type one number, such as 0.25 or -1.5."), false, room());
          item_text("quiz.not_a_number", T("Type one number, such as 0.25 or -1.5."));
          ImGui::PopStyleColor();
        }
      }
      // Giving up shows the answer (recorded as not right first time).
      if (small_button(T("Show me the answer"))) s.show_quiz_answer(static_cast<int>(q));
      if (marks != s.progress.end() && q < marks->second.size() && marks->second[q] != '-')
        ImGui::TextDisabled("%s", marks->second[q] == 'r' ? T("You answered this one right before.")
                                                          : T("You tried this one before."));
    } else {
      const std::string verdict = s.quiz_verdict(static_cast<int>(q));
      ImGui::PushStyleColor(ImGuiCol_Text, r.correct ? ImVec4(0.05f, 0.45f, 0.2f, 1.0f)
                                                     : ImVec4(0.7f, 0.15f, 0.1f, 1.0f));
      ImGui::TextUnformatted(r.correct ? T("Right.")
                             : r.shown ? T("Here it is.")
                                       : T("Not quite."));
      ImGui::PopStyleColor();
      ImGui::SameLine();
      text_wrapped(verdict, false, room());
      item_text("quiz.verdict", verdict);
      // The lesson's explanation fits its own numbers: after edits that change the answer it
      // would explain something else.
      const bool key_holds = s.quiz_key_holds(static_cast<int>(q));
      if (key_holds)
        text_wrapped(qq.why.in(lang), false, room());
      else
        text_wrapped(T("You have changed the lesson, so its own explanation no longer fits "
                       "these numbers."),
                     true, room());
      if (small_button(T("Ask me again"))) {  // an empty box, as for the first time
        r = AppState::QuizReply{};
        typed[q][0] = '\0';
        not_a_number[q] = false;
      }
    }
    ImGui::Dummy(ImVec2(0, pad * 0.25f));
    ImGui::Unindent(pad + 4.0f);
    const ImVec2 p1(p0.x + box_w, ImGui::GetItemRectMax().y);
    dl->ChannelsSetCurrent(0);
    dl->AddRectFilled(p0, p1, IM_COL32(253, 243, 226, 255), 4.0f);
    dl->AddRectFilled(p0, ImVec2(p0.x + 4.0f, p1.y), IM_COL32(196, 110, 20, 255), 2.0f);
    dl->ChannelsMerge();
    ImGui::Spacing();
    ImGui::PopID();
  }
  for (int l = 0; l < static_cast<int>(elsewhere.size()); ++l) {
    if (elsewhere[l] == 0) continue;
    const std::string waiting =
        elsewhere[l] == 1
            ? printf_text(T("A question on this step waits on layer %d."), l + 1)
            : printf_text(T("%d questions on this step wait on layer %d."), elsewhere[l], l + 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(waiting.c_str());
    const std::string label = printf_text(T("Show layer %d"), l + 1);
    same_line_if_fits(button_width(label.c_str()));
    if (small_button((label + "##show_layer").c_str())) s.set_layer(l);
  }
}

void draw_lesson(AppState& s) {
  const std::string& text = s.scenario.description.in(language_code());
  const int count = s.path_count(), here = s.path_position();
  // A lesson on the path without a title or a text (a course's own, written by hand) still
  // shows its place and the way on, under its name.
  const std::string title = s.lesson_title(language_code());
  if (title.empty() && text.empty()) return;
  // Where this lesson is on the path, and the way to the one before and after (not when the
  // embedding page chooses the lessons: hide=preset).
  if (here >= 0 && !s.control_hidden("preset")) {
    const std::string where = printf_text(T("Lesson %d of %d"), here + 1, count);
    if (touch_targets()) ImGui::AlignTextToFramePadding();  // level with the buttons
    ImGui::TextDisabled("%s", where.c_str());
    item_text("lesson.place", where);
    // In a narrow column (the left one of an 800-pixel frame) the buttons wrap, never cut.
    const auto small_w = [](const char* label) {
      return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
    };
    same_line_if_fits(small_w(T("\xe2\x97\x80 Previous")));
    ImGui::BeginDisabled(here == 0);
    if (small_button(T("\xe2\x97\x80 Previous"))) s.load_preset(s.path_preset(here - 1));
    ImGui::EndDisabled();
    same_line_if_fits(small_w(T("Next \xe2\x96\xb6")));
    ImGui::BeginDisabled(here + 1 >= count);
    if (small_button(T("Next \xe2\x96\xb6"))) s.load_preset(s.path_preset(here + 1));
    ImGui::EndDisabled();
    if (s.lesson_done(s.lesson_id())) {
      same_line_if_fits(ImGui::CalcTextSize(T("\xe2\x97\x8f done")).x);
      ImGui::TextDisabled("%s", T("\xe2\x97\x8f done"));
    }
  }
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  text_wrapped(title);
  item_text("lesson.title", title);
  if (g_fonts.title) ImGui::PopFont();
  text_wrapped(text);
  // The textbook section the lesson follows: opens in a new tab (the page does it; nothing is
  // fetched by the playground).
  const std::string& url = s.scenario.read_url.in(language_code());
  if (!url.empty() && s.in_page) {
    const std::string label =
        printf_text(T("Read: %s"), s.scenario.read_title.in(language_code()).c_str());
    // A link that wraps like the text around it (a button would be cut at the panel's edge).
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.11f, 0.31f, 0.66f, 1.0f));
    text_wrapped(std::string(label) + " \xe2\x86\x97");
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
      ImGui::SetTooltip("%s", url.c_str());
    }
    if (ImGui::IsItemClicked()) s.events.push_back("open_url|" + url);
  }
  // The lesson's notes, one button per step that has one.
  const bool any_note = std::any_of(s.scenario.tour.begin(), s.scenario.tour.end(),
                                    [&](const scenario::TourStop& t) { return s.note_shown(t); });
  if (any_note) {
    ImGui::Spacing();
    if (touch_targets()) ImGui::AlignTextToFramePadding();  // level with the buttons
    ImGui::TextDisabled("%s", T("Notes on steps"));
    for (const scenario::TourStop& stop : s.scenario.tour) {
      if (!s.note_shown(stop)) continue;
      char label[64];
      std::snprintf(label, sizeof label, "%d##tour%d", stop.step + 1, stop.step);
      same_line_if_fits(ImGui::CalcTextSize(label, nullptr, true).x +
                        2.0f * ImGui::GetStyle().FramePadding.x);
      const bool here = static_cast<int>(s.step) == stop.step;
      if (here) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.84f, 0.97f, 1.0f));
      if (small_button(label)) s.set_step(stop.step);
      if (here) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", T(step_name(static_cast<Step>(stop.step))));
    }
  }
  // The steps that ask a question.
  bool any_question = false;
  std::vector<int> asked;
  for (const scenario::QuizQuestion& q : s.quiz()) {
    if (std::find(asked.begin(), asked.end(), q.step) != asked.end()) continue;
    asked.push_back(q.step);
    if (!any_question) {
      if (touch_targets()) ImGui::AlignTextToFramePadding();  // level with the buttons
      ImGui::TextDisabled("%s", T("Questions on steps"));
      any_question = true;
    }
    char label[64];
    std::snprintf(label, sizeof label, "%d?##quiz%d", q.step + 1, q.step);
    same_line_if_fits(ImGui::CalcTextSize(label, nullptr, true).x +
                      2.0f * ImGui::GetStyle().FramePadding.x);
    if (small_button(label)) s.set_step(q.step);
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::Spacing();
}

}  // namespace ui
