#include "scenario/tasks.h"

#include <algorithm>

#include "core/random.h"

namespace scenario {

namespace {
constexpr int kTokens = 5, kPositions = 6, kSequences = 32, kModel = 12;
}  // namespace

int task_key(const std::string& name, int i, int n) {
  if (name == "previous_token") return i > 0 ? i - 1 : 0;
  if (name == "reverse") return n - 1 - i;
  return -1;
}

TaskResult make_task(const std::string& name, uint64_t seed) {
  TaskResult r;
  if (task_key(name, 0, kPositions) < 0) {
    r.error = "task: unknown task \"" + name + "\", expected previous_token or reverse";
    return r;
  }
  Scenario& s = r.scenario;
  s.title = {"Toy task: " + name,
             name == "previous_token" ? "玩具任务：前一个词" : "玩具任务：倒序"};
  s.self_attention = true;
  s.scoring = attn::Scoring::kScaledDot;
  s.has_init = true;
  s.init_seed = seed;
  s.init_d_model = kModel;
  for (int b = 0; b < kSequences; ++b) {
    attn::Matrix x = attn::Matrix::Zero(kPositions, kTokens + kPositions);
    attn::Matrix t = attn::Matrix::Zero(kPositions, kModel);
    int tokens[kPositions];
    for (int i = 0; i < kPositions; ++i) {
      const double u =
          attn::uniform01(attn::splitmix64(seed) + 17, static_cast<uint64_t>(b) * kPositions + i);
      tokens[i] = std::min(kTokens - 1, static_cast<int>(u * kTokens));
      x(i, tokens[i]) = 1.0f;
      x(i, kTokens + i) = 1.0f;
    }
    for (int i = 0; i < kPositions; ++i) t(i, tokens[task_key(name, i, kPositions)]) = 1.0f;
    s.queries.push_back(x);
    s.target.push_back(t);
  }
  s.keys = s.values = s.queries;
  return r;
}

}  // namespace scenario
