// The playground's state: presets, scenario changes, the one recompute per change, the view's
// clamps and events, the masks it draws, and the lean mode of very large scenarios.
//
// [SECTION] Helpers
// [SECTION] Presets
// [SECTION] Scenario changes and recomputes
// [SECTION] The view
// [SECTION] Masks
// [SECTION] Lean mode
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/model/api.h"
#include "app/model/app_state.h"
#include "app/model/controls.h"
#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/text/glossary.h"
#include "core/attention.h"
#include "core/gradient.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

using attn::Matrix;
using scenario::Scenario;

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

using Events = std::vector<std::string>;

bool same(const Scenario& a, const Scenario& b) {
  return scenario::to_json(a) == scenario::to_json(b);
}

// Largest |row sum − 1| over every row of every item.
double worst_row_sum(const attn::Batch& weights) {
  double worst = 0.0;
  for (const Matrix& w : weights)
    for (int i = 0; i < w.rows(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(w.row(i).sum()) - 1.0));
  return worst;
}

// Self-attention, 3 tokens × 4 features, no weights, one head.
const char kSmall[] = R"({"version": 1,
  "x": [[0.5, -1, 0.25, 1], [1, 0.5, -0.5, 0], [-0.25, 0.75, 1, -1]]})";

// Self-attention of n tokens × d features, no weights: big enough to need lean mode.
Scenario big_scenario(int n, int d, int heads) {
  Matrix x(n, d);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) x(i, c) = static_cast<float>(std::sin(0.37 * i + 1.3 * c));
  Scenario s;
  s.self_attention = true;
  s.queries = {x};
  s.keys = s.values = s.queries;
  s.heads = heads;
  return s;
}

// The weights of row i of a head that takes features [c0, c0 + dh) of x, scaled dot product
// without masks, in float64.
std::vector<double> softmax_row(const Matrix& x, int i, int c0, int dh) {
  const int n = static_cast<int>(x.rows());
  std::vector<double> w(n);
  double mx = -1e300, sum = 0.0;
  for (int j = 0; j < n; ++j) {
    double s = 0.0;
    for (int c = c0; c < c0 + dh; ++c) s += static_cast<double>(x(i, c)) * x(j, c);
    w[j] = s / std::sqrt(static_cast<double>(dh));
    mx = std::max(mx, w[j]);
  }
  for (double& v : w) sum += (v = std::exp(v - mx));
  for (double& v : w) v /= sum;
  return w;
}

double worst_row_diff(const Matrix& got, int i, const std::vector<double>& want) {
  double worst = 0.0;
  for (int j = 0; j < got.cols(); ++j)
    worst = std::max(worst, std::fabs(static_cast<double>(got(i, j)) - want[j]));
  return worst;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Presets
//-----------------------------------------------------------------------------

TEST_CASE("every embedded preset parses and the first one is loaded", "[app][state]") {
  const ui::AppState app;
  REQUIRE(ui::kEmbeddedPresetCount > 0);
  REQUIRE(static_cast<int>(app.presets.size()) == ui::kEmbeddedPresetCount);
  std::set<std::string> names;
  for (int i = 0; i < ui::kEmbeddedPresetCount; ++i) {
    CHECK(app.presets[i].name == ui::kEmbeddedPresets[i].name);
    names.insert(app.presets[i].name);
  }
  CHECK(static_cast<int>(names.size()) == ui::kEmbeddedPresetCount);
  CHECK(app.presets[0].name == "why_so_tall");  // the first lesson
  CHECK(app.preset == 0);
  CHECK(app.revision == 1);
  CHECK(app.error == "");
  CHECK(same(app.scenario, app.presets[0].scenario));
}

TEST_CASE("load_preset loads each preset and runs it", "[app][state]") {
  ui::AppState app;
  for (int i = 0; i < static_cast<int>(app.presets.size()); ++i) {
    const Scenario& want = app.presets[i].scenario;
    INFO("preset " << app.presets[i].name);
    app.set_head(99);
    const uint64_t before = app.revision;
    app.load_preset(i);
    CHECK(app.error == "");
    CHECK(app.preset == i);
    CHECK(app.revision == before + 1);
    CHECK(same(app.document(), want));  // a stack's: the whole stack, shown a layer at a time
    CHECK(app.head == 0);
    CHECK(app.batch == 0);
    CHECK_FALSE(app.lean);
    REQUIRE(static_cast<int>(app.trace.heads.size()) == want.heads);
    CHECK(app.problem.heads == want.heads);
    REQUIRE(static_cast<int>(app.trace.output.size()) == want.batch());
    CHECK(app.trace.output[0].rows() == want.n_queries());
    CHECK(app.mask(want.batch() - 1).size() ==
          static_cast<size_t>(want.n_queries()) * want.n_keys());
    for (int h = 0; h < want.heads; ++h) {
      INFO("head " << h);
      CHECK(&app.head_trace(h, 0) == &app.trace.heads[h]);
      CHECK(worst_row_sum(app.trace.heads[h].weights) < 1e-5);
    }
  }
}

TEST_CASE("an edited lesson stays the lesson, edited; a load is counted, an edit is not",
          "[app][state]") {
  ui::AppState app;
  app.load_preset(1);
  const uint64_t loads = app.loads;
  CHECK_FALSE(app.edited);
  // An input cell and a masked cell, as the views edit them: the lesson and its Reset stay.
  ui::set_input(&app.scenario, 'q', 0, 0, 0, 0.5f);
  app.changed();
  ui::toggle_masked_cell(&app.scenario, 0, 0, 0);
  app.changed();
  app.recompute_if_needed();
  CHECK(app.preset == 1);
  CHECK(app.edited);
  CHECK(app.loads == loads);  // the folded sections are not set again on an edit
  app.load_preset(1);
  CHECK_FALSE(app.edited);
  CHECK(app.loads == loads + 1);
  REQUIRE(app.set_scenario_json(R"({"version": 1, "x": [[1, 0]]})").error == "");
  CHECK(app.preset == -1);
  CHECK(app.loads == loads + 2);
}

TEST_CASE("a lesson note that asks for a hidden control is hidden with it", "[app][state]") {
  ui::AppState app;
  scenario::TourStop stop;
  stop.controls = {"valid_lens"};
  CHECK(app.note_shown(stop));
  app.hidden = {"causal"};
  CHECK(app.note_shown(stop));
  app.hidden = {"causal", "valid_lens"};
  CHECK_FALSE(app.note_shown(stop));
  CHECK(app.note_shown(scenario::TourStop{}));  // a note that asks for nothing
  // The padded batch's note on the weights asks to untick "valid lengths".
  bool found = false;
  for (const ui::Preset& p : app.presets)
    for (const scenario::TourStop& t : p.scenario.tour)
      if (p.name == "padded_batch" && t.step == 5)
        found = t.controls == std::vector<std::string>{"valid_lens"};
  CHECK(found);
}

TEST_CASE("load_preset ignores an index out of range", "[app][state]") {
  ui::AppState app;
  app.load_preset(1);
  const uint64_t revision = app.revision;
  const Scenario before = app.scenario;
  app.load_preset(-1);
  app.load_preset(static_cast<int>(app.presets.size()));
  CHECK(app.revision == revision);
  CHECK(app.preset == 1);
  CHECK(same(app.scenario, before));
}

//-----------------------------------------------------------------------------
// [SECTION] Scenario changes and recomputes
//-----------------------------------------------------------------------------

TEST_CASE("set_scenario_json with a good scenario recomputes once", "[app][state]") {
  ui::AppState app;
  app.events.clear();
  const uint64_t revision = app.revision;
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  CHECK(app.revision == revision + 1);
  CHECK(app.preset == -1);
  CHECK(app.events == Events{"scenario"});
  CHECK(app.scenario.n_queries() == 3);
  REQUIRE(app.trace.heads.size() == 1);
  // Row 1 against row 2: (0.5×1 + (−1)×0.5 + 0.25×(−0.5) + 1×0) = −0.125.
  CHECK(std::fabs(app.trace.heads[0].scores[0](0, 1) - (-0.125f)) < 1e-6f);
}

TEST_CASE("set_scenario_json with a bad scenario names the field and changes nothing",
          "[app][state]") {
  struct Bad {
    const char* json;
    const char* field;
  };
  const Bad bad =
      GENERATE(Bad{R"({"version": 1, "x": [[1, 2], [3, 4]], "heads": "two"})", "heads: "},
               Bad{R"({"version": 1, "x": [[1, 2], [3, 4]], "heads": 3})", "heads: "},
               Bad{R"({"version": 1, "x": [[1, 2], [3, 4]], "valid_lens": 5})", "valid_lens: "},
               Bad{R"({"version": 1, "x": [[1, 2], [3, 4]], "scoring": "nope"})", "scoring: "},
               Bad{R"({"version": 1, "x": [[1, 2], [3]]})", "x[1]"},
               Bad{R"({"version": 1, "x": [[1, 2]],)", "json: parse error"},
               // A stack whose second layer's heads do not divide the width.
               Bad{R"({"version": 1, "x": [[1, 2], [3, 4]], "init": {"seed": 1, "d_model": 2},
                       "layers": [{}, {"heads": 3}]})",
                   "layers[1].heads"});
  INFO(bad.json);
  ui::AppState app;
  app.load_preset(2);
  app.events.clear();
  const Scenario before = app.scenario;
  const uint64_t revision = app.revision;
  const Matrix output = app.trace.output[0];
  const std::string error = app.set_scenario_json(bad.json).error;
  CHECK_THAT(error, Catch::StartsWith(bad.field));
  CHECK(same(app.scenario, before));
  CHECK(app.revision == revision);
  CHECK(app.preset == 2);
  CHECK(app.trace.output[0] == output);
  CHECK(app.events.empty());
}

TEST_CASE("changed() recomputes exactly once, at recompute_if_needed", "[app][state]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  const uint64_t r0 = app.revision;
  app.events.clear();

  app.recompute_if_needed();  // nothing changed
  CHECK(app.revision == r0);
  CHECK(app.events.empty());

  app.scenario.temperature = 2.0f;
  app.changed();
  CHECK(app.revision == r0);  // not yet
  app.recompute_if_needed();
  CHECK(app.revision == r0 + 1);
  CHECK(app.events == Events{"scenario"});
  CHECK(app.problem.temperature == 2.0f);
  // Scaled by 1/√4 and by 1/T = 1/2: a quarter of the raw score.
  const attn::HeadTrace& h = app.trace.heads[0];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(std::fabs(h.scaled[0](i, j) - h.scores[0](i, j) / 4) < 1e-6);

  app.recompute_if_needed();  // a second call does nothing
  CHECK(app.revision == r0 + 1);
}

TEST_CASE("an edit that does not validate keeps the last trace and reports why", "[app][state]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  const uint64_t r0 = app.revision;
  const Matrix output = app.trace.output[0];

  app.scenario.heads = 3;  // does not divide 4 features
  app.changed();
  app.recompute_if_needed();
  CHECK_THAT(app.error, Catch::StartsWith("heads: "));
  CHECK(app.revision == r0);
  CHECK(app.problem.heads == 1);
  CHECK(app.trace.output[0] == output);

  app.scenario.heads = 2;
  app.changed();
  app.recompute_if_needed();
  CHECK(app.error == "");
  CHECK(app.revision == r0 + 1);
  CHECK(app.trace.heads.size() == 2);
}

//-----------------------------------------------------------------------------
// [SECTION] The view
//-----------------------------------------------------------------------------

TEST_CASE("set_step clamps to the 8 steps and emits step on a change", "[app][state]") {
  ui::AppState app;
  app.events.clear();
  app.set_step(-3);
  CHECK(static_cast<int>(app.step) == 0);
  CHECK(app.events == Events{"step"});

  app.events.clear();
  app.set_step(0);  // no change, no event
  CHECK(app.events.empty());

  app.set_step(100);
  CHECK(static_cast<int>(app.step) == 7);
  CHECK(app.step == ui::Step::kOutput);
  CHECK(app.events == Events{"step"});

  app.events.clear();
  app.set_step(7);
  CHECK(app.events.empty());
  app.set_step(3);
  CHECK(app.step == ui::Step::kScaled);
  app.set_step(4);
  CHECK(app.events == Events{"step"});  // one event however many changes
}

TEST_CASE("set_head clamps to the scenario's heads", "[app][state]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  REQUIRE(ui::set_heads(&app.scenario, 4).error == "");
  app.changed();
  app.recompute_if_needed();
  REQUIRE(app.error == "");
  app.events.clear();
  app.set_head(9);
  CHECK(app.head == 3);
  CHECK(app.events == Events{"head"});
  app.set_head(-2);
  CHECK(app.head == 0);
  app.events.clear();
  app.set_head(0);
  CHECK(app.events.empty());

  // A scenario with fewer heads clamps the view's head.
  app.set_head(3);
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  CHECK(app.head == 0);
}

TEST_CASE("emit keeps one of each event and panel ids are distinct", "[app][state]") {
  ui::AppState app;
  app.events.clear();
  app.emit("trace");
  app.emit("trace");
  app.emit("head");
  CHECK(app.events == Events{"trace", "head"});

  std::set<std::string> ids;
  for (int p = 0; p < static_cast<int>(ui::Panel::kCount); ++p)
    ids.insert(ui::panel_id(static_cast<ui::Panel>(p)));
  CHECK(ids ==
        std::set<std::string>{"controls", "details", "heads", "positional", "plane", "lesson"});
}

//-----------------------------------------------------------------------------
// [SECTION] Masks
//-----------------------------------------------------------------------------

TEST_CASE("the masks of a causal scenario are j > i", "[app][state]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(R"({"version": 1, "causal": true,
    "x": [[1, 0], [0, 1], [1, 1], [0, 0], [0.5, -0.5]]})")
              .error == "");
  REQUIRE(app.mask(0).size() == 25);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      INFO("cell " << i << "," << j);
      CHECK(app.mask(0)[i * 5 + j] == (j > i ? 1 : 0));
    }
}

TEST_CASE("the masks combine lengths, window and cells, n_q × n_k per item", "[app][state]") {
  ui::AppState app;
  // 3 queries, 4 keys, 2 items.
  REQUIRE(app.set_scenario_json(R"({"version": 1, "scoring": "dot",
    "queries": [[[1, 0], [0, 1], [1, 1]], [[0.5, 0], [0, 0.5], [1, -1]]],
    "keys": [[[1, 0], [0, 1], [1, 1], [0, 0]], [[1, 1], [0, 1], [1, 0], [-1, 0]]],
    "values": [[[1], [2], [3], [4]], [[5], [6], [7], [8]]],
    "valid_lens": [3, 4], "window": 1, "masked_cells": [[1, 0, 0]]})")
              .error == "");
  const int lens[2] = {3, 4};
  for (int b = 0; b < 2; ++b) {
    const std::vector<uint8_t> mask = app.mask(b);
    REQUIRE(mask.size() == 12);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        const bool masked = j >= lens[b] || std::abs(i - j) > 1 || (b == 1 && i == 0 && j == 0);
        INFO("cell " << b << "," << i << "," << j);
        CHECK(mask[i * 4 + j] == (masked ? 1 : 0));
        // The trace agrees: masked cells get no weight, the others some.
        const float w = app.trace.heads[0].weights[b](i, j);
        if (masked) {
          CHECK(w == 0.0f);
        } else {
          CHECK(w > 0.0f);
        }
      }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Lean mode
//-----------------------------------------------------------------------------

TEST_CASE("the table view's description does not finish a computation running in parts",
          "[app][state][lean]") {
  // An event that redraws the table view while a large scenario computes used to finish it
  // at once, holding the page for seconds (the browser's large-scenario check saw it).
  ui::AppState app;
  app.slice_ms = 1e-6;
  REQUIRE(app.set_scenario(big_scenario(700, 16, 2)).error == "");
  REQUIRE(app.computing());
  const double progress = app.computing_progress();
  const nlohmann::json d = nlohmann::json::parse(ui::api::accessible(app, std::nullopt));
  CHECK(app.computing());
  CHECK(app.computing_progress() == progress);
  CHECK(d["computing"].is_number());
  CHECK(d["matrix"].is_null());
  while (app.computing()) app.recompute_in_parts(1.0);
  const nlohmann::json done = nlohmann::json::parse(ui::api::accessible(app, std::nullopt));
  CHECK(done["computing"].is_null());
  CHECK(done["matrix"].is_object());
}

TEST_CASE("a large scenario computes in parts, a frame's each, to the trace computed at once",
          "[app][state][lean]") {
  const Scenario big = big_scenario(700, 16, 2);
  ui::AppState at_once;
  REQUIRE(at_once.set_scenario(big).error == "");
  ui::AppState app;
  app.slice_ms = 1e-6;  // one task (a block of rows) a part
  app.events.clear();
  REQUIRE(app.set_scenario(big).error == "");
  CHECK(app.computing());
  CHECK(app.trace.heads.empty());
  CHECK(app.computing_progress() < 1.0);
  CHECK(std::find(app.events.begin(), app.events.end(), "scenario") == app.events.end());
  int frames = 0;
  double last = 0.0;
  while (app.computing()) {
    app.recompute_in_parts(1e-6);
    CHECK(app.computing_progress() >= last);
    last = app.computing_progress();
    REQUIRE(++frames < 100000);
  }
  // 700 rows in blocks of 64: 11 blocks for each of 2 heads, one a frame at least.
  CHECK(frames >= 22);
  CHECK(std::count(app.events.begin(), app.events.end(), "scenario") == 1);
  REQUIRE(app.trace.output.size() == 1);
  CHECK(app.trace.output[0] == at_once.trace.output[0]);
  CHECK(app.trace.heads[1].weights[0] == at_once.trace.heads[1].weights[0]);
  CHECK(app.revision == at_once.revision);

  // A new scenario while one computes replaces it; a call that reads the trace
  // (recompute_if_needed) finishes it at once.
  REQUIRE(app.set_scenario(big_scenario(650, 16, 1)).error == "");
  CHECK(app.computing());
  REQUIRE(app.set_scenario(big).error == "");
  app.recompute_if_needed();
  CHECK_FALSE(app.computing());
  CHECK(app.trace.heads.size() == 2);
  CHECK(app.trace.output[0] == at_once.trace.output[0]);
}

TEST_CASE("a copy or a move of a state that computes in parts computes the same trace itself",
          "[app][state][lean]") {
  const Scenario big = big_scenario(700, 16, 2);
  ui::AppState at_once;
  REQUIRE(at_once.set_scenario(big).error == "");
  ui::AppState app;
  app.slice_ms = 1e-6;
  REQUIRE(app.set_scenario(big).error == "");
  app.recompute_in_parts(1e-6);
  REQUIRE(app.computing());
  // The job reads the original's problem: a copy does not take it, it starts over.
  ui::AppState copy = app;
  CHECK_FALSE(copy.computing());
  CHECK_FALSE(copy.runs());  // edited: computed when asked
  copy.recompute_if_needed();
  CHECK(copy.runs());
  REQUIRE(copy.trace.output.size() == 1);
  CHECK(copy.trace.output[0] == at_once.trace.output[0]);
  CHECK(copy.trace.heads[1].weights[0] == at_once.trace.heads[1].weights[0]);
  // The original goes on with its own job.
  CHECK(app.computing());
  app.recompute_if_needed();
  CHECK(app.trace.output[0] == at_once.trace.output[0]);
  // Assigned and moved while computing: the same.
  REQUIRE(app.set_scenario(big).error == "");
  REQUIRE(app.computing());
  ui::AppState assigned;
  assigned = app;
  ui::AppState moved = std::move(app);
  for (ui::AppState* s : {&assigned, &moved}) {
    CHECK_FALSE(s->computing());
    s->recompute_if_needed();
    REQUIRE(s->trace.output.size() == 1);
    CHECK(s->trace.output[0] == at_once.trace.output[0]);
  }
}

TEST_CASE("a lean scenario computes its focused head in parts too, and the head it switches to",
          "[app][state][lean]") {
  const Scenario big = big_scenario(1500, 8, 2);  // lean: see the test below
  ui::AppState app;
  app.slice_ms = 1e-6;
  REQUIRE(app.set_scenario(big).error == "");
  const auto finish = [&](int head) {
    int frames = 0;
    while (app.computing()) {
      CHECK(app.computing_head() == (app.trace.heads.empty() ? -1 : head));
      app.recompute_in_parts(1e-6);
      REQUIRE(++frames < 100000);
    }
    return frames;
  };
  // The whole scenario, then head 1 of item 1 (1500 rows: 24 blocks).
  CHECK(finish(0) >= 24);
  REQUIRE(app.lean);
  const attn::HeadTrace want0 = attn::run_head(app.problem, 0, 0);
  const attn::HeadTrace& got0 = app.head_trace(0, 0);
  CHECK(got0.weights[0] == want0.weights[0]);
  CHECK(got0.scores[0] == want0.scores[0]);
  // Another head: in parts again.
  app.set_head(1);
  CHECK(app.computing());
  CHECK(finish(1) >= 24);
  CHECK(app.head_trace(1, 0).output[0] == attn::run_head(app.problem, 1, 0).output[0]);
  // Asked for before its parts are done: finished at once.
  app.set_head(0);
  REQUIRE(app.computing());
  CHECK(app.head_trace(0, 0).weights[0] == want0.weights[0]);
  CHECK_FALSE(app.computing());
}

TEST_CASE("a lean scenario's quiz on batch item 2 reads that item's weights",
          "[app][state][lean]") {
  // 4 matrices × 1 head × 2 items × 1500² cells × 4 bytes = 72,000,000 bytes: lean.
  Scenario big = big_scenario(1500, 8, 1);
  Matrix other = big.queries[0];
  for (int i = 0; i < other.rows(); ++i) other.row(i) *= (i % 3 == 0 ? -1.0f : 0.5f);
  big.queries = {big.queries[0], other};
  big.keys = big.values = big.queries;
  scenario::QuizQuestion q;
  q.step = 5;
  q.ask.en = "Which key?";
  q.why.en = "Because.";
  q.answer.batch = 1;
  q.answer.row = 3;
  big.quiz = {q};
  ui::AppState app;
  REQUIRE(app.set_scenario(big).error == "");
  REQUIRE(app.lean);
  // The truth is the argmax of item 2's row 3, computed apart.
  const attn::HeadTrace want = attn::run_head(app.problem, 0, 1);
  Eigen::Index truth = 0;
  want.weights[1].row(3).maxCoeff(&truth);
  CHECK(app.quiz_truth_key(0) == static_cast<int>(truth));
  CHECK(app.answer_quiz(0, static_cast<int>(truth), 0.0f));
  CHECK(app.quiz_verdict(0).find("The largest weight is on") != std::string::npos);
}

TEST_CASE("a scenario past kLeanBytes keeps outputs only and recomputes a head on demand",
          "[app][state][lean]") {
  // 4 matrices × 2 heads × 1500² cells × 4 bytes = 72,000,000 bytes > 64 MiB = 67,108,864.
  REQUIRE(ui::AppState::kLeanBytes == 67108864);
  const int n = 1500, d = 8;
  ui::AppState app;
  REQUIRE(app.set_scenario(big_scenario(n, d, 2)).error == "");
  const Matrix& x = app.scenario.queries[0];
  CHECK(app.lean);
  REQUIRE(app.trace.heads.size() == 2);
  for (const attn::HeadTrace& h : app.trace.heads) {
    CHECK(h.scores.empty());
    CHECK(h.weights.empty());
  }
  REQUIRE(app.trace.output.size() == 1);
  REQUIRE(app.trace.output[0].rows() == n);
  REQUIRE(app.trace.output[0].cols() == d);

  // Head 2 on demand: its weights, against float64 softmax rows of features 5–8.
  const attn::HeadTrace& h1 = app.head_trace(1, 0);
  REQUIRE(h1.weights.size() == 1);
  REQUIRE(h1.weights[0].rows() == n);
  REQUIRE(h1.weights[0].cols() == n);
  for (int i : {0, 777, n - 1}) {
    INFO("row " << i);
    CHECK(worst_row_diff(h1.weights[0], i, softmax_row(x, i, 4, 4)) < 1e-5);
  }
  CHECK(worst_row_sum(h1.weights) < 1e-5);
  // No W_o: the output is the heads side by side, head 2 in columns 5–8.
  CHECK((h1.output[0] - app.trace.output[0].middleCols(4, 4)).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK(&app.head_trace(1, 0) == &h1);  // kept until another head, item or revision

  // The same as a full run that keeps every matrix.
  {
    const attn::Trace full = attn::run(app.problem);
    CHECK(full.heads[1].weights[0] == h1.weights[0]);
    CHECK(full.heads[1].scores[0] == h1.scores[0]);
  }

  // Another head replaces it.
  const attn::HeadTrace& h0 = app.head_trace(0, 0);
  CHECK(worst_row_diff(h0.weights[0], 5, softmax_row(x, 5, 0, 4)) < 1e-5);
  CHECK((h0.output[0] - app.trace.output[0].leftCols(4)).cwiseAbs().maxCoeff() < 1e-5f);

  // After an edit, the head on demand follows the new inputs.
  ui::set_input(&app.scenario, 'x', 0, 0, 0, 5.0f);
  app.changed();
  app.recompute_if_needed();
  REQUIRE(app.error == "");
  CHECK(app.lean);
  const attn::HeadTrace& again = app.head_trace(0, 0);
  CHECK(again.q[0](0, 0) == 5.0f);
  CHECK(worst_row_diff(again.weights[0], 0, softmax_row(app.scenario.queries[0], 0, 0, 4)) < 1e-5);
}

TEST_CASE("a scenario just under kLeanBytes keeps every matrix", "[app][state][lean]") {
  // 4 × 2 heads × 1400² × 4 bytes = 62,720,000 bytes < 64 MiB.
  ui::AppState app;
  REQUIRE(app.set_scenario(big_scenario(1400, 8, 2)).error == "");
  CHECK_FALSE(app.lean);
  REQUIRE(app.trace.heads.size() == 2);
  CHECK(app.trace.heads[1].weights.size() == 1);
  CHECK(&app.head_trace(1, 0) == &app.trace.heads[1]);
}

//-----------------------------------------------------------------------------
// [SECTION] The memory budget
//-----------------------------------------------------------------------------

TEST_CASE("a scenario that lean mode can show is accepted, and each batch item is drawn alone",
          "[app][state][memory]") {
  // The page that once went blank: 4 sequences of 4096 one-number tokens. Every head's
  // matrices of every item would take 1 GiB; one item's take 256 MiB, within the budget.
  Scenario s;
  s.self_attention = true;
  s.queries.assign(4, Matrix::Zero(4096, 1));
  s.keys = s.values = s.queries;
  ui::AppState app;
  REQUIRE(app.set_scenario(s).error == "");
  CHECK(app.lean);
  CHECK(ui::AppState::memory_needed(app.problem) <= ui::AppState::kMemoryBudget);
  app.set_batch(3);
  const attn::HeadTrace& ht = app.head_trace(0, 3);
  REQUIRE(ht.weights[3].rows() == 4096);
  CHECK(ht.weights[0].size() == 0);                     // the other items are not computed
  CHECK(ht.weights[3](4095, 0) == Approx(1.0 / 4096));  // equal scores: uniform weights
  CHECK(app.mask(3).size() == size_t{4096} * 4096);
}

TEST_CASE("a scenario over the memory budget is refused with its sizes, and nothing changes",
          "[app][state][memory]") {
  // 4096 tokens of 1024 features and their 1024-wide projections: the inputs (one copy, shared
  // by the scenario, the problem and the trace, and room for an edit's), the projections, the
  // eight heads' slices and outputs, and one head's matrices of one item come to more than the
  // budget.
  Scenario big;
  big.self_attention = true;
  big.queries.assign(1, Matrix::Zero(4096, 1024));
  big.keys = big.values = big.queries;
  ui::set_projections(&big, true);
  big.heads = 8;
  ui::AppState app;
  const Scenario before = app.scenario;
  const uint64_t revision = app.revision;
  const std::string error = app.set_scenario(big).error;
  CHECK_THAT(error, Catch::StartsWith("scenario: batch 1 × 4096 queries × 4096 keys × 8 heads "
                                      "needs about "));
  CHECK_THAT(error, Catch::EndsWith(" MB, more than the 384 MB the playground may use"));
  CHECK(app.revision == revision);
  CHECK(same(app.scenario, before));
  // The same from an edit: the last trace stays, and the reason is shown.
  REQUIRE(app.set_scenario_json(kSmall).error == "");
  const uint64_t small = app.revision;
  ui::resize_tokens(&app.scenario, 4096, 4096);
  ui::resize_features(&app.scenario, 1024);
  ui::set_projections(&app.scenario, true);  // and 1024-wide projections of them
  ui::set_d_model(&app.scenario, 1024);
  app.scenario.heads = 8;
  app.changed();
  app.recompute_if_needed();
  CHECK_THAT(app.error, Catch::StartsWith("scenario: batch 1 × 4096 queries"));
  CHECK(app.revision == small);
  CHECK(app.trace.output[0].rows() == 3);
}

TEST_CASE("a lesson's questions are checked against the core, and progress is kept and merged",
          "[app][state][quiz]") {
  ui::AppState app;
  int cross = -1;
  for (int i = 0; i < static_cast<int>(app.presets.size()); ++i)
    if (app.presets[i].name == "cross_attention") cross = i;
  REQUIRE(cross >= 0);
  app.load_preset(cross);
  app.events.clear();
  REQUIRE(app.scenario.quiz.size() == 2);
  CHECK(app.lesson_id() == "cross_attention");
  CHECK_FALSE(app.lesson_done("cross_attention"));
  // Question 1: which key does "chat" attend to most? "cat" (key 1), from the core's weights.
  CHECK(app.quiz_truth_key(0) == 1);
  REQUIRE(app.answer_quiz(0, 2, 0.0f));  // "sleeps": wrong
  CHECK(app.replies[0].answered);
  CHECK_FALSE(app.replies[0].correct);
  CHECK(app.progress["cross_attention"] == "w-");
  CHECK(std::find(app.events.begin(), app.events.end(), "quiz|0|0") != app.events.end());
  // Asked again and answered right: shown as right, but the first answer is what counts.
  REQUIRE(app.answer_quiz(0, 1, 0.0f));
  CHECK(app.replies[0].correct);
  CHECK(app.progress["cross_attention"] == "w-");
  // Question 2: a value, within the question's tolerance of the core's 0.677.
  CHECK(app.quiz_truth_value(1) == Approx(0.677f).margin(0.001));
  REQUIRE(app.answer_quiz(1, -1, 0.7f));
  CHECK(app.replies[1].correct);
  REQUIRE(app.answer_quiz(1, -1, 0.5f));
  CHECK_FALSE(app.replies[1].correct);
  CHECK(app.progress["cross_attention"] == "wr");
  CHECK(app.lesson_done("cross_attention"));
  CHECK(std::find(app.events.begin(), app.events.end(), "lesson") != app.events.end());
  CHECK_FALSE(app.answer_quiz(2, 0, 0.0f));  // no third question

  // The view carries the marks; merging keeps answers given and ignores unknown lessons.
  CHECK(app.view().progress == std::map<std::string, std::string>{{"cross_attention", "wr"}});
  app.merge_progress(
      {{"cross_attention", "rr"}, {"why_so_tall", "r"}, {"no_such", "r"}, {"toy_2d", "bad"}});
  CHECK(app.progress["cross_attention"] == "wr");
  CHECK(app.progress["why_so_tall"] == "r");
  CHECK(app.progress.count("no_such") == 0);
  CHECK(app.progress.count("toy_2d") == 0);
  // why_so_tall asks two questions: one answer is not the lesson done; the second adds to it.
  CHECK_FALSE(app.lesson_done("why_so_tall"));
  app.merge_progress({{"why_so_tall", "ww"}});
  CHECK(app.progress["why_so_tall"] == "rw");
  CHECK(app.lesson_done("why_so_tall"));

  // A new scenario clears what this screen shows, not the progress.
  app.load_preset(cross);
  CHECK_FALSE(app.replies[0].answered);
  CHECK(app.progress["cross_attention"] == "wr");
}

TEST_CASE("an open question hides what answers it until it is answered or shown",
          "[app][state][quiz]") {
  ui::AppState app;
  REQUIRE(ui::api::load_preset(app, "cross_attention"));
  const scenario::QuizQuestion& q0 = app.scenario.quiz[0];
  REQUIRE(q0.answer.argmax);
  app.set_step(q0.step);
  REQUIRE(app.open_question() == 0);
  using K = ui::MatrixKind;
  // A key question: every matrix that ranks the keys; not the inputs, Q or K.
  for (K k : {K::kScores, K::kScaled, K::kMasked, K::kWeights}) CHECK(ui::answer_hidden(app, k));
  for (K k : {K::kQueries, K::kQ, K::kK, K::kV, K::kOutput}) CHECK_FALSE(ui::answer_hidden(app, k));
  // The table view reads "?" and no note, and no arithmetic of a hidden cell.
  nlohmann::json j = nlohmann::json::parse(ui::api::accessible(app, std::nullopt));
  CHECK(j["note"] == "");
  if (!j["matrix"].is_null() && ui::answer_hidden(app, ui::step_matrix(app.step))) {
    CHECK(j["matrix"]["cells"][0][0].get<std::string>().rfind("?", 0) == 0);
    CHECK(j["matrix"].contains("hidden"));
  }
  j = nlohmann::json::parse(
      ui::api::accessible(app, ui::CellRef{K::kWeights, 0, q0.answer.batch, q0.answer.row, 0}));
  CHECK(j["cell"].is_null());
  // A wrong key: the verdict names what was chosen, its weight and its place.
  const int truth = app.quiz_truth_key(0);
  const int wrong = truth == 0 ? 1 : 0;
  REQUIRE(app.answer_quiz(0, wrong, 0.0f));
  CHECK(app.open_question() == -1);
  CHECK_FALSE(ui::answer_hidden(app, K::kWeights));
  const std::vector<std::string> keys = ui::key_labels(app.scenario, q0.answer.batch);
  const std::string verdict = app.quiz_verdict(0);
  CHECK(verdict.find("You chose \"" + keys[wrong] + "\"") != std::string::npos);
  CHECK(verdict.find(" of " + std::to_string(keys.size()) + " from the top") != std::string::npos);
  j = nlohmann::json::parse(ui::api::accessible(app, std::nullopt));
  CHECK(j["note"] != "");
  // "Show me the answer" on a value question: recorded as not right, the answer given.
  app.set_step(app.scenario.quiz[1].step);
  REQUIRE(app.open_question() == 1);
  REQUIRE(app.show_quiz_answer(1));
  CHECK(app.replies[1].shown);
  CHECK_FALSE(app.replies[1].correct);
  CHECK(app.progress["cross_attention"] == "ww");
  CHECK(app.quiz_verdict(1).find("The answer is") == 0);
  CHECK(app.open_question() == -1);
  // Through the API: {"show": true}, and nothing else with it.
  REQUIRE(ui::api::load_preset(app, "cross_attention"));
  const nlohmann::json shown =
      nlohmann::json::parse(ui::api::answer_quiz(app, 0, R"({"show": true})"));
  CHECK(shown["correct"] == false);
  CHECK(shown["key"] == truth);
  const nlohmann::json bad =
      nlohmann::json::parse(ui::api::answer_quiz(app, 1, R"({"show": true, "value": 1})"));
  CHECK(bad["error"].get<std::string>().find("answer:") == 0);
  // "Ask me again": the question is open again (its matrix hidden), its first mark stays.
  const std::string marks = app.progress["cross_attention"];
  app.set_step(app.scenario.quiz[0].step);
  CHECK(app.open_question() == -1);
  const nlohmann::json again =
      nlohmann::json::parse(ui::api::answer_quiz(app, 0, R"({"again": true})"));
  CHECK(again["again"] == true);
  CHECK_FALSE(app.replies[0].answered);
  CHECK(app.open_question() == 0);
  CHECK(app.progress["cross_attention"] == marks);
  CHECK(nlohmann::json::parse(ui::api::answer_quiz(app, 0, R"({"again": 1})"))["error"]
            .get<std::string>()
            .find("answer:") == 0);
}

TEST_CASE("every lesson asks a question, and its answer key agrees with the core",
          "[app][state][quiz]") {
  ui::AppState app;
  for (int i = 0; i < static_cast<int>(app.presets.size()); ++i) {
    app.load_preset(i);
    INFO(app.presets[i].name);
    CHECK_FALSE(app.quiz().empty());
    for (int q = 0; q < static_cast<int>(app.quiz().size()); ++q) {
      const scenario::QuizAnswer& a = app.quiz()[q].answer;
      if (a.argmax)
        CHECK(app.quiz_truth_key(q) == a.col);
      else
        CHECK(std::fabs(app.quiz_truth_value(q) - a.value) <= a.tolerance);
    }
  }
}

TEST_CASE("every step offers words from the glossary, each entry once", "[app][glossary]") {
  std::set<std::string> ids;
  for (const ui::GlossaryEntry& e : ui::glossary()) {
    CHECK(ids.insert(e.id).second);
    CHECK(std::string(e.text).size() > 40);
  }
  std::set<std::string> used;
  for (int k = 0; k < ui::kStepCount; ++k) {
    const auto words = ui::glossary_for_step(static_cast<ui::Step>(k));
    INFO("step " << k);
    CHECK_FALSE(words.empty());
    for (const ui::GlossaryEntry* e : words) used.insert(e->id);
  }
  CHECK(used == ids);  // no entry is unreachable from the steps
}

TEST_CASE("a lesson's column names label the columns that are the named ones",
          "[app][state][labels]") {
  ui::AppState app;
  app.load_preset(0);  // why_so_tall: no projections, named features and values
  REQUIRE(app.lesson_id() == "why_so_tall");
  using ui::Axis;
  const std::vector<std::string> features = {"height", "school", "food", "games"};
  const std::vector<std::string> values = {"inherited", "nutrition", "habits", "unrelated"};
  CHECK(ui::axis_labels(app, Axis::kInputFeatures, 0, 4) == features);
  CHECK(ui::axis_labels(app, Axis::kQKHeadFeatures, 0, 4) == features);  // Q = X
  CHECK(ui::axis_labels(app, Axis::kValueFeatures, 0, 4) == values);
  CHECK(ui::axis_labels(app, Axis::kHeadFeatures, 0, 4) == values);  // V = values, O mixes them
  CHECK(ui::axis_labels(app, Axis::kOutputFeatures, 0, 4) == values);
  ui::set_language(ui::Lang::kZh);
  CHECK(ui::axis_labels(app, Axis::kInputFeatures, 0, 4)[0] == "身高");
  ui::set_language(ui::Lang::kEn);
  // With learned projections, Q's columns are no longer the named ones.
  for (int i = 0; i < static_cast<int>(app.presets.size()); ++i)
    if (app.presets[i].name == "multi_head") app.load_preset(i);
  CHECK(ui::axis_labels(app, Axis::kQKHeadFeatures, 0, 4) ==
        std::vector<std::string>{"d1", "d2", "d3", "d4"});
}

TEST_CASE(
    "the table view's settings change the scenario as the canvas does, and name their "
    "errors",
    "[app][api][controls]") {
  ui::AppState app;
  app.load_preset(0);
  const nlohmann::json list = nlohmann::json::parse(ui::api::controls(app));
  std::set<std::string> ids;
  for (const auto& c : list) ids.insert(c["id"].get<std::string>());
  for (const char* id : {"step", "scoring", "temperature", "valid_lens", "causal", "window",
                         "mask_value", "projections", "heads", "positional_encoding", "hard"})
    CHECK(ids.count(id) == 1);
  CHECK(ui::api::set_control(app, "scoring", "\"dot\"") == "");
  CHECK(app.scenario.scoring == attn::Scoring::kDot);
  CHECK(ui::api::set_control(app, "causal", "true") == "");
  CHECK(app.scenario.causal);
  CHECK(ui::api::set_control(app, "step", "5") == "");
  CHECK(static_cast<int>(app.step) == 5);
  CHECK(ui::api::set_control(app, "cell", R"({"matrix": "keys", "batch": 0, "row": 1, "col": 2,
                                               "value": 0.25})") == "");
  CHECK(app.scenario.keys[0](1, 2) == 0.25f);
  CHECK(app.runs());
  CHECK(ui::api::set_control(app, "causal", "1") == "causal: must be true or false");
  CHECK(ui::api::set_control(app, "scoring", "\"magic\"")
            .rfind("scoring: must be one of \"dot\"", 0) == 0);
  CHECK(ui::api::set_control(app, "cell", R"({"matrix": "keys", "row": 9, "col": 0,
                                               "value": 1})") ==
        "cell: batch, row or col is outside keys");
  CHECK(ui::api::set_control(app, "zoom", "2") == "id: unknown control \"zoom\"");
  app.hidden.insert("causal");
  CHECK(ui::api::set_control(app, "causal", "false") == "causal: hidden by the page");
  CHECK(app.scenario.causal);
}

TEST_CASE("the Train section learns a toy task in the app as the CLI does", "[app][state][train]") {
  ui::AppState app;
  // The first lesson has no target: training says so and changes nothing.
  CHECK(app.train(5, 1000.0) == 0);
  CHECK(app.training.error.rfind("target:", 0) == 0);
  REQUIRE(app.load_task("previous_token", 3).ok());
  CHECK(app.lesson_id() == "");
  REQUIRE(app.task_check());
  const double before = app.task_check()->value;
  // 400 Adam steps at 0.05, in frames of 50 (as Play takes them).
  int taken = 0;
  while (taken < 400) taken += app.train(50, 1e9);
  CHECK(taken == 400);
  CHECK(app.training.losses.size() == 400);
  CHECK(app.training.losses.back() < 1e-4f * app.training.losses.front());
  CHECK(app.task_check()->value > 0.9);
  CHECK(app.task_check()->passed);
  CHECK(app.task_check()->text.en.find("Head 1 puts 0.9") == 0);
  CHECK(before < 0.5);
  CHECK(app.runs());
  CHECK_FALSE(app.scenario.has_init);  // the learned weights are written out
  // Reset starts over from the same seed: the same first loss.
  const float first = app.training.losses.front();
  app.reset_training();
  CHECK(app.training.losses.empty());
  CHECK(app.train(1, 1e9) == 1);
  CHECK(app.training.losses.front() == first);
  CHECK(app.task_check()->value < 0.5);
}

TEST_CASE("Train plays at its speed and pauses by itself once the weights are trained",
          "[app][state][train]") {
  // Exact step counts need no time limit (a slow machine may take 8 ms for one step).
  const double kNoBudget = 1e9;
  ui::AppState app;
  REQUIRE(app.load_task("translate", 1).ok());
  ui::AppState::Training& tr = app.training;
  CHECK(tr.speed == ui::AppState::kSteadySteps);  // 60 a second: a recipe takes seconds to watch
  CHECK(std::string(ui::AppState::speed_name(tr.speed)) == "steady");
  tr.playing = true;
  app.play_training(0.5, kNoBudget);  // half a second: 30 steps
  CHECK(tr.losses.size() == 30);
  app.play_training(0.01, kNoBudget);  // not yet a step
  CHECK(tr.losses.size() == 30);
  app.play_training(0.01, kNoBudget);  // 0.02 s: one step
  CHECK(tr.losses.size() == 31);
  REQUIRE(ui::api::set_training(app, NAN, "", "slow") == "");
  app.play_training(1.0, kNoBudget);
  CHECK(tr.losses.size() == 41);
  CHECK(ui::api::set_training(app, NAN, "", "warp") ==
        "speed: must be \"slow\", \"steady\" or \"fast\"");
  CHECK(tr.speed == ui::AppState::kSlowSteps);
  // Fast: frames of at most 8 ms until the loss falls below 1e-6, where play stops by itself,
  // long before Adam at the task's rate 0.2 would throw the alignment away (~2000 steps).
  REQUIRE(ui::api::set_control(app, "train_speed", "\"fast\"") == "");
  CHECK(tr.speed == 0);
  for (int frame = 0; frame < 2000 && tr.playing; ++frame) app.play_training(1.0 / 60);
  CHECK_FALSE(tr.playing);
  CHECK(tr.converged);
  CHECK(tr.losses.back() < ui::AppState::kConvergedLoss);
  CHECK(tr.losses.size() < 1500);
  REQUIRE(app.task_check() != nullptr);
  CHECK(app.task_check()->passed);
  // The same step however the steps fall into frames: 6 a frame here.
  ui::AppState other;
  REQUIRE(other.load_task("translate", 1).ok());
  other.training.playing = true;
  for (int frame = 0; frame < 2000 && other.training.playing; ++frame) other.play_training(0.1);
  CHECK(other.training.converged);
  CHECK(other.training.losses.size() == tr.losses.size());
  const nlohmann::json j = nlohmann::json::parse(ui::api::training(app));
  CHECK(j["converged"] == true);
  CHECK(j["speed"] == "fast");
  // Train again: it goes on from there (the loss starts below the mark, so it does not stop).
  REQUIRE(ui::api::set_control(app, "train", "true") == "");
  CHECK_FALSE(tr.converged);
  const size_t steps = tr.losses.size();
  app.play_training(1.0 / 60);
  CHECK(tr.playing);
  CHECK(tr.losses.size() > steps);
}

TEST_CASE("a link carries a trained task: the reader trains it again to the same moment",
          "[app][state][train][link]") {
  ui::AppState app;
  REQUIRE(app.load_task("recall", 2).ok());
  REQUIRE(ui::api::set_training(app, 0.08, "adam") == "");
  int taken = 0;
  while (taken < 120) taken += app.train(40, 1e9);
  const std::string link = ui::api::get_link(app);
  REQUIRE(!link.empty());
  CHECK(app.view().train == scenario::TrainState{"recall", 2, 120, 0.08f, true});

  ui::AppState reader;
  REQUIRE(ui::api::open_link(reader, link) == "");
  CHECK(reader.training.task == "recall");
  CHECK(reader.training.seed == 2);
  CHECK(reader.training.lr == 0.08f);
  CHECK(reader.training.losses == app.training.losses);  // the same curve, step for step
  CHECK(scenario::to_json(reader.scenario) == scenario::to_json(app.scenario));
  // Training on from the link is training on from the moment it was made (Adam's moments too).
  app.train(5, 1e9);
  reader.train(5, 1e9);
  CHECK(reader.training.losses == app.training.losses);
  CHECK(scenario::to_json(reader.scenario) == scenario::to_json(app.scenario));

  // Edited after training: the reader keeps the edit, and the section keeps the task.
  app.scenario.keys.mut(0)(0, 0) = 0.5f;
  app.changed();
  app.recompute_if_needed();
  ui::AppState edited;
  REQUIRE(ui::api::open_link(edited, ui::api::get_link(app)) == "");
  CHECK(scenario::to_json(edited.scenario) == scenario::to_json(app.scenario));
  CHECK(edited.training.task == "recall");
  CHECK(edited.training.losses.empty());

  CHECK(ui::api::set_training(app, 0.0, "") == "lr: must be above 0 and at most 10");
  CHECK(ui::api::set_training(app, NAN, "rmsprop") == "optimizer: must be \"adam\" or \"sgd\"");
  CHECK(ui::api::load_task(app, "sort", 1e6) == "seed: must be a whole number from 0 to 999999");
}

TEST_CASE("a learned lesson trains on from its task, and Reset starts the task over",
          "[app][state][train]") {
  ui::AppState app;
  REQUIRE(ui::api::load_preset(app, "learned_alignment"));
  CHECK(app.training.task == "translate");
  CHECK(app.training.seed == 1);
  CHECK(app.scenario.batch() == 4);
  REQUIRE(app.task_check());
  CHECK(app.task_check()->value > 0.95);  // learned already
  CHECK(app.train(3, 1e9) == 3);          // and it goes on from there, on the lesson's items
  const std::string title = app.scenario.title.en;
  const size_t questions = app.scenario.quiz.size();
  REQUIRE(questions > 0);
  const attn::Batch items = app.scenario.queries;
  app.reset_training();
  // The task's random start on all its items, still the lesson: its title, place, questions.
  CHECK(app.scenario.batch() == 32);
  CHECK(app.task_check()->value < 0.5);
  CHECK(app.scenario.title.en == title);
  CHECK(app.scenario.quiz.size() == questions);
  CHECK(app.lesson_id() == "learned_alignment");
  CHECK(app.training.task == "translate");
  CHECK(app.training.losses.empty());
  for (size_t b = 0; b < items.size(); ++b) CHECK(app.scenario.queries[b] == items[b]);
  // Training from there learns the lesson again, in the recipe's 400 steps.
  CHECK(app.train(400, 1e9) == 400);
  CHECK(app.task_check()->value > 0.9);
  // Another seed chosen in the Train section is the task itself: Reset gives the task.
  REQUIRE(app.load_task("translate", 2).ok());
  app.reset_training();
  CHECK(app.scenario.batch() == 32);
  CHECK(app.lesson_id().empty());
}

TEST_CASE("with a target, a hovered cell has its gradient", "[app][state][train][grad]") {
  ui::AppState app;
  double g = 0.0;
  ui::CellRef c;
  c.kind = ui::MatrixKind::kWq;
  CHECK_FALSE(app.cell_gradient(c, &g));  // the first lesson has no target
  REQUIRE(app.load_task("previous_token", 2).ok());
  attn::Gradients want;
  REQUIRE(attn::gradients(app.problem, app.scenario.target, &want).ok());
  c.row = 3;
  c.col = 5;
  REQUIRE(app.cell_gradient(c, &g));
  CHECK(g == want.W_q(3, 5));
  c.kind = ui::MatrixKind::kQueries;  // x: the sum of its three roles
  c.batch = 1;
  REQUIRE(app.cell_gradient(c, &g));
  CHECK(g == Approx(want.queries[1](3, 5) + want.keys[1](3, 5) + want.values[1](3, 5)));
  c.kind = ui::MatrixKind::kOutput;
  REQUIRE(app.cell_gradient(c, &g));
  const double n = 32.0 * 6 * 12;
  CHECK(g == Approx(2.0 * (app.trace.output[1](3, 5) - app.scenario.target[1](3, 5)) / n));
  // The steps between, against differences of the loss computed from the trace by hand
  // (one head: output = A·V·W_o; the weights come from the softmax of the masked scores).
  const attn::HeadTrace& ht = app.trace.heads[0];
  const int b = 1, i = 2;
  const attn::MatrixD V = ht.v[b].cast<double>(), Wo = app.problem.weights.W_o.cast<double>();
  const auto loss = [&](const attn::MatrixD& A_b) {
    double sum = 0.0, n_all = 0.0;
    for (int item = 0; item < app.scenario.batch(); ++item) {
      const attn::MatrixD y = item == b ? attn::MatrixD(A_b * V * Wo)
                                        : attn::MatrixD(app.trace.output[item].cast<double>());
      sum += (y - app.scenario.target[item].cast<double>()).squaredNorm();
      n_all += static_cast<double>(y.size());
    }
    return sum / n_all;
  };
  const attn::MatrixD A = ht.weights[b].cast<double>();
  const attn::MatrixD M = ht.masked[b].cast<double>();
  const auto softmax_rows = [](const attn::MatrixD& m) {
    attn::MatrixD a = m;
    for (int r = 0; r < a.rows(); ++r) {
      a.row(r) = (m.row(r).array() - m.row(r).maxCoeff()).exp().matrix();
      a.row(r) /= a.row(r).sum();
    }
    return a;
  };
  const double eps = 1e-6;
  for (int j : {0, 1, 4}) {
    INFO("key " << j);
    c.batch = b;
    c.row = i;
    c.col = j;
    attn::MatrixD Ap = A, Am = A;
    Ap(i, j) += eps;
    Am(i, j) -= eps;
    c.kind = ui::MatrixKind::kWeights;
    REQUIRE(app.cell_gradient(c, &g));
    CHECK(g == Approx((loss(Ap) - loss(Am)) / (2 * eps)).margin(1e-9));
    attn::MatrixD Mp = M, Mm = M;
    Mp(i, j) += eps;
    Mm(i, j) -= eps;
    c.kind = ui::MatrixKind::kScaled;
    REQUIRE(app.cell_gradient(c, &g));
    const double fd = (loss(softmax_rows(Mp)) - loss(softmax_rows(Mm))) / (2 * eps);
    CHECK(g == Approx(fd).margin(1e-9));
    c.kind = ui::MatrixKind::kScores;  // scaled = scores / √d
    REQUIRE(app.cell_gradient(c, &g));
    CHECK(g == Approx(fd / std::sqrt(12.0)).margin(1e-9));
  }
}

TEST_CASE("hard attention trains only straight through, a control the table view and Train share",
          "[app][state][controls][train]") {
  ui::AppState app;
  REQUIRE(app.load_task("previous_token", 1).ok());
  CHECK_FALSE(ui::control_shown(app, "hard_straight_through"));  // soft attention: not there
  REQUIRE(ui::api::set_control(app, "hard", "true") == "");
  app.recompute_if_needed();
  REQUIRE(ui::control_shown(app, "hard_straight_through"));
  // Without the estimator Train says what to tick, and takes no step.
  CHECK(app.train(3, 1e9) == 0);
  CHECK(app.training.error.find("train it straight through") != std::string::npos);
  CHECK(app.training.losses.empty());
  REQUIRE(ui::api::set_control(app, "hard_straight_through", "true") == "");
  CHECK(app.scenario.hard_gradient == attn::HardGradient::kStraightThrough);
  app.recompute_if_needed();
  CHECK(app.problem.hard_gradient == attn::HardGradient::kStraightThrough);
  // It trains: the forward stays one-hot, and the loss falls.
  CHECK(app.train(200, 1e9) == 200);
  CHECK(app.training.error == "");
  REQUIRE(app.training.losses.size() == 200);
  CHECK(app.training.losses.back() < app.training.losses.front());
  app.recompute_if_needed();
  for (const attn::Matrix& w : app.trace.heads[0].weights)
    for (int i = 0; i < w.rows(); ++i) CHECK((w.row(i).array() == 1.0f).count() == 1);
  // The link keeps it.
  const std::string json = scenario::to_json(app.scenario);
  CHECK(json.find(R"("hard":{"estimator":"straight_through"})") != std::string::npos);
  CHECK(ui::api::set_control(app, "hard_straight_through", "1") ==
        "hard_straight_through: must be true or false");
}

TEST_CASE(
    "hard attention trains with Gumbel's noise from the controls, as the CLI's optimizer "
    "does, and the link keeps its settings",
    "[app][state][controls][train]") {
  ui::AppState app;
  REQUIRE(app.load_task("previous_token", 1).ok());
  REQUIRE(ui::api::set_control(app, "hard", "true") == "");
  CHECK_FALSE(ui::control_shown(app, "hard_gumbel"));  // only once it trains straight through
  REQUIRE(ui::api::set_control(app, "hard_straight_through", "true") == "");
  REQUIRE(ui::control_shown(app, "hard_gumbel"));
  CHECK_FALSE(ui::control_shown(app, "gumbel_tau"));
  REQUIRE(ui::api::set_control(app, "hard_gumbel", "true") == "");
  CHECK(app.scenario.hard_gradient == attn::HardGradient::kGumbel);
  REQUIRE(ui::control_shown(app, "gumbel_tau"));
  REQUIRE(ui::control_shown(app, "gumbel_soft"));
  CHECK(ui::api::set_control(app, "gumbel_tau", "0.5") == "");
  CHECK(app.scenario.gumbel_tau == 0.5f);
  CHECK(ui::api::set_control(app, "gumbel_tau", "0") != "");  // below its range: refused
  CHECK(app.scenario.gumbel_tau == 0.5f);
  // "straight through" stays ticked with the noise; unticking it drops both.
  CHECK(ui::find_control("hard_straight_through")->read(app) == true);
  app.recompute_if_needed();
  CHECK(app.problem.hard_gradient == attn::HardGradient::kGumbel);
  CHECK(app.problem.gumbel_tau == 0.5f);

  // Trained in the page, step by step, as attn::Optimizer trains the same problem.
  const attn::Problem start = app.problem;
  REQUIRE(app.train(20, 1e9) == 20);
  CHECK(app.training.error == "");
  attn::Problem p = start;
  attn::Optimizer opt;
  opt.kind = attn::Optimizer::Kind::kAdam;
  opt.lr = app.training.lr;
  const attn::Batch target = app.scenario.target;
  for (int k = 0; k < 20; ++k) {
    double loss = 0.0;
    REQUIRE(opt.step(&p, target, &loss).ok());
    CHECK(static_cast<float>(loss) == static_cast<float>(app.training.losses[k]));
  }
  app.recompute_if_needed();
  CHECK(app.problem.weights.W_q == p.weights.W_q);
  // One-hot rows in the forward (soft off).
  for (const attn::Matrix& w : app.trace.heads[0].weights)
    for (int i = 0; i < w.rows(); ++i) CHECK((w.row(i).array() == 1.0f).count() == 1);
  // The link keeps it.
  const std::string json = scenario::to_json(app.scenario);
  CHECK(json.find(R"("estimator":"gumbel")") != std::string::npos);
  CHECK(json.find(R"("tau":0.5)") != std::string::npos);
  REQUIRE(ui::api::set_control(app, "gumbel_soft", "true") == "");
  app.recompute_if_needed();
  CHECK(app.problem.gumbel_soft);
  REQUIRE(ui::api::set_control(app, "hard_straight_through", "false") == "");
  CHECK(app.scenario.hard_gradient == attn::HardGradient::kNone);
  CHECK_FALSE(ui::control_shown(app, "hard_gumbel"));
}

TEST_CASE(
    "a wrong key's verdict counts only the keys the row can attend to, says a masked key is "
    "masked, and names ties",
    "[app][quiz]") {
  // One query; keys k1, k2 equal (a tie), k3 larger, k4 cut off by the valid length.
  const std::string scenario = R"({"version": 1, "queries": [[1, 0]],
    "keys": [[0.5, 0], [0.5, 0], [2, 0], [9, 0]], "values": [[1], [2], [3], [4]],
    "scoring": "dot", "valid_lens": [3],
    "quiz": [{"step": 5, "ask": {"en": "Which key?", "zh": "哪个键？"},
              "why": {"en": "k3.", "zh": "k3。"},
              "answer": {"head": 0, "batch": 0, "row": 0, "key": 2}}]})";
  ui::AppState app;
  REQUIRE(ui::api::set_scenario(app, scenario) == "");
  REQUIRE(app.quiz_truth_key(0) == 2);
  CHECK(app.quiz_key_labels(0) == std::vector<std::string>{"k1", "k2", "k3", "k4"});
  REQUIRE(app.answer_quiz(0, 3, 0.0f));  // the masked key
  CHECK(app.quiz_verdict(0).find("You chose \"k4\": it is masked for this query, so its weight "
                                 "is 0.") != std::string::npos);
  app.replies[0] = ui::AppState::QuizReply{};
  REQUIRE(app.answer_quiz(0, 0, 0.0f));  // k1, tied with k2, below k3: 2nd of the 3 open keys
  CHECK(app.quiz_verdict(0).find("tied with 1 other keys at number 2 of 3 from the top.") !=
        std::string::npos);
}
