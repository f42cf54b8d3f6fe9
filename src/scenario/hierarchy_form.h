// Attention over attention (Yang et al. 2016's hierarchical attention, simplified) as a
// scenario: "hierarchy".
//
//   "hierarchy": {"sentences": [[[0.9, 0.1], [0.2, 0.8]], ...],  // S sentences of word vectors
//                 "words": [["the", "soup"], ...],              // optional labels, same shape
//                 "sentence_names": ["s1", ...],                 // optional, one per sentence
//                 "feature_names": ["food", ...],                // optional, one per column
//                 "word_query": [1.0, 0.0],                      // u_w: d numbers
//                 "questions": [[0.0, 1.0]],                     // u_s: Q rows of d numbers
//                 "question_names": ["food?"],                   // optional, one per question
//                 "scoring": "scaled_dot"}                       // or "dot", both levels
//
// Word level: sentence k's words w_k1..w_kn are pooled by a_k = softmax_i(score(u_w, w_ki))
// into its vector v_k = Σ_i a_ki w_ki (score = u·w, divided by √d for scaled_dot). Sentence
// level is the scenario itself, an ordinary one: queries = the questions (Q × d, one batch
// item), keys = values = the sentence vectors (S × d), the same scoring, one head, no weights,
// temperature 1, no masks; query tokens the question names ("q1", ... by default), key tokens
// the sentence names ("s1", ...), feature, value and output names the column names ("d1", ...).
// Its trace's weights are the sentence weights b (Q × S), its output the document vectors.
// Those fields are derived when the scenario is read, and to_json writes the "hierarchy"
// block alone.
#pragma once

#include <string>
#include <vector>

#include "core/attention.h"

namespace scenario {

// Limits, checked before anything of that size is allocated.
constexpr int kMaxHierarchySentences = 64;
constexpr int kMaxHierarchyWords = 64;   // words of one sentence
constexpr int kMaxHierarchyWidth = 256;  // d, the numbers of a word vector
constexpr int kMaxHierarchyQuestions = 16;
// The largest |number| of a word vector, the word query or a question.
constexpr float kMaxHierarchyNumber = 1e4f;

struct Hierarchy {
  // As given.
  std::vector<attn::Matrix> sentences;  // S matrices, sentence k's words as rows (n_k × d)
  attn::Vector word_query;              // u_w (d)
  attn::Matrix questions;               // u_s (Q × d)
  attn::Scoring scoring = attn::Scoring::kScaledDot;  // kDot or kScaledDot
  // Labels, as tokens are kept (scenario.h): English, and the Chinese (the same shape, the
  // English where a label has none) when any label has one. Empty: not given.
  std::vector<std::vector<std::string>> words, words_zh;  // one per word, ragged
  std::vector<std::string> sentence_names, sentence_names_zh;
  std::vector<std::string> feature_names, feature_names_zh;
  std::vector<std::string> question_names, question_names_zh;
  // Derived (derive_hierarchy).
  std::vector<attn::Vector> word_weights;  // a_k, one per sentence (n_k)
  attn::Matrix sentence_vectors;           // v_k as rows (S × d)

  bool empty() const { return sentences.empty(); }
  int width() const { return sentences.empty() ? 0 : static_cast<int>(sentences[0].cols()); }
};

// "" when h can run, else "<field>: <problem>" naming the JSON field (hierarchy.sentences[1][0],
// hierarchy.word_query, hierarchy.words[2], ...): counts within the limits, every word vector,
// the word query and each question of the same width d, every number finite and within
// ±kMaxHierarchyNumber, the labels one per word, sentence, column and question, each at most
// kMaxTokenBytes, the scoring dot or scaled_dot. Never asserts.
std::string validate_hierarchy(const Hierarchy& h);

struct Scenario;
// Pools every sentence (the word level, on the core: attn::run of the one-query problem u_w
// over the sentence's words) and makes the scenario the sentence level: the fields listed at
// the top. "" on success, else an error naming the field. Runs validate_hierarchy first.
std::string derive_hierarchy(Scenario* s);

}  // namespace scenario
