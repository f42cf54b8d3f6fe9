// "hierarchy" (scenario/hierarchy_form.h): attention over attention read as the scenario of its
// sentence level, whose standard run gives the sentence weights and document vectors; the word
// level against a float64 reference; written back as the block alone; every hostile field
// refused by name.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/attention.h"
#include "scenario/export.h"
#include "scenario/hierarchy_form.h"
#include "scenario/link.h"
#include "scenario/scenario.h"

namespace {

using Rows = std::vector<std::vector<double>>;

std::string error_of(const std::string& json) {
  return scenario::parse(json).error;
}

std::string fixture(const char* name) {
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of("/\\") + 1) + "hierarchy/" + name;
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A small hierarchy: 3 sentences of 2, 1 and 3 words, d = 2, one question; `more` goes inside
// the block, `outside` beside it.
std::string small(const std::string& more = "", const std::string& outside = "") {
  return R"({"version": 1, )" + outside +
         R"("hierarchy": {"sentences": [[[0.9, 0.1], [0.2, 0.8]], [[1, 0]], [[0, 1], [0.5, 0.5], [-1, 2]]],
         "word_query": [1, 0], "questions": [[0, 1]])" +
         more + "}}";
}

// softmax(score(u, rows)) over the rows, in double: scores divided by √d when scaled.
std::vector<double> softmax_scores(const Rows& rows, const std::vector<double>& u, bool scaled) {
  std::vector<double> s;
  for (const auto& r : rows) {
    double dot = 0;
    for (size_t c = 0; c < u.size(); ++c) dot += u[c] * r[c];
    s.push_back(scaled ? dot / std::sqrt(static_cast<double>(u.size())) : dot);
  }
  double top = s[0], sum = 0;
  for (double x : s) top = std::max(top, x);
  for (double& x : s) sum += (x = std::exp(x - top));
  for (double& x : s) x /= sum;
  return s;
}

std::vector<double> pool(const Rows& rows, const std::vector<double>& a) {
  std::vector<double> v(rows[0].size(), 0.0);
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t c = 0; c < v.size(); ++c) v[c] += a[i] * rows[i][c];
  return v;
}

Rows rows_of(const attn::Matrix& m) {
  Rows out;
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    out.emplace_back();
    for (Eigen::Index c = 0; c < m.cols(); ++c) out.back().push_back(m(r, c));
  }
  return out;
}

// The whole model in float64 from the (float) inputs as read, against the scenario's derived
// fields and its run: word weights, sentence vectors, sentence weights and output within 1e-5.
void check_against_reference(const scenario::ParseResult& r) {
  REQUIRE(r.error == "");
  const scenario::Hierarchy& h = r.scenario.hierarchy;
  const bool scaled = h.scoring == attn::Scoring::kScaledDot;
  std::vector<double> uw(h.word_query.data(), h.word_query.data() + h.word_query.size());
  Rows v;
  REQUIRE(h.word_weights.size() == h.sentences.size());
  for (size_t k = 0; k < h.sentences.size(); ++k) {
    const Rows words = rows_of(h.sentences[k]);
    const std::vector<double> a = softmax_scores(words, uw, scaled);
    REQUIRE(h.word_weights[k].size() == static_cast<Eigen::Index>(a.size()));
    for (size_t i = 0; i < a.size(); ++i)
      CHECK(std::fabs(h.word_weights[k](static_cast<Eigen::Index>(i)) - a[i]) <= 1e-5);
    v.push_back(pool(words, a));
  }
  REQUIRE(h.sentence_vectors.rows() == static_cast<Eigen::Index>(v.size()));
  for (size_t k = 0; k < v.size(); ++k)
    for (size_t c = 0; c < v[k].size(); ++c)
      CHECK(
          std::fabs(h.sentence_vectors(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) -
                    v[k][c]) <= 1e-5);
  const attn::Trace t = attn::run(r.problem);
  REQUIRE(t.heads.size() == 1);
  const Rows questions = rows_of(h.questions);
  for (size_t q = 0; q < questions.size(); ++q) {
    const std::vector<double> b = softmax_scores(v, questions[q], scaled);
    const std::vector<double> doc = pool(v, b);
    for (size_t k = 0; k < b.size(); ++k)
      CHECK(std::fabs(
                t.heads[0].weights[0](static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(k)) -
                b[k]) <= 1e-5);
    for (size_t c = 0; c < doc.size(); ++c)
      CHECK(std::fabs(t.output[0](static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(c)) -
                      doc[c]) <= 1e-5);
  }
}

}  // namespace

TEST_CASE("hierarchy: the sentence level is an ordinary scenario", "[hierarchy_form]") {
  const scenario::ParseResult r = scenario::parse(small());
  REQUIRE(r.error == "");
  const scenario::Scenario& s = r.scenario;
  const scenario::Hierarchy& h = s.hierarchy;
  CHECK(h.sentences.size() == 3);
  CHECK(h.width() == 2);
  CHECK(s.scoring == attn::Scoring::kScaledDot);
  CHECK(s.temperature == 1.0f);
  CHECK(s.heads == 1);
  CHECK_FALSE(s.self_attention);
  CHECK(s.batch_of_one);
  REQUIRE(s.queries.size() == 1);
  CHECK(s.queries[0] == h.questions);
  CHECK(s.keys[0] == h.sentence_vectors);
  CHECK(s.values[0] == h.sentence_vectors);
  CHECK(s.W_q.size() == 0);
  CHECK(s.w_v.size() == 0);
  CHECK(s.query_tokens == std::vector<std::vector<std::string>>{{"q1"}});
  CHECK(s.key_tokens == std::vector<std::vector<std::string>>{{"s1", "s2", "s3"}});
  CHECK(s.feature_names == std::vector<std::vector<std::string>>{{"d1", "d2"}});
  CHECK(s.value_names == s.feature_names);
  CHECK(s.output_names == s.feature_names);
  // A sentence of one word is that word.
  CHECK(h.word_weights[1](0) == 1.0f);
  CHECK(h.sentence_vectors.row(1) == h.sentences[1].row(0));
  check_against_reference(r);
}

TEST_CASE(
    "hierarchy: word weights, sentence vectors, sentence weights and output agree with a "
    "float64 reference",
    "[hierarchy_form]") {
  // Ragged sentences of 1 to 7 words, d = 5, 3 questions, both scorings.
  for (const char* scoring : {"dot", "scaled_dot"}) {
    std::string sentences = "[";
    int x = 7;
    const auto next = [&x] {  // a fixed sequence of numbers in [-2, 2]
      x = (x * 37 + 11) % 101;
      return std::to_string((x - 50) / 25.0);
    };
    for (int k = 0; k < 6; ++k) {
      sentences += k ? ",[" : "[";
      for (int i = 0; i <= k % 7 + (k == 5 ? 1 : 0); ++i) {
        sentences += i ? ",[" : "[";
        for (int c = 0; c < 5; ++c) sentences += (c ? "," : "") + next();
        sentences += "]";
      }
      sentences += "]";
    }
    sentences += "]";
    std::string questions = "[";
    for (int q = 0; q < 3; ++q) {
      questions += q ? ",[" : "[";
      for (int c = 0; c < 5; ++c) questions += (c ? "," : "") + next();
      questions += "]";
    }
    questions += "]";
    const std::string text = R"({"version": 1, "hierarchy": {"sentences": )" + sentences +
                             R"(, "word_query": [1.5, -0.5, 0.25, 2, -1], "questions": )" +
                             questions + R"(, "scoring": ")" + scoring + "\"}}";
    INFO(text);
    const scenario::ParseResult r = scenario::parse(text);
    REQUIRE(r.error == "");
    CHECK(r.scenario.hierarchy.sentences.back().rows() == 7);
    CHECK(r.scenario.scoring ==
          (scoring[0] == 'd' ? attn::Scoring::kDot : attn::Scoring::kScaledDot));
    check_against_reference(r);
  }
}

TEST_CASE("hierarchy: the restaurant review's question finds the food sentence",
          "[hierarchy_form]") {
  // tests/scenario/hierarchy/restaurant_review.json: d = 4 (food, service, price, filler), the
  // word query [2, 2, 2, -2] favours content words over "the" and "was"; "how was the food?"
  // is [4, 0, 0, 0], "and the service?" [0, 4, 0, 0].
  const scenario::ParseResult r = scenario::parse(fixture("restaurant_review.json"));
  check_against_reference(r);
  const scenario::Scenario& s = r.scenario;
  const scenario::Hierarchy& h = s.hierarchy;
  CHECK(h.words[0] == std::vector<std::string>{"the", "soup", "was", "delicious"});
  CHECK(h.words_zh[1][3] == "友善");
  CHECK(h.words_zh[1][0] == "the");
  CHECK(s.key_tokens[0] == std::vector<std::string>{"food", "service", "price"});
  CHECK(s.key_tokens_zh[0] == std::vector<std::string>{"菜", "服务", "price"});
  CHECK(s.query_tokens[0] == std::vector<std::string>{"how was the food?", "and the service?"});
  CHECK(s.query_tokens_zh.empty());
  CHECK(s.feature_names[0] == std::vector<std::string>{"food", "service", "price", "filler"});
  // The word level: "the" and "was" (filler) score −2/√4 = −1, "soup" (0.9, 0, 0.1, 0) and
  // "delicious" (1, 0, 0, 0) 1; the content words take 0.44 each, the filler 0.06.
  const double content = std::exp(1.0) / (2 * std::exp(1.0) + 2 * std::exp(-1.0));
  CHECK(std::fabs(h.word_weights[0](1) - content) <= 1e-6);
  CHECK(std::fabs(h.word_weights[0](3) - content) <= 1e-6);
  CHECK(std::fabs(h.word_weights[0](0) - (0.5 - content)) <= 1e-6);
  CHECK(std::fabs(h.word_weights[0](1) - 0.4403985f) <= 1e-6);
  CHECK(std::fabs(h.word_weights[1](3) - 0.47860602f) <= 1e-6);  // "friendly"
  CHECK(std::fabs(h.word_weights[2](3) - 0.50359285f) <= 1e-6);  // "high"
  // The food sentence's vector is mostly food.
  CHECK(h.sentence_vectors(0, 0) > 0.8f);
  CHECK(h.sentence_vectors(0, 3) < 0.2f);
  // The sentence level: each question puts most of its weight on its sentence.
  const attn::Trace t = attn::run(r.problem);
  const attn::Matrix& b = t.heads[0].weights[0];
  CHECK(scenario::argmax_in_row(b, 0) == 0);
  CHECK(scenario::argmax_in_row(b, 1) == 1);
  CHECK(std::fabs(b(0, 0) - 0.71681964f) <= 1e-6);
  CHECK(std::fabs(b(0, 1) - 0.13446581f) <= 1e-6);
  CHECK(std::fabs(b(0, 2) - 0.1487145f) <= 1e-6);
  CHECK(std::fabs(b(1, 1) - 0.7249986f) <= 1e-6);
  // The lesson's question agrees with the core.
  REQUIRE(s.quiz.size() == 1);
  CHECK(scenario::check_quiz_answer(s.quiz[0].answer, t) == "");
  // The trace's own part: the word weights, ragged, and the sentence vectors.
  const std::string block = scenario::hierarchy_trace_json(s);
  CHECK(block.rfind("{\"word_weights\":[[0.059601456,0.4403985,0.059601456,0.4403985],", 0) == 0);
  CHECK(block.find("],\"sentence_vectors\":[[0.8367572,0,0.044039853,0.11920291],") !=
        std::string::npos);
}

TEST_CASE("hierarchy: written back as the block alone, exactly", "[hierarchy_form]") {
  const scenario::ParseResult r = scenario::parse(small(
      R"(, "words": [["a", {"en": "b", "zh": "乙"}], ["c"], ["d", "e", "f"]],
      "sentence_names": ["one", "two", "three"], "question_names": [{"en": "why?", "zh": "为什么"}],
      "feature_names": ["x", "y"], "scoring": "dot")",
      R"("title": "Two levels", )"));
  REQUIRE(r.error == "");
  const std::string once = scenario::to_json(r.scenario);
  CHECK(once ==
        R"({"version":1,"title":"Two levels","hierarchy":{"sentences":[[[0.9,0.1],[0.2,0.8]],)"
        R"([[1,0]],[[0,1],[0.5,0.5],[-1,2]]],"words":[["a",{"en":"b","zh":"乙"}],["c"],)"
        R"(["d","e","f"]],"sentence_names":["one","two","three"],"feature_names":["x","y"],)"
        R"("word_query":[1,0],"questions":[[0,1]],"question_names":[{"en":"why?","zh":"为什么"}],)"
        R"("scoring":"dot"}})");
  const scenario::ParseResult again = scenario::parse(once);
  REQUIRE(again.error == "");
  CHECK(scenario::to_json(again.scenario) == once);
  CHECK(again.scenario.keys[0] == r.scenario.keys[0]);
  CHECK(again.scenario.query_tokens_zh[0][0] == "为什么");
  CHECK(again.scenario.scoring == attn::Scoring::kDot);
  // The defaults are not written; the scoring always is.
  const std::string plain = scenario::to_json(scenario::parse(small()).scenario);
  CHECK(plain == R"({"version":1,"hierarchy":{"sentences":[[[0.9,0.1],[0.2,0.8]],[[1,0]],)"
                 R"([[0,1],[0.5,0.5],[-1,2]]],"word_query":[1,0],"questions":[[0,1]],)"
                 R"("scoring":"scaled_dot"}})");
  // Numbers that need every digit, and the fixture, round trip too.
  for (const std::string& text :
       {fixture("restaurant_review.json"),
        std::string(
            R"({"version": 1, "hierarchy": {"sentences": [[[0.1, 1e-7], [-0.3, 7]]],)"
            R"( "word_query": [0.33333334, 1e-30], "questions": [[-9999.999, 2.5e-3]]}})")}) {
    const scenario::ParseResult p = scenario::parse(text);
    REQUIRE(p.error == "");
    const std::string text1 = scenario::to_json(p.scenario);
    const scenario::ParseResult p2 = scenario::parse(text1);
    REQUIRE(p2.error == "");
    CHECK(scenario::to_json(p2.scenario) == text1);
    CHECK(p2.scenario.hierarchy.word_query == p.scenario.hierarchy.word_query);
    CHECK(p2.scenario.hierarchy.sentences[0] == p.scenario.hierarchy.sentences[0]);
    CHECK(p2.scenario.hierarchy.sentence_vectors == p.scenario.hierarchy.sentence_vectors);
    for (const char* derived : {"\"queries\"", "\"keys\"", "\"values\"", "\"query_tokens\"",
                                "\"key_tokens\"", "\"value_names\""})
      CHECK(text1.find(derived) == std::string::npos);
  }
}

TEST_CASE("hierarchy: an edited sentence level is written out whole, so no edit is lost",
          "[hierarchy_form]") {
  const scenario::ParseResult r = scenario::parse(fixture("restaurant_review.json"));
  REQUIRE(r.error == "");
  CHECK(scenario::to_json(r.scenario).find("\"hierarchy\"") != std::string::npos);
  scenario::Scenario edited = r.scenario;
  edited.temperature = 0.5f;
  edited.keys.mut(0)(2, 0) = 0.75f;
  const std::string text = scenario::to_json(edited);
  CHECK(text.find("\"hierarchy\"") == std::string::npos);
  CHECK(text.find("\"temperature\":0.5") != std::string::npos);
  CHECK(text.find("\"key_tokens\":[{\"en\":\"food\",\"zh\":\"菜\"}") != std::string::npos);
  const scenario::ParseResult back = scenario::parse(text);
  REQUIRE(back.error == "");
  CHECK(back.scenario.hierarchy.empty());
  CHECK(back.scenario.keys[0] == edited.keys[0]);
  CHECK(back.scenario.queries[0] == r.scenario.queries[0]);
  CHECK(back.scenario.feature_names == r.scenario.feature_names);
  CHECK(back.scenario.quiz.size() == 1);
}

TEST_CASE("hierarchy: the link and the exported programs carry the sentence level",
          "[hierarchy_form]") {
  const scenario::ParseResult r = scenario::parse(fixture("restaurant_review.json"));
  REQUIRE(r.error == "");
  // The link holds to_json's text: the block; opened, it is the same hierarchy and attention.
  scenario::ViewState view;
  view.step = 5;
  const scenario::LinkResult back = scenario::decode_link(scenario::encode_link(r.scenario, view));
  REQUIRE(back.error == "");
  CHECK(scenario::to_json(back.scenario) == scenario::to_json(r.scenario));
  CHECK(back.scenario.hierarchy.words == r.scenario.hierarchy.words);
  CHECK(back.scenario.keys[0] == r.scenario.keys[0]);
  CHECK(back.view.step == 5);
  for (const std::string& program :
       {scenario::export_numpy(r.scenario), scenario::export_pytorch(r.scenario)}) {
    CHECK(program.find("cannot run") == std::string::npos);
    CHECK(program.find("queries = f32(") != std::string::npos);
  }
}

TEST_CASE("hierarchy: fields beside it are refused by name", "[hierarchy_form]") {
  const std::string derived =
      ": not with \"hierarchy\": the sentence-level attention takes it from the hierarchy (the "
      "questions as queries, the sentence vectors as keys and values, its scoring, the question "
      "and sentence names as tokens)";
  const std::string unsupported =
      ": not with \"hierarchy\": not supported with it (the sentence-level attention has no "
      "weights, one head, temperature 1 and no masks)";
  const struct {
    const char *key, *value;
    bool derived;
  } others[] = {{"queries", "[[1, 0]]", true},
                {"keys", "[[1, 0]]", true},
                {"values", "[[1, 0]]", true},
                {"scoring", "\"dot\"", true},
                {"query_tokens", "[\"a\"]", true},
                {"key_tokens", "[\"a\"]", true},
                {"feature_names", "[\"a\"]", true},
                {"value_names", "[\"a\"]", true},
                {"output_names", "[\"a\"]", true},
                {"x", "[[1, 0]]", false},
                {"temperature", "2", false},
                {"heads", "1", false},
                {"W_q", "[[1]]", false},
                {"w_v", "[1]", false},
                {"init", "{}", false},
                {"layers", "[{}]", false},
                {"tokens", "[0]", false},
                {"image", "{}", false},
                {"target", "[[1, 0]]", false},
                {"causal", "true", false},
                {"valid_lens", "1", false},
                {"masked_cells", "[]", false},
                {"mask_value", "-1", false},
                {"dropout", "null", false},
                {"hard", "false", false},
                {"positional_encoding", "false", false},
                {"key_feature_names", "[\"a\"]", false},
                {"trained_from", "{}", false},
                {"sigma", "1", false}};
  for (const auto& o : others) {
    INFO(o.key);
    CHECK(error_of(small("", "\"" + std::string(o.key) + "\": " + o.value + ", ")) ==
          o.key + (o.derived ? derived : unsupported));
  }
  // With a seq2seq model: one of the two names the other.
  CHECK(error_of(small("", R"("seq2seq": {}, )")) ==
        "seq2seq: not with \"hierarchy\": a scenario is one model or the other");
  // The lesson fields are welcome.
  CHECK(error_of(small("", R"("title": "t", "description": {"en": "d", "zh": "说明"},
      "tour": [{"step": 5, "text": "the sentence weights"}],
      "read": {"title": "HAN", "url": "https://aclanthology.org/N16-1174/"},
      "quiz": [{"step": 5, "ask": "?", "why": "!", "answer": {"row": 0, "key": 2}}], )")) == "");
  // A quiz is checked against the sentence level's shapes.
  CHECK(error_of(small("", R"("quiz": [{"step": 5, "ask": "?", "why": "!",
      "answer": {"row": 0, "key": 3}}], )"))
            .rfind("quiz[0].answer.key: ", 0) == 0);
}

TEST_CASE("hierarchy: hostile fields inside it are refused by name", "[hierarchy_form]") {
  CHECK(error_of(R"({"version": 1, "hierarchy": [1]})") ==
        "hierarchy: must be an object, got an array");
  CHECK(error_of(small(R"(, "colour": 1)")) == "hierarchy.colour: unknown field");
  CHECK(error_of(R"({"version": 1, "hierarchy": {"sentences": [[[1]]], "questions": [[1]]}})") ==
        "hierarchy.word_query: missing");
  CHECK(error_of(R"({"version": 1, "hierarchy": {"word_query": [1], "questions": [[1]]}})") ==
        "hierarchy.sentences: missing");
  // Shapes.
  const auto with = [](const std::string& sentences,
                       const std::string& rest = R"("word_query": [1, 0], "questions": [[0, 1]])") {
    return error_of(R"({"version": 1, "hierarchy": {"sentences": )" + sentences + ", " + rest +
                    "}}");
  };
  CHECK(with("[[[0.9, 0.1], [0.2, 0.8]], [[1, 0], [0, 1], [1, 2, 3]]]") ==
        "hierarchy.sentences[1][2]: has 3 numbers, expected 2 (d, from sentences[0][0])");
  CHECK(with("[[[0.9, 0.1]], []]") ==
        "hierarchy.sentences[1]: is empty, expected at least one of words");
  CHECK(with("[]") == "hierarchy.sentences: is empty, expected at least one of sentences");
  CHECK(with("[[[]]]") == "hierarchy.sentences[0][0]: is empty, expected at least one of numbers");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1, 0, 0], "questions": [[0, 1]])") ==
        "hierarchy.word_query: has 3 numbers, expected 2 (d, from sentences[0][0])");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1, 0], "questions": [[0, 1], [1]])") ==
        "hierarchy.questions[1]: has 1 numbers, expected 2 (d, from sentences[0][0])");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1, 0], "questions": [])") ==
        "hierarchy.questions: is empty, expected at least one of questions");
  CHECK(with("[[1, 0]]") == "hierarchy.sentences[0][0]: must be an array of numbers, got a number");
  CHECK(with("[[[[1]]]]") == "hierarchy.sentences[0][0][0]: must be a number, got an array");
  // Limits, before anything of that size is built.
  const auto repeat = [](const std::string& item, int n) {
    std::string o = "[" + item;
    for (int i = 1; i < n; ++i) o += "," + item;
    return o + "]";
  };
  CHECK(with(repeat("[[1, 0]]", 65)) ==
        "hierarchy.sentences: has 65 sentences, more than the limit 64");
  CHECK(with(repeat("[[1, 0]]", 64)) == "");
  CHECK(with(repeat("[[1, 0]]", 100000)) == "hierarchy.sentences: has more than 65536 elements");
  CHECK(with("[" + repeat("[1, 0]", 65) + "]") ==
        "hierarchy.sentences[0]: has 65 words, more than the limit 64");
  CHECK(with("[[" + repeat("1", 257) + "]]", "\"word_query\": " + repeat("1", 257) +
                                                 ", \"questions\": [" + repeat("1", 257) + "]") ==
        "hierarchy.sentences[0][0]: has 257 numbers, more than the limit 256");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1, 0], "questions": )" + repeat("[0, 1]", 17)) ==
        "hierarchy.questions: has 17 questions, more than the limit 16");
  // Numbers.
  CHECK(with("[[[1, 0]]]", R"("word_query": ["nan", 0], "questions": [[0, 1]])") ==
        "hierarchy.word_query[0]: must be a number, got a string");
  CHECK(with("[[[1, 0], [0, 1e39]]]") ==
        "hierarchy.sentences[0][1][1]: is 1e+39, outside the float32 range");
  CHECK(with("[[[1, 0], [0, 1e999]]]") == "hierarchy.sentences[0][1][1]: is not a finite number");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1, 0], "questions": [[0, -20000.5]])") ==
        "hierarchy.questions[0][1]: is -20000.5, must be a finite number within ±10000");
  CHECK(with("[[[1, 0]], [[10001, 0]]]") ==
        "hierarchy.sentences[1][0][0]: is 10001, must be a finite number within ±10000");
  CHECK(with("[[[1, 0]]]", R"("word_query": [1e5, 0], "questions": [[0, 1]])") ==
        "hierarchy.word_query[0]: is 1e+05, must be a finite number within ±10000");
  CHECK(with("[[[1e4, -1e4]]]", R"("word_query": [1e4, -1e4], "questions": [[-1e4, 1e4]])") == "");
  // The scoring.
  CHECK(error_of(small(R"(, "scoring": "additive")")) ==
        "hierarchy.scoring: unknown scoring \"additive\", expected \"dot\" or \"scaled_dot\"");
  CHECK(error_of(small(R"(, "scoring": 1)")) ==
        "hierarchy.scoring: must be a string, got a number");
  // Labels.
  CHECK(error_of(small(R"(, "words": [["a", "b"], ["c"]])")) ==
        "hierarchy.words: has 2 sentences, expected 3 (one list per sentence)");
  CHECK(error_of(small(R"(, "words": [["a", "b"], ["c", "x"], ["d", "e", "f"]])")) ==
        "hierarchy.words[1]: has 2 labels, expected 1 (one per word)");
  CHECK(error_of(small(R"(, "words": [["a", "b"], [], ["d", "e", "f"]])")) ==
        "hierarchy.words[1]: is empty, expected at least one of tokens");
  CHECK(error_of(small(R"(, "words": [["a", 2], ["c"], ["d", "e", "f"]])")) ==
        "hierarchy.words[0][1]: must be a string or {\"en\": ..., \"zh\": ...}, got a number");
  CHECK(error_of(small(R"(, "words": [["a", {"zh": "乙"}], ["c"], ["d", "e", "f"]])")) ==
        "hierarchy.words[0][1].en: missing (a token is \"the\" or {\"en\": \"the\", \"zh\": ...})");
  CHECK(error_of(small(R"(, "sentence_names": ["a", "b"])")) ==
        "hierarchy.sentence_names: has 2 labels, expected 3 (one per sentence)");
  CHECK(error_of(small(R"(, "question_names": ["a", "b"])")) ==
        "hierarchy.question_names: has 2 labels, expected 1 (one per question)");
  CHECK(error_of(small(R"(, "feature_names": ["a", "b", "c"])")) ==
        "hierarchy.feature_names: has 3 labels, expected 2 (one per column)");
  CHECK(error_of(small(R"(, "sentence_names": "abc")")) ==
        "hierarchy.sentence_names: must be an array of tokens, got a string");
  CHECK(error_of(small(R"(, "words": [[")" + std::string(5000, 'w') +
                       R"(", "b"], ["c"], ["d", "e", "f"]])")) ==
        "hierarchy.words[0][0]: is 5000 bytes long, more than the limit 64");
  // Deep nesting is refused before it is built.
  CHECK(with(std::string(20, '[') + "1" + std::string(20, ']')) ==
        "json: nests deeper than 16 levels");
  // A label with a line break or a quote is a label: it round trips exactly.
  const scenario::ParseResult odd =
      scenario::parse(small(R"(, "sentence_names": ["a\nb", "say \"hi\"", "\\"])"));
  REQUIRE(odd.error == "");
  CHECK(odd.scenario.key_tokens[0] == std::vector<std::string>{"a\nb", "say \"hi\"", "\\"});
  const std::string odd_text = scenario::to_json(odd.scenario);
  CHECK(odd_text.find(R"("sentence_names":["a\nb","say \"hi\"","\\"])") != std::string::npos);
  CHECK(scenario::to_json(scenario::parse(odd_text).scenario) == odd_text);
}

TEST_CASE("hierarchy: validate_hierarchy refuses what the reader would, without asserting",
          "[hierarchy_form]") {
  scenario::Hierarchy h;
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences: is empty, expected at least one of sentences");
  h.sentences.push_back(attn::Matrix(2, 0));
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[0][0]: has 0 numbers, expected 1 to 256");
  h.sentences[0] = attn::Matrix::Ones(2, 3);
  h.sentences.push_back(attn::Matrix::Ones(1, 2));
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[1][0]: has 2 numbers, expected 3 (d, from sentences[0][0])");
  h.sentences[1] = attn::Matrix(0, 3);
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[1]: is empty, expected at least one of words");
  h.sentences[1] = attn::Matrix::Zero(65, 3);
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[1]: has 65 words, more than the limit 64");
  h.sentences[1] = attn::Matrix::Zero(1, 3);
  h.sentences[1](0, 2) = NAN;
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[1][0][2]: is nan, must be a finite number within ±10000");
  h.sentences[1](0, 2) = INFINITY;
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.sentences[1][0][2]: is inf, must be a finite number within ±10000");
  h.sentences[1](0, 2) = 0.5f;
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.word_query: has 0 numbers, expected 3 (d, from sentences[0][0])");
  h.word_query = attn::Vector::Ones(3);
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.questions: is empty, expected at least one of questions");
  h.questions = attn::Matrix::Ones(17, 3);
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.questions: has 17 questions, more than the limit 16");
  h.questions = attn::Matrix::Ones(2, 3);
  h.scoring = attn::Scoring::kCosine;
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.scoring: \"cosine\" is not supported here, expected \"dot\" or \"scaled_dot\"");
  h.scoring = attn::Scoring::kDot;
  CHECK(scenario::validate_hierarchy(h) == "");
  h.words = {{"a", "b"}, {}};
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.words[1]: has 0 labels, expected 1 (one per word)");
  h.words = {{"a", "b"}, {std::string(65, 'c')}};
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.words[1][0]: is 65 bytes long, more than the limit 64");
  h.words = {{"a", "b"}, {"c"}};
  h.words_zh = {{"甲", "乙"}};
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.words: has 1 lists of Chinese labels, expected 2");
  h.words_zh.clear();
  h.question_names = {"q"};
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.question_names: has 1 labels, expected 2 (one per question)");
  h.question_names = {"why", "how"};
  h.question_names_zh = {"为什么"};
  CHECK(scenario::validate_hierarchy(h) ==
        "hierarchy.question_names: has 1 Chinese labels, expected 2");
  h.question_names_zh.clear();
  CHECK(scenario::validate_hierarchy(h) == "");
  // And derive_hierarchy refuses the same, leaving a scenario that runs only when it is good.
  scenario::Scenario s;
  s.hierarchy = h;
  CHECK(scenario::derive_hierarchy(&s) == "");
  CHECK(scenario::resolve(s).ok());
  CHECK(s.key_tokens[0] == std::vector<std::string>{"s1", "s2"});
  CHECK(s.query_tokens[0] == std::vector<std::string>{"why", "how"});
  s.hierarchy.word_query(0) = -NAN;
  CHECK(scenario::derive_hierarchy(&s) ==
        "hierarchy.word_query[0]: is nan, must be a finite number within ±10000");
}
