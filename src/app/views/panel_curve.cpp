// The curve: when each value is one number (a regression, as Nadaraya–Watson's), the keys are
// points (x, y) — x their first column, y their value — and each query's output is a point of
// the fitted curve at the query's x. The chosen query's weights are drawn as bars under the
// points it averages, so the kernel is seen doing the averaging.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "app/model/controls.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"

namespace ui {

void draw_curve(AppState& s, Heatmaps& h) {
  if (!s.has_curve() || s.trace.heads.empty() || s.trace.output.empty() || !s.runs()) return;
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  const attn::Matrix& xq = s.trace.queries[b];
  const attn::Matrix& xk = s.trace.keys[b];
  const attn::Matrix& y = s.trace.values[b];
  const attn::Matrix& out = s.trace.output[b];
  const attn::Matrix& w = s.trace.heads[0].weights[b];
  const int n_q = static_cast<int>(xq.rows()), n_k = static_cast<int>(xk.rows());
  if (out.cols() != 1 || y.cols() != 1 || w.cols() != n_k) return;
  text_wrapped(
      T("Each key is a point: its first number across, its value up. Each query predicts a "
        "value at its own first number: the weighted average of the points' values, with the "
        "weights its scores give (the bars below the points). The rings are those predictions; "
        "the orange line is the same average at every x, from all the points."));
  batch_selector(s);
  int& q = s.curve_query;
  q = std::clamp(q, 0, n_q - 1);
  const bool hidden = curve_hidden(s);

  // σ, here as in Scoring (the same control): the estimate, the predictions and their error
  // follow it as it moves.
  if (control_shown(s, "sigma")) {
    const Control& c = *find_control("sigma");
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(T(c.label));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 320.0f));
    float sigma = s.scenario.sigma;
    if (ImGui::SliderFloat("##curve_sigma", &sigma, static_cast<float>(c.min),
                           static_cast<float>(c.max), "%.3f", ImGuiSliderFlags_Logarithmic))
      control_apply(s, "sigma", std::clamp(static_cast<double>(sigma), c.min, c.max));
    help_marker(c.help);
  }
  const attn::Matrix& truth = s.scenario.true_curve;

  // The ranges: every point, the true function and (shown) the predictions, with a margin.
  float x_lo = std::min(xk.col(0).minCoeff(), xq.col(0).minCoeff());
  float x_hi = std::max(xk.col(0).maxCoeff(), xq.col(0).maxCoeff());
  float y_lo = y.minCoeff(), y_hi = y.maxCoeff();
  if (truth.rows() >= 2) {
    x_lo = std::min(x_lo, truth.col(0).minCoeff());
    x_hi = std::max(x_hi, truth.col(0).maxCoeff());
    y_lo = std::min(y_lo, truth.col(1).minCoeff());
    y_hi = std::max(y_hi, truth.col(1).maxCoeff());
  }
  if (!(x_hi > x_lo)) x_hi = x_lo + 1.0f;
  // The estimate at every x of the plot (from all the points, none masked), by the core.
  constexpr int kDense = 161;
  // Computed when the numbers change (a recompute, another item, another range), not each frame.
  static struct {
    uint64_t revision = ~uint64_t{0};
    int batch = -1;
    float lo = 0.0f, hi = 0.0f;
    std::vector<float> ys;
  } estimate;
  if (!hidden && (estimate.revision != s.revision || estimate.batch != b || estimate.lo != x_lo ||
                  estimate.hi != x_hi)) {
    estimate = {s.revision, b, x_lo, x_hi, curve_estimate(s, x_lo, x_hi, kDense)};
  }
  static const std::vector<float> none;
  const std::vector<float>& dense = hidden ? none : estimate.ys;
  if (!hidden) {
    y_lo = std::min(y_lo, out.minCoeff());
    y_hi = std::max(y_hi, out.maxCoeff());
    for (const float v : dense) y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
  }
  if (!(y_hi > y_lo)) y_hi = y_lo + 1.0f;
  const float x_pad = 0.04f * (x_hi - x_lo), y_pad = 0.08f * (y_hi - y_lo);
  x_lo -= x_pad;
  x_hi += x_pad;
  y_lo -= y_pad;
  y_hi += y_pad;

  // The plot, and a strip below it for the chosen query's weights.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float width = std::clamp(avail.x - 8.0f, 240.0f, 900.0f);
  const float height = std::clamp(width * 0.5f, 160.0f, 420.0f), strip = height * 0.28f;
  const float axis = ImGui::GetFontSize() * 2.6f;  // room for the y axis's numbers
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 g0(p0.x + axis, p0.y + 4.0f), g1(p0.x + width, p0.y + 4.0f + height);
  const ImVec2 s0(g0.x, g1.y + 6.0f), s1(g1.x, g1.y + 6.0f + strip);
  // (Below the strip, the x axis's numbers: a line of text.)
  ImGui::InvisibleButton("curve", ImVec2(width, height + strip + 14.0f + ImGui::GetFontSize()));
  const bool hovered = ImGui::IsItemHovered();
  const auto X = [&](float x) { return g0.x + (x - x_lo) / (x_hi - x_lo) * (g1.x - g0.x); };
  const auto Y = [&](float v) { return g1.y - (v - y_lo) / (y_hi - y_lo) * (g1.y - g0.y); };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddRect(g0, g1, frame);
  char number[32];
  for (const float v : {y_lo + y_pad, y_hi - y_pad}) {  // the y axis: the values' range
    std::snprintf(number, sizeof number, "%.2f", static_cast<double>(v));
    const ImVec2 t = ImGui::CalcTextSize(number);
    dl->AddText(ImVec2(g0.x - t.x - 4.0f, Y(v) - t.y * 0.5f), text, number);
    dl->AddLine(ImVec2(g0.x, Y(v)), ImVec2(g1.x, Y(v)), IM_COL32(128, 128, 128, 50));
  }
  for (const float v : {x_lo + x_pad, x_hi - x_pad}) {  // the x axis
    std::snprintf(number, sizeof number, "%.2f", static_cast<double>(v));
    const ImVec2 t = ImGui::CalcTextSize(number);
    dl->AddText(ImVec2(X(v) - t.x * 0.5f, s1.y + 2.0f), text, number);
  }

  // Hovering chooses the query nearest the pointer's x.
  if (hovered && !hidden) {
    const float mx = ImGui::GetIO().MousePos.x;
    int best = 0;
    for (int i = 1; i < n_q; ++i)
      if (std::fabs(X(xq(i, 0)) - mx) < std::fabs(X(xq(best, 0)) - mx)) best = i;
    q = best;
  }

  // The true function, grey; the estimate over every x, orange.
  const ImU32 line = IM_COL32(214, 96, 20, 255), point = IM_COL32(40, 90, 170, 255);
  const ImU32 true_colour = IM_COL32(96, 96, 96, 220);
  dl->PushClipRect(g0, g1, true);
  if (truth.rows() >= 2) {
    std::vector<ImVec2> pts;
    for (Eigen::Index i = 0; i < truth.rows(); ++i)
      pts.push_back(ImVec2(X(truth(i, 0)), Y(truth(i, 1))));
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), true_colour, 0, 1.5f);
  }
  if (!dense.empty()) {
    std::vector<ImVec2> pts;
    for (int i = 0; i < kDense; ++i) {
      const float x = (x_lo + x_pad) + (x_hi - x_lo - 2.0f * x_pad) * i / (kDense - 1.0f);
      if (std::isfinite(dense[i])) pts.push_back(ImVec2(X(x), Y(dense[i])));
    }
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), line, 0, 2.5f);
  }
  dl->PopClipRect();
  // The points, each as large as the chosen query's weight on it makes it.
  const float top = hidden ? 1.0f : std::max(w.row(q).maxCoeff(), 1e-12f);
  for (int j = 0; j < n_k; ++j) {
    const float share = hidden ? 0.0f : std::clamp(w(q, j) / top, 0.0f, 1.0f);
    dl->AddCircleFilled(ImVec2(X(xk(j, 0)), Y(y(j, 0))), 3.0f + 5.0f * share,
                        hidden ? point : IM_COL32(40, 90, 170, 90 + static_cast<int>(165 * share)));
    if (!hidden)  // its weight, a bar in the strip below
      dl->AddRectFilled(ImVec2(X(xk(j, 0)) - 2.0f, s1.y - (s1.y - s0.y) * w(q, j) / top),
                        ImVec2(X(xk(j, 0)) + 2.0f, s1.y), IM_COL32(40, 90, 170, 200));
  }
  // Each query's own prediction (from the other points when its cell is masked): a ring.
  if (!hidden)
    for (int i = 0; i < n_q; ++i)
      if (std::isfinite(out(i, 0)))
        dl->AddCircle(ImVec2(X(xq(i, 0)), Y(out(i, 0))), 4.5f, line, 0, 1.5f);
  dl->AddLine(ImVec2(s0.x, s1.y), ImVec2(s1.x, s1.y), frame);
  if (!hidden) {
    const float xi = X(xq(q, 0));
    dl->AddLine(ImVec2(xi, g0.y), ImVec2(xi, s1.y), IM_COL32(214, 96, 20, 110), 1.5f);
    dl->AddCircleFilled(ImVec2(xi, Y(out(q, 0))), 7.0f, line);
  }
  // What each mark is: a swatch and its words, on as few lines as the width allows.
  // kind: 0 a thick line, 1 a thin one, 2 a ring, 3 a dot.
  const auto legend = [&](int kind, ImU32 colour, const char* words) {
    const float sw = ImGui::GetFontSize() * 1.6f;
    same_line_if_fits(sw + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(words).x);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(sw, ImGui::GetTextLineHeight()));
    const float my = at.y + ImGui::GetTextLineHeight() * 0.5f;
    if (kind <= 1)
      dl->AddLine(ImVec2(at.x, my), ImVec2(at.x + sw, my), colour, kind == 0 ? 2.5f : 1.5f);
    else if (kind == 2)
      dl->AddCircle(ImVec2(at.x + sw * 0.5f, my), 4.5f, colour, 0, 1.5f);
    else
      dl->AddCircleFilled(ImVec2(at.x + sw * 0.5f, my), 4.0f, colour);
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(words);
  };
  ImGui::Dummy(ImVec2(0.0f, 0.0f));
  legend(3, point, T("the points"));
  if (truth.rows() >= 2) legend(1, true_colour, T("the true function"));
  if (!hidden) {
    legend(0, line, T("the estimate from all the points"));
    legend(2, line, T("each point predicted from the others"));
  }

  // The plot's area, for tests: rows the queries, columns the keys.
  GridInfo& g = h.record_grid("curve", g0, g1, p0, ImVec2(g1.x, s1.y), n_q, n_k, hidden);
  g.lo = y_lo;
  g.hi = y_hi;

  // The chosen query, also from the keyboard.
  // (Its label beside it, within the panel's width: a phone's too.)
  const std::string slider = std::string(T("query")) + "##curve_query";
  ImGui::SetNextItemWidth(std::min(width, 420.0f) - ImGui::CalcTextSize(T("query")).x -
                          ImGui::GetStyle().ItemInnerSpacing.x - 4.0f);
  ImGui::SliderInt(slider.c_str(), &q, 0, n_q - 1, "");
  const std::vector<std::string> names = axis_labels(s, Axis::kQueryTokens, b, n_q);
  if (hidden) {
    text_wrapped(
        T("The predictions and weights show here once the lesson's questions up to "
          "here are answered."));
    // Which one: the lesson's box is on another tab.
    if (const std::string which = waiting_question(s, true); !which.empty())
      text_wrapped(which, true);
    return;
  }
  // In words: what the chosen query averages, and the error (as the table view says it).
  const std::string summary = curve_summary(s);
  text_wrapped(summary);
  item_text("curve.summary", summary);
}

}  // namespace ui
