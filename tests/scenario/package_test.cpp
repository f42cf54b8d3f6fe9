// Course packages: the ZIP writer read back by an independent reader (the CRC-32 a bit at a
// time, npy_bytes.h), hostile entry names refused, and the SCORM manifests' structure, escaping
// and launch address; the package as a platform hosts it is tests/web/lms_test.mjs's.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "npy_bytes.h"
#include "scenario/package.h"
#include "scenario/zip.h"

namespace {

uint32_t le(const std::string& s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}

struct ReadEntry {
  std::string name, bytes;
};

// The archive's entries through its central directory, every field checked against the local
// header, the CRC-32 recomputed.
std::vector<ReadEntry> read_back(const std::string& zip) {
  REQUIRE(zip.size() >= 22);
  const size_t end = zip.size() - 22;
  REQUIRE(le(zip, end, 4) == 0x06054b50u);
  const uint32_t count = le(zip, end + 10, 2), size = le(zip, end + 12, 4),
                 at = le(zip, end + 16, 4);
  REQUIRE(at + size == end);
  std::vector<ReadEntry> out;
  size_t p = at;
  for (uint32_t k = 0; k < count; ++k) {
    REQUIRE(le(zip, p, 4) == 0x02014b50u);
    const uint32_t crc = le(zip, p + 16, 4), stored = le(zip, p + 20, 4), n = le(zip, p + 28, 2);
    CHECK(le(zip, p + 10, 2) == 0);  // stored
    CHECK(le(zip, p + 24, 4) == stored);
    const uint32_t local = le(zip, p + 42, 4);
    const std::string name = zip.substr(p + 46, n);
    REQUIRE(le(zip, local, 4) == 0x04034b50u);
    CHECK(le(zip, local + 14, 4) == crc);
    CHECK(zip.substr(local + 30, le(zip, local + 26, 2)) == name);
    const std::string bytes = zip.substr(local + 30 + n + le(zip, local + 28, 2), stored);
    CHECK(test::crc32_of(bytes) == crc);
    out.push_back({name, bytes});
    p += 46 + n + le(zip, p + 30, 2) + le(zip, p + 32, 2);
  }
  return out;
}

}  // namespace

TEST_CASE("a ZIP archive is read back entry for entry, the same files the same bytes", "[zip]") {
  const std::vector<scenario::ZipEntry> files = {{"index.html", "<!doctype html>"},
                                                 {"js/app.js", std::string(100000, 'x')},
                                                 {"empty.txt", ""},
                                                 {"fonts/中文.ttf", std::string("\0\1\2\3", 4)}};
  const scenario::ZipResult z = scenario::write_zip(files);
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    CHECK(back[i].name == files[i].name);
    CHECK(back[i].bytes == files[i].bytes);
  }
  CHECK(scenario::write_zip(files).bytes == z.bytes);
  CHECK(read_back(scenario::write_zip({}).bytes).empty());
  CHECK(scenario::crc32(std::string("123456789")) == 0xCBF43926u);  // the standard check value
}

TEST_CASE("hostile entry names are refused, naming the entry", "[zip][bad]") {
  const std::pair<std::string, std::string> cases[] = {
      {"", "zip: an entry has no name"},
      {"/etc/passwd", "/etc/passwd: is an absolute path"},
      {"../outside", "../outside: has an empty, '.' or '..' part"},
      {"a/../../b", "a/../../b: has an empty, '.' or '..' part"},
      {"a//b", "a//b: has an empty, '.' or '..' part"},
      {"dir/", "dir/: has an empty, '.' or '..' part"},
      {"a\\b", "a\\b: has a backslash or a control character"},
      {std::string("a\nb"), "a\nb: has a backslash or a control character"},
  };
  for (const auto& [name, error] : cases) {
    INFO(name);
    CHECK(scenario::write_zip({{name, "x"}}).error == error);
  }
  CHECK(scenario::write_zip({{"a", "1"}, {"a", "2"}}).error == "a: is given twice");
  CHECK(scenario::write_zip({{std::string(2000, 'n'), "x"}}).error ==
        std::string(80, 'n') + ": is longer than 1024 bytes");
}

TEST_CASE("a package's spec is checked field by field", "[package][bad]") {
  scenario::PackageSpec ok{"scorm2004", "Attention", {"why_so_tall", "padded_batch"}, 70};
  CHECK(scenario::check_package(ok).empty());
  auto with = [&](auto change) {
    scenario::PackageSpec s = ok;
    change(s);
    return scenario::check_package(s);
  };
  CHECK(with([](auto& s) { s.format = "cmi5x"; }) ==
        "format: must be scorm2004 or scorm12, not \"cmi5x\"");
  CHECK(with([](auto& s) { s.title = ""; }) == "title: must be 1 to 200 characters");
  CHECK(with([](auto& s) { s.title = std::string(201, 't'); }) ==
        "title: must be 1 to 200 characters");
  CHECK(with([](auto& s) { s.title = "two\nlines"; }) ==
        "title: must be one line, without control characters");
  CHECK(with([](auto& s) {
          s.lessons = {"why_so_tall", "../x"};
        }) == "lessons[1]: \"../x\" is not a lesson name (1 to 32 of a-z, 0-9 and _)");
  CHECK(with([](auto& s) { s.lessons = {"a", "a"}; }) == "lessons[1]: \"a\" is listed twice");
  CHECK(with([](auto& s) { s.lessons.assign(65, "a"); }) ==
        "lessons: must name at most 64 lessons");
  CHECK(with([](auto& s) { s.pass = 101; }) == "pass: must be a whole percent from 0 to 100");
  CHECK(with([](auto& s) { s.lessons.clear(); }).empty());  // the whole path
}

TEST_CASE("the manifests: SCORM 2004 and 1.2, the launch address, every file, escaped text",
          "[package]") {
  scenario::PackageSpec spec{
      "scorm2004", "<Attention> & \"you\"", {"why_so_tall", "padded_batch"}, 70};
  CHECK(scenario::package_launch(spec) ==
        "index.html?lms=scorm2004&lessons=why_so_tall,padded_batch&pass=70&offline=off");
  const std::string m = scenario::package_manifest(spec, {"index.html", "a&b.js"});
  CHECK(m.find("<schemaversion>2004 4th Edition</schemaversion>") != std::string::npos);
  CHECK(m.find("xmlns=\"http://www.imsglobal.org/xsd/imscp_v1p1\"") != std::string::npos);
  CHECK(m.find("<title>&lt;Attention&gt; &amp; &quot;you&quot;</title>") != std::string::npos);
  CHECK(m.find("adlcp:scormType=\"sco\" href=\"index.html?lms=scorm2004&amp;lessons=why_so_tall,"
               "padded_batch&amp;pass=70&amp;offline=off\"") != std::string::npos);
  CHECK(m.find("<file href=\"a&amp;b.js\"/>") != std::string::npos);
  CHECK(m.find("<Attention>") == std::string::npos);
  spec.format = "scorm12";
  spec.lessons.clear();
  const std::string m12 = scenario::package_manifest(spec, {"index.html"});
  CHECK(m12.find("<schemaversion>1.2</schemaversion>") != std::string::npos);
  CHECK(m12.find("xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\"") != std::string::npos);
  CHECK(m12.find("<adlcp:masteryscore>70</adlcp:masteryscore>") != std::string::npos);
  CHECK(
      m12.find(
          "adlcp:scormtype=\"sco\" href=\"index.html?lms=scorm12&amp;pass=70&amp;offline=off\"") !=
      std::string::npos);
}

TEST_CASE("a package is the manifest and the files in one archive", "[package]") {
  const scenario::PackageSpec spec{"scorm12", "Course", {}, 80};
  const scenario::ZipResult z =
      scenario::write_package(spec, {{"index.html", "page"}, {"js/a.js", "js"}});
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == 3);
  CHECK(back[0].name == "imsmanifest.xml");
  CHECK(back[0].bytes == scenario::package_manifest(spec, {"index.html", "js/a.js"}));
  CHECK(back[2].bytes == "js");
  CHECK(scenario::write_package(spec, {{"imsmanifest.xml", "mine"}}).error ==
        "imsmanifest.xml: the package writes its own");
  CHECK(scenario::write_package({"scorm3000", "Course", {}, 80}, {}).error.rfind("format: ", 0) ==
        0);
}
