// libFuzzer target: any bytes as the part of a link after '#'. decode_link() must give a
// scenario and view or one error line starting with "link"; what it gives must encode to a
// link that decodes to the same scenario and view, and that link with any one character
// changed (where and into what the input decides) must be refused as damaged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scenario/link.h"
#include "scenario/scenario.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_link: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string fragment(reinterpret_cast<const char*>(data), size);
  // Half the inputs as they are, half behind "v1." so that the payload is reached often.
  if (size > 0 && (data[0] & 1)) fragment = "v1." + fragment.substr(1);
  const scenario::LinkResult r = scenario::decode_link(fragment);
  if (!r.ok()) {
    if (r.error.find('\n') != std::string::npos) fail("the error is not one line", r.error);
    if (r.error.rfind("link", 0) != 0) fail("the error does not start with \"link\"", r.error);
    return 0;
  }
  const std::string link = scenario::encode_link(r.scenario, r.view);
  const scenario::LinkResult back = scenario::decode_link(link);
  if (!back.ok()) fail("a link made by encode_link does not decode", back.error);
  if (scenario::to_json(back.scenario) != scenario::to_json(r.scenario))
    fail("the scenario changed on the round trip", scenario::to_json(r.scenario));
  if (back.view != r.view) fail("the view changed on the round trip", link);
  // One character changed: the checksum (link.h) refuses it as damaged.
  std::string bent = link;
  const size_t at = (size > 1 ? data[1] : 0) * 131u % bent.size();
  const char into = static_cast<char>(size > 2 ? data[2] : 'A');
  if (bent[at] != into) {
    bent[at] = into;
    const scenario::LinkResult d = scenario::decode_link(bent);
    if (d.ok()) fail("a link with a character changed opened", bent);
    if (d.error.find("damaged") == std::string::npos)
      fail("a link with a character changed is not refused as damaged", d.error);
  }
  return 0;
}
