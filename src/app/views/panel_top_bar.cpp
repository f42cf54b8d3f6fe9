// The top bar: the product name, the preset's title, and the language switch.
#include <string_view>

#include "app/model/controls.h"
#include "app/text/i18n.h"
#include "app/text/text_wrap.h"
#include "app/views/app.h"

namespace ui {

void draw_top_bar(AppState& s) {
  if (!ImGui::BeginMenuBar()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(T("Attention Playground"));
  if (g_fonts.title) ImGui::PopFont();
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.79f, 0.88f, 1.0f));
  // The lesson's title, shortened with "…" to leave room for the language switch.
  std::string title = s.lesson_title(language_code());
  const float switch_w = s.control_hidden("language")
                             ? 0.0f
                             : ImGui::CalcTextSize("English  \xe4\xb8\xad\xe6\x96\x87").x + 40.0f;
  const float table_w = s.in_page && !s.control_hidden("table")
                            ? ImGui::CalcTextSize(T("Table view")).x + 24.0f
                            : 0.0f;
  const float room = ImGui::GetWindowWidth() - switch_w - table_w - ImGui::GetCursorPosX() - 48.0f;
  const std::string fitted = fit_text(title, room, [](std::string_view t) {
    return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
  });
  // A few letters and "…" say nothing: then no title at all.
  title = fitted == title || fitted.size() >= 15 ? fitted : std::string();
  if (!title.empty()) {
    ImGui::SameLine(0, 24);
    ImGui::TextUnformatted(title.c_str());
  }
  ImGui::PopStyleColor();
  // The page's table view of this step (web/app.js): the numbers as text, for screen readers
  // and for anyone who prefers a table.
  const float lang_w = s.control_hidden("language")
                           ? 0.0f
                           : ImGui::CalcTextSize("English  \xe4\xb8\xad\xe6\x96\x87").x + 40.0f;
  if (s.in_page && !s.control_hidden("table")) {
    const float w = ImGui::CalcTextSize(T("Table view")).x + 24.0f;
    ImGui::SameLine(ImGui::GetWindowWidth() - lang_w - w);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 0.85f));
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(1, 1, 1, 0.0f));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(1, 1, 1, 0.3f));
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImVec4(1, 1, 1, 0.4f));
    if (small_button(T("Table view"))) s.events.push_back("table_view");
    ImGui::PopStyleColor(4);
  }
  if (control_shown(s, "language")) {
    const float w = lang_w;
    ImGui::SameLine(ImGui::GetWindowWidth() - w);
    // A two-way switch: the current language is the filled one.
    const Control& c = *find_control("language");
    const nlohmann::json value = c.read(s);
    bool first = true;
    for (const ControlOption& o : c.options(s)) {
      if (!first) ImGui::SameLine(0, 2);
      first = false;
      const bool on = o.value == value;
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, on ? 1.0f : 0.7f));
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(1, 1, 1, on ? 0.22f : 0.0f));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(1, 1, 1, 0.3f));
      ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImVec4(1, 1, 1, 0.4f));
      if (small_button(o.label.c_str()) && !on) control_apply(s, "language", o.value);
      ImGui::PopStyleColor(4);
    }
  }
  ImGui::EndMenuBar();
}

}  // namespace ui
