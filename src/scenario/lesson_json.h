// The lesson fields of Scenario JSON v1 read: "title" and "description" (a text in English and
// Chinese), "tour" (a note per step), "quiz" (questions on cells, with choices) and "read"
// (the chapter to read). Internal to src/scenario; json_read.cpp reads the rest.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace scenario::lesson_json {

using nlohmann::json;

// A string (English) or {"en": ..., "zh": ...}.
LocalText read_text(const json& v, const std::string& field);
std::vector<TourStop> read_tour(const json& v);
std::vector<QuizQuestion> read_quiz(const json& v);
void read_reading(const json& v, Scenario* s);

}  // namespace scenario::lesson_json
