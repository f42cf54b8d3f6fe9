// Scenario semantics: validation beyond the JSON shape, seeded weights, and the core Problem.
#include "scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/random.h"

namespace scenario {

namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

std::string check_valid_lens(const Scenario& s) {
  const int B = s.batch(), n_q = s.n_queries(), n_k = s.n_keys();
  auto check_len = [&](int len, const std::string& field) -> std::string {
    if (len > n_k) return field + ": is " + str(len) + ", larger than the " + str(n_k) + " keys";
    return "";
  };
  std::string e;
  switch (s.valid_lens_form) {
    case ValidLensForm::kNone:
      return "";
    case ValidLensForm::kAll:
      return check_len(s.valid_lens[0][0], "valid_lens");
    case ValidLensForm::kPerSequence:
    case ValidLensForm::kPerQuery:
      if (static_cast<int>(s.valid_lens.size()) != B)
        return "valid_lens: has " + str(s.valid_lens.size()) + " entries, expected " + str(B) +
               " (one per batch item)";
      for (int b = 0; b < B; ++b) {
        const std::string item = "valid_lens[" + str(b) + "]";
        const std::vector<int>& lens = s.valid_lens[b];
        if (s.valid_lens_form == ValidLensForm::kPerSequence) {
          if (!(e = check_len(lens[0], item)).empty()) return e;
          continue;
        }
        if (static_cast<int>(lens.size()) != n_q)
          return item + ": has " + str(lens.size()) + " entries, expected " + str(n_q) +
                 " (one per query)";
        for (int i = 0; i < n_q; ++i)
          if (!(e = check_len(lens[i], item + "[" + str(i) + "]")).empty()) return e;
      }
      return "";
  }
  return "";
}

std::string check_tokens(const std::vector<std::vector<std::string>>& tokens,
                         const std::string& field, int B, int n, const char* what) {
  if (tokens.empty()) return "";
  if (tokens.size() > 1 && static_cast<int>(tokens.size()) != B)
    return field + ": has " + str(tokens.size()) + " token lists, expected " + str(B) +
           " (one per batch item)";
  for (size_t b = 0; b < tokens.size(); ++b) {
    if (static_cast<int>(tokens[b].size()) != n)
      return (tokens.size() > 1 ? field + "[" + str(b) + "]" : field) + ": has " +
             str(tokens[b].size()) + " tokens, expected " + str(n) + " (one per " + what + ")";
  }
  return "";
}

// The quiz's question i names cells inside the matrices it names.
std::string check_quiz_question(const Scenario& s, const attn::Problem& p, size_t i) {
  const int B = s.batch(), n_q = s.n_queries(), n_k = s.n_keys();
  const int dv_model =
      p.weights.W_v.size() ? static_cast<int>(p.weights.W_v.cols()) : attn::batch_cols(s.values);
  const int out_cols = p.weights.W_o.size() ? static_cast<int>(p.weights.W_o.cols()) : dv_model;
  const QuizAnswer& a = s.quiz[i].answer;
  const std::string f = "quiz[" + str(static_cast<int64_t>(i)) + "].answer";
  if (a.head >= s.heads) return f + ".head: " + str(a.head) + " is not below heads " + str(s.heads);
  if (a.batch >= B) return f + ".batch: " + str(a.batch) + " is not below the batch " + str(B);
  const std::string rows = a.argmax ? f + ".row" : f + ".cell[0]";
  if (a.row >= n_q) return rows + ": " + str(a.row) + " is not below the queries " + str(n_q);
  int cols = n_k;
  if (!a.argmax && a.matrix == "head_output") cols = dv_model / s.heads;
  if (!a.argmax && a.matrix == "output") cols = out_cols;
  const std::string col = a.argmax ? f + ".key" : f + ".cell[1]";
  if (a.col >= cols)
    return col + ": " + str(a.col) + " is not below " + str(cols) +
           (cols == n_k ? " (the keys)" : " (the columns)");
  return "";
}

std::string check_quiz_shapes(const Scenario& s, const attn::Problem& p) {
  for (size_t i = 0; i < s.quiz.size(); ++i) {
    if (s.quiz[i].answer.layer != 0)
      return "quiz[" + str(static_cast<int64_t>(i)) +
             "].answer.layer: " + str(s.quiz[i].answer.layer) +
             " names a layer, but the scenario has no \"layers\"";
    std::string e = check_quiz_question(s, p, i);
    if (!e.empty()) return e;
  }
  return "";
}

// A stack's questions: each in its layer, checked as one layer's (its heads and weights).
std::string check_quiz_shapes(const Scenario& s, const attn::Stack& st) {
  const int L = static_cast<int>(st.layers.size());
  for (size_t i = 0; i < s.quiz.size(); ++i) {
    const int l = s.quiz[i].answer.layer;
    if (l >= L)
      return "quiz[" + str(static_cast<int64_t>(i)) + "].answer.layer: " + str(l) +
             " is not below the layers " + str(L);
    Scenario one = s;
    one.heads = st.layers[l].heads;
    attn::Problem p = st.base;
    p.weights = st.layers[l].weights;
    p.heads = st.layers[l].heads;
    std::string e = check_quiz_question(one, p, i);
    if (!e.empty()) return e;
  }
  return "";
}

// Whether the Chinese tokens or names `zh` (empty: none) are one per English one.
bool same_shape(const std::vector<std::vector<std::string>>& en,
                const std::vector<std::vector<std::string>>& zh) {
  if (zh.empty()) return true;
  if (zh.size() != en.size()) return false;
  for (size_t b = 0; b < zh.size(); ++b)
    if (zh[b].size() != en[b].size()) return false;
  return true;
}

// "" when the column names of `field` (none, or one per column of `what`) fit its `cols`.
std::string check_names(const std::vector<std::vector<std::string>>& names,
                        const std::vector<std::vector<std::string>>& zh, const std::string& field,
                        int cols, const char* what) {
  if (names.empty()) return std::string();
  if (static_cast<int>(names[0].size()) != cols)
    return field + ": has " + str(static_cast<int64_t>(names[0].size())) + " names, expected " +
           str(cols) + " (one per column of " + what + ")";
  if (!same_shape(names, zh)) return field + ": the Chinese names are not one per English name";
  return std::string();
}

// The output's columns: W_o's, else W_v's, else the values'; with layers, the stream's (x's).
int output_columns(const Scenario& s, const attn::Problem& p) {
  if (!s.layers.empty()) return attn::batch_cols(s.queries);
  const int dv_model =
      p.weights.W_v.size() ? static_cast<int>(p.weights.W_v.cols()) : attn::batch_cols(s.values);
  return p.weights.W_o.size() ? static_cast<int>(p.weights.W_o.cols()) : dv_model;
}

std::string check_output_names(const Scenario& s, const attn::Problem& p) {
  return check_names(s.output_names, s.output_names_zh, "output_names", output_columns(s, p),
                     "the output");
}

// "" when there is no target or it is shaped like the output of problem p.
std::string check_target_shape(const Scenario& s, const attn::Problem& p) {
  if (s.target.empty()) return "";
  const int out_cols = output_columns(s, p);
  const int n_q = s.n_queries();
  if (s.target.size() == s.queries.size() && attn::batch_rows(s.target) == n_q &&
      attn::batch_cols(s.target) == out_cols)
    return "";
  return "target: is " + str(static_cast<int64_t>(s.target.size())) + " × " +
         str(attn::batch_rows(s.target)) + " × " + str(attn::batch_cols(s.target)) +
         ", the output is " + str(s.batch()) + " × " + str(n_q) + " × " + str(out_cols) +
         " (batch × queries × columns)";
}

// Magnitudes (check_magnitudes): bounds, in double, on every number the core computes.

constexpr double kFloatMax = 3.4028234663852886e38;  // float32's largest number
// The most a bound may reach: half float32's largest number, room for the rounding of float32
// sums (the kernels' base-2 units, scores times log2 e, and their unnormalized sums are
// bounded on their own).
constexpr double kLimit = kFloatMax / 2;
constexpr double kLog2e = 1.4426950408889634;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

// The rows of one batch item of an input, as bounds: each row's length (with positional
// encoding, plus the encoding's, at most √cols) and the largest magnitude in it.
struct RowBounds {
  std::vector<double> length;
  double largest = 0.0;
};

RowBounds row_bounds(const attn::Matrix& x, bool pe) {
  RowBounds r;
  const int cols = static_cast<int>(x.cols());
  const double pe_length = pe ? std::sqrt(static_cast<double>(cols)) : 0.0;
  r.length.resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* row = x.data() + i * cols;
    r.length[i] = attn::vector_length(row, cols) + pe_length;
    for (int c = 0; c < cols; ++c) r.largest = std::max(r.largest, std::fabs(double{row[c]}));
  }
  if (pe) r.largest += 1.0;
  return r;
}

// A weight matrix's longest column and its Frobenius norm (bounds on x·W: each element of it
// is at most |x|·(longest column), each row's length at most |x|·|W|_F), and its largest
// magnitude.
struct WeightBounds {
  bool present = false;
  double longest_column = 0.0, frobenius = 0.0, largest = 0.0;
};

WeightBounds weight_bounds(const attn::Matrix& w) {
  WeightBounds r;
  if (!w.size()) return r;
  r.present = true;
  std::vector<double> column(w.cols(), 0.0);
  for (Eigen::Index i = 0; i < w.rows(); ++i)
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      const double v = w(i, j);
      column[j] += v * v;
      r.largest = std::max(r.largest, std::fabs(v));
    }
  double total = 0.0;
  for (double c : column) {
    total += c;
    r.longest_column = std::max(r.longest_column, std::sqrt(c));
  }
  r.frobenius = std::sqrt(total);
  return r;
}

std::string too_large(const std::string& field, const std::string& what, double bound) {
  return field + ": values too large: " + what + " can overflow float32 (up to " + num(bound) +
         "; at most " + num(kLimit) + " is safe)";
}

// The weights `init` generates, missing from `given`, for inputs of widths d_q, d_k and d_v
// and d_model D (docs/contracts.md §1 "Weights"), W_o (D × D) only when `with_W_o`.
attn::Weights generated_weights(const attn::Weights& given, attn::Scoring scoring, int heads,
                                int d_q, int d_k, int d_v, int D, uint64_t seed, bool with_W_o) {
  attn::Weights w = given;
  if (!w.W_q.size()) w.W_q = generated_matrix(d_q, D, seed, WeightStream::kWq);
  if (!w.W_k.size()) w.W_k = generated_matrix(d_k, D, seed, WeightStream::kWk);
  if (scoring == attn::Scoring::kAdditive) {
    if (!w.w_v.size()) w.w_v = generated_matrix(D, 1, seed, WeightStream::kwv).col(0);
  } else {
    if (!w.W_v.size()) w.W_v = generated_matrix(d_v, D, seed, WeightStream::kWv);
    if (with_W_o && !w.W_o.size()) w.W_o = generated_matrix(D, D, seed, WeightStream::kWo);
    if (scoring == attn::Scoring::kGeneral && !w.W.size() && heads > 0 && D % heads == 0)
      w.W = generated_matrix(D / heads, D / heads, seed, WeightStream::kW);
  }
  return w;
}

std::string layer_name(size_t l) {
  return "layers[" + std::to_string(l) + "]";
}

}  // namespace

void fit_to_shapes(Scenario* s) {
  const auto fit = [](std::vector<std::vector<std::string>>* names,
                      std::vector<std::vector<std::string>>* zh, int cols) {
    if (!names->empty() && static_cast<int>((*names)[0].size()) != cols) {
      names->clear();
      zh->clear();
    }
  };
  fit(&s->feature_names, &s->feature_names_zh, attn::batch_cols(s->queries));
  fit(&s->key_feature_names, &s->key_feature_names_zh, attn::batch_cols(s->keys));
  if (s->key_feature_names.empty() && attn::batch_cols(s->queries) != attn::batch_cols(s->keys)) {
    s->feature_names.clear();
    s->feature_names_zh.clear();
  }
  fit(&s->value_names, &s->value_names_zh, attn::batch_cols(s->values));
  if (s->quiz.empty() && s->target.empty() && s->output_names.empty()) return;
  const attn::Problem p = to_problem(*s);
  if (!check_output_names(*s, p).empty()) {
    s->output_names.clear();
    s->output_names_zh.clear();
  }
  // A target the output no longer has the shape of (other tokens, widths or heads) goes: the
  // edited scenario is a new problem, and Train says it has no target.
  if (!check_target_shape(*s, p).empty()) s->target.clear();
  std::vector<QuizQuestion> kept;
  for (size_t i = 0; i < s->quiz.size(); ++i)
    if (check_quiz_question(*s, p, i).empty()) kept.push_back(s->quiz[i]);
  s->quiz = std::move(kept);
}

// A question names the head's steps as the trace does, but "output" is the layer's output and
// "head_output" the head's.
bool is_quiz_matrix(const std::string& name) {
  const auto& steps = attn::kHeadMatrixNames;
  return name == "head_output" ||
         std::find(std::begin(steps), std::end(steps), name) != std::end(steps);
}

const attn::Matrix& quiz_matrix(const QuizAnswer& a, const attn::HeadTrace& h, int item,
                                const attn::Batch& output) {
  if (a.argmax) return h.weights[item];
  if (a.matrix == "output") return output[a.batch];
  const attn::Batch* m = attn::head_matrix(h, a.matrix == "head_output" ? "output" : a.matrix);
  return (m ? *m : h.weights)[item];
}

int argmax_in_row(const attn::Matrix& m, int row) {
  int best = 0;
  for (int j = 1; j < m.cols(); ++j)
    if (m(row, j) > m(row, best)) best = j;
  return best;
}

int quiz_argmax(const QuizAnswer& a, const attn::Trace& t) {
  return argmax_in_row(quiz_matrix(a, t.heads[a.head], a.batch, t.output), a.row);
}

float quiz_value(const QuizAnswer& a, const attn::Trace& t) {
  return quiz_matrix(a, t.heads[a.head], a.batch, t.output)(a.row, a.col);
}

std::string check_quiz_answer(const QuizAnswer& a, const attn::Trace& t) {
  if (a.argmax) {
    const int best = quiz_argmax(a, t);
    return best == a.col ? "" : "the largest weight in row " + str(a.row) + " is key " + str(best);
  }
  const float v = quiz_value(a, t);
  if (std::fabs(v - a.value) <= a.tolerance) return "";
  return a.matrix + "[" + str(a.row) + "][" + str(a.col) + "] is " + format_float(v);
}

void set_weights(Scenario* s, const attn::Weights& w) {
  s->has_init = false;
  attn::for_each_weight(*s, w, [](const char*, auto& to, const auto& from) { to = from; });
  s->sigma = w.sigma;  // gaussian scoring's learned width (to_problem gave it the scenario's)
}

attn::Matrix token_embed(const Scenario& s) {
  if (s.embed.size() || !s.has_init || s.vocab.empty()) return s.embed;
  return generated_matrix(static_cast<int>(s.vocab.size()), s.init_d_model, s.init_seed,
                          WeightStream::kEmbed);
}

attn::Matrix token_unembed(const Scenario& s) {
  if (s.unembed.size() || !s.has_init) return s.unembed;
  const attn::Matrix E = token_embed(s);
  if (!E.size()) return s.unembed;
  return generated_matrix(static_cast<int>(E.cols()), static_cast<int>(E.rows()), s.init_seed,
                          WeightStream::kUnembed);
}

void fill_token_inputs(Scenario* s) {
  const attn::Matrix E = token_embed(*s);
  attn::Batch x;
  for (const std::vector<int>& ids : s->token_ids) {
    attn::Matrix m(static_cast<Eigen::Index>(ids.size()), E.cols());
    for (size_t i = 0; i < ids.size(); ++i) m.row(static_cast<Eigen::Index>(i)) = E.row(ids[i]);
    x.push_back(std::move(m));
  }
  s->queries = s->keys = s->values = x;
}

void set_weights(Scenario* s, const attn::Stack& st) {
  if (s->token_model()) {  // before init goes: the generated ones are written out
    s->embed = st.tokens.embed;
    s->unembed = st.tokens.unembed;
  }
  s->has_init = false;
  if (s->token_model()) fill_token_inputs(s);
  s->layers.resize(st.layers.size());
  for (size_t l = 0; l < st.layers.size(); ++l) {
    s->layers[l].heads = st.layers[l].heads;
    attn::for_each_weight(s->layers[l], st.layers[l].weights,
                          [](const char*, auto& to, const auto& from) { to = from; });
  }
}

attn::Matrix generated_matrix(int rows, int cols, uint64_t seed, WeightStream stream) {
  attn::Matrix m(rows, cols);
  const double bound = std::sqrt(6.0 / (rows + cols));
  const uint64_t stream_seed = attn::splitmix64(seed) + static_cast<uint64_t>(stream);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const double u = attn::uniform01(stream_seed, static_cast<uint64_t>(r) * cols + c);
      m(r, c) = static_cast<float>(std::round((2.0 * u - 1.0) * bound * 100.0) / 100.0);
    }
  }
  return m;
}

Resolved resolve(const Scenario& s) {
  Resolved r;
  const int B = s.batch(), n_q = s.n_queries(), n_k = s.n_keys();
  std::string& e = r.error;
  if (!(e = check_tokens(s.query_tokens, "query_tokens", B, n_q, "query")).empty()) return r;
  if (!(e = check_tokens(s.key_tokens, "key_tokens", B, n_k, "key")).empty()) return r;
  // The Chinese tokens (read with the English ones, kept in step by the app's edits).
  if (!same_shape(s.query_tokens, s.query_tokens_zh)) {
    e = "query_tokens: the Chinese tokens are not one per English token";
    return r;
  }
  if (!s.feature_names.empty() && s.key_feature_names.empty() &&
      attn::batch_cols(s.queries) != attn::batch_cols(s.keys)) {
    e = "feature_names: queries and keys have different numbers of columns (" +
        str(attn::batch_cols(s.queries)) + " and " + str(attn::batch_cols(s.keys)) +
        "): name the keys' columns in key_feature_names";
    return r;
  }
  if (!s.value_names.empty() && s.self_attention) {
    e = "value_names: with x (self-attention) the values' columns are x's: name them in "
        "feature_names";
    return r;
  }
  if (!s.key_feature_names.empty() && s.self_attention) {
    e = "key_feature_names: with x (self-attention) the keys' columns are x's: name them in "
        "feature_names";
    return r;
  }
  if (!(e = check_names(s.feature_names, s.feature_names_zh, "feature_names",
                        attn::batch_cols(s.queries),
                        s.key_feature_names.empty() ? "the queries and keys" : "the queries"))
           .empty())
    return r;
  if (!(e = check_names(s.key_feature_names, s.key_feature_names_zh, "key_feature_names",
                        attn::batch_cols(s.keys), "the keys"))
           .empty())
    return r;
  if (!(e = check_names(s.value_names, s.value_names_zh, "value_names", attn::batch_cols(s.values),
                        "the values"))
           .empty())
    return r;
  if (!same_shape(s.key_tokens, s.key_tokens_zh)) {
    e = "key_tokens: the Chinese tokens are not one per English token";
    return r;
  }
  // Every head's score matrices (of each layer, which are computed one after the other).
  for (size_t l = 0; l < std::max<size_t>(1, s.layers.size()); ++l) {
    const int heads = s.layers.empty() ? s.heads : s.layers[l].heads;
    const int64_t cells = int64_t{B} * heads * n_q * n_k;
    if (cells > kMaxScoreCells) {
      e = (s.layers.empty() ? std::string("heads") : layer_name(l) + ".heads") + ": batch " +
          str(B) + " × " + str(heads) + " heads × " + str(n_q) + " queries × " + str(n_k) +
          " keys is " + str(cells) + " score cells, more than the limit " + str(kMaxScoreCells);
      return r;
    }
  }
  if (!(e = check_valid_lens(s)).empty()) return r;
  if (!s.layers.empty()) {
    r.problem = to_problem(s);
    r.stack = to_stack(s);
    e = attn::validate(r.stack).error;
    if (r.ok()) e = check_quiz_shapes(s, r.stack);
    if (r.ok()) e = check_target_shape(s, r.problem);
    if (r.ok()) e = check_output_names(s, r.problem);
    if (r.ok()) e = check_magnitudes(r.stack);
    if (!r.ok()) r.problem = attn::Problem(), r.stack = attn::Stack();
    return r;
  }
  r.problem = to_problem(s);
  e = attn::validate(r.problem).error;
  if (r.ok()) e = check_quiz_shapes(s, r.problem);
  if (r.ok()) e = check_target_shape(s, r.problem);
  if (r.ok()) e = check_output_names(s, r.problem);
  if (r.ok()) e = check_magnitudes(r.problem, s.self_attention);
  if (!r.ok()) r.problem = attn::Problem();
  return r;
}

std::string check_magnitudes(const attn::Problem& p, bool self_attention) {
  using attn::Scoring;
  const int B = static_cast<int>(p.queries.size());
  const attn::Weights& w = p.weights;
  const attn::HeadShape hs = attn::head_shape(p);
  const bool additive = p.scoring == Scoring::kAdditive;
  const bool pe = p.positional_encoding;
  const std::string qf = self_attention ? "x" : "queries", kf = self_attention ? "x" : "keys";
  const std::string vf = self_attention ? "x" : "values";
  const auto item = [B](int b) { return B > 1 ? " of batch item " + str(b) : std::string(); };
  // A temperature so small that dividing by it overflows.
  const auto too_small = [&p](const std::string& what, double bound) {
    return "temperature: is " + format_float(p.temperature) + ", too small: " + what +
           " divided by it can overflow float32 (up to " + num(bound) + "; at most " + num(kLimit) +
           " is safe)";
  };

  // The factor the scores are multiplied by (in the kernels' base-2 units, times log2 e).
  if (!std::isfinite(hs.scale))
    return "temperature: is " + format_float(p.temperature) +
           ", too small: 1/temperature is past float32's range (3.4e+38)";
  const double scale2 = static_cast<double>(hs.scale) * kLog2e;
  const double grow = std::max(1.0, scale2);  // what the scores may be multiplied by

  const WeightBounds Wq = weight_bounds(w.W_q), Wk = weight_bounds(w.W_k),
                     Wv = weight_bounds(w.W_v), Wo = weight_bounds(w.W_o), W = weight_bounds(w.W);
  double w_v_sum = 0.0;  // additive: |w_v|_1 bounds the scores
  for (Eigen::Index u = 0; u < w.w_v.size(); ++u) w_v_sum += std::fabs(double{w.w_v(u)});

  // x·W (a projection, or additive scoring's hidden layer): row i of x times any column.
  const auto product = [&](const RowBounds& x, const WeightBounds& wb, const std::string& xf,
                           const char* wf, const char* rows, int b, double limit) {
    if (!wb.present) return std::string();
    for (size_t i = 0; i < x.length.size(); ++i) {
      const double bound = x.length[i] * wb.longest_column;
      if (bound > limit)
        return too_large(
            wb.largest >= x.largest ? wf : xf,
            std::string(rows) + " " + str(static_cast<int64_t>(i)) + item(b) + " times " + wf,
            bound);
    }
    return std::string();
  };

  double values_largest = 0.0;  // a bound on every value (v = values·W_v)
  double values_input = 0.0;    // the largest magnitude in the values as given
  for (int b = 0; b < B; ++b) {
    // Self-attention shares one batch for all three (attn::Batch): its bounds are made once.
    const RowBounds q = row_bounds(p.queries[b], pe);
    const RowBounds k = p.keys.shares(p.queries) ? q : row_bounds(p.keys[b], pe);
    const RowBounds v = p.values.shares(p.keys)      ? k
                        : p.values.shares(p.queries) ? q
                                                     : row_bounds(p.values[b], pe);
    const double limit = additive ? kLimit / 2 : kLimit;  // additive sums its two products
    std::string e;
    if (!(e = product(q, Wq, qf, "W_q", "query", b, limit)).empty()) return e;
    if (!(e = product(k, Wk, kf, "W_k", "key", b, limit)).empty()) return e;
    if (!(e = product(v, Wv, vf, "W_v", "value", b, kLimit)).empty()) return e;
    values_input = std::max(values_input, v.largest);
    if (Wv.present) {
      for (double len : v.length)
        values_largest = std::max(values_largest, len * Wv.longest_column);
    } else {
      values_largest = std::max(values_largest, v.largest);
    }
    if (additive) {
      if (w_v_sum * grow > kLimit)
        return w_v_sum <= kLimit ? too_small("the scores", w_v_sum * grow)
                                 : too_large("w_v", "the scores (at most |w_v|_1)", w_v_sum);
      continue;
    }
    if (p.scoring == Scoring::kGaussian) {
      // −|q − k|² / (2σ²), with |q − k| <= |q| + |k| (projected: |x W| <= |x| |W|_F), summed in
      // double and rounded to float once; then times the scale.
      const double fq = Wq.present ? Wq.frobenius : 1.0, fk = Wk.present ? Wk.frobenius : 1.0;
      double c_max = 0.0;
      for (double len : k.length) c_max = std::max(c_max, len * fk);
      const double sigma = w.sigma, two_s2 = 2.0 * sigma * sigma;
      for (size_t i = 0; i < q.length.size(); ++i) {
        const double dist = (q.length[i] * fq + c_max) * (q.length[i] * fq + c_max);
        if (dist / two_s2 * grow <= kLimit) continue;
        const std::string what = "the score of query " + str(static_cast<int64_t>(i)) + item(b) +
                                 " and its farthest key (|q − k|² / (2σ²))";
        if (dist / two_s2 > kLimit && two_s2 >= 1.0)
          return too_large(q.length[i] * fq >= c_max ? qf : kf, what, dist / two_s2);
        if (dist / two_s2 > kLimit)
          return "sigma: is " + format_float(w.sigma) + ", too small: " + what +
                 " can overflow float32 (up to " + num(dist / two_s2) + "; at most " + num(kLimit) +
                 " is safe)";
        return too_small(what, dist / two_s2 * grow);
      }
      continue;
    }
    // The lengths of the rows that are dotted: projected (|x W| <= |x| |W|_F), general
    // scoring's q·W, or cosine scoring's unit rows. (Messages are made only on failure: this
    // runs at every training step of the CLI.)
    const bool cosine = p.scoring == Scoring::kCosine, general = p.scoring == Scoring::kGeneral;
    const double fq = (Wq.present ? Wq.frobenius : 1.0) * (general ? W.frobenius : 1.0);
    const double fk = Wk.present ? Wk.frobenius : 1.0;
    const auto a_of = [&](size_t i) { return cosine ? 1.0 : q.length[i] * fq; };
    const auto c_of = [&](size_t j) { return cosine ? 1.0 : k.length[j] * fk; };
    double c_max = 0.0;
    for (size_t j = 0; j < k.length.size(); ++j) c_max = std::max(c_max, c_of(j));
    for (size_t i = 0; i < q.length.size(); ++i) {
      const double a = a_of(i);
      if (a * c_max * grow <= kLimit && a * scale2 <= kLimit && !(general && a > kLimit)) continue;
      const std::string query = "query " + str(static_cast<int64_t>(i)) + item(b);
      if (general && a > kLimit)
        return too_large(W.largest >= q.largest ? "W" : qf, query + " times W", a);
      // The queries are multiplied by the scale before the fused kernel dots them.
      if (a * scale2 > kLimit)
        return a <= kLimit ? too_small(query, a * scale2)
                           : too_large(qf, query + " times the scores' scale", a * scale2);
      for (size_t j = 0; j < k.length.size(); ++j) {
        const double bound = a * c_of(j);
        if (bound * grow <= kLimit) continue;
        const std::string pair = "the score of query " + str(static_cast<int64_t>(i)) +
                                 " and key " + str(static_cast<int64_t>(j)) + item(b);
        if (bound <= kLimit) return too_small(pair, bound * grow);
        std::string field = q.length[i] >= k.length[j] ? qf : kf;
        if (general && W.frobenius > std::max(q.length[i], k.length[j])) field = "W";
        return too_large(field, pair + " (|q|·|k|)", bound);
      }
    }
  }

  // The weighted values: the fused kernel sums up to n_k values (each weight at most 1) before
  // it divides by the weights' sum; dropout scales the kept weights by 1/(1 - p).
  const double keep = 1.0 / (1.0 - static_cast<double>(p.dropout_p));
  const double n_k = static_cast<double>(attn::batch_rows(p.keys));
  const double weighted = values_largest * n_k * keep;
  const std::string values_field = Wv.present && Wv.largest >= values_input ? "W_v" : vf;
  if (weighted > kLimit)
    return too_large(values_field, "the sum of the values weighted by the softmax", weighted);
  // The output: each row of the heads' outputs (every number at most values_largest·keep)
  // times a column of W_o.
  if (Wo.present) {
    const double concat = std::sqrt(static_cast<double>(hs.dv) * p.heads) * values_largest * keep;
    const double bound = concat * Wo.longest_column;
    if (bound > kLimit)
      return too_large(Wo.largest >= values_largest * keep ? "W_o" : values_field,
                       "the heads' outputs times W_o", bound);
  }
  return "";
}

std::string check_magnitudes(const attn::Stack& st) {
  const int L = static_cast<int>(st.layers.size());
  const double keep = 1.0 / (1.0 - static_cast<double>(st.base.dropout_p));
  attn::Batch h = attn::stack_input(st);  // h_0 exactly; then a bound on each state
  for (int l = 0; l < L; ++l) {
    const attn::Problem p = attn::layer_problem(st, l, h);
    std::string e = check_magnitudes(p, true);
    if (!e.empty()) {
      // The layer's weights are its own; "x" after the first layer is the stream it reads.
      const std::string field = e.substr(0, e.find(": "));
      const std::string rest = e.substr(field.size());
      for (const char* name : attn::kWeightNames)
        if (field == name) return layer_name(l) + "." + e;
      if (field == "x" && l > 0)
        return layer_name(l) + rest + " (over the stream h_" + std::to_string(l) +
               ", bounded from x and the layers before)";
      return e;
    }
    // The stream after the layer: each row at most |h_i| + |the layer's output row|. A head's
    // output row is a weighted sum of value rows (weights summing to at most 1/(1 − p) with
    // dropout), so the heads side by side are at most √heads · max_j |v_j| · keep long, with
    // |v_j| <= |h_j| |W_v|_F; times W_o, at most |W_o|_F as much again.
    const attn::Weights& w = p.weights;
    const double fv = w.W_v.size() ? w.W_v.cast<double>().norm() : 1.0;
    const double fo = w.W_o.size() ? w.W_o.cast<double>().norm() : 1.0;
    const int d = attn::batch_cols(h);
    attn::Batch next(h.size());
    for (size_t b = 0; b < h.size(); ++b) {
      const attn::Matrix& m = h[b];
      std::vector<double> length(static_cast<size_t>(m.rows()));
      double longest = 0.0;
      for (Eigen::Index i = 0; i < m.rows(); ++i) {
        length[i] = attn::vector_length(m.data() + i * d, d);
        longest = std::max(longest, length[i]);
      }
      const double added = std::sqrt(static_cast<double>(p.heads)) * longest * fv * keep * fo;
      attn::Matrix& bound = next.mut(b);
      bound = attn::Matrix::Zero(m.rows(), d);
      for (Eigen::Index i = 0; i < m.rows(); ++i) {
        const double row = length[i] + added;
        if (row > kLimit) {
          const char* by = w.W_o.size() ? ".W_o" : w.W_v.size() ? ".W_v" : "";
          return too_large(layer_name(l) + by,
                           "row " + str(static_cast<int64_t>(i)) +
                               (h.size() > 1 ? " of batch item " + str(static_cast<int64_t>(b))
                                             : std::string()) +
                               " of the stream after " + layer_name(l) + " (|h| + |its output|)",
                           row);
        }
        // Rounded up: the bound stays a bound.
        bound(i, 0) = std::nextafter(static_cast<float>(row), std::numeric_limits<float>::max());
      }
    }
    h = std::move(next);
  }
  return "";
}

attn::Status validate(const Scenario& s) {
  return attn::Status{resolve(s).error};
}

attn::Problem to_problem(const Scenario& s) {
  attn::Problem p;
  p.queries = s.queries;
  p.keys = s.keys;
  p.values = s.values;
  p.scoring = s.scoring;
  p.temperature = s.temperature;
  p.heads = s.heads;
  if (s.valid_lens_form == ValidLensForm::kAll) {
    p.mask.valid_lens.assign(s.queries.size(), s.valid_lens[0]);
  } else {
    p.mask.valid_lens = s.valid_lens;
  }
  p.mask.causal = s.causal;
  p.mask.window = s.window;
  p.mask.cells = s.masked_cells;
  p.mask.mask_value = s.mask_value;
  p.positional_encoding = s.positional_encoding;
  p.pe_base = s.pe_base;
  p.hard = s.hard;
  p.hard_gradient = s.hard ? s.hard_gradient : attn::HardGradient::kNone;
  p.gumbel_tau = s.gumbel_tau;
  p.gumbel_seed = s.gumbel_seed;
  p.gumbel_soft = s.gumbel_soft;
  if (s.has_dropout) {
    p.dropout_p = s.dropout_p;
    p.dropout_seed = s.dropout_seed;
  }

  if (!s.layers.empty()) return p;  // the stack's base: its layers hold the weights (to_stack)
  attn::Weights& w = p.weights;
  attn::for_each_weight(w, s, [](const char*, auto& to, const auto& from) { to = from; });
  w.sigma = s.sigma;
  if (s.has_init)
    w = generated_weights(w, s.scoring, s.heads, attn::batch_cols(s.queries),
                          attn::batch_cols(s.keys), attn::batch_cols(s.values), s.init_d_model,
                          s.init_seed, true);
  return p;
}

attn::Stack to_stack(const Scenario& s) {
  attn::Stack st;
  if (s.layers.empty()) return st;
  st.base = to_problem(s);
  const int d = attn::batch_cols(s.queries);
  for (size_t l = 0; l < s.layers.size(); ++l) {
    const LayerSpec& spec = s.layers[l];
    attn::Layer layer;
    layer.heads = spec.heads;
    attn::Weights& w = layer.weights;
    attn::for_each_weight(w, spec, [](const char*, auto& to, const auto& from) { to = from; });
    if (s.has_init) {
      // As a one-layer scenario of seed + l would (layer 0: the one-layer weights), but W_o
      // maps the heads back to the stream's width d.
      const uint64_t seed = s.init_seed + l;
      w = generated_weights(w, s.scoring, spec.heads, d, d, d, s.init_d_model, seed, false);
      if (!w.W_o.size())
        w.W_o = generated_matrix(w.W_v.size() ? static_cast<int>(w.W_v.cols()) : d, d, seed,
                                 WeightStream::kWo);
    }
    st.layers.push_back(std::move(layer));
  }
  if (s.token_model()) {
    st.tokens.ids = s.token_ids;
    st.tokens.next = s.next_tokens;
    st.tokens.embed = token_embed(s);
    st.tokens.unembed = token_unembed(s);
  }
  return st;
}

}  // namespace scenario
