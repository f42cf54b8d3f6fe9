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

// A regular file of at most `limit` bytes, of which at most limit + 1 are read: a FIFO, a
// directory or a device is refused before it is opened (nothing blocks), a larger file before
// it is read, and one that grows as it is read once it passes the limit. The errors: "PATH:
// cannot open (reason)", "PATH: is not a regular file (a FIFO)", "PATH: is larger than 1 MB".
// follow_links false: a symbolic link is refused too (a site's file may not lead out of it).
Input read_regular_file(const std::string& path, size_t limit, bool follow_links);

// Writes `bytes` to `path` (replacing it): "" or "--out: cannot write PATH (reason)".
std::string write_file(const std::string& path, const std::string& bytes);

// attention-cli package --site DIR --out FILE.zip [--format scorm2004|scorm12|cmi5]
//                       [--lessons A,B] [--add LESSON.json ...] [--title TEXT] [--pass P]
// argv from the command's first option. The exit status; errors on stderr as main's.
int package_command(int argc, char** argv);

}  // namespace cli
