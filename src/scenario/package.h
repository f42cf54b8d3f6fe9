// Course packages: the playground's site as a SCORM 2004 (4th edition), SCORM 1.2 or cmi5
// package, for course platforms (Moodle, Canvas, Blackboard, Open edX) to import. The package
// launches index.html with ?lms=…&lessons=…&pass=… (web/js/lms.js reports to the platform from
// there: SCORM's run-time up the frames, cmi5's xAPI statements to the LRS it is launched with).
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/zip.h"

namespace scenario {

// A lesson of the course's own: a scenario file the teacher wrote, or the page's scenario as the
// teacher edited it (a link's too). The package holds it as course/NAME.json; the page fetches it
// when ?lessons= names it and no lesson of the playground has that name (web/app.js).
struct OwnLesson {
  std::string name;  // as `lessons` names it
  std::string json;  // the scenario (scenario::parse reads it)
};
inline constexpr size_t kMaxOwnLessons = 16;
inline constexpr size_t kMaxOwnLessonBytes = size_t{1} << 20;

struct PackageSpec {
  std::string format = "scorm2004";  // "scorm2004", "scorm12" or "cmi5"
  std::string title;                 // the course's title as the platform lists it
  std::vector<std::string> lessons;  // the course's lessons, in order; none: the whole path
  int pass = 80;                     // the passing score, percent
  std::vector<OwnLesson> own;        // lessons of its own, each also named in `lessons`
};

// "" or why `name` cannot name a lesson: "\"../x\" is not a lesson name (1 to 32 of a-z, 0-9
// and _)".
std::string lesson_name_problem(const std::string& name);

// Where a lesson of the course's own is in the package: "course/NAME.json".
std::string own_lesson_path(const std::string& name);

// "" or why `json` cannot be a lesson (scenario::parse's or scenario::resolve's problem, naming
// the field), for a lesson of the course's own of at most kMaxOwnLessonBytes. When it can be
// and `parsed` is given, *parsed is the scenario read (parsed once, not again by the caller).
std::string check_own_lesson(const std::string& json, Scenario* parsed = nullptr);

// The formats a package is written in.
inline constexpr const char* kPackageFormats[] = {"scorm2004", "scorm12", "cmi5"};

// "" or the problem, naming the field: format, title (1 to 200 characters, one line), lessons
// (at most 64 names of [a-z0-9_], each once), pass (0 to 100), own (at most kMaxOwnLessons, each
// a name `lessons` lists, once, and a scenario check_own_lesson takes: "own[0] (\"mine\"): x: …").
std::string check_package(const PackageSpec& spec);

// The page the package launches, relative to the package's root:
// "index.html?lms=scorm2004&lessons=a,b&pass=80&offline=off&threads=1" (no lessons=: the whole
// path), with "&own=b" before pass= when b is a lesson of the course's own (the page fetches
// course/b.json). threads=1: the page runs a build without threads even where the platform
// makes it cross-origin isolated, as the package holds no other (package_ships).
std::string package_launch(const PackageSpec& spec);

// Whether a file of the site goes into a package: all but the threaded builds'
// (attention-playground-threads.js, .wasm, .worker.js and the same of -threads-relaxed). They
// need a cross-origin isolated page, which a course platform's is not (it would have to send
// COOP and COEP headers), so the page never loads them there (web/js/builds.js), and they are
// half the site's bytes. The SIMD128 and relaxed SIMD builds go in: the page picks one of them.
bool package_ships(const std::string& path);

// The manifest's name at the package's root: "imsmanifest.xml" (SCORM) or "cmi5.xml".
std::string package_manifest_name(const PackageSpec& spec);

// cmi5's course and AU ids: IRIs under the reserved .invalid domain (they name, never locate),
// "https://attention-playground.invalid/course/<16 hex digits>" (the AU's: that and "/au").
// The digits are a hash (FNV-1a, 64 bits) of the title and the lessons, so that the same course
// packaged again keeps its learners' records in the platform, and another course gets others.
// The passing score is left out: raising it is the same course.
std::string package_course_id(const PackageSpec& spec);

// The manifest for the spec. SCORM: imsmanifest.xml, listing `files` (paths relative to the
// root, '/'-separated) as the one SCO's resource. cmi5: cmi5.xml, a course structure of the
// course and one AU (moveOn CompletedAndPassed, masteryScore pass/100, launchMethod AnyWindow)
// launching package_launch (cmi5 lists no files).
std::string package_manifest(const PackageSpec& spec, const std::vector<std::string>& files);

// The Content-Security-Policy a cmi5 package's index.html declares instead of the site's
// connect-src 'self': the LRS the platform launches the page with is on an origin known only at
// launch, so any https origin, and plain http on the learner's own machine (a local LRS; also
// what the tests run). Nothing else of the policy changes.
inline constexpr const char* kCmi5ConnectSrc =
    "connect-src 'self' https: http://127.0.0.1:* "
    "http://localhost:*";

// The package: `files` (the site's, from its root; those package_ships leaves out are passed
// over), the course's own lessons and the manifest in one ZIP archive, each file deflated from its
// gzip copy when it has one that is its own (write_zip). The spec is checked first
// (check_package); a file named imsmanifest.xml or cmi5.xml is refused, and so is a lesson of the
// course's own named as one of the site's (assets/presets/NAME.json) or whose course/NAME.json
// the site has already. In a cmi5 package, index.html's connect-src 'self' becomes
// kCmi5ConnectSrc (and is stored: its gzip copy is the site's page, no longer its bytes).
ZipResult write_package(const PackageSpec& spec, const std::vector<ZipEntry>& files);

}  // namespace scenario
