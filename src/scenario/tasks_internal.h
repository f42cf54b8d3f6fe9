// What the toy tasks' files share: the tasks' sizes and the translation task's words, the
// seeded draws that make a task, and each task's scenario (tasks_one_layer.cpp,
// tasks_induction.cpp), which make_task (tasks.cpp) picks by name. Internal to src/scenario.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/random.h"
#include "scenario/scenario.h"

namespace scenario::tasks_internal {

// The sequence tasks: 32 items, d_model 12, one head, scaled dot-product.
constexpr int kItems = 32, kModel = 12;
constexpr int kTokens = 5, kPositions = 6;                         // previous_token, reverse
constexpr int kDigits = 10, kSortSlots = 8, kSorted = 6;           // sort
constexpr int kKeys = 8, kValues = 6, kSlots = 6, kQuestions = 4;  // recall
constexpr int kPoints = 40;                                        // kernel_regression
// induction: 32 sequences of 20 different letters of 26 (A to Z), 4 to 8 of them copied
// further on; width 16.
constexpr int kInductionItems = 32, kInductionLength = 20, kInductionVocab = 26;
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

inline std::string letter(int k) {
  return std::string(1, static_cast<char>('A' + k));
}

// A task's scenario from its seed: previous_token and reverse (sequence_task), sort, recall,
// translate, kernel_regression (kernel_task) and induction.
Scenario sequence_task(const std::string& name, uint64_t seed);
Scenario sort_task(uint64_t seed);
Scenario recall_task(uint64_t seed);
Scenario translate_task(uint64_t seed);
Scenario kernel_task(uint64_t seed);
Scenario induction_task(uint64_t seed);

}  // namespace scenario::tasks_internal
