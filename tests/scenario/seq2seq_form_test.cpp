// "seq2seq" (scenario/seq2seq_form.h): a GRU encoder–decoder read as the additive scenario of
// its decoder's attention, whose standard run gives the model's alignment and contexts; written
// back as the block alone; greedy without a target; every hostile field refused by name.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/seq2seq.h"
#include "scenario/export.h"
#include "scenario/link.h"
#include "scenario/scenario.h"
#include "scenario/seq2seq_form.h"

namespace {

namespace s2s = attn::seq2seq;

const char kWords[] =
    R"("source_words": ["big", "small", "old", "dog", "cat", "bird", "runs", "sleeps"],
  "target_words": ["grona", "miza", "vetus", "hunto", "lilu", "avo", "kuras", "dormas"])";

std::string model(const std::string& inside) {
  return std::string(R"({"version": 1, "seq2seq": {"sizes": {"embed": 8, "hidden": 16,
  "attention": 16}, )") +
         kWords + ", " + inside + "}}";
}

// A model from seed 1, teacher-forced on "big cat sleeps" → "lilu grona dormas <eos>".
std::string big_cat_sleeps() {
  return model(R"("seed": 1, "source": ["big", "cat", "sleeps"],
                  "target": ["lilu", "grona", "dormas", "<eos>"])");
}

std::string error_of(const std::string& json) {
  return scenario::parse(json).error;
}

s2s::Sizes toy_sizes() {
  s2s::Sizes z;  // the defaults: 10 ids each, 8, 16, 16
  return z;
}

void check_close(const attn::Matrix& a, const attn::Matrix& b, float tol) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  for (Eigen::Index r = 0; r < a.rows(); ++r)
    for (Eigen::Index c = 0; c < a.cols(); ++c) CHECK(std::fabs(a(r, c) - b(r, c)) <= tol);
}

// Checks that the additive scenario's standard run is the model's attention.
void check_run_is_the_model(const scenario::ParseResult& r, const s2s::Forward& f) {
  REQUIRE(r.ok());
  const attn::Trace t = attn::run(r.problem);
  REQUIRE(t.heads.size() == 1);
  check_close(t.heads[0].weights[0], f.weights, 1e-5f);
  check_close(t.heads[0].scores[0], f.scores, 1e-5f);
  check_close(t.output[0], f.contexts, 1e-5f);
}

std::string matrix_json(const attn::Matrix& m) {
  std::string o = "[";
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    o += r ? ",[" : "[";
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      o += (c ? "," : "") + scenario::format_float(m(r, c));
    o += "]";
  }
  return o + "]";
}

}  // namespace

TEST_CASE("seq2seq: the decoder's attention is an additive scenario", "[seq2seq_form]") {
  const scenario::ParseResult r =
      scenario::parse(model(R"("seed": 3, "source": ["big", "dog", "runs"],
               "target": ["hunto", "grona", "kuras", "<eos>"])"));
  REQUIRE(r.error == "");
  const scenario::Scenario& s = r.scenario;
  const s2s::Params p = s2s::init_params(toy_sizes(), 3);
  const std::vector<int> src = {2, 5, 8}, tgt = {5, 2, 8, s2s::kEos};
  const s2s::Forward f = s2s::forward(p, src, tgt);
  CHECK(s.seq2seq.source == src);
  CHECK(s.seq2seq.produced == tgt);
  CHECK(s.seq2seq.forward.loss == f.loss);
  CHECK(s.scoring == attn::Scoring::kAdditive);
  CHECK(s.temperature == 1.0f);
  REQUIRE(s.queries.size() == 1);
  CHECK(s.queries[0] == f.queries);
  CHECK(s.keys[0] == f.enc_states);
  CHECK(s.values[0] == f.enc_states);
  CHECK(s.W_q == p.W_q);
  CHECK(s.W_k == p.W_k);
  CHECK(s.w_v == p.w_v.col(0));
  CHECK(s.query_tokens ==
        std::vector<std::vector<std::string>>{{"hunto", "grona", "kuras", "<eos>"}});
  CHECK(s.key_tokens == std::vector<std::vector<std::string>>{{"big", "dog", "runs"}});
  REQUIRE(s.feature_names.size() == 1);
  CHECK(s.feature_names[0].size() == 16);
  CHECK(s.feature_names[0][15] == "h16");
  check_run_is_the_model(r, f);
}

TEST_CASE("seq2seq: without a target the decoder decodes greedily", "[seq2seq_form]") {
  const scenario::ParseResult r =
      scenario::parse(model(R"("seed": 3, "source": ["small", "cat", "sleeps", "dog", "runs"])"));
  REQUIRE(r.error == "");
  const s2s::Params p = s2s::init_params(toy_sizes(), 3);
  const std::vector<int> src = {3, 6, 9, 5, 8};
  const s2s::Decoded d = s2s::greedy_decode(p, src, scenario::seq2seq_max_decode(5));
  const scenario::Seq2Seq& m = r.scenario.seq2seq;
  CHECK(m.greedy());
  CHECK(m.produced == d.tokens);
  CHECK(m.forward.weights == d.alignment);
  CHECK(r.scenario.query_tokens[0].size() == d.tokens.size());
  CHECK(scenario::seq2seq_max_decode(5) == 12);
  CHECK(scenario::seq2seq_max_decode(60) == scenario::kMaxSeq2SeqLength);
  check_run_is_the_model(r, m.forward);
  // Written back without a target: it decodes again.
  const std::string json = scenario::to_json(r.scenario);
  CHECK(json.find("\"target\"") == std::string::npos);
  CHECK(scenario::parse(json).scenario.seq2seq.produced == d.tokens);
}

TEST_CASE("seq2seq: a trained model's weights read, run and write back exactly", "[seq2seq_form]") {
  // A few steps of training on the toy task: weights no seed gives.
  s2s::Params p = s2s::init_params(toy_sizes(), 11);
  s2s::Adam opt;
  const std::vector<s2s::Pair> pairs = s2s::toy_translation(4, 8);
  for (int step = 0; step < 5; ++step) s2s::train_step(&p, &opt, pairs);
  std::string weights;
  s2s::for_each_param(p, [&weights](const char* name, const attn::Matrix& m) {
    weights += std::string(weights.empty() ? "" : ", ") + "\"" + name + "\": " + matrix_json(m);
  });
  const std::string text = model(R"("weights": {)" + weights +
                                 R"(}, "source": ["old", "bird", "sleeps"],
                                    "target": ["avo", "vetus", "dormas", "<eos>"])");
  const scenario::ParseResult r = scenario::parse(text);
  REQUIRE(r.error == "");
  const scenario::Seq2Seq& m = r.scenario.seq2seq;
  CHECK_FALSE(m.has_seed);
  s2s::for_each_param(p, [&m](const char* name, const attn::Matrix& w) {
    bool same = false;
    s2s::for_each_param(m.params, [&](const char* n2, const attn::Matrix& w2) {
      if (std::string(n2) == name) same = w2 == w;
    });
    INFO(name);
    CHECK(same);
  });
  const std::vector<int> src = {4, 7, 9}, tgt = {7, 4, 9, s2s::kEos};
  check_run_is_the_model(r, s2s::forward(p, src, tgt));

  // read → write → read is identical, and the derived fields are not written.
  const std::string once = scenario::to_json(r.scenario);
  const scenario::ParseResult again = scenario::parse(once);
  REQUIRE(again.error == "");
  CHECK(scenario::to_json(again.scenario) == once);
  CHECK(again.scenario.queries[0] == r.scenario.queries[0]);
  CHECK(again.scenario.seq2seq.forward.weights == m.forward.weights);
  for (const char* derived : {"\"queries\"", "\"keys\"", "\"values\"", "\"scoring\"",
                              "\"query_tokens\"", "\"feature_names\""})
    CHECK(once.find(derived) == std::string::npos);
  CHECK(once.find("\"weights\":{\"embed_src\":[[") != std::string::npos);
}

TEST_CASE("seq2seq: a seed with some weights writes back the seed and those weights",
          "[seq2seq_form]") {
  const scenario::ParseResult r = scenario::parse(
      R"({"version": 1, "title": "Bahdanau", "read": {"title": "d2l 10.4",
      "url": "https://d2l.ai/chapter_attention-mechanisms-and-transformers/bahdanau-attention.html"},
      "seq2seq": {"sizes": {"embed": 2, "hidden": 3, "attention": 2},
      "source_words": ["a", "b"], "target_words": ["x"], "seed": 7,
      "weights": {"w_v": [[1], [-2]], "b_out": [[0.5, 0, 0]]}, "source": ["b", "a", "b"],
      "target": ["x", "x", "<eos>"]}})");
  REQUIRE(r.error == "");
  const std::string once = scenario::to_json(r.scenario);
  CHECK(once ==
        R"({"version":1,"title":"Bahdanau","read":{"title":"d2l 10.4","url":"https://d2l.ai/)"
        R"(chapter_attention-mechanisms-and-transformers/bahdanau-attention.html"},"seq2seq":)"
        R"({"sizes":{"embed":2,"hidden":3,"attention":2},"source_words":["a","b"],)"
        R"("target_words":["x"],"seed":7,"weights":{"w_v":[[1],[-2]],"b_out":[[0.5,0,0]]},)"
        R"("source":["b","a","b"],"target":["x","x","<eos>"]}})");
  const scenario::ParseResult again = scenario::parse(once);
  REQUIRE(again.error == "");
  CHECK(scenario::to_json(again.scenario) == once);
  REQUIRE(again.scenario.w_v.size() == 2);
  CHECK(again.scenario.w_v(0) == 1.0f);
  CHECK(again.scenario.w_v(1) == -2.0f);
  CHECK(r.scenario.key_tokens[0] == std::vector<std::string>{"b", "a", "b"});
}

TEST_CASE("seq2seq: an edited attention is written out whole, so no edit is lost",
          "[seq2seq_form]") {
  const scenario::ParseResult r = scenario::parse(big_cat_sleeps());
  REQUIRE(r.error == "");
  CHECK(scenario::to_json(r.scenario).find("\"seq2seq\"") != std::string::npos);
  // The page's edits: the temperature, then a query's number.
  scenario::Scenario edited = r.scenario;
  edited.temperature = 2.0f;
  edited.queries.mut(0)(1, 3) = 0.25f;
  const std::string text = scenario::to_json(edited);
  CHECK(text.find("\"seq2seq\"") == std::string::npos);
  CHECK(text.find("\"temperature\":2") != std::string::npos);
  CHECK(text.find("\"scoring\":\"additive\"") != std::string::npos);
  const scenario::ParseResult back = scenario::parse(text);
  REQUIRE(back.error == "");
  CHECK(back.scenario.seq2seq.empty());
  CHECK(back.scenario.temperature == 2.0f);
  CHECK(back.scenario.queries[0] == edited.queries[0]);
  CHECK(back.scenario.keys[0] == r.scenario.keys[0]);
  CHECK(back.scenario.query_tokens == r.scenario.query_tokens);
  // Its run is the edited attention: query 1 (unedited) weighs softmax(its scores / 2).
  const attn::Matrix scores = attn::run(r.problem).heads[0].scores[0];
  const attn::Matrix weights = attn::run(back.problem).heads[0].weights[0];
  const Eigen::RowVectorXf halved = scores.row(0) / 2.0f;
  const Eigen::RowVectorXf e = (halved.array() - halved.maxCoeff()).exp();
  for (Eigen::Index j = 0; j < e.size(); ++j)
    CHECK(std::fabs(weights(0, j) - e(j) / e.sum()) <= 1e-6f);
}

TEST_CASE("seq2seq: the link and the exported programs carry the decoder's attention",
          "[seq2seq_form]") {
  const scenario::ParseResult r = scenario::parse(big_cat_sleeps());
  REQUIRE(r.error == "");
  // The link holds the block; opened, it is the same model and attention.
  scenario::ViewState view;
  view.step = 5;
  const scenario::LinkResult back = scenario::decode_link(scenario::encode_link(r.scenario, view));
  REQUIRE(back.error == "");
  CHECK(scenario::to_json(back.scenario) == scenario::to_json(r.scenario));
  CHECK(back.scenario.queries[0] == r.scenario.queries[0]);
  // The programs recompute the derived additive scenario: its numbers are written out.
  for (const std::string& program :
       {scenario::export_numpy(r.scenario), scenario::export_pytorch(r.scenario)}) {
    CHECK(program.find("cannot run") == std::string::npos);
    CHECK(program.find("additive") != std::string::npos);
    CHECK(program.find("queries = f32(") != std::string::npos);
  }
}

TEST_CASE("seq2seq: hostile fields are refused by name", "[seq2seq_form]") {
  const std::string src = R"("source": ["big", "dog"])";
  const auto seeded = [&](const std::string& more) {
    return error_of(model(R"("seed": 1, )" + more + src));
  };
  // Beside other inputs.
  for (const char* other :
       {R"("x": [[1]])", R"("tokens": [0])", R"("layers": [{}])", R"("queries": [[1]])",
        R"("keys": [[1]])", R"("W_q": [[1]])", R"("w_v": [1])", R"("scoring": "dot")",
        R"("temperature": 2)", R"("causal": true)", R"("init": {"seed": 1, "d_model": 2})",
        R"("query_tokens": ["a"])"}) {
    const std::string e = error_of(R"({"version": 1, )" + std::string(other) +
                                   R"(, "seq2seq": {"sizes": {"embed": 8, "hidden": 16,
        "attention": 16}, )" + kWords +
                                   R"(, "seed": 1, )" + src + "}}");
    INFO(other);
    CHECK(e.find(": not with \"seq2seq\": ") != std::string::npos);
  }
  CHECK(error_of(R"({"version": 1, "image": {}, "seq2seq": {}})")
            .rfind("image: not with \"seq2seq\"", 0) == 0);
  // The block and its members.
  CHECK(error_of(R"({"version": 1, "seq2seq": [1]})") ==
        "seq2seq: must be an object, got an array");
  CHECK(error_of(model(R"("seed": 1, "colour": 1, )" + src)) == "seq2seq.colour: unknown field");
  CHECK(error_of(R"({"version": 1, "seq2seq": {"source_words": ["a"], "target_words": ["b"],
        "seed": 1, "source": ["a"]}})") == "seq2seq.sizes: missing");
  CHECK(error_of(R"({"version": 1, "seq2seq": {"sizes": {"embed": 8, "hidden": 16,
        "attention": 16, "depth": 2}, "source_words": ["a"], "target_words": ["b"], "seed": 1,
        "source": ["a"]}})") == "seq2seq.sizes.depth: unknown field");
  CHECK(error_of(R"({"version": 1, "seq2seq": {"sizes": {"embed": 8, "hidden": 1e9,
        "attention": 16}, "source_words": ["a"], "target_words": ["b"], "seed": 1,
        "source": ["a"]}})") == "seq2seq.sizes.hidden: is 1000000000.0, must be at most 256");
  CHECK(error_of(R"({"version": 1, "seq2seq": {"sizes": {"embed": "8", "hidden": 2,
        "attention": 2}, "source_words": ["a"], "target_words": ["b"], "seed": 1,
        "source": ["a"]}})")
            .rfind("seq2seq.sizes.embed: ", 0) == 0);
  CHECK(error_of(R"({"version": 1, "seq2seq": {"sizes": {"embed": 0, "hidden": 2,
        "attention": 2}, "source_words": ["a"], "target_words": ["b"], "seed": 1,
        "source": ["a"]}})")
            .rfind("seq2seq.sizes.embed: ", 0) == 0);
  CHECK(error_of(model(R"("source": ["big"])")) ==
        "seq2seq.seed: missing: give a seed (a new model) or its weights (a trained one), or both");
  CHECK(seeded("").empty());
  // Vocabularies.
  const auto vocab = [](const std::string& words) {
    return error_of(R"({"version": 1, "seq2seq": {"sizes": {"embed": 2, "hidden": 2,
        "attention": 2}, "source_words": )" +
                    words + R"(, "target_words": ["b"], "seed": 1, "source": ["a"]}})");
  };
  CHECK(vocab(R"(["a", "a"])") == "seq2seq.source_words[1]: \"a\" is already word 0 of the list");
  CHECK(vocab(R"(["a", "<eos>"])") ==
        "seq2seq.source_words[1]: <eos> is always there (ids 0 and 1): leave it out");
  CHECK(vocab(R"(["a", 3])").rfind("seq2seq.source_words[1]: ", 0) == 0);
  CHECK(vocab(R"(["a", ""])") == "seq2seq.source_words[1]: is empty");
  CHECK(vocab("[]").rfind("seq2seq.source_words: ", 0) == 0);
  std::string many = "[\"w0\"";
  for (int i = 1; i <= scenario::kMaxSeq2SeqWords; ++i) many += ",\"w" + std::to_string(i) + "\"";
  CHECK(vocab(many + "]").rfind("seq2seq.source_words: ", 0) == 0);
  // Sentences.
  CHECK(error_of(model(R"("seed": 1, "source": ["big", "dog", "runs", "dgo"])")) ==
        "seq2seq.source[3]: \"dgo\" is not a source word");
  CHECK(error_of(model(R"("seed": 1, "source": ["<eos>"])")) ==
        "seq2seq.source[0]: \"<eos>\" is not a source word");
  CHECK(error_of(model(R"("seed": 1, "source": [])")).rfind("seq2seq.source: ", 0) == 0);
  CHECK(error_of(model(R"("seed": 1, "source": "big dog")")).rfind("seq2seq.source: ", 0) == 0);
  CHECK(seeded(R"("target": ["hunto", "<bos>"], )") ==
        "seq2seq.target[1]: \"<bos>\" is not a target word (nor \"<eos>\")");
  CHECK(seeded(R"("target": ["dog"], )") ==
        "seq2seq.target[0]: \"dog\" is not a target word (nor \"<eos>\")");
  std::string long_source = "[\"big\"";
  for (int i = 1; i <= scenario::kMaxSeq2SeqLength; ++i) long_source += ",\"dog\"";
  CHECK(error_of(model(R"("seed": 1, "source": )" + long_source + "]"))
            .rfind("seq2seq.source: ", 0) == 0);
  // Seeds and weights.
  CHECK(error_of(model(R"("seed": -1, )" + src)).rfind("seq2seq.seed: ", 0) == 0);
  CHECK(error_of(model(R"("seed": 1e300, )" + src)).rfind("seq2seq.seed: ", 0) == 0);
  CHECK(seeded(R"("weights": {"encoder.W_xz": [[1, 2], [3, 4], [5, 6]]}, )") ==
        "seq2seq.weights.encoder.W_xz: must be 8 × 16, got 3 × 2");
  CHECK(seeded(R"("weights": {"W_v": [[1]]}, )")
            .rfind("seq2seq.weights.W_v: is not a weight of the model", 0) == 0);
  CHECK(seeded(R"("weights": [1], )") == "seq2seq.weights: must be an object, got an array");
  CHECK(seeded(R"("weights": {"w_v": "nan"}, )").rfind("seq2seq.weights.w_v: ", 0) == 0);
  CHECK(seeded(R"("weights": {"w_v": [[1], [null]]}, )").rfind("seq2seq.weights.w_v[1]", 0) == 0);
  CHECK(seeded(R"("weights": {"w_v": [[1e39]]}, )").rfind("seq2seq.weights.w_v", 0) == 0);
  std::string big_w_v = "[[1e5]";
  for (int i = 1; i < 16; ++i) big_w_v += ",[0]";
  CHECK(seeded(R"("weights": {"w_v": )" + big_w_v + "]}, ") ==
        "seq2seq.weights.w_v[0][0]: is 1e+05, must be a finite number within ±10000 (larger "
        "can overflow the model's float32)");
  // Without a seed, every weight.
  CHECK(error_of(model(R"("weights": {"w_v": )" + big_w_v + "]}, " + src)) ==
        "seq2seq.weights.embed_src: missing (give every weight of the model, or a \"seed\" to "
        "generate the rest)");
}

TEST_CASE("seq2seq: validate_seq2seq refuses what the reader would, without asserting",
          "[seq2seq_form]") {
  scenario::Seq2Seq m;
  CHECK(scenario::validate_seq2seq(m).rfind("seq2seq.source_words: has 0 words", 0) == 0);
  m.params = s2s::init_params(toy_sizes(), 1);
  for (int i = 0; i < 8; ++i) {
    m.source_words.push_back("s" + std::to_string(i));
    m.target_words.push_back("t" + std::to_string(i));
  }
  CHECK(scenario::validate_seq2seq(m) == "seq2seq.source: is empty");
  m.source = {2, 10};
  CHECK(scenario::validate_seq2seq(m) == "seq2seq.source[1]: id 10 is outside the vocabulary");
  m.source = {2, 3};
  m.target = {0};
  CHECK(scenario::validate_seq2seq(m) == "seq2seq.target[0]: id 0 is outside the vocabulary");
  m.target = {};
  CHECK(scenario::validate_seq2seq(m) == "");
  m.params.W_out(0, 0) = NAN;
  CHECK(scenario::validate_seq2seq(m).rfind("seq2seq.weights.W_out[0][0]: is nan", 0) == 0);
  m.params.W_out = attn::Matrix::Zero(3, 3);
  CHECK(scenario::validate_seq2seq(m) == "seq2seq.weights.W_out: must be 32 × 10, got 3 × 3");
  m.params.sizes.hidden = 100000;
  CHECK(scenario::validate_seq2seq(m) == "seq2seq.sizes.hidden: is 100000, must be from 1 to 256");
  CHECK(scenario::seq2seq_param_names().size() == 25);
}

TEST_CASE("seq2seq: a trained model's fixture translates and its attention finds the words",
          "[seq2seq_form]") {
  // tests/scenario/seq2seq/toy_translation_trained.json: the toy task learned (its
  // description says how); no target, so the decoder decodes greedily.
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of("/\\") + 1) + "seq2seq/toy_translation_trained.json";
  std::ifstream file(path);
  REQUIRE(file);
  std::stringstream text;
  text << file.rdbuf();
  const scenario::ParseResult r = scenario::parse(text.str());
  REQUIRE(r.error == "");
  const scenario::Scenario& s = r.scenario;
  CHECK(s.seq2seq.given == (uint32_t{1} << 25) - 1);
  CHECK_FALSE(s.seq2seq.has_seed);
  CHECK(s.key_tokens[0] ==
        std::vector<std::string>{"big", "dog", "runs", "small", "cat", "sleeps"});
  // "big dog runs small cat sleeps": each noun before its adjective.
  CHECK(s.query_tokens[0] ==
        std::vector<std::string>{"hunto", "grona", "kuras", "miza", "lilu", "dormas", "<eos>"});
  const attn::Trace t = attn::run(r.problem);
  check_close(t.heads[0].weights[0], s.seq2seq.forward.weights, 1e-5f);
  check_close(t.output[0], s.seq2seq.forward.contexts, 1e-5f);
  // Where it looks while writing "grona" (big), "kuras" (runs) and "lilu" (small).
  CHECK(scenario::argmax_in_row(t.heads[0].weights[0], 1) == 0);
  CHECK(scenario::argmax_in_row(t.heads[0].weights[0], 2) == 2);
  CHECK(scenario::argmax_in_row(t.heads[0].weights[0], 4) == 3);
  // The file is not in the canonical form; its canonical form reads back to itself.
  const std::string once = scenario::to_json(s);
  CHECK(scenario::to_json(scenario::parse(once).scenario) == once);
}
