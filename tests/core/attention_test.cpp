// The attention core against the float64 reference, the textbook checks and its properties.
//
// [SECTION] Helpers
// [SECTION] Every intermediate against the reference
// [SECTION] The textbook checks
// [SECTION] Masks
// [SECTION] Properties
// [SECTION] Positional encoding
// [SECTION] Hard attention and dropout
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "compare.h"
#include "core/attention.h"
#include "reference.h"

using attn::Batch;
using attn::Matrix;
using attn::Problem;
using attn::Scoring;

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

void check_trace(const Problem& p) {
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace got = attn::run(p);
  const ref::Trace want = ref::run(p);
  REQUIRE(got.heads.size() == want.heads.size());
  for (size_t h = 0; h < got.heads.size(); ++h) {
    INFO("head " << h);
    CHECK_MATCHES(got.heads[h].scores, want.heads[h].scores);
    CHECK_MATCHES(got.heads[h].scaled, want.heads[h].scaled);
    CHECK_MATCHES(got.heads[h].masked, want.heads[h].masked);
    CHECK_MATCHES(got.heads[h].weights, want.heads[h].weights);
    CHECK_MATCHES(got.heads[h].output, want.heads[h].output);
  }
  CHECK_MATCHES(got.concat, want.concat);
  CHECK_MATCHES(got.output, want.output);
}

// Self- or cross-attention with random inputs of magnitude <= `mag`.
Problem random_problem(int batch, int n_q, int n_k, int d_q, int d_k, int d_v, double mag,
                       uint64_t seed) {
  Problem p;
  p.queries = test::random_batch(batch, n_q, d_q, -mag, mag, seed);
  p.keys = test::random_batch(batch, n_k, d_k, -mag, mag, seed + 1);
  p.values = test::random_batch(batch, n_k, d_v, -mag, mag, seed + 2);
  return p;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Every intermediate against the reference
//-----------------------------------------------------------------------------

TEST_CASE("every scoring function matches the float64 reference at every step", "[core][ref]") {
  const Scoring scoring =
      GENERATE(from_range(std::begin(attn::kScorings), std::end(attn::kScorings)));
  const double mag = GENERATE(1.0, 10.0);
  INFO("scoring " << attn::scoring_name(scoring) << ", inputs within ±" << mag);
  Problem p = random_problem(2, 5, 7, 4, 4, 3, mag, 11);
  p.scoring = scoring;
  p.temperature = 1.5f;
  p.mask.valid_lens = {{3}, {7}};
  if (scoring == Scoring::kAdditive) {
    p.weights.W_q = test::random_matrix(4, 6, -1, 1, 21);
    p.weights.W_k = test::random_matrix(4, 6, -1, 1, 22);
    p.weights.w_v = test::random_matrix(6, 1, -1, 1, 23).col(0);
  }
  if (scoring == Scoring::kGeneral) p.weights.W = test::random_matrix(4, 4, -1, 1, 24);
  check_trace(p);
}

TEST_CASE("gaussian scoring matches the float64 reference under every mask and temperature",
          "[core][ref][gaussian]") {
  const float sigma = GENERATE(0.3f, 1.0f, 2.5f);
  const int mask = GENERATE(0, 1, 2, 3, 4);
  const bool projected = GENERATE(false, true);
  INFO("sigma " << sigma << ", mask " << mask << ", projected " << projected);
  Problem p = random_problem(2, 6, 6, 3, 3, 2, 1.5, 41);
  p.scoring = Scoring::kGaussian;
  p.weights.sigma = sigma;
  p.temperature = 0.8f;
  switch (mask) {
    case 0:
      p.mask.causal = true;
      break;
    case 1:
      p.mask.valid_lens = {{1, 2, 3, 4, 5, 6}, {6}};
      p.mask.mask_value = -kInf;
      break;
    case 2:
      p.mask.window = 1;
      break;
    case 3:  // a point does not see itself (kernel regression's diagonal)
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 6; ++i) p.mask.cells.push_back({b, i, i});
      break;
    default:
      p.temperature = 2.0f;
      break;
  }
  if (projected) {
    p.heads = 2;
    p.weights.W_q = test::random_matrix(3, 4, -1, 1, 42);
    p.weights.W_k = test::random_matrix(3, 4, -1, 1, 43);
    p.weights.W_v = test::random_matrix(2, 4, -1, 1, 44);
  }
  check_trace(p);
  // Without the head matrices (row blocks of the step-by-step path): the same output.
  attn::RunOptions light;
  light.keep_head_matrices = false;
  CHECK_MATCHES(attn::run(p, light).output, ref::run(p).output);
}

TEST_CASE("gaussian scores are minus the squared distance over 2σ², and σ is checked",
          "[core][gaussian]") {
  Matrix q(1, 1), k(2, 1);
  q << 0.4f;
  k << 1.2f, 0.4f;
  const Matrix s = attn::score_gaussian(q, k, 1.0f);
  CHECK(s(0, 0) == Approx(-0.32).epsilon(1e-6));
  CHECK(s(0, 1) == 0.0f);  // a key equal to the query scores the most
  CHECK(attn::score_gaussian(q, k, 2.0f)(0, 0) == Approx(-0.08).epsilon(1e-6));
  Problem p;
  p.queries = Batch{q};
  p.keys = p.values = Batch{k};
  p.scoring = Scoring::kGaussian;
  CHECK(attn::validate(p).error == "");
  for (float bad : {0.0f, -1.0f, 1000.5f, std::numeric_limits<float>::quiet_NaN(), kInf}) {
    p.weights.sigma = bad;
    CHECK(attn::validate(p).error == "sigma: must be a number > 0 and at most 1000");
  }
  p.weights.sigma = 1000.0f;
  CHECK(attn::validate(p).error == "");
  p.scoring = Scoring::kDot;  // σ is read by gaussian scoring only
  p.weights.sigma = -1.0f;
  CHECK(attn::validate(p).error == "");
  p.scoring = Scoring::kGaussian;
  p.weights.sigma = 1.0f;
  p.keys = p.values = Batch{Matrix::Ones(2, 3)};  // widths differ, as for dot
  CHECK(attn::validate(p).error ==
        "keys: key size 3 differs from query size 1; gaussian scoring needs equal sizes (project "
        "with W_q/W_k, or use additive or general)");
}

TEST_CASE("multi-head self-attention with projections matches the reference", "[core][ref]") {
  const int heads = GENERATE(1, 2, 4);
  const bool pe = GENERATE(false, true);
  INFO(heads << " heads, positional encoding " << pe);
  Problem p;
  p.queries = test::random_batch(2, 6, 5, -1, 1, 31);
  p.keys = p.queries;
  p.values = p.queries;
  p.heads = heads;
  p.positional_encoding = pe;
  p.weights.W_q = test::random_matrix(5, 8, -0.7, 0.7, 32);
  p.weights.W_k = test::random_matrix(5, 8, -0.7, 0.7, 33);
  p.weights.W_v = test::random_matrix(5, 8, -0.7, 0.7, 34);
  p.weights.W_o = test::random_matrix(8, 3, -0.7, 0.7, 35);
  p.mask.causal = true;
  check_trace(p);
}

TEST_CASE("general scoring with heads shares one W across heads", "[core][ref]") {
  Problem p = random_problem(1, 4, 6, 6, 6, 6, 1.0, 41);
  p.scoring = Scoring::kGeneral;
  p.heads = 3;
  p.weights.W = test::random_matrix(2, 2, -1, 1, 42);
  check_trace(p);
}

TEST_CASE("inputs of magnitude 1 agree within 1e-5 absolute everywhere", "[core][ref]") {
  // The unscaled bound: with inputs within ±1 every intermediate stays near 1 in size.
  Problem p = random_problem(2, 9, 9, 8, 8, 8, 1.0, 51);
  p.heads = 2;
  p.weights.W_q = test::random_matrix(8, 8, -0.5, 0.5, 52);
  p.weights.W_k = test::random_matrix(8, 8, -0.5, 0.5, 53);
  p.weights.W_v = test::random_matrix(8, 8, -0.5, 0.5, 54);
  p.weights.W_o = test::random_matrix(8, 8, -0.5, 0.5, 55);
  p.mask.valid_lens = {{4}, {9}};
  const attn::Trace got = attn::run(p);
  const ref::Trace want = ref::run(p);
  double worst = 0.0;
  for (size_t h = 0; h < got.heads.size(); ++h) {
    for (auto [g, w] : {std::pair{&got.heads[h].scores, &want.heads[h].scores},
                        std::pair{&got.heads[h].scaled, &want.heads[h].scaled},
                        std::pair{&got.heads[h].weights, &want.heads[h].weights},
                        std::pair{&got.heads[h].output, &want.heads[h].output}})
      worst = std::max(worst, test::compare(*g, *w).max_abs);
  }
  worst = std::max(worst, test::compare(got.output, want.output).max_abs);
  INFO("max abs difference " << worst);
  CHECK(worst <= test::kTolerance);
}

//-----------------------------------------------------------------------------
// [SECTION] The textbook checks
//-----------------------------------------------------------------------------

namespace {

// Keys all ones (2×10×2), values 0..39 as 10×4 for both batch items, valid lengths [2, 6].
Problem textbook(int query_size) {
  Problem p;
  p.queries = test::random_batch(2, 1, query_size, -1, 1, 61);
  p.keys = Batch(2, Matrix::Ones(10, 2));
  Matrix v(10, 4);
  for (int i = 0; i < 40; ++i) v(i / 4, i % 4) = static_cast<float>(i);
  p.values = Batch(2, v);
  p.mask.valid_lens = {{2}, {6}};
  return p;
}

void check_textbook_output(const attn::Trace& t) {
  REQUIRE(t.output.size() == 2);
  const float want[2][4] = {{2, 3, 4, 5}, {10, 11, 12, 13}};
  for (int b = 0; b < 2; ++b) {
    REQUIRE(t.output[b].rows() == 1);
    REQUIRE(t.output[b].cols() == 4);
    for (int c = 0; c < 4; ++c) CHECK(t.output[b](0, c) == Approx(want[b][c]).margin(1e-5));
  }
}

}  // namespace

TEST_CASE("additive attention over keys of ones averages the valid values", "[core][textbook]") {
  Problem p = textbook(20);
  p.scoring = Scoring::kAdditive;
  p.weights.W_q = test::random_matrix(20, 8, -0.5, 0.5, 62);
  p.weights.W_k = test::random_matrix(2, 8, -0.5, 0.5, 63);
  p.weights.w_v = test::random_matrix(8, 1, -0.5, 0.5, 64).col(0);
  REQUIRE(attn::validate(p).error == "");
  check_textbook_output(attn::run(p));
}

TEST_CASE("scaled dot-product attention over keys of ones averages the valid values",
          "[core][textbook]") {
  Problem p = textbook(2);
  p.scoring = Scoring::kScaledDot;
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);
  check_textbook_output(t);
  // Uniform over the valid keys: 1/2 and 1/6, exactly 0 beyond.
  for (int j = 0; j < 10; ++j) {
    CHECK(t.heads[0].weights[0](0, j) == (j < 2 ? Approx(0.5f) : Approx(0.0f)));
    CHECK(t.heads[0].weights[1](0, j) == (j < 6 ? Approx(1.0f / 6) : Approx(0.0f)));
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Masks
//-----------------------------------------------------------------------------

TEST_CASE("masked weights are exactly zero and rows sum to one", "[core][mask]") {
  Problem p = random_problem(2, 6, 8, 4, 4, 4, 10.0, 71);
  p.mask.valid_lens = {{1, 2, 3, 4, 5, 6}, {8, 7, 6, 5, 4, 3}};  // per query
  p.mask.window = 3;
  p.mask.cells = {{0, 5, 0}, {1, 0, 1}};
  const attn::Trace t = attn::run(p);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 6; ++i) {
      double sum = 0.0;
      for (int j = 0; j < 8; ++j) {
        const float w = t.heads[0].weights[b](i, j);
        if (attn::is_masked(p.mask, b, i, j)) {
          INFO("b " << b << " i " << i << " j " << j);
          CHECK(w == 0.0f);
          CHECK(t.heads[0].masked[b](i, j) == -1e6f);
        }
        sum += w;
      }
      CHECK(sum == Approx(1.0).margin(1e-6));
    }
  check_trace(p);
}

TEST_CASE("causal and window masks hide the right keys", "[core][mask]") {
  attn::MaskSpec m;
  m.causal = true;
  CHECK_FALSE(attn::is_masked(m, 0, 3, 3));
  CHECK(attn::is_masked(m, 0, 3, 4));
  m.causal = false;
  m.window = 1;
  CHECK(attn::is_masked(m, 0, 3, 1));
  CHECK_FALSE(attn::is_masked(m, 0, 3, 2));
  CHECK_FALSE(attn::is_masked(m, 0, 3, 4));
  CHECK(attn::is_masked(m, 0, 3, 5));
  int lo, hi;
  m.valid_lens = {{2}};
  attn::visible_range(m, 0, 3, 6, &lo, &hi);
  CHECK(lo == 2);
  CHECK(hi == 2);  // window [2, 5) ∩ valid [0, 2): nothing visible
}

TEST_CASE("mask_reason names the first rule that hides a key, in a fixed order", "[core][mask]") {
  attn::MaskSpec m;
  m.valid_lens = {{3}, {2, 4, 6, 6, 6, 6}};
  m.causal = true;
  m.window = 1;
  m.cells = {{1, 5, 5}};
  using attn::MaskRule;
  auto rule = [&](int b, int i, int j) { return attn::mask_reason(m, b, i, j).rule; };
  CHECK(rule(0, 0, 0) == MaskRule::kNone);
  CHECK(rule(0, 4, 3) == MaskRule::kValidLength);  // also causal and window: length first
  CHECK(attn::mask_reason(m, 0, 4, 3).valid_len == 3);
  CHECK(attn::mask_reason(m, 1, 1, 5).valid_len == 4);  // one length per query
  CHECK(rule(1, 2, 3) == MaskRule::kCausal);            // also outside the window
  CHECK(rule(1, 4, 1) == MaskRule::kWindow);
  CHECK(rule(1, 5, 5) == MaskRule::kCell);
  CHECK(rule(0, 5, 5) == MaskRule::kValidLength);  // the cell is listed for batch item 1 only
}

TEST_CASE("mask_cells is the mask that run() applies", "[core][mask]") {
  Problem p = random_problem(2, 6, 8, 4, 4, 4, 1.0, 73);
  p.mask.valid_lens = {{5}, {8}};
  p.mask.causal = GENERATE(false, true);
  p.mask.window = GENERATE(-1, 2);
  p.mask.cells = {{1, 0, 0}, {0, 5, 7}};
  p.mask.mask_value = -7.0f;  // a value no score takes, so the trace shows where it was put
  const attn::Trace t = attn::run(p);
  for (int b = 0; b < 2; ++b) {
    const std::vector<uint8_t> cells = attn::mask_cells(p.mask, b, 6, 8);
    REQUIRE(cells.size() == 48);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 8; ++j) {
        INFO("b " << b << " i " << i << " j " << j);
        const bool masked = cells[static_cast<size_t>(i) * 8 + j] == 1;
        CHECK(masked == attn::is_masked(p.mask, b, i, j));
        CHECK(masked == (t.heads[0].masked[b](i, j) == -7.0f));
      }
  }
}

TEST_CASE("a fully masked row is uniform with -1e6 and NaN with -inf", "[core][mask]") {
  Problem p = random_problem(1, 3, 5, 2, 2, 2, 1.0, 81);
  p.mask.valid_lens = {{2, 0, 5}};
  SECTION("-1e6, as the textbook code, gives uniform weights") {
    const attn::Trace t = attn::run(p);
    for (int j = 0; j < 5; ++j) CHECK(t.heads[0].weights[0](1, j) == Approx(0.2f));
    CHECK(t.heads[0].weights[0](0, 3) == 0.0f);
  }
  SECTION("-inf gives NaN weights and leaves other rows intact") {
    p.mask.mask_value = -kInf;
    const attn::Trace t = attn::run(p);
    for (int j = 0; j < 5; ++j) CHECK(std::isnan(t.heads[0].weights[0](1, j)));
    for (int j = 0; j < 2; ++j) CHECK(std::isnan(t.heads[0].output[0](1, j)));
    CHECK(t.heads[0].weights[0](0, 3) == 0.0f);
    CHECK(t.heads[0].weights[0].row(0).sum() == Approx(1.0f));
    CHECK(t.heads[0].weights[0].row(2).sum() == Approx(1.0f));
    check_trace(p);
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Properties
//-----------------------------------------------------------------------------

namespace {

Matrix permute_rows(const Matrix& m, const std::vector<int>& perm) {
  Matrix r(m.rows(), m.cols());
  for (int i = 0; i < m.rows(); ++i) r.row(i) = m.row(perm[i]);
  return r;
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("self-attention without positions is permutation-equivariant; with them it is not",
          "[core][property]") {
  Problem p;
  p.queries = test::random_batch(1, 6, 4, -1, 1, 91);
  p.keys = p.values = p.queries;
  p.heads = 2;
  p.weights.W_q = test::random_matrix(4, 4, -1, 1, 92);
  p.weights.W_k = test::random_matrix(4, 4, -1, 1, 93);
  p.weights.W_v = test::random_matrix(4, 4, -1, 1, 94);
  const std::vector<int> perm = {3, 0, 5, 1, 4, 2};
  Problem shuffled = p;
  shuffled.queries = shuffled.keys = shuffled.values = {permute_rows(p.queries[0], perm)};

  const Matrix out = attn::run(p).output[0];
  const Matrix out_shuffled = attn::run(shuffled).output[0];
  CHECK(max_abs_diff(permute_rows(out, perm), out_shuffled) <= 1e-5);

  p.positional_encoding = shuffled.positional_encoding = true;
  const Matrix pe_out = attn::run(p).output[0];
  const Matrix pe_out_shuffled = attn::run(shuffled).output[0];
  CHECK(max_abs_diff(permute_rows(pe_out, perm), pe_out_shuffled) > 1e-2);
}

TEST_CASE("scaled dot is dot divided by the square root of the key size", "[core][property]") {
  const int d = GENERATE(1, 2, 16, 64);
  Problem p = random_problem(1, 3, 4, d, d, 2, 1.0, 101);
  p.scoring = Scoring::kDot;
  const attn::Trace dot = attn::run(p);
  p.scoring = Scoring::kScaledDot;
  const attn::Trace scaled = attn::run(p);
  CHECK(max_abs_diff(dot.heads[0].scores[0], scaled.heads[0].scores[0]) == 0.0);
  const Matrix expected = dot.heads[0].scores[0] / std::sqrt(static_cast<float>(d));
  CHECK(max_abs_diff(scaled.heads[0].scaled[0], expected) <= 1e-6);
  // d is the per-head key size: 2 heads over 8 columns dot 4 columns each, so scale by 1/√4.
  Problem mh = random_problem(1, 3, 4, 8, 8, 2, 1.0, 102);
  mh.heads = 2;
  CHECK(attn::score_scale(Scoring::kScaledDot, 4, 1.0f) == Approx(0.5f));
  const attn::Trace t = attn::run(mh);
  CHECK(max_abs_diff(t.heads[1].scaled[0], t.heads[1].scores[0] * 0.5f) <= 1e-6);
}

TEST_CASE("temperature divides the scores and flattens the weights", "[core][property]") {
  Problem p = random_problem(1, 4, 6, 3, 3, 2, 3.0, 111);
  p.scoring = Scoring::kDot;
  const attn::Trace cold = attn::run(p);
  p.temperature = 4.0f;
  const attn::Trace warm = attn::run(p);
  CHECK(max_abs_diff(warm.heads[0].scaled[0], cold.heads[0].scores[0] / 4.0f) <= 1e-6);
  CHECK(warm.heads[0].weights[0].maxCoeff() < cold.heads[0].weights[0].maxCoeff());
}

TEST_CASE("cosine scores lie in [-1, 1] and a zero vector scores 0", "[core][property]") {
  Matrix q = test::random_matrix(3, 4, -5, 5, 121);
  q.row(1).setZero();
  const Matrix k = test::random_matrix(5, 4, -5, 5, 122);
  const Matrix s = attn::score_cosine(q, k);
  CHECK(s.maxCoeff() <= 1.0f + 1e-6f);
  CHECK(s.minCoeff() >= -1.0f - 1e-6f);
  CHECK(s.row(1).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(attn::score_cosine(k.row(2), k.row(2))(0, 0) == Approx(1.0f));
}

TEST_CASE("cosine scores of huge and tiny vectors: their lengths neither overflow nor underflow",
          "[core][property]") {
  // |(1e20, 1e20)|² is 2e40, past float32: lengths computed naively are infinite, scores 0.
  for (const float m : {1e20f, 3e38f, 1e-25f, 1e-40f}) {
    INFO("magnitude " << m);
    Matrix x(2, 2);
    x << m, m, m, -m;
    const Matrix s = attn::score_cosine(x, x);
    CHECK(s(0, 0) == Approx(1.0f).epsilon(1e-6));
    CHECK(s(1, 1) == Approx(1.0f).epsilon(1e-6));
    CHECK(std::fabs(s(0, 1)) <= 1e-7f);
    CHECK(std::fabs(s(1, 0)) <= 1e-7f);
    // The same through the pipeline: the kept matrices and the fused kernel's output.
    Problem p;
    p.scoring = attn::Scoring::kCosine;
    p.queries = p.keys = {x};
    p.values = {Matrix::Identity(2, 2)};
    const attn::Trace full = attn::run(p);
    CHECK(max_abs_diff(full.heads[0].scores[0], Matrix::Identity(2, 2)) <= 1e-6);
    attn::RunOptions lean;
    lean.keep_head_matrices = false;
    const attn::Trace light = attn::run(p, lean);
    CHECK(light.output[0].allFinite());
    CHECK(max_abs_diff(light.output[0], full.output[0]) <= 1e-6);
  }
  // The lengths themselves, in double: past float32's range and below its smallest normal.
  const float big[] = {3e38f, 3e38f, 3e38f};
  CHECK(attn::vector_length(big, 3) == Approx(std::sqrt(3.0) * 3e38).epsilon(1e-7));
  const float tiny[] = {1e-45f, 0.0f};
  CHECK(attn::vector_length(tiny, 2) == Approx(static_cast<double>(1e-45f)).epsilon(1e-12));
  const float none[] = {0.0f, 0.0f};
  CHECK(attn::vector_length(none, 2) == 0.0);
}

TEST_CASE("heads take contiguous column blocks of the projections", "[core][property]") {
  Problem p = random_problem(1, 3, 3, 6, 6, 6, 1.0, 131);
  p.heads = 3;
  const attn::Trace t = attn::run(p);
  for (int h = 0; h < 3; ++h) {
    CHECK(max_abs_diff(t.heads[h].q[0], p.queries[0].middleCols(2 * h, 2)) == 0.0);
    CHECK(max_abs_diff(t.concat[0].middleCols(2 * h, 2), t.heads[h].output[0]) == 0.0);
  }
}

TEST_CASE("cross-attention: queries and keys of different lengths and sizes", "[core][ref]") {
  Problem p = random_problem(2, 3, 8, 5, 2, 4, 2.0, 141);
  p.scoring = Scoring::kAdditive;
  p.weights.W_q = test::random_matrix(5, 4, -1, 1, 142);
  p.weights.W_k = test::random_matrix(2, 4, -1, 1, 143);
  p.weights.w_v = test::random_matrix(4, 1, -1, 1, 144).col(0);
  p.weights.W_v = test::random_matrix(4, 6, -1, 1, 145);
  p.mask.valid_lens = {{5}, {8}};
  check_trace(p);
  const attn::Trace t = attn::run(p);
  CHECK(t.output[0].rows() == 3);
  CHECK(t.output[0].cols() == 6);
}

//-----------------------------------------------------------------------------
// [SECTION] Positional encoding
//-----------------------------------------------------------------------------

TEST_CASE("sinusoidal positional encoding values", "[core][pe]") {
  const int d = GENERATE(4, 5, 32);
  const Matrix pe = attn::positional_encoding(60, d, 10000.0f);
  const ref::Mat want = ref::pe(60, d, 10000.0);
  double worst = 0.0;
  for (int p = 0; p < 60; ++p)
    for (int c = 0; c < d; ++c) worst = std::max(worst, std::fabs(pe(p, c) - want[p][c]));
  CHECK(worst <= 1e-6);
  for (int c = 0; c < d; ++c) CHECK(pe(0, c) == (c % 2 == 0 ? 0.0f : 1.0f));
  CHECK(pe(1, 0) == Approx(std::sin(1.0)));
  CHECK(pe(1, 1) == Approx(std::cos(1.0)));
  if (d >= 4) CHECK(pe(7, 2) == Approx(std::sin(7.0 / std::pow(10000.0, 2.0 / d))));
}

//-----------------------------------------------------------------------------
// [SECTION] Hard attention and dropout
//-----------------------------------------------------------------------------

TEST_CASE("hard attention is one-hot at the first maximum", "[core][hard]") {
  Matrix x(3, 4);
  x << 0.1f, 0.9f, 0.3f, 0.9f,    //
      -1e6f, -1e6f, 2.0f, -1e6f,  //
      -kInf, -kInf, -kInf, -kInf;
  const Matrix w = attn::hard_rows(x);
  CHECK(w(0, 1) == 1.0f);
  CHECK(w.row(0).sum() == 1.0f);
  CHECK(w(1, 2) == 1.0f);
  for (int j = 0; j < 4; ++j) CHECK(std::isnan(w(2, j)));

  Problem p = random_problem(2, 4, 5, 3, 3, 3, 1.0, 151);
  p.hard = true;
  p.mask.valid_lens = {{3}, {5}};
  check_trace(p);
}

TEST_CASE("dropout_draw decides exactly the weights run() drops", "[core][dropout]") {
  Problem p = random_problem(2, 5, 7, 4, 4, 4, 1.0, 163);
  p.heads = 2;
  p.dropout_p = 0.4f;
  p.dropout_seed = 11;
  const attn::Trace t = attn::run(p);
  for (int h = 0; h < 2; ++h)
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
          INFO("head " << h << " b " << b << " i " << i << " j " << j);
          const float u = attn::dropout_draw(11, h, b, i, j, 2, 5, 7);
          CHECK(u >= 0.0f);
          CHECK(u < 1.0f);
          // Softmax weights of unmasked rows are never exactly 0: 0 means dropped.
          CHECK((t.heads[h].weights[b](i, j) == 0.0f) == (u < 0.4f));
        }
}

TEST_CASE("head_shape: sizes per head and the scale, with and without projections",
          "[core][heads]") {
  Problem p = random_problem(1, 3, 3, 6, 6, 4, 1.0, 171);
  p.heads = 2;
  attn::HeadShape hs = attn::head_shape(p);
  CHECK(hs.dq == 3);
  CHECK(hs.dk == 3);
  CHECK(hs.dv == 2);
  CHECK(hs.scale == Approx(1.0 / std::sqrt(3.0)));
  p.weights.W_q = test::random_matrix(6, 8, -1, 1, 1);
  p.weights.W_k = test::random_matrix(6, 8, -1, 1, 2);
  p.weights.W_v = test::random_matrix(4, 10, -1, 1, 3);
  p.temperature = 2.0f;
  hs = attn::head_shape(p);
  CHECK(hs.dq == 4);
  CHECK(hs.dk == 4);
  CHECK(hs.dv == 5);
  CHECK(hs.scale == Approx(0.25));
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);
  CHECK(t.heads[1].q[0].cols() == hs.dq);
  CHECK(t.heads[1].v[0].cols() == hs.dv);
  // Additive scoring keeps queries and keys unprojected: W_q and W_k score instead.
  p.scoring = attn::Scoring::kAdditive;
  p.heads = 1;
  CHECK(attn::head_shape(p).dq == 6);
  CHECK(attn::head_shape(p).dk == 6);
  CHECK(attn::head_shape(p).scale == Approx(0.5));  // 1 / temperature only
}

namespace {

int64_t bytes_of(const Batch& x) {
  int64_t n = 0;
  for (const Matrix& m : x) n += m.size();
  return n * static_cast<int64_t>(sizeof(float));
}

// Bytes of the trace's matrices beyond the problem's: each storage once (Batch shares).
int64_t bytes_of(const attn::Trace& t, const Problem& p) {
  std::vector<const Batch*> all = {&t.queries, &t.keys,   &t.values, &t.pe_queries, &t.pe_keys,
                                   &t.q_proj,  &t.k_proj, &t.v_proj, &t.concat,     &t.output};
  for (const attn::HeadTrace& h : t.heads)
    for (const Batch* x :
         {&h.q, &h.k, &h.v, &h.scores, &h.scaled, &h.masked, &h.weights, &h.output})
      all.push_back(x);
  std::vector<const Batch*> counted = {&p.queries, &p.keys, &p.values};
  int64_t n = 0;
  for (const Batch* x : all) {
    bool seen = false;
    for (const Batch* c : counted) seen = seen || x->shares(*c);
    if (seen) continue;
    n += bytes_of(*x);
    counted.push_back(x);
  }
  return n;
}

}  // namespace

TEST_CASE("trace_bytes is what run() allocates for its matrices, shared ones once",
          "[core][memory]") {
  Problem p = random_problem(3, 5, 7, 6, 6, 4, 1.0, 181);
  p.heads = GENERATE(1, 2);
  p.positional_encoding = GENERATE(false, true);
  const bool projected = GENERATE(false, true);
  if (projected) {
    p.weights.W_q = test::random_matrix(6, 8, -1, 1, 1);
    p.weights.W_k = test::random_matrix(6, 8, -1, 1, 2);
    p.weights.W_v = test::random_matrix(4, 6, -1, 1, 3);
    p.weights.W_o = test::random_matrix(6, 5, -1, 1, 4);
  }
  REQUIRE(attn::validate(p).error == "");
  for (bool keep : {true, false}) {
    INFO("heads " << p.heads << ", PE " << p.positional_encoding << ", projected " << projected
                  << ", keep " << keep);
    attn::RunOptions options;
    options.keep_head_matrices = keep;
    CHECK(attn::trace_bytes(p, options) == bytes_of(attn::run(p, options), p));
  }
}

TEST_CASE("Batch copies share their matrices until one is written", "[core][memory]") {
  Batch a{Matrix::Constant(2, 3, 1.0f), Matrix::Constant(2, 3, 2.0f)};
  Batch b = a;
  CHECK(b.shares(a));
  CHECK(&b[1] == &a[1]);  // reading does not copy
  b.mut(1)(0, 0) = 5.0f;  // writing does, once
  CHECK_FALSE(b.shares(a));
  CHECK(a[1](0, 0) == 2.0f);
  CHECK(b[1](0, 0) == 5.0f);
  CHECK(b[0] == a[0]);
  const Matrix* own = &b[1];
  b.mut(1)(0, 1) = 6.0f;  // already its own
  CHECK(&b[1] == own);
  Batch c = a;
  c.resize(3);
  CHECK(a.size() == 2);
  CHECK(c.size() == 3);
  Batch empty;
  CHECK(empty.empty());
  CHECK_FALSE(empty.shares(Batch{}));
  empty.push_back(Matrix::Zero(1, 1));
  CHECK(empty.size() == 1);
}

TEST_CASE("run() shares the matrices that are the same, and copies what it changes",
          "[core][memory]") {
  Problem p = random_problem(2, 5, 7, 6, 6, 4, 1.0, 183);
  attn::RunOptions light;
  light.keep_head_matrices = false;
  for (const attn::RunOptions& options : {attn::RunOptions{}, light}) {
    const attn::Trace t = attn::run(p, options);
    // No positional encoding, no projections, one head, no W_o: one copy of the inputs, and
    // the head's output is the concatenation and the output.
    CHECK(t.queries.shares(p.queries));
    CHECK(t.q_proj.shares(p.queries));
    CHECK(t.heads[0].q.shares(p.queries));
    CHECK(t.heads[0].k.shares(p.keys));
    CHECK(t.heads[0].v.shares(p.values));
    CHECK(t.concat.shares(t.heads[0].output));
    CHECK(t.output.shares(t.heads[0].output));
  }
  // A problem edited after the run leaves the trace as it was.
  attn::Trace t = attn::run(p);
  const float before = t.queries[1](2, 3);
  p.queries.mut(1)(2, 3) = before + 1.0f;
  CHECK(t.queries[1](2, 3) == before);
  CHECK(t.heads[0].q[1](2, 3) == before);
  CHECK_FALSE(t.queries.shares(p.queries));

  p.heads = 2;
  p.positional_encoding = true;
  p.weights.W_v = test::random_matrix(4, 6, -1, 1, 3);
  const attn::Trace u = attn::run(p);
  CHECK_FALSE(u.queries.shares(p.queries));
  CHECK(u.q_proj.shares(u.queries));                // no W_q
  CHECK_FALSE(u.v_proj.shares(u.values));           // W_v
  CHECK_FALSE(u.heads[0].q.shares(u.q_proj));       // a slice of two heads' columns
  CHECK(u.output.shares(u.concat));                 // no W_o
  CHECK_FALSE(u.concat.shares(u.heads[0].output));  // two heads side by side
}

TEST_CASE("run_head for one batch item computes that item only, as run() does", "[core][heads]") {
  Problem p = random_problem(3, 4, 6, 4, 4, 4, 1.0, 191);
  p.heads = 2;
  const attn::Trace full = attn::run(p);
  const attn::HeadTrace one = attn::run_head(p, 1, 2);
  REQUIRE(one.weights.size() == 3);
  CHECK(one.weights[0].size() == 0);
  CHECK(one.scores[1].size() == 0);
  CHECK(one.weights[2] == full.heads[1].weights[2]);
  CHECK(one.masked[2] == full.heads[1].masked[2]);
  CHECK(one.output[2] == full.heads[1].output[2]);
  CHECK(one.q[0] == full.heads[1].q[0]);  // the head's slices, for every item
}

TEST_CASE("dropout is seeded, drops about p and rescales the survivors", "[core][dropout]") {
  Problem p = random_problem(1, 100, 100, 2, 2, 2, 0.1, 161);
  const attn::Trace eval = attn::run(p);
  p.dropout_p = 0.3f;
  p.dropout_seed = 7;
  const attn::Trace a = attn::run(p);
  const attn::Trace b = attn::run(p);
  CHECK(max_abs_diff(a.heads[0].weights[0], b.heads[0].weights[0]) == 0.0);
  int dropped = 0;
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 100; ++j) {
      const float w = a.heads[0].weights[0](i, j);
      if (w == 0.0f) {
        ++dropped;
      } else {
        CHECK(w == Approx(eval.heads[0].weights[0](i, j) / 0.7f).epsilon(1e-6));
      }
    }
  CHECK(dropped > 2700);
  CHECK(dropped < 3300);
  p.dropout_seed = 8;
  CHECK(max_abs_diff(attn::run(p).heads[0].weights[0], a.heads[0].weights[0]) > 0.0);
  check_trace(p);
}
