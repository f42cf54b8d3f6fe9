// libFuzzer target: any bytes as a dropped .npy or .npz file. read_arrays must give arrays
// whose numbers fill their shapes, or one error line naming the file; the arrays, set as a
// scenario's fields, must give a scenario or one error line naming a field.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scenario/npz.h"
#include "scenario/scenario.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_npz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const scenario::ArraysResult r = scenario::read_arrays(bytes, "queries.npy");
  if (!r.ok()) {
    if (r.error.find('\n') != std::string::npos) fail("the error is not one line", r.error);
    if (r.error.rfind("queries.npy: ", 0) != 0) fail("the error names no file", r.error);
    if (!r.arrays.empty()) fail("an error came with arrays", r.error);
    return 0;
  }
  for (const scenario::NamedArray& a : r.arrays) {
    size_t count = 1;
    for (size_t d : a.shape) count *= d;
    if (count != a.data.size()) fail("an array's numbers do not fill its shape", a.name);
  }
  const scenario::ParseResult p = scenario::parse_with_arrays(
      R"({"version":1,"queries":[[1,0]],"keys":[[1,0]],"values":[[1,0]]})", r.arrays);
  if (!p.ok() &&
      (p.error.find('\n') != std::string::npos || p.error.find(": ") == std::string::npos))
    fail("the scenario's error is not one line naming a field", p.error);
  return 0;
}
