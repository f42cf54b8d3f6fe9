// stack_reference: what `attention-cli grad` prints for a scenario with "layers", from the float64
// reference (attn::gradients_reference) rather than the float32 kernels, for layers_check.mjs
// (not installed).
//
//   stack_reference FILE|-
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "core/gradient.h"
#include "core/stack.h"
#include "scenario/scenario.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: stack_reference FILE|-\n", stderr);
    return 2;
  }
  std::string text;
  if (std::string(argv[1]) == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::FILE* f = std::fopen(argv[1], "rb");
    if (!f) {
      std::fprintf(stderr, "error: %s: cannot open\n", argv[1]);
      return 2;
    }
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  const scenario::ParseResult r = scenario::parse(text);
  if (!r.ok()) {
    std::fprintf(stderr, "error: %s\n", r.error.c_str());
    return 2;
  }
  if (r.stack.layers.empty()) {
    std::fputs("error: layers: the scenario has none\n", stderr);
    return 2;
  }
  attn::StackGradients g;
  const attn::Status st = attn::gradients_reference(r.stack, r.scenario.target, &g);
  if (!st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.error.c_str());
    return 2;
  }
  std::printf("%s\n", scenario::stack_gradients_json(r.scenario, g).c_str());
  return 0;
}
