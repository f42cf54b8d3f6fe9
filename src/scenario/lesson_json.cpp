// The lesson fields of Scenario JSON v1 (lesson_json.h), with JSON-path errors, on the
// typed-field readers of json_util.
#include "scenario/lesson_json.h"

#include <cstddef>
#include <string>
#include <vector>

#include "scenario/json_util.h"

namespace scenario::lesson_json {

using json_util::check_keys;
using json_util::fail;
using json_util::idx;
using json_util::read_float;
using json_util::read_int;
using json_util::read_string;
using json_util::type_name;

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
    if (a.contains("layer"))
      ans.layer = static_cast<int>(read_int(a["layer"], af + ".layer", 0, kMaxLayers - 1));
    if (ans.argmax) {
      check_keys(a, af, {"layer", "head", "batch", "row", "key"});
      if (!a.contains("row")) fail(af + ".row", "missing");
      if (!a.contains("key")) fail(af + ".key", "missing");
      ans.row = static_cast<int>(read_int(a["row"], af + ".row", 0, kMaxRows - 1));
      ans.col = static_cast<int>(read_int(a["key"], af + ".key", 0, kMaxRows - 1));
    } else {
      check_keys(a, af, {"layer", "matrix", "head", "batch", "cell", "value", "tolerance"});
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

}  // namespace scenario::lesson_json
