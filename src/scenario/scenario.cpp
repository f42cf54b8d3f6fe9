// Scenario semantics: validation beyond the JSON shape, seeded weights, and the core Problem.
#include "scenario/scenario.h"

#include <cmath>
#include <string>

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
    std::string e = check_quiz_question(s, p, i);
    if (!e.empty()) return e;
  }
  return "";
}

// "" when there is no target or it is shaped like the output of problem p.
std::string check_target_shape(const Scenario& s, const attn::Problem& p) {
  if (s.target.empty()) return "";
  const int dv_model =
      p.weights.W_v.size() ? static_cast<int>(p.weights.W_v.cols()) : attn::batch_cols(s.values);
  const int out_cols = p.weights.W_o.size() ? static_cast<int>(p.weights.W_o.cols()) : dv_model;
  const int n_q = s.n_queries();
  if (s.target.size() == s.queries.size() && attn::batch_rows(s.target) == n_q &&
      attn::batch_cols(s.target) == out_cols)
    return "";
  return "target: is " + str(static_cast<int64_t>(s.target.size())) + " × " +
         str(attn::batch_rows(s.target)) + " × " + str(attn::batch_cols(s.target)) +
         ", the output is " + str(s.batch()) + " × " + str(n_q) + " × " + str(out_cols) +
         " (batch × queries × columns)";
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
  if (attn::batch_cols(s->queries) != attn::batch_cols(s->keys)) {
    s->feature_names.clear();
    s->feature_names_zh.clear();
  }
  fit(&s->value_names, &s->value_names_zh, attn::batch_cols(s->values));
  if (s->quiz.empty() && s->target.empty()) return;
  const attn::Problem p = to_problem(*s);
  // A target the output no longer has the shape of (other tokens, widths or heads) goes: the
  // edited scenario is a new problem, and Train says it has no target.
  if (!check_target_shape(*s, p).empty()) s->target.clear();
  std::vector<QuizQuestion> kept;
  for (size_t i = 0; i < s->quiz.size(); ++i)
    if (check_quiz_question(*s, p, i).empty()) kept.push_back(s->quiz[i]);
  s->quiz = std::move(kept);
}

bool is_quiz_matrix(const std::string& name) {
  for (const char* m : {"scores", "scaled", "masked", "weights", "head_output", "output"})
    if (name == m) return true;
  return false;
}

const attn::Matrix& quiz_matrix(const QuizAnswer& a, const attn::HeadTrace& h, int item,
                                const attn::Batch& output) {
  if (a.argmax) return h.weights[item];
  const attn::Batch& m = a.matrix == "scores"        ? h.scores
                         : a.matrix == "scaled"      ? h.scaled
                         : a.matrix == "masked"      ? h.masked
                         : a.matrix == "head_output" ? h.output
                         : a.matrix == "output"      ? output
                                                     : h.weights;
  return m[&m == &output ? a.batch : item];
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
  s->W_q = w.W_q;
  s->W_k = w.W_k;
  s->W_v = w.W_v;
  s->W_o = w.W_o;
  s->W = w.W;
  s->w_v = w.w_v;
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
  const auto same_shape = [](const std::vector<std::vector<std::string>>& en,
                             const std::vector<std::vector<std::string>>& zh) {
    if (zh.empty()) return true;
    if (zh.size() != en.size()) return false;
    for (size_t b = 0; b < zh.size(); ++b)
      if (zh[b].size() != en[b].size()) return false;
    return true;
  };
  if (!same_shape(s.query_tokens, s.query_tokens_zh)) {
    e = "query_tokens: the Chinese tokens are not one per English token";
    return r;
  }
  const auto check_names = [&](const std::vector<std::vector<std::string>>& names,
                               const std::vector<std::vector<std::string>>& zh,
                               const std::string& field, int cols, const char* what) {
    if (names.empty()) return std::string();
    if (static_cast<int>(names[0].size()) != cols)
      return field + ": has " + str(static_cast<int64_t>(names[0].size())) + " names, expected " +
             str(cols) + " (one per column of " + what + ")";
    if (!same_shape(names, zh)) return field + ": the Chinese names are not one per English name";
    return std::string();
  };
  if (!s.feature_names.empty() && attn::batch_cols(s.queries) != attn::batch_cols(s.keys)) {
    e = "feature_names: queries and keys have different numbers of columns (" +
        str(attn::batch_cols(s.queries)) + " and " + str(attn::batch_cols(s.keys)) + ")";
    return r;
  }
  if (!s.value_names.empty() && s.self_attention) {
    e = "value_names: with x (self-attention) the values' columns are x's: name them in "
        "feature_names";
    return r;
  }
  if (!(e = check_names(s.feature_names, s.feature_names_zh, "feature_names",
                        attn::batch_cols(s.queries), "the queries and keys"))
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
  const int64_t cells = int64_t{B} * s.heads * n_q * n_k;
  if (cells > kMaxScoreCells) {
    e = "heads: batch " + str(B) + " × " + str(s.heads) + " heads × " + str(n_q) + " queries × " +
        str(n_k) + " keys is " + str(cells) + " score cells, more than the limit " +
        str(kMaxScoreCells);
    return r;
  }
  if (!(e = check_valid_lens(s)).empty()) return r;
  r.problem = to_problem(s);
  e = attn::validate(r.problem).error;
  if (r.ok()) e = check_quiz_shapes(s, r.problem);
  if (r.ok()) e = check_target_shape(s, r.problem);
  if (!r.ok()) r.problem = attn::Problem();
  return r;
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
  if (s.has_dropout) {
    p.dropout_p = s.dropout_p;
    p.dropout_seed = s.dropout_seed;
  }

  attn::Weights& w = p.weights;
  w.W_q = s.W_q;
  w.W_k = s.W_k;
  w.W_v = s.W_v;
  w.W_o = s.W_o;
  w.W = s.W;
  w.w_v = s.w_v;
  if (s.has_init) {
    const int D = s.init_d_model;
    const int d_q = attn::batch_cols(s.queries), d_k = attn::batch_cols(s.keys);
    const int d_v = attn::batch_cols(s.values);
    const uint64_t seed = s.init_seed;
    if (!w.W_q.size()) w.W_q = generated_matrix(d_q, D, seed, WeightStream::kWq);
    if (!w.W_k.size()) w.W_k = generated_matrix(d_k, D, seed, WeightStream::kWk);
    if (s.scoring == attn::Scoring::kAdditive) {
      if (!w.w_v.size()) w.w_v = generated_matrix(D, 1, seed, WeightStream::kwv).col(0);
    } else {
      if (!w.W_v.size()) w.W_v = generated_matrix(d_v, D, seed, WeightStream::kWv);
      if (!w.W_o.size()) w.W_o = generated_matrix(D, D, seed, WeightStream::kWo);
      if (s.scoring == attn::Scoring::kGeneral && !w.W.size() && s.heads > 0 && D % s.heads == 0)
        w.W = generated_matrix(D / s.heads, D / s.heads, seed, WeightStream::kW);
    }
  }
  return p;
}

}  // namespace scenario
