// The teaching model: number formatting, step names and formulas, mask reasons and the
// arithmetic behind a cell, each against values worked out by hand.
//
// [SECTION] Helpers
// [SECTION] Numbers and subscripts
// [SECTION] Steps
// [SECTION] Mask reasons
// [SECTION] Cell arithmetic: scores
// [SECTION] Cell arithmetic: softmax
// [SECTION] Cell arithmetic: projections and outputs
#include <catch2/catch.hpp>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "core/attention.h"

using attn::Matrix;
using attn::Problem;
using attn::Scoring;
using ui::CellRef;
using ui::MatrixKind;

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Matrix mat(std::initializer_list<std::initializer_list<float>> rows) {
  const int r = static_cast<int>(rows.size());
  const int c = static_cast<int>(rows.begin()->size());
  Matrix m(r, c);
  int i = 0;
  for (const auto& row : rows) {
    int j = 0;
    for (float v : row) m(i, j++) = v;
    ++i;
  }
  return m;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

bool has_line(const std::vector<std::string>& lines, const std::string& want) {
  for (const std::string& l : lines)
    if (l == want) return true;
  return false;
}

// The texts are English unless a test switches the language (and switches it back).
struct English {
  English() { ui::set_language(ui::Lang::kEn); }
  ~English() { ui::set_language(ui::Lang::kEn); }
};

// Cross-attention, one batch item: 2 queries and 3 keys of 3 features, no weights.
Problem small_problem(Scoring scoring) {
  Problem p;
  p.queries = {mat({{1.0f, 0.0f, -1.0f}, {0.5f, -1.25f, 2.0f}})};
  p.keys = {mat({{0.25f, 0.5f, 1.0f}, {-1.0f, 2.0f, 0.5f}, {1.5f, 0.4f, -0.75f}})};
  p.values = {mat({{1.0f, 0.0f}, {0.0f, 1.0f}, {2.0f, 2.0f}})};
  p.scoring = scoring;
  return p;
}

CellRef cell(MatrixKind kind, int row, int col, int head = 0, int batch = 0) {
  CellRef c;
  c.kind = kind;
  c.row = row;
  c.col = col;
  c.head = head;
  c.batch = batch;
  return c;
}

std::vector<std::string> explain(const CellRef& c, const Problem& p, const attn::Trace& t) {
  return ui::explain_cell(c, p, t, t.heads[c.head]);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Numbers and subscripts
//-----------------------------------------------------------------------------

TEST_CASE("num spells the mask value and infinities out", "[app][explain]") {
  CHECK(ui::num(-1e6f) ==
        "\xe2\x88\x92"
        "1e6");                                                      // −1e6
  CHECK(ui::num(kInf) == "\xe2\x88\x9e");                            // ∞
  CHECK(ui::num(-kInf) == "\xe2\x88\x92\xe2\x88\x9e");               // −∞
  CHECK(ui::num(std::numeric_limits<float>::quiet_NaN()) == "NaN");  // not a number
}

TEST_CASE("num prints 4 significant digits with a real minus sign", "[app][explain]") {
  CHECK(ui::num(3.14159265f) == "3.142");
  CHECK(ui::num(-2.5f) ==
        "\xe2\x88\x92"
        "2.5");
  CHECK(ui::num(1234.5678f) == "1235");
  CHECK(ui::num(0.0123456f) == "0.01235");
  CHECK(ui::num(-0.36084f) ==
        "\xe2\x88\x92"
        "0.3608");
  CHECK(ui::num(1.0f) == "1");
  CHECK(ui::num(0.0f) == "0");
  CHECK(ui::num(-0.0f) == "0");  // no "−0"
  // Tiny numbers switch to an exponent, still with the real minus sign.
  const std::string tiny = ui::num(-0.00012345f);
  CHECK_THAT(tiny, Catch::StartsWith("\xe2\x88\x92"
                                     "1.2"));
  CHECK_THAT(tiny, Catch::EndsWith("e-04"));
}

TEST_CASE("sub writes 1-based subscript digits", "[app][explain]") {
  CHECK(ui::sub(0) == "\xe2\x82\x81");                           // ₁
  CHECK(ui::sub(1) == "\xe2\x82\x82");                           // ₂
  CHECK(ui::sub(8) == "\xe2\x82\x89");                           // ₉
  CHECK(ui::sub(9) == "\xe2\x82\x81\xe2\x82\x80");               // ₁₀
  CHECK(ui::sub(11) == "\xe2\x82\x81\xe2\x82\x82");              // ₁₂
  CHECK(ui::sub(99) == "\xe2\x82\x81\xe2\x82\x80\xe2\x82\x80");  // ₁₀₀
}

//-----------------------------------------------------------------------------
// [SECTION] Steps
//-----------------------------------------------------------------------------

TEST_CASE("every step has a distinct name and an explanation", "[app][explain]") {
  const English english;
  REQUIRE(ui::kStepCount == 8);
  std::set<std::string> names;
  for (int s = 0; s < ui::kStepCount; ++s) {
    const std::string name = ui::step_name(static_cast<ui::Step>(s));
    INFO("step " << s);
    CHECK_FALSE(name.empty());
    names.insert(name);
  }
  CHECK(names.size() == 8);

  // Explanations for several kinds of scenario, every step.
  std::vector<Problem> problems;
  for (Scoring sc : attn::kScorings) problems.push_back(small_problem(sc));
  problems[0].mask.causal = true;
  problems[1].positional_encoding = true;
  problems[1].dropout_p = 0.2f;
  problems[2].hard = true;
  problems[3].heads = 3;
  for (size_t k = 0; k < problems.size(); ++k) {
    for (int s = 0; s < ui::kStepCount; ++s) {
      INFO("problem " << k << ", step " << s);
      const char* text = ui::step_explanation(static_cast<ui::Step>(s), problems[k]);
      REQUIRE(text != nullptr);
      CHECK(std::string(text).size() > 20);
      CHECK_FALSE(ui::step_formula(static_cast<ui::Step>(s), problems[k]).empty());
    }
  }
}

TEST_CASE("the explanations follow the scenario", "[app][explain]") {
  const English english;
  Problem p = small_problem(Scoring::kScaledDot);
  const std::string plain = ui::step_explanation(ui::Step::kMasked, p);
  p.mask.causal = true;
  const std::string masked = ui::step_explanation(ui::Step::kMasked, p);
  CHECK(plain != masked);
  CHECK_THAT(masked, Catch::Contains("causal"));
  CHECK_THAT(ui::step_explanation(ui::Step::kScaled, p), Catch::Contains("square root of d"));
  p.scoring = Scoring::kDot;
  CHECK_THAT(ui::step_explanation(ui::Step::kScaled, p), !Catch::Contains("square root"));
  p.scoring = Scoring::kCosine;
  CHECK_THAT(ui::step_explanation(ui::Step::kScores, p), Catch::Contains("cosine"));
  p.hard = true;
  CHECK_THAT(ui::step_explanation(ui::Step::kWeights, p), Catch::Contains("Hard attention"));
}

TEST_CASE("the scaled step's formula shows √d with this scenario's per-head d", "[app][explain]") {
  const English english;
  // Keys of 3 features, no weights, one head: d = 3.
  Problem p = small_problem(Scoring::kScaledDot);
  p.temperature = 2.0f;
  CHECK(ui::step_formula(ui::Step::kScaled, p) ==
        "S' = S / \xe2\x88\x9a"
        "d / T,   d = 3,   T = 2");

  // A projection W_k of 8 columns split over 2 heads: d = 4.
  Problem m;
  m.queries = {Matrix::Constant(3, 6, 0.1f)};
  m.keys = m.values = m.queries;
  m.heads = 2;
  m.weights.W_q = Matrix::Constant(6, 8, 0.1f);
  m.weights.W_k = Matrix::Constant(6, 8, 0.1f);
  m.temperature = 0.5f;
  CHECK(ui::step_formula(ui::Step::kScaled, m) ==
        "S' = S / \xe2\x88\x9a"
        "d / T,   d = 4,   T = 0.5");

  // Plain dot products are not divided by √d.
  p.scoring = Scoring::kDot;
  CHECK(ui::step_formula(ui::Step::kScaled, p) == "S' = S / T,   T = 2");
}

TEST_CASE("the mask, concat and dropout formulas carry the scenario's numbers", "[app][explain]") {
  const English english;
  Problem p = small_problem(Scoring::kScaledDot);
  CHECK_THAT(ui::step_formula(ui::Step::kMasked, p), Catch::Contains("nothing is"));
  p.mask.causal = true;
  p.mask.window = 2;
  CHECK(ui::step_formula(ui::Step::kMasked, p) ==
        "M[i,j] = \xe2\x88\x92"
        "1e6 where masked (j > i, |i \xe2\x88\x92 j| > 2), else S'[i,j]");

  Problem m;
  m.queries = {Matrix::Constant(2, 6, 0.1f)};
  m.keys = m.values = m.queries;
  m.heads = 3;
  CHECK(ui::step_formula(ui::Step::kOutput, m) ==
        "Output = [O\xe2\x82\x81 | \xe2\x80\xa6 | O\xe2\x82\x83]");  // [O₁ | … | O₃]
  m.weights.W_o = Matrix::Constant(6, 2, 0.5f);
  CHECK(ui::step_formula(ui::Step::kOutput, m) ==
        "Output = [O\xe2\x82\x81 | \xe2\x80\xa6 | O\xe2\x82\x83]\xc2\xb7W_o");
  // Projections: X·W where there is a weight, the input as it is where there is none.
  // Heads are numbered from 1, as on screen, and so are the columns (d1, d2, ...).
  CHECK(ui::step_formula(ui::Step::kProjections, m) ==
        "Q = queries,   K = keys,   V = values,   head h takes columns (h\xe2\x88\x92"
        "1)\xc2\xb7"
        "d/3 + 1 to h\xc2\xb7"
        "d/3");
  m.weights.W_q = m.weights.W_k = Matrix::Constant(6, 6, 0.1f);
  CHECK_THAT(ui::step_formula(ui::Step::kProjections, m),
             Catch::StartsWith("Q = X\xc2\xb7W_q,   K = X\xc2\xb7W_k,   V = values"));
  m.weights.W_q = m.weights.W_k = Matrix();
  m.heads = 2;  // both heads named: [O₁ | O₂]
  CHECK(ui::step_formula(ui::Step::kOutput, m) ==
        "Output = [O\xe2\x82\x81 | O\xe2\x82\x82]\xc2\xb7W_o");

  m.dropout_p = 0.25f;
  CHECK_THAT(ui::step_formula(ui::Step::kWeights, m), Catch::Contains("dropout p = 0.25"));
  m.positional_encoding = true;
  m.pe_base = 500.0f;
  CHECK_THAT(ui::step_formula(ui::Step::kInputs, m), Catch::Contains("sin(p / 500^(2i/d))"));
}

//-----------------------------------------------------------------------------
// [SECTION] Mask reasons
//-----------------------------------------------------------------------------

TEST_CASE("mask_reason names each rule and is empty for a visible cell", "[app][explain]") {
  const English english;
  attn::MaskSpec none;
  CHECK(ui::mask_reason_text(none, 0, 2, 3) == "");

  attn::MaskSpec lens;
  lens.valid_lens = {{2}, {5}};
  CHECK(ui::mask_reason_text(lens, 0, 0, 2) == "key 3 is past the valid length 2 of batch item 1");
  CHECK(ui::mask_reason_text(lens, 0, 0, 1) == "");
  CHECK(ui::mask_reason_text(lens, 1, 0, 4) == "");

  attn::MaskSpec per_query;
  per_query.valid_lens = {{1, 3}};
  CHECK_FALSE(ui::mask_reason_text(per_query, 0, 0, 2).empty());
  CHECK(ui::mask_reason_text(per_query, 0, 1, 2) == "");

  attn::MaskSpec causal;
  causal.causal = true;
  CHECK(ui::mask_reason_text(causal, 0, 1, 2) == "causal mask: key 3 comes after query 2");
  CHECK(ui::mask_reason_text(causal, 0, 2, 2) == "");
  CHECK(ui::mask_reason_text(causal, 0, 2, 0) == "");

  attn::MaskSpec window;
  window.window = 1;
  CHECK(ui::mask_reason_text(window, 0, 0, 2) ==
        "local window: key 3 is more than 1 away from query 1");
  CHECK(ui::mask_reason_text(window, 0, 3, 1) ==
        "local window: key 2 is more than 1 away from query 4");
  CHECK(ui::mask_reason_text(window, 0, 2, 1) == "");
  CHECK(ui::mask_reason_text(window, 0, 2, 3) == "");

  attn::MaskSpec cells;
  cells.cells = {{1, 2, 0}};
  CHECK(ui::mask_reason_text(cells, 1, 2, 0) == "masked by hand");
  CHECK(ui::mask_reason_text(cells, 0, 2, 0) == "");  // another batch item
  CHECK(ui::mask_reason_text(cells, 1, 0, 2) == "");  // query and key swapped
}

TEST_CASE("mask_reason_text is non-empty exactly where a cell is masked", "[app][explain]") {
  const English english;
  attn::MaskSpec m;
  m.valid_lens = {{4}, {6}};
  m.causal = GENERATE(false, true);
  m.window = GENERATE(-1, 0, 2);
  m.cells = {{0, 5, 0}, {1, 3, 3}};
  const int n = 6;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        // The rules, written out independently.
        bool masked = j >= (b == 0 ? 4 : 6);
        masked = masked || (m.causal && j > i);
        masked = masked || (m.window >= 0 && std::abs(i - j) > m.window);
        masked = masked || (b == 0 && i == 5 && j == 0) || (b == 1 && i == 3 && j == 3);
        INFO("causal " << m.causal << ", window " << m.window << ", cell " << b << "," << i << ","
                       << j);
        CHECK(ui::mask_reason_text(m, b, i, j).empty() == !masked);
      }
}

TEST_CASE("mask reasons are translated", "[app][explain][i18n]") {
  const English restore;
  attn::MaskSpec causal;
  causal.causal = true;
  const std::string en = ui::mask_reason_text(causal, 0, 1, 2);
  ui::set_language(ui::Lang::kZh);
  const std::string zh = ui::mask_reason_text(causal, 0, 1, 2);
  CHECK(zh == "因果掩蔽：键 3 在查询 2 之后");
  CHECK(zh != en);
}

//-----------------------------------------------------------------------------
// [SECTION] Cell arithmetic: scores
//-----------------------------------------------------------------------------

TEST_CASE("a dot-product score cell shows the products of q and k", "[app][explain]") {
  const English english;
  const Scoring scoring = GENERATE(Scoring::kDot, Scoring::kScaledDot);
  INFO("scoring " << attn::scoring_name(scoring));
  const Problem p = small_problem(scoring);
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);

  // q₂·k₃ = 0.5×1.5 + (−1.25)×0.4 + 2×(−0.75) = 0.75 − 0.5 − 1.5 = −1.25 (the raw score,
  // before any scaling).
  const auto lines = explain(cell(MatrixKind::kScores, 1, 2), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "q\xe2\x82\x82\xc2\xb7k\xe2\x82\x83 = 0.5\xc3\x97"
        "1.5 + (\xe2\x88\x92"
        "1.25)\xc3\x97"
        "0.4 + 2\xc3\x97(\xe2\x88\x92"
        "0.75)");
  const float s = t.heads[0].scores[0](1, 2);
  CHECK(std::fabs(s - (-1.25f)) < 1e-5f);
  CHECK(lines[1] == "= " + ui::num(s));
  CHECK(lines[1] ==
        "= \xe2\x88\x92"
        "1.25");

  // Every cell: the last line is the trace's score, which is the hand-computed dot product.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double dot = 0.0;
      for (int c = 0; c < 3; ++c)
        dot += static_cast<double>(p.queries[0](i, c)) * static_cast<double>(p.keys[0](j, c));
      const float got = t.heads[0].scores[0](i, j);
      INFO("cell " << i << "," << j);
      CHECK(std::fabs(got - dot) < 1e-5);
      const auto l = explain(cell(MatrixKind::kScores, i, j), p, t);
      REQUIRE(l.size() == 2);
      CHECK(l[1] == "= " + ui::num(got));
      CHECK_THAT(l[0], Catch::StartsWith("q" + ui::sub(i) + "\xc2\xb7k" + ui::sub(j) + " = "));
    }
}

TEST_CASE("a score cell of head 2 uses that head's columns", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{1, 2, 3, -4}, {0, 0, 1, 1}})};
  p.keys = {mat({{1, 1, 1, 1}, {0.5f, 0.25f, 2, 0.5f}})};
  p.values = p.keys;
  p.scoring = Scoring::kDot;
  p.heads = 2;
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);
  // Head 2 sees columns 3 and 4: q₁·k₂ = 3×2 + (−4)×0.5 = 4.
  const auto lines = explain(cell(MatrixKind::kScores, 0, 1, 1), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "q\xe2\x82\x81\xc2\xb7k\xe2\x82\x82 = 3\xc3\x97"
        "2 + (\xe2\x88\x92"
        "4)\xc3\x97"
        "0.5");
  CHECK(lines[1] == "= 4");
  CHECK(std::fabs(t.heads[1].scores[0](0, 1) - 4.0f) < 1e-5f);
  // Head 1, same cell: 1×0.5 + 2×0.25 = 1.
  const auto first = explain(cell(MatrixKind::kScores, 0, 1, 0), p, t);
  REQUIRE(first.size() == 2);
  CHECK(first[1] == "= 1");
}

TEST_CASE("a long dot product elides its middle terms", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{1, 2, 3, 4, 5, 6, 7, 8}})};
  p.keys = {Matrix::Ones(2, 8)};
  p.values = p.keys;
  p.scoring = Scoring::kDot;
  const attn::Trace t = attn::run(p);
  const auto lines = explain(cell(MatrixKind::kScores, 0, 1), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::EndsWith("1\xc3\x97"
                                       "1 + 2\xc3\x97"
                                       "1 + 3\xc3\x97"
                                       "1 + 4\xc3\x97"
                                       "1 + \xe2\x80\xa6 + 8\xc3\x97"
                                       "1  (8 terms)"));
  CHECK(lines[1] == "= 36");  // 1 + 2 + … + 8
}

TEST_CASE("a scaled cell divides by √d and the temperature", "[app][explain]") {
  const English english;
  Problem p = small_problem(Scoring::kScaledDot);
  p.temperature = 2.0f;
  const attn::Trace t = attn::run(p);
  const auto lines = explain(cell(MatrixKind::kScaled, 1, 2), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "S' = S / \xe2\x88\x9a"
        "d / T = \xe2\x88\x92"
        "1.25 / \xe2\x88\x9a"
        "3 / 2");
  const double want = -1.25 / std::sqrt(3.0) / 2.0;  // −0.360844
  CHECK(std::fabs(t.heads[0].scaled[0](1, 2) - want) < 1e-5);
  CHECK(lines[1] ==
        "= \xe2\x88\x92"
        "0.3608");
}

TEST_CASE("a cosine score cell shows the dot product and both norms", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{3, 4}})};
  p.keys = {mat({{4, 3}, {0, 0}})};
  p.values = p.keys;
  p.scoring = Scoring::kCosine;
  const attn::Trace t = attn::run(p);
  // 3×4 + 4×3 = 24, |q| = |k| = 5, cos = 24 / 25 = 0.96.
  const auto lines = explain(cell(MatrixKind::kScores, 0, 0), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "q\xe2\x82\x81\xc2\xb7k\xe2\x82\x81 = 24,   |q| = 5,   |k| = 5");
  CHECK(lines[1] ==
        "cos = 24 / (5\xc3\x97"
        "5) = 0.96");
  CHECK(std::fabs(t.heads[0].scores[0](0, 0) - 0.96f) < 1e-5f);
  const auto zero = explain(cell(MatrixKind::kScores, 0, 1), p, t);
  REQUIRE(zero.size() == 2);
  CHECK(zero[1] == "a zero vector has no direction: the score is 0");
}

TEST_CASE("an additive score cell shows the tanh network", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{1}})};
  p.keys = {mat({{2}})};
  p.values = {mat({{1, 0}})};
  p.scoring = Scoring::kAdditive;
  p.weights.W_q = mat({{1, -1}});
  p.weights.W_k = mat({{0.5f, 0.25f}});
  p.weights.w_v = attn::Vector(2);
  p.weights.w_v << 2, -1;
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);
  // h = [1 + 1, −1 + 0.5] = [2, −0.5]; 2·tanh(2) − tanh(−0.5) = 2.3901724.
  const auto lines = explain(cell(MatrixKind::kScores, 0, 0), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] ==
        "= 2\xc3\x97tanh(2) + (\xe2\x88\x92"
        "1)\xc3\x97tanh(\xe2\x88\x92"
        "0.5)");
  const double want = 2.0 * std::tanh(2.0) - std::tanh(-0.5);
  CHECK(std::fabs(t.heads[0].scores[0](0, 0) - want) < 1e-5);
  CHECK(lines[2] == "= 2.39");
}

//-----------------------------------------------------------------------------
// [SECTION] Cell arithmetic: softmax
//-----------------------------------------------------------------------------

namespace {

// One query [1, 0] against keys [0, 0], [1, 0], [2, 0]: dot scores 0, 1, 2.
Problem ramp_problem() {
  Problem p;
  p.queries = {mat({{1, 0}, {0, 1}, {1, 1}})};
  p.keys = {mat({{0, 0}, {1, 0}, {2, 0}})};
  p.values = p.keys;
  p.scoring = Scoring::kDot;
  return p;
}

}  // namespace

TEST_CASE("a weight cell shows the row's softmax: maximum, exp and sum", "[app][explain]") {
  const English english;
  const Problem p = ramp_problem();
  const attn::Trace t = attn::run(p);
  const auto lines = explain(cell(MatrixKind::kWeights, 0, 1), p, t);
  INFO(joined(lines));
  // exp(1 − 2) = 0.3679, Σ = 1 + e⁻¹ + e⁻² = 1.503, w = 0.2447.
  const double sum = 1.0 + std::exp(-1.0) + std::exp(-2.0);
  const double w = std::exp(-1.0) / sum;
  CHECK(std::fabs(t.heads[0].weights[0](0, 1) - w) < 1e-5);
  CHECK(has_line(lines, "row maximum m = 2"));
  CHECK(has_line(lines, "exp(1 \xe2\x88\x92 2) = 0.3679"));
  CHECK(has_line(lines, "softmax sum \xce\xa3 exp(M[i,\xc2\xb7] \xe2\x88\x92 m) = 1.503"));
  CHECK(has_line(lines, "\xce\xb1 = 0.3679 / 1.503 = 0.2447"));
  CHECK(lines.back() == "\xce\xb1 = 0.3679 / 1.503 = " + ui::num(t.heads[0].weights[0](0, 1)));
}

TEST_CASE("a masked weight cell says why it is masked", "[app][explain]") {
  const English english;
  Problem p = ramp_problem();
  p.mask.causal = true;
  const attn::Trace t = attn::run(p);
  // Row 1 sees key 1 only: key 2 comes after query 1.
  const auto lines = explain(cell(MatrixKind::kWeights, 0, 1), p, t);
  INFO(joined(lines));
  CHECK(has_line(lines,
                 "masked (causal mask: key 2 comes after query 1): score \xe2\x88\x92"
                 "1e6"));
  CHECK(t.heads[0].weights[0](0, 1) == 0.0f);
  CHECK_THAT(lines.back(), Catch::EndsWith(" = 0"));
  // The step before: the masked cell shows the rule and the mask value.
  const auto masked = explain(cell(MatrixKind::kMasked, 0, 1), p, t);
  REQUIRE(masked.size() == 2);
  CHECK(masked[0] == "masked: causal mask: key 2 comes after query 1");
  CHECK(masked[1] ==
        "score \xe2\x86\x90 \xe2\x88\x92"
        "1e6");
  // A visible cell of the same step keeps its scaled score: row 3, key 2 scores 1.
  const auto visible = explain(cell(MatrixKind::kMasked, 2, 1), p, t);
  REQUIRE(visible.size() == 1);
  CHECK(visible[0] == "visible: the scaled score is kept, 1");
}

TEST_CASE("a fully masked row is uniform with −1e6 and NaN with −∞", "[app][explain]") {
  const English english;
  Problem p = ramp_problem();
  p.mask.valid_lens = {{0}};
  attn::Trace t = attn::run(p);
  auto lines = explain(cell(MatrixKind::kWeights, 0, 2), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::Contains("uniform"));
  CHECK(lines[1] == "\xce\xb1 = 1 / 3 = 0.3333");
  CHECK(std::fabs(t.heads[0].weights[0](0, 2) - 1.0 / 3.0) < 1e-6);

  p.mask.mask_value = -kInf;
  t = attn::run(p);
  lines = explain(cell(MatrixKind::kWeights, 0, 2), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[1], Catch::Contains("NaN"));
  CHECK(std::isnan(t.heads[0].weights[0](0, 2)));
}

TEST_CASE("a hard-attention weight cell names the row's best key", "[app][explain]") {
  const English english;
  Problem p = ramp_problem();
  p.hard = true;
  const attn::Trace t = attn::run(p);
  const auto lose = explain(cell(MatrixKind::kWeights, 0, 1), p, t);
  INFO(joined(lose));
  REQUIRE(lose.size() == 2);
  CHECK(lose[0] == "hard attention: the largest score of row 1 is at key 3");
  CHECK(lose[1] == "w\xe2\x82\x81\xe2\x82\x82 = 0");
  const auto win = explain(cell(MatrixKind::kWeights, 0, 2), p, t);
  REQUIRE(win.size() == 2);
  CHECK(win[1] == "w\xe2\x82\x81\xe2\x82\x83 = 1");
  CHECK(t.heads[0].weights[0](0, 2) == 1.0f);
}

//-----------------------------------------------------------------------------
// [SECTION] Cell arithmetic: projections and outputs
//-----------------------------------------------------------------------------

TEST_CASE("a projected cell shows the row of X times the column of W", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{1, -2}, {0.5f, 0.5f}})};
  p.keys = p.values = p.queries;
  p.heads = 2;
  // Column 4 of W_q is [0.5, −0.25].
  p.weights.W_q = mat({{1, 0, 0, 0.5f}, {0, 1, 0, -0.25f}});
  p.weights.W_k = mat({{1, 0, 0, 0}, {0, 1, 0, 0}});
  REQUIRE(attn::validate(p).error == "");
  const attn::Trace t = attn::run(p);
  // Head 2, column 2 is column 4 of the projection: 1×0.5 + (−2)×(−0.25) = 1.
  const auto lines = explain(cell(MatrixKind::kQ, 0, 1, 1), p, t);
  INFO(joined(lines));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "Q[1, 2] (head 2, column 4 of the projection)");
  CHECK_THAT(lines[1], Catch::EndsWith(" = 1\xc3\x97"
                                       "0.5 + (\xe2\x88\x92"
                                       "2)\xc3\x97(\xe2\x88\x92"
                                       "0.25)"));
  CHECK(lines[2] == "= 1");
  CHECK(std::fabs(t.heads[1].q[0](0, 1) - 1.0f) < 1e-6f);
  // No W_v: the values are used as they are.
  const auto v = explain(cell(MatrixKind::kV, 0, 0, 1), p, t);
  REQUIRE(v.size() == 2);
  CHECK_THAT(v[1], Catch::StartsWith("no projection"));
  CHECK_THAT(v[1], Catch::EndsWith(", \xe2\x88\x92"
                                   "2"));  // x[1, 2], the first column of head 2
}

TEST_CASE("a head-output cell is the weighted sum of the value column", "[app][explain]") {
  const English english;
  const Problem p = small_problem(Scoring::kScaledDot);
  const attn::Trace t = attn::run(p);
  const attn::HeadTrace& h = t.heads[0];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      // softmax of the row of q·k / √3, by hand, times the value column.
      double s[3], mx = -1e300, sum = 0.0, o = 0.0;
      for (int k = 0; k < 3; ++k) {
        s[k] = 0.0;
        for (int c = 0; c < 3; ++c) s[k] += double{p.queries[0](i, c)} * p.keys[0](k, c);
        s[k] /= std::sqrt(3.0);
        mx = std::max(mx, s[k]);
      }
      for (double& x : s) sum += (x = std::exp(x - mx));
      for (int k = 0; k < 3; ++k) o += s[k] / sum * p.values[0](k, j);
      INFO("cell " << i << "," << j);
      CHECK(std::fabs(h.output[0](i, j) - o) < 1e-5);
      const auto lines = explain(cell(MatrixKind::kHeadOutput, i, j), p, t);
      REQUIRE(lines.size() == 3);
      CHECK(lines[0] == "O[" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                            "] = \xce\xa3_j A[" + std::to_string(i + 1) + ", j]\xc2\xb7V[j, " +
                            std::to_string(j + 1) + "]");
      CHECK(lines[2] == "= " + ui::num(h.output[0](i, j)));
    }
}

TEST_CASE("a concat cell names its head and an input cell its value", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{1, 2, 3, 4, 5, 6}})};
  p.keys = p.values = p.queries;
  p.heads = 3;
  const attn::Trace t = attn::run(p);
  // Column 5 of the concatenation is head 3's column 1 (2 columns per head).
  const auto lines = explain(cell(MatrixKind::kConcat, 0, 4), p, t);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "column 5 comes from head 3 (its column 1)");
  // One key only: each head copies its value slice, so concat[1, 5] = x[1, 5] = 5.
  CHECK(lines[1] == "= 5");

  const auto in = explain(cell(MatrixKind::kKeys, 0, 3), p, t);
  REQUIRE(in.size() == 1);
  CHECK(in[0] == "keys[1, 4] = 4");
}

TEST_CASE("a positional-encoding cell shows the angle, with or without PE in the scenario",
          "[app][explain]") {
  const English english;
  Problem p = small_problem(Scoring::kDot);  // PE off, d = 3
  const attn::Trace t = attn::run(p);
  // The explorer's table of width 4: PE[3, 2] = sin(3 / 10000^(2/4)) = sin(0.03).
  CellRef c = cell(MatrixKind::kPositional, 3, 2);
  c.pe_d = 4;
  const auto lines = explain(c, p, t);
  REQUIRE(lines.size() >= 2);
  CHECK(lines[0] == "PE[3, 2] = sin(3 / 10000^(2/4))");
  CHECK(lines[1] == "= sin(0.03) = " + ui::num(static_cast<float>(std::sin(0.03))));
  // Without pe_d the scenario's d (3) is used: PE[1, 1] = cos(1 / 10000^(0/3)) = cos(1).
  const auto own = explain(cell(MatrixKind::kPositional, 1, 1), p, t);
  REQUIRE(own.size() >= 2);
  CHECK(own[0] == "PE[1, 1] = cos(1 / 10000^(0/3))");
  CHECK(own[1] == "= cos(1) = 0.5403");
}

TEST_CASE("gaussian scoring: its formula with σ, and a score's arithmetic", "[app][explain]") {
  const English english;
  Problem p;
  p.queries = {mat({{0.4f}, {2.0f}})};
  p.keys = p.values = {mat({{1.2f}, {0.4f}})};
  p.scoring = Scoring::kGaussian;
  CHECK(ui::step_formula(ui::Step::kScores, p) ==
        "S[i,j] = \xe2\x88\x92\xe2\x80\x96q_i \xe2\x88\x92 k_j\xe2\x80\x96\xc2\xb2 / "
        "(2\xcf\x83\xc2\xb2),   \xcf\x83 = 1");
  CHECK_THAT(ui::step_explanation(ui::Step::kScores, p), Catch::Contains("Gaussian kernel"));
  CHECK(std::string(ui::scoring_label(Scoring::kGaussian)) == "Gaussian kernel");
  const attn::Trace t = attn::run(p);
  const std::vector<std::string> lines = explain(cell(MatrixKind::kScores, 0, 0), p, t);
  REQUIRE(lines.size() >= 2);
  // −(0.4 − 1.2)² / (2 · 1²) = −0.32
  CHECK(lines.back() ==
        "= \xe2\x88\x92(0.4 \xe2\x88\x92 1.2)\xc2\xb2 / (2 \xc2\xb7 1\xc2\xb2) = "
        "\xe2\x88\x92"
        "0.32");
  // Two columns: the squared differences summed inside the parentheses.
  Problem two = p;
  two.queries = {mat({{0.4f, 1.0f}})};
  two.keys = two.values = {mat({{1.2f, -1.0f}})};
  two.weights.sigma = 2.0f;
  const attn::Trace t2 = attn::run(two);
  CHECK(explain(cell(MatrixKind::kScores, 0, 0), two, t2).back() ==
        "= \xe2\x88\x92((0.4 \xe2\x88\x92 1.2)\xc2\xb2 + (1 \xe2\x88\x92 (\xe2\x88\x92"
        "1))\xc2\xb2) / "
        "(2 \xc2\xb7 2\xc2\xb2) = \xe2\x88\x92"
        "0.58");
}

TEST_CASE("the column convention's formulas: S = KᵀQ, softmax over each column, O = V·A",
          "[app][explain][transpose]") {
  const English english;
  Problem p = small_problem(Scoring::kScaledDot);
  const auto col = [&](ui::Step s) { return ui::step_formula(s, p, true); };
  CHECK(col(ui::Step::kScores) == "S = K\xe1\xb5\x80\xc2\xb7Q");  // S = Kᵀ·Q
  CHECK(ui::step_formula(ui::Step::kScores, p) == "S = Q\xc2\xb7K\xe1\xb5\x80");
  // Scaling is the same either way.
  CHECK(col(ui::Step::kScaled) == ui::step_formula(ui::Step::kScaled, p));
  CHECK(col(ui::Step::kInputs) == "X: one column per token");
  CHECK_THAT(col(ui::Step::kMasked), Catch::StartsWith("M[j,i] = "));
  CHECK_THAT(col(ui::Step::kMasked), Catch::EndsWith(", else S'[j,i]"));
  CHECK_THAT(col(ui::Step::kWeights),
             Catch::StartsWith("A[j,i] = exp(M[j,i] \xe2\x88\x92 max M[\xc2\xb7,i])"));
  CHECK_THAT(col(ui::Step::kWeights), Catch::Contains("softmax over each column"));
  CHECK(col(ui::Step::kWeightedValues) ==
        "O = V\xc2\xb7"
        "A");
  p.hard = true;
  CHECK_THAT(col(ui::Step::kWeights),
             Catch::StartsWith("A[\xc2\xb7,i] = one-hot(argmax_j M[j,i])"));
  p.hard = false;
  // The stored weights are drawn transposed: Q = W_qᵀ·X.
  p.weights.W_q = p.weights.W_k = Matrix::Constant(p.queries[0].cols(), 2, 0.1f);
  CHECK_THAT(
      col(ui::Step::kProjections),
      Catch::StartsWith("Q = W_q\xe1\xb5\x80\xc2\xb7X,   K = W_k\xe1\xb5\x80\xc2\xb7X,   V = "));
  p.heads = 2;
  CHECK_THAT(col(ui::Step::kProjections), Catch::Contains("head h takes rows"));
  CHECK(col(ui::Step::kWeightedValues) ==
        "O_h = V_h\xc2\xb7"
        "A_h");
  CHECK(col(ui::Step::kOutput) == "Output = [O\xe2\x82\x81 ; O\xe2\x82\x82]");
  p.weights.W_o = Matrix::Constant(4, 2, 0.5f);
  CHECK(col(ui::Step::kOutput) ==
        "Output = W_o\xe1\xb5\x80\xc2\xb7[O\xe2\x82\x81 ; O\xe2\x82\x82]");
  // Every scoring has one; and explanations that speak of rows speak of columns.
  for (Scoring sc : attn::kScorings) {
    Problem q = small_problem(sc);
    INFO(ui::scoring_label(sc));
    for (int s = 0; s < ui::kStepCount; ++s)
      CHECK_FALSE(ui::step_formula(static_cast<ui::Step>(s), q, true).empty());
    CHECK_THAT(ui::step_explanation(ui::Step::kInputs, q, true), Catch::Contains("column"));
    CHECK_THAT(ui::step_explanation(ui::Step::kWeights, q, true), Catch::Contains("column"));
    CHECK_THAT(ui::step_explanation(ui::Step::kWeightedValues, q, true), Catch::Contains("column"));
  }
  Problem g = small_problem(Scoring::kGeneral);
  CHECK(ui::step_formula(ui::Step::kScores, g, true) ==
        "S = K\xe1\xb5\x80\xc2\xb7W\xe1\xb5\x80\xc2\xb7Q");
  // In Chinese too: every text the column convention adds is translated.
  ui::set_language(ui::Lang::kZh);
  CHECK_THAT(ui::step_formula(ui::Step::kWeights, p, true), Catch::Contains("对每一列做 softmax"));
  CHECK(std::string(ui::T(ui::step_explanation(ui::Step::kWeightedValues, p, true)))
            .find("每一输出列") == 0);
  ui::set_language(ui::Lang::kEn);
}
