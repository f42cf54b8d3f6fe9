// JSON helpers shared by the scenario reader, the link codec and the exports: reading with a
// depth limit and JSON paths, typed-field errors, and text made safe for one-line messages.
// Internal to src/scenario (it exposes nlohmann::json).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "scenario/scenario.h"

namespace scenario::json_util {

using nlohmann::json;

// Limits on any JSON the playground reads, checked before anything past them is built (in a
// first pass that builds nothing, for a text over kOnePassBytes), so that a bad document is
// refused in little memory: nesting deep enough for a Scenario JSON v1
// document inside {"scenario": ...} (5 levels) and small enough that nothing recursive (dump,
// copies, destruction) can exhaust the stack; arrays as long as the longest field
// (masked_cells); numbers for 8 matrices of 1024 × 1024 (bigger inputs come as binary).
constexpr size_t kMaxDepth = 16;
constexpr size_t kMaxArrayLength = 65536;  // an array's elements, and an object's members
constexpr size_t kMaxNumbers = size_t{1} << 23;
// The most memory the document's tree (nlohmann::json) may take, as read_json estimates it
// from libstdc++'s layout: 16 bytes a value (an array's buffer grows by doubling), 32 more an
// array, 64 an object and 96 each of its members, 48 a string (and past 15 bytes, its length
// and 32), a key the same. Twice the tree of kMaxNumbers numbers: a large scenario fits, while
// cheap text that makes a costly tree ("[{},{},…]": 3 bytes, about 90 in the tree) is refused
// before it is built (measured: 45 MB of it took 1.3 GB to refuse before this limit).
constexpr size_t kMaxTreeBytes = size_t{256} << 20;
// Texts up to this size are read in one pass that checks the limits as it builds (see
// read_json); longer ones are checked first, building nothing. The page's setScenario takes
// at most this much JSON text.
constexpr size_t kOnePassBytes = size_t{1} << 20;

// Why a text could not be read as JSON. A document error is about the text as a whole; a
// value error names the value by its JSON path.
struct JsonError {
  enum class Kind {
    kNone,
    kSyntax,     // document: the parser's description in `message`
    kTruncated,  // document: the text ends early
    kTooLarge,   // document: deeper than kMaxDepth, more than kMaxNumbers or kMaxTreeBytes,
                 // or a NUL byte
    kValue,      // the value at `path`: a number beyond double, a key twice, a long array
                 // or object
  };
  Kind kind = Kind::kNone;
  std::string path;     // kValue: "x[0][1]", "" for the whole document
  std::string message;  // "is not a finite number", "nests deeper than 16 levels", ...
  bool ok() const { return kind == Kind::kNone; }
};

// Reads `text` into *out, checking the limits above, duplicate keys and the syntax: a text
// longer than kOnePassBytes first in a pass that builds nothing, then the DOM.
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

// --- Typed fields: each reader returns the value or throws FieldError naming the field (its
// JSON path) and what is wrong. Every JSON the playground reads (a scenario, a link's view, a
// lesson recipe) is read with them.
std::string idx(const std::string& field, size_t i);  // "x[3]"
// A number within float32's range.
float read_float(const json& v, const std::string& field);
// Element i of an array field, read as read_float reads it; its JSON path ("x[3][5]") is
// only written when it is needed for an error: a large scenario has a million numbers.
float read_float_at(const json& v, const std::string& field, size_t i);
// An integer in [lo, hi], range-checked on the JSON value so that 1e30 is reported as written.
int64_t read_int(const json& v, const std::string& field, int64_t lo, int64_t hi);
bool read_bool(const json& v, const std::string& field);
std::string read_string(const json& v, const std::string& field, size_t max_bytes);
// A non-empty array of at most max_size `what`s ("numbers", "rows").
const json& read_array(const json& v, const std::string& field, size_t max_size, const char* what);
// Fails on the first member of obj not in `known`: "<field>.<key>: unknown field".
void check_keys(const json& obj, const std::string& field, const std::set<std::string>& known);
// An object, or fails: "<field>: must be an object, got …".
const json& read_object(const json& v, const std::string& field);

// 10^k as a double, exact for 0 <= k <= 22.
inline constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// x · 10^k rounded once (so within 2^-53 of the exact product, and the correctly rounded
// product when x is exact), or false when |k| > 22 and 10^k is not exact.
inline bool times_pow10(double x, int k, double* out) {
  if (k > 22 || k < -22) return false;
  *out = k >= 0 ? x * kPow10[k] : x / kPow10[-k];
  return true;
}

// Reads the number at the start of `s` when it is a plain decimal that double arithmetic reads
// exactly: [+-]digits[.digits][(e|E)[+-]digits] with at most 19 significant digits, their
// integer at most 2^53 and its power of ten within ±22 (so one multiplication or division of
// two exact doubles, correctly rounded: Clinger's fast path). Then *value is what strtod
// returns, bit for bit, *end where strtod stops, and the result true; else false and strtod
// must decide (more digits, a far exponent, leading spaces, hex, inf, nan). WebAssembly builds
// route strtod through it (strtod_wasm.cpp): musl's strtod works in 128-bit software floats
// and took about 1 µs a number, the most of reading a large scenario's JSON.
bool read_plain_decimal(const char* s, double* value, const char** end);

// The scenario in an already parsed JSON value, read and validated as scenario::parse does
// (with the float arrays that "buffer" fields name).
ParseResult parse_value(const json& j, const std::vector<FloatArray>& arrays = {});

}  // namespace scenario::json_util
