// Step changes drawn as animations: which ones animate, the clock, and the values drawn on
// the way from one step's matrix to the next.
#include "app/model/transition.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "app/model/app_state.h"

using attn::Matrix;
using ui::Step;

namespace {

Matrix m(std::initializer_list<std::initializer_list<float>> rows) {
  Matrix out(static_cast<Eigen::Index>(rows.size()),
             static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& r : rows) {
    Eigen::Index j = 0;
    for (float v : r) out(i, j++) = v;
    ++i;
  }
  return out;
}

}  // namespace

TEST_CASE("one step forward from the scores to the weighted values animates", "[app][transition]") {
  CHECK(ui::animates(Step::kScores, Step::kScaled));
  CHECK(ui::animates(Step::kScaled, Step::kMasked));
  CHECK(ui::animates(Step::kMasked, Step::kWeights));
  CHECK(ui::animates(Step::kWeights, Step::kWeightedValues));
  CHECK_FALSE(ui::animates(Step::kProjections, Step::kScores));
  CHECK_FALSE(ui::animates(Step::kWeightedValues, Step::kOutput));
  CHECK_FALSE(ui::animates(Step::kMasked, Step::kScaled));  // back: no
  CHECK_FALSE(ui::animates(Step::kScores, Step::kMasked));  // a jump: no
}

TEST_CASE("the clock eases from 0 to 1 and ends; a long frame moves it 1/30 s",
          "[app][transition]") {
  ui::Transition t{Step::kScores, Step::kScaled, 0.0, true};
  CHECK(t.eased() == 0.0f);
  float last = 0.0f;
  for (int k = 0; k < 6; ++k) {
    t.advance(1.0 / 60.0);
    CHECK(t.eased() > last);
    last = t.eased();
  }
  t.advance(5.0);  // a page waking from sleep
  CHECK(t.active);
  CHECK(t.elapsed == Approx(6.0 / 60.0 + 1.0 / 30.0));
  for (int k = 0; k < 40 && t.active; ++k) t.advance(1.0 / 30.0);
  CHECK_FALSE(t.active);
  CHECK(t.eased() == 1.0f);
}

TEST_CASE("scaling: the scores shrink linearly to S'", "[app][transition]") {
  const Matrix s = m({{2, -4}, {0, 8}}), scaled = s / 2.0f;
  CHECK(ui::transition_values(Step::kScaled, s, scaled, 0.0f) == s);
  CHECK(ui::transition_values(Step::kScaled, s, scaled, 1.0f) == scaled);
  const Matrix half = ui::transition_values(Step::kScaled, s, scaled, 0.5f);
  CHECK(half(0, 1) == Approx(-3.0f));
  CHECK(half(1, 1) == Approx(6.0f));
}

TEST_CASE("masking: masked cells fall through the colours, then to the mask value",
          "[app][transition]") {
  const float inf = std::numeric_limits<float>::infinity();
  const Matrix scaled = m({{0.5f, -1.0f, 0.3f}, {0.2f, 0.1f, 0.4f}});
  const Matrix masked = m({{0.5f, -1.0f, -1e6f}, {0.2f, -inf, 0.4f}});
  float last_a = 1.0f, last_b = 1.0f;
  for (float e = 0.0f; e <= 1.0f; e += 0.05f) {
    const Matrix v = ui::transition_values(Step::kMasked, scaled, masked, e);
    CHECK(v(0, 0) == 0.5f);  // kept cells stay
    CHECK(v(1, 2) == 0.4f);
    CHECK(v(0, 2) <= last_a);  // falling cells only fall
    CHECK(v(1, 1) <= last_b);
    last_a = v(0, 2);
    last_b = v(1, 1);
  }
  // Halfway they reach S′'s lowest value (−1), the bottom of the colour scale.
  const Matrix half = ui::transition_values(Step::kMasked, scaled, masked, 0.5f);
  CHECK(half(0, 2) == Approx(-1.0f));
  CHECK(half(1, 1) == Approx(-1.0f));
  // Three quarters: geometrically between −1 and −1e6, −1e3.
  CHECK(ui::transition_values(Step::kMasked, scaled, masked, 0.75f)(0, 2) ==
        Approx(-1e3f).epsilon(1e-3));
  const Matrix end = ui::transition_values(Step::kMasked, scaled, masked, 1.0f);
  CHECK(end(0, 2) == -1e6f);
  CHECK(end(1, 1) == -inf);
}

TEST_CASE("softmax: each row starts with its largest cell at 1 and is divided down",
          "[app][transition]") {
  const float inf = std::numeric_limits<float>::infinity();
  const Matrix masked = m({{1.0f, 0.0f, -1e6f}, {-inf, -inf, -inf}});
  Matrix weights(2, 3);
  const float z = 1.0f + std::exp(-1.0f);
  weights << 1.0f / z, std::exp(-1.0f) / z, 0.0f, NAN, NAN, NAN;  // −∞ everywhere: no answer
  const Matrix start = ui::transition_values(Step::kWeights, masked, weights, 0.0f);
  CHECK(start(0, 0) == 1.0f);
  CHECK(start(0, 1) == Approx(std::exp(-1.0f)));
  CHECK(start(0, 2) == 0.0f);
  CHECK(std::isnan(start(1, 0)));  // the row with nothing to choose is as it ends
  const Matrix end = ui::transition_values(Step::kWeights, masked, weights, 1.0f);
  CHECK(end.row(0).sum() == Approx(1.0f));
  const Matrix mid = ui::transition_values(Step::kWeights, masked, weights, 0.5f);
  CHECK(mid(0, 0) < 1.0f);
  CHECK(mid(0, 0) > weights(0, 0));
  CHECK(mid(0, 2) == 0.0f);
}

TEST_CASE("set_step starts a transition one step forward, unless motion is off",
          "[app][transition]") {
  ui::AppState app;
  app.set_step(2);
  CHECK_FALSE(app.transition.active);  // projections → scores: not animated
  app.set_step(3);
  CHECK(app.transition.active);
  CHECK(app.transition.from == Step::kScores);
  CHECK(app.transition.to == Step::kScaled);
  app.set_step(1);  // back: the transition ends
  CHECK_FALSE(app.transition.active);
  app.animate = false;
  app.set_step(2);
  app.set_step(3);
  CHECK_FALSE(app.transition.active);
}
