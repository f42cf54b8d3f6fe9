// The controls column: preset, tokens and sizes, scoring and temperature, masks, heads and
// weights, positional encoding, hard attention and dropout. Every change recomputes once.
//
// Each control has an id (the strings passed to `shown`) that an embedding page may hide.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/controls.h"
#include "app/model/edits.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"
#include "misc/cpp/imgui_stdlib.h"

namespace ui {

namespace {

bool shown(const AppState& s, const char* id) {
  return !s.control_hidden(id);
}

// A scenario (.json) or NumPy arrays (.npy, .npz) from the learner's disk: the page opens its
// file picker on the "open_file" event (and takes a file dropped on it anyway).
void open_file_button(AppState& s) {
  if (!control_shown(s, "open")) return;
  control_button(s, "open", nullptr, true);
  help_marker(find_control("open")->help);
}

void section_scenario(AppState& s) {
  if (!shown(s, "preset") || s.presets.empty()) {
    open_file_button(s);
    return;
  }
  // A lesson the learner has changed says so, and keeps its Reset.
  const scenario::TaskInfo* task = scenario::find_task(s.training.task);
  const std::string current =
      s.preset < 0 && task && !s.edited ? s.scenario.title.in(language_code())  // "Toy task: sort"
      : s.preset < 0
          ? T("(your own scenario)")
          : (s.edited ? T("(edited) ") : "") + s.presets[s.preset].title(language_code());
  // Lessons this learner has finished are marked (their progress: localStorage, the link).
  control_combo(s, "preset", current.c_str());
  if (s.preset >= 0 && small_button(T("Reset to the preset"))) {
    s.load_preset(s.preset);
  }
  if (s.preset >= 0 && s.in_page && shown(s, "open")) {
    same_line_if_fits(button_width(T("Open a file\xe2\x80\xa6")));
  }
  open_file_button(s);
}

void section_tokens(AppState& s) {
  scenario::Scenario& sc = s.scenario;
  if (s.layered()) {  // a layer's rows are the stream the layers below wrote
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(T("A stack of %d layers: its tokens, sizes and inputs are set in its "
                          "JSON."),
                        s.layer_count());
    ImGui::PopTextWrapPos();
    return;
  }
  if (!sc.image.empty()) {  // the keys are the picture's patches
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(T("A picture of %d \xc3\x97 %d pixels in %d patches: the keys are its "
                          "patches, set in its JSON."),
                        sc.image.width, sc.image.height, sc.image.patches());
    ImGui::PopTextWrapPos();
    return;
  }
  if (shown(s, "sizes")) {
    int n_q = sc.n_queries(), n_k = sc.n_keys(), d = attn::batch_cols(sc.queries);
    ImGui::SetNextItemWidth(120);
    if (ImGui::InputInt(sc.self_attention ? T("tokens") : T("queries"), &n_q, 1, 16)) {
      resize_tokens(&sc, std::clamp(n_q, 1, 2048), n_k);
      s.changed();
    }
    if (!sc.self_attention) {
      ImGui::SetNextItemWidth(120);
      if (ImGui::InputInt(T("keys"), &n_k, 1, 16)) {
        resize_tokens(&sc, n_q, std::clamp(n_k, 1, 2048));
        s.changed();
      }
    }
    ImGui::SetNextItemWidth(120);
    if (ImGui::InputInt(T("features d"), &d, 1, 8)) {
      resize_features(&sc, std::clamp(d, 1, 256));
      s.changed();
    }
    help_marker(
        "How many numbers describe each token. Queries and keys must have the same size "
        "for dot-product scoring unless learned projections map them to d_model.");
  }
  if (shown(s, "tokens") && sc.n_queries() <= 24) {
    // A finger's height on a touch screen (an unframed node is a line of text tall).
    if (ImGui::TreeNodeEx(T("Token names"),
                          touch_targets() ? ImGuiTreeNodeFlags_FramePadding : 0)) {
      if (sc.query_tokens.empty()) sc.query_tokens = {query_labels(sc, 0)};
      if (!sc.self_attention && sc.key_tokens.empty()) sc.key_tokens = {key_labels(sc, 0)};
      auto edit_list = [&](std::vector<std::string>& list, const char* id) {
        ImGui::PushID(id);
        for (size_t i = 0; i < list.size(); ++i) {
          ImGui::PushID(static_cast<int>(i));
          ImGui::SetNextItemWidth(-1);
          std::string before = list[i];
          if (ImGui::InputText("##t", &list[i]) && list[i].size() > scenario::kMaxTokenBytes)
            list[i] = before;
          if (ImGui::IsItemDeactivatedAfterEdit()) s.changed();
          ImGui::PopID();
        }
        ImGui::PopID();
      };
      // The names on screen: the lesson's Chinese ones when the UI is in Chinese.
      const bool zh = language() == Lang::kZh;
      auto& q = zh && !sc.query_tokens_zh.empty() ? sc.query_tokens_zh : sc.query_tokens;
      auto& k = zh && !sc.key_tokens_zh.empty() ? sc.key_tokens_zh : sc.key_tokens;
      ImGui::TextDisabled("%s", sc.self_attention ? T("tokens") : T("queries"));
      edit_list(q[std::min<int>(s.batch, static_cast<int>(q.size()) - 1)], "q");
      if (!sc.self_attention) {
        ImGui::TextDisabled("%s", T("keys"));
        edit_list(k[std::min<int>(s.batch, static_cast<int>(k.size()) - 1)], "k");
      }
      ImGui::TreePop();
    }
  }
  if (shown(s, "randomize")) {
    int& seed = s.controls.randomize_seed;
    if (ImGui::Button(T("Randomize"))) {
      ++seed;
      randomize(&sc, static_cast<uint64_t>(seed));
      s.changed();
    }
    help_marker("New random inputs in [-1, 1] and new random weights.");
    same_line_if_fits(button_width(T("Shuffle tokens")));
    if (ImGui::Button(T("Shuffle tokens"))) {
      shuffle_tokens(&sc, static_cast<uint64_t>(++seed));
      s.changed();
    }
    help_marker(
        "Reorders the tokens. Without positional encoding or masks, self-attention gives "
        "every token the same output as before, only in the new order. A causal mask, a "
        "window or valid lengths belong to positions, so with one the outputs change: the "
        "mask itself tells attention about order.");
  }
}

void section_scoring(AppState& s) {
  scenario::Scenario& sc = s.scenario;
  control_combo(s, "scoring");
  if (control_shown(s, "temperature")) {
    // The value on the line above the slider, where its handle cannot cover it.
    const Control& t = *find_control("temperature");
    ImGui::Text("%s T = %.2f", T(t.label), static_cast<double>(sc.temperature));
    help_marker(t.help);
    control_slider(s, "temperature");
  }
  if (control_shown(s, "sigma")) {
    const Control& c = *find_control("sigma");
    ImGui::Text("%s = %.2f", T(c.label), static_cast<double>(sc.sigma));
    help_marker(c.help);
    control_slider(s, "sigma");
  }
}

void section_masks(AppState& s) {
  scenario::Scenario& sc = s.scenario;
  if (control_shown(s, "valid_lens")) {
    control_checkbox(s, "valid_lens");
    const bool on = sc.valid_lens_form != scenario::ValidLensForm::kNone;
    if (on) {
      bool per_query = sc.valid_lens_form == scenario::ValidLensForm::kPerQuery;
      ImGui::Indent();
      if (ImGui::Checkbox(T("one length per query"), &per_query)) {
        set_valid_lens_per_query(&sc, per_query);
        s.changed();
      }
      help_marker(
          "Each query row gets its own valid length (valid lengths as a 2-D array, one per batch "
          "item and query), instead of one length for the whole sequence.");
      ImGui::Unindent();
    }
    if (on && sc.valid_lens_form != scenario::ValidLensForm::kPerQuery) {
      for (int b = 0; b < sc.batch(); ++b) {
        int len = sc.valid_lens_form == scenario::ValidLensForm::kAll ? sc.valid_lens[0][0]
                                                                      : sc.valid_lens[b][0];
        ImGui::PushID(b);
        ImGui::SetNextItemWidth(-90);
        const std::string label = printf_text("%s %d", T("item"), b + 1);
        if (ImGui::SliderInt(label.c_str(), &len, 0, sc.n_keys())) {
          set_valid_len(&sc, b, len);
          s.changed();
        }
        ImGui::PopID();
      }
    } else if (on) {
      // The batch item on screen: a slider per query, named by its token; long sequences
      // show their first queries (the rest stay as the scenario JSON has them).
      const int b = std::clamp(s.batch, 0, sc.batch() - 1);
      if (sc.batch() > 1) ImGui::TextDisabled("%s %d", T("Batch item"), b + 1);
      const std::vector<std::string> q = query_labels(sc, b);
      constexpr int kShown = 12;
      const int n = std::min<int>(kShown, static_cast<int>(sc.valid_lens[b].size()));
      for (int i = 0; i < n; ++i) {
        int len = sc.valid_lens[b][i];
        ImGui::PushID(1000 + i);
        ImGui::SetNextItemWidth(-90);
        const std::string label =
            printf_text("%d %.60s", i + 1, i < static_cast<int>(q.size()) ? q[i].c_str() : "");
        if (ImGui::SliderInt(label.c_str(), &len, 0, sc.n_keys())) {
          set_query_valid_len(&sc, b, i, len);
          s.changed();
        }
        ImGui::PopID();
      }
      if (static_cast<int>(sc.valid_lens[b].size()) > kShown) {
        const std::string more = printf_text(T("and %d more queries (in the scenario JSON)"),
                                             static_cast<int>(sc.valid_lens[b].size()) - kShown);
        text_wrapped(more, true);
      }
    }
  }
  control_checkbox(s, "causal");
  if (control_shown(s, "window")) {
    control_checkbox(s, "window");
    if (sc.window >= 0) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(-1);
      if (ImGui::SliderInt("##window", &sc.window, 0, std::max(1, sc.n_keys()))) s.changed();
    }
  }
  if (shown(s, "masked_cells") && !sc.masked_cells.empty()) {
    ImGui::Text("%s: %d", T("cells masked by hand"), static_cast<int>(sc.masked_cells.size()));
    ImGui::SameLine();
    if (small_button(T("clear"))) {
      sc.masked_cells.clear();
      s.changed();
    }
  }
}

void section_heads(AppState& s) {
  scenario::Scenario& sc = s.scenario;
  const bool additive = sc.scoring == attn::Scoring::kAdditive;
  if (shown(s, "projections")) {
    control_checkbox(s, "projections", true);  // greyed out for additive scoring
    if (sc.has_init) {
      int dm = sc.init_d_model;
      ImGui::SetNextItemWidth(120);
      // Additive scoring's W_q and W_k map into the scoring network's hidden layer.
      if (ImGui::InputInt(additive ? T("hidden size##dm") : "d_model##dm", &dm, 1, 8)) {
        set_d_model(&sc, std::clamp(dm, 1, 256));
        s.changed();
      }
      if (additive)
        help_marker(
            "The scoring network's hidden size: W_q and W_k map queries and keys to this many "
            "numbers, and w_v reads one score out of them.");
      int seed = static_cast<int>(sc.init_seed);
      ImGui::SetNextItemWidth(120);
      if (shown(s, "seed") && ImGui::InputInt(T("seed"), &seed)) {
        sc.init_seed = static_cast<uint64_t>(std::max(0, seed));
        s.changed();
      }
    }
  }
  if (control_shown(s, "heads")) {
    const Control& c = *find_control("heads");
    ImGui::TextUnformatted(T(c.label));
    control_radios(s, "heads", "##heads");
    help_marker(c.help);
  }
}

// -1e6 or -∞ for masked scores: what a fully masked row then gets.
void mask_value_choice(AppState& s) {
  if (control_shown(s, "mask_value")) {
    const Control& c = *find_control("mask_value");
    ImGui::TextUnformatted(T(c.label));
    // The two choices follow on the same line when they fit (by their width as drawn last
    // time), else on the next.
    float& choices_w = s.controls.mask_choices_w;
    same_line_if_fits(choices_w);
    const float choices_x = ImGui::GetCursorScreenPos().x;
    const nlohmann::json value = c.read(s);
    bool first = true;
    for (const ControlOption& o : c.options(s)) {
      if (!first) ImGui::SameLine();
      first = false;
      if (ImGui::RadioButton(o.label.c_str(), o.value == value) && o.value != value)
        control_apply(s, "mask_value", o.value);
    }
    choices_w = ImGui::GetItemRectMax().x - choices_x;  // the (?) wraps by itself
    help_marker(c.help);
  }
}

void section_extras(AppState& s) {
  scenario::Scenario& sc = s.scenario;
  mask_value_choice(s);
  if (control_shown(s, "positional_encoding")) {
    control_checkbox(s, "positional_encoding");
    const std::string help =
        printf_text(T("Adds sin/cos patterns of the position to every input row (base %g)."),
                    static_cast<double>(sc.pe_base));
    help_marker(help.c_str());
  }
  control_checkbox(s, "hard");
  if (sc.hard) {
    ImGui::Indent();
    control_checkbox(s, "hard_straight_through");
    if (control_shown(s, "hard_gumbel")) {
      ImGui::Indent();
      control_checkbox(s, "hard_gumbel");
      if (control_shown(s, "gumbel_tau")) {
        ImGui::Text("%s = %.2f", T("Gumbel \xcf\x84"), static_cast<double>(sc.gumbel_tau));
        control_slider(s, "gumbel_tau");
        control_checkbox(s, "gumbel_soft");
      }
      ImGui::Unindent();
    }
    ImGui::Unindent();
  }
  if (shown(s, "scale")) {
    ImGui::Checkbox(T("scale each matrix alone"), &s.scale_alone);
    help_marker(
        "Matrices that are compared share one colour scale: S, S' and M; X, Q, K, V and O. "
        "With this on, each matrix is coloured by its own values.");
  }
  control_checkbox(s, "numbers");
  control_checkbox(s, "transpose");
  control_checkbox(s, "animate");
  if (shown(s, "dropout")) {
    if (ImGui::Checkbox(T("dropout (train mode)"), &sc.has_dropout)) {
      if (sc.has_dropout && sc.dropout_p == 0.0f) sc.dropout_p = 0.1f;
      s.changed();
    }
    if (sc.has_dropout) {
      ImGui::SetNextItemWidth(-60);
      if (ImGui::SliderFloat("p", &sc.dropout_p, 0.0f, 0.9f, "%.2f")) s.changed();
      int seed = static_cast<int>(sc.dropout_seed);
      ImGui::SetNextItemWidth(120);
      if (ImGui::InputInt(T("dropout seed"), &seed)) {
        sc.dropout_seed = static_cast<uint64_t>(std::max(0, seed));
        s.changed();
      }
    }
  }
}

// Train: gradient steps on the weights toward the scenario's target, or a toy task's.
// Kernel regression as the textbook draws it: the noisy points (x, y) as dots, and the
// prediction at each point (attention pooling of the others' y) as a line.
void draw_regression(AppState& s) {
  const scenario::Scenario& sc = s.scenario;
  if (s.trace.output.empty() || sc.keys.empty() || sc.values.empty() || sc.queries.empty()) return;
  const attn::Matrix& x = sc.keys[0];
  const attn::Matrix& y = sc.values[0];
  const attn::Matrix& xq = sc.queries[0];
  const attn::Matrix& pred = s.trace.output[0];
  if (x.cols() < 1 || y.cols() < 1 || pred.cols() < 1 || pred.rows() != xq.rows()) return;
  float x0 = x.col(0).minCoeff(), x1 = x.col(0).maxCoeff();
  float y0 = std::min(y.col(0).minCoeff(), pred.col(0).minCoeff());
  float y1 = std::max(y.col(0).maxCoeff(), pred.col(0).maxCoeff());
  if (!(x1 > x0) || !(y1 > y0) || !std::isfinite(y0) || !std::isfinite(y1)) return;
  const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetFontSize() * 7;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRect(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(200, 205, 215, 255));
  const float pad = 4.0f;
  const auto at = [&](float vx, float vy) {
    return ImVec2(p0.x + pad + (vx - x0) / (x1 - x0) * (w - 2 * pad),
                  p0.y + h - pad - (vy - y0) / (y1 - y0) * (h - 2 * pad));
  };
  for (int i = 0; i < x.rows(); ++i)
    dl->AddCircleFilled(at(x(i, 0), y(i, 0)), 2.5f, IM_COL32(120, 125, 135, 255));
  std::vector<ImVec2> line;
  for (int i = 0; i < xq.rows(); ++i) line.push_back(at(xq(i, 0), pred(i, 0)));
  std::sort(line.begin(), line.end(), [](const ImVec2& a, const ImVec2& b) { return a.x < b.x; });
  dl->AddPolyline(line.data(), static_cast<int>(line.size()), IM_COL32(196, 110, 20, 255), 0, 2.0f);
  text_wrapped(T("Dots: the noisy points. Line: each point predicted from the others. A narrow "
                 "kernel follows the noise, a wide one smooths it away."),
               true);
}

// The last spike of the loss among `losses` (a step whose loss is 10 times the lowest before
// it, after a fall), or -1.
int last_spike(const std::vector<float>& losses, size_t first) {
  int spike = -1;
  float lowest = FLT_MAX;
  for (size_t k = first; k < losses.size(); ++k) {
    if (k > first && losses[k] > 10.0f * lowest && losses[k] > losses[k - 1] * 3.0f)
      spike = static_cast<int>(k);
    lowest = std::min(lowest, losses[k]);
  }
  return spike;
}

}  // namespace

void loss_chart(const std::vector<float>& losses, float height_lines, bool explain_spikes,
                int mark_step, const char* mark_label) {
  const size_t first = losses.size() > 2000 ? losses.size() - 2000 : 0;
  float lo = FLT_MAX, hi = -FLT_MAX;
  std::vector<float> logs;
  for (size_t k = first; k < losses.size(); ++k) {
    logs.push_back(std::log10(std::max(losses[k], 1e-12f)));
    lo = std::min(lo, logs.back());
    hi = std::max(hi, logs.back());
  }
  const int top = static_cast<int>(std::ceil(hi)), bottom = static_cast<int>(std::floor(lo));
  const int decades = std::max(1, top - bottom);
  const int every = (decades + 3) / 4;  // at most about 5 labelled lines
  const float line_h = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("1e-10").x + 6.0f;
  const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetFontSize() * height_lines;
  ImGui::TextDisabled("%s", T("loss, on a log scale"));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 g0(p0.x + label_w, p0.y + line_h * 0.5f), g1(p0.x + w - 4.0f, g0.y + h);
  ImGui::Dummy(ImVec2(w, h + line_h * 2.0f));
  item_text("loss_plot", T("loss, on a log scale"));  // where it is drawn, for the checks
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddRectFilled(g0, g1, IM_COL32(255, 255, 255, 255));
  const float span = static_cast<float>(top == bottom ? 1 : top - bottom);
  const auto y_of = [&](float log_loss) {
    return g1.y - (log_loss - bottom) / span * (g1.y - g0.y);
  };
  for (int d = bottom; d <= std::max(top, bottom + 1); ++d) {
    if ((d - bottom) % every) continue;
    const float y = y_of(static_cast<float>(d));
    dl->AddLine(ImVec2(g0.x, y), ImVec2(g1.x, y), IM_COL32(226, 229, 235, 255));
    char label[16];
    std::snprintf(label, sizeof label, "%g", std::pow(10.0, d));
    const ImVec2 ts = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2(g0.x - ts.x - 4.0f, y - ts.y * 0.5f), dim, label);
  }
  dl->AddRect(g0, g1, IM_COL32(200, 205, 214, 255));
  std::vector<ImVec2> line;
  const float dx = logs.size() > 1 ? (g1.x - g0.x) / static_cast<float>(logs.size() - 1) : 0.0f;
  for (size_t k = 0; k < logs.size(); ++k) line.push_back(ImVec2(g0.x + dx * k, y_of(logs[k])));
  if (line.size() == 1) line.push_back(ImVec2(g1.x, line[0].y));
  dl->AddPolyline(line.data(), static_cast<int>(line.size()), IM_COL32(46, 99, 201, 255), 0, 2.0f);
  if (mark_step > static_cast<int>(first) && mark_step <= static_cast<int>(losses.size())) {
    const float x = g0.x + dx * static_cast<float>(mark_step - 1 - static_cast<int>(first));
    const ImU32 mark = IM_COL32(176, 58, 46, 255);  // 5.9:1 on white
    dl->AddLine(ImVec2(x, g0.y), ImVec2(x, g1.y), mark, 1.5f);
    if (mark_label) {
      const ImVec2 ts = ImGui::CalcTextSize(mark_label);
      // Beside the line, inside the plot: to its right unless that runs past the plot's end.
      const float tx = x + 4.0f + ts.x <= g1.x ? x + 4.0f : std::max(g0.x + 2.0f, x - 4.0f - ts.x);
      dl->AddRectFilled(ImVec2(tx - 1.0f, g0.y + 2.0f),
                        ImVec2(tx + ts.x + 1.0f, g0.y + 2.0f + ts.y), IM_COL32(255, 255, 255, 230));
      dl->AddText(ImVec2(tx, g0.y + 2.0f), mark, mark_label);
    }
  }
  // The steps: the first shown at the left, the last at the right, "step" between.
  char left[32], right[32];
  std::snprintf(left, sizeof left, "%d", static_cast<int>(first) + 1);
  std::snprintf(right, sizeof right, "%d", static_cast<int>(losses.size()));
  const float ly = g1.y + 2.0f;
  dl->AddText(ImVec2(g0.x, ly), dim, left);
  dl->AddText(ImVec2(g1.x - ImGui::CalcTextSize(right).x, ly), dim, right);
  const char* axis = T("step \xe2\x86\x92");
  const float axis_w = ImGui::CalcTextSize(axis).x;
  const float left_end = g0.x + ImGui::CalcTextSize(left).x + 6.0f;
  const float right_start = g1.x - ImGui::CalcTextSize(right).x - 6.0f;
  if (right_start - left_end >= axis_w)  // between the two numbers when it fits
    dl->AddText(ImVec2((left_end + right_start - axis_w) * 0.5f, ly), dim, axis);
  const int spike = explain_spikes ? last_spike(losses, first) : -1;
  if (spike >= 0) {
    const std::string text =
        printf_text(T("The spike at step %d: one update overshot and the loss jumped %.0f times "
                      "above its lowest. A step that is too large where the loss surface is steep "
                      "does this; a smaller learning rate avoids it."),
                    spike + 1,
                    static_cast<double>(losses[spike] / *std::min_element(losses.begin() + first,
                                                                          losses.begin() + spike)));
    text_wrapped(text, true);
  }
}

namespace {

// The step and loss, and the loss plot `lines` font sizes high, with the drop marked for a task
// with a phase change (AppState::Training::phase).
void training_plot(AppState& s, float lines) {
  const AppState::Training& tr = s.training;
  const scenario::TaskInfo* task = scenario::find_task(tr.task);
  const std::string where = printf_text(T("step %d, loss %.3g"), static_cast<int>(tr.losses.size()),
                                        static_cast<double>(tr.losses.back()));
  ImGui::TextUnformatted(where.c_str());
  const std::string drop = printf_text(T("the drop: step %d"), tr.phase.drop);
  // A task of fresh batches (scenario::task_batch) jumps from step to step because each
  // step's sequences differ, not because an update overshot: no spike to explain there.
  loss_chart(tr.losses, lines, !(task && task->layered), tr.phase.drop, drop.c_str());
}

void section_train(AppState& s) {
  AppState::Training& tr = s.training;
  const char* lang = s.lang == Lang::kZh ? "zh" : "en";
  const scenario::TaskInfo* task = scenario::find_task(tr.task);
  const std::string current = task ? task->title.in(lang) : T("this scenario's target");
  control_combo(s, "task", current.c_str());
  if (control_shown(s, "train_seed")) {
    const Control& c = *find_control("train_seed");
    int seed = c.read(s).get<int>();
    ImGui::TextUnformatted(T(c.label));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputInt("##seed", &seed, 1, 10))
      control_apply(s, "train_seed", std::clamp<double>(seed, c.min, c.max));
    text_wrapped(task->goal.in(lang), true);
  }
  // An ID of its own: "Train" alone is also the section's header, and the two clashed (the
  // button did nothing).
  // Without a target the buttons are there but greyed out: the text below says what to do.
  ImGui::BeginDisabled(!s.has_target());
  const std::string play = std::string(tr.playing ? T("Pause") : T("Train")) + "###train_play";
  if (ImGui::Button(play.c_str())) control_apply(s, "train", !tr.playing);
  ImGui::EndDisabled();
  ImGui::SameLine();
  // Short labels on the canvas, beside Train; the table's say what they do on their own.
  control_button(s, "train_step", T("Step##train"), false, true);
  ImGui::SameLine();
  control_button(s, "train_reset", T("Reset##train"), false, true);
  if (control_shown(s, "learning_rate")) {
    ImGui::TextUnformatted(T(find_control("learning_rate")->label));
    ImGui::SameLine();
    control_slider(s, "learning_rate", "%.3f");
    control_radios(s, "optimizer");
  }
  // How fast Train plays: 10 or 60 steps a second to watch, or as fast as the frame allows.
  if (control_shown(s, "train_speed")) {
    ImGui::TextUnformatted(T("speed"));
    ImGui::SameLine();
    control_combo(s, "train_speed", T(AppState::speed_name(tr.speed)));  // "slow" when closed
  }
  if (!tr.losses.empty()) {
    if (s.large_loss_plot) {
      text_wrapped(T("The loss plot is drawn large in the middle."), true);
    } else {
      training_plot(s, 6.0f);
    }
    control_checkbox(s, "loss_plot_large");
    if (const scenario::TaskCheck* check = s.task_check()) text_wrapped(check->text.in(lang), true);
    if (tr.finished && !tr.playing)
      text_wrapped(printf_text(T("Paused by itself at step %d: the lesson's weights were trained "
                                 "for as many. Train goes on from here."),
                               static_cast<int>(tr.losses.size())),
                   true);
    if (tr.converged && !tr.playing)
      text_wrapped(T("Paused by itself: the loss fell below 0.000001, so the weights are "
                     "trained. Train goes on from here."),
                   true);
  } else if (!task && tr.error.empty()) {
    text_wrapped(!s.has_target()
                     ? T("Pick a toy task, or give the scenario a \"target\", then Train.")
                     : T("Train moves the weights toward the target, step by step."),
                 true);
  }
  if (tr.task == "kernel_regression") draw_regression(s);
  if (!tr.error.empty()) text_wrapped(tr.error, true);
}

}  // namespace

void draw_large_loss_plot(AppState& s) {
  if (s.training.losses.empty() || s.decoder_trains()) return;
  const scenario::TaskInfo* task = scenario::find_task(s.training.task);
  const char* lang = s.lang == Lang::kZh ? "zh" : "en";
  const std::string title =
      std::string(T("Train")) + ": " + (task ? task->title.in(lang) : T("this scenario's target"));
  ImGui::TextUnformatted(title.c_str());
  ImGui::SameLine();
  // Back to the Train section's small plot: the same control as its checkbox.
  if (small_button(T("smaller##loss_plot"))) control_apply(s, "loss_plot_large", false);
  training_plot(s, 14.0f);
  ImGui::Separator();
}

void draw_controls(AppState& s) {
  section_scenario(s);
  const ImGuiTreeNodeFlags open = ImGuiTreeNodeFlags_DefaultOpen;
  if (ImGui::CollapsingHeader(T("Tokens and sizes"), open)) section_tokens(s);
  if (ImGui::CollapsingHeader(T("Scoring"), open)) section_scoring(s);
  if (ImGui::CollapsingHeader(T("Masks"), open)) section_masks(s);
  // The basics stay open; heads, weights and the rest are folded, and open by themselves
  // when a scenario is loaded that uses them.
  const scenario::Scenario& sc = s.scenario;
  const bool fresh = s.controls.sections_for != s.loads;
  s.controls.sections_for = s.loads;
  if (fresh)
    ImGui::SetNextItemOpen(sc.heads > 1 || sc.has_init || sc.W_q.size() || sc.W_k.size() ||
                               sc.W_v.size() || sc.W_o.size(),
                           ImGuiCond_Always);
  if (ImGui::CollapsingHeader(T("Heads and weights"))) section_heads(s);
  if (fresh)
    ImGui::SetNextItemOpen(
        sc.positional_encoding || sc.hard || sc.has_dropout || std::isinf(sc.mask_value),
        ImGuiCond_Always);
  if (ImGui::CollapsingHeader(T("More"))) section_extras(s);
  if (fresh) ImGui::SetNextItemOpen(!s.training.task.empty(), ImGuiCond_Always);
  if (!s.control_hidden("train") && ImGui::CollapsingHeader(T("Train"))) section_train(s);
  ImGui::Spacing();
  ImGui::TextDisabled("%s %.2f ms", T("last recompute"), s.recompute_ms);
}

}  // namespace ui
