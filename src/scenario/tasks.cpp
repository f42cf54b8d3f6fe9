#include "scenario/tasks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/gradient.h"
#include "core/random.h"
#include "core/seq2seq.h"
#include "scenario/json_util.h"
#include "scenario/seq2seq_form.h"

namespace scenario {

namespace {

// The sequence tasks: 32 items, d_model 12, one head, scaled dot-product.
constexpr int kItems = 32, kModel = 12;
constexpr int kTokens = 5, kPositions = 6;                         // previous_token, reverse
constexpr int kDigits = 10, kSortSlots = 8, kSorted = 6;           // sort
constexpr int kKeys = 8, kValues = 6, kSlots = 6, kQuestions = 4;  // recall
constexpr int kPoints = 40;                                        // kernel_regression
// induction: 32 sequences of 16 letters of 10 kinds, the first 4 to 8 repeated; width 16.
constexpr int kInductionItems = 32, kInductionLength = 16, kInductionVocab = 10;
constexpr int kInductionModel = 16;

// The translation task's words. Every sentence is "the <colour> <animal> <verb>"; French puts
// the colour after the animal: le chat noir dort.
const char* const kEnglish[] = {"the", "a",   "black", "white",  "red",  "green",
                                "cat", "dog", "bird",  "sleeps", "eats", "runs"};
const char* const kFrench[] = {"le",   "un",    "noir",   "blanc", "rouge", "vert",
                               "chat", "chien", "oiseau", "dort",  "mange", "court"};
constexpr int kWords = 12, kSentence = 4;
constexpr int kAlign[kSentence] = {0, 2, 1, 3};  // French position k says English word kAlign[k]

// A uniform number in [0, 1) from the task's seed and a counter, in a stream of the task's own.
struct Draw {
  uint64_t stream;
  uint64_t next = 0;
  double operator()() { return attn::uniform01(stream, next++); }
  int below(int n) { return std::min(n - 1, static_cast<int>((*this)() * n)); }
};

std::string letter(int k) {
  return std::string(1, static_cast<char>('A' + k));
}

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

}  // namespace

const std::vector<TaskInfo>& task_list() {
  // recipe(lr, steps, loss_below, share_above): measured from seeds 1, 2 and 3 (tests).
  const auto with = [](const char* name, LocalText title, LocalText goal, LocalText check,
                       double lr, int steps, double loss_below, double share_above) {
    TaskInfo t;
    t.name = name;
    t.title = std::move(title);
    t.goal = std::move(goal);
    t.check = std::move(check);
    t.lr = lr;
    t.steps = steps;
    t.loss_below = loss_below;
    t.share_above = share_above;
    t.keyed = share_above > 0.0;
    return t;
  };
  static const std::vector<TaskInfo> tasks = {
      with("previous_token", {"previous token", "前一个词"},
           {"Each output is the token before it: a previous-token head, row i's weight on "
            "key i − 1.",
            "每个输出是它前面的那个词：一个“看前一个词”的头，第 i 行的权重落在第 i − 1 个键上。"},
           {"Head 1 puts %.2f of each row's weight on the token before.",
            "头 1 把每行 %.2f 的权重放在前一个词上。"},
           0.05, 400, 0.01, 0.9),
      with("reverse", {"reverse the sequence", "倒序"},
           {"Output i is the token at the mirrored position: the weights become the "
            "anti-diagonal.",
            "第 i 个输出是镜像位置上的词：权重变成反对角线。"},
           {"Head 1 puts %.2f of each row's weight on the mirrored position.",
            "头 1 把每行 %.2f 的权重放在镜像位置上。"},
           0.05, 400, 0.01, 0.9),
      with("sort", {"find each number's place", "找出每个数的位置"},
           {"The queries are the numbers already in order; each looks up the slot where its "
            "number stands and outputs that slot. The weights form a permutation, but attention "
            "only looks numbers up: the sorting was done when the queries were written.",
            "查询是已经排好序的数字；每个查询在键里找到自己的数字所在的位置，并输出那个位置。"
            "权重构成一个置换，但注意力只是在查找：排序在写出查询时就已经完成了。"},
           {"Head 1 puts %.2f of each row's weight on the key holding its number.",
            "头 1 把每行 %.2f 的权重放在存有它那个数字的键上。"},
           0.05, 400, 0.01, 0.9),
      with("recall", {"associative recall", "联想回忆"},
           {"A question \"C?\" must find the slot \"C=4\" whose key matches and return its "
            "value: attention as a lookup by content, wherever the slot is.",
            "问题“C?”要找到键相同的格子“C=4”并取回它的值：注意力就是按内容查找，不管格子在哪里。"},
           {"Head 1 puts %.2f of each question's weight on the slot whose key matches.",
            "头 1 把每个问题 %.2f 的权重放在键相同的格子上。"},
           0.05, 400, 0.01, 0.9),
      with("translate", {"translate with reordering", "带语序调整的翻译"},
           {"French puts the colour after the animal (the black cat → le chat noir): the "
            "alignment crosses at those two words, and W_v learns the dictionary.",
            "法语把颜色放在动物后面（the black cat → le chat noir）：对齐在这两个词处交叉，W_v "
            "学会词典。"},
           {"Head 1 puts %.2f of each French word's weight on the English word it translates.",
            "头 1 把每个法语词 %.2f 的权重放在它所翻译的英语词上。"},
           0.2, 400, 0.01, 0.9),
      with("kernel_regression",
           {"kernel regression (Nadaraya–Watson)", "核回归（Nadaraya–Watson）"},
           {"Each point is predicted from the others, weighted by a Gaussian kernel of the "
            "distance, −(x_q − x_k)²/2σ². Its width σ begins at 1; training learns it: too wide "
            "and every point sees the average, too narrow and it sees only its nearest "
            "neighbour's noise.",
            "每个点由其他点预测，权重来自距离的高斯核 −(x_q − x_k)²/2σ²。它的宽度 σ 从 1 "
            "开始，由训练学到：太宽时每个点看到的都是平均值，太窄时只看到最近邻点的噪声。"},
           {"The kernel's width is now σ = %.2f (it began at 1).",
            "核的宽度现在是 σ = %.2f（开始时为 1）。"},
           0.05, 200, 0.4, 0.0),
      [&] {
        TaskInfo t = with(
            "induction", {"induction head (two layers)", "归纳头（两层）"},
            {"The letters after a point repeat the ones before it. To predict the next letter, "
             "find where the current letter appeared before and copy the letter that followed "
             "it: layer 1 learns to look at the previous letter, and layer 2 finds the earlier "
             "copy through what layer 1 wrote.",
             "某处之后的字母重复前面的字母。要预测下一个字母，就找到当前字母上一次出现的位置，"
             "把它后面的那个字母抄过来：第 1 层学会看前一个字母，第 2 层借助第 1 层写下的信息"
             "找到先前的那一份。"},
            {"Layer 1 puts %.2f of its weight on the previous letter; layer 2 puts %.2f on the "
             "letter after the earlier copy.",
             "第 1 层把 %.2f 的权重放在前一个字母上；第 2 层把 %.2f 的权重放在先前那一份的下一个"
             "字母上。"},
            0.01, 600, 0.6, 0.6);
        t.layered = true;
        return t;
      }(),
  };
  return tasks;
}

std::string learning_rate_rule() {
  char bound[32];
  std::snprintf(bound, sizeof bound, "%g", kMaxLearningRate);
  return std::string("above 0 and at most ") + bound;
}

const TaskInfo* find_task(const std::string& name) {
  for (const TaskInfo& t : task_list())
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

// Sequence b of the induction task's batch k: random letters whose first m (4 to 8) repeat
// at m; positions m to 2m − 2 predict the next letter of the copy.
void induction_sequence(uint64_t seed, uint64_t k, int b, std::vector<int>* ids,
                        std::vector<int>* next, int* m) {
  Draw draw{attn::splitmix64(attn::splitmix64(seed) + 31 * k + 7) + static_cast<uint64_t>(b)};
  *m = 4 + draw.below(5);
  ids->assign(kInductionLength, 0);
  next->assign(kInductionLength, -1);
  for (int i = 0; i < kInductionLength; ++i) (*ids)[i] = draw.below(kInductionVocab);
  for (int i = 0; i < *m; ++i) (*ids)[*m + i] = (*ids)[i];
  for (int i = *m; i < 2 * *m - 1; ++i) (*next)[i] = (*ids)[i + 1];
}

Scenario induction_task(uint64_t seed) {
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

}  // namespace

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

TaskResult make_task(const std::string& name, uint64_t seed) {
  TaskResult r;
  const TaskInfo* info = find_task(name);
  if (!info) {
    std::string names;
    for (const TaskInfo& t : task_list()) names += (names.empty() ? "" : ", ") + t.name;
    r.error = "task: unknown task \"" + name + "\", expected one of " + names;
    return r;
  }
  Scenario& s = r.scenario;
  if (name == "recall")
    s = recall_task(seed);
  else if (name == "sort")
    s = sort_task(seed);
  else if (name == "translate")
    s = translate_task(seed);
  else if (name == "kernel_regression")
    s = kernel_task(seed);
  else if (name == "induction")
    s = induction_task(seed);
  else
    s = sequence_task(name, seed);
  s.title = {"Toy task: " + info->title.en, "玩具任务：" + info->title.zh};
  s.description = info->goal;
  if (info->keyed && !info->layered) {
    s.scoring = attn::Scoring::kScaledDot;
    s.has_init = true;
    s.init_seed = seed;
    s.init_d_model = kModel;
  }
  return r;
}

int task_key(const std::string& name, const Scenario& s, int b, int i) {
  const int n = s.n_keys();
  if (b < 0 || b >= s.batch() || i < 0 || i >= s.n_queries()) return -1;
  const attn::Matrix& q = s.queries[b];
  const attn::Matrix& k = s.keys[b];
  const auto find = [&](auto matches) {
    for (int j = 0; j < n; ++j)
      if (matches(j)) return j;
    return -1;
  };
  // (A learner may have edited the task's scenario: every answer is checked against its shapes.)
  const auto key = [n](int j) { return j >= 0 && j < n ? j : -1; };
  if (name == "previous_token") return key(i > 0 ? i - 1 : 0);
  if (name == "reverse") return key(n - 1 - i);
  if (name == "sort" || name == "recall") {  // the key that holds the number (letter) asked
    int wanted = 0;
    if (q.cols() == 0) return -1;
    q.row(i).maxCoeff(&wanted);
    if (wanted >= k.cols()) return -1;
    return find([&](int j) { return k(j, wanted) == 1.0f; });
  }
  if (name == "translate") return i < kSentence ? key(kAlign[i]) : -1;
  return -1;
}

TaskCheck check_task(const TaskInfo& task, const Scenario& s, const attn::Trace& t) {
  TaskCheck c;
  double count = 0.0;
  for (size_t b = 0; b < t.output.size() && b < s.target.size(); ++b) {
    c.loss += (t.output[b] - s.target[b]).cast<double>().squaredNorm();
    count += static_cast<double>(t.output[b].size());
  }
  c.loss = count > 0 ? c.loss / count : 0.0;
  if (task.keyed) {
    double sum = 0.0, rows = 0.0;
    if (!t.heads.empty())
      for (int b = 0; b < s.batch() && b < static_cast<int>(t.heads[0].weights.size()); ++b) {
        const attn::Matrix& w = t.heads[0].weights[b];
        for (int i = 0; i < w.rows(); ++i) {
          const int j = task_key(task.name, s, b, i);
          if (j >= 0) sum += w(i, j);
          rows += 1.0;
        }
      }
    c.value = rows > 0 ? sum / rows : 0.0;
    c.passed = c.loss < task.loss_below && c.value >= task.share_above;
  } else {
    // Kernel regression: gaussian scoring's learned width σ.
    c.value = s.sigma;
    c.passed = c.loss < task.loss_below;
  }
  char en[256], zh[256];
  std::snprintf(en, sizeof en, task.check.en.c_str(), c.value);
  std::snprintf(zh, sizeof zh, task.check.zh.c_str(), c.value);
  c.text = {en, zh};
  return c;
}

namespace {

// A recipe of the GRU encoder–decoder's toy translation (core/seq2seq.h):
//   "train": {"task": "seq2seq_translation", "seed": 2, "steps": 1500, "batch": 16,
//             "sentence": ["big", "dog", "runs"]}
// trained by attn::seq2seq::train_toy, written as a "seq2seq" scenario that decodes the
// sentence greedily, with every weight given. Returns the scenario's JSON, or throws FieldError.
nlohmann::json seq2seq_lesson(const nlohmann::json& t) {
  using json_util::fail;
  using json_util::read_int;
  using nlohmann::json;
  namespace s2s = attn::seq2seq;
  json_util::check_keys(t, "recipe.train", {"task", "seed", "steps", "batch", "sentence"});
  const int64_t seed =
      t.contains("seed") ? read_int(t["seed"], "recipe.train.seed", 0, kMaxTaskSeed) : 1;
  // Each step draws 2 · batch pairs: the limits keep that under 2 · 10⁶.
  const int64_t steps =
      t.contains("steps") ? read_int(t["steps"], "recipe.train.steps", 0, 5000) : 1500;
  const int64_t batch =
      t.contains("batch") ? read_int(t["batch"], "recipe.train.batch", 1, 64) : s2s::kToyBatch;
  if (!t.contains("sentence"))
    fail("recipe.train.sentence", "missing: the source sentence the lesson decodes");
  const json& words =
      json_util::read_array(t["sentence"], "recipe.train.sentence", kMaxSeq2SeqLength, "words");
  std::vector<std::string> source_words, target_words;
  for (int id = 2; id < s2s::Sizes{}.src_vocab; ++id)
    source_words.emplace_back(s2s::toy_source_words()[id]);
  for (int id = 2; id < s2s::Sizes{}.tgt_vocab; ++id)
    target_words.emplace_back(s2s::toy_target_words()[id]);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string field = "recipe.train.sentence[" + std::to_string(i) + "]";
    const std::string w = json_util::read_string(words[i], field, 64);
    if (std::find(source_words.begin(), source_words.end(), w) == source_words.end())
      fail(field, json(w).dump() + " is not a word of the toy language's source vocabulary");
  }
  const s2s::Params p = s2s::train_toy(static_cast<uint64_t>(seed), static_cast<int>(steps),
                                       static_cast<int>(batch), nullptr);
  json weights = json::object();
  s2s::for_each_param(p, [&weights](const char* name, const attn::Matrix& m) {
    json rows = json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      json row = json::array();
      for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(json::parse(format_float(m(r, c))));
      rows.push_back(std::move(row));
    }
    weights[name] = std::move(rows);
  });
  const s2s::Sizes& z = p.sizes;
  json doc = {{"version", 1},
              {"seq2seq",
               {{"sizes", {{"embed", z.embed}, {"hidden", z.hidden}, {"attention", z.attention}}},
                {"source_words", source_words},
                {"target_words", target_words},
                {"seed", seed},  // the random start the page's Random start draws again
                {"weights", std::move(weights)},
                {"source", words}}}};
  return doc;
}

// The lesson's texts (recipe.lesson) set into the scenario doc, and the whole read as a
// scenario: its texts are checked as a scenario's are.
LessonResult finish_lesson(nlohmann::json doc, const nlohmann::json& recipe) {
  LessonResult r;
  const auto failed = [&r](const std::string& field, const std::string& problem) {
    r.error = "recipe." + field + ": " + problem;
    return r;
  };
  if (recipe.contains("lesson")) {
    for (const auto& item : recipe["lesson"].items()) {
      const std::string& k = item.key();
      if (k != "title" && k != "description" && k != "read" && k != "tour" && k != "quiz")
        return failed("lesson." + json_util::key_name(k),
                      "is not a lesson field (title, description, read, tour, quiz)");
      doc[k] = item.value();
    }
  }
  ParseResult parsed = parse(doc.dump());
  if (!parsed.ok()) return failed("lesson", parsed.error);
  r.scenario = std::move(parsed.scenario);
  return r;
}

}  // namespace

LessonResult build_lesson(const std::string& recipe_json) {
  using json_util::check_keys;
  using json_util::read_int;
  using json_util::read_object;
  using json_util::read_string;
  using nlohmann::json;
  LessonResult r;
  json j;
  const json_util::JsonError e = json_util::read_json(recipe_json, &j);
  if (!e.ok()) {
    r.error = "recipe" + (e.path.empty() ? "" : "." + e.path) + ": " + e.message;
    return r;
  }
  const TaskInfo* info = nullptr;
  int64_t seed = 1, steps = 0, keep = kMaxBatch;
  attn::Optimizer opt;
  try {
    read_object(j, "recipe");
    check_keys(j, "recipe", {"version", "train", "lesson"});
    if (!j.contains("version") || j["version"] != 1) json_util::fail("recipe.version", "must be 1");
    if (!j.contains("train")) json_util::fail("recipe.train", "missing");
    const json& t = read_object(j["train"], "recipe.train");
    if (!t.contains("task")) json_util::fail("recipe.train.task", "missing");
    const std::string task = read_string(t["task"], "recipe.train.task", 64);
    if (task != "seq2seq_translation")
      check_keys(t, "recipe.train", {"task", "seed", "steps", "optimizer", "lr", "keep"});
    if (task == "seq2seq_translation") {
      if (j.contains("lesson")) read_object(j["lesson"], "recipe.lesson");
      return finish_lesson(seq2seq_lesson(t), j);
    }
    info = find_task(task);
    if (!info)
      json_util::fail("recipe.train.task",
                      "must name a toy task (attention-cli task --list) or seq2seq_translation");
    steps = info->steps;
    if (t.contains("seed")) seed = read_int(t["seed"], "recipe.train.seed", 0, kMaxTaskSeed);
    if (t.contains("steps")) steps = read_int(t["steps"], "recipe.train.steps", 0, kMaxRecipeSteps);
    if (t.contains("keep")) keep = read_int(t["keep"], "recipe.train.keep", 1, kMaxBatch);
    opt.kind = attn::Optimizer::Kind::kAdam;
    opt.lr = static_cast<float>(info->lr);  // a float, as the page keeps it
    if (t.contains("optimizer")) {
      const std::string o = read_string(t["optimizer"], "recipe.train.optimizer", 64);
      if (!is_optimizer(o))
        json_util::fail("recipe.train.optimizer", std::string("must be ") + kOptimizerChoice);
      if (o == "sgd") opt.kind = attn::Optimizer::Kind::kSgd;
    }
    if (t.contains("lr")) {
      opt.lr = json_util::read_float(t["lr"], "recipe.train.lr");
      if (!is_learning_rate(opt.lr))
        json_util::fail("recipe.train.lr", "must be " + learning_rate_rule());
    }
    if (j.contains("lesson")) read_object(j["lesson"], "recipe.lesson");
  } catch (const json_util::FieldError& fe) {
    r.error = fe.message;
    return r;
  }
  const auto failed = [&r](const std::string& field, const std::string& problem) {
    r.error = "recipe" + (field.empty() ? "" : "." + field) + ": " + problem;
    return r;
  };

  Scenario s = make_task(info->name, static_cast<uint64_t>(seed)).scenario;
  const Resolved resolved = resolve(s);
  if (!resolved.ok()) return failed("train", resolved.error);
  if (info->layered) {
    // A stack: step k trains on the task's batch k (as attention-cli train and the page do).
    attn::Stack st = resolved.stack;
    for (int64_t k = 1; k <= steps; ++k) {
      TaskBatch b = task_batch(s.batches_task, s.batches_seed, static_cast<uint64_t>(k));
      st.tokens.ids = std::move(b.ids);
      st.tokens.next = std::move(b.next);
      double loss = 0.0;
      const attn::Status status = opt.step(&st, s.target, &loss);
      if (!status.ok()) return failed("train", status.error);
    }
    set_weights(&s, st);
  } else {
    attn::Problem p = resolved.problem;
    for (int64_t k = 0; k < steps; ++k) {
      double loss = 0.0;
      const attn::Status st = opt.step(&p, s.target, &loss);
      if (!st.ok()) return failed("train", st.error);
    }
    set_weights(&s, p.weights);
  }
  s.trained_from_task = info->name;
  s.trained_from_seed = static_cast<uint64_t>(seed);
  if (keep < s.batch()) {
    const size_t n = static_cast<size_t>(keep);
    for (attn::Batch* b : {&s.queries, &s.keys, &s.values, &s.target})
      b->resize(std::min(n, b->size()));
    for (auto* tokens : {&s.query_tokens, &s.key_tokens, &s.query_tokens_zh, &s.key_tokens_zh})
      if (s.tokens_per_item && tokens->size() > n) tokens->resize(n);
    for (auto* ids : {&s.token_ids, &s.next_tokens})  // a token model's sequences
      if (ids->size() > n) ids->resize(n);
  }

  return finish_lesson(nlohmann::json::parse(to_json(s)), j);
}

}  // namespace scenario
