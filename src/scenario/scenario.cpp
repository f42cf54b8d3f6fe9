// Scenario semantics: validation beyond the JSON shape (resolve, validate: tokens, names,
// masks, the quiz and the target against the inputs' shapes), the fitting of names, target and
// quiz to edited shapes, and the quiz's answers read from a trace. The numbers' bounds are
// scenario_magnitudes.cpp's, the seeded weights and the core Problem scenario_problem.cpp's.
#include "scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario_internal.h"

namespace scenario {

using scenario_internal::layer_name;
using scenario_internal::str;

namespace {

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

}  // namespace

std::vector<std::string> fit_to_shapes(Scenario* s) {
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
  std::vector<std::string> why(s->quiz.size());
  if (s->quiz.empty() && s->target.empty() && s->output_names.empty()) return why;
  const attn::Problem p = to_problem(*s);
  if (!check_output_names(*s, p).empty()) {
    s->output_names.clear();
    s->output_names_zh.clear();
  }
  // A target the output no longer has the shape of (other tokens, widths or heads) goes: the
  // edited scenario is a new problem, and Train says it has no target.
  if (!check_target_shape(*s, p).empty()) s->target.clear();
  std::vector<QuizQuestion> kept;
  for (size_t i = 0; i < s->quiz.size(); ++i) {
    why[i] = check_quiz_question(*s, p, i);
    if (why[i].empty()) kept.push_back(s->quiz[i]);
  }
  s->quiz = std::move(kept);
  return why;
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

attn::Status validate(const Scenario& s) {
  return attn::Status{resolve(s).error};
}

}  // namespace scenario
