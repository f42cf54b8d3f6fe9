// Scenario JSON v1: every class of bad input and its error text, round trips, presets, init.
//
// [SECTION] Bad input: one case per class, each checking the whole error line
// [SECTION] Round trips and number formatting
// [SECTION] Presets
// [SECTION] Generated weights
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/gradient.h"
#include "core/random.h"
#include "core/seq2seq.h"
#include "preset_files.h"
#include "scenario/scenario.h"
#include "scenario/seq2seq_form.h"
#include "scenario/tasks.h"

namespace {

std::string error_of(const std::string& json) {
  return scenario::parse(json).error;
}

// A valid self-attention base, 1 × 4 tokens × 2 features, to break one field at a time.
const char kX[] = R"("x": [[0.1, 0.2], [0.3, -0.4], [1, 2], [0, 0]])";

std::string with(const std::string& fields) {
  return std::string("{\"version\": 1, ") + kX + (fields.empty() ? "" : ", " + fields) + "}";
}

using test::read_file;

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Bad input: one case per class, each checking the whole error line
//-----------------------------------------------------------------------------

TEST_CASE("the valid base scenario parses", "[scenario]") {
  CHECK(error_of(with("")) == "");
}

TEST_CASE("malformed JSON names the position", "[scenario][bad]") {
  const std::string e = error_of(R"({"version": 1, "x": [[1, 2]],)");
  CHECK_THAT(e, Catch::StartsWith("json: parse error at line 1, column 30"));
  CHECK_THAT(error_of(""), Catch::StartsWith("json: parse error"));
  CHECK_THAT(error_of("{\"version\": 1, \"query_tokens\": [\"\xff\"]}"),
             Catch::StartsWith("json: parse error"));
}

TEST_CASE("nesting deeper than 16 levels is refused before it is built", "[scenario][bad]") {
  CHECK(error_of(std::string(17, '[') + std::string(17, ']')) ==
        "json: nests deeper than 16 levels");
  // Ten million '[' stop at the seventeenth: nothing of the rest is read or allocated.
  CHECK(error_of(std::string(10000000, '[')) == "json: nests deeper than 16 levels");
  // {"title": {"en": 15 × '['}} is 17 levels; one '[' less would be read (and refused as text).
  CHECK(error_of(R"({"version": 1, "title": {"en": )" + std::string(15, '[') + "]]") ==
        "json: nests deeper than 16 levels");
  CHECK(error_of(R"({"version": 1, "title": {"en": )" + std::string(14, '[') +
                 std::string(14, ']') + "}}") == "title.en: must be a string, got an array");
}

TEST_CASE("a bad document is refused before it is built: NUL bytes, repeated keys, long arrays",
          "[scenario][bad]") {
  CHECK(error_of(std::string(R"({"version": 1, "x": [[1]]})") + '\0' + "garbage") ==
        "json: has a NUL byte at position 26");
  CHECK(error_of(R"({"version": 1, "x": [[1]], "x": [[2]]})") == "x: appears twice in its object");
  CHECK(error_of(R"({"version": 1, "x": [[1]], "title": {"en": "a", "en": "b"}})") ==
        "title.en: appears twice in its object");
  std::string long_row = "[0";
  for (int i = 0; i < 65536; ++i) long_row += ",0";
  CHECK(error_of(R"({"version": 1, "x": [)" + long_row + "]]}") ==
        "x[0]: has more than 65536 elements");
  CHECK(error_of("[" + long_row + "]") == "[0]: has more than 65536 elements");
}

TEST_CASE("more than 2^23 numbers are refused as too large, before anything is built",
          "[scenario][bad]") {
  // 129 rows of 65536 numbers: each array within its limit, the document over.
  std::string row = "[0";
  for (int i = 1; i < 65536; ++i) row += ",0";
  row += "]";
  std::string x = "[" + row;
  for (int r = 1; r < 129; ++r) x += "," + row;
  CHECK(error_of(R"({"version": 1, "x": )" + x + "]}") == "json: holds more than 8388608 numbers");
}

TEST_CASE("text that would build a costly tree is refused before it is built", "[scenario][bad]") {
  // 45 MB of [{},{},…] would pass every check and take 1.3 GB to build, then be refused as
  // not a scenario. The tree's size is counted as it is read: 3.4 M empty objects (80
  // bytes each) are over the 256 MB, in 10 MB of text.
  std::string row = "[{}";
  for (int i = 1; i < 65536; ++i) row += ",{}";
  row += "]";
  std::string rows = "[" + row;
  for (int r = 1; r < 52; ++r) rows += "," + row;
  rows += "]";
  CHECK(error_of(rows) == "json: holds too many values (their tree would take more than 256 MB)");
  // Empty arrays, and a key's member (96 bytes) too.
  std::string arrays = "[[]";
  for (int i = 1; i < 65536; ++i) arrays += ",[]";
  arrays += "]";
  std::string many = "[" + arrays;
  for (int r = 1; r < 100; ++r) many += "," + arrays;
  CHECK(error_of(many + "]") ==
        "json: holds too many values (their tree would take more than 256 MB)");
  // An object's members are limited as an array's elements are.
  std::string members = "{\"k0\": 0";
  for (int i = 1; i <= 65536; ++i) members += ", \"k" + std::to_string(i) + "\": 0";
  CHECK(error_of(R"({"version": 1, "title": )" + members + "}}") ==
        "title: has more than 65536 members");
  // What a large scenario takes is well within: 1024 × 1024 numbers.
  std::string x = "[";
  for (int r = 0; r < 1024; ++r) {
    x += r ? ",[0" : "[0";
    for (int c = 1; c < 1024; ++c) x += ",0";
    x += "]";
  }
  CHECK(error_of(R"({"version": 1, "x": )" + x + "], \"causal\": true}") == "");
}

TEST_CASE("results past float32 are refused with the field named; a -inf row stays NaN",
          "[scenario][bad][overflow]") {
  // 1e30 · 1e30 overflows float32: taken, it would give an all-NaN trace with exit 0.
  CHECK(error_of(R"({"version": 1, "x": [[1e30, 1e30], [1e30, -1e30]]})") ==
        "x: values too large: the score of query 0 and key 0 (|q|·|k|) can overflow float32 (up "
        "to 2e+60; at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "queries": [[1, 0], [0, 1e19]], "keys": [[1, 1], [1e20, 1e20]],
                     "values": [[1], [2]], "scoring": "dot"})") ==
        "keys: values too large: the score of query 1 and key 1 (|q|·|k|) can overflow float32 "
        "(up to 1.4e+39; at most 1.7e+38 is safe)");
  // Only what can overflow: the same keys with small queries give scores of 1e20 at most.
  CHECK(error_of(R"({"version": 1, "queries": [[1, 0], [0, 1]], "keys": [[1, 1], [1e20, 1e20]],
                     "values": [[1], [2]], "scoring": "dot"})") == "");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2], [3, 4]], "temperature": 1e-38})") ==
        "temperature: is 1e-38, too small: query 0 divided by it can overflow float32 (up to "
        "2.3e+38; at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2], [3, 4]], "temperature": 1e-39})") ==
        "temperature: is 1e-39, too small: 1/temperature is past float32's range (3.4e+38)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2], [3, 4]], "temperature": 1e-37})") ==
        "temperature: is 1e-37, too small: the score of query 1 and key 1 divided by it can "
        "overflow float32 (up to 2.6e+38; at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2], [3, 4]], "temperature": 1e-30})") == "");
  CHECK(error_of(with(R"("W_q": [[1e38, 0], [0, 1]])")) ==
        "W_q: values too large: query 2 times W_q can overflow float32 (up to 2.2e+38; at most "
        "1.7e+38 is safe)");
  CHECK(error_of(with(R"("W_v": [[3e37, 0], [0, 1]])")) ==
        "W_v: values too large: the sum of the values weighted by the softmax can overflow "
        "float32 (up to 2.7e+38; at most 1.7e+38 is safe)");
  CHECK(error_of(with(R"("W_v": [[1, 0], [0, 1]], "W_o": [[1e38, 0], [0, 1]])")) ==
        "W_o: values too large: the heads' outputs times W_o can overflow float32 (up to 3.2e+38; "
        "at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 0], [0, 1]], "scoring": "additive",
                     "W_q": [[1], [1]], "W_k": [[1], [1]], "w_v": [1e39]})") ==
        "w_v[0]: is 1e+39, outside the float32 range");
  CHECK(error_of(R"({"version": 1, "x": [[1, 0], [0, 1]], "scoring": "additive",
                     "W_q": [[1], [1]], "W_k": [[1], [1]], "w_v": [3e38]})") ==
        "w_v: values too large: the scores (at most |w_v|_1) can overflow float32 (up to 3e+38; "
        "at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 0], [0, 1]], "scoring": "general",
                     "W": [[3e38, 0], [0, 1]]})") ==
        "W: values too large: query 0 times W can overflow float32 (up to 3e+38; at most 1.7e+38 "
        "is safe)");
  // What cosine scoring makes of huge vectors is a cosine: they pass (and score 1 and 0).
  const scenario::ParseResult cosine =
      scenario::parse(R"({"version": 1, "x": [[1e20, 1e20], [1e20, -1e20]], "scoring": "cosine"})");
  REQUIRE(cosine.error == "");
  const attn::Trace ct = attn::run(cosine.problem);
  CHECK(ct.heads[0].scores[0](0, 0) == Approx(1.0f).epsilon(1e-6));
  CHECK(std::fabs(ct.heads[0].scores[0](0, 1)) <= 1e-7f);
  CHECK(ct.output[0].allFinite());
  // A fully masked row under -inf is NaN by design, and accepted: it is the lesson.
  const scenario::ParseResult masked = scenario::parse(
      R"({"version": 1, "x": [[1e18, 1], [1, 1]], "valid_lens": 0, "mask_value": "-inf"})");
  REQUIRE(masked.error == "");
  CHECK(std::isnan(attn::run(masked.problem).output[0](0, 0)));
}

namespace {

// A problem with random sizes, options and magnitudes (10^0 to 10^40 in the inputs and the
// weights): near float32's edge, on both sides.
attn::Problem edge_problem(uint64_t seed, bool* self_attention) {
  uint64_t n = 0;
  const auto u = [&]() { return attn::uniform01(seed, n++); };
  const auto pick = [&](int k) { return static_cast<int>(u() * k); };
  const auto magnitude = [&](double lo, double hi) { return std::pow(10.0, lo + (hi - lo) * u()); };
  const auto matrix = [&](int rows, int cols, double scale) {
    attn::Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        m(i, j) = static_cast<float>((2.0 * u() - 1.0) * std::min(scale, 3.4e38));
    return m;
  };
  attn::Problem p;
  p.scoring = attn::kScorings[pick(5)];
  const int B = 1 + pick(2), n_q = 1 + pick(6), n_k = 1 + pick(6), d = 2 + 2 * pick(3);
  *self_attention = p.scoring != attn::Scoring::kAdditive && pick(2) == 0;
  const double in = magnitude(0, 40);
  attn::Batch q, k, v;
  for (int b = 0; b < B; ++b) {
    q.push_back(matrix(*self_attention ? n_k : n_q, d, in));
    k.push_back(*self_attention ? q[b] : matrix(n_k, d, in * magnitude(-10, 10)));
    v.push_back(*self_attention ? q[b] : matrix(n_k, d, in * magnitude(-10, 10)));
  }
  p.queries = q;
  p.keys = k;
  p.values = v;
  const double w = magnitude(-5, 25);
  if (p.scoring == attn::Scoring::kAdditive) {
    p.weights.W_q = matrix(d, 3, w);
    p.weights.W_k = matrix(d, 3, w);
    p.weights.w_v = matrix(3, 1, magnitude(0, 40)).col(0);
  } else {
    p.heads = 1 + pick(2);
    if (pick(2)) {
      p.weights.W_q = matrix(d, 4, w);
      p.weights.W_k = matrix(d, 4, w);
      p.weights.W_v = matrix(d, 4, w);
    }
    if (pick(2)) p.weights.W_o = matrix(p.weights.W_v.size() ? 4 : d, 3, magnitude(-5, 30));
    if (p.scoring == attn::Scoring::kGeneral) {
      const int dk = (p.weights.W_k.size() ? 4 : d) / p.heads;
      const int dq = (p.weights.W_q.size() ? 4 : d) / p.heads;
      p.weights.W = matrix(dq, dk, magnitude(-5, 20));
    }
  }
  p.temperature = static_cast<float>(magnitude(-30, 3));
  p.positional_encoding = pick(3) == 0;
  p.hard = pick(4) == 0;
  if (!p.hard && pick(3) == 0) {
    p.dropout_p = static_cast<float>(0.9 * u());
    p.dropout_seed = 3;
  }
  if (pick(2)) p.mask.causal = true;
  if (pick(3) == 0) p.mask.valid_lens.assign(B, {pick(n_k + 1)});
  p.mask.mask_value = pick(2) ? -std::numeric_limits<float>::infinity() : -1e6f;
  return p;
}

// Whether every number of the trace is finite but NaN weights (and what follows from them)
// in rows the mask hides wholly under -inf.
std::string first_non_finite(const attn::Problem& p, const attn::Trace& t) {
  const bool minus_inf = std::isinf(p.mask.mask_value);
  const auto hidden = [&](int b, int i) {
    if (!minus_inf) return false;
    for (int j = 0; j < attn::batch_rows(p.keys); ++j)
      if (!attn::is_masked(p.mask, b, i, j)) return false;
    return true;
  };
  const auto scan = [&](const attn::Batch& m, const char* name, bool masked) -> std::string {
    for (size_t b = 0; b < m.size(); ++b)
      for (int i = 0; i < m[b].rows(); ++i)
        for (int j = 0; j < m[b].cols(); ++j) {
          const float x = m[b](i, j);
          if (std::isfinite(x)) continue;
          if (hidden(static_cast<int>(b), i) && std::string(name) != "scores" &&
              std::string(name) != "scaled")
            continue;
          if (masked && x == -INFINITY && attn::is_masked(p.mask, static_cast<int>(b), i, j))
            continue;
          return std::string(name) + "[" + std::to_string(b) + "][" + std::to_string(i) + "][" +
                 std::to_string(j) + "] = " + std::to_string(x);
        }
    return "";
  };
  std::string e;
  for (const attn::Batch* m : {&t.q_proj, &t.k_proj, &t.v_proj})
    if (!(e = scan(*m, "projection", false)).empty()) return e;
  for (const attn::HeadTrace& h : t.heads) {
    if (!(e = scan(h.scores, "scores", false)).empty()) return e;
    if (!(e = scan(h.scaled, "scaled", false)).empty()) return e;
    if (!(e = scan(h.masked, "masked", true)).empty()) return e;
    if (!(e = scan(h.weights, "weights", false)).empty()) return e;
    if (!(e = scan(h.output, "head output", false)).empty()) return e;
  }
  return scan(t.output, "output", false);
}

}  // namespace

TEST_CASE("what check_magnitudes accepts runs with every number finite, near float32's edge",
          "[scenario][overflow]") {
  int accepted = 0, refused = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    bool self = false;
    const attn::Problem p = edge_problem(seed, &self);
    REQUIRE(attn::validate(p).error == "");
    const std::string e = scenario::check_magnitudes(p, self);
    if (!e.empty()) {
      ++refused;
      INFO(e);
      const bool named = e.find(": values too large: ") != std::string::npos ||
                         e.rfind("temperature: is ", 0) == 0;
      CHECK(named);
      continue;
    }
    ++accepted;
    INFO("seed " << seed);
    CHECK(first_non_finite(p, attn::run(p)) == "");
    attn::RunOptions lean;
    lean.keep_head_matrices = false;
    CHECK(first_non_finite(p, attn::run(p, lean)) == "");
  }
  INFO(accepted << " accepted, " << refused << " refused");
  CHECK(accepted > 500);
  CHECK(refused > 500);
}

TEST_CASE("parse resolves the scenario once: the problem is what to_problem gives",
          "[scenario][json]") {
  const scenario::ParseResult r = scenario::parse(R"({"version": 1, "x": [[1, 0], [0, 1]],
      "init": {"seed": 3, "d_model": 4}, "heads": 2, "causal": true})");
  REQUIRE(r.ok());
  const attn::Problem p = scenario::to_problem(r.scenario);
  CHECK(r.problem.weights.W_q == p.weights.W_q);
  CHECK(r.problem.weights.W_o == p.weights.W_o);
  CHECK(r.problem.heads == 2);
  CHECK(r.problem.mask.causal);
  CHECK(r.problem.queries[0] == p.queries[0]);
  const scenario::ParseResult bad = scenario::parse(R"({"version": 1, "x": [[1, 0]], "heads": 3})");
  CHECK_FALSE(bad.ok());
  CHECK(bad.problem.queries.empty());
}

TEST_CASE("the document must be an object with version 1", "[scenario][bad]") {
  CHECK(error_of("[1, 2]") == "scenario: must be a JSON object, got an array");
  CHECK(error_of(std::string("{") + kX + "}") == "version: missing; expected 1");
  CHECK(error_of(std::string("{\"version\": 2, ") + kX + "}") ==
        "version: 2 is not supported; this build reads version 1");
  CHECK(error_of(std::string("{\"version\": \"1\", ") + kX + "}") ==
        "version: must be an integer, got a string");
}

TEST_CASE("unknown fields are named", "[scenario][bad]") {
  CHECK(error_of(with(R"("scorring": "dot")")) == "scorring: unknown field");
  CHECK(error_of(with(R"("init": {"seed": 1, "d_model": 4, "bias": true})")) ==
        "init.bias: unknown field");
  CHECK(error_of(with(R"("a\nb\"c": 1)")) == "\"a\\nb\\\"c\": unknown field");
}

TEST_CASE("inputs: missing, doubled, empty, ragged, wrong types", "[scenario][bad]") {
  CHECK(error_of(R"({"version": 1})") ==
        "queries: missing; give x (self-attention), or queries, keys and values");
  CHECK(error_of(R"({"version": 1, "queries": [[1]], "keys": [[1]]})") ==
        "values: missing; give x (self-attention), or queries, keys and values");
  CHECK(error_of(with(R"("queries": [[1, 2]])")) ==
        "queries: give either x (self-attention) or queries/keys/values");
  CHECK(error_of(R"({"version": 1, "x": []})") == "x: is empty");
  CHECK(error_of(R"({"version": 1, "x": 3})") ==
        "x: must be a 2-D [rows][cols] or 3-D [batch][rows][cols] array of numbers, got a "
        "number");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2], [3]]})") == "x[1]: has 1 columns, expected 2");
  CHECK(error_of(R"({"version": 1, "queries": [[[1, 2]]], "keys": [[[1, 2], [3, 4], [5]]],
                     "values": [[[1], [2], [3]]]})") == "keys[0][2]: has 1 columns, expected 2");
  CHECK(error_of(R"({"version": 1, "x": [[1, "2"]]})") ==
        "x[0][1]: must be a number, got a string");
  CHECK(error_of(R"({"version": 1, "x": [[[1, 2]], [[3, 4], [5, 6]]]})") ==
        "x[1]: has 2 rows, expected 1 like x[0]");
}

TEST_CASE("non-finite and out-of-range numbers", "[scenario][bad]") {
  CHECK(error_of(R"({"version": 1, "x": [[1, 1e999]]})") == "x[0][1]: is not a finite number");
  CHECK(error_of(R"({"version": 1, "x": [[[1, 2]], [[3, -1e400]]]})") ==
        "x[1][0][1]: is not a finite number");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2]], "temperature": 1e999})") ==
        "temperature: is not a finite number");
  // A key with a line break in the path of such a number is quoted: the error stays one line.
  CHECK(error_of(R"({"version": 1, "odd\nkey": {"a b": 1e999}})") ==
        R"("odd\nkey"."a b": is not a finite number)");
  CHECK(error_of(R"({"version": 1, "x": [[1e39, 1]]})") ==
        "x[0][0]: is 1e+39, outside the float32 range");
  CHECK(error_of(with(R"("W_q": [[1, 2], [NaN, 1]])")).rfind("json: parse error", 0) == 0);
}

TEST_CASE("shapes that do not fit together", "[scenario][bad]") {
  CHECK(error_of(R"({"version": 1, "queries": [[[1, 2]], [[3, 4]]], "keys": [[[1, 2]]],
                     "values": [[[1]]]})") ==
        "keys: has batch 1, expected 2 (the batch of queries)");
  CHECK(error_of(R"({"version": 1, "queries": [[1, 2]], "keys": [[1, 2], [3, 4]],
                     "values": [[1], [2], [3]]})") ==
        "values: has 3 rows, expected 2 (one value per key)");
  CHECK(error_of(R"({"version": 1, "queries": [[1, 2]], "keys": [[1, 2, 3]], "values": [[1]]})") ==
        "keys: key size 3 differs from query size 2; scaled_dot scoring needs equal sizes "
        "(project with W_q/W_k, or use additive or general)");
  CHECK(error_of(with(R"("W_q": [[1, 2, 3]])")) ==
        "W_q: has 1 rows, expected 2 (the columns of queries)");
  CHECK(error_of(with(R"("W_o": [[1], [2], [3]])")) ==
        "W_o: has 3 rows, expected 2 (the width of the concatenated heads)");
}

TEST_CASE("valid lengths: negative, too large, wrong count", "[scenario][bad]") {
  const std::string batch2 =
      R"({"version": 1, "x": [[[1, 2], [3, 4], [5, 6]], [[1, 2], [3, 4], [5, 6]]], )";
  CHECK(error_of(batch2 + R"("valid_lens": [2, -1]})") ==
        "valid_lens[1]: is -1, must be at least 0");
  CHECK(error_of(batch2 + R"("valid_lens": [4, 1]})") ==
        "valid_lens[0]: is 4, larger than the 3 keys");
  CHECK(error_of(batch2 + R"("valid_lens": 7})") == "valid_lens: is 7, larger than the 3 keys");
  CHECK(error_of(batch2 + R"("valid_lens": [1, 2, 3]})") ==
        "valid_lens: has 3 entries, expected 2 (one per batch item)");
  CHECK(error_of(batch2 + R"("valid_lens": [[1, 2], [1, 2, 3]]})") ==
        "valid_lens[0]: has 2 entries, expected 3 (one per query)");
  CHECK(error_of(batch2 + R"("valid_lens": [[1, 2, 3], [1, 9, 3]]})") ==
        "valid_lens[1][1]: is 9, larger than the 3 keys");
  CHECK(error_of(batch2 + R"("valid_lens": [[1, 2, 3], 2]})") ==
        "valid_lens[1]: must be an array of lengths like valid_lens[0], got a number");
  CHECK(error_of(batch2 + R"("valid_lens": [[1, 2, 3], [0, 0, 0]]})") == "");
}

TEST_CASE("heads must divide the model width", "[scenario][bad]") {
  CHECK(error_of(with(R"("heads": 3, "init": {"seed": 1, "d_model": 8})")) ==
        "heads: 3 does not divide d_model 8 (the columns of W_q)");
  CHECK(error_of(with(R"("heads": 3)")) ==
        "heads: 3 does not divide d_model 2 (the columns of queries)");
  CHECK(error_of(with(R"("heads": 2.5)")) == "heads: must be an integer, got 2.5");
  CHECK(error_of(with(R"("heads": 0)")) == "heads: is 0, must be at least 1");
  CHECK(error_of(with(R"("heads": 2, "scoring": "additive", "init": {"seed": 1, "d_model": 4})")) ==
        "heads: additive scoring uses one head");
}

TEST_CASE("sigma: gaussian scoring's width, its bounds and where it may be given",
          "[scenario][bad][gaussian]") {
  const auto gauss = [](const std::string& sigma) {
    return error_of(with(R"("scoring": "gaussian", "sigma": )" + sigma));
  };
  CHECK(gauss("0.25") == "");
  CHECK(gauss("1000") == "");
  CHECK(gauss("0") == "sigma: must be a number > 0 and at most 1000");
  CHECK(gauss("-1") == "sigma: must be a number > 0 and at most 1000");
  CHECK(gauss("1e9") == "sigma: must be a number > 0 and at most 1000");
  CHECK(gauss("1e-50") == "sigma: must be a number > 0 and at most 1000");  // 0 as a float
  CHECK(gauss(R"("x")") == "sigma: must be a number, got a string");
  CHECK(gauss("1e400") == "sigma: is not a finite number");
  CHECK(error_of(with(R"("scoring": "dot", "sigma": 0.5)")) ==
        "sigma: only with \"scoring\": \"gaussian\"");
  CHECK(error_of(with(R"("sigma": 0.5)")) == "sigma: only with \"scoring\": \"gaussian\"");
  CHECK(error_of(with(R"("scoring": "gaussian", "sigma": 1e-30)")) ==
        "sigma: is 1e-30, too small: the score of query 0 and its farthest key (|q − k|² / (2σ²)) "
        "can overflow float32 (up to 3e+60; at most 1.7e+38 is safe)");
  CHECK(error_of(R"({"version": 1, "x": [[1, 2]], "scoring": "gaussian", "layers": [{}]})") ==
        "scoring: gaussian scoring is not available with \"layers\"");
  // Read, written back (always, with gaussian scoring) and handed to the problem's weights.
  const scenario::ParseResult r = scenario::parse(with(R"("scoring": "gaussian", "sigma": 0.4)"));
  REQUIRE(r.ok());
  CHECK(r.scenario.sigma == 0.4f);
  CHECK(r.problem.weights.sigma == 0.4f);
  CHECK(scenario::to_json(r.scenario).find(R"("scoring":"gaussian","sigma":0.4)") !=
        std::string::npos);
  const scenario::ParseResult one = scenario::parse(with(R"("scoring": "gaussian")"));
  REQUIRE(one.ok());
  CHECK(one.scenario.sigma == 1.0f);
  CHECK(scenario::to_json(one.scenario).find(R"("sigma":1)") != std::string::npos);
  // A trained σ goes back into the scenario with the weights (attention-cli train, the page).
  scenario::Scenario s = r.scenario;
  attn::Weights w = r.problem.weights;
  w.sigma = 0.75f;
  scenario::set_weights(&s, w);
  CHECK(s.sigma == 0.75f);
  CHECK(scenario::parse(scenario::to_json(s)).scenario.sigma == 0.75f);
}

TEST_CASE("scoring: unknown name and missing weights", "[scenario][bad]") {
  CHECK(error_of(with(R"("scoring": "dotty")")) ==
        "scoring: unknown scoring \"dotty\", expected one of dot, scaled_dot, additive, general, "
        "cosine, gaussian");
  CHECK(error_of(with(R"("scoring": "additive")")) ==
        "W_q: additive scoring needs W_q (d_q × hidden)");
  CHECK(error_of(with(R"("scoring": "general")")) ==
        "W: general scoring needs W (d_q × d_k per head)");
  CHECK(error_of(with(R"("scoring": "general", "W": [[1, 0, 0], [0, 1, 0]])")) ==
        "W: is 2×3, expected 2×2 (query × key size per head)");
  CHECK(error_of(with(R"("W": [[1, 0], [0, 1]])")) == "W: is only used by general scoring");
  CHECK(error_of(with(R"("scoring": "additive", "W_q": [[1], [2]], "W_k": [[1], [2]],
                         "w_v": [1, 2])")) ==
        "w_v: has 2 entries, expected 1 (the hidden size of W_q)");
}

TEST_CASE("temperature, dropout, masks, positional encoding", "[scenario][bad]") {
  CHECK(error_of(with(R"("temperature": 0)")) == "temperature: must be a positive finite number");
  CHECK(error_of(with(R"("dropout": {"p": 1})")) == "dropout.p: must be in [0, 1)");
  CHECK(error_of(with(R"("dropout": {"seed": 1})")) == "dropout.p: missing");
  CHECK(error_of(with(R"("mask_value": "-infinity")")) ==
        "mask_value: must be a negative number or the string \"-inf\", got \"-infinity\"");
  CHECK(error_of(with(R"("mask_value": 5)")) ==
        "mask_value: must be a negative number or \"-inf\"");
  CHECK(error_of(with(R"("mask_value": 0)")) ==
        "mask_value: must be a negative number or \"-inf\"");
  CHECK(error_of(with(R"("mask_value": -0.0)")) ==
        "mask_value: must be a negative number or \"-inf\"");
  CHECK(error_of(with(R"("mask_value": "-inf")")) == "");
  CHECK(error_of(with(R"("causal": 1)")) == "causal: must be true or false, got a number");
  CHECK(error_of(with(R"("window": -2)")) == "window: is -2, must be at least 0");
  CHECK(error_of(with(R"("masked_cells": [[0, 5, 0]])")) ==
        "masked_cells[0]: [0, 5, 0] is outside batch 1 × 4 queries × 4 keys");
  CHECK(error_of(with(R"("masked_cells": [[0, 1]])")) ==
        "masked_cells[0]: must be a [batch, query, key] triple");
  CHECK(error_of(with(R"("positional_encoding": {"kind": "learned"})")) ==
        "positional_encoding.kind: unknown kind \"learned\", expected \"sinusoidal\"");
  CHECK(error_of(with(R"("positional_encoding": {"base": 1})")) ==
        "positional_encoding.base: must be a finite number greater than 1");
  CHECK(error_of(with(R"("init": {"seed": 1})")) == "init.d_model: missing");
}

TEST_CASE("tokens: count, length, type", "[scenario][bad]") {
  CHECK(error_of(with(R"("query_tokens": ["a", "b", "c"])")) ==
        "query_tokens: has 3 tokens, expected 4 (one per query)");
  CHECK(error_of(with(R"("query_tokens": ["a", "b", "c", 4])")) ==
        "query_tokens[3]: must be a string or {\"en\": ..., \"zh\": ...}, got a number");
  CHECK(error_of(with(R"("query_tokens": ["a", "b", "c", {"zh": "高"}])")) ==
        "query_tokens[3].en: missing (a token is \"the\" or {\"en\": \"the\", \"zh\": ...})");
  CHECK(error_of(with(R"("query_tokens": ["a", "b", "c", {"en": "d", "fr": "d"}])")) ==
        "query_tokens[3].fr: unknown field");
  CHECK(error_of(with(R"("query_tokens": ["a", "b", "c", {"en": "d", "zh": 4}])")) ==
        "query_tokens[3].zh: must be a string, got a number");
  CHECK(error_of(with("\"key_tokens\": [\"" + std::string(70, 'k') + "\", \"b\", \"c\", \"d\"]")) ==
        "key_tokens[0]: is 70 bytes long, more than the limit 64");
  CHECK(error_of(with(R"("query_tokens": ["我", "看见", "一把", "锯"])")) == "");
}

TEST_CASE("sizes beyond the limits are refused before allocation", "[scenario][bad]") {
  std::string rows;
  for (int i = 0; i <= scenario::kMaxRows; ++i) rows += i ? ",[0]" : "[0]";
  CHECK(error_of("{\"version\": 1, \"x\": [" + rows + "]}") ==
        "x: has 4097 rows, more than the limit 4096");
  // 64 batch items × 64 heads × 256 × 256 score cells.
  std::string item = "[";
  for (int i = 0; i < 256; ++i) item += i ? ",[0.5]" : "[0.5]";
  item += "]";
  std::string batch = "[";
  for (int b = 0; b < 64; ++b) batch += (b ? "," : "") + item;
  batch += "]";
  CHECK(error_of("{\"version\": 1, \"x\": " + batch +
                 ", \"heads\": 64, \"init\": {\"seed\": 1, \"d_model\": 64}}") ==
        "heads: batch 64 × 64 heads × 256 queries × 256 keys is 268435456 score cells, more "
        "than the limit 134217728");
}

//-----------------------------------------------------------------------------
// [SECTION] Round trips and number formatting
//-----------------------------------------------------------------------------

TEST_CASE("format_float writes the shortest text that reads back exactly", "[scenario][json]") {
  CHECK(scenario::format_float(0.1f) == "0.1");
  CHECK(scenario::format_float(-1e6f) == "-1e+06");
  CHECK(scenario::format_float(3.0f) == "3");
  CHECK(scenario::format_float(10.0f) == "10");  // not %g's "1e+01"
  CHECK(scenario::format_float(250.0f) == "250");
  CHECK(scenario::format_float(0.0005f) == "0.0005");
  CHECK(scenario::format_float(1e-5f) == "1e-05");
  CHECK(scenario::format_float(0.0f) == "0");
  CHECK(scenario::format_float(-0.0f) == "-0.0");  // "-0" would read back as the integer 0
  CHECK(scenario::format_float(-INFINITY) == "-inf");
  for (uint64_t i = 0; i < 2000; ++i) {
    const float v = static_cast<float>((attn::uniform01(99, i) - 0.5) * std::pow(10.0, i % 13 - 6));
    const std::string text = scenario::format_float(v);
    INFO(text);
    CHECK(std::strtof(text.c_str(), nullptr) == v);
  }
}

TEST_CASE("tour: the lesson's notes per step", "[scenario][bad]") {
  CHECK(error_of(with(R"("tour": [{"step": 5, "text": "look"}])")) == "");
  CHECK(error_of(with(R"("tour": {"step": 5})")) ==
        R"(tour: must be an array of {"step": 5, "text": ...}, got an object)");
  CHECK(error_of(with(R"("tour": [5])")) ==
        R"(tour[0]: must be an object {"step": 5, "text": ...}, got a number)");
  CHECK(error_of(with(R"("tour": [{"step": 8, "text": "x"}])")) ==
        "tour[0].step: is 8, must be at most 7");
  CHECK(error_of(with(R"("tour": [{"text": "x"}])")) == "tour[0].step: missing");
  CHECK(error_of(with(R"("tour": [{"step": 1}])")) == "tour[0].text: missing");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": {"zh": "只有中文"}}])")) ==
        "tour[0].text: has no English text");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a"}, {"step": 1, "text": "b"}])")) ==
        "tour[1].step: 1 has a note already");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a", "colour": "red"}])")) ==
        "tour[0].colour: unknown field");
  std::string many;
  for (int i = 0; i < 17; ++i) many += std::string(i ? "," : "") + "{\"step\": 0, \"text\": \"a\"}";
  CHECK(error_of(with("\"tour\": [" + many + "]")) == "tour: has 17 notes, more than the limit 16");
  // The controls a note asks the learner to use: ids as in hide=.
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a", "controls": ["valid_lens"]}])")) == "");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a", "controls": "causal"}])")) ==
        "tour[0].controls: must be an array of control ids, got a string");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a", "controls": ["Valid lens"]}])")) ==
        R"(tour[0].controls[0]: must be a control id such as "valid_lens" (a-z and _))");
  CHECK(error_of(with(R"("tour": [{"step": 1, "text": "a", "controls": [3]}])")) ==
        "tour[0].controls[0]: must be a string, got a number");
}

TEST_CASE("to_json and parse round-trip every field exactly", "[scenario][json]") {
  const std::string original = R"({"version": 1, "title": {"en": "T", "zh": "题"},
    "queries": [[[0.1, 0.2]], [[0.3, 0.4]]], "keys": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
    "values": [[[1], [2]], [[3], [4]]], "query_tokens": [[{"en": "q", "zh": "问"}], ["p"]],
    "key_tokens": [["a", "b"], ["c", "d"]], "scoring": "general", "temperature": 0.7,
    "valid_lens": [[1], [2]], "causal": true, "window": 1, "masked_cells": [[1, 0, 1]],
    "mask_value": "-inf", "W": [[0.5, -0.25], [1e-3, 2]], "hard": true,
    "dropout": {"p": 0.125, "seed": 9}, "positional_encoding": {"kind": "sinusoidal",
    "base": 100}, "tour": [{"step": 2, "text": {"en": "Scores", "zh": "评分"}},
    {"step": 6, "text": "Mix", "controls": ["hard", "causal"]}]})";
  const scenario::ParseResult a = scenario::parse(original);
  REQUIRE(a.error == "");
  const std::string text = scenario::to_json(a.scenario);
  const scenario::ParseResult b = scenario::parse(text);
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == text);
  CHECK(b.scenario.W(1, 0) == 1e-3f);
  CHECK(b.scenario.mask_value == -INFINITY);
  CHECK(b.scenario.query_tokens == std::vector<std::vector<std::string>>{{"q"}, {"p"}});
  CHECK(b.scenario.query_tokens_zh == std::vector<std::vector<std::string>>{{"问"}, {"p"}});
  CHECK(b.scenario.key_tokens_zh.empty());  // no Chinese given: none kept
  CHECK(b.scenario.valid_lens_form == scenario::ValidLensForm::kPerQuery);
  CHECK(b.scenario.key_tokens[1][1] == "d");
  CHECK(b.scenario.title.zh == "题");
  REQUIRE(b.scenario.tour.size() == 2);
  CHECK(b.scenario.tour[0].step == 2);
  CHECK(b.scenario.tour[0].text.zh == "评分");
  CHECK(b.scenario.tour[1].text.en == "Mix");
}

TEST_CASE("each weight is read and written under its name in attn::kWeightNames",
          "[scenario][json]") {
  // A 2 × 2 matrix, or two numbers for w_v; the weights a scoring needs with it (W: general;
  // w_v: additive, with its own W_q and W_k) are written before it.
  for (const char* name : attn::kWeightNames) {
    INFO(name);
    const std::string n = name;
    const bool vector = n == "w_v";
    const std::string with = n == "W"     ? R"("scoring": "general", )"
                             : n == "w_v" ? R"("scoring": "additive", "W_q": [[1, 0], [0, 1]],
                                               "W_k": [[1, 0], [0, 1]], )"
                                          : "";
    const std::string text = R"({"version": 1, "x": [[1, 0], [0, 1]], )" + with + "\"" + n +
                             "\": " + (vector ? "[0.5, -2]" : "[[0.5, -2], [3, 0.25]]") + "}";
    const scenario::ParseResult r = scenario::parse(text);
    REQUIRE(r.error == "");
    int given = 0;
    attn::for_each_weight(r.scenario, [&](const char* m_name, const auto& m) {
      if (m_name != n) return;
      ++given;
      CHECK(m.size() == (vector ? 2 : 4));
      CHECK(m.sum() == (vector ? -1.5f : 1.75f));
    });
    CHECK(given == 1);
    CHECK(scenario::to_json(r.scenario).find("\"" + n + "\":") != std::string::npos);
    // The problem has it under the same name.
    const attn::Problem p = scenario::to_problem(r.scenario);
    const attn::Matrix* m = attn::weight_matrix(p.weights, n);
    CHECK((vector ? p.weights.w_v.sum() : m ? m->sum() : 0.0f) == (vector ? -1.5f : 1.75f));
  }
}

TEST_CASE(
    "a quiz round-trips, its answer keys are checked against the core, and an edit that "
    "takes a question's cell away drops the question",
    "[scenario][json][quiz]") {
  const std::string original = R"({"version": 1, "x": [[2, 0], [0, 1], [1, 1]], "heads": 2,
    "quiz": [{"step": 2, "ask": {"en": "Which?", "zh": "哪个？"}, "why": "Row 1 is (2, 0).",
              "answer": {"row": 0, "key": 0}},
             {"step": 4, "ask": "How much?", "why": "Equal scores.",
              "answer": {"matrix": "weights", "head": 1, "cell": [0, 2], "value": 0.3333,
                         "tolerance": 0.001}},
             {"step": 7, "ask": "Output?", "why": "The mix.",
              "answer": {"matrix": "output", "batch": 0, "cell": [2, 1], "value": 0,
                         "tolerance": 100}}]})";
  const scenario::ParseResult a = scenario::parse(original);
  REQUIRE(a.error == "");
  REQUIRE(a.scenario.quiz.size() == 3);
  const scenario::ParseResult b = scenario::parse(scenario::to_json(a.scenario));
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == scenario::to_json(a.scenario));
  CHECK(b.scenario.quiz[0].ask.zh == "哪个？");
  CHECK(b.scenario.quiz[1].answer.head == 1);
  CHECK(b.scenario.quiz[1].answer.value == 0.3333f);
  CHECK(b.scenario.quiz[2].answer.matrix == "output");

  // Head 1 scores q·k over column 1 only: row 0 is (2) against keys 2, 0, 1.
  const attn::Trace t = attn::run(a.problem);
  CHECK(scenario::quiz_argmax(a.scenario.quiz[0].answer, t) == 0);
  CHECK(scenario::check_quiz_answer(a.scenario.quiz[0].answer, t) == "");
  // Head 2 sees column 2, which is 0 in row 0: equal scores, 1/3 each.
  CHECK(scenario::check_quiz_answer(a.scenario.quiz[1].answer, t) == "");
  scenario::QuizAnswer wrong = a.scenario.quiz[0].answer;
  wrong.col = 2;
  CHECK(scenario::check_quiz_answer(wrong, t) == "the largest weight in row 0 is key 0");
  scenario::QuizAnswer off = a.scenario.quiz[1].answer;
  off.value = 0.5f;
  CHECK(scenario::check_quiz_answer(off, t).rfind("weights[0][2] is 0.333", 0) == 0);

  // One head fewer: the question about head 2 goes, the others stay.
  scenario::Scenario edited = a.scenario;
  edited.heads = 1;
  CHECK(scenario::validate(edited).error == "quiz[1].answer.head: 1 is not below heads 1");
  scenario::fit_to_shapes(&edited);
  REQUIRE(edited.quiz.size() == 2);
  CHECK(edited.quiz[1].step == 7);
  CHECK(scenario::validate(edited).ok());
}

TEST_CASE("a lesson's textbook link is a plain https address, and round-trips",
          "[scenario][json]") {
  const scenario::ParseResult a =
      scenario::parse(with(R"("read": {"title": {"en": "11.3", "zh": "10.3"},
      "url": {"en": "https://d2l.ai/a.html", "zh": "https://zh.d2l.ai/a.html"}})"));
  REQUIRE(a.error == "");
  CHECK(a.scenario.read_url.zh == "https://zh.d2l.ai/a.html");
  const scenario::ParseResult b = scenario::parse(scenario::to_json(a.scenario));
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == scenario::to_json(a.scenario));
  CHECK(error_of(with(R"("read": {"title": "t", "url": "javascript:alert"})")) ==
        "read.url.en: must be a plain https:// address of at most 300 characters");
  CHECK(error_of(with(
            R"("read": {"title": "t", "url": {"en": "https://a.b/", "zh": "https://a b"}})")) ==
        "read.url.zh: must be a plain https:// address of at most 300 characters");
  CHECK(error_of(with(R"("read": {"title": "t"})")) == "read.url: missing");
  CHECK(error_of(with(R"("read": {"title": "t", "url": {"zh": "https://a.b/"}})")) ==
        "read.url: has no English address");
}

TEST_CASE("columns may be named, in both languages, one name per column", "[scenario][json]") {
  const std::string qkv = R"({"version": 1, "queries": [[1, 0]], "keys": [[1, 0], [0, 1]],
      "values": [[1, 2, 3], [4, 5, 6]], )";
  const scenario::ParseResult a =
      scenario::parse(qkv + R"("feature_names": [{"en": "height", "zh": "身高"}, "school"],
               "value_names": ["a", "b", "c"]})");
  REQUIRE(a.error == "");
  CHECK(a.scenario.feature_names == std::vector<std::vector<std::string>>{{"height", "school"}});
  CHECK(a.scenario.feature_names_zh == std::vector<std::vector<std::string>>{{"身高", "school"}});
  CHECK(a.scenario.value_names_zh.empty());
  const scenario::ParseResult b = scenario::parse(scenario::to_json(a.scenario));
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == scenario::to_json(a.scenario));
  CHECK(scenario::parse(qkv + R"("feature_names": ["height"]})").error ==
        "feature_names: has 1 names, expected 2 (one per column of the queries and keys)");
  CHECK(scenario::parse(qkv + R"("value_names": ["a", "b"]})").error ==
        "value_names: has 2 names, expected 3 (one per column of the values)");
  CHECK(scenario::parse(qkv + R"("value_names": [["a", "b", "c"]]})").error ==
        "value_names: must be one list of names, one per column");
  CHECK(error_of(with(R"("value_names": ["a", "b", "c", "d"])")) ==
        "value_names: with x (self-attention) the values' columns are x's: name them in "
        "feature_names");
  // An edit that changes the columns drops the names that no longer fit.
  scenario::Scenario edited = a.scenario;
  edited.queries.mut(0).conservativeResize(1, 3);
  edited.keys.mut(0).conservativeResize(2, 3);
  scenario::fit_to_shapes(&edited);
  CHECK(edited.feature_names.empty());
  CHECK(edited.value_names.size() == 1);
}

TEST_CASE("keys may name their own columns, and the output its columns", "[scenario][json]") {
  // Cross-attention between two languages: the queries' columns are not the keys'.
  const std::string qkv = R"({"version": 1, "queries": [[1, 0]], "keys": [[1, 0, 0], [0, 1, 0]],
      "values": [[1, 2], [4, 5]], "W_q": [[1, 0, 0], [0, 1, 0]], )";
  const scenario::ParseResult a = scenario::parse(qkv + R"("feature_names": ["action", "gender"],
               "key_feature_names": [{"en": "article", "zh": "冠词"}, "animal", "end"],
               "output_names": ["one", {"en": "two", "zh": "二"}]})");
  REQUIRE(a.error == "");
  CHECK(a.scenario.key_feature_names ==
        std::vector<std::vector<std::string>>{{"article", "animal", "end"}});
  CHECK(a.scenario.output_names_zh == std::vector<std::vector<std::string>>{{"one", "二"}});
  const scenario::ParseResult b = scenario::parse(scenario::to_json(a.scenario));
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == scenario::to_json(a.scenario));
  // Without key_feature_names, feature_names must fit both sides.
  CHECK(scenario::parse(qkv + R"("feature_names": ["action", "gender"]})").error ==
        "feature_names: queries and keys have different numbers of columns (2 and 3): name the "
        "keys' columns in key_feature_names");
  CHECK(scenario::parse(qkv + R"("key_feature_names": ["a", "b"]})").error ==
        "key_feature_names: has 2 names, expected 3 (one per column of the keys)");
  CHECK(scenario::parse(qkv + R"("output_names": ["a", "b", "c"]})").error ==
        "output_names: has 3 names, expected 2 (one per column of the output)");
  CHECK(scenario::parse(qkv + R"("output_names": 7})").error.rfind("output_names", 0) == 0);
  CHECK(error_of(with(R"("key_feature_names": ["a", "b", "c", "d"])")) ==
        "key_feature_names: with x (self-attention) the keys' columns are x's: name them in "
        "feature_names");
  // An edit that changes the output's columns drops output_names.
  scenario::Scenario edited = a.scenario;
  edited.values.mut(0).conservativeResize(2, 3);
  scenario::fit_to_shapes(&edited);
  CHECK(edited.output_names.empty());
  CHECK(edited.key_feature_names.size() == 1);
}

TEST_CASE("a target is shaped like the output, and round-trips", "[scenario][json]") {
  const scenario::ParseResult a =
      scenario::parse(with(R"("target": [[1, 2], [3, 4], [5, 6], [7, 8]])"));
  REQUIRE(a.error == "");
  CHECK(a.scenario.target[0](2, 1) == 6.0f);
  const scenario::ParseResult b = scenario::parse(scenario::to_json(a.scenario));
  REQUIRE(b.error == "");
  CHECK(scenario::to_json(b.scenario) == scenario::to_json(a.scenario));
  CHECK(error_of(with(R"("target": [[1, 2], [3, 4]])")) ==
        "target: is 1 × 2 × 2, the output is 1 × 4 × 2 (batch × queries × columns)");
}

TEST_CASE("toy tasks are scenarios with a target the intended pattern makes", "[scenario][tasks]") {
  REQUIRE(scenario::task_list().size() == 7);
  for (const scenario::TaskInfo& info : scenario::task_list()) {
    const std::string& name = info.name;
    INFO(name);
    REQUIRE(scenario::find_task(name) == &info);
    if (info.layered) continue;  // a token model, no target: tests/scenario/tokens_test.cpp
    const scenario::TaskResult t = scenario::make_task(name, 3);
    REQUIRE(t.error == "");
    const scenario::Scenario& s = t.scenario;
    const scenario::ParseResult back = scenario::parse(scenario::to_json(s));
    REQUIRE(back.error == "");
    CHECK(scenario::to_json(back.scenario) == scenario::to_json(s));
    CHECK(scenario::to_json(s) == scenario::to_json(scenario::make_task(name, 3).scenario));
    CHECK(scenario::to_json(s) != scenario::to_json(scenario::make_task(name, 4).scenario));
    REQUIRE(s.target.size() == s.queries.size());
    if (!info.keyed) continue;
    // The target of row i is a one-hot that the value row at the task's key holds in the
    // same column (recall: in its value part, after the 8 key letters; sort: in its slot part,
    // after the 10 digits), so that putting the
    // weight there and mapping that column through is exactly the target.
    const int shift = name == "recall" ? 8 : name == "sort" ? 10 : 0;
    for (int b = 0; b < s.batch(); ++b)
      for (int i = 0; i < s.n_queries(); ++i) {
        const int j = scenario::task_key(name, s, b, i);
        REQUIRE(j >= 0);
        REQUIRE(j < s.n_keys());
        int c = -1;
        CHECK(s.target[b].row(i).maxCoeff(&c) == 1.0f);
        CHECK(s.target[b].row(i).sum() == 1.0f);
        CHECK(s.values[b](j, c + shift) == 1.0f);
      }
  }
  // Edited by a learner: no key outside the shapes.
  scenario::Scenario edited = scenario::make_task("recall", 1).scenario;
  for (size_t b = 0; b < edited.keys.size(); ++b) edited.keys.mut(b) = attn::Matrix::Zero(2, 3);
  for (int i = 0; i < 4; ++i) CHECK(scenario::task_key("recall", edited, 0, i) == -1);
  CHECK(scenario::task_key("previous_token", edited, 0, 3) == -1);
  CHECK(scenario::task_key("kernel_regression",
                           scenario::make_task("kernel_regression", 1).scenario, 0, 0) == -1);
  CHECK(scenario::make_task("parity", 1).error ==
        "task: unknown task \"parity\", expected one of previous_token, reverse, sort, recall, "
        "translate, kernel_regression, induction");
}

TEST_CASE("each toy task's recipe learns it from seeds 1, 2 and 3", "[scenario][tasks][train]") {
  for (const scenario::TaskInfo& info : scenario::task_list())
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      if (info.layered) continue;  // trained on fresh batches: tests/scenario/tokens_test.cpp
      INFO(info.name << " from seed " << seed);
      const scenario::TaskResult t = scenario::make_task(info.name, seed);
      scenario::Scenario s = t.scenario;
      const scenario::Resolved r = scenario::resolve(s);
      REQUIRE(r.ok());
      attn::Problem p = r.problem;
      attn::Optimizer adam;
      adam.kind = attn::Optimizer::Kind::kAdam;
      adam.lr = info.lr;
      double loss = 0.0, first = 0.0;
      for (int k = 0; k < info.steps; ++k) {
        REQUIRE(adam.step(&p, s.target, &loss).ok());
        if (k == 0) first = loss;
      }
      scenario::set_weights(&s, p.weights);
      const scenario::TaskCheck before =
          scenario::check_task(info, t.scenario, attn::run(scenario::to_problem(t.scenario)));
      const scenario::TaskCheck after =
          scenario::check_task(info, s, attn::run(scenario::to_problem(s)));
      CHECK(before.loss == Approx(first).epsilon(1e-5));
      CHECK_FALSE(before.passed);
      CHECK(after.loss < info.loss_below);
      CHECK(after.passed);
      if (info.keyed) CHECK(after.value >= info.share_above);
      if (!info.keyed) CHECK(after.value < 1.0);  // the kernel narrowed from σ = 1
    }
}

TEST_CASE("a learned lesson is its recipe trained again, exactly as the build made it",
          "[scenario][tasks][recipes]") {
  REQUIRE(std::size(kRecipeNames) >= 2);
  for (const char* name : kRecipeNames) {
    INFO(name);
    const std::string recipe = read_file(std::string(AP_ASSETS_DIR) + "/recipes/" + name + ".json");
    const scenario::LessonResult lesson = scenario::build_lesson(recipe);
    REQUIRE(lesson.error == "");
    CHECK(scenario::to_json(lesson.scenario) + "\n" ==
          read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json"));
    CHECK_FALSE(lesson.scenario.has_init);  // the weights are written out
    CHECK(lesson.scenario.quiz.size() >= 1);
    if (!lesson.scenario.seq2seq.empty()) {  // a GRU encoder–decoder: every weight, one sentence
      const scenario::Seq2Seq& m = lesson.scenario.seq2seq;
      CHECK(m.given == (uint32_t{1} << scenario::seq2seq_param_names().size()) - 1);
      CHECK(m.has_seed);  // the recipe's: the page's Random start draws its weights again
      CHECK(m.seed == 2);
      CHECK(m.greedy());
      CHECK(m.produced.back() == attn::seq2seq::kEos);
      continue;
    }
    CHECK(scenario::find_task(lesson.scenario.trained_from_task));
    CHECK(lesson.scenario.batch() == 4);
    if (lesson.scenario.token_model())  // a token model's target is its next tokens
      CHECK(lesson.scenario.next_tokens.size() == 4);
    else
      CHECK(lesson.scenario.target.size() == 4);
  }
  const auto parse_error = [](const std::string& field) {
    return scenario::parse(R"({"version": 1, "x": [[1]], "trained_from": )" + field + "}").error;
  };
  CHECK(parse_error(R"("sort")") ==
        "trained_from: must be an object {\"task\": ..., \"seed\": ...}, got a string");
  CHECK(parse_error(R"({"task": "parity", "seed": 1})") ==
        "trained_from.task: must name a toy task (attention-cli task --list)");
  CHECK(parse_error(R"({"task": "sort"})") == "trained_from.seed: missing");
  CHECK(parse_error(R"({"task": "sort", "seed": 1, "steps": 3})").rfind("trained_from.steps", 0) ==
        0);
  CHECK(parse_error(R"({"task": "sort", "seed": 7})") == "");
  const auto error = [](const std::string& recipe) { return scenario::build_lesson(recipe).error; };
  CHECK(error("[]") == "recipe: must be an object, got an array");
  CHECK(error("{").rfind("recipe: parse error at line 1, column 2", 0) == 0);
  CHECK(error(R"({"version": 2, "train": {}})") == "recipe.version: must be 1");
  CHECK(error(R"({"version": 1, "train": {"task": "parity"}})") ==
        "recipe.train.task: must name a toy task (attention-cli task --list) or "
        "seq2seq_translation");
  // The GRU encoder–decoder's recipe, and hostile versions of it.
  const auto s2s = [&error](const std::string& train) {
    return error(R"({"version": 1, "train": {"task": "seq2seq_translation", )" + train + "}}");
  };
  CHECK(s2s(R"("steps": 0, "sentence": ["big", "cat", "runs"])") == "");
  CHECK(s2s(R"("steps": 0)") ==
        "recipe.train.sentence: missing: the source sentence the lesson decodes");
  CHECK(s2s(R"("steps": 0, "sentence": [])") ==
        "recipe.train.sentence: is empty, expected at least one of words");
  CHECK(s2s(R"("steps": 0, "sentence": "big cat runs")").rfind("recipe.train.sentence: ", 0) == 0);
  CHECK(
      s2s(R"("steps": 0, "sentence": ["big", "ca\nt"])") ==
      "recipe.train.sentence[1]: \"ca\\nt\" is not a word of the toy language's source vocabulary");
  CHECK(s2s(R"("steps": 0, "sentence": ["big", 3])").rfind("recipe.train.sentence[1]: ", 0) == 0);
  std::string long_sentence = "[";
  for (int i = 0; i < 65; ++i) long_sentence += i ? ", \"cat\"" : "\"cat\"";
  CHECK(s2s(R"("steps": 0, "sentence": )" + long_sentence + "]")
            .rfind("recipe.train.sentence: ", 0) == 0);
  CHECK(s2s(R"("steps": 5001, "sentence": ["cat"])") ==
        "recipe.train.steps: is 5001, must be at most 5000");
  CHECK(s2s(R"("batch": 0, "sentence": ["cat"])") ==
        "recipe.train.batch: is 0, must be at least 1");
  CHECK(s2s(R"("lr": 0.1, "sentence": ["cat"])") == "recipe.train.lr: unknown field");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "steps": -1}})") ==
        "recipe.train.steps: is -1, must be at least 0");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "seed": 1e300}})") ==
        "recipe.train.seed: is 1e+300, must be at most 999999");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "lr": 0}})") ==
        "recipe.train.lr: must be above 0 and at most 10");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "batch": 2}})") ==
        "recipe.train.batch: unknown field");
  // Hostile recipes: nesting past the reader's limit, a long name, a key that breaks lines.
  CHECK(error(R"({"version": 1, "train": {"task": "sort"}, "lesson": )" + std::string(40, '[') +
              std::string(40, ']') + "}")
            .rfind("recipe", 0) == 0);
  CHECK(error(R"({"version": 1, "train": {"task": ")" + std::string(5000, 'a') + "\"}}") ==
        "recipe.train.task: is 5000 bytes long, more than the limit 64");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "steps": 0},
                  "lesson": {"a\nb": 1}})") ==
        "recipe.lesson.\"a\\nb\": is not a lesson field (title, description, read, tour, quiz)");
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "steps": 0},
                  "lesson": {"scoring": "dot"}})") ==
        "recipe.lesson.scoring: is not a lesson field (title, description, read, tour, quiz)");
  // The lesson's texts are read as a scenario's: a question must fit the task's shapes.
  CHECK(error(R"({"version": 1, "train": {"task": "sort", "steps": 0, "keep": 1},
                  "lesson": {"quiz": [{"step": 2, "ask": "?", "why": ".",
                                       "answer": {"batch": 3, "row": 0, "key": 0}}]}})")
            .rfind("recipe.lesson: quiz[0].answer", 0) == 0);
}

TEST_CASE("quiz errors name the field", "[scenario][json][quiz]") {
  const auto quiz = [](const std::string& answer) {
    return error_of(
        with(R"("quiz": [{"step": 2, "ask": "a", "why": "b", "answer": )" + answer + "}]"));
  };
  CHECK(quiz(R"({"row": 0})") == "quiz[0].answer.key: missing");
  CHECK(quiz(R"({"row": 0, "key": 9})") == "quiz[0].answer.key: 9 is not below 4 (the keys)");
  CHECK(quiz(R"({"row": 0, "key": 0, "cell": [0, 0]})") == "quiz[0].answer.cell: unknown field");
  CHECK(quiz(R"({"matrix": "output", "head": 0, "cell": [0, 0], "value": 1, "tolerance": 0})") ==
        "quiz[0].answer.head: the final output has no head (use head_output for one head's)");
  CHECK(quiz(R"({"matrix": "weights", "cell": [0, 0], "value": 1, "tolerance": -1})") ==
        "quiz[0].answer.tolerance: must be 0 or more");
  CHECK(error_of(with(R"("quiz": [{"step": 2, "ask": "a", "answer": {"row": 0, "key": 0}}])")) ==
        "quiz[0].why: missing");
}

//-----------------------------------------------------------------------------
// [SECTION] Presets
//-----------------------------------------------------------------------------

TEST_CASE("every preset file is a lesson in assets/lessons.txt, and every lesson has a file",
          "[scenario][presets]") {
  const std::set<std::string> lessons(std::begin(kLessonNames), std::end(kLessonNames));
  const std::set<std::string> files(std::begin(kPresetFiles), std::end(kPresetFiles));
  CHECK(lessons.size() == std::size(kLessonNames));  // none listed twice
  for (const std::string& f : files) {
    INFO("assets/presets/" << f << ".json");
    CHECK(lessons.count(f) == 1);
  }
  for (const std::string& l : lessons) {
    INFO("lesson " << l);
    CHECK(files.count(l) == 1);
  }
}

TEST_CASE("every preset parses, round-trips and runs", "[scenario][presets]") {
  const char* name = GENERATE(from_range(std::begin(kLessonNames), std::end(kLessonNames)));
  INFO(name);
  const std::string text = read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json");
  const scenario::ParseResult r = scenario::parse(text);
  REQUIRE(r.error == "");
  CHECK_FALSE(r.scenario.title.en.empty());
  CHECK_FALSE(r.scenario.title.zh.empty());
  CHECK_FALSE(r.scenario.description.en.empty());
  // Each lesson links to the textbook section it follows, in both languages.
  CHECK(r.scenario.read_url.en.rfind("https://d2l.ai/", 0) == 0);
  CHECK(r.scenario.read_url.zh.rfind("https://zh.d2l.ai/", 0) == 0);
  CHECK_FALSE(r.scenario.read_title.zh.empty());
  const scenario::ParseResult again = scenario::parse(scenario::to_json(r.scenario));
  REQUIRE(again.error == "");
  CHECK(scenario::to_json(again.scenario) == scenario::to_json(r.scenario));
  const attn::Trace t = attn::run(scenario::to_problem(r.scenario));
  for (const auto& head : t.heads)
    for (const auto& w : head.weights)
      for (int i = 0; i < w.rows(); ++i) CHECK(w.row(i).sum() == Approx(1.0f).margin(1e-5));
}

TEST_CASE("the textbook presets give [2,3,4,5] and [10,11,12,13]", "[scenario][presets]") {
  const char* name = GENERATE("textbook_ones", "textbook_additive");
  INFO(name);
  const scenario::ParseResult r =
      scenario::parse(read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json"));
  REQUIRE(r.error == "");
  const attn::Trace t = attn::run(scenario::to_problem(r.scenario));
  for (int c = 0; c < 4; ++c) {
    CHECK(t.output[0](0, c) == Approx(2 + c).margin(1e-5));
    CHECK(t.output[1](0, c) == Approx(10 + c).margin(1e-5));
  }
}

TEST_CASE("hard attention with its estimator: read, written back, and hostile versions named",
          "[scenario][json]") {
  const scenario::ParseResult r =
      scenario::parse(with(R"("hard": {"estimator": "straight_through"})"));
  REQUIRE(r.error == "");
  CHECK(r.scenario.hard);
  CHECK(r.scenario.hard_gradient == attn::HardGradient::kStraightThrough);
  CHECK(scenario::to_problem(r.scenario).hard_gradient == attn::HardGradient::kStraightThrough);
  const std::string written = scenario::to_json(r.scenario);
  CHECK(written.find(R"("hard":{"estimator":"straight_through"})") != std::string::npos);
  const scenario::ParseResult again = scenario::parse(written);
  REQUIRE(again.error == "");
  CHECK(again.scenario.hard_gradient == attn::HardGradient::kStraightThrough);
  CHECK(scenario::to_json(again.scenario) == written);
  // true and false as before: hard without an estimator, written as true.
  const scenario::ParseResult plain = scenario::parse(with(R"("hard": true)"));
  REQUIRE(plain.error == "");
  CHECK(plain.scenario.hard_gradient == attn::HardGradient::kNone);
  CHECK(scenario::to_json(plain.scenario).find(R"("hard":true)") != std::string::npos);
  CHECK(error_of(with(R"("hard": {"estimator": "a\nb"})")) ==
        R"(hard.estimator: unknown estimator "a\nb", expected "straight_through" or "gumbel")");
  CHECK(error_of(with(R"("hard": {"estimator": 1})")) ==
        "hard.estimator: must be a string, got a number");
  CHECK(error_of(with(R"("hard": {"estimator": ")" + std::string(100000, 'x') + R"("})")) ==
        "hard.estimator: is 100000 bytes long, more than the limit 64");
  CHECK(error_of(with(R"("hard": {})")) ==
        R"(hard.estimator: missing ("straight_through" or "gumbel"))");
  CHECK(error_of(with(R"("hard": {"estimator": "straight_through", "tau": 1})")) ==
        R"(hard.tau: unknown field for "straight_through" (tau, seed and soft are "gumbel"'s))");
  CHECK(error_of(with(R"("hard": {"estimator": "straight_through", "x": 1})")) ==
        "hard.x: unknown field");
  CHECK(
      error_of(with(R"("hard": "yes")")) ==
      R"(hard: must be true, false, {"estimator": "straight_through"} or {"estimator": "gumbel", "tau": 1, "seed": 0, "soft": false}, got a string)");
  CHECK(
      error_of(with(R"("hard": null)")) ==
      R"(hard: must be true, false, {"estimator": "straight_through"} or {"estimator": "gumbel", "tau": 1, "seed": 0, "soft": false}, got null)");
}

TEST_CASE("Gumbel's estimator: read with its defaults, written back, and hostile values named",
          "[scenario][json][gumbel]") {
  // The defaults: tau 1, seed 0, one-hot.
  const scenario::ParseResult d = scenario::parse(with(R"("hard": {"estimator": "gumbel"})"));
  REQUIRE(d.error == "");
  CHECK(d.scenario.hard);
  CHECK(d.scenario.hard_gradient == attn::HardGradient::kGumbel);
  CHECK(d.scenario.gumbel_tau == 1.0f);
  CHECK(d.scenario.gumbel_seed == 0);
  CHECK_FALSE(d.scenario.gumbel_soft);
  CHECK(scenario::to_json(d.scenario)
            .find(R"("hard":{"estimator":"gumbel","tau":1,"seed":0,"soft":false})") !=
        std::string::npos);
  // Every field given: into the problem, written back, and read again to the same text.
  const scenario::ParseResult r = scenario::parse(with(
      R"("hard": {"estimator": "gumbel", "tau": 0.25, "seed": 9007199254740992, "soft": true})"));
  REQUIRE(r.error == "");
  const attn::Problem p = scenario::to_problem(r.scenario);
  CHECK(p.hard);
  CHECK(p.hard_gradient == attn::HardGradient::kGumbel);
  CHECK(p.gumbel_tau == 0.25f);
  CHECK(p.gumbel_seed == 9007199254740992ull);
  CHECK(p.gumbel_soft);
  const std::string written = scenario::to_json(r.scenario);
  CHECK(written.find(
            R"("hard":{"estimator":"gumbel","tau":0.25,"seed":9007199254740992,"soft":true})") !=
        std::string::npos);
  const scenario::ParseResult again = scenario::parse(written);
  REQUIRE(again.error == "");
  CHECK(scenario::to_json(again.scenario) == written);
  CHECK(scenario::parse(with(R"("hard": {"estimator": "gumbel", "tau": 100})")).error == "");
  // Hostile values, each named.
  const std::pair<const char*, const char*> hostile[] = {
      {R"("tau": 0)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got 0"},
      {R"("tau": -1)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got -1"},
      {R"("tau": "x")",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got a string"},
      {R"("tau": "NaN")",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got a string"},
      {R"("tau": 1e9)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got 1000000000.0"},
      {R"("tau": 100.5)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got 100.5"},
      {R"("tau": 1e-38)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which "
       "must stay inside float32) to 100, got 1e-38"},
      {R"("tau": 1e-50)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got 1e-50"},
      {R"("tau": null)",
       "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
       "inside float32) to 100, got null"},
      {R"("seed": -1)", "hard.seed: is -1, must be at least 0"},
      {R"("seed": 1.5)", "hard.seed: must be an integer, got 1.5"},
      {R"("seed": 1e300)", "hard.seed: is 1e+300, must be at most 9007199254740992"},
      {R"("seed": "1")", "hard.seed: must be an integer, got a string"},
      {R"("soft": "yes")", "hard.soft: must be true or false, got a string"},
      {R"("soft": 1)", "hard.soft: must be true or false, got a number"},
      {R"("extra": 1)", "hard.extra: unknown field"},
  };
  for (const auto& [field, message] : hostile) {
    INFO(field);
    CHECK(error_of(with(std::string(R"("hard": {"estimator": "gumbel", )") + field + "}")) ==
          message);
  }
  CHECK(error_of(with(R"("hard": {"estimator": "gumbell"})")) ==
        R"(hard.estimator: unknown estimator "gumbell", expected "straight_through" or "gumbel")");
}

TEST_CASE("in 'why is he so tall?' the question attends to the tall father",
          "[scenario][presets]") {
  const scenario::ParseResult r =
      scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/why_so_tall.json"));
  REQUIRE(r.error == "");
  const attn::Matrix w = attn::run(scenario::to_problem(r.scenario)).heads[0].weights[0];
  Eigen::Index best;
  w.row(0).maxCoeff(&best);
  CHECK(best == 0);
  CHECK(w(0, 0) > 0.8f);
}

TEST_CASE(
    "in 'why is he so tall?' the second question weights the same facts otherwise: truancy and "
    "games, and its answer is habits",
    "[scenario][presets]") {
  const scenario::ParseResult r =
      scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/why_so_tall.json"));
  REQUIRE(r.error == "");
  REQUIRE(r.scenario.query_tokens.size() == 1);
  REQUIRE(r.scenario.query_tokens[0].size() == 2);
  CHECK(r.scenario.query_tokens[0][1] == "why bad at maths?");
  CHECK(r.scenario.query_tokens_zh[0][1] == "为何数学差？");
  const attn::Trace t = attn::run(scenario::to_problem(r.scenario));
  const attn::Matrix& w = t.heads[0].weights[0];
  Eigen::Index best;
  w.row(1).maxCoeff(&best);
  CHECK(best == 1);                 // "he skips maths class"
  CHECK(w(1, 1) + w(1, 4) > 0.8f);  // and "he plays adventure games"
  CHECK(w(1, 0) < 0.1f);            // the dad fact, which the first question chose
  Eigen::Index answer0, answer1;
  t.output[0].row(0).maxCoeff(&answer0);
  t.output[0].row(1).maxCoeff(&answer1);
  CHECK(answer0 == 0);  // inherited
  CHECK(answer1 == 2);  // habits
  // Both questions are asked, each on its own row.
  REQUIRE(r.scenario.quiz.size() == 2);
  CHECK(r.scenario.quiz[0].answer.row == 0);
  CHECK(r.scenario.quiz[1].answer.row == 1);
  CHECK(r.scenario.quiz[1].answer.col == 1);
}

TEST_CASE("in 'I saw a saw' positions tell the two saws apart", "[scenario][presets]") {
  scenario::ParseResult r =
      scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/i_saw_a_saw.json"));
  REQUIRE(r.error == "");
  // The lesson starts with positional encoding on: each saw looks at the word before it.
  REQUIRE(r.scenario.positional_encoding);
  const attn::Trace with_pe = attn::run(scenario::to_problem(r.scenario));
  const attn::Matrix& w = with_pe.heads[0].weights[0];
  CHECK((w.row(1) - w.row(3)).cwiseAbs().sum() >= 0.3f);
  Eigen::Index verb, tool;
  w.row(1).maxCoeff(&verb);
  w.row(3).maxCoeff(&tool);
  CHECK(verb == 0);  // "saw" after "I"
  CHECK(tool == 2);  // "saw" after "a"
  // Without it (the tour asks the learner to untick it) the two rows are equal.
  r.scenario.positional_encoding = false;
  const attn::Trace without = attn::run(scenario::to_problem(r.scenario));
  CHECK((without.heads[0].weights[0].row(1) - without.heads[0].weights[0].row(3))
            .cwiseAbs()
            .maxCoeff() == 0.0f);
  CHECK((without.output[0].row(1) - without.output[0].row(3)).cwiseAbs().maxCoeff() == 0.0f);
}

TEST_CASE("every preset's tour notes are in both languages, one per step", "[scenario][presets]") {
  for (const char* name : kLessonNames) {
    INFO(name);
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json"));
    REQUIRE(r.error == "");
    CHECK(!r.scenario.tour.empty());
    std::set<int> steps;
    for (const scenario::TourStop& stop : r.scenario.tour) {
      CHECK(!stop.text.en.empty());
      CHECK(!stop.text.zh.empty());
      CHECK(steps.insert(stop.step).second);
    }
  }
}

TEST_CASE("the tour notes' numbers are the presets' numbers", "[scenario][presets]") {
  auto trace_of = [](const char* name) {
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json"));
    REQUIRE(r.error == "");
    return attn::run(scenario::to_problem(r.scenario));
  };
  // why_so_tall, the first question: scores 7.82, scaled 3.91 (others at most 0.56), weight
  // 0.90, output 1.72 inherited. The second: scores 4.54, 4.18 and 0.58 (scaled 2.27 and 2.09),
  // weights 0.46, 0.38 and 0.06, output 1.19 habits.
  const attn::Trace tall = trace_of("why_so_tall");
  const attn::Matrix& s = tall.heads[0].scores[0];
  const attn::Matrix& w = tall.heads[0].weights[0];
  CHECK(s(0, 0) == Approx(7.82f).margin(0.005));
  CHECK(tall.heads[0].scaled[0](0, 0) == Approx(3.91f).margin(0.005));
  CHECK(tall.heads[0].scaled[0].row(0).tail(4).maxCoeff() <= 0.56f);
  CHECK(s.row(0).tail(4).maxCoeff() < 1.2f);
  CHECK(w(0, 0) == Approx(0.90f).margin(0.005));
  CHECK(tall.output[0](0, 0) == Approx(1.72f).margin(0.005));
  CHECK(s(1, 1) == Approx(4.54f).margin(0.005));
  CHECK(s(1, 4) == Approx(4.18f).margin(0.005));
  CHECK(s(1, 0) == Approx(0.58f).margin(0.005));
  CHECK(tall.heads[0].scaled[0](1, 1) == Approx(2.27f).margin(0.005));
  CHECK(tall.heads[0].scaled[0](1, 4) == Approx(2.09f).margin(0.005));
  CHECK(w(1, 1) == Approx(0.46f).margin(0.005));
  CHECK(w(1, 4) == Approx(0.38f).margin(0.005));
  CHECK(w(1, 0) == Approx(0.06f).margin(0.005));
  CHECK(tall.output[0](1, 2) == Approx(1.19f).margin(0.005));
  // attention_over_attention: the food sentence's vector (0.84, 0, 0.04, 0.12) from word weights
  // 0.44 ("soup", "delicious") and 0.06 ("the", "was"); the service sentence's service 0.83;
  // "how was the food?" scores 3.35, 0 and 0.20, weighs 0.72, 0.13 and 0.15, and reads 0.61
  // food, 0.11 service, 0.16 price; "and the service?" puts 0.72 on the service sentence.
  {
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_PRESETS_DIR) + "/attention_over_attention.json"));
    REQUIRE(r.error == "");
    const scenario::Hierarchy& hy = r.scenario.hierarchy;
    REQUIRE(hy.word_weights.size() == 3);
    const attn::Vector& a = hy.word_weights[0];
    REQUIRE(a.size() == 4);
    for (int i : {0, 2}) CHECK(a(i) == Approx(0.06f).margin(0.005));
    for (int i : {1, 3}) CHECK(a(i) == Approx(0.44f).margin(0.005));
    const float food[4] = {0.84f, 0.0f, 0.04f, 0.12f};
    for (int c = 0; c < 4; ++c) CHECK(hy.sentence_vectors(0, c) == Approx(food[c]).margin(0.005));
    CHECK(hy.sentence_vectors(1, 1) == Approx(0.83f).margin(0.005));
    const attn::Trace t = attn::run(scenario::to_problem(r.scenario));
    const float scores[3] = {3.35f, 0.0f, 0.20f}, weights[3] = {0.72f, 0.13f, 0.15f};
    const float read[3] = {0.61f, 0.11f, 0.16f};
    for (int k = 0; k < 3; ++k) {
      CHECK(t.heads[0].scores[0](0, k) == Approx(scores[k]).margin(0.005));
      CHECK(t.heads[0].weights[0](0, k) == Approx(weights[k]).margin(0.005));
      CHECK(t.output[0](0, k) == Approx(read[k]).margin(0.005));
    }
    CHECK(t.heads[0].weights[0](1, 1) == Approx(0.72f).margin(0.005));
  }
  // causal_decoder: the first row sees only itself.
  CHECK(trace_of("causal_decoder").heads[0].weights[0](0, 0) == 1.0f);
  // padded_batch: the <pad> columns of sentence 1 weigh exactly 0; sentence 2 keeps 5 keys.
  const attn::Trace pad = trace_of("padded_batch");
  CHECK(pad.heads[0].weights[0].rightCols(3).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(pad.heads[0].weights[1].col(5).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(pad.heads[0].weights[1].col(4).minCoeff() > 0.0f);
  // multi_head: head 1 scores "on" against "sat" 16.07 (scaled 8.04), 0.84 or more on the word
  // before; head 2: 6.25 (3.125), 0.85 on "sat" and from "sat" on "cat".
  const attn::Trace mh = trace_of("multi_head");
  CHECK(mh.heads[0].scores[0](3, 2) == Approx(16.07f).margin(0.005));
  CHECK(mh.heads[0].scaled[0](3, 2) == Approx(8.04f).margin(0.005));
  for (int i = 1; i < 5; ++i) CHECK(mh.heads[0].weights[0](i, i - 1) >= 0.835f);
  CHECK(mh.heads[1].scores[0](2, 1) == Approx(6.25f).margin(0.005));
  CHECK(mh.heads[1].weights[0](0, 2) == Approx(0.85f).margin(0.005));
  CHECK(mh.heads[1].weights[0](2, 1) == Approx(0.85f).margin(0.005));
  // cross_attention: translations score 4, 4.04, 4.16, the rest at most 1.2; weights 0.71,
  // 0.66, 0.68.
  const attn::Trace cross = trace_of("cross_attention");
  const float translated[3] = {4.0f, 4.04f, 4.16f}, weight[3] = {0.71f, 0.66f, 0.68f};
  for (int i = 0; i < 3; ++i) {
    CHECK(cross.heads[0].scores[0](i, i) == Approx(translated[i]).margin(0.005));
    CHECK(cross.heads[0].weights[0](i, i) == Approx(weight[i]).margin(0.005));
    for (int j = 0; j < 4; ++j)
      if (j != i) CHECK(cross.heads[0].scores[0](i, j) <= 1.2001f);
  }
  // additive_vs_dot: additive scores 2.89, 3.00, 2.28, 0 and weights 0.37, 0.41, 0.20, 0.02;
  // scaled dot product: 0.17, 0.70, 0.08, 0.04.
  {
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/additive_vs_dot.json"));
    REQUIRE(r.error == "");
    const attn::Trace add = attn::run(r.problem);
    const float scores[4] = {2.89f, 3.00f, 2.28f, 0.0f}, weights[4] = {0.37f, 0.41f, 0.20f, 0.02f};
    for (int j = 0; j < 4; ++j) {
      CHECK(add.heads[0].scores[0](0, j) == Approx(scores[j]).margin(0.005));
      CHECK(add.heads[0].weights[0](0, j) == Approx(weights[j]).margin(0.005));
    }
    scenario::Scenario dot = r.scenario;
    dot.scoring = attn::Scoring::kScaledDot;  // as the Scoring menu does: w_v goes, W_q, W_k stay
    dot.w_v = attn::Vector();
    const attn::Trace d = attn::run(scenario::to_problem(dot));
    const float dot_weights[4] = {0.17f, 0.70f, 0.08f, 0.04f};
    for (int j = 0; j < 4; ++j)
      CHECK(d.heads[0].weights[0](0, j) == Approx(dot_weights[j]).margin(0.005));
  }
  // why_sqrt_d: row 1 from -16.72 to 14.55 (next 8.13), row 2 from -4.93 to 11.79, standard
  // deviation 8.2; weights 0.997 and 1.000, scaled 0.46 and 0.47.
  {
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/why_sqrt_d.json"));
    REQUIRE(r.error == "");
    const attn::Trace t = attn::run(r.problem);
    const attn::Matrix& sc = t.heads[0].scores[0];
    CHECK(sc.row(0).minCoeff() == Approx(-16.72f).margin(0.005));
    CHECK(sc.row(0).maxCoeff() == Approx(14.55f).margin(0.005));
    CHECK(sc(0, 2) == Approx(8.13f).margin(0.005));
    CHECK(sc.row(1).minCoeff() == Approx(-4.93f).margin(0.005));
    CHECK(sc.row(1).maxCoeff() == Approx(11.79f).margin(0.005));
    const float mean = sc.mean();
    CHECK(std::sqrt((sc.array() - mean).square().mean()) == Approx(8.2f).margin(0.05));
    CHECK(t.heads[0].weights[0](0, 3) == Approx(0.997f).margin(0.0005));
    CHECK(t.heads[0].weights[0](1, 0) == Approx(1.0f).margin(0.0005));
    scenario::Scenario scaled = r.scenario;
    scaled.scoring = attn::Scoring::kScaledDot;
    const attn::Trace u = attn::run(scenario::to_problem(scaled));
    CHECK(u.heads[0].weights[0](0, 3) == Approx(0.46f).margin(0.005));
    CHECK(u.heads[0].weights[0](1, 0) == Approx(0.47f).margin(0.005));
  }
  // self_attention: "was" 0.66, "tired", "he", "slept" 0.95 on "Sam"; "Sam" 0.87 on "slept";
  // "so" 1/6; "he"'s output 0.95 person.
  const attn::Trace self = trace_of("self_attention");
  for (int i : {2, 4, 5}) CHECK(self.heads[0].weights[0](i, 0) == Approx(0.95f).margin(0.005));
  CHECK(self.heads[0].weights[0](0, 5) == Approx(0.87f).margin(0.005));
  CHECK(self.heads[0].weights[0](3, 0) == Approx(1.0f / 6).margin(1e-4));
  CHECK(self.output[0](4, 0) == Approx(0.95f).margin(0.005));
  // soft_hard_local: c·f = 3.28, c·c = 1.64; soft 0.59 on f, hard 1 on f, window 1: 0.61 on c.
  {
    const scenario::ParseResult r =
        scenario::parse(read_file(std::string(AP_ASSETS_DIR) + "/presets/soft_hard_local.json"));
    REQUIRE(r.error == "");
    const attn::Trace soft = attn::run(r.problem);
    CHECK(soft.heads[0].scores[0](2, 5) == Approx(3.28f).margin(0.005));
    CHECK(soft.heads[0].scores[0](2, 2) == Approx(1.64f).margin(0.005));
    CHECK(soft.heads[0].weights[0](2, 5) == Approx(0.59f).margin(0.005));
    scenario::Scenario hard = r.scenario;
    hard.hard = true;
    CHECK(attn::run(scenario::to_problem(hard)).heads[0].weights[0](2, 5) == 1.0f);
    scenario::Scenario local = r.scenario;
    local.window = 1;
    const attn::Matrix w = attn::run(scenario::to_problem(local)).heads[0].weights[0];
    CHECK(w(2, 2) == Approx(0.61f).margin(0.005));
    CHECK(w(2, 5) == 0.0f);
  }
  // i_saw_a_saw: 0.82 on "I", 0.60 on "a", rows 1.63 apart.
  const attn::Trace saw = trace_of("i_saw_a_saw");
  CHECK(saw.heads[0].weights[0](1, 0) == Approx(0.82f).margin(0.005));
  CHECK(saw.heads[0].weights[0](3, 2) == Approx(0.60f).margin(0.005));
  CHECK((saw.heads[0].weights[0].row(1) - saw.heads[0].weights[0].row(3)).cwiseAbs().sum() ==
        Approx(1.63f).margin(0.005));
}

//-----------------------------------------------------------------------------
// [SECTION] Generated weights
//-----------------------------------------------------------------------------

TEST_CASE("init generates seeded Glorot weights rounded to 0.01", "[scenario][init]") {
  const attn::Matrix a = scenario::generated_matrix(6, 8, 42, scenario::WeightStream::kWq);
  CHECK(a == scenario::generated_matrix(6, 8, 42, scenario::WeightStream::kWq));
  CHECK(a != scenario::generated_matrix(6, 8, 42, scenario::WeightStream::kWk));
  CHECK(a != scenario::generated_matrix(6, 8, 43, scenario::WeightStream::kWq));
  const double bound = std::sqrt(6.0 / 14.0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 8; ++j) {
      CHECK(std::fabs(a(i, j)) <= bound + 0.005);
      CHECK(std::fabs(a(i, j) * 100 - std::round(a(i, j) * 100)) < 1e-3);
    }
  const scenario::ParseResult r = scenario::parse(with(R"("init": {"seed": 42, "d_model": 6},
                                                        "W_k": [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]])"));
  REQUIRE(r.error == "");
  const attn::Problem p = scenario::to_problem(r.scenario);
  CHECK(p.weights.W_q.rows() == 2);
  CHECK(p.weights.W_q.cols() == 6);
  CHECK(p.weights.W_k(1, 1) == 1.0f);  // explicit weights win over init
  CHECK(p.weights.W_o.rows() == 6);
}

//-----------------------------------------------------------------------------
// [SECTION] Trace JSON, whole or in parts
//-----------------------------------------------------------------------------

TEST_CASE("TraceJsonWriter writes the trace in pieces, or only the parts asked for",
          "[scenario][json][trace]") {
  const scenario::ParseResult r = scenario::parse(R"({"version": 1,
      "x": [[1, 0, 0.5, 2], [0, 1, -0.5, 0], [1, 1, 0, -1]], "heads": 2, "causal": true,
      "mask_value": "-inf", "valid_lens": [[1, 2, 3]]})");
  REQUIRE(r.ok());
  const attn::Trace t = attn::run(r.problem);
  const std::string whole = scenario::trace_to_json(t);
  const nlohmann::json j = nlohmann::json::parse(whole);
  CHECK(j["version"] == 1);
  CHECK(j["heads"].size() == 2);
  CHECK(j["heads"][1]["masked"][0][0][1] == "-inf");
  CHECK(j["output"][0].size() == 3);

  // The same text, streamed in small pieces.
  std::vector<std::string> pieces;
  scenario::TraceJsonWriter all([&](const std::string& p) { pieces.push_back(p); });
  for (const attn::HeadTrace& h : t.heads) all.head(h);
  all.output(t.output);
  all.finish();
  std::string joined;
  for (const std::string& p : pieces) joined += p;
  CHECK(joined == whole);

  // One head's weights, and no output.
  std::string part;
  scenario::TraceJsonWriter some([&](const std::string& p) { part += p; });
  some.head(t.heads[1], {"weights"}, 1);
  some.finish();
  const nlohmann::json k = nlohmann::json::parse(part);
  CHECK(k.size() == 2);  // version and heads
  REQUIRE(k["heads"].size() == 1);
  CHECK(k["heads"][0]["head"] == 1);
  CHECK(k["heads"][0].size() == 2);  // head and weights
  CHECK(k["heads"][0]["weights"] == j["heads"][1]["weights"]);

  // The output alone.
  std::string out;
  scenario::TraceJsonWriter only([&](const std::string& p) { out += p; });
  only.output(t.output);
  only.finish();
  CHECK(nlohmann::json::parse(out) == nlohmann::json({{"version", 1}, {"output", j["output"]}}));
}

TEST_CASE("concat_heads and output_of give run()'s output from the heads one by one",
          "[scenario][trace]") {
  const scenario::ParseResult r = scenario::parse(R"({"version": 1,
      "x": [[1, 0, 0.5, 2], [0, 1, -0.5, 0], [1, 1, 0, -1]], "heads": 2,
      "init": {"seed": 5, "d_model": 4}})");
  REQUIRE(r.ok());
  const attn::Trace t = attn::run(r.problem);
  std::vector<attn::Batch> outputs;
  for (int h = 0; h < 2; ++h) outputs.push_back(attn::run_head(r.problem, h).output);
  const attn::Batch concat = attn::concat_heads({&outputs[0], &outputs[1]});
  CHECK(concat[0] == t.concat[0]);
  CHECK(attn::output_of(r.problem, concat)[0] == t.output[0]);
}

//-----------------------------------------------------------------------------
// [SECTION] Numbers beside the JSON (typed arrays)
//-----------------------------------------------------------------------------

TEST_CASE("matrix fields may come as float arrays beside the JSON, equal to the same numbers",
          "[scenario][binary]") {
  const std::vector<float> x = {1, 0, 0.5f, -2, 0.25f, 3};  // 3 × 2, or 1 × 3 × 2
  const std::vector<float> w = {0.5f, -1, 2, 0.125f};       // 2 × 2
  const std::vector<scenario::FloatArray> arrays = {{x.data(), x.size()}, {w.data(), w.size()}};
  const scenario::ParseResult typed = scenario::parse(
      R"({"version": 1, "x": {"shape": [3, 2], "buffer": 0}, "W_q": {"shape": [2, 2],
          "buffer": 1}, "W_k": [[0.5, -1], [2, 0.125]]})",
      arrays);
  REQUIRE(typed.error == "");
  const scenario::ParseResult text = scenario::parse(
      R"({"version": 1, "x": [[1, 0], [0.5, -2], [0.25, 3]], "W_q": [[0.5, -1], [2, 0.125]],
          "W_k": [[0.5, -1], [2, 0.125]]})");
  REQUIRE(text.error == "");
  CHECK(scenario::to_json(typed.scenario) == scenario::to_json(text.scenario));
  CHECK(typed.scenario.batch_of_one);
  // [batch, rows, cols], and queries/keys/values each from their own array.
  const scenario::ParseResult three = scenario::parse(
      R"({"version": 1, "queries": {"shape": [1, 2, 2], "buffer": 1},
          "keys": {"shape": [1, 3, 2], "buffer": 0}, "values": {"shape": [1, 3, 2], "buffer": 0}})",
      arrays);
  REQUIRE(three.error == "");
  CHECK_FALSE(three.scenario.batch_of_one);
  CHECK(three.scenario.queries[0](1, 1) == 0.125f);
  CHECK(three.scenario.values[0](2, 1) == 3.0f);
}

TEST_CASE("float arrays beside the JSON: every problem names its field", "[scenario][binary]") {
  std::vector<float> x = {1, 0, 0.5f, -2, 0.25f, 3};
  std::vector<scenario::FloatArray> arrays = {{x.data(), x.size()}};
  auto error = [&](const std::string& field) {
    return scenario::parse(R"({"version": 1, "x": )" + field + "}", arrays).error;
  };
  CHECK(error(R"({"shape": [3, 2], "buffer": 1})") == "x.buffer: there is no array 1 (1 given)");
  CHECK(error(R"({"shape": [2, 2], "buffer": 0})") ==
        "x.buffer: has 6 numbers, expected 4 (the product of the shape)");
  CHECK(error(R"({"shape": [6], "buffer": 0})") ==
        "x.shape: must be [rows, cols] or [batch, rows, cols]");
  CHECK(error(R"({"shape": [3, 0], "buffer": 0})") == "x.shape[1]: is 0, must be at least 1");
  CHECK(error(R"({"shape": [5000, 2], "buffer": 0})") ==
        "x.shape[0]: is 5000, must be at most 4096");
  CHECK(error(R"({"shape": [3, 2]})") == "x.buffer: missing");
  CHECK(error(R"({"shape": [3, 2], "buffer": 0, "data": 1})") == "x.data: unknown field");
  x[3] = std::numeric_limits<float>::infinity();
  CHECK(error(R"({"shape": [3, 2], "buffer": 0})") == "x[1][1]: is not a finite number");
  CHECK(error(R"({"shape": [1, 3, 2], "buffer": 0})") == "x[0][1][1]: is not a finite number");
  // Without arrays, a buffer field names the missing array.
  CHECK(scenario::parse(R"({"version": 1, "x": {"shape": [1, 1], "buffer": 0}})").error ==
        "x.buffer: there is no array 0 (0 given)");
}

TEST_CASE("format_float: the fast path writes what printf's shortest round trip writes",
          "[scenario][json]") {
  // Against the definition: the fewest %.{p}g digits that strtof reads back to v (and the
  // plain-decimal rule between 1e-4 and 1e5), for values that take every branch.
  auto reference = [](float v) {
    char buf[48];
    int p = 1;
    for (; p < 9; ++p) {
      std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(v));
      if (std::strtof(buf, nullptr) == v) break;
    }
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(v));
    return std::string(buf);
  };
  uint64_t state = 12345;
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t bits = static_cast<uint32_t>(state >> 32);
    float v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v) || v == 0.0f) continue;
    const float a = std::fabs(v);
    if (a < 1e5f && std::floor(a) == a) continue;  // integers are written as integers
    const std::string want = reference(v);
    if (want.find('e') != std::string::npos && a >= 1e-4f && a < 1e5f) continue;
    INFO(want);
    CHECK(scenario::format_float(v) == want);
    ++checked;
  }
  CHECK(checked > 150000);
  CHECK(scenario::format_float(0.1f) == "0.1");
  CHECK(scenario::format_float(1e-7f) == "1e-07");
  CHECK(scenario::format_float(-2.5e-5f) == "-2.5e-05");
  CHECK(scenario::format_float(123456.7f) == "123456.7");
  CHECK(scenario::format_float(1.5e20f) == "1.5e+20");
  CHECK(scenario::format_float(3.4028235e38f) == "3.4028235e+38");
  CHECK(scenario::format_float(1e-45f) == "1e-45");  // subnormal: printf decides
}

// One term per concept, one notation, across every lesson (description, notes, questions and
// explanations, in both languages) and every toy task's words: "token" is 词元 (前一个词元,
// never 前一个词, which is a word's), an induction head is 归纳头, and indices are subscripts
// (h₁…h₆, sₜ₋₁), never raw markup (h_1..h_6, s_{t−1}).
TEST_CASE("the lessons' glossary: one Chinese term per concept, subscripts, no raw markup",
          "[scenario][presets]") {
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> texts;  // where, en, zh
  const auto walk = [&texts](const nlohmann::json& j, const std::string& where,
                             auto&& self) -> void {
    if (j.is_object()) {
      if (j.contains("en") && j.contains("zh") && j["en"].is_string() && j["zh"].is_string())
        texts.push_back({where, {j["en"].get<std::string>(), j["zh"].get<std::string>()}});
      for (const auto& [k, v] : j.items()) self(v, where + "." + k, self);
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) self(j[i], where + "[" + std::to_string(i) + "]", self);
    }
  };
  for (const char* name : kLessonNames)
    walk(nlohmann::json::parse(read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json")), name,
         walk);
  for (const char* name : {"previous_token", "reverse", "sort", "recall", "translate",
                           "kernel_regression", "induction"}) {
    const scenario::TaskInfo* t = scenario::find_task(name);
    REQUIRE(t);
    for (const scenario::LocalText* l : {&t->title, &t->goal, &t->check})
      texts.push_back({std::string("task ") + name, {l->en, l->zh}});
  }
  REQUIRE(texts.size() > 200);
  const std::regex token(R"(\btokens?\b|previous-token)", std::regex::icase);
  const std::regex word_not_token("前一个词(?!元)");
  const std::regex markup(R"([A-Za-z]_\{|\b[hsc]_([0-9]|i\b|t\b)|\.\.[hsc]_)");
  for (const auto& [where, pair] : texts) {
    const auto& [en, zh] = pair;
    INFO(where << "\nen: " << en << "\nzh: " << zh);
    if (std::regex_search(en, token)) CHECK_FALSE(std::regex_search(zh, word_not_token));
    if (en.find("induction head") != std::string::npos)
      CHECK(zh.find("归纳头") != std::string::npos);
    CHECK_FALSE(std::regex_search(en, markup));
    CHECK_FALSE(std::regex_search(zh, markup));
  }
}

TEST_CASE("true_curve: pairs with x increasing, or a clear error naming the field",
          "[scenario][bad]") {
  CHECK(error_of(with(R"("true_curve": [[0, 1], [0.5, 2], [1, 0]])")) == "");
  CHECK(error_of(with(R"("true_curve": [[0, 1]])")) ==
        "true_curve: must be 2 to 1000 pairs [x, y]");
  CHECK(error_of(with(R"("true_curve": {"x": [0, 1]})")) ==
        "true_curve: must be 2 to 1000 pairs [x, y]");
  CHECK(error_of(with(R"("true_curve": [[0, 1, 2], [1, 2, 3]])")) ==
        "true_curve: must be pairs [x, y]");
  CHECK(error_of(with(R"("true_curve": [[0, 1], [0, 2]])")) ==
        "true_curve[1][0]: x must increase from pair to pair (0 after 0)");
  CHECK(error_of(with(R"("true_curve": [[1, 1], [0.5, 2]])")) ==
        "true_curve[1][0]: x must increase from pair to pair (0.5 after 1)");
  CHECK(error_of(with(R"("true_curve": [[0, 1], [1, "2"]])")).rfind("true_curve[1]", 0) == 0);
  CHECK(error_of(with(R"("true_curve": [[0, 1], [1, 1e39]])")).rfind("true_curve[1]", 0) == 0);
  std::string many = "[";
  for (int i = 0; i < 1001; ++i) many += (i ? ", [" : "[") + std::to_string(i) + ", 0]";
  CHECK(error_of(with(R"("true_curve": )" + many + "]")) ==
        "true_curve: must be 2 to 1000 pairs [x, y]");
  // Written back as read.
  const scenario::ParseResult r = scenario::parse(with(R"("true_curve": [[0, 1], [0.5, 2.25]])"));
  REQUIRE(r.error == "");
  const scenario::ParseResult again = scenario::parse(scenario::to_json(r.scenario));
  REQUIRE(again.error == "");
  CHECK(again.scenario.true_curve.rows() == 2);
  CHECK(again.scenario.true_curve(1, 1) == 2.25f);
}
