// attention-cli package: the staged site (build/wasm/site) as a SCORM or cmi5 package for a
// course platform (scenario/package.h), written to --out.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_files.h"
#include "scenario/package.h"

namespace cli {

namespace {

namespace fs = std::filesystem;

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

constexpr const char* kUsage =
    "usage: attention-cli package --site DIR --out FILE.zip [--format scorm2004|scorm12|cmi5] "
    "[--lessons A,B] [--add LESSON.json ...] [--title TEXT] [--pass P]";

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

// The site's files from its root, sorted, but for the .br and .gz copies a server sends in
// their place (a course platform serves the files themselves).
std::string read_site(const fs::path& root, std::vector<scenario::ZipEntry>* files) {
  std::error_code ec;
  if (!fs::is_regular_file(root / "index.html", ec))
    return "--site: " + root.string() + " has no index.html (the staged site: build/wasm/site)";
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".br" || ext == ".gz") continue;
    paths.push_back(it->path());
  }
  if (ec) return "--site: cannot list " + root.string() + " (" + ec.message() + ")";
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (!in && !in.eof()) return "--site: cannot read " + p.string();
    files->push_back({fs::relative(p, root).generic_string(), bytes.str()});
  }
  return "";
}

// --add FILE: a scenario file as a lesson of the course's own, named by the file's name without
// .json, and put at the end of --lessons unless --lessons names its place. "" or the problem.
std::string read_own(const std::vector<std::string>& added, scenario::PackageSpec* spec) {
  if (added.empty()) return "";
  if (spec->lessons.empty())
    return "--add: name the course's lessons with --lessons too (the lessons of your own go "
           "where it names them, or after them)";
  if (added.size() > scenario::kMaxOwnLessons)
    return "--add: at most " + std::to_string(scenario::kMaxOwnLessons) +
           " lessons of the course's own";
  for (const std::string& file : added) {
    const fs::path path(file);
    if (path.extension() != ".json")
      return "--add: " + file.substr(0, 200) + " is not a .json scenario file";
    const Input in = read_input(file);  // check_package refuses more than kMaxOwnLessonBytes
    if (!in.ok()) return "--add: " + in.error.substr(0, 300);
    const std::string name = path.stem().string();
    if (std::string e = scenario::lesson_name_problem(name); !e.empty())
      return "--add: " + file.substr(0, 200) + ": the file's name " + e;
    // A copy, not a move: read_input's text holds a reservation of its 96 MB limit, and the
    // copy keeps only the file's bytes (up to 16 files stay in the spec).
    spec->own.push_back({name, in.text});
    if (std::find(spec->lessons.begin(), spec->lessons.end(), name) == spec->lessons.end())
      spec->lessons.push_back(name);
  }
  return "";
}

}  // namespace

std::string write_file(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return "--out: cannot write " + path + " (" + std::strerror(errno) + ")";
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() &&
                       std::fflush(file) == 0 && !std::ferror(file);
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written)
    return "--out: cannot write " + path + " (" + std::strerror(written ? errno : write_errno) +
           ")";
  return "";
}

int package_command(int argc, char** argv) {
  scenario::PackageSpec spec;
  spec.title = "Attention Playground";
  std::string site, out;
  std::vector<std::string> added;  // --add: scenario files, lessons of the course's own
  for (int i = 0; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 >= argc) return fail(option.substr(0, 40) + ": needs a value; " + kUsage);
    const std::string value = argv[++i];
    if (option == "--site") {
      site = value;
    } else if (option == "--out") {
      out = value;
    } else if (option == "--format") {
      spec.format = value;
    } else if (option == "--title") {
      spec.title = value;
    } else if (option == "--lessons") {
      spec.lessons = split(value);
    } else if (option == "--add") {
      added.push_back(value);
    } else if (option == "--pass") {
      if (value.empty() || value.size() > 3 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return fail("--pass: must be a whole percent from 0 to 100, not \"" + value.substr(0, 20) +
                    "\"");
      spec.pass = std::stoi(value);
    } else {
      return fail("package: unknown option " + option.substr(0, 40) + "; " + kUsage);
    }
  }
  if (site.empty() || out.empty()) return fail(std::string("package: ") + kUsage);
  const fs::path root(site);
  std::vector<scenario::ZipEntry> files;
  if (std::string e = read_site(root, &files); !e.empty()) return fail(e);
  if (std::string e = read_own(added, &spec); !e.empty()) return fail(e);
  if (std::string e = scenario::check_package(spec); !e.empty()) return fail(e);
  for (size_t i = 0; i < spec.lessons.size(); ++i) {
    if (std::any_of(spec.own.begin(), spec.own.end(),
                    [&](const scenario::OwnLesson& l) { return l.name == spec.lessons[i]; }))
      continue;
    std::error_code ec;
    if (!fs::is_regular_file(root / "assets" / "presets" / (spec.lessons[i] + ".json"), ec))
      return fail("lessons[" + std::to_string(i) + "]: \"" + spec.lessons[i] +
                  "\" is not a lesson of the site (no assets/presets/" + spec.lessons[i] +
                  ".json)");
  }
  const scenario::ZipResult zip = scenario::write_package(spec, files);
  if (!zip.ok()) return fail(zip.error);
  if (std::string e = write_file(out, zip.bytes); !e.empty()) return fail(e);
  std::printf("%s: %s, %zu files and %s, %zu bytes; launches %s\n", out.c_str(),
              spec.format.c_str(), files.size(), scenario::package_manifest_name(spec).c_str(),
              zip.bytes.size(), scenario::package_launch(spec).c_str());
  if (spec.format == "cmi5")
    std::printf("course id %s\n", scenario::package_course_id(spec).c_str());
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace cli
