// A scenario as the core's problem: seeded weights (generated_matrix, "init"), a token model's
// inputs from its embedding, to_problem and to_stack, and trained weights set back into the
// scenario (set_weights).
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/random.h"
#include "scenario/scenario.h"

namespace scenario {

namespace {

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

}  // namespace

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
