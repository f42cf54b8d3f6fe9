// "About this scenario": the preset's title and description in the current language, and
// buttons to the steps its tour has notes on.
#include <algorithm>
#include <cstdio>

#include "app/app.h"
#include "app/i18n.h"

namespace ui {

void draw_lesson(AppState& s) {
  const std::string& title = s.scenario.title.in(language_code());
  const std::string& text = s.scenario.description.in(language_code());
  if (title.empty() && text.empty()) return;
  // Where this lesson is on the path, and the way to the one before and after (not when the
  // embedding page chooses the lessons: hide=preset).
  const int count = static_cast<int>(s.presets.size());
  if (s.preset >= 0 && s.preset < count && !s.control_hidden("preset")) {
    char where[64];
    std::snprintf(where, sizeof where, T("Lesson %d of %d"), s.preset + 1, count);
    ImGui::TextDisabled("%s", where);
    ImGui::SameLine();
    const int here = s.preset;
    ImGui::BeginDisabled(here == 0);
    if (ImGui::SmallButton(T("\xe2\x97\x80 Previous"))) s.load_preset(here - 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(here + 1 >= count);
    if (ImGui::SmallButton(T("Next \xe2\x96\xb6"))) s.load_preset(here + 1);
    ImGui::EndDisabled();
  }
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  text_wrapped(title);
  if (g_fonts.title) ImGui::PopFont();
  text_wrapped(text);
  // The lesson's notes, one button per step that has one.
  const bool any_note = std::any_of(s.scenario.tour.begin(), s.scenario.tour.end(),
                                    [&](const scenario::TourStop& t) { return s.note_shown(t); });
  if (any_note) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", T("Notes on steps"));
    for (const scenario::TourStop& stop : s.scenario.tour) {
      if (!s.note_shown(stop)) continue;
      ImGui::SameLine();
      char label[64];
      std::snprintf(label, sizeof label, "%d##tour%d", stop.step + 1, stop.step);
      const bool here = static_cast<int>(s.step) == stop.step;
      if (here) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.84f, 0.97f, 1.0f));
      if (ImGui::SmallButton(label)) s.set_step(stop.step);
      if (here) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", T(step_name(static_cast<Step>(stop.step))));
    }
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::Spacing();
}

}  // namespace ui
