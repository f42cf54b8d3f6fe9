// The controls' table (src/app/model/controls.h): every control listed is applied by set_control,
// wrong values are refused naming the control, hide= and lesson notes are checked against it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "app/model/api.h"
#include "app/model/app_state.h"
#include "app/model/controls.h"

namespace {

using nlohmann::json;

// The index of the preset called `name` (the test stops when there is none).
int preset_named(const ui::AppState& app, const std::string& name) {
  int found = -1;
  for (size_t k = 0; k < app.presets.size(); ++k)
    if (app.presets[k].name == name) found = static_cast<int>(k);
  REQUIRE(found >= 0);
  return found;
}

json listed(const ui::AppState& app) {
  return json::parse(ui::api::controls(app));
}

// A value of the control's kind that is not its current one (another option, the other
// state, another number in range), or null for buttons and menus.
json another_value(const json& c) {
  const std::string kind = c["kind"];
  if (kind == "checkbox") return !c["value"].get<bool>();
  if (kind == "number") {
    const double lo = c["min"], hi = c["max"], v = c["value"];
    const double step = c["step"];
    double next = v + step <= hi ? v + step : v - step;
    if (step == 1.0) next = std::floor(next);
    return std::max(lo, std::min(hi, next));
  }
  if (kind == "select")
    for (const json& o : c["options"])
      if (o["value"] != c["value"]) return o["value"];
  return nullptr;
}

}  // namespace

TEST_CASE("every control listed takes another value through set_control and shows it",
          "[app][controls]") {
  // A toy task: the Train section is all there. Each control on a fresh state, since one
  // change may change what the others offer (another scoring, other head counts).
  const auto fresh = [] {
    ui::AppState app;
    REQUIRE(app.load_task("previous_token", 3).ok());
    app.in_page = true;
    return app;
  };
  std::set<std::string> seen;
  for (const json& listed_first : listed(fresh())) {
    ui::AppState app = fresh();
    const std::string id = listed_first["id"];
    seen.insert(id);
    INFO(id);
    CHECK(!listed_first["label"].get<std::string>().empty());
    REQUIRE(ui::find_control(id));
    const json v = another_value(listed_first);
    if (v.is_null() || id == "task" || id == "preset") continue;  // new scenarios: below
    CHECK(ui::api::set_control(app, id, v.dump()) == "");
    for (const json& after : listed(app))
      if (after["id"] == id) {
        if (v.is_number())
          CHECK(after["value"].get<double>() == Approx(v.get<double>()).epsilon(1e-6));
        else
          CHECK(after["value"] == v);
      }
  }
  for (const char* id : {"step", "scoring", "temperature", "causal", "task", "train", "train_speed",
                         "train_step", "train_reset", "learning_rate", "optimizer", "train_seed",
                         "preset", "open", "export", "language", "numbers", "animate"})
    CHECK(seen.count(id) == 1);
}

TEST_CASE("the Train section's controls train, reset, change the rate, optimizer and seed",
          "[app][controls][train]") {
  ui::AppState app;
  // No target yet: the training controls say so.
  CHECK(ui::api::set_control(app, "train_step", "true") ==
        "train_step: the scenario has no target (give \"target\", or load a toy task)");
  CHECK(ui::api::set_control(app, "task", "\"previous_token\"") == "");
  CHECK(app.training.task == "previous_token");
  CHECK(ui::api::set_control(app, "train_step", "true") == "");
  CHECK(ui::api::set_control(app, "train_step", "true") == "");
  CHECK(app.training.losses.size() == 2);
  CHECK(ui::api::set_control(app, "train_reset", "true") == "");
  CHECK(app.training.losses.empty());
  CHECK(ui::api::set_control(app, "learning_rate", "0.2") == "");
  CHECK(app.training.lr == 0.2f);
  CHECK(ui::api::set_control(app, "learning_rate", "5") ==
        "learning_rate: must be a number from 0.001 to 1");
  CHECK(ui::api::set_control(app, "optimizer", "\"sgd\"") == "");
  CHECK_FALSE(app.training.adam);
  CHECK(ui::api::set_control(app, "optimizer", "\"rmsprop\"") ==
        "optimizer: must be one of \"adam\", \"sgd\"");
  CHECK(ui::api::set_control(app, "train_seed", "7") == "");
  CHECK(app.training.seed == 7);
  CHECK(ui::api::set_control(app, "train_seed", "7.5") ==
        "train_seed: must be a whole number from 0 to 999999");
  CHECK(ui::api::set_control(app, "train_seed", "1000000") ==
        "train_seed: must be a whole number from 0 to 999999");
  CHECK(ui::api::set_control(app, "train_step", "false") ==
        "train_step: a button: apply it with true");
}

TEST_CASE("the lesson list, the language, exports and the file picker are controls too",
          "[app][controls]") {
  ui::AppState app;
  app.in_page = true;
  REQUIRE(app.presets.size() > 2);
  const std::string second = app.presets[1].name;
  CHECK(ui::api::set_control(app, "preset", json(second).dump()) == "");
  CHECK(app.lesson_id() == second);
  CHECK(ui::api::set_control(app, "preset", "\"no_such_lesson\"")
            .rfind("preset: must be one of", 0) == 0);
  CHECK(ui::api::set_control(app, "language", "\"zh\"") == "");
  CHECK(app.lang == ui::Lang::kZh);
  CHECK(ui::api::set_control(app, "language", "\"fr\"") ==
        "language: must be one of \"en\", \"zh\"");
  CHECK(ui::api::set_control(app, "language", "\"en\"") == "");
  CHECK(ui::api::set_control(app, "export", "\"numpy\"") == "");
  CHECK(app.exports_due == std::vector<std::string>{"numpy"});
  CHECK(ui::api::set_control(app, "export", "\"passwords\"").rfind("export: must be one of", 0) ==
        0);
  // The step's matrix alone; not while a question hides it.
  app.exports_due.clear();
  app.set_step(6);
  REQUIRE(app.open_question() < 0);
  CHECK(ui::api::set_control(app, "export_matrix", "\"csv\"") == "");
  CHECK(app.exports_due == std::vector<std::string>{"matrix|csv"});
  ui::AppState asking;
  asking.load_preset(0);
  asking.set_step(asking.scenario.quiz[0].step);
  REQUIRE(asking.open_question() == 0);
  CHECK(ui::api::set_control(asking, "export_matrix", "\"csv\"") ==
        "export_matrix: not there for this scenario");
  app.events.clear();
  CHECK(ui::api::set_control(app, "open", "true") == "");
  CHECK(app.events == std::vector<std::string>{"open_file"});
  app.in_page = false;  // the desktop app opens no file picker
  CHECK(ui::api::set_control(app, "open", "true") == "open: not there for this scenario");
}

TEST_CASE("the view control selects the centre's tab the page shows", "[app][controls]") {
  ui::AppState app;
  CHECK(ui::api::set_control(app, "view", "\"plane\"") == "");
  CHECK(app.view_tab_wanted == "plane");
  CHECK(app.view_tab == "plane");
  app.show[static_cast<int>(ui::Panel::kPlane)] = false;  // panels= without the 2-D view
  CHECK(ui::api::set_control(app, "view", "\"plane\"").rfind("view: must be one of", 0) == 0);
  for (ui::Panel p : {ui::Panel::kHeads, ui::Panel::kPositional})
    app.show[static_cast<int>(p)] = false;
  CHECK(ui::api::set_control(app, "view", "\"steps\"") == "view: not there for this scenario");
}

TEST_CASE("hide= names only controls that exist; the unknown ones are named", "[app][controls]") {
  ui::AppState app;
  CHECK(ui::api::hide_controls(app, "causal,train") == "");
  CHECK(app.control_hidden("causal"));
  CHECK(app.control_hidden("train"));
  for (const json& c : listed(app)) {
    CHECK(c["id"] != "causal");
    CHECK(c["id"] != "task");
  }
  const std::string e = ui::api::hide_controls(app, "causal,casual,tokens");
  CHECK(e.rfind("hide: no control \"casual\" (the ids: ", 0) == 0);
  CHECK(app.control_hidden("causal"));
  CHECK(app.control_hidden("tokens"));
  CHECK_FALSE(app.control_hidden("casual"));
  // Every id a control is hidden by, and nothing else of the table, is a hide= id.
  for (const ui::Control& c : ui::control_table())
    if (c.hidden_by) CHECK(ui::hide_id_known(c.hidden_by));
}

TEST_CASE("a lesson note that asks for a control names one that exists", "[app][controls]") {
  ui::AppState app;
  // Every preset's notes do.
  for (const ui::Preset& p : app.presets)
    for (const scenario::TourStop& stop : p.scenario.tour)
      for (const std::string& id : stop.controls) {
        INFO(p.name << ": " << id);
        CHECK(ui::hide_id_known(id));
      }
  const std::string json_text = R"({"version": 1, "x": [[1, 0], [0, 1]],
    "tour": [{"step": 4, "text": {"en": "Mask the padding."}, "controls": ["valid_len"]}]})";
  CHECK(app.set_scenario_json(json_text).error == "tour[0].controls[0]: no control \"valid_len\"");
}

TEST_CASE("decoder_step: the Decoder tab's word, for a seq2seq model only, refuses the rest",
          "[app][controls][seq2seq]") {
  ui::AppState app;
  const int bahdanau = preset_named(app, "learned_bahdanau");
  // Not a seq2seq model: neither the control nor the tab is there.
  app.load_preset(0);
  REQUIRE(app.scenario.seq2seq.empty());
  CHECK(ui::api::set_control(app, "decoder_step", "1") ==
        "decoder_step: not there for this scenario");
  CHECK(ui::api::set_control(app, "view", "\"decoder\"").rfind("view: must be one of", 0) == 0);
  for (const json& c : listed(app)) CHECK(c["id"] != "decoder_step");

  app.load_preset(bahdanau);
  REQUIRE(app.decoder_words() == 7);  // miza grona kuras piko lilu dormas <eos>
  CHECK(app.decoder_step == 1);
  CHECK(ui::api::set_control(app, "view", "\"decoder\"") == "");
  CHECK(app.view_tab == "decoder");
  CHECK(ui::api::set_control(app, "decoder_step", "3") == "");
  CHECK(app.decoder_step == 3);
  bool found = false;
  for (const json& c : listed(app))
    if (c["id"] == "decoder_step") {
      found = true;
      CHECK(c["label"] == "Decoder's word");
      CHECK(c["value"] == 3);
      REQUIRE(c["options"].size() == 7);
      CHECK(c["options"][2]["label"] == "3. kuras");
      CHECK(c["options"][6]["label"] == "7. <eos>");
    }
  CHECK(found);
  // Out of range, of the wrong type, not JSON: refused by name, the word kept.
  const std::string choices = "decoder_step: must be one of 1, 2, 3, 4, 5, 6, 7";
  for (const char* bad : {"0", "8", "-1", "2.5", "\"3\"", "true", "null", "[3]", "{\"t\": 3}",
                          "1e9", "-2147483649"}) {
    INFO(bad);
    CHECK(ui::api::set_control(app, "decoder_step", bad) == choices);
    CHECK(app.decoder_step == 3);
  }
  CHECK(ui::api::set_control(app, "decoder_step", "3]") == "decoder_step: the value is not JSON");
  CHECK(ui::api::set_control(app, "decoder_step", "1e999") != "");
  CHECK(app.decoder_step == 3);

  // Play: a word every 0.8 s, stopping at the last; the control pauses it.
  app.decoder_playing = true;
  app.play_decoder(0.5);
  CHECK(app.decoder_step == 3);
  app.play_decoder(0.4);
  CHECK(app.decoder_step == 4);
  for (int k = 0; k < 20; ++k) app.play_decoder(0.9);
  CHECK(app.decoder_step == 7);
  CHECK_FALSE(app.decoder_playing);
  app.decoder_playing = true;
  CHECK(ui::api::set_control(app, "decoder_step", "2") == "");
  CHECK_FALSE(app.decoder_playing);
  // A new scenario starts at word 1; hide=view hides the control with the tabs.
  app.load_preset(bahdanau);
  CHECK(app.decoder_step == 1);
  CHECK(ui::api::hide_controls(app, "view") == "");
  CHECK(ui::api::set_control(app, "decoder_step", "2") == "decoder_step: hidden by the page");
}

TEST_CASE(
    "a new scenario starts each view's own choice over: the picture's and the curve's query "
    "too",
    "[app][controls]") {
  ui::AppState app;
  app.load_preset(preset_named(app, "where_the_eye_goes"));
  CHECK(ui::api::set_control(app, "picture_query", "1") == "");
  REQUIRE(app.picture_query == 1);
  app.load_preset(preset_named(app, "nadaraya_watson"));
  CHECK(app.picture_query == 0);
  CHECK(ui::api::set_control(app, "curve_query", "3") == "");
  REQUIRE(app.curve_query == 3);
  app.load_preset(preset_named(app, "where_the_eye_goes"));
  CHECK(app.curve_query == 0);
  CHECK(app.picture_query == 0);
  // The 2-D view's query: offered only where the arrows are drawn (two numbers each).
  CHECK(ui::api::set_control(app, "plane_query", "1").rfind("plane_query: ", 0) == 0);
  app.load_preset(preset_named(app, "toy_2d"));
  CHECK(ui::api::set_control(app, "plane_query", "1") == "");  // toy_2d's q2 (of two)
  REQUIRE(app.plane_query == 1);
  CHECK(ui::api::set_control(app, "plane_query", "2") == "plane_query: must be one of 0, 1");
  CHECK(ui::api::set_control(app, "plane_query", "-1").rfind("plane_query: ", 0) == 0);
  CHECK(ui::api::set_control(app, "plane_query", "\"q1\"").rfind("plane_query: ", 0) == 0);
  CHECK(app.plane_query == 1);
  app.load_preset(preset_named(app, "toy_2d"));
  CHECK(app.plane_query == 0);
}

TEST_CASE("hierarchy_question: the Document tab's question, for a hierarchy only, refuses the rest",
          "[app][controls][hierarchy]") {
  ui::AppState app;
  const int lesson = preset_named(app, "attention_over_attention");
  // Not a hierarchy: neither the control nor the tab is there.
  app.load_preset(0);
  REQUIRE(app.scenario.hierarchy.empty());
  CHECK(ui::api::set_control(app, "hierarchy_question", "1") ==
        "hierarchy_question: not there for this scenario");
  CHECK(ui::api::set_control(app, "view", "\"document\"").rfind("view: must be one of", 0) == 0);
  for (const json& c : listed(app)) CHECK(c["id"] != "hierarchy_question");

  app.load_preset(lesson);
  REQUIRE(app.scenario.hierarchy.questions.rows() == 2);
  CHECK(app.hierarchy_question == 1);
  CHECK(ui::api::set_control(app, "view", "\"document\"") == "");
  CHECK(app.view_tab == "document");
  CHECK(ui::api::set_control(app, "hierarchy_question", "2") == "");
  CHECK(app.hierarchy_question == 2);
  bool found = false;
  for (const json& c : listed(app))
    if (c["id"] == "hierarchy_question") {
      found = true;
      CHECK(c["label"] == "Document's question");
      CHECK(c["value"] == 2);
      REQUIRE(c["options"].size() == 2);
      CHECK(c["options"][0]["label"] == "1. how was the food?");
      CHECK(c["options"][1]["label"] == "2. and the service?");
    }
  CHECK(found);
  // Out of range, of the wrong type, not JSON: refused by name, the question kept.
  const std::string choices = "hierarchy_question: must be one of 1, 2";
  for (const char* bad : {"0", "3", "-1", "2.5", "\"1\"", "true", "null", "[1]", "{}", "{\"q\": 1}",
                          "1e9", "-2147483649"}) {
    INFO(bad);
    CHECK(ui::api::set_control(app, "hierarchy_question", bad) == choices);
    CHECK(app.hierarchy_question == 2);
  }
  CHECK(ui::api::set_control(app, "hierarchy_question", "1]") ==
        "hierarchy_question: the value is not JSON");
  CHECK(ui::api::set_control(app, "hierarchy_question", "1e999") != "");
  CHECK(app.hierarchy_question == 2);
  // A new scenario starts at the first question; hide=view hides the control with the tabs.
  app.load_preset(lesson);
  CHECK(app.hierarchy_question == 1);
  CHECK(ui::api::hide_controls(app, "view") == "");
  CHECK(ui::api::set_control(app, "hierarchy_question", "2") ==
        "hierarchy_question: hidden by the page");
}

TEST_CASE("decoder_train and decoder_random_start: the page learns the Bahdanau lesson again",
          "[app][controls][seq2seq]") {
  ui::AppState app;
  const int bahdanau = preset_named(app, "learned_bahdanau");
  // Not a seq2seq model: no training controls.
  app.load_preset(0);
  CHECK(ui::api::set_control(app, "decoder_train", "true") ==
        "decoder_train: not there for this scenario");
  CHECK(ui::api::set_control(app, "decoder_random_start", "true") ==
        "decoder_random_start: not there for this scenario");

  app.load_preset(bahdanau);
  const std::string lesson = scenario::to_json(app.document());
  CHECK(app.decoder_untrainable().empty());
  std::set<std::string> ids;
  for (const json& c : listed(app)) ids.insert(c["id"].get<std::string>());
  CHECK(ids.count("decoder_train") == 1);
  CHECK(ids.count("decoder_random_start") == 1);
  // Hostile values: refused by name, nothing started.
  for (const char* bad : {"1", "\"true\"", "null", "[true]", "{}", "1e999"}) {
    INFO(bad);
    CHECK(ui::api::set_control(app, "decoder_train", bad).rfind("decoder_train: ", 0) == 0);
    CHECK_FALSE(app.decoder_training.playing);
  }
  // Random start: the seed's weights, the view on the Decoder tab, the lesson edited.
  CHECK(ui::api::set_control(app, "decoder_random_start", "true") == "");
  CHECK(app.view_tab_wanted == "decoder");
  app.recompute_if_needed();
  CHECK(app.runs());
  const attn::seq2seq::Params start = attn::seq2seq::init_params(attn::seq2seq::Sizes{}, 2);
  CHECK((app.scenario.seq2seq.params.W_out == start.W_out));
  CHECK(scenario::to_json(app.document()) != lesson);
  CHECK(app.decoder_step == app.decoder_words());  // the whole alignment on screen
  // Train plays until 1500 steps, then pauses: the lesson's model, bit for bit (the recipe is
  // the same ToyTrainer), the same translation and alignment.
  CHECK(ui::api::set_control(app, "decoder_train", "true") == "");
  CHECK(app.decoder_training.playing);
  app.play_decoder_training(1e9);
  CHECK_FALSE(app.decoder_training.playing);
  REQUIRE(app.decoder_training.trainer.has_value());
  CHECK(app.decoder_training.trainer->steps() == ui::AppState::kDecoderTrainSteps);
  CHECK(app.decoder_training.losses.size() == 1500);
  CHECK(app.decoder_training.losses.front() > 5.0f * app.decoder_training.losses.back());
  app.recompute_if_needed();
  CHECK(app.runs());
  CHECK(scenario::to_json(app.document()) == lesson);
  CHECK(app.decoder_words() == 7);
  CHECK(attn::batch_rows(app.trace.heads[0].weights) == 7);
  // A page that hides training hides both.
  CHECK(ui::api::hide_controls(app, "train") == "");
  CHECK(ui::api::set_control(app, "decoder_train", "true") == "decoder_train: hidden by the page");
  CHECK(ui::api::set_control(app, "decoder_random_start", "true") ==
        "decoder_random_start: hidden by the page");
}

TEST_CASE("a seq2seq model of other words does not train in the page, and says why",
          "[app][controls][seq2seq]") {
  ui::AppState app;
  const int bahdanau = preset_named(app, "learned_bahdanau");
  json doc = json::parse(scenario::to_json(app.presets[bahdanau].scenario));
  doc["seq2seq"]["target_words"][0] = "grand";  // one word renamed: not the toy language
  REQUIRE(app.set_scenario_json(doc.dump()).ok());
  CHECK(app.decoder_untrainable().find("toy language") != std::string::npos);
  CHECK(ui::api::set_control(app, "decoder_train", "true") ==
        "decoder_train: " + app.decoder_untrainable());
  const std::string before = scenario::to_json(app.document());
  CHECK(app.train_decoder(5, 1e9) == 0);
  CHECK_FALSE(app.decoder_training.error.empty());
  CHECK_FALSE(app.decoder_random_start());
  CHECK(scenario::to_json(app.document()) == before);
}
