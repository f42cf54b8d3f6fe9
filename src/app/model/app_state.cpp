// The playground's state: presets, scenario changes, the recompute that follows them, the view.
#include "app/model/app_state.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "app/model/controls.h"
#include "app/model/matrices.h"
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

std::string AppState::unknown_tour_control(const scenario::Scenario& s) {
  // A lesson note names the controls it asks for (hidden with them): each must exist.
  for (size_t k = 0; k < s.tour.size(); ++k)
    for (size_t j = 0; j < s.tour[k].controls.size(); ++j)
      if (!hide_id_known(s.tour[k].controls[j]))
        return "tour[" + std::to_string(k) + "].controls[" + std::to_string(j) +
               "]: no control \"" + s.tour[k].controls[j] + "\"";
  return "";
}

attn::Status AppState::set_parsed(scenario::Scenario s, attn::Problem p) {
  if (std::string e = unknown_tour_control(s); !e.empty()) return attn::Status{e};
  // A stack: the page shows one layer at a time (layer_view), the first when it is set.
  scenario::Scenario layers;
  attn::Stack new_stack;
  attn::StackTrace new_trace;
  if (!s.layers.empty()) {
    scenario::Resolved r = scenario::resolve(s);
    if (!r.ok()) return attn::Status{r.error};
    // Every layer's trace is kept (each as large as one layer's), and the layer shown.
    const attn::Problem first = attn::layer_problem(r.stack, 0, attn::stack_input(r.stack));
    const int64_t bytes = memory_needed(first) * (static_cast<int64_t>(s.layers.size()) + 1);
    if (bytes > kMemoryBudget) {
      const attn::Status one = within_budget(first);
      return attn::Status{"layers: " + std::to_string(s.layers.size()) + " layers need about " +
                          std::to_string((bytes + (1 << 20) - 1) >> 20) + " MB, more than the " +
                          std::to_string(kMemoryBudget >> 20) + " MB the playground may use" +
                          (one.ok() ? "" : " (" + one.error + ")")};
    }
    attn::StackTrace t = attn::run(r.stack);
    scenario::Scenario v = layer_view(s, r.stack, t, 0);
    scenario::Resolved rv = scenario::resolve(v);
    if (!rv.ok()) return attn::Status{"layers[0]: " + rv.error};
    layers = std::move(s);
    new_stack = std::move(r.stack);
    new_trace = std::move(t);
    s = std::move(v);
    p = std::move(rv.problem);
  }
  const attn::Status fits = within_budget(p);
  if (!fits.ok()) return fits;
  whole = std::move(layers);
  stack = std::move(new_stack);
  set_stack_trace(std::move(new_trace));
  layer = 0;
  scenario = std::move(s);
  preset = -1;
  edited = false;
  Training fresh;  // a new start, with the learner's rate, optimizer and speed
  fresh.lr = training.lr;
  fresh.adam = training.adam;
  fresh.speed = training.speed;
  if (const scenario::TaskInfo* t = scenario::find_task(scenario.trained_from_task)) {
    // A learned lesson: its task, so that Train goes on from it and Reset starts it over.
    fresh.task = t->name;
    fresh.seed = scenario.trained_from_seed;
    fresh.lr = static_cast<float>(t->lr);
  }
  training = std::move(fresh);
  // Each view's own choice starts over with a new scenario (its queries are others).
  decoder_step = 1;
  hierarchy_question = 1;
  picture_query = 0;
  curve_query = 0;
  plane_query = 0;
  decoder_playing = false;
  decoder_clock = 0.0;
  decoder_training = DecoderTraining{};
  questions_ = scenario.quiz;  // a valid scenario's: every one fits
  question_unfit_.assign(questions_.size(), std::string());
  replies.assign(quiz().size(), QuizReply{});
  ++loads;
  recompute(std::move(p), slice_ms);
  return attn::Status{};
}

void AppState::set_decoder_step(int t) {
  decoder_step = std::clamp(t, 1, std::max(1, decoder_words()));
}

void AppState::note_view_choice() {
  const std::array<int, 5> now = {decoder_step, hierarchy_question, picture_query, curve_query,
                                  plane_query};
  const bool loaded = std::find(events.begin(), events.end(), "scenario") != events.end();
  if (now != view_choice_seen && !loaded && !decoder_training.playing) emit("view");
  view_choice_seen = now;
}

void AppState::play_decoder(double dt) {
  if (!decoder_playing) return;
  const int m = decoder_words();
  if (m == 0 || decoder_step >= m) {
    decoder_playing = false;
    return;
  }
  decoder_clock += dt;
  if (decoder_clock < kDecoderPlaySeconds) return;
  decoder_clock = 0.0;
  set_decoder_step(decoder_step + 1);
  if (decoder_step >= m) decoder_playing = false;  // the last word: the page goes idle
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
  fit_questions();  // an edit may have taken a question's cell away, or given it back
  if (layered()) merge_layer_edit();  // into the stack, which runs again (layer_view)
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
  v.layer = layer;
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

void AppState::apply_view(const scenario::ViewState& v) {
  // First, as it sets the scenario again: the task trained as far as the view says.
  if (!v.train.task.empty() && v.train != view().train) replay_training(v.train);
  set_step(v.step);
  set_layer(v.layer);  // before the head: layers differ in heads
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

void AppState::emit(const char* event) {
  if (std::find(events.begin(), events.end(), event) == events.end()) events.push_back(event);
}

}  // namespace ui
