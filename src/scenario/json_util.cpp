// JSON helpers shared by the scenario reader, the link codec and the exports.
//
// [SECTION] Reading with a depth limit and paths
// [SECTION] Field errors and names
// [SECTION] Typed fields
// [SECTION] One-line text
#include "scenario/json_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace scenario::json_util {

//-----------------------------------------------------------------------------
// [SECTION] Reading with a depth limit and paths
//-----------------------------------------------------------------------------

namespace {

// A SAX handler that checks a document against the limits and keeps the path of the value
// being read, so that errors name it ("x[0][1]"); with a DOM to fill it builds it too, like
// nlohmann's own parser.
class BoundedSax {
 public:
  BoundedSax(json* root, size_t text_size) : text_size_(text_size) {
    // A pointer, not a std::optional: GCC 12 at -O1 with the sanitizers (the native-debug
    // preset) took optional::emplace for a read of the never-engaged payload
    // (-Wmaybe-uninitialized).
    if (root) dom_ = std::make_unique<nlohmann::detail::json_sax_dom_parser<json>>(*root, false);
  }

  bool null() { return value() && (!dom_ || dom_->null()); }
  bool boolean(bool v) { return value() && (!dom_ || dom_->boolean(v)); }
  bool number_integer(json::number_integer_t v) {
    return number() && (!dom_ || dom_->number_integer(v));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return number() && (!dom_ || dom_->number_unsigned(v));
  }
  bool number_float(json::number_float_t v, const std::string& s) {
    return number() && (!dom_ || dom_->number_float(v, s));
  }
  bool string(std::string& v) {
    return value() && grow(kStringBytes + heap_text(v)) && (!dom_ || dom_->string(v));
  }
  bool binary(json::binary_t& v) { return value() && (!dom_ || dom_->binary(v)); }
  bool start_object(std::size_t n) { return open(false) && (!dom_ || dom_->start_object(n)); }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (++f.count > kMaxArrayLength)
      return value_error("has more than " + std::to_string(kMaxArrayLength) + " members", 1);
    if (!grow(kMemberBytes + heap_text(k))) return false;
    if (!f.keys.insert(k).second) return value_error("appears twice in its object");
    return !dom_ || dom_->key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return !dom_ || dom_->end_object();
  }
  bool start_array(std::size_t n) { return open(true) && (!dom_ || dom_->start_array(n)); }
  bool end_array() {
    frames_.pop_back();
    return !dom_ || dom_->end_array();
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    const std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    const size_t at = what.find("] ");
    error.message = at == std::string::npos ? what : what.substr(at + 2);
    if (e.id == 406) {  // a number that overflows a double, such as 1e999
      error.kind = JsonError::Kind::kValue;
      error.path = next_path();
      error.message = "is not a finite number";
    } else if (position >= text_size_ ||
               what.find("unexpected end of input") != std::string::npos) {
      error.kind = JsonError::Kind::kTruncated;
    } else {
      error.kind = JsonError::Kind::kSyntax;
    }
    return false;
  }

  JsonError error;

 private:
  struct Frame {
    bool array;
    size_t count;  // values seen so far in an array, members in an object
    std::string key;
    std::set<std::string> keys;  // an object's keys so far
  };

  // What nlohmann's tree takes (kMaxTreeBytes), in bytes with malloc's own 16 an allocation.
  static constexpr size_t kValueBytes = 16;        // a json value, in its array's buffer
  static constexpr size_t kArrayBytes = 32;        // the std::vector it points to
  static constexpr size_t kObjectBytes = 64;       // the std::map
  static constexpr size_t kMemberBytes = 96;       // a map node: its key and value
  static constexpr size_t kStringBytes = 48;       // the std::string a string value points to
  static size_t heap_text(const std::string& s) {  // a string's text, past 15 bytes
    return s.size() > 15 ? s.size() + 32 : 0;
  }

  // Counts bytes of the tree; false (and the error) past kMaxTreeBytes.
  bool grow(size_t bytes) {
    tree_bytes_ += bytes;
    if (tree_bytes_ <= kMaxTreeBytes) return true;
    error.kind = JsonError::Kind::kTooLarge;
    error.message = "holds too many values (their tree would take more than " +
                    std::to_string(kMaxTreeBytes >> 20) + " MB)";
    return false;
  }

  // A value (scalar or container) starts in the innermost container. In an array it takes a
  // slot of the array's buffer, which doubles when full (counted when it does); in an object
  // its node was counted with the key.
  bool value() {
    if (frames_.empty()) return grow(kValueBytes);
    Frame& f = frames_.back();
    if (!f.array) return true;
    const size_t n = ++f.count;
    if (n > kMaxArrayLength)
      return value_error("has more than " + std::to_string(kMaxArrayLength) + " elements", 1);
    if (n == 1) return grow(kValueBytes + 16);                         // capacity 1
    if (((n - 1) & (n - 2)) == 0) return grow(kValueBytes * (n - 1));  // 2(n - 1) from n - 1
    return true;
  }

  bool number() {
    if (!value()) return false;
    if (++numbers_ <= kMaxNumbers) return true;
    error.kind = JsonError::Kind::kTooLarge;
    error.message = "holds more than " + std::to_string(kMaxNumbers) + " numbers";
    return false;
  }

  bool open(bool array) {
    if (!value()) return false;
    if (frames_.size() >= kMaxDepth) {
      error.kind = JsonError::Kind::kTooLarge;
      error.message = "nests deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    frames_.push_back({array, 0, "", {}});
    return grow(array ? kArrayBytes : kObjectBytes);
  }

  // An error about the value about to be read (up = 1: about its container).
  bool value_error(const std::string& problem, size_t up = 0) {
    error.kind = JsonError::Kind::kValue;
    error.path = next_path(up);
    error.message = problem;
    return false;
  }

  // The path of the value about to be read, or of a container `up` levels above it.
  std::string next_path(size_t up = 0) const {
    std::string path;
    const size_t depth = frames_.size() - std::min(up, frames_.size());
    for (size_t i = 0; i < depth; ++i) {
      const Frame& f = frames_[i];
      const bool last = i + 1 == frames_.size();
      if (f.array) {
        path += "[" + std::to_string(last ? f.count : f.count - 1) + "]";
      } else {
        path += (path.empty() ? "" : ".") + key_name(f.key);
      }
    }
    return path;
  }

  std::unique_ptr<nlohmann::detail::json_sax_dom_parser<json>> dom_;
  size_t text_size_;
  size_t numbers_ = 0;
  size_t tree_bytes_ = 0;
  std::vector<Frame> frames_;
};

JsonError sax_pass(const std::string& text, json* out) {
  BoundedSax sax(out, text.size());
  if (!json::sax_parse(text, &sax) && sax.error.ok()) {
    sax.error.kind = JsonError::Kind::kSyntax;
    sax.error.message = "parse error";
  }
  return sax.error;
}

}  // namespace

bool read_plain_decimal(const char* s, double* value, const char** end) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const char* p = s;
  const bool negative = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  uint64_t w = 0;  // the significant digits as an integer
  int digits = 0;  // how many, from the first non-zero one
  int exp10 = 0;   // value = w · 10^exp10
  bool any = false;
  for (; digit(*p); ++p, any = true) {
    if (w == 0 && *p == '0') continue;  // a leading zero
    if (++digits > 19) return false;
    w = w * 10 + static_cast<uint64_t>(*p - '0');
  }
  if (*p == '.') {
    ++p;
    for (; digit(*p); ++p, any = true) {
      --exp10;
      if (w == 0 && *p == '0') continue;
      if (++digits > 19) return false;
      w = w * 10 + static_cast<uint64_t>(*p - '0');
    }
  }
  if (!any) return false;                    // ".", "-", "inf", "nan", …
  if (*p == 'x' || *p == 'X') return false;  // "0x1p3": hexadecimal
  if (*p == 'e' || *p == 'E') {
    const char* q = p + 1;
    const bool minus = *q == '-';
    if (*q == '-' || *q == '+') ++q;
    if (!digit(*q)) return false;  // strtod stops before the 'e': let it
    int e = 0;
    for (; digit(*q); ++q) {
      if (e > 100000) return false;
      e = e * 10 + (*q - '0');
    }
    exp10 += minus ? -e : e;
    p = q;
  }
  double v;
  if (w == 0) {
    v = 0.0;
  } else {
    // w is exact as a double, so the one rounding is the correct one.
    if (w > (uint64_t{1} << 53) || !times_pow10(static_cast<double>(w), exp10, &v)) return false;
  }
  *value = negative ? -v : v;
  *end = p;
  return true;
}

JsonError read_json(const std::string& text, json* out) {
  *out = json();
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    JsonError e;
    e.kind = JsonError::Kind::kTooLarge;
    e.message = "has a NUL byte at position " + std::to_string(nul);
    return e;
  }
  // The building pass checks every limit too, before it builds past it; the first pass only
  // keeps a large bad document from being half built: up to kMaxTreeBytes (256 MB) before it
  // is refused. A text of at most kOnePassBytes holds at most half as many values as bytes,
  // whose DOM is at most about 50 MB: it is read once (reading it twice took half the time of
  // a 1 MB scenario in WebAssembly).
  JsonError e;
  if (text.size() > kOnePassBytes) e = sax_pass(text, nullptr);  // the check: nothing is built
  if (e.ok()) e = sax_pass(text, out);
  if (!e.ok()) *out = json();
  return e;
}

//-----------------------------------------------------------------------------
// [SECTION] Field errors and names
//-----------------------------------------------------------------------------

void fail(const std::string& field, const std::string& problem) {
  throw FieldError{field + ": " + problem};
}

std::string type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

std::string quoted(const std::string& s) {
  std::string q = json(s.substr(0, 32)).dump(-1, ' ', true, json::error_handler_t::replace);
  return s.size() > 32 ? q.substr(0, q.size() - 1) + "…\"" : q;
}

std::string key_name(const std::string& key) {
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return quoted(key);
  return key.empty() ? "\"\"" : key;
}

//-----------------------------------------------------------------------------
// [SECTION] Typed fields
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

void check_keys(const json& obj, const std::string& field, const std::set<std::string>& known) {
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (!known.count(key))
      fail(field.empty() ? key_name(key) : field + "." + key_name(key), "unknown field");
  }
}

const json& read_object(const json& v, const std::string& field) {
  if (!v.is_object()) fail(field, "must be an object, got " + type_name(v));
  return v;
}

//-----------------------------------------------------------------------------
// [SECTION] One-line text
//-----------------------------------------------------------------------------

std::string one_line(const std::string& s, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max_bytes) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 0;
    bool valid = len > 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      out += '?';
      ++i;
      continue;
    }
    const std::string ch = s.substr(i, len);
    if (c == '\n' || c == '\r' || c == '\t' || ch == "\xC2\x85" || ch == "\xE2\x80\xA8" ||
        ch == "\xE2\x80\xA9") {
      out += ' ';  // a line break or a tab: one line, words kept apart
    } else if (len == 1 && (c < 0x20 || c == 0x7f)) {
      out += '?';
    } else {
      out += ch;
    }
    i += len;
  }
  if (i < s.size()) out += "…";
  return out;
}

}  // namespace scenario::json_util
