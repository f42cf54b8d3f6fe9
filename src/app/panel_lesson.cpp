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
