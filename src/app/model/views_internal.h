// What the views' descriptions are built from (views.cpp, views_matrices.cpp): tables, sections
// and the sentences' joins, and the descriptions the registry lists.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/model/app_state.h"

namespace ui::views_detail {

using json = nlohmann::json;

// A number as the views print it: two decimals.
std::string fixed2(double v);
// A table of the description: its caption, what its rows are, its columns; add_row appends a
// row's label and cells.
json table(const std::string& caption, const std::string& row_header,
           const std::vector<std::string>& columns);
void add_row(json* t, const std::string& label, std::vector<std::string> cells);
// A section: its sentences, its tables (none yet) and its heading when given.
json section(std::vector<std::string> text, std::string heading = {});
std::string joined(const std::vector<std::string>& words, const char* between = " ");
// Two sentences in one line ("now"): a full stop after the first unless it ends in one, "。" in
// Chinese.
std::string two_sentences(const std::string& first, const std::string& second);
// A view's first section: its introduction, what it shows now (its question or query) and what
// that finds; "now" is the last two in one line, which the page announces when it changes.
json first_section(const char* intro, const std::string& place, const std::string& finds);

// The descriptions of the views that draw the step's matrices and vectors
// (views_matrices.cpp).
void describe_heads(AppState& s, json* out);
void describe_positional(AppState& s, json* out);
void describe_plane(AppState& s, json* out);

}  // namespace ui::views_detail
