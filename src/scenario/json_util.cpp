// JSON helpers shared by the scenario reader, the link codec and the exports.
//
// [SECTION] Reading with a depth limit and paths
// [SECTION] Field errors and names
// [SECTION] One-line text
#include "scenario/json_util.h"

#include <cctype>
#include <string>
#include <vector>

namespace scenario::json_util {

//-----------------------------------------------------------------------------
// [SECTION] Reading with a depth limit and paths
//-----------------------------------------------------------------------------

namespace {

// Builds the DOM like nlohmann's own parser, refusing nesting deeper than kMaxDepth and
// keeping the path of the value being read, so that a number too large for a double is
// reported where it stands ("x[0][1]").
class BoundedSax {
 public:
  BoundedSax(json* root, size_t text_size) : dom_(*root, false), text_size_(text_size) {}

  bool null() { return value(), dom_.null(); }
  bool boolean(bool v) { return value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) {
    return value(), dom_.number_float(v, s);
  }
  bool string(std::string& v) { return value(), dom_.string(v); }
  bool binary(json::binary_t& v) { return value(), dom_.binary(v); }
  bool start_object(std::size_t n) { return open(false) && dom_.start_object(n); }
  bool key(std::string& k) {
    frames_.back().key = k;
    return dom_.key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return open(true) && dom_.start_array(n); }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    const std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    const size_t at = what.find("] ");
    error.message = at == std::string::npos ? what : what.substr(at + 2);
    if (e.id == 406) {  // a number that overflows a double, such as 1e999
      error.kind = JsonError::Kind::kOverflow;
      error.path = next_path();
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
    size_t count;  // values seen so far in an array
    std::string key;
  };

  // A value (scalar or container) starts in the innermost container.
  void value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
  }

  bool open(bool array) {
    value();
    if (frames_.size() >= kMaxDepth) {
      error.kind = JsonError::Kind::kTooDeep;
      return false;
    }
    frames_.push_back({array, 0, ""});
    return true;
  }

  // The path of the value about to be read.
  std::string next_path() const {
    std::string path;
    for (size_t i = 0; i < frames_.size(); ++i) {
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

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  size_t text_size_;
  std::vector<Frame> frames_;
};

}  // namespace

JsonError read_json(const std::string& text, json* out) {
  BoundedSax sax(out, text.size());
  if (!json::sax_parse(text, &sax) && sax.error.ok()) {
    sax.error.kind = JsonError::Kind::kSyntax;
    sax.error.message = "parse error";
  }
  if (!sax.error.ok()) *out = json();
  return sax.error;
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
