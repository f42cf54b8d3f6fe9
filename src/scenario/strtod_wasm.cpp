// WebAssembly only: strtod through read_plain_decimal first. Every executable that links
// ap_scenario is linked with --wrap=strtod (CMakeLists.txt), so that its calls to strtod,
// nlohmann's among them, come here; __real_strtod is musl's, which takes the numbers the fast
// path leaves (about 1 µs each: it works in 128-bit software floats).
#include <cstdlib>

#include "scenario/json_util.h"

extern "C" {

double __real_strtod(const char* s, char** end);

double __wrap_strtod(const char* s, char** end) {
  double value;
  const char* stop;
  if (scenario::json_util::read_plain_decimal(s, &value, &stop)) {
    if (end) *end = const_cast<char*>(stop);
    return value;
  }
  return __real_strtod(s, end);
}

}  // extern "C"
