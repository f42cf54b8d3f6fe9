// Bahdanau attention in a GRU encoder–decoder (d2l 10.4): forward, backward through time, greedy
// decoding, Adam, and a toy translation task whose alignment is not the diagonal.
//
// [SECTION] Tokens        kBos, kEos
// [SECTION] Parameters    Sizes, Gru, Params, for_each_param, init_params
// [SECTION] Forward       Forward, forward
// [SECTION] Backward      backward, accumulate_gradients
// [SECTION] Decoding      Decoded, greedy_decode
// [SECTION] Training      Adam, train_step
// [SECTION] Toy task      Pair, toy_translation, toy_source_words, toy_target_words,
//                         ToyPairs, toy_held_out, ToyTrainer, train_toy
//
// Vectors are rows and weights multiply on the right (x·W), as everywhere in the core. One
// sentence pair at a time: source x_1..x_n, target y_1..y_m (y_m = kEos), no padding (the
// source's valid length is all n).
//
// Encoder, a GRU over the source embeddings e_t = embed_src[x_t], h_0 = 0:
//   z_t = σ(e_t·W_xz + h_{t−1}·W_hz + b_z)                       update gate
//   r_t = σ(e_t·W_xr + h_{t−1}·W_hr + b_r)                       reset gate
//   h̃_t = tanh(e_t·W_xh + r_t ⊙ (h_{t−1}·W_hh) + b_h)            candidate
//   h_t = z_t ⊙ h_{t−1} + (1 − z_t) ⊙ h̃_t
// (The reset gate multiplies h·W_hh, as PyTorch's nn.GRU does — the GRU d2l 10.4 trains — with
// its hidden-side bias b_hn = 0; d2l 10.2's from-scratch GRU applies it before: (r ⊙ h)·W_hh.)
//
// Decoder, step t = 1..m, s_0 = h_n, y_0 = kBos (teacher forcing: y_{t−1} is the given target):
//   query      q_t = s_{t−1}                                       (1 × hidden)
//   scores     e_{t,i} = tanh(q_t·W_q + h_i·W_k) · w_v             additive, i = 1..n
//   weights    α_t = softmax_i(e_t)                                a row of the alignment (m × n)
//   context    c_t = Σ_i α_{t,i} h_i
//   GRU input  [embed_tgt[y_{t−1}], c_t] → s_t                     the same GRU equations
//   logits     o_t = [s_t, c_t]·W_out + b_out
//   loss       L = (1/m) Σ_t −log softmax(o_t)[y_t]
// Greedy decoding feeds back the argmax of o_t instead of y_t, until kEos or max_len.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace attn {
namespace seq2seq {

// [SECTION] Tokens — both vocabularies reserve 0 and 1; words start at 2.
constexpr int kBos = 0;  // the decoder's first input (target vocabulary)
constexpr int kEos = 1;  // ends every target sentence

// [SECTION] Parameters

struct Sizes {
  int src_vocab = 10, tgt_vocab = 10;  // including kBos and kEos
  int embed = 8;                       // both embeddings
  int hidden = 16;                     // encoder and decoder states
  int attention = 16;                  // additive scoring's hidden size (columns of W_q, W_k)
};

// One GRU's weights (equations above): input size d_in, state size d_h.
struct Gru {
  Matrix W_xz, W_xr, W_xh;  // d_in × d_h
  Matrix W_hz, W_hr, W_hh;  // d_h × d_h
  Matrix b_z, b_r, b_h;     // 1 × d_h
};

struct Params {
  Sizes sizes;
  Matrix embed_src;  // src_vocab × embed
  Matrix embed_tgt;  // tgt_vocab × embed
  Gru encoder;       // d_in = embed
  Gru decoder;       // d_in = embed + hidden: [embed_tgt[y], c]
  Matrix W_q, W_k;   // hidden × attention
  Matrix w_v;        // attention × 1
  Matrix W_out;      // 2·hidden × tgt_vocab: rows 0..hidden−1 read s_t, the rest c_t
  Matrix b_out;      // 1 × tgt_vocab
};

// Every weight matrix once, with its name ("embed_src", "encoder.W_xz", ..., "b_out"), in a
// fixed order: the one list init, Adam, the gradient checks and any export walk.
template <class P, class F>
void for_each_param(P& p, F f) {
  f("embed_src", p.embed_src);
  f("embed_tgt", p.embed_tgt);
  auto gru = [&f](const char* const names[9], auto& g) {
    f(names[0], g.W_xz), f(names[1], g.W_xr), f(names[2], g.W_xh);
    f(names[3], g.W_hz), f(names[4], g.W_hr), f(names[5], g.W_hh);
    f(names[6], g.b_z), f(names[7], g.b_r), f(names[8], g.b_h);
  };
  static const char* const kEncoder[9] = {"encoder.W_xz", "encoder.W_xr", "encoder.W_xh",
                                          "encoder.W_hz", "encoder.W_hr", "encoder.W_hh",
                                          "encoder.b_z",  "encoder.b_r",  "encoder.b_h"};
  static const char* const kDecoder[9] = {"decoder.W_xz", "decoder.W_xr", "decoder.W_xh",
                                          "decoder.W_hz", "decoder.W_hr", "decoder.W_hh",
                                          "decoder.b_z",  "decoder.b_r",  "decoder.b_h"};
  gru(kEncoder, p.encoder);
  gru(kDecoder, p.decoder);
  f("W_q", p.W_q);
  f("W_k", p.W_k);
  f("w_v", p.w_v);
  f("W_out", p.W_out);
  f("b_out", p.b_out);
}

// Every matrix of its shape, filled with 0: the shape of gradients and of Adam's moments.
Params zeros_like(const Params& p);

// Deterministic from the seed, the same bits on every platform (attn::uniform01, then + − × ÷
// and sqrt only): weight matrices uniform in ±√(6 / (rows + cols)) (Xavier), embeddings uniform
// in ±1, biases 0. Matrix k of for_each_param draws from its own stream.
Params init_params(const Sizes& sizes, uint64_t seed);

// [SECTION] Forward

// Every intermediate of one pair, rows in time order.
struct Forward {
  // Encoder
  Matrix enc_states;                      // n × hidden: h_1..h_n
  Matrix enc_z, enc_r, enc_cand, enc_hw;  // n × hidden: gates, candidate, h_{t−1}·W_hh
  Matrix keys;                            // n × attention: h_i·W_k
  // Decoder, step t in row t−1
  Matrix queries;     // m × hidden: s_0..s_{m−1}
  Matrix query_proj;  // m × attention: q_t·W_q
  Matrix features;    // (m·n) × attention: row (t−1)·n + i−1 holds tanh(q_t·W_q + h_i·W_k)
  Matrix scores;      // m × n: e_{t,i}
  Matrix weights;     // m × n: α_{t,i}, the alignment matrix
  Matrix contexts;    // m × hidden: c_t
  Matrix dec_inputs;  // m × (embed + hidden): [embed_tgt[y_{t−1}], c_t]
  Matrix dec_z, dec_r, dec_cand, dec_hw;  // m × hidden
  Matrix dec_states;                      // m × hidden: s_1..s_m
  Matrix logits;                          // m × tgt_vocab
  Matrix probs;                           // m × tgt_vocab: softmax of each row
  double loss = 0.0;                      // mean cross-entropy over the m target positions
};

// Teacher-forced forward of one pair. Preconditions: src non-empty with ids in [0, src_vocab),
// tgt non-empty with ids in [0, tgt_vocab) (ending with kEos by convention; not required).
Forward forward(const Params& p, const std::vector<int>& src, const std::vector<int>& tgt);

// [SECTION] Backward

// ∂L/∂(every weight) of forward(p, src, tgt) (fwd is its result), by hand through time, float32.
Params backward(const Params& p, const Forward& fwd, const std::vector<int>& src,
                const std::vector<int>& tgt);
// The same, scaled and added to *grads (shaped by zeros_like): a minibatch's sum.
void accumulate_gradients(const Params& p, const Forward& fwd, const std::vector<int>& src,
                          const std::vector<int>& tgt, float scale, Params* grads);

// [SECTION] Decoding

struct Decoded {
  std::vector<int> tokens;  // y_1..y_k, the last kEos unless max_len stopped it
  Matrix alignment;         // k × n: α_t, one row per decoded word, in order
  Matrix probs;             // k × tgt_vocab
};

// One word at a time, each the argmax (the first on a tie) of the step's probabilities, fed
// back as the next input; stops after kEos or max_len words. Preconditions as forward's src;
// max_len ≥ 1.
Decoded greedy_decode(const Params& p, const std::vector<int>& src, int max_len);

// [SECTION] Training

// Adam (bias-corrected) on every weight, after clipping the minibatch gradient's global norm
// to `clip` (d2l's grad_clipping; 0: no clipping).
struct Adam {
  float lr = 0.01f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float clip = 1.0f;
  int steps = 0;  // taken so far
  Params m, v;    // moments, shaped on the first step
  // β₁^steps and β₂^steps for the bias correction, by repeated multiplication (the same bits on
  // every platform, unlike std::pow).
  double beta1_power = 1.0, beta2_power = 1.0;
};

struct Pair {
  std::vector<int> src, tgt;
  // For each target position, the source position it translates, or −1 (kEos): the alignment
  // a trained model's attention should find.
  std::vector<int> aligned;
};

// One step on the mean loss of the batch (each pair's own mean over its target words); returns
// that loss before the step. Precondition: batch non-empty.
double train_step(Params* p, Adam* opt, const std::vector<Pair>& batch);

// [SECTION] Toy task
//
// A made-up language pair, word for word, where the adjective follows its noun in the target:
//   source   clause = [adjective] noun verb,  sentence = clause [clause]   (2..6 words)
//   target   clause = noun' [adjective'] verb', then kEos
// e.g. "big dog runs small cat sleeps" → "hunto grona kuras miza lilu dormas <eos>": the
// alignment swaps each adjective–noun pair and keeps the rest in place. `count` pairs, drawn
// from the seed (attn::uniform01), repeats allowed. Both vocabularies have 10 ids (Sizes'
// default): 0, 1 reserved, 8 words.
std::vector<Pair> toy_translation(uint64_t seed, int count);
// The same pairs one at a time: toy_translation(seed, k) is the first k of next().
class ToyPairs {
 public:
  explicit ToyPairs(uint64_t seed) : seed_(seed) {}
  Pair next();

 private:
  uint64_t seed_, draw_ = 0;
};
// The words by id (kBos and kEos as "<bos>", "<eos>"): 10 each.
const char* const* toy_source_words();
const char* const* toy_target_words();

// The toy language has 600 sentences; a fifth of them, chosen by a hash of the source's words,
// are held out: train_toy never trains on them, so that they test what was learned.
bool toy_held_out(const std::vector<int>& src);

// The toy recipe's minibatch: the learned lesson's, the page's Train and attention-cli train's.
constexpr int kToyBatch = 16;

// The toy task's training, a step at a time (the page takes a few each frame): Adam (its
// defaults: rate 0.01, clipping at 1) from `start`, on minibatches of `batch` pairs taken in
// order from ToyPairs(seed · 1000), leaving out the held-out ones. Precondition: batch ≥ 1.
class ToyTrainer {
 public:
  ToyTrainer(Params start, uint64_t seed, int batch);
  double step();  // one step; returns the minibatch's loss before it
  int steps() const { return adam.steps; }
  Params params;
  Adam adam;

 private:
  ToyPairs pairs_;
  int batch_;
};

// The one recipe that trains the toy task (the tests, the learned lesson, attention-cli train
// and the page follow it): ToyTrainer(init_params(Sizes{}, seed), seed, batch), `steps` steps.
// *last_loss, when given, gets the last step's loss. Preconditions: steps ≥ 0, batch ≥ 1.
Params train_toy(uint64_t seed, int steps, int batch, double* last_loss);

}  // namespace seq2seq
}  // namespace attn
