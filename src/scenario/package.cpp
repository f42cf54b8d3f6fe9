// Course packages (package.h): the spec checked, the launch address, imsmanifest.xml for
// SCORM 2004 4th edition and SCORM 1.2 (IMS Content Packaging 1.1, one organization with one
// item and one SCO resource), cmi5.xml (cmi5's course structure: a course and one AU), and the
// archive.
#include "scenario/package.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <utility>

namespace scenario {

namespace {

bool is_name(const std::string& s) {
  return !s.empty() && s.size() <= 32 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Text and attribute values as XML writes them.
std::string xml(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// FNV-1a, 64 bits: a stable hash for ids (not a secret, so no cryptographic hash is needed).
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// A percent as a decimal from 0 to 1 without trailing zeros: 70 → "0.7", 5 → "0.05".
std::string fraction(int percent) {
  if (percent >= 100) return "1";
  if (percent <= 0) return "0";
  std::string digits = std::to_string(100 + percent).substr(1);  // two digits
  if (digits.back() == '0') digits.pop_back();
  return "0." + digits;
}

// cmi5.xml: the course and its one AU, each with a title and a description in a langstring
// (the course structure's schema requires both), the AU's url the page's launch address.
std::string cmi5_manifest(const PackageSpec& spec) {
  const std::string id = package_course_id(spec);
  const std::string title =
      "<title><langstring lang=\"en-US\">" + xml(spec.title) + "</langstring></title>\n";
  std::string lessons;
  for (const std::string& l : spec.lessons) lessons += (lessons.empty() ? "" : ", ") + l;
  const std::string description =
      "<description><langstring lang=\"en-US\">Attention Playground: " +
      xml(lessons.empty() ? std::string("every lesson") : "the lessons " + lessons) +
      ", passed at " + std::to_string(spec.pass) + " %</langstring></description>\n";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<courseStructure xmlns=\"https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd\">\n"
         "  <course id=\"" +
         xml(id) + "\">\n    " + title + "    " + description +
         "  </course>\n"
         // Completed and passed: the learner did every lesson and scored the passing score.
         "  <au id=\"" +
         xml(id + "/au") + "\" moveOn=\"CompletedAndPassed\" masteryScore=\"" +
         fraction(spec.pass) + "\" launchMethod=\"AnyWindow\">\n    " + title + "    " +
         description + "    <url>" + xml(package_launch(spec)) +
         "</url>\n"
         "  </au>\n"
         "</courseStructure>\n";
}

// index.html with its connect-src 'self' widened for the LRS (kCmi5ConnectSrc); the page's
// other directives are kept as they are.
std::string widen_connect_src(std::string page) {
  const std::string from = "connect-src 'self'";
  const size_t at = page.find(from);
  if (at != std::string::npos) page.replace(at, from.size(), kCmi5ConnectSrc);
  return page;
}

}  // namespace

std::string package_manifest_name(const PackageSpec& spec) {
  return spec.format == "cmi5" ? "cmi5.xml" : "imsmanifest.xml";
}

std::string package_course_id(const PackageSpec& spec) {
  std::string key = spec.title;
  for (const std::string& l : spec.lessons) key += "\n" + l;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return std::string("https://attention-playground.invalid/course/") + hex;
}

std::string lesson_name_problem(const std::string& name) {
  return is_name(name)
             ? ""
             : "\"" + name.substr(0, 40) + "\" is not a lesson name (1 to 32 of a-z, 0-9 and _)";
}

std::string own_lesson_path(const std::string& name) {
  return "course/" + name + ".json";
}

std::string check_own_lesson(const std::string& json, Scenario* parsed) {
  if (json.size() > kMaxOwnLessonBytes)
    return "is larger than " + std::to_string(kMaxOwnLessonBytes >> 20) + " MB";
  ParseResult r = parse(json);
  if (!r.ok()) return r.error;
  if (const Resolved resolved = resolve(r.scenario); !resolved.ok()) return resolved.error;
  if (parsed) *parsed = std::move(r.scenario);
  return "";
}

std::string check_package(const PackageSpec& spec) {
  if (std::find_if(std::begin(kPackageFormats), std::end(kPackageFormats),
                   [&](const char* f) { return spec.format == f; }) == std::end(kPackageFormats))
    return "format: must be scorm2004, scorm12 or cmi5, not \"" + spec.format.substr(0, 40) + "\"";
  if (spec.title.empty() || spec.title.size() > 200) return "title: must be 1 to 200 characters";
  for (const char c : spec.title)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "title: must be one line, without control characters";
  if (spec.lessons.size() > 64) return "lessons: must name at most 64 lessons";
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.lessons.size(); ++i) {
    const std::string& l = spec.lessons[i];
    if (std::string e = lesson_name_problem(l); !e.empty())
      return "lessons[" + std::to_string(i) + "]: " + e;
    if (!seen.insert(l).second)
      return "lessons[" + std::to_string(i) + "]: \"" + l + "\" is listed twice";
  }
  if (spec.pass < 0 || spec.pass > 100) return "pass: must be a whole percent from 0 to 100";
  if (spec.own.size() > kMaxOwnLessons)
    return "own: at most " + std::to_string(kMaxOwnLessons) + " lessons of the course's own";
  std::set<std::string> own;
  for (size_t i = 0; i < spec.own.size(); ++i) {
    const std::string& name = spec.own[i].name;
    const std::string where = "own[" + std::to_string(i) + "]";
    if (std::string e = lesson_name_problem(name); !e.empty()) return where + ": " + e;
    if (!own.insert(name).second) return where + ": \"" + name + "\" is given twice";
    if (!seen.count(name))
      return where + ": \"" + name + "\" is not one of lessons (name it there, in its place)";
    if (std::string e = check_own_lesson(spec.own[i].json); !e.empty())
      return where + " (\"" + name + "\"): " + e;
  }
  return "";
}

std::string package_launch(const PackageSpec& spec) {
  std::string lessons;
  for (const std::string& l : spec.lessons) lessons += (lessons.empty() ? "" : ",") + l;
  std::string own;
  for (const OwnLesson& l : spec.own) own += (own.empty() ? "" : ",") + l.name;
  return "index.html?lms=" + spec.format + (lessons.empty() ? "" : "&lessons=" + lessons) +
         (own.empty() ? "" : "&own=" + own) + "&pass=" + std::to_string(spec.pass) +
         "&offline=off&threads=1";
}

bool package_ships(const std::string& path) {
  static const char* const kThreaded[] = {"attention-playground-threads.js",
                                          "attention-playground-threads.wasm",
                                          "attention-playground-threads.worker.js",
                                          "attention-playground-threads-relaxed.js",
                                          "attention-playground-threads-relaxed.wasm",
                                          "attention-playground-threads-relaxed.worker.js"};
  return std::none_of(std::begin(kThreaded), std::end(kThreaded),
                      [&](const char* f) { return path == f; });
}

std::string package_manifest(const PackageSpec& spec, const std::vector<std::string>& files) {
  if (spec.format == "cmi5") return cmi5_manifest(spec);
  const bool v2004 = spec.format == "scorm2004";
  const std::string title = xml(spec.title);
  std::string m = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  if (v2004) {
    m += "<manifest identifier=\"attention_playground\" version=\"1\"\n"
         "    xmlns=\"http://www.imsglobal.org/xsd/imscp_v1p1\"\n"
         "    xmlns:adlcp=\"http://www.adlnet.org/xsd/adlcp_v1p3\"\n"
         "    xmlns:adlseq=\"http://www.adlnet.org/xsd/adlseq_v1p3\"\n"
         "    xmlns:adlnav=\"http://www.adlnet.org/xsd/adlnav_v1p3\"\n"
         "    xmlns:imsss=\"http://www.imsglobal.org/xsd/imsss\"\n"
         "    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
         "    xsi:schemaLocation=\"http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd "
         "http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd "
         "http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd "
         "http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd "
         "http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd\">\n"
         "  <metadata>\n"
         "    <schema>ADL SCORM</schema>\n"
         "    <schemaversion>2004 4th Edition</schemaversion>\n"
         "  </metadata>\n";
  } else {
    m += "<manifest identifier=\"attention_playground\" version=\"1.0\"\n"
         "    xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\"\n"
         "    xmlns:adlcp=\"http://www.adlnet.org/xsd/adlcp_rootv1p2\"\n"
         "    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
         "    xsi:schemaLocation=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2 "
         "imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd "
         "http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd\">\n"
         "  <metadata>\n"
         "    <schema>ADL SCORM</schema>\n"
         "    <schemaversion>1.2</schemaversion>\n"
         "  </metadata>\n";
  }
  m += "  <organizations default=\"course\">\n"
       "    <organization identifier=\"course\">\n"
       "      <title>" +
       title +
       "</title>\n"
       "      <item identifier=\"playground_item\" identifierref=\"playground\"" +
       std::string(v2004 ? "" : " isvisible=\"true\"") +
       ">\n"
       "        <title>" +
       title + "</title>\n";
  // The passing score. SCORM 2004: the item's primary objective is satisfied by the scaled
  // score reaching it, and the platform gives it to the page as cmi.scaled_passing_score. SCORM
  // 1.2 gets none (the launch address's pass= carries it): a platform with a mastery score
  // applies it at LMSFinish to whatever raw score there is (Moodle turns "incomplete" into
  // "failed" below it), so a learner who left halfway would fail. The page says passed or
  // failed itself once the course is done (web/js/lms.js).
  if (v2004) {
    // pass/100 with two decimals, a trailing zero dropped: 70 → "0.7", 5 → "0.05", 100 → "1.0".
    std::string measure = std::to_string(spec.pass / 100) + (spec.pass % 100 < 10 ? ".0" : ".") +
                          std::to_string(spec.pass % 100);
    if (measure.size() > 3 && measure.back() == '0') measure.pop_back();
    m += "        <imsss:sequencing>\n"
         "          <imsss:objectives>\n"
         "            <imsss:primaryObjective objectiveID=\"course_passed\" "
         "satisfiedByMeasure=\"true\">\n"
         "              <imsss:minNormalizedMeasure>" +
         measure +
         "</imsss:minNormalizedMeasure>\n"
         "            </imsss:primaryObjective>\n"
         "          </imsss:objectives>\n"
         "        </imsss:sequencing>\n";
  }
  m += "      </item>\n"
       "    </organization>\n"
       "  </organizations>\n"
       "  <resources>\n"
       "    <resource identifier=\"playground\" type=\"webcontent\" " +
       std::string(v2004 ? "adlcp:scormType" : "adlcp:scormtype") + "=\"sco\" href=\"" +
       xml(package_launch(spec)) + "\">\n";
  for (const std::string& f : files) m += "      <file href=\"" + xml(f) + "\"/>\n";
  m += "    </resource>\n"
       "  </resources>\n"
       "</manifest>\n";
  return m;
}

ZipResult write_package(const PackageSpec& spec, const std::vector<ZipEntry>& files) {
  ZipResult r;
  if (std::string e = check_package(spec); !e.empty()) {
    r.error = e;
    return r;
  }
  // Either manifest in the site would leave a platform unsure which package it was given.
  std::vector<std::string> names;
  std::vector<const ZipEntry*> shipped;
  for (const ZipEntry& f : files) {
    if (!package_ships(f.name)) continue;
    if (f.name == "imsmanifest.xml" || f.name == "cmi5.xml") {
      r.error = f.name + ": the package writes its own";
      return r;
    }
    for (size_t i = 0; i < spec.own.size(); ++i) {
      const std::string& name = spec.own[i].name;
      const std::string where = "own[" + std::to_string(i) + "]: \"" + name + "\" ";
      if (f.name == "assets/presets/" + name + ".json")
        r.error = where + "is a lesson of the playground already; give yours another name";
      else if (f.name == own_lesson_path(name))
        r.error = where + "is in the site already (" + f.name + ")";
      if (!r.error.empty()) return r;
    }
    names.push_back(f.name);
    shipped.push_back(&f);
  }
  std::vector<ZipEntry> own;
  for (const OwnLesson& l : spec.own) {
    own.push_back({own_lesson_path(l.name), l.json});
    names.push_back(own.back().name);
  }
  std::vector<ZipEntry> all;
  all.reserve(shipped.size() + own.size() + 1);
  all.push_back({package_manifest_name(spec), package_manifest(spec, names)});
  for (const ZipEntry* f : shipped) all.push_back(*f);
  all.insert(all.end(), own.begin(), own.end());
  if (spec.format == "cmi5") {
    for (ZipEntry& f : all) {
      if (f.name != "index.html") continue;
      f.bytes = widen_connect_src(f.bytes);
      f.gzip.clear();  // the site's page, no longer this one: stored (2 KB)
    }
  }
  return write_zip(all);
}

}  // namespace scenario
