// The playground's state: the lessons' questions, the learner's answers and progress.
#include "app/model/app_state.h"
#include "app/text/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/text/i18n.h"

namespace ui {

// The head and output a question reads: of its layer in a stack (every layer's trace is kept
// whole), else of the trace shown.
const attn::HeadTrace& AppState::quiz_head(const scenario::QuizAnswer& a) {
  if (layered()) return stack_trace.layers[a.layer].heads[a.head];
  return head_trace(a.head, a.batch);
}
const attn::Batch& AppState::quiz_output(const scenario::QuizAnswer& a) const {
  return layered() ? stack_trace.layers[a.layer].output : trace.output;
}

int AppState::quiz_truth_key(int q) {
  const scenario::QuizAnswer& a = quiz()[q].answer;
  return scenario::argmax_in_row(scenario::quiz_matrix(a, quiz_head(a), a.batch, quiz_output(a)),
                                 a.row);
}

float AppState::quiz_truth_value(int q) {
  const scenario::QuizAnswer& a = quiz()[q].answer;
  return scenario::quiz_matrix(a, quiz_head(a), a.batch, quiz_output(a))(a.row, a.col);
}

std::vector<std::string> AppState::quiz_key_labels(int q) const {
  const scenario::QuizAnswer& a = quiz()[q].answer;
  std::vector<std::string> keys = key_labels(scenario, a.batch);
  bool repeats = false;
  for (size_t j = 0; j < keys.size() && !repeats; ++j)
    repeats = std::count(keys.begin(), keys.end(), keys[j]) > 1;
  if (repeats)
    for (size_t j = 0; j < keys.size(); ++j)
      keys[j] = printf_text(T("%s (position %d)"), keys[j].c_str(), static_cast<int>(j) + 1);
  return keys;
}

std::string AppState::quiz_verdict(int q) {
  // (Formatted into strings that grow: a key is a token name of the learner's.)
  const scenario::QuizAnswer& a = quiz()[q].answer;
  if (a.argmax) {
    const std::vector<std::string> keys = quiz_key_labels(q);
    const int truth = quiz_truth_key(q);
    const float w = quiz_head(a).weights[a.batch](a.row, truth);
    const std::string verdict = printf_text(
        T("The largest weight is on \"%s\" (%.2f)."),
        truth < static_cast<int>(keys.size()) ? keys[truth].c_str() : "?", static_cast<double>(w));
    // A wrong key: what the learner chose, its weight and its place among the keys the row
    // can attend to (a masked key is none of them; keys of the same weight share a place).
    const int given = q < static_cast<int>(replies.size()) ? replies[q].key : -1;
    const attn::Matrix& row_of = quiz_head(a).weights[a.batch];
    const int n = static_cast<int>(row_of.cols());
    if (given >= 0 && given != truth && given < n && given < static_cast<int>(keys.size())) {
      const std::vector<uint8_t>* mask = matrix_mask(*this, MatrixKind::kWeights, a.batch);
      const auto masked = [&](int j) {
        return mask && mask->size() == static_cast<size_t>(row_of.rows()) * n &&
               (*mask)[static_cast<size_t>(a.row) * n + j];
      };
      const float mine = row_of(a.row, given);
      if (masked(given))
        return verdict + printf_text(T(" You chose \"%s\": it is masked for this query, so its "
                                       "weight is 0."),
                                     keys[given].c_str());
      int place = 1, open = 0, tied = 0;
      for (int j = 0; j < n; ++j) {
        if (masked(j)) continue;
        ++open;
        place += row_of(a.row, j) > mine;
        tied += j != given && row_of(a.row, j) == mine;
      }
      return verdict +
             (tied > 0
                  ? printf_text(T(" You chose \"%s\": its weight is %.2f, tied with %d "
                                  "other keys at number %d of %d from the top."),
                                keys[given].c_str(), static_cast<double>(mine), tied, place, open)
                  : printf_text(T(" You chose \"%s\": its weight is %.2f, number %d of %d "
                                  "from the top."),
                                keys[given].c_str(), static_cast<double>(mine), place, open));
    }
    return verdict;
  }
  const float given = q < static_cast<int>(replies.size()) ? replies[q].value : 0.0f;
  if (q < static_cast<int>(replies.size()) && replies[q].shown)
    return printf_text(T("The answer is %.3f."), static_cast<double>(quiz_truth_value(q)));
  return printf_text(T("The answer is %.3f; you said %.3g."),
                     static_cast<double>(quiz_truth_value(q)), static_cast<double>(given));
}

bool AppState::quiz_key_holds(int q) {
  const scenario::QuizAnswer& a = quiz()[q].answer;
  return a.argmax ? quiz_truth_key(q) == a.col
                  : std::fabs(quiz_truth_value(q) - a.value) <= a.tolerance;
}

void AppState::fit_questions() {
  if (layered()) {  // the layer shown; the stack's questions (whole.quiz) name their layers
    scenario::fit_to_shapes(&scenario);
    return;
  }
  scenario.quiz = questions_;
  question_unfit_ = scenario::fit_to_shapes(&scenario);
}

std::string AppState::quiz_unfit_text(int q) const {
  if (q < 0 || static_cast<size_t>(q) >= quiz().size() || quiz_fits(q)) return "";
  const scenario::QuizAnswer& a = quiz()[q].answer;
  const scenario::Scenario& sc = scenario;
  const bool decoder = !sc.seq2seq.empty();
  std::string what;
  if (a.head >= sc.heads)
    what = printf_text(T("This question is about head %d, and there are %d heads now."), a.head + 1,
                       sc.heads);
  else if (a.batch >= sc.batch())
    what = printf_text(T("This question is about example %d, and there are %d examples now."),
                       a.batch + 1, sc.batch());
  else if (a.row >= sc.n_queries())
    what = decoder ? printf_text(T("This question is about row %d, the decoder's word %d, and "
                                   "its translation has %d words now."),
                                 a.row + 1, a.row + 1, sc.n_queries())
                   : printf_text(T("This question is about row %d, and there are %d rows now."),
                                 a.row + 1, sc.n_queries());
  else
    what = printf_text(T("This question is about column %d, which is not there now."), a.col + 1);
  return what + (language() == Lang::kZh ? "" : " ") +
         (decoder ? T("Train on until the decoder writes it, or Reset the lesson, to answer it.")
                  : T("It comes back with its cell; Reset brings the lesson back."));
}

bool AppState::answer_quiz(int q, int key, float value) {
  recompute_if_needed();
  if (q < 0 || q >= static_cast<int>(quiz().size()) || !runs() || !quiz_fits(q)) return false;
  replies.resize(quiz().size());
  QuizReply& r = replies[q];
  const scenario::QuizAnswer& a = quiz()[q].answer;
  r.answered = true;
  if (a.argmax) {
    r.key = key;
    r.correct = key == quiz_truth_key(q);
  } else {
    r.value = value;
    // At least the precision of the two decimals a learner types.
    const float tolerance = std::max(a.tolerance, 0.005f);
    r.correct = std::isfinite(value) && std::fabs(value - quiz_truth_value(q)) <= tolerance;
  }
  const std::string id = lesson_id();
  if (!id.empty()) {
    const bool was_done = lesson_done(id);
    std::string& marks = progress[id];
    if (marks.size() != quiz().size()) marks.resize(quiz().size(), '-');
    if (marks[q] == '-') marks[q] = r.correct ? 'r' : 'w';
    if (!was_done && lesson_done(id)) emit("lesson");
  }
  events.push_back("quiz|" + std::to_string(q) + "|" + (r.correct ? "1" : "0"));
  emit("view");  // the link carries the progress
  return true;
}

bool AppState::show_quiz_answer(int q) {
  if (!answer_quiz(q, -1, std::numeric_limits<float>::quiet_NaN())) return false;
  replies[q].shown = true;
  return true;
}

int AppState::open_question() const {
  for (size_t q = 0; q < quiz().size(); ++q)
    if (quiz()[q].step == static_cast<int>(step) && quiz_fits(static_cast<int>(q)) &&
        (!layered() || quiz()[q].answer.layer == layer) &&  // a stack: on the layer shown
        (q >= replies.size() || !replies[q].answered))
      return static_cast<int>(q);
  return -1;
}

bool AppState::question_waiting() const {
  for (size_t q = 0; q < quiz().size(); ++q)
    if (quiz()[q].step == static_cast<int>(step) && (q >= replies.size() || !replies[q].answered))
      return true;
  return false;
}

bool AppState::lesson_done(const std::string& id) const {
  const auto it = progress.find(id);
  if (it == progress.end() || it->second.empty()) return false;
  for (const Preset& p : presets)
    if (p.name == id && it->second.size() < p.scenario.quiz.size()) return false;
  return it->second.find('-') == std::string::npos;
}

void AppState::merge_progress(const std::map<std::string, std::string>& marks) {
  for (const auto& entry : marks) {
    const std::string& id = entry.first;
    const std::string& given = entry.second;
    // Only this playground's lessons, so that what the link carries stays valid.
    const bool known = std::any_of(presets.begin(), presets.end(),
                                   [&id](const Preset& p) { return p.name == id; });
    if (!known || !scenario::is_progress_marks(given)) continue;
    std::string& mine = progress[id];
    if (mine.size() < given.size()) mine.resize(given.size(), '-');
    for (size_t i = 0; i < given.size(); ++i)
      if (mine[i] == '-') mine[i] = given[i];
  }
}

}  // namespace ui
