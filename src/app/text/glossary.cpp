#include "app/text/glossary.h"

#include <cstring>

#include "app/text/i18n.h"

namespace ui {

const std::vector<GlossaryEntry>& glossary() {
  static const std::vector<GlossaryEntry> entries = {
      {"query", N_("query"),
       N_("What a position is looking for: one row of Q. Its dot product with every key "
          "says how well each key matches.")},
      {"key", N_("key"),
       N_("What a position offers to be found by: one row of K. It is compared with the "
          "queries and never mixed into the output.")},
      {"value", N_("value"),
       N_("What a position says once it is chosen: one row of V. The output is a weighted "
          "average of the value rows.")},
      {"positional_encoding", N_("positional encoding"),
       N_("A pattern of sines and cosines, different for each position, added to the input "
          "rows so that attention can tell word order.")},
      {"projection", N_("projection"),
       N_("A learned matrix (W_q, W_k, W_v) that turns each input row into its query, key or "
          "value; the same rows can then ask for one thing and offer another.")},
      {"self_attention", N_("self-attention"),
       N_("Attention in which the queries, keys and values all come from the same sequence: "
          "every word looks at the words of its own sentence.")},
      {"score", N_("score"),
       N_("One number per query and key saying how well they match, before the softmax: a dot "
          "product, or a small network (additive scoring).")},
      {"scaling", N_("scaling by √d"),
       N_("Dividing the dot products by the square root of the key size d. Their variance "
          "grows with d; without it large d saturates the softmax.")},
      {"temperature", N_("temperature"),
       N_("A divisor of the scores: above 1 the weights spread out, below 1 they sharpen "
          "towards the largest score.")},
      {"mask", N_("mask"),
       N_("Cells a query may not use. Their scores are replaced by a very negative number "
          "(−1e6) or −∞, so the softmax gives them weight 0.")},
      {"valid_length", N_("valid length"),
       N_("How many keys of a padded sequence are real; the <pad> keys after it are masked.")},
      {"causal_mask", N_("causal mask"),
       N_("A mask that hides every key after the query's own position, so that a decoder "
          "cannot look at words it has not written yet.")},
      {"softmax", N_("softmax"),
       N_("Turns a row of scores into weights: e to the power of each score, divided by their "
          "sum. The weights are positive and add up to 1.")},
      {"attention_weights", N_("attention weights"),
       N_("The matrix A (α in formulas): row i says how much of each value row goes into "
          "output row i. Each row sums to 1.")},
      {"hard_attention", N_("hard attention"),
       N_("Keeps only the key with the largest score (weight 1, the rest 0), instead of "
          "spreading the weight as softmax does.")},
      {"head", N_("head"),
       N_("One attention computed on its own block of the projected columns. Several heads "
          "look at the same words in different ways; their outputs are put side by side and "
          "mixed by W_o.")},
  };
  return entries;
}

std::vector<const GlossaryEntry*> glossary_for_step(Step s) {
  static const char* const kStepTerms[kStepCount][5] = {
      {"query", "key", "value", "positional_encoding", nullptr},            // inputs
      {"projection", "self_attention", "query", "key", "value"},            // projections
      {"score", "query", "key", nullptr, nullptr},                          // scores
      {"scaling", "temperature", "score", nullptr, nullptr},                // scaled
      {"mask", "valid_length", "causal_mask", "softmax", nullptr},          // masked
      {"softmax", "attention_weights", "mask", "hard_attention", nullptr},  // weights
      {"attention_weights", "value", nullptr, nullptr, nullptr},            // weighted values
      {"head", "projection", nullptr, nullptr, nullptr},                    // output
  };
  std::vector<const GlossaryEntry*> out;
  const int k = static_cast<int>(s);
  if (k < 0 || k >= kStepCount) return out;
  for (const char* id : kStepTerms[k]) {
    if (!id) break;
    for (const GlossaryEntry& e : glossary())
      if (std::strcmp(e.id, id) == 0) out.push_back(&e);
  }
  return out;
}

}  // namespace ui
