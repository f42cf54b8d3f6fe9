// libFuzzer target: any bytes as a dropped .npy or .npz file, read as open_arrays reads it:
// the headers first, then the numbers.
//
// - read_array_headers gives headers whose counts are their shapes' products (within the
//   limits), or one error line naming the file;
// - read_arrays_data then gives arrays of those names and shapes whose numbers fill them, or
//   one error line naming the file; read_arrays (both at once) says the same;
// - set as a scenario's fields, the arrays give a scenario or one error line naming a field;
// - what open_arrays refuses before reading a number is refused with the numbers too: an
//   array whose name and shape no field takes (check_array_field), or a scenario that zeros
//   standing in for the numbers do not make.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "scenario/npz.h"
#include "scenario/scenario.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_npz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_error(const std::string& error, const char* what) {
  if (error.find('\n') != std::string::npos) fail(what, "the error is not one line: " + error);
  if (error.rfind("queries.npy: ", 0) != 0) fail(what, "the error names no file: " + error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string file = "queries.npy";
  const scenario::ArraysResult whole = scenario::read_arrays(bytes, file);

  // (a) The headers.
  const scenario::HeadersResult headers = scenario::read_array_headers(bytes, file);
  if (!headers.ok()) {
    check_error(headers.error, "headers");
    if (!headers.arrays.empty()) fail("an error came with headers", headers.error);
    if (whole.error != headers.error) fail("read_arrays says otherwise", whole.error);
    return 0;
  }
  size_t total = 0;
  for (const scenario::ArrayHeader& h : headers.arrays) {
    size_t count = 1;
    for (size_t d : h.shape) count *= d;
    if (count != h.count || count > scenario::kMaxArrayNumbers)
      fail("a header's count is not its shape's", h.name);
    total += count;
  }
  if (total > scenario::kMaxFileNumbers) fail("the file holds more numbers than it may", file);

  // (b) The numbers.
  const scenario::ArraysResult r = scenario::read_arrays_data(bytes, headers, file);
  if (r.error != whole.error)
    fail("read_arrays differs from its two parts", r.error + " | " + whole.error);
  if (!r.ok()) {
    check_error(r.error, "numbers");
    if (!r.arrays.empty()) fail("an error came with arrays", r.error);
    return 0;
  }
  if (r.arrays.size() != headers.arrays.size()) fail("arrays are missing", file);
  for (size_t k = 0; k < r.arrays.size(); ++k) {
    const scenario::NamedArray& a = r.arrays[k];
    const scenario::ArrayHeader& h = headers.arrays[k];
    if (a.name != h.name || a.shape != h.shape) fail("an array is not as its header says", a.name);
    if (a.data.size() != h.count) fail("an array's numbers do not fill its shape", a.name);
    const std::vector<float>& b = whole.arrays[k].data;  // bit for bit: NaN is not NaN
    if (b.size() != a.data.size() ||
        (!b.empty() && std::memcmp(b.data(), a.data.data(), b.size() * sizeof(float)) != 0))
      fail("read_arrays read other numbers", a.name);
  }

  // The arrays as a scenario's fields; as a stack's, in its layers ("layers.1.W_q") or in
  // layers they make.
  for (const char* stack : {R"({"version":1,"x":[[1,0]],"layers":[{},{"heads":1}]})",
                            R"({"version":1,"scoring":"additive"})"}) {
    const scenario::ParseResult l = scenario::parse_with_arrays(stack, r.arrays);
    if (!l.ok() &&
        (l.error.find('\n') != std::string::npos || l.error.find(": ") == std::string::npos))
      fail("the stack's error is not one line naming a field", l.error);
  }
  const std::string json = R"({"version":1,"queries":[[1,0]],"keys":[[1,0]],"values":[[1,0]]})";
  const scenario::ParseResult p = scenario::parse_with_arrays(json, r.arrays);
  if (!p.ok() &&
      (p.error.find('\n') != std::string::npos || p.error.find(": ") == std::string::npos))
    fail("the scenario's error is not one line naming a field", p.error);

  // What the names and shapes refuse, the numbers do not change.
  for (const scenario::ArrayHeader& h : headers.arrays) {
    const std::string e = scenario::check_array_field(h.name, h.shape);
    if (!e.empty() && p.ok()) fail("a field refused from its shape took the numbers", e);
  }
  size_t largest = 1;
  for (const scenario::ArrayHeader& h : headers.arrays) largest = std::max(largest, h.count);
  if (largest > (size_t{1} << 20)) return 0;  // zeros of a size the fuzzer need not spend time on
  const std::vector<float> zeros(largest, 0.0f);
  std::vector<scenario::FloatArray> stand_ins;
  for (const scenario::ArrayHeader& h : headers.arrays)
    stand_ins.push_back({zeros.data(), h.count});
  const scenario::ParseResult z = scenario::parse_with_arrays(json, headers.arrays, stand_ins);
  if (!z.ok() && p.ok()) fail("zeros were refused where the numbers were taken", z.error);
  return 0;
}
