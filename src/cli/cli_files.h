// Files the CLI writes (--out), and the command that packages the site for course platforms.
#pragma once

#include <string>

namespace cli {

// A whole file, or standard input for "-", of at most 96 MB.
struct Input {
  std::string text;
  std::string error;  // "" when read, else "PATH: cannot open (reason)", "PATH: larger than …"
  bool ok() const { return error.empty(); }
};
Input read_input(const std::string& path);

// Writes `bytes` to `path` (replacing it): "" or "--out: cannot write PATH (reason)".
std::string write_file(const std::string& path, const std::string& bytes);

// attention-cli package --site DIR --out FILE.zip [--format scorm2004|scorm12|cmi5]
//                       [--lessons A,B] [--add LESSON.json ...] [--title TEXT] [--pass P]
// argv from the command's first option. The exit status; errors on stderr as main's.
int package_command(int argc, char** argv);

}  // namespace cli
