// The step-by-step pipeline: a step bar, the formula and explanation of the current step,
// and its matrices as heatmaps (inputs → projections → scores → scaled → masked → weights
// → weighted values → output).
//
// [SECTION] Helpers
// [SECTION] Step bar
// [SECTION] One view per step
// [SECTION] The panel
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "app/app.h"
#include "app/edits.h"
#include "app/i18n.h"
#include "app/platform.h"
#include "scenario/export.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

struct Ctx {
  AppState& s;
  HeatmapRenderer& h;
  const attn::HeadTrace& ht;
  int b;
  std::vector<std::string> q_labels, k_labels;
};

std::vector<std::string> numbered(const char* prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i + 1));
  return out;
}

// The hover from last frame, if it is on `kind` in this head and batch item.
const CellRef* hovered_on(const AppState& s, std::initializer_list<MatrixKind> kinds) {
  if (!s.prev_hover) return nullptr;
  for (MatrixKind k : kinds)
    if (s.prev_hover->kind == k && s.prev_hover->head == s.head && s.prev_hover->batch == s.batch)
      return &*s.prev_hover;
  return nullptr;
}

// A file name stem from a caption: "Q (head 1)" → "Q_head_1", plus the head and batch item.
std::string export_stem(const char* caption, int head, int batch) {
  std::string out;
  for (const char* p = caption; *p; ++p) {
    const char ch = *p;
    if (std::isalnum(static_cast<unsigned char>(ch)) && !(ch & 0x80))
      out += ch;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty()) out = "matrix";
  if (head >= 0 && out.find("head") == std::string::npos) out += "_head" + std::to_string(head + 1);
  if (batch >= 0) out += "_batch" + std::to_string(batch + 1);
  return out;
}

// Draws a captioned heatmap in a group and records the hover.
HeatmapResult block(Ctx& c, const char* caption, HeatmapSpec spec, MatrixKind kind) {
  ImGui::BeginGroup();
  if (g_fonts.mono) ImGui::PushFont(g_fonts.mono);
  ImGui::TextUnformatted(caption);
  if (g_fonts.mono) ImGui::PopFont();
  spec.revision = c.s.revision;
  spec.export_name = export_stem(caption, c.s.scenario.heads > 1 ? c.s.head : -1,
                                 c.s.scenario.batch() > 1 ? c.b : -1);
  const HeatmapResult r = c.h.draw(spec);
  ImGui::EndGroup();
  if (r.hovered) c.s.hover = CellRef{kind, c.s.head, c.b, r.row, r.col};
  return r;
}

// A "·" or "=" between blocks laid out in a row.
void operator_sign(const char* sign, float height) {
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(1, height * 0.45f));
  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::TextUnformatted(sign);
  if (g_fonts.title) ImGui::PopFont();
  ImGui::EndGroup();
  ImGui::SameLine();
}

// Widths for heatmaps side by side in `total` pixels, so that their cells come out the same
// size: each gets room for its row labels (heatmap_row_label_width) and a share of the
// pixels in proportion to its columns.
struct Shape {
  int cols;
  const std::vector<std::string>* row_labels;
};
std::vector<float> widths_in_row(float total, std::initializer_list<Shape> shapes) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  std::vector<float> label_w;
  float fixed = 0.0f;
  int cols = 0;
  for (const Shape& sh : shapes) {
    const float w = heatmap_row_label_width(sh.row_labels, "", total);
    label_w.push_back(w);
    fixed += w + spacing;
    cols += std::max(sh.cols, 1);
  }
  const float cell = std::max(1.0f, (total - fixed) / std::max(cols, 1));
  std::vector<float> out;
  size_t i = 0;
  for (const Shape& sh : shapes)
    out.push_back(label_w[i++] + spacing + std::max(sh.cols, 1) * cell);
  return out;
}

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

HeatmapSpec spec(const char* id, const attn::Matrix& m, const std::vector<std::string>* rows,
                 const std::vector<std::string>* cols, Palette p, ImVec2 size) {
  HeatmapSpec sp;
  sp.id = id;
  sp.values = &m;
  sp.row_labels = rows;
  sp.col_labels = cols;
  sp.palette = p;
  sp.size = size;
  return sp;
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
    char label[96];
    if (compact)
      std::snprintf(label, sizeof label, "%d##step%d", k + 1, k);
    else
      std::snprintf(label, sizeof label, "%d  %s##step%d", k + 1, T(step_name(st)), k);
    const bool current = s.step == st;
    if (current) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.16f, 0.36f, 0.78f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.20f, 0.42f, 0.85f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    }
    if (ImGui::Button(label)) {
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
  // Keyboard: ← → to step, space to play, when no text field has focus.
  if (!ImGui::GetIO().WantTextInput &&
      ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow)))
      s.set_step(static_cast<int>(s.step) - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)))
      s.set_step(static_cast<int>(s.step) + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space))) s.playing = !s.playing;
  }
}

// Whole-scenario exports: the trace, the scenario, code that recomputes it, the link.
void export_menu(AppState& s) {
  if (ImGui::MenuItem(T("Copy the trace as JSON")))
    deliver_export("trace.json", "application/json", scenario::trace_to_json(s.trace), true);
  if (ImGui::MenuItem(T("Copy the scenario as JSON")))
    deliver_export("scenario.json", "application/json", scenario::to_json(s.scenario), true);
  if (ImGui::MenuItem(T("Copy as NumPy code")))
    deliver_export("attention_numpy.py", "text/x-python", scenario::export_numpy(s.scenario), true);
  if (ImGui::MenuItem(T("Copy as PyTorch code")))
    deliver_export("attention_pytorch.py", "text/x-python", scenario::export_pytorch(s.scenario),
                   true);
#if defined(__EMSCRIPTEN__)
  if (ImGui::MenuItem(T("Copy the link"))) s.emit("copy_link");  // the page knows its address
#endif
  ImGui::Separator();
  ImGui::TextDisabled("%s", T("Right-click any matrix to export it alone."));
}

void head_selector(AppState& s) {
  if (s.scenario.heads <= 1) return;
  ImGui::SameLine(0, 24);
  ImGui::TextUnformatted(T("Head"));
  for (int h = 0; h < s.scenario.heads; ++h) {
    ImGui::SameLine();
    char label[32];
    std::snprintf(label, sizeof label, "%d##head", h + 1);
    if (ImGui::RadioButton(label, s.head == h)) s.set_head(h);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] One view per step
//-----------------------------------------------------------------------------

void view_inputs(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const attn::Trace& t = s.trace;
  const bool pe = s.problem.positional_encoding;
  auto edit = [&](const HeatmapResult& r, char which) {
    if (!r.edited) return;
    set_input(&s.scenario, which, c.b, r.edit_row, r.edit_col, r.edit_value);
    s.preset = -1;
    s.changed();
  };
  static std::vector<std::string> dims;
  dims = numbered("d", std::max({attn::batch_cols(t.queries), attn::batch_cols(t.keys),
                                 attn::batch_cols(t.values)}));
  if (s.scenario.self_attention) {
    const float w = pe ? (avail.x - 80.0f) / 3.0f : std::min(avail.x, 560.0f);
    HeatmapSpec x = spec("x", s.problem.queries[c.b], &c.q_labels, &dims, Palette::kDiverging,
                         ImVec2(w, avail.y));
    x.editable = true;
    edit(block(c,
               pe ? T("X (drag a cell to change it)")
                  : T("X: one row per token (drag a cell to change it)"),
               x, MatrixKind::kQueries),
         'x');
    if (pe) {
      operator_sign("+", avail.y * 0.5f);
      block(c, "PE",
            spec("pe", t.pe_queries[c.b], &c.q_labels, &dims, Palette::kDiverging,
                 ImVec2(w, avail.y)),
            MatrixKind::kPositional);
      operator_sign("=", avail.y * 0.5f);
      block(
          c, "X + PE",
          spec("xpe", t.queries[c.b], &c.q_labels, &dims, Palette::kDiverging, ImVec2(w, avail.y)),
          MatrixKind::kQueries);
    }
    return;
  }
  const float w = (avail.x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  HeatmapSpec q = spec("q", s.problem.queries[c.b], &c.q_labels, &dims, Palette::kDiverging,
                       ImVec2(w, avail.y));
  q.editable = true;
  edit(block(c, T("queries"), q, MatrixKind::kQueries), 'q');
  ImGui::SameLine();
  HeatmapSpec k =
      spec("k", s.problem.keys[c.b], &c.k_labels, &dims, Palette::kDiverging, ImVec2(w, avail.y));
  k.editable = true;
  edit(block(c, T("keys"), k, MatrixKind::kKeys), 'k');
  ImGui::SameLine();
  HeatmapSpec v =
      spec("v", s.problem.values[c.b], &c.k_labels, &dims, Palette::kDiverging, ImVec2(w, avail.y));
  v.editable = true;
  edit(block(c, T("values"), v, MatrixKind::kValues), 'v');
  if (pe)
    ImGui::TextDisabled("%s", T("Positional encoding is added to all three; see the PE tab."));
}

void view_projections(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const attn::Trace& t = s.trace;
  const attn::Weights& w = s.problem.weights;
  const bool additive = s.problem.scoring == attn::Scoring::kAdditive;
  static std::vector<std::string> in_dims, model_dims, head_dims;
  const float row_h = std::max(90.0f, (avail.y - 3 * ImGui::GetTextLineHeightWithSpacing()) / 3.0f);
  struct Row {
    const char* label;
    const attn::Batch* x;
    const attn::Matrix* W;
    const attn::Batch* out;
    MatrixKind in_kind, w_kind, out_kind;
    const std::vector<std::string>* labels;
    const char *x_id, *w_id, *out_id;  // unique heatmap ids (ap_layout reports them)
  };
  const Row rows[] = {{"Q", &t.queries, additive ? nullptr : &w.W_q, &c.ht.q, MatrixKind::kQueries,
                       MatrixKind::kWq, MatrixKind::kQ, &c.q_labels, "x_q", "W_q", "Q"},
                      {"K", &t.keys, additive ? nullptr : &w.W_k, &c.ht.k, MatrixKind::kKeys,
                       MatrixKind::kWk, MatrixKind::kK, &c.k_labels, "x_k", "W_k", "K"},
                      {"V", &t.values, &w.W_v, &c.ht.v, MatrixKind::kValues, MatrixKind::kWv,
                       MatrixKind::kV, &c.k_labels, "x_v", "W_v", "V"}};
  const CellRef* hov = hovered_on(s, {MatrixKind::kQ, MatrixKind::kK, MatrixKind::kV});
  for (const Row& r : rows) {
    ImGui::PushID(r.label);
    const attn::Matrix& x = (*r.x)[c.b];
    in_dims = numbered("d", static_cast<int>(x.cols()));
    const bool projected = r.W && r.W->size();
    const int out_cols = static_cast<int>((*r.out)[c.b].cols());
    const std::vector<float> w =
        projected ? widths_in_row(avail.x - 80.0f, {{static_cast<int>(x.cols()), r.labels},
                                                    {static_cast<int>(r.W->cols()), &in_dims},
                                                    {out_cols, r.labels}})
                  : widths_in_row(avail.x - 40.0f,
                                  {{static_cast<int>(x.cols()), r.labels}, {out_cols, r.labels}});
    HeatmapSpec xs = spec(r.x_id, x, r.labels, &in_dims, Palette::kDiverging, ImVec2(w[0], row_h));
    xs.legend = false;
    if (hov && hov->kind == r.out_kind) xs.highlight_row = hov->row;
    char caption[64];
    std::snprintf(caption, sizeof caption, "%s",
                  r.label[0] == 'Q'   ? "X (queries)"
                  : r.label[0] == 'K' ? "X (keys)"
                                      : "X (values)");
    block(c, caption, xs, r.in_kind);
    if (projected) {
      operator_sign("\xc2\xb7", row_h * 0.5f);
      model_dims = numbered("m", static_cast<int>(r.W->cols()));
      HeatmapSpec ws =
          spec(r.w_id, *r.W, &in_dims, &model_dims, Palette::kDiverging, ImVec2(w[1], row_h));
      ws.legend = false;
      if (hov && hov->kind == r.out_kind)
        ws.highlight_col = hov->head * static_cast<int>((*r.out)[c.b].cols()) + hov->col;
      const char* wname = r.label[0] == 'Q' ? "W_q" : r.label[0] == 'K' ? "W_k" : "W_v";
      block(c, wname, ws, r.w_kind);
    }
    operator_sign(projected ? "=" : "\xe2\x86\x92", row_h * 0.5f);
    head_dims = numbered("c", static_cast<int>((*r.out)[c.b].cols()));
    HeatmapSpec os = spec(r.out_id, (*r.out)[c.b], r.labels, &head_dims, Palette::kDiverging,
                          ImVec2(w.back(), row_h));
    os.legend = false;
    char out_caption[64];
    if (s.scenario.heads > 1)
      std::snprintf(out_caption, sizeof out_caption, "%s (%s %d)", r.label, T("head"), s.head + 1);
    else
      std::snprintf(out_caption, sizeof out_caption, "%s", r.label);
    block(c, out_caption, os, r.out_kind);
    ImGui::PopID();
  }
}

// Q_h and K_h on the left, the step's n_q × n_k matrix on the right.
HeatmapResult view_scores_like(Ctx& c, ImVec2 avail, const char* caption, const attn::Matrix& m,
                               MatrixKind kind, bool masked_look) {
  AppState& s = c.s;
  static std::vector<std::string> dims_q, dims_k;
  // On a narrow screen the step's own matrix takes the whole width; Q and K stay one step back.
  const bool with_qk = avail.x >= 520.0f;
  const float left = with_qk ? std::min(avail.x * 0.3f, 300.0f) : 0.0f;
  const CellRef* hov = hovered_on(
      s, {MatrixKind::kScores, MatrixKind::kScaled, MatrixKind::kMasked, MatrixKind::kWeights});
  if (with_qk) {
    ImGui::BeginGroup();
    // Q_h and K_h, with the hovered cell's query row and key row outlined.
    auto side = [&](const char* id, const attn::Matrix& m, const std::vector<std::string>* rows,
                    std::vector<std::string>* dims, int highlight, const char* caption,
                    MatrixKind kind) {
      *dims = numbered("c", static_cast<int>(m.cols()));
      HeatmapSpec sp = spec(id, m, rows, dims, Palette::kDiverging, ImVec2(left, avail.y * 0.45f));
      sp.legend = false;
      sp.max_cell_px = 34.0f;
      sp.highlight_row = highlight;
      block(c, caption, sp, kind);
    };
    const bool heads = s.scenario.heads > 1;
    side("qh", c.ht.q[c.b], &c.q_labels, &dims_q, hov ? hov->row : -1, heads ? "Q_h" : "Q",
         MatrixKind::kQ);
    side("kh", c.ht.k[c.b], &c.k_labels, &dims_k, hov ? hov->col : -1, heads ? "K_h" : "K",
         MatrixKind::kK);
    ImGui::EndGroup();
    ImGui::SameLine(0, 24);
  }
  HeatmapSpec main = spec("main", m, &c.q_labels, &c.k_labels,
                          kind == MatrixKind::kWeights ? Palette::kSequential : Palette::kDiverging,
                          ImVec2(avail.x - (with_qk ? left + 24 : 0), avail.y));
  main.row_axis = T("queries");
  main.col_axis = T("keys");
  if (kind == MatrixKind::kWeights && !s.problem.hard && s.problem.dropout_p == 0.0f) {
    main.fixed_range = true;
    main.lo = 0.0f;
    main.hi = 1.0f;
  }
  if (masked_look && c.b < static_cast<int>(s.masks.size())) main.mask = &s.masks[c.b];
  const HeatmapResult r = block(c, caption, main, kind);
  if (r.clicked && s.mask_by_click) {
    toggle_masked_cell(&s.scenario, c.b, r.row, r.col);
    s.preset = -1;
    s.changed();
  }
  return r;
}

void view_output(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  static std::vector<std::string> dims;
  dims = numbered("c", static_cast<int>(c.ht.v[c.b].cols()));
  const CellRef* hov = hovered_on(s, {MatrixKind::kHeadOutput});
  const std::vector<float> w =
      widths_in_row(avail.x - 80.0f, {{static_cast<int>(c.ht.weights[c.b].cols()), &c.q_labels},
                                      {static_cast<int>(c.ht.v[c.b].cols()), &c.k_labels},
                                      {static_cast<int>(c.ht.output[c.b].cols()), &c.q_labels}});
  HeatmapSpec ws = spec("w", c.ht.weights[c.b], &c.q_labels, &c.k_labels, Palette::kSequential,
                        ImVec2(w[0], avail.y));
  if (!s.problem.hard && s.problem.dropout_p == 0.0f) ws.fixed_range = true;
  ws.lo = 0.0f;
  ws.hi = 1.0f;
  if (c.b < static_cast<int>(s.masks.size())) ws.mask = &s.masks[c.b];
  if (hov) ws.highlight_row = hov->row;
  block(c, "W", ws, MatrixKind::kWeights);
  operator_sign("\xc2\xb7", avail.y * 0.5f);
  HeatmapSpec vs =
      spec("v", c.ht.v[c.b], &c.k_labels, &dims, Palette::kDiverging, ImVec2(w[1], avail.y));
  if (hov) vs.highlight_col = hov->col;
  block(c, s.scenario.heads > 1 ? "V_h" : "V", vs, MatrixKind::kV);
  operator_sign("=", avail.y * 0.5f);
  block(c, s.scenario.heads > 1 ? "O_h" : "O",
        spec("o", c.ht.output[c.b], &c.q_labels, &dims, Palette::kDiverging, ImVec2(w[2], avail.y)),
        MatrixKind::kHeadOutput);
}

void view_concat(Ctx& c, ImVec2 avail) {
  AppState& s = c.s;
  const attn::Trace& t = s.trace;
  static std::vector<std::string> dims_concat, dims_out, dims_model;
  dims_concat = numbered("c", attn::batch_cols(t.concat));
  dims_out = numbered("d", attn::batch_cols(t.output));
  const bool wo = s.problem.weights.W_o.size() > 0;
  const int n_concat = attn::batch_cols(t.concat), n_out = attn::batch_cols(t.output);
  const std::vector<float> w =
      wo ? widths_in_row(avail.x - 80.0f,
                         {{n_concat, &c.q_labels}, {n_out, &dims_concat}, {n_out, &c.q_labels}})
         : std::vector<float>{std::min(avail.x * 0.6f, 600.0f)};
  block(c, s.scenario.heads > 1 ? T("concat [O_1 | ... | O_H]") : "O_1",
        spec("concat", t.concat[c.b], &c.q_labels, &dims_concat, Palette::kDiverging,
             ImVec2(w[0], avail.y)),
        MatrixKind::kConcat);
  if (!wo) return;
  operator_sign("\xc2\xb7", avail.y * 0.5f);
  block(c, "W_o",
        spec("wo", s.problem.weights.W_o, &dims_concat, &dims_out, Palette::kDiverging,
             ImVec2(w[1], avail.y)),
        MatrixKind::kWo);
  operator_sign("=", avail.y * 0.5f);
  block(c, T("output"),
        spec("out", t.output[c.b], &c.q_labels, &dims_out, Palette::kDiverging,
             ImVec2(w[2], avail.y)),
        MatrixKind::kOutput);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

void draw_pipeline(AppState& s, HeatmapRenderer& h) {
  if (s.trace.heads.empty()) {
    ImGui::TextUnformatted(T("No scenario yet."));
    return;
  }
  step_bar(s);
  ImGui::Separator();
  const int head = std::clamp(s.head, 0, static_cast<int>(s.trace.heads.size()) - 1);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  Ctx c{s, h, s.head_trace(head), b, query_labels(s.scenario, b), key_labels(s.scenario, b)};

  if (g_fonts.title) ImGui::PushFont(g_fonts.title);
  ImGui::Text("%d. %s", static_cast<int>(s.step) + 1, T(step_name(s.step)));
  if (g_fonts.title) ImGui::PopFont();
  if (s.step != Step::kInputs && s.step != Step::kConcat) head_selector(s);
  ImGui::SameLine(0, 24);
  batch_selector(s);
  text_wrapped_mono(step_formula(s.step, s.problem));
  text_wrapped(T(step_explanation(s.step, s.problem)));
  for (const scenario::TourStop& stop : s.scenario.tour)
    if (stop.step == static_cast<int>(s.step)) lesson_note(s, stop.text.in(language_code()));
  if (s.step == Step::kMasked || s.step == Step::kWeights || s.step == Step::kScaled) {
    ImGui::Checkbox(T("Click a cell to mask it"), &s.mask_by_click);
    help_marker(
        "With this on, clicking a cell of the matrix adds it to the masked cells, or removes it.");
  }
  ImGui::Spacing();

  const ImVec2 avail(ImGui::GetContentRegionAvail().x,
                     std::max(160.0f, ImGui::GetContentRegionAvail().y - 4.0f));
  const attn::HeadTrace& ht = c.ht;
  switch (s.step) {
    case Step::kInputs:
      view_inputs(c, avail);
      break;
    case Step::kProjections:
      view_projections(c, avail);
      break;
    case Step::kScores:
      view_scores_like(c, avail, "S", ht.scores[b], MatrixKind::kScores, false);
      break;
    case Step::kScaled:
      view_scores_like(c, avail, "S'", ht.scaled[b], MatrixKind::kScaled, false);
      break;
    case Step::kMasked:
      view_scores_like(c, avail, "M", ht.masked[b], MatrixKind::kMasked, true);
      break;
    case Step::kWeights:
      view_scores_like(c, avail, "W", ht.weights[b], MatrixKind::kWeights, true);
      break;
    case Step::kOutput:
      view_output(c, avail);
      break;
    case Step::kConcat:
      view_concat(c, avail);
      break;
  }
}

}  // namespace ui
