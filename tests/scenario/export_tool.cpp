// export_tool: prints an export of a scenario file, for the export tests (not installed).
//
//   export_tool numpy FILE     the NumPy program
//   export_tool pytorch FILE   the PyTorch program
//   export_tool csv FILE       the weights of head 1 (a stack: of its first layer), batch item 1,
//                              labelled by the tokens
//   export_tool link FILE      the link fragment (without '#')
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/attention.h"
#include "core/stack.h"
#include "scenario/export.h"
#include "scenario/link.h"
#include "scenario/scenario.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: export_tool numpy|pytorch|csv|link FILE\n", stderr);
    return 2;
  }
  const std::string what = argv[1];
  std::ifstream in(argv[2], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: %s: cannot open\n", argv[2]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const scenario::ParseResult r = scenario::parse(text.str());
  if (!r.ok()) {
    std::fprintf(stderr, "error: %s\n", r.error.c_str());
    return 2;
  }
  const scenario::Scenario& s = r.scenario;
  std::string out;
  if (what == "numpy") {
    out = scenario::export_numpy(s);
  } else if (what == "pytorch") {
    out = scenario::export_pytorch(s);
  } else if (what == "link") {
    out = scenario::encode_link(s, scenario::ViewState()) + "\n";
  } else if (what == "csv") {
    // A stack of layers: its first layer's head 1.
    const attn::Trace t =
        s.layers.empty() ? attn::run(scenario::to_problem(s)) : attn::run(r.stack).layers[0];
    const std::vector<std::string> none;
    out = scenario::matrix_csv(t.heads[0].weights[0],
                               s.query_tokens.empty() ? none : s.query_tokens[0],
                               s.key_tokens.empty() ? none : s.key_tokens[0]);
  } else {
    std::fprintf(stderr, "error: unknown export \"%s\"\n", what.c_str());
    return 2;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
