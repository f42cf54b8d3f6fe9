// The backward pass (core/gradient.h) against central finite differences of the float64
// reference forward (reference.h), at small and odd sizes, with heads, projections, masks,
// temperature and positional encoding; and the cases it refuses, with their reasons.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

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

double loss_of(const attn::Problem& p, const attn::Batch& target) {
  const ref::Trace t = ref::run(p);
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
               const attn::MatrixD& grad, const std::string& name) {
  REQUIRE(grad.rows() == param->rows());
  REQUIRE(grad.cols() == param->cols());
  for (int i = 0; i < param->rows(); ++i)
    for (int j = 0; j < param->cols(); ++j) {
      const float x = (*param)(i, j);
      const float up = x + 1e-3f, down = x - 1e-3f;
      (*param)(i, j) = up;
      const double l_up = loss_of(p, target);
      (*param)(i, j) = down;
      const double l_down = loss_of(p, target);
      (*param)(i, j) = x;
      const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
      INFO(name << "(" << i << ", " << j << "): analytic " << grad(i, j) << ", finite difference "
                << fd);
      CHECK(std::fabs(grad(i, j) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
    }
}

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
    attn::Gradients g;
    const attn::Status st = attn::gradients(p, target, &g);
    REQUIRE(st.error == "");
    CHECK(g.loss == Approx(loss_of(p, target)).epsilon(1e-5));
    for (int b = 0; b < c.B; ++b) {
      check_all(p, target, &p.queries[b], g.queries[b], "queries");
      check_all(p, target, &p.keys[b], g.keys[b], "keys");
      check_all(p, target, &p.values[b], g.values[b], "values");
    }
    if (c.projections) {
      check_all(p, target, &p.weights.W_q, g.W_q, "W_q");
      check_all(p, target, &p.weights.W_k, g.W_k, "W_k");
      check_all(p, target, &p.weights.W_v, g.W_v, "W_v");
      check_all(p, target, &p.weights.W_o, g.W_o, "W_o");
    }
    if (p.scoring == attn::Scoring::kGeneral) check_all(p, target, &p.weights.W, g.W, "W");
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

TEST_CASE("masked cells pass no gradient to their keys", "[core][grad]") {
  attn::Problem p;
  p.queries = seeded_batch(1, 3, 2, 11);
  p.keys = seeded_batch(1, 4, 2, 12);
  p.values = seeded_batch(1, 4, 2, 13);
  p.mask.valid_lens = {{2}};  // keys 3 and 4 are padding
  const attn::Batch target = seeded_batch(1, 3, 2, 14);
  attn::Gradients g;
  REQUIRE(attn::gradients(p, target, &g).error == "");
  CHECK(g.keys[0].bottomRows(2).cwiseAbs().maxCoeff() == 0.0);
  CHECK(g.values[0].bottomRows(2).cwiseAbs().maxCoeff() == 0.0);
  CHECK(g.keys[0].topRows(2).cwiseAbs().maxCoeff() > 0.0);
}

TEST_CASE("what has no gradient yet is refused with its reason, never NaN", "[core][grad]") {
  attn::Problem p;
  p.queries = p.keys = p.values = seeded_batch(1, 3, 2, 21);
  const attn::Batch target = seeded_batch(1, 3, 2, 22);
  attn::Gradients g;
  p.mask.valid_lens = {{0}};
  p.mask.mask_value = -INFINITY;
  CHECK(attn::gradients(p, target, &g).error ==
        "grad: row 1 of batch item 1 is fully masked under -inf: its weights are undefined "
        "(NaN), and so is their gradient");
  p.mask = attn::MaskSpec{};
  p.hard = true;
  CHECK(attn::gradients(p, target, &g).error ==
        "grad: hard attention picks one key by argmax, which has no gradient");
  p.hard = false;
  CHECK(attn::gradients(p, seeded_batch(1, 2, 2, 23), &g).error ==
        "target[0]: is 2 × 2, the output is 3 × 2");
}
