// The JavaScript API's table view: what the canvas shows as text, for assistive technology.
#include "app/model/api.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/glossary.h"

namespace ui::api {

std::string accessible(AppState& s, const std::optional<CellRef>& cell) {
  nlohmann::json j;
  const std::string lang = language_code();
  j["lang"] = lang;
  j["lesson"] = s.lesson_title(lang);
  // The lesson's place on the path (a course's lessons, or all of them; 0-based, -1 when the
  // scenario is not a lesson on it) and the names of the ones before and after ("" at the ends).
  const int count = s.path_count(), at = s.path_position();
  j["lesson_index"] = at;
  j["lesson_count"] = count;
  j["previous"] = at > 0 ? s.presets[s.path_preset(at - 1)].name : "";
  j["next"] = at >= 0 && at + 1 < count ? s.presets[s.path_preset(at + 1)].name : "";
  const std::string where = printf_text(T("Lesson %d of %d"), at + 1, count);
  j["lesson_place"] = at >= 0 ? where : "";
  j["step"] = static_cast<int>(s.step) + 1;
  j["steps"] = kStepCount;
  j["title"] = T(step_name(s.step));
  const std::string heading = printf_text(T("Step %d of %d: %s"), static_cast<int>(s.step) + 1,
                                          kStepCount, T(step_name(s.step)));
  if (s.layered()) {  // a stack: which layer the step shows, read before the step
    const std::string layer = printf_text(T("Layer %d of %d"), s.layer + 1, s.layer_count());
    j["heading"] = layer + " \xc2\xb7 " + heading;
    j["layer"] = s.layer + 1;
    j["layers"] = s.layer_count();
  } else {
    j["heading"] = heading;
  }
  j["texts"] = {{"table_view", T("Table view")},
                {"close", T("Close")},
                {"skip_settings", T("Skip to the settings")},
                {"head", T("head")},
                {"previous", T("Previous lesson")},
                {"next", T("Next lesson")},
                {"predict", T("Predict, then check")},
                {"settings", T("Settings")},
                {"words", T("Words in this step")},
                {"read", T("Read: %s")},
                {"about", T("About this lesson")},
                {"notes_on", T("Notes on steps")},
                {"questions_on", T("Questions on steps")},
                {"go_to_step", T("Go to step %d")},
                {"check", T("Check")},
                {"not_a_number", T("Type one number, such as 0.25 or -1.5.")},
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
                {"training_converged", T("Training converged and paused by itself: %s.")},
                {"training_finished",
                 T("Training paused by itself at the steps the lesson's weights were trained "
                   "for: %s.")},
                {"training_drop", T("The loss fell steeply at step %d.")}};
  j["formula"] = s.trace.heads.empty() ? "" : step_formula(s.step, s.problem, s.transpose);
  j["explanation"] =
      s.trace.heads.empty() ? "" : T(step_explanation(s.step, s.problem, s.transpose));
  std::string note;
  for (const scenario::TourStop& stop : s.scenario.tour)
    if (stop.step == static_cast<int>(s.step) && s.note_shown(stop)) note = stop.text.in(lang);
  // As on the canvas: the note waits for the step's question to be answered. A computation
  // running in parts is not finished here at once (that held the page for seconds when an
  // event redrew the table view meanwhile): the canvas shows its progress, "computing" below
  // says it, and the event at its end redraws this, with the questions.
  const bool settled = !s.computing();
  if (settled) s.recompute_if_needed();
  j["note"] = s.runs() && s.question_waiting() ? "" : lesson_text_shown(s, note);
  // The step's questions, answerable from the table view.
  nlohmann::json quiz = nlohmann::json::array();
  for (size_t q = 0; q < s.quiz().size() && s.runs() && settled; ++q) {
    const scenario::QuizQuestion& qq = s.quiz()[q];
    if (qq.step != static_cast<int>(s.step)) continue;
    nlohmann::json e = {{"question", q},
                        {"ask", lesson_text_shown(s, qq.ask.in(lang))},
                        {"kind", qq.answer.argmax ? "key" : "value"}};
    // A question whose cell is not there now (learned_bahdanau's decoder writing fewer words
    // after Random start): asked, with why it cannot be answered yet, and nothing to press.
    if (!s.quiz_fits(static_cast<int>(q))) {
      e["unfit"] = s.quiz_unfit_text(static_cast<int>(q));
      e["answered"] = false;
      quiz.push_back(e);
      continue;
    }
    if (qq.answer.argmax) e["keys"] = s.quiz_key_labels(static_cast<int>(q));
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
  // The lesson's introduction (the canvas's "About" text under its title) and the steps with a
  // note or a question (its "Notes on steps" and "Questions on steps" buttons), 1-based.
  j["introduction"] = s.scenario.description.in(lang);
  std::vector<int> noted, asked;
  for (const scenario::TourStop& stop : s.scenario.tour)
    if (s.note_shown(stop)) noted.push_back(stop.step + 1);
  for (const scenario::QuizQuestion& q : s.quiz())
    if (std::find(asked.begin(), asked.end(), q.step + 1) == asked.end())
      asked.push_back(q.step + 1);
  j["note_steps"] = noted;
  j["question_steps"] = asked;
  j["matrix"] = nullptr;
  j["cell"] = nullptr;
  // The view the centre shows, when it is not the step by step view: its own numbers and
  // sentences (views.h), the table view's heading and tables instead of the step's.
  j["view"] = settled && s.view_tab != "steps" ? describe_view(s, s.view_tab) : nlohmann::json();
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
        row.push_back(cell_text((*m)(i, c), hidden, masked));
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
