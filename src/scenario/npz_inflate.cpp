// RFC 1951 inflate, which the .npz reader takes its entries out with.
//
// [SECTION] Inflate (RFC 1951)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "scenario/npz.h"
#include "scenario/npz_internal.h"

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

// Inflates into a window of the last 32 KiB (what a distance may reach back to) and hands
// the bytes on to an Output as the window fills: the whole stream is never held.
class Inflater {
 public:
  // At most `limit` bytes: past it, an error, or with `prefix` the first `limit` bytes.
  Inflater(const unsigned char* in, size_t size, size_t limit, bool prefix, detail::Output* out)
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
  // Bytes of the input taken: those read ahead into the bit buffer and not used are given back
  // (a last byte's unused bits are part of it).
  size_t used() const { return r_.pos - static_cast<size_t>(r_.count / 8); }

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
  detail::Output* out_;
  std::vector<unsigned char> window_;
  size_t pos_ = 0, flushed_ = 0;  // window_[0, pos_) inflated, [0, flushed_) handed on
  size_t base_ = 0;               // bytes inflated before window_[0]
};

}  // namespace

namespace detail {

std::string inflate_into(const unsigned char* in, size_t size, size_t limit, bool prefix,
                         Output* out, size_t* total, size_t* used) {
  Inflater inflater(in, size, limit, prefix, out);
  std::string problem = inflater.run();
  if (total) *total = inflater.total();
  if (used) *used = inflater.used();
  return problem;
}

}  // namespace detail

bool inflate(const unsigned char* in, size_t size, size_t max_bytes, std::string* out,
             std::string* error) {
  out->clear();
  detail::StringOutput to(out);
  Inflater inflater(in, size, max_bytes, false, &to);
  *error = inflater.run();
  return error->empty();
}

}  // namespace scenario
