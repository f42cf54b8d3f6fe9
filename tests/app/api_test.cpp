// ui::api::open_arrays: a NumPy file (loadArrays, "Open a file…", a dropped file) goes into
// the lesson on screen as far as the lesson fits it, and a file that fits nowhere is explained
// and changes nothing.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "app/model/api.h"
#include "app/model/app_state.h"
#include "app/text/explain.h"
#include "scenario/npy_bytes.h"
#include "scenario/package.h"
#include "scenario/scenario.h"

namespace {

ui::AppState lesson(const std::string& name) {
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, name));
  return s;
}

}  // namespace

TEST_CASE("open_arrays: a lone keys.npy replaces the keys and keeps the rest of the lesson",
          "[app][api]") {
  ui::AppState s = lesson("toy_2d");  // 2 queries, 4 keys and values of 2 numbers, labelled
  const std::string keys = test::npy("<f4", "(4, 2)", test::f32({1, 1, 2, 2, 3, 3, 4, 4}));
  REQUIRE(ui::api::open_arrays(s, keys, "downloads/keys.npy") == "");
  CHECK(s.scenario.keys[0](3, 1) == 4);
  CHECK(s.scenario.key_tokens == std::vector<std::vector<std::string>>{{"k1", "k2", "k3", "k4"}});
  CHECK(s.scenario.title.en == "Your data: keys.npy");
  CHECK(s.scenario.description.en ==
        "Read from keys.npy: keys 4×2. The rest is as in the lesson before.");
  CHECK(s.scenario.tour.empty());  // the lesson's notes speak of its own numbers
  CHECK(s.error.empty());
}

TEST_CASE("open_arrays: arrays of other sizes drop the labels, or all but the settings",
          "[app][api]") {
  ui::AppState s = lesson("toy_2d");
  // Three queries, keys and values: the labels of 2 queries and 4 keys no longer fit.
  const std::string three = test::npy("<f4", "(3, 2)", test::f32({1, 0, 0, 1, 1, 1}));
  const std::string qkv =
      test::zip({{"queries.npy", three}, {"keys.npy", three}, {"values.npy", three}});
  REQUIRE(ui::api::open_arrays(s, qkv, "qkv.npz") == "");
  CHECK(s.scenario.n_queries() == 3);
  CHECK(s.scenario.query_tokens.empty());
  CHECK(s.scenario.scoring == attn::Scoring::kScaledDot);

  // x for a lesson of queries, keys and values with causal masking: x takes their place.
  ui::AppState c = lesson("causal_decoder");  // x (5 × 4) projected by W_q, W_k, W_v of init
  const std::string x = test::npy("<f4", "(3, 2)", test::f32({1, 0, 0, 1, 1, 1}));
  REQUIRE(ui::api::open_arrays(c, x, "x.npy") == "");
  CHECK(c.scenario.n_queries() == 3);
  CHECK(c.scenario.causal);
}

TEST_CASE("open_arrays: a stack's layer weights by their state-dict names go into its layers",
          "[app][api]") {
  ui::AppState s = lesson("why_stack");  // two layers over a stream 18 wide
  REQUIRE(s.document().layers.size() == 2);
  const attn::Matrix second_q = s.document().layers[1].W_q;
  // Layer 0 writes nothing into the stream: its W_o zeros, from PyTorch's name for it.
  const std::string zeros = test::npy("<f4", "(18, 18)", test::f32(std::vector<float>(18 * 18)));
  REQUIRE(ui::api::open_arrays(s, test::zip({{"layers.0.W_o.npy", zeros}}), "state.npz") == "");
  REQUIRE(s.document().layers.size() == 2);
  CHECK(s.document().layers[0].W_o.isZero());
  CHECK(s.document().layers[1].W_q == second_q);  // the rest as in the lesson
  CHECK(s.document().self_attention);
  // A layer the lesson does not have: named, and nothing changes.
  const std::string before = ui::api::get_scenario(s);
  CHECK(ui::api::open_arrays(s, test::zip({{"layers.2.W_o.npy", zeros}}), "state.npz") ==
        "state.npz: layers.2.W_o: the scenario has 2 layers (layers.0 to layers.1)");
  CHECK(ui::api::get_scenario(s) == before);
}

TEST_CASE("open_arrays: a file that fits nowhere is named with its field, and changes nothing",
          "[app][api]") {
  ui::AppState s = lesson("toy_2d");
  const std::string before = ui::api::get_scenario(s);
  const std::string five_keys = test::npy("<f4", "(5, 2)", test::f32(std::vector<float>(10, 1)));
  CHECK(ui::api::open_arrays(s, five_keys, "keys.npy") ==
        "keys.npy: values: has 4 rows, expected 5 (one value per key)");
  CHECK(ui::api::open_arrays(s, "PK not really", "data.npz") ==
        "data.npz: not a ZIP file (no end of central directory)");
  CHECK(ui::api::open_arrays(s, five_keys, "W_z.npy") ==
        "W_z.npy: W_z: is not a matrix field (x, queries, keys, values, W_q, W_k, W_v, W_o, W, "
        "w_v, embed, unembed, and layers.0.W_q … for a layer's weights)");
  CHECK(ui::api::get_scenario(s) == before);
}

TEST_CASE("open_arrays: what names and shapes decide is decided before a number is inflated",
          "[app][api]") {
  // Each entry's deflate data hold its .npy header only, then bytes that are not deflate: had
  // its numbers been inflated, the error would say so ("inflates to a size its header does
  // not give").
  auto cut = [](const char* entry, const std::string& descr, const std::string& shape,
                uint64_t numbers) {
    const std::string header = test::npy(descr, shape, std::string(2048, '\0'));
    const uint64_t size = header.size() - 2048 + 4 * numbers;
    return test::zip_of({test::cut_entry(entry, header, size, size / 1000)});
  };
  ui::AppState s = lesson("toy_2d");  // 2 queries, 4 keys and values of 2 numbers
  const std::string before = ui::api::get_scenario(s);
  // A shape no scenario takes (a 64 MB keys.npy, as an .npz entry).
  CHECK(ui::api::open_arrays(s, cut("keys.npy", "<f4", "(4096, 4096)", 1 << 24), "big.npz") ==
        "big.npz: keys.shape[1]: is 4096, must be at most 1024");
  // More than the memory budget in any scenario: x of 4 × 4096 × 1024 (4 × 4096 × 4096 scores).
  CHECK(ui::api::open_arrays(s, cut("x.npy", "<f4", "(4, 4096, 1024)", 1 << 24), "x.npz") ==
        "x.npz: scenario: batch 4 × 4096 queries × 4096 keys needs at least 400 MB, more than "
        "the 384 MB the playground may use");
  // Shapes that do not fit the lesson (4 values): tried on zeros standing in for the numbers.
  CHECK(ui::api::open_arrays(s, cut("keys.npy", "<f4", "(4096, 2)", 4096 * 2), "k.npz") ==
        "k.npz: values: has 4 rows, expected 4096 (one value per key)");
  CHECK(ui::api::get_scenario(s) == before);
  // The same shape with its numbers is read, and opens.
  const std::string keys = test::npy("<f4", "(4, 2)", test::f32({1, 1, 2, 2, 3, 3, 4, 4}));
  REQUIRE(ui::api::open_arrays(s, test::zip({{"keys.npy", keys}}, true), "k.npz") == "");
  CHECK(s.scenario.keys[0](3, 1) == 4);
}

TEST_CASE("open_arrays: a damaged entry is refused by its CRC-32, and changes nothing",
          "[app][api]") {
  ui::AppState s = lesson("toy_2d");
  const std::string before = ui::api::get_scenario(s);
  const std::string keys = test::npy("<f4", "(4, 2)", test::f32({1, 1, 2, 2, 3, 3, 4, 4}));
  std::string z = test::zip({{"keys.npy", keys}});
  z[z.find(keys) + keys.size() - 2] ^= 0x10;  // 4 becomes 4.25
  CHECK(ui::api::open_arrays(s, z, "qkv.npz") ==
        "qkv.npz: keys.npy: damaged (CRC-32 does not match)");
  CHECK(ui::api::get_scenario(s) == before);
}

TEST_CASE("open_arrays: numbers that no attempt takes are explained as the lesson sees them",
          "[app][api]") {
  // Shapes that fit the lesson whole, numbers that are not finite.
  ui::AppState s = lesson("toy_2d");
  const std::string before = ui::api::get_scenario(s);
  const std::string nan_keys = test::npy("<f4", "(4, 2)", test::f32({1, NAN, 2, 2, 3, 3, 4, 4}));
  CHECK(ui::api::open_arrays(s, nan_keys, "keys.npy") ==
        "keys.npy: keys[0][1]: is not a finite number");
  CHECK(ui::api::get_scenario(s) == before);
  // Shapes that fit only the lesson's settings (its W_q is 2 × 2, x has 3 columns).
  ui::AppState w;
  REQUIRE(ui::api::set_scenario(w, R"({"version":1,"x":[[1,0],[0,1]],"W_q":[[1,0],[0,1]]})") == "");
  std::vector<float> x(9, 1.0f);
  CHECK(ui::api::open_arrays(w, test::npy("<f4", "(3, 3)", test::f32(x)), "x.npy") == "");
  CHECK(w.scenario.description.en ==
        "Read from x.npy: x 3×3. The scoring, temperature and masks are as in the lesson before.");
  REQUIRE(ui::api::set_scenario(w, R"({"version":1,"x":[[1,0],[0,1]],"W_q":[[1,0],[0,1]]})") == "");
  x[1] = NAN;
  CHECK(ui::api::open_arrays(w, test::npy("<f4", "(3, 3)", test::f32(x)), "x.npy") ==
        "x.npy: x[0][1]: is not a finite number");
}

TEST_CASE("accessible: the step's title, texts and matrix as text, in the UI's language",
          "[app][api]") {
  ui::AppState s = lesson("padded_batch");
  s.recompute_if_needed();
  ui::api::set_step(s, 5);  // the weights
  nlohmann::json j = nlohmann::json::parse(ui::api::accessible(s, std::nullopt));
  CHECK(j["step"] == 6);
  CHECK(j["steps"] == 8);
  CHECK(j["title"] == "Weights");
  CHECK(j["note"].get<std::string>().find("<pad>") != std::string::npos);
  const nlohmann::json& m = j["matrix"];
  CHECK(m["symbol"] == "A");
  CHECK(m["rows"] == 6);
  CHECK(m["cols"] == 6);
  CHECK(m["row_labels"][1] == "cat");
  CHECK(m["col_labels"][3] == "<pad>");
  // As the cells write them: row 1 ("the") spreads over the three real keys; padding is
  // masked (valid length 3).
  const attn::Matrix& a = s.head_trace(0, 0).weights[0];
  CHECK(m["cells"][0][0] == ui::cell_number(a(0, 0)));
  CHECK(m["cells"][0][3] == "0.00 masked");
  CHECK(m["truncated"] == false);
  CHECK(j["cell"].is_null());

  // The arithmetic of one cell, and the texts in Chinese.
  ui::api::set_language(s, "zh");
  j = nlohmann::json::parse(
      ui::api::accessible(s, ui::CellRef{ui::MatrixKind::kWeights, 0, 0, 2, 1}));
  CHECK(j["lang"] == "zh");
  CHECK(j["title"] == "权重");
  CHECK(j["matrix"]["row_labels"][1] == "猫");
  CHECK(j["matrix"]["cells"][0][3] == "0.00 已掩蔽");
  CHECK(j["cell"]["row"] == 3);
  CHECK(j["cell"]["col"] == 2);
  CHECK(j["cell"]["lines"].size() >= 3);
  // A cell outside the matrix has no arithmetic (and nothing breaks).
  for (const auto& [row, col] : std::vector<std::pair<int, int>>{{6, 0}, {0, 6}, {-1, 2}}) {
    j = nlohmann::json::parse(
        ui::api::accessible(s, ui::CellRef{ui::MatrixKind::kWeights, 0, 0, row, col}));
    CHECK(j["cell"].is_null());
  }
  ui::api::set_language(s, "en");
}

TEST_CASE("accessible: a large matrix is cut to its first rows and columns", "[app][api]") {
  ui::AppState s;
  std::string x = "[";
  for (int i = 0; i < 100; ++i)
    x += std::string(i ? "," : "") + "[" + std::to_string(i % 7) + ", 1]";
  REQUIRE(ui::api::set_scenario(s, "{\"version\": 1, \"x\": " + x + "]}") == "");
  s.recompute_if_needed();
  ui::api::set_step(s, 2);
  const nlohmann::json j = nlohmann::json::parse(ui::api::accessible(s, std::nullopt));
  CHECK(j["matrix"]["rows"] == 100);
  CHECK(j["matrix"]["cells"].size() == ui::api::kAccessibleRows);
  CHECK(j["matrix"]["cells"][0].size() == ui::api::kAccessibleCols);
  CHECK(j["matrix"]["truncated"] == true);
}

TEST_CASE("limits: the numbers the page checks are the ones the app enforces", "[app][api]") {
  const nlohmann::json l = nlohmann::json::parse(ui::api::limits());
  ui::AppState s;
  // A batch one past max_batch is refused, naming the field; max_batch items are read.
  const auto batch_of = [](int items) {
    nlohmann::json x = nlohmann::json::array();
    for (int b = 0; b < items; ++b) x.push_back({{1.0, 0.0}, {0.0, 1.0}});
    return nlohmann::json{{"version", 1}, {"x", x}}.dump();
  };
  const int max_batch = l.at("max_batch").get<int>();
  CHECK(ui::api::set_scenario(s, batch_of(max_batch)) == "");
  CHECK(ui::api::set_scenario(s, batch_of(max_batch + 1)).rfind("x: ", 0) == 0);
  // Columns: one past max_cols is refused.
  const auto cols_of = [](int cols) {
    return nlohmann::json{{"version", 1},
                          {"x", {std::vector<double>(static_cast<size_t>(cols), 0.5)}}}
        .dump();
  };
  const int max_cols = l.at("max_cols").get<int>();
  CHECK(ui::api::set_scenario(s, cols_of(max_cols)) == "");
  CHECK(ui::api::set_scenario(s, cols_of(max_cols + 1)).rfind("x[0]: ", 0) == 0);
  // A task's seed, the learning rate and the optimizers.
  const double max_seed = l.at("max_task_seed").get<double>();
  CHECK(ui::api::load_task(s, "sort", max_seed) == "");
  CHECK(ui::api::load_task(s, "sort", max_seed + 1).rfind("seed: ", 0) == 0);
  const double max_lr = l.at("max_learning_rate").get<double>();
  CHECK(ui::api::set_training(s, max_lr, "", "") == "");
  CHECK(ui::api::set_training(s, max_lr * 1.001, "", "").rfind("lr: ", 0) == 0);
  for (const auto& o : l.at("optimizers"))
    CHECK(ui::api::set_training(s, NAN, o.get<std::string>(), "") == "");
  CHECK(ui::api::set_training(s, NAN, "rmsprop", "") == "optimizer: must be \"adam\" or \"sgd\"");
  CHECK(l.at("max_train_steps").get<int>() > 0);
  // The steps: 0 to max_step, the last the output.
  CHECK(l.at("max_step").get<int>() == static_cast<int>(ui::Step::kOutput));
  ui::api::set_step(s, l.at("max_step").get<int>());
  CHECK(s.step == ui::Step::kOutput);
  CHECK(l.at("memory_budget_bytes").get<int64_t>() == ui::AppState::kMemoryBudget);
  CHECK(l.at("max_file_bytes").get<int64_t>() > l.at("memory_budget_bytes").get<int64_t>() / 8);
  CHECK(l.at("max_scenario_chars").get<int64_t>() >= 1 << 20);
}

TEST_CASE("set_path: a course's lessons are the path that Previous, Next and the place follow",
          "[app][api]") {
  ui::AppState s = lesson("why_so_tall");
  auto place = [&s] { return nlohmann::json::parse(ui::api::accessible(s, std::nullopt)); };
  const int all = static_cast<int>(s.presets.size());
  REQUIRE(all > 3);
  CHECK(place()["lesson_count"] == all);
  const std::string second = s.presets[1].name;  // next on the whole path
  CHECK(place()["next"] == second);

  REQUIRE(ui::api::set_path(s, "why_so_tall,padded_batch") == "");
  nlohmann::json j = place();
  CHECK(j["lesson_index"] == 0);
  CHECK(j["lesson_count"] == 2);
  CHECK(j["lesson_place"] == "Lesson 1 of 2");
  CHECK(j["previous"] == "");
  CHECK(j["next"] == "padded_batch");
  REQUIRE(ui::api::load_preset(s, "padded_batch"));
  j = place();
  CHECK(j["lesson_index"] == 1);
  CHECK(j["previous"] == "why_so_tall");
  CHECK(j["next"] == "");
  // A lesson off the course's path has no place on it.
  REQUIRE(ui::api::load_preset(s, second));
  CHECK(place()["lesson_index"] == -1);
  CHECK(place()["lesson_place"] == "");

  // Refused, naming the entry, and the path stays as it was.
  CHECK(ui::api::set_path(s, "why_so_tall,nope") ==
        "lessons[1]: \"nope\" is not a lesson of this playground");
  CHECK(ui::api::set_path(s, "padded_batch,padded_batch") ==
        "lessons[1]: \"padded_batch\" is on the path already");
  CHECK(ui::api::set_path(s, "why_so_tall,") ==
        "lessons[1]: \"\" is not a lesson of this playground");
  CHECK(ui::api::set_path(s, std::string("a\n\"b", 4)) ==
        "lessons[0]: \"a??b\" is not a lesson of this playground");
  CHECK(ui::api::set_path(s, std::string(1 << 20, 'x')).rfind("lessons: is longer", 0) == 0);
  CHECK(s.path.size() == 2);
  // "" walks every lesson again.
  REQUIRE(ui::api::set_path(s, "") == "");
  CHECK(place()["lesson_count"] == all);
  CHECK(place()["lesson_index"] == 1);
}

TEST_CASE("add_lesson: a course's own lesson joins its path; a hostile one adds nothing",
          "[app][api][own]") {
  ui::AppState s;
  const size_t all = s.presets.size();
  const std::string good = R"({"version": 1, "title": "Ours", "x": [[1, 0], [0, 1]]})";
  REQUIRE(ui::api::add_lesson(s, "ours", good) == "");
  REQUIRE(s.presets.size() == all + 1);
  const nlohmann::json listed = nlohmann::json::parse(ui::api::presets(s));
  CHECK(listed.back()["name"] == "ours");
  CHECK(listed.back()["title"] == "Ours");
  CHECK(listed.back().value("own", false));
  CHECK(!listed.front().contains("own"));
  REQUIRE(ui::api::set_path(s, "why_so_tall,ours") == "");
  REQUIRE(ui::api::load_preset(s, "ours"));
  const nlohmann::json place = nlohmann::json::parse(ui::api::accessible(s, std::nullopt));
  CHECK(place["lesson_place"] == "Lesson 2 of 2");
  CHECK(place["previous"] == "why_so_tall");

  // Each refused, naming the file and the field; nothing is added.
  const auto refused = [&](const std::string& name, const std::string& json) {
    const std::string e = ui::api::add_lesson(s, name, json);
    CHECK(s.presets.size() == all + 1);
    return e;
  };
  CHECK(refused("why_so_tall", good) ==
        "course/why_so_tall.json: \"why_so_tall\" is a lesson of this playground already");
  CHECK(refused("ours", good) ==
        "course/ours.json: \"ours\" is a lesson of this playground already");
  for (const std::string& name :
       std::vector<std::string>{"", "../x", "Ours", std::string(33, 'a'), std::string("a\0b", 3)})
    CHECK(refused(name, good).rfind("lessons: a lesson of the course's own needs a name", 0) == 0);
  CHECK(refused("bad", R"({"version": 1, "x": [[1, "a"], [0, 1]]})") ==
        "course/bad.json: x[0][1]: must be a number, got a string");
  CHECK(refused("cut", R"({"version": 1, "x": [[1, 0])").rfind("course/cut.json: json: ", 0) == 0);
  CHECK(refused("deep", std::string(100000, '[')).rfind("course/deep.json: ", 0) == 0);
  CHECK(refused("big", std::string(2 << 20, ' ')) == "course/big.json: is larger than 1 MB");
  CHECK(refused("tour", R"({"version": 1, "x": [[1, 0], [0, 1]],
                           "tour": [{"step": 1, "text": "hi", "controls": ["nope"]}]})") ==
        "course/tour.json: tour[0].controls[0]: no control \"nope\"");
  // At most 16 of a course's own.
  for (int i = 1; i < 16; ++i) REQUIRE(ui::api::add_lesson(s, "l" + std::to_string(i), good) == "");
  CHECK(ui::api::add_lesson(s, "l16", good) ==
        "course/l16.json: a course has at most 16 lessons of its own");
  CHECK(s.presets.size() == all + 16);
}

TEST_CASE("add_lesson: a lesson of the course's own without a title is named by its name",
          "[app][api][own]") {
  ui::AppState s;
  REQUIRE(ui::api::add_lesson(s, "bare", R"({"version": 1, "x": [[1, 0], [0, 1]]})") == "");
  REQUIRE(ui::api::load_preset(s, "bare"));
  auto shown = [&s] { return nlohmann::json::parse(ui::api::accessible(s, std::nullopt)); };
  REQUIRE(ui::api::set_path(s, "why_so_tall,bare") == "");
  CHECK(shown()["lesson"] == "bare");
  CHECK(shown()["lesson_place"] == "Lesson 2 of 2");
  CHECK(shown()["previous"] == "why_so_tall");
  // The lesson select and the top bar call it so too.
  CHECK(s.presets.back().title("zh") == "bare");
  CHECK(s.lesson_title("en") == "bare");
}

TEST_CASE("package: the scenario shown, as edited, is a lesson of the course's own (shown)",
          "[app][api][own]") {
  ui::AppState s = lesson("why_so_tall");
  REQUIRE(ui::api::set_control(s, "temperature", "2") == "");
  const std::string edited = ui::api::get_scenario(s);
  ui::api::PackageJob job;
  REQUIRE(ui::api::package_start(
              s, &job, R"({"title": "T", "lessons": ["padded_batch"], "shown": "tall_ours"})") ==
          "");
  CHECK(job.spec.lessons == std::vector<std::string>{"padded_batch", "tall_ours"});
  REQUIRE(job.spec.own.size() == 1);
  CHECK(job.spec.own[0].name == "tall_ours");
  CHECK(job.spec.own[0].json == edited);
  REQUIRE(ui::api::package_add(&job, "index.html", "page") == "");
  const scenario::ZipResult zip = ui::api::package_finish(&job);
  REQUIRE(zip.ok());
  CHECK(zip.bytes.find(edited) != std::string::npos);
  CHECK(zip.bytes.find("lessons=padded_batch,tall_ours&amp;own=tall_ours&amp;") !=
        std::string::npos);
  // The whole path, then the lesson of its own.
  REQUIRE(ui::api::package_start(s, &job, R"({"title": "T", "shown": "tall_ours"})") == "");
  CHECK(job.spec.lessons.size() == s.presets.size() + 1);
  CHECK(job.spec.lessons.front() == s.presets.front().name);
  CHECK(job.spec.lessons.back() == "tall_ours");
  ui::api::package_finish(&job);

  const auto refused = [&s](const std::string& spec) {
    ui::api::PackageJob bad;
    const std::string e = ui::api::package_start(s, &bad, spec);
    CHECK(!bad.open);
    return e;
  };
  CHECK(refused(R"({"title": "T", "shown": "why_so_tall"})") ==
        "shown: \"why_so_tall\" is a lesson of this playground already; give yours another name");
  CHECK(refused(R"({"title": "T", "shown": "../x"})") ==
        "shown: \"../x\" is not a lesson name (1 to 32 of a-z, 0-9 and _)");
  CHECK(refused(R"({"title": "T", "shown": 3})") ==
        "shown: must be the name of the lesson of your own");
  // A lesson a course added is not one of the site's to package.
  REQUIRE(ui::api::add_lesson(s, "theirs", ui::api::get_scenario(s)) == "");
  CHECK(refused(R"({"title": "T", "lessons": ["theirs"]})") ==
        "lessons[0]: \"theirs\" is not a lesson of this playground");
}

TEST_CASE("package: the page's course package is scenario::write_package's, its fields checked",
          "[app][api]") {
  ui::AppState s;
  REQUIRE(s.presets.size() > 3);
  // The formats, in scenario::kPackageFormats's order, with a label each.
  const nlohmann::json formats = nlohmann::json::parse(ui::api::package_formats());
  REQUIRE(formats.size() == std::size(scenario::kPackageFormats));
  for (size_t i = 0; i < formats.size(); ++i) {
    CHECK(formats[i]["value"] == scenario::kPackageFormats[i]);
    CHECK(!formats[i]["label"].get<std::string>().empty());
  }
  CHECK(formats[0]["label"] == "SCORM 2004");
  CHECK(formats.back()["label"] == "cmi5 (xAPI)");

  // A file with its gzip copy (deflated from it), and a threaded build (left out).
  const std::string app_js = "// app" + std::string(4000, ' ');
  const std::vector<scenario::ZipEntry> site = {
      {"index.html", "<!doctype html>"},
      {"js/app.js", app_js, test::gzip_member(app_js)},
      {"attention-playground.wasm", std::string(4, '\0')},
      {"attention-playground-threads.wasm", std::string(4, '\0')}};
  ui::api::PackageJob job;
  const std::string spec = nlohmann::json{
      {"format", "scorm12"},
      {"title", "Attention, week 3"},
      {"lessons", {"why_so_tall", "padded_batch"}},
      {"pass", 70}}.dump();
  REQUIRE(ui::api::package_start(s, &job, spec) == "");
  for (const scenario::ZipEntry& f : site)
    REQUIRE(ui::api::package_add(&job, f.name, f.bytes, f.gzip) == "");
  CHECK(job.files.size() == 3);  // the threaded build let go at once
  const scenario::ZipResult zip = ui::api::package_finish(&job);
  REQUIRE(zip.ok());
  CHECK(!job.open);
  CHECK(job.files.empty());  // let go once written
  CHECK(zip.bytes.find("attention-playground-threads") == std::string::npos);
  CHECK(zip.bytes.size() < app_js.size());  // js/app.js deflated
  // The same bytes as the CLI's (the same spec and files through scenario::write_package).
  scenario::PackageSpec same;
  same.format = "scorm12";
  same.title = "Attention, week 3";
  same.lessons = {"why_so_tall", "padded_batch"};
  same.pass = 70;
  CHECK(zip.bytes == scenario::write_package(same, site).bytes);
  // The launch address, as the manifest writes it (XML-escaped).
  const std::string launch =
      "index.html?lms=scorm12&amp;lessons=why_so_tall,padded_batch&amp;pass=70";
  CHECK(zip.bytes.find(launch) != std::string::npos);
  CHECK(zip.bytes.find("imsmanifest.xml") != std::string::npos);

  // Every field is hostile: each problem is named, and no job is left open.
  const auto refused = [&s](const nlohmann::json& j) {
    ui::api::PackageJob bad;
    const std::string e =
        ui::api::package_start(s, &bad, j.is_string() ? j.get<std::string>() : j.dump());
    CHECK(!bad.open);
    return e;
  };
  CHECK(refused("not json").rfind("package: must be {", 0) == 0);
  CHECK(refused(nlohmann::json::array()).rfind("package: must be {", 0) == 0);
  CHECK(refused({{"title", std::string(300, 'x')}}) == "title: must be 1 to 200 characters");
  CHECK(refused({{"title", ""}}) == "title: must be 1 to 200 characters");
  CHECK(refused({{"format", "scorm2004"}}) == "title: must be 1 to 200 characters");
  CHECK(refused({{"title", "a\nb"}}).rfind("title: must be one line", 0) == 0);
  CHECK(refused({{"title", 7}}) == "title: must be a string");
  CHECK(refused({{"title", "T"}, {"format", "pdf"}}).rfind("format: must be ", 0) == 0);
  CHECK(refused({{"title", "T"}, {"format", 1}}) == "format: must be a string");
  CHECK(refused({{"title", "T"}, {"pass", 101}}) == "pass: must be a whole percent from 0 to 100");
  CHECK(refused({{"title", "T"}, {"pass", -1}}) == "pass: must be a whole percent from 0 to 100");
  CHECK(refused({{"title", "T"}, {"pass", 70.5}}) == "pass: must be a whole percent from 0 to 100");
  CHECK(refused({{"title", "T"}, {"pass", "70"}}) == "pass: must be a whole percent from 0 to 100");
  CHECK(refused({{"title", "T"}, {"lessons", "why_so_tall"}}) ==
        "lessons: must be an array of lesson names");
  CHECK(refused({{"title", "T"}, {"lessons", {"why_so_tall", 3}}}) ==
        "lessons[1]: must be a string");
  CHECK(refused({{"title", "T"}, {"lessons", {"why_so_tall", "nope"}}}) ==
        "lessons[1]: \"nope\" is not a lesson of this playground");
  CHECK(refused({{"title", "T"}, {"lessons", {"why_so_tall", "why_so_tall"}}}) ==
        "lessons[1]: \"why_so_tall\" is listed twice");
  CHECK(refused({{"title", "T"}, {"lessons", {"../x"}}}).rfind("lessons[0]: ", 0) == 0);
  CHECK(refused({{"title", "T"}, {"lessons", std::vector<std::string>(1000, "a")}})
            .rfind("lessons: must name at most", 0) == 0);
  CHECK(refused({{"title", "T"}, {"extra", 1}}) == "package: unknown field \"extra\"");

  // Files: none without a started job; a bad name is named by the archive, and ends the job.
  ui::api::PackageJob none;
  CHECK(ui::api::package_add(&none, "index.html", "x") == "package: no package is being written");
  CHECK(ui::api::package_finish(&none).error == "package: no package is being written");
  REQUIRE(ui::api::package_start(s, &job, R"({"title": "T"})") == "");
  REQUIRE(ui::api::package_add(&job, "../etc/passwd", "x") == "");
  const scenario::ZipResult bad = ui::api::package_finish(&job);
  CHECK(!bad.ok());
  CHECK(bad.error.rfind("../etc/passwd: ", 0) == 0);
  REQUIRE(ui::api::package_start(s, &job, R"({"title": "T"})") == "");
  REQUIRE(ui::api::package_add(&job, "imsmanifest.xml", "<x/>") == "");
  CHECK(!ui::api::package_finish(&job).ok());
  // Too much: the job ends at once.
  REQUIRE(ui::api::package_start(s, &job, R"({"title": "T"})") == "");
  job.bytes = ui::api::kMaxPackageBytes;
  CHECK(ui::api::package_add(&job, "big.bin", "x").rfind("package: more than", 0) == 0);
  CHECK(!job.open);
}

TEST_CASE("package: Export → \"Course package…\" is the page's, where it opens the dialog",
          "[app][api]") {
  ui::AppState s;
  // Natively (the desktop app) there is no such item: attention-cli package writes one.
  CHECK(
      ui::api::set_control(s, "export", "\"course_package\"").rfind("export: must be one of", 0) ==
      0);
  s.in_page = true;
  s.events.clear();
  CHECK(ui::api::set_control(s, "export", "\"course_package\"") == "");
  CHECK(s.events == std::vector<std::string>{"course_package"});
  CHECK(s.exports_due.empty());
}
