// The link codec: "v1." + base64url(JSON {"scenario", "view"}), with one-line errors.
//
// [SECTION] Base64url
// [SECTION] The view: checks and JSON
// [SECTION] Encoding
// [SECTION] Decoding
#include "scenario/link.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "scenario/json_util.h"
#include "scenario/tasks.h"
#include "scenario/zip.h"

namespace scenario {

using json_util::check_keys;
using json_util::fail;
using json_util::FieldError;
using json_util::JsonError;
using json_util::key_name;
using json_util::quoted;
using json_util::read_bool;
using json_util::read_float;
using json_util::read_int;
using json_util::read_object;
using json_util::read_string;
using json_util::type_name;
using nlohmann::json;

namespace {

constexpr size_t kMaxErrorBytes = 300;

const char kDamaged[] =
    "link: damaged (its checksum does not match: a character is changed, missing or extra)";

const char kBase64urlAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string str(int64_t v) {
  return std::to_string(v);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Base64url
//-----------------------------------------------------------------------------

std::string base64url_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = uint32_t{static_cast<unsigned char>(bytes[i])} << 16 |
                       uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8 |
                       uint32_t{static_cast<unsigned char>(bytes[i + 2])};
    out += kBase64urlAlphabet[n >> 18 & 63];
    out += kBase64urlAlphabet[n >> 12 & 63];
    out += kBase64urlAlphabet[n >> 6 & 63];
    out += kBase64urlAlphabet[n & 63];
  }
  // leftovers: 1 byte gives 2 characters, 2 bytes give 3 (no '=' padding)
  const size_t rest = bytes.size() - i;
  if (rest) {
    uint32_t n = uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
    if (rest == 2) n |= uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
    out += kBase64urlAlphabet[n >> 18 & 63];
    out += kBase64urlAlphabet[n >> 12 & 63];
    if (rest == 2) out += kBase64urlAlphabet[n >> 6 & 63];
  }
  return out;
}

namespace {

int base64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// The checksum's 6 characters: 32 bits, most significant first, 2 in the first character.
std::string checksum_text(uint32_t crc) {
  std::string out(kLinkChecksumChars, 'A');
  for (size_t i = 0; i < kLinkChecksumChars; ++i)
    out[kLinkChecksumChars - 1 - i] = kBase64urlAlphabet[crc >> (6 * i) & 63];
  return out;
}

// Whether the kLinkChecksumChars characters of `text` from `at` are the checksum of
// text[0, end).
bool checksum_matches(const std::string& text, size_t at, size_t end) {
  uint64_t given = 0;
  for (size_t i = at; i < at + kLinkChecksumChars; ++i) {
    const int v = base64url_value(text[i]);
    if (v < 0) return false;
    given = given << 6 | static_cast<uint64_t>(v);
  }
  return given == crc32(text.substr(0, end));
}

// A character as an error shows it: 'x' when printable ASCII, else its byte value.
std::string shown_char(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

// Decodes text[begin, end). Trailing '=' padding is tolerated. Positions in errors are
// offsets into `text`, so that they point at the character in the link as the user sees it.
bool base64url_decode(const std::string& text, size_t begin, size_t* out_len, std::string* out,
                      std::string* error) {
  size_t end = text.size();
  for (int pad = 0; pad < 2 && end > begin && text[end - 1] == '='; ++pad) --end;
  for (size_t i = begin; i < end; ++i) {
    if (base64url_value(text[i]) < 0) {
      *error = "link: invalid base64url character " + shown_char(text[i]) + " at position " +
               std::to_string(i);
      return false;
    }
  }
  const size_t n = end - begin;
  if (n % 4 == 1) {
    *error =
        "link: truncated (" + std::to_string(n) + " base64url characters do not make whole bytes)";
    return false;
  }
  out->clear();
  out->reserve(n / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = begin; i < end; ++i) {
    acc = (acc << 6 | static_cast<uint32_t>(base64url_value(text[i]))) & 0xFFFFFF;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out += static_cast<char>(acc >> bits & 0xFF);
    }
  }
  *out_len = n;
  return true;
}

//-----------------------------------------------------------------------------
// [SECTION] The view: checks and JSON
//-----------------------------------------------------------------------------

bool is_name(const std::string& s) {
  if (s.empty() || s.size() > kMaxViewNameChars) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string check_names(const std::vector<std::string>& names, const std::string& field) {
  if (names.size() > kMaxViewNames)
    return field + ": has " + str(names.size()) + " names, more than the limit " +
           str(kMaxViewNames);
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = field + "[" + str(i) + "]";
    if (!is_name(names[i]))
      return item + ": " + quoted(names[i]) + " is not a name (1 to 32 of a-z, 0-9, _)";
    if (!seen.insert(names[i]).second) return item + ": " + quoted(names[i]) + " is listed twice";
  }
  return "";
}

std::string check_range(int v, int lo, int hi, const std::string& field) {
  if (v < lo) return field + ": is " + str(v) + ", must be at least " + str(lo);
  if (v > hi) return field + ": is " + str(v) + ", must be at most " + str(hi);
  return "";
}

}  // namespace

namespace {

// The first problem of the view, or "".
std::string check_view(const ViewState& v, const Scenario& s) {
  std::string e;
  if (!(e = check_range(v.step, 0, kMaxViewStep, "view.step")).empty()) return e;
  if (!(e = check_range(v.layer, 0, kMaxViewIndex, "view.layer")).empty()) return e;
  const int layers = std::max<int>(1, static_cast<int>(s.layers.size()));
  if (v.layer >= layers)
    return "view.layer: is " + str(v.layer) + ", but the scenario has " + str(layers) +
           (layers == 1 ? " layer" : " layers");
  if (!(e = check_range(v.head, 0, kMaxViewIndex, "view.head")).empty()) return e;
  const int heads = s.layers.empty() ? s.heads : s.layers[v.layer].heads;
  if (v.head >= heads)
    return "view.head: is " + str(v.head) + ", but the " +
           (s.layers.empty() ? std::string("scenario") : "layer") + " has " + str(heads) +
           (heads == 1 ? " head" : " heads");
  if (!(e = check_range(v.batch, 0, kMaxViewIndex, "view.batch")).empty()) return e;
  if (v.batch >= s.batch())
    return "view.batch: is " + str(v.batch) + ", but the scenario has a batch of " + str(s.batch());
  if (v.lang != "en" && v.lang != "zh")
    return "view.lang: is " + quoted(v.lang) + ", expected \"en\" or \"zh\"";
  if (!(e = check_names(v.panels, "view.panels")).empty()) return e;
  if (!(e = check_names(v.hidden, "view.hidden")).empty()) return e;
  if (!v.lesson.empty() && !is_name(v.lesson))
    return "view.lesson: " + quoted(v.lesson) + " is not a lesson id (1 to 32 of a-z, 0-9, _)";
  if (v.progress.size() > kMaxViewNames)
    return "view.progress: has " + str(v.progress.size()) + " lessons, more than the limit " +
           str(kMaxViewNames);
  for (const auto& [lesson, marks] : v.progress) {
    if (!is_name(lesson))
      return "view.progress: " + quoted(lesson) + " is not a lesson id (1 to 32 of a-z, 0-9, _)";
    if (!is_progress_marks(marks))
      return "view.progress." + lesson + ": " + quoted(marks) +
             " is not 1 to 8 marks of '-' (not yet), 'r' (right) and 'w' (wrong)";
  }
  const TrainState& t = v.train;
  if (!t.task.empty()) {
    if (!find_task(t.task)) {
      std::string names;
      for (const TaskInfo& info : task_list()) names += (names.empty() ? "" : ", ") + info.name;
      return "view.train.task: " + quoted(t.task) + " is not a toy task (" + names + ")";
    }
    if (!(e = check_range(t.seed, 0, kMaxViewTrainSeed, "view.train.seed")).empty()) return e;
    if (!(e = check_range(t.steps, 0, kMaxViewTrainSteps, "view.train.steps")).empty()) return e;
    if (!is_learning_rate(t.lr))
      return "view.train.lr: is " + json(t.lr).dump() + ", must be " + learning_rate_rule();
  }
  return "";
}

}  // namespace

bool is_progress_marks(const std::string& marks) {
  return !marks.empty() && marks.size() <= kMaxProgressMarks &&
         marks.find_first_not_of("-rw") == std::string::npos;
}

attn::Status validate_view(const ViewState& v, const Scenario& s) {
  return attn::Status{check_view(v, s)};
}

namespace {

// The longest string a view's field reads (names, marks, a language, a task are far shorter:
// validate_view says what each must be).
constexpr size_t kMaxViewString = 256;

std::string read_view_string(const json& v, const std::string& field) {
  return read_string(v, field, kMaxViewString);
}

int read_view_int(const json& v, const std::string& field, int lo, int hi) {
  return static_cast<int>(read_int(v, field, lo, hi));
}

std::vector<std::string> read_view_names(const json& v, const std::string& field) {
  if (!v.is_array()) fail(field, "must be an array of names, got " + type_name(v));
  if (v.size() > kMaxViewNames)
    fail(field, "has " + str(v.size()) + " names, more than the limit " + str(kMaxViewNames));
  std::vector<std::string> names;
  for (size_t i = 0; i < v.size(); ++i)
    names.push_back(read_view_string(v[i], field + "[" + str(i) + "]"));
  return names;
}

// Reads the JSON fields; validate_view then checks values against each other and the scenario.
ViewState read_view(const json& j) {
  read_object(j, "view");
  check_keys(j, "view",
             {"step", "head", "batch", "layer", "lang", "panels", "hidden", "embed", "lesson",
              "progress", "train"});
  ViewState v;
  if (j.contains("step")) v.step = read_view_int(j["step"], "view.step", 0, kMaxViewStep);
  if (j.contains("head")) v.head = read_view_int(j["head"], "view.head", 0, kMaxViewIndex);
  if (j.contains("batch")) v.batch = read_view_int(j["batch"], "view.batch", 0, kMaxViewIndex);
  if (j.contains("layer")) v.layer = read_view_int(j["layer"], "view.layer", 0, kMaxViewIndex);
  if (j.contains("lang")) v.lang = read_view_string(j["lang"], "view.lang");
  if (j.contains("panels")) v.panels = read_view_names(j["panels"], "view.panels");
  if (j.contains("hidden")) v.hidden = read_view_names(j["hidden"], "view.hidden");
  if (j.contains("embed")) v.embed = read_bool(j["embed"], "view.embed");
  if (j.contains("lesson")) v.lesson = read_view_string(j["lesson"], "view.lesson");
  if (j.contains("progress")) {
    const json& p = j["progress"];
    if (!p.is_object())
      fail("view.progress", "must be an object {\"lesson\": \"r-\"}, got " + type_name(p));
    if (p.size() > kMaxViewNames)
      fail("view.progress",
           "has " + str(p.size()) + " lessons, more than the limit " + str(kMaxViewNames));
    for (const auto& item : p.items())
      v.progress[item.key()] =
          read_view_string(item.value(), "view.progress." + key_name(item.key()));
  }
  if (j.contains("train")) {
    const json& t = j["train"];
    if (!t.is_object())
      fail("view.train",
           "must be an object {\"task\", \"seed\", \"steps\", \"lr\", "
           "\"optimizer\"}, got " +
               type_name(t));
    check_keys(t, "view.train", {"task", "seed", "steps", "lr", "optimizer"});
    if (!t.contains("task")) fail("view.train.task", "is missing");
    v.train.task = read_view_string(t["task"], "view.train.task");
    if (t.contains("seed"))
      v.train.seed = read_view_int(t["seed"], "view.train.seed", 0, kMaxViewTrainSeed);
    if (t.contains("steps"))
      v.train.steps = read_view_int(t["steps"], "view.train.steps", 0, kMaxViewTrainSteps);
    if (t.contains("lr")) v.train.lr = read_float(t["lr"], "view.train.lr");
    if (t.contains("optimizer")) {
      const std::string o = read_view_string(t["optimizer"], "view.train.optimizer");
      if (!is_optimizer(o))
        fail("view.train.optimizer", "is " + quoted(o) + ", expected " + kOptimizerChoice);
      v.train.adam = o == "adam";
    }
  }
  return v;
}

std::string view_to_json(const ViewState& v) {
  const ViewState d;
  std::string o;
  auto key = [&o](const char* name) {
    o += o.empty() ? "{\"" : ",\"";
    o += name;
    o += "\":";
  };
  auto text = [](const std::string& s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  auto names = [&text](const std::vector<std::string>& list) {
    std::string a = "[";
    for (size_t i = 0; i < list.size(); ++i) a += (i ? "," : "") + text(list[i]);
    return a + "]";
  };
  if (v.step != d.step) key("step"), o += str(v.step);
  if (v.head != d.head) key("head"), o += str(v.head);
  if (v.batch != d.batch) key("batch"), o += str(v.batch);
  if (v.layer != d.layer) key("layer"), o += str(v.layer);
  if (v.lang != d.lang) key("lang"), o += text(v.lang);
  if (!v.panels.empty()) key("panels"), o += names(v.panels);
  if (!v.hidden.empty()) key("hidden"), o += names(v.hidden);
  if (v.embed != d.embed) key("embed"), o += v.embed ? "true" : "false";
  if (!v.lesson.empty()) key("lesson"), o += text(v.lesson);
  if (!v.progress.empty()) {
    key("progress");
    std::string m = "{";
    for (const auto& [lesson, marks] : v.progress)
      m += (m.size() > 1 ? "," : "") + text(lesson) + ":" + text(marks);
    o += m + "}";
  }
  if (!v.train.task.empty()) {
    char lr[32];
    std::snprintf(lr, sizeof lr, "%.9g", static_cast<double>(v.train.lr));
    key("train");
    o += "{\"task\":" + text(v.train.task) + ",\"seed\":" + str(v.train.seed) +
         ",\"steps\":" + str(v.train.steps) + ",\"lr\":" + lr +
         ",\"optimizer\":" + (v.train.adam ? "\"adam\"" : "\"sgd\"") + "}";
  }
  return o.empty() ? o : o + "}";
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Encoding
//-----------------------------------------------------------------------------

std::string encode_link(const Scenario& s, const ViewState& v) {
  std::string text = "{\"scenario\":" + to_json(s);
  const std::string view = view_to_json(v);
  if (!view.empty()) text += ",\"view\":" + view;
  text += '}';
  const std::string link = "v" + std::to_string(kLinkVersion) + "." + base64url_encode(text);
  return link + "." + checksum_text(crc32(link));
}

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Decoding
//-----------------------------------------------------------------------------

// scenario::parse's "<field>: <problem>" as a part of the link.
std::string scenario_error(const std::string& e) {
  if (e.rfind("scenario: ", 0) == 0) return "link." + e;
  if (e.rfind("json: ", 0) == 0) return "link.scenario: " + e;
  return "link.scenario." + e;
}

// "v<digits>." at the start of the fragment: the version, or -1 when there is none.
long parse_version(const std::string& f, size_t* payload) {
  if (f.empty() || f[0] != 'v') return -1;
  size_t i = 1;
  long version = 0;
  while (i < f.size() && i <= 9 && f[i] >= '0' && f[i] <= '9')
    version = version * 10 + (f[i++] - '0');
  if (i == 1 || i >= f.size() || f[i] != '.') return -1;
  *payload = i + 1;
  return version;
}

LinkResult decode(const std::string& fragment) {
  LinkResult r;
  auto failed = [&r](const std::string& error) {
    r.error = error;
    return r;
  };
  const size_t skip = !fragment.empty() && fragment[0] == '#' ? 1 : 0;
  const size_t size = fragment.size() - skip;
  if (size == 0) return failed("link: is empty");
  if (size > kMaxLinkChars)
    return failed("link: is " + std::to_string(size) + " characters, more than the limit " +
                  std::to_string(kMaxLinkChars));
  std::string f = fragment.substr(skip);

  // The checksum, when the link has one: before anything else is read from it.
  const size_t last_dot = f.rfind('.');
  if (last_dot != std::string::npos && f.size() - last_dot - 1 == kLinkChecksumChars) {
    if (!checksum_matches(f, last_dot + 1, last_dot)) return failed(kDamaged);
    f.resize(last_dot);
  }

  size_t payload = 0;
  const long version = parse_version(f, &payload);
  const std::string ours = "v" + std::to_string(kLinkVersion);
  if (version < 0) return failed("link: not a playground link (expected \"" + ours + ".\")");
  const std::string theirs = f.substr(0, payload - 1);
  if (version > kLinkVersion)
    return failed("link: version \"" + theirs + "\" is newer than this playground (" + ours + ")");
  if (version != kLinkVersion)
    return failed("link: version \"" + theirs + "\" is not supported (this playground reads " +
                  ours + ")");
  if (payload == f.size()) return failed("link: truncated (nothing after \"" + ours + ".\")");
  // A '.' after the version's is what is left of a checksum cut short.
  const size_t extra_dot = f.find('.', payload);
  if (extra_dot != std::string::npos)
    return failed("link: damaged or cut short (its checksum after the last '.' has " +
                  std::to_string(f.size() - f.rfind('.') - 1) + " characters, expected " +
                  std::to_string(kLinkChecksumChars) + ")");

  std::string text, error;
  size_t chars = 0;
  if (!base64url_decode(f, payload, &chars, &text, &error)) return failed(error);

  json j;
  const JsonError e = json_util::read_json(text, &j);
  switch (e.kind) {
    case JsonError::Kind::kNone:
      break;
    case JsonError::Kind::kValue:
      return failed((e.path.empty() ? "link" : "link." + e.path) + ": " + e.message);
    case JsonError::Kind::kTooLarge:
      return failed("link: the JSON " + e.message);
    case JsonError::Kind::kTruncated:
      return failed("link: truncated (the JSON ends early: " + e.message + ")");
    case JsonError::Kind::kSyntax:
      return failed("link: invalid JSON: " + e.message);
  }
  if (!j.is_object())
    return failed("link: must be a JSON object {\"scenario\": ..., \"view\": ...}, got " +
                  type_name(j));
  for (const auto& item : j.items())
    if (item.key() != "scenario" && item.key() != "view")
      return failed("link." + key_name(item.key()) + ": unknown field");
  if (!j.contains("scenario")) return failed("link.scenario: missing");

  ParseResult parsed = json_util::parse_value(j["scenario"]);
  if (!parsed.ok()) return failed(scenario_error(parsed.error));
  r.scenario = std::move(parsed.scenario);
  r.problem = std::move(parsed.problem);
  if (j.contains("view")) {
    try {
      r.view = read_view(j["view"]);
    } catch (const FieldError& e) {
      return failed("link." + e.message);
    }
  }
  const std::string view_error = validate_view(r.view, r.scenario).error;
  if (!view_error.empty()) return failed("link." + view_error);
  return r;
}

// Whether a link that would not decode is a link with a checksum whose '.' before it was
// changed into another character (it then reads as a link without one).
bool lost_checksum_dot(const std::string& fragment) {
  const size_t skip = !fragment.empty() && fragment[0] == '#' ? 1 : 0;
  const std::string f = fragment.substr(skip);
  if (f.size() < kLinkChecksumChars + 4) return false;
  const size_t at = f.size() - kLinkChecksumChars;
  return f[at - 1] != '.' && checksum_matches(f, at, at - 1);
}

}  // namespace

LinkResult decode_link(const std::string& fragment) {
  LinkResult r;
  try {
    r = decode(fragment);
    if (!r.ok() && fragment.size() <= kMaxLinkChars + 1 && lost_checksum_dot(fragment))
      r.error = kDamaged;
  } catch (const std::exception& e) {  // not expected; a link must never take the page down
    r = LinkResult();
    r.error = std::string("link: cannot be read (") + e.what() + ")";
  }
  if (!r.ok()) {
    r.error = json_util::one_line(r.error, kMaxErrorBytes);
    r.scenario = Scenario();
    r.problem = attn::Problem();
    r.view = ViewState();
  }
  return r;
}

}  // namespace scenario
