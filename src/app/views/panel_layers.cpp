// The model view of a stack (AppState::layered): one row per layer, with each head's attention
// weights and what the layer adds to the residual stream, the stream before and after, and a
// token model's next-token probabilities. Click a head to open it step by step.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

namespace {

std::vector<std::string> vocab_labels(const scenario::Scenario& w, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(i < static_cast<int>(w.vocab.size()) ? w.vocab[i] : std::to_string(i));
  return out;
}

// A map of probabilities (attention weights, next-token odds): 0 to 1 on the sequential palette.
HeatmapSpec probability_map(const AppState& s, const char* id, const attn::Matrix& values,
                            const std::vector<std::string>& rows,
                            const std::vector<std::string>& cols, const char* row_axis,
                            const char* col_axis, ImVec2 size) {
  HeatmapSpec sp;
  sp.id = id;
  sp.values = &values;
  sp.row_labels = &rows;
  sp.col_labels = &cols;
  sp.row_axis = row_axis;
  sp.col_axis = col_axis;
  sp.fixed_range = true;
  sp.lo = 0.0f;
  sp.hi = 1.0f;
  sp.size = size;
  sp.max_cell_px = 40.0f;
  sp.numbers = s.show_numbers;
  sp.revision = s.revision;
  return sp;
}

// The composition maps of one layer's heads (AppState::key_split), kept while the numbers
// and the item shown stay the same: they take n²·d multiplications a head.
struct SplitCache {
  uint64_t revision = ~0ull;
  int batch = -1;
  std::vector<std::vector<std::pair<attn::Matrix, attn::Matrix>>> maps;  // [layer][head]
  std::vector<std::vector<bool>> made;
};

// Below layer l's heads (l ≥ 1): for each head, its scaled scores split into the part its
// keys took from the inputs h₀ and the part from what the layers below wrote. A layer that
// reads earlier layers' work (an induction head) scores mostly with the second.
void draw_composition(AppState& s, Heatmaps& h, int l, int b, float w,
                      const std::vector<std::string>& tokens, int per_row) {
  static SplitCache cache;
  if (cache.revision != s.revision || cache.batch != b ||
      cache.maps.size() != s.stack_trace.layers.size()) {
    cache = SplitCache{};
    cache.revision = s.revision;
    cache.batch = b;
    cache.maps.resize(s.stack_trace.layers.size());
    cache.made.resize(s.stack_trace.layers.size());
  }
  const int H = static_cast<int>(s.stack_trace.layers[l].heads.size());
  if (static_cast<int>(cache.maps[l].size()) != H) {
    cache.maps[l].assign(H, {});
    cache.made[l].assign(H, false);
    for (int k = 0; k < H; ++k)
      cache.made[l][k] = AppState::key_split(s.stack, s.stack_trace, l, k, b,
                                             &cache.maps[l][k].first, &cache.maps[l][k].second);
  }
  if (H == 0 || !cache.made[l][0]) {
    text_wrapped(
        T("(How the keys read the layers below is shown for dot-product scoring, whose "
          "scores split into a sum.)"));
    return;
  }
  // Measured, never cut (a char[256] cut "(right)" off, and Chinese inside a character).
  text_wrapped(
      printf_text(T("How layer %d reads what the layers below wrote: each head's scaled scores "
                    "split in two. A key is h%s \xc2\xb7 W_k and h%s = h\xe2\x82\x80 + what the "
                    "layers below added, so each score is a sum: the part from the inputs' own "
                    "rows (left) and the part from what the layers below added (right)."),
                  l + 1, sub(l - 1).c_str(), sub(l - 1).c_str()));
  const std::vector<uint8_t> mask = attn::mask_cells(
      s.stack.base.mask, b, static_cast<int>(tokens.size()), static_cast<int>(tokens.size()));
  char id[48];
  int drawn = 0;
  for (int k = 0; k < H; ++k) {
    const attn::Matrix& a = cache.maps[l][k].first;
    const attn::Matrix& c = cache.maps[l][k].second;
    const float hi = std::max({a.cwiseAbs().maxCoeff(), c.cwiseAbs().maxCoeff(), 1e-6f});
    for (int part = 0; part < 2; ++part) {
      if (drawn++ % per_row) ImGui::SameLine();
      ImGui::BeginGroup();
      const std::string caption = printf_text(part == 0 ? T("head %d: scores from h\xe2\x82\x80")
                                                        : T("head %d: scores from layers below"),
                                              k + 1);
      ImGui::TextUnformatted(caption.c_str());
      std::snprintf(id, sizeof id,
                    part == 0 ? "layers_l%d_h%d_from_input" : "layers_l%d_h%d_from_layers", l + 1,
                    k + 1);
      HeatmapSpec sp;
      sp.id = id;
      sp.values = part == 0 ? &a : &c;
      sp.mask = mask.empty() ? nullptr : &mask;
      sp.row_labels = &tokens;
      sp.col_labels = &tokens;
      sp.row_axis = T("queries");
      sp.col_axis = T("keys");
      sp.palette = Palette::kDiverging;
      sp.fixed_range = true;
      sp.lo = -hi;
      sp.hi = hi;
      sp.size = ImVec2(w, w * 0.8f);
      sp.max_cell_px = 40.0f;
      sp.numbers = s.show_numbers;
      sp.hidden = layers_hidden(s);  // the scores answer what the weights would
      sp.revision = s.revision;
      draw_heatmap(s, h, sp);
      ImGui::EndGroup();
    }
  }
}

}  // namespace

void draw_layers(AppState& s, Heatmaps& h) {
  if (!s.layered() || s.stack_trace.layers.empty() || !s.runs()) return;
  text_wrapped(
      T("Each layer reads the stream, attends, and adds what it found to the stream: the next "
        "layer reads the sum. Rows are layers, one heatmap per head (its attention weights); "
        "click a head to open it step by step."));
  batch_selector(s);
  const int B = static_cast<int>(s.stack_trace.stream.front().size());
  const int b = std::clamp(s.batch, 0, B - 1);
  const std::vector<std::string> tokens =
      axis_labels(s, Axis::kQueryTokens, b, s.stack_trace.stream.front()[b].rows());
  const std::vector<std::string> features =
      axis_labels(s, Axis::kInputFeatures, b, s.stack_trace.stream.front()[b].cols());
  const float avail = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  int most_heads = 1;
  for (const attn::Trace& t : s.stack_trace.layers)
    most_heads = std::max(most_heads, static_cast<int>(t.heads.size()));
  // A row: the heads, what the layer adds and the stream after it, each at most 300 px wide,
  // wrapping when narrow.
  const int per_row = std::max(1, std::min(most_heads + 2, static_cast<int>(avail / 200.0f)));
  const float w = std::min(300.0f, avail / per_row - spacing);

  // The stream's columns share one scale, so that what a layer adds compares with the stream.
  float stream_hi = 0.0f;
  for (const attn::Batch& st : s.stack_trace.stream)
    stream_hi = std::max(stream_hi, st[b].cwiseAbs().maxCoeff());
  for (const attn::Trace& t : s.stack_trace.layers)
    stream_hi = std::max(stream_hi, t.output[b].cwiseAbs().maxCoeff());
  stream_hi = std::max(stream_hi, 1e-6f);
  const auto stream_map = [&](const char* id, const attn::Matrix& m, const char* caption) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(caption);
    HeatmapSpec sp;
    sp.id = id;
    sp.values = &m;
    sp.row_labels = &tokens;
    sp.col_labels = &features;
    sp.row_axis = T("tokens");
    sp.col_axis = T("features");
    sp.palette = Palette::kDiverging;
    sp.fixed_range = !s.scale_alone;
    sp.lo = -stream_hi;
    sp.hi = stream_hi;
    sp.size = ImVec2(w, w * 0.8f);
    sp.max_cell_px = 40.0f;
    sp.max_aspect = 2.0f;
    sp.numbers = s.show_numbers;
    sp.revision = s.revision;
    draw_heatmap(s, h, sp);
    ImGui::EndGroup();
  };

  const bool weights_hidden = layers_hidden(s);
  if (weights_hidden) {
    text_wrapped(
        T("The heads' weights show once the lesson's questions about weights up to here "
          "are answered."));
    if (const std::string which = waiting_question(s); !which.empty()) text_wrapped(which, true);
  }
  stream_map("layers_h0", s.stack_trace.stream.front()[b],
             T("The stream h\xe2\x82\x80: the inputs (with their positions)"));
  char id[48];
  std::string caption;
  for (int l = 0; l < static_cast<int>(s.stack_trace.layers.size()); ++l) {
    const attn::Trace& t = s.stack_trace.layers[l];
    ImGui::Separator();
    if (g_fonts.title) ImGui::PushFont(g_fonts.title);
    ImGui::Text(T("Layer %d"), l + 1);
    if (g_fonts.title) ImGui::PopFont();
    const int H = static_cast<int>(t.heads.size());
    for (int k = 0; k < H; ++k) {
      if (k % per_row) ImGui::SameLine();
      ImGui::BeginGroup();
      const bool focused = l == s.layer && k == s.head;
      caption = printf_text("%s %d%s", T("head"), k + 1, focused ? "  \xe2\x97\x8f" : "");
      ImGui::TextUnformatted(caption.c_str());
      std::snprintf(id, sizeof id, "layers_l%d_h%d", l + 1, k + 1);
      HeatmapSpec sp = probability_map(s, id, t.heads[k].weights[b], tokens, tokens, T("queries"),
                                       T("keys"), ImVec2(w, w * 0.8f));
      sp.hidden = weights_hidden;  // "?" while a question about weights waits (views.h)
      if (draw_heatmap(s, h, sp).grid_clicked) {  // open it step by step, at its weights
        s.set_layer(l);
        s.set_head(k);
        s.set_step(static_cast<int>(Step::kWeights));
        s.view_tab_wanted = "steps";
      }
      ImGui::EndGroup();
    }
    if (H % per_row) ImGui::SameLine();
    std::snprintf(id, sizeof id, "layers_l%d_adds", l + 1);
    caption = printf_text(T("Layer %d adds"), l + 1);
    stream_map(id, t.output[b], caption.c_str());
    if ((H + 1) % per_row) ImGui::SameLine();
    std::snprintf(id, sizeof id, "layers_h%d", l + 1);
    caption = printf_text(T("The stream h%s = h%s + what layer %d adds"), sub(l).c_str(),
                          sub(l - 1).c_str(), l + 1);
    stream_map(id, s.stack_trace.stream[l + 1][b], caption.c_str());
    if (l >= 1) draw_composition(s, h, l, b, w, tokens, per_row);
  }
  if (s.stack.token_model() && b < static_cast<int>(s.next_probabilities.size())) {
    ImGui::Separator();
    const attn::Matrix& p = s.next_probabilities[b];
    const std::vector<std::string> vocab = vocab_labels(s.whole, static_cast<int>(p.cols()));
    text_wrapped(
        T("The next token: each position's probabilities (softmax of h_L \xc2\xb7 unembed)."));
    const float side = std::min(avail, 420.0f);
    const HeatmapSpec sp = probability_map(s, "layers_next", p, tokens, vocab, T("tokens"),
                                           T("next token"), ImVec2(side, side * 0.9f));
    draw_heatmap(s, h, sp);
  }
}

}  // namespace ui
