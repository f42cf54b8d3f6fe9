// Edits the playground makes to a scenario, each keeping it consistent.
#include "app/model/edits.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <type_traits>

#include "app/text/i18n.h"
#include "core/random.h"

namespace ui {

namespace {

constexpr uint64_t kFillSeed = 0x5eed;

float seeded_value(uint64_t seed, uint64_t index) {
  return std::round((2.0f * attn::uniform01(seed, index) - 1.0f) * 10.0f) / 10.0f;
}

// Resizes the rows of every batch item, filling new rows with seeded values.
void resize_rows(attn::Batch* x, int rows, uint64_t seed) {
  for (size_t b = 0; b < x->size(); ++b) {
    attn::Matrix& m = x->mut(b);
    const int old_rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    m.conservativeResize(rows, cols);
    for (int r = old_rows; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        m(r, c) = seeded_value(seed + b, static_cast<uint64_t>(r) * 1024 + c);
  }
}

void resize_cols(attn::Batch* x, int cols, uint64_t seed) {
  for (size_t b = 0; b < x->size(); ++b) {
    attn::Matrix& m = x->mut(b);
    const int rows = static_cast<int>(m.rows()), old_cols = static_cast<int>(m.cols());
    m.conservativeResize(rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = old_cols; c < cols; ++c)
        m(r, c) = seeded_value(seed + b, static_cast<uint64_t>(r) * 1024 + c);
  }
}

void resize_tokens_list(std::vector<std::vector<std::string>>* tokens, int n, const char* prefix) {
  for (auto& list : *tokens) {
    const int old = static_cast<int>(list.size());
    list.resize(n);
    for (int i = old; i < n; ++i) list[i] = prefix + std::to_string(i + 1);
  }
}

// Replaces explicit weights by seeded init weights of width `d_model`.
void use_init_weights(scenario::Scenario* s, int d_model) {
  if (!s->has_init) s->init_seed = 1;
  s->has_init = true;
  s->init_d_model = std::clamp(d_model, 1, scenario::kMaxCols);
  attn::for_each_weight(*s, [](const char*, auto& m) { m = std::decay_t<decltype(m)>(); });
}

bool has_explicit_weights(const scenario::Scenario& s) {
  bool any = false;
  attn::for_each_weight(s, [&any](const char*, const auto& m) { any = any || m.size(); });
  return any;
}

// The largest divisor of n that is at most h.
int divisor_at_most(int n, int h) {
  for (int d = std::min(n, h); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

}  // namespace

int d_model(const scenario::Scenario& s) {
  if (s.has_init) return s.init_d_model;
  if (s.W_q.size() && attn::scoring_info(s.scoring).projects) return static_cast<int>(s.W_q.cols());
  return attn::batch_cols(s.queries);
}

void resize_tokens(scenario::Scenario* s, int n_q, int n_k) {
  n_q = std::clamp(n_q, 1, scenario::kMaxRows);
  n_k = std::clamp(s->self_attention ? n_q : n_k, 1, scenario::kMaxRows);
  if (s->self_attention) {
    resize_rows(&s->queries, n_q, kFillSeed);
    s->keys = s->values = s->queries;
  } else {
    resize_rows(&s->queries, n_q, kFillSeed);
    resize_rows(&s->keys, n_k, kFillSeed + 100);
    resize_rows(&s->values, n_k, kFillSeed + 200);
  }
  resize_tokens_list(&s->query_tokens, n_q, s->self_attention ? "t" : "q");
  resize_tokens_list(&s->key_tokens, n_k, s->self_attention ? "t" : "k");
  resize_tokens_list(&s->query_tokens_zh, n_q, s->self_attention ? "t" : "q");
  resize_tokens_list(&s->key_tokens_zh, n_k, s->self_attention ? "t" : "k");
  for (auto& lens : s->valid_lens) {
    if (s->valid_lens_form == scenario::ValidLensForm::kPerQuery && !lens.empty())
      lens.resize(n_q, lens.back());
    for (int& len : lens) len = std::min(len, n_k);
  }
  s->masked_cells.erase(
      std::remove_if(s->masked_cells.begin(), s->masked_cells.end(),
                     [&](const std::array<int, 3>& c) { return c[1] >= n_q || c[2] >= n_k; }),
      s->masked_cells.end());
  scenario::fit_to_shapes(s);  // a question about row 4 goes with row 4
}

void resize_features(scenario::Scenario* s, int d) {
  d = std::clamp(d, 1, scenario::kMaxCols);
  const int model = d_model(*s);
  resize_cols(&s->queries, d, kFillSeed + 300);
  if (s->self_attention) {
    s->keys = s->values = s->queries;
  } else {
    resize_cols(&s->keys, d, kFillSeed + 400);
  }
  if (has_explicit_weights(*s) || s->has_init)
    use_init_weights(s, s->has_init || has_explicit_weights(*s) ? model : d);
  if (!s->has_init && s->heads > 1) s->heads = divisor_at_most(d, s->heads);
  scenario::fit_to_shapes(s);
}

void set_d_model(scenario::Scenario* s, int d) {
  use_init_weights(s, d);
  if (s->heads > 1) s->heads = divisor_at_most(s->init_d_model, s->heads);
  scenario::fit_to_shapes(s);
}

bool has_projections(const scenario::Scenario& s) {
  return s.has_init || s.W_q.size() || s.W_k.size() || s.W_v.size();
}

void set_projections(scenario::Scenario* s, bool on) {
  if (on) {
    set_d_model(s, std::max(2, attn::batch_cols(s->queries)));
  } else {
    s->has_init = false;
    s->W_q = s->W_k = s->W_v = s->W_o = attn::Matrix();
    set_scoring(s, s->scoring);
  }
}

void set_scoring(scenario::Scenario* s, attn::Scoring scoring) {
  const attn::Scoring before = s->scoring;
  s->scoring = scoring;
  if (before == attn::Scoring::kAdditive || scoring == attn::Scoring::kAdditive)
    s->w_v = attn::Vector();
  if (scoring != attn::Scoring::kGeneral) s->W = attn::Matrix();
  switch (scoring) {
    case attn::Scoring::kAdditive:
      s->heads = 1;
      if (!s->has_init) use_init_weights(s, std::max(4, attn::batch_cols(s->queries)));
      break;
    case attn::Scoring::kGeneral: {
      if (s->has_init) break;
      const attn::HeadShape hs = attn::head_shape(scenario::to_problem(*s));
      s->W = scenario::generated_matrix(std::max(hs.dq, 1), std::max(hs.dk, 1), 1,
                                        scenario::WeightStream::kW);
      break;
    }
    default:
      if (!s->has_init && attn::batch_cols(s->queries) != attn::batch_cols(s->keys))
        use_init_weights(s, std::max(attn::batch_cols(s->queries), attn::batch_cols(s->keys)));
      break;
  }
  scenario::fit_to_shapes(s);  // additive scoring has one head
}

attn::Status set_heads(scenario::Scenario* s, int heads) {
  scenario::Scenario trial = *s;
  trial.heads = heads;
  if (heads < 1) return attn::Status{"heads: must be at least 1"};
  if (trial.scoring == attn::Scoring::kGeneral && !trial.has_init) {
    const attn::HeadShape hs = attn::head_shape(scenario::to_problem(trial));
    if (hs.dq > 0 && hs.dk > 0)
      trial.W = scenario::generated_matrix(hs.dq, hs.dk, 1, scenario::WeightStream::kW);
  }
  scenario::fit_to_shapes(&trial);  // a question about head 2 goes with head 2
  const attn::Status status = scenario::validate(trial);
  if (status.ok()) *s = trial;
  return status;
}

void randomize(scenario::Scenario* s, uint64_t seed) {
  auto fill = [&](attn::Batch* x, uint64_t stream) {
    for (size_t b = 0; b < x->size(); ++b) {
      attn::Matrix& m = x->mut(b);
      for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
          m(r, c) = seeded_value(attn::splitmix64(seed + stream) + b,
                                 static_cast<uint64_t>(r) * 1024 + c);
    }
  };
  fill(&s->queries, 1);
  if (s->self_attention) {
    s->keys = s->values = s->queries;
  } else {
    fill(&s->keys, 2);
    fill(&s->values, 3);
  }
  if (s->has_init) s->init_seed = seed;
}

void shuffle_tokens(scenario::Scenario* s, uint64_t seed) {
  attn::Batch& rows = s->self_attention ? s->queries : s->keys;
  const int n = attn::batch_rows(rows);
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(attn::uniform01(seed, i) * (i + 1));
    std::swap(perm[i], perm[std::min(j, i)]);
  }
  auto permute = [&](attn::Batch* x) {
    for (size_t b = 0; b < x->size(); ++b) {
      attn::Matrix& m = x->mut(b);
      const attn::Matrix copy = m;
      for (int i = 0; i < n; ++i) m.row(i) = copy.row(perm[i]);
    }
  };
  auto permute_tokens = [&](std::vector<std::vector<std::string>>* t) {
    for (auto& list : *t) {
      const std::vector<std::string> copy = list;
      for (int i = 0; i < n && i < static_cast<int>(list.size()); ++i) list[i] = copy[perm[i]];
    }
  };
  if (s->self_attention) {
    permute(&s->queries);
    s->keys = s->values = s->queries;
    permute_tokens(&s->query_tokens);
    permute_tokens(&s->key_tokens);
    permute_tokens(&s->query_tokens_zh);
    permute_tokens(&s->key_tokens_zh);
  } else {
    permute(&s->keys);
    permute(&s->values);
    permute_tokens(&s->key_tokens);
    permute_tokens(&s->key_tokens_zh);
  }
}

void toggle_masked_cell(scenario::Scenario* s, int b, int i, int j) {
  const std::array<int, 3> cell{b, i, j};
  auto it = std::find(s->masked_cells.begin(), s->masked_cells.end(), cell);
  if (it != s->masked_cells.end()) {
    s->masked_cells.erase(it);
  } else if (static_cast<int>(s->masked_cells.size()) < scenario::kMaxMaskedCells) {
    s->masked_cells.push_back(cell);
  }
}

void set_valid_len(scenario::Scenario* s, int b, int len) {
  const int B = s->batch(), n_k = s->n_keys();
  if (len < 0) {
    s->valid_lens_form = scenario::ValidLensForm::kNone;
    s->valid_lens.clear();
    return;
  }
  len = std::min(len, n_k);
  switch (s->valid_lens_form) {
    case scenario::ValidLensForm::kNone:
      s->valid_lens.assign(B, std::vector<int>{n_k});
      s->valid_lens_form = scenario::ValidLensForm::kPerSequence;
      break;
    case scenario::ValidLensForm::kAll: {
      const std::vector<int> all = s->valid_lens[0];  // a copy: assign() frees the old storage
      s->valid_lens.assign(B, all);
      s->valid_lens_form = scenario::ValidLensForm::kPerSequence;
      break;
    }
    default:
      break;
  }
  if (b >= 0 && b < static_cast<int>(s->valid_lens.size()))
    for (int& v : s->valid_lens[b]) v = len;
}

void set_valid_lens_per_query(scenario::Scenario* s, bool per_query) {
  const int B = s->batch(), n_q = s->n_queries(), n_k = s->n_keys();
  const bool now = s->valid_lens_form == scenario::ValidLensForm::kPerQuery;
  if (per_query == now) return;
  std::vector<int> item_len(B, n_k);  // each item's one length, or its queries' longest
  for (int b = 0; b < B; ++b) {
    if (s->valid_lens.empty()) break;
    const std::vector<int>& row =
        s->valid_lens[s->valid_lens_form == scenario::ValidLensForm::kAll ? 0 : b];
    if (!row.empty()) item_len[b] = *std::max_element(row.begin(), row.end());
  }
  s->valid_lens.clear();
  for (int b = 0; b < B; ++b)
    s->valid_lens.push_back(std::vector<int>(per_query ? n_q : 1, std::min(item_len[b], n_k)));
  s->valid_lens_form =
      per_query ? scenario::ValidLensForm::kPerQuery : scenario::ValidLensForm::kPerSequence;
}

void set_query_valid_len(scenario::Scenario* s, int b, int i, int len) {
  set_valid_lens_per_query(s, true);
  if (b < 0 || b >= static_cast<int>(s->valid_lens.size())) return;
  std::vector<int>& row = s->valid_lens[b];
  if (i < 0 || i >= static_cast<int>(row.size())) return;
  row[i] = std::clamp(len, 0, s->n_keys());
}

void set_input(scenario::Scenario* s, char which, int b, int i, int j, float v) {
  if (s->self_attention || which == 'x') {
    s->queries.mut(b)(i, j) = v;
    s->keys = s->values = s->queries;
    return;
  }
  attn::Batch& x = which == 'q' ? s->queries : which == 'k' ? s->keys : s->values;
  x.mut(b)(i, j) = v;
}

// The tokens in the UI's language: the Chinese ones when it is Chinese and the lesson has them.
static const std::vector<std::vector<std::string>>& shown_tokens(
    const std::vector<std::vector<std::string>>& en,
    const std::vector<std::vector<std::string>>& zh) {
  return language() == Lang::kZh && !zh.empty() ? zh : en;
}

std::vector<std::string> query_labels(const scenario::Scenario& s, int b) {
  const auto& tokens = shown_tokens(s.query_tokens, s.query_tokens_zh);
  if (!tokens.empty()) return tokens[std::min<size_t>(b, tokens.size() - 1)];
  std::vector<std::string> out;
  for (int i = 0; i < s.n_queries(); ++i)
    out.push_back((s.self_attention ? "t" : "q") + std::to_string(i + 1));
  return out;
}

std::vector<std::string> key_labels(const scenario::Scenario& s, int b) {
  const auto& tokens = shown_tokens(s.key_tokens, s.key_tokens_zh);
  if (!tokens.empty()) return tokens[std::min<size_t>(b, tokens.size() - 1)];
  if (s.self_attention) return query_labels(s, b);
  std::vector<std::string> out;
  if (!s.image.empty() && s.n_keys() == s.image.patches()) {  // a picture's patches: "r2c5"
    for (int j = 0; j < s.n_keys(); ++j) out.push_back(scenario::patch_name(s.image, j));
    return out;
  }
  for (int j = 0; j < s.n_keys(); ++j) out.push_back("k" + std::to_string(j + 1));
  return out;
}

std::optional<float> typed_number(std::string_view text) {
  std::string t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "\xe2\x88\x92") == 0) {  // − (U+2212), as the UI prints minus
      t += '-';
      i += 2;
    } else {
      t += text[i] == ',' ? '.' : text[i];
    }
  }
  const size_t first = t.find_first_not_of(" \t"), last = t.find_last_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  t = t.substr(first, last - first + 1);
  // [+-] digits [. digits] | [+-] . digits, then [eE] [+-] digits: nothing else.
  size_t i = 0, digits = 0;
  const auto isdigit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  while (isdigit(i)) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (isdigit(i)) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!isdigit(i)) return std::nullopt;
    while (isdigit(i)) ++i;
  }
  if (i != t.size()) return std::nullopt;
  const float v = std::strtof(t.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace ui
