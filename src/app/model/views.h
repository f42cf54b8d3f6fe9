// The centre's views (its tabs: the step by step view, Picture, Curve, Decoder, Document,
// Layers, all heads, positional encoding, 2-D), listed once: when each is available, its
// title, and its description for the table view. The tab bar (views/app.cpp), the "view"
// control's options (controls_view.cpp) and the table view (api_accessible.cpp) read this
// list, and the tests iterate it (tests/app/views_test.cpp), so that a view added here without
// a description fails a test.
//
// The rules that hold a view's numbers back while a question about them waits, and the
// sentences a view writes about its numbers, are here too: the canvas draws them and the table
// view reads them, from the same function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/model/app_state.h"

namespace ui {

struct ViewSpec {
  const char* id;     // "steps", "picture", …: the "view" control's value and the tab's id
  const char* title;  // English (N_): the tab's name, T() gives it in the UI's language
  bool (*available)(const AppState&);
  // The view's numbers as the canvas draws them, in words and tables (describe_view); null
  // only for "steps", whose description is the step's (api_accessible.cpp).
  void (*describe)(AppState&, nlohmann::json* sections);
};

// In the tab bar's order.
const std::vector<ViewSpec>& view_registry();
// The view of `id`, or null.
const ViewSpec* find_view(const std::string& id);
bool view_available(const AppState& s, const std::string& id);

// The view's description, in the UI's language: {"id", "title", "now"? (what the view shows
// now: its word, question or query and what that finds, in a sentence or two), "sections":
// [{"heading"?, "text": [sentences], "tables": [{"caption", "row_header", "columns": [...], "rows":
// [{"label", "cells": [...]}]}]}]}, every number as the canvas prints it ("?" where the canvas
// holds it back); null for a view whose describe is null or that is not available.
nlohmann::json describe_view(AppState& s, const std::string& id);

// When each view holds its weights back (a question about them waits): the Picture's, the
// Layers' and the 2-D view's every weight (and the 2-D output), the Curve's weights and
// predictions, the Document's sentence weights of one question's row, the Decoder's rows from
// the first a question asks about. All heads holds back what the step view does
// (answer_hidden).
bool picture_hidden(const AppState& s);
bool curve_hidden(const AppState& s);
bool layers_hidden(const AppState& s);
bool document_row_hidden(const AppState& s, int row);
int decoder_rows_allowed(const AppState& s, int words);

bool plane_hidden(const AppState& s);
// Which question keeps a view's numbers back: the first open one about weights up to this step
// (weights_question_waits), or with any_matrix the first open one up to here (as curve_hidden
// counts them), "It waits for the question on step 3: Which patch …?"; "" when none.
std::string waiting_question(const AppState& s, bool any_matrix = false);
// A lesson's note or question as the screen shows it: with "transpose matrices" on and a text
// that speaks of rows or columns (行, 列), followed by
// the setting it was written for ("(Written for untransposed matrices: its rows are the
// columns here.)"), since the lessons speak of rows as queries.
std::string lesson_text_shown(const AppState& s, const std::string& text);
// This step's answered questions, each "Right. The query … looks most at r3c3 (0.41)." as the
// lesson's box says it: a tab that takes an answer (the Picture's click on a patch) gives its
// verdict there too.
std::vector<std::string> step_verdicts(AppState& s);

// What the All heads, positional-encoding and 2-D views compute, which their panels draw and
// their descriptions read (views_matrices.cpp).
//
// The step whose matrix All heads shows for each head: the step view's, or the weights on the
// steps without a matrix of scores (inputs, projections, output).
Step heads_step(const AppState& s);
// The positional-encoding explorer's table (AppState::positional): made again when its
// positions, its d or the scenario's base change; it follows the scenario's d when that
// changes.
const attn::Matrix& positional_table(AppState& s);
// The explorer's experiment for the scenario as it is now (PositionalPanel::change_with and
// change_without, experiment_valid), run again once per revision.
void positional_experiment(const AppState& s, PositionalPanel* e);
// The columns the explorer plots over the positions (the first three, the middle, the last).
std::vector<int> positional_plotted_columns(int d);
// Its sentence on the rows this scenario adds, and the experiment's conclusion.
std::string positional_note(AppState& s);
std::string positional_conclusion(const scenario::Scenario& sc);
// The 2-D view's head and batch item (the focused ones), whether its queries and keys have two
// numbers each, and their labels; head is null when there is nothing to draw. Keeps
// AppState::plane_query inside the queries.
struct PlaneVectors {
  const attn::HeadTrace* head = nullptr;
  int batch = 0;
  bool two_d = false;
  std::vector<std::string> query_labels, key_labels;
};
PlaneVectors plane_vectors(AppState& s);
// Whether the 2-D view is offered and draws arrows (its queries and keys have two numbers each
// in the focused head), read from the trace without computing a head.
bool plane_drawn(const AppState& s);

// The sentences the views write under their numbers (also read by the table view).
std::string decoder_word_sentence(const AppState& s, int step);
std::string decoder_training_status(const AppState& s);
std::string document_summary(const AppState& s);
std::string picture_summary(AppState& s);
std::string curve_summary(const AppState& s);
// The mean squared error of the Curve's predictions (each point's, from the others when its own
// cell is masked) against the scenario's target, for the batch item shown; -1 without a target
// of the output's shape.
double curve_error(const AppState& s);
// The estimate at n xs evenly from lo to hi (n >= 2), over every point of the batch item shown,
// none masked: the core run on those xs as queries with the scenario's scoring and σ. Empty
// when it cannot run.
std::vector<float> curve_estimate(const AppState& s, float lo, float hi, int n);
// The words of a hierarchy scenario's sentence k in the UI's language ("w1", … without names).
std::vector<std::string> hierarchy_sentence_words(const scenario::Hierarchy& h, int k);

}  // namespace ui
