// "About this scenario": the preset's title and description in the current language.
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
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::Spacing();
}

}  // namespace ui
