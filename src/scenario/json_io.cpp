// Scenario JSON v1 reader and writer, and the trace JSON writer.
//
// [SECTION] Number formatting
// [SECTION] Reading: typed fields with JSON-path errors
// [SECTION] Reading: the scenario
// [SECTION] Writing
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "scenario/json_util.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace scenario {

using json_util::fail;
using json_util::FieldError;
using json_util::JsonError;
using json_util::key_name;
using json_util::kPow10;
using json_util::times_pow10;
using json_util::type_name;
using nlohmann::json;

//-----------------------------------------------------------------------------
// [SECTION] Number formatting
//-----------------------------------------------------------------------------

namespace {

// The shortest text that reads back (strtof) to exactly v, with printf and strtof: a binary
// search over 1 to 9 significant digits (printf rounds the exact value correctly, so a
// precision that reads back makes every larger one read back too). Exact, and slow in WASM
// (musl's printf and strtof work in big integers): shortest_fast does the usual case.
int format_float_printf(char* buf, float v) {
  const float a = std::fabs(v);
  int lo = 1, hi = 9;  // 9 significant digits always read back
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    // `& 15` (mid is 1 to 9 anyway) lets the compiler see the text fits the 48 bytes.
    std::snprintf(buf, 48, "%.*g", mid & 15, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v)
      hi = mid;
    else
      lo = mid + 1;
  }
  int len = std::snprintf(buf, 48, "%.*g", lo & 15, static_cast<double>(v));
  // %g writes 0.000123 as "0.000123" but 10.5e3 as "1.05e+04": between 1e-4 and 1e5 a plain
  // decimal reads better.
  if (std::strchr(buf, 'e') && a >= 1e-4f && a < 1e5f) {
    char plain[48];
    for (int decimals = 0; decimals <= 12; ++decimals) {
      const int n = std::snprintf(plain, sizeof plain, "%.*f", decimals, static_cast<double>(v));
      if (std::strtof(plain, nullptr) == v) {
        std::memcpy(buf, plain, static_cast<size_t>(n) + 1);
        return n;
      }
    }
  }
  return len;
}

// Whether the real number near r (|real − r| <= |r|·2^-53) is so close to a tie — between two
// integers (`integers`) or two floats — that rounding r could round differently.
bool near_tie(double r, bool integers) {
  double tie;
  if (integers) {
    tie = std::floor(r) + 0.5;
  } else {
    const float f = static_cast<float>(r);
    const float other = std::nextafter(f, r > f ? INFINITY : -INFINITY);
    tie = (static_cast<double>(f) + static_cast<double>(other)) / 2;
  }
  return std::fabs(r - tie) <= std::fabs(r) * 0x1p-50;
}

// The shortest significant digits of a (finite, > 0) that read back to a, in double
// arithmetic: digits = round(a · 10^(p−1−e10)) for the smallest p that reads back. False when
// double arithmetic cannot decide (a power of ten it cannot hold exactly, a value near a tie):
// then printf decides.
bool shortest_fast(float a, uint64_t* digits, int* p, int* e10) {
  int e = static_cast<int>(std::floor(std::log10(static_cast<double>(a))));
  for (int precision = 1; precision <= 9; ++precision) {
    double scaled;
    if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    if (scaled >= kPow10[precision]) {  // log10 was one too small
      ++e;
      if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    } else if (scaled < kPow10[precision - 1]) {  // one too large
      --e;
      if (!times_pow10(a, precision - 1 - e, &scaled)) return false;
    }
    if (near_tie(scaled, true)) return false;
    double d = std::nearbyint(scaled);
    int exp10 = e;
    if (d >= kPow10[precision]) d /= 10, ++exp10;  // 9.96 at two digits is 10
    double back;
    if (!times_pow10(d, exp10 - precision + 1, &back)) return false;
    if (near_tie(back, false)) return false;
    if (static_cast<float>(back) == a) {
      *digits = static_cast<uint64_t>(d);
      *p = precision;
      *e10 = exp10;
      return true;
    }
  }
  return false;
}

// The digits as printf's %.{p}g writes them: exponent form below 1e-4 and from 10^p on, else
// a plain decimal; no trailing zeros.
int write_g(char* buf, bool negative, uint64_t digits, int p, int e10) {
  char d[24];
  const int n = std::snprintf(d, sizeof d, "%llu", static_cast<unsigned long long>(digits));
  int len = 0;
  if (negative) buf[len++] = '-';
  int used = n;
  while (used > 1 && d[used - 1] == '0') --used;  // trailing zeros
  if (e10 < -4 || e10 >= p) {
    buf[len++] = d[0];
    if (used > 1) {
      buf[len++] = '.';
      for (int i = 1; i < used; ++i) buf[len++] = d[i];
    }
    len += std::snprintf(buf + len, 16, "e%c%02d", e10 < 0 ? '-' : '+', std::abs(e10));
  } else if (e10 < 0) {
    buf[len++] = '0';
    buf[len++] = '.';
    for (int i = 0; i < -e10 - 1; ++i) buf[len++] = '0';
    for (int i = 0; i < used; ++i) buf[len++] = d[i];
  } else {
    for (int i = 0; i <= e10; ++i) buf[len++] = i < n ? d[i] : '0';
    if (used > e10 + 1) {
      buf[len++] = '.';
      for (int i = e10 + 1; i < used; ++i) buf[len++] = d[i];
    }
  }
  buf[len] = '\0';
  return len;
}

}  // namespace

int format_float_to(char* buf, float v) {
  if (std::isnan(v)) return std::snprintf(buf, 48, "nan");
  if (std::isinf(v)) return std::snprintf(buf, 48, v < 0 ? "-inf" : "inf");
  // Negative zero keeps its sign through JSON readers only as a float: "-0" reads as the
  // integer 0 (nlohmann, Python), "-0.0" as -0.0.
  if (v == 0.0f) return std::snprintf(buf, 48, std::signbit(v) ? "-0.0" : "0");
  const float a = std::fabs(v);
  // Whole numbers below 1e5 as integers (masks, counts, the textbook's values).
  if (a < 1e5f && std::floor(a) == a)
    return std::snprintf(buf, 48, "%lld", static_cast<long long>(v));
  uint64_t digits;
  int p, e10;
  if (shortest_fast(a, &digits, &p, &e10)) {
    const bool exponent = e10 < -4 || e10 >= p;
    // %g's exponent form between 1e-4 and 1e5 becomes a plain decimal (format_float_printf).
    if (!exponent || a < 1e-4f || a >= 1e5f) return write_g(buf, v < 0, digits, p, e10);
  }
  return format_float_printf(buf, v);
}

std::string format_float(float v) {
  char buf[48];
  const int n = format_float_to(buf, v);
  return std::string(buf, static_cast<size_t>(n));
}

namespace {

void append_number(std::string* out, float v) {
  char buf[48];
  const int n = format_float_to(buf, v);
  if (!std::isfinite(v)) *out += '"';
  out->append(buf, static_cast<size_t>(n));
  if (!std::isfinite(v)) *out += '"';
}

//-----------------------------------------------------------------------------
// [SECTION] Reading: typed fields with JSON-path errors
//-----------------------------------------------------------------------------

std::string idx(const std::string& field, size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

float read_float(const json& v, const std::string& field) {
  if (!v.is_number()) fail(field, "must be a number, got " + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(field, "is not a finite number");
  if (std::fabs(d) > std::numeric_limits<float>::max())
    fail(field, "is " + v.dump() + ", outside the float32 range");
  return static_cast<float>(d);
}

// Element i of an array field, read as read_float reads it; its JSON path ("x[3][5]") is
// only written when it is needed for an error: a large scenario has a million numbers.
float read_float_at(const json& v, const std::string& field, size_t i) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::fabs(d) <= std::numeric_limits<float>::max())
      return static_cast<float>(d);
  }
  return read_float(v, idx(field, i));
}

int64_t read_int(const json& v, const std::string& field, int64_t lo, int64_t hi) {
  if (!v.is_number()) fail(field, "must be an integer, got " + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::floor(d) != d) fail(field, "must be an integer, got " + v.dump());
  if (d < static_cast<double>(lo))
    fail(field, "is " + v.dump() + ", must be at least " + std::to_string(lo));
  if (d > static_cast<double>(hi))
    fail(field, "is " + v.dump() + ", must be at most " + std::to_string(hi));
  return v.is_number_integer() ? v.get<int64_t>() : static_cast<int64_t>(d);
}

bool read_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) fail(field, "must be true or false, got " + type_name(v));
  return v.get<bool>();
}

std::string read_string(const json& v, const std::string& field, size_t max_bytes) {
  if (!v.is_string()) fail(field, "must be a string, got " + type_name(v));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() > max_bytes)
    fail(field, "is " + std::to_string(s.size()) + " bytes long, more than the limit " +
                    std::to_string(max_bytes));
  return s;
}

const json& read_array(const json& v, const std::string& field, size_t max_size, const char* what) {
  if (!v.is_array())
    fail(field, std::string("must be an array of ") + what + ", got " + type_name(v));
  if (v.empty()) fail(field, std::string("is empty, expected at least one of ") + what);
  if (v.size() > max_size)
    fail(field, "has " + std::to_string(v.size()) + " " + what + ", more than the limit " +
                    std::to_string(max_size));
  return v;
}

void check_keys(const json& obj, const std::string& field, const std::set<std::string>& known);

// The float arrays of the scenario being read (parse with arrays), for "buffer" fields.
thread_local const std::vector<FloatArray>* t_arrays = nullptr;

// A matrix field given as {"shape": [...], "buffer": k}: its shape (`dims` numbers, each
// within its limit) and numbers, checked as an array of numbers would be.
std::vector<size_t> read_shape(const json& v, const std::string& field, size_t dims_lo,
                               size_t dims_hi) {
  const json& shape = v["shape"];
  const std::string where = field + ".shape";
  if (!shape.is_array() || shape.size() < dims_lo || shape.size() > dims_hi)
    fail(where, dims_lo == dims_hi
                    ? "must be [" + std::string(dims_lo == 1 ? "n" : "rows, cols") + "]"
                    : "must be [rows, cols] or [batch, rows, cols]");
  std::vector<size_t> out;
  const size_t n = shape.size();
  for (size_t i = 0; i < n; ++i) {
    // The last dimension is columns, the one before rows, the one before that the batch.
    const int64_t limit = i + 1 == n ? kMaxCols : i + 2 == n ? kMaxRows : kMaxBatch;
    out.push_back(static_cast<size_t>(read_int(shape[i], idx(where, i), 1, limit)));
  }
  return out;
}

const float* read_buffer(const json& v, const std::string& field, size_t expected) {
  check_keys(v, field, {"shape", "buffer"});
  if (!v.contains("buffer")) fail(field + ".buffer", "missing");
  const size_t count = t_arrays ? t_arrays->size() : 0;
  const int64_t k = read_int(v["buffer"], field + ".buffer", 0, 1 << 20);
  if (static_cast<size_t>(k) >= count)
    fail(field + ".buffer",
         "there is no array " + std::to_string(k) + " (" + std::to_string(count) + " given)");
  const FloatArray& a = (*t_arrays)[static_cast<size_t>(k)];
  if (a.size != expected)
    fail(field + ".buffer", "has " + std::to_string(a.size) + " numbers, expected " +
                                std::to_string(expected) + " (the product of the shape)");
  return a.data;
}

bool is_binary(const json& v) {
  return v.is_object() && v.contains("shape");
}

// Rows × cols numbers, row-major, into a matrix; a non-finite one is named by its indices.
attn::Matrix binary_matrix(const float* data, size_t rows, size_t cols, const std::string& field) {
  attn::Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const float x = data[r * cols + c];
      if (!std::isfinite(x)) fail(idx(idx(field, r), c), "is not a finite number");
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = x;
    }
  return m;
}

// A 2-D array of numbers, rows × cols, all rows the same length.
attn::Matrix read_matrix(const json& v, const std::string& field) {
  if (is_binary(v)) {
    const std::vector<size_t> shape = read_shape(v, field, 2, 2);
    return binary_matrix(read_buffer(v, field, shape[0] * shape[1]), shape[0], shape[1], field);
  }
  read_array(v, field, kMaxRows, "rows");
  const json& first = v[0];
  read_array(first, idx(field, 0), kMaxCols, "numbers");
  const size_t cols = first.size();
  attn::Matrix m(static_cast<Eigen::Index>(v.size()), static_cast<Eigen::Index>(cols));
  for (size_t r = 0; r < v.size(); ++r) {
    const std::string row_field = idx(field, r);
    const json& row = v[r];
    if (!row.is_array()) fail(row_field, "must be an array of numbers, got " + type_name(row));
    if (row.size() != cols)
      fail(row_field,
           "has " + std::to_string(row.size()) + " columns, expected " + std::to_string(cols));
    for (size_t c = 0; c < cols; ++c) m(r, c) = read_float_at(row[c], row_field, c);
  }
  return m;
}

attn::Vector read_vector(const json& v, const std::string& field) {
  if (is_binary(v)) {
    const size_t n = read_shape(v, field, 1, 1)[0];
    return binary_matrix(read_buffer(v, field, n), 1, n, field).row(0).transpose();
  }
  read_array(v, field, kMaxCols, "numbers");
  attn::Vector out(static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) out(i) = read_float_at(v[i], field, i);
  return out;
}

// A 3-D [batch][rows][cols] array, or a 2-D [rows][cols] one meaning batch 1.
attn::Batch read_batch(const json& v, const std::string& field, bool* two_d) {
  if (is_binary(v)) {
    const std::vector<size_t> shape = read_shape(v, field, 2, 3);
    *two_d = shape.size() == 2;
    const size_t batch = *two_d ? 1 : shape[0], rows = shape[shape.size() - 2], cols = shape.back();
    const float* data = read_buffer(v, field, batch * rows * cols);
    attn::Batch out;
    for (size_t b = 0; b < batch; ++b)
      out.push_back(
          binary_matrix(data + b * rows * cols, rows, cols, *two_d ? field : idx(field, b)));
    return out;
  }
  if (!v.is_array())
    fail(field, "must be a 2-D [rows][cols] or 3-D [batch][rows][cols] array of numbers, got " +
                    type_name(v));
  if (v.empty()) fail(field, "is empty");
  const bool nested = v[0].is_array() && !v[0].empty() && v[0][0].is_array();
  *two_d = !nested;
  if (!nested) return attn::Batch{read_matrix(v, field)};
  read_array(v, field, kMaxBatch, "batch items");
  attn::Batch out;
  for (size_t b = 0; b < v.size(); ++b) {
    const std::string item = idx(field, b);
    if (!v[b].is_array() || v[b].empty() || !v[b][0].is_array())
      fail(item, "must be a 2-D array [rows][cols] like " + field + "[0]");
    out.push_back(read_matrix(v[b], item));
    if (out[b].rows() != out[0].rows())
      fail(item, "has " + std::to_string(out[b].rows()) + " rows, expected " +
                     std::to_string(out[0].rows()) + " like " + field + "[0]");
    if (out[b].cols() != out[0].cols())
      fail(idx(item, 0), "has " + std::to_string(out[b].cols()) + " columns, expected " +
                             std::to_string(out[0].cols()) + " like " + field + "[0]");
  }
  return out;
}

// A token: a string, or {"en": ..., "zh": ...} ("zh" optional). The Chinese goes to *zh (the
// English when there is none), and *any_zh says whether some token had one.
std::vector<std::string> read_token_list(const json& v, const std::string& field,
                                         std::vector<std::string>* zh, bool* any_zh) {
  read_array(v, field, kMaxRows, "tokens");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string f = idx(field, i);
    if (v[i].is_object()) {
      check_keys(v[i], f, {"en", "zh"});
      if (!v[i].contains("en"))
        fail(f + ".en", "missing (a token is \"the\" or {\"en\": \"the\", \"zh\": ...})");
      out.push_back(read_string(v[i]["en"], f + ".en", kMaxTokenBytes));
      zh->push_back(v[i].contains("zh") ? read_string(v[i]["zh"], f + ".zh", kMaxTokenBytes)
                                        : out.back());
      *any_zh = *any_zh || v[i].contains("zh");
    } else {
      if (!v[i].is_string())
        fail(f, "must be a string or {\"en\": ..., \"zh\": ...}, got " + type_name(v[i]));
      out.push_back(read_string(v[i], f, kMaxTokenBytes));
      zh->push_back(out.back());
    }
  }
  return out;
}

// [n] tokens shared by every batch item, or [batch][n]; their Chinese in *zh (empty when no
// token has any).
std::vector<std::vector<std::string>> read_tokens(const json& v, const std::string& field,
                                                  bool* per_item,
                                                  std::vector<std::vector<std::string>>* zh) {
  read_array(v, field, kMaxRows, "tokens");
  *per_item = v[0].is_array();
  bool any_zh = false;
  std::vector<std::vector<std::string>> out;
  zh->clear();
  if (!*per_item) {
    zh->emplace_back();
    out.push_back(read_token_list(v, field, &zh->back(), &any_zh));
  } else {
    read_array(v, field, kMaxBatch, "token lists");
    for (size_t b = 0; b < v.size(); ++b) {
      zh->emplace_back();
      out.push_back(read_token_list(v[b], idx(field, b), &zh->back(), &any_zh));
    }
  }
  if (!any_zh) zh->clear();
  return out;
}

// "title"/"description": a string (English) or {"en": ..., "zh": ...}.
LocalText read_text(const json& v, const std::string& field) {
  LocalText t;
  if (v.is_string()) {
    t.en = read_string(v, field, 4096);
    return t;
  }
  if (!v.is_object())
    fail(field, "must be a string or {\"en\": ..., \"zh\": ...}, got " + type_name(v));
  check_keys(v, field, {"en", "zh"});
  if (v.contains("en")) t.en = read_string(v["en"], field + ".en", 4096);
  if (v.contains("zh")) t.zh = read_string(v["zh"], field + ".zh", 4096);
  return t;
}

void check_keys(const json& obj, const std::string& field, const std::set<std::string>& known) {
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (!known.count(key))
      fail(field.empty() ? key_name(key) : field + "." + key_name(key), "unknown field");
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Reading: the scenario
//-----------------------------------------------------------------------------

attn::Scoring read_scoring(const json& v) {
  const std::string name = read_string(v, "scoring", 64);
  std::string names;
  for (attn::Scoring s : attn::kScorings) {
    if (name == attn::scoring_name(s)) return s;
    names += (names.empty() ? "" : ", ") + std::string(attn::scoring_name(s));
  }
  fail("scoring", "unknown scoring " + v.dump() + ", expected one of " + names);
}

// "tour": [{"step": 5, "text": "..." or {"en": ..., "zh": ...}}, ...], one note per step.
std::vector<TourStop> read_tour(const json& v) {
  const std::string field = "tour";
  if (!v.is_array())
    fail(field, "must be an array of {\"step\": 5, \"text\": ...}, got " + type_name(v));
  if (v.size() > static_cast<size_t>(kMaxTourStops))
    fail(field, "has " + std::to_string(v.size()) + " notes, more than the limit " +
                    std::to_string(kMaxTourStops));
  std::vector<TourStop> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string item = idx(field, i);
    const json& e = v[i];
    if (!e.is_object())
      fail(item, "must be an object {\"step\": 5, \"text\": ...}, got " + type_name(e));
    check_keys(e, item, {"step", "text", "controls"});
    if (!e.contains("step")) fail(item + ".step", "missing");
    if (!e.contains("text")) fail(item + ".text", "missing");
    TourStop t;
    t.step = static_cast<int>(read_int(e["step"], item + ".step", 0, kTourLastStep));
    t.text = read_text(e["text"], item + ".text");
    if (t.text.en.empty()) fail(item + ".text", "has no English text");
    if (e.contains("controls")) {
      const std::string f = item + ".controls";
      const json& c = e["controls"];
      if (!c.is_array()) fail(f, "must be an array of control ids, got " + type_name(c));
      if (c.size() > static_cast<size_t>(kMaxTourControls))
        fail(f, "has " + std::to_string(c.size()) + " ids, more than " +
                    std::to_string(kMaxTourControls));
      for (size_t k = 0; k < c.size(); ++k) {
        std::string id = read_string(c[k], idx(f, k), 32);
        if (id.empty() || id.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
          fail(idx(f, k), "must be a control id such as \"valid_lens\" (a-z and _)");
        t.controls.push_back(std::move(id));
      }
    }
    for (const TourStop& before : out)
      if (before.step == t.step)
        fail(item + ".step", std::to_string(t.step) + " has a note already");
    out.push_back(t);
  }
  return out;
}

// "quiz": [{"step": 4, "ask": {...}, "why": {...}, "answer": {...}}, ...]: see QuizQuestion.
// Indices are checked against the scenario's shapes later, by resolve().
std::vector<QuizQuestion> read_quiz(const json& v) {
  const std::string field = "quiz";
  if (!v.is_array())
    fail(field,
         "must be an array of {\"step\", \"ask\", \"why\", \"answer\"}, got " + type_name(v));
  if (v.size() > static_cast<size_t>(kMaxQuizQuestions))
    fail(field, "has " + std::to_string(v.size()) + " questions, more than the limit " +
                    std::to_string(kMaxQuizQuestions));
  std::vector<QuizQuestion> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string item = idx(field, i);
    const json& e = v[i];
    if (!e.is_object())
      fail(item, "must be an object {\"step\", \"ask\", \"why\", \"answer\"}, got " + type_name(e));
    check_keys(e, item, {"step", "ask", "why", "answer"});
    for (const char* key : {"step", "ask", "why", "answer"})
      if (!e.contains(key)) fail(item + "." + key, "missing");
    QuizQuestion q;
    q.step = static_cast<int>(read_int(e["step"], item + ".step", 0, kTourLastStep));
    q.ask = read_text(e["ask"], item + ".ask");
    q.why = read_text(e["why"], item + ".why");
    if (q.ask.en.empty()) fail(item + ".ask", "has no English text");
    if (q.why.en.empty()) fail(item + ".why", "has no English text");
    const std::string af = item + ".answer";
    const json& a = e["answer"];
    if (!a.is_object())
      fail(af,
           "must be {\"row\", \"key\"} or {\"matrix\", \"cell\", \"value\", "
           "\"tolerance\"}, got " +
               type_name(a));
    QuizAnswer& ans = q.answer;
    ans.argmax = !a.contains("matrix");
    if (a.contains("head"))
      ans.head = static_cast<int>(read_int(a["head"], af + ".head", 0, kMaxHeads - 1));
    if (a.contains("batch"))
      ans.batch = static_cast<int>(read_int(a["batch"], af + ".batch", 0, kMaxBatch - 1));
    if (ans.argmax) {
      check_keys(a, af, {"head", "batch", "row", "key"});
      if (!a.contains("row")) fail(af + ".row", "missing");
      if (!a.contains("key")) fail(af + ".key", "missing");
      ans.row = static_cast<int>(read_int(a["row"], af + ".row", 0, kMaxRows - 1));
      ans.col = static_cast<int>(read_int(a["key"], af + ".key", 0, kMaxRows - 1));
    } else {
      check_keys(a, af, {"matrix", "head", "batch", "cell", "value", "tolerance"});
      for (const char* key : {"cell", "value", "tolerance"})
        if (!a.contains(key)) fail(af + "." + key, "missing");
      ans.matrix = read_string(a["matrix"], af + ".matrix", 32);
      if (!is_quiz_matrix(ans.matrix))
        fail(af + ".matrix", "unknown matrix " + a["matrix"].dump() +
                                 ", expected one of scores, scaled, masked, weights, "
                                 "head_output, output");
      if (ans.matrix == "output" && a.contains("head"))
        fail(af + ".head", "the final output has no head (use head_output for one head's)");
      const json& c = a["cell"];
      if (!c.is_array() || c.size() != 2) fail(af + ".cell", "must be [row, column]");
      ans.row = static_cast<int>(read_int(c[0], idx(af + ".cell", 0), 0, kMaxRows - 1));
      ans.col = static_cast<int>(read_int(c[1], idx(af + ".cell", 1), 0, kMaxCols - 1));
      ans.value = read_float(a["value"], af + ".value");
      ans.tolerance = read_float(a["tolerance"], af + ".tolerance");
      if (!(ans.tolerance >= 0.0f)) fail(af + ".tolerance", "must be 0 or more");
    }
    out.push_back(q);
  }
  return out;
}

// "read": {"title": text, "url": text}, the urls plain https addresses.
void read_reading(const json& v, Scenario* s) {
  if (!v.is_object())
    fail("read", "must be an object {\"title\": ..., \"url\": ...}, got " + type_name(v));
  check_keys(v, "read", {"title", "url"});
  if (!v.contains("title")) fail("read.title", "missing");
  if (!v.contains("url")) fail("read.url", "missing");
  s->read_title = read_text(v["title"], "read.title");
  s->read_url = read_text(v["url"], "read.url");
  const auto check = [](const std::string& url, const char* lang) {
    if (url.empty()) return;
    const bool plain = url.rfind("https://", 0) == 0 && url.size() <= 300 &&
                       url.find_first_of(" \"'<>\\`\t\n\r") == std::string::npos;
    if (!plain)
      fail(std::string("read.url.") + lang,
           "must be a plain https:// address of at most 300 characters");
  };
  check(s->read_url.en, "en");
  check(s->read_url.zh, "zh");
  if (s->read_url.en.empty()) fail("read.url", "has no English address");
}

void read_valid_lens(const json& v, Scenario* s) {
  const std::string field = "valid_lens";
  if (v.is_number()) {
    s->valid_lens_form = ValidLensForm::kAll;
    s->valid_lens = {{static_cast<int>(read_int(v, field, 0, kMaxRows))}};
    return;
  }
  if (!v.is_array())
    fail(field,
         "must be an integer, an array [batch] or an array [batch][queries], got " + type_name(v));
  read_array(v, field, kMaxBatch, "lengths");
  const bool per_query = v[0].is_array();
  s->valid_lens_form = per_query ? ValidLensForm::kPerQuery : ValidLensForm::kPerSequence;
  for (size_t b = 0; b < v.size(); ++b) {
    const std::string item = idx(field, b);
    if (per_query) {
      if (!v[b].is_array())
        fail(item, "must be an array of lengths like valid_lens[0], got " + type_name(v[b]));
      read_array(v[b], item, kMaxRows, "lengths");
      std::vector<int> lens;
      for (size_t i = 0; i < v[b].size(); ++i)
        lens.push_back(static_cast<int>(read_int(v[b][i], idx(item, i), 0, kMaxRows)));
      s->valid_lens.push_back(lens);
    } else {
      s->valid_lens.push_back({static_cast<int>(read_int(v[b], item, 0, kMaxRows))});
    }
  }
}

void read_masked_cells(const json& v, Scenario* s) {
  if (!v.is_array()) fail("masked_cells", "must be an array of [batch, query, key] triples");
  if (v.size() > static_cast<size_t>(kMaxMaskedCells))
    fail("masked_cells", "has " + std::to_string(v.size()) + " cells, more than the limit " +
                             std::to_string(kMaxMaskedCells));
  for (size_t c = 0; c < v.size(); ++c) {
    const std::string item = idx("masked_cells", c);
    if (!v[c].is_array() || v[c].size() != 3) fail(item, "must be a [batch, query, key] triple");
    std::array<int, 3> cell{};
    for (size_t k = 0; k < 3; ++k)
      cell[k] = static_cast<int>(read_int(v[c][k], idx(item, k), 0, kMaxRows));
    s->masked_cells.push_back(cell);
  }
}

Scenario read_scenario(const json& j) {
  if (!j.is_object()) fail("scenario", "must be a JSON object, got " + type_name(j));
  // clang-format off
  check_keys(j, "",
             {"version",       "title",       "description",  "x",           "queries",
              "keys",          "values",      "query_tokens", "key_tokens",  "scoring",
              "temperature",   "heads",       "valid_lens",   "causal",      "window",
              "masked_cells",  "mask_value",  "W_q",          "W_k",         "W_v",
              "W_o",           "W",           "w_v",          "init",        "positional_encoding",
              "hard",          "dropout",     "tour",         "quiz",        "read",
              "feature_names", "key_feature_names",           "value_names", "output_names",
              "target",        "trained_from"});
  // clang-format on
  if (!j.contains("version")) fail("version", "missing; expected 1");
  if (read_int(j["version"], "version", 0, 1 << 30) != 1)
    fail("version", j["version"].dump() + " is not supported; this build reads version 1");

  Scenario s;
  if (j.contains("title")) s.title = read_text(j["title"], "title");
  if (j.contains("description")) s.description = read_text(j["description"], "description");
  if (j.contains("tour")) s.tour = read_tour(j["tour"]);
  if (j.contains("quiz")) s.quiz = read_quiz(j["quiz"]);
  if (j.contains("read")) read_reading(j["read"], &s);
  if (j.contains("trained_from")) {
    const json& t = j["trained_from"];
    if (!t.is_object())
      fail("trained_from", "must be an object {\"task\": ..., \"seed\": ...}, got " + type_name(t));
    check_keys(t, "trained_from", {"task", "seed"});
    if (!t.contains("task") || !t["task"].is_string() || !find_task(t["task"].get<std::string>()))
      fail("trained_from.task", "must name a toy task (attention-cli task --list)");
    if (!t.contains("seed")) fail("trained_from.seed", "missing");
    s.trained_from_task = t["task"].get<std::string>();
    s.trained_from_seed =
        static_cast<uint64_t>(read_int(t["seed"], "trained_from.seed", 0, 999999));
  }

  bool two_d = false;
  if (j.contains("x")) {
    for (const char* other : {"queries", "keys", "values"})
      if (j.contains(other)) fail(other, "give either x (self-attention) or queries/keys/values");
    s.self_attention = true;
    s.queries = read_batch(j["x"], "x", &two_d);
    s.keys = s.queries;
    s.values = s.queries;
    s.batch_of_one = two_d;
  } else {
    for (const char* name : {"queries", "keys", "values"})
      if (!j.contains(name))
        fail(name, "missing; give x (self-attention), or queries, keys and values");
    bool q2, k2, v2;
    s.queries = read_batch(j["queries"], "queries", &q2);
    s.keys = read_batch(j["keys"], "keys", &k2);
    s.values = read_batch(j["values"], "values", &v2);
    s.batch_of_one = q2 && k2 && v2;
  }
  bool q_per_item = false, k_per_item = false;
  if (j.contains("query_tokens"))
    s.query_tokens =
        read_tokens(j["query_tokens"], "query_tokens", &q_per_item, &s.query_tokens_zh);
  if (j.contains("key_tokens"))
    s.key_tokens = read_tokens(j["key_tokens"], "key_tokens", &k_per_item, &s.key_tokens_zh);
  if (j.contains("query_tokens") && j.contains("key_tokens") && q_per_item != k_per_item)
    fail("key_tokens", "must be [n] like query_tokens, or [batch][n] like query_tokens");
  s.tokens_per_item = q_per_item || k_per_item;
  if (j.contains("target")) {
    bool two_d = false;
    s.target = read_batch(j["target"], "target", &two_d);
  }
  using Names = std::vector<std::vector<std::string>>;
  const struct {
    const char* field;
    Names *en, *zh;
  } name_fields[] = {{"feature_names", &s.feature_names, &s.feature_names_zh},
                     {"key_feature_names", &s.key_feature_names, &s.key_feature_names_zh},
                     {"value_names", &s.value_names, &s.value_names_zh},
                     {"output_names", &s.output_names, &s.output_names_zh}};
  for (const auto& names : name_fields) {
    const char* field = names.field;
    if (!j.contains(field)) continue;
    const json& v = j[field];
    if (v.is_array() && !v.empty() && v[0].is_array())
      fail(field, "must be one list of names, one per column");
    bool per_item = false;
    *names.en = read_tokens(v, field, &per_item, names.zh);
  }

  if (j.contains("scoring")) s.scoring = read_scoring(j["scoring"]);
  if (j.contains("temperature")) s.temperature = read_float(j["temperature"], "temperature");
  if (j.contains("heads")) s.heads = static_cast<int>(read_int(j["heads"], "heads", 1, kMaxHeads));

  if (j.contains("valid_lens") && !j["valid_lens"].is_null()) read_valid_lens(j["valid_lens"], &s);
  if (j.contains("causal")) s.causal = read_bool(j["causal"], "causal");
  if (j.contains("window") && !j["window"].is_null())
    s.window = static_cast<int>(read_int(j["window"], "window", 0, kMaxRows));
  if (j.contains("masked_cells")) read_masked_cells(j["masked_cells"], &s);
  if (j.contains("mask_value")) {
    const json& mv = j["mask_value"];
    if (mv.is_string()) {
      if (mv.get<std::string>() != "-inf")
        fail("mask_value", "must be a negative number or the string \"-inf\", got " + mv.dump());
      s.mask_value = -std::numeric_limits<float>::infinity();
    } else {
      s.mask_value = read_float(mv, "mask_value");
    }
  }

  if (j.contains("W_q")) s.W_q = read_matrix(j["W_q"], "W_q");
  if (j.contains("W_k")) s.W_k = read_matrix(j["W_k"], "W_k");
  if (j.contains("W_v")) s.W_v = read_matrix(j["W_v"], "W_v");
  if (j.contains("W_o")) s.W_o = read_matrix(j["W_o"], "W_o");
  if (j.contains("W")) s.W = read_matrix(j["W"], "W");
  if (j.contains("w_v")) s.w_v = read_vector(j["w_v"], "w_v");
  if (j.contains("init")) {
    const json& init = j["init"];
    if (!init.is_object()) fail("init", "must be an object {\"seed\": 42, \"d_model\": 8}");
    check_keys(init, "init", {"seed", "d_model"});
    if (!init.contains("seed")) fail("init.seed", "missing");
    if (!init.contains("d_model")) fail("init.d_model", "missing");
    s.has_init = true;
    s.init_seed = static_cast<uint64_t>(read_int(init["seed"], "init.seed", 0, int64_t{1} << 53));
    s.init_d_model = static_cast<int>(read_int(init["d_model"], "init.d_model", 1, kMaxCols));
  }

  if (j.contains("positional_encoding")) {
    const json& pe = j["positional_encoding"];
    if (pe.is_boolean()) {
      s.positional_encoding = pe.get<bool>();
    } else if (pe.is_object()) {
      check_keys(pe, "positional_encoding", {"kind", "base"});
      if (pe.contains("kind") &&
          read_string(pe["kind"], "positional_encoding.kind", 64) != "sinusoidal")
        fail("positional_encoding.kind",
             "unknown kind " + pe["kind"].dump() + ", expected \"sinusoidal\"");
      s.positional_encoding = true;
      if (pe.contains("base")) s.pe_base = read_float(pe["base"], "positional_encoding.base");
    } else if (!pe.is_null()) {
      fail("positional_encoding",
           "must be {\"kind\": \"sinusoidal\", \"base\": 10000} or a "
           "boolean, got " +
               type_name(pe));
    }
  }
  if (j.contains("hard")) s.hard = read_bool(j["hard"], "hard");
  if (j.contains("dropout") && !j["dropout"].is_null()) {
    const json& d = j["dropout"];
    if (!d.is_object()) fail("dropout", "must be an object {\"p\": 0.1, \"seed\": 1}");
    check_keys(d, "dropout", {"p", "seed"});
    if (!d.contains("p")) fail("dropout.p", "missing");
    s.has_dropout = true;
    s.dropout_p = read_float(d["p"], "dropout.p");
    if (d.contains("seed"))
      s.dropout_seed =
          static_cast<uint64_t>(read_int(d["seed"], "dropout.seed", 0, int64_t{1} << 53));
  }
  return s;
}

}  // namespace

ParseResult json_util::parse_value(const json& j, const std::vector<FloatArray>& arrays) {
  ParseResult r;
  t_arrays = &arrays;
  try {
    r.scenario = read_scenario(j);
  } catch (const FieldError& e) {
    t_arrays = nullptr;
    r.error = e.message;
    return r;
  }
  t_arrays = nullptr;
  Resolved resolved = resolve(r.scenario);
  r.problem = std::move(resolved.problem);
  r.error = std::move(resolved.error);
  return r;
}

ParseResult parse(const std::string& json_text) {
  return parse(json_text, {});
}

ParseResult parse(const std::string& json_text, const std::vector<FloatArray>& arrays) {
  json j;
  const JsonError e = json_util::read_json(json_text, &j);
  ParseResult r;
  switch (e.kind) {
    case JsonError::Kind::kNone:
      return json_util::parse_value(j, arrays);
    case JsonError::Kind::kValue:
      r.error = (e.path.empty() ? "scenario" : e.path) + ": " + e.message;
      break;
    default:
      r.error = "json: " + e.message;
      break;
  }
  return r;
}

//-----------------------------------------------------------------------------
// [SECTION] Writing
//-----------------------------------------------------------------------------

namespace {

void append_matrix(std::string* out, const attn::Matrix& m) {
  *out += '[';
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (r) *out += ',';
    *out += '[';
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) *out += ',';
      append_number(out, m(r, c));
    }
    *out += ']';
  }
  *out += ']';
}

void append_batch(std::string* out, const attn::Batch& b, bool two_d) {
  if (two_d && b.size() == 1) return append_matrix(out, b[0]);
  *out += '[';
  for (size_t i = 0; i < b.size(); ++i) {
    if (i) *out += ',';
    append_matrix(out, b[i]);
  }
  *out += ']';
}

void append_key(std::string* out, const char* key) {
  if (out->back() != '{') *out += ',';
  *out += '"';
  *out += key;
  *out += "\":";
}

void append_string(std::string* out, const std::string& s) {
  *out += json(s).dump();
}

void append_strings(std::string* out, const std::vector<std::string>& v) {
  *out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) *out += ',';
    append_string(out, v[i]);
  }
  *out += ']';
}

void append_text(std::string* out, const LocalText& t) {
  if (t.zh.empty()) return append_string(out, t.en);
  *out += "{\"en\":";
  append_string(out, t.en);
  *out += ",\"zh\":";
  append_string(out, t.zh);
  *out += '}';
}

// Tokens as read: a token with a different Chinese as {"en": ..., "zh": ...}.
void append_tokens(std::string* out, const std::vector<std::vector<std::string>>& t,
                   const std::vector<std::vector<std::string>>& zh, bool per_item) {
  const auto list = [&](size_t b) {
    if (zh.size() != t.size()) return append_strings(out, t[b]);
    *out += '[';
    for (size_t i = 0; i < t[b].size(); ++i) {
      if (i) *out += ',';
      if (i < zh[b].size() && zh[b][i] != t[b][i]) {
        *out += "{\"en\":";
        append_string(out, t[b][i]);
        *out += ",\"zh\":";
        append_string(out, zh[b][i]);
        *out += '}';
      } else {
        append_string(out, t[b][i]);
      }
    }
    *out += ']';
  };
  if (!per_item) return list(0);
  *out += '[';
  for (size_t b = 0; b < t.size(); ++b) {
    if (b) *out += ',';
    list(b);
  }
  *out += ']';
}

}  // namespace

std::string to_json(const Scenario& s) {
  std::string o = "{";
  append_key(&o, "version");
  o += "1";
  if (!s.title.empty()) append_key(&o, "title"), append_text(&o, s.title);
  if (!s.description.empty()) append_key(&o, "description"), append_text(&o, s.description);
  if (!s.tour.empty()) {
    append_key(&o, "tour");
    o += '[';
    for (size_t i = 0; i < s.tour.size(); ++i) {
      o += i ? ",{" : "{";
      append_key(&o, "step");
      o += std::to_string(s.tour[i].step);
      append_key(&o, "text");
      append_text(&o, s.tour[i].text);
      if (!s.tour[i].controls.empty()) {
        append_key(&o, "controls");
        append_strings(&o, s.tour[i].controls);
      }
      o += '}';
    }
    o += ']';
  }
  if (!s.quiz.empty()) {
    append_key(&o, "quiz");
    o += '[';
    for (size_t i = 0; i < s.quiz.size(); ++i) {
      const QuizQuestion& q = s.quiz[i];
      o += i ? ",{" : "{";
      append_key(&o, "step");
      o += std::to_string(q.step);
      append_key(&o, "ask");
      append_text(&o, q.ask);
      append_key(&o, "why");
      append_text(&o, q.why);
      append_key(&o, "answer");
      const QuizAnswer& a = q.answer;
      o += '{';
      if (!a.argmax) {
        append_key(&o, "matrix");
        append_string(&o, a.matrix);
      }
      if (a.argmax || a.matrix != "output") {
        append_key(&o, "head");
        o += std::to_string(a.head);
      }
      append_key(&o, "batch");
      o += std::to_string(a.batch);
      if (a.argmax) {
        append_key(&o, "row");
        o += std::to_string(a.row);
        append_key(&o, "key");
        o += std::to_string(a.col);
      } else {
        append_key(&o, "cell");
        o += '[' + std::to_string(a.row) + ',' + std::to_string(a.col) + ']';
        append_key(&o, "value");
        append_number(&o, a.value);
        append_key(&o, "tolerance");
        append_number(&o, a.tolerance);
      }
      o += "}}";
    }
    o += ']';
  }
  if (!s.feature_names.empty()) {
    append_key(&o, "feature_names");
    append_tokens(&o, s.feature_names, s.feature_names_zh, false);
  }
  if (!s.key_feature_names.empty()) {
    append_key(&o, "key_feature_names");
    append_tokens(&o, s.key_feature_names, s.key_feature_names_zh, false);
  }
  if (!s.value_names.empty()) {
    append_key(&o, "value_names");
    append_tokens(&o, s.value_names, s.value_names_zh, false);
  }
  if (!s.output_names.empty()) {
    append_key(&o, "output_names");
    append_tokens(&o, s.output_names, s.output_names_zh, false);
  }
  if (!s.target.empty()) {
    append_key(&o, "target");
    append_batch(&o, s.target, s.batch_of_one);
  }
  if (!s.trained_from_task.empty()) {
    append_key(&o, "trained_from");
    o += "{\"task\":\"" + s.trained_from_task +
         "\",\"seed\":" + std::to_string(s.trained_from_seed) + "}";
  }
  if (!s.read_url.empty()) {
    append_key(&o, "read");
    o += '{';
    append_key(&o, "title");
    append_text(&o, s.read_title);
    append_key(&o, "url");
    append_text(&o, s.read_url);
    o += '}';
  }
  if (s.self_attention) {
    append_key(&o, "x");
    append_batch(&o, s.queries, s.batch_of_one);
  } else {
    append_key(&o, "queries");
    append_batch(&o, s.queries, s.batch_of_one);
    append_key(&o, "keys");
    append_batch(&o, s.keys, s.batch_of_one);
    append_key(&o, "values");
    append_batch(&o, s.values, s.batch_of_one);
  }
  if (!s.query_tokens.empty())
    append_key(&o, "query_tokens"),
        append_tokens(&o, s.query_tokens, s.query_tokens_zh, s.tokens_per_item);
  if (!s.key_tokens.empty())
    append_key(&o, "key_tokens"),
        append_tokens(&o, s.key_tokens, s.key_tokens_zh, s.tokens_per_item);
  append_key(&o, "scoring");
  o += std::string("\"") + attn::scoring_name(s.scoring) + "\"";
  if (s.temperature != 1.0f) append_key(&o, "temperature"), o += format_float(s.temperature);
  if (s.heads != 1) append_key(&o, "heads"), o += std::to_string(s.heads);
  switch (s.valid_lens_form) {
    case ValidLensForm::kNone:
      break;
    case ValidLensForm::kAll:
      append_key(&o, "valid_lens");
      o += std::to_string(s.valid_lens[0][0]);
      break;
    case ValidLensForm::kPerSequence:
    case ValidLensForm::kPerQuery: {
      append_key(&o, "valid_lens");
      o += '[';
      for (size_t b = 0; b < s.valid_lens.size(); ++b) {
        if (b) o += ',';
        if (s.valid_lens_form == ValidLensForm::kPerSequence) {
          o += std::to_string(s.valid_lens[b][0]);
          continue;
        }
        o += '[';
        for (size_t i = 0; i < s.valid_lens[b].size(); ++i)
          o += (i ? "," : "") + std::to_string(s.valid_lens[b][i]);
        o += ']';
      }
      o += ']';
      break;
    }
  }
  if (s.causal) append_key(&o, "causal"), o += "true";
  if (s.window >= 0) append_key(&o, "window"), o += std::to_string(s.window);
  if (!s.masked_cells.empty()) {
    append_key(&o, "masked_cells");
    o += '[';
    for (size_t c = 0; c < s.masked_cells.size(); ++c) {
      const auto& m = s.masked_cells[c];
      o += (c ? ",[" : "[") + std::to_string(m[0]) + "," + std::to_string(m[1]) + "," +
           std::to_string(m[2]) + "]";
    }
    o += ']';
  }
  if (s.mask_value != -1e6f) append_key(&o, "mask_value"), append_number(&o, s.mask_value);
  const std::pair<const char*, const attn::Matrix*> mats[] = {
      {"W_q", &s.W_q}, {"W_k", &s.W_k}, {"W_v", &s.W_v}, {"W_o", &s.W_o}, {"W", &s.W}};
  for (const auto& [name, m] : mats)
    if (m->size()) append_key(&o, name), append_matrix(&o, *m);
  if (s.w_v.size()) {
    append_key(&o, "w_v");
    o += '[';
    for (Eigen::Index i = 0; i < s.w_v.size(); ++i) {
      if (i) o += ',';
      append_number(&o, s.w_v(i));
    }
    o += ']';
  }
  if (s.has_init) {
    append_key(&o, "init");
    o += "{\"seed\":" + std::to_string(s.init_seed) +
         ",\"d_model\":" + std::to_string(s.init_d_model) + "}";
  }
  if (s.positional_encoding) {
    append_key(&o, "positional_encoding");
    o += "{\"kind\":\"sinusoidal\",\"base\":" + format_float(s.pe_base) + "}";
  }
  if (s.hard) append_key(&o, "hard"), o += "true";
  if (s.has_dropout) {
    append_key(&o, "dropout");
    o +=
        "{\"p\":" + format_float(s.dropout_p) + ",\"seed\":" + std::to_string(s.dropout_seed) + "}";
  }
  o += '}';
  return o;
}

TraceJsonWriter::TraceJsonWriter(Sink sink) : sink_(std::move(sink)) {
  buffer_ = "{\"version\":1";
}

void TraceJsonWriter::flush_if_full() {
  if (buffer_.size() < (size_t{1} << 16)) return;
  sink_(buffer_);
  buffer_.clear();
}

void TraceJsonWriter::matrix(const attn::Matrix& m) {
  buffer_ += '[';
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    buffer_ += r ? ",[" : "[";
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) buffer_ += ',';
      // Runs of one value (uniform weights, masks, zeros) are formatted once.
      const float v = m(r, c);
      if (std::memcmp(&v, &last_value_, sizeof v) != 0) {
        last_value_ = v;
        last_text_.clear();
        append_number(&last_text_, v);
      }
      buffer_ += last_text_;
    }
    buffer_ += ']';
    flush_if_full();
  }
  buffer_ += ']';
}

void TraceJsonWriter::batch(const attn::Batch& b) {
  buffer_ += '[';
  for (size_t i = 0; i < b.size(); ++i) {
    if (i) buffer_ += ',';
    matrix(b[i]);
  }
  buffer_ += ']';
}

void TraceJsonWriter::head(const attn::HeadTrace& h, const std::vector<std::string>& names,
                           int index) {
  buffer_ += heads_++ ? ",{" : ",\"heads\":[{";
  bool first = true;
  if (index >= 0) {
    buffer_ += "\"head\":" + std::to_string(index);
    first = false;
  }
  const std::pair<const char*, const attn::Batch*> parts[] = {{"scores", &h.scores},
                                                              {"scaled", &h.scaled},
                                                              {"masked", &h.masked},
                                                              {"weights", &h.weights},
                                                              {"output", &h.output}};
  for (const auto& [name, b] : parts) {
    if (!names.empty() && std::find(names.begin(), names.end(), name) == names.end()) continue;
    buffer_ += first ? "\"" : ",\"";
    buffer_ += name;
    buffer_ += "\":";
    batch(*b);
    first = false;
  }
  buffer_ += '}';
}

void TraceJsonWriter::output(const attn::Batch& out) {
  if (heads_ && !heads_closed_) buffer_ += ']', heads_closed_ = true;
  buffer_ += ",\"output\":";
  batch(out);
}

void TraceJsonWriter::finish() {
  if (heads_ && !heads_closed_) buffer_ += ']', heads_closed_ = true;
  buffer_ += '}';
  sink_(buffer_);
  buffer_.clear();
}

std::string trace_to_json(const attn::Trace& t) {
  std::string text;
  TraceJsonWriter w([&text](const std::string& piece) { text += piece; });
  for (const attn::HeadTrace& h : t.heads) w.head(h);
  w.output(t.output);
  w.finish();
  return text;
}

}  // namespace scenario
