// The playground's state: presets, scenario changes and the recompute that follows them.
#include "app/app_state.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

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
  if (set_scenario(presets[index].scenario).empty()) {
    preset = index;
    batch = 0;
    head = 0;
  }
}

std::string AppState::set_scenario(const scenario::Scenario& s) {
  const std::string e = scenario::validate(s);
  if (!e.empty()) return e;
  scenario = s;
  preset = -1;
  edited = false;
  batch = std::min(batch, std::max(0, scenario.batch() - 1));
  head = std::min(head, std::max(0, scenario.heads - 1));
  recompute();
  return "";
}

std::string AppState::set_scenario_json(const std::string& json) {
  scenario::ParseResult r = scenario::parse(json);
  if (!r.ok()) return r.error;
  return set_scenario(r.scenario);
}

void AppState::recompute_if_needed() {
  if (!dirty_) return;
  dirty_ = false;
  error = scenario::validate(scenario);
  if (error.empty()) recompute();
}

void AppState::recompute() {
  const auto t0 = std::chrono::steady_clock::now();
  problem = scenario::to_problem(scenario);
  lean = attn::head_matrix_bytes(problem) > kLeanBytes;
  attn::RunOptions options;
  options.keep_head_matrices = !lean;
  trace = attn::run(problem, options);
  on_demand_ = attn::HeadTrace{};
  on_demand_head_ = -1;
  masks.assign(problem.queries.size(), {});
  const int n_q = attn::batch_rows(problem.queries), n_k = attn::batch_rows(problem.keys);
  for (size_t b = 0; b < masks.size(); ++b) {
    masks[b].assign(static_cast<size_t>(n_q) * n_k, 0);
    if (!problem.mask.any()) continue;
    for (int i = 0; i < n_q; ++i) {
      int lo, hi;
      attn::visible_range(problem.mask, static_cast<int>(b), i, n_k, &lo, &hi);
      for (int j = 0; j < n_k; ++j) masks[b][static_cast<size_t>(i) * n_k + j] = j < lo || j >= hi;
    }
    for (const auto& c : problem.mask.cells)
      if (c[0] == static_cast<int>(b)) masks[b][static_cast<size_t>(c[1]) * n_k + c[2]] = 1;
  }
  recompute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  error.clear();
  dirty_ = false;
  ++revision;
  batch = std::min(batch, std::max(0, scenario.batch() - 1));
  head = std::min(head, std::max(0, scenario.heads - 1));
  emit("scenario");
}

const attn::HeadTrace& AppState::head_trace(int h) {
  if (!lean) return trace.heads[h];
  if (on_demand_head_ != h) {        // recompute() resets on_demand_head_
    on_demand_ = attn::HeadTrace{};  // free the previous head before computing the next
    on_demand_ = attn::run_head(problem, h);
    on_demand_head_ = h;
  }
  return on_demand_;
}

void AppState::set_step(int s) {
  s = std::clamp(s, 0, kStepCount - 1);
  if (static_cast<int>(step) == s) return;
  step = static_cast<Step>(s);
  emit("step");
}

void AppState::set_head(int h) {
  h = std::clamp(h, 0, std::max(0, scenario.heads - 1));
  if (head == h) return;
  head = h;
  emit("head");
}

void AppState::emit(const char* event) {
  if (std::find(events.begin(), events.end(), event) == events.end()) events.push_back(event);
}

}  // namespace ui
