// The table of matrices (app/matrices.h): one row per kind, where each matrix is in the trace,
// its labels, ranges and masks, the exports by name; and the view and language in AppState.
//
// [SECTION] The table
// [SECTION] Where each matrix is
// [SECTION] Exports
// [SECTION] The view and the language
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "app/model/app_state.h"
#include "app/model/matrices.h"
#include "app/text/explain.h"
#include "scenario/export.h"
#include "scenario/link.h"

using ui::MatrixKind;

namespace {

// Two heads over d_model 4, a batch of two with valid lengths, projections and W_o.
const char kScenario[] = R"({"version": 1,
  "x": [[[1, 0, 0.5], [0, 1, -0.5], [1, 1, 0]], [[0.5, 0.5, 1], [-1, 0, 0], [0, -1, 1]]],
  "query_tokens": [["a", "b", "c"], ["d", "e", "f"]],
  "init": {"seed": 7, "d_model": 4}, "heads": 2, "valid_lens": [2, 3]})";

ui::AppState loaded(const char* json = kScenario) {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(json).error == "");
  return app;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] The table
//-----------------------------------------------------------------------------

TEST_CASE("the table has one row per kind, in order, with distinct ids", "[app][matrices]") {
  const auto& table = ui::matrix_table();
  REQUIRE(table.size() == static_cast<size_t>(MatrixKind::kOutput) + 1);
  std::set<std::string> ids;
  for (size_t i = 0; i < table.size(); ++i) {
    INFO(table[i].id);
    CHECK(static_cast<size_t>(table[i].kind) == i);
    CHECK(&ui::matrix_info(table[i].kind) == &table[i]);
    CHECK(ui::find_matrix(table[i].id) == &table[i]);
    CHECK(ids.insert(table[i].id).second);
    CHECK(ui::matrix_ids().find(table[i].id) != std::string::npos);
  }
  CHECK(ui::find_matrix("nope") == nullptr);
  CHECK(ui::find_matrix("") == nullptr);
}

TEST_CASE("the table's rules: weights on viridis 0..1, masks on M and W only", "[app][matrices]") {
  for (const ui::MatrixInfo& m : ui::matrix_table()) {
    INFO(m.id);
    const bool weights = m.kind == MatrixKind::kWeights;
    CHECK((m.palette == ui::Palette::kSequential) == weights);
    CHECK((m.range == ui::RangeRule::kWeights) == weights);
    CHECK(m.masked == (weights || m.kind == MatrixKind::kMasked));
  }
  // Every step's matrix is a row; the all-heads grid shows the per-head ones.
  for (int k = 0; k < ui::kStepCount; ++k) {
    const ui::Step step = static_cast<ui::Step>(k);
    const bool per_head = k >= static_cast<int>(ui::Step::kProjections) &&
                          k <= static_cast<int>(ui::Step::kWeightedValues);
    CHECK(ui::matrix_info(ui::step_matrix(step)).per_head == per_head);
  }
}

TEST_CASE("the table's weights and steps are the core's, each named once", "[app][matrices]") {
  // Every weight matrix the core lists is a row whose id is its name (w_v, a vector, is not
  // drawn), and every head step the trace writes is the `step` of exactly one row.
  std::multiset<std::string> weights, steps;
  for (const ui::MatrixInfo& m : ui::matrix_table()) {
    INFO(m.id);
    if (m.role == ui::MatrixRole::kWeight) weights.insert(m.id);
    if (m.step) {
      steps.insert(m.step);
      CHECK(m.per_head);
      CHECK(m.role == ui::MatrixRole::kStep);
    }
  }
  for (const char* name : attn::kWeightNames) {
    INFO(name);
    CHECK(weights.count(name) == (std::string(name) == "w_v" || std::string(name) == "W" ? 0 : 1));
  }
  for (const char* name : attn::kHeadMatrixNames) {
    INFO(name);
    CHECK(steps.count(name) == 1);
  }
  CHECK(weights.size() == 4);
  CHECK(steps.size() == std::size(attn::kHeadMatrixNames));
  // What the roles decide: the inputs are the editable rows, the weights have gradients.
  CHECK(ui::matrix_info(MatrixKind::kKeys).role == ui::MatrixRole::kInput);
  CHECK(ui::matrix_info(MatrixKind::kPositional).role == ui::MatrixRole::kAdded);
  CHECK(ui::matrix_info(MatrixKind::kOutput).role == ui::MatrixRole::kOutput);
}

//-----------------------------------------------------------------------------
// [SECTION] Where each matrix is
//-----------------------------------------------------------------------------

TEST_CASE("matrix_of finds each kind in the trace for a head and batch item", "[app][matrices]") {
  ui::AppState app = loaded();
  const attn::Trace& t = app.trace;
  CHECK(ui::matrix_of(app, MatrixKind::kQueries, 0, 1) == &t.queries[1]);
  CHECK(ui::matrix_of(app, MatrixKind::kWq, 0, 0) == &app.problem.weights.W_q);
  CHECK(ui::matrix_of(app, MatrixKind::kWk, 0, 0) == &app.problem.weights.W_k);
  CHECK(ui::matrix_of(app, MatrixKind::kWv, 0, 0) == &app.problem.weights.W_v);
  CHECK(ui::matrix_of(app, MatrixKind::kWo, 0, 0) == &app.problem.weights.W_o);
  CHECK(ui::matrix_of(app, MatrixKind::kScores, 0, 1) == &t.heads[0].scores[1]);
  CHECK(ui::matrix_of(app, MatrixKind::kMasked, 1, 0) == &t.heads[1].masked[0]);
  CHECK(ui::matrix_of(app, MatrixKind::kQ, 1, 0) == &t.heads[1].q[0]);
  CHECK(ui::matrix_of(app, MatrixKind::kScaled, 1, 1) == &t.heads[1].scaled[1]);
  CHECK(ui::matrix_of(app, MatrixKind::kWeights, 0, 1) == &t.heads[0].weights[1]);
  CHECK(ui::matrix_of(app, MatrixKind::kHeadOutput, 1, 0) == &t.heads[1].output[0]);
  CHECK(ui::matrix_of(app, MatrixKind::kConcat, 0, 1) == &t.concat[1]);
  CHECK(ui::matrix_of(app, MatrixKind::kOutput, 0, 0) == &t.output[0]);
  // What a scenario does not have: positional encoding is off, and without init no W_q.
  CHECK(ui::matrix_of(app, MatrixKind::kPositional, 0, 0) == nullptr);
  ui::AppState plain = loaded(R"({"version": 1, "x": [[1, 0], [0, 1]]})");
  CHECK(ui::matrix_of(plain, MatrixKind::kWq, 0, 0) == nullptr);
  CHECK(ui::matrix_of(plain, MatrixKind::kWo, 0, 0) == nullptr);
}

TEST_CASE("labels, masks and ranges follow the table's axes and rules", "[app][matrices]") {
  ui::AppState app = loaded();
  CHECK(ui::axis_labels(app, ui::Axis::kQueryTokens, 1, 3) ==
        std::vector<std::string>{"d", "e", "f"});
  // Feature columns are named one way: X's, Q's and W_q's columns read alike.
  CHECK(ui::axis_labels(app, ui::Axis::kHeadFeatures, 0, 2) ==
        std::vector<std::string>{"d1", "d2"});
  CHECK(ui::axis_labels(app, ui::Axis::kModelFeatures, 0, 1) == std::vector<std::string>{"d1"});
  CHECK(ui::axis_labels(app, ui::Axis::kInputFeatures, 0, 2) ==
        ui::axis_labels(app, ui::Axis::kHeadFeatures, 0, 2));
  CHECK(ui::matrix_mask(app, MatrixKind::kWeights, 1) == &app.mask(1));
  CHECK(ui::matrix_mask(app, MatrixKind::kScores, 1) == nullptr);
  CHECK(ui::matrix_mask(app, MatrixKind::kMasked, 7) == nullptr);  // no such batch item
  const ui::ValueRange weights = ui::matrix_range(app, MatrixKind::kWeights, 0, 0);
  CHECK((weights.fixed && weights.lo == 0.0f && weights.hi == 1.0f));
  CHECK_FALSE(ui::matrix_range(app, MatrixKind::kWq, 0, 0).fixed);  // a matrix alone
  // Dropout scales survivors above 1, so the weights' range comes from the data.
  ui::AppState dropped = loaded(R"({"version": 1, "x": [[1, 0], [0, 1]], "dropout": {"p": 0.5}})");
  CHECK_FALSE(ui::matrix_range(dropped, MatrixKind::kWeights, 0, 0).fixed);
}

namespace {

// Where v falls on a range, 0 to 1: what picks its colour.
float position(const ui::ValueRange& r, float v) {
  return (v - r.lo) / (r.hi - r.lo);
}

}  // namespace

TEST_CASE("compared matrices share a colour scale: S' = S/√d looks fainter than S",
          "[app][matrices]") {
  // d = 4, so √d = 2; key 3 is masked for the first query (causal).
  ui::AppState app = loaded(R"({"version": 1, "causal": true,
    "x": [[2, 0, 1, 0], [0, 3, 0, 1], [1, 1, -2, 0]]})");
  const attn::HeadTrace& h = app.trace.heads[0];
  const ui::ValueRange s = ui::matrix_range(app, MatrixKind::kScores, 0, 0);
  const ui::ValueRange s2 = ui::matrix_range(app, MatrixKind::kScaled, 0, 0);
  const ui::ValueRange m = ui::matrix_range(app, MatrixKind::kMasked, 0, 0);
  REQUIRE(s.fixed);
  CHECK((s2.fixed && s2.lo == s.lo && s2.hi == s.hi));
  CHECK((m.fixed && m.lo == s.lo && m.hi == s.hi));
  // The largest |score| (x₂·x₂ = 10) spans the scale, symmetric around 0; the mask value
  // -1e6 of M's masked cells stays out of it.
  CHECK(s.hi == 10.0f);
  CHECK(s.lo == -10.0f);
  // The same cell in S and S' maps to different colours, and S' is nearer the middle.
  const float cell = h.scores[0](1, 1), scaled = h.scaled[0](1, 1);
  REQUIRE(scaled == cell / 2.0f);
  CHECK(std::fabs(position(s, cell) - position(s2, scaled)) > 0.2f);
  CHECK(std::fabs(position(s2, scaled) - 0.5f) < std::fabs(position(s, cell) - 0.5f));
  // V and O share one: O, a weighted average of V's rows, is never stronger than V; X, Q and
  // K (compared with each other) another.
  const ui::ValueRange v = ui::matrix_range(app, MatrixKind::kV, 0, 0);
  const ui::ValueRange o = ui::matrix_range(app, MatrixKind::kHeadOutput, 0, 0);
  const ui::ValueRange x = ui::matrix_range(app, MatrixKind::kQueries, 0, 0);
  const ui::ValueRange k = ui::matrix_range(app, MatrixKind::kK, 0, 0);
  CHECK((v.fixed && o.lo == v.lo && o.hi == v.hi));
  CHECK((x.fixed && k.lo == x.lo && k.hi == x.hi));
  CHECK(v.hi == 3.0f);
  CHECK(x.hi == 3.0f);
  {
    // Keys of ones beside values up to 39 (textbook_ones): the keys keep a scale of their own
    // size, not one the values set (where they looked blank).
    ui::AppState ones = loaded(R"({"version": 1, "queries": [[1, 0.5]],
      "keys": [[1, 1], [1, 1], [1, 1]], "values": [[3], [20], [39]]})");
    const ui::ValueRange kk = ui::matrix_range(ones, MatrixKind::kKeys, 0, 0);
    const ui::ValueRange vv = ui::matrix_range(ones, MatrixKind::kValues, 0, 0);
    CHECK(kk.hi == 1.0f);
    CHECK(vv.hi == 39.0f);
  }
  // "Scale each matrix alone": every matrix but the weights from its own values again, and
  // then S and S' of the same cell look alike.
  app.scale_alone = true;
  CHECK_FALSE(ui::matrix_range(app, MatrixKind::kScaled, 0, 0).fixed);
  CHECK_FALSE(ui::matrix_range(app, MatrixKind::kHeadOutput, 0, 0).fixed);
  CHECK(ui::matrix_range(app, MatrixKind::kWeights, 0, 0).fixed);
}

TEST_CASE("a shared scale follows the head, the batch item and every recompute",
          "[app][matrices]") {
  ui::AppState app = loaded();
  const int n = static_cast<int>(app.trace.heads.size());
  REQUIRE(n == 2);
  for (int head = 0; head < n; ++head)
    for (int b = 0; b < 2; ++b) {
      float a = 0.0f;
      for (const attn::Batch* x : {&app.trace.heads[head].scores, &app.trace.heads[head].scaled})
        a = std::max(a, (*x)[b].cwiseAbs().maxCoeff());
      INFO("head " << head << ", batch item " << b);
      CHECK(ui::matrix_range(app, MatrixKind::kScores, head, b).hi == a);
    }
  // A new scenario, a new scale (not the cached one of the old trace).
  REQUIRE(app.set_scenario_json(R"({"version": 1, "x": [[5, 0], [0, 1]]})").error == "");
  CHECK(ui::matrix_range(app, MatrixKind::kScores, 0, 0).hi == 25.0f);
}

//-----------------------------------------------------------------------------
// [SECTION] Exports
//-----------------------------------------------------------------------------

TEST_CASE("every matrix id exports as CSV and JSON, named by id, head and batch item",
          "[app][matrices][export]") {
  ui::AppState app = loaded();
  for (const ui::MatrixInfo& m : ui::matrix_table()) {
    if (m.kind == MatrixKind::kPositional) continue;  // off in this scenario (below)
    INFO(m.id);
    const ui::Export csv = ui::make_export(app, m.id, "csv", 1, 1);
    REQUIRE(csv.error == "");
    CHECK(csv.mime == "text/csv");
    CHECK(csv.filename == std::string(m.id) + (m.per_head ? "_head2" : "") + "_batch2.csv");
    const attn::Matrix* matrix = ui::matrix_of(app, m.kind, 1, 1);
    REQUIRE(matrix);
    // The header row has one cell per column (plus the corner); one line per row.
    size_t lines = 0;
    for (size_t at = csv.data.find("\r\n"); at != std::string::npos;
         at = csv.data.find("\r\n", at + 2))
      ++lines;
    CHECK(lines == static_cast<size_t>(matrix->rows()) + 1);
    const ui::Export json = ui::make_export(app, m.id, "json", 1, 1);
    REQUIRE(json.error == "");
    CHECK(json.mime == "application/json");
    CHECK(json.data.rfind("{\"rows\":", 0) == 0);
  }
  // Rows are labelled as on screen: the tokens of batch item 2.
  CHECK(ui::make_export(app, "weights", "csv", 0, 1).data.find("\r\nd,") != std::string::npos);
}

TEST_CASE(
    "an export in parts writes what make_export does, and keeps its numbers when the "
    "state changes",
    "[app][matrices][export]") {
  for (const ui::MatrixInfo& m : ui::matrix_table()) {
    if (m.kind == MatrixKind::kPositional) continue;  // off in this scenario
    for (const char* format : {"csv", "json"}) {
      INFO(m.id << " as " << format);
      ui::AppState app = loaded();
      const std::string whole = ui::make_export(app, m.id, format, 1, 1).data;
      ui::ExportJob job = ui::start_export(app, m.id, format, 1, 1);
      REQUIRE(job.file.error == "");
      REQUIRE(job.rows() == ui::matrix_of(app, m.kind, 1, 1)->rows());
      std::string parts = ui::next_export_part(&job, 1);  // the head
      parts += ui::next_export_part(&job, 1);             // one row
      // Other numbers everywhere, and the focused head's matrices computed again.
      REQUIRE(app.set_scenario_json(R"({"version": 1,
        "x": [[[2, 1, 0], [0, 3, 1], [1, 2, 2]], [[1, 0, 2], [-2, 1, 0], [1, -1, 3]]],
        "init": {"seed": 8, "d_model": 4}, "heads": 2})")
                  .error == "");
      REQUIRE(ui::make_export(app, m.id, format, 1, 1).data != whole);
      while (!job.done()) parts += ui::next_export_part(&job, 1);
      CHECK(parts == whole);
    }
  }
}

TEST_CASE("an export in parts shares the matrix it writes instead of copying it",
          "[app][matrices][export]") {
  ui::AppState app = loaded();
  ui::ExportJob job = ui::start_export(app, "weights", "csv", 1, 1);
  REQUIRE(job.file.error == "");
  CHECK(job.source.shares(app.trace.heads[1].weights));
  CHECK(&job.matrix() == &app.trace.heads[1].weights[1]);
  job = ui::start_export(app, "queries", "csv", 0, 0);
  CHECK(job.source.shares(app.trace.queries));
  // A weight matrix is not in a batch: the job has a copy of its own.
  job = ui::start_export(app, "W_q", "csv", 0, 0);
  REQUIRE(job.file.error == "");
  CHECK(job.matrix() == app.problem.weights.W_q);
  CHECK(&job.matrix() != &app.problem.weights.W_q);
}

TEST_CASE("make_export: the documents, and errors that name the field", "[app][matrices][export]") {
  ui::AppState app = loaded();
  CHECK(ui::make_export(app, "trace", "", 0, 0).data == scenario::trace_to_json(app.trace));
  CHECK(ui::make_export(app, "scenario", "", 0, 0).data == scenario::to_json(app.scenario));
  CHECK(ui::make_export(app, "numpy", "", 0, 0).filename == "attention_numpy.py");
  CHECK(ui::make_export(app, "pytorch", "", 0, 0).filename == "attention_pytorch.py");
  CHECK(ui::make_export(app, "weights", "xml", 0, 0).error ==
        "format: must be \"csv\" or \"json\"");
  CHECK(ui::make_export(app, "weights", "csv", 2, 0).error == "head: must be from 0 to 1");
  CHECK(ui::make_export(app, "weights", "csv", 0, -1).error == "batch: must be from 0 to 1");
  CHECK_THAT(ui::make_export(app, "bogus", "csv", 0, 0).error,
             Catch::StartsWith("matrix: unknown \"bogus\" (queries, keys, values,"));
  CHECK(ui::make_export(app, "positional", "csv", 0, 0).error ==
        "positional: this scenario has none");
}

//-----------------------------------------------------------------------------
// [SECTION] The view and the language
//-----------------------------------------------------------------------------

TEST_CASE("view() and apply_view() carry the link's view both ways", "[app][state][view]") {
  ui::AppState app = loaded();
  app.set_step(4);
  app.set_head(1);
  app.set_batch(1);
  app.set_language(ui::Lang::kZh);
  app.show[static_cast<int>(ui::Panel::kPlane)] = false;
  app.hidden = {"preset", "seed"};
  app.embed = true;
  const scenario::ViewState v = app.view();
  CHECK(v.step == 4);
  CHECK(v.head == 1);
  CHECK(v.batch == 1);
  CHECK(v.lang == "zh");
  CHECK(v.panels ==
        std::vector<std::string>{"controls", "details", "heads", "positional", "lesson"});
  CHECK(v.hidden == std::vector<std::string>{"preset", "seed"});
  CHECK(v.embed);
  CHECK(v.lesson == "");  // a scenario of its own, not a preset
  CHECK(scenario::validate_view(v, app.scenario).error == "");

  ui::AppState other = loaded();
  other.events.clear();
  other.apply_view(v);
  CHECK(other.view() == v);
  CHECK(other.lang == ui::Lang::kZh);
  CHECK(std::string(ui::language_code()) == "zh");  // T() follows the state's language
  CHECK(std::count(other.events.begin(), other.events.end(), "view") == 1);
  CHECK(std::count(other.events.begin(), other.events.end(), "language") == 1);
  other.set_language(ui::Lang::kEn);
  CHECK(std::string(ui::language_code()) == "en");
}

TEST_CASE("apply_view clamps the head and batch item to the scenario; a lesson is a preset",
          "[app][state][view]") {
  ui::AppState app;
  scenario::ViewState v;
  v.head = 5;
  v.batch = 5;
  v.lesson = "multi_head";
  app.apply_view(v);
  CHECK(app.head == std::max(0, app.scenario.heads - 1));
  CHECK(app.batch == std::max(0, app.scenario.batch() - 1));
  REQUIRE(app.preset >= 0);
  CHECK(app.presets[app.preset].name == "multi_head");
  CHECK(app.view().lesson == "multi_head");
}

TEST_CASE("cell_number prints short numbers and mask values as they are", "[app][explain]") {
  CHECK(ui::cell_number(0.4868f) == "0.49");
  CHECK(ui::cell_number(-0.004f) == "0.00");  // no "−0.00"
  CHECK(ui::cell_number(-0.5f) ==
        "\xe2\x88\x92"
        "0.50");
  CHECK(ui::cell_number(0.0f) == "0.00");
  CHECK(ui::cell_number(12.34f) == "12.3");
  CHECK(ui::cell_number(-1234.0f) ==
        "\xe2\x88\x92"
        "1234");
  CHECK(ui::cell_number(-1e6f) ==
        "\xe2\x88\x92"
        "1e6");
  CHECK(ui::cell_number(-1e9f) ==
        "\xe2\x88\x92"
        "1e9");
  CHECK(ui::cell_number(250000.0f) == "2.5e5");
  CHECK(ui::cell_number(-INFINITY) == "\xe2\x88\x92\xe2\x88\x9e");
  CHECK(ui::cell_number(NAN) == "NaN");
}

TEST_CASE("every scoring of the core's list has a label and a formula", "[app][explain]") {
  std::set<std::string> labels;
  for (attn::Scoring s : attn::kScorings) {
    INFO(attn::scoring_name(s));
    CHECK(labels.insert(ui::scoring_label(s)).second);
    attn::Problem p;
    p.scoring = s;
    p.queries = p.keys = p.values = {attn::Matrix::Ones(2, 2)};
    CHECK_FALSE(ui::step_formula(ui::Step::kScores, p).empty());
    CHECK(std::string(ui::step_explanation(ui::Step::kScores, p)).size() > 20);
  }
}

TEST_CASE("numbers that would pass float32 are refused, naming the field",
          "[app][matrices][overflow]") {
  // Such a scenario is not run with a warning beside its infinite numbers: it is refused
  // before it runs (scenario::check_magnitudes), as the CLI and the JS API refuse it.
  ui::AppState app;
  const std::string tiny =
      app.set_scenario_json(R"({"version": 1, "x": [[1, 2], [3, 4]], "temperature": 1e-38})").error;
  CHECK(tiny.rfind("temperature: ", 0) == 0);
  CHECK(tiny.find("overflow float32") != std::string::npos);
  const std::string big =
      app.set_scenario_json(R"({"version": 1, "x": [[3e38, 1], [1, 1]]})").error;
  CHECK(big.rfind("x: values too large", 0) == 0);
  CHECK_FALSE(loaded().overflow);
  // -inf masks are not an overflow: a fully masked row is NaN by design.
  CHECK_FALSE(loaded(R"({"version": 1, "x": [[1, 0], [0, 1]], "valid_lens": 0,
                          "mask_value": "-inf"})")
                  .overflow);
}

//-----------------------------------------------------------------------------
// [SECTION] The transposed view (AppState::transpose)
//-----------------------------------------------------------------------------

TEST_CASE("transpose_mask turns a row-major mask; one of another size is left as it is",
          "[app][matrices][transpose]") {
  // 2 × 3: row 0 masks column 2, row 1 masks columns 0 and 2.
  const std::vector<uint8_t> mask = {0, 0, 1, 1, 0, 1};
  // 3 × 2: column 2 of the matrix is row 2 of the transposed.
  CHECK(ui::transpose_mask(mask, 2, 3) == std::vector<uint8_t>{0, 1, 0, 0, 1, 1});
  CHECK(ui::transpose_mask(ui::transpose_mask(mask, 2, 3), 3, 2) == mask);
  CHECK(ui::transpose_mask(mask, 4, 4) == mask);
  CHECK(ui::transpose_mask({}, 0, 0).empty());
}

TEST_CASE(
    "drawn transposed, a matrix has its shape, labels and axes swapped, the same numbers "
    "and a mask that follows its cells",
    "[app][matrices][transpose]") {
  ui::AppState app = loaded();
  // Batch item 0: valid length 2, so key 3 ("c") is masked for every query.
  const ui::MatrixInfo& info = ui::matrix_info(MatrixKind::kWeights);
  const attn::Matrix* w = ui::matrix_of(app, MatrixKind::kWeights, 1, 0);
  REQUIRE(w);
  REQUIRE(w->rows() == 3);
  REQUIRE(w->cols() == 3);
  const std::vector<uint8_t>* mask = ui::matrix_mask(app, MatrixKind::kWeights, 0);
  REQUIRE(mask);

  const ui::DrawnMatrix rows = ui::drawn_matrix(app, info, *w, mask, 0, false);
  CHECK_FALSE(rows.transposed);
  CHECK(&rows.values() == w);  // not copied
  CHECK(rows.mask() == mask);
  CHECK(rows.rows == ui::Axis::kQueryTokens);
  CHECK(rows.cols == ui::Axis::kKeyTokens);
  CHECK(rows.to_matrix(0, 2) == std::pair<int, int>{0, 2});

  const ui::DrawnMatrix cols = ui::drawn_matrix(app, info, *w, mask, 0, true);
  CHECK(cols.transposed);
  CHECK(cols.rows == ui::Axis::kKeyTokens);  // keys down, queries across: A = softmax(KᵀQ)
  CHECK(cols.cols == ui::Axis::kQueryTokens);
  CHECK(cols.row_labels == ui::axis_labels(app, ui::Axis::kKeyTokens, 0, 3));
  CHECK(cols.col_labels == std::vector<std::string>{"a", "b", "c"});  // the query tokens
  REQUIRE(cols.values().rows() == w->cols());
  REQUIRE(cols.values().cols() == w->rows());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      INFO("query " << i << ", key " << j);
      CHECK(cols.values()(j, i) == (*w)(i, j));  // the same number, bit for bit
      // A drawn cell maps back to the matrix's: row = the query, column = the key.
      CHECK(cols.to_matrix(j, i) == std::pair<int, int>{i, j});
      CHECK(cols.to_drawn(i, j) == std::pair<int, int>{j, i});
      REQUIRE(cols.mask());
      CHECK((*cols.mask())[static_cast<size_t>(j * 3 + i)] ==
            (*mask)[static_cast<size_t>(i * 3 + j)]);
    }
  // Key 3 is past the valid length: a whole drawn row is masked, no drawn column.
  CHECK((*cols.mask())[6] == 1);
  CHECK((*cols.mask())[7] == 1);
  CHECK((*cols.mask())[8] == 1);
  CHECK(cols.to_matrix(-1, -1) == std::pair<int, int>{-1, -1});

  // A non-square one: Q of head 1 (3 tokens × 2 features) is drawn 2 × 3, features down.
  const ui::MatrixInfo& q_info = ui::matrix_info(MatrixKind::kQ);
  const attn::Matrix* q = ui::matrix_of(app, MatrixKind::kQ, 1, 1);
  REQUIRE(q);
  const ui::DrawnMatrix qt = ui::drawn_matrix(app, q_info, *q, nullptr, 1, true);
  CHECK(qt.values().rows() == q->cols());
  CHECK(qt.values().cols() == q->rows());
  CHECK(qt.values() == q->transpose());
  CHECK(qt.mask() == nullptr);
  CHECK(qt.row_labels == ui::axis_labels(app, q_info.cols, 1, static_cast<int>(q->cols())));
  CHECK(qt.col_labels == std::vector<std::string>{"d", "e", "f"});
  // A transpose made before (a view's, kept while the matrix is unchanged) is used, not copied;
  // one of the wrong shape is not.
  const attn::Matrix before = q->transpose();
  CHECK(&ui::drawn_matrix(app, q_info, *q, nullptr, 1, true, &before).values() == &before);
  const attn::Matrix wrong = *q;
  const ui::DrawnMatrix fresh = ui::drawn_matrix(app, q_info, *q, nullptr, 1, true, &wrong);
  CHECK(&fresh.values() != &wrong);
  CHECK(fresh.values() == q->transpose());
}

TEST_CASE("transposing is a view option: the trace and the exports keep the row convention",
          "[app][matrices][transpose]") {
  ui::AppState app = loaded();
  const ui::Export before = ui::make_export(app, "weights", "csv", 0, 0);
  const scenario::ViewState view = app.view();
  const uint64_t revision = app.revision;
  app.transpose = true;
  CHECK(ui::make_export(app, "weights", "csv", 0, 0).data == before.data);
  CHECK(app.revision == revision);  // nothing to recompute
  CHECK(app.view() == view);        // the link's view (#...) leaves it out: ?transpose=1
}
