// The playground's state: training toward the target, toy tasks, and the cells' gradients.
#include "app/model/app_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "app/model/matrices.h"
#include "scenario/tasks.h"

namespace ui {

void AppState::replay_training(const scenario::TrainState& t) {
  const scenario::Scenario shown = document();
  const uint64_t loads_before = loads;
  if (!load_task(t.task, static_cast<uint64_t>(t.seed)).ok()) return;
  training.lr = t.lr;
  training.adam = t.adam;
  if (t.steps > 0) train(t.steps, 1e9);
  // The scenario shown was edited after training (or trained further than a link holds):
  // keep it as it was, with the section's task and settings but no curve to show.
  if (scenario::to_json(document()) != scenario::to_json(shown)) {
    set_scenario(shown);
    training.task = t.task;
    training.seed = static_cast<uint64_t>(t.seed);
    training.lr = t.lr;
    training.adam = t.adam;
  }
  loads = loads_before + 1;
}

attn::Status AppState::load_task(const std::string& name, uint64_t seed) {
  const scenario::TaskInfo* info = scenario::find_task(name);  // (name may be training.task)
  const scenario::TaskResult t = scenario::make_task(name, seed);
  if (!t.ok()) return attn::Status{t.error};
  const attn::Status st = set_scenario(t.scenario);
  if (!st.ok()) return st;
  // The task's recipe: Adam at its rate (scenario/tasks.h); the learner's speed stays.
  const int speed = training.speed;
  training = Training{};
  training.speed = speed;
  training.task = info->name;
  training.seed = seed;
  training.lr = static_cast<float>(info->lr);
  return st;
}

void AppState::reset_training() {
  const bool keep_playing = false;
  if (!training.task.empty() && !reset_lesson_weights()) {
    load_task(training.task, training.seed);
  } else if (training.task.empty()) {
    training.optimizer = attn::Optimizer{};
    training.losses.clear();
    training.phase = scenario::PhaseChange{};
    training.error.clear();
  }
  training.playing = keep_playing;
}

bool AppState::reset_lesson_weights() {
  // Only a learned lesson as loaded from its task (not after another task or seed was chosen).
  if (preset < 0 || scenario.trained_from_task != training.task ||
      scenario.trained_from_seed != training.seed)
    return false;
  // The task's random start on all its items (the lesson keeps the first few: on those alone
  // Train would fit the outputs without finding the alignment), inside the lesson: its place,
  // title, notes and questions, which speak of those first items.
  const scenario::Scenario lesson = document();
  const int was_preset = preset;
  if (!load_task(training.task, training.seed).ok()) return false;
  const auto keep_lesson = [&lesson](scenario::Scenario* s) {
    s->title = lesson.title;
    s->description = lesson.description;
    s->tour = lesson.tour;
    s->quiz = lesson.quiz;
    s->read_title = lesson.read_title;
    s->read_url = lesson.read_url;
    s->trained_from_task = lesson.trained_from_task;
    s->trained_from_seed = lesson.trained_from_seed;
  };
  keep_lesson(&scenario);
  if (layered()) keep_lesson(&whole);  // a stack's lesson: the texts the layers show
  questions_ = lesson.quiz;
  fit_questions();
  replies.assign(quiz().size(), QuizReply{});
  preset = was_preset;
  edited = true;  // its notes speak of the learned weights
  emit("view");
  return true;
}

void AppState::play_training(double dt, double budget_ms) {
  if (!training.playing) return;
  int steps = 1000;  // at full speed: what fits in the budget
  if (training.speed > 0) {
    training.clock += dt;
    steps = static_cast<int>(training.clock * training.speed);
    if (steps < 1) return;
  }
  training.converged = false;
  training.finished = false;
  // A learned lesson's task stops where the lesson's weights were trained (once: from there on
  // Train goes on).
  const int goal = training_goal(), done = static_cast<int>(training.losses.size());
  if (goal > done) steps = std::min(steps, goal - done);
  const int taken = train(steps, budget_ms, /*stop_when_converged=*/true);
  if (training.speed > 0) {
    training.clock -= static_cast<double>(taken) / training.speed;
    // What the budget cut off is dropped, not caught up on later.
    training.clock = std::min(training.clock, 1.0 / training.speed);
  }
  if (goal > done && static_cast<int>(training.losses.size()) >= goal) training.finished = true;
  if (training.converged || training.finished) training.playing = false;
}

int AppState::training_goal() const {
  if (training.task.empty() || scenario.trained_from_task != training.task) return 0;
  const scenario::TaskInfo* info = scenario::find_task(training.task);
  return info ? info->steps : 0;
}

const char* AppState::speed_name(int speed) {
  return speed == kSlowSteps ? "slow" : speed == kSteadySteps ? "steady" : "fast";
}

bool AppState::speed_from_name(const std::string& name, int* speed) {
  if (name == "slow")
    *speed = kSlowSteps;
  else if (name == "steady")
    *speed = kSteadySteps;
  else if (name == "fast")
    *speed = 0;
  else
    return false;
  return true;
}

int AppState::train(int steps, double budget_ms, bool stop_when_converged) {
  recompute_if_needed();
  training.error.clear();
  if (!runs()) {
    training.error = error;
    training.playing = false;
    return 0;
  }
  if (!has_target()) {
    training.error = "target: the scenario has none (give \"target\", or load a toy task)";
    training.playing = false;
    return 0;
  }
  // The core's refusal, in the page's words: they name the box that lifts it.
  if (attn::gradient_refusal(problem) == attn::GradientRefusal::kHardWithoutEstimator) {
    training.error =
        T("hard: the argmax has no gradient. Tick \"train it straight through\" under "
          "\"hard attention\" to train through it.");
    training.playing = false;
    return 0;
  }
  attn::Optimizer& opt = training.optimizer;
  opt.kind = training.adam ? attn::Optimizer::Kind::kAdam : attn::Optimizer::Kind::kSgd;
  opt.lr = training.lr;
  if (layered()) {  // every layer, embed and unembed at once (the stack's weights)
    attn::Stack st = stack;
    const int taken = take_steps(steps, budget_ms, stop_when_converged, [&](double* loss) {
      // With "batches", step k trains on the task's batch k, as attention-cli train does.
      if (!whole.batches_task.empty()) {
        scenario::TaskBatch b = scenario::task_batch(whole.batches_task, whole.batches_seed,
                                                     training.losses.size() + 1);
        st.tokens.ids = std::move(b.ids);
        st.tokens.next = std::move(b.next);
      }
      return opt.step(&st, whole.target, loss);
    });
    if (taken > 0) show_trained_stack(st);
    return taken;
  }
  attn::Problem p = problem;
  const int taken = take_steps(steps, budget_ms, stop_when_converged,
                               [&](double* loss) { return opt.step(&p, scenario.target, loss); });
  if (taken > 0) {
    scenario::set_weights(&scenario, p.weights);
    dirty_ = true;  // not changed(): training is not an edit of the lesson
    recompute_if_needed();
    emit("training");  // the page writes its link once training pauses
  }
  return taken;
}

int AppState::take_steps(int steps, double budget_ms, bool stop_when_converged,
                         const std::function<attn::Status(double*)>& step) {
  const auto t0 = std::chrono::steady_clock::now();
  int taken = 0;
  double prev = training.losses.empty() ? HUGE_VAL : training.losses.back();
  while (taken < steps) {
    double loss = 0.0;
    const attn::Status st = step(&loss);
    if (!st.ok()) {
      training.error = st.error;
      training.playing = false;
      break;
    }
    training.losses.push_back(static_cast<float>(loss));
    ++taken;
    // The step whose loss before it first fell below the mark is the last: the same step
    // however the steps fall into frames.
    if (stop_when_converged && prev >= kConvergedLoss && loss < kConvergedLoss) {
      training.converged = true;
      break;
    }
    prev = loss;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms >= budget_ms) break;
  }
  const scenario::TaskInfo* info = scenario::find_task(training.task);
  if (taken > 0 && info && info->phase_change)
    training.phase = scenario::induction_phase_change(training.losses);
  return taken;
}

const scenario::TaskCheck* AppState::task_check() {
  const scenario::TaskInfo* info = scenario::find_task(training.task);
  if (!info) return nullptr;
  recompute_if_needed();
  if (!runs() || lean) return nullptr;  // a task's trace is small: never lean
  if (info->layered != layered()) return nullptr;
  if (training.check_revision != revision && info->layered) {
    const scenario::StackTaskCheck c = scenario::check_stack_task(*info, whole, stack);
    training.check = scenario::TaskCheck{c.loss, c.value, c.passed, c.text};
    training.check_revision = revision;
  } else if (training.check_revision != revision) {
    training.check = scenario::check_task(*info, scenario, trace);
    training.check_revision = revision;
  }
  return &training.check;
}

bool AppState::cell_gradient(const CellRef& c, double* out) {
  recompute_if_needed();
  if (scenario.target.empty() || !runs() || lean) return false;
  if (grads_revision_ != revision) {
    grads_revision_ = revision;
    grads_ok_ = attn::gradients(problem, scenario.target, &grads_).ok();
  }
  if (!grads_ok_) return false;
  const attn::Gradients& g = grads_;
  const auto at = [&](const attn::MatrixD& m) {
    if (c.row >= m.rows() || c.col >= m.cols()) return false;
    *out = m(c.row, c.col);
    return true;
  };
  const auto input = [&](const attn::BatchD& x) {
    if (c.batch >= static_cast<int>(x.size())) return false;
    attn::MatrixD sum = x[c.batch];
    if (scenario.self_attention)  // x is the queries, the keys and the values at once
      sum = g.queries[c.batch] + g.keys[c.batch] + g.values[c.batch];
    return at(sum);
  };
  if (matrix_info(c.kind).role == MatrixRole::kWeight) {
    const attn::MatrixD* w = attn::weight_matrix(g, matrix_info(c.kind).id);
    return w && at(*w);
  }
  switch (c.kind) {
    case MatrixKind::kQueries:
      return input(g.queries);
    case MatrixKind::kKeys:
      return input(g.keys);
    case MatrixKind::kValues:
      return input(g.values);
    case MatrixKind::kOutput: {  // L = mean((y − t)²): ∂L/∂y = 2(y − t)/N
      if (c.batch >= static_cast<int>(trace.output.size())) return false;
      const attn::Matrix& y = trace.output[c.batch];
      if (c.row >= y.rows() || c.col >= y.cols()) return false;
      double count = 0.0;
      for (const attn::Matrix& m : trace.output) count += static_cast<double>(m.size());
      *out = 2.0 * (static_cast<double>(y(c.row, c.col)) - scenario.target[c.batch](c.row, c.col)) /
             count;
      return true;
    }
    default:  // the steps between, or false for those with no gradient shown
      return step_gradient(c, out);
  }
}

// The steps between (attn::step_gradients, float64), for the head and batch item shown.
bool AppState::step_gradient(const CellRef& c, double* out) {
  const char* step = matrix_info(c.kind).step;
  if (!step) return false;
  const int h = c.head, b = c.batch;
  if (steps_revision_ != revision || steps_head_ != h || steps_batch_ != b) {
    steps_revision_ = revision;
    steps_head_ = h;
    steps_batch_ = b;
    steps_ok_ = attn::step_gradients(problem, trace, scenario.target, h, b, &steps_).ok();
  }
  if (!steps_ok_) return false;
  const attn::StepGradients& g = steps_;
  const attn::MatrixD* m = attn::head_matrix(g, step);
  if (!m || c.row < 0 || c.col < 0 || c.row >= m->rows() || c.col >= m->cols()) return false;
  *out = (*m)(c.row, c.col);
  return std::isfinite(*out);
}

}  // namespace ui
