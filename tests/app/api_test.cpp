// ui::api::open_arrays: a NumPy file (loadArrays, "Open a file…", a dropped file) goes into
// the lesson on screen as far as the lesson fits it, and a file that fits nowhere is explained
// and changes nothing.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "app/api.h"
#include "app/app_state.h"
#include "scenario/npy_bytes.h"
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
        "w_v)");
  CHECK(ui::api::get_scenario(s) == before);
}
