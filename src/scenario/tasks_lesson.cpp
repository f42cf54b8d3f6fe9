// A lesson built from its recipe (build_lesson): a toy task trained at build time, or the GRU
// encoder-decoder's toy translation (seq2seq_translation), with the lesson's texts, read back
// as a scenario.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/gradient.h"
#include "core/seq2seq.h"
#include "scenario/json_util.h"
#include "scenario/scenario.h"
#include "scenario/seq2seq_form.h"
#include "scenario/tasks.h"

namespace scenario {

namespace {

// A recipe of the GRU encoder–decoder's toy translation (core/seq2seq.h):
//   "train": {"task": "seq2seq_translation", "seed": 2, "steps": 1500, "batch": 16,
//             "sentence": ["big", "dog", "runs"]}
// trained by attn::seq2seq::train_toy, written as a "seq2seq" scenario that decodes the
// sentence greedily, with every weight given. Returns the scenario's JSON, or throws FieldError.
nlohmann::json seq2seq_lesson(const nlohmann::json& t) {
  using json_util::fail;
  using json_util::read_int;
  using nlohmann::json;
  namespace s2s = attn::seq2seq;
  json_util::check_keys(t, "recipe.train", {"task", "seed", "steps", "batch", "sentence"});
  const int64_t seed =
      t.contains("seed") ? read_int(t["seed"], "recipe.train.seed", 0, kMaxTaskSeed) : 1;
  // Each step draws 2 · batch pairs: the limits keep that under 2 · 10⁶.
  const int64_t steps =
      t.contains("steps") ? read_int(t["steps"], "recipe.train.steps", 0, 5000) : 1500;
  const int64_t batch =
      t.contains("batch") ? read_int(t["batch"], "recipe.train.batch", 1, 64) : s2s::kToyBatch;
  if (!t.contains("sentence"))
    fail("recipe.train.sentence", "missing: the source sentence the lesson decodes");
  const json& words =
      json_util::read_array(t["sentence"], "recipe.train.sentence", kMaxSeq2SeqLength, "words");
  std::vector<std::string> source_words, target_words;
  for (int id = 2; id < s2s::Sizes{}.src_vocab; ++id)
    source_words.emplace_back(s2s::toy_source_words()[id]);
  for (int id = 2; id < s2s::Sizes{}.tgt_vocab; ++id)
    target_words.emplace_back(s2s::toy_target_words()[id]);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string field = "recipe.train.sentence[" + std::to_string(i) + "]";
    const std::string w = json_util::read_string(words[i], field, 64);
    if (std::find(source_words.begin(), source_words.end(), w) == source_words.end())
      fail(field, json(w).dump() + " is not a word of the toy language's source vocabulary");
  }
  const s2s::Params p = s2s::train_toy(static_cast<uint64_t>(seed), static_cast<int>(steps),
                                       static_cast<int>(batch), nullptr);
  json weights = json::object();
  s2s::for_each_param(p, [&weights](const char* name, const attn::Matrix& m) {
    json rows = json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      json row = json::array();
      for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(json::parse(format_float(m(r, c))));
      rows.push_back(std::move(row));
    }
    weights[name] = std::move(rows);
  });
  const s2s::Sizes& z = p.sizes;
  json doc = {{"version", 1},
              {"seq2seq",
               {{"sizes", {{"embed", z.embed}, {"hidden", z.hidden}, {"attention", z.attention}}},
                {"source_words", source_words},
                {"target_words", target_words},
                {"seed", seed},  // the random start the page's Random start draws again
                {"weights", std::move(weights)},
                {"source", words}}}};
  return doc;
}

// The lesson's texts (recipe.lesson) set into the scenario doc, and the whole read as a
// scenario: its texts are checked as a scenario's are.
LessonResult finish_lesson(nlohmann::json doc, const nlohmann::json& recipe) {
  LessonResult r;
  const auto failed = [&r](const std::string& field, const std::string& problem) {
    r.error = "recipe." + field + ": " + problem;
    return r;
  };
  if (recipe.contains("lesson")) {
    for (const auto& item : recipe["lesson"].items()) {
      const std::string& k = item.key();
      if (k != "title" && k != "description" && k != "read" && k != "tour" && k != "quiz")
        return failed("lesson." + json_util::key_name(k),
                      "is not a lesson field (title, description, read, tour, quiz)");
      doc[k] = item.value();
    }
  }
  ParseResult parsed = parse(doc.dump());
  if (!parsed.ok()) return failed("lesson", parsed.error);
  r.scenario = std::move(parsed.scenario);
  return r;
}

}  // namespace

LessonResult build_lesson(const std::string& recipe_json) {
  using json_util::check_keys;
  using json_util::read_int;
  using json_util::read_object;
  using json_util::read_string;
  using nlohmann::json;
  LessonResult r;
  json j;
  const json_util::JsonError e = json_util::read_json(recipe_json, &j);
  if (!e.ok()) {
    r.error = "recipe" + (e.path.empty() ? "" : "." + e.path) + ": " + e.message;
    return r;
  }
  const TaskInfo* info = nullptr;
  int64_t seed = 1, steps = 0, keep = kMaxBatch;
  attn::Optimizer opt;
  try {
    read_object(j, "recipe");
    check_keys(j, "recipe", {"version", "train", "lesson"});
    if (!j.contains("version") || j["version"] != 1) json_util::fail("recipe.version", "must be 1");
    if (!j.contains("train")) json_util::fail("recipe.train", "missing");
    const json& t = read_object(j["train"], "recipe.train");
    if (!t.contains("task")) json_util::fail("recipe.train.task", "missing");
    const std::string task = read_string(t["task"], "recipe.train.task", 64);
    if (task != "seq2seq_translation")
      check_keys(t, "recipe.train", {"task", "seed", "steps", "optimizer", "lr", "keep"});
    if (task == "seq2seq_translation") {
      if (j.contains("lesson")) read_object(j["lesson"], "recipe.lesson");
      return finish_lesson(seq2seq_lesson(t), j);
    }
    info = find_task(task);
    if (!info)
      json_util::fail("recipe.train.task",
                      "must name a toy task (attention-cli task --list) or seq2seq_translation");
    steps = info->steps;
    if (t.contains("seed")) seed = read_int(t["seed"], "recipe.train.seed", 0, kMaxTaskSeed);
    if (t.contains("steps")) steps = read_int(t["steps"], "recipe.train.steps", 0, kMaxRecipeSteps);
    if (t.contains("keep")) keep = read_int(t["keep"], "recipe.train.keep", 1, kMaxBatch);
    opt.kind = attn::Optimizer::Kind::kAdam;
    opt.lr = static_cast<float>(info->lr);  // a float, as the page keeps it
    if (t.contains("optimizer")) {
      const std::string o = read_string(t["optimizer"], "recipe.train.optimizer", 64);
      if (!is_optimizer(o))
        json_util::fail("recipe.train.optimizer", std::string("must be ") + kOptimizerChoice);
      if (o == "sgd") opt.kind = attn::Optimizer::Kind::kSgd;
    }
    if (t.contains("lr")) {
      opt.lr = json_util::read_float(t["lr"], "recipe.train.lr");
      if (!is_learning_rate(opt.lr))
        json_util::fail("recipe.train.lr", "must be " + learning_rate_rule());
    }
    if (j.contains("lesson")) read_object(j["lesson"], "recipe.lesson");
  } catch (const json_util::FieldError& fe) {
    r.error = fe.message;
    return r;
  }
  const auto failed = [&r](const std::string& field, const std::string& problem) {
    r.error = "recipe" + (field.empty() ? "" : "." + field) + ": " + problem;
    return r;
  };

  Scenario s = make_task(info->name, static_cast<uint64_t>(seed)).scenario;
  const Resolved resolved = resolve(s);
  if (!resolved.ok()) return failed("train", resolved.error);
  if (info->layered) {
    // A stack: step k trains on the task's batch k (as attention-cli train and the page do).
    attn::Stack st = resolved.stack;
    for (int64_t k = 1; k <= steps; ++k) {
      TaskBatch b = task_batch(s.batches_task, s.batches_seed, static_cast<uint64_t>(k));
      st.tokens.ids = std::move(b.ids);
      st.tokens.next = std::move(b.next);
      double loss = 0.0;
      const attn::Status status = opt.step(&st, s.target, &loss);
      if (!status.ok()) return failed("train", status.error);
    }
    set_weights(&s, st);
  } else {
    attn::Problem p = resolved.problem;
    for (int64_t k = 0; k < steps; ++k) {
      double loss = 0.0;
      const attn::Status st = opt.step(&p, s.target, &loss);
      if (!st.ok()) return failed("train", st.error);
    }
    set_weights(&s, p.weights);
  }
  s.trained_from_task = info->name;
  s.trained_from_seed = static_cast<uint64_t>(seed);
  if (keep < s.batch()) {
    const size_t n = static_cast<size_t>(keep);
    for (attn::Batch* b : {&s.queries, &s.keys, &s.values, &s.target})
      b->resize(std::min(n, b->size()));
    for (auto* tokens : {&s.query_tokens, &s.key_tokens, &s.query_tokens_zh, &s.key_tokens_zh})
      if (s.tokens_per_item && tokens->size() > n) tokens->resize(n);
    for (auto* ids : {&s.token_ids, &s.next_tokens})  // a token model's sequences
      if (ids->size() > n) ids->resize(n);
  }

  return finish_lesson(nlohmann::json::parse(to_json(s)), j);
}

}  // namespace scenario
