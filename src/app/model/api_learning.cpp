// The JavaScript API's learning calls: the lessons' questions, the progress, and training.
#include "app/model/api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "scenario/json_util.h"
#include "scenario/link.h"
#include "scenario/tasks.h"

namespace ui::api {

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
  if (question < 0 || question >= static_cast<int>(s.quiz().size())) {
    out["error"] = "question: " + std::to_string(question) +
                   " is not a question of this lesson (it has " + std::to_string(s.quiz().size()) +
                   ")";
    return out.dump();
  }
  if (!s.quiz_fits(question)) {
    out["error"] = "question: " + std::to_string(question) +
                   " cannot be answered on the numbers shown now: " + s.quiz_unfit_text(question);
    return out.dump();
  }
  const bool argmax = s.quiz()[question].answer.argmax;
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
    s.replies.resize(s.quiz().size());
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
  for (size_t q = 0; q < s.quiz().size(); ++q) {
    const scenario::QuizQuestion& qq = s.quiz()[q];
    nlohmann::json e = {{"question", q},
                        {"step", qq.step},
                        {"ask", qq.ask.in(lang)},
                        {"kind", qq.answer.argmax ? "key" : "value"},
                        {"matrix", qq.answer.argmax ? "weights" : qq.answer.matrix}};
    if (s.layered()) e["layer"] = qq.answer.layer;  // the layer whose numbers answer it
    // Whether it can be answered on the numbers shown, and if not, why.
    e["fits"] = s.quiz_fits(static_cast<int>(q));
    if (!s.quiz_fits(static_cast<int>(q))) e["unfit"] = s.quiz_unfit_text(static_cast<int>(q));
    if (q < s.replies.size() && s.replies[q].answered) {
      const AppState::QuizReply& r = s.replies[q];
      e["answered"] = true;
      e["correct"] = r.correct;
      e["why"] = qq.why.in(lang);
      // What the learner answered (the key, or the value), or null after "Show me".
      if (r.shown)
        e["response"] = nullptr;
      else if (qq.answer.argmax)
        e["response"] = r.key;
      else
        e["response"] = r.value;
    }
    list.push_back(e);
  }
  return list.dump();
}

namespace {

// A seq2seq model's training (the Decoder tab's Train, Adam on the toy language's pairs) in
// training()'s fields: a scenario has one trainer, and the page reports whichever it is.
nlohmann::json decoder_training(const AppState& s) {
  const AppState::DecoderTraining& dt = s.decoder_training;
  const scenario::Seq2Seq& m = s.scenario.seq2seq;
  nlohmann::json j = {{"trainer", "decoder"},
                      {"task", ""},
                      {"seed", m.has_seed ? m.seed : 1},
                      {"step", dt.losses.size()},
                      {"lr", attn::seq2seq::Adam{}.lr},
                      {"optimizer", "adam"},
                      {"playing", dt.playing},
                      {"speed", "fast"},
                      {"converged", false},
                      {"finished", false},
                      {"goal", 0},
                      {"drop", nullptr},
                      {"error", dt.error.empty() ? s.decoder_untrainable() : dt.error},
                      {"check", nullptr},
                      {"share", nullptr}};
  j["loss"] = dt.losses.empty() ? nlohmann::json(nullptr) : nlohmann::json(dt.losses.back());
  return j;
}

}  // namespace

std::string training(AppState& s) {
  if (s.decoder_trains()) return decoder_training(s).dump();
  const AppState::Training& tr = s.training;
  nlohmann::json j = {
      {"trainer", "weights"},
      {"task", tr.task},
      {"seed", tr.seed},
      {"step", tr.losses.size()},
      {"lr", tr.lr},
      {"optimizer", tr.adam ? "adam" : "sgd"},
      {"playing", tr.playing},
      {"speed", AppState::speed_name(tr.speed)},
      {"converged", tr.converged},
      {"finished", tr.finished},
      {"goal", s.training_goal()},
      {"drop", tr.phase.drop > 0 ? nlohmann::json(tr.phase.drop) : nlohmann::json(nullptr)},
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
  // The scenario's one trainer: the decoder's, or the weights' (training()).
  const bool decoder = s.decoder_trains();
  const auto taken_so_far = [&] {
    return decoder ? s.decoder_training.losses.size() : s.training.losses.size();
  };
  nlohmann::json out = {{"taken", 0}, {"step", taken_so_far()}, {"error", ""}};
  if (steps < 1 || steps > 100000) {
    out["error"] = "steps: must be a whole number from 1 to 100000";
  } else if (expect_step >= 0 && static_cast<double>(taken_so_far()) != expect_step) {
    out["error"] =
        "train: stopped, because the training was changed meanwhile (a new task or scenario, "
        "Reset or Play)";
  } else if (decoder ? s.decoder_training.playing : s.training.playing) {
    out["error"] = decoder ? "train: the decoder is training (its Train); pause it first"
                           : "train: the Train section is playing; pause it first";
  } else {
    const double budget = std::isfinite(budget_ms) ? budget_ms : 1e9;
    const int taken = decoder ? s.train_decoder(steps, budget) : s.train(steps, budget);
    out["taken"] = taken;
    out["step"] = taken_so_far();
    if (taken == 0) out["error"] = decoder ? s.decoder_training.error : s.training.error;
  }
  return out.dump();
}

}  // namespace ui::api
