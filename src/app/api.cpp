// The JavaScript API's calls on the app state, GL-free (see api.h).
#include "app/api.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "app/controls.h"
#include "app/edits.h"
#include "app/explain.h"
#include "app/glossary.h"
#include "app/matrices.h"
#include "scenario/json_util.h"
#include "scenario/link.h"
#include "scenario/npz.h"
#include "scenario/tasks.h"

namespace ui::api {

std::string limits() {
  nlohmann::json j;
  j["max_step"] = scenario::kStepCount - 1;
  j["max_batch"] = scenario::kMaxBatch;
  j["max_rows"] = scenario::kMaxRows;
  j["max_cols"] = scenario::kMaxCols;
  j["memory_budget_bytes"] = AppState::kMemoryBudget;
  // A scenario's JSON text is held to a link's length.
  j["max_scenario_chars"] = scenario::kMaxLinkChars;
  // A .npy/.npz: kMaxArrayNumbers float32 numbers, and room for headers.
  j["max_file_bytes"] = scenario::kMaxArrayNumbers * sizeof(float) + (size_t{1} << 20);
  j["max_task_seed"] = scenario::kMaxTaskSeed;
  j["max_train_steps"] = scenario::kMaxViewTrainSteps;
  j["max_learning_rate"] = scenario::kMaxLearningRate;
  j["optimizers"] = nlohmann::json::array();
  for (const char* o : scenario::kOptimizerNames) j["optimizers"].push_back(o);
  // The fields that may come as typed arrays, and a head's matrices in getTrace's order.
  j["array_fields"] = nlohmann::json::array();
  for (const char* f : scenario::kInputNames) j["array_fields"].push_back(f);
  for (const char* f : attn::kWeightNames) j["array_fields"].push_back(f);
  j["head_matrices"] = nlohmann::json::array();
  for (const char* m : attn::kHeadMatrixNames) j["head_matrices"].push_back(m);
  // The steps in order, by their English names (step_name).
  j["steps"] = nlohmann::json::array();
  for (int s = 0; s < scenario::kStepCount; ++s)
    j["steps"].push_back(step_name(static_cast<Step>(s)));
  return j.dump();
}

namespace {

std::vector<std::string> split_csv(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty() && item.size() <= 32) out.push_back(item);
  return out;
}

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string get_scenario(const AppState& s) {
  return scenario::to_json(s.scenario);
}

std::string set_scenario(AppState& s, const std::string& json) {
  return s.set_scenario_json(json).error;
}

std::string set_scenario(AppState& s, const std::string& json,
                         const std::vector<scenario::FloatArray>& arrays) {
  scenario::ParseResult r = scenario::parse(json, arrays);
  if (!r.ok()) return r.error;
  return s.set_parsed(std::move(r.scenario), std::move(r.problem)).error;
}

namespace {

// The lesson on screen as JSON for open_arrays' attempts, but for the fields the arrays
// replace (written as one number: the attempts drop them), so that the inputs of a large
// lesson are not written out as text only to be thrown away.
nlohmann::json lesson_json(const scenario::Scenario& lesson,
                           const std::vector<scenario::ArrayHeader>& arrays) {
  scenario::Scenario light = lesson;  // its batches are shared, not copied
  const attn::Matrix one = attn::Matrix::Zero(1, 1);
  for (const scenario::ArrayHeader& a : arrays) {
    const std::string& f = a.name;
    const bool input = f == "queries" || f == "keys" || f == "values";
    if (f == "x" || (input && light.self_attention)) {  // x is written for all three
      light.queries = light.keys = light.values = attn::Batch{one};
    } else if (input) {
      (f == "queries" ? light.queries : f == "keys" ? light.keys : light.values) = attn::Batch{one};
    } else {
      attn::for_each_weight(light, [&f](const char* name, auto& m) {
        if (f == name) m.setZero(1, 1);  // a matrix 1 × 1; w_v one number
      });
    }
  }
  return nlohmann::json::parse(scenario::to_json(light));
}

// The arrays' part of the memory AppState::memory_needed counts, whatever the scenario around
// them: their numbers twice (the scenario's inputs and the problem's), and each batch item's
// mask and the view's scores, weights and the like (4 matrices of queries × keys). When x
// (or queries and keys or values) alone need more than the budget, every scenario with them
// does, and the error says so; "" otherwise.
std::string least_memory_error(const std::vector<scenario::ArrayHeader>& arrays) {
  const scenario::ArrayHeader *x = nullptr, *q = nullptr, *k = nullptr, *v = nullptr;
  for (const scenario::ArrayHeader& a : arrays) {  // in order, as parse_with_arrays sets them
    if (a.name == "x") x = &a, q = k = v = nullptr;
    if (a.name == "queries") q = &a, x = nullptr;
    if (a.name == "keys") k = &a, x = nullptr;
    if (a.name == "values") v = &a, x = nullptr;
  }
  const scenario::ArrayHeader* rows_q = x ? x : q;
  const scenario::ArrayHeader* rows_k = x ? x : k ? k : v;
  if (!rows_q || !rows_k) return "";  // the lesson's own, a few
  auto rows = [](const scenario::ArrayHeader* a) {
    return static_cast<int64_t>(a->shape[a->shape.size() - 2]);
  };
  const int64_t n_q = rows(rows_q), n_k = rows(rows_k);
  const int64_t batch = rows_q->shape.size() == 3 ? static_cast<int64_t>(rows_q->shape[0]) : 1;
  int64_t inputs = 0;
  for (const scenario::ArrayHeader* a : {x, q, k, v})
    if (a) inputs += static_cast<int64_t>(a->count);
  const int64_t bytes = 2 * inputs * static_cast<int64_t>(sizeof(float)) + n_q * n_k +
                        4 * n_q * n_k * static_cast<int64_t>(sizeof(float));
  if (bytes <= AppState::kMemoryBudget) return "";
  auto mb = [](int64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MB"; };
  return "scenario: batch " + std::to_string(batch) + " × " + std::to_string(n_q) + " queries × " +
         std::to_string(n_k) + " keys needs at least " + mb(bytes) + ", more than the " +
         mb(AppState::kMemoryBudget) + " the playground may use";
}

}  // namespace

std::string open_arrays(AppState& s, const std::string& bytes, const std::string& file_name) {
  // (a) The headers: every array's name, dtype and shape, not its numbers.
  const scenario::HeadersResult headers = scenario::read_array_headers(bytes, file_name);
  if (!headers.ok()) return headers.error;
  const std::string name =
      scenario::json_util::one_line(file_name.substr(file_name.find_last_of("/\\") + 1), 60);
  // What names and shapes decide is decided before a number is converted or inflated: a
  // field an array cannot be, a shape no scenario takes, the memory the arrays need at least.
  for (const scenario::ArrayHeader& a : headers.arrays)
    if (const std::string e = scenario::check_array_field(a.name, a.shape); !e.empty())
      return name + ": " + e;
  if (const std::string e = least_memory_error(headers.arrays); !e.empty()) return name + ": " + e;
  std::string sizes;
  for (const scenario::ArrayHeader& a : headers.arrays) {
    sizes += (sizes.empty() ? "" : ", ") + a.name + " ";
    for (size_t d = 0; d < a.shape.size(); ++d)
      sizes += (d ? "×" : "") + std::to_string(a.shape[d]);  // "6×8"
  }
  // The arrays in the scenario before, as far as it fits them: first whole (but for its
  // tour, which speaks of its own numbers); then without what counts tokens (labels,
  // lengths, masked cells); then only its settings that do not count anything; then alone.
  const nlohmann::json before = lesson_json(s.scenario, headers.arrays);
  auto titled = [&](nlohmann::json j, const char* en, const char* zh) {
    j["title"] = {{"en", "Your data: " + name}, {"zh", "你的数据：" + name}};
    j["description"] = {{"en", "Read from " + name + ": " + sizes + "." + en},
                        {"zh", "读自 " + name + "：" + sizes + "。" + zh}};
    j.erase("tour");
    return j;
  };
  std::vector<nlohmann::json> attempts;
  attempts.push_back(titled(before, " The rest is as in the lesson before.", "其余的沿用上一课。"));
  attempts.push_back(
      titled(before,
             " The rest is as in the lesson before, but for its token labels, "
             "lengths and masked cells, which do not fit.",
             "其余的沿用上一课，但词元标签、有效长度和单独掩蔽的格子与新的大小不符，未保留。"));
  for (const char* key : {"query_tokens", "key_tokens", "valid_lens", "masked_cells"})
    attempts.back().erase(key);
  nlohmann::json settings = {{"version", 1}};
  for (const char* key : {"scoring", "temperature", "causal", "window", "mask_value", "hard"})
    if (before.contains(key)) settings[key] = before[key];
  attempts.push_back(titled(settings,
                            " The scoring, temperature and masks are as in the lesson "
                            "before.",
                            "评分函数、温度和掩蔽沿用上一课。"));
  attempts.push_back(titled({{"version", 1}}, "", ""));
  const int count = static_cast<int>(attempts.size());

  // The attempts with zeros standing in for the numbers: the first whose shapes fit is the
  // first that can take the file (numbers only ever fail more: not finite, too large). A file
  // that fits nowhere is explained as it meets the lesson (the second attempt): which field
  // does not match which. One over the memory budget is refused unless a later attempt fits
  // within it.
  std::string error, over_budget;
  int first = -1;
  {
    size_t largest = 1;
    for (const scenario::ArrayHeader& a : headers.arrays) largest = std::max(largest, a.count);
    const std::unique_ptr<float, decltype(&std::free)> zeros(
        static_cast<float*>(std::calloc(largest, sizeof(float))), &std::free);
    if (!zeros) return name + ": too large for the memory available";
    std::vector<scenario::FloatArray> stand_ins;
    for (const scenario::ArrayHeader& a : headers.arrays)
      stand_ins.push_back({zeros.get(), a.count});
    for (int k = 0; k < count; ++k) {
      const scenario::ParseResult r =
          scenario::parse_with_arrays(attempts[k].dump(), headers.arrays, stand_ins);
      if (!r.ok()) {
        if (k == 1) error = r.error;
        continue;
      }
      const attn::Status fits = AppState::within_budget(r.problem);
      if (first < 0) first = k;
      if (fits.ok()) {
        over_budget.clear();
        break;
      }
      if (k == first) over_budget = fits.error;
    }
  }
  if (first < 0) return name + ": " + error;
  if (!over_budget.empty()) return name + ": " + over_budget;

  // (b) The numbers, and the attempts again with them, from the first that fits.
  scenario::ArraysResult read = scenario::read_arrays_data(bytes, headers, file_name);
  if (!read.ok()) return read.error;
  for (int k = first; k < count; ++k) {
    scenario::ParseResult r = scenario::parse_with_arrays(attempts[k].dump(), read.arrays);
    if (!r.ok()) {
      if (k == 1) error = r.error;
      continue;
    }
    read = scenario::ArraysResult{};  // the scenario has its numbers: they go before the trace
    const attn::Status applied = s.set_parsed(std::move(r.scenario), std::move(r.problem));
    return applied.ok() ? "" : name + ": " + applied.error;
  }
  // None takes the numbers (not finite, say): what the second attempt says of them, as the
  // numbers may be its first complaint.
  if (first > 1)
    if (const scenario::ParseResult r =
            scenario::parse_with_arrays(attempts[1].dump(), read.arrays);
        !r.ok())
      error = r.error;
  return name + ": " + error;
}

std::string get_trace(AppState& s) {
  s.recompute_if_needed();
  std::string text = scenario::trace_to_json(s.trace);
  // A lean trace keeps each head's output only: say so, rather than hand over empty arrays as
  // if they were the matrices.
  if (s.lean) text.insert(text.size() - 1, ",\"lean\":true");
  return text;
}

std::string counts(const AppState& s) {
  return "{\"heads\":" + std::to_string(s.scenario.heads) +
         ",\"batch\":" + std::to_string(s.scenario.batch()) + "}";
}

std::string trace_shape(AppState& s) {
  s.recompute_if_needed();
  const attn::Trace& t = s.trace;
  nlohmann::json j;
  j["heads"] = t.heads.size();
  j["batch"] = t.output.size();
  j["queries"] = attn::batch_rows(t.queries);
  j["keys"] = attn::batch_rows(t.keys);
  j["head_columns"] = t.heads.empty() ? 0 : attn::batch_cols(t.heads[0].output);
  j["output_columns"] = attn::batch_cols(t.output);
  j["lean"] = s.lean;
  return dump(j);
}

TraceItem trace_item(AppState& s, int head, int batch) {
  s.recompute_if_needed();
  if (head < 0 || head >= static_cast<int>(s.trace.heads.size()) || batch < 0 ||
      batch >= static_cast<int>(s.trace.output.size()))
    return {};
  TraceItem out{};
  size_t i = 0;
  attn::for_each_head_matrix(s.head_trace(head, batch), [&](const char*, const attn::Batch& m) {
    out[i++] = m[batch].data();
  });
  return out;
}

const float* trace_output(AppState& s, int batch) {
  s.recompute_if_needed();
  if (batch < 0 || batch >= static_cast<int>(s.trace.output.size())) return nullptr;
  return s.trace.output[batch].data();
}

std::string view(const AppState& s) {
  const scenario::ViewState v = s.view();
  nlohmann::json j;
  j["step"] = v.step;
  j["head"] = v.head;
  j["batch"] = v.batch;
  j["lang"] = v.lang;
  j["embed"] = v.embed;
  j["lesson"] = v.lesson;
  j["preset"] = v.lesson;  // for pages written before "lesson"
  nlohmann::json panels = nlohmann::json::array();
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p)
    if (s.show[p]) panels.push_back(panel_id(static_cast<Panel>(p)));
  j["panels"] = panels;
  j["hidden"] = v.hidden;
  j["tab"] = s.view_tab;  // the centre's tab: steps, heads, positional or plane
  return dump(j);
}

int set_step(AppState& s, int step) {
  s.set_step(step);
  return static_cast<int>(s.step);
}

int focus_head(AppState& s, int head) {
  s.set_head(head);
  return s.head;
}

int set_batch(AppState& s, int batch) {
  s.set_batch(batch);
  return s.batch;
}

void set_language(AppState& s, const std::string& code) {
  s.set_language(code == "zh" ? Lang::kZh : Lang::kEn);
}

bool load_preset(AppState& s, const std::string& name) {
  for (int i = 0; i < static_cast<int>(s.presets.size()); ++i) {
    if (s.presets[i].name == name) {
      s.load_preset(i);
      return s.preset == i;
    }
  }
  return false;
}

std::string presets(const AppState& s) {
  nlohmann::json list = nlohmann::json::array();
  for (const Preset& p : s.presets)
    list.push_back(
        {{"name", p.name}, {"title", p.scenario.title.en}, {"title_zh", p.scenario.title.zh}});
  return dump(list);
}

void set_panels(AppState& s, const std::string& csv) {
  const std::vector<std::string> ids = split_csv(csv);
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p)
    s.show[p] = std::find(ids.begin(), ids.end(), panel_id(static_cast<Panel>(p))) != ids.end();
  s.emit("view");
}

std::string hide_controls(AppState& s, const std::string& csv) {
  std::vector<std::string> ids = split_csv(csv);
  std::string unknown;
  for (const std::string& id : ids)
    if (!hide_id_known(id)) unknown += (unknown.empty() ? "\"" : ", \"") + id + "\"";
  ids.erase(std::remove_if(ids.begin(), ids.end(),
                           [](const std::string& id) { return !hide_id_known(id); }),
            ids.end());
  s.hidden = std::set<std::string>(ids.begin(), ids.end());
  s.emit("view");
  if (unknown.empty()) return "";
  std::string known;
  for (const std::string& id : hide_ids()) known += (known.empty() ? "" : ", ") + id;
  return "hide: no control " + unknown + " (the ids: " + known + ")";
}

std::string progress(const AppState& s) {
  nlohmann::json j;
  j["lesson"] = s.lesson_id();
  nlohmann::json lessons = nlohmann::json::array(), done = nlohmann::json::array();
  for (const Preset& p : s.presets) {
    const auto it = s.progress.find(p.name);
    const std::string marks = it == s.progress.end() ? std::string() : it->second;
    const int answered = static_cast<int>(
        std::count_if(marks.begin(), marks.end(), [](char c) { return c != '-'; }));
    const bool is_done = s.lesson_done(p.name);
    lessons.push_back({{"id", p.name},
                       {"title", p.scenario.title.en},
                       {"questions", p.scenario.quiz.size()},
                       {"answered", answered},
                       {"correct", std::count(marks.begin(), marks.end(), 'r')},
                       {"done", is_done}});
    if (is_done) done.push_back(p.name);
  }
  j["lessons"] = lessons;
  j["marks"] = s.progress;
  j["done"] = done;
  return j.dump();
}

std::string set_progress(AppState& s, const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "progress: must be an object {\"lesson\": \"r-\"}";
  std::map<std::string, std::string> marks;
  for (const auto& item : j.items()) {
    if (!item.value().is_string() || !scenario::is_progress_marks(item.value().get<std::string>()))
      return "progress." + scenario::json_util::one_line(item.key(), 40) +
             ": must be 1 to 8 marks of '-', 'r' and 'w'";
    marks[item.key()] = item.value().get<std::string>();
  }
  s.merge_progress(marks);
  s.emit("view");
  return "";
}

std::string answer_quiz(AppState& s, int question, const std::string& answer_json) {
  nlohmann::json out;
  const nlohmann::json a = nlohmann::json::parse(answer_json, nullptr, false);
  if (question < 0 || question >= static_cast<int>(s.scenario.quiz.size())) {
    out["error"] = "question: " + std::to_string(question) +
                   " is not a question of this lesson (it has " +
                   std::to_string(s.scenario.quiz.size()) + ")";
    return out.dump();
  }
  const bool argmax = s.scenario.quiz[question].answer.argmax;
  const char* field = argmax ? "key" : "value";
  if (!a.is_discarded() && a.is_object() && a.contains("show")) {  // {"show": true}: give up
    if (a.size() != 1 || !a["show"].is_boolean() || !a["show"].get<bool>()) {
      out["error"] = "answer: {\"show\": true} asks for the answer, and nothing else goes with it";
      return out.dump();
    }
    if (!s.show_quiz_answer(question)) {
      out["error"] = "the scenario does not run: " + s.error;
      return out.dump();
    }
    out["correct"] = false;
    if (argmax)
      out["key"] = s.quiz_truth_key(question);
    else
      out["value"] = s.quiz_truth_value(question);
    return out.dump();
  }
  if (!a.is_discarded() && a.is_object() && a.contains("again")) {  // {"again": true}
    if (a.size() != 1 || a["again"] != true) {
      out["error"] =
          "answer: {\"again\": true} asks the question again, and nothing else goes with it";
      return out.dump();
    }
    // The question is open again; its first answer stays in the progress.
    s.replies.resize(s.scenario.quiz.size());
    s.replies[question] = AppState::QuizReply{};
    s.emit("view");
    out["again"] = true;
    return out.dump();
  }
  if (a.is_discarded() || !a.is_object() || !a.contains(field) || !a[field].is_number()) {
    out["error"] = std::string("answer: must be {\"") + field + "\": " + (argmax ? "j}" : "v}") +
                   " for this question";
    return out.dump();
  }
  const int key = argmax ? a[field].get<int>() : -1;
  const float value = argmax ? 0.0f : a[field].get<float>();
  if (!s.answer_quiz(question, key, value)) {
    out["error"] = "the scenario does not run: " + s.error;
    return out.dump();
  }
  out["correct"] = s.replies[question].correct;
  if (argmax)
    out["key"] = s.quiz_truth_key(question);
  else
    out["value"] = s.quiz_truth_value(question);
  return out.dump();
}

std::string quiz(const AppState& s) {
  nlohmann::json list = nlohmann::json::array();
  const char* lang = s.lang == Lang::kZh ? "zh" : "en";
  for (size_t q = 0; q < s.scenario.quiz.size(); ++q) {
    const scenario::QuizQuestion& qq = s.scenario.quiz[q];
    nlohmann::json e = {{"question", q},
                        {"step", qq.step},
                        {"ask", qq.ask.in(lang)},
                        {"kind", qq.answer.argmax ? "key" : "value"},
                        {"matrix", qq.answer.argmax ? "weights" : qq.answer.matrix}};
    if (q < s.replies.size() && s.replies[q].answered) {
      e["answered"] = true;
      e["correct"] = s.replies[q].correct;
      e["why"] = qq.why.in(lang);
    }
    list.push_back(e);
  }
  return list.dump();
}

std::string controls(const AppState& s) {
  nlohmann::json list = nlohmann::json::array();
  for (const Control& c : control_table())
    if (control_shown(s, c)) list.push_back(describe_control(s, c));
  return dump(list);
}

std::string training(AppState& s) {
  const AppState::Training& tr = s.training;
  nlohmann::json j = {{"task", tr.task},
                      {"seed", tr.seed},
                      {"step", tr.losses.size()},
                      {"lr", tr.lr},
                      {"optimizer", tr.adam ? "adam" : "sgd"},
                      {"playing", tr.playing},
                      {"speed", AppState::speed_name(tr.speed)},
                      {"converged", tr.converged},
                      {"error", tr.error}};
  j["loss"] = tr.losses.empty() ? nlohmann::json(nullptr) : nlohmann::json(tr.losses.back());
  const scenario::TaskCheck* check = s.task_check();
  j["check"] = check ? nlohmann::json{{"loss", check->loss},
                                      {"value", check->value},
                                      {"passed", check->passed},
                                      {"text", check->text.in(s.lang == Lang::kZh ? "zh" : "en")}}
                     : nlohmann::json(nullptr);
  // Kept from the first version of the API: a keyed task's share, else null.
  const scenario::TaskInfo* info = scenario::find_task(tr.task);
  j["share"] = check && info->keyed ? nlohmann::json(check->value) : nlohmann::json(nullptr);
  return j.dump();
}

std::string load_task(AppState& s, const std::string& name, double seed) {
  if (!(seed >= 0 && seed <= scenario::kMaxViewTrainSeed) || seed != std::floor(seed))
    return "seed: must be a whole number from 0 to " + std::to_string(scenario::kMaxViewTrainSeed);
  return s.load_task(name, static_cast<uint64_t>(seed)).error;
}

std::string set_training(AppState& s, double lr, const std::string& optimizer,
                         const std::string& speed) {
  if (!std::isnan(lr) && !scenario::is_learning_rate(lr))
    return "lr: must be " + scenario::learning_rate_rule();
  if (!optimizer.empty() && !scenario::is_optimizer(optimizer))
    return std::string("optimizer: must be ") + scenario::kOptimizerChoice;
  int steps_a_second = s.training.speed;
  if (!speed.empty() && !AppState::speed_from_name(speed, &steps_a_second))
    return "speed: must be \"slow\", \"steady\" or \"fast\"";
  if (!std::isnan(lr)) s.training.lr = static_cast<float>(lr);
  if (!optimizer.empty()) s.training.adam = optimizer == "adam";
  s.training.speed = steps_a_second;
  return "";
}

std::string train_steps(AppState& s, int steps) {
  if (steps < 1 || steps > 100000) return "steps: must be a whole number from 1 to 100000";
  int taken = 0;
  while (taken < steps) {
    const int k = s.train(steps - taken, 1e9);
    if (k == 0) return s.training.error;
    taken += k;
  }
  return "";
}

std::string train_slice(AppState& s, int steps, double budget_ms, double expect_step) {
  nlohmann::json out = {{"taken", 0}, {"step", s.training.losses.size()}, {"error", ""}};
  if (steps < 1 || steps > 100000) {
    out["error"] = "steps: must be a whole number from 1 to 100000";
  } else if (expect_step >= 0 && static_cast<double>(s.training.losses.size()) != expect_step) {
    out["error"] =
        "train: stopped, because the training was changed meanwhile (a new task or scenario, "
        "Reset or Play)";
  } else if (s.training.playing) {
    out["error"] = "train: the Train section is playing; pause it first";
  } else {
    const int taken = s.train(steps, std::isfinite(budget_ms) ? budget_ms : 1e9);
    out["taken"] = taken;
    out["step"] = s.training.losses.size();
    if (taken == 0) out["error"] = s.training.error;
  }
  return out.dump();
}

std::string set_control(AppState& s, const std::string& id, const std::string& value_json) {
  const nlohmann::json v = nlohmann::json::parse(value_json, nullptr, false);
  if (v.is_discarded()) return id + ": the value is not JSON";
  scenario::Scenario& sc = s.scenario;
  if (id == "cell") {
    // One input cell: {"matrix": "queries"|"keys"|"values", "batch", "row", "col", "value"}.
    if (!v.is_object() || !v.contains("matrix") || !v["matrix"].is_string() ||
        !v.contains("value") || !v["value"].is_number())
      return "cell: must be {matrix, batch, row, col, value}";
    const std::string m = v["matrix"].get<std::string>();
    const char which = m == "queries" ? 'q' : m == "keys" ? 'k' : m == "values" ? 'v' : 0;
    if (!which) return "cell.matrix: must be queries, keys or values";
    const attn::Batch& x = which == 'q' ? sc.queries : which == 'k' ? sc.keys : sc.values;
    const auto index = [&](const char* f, int n) {
      return v.contains(f) && v[f].is_number_integer() && v[f].get<int>() >= 0 &&
                     v[f].get<int>() < n
                 ? v[f].get<int>()
                 : -1;
    };
    const int b = index("batch", static_cast<int>(x.size()));
    const int i = b < 0 ? -1 : index("row", static_cast<int>(x[b].rows()));
    const int j = b < 0 ? -1 : index("col", static_cast<int>(x[b].cols()));
    if (b < 0 || i < 0 || j < 0) return "cell: batch, row or col is outside " + m;
    const double value = v["value"].get<double>();
    if (!std::isfinite(value) || std::fabs(value) > 1e6)
      return "cell.value: must be a finite number";
    set_input(&sc, which, b, i, j, static_cast<float>(value));
    s.changed();
    s.recompute_if_needed();
    return s.error;
  }
  const Control* c = find_control(id);
  if (!c) return "id: unknown control \"" + id + "\"";
  if (c->hidden_by && s.control_hidden(c->hidden_by)) return id + ": hidden by the page";
  if (c->available && !c->available(s)) {
    if (c->hidden_by && std::string_view(c->hidden_by) == "train" && sc.target.empty())
      return id + ": the scenario has no target (give \"target\", or load a toy task)";
    return id + ": not there for this scenario";
  }
  const uint64_t revision = s.revision;
  const std::string before = s.error;
  const std::string e = apply_control(s, *c, v);
  if (!e.empty()) return e;
  s.recompute_if_needed();
  // The scenario's error when this change made it (a view setting leaves an older one unsaid).
  return s.revision != revision || s.error != before ? s.error : std::string();
}

std::string get_link(const AppState& s) {
  const scenario::ViewState v = s.view();
  if (!s.runs() || !scenario::validate_view(v, s.scenario).ok()) return "";
  int64_t cells = 0;  // the numbers the link would spell out
  for (const attn::Batch* x : {&s.scenario.queries, &s.scenario.keys, &s.scenario.values})
    if (!s.scenario.self_attention || x == &s.scenario.queries) cells += attn::batch_cells(*x);
  attn::for_each_weight(s.scenario, [&cells](const char*, const auto& w) { cells += w.size(); });
  if (cells > kMaxLinkCells) return "";
  return scenario::encode_link(s.scenario, v);
}

std::string open_link(AppState& s, const std::string& fragment) {
  scenario::LinkResult r = scenario::decode_link(fragment);
  if (!r.ok()) return r.error;
  const attn::Status applied = s.set_parsed(std::move(r.scenario), std::move(r.problem));
  if (applied.ok()) s.apply_view(r.view);
  return applied.error;
}

std::string export_json(AppState& s, const std::string& what, const std::string& format, int head,
                        int batch) {
  if (const int64_t n = export_numbers(s, what, head, batch); n > kMaxExportNumbers)
    return dump({{"ok", false},
                 {"error", what + ": " + std::to_string(n) +
                               " numbers are too many to export at once; exportFile() writes "
                               "them in parts without holding up the page"}});
  const Export e = make_export(s, what, format, head, batch);
  nlohmann::json j;
  if (e.ok())
    j = {{"ok", true},
         {"error", nullptr},
         {"filename", e.filename},
         {"mime", e.mime},
         {"data", e.data}};
  else
    j = {{"ok", false}, {"error", e.error}};
  return dump(j);
}

std::string export_start(AppState& s, ExportJob* job, const std::string& what,
                         const std::string& format, int head, int batch) {
  *job = start_export(s, what, format, head, batch);
  if (!job->file.ok()) return dump({{"ok", false}, {"error", job->file.error}});
  return dump({{"ok", true},
               {"error", nullptr},
               {"filename", job->file.filename},
               {"mime", job->file.mime},
               {"rows", job->rows()}});
}

std::string accessible(AppState& s, const std::optional<CellRef>& cell) {
  nlohmann::json j;
  const std::string lang = language_code();
  j["lang"] = lang;
  j["lesson"] = s.scenario.title.in(lang);
  // The lesson's place on the path (0-based; -1 when the scenario is not a lesson's) and the
  // names of the ones before and after ("" at the ends).
  const int count = static_cast<int>(s.presets.size());
  const int at = s.preset >= 0 && s.preset < count ? s.preset : -1;
  j["lesson_index"] = at;
  j["lesson_count"] = count;
  j["previous"] = at > 0 ? s.presets[at - 1].name : "";
  j["next"] = at >= 0 && at + 1 < count ? s.presets[at + 1].name : "";
  char where[64];
  std::snprintf(where, sizeof where, T("Lesson %d of %d"), at + 1, count);
  j["lesson_place"] = at >= 0 ? where : "";
  j["step"] = static_cast<int>(s.step) + 1;
  j["steps"] = kStepCount;
  j["title"] = T(step_name(s.step));
  char heading[256];
  std::snprintf(heading, sizeof heading, T("Step %d of %d: %s"), static_cast<int>(s.step) + 1,
                kStepCount, T(step_name(s.step)));
  j["heading"] = heading;
  j["texts"] = {{"table_view", T("Table view")},
                {"close", T("Close")},
                {"head", T("head")},
                {"previous", T("Previous lesson")},
                {"next", T("Next lesson")},
                {"predict", T("Predict, then check")},
                {"settings", T("Settings")},
                {"words", T("Words in this step")},
                {"read", T("Read: %s")},
                {"check", T("Check")},
                {"show", T("Show me the answer")},
                {"again", T("Ask me again")},
                {"rows_cols", T("rows: %s, columns: %s")},
                {"truncated", T("The first %d of %d rows and %d of %d columns.")},
                // Training, read out and shown in the table view (web/app.js): the step and
                // loss as the Train section writes them, in the sentences around them.
                {"step_loss", T("step %d, loss %.3g")},
                {"step_only", T("step %d")},
                {"training_started", T("Training started: %s.")},
                {"training_progress", T("Training: %s.")},
                {"training_paused", T("Training paused: %s.")},
                {"training_converged", T("Training converged and paused by itself: %s.")}};
  j["formula"] = s.trace.heads.empty() ? "" : step_formula(s.step, s.problem);
  j["explanation"] = s.trace.heads.empty() ? "" : T(step_explanation(s.step, s.problem));
  std::string note;
  for (const scenario::TourStop& stop : s.scenario.tour)
    if (stop.step == static_cast<int>(s.step) && s.note_shown(stop)) note = stop.text.in(lang);
  // As on the canvas: the note waits for the step's question to be answered.
  s.recompute_if_needed();
  j["note"] = s.runs() && s.open_question() >= 0 ? "" : note;
  // The step's questions, answerable from the table view.
  nlohmann::json quiz = nlohmann::json::array();
  for (size_t q = 0; q < s.scenario.quiz.size() && s.runs(); ++q) {
    const scenario::QuizQuestion& qq = s.scenario.quiz[q];
    if (qq.step != static_cast<int>(s.step)) continue;
    nlohmann::json e = {
        {"question", q}, {"ask", qq.ask.in(lang)}, {"kind", qq.answer.argmax ? "key" : "value"}};
    if (qq.answer.argmax) e["keys"] = key_labels(s.scenario, qq.answer.batch);
    const bool answered = q < s.replies.size() && s.replies[q].answered;
    e["answered"] = answered;
    if (answered) {
      e["correct"] = s.replies[q].correct;
      e["verdict"] = std::string(s.replies[q].correct ? T("Right.")
                                 : s.replies[q].shown ? T("Here it is.")
                                                      : T("Not quite.")) +
                     " " + s.quiz_verdict(static_cast<int>(q));
      e["why"] = s.quiz_key_holds(static_cast<int>(q))
                     ? qq.why.in(lang)
                     : std::string(T("You have changed the lesson, so its own explanation no "
                                     "longer fits these numbers."));
    }
    quiz.push_back(e);
  }
  j["quiz"] = quiz;
  nlohmann::json words = nlohmann::json::array();
  for (const GlossaryEntry* e : glossary_for_step(s.step))
    words.push_back({{"id", e->id}, {"term", T(e->term)}, {"text", T(e->text)}});
  j["glossary"] = words;
  j["read"] = s.scenario.read_url.empty()
                  ? nlohmann::json(nullptr)
                  : nlohmann::json{{"title", s.scenario.read_title.in(lang)},
                                   {"url", s.scenario.read_url.in(lang)}};
  j["matrix"] = nullptr;
  j["cell"] = nullptr;
  // The focused head of a lean trace still computing in parts: no matrix until it is done (the
  // "view" event then says so), rather than computing it here at once.
  j["computing"] = s.computing() ? nlohmann::json(s.computing_progress()) : nlohmann::json(nullptr);
  if (s.trace.heads.empty() || s.computing()) return j.dump();
  const int head = std::clamp(s.head, 0, static_cast<int>(s.trace.heads.size()) - 1);
  const int batch = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  const MatrixKind kind = step_matrix(s.step);
  const MatrixInfo& info = matrix_info(kind);
  if (const attn::Matrix* m = matrix_of(s, kind, head, batch)) {
    const int rows = static_cast<int>(m->rows()), cols = static_cast<int>(m->cols());
    const int shown_rows = std::min(rows, kAccessibleRows),
              shown_cols = std::min(cols, kAccessibleCols);
    const std::vector<uint8_t>* mask = matrix_mask(s, kind, batch);
    std::vector<std::string> row_labels = axis_labels(s, info.rows, batch, rows);
    std::vector<std::string> col_labels = axis_labels(s, info.cols, batch, cols);
    row_labels.resize(shown_rows);
    col_labels.resize(shown_cols);
    nlohmann::json cells = nlohmann::json::array();
    const bool hidden = answer_hidden(s, kind);  // "?" until the step's question is answered
    for (int i = 0; i < shown_rows; ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int c = 0; c < shown_cols; ++c) {
        const bool masked = mask && (*mask)[static_cast<size_t>(i) * cols + c];
        row.push_back((hidden ? std::string("?") : cell_number((*m)(i, c))) +
                      (masked ? std::string(" ") + T("masked") : ""));
      }
      cells.push_back(std::move(row));
    }
    const auto axis_name = [](Axis a) {
      return a == Axis::kQueryTokens ? T("queries")
             : a == Axis::kKeyTokens ? T("keys")
                                     : T("features");
    };
    const bool input = info.role == MatrixRole::kInput;
    j["matrix"] = {{"symbol", info.symbol},
                   {"id", info.id},
                   {"editable", input && !s.scenario.positional_encoding},  // the raw inputs
                   {"row_axis", axis_name(info.rows)},
                   {"col_axis", axis_name(info.cols)},
                   {"name", T(info.title)},
                   {"head", info.per_head && s.scenario.heads > 1 ? head + 1 : 0},
                   {"batch", batch + 1},
                   {"rows", rows},
                   {"cols", cols},
                   {"row_labels", row_labels},
                   {"col_labels", col_labels},
                   {"cells", std::move(cells)},
                   {"truncated", rows > shown_rows || cols > shown_cols}};
    if (hidden) j["matrix"]["hidden"] = T("Hidden until you answer the question above");
  }
  // A cell outside its matrix (a stale cursor) has no arithmetic.
  const attn::Matrix* of_cell =
      cell ? matrix_of(s, cell->kind,
                       std::clamp(cell->head, 0, static_cast<int>(s.trace.heads.size()) - 1),
                       std::clamp(cell->batch, 0, static_cast<int>(s.trace.queries.size()) - 1))
           : nullptr;
  if (cell && of_cell && !answer_hidden(s, cell->kind) && cell->row >= 0 && cell->col >= 0 &&
      cell->row < of_cell->rows() && cell->col < of_cell->cols() && cell->batch >= 0 &&
      cell->batch < static_cast<int>(s.trace.queries.size())) {
    const int h = std::clamp(cell->head, 0, static_cast<int>(s.trace.heads.size()) - 1);
    j["cell"] = {{"row", cell->row + 1},
                 {"col", cell->col + 1},
                 {"name", T(matrix_info(cell->kind).title)},
                 {"lines", explain_cell(CellRef{cell->kind, h, cell->batch, cell->row, cell->col},
                                        s.problem, s.trace, s.head_trace(h, cell->batch))}};
  }
  return j.dump();
}

}  // namespace ui::api
