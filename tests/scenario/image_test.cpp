// Attention over a picture (scenario/image.h): a patch's numbers computed by hand, the keys and
// values made from the patches, written back only when edited, every hostile "image" refused
// by name, and the street lesson's numbers.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/attention.h"
#include "scenario/image.h"
#include "scenario/scenario.h"

namespace {

// 4 × 2 pixels, patches of 2: a red patch, then one whose top row is grey (128) and bottom
// row black.
const char kTiny[] = R"("image": {"width": 4, "height": 2, "patch": 2,
  "pixels": ["ff0000ff0000808080808080", "ff0000ff0000000000000000"]})";

std::string with(const std::string& fields) {
  return std::string(R"({"version": 1, )") + fields + "}";
}

std::string error_of(const std::string& fields) {
  return scenario::parse(with(fields)).error;
}

}  // namespace

TEST_CASE("a picture's patches become keys and values: their colour and edges", "[image]") {
  const scenario::ParseResult r =
      scenario::parse(with(std::string(kTiny) + R"(, "queries": [[1, 0, 0, 1]])"));
  REQUIRE(r.error == "");
  const scenario::Scenario& s = r.scenario;
  REQUIRE(s.image.patches() == 2);
  REQUIRE(s.keys.size() == 1);
  REQUIRE(s.keys[0].rows() == 2);
  REQUIRE(s.keys[0].cols() == scenario::kImageFeatures);
  // The red patch: red 1, nothing else, no edges.
  CHECK(s.keys[0](0, 0) == 1.0f);
  CHECK(s.keys[0](0, 1) == 0.0f);
  CHECK(s.keys[0](0, 2) == 0.0f);
  CHECK(s.keys[0](0, 3) == 0.0f);
  // Grey over black: each channel 2 × 128 / (4 × 255) = 0.251 → 0.25; brightness changes by
  // 128/255 on the two vertical pairs and not on the two horizontal ones: 2 × 0.251 = 0.50.
  for (int c = 0; c < 3; ++c) CHECK(s.keys[0](1, c) == 0.25f);
  CHECK(s.keys[0](1, 3) == 0.5f);
  CHECK(s.values[0] == s.keys[0]);
  CHECK(scenario::patch_name(s.image, 1) == "r1c2");

  // Written out: the picture, not its keys (they are made from it), and read back the same.
  const std::string json = scenario::to_json(s);
  CHECK(json.find("\"image\":{\"width\":4,\"height\":2,\"patch\":2,\"pixels\":["
                  "\"ff0000ff0000808080808080\"") != std::string::npos);
  CHECK(json.find("\"keys\"") == std::string::npos);
  const scenario::ParseResult again = scenario::parse(json);
  REQUIRE(again.error == "");
  CHECK(again.scenario.image == s.image);
  CHECK(again.scenario.keys[0] == s.keys[0]);

  // A learner's edit of the keys is written and read back.
  scenario::Scenario edited = s;
  edited.keys.mut(0)(0, 3) = 0.75f;
  const std::string edited_json = scenario::to_json(edited);
  CHECK(edited_json.find("\"keys\"") != std::string::npos);
  CHECK(edited_json.find("\"values\"") == std::string::npos);
  const scenario::ParseResult back = scenario::parse(edited_json);
  REQUIRE(back.error == "");
  CHECK(back.scenario.keys[0](0, 3) == 0.75f);
  CHECK(back.scenario.values[0] == s.values[0]);
}

TEST_CASE("a hostile picture is refused by the field at fault", "[image]") {
  const std::string q = R"(, "queries": [[1, 0, 0, 1]])";
  const auto image = [&](const std::string& inside) {
    return error_of(R"("image": {)" + inside + "}" + q);
  };
  const std::string rows = R"("pixels": ["ff0000ff0000808080808080", "ff0000ff0000000000000000"])";
  CHECK(image(R"("width": 0, "height": 2, "patch": 2, )" + rows) ==
        "image.width: is 0, must be at least 2");
  CHECK(image(R"("width": 1e9, "height": 2, "patch": 2, )" + rows) ==
        "image.width: is 1000000000.0, must be at most 256");
  CHECK(image(R"("width": "4", "height": 2, "patch": 2, )" + rows).rfind("image.width: ", 0) == 0);
  CHECK(image(R"("width": 4, "height": 2, "patch": 3, )" + rows) ==
        "image.patch: 3 must divide the width (4) and the height (2)");
  CHECK(image(R"("width": 4, "height": 2, "patch": 2, )" + rows + R"(, "alpha": 1)") ==
        "image.alpha: unknown field");
  CHECK(image(R"("width": 4, "height": 2, "patch": 2)") == "image.pixels: missing");
  CHECK(image(R"("width": 4, "height": 3, "patch": 1, )" + rows) ==
        "image.patch: is 1, must be at least 2");
  CHECK(image(R"("width": 4, "height": 4, "patch": 2, )" + rows) ==
        "image.pixels: has 2 rows, expected the height, 4");
  CHECK(
      image(
          R"("width": 4, "height": 2, "patch": 2, "pixels": ["ff0000", "ff0000ff0000000000000000"])") ==
      "image.pixels[0]: has 6 characters, expected 24 (6 hex digits, RRGGBB, for each of the 4 "
      "pixels)");
  CHECK(
      image(
          R"("width": 4, "height": 2, "patch": 2, "pixels": ["ff0000ff00008080808080zz", "ff0000ff0000000000000000"])") ==
      "image.pixels[0]: character 22 is not a hex digit (0-9, a-f)");
  CHECK(
      image(R"("width": 4, "height": 2, "patch": 2, "pixels": [7, "ff0000ff0000000000000000"])") ==
      "image.pixels[0]: must be a string, got a number");
  CHECK(error_of(R"("image": [1, 2])" + q).rfind("image: must be an object", 0) == 0);
  // Too many patches: 256 × 256 in patches of 2 would be 16384 keys.
  {
    std::string big = R"("width": 256, "height": 256, "patch": 2, "pixels": [)";
    for (int y = 0; y < 256; ++y)
      big += std::string(y ? "," : "") + "\"" + std::string(6 * 256, 'a') + "\"";
    CHECK(image(big + "]") ==
          "image.patch: makes 16384 patches, at most 256 (make the patches larger)");
  }
  // What goes with a picture, and what does not.
  CHECK(error_of(std::string(kTiny)) ==
        "queries: missing; the picture's patches are the keys, the queries say what to look for");
  CHECK(error_of(std::string(kTiny) + R"(, "x": [[1, 0, 0, 1]])") ==
        "image: not with \"x\": the picture's patches are the keys, and queries say what to look "
        "for");
  CHECK(error_of(std::string(kTiny) + R"(, "queries": [[[1, 0, 0, 1]], [[0, 1, 0, 0]]])") ==
        "queries: must be one batch item: there is one picture");
  CHECK(error_of(std::string(kTiny) + q + R"(, "keys": [[1, 0, 0, 1]])") ==
        "keys: must have one row for each of the picture's 2 patches (or be left out)");
  // A query of the wrong width is the core's usual error.
  CHECK(error_of(std::string(kTiny) + R"(, "queries": [[1, 0, 0]])") != "");
}

TEST_CASE("the street lesson: the sign's writing is the patch the first query finds", "[image]") {
  std::ifstream in(std::string(AP_ASSETS_DIR) + "/presets/where_the_eye_goes.json");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const scenario::ParseResult r = scenario::parse(text.str());
  REQUIRE(r.error == "");
  const scenario::Scenario& s = r.scenario;
  REQUIRE(s.image.patches() == 40);
  // r3c3, the writing: red 0.87, green 0.41, blue 0.35, edges 0.48 (the lesson's notes).
  const attn::Matrix& k = s.keys[0];
  CHECK(k(18, 0) == Approx(0.87f));
  CHECK(k(18, 1) == Approx(0.41f));
  CHECK(k(18, 2) == Approx(0.35f));
  CHECK(k(18, 3) == Approx(0.48f));
  CHECK(k(19, 3) == 0.0f);  // r3c4, the plain panel: no edges
  const attn::Trace t = attn::run(scenario::to_problem(s));
  const attn::Matrix& w = t.heads[0].weights[0];
  int best0 = 0, best1 = 0;
  for (int j = 0; j < 40; ++j) {
    if (w(0, j) > w(0, best0)) best0 = j;
    if (w(1, j) > w(1, best1)) best1 = j;
  }
  CHECK(best0 == 18);  // the writing
  CHECK(w(0, 18) == Approx(0.435).margin(0.001));
  CHECK(best1 == 19);                             // "just red": the plain panel
  CHECK(w(2, 0) == Approx(0.051).margin(0.001));  // the sky shared by 12 patches
}
