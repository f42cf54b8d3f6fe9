// Scenario JSON v1 read: parse, and read_scenario, which reads the scenario's fields and checks
// the ones that go together (a model's block alone, a token model, a picture, layers); its
// values and model blocks are read in json_read_values.cpp and json_read_models.cpp
// (json_read_internal.h), its lesson texts in lesson_json.cpp.
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scenario/json_read_internal.h"
#include "scenario/json_util.h"
#include "scenario/lesson_json.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace scenario {

using json_read_internal::read_batch;
using json_read_internal::read_hierarchy;
using json_read_internal::read_ids;
using json_read_internal::read_image;
using json_read_internal::read_layers;
using json_read_internal::read_seq2seq;
using json_read_internal::read_tokens;
using json_read_internal::read_weight;
using json_read_internal::t_arrays;
using json_util::check_keys;
using json_util::fail;
using json_util::FieldError;
using json_util::idx;
using json_util::JsonError;
using json_util::read_array;
using json_util::read_bool;
using json_util::read_float;
using json_util::read_int;
using json_util::read_string;
using json_util::type_name;
using lesson_json::read_quiz;
using lesson_json::read_reading;
using lesson_json::read_text;
using lesson_json::read_tour;
using nlohmann::json;

namespace {

attn::Scoring read_scoring(const json& v) {
  const std::string name = read_string(v, "scoring", 64);
  std::string names;
  for (attn::Scoring s : attn::kScorings) {
    if (name == attn::scoring_name(s)) return s;
    names += (names.empty() ? "" : ", ") + std::string(attn::scoring_name(s));
  }
  fail("scoring", "unknown scoring " + v.dump() + ", expected one of " + names);
}

void read_valid_lens(const json& v, Scenario* s) {
  const std::string field = "valid_lens";
  if (v.is_number()) {
    s->valid_lens_form = ValidLensForm::kAll;
    s->valid_lens = {{static_cast<int>(read_int(v, field, 0, kMaxRows))}};
    return;
  }
  if (!v.is_array())
    fail(field,
         "must be an integer, an array [batch] or an array [batch][queries], got " + type_name(v));
  read_array(v, field, kMaxBatch, "lengths");
  const bool per_query = v[0].is_array();
  s->valid_lens_form = per_query ? ValidLensForm::kPerQuery : ValidLensForm::kPerSequence;
  for (size_t b = 0; b < v.size(); ++b) {
    const std::string item = idx(field, b);
    if (per_query) {
      if (!v[b].is_array())
        fail(item, "must be an array of lengths like valid_lens[0], got " + type_name(v[b]));
      read_array(v[b], item, kMaxRows, "lengths");
      std::vector<int> lens;
      for (size_t i = 0; i < v[b].size(); ++i)
        lens.push_back(static_cast<int>(read_int(v[b][i], idx(item, i), 0, kMaxRows)));
      s->valid_lens.push_back(lens);
    } else {
      s->valid_lens.push_back({static_cast<int>(read_int(v[b], item, 0, kMaxRows))});
    }
  }
}

void read_masked_cells(const json& v, Scenario* s) {
  if (!v.is_array()) fail("masked_cells", "must be an array of [batch, query, key] triples");
  if (v.size() > static_cast<size_t>(kMaxMaskedCells))
    fail("masked_cells", "has " + std::to_string(v.size()) + " cells, more than the limit " +
                             std::to_string(kMaxMaskedCells));
  for (size_t c = 0; c < v.size(); ++c) {
    const std::string item = idx("masked_cells", c);
    if (!v[c].is_array() || v[c].size() != 3) fail(item, "must be a [batch, query, key] triple");
    std::array<int, 3> cell{};
    for (size_t k = 0; k < 3; ++k)
      cell[k] = static_cast<int>(read_int(v[c][k], idx(item, k), 0, kMaxRows));
    s->masked_cells.push_back(cell);
  }
}

// A scenario made from a model ("seq2seq", "hierarchy") takes its attention from it: beside the
// block only the lesson's texts may stand. A field the model derives is refused with
// `derived_why`, any other with `other_why`, the other model's block as a second model.
void refuse_beside_model(const json& j, const std::string& model,
                         const std::set<std::string>& derived, const std::string& derived_why,
                         const std::string& other_why) {
  static const std::set<std::string> kLesson = {"version", "title", "description",
                                                "tour",    "quiz",  "read"};
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (kLesson.count(key) || key == model) continue;
    const std::string beside = "not with \"" + model + "\": ";
    if (key == "seq2seq" || key == "hierarchy")
      fail(key, beside + "a scenario is one model or the other");
    fail(json_util::key_name(key), beside + (derived.count(key) ? derived_why : other_why));
  }
}

Scenario read_scenario(const json& j) {
  if (!j.is_object()) fail("scenario", "must be a JSON object, got " + type_name(j));
  // clang-format off
  check_keys(j, "",
             {"version",       "title",       "description",  "x",           "queries",
              "keys",          "values",      "query_tokens", "key_tokens",  "scoring",
              "temperature",   "heads",       "valid_lens",   "causal",      "window",
              "masked_cells",  "mask_value",  "W_q",          "W_k",         "W_v",
              "W_o",           "W",           "w_v",          "init",        "positional_encoding",
              "hard",          "dropout",     "tour",         "quiz",        "read",
              "feature_names", "key_feature_names",           "value_names", "output_names",
              "target",        "trained_from",                "layers",      "tokens",
              "next",          "embed",       "unembed",      "vocab",       "batches",
              "image",         "sigma",       "seq2seq",      "hierarchy",   "true_curve"});
  // clang-format on
  if (!j.contains("version")) fail("version", "missing; expected 1");
  if (read_int(j["version"], "version", 0, 1 << 30) != 1)
    fail("version", j["version"].dump() + " is not supported; this build reads version 1");
  // Attention over attention (scenario/hierarchy_form.h): the sentence level, its inputs,
  // scoring and names all come from the hierarchy; a lesson's texts may go with it.
  const bool hierarchy = j.contains("hierarchy");
  if (hierarchy)
    refuse_beside_model(j, "hierarchy",
                        {"queries", "keys", "values", "scoring", "query_tokens", "key_tokens",
                         "feature_names", "value_names", "output_names"},
                        "the sentence-level attention takes it from the hierarchy (the "
                        "questions as queries, the sentence vectors as keys and values, its "
                        "scoring, the question and sentence names as tokens)",
                        "not supported with it (the sentence-level attention has no weights, "
                        "one head, temperature 1 and no masks)");
  // A GRU encoder–decoder (scenario/seq2seq_form.h): the decoder's attention, its inputs and
  // weights all come from the model; a lesson's texts may go with it.
  const bool seq2seq = j.contains("seq2seq");
  if (seq2seq)
    refuse_beside_model(
        j, "seq2seq",
        {"queries", "keys", "values", "scoring", "query_tokens", "key_tokens", "feature_names",
         "value_names", "output_names", "init", "W_q", "W_k", "w_v", "W_v", "W_o", "W"},
        "the decoder's attention takes it from the model (its queries "
        "s_{t-1}, the encoder's states as keys and values, the model's "
        "W_q, W_k and w_v, additive scoring, the words as tokens)",
        "the model is a GRU encoder-decoder with its own inputs, "
        "weights and settings (temperature 1, no masks, one head)");
  // Stacked layers: self-attention over the stream, each layer with its own weights and heads.
  const bool layered = j.contains("layers");
  if (layered) {
    if (!j.contains("x") && !j.contains("tokens"))
      fail("layers", "need \"x\" or \"tokens\": each layer attends over the stream");
    for (const char* name : attn::kWeightNames)
      if (j.contains(name))
        fail(name,
             std::string("not with \"layers\" (each layer has its own: layers[0].") + name + ")");
    if (j.contains("heads"))
      fail("heads", "not with \"layers\" (each layer has its own: layers[0].heads)");
  }

  Scenario s;
  if (j.contains("title")) s.title = read_text(j["title"], "title");
  if (j.contains("description")) s.description = read_text(j["description"], "description");
  if (j.contains("tour")) s.tour = read_tour(j["tour"]);
  if (j.contains("quiz")) s.quiz = read_quiz(j["quiz"]);
  if (j.contains("read")) read_reading(j["read"], &s);
  if (j.contains("trained_from")) {
    const json& t = j["trained_from"];
    if (!t.is_object())
      fail("trained_from", "must be an object {\"task\": ..., \"seed\": ...}, got " + type_name(t));
    check_keys(t, "trained_from", {"task", "seed"});
    if (!t.contains("task") || !t["task"].is_string() || !find_task(t["task"].get<std::string>()))
      fail("trained_from.task", "must name a toy task (attention-cli task --list)");
    if (!t.contains("seed")) fail("trained_from.seed", "missing");
    s.trained_from_task = t["task"].get<std::string>();
    s.trained_from_seed =
        static_cast<uint64_t>(read_int(t["seed"], "trained_from.seed", 0, kMaxTaskSeed));
  }

  if (hierarchy) {
    s.hierarchy = read_hierarchy(j["hierarchy"]);
    const std::string e = derive_hierarchy(&s);
    if (!e.empty()) throw FieldError{e};
    return s;
  }
  if (seq2seq) {
    s.seq2seq = read_seq2seq(j["seq2seq"]);
    const std::string e = derive_seq2seq(&s);
    if (!e.empty()) throw FieldError{e};
    return s;
  }

  // A token model: tokens in place of x, and the cross-entropy of next in place of a target.
  const bool tokens = j.contains("tokens");
  if (tokens) {
    if (!layered) fail("tokens", "needs \"layers\" (a token model is a stack of layers)");
    for (const char* other : {"x", "queries", "keys", "values"})
      if (j.contains(other)) fail(other, "give either tokens (a token model) or x");
    if (j.contains("target"))
      fail("target", "not with tokens (the loss is the cross-entropy of next)");
  } else {
    for (const char* name : {"next", "embed", "unembed", "vocab", "batches"})
      if (j.contains(name)) fail(name, "only with \"tokens\" (a token model)");
  }

  // A picture: its patches are the keys and values (scenario/image.h), the queries say what to
  // look for.
  const bool image = j.contains("image");
  if (image) {
    for (const char* other : {"x", "tokens", "layers"})
      if (j.contains(other))
        fail("image",
             std::string("not with \"") + other +
                 "\": the picture's patches are the keys, and queries say what to look for");
  }

  bool two_d = false;
  if (image) {
    s.image = read_image(j["image"], "image");
    if (!j.contains("queries"))
      fail("queries",
           "missing; the picture's patches are the keys, the queries say what to look for");
    s.queries = read_batch(j["queries"], "queries", &two_d);
    if (s.queries.size() != 1) fail("queries", "must be one batch item: there is one picture");
    // Keys and values are the patches' numbers; given, they must have a row for each patch (a
    // learner's edit written out).
    const attn::Matrix patches = image_features(s.image);
    for (const char* name : {"keys", "values"}) {
      attn::Batch& b = name[0] == 'k' ? s.keys : s.values;
      if (!j.contains(name)) {
        b = attn::Batch{patches};
        continue;
      }
      bool b2 = false;
      b = read_batch(j[name], name, &b2);
      if (b.size() != 1 || b[0].rows() != patches.rows())
        fail(name, "must have one row for each of the picture's " + std::to_string(patches.rows()) +
                       " patches (or be left out)");
    }
    s.batch_of_one = two_d;
  } else if (tokens) {
    s.self_attention = true;
    s.token_ids = read_ids(j["tokens"], "tokens", 0, &two_d);
    s.batch_of_one = two_d;
    if (j.contains("next")) {
      bool next_2d = false;
      s.next_tokens = read_ids(j["next"], "next", -1, &next_2d);
    }
    if (j.contains("embed")) read_weight(j["embed"], "embed", &s.embed);
    if (j.contains("unembed")) read_weight(j["unembed"], "unembed", &s.unembed);
    if (j.contains("batches")) {  // training's batches, drawn from a layered task
      const json& t = j["batches"];
      if (!t.is_object())
        fail("batches", "must be an object {\"task\": ..., \"seed\": ...}, got " + type_name(t));
      check_keys(t, "batches", {"task", "seed"});
      const TaskInfo* task = t.contains("task") && t["task"].is_string()
                                 ? find_task(t["task"].get<std::string>())
                                 : nullptr;
      if (!task || !task->layered)
        fail("batches.task", "must name a toy task of token sequences (induction)");
      if (!t.contains("seed")) fail("batches.seed", "missing");
      s.batches_task = task->name;
      s.batches_seed = static_cast<uint64_t>(read_int(t["seed"], "batches.seed", 0, kMaxTaskSeed));
    }
    if (j.contains("vocab")) {
      const json& v = j["vocab"];
      read_array(v, "vocab", kMaxVocab, "tokens");
      for (size_t i = 0; i < v.size(); ++i)
        s.vocab.push_back(read_string(v[i], idx("vocab", i), kMaxTokenBytes));
    }
  } else if (j.contains("x")) {
    for (const char* other : {"queries", "keys", "values"})
      if (j.contains(other)) fail(other, "give either x (self-attention) or queries/keys/values");
    s.self_attention = true;
    s.queries = read_batch(j["x"], "x", &two_d);
    s.keys = s.queries;
    s.values = s.queries;
    s.batch_of_one = two_d;
  } else {
    for (const char* name : {"queries", "keys", "values"})
      if (!j.contains(name))
        fail(name, "missing; give x (self-attention), or queries, keys and values");
    bool q2, k2, v2;
    s.queries = read_batch(j["queries"], "queries", &q2);
    s.keys = read_batch(j["keys"], "keys", &k2);
    s.values = read_batch(j["values"], "values", &v2);
    s.batch_of_one = q2 && k2 && v2;
  }
  bool q_per_item = false, k_per_item = false;
  if (j.contains("query_tokens"))
    s.query_tokens =
        read_tokens(j["query_tokens"], "query_tokens", &q_per_item, &s.query_tokens_zh);
  if (j.contains("key_tokens"))
    s.key_tokens = read_tokens(j["key_tokens"], "key_tokens", &k_per_item, &s.key_tokens_zh);
  if (j.contains("query_tokens") && j.contains("key_tokens") && q_per_item != k_per_item)
    fail("key_tokens", "must be [n] like query_tokens, or [batch][n] like query_tokens");
  s.tokens_per_item = q_per_item || k_per_item;
  if (j.contains("target")) {
    bool two_d = false;
    s.target = read_batch(j["target"], "target", &two_d);
  }
  if (j.contains("true_curve")) {  // the function a regression's points were drawn from
    const json& v = j["true_curve"];
    if (!v.is_array() || v.size() < 2 || v.size() > static_cast<size_t>(kMaxTrueCurve))
      fail("true_curve", "must be 2 to " + std::to_string(kMaxTrueCurve) + " pairs [x, y]");
    s.true_curve = json_read_internal::read_matrix(v, "true_curve");
    if (s.true_curve.cols() != 2) fail("true_curve", "must be pairs [x, y]");
    if (!s.true_curve.allFinite()) fail("true_curve", "must hold finite numbers");
    for (Eigen::Index i = 1; i < s.true_curve.rows(); ++i)
      if (!(s.true_curve(i, 0) > s.true_curve(i - 1, 0)))
        fail("true_curve[" + std::to_string(i) + "][0]", "x must increase from pair to pair (" +
                                                             v[i][0].dump() + " after " +
                                                             v[i - 1][0].dump() + ")");
  }
  using Names = std::vector<std::vector<std::string>>;
  const struct {
    const char* field;
    Names *en, *zh;
  } name_fields[] = {{"feature_names", &s.feature_names, &s.feature_names_zh},
                     {"key_feature_names", &s.key_feature_names, &s.key_feature_names_zh},
                     {"value_names", &s.value_names, &s.value_names_zh},
                     {"output_names", &s.output_names, &s.output_names_zh}};
  for (const auto& names : name_fields) {
    const char* field = names.field;
    if (!j.contains(field)) continue;
    const json& v = j[field];
    if (v.is_array() && !v.empty() && v[0].is_array())
      fail(field, "must be one list of names, one per column");
    bool per_item = false;
    *names.en = read_tokens(v, field, &per_item, names.zh);
  }

  if (j.contains("scoring")) s.scoring = read_scoring(j["scoring"]);
  if (j.contains("temperature")) s.temperature = read_float(j["temperature"], "temperature");
  if (j.contains("sigma")) {  // gaussian scoring's kernel width σ
    if (s.scoring != attn::Scoring::kGaussian) fail("sigma", "only with \"scoring\": \"gaussian\"");
    s.sigma = read_float(j["sigma"], "sigma");
    if (!(s.sigma > 0.0f && s.sigma <= attn::kMaxSigma))
      fail("sigma", "must be a number > 0 and at most 1000");
  }
  if (j.contains("heads")) s.heads = static_cast<int>(read_int(j["heads"], "heads", 1, kMaxHeads));

  if (j.contains("valid_lens") && !j["valid_lens"].is_null()) read_valid_lens(j["valid_lens"], &s);
  if (j.contains("causal")) s.causal = read_bool(j["causal"], "causal");
  if (j.contains("window") && !j["window"].is_null())
    s.window = static_cast<int>(read_int(j["window"], "window", 0, kMaxRows));
  if (j.contains("masked_cells")) read_masked_cells(j["masked_cells"], &s);
  if (j.contains("mask_value")) {
    const json& mv = j["mask_value"];
    if (mv.is_string()) {
      if (mv.get<std::string>() != "-inf")
        fail("mask_value", "must be a negative number or the string \"-inf\", got " + mv.dump());
      s.mask_value = -std::numeric_limits<float>::infinity();
    } else {
      s.mask_value = read_float(mv, "mask_value");
    }
  }

  attn::for_each_weight(s, [&j](const char* name, auto& m) {
    if (j.contains(name)) read_weight(j[name], name, &m);
  });
  if (layered) s.layers = read_layers(j["layers"]);
  if (j.contains("init")) {
    const json& init = j["init"];
    if (!init.is_object()) fail("init", "must be an object {\"seed\": 42, \"d_model\": 8}");
    check_keys(init, "init", {"seed", "d_model"});
    if (!init.contains("seed")) fail("init.seed", "missing");
    if (!init.contains("d_model")) fail("init.d_model", "missing");
    s.has_init = true;
    s.init_seed = static_cast<uint64_t>(read_int(init["seed"], "init.seed", 0, int64_t{1} << 53));
    s.init_d_model = static_cast<int>(read_int(init["d_model"], "init.d_model", 1, kMaxCols));
  }

  if (j.contains("positional_encoding")) {
    const json& pe = j["positional_encoding"];
    if (pe.is_boolean()) {
      s.positional_encoding = pe.get<bool>();
    } else if (pe.is_object()) {
      check_keys(pe, "positional_encoding", {"kind", "base"});
      if (pe.contains("kind") &&
          read_string(pe["kind"], "positional_encoding.kind", 64) != "sinusoidal")
        fail("positional_encoding.kind",
             "unknown kind " + pe["kind"].dump() + ", expected \"sinusoidal\"");
      s.positional_encoding = true;
      if (pe.contains("base")) s.pe_base = read_float(pe["base"], "positional_encoding.base");
    } else if (!pe.is_null()) {
      fail("positional_encoding",
           "must be {\"kind\": \"sinusoidal\", \"base\": 10000} or a "
           "boolean, got " +
               type_name(pe));
    }
  }
  if (j.contains("hard")) {
    const json& hard = j["hard"];
    if (hard.is_boolean()) {
      s.hard = hard.get<bool>();
    } else if (hard.is_object()) {  // hard attention with an estimator of its gradient
      check_keys(hard, "hard", {"estimator", "tau", "seed", "soft"});
      if (!hard.contains("estimator"))
        fail("hard.estimator", "missing (\"straight_through\" or \"gumbel\")");
      const std::string estimator = read_string(hard["estimator"], "hard.estimator", 64);
      s.hard = true;
      if (estimator == "straight_through") {
        s.hard_gradient = attn::HardGradient::kStraightThrough;
        for (const char* key : {"tau", "seed", "soft"})
          if (hard.contains(key))
            fail(std::string("hard.") + key,
                 "unknown field for \"straight_through\" (tau, seed and soft are \"gumbel\"'s)");
      } else if (estimator == "gumbel") {
        s.hard_gradient = attn::HardGradient::kGumbel;
        if (hard.contains("tau")) {
          const json& t = hard["tau"];
          // At least 1e-30: the noisy softmax's gradient is scaled by 1/τ, which must stay
          // well inside float32's range (at 1e-38, Adam's first step already leaves it).
          const std::string expected =
              "must be a number from 1e-30 (1/tau scales the gradient, which must stay inside "
              "float32) to 100, got ";
          if (!t.is_number()) fail("hard.tau", expected + type_name(t));
          const double d = t.get<double>();
          if (!(d >= 1e-30 && d <= 100.0)) fail("hard.tau", expected + t.dump());  // NaN too
          s.gumbel_tau = static_cast<float>(d);
        }
        if (hard.contains("seed"))
          s.gumbel_seed =
              static_cast<uint64_t>(read_int(hard["seed"], "hard.seed", 0, int64_t{1} << 53));
        if (hard.contains("soft")) s.gumbel_soft = read_bool(hard["soft"], "hard.soft");
      } else {
        fail("hard.estimator", "unknown estimator " + json_util::quoted(estimator) +
                                   ", expected \"straight_through\" or \"gumbel\"");
      }
    } else {
      fail("hard",
           "must be true, false, {\"estimator\": \"straight_through\"} or {\"estimator\": "
           "\"gumbel\", \"tau\": 1, \"seed\": 0, \"soft\": false}, got " +
               type_name(hard));
    }
  }
  if (s.token_model()) {
    // Each token's row of embed (given, or generated from init and vocab) is its x.
    if (!s.embed.size() && !(s.has_init && !s.vocab.empty()))
      fail("embed", "missing (V × d: give it, or \"init\" and \"vocab\" to generate it)");
    const int V =
        s.embed.size() ? static_cast<int>(s.embed.rows()) : static_cast<int>(s.vocab.size());
    if (!s.vocab.empty() && static_cast<int>(s.vocab.size()) != V)
      fail("vocab", "has " + std::to_string(s.vocab.size()) + " names, expected " +
                        std::to_string(V) + " (the rows of embed)");
    for (size_t b = 0; b < s.token_ids.size(); ++b)
      for (size_t i = 0; i < s.token_ids[b].size(); ++i)
        if (s.token_ids[b][i] >= V)
          fail(s.batch_of_one ? idx("tokens", i) : idx(idx("tokens", b), i),
               "is " + std::to_string(s.token_ids[b][i]) + ", expected a token in [0, " +
                   std::to_string(V) + ") (the rows of embed)");
    fill_token_inputs(&s);
  }
  if (j.contains("dropout") && !j["dropout"].is_null()) {
    const json& d = j["dropout"];
    if (!d.is_object()) fail("dropout", "must be an object {\"p\": 0.1, \"seed\": 1}");
    check_keys(d, "dropout", {"p", "seed"});
    if (!d.contains("p")) fail("dropout.p", "missing");
    s.has_dropout = true;
    s.dropout_p = read_float(d["p"], "dropout.p");
    if (d.contains("seed"))
      s.dropout_seed =
          static_cast<uint64_t>(read_int(d["seed"], "dropout.seed", 0, int64_t{1} << 53));
  }
  return s;
}

}  // namespace

ParseResult json_util::parse_value(const json& j, const std::vector<FloatArray>& arrays) {
  ParseResult r;
  t_arrays = &arrays;
  try {
    r.scenario = read_scenario(j);
  } catch (const FieldError& e) {
    t_arrays = nullptr;
    r.error = e.message;
    return r;
  }
  t_arrays = nullptr;
  Resolved resolved = resolve(r.scenario);
  r.problem = std::move(resolved.problem);
  r.stack = std::move(resolved.stack);
  r.error = std::move(resolved.error);
  return r;
}

ParseResult parse(const std::string& json_text) {
  return parse(json_text, {});
}

ParseResult parse(const std::string& json_text, const std::vector<FloatArray>& arrays) {
  json j;
  const JsonError e = json_util::read_json(json_text, &j);
  ParseResult r;
  switch (e.kind) {
    case JsonError::Kind::kNone:
      return json_util::parse_value(j, arrays);
    case JsonError::Kind::kValue:
      r.error = (e.path.empty() ? "scenario" : e.path) + ": " + e.message;
      break;
    default:
      r.error = "json: " + e.message;
      break;
  }
  return r;
}

}  // namespace scenario
