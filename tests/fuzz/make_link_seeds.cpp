// Writes a link (scenario::encode_link) for each scenario file given, with a view that sets
// every field, into OUT_DIR: seeds for fuzz_link. Each link twice: as written (with its
// checksum), and without the checksum, as links were written before it, which still open:
// mutations of those reach the base64url, JSON and scenario readers behind the checksum.
//   make_link_seeds OUT_DIR SCENARIO.json...
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "scenario/link.h"
#include "scenario/scenario.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_link_seeds OUT_DIR SCENARIO.json...\n");
    return 2;
  }
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const scenario::ParseResult r = scenario::parse(text.str());
    if (!r.ok()) continue;
    scenario::ViewState v;
    v.step = 5;
    v.head = r.scenario.heads - 1;
    v.lang = "zh";
    v.panels = {"details", "lesson"};
    v.hidden = {"preset", "randomize"};
    v.embed = true;
    const std::string link = scenario::encode_link(r.scenario, v);
    const std::string stem = std::string(argv[1]) + "/seed" + std::to_string(i - 2);
    std::ofstream(stem + ".txt", std::ios::binary) << link;
    std::ofstream(stem + "-unchecked.txt", std::ios::binary) << link.substr(0, link.rfind('.'));
    ++written;
  }
  std::printf("make_link_seeds: %d links in %s\n", written, argv[1]);
  return written > 0 ? 0 : 1;
}
