// JSON helpers shared by the scenario reader, the link codec and the exports: reading with a
// depth limit and JSON paths, typed-field errors, and text made safe for one-line messages.
// Internal to src/scenario (it exposes nlohmann::json).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/scenario.h"

namespace scenario::json_util {

using nlohmann::json;

// Deep enough for a Scenario JSON v1 document inside {"scenario": ...} (5 levels), small
// enough that nothing recursive (dump, copies, destruction) can exhaust the stack.
constexpr size_t kMaxDepth = 16;

// Why a text could not be read as JSON.
struct JsonError {
  enum class Kind { kNone, kSyntax, kTruncated, kTooDeep, kOverflow };
  Kind kind = Kind::kNone;
  std::string path;     // kOverflow: the JSON path of the number, "" at the top level
  std::string message;  // kSyntax, kTruncated: the parser's description, without its prefix
  bool ok() const { return kind == Kind::kNone; }
};

// Reads `text` into *out, refusing nesting deeper than kMaxDepth before it is built.
JsonError read_json(const std::string& text, json* out);

// Thrown by the field readers (fail); caught where a reader turns it into a result's error.
struct FieldError {
  std::string message;  // "<field>: <problem>"
};
[[noreturn]] void fail(const std::string& field, const std::string& problem);

std::string type_name(const json& v);  // "a number", "an array", "null", ...
// A key as a path or an error shows it: bare when it is a plain name, else JSON-quoted, ASCII
// only, at most ~40 bytes.
std::string key_name(const std::string& key);
// A text from outside as an error shows it: JSON-quoted, ASCII only, at most ~40 bytes.
std::string quoted(const std::string& s);

// One printable line of at most `max_bytes` (then "…"): line breaks, tabs and Unicode line
// separators become spaces, other control characters and invalid UTF-8 '?'. Safe for an error
// line, a Python comment, or a message drawn on the canvas.
std::string one_line(const std::string& s, size_t max_bytes);

// The scenario in an already parsed JSON value, read and validated as scenario::parse does.
ParseResult parse_value(const json& j);

}  // namespace scenario::json_util
