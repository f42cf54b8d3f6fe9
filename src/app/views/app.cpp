// The playground's frame: layout of the panels, the theme, and shared widgets.
#include "app/views/app.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/text/text_wrap.h"
#include "app/widgets/item_log.h"
#include "imgui_internal.h"

namespace ui {

Fonts g_fonts;

namespace {
bool g_touch = false;
}  // namespace

void set_touch_targets(bool touch) {
  if (touch == g_touch) return;
  g_touch = touch;
  apply_style(1.0f);
}

bool touch_targets() {
  return g_touch;
}

bool small_button(const char* label) {
  if (!g_touch) return ImGui::SmallButton(label);
  // A finger's 24 px across too, for a label of one glyph ("键").
  const float w =
      ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  return ImGui::Button(label, ImVec2(std::max(w, 28.0f), 0.0f));
}

void apply_style(float scale) {
  ImGuiStyle& st = ImGui::GetStyle();
  ImGui::StyleColorsLight(&st);
  st.WindowRounding = 6.0f;
  st.ChildRounding = 6.0f;
  st.FrameRounding = 4.0f;
  st.GrabRounding = 4.0f;
  st.PopupRounding = 4.0f;
  st.TabRounding = 4.0f;
  st.WindowPadding = ImVec2(12, 10);
  // A finger needs 24 px: a line of text (about 14 px) and 6 px above and below it.
  st.FramePadding = ImVec2(8, g_touch ? 6.0f : 4.0f);
  st.ItemSpacing = ImVec2(8, g_touch ? 8.0f : 7.0f);
  st.ItemInnerSpacing = ImVec2(6, 4);
  st.ScrollbarSize = g_touch ? 18.0f : 12.0f;
  st.GrabMinSize = g_touch ? 20.0f : st.GrabMinSize;
  st.WindowBorderSize = 0.0f;
  st.ChildBorderSize = 1.0f;
  ImVec4* c = st.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.965f, 0.969f, 0.976f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
  c[ImGuiCol_Border] = ImVec4(0.85f, 0.87f, 0.90f, 1.0f);
  c[ImGuiCol_Text] = ImVec4(0.11f, 0.13f, 0.18f, 1.0f);
  c[ImGuiCol_TextDisabled] = ImVec4(0.42f, 0.45f, 0.52f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.93f, 0.94f, 0.96f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.88f, 0.91f, 0.96f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.82f, 0.87f, 0.96f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.90f, 0.92f, 0.96f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.80f, 0.86f, 0.97f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.70f, 0.79f, 0.96f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.88f, 0.91f, 0.97f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.80f, 0.86f, 0.97f, 1.0f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.72f, 0.80f, 0.96f, 1.0f);
  c[ImGuiCol_CheckMark] = ImVec4(0.16f, 0.36f, 0.78f, 1.0f);
  c[ImGuiCol_SliderGrab] = ImVec4(0.27f, 0.45f, 0.85f, 1.0f);
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.16f, 0.36f, 0.78f, 1.0f);
  c[ImGuiCol_Tab] = ImVec4(0.90f, 0.92f, 0.96f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.80f, 0.86f, 0.97f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.12f, 0.14f, 0.20f, 1.0f);
  st.ScaleAllSizes(scale);
}

void same_line_if_fits(float width) {
  ImGui::SameLine();
  // An item may reach into half the window's padding before the window clips it.
  const float room = ImGui::GetContentRegionAvail().x + ImGui::GetStyle().WindowPadding.x * 0.5f;
  if (room < width) ImGui::NewLine();
}

float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2.0f;
}

void help_marker(const char* text) {
  same_line_if_fits(ImGui::CalcTextSize("(?)").x);
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    text_wrapped(T(text), false, ImGui::GetFontSize() * 28.0f);
    ImGui::EndTooltip();
  }
}

// The width to wrap at: `width` when given, else the pushed wrap position's (a tooltip's), else
// what is left of the line.
static float wrap_width(float width) {
  if (width > 0.0f) return width;
  const float wrap_pos = ImGui::GetCurrentWindow()->DC.TextWrapPos;
  if (wrap_pos > 0.0f)
    return std::max(1.0f, ImGui::CalcWrapWidthForPos(ImGui::GetCursorScreenPos(), wrap_pos));
  return std::max(1.0f, ImGui::GetContentRegionAvail().x);
}

// last_apart: the last line is an item of its own (directly below the others), so that
// SameLine() continues it.
static void draw_wrapped(const std::string& text, bool disabled, float width, bool last_apart) {
  const float w = wrap_width(width);
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const auto measure = [&](std::string_view s) {
    return font->CalcTextSizeA(size, FLT_MAX, 0.0f, s.data(), s.data() + s.size()).x;
  };
  const std::vector<std::string> lines = wrap_lines(text, w, measure);
  const size_t apart = last_apart && lines.size() > 1 ? 1 : 0;
  std::string joined;
  for (size_t i = 0; i + apart < lines.size(); ++i) {
    if (i) joined += '\n';
    joined += lines[i];
  }
  if (disabled)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (apart) {
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));
    ImGui::TextUnformatted(joined.data(), joined.data() + joined.size());
    ImGui::PopStyleVar();
    ImGui::TextUnformatted(lines.back().data(), lines.back().data() + lines.back().size());
  } else {
    ImGui::TextUnformatted(joined.data(), joined.data() + joined.size());
  }
  if (disabled) ImGui::PopStyleColor();
}

void text_wrapped(const std::string& text, bool disabled, float width) {
  draw_wrapped(text, disabled, width, false);
}

// Wrapped by wrap_lines, not by Dear ImGui, which breaks after any '.' and so would split
// "0.4291" into "0." and "4291".
void text_wrapped_mono(const std::string& text, float width, bool last_apart) {
  if (g_fonts.mono) ImGui::PushFont(g_fonts.mono);
  draw_wrapped(text, false, width, last_apart);
  if (g_fonts.mono) ImGui::PopFont();
}

void text_wrapped_formula(const std::string& text, float width, bool last_apart) {
  draw_wrapped(text, false, width, last_apart);
}

// Places the next tooltip beside the cell under the mouse (right, below, left or above,
// whichever it fits in), never over it. The tooltip's size is last frame's.
static void place_tooltip_beside(const float cell[4], ImVec2 last_size) {
  if (last_size.x <= 0.0f || cell[2] <= cell[0]) return;
  static ImGuiDir last_dir = ImGuiDir_None;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 pad = ImGui::GetStyle().DisplaySafeAreaPadding;
  const ImRect outer(vp->WorkPos.x + pad.x, vp->WorkPos.y + pad.y,
                     vp->WorkPos.x + vp->WorkSize.x - pad.x,
                     vp->WorkPos.y + vp->WorkSize.y - pad.y);
  const ImRect avoid(cell[0] - 4.0f, cell[1] - 4.0f, cell[2] + 4.0f, cell[3] + 4.0f);
  ImVec2 pos = ImGui::FindBestWindowPosForPopupEx(ImGui::GetIO().MousePos, last_size, &last_dir,
                                                  outer, avoid, ImGuiPopupPositionPolicy_Tooltip);
  if (last_dir == ImGuiDir_None) {
    // It fits on no side: the side with more room, cut at the window's edge, but never over
    // the cell.
    pos.x = std::clamp(ImGui::GetIO().MousePos.x, outer.Min.x,
                       std::max(outer.Min.x, outer.Max.x - last_size.x));
    pos.y = outer.Max.y - avoid.Max.y >= avoid.Min.y - outer.Min.y ? avoid.Max.y
                                                                   : avoid.Min.y - last_size.y;
  }
  ImGui::SetNextWindowPos(pos);
}

void batch_selector(AppState& s) {
  if (s.scenario.batch() <= 1) return;
  ImGui::TextUnformatted(T("Batch item"));
  const int n = s.scenario.batch();
  if (n > 6) {  // a toy task's 32 sequences: ◀ 3 of 32 ▶ rather than a row of 32 buttons
    ImGui::SameLine();
    if (ImGui::ArrowButton("##batch_prev", ImGuiDir_Left)) s.set_batch(std::max(0, s.batch - 1));
    ImGui::SameLine();
    ImGui::Text(T("%d of %d"), s.batch + 1, n);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##batch_next", ImGuiDir_Right))
      s.set_batch(std::min(n - 1, s.batch + 1));
    return;
  }
  for (int b = 0; b < n; ++b) {
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "%d##batch", b + 1);
    if (ImGui::RadioButton(label, s.batch == b)) s.set_batch(b);
  }
}

namespace {

// While a large scenario computes in parts, or the focused head of a lean one: its sizes and
// how far it is, over the whole window (the panels draw from the trace, which is empty until
// then, and the head's matrices).
void draw_computing(const AppState& s) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("Attention Playground", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const float width = std::min(480.0f, vp->WorkSize.x - 32.0f);
  ImGui::SetCursorPos(ImVec2((vp->WorkSize.x - width) * 0.5f, vp->WorkSize.y * 0.4f));
  ImGui::BeginGroup();
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  const std::string title = s.computing_head() < 0
                                ? printf_text("%s", T("Computing the new scenario"))
                                : printf_text(T("Computing head %d of batch item %d"),
                                              s.computing_head() + 1, s.batch + 1);
  ImGui::TextUnformatted(title.c_str());
  item_text("computing.title", title);
  if (g_fonts.title) ImGui::PopFont();
  ImGui::Text(T("batch %d × %d queries × %d keys × %d heads"),
              static_cast<int>(s.problem.queries.size()), attn::batch_rows(s.problem.queries),
              attn::batch_rows(s.problem.keys), s.problem.heads);
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * s.computing_progress());
  ImGui::ProgressBar(static_cast<float>(s.computing_progress()), ImVec2(width, 0.0f), percent);
  item_text("computing.progress", percent);
  ImGui::EndGroup();
  ImGui::End();
}

// Each view's panel, by its id in the registry (views.h); "steps" is drawn first, before the
// lesson's tab, by App::frame itself.
using ViewPanel = void (*)(AppState&, Heatmaps&);
const std::pair<std::string_view, ViewPanel> kViewPanels[] = {
    {"picture", draw_picture},       {"curve", draw_curve},   {"decoder", draw_decoder},
    {"document", draw_hierarchy},    {"layers", draw_layers}, {"heads", draw_heads},
    {"positional", draw_positional}, {"plane", draw_plane},
};
ViewPanel view_panel(std::string_view id) {
  for (const auto& [view, draw] : kViewPanels)
    if (view == id) return draw;
  return nullptr;
}

// A view the registry lists without a panel here would never be drawn: the app stops at once
// with its name, so that every check that starts it fails.
bool every_view_has_a_panel() {
  for (const ViewSpec& v : view_registry()) {
    if (std::string_view(v.id) == "steps" || view_panel(v.id)) continue;
    std::fprintf(stderr, "views.cpp lists the view \"%s\" but app.cpp has no panel for it\n", v.id);
    std::abort();
  }
  return true;
}

}  // namespace

void App::frame() {
  static const bool views_complete = every_view_has_a_panel();
  (void)views_complete;
  ImGuiIO& io = ImGui::GetIO();
  if (state.redraw > 0) --state.redraw;
  state.recompute_in_parts(kComputeSliceMs);
  if (state.computing()) {
    draw_computing(state);
    return;
  }
  deliver_exports(state);
  heatmaps.begin_frame();
  state.prev_hover = state.hover;
  state.hover.reset();
  std::fill(std::begin(state.tooltip_rect), std::end(state.tooltip_rect), 0.0f);

  state.transition.advance(io.DeltaTime);
  // Training at its speed, never more than 8 ms of a frame, so the page stays above 30 fps.
  state.play_training(io.DeltaTime);
  // Play: advance one step every 1.6 s, stopping at the last.
  if (state.playing) {
    state.play_clock += io.DeltaTime;
    if (state.play_clock >= 1.6) {
      state.play_clock = 0.0;
      if (static_cast<int>(state.step) + 1 >= kStepCount)
        state.playing = false;
      else
        state.set_step(static_cast<int>(state.step) + 1);
    }
  }

  // The Decoder tab's Play: a word every 0.8 s while the tab is on screen, stopping at the last.
  // Its Train: the steps that fit in 10 ms of each frame, while the tab is on screen.
  if (state.view_tab != "decoder" || state.scenario.seq2seq.empty()) {
    state.decoder_playing = false;
    state.decoder_training.playing = false;
  }
  state.play_decoder(io.DeltaTime);
  state.play_decoder_training(10.0);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host_flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoBringToFrontOnFocus | (state.embed ? 0 : ImGuiWindowFlags_MenuBar);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 8));
  ImGui::Begin("Attention Playground", nullptr, host_flags);
  ImGui::PopStyleVar();
  if (!state.embed) draw_top_bar(state);

  const float width = ImGui::GetContentRegionAvail().x;
  const bool wide = width >= 1000.0f;
  // Phones and narrow frames: one column; the lesson and the controls become a tab.
  const bool narrow = width < 720.0f;
  const bool controls_tab =
      narrow && (state.visible(Panel::kControls) || state.visible(Panel::kLesson));
  // Between the two (an 800 × 600 course iframe, a wide screen zoomed to 150%) there is no
  // right-hand panel: the lesson stands at the top of the left one, above the controls.
  const bool lesson_left = !wide && !narrow && state.visible(Panel::kLesson);
  const bool show_controls = (state.visible(Panel::kControls) || lesson_left) && !narrow;
  const bool show_details = state.visible(Panel::kDetails) && wide;
  const float left_w = !show_controls ? 0.0f
                       : lesson_left  ? std::clamp(width * 0.32f, 250.0f, 330.0f)
                                      : std::clamp(width * 0.24f, 250.0f, 330.0f);
  const float right_w = show_details ? std::clamp(width * 0.25f, 280.0f, 380.0f) : 0.0f;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;

  if (show_controls) {
    ImGui::BeginChild("controls", ImVec2(left_w, 0), true);
    if (lesson_left) draw_lesson(state);
    if (state.visible(Panel::kControls)) draw_controls(state);
    ImGui::EndChild();
    ImGui::SameLine();
  }
  const float center_w =
      width - left_w - right_w - (show_controls ? spacing : 0) - (show_details ? spacing : 0);
  ImGui::BeginChild("center", ImVec2(center_w, 0), true);
  if (!state.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.70f, 0.08f, 0.05f, 1.0f));
    text_wrapped(std::string(T("This change cannot run yet:")) + " " + state.error);
    ImGui::PopStyleColor();
    ImGui::TextDisabled("%s", T("The numbers below are from the last scenario that ran."));
  } else if (state.overflow) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.70f, 0.08f, 0.05f, 1.0f));
    text_wrapped(overflow_text(*state.overflow, state.problem));
    ImGui::PopStyleColor();
  }
  // The loss plot made large (the Train section's "large loss plot"), above the views.
  if (state.large_loss_plot) draw_large_loss_plot(state);
  const bool tabs = state.visible(Panel::kHeads) || state.visible(Panel::kPositional) ||
                    state.visible(Panel::kPlane) || controls_tab;
  // Narrow: the tabs keep their names and scroll instead of shrinking to "Ste…".
  // The tab the "view" control asked for is selected once; the tab drawn is remembered.
  // The tab asked for, selected once (this frame).
  const std::string wanted_tab = std::move(state.view_tab_wanted);
  state.view_tab_wanted.clear();
  const auto tab = [&](const char* label, const char* id) {
    const bool wanted = wanted_tab == id;
    const bool open =
        ImGui::BeginTabItem(label, nullptr, wanted ? ImGuiTabItemFlags_SetSelected : 0);
    if (open) state.view_tab = id;
    return open;
  };
  if (tabs && ImGui::BeginTabBar("views", narrow ? ImGuiTabBarFlags_FittingPolicyScroll : 0)) {
    if (tab(T("Step by step"), "steps")) {
      draw_pipeline(state, heatmaps);
      ImGui::EndTabItem();
    }
    // Second on a phone, where the bar scrolls: the lesson is never behind its arrows.
    const std::string tab_name =
        std::string(state.visible(Panel::kControls) ? T("Lesson and controls") : T("Lesson")) +
        "###lesson_tab";
    if (controls_tab && ImGui::BeginTabItem(tab_name.c_str())) {
      ImGui::BeginChild("controls");
      if (state.visible(Panel::kLesson)) draw_lesson(state);
      if (state.visible(Panel::kControls)) draw_controls(state);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    // The views after the lesson's tab, as the registry lists them (views.h), each with its
    // panel (kViewPanels).
    for (const ViewSpec& v : view_registry()) {
      const ViewPanel draw = view_panel(v.id);
      if (draw && v.available(state) && tab(T(v.title), v.id)) {
        draw(state, heatmaps);
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
    // (A tab asked for while drawing this frame, as a click on the Layers tab's head does,
    // is selected by the next.)
  } else if (!tabs) {
    draw_pipeline(state, heatmaps);
  }
  {
    // What this panel needs: more when a matrix is squeezed by the height, less when space
    // is left below the content, plus whatever already scrolls.
    const float unused = std::max(0.0f, ImGui::GetWindowHeight() - ImGui::GetCursorPosY() -
                                            ImGui::GetStyle().WindowPadding.y);
    const float deficit = heatmaps.height_deficit();
    state.center_scroll_max = ImGui::GetScrollMaxY();
    state.preferred_height =
        vp->WorkSize.y + state.center_scroll_max + (deficit > 1.0f ? deficit : -unused);
  }
  ImGui::EndChild();

  if (show_details) {
    ImGui::SameLine();
    ImGui::BeginChild("details", ImVec2(right_w, 0), true);
    if (state.visible(Panel::kLesson)) draw_lesson(state);
    draw_details(state);
    ImGui::EndChild();
  } else if (state.hover && state.visible(Panel::kDetails)) {
    // Narrow screens: the arithmetic follows the mouse instead, beside the cell.
    static ImVec2 tip_size(0.0f, 0.0f);
    place_tooltip_beside(state.hover_cell, tip_size);
    ImGui::BeginTooltip();
    // 26 em, or what the screen holds beside the tooltip's padding (a phone's 390 px).
    const ImGuiStyle& st = ImGui::GetStyle();
    const float room =
        vp->WorkSize.x - 2.0f * (st.WindowPadding.x + st.DisplaySafeAreaPadding.x) - 8.0f;
    ImGui::PushTextWrapPos(
        std::max(ImGui::GetFontSize() * 10.0f, std::min(ImGui::GetFontSize() * 26.0f, room)));
    draw_details(state);
    ImGui::PopTextWrapPos();
    tip_size = ImGui::GetWindowSize();
    const ImVec2 tip_pos = ImGui::GetWindowPos();
    state.tooltip_rect[0] = tip_pos.x;
    state.tooltip_rect[1] = tip_pos.y;
    state.tooltip_rect[2] = tip_pos.x + tip_size.x;
    state.tooltip_rect[3] = tip_pos.y + tip_size.y;
    ImGui::EndTooltip();
  }

  // A confirmation at the bottom of the window for a few seconds.
  if (!state.toast.empty()) {
    if (state.toast_seconds <= 0.0) state.toast_seconds = 3.0;
    state.toast_seconds -= io.DeltaTime;
    const ImVec2 size = ImGui::CalcTextSize(state.toast.c_str());
    const ImVec2 pad(14, 8);
    const ImVec2 p0(vp->WorkPos.x + (vp->WorkSize.x - size.x) * 0.5f - pad.x,
                    vp->WorkPos.y + vp->WorkSize.y - size.y - 2 * pad.y - 24);
    const ImVec2 p1(p0.x + size.x + 2 * pad.x, p0.y + size.y + 2 * pad.y);
    ImDrawList* fg = ImGui::GetForegroundDrawList();
    fg->AddRectFilled(p0, p1, IM_COL32(31, 36, 48, 235), 6.0f);
    fg->AddText(ImVec2(p0.x + pad.x, p0.y + pad.y), IM_COL32(255, 255, 255, 255),
                state.toast.c_str());
    if (state.toast_seconds <= 0.0) {
      state.toast.clear();
      state.toast_seconds = 0.0;
    }
  }

  if (!state.notice.empty()) {
    // The title in the UI's language; "###notice" keeps the popup's id the same in both.
    const std::string title = std::string(T("Notice")) + "###notice";
    ImGui::OpenPopup(title.c_str());
    // Centred every frame: the box resizes to its text after it first appears.
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    if (ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
      // 30 em, or what a narrow screen (a phone) has room for beside the popup's padding.
      const float room = ImGui::GetMainViewport()->WorkSize.x - ImGui::GetFontSize() * 3.0f;
      text_wrapped(
          state.notice, false,
          std::max(ImGui::GetFontSize() * 8.0f, std::min(ImGui::GetFontSize() * 30.0f, room)));
      if (ImGui::Button(T("OK"))) {
        state.notice.clear();
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }
  ImGui::End();
  state.note_view_choice();
}

}  // namespace ui
