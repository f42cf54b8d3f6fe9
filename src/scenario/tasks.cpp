// The toy tasks' table (task_list: each task's name, texts and recipe), make_task, which
// draws a task's scenario by name, and the check of what a one-layer task's training learned
// (task_key, check_task). The tasks themselves are tasks_one_layer.cpp's and
// tasks_induction.cpp's, the lesson recipes tasks_lesson.cpp's.
#include "scenario/tasks.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "scenario/tasks_internal.h"

namespace scenario {

using tasks_internal::induction_task;
using tasks_internal::kAlign;
using tasks_internal::kernel_task;
using tasks_internal::kModel;
using tasks_internal::kSentence;
using tasks_internal::recall_task;
using tasks_internal::sequence_task;
using tasks_internal::sort_task;
using tasks_internal::translate_task;

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
      with("previous_token", {"previous token", "前一个词元"},
           {"Each output is the token before it: a previous-token head, row i's weight on "
            "key i − 1.",
            "每个输出是它前面的那个词元：一个“看前一个词元”的头，第 i 行的权重落在第 i − 1 "
            "个键上。"},
           {"Head 1 puts %.2f of each row's weight on the token before.",
            "头 1 把每行 %.2f 的权重放在前一个词元上。"},
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
            {"Twenty different letters, but a run of 4 to 8 of them comes again further on. To "
             "predict the next letter of the second copy, find where the current letter "
             "appeared before and copy the letter that followed it: layer 1 learns to look at "
             "the previous letter, and layer 2 finds the earlier copy through what layer 1 "
             "wrote. Nothing else tells the next letter, so the loss stays near a blind guess "
             "until both layers have learned their part, then falls steeply.",
             "二十个各不相同的字母，但其中连续 4 到 8 个会在后面再出现一次。要预测第二份里的"
             "下一个字母，就找到当前字母上一次出现的位置，把它后面的那个字母抄过来：第 1 层学会"
             "看前一个字母，第 2 层借助第 1 层写下的信息找到先前的那一份。别的线索都没有，所以"
             "两层都学会自己那一部分之前，损失一直停在瞎猜的水平，然后陡然下降。"},
            {"Layer 1 puts %.2f of its weight on the previous letter; layer 2 puts %.2f on the "
             "letter after the earlier copy.",
             "第 1 层把 %.2f 的权重放在前一个字母上；第 2 层把 %.2f 的权重放在先前那一份的下一个"
             "字母上。"},
            0.01, 600, 0.6, 0.6);
        t.layered = true;
        t.phase_change = true;
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

}  // namespace scenario
