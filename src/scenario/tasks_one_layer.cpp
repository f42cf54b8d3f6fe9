// The one-layer toy tasks' scenarios, drawn from a seed: previous_token and reverse (self-
// attention over sequences), sort, recall and translate (lookups by cross-attention), and
// kernel_regression (gaussian scoring, whose width σ is learned).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/random.h"
#include "scenario/scenario.h"
#include "scenario/tasks_internal.h"

namespace scenario::tasks_internal {

Scenario sequence_task(const std::string& name, uint64_t seed) {
  Scenario s;
  s.self_attention = true;
  s.tokens_per_item = true;
  Draw draw{attn::splitmix64(seed) + 17};
  s.feature_names.resize(1);
  for (int k = 0; k < kTokens; ++k) s.feature_names[0].push_back(letter(k));
  for (int i = 0; i < kPositions; ++i) s.feature_names[0].push_back("p" + std::to_string(i + 1));
  // The output's first columns are the letter it should say; the rest are left free.
  s.output_names.resize(1);
  for (int k = 0; k < kModel; ++k)
    s.output_names[0].push_back(k < kTokens ? letter(k) : "d" + std::to_string(k + 1));
  for (int b = 0; b < kItems; ++b) {
    int tokens[kPositions];
    for (int i = 0; i < kPositions; ++i) tokens[i] = draw.below(kTokens);
    attn::Matrix x = attn::Matrix::Zero(kPositions, kTokens + kPositions);
    attn::Matrix t = attn::Matrix::Zero(kPositions, kModel);
    std::vector<std::string> labels;
    for (int i = 0; i < kPositions; ++i) {
      x(i, tokens[i]) = 1.0f;
      x(i, kTokens + i) = 1.0f;
      labels.push_back(letter(tokens[i]));
    }
    for (int i = 0; i < kPositions; ++i)
      t(i, tokens[name == "previous_token" ? (i > 0 ? i - 1 : 0) : kPositions - 1 - i]) = 1.0f;
    s.queries.push_back(x);
    s.target.push_back(t);
    s.query_tokens.push_back(labels);
  }
  s.keys = s.values = s.queries;
  s.key_tokens = s.query_tokens;
  return s;
}

// Sort: 6 distinct numbers below 10 in 8 slots (2 left empty, all zeros), and queries that
// are the same numbers in ascending order; the answer to query r is the slot its number stood
// in. The empty slots matter: with every slot filled, "every key but the right one" carries
// the answer too (the positions of the others add up to all but one), and training finds
// that instead of the lookup.
Scenario sort_task(uint64_t seed) {
  Scenario s;
  s.tokens_per_item = true;
  Draw draw{attn::splitmix64(seed) + 23};
  for (int b = 0; b < kItems; ++b) {
    int numbers[kDigits], slots[kSortSlots];
    for (int k = 0; k < kDigits; ++k) numbers[k] = k;
    for (int k = kDigits - 1; k > 0; --k) std::swap(numbers[k], numbers[draw.below(k + 1)]);
    for (int k = 0; k < kSortSlots; ++k) slots[k] = k;
    for (int k = kSortSlots - 1; k > 0; --k) std::swap(slots[k], slots[draw.below(k + 1)]);
    // numbers[0..kSorted) go to slots[0..kSorted); the others stay empty.
    attn::Matrix keys = attn::Matrix::Zero(kSortSlots, kDigits + kSortSlots);
    std::vector<std::string> key_labels(kSortSlots, "_");
    for (int k = 0; k < kSorted; ++k) {
      keys(slots[k], numbers[k]) = 1.0f;
      keys(slots[k], kDigits + slots[k]) = 1.0f;
      key_labels[slots[k]] = std::to_string(numbers[k]);
    }
    int order[kSorted];
    for (int k = 0; k < kSorted; ++k) order[k] = k;
    std::sort(order, order + kSorted, [&](int x, int y) { return numbers[x] < numbers[y]; });
    attn::Matrix q = attn::Matrix::Zero(kSorted, kDigits);
    attn::Matrix t = attn::Matrix::Zero(kSorted, kModel);
    std::vector<std::string> query_labels;
    for (int r = 0; r < kSorted; ++r) {
      q(r, numbers[order[r]]) = 1.0f;
      t(r, slots[order[r]]) = 1.0f;
      query_labels.push_back(std::to_string(numbers[order[r]]));
    }
    s.queries.push_back(q);
    s.keys.push_back(keys);
    s.target.push_back(t);
    s.query_tokens.push_back(query_labels);
    s.key_tokens.push_back(key_labels);
  }
  s.values = s.keys;
  return s;
}

Scenario recall_task(uint64_t seed) {
  Scenario s;
  s.tokens_per_item = true;
  Draw draw{attn::splitmix64(seed) + 29};
  for (int b = 0; b < kItems; ++b) {
    int keys[kKeys];
    for (int k = 0; k < kKeys; ++k) keys[k] = k;
    for (int k = kKeys - 1; k > 0; --k) std::swap(keys[k], keys[draw.below(k + 1)]);
    attn::Matrix memory = attn::Matrix::Zero(kSlots, kKeys + kValues);
    std::vector<std::string> slot_labels, question_labels;
    int values[kSlots];
    for (int j = 0; j < kSlots; ++j) {
      values[j] = draw.below(kValues);
      memory(j, keys[j]) = 1.0f;
      memory(j, kKeys + values[j]) = 1.0f;
      slot_labels.push_back(letter(keys[j]) + "=" + std::to_string(values[j]));
    }
    attn::Matrix q = attn::Matrix::Zero(kQuestions, kKeys);
    attn::Matrix t = attn::Matrix::Zero(kQuestions, kModel);
    for (int i = 0; i < kQuestions; ++i) {
      const int slot = draw.below(kSlots);
      q(i, keys[slot]) = 1.0f;
      t(i, values[slot]) = 1.0f;
      question_labels.push_back(letter(keys[slot]) + "?");
    }
    s.queries.push_back(q);
    s.keys.push_back(memory);
    s.target.push_back(t);
    s.query_tokens.push_back(question_labels);
    s.key_tokens.push_back(slot_labels);
  }
  s.values = s.keys;
  return s;
}

Scenario translate_task(uint64_t seed) {
  Scenario s;
  s.tokens_per_item = true;
  Draw draw{attn::splitmix64(seed) + 41};
  for (int b = 0; b < kItems; ++b) {
    const int words[kSentence] = {draw.below(2), 2 + draw.below(4), 6 + draw.below(3),
                                  9 + draw.below(3)};
    // Source: the English word and its position; queries: the French position only, so that
    // where to look must be learned as an alignment.
    attn::Matrix src = attn::Matrix::Zero(kSentence, kWords + kSentence);
    attn::Matrix q = attn::Matrix::Zero(kSentence, kSentence);
    attn::Matrix t = attn::Matrix::Zero(kSentence, kModel);
    std::vector<std::string> en, fr;
    for (int i = 0; i < kSentence; ++i) {
      src(i, words[i]) = 1.0f;
      src(i, kWords + i) = 1.0f;
      en.push_back(kEnglish[words[i]]);
    }
    for (int k = 0; k < kSentence; ++k) {
      q(k, k) = 1.0f;
      t(k, words[kAlign[k]]) = 1.0f;  // the French word sits in the English word's column
      fr.push_back(kFrench[words[kAlign[k]]]);
    }
    s.queries.push_back(q);
    s.keys.push_back(src);
    s.target.push_back(t);
    s.query_tokens.push_back(fr);
    s.key_tokens.push_back(en);
  }
  s.values = s.keys;
  // The columns: the French positions; the English words and positions; the French words (the
  // output keeps each in its English word's column).
  s.feature_names.resize(1);
  s.key_feature_names.resize(1);
  s.output_names.resize(1);
  for (int k = 0; k < kSentence; ++k) s.feature_names[0].push_back("p" + std::to_string(k + 1));
  for (int w = 0; w < kWords; ++w) s.key_feature_names[0].push_back(kEnglish[w]);
  for (int k = 0; k < kSentence; ++k) s.key_feature_names[0].push_back("p" + std::to_string(k + 1));
  s.value_names = s.key_feature_names;
  for (int w = 0; w < kWords; ++w) s.output_names[0].push_back(kFrench[w]);
  return s;
}

Scenario kernel_task(uint64_t seed) {
  Scenario s;
  s.batch_of_one = true;
  Draw draw{attn::splitmix64(seed) + 53};
  std::vector<double> x(kPoints);
  for (double& v : x) v = 5.0 * draw();
  std::sort(x.begin(), x.end());
  attn::Matrix xs(kPoints, 1), v(kPoints, 1), t(kPoints, 1);
  std::vector<std::string> labels;
  for (int i = 0; i < kPoints; ++i) {
    // Box–Muller: noise of standard deviation 0.5.
    const double u1 = std::max(draw(), 1e-12), u2 = draw();
    const double noise = 0.5 * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const double y = 2.0 * std::sin(x[i]) + std::pow(x[i], 0.8) + noise;
    xs(i, 0) = static_cast<float>(x[i]);
    v(i, 0) = t(i, 0) = static_cast<float>(y);
    char label[16];
    std::snprintf(label, sizeof label, "%.2f", x[i]);
    labels.push_back(label);
    s.masked_cells.push_back({0, i, i});  // a point does not predict itself
  }
  // The points' x are both the queries and the keys; gaussian scoring's −(x_q − x_k)²/2σ² is
  // the kernel, of width σ = 1 to begin with, and σ is the one weight training learns.
  s.queries = {xs};
  s.keys = {xs};
  s.values = {v};
  s.target = {t};
  s.query_tokens = s.key_tokens = {labels};
  s.feature_names = {{"x"}};
  s.value_names = {{"y"}};
  s.scoring = attn::Scoring::kGaussian;
  s.sigma = 1.0f;
  return s;
}

}  // namespace scenario::tasks_internal
