// The controls' table (controls.h): put together from its parts (controls_internal.h), each
// control found by id, the ids hide= knows, and a value checked and applied, or described for
// the table view.
#include "app/model/controls.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/controls_internal.h"
#include "app/text/i18n.h"

namespace ui {

namespace {

using nlohmann::json;

std::vector<Control> make_table() {
  std::vector<Control> t;
  detail::add_view_controls(t);
  detail::add_attention_controls(t);
  detail::add_train_controls(t);
  detail::add_page_controls(t);
  return t;
}

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

const char* control_kind_name(ControlKind k) {
  switch (k) {
    case ControlKind::kCheckbox:
      return "checkbox";
    case ControlKind::kSelect:
      return "select";
    case ControlKind::kNumber:
      return "number";
    case ControlKind::kButton:
      return "button";
    case ControlKind::kMenu:
      return "menu";
  }
  return "";
}

const std::vector<Control>& control_table() {
  static const std::vector<Control> table = make_table();
  return table;
}

const Control* find_control(std::string_view id) {
  for (const Control& c : control_table())
    if (id == c.id) return &c;
  return nullptr;
}

bool control_shown(const AppState& s, const Control& c) {
  if (c.hidden_by && s.control_hidden(c.hidden_by)) return false;
  return !c.available || c.available(s);
}

bool control_shown(const AppState& s, const char* id) {
  const Control* c = find_control(id);
  return c && control_shown(s, *c);
}

const std::vector<std::string>& hide_ids() {
  static const std::vector<std::string> ids = [] {
    // The canvas's parts that hide= names but that are not one control with a value.
    std::vector<std::string> out = {"tokens", "sizes", "randomize", "masked_cells",
                                    "seed",   "scale", "dropout",   "table"};
    for (const Control& c : control_table())
      if (c.hidden_by && std::find(out.begin(), out.end(), c.hidden_by) == out.end())
        out.push_back(c.hidden_by);
    return out;
  }();
  return ids;
}

bool hide_id_known(std::string_view id) {
  for (const std::string& known : hide_ids())
    if (id == known) return true;
  return false;
}

std::string apply_control(AppState& s, const Control& c, const json& v) {
  const std::string id = c.id;
  switch (c.kind) {
    case ControlKind::kCheckbox:
      if (!v.is_boolean()) return id + ": must be true or false";
      break;
    case ControlKind::kNumber:
      if (!v.is_number() || !(v.get<double>() >= c.min && v.get<double>() <= c.max) ||
          (c.step == 1.0 && v.get<double>() != std::floor(v.get<double>())))
        return id + ": must be " + (c.step == 1.0 ? "a whole number" : "a number") + " from " +
               format_number(c.min) + " to " + format_number(c.max);
      break;
    case ControlKind::kButton:
      if (v != true) return id + ": a button: apply it with true";
      break;
    case ControlKind::kSelect:
    case ControlKind::kMenu: {
      const std::vector<ControlOption> options = c.options(s);
      if (std::none_of(options.begin(), options.end(),
                       [&](const ControlOption& o) { return o.value == v; })) {
        std::string list;
        for (const ControlOption& o : options) list += (list.empty() ? "" : ", ") + o.value.dump();
        return id + ": must be one of " + list;
      }
      break;
    }
  }
  return c.apply(s, v);
}

json describe_control(const AppState& s, const Control& c) {
  json j = {{"id", c.id}, {"label", T(c.label)}, {"kind", control_kind_name(c.kind)}};
  if (c.read) j["value"] = c.read(s);
  if (c.options) {
    json options = json::array();
    for (const ControlOption& o : c.options(s))
      options.push_back({{"value", o.value}, {"label", o.label}});
    j["options"] = std::move(options);
  }
  if (c.kind == ControlKind::kNumber) {
    j["min"] = c.min;
    j["max"] = c.max;
    j["step"] = c.step;
  }
  return j;
}

}  // namespace ui
