// The centre's views (its tabs: the step by step view, Picture, Curve, Decoder, Document,
// Layers, all heads, positional encoding, 2-D), listed once: when each is available, its
// title, and its description for the table view. The tab bar (views/app.cpp), the "view"
// control's options (controls.cpp) and the table view (api_accessible.cpp) read this list, and
// the tests iterate it (tests/app/views_test.cpp), so that a view added here without a
// description fails a test.
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
  // The view's numbers as the canvas draws them, in words and tables (describe_view), or
  // null: the view draws the step view's matrices, which the step's description holds.
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

// When each view holds its weights back (a question about them waits): the Picture's and the
// Layers' every weight, the Curve's weights and predictions, the Document's sentence weights of
// one question's row, the Decoder's rows from the first a question asks about.
bool picture_hidden(const AppState& s);
bool curve_hidden(const AppState& s);
bool layers_hidden(const AppState& s);
bool document_row_hidden(const AppState& s, int row);
int decoder_rows_allowed(const AppState& s, int words);

// The sentences the views write under their numbers (also read by the table view).
std::string decoder_word_sentence(const AppState& s, int step);
std::string decoder_training_status(const AppState& s);
std::string document_summary(const AppState& s);
std::string picture_summary(AppState& s);
std::string curve_summary(const AppState& s);
// The words of a hierarchy scenario's sentence k in the UI's language ("w1", … without names).
std::vector<std::string> hierarchy_sentence_words(const scenario::Hierarchy& h, int k);

}  // namespace ui
