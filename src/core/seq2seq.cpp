// Bahdanau attention in a GRU encoder–decoder (core/seq2seq.h): forward, backward through time,
// greedy decoding, Adam and the toy translation task.
//
// [SECTION] Parameters
// [SECTION] GRU step and its backward
// [SECTION] Forward (encoder, decoder step)
// [SECTION] Backward
// [SECTION] Greedy decoding
// [SECTION] Adam
// [SECTION] Toy task
#include "core/seq2seq.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "core/random.h"

namespace attn {
namespace seq2seq {

namespace {

using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

float sigmoid(float a) {
  return 1.0f / (1.0f + std::exp(-a));
}

// A matrix of the given shape filled with 0.
Matrix zeros(Eigen::Index rows, Eigen::Index cols) {
  return Matrix::Zero(rows, cols);
}

}  // namespace

// [SECTION] Parameters

Params zeros_like(const Params& p) {
  Params z = p;
  for_each_param(z, [](const char*, Matrix& m) { m.setZero(); });
  return z;
}

namespace {

Gru gru_shaped(int d_in, int d_h) {
  Gru g;
  g.W_xz = g.W_xr = g.W_xh = zeros(d_in, d_h);
  g.W_hz = g.W_hr = g.W_hh = zeros(d_h, d_h);
  g.b_z = g.b_r = g.b_h = zeros(1, d_h);
  return g;
}

// The stream of matrix k of for_each_param: apart from every other matrix's, and from the
// other users of uniform01 (a constant of its own xored in).
constexpr uint64_t kInitStream = 0x5E0256E0ull << 20;

}  // namespace

Params init_params(const Sizes& s, uint64_t seed) {
  Params p;
  p.sizes = s;
  p.embed_src = zeros(s.src_vocab, s.embed);
  p.embed_tgt = zeros(s.tgt_vocab, s.embed);
  p.encoder = gru_shaped(s.embed, s.hidden);
  p.decoder = gru_shaped(s.embed + s.hidden, s.hidden);
  p.W_q = zeros(s.hidden, s.attention);
  p.W_k = zeros(s.hidden, s.attention);
  p.w_v = zeros(s.attention, 1);
  p.W_out = zeros(2 * s.hidden, s.tgt_vocab);
  p.b_out = zeros(1, s.tgt_vocab);
  uint64_t k = 0;
  for_each_param(p, [&](const char* name, Matrix& m) {
    const uint64_t stream = splitmix64(seed ^ (kInitStream + k++));
    const char* dot = std::strrchr(name, '.');
    const char* base = dot ? dot + 1 : name;
    if (std::strncmp(base, "b_", 2) == 0) return;  // a bias: stays 0
    const bool embedding = std::strncmp(name, "embed", 5) == 0;
    const double a = embedding ? 1.0 : std::sqrt(6.0 / static_cast<double>(m.rows() + m.cols()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) {
        const double u = uniform01(stream, static_cast<uint64_t>(i * m.cols() + j));
        m(i, j) = static_cast<float>(a * (2.0 * u - 1.0));
      }
  });
  return p;
}

// [SECTION] GRU step and its backward

namespace {

// Row t of the gates' matrices (z, r, candidate, h_{t−1}·W_hh): what the backward needs.
struct GruRows {
  Matrix* z;
  Matrix* r;
  Matrix* cand;
  Matrix* hw;
};

// h = GRU(x, h_prev), the gates written to row t of g's matrices; h to *out.
template <class X, class H, class Out>
void gru_step(const Gru& w, const X& x, const H& h_prev, const GruRows& g, Eigen::Index t,
              Out&& out) {
  auto z = g.z->row(t);
  auto r = g.r->row(t);
  auto c = g.cand->row(t);
  auto hw = g.hw->row(t);
  z.noalias() = x * w.W_xz;
  z.noalias() += h_prev * w.W_hz;
  z += w.b_z;
  r.noalias() = x * w.W_xr;
  r.noalias() += h_prev * w.W_hr;
  r += w.b_r;
  hw.noalias() = h_prev * w.W_hh;
  c.noalias() = x * w.W_xh;
  c += w.b_h;
  for (Eigen::Index j = 0; j < z.cols(); ++j) {
    z(j) = sigmoid(z(j));
    r(j) = sigmoid(r(j));
    c(j) = std::tanh(c(j) + r(j) * hw(j));
    out(j) = z(j) * h_prev(j) + (1.0f - z(j)) * c(j);
  }
}

// Rows (1 × d_h) the backward reuses from step to step: ∂L/∂(the gates' pre-activations) and
// ∂L/∂(h_{t−1}·W_hh).
struct GruScratch {
  RowVector da_z, da_r, da_c, du;
};

// Row t of the gates, read back.
struct GruGates {
  const Matrix* z;
  const Matrix* r;
  const Matrix* cand;
  const Matrix* hw;
};

// Given dh = ∂L/∂h_t: adds to the GRU's gradients *dw, writes ∂L/∂x to *dx and ∂L/∂h_{t−1} to
// *dh_prev.
template <class X, class H, class DH>
void gru_step_backward(const Gru& w, const X& x, const H& h_prev, const DH& dh, const GruGates& g,
                       Eigen::Index t, Gru* dw, RowVector* dx, RowVector* dh_prev, GruScratch* s) {
  const auto z = g.z->row(t);
  const auto r = g.r->row(t);
  const auto c = g.cand->row(t);
  const auto hw = g.hw->row(t);
  const Eigen::Index d = z.cols();
  s->da_z.resize(d), s->da_r.resize(d), s->da_c.resize(d), s->du.resize(d);
  dh_prev->resize(d);
  for (Eigen::Index j = 0; j < d; ++j) {
    const float dz = dh(j) * (h_prev(j) - c(j));
    const float dc = dh(j) * (1.0f - z(j));
    const float da_c = dc * (1.0f - c(j) * c(j));
    const float dr = da_c * hw(j);
    s->da_c(j) = da_c;
    s->du(j) = da_c * r(j);
    s->da_z(j) = dz * z(j) * (1.0f - z(j));
    s->da_r(j) = dr * r(j) * (1.0f - r(j));
    (*dh_prev)(j) = dh(j) * z(j);
  }
  dw->W_xz.noalias() += x.transpose() * s->da_z;
  dw->W_xr.noalias() += x.transpose() * s->da_r;
  dw->W_xh.noalias() += x.transpose() * s->da_c;
  dw->W_hz.noalias() += h_prev.transpose() * s->da_z;
  dw->W_hr.noalias() += h_prev.transpose() * s->da_r;
  dw->W_hh.noalias() += h_prev.transpose() * s->du;
  dw->b_z += s->da_z;
  dw->b_r += s->da_r;
  dw->b_h += s->da_c;
  dh_prev->noalias() += s->da_z * w.W_hz.transpose();
  dh_prev->noalias() += s->da_r * w.W_hr.transpose();
  dh_prev->noalias() += s->du * w.W_hh.transpose();
  dx->noalias() = s->da_z * w.W_xz.transpose();
  dx->noalias() += s->da_r * w.W_xr.transpose();
  dx->noalias() += s->da_c * w.W_xh.transpose();
}

}  // namespace

// [SECTION] Forward (encoder, decoder step)

namespace {

void encode(const Params& p, const std::vector<int>& src, Forward* f) {
  const int n = static_cast<int>(src.size()), h = p.sizes.hidden;
  f->enc_states = zeros(n, h);
  f->enc_z = f->enc_r = f->enc_cand = f->enc_hw = zeros(n, h);
  const GruRows g{&f->enc_z, &f->enc_r, &f->enc_cand, &f->enc_hw};
  const RowVector h0 = RowVector::Zero(h);
  for (int t = 0; t < n; ++t) {
    assert(src[t] >= 0 && src[t] < p.sizes.src_vocab);
    const auto x = p.embed_src.row(src[t]);
    if (t == 0)
      gru_step(p.encoder, x, h0, g, t, f->enc_states.row(t));
    else
      gru_step(p.encoder, x, f->enc_states.row(t - 1), g, t, f->enc_states.row(t));
  }
  f->keys.noalias() = f->enc_states * p.W_k;
}

// The decoder's buffers for m steps over n source positions.
void shape_decoder(const Params& p, int m, int n, Forward* f) {
  const int h = p.sizes.hidden, a = p.sizes.attention, V = p.sizes.tgt_vocab;
  f->queries = f->contexts = f->dec_states = zeros(m, h);
  f->dec_z = f->dec_r = f->dec_cand = f->dec_hw = zeros(m, h);
  f->query_proj = zeros(m, a);
  f->features = zeros(static_cast<Eigen::Index>(m) * n, a);
  f->scores = f->weights = zeros(m, n);
  f->dec_inputs = zeros(m, p.sizes.embed + h);
  f->logits = f->probs = zeros(m, V);
}

// Decoder step t (row t): query s_{t−1} (queries.row(t), already written), input token y.
void decoder_step(const Params& p, int t, int y, Forward* f) {
  const Eigen::Index n = f->enc_states.rows(), a = p.sizes.attention, e = p.sizes.embed;
  const Eigen::Index h = p.sizes.hidden;
  assert(y >= 0 && y < p.sizes.tgt_vocab);
  const auto q = f->queries.row(t);
  auto qp = f->query_proj.row(t);
  qp.noalias() = q * p.W_q;
  auto e_t = f->scores.row(t);
  float mx = -INFINITY;
  for (Eigen::Index i = 0; i < n; ++i) {
    auto feat = f->features.row(t * n + i);
    const auto k = f->keys.row(i);
    float score = 0.0f;
    for (Eigen::Index u = 0; u < a; ++u) {
      feat(u) = std::tanh(qp(u) + k(u));
      score += feat(u) * p.w_v(u, 0);
    }
    e_t(i) = score;
    mx = std::max(mx, score);
  }
  auto alpha = f->weights.row(t);
  float sum = 0.0f;
  for (Eigen::Index i = 0; i < n; ++i) sum += alpha(i) = std::exp(e_t(i) - mx);
  alpha /= sum;
  auto c = f->contexts.row(t);
  c.noalias() = alpha * f->enc_states;
  auto in = f->dec_inputs.row(t);
  in.head(e) = p.embed_tgt.row(y);
  in.tail(h) = c;
  const GruRows g{&f->dec_z, &f->dec_r, &f->dec_cand, &f->dec_hw};
  gru_step(p.decoder, in, q, g, t, f->dec_states.row(t));
  auto o = f->logits.row(t);
  o.noalias() = f->dec_states.row(t) * p.W_out.topRows(h);
  o.noalias() += c * p.W_out.bottomRows(h);
  o += p.b_out;
  const float omax = o.maxCoeff();
  auto pr = f->probs.row(t);
  double z = 0.0;
  for (Eigen::Index v = 0; v < o.cols(); ++v) z += std::exp(static_cast<double>(o(v) - omax));
  for (Eigen::Index v = 0; v < o.cols(); ++v)
    pr(v) = static_cast<float>(std::exp(static_cast<double>(o(v) - omax)) / z);
}

// −log softmax(o)[y], in double.
double cross_entropy(const Matrix& logits, int t, int y) {
  const auto o = logits.row(t);
  const double omax = o.maxCoeff();
  double z = 0.0;
  for (Eigen::Index v = 0; v < o.cols(); ++v) z += std::exp(o(v) - omax);
  return std::log(z) + omax - o(y);
}

}  // namespace

Forward forward(const Params& p, const std::vector<int>& src, const std::vector<int>& tgt) {
  assert(!src.empty() && !tgt.empty());
  Forward f;
  encode(p, src, &f);
  const int m = static_cast<int>(tgt.size()), n = static_cast<int>(src.size());
  shape_decoder(p, m, n, &f);
  double loss = 0.0;
  for (int t = 0; t < m; ++t) {
    f.queries.row(t) = t == 0 ? f.enc_states.row(n - 1) : f.dec_states.row(t - 1);
    decoder_step(p, t, t == 0 ? kBos : tgt[t - 1], &f);
    loss += cross_entropy(f.logits, t, tgt[t]);
  }
  f.loss = loss / m;
  return f;
}

// [SECTION] Backward

void accumulate_gradients(const Params& p, const Forward& f, const std::vector<int>& src,
                          const std::vector<int>& tgt, float scale, Params* g) {
  const Eigen::Index n = static_cast<Eigen::Index>(src.size());
  const Eigen::Index m = static_cast<Eigen::Index>(tgt.size());
  const Eigen::Index h = p.sizes.hidden, a = p.sizes.attention, e = p.sizes.embed;
  const float inv_m = scale / static_cast<float>(m);
  Matrix dH = zeros(n, h);  // ∂L/∂h_i from attention (values and keys) and s_0
  Matrix dK = zeros(n, a);  // ∂L/∂(h_i·W_k)
  RowVector ds = RowVector::Zero(h), ds_prev(h), dc(h), dx(e + h), dlogit(p.sizes.tgt_vocab);
  RowVector dalpha(n), dpre(a), dq(a);
  GruScratch scratch;
  const GruGates dec{&f.dec_z, &f.dec_r, &f.dec_cand, &f.dec_hw};
  for (Eigen::Index t = m - 1; t >= 0; --t) {
    // logits o_t = [s_t, c_t]·W_out + b_out; ∂L/∂o_t = (p_t − onehot(y_t)) / m
    dlogit = f.probs.row(t) * inv_m;
    dlogit(tgt[t]) -= inv_m;
    const auto s_t = f.dec_states.row(t);
    const auto c_t = f.contexts.row(t);
    g->W_out.topRows(h).noalias() += s_t.transpose() * dlogit;
    g->W_out.bottomRows(h).noalias() += c_t.transpose() * dlogit;
    g->b_out += dlogit;
    ds.noalias() += dlogit * p.W_out.topRows(h).transpose();  // ds held ∂L/∂s_t from step t+1
    dc.noalias() = dlogit * p.W_out.bottomRows(h).transpose();
    // s_t = GRU([embed_tgt[y_{t−1}], c_t], s_{t−1})
    const auto q = f.queries.row(t);
    gru_step_backward(p.decoder, f.dec_inputs.row(t), q, ds, dec, t, &g->decoder, &dx, &ds_prev,
                      &scratch);
    g->embed_tgt.row(t == 0 ? kBos : tgt[t - 1]) += dx.head(e);
    dc += dx.tail(h);
    // c_t = Σ α_i h_i; α = softmax(e); e_i = tanh(q·W_q + h_i·W_k)·w_v
    const auto alpha = f.weights.row(t);
    dalpha.noalias() = dc * f.enc_states.transpose();
    dH.noalias() += alpha.transpose() * dc;
    const float dot = alpha.dot(dalpha);
    dq.setZero();
    for (Eigen::Index i = 0; i < n; ++i) {
      const float de = alpha(i) * (dalpha(i) - dot);
      const auto feat = f.features.row(t * n + i);
      for (Eigen::Index u = 0; u < a; ++u) {
        g->w_v(u, 0) += de * feat(u);
        dpre(u) = de * p.w_v(u, 0) * (1.0f - feat(u) * feat(u));
      }
      dq += dpre;
      dK.row(i) += dpre;
    }
    g->W_q.noalias() += q.transpose() * dq;
    ds_prev.noalias() += dq * p.W_q.transpose();
    ds = ds_prev;  // ∂L/∂s_{t−1}: through the GRU and through the query
  }
  dH.row(n - 1) += ds;  // s_0 = h_n
  g->W_k.noalias() += f.enc_states.transpose() * dK;
  dH.noalias() += dK * p.W_k.transpose();
  // Encoder, through time: dh carries ∂L/∂h_t from step t+1.
  const GruGates enc{&f.enc_z, &f.enc_r, &f.enc_cand, &f.enc_hw};
  RowVector dh = RowVector::Zero(h), dxe(e);
  const RowVector h0 = RowVector::Zero(h);
  for (Eigen::Index t = n - 1; t >= 0; --t) {
    dh += dH.row(t);
    const auto x = p.embed_src.row(src[t]);
    if (t == 0)
      gru_step_backward(p.encoder, x, h0, dh, enc, t, &g->encoder, &dxe, &ds_prev, &scratch);
    else
      gru_step_backward(p.encoder, x, f.enc_states.row(t - 1), dh, enc, t, &g->encoder, &dxe,
                        &ds_prev, &scratch);
    g->embed_src.row(src[t]) += dxe;
    dh = ds_prev;
  }
}

Params backward(const Params& p, const Forward& fwd, const std::vector<int>& src,
                const std::vector<int>& tgt) {
  Params g = zeros_like(p);
  accumulate_gradients(p, fwd, src, tgt, 1.0f, &g);
  return g;
}

// [SECTION] Greedy decoding

Decoded greedy_decode(const Params& p, const std::vector<int>& src, int max_len) {
  assert(!src.empty() && max_len >= 1);
  Forward f;
  encode(p, src, &f);
  const int n = static_cast<int>(src.size());
  shape_decoder(p, max_len, n, &f);
  Decoded d;
  int y = kBos, t = 0;
  while (t < max_len) {
    f.queries.row(t) = t == 0 ? f.enc_states.row(n - 1) : f.dec_states.row(t - 1);
    decoder_step(p, t, y, &f);
    Eigen::Index best = 0;
    f.probs.row(t).maxCoeff(&best);  // the first of equal maxima
    y = static_cast<int>(best);
    d.tokens.push_back(y);
    ++t;
    if (y == kEos) break;
  }
  d.alignment = f.weights.topRows(t);
  d.probs = f.probs.topRows(t);
  return d;
}

// [SECTION] Adam

double train_step(Params* p, Adam* opt, const std::vector<Pair>& batch) {
  assert(!batch.empty());
  if (opt->steps == 0) opt->m = opt->v = zeros_like(*p);
  Params g = zeros_like(*p);
  const float scale = 1.0f / static_cast<float>(batch.size());
  double loss = 0.0;
  for (const Pair& pair : batch) {
    const Forward f = forward(*p, pair.src, pair.tgt);
    loss += f.loss;
    accumulate_gradients(*p, f, pair.src, pair.tgt, scale, &g);
  }
  double norm2 = 0.0;
  for_each_param(g, [&](const char*, Matrix& m) { norm2 += m.cast<double>().squaredNorm(); });
  const double norm = std::sqrt(norm2);
  const float shrink =
      opt->clip > 0.0f && norm > opt->clip ? static_cast<float>(opt->clip / norm) : 1.0f;
  opt->steps += 1;
  opt->beta1_power *= opt->beta1;
  opt->beta2_power *= opt->beta2;
  const double bc1 = 1.0 - opt->beta1_power, bc2 = 1.0 - opt->beta2_power;
  const float step = static_cast<float>(opt->lr / bc1);
  const float root_bc2 = static_cast<float>(std::sqrt(bc2));
  // The four lists in the same order: weight, gradient, first and second moment.
  std::vector<Matrix*> w, gr, m1, m2;
  for_each_param(*p, [&](const char*, Matrix& x) { w.push_back(&x); });
  for_each_param(g, [&](const char*, Matrix& x) { gr.push_back(&x); });
  for_each_param(opt->m, [&](const char*, Matrix& x) { m1.push_back(&x); });
  for_each_param(opt->v, [&](const char*, Matrix& x) { m2.push_back(&x); });
  for (size_t k = 0; k < w.size(); ++k) {
    float* wk = w[k]->data();
    const float* gk = gr[k]->data();
    float* mk = m1[k]->data();
    float* vk = m2[k]->data();
    for (Eigen::Index i = 0; i < w[k]->size(); ++i) {
      const float gi = gk[i] * shrink;
      mk[i] = opt->beta1 * mk[i] + (1.0f - opt->beta1) * gi;
      vk[i] = opt->beta2 * vk[i] + (1.0f - opt->beta2) * gi * gi;
      wk[i] -= step * mk[i] / (std::sqrt(vk[i]) / root_bc2 + opt->eps);
    }
  }
  return loss / static_cast<double>(batch.size());
}

// [SECTION] Toy task

namespace {

// Source ids: 2..4 adjectives, 5..7 nouns, 8..9 verbs; target id = source id (word for word).
constexpr int kFirstAdjective = 2, kFirstNoun = 5, kFirstVerb = 8;
const char* const kSourceWords[10] = {"<bos>", "<eos>", "big",  "small", "red",
                                      "cat",   "dog",   "bird", "runs",  "sleeps"};
const char* const kTargetWords[10] = {"<bos>", "<eos>", "grona", "lilu",  "roza",
                                      "miza",  "hunto", "piko",  "kuras", "dormas"};

}  // namespace

const char* const* toy_source_words() {
  return kSourceWords;
}
const char* const* toy_target_words() {
  return kTargetWords;
}

Pair ToyPairs::next() {
  auto pick = [this](int k) {  // uniform in [0, k)
    return std::min(k - 1, static_cast<int>(uniform01(seed_, draw_++) * static_cast<float>(k)));
  };
  Pair pair;
  const int clauses = 1 + pick(2);
  for (int c = 0; c < clauses; ++c) {
    const bool adjective = pick(2) == 1;
    const int adj = kFirstAdjective + pick(3), noun = kFirstNoun + pick(3);
    const int verb = kFirstVerb + pick(2);
    const int at = static_cast<int>(pair.src.size());
    if (adjective) {
      pair.src.insert(pair.src.end(), {adj, noun, verb});
      pair.tgt.insert(pair.tgt.end(), {noun, adj, verb});
      pair.aligned.insert(pair.aligned.end(), {at + 1, at, at + 2});
    } else {
      pair.src.insert(pair.src.end(), {noun, verb});
      pair.tgt.insert(pair.tgt.end(), {noun, verb});
      pair.aligned.insert(pair.aligned.end(), {at, at + 1});
    }
  }
  pair.tgt.push_back(kEos);
  pair.aligned.push_back(-1);
  return pair;
}

std::vector<Pair> toy_translation(uint64_t seed, int count) {
  std::vector<Pair> pairs;
  pairs.reserve(static_cast<size_t>(std::max(count, 0)));
  ToyPairs stream(seed);
  for (int s = 0; s < count; ++s) pairs.push_back(stream.next());
  return pairs;
}

bool toy_held_out(const std::vector<int>& src) {
  uint64_t h = 0;
  for (int id : src) h = splitmix64(h * 16 + static_cast<uint64_t>(id));
  return h % 5 == 0;
}

ToyTrainer::ToyTrainer(Params start, uint64_t seed, int batch)
    : params(std::move(start)), pairs_(seed * 1000), batch_(batch) {
  assert(batch >= 1);
}

double ToyTrainer::step() {
  std::vector<Pair> minibatch;
  minibatch.reserve(static_cast<size_t>(batch_));
  while (static_cast<int>(minibatch.size()) < batch_) {
    Pair p = pairs_.next();  // four in five are not held out: this ends
    if (!toy_held_out(p.src)) minibatch.push_back(std::move(p));
  }
  return train_step(&params, &adam, minibatch);
}

Params train_toy(uint64_t seed, int steps, int batch, double* last_loss) {
  assert(steps >= 0 && batch >= 1);
  ToyTrainer trainer(init_params(Sizes{}, seed), seed, batch);
  double loss = 0.0;
  for (int step = 0; step < steps; ++step) loss = trainer.step();
  if (last_loss) *last_loss = loss;
  return std::move(trainer.params);
}

}  // namespace seq2seq
}  // namespace attn
