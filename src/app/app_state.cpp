// The playground's state: presets, scenario changes and the recompute that follows them.
#include "app/app_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "app/controls.h"
#include "app/edits.h"
#include "app/matrices.h"
#include "scenario/tasks.h"

namespace ui {

const char* panel_id(Panel p) {
  switch (p) {
    case Panel::kControls:
      return "controls";
    case Panel::kDetails:
      return "details";
    case Panel::kHeads:
      return "heads";
    case Panel::kPositional:
      return "positional";
    case Panel::kPlane:
      return "plane";
    case Panel::kLesson:
      return "lesson";
    case Panel::kCount:
      break;
  }
  return "";
}

AppState::AppState() {
  for (int i = 0; i < kEmbeddedPresetCount; ++i) {
    scenario::ParseResult r = scenario::parse(kEmbeddedPresets[i].json);
    if (!r.ok()) {
      std::fprintf(stderr, "preset %s: %s\n", kEmbeddedPresets[i].name, r.error.c_str());
      continue;
    }
    presets.push_back(Preset{kEmbeddedPresets[i].name, std::move(r.scenario)});
  }
  if (!presets.empty()) load_preset(0);
}

void AppState::load_preset(int index) {
  if (index < 0 || index >= static_cast<int>(presets.size())) return;
  if (set_scenario(presets[index].scenario).ok()) {
    preset = index;
    batch = 0;
    head = 0;
    emit("lesson");
  }
}

attn::Status AppState::set_scenario(const scenario::Scenario& s) {
  scenario::Resolved r = scenario::resolve(s);
  if (!r.ok()) return attn::Status{r.error};
  return set_parsed(s, std::move(r.problem));
}

attn::Status AppState::set_scenario_json(const std::string& json) {
  scenario::ParseResult r = scenario::parse(json);
  if (!r.ok()) return attn::Status{r.error};
  return set_parsed(std::move(r.scenario), std::move(r.problem));
}

attn::Status AppState::set_parsed(scenario::Scenario s, attn::Problem p) {
  // A lesson note names the controls it asks for (hidden with them): each must exist.
  for (size_t k = 0; k < s.tour.size(); ++k)
    for (size_t j = 0; j < s.tour[k].controls.size(); ++j)
      if (!hide_id_known(s.tour[k].controls[j]))
        return attn::Status{"tour[" + std::to_string(k) + "].controls[" + std::to_string(j) +
                            "]: no control \"" + s.tour[k].controls[j] + "\""};
  const attn::Status fits = within_budget(p);
  if (!fits.ok()) return fits;
  scenario = std::move(s);
  preset = -1;
  edited = false;
  Training fresh;  // a new start, with the learner's rate and optimizer
  fresh.lr = training.lr;
  fresh.adam = training.adam;
  if (const scenario::TaskInfo* t = scenario::find_task(scenario.trained_from_task)) {
    // A learned lesson: its task, so that Train goes on from it and Reset starts it over.
    fresh.task = t->name;
    fresh.seed = scenario.trained_from_seed;
    fresh.lr = static_cast<float>(t->lr);
  }
  training = std::move(fresh);
  replies.assign(scenario.quiz.size(), QuizReply{});
  ++loads;
  recompute(std::move(p), slice_ms);
  return attn::Status{};
}

void AppState::recompute_in_parts(double budget_ms) {
  if (dirty_)
    recompute_edited(budget_ms);
  else if (computing())
    go_on_computing(budget_ms);
}

void AppState::recompute_if_needed() {
  if (dirty_) recompute_edited(0.0);
  while (job_) go_on_computing(0.0);
}

void AppState::recompute_edited(double budget_ms) {
  dirty_ = false;
  scenario::fit_to_shapes(&scenario);  // an edit may have taken a question's cell away
  scenario::Resolved r = scenario::resolve(scenario);
  error = r.ok() ? within_budget(r.problem).error : r.error;
  if (error.empty()) recompute(std::move(r.problem), budget_ms);
}

double AppState::computing_progress() const {
  return job_ ? job_->progress() : head_job_ ? head_job_->progress() : 1.0;
}

void AppState::start_head_job() {
  if (!lean || slice_ms <= 0.0 || job_ || trace.heads.empty()) return;
  if (on_demand_head_ == head && on_demand_item_ == batch) return;
  if (head_job_ && head_job_h_ == head && head_job_b_ == batch) return;
  // One head's n × n matrices at a time (memory_needed counts one): the shown one goes first.
  head_job_.reset();
  on_demand_ = attn::HeadTrace{};
  on_demand_head_ = on_demand_item_ = -1;
  head_job_ = std::make_unique<attn::RunJob>(problem, head, batch);
  head_job_h_ = head;
  head_job_b_ = batch;
}

int64_t AppState::memory_needed(const attn::Problem& p) {
  const int64_t n_q = attn::batch_rows(p.queries), n_k = attn::batch_rows(p.keys);
  const bool lean_run = attn::head_matrix_bytes(p) > kLeanBytes;
  attn::RunOptions options;
  options.keep_head_matrices = !lean_run;
  int64_t bytes = attn::trace_bytes(p, options);
  if (lean_run) bytes += 4 * n_q * n_k * static_cast<int64_t>(sizeof(float));  // one head, item
  bytes += n_q * n_k;                                                          // one item's mask
  // The scenario, the problem and the trace share the inputs (attn::Batch; in self-attention
  // queries, keys and values are one batch); an edit gives the scenario a copy of its own
  // until the recompute that follows it.
  int64_t inputs = 0;
  if (!p.queries.shares(p.keys) && !p.queries.shares(p.values))
    inputs += attn::batch_cells(p.queries);
  if (!p.keys.shares(p.values)) inputs += attn::batch_cells(p.keys);
  inputs += attn::batch_cells(p.values);
  return bytes + 2 * inputs * static_cast<int64_t>(sizeof(float));
}

attn::Status AppState::within_budget(const attn::Problem& p) {
  const int64_t bytes = memory_needed(p);
  if (bytes <= kMemoryBudget) return attn::Status{};
  auto mb = [](int64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MB"; };
  return attn::Status{"scenario: batch " + std::to_string(p.queries.size()) + " × " +
                      std::to_string(attn::batch_rows(p.queries)) + " queries × " +
                      std::to_string(attn::batch_rows(p.keys)) + " keys × " +
                      std::to_string(p.heads) + (p.heads == 1 ? " head" : " heads") +
                      " needs about " + mb(bytes) + ", more than the " + mb(kMemoryBudget) +
                      " the playground may use"};
}

void AppState::recompute(attn::Problem p, double budget_ms) {
  job_.reset();  // they read the problem that is replaced here
  head_job_.reset();
  problem = std::move(p);
  batch = std::min(batch, std::max(0, scenario.batch() - 1));
  head = std::min(head, std::max(0, scenario.heads - 1));
  lean = attn::head_matrix_bytes(problem) > kLeanBytes;
  attn::RunOptions options;
  options.keep_head_matrices = !lean;
  // The old matrices go before the new ones are made: the two never need memory together.
  trace = attn::Trace{};
  on_demand_ = attn::HeadTrace{};
  on_demand_head_ = on_demand_item_ = -1;
  mask_.clear();
  mask_item_ = -1;
  error.clear();
  dirty_ = false;
  job_ = std::make_unique<attn::RunJob>(problem, options);
  job_ms_ = 0.0;
  go_on_computing(budget_ms);
}

void AppState::go_on_computing(double budget_ms) {
  if (!job_) {
    if (!head_job_ || !head_job_->advance(budget_ms)) return;
    on_demand_ = attn::HeadTrace{};  // the previous head goes before the next is kept
    on_demand_ = head_job_->take_head();
    on_demand_head_ = head_job_h_;
    on_demand_item_ = head_job_b_;
    head_job_.reset();
    redraw = 2;
    emit("view");
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool done = job_->advance(budget_ms);
  job_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!done) return;
  trace = job_->take();
  job_.reset();
  overflow = first_overflow(*this);
  recompute_ms = job_ms_;
  ++revision;
  redraw = 2;
  emit("scenario");
  start_head_job();
}

const attn::HeadTrace& AppState::head_trace(int h, int b) {
  if (!lean) return trace.heads[h];
  if (on_demand_head_ != h || on_demand_item_ != b) {  // recompute() resets them
    on_demand_ = attn::HeadTrace{};  // free the previous head before computing the next
    if (head_job_ && head_job_h_ == h && head_job_b_ == b) {
      on_demand_ = head_job_->take_head();
    } else {
      head_job_.reset();  // another head's matrices, half made: freed first
      on_demand_ = attn::run_head(problem, h, b);
    }
    head_job_.reset();
    on_demand_head_ = h;
    on_demand_item_ = b;
  }
  return on_demand_;
}

const std::vector<uint8_t>& AppState::mask(int b) {
  if (mask_item_ != b) {  // recompute() resets it
    mask_ = attn::mask_cells(problem.mask, b, attn::batch_rows(problem.queries),
                             attn::batch_rows(problem.keys));
    mask_item_ = b;
  }
  return mask_;
}

void AppState::set_step(int s) {
  s = std::clamp(s, 0, kStepCount - 1);
  if (static_cast<int>(step) == s) return;
  const Step from = step;
  step = static_cast<Step>(s);
  transition = Transition{};
  if (animate && animates(from, step)) transition = Transition{from, step, 0.0, true};
  emit("step");
}

void AppState::set_head(int h) {
  h = std::clamp(h, 0, std::max(0, scenario.heads - 1));
  if (head == h) return;
  head = h;
  start_head_job();
  emit("head");
}

void AppState::set_batch(int b) {
  b = std::clamp(b, 0, std::max(0, scenario.batch() - 1));
  if (batch == b) return;
  batch = b;
  start_head_job();
  emit("view");
}

void AppState::set_language(Lang l) {
  ui::set_language(l);  // the translator's table
  if (lang == l) return;
  lang = l;
  emit("view");
  emit("language");
}

scenario::ViewState AppState::view() const {
  scenario::ViewState v;
  v.step = static_cast<int>(step);
  v.head = head;
  v.batch = batch;
  v.lang = lang == Lang::kZh ? "zh" : "en";
  bool all = true;
  std::vector<std::string> panels;
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p) {
    if (show[p])
      panels.push_back(panel_id(static_cast<Panel>(p)));
    else
      all = false;
  }
  if (!all) v.panels = panels;  // empty means the default: every panel
  v.hidden.assign(hidden.begin(), hidden.end());
  v.embed = embed;
  if (preset >= 0) v.lesson = presets[preset].name;
  v.progress = progress;
  if (!training.task.empty() && training.seed <= scenario::kMaxViewTrainSeed) {
    v.train.task = training.task;
    v.train.seed = static_cast<int>(training.seed);
    v.train.steps =
        static_cast<int>(std::min<size_t>(training.losses.size(), scenario::kMaxViewTrainSteps));
    v.train.lr = training.lr;
    v.train.adam = training.adam;
  }
  return v;
}

void AppState::replay_training(const scenario::TrainState& t) {
  const scenario::Scenario shown = scenario;
  const uint64_t loads_before = loads;
  if (!load_task(t.task, static_cast<uint64_t>(t.seed)).ok()) return;
  training.lr = t.lr;
  training.adam = t.adam;
  if (t.steps > 0) train(t.steps, 1e9);
  // The scenario shown was edited after training (or trained further than a link holds):
  // keep it as it was, with the section's task and settings but no curve to show.
  if (scenario::to_json(scenario) != scenario::to_json(shown)) {
    set_scenario(shown);
    training.task = t.task;
    training.seed = static_cast<uint64_t>(t.seed);
    training.lr = t.lr;
    training.adam = t.adam;
  }
  loads = loads_before + 1;
}

void AppState::apply_view(const scenario::ViewState& v) {
  // First, as it sets the scenario again: the task trained as far as the view says.
  if (!v.train.task.empty() && v.train != view().train) replay_training(v.train);
  set_step(v.step);
  set_head(v.head);
  set_batch(v.batch);
  set_language(v.lang == "zh" ? Lang::kZh : Lang::kEn);
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p)
    show[p] = v.panels.empty() || std::find(v.panels.begin(), v.panels.end(),
                                            panel_id(static_cast<Panel>(p))) != v.panels.end();
  hidden = std::set<std::string>(v.hidden.begin(), v.hidden.end());
  embed = v.embed;
  for (int i = 0; i < static_cast<int>(presets.size()); ++i)
    if (!v.lesson.empty() && presets[i].name == v.lesson) preset = i;
  merge_progress(v.progress);
  emit("view");
}

int AppState::quiz_truth_key(int q) {
  const scenario::QuizAnswer& a = scenario.quiz[q].answer;
  return scenario::argmax_in_row(
      scenario::quiz_matrix(a, head_trace(a.head, a.batch), a.batch, trace.output), a.row);
}

float AppState::quiz_truth_value(int q) {
  const scenario::QuizAnswer& a = scenario.quiz[q].answer;
  return scenario::quiz_matrix(a, head_trace(a.head, a.batch), a.batch, trace.output)(a.row, a.col);
}

std::string AppState::quiz_verdict(int q) {
  const scenario::QuizAnswer& a = scenario.quiz[q].answer;
  char verdict[200];
  if (a.argmax) {
    const std::vector<std::string> keys = key_labels(scenario, a.batch);
    const int truth = quiz_truth_key(q);
    const float w = head_trace(a.head, a.batch).weights[a.batch](a.row, truth);
    std::snprintf(verdict, sizeof verdict, T("The largest weight is on \"%s\" (%.2f)."),
                  truth < static_cast<int>(keys.size()) ? keys[truth].c_str() : "?",
                  static_cast<double>(w));
    // A wrong key: what the learner chose, its weight and its place among the row's weights.
    const int given = q < static_cast<int>(replies.size()) ? replies[q].key : -1;
    const attn::Matrix& row_of = head_trace(a.head, a.batch).weights[a.batch];
    if (given >= 0 && given != truth && given < static_cast<int>(row_of.cols()) &&
        given < static_cast<int>(keys.size())) {
      const float mine = row_of(a.row, given);
      int place = 1;
      for (int j = 0; j < static_cast<int>(row_of.cols()); ++j)
        if (row_of(a.row, j) > mine) ++place;
      char chose[200];
      std::snprintf(chose, sizeof chose,
                    T(" You chose \"%s\": its weight is %.2f, number %d of %d from the top."),
                    keys[given].c_str(), static_cast<double>(mine), place,
                    static_cast<int>(row_of.cols()));
      return std::string(verdict) + chose;
    }
  } else {
    const float given = q < static_cast<int>(replies.size()) ? replies[q].value : 0.0f;
    if (q < static_cast<int>(replies.size()) && replies[q].shown)
      std::snprintf(verdict, sizeof verdict, T("The answer is %.3f."),
                    static_cast<double>(quiz_truth_value(q)));
    else
      std::snprintf(verdict, sizeof verdict, T("The answer is %.3f; you said %.3g."),
                    static_cast<double>(quiz_truth_value(q)), static_cast<double>(given));
  }
  return verdict;
}

bool AppState::quiz_key_holds(int q) {
  const scenario::QuizAnswer& a = scenario.quiz[q].answer;
  return a.argmax ? quiz_truth_key(q) == a.col
                  : std::fabs(quiz_truth_value(q) - a.value) <= a.tolerance;
}

bool AppState::answer_quiz(int q, int key, float value) {
  recompute_if_needed();
  if (q < 0 || q >= static_cast<int>(scenario.quiz.size()) || !runs()) return false;
  replies.resize(scenario.quiz.size());
  QuizReply& r = replies[q];
  const scenario::QuizAnswer& a = scenario.quiz[q].answer;
  r.answered = true;
  if (a.argmax) {
    r.key = key;
    r.correct = key == quiz_truth_key(q);
  } else {
    r.value = value;
    // At least the precision of the two decimals a learner types.
    const float tolerance = std::max(a.tolerance, 0.005f);
    r.correct = std::isfinite(value) && std::fabs(value - quiz_truth_value(q)) <= tolerance;
  }
  const std::string id = lesson_id();
  if (!id.empty()) {
    const bool was_done = lesson_done(id);
    std::string& marks = progress[id];
    if (marks.size() != scenario.quiz.size()) marks.resize(scenario.quiz.size(), '-');
    if (marks[q] == '-') marks[q] = r.correct ? 'r' : 'w';
    if (!was_done && lesson_done(id)) emit("lesson");
  }
  events.push_back("quiz|" + std::to_string(q) + "|" + (r.correct ? "1" : "0"));
  emit("view");  // the link carries the progress
  return true;
}

bool AppState::show_quiz_answer(int q) {
  if (!answer_quiz(q, -1, std::numeric_limits<float>::quiet_NaN())) return false;
  replies[q].shown = true;
  return true;
}

int AppState::open_question() const {
  for (size_t q = 0; q < scenario.quiz.size(); ++q)
    if (scenario.quiz[q].step == static_cast<int>(step) &&
        (q >= replies.size() || !replies[q].answered))
      return static_cast<int>(q);
  return -1;
}

bool AppState::lesson_done(const std::string& id) const {
  const auto it = progress.find(id);
  if (it == progress.end() || it->second.empty()) return false;
  for (const Preset& p : presets)
    if (p.name == id && it->second.size() < p.scenario.quiz.size()) return false;
  return it->second.find('-') == std::string::npos;
}

void AppState::merge_progress(const std::map<std::string, std::string>& marks) {
  for (const auto& entry : marks) {
    const std::string& id = entry.first;
    const std::string& given = entry.second;
    // Only this playground's lessons, so that what the link carries stays valid.
    const bool known = std::any_of(presets.begin(), presets.end(),
                                   [&id](const Preset& p) { return p.name == id; });
    if (!known || !scenario::is_progress_marks(given)) continue;
    std::string& mine = progress[id];
    if (mine.size() < given.size()) mine.resize(given.size(), '-');
    for (size_t i = 0; i < given.size(); ++i)
      if (mine[i] == '-') mine[i] = given[i];
  }
}

attn::Status AppState::load_task(const std::string& name, uint64_t seed) {
  const scenario::TaskInfo* info = scenario::find_task(name);  // (name may be training.task)
  const scenario::TaskResult t = scenario::make_task(name, seed);
  if (!t.ok()) return attn::Status{t.error};
  const attn::Status st = set_scenario(t.scenario);
  if (!st.ok()) return st;
  // The task's recipe: Adam at its rate (scenario/tasks.h).
  training = Training{};
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
  const scenario::Scenario lesson = scenario;
  const int was_preset = preset;
  if (!load_task(training.task, training.seed).ok()) return false;
  scenario.title = lesson.title;
  scenario.description = lesson.description;
  scenario.tour = lesson.tour;
  scenario.quiz = lesson.quiz;
  scenario.read_title = lesson.read_title;
  scenario.read_url = lesson.read_url;
  scenario.trained_from_task = lesson.trained_from_task;
  scenario.trained_from_seed = lesson.trained_from_seed;
  scenario::fit_to_shapes(&scenario);
  replies.assign(scenario.quiz.size(), QuizReply{});
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
  const int taken = train(steps, budget_ms, /*stop_when_converged=*/true);
  if (training.speed > 0) {
    training.clock -= static_cast<double>(taken) / training.speed;
    // What the budget cut off is dropped, not caught up on later.
    training.clock = std::min(training.clock, 1.0 / training.speed);
  }
  if (training.converged) training.playing = false;
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
  if (scenario.target.empty()) {
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
  attn::Problem p = problem;
  const auto t0 = std::chrono::steady_clock::now();
  int taken = 0;
  double prev = training.losses.empty() ? HUGE_VAL : training.losses.back();
  while (taken < steps) {
    double loss = 0.0;
    const attn::Status st = opt.step(&p, scenario.target, &loss);
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
  if (taken > 0) {
    scenario::set_weights(&scenario, p.weights);
    dirty_ = true;  // not changed(): training is not an edit of the lesson
    recompute_if_needed();
    emit("training");  // the page writes its link once training pauses
  }
  return taken;
}

const scenario::TaskCheck* AppState::task_check() {
  const scenario::TaskInfo* info = scenario::find_task(training.task);
  if (!info) return nullptr;
  recompute_if_needed();
  if (!runs() || lean) return nullptr;  // a task's trace is small: never lean
  if (training.check_revision != revision) {
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
  if (c.row >= m->rows() || c.col >= m->cols()) return false;
  *out = (*m)(c.row, c.col);
  return std::isfinite(*out);
}

void AppState::emit(const char* event) {
  if (std::find(events.begin(), events.end(), event) == events.end()) events.push_back(event);
}

}  // namespace ui
