// attention-cli package: the staged site (build/wasm/site) as a SCORM or cmi5 package for a
// course platform (scenario/package.h), written to --out.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
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

// The staged site's list of its files, which the build writes (scripts/stamp_sw.mjs): a package
// holds the files it lists and nothing else of the folder (no dotfiles, no zip left there).
constexpr const char* kSiteList = "site-files.json";
constexpr size_t kMaxSiteListBytes = size_t{1} << 20;
constexpr size_t kMaxSiteFiles = 4096;
// The most bytes of the site's files and their gzip copies read, all together: as the page's
// package may hold (ui::api::kMaxPackageBytes).
constexpr size_t kMaxSiteBytes = size_t{256} << 20;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

// What a file that is not a regular file is, for the error that refuses it.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A site's file name as a listed path: relative, '/'-separated, no empty, "." or ".." part and
// no hidden one (".git/config", ".env": a dotfile is never a file of the site).
bool is_site_path(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '/') return false;
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f) return false;
  for (size_t at = 0; at <= name.size();) {
    const size_t end = std::min(name.find('/', at), name.size());
    if (end == at || name[at] == '.') return false;
    at = end + 1;
  }
  return true;
}

// The site's files as its list names them, in its order, but those a package leaves out
// (scenario::package_ships), each with the gzip copy FILE.gz the list names (a copy is only ever
// used as the file's own bytes: write_zip inflates it and compares), so that the page's package
// (web/js/coursepack.js) and this one are the same bytes. Every listed file must be there, a
// regular file (not a link out of the folder); *read gets the paths read. "" or the problem,
// naming the file.
std::string read_site(const fs::path& root, std::vector<scenario::ZipEntry>* files,
                      std::vector<fs::path>* read) {
  std::error_code ec;
  if (!fs::is_regular_file(root / "index.html", ec))
    return "--site: " + root.string() + " has no index.html (the staged site: build/wasm/site)";
  const fs::path list_path = root / kSiteList;
  if (!fs::exists(list_path, ec))
    return "--site: " + root.string() + " has no " + kSiteList +
           " (the list of the site's files the build writes; build the site again)";
  const Input list_file = read_regular_file(list_path.string(), kMaxSiteListBytes, false);
  if (!list_file.ok()) return "--site: " + list_file.error;
  read->push_back(list_path);
  // {"files": [...], "gzip": [those with a copy FILE.gz]}, or the files alone, as a site built
  // before the copies were listed has it: then a copy is looked for beside each file.
  const nlohmann::json list = nlohmann::json::parse(list_file.text, nullptr, false);
  const nlohmann::json* names = list.is_array() ? &list : nullptr;
  std::set<std::string> copies;  // the files the list gives a gzip copy
  const bool listed_copies = list.is_object();
  if (listed_copies && list.contains("files") && list["files"].is_array() &&
      list.contains("gzip") && list["gzip"].is_array()) {
    names = &list["files"];
    for (const nlohmann::json& g : list["gzip"])
      if (g.is_string()) copies.insert(g.get<std::string>());
  }
  const std::string where = "--site: " + list_path.string();
  if (!names) return where + ": is not a list of the site's files";
  if (names->size() > kMaxSiteFiles)
    return where + ": lists more than " + std::to_string(kMaxSiteFiles) + " files";
  size_t budget = kMaxSiteBytes;
  for (size_t i = 0; i < names->size(); ++i) {
    const nlohmann::json& n = (*names)[i];
    if (!n.is_string() || !is_site_path(n.get<std::string>()))
      return where + ": files[" + std::to_string(i) + "] " + n.dump().substr(0, 80) +
             " is not a file's path in the site (relative, no '.' or '..' part, no dotfile)";
    const std::string name = n.get<std::string>();
    if (!scenario::package_ships(name)) continue;
    const fs::path path = root / name;
    struct stat st;
    if (::lstat(path.string().c_str(), &st) != 0)
      return "--site: " + std::string(kSiteList) + " lists " + name + ", which " + root.string() +
             " does not have (" + std::strerror(errno) + ")";
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > budget)
      return "--site: the site's files come to more than " + std::to_string(kMaxSiteBytes >> 20) +
             " MB (at " + name + ")";
    Input file = read_regular_file(path.string(), budget, false);
    if (!file.ok()) return "--site: " + file.error;
    budget -= file.text.size();
    read->push_back(path);
    // Its gzip copy, as the page takes it: the one the list names (missing, an error as for
    // any listed file), or in an older list's site the one beside it; a regular file, never
    // followed, and read only when it could be smaller.
    std::string gzip;
    const fs::path gz = root / (name + ".gz");
    const bool copy_listed = copies.count(name) > 0;
    const bool found = ::lstat(gz.string().c_str(), &st) == 0;
    const int missing = found ? 0 : errno;
    if (copy_listed && !found)
      return "--site: " + std::string(kSiteList) + " lists a gzip copy of " + name + ", which " +
             root.string() + " does not have (" + std::strerror(missing) + ")";
    if ((copy_listed || !listed_copies) && found && S_ISREG(st.st_mode) &&
        static_cast<uint64_t>(st.st_size) < file.text.size()) {
      Input copy = read_regular_file(gz.string(), std::min(budget, file.text.size()), false);
      if (!copy.ok()) return "--site: " + copy.error;
      budget -= copy.text.size();
      read->push_back(gz);
      gzip = std::move(copy.text);
    }
    files->push_back({name, std::move(file.text), std::move(gzip)});
  }
  if (std::none_of(files->begin(), files->end(),
                   [](const scenario::ZipEntry& f) { return f.name == "index.html"; }))
    return where + ": does not list index.html, the page the package launches";
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
    // At most the limit and a byte is read: a larger file, a FIFO or a device is refused
    // before it is read (read_regular_file).
    Input in = read_regular_file(file, scenario::kMaxOwnLessonBytes, true);
    if (!in.ok()) return "--add: " + in.error.substr(0, 300);
    const std::string name = path.stem().string();
    if (std::string e = scenario::lesson_name_problem(name); !e.empty())
      return "--add: " + file.substr(0, 200) + ": the file's name " + e;
    spec->own.push_back({name, std::move(in.text)});
    if (std::find(spec->lessons.begin(), spec->lessons.end(), name) == spec->lessons.end())
      spec->lessons.push_back(name);
  }
  return "";
}

// Whether `path` is `dir` or inside it (both canonical: no "..", no links).
bool is_inside(const fs::path& path, const fs::path& dir) {
  auto d = dir.begin(), p = path.begin();
  for (; d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

// "" or why --out may not be written: it names one of the inputs (an --add file, or a file of
// the site, compared as canonical paths and as files, so that a link or another spelling of the
// same path is caught) or lies inside --site (the package would become a stray file of the site).
std::string out_problem(const std::string& out, const fs::path& root,
                        const std::vector<std::string>& added, const std::vector<fs::path>& read) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::path(out), ec);
  if (ec) return "--out: " + out + ": cannot be resolved (" + ec.message() + ")";
  const fs::path site = fs::weakly_canonical(root, ec);
  if (!ec && is_inside(target, site))
    return "--out: " + out + " is inside --site " + root.string() + "; write the package elsewhere";
  const bool exists = fs::exists(target, ec);
  const auto same = [&](const fs::path& input) {
    std::error_code e;
    return fs::weakly_canonical(input, e) == target || (exists && fs::equivalent(input, target, e));
  };
  for (const std::string& a : added)
    if (same(a))
      return "--out: " + out + " is the --add file " + a + "; write the package elsewhere";
  for (const fs::path& p : read)
    if (same(p))
      return "--out: " + out + " is the site's " + p.string() + "; write the package elsewhere";
  return "";
}

}  // namespace

Input read_regular_file(const std::string& path, size_t limit, bool follow_links) {
  Input in;
  const auto failed = [&](const std::string& why) {
    in.error = path + ": " + why;
    in.text.clear();
    return in;
  };
  // Looked at before it is opened: a FIFO would block open() until a writer came, and a device
  // or a directory is no file to read (the WebAssembly CLI's open() does not honour O_NONBLOCK).
  struct stat st;
  if ((follow_links ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0)
    return failed(std::string("cannot open (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    return failed(std::string("is not a regular file (") + file_kind(st.st_mode) + ")");
  const std::string larger = limit >= (size_t{1} << 20)
                                 ? "is larger than " + std::to_string(limit >> 20) + " MB"
                                 : "is larger than " + std::to_string(limit) + " bytes";
  if (static_cast<uint64_t>(st.st_size) > limit) return failed(larger);
  // Opened without blocking, and looked at again: what was checked may have been replaced.
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) return failed(std::string("cannot open (") + std::strerror(errno) + ")");
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return failed("is not a regular file (it changed as it was opened)");
  }
  // At most limit + 1 bytes: one more than the limit is enough to refuse a file that grew.
  in.text.reserve(std::min<uint64_t>(static_cast<uint64_t>(st.st_size), limit) + 1);
  char buf[1 << 16];
  for (;;) {
    const size_t want = std::min(sizeof buf, limit + 1 - in.text.size());
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return failed(std::string("read error (") + std::strerror(e) + ")");
    }
    if (n == 0) break;
    in.text.append(buf, static_cast<size_t>(n));
    if (in.text.size() > limit) {
      ::close(fd);
      return failed(larger);
    }
  }
  ::close(fd);
  return in;
}

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
  std::vector<fs::path> read;  // every file read, which --out may not name
  if (std::string e = read_own(added, &spec); !e.empty()) return fail(e);
  if (std::string e = read_site(root, &files, &read); !e.empty()) return fail(e);
  if (std::string e = scenario::check_package(spec); !e.empty()) return fail(e);
  for (size_t i = 0; i < spec.lessons.size(); ++i) {
    if (std::any_of(spec.own.begin(), spec.own.end(),
                    [&](const scenario::OwnLesson& l) { return l.name == spec.lessons[i]; }))
      continue;
    const std::string preset = "assets/presets/" + spec.lessons[i] + ".json";
    if (std::none_of(files.begin(), files.end(),
                     [&](const scenario::ZipEntry& f) { return f.name == preset; }))
      return fail("lessons[" + std::to_string(i) + "]: \"" + spec.lessons[i] +
                  "\" is not a lesson of the site (no " + preset + ")");
  }
  if (std::string e = out_problem(out, root, added, read); !e.empty()) return fail(e);
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
