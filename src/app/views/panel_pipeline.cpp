// The step-by-step pipeline: a step bar, the formula and explanation of the current step,
// and its matrices as heatmaps (inputs → projections → scores → scaled → masked → weights
// → weighted values → output). The views of the steps are in panel_pipeline_inputs.cpp and
// panel_pipeline_scores.cpp.
//
// [SECTION] Helpers
// [SECTION] Step bar
// [SECTION] The panel
#include <algorithm>
#include <cstdio>

#include "app/model/controls.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/views/panel_pipeline_internal.h"
#include "app/widgets/item_log.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace detail {

const CellRef* hovered_on(const AppState& s, std::initializer_list<MatrixKind> kinds) {
  if (!s.prev_hover) return nullptr;
  for (MatrixKind k : kinds)
    if (s.prev_hover->kind == k && s.prev_hover->head == s.head && s.prev_hover->batch == s.batch)
      return &*s.prev_hover;
  return nullptr;
}

HeatmapResult block(Ctx& c, MatrixKind kind, MatrixDraw d) {
  d.transpose = c.s.transpose;
  return draw_matrix(c.s, c.h, kind, c.head, c.b, d);
}

void operator_sign(const char* sign, float height, float gap) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x + gap * 0.5f;
  ImGui::SameLine(0, spacing);
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(1, height * 0.45f));
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(sign);
  if (g_fonts.title) ImGui::PopFont();
  ImGui::EndGroup();
  ImGui::SameLine(0, spacing);
}

int columns_and_labels(Ctx& c, MatrixKind k, float total, float* label_w) {
  const attn::Matrix* m = matrix_of(c.s, k, c.head, c.b);
  // As drawn: transposed, its columns are the matrix's rows (AppState::transpose).
  const bool t = c.s.transpose;
  const int rows = m ? static_cast<int>(t ? m->cols() : m->rows()) : 0;
  const int cols = m ? static_cast<int>(t ? m->rows() : m->cols()) : 1;
  const MatrixInfo& info = matrix_info(k);
  const std::vector<std::string> labels = axis_labels(c.s, t ? info.cols : info.rows, c.b, rows);
  *label_w = heatmap_row_label_width(&labels, "", total);
  return std::max(cols, 1);
}

std::vector<float> widths_in_row(Ctx& c, float total, std::initializer_list<MatrixKind> kinds,
                                 float* cell_out) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  std::vector<float> label_w;
  std::vector<int> cols;
  float fixed = 0.0f;
  int all_cols = 0;
  // Row labels measured against each matrix's share of the row, as the heatmap measures them
  // against its own width (measured against the whole row, long labels took room the heatmap
  // then cut them to, and the cells got less).
  const float share = total / std::max<size_t>(kinds.size(), 1);
  for (MatrixKind k : kinds) {
    label_w.push_back(0.0f);
    cols.push_back(columns_and_labels(c, k, share, &label_w.back()));
    fixed += label_w.back() + spacing;
    all_cols += cols.back();
  }
  const float cell = std::max(1.0f, (total - fixed) / std::max(all_cols, 1));
  if (cell_out) *cell_out = cell;
  std::vector<float> out;
  for (size_t i = 0; i < cols.size(); ++i) out.push_back(label_w[i] + spacing + cols[i] * cell);
  return out;
}

float number_cell() {
  return ImGui::CalcTextSize(
             "\xe2\x88\x92"
             "0.00")
                 .x *
             0.75f +
         8.0f;
}

void stacked_sign(const char* sign) {
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(sign);
  if (g_fonts.title) ImGui::PopFont();
}

float stacked_rows(Eigen::Index rows) {
  return static_cast<float>(std::min<Eigen::Index>(16, rows));
}
float stacked_rows(Ctx& c, MatrixKind k) {
  const attn::Matrix* m = matrix_of(c.s, k, c.head, c.b);
  return stacked_rows(m ? (c.s.transpose ? m->cols() : m->rows()) : 1);
}

}  // namespace detail

namespace {

// The lesson's note on this step, in a tinted box with an accent bar on its left.
void lesson_note(const AppState& s, const std::string& text) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pad = 8.0f;
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Indent(pad + 4.0f);
  ImGui::Dummy(ImVec2(0, pad * 0.25f));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.11f, 0.31f, 0.66f, 1.0f));
  ImGui::TextUnformatted(T("In this lesson"));
  ImGui::PopStyleColor();
  text_wrapped(text, false, ImGui::GetContentRegionAvail().x - pad);
  item_text("lesson.note", text);
  if (s.edited)
    text_wrapped(T("(written for the lesson as it was loaded: Reset to the preset to see its "
                   "numbers again)"),
                 true, ImGui::GetContentRegionAvail().x - pad);
  ImGui::Dummy(ImVec2(0, pad * 0.25f));
  ImGui::Unindent(pad + 4.0f);
  const ImVec2 p1(p0.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y);
  dl->ChannelsSetCurrent(0);
  dl->AddRectFilled(p0, p1, IM_COL32(232, 240, 252, 255), 4.0f);
  dl->AddRectFilled(p0, ImVec2(p0.x + 4.0f, p1.y), IM_COL32(46, 99, 201, 255), 2.0f);
  dl->ChannelsMerge();
  ImGui::Spacing();
}

//-----------------------------------------------------------------------------
// [SECTION] Step bar
//-----------------------------------------------------------------------------

void export_menu(AppState& s);

void step_bar(AppState& s) {
  const float avail = ImGui::GetContentRegionAvail().x;
  float full = 0.0f;
  for (int k = 0; k < kStepCount; ++k)
    full += ImGui::CalcTextSize(T(step_name(static_cast<Step>(k)))).x + 40.0f;
  const bool compact = full + 260.0f > avail;
  for (int k = 0; k < kStepCount; ++k) {
    const Step st = static_cast<Step>(k);
    if (k) {
      ImGui::SameLine(0, 2);
      ImGui::TextDisabled("\xe2\x80\xba");
      ImGui::SameLine(0, 2);
    }
    const std::string label = compact ? printf_text("%d##step%d", k + 1, k)
                                      : printf_text("%d  %s##step%d", k + 1, T(step_name(st)), k);
    const bool current = s.step == st;
    if (current) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.16f, 0.36f, 0.78f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.20f, 0.42f, 0.85f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    }
    if (ImGui::Button(label.c_str())) {
      s.set_step(k);
      s.playing = false;
    }
    if (current) ImGui::PopStyleColor(3);
    if (compact && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(step_name(st)));
  }
  // ◀ ▶ Play Export follow on the same line when they fit, else on the next.
  const float rest = 2.0f * ImGui::GetFrameHeight() + ImGui::CalcTextSize(T("Pause")).x +
                     ImGui::CalcTextSize(T("Export")).x + 4.0f * ImGui::GetStyle().FramePadding.x +
                     56.0f;
  if (ImGui::GetContentRegionMax().x - ImGui::GetItemRectMax().x + ImGui::GetWindowPos().x >
      rest + 16.0f)
    ImGui::SameLine(0, 16);
  ImGui::BeginDisabled(s.step == Step::kInputs);
  if (ImGui::ArrowButton("prev", ImGuiDir_Left)) s.set_step(static_cast<int>(s.step) - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(static_cast<int>(s.step) == kStepCount - 1);
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) s.set_step(static_cast<int>(s.step) + 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? T("Pause") : T("Play"))) {
    if (!s.playing && static_cast<int>(s.step) == kStepCount - 1) s.set_step(0);
    s.playing = !s.playing;
    s.play_clock = 0.0;
  }
  if (!s.control_hidden("export")) {
    ImGui::SameLine(0, 16);
    if (ImGui::Button(T("Export"))) ImGui::OpenPopup("export all");
    if (ImGui::BeginPopup("export all")) {
      export_menu(s);
      ImGui::EndPopup();
    }
  }
  // Keyboard: ← → to step, space to play, when no text field has focus. One press is one step,
  // without Dear ImGui's repeat: it counts a key's time down in frames' time, so a quick press
  // still down in a frame that came more than its 0.275 s repeat delay after the last (a slow
  // machine, a software renderer) counted twice and stepped two steps.
  if (!ImGui::GetIO().WantTextInput &&
      ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
    constexpr bool kRepeat = false;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow), kRepeat))
      s.set_step(static_cast<int>(s.step) - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow), kRepeat))
      s.set_step(static_cast<int>(s.step) + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), kRepeat)) s.playing = !s.playing;
  }
}

// Whole-scenario exports: the trace, the scenario, code that recomputes it, the link.

void export_menu(AppState& s) {
  for (const ControlOption& o : find_control("export")->options(s)) {
    if (o.value == "course_package") ImGui::Separator();  // a file for a course platform
    if (ImGui::MenuItem(o.label.c_str())) control_apply(s, "export", o.value);
  }
  deliver_exports(s);  // now: a copy to the clipboard is allowed while the click is fresh
  ImGui::Separator();
  ImGui::TextDisabled("%s", T("Right-click any matrix to export it alone."));
}

// The width of a selector on the title line: its label and n radio buttons (more than 6: the
// arrows and "3 of 32").
float selector_width(const char* label, int n) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float radio = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x +
                      ImGui::CalcTextSize("00").x + st.ItemSpacing.x;
  const float arrows = 2.0f * (ImGui::GetFrameHeight() + st.ItemSpacing.x) +
                       ImGui::CalcTextSize(T("%d of %d")).x + ImGui::CalcTextSize("0000").x;
  return ImGui::CalcTextSize(label).x + st.ItemSpacing.x + (n > 6 ? arrows : n * radio);
}

// Beside what the title line holds (24 px apart) when the selector fits there, else below.
void beside_if_fits(float width) {
  ImGui::SameLine(0, 24);
  const float room = ImGui::GetContentRegionAvail().x + ImGui::GetStyle().WindowPadding.x * 0.5f;
  if (room < width) ImGui::NewLine();
}

// A stack's layer: the steps show one layer at a time (AppState::layer_view).
void layer_selector(AppState& s) {
  if (!s.layered()) return;
  beside_if_fits(selector_width(T("Layer"), s.layer_count()));
  ImGui::TextUnformatted(T("Layer"));
  for (int l = 0; l < s.layer_count(); ++l) {
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "%d##layer", l + 1);
    if (ImGui::RadioButton(label, s.layer == l)) s.set_layer(l);
  }
}

void head_selector(AppState& s) {
  if (s.scenario.heads <= 1) return;
  beside_if_fits(selector_width(T("Head"), s.scenario.heads));
  ImGui::TextUnformatted(T("Head"));
  for (int h = 0; h < s.scenario.heads; ++h) {
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "%d##head", h + 1);
    if (ImGui::RadioButton(label, s.head == h)) s.set_head(h);
  }
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

using detail::Ctx;
using detail::view_inputs;
using detail::view_output;
using detail::view_projections;
using detail::view_scores_like;
using detail::view_weighted_values;

void draw_pipeline(AppState& s, Heatmaps& h) {
  if (s.trace.heads.empty()) {
    ImGui::TextUnformatted(T("No scenario yet."));
    return;
  }
  // A short panel (an 800 × 600 iframe, a phone held sideways) keeps its height for the
  // step's matrix: the step's explanation moves into a "(?)" beside its formula, and the
  // mask-by-click switch beside the title. The lesson's note stays.
  const bool compact = ImGui::GetContentRegionAvail().y < 560.0f;
  step_bar(s);
  ImGui::Separator();
  const int head = std::clamp(s.head, 0, static_cast<int>(s.trace.heads.size()) - 1);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  Ctx c{s, h, head, b};

  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::Text("%d. %s", static_cast<int>(s.step) + 1, T(step_name(s.step)));
  if (g_fonts.title) ImGui::PopFont();
  layer_selector(s);
  if (s.step != Step::kInputs && s.step != Step::kOutput) head_selector(s);
  if (s.scenario.batch() > 1) {
    beside_if_fits(selector_width(T("Batch item"), s.scenario.batch()));
    batch_selector(s);
  }
  const bool mask_switch =
      s.step == Step::kMasked || s.step == Step::kWeights || s.step == Step::kScaled;
  if (compact && mask_switch) {
    // Beside the title when it fits (a batch selector may have taken the line), else below.
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                      ImGui::CalcTextSize(T("Click a cell to mask it")).x + 24.0f);
    ImGui::Checkbox(T("Click a cell to mask it"), &s.mask_by_click);
  }
  // The formula on a line of its own; in a short panel the "(?)" after its last line, so its
  // lines leave room for it.
  const float marker_w =
      compact ? ImGui::CalcTextSize("(?)").x + 2.0f * ImGui::GetStyle().ItemSpacing.x : 0.0f;
  text_wrapped_formula(step_formula(s.step, s.problem, s.transpose),
                       std::max(40.0f, ImGui::GetContentRegionAvail().x - marker_w), compact);
  if (compact) {
    help_marker(step_explanation(s.step, s.problem, s.transpose));
  } else {
    text_wrapped(T(step_explanation(s.step, s.problem, s.transpose)));
  }
  draw_step_words(s);
  // The note explains the step's numbers, so it waits, like them, for the question's answer.
  if (!s.question_waiting())
    for (const scenario::TourStop& stop : s.scenario.tour)
      if (stop.step == static_cast<int>(s.step) && s.note_shown(stop))
        lesson_note(s, lesson_text_shown(s, stop.text.in(language_code())));
  draw_questions(s);  // the lesson's questions on this step, before the matrices answer them
  if (!compact && mask_switch) {
    ImGui::Checkbox(T("Click a cell to mask it"), &s.mask_by_click);
    help_marker(
        "With this on, clicking a cell of the matrix adds it to the masked cells, or removes it.");
  }
  ImGui::Spacing();

  // The matrices keep at least 60% of the panel's height, so that a long note and a question
  // above them push them down (the panel scrolls) rather than shrink them past reading.
  const ImVec2 avail(
      ImGui::GetContentRegionAvail().x,
      std::max({160.0f, ImGui::GetContentRegionAvail().y - 4.0f, 0.6f * ImGui::GetWindowHeight()}));
  switch (s.step) {
    case Step::kInputs:
      view_inputs(c, avail);
      break;
    case Step::kProjections:
      view_projections(c, avail);
      break;
    case Step::kScores:
    case Step::kScaled:
    case Step::kMasked:
    case Step::kWeights:
      view_scores_like(c, avail, step_matrix(s.step));
      break;
    case Step::kWeightedValues:
      view_weighted_values(c, avail);
      break;
    case Step::kOutput:
      view_output(c, avail);
      break;
  }
}

}  // namespace ui
