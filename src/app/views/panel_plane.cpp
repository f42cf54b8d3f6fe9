// The 2-D view: when queries and keys have two numbers each, they are arrows in a plane.
// Drag an arrow's tip to change it; the weights of the chosen query update as you drag.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/edits.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"

namespace ui {

namespace {

void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 color, float thickness) {
  dl->AddLine(from, to, color, thickness);
  const float dx = to.x - from.x, dy = to.y - from.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len < 1.0f) return;
  const float ux = dx / len, uy = dy / len, head = 7.0f + thickness * 2.0f;
  dl->AddTriangleFilled(
      to, ImVec2(to.x - ux * head - uy * head * 0.5f, to.y - uy * head + ux * head * 0.5f),
      ImVec2(to.x - ux * head + uy * head * 0.5f, to.y - uy * head - ux * head * 0.5f), color);
}

// Where an arrow's label goes: past its head, on the side it points to (left of the tip for an
// arrow pointing left, above it for one pointing up), so that the text never covers the head.
ImVec2 beyond_head(ImVec2 from, ImVec2 to, const char* text) {
  const ImVec2 size = ImGui::CalcTextSize(text);
  const float dx = to.x - from.x, dy = to.y - from.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  const float ux = len < 1.0f ? 1.0f : dx / len, uy = len < 1.0f ? 0.0f : dy / len;
  const ImVec2 at(to.x + ux * 8.0f, to.y + uy * 8.0f);
  // Centred along the axis the arrow mostly runs across; on its own side along the other.
  const float x = std::abs(ux) >= 0.4f ? (ux > 0 ? at.x : at.x - size.x) : at.x - size.x * 0.5f;
  const float y = std::abs(uy) >= 0.4f ? (uy > 0 ? at.y : at.y - size.y) : at.y - size.y * 0.5f;
  return ImVec2(x, y);
}

}  // namespace

void draw_plane(AppState& s, Heatmaps&) {
  const PlaneVectors v = plane_vectors(s);
  if (!v.head) return;
  const int b = v.batch;
  const attn::HeadTrace& ht = *v.head;
  const attn::Matrix& q = ht.q[b];
  const attn::Matrix& k = ht.k[b];
  if (!v.two_d) {
    text_wrapped(
        T("The 2-D view needs queries and keys of exactly two numbers (per head). "
          "Load the preset \"A 2-D toy\" or set the features d to 2 without "
          "learned projections."));
    return;
  }
  const bool draggable =
      !s.problem.positional_encoding && s.scenario.scoring != attn::Scoring::kAdditive &&
      !s.problem.weights.W_q.size() && !s.problem.weights.W_k.size() && s.scenario.heads == 1;
  int& query = s.plane_query;
  const std::vector<std::string>&ql = v.query_labels, &kl = v.key_labels;
  // While a question about the weights waits, the arrows are drawn alike and the weights and
  // the output are not shown (views.h).
  const bool hidden = plane_hidden(s);
  ImGui::TextUnformatted(T("Query"));
  for (int i = 0; i < q.rows() && i < 16; ++i) {
    ImGui::SameLine();
    ImGui::PushID(i);
    if (ImGui::RadioButton(ql[i].c_str(), query == i)) query = i;
    ImGui::PopID();
  }
  text_wrapped(draggable ? T("Drag the tip of an arrow. The key arrows get thicker as their "
                             "weight for the chosen query grows.")
                         : T("These are the projected vectors; turn off projections and "
                             "positional encoding to drag them."),
               true);

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(200.0f, std::min(avail.x * 0.62f, avail.y - 10.0f));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 center(p0.x + side * 0.5f, p0.y + side * 0.5f);
  float extent = 1.0f;
  for (int i = 0; i < q.rows(); ++i)
    extent = std::max({extent, std::fabs(q(i, 0)), std::fabs(q(i, 1))});
  for (int j = 0; j < k.rows(); ++j)
    extent = std::max({extent, std::fabs(k(j, 0)), std::fabs(k(j, 1))});
  float& view_extent = s.plane.view_extent;
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left))
    view_extent = std::ceil(extent * 1.2f * 2.0f) / 2.0f;
  const float scale = side * 0.5f / view_extent;
  auto to_screen = [&](float x, float y) {
    return ImVec2(center.x + x * scale, center.y - y * scale);
  };

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + side, p0.y + side), IM_COL32(255, 255, 255, 255), 6.0f);
  for (float g = -std::floor(view_extent); g <= view_extent; g += 0.5f) {
    const ImU32 col =
        std::fabs(g) < 1e-6f ? IM_COL32(170, 175, 185, 255) : IM_COL32(232, 235, 240, 255);
    dl->AddLine(to_screen(g, -view_extent), to_screen(g, view_extent), col);
    dl->AddLine(to_screen(-view_extent, g), to_screen(view_extent, g), col);
  }
  dl->AddCircle(center, scale, IM_COL32(210, 214, 222, 255), 64);

  // Interaction: the nearest arrow tip under the mouse can be dragged.
  ImGui::InvisibleButton("plane", ImVec2(side, side));
  int& drag_kind = s.plane.drag_kind;  // 1 = query, 2 = key
  int& drag_index = s.plane.drag_index;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (draggable && ImGui::IsItemActivated()) {
    float best = 14.0f * 14.0f;
    drag_index = -1;
    auto consider = [&](int kind, int index, float x, float y) {
      const ImVec2 t = to_screen(x, y);
      const float d = (t.x - mouse.x) * (t.x - mouse.x) + (t.y - mouse.y) * (t.y - mouse.y);
      if (d < best) best = d, drag_kind = kind, drag_index = index;
    };
    for (int i = 0; i < q.rows(); ++i) consider(1, i, q(i, 0), q(i, 1));
    for (int j = 0; j < k.rows(); ++j) consider(2, j, k(j, 0), k(j, 1));
    if (drag_kind == 1 && drag_index >= 0) query = drag_index;
  }
  if (draggable && ImGui::IsItemActive() && drag_index >= 0) {
    const float x = std::round((mouse.x - center.x) / scale * 100.0f) / 100.0f;
    const float y = std::round(-(mouse.y - center.y) / scale * 100.0f) / 100.0f;
    const char which = s.scenario.self_attention ? 'x' : drag_kind == 1 ? 'q' : 'k';
    set_input(&s.scenario, which, b, drag_index, 0, x);
    set_input(&s.scenario, which, b, drag_index, 1, y);
    // Cross-attention preset with values equal to the keys keeps them together.
    if (!s.scenario.self_attention && drag_kind == 2 && s.scenario.values[b].cols() == 2 &&
        s.scenario.values[b].row(drag_index) == s.problem.keys[b].row(drag_index)) {
      set_input(&s.scenario, 'v', b, drag_index, 0, x);
      set_input(&s.scenario, 'v', b, drag_index, 1, y);
    }
    s.changed();
  }
  if (!ImGui::IsItemActive()) drag_index = -1;

  const attn::Matrix& w = ht.weights[b];
  for (int j = 0; j < k.rows(); ++j) {
    const float wt = hidden ? 0.5f : std::isfinite(w(query, j)) ? w(query, j) : 0.0f;
    const ImVec4 c = palette_color(Palette::kSequential, 0.15f + 0.7f * wt);
    arrow(dl, center, to_screen(k(j, 0), k(j, 1)), ImGui::ColorConvertFloat4ToU32(c),
          hidden ? 3.0f : 1.5f + 7.0f * wt);
    const std::string label = hidden ? kl[j] : printf_text("%s  %.2f", kl[j].c_str(), wt);
    dl->AddText(beyond_head(center, to_screen(k(j, 0), k(j, 1)), label.c_str()),
                IM_COL32(40, 44, 52, 255), label.c_str());
  }
  for (int i = 0; i < q.rows(); ++i) {
    const bool chosen = i == query;
    const ImU32 col = chosen ? IM_COL32(224, 90, 20, 255) : IM_COL32(224, 130, 20, 110);
    arrow(dl, center, to_screen(q(i, 0), q(i, 1)), col, chosen ? 3.5f : 2.0f);
    dl->AddText(beyond_head(center, to_screen(q(i, 0), q(i, 1)), ql[i].c_str()), col,
                ql[i].c_str());
  }
  // The output of the chosen query when the values are 2-D too.
  if (ht.output[b].cols() == 2 && !hidden) {
    const ImVec2 o = to_screen(ht.output[b](query, 0), ht.output[b](query, 1));
    dl->AddCircleFilled(o, 6.0f, IM_COL32(33, 102, 172, 255));
    dl->AddText(ImVec2(o.x + 8, o.y - 8), IM_COL32(33, 102, 172, 255), T("output"));
  }

  // Beside the plane: the chosen query's weights as bars.
  ImGui::SameLine(0, 20);
  ImGui::BeginGroup();
  ImGui::Text("%s %s", T("weights of"), ql[query].c_str());
  for (int j = 0; j < k.rows(); ++j) {
    const std::string overlay =
        hidden ? kl[j] + "  ?" : printf_text("%s  %.3f", kl[j].c_str(), w(query, j));
    ImGui::ProgressBar(hidden || !std::isfinite(w(query, j)) ? 0.0f : w(query, j),
                       ImVec2(std::min(260.0f, avail.x - side - 30), 0), overlay.c_str());
    item_text(("plane.weight" + std::to_string(j)).c_str(), overlay);  // for the checks
  }
  ImGui::EndGroup();
}

}  // namespace ui
