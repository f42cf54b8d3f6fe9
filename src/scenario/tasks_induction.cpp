// The induction task, a token model of two layers (attn::Stack): its scenario, the fresh batch
// of sequences for each training step (task_batch), and the check of what a trained stack
// does (stack_task_key, check_stack_task).
#include "scenario/tasks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/random.h"
#include "scenario/tasks_internal.h"

namespace scenario {

using tasks_internal::Draw;
using tasks_internal::kInductionItems;
using tasks_internal::kInductionLength;
using tasks_internal::kInductionModel;
using tasks_internal::kInductionVocab;
using tasks_internal::letter;

namespace {

// Sequence b of the induction task's batch k: 20 different letters (a shuffled alphabet),
// then a segment of m of them (4 to 8, from position a) copied at c, a + m <= c <= 20 - m, over
// the letters there; positions c to c + m - 2 predict the next letter of the copy. Every letter
// but the copy's appears once, so the letter to predict is always the one that followed the
// current letter's earlier copy, and where the copy begins varies, so no position alone tells:
// what the loss counts can only be learned by two layers working together, and it is learned
// late and suddenly (docs/lessons.md, "The induction phase change").
void induction_sequence(uint64_t seed, uint64_t k, int b, std::vector<int>* ids,
                        std::vector<int>* next, int* m) {
  Draw draw{attn::splitmix64(attn::splitmix64(seed) + 31 * k + 7) + static_cast<uint64_t>(b)};
  *m = 4 + draw.below(5);
  std::vector<int> alphabet(kInductionVocab);
  for (int v = 0; v < kInductionVocab; ++v) alphabet[v] = v;
  for (int v = kInductionVocab - 1; v > 0; --v) std::swap(alphabet[v], alphabet[draw.below(v + 1)]);
  ids->assign(alphabet.begin(), alphabet.begin() + kInductionLength);
  next->assign(kInductionLength, -1);
  const int a = draw.below(kInductionLength - 2 * *m + 1);
  const int c = a + *m + draw.below(kInductionLength - 2 * *m - a + 1);
  for (int i = 0; i < *m; ++i) (*ids)[c + i] = (*ids)[a + i];
  for (int i = c; i < c + *m - 1; ++i) (*next)[i] = (*ids)[i + 1];
}

}  // namespace

Scenario tasks_internal::induction_task(uint64_t seed) {
  Scenario s;
  s.self_attention = true;
  const TaskBatch batch = task_batch("induction", seed, 0);
  s.token_ids = batch.ids;
  s.next_tokens = batch.next;
  for (int v = 0; v < kInductionVocab; ++v) s.vocab.push_back(letter(v));
  for (const std::vector<int>& ids : s.token_ids) {
    std::vector<std::string> labels;
    for (int id : ids) labels.push_back(letter(id));
    s.query_tokens.push_back(labels);
  }
  s.key_tokens = s.query_tokens;
  s.tokens_per_item = true;
  s.scoring = attn::Scoring::kScaledDot;
  s.causal = true;
  s.positional_encoding = true;
  s.layers.resize(2);
  s.has_init = true;
  s.init_seed = seed;
  s.init_d_model = kInductionModel;
  s.batches_task = "induction";
  s.batches_seed = seed;
  fill_token_inputs(&s);
  return s;
}

TaskBatch task_batch(const std::string& name, uint64_t seed, uint64_t k) {
  TaskBatch t;
  if (name != "induction") return t;
  for (int b = 0; b < kInductionItems; ++b) {
    std::vector<int> ids, next;
    int m = 0;
    induction_sequence(seed, k, b, &ids, &next, &m);
    t.ids.push_back(std::move(ids));
    t.next.push_back(std::move(next));
  }
  return t;
}

int stack_task_key(const std::string& name, const Scenario& s, int b, int i) {
  if (name != "induction" || b < 0 || b >= static_cast<int>(s.token_ids.size())) return -1;
  const std::vector<int>& ids = s.token_ids[b];
  const int n = static_cast<int>(ids.size());
  if (i < 0 || i >= n || b >= static_cast<int>(s.next_tokens.size()) || s.next_tokens[b][i] < 0)
    return -1;
  // The earlier copy: the latest j < i with the same letter whose next letter is known to
  // follow it in the copy too; attend to j + 1.
  for (int j = i - 1; j >= 0; --j)
    if (ids[j] == ids[i] && j + 1 < i && ids[j + 1] == s.next_tokens[b][i]) return j + 1;
  return -1;
}

StackTaskCheck check_stack_task(const TaskInfo& task, const Scenario& s, const attn::Stack& st) {
  StackTaskCheck c;
  const attn::StackTrace t = attn::run(st);
  double count = 0.0, rows = 0.0, previous_rows = 0.0;
  for (size_t b = 0; b < t.logits.size() && b < s.next_tokens.size(); ++b) {
    const attn::Matrix p = attn::next_token_probabilities(t.logits[b]);
    for (int i = 0; i < p.rows(); ++i) {
      const int n = s.next_tokens[b][i];
      if (n < 0) continue;
      c.loss -= std::log(std::max(static_cast<double>(p(i, n)), 1e-30));
      count += 1.0;
      const int j = stack_task_key(task.name, s, static_cast<int>(b), i);
      if (j >= 0 && !t.layers.empty()) {
        c.value += t.layers.back().heads[0].weights[b](i, j);
        rows += 1.0;
      }
    }
    if (!t.layers.empty()) {
      const attn::Matrix& w = t.layers.front().heads[0].weights[b];
      for (int i = 1; i < w.rows(); ++i) c.previous += w(i, i - 1), previous_rows += 1.0;
    }
  }
  c.loss = count > 0 ? c.loss / count : 0.0;
  c.value = rows > 0 ? c.value / rows : 0.0;
  c.previous = previous_rows > 0 ? c.previous / previous_rows : 0.0;
  c.passed = c.loss < task.loss_below && c.value >= task.share_above;
  char en[256], zh[256];
  std::snprintf(en, sizeof en, task.check.en.c_str(), c.previous, c.value);
  std::snprintf(zh, sizeof zh, task.check.zh.c_str(), c.previous, c.value);
  c.text = {en, zh};
  return c;
}

PhaseChange induction_phase_change(const std::vector<float>& losses) {
  PhaseChange p;
  for (size_t k = 0; k + 10 <= losses.size(); k += 10) {
    double mean = 0.0;
    for (size_t i = k; i < k + 10; ++i) mean += static_cast<double>(losses[i]) / 10.0;
    const int step = static_cast<int>(k) + 10;
    if (p.drop < 0 && mean >= 2.9) p.plateau_until = step;
    if (p.drop < 0 && mean < 1.6) p.drop = step;
    if (p.low < 0 && mean < 0.5) p.low = step;
  }
  return p;
}

}  // namespace scenario
