// Toy tasks that need attention, generated from a seed (issue 15): a scenario with inputs,
// learnable weights (init) and a target, small enough to learn in well under a second with
// `attention-cli train` (and, later, in the app's Train view).
//
//   previous_token  each position's output is the token before it (the first: itself);
//                   a learned solution is a previous-token head: row i puts its weight on i − 1
//   reverse         position i's output is the token at n − 1 − i; the learned weights are the
//                   anti-diagonal
//
// x is the token (one-hot over 5 tokens) beside the position (one-hot over 6 positions): 32
// sequences of 6, so that only the intended pattern fits them all. The target is the wanted
// token, one-hot in the first 5 of the output's 12 columns (d_model 12, one head).
#pragma once

#include <string>

#include "scenario/scenario.h"

namespace scenario {

struct TaskResult {
  Scenario scenario;
  std::string error;  // "" or "task: unknown task ..."
  bool ok() const { return error.empty(); }
};
TaskResult make_task(const std::string& name, uint64_t seed);

// Where a learned solution of the task puts row i's weight (n tokens), or -1 for an unknown
// task: what a test or the app checks after training.
int task_key(const std::string& name, int i, int n);

// The tasks' names, for messages and menus.
constexpr const char* kTaskNames[] = {"previous_token", "reverse"};

}  // namespace scenario
