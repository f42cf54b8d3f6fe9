// The playground with a stack of layers: each layer shown as one layer over the stream it reads,
// edits written back into the stack, the layer in the view and the link, exports of the whole
// stack, and training every layer (a token model on fresh batches) as attention-cli does.
#include <catch2/catch.hpp>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/model/api.h"
#include "app/model/app_state.h"
#include "app/model/controls.h"
#include "app/model/matrices.h"
#include "core/stack.h"
#include "scenario/link.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace {

// Two layers of two heads over 4 tokens × 4 features, causal, weights from init.
const char kTwoLayers[] = R"({"version": 1,
  "x": [[0.5, -1, 0.25, 1], [1, 0.5, -0.5, 0], [-0.25, 0.75, 1, -1], [0.3, 0.2, -0.1, 0.4]],
  "query_tokens": ["a", "b", "c", "d"], "causal": true, "init": {"seed": 3, "d_model": 4},
  "layers": [{"heads": 2}, {"heads": 1}]})";

bool same_bits(const attn::Matrix& a, const attn::Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

bool same_bits(const attn::Batch& a, const attn::Batch& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("each layer of a stack shows as one layer over the stream it reads", "[app][layers]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  app.recompute_if_needed();
  REQUIRE(app.layered());
  REQUIRE(app.layer_count() == 2);
  CHECK(app.layer == 0);
  CHECK(app.runs());
  for (int l : {0, 1}) {
    app.set_layer(l);
    app.recompute_if_needed();
    REQUIRE(app.layer == l);
    // The layer's input is the stream h_l, its heads the layer's, and every step's numbers are
    // the stack's own run of that layer, bit for bit.
    CHECK(same_bits(app.scenario.queries, app.stack_trace.stream[l]));
    CHECK(app.scenario.heads == (l == 0 ? 2 : 1));
    REQUIRE(app.trace.heads.size() == app.stack_trace.layers[l].heads.size());
    for (size_t h = 0; h < app.trace.heads.size(); ++h) {
      CHECK(same_bits(app.trace.heads[h].scores, app.stack_trace.layers[l].heads[h].scores));
      CHECK(same_bits(app.trace.heads[h].weights, app.stack_trace.layers[l].heads[h].weights));
    }
    CHECK(same_bits(app.trace.output, app.stack_trace.layers[l].output));
    CHECK(app.scenario.query_tokens == std::vector<std::vector<std::string>>{{"a", "b", "c", "d"}});
  }
  // The stream: h_2 = h_1 + layer 2's output.
  const attn::Matrix sum = app.stack_trace.stream[1][0] + app.stack_trace.layers[1].output[0];
  CHECK(same_bits(sum, app.stack_trace.stream[2][0]));

  // What the page hands over is the stack, not the layer shown.
  const nlohmann::json doc = nlohmann::json::parse(ui::api::get_scenario(app));
  CHECK(doc["layers"].size() == 2);
  CHECK(!doc.contains("W_q"));
  const nlohmann::json trace = nlohmann::json::parse(ui::api::get_trace(app));
  REQUIRE(trace["layers"].size() == 2);
  CHECK(trace["layers"][0]["heads"].size() == 2);
  CHECK(trace["output"].size() == 1);  // batch × n × d
  CHECK(trace["output"][0].size() == 4);

  // The layer control: there only for a stack, its options the layers.
  const ui::Control* c = ui::find_control("layer");
  REQUIRE(c);
  CHECK(ui::control_shown(app, *c));
  CHECK(c->options(app).size() == 2);
  CHECK(ui::apply_control(app, *c, 1) == "");
  CHECK(app.layer == 0);
  CHECK(ui::apply_control(app, *c, 3) != "");  // no layer 3
  CHECK(!ui::control_shown(app, "positional_encoding"));
  CHECK(!ui::control_shown(app, "projections"));
  ui::AppState one;
  REQUIRE(one.set_scenario_json(R"({"version":1,"x":[[1,0],[0,1]]})").error == "");
  CHECK(!ui::control_shown(one, "layer"));
  CHECK(!one.layered());
}

TEST_CASE("an edit of the layer shown goes into the stack, which runs again", "[app][layers]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  app.set_layer(0);
  app.recompute_if_needed();
  const attn::Batch h2_before = app.stack_trace.stream[2];
  const attn::Batch h1_before = app.stack_trace.stream[1];

  // Layer 1's W_v: the stream above it changes; layer 2's weights stay.
  const attn::Matrix wq2 = app.stack.layers[1].weights.W_q;
  app.scenario.W_v(0, 0) += 0.5f;
  app.changed();
  app.recompute_if_needed();
  REQUIRE(app.runs());
  CHECK(app.whole.layers[0].W_v(0, 0) == app.scenario.W_v(0, 0));
  CHECK(app.stack.layers[0].weights.W_v(0, 0) == app.scenario.W_v(0, 0));
  CHECK(!same_bits(app.stack_trace.stream[1], h1_before));
  CHECK(!same_bits(app.stack_trace.stream[2], h2_before));
  CHECK(same_bits(app.stack.layers[1].weights.W_q, wq2));
  CHECK(app.edited);
  // The layer above now reads the new stream.
  app.set_layer(1);
  app.recompute_if_needed();
  CHECK(same_bits(app.scenario.queries, app.stack_trace.stream[1]));

  // A shared setting set in one layer is the stack's.
  app.scenario.temperature = 2.0f;
  app.changed();
  app.recompute_if_needed();
  CHECK(app.whole.temperature == 2.0f);
  CHECK(app.stack.base.temperature == 2.0f);
  app.set_layer(0);
  CHECK(app.scenario.temperature == 2.0f);

  // A layer's inputs are the stream: an edit of them is undone, and the page says why.
  const attn::Batch h0 = app.stack_trace.stream[0];
  app.scenario.queries.mut(0)(0, 0) = 9.0f;
  app.changed();
  app.recompute_if_needed();
  CHECK(app.runs());
  CHECK(same_bits(app.scenario.queries, h0));
  CHECK(!app.notice.empty());
  const nlohmann::json doc = nlohmann::json::parse(ui::api::get_scenario(app));
  CHECK(doc["x"][0][0] == 0.5);

  // Heads that do not divide the width are refused as for one layer, naming the field.
  app.notice.clear();
  app.scenario.heads = 3;
  app.changed();
  app.recompute_if_needed();
  CHECK(!app.runs());
  CHECK(app.error.find("heads") != std::string::npos);
  app.scenario.heads = 4;
  app.changed();
  app.recompute_if_needed();
  CHECK(app.runs());
  CHECK(app.whole.layers[0].heads == 4);
  // An edit that cannot run stays on its layer: another layer shown is the stack's own.
  app.scenario.heads = 3;
  app.changed();
  app.recompute_if_needed();
  REQUIRE(!app.runs());
  app.set_layer(1);
  app.recompute_if_needed();
  CHECK(app.runs());
  CHECK(app.layer == 1);
  CHECK(app.whole.layers[0].heads == 4);
}

TEST_CASE("the view and the link carry the layer; a hostile layer is refused by name",
          "[app][layers][link]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  app.set_layer(1);
  app.recompute_if_needed();
  CHECK(app.view().layer == 1);
  const std::string link = ui::api::get_link(app);
  REQUIRE(!link.empty());
  ui::AppState reader;
  REQUIRE(ui::api::open_link(reader, link) == "");
  reader.recompute_if_needed();
  CHECK(reader.layered());
  CHECK(reader.layer == 1);
  CHECK(same_bits(reader.trace.output, app.trace.output));

  scenario::ViewState v;
  v.layer = 2;
  CHECK(scenario::validate_view(v, app.whole).error ==
        "view.layer: is 2, but the scenario has 2 layers");
  v.layer = 1;
  v.head = 1;  // layer 2 has one head
  CHECK(scenario::validate_view(v, app.whole).error == "view.head: is 1, but the layer has 1 head");
  v.layer = 0;
  CHECK(scenario::validate_view(v, app.whole).ok());
  const scenario::Scenario one = app.scenario;  // one layer: only layer 0
  v.head = 0;
  v.layer = 1;
  CHECK(scenario::validate_view(v, one).error == "view.layer: is 1, but the scenario has 1 layer");
}

TEST_CASE("the induction task trains in the page as attention-cli trains it",
          "[app][layers][train]") {
  ui::AppState app;
  REQUIRE(app.load_task("induction", 1).ok());
  REQUIRE(app.layered());
  CHECK(app.layer_count() == 2);
  CHECK(ui::control_shown(app, "train"));
  const scenario::Scenario start = app.whole;
  REQUIRE(app.train(6, 1e9) == 6);
  REQUIRE(app.training.losses.size() == 6);

  // The same six steps by hand: the task's batch k for step k, Adam at the task's rate.
  scenario::Resolved r = scenario::resolve(start);
  REQUIRE(r.ok());
  attn::Stack st = r.stack;
  attn::Optimizer opt;
  opt.kind = attn::Optimizer::Kind::kAdam;
  opt.lr = static_cast<float>(scenario::find_task("induction")->lr);  // the page's rate is a float
  for (int k = 1; k <= 6; ++k) {
    scenario::TaskBatch b = scenario::task_batch("induction", 1, static_cast<uint64_t>(k));
    st.tokens.ids = b.ids;
    st.tokens.next = b.next;
    double loss = 0.0;
    REQUIRE(opt.step(&st, {}, &loss).ok());
    CHECK(static_cast<float>(loss) == app.training.losses[k - 1]);
  }
  for (size_t l = 0; l < st.layers.size(); ++l)
    CHECK(same_bits(st.layers[l].weights.W_q, app.stack.layers[l].weights.W_q));
  CHECK(same_bits(st.tokens.embed, app.stack.tokens.embed));
  // The shown tokens stay the task's batch 0, which training never sees.
  CHECK(app.whole.token_ids == start.token_ids);
  // The check reads the stack.
  const scenario::TaskCheck* c = app.task_check();
  REQUIRE(c);
  CHECK(c->loss > 1.0);
  CHECK(!c->passed);
  CHECK(c->text.en.find("layer") != std::string::npos);

  // A link replays the training to the same weights.
  const std::string link = ui::api::get_link(app);
  REQUIRE(!link.empty());
  ui::AppState reader;
  REQUIRE(ui::api::open_link(reader, link) == "");
  CHECK(reader.training.losses == app.training.losses);
  CHECK(scenario::to_json(reader.whole) == scenario::to_json(app.whole));
}

TEST_CASE("a stack's lesson asks each question on its layer, checked against that layer",
          "[app][layers][quiz]") {
  ui::AppState app;
  int preset = -1;
  for (int i = 0; i < static_cast<int>(app.presets.size()); ++i)
    if (app.presets[i].name == "why_stack") preset = i;
  REQUIRE(preset >= 0);
  app.load_preset(preset);
  app.recompute_if_needed();
  REQUIRE(app.layered());
  REQUIRE(app.quiz().size() == 3);
  CHECK(app.scenario.quiz.empty());  // the layer shown carries none: the stack does
  const int step = app.quiz()[0].step;
  app.set_step(step);
  // Layer 1 shows: its question is open and its weights are hidden.
  CHECK(app.open_question() == 0);
  CHECK(ui::answer_hidden(app, ui::MatrixKind::kWeights));
  // Layer 2's questions wait for layer 2; its answers come from layer 2's numbers.
  app.set_layer(1);
  app.recompute_if_needed();
  CHECK(app.open_question() == 1);
  CHECK(app.quiz_truth_key(1) == app.quiz()[1].answer.col);
  CHECK(app.quiz_truth_key(0) == app.quiz()[0].answer.col);  // layer 1's, from another layer
  const attn::Matrix& w2 = app.stack_trace.layers[1].heads[0].weights[0];
  CHECK(app.quiz_truth_value(2) == w2(4, 2));
  REQUIRE(app.answer_quiz(1, 3, 0.0f));
  CHECK(app.replies[1].correct);
  CHECK(app.open_question() == 2);
  REQUIRE(app.answer_quiz(2, -1, 0.5f));
  CHECK(!app.replies[2].correct);
  CHECK(app.open_question() == -1);
  CHECK(!ui::answer_hidden(app, ui::MatrixKind::kWeights));
  CHECK(app.progress["why_stack"] == "-rw");
  app.set_layer(0);
  CHECK(app.open_question() == 0);
  REQUIRE(app.answer_quiz(0, 2, 0.0f));  // the wrong key: layer 1 looks one back, at 4
  CHECK(!app.replies[0].correct);
  // Its tokens repeat (· A B C A B): each answer names its position, and so does the verdict.
  const std::vector<std::string> labels = app.quiz_key_labels(0);
  REQUIRE(labels.size() == 6);
  CHECK(labels[1] == "A (position 2)");
  CHECK(labels[4] == "A (position 5)");
  CHECK(app.quiz_verdict(0).rfind("The largest weight is on \"C (position 4)\"", 0) == 0);
  CHECK(app.quiz_verdict(0).find("You chose \"B (position 3)\"") != std::string::npos);
  // Row 5 sees positions 1 to 5 (causal): five keys it can attend to, the sixth masked.
  CHECK(app.quiz_verdict(0).find(" of 5 from the top.") != std::string::npos);
  const nlohmann::json seen = nlohmann::json::parse(ui::api::accessible(app, std::nullopt));
  for (const nlohmann::json& e : seen["quiz"])
    if (e.contains("keys")) CHECK(e["keys"] == labels);
  CHECK(app.lesson_done("why_stack"));
}

TEST_CASE("the learned induction lesson trains on, and Reset starts its task over in the lesson",
          "[app][layers][train]") {
  ui::AppState app;
  REQUIRE(ui::api::load_preset(app, "learned_induction"));
  app.recompute_if_needed();
  REQUIRE(app.layered());
  CHECK(app.training.task == "induction");
  const scenario::TaskCheck* learned = app.task_check();
  REQUIRE(learned);
  CHECK(learned->passed);  // the lesson's four sequences: an induction head
  const std::string title = app.whole.title.en;
  const size_t questions = app.quiz().size();
  REQUIRE(questions == 3);

  app.reset_training();  // back to the task's random start, still the lesson
  app.recompute_if_needed();
  CHECK(app.whole.title.en == title);
  CHECK(app.scenario.title.en == title);
  CHECK(app.quiz().size() == questions);
  CHECK(app.lesson_id() == "learned_induction");
  const scenario::TaskCheck* fresh = app.task_check();
  REQUIRE(fresh);
  CHECK(!fresh->passed);
  CHECK(fresh->loss > 2.0);
  CHECK(app.train(5, 1e9) == 5);
  CHECK(app.training.losses.size() == 5);
  CHECK(app.training.error == "");
}

TEST_CASE("Play in the learned induction lesson pauses by itself at the lesson's 600 steps, once",
          "[app][layers][train]") {
  ui::AppState app;
  REQUIRE(ui::api::load_preset(app, "learned_induction"));
  app.reset_training();
  CHECK(app.training_goal() == 600);
  app.training.speed = 0;  // fast: as many steps as fit in the frame's budget
  app.training.playing = true;
  for (int frame = 0; frame < 100000 && app.training.playing; ++frame)
    app.play_training(0.016, 50.0);
  CHECK_FALSE(app.training.playing);
  CHECK(app.training.finished);
  CHECK_FALSE(app.training.converged);
  CHECK(app.training.losses.size() == 600);
  const nlohmann::json t = nlohmann::json::parse(ui::api::training(app));
  CHECK(t["finished"] == true);
  CHECK(t["goal"] == 600);
  CHECK(t["step"] == 600);
  // What the plot marks: the drop, where the lesson says (tests/scenario/tokens_test.cpp).
  const scenario::PhaseChange p = scenario::induction_phase_change(app.training.losses);
  CHECK(p.plateau_until >= 150);
  CHECK(p.drop > p.plateau_until);
  CHECK(p.drop - p.plateau_until <= 100);
  // The page's copy of it (kept as the steps are taken, not recomputed per frame): the same
  // step in AppState, in getTraining()'s `drop`, and before any step none.
  CHECK(app.training.phase.drop == p.drop);
  CHECK(app.training.phase.plateau_until == p.plateau_until);
  CHECK(t["drop"] == p.drop);
  // Train again: it goes on past the goal, and does not stop there a second time.
  app.training.playing = true;
  for (int frame = 0; frame < 20; ++frame) app.play_training(0.016, 50.0);
  CHECK(app.training.playing);
  CHECK(app.training.losses.size() > 600);
  CHECK_FALSE(app.training.finished);

  // The same task outside its lesson has no goal: Play goes on.
  REQUIRE(app.load_task("induction", 1).ok());
  CHECK(app.training_goal() == 0);
  CHECK(app.training.phase.drop == -1);
  CHECK(nlohmann::json::parse(ui::api::training(app))["drop"].is_null());
  // A task without a phase change never has a drop, however its loss falls.
  REQUIRE(app.load_task("previous_token", 1).ok());
  CHECK(app.train(400, 1e9) == 400);
  CHECK(app.training.losses.back() < 1.6f);
  CHECK(app.training.phase.drop == -1);
  CHECK(nlohmann::json::parse(ui::api::training(app))["drop"].is_null());
}

TEST_CASE("a stack too large to keep every layer's trace is refused by its sizes, changing nothing",
          "[app][layers][bad]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  const std::string before = ui::api::get_scenario(app);
  // 16 layers over 2048 tokens: each layer alone would fit, the 16 traces together would not.
  std::string x = "[";
  for (int i = 0; i < 2048; ++i)
    x += std::string(i ? "," : "") + "[" + std::to_string(i % 7) + ",1,0,1]";
  x += "]";
  std::string layers = "[{}";
  for (int l = 1; l < 16; ++l) layers += ",{}";
  layers += "]";
  const std::string error =
      app.set_scenario_json(R"({"version": 1, "x": )" + x + R"(, "layers": )" + layers + "}").error;
  CHECK(error.rfind("layers: 16 layers need about ", 0) == 0);
  CHECK(error.find("more than the 384 MB the playground may use") != std::string::npos);
  CHECK(ui::api::get_scenario(app) == before);
  CHECK(app.layer_count() == 2);
}

TEST_CASE(
    "a layer's scores split into what its keys took from the inputs and from the layers "
    "below, summing to its scaled scores",
    "[app][layers]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  app.recompute_if_needed();
  attn::Matrix from_input, from_layers;
  // Layer 1 reads only the inputs: nothing to split.
  CHECK_FALSE(
      ui::AppState::key_split(app.stack, app.stack_trace, 0, 0, 0, &from_input, &from_layers));
  CHECK_FALSE(ui::AppState::key_split(app.stack, app.stack_trace, 1, 1, 0, &from_input,
                                      &from_layers));  // layer 2 has one head
  REQUIRE(ui::AppState::key_split(app.stack, app.stack_trace, 1, 0, 0, &from_input, &from_layers));
  const attn::Matrix& scaled = app.stack_trace.layers[1].heads[0].scaled[0];
  REQUIRE(from_input.rows() == scaled.rows());
  REQUIRE(from_input.cols() == scaled.cols());
  const attn::Matrix sum = from_input + from_layers;
  CHECK((sum - scaled).cwiseAbs().maxCoeff() <= 1e-5f * (1.0f + scaled.cwiseAbs().maxCoeff()));
  CHECK(from_layers.cwiseAbs().maxCoeff() > 0.0f);  // layer 1 wrote something the keys read

  // The hand-set induction lesson: layer 2's score for row 5 (the second A) on key 3 (the B
  // after the first A) comes from what layer 1 wrote, not from the inputs.
  REQUIRE(ui::api::load_preset(app, "why_stack"));
  app.recompute_if_needed();
  REQUIRE(ui::AppState::key_split(app.stack, app.stack_trace, 1, 0, 0, &from_input, &from_layers));
  const attn::Matrix& s2 = app.stack_trace.layers[1].heads[0].scaled[0];
  CHECK(std::abs(from_input(4, 2) + from_layers(4, 2) - s2(4, 2)) <=
        1e-4f * (1.0f + std::abs(s2(4, 2))));
  CHECK(from_layers(4, 2) > 2.0f * std::abs(from_input(4, 2)));
  int best = 0;
  for (int j = 1; j <= 4; ++j)
    if (from_layers(4, j) > from_layers(4, best)) best = j;
  CHECK(best == 2);

  // Additive scoring is not a sum over the key's parts.
  std::string additive = kTwoLayers;
  additive.replace(additive.find("\"causal\""), 8, "\"scoring\": \"additive\", \"causal\"");
  additive.replace(additive.find("{\"heads\": 2}"), 12, "{\"heads\": 1}");  // one head each
  ui::AppState other;
  REQUIRE(other.set_scenario_json(additive).error == "");
  other.recompute_if_needed();
  REQUIRE(other.layered());
  CHECK_FALSE(
      ui::AppState::key_split(other.stack, other.stack_trace, 1, 0, 0, &from_input, &from_layers));
}

TEST_CASE("api::set_layer shows a stack's layer and answers the layer shown", "[app][layers]") {
  ui::AppState app;
  REQUIRE(app.set_scenario_json(kTwoLayers).error == "");
  app.recompute_if_needed();
  CHECK(ui::api::set_layer(app, 1) == 1);
  CHECK(app.layer == 1);
  CHECK(ui::api::set_layer(app, 7) == 1);  // clamped
  CHECK(nlohmann::json::parse(ui::api::counts(app))["layers"] == 2);
  ui::AppState one;
  REQUIRE(one.set_scenario_json(R"({"version":1,"x":[[1,0],[0,1]]})").error == "");
  CHECK(ui::api::set_layer(one, 1) == 0);
  CHECK(nlohmann::json::parse(ui::api::counts(one))["layers"] == 1);
}
