// The backward passes (core/gradient.h): both the float32 one on the kernels (attn::gradients)
// and the float64 reference (attn::gradients_reference) against central finite differences of
// the float64 reference forward (reference.h), at small and odd sizes, with heads, projections,
// masks, temperature and positional encoding; the float32 one against the float64 one over
// every scoring, mask kind, dropout, heads and projections at edge sizes; and the cases both
// refuse, with the same reasons.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/gradient.h"
#include "reference.h"

namespace {

attn::Matrix seeded(int rows, int cols, uint64_t seed) {
  attn::Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      m(i, j) = static_cast<float>(
          2.0 * attn::uniform01(seed, static_cast<uint64_t>(i * cols + j)) - 1.0);
  return m;
}

attn::Batch seeded_batch(int B, int rows, int cols, uint64_t seed) {
  attn::Batch out;
  for (int b = 0; b < B; ++b) out.push_back(seeded(rows, cols, seed * 101 + b));
  return out;
}

// The loss of the float64 forward (with soft0: the straight-through surrogate, ref::run).
double loss_of(const attn::Problem& p, const attn::Batch& target,
               const std::vector<ref::Bat>* soft0 = nullptr) {
  const ref::Trace t = ref::run(p, soft0);
  double sum = 0.0, count = 0.0;
  for (size_t b = 0; b < t.output.size(); ++b)
    for (size_t i = 0; i < t.output[b].size(); ++i)
      for (size_t j = 0; j < t.output[b][i].size(); ++j) {
        const double e = t.output[b][i][j] - target[b](static_cast<int>(i), static_cast<int>(j));
        sum += e * e;
        count += 1.0;
      }
  return sum / count;
}

// Every element of `param` (a float matrix inside p): the analytic gradient against a central
// difference of the float64 reference, the step measured as stored in float32.
void check_all(const attn::Problem& p, const attn::Batch& target, attn::Matrix* param,
               const attn::MatrixD& grad, const std::string& name,
               const std::vector<ref::Bat>* soft0 = nullptr) {
  REQUIRE(grad.rows() == param->rows());
  REQUIRE(grad.cols() == param->cols());
  for (int i = 0; i < param->rows(); ++i)
    for (int j = 0; j < param->cols(); ++j) {
      const float x = (*param)(i, j);
      const float up = x + 1e-3f, down = x - 1e-3f;
      (*param)(i, j) = up;
      const double l_up = loss_of(p, target, soft0);
      (*param)(i, j) = down;
      const double l_down = loss_of(p, target, soft0);
      (*param)(i, j) = x;
      const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
      INFO(name << "(" << i << ", " << j << "): analytic " << grad(i, j) << ", finite difference "
                << fd);
      CHECK(std::fabs(grad(i, j) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
    }
}

// The two backward passes: each is checked against finite differences.
struct Backward {
  const char* name;
  attn::Status (*run)(const attn::Problem&, const attn::Batch&, attn::Gradients*);
};
const Backward kBackwards[] = {{"float32 attn::gradients", attn::gradients},
                               {"float64 attn::gradients_reference", attn::gradients_reference}};

}  // namespace

TEST_CASE("gradients match finite differences of the float64 reference", "[core][grad]") {
  struct Case {
    const char* name;
    int B, n_q, n_k, d, d_model, heads;
    bool projections, causal, pe, scaled;
    float temperature;
    std::vector<std::vector<int>> valid_lens;
    attn::Scoring scoring = attn::Scoring::kScaledDot;  // when not dot/scaled (see `scaled`)
    float dropout = 0.0f;
    float sigma = 1.0f;  // gaussian scoring's width
  };
  // clang-format off
  const Case cases[] = {
      {"one token, one feature", 1, 1, 1, 1, 0, 1, false, false, false, true, 1.0f, {}},
      {"cross-attention 3 × 5, dot, T = 0.7", 1, 3, 5, 3, 0, 1, false, false, false, false, 0.7f, {}},
      {"self, 2 heads, projections, causal, PE", 2, 4, 4, 4, 6, 2, true, true, true, true, 1.3f, {}},
      {"valid lengths 2 and 0 (a fully masked row under -1e6)", 2, 3, 3, 2, 4, 1, true, false, false, true, 1.0f, {{2}, {0}}},
      {"3 heads without projections, odd width", 1, 5, 5, 3, 0, 3, false, false, true, true, 1.0f, {}},
      {"general scoring, 2 heads, projections", 1, 3, 3, 2, 4, 2, true, false, false, false, 0.9f, {}, attn::Scoring::kGeneral},
      {"cosine scoring, cross-attention 2 × 4", 2, 2, 4, 3, 0, 1, false, true, false, false, 0.5f, {}, attn::Scoring::kCosine},
      {"additive scoring, hidden 5, valid lengths", 2, 3, 4, 2, 5, 1, false, false, false, false, 1.0f, {{3}, {2}}, attn::Scoring::kAdditive},
      {"dropout 0.3 with projections", 1, 4, 4, 3, 4, 1, true, true, false, true, 1.0f, {}, attn::Scoring::kScaledDot, 0.3f},
      {"gaussian, 2 heads, projections, causal, PE, σ 0.8", 2, 4, 4, 4, 6, 2, true, true, true, false, 1.3f, {}, attn::Scoring::kGaussian, 0.0f, 0.8f},
      {"gaussian, cross-attention 3 × 5, valid lengths, σ 1.4, T 0.6", 2, 3, 5, 2, 0, 1, false, false, false, false, 0.6f, {{4}, {2}}, attn::Scoring::kGaussian, 0.0f, 1.4f},
      {"gaussian, one column, dropout 0.2, σ 0.5", 1, 5, 5, 1, 0, 1, false, false, false, false, 1.0f, {}, attn::Scoring::kGaussian, 0.2f, 0.5f},
  };
  // clang-format on
  for (const Case& c : cases) {
    INFO(c.name);
    attn::Problem p;
    const bool self = c.n_q == c.n_k;
    p.queries = seeded_batch(c.B, c.n_q, c.d, 1);
    p.keys = self ? p.queries : seeded_batch(c.B, c.n_k, c.d, 2);
    p.values = self ? p.queries : seeded_batch(c.B, c.n_k, c.d, 3);
    p.scoring = c.scaled ? attn::Scoring::kScaledDot : attn::Scoring::kDot;
    if (c.scoring != attn::Scoring::kScaledDot) p.scoring = c.scoring;
    if (c.dropout > 0.0f) {
      p.dropout_p = c.dropout;
      p.dropout_seed = 5;
    }
    p.temperature = c.temperature;
    p.weights.sigma = c.sigma;
    p.heads = c.heads;
    p.positional_encoding = c.pe;
    p.mask.causal = c.causal;
    p.mask.valid_lens = c.valid_lens;
    if (c.projections) {
      p.weights.W_q = seeded(c.d, c.d_model, 4);
      p.weights.W_k = seeded(c.d, c.d_model, 5);
      p.weights.W_v = seeded(c.d, c.d_model, 6);
      p.weights.W_o = seeded(c.d_model, c.d_model, 7);
    }
    const int head_d = c.projections ? c.d_model / c.heads : c.d / c.heads;
    if (p.scoring == attn::Scoring::kGeneral) p.weights.W = seeded(head_d, head_d, 9);
    if (p.scoring == attn::Scoring::kAdditive) {  // the scorer's own W_q, W_k (hidden c.d_model)
      p.weights.W_q = seeded(c.d, c.d_model, 4);
      p.weights.W_k = seeded(c.d, c.d_model, 5);
      p.weights.w_v = seeded(c.d_model, 1, 10).col(0);
    }
    REQUIRE(attn::validate(p).ok());
    const attn::Trace t = attn::run(p);
    attn::Batch target;
    for (size_t b = 0; b < t.output.size(); ++b)
      target.push_back(seeded(static_cast<int>(t.output[b].rows()),
                              static_cast<int>(t.output[b].cols()), 8 + b));
    for (const Backward& backward : kBackwards) {
      INFO(backward.name);
      attn::Gradients g;
      const attn::Status st = backward.run(p, target, &g);
      REQUIRE(st.error == "");
      CHECK(g.loss == Approx(loss_of(p, target)).epsilon(1e-5));
      for (int b = 0; b < c.B; ++b) {
        check_all(p, target, &p.queries.mut(b), g.queries[b], "queries");
        check_all(p, target, &p.keys.mut(b), g.keys[b], "keys");
        check_all(p, target, &p.values.mut(b), g.values[b], "values");
      }
      if (c.projections) {
        check_all(p, target, &p.weights.W_q, g.W_q, "W_q");
        check_all(p, target, &p.weights.W_k, g.W_k, "W_k");
        check_all(p, target, &p.weights.W_v, g.W_v, "W_v");
        check_all(p, target, &p.weights.W_o, g.W_o, "W_o");
      }
      if (p.scoring == attn::Scoring::kGeneral) check_all(p, target, &p.weights.W, g.W, "W");
      if (p.scoring == attn::Scoring::kGaussian) {  // σ, one number
        const float x = p.weights.sigma, up = x + 1e-3f, down = x - 1e-3f;
        p.weights.sigma = up;
        const double l_up = loss_of(p, target);
        p.weights.sigma = down;
        const double l_down = loss_of(p, target);
        p.weights.sigma = x;
        const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
        INFO("sigma: analytic " << g.sigma << ", finite difference " << fd);
        CHECK(fd != 0.0);
        CHECK(std::fabs(g.sigma - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
      } else {
        CHECK(g.sigma == 0.0);
      }
      if (p.scoring == attn::Scoring::kAdditive) {
        check_all(p, target, &p.weights.W_q, g.W_q, "the scorer's W_q");
        check_all(p, target, &p.weights.W_k, g.W_k, "the scorer's W_k");
        attn::Matrix wv = p.weights.w_v;
        const attn::MatrixD gwv = g.w_v;
        // w_v is a vector: check it as a one-column matrix, the problem reading it back.
        for (int u = 0; u < wv.rows(); ++u) {
          const float x = p.weights.w_v(u), up = x + 1e-3f, down = x - 1e-3f;
          p.weights.w_v(u) = up;
          const double l_up = loss_of(p, target);
          p.weights.w_v(u) = down;
          const double l_down = loss_of(p, target);
          p.weights.w_v(u) = x;
          const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
          INFO("w_v(" << u << "): analytic " << gwv(u, 0) << ", finite difference " << fd);
          CHECK(std::fabs(gwv(u, 0) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
        }
      }
    }
  }
}

TEST_CASE("masked cells pass no gradient to their keys", "[core][grad]") {
  attn::Problem p;
  p.queries = seeded_batch(1, 3, 2, 11);
  p.keys = seeded_batch(1, 4, 2, 12);
  p.values = seeded_batch(1, 4, 2, 13);
  p.mask.valid_lens = {{2}};  // keys 3 and 4 are padding
  const attn::Batch target = seeded_batch(1, 3, 2, 14);
  for (const Backward& backward : kBackwards) {
    INFO(backward.name);
    attn::Gradients g;
    REQUIRE(backward.run(p, target, &g).error == "");
    CHECK(g.keys[0].bottomRows(2).cwiseAbs().maxCoeff() == 0.0);
    CHECK(g.values[0].bottomRows(2).cwiseAbs().maxCoeff() == 0.0);
    CHECK(g.keys[0].topRows(2).cwiseAbs().maxCoeff() > 0.0);
  }
}

TEST_CASE("what has no gradient yet is refused with its reason, never NaN", "[core][grad]") {
  attn::Problem p;
  p.queries = p.keys = p.values = seeded_batch(1, 3, 2, 21);
  const attn::Batch target = seeded_batch(1, 3, 2, 22);
  for (const Backward& backward : kBackwards) {
    INFO(backward.name);
    attn::Gradients g;
    p.mask.valid_lens = {{0}};
    p.mask.mask_value = -INFINITY;
    CHECK(backward.run(p, target, &g).error ==
          "grad: row 1 of batch item 1 is fully masked under -inf: its weights are undefined "
          "(NaN), and so is their gradient");
    p.mask = attn::MaskSpec{};
    p.hard = true;
    CHECK(backward.run(p, target, &g).error ==
          "grad: hard attention picks one key by argmax, which has no gradient (the "
          "straight-through estimator gives it one: \"hard\": {\"estimator\": "
          "\"straight_through\"})");
    CHECK(attn::gradient_refusal(p) == attn::GradientRefusal::kHardWithoutEstimator);
    p.hard_gradient = attn::HardGradient::kStraightThrough;
    CHECK(attn::gradient_refusal(p) == attn::GradientRefusal::kNone);
    CHECK(backward.run(p, target, &g).ok());
    p.hard_gradient = attn::HardGradient::kNone;
    p.hard = false;
    CHECK(attn::gradient_refusal(p) == attn::GradientRefusal::kNone);
    CHECK(backward.run(p, seeded_batch(1, 2, 2, 23), &g).error ==
          "target[0]: is 2 × 2, the output is 3 × 2");
    CHECK(backward.run(p, seeded_batch(2, 3, 2, 23), &g).error ==
          "target: has 2 batch items, expected 1");
    // The first fully masked row, batch item by item, head by head: row 2 of item 2, head 2.
    attn::Problem heads;
    heads.queries = heads.keys = heads.values = seeded_batch(2, 3, 4, 24);
    heads.heads = 2;
    heads.mask.mask_value = -INFINITY;
    heads.mask.cells = {{1, 1, 0}, {1, 1, 1}, {1, 1, 2}};
    CHECK(backward.run(heads, seeded_batch(2, 3, 4, 25), &g).error ==
          "grad: row 2 of batch item 2 in head 1 is fully masked under -inf: its weights are "
          "undefined (NaN), and so is their gradient");
    heads.mask.mask_value = -1e6f;  // the same row under a finite mask: uniform, no gradient
    CHECK(backward.run(heads, seeded_batch(2, 3, 4, 25), &g).error == "");
    p.scoring = attn::Scoring::kGeneral;  // invalid: general scoring needs W
    CHECK(backward.run(p, target, &g).error == "W: general scoring needs W (d_q × d_k per head)");
    p.scoring = attn::Scoring::kScaledDot;
  }
}

TEST_CASE(
    "hard attention, straight through: the one-hot forward, and the gradient of the softmax in "
    "its place, for every scoring and mask",
    "[core][grad]") {
  // The estimator's definition, checked by central differences: the surrogate forward whose
  // weights are one-hot + softmax − (the softmax at the point) equals the hard forward there,
  // and its derivative is what the straight-through backward must give, for every weight and
  // input. (The hard forward's own derivative is 0 or undefined in the scores, so it cannot be.)
  struct Case {
    const char* name;
    attn::Scoring scoring;
    int heads;
    bool projections, causal, valid_lens, window, cells, pe;
    float dropout, mask_value;
  };
  // clang-format off
  const Case cases[] = {
      {"scaled dot, 2 heads, projections, causal, PE", attn::Scoring::kScaledDot, 2, true, true, false, false, false, true, 0.0f, -1e6f},
      {"dot, valid lengths under -inf", attn::Scoring::kDot, 1, false, false, true, false, false, false, 0.0f, -INFINITY},
      {"general, a window", attn::Scoring::kGeneral, 1, true, false, false, true, false, false, 0.0f, -1e6f},
      {"cosine, masked cells", attn::Scoring::kCosine, 1, false, false, false, false, true, false, 0.0f, -1e6f},
      {"additive, valid lengths", attn::Scoring::kAdditive, 1, false, false, true, false, false, false, 0.0f, -1e6f},
      {"scaled dot with dropout 0.25", attn::Scoring::kScaledDot, 1, true, false, false, false, false, false, 0.25f, -1e6f},
  };
  // clang-format on
  for (const Case& c : cases) {
    INFO(c.name);
    const int B = 2, n = 4, d = 4, d_model = 4;
    attn::Problem p;
    p.queries = p.keys = p.values = seeded_batch(B, n, d, 31);
    p.scoring = c.scoring;
    p.heads = c.heads;
    p.temperature = 0.8f;
    p.positional_encoding = c.pe;
    p.hard = true;
    p.hard_gradient = attn::HardGradient::kStraightThrough;
    p.mask.causal = c.causal;
    p.mask.mask_value = c.mask_value;
    if (c.valid_lens) p.mask.valid_lens = {{3}, {2}};
    if (c.window) p.mask.window = 1;
    if (c.cells) p.mask.cells = {{0, 1, 2}, {1, 3, 0}};
    if (c.dropout > 0.0f) p.dropout_p = c.dropout, p.dropout_seed = 3;
    if (c.projections) {
      p.weights.W_q = seeded(d, d_model, 32);
      p.weights.W_k = seeded(d, d_model, 33);
      p.weights.W_v = seeded(d, d_model, 34);
      p.weights.W_o = seeded(d_model, d_model, 35);
    }
    const int head_d = (c.projections ? d_model : d) / c.heads;
    if (p.scoring == attn::Scoring::kGeneral) p.weights.W = seeded(head_d, head_d, 36);
    if (p.scoring == attn::Scoring::kAdditive) {
      p.weights.W_q = seeded(d, 5, 37);
      p.weights.W_k = seeded(d, 5, 38);
      p.weights.w_v = seeded(5, 1, 39).col(0);
    }
    REQUIRE(attn::validate(p).ok());
    const attn::Trace t = attn::run(p);
    // The forward is hard: every row's weights are one-hot (times dropout's factor).
    for (const attn::HeadTrace& ht : t.heads)
      for (const attn::Matrix& w : ht.weights)
        for (int i = 0; i < w.rows(); ++i) CHECK((w.row(i).array() != 0.0f).count() <= 1);
    attn::Batch target;
    for (size_t b = 0; b < t.output.size(); ++b)
      target.push_back(seeded(static_cast<int>(t.output[b].rows()),
                              static_cast<int>(t.output[b].cols()), 40 + b));
    // The softmax at the point, which the surrogate subtracts.
    const ref::Trace at = ref::run(p);
    std::vector<ref::Bat> soft0;
    for (const ref::Head& h : at.heads) soft0.push_back(h.soft);
    CHECK(loss_of(p, target, &soft0) == Approx(loss_of(p, target)).epsilon(1e-12));
    for (const Backward& backward : kBackwards) {
      INFO(backward.name);
      attn::Gradients g;
      REQUIRE(backward.run(p, target, &g).error == "");
      CHECK(g.loss == Approx(loss_of(p, target)).epsilon(1e-5));
      // Self-attention: queries, keys and values are one x, so its gradient is their sum.
      for (int b = 0; b < B; ++b) {
        attn::Problem moved = p;
        const attn::MatrixD gx = g.queries[b] + g.keys[b] + g.values[b];
        attn::Matrix x = p.queries[b];
        for (int i = 0; i < x.rows(); ++i)
          for (int j = 0; j < x.cols(); ++j) {
            const float x0 = x(i, j), up = x0 + 1e-3f, down = x0 - 1e-3f;
            const auto at_x = [&](float v) {
              attn::Matrix m = x;
              m(i, j) = v;
              moved.queries.mut(b) = moved.keys.mut(b) = moved.values.mut(b) = m;
              return loss_of(moved, target, &soft0);
            };
            const double fd =
                (at_x(up) - at_x(down)) / (static_cast<double>(up) - static_cast<double>(down));
            INFO("x[" << b << "](" << i << ", " << j << "): analytic " << gx(i, j)
                      << ", finite difference " << fd);
            CHECK(std::fabs(gx(i, j) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
          }
      }
      attn::Problem q = p;
      if (c.projections) {
        check_all(q, target, &q.weights.W_q, g.W_q, "W_q", &soft0);
        check_all(q, target, &q.weights.W_k, g.W_k, "W_k", &soft0);
        check_all(q, target, &q.weights.W_v, g.W_v, "W_v", &soft0);
        check_all(q, target, &q.weights.W_o, g.W_o, "W_o", &soft0);
      }
      if (p.scoring == attn::Scoring::kGeneral)
        check_all(q, target, &q.weights.W, g.W, "W", &soft0);
      if (p.scoring == attn::Scoring::kAdditive) {
        check_all(q, target, &q.weights.W_q, g.W_q, "the scorer's W_q", &soft0);
        check_all(q, target, &q.weights.W_k, g.W_k, "the scorer's W_k", &soft0);
      }
      // The scores' side is not zero: the estimator passes a gradient the argmax does not.
      if (c.projections) CHECK(g.W_q.cwiseAbs().maxCoeff() > 1e-6);
    }
  }
}

TEST_CASE("numbers past float32 are refused as overflows, not blamed on a -inf mask",
          "[core][grad]") {
  // Scores of 1e30 × 1e30 overflow. No row is fully masked under -inf here, so the gradient
  // must not say so; it says what happened, and a real -inf row still says that.
  attn::Problem p;
  attn::Matrix x(2, 2);
  x << 1e30f, 1e30f, 1e30f, -1e30f;
  p.queries = p.keys = p.values = {x};
  const attn::Batch target = seeded_batch(1, 2, 2, 26);
  for (const Backward& backward : kBackwards) {
    INFO(backward.name);
    attn::Gradients g;
    CHECK(backward.run(p, target, &g).error ==
          "grad: the score of row 1 and key 1 of batch item 1 is not finite: the numbers "
          "overflow float32");
    attn::Problem masked = p;  // under -inf, with keys masked: the overflow is still named
    masked.mask.mask_value = -INFINITY;
    masked.mask.causal = true;
    CHECK(backward.run(masked, target, &g).error ==
          "grad: the score of row 1 and key 1 of batch item 1 is not finite: the numbers "
          "overflow float32");
    // Finite scores with an output past float32 (values of 3e38 averaged with W_o of 10).
    attn::Problem out;
    out.queries = out.keys = seeded_batch(1, 2, 2, 27);
    attn::Matrix v(2, 2);
    v << 3e38f, 3e38f, 3e38f, 3e38f;
    out.values = {v};
    out.weights.W_o = attn::Matrix::Constant(2, 2, 10.0f);
    CHECK(backward.run(out, target, &g).error ==
          "grad: the output of row 1 of batch item 1 is not finite: the numbers overflow float32");
    // Finite everywhere forward, but the gradients overflow: check_finite says which (what
    // attention-cli grad checks before it prints them), in both.
    attn::Problem big;
    big.queries = big.keys = seeded_batch(1, 2, 2, 28);
    big.values = {attn::Matrix::Constant(2, 2, 1.0f)};
    big.weights.W_o = attn::Matrix::Constant(2, 2, 1e30f);
    const attn::Batch far = {attn::Matrix::Constant(2, 2, -3e38f)};
    REQUIRE(backward.run(big, far, &g).error == "");
    CHECK(attn::check_finite(g).error ==
          "grad: the gradient of the inputs is not finite: it overflows float32");
  }
}

TEST_CASE("the optimizer learns gaussian scoring's σ and keeps it above 0, at most 1000",
          "[core][grad][gaussian]") {
  // Kernel regression: one column of points, their own cells masked, σ the only weight.
  attn::Problem p;
  p.scoring = attn::Scoring::kGaussian;
  attn::Matrix x(8, 1), y(8, 1);
  for (int i = 0; i < 8; ++i) {
    x(i, 0) = 0.5f * static_cast<float>(i);
    y(i, 0) = std::sin(x(i, 0)) + (i % 2 ? 0.1f : -0.1f);
  }
  p.queries = p.keys = attn::Batch{x};
  p.values = attn::Batch{y};
  for (int i = 0; i < 8; ++i) p.mask.cells.push_back({0, i, i});
  p.weights.sigma = 2.0f;
  const attn::Batch target{y};
  for (const auto kind : {attn::Optimizer::Kind::kSgd, attn::Optimizer::Kind::kAdam}) {
    attn::Problem q = p;
    attn::Optimizer opt;
    opt.kind = kind;
    opt.lr = 0.05;
    double first = 0.0, loss = 0.0;
    attn::Gradients g;
    REQUIRE(attn::gradients(q, target, &g).ok());
    CHECK(g.sigma > 0.0);  // too wide: narrowing helps
    // 10 steps: these points are best predicted by their nearest neighbours (σ near 0), so
    // that with many more SGD steps one would try to take σ below 0 (refused, below).
    for (int k = 0; k < 10; ++k) {
      REQUIRE(opt.step(&q, target, &loss).error == "");
      if (k == 0) first = loss;
    }
    CHECK(q.weights.sigma < 2.0f);
    CHECK(q.weights.sigma > 0.0f);
    CHECK(loss < first);
    if (kind == attn::Optimizer::Kind::kSgd) {  // the first step is −lr·∂L/∂σ exactly
      attn::Problem one = p;
      attn::Optimizer sgd;
      sgd.lr = 0.05;
      REQUIRE(sgd.step(&one, target, &loss).ok());
      CHECK(one.weights.sigma == static_cast<float>(2.0 - 0.05 * g.sigma));
    }
  }
  // A step that would take σ to 0 or below is refused, changing nothing.
  attn::Optimizer big;
  big.lr = 10000.0;
  attn::Problem q = p;
  double loss = 0.0;
  attn::Gradients g;
  REQUIRE(attn::gradients(q, target, &g).ok());
  REQUIRE(2.0 - 10000.0 * g.sigma < 0.0);
  char to[32];
  std::snprintf(to, sizeof to, "%.3g",
                static_cast<double>(static_cast<float>(2.0 - 10000.0 * g.sigma)));
  CHECK(big.step(&q, target, &loss).error == std::string("train: step 1 would take sigma to ") +
                                                 to + ", outside (0, 1000] (the learning rate " +
                                                 "10000 is too large)");
  CHECK(q.weights.sigma == 2.0f);
  CHECK(big.steps == 0);
  // σ alone is a weight to learn; other scorings leave it as it is.
  attn::Problem dot = p;
  dot.scoring = attn::Scoring::kDot;
  attn::Optimizer none;
  CHECK(none.step(&dot, target, &loss).error ==
        "train: the scenario has no weights to learn (give \"init\" or W_q, W_k, W_v)");
}

TEST_CASE("a training step that would take a weight past float32 is refused, changing nothing",
          "[core][grad]") {
  attn::Problem p;
  p.queries = p.keys = p.values = seeded_batch(1, 4, 3, 29);
  p.weights.W_q = seeded(3, 4, 30);
  p.weights.W_k = seeded(3, 4, 31);
  p.weights.W_v = seeded(3, 4, 32);
  const attn::Batch target = seeded_batch(1, 4, 4, 33);
  attn::Optimizer opt;
  opt.lr = 1e300;
  const attn::Problem before = p;
  double loss = 0.0;
  CHECK(opt.step(&p, target, &loss).error ==
        "train: step 1 would take W_q past float32's range (the learning rate 1e+300 is too "
        "large)");
  CHECK(p.weights.W_q == before.weights.W_q);
  CHECK(p.weights.W_v == before.weights.W_v);
  CHECK(opt.steps == 0);
  opt.lr = 0.1;  // the same optimizer goes on as if the refused step had not been asked for
  REQUIRE(opt.step(&p, target, &loss).error == "");
  attn::Optimizer fresh;
  attn::Problem q = before;
  REQUIRE(fresh.step(&q, target, &loss).error == "");
  CHECK(p.weights.W_q == q.weights.W_q);
  CHECK(opt.steps == 1);
}

TEST_CASE("the steps' gradients agree with finite differences and with the inputs' gradients",
          "[core][grad]") {
  // Two heads, a causal mask and -1e6, so masked cells are in every head; once with dropout.
  for (const float dropout : {0.0f, 0.3f}) {
    INFO("dropout " << dropout);
    attn::Problem p;
    p.queries = p.keys = p.values = seeded_batch(2, 5, 4, 41);
    p.heads = 2;
    p.temperature = 0.7f;
    p.mask.causal = true;
    p.dropout_p = dropout;
    p.dropout_seed = 9;
    const attn::Batch target = seeded_batch(2, 5, 4, 42);
    const attn::Trace t = attn::run(p);
    std::vector<attn::StepGradients> steps;  // head by head, batch item by batch item
    for (int h = 0; h < 2; ++h)
      for (int b = 0; b < 2; ++b) {
        attn::StepGradients s;
        REQUIRE(attn::step_gradients(p, t, target, h, b, &s).error == "");
        steps.push_back(s);
      }
    // scaled = scores·c/T, so ∂L/∂T = −Σ (∂L/∂scaled ⊙ scaled) / T over every head and item:
    // against a central difference of the float64 reference in T.
    double analytic = 0.0;
    for (int h = 0; h < 2; ++h)
      for (int b = 0; b < 2; ++b) {
        const attn::StepGradients& s = steps[h * 2 + b];
        const attn::MatrixD scaled = t.heads[h].scaled[b].cast<double>();
        analytic -= s.scaled.cwiseProduct(scaled).sum() / p.temperature;
        // The raw scores' gradient is the scaled one times the scale; masked cells pass none.
        CHECK((s.scores - s.scaled * attn::head_shape(p).scale).cwiseAbs().maxCoeff() <= 1e-15);
        for (int i = 0; i < 5; ++i)
          for (int j = i + 1; j < 5; ++j) CHECK(s.scaled(i, j) == 0.0);
        // The weights' gradient is the head output's times the values: dA = dO·vᵀ.
        const attn::MatrixD dA = s.output * t.heads[h].v[b].cast<double>().transpose();
        CHECK((s.weights - dA).cwiseAbs().maxCoeff() <= 1e-12);
      }
    attn::Problem up = p, down = p;
    up.temperature = p.temperature + 1e-3f;
    down.temperature = p.temperature - 1e-3f;
    const double fd = (loss_of(up, target) - loss_of(down, target)) /
                      (static_cast<double>(up.temperature) - down.temperature);
    INFO("dL/dT: analytic " << analytic << ", finite difference " << fd);
    CHECK(std::fabs(analytic - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
    // Without projections the values' gradient is Σ_h (weights used)ᵀ·dO, in the head's columns.
    attn::Gradients g;
    REQUIRE(attn::gradients_reference(p, target, &g).error == "");
    for (int b = 0; b < 2; ++b) {
      attn::MatrixD dV = attn::MatrixD::Zero(5, 4);
      for (int h = 0; h < 2; ++h)
        dV.middleCols(h * 2, 2) +=
            t.heads[h].weights[b].cast<double>().transpose() * steps[h * 2 + b].output;
      // (the trace's weights are float32; the reference's own are float64)
      CHECK((dV - g.values[b]).cwiseAbs().maxCoeff() <= 1e-6 * g.values[b].cwiseAbs().maxCoeff());
    }
  }
  attn::Problem p;
  p.queries = p.keys = p.values = seeded_batch(1, 3, 2, 43);
  const attn::Trace t = attn::run(p);
  attn::StepGradients s;
  CHECK(attn::step_gradients(p, t, seeded_batch(1, 3, 2, 44), 1, 0, &s).error ==
        "grad: head 2 does not exist");
  CHECK(attn::step_gradients(p, t, seeded_batch(1, 3, 2, 44), 0, 0, &s).error == "");
  CHECK(attn::step_gradients(p, t, seeded_batch(1, 2, 2, 44), 0, 0, &s).error ==
        "target[0]: is 2 × 2, the output is 3 × 2");
}

//-----------------------------------------------------------------------------
// The float32 backward against the float64 one
//-----------------------------------------------------------------------------

namespace {

// float32 against float64, element by element: |f32 − f64| <= 1e-3·|f64| + floor, where the
// floor is 1e-5 × the largest |f64| of any gradient of the problem (inputs and weights) plus
// 1e-12. The floor covers elements that are small because their terms cancel: their float32
// error is a few ulps of the terms, not of the result (cosine scoring of one input feature
// projected to several is scale-invariant: its input gradients are exactly 0, and both
// backward passes return rounding noise there, 1e-10 in float64, 1e-8 in float32).
constexpr double kRelative = 1e-3;
constexpr double kFloor = 1e-5;

struct GapStats {
  double worst_relative = 0.0;  // over elements above 100 × the floor
  std::string where_relative = "none";
  double worst_of_max = 0.0;  // |f32 − f64| / the largest |f64| of the problem's gradients
  int64_t elements = 0;
};

GapStats g_gaps;
std::string g_case;  // the problem being compared, for GapStats::where_relative

void check_close(const std::vector<const attn::MatrixD*>& got,
                 const std::vector<const attn::MatrixD*>& want, double largest,
                 const std::string& name) {
  REQUIRE(got.size() == want.size());
  const double floor = kFloor * largest + 1e-12;
  double worst = 0.0;
  std::string where = "none";
  for (size_t b = 0; b < got.size(); ++b) {
    REQUIRE(got[b]->rows() == want[b]->rows());
    REQUIRE(got[b]->cols() == want[b]->cols());
    for (int i = 0; i < want[b]->rows(); ++i)
      for (int j = 0; j < want[b]->cols(); ++j) {
        const double g = (*got[b])(i, j), w = (*want[b])(i, j);
        REQUIRE(std::isfinite(g));
        const double gap = std::fabs(g - w);
        const double allowed = kRelative * std::fabs(w) + floor;
        ++g_gaps.elements;
        if (largest > 0.0) g_gaps.worst_of_max = std::max(g_gaps.worst_of_max, gap / largest);
        std::ostringstream os;
        os << g_case << ": " << name << "[" << b << "](" << i << ", " << j << "): float32 " << g
           << ", float64 " << w;
        if (std::fabs(w) > 100.0 * floor && gap / std::fabs(w) > g_gaps.worst_relative) {
          g_gaps.worst_relative = gap / std::fabs(w);
          g_gaps.where_relative = os.str();
        }
        if (gap / allowed > worst) {
          worst = gap / allowed;
          where = os.str();
        }
      }
  }
  INFO("worst: " << where << " (gap / allowed = " << worst << ")");
  CHECK(worst <= 1.0);
}

std::vector<const attn::MatrixD*> all(const attn::BatchD& x) {
  std::vector<const attn::MatrixD*> out;
  for (const attn::MatrixD& m : x) out.push_back(&m);
  return out;
}

void compare_backwards(const attn::Problem& p, const attn::Batch& target) {
  attn::Gradients f32, f64;
  const attn::Status s32 = attn::gradients(p, target, &f32);
  const attn::Status s64 = attn::gradients_reference(p, target, &f64);
  REQUIRE(s64.error == "");
  REQUIRE(s32.error == "");
  CHECK(f32.loss == Approx(f64.loss).epsilon(1e-12));
  const attn::MatrixD w_v32 = f32.w_v, w_v64 = f64.w_v;
  const std::pair<const attn::MatrixD*, const attn::MatrixD*> weights[] = {
      {&f32.W_q, &f64.W_q}, {&f32.W_k, &f64.W_k}, {&f32.W_v, &f64.W_v},
      {&f32.W_o, &f64.W_o}, {&f32.W, &f64.W},     {&w_v32, &w_v64}};
  const char* names[] = {"W_q", "W_k", "W_v", "W_o", "W", "w_v"};
  double largest = 0.0;
  for (const attn::BatchD* x : {&f64.queries, &f64.keys, &f64.values})
    for (const attn::MatrixD& m : *x) largest = std::max(largest, m.cwiseAbs().maxCoeff());
  for (const auto& w : weights)
    if (w.second->size()) largest = std::max(largest, w.second->cwiseAbs().maxCoeff());
  check_close(all(f32.queries), all(f64.queries), largest, "queries");
  check_close(all(f32.keys), all(f64.keys), largest, "keys");
  check_close(all(f32.values), all(f64.values), largest, "values");
  for (int k = 0; k < 6; ++k) {
    CHECK(weights[k].first->size() == weights[k].second->size());
    if (weights[k].second->size())
      check_close({weights[k].first}, {weights[k].second}, largest, names[k]);
  }
  // Gaussian scoring's σ, held to the same bound as the other weights (0 in both otherwise).
  const attn::MatrixD sigma32 = attn::MatrixD::Constant(1, 1, f32.sigma);
  const attn::MatrixD sigma64 = attn::MatrixD::Constant(1, 1, f64.sigma);
  check_close({&sigma32}, {&sigma64}, std::max(largest, std::fabs(f64.sigma)), "sigma");
  if (p.scoring != attn::Scoring::kGaussian) CHECK((f32.sigma == 0.0 && f64.sigma == 0.0));
}

// One problem of the sweep: scoring s, n queries (n_k keys), d input features, and variant v
// choosing heads, projections, W_o, masks, PE, temperature and dropout.
struct Sweep {
  std::string name;
  attn::Problem p;
};

Sweep sweep_problem(attn::Scoring s, int n, int d, int v) {
  using attn::Scoring;
  std::ostringstream name;
  name << attn::scoring_name(s) << ", n " << n << ", d " << d << ", variant " << v << ": ";
  attn::Problem p;
  p.scoring = s;
  if (s == Scoring::kGaussian) p.weights.sigma = 0.6f + 0.3f * v;  // 0.6 to 2.1
  const bool cross = v == 3 || v == 5;
  const int B = v == 2 || v == 4 || v == 5 ? 2 : 1;
  const int n_k = cross ? n + 2 : n;
  const uint64_t seed = 1000 * v + 10 * n + d + 7 * static_cast<int>(s);
  p.queries = seeded_batch(B, n, d, seed);
  p.keys = cross ? seeded_batch(B, n_k, d, seed + 1) : p.queries;
  p.values = cross ? seeded_batch(B, n_k, d + 1, seed + 2) : p.queries;
  // Heads, projections (d_model 6 divides by 1, 2 and 3) and W_o.
  const bool additive = s == Scoring::kAdditive;
  const bool project = v == 1 || v == 2 || v == 4;
  const bool w_o = v == 2 || v == 3;
  const int d_model = project ? 6 : d;
  int heads = 1;
  if (v == 1 || v == 4) heads = 2;
  if (v == 2) heads = 3;
  if (v == 0 && d % 3 == 0) heads = 3;
  if (v == 0 && d % 2 == 0) heads = 2;
  if (additive || d_model % heads != 0) heads = 1;
  p.heads = heads;
  if (additive) {
    const int hidden = project ? 6 : 5;
    p.weights.W_q = 0.6f * seeded(d, hidden, seed + 3);
    p.weights.W_k = 0.6f * seeded(d, hidden, seed + 4);
    p.weights.w_v = seeded(hidden, 1, seed + 5).col(0);
    if (project) p.weights.W_v = seeded(d, d_model, seed + 6);
    name << "hidden " << hidden << ", ";
  } else if (project) {
    p.weights.W_q = seeded(d, d_model, seed + 3);
    p.weights.W_k = seeded(d, d_model, seed + 4);
    p.weights.W_v = seeded(d, d_model, seed + 6);
    name << "projections to " << d_model << ", ";
  }
  const int dv_model = project ? d_model : attn::batch_cols(p.values);
  if (w_o) {
    p.weights.W_o = seeded(dv_model, 5, seed + 7);
    name << "W_o, ";
  }
  if (s == Scoring::kGeneral) {
    const int head = d_model / heads;
    p.weights.W = seeded(head, head, seed + 8);
  }
  name << heads << " head(s), ";
  switch (v) {
    case 0:
      name << "no mask, temperature 0.7";
      p.temperature = 0.7f;
      break;
    case 1:
      name << "causal under -inf, PE";
      p.mask.causal = true;
      p.mask.mask_value = -std::numeric_limits<float>::infinity();
      p.positional_encoding = true;
      break;
    case 2:
      name << "window 1 and cells under -1e6, PE, temperature 1.3";
      p.mask.window = 1;
      p.mask.cells = {{0, 0, 0}, {1, n - 1, std::max(0, n - 2)}, {1, n / 2, n / 2}};
      p.positional_encoding = true;
      p.temperature = 1.3f;
      break;
    case 3:
      name << "cross-attention, per-query valid lengths under -inf";
      p.mask.mask_value = -std::numeric_limits<float>::infinity();
      p.mask.valid_lens = {std::vector<int>(n)};
      for (int i = 0; i < n; ++i) p.mask.valid_lens[0][i] = 1 + (i * 5) % n_k;
      break;
    case 4:
      name << "dropout 0.3, padding with a fully masked row (-1e6)";
      p.dropout_p = 0.3f;
      p.dropout_seed = 11;
      p.mask.valid_lens = {{std::max(1, n - 2)}, std::vector<int>(n, n)};
      p.mask.valid_lens[1][n / 2] = 0;  // uniform row, no gradient
      break;
    case 5:
      name << "cross-attention, cells under -inf, window 2, dropout 0.1";
      p.mask.mask_value = -std::numeric_limits<float>::infinity();
      p.mask.window = 2;
      p.mask.cells = {{0, 0, 1}, {1, n - 1, n - 1}};  // every row keeps a visible key
      p.dropout_p = 0.1f;
      p.dropout_seed = 3;
      break;
  }
  return {name.str(), p};
}

}  // namespace

TEST_CASE("the float32 gradients agree with the float64 reference at edge sizes",
          "[core][grad][f32]") {
  g_gaps = GapStats{};
  int problems = 0;
  for (attn::Scoring s : attn::kScorings)
    for (int n : {1, 2, 15, 16, 17, 33})
      for (int d : {1, 3, 16, 17})
        for (int v = 0; v < 6; ++v) {
          const Sweep c = sweep_problem(s, n, d, v);
          INFO(c.name);
          g_case = c.name;
          REQUIRE(attn::validate(c.p).error == "");
          const attn::Trace t = attn::run(c.p);
          attn::Batch target;
          for (size_t b = 0; b < t.output.size(); ++b)
            target.push_back(seeded(static_cast<int>(t.output[b].rows()),
                                    static_cast<int>(t.output[b].cols()), 50 + b));
          compare_backwards(c.p, target);
          ++problems;
        }
  // What the sweep saw, for the record (shown with -s).
  INFO("largest relative gap (elements above 100 × the floor): " << g_gaps.worst_relative << " at "
                                                                 << g_gaps.where_relative);
  INFO("largest gap / the largest |f64| of its problem's gradients: " << g_gaps.worst_of_max);
  INFO(problems << " problems, " << g_gaps.elements << " gradient elements");
  CHECK(problems == static_cast<int>(std::size(attn::kScorings)) * 6 * 4 * 6);
  CHECK(g_gaps.worst_relative <= kRelative);
}

TEST_CASE("the float32 gradients agree with the float64 reference on special problems",
          "[core][grad][f32]") {
  g_gaps = GapStats{};
  std::vector<std::pair<std::string, attn::Problem>> cases;
  {  // Cosine scoring with a zero query and a zero key: they score 0, their gradient is 0.
    attn::Problem p;
    p.scoring = attn::Scoring::kCosine;
    p.queries = seeded_batch(1, 5, 3, 61);
    p.keys = seeded_batch(1, 6, 3, 62);
    p.values = seeded_batch(1, 6, 2, 63);
    p.queries.mut(0).row(2).setZero();
    p.keys.mut(0).row(4).setZero();
    p.mask.window = 2;
    cases.push_back({"cosine with zero rows, window 2", p});
  }
  {  // A finite mask value whose base-2 form would overflow, and a fully masked row under it.
    attn::Problem p;
    p.queries = p.keys = p.values = seeded_batch(2, 7, 4, 64);
    p.heads = 2;
    p.mask.mask_value = -3e38f;
    p.mask.valid_lens = {{0}, {3}};
    cases.push_back({"mask value -3e38, a fully masked item", p});
  }
  {  // Large scores: a peaked softmax, where dA − Σ A·dA cancels.
    attn::Problem p;
    p.scoring = attn::Scoring::kDot;
    p.queries = p.keys = p.values = seeded_batch(1, 17, 16, 65);
    for (size_t b = 0; b < p.queries.size(); ++b) p.queries.mut(b) *= 3.0f;
    p.keys = p.values = p.queries;
    p.temperature = 0.5f;
    cases.push_back({"dot scores up to about 100", p});
  }
  {  // Additive scoring with padding under -inf, PE and dropout.
    attn::Problem p;
    p.scoring = attn::Scoring::kAdditive;
    p.queries = seeded_batch(2, 9, 3, 66);
    p.keys = p.values = seeded_batch(2, 11, 3, 67);
    p.weights.W_q = seeded(3, 7, 68);
    p.weights.W_k = seeded(3, 7, 69);
    p.weights.w_v = seeded(7, 1, 70).col(0);
    p.weights.W_o = seeded(3, 4, 71);
    p.mask.valid_lens = {{4}, {11}};
    p.mask.mask_value = -std::numeric_limits<float>::infinity();
    p.positional_encoding = true;
    p.dropout_p = 0.2f;
    p.dropout_seed = 4;
    cases.push_back({"additive, -inf padding, PE, dropout, W_o", p});
  }
  {  // Gaussian scoring, narrow: a peaked softmax over distances, 65 keys, two heads.
    attn::Problem p;
    p.scoring = attn::Scoring::kGaussian;
    p.queries = seeded_batch(1, 33, 4, 78);
    p.keys = p.values = seeded_batch(1, 65, 4, 79);
    p.heads = 2;
    p.weights.sigma = 0.3f;
    p.mask.window = 20;
    cases.push_back({"gaussian σ 0.3, 33 queries, 65 keys, window 20, two heads", p});
  }
  {  // n = 64 keys with two heads: every kernel path at a panel boundary and beyond.
    attn::Problem p;
    p.queries = seeded_batch(1, 33, 16, 72);
    p.keys = p.values = seeded_batch(1, 65, 16, 73);
    p.heads = 2;
    p.weights.W_q = seeded(16, 32, 74);
    p.weights.W_k = seeded(16, 32, 75);
    p.weights.W_v = seeded(16, 34, 76);
    p.weights.W_o = seeded(34, 17, 77);
    p.mask.cells = {{0, 0, 64}, {0, 32, 0}, {0, 16, 16}};
    cases.push_back({"33 queries, 65 keys, d_model 32, W_v to 34, W_o to 17", p});
  }
  for (const auto& [name, p] : cases) {
    INFO(name);
    g_case = name;
    REQUIRE(attn::validate(p).error == "");
    const attn::Trace t = attn::run(p);
    attn::Batch target;
    for (size_t b = 0; b < t.output.size(); ++b)
      target.push_back(seeded(static_cast<int>(t.output[b].rows()),
                              static_cast<int>(t.output[b].cols()), 80 + b));
    compare_backwards(p, target);
  }
  {  // The output as its own target: the loss and every gradient are exactly 0 in both.
    attn::Problem p = cases[0].second;
    const attn::Batch target = attn::run(p).output;
    for (const Backward& backward : kBackwards) {
      INFO(backward.name);
      attn::Gradients g;
      REQUIRE(backward.run(p, target, &g).error == "");
      CHECK(g.loss == 0.0);
      CHECK(g.queries[0].cwiseAbs().maxCoeff() == 0.0);
      CHECK(g.keys[0].cwiseAbs().maxCoeff() == 0.0);
      CHECK(g.values[0].cwiseAbs().maxCoeff() == 0.0);
    }
  }
  INFO("largest relative gap (elements above 100 × the floor): " << g_gaps.worst_relative << " at "
                                                                 << g_gaps.where_relative);
  INFO("largest gap / the largest |f64| of its problem's gradients: " << g_gaps.worst_of_max);
  CHECK(g_gaps.worst_relative <= kRelative);
}

//-----------------------------------------------------------------------------
// Gumbel-softmax (HardGradient::kGumbel)
//-----------------------------------------------------------------------------

namespace {

// A problem of every scoring and mask kind the straight-through tests cover, with Gumbel's
// estimator (tau 0.7, seed 5).
struct GumbelCase {
  const char* name;
  attn::Scoring scoring;
  int heads;
  bool projections, causal, valid_lens, window, cells, pe;
  float dropout, mask_value;
};
// clang-format off
const GumbelCase kGumbelCases[] = {
    {"scaled dot, 2 heads, projections, causal, PE", attn::Scoring::kScaledDot, 2, true, true, false, false, false, true, 0.0f, -1e6f},
    {"dot, valid lengths under -inf", attn::Scoring::kDot, 1, false, false, true, false, false, false, 0.0f, -INFINITY},
    {"general, a window", attn::Scoring::kGeneral, 1, true, false, false, true, false, false, 0.0f, -1e6f},
    {"cosine, masked cells", attn::Scoring::kCosine, 1, false, false, false, false, true, false, 0.0f, -1e6f},
    {"additive, valid lengths", attn::Scoring::kAdditive, 1, false, false, true, false, false, false, 0.0f, -1e6f},
    {"scaled dot with dropout 0.25", attn::Scoring::kScaledDot, 1, true, false, false, false, false, false, 0.25f, -1e6f},
};
// clang-format on

attn::Problem gumbel_problem(const GumbelCase& c, bool soft) {
  const int B = 2, n = 4, d = 4, d_model = 4;
  attn::Problem p;
  p.queries = p.keys = p.values = seeded_batch(B, n, d, 31);
  p.scoring = c.scoring;
  p.heads = c.heads;
  p.temperature = 0.8f;
  p.positional_encoding = c.pe;
  p.hard = true;
  p.hard_gradient = attn::HardGradient::kGumbel;
  p.gumbel_tau = 0.7f;
  p.gumbel_seed = 5;
  p.gumbel_soft = soft;
  p.mask.causal = c.causal;
  p.mask.mask_value = c.mask_value;
  if (c.valid_lens) p.mask.valid_lens = {{3}, {2}};
  if (c.window) p.mask.window = 1;
  if (c.cells) p.mask.cells = {{0, 1, 2}, {1, 3, 0}};
  if (c.dropout > 0.0f) p.dropout_p = c.dropout, p.dropout_seed = 3;
  if (c.projections) {
    p.weights.W_q = seeded(d, d_model, 32);
    p.weights.W_k = seeded(d, d_model, 33);
    p.weights.W_v = seeded(d, d_model, 34);
    p.weights.W_o = seeded(d_model, d_model, 35);
  }
  const int head_d = (c.projections ? d_model : d) / c.heads;
  if (p.scoring == attn::Scoring::kGeneral) p.weights.W = seeded(head_d, head_d, 36);
  if (p.scoring == attn::Scoring::kAdditive) {
    p.weights.W_q = seeded(d, 5, 37);
    p.weights.W_k = seeded(d, 5, 38);
    p.weights.w_v = seeded(5, 1, 39).col(0);
  }
  return p;
}

attn::Batch target_of(const attn::Trace& t) {
  attn::Batch target;
  for (size_t b = 0; b < t.output.size(); ++b)
    target.push_back(
        seeded(static_cast<int>(t.output[b].rows()), static_cast<int>(t.output[b].cols()), 40 + b));
  return target;
}

}  // namespace

TEST_CASE("gumbel_noise is Gumbel-distributed, deterministic, and apart from dropout's draws",
          "[core][gumbel]") {
  double sum = 0.0, sum2 = 0.0, lo = 1e9, hi = -1e9;
  const int n = 40000;
  for (int k = 0; k < n; ++k) {
    const float g = attn::gumbel_noise(17, 0, 0, k / 200, k % 200, 1, 200, 200);
    CHECK(g == attn::gumbel_noise(17, 0, 0, k / 200, k % 200, 1, 200, 200));
    sum += g;
    sum2 += static_cast<double>(g) * g;
    lo = std::min(lo, static_cast<double>(g));
    hi = std::max(hi, static_cast<double>(g));
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK(mean == Approx(0.5772156649).margin(0.02));  // the Euler-Mascheroni constant
  CHECK(var == Approx(M_PI * M_PI / 6.0).margin(0.05));
  CHECK(lo >= -2.9);
  CHECK(hi <= 17.4);
  // The noise is −log(−log(u)) of the cell's own u: its inverse, exp(−exp(−g)), is in (0, 1)
  // and differs from dropout's draw of the same cell (a stream of its own).
  int same = 0;
  for (int j = 0; j < 200; ++j) {
    const double u =
        std::exp(-std::exp(-static_cast<double>(attn::gumbel_noise(3, 1, 0, 2, j, 2, 4, 200))));
    CHECK(u > 0.0);
    CHECK(u < 1.0);
    same += std::fabs(u - attn::dropout_draw(3, 1, 0, 2, j, 2, 4, 200)) < 1e-4;
  }
  CHECK(same < 5);
}

TEST_CASE(
    "Gumbel forward: the one-hot picks argmax(masked + noise), never a masked key, and soft is "
    "softmax((masked + noise) / tau), both as the float64 reference",
    "[core][gumbel]") {
  for (const GumbelCase& c : kGumbelCases) {
    for (const bool soft : {false, true}) {
      INFO(c.name << (soft ? ", soft" : ", one-hot"));
      const attn::Problem p = gumbel_problem(c, soft);
      REQUIRE(attn::validate(p).ok());
      const attn::Trace t = attn::run(p);
      const ref::Trace r = ref::run(p);
      const int B = static_cast<int>(t.output.size());
      for (int h = 0; h < p.heads; ++h)
        for (int b = 0; b < B; ++b) {
          const attn::Matrix& m = t.heads[h].masked[b];
          const attn::Matrix& w = t.heads[h].weights[b];
          const int n_q = static_cast<int>(m.rows()), n_k = static_cast<int>(m.cols());
          for (int i = 0; i < n_q; ++i) {
            INFO("head " << h << " b " << b << " i " << i);
            // The argmax of masked + noise over the visible keys, computed here.
            int best = -1;
            float best_y = 0.0f;
            for (int j = 0; j < n_k; ++j) {
              if (attn::is_masked(p.mask, b, i, j)) {
                CHECK(m(i, j) == p.mask.mask_value);  // the trace's masked scores: no noise
                continue;
              }
              const float y = m(i, j) + attn::gumbel_noise(5, h, b, i, j, B, n_q, n_k);
              if (best < 0 || y > best_y) best = j, best_y = y;
            }
            for (int j = 0; j < n_k; ++j) {
              INFO("key " << j);
              const double want = r.heads[h].weights[b][i][j];
              if (!soft && c.dropout == 0.0f) {
                CHECK(w(i, j) == (j == best ? 1.0f : 0.0f));
                CHECK(w(i, j) == want);
              } else {
                CHECK(std::fabs(w(i, j) - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
              }
              if (attn::is_masked(p.mask, b, i, j) && !soft) CHECK(w(i, j) == 0.0f);
            }
          }
        }
      // The same seed gives the same weights; another seed picks other keys somewhere.
      const attn::Trace again = attn::run(p);
      attn::Problem other = p;
      other.gumbel_seed = 6;
      const attn::Trace moved = attn::run(other);
      bool differs = false;
      for (int h = 0; h < p.heads; ++h)
        for (int b = 0; b < B; ++b) {
          CHECK(again.heads[h].weights[b] == t.heads[h].weights[b]);
          differs = differs || moved.heads[h].weights[b] != t.heads[h].weights[b];
        }
      CHECK(differs);
      // Without keeping the head matrices (the row blocks), the output is the same bits.
      attn::RunOptions light;
      light.keep_head_matrices = false;
      const attn::Trace l = attn::run(p, light);
      for (int b = 0; b < B; ++b) CHECK(l.output[b] == t.output[b]);
    }
  }
}

TEST_CASE(
    "Gumbel gradients: soft ones match central differences, straight-through ones the "
    "surrogate's, for every scoring and mask",
    "[core][grad][gumbel]") {
  for (const GumbelCase& c : kGumbelCases) {
    for (const bool soft : {true, false}) {
      INFO(c.name << (soft ? ", soft" : ", straight through"));
      const attn::Problem p = gumbel_problem(c, soft);
      REQUIRE(attn::check_gradient(p).ok());
      const attn::Trace t = attn::run(p);
      const attn::Batch target = target_of(t);
      // Straight through: the surrogate one-hot + softmax − (the softmax at the point), whose
      // derivative is the estimator's; soft: the forward itself.
      std::vector<ref::Bat> soft0;
      for (const ref::Head& h : ref::run(p).heads) soft0.push_back(h.soft);
      const std::vector<ref::Bat>* at = soft ? nullptr : &soft0;
      CHECK(loss_of(p, target, at) == Approx(loss_of(p, target)).epsilon(1e-12));
      for (const Backward& backward : kBackwards) {
        INFO(backward.name);
        attn::Gradients g;
        REQUIRE(backward.run(p, target, &g).error == "");
        CHECK(g.loss == Approx(loss_of(p, target)).epsilon(1e-5));
        for (int b = 0; b < 2; ++b) {
          attn::Problem moved = p;
          const attn::MatrixD gx = g.queries[b] + g.keys[b] + g.values[b];
          const attn::Matrix x = p.queries[b];
          for (int i = 0; i < x.rows(); ++i)
            for (int j = 0; j < x.cols(); ++j) {
              const float x0 = x(i, j), up = x0 + 1e-3f, down = x0 - 1e-3f;
              const auto at_x = [&](float v) {
                attn::Matrix m = x;
                m(i, j) = v;
                moved.queries.mut(b) = moved.keys.mut(b) = moved.values.mut(b) = m;
                return loss_of(moved, target, at);
              };
              const double fd =
                  (at_x(up) - at_x(down)) / (static_cast<double>(up) - static_cast<double>(down));
              INFO("x[" << b << "](" << i << ", " << j << "): analytic " << gx(i, j)
                        << ", finite difference " << fd);
              CHECK(std::fabs(gx(i, j) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
            }
        }
        attn::Problem q = p;
        if (c.projections) {
          check_all(q, target, &q.weights.W_q, g.W_q, "W_q", at);
          check_all(q, target, &q.weights.W_k, g.W_k, "W_k", at);
          check_all(q, target, &q.weights.W_v, g.W_v, "W_v", at);
          check_all(q, target, &q.weights.W_o, g.W_o, "W_o", at);
        }
        if (p.scoring == attn::Scoring::kGeneral) check_all(q, target, &q.weights.W, g.W, "W", at);
        if (p.scoring == attn::Scoring::kAdditive) {
          check_all(q, target, &q.weights.W_q, g.W_q, "the scorer's W_q", at);
          check_all(q, target, &q.weights.W_k, g.W_k, "the scorer's W_k", at);
        }
        if (c.projections) CHECK(g.W_q.cwiseAbs().maxCoeff() > 1e-6);
      }
      // The float32 pass against the float64 one.
      attn::Gradients f, d;
      REQUIRE(attn::gradients(p, target, &f).ok());
      REQUIRE(attn::gradients_reference(p, target, &d).ok());
      attn::for_each_weight(f, d, [&](const char* name, const auto& a, const auto& b) {
        INFO(name);
        REQUIRE(a.size() == b.size());
        if (a.size()) CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-3 * b.cwiseAbs().maxCoeff() + 1e-6);
      });
    }
  }
  // An invalid tau is refused by validate.
  attn::Problem p = gumbel_problem(kGumbelCases[0], false);
  for (const float tau : {0.0f, -1.0f, 101.0f, NAN, 1e-38f}) {
    p.gumbel_tau = tau;
    CHECK(attn::validate(p).error ==
          "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
          "inside float32) to 100");
  }
}

TEST_CASE("the optimizer's step k draws Gumbel's noise from seed + k, and keeps the seed",
          "[core][grad][train][gumbel]") {
  for (const bool soft : {false, true}) {
    INFO((soft ? "soft" : "straight through"));
    attn::Problem p = gumbel_problem(kGumbelCases[0], soft);
    const attn::Batch target = target_of(attn::run(p));
    attn::Optimizer opt;
    opt.kind = attn::Optimizer::Kind::kSgd;
    opt.lr = 0.1;
    double loss = 0.0;
    for (int k = 0; k < 2; ++k) REQUIRE(opt.step(&p, target, &loss).ok());
    CHECK(p.gumbel_seed == 5);
    // Step 2's gradient is a fresh one with seed 5 + 2 on the weights after two steps.
    attn::Problem fresh = p;
    fresh.gumbel_seed = 7;
    attn::Gradients g;
    REQUIRE(attn::gradients(fresh, target, &g).ok());
    attn::Problem stepped = p;
    REQUIRE(opt.step(&stepped, target, &loss).ok());
    CHECK(loss == g.loss);
    const attn::Matrix want = (p.weights.W_q.cast<double>() - 0.1 * g.W_q).cast<float>();
    CHECK(stepped.weights.W_q == want);
    // And not the one with the problem's own seed.
    attn::Gradients same_seed;
    REQUIRE(attn::gradients(p, target, &same_seed).ok());
    CHECK((same_seed.W_q - g.W_q).cwiseAbs().maxCoeff() > 0.0);
    // Training is deterministic: the same steps again give the same weights.
    attn::Problem a = gumbel_problem(kGumbelCases[0], soft), b = a;
    attn::Optimizer oa, ob;
    oa.kind = ob.kind = attn::Optimizer::Kind::kAdam;
    oa.lr = ob.lr = 0.05;
    for (int k = 0; k < 5; ++k) {
      double la = 0.0, lb = 0.0;
      REQUIRE(oa.step(&a, target, &la).ok());
      REQUIRE(ob.step(&b, target, &lb).ok());
      CHECK(la == lb);
    }
    CHECK(a.weights.W_q == b.weights.W_q);
  }
}
