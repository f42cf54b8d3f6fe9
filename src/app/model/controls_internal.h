// What the controls' table's files share: how a row starts (make), the language's code, and
// the table's parts, which controls.cpp puts together in this order (controls_view.cpp,
// controls_attention.cpp, controls_train.cpp, controls_page.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "app/model/controls.h"

namespace ui::detail {

using nlohmann::json;

inline Control make(const char* id, const char* label, ControlKind kind, const char* hidden_by,
                    double min = 0.0, double max = 0.0, double step = 0.0,
                    bool logarithmic = false) {
  Control c;
  c.id = id;
  c.label = label;
  c.kind = kind;
  c.hidden_by = hidden_by;
  c.min = min;
  c.max = max;
  c.step = step;
  c.logarithmic = logarithmic;
  return c;
}

inline const char* lang_code(const AppState& s) {
  return s.lang == Lang::kZh ? "zh" : "en";
}

// The table's parts, in its order: each appends its rows to t.
void add_view_controls(std::vector<Control>& t);       // the step to the batch item
void add_attention_controls(std::vector<Control>& t);  // scoring to the animation
void add_train_controls(std::vector<Control>& t);      // the Train section
void add_page_controls(std::vector<Control>& t);       // the lessons to the language

}  // namespace ui::detail
