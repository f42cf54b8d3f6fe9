// The numbers of .npy and .npz arrays: any dtype and order into row-major float32 (see npz.h).
//
// [SECTION] Numbers: a dtype and an order into row-major float32
// [SECTION] The numbers
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "scenario/json_util.h"
#include "scenario/npz.h"
#include "scenario/npz_internal.h"
#include "scenario/zip.h"

namespace scenario {

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
class Numbers : public detail::Output {
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
class EntryOutput : public detail::Output {
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

}  // namespace

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
    size_t total = 0;
    std::string problem = detail::inflate_into(p, h.stored_bytes, h.npy_bytes, false, &to, &total);
    if (problem == "inflates to more than the limit" || (problem.empty() && total != h.npy_bytes))
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

}  // namespace scenario
