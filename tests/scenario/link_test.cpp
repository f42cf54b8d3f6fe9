// The link codec: format, round trips of every preset and view, malformed links and their
// error texts, and 10,000 random and mutated links that must never crash.
//
// [SECTION] Helpers
// [SECTION] Format and base64url
// [SECTION] Round trips
// [SECTION] Malformed links: one case per class, each checking the error text
// [SECTION] Random and mutated links
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/random.h"
#include "preset_files.h"
#include "scenario/link.h"
#include "scenario/scenario.h"
#include "scenario/zip.h"

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

scenario::Scenario preset(const std::string& name) {
  return test::preset(name).scenario;
}

scenario::Scenario small() {
  const scenario::ParseResult r = scenario::parse(R"({"version":1,"x":[[1,0],[0,1]]})");
  REQUIRE(r.error == "");
  return r.scenario;
}

// A link around any JSON text, to test what the reader makes of it: as links were written
// before they had a checksum (they still open), or with one, as encode_link writes them.
std::string link_of(const std::string& json) {
  return "v1." + scenario::base64url_encode(json);
}
std::string with_checksum(const std::string& link) {
  const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const uint32_t crc = scenario::crc32(link);
  std::string sum;
  for (int shift = 30; shift >= 0; shift -= 6) sum += kAlphabet[crc >> shift & 63];
  return link + "." + sum;
}
// A written link without its checksum: a link as they were before.
std::string without_checksum(const std::string& link) {
  return link.substr(0, link.rfind('.'));
}

const char kSmall[] = R"({"version":1,"x":[[1,0],[0,1]]})";

std::string error_of(const std::string& fragment) {
  return scenario::decode_link(fragment).error;
}

std::string error_of_json(const std::string& json) {
  return error_of(link_of(json));
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Format and base64url
//-----------------------------------------------------------------------------

TEST_CASE("base64url follows RFC 4648 §5 without padding", "[link]") {
  CHECK(scenario::base64url_encode("") == "");
  CHECK(scenario::base64url_encode("f") == "Zg");
  CHECK(scenario::base64url_encode("fo") == "Zm8");
  CHECK(scenario::base64url_encode("foo") == "Zm9v");
  CHECK(scenario::base64url_encode("foob") == "Zm9vYg");
  CHECK(scenario::base64url_encode("fooba") == "Zm9vYmE");
  CHECK(scenario::base64url_encode("foobar") == "Zm9vYmFy");
  CHECK(scenario::base64url_encode("\xfb\xff\xbf") == "-_-_");
}

TEST_CASE("CRC-32 is zlib's (IEEE 802.3)", "[link]") {
  CHECK(scenario::crc32("") == 0u);
  CHECK(scenario::crc32("a") == 0xE8B7BE43u);
  CHECK(scenario::crc32("123456789") == 0xCBF43926u);  // the standard check value
  CHECK(scenario::crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
}

TEST_CASE("a link is v1., base64url of compact JSON with the non-default view, and a checksum",
          "[link]") {
  scenario::ViewState view;
  CHECK(scenario::encode_link(small(), view) ==
        with_checksum(
            link_of(R"({"scenario":{"version":1,"x":[[1,0],[0,1]],"scoring":"scaled_dot"}})")));
  // The checksum of "v1." and the payload, 6 base64url characters (pinned: links written now
  // must open in every later playground).
  CHECK(scenario::encode_link(small(), view) ==
        "v1.eyJzY2VuYXJpbyI6eyJ2ZXJzaW9uIjoxLCJ4IjpbWzEsMF0sWzAsMV1dLCJzY29yaW5nIjoic2NhbGVkX2Rv"
        "dCJ9fQ.BW_wFs");
  view.step = 3;
  view.lang = "zh";
  view.embed = true;
  view.panels = {"pipeline", "heatmap"};
  CHECK(scenario::encode_link(small(), view) ==
        with_checksum(link_of(
            R"({"scenario":{"version":1,"x":[[1,0],[0,1]],"scoring":"scaled_dot"},)"
            R"("view":{"step":3,"lang":"zh","panels":["pipeline","heatmap"],"embed":true}})")));
  const std::string link = scenario::encode_link(preset("padded_batch"), view);
  CHECK(link.rfind("v1.", 0) == 0);
  const size_t dot = link.rfind('.');
  CHECK(dot == link.size() - 7);
  CHECK(link.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                               3) == dot);
  CHECK(link.find_first_not_of("ABCD", dot + 1) == dot + 2);  // the first holds 2 bits
}

TEST_CASE("every one-character change of a written link is refused as damaged", "[link][bad]") {
  // Without a checksum, single-character flips open silently (as another state, or the same
  // one by chance). Every position of links of three sizes, each changed to characters that
  // keep it base64url, to the separators and to others: refused, or (never, with the
  // checksum) the identical state.
  scenario::ViewState view;
  view.step = 4;
  view.lang = "zh";
  view.progress = {{"toy_2d", "r-"}};
  const std::string links[] = {scenario::encode_link(small(), scenario::ViewState()),
                               scenario::encode_link(preset("toy_2d"), view),
                               scenario::encode_link(preset("multi_head"), view)};
  const char kInto[] = {'A', 'B', 'Q', 'w', '9', '-', '_', '.', '=', '%', '#', '1', '\x7f'};
  size_t flips = 0, damaged = 0;
  for (const std::string& link : links) {
    const scenario::LinkResult original = scenario::decode_link(link);
    REQUIRE(original.error == "");
    for (size_t at = 0; at < link.size(); ++at) {
      // Every position of the short link and of both ends of the long ones, a sample between.
      if (link.size() > 200 && at > 120 && at + 120 < link.size() && at % 29 != 0) continue;
      for (char c : kInto) {
        if (link[at] == c) continue;
        std::string bent = link;
        bent[at] = c;
        ++flips;
        const scenario::LinkResult r = scenario::decode_link(bent);
        if (r.ok()) {
          INFO("at " << at << ", '" << link[at] << "' -> '" << c << "' opens: " << bent);
          CHECK(scenario::to_json(r.scenario) == scenario::to_json(original.scenario));
          CHECK(r.view == original.view);
          continue;
        }
        INFO("at " << at << ", '" << link[at] << "' -> '" << c << "': " << r.error);
        CHECK(r.error.find("damaged") != std::string::npos);
        damaged += r.error.find("damaged") != std::string::npos;
      }
    }
  }
  INFO(flips << " flips");
  CHECK(damaged == flips);
  CHECK(flips > 4000);
}

TEST_CASE("a link cut short or missing a character says so", "[link][bad]") {
  const std::string link = scenario::encode_link(preset("toy_2d"), scenario::ViewState());
  const size_t dot = link.rfind('.');
  // A character missing or extra anywhere: the checksum no longer matches.
  for (size_t at : {size_t{0}, size_t{3}, size_t{40}, dot - 1, dot + 1, link.size() - 1}) {
    INFO("at " << at);
    std::string shorter = link, longer = link;
    shorter.erase(at, 1);
    longer.insert(at, 1, 'A');
    CHECK(error_of(shorter).find("damaged") != std::string::npos);
    CHECK(error_of(longer).find("damaged") != std::string::npos);
  }
  // Cut inside the checksum, or just before it.
  CHECK(error_of(link.substr(0, link.size() - 2)) ==
        "link: damaged or cut short (its checksum after the last '.' has 4 characters, expected "
        "6)");
  CHECK(error_of(link.substr(0, dot + 1)) ==
        "link: damaged or cut short (its checksum after the last '.' has 0 characters, expected "
        "6)");
  // Cut before it: the payload is read as a link without one, and ends early.
  CHECK_THAT(error_of(link.substr(0, dot - 8)),
             Catch::StartsWith("link: truncated (the JSON ends early: "));
}

TEST_CASE("links written before the checksum open as they did", "[link]") {
  // Every lesson with a full view, as links were written before: v1. and the payload alone.
  scenario::ViewState view;
  view.step = 6;
  view.lang = "zh";
  view.panels = {"lesson"};
  view.train = {"sort", 7, 300, 0.1f, false};
  for (const char* name : kLessonNames) {
    INFO(name);
    const scenario::Scenario s = preset(name);
    const std::string link = scenario::encode_link(s, view);
    const scenario::LinkResult r = scenario::decode_link("#" + without_checksum(link));
    REQUIRE(r.error == "");
    CHECK(scenario::to_json(r.scenario) == scenario::to_json(s));
    CHECK(r.view == view);
  }
  // One written by the playground before this change (the open_link fuzz seed).
  const scenario::LinkResult old =
      scenario::decode_link("v1.eyJzY2VuYXJpbyI6eyJ2ZXJzaW9uIjoxLCJ4IjpbWzFdXX19");
  REQUIRE(old.error == "");
  CHECK(old.scenario.queries[0](0, 0) == 1.0f);
  // A newer version with a checksum of its own says newer; a damaged one, damaged.
  CHECK(error_of(with_checksum("v2.eyJ9")) ==
        "link: version \"v2\" is newer than this playground (v1)");
  CHECK(error_of(with_checksum("v2.eyJ9").replace(1, 1, "3")).find("damaged") != std::string::npos);
}

TEST_CASE("the reader accepts the fragment with or without '#', and '=' padding", "[link]") {
  const std::string link = scenario::encode_link(small(), scenario::ViewState());
  CHECK(scenario::decode_link(link).ok());
  CHECK(scenario::decode_link("#" + link).ok());
  const std::string json = R"({"scenario":{"version":1,"x":[[1]]}})";  // 36 bytes: no padding
  CHECK(scenario::decode_link(link_of(json + " ")).ok());
  CHECK(scenario::decode_link(link_of(json + " ") + "==").ok());
  CHECK(scenario::decode_link(link_of(json + "  ") + "=").ok());
}

//-----------------------------------------------------------------------------
// [SECTION] Round trips
//-----------------------------------------------------------------------------

TEST_CASE("every preset round-trips exactly with the default and a full view", "[link]") {
  const char* name = GENERATE(from_range(std::begin(kLessonNames), std::end(kLessonNames)));
  INFO(name);
  const scenario::Scenario s = preset(name);
  scenario::ViewState full;
  full.step = scenario::kMaxViewStep;
  full.head = s.heads - 1;
  full.batch = s.batch() - 1;
  full.lang = "zh";
  full.panels = {"pipeline", "heatmap", "multi_head", "pe_explorer", "lesson"};
  full.hidden = {"seed", "randomize", "w_o"};
  full.embed = true;
  full.lesson = "masking_101";
  full.progress = {{"why_so_tall", "r"}, {"multi_head", "w-"}};
  full.train = {"translate", 999999, 3000, 0.123456789f, false};
  for (const scenario::ViewState& view : {scenario::ViewState(), full}) {
    const scenario::LinkResult r = scenario::decode_link(scenario::encode_link(s, view));
    REQUIRE(r.error == "");
    CHECK(scenario::to_json(r.scenario) == scenario::to_json(s));
    CHECK(r.view == view);
  }
}

TEST_CASE("non-finite and exact numbers survive the link", "[link]") {
  const scenario::ParseResult p = scenario::parse(
      R"({"version":1,"x":[[0.1,-3.40282e18],[1e-45,16777217]],"mask_value":"-inf",
          "target":[[-3.40282e38,1],[0,0]],
          "valid_lens":[[1,2]],"temperature":0.3,"dropout":{"p":0.25,"seed":9007199254740992},
          "title":{"en":"a \"quoted\"\nline","zh":"中文 😀"},"query_tokens":["<b>", "\u0000"]})");
  REQUIRE(p.error == "");
  const scenario::LinkResult r =
      scenario::decode_link(scenario::encode_link(p.scenario, scenario::ViewState()));
  REQUIRE(r.error == "");
  CHECK(scenario::to_json(r.scenario) == scenario::to_json(p.scenario));
  CHECK(r.scenario.queries[0](1, 0) == 1e-45f);
  CHECK(r.scenario.target[0](0, 0) == -3.40282e38f);
  CHECK(r.scenario.dropout_seed == 9007199254740992ull);
  CHECK(r.scenario.title.zh == "中文 😀");
}

//-----------------------------------------------------------------------------
// [SECTION] Malformed links: one case per class, each checking the error text
//-----------------------------------------------------------------------------

TEST_CASE("malformed links: empty, foreign, wrong version, too long", "[link][bad]") {
  CHECK(error_of("") == "link: is empty");
  CHECK(error_of("#") == "link: is empty");
  CHECK(error_of("#section-2") == "link: not a playground link (expected \"v1.\")");
  CHECK(error_of("v1") == "link: not a playground link (expected \"v1.\")");
  CHECK(error_of("v9.eyJ9") == "link: version \"v9\" is newer than this playground (v1)");
  CHECK(error_of("#v0.eyJ9") == "link: version \"v0\" is not supported (this playground reads v1)");
  CHECK(error_of("v1.") == "link: truncated (nothing after \"v1.\")");
  CHECK(error_of("#v1." + std::string(1999997, 'A')) ==
        "link: is 2000000 characters, more than the limit 1048576");
}

TEST_CASE("malformed links: bad base64url and truncation", "[link][bad]") {
  CHECK(error_of("v1.eyJzY2Vu%YXJpbyI6") == "link: invalid base64url character '%' at position 11");
  CHECK(error_of("#v1.eyJzY2Vu YXJpbyI6") ==
        "link: invalid base64url character ' ' at position 11");
  CHECK(error_of("v1.eyJ\xe4") == "link: invalid base64url character byte 0xE4 at position 6");
  CHECK(error_of("v1.eyJ=9") == "link: invalid base64url character '=' at position 6");
  const std::string link =
      without_checksum(scenario::encode_link(preset("toy_2d"), scenario::ViewState()));
  CHECK(error_of(link.substr(0, 3 + 4 * 10 + 1)) ==
        "link: truncated (41 base64url characters do not make whole bytes)");
  CHECK_THAT(error_of(link.substr(0, 3 + 4 * 10)),
             Catch::StartsWith("link: truncated (the JSON ends early: parse error at line 1"));
  // Cut near the end where the characters left still make whole bytes (not 1 mod 4).
  size_t cut = link.size() - 2;
  if ((cut - 3) % 4 == 1) --cut;
  CHECK_THAT(error_of(link.substr(0, cut)),
             Catch::StartsWith("link: truncated (the JSON ends early: "));
}

TEST_CASE("malformed links: JSON that is not a link document", "[link][bad]") {
  CHECK(error_of_json("[1, 2]") ==
        "link: must be a JSON object {\"scenario\": ..., \"view\": ...}, got an array");
  CHECK(error_of_json("{\"view\": {\"step\": 1}}") == "link.scenario: missing");
  CHECK(error_of_json(std::string("{\"scenario\": ") + kSmall + ", \"zoom\": 2}") ==
        "link.zoom: unknown field");
  CHECK(error_of_json("{\"scenario\": \"x\"}") ==
        "link.scenario: must be a JSON object, got a string");
  CHECK(error_of_json(std::string("{\"scenario\": ") + kSmall + ", \"view\": [1]}") ==
        "link.view: must be an object, got an array");
  CHECK(error_of_json(std::string(100, '[') + std::string(100, ']')) ==
        "link: the JSON nests deeper than 16 levels");
  CHECK(error_of_json("{\"scenario\": {\"version\": 1, \"x\": [[NaN]]}}") ==
        "link: invalid JSON: parse error at line 1, column 36: syntax error while parsing value - "
        "invalid literal; last read: '\"x\": [[N'");
  CHECK(error_of_json("{\"scenario\": {\"version\": 1, \"title\": \"\xff\"}}") ==
        "link: invalid JSON: parse error at line 1, column 39: syntax error while parsing value - "
        "invalid string: ill-formed UTF-8 byte; last read: '\"?'");
}

TEST_CASE("malformed links: scenario errors are named inside the link", "[link][bad]") {
  auto in_scenario = [](const std::string& body) {
    return error_of_json("{\"scenario\": {\"version\": 1, " + body + "}}");
  };
  CHECK(in_scenario("\"x\": [[1, 1e999]]") == "link.scenario.x[0][1]: is not a finite number");
  CHECK(in_scenario("\"x\": [[1, \"2\"]]") ==
        "link.scenario.x[0][1]: must be a number, got a string");
  CHECK(in_scenario(R"("queries": [[1, 2]], "keys": [[1, 2], [3, 4, 5]], "values": [[1], [2]])") ==
        "link.scenario.keys[1]: has 3 columns, expected 2");
  CHECK(error_of_json(R"({"scenario": {"version": 2, "x": [[1]]}})") ==
        "link.scenario.version: 2 is not supported; this build reads version 1");
  std::string rows;
  for (int i = 0; i <= scenario::kMaxRows; ++i) rows += i ? ",[0]" : "[0]";
  CHECK(in_scenario("\"x\": [" + rows + "]") ==
        "link.scenario.x: has 4097 rows, more than the limit 4096");
  CHECK(in_scenario(R"("x": [[1]], "heads": 100000000000)") ==
        "link.scenario.heads: is 100000000000, must be at most 64");
  CHECK(in_scenario(R"("x": [[1]], "mask_value": ")" + std::string(5000, 'm') + "\"}").size() <
        400);
}

TEST_CASE("malformed links: view fields", "[link][bad]") {
  auto in_view = [](const std::string& view) {
    return error_of_json(std::string("{\"scenario\": ") + kSmall + ", \"view\": " + view + "}");
  };
  CHECK(in_view(R"({"step": 99})") == "link.view.step: is 99, must be at most 15");
  CHECK(in_view(R"({"step": -1})") == "link.view.step: is -1, must be at least 0");
  CHECK(in_view(R"({"step": "3"})") == "link.view.step: must be an integer, got a string");
  CHECK(in_view(R"({"step": 1.5})") == "link.view.step: must be an integer, got 1.5");
  CHECK(in_view(R"({"head": 1e300})") == "link.view.head: is 1e+300, must be at most 63");
  CHECK(in_view(R"({"head": 1})") == "link.view.head: is 1, but the scenario has 1 head");
  CHECK(in_view(R"({"batch": 2})") == "link.view.batch: is 2, but the scenario has a batch of 1");
  CHECK(in_view(R"({"lang": "fr"})") == "link.view.lang: is \"fr\", expected \"en\" or \"zh\"");
  CHECK(in_view(R"({"panels": "heatmap"})") ==
        "link.view.panels: must be an array of names, got a string");
  CHECK(in_view(R"({"panels": ["heatmap", 3]})") ==
        "link.view.panels[1]: must be a string, got a number");
  CHECK(in_view(R"({"hidden": ["<img src=x>"]})") ==
        "link.view.hidden[0]: \"<img src=x>\" is not a name (1 to 32 of a-z, 0-9, _)");
  CHECK(in_view(R"({"hidden": ["seed", "seed"]})") ==
        "link.view.hidden[1]: \"seed\" is listed twice");
  std::string many = "[";
  for (int i = 0; i < 65; ++i) many += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
  CHECK(in_view(R"({"panels": )" + many + "]}") ==
        "link.view.panels: has 65 names, more than the limit 64");
  CHECK(in_view(R"({"embed": 1})") == "link.view.embed: must be true or false, got a number");
  CHECK(in_view(R"({"lesson": "Lesson 1"})") ==
        "link.view.lesson: \"Lesson 1\" is not a lesson id (1 to 32 of a-z, 0-9, _)");
  CHECK(in_view(R"({"zoom": 2})") == "link.view.zoom: unknown field");
  CHECK(in_view(R"({"progress": ["toy_2d"]})") ==
        "link.view.progress: must be an object {\"lesson\": \"r-\"}, got an array");
  CHECK(in_view(R"({"progress": {"toy_2d": 1}})") ==
        "link.view.progress.toy_2d: must be a string, got a number");
  CHECK(in_view(R"({"progress": {"toy_2d": "yes"}})") ==
        "link.view.progress.toy_2d: \"yes\" is not 1 to 8 marks of '-' (not yet), 'r' (right) "
        "and 'w' (wrong)");
  CHECK(in_view(R"({"progress": {"Toy 2D": "r"}})") ==
        "link.view.progress: \"Toy 2D\" is not a lesson id (1 to 32 of a-z, 0-9, _)");
  CHECK(in_view(R"({"progress": {"toy_2d": "rw-"}})") == "");
  CHECK(in_view(R"({"train": "recall"})") ==
        "link.view.train: must be an object {\"task\", \"seed\", \"steps\", \"lr\", "
        "\"optimizer\"}, got a string");
  CHECK(in_view(R"({"train": {"seed": 2}})") == "link.view.train.task: is missing");
  CHECK(in_view(R"({"train": {"task": "parity"}})") ==
        "link.view.train.task: \"parity\" is not a toy task (previous_token, reverse, sort, "
        "recall, translate, kernel_regression, induction)");
  CHECK(in_view(R"({"train": {"task": "induction"}})") == "");  // the page trains stacks now
  // The layer shown: a whole number below the scenario's layers (one without "layers").
  CHECK(in_view(R"({"layer": 1})") == "link.view.layer: is 1, but the scenario has 1 layer");
  CHECK(in_view(R"({"layer": -1})") == "link.view.layer: is -1, must be at least 0");
  CHECK(in_view(R"({"layer": "2"})").rfind("link.view.layer: ", 0) == 0);
  CHECK(in_view(R"({"layer": 0})") == "");
  CHECK(in_view(R"({"train": {"task": "sort", "steps": 3001}})") ==
        "link.view.train.steps: is 3001, must be at most 3000");
  CHECK(in_view(R"({"train": {"task": "sort", "seed": -1}})") ==
        "link.view.train.seed: is -1, must be at least 0");
  CHECK(in_view(R"({"train": {"task": "sort", "lr": 0}})") ==
        "link.view.train.lr: is 0.0, must be above 0 and at most 10");
  CHECK(in_view(R"({"train": {"task": "sort", "optimizer": "rmsprop"}})") ==
        "link.view.train.optimizer: is \"rmsprop\", expected \"adam\" or \"sgd\"");
  CHECK(in_view(R"({"train": {"task": "sort", "epochs": 3}})") ==
        "link.view.train.epochs: unknown field");
  // Hostile sizes and numbers: refused by the shared field readers, naming the field.
  CHECK(in_view("{\"lang\": \"" + std::string(100000, 'z') + "\"}") ==
        "link.view.lang: is 100000 bytes long, more than the limit 256");
  CHECK(in_view(R"({"train": {"task": "sort", "lr": 1e300}})") ==
        "link.view.train.lr: is 1e+300, outside the float32 range");
  CHECK(in_view(R"({"train": {"task": "sort", "lr": "0.1"}})") ==
        "link.view.train.lr: must be a number, got a string");
  CHECK(in_view(R"({"train": {"task": "sort", "seed": 7, "steps": 300, "lr": 0.1,
                              "optimizer": "sgd"}})") == "");
  CHECK(in_view(R"({"step": 2, "head": 0, "batch": 0, "lang": "en", "lesson": ""})") == "");
}

TEST_CASE("validate_view checks a view before it is written", "[link]") {
  scenario::ViewState v;
  CHECK(scenario::validate_view(v, small()).error == "");
  v.step = 16;
  CHECK(scenario::validate_view(v, small()).error == "view.step: is 16, must be at most 15");
  v.step = 0;
  v.head = 1;
  CHECK(scenario::validate_view(v, preset("multi_head")).error == "");
  v.panels = {""};
  CHECK(scenario::validate_view(v, preset("multi_head")).error ==
        "view.panels[0]: \"\" is not a name (1 to 32 of a-z, 0-9, _)");
}

//-----------------------------------------------------------------------------
// [SECTION] Random and mutated links
//-----------------------------------------------------------------------------

namespace {

// Deterministic draws for the fuzz loop.
struct Draw {
  uint64_t seed, n = 0;
  uint64_t next() { return attn::splitmix64(seed ^ attn::splitmix64(n++)); }
  size_t below(size_t k) { return k ? static_cast<size_t>(next() % k) : 0; }
};

// Bytes that change the meaning of JSON or base64url text.
const char* const kSplices[] = {"[",  "]",     "{",    "}",   "\"",   ",",           ":",    "-",
                                "0",  "1e999", "NaN",  "-1",  "1e30", "true",        "null", "\xff",
                                "\\", "\"x\"", "99",   "0.5", "[[",   "]]",          "=",    "%",
                                "#",  "v1.",   "\x00", "A",   "_",    "\"heads\":64"};

std::string mutate(const std::string& text, Draw* d) {
  std::string s = text;
  const size_t edits = 1 + d->below(4);
  for (size_t e = 0; e < edits; ++e) {
    const size_t at = d->below(s.size() + 1);
    switch (d->below(5)) {
      case 0:  // replace a character
        if (at < s.size()) s[at] = static_cast<char>(d->next());
        break;
      case 1:  // delete a run
        s.erase(std::min(at, s.size()), d->below(8));
        break;
      case 2:  // splice in a meaningful token
        s.insert(at, kSplices[d->below(sizeof kSplices / sizeof *kSplices)]);
        break;
      case 3:  // truncate
        s.resize(at);
        break;
      default:  // duplicate a run
        s.insert(at, s.substr(d->below(s.size() + 1), d->below(16)));
        break;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("10,000 random and mutated links give a scenario or one error line", "[link][fuzz]") {
  std::vector<std::string> jsons, links;
  scenario::ViewState view;
  view.step = 2;
  view.panels = {"pipeline"};
  for (const char* name : kLessonNames) {
    const scenario::Scenario s = preset(name);
    links.push_back(scenario::encode_link(s, view));
    jsons.push_back("{\"scenario\":" + scenario::to_json(s) + ",\"view\":{\"step\":2}}");
  }
  Draw d{20240601};
  int accepted = 0, failures = 0;
  for (int n = 0; n < 10000; ++n) {
    std::string fragment;
    switch (n % 4) {
      case 0: {  // random bytes, sometimes behind a valid prefix
        const size_t len = d.below(120);
        fragment = d.below(2) ? "v1." : "";
        for (size_t i = 0; i < len; ++i)
          fragment += d.below(3) ? kSplices[d.below(sizeof kSplices / sizeof *kSplices)][0]
                                 : static_cast<char>(d.next());
        break;
      }
      case 1:  // a mutated link
        fragment = mutate(links[d.below(links.size())], &d);
        break;
      default:  // a link around mutated JSON: reaches the JSON and scenario readers
        fragment = link_of(mutate(jsons[d.below(jsons.size())], &d));
        break;
    }
    const scenario::LinkResult r = scenario::decode_link(fragment);
    if (r.ok()) {
      ++accepted;
      // Whatever is accepted can run and be shared again unchanged.
      const bool fine =
          scenario::validate(r.scenario).ok() && scenario::validate_view(r.view, r.scenario).ok() &&
          scenario::to_json(
              scenario::decode_link(scenario::encode_link(r.scenario, r.view)).scenario) ==
              scenario::to_json(r.scenario);
      if (!fine) {
        ++failures;
        FAIL_CHECK("accepted but not runnable: " << fragment);
      }
    } else {
      const bool one_line = r.error.rfind("link", 0) == 0 &&
                            r.error.find('\n') == std::string::npos && r.error.size() < 400;
      if (!one_line) {
        ++failures;
        FAIL_CHECK("error is not one line: " << r.error);
      }
    }
  }
  CHECK(failures == 0);
  CHECK(accepted > 100);  // the mutations also reach the accepting paths
}
