// The canvas's widgets for the controls of the table (controls.h): label, value, choices,
// range and what a change does all come from there.
#include <algorithm>
#include <string>

#include "app/model/controls.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

namespace {

const Control& lookup(const char* id) {
  const Control* c = find_control(id);
  IM_ASSERT(c && "a control missing from the controls' table (controls.h)");
  return *c;
}

}  // namespace

bool control_apply(AppState& s, const char* id, const nlohmann::json& value) {
  const Control& c = lookup(id);
  if (!control_shown(s, c)) return false;
  // The widgets offer only values the table accepts; an edit the core refuses shows as the
  // scenario's error, a training step's as the Train section's.
  return apply_control(s, c, value).empty();
}

bool control_checkbox(AppState& s, const char* id, bool draw_unavailable) {
  const Control& c = lookup(id);
  if (c.hidden_by && s.control_hidden(c.hidden_by)) return false;
  const bool available = !c.available || c.available(s);
  if (!available && !draw_unavailable) return false;
  bool on = c.read(s).get<bool>();
  ImGui::BeginDisabled(!available);
  const bool changed = ImGui::Checkbox(T(c.label), &on) && available && control_apply(s, id, on);
  ImGui::EndDisabled();
  if (c.help) help_marker(c.help);
  return changed;
}

bool control_combo(AppState& s, const char* id, const char* preview) {
  const Control& c = lookup(id);
  if (!control_shown(s, c)) return false;
  const nlohmann::json value = c.read(s);
  const std::vector<ControlOption> options = c.options(s);
  std::string shown = preview ? preview : "";
  if (!preview)
    for (const ControlOption& o : options)
      if (o.value == value) shown = o.label;
  bool changed = false;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo((std::string("##") + id).c_str(), shown.c_str())) {
    for (size_t k = 0; k < options.size(); ++k) {
      ImGui::PushID(static_cast<int>(k));
      if (ImGui::Selectable(options[k].label.c_str(), options[k].value == value))
        changed = control_apply(s, id, options[k].value);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool control_radios(AppState& s, const char* id, const char* suffix) {
  const Control& c = lookup(id);
  if (!control_shown(s, c)) return false;
  const nlohmann::json value = c.read(s);
  bool changed = false;
  for (const ControlOption& o : c.options(s)) {
    const std::string label = o.label + suffix;
    // A radio button: its circle, the gap and the label; the row wraps rather than cut one.
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                      ImGui::CalcTextSize(label.c_str(), nullptr, true).x);
    if (ImGui::RadioButton(label.c_str(), o.value == value) && o.value != value)
      changed = control_apply(s, id, o.value);
  }
  return changed;
}

bool control_slider(AppState& s, const char* id, const char* format) {
  const Control& c = lookup(id);
  if (!control_shown(s, c)) return false;
  float v = c.read(s).get<float>();
  ImGui::SetNextItemWidth(-1);
  if (!ImGui::SliderFloat((std::string("##") + id).c_str(), &v, static_cast<float>(c.min),
                          static_cast<float>(c.max), format,
                          c.logarithmic ? ImGuiSliderFlags_Logarithmic : 0))
    return false;
  return control_apply(s, id, std::clamp(static_cast<double>(v), c.min, c.max));
}

bool control_button(AppState& s, const char* id, const char* label, bool small,
                    bool draw_unavailable) {
  const Control& c = lookup(id);
  if (c.hidden_by && s.control_hidden(c.hidden_by)) return false;
  const bool available = !c.available || c.available(s);
  if (!available && !draw_unavailable) return false;
  const char* text = label ? label : T(c.label);
  ImGui::BeginDisabled(!available);
  const bool pressed = small ? small_button(text) : ImGui::Button(text);
  ImGui::EndDisabled();
  return pressed && available && control_apply(s, id, true);
}

}  // namespace ui
