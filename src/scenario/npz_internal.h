// What npz.cpp and npz_numbers.cpp share of the inflater in npz_inflate.cpp.
#pragma once

#include <cstddef>
#include <string>

namespace scenario::detail {

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

// The RFC 1951 raw deflate data [in, in + size), inflated through a window of the last 32 KiB
// and handed on to `out` as the window fills: the whole stream is never held. At most `limit`
// bytes: past it, an error, or with `prefix` the first `limit` bytes. "" when the stream was
// inflated (or its prefix), else the problem; *total (when given) is the bytes inflated, and
// *used (when given) the bytes of `in` the stream took, up to the end of its last block's last
// byte (a gzip member's trailer, or whatever else follows, begins there).
std::string inflate_into(const unsigned char* in, size_t size, size_t limit, bool prefix,
                         Output* out, size_t* total = nullptr, size_t* used = nullptr);

}  // namespace scenario::detail
