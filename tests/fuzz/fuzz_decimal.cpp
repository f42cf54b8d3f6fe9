// libFuzzer target: any bytes as the start of a number. Where json_util::read_plain_decimal
// takes them (the fast path strtod goes through in WebAssembly), its double must be glibc's
// strtod's, bit for bit, and it must stop where strtod stops.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "scenario/json_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);  // NUL-terminated
  double fast = 0.0;
  const char* fast_end = nullptr;
  if (!scenario::json_util::read_plain_decimal(text.c_str(), &fast, &fast_end)) return 0;
  char* end = nullptr;
  const double ref = std::strtod(text.c_str(), &end);
  uint64_t a, b;
  std::memcpy(&a, &fast, sizeof a);
  std::memcpy(&b, &ref, sizeof b);
  if (a != b || fast_end != end) {
    std::fprintf(stderr, "fuzz_decimal: \"%s\": read %.17g (%zu bytes), strtod %.17g (%zu bytes)\n",
                 text.c_str(), fast, static_cast<size_t>(fast_end - text.c_str()), ref,
                 static_cast<size_t>(end - text.c_str()));
    std::abort();
  }
  return 0;
}
