// NumPy's .npy and .npz files as scenario data (see npz.h).
//
// [SECTION] Inflate (RFC 1951)
// [SECTION] CRC-32
// [SECTION] Numbers: a dtype and an order into row-major float32
// [SECTION] .npy headers
// [SECTION] .npz (ZIP) headers
// [SECTION] The numbers
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

// Bits in the order deflate packs them: least significant first, read ahead up to 64.
struct BitReader {
  const unsigned char* in;
  size_t size, pos = 0;
  uint64_t buffer = 0;
  int count = 0;  // bits in `buffer`
  bool overrun = false;

  void refill() {
    while (count <= 56 && pos < size) {
      buffer |= static_cast<uint64_t>(in[pos++]) << count;
      count += 8;
    }
  }
  // The next n (<= 32) bits, not taken; past the end of the data they read as 0.
  uint32_t peek(int n) {
    if (count < n) refill();
    return static_cast<uint32_t>(buffer & ((uint64_t{1} << n) - 1));
  }
  // Takes n bits; false (and nothing taken) when the data has fewer left.
  bool take(int n) {
    if (count < n) refill();
    if (count < n) return false;
    buffer >>= n;
    count -= n;
    return true;
  }
  // n bits as a number; 0 with `overrun` set when the data ends first.
  int bits(int n) {
    const uint32_t v = peek(n);
    if (!take(n)) {
      overrun = true;
      return 0;
    }
    return static_cast<int>(v);
  }
  // Drops the bits to the next byte boundary and gives back the whole bytes read ahead.
  void align() {
    pos -= static_cast<size_t>(count / 8);
    buffer = 0;
    count = 0;
  }
};

// A canonical Huffman code: how many codes of each length, the symbols in code order, and a
// table of the codes up to kFastBits long, indexed by the next kFastBits bits of the data.
constexpr int kFastBits = 9;
struct Huffman {
  int16_t count[16] = {};
  int16_t symbol[320] = {};
  uint16_t fast[1 << kFastBits] = {};  // symbol << 4 | length; 0: no code that short
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
  // The codes themselves (RFC 1951 3.2.2), bit-reversed as they come in the data.
  std::fill(std::begin(h->fast), std::end(h->fast), 0);
  int next[16] = {};
  for (int len = 1, code = 0; len < 16; ++len) {
    code = (code + (len > 1 ? h->count[len - 1] : 0)) << 1;
    next[len] = code;
  }
  for (int s = 0; s < n; ++s) {
    const int len = length[s];
    if (len == 0 || len > kFastBits) continue;
    const int code = next[len]++;
    int reversed = 0;
    for (int b = 0; b < len; ++b) reversed |= ((code >> b) & 1) << (len - 1 - b);
    for (int at = reversed; at < (1 << kFastBits); at += 1 << len)
      h->fast[at] = static_cast<uint16_t>(s << 4 | len);
  }
  return true;
}

constexpr int kEndsEarly = -2;

// The next symbol; -1 when the bits match no code, kEndsEarly when the data ends first.
inline int decode(BitReader* r, const Huffman& h) {
  const uint32_t bits = r->peek(15);
  if (const uint16_t e = h.fast[bits & ((1u << kFastBits) - 1)]) {
    if (!r->take(e & 15)) return kEndsEarly;
    return e >> 4;
  }
  int code = 0, first = 0, index = 0;  // the code, one bit at a time, in canonical order
  for (int len = 1; len < 16; ++len) {
    code |= (bits >> (len - 1)) & 1;
    const int count = h.count[len];
    if (code - count < first) {
      if (!r->take(len)) return kEndsEarly;
      return h.symbol[index + (code - first)];
    }
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return r->count < 15 ? kEndsEarly : -1;  // fewer than 15 bits left: the zeros past the end
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

// Where inflated bytes go, in order, a part at a time.
class Output {
 public:
  virtual ~Output() = default;
  virtual void put(const unsigned char* p, size_t n) = 0;
};

class StringOutput : public Output {
 public:
  explicit StringOutput(std::string* s) : s_(s) {}
  void put(const unsigned char* p, size_t n) override {
    s_->append(reinterpret_cast<const char*>(p), n);
  }

 private:
  std::string* s_;
};

// Inflates into a window of the last 32 KiB (what a distance may reach back to) and hands
// the bytes on to an Output as the window fills: the whole stream is never held.
class Inflater {
 public:
  // At most `limit` bytes: past it, an error, or with `prefix` the first `limit` bytes.
  Inflater(const unsigned char* in, size_t size, size_t limit, bool prefix, Output* out)
      : r_{in, size},
        limit_(limit),
        prefix_(prefix),
        out_(out),
        window_(std::min(kWindowBytes, limit)) {}  // (never past the limit: it never slides)

  // "" when the stream was inflated (or its prefix), else the problem.
  std::string run() {
    std::string problem;
    for (bool last = false; !last && !full_;) {
      last = r_.bits(1) == 1;
      const int type = r_.bits(2);
      if (r_.overrun) return "the deflate data ends early";
      if (type == 0) {
        problem = stored();
      } else if (type == 1) {
        static const auto fixed = [] {  // the fixed codes, built once
          std::pair<Huffman, Huffman> codes;
          int16_t length[288];
          for (int s = 0; s < 288; ++s) length[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
          build(&codes.first, length, 288);
          for (int s = 0; s < 30; ++s) length[s] = 5;
          build(&codes.second, length, 30);
          return codes;
        }();
        problem = codes(fixed.first, fixed.second);
      } else if (type == 2) {
        problem = dynamic();
      } else {
        return "a block has the reserved type 3";
      }
      if (!problem.empty()) return problem;
    }
    flush();
    return "";
  }

  size_t total() const { return base_ + pos_; }  // bytes inflated

 private:
  static constexpr size_t kHistory = 32768;
  static constexpr size_t kWindowBytes = 4 * kHistory;

  void flush() {
    if (pos_ > flushed_) out_->put(window_.data() + flushed_, pos_ - flushed_);
    flushed_ = pos_;
  }
  // Room for n (<= 65536) more bytes: hands on what is there and keeps the last 32 KiB.
  void room(size_t n) {
    if (pos_ + n <= window_.size()) return;
    flush();
    const size_t drop = pos_ - kHistory;
    std::memmove(window_.data(), window_.data() + drop, kHistory);
    base_ += drop;
    pos_ = flushed_ = kHistory;
  }
  // Whether n more bytes fit under the limit; with `prefix`, *n is cut to what fits (and the
  // stream ends there).
  bool fits(size_t* n) {
    if (total() + *n <= limit_) return true;
    if (!prefix_) return false;
    *n = limit_ - total();
    full_ = true;
    return true;
  }

  std::string stored() {
    r_.align();
    const unsigned char* in = r_.in;
    if (r_.pos + 4 > r_.size) return "the deflate data ends early";
    size_t len = in[r_.pos] | in[r_.pos + 1] << 8;
    const size_t nlen = in[r_.pos + 2] | in[r_.pos + 3] << 8;
    if (len != (~nlen & 0xffff)) return "a stored block's length is corrupt";
    r_.pos += 4;
    if (r_.pos + len > r_.size) return "the deflate data ends early";
    if (!fits(&len)) return "inflates to more than the limit";
    if (len == 0) return "";
    room(len);
    std::memcpy(window_.data() + pos_, in + r_.pos, len);
    pos_ += len;
    r_.pos += len;
    return "";
  }

  std::string dynamic() {
    const int nlen = r_.bits(5) + 257, ndist = r_.bits(5) + 1, ncode = r_.bits(4) + 4;
    if (nlen > 286 || ndist > 30) return "a block has too many codes";
    static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                       11, 4,  12, 3, 13, 2, 14, 1, 15};
    int16_t length[320] = {};
    for (int k = 0; k < ncode; ++k) length[kOrder[k]] = static_cast<int16_t>(r_.bits(3));
    if (r_.overrun) return "the deflate data ends early";
    Huffman code_lengths;
    if (!build(&code_lengths, length, 19)) return "a code-length code is invalid";
    std::fill(std::begin(length), std::end(length), 0);
    for (int k = 0; k < nlen + ndist;) {
      const int symbol = decode(&r_, code_lengths);
      if (symbol == kEndsEarly) return "the deflate data ends early";
      if (symbol < 0) return "a code matches no symbol";
      if (symbol < 16) {
        length[k++] = static_cast<int16_t>(symbol);
        continue;
      }
      int16_t value = 0;
      int repeat;
      if (symbol == 16) {
        if (k == 0) return "a length repeats before the first";
        value = length[k - 1];
        repeat = 3 + r_.bits(2);
      } else {
        repeat = symbol == 17 ? 3 + r_.bits(3) : 11 + r_.bits(7);
      }
      if (r_.overrun) return "the deflate data ends early";
      if (k + repeat > nlen + ndist) return "code lengths run past their count";
      while (repeat--) length[k++] = value;
    }
    if (length[256] == 0) return "a block has no end code";
    Huffman lengths, distances;
    if (!build(&lengths, length, nlen) || !build(&distances, length + nlen, ndist))
      return "a block's codes are invalid";
    return codes(lengths, distances);
  }

  // One block's symbols until its end code.
  std::string codes(const Huffman& lengths, const Huffman& distances) {
    BitReader r = r_;  // a local copy, which the compiler keeps in registers
    std::string problem = codes(&r, lengths, distances);
    r_ = r;
    return problem;
  }

  std::string codes(BitReader* in, const Huffman& lengths, const Huffman& distances) {
    BitReader& r_ = *in;  // (shadows the member on purpose: the loop reads this one)
    unsigned char* w = window_.data();
    for (;;) {
      const int symbol = decode(&r_, lengths);
      if (symbol == kEndsEarly) return "the deflate data ends early";
      if (symbol < 0) return "a code matches no symbol";
      if (symbol < 256) {
        size_t one = 1;
        if (!fits(&one)) return "inflates to more than the limit";
        if (one == 0) return "";  // the prefix is full
        room(1);
        w[pos_++] = static_cast<unsigned char>(symbol);
        continue;
      }
      if (symbol == 256) return "";
      const int l = symbol - 257;
      if (l >= 29) return "a length code is out of range";
      size_t length = static_cast<size_t>(kLengthBase[l] + r_.bits(kLengthExtra[l]));
      const int d = decode(&r_, distances);
      if (d == kEndsEarly) return "the deflate data ends early";
      if (d < 0 || d >= 30) return "a distance code is out of range";
      const size_t distance = static_cast<size_t>(kDistBase[d] + r_.bits(kDistExtra[d]));
      if (r_.overrun) return "the deflate data ends early";
      if (distance > total()) return "a distance reaches before the start";
      if (!fits(&length)) return "inflates to more than the limit";
      room(length);  // keeps 32 KiB behind pos_: `distance` reaches into the window
      unsigned char* to = w + pos_;
      const unsigned char* from = to - distance;
      if (distance == 1) {
        std::memset(to, *from, length);
      } else {
        for (size_t done = 0; done < length;) {  // in pieces that do not overlap
          const size_t n = std::min(distance, length - done);
          std::memcpy(to + done, from + done, n);
          done += n;
        }
      }
      pos_ += length;
      if (full_) return "";
    }
  }

  BitReader r_;
  size_t limit_;
  bool prefix_;
  bool full_ = false;  // the prefix is inflated
  Output* out_;
  std::vector<unsigned char> window_;
  size_t pos_ = 0, flushed_ = 0;  // window_[0, pos_) inflated, [0, flushed_) handed on
  size_t base_ = 0;               // bytes inflated before window_[0]
};

}  // namespace

bool inflate(const unsigned char* in, size_t size, size_t max_bytes, std::string* out,
             std::string* error) {
  out->clear();
  StringOutput to(out);
  Inflater inflater(in, size, max_bytes, false, &to);
  *error = inflater.run();
  return error->empty();
}

//-----------------------------------------------------------------------------
// [SECTION] CRC-32
//-----------------------------------------------------------------------------

namespace {

// Eight tables, so that eight bytes are taken at a time ("slicing by 8").
struct Crc32Tables {
  uint32_t t[8][256];
  Crc32Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (int k = 1; k < 8; ++k)
      for (int i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
};

uint32_t le32(const unsigned char* p) {
  return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

uint32_t crc32(const unsigned char* p, size_t size, uint32_t crc) {
  static const Crc32Tables tables;
  const auto& t = tables.t;
  crc = ~crc;
  for (; size >= 8; p += 8, size -= 8) {
    const uint32_t lo = crc ^ le32(p), hi = le32(p + 4);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
          t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
  }
  for (; size; ++p, --size) crc = t[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}

//-----------------------------------------------------------------------------
// [SECTION] Numbers: a dtype and an order into row-major float32
//-----------------------------------------------------------------------------

namespace {

template <int kBytes, bool kSwap>
uint64_t load(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < kBytes; ++i)
    v |= static_cast<uint64_t>(p[kSwap ? kBytes - 1 - i : i]) << (8 * i);
  return v;
}

float half(uint32_t bits) {  // float16: sign, 5 exponent bits, 10 mantissa bits
  const int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  const float v = exponent == 0    ? std::ldexp(static_cast<float>(mantissa), -24)
                  : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                   : std::ldexp(static_cast<float>(mantissa | 1024), exponent - 25);
  return sign ? -v : v;
}

// One number of kind K ('f', 'i', 'u' or 'b') and kBytes bytes at p, as float32.
template <char K, int kBytes, bool kSwap>
float number(const unsigned char* p) {
  const uint64_t bits = load<kBytes, kSwap>(p);
  if constexpr (K == 'f' && kBytes == 2) {
    return half(static_cast<uint32_t>(bits));
  } else if constexpr (K == 'f' && kBytes == 4) {
    const uint32_t u = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  } else if constexpr (K == 'f') {
    double d;
    std::memcpy(&d, &bits, 8);
    return static_cast<float>(d);
  } else if constexpr (K == 'i') {
    constexpr int kShift = 64 - 8 * kBytes;
    return static_cast<float>(static_cast<int64_t>(bits << kShift) >> kShift);
  } else {
    return static_cast<float>(bits);  // 'u' and 'b'
  }
}

// n numbers stored one after the other at in, converted into out[0, n).
using Convert = void (*)(const unsigned char* in, size_t n, float* out);

template <char K, int kBytes, bool kSwap>
void convert(const unsigned char* in, size_t n, float* out) {
  if constexpr (K == 'f' && kBytes == 4 && !kSwap) {
    std::memcpy(out, in, n * 4);  // float32 as it is in memory here (little-endian)
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = number<K, kBytes, kSwap>(in + i * kBytes);
  }
}

template <char K, int kBytes>
Convert converter(bool swap) {
  return swap ? convert<K, kBytes, true> : convert<K, kBytes, false>;
}

Convert converter_for(char kind, int bytes, bool big_endian) {
  const bool swap = big_endian && bytes > 1;
  switch (kind) {
    case 'f':
      return bytes == 2   ? converter<'f', 2>(swap)
             : bytes == 4 ? converter<'f', 4>(swap)
                          : converter<'f', 8>(swap);
    case 'i':
      return bytes == 1   ? converter<'i', 1>(false)
             : bytes == 2 ? converter<'i', 2>(swap)
             : bytes == 4 ? converter<'i', 4>(swap)
                          : converter<'i', 8>(swap);
    default:  // 'u', 'b'
      return bytes == 1   ? converter<'u', 1>(false)
             : bytes == 2 ? converter<'u', 2>(swap)
             : bytes == 4 ? converter<'u', 4>(swap)
                          : converter<'u', 8>(swap);
  }
}

// The array's data bytes, in order and in parts of any size, converted into its row-major
// float32 numbers at `out` (h.count of them; bytes past them are ignored). No copy of the
// array is made: C order goes straight to its place; Fortran order (the first index varies
// fastest, the last slowest) through a panel of up to 32 values of its last index (4 MB at
// most), written out 32 neighbours at a time; or, when one value of the last index alone
// passes 4 MB (then there are at most 16 of them), straight to its place.
class Numbers : public Output {
 public:
  Numbers(const ArrayHeader& h, float* out)
      : convert_(converter_for(h.kind, h.item_bytes, h.big_endian)),
        bytes_(static_cast<size_t>(h.item_bytes)),
        count_(h.count),
        out_(out) {
    size_t dims = 0;  // the sizes past 1: with one, either order is the same
    for (size_t d : h.shape) dims += d > 1;
    fortran_ = h.fortran && dims > 1 && count_ > 0;
    if (!fortran_) return;
    cols_ = h.shape.back();
    slab_ = count_ / cols_;  // the numbers of one value of the last index
    panel_cols_ = std::min<size_t>(kPanelBytes / sizeof(float) / slab_, 32);
    panel_.resize(panel_cols_ * slab_);
    // The other indices, the first fastest: their C-order offset by an odometer (over the
    // sizes past 1: the others add nothing to it, and there may be thousands).
    for (size_t d = 0; d + 1 < h.shape.size(); ++d)
      if (h.shape[d] > 1) shape_.push_back(h.shape[d]);
    stride_.assign(shape_.size(), 1);
    for (size_t d = shape_.size() - 1; d-- > 0;) stride_[d] = stride_[d + 1] * shape_[d + 1];
    index_.assign(shape_.size(), 0);
  }

  void put(const unsigned char* p, size_t n) override {
    if (carried_) {  // a number split between two parts
      const size_t more = std::min(n, bytes_ - carried_);
      std::memcpy(carry_ + carried_, p, more);
      carried_ += more;
      p += more;
      n -= more;
      if (carried_ < bytes_) return;
      carried_ = 0;
      emit(carry_, 1);
    }
    const size_t whole = std::min(n / bytes_, count_ - done_);
    emit(p, whole);
    p += whole * bytes_;
    n -= whole * bytes_;
    if (n && done_ < count_) {
      std::memcpy(carry_, p, std::min(n, bytes_));
      carried_ = std::min(n, bytes_);
    }
  }

  size_t done() const { return done_; }

 private:
  static constexpr size_t kPanelBytes = size_t{4} << 20;

  void emit(const unsigned char* p, size_t n) {
    if (n == 0) return;  // (an empty array's numbers are nowhere: no memcpy to null)
    if (!fortran_) {
      convert_(p, n, out_ + done_);
      done_ += n;
      return;
    }
    while (n) {
      if (panel_cols_ == 0) {  // straight to its place, a block at a time
        float block[1024];
        const size_t m = std::min<size_t>(n, 1024);
        convert_(p, m, block);
        for (size_t i = 0; i < m; ++i) {
          out_[at_ * cols_ + col0_] = block[i];
          col0_ += step();
        }
        done_ += m;
        p += m * bytes_;
        n -= m;
        continue;
      }
      const size_t cols = std::min(panel_cols_, cols_ - col0_);
      const size_t m = std::min(n, cols * slab_ - filled_);
      convert_(p, m, panel_.data() + filled_);
      filled_ += m;
      done_ += m;
      p += m * bytes_;
      n -= m;
      if (filled_ == cols * slab_) write_panel(cols);
    }
  }

  // The panel's columns col0_ .. col0_ + cols into their places, row by row.
  void write_panel(size_t cols) {
    for (size_t s = 0; s < slab_; ++s) {
      float* to = out_ + at_ * cols_ + col0_;
      for (size_t j = 0; j < cols; ++j) to[j] = panel_[j * slab_ + s];
      step();
    }
    col0_ += cols;
    filled_ = 0;
  }

  // The next of the other indices; true when they start over (from the next column).
  bool step() {
    at_ += stride_[0];
    if (++index_[0] < shape_[0]) return false;
    for (size_t d = 0;;) {  // carry into the next index
      at_ -= shape_[d] * stride_[d];
      index_[d] = 0;
      if (++d == shape_.size()) return true;
      at_ += stride_[d];
      if (++index_[d] < shape_[d]) return false;
    }
  }

  Convert convert_;
  size_t bytes_, count_;
  float* out_;
  bool fortran_ = false;
  size_t done_ = 0;
  unsigned char carry_[8] = {};
  size_t carried_ = 0;
  // Fortran order.
  size_t cols_ = 0, slab_ = 0, panel_cols_ = 0;
  std::vector<float> panel_;  // panel_cols_ values of the last index, slab_ numbers each
  size_t filled_ = 0, col0_ = 0;
  std::vector<size_t> shape_, stride_, index_;  // of the other indices
  size_t at_ = 0;                               // their C-order offset
};

// An .npy entry's bytes as they are inflated: all into the CRC-32, the data into Numbers.
class EntryOutput : public Output {
 public:
  EntryOutput(size_t data_at, Numbers* numbers) : skip_(data_at), numbers_(numbers) {}
  void put(const unsigned char* p, size_t n) override {
    crc_ = crc32(p, n, crc_);
    const size_t skip = std::min(skip_, n);
    skip_ -= skip;
    if (n > skip) numbers_->put(p + skip, n - skip);
  }
  uint32_t crc() const { return crc_; }

 private:
  size_t skip_;
  Numbers* numbers_;
  uint32_t crc_ = 0;
};

//-----------------------------------------------------------------------------
// [SECTION] .npy headers
//-----------------------------------------------------------------------------

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
        StringOutput to(&prefix);
        Inflater inflater(p + data_at, compressed, want, true, &to);
        problem = inflater.run();
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
// [SECTION] The numbers
//-----------------------------------------------------------------------------

std::string read_array_data(const std::string& bytes, const ArrayHeader& h,
                            std::vector<float>* out) {
  const std::string entry = h.entry.empty() ? "" : h.entry + ": ";
  const size_t span = h.method == 8 ? h.stored_bytes : h.npy_bytes;
  if (h.at > bytes.size() || span > bytes.size() - h.at ||
      h.data_at + h.count * static_cast<size_t>(h.item_bytes) > h.npy_bytes)
    return entry + "its data is out of the file";
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + h.at;
  out->clear();
  out->shrink_to_fit();  // its old numbers never live beside the new ones
  out->resize(h.count);
  Numbers numbers(h, out->data());
  if (h.method == 8) {
    EntryOutput to(h.data_at, &numbers);
    Inflater inflater(p, h.stored_bytes, h.npy_bytes, false, &to);
    std::string problem = inflater.run();
    if (problem == "inflates to more than the limit" ||
        (problem.empty() && inflater.total() != h.npy_bytes))
      problem = "inflates to a size its header does not give";
    if (!problem.empty()) return entry + problem;
    if (to.crc() != h.crc32) return entry + "damaged (CRC-32 does not match)";
  } else {
    if (h.method == 0 && crc32(p, h.stored_bytes) != h.crc32)
      return entry + "damaged (CRC-32 does not match)";
    numbers.put(p + h.data_at, h.count * static_cast<size_t>(h.item_bytes));
  }
  return "";
}

ArraysResult read_arrays_data(const std::string& bytes, const HeadersResult& headers,
                              const std::string& file_name) {
  ArraysResult r;
  if (!headers.ok()) {
    r.error = headers.error;
    return r;
  }
  r.arrays.reserve(headers.arrays.size());
  for (const ArrayHeader& h : headers.arrays) {
    NamedArray a;
    a.name = h.name;
    a.shape = h.shape;
    const std::string problem = read_array_data(bytes, h, &a.data);
    if (!problem.empty()) {
      r.arrays.clear();
      r.error = file_name.empty() ? problem : json_util::one_line(file_name, 80) + ": " + problem;
      return r;
    }
    r.arrays.push_back(std::move(a));
  }
  return r;
}

ArraysResult read_npy(const std::string& bytes, const std::string& name) {
  return read_arrays_data(bytes, read_npy_header(bytes, name), "");
}

ArraysResult read_npz(const std::string& bytes) {
  return read_arrays_data(bytes, read_npz_headers(bytes), "");
}

ArraysResult read_arrays(const std::string& bytes, const std::string& file_name) {
  const HeadersResult headers = read_array_headers(bytes, file_name);
  return read_arrays_data(bytes, headers, file_name);
}

//-----------------------------------------------------------------------------
// [SECTION] Arrays as scenario fields
//-----------------------------------------------------------------------------

namespace {

bool is_input(const std::string& name) {
  return std::find(std::begin(kInputNames), std::end(kInputNames), name) != std::end(kInputNames);
}

bool is_array_field(const std::string& name) {
  const auto& weights = attn::kWeightNames;
  return is_input(name) ||
         std::find(std::begin(weights), std::end(weights), name) != std::end(weights);
}

}  // namespace

std::string check_array_field(const std::string& name, const std::vector<size_t>& shape) {
  if (!is_array_field(name)) {
    std::string known;
    for (const char* f : kInputNames) known += std::string(known.empty() ? "" : ", ") + f;
    for (const char* f : attn::kWeightNames) known += std::string(", ") + f;
    return json_util::key_name(name) + ": is not a matrix field (" + known + ")";
  }
  // As the scenario reads {"shape": [...]} (json_read.cpp, read_shape): inputs are 2-D or
  // [batch, rows, cols], weights 2-D, w_v 1-D; the last size is columns, the one before
  // rows, the one before that the batch.
  const bool input = is_input(name);
  const size_t lo = input ? 2 : name == "w_v" ? 1 : 2, hi = input ? 3 : lo;
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

// parse_with_arrays for n arrays: name(k), shape(k) and numbers(k) of each.
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
  std::vector<FloatArray> buffers;
  for (size_t k = 0; k < n; ++k) {
    const std::string& a = name(k);
    if (!is_array_field(a)) {
      r.error = check_array_field(a, shape(k));
      return r;
    }
    if (a == "x") {
      for (const char* other : {"queries", "keys", "values"}) j.erase(other);
    } else if (a == "queries" || a == "keys" || a == "values") {
      j.erase("x");
    }
    j[a] = {{"shape", shape(k)}, {"buffer", buffers.size()}};
    buffers.push_back(numbers(k));
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
