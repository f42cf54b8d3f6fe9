// NumPy's .npy and .npz files as scenario data (see npz.h).
//
// [SECTION] Inflate (RFC 1951)
// [SECTION] .npy
// [SECTION] .npz (ZIP)
// [SECTION] Arrays as scenario fields
#include "scenario/npz.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "scenario/json_util.h"

namespace scenario {

//-----------------------------------------------------------------------------
// [SECTION] Inflate (RFC 1951)
//-----------------------------------------------------------------------------

namespace {

// Bits in the order deflate packs them: least significant first.
struct BitReader {
  const unsigned char* in;
  size_t size, pos = 0;
  uint32_t buffer = 0;
  int count = 0;
  bool overrun = false;

  int bits(int n) {
    uint32_t v = buffer;
    while (count < n) {
      if (pos >= size) {
        overrun = true;
        return 0;
      }
      v |= static_cast<uint32_t>(in[pos++]) << count;
      count += 8;
    }
    buffer = v >> n;
    count -= n;
    return static_cast<int>(v & ((1u << n) - 1));
  }
};

// A canonical Huffman code: how many codes of each length, and the symbols in code order.
struct Huffman {
  int16_t count[16] = {};
  int16_t symbol[320] = {};
};

// Builds h from the code lengths of n symbols; false when the lengths over-subscribe the code.
bool build(Huffman* h, const int16_t* length, int n) {
  std::fill(std::begin(h->count), std::end(h->count), 0);
  for (int s = 0; s < n; ++s) ++h->count[length[s]];
  int left = 1;
  for (int len = 1; len < 16; ++len) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return false;
  }
  int16_t offset[16] = {};
  for (int len = 1; len < 15; ++len) offset[len + 1] = offset[len] + h->count[len];
  for (int s = 0; s < n; ++s)
    if (length[s]) h->symbol[offset[length[s]]++] = static_cast<int16_t>(s);
  return true;
}

// The next symbol, or -1 when the bits match no code.
int decode(BitReader* r, const Huffman& h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len < 16; ++len) {
    code |= r->bits(1);
    const int count = h.count[len];
    if (code - count < first) return h.symbol[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

constexpr int16_t kLengthBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr int16_t kLengthExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                    2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr int16_t kDistBase[] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                 33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr int16_t kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// One block's symbols until its end code; "" or the problem.
std::string inflate_codes(BitReader* r, const Huffman& lengths, const Huffman& distances,
                          size_t max_bytes, std::string* out) {
  for (;;) {
    const int symbol = decode(r, lengths);
    if (r->overrun) return "the deflate data ends early";
    if (symbol < 0) return "a code matches no symbol";
    if (symbol < 256) {
      if (out->size() >= max_bytes) return "inflates to more than the limit";
      out->push_back(static_cast<char>(symbol));
      continue;
    }
    if (symbol == 256) return "";
    const int l = symbol - 257;
    if (l >= 29) return "a length code is out of range";
    const size_t length = static_cast<size_t>(kLengthBase[l] + r->bits(kLengthExtra[l]));
    const int d = decode(r, distances);
    if (d < 0 || d >= 30) return "a distance code is out of range";
    const size_t distance = static_cast<size_t>(kDistBase[d] + r->bits(kDistExtra[d]));
    if (r->overrun) return "the deflate data ends early";
    if (distance > out->size()) return "a distance reaches before the start";
    if (out->size() + length > max_bytes) return "inflates to more than the limit";
    const size_t from = out->size() - distance;
    for (size_t k = 0; k < length; ++k) out->push_back((*out)[from + k]);  // may overlap
  }
}

}  // namespace

bool inflate(const unsigned char* in, size_t size, size_t max_bytes, std::string* out,
             std::string* error) {
  BitReader r{in, size};
  out->clear();
  auto failed = [&](const std::string& problem) {
    *error = problem;
    return false;
  };
  for (bool last = false; !last;) {
    last = r.bits(1) == 1;
    const int type = r.bits(2);
    if (r.overrun) return failed("the deflate data ends early");
    std::string problem;
    if (type == 0) {  // stored: the rest of this byte is dropped, then LEN and its complement
      r.buffer = 0;
      r.count = 0;
      if (r.pos + 4 > size) return failed("the deflate data ends early");
      const size_t len = in[r.pos] | in[r.pos + 1] << 8;
      const size_t nlen = in[r.pos + 2] | in[r.pos + 3] << 8;
      if (len != (~nlen & 0xffff)) return failed("a stored block's length is corrupt");
      r.pos += 4;
      if (r.pos + len > size) return failed("the deflate data ends early");
      if (out->size() + len > max_bytes) return failed("inflates to more than the limit");
      out->append(reinterpret_cast<const char*>(in + r.pos), len);
      r.pos += len;
    } else if (type == 1) {  // fixed codes
      int16_t length[288];
      for (int s = 0; s < 288; ++s) length[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
      Huffman lengths, distances;
      build(&lengths, length, 288);
      for (int s = 0; s < 30; ++s) length[s] = 5;
      build(&distances, length, 30);
      problem = inflate_codes(&r, lengths, distances, max_bytes, out);
    } else if (type == 2) {  // dynamic codes
      const int nlen = r.bits(5) + 257, ndist = r.bits(5) + 1, ncode = r.bits(4) + 4;
      if (nlen > 286 || ndist > 30) return failed("a block has too many codes");
      static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                         11, 4,  12, 3, 13, 2, 14, 1, 15};
      int16_t length[320] = {};
      for (int k = 0; k < ncode; ++k) length[kOrder[k]] = static_cast<int16_t>(r.bits(3));
      Huffman code_lengths;
      if (!build(&code_lengths, length, 19)) return failed("a code-length code is invalid");
      std::fill(std::begin(length), std::end(length), 0);
      for (int k = 0; k < nlen + ndist;) {
        const int symbol = decode(&r, code_lengths);
        if (r.overrun) return failed("the deflate data ends early");
        if (symbol < 0) return failed("a code matches no symbol");
        if (symbol < 16) {
          length[k++] = static_cast<int16_t>(symbol);
          continue;
        }
        int16_t value = 0;
        int repeat;
        if (symbol == 16) {
          if (k == 0) return failed("a length repeats before the first");
          value = length[k - 1];
          repeat = 3 + r.bits(2);
        } else {
          repeat = symbol == 17 ? 3 + r.bits(3) : 11 + r.bits(7);
        }
        if (k + repeat > nlen + ndist) return failed("code lengths run past their count");
        while (repeat--) length[k++] = value;
      }
      if (length[256] == 0) return failed("a block has no end code");
      Huffman lengths, distances;
      if (!build(&lengths, length, nlen) || !build(&distances, length + nlen, ndist))
        return failed("a block's codes are invalid");
      problem = inflate_codes(&r, lengths, distances, max_bytes, out);
    } else {
      return failed("a block has the reserved type 3");
    }
    if (!problem.empty()) return failed(problem);
  }
  return true;
}

//-----------------------------------------------------------------------------
// [SECTION] .npy
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

// One number of the array's dtype (kind 'f', 'i', 'u' or 'b', `size` bytes, `swap` when
// big-endian) at p, as float32.
float element(const unsigned char* p, char kind, int size, bool swap) {
  unsigned char b[8];
  for (int i = 0; i < size; ++i) b[i] = p[swap ? size - 1 - i : i];
  const uint64_t bits = little_endian(b, size);
  if (kind == 'f') {
    if (size == 4) {
      float f;
      const uint32_t u = static_cast<uint32_t>(bits);
      std::memcpy(&f, &u, 4);
      return f;
    }
    if (size == 8) {
      double d;
      std::memcpy(&d, &bits, 8);
      return static_cast<float>(d);
    }
    // float16: sign, 5 exponent bits, 10 mantissa bits.
    const int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
    float v = exponent == 0    ? std::ldexp(static_cast<float>(mantissa), -24)
              : exponent == 31 ? (mantissa ? NAN : INFINITY)
                               : std::ldexp(static_cast<float>(mantissa | 1024), exponent - 25);
    return sign ? -v : v;
  }
  if (kind == 'i') {
    const int shift = 64 - 8 * size;
    return static_cast<float>(static_cast<int64_t>(bits << shift) >> shift);
  }
  return static_cast<float>(bits);  // 'u' and 'b'
}

}  // namespace

ArraysResult read_npy(const std::string& bytes, const std::string& name) {
  ArraysResult r;
  auto failed = [&](const std::string& problem) {
    r.arrays.clear();
    r.error = problem;
    return r;
  };
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return failed("not a NumPy .npy file (it does not start with \\x93NUMPY)");
  const int major = p[6];
  if (major < 1 || major > 3) return failed("version " + std::to_string(major) + " is unknown");
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) return failed("the header ends early");
  const size_t header_len = little_endian(p + 8, static_cast<int>(length_bytes));
  const size_t data_at = 8 + length_bytes + header_len;
  if (data_at > bytes.size()) return failed("the header ends early");
  const std::string header = bytes.substr(8 + length_bytes, header_len);

  const std::string descr = header_value(header, "descr");
  if (descr.size() < 3) return failed("the header has no dtype ('descr')");
  const char order = descr[0], kind = descr[1];
  const int size = std::atoi(descr.c_str() + 2);
  const bool known =
      (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
      ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
      (kind == 'b' && size == 1);
  if (!known || (order != '<' && order != '>' && order != '|'))
    return failed("dtype " + json_util::quoted(descr) +
                  " is not a number type (float16/32/64, int, uint or bool)");
  const bool fortran = header_value(header, "fortran_order") == "True";

  NamedArray a;
  a.name = name;
  const std::string shape = header_value(header, "shape");
  const std::string shown = json_util::one_line(shape, 40);  // as errors show it
  size_t count = 1;
  for (size_t at = 0; at < shape.size();) {
    while (at < shape.size() && (shape[at] == ' ' || shape[at] == ',')) ++at;
    if (at >= shape.size()) break;
    char* end = nullptr;
    const long long d = std::strtoll(shape.c_str() + at, &end, 10);
    if (end == shape.c_str() + at || d < 0) return failed("the shape (" + shown + ") is not sizes");
    a.shape.push_back(static_cast<size_t>(d));
    if (d > 0 && count > kMaxArrayNumbers / static_cast<size_t>(d))
      return failed("has more than " + std::to_string(kMaxArrayNumbers) + " numbers");
    count *= static_cast<size_t>(d);
    at = static_cast<size_t>(end - shape.c_str());
  }
  if (count > kMaxArrayNumbers)
    return failed("has more than " + std::to_string(kMaxArrayNumbers) + " numbers");
  if (bytes.size() - data_at < count * static_cast<size_t>(size))
    return failed("holds " + std::to_string((bytes.size() - data_at) / size) + " numbers, " +
                  "its shape (" + shown + ") says " + std::to_string(count));
  a.data.resize(count);
  const bool swap = order == '>' && size > 1;
  for (size_t i = 0; i < count; ++i) {
    // Fortran order: the first index varies fastest; the data is stored transposed.
    size_t from = i;
    if (fortran && a.shape.size() > 1) {
      size_t rest = i, stride = 1;
      from = 0;
      std::vector<size_t> index(a.shape.size());
      for (size_t d = a.shape.size(); d-- > 0;) {
        index[d] = rest % a.shape[d];
        rest /= a.shape[d];
      }
      for (size_t d = 0; d < a.shape.size(); ++d) {
        from += index[d] * stride;
        stride *= a.shape[d];
      }
    }
    a.data[i] = element(p + data_at + from * static_cast<size_t>(size), kind, size, swap);
  }
  r.arrays.push_back(std::move(a));
  return r;
}

//-----------------------------------------------------------------------------
// [SECTION] .npz (ZIP)
//-----------------------------------------------------------------------------

ArraysResult read_npz(const std::string& bytes) {
  ArraysResult r;
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
    const int method = static_cast<int>(little_endian(p + at + 10, 2));
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
    const std::string name = entry_name.substr(0, entry_name.size() - 4);
    if (local + 30 > n || little_endian(p + local, 4) != 0x04034b50)
      return failed(entry + ": its local header is corrupt");
    const size_t data_at =
        local + 30 + little_endian(p + local + 26, 2) + little_endian(p + local + 28, 2);
    if (compressed == 0xffffffff || size == 0xffffffff)
      return failed(entry + ": is over 4 GB (ZIP64), which this reader does not read");
    if (data_at + compressed > n) return failed(entry + ": its data is out of the file");
    std::string npy;
    if (method == 0) {
      npy = bytes.substr(data_at, compressed);
    } else if (method == 8) {
      std::string problem;
      if (!inflate(p + data_at, compressed, kMaxArrayNumbers * 8 + 65536, &npy, &problem))
        return failed(entry + ": " + problem);
    } else {
      return failed(entry + ": compression method " + std::to_string(method) +
                    " is not stored or deflate");
    }
    if (npy.size() != size) return failed(entry + ": inflates to a size its header does not give");
    ArraysResult one = read_npy(npy, name);
    if (!one.ok()) return failed(entry + ": " + one.error);
    total += one.arrays[0].data.size();
    if (total > 2 * kMaxArrayNumbers)
      return failed("holds more than " + std::to_string(2 * kMaxArrayNumbers) + " numbers");
    r.arrays.push_back(std::move(one.arrays[0]));
  }
  if (r.arrays.empty()) return failed("holds no .npy array");
  return r;
}

ArraysResult read_arrays(const std::string& bytes, const std::string& file_name) {
  ArraysResult r;
  if (bytes.compare(0, 6, "\x93NUMPY") == 0) {
    std::string name = file_name.substr(file_name.find_last_of("/\\") + 1);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    r = read_npy(bytes, name);
  } else {
    r = read_npz(bytes);
  }
  if (!r.ok()) r.error = json_util::one_line(file_name, 80) + ": " + r.error;
  return r;
}

//-----------------------------------------------------------------------------
// [SECTION] Arrays as scenario fields
//-----------------------------------------------------------------------------

ParseResult parse_with_arrays(const std::string& json_text, const std::vector<NamedArray>& arrays) {
  static const char* const kFields[] = {"x",   "queries", "keys", "values", "W_q",
                                        "W_k", "W_v",     "W_o",  "W",      "w_v"};
  ParseResult r;
  nlohmann::json j;
  const json_util::JsonError e = json_util::read_json(json_text, &j);
  if (!e.ok() || !j.is_object()) {
    r = parse(json_text);  // the same errors as the JSON alone
    if (r.ok()) r.error = "scenario: must be a JSON object";
    return r;
  }
  std::vector<FloatArray> buffers;
  for (const NamedArray& a : arrays) {
    if (std::find(std::begin(kFields), std::end(kFields), a.name) == std::end(kFields)) {
      r.error = json_util::key_name(a.name) +
                ": is not a matrix field (x, queries, keys, values, W_q, W_k, W_v, W_o, W, w_v)";
      return r;
    }
    if (a.name == "x") {
      for (const char* other : {"queries", "keys", "values"}) j.erase(other);
    } else if (a.name == "queries" || a.name == "keys" || a.name == "values") {
      j.erase("x");
    }
    j[a.name] = {{"shape", a.shape}, {"buffer", buffers.size()}};
    buffers.push_back({a.data.data(), a.data.size()});
  }
  return json_util::parse_value(j, buffers);
}

}  // namespace scenario
