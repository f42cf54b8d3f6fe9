// The pieces of text scenario JSON is made of (json_write_internal.h): numbers that read back
// exactly, matrices, weights, batches, keys, strings, texts and tokens.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/json_write_internal.h"
#include "scenario/scenario.h"

namespace scenario::json_write_internal {

using nlohmann::json;

void append_number(std::string* out, float v) {
  char buf[48];
  const int n = format_float_to(buf, v);
  if (!std::isfinite(v)) *out += '"';
  out->append(buf, static_cast<size_t>(n));
  if (!std::isfinite(v)) *out += '"';
}

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

// A weight as scenario JSON writes it: a matrix as rows, w_v as one row.
void append_weight(std::string* out, const attn::Matrix& m) {
  append_matrix(out, m);
}
void append_weight(std::string* out, const attn::Vector& v) {
  *out += '[';
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i) *out += ',';
    append_number(out, v(i));
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

}  // namespace scenario::json_write_internal
