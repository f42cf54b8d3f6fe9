// Toy tasks that need attention, generated from a seed: a scenario with inputs,
// learnable weights and a target, small enough to learn in a second or two with
// `attention-cli train` or the app's Train section. One table (task_list) holds each task's
// name, what a learned solution looks like, its recipe (Adam, rate, steps) and the loss that
// recipe reaches: the app, the CLI, the tests and docs/training.md read it from there.
//
//   previous_token     self-attention over 32 sequences of 6 tokens (5 kinds); output i is
//                      the token before i (the first: itself). A previous-token head appears.
//   reverse            output i is the token at n − 1 − i: the weights become the
//                      anti-diagonal.
//   sort               6 numbers in 8 slots; the queries are the same numbers in order, and
//                      output i is the slot where the i-th smallest stands: each item's
//                      weights become a permutation (a lookup: the queries are sorted already).
//   recall             associative recall, cross-attention: 6 memory slots "C=4" (a key
//                      letter and its value), 4 questions "C?"; the answer is the value
//                      stored under that key. Row i's weight goes to the slot whose key
//                      matches, wherever it is.
//   translate          English → French, cross-attention: "the black cat sleeps" →
//                      "le chat noir dort". Query k is the French position; the alignment
//                      crosses where the adjective follows the noun, and W_v learns the words.
//   kernel_regression  attention pooling as Nadaraya–Watson kernel regression (Dive into
//                      Deep Learning §11.2): 40 noisy points of y = 2 sin x + x^0.8 predict
//                      each other (each point's own cell masked): queries and keys are the
//                      points' x, gaussian scoring −(x_q − x_k)²/2σ² the kernel, from σ = 1;
//                      training learns its width σ (attn::Weights::sigma, the one weight).
//   induction          a token model of two layers (attn::Stack) over 32 sequences of 16
//                      letters (10 kinds) whose first m (4 to 8) repeat right after; each
//                      position of the copy predicts its next letter. Layer 1 learns to look at
//                      the previous token, layer 2 to find the earlier copy by it and read the
//                      token after it: an induction head. Trained on a fresh batch each step
//                      ("batches"), so that it cannot learn the sequences by heart.
#pragma once

#include <string>
#include <vector>

#include "core/stack.h"
#include "scenario/scenario.h"

namespace scenario {

// The limits of training a task, wherever it is asked for (a link, the JS API, the CLI, a
// lesson recipe): a task's seeds, the learning rate, the optimizers.
constexpr int kMaxTaskSeed = 999999;
constexpr double kMaxLearningRate = 10.0;  // (0, kMaxLearningRate]
inline bool is_learning_rate(double lr) {
  return lr > 0.0 && lr <= kMaxLearningRate;
}
// "above 0 and at most 10": what an error says the learning rate must be.
std::string learning_rate_rule();
constexpr const char* kOptimizerNames[] = {"adam", "sgd"};  // attn::Optimizer's kinds
inline bool is_optimizer(const std::string& name) {
  for (const char* o : kOptimizerNames)
    if (name == o) return true;
  return false;
}
constexpr const char* kOptimizerChoice = "\"adam\" or \"sgd\"";
// A lesson recipe's steps, trained at build time (a link's are kMaxViewTrainSteps).
constexpr int kMaxRecipeSteps = 100000;

struct TaskInfo {
  std::string name;
  LocalText title;  // for menus
  LocalText goal;   // what a learned solution looks like
  // The check's sentence, a printf format with one %.2f: the share of head 1's weight on
  // the keys the task wants (keyed tasks), or the learned width σ (kernel_regression); with
  // two for a layered task: layer 1's share on the previous token, then the last layer's on
  // the task's keys (check_stack_task).
  LocalText check;
  // The recipe: Adam at this rate for this many steps reaches a loss below loss_below (and,
  // for keyed tasks, a share of at least share_above) from seeds 1, 2 and 3; tested.
  double lr = 0.05;
  int steps = 400;
  double loss_below = 0.0;
  double share_above = 0.0;
  bool keyed = true;  // false: no single key is right (kernel_regression)
  // A token model of stacked layers (its scenario has "layers" and "tokens"), trained on a
  // fresh batch each step (task_batch): check_stack_task checks it. The page does not train
  // these yet (its Train menu leaves them out).
  bool layered = false;
  // Its loss stays high, then falls steeply (the induction task): induction_phase_change reads
  // the curve, and the Train section and the table view say where it fell.
  bool phase_change = false;
};

// Every task, in the order the menus show them.
const std::vector<TaskInfo>& task_list();
// The task of that name, or nullptr.
const TaskInfo* find_task(const std::string& name);

struct TaskResult {
  Scenario scenario;
  std::string error;  // "" or "task: unknown task ..."
  bool ok() const { return error.empty(); }
};
TaskResult make_task(const std::string& name, uint64_t seed);

// The key a learned solution of a keyed task puts row i's weight on in batch item b of the
// task's scenario s (computed from s's inputs), or -1 (no such key, or not a keyed task).
int task_key(const std::string& name, const Scenario& s, int b, int i);

// A layered task's batch k from its seed (k = 0: the one its scenario shows; training step k
// trains on batch k): every sequence's token ids and next tokens (-1: none).
struct TaskBatch {
  std::vector<std::vector<int>> ids, next;
};
TaskBatch task_batch(const std::string& name, uint64_t seed, uint64_t k);

// The key a layered task's last layer should attend to from position i of sequence b (the
// token after the earlier copy of token i), or -1.
int stack_task_key(const std::string& name, const Scenario& s, int b, int i);

// A layered task's check: the mean cross-entropy of s's own tokens, and the share of the last
// layer's first head on stack_task_key (value), and the first layer's share on the previous
// token (previous).
struct StackTaskCheck {
  double loss = 0.0, value = 0.0, previous = 0.0;
  bool passed = false;  // loss < loss_below and value ≥ share_above
  LocalText text;
};
StackTaskCheck check_stack_task(const TaskInfo& task, const Scenario& s, const attn::Stack& st);

// The induction task's loss curve read as its lesson reads it, on 10-step means (steps 1–10,
// 11–20, …; a window is named by its last step): near a blind guess among 26 letters (mean
// ≥ 2.9; ln 26 = 3.26) through plateau_until, below 1.6 from drop on, below 0.5 from low on;
// -1 where a curve does not get there. learned_induction's words ("for more than 150 steps …
// within 100 steps … below 1.6, and within 100 more below 0.5") are tested on it
// (tests/scenario/tokens_test.cpp), and the Train section marks `drop` on the loss plot.
struct PhaseChange {
  int plateau_until = -1;
  int drop = -1;
  int low = -1;
};
PhaseChange induction_phase_change(const std::vector<float>& losses);

// How far training has come: the loss against s.target, and the check's value (see TaskInfo),
// computed from the trace of s.
struct TaskCheck {
  double loss = 0.0;
  double value = 0.0;   // share of the weight on the right keys, or the width σ
  bool passed = false;  // loss < loss_below (and value ≥ share_above for keyed tasks)
  LocalText text;       // the check's sentence with the value filled in
};
TaskCheck check_task(const TaskInfo& task, const Scenario& s, const attn::Trace& t);

// A lesson whose weights are learned, from a recipe (assets/recipes/<name>.json):
//   {"version": 1,
//    "train": {"task": "previous_token", "seed": 1, "steps": 400, "optimizer": "adam",
//              "lr": 0.05, "keep": 4},
//    "lesson": {"title": ..., "description": ..., "read": ..., "tour": [...], "quiz": [...]}}
// The task is generated from its seed and trained (attn::Optimizer, deterministic); the
// lesson keeps the first `keep` batch items (inputs and target: the weights were learned on
// all of them) and the lesson's texts, which are checked as a scenario's are (a quiz question
// must fit). `attention-cli lesson` writes it; the build makes the learned presets so.
struct LessonResult {
  Scenario scenario;
  std::string error;  // "" or "recipe.<field>: <problem>"
  bool ok() const { return error.empty(); }
};
LessonResult build_lesson(const std::string& recipe_json);

}  // namespace scenario
