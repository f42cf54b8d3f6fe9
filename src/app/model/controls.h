// The playground's controls in one table. Each control has an id (as `hide=`, a lesson note's
// "controls", set_control and the table view name it), a label, a kind and a range, and says
// when it is there, how its value is read and how a new value is applied. The canvas draws
// its widgets from it (panel_controls.cpp, panel_top_bar.cpp, panel_pipeline.cpp), the JS API
// lists it for the table view's form controls (api::controls) and applies it
// (api::set_control), and hide= ids and lesson notes are checked against it: a control added
// here is on the canvas, in the table view and reachable from the keyboard at once.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app/model/app_state.h"

namespace ui {

enum class ControlKind {
  kCheckbox,  // value true/false
  kSelect,    // value one of options()
  kNumber,    // value a number from min to max
  kButton,    // no value: applying it (with true) does it
  kMenu,      // a button per option: applying an option's value does it
};
const char* control_kind_name(ControlKind k);  // "checkbox", "select", "number", "button", "menu"

struct ControlOption {
  nlohmann::json value;
  std::string label;  // in the language on screen
};

struct Control {
  const char* id = "";
  const char* label = "";  // English (N_): T(label) is the language on screen
  ControlKind kind = ControlKind::kCheckbox;
  // The hide= id that hides it: its own id, or its group's ("train" hides the Train section's
  // controls). nullptr: it cannot be hidden (the step).
  const char* hidden_by = nullptr;
  double min = 0.0, max = 0.0, step = 0.0;  // kNumber: the range and the increment
  bool logarithmic = false;                 // kNumber: a slider on a log scale
  // Whether it is there for this scenario (nullptr: always).
  std::function<bool(const AppState&)> available;
  std::function<nlohmann::json(const AppState&)> read;  // the value (kCheckbox..kNumber)
  std::function<std::vector<ControlOption>(const AppState&)> options;  // kSelect, kMenu
  // Applies a value, which is JSON of the right kind (checked before: a boolean, one of the
  // options' values, a number in [min, max]); returns "" or an error that names the control.
  // It marks the scenario changed; the caller recomputes.
  std::function<std::string(AppState&, const nlohmann::json&)> apply;
  const char* help = nullptr;  // what it does (English, N_), shown as the canvas's (?)
};

// Every control, in the table view's order (the step first).
const std::vector<Control>& control_table();
// The control with this id, or nullptr.
const Control* find_control(std::string_view id);
// Whether a control is shown: there for this scenario and not hidden by the page.
bool control_shown(const AppState& s, const Control& c);
bool control_shown(const AppState& s, const char* id);

// The ids `hide=` accepts: every control's hidden_by, and the canvas's parts without a value
// (the token names, the sizes, Randomize, the colour scale, dropout, the table view button…).
const std::vector<std::string>& hide_ids();
bool hide_id_known(std::string_view id);

// Checks `value` against the control's kind and range, then applies it: "" or an error naming
// the control ("temperature: must be a number from 0.05 to 10"). Does not recompute.
std::string apply_control(AppState& s, const Control& c, const nlohmann::json& value);

// The control as the table view gets it: {"id", "label", "kind", "value", "options": [{value,
// label}], "min", "max", "step"}.
nlohmann::json describe_control(const AppState& s, const Control& c);

}  // namespace ui
