// Layers on a residual stream (core/stack.h): the forward against a float64 forward of its own
// (ref::run_stack), both backward passes against central differences of it for every scoring
// and mask kind, the float32 pass against the float64 one, the refusals naming the layer, and
// the optimizer stepping every layer.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/gradient.h"
#include "core/stack.h"
#include "reference.h"

namespace {

attn::Matrix seeded(int rows, int cols, uint64_t seed, double scale = 1.0) {
  attn::Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      m(i, j) = static_cast<float>(
          scale * (2.0 * attn::uniform01(seed, static_cast<uint64_t>(i * cols + j)) - 1.0));
  return m;
}

attn::Batch seeded_batch(int B, int rows, int cols, uint64_t seed) {
  attn::Batch out;
  for (int b = 0; b < B; ++b) out.push_back(seeded(rows, cols, seed * 101 + b));
  return out;
}

double loss_of(const attn::Stack& s, const attn::Batch& target) {
  return ref::stack_loss(s, target);
}

// Every element of *param (a float matrix inside s) against a central difference.
void check_all(const attn::Stack& s, const attn::Batch& target, attn::Matrix* param,
               const attn::MatrixD& grad, const std::string& name) {
  REQUIRE(grad.rows() == param->rows());
  REQUIRE(grad.cols() == param->cols());
  for (int i = 0; i < param->rows(); ++i)
    for (int j = 0; j < param->cols(); ++j) {
      const float x = (*param)(i, j), up = x + 1e-3f, down = x - 1e-3f;
      (*param)(i, j) = up;
      const double l_up = loss_of(s, target);
      (*param)(i, j) = down;
      const double l_down = loss_of(s, target);
      (*param)(i, j) = x;
      const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
      INFO(name << "(" << i << ", " << j << "): analytic " << grad(i, j) << ", finite difference "
                << fd);
      CHECK(std::fabs(grad(i, j) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
    }
}

struct Case {
  const char* name;
  attn::Scoring scoring;
  int layers, heads, B, n, d;
  bool causal = false, pe = false;
  std::vector<std::vector<int>> valid_lens = {};
  int window = -1;
  float dropout = 0.0f;
  bool cells = false, minus_inf = false;
};

attn::Stack make_stack(const Case& c) {
  attn::Stack s;
  s.base.queries = seeded_batch(c.B, c.n, c.d, 1);
  s.base.keys = s.base.values = s.base.queries;
  s.base.scoring = c.scoring;
  s.base.temperature = 0.8f;
  s.base.positional_encoding = c.pe;
  s.base.mask.causal = c.causal;
  s.base.mask.valid_lens = c.valid_lens;
  s.base.mask.window = c.window;
  if (c.cells) s.base.mask.cells = {{0, 1, 0}, {0, 2, 1}};
  if (c.minus_inf) s.base.mask.mask_value = -std::numeric_limits<float>::infinity();
  if (c.dropout > 0.0f) {
    s.base.dropout_p = c.dropout;
    s.base.dropout_seed = 11;
  }
  for (int l = 0; l < c.layers; ++l) {
    attn::Layer layer;
    layer.heads = c.heads;
    const uint64_t k = 10 * static_cast<uint64_t>(l + 1);
    attn::Weights& w = layer.weights;
    if (c.scoring == attn::Scoring::kAdditive) {  // the scorer's own network, hidden 3
      w.W_q = seeded(c.d, 3, k + 1);
      w.W_k = seeded(c.d, 3, k + 2);
      w.w_v = seeded(3, 1, k + 3).col(0);
    } else {
      w.W_q = seeded(c.d, c.d, k + 1);
      w.W_k = seeded(c.d, c.d, k + 2);
    }
    if (c.scoring == attn::Scoring::kGeneral) w.W = seeded(c.d / c.heads, c.d / c.heads, k + 4);
    w.W_v = seeded(c.d, c.d, k + 5);
    w.W_o = seeded(c.d, c.d, k + 6, 0.7);
    s.layers.push_back(layer);
  }
  return s;
}

attn::Batch target_for(const attn::Stack& s) {
  attn::Batch target;
  const attn::Batch& x = s.base.queries;
  for (size_t b = 0; b < x.size(); ++b)
    target.push_back(seeded(static_cast<int>(x[b].rows()), static_cast<int>(x[b].cols()), 90 + b));
  return target;
}

// clang-format off
const Case kCases[] = {
    {"2 layers, scaled dot, 2 heads, causal, PE", attn::Scoring::kScaledDot, 2, 2, 2, 4, 4, true, true},
    {"3 layers, dot, valid lengths", attn::Scoring::kDot, 3, 1, 2, 3, 2, false, false, {{2}, {3}}},
    {"2 layers, general, 2 heads, window 1", attn::Scoring::kGeneral, 2, 2, 1, 4, 4, false, false, {}, 1},
    {"2 layers, cosine, masked cells", attn::Scoring::kCosine, 2, 1, 1, 3, 3, false, false, {}, -1, 0.0f, true},
    {"2 layers, additive, causal under -inf", attn::Scoring::kAdditive, 2, 1, 1, 3, 2, true, false, {}, -1, 0.0f, false, true},
    {"2 layers, scaled dot, dropout 0.25", attn::Scoring::kScaledDot, 2, 1, 1, 4, 2, false, false, {}, -1, 0.25f},
};
// clang-format on

}  // namespace

TEST_CASE("a stack's forward is the float64 forward, layer on layer", "[core][stack]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    const attn::Stack s = make_stack(c);
    REQUIRE(attn::validate(s).error == "");
    const attn::StackTrace t = attn::run(s);
    REQUIRE(t.stream.size() == s.layers.size() + 1);
    REQUIRE(t.layers.size() == s.layers.size());
    const ref::Bat want = ref::run_stack(s);
    for (size_t b = 0; b < want.size(); ++b)
      for (size_t i = 0; i < want[b].size(); ++i)
        for (size_t j = 0; j < want[b][i].size(); ++j)
          CHECK(t.output()[b](i, j) == Approx(want[b][i][j]).margin(1e-5));
    // Each state is the one before it plus what its layer added (the residual stream).
    for (size_t l = 0; l < s.layers.size(); ++l)
      for (size_t b = 0; b < want.size(); ++b)
        CHECK(t.stream[l + 1][b] == attn::Matrix(t.stream[l][b] + t.layers[l].output[b]));
  }
}

TEST_CASE("one layer is x plus the problem's output", "[core][stack]") {
  attn::Stack s = make_stack(kCases[0]);
  s.layers.resize(1);
  attn::Problem p = s.base;
  p.weights = s.layers[0].weights;
  p.heads = s.layers[0].heads;
  const attn::Trace one = attn::run(p);
  const attn::StackTrace t = attn::run(s);
  for (size_t b = 0; b < one.output.size(); ++b)
    CHECK(t.output()[b] == attn::Matrix(one.queries[b] + one.output[b]));
}

TEST_CASE("a stack's gradients match finite differences, both backward passes",
          "[core][stack][grad]") {
  using Fn = attn::Status (*)(const attn::Stack&, const attn::Batch&, attn::StackGradients*);
  const std::pair<const char*, Fn> passes[] = {
      {"float32 attn::gradients", attn::gradients},
      {"float64 attn::gradients_reference", attn::gradients_reference}};
  for (const Case& c : kCases) {
    INFO(c.name);
    attn::Stack s = make_stack(c);
    const attn::Batch target = target_for(s);
    for (const auto& [name, fn] : passes) {
      INFO(name);
      attn::StackGradients g;
      REQUIRE(fn(s, target, &g).error == "");
      REQUIRE(attn::check_finite(g).error == "");
      CHECK(g.loss == Approx(loss_of(s, target)).epsilon(1e-5));
      REQUIRE(g.layers.size() == s.layers.size());
      for (int b = 0; b < c.B; ++b) check_all(s, target, &s.base.queries.mut(b), g.x[b], "x");
      // x is queries, keys and values at once: keep them one batch.
      s.base.keys = s.base.values = s.base.queries;
      for (size_t l = 0; l < s.layers.size(); ++l) {
        const std::string at = "layers[" + std::to_string(l) + "].";
        attn::Weights& w = s.layers[l].weights;
        const attn::Gradients& gl = g.layers[l];
        check_all(s, target, &w.W_q, gl.W_q, at + "W_q");
        check_all(s, target, &w.W_k, gl.W_k, at + "W_k");
        check_all(s, target, &w.W_v, gl.W_v, at + "W_v");
        check_all(s, target, &w.W_o, gl.W_o, at + "W_o");
        if (c.scoring == attn::Scoring::kGeneral) check_all(s, target, &w.W, gl.W, at + "W");
        if (c.scoring == attn::Scoring::kAdditive) {
          attn::Matrix wv = w.w_v;
          const attn::MatrixD gwv = gl.w_v;
          for (int u = 0; u < wv.rows(); ++u) {
            const float x = w.w_v(u), up = x + 1e-3f, down = x - 1e-3f;
            w.w_v(u) = up;
            const double l_up = loss_of(s, target);
            w.w_v(u) = down;
            const double l_down = loss_of(s, target);
            w.w_v(u) = x;
            const double fd =
                (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
            INFO(at << "w_v(" << u << "): analytic " << gwv(u, 0) << ", difference " << fd);
            CHECK(std::fabs(gwv(u, 0) - fd) <= 2e-6 + 2e-4 * std::fabs(fd));
          }
        }
      }
    }
  }
}

TEST_CASE("the float32 stack gradients agree with the float64 ones, hard attention too",
          "[core][stack][grad]") {
  std::vector<attn::Stack> stacks;
  for (const Case& c : kCases) stacks.push_back(make_stack(c));
  attn::Stack hard = make_stack(kCases[0]);
  hard.base.hard = true;
  hard.base.hard_gradient = attn::HardGradient::kStraightThrough;
  stacks.push_back(hard);
  for (const attn::Stack& s : stacks) {
    const attn::Batch target = target_for(s);
    attn::StackGradients f, d;
    REQUIRE(attn::gradients(s, target, &f).error == "");
    REQUIRE(attn::gradients_reference(s, target, &d).error == "");
    CHECK(f.loss == d.loss);
    double largest = 0.0;
    for (const auto& m : d.x) largest = std::max(largest, m.cwiseAbs().maxCoeff());
    for (size_t b = 0; b < d.x.size(); ++b)
      CHECK((f.x[b] - d.x[b]).cwiseAbs().maxCoeff() <= 1e-5 * largest + 1e-7);
    for (size_t l = 0; l < d.layers.size(); ++l)
      attn::for_each_weight(
          f.layers[l], d.layers[l], [&](const char* name, const auto& a, const auto& b) {
            INFO("layers[" << l << "]." << name);
            REQUIRE(a.size() == b.size());
            if (a.size())
              CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-3 * b.cwiseAbs().maxCoeff() + 1e-6);
          });
  }
}

TEST_CASE("a stack is refused with the layer named", "[core][stack]") {
  attn::Stack s = make_stack(kCases[0]);
  SECTION("no layers") {
    s.layers.clear();
    CHECK(attn::validate(s).error == "layers: is empty, expected at least one layer");
  }
  SECTION("a layer's output narrower than the stream") {
    s.layers[1].weights.W_o = seeded(4, 3, 1);
    CHECK(attn::validate(s).error ==
          "layers[1].W_o: has 3 columns, expected 4 (the stream's width d: a layer's output is "
          "added to it)");
  }
  SECTION("a layer's weight of the wrong shape") {
    s.layers[1].weights.W_k = seeded(3, 4, 1);
    CHECK(attn::validate(s).error == "layers[1].W_k: has 3 rows, expected 4 (the columns of keys)");
  }
  SECTION("heads that do not divide") {
    s.layers[0].heads = 3;
    CHECK(attn::validate(s).error ==
          "layers[0].heads: 3 does not divide d_model 4 (the columns of W_q)");
  }
  SECTION("without W_o, W_v must keep the width") {
    s.layers[0].weights.W_o = attn::Matrix();
    s.layers[0].weights.W_v = seeded(4, 2, 1);
    CHECK(attn::validate(s).error ==
          "layers[0].W_v: has 2 columns, expected 4 (the stream's width d: a layer's output is "
          "added to it)");
  }
  SECTION("the input") {
    s.base.queries = attn::Batch{};
    s.base.keys = s.base.values = s.base.queries;
    CHECK(attn::validate(s).error == "x: is empty, expected at least one batch item");
  }
  SECTION("hard attention without an estimator, in grad") {
    s.base.hard = true;
    attn::StackGradients g;
    const attn::Status st = attn::gradients(s, target_for(s), &g);
    CHECK(st.error.rfind("layers[0]: grad: hard attention picks one key by argmax", 0) == 0);
  }
  SECTION("a target of the wrong shape") {
    attn::Batch target = target_for(s);
    target.mut(1) = seeded(4, 3, 1);
    attn::StackGradients g;
    CHECK(attn::gradients(s, target, &g).error == "target[1]: is 4 × 3, the output is 4 × 4");
  }
}

TEST_CASE("the optimizer steps every layer, and a refused step changes nothing",
          "[core][stack][train]") {
  attn::Stack s = make_stack(kCases[0]);
  const attn::Batch target = target_for(s);
  attn::Optimizer opt;
  opt.kind = attn::Optimizer::Kind::kAdam;
  opt.lr = 0.02;
  double first = 0.0, loss = 0.0;
  for (int step = 0; step < 60; ++step) {
    REQUIRE(opt.step(&s, target, &loss).error == "");
    if (step == 0) first = loss;
  }
  INFO("loss " << first << " → " << loss);
  CHECK(loss < 0.6 * first);
  const attn::Stack before = s;
  opt.kind = attn::Optimizer::Kind::kSgd;
  opt.lr = 1e300;
  const attn::Status st = opt.step(&s, target, &loss);
  CHECK(st.error.find("would take layers[0].W_q past float32's range") != std::string::npos);
  for (size_t l = 0; l < s.layers.size(); ++l)
    attn::for_each_weight(s.layers[l].weights, before.layers[l].weights,
                          [](const char*, const auto& a, const auto& b) { CHECK(a == b); });
}

namespace {

// A token model: vocabulary 5, width 4, 2 layers of 2 heads, causal, two sequences.
attn::Stack token_stack() {
  attn::Stack s = make_stack(kCases[0]);
  s.base.queries = s.base.keys = s.base.values = attn::Batch{};
  s.tokens.ids = {{0, 3, 1, 4}, {2, 2, 0, 1}};
  s.tokens.embed = seeded(5, 4, 71);
  s.tokens.unembed = seeded(4, 5, 72);
  s.tokens.next = {{3, 1, 4, -1}, {2, 0, 1, -1}};
  return s;
}

}  // namespace

TEST_CASE("a token model's gradients match finite differences of its cross-entropy",
          "[core][stack][grad]") {
  using Fn = attn::Status (*)(const attn::Stack&, const attn::Batch&, attn::StackGradients*);
  const std::pair<const char*, Fn> passes[] = {
      {"float32 attn::gradients", attn::gradients},
      {"float64 attn::gradients_reference", attn::gradients_reference}};
  attn::Stack s = token_stack();
  REQUIRE(attn::validate(s).error == "");
  const attn::StackTrace t = attn::run(s);
  REQUIRE(t.logits.size() == 2);
  CHECK(t.logits[0].rows() == 4);
  CHECK(t.logits[0].cols() == 5);
  const attn::Matrix probs = attn::next_token_probabilities(t.logits[1]);
  for (int i = 0; i < probs.rows(); ++i) CHECK(probs.row(i).sum() == Approx(1.0f).margin(1e-6));
  for (const auto& [name, fn] : passes) {
    INFO(name);
    attn::StackGradients g;
    REQUIRE(fn(s, attn::Batch{}, &g).error == "");
    REQUIRE(attn::check_finite(g).error == "");
    CHECK(g.loss == Approx(loss_of(s, {})).epsilon(1e-5));
    check_all(s, {}, &s.tokens.embed, g.embed, "embed");
    check_all(s, {}, &s.tokens.unembed, g.unembed, "unembed");
    for (size_t l = 0; l < s.layers.size(); ++l) {
      const std::string at = "layers[" + std::to_string(l) + "].";
      attn::Weights& w = s.layers[l].weights;
      check_all(s, {}, &w.W_q, g.layers[l].W_q, at + "W_q");
      check_all(s, {}, &w.W_k, g.layers[l].W_k, at + "W_k");
      check_all(s, {}, &w.W_v, g.layers[l].W_v, at + "W_v");
      check_all(s, {}, &w.W_o, g.layers[l].W_o, at + "W_o");
    }
  }
}

TEST_CASE("a token model learns, and its bad fields are named", "[core][stack][train]") {
  attn::Stack s = token_stack();
  attn::Optimizer opt;
  opt.kind = attn::Optimizer::Kind::kAdam;
  opt.lr = 0.05;
  double first = 0.0, loss = 0.0;
  for (int step = 0; step < 80; ++step) {
    REQUIRE(opt.step(&s, {}, &loss).error == "");
    if (step == 0) first = loss;
  }
  INFO("cross-entropy " << first << " → " << loss);
  CHECK(loss < 0.2 * first);

  attn::Stack bad = token_stack();
  SECTION("a token outside the vocabulary") {
    bad.tokens.ids[1][3] = 5;
    CHECK(attn::validate(bad).error ==
          "tokens[1][3]: is 5, expected a token in [0, 5) (the rows of embed)");
  }
  SECTION("sequences of different lengths") {
    bad.tokens.ids[1].pop_back();
    CHECK(attn::validate(bad).error == "tokens[1]: has 3 tokens, expected 4 like tokens[0]");
  }
  SECTION("unembed of the wrong height") {
    bad.tokens.unembed = seeded(3, 5, 1);
    CHECK(attn::validate(bad).error ==
          "unembed: has 3 rows, expected 4 (the stream's width d, the columns of embed)");
  }
  SECTION("a next token outside the output vocabulary") {
    bad.tokens.next[0][0] = -2;
    CHECK(attn::validate(bad).error ==
          "next[0][0]: is -2, expected a token in [0, 5) or -1 (none)");
  }
  SECTION("no position to predict") {
    bad.tokens.next = {{-1, -1, -1, -1}, {-1, -1, -1, -1}};
    attn::StackGradients g;
    CHECK(attn::gradients(bad, {}, &g).error ==
          "next: no position has a next token to predict (give next, -1 for none)");
  }
}

TEST_CASE(
    "a stack with Gumbel's estimator: layer l draws from seed + l, soft gradients match "
    "differences, straight-through ones the float64 pass, step k uses seed + k",
    "[core][stack][grad][gumbel]") {
  for (const bool soft : {true, false}) {
    INFO((soft ? "soft" : "straight through"));
    attn::Stack s = make_stack(kCases[0]);
    s.base.hard = true;
    s.base.hard_gradient = attn::HardGradient::kGumbel;
    s.base.gumbel_tau = 0.6f;
    s.base.gumbel_seed = 21;
    s.base.gumbel_soft = soft;
    CHECK(attn::layer_problem(s, 1, attn::Batch{}).gumbel_seed == 22);
    const attn::Batch target = target_for(s);
    // The forward is the float64 one, layer on layer (each with its own seed).
    const attn::StackTrace t = attn::run(s);
    const ref::Bat want = ref::run_stack(s);
    for (size_t b = 0; b < want.size(); ++b)
      for (size_t i = 0; i < want[b].size(); ++i)
        for (size_t j = 0; j < want[b][i].size(); ++j)
          CHECK(t.output()[b](static_cast<int>(i), static_cast<int>(j)) ==
                Approx(want[b][i][j]).margin(1e-5));
    attn::StackGradients f, d;
    REQUIRE(attn::gradients(s, target, &f).error == "");
    REQUIRE(attn::gradients_reference(s, target, &d).error == "");
    CHECK(f.loss == d.loss);
    for (size_t l = 0; l < d.layers.size(); ++l)
      attn::for_each_weight(
          f.layers[l], d.layers[l], [&](const char* name, const auto& a, const auto& b) {
            INFO("layers[" << l << "]." << name);
            REQUIRE(a.size() == b.size());
            if (a.size())
              CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-3 * b.cwiseAbs().maxCoeff() + 1e-6);
          });
    if (soft) {  // differentiable: central differences of the float64 forward
      for (size_t l = 0; l < s.layers.size(); ++l) {
        const std::string at = "layers[" + std::to_string(l) + "].";
        attn::Weights& w = s.layers[l].weights;
        check_all(s, target, &w.W_q, d.layers[l].W_q, at + "W_q");
        check_all(s, target, &w.W_v, d.layers[l].W_v, at + "W_v");
      }
    }
    // Step 2 of the optimizer draws from seed + 2 (layer l: + l more).
    attn::Optimizer opt;
    opt.kind = attn::Optimizer::Kind::kSgd;
    opt.lr = 0.1;
    double loss = 0.0;
    for (int k = 0; k < 2; ++k) REQUIRE(opt.step(&s, target, &loss).ok());
    CHECK(s.base.gumbel_seed == 21);
    attn::Stack fresh = s;
    fresh.base.gumbel_seed = 23;
    attn::StackGradients g;
    REQUIRE(attn::gradients(fresh, target, &g).ok());
    REQUIRE(opt.step(&s, target, &loss).ok());
    CHECK(loss == g.loss);
  }
}
