// NumPy's .npy and .npz files as scenario data (see npz.h): their headers, and arrays as fields.
//
// [SECTION] .npy headers
// [SECTION] .npz (ZIP) headers
// [SECTION] Arrays as scenario fields
#include "scenario/npz.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "scenario/json_util.h"
#include "scenario/npz_internal.h"

namespace scenario {

//-----------------------------------------------------------------------------
// [SECTION] .npy headers
//-----------------------------------------------------------------------------

namespace {

// The value after 'key': in the header's Python dict literal, as text (a quoted string, a
// word, or a parenthesised tuple); "" when the key is missing.
std::string header_value(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t at = header.find(':', k);
  if (at == std::string::npos) return "";
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at >= header.size()) return "";
  const char open = header[at];
  const char close = open == '(' ? ')' : open == '\'' ? '\'' : open == '"' ? '"' : ',';
  const size_t end = header.find(close, at + 1);
  if (end == std::string::npos) return "";
  return close == ',' ? header.substr(at, end - at) : header.substr(at + 1, end - at - 1);
}

uint64_t little_endian(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// The header of an .npy of `total` bytes whose first `available` are at p, into *h (its
// name and place are the caller's). "" or the problem; when the header reaches past
// `available` (but not `total`), "" with *need set to the bytes it takes.
std::string parse_npy(const unsigned char* p, size_t available, size_t total, ArrayHeader* h,
                      size_t* need) {
  *need = 0;
  if (total < 10 || available < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0)
    return "not a NumPy .npy file (it does not start with \\x93NUMPY)";
  const int major = p[6];
  if (major < 1 || major > 3) return "version " + std::to_string(major) + " is unknown";
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (total < 8 + length_bytes || available < 8 + length_bytes) return "the header ends early";
  const size_t header_len = little_endian(p + 8, static_cast<int>(length_bytes));
  if (header_len > total - 8 - length_bytes) return "the header ends early";
  if (header_len > kMaxNpyHeaderBytes)
    return "the header is longer than " + std::to_string(kMaxNpyHeaderBytes) + " bytes";
  const size_t data_at = 8 + length_bytes + header_len;
  if (data_at > available) {
    *need = data_at;
    return "";
  }
  const std::string header(reinterpret_cast<const char*>(p + 8 + length_bytes), header_len);

  const std::string descr = header_value(header, "descr");
  if (descr.size() < 3) return "the header has no dtype ('descr')";
  const char order = descr[0], kind = descr[1];
  const int size = std::atoi(descr.c_str() + 2);
  const bool known =
      (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
      ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
      (kind == 'b' && size == 1);
  if (!known || (order != '<' && order != '>' && order != '|'))
    return "dtype " + json_util::quoted(descr) +
           " is not a number type (float16/32/64, int, uint or bool)";
  h->kind = kind;
  h->item_bytes = size;
  h->big_endian = order == '>';
  h->fortran = header_value(header, "fortran_order") == "True";

  const std::string shape = header_value(header, "shape");
  const std::string shown = json_util::one_line(shape, 40);  // as errors show it
  const std::string too_many = "has more than " + std::to_string(kMaxArrayNumbers) + " numbers";
  size_t count = 1;
  h->shape.clear();
  for (size_t at = 0; at < shape.size();) {
    while (at < shape.size() && (shape[at] == ' ' || shape[at] == ',')) ++at;
    if (at >= shape.size()) break;
    char* end = nullptr;
    const long long d = std::strtoll(shape.c_str() + at, &end, 10);
    if (end == shape.c_str() + at || d < 0) return "the shape (" + shown + ") is not sizes";
    h->shape.push_back(static_cast<size_t>(d));
    if (d > 0 && count > kMaxArrayNumbers / static_cast<size_t>(d)) return too_many;
    count *= static_cast<size_t>(d);
    at = static_cast<size_t>(end - shape.c_str());
  }
  if (count > kMaxArrayNumbers) return too_many;
  h->count = count;
  h->data_at = data_at;
  h->npy_bytes = total;
  if (total - data_at < count * static_cast<size_t>(size))
    return "holds " + std::to_string((total - data_at) / size) + " numbers, " + "its shape (" +
           shown + ") says " + std::to_string(count);
  return "";
}

}  // namespace

HeadersResult read_npy_header(const std::string& bytes, const std::string& name) {
  HeadersResult r;
  ArrayHeader h;
  h.name = name;
  h.at = 0;
  size_t need = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  r.error = parse_npy(p, bytes.size(), bytes.size(), &h, &need);
  if (r.ok()) r.arrays.push_back(std::move(h));
  return r;
}

//-----------------------------------------------------------------------------
// [SECTION] .npz (ZIP) headers
//-----------------------------------------------------------------------------

HeadersResult read_npz_headers(const std::string& bytes) {
  HeadersResult r;
  auto failed = [&](const std::string& problem) {
    r.arrays.clear();
    r.error = problem;
    return r;
  };
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  // The end of central directory record: 22 bytes and a comment of up to 65535.
  size_t eocd = std::string::npos;
  for (size_t at = n >= 22 ? n - 22 : 0; n >= 22; --at) {
    if (little_endian(p + at, 4) == 0x06054b50) {
      eocd = at;
      break;
    }
    if (at == 0 || n - at > 22 + 65535) break;
  }
  if (eocd == std::string::npos) return failed("not a ZIP file (no end of central directory)");
  const size_t entries = little_endian(p + eocd + 10, 2);
  const size_t cd_size = little_endian(p + eocd + 12, 4);
  const size_t cd_at = little_endian(p + eocd + 16, 4);
  if (cd_at == 0xffffffff || entries == 0xffff)
    return failed("is a ZIP64 archive (over 4 GB), which this reader does not read");
  if (cd_at + cd_size > eocd) return failed("the central directory is out of the file");
  size_t at = cd_at, total = 0;
  for (size_t e = 0; e < entries; ++e) {
    if (at + 46 > eocd || little_endian(p + at, 4) != 0x02014b50)
      return failed("the central directory is corrupt");
    const size_t flags = little_endian(p + at + 8, 2);
    const int method = static_cast<int>(little_endian(p + at + 10, 2));
    const uint32_t crc = static_cast<uint32_t>(little_endian(p + at + 16, 4));
    const size_t compressed = little_endian(p + at + 20, 4);
    const size_t size = little_endian(p + at + 24, 4);
    const size_t name_len = little_endian(p + at + 28, 2);
    const size_t extra_len = little_endian(p + at + 30, 2);
    const size_t comment_len = little_endian(p + at + 32, 2);
    const size_t local = little_endian(p + at + 42, 4);
    if (at + 46 + name_len > eocd) return failed("the central directory is corrupt");
    const std::string entry_name = bytes.substr(at + 46, name_len);
    const std::string entry = json_util::one_line(entry_name, 60);  // as errors show it
    at += 46 + name_len + extra_len + comment_len;
    if (entry_name.size() < 4 || entry_name.compare(entry_name.size() - 4, 4, ".npy") != 0)
      continue;
    ArrayHeader h;
    h.name = entry_name.substr(0, entry_name.size() - 4);
    h.entry = entry;
    if (local + 30 > n || little_endian(p + local, 4) != 0x04034b50)
      return failed(entry + ": its local header is corrupt");
    const size_t data_at =
        local + 30 + little_endian(p + local + 26, 2) + little_endian(p + local + 28, 2);
    if (compressed == 0xffffffff || size == 0xffffffff)
      return failed(entry + ": is over 4 GB (ZIP64), which this reader does not read");
    if (data_at + compressed > n) return failed(entry + ": its data is out of the file");
    if (flags & 1) return failed(entry + ": is encrypted, which this reader does not read");
    if (method != 0 && method != 8)
      return failed(entry + ": compression method " + std::to_string(method) +
                    " is not stored or deflate");
    h.method = method;
    h.at = data_at;
    h.stored_bytes = compressed;
    h.crc32 = crc;
    const std::string wrong_size = entry + ": inflates to a size its header does not give";
    size_t need = 0;
    std::string problem;
    // Deflate makes at most 258 bytes of 2 bits (a length and a distance code of one bit
    // each): a size past that is a lie, refused before anything of its size is made.
    if (method == 8 && (size - std::min<size_t>(size, 258)) / 1032 > compressed)
      return failed(wrong_size);
    if (method == 0) {
      if (compressed != size) return failed(wrong_size);
      problem = parse_npy(p + data_at, size, size, &h, &need);
    } else {
      // Only the .npy header is inflated: its first bytes, then (a long header) the rest.
      std::string prefix;
      for (size_t want = std::min<size_t>(size, 1024);;) {
        prefix.clear();
        detail::StringOutput to(&prefix);
        problem = detail::inflate_into(p + data_at, compressed, want, true, &to);
        if (!problem.empty()) return failed(entry + ": " + problem);
        if (prefix.size() < want) return failed(wrong_size);  // the stream ends before
        problem = parse_npy(reinterpret_cast<const unsigned char*>(prefix.data()), prefix.size(),
                            size, &h, &need);
        if (!problem.empty() || need == 0) break;
        want = need;
      }
    }
    if (!problem.empty()) return failed(entry + ": " + problem);
    total += h.count;
    if (total > kMaxFileNumbers)
      return failed("holds more than " + std::to_string(kMaxFileNumbers) + " numbers");
    r.arrays.push_back(std::move(h));
  }
  if (r.arrays.empty()) return failed("holds no .npy array");
  return r;
}

HeadersResult read_array_headers(const std::string& bytes, const std::string& file_name) {
  HeadersResult r;
  if (bytes.compare(0, 6, "\x93NUMPY") == 0) {
    std::string name = file_name.substr(file_name.find_last_of("/\\") + 1);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    r = read_npy_header(bytes, name);
  } else {
    r = read_npz_headers(bytes);
  }
  if (!r.ok()) r.error = json_util::one_line(file_name, 80) + ": " + r.error;
  return r;
}

//-----------------------------------------------------------------------------
// [SECTION] Arrays as scenario fields
//-----------------------------------------------------------------------------

namespace {

bool is_input(const std::string& name) {
  return std::find(std::begin(kInputNames), std::end(kInputNames), name) != std::end(kInputNames);
}

bool is_weight(const std::string& name) {
  const auto& weights = attn::kWeightNames;
  return std::find(std::begin(weights), std::end(weights), name) != std::end(weights);
}

// A token model's matrices, set as the weights are: 2-D.
bool is_token_matrix(const std::string& name) {
  return name == "embed" || name == "unembed";
}

// "layers.L.NAME": layer L's weight NAME (L a number written without leading zeros, NAME one
// of kWeightNames), as a stack's weights are named in PyTorch's state dicts. The layer's
// number, or -1 when `name` is not such (its number may be past kMaxLayers: the caller says
// so); *weight is NAME.
long layer_field(const std::string& name, std::string* weight) {
  static const std::string prefix = "layers.";
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  const size_t dot = name.find('.', prefix.size());
  if (dot == std::string::npos || dot == prefix.size() || dot - prefix.size() > 6) return -1;
  const std::string digits = name.substr(prefix.size(), dot - prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  if (digits.size() > 1 && digits[0] == '0') return -1;
  *weight = name.substr(dot + 1);
  if (!is_weight(*weight)) return -1;
  return std::stol(digits);
}

bool is_array_field(const std::string& name) {
  std::string weight;
  return is_input(name) || is_weight(name) || is_token_matrix(name) ||
         layer_field(name, &weight) >= 0;
}

}  // namespace

std::string check_array_field(const std::string& name, const std::vector<size_t>& shape) {
  if (!is_array_field(name)) {
    std::string known;
    for (const char* f : kInputNames) known += std::string(known.empty() ? "" : ", ") + f;
    for (const char* f : attn::kWeightNames) known += std::string(", ") + f;
    known += ", embed, unembed, and layers.0.W_q … for a layer's weights";
    return json_util::key_name(name) + ": is not a matrix field (" + known + ")";
  }
  std::string weight;
  const long layer = layer_field(name, &weight);
  if (layer >= kMaxLayers)
    return name + ": names layer " + std::to_string(layer) + ", past the limit of " +
           std::to_string(kMaxLayers) + " layers (layers.0 to layers." +
           std::to_string(kMaxLayers - 1) + ")";
  const std::string& matrix = layer >= 0 ? weight : name;
  // As the scenario reads {"shape": [...]} (json_read_values.cpp, read_shape): inputs are
  // 2-D or [batch, rows, cols], weights 2-D, w_v 1-D; the last size is columns, the one
  // before rows, the one before that the batch.
  const bool input = is_input(matrix);
  const size_t lo = input ? 2 : matrix == "w_v" ? 1 : 2, hi = input ? 3 : lo;
  const std::string where = name + ".shape";
  if (shape.size() < lo || shape.size() > hi)
    return where + ": " +
           (lo == hi ? "must be [" + std::string(lo == 1 ? "n" : "rows, cols") + "]"
                     : "must be [rows, cols] or [batch, rows, cols]");
  const size_t n = shape.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t limit = static_cast<size_t>(i + 1 == n   ? kMaxCols
                                             : i + 2 == n ? kMaxRows
                                                          : kMaxBatch);
    const std::string at = where + "[" + std::to_string(i) + "]: is " + std::to_string(shape[i]);
    if (shape[i] < 1) return at + ", must be at least 1";
    if (shape[i] > limit) return at + ", must be at most " + std::to_string(limit);
  }
  return "";
}

namespace {

// parse_with_arrays for n arrays: name(k), shape(k) and numbers(k) of each. An array named
// "layers.L.W_q" sets layer L's W_q: in the scenario's "layers" when it has them (L must be
// one of them), else in layers the arrays make, one for each L from 0 up, none left without
// an array.
template <typename NameOf, typename ShapeOf, typename NumbersOf>
ParseResult parse_fields(const std::string& json_text, size_t n, NameOf name, ShapeOf shape,
                         NumbersOf numbers) {
  ParseResult r;
  nlohmann::json j;
  const json_util::JsonError e = json_util::read_json(json_text, &j);
  if (!e.ok() || !j.is_object()) {
    r = parse(json_text);  // the same errors as the JSON alone
    if (r.ok()) r.error = "scenario: must be a JSON object";
    return r;
  }
  const bool had_layers = j.contains("layers");
  std::vector<std::string> layer_named;  // made layers: an array's name for each
  std::vector<FloatArray> buffers;
  for (size_t k = 0; k < n; ++k) {
    const std::string& a = name(k);
    // A name no field has, a layer past the limit, a shape no field of the name may have.
    if (std::string problem = check_array_field(a, shape(k)); !problem.empty()) {
      r.error = std::move(problem);
      return r;
    }
    const nlohmann::json field = {{"shape", shape(k)}, {"buffer", buffers.size()}};
    std::string weight;
    if (const long layer = layer_field(a, &weight); layer >= 0) {
      const size_t l = static_cast<size_t>(layer);
      if (had_layers) {
        nlohmann::json& layers = j["layers"];
        if (!layers.is_array() || layers.empty()) continue;  // parse says what it must be
        if (l >= layers.size()) {
          r.error = a + ": the scenario has " + std::to_string(layers.size()) +
                    (layers.size() == 1 ? " layer (layers.0)"
                                        : " layers (layers.0 to layers." +
                                              std::to_string(layers.size() - 1) + ")");
          return r;
        }
        if (!layers[l].is_object()) continue;  // parse names the layer that is not an object
        layers[l][weight] = field;
      } else {
        if (l >= layer_named.size()) layer_named.resize(l + 1);
        layer_named[l] = a;
        j["layers"][l][weight] = field;  // null entries become objects as they are named
      }
    } else {
      if (a == "x") {
        for (const char* other : {"queries", "keys", "values"}) j.erase(other);
      } else if (a == "queries" || a == "keys" || a == "values") {
        j.erase("x");
      }
      j[a] = field;
    }
    buffers.push_back(numbers(k));
  }
  for (size_t l = 0; l < layer_named.size(); ++l) {
    if (!layer_named[l].empty()) continue;
    r.error = "layers." + std::to_string(l) + ": no array is named for this layer (" +
              layer_named.back() + " is): a stack's layers are numbered from 0 without a gap";
    return r;
  }
  return json_util::parse_value(j, buffers);
}

}  // namespace

ParseResult parse_with_arrays(const std::string& json_text, const std::vector<NamedArray>& arrays) {
  return parse_fields(
      json_text, arrays.size(), [&](size_t k) -> const std::string& { return arrays[k].name; },
      [&](size_t k) -> const std::vector<size_t>& { return arrays[k].shape; },
      [&](size_t k) {
        return FloatArray{arrays[k].data.data(), arrays[k].data.size()};
      });
}

ParseResult parse_with_arrays(const std::string& json_text, const std::vector<ArrayHeader>& headers,
                              const std::vector<FloatArray>& numbers) {
  if (numbers.size() != headers.size()) {
    ParseResult r;
    r.error = "scenario: " + std::to_string(numbers.size()) + " arrays of numbers for " +
              std::to_string(headers.size()) + " arrays";
    return r;
  }
  return parse_fields(
      json_text, headers.size(), [&](size_t k) -> const std::string& { return headers[k].name; },
      [&](size_t k) -> const std::vector<size_t>& { return headers[k].shape; },
      [&](size_t k) { return numbers[k]; });
}

}  // namespace scenario
