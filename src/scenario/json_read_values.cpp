// Scenario JSON v1 read, its values: matrices and vectors (arrays of numbers, or binary
// {"shape", "buffer"} fields), batches, and tokens or names in English and Chinese, with
// JSON-path errors, on the typed-field readers of json_util.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/json_read_internal.h"
#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario::json_read_internal {

// The float arrays of the scenario being read (parse with arrays), for "buffer" fields.
thread_local const std::vector<FloatArray>* t_arrays = nullptr;

namespace {

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

}  // namespace

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

// A weight as scenario JSON gives it: a matrix, or w_v's vector.
void read_weight(const json& v, const std::string& field, attn::Matrix* m) {
  *m = read_matrix(v, field);
}
void read_weight(const json& v, const std::string& field, attn::Vector* w) {
  *w = read_vector(v, field);
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

}  // namespace scenario::json_read_internal
