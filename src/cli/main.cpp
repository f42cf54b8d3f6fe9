// attention-cli: evaluates and validates Scenario JSON from files or standard input.
//
//   attention-cli eval FILE|-       prints the trace JSON (shared/DESIGN.md §5)
//   attention-cli validate FILE|-   prints "ok" if the scenario can run
//   attention-cli normalize FILE|-  prints the scenario in canonical compact JSON
//
// Exit 0 on success; on bad input exit 2 with one line on stderr: "error: <field>: <problem>";
// exit 1 when the output cannot be written (a full disk, a closed pipe).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/attention.h"
#include "scenario/scenario.h"

namespace {

constexpr size_t kMaxInputBytes = size_t{96} << 20;  // bad input is refused in ~100 MB

const char kUsage[] =
    "usage: attention-cli eval FILE|-       print the trace JSON of a scenario\n"
    "       attention-cli validate FILE|-   check a scenario, print \"ok\"\n"
    "       attention-cli normalize FILE|-  print a scenario as canonical JSON\n"
    "FILE is Scenario JSON v1; - reads standard input. Bad input exits with 2 and one line\n"
    "\"error: <field>: <problem>\" on standard error.\n";

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

// A whole file, or standard input for "-".
struct Input {
  std::string text;
  std::string error;  // "" when read
  bool ok() const { return error.empty(); }
};

Input read_input(const std::string& path) {
  Input in;
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    in.error = path + ": cannot open (" + std::strerror(errno) + ")";
    return in;
  }
  // One buffer of the limit's size, never copied to grow: its pages take memory only as
  // they are filled, so a text is refused with no more than the limit in memory.
  in.text.reserve(kMaxInputBytes);
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (in.text.size() + n > kMaxInputBytes) {
      in.error = path + ": larger than " + std::to_string(kMaxInputBytes >> 20) + " MB";
      break;
    }
    in.text.append(buf, n);
  }
  if (in.ok() && std::ferror(f)) in.error = path + ": read error";
  if (f != stdin) std::fclose(f);
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc != 3) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  if (command != "eval" && command != "validate" && command != "normalize")
    return fail("command: unknown command \"" + command +
                "\" (expected eval, validate or normalize)");

  const Input input = read_input(argv[2]);
  if (!input.ok()) return fail(input.error);
  const scenario::ParseResult parsed = scenario::parse(input.text);
  if (!parsed.ok()) return fail(parsed.error);

  if (command == "validate") {
    std::puts("ok");
  } else if (command == "normalize") {
    std::puts(scenario::to_json(parsed.scenario).c_str());
  } else {
    const attn::Trace trace = attn::run(parsed.problem);
    const std::string out = scenario::trace_to_json(trace);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
  }
  // A full disk or a closed pipe: the output is not all there, and the exit status says so.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "error: output: cannot be written (%s)\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
