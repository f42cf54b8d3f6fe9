// A GRU encoder–decoder with Bahdanau attention (core/seq2seq.h) as a scenario: "seq2seq".
//
//   "seq2seq": {"sizes": {"embed": 8, "hidden": 16, "attention": 16},
//               "source_words": ["big", "small", ...], "target_words": ["grona", ...],
//               "seed": 1,                                  // init_params(sizes, seed)
//               "weights": {"W_out": [[...], ...], ...},    // any of for_each_param's names
//               "source": ["big", "dog", "runs"],
//               "target": ["hunto", "grona", "kuras", "<eos>"]}   // optional
//
// The vocabularies leave out "<bos>" and "<eos>", ids 0 and 1 of both (attn::seq2seq::kBos,
// kEos); word k of a list is id k + 2. "seed" and/or "weights": a missing weight is generated
// from the seed, so without a seed every weight must be given. With "target" the decoder is
// teacher-forced on it ("<eos>" may be written, conventionally last); without, it decodes
// greedily, up to seq2seq_max_decode(source length) words or "<eos>".
//
// The decoder's attention is additive attention, so the scenario reads as an ordinary one:
// scoring "additive", queries = the decoder's queries s_0..s_{m−1} (m × hidden), keys = values
// = the encoder's states h_1..h_n (n × hidden), W_q, W_k and w_v the model's; its trace's
// weights are the alignment α (m × n) and its output the contexts c_t. Those fields are derived
// when the scenario is read, and to_json writes the "seq2seq" block alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/seq2seq.h"

namespace scenario {

// Limits, checked before anything of that size is allocated.
constexpr int kMaxSeq2SeqSize = 256;   // embed, hidden, attention
constexpr int kMaxSeq2SeqWords = 256;  // words of each vocabulary (without <bos>, <eos>)
constexpr int kMaxSeq2SeqLength = 64;  // source and target words
// The largest |weight|: with it no number the model computes can overflow float32.
constexpr float kMaxSeq2SeqWeight = 1e4f;
// Greedy decoding's longest output: 2 × the source's length + 2 words, at most
// kMaxSeq2SeqLength.
int seq2seq_max_decode(int source_length);

struct Seq2Seq {
  // As given.
  attn::seq2seq::Params params;  // sizes (vocabularies included) and every weight
  std::vector<std::string> source_words, target_words;  // without <bos>, <eos>
  bool has_seed = false;
  uint64_t seed = 0;
  uint32_t given = 0;       // bit k: for_each_param's k-th weight was given in "weights"
  std::vector<int> source;  // ids (≥ 2)
  std::vector<int> target;  // ids; empty: greedy decoding
  // Derived (derive_seq2seq).
  std::vector<int> produced;  // y_1..y_m: the target, or the greedy decoding
  // forward(params, source, produced): the decoder teacher-forced on what it produced, so
  // that greedy decoding's steps are the same numbers; loss is the mean cross-entropy of
  // `produced` (for greedy decoding, of its own choices).
  attn::seq2seq::Forward forward;

  bool empty() const { return source.empty(); }
  // Its vocabularies and sizes are the toy language's (attn::seq2seq::toy_translation), so that
  // the toy's pairs can train it (attn::seq2seq::ToyTrainer: the page's and the CLI's train).
  bool toy_language() const;
  // Weights learned: every one of them is the model's now, and written out.
  void set_learned(attn::seq2seq::Params p);
  bool greedy() const { return target.empty(); }
  // "<bos>", "<eos>", or the word; "?" outside the vocabulary.
  std::string source_word(int id) const;
  std::string target_word(int id) const;
};

// The names of for_each_param, in its order (25).
std::vector<std::string> seq2seq_param_names();

// "" when m can run, else "<field>: <problem>" naming the JSON field (seq2seq.sizes.hidden,
// seq2seq.weights.encoder.W_xz, seq2seq.source[3], ...): sizes and lengths within the limits,
// every weight of its shape, finite and within ±kMaxSeq2SeqWeight, ids within the
// vocabularies. Never asserts.
std::string validate_seq2seq(const Seq2Seq& m);

struct Scenario;
// Runs the model (decoding greedily when there is no target) and makes the scenario the
// decoder's attention: the fields listed at the top, query tokens the words produced, key
// tokens the source's words, feature names h1..h_hidden. "" on success, else an error naming
// the field. Runs validate_seq2seq first.
std::string derive_seq2seq(Scenario* s);

}  // namespace scenario
