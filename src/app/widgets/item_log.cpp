// Dear ImGui's test-engine hooks (imgui_internal.h, IMGUI_ENABLE_TEST_ENGINE), turned into the
// list of the controls on screen (item_log.h). ItemAdd reports every item with an id and its
// rectangle, before clipping; ItemInfo then names the ones that were not clipped away.
#ifndef IMGUI_ENABLE_TEST_ENGINE
#define IMGUI_ENABLE_TEST_ENGINE
#endif
#include "app/widgets/item_log.h"

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <unordered_map>

#include "imgui.h"
#include "imgui_internal.h"

namespace ui {
namespace {

std::string shown_label(const char* label);

struct Log {
  bool on = false;
  std::vector<ItemBox> now, last;
  std::unordered_map<ImGuiID, size_t> index;  // this frame's items by id
  // Labels given before their item was added (a tab names itself first), by id.
  std::unordered_map<ImGuiID, std::pair<std::string, ImGuiItemStatusFlags>> early;
} g_log;

void name(ItemBox* b, const char* label, ImGuiItemStatusFlags flags) {
  b->id = label;
  b->label = shown_label(label);
  b->checkable = flags & ImGuiItemStatusFlags_Checkable;
  b->checked = flags & ImGuiItemStatusFlags_Checked;
  b->openable = flags & ImGuiItemStatusFlags_Openable;
  b->open = flags & ImGuiItemStatusFlags_Opened;
}

ItemBox box_of(const ImRect& bb) {
  ItemBox b;
  b.x0 = bb.Min.x;
  b.y0 = bb.Min.y;
  b.x1 = bb.Max.x;
  b.y1 = bb.Max.y;
  if (const ImGuiWindow* w = GImGui ? GImGui->CurrentWindow : nullptr) {
    b.cx0 = w->ClipRect.Min.x;
    b.cy0 = w->ClipRect.Min.y;
    b.cx1 = w->ClipRect.Max.x;
    b.cy1 = w->ClipRect.Max.y;
    b.window = w->Name;
  }
  // A tab (in its bar's row, while the bar is being drawn): the bar clips it.
  if (const ImGuiTabBar* bar = GImGui ? GImGui->CurrentTabBar : nullptr) {
    if (bb.Min.y >= bar->BarRect.Min.y - 1.0f && bb.Max.y <= bar->BarRect.Max.y + 1.0f) {
      b.tab = true;
      b.cx0 = std::max(b.cx0, bar->BarRect.Min.x);
      b.cx1 = std::min(b.cx1, bar->BarRect.Max.x);
    }
  }
  return b;
}

// "Train###train_play" → "Train"; "3##tour2" → "3".
std::string shown_label(const char* label) {
  const char* end = std::strstr(label, "##");
  return end ? std::string(label, end) : std::string(label);
}

}  // namespace

void item_log_enable(bool on) {
  g_log.on = on;
  if (GImGui) GImGui->TestEngineHookItems = on;
}

bool item_log_enabled() {
  return g_log.on;
}

void item_log_new_frame() {
  if (GImGui) GImGui->TestEngineHookItems = g_log.on;
  if (!g_log.on) return;
  g_log.last.clear();
  for (ItemBox& b : g_log.now)
    if (!b.id.empty()) g_log.last.push_back(std::move(b));
  g_log.now.clear();
  g_log.index.clear();
  g_log.early.clear();
}

const std::vector<ItemBox>& item_log_last() {
  return g_log.last;
}

void item_text(const char* id, const std::string& label) {
  if (!g_log.on || !GImGui) return;
  ItemBox b = box_of(GImGui->LastItemData.Rect);
  b.label = label;
  b.id = id;
  b.text = true;
  g_log.now.push_back(std::move(b));
}

}  // namespace ui

void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, const ImRect& bb, ImGuiID id) {
  auto& log = ui::g_log;
  if (!log.on) return;
  const auto found = log.index.find(id);
  if (found != log.index.end()) {  // the same id again (a tab bar's item): the latest place
    ui::ItemBox moved = ui::box_of(bb);
    moved.label = std::move(log.now[found->second].label);
    moved.id = std::move(log.now[found->second].id);
    log.now[found->second] = std::move(moved);
    return;
  }
  log.index.emplace(id, log.now.size());
  log.now.push_back(ui::box_of(bb));
  const auto early = log.early.find(id);
  if (early != log.early.end()) {
    ui::name(&log.now.back(), early->second.first.c_str(), early->second.second);
    log.early.erase(early);
  }
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label,
                                  ImGuiItemStatusFlags flags) {
  auto& log = ui::g_log;
  if (!log.on || !label) return;
  const auto found = log.index.find(id);
  if (found == log.index.end())
    log.early[id] = {label, flags};
  else
    ui::name(&log.now[found->second], label, flags);
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) {
  return nullptr;
}
