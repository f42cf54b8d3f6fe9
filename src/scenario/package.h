// Course packages: the playground's site as a SCORM 2004 (4th edition) or SCORM 1.2 package,
// for course platforms (Moodle, Canvas, Blackboard, Open edX) to import. The package launches
// index.html with ?lms=…&lessons=…&pass=… (web/js/lms.js reports to the platform from there).
#pragma once

#include <string>
#include <vector>

#include "scenario/zip.h"

namespace scenario {

struct PackageSpec {
  std::string format = "scorm2004";  // "scorm2004" or "scorm12"
  std::string title;                 // the course's title as the platform lists it
  std::vector<std::string> lessons;  // the course's lessons, in order; none: the whole path
  int pass = 80;                     // the passing score, percent
};

// The formats a package is written in.
inline constexpr const char* kPackageFormats[] = {"scorm2004", "scorm12"};

// "" or the problem, naming the field: format, title (1 to 200 characters, one line), lessons
// (at most 64 names of [a-z0-9_], each once), pass (0 to 100).
std::string check_package(const PackageSpec& spec);

// The page the package launches, relative to the package's root:
// "index.html?lms=scorm2004&lessons=a,b&pass=80&offline=off" (no lessons=: the whole path).
std::string package_launch(const PackageSpec& spec);

// imsmanifest.xml for the spec, listing `files` (paths relative to the root, '/'-separated)
// as the one SCO's resource.
std::string package_manifest(const PackageSpec& spec, const std::vector<std::string>& files);

// The package: `files` (the site's, from its root) and imsmanifest.xml in one ZIP archive.
// The spec is checked first (check_package); a file named imsmanifest.xml is refused.
ZipResult write_package(const PackageSpec& spec, const std::vector<ZipEntry>& files);

}  // namespace scenario
