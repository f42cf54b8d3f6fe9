// Every labelled control Dear ImGui drew in the last frame, with its rectangle and the part of
// it its window shows: what a person could see and click, for the browser checks that click
// where the screen draws a control (tests/web/person_test.mjs) and for ap_items.
//
// It is filled through Dear ImGui's test-engine hooks (ap_imgui is compiled with
// IMGUI_ENABLE_TEST_ENGINE; item_log.cpp defines the hooks), only once item_log_enable(true).
#pragma once

#include <string>
#include <vector>

namespace ui {

struct ItemBox {
  std::string label;   // as drawn: "Train", not "Train###train_play"
  std::string id;      // as given to Dear ImGui: "Train###train_play", "##value"
  std::string window;  // the window (panel) it is in, e.g. "Attention Playground/controls_…"
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;      // the item, in CSS pixels
  float cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0;  // what its window shows (its clip rectangle)
  bool checkable = false, checked = false, openable = false, open = false;
  bool text = false;  // a line of text (item_text), not a control
  bool tab = false;   // a tab of a tab bar (clipped by the bar, which may scroll)
};

void item_log_enable(bool on);
bool item_log_enabled();
// Call before ImGui::NewFrame(): what the last frame recorded becomes item_log_last().
void item_log_new_frame();
const std::vector<ItemBox>& item_log_last();
// Records the last item (text, which has no id and so no hook) as `id` reading `label`.
void item_text(const char* id, const std::string& label);

}  // namespace ui
